//! Integration tests of the `weft` command line (one binary, see COMMON.md).

mod analyze;
