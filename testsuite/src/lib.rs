//! # weft-testsuite: benchmark programs and the evaluation harness
//!
//! Holds the C benchmark programs under `benchmarks/` (irregular ch. 4 kernels and
//! affine ch. 5 kernels), their input loaders and generators, the differential
//! correctness tests, and the harness behind `weft eval`.
#![warn(missing_docs)]

pub mod alias_checks;
pub mod bench;
pub mod data;
pub mod eval;
pub mod kernels;
pub mod polly;
