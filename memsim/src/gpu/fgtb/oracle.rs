//! The oracle of static classification (`gpu-seeds.md` §6.2): "knows each
//! kernel's whole-kernel average resource usage". It is measured by a profiling
//! run of the same workload under the unmanaged dispatcher with the monitors on
//! (estimates 0, no preemption, so placement is the plain round-robin one):
//! every TB's lifetime levels, averaged per function.

use super::manager::ManageOptions;
use super::{Levels, TbManage};
use crate::config::MachineConfig;
use crate::gpu::workload::Workload;
use crate::gpu::{GpuOptions, GpuSim};
use crate::manycore::SimError;
use std::collections::HashMap;
use std::sync::Arc;

/// Per-function whole-run levels of `wl` on `cfg` (the options' policies and
/// seed, unmanaged placement).
pub fn profile(
    cfg: &MachineConfig,
    wl: Arc<Workload>,
    opts: &GpuOptions,
    base: &ManageOptions,
) -> Result<HashMap<u32, Levels>, SimError> {
    let o = GpuOptions {
        tb_manage: Some(ManageOptions {
            mode: TbManage::None,
            cfg: base.cfg.clone(),
            oracle: HashMap::new(),
        }),
        dram_thread: false,
        ..opts.clone()
    };
    let mut sim = GpuSim::build(cfg, wl, &o)?;
    sim.run(|_| {})?;
    Ok(sim.function_levels().unwrap_or_default())
}

/// The options of `mode` ready to run: for [`TbManage::StaticOracle`] the
/// oracle is profiled first.
pub fn prepare(
    cfg: &MachineConfig,
    wl: Arc<Workload>,
    opts: &GpuOptions,
    mode: TbManage,
    base: super::FgtbConfig,
) -> Result<ManageOptions, SimError> {
    let mut m = ManageOptions {
        mode,
        cfg: base,
        oracle: HashMap::new(),
    };
    if mode == TbManage::StaticOracle {
        m.oracle = profile(cfg, wl, opts, &m)?;
    }
    Ok(m)
}
