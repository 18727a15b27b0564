//! Integration tests of weft-frontend (one binary, see COMMON.md).

mod common;
mod errors;
mod forms;
mod kernels;
mod prop;
mod prop_distribute;
mod prop_private;
mod prop_tri;
