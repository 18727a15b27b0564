//! Integration tests of weft-memsim (one binary, see conventions.md).

mod addrmap_props;
mod behaviour;
mod differential;
mod dram_micro;
mod dram_thread;
mod golden;
mod gpu;
mod gpu_core;
mod gpu_dp;
mod gpu_dp_apps;
mod gpu_fgtb;
mod gpu_ipaws;
mod gpu_sched;
mod gpu_workload;
mod hostile;
mod manycore_golden;
mod micro;
mod oddities;
mod perturb;
mod sampling;
