//! Stepping aside (`weft_runtime::aside`) through the Rust API: rule 2 decided
//! on a sample of the slabs before the full inspection
//! (`runtime/coverage_probe.rs`), for a region whose loop needs no dependence
//! check.

use std::sync::atomic::{AtomicU64, Ordering};
use weft_runtime::aside::BlpAside;
use weft_runtime::bankmap::AddressMap;
use weft_runtime::machine::Machine;
use weft_runtime::runtime::{
    Inspector, LazyInspect, PayoffMode, Runtime, RuntimeConfig, SAMPLE_SLABS_PER_CORE,
};

/// Iterations, cores and slab size of the region: 40 slabs per core.
const N: i64 = 16_000;
const P: usize = 2;
const SLAB: i64 = 200;

/// The configuration every test here starts from: `P` cores, no grain
/// control, no lazy inspection, count-based payoff (deterministic).
fn base() -> RuntimeConfig {
    RuntimeConfig {
        cores: P,
        min_parallel_ns: 0,
        lazy: LazyInspect::Off,
        payoff: PayoffMode::Count,
        ..RuntimeConfig::default()
    }
}

/// A runtime of `cfg` on `table5.2`.
fn runtime(cfg: RuntimeConfig) -> Runtime {
    Runtime::with_machine(cfg, Machine::load("table5.2").unwrap()).unwrap()
}

/// Runs the region 7 times under `WEFT_BLP_ASIDE=1` (rule 1 lets the 7th
/// inspect) with an inspector that declares only unchecked reads of
/// `addr(i)`; checks the results against the sequential loop and returns the
/// region's statistics and the iterations the inspector was asked for
/// during the 7th call (the one-iteration declaration runs left out).
fn seven_runs(addr: &(dyn Fn(i64) -> u64 + Sync)) -> (serde_json::Value, i64) {
    let r = runtime(RuntimeConfig {
        blp_aside: BlpAside::All,
        inspect_saturate: false,
        ..base()
    });
    let inspected = AtomicU64::new(0);
    let insp = |lo: i64, hi: i64, h: &mut Inspector| {
        h.declare_maps_only();
        if hi - lo > 1 {
            inspected.fetch_add((hi - lo) as u64, Ordering::Relaxed);
        }
        for i in lo..hi {
            h.access_unchecked(i, addr(i), 8).unwrap();
        }
    };
    let y: Vec<AtomicU64> = (0..N).map(|_| AtomicU64::new(0)).collect();
    let body = |lo: i64, hi: i64| {
        for i in lo..hi {
            y[i as usize].fetch_add(i as u64 + 1, Ordering::Relaxed);
        }
    };
    let mut before = 0;
    for k in 0..7 {
        if k == 6 {
            before = inspected.load(Ordering::Relaxed);
        }
        r.run_irregular(3, 0, N, SLAB, Some(&insp), &body).unwrap();
    }
    for (i, v) in y.iter().enumerate() {
        assert_eq!(v.load(Ordering::Relaxed), 7 * (i as u64 + 1));
    }
    let st = r.stats_json()["regions"][0].clone();
    (st, (inspected.load(Ordering::Relaxed) - before) as i64)
}

/// Two addresses in different memory banks of `table5.2`.
fn two_banks() -> (u64, u64) {
    let m = Machine::load("table5.2").unwrap();
    let a = 1u64 << 30;
    let b = (1..)
        .map(|k| a + k * m.line_bytes())
        .find(|&x| m.mem_bank(x) != m.mem_bank(a))
        .unwrap();
    (a, b)
}

/// Every slab reads one line of bank A: the original order and any schedule
/// cover one bank per slot, so the sample steps aside. The 7th call inspects
/// only the sampled slabs (one per group of k = ⌈40 / 6⌉ = 7 slabs: 6 of
/// each core's 40), never the whole range, and the region runs its static chunks with the reason in
/// `step_aside`.
#[test]
fn a_sample_without_gain_steps_aside_before_the_full_inspection() {
    let (a, _) = two_banks();
    let (st, inspected) = seven_runs(&|_| a);
    let why = st["step_aside"].as_str().expect("stepped aside");
    assert!(why.starts_with("original order kept:"), "{why}");
    assert!(why.contains("estimated on 12 of 80 slabs"), "{why}");
    let k = (40 + SAMPLE_SLABS_PER_CORE - 1) / SAMPLE_SLABS_PER_CORE;
    assert_eq!((k, (40 + k - 1) / k), (7, 6));
    assert_eq!(inspected, 12 * SLAB, "only the sampled slabs are inspected");
    assert_eq!(st["inspections"].as_u64(), Some(1));
    assert_eq!(st["executions"].as_u64(), Some(7));
}

/// Each core's first 20 slabs read bank A and its last 20 bank B: in
/// original order both cores are in the same bank at every slot (1 per
/// slot); Algorithm 4 pairs an A slab with a B slab (2 per slot). The sample
/// holds slabs of both halves on each core, so it shows the gain, and the
/// region is inspected in full and scheduled (no `step_aside`).
#[test]
fn a_sample_with_gain_leads_to_the_full_inspection() {
    let (a, b) = two_banks();
    let half = N / P as i64 / 2;
    let (st, inspected) = seven_runs(&|i| if i % (2 * half) < half { a } else { b });
    assert!(st["step_aside"].is_null(), "{}", st["step_aside"]);
    assert_eq!(st["banks_per_slot"].as_f64(), Some(2.0));
    assert_eq!(st["original_banks_per_slot"].as_f64(), Some(1.0));
    assert_eq!(inspected, 12 * SLAB + N, "the sample, then the whole range");
}

/// Three runs of region 5 with staggered chunks, an inspector that reports
/// an access of `addr(i)` per iteration (a read declared unchecked when
/// `parallel`, else a checked write); checks the results against the
/// sequential loop and returns the region's statistics, the first iteration
/// each core ran and the iterations inspected in calls of more than one
/// iteration (the one-iteration declaration runs left out).
fn stagger_runs(
    parallel: bool,
    addr: &(dyn Fn(i64) -> u64 + Sync),
) -> (serde_json::Value, Vec<u64>, u64) {
    let r = runtime(RuntimeConfig {
        blp_stagger: true,
        ..base()
    });
    let inspected = AtomicU64::new(0);
    let insp = |lo: i64, hi: i64, h: &mut Inspector| {
        if parallel {
            h.declare_maps_only();
        }
        if hi - lo > 1 {
            inspected.fetch_add((hi - lo) as u64, Ordering::Relaxed);
        }
        for i in lo..hi {
            match parallel {
                true => h.access_unchecked(i, addr(i), 8).unwrap(),
                false => h.access(i, addr(i), 8, true).unwrap(),
            }
        }
    };
    let chunk = N / P as i64;
    let first: Vec<AtomicU64> = (0..P).map(|_| AtomicU64::new(u64::MAX)).collect();
    let y: Vec<AtomicU64> = (0..N).map(|_| AtomicU64::new(0)).collect();
    let body = |lo: i64, hi: i64| {
        let c = (lo / chunk) as usize;
        let _ =
            first[c].compare_exchange(u64::MAX, lo as u64, Ordering::Relaxed, Ordering::Relaxed);
        for i in lo..hi {
            y[i as usize].fetch_add(i as u64 + 1, Ordering::Relaxed);
        }
    };
    for _ in 0..3 {
        r.run_irregular(5, 0, N, SLAB, Some(&insp), &body).unwrap();
    }
    for (i, v) in y.iter().enumerate() {
        assert_eq!(v.load(Ordering::Relaxed), 3 * (i as u64 + 1));
    }
    let st = r.stats_json()["regions"][0].clone();
    let firsts = first.iter().map(|f| f.load(Ordering::Relaxed)).collect();
    (st, firsts, inspected.load(Ordering::Relaxed))
}

/// `WEFT_BLP_STAGGER=1`: a region whose inspector declares the loop
/// parallel runs without inspection (only the one-iteration declaration
/// runs), each core's chunk rotated to start at the slab `hashed_starts`
/// draws (core 1's not at its chunk's start); one whose inspector reports a
/// checked write is inspected as printed.
#[test]
fn staggered_chunks_skip_the_inspection_and_rotate_each_chunk() {
    let chunk = N / P as i64;
    let (st, firsts, inspected) = stagger_runs(true, &|i| 4096 * i as u64);
    assert_eq!(inspected, 0, "{st}");
    assert_eq!(st["inspections"], 0, "{st}");
    let starts = weft_runtime::runtime::hashed_starts(&[0, chunk, N], SLAB);
    assert_eq!(firsts, starts.iter().map(|&s| s as u64).collect::<Vec<_>>());
    assert_ne!(firsts, vec![0, chunk as u64], "no core rotated");
    let (st, _, _) = stagger_runs(false, &|i| 4096 * i as u64);
    assert_eq!(st["inspections"], 1, "checked loop not inspected: {st}");
    assert_eq!(st["inspector_breakdown"]["accesses"], N, "{st}");
}
