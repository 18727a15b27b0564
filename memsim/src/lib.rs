//! # weft-memsim: the memory-system simulators
//!
//! Trace-driven models of the memory side of a manycore: machine configuration
//! ([`config`]), the address mapping shared with the runtime ([`addrmap`]), DRAM
//! channels/ranks/banks with DDR4 command timing, and (as later modules land)
//! caches, the mesh NoC, the core model and the hardware memory schedulers.
//!
//! Design rules (see `DESIGN.md` and `conventions.md`): one module per hardware
//! unit, bounded queues named after their endpoints, policies as traits,
//! event-driven where the model allows, deterministic for a given input and seed.
//! This crate depends on no other weft crate; `config` and `addrmap` stay free of
//! heavy dependencies because the runtime links them.
#![warn(missing_docs)]

pub mod cache;
pub mod core;
pub mod manycore;
pub mod metrics;
pub mod noc;
pub mod oracle;
pub mod prefetch;
pub mod simple_dram;
pub mod synth;
pub mod system;
