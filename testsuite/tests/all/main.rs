//! Integration tests of weft-testsuite (one binary, see conventions.md).
//!
//! The benchmark tests compile the C programs with clang-19 once per optimisation
//! level (shared between tests through [`common::built`]) and run them at their
//! quick sizes; the data tests read the files in the shared data directory
//! (`$WEFT_DATA_DIR`, default `/work/shared/data`).

mod benchmarks;
mod eval_harness;
mod common;
mod loaders;
mod spark98;
