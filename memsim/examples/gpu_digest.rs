//! Behaviour fingerprint of the GPU engine, for changes that must not change any
//! simulated result (refactorings, speed work): runs every shipped GPU app under
//! several warp schedulers and presets, plus BFS with device launches and a TB
//! management, and writes the statistics JSON of each run (as `weft gpusim --json`
//! serialises them) to `DIR/<case>.json`. Compare two directories with `cmp`/`diff`.
//!
//! `cargo run --release -p weft-memsim --example gpu_digest -- DIR [quick]`
//! (`quick`: `k20c-dtbl` under LRR and GTO only). The BFS graph is
//! `$WEFT_DATA_DIR/graphs/cit-HepTh.relabeled.edges` when that variable is set.

use std::path::PathBuf;
use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::config::WarpSchedKind;
use weft_memsim::gpu::dp::DpMode;
use weft_memsim::gpu::fgtb::{manager::ManageOptions, TbManage};
use weft_memsim::gpu::workload;
use weft_memsim::gpu::{GpuOptions, GpuSim};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let dir = PathBuf::from(a.first().expect("usage: gpu_digest DIR [quick]"));
    let quick = a.get(1).is_some_and(|s| s == "quick");
    std::fs::create_dir_all(&dir).expect("output directory");
    let graph = std::env::var_os("WEFT_DATA_DIR")
        .map(|d| PathBuf::from(d).join("graphs/cit-HepTh.relabeled.edges"));
    let mut cases: Vec<(String, &str, &str, GpuOptions, bool)> = Vec::new();
    let scheds: &[(&str, WarpSchedKind)] = if quick {
        &[("lrr", WarpSchedKind::Lrr), ("gto", WarpSchedKind::Gto)]
    } else {
        &[
            ("lrr", WarpSchedKind::Lrr),
            ("gto", WarpSchedKind::Gto),
            ("two-level", WarpSchedKind::TwoLevel),
        ]
    };
    let opts = |w: WarpSchedKind| GpuOptions {
        seed: 1,
        warp_sched: Some(w),
        ..Default::default()
    };
    for app in workload::builtin_names() {
        for &(sn, w) in scheds {
            cases.push((format!("{app}-{sn}"), app, "k20c-dtbl", opts(w), false));
        }
    }
    if graph.is_some() {
        for &(sn, w) in scheds {
            cases.push((format!("bfs-graph-{sn}"), "bfs", "k20c-dtbl", opts(w), true));
        }
    }
    if !quick {
        for m in ["k20-spawn", "gtx480-ipaws", "v100-fgtb"] {
            for app in ["bfs", "matmul", "kmeans", "stream"] {
                cases.push((
                    format!("{app}-{m}"),
                    app,
                    m,
                    opts(WarpSchedKind::Gto),
                    false,
                ));
            }
        }
        for (n, dp) in [
            ("dtbl", DpMode::Dtbl { ideal: false }),
            ("cdp", DpMode::Cdp { ideal: false }),
            ("spawn", DpMode::Spawn(Default::default())),
        ] {
            for app in ["bfs", "amr", "sssp"] {
                let o = GpuOptions {
                    dp: Some(dp),
                    ..opts(WarpSchedKind::Gto)
                };
                cases.push((format!("{app}-dp-{n}"), app, "k20c-dtbl", o, false));
            }
        }
        for w in [
            WarpSchedKind::Ipaws,
            WarpSchedKind::Ccws,
            WarpSchedKind::Owl,
        ] {
            for app in ["bfs", "kmeans"] {
                cases.push((format!("{app}-{w:?}"), app, "k20c-dtbl", opts(w), false));
            }
        }
        let o = GpuOptions {
            tb_manage: Some(ManageOptions {
                mode: TbManage::FineGrained,
                ..Default::default()
            }),
            ..opts(WarpSchedKind::Gto)
        };
        cases.push(("bfs-fgtb".into(), "bfs", "v100-fgtb", o, false));
    }
    for (name, app, machine, o, with_graph) in cases {
        let cfg = MachineConfig::preset(machine).expect("preset");
        let g = if with_graph { graph.as_deref() } else { None };
        let wl = Arc::new(workload::builtin(app, g).expect("workload"));
        let t0 = std::time::Instant::now();
        let out = match GpuSim::build(&cfg, wl, &o).and_then(|mut s| s.run(|_| {})) {
            Ok(s) => serde_json::to_string_pretty(&s).expect("JSON"),
            Err(e) => format!("error: {e}"),
        };
        std::fs::write(dir.join(format!("{name}.json")), out).expect("write");
        eprintln!("{name}: {:.2} s", t0.elapsed().as_secs_f64());
    }
}
