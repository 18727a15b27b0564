//! GPU side of memsim (digest §8; `gpu-design.md`): a cycle-level GPU engine on the
//! shared memory model, and the workload language it runs ([`workload`]).
//!
//! Units, one module each: machine parameters ([`config`]), SM resources and
//! admission ([`sm`]), warp context and SIMT stack ([`warp`]), flattened kernel
//! code ([`code`]), coalescer ([`coalesce`]), L1D ([`l1`]), the SM pipeline
//! ([`smcore`]), warp and TB scheduling policies ([`sched`]) and the warp
//! meta-policies with their locality statistics ([`warpsched`]), the front end
//! ([`frontend`]), the run loop ([`engine`]) and the statistics ([`stats`]).
//! L1 misses go through [`crate::system::MemorySystem`] (L2 slices = LLC banks,
//! crossbar, memory controllers, DRAM), the same code the CPU studies use.

pub mod coalesce;
pub mod code;
pub mod config;
pub mod dp;
pub mod engine;
pub mod fgtb;
pub mod frontend;
pub mod l1;
pub mod reuse;
pub mod sched;
pub mod sm;
pub mod smcore;
pub mod stats;
pub mod tbsched;
pub mod warp;
pub mod warpsched;
pub mod workload;

pub use engine::{Dispatch, GpuOptions, GpuSim};
pub use stats::GpuStats;
