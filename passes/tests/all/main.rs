//! Integration tests of weft-passes (one binary, see COMMON.md).

mod affine_diff;
mod filetests;
mod manager;
mod remarks;
