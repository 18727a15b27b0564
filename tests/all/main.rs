//! Integration tests of the `weft` command-line tool (one binary, see conventions.md).

mod schedule;
