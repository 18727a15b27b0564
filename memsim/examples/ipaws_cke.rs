//! iPAWS's concurrent-kernel grid (docs/gpu-ipaws.md, "Concurrent kernels";
//! digest §5.1 "Extensions", §5.5 "pCKE / sCKE"): a two-app mix on
//! `gtx480-ipaws` under TB dispatchers `rr`, `pcke`, `scke` and warp schedulers
//! `gto`, `lrr`, the iPAWS variants and the static per-kernel oracles; one
//! markdown row per run (cycles per app, per-kernel L1 hit rate, iPAWS's
//! per-kernel choice). The same runs as `weft gpusim --machine gtx480-ipaws
//! --workload F --tb-sched T --warp-sched S --json --quiet --threads 1`.
//!
//! `cargo run --release -p weft-memsim --example ipaws_cke -- F [T:S ...]`
//! (default: the whole grid).

use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::config::{TbSchedKind, WarpSchedKind};
use weft_memsim::gpu::workload;
use weft_memsim::gpu::{GpuOptions, GpuSim};

const GRID: &[(&str, &[&str])] = &[
    ("rr", &["gto", "lrr", "ipaws", "gto-lrr"]),
    ("pcke", &["gto", "lrr", "ipaws-ind", "gto-lrr"]),
    ("scke", &["gto", "lrr", "ipaws", "ipaws-scke", "gto-lrr"]),
];

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let file = a.first().expect("usage: ipaws_cke WORKLOAD [TB:WARP ...]");
    let wl = Arc::new(workload::load(std::path::Path::new(file)).expect("workload"));
    let m = MachineConfig::preset("gtx480-ipaws").expect("preset");
    let cells: Vec<(String, String)> = if a.len() > 1 {
        a[1..]
            .iter()
            .map(|c| {
                let (t, s) = c.split_once(':').expect("TB:WARP");
                (t.to_string(), s.to_string())
            })
            .collect()
    } else {
        GRID.iter()
            .flat_map(|(t, ss)| ss.iter().map(move |s| (t.to_string(), s.to_string())))
            .collect()
    };
    println!("| `--tb-sched` | `--warp-sched` | total | apps (end) | L1 hit per kernel | iPAWS choice per kernel (WOI/warps, DoC, deciding SM) | sCKE max TBs/SM per kernel while shared |");
    println!("|---|---|---:|---|---|---|---|");
    for (t, s) in cells {
        let opts = GpuOptions {
            warp_sched: Some(WarpSchedKind::parse(&s).expect("warp scheduler")),
            tb_sched: Some(TbSchedKind::parse(&t).expect("TB scheduler")),
            seed: 1,
            ..Default::default()
        };
        let t0 = std::time::Instant::now();
        let mut sim = GpuSim::build(&m, wl.clone(), &opts).expect("build");
        let st = sim.run(|_| {}).expect("run");
        let apps: Vec<String> = st
            .apps
            .iter()
            .map(|a| format!("{} {}", a.name, a.end))
            .collect();
        let l1: Vec<String> = st
            .kernels
            .iter()
            .map(|k| format!("{} {:.3}", k.name, k.l1_hit_rate))
            .collect();
        let choice = sim
            .warp_sched_ctx()
            .ipaws_report()
            .map(|r| {
                r.kernels
                    .iter()
                    .map(|k| {
                        format!(
                            "k{} {} ({}/{}, {:.2}, SM {})",
                            k.kernel,
                            k.choice,
                            k.woi,
                            k.warps,
                            k.doc,
                            k.decided_by.map_or("-".into(), |d| d.to_string())
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default();
        let shared = sim
            .tb_policy_report()
            .filter(|r| r["policy"] == "scke")
            .map(|r| {
                r["kernels"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|k| {
                        format!(
                            "k{} {} on {} SMs",
                            k["kernel"], k["max_tbs_per_sm_shared"], k["sms"]
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default();
        println!(
            "| {t} | {s} | {} | {} | {} | {choice} | {shared} |",
            st.cycles,
            apps.join(", "),
            l1.join(", ")
        );
        eprintln!("{t} {s}: {:.1} s", t0.elapsed().as_secs_f64());
    }
}
