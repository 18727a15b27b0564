//! # weft-memsim: the memory-system simulators
//!
//! Trace-driven models of the memory side of a manycore: machine configuration
//! ([`config`]), the address mapping shared with the runtime ([`addrmap`]), memory
//! traces ([`trace`]), DRAM channels/ranks/banks with DDR4 command timing, and (as
//! later modules land) caches, the mesh NoC, the core model and the hardware
//! memory schedulers.
//!
//! Design rules (see `DESIGN.md` and `conventions.md`): one module per hardware
//! unit, bounded queues named after their endpoints, policies as traits,
//! event-driven where the model allows, deterministic for a given input and seed.
//! This crate depends on no other weft crate; `config` and `addrmap` stay free of
//! heavy dependencies because the runtime links them.
#![warn(missing_docs)]

pub mod addrmap;
pub mod cache;
pub mod config;
pub mod core;
pub mod dram;
pub mod dram_backend;
mod dram_side;
mod evq;
pub mod fuzz;
pub mod gpu;
pub mod limits;
pub mod machine;
pub mod manycore;
pub mod metrics;
pub mod noc;
pub mod oracle;
pub mod prefetch;
pub mod rng;
pub mod run;
pub mod sample;
pub mod sched;
pub mod simple_dram;
pub mod stats;
pub mod synth;
pub mod system;
pub mod trace;
pub mod trace_source;

/// Any error of this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Machine configuration.
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    /// Address mapping.
    #[error(transparent)]
    AddrMap(#[from] addrmap::AddrMapError),
    /// Trace reading or writing.
    #[error(transparent)]
    Trace(#[from] trace::TraceError),
}

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
