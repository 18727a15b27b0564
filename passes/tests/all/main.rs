//! Integration tests of weft-passes (one binary, see COMMON.md).

mod affine_diff;
mod filetests;
mod layout;
mod manager;
mod remarks;
