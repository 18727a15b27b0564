//! GPU side of memsim (digest §8; `gpu-design.md`): the workload language lives in
//! [`workload`]; the engine modules sit beside it.

pub mod config;
pub mod workload;
