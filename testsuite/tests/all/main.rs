//! Integration tests of weft-testsuite (one binary, see conventions.md).
//! Integration tests of weft-testsuite (one binary, submodules per area).
//!
//! The benchmark tests compile the C programs with clang-19 once per optimisation
//! level (shared between tests through `common::built_o1`/`built_o0`) and run them at
//! their quick sizes; the data tests read the inputs shipped in `data/` (unpacked into
//! `target/weft-data/` on first use, or `$WEFT_DATA_DIR` when set).

mod benchmarks;
mod common;
mod eval_e2e;
mod eval_gpu;
mod eval_harness;
mod loaders;
mod renumber;
mod spark98;
