//! One module per subcommand: each defines `Args` (clap) and `run(Args)`.
pub mod schedule;
