//! End to end on a tiny configuration with the real backend: one small
//! benchmark (HPCG-like, quick input), two versions (Original, BLP Optimized), a
//! 4-core `table4.2` machine: clang-19 → weft-passes → libweft_runtime.a trace
//! mode → weft-memsim manycore simulation → records, summary, report; then a
//! rerun served entirely from the content-hash cache.

use weft_testsuite::eval::backend::Size;
use weft_testsuite::eval::engine::Status;
use weft_testsuite::eval::versions::Study;
use weft_testsuite::eval::{self, weft::WeftBackend, EvalOptions};

#[test]
fn tiny_ch4_pipeline_runs_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = EvalOptions::quick(dir.path().join("out"));
    o.size = Size::Tiny;
    o.studies = vec![Study::Ch4];
    o.only_benches = vec!["hpcg".into()];
    o.only_versions = vec!["original".into(), "blp-opt".into()];
    o.quiet = true;
    o.jobs = 2;
    o.machine_overrides
        .push((Study::Ch4, "core.count".into(), 4));
    let backend = WeftBackend::new();
    let out = eval::run(&o, &backend).expect("evaluation");
    let recs = &out.output.records;
    assert_eq!(recs.len(), 2, "{recs:?}");
    for r in recs {
        assert_eq!(
            r.status,
            Status::Ok,
            "{} {}: {:?}",
            r.bench,
            r.version,
            r.status
        );
        let s = r.stats.as_ref().unwrap();
        assert!(s.cycles > 0 && r.records.unwrap() > 0);
        // Three perturbed replicas by default, `cycles` their mean.
        assert_eq!(s.replica_cycles.len(), eval::DEFAULT_REPLICAS as usize);
        let mean = s.replica_cycles.iter().sum::<u64>() as f64 / s.replica_cycles.len() as f64;
        assert_eq!(s.cycles, mean.round() as u64);
        // table4.2 has 4 channels x 8 ranks x 2 banks = 64 banks.
        assert!(s.blp >= 1.0 && s.blp <= 64.0, "blp {}", s.blp);
        assert!(r.machine.contains("core.count=4"), "{}", r.machine);
    }
    // Same program output under both schedules, and the check saw both runs.
    assert_eq!(recs[0].checksum, recs[1].checksum);
    assert!(out.summary.checksums_match);
    assert_eq!(out.summary.checksums_checked, 2);
    // The inspector ran and its coverage is reported.
    let opt = recs.iter().find(|r| r.version == "blp-opt").unwrap();
    let cov = opt
        .runtime
        .as_ref()
        .and_then(|x| x.coverage_pct)
        .expect("coverage");
    assert!(cov > 0.0 && cov <= 100.0);
    assert!(out.summary.ch4.time_reduction_pct.is_some() && out.summary.ch4.blp_gain_pct.is_some());
    // ... and the time reduction has its interval over the replicas.
    assert!(out
        .summary
        .ch4
        .time_reduction_ci95
        .is_some_and(|c| c >= 0.0));
    for f in ["summary.json", "records.csv", "results.md"] {
        assert!(dir.path().join("out").join(f).is_file(), "{f}");
    }
    // Rerun: nothing is rebuilt, rerun or resimulated.
    let again = eval::run(&o, &backend).expect("rerun");
    for stage in ["build", "run", "sim"] {
        assert_eq!(again.output.job_counts[stage].0, 0, "{stage} recomputed");
    }
    // (f64 series go through JSON, which may round the last digit; compare the
    // exact integers and strings.)
    for (a, b) in again.output.records.iter().zip(&out.output.records) {
        assert_eq!(
            (&a.status, &a.checksum, a.records),
            (&b.status, &b.checksum, b.records)
        );
        assert_eq!(
            a.stats.as_ref().map(|s| s.cycles),
            b.stats.as_ref().map(|s| s.cycles)
        );
    }
}

/// Two traced runs of one binary give byte-identical traces (and therefore the
/// same simulated statistics): the program runs with ASLR off, so every heap
/// address, and with it every DRAM and LLC bank, is reproducible. Before this,
/// two `weft eval --quick` runs of one commit differed by 1-2 points of BLP;
/// and before the harness ran programs as `./prog` in their run directory with
/// a fixed environment, the length of `--out` moved stack addresses (moldyn's
/// BLP by 5.7%).
#[test]
fn traced_runs_are_reproducible() {
    use weft_testsuite::eval::backend::{Backend, BuildJob, MachineSpec, RunJob};
    if !weft_passes::link::layout_is_reproducible() {
        eprintln!("skipped: this kernel refuses personality(ADDR_NO_RANDOMIZE)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let backend = WeftBackend::new();
    let build = BuildJob {
        bench: "hpcg".into(),
        pipeline: weft_testsuite::eval::versions::pipelines::CH4_BLP_OPT.into(),
    };
    let bdir = dir.path().join("build");
    std::fs::create_dir_all(&bdir).unwrap();
    let built = backend.build(&build, &bdir).expect("build");
    let job = RunJob {
        build,
        size: Size::Tiny,
        input_scale: 1,
        reorder: None,
        cores: Some(4),
        machine: MachineSpec::preset("table4.2").with("core.count", 4),
        env: Vec::new(),
    };
    let mut traces = Vec::new();
    // Run directories of different name lengths: the harness keeps paths
    // off the program's stack, so the addresses (and banks) stay the same.
    for name in ["run0", "run-in-a-directory-with-a-much-longer-name-1"] {
        let rdir = dir.path().join(name);
        std::fs::create_dir_all(&rdir).unwrap();
        let out = backend.run(&job, &built, &rdir).expect("run");
        traces.push(std::fs::read(&out.trace).unwrap());
    }
    assert!(!traces[0].is_empty());
    assert!(traces[0] == traces[1], "two traced runs differ");
}
