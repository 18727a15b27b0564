//! The GPU simulator engine (`weft gpusim`).
pub mod config;
