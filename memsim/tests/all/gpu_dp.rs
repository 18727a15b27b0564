//! Dynamic-parallelism tests (issue #31): launch latency measured end to end
//! through the engine (digest §8.6 item 2), DTBL coalescing into a resident
//! kernel, the nesting limit, and the same-work property of every version of a
//! workload (flat, CDP, DTBL, SPAWN, Baseline-DP thresholds).

use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::config::SyncChildren;
use weft_memsim::gpu::dp::{DpMode, DpStats};
use weft_memsim::gpu::workload::{self, Workload};
use weft_memsim::gpu::{GpuOptions, GpuSim};

fn run(machine: &str, wl: &Arc<Workload>, mode: &str) -> (u64, DpStats, u64) {
    run_cfg(&MachineConfig::preset(machine).unwrap(), wl, mode)
}

fn run_cfg(cfg: &MachineConfig, wl: &Arc<Workload>, mode: &str) -> (u64, DpStats, u64) {
    let opts = GpuOptions {
        dp: Some(DpMode::parse(mode).unwrap()),
        seed: 1,
        ..Default::default()
    };
    let mut sim = GpuSim::build(cfg, wl.clone(), &opts).unwrap();
    let s = sim.run(|_| {}).unwrap();
    (s.cycles, sim.dp_stats().unwrap(), sim.lane_mem_ops())
}

/// One parent warp whose lanes `lanes` each launch a one-TB child.
fn one_warp(lanes: u32) -> Arc<Workload> {
    let text = format!(
        "[[function]]\nname = \"parent\"\nblock = [32]\nregs_per_thread = 16\nbody = '''\n\
         launch.cdp child grid=[1] block=[32] args={{}} if lane < {lanes} workload=1\n  else {{ alu 1 }}\n'''\n\
         [[function]]\nname = \"child\"\nblock = [32]\nregs_per_thread = 16\nbody = 'alu 1'\n\
         [[app]]\nname = \"a\"\ncmds = 'launch parent grid=[1]'\n"
    );
    Arc::new(workload::parse(&text, "t").unwrap())
}

#[test]
fn cdp_full_warp_waits_82447_plus_283() {
    let (_, d, _) = run("k20c-dtbl", &one_warp(32), "cdp");
    assert_eq!(d.child_kernels, 32);
    assert_eq!(d.api_cycles, 82_447);
    // Every child becomes visible 82,447 + 283 cycles after the call; the
    // dispatcher places one TB per cycle, so the k-th child waits k cycles more.
    assert_eq!(d.avg_wait_cycles, (82_447 + 283) as f64 + 15.5);
    let (_, i, _) = run("k20c-dtbl", &one_warp(32), "cdpi");
    assert_eq!(i.api_cycles, 0);
    // Without latency the children enter the distributor the cycle after the
    // call (the front end has already run in the call's cycle).
    assert_eq!(i.avg_wait_cycles, 16.5);
}

#[test]
fn spawn_preset_single_launch_21931_full_warp_75282() {
    let (_, one, _) = run("k20-spawn", &one_warp(1), "cdp");
    assert_eq!(one.api_cycles, 21_931);
    assert_eq!(one.avg_wait_cycles, (21_931 + 283) as f64);
    let (_, full, _) = run("k20-spawn", &one_warp(32), "cdp");
    assert_eq!(full.api_cycles, 75_282);
}

/// A native kernel of the child's shape runs long on stream 0 while the parent
/// (stream 1) launches a full warp of groups: they coalesce into it and start
/// 12,151 cycles after the call.
#[test]
fn dtbl_full_warp_coalesces_after_12151() {
    let text = "[[function]]\nname = \"parent\"\nblock = [32]\nregs_per_thread = 16\nbody = '''\n\
        alu 4\n\
        launch.agg work grid=[1] block=[32] args={n=1} workload=1\n  else { alu 1 }\n'''\n\
        [[function]]\nname = \"work\"\nblock = [32]\nregs_per_thread = 16\nparams = [\"n\"]\n\
        body = 'loop i in 0..n { alu 8 }'\n\
        [[app]]\nname = \"a\"\n\
        [[app.stream]]\nid = 0\ncmds = 'launch work grid=[1] args={n=4000}'\n\
        [[app.stream]]\nid = 1\ncmds = 'launch parent grid=[1]'\n";
    let wl = Arc::new(workload::parse(text, "t").unwrap());
    let (_, d, _) = run("k20c-dtbl", &wl, "dtbl");
    assert_eq!(d.aggregated_groups, 32);
    assert_eq!(d.child_kernels, 0);
    assert_eq!(d.match_rate, 1.0);
    assert_eq!(d.api_cycles, 12_151);
    // All 32 groups hash to distinct AGT slots (one warp's hardware threads).
    assert_eq!(d.agt_overflow, 0);
    let (_, c, _) = run("k20c-dtbl", &wl, "cdp");
    assert_eq!(c.api_cycles, 82_447);
    assert!(c.avg_wait_cycles > d.avg_wait_cycles + 70_000.0);
}

/// A chain of recursive launches stops at depth 24: the 25th is refused and runs
/// the inline path.
#[test]
fn nesting_depth_limit_24() {
    let text = "[[function]]\nname = \"rec\"\nblock = [32]\nregs_per_thread = 16\nparams = [\"d\"]\nbody = '''\n\
        launch.cdp rec grid=[1] block=[32] args={d=d+1} if lane == 0 && d < 40 workload=1\n  else { alu 1 }\n'''\n\
        [[app]]\nname = \"a\"\ncmds = 'launch rec grid=[1] args={d=0}'\n";
    let wl = Arc::new(workload::parse(text, "t").unwrap());
    let (_, d, _) = run("k20c-dtbl", &wl, "cdpi");
    assert_eq!(d.max_depth, 24);
    assert_eq!(d.child_kernels, 24);
    assert_eq!(d.refused, 1);
}

fn small(app: &str) -> Arc<Workload> {
    let text = workload::builtin_text(app)
        .unwrap()
        .replace("scale = 14, edges = 131072", "scale = 9, edges = 4096")
        .replace("cdp_threshold = 128", "cdp_threshold = 24");
    Arc::new(workload::parse(&text, app).unwrap())
}

/// Every version executes the same per-thread work (lane-level memory operations:
/// edges relaxed plus the per-vertex reads), whatever launched.
#[test]
fn every_version_does_the_same_work() {
    for app in ["bfs", "sssp", "clr"] {
        let wl = small(app);
        let (_, _, flat) = run("k20c-dtbl", &wl, "flat");
        assert!(flat > 0);
        for mode in ["cdp", "cdpi", "dtbl", "dtbli", "spawn", "threshold=8"] {
            let (_, d, work) = run("k20c-dtbl", &wl, mode);
            assert_eq!(work, flat, "{app} under {mode}");
            assert!(
                d.child_kernels + d.aggregated_groups > 0,
                "{app} under {mode} launched nothing"
            );
        }
    }
}

/// Same input and seed, same statistics, under every launch mechanism.
#[test]
fn dp_runs_are_deterministic() {
    let wl = small("bfs");
    for mode in ["cdp", "dtbl", "spawn"] {
        let a = run("k20c-dtbl", &wl, mode);
        let b = run("k20c-dtbl", &wl, mode);
        assert_eq!(a, b, "{mode}");
    }
}

/// `activemask` and `popc` through the engine: the five active lanes of a
/// divergent path each see five lanes, and issue five loads.
#[test]
fn activemask_counts_the_lanes_of_the_path() {
    let text = "[[buffer]]\nname = \"b\"\nlen = 64\n\
        [[function]]\nname = \"k\"\nblock = [32]\nbody = '''\n\
        if lane < 5 {\n  n = popc(activemask)\n  loop i in 0..n { load.g32 b[i] }\n}\n'''\n\
        [[app]]\nname = \"a\"\ncmds = 'launch k grid=[1]'\n";
    let wl = Arc::new(workload::parse(text, "t").unwrap());
    let (_, _, work) = run("k20c-dtbl", &wl, "flat");
    assert_eq!(work, 25);
}

fn with_sync(wl: &Arc<Workload>, policy: SyncChildren, mode: &str) -> (u64, DpStats, u64) {
    let mut cfg = MachineConfig::preset("k20c-dtbl").unwrap();
    cfg.gpu.as_mut().unwrap().device_launch.sync_children = policy;
    run_cfg(&cfg, wl, mode)
}

/// `sync_children`: under `block_warp` the parent warp waits for its child and
/// only then runs its tail, so the run takes about the child's time plus the
/// tail's; under `ignore` (the default) the tail overlaps the child.
#[test]
fn sync_children_block_warp_waits_for_the_children() {
    let text = "[[function]]\nname = \"parent\"\nblock = [32]\nregs_per_thread = 16\nbody = '''\n\
        launch.cdp work grid=[1] block=[32] args={n=500} if lane == 0 workload=1\n  else { alu 1 }\n\
        sync_children\n\
        loop i in 0..500 { alu 8 }\n'''\n\
        [[function]]\nname = \"work\"\nblock = [32]\nregs_per_thread = 16\nparams = [\"n\"]\n\
        body = 'loop i in 0..n { alu 8 }'\n\
        [[app]]\nname = \"a\"\ncmds = 'launch parent grid=[1]'\n";
    let wl = Arc::new(workload::parse(text, "t").unwrap());
    let (ignore, di, wi) = with_sync(&wl, SyncChildren::Ignore, "cdpi");
    let (block, db, wb) = with_sync(&wl, SyncChildren::BlockWarp, "cdpi");
    assert_eq!(wi, wb);
    assert_eq!((di.sync_waits, db.sync_waits), (0, 1));
    assert_eq!(di.sync_wait_cycles, 0);
    // Child and tail are the same loop: ignore ~ one loop, block ~ two.
    let r = block as f64 / ignore as f64;
    assert!((1.8..2.2).contains(&r), "{block} / {ignore}");
    let w = db.sync_wait_cycles as f64 / ignore as f64;
    assert!(
        (0.8..1.1).contains(&w),
        "{} / {ignore}",
        db.sync_wait_cycles
    );
    // Without device launches the call is dropped: the flat run is one loop.
    let (flat, _, _) = with_sync(&wl, SyncChildren::BlockWarp, "flat");
    assert!((flat as f64) < 1.1 * ignore as f64, "{flat} / {ignore}");
}

/// The parent of `sync_children_block_warp_waits_for_the_children` with
/// `smem` bytes of shared memory in parent and child, `grid` parent TBs.
fn sync_parent(grid: u32, smem: u32) -> Arc<Workload> {
    let text = format!(
        "[[function]]\nname = \"parent\"\nblock = [32]\nregs_per_thread = 16\nsmem_bytes = {smem}\nbody = '''\n\
        launch.cdp work grid=[1] block=[32] args={{n=500}} if lane == 0 workload=1\n  else {{ alu 1 }}\n\
        sync_children\n\
        loop i in 0..500 {{ alu 8 }}\n'''\n\
        [[function]]\nname = \"work\"\nblock = [32]\nregs_per_thread = 16\nsmem_bytes = {smem}\nparams = [\"n\"]\n\
        body = 'loop i in 0..n {{ alu 8 }}'\n\
        [[app]]\nname = \"a\"\ncmds = 'launch parent grid=[{grid}]'\n"
    );
    Arc::new(workload::parse(&text, "t").unwrap())
}

/// `block_release`: the waiting parent TB saves its context (32 threads x 16
/// registers x 4 B = 2,048 B = 16 lines of 128 B, one line per
/// ceil((128 + 8) / 32) = 5 cycles on the SM's port: 80 cycles), releases its
/// resources, and is restored (16 lines read back through L2 and DRAM) after its
/// child completed; the run is `block_warp`'s plus the restore.
#[test]
fn sync_children_block_release_saves_and_restores_the_tb() {
    let wl = sync_parent(1, 0);
    let (block, db, wb) = with_sync(&wl, SyncChildren::BlockWarp, "cdpi");
    let (rel, dr, wr) = with_sync(&wl, SyncChildren::BlockRelease, "cdpi");
    assert_eq!(wb, wr);
    assert_eq!(db.release.released_tbs, 0);
    let r = dr.release;
    assert_eq!((r.released_tbs, r.restored_tbs), (1, 1));
    assert_eq!(r.context_bytes, 2 * 2048);
    assert_eq!(r.save_cycles, 16 * 5);
    // the restore starts the cycle after the child's exit (room at once)
    assert_eq!(r.restore_wait_cycles, 1);
    // at least an L2 round trip per line, the 16 lines 5 cycles apart
    assert!(r.restore_cycles >= 15 * 5 + 100, "{r:?}");
    // the child runs during the save; the restore is added to the parent's path
    let extra = rel - block;
    assert!(
        (r.restore_cycles..=r.restore_cycles + 2).contains(&extra),
        "{rel} - {block} vs {r:?}"
    );
    assert_eq!(dr.sync_waits, 1);
}

/// `block_release` frees the SM for the children: with parents that fill every
/// SM's shared memory, `block_warp` deadlocks (the children never fit), while
/// under `block_release` the 13 parents (one per SM of `k20c-dtbl`) save 51,200
/// B each (2,048 B of registers and 49,152 B of shared memory: 400 lines, 2,000
/// cycles on each SM's port), their children run, and all 13 are restored.
#[test]
fn sync_children_block_release_makes_room_for_the_children() {
    let wl = sync_parent(13, 49_152);
    let mut cfg = MachineConfig::preset("k20c-dtbl").unwrap();
    cfg.gpu.as_mut().unwrap().device_launch.sync_children = SyncChildren::BlockWarp;
    let opts = GpuOptions {
        dp: Some(DpMode::parse("cdpi").unwrap()),
        seed: 1,
        ..Default::default()
    };
    let mut sim = GpuSim::build(&cfg, wl.clone(), &opts).unwrap();
    assert!(
        sim.run(|_| {}).is_err(),
        "block_warp cannot place the children"
    );
    let (_, d, work) = with_sync(&wl, SyncChildren::BlockRelease, "cdpi");
    let (_, _, flat) = with_sync(&wl, SyncChildren::BlockRelease, "flat");
    assert_eq!(work, flat);
    let r = d.release;
    assert_eq!((r.released_tbs, r.restored_tbs), (13, 13));
    assert_eq!(r.context_bytes, 2 * 13 * 51_200);
    assert_eq!(r.save_cycles, 13 * 400 * 5);
    assert_eq!(d.child_kernels, 13);
}

/// The concurrency series covers the run with bounded points and sees child TBs
/// under CDP and none in the flat version.
#[test]
fn concurrency_series_over_time() {
    let wl = small("bfs");
    let (cycles, d, _) = run("k20c-dtbl", &wl, "cdp");
    assert!(!d.series.is_empty() && d.series.len() <= 256);
    assert!(d.series.iter().any(|p| p.child_tbs > 0.0));
    assert!(d
        .series
        .iter()
        .all(|p| p.parent_tbs <= d.peak_parent_tbs as f64));
    let last = d.series.last().unwrap();
    assert!(last.start < cycles && last.start + d.series_span >= cycles / 2);
    let (_, f, _) = run("k20c-dtbl", &wl, "flat");
    assert!(f.series.iter().all(|p| p.child_tbs == 0.0));
    assert!(f.series.iter().any(|p| p.parent_tbs > 0.0));
}
