//! # weft-runtime: the inspector/executor runtime
//!
//! Linked into optimized programs as `libweft_runtime.a` (C ABI, see [`abi`] and
//! `include/weft_runtime.h`) and used from Rust as an rlib. The inspector builds
//! bank maps from the addresses a loop will touch ([`bankmap`]), checks
//! dependences between units ([`deps`]) and schedules slabs with Algorithm 4
//! ([`blp`], dissertation §4.4.4) or iteration blocks with Algorithm 5 ([`mlp`],
//! §5.5); [`optimal`] is the exact reference. The executor ([`executor`]) runs a
//! schedule on worker threads or, in trace mode, sequentially while [`trace`]
//! records per-virtual-core memory traces. [`runtime`] ties these together with
//! the schedule cache and statistics.
//!
//! The machine (address mapping, bank counts, latencies) comes from `weft-memsim`'s
//! presets ([`machine`]) so the runtime and the simulator always agree.
#![warn(missing_docs)]

pub mod abi;
pub mod affine_desc;
pub mod aside;
pub mod bankmap;
pub mod bankset;
pub mod blp;
pub mod blp_windows;
pub mod deps;
pub mod error;
pub mod executor;
pub mod inspect;
pub mod machine;
pub mod mlp;
pub mod optimal;
pub mod pool;
pub mod runtime;
pub mod trace;

pub use error::{Result, RuntimeError};

/// Helpers shared by the unit tests.
#[cfg(test)]
mod testutil {
    /// Marsaglia's xorshift64 from `seed` (nonzero): each call returns the
    /// next state.
    pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }
}
