//! Integration tests of weft-testsuite (one binary, submodules per area).

mod eval_harness;
