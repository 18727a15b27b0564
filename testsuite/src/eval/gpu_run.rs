//! Simulating one cell of a GPU study: the [`RunSpec`] becomes a machine, a
//! workload and `GpuOptions` exactly as `weft gpusim` builds them (`--dp`,
//! `--tb-sched`, `--warp-sched`, `--tb-manage`), and the run's statistics and
//! the mechanisms' own reports become a [`Measured`]. Runs are deterministic
//! (seed 1), which is what lets the engine cache them by the spec's content.

use super::gpu_study::{GpuError, Measured, Probe, RunSpec, WorkloadSpec};
use std::collections::BTreeMap;
use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::config::{KernelOrder, TbSchedKind, WarpSchedKind};
use weft_memsim::gpu::dp::DpMode;
use weft_memsim::gpu::fgtb::apps::{self, Scale};
use weft_memsim::gpu::fgtb::{oracle, TbManage};
use weft_memsim::gpu::reuse::{characterise, Recorder, Trace};
use weft_memsim::gpu::tbsched;
use weft_memsim::gpu::warpsched::locality::Counts;
use weft_memsim::gpu::workload::{self, Workload};
use weft_memsim::gpu::{GpuOptions, GpuSim};

/// The R-MAT line of the shipped graph templates.
const SHIPPED_GRAPH: &str = "scale = 14, edges = 131072";

/// The machine of `spec`: its preset with the edits.
pub fn machine(spec: &RunSpec) -> Result<MachineConfig, GpuError> {
    let mut cfg = MachineConfig::preset(&spec.machine)?;
    let e = &spec.edits;
    if let Some(n) = e.sms {
        cfg.core.count = n;
    }
    if let Some(kb) = e.l1_kb {
        cfg.l1.size_bytes = kb * 1024;
    }
    if let Some(w) = e.l1_ways {
        cfg.l1.ways = w;
    }
    if let Some(kb) = e.smem_kb {
        if let Some(g) = cfg.gpu.as_mut() {
            g.smem_per_sm = kb * 1024;
        }
    }
    if let Some(n) = e.agt_prefetch {
        if let Some(g) = cfg.gpu.as_mut() {
            g.device_launch.agt_prefetch = n;
        }
    }
    if let Some(o) = &spec.kernel_order {
        KernelOrder::apply(&mut cfg, o)?;
    }
    Ok(cfg)
}

/// The workload of `spec`.
pub fn load(w: &WorkloadSpec) -> Result<Workload, GpuError> {
    match w {
        WorkloadSpec::Shipped {
            app,
            graph,
            defines,
        } => {
            let text =
                workload::builtin_text(app).ok_or_else(|| format!("no shipped app `{app}`"))?;
            let text = match graph {
                Some((scale, edges)) => {
                    if !text.contains(SHIPPED_GRAPH) {
                        return Err(format!("`{app}` has no R-MAT graph to resize").into());
                    }
                    text.replace(SHIPPED_GRAPH, &format!("scale = {scale}, edges = {edges}"))
                }
                None => text.to_string(),
            };
            let opts = workload::Options {
                defines: defines.clone(),
                ..Default::default()
            };
            Ok(workload::parse_with(&text, app, &opts)?)
        }
        WorkloadSpec::Ipaws { name } => {
            let text = super::gpu_ipaws::text(name)
                .ok_or_else(|| format!("no iPAWS workload `{name}`"))?;
            Ok(workload::parse(text, name)?)
        }
        WorkloadSpec::Sched { name, parents } => {
            let text = super::gpu_sched::text(name)
                .ok_or_else(|| format!("no scheduling workload `{name}`"))?;
            let text = match parents {
                Some(n) => super::gpu_sched::with_parents(text, *n)?,
                None => text.to_string(),
            };
            Ok(workload::parse(&text, name)?)
        }
        WorkloadSpec::Fgtb {
            apps: names,
            vertices,
            div,
            rounds,
            sweeps,
        } => {
            let scale = Scale {
                vertices: *vertices,
                div: *div,
                rounds: *rounds,
                sweeps: *sweeps,
                ..Scale::default()
            };
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            Ok(apps::build(&names, &scale)?)
        }
    }
}

/// The simulator options of `spec` (the static oracle's profiling run happens here).
fn options(
    spec: &RunSpec,
    cfg: &MachineConfig,
    wl: &Arc<Workload>,
) -> Result<GpuOptions, GpuError> {
    let bad = |what: &str, v: &str| -> GpuError { format!("unknown {what} `{v}`").into() };
    let mut opts = GpuOptions {
        seed: 1,
        ..Default::default()
    };
    if let Some(m) = &spec.dp {
        opts.dp = Some(DpMode::parse(m).ok_or_else(|| bad("--dp mode", m.as_str()))?);
    }
    if let Some(p) = &spec.tb_sched {
        opts.tb_sched =
            Some(TbSchedKind::parse(p).ok_or_else(|| bad("--tb-sched policy", p.as_str()))?);
    }
    if let Some(s) = &spec.warp_sched {
        opts.warp_sched =
            Some(WarpSchedKind::parse(s).ok_or_else(|| bad("--warp-sched", s.as_str()))?);
    }
    if let Some(m) = &spec.tb_manage {
        let mode = TbManage::parse(m).ok_or_else(|| bad("--tb-manage", m.as_str()))?;
        let fg = spec.fgtb.clone().unwrap_or_default();
        opts.tb_manage = Some(oracle::prepare(cfg, wl.clone(), &opts, mode, fg)?);
    }
    Ok(opts)
}

fn json<T: serde::Serialize>(x: &T) -> serde_json::Value {
    serde_json::to_value(x).unwrap_or(serde_json::Value::Null)
}

/// Simulates `spec`.
pub fn simulate(spec: &RunSpec) -> Result<Measured, GpuError> {
    let start = std::time::Instant::now();
    let cfg = machine(spec)?;
    let wl = Arc::new(load(&spec.workload)?);
    let opts = options(spec, &cfg, &wl)?;
    // LASER's oracle profiles a round-robin run first
    let oracle = opts.tb_sched.and_then(tbsched::oracle_level);
    let oracle = oracle
        .map(|l| tbsched::oracle::prepare(&cfg, wl.clone(), &opts, l))
        .transpose()?;
    let mut sim = GpuSim::build(&cfg, wl, &opts)?;
    if let Some(p) = oracle {
        sim.set_tb_policy(p);
    }
    let rec = Recorder::default();
    match spec.probe {
        Probe::None => {}
        Probe::L1Breakdown => sim.enable_l1_breakdown(),
        Probe::Reuse => sim.set_l1_hook(Box::new(rec.clone())),
    }
    let s = sim.run(|_| {})?;
    let mut extra = BTreeMap::new();
    if spec.dp.is_some() {
        if let Some(d) = sim.dp_stats() {
            extra.insert("dp".into(), json(&d));
        }
    }
    if let Some(v) = sim.tb_policy_report() {
        extra.insert("tb_policy".into(), v);
    }
    if let Some(r) = sim.warp_sched_ctx().ipaws_report() {
        // The per-SM issue curves are `weft gpusim`'s to print; the study keeps
        // the per-kernel decisions.
        let mut v = json(&r);
        if let Some(o) = v.as_object_mut() {
            o.remove("records");
        }
        extra.insert("ipaws".into(), v);
    }
    if let Some(r) = sim.tb_manage_report() {
        extra.insert("manage".into(), json(&r));
    }
    if let Some(r) = sim.mascar_report() {
        extra.insert("mascar".into(), json(&r));
    }
    match spec.probe {
        Probe::None => {}
        Probe::L1Breakdown => {
            let (mut one, mut all) = (Counts::default(), Counts::default());
            for k in sim.l1_breakdown() {
                one.add(&k.one);
                all.add(&k.all);
            }
            extra.insert("l1".into(), serde_json::json!({"one": one, "all": all}));
        }
        Probe::Reuse => {
            let events = rec.events.lock().map_err(|_| "trace lock")?;
            let trace = Trace::tag(&events, sim.dispatches(), sim.kernels(), false);
            let l1 = cfg.l1.size_bytes / cfg.l1.line_bytes as u64;
            let l2 = cfg.llc.size_bytes / cfg.llc.line_bytes as u64;
            extra.insert("reuse".into(), json(&characterise(&trace, l1, l2)));
        }
    }
    Ok(Measured {
        cycles: s.cycles,
        ipc: s.ipc,
        app_ipc: s.apps.first().map(|a| a.ipc),
        l1_hit_rate: s.l1_hit_rate,
        l2_hit_rate: s.l2_hit_rate,
        row_hit_rate: s
            .dram
            .get("row_hit_rate")
            .and_then(|v| v.as_f64())
            .unwrap_or(f64::NAN),
        avg_mem_latency: s.avg_mem_latency,
        occupancy: s.occupancy,
        work: sim.lane_mem_ops(),
        l2_requests: s.l2_requests,
        extra,
        seconds: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::gpu_study::MachineEdits;

    #[test]
    fn specs_name_what_gpusim_would_run() {
        let mut spec = RunSpec::new("k20c-dtbl", WorkloadSpec::shipped("bfs", Some((8, 2048))));
        spec.edits = MachineEdits {
            sms: Some(2),
            l1_kb: Some(32),
            l1_ways: Some(8),
            smem_kb: Some(32),
            agt_prefetch: Some(4),
        };
        let cfg = machine(&spec).unwrap();
        assert_eq!(
            (cfg.core.count, cfg.l1.size_bytes, cfg.l1.ways),
            (2, 32 * 1024, 8)
        );
        assert_eq!(cfg.gpu.as_ref().unwrap().smem_per_sm, 32 * 1024);
        assert_eq!(cfg.gpu.as_ref().unwrap().device_launch.agt_prefetch, 4);
        let mut rotated = spec.clone().kernel_order("rotate");
        assert_eq!(
            machine(&rotated).unwrap().gpu.unwrap().kernel_order,
            weft_memsim::gpu::config::KernelOrder::Rotate
        );
        rotated.kernel_order = Some("lifo".into());
        assert!(machine(&rotated).is_err());
        assert!(load(&spec.workload).is_ok());
        assert!(load(&WorkloadSpec::shipped("join_uniform", None).define("nr", 640)).is_ok());
        assert!(load(&WorkloadSpec::shipped("join_uniform", None).define("nx", 640)).is_err());
        let bad = spec.clone().dp(Some("nope"));
        let err = simulate(&bad).unwrap_err().to_string();
        assert!(err.contains("unknown --dp mode `nope`"), "{err}");
        assert!(load(&WorkloadSpec::Ipaws {
            name: "none".into()
        })
        .is_err());
    }
}
