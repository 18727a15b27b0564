//! The DRAM model on a thread of its own (`RunOptions::dram_thread`,
//! `Manycore::spawn_dram_thread`) gives the statistics of a run on one thread, byte
//! for byte: the two sides perform the same operations in the same order (module
//! docs of `weft_memsim::dram_side`).

use std::path::PathBuf;
use weft_memsim::config::MachineConfig;
use weft_memsim::dram_backend::Scheduler;
use weft_memsim::manycore::RunStats;
use weft_memsim::oracle::Oracle;
use weft_memsim::run::{bench_workload, build, simulate, simulate_trace_file, RunOptions};

fn json<T: serde::Serialize>(x: &T) -> String {
    serde_json::to_string(x).unwrap()
}

fn threaded(o: RunOptions) -> RunOptions {
    RunOptions {
        dram_thread: true,
        ..o
    }
}

/// The synthetic mix (`per_core` records on each of 36 cores, workload seed
/// `seed`) under `o` on one thread and with the DRAM thread.
fn both_ways(cfg: &MachineConfig, o: RunOptions, per_core: u64, seed: u64) -> (RunStats, RunStats) {
    let run = |o: &RunOptions| {
        simulate(cfg, &mut bench_workload(36, 36 * per_core, seed), o, |_| {}).unwrap()
    };
    (run(&o), run(&threaded(o)))
}

#[test]
fn the_dram_thread_changes_no_statistic_under_any_scheduler() {
    let cfg = MachineConfig::preset("table5.2").unwrap();
    for sched in [
        Scheduler::FrFcfs,
        Scheduler::Fcfs,
        Scheduler::ParBs,
        Scheduler::Tcm,
    ] {
        let o = RunOptions {
            scheduler: sched,
            seed: 5,
            ..Default::default()
        };
        let (one, two) = both_ways(&cfg, o, 500, 3);
        assert!(
            one.memory.dram_requests > 2000,
            "{sched:?}: too little DRAM traffic"
        );
        assert_eq!(json(&one), json(&two), "{sched:?}");
    }
}

#[test]
fn the_dram_thread_runs_and_forwarded_reads_agree() {
    // A small LLC; each core writes 600 lines, then reads them back newest first:
    // the last dirty lines evicted are still in the controllers' write queues when
    // they are read, so reads are answered at once by the controller (delivered
    // after the lookahead on both paths).
    let mut cfg = MachineConfig::preset("table5.2").unwrap();
    cfg.llc.size_bytes = 36 * 8 * 1024;
    cfg.l1.size_bytes = 4 * 1024;
    let mut text = String::new();
    for c in 0..36u64 {
        let base = 0x100_0000 * (c + 1);
        for i in 0..600u64 {
            text += &format!("{c} 1 W {:x}\n", base + i * 128);
        }
        for i in (0..600u64).rev() {
            text += &format!("{c} 1 R {:x}\n", base + i * 128);
        }
    }
    let dir = std::env::temp_dir().join(format!("weft-dram-thread-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("wr.trace");
    std::fs::write(&path, text).unwrap();
    let o = RunOptions::default();
    let one = simulate_trace_file(&cfg, &path, &o, |_| {}).unwrap();
    let two = simulate_trace_file(&cfg, &path, &threaded(o), |_| {}).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(json(&one), json(&two));
    // the comparison only covers the delayed answers if there were some
    let forwarded = one.dram["forwarded_reads"].as_u64().unwrap_or(0);
    assert!(forwarded > 0, "no forwarded read: {}", one.dram["commands"]);
    assert!(build(&cfg, &o).unwrap().spawn_dram_thread().unwrap());
}

#[test]
fn oracles_agree_and_blp_ideal_stays_on_one_thread() {
    let cfg = MachineConfig::preset("table5.2").unwrap();
    for oracle in [Oracle::MlpIdeal, Oracle::BlpIdeal, Oracle::Ideal] {
        let o = RunOptions {
            oracle,
            ..Default::default()
        };
        let spawned = build(&cfg, &o).unwrap().spawn_dram_thread().unwrap();
        // BLP Ideal reads the DRAM's queues at every LLC miss (Ideal includes it).
        let reads_queues = matches!(oracle, Oracle::BlpIdeal | Oracle::Ideal);
        assert_eq!(spawned, !reads_queues, "{oracle:?}");
        let (one, two) = both_ways(&cfg, o, 200, 2);
        assert_eq!(json(&one), json(&two), "{oracle:?}");
    }
}

#[test]
fn golden_traces_agree_on_the_dram_thread() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/manycore");
    let cfg = MachineConfig::preset("table5.2").unwrap();
    for case in ["stream4", "shared4"] {
        let s = simulate_trace_file(
            &cfg,
            &dir.join(format!("{case}.trace")),
            &threaded(RunOptions::default()),
            |_| {},
        )
        .unwrap();
        let want = std::fs::read_to_string(dir.join(format!("{case}.stats.json"))).unwrap();
        assert!(
            serde_json::to_string_pretty(&s).unwrap() + "\n" == want,
            "{case}: the threaded run differs from the golden statistics"
        );
    }
}
