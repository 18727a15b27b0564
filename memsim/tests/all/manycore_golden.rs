//! Golden statistics: small text traces on `table5.2` must reproduce
//! `tests/golden/manycore/<case>.stats.json` exactly (`WEFT_BLESS=1` rewrites them).

use std::path::PathBuf;
use weft_memsim::config::MachineConfig;
use weft_memsim::run::{simulate_trace_file, RunOptions};

fn check(case: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/manycore");
    let cfg = MachineConfig::preset("table5.2").unwrap();
    let s = simulate_trace_file(
        &cfg,
        &dir.join(format!("{case}.trace")),
        &RunOptions::default(),
        |_| {},
    )
    .unwrap();
    let got = serde_json::to_string_pretty(&s).unwrap() + "\n";
    let path = dir.join(format!("{case}.stats.json"));
    if std::env::var_os("WEFT_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing {}; run with WEFT_BLESS=1", path.display()));
    assert!(
        got == want,
        "{case}: statistics differ from {} (WEFT_BLESS=1 to accept)",
        path.display()
    );
}

#[test]
fn golden_stream4() {
    check("stream4");
}

#[test]
fn golden_shared4() {
    check("shared4");
}

#[test]
fn trace_with_too_many_cores_is_an_error() {
    let dir = tempfile_dir();
    let p = dir.join("t.trace");
    std::fs::write(&p, "0 0 R 0x40\n40 0 R 0x80\n").unwrap();
    let cfg = MachineConfig::preset("table5.2").unwrap();
    let e = simulate_trace_file(&cfg, &p, &RunOptions::default(), |_| {}).unwrap_err();
    assert!(e.to_string().contains("core 40"), "{e}");
}

#[test]
fn same_trace_same_seed_identical_json_with_every_scheduler() {
    use weft_memsim::dram_backend::Scheduler;
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/manycore");
    let cfg = MachineConfig::preset("table5.2").unwrap();
    for sched in [
        Scheduler::Fcfs,
        Scheduler::FrFcfs,
        Scheduler::ParBs,
        Scheduler::Tcm,
    ] {
        let o = RunOptions {
            scheduler: sched,
            seed: 9,
            ..Default::default()
        };
        let a = simulate_trace_file(&cfg, &dir.join("shared4.trace"), &o, |_| {}).unwrap();
        let b = simulate_trace_file(&cfg, &dir.join("shared4.trace"), &o, |_| {}).unwrap();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
        assert_eq!(a.records, 240);
    }
}

fn tempfile_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("weft-memsim-golden-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
