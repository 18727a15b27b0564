//! Speed of the GPU engine on one host thread: simulated warp instructions per
//! CPU-second of BFS over a graph and of the streaming kernel on `k20c-dtbl`, as
//! `weft bench gpusim` measures them, without the CLI (so the engine can be
//! rebuilt and profiled alone: `cargo bench -p weft-memsim --bench gpusim -- GRAPH`).
//!
//! Arguments (after `--`): the BFS graph (default: `$WEFT_DATA_DIR/metis/mdual.graph`,
//! else the shipped copy unpacked by `weft` into `target/weft-data/`), then
//! optionally `bfs` or `stream` to run only that case, and `--repeat N` runs (the
//! median is printed). Each case also prints its cycles and warp instructions,
//! which must not change with an optimisation of the engine.

use std::path::PathBuf;
use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::engine::{GpuOptions, GpuSim};
use weft_memsim::gpu::workload;

/// CPU time of the calling thread in seconds (`/proc/thread-self/schedstat`).
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

fn default_graph() -> PathBuf {
    match std::env::var_os("WEFT_DATA_DIR") {
        Some(d) => PathBuf::from(d).join("metis/mdual.graph"),
        None => {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/weft-data/metis/mdual.graph")
        }
    }
}

fn main() {
    let mut graph = None;
    let mut only = None;
    let mut repeat = 1usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--repeat N");
            }
            "bfs" | "stream" => only = Some(a),
            s if s.starts_with("--") => {} // cargo bench's own flags
            _ => graph = Some(PathBuf::from(a)),
        }
    }
    let graph = graph.unwrap_or_else(default_graph);
    let machine = MachineConfig::load("k20c-dtbl").expect("k20c-dtbl preset");
    for (app, g) in [("bfs", Some(graph.as_path())), ("stream", None)] {
        if only.as_deref().is_some_and(|o| o != app) {
            continue;
        }
        let wl =
            Arc::new(workload::builtin(app, g).unwrap_or_else(|e| panic!("building `{app}`: {e}")));
        let mut runs = Vec::new();
        for _ in 0..repeat {
            let opts = GpuOptions {
                seed: 1,
                ..Default::default()
            };
            let mut sim = GpuSim::build(&machine, wl.clone(), &opts).expect("GPU machine");
            let c0 = thread_cpu_seconds().unwrap_or(0.0);
            let t0 = std::time::Instant::now();
            let s = sim.run(|_| {}).expect("run");
            let wall = t0.elapsed().as_secs_f64();
            let cpu = thread_cpu_seconds().map_or(wall, |c| c - c0);
            runs.push((s.warp_instructions as f64 / cpu.max(1e-9), cpu, wall));
            if runs.len() == 1 {
                println!(
                    "{app}: {} warp instructions, {} cycles",
                    s.warp_instructions, s.cycles
                );
            }
        }
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (rate, cpu, wall) = runs[runs.len() / 2];
        println!(
            "{app}: {rate:.0} warp instructions per CPU-second ({cpu:.3} s CPU, {wall:.3} s wall, median of {repeat})"
        );
    }
}
