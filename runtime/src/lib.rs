//! # weft-runtime: the inspector/executor runtime
//!
//! Linked into optimized programs as `libweft_runtime.a` (C ABI) and used from Rust
//! as an rlib. The inspector builds bank maps from the addresses a loop will touch
//! and schedules slabs (dissertation Algorithm 4, §4.4.4) or iteration blocks
//! (Algorithm 5, §5.5); the executor runs a schedule on worker threads or, in trace
//! mode, sequentially while recording per-virtual-core memory traces.
//!
//! The machine (address mapping, bank counts) comes from `weft-memsim`'s presets so
//! the runtime and the simulator always agree.
#![warn(missing_docs)]
