//! One module per subcommand: each defines `Args` (clap) and `run(Args)`.
pub mod analyze;
pub mod demo;
pub mod eval;
pub mod build;
pub mod opt;
pub mod run;
pub mod schedule;
