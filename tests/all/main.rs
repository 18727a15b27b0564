//! Integration tests of the `weft` package (one binary, see COMMON.md).

mod cli_passes;
mod differential;
