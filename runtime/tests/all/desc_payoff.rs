//! Payoff rule 4 (issue 34, `docs/runtime.md` "Bounded inspection and
//! payoff"): natively in time mode a nest on the descriptor path runs its
//! first call without a descriptor walk (static chunks when proven parallel,
//! the original order otherwise), and the walk of a later call is bounded by
//! `inspect_budget` times that first execution; and no call walks before the
//! nest has run often enough to amortise a walk (rule 1 of `aside`).

use std::sync::atomic::{AtomicU64, Ordering};
use weft_runtime::affine_desc::VERSION;
use weft_runtime::machine::Machine;
use weft_runtime::mlp::Scheme;
use weft_runtime::runtime::{LazyInspect, PayoffMode, Runtime, RuntimeConfig};

/// `for i in P: for j in 0..m: a[i*m + j]` (written), over `a`.
fn desc(a: i64, m: i64) -> Vec<i64> {
    vec![
        VERSION,
        2,
        1,
        0,
        1, // header
        0,
        0,
        0,
        1,
        m,
        0,
        1, // loop 1: j in 0..m
        1,
        a,
        8,
        1,
        0,
        8 * m,
        8, // the reference, in loop 1
    ]
}

fn rt(budget: f64) -> Runtime {
    let cfg = RuntimeConfig {
        cores: 2,
        payoff: PayoffMode::Time,
        inspect_budget: budget,
        lazy: LazyInspect::Off,
        min_parallel_ns: 0,
        ..Default::default()
    };
    Runtime::with_machine(cfg, Machine::load("table5.2").unwrap()).unwrap()
}

/// (line steps, inspections, payoff fall-back) of nest `id`.
fn region(r: &Runtime, id: u32) -> (u64, u64, Option<String>) {
    let st = r.stats_json();
    let g = st["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id && g["kind"] == "affine")
        .cloned()
        .unwrap_or_default();
    (
        g["line_steps"].as_u64().unwrap_or(0),
        g["inspections"].as_u64().unwrap_or(0),
        g["payoff_fallback"].as_str().map(str::to_string),
    )
}

/// Runs nest 5 `calls` times over `n` iterations under `budget`; checks
/// every iteration ran once per call; returns its region statistics.
fn calls(budget: f64, calls: u64) -> (u64, u64, Option<String>) {
    let (n, m) = (256i64, 64i64);
    let data: Vec<u64> = vec![0; (n * m + 16) as usize];
    let a = (data.as_ptr() as i64 + 127) & !127;
    let d = desc(a, m);
    let r = rt(budget);
    let hits: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let body = |lo: i64, hi: i64| {
        for i in lo..hi {
            hits[i as usize].fetch_add(1, Ordering::Relaxed);
        }
    };
    for _ in 0..calls {
        r.run_affine_desc(5, 0, n, 4, Scheme::ClpFirst, 0, false, &d, &body)
            .unwrap();
    }
    assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == calls));
    region(&r, 5)
}

#[test]
fn the_first_call_walks_nothing() {
    let (steps, inspections, why) = calls(1e9, 1);
    assert_eq!((steps, inspections, why), (0, 0, None));
}

#[test]
fn a_later_call_walks_within_its_budget() {
    // A budget of 10^9 first executions: the walk runs to its end, at the
    // seventh call (six executions x 0.177 >= one execution of walk).
    let (steps, inspections, why) = calls(1e9, 8);
    assert!(steps > 0, "a later call builds a plan");
    assert_eq!((inspections, why), (1, None));
}

#[test]
fn a_nest_called_too_few_times_to_amortise_a_walk_walks_nothing() {
    // Six calls: five executions before the sixth, 5 x 0.177 < 1.
    let (steps, inspections, why) = calls(1e9, 6);
    assert_eq!((steps, inspections, why), (0, 0, None));
}

#[test]
fn a_walk_whose_budget_is_below_the_minimum_does_not_start() {
    // 10^-9 first executions is far below the 100 us minimum: no walk, the
    // Default schedule from then on (natively static chunks, no plan built),
    // and the statistics say why.
    let (steps, inspections, why) = calls(1e-9, 8);
    assert_eq!((steps, inspections), (0, 0));
    let why = why.expect("a fall-back reason");
    assert!(
        why.starts_with("descriptor walk not started: its budget of"),
        "{why}"
    );
}
