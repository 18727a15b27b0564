//! Integration tests of weft-passes (one binary, see COMMON.md).

mod filetests;
mod manager;
