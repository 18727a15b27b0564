//! One FGTB co-run under every thread-block management: the LonestarGPU-like app's
//! IPC, the co-run's cycles, preemptions and context traffic (a quick probe of
//! what `weft eval --study tbm` measures, without the LLVM-linked CLI).
//! `cargo run --release -p weft-memsim --example fgtb_corun -- bfs sgemm [sms] [vertices] [div] [cap] [modes]`
//! (`modes`: comma-separated `--tb-manage` names, default all four; the
//! environment variable `FGTB_CFG` may hold `FgtbConfig` fields as JSON, e.g.
//! `{"time_scale": 1.0, "report_delta": 2}`).

use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::fgtb::apps::{self, Scale};
use weft_memsim::gpu::fgtb::{oracle, FgtbConfig, TbManage};
use weft_memsim::gpu::{GpuOptions, GpuSim};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let app = a.first().map_or("bfs", |s| s.as_str());
    let partner = a.get(1).map_or("sgemm", |s| s.as_str());
    let num = |i: usize, d: f64| a.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let mut cfg = MachineConfig::preset("v100-fgtb").unwrap();
    cfg.core.count = num(2, 8.0) as u32;
    let scale = Scale {
        vertices: num(3, 20000.0) as u32,
        div: num(4, 10.0) as u32,
        ..Scale::default()
    };
    let base: FgtbConfig = std::env::var("FGTB_CFG")
        .map(|j| serde_json::from_str(&j).expect("FGTB_CFG: FgtbConfig fields as JSON"))
        .unwrap_or_default();
    let fc = FgtbConfig {
        cap: num(5, base.cap),
        ..base
    };
    let modes: Vec<TbManage> = match a.get(6) {
        Some(list) => list
            .split(',')
            .map(|m| TbManage::parse(m).expect("a --tb-manage name"))
            .collect(),
        None => TbManage::ALL.to_vec(),
    };
    let wl = Arc::new(apps::build(&[app, partner], &scale).unwrap());
    for mode in modes {
        let t0 = std::time::Instant::now();
        let mut opts = GpuOptions {
            seed: 1,
            ..Default::default()
        };
        opts.tb_manage = Some(oracle::prepare(&cfg, wl.clone(), &opts, mode, fc.clone()).unwrap());
        let mut sim = GpuSim::build(&cfg, wl.clone(), &opts).unwrap();
        let s = sim.run(|_| {}).unwrap();
        let r = sim.tb_manage_report().unwrap();
        let n = r.exits.max(1) as f64;
        println!(
            "{:<13} app ipc {:.3} total ipc {:.3} cycles {} warp-instr {} preempt {} restores {} vq_full {} ctx {} B l2 {} levels {:.2}/{:.2} stalls {} ({:.1}s)",
            mode.name(),
            s.apps[0].ipc,
            s.ipc,
            s.cycles,
            s.warp_instructions,
            r.preemptions,
            r.restores,
            r.vq_full,
            r.context_bytes,
            s.l2_requests,
            r.exit_levels[0] as f64 / n,
            r.exit_levels[1] as f64 / n,
            r.stalled_dispatches,
            t0.elapsed().as_secs_f64()
        );
    }
}
