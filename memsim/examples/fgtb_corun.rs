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
        if mode == TbManage::StaticOracle {
            let o = &opts.tb_manage.as_ref().unwrap().oracle;
            let mut f: Vec<_> = o
                .iter()
                .map(|(k, l)| (wl.functions[*k as usize].name.clone(), l.0))
                .collect();
            f.sort();
            println!("  oracle levels per function (mem, FPU): {f:?}");
        }
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
        // Why the memory-throttle level reads what it reads: the unquantised
        // rates, the distribution of period levels, the schedulers' stall
        // reasons and the L1's MSHR-full lookups.
        let p = r.periods().max(1) as f64;
        let stalls: u64 = s.stall_cycles.values().sum();
        let share =
            |k: &str| 100.0 * *s.stall_cycles.get(k).unwrap_or(&0) as f64 / stalls.max(1) as f64;
        println!(
            "  raw mem/fpu: exit mean {:.4}/{:.4} period mean {:.4}/{:.4} max {:.4}/{:.4}; periods {} mem levels {:?} fpu levels {:?}; throttled warp-cycles miss-queue {} lsu-input {}",
            r.exit_raw[0] / n,
            r.exit_raw[1] / n,
            r.period_raw_sum[0] / p,
            r.period_raw_sum[1] / p,
            r.period_raw_max[0],
            r.period_raw_max[1],
            r.periods(),
            r.period_levels[0],
            r.period_levels[1],
            r.throttle_cycles[0],
            r.throttle_cycles[1],
        );
        println!(
            "  stalls: memory {:.1}% lsu_full {:.1}% scoreboard {:.1}% barrier {:.1}% fu_busy {:.1}% no_warp {:.1}%; l1 hit {:.3} mshr_stalls {} of {} reads; mem latency {:.0} (net {:.0}, l2 {:.0}, dram {:.0}); l2 hit {:.3}",
            share("memory"),
            share("lsu_full"),
            share("scoreboard"),
            share("barrier"),
            share("fu_busy"),
            share("no_warp"),
            s.l1_hit_rate,
            s.l1.mshr_stalls,
            s.l1.reads,
            s.avg_mem_latency,
            s.avg_network_latency,
            s.avg_l2_latency,
            s.avg_dram_latency,
            s.l2_hit_rate,
        );
    }
}
