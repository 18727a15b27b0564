//! The GPU studies through the frame (issue #33 part 4): a real run of the
//! `--quick` GPU part of one study checks its own numbers (same work, claims
//! measured, no failed cell), reruns from the cache, and its report regenerates
//! from `records.json` alone.

use weft_testsuite::eval::gpu_engine::{self, GpuEvalOptions};
use weft_testsuite::eval::gpu_report;
use weft_testsuite::eval::gpu_study::GpuSize;

fn opts(dir: &std::path::Path, studies: &[&str]) -> GpuEvalOptions {
    GpuEvalOptions {
        out: dir.join("gpu"),
        size: GpuSize::Smoke,
        studies: studies.iter().map(|s| s.to_string()).collect(),
        jobs: 2,
        quiet: true,
        cache: dir.join("cache"),
        command: "weft eval --quick".into(),
    }
}

#[test]
fn the_quick_gpu_part_checks_its_numbers_and_reruns_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts(dir.path(), &["dp"]);
    let (first, files) = gpu_engine::run(&o).expect("the dp smoke cells run");
    assert!(
        first.records.iter().all(|r| r.m.is_some()),
        "no cell failed"
    );
    // six runs of one workload: five compared with the first
    assert_eq!(first.work_checked, first.records.len() - 1);
    assert_eq!((first.cells_run, first.cells_cached), (6, 0));
    let claims = gpu_report::claims(&first);
    let measured: Vec<_> = claims
        .iter()
        .filter(|c| c.bench.is_none() && c.weft != "not measured")
        .collect();
    // DTBL over flat and over CDP, SPAWN over flat and over Baseline-DP, the
    // child-kernel ratio (Offline-Search needs the sweep, not in the smoke part)
    assert_eq!(measured.len(), 5, "{claims:?}");
    assert!(measured.iter().all(|c| c.holds.is_some()));
    let written = std::fs::read_to_string(o.out.join("results.md")).unwrap();
    assert_eq!(gpu_report::regenerate(&o.out).unwrap(), written);
    assert!(files.iter().any(|f| f.ends_with("records.csv")));
    // the same cells again: every one from the cache, the same numbers
    let (again, _) = gpu_engine::run(&o).unwrap();
    assert_eq!((again.cells_run, again.cells_cached), (0, 6));
    let strip = |o: &gpu_engine::GpuOutput| {
        o.records
            .iter()
            .map(|r| (r.variant.clone(), r.m.as_ref().map(|m| (m.cycles, m.work))))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&first), strip(&again));
}

#[test]
fn unknown_gpu_studies_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let err = gpu_engine::execute(&opts(dir.path(), &["nope"]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("unknown GPU study `nope`") && err.contains("tbm"),
        "{err}"
    );
}
