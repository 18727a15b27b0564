//! Integration tests of the `weft` command line (one binary, see COMMON.md).

mod analyze;
mod cli_passes;
mod differential;
mod readme;
mod schedule;
mod sim;
