//! `weft gpusim --tb-manage`: thread-block management (FGTB, docs/gpu-tbm.md).

use std::sync::Arc;

use anyhow::anyhow;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::fgtb::manager::{ManageOptions, ManageReport};
use weft_memsim::gpu::fgtb::{oracle, FgtbConfig, TbManage};
use weft_memsim::gpu::workload::Workload;
use weft_memsim::gpu::GpuOptions;

/// The management named `name`, ready to run (the static oracle profiles the
/// workload first).
pub fn prepare(
    machine: &MachineConfig,
    wl: &Arc<Workload>,
    opts: &GpuOptions,
    name: &str,
) -> anyhow::Result<ManageOptions> {
    let mode = TbManage::parse(name).ok_or_else(|| {
        anyhow!(
            "unknown --tb-manage `{name}` (expected none, static-oracle, profiler or fine-grained)"
        )
    })?;
    Ok(oracle::prepare(
        machine,
        wl.clone(),
        opts,
        mode,
        FgtbConfig::default(),
    )?)
}

/// Prints the management's report.
pub fn print(r: &ManageReport) {
    println!("tb management      {}", r.mode);
    println!(
        "  monitor reports  {}; preemptions {} (refused, victim queue full: {}); restores {}; victim queue peak {}",
        r.reports, r.preemptions, r.vq_full, r.restores, r.vq_peak
    );
    println!(
        "  context traffic  {} B; mean save {:.0} cycles, restore {:.0} cycles",
        r.context_bytes, r.save_cycles, r.restore_cycles
    );
    let n = r.exits.max(1) as f64;
    println!(
        "  exit levels      memory throttle {:.2}, FPU {:.2} (mean of {} TBs, 0..7); stalled dispatches {}",
        r.exit_levels[0] as f64 / n,
        r.exit_levels[1] as f64 / n,
        r.exits,
        r.stalled_dispatches
    );
    if let Some([u, c, h, l]) = r.rut {
        println!("  usage table      {u} updates, {c} conflicts, {h} hits of {l} lookups");
    }
}
