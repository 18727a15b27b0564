//! The dynamic-parallelism workloads beyond the graph apps (issue #31): AMR and
//! Mandelbrot (recursive, Type II), JOIN (uniform and Gaussian), SPMM, SA and
//! quicksort, scaled down. Every version of each (flat, CDP, CDPI, DTBL, DTBLI,
//! SPAWN, a Baseline-DP threshold) executes the same per-thread work, and the
//! device-launch versions do launch.

use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::dp::{DpMode, DpStats};
use weft_memsim::gpu::workload::{self, Workload};
use weft_memsim::gpu::{GpuOptions, GpuSim};

fn run(wl: &Arc<Workload>, mode: &str) -> (u64, DpStats, u64) {
    let cfg = MachineConfig::preset("k20c-dtbl").unwrap();
    let opts = GpuOptions {
        dp: Some(DpMode::parse(mode).unwrap()),
        seed: 1,
        ..Default::default()
    };
    let mut sim = GpuSim::build(&cfg, wl.clone(), &opts).unwrap();
    let s = sim.run(|_| {}).unwrap();
    (s.cycles, sim.dp_stats().unwrap(), sim.lane_mem_ops())
}

/// The shipped template with smaller inputs (same code, same launch sites).
pub fn small(app: &str) -> Arc<Workload> {
    const SMALLER: &[(&str, &str)] = &[
        ("grid = 16, levels = 6", "grid = 8, levels = 4"),
        ("size = 512, tile = 64", "size = 128, tile = 32"),
        ("max_dwell = 256", "max_dwell = 64"),
        ("nr = 16384", "nr = 1024"),
        ("ns = 65536", "ns = 8192"),
        (
            "vertices = 512, edges = 8192",
            "vertices = 128, edges = 1024",
        ),
        ("cols = 64", "cols = 16"),
        ("scale = 12, edges = 38912", "scale = 9, edges = 4096"),
        ("cdp_threshold = 128", "cdp_threshold = 32"),
        ("cdp_threshold = 16", "cdp_threshold = 8"),
        ("arrays = 32, n = 2048", "arrays = 4, n = 1024"),
    ];
    let mut text = workload::builtin_text(app).unwrap().to_string();
    for (from, to) in SMALLER {
        text = text.replace(from, to);
    }
    Arc::new(workload::parse(&text, app).unwrap())
}

pub const APPS: &[&str] = &[
    "amr",
    "mandelbrot",
    "join_uniform",
    "join_gaussian",
    "spmm",
    "sa",
    "quicksort",
];

/// Same work under every version; launches happen under every device mode.
#[test]
fn every_version_of_the_new_workloads_does_the_same_work() {
    for app in APPS {
        let wl = small(app);
        let (_, f, flat) = run(&wl, "flat");
        assert!(flat > 0, "{app}");
        assert_eq!(f.child_kernels + f.aggregated_groups, 0, "{app}");
        for mode in ["cdp", "cdpi", "dtbl", "dtbli", "spawn", "threshold=16"] {
            let (_, d, work) = run(&wl, mode);
            assert_eq!(work, flat, "{app} under {mode}");
            assert!(
                d.child_kernels + d.aggregated_groups > 0,
                "{app} under {mode} launched nothing"
            );
        }
    }
}

/// The recursive workloads nest: children launch children.
#[test]
fn type_two_workloads_nest() {
    for app in ["amr", "mandelbrot", "quicksort"] {
        let (_, d, _) = run(&small(app), "cdpi");
        assert!(d.max_depth >= 2, "{app}: depth {}", d.max_depth);
    }
}

/// `bfs_merrill` (flat only: TB-, warp- and thread-level expansion) does the same
/// per-edge work as `bfs`'s flat version.
#[test]
fn merrill_flat_bfs_does_the_same_work_as_bfs() {
    let shrink = |app: &str| {
        let text = workload::builtin_text(app)
            .unwrap()
            .replace("scale = 14, edges = 131072", "scale = 9, edges = 4096")
            .replace("cta_min = 256", "cta_min = 48")
            .replace("gather_min = 32", "gather_min = 8");
        Arc::new(workload::parse(&text, app).unwrap())
    };
    let (bfs_cycles, _, bfs) = run(&shrink("bfs"), "flat");
    let (merrill_cycles, _, merrill) = run(&shrink("bfs_merrill"), "flat");
    assert_eq!(bfs, merrill);
    // The hub vertex of level 0 is expanded by a whole TB instead of one warp.
    assert!(
        merrill_cycles < bfs_cycles,
        "{merrill_cycles} vs {bfs_cycles}"
    );
}

/// DTBL's AGT overflow: every group whose entry overflowed to global memory is
/// read back through L2 and DRAM before its TBs are scheduled, also when a
/// blocked kernel reads entries ahead (`agt_prefetch`).
#[test]
fn overflowed_agt_entries_are_read_from_memory() {
    let text = workload::builtin_text("bfs")
        .unwrap()
        .replace("scale = 14, edges = 131072", "scale = 9, edges = 4096")
        .replace("cdp_threshold = 128", "cdp_threshold = 24");
    let wl = Arc::new(workload::parse(&text, "bfs").unwrap());
    let mut cfg = MachineConfig::preset("k20c-dtbl").unwrap();
    cfg.gpu.as_mut().unwrap().device_launch.agt_entries = 16;
    let opts = GpuOptions {
        dp: Some(DpMode::parse("dtbl").unwrap()),
        seed: 1,
        ..Default::default()
    };
    let mut sim = GpuSim::build(&cfg, wl.clone(), &opts).unwrap();
    sim.run(|_| {}).unwrap();
    let d = sim.dp_stats().unwrap();
    assert!(d.agt_overflow > 0, "a 16-entry AGT overflows");
    assert_eq!(d.agt_spill_reads, d.agt_overflow);
    // At least an L2 round trip each.
    assert!(
        d.agt_spill_cycles >= 50 * d.agt_spill_reads,
        "{} cycles for {} reads",
        d.agt_spill_cycles,
        d.agt_spill_reads
    );
    let (_, _, flat) = run(&wl, "flat");
    assert_eq!(sim.lane_mem_ops(), flat);
    // Reading ahead along the Next chain (`agt_prefetch`) reads every overflowed
    // entry once, as before, and changes no work; 0 is refused.
    cfg.gpu.as_mut().unwrap().device_launch.agt_prefetch = 8;
    let mut ahead = GpuSim::build(&cfg, wl.clone(), &opts).unwrap();
    ahead.run(|_| {}).unwrap();
    let a = ahead.dp_stats().unwrap();
    assert!(a.agt_overflow > 0);
    assert_eq!(a.agt_spill_reads, a.agt_overflow);
    assert_eq!(ahead.lane_mem_ops(), flat);
    cfg.gpu.as_mut().unwrap().device_launch.agt_prefetch = 0;
    let e = GpuSim::build(&cfg, wl.clone(), &opts)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("agt_prefetch"), "{e}");
}
