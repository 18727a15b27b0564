//! One module per subcommand: each defines `Args` (clap) and `run(Args)`.
pub mod analyze;
pub mod bench;
pub mod build;
pub mod demo;
pub mod eval;
pub mod gpusim;
pub mod gpusim_reuse;
pub mod gpusim_tbm;
pub mod opt;
pub mod run;
pub mod schedule;
pub mod sim;
