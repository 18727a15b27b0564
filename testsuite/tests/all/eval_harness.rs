//! The harness's own logic (job deduplication, content-hash cache, checksum
//! abort, "not available" propagation, averages, writers) on a small synthetic
//! backend whose results are hand-computable. The stages of the real backend are
//! exercised by the end-to-end test.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use weft_testsuite::eval::backend::*;
use weft_testsuite::eval::engine::Status;
use weft_testsuite::eval::versions::{Knob, Oracle, Study, Version};
use weft_testsuite::eval::{self, EvalError, EvalOptions};

/// Cycles and BLP per (version-defining ingredients), chosen so averages are exact.
#[derive(Default)]
struct Synthetic {
    builds: AtomicUsize,
    runs: AtomicUsize,
    sims: AtomicUsize,
    /// Pipelines reported as not available.
    missing_pipelines: Vec<&'static str>,
    /// (bench, pipeline) whose run prints a wrong checksum.
    corrupt: Option<(&'static str, &'static str)>,
    /// Cycles multiplier per pipeline (default 1.0).
    speed: BTreeMap<&'static str, f64>,
    seen_cores: Mutex<Vec<Option<u32>>>,
    /// Oracle whose simulation panics.
    panic_oracle: Option<Oracle>,
    /// Accept `Knob::InputScale`; BLP Optimized then gains 5% more time per
    /// doubling of the input (cycles scale with the input).
    input_scaling: bool,
    /// (input scale, size) of every simulation.
    seen_sizes: Mutex<Vec<(i64, Size)>>,
}

impl Backend for Synthetic {
    fn fingerprint(&self) -> String {
        "synthetic-1".into()
    }
    fn benchmarks(&self, study: Study, _size: Size) -> StageResult<Vec<BenchInfo>> {
        let names: &[&str] = match study {
            Study::Ch4 => &["spmv", "moldyn"],
            Study::Ch5 => &["mxm"],
        };
        Ok(names
            .iter()
            .map(|n| BenchInfo {
                name: n.to_string(),
                paper_name: None,
                study,
                input: format!("{n} synthetic input"),
                content_hash: format!("hash-{n}"),
            })
            .collect())
    }
    fn check_version(&self, v: &Version) -> StageResult<()> {
        if self.missing_pipelines.contains(&v.pipeline) {
            return Err(StageError::Unavailable(format!(
                "pipeline `{}` has an unregistered pass",
                v.pipeline
            )));
        }
        Ok(())
    }
    fn check_knob(&self, _machine: &str, knob: &Knob) -> StageResult<()> {
        match knob {
            Knob::InputScale if !self.input_scaling => {
                Err(StageError::Unavailable("no input scaling".into()))
            }
            _ => Ok(()),
        }
    }
    fn build(&self, job: &BuildJob, dir: &Path) -> StageResult<BuildOut> {
        self.builds.fetch_add(1, Ordering::SeqCst);
        let exe = dir.join("a.out");
        std::fs::write(&exe, &job.pipeline).map_err(|e| StageError::Failed(e.to_string()))?;
        Ok(BuildOut {
            exe,
            remarks: vec![],
        })
    }
    fn run(&self, job: &RunJob, build: &BuildOut, dir: &Path) -> StageResult<RunOut> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        self.seen_cores.lock().unwrap().push(job.cores);
        assert!(build.exe.exists());
        let trace = dir.join("trace.bin");
        std::fs::write(&trace, b"T").unwrap();
        let mut checksum = format!("checksum {}", job.build.bench.len() * 1000 + 7);
        if self.corrupt == Some((job.build.bench.as_str(), leak(&job.build.pipeline))) {
            checksum.push('9');
        }
        let opt = job.build.pipeline.contains("inspector");
        Ok(RunOut {
            checksum,
            trace,
            records: 100,
            runtime: RuntimeStats {
                coverage_pct: opt.then_some(80.0),
                overhead_pct: opt.then_some(3.0),
                betas: if job.build.pipeline.contains("balanced") {
                    vec![0.5, 0.6, 0.9]
                } else {
                    vec![]
                },
                extra: Default::default(),
            },
        })
    }
    fn simulate(&self, job: &SimJob, _run: &RunOut, _dir: &Path) -> StageResult<SimStats> {
        self.sims.fetch_add(1, Ordering::SeqCst);
        if Some(job.oracle) == self.panic_oracle {
            panic!("invariant violated in the simulator");
        }
        let speed = self
            .speed
            .iter()
            .find(|(p, _)| **p == job.run.build.pipeline)
            .map_or(1.0, |(_, s)| *s);
        let oracle = match job.oracle {
            Oracle::None => 1.0,
            _ => 0.5,
        };
        self.seen_sizes
            .lock()
            .unwrap()
            .push((job.run.input_scale, job.run.size));
        let scale = job.run.input_scale as f64;
        let speed = if job.run.build.pipeline == CH4_BLP_OPT {
            speed - 0.05 * scale.log2()
        } else {
            speed
        };
        let cycles = (1000.0 * scale * speed * oracle) as u64;
        let blp = 10.0 / (speed * oracle);
        Ok(SimStats {
            cycles,
            blp,
            mlp: blp,
            clp: 4.0,
            llc_hit_rate: 0.5,
            row_hit_rate: 0.4,
            avg_mem_latency: 100.0,
            blp_series: vec![blp; 4],
            epoch_cycles: 250,
            inspection_cycles: 0,
            dram_requests: 0,
            prefetches_filled: 0,
            prefetches_useful: 0,
            llc_mpki: 0.0,
            sample_ci95_pct: None,
            ..SimStats::default()
        })
    }
}

fn leak(s: &str) -> &'static str {
    // Pipelines are the static strings of the version matrix; find the match.
    for v in weft_testsuite::eval::versions::ch4_versions()
        .into_iter()
        .chain(weft_testsuite::eval::versions::ch5_versions())
    {
        if v.pipeline == s {
            return v.pipeline;
        }
    }
    ""
}

fn opts(dir: &Path) -> EvalOptions {
    let mut o = EvalOptions::full(dir.join("out"));
    o.size = Size::Tiny;
    o.sweep_size = Size::Tiny;
    o.sweeps = false;
    o.quiet = true;
    o.jobs = 2;
    o
}

use weft_testsuite::eval::versions::pipelines::*;

#[test]
fn jobs_are_deduplicated_and_cached() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.studies = vec![Study::Ch4];
    let b = Synthetic::default();
    let out = eval::run(&o, &b).unwrap();
    // 2 benchmarks x 2 pipelines.
    assert_eq!(b.builds.load(Ordering::SeqCst), 4);
    // Per benchmark: Original, BLP Optimized, the GPART-reordered Original
    // input and the six runtime variants of BLP Optimized (blp-aside,
    // blp-keep, blp-subwin, blp-window, blp-miss, blp-stagger: each its own
    // environment, so its own traced run).
    assert_eq!(b.runs.load(Ordering::SeqCst), 18);
    // Per benchmark: the 9 versions of the dissertation and the 6 variants
    // are 15 distinct simulations.
    assert_eq!(b.sims.load(Ordering::SeqCst), 30);
    assert_eq!(out.output.records.len(), 30);
    assert!(out.output.records.iter().all(|r| r.status == Status::Ok));

    // Rerun: everything comes from the cache.
    let b2 = Synthetic::default();
    let out2 = eval::run(&o, &b2).unwrap();
    assert_eq!(
        b2.builds.load(Ordering::SeqCst)
            + b2.runs.load(Ordering::SeqCst)
            + b2.sims.load(Ordering::SeqCst),
        0
    );
    assert_eq!(out2.output.job_counts["sim"], (0, 30));
    assert_eq!(out.output.records, out2.output.records);
}

#[test]
fn fingerprint_change_invalidates_cache() {
    struct Other(Synthetic);
    impl Backend for Other {
        fn fingerprint(&self) -> String {
            "synthetic-2".into()
        }
        fn benchmarks(&self, s: Study, z: Size) -> StageResult<Vec<BenchInfo>> {
            self.0.benchmarks(s, z)
        }
        fn check_version(&self, v: &Version) -> StageResult<()> {
            self.0.check_version(v)
        }
        fn check_knob(&self, m: &str, k: &Knob) -> StageResult<()> {
            self.0.check_knob(m, k)
        }
        fn build(&self, j: &BuildJob, d: &Path) -> StageResult<BuildOut> {
            self.0.build(j, d)
        }
        fn run(&self, j: &RunJob, b: &BuildOut, d: &Path) -> StageResult<RunOut> {
            self.0.run(j, b, d)
        }
        fn simulate(&self, j: &SimJob, r: &RunOut, d: &Path) -> StageResult<SimStats> {
            self.0.simulate(j, r, d)
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.studies = vec![Study::Ch5];
    o.only_versions = vec!["default".into()];
    eval::run(&o, &Synthetic::default()).unwrap();
    let other = Other(Synthetic::default());
    eval::run(&o, &other).unwrap();
    assert_eq!(other.0.builds.load(Ordering::SeqCst), 1);
    assert_eq!(other.0.sims.load(Ordering::SeqCst), 1);
}

#[test]
fn checksum_mismatch_aborts_naming_benchmark_and_version() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.studies = vec![Study::Ch4];
    let b = Synthetic {
        corrupt: Some(("moldyn", CH4_BLP_OPT)),
        ..Default::default()
    };
    let err = eval::run(&o, &b).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, EvalError::ChecksumMismatch { .. }));
    assert!(msg.contains("moldyn"), "{msg}");
    assert!(msg.contains("blp-opt"), "{msg}");
    // Aborted before simulating anything.
    assert_eq!(b.sims.load(Ordering::SeqCst), 0);
    assert!(!dir.path().join("out/summary.json").exists());
}

#[test]
fn averages_and_summary_are_exact() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts(dir.path());
    let mut speed = BTreeMap::new();
    speed.insert(CH4_BLP_OPT, 0.8); // 20% faster, BLP 10 -> 12.5 (+25%)
    speed.insert(CH5_MLP_FIRST, 0.9);
    speed.insert(CH5_CLP_FIRST, 0.95);
    speed.insert(CH5_BALANCED, 0.75);
    let b = Synthetic {
        speed,
        ..Default::default()
    };
    let out = eval::run(&o, &b).unwrap();
    let s = &out.summary;
    assert!(s.checksums_match);
    assert_eq!(s.ch4.benchmarks, 2);
    assert!((s.ch4.time_reduction_pct.unwrap() - 20.0).abs() < 1e-9);
    assert!((s.ch4.blp_gain_pct.unwrap() - 25.0).abs() < 1e-9);
    assert!((s.ch5.mlp_first_pct.unwrap() - 10.0).abs() < 1e-9);
    assert!((s.ch5.clp_first_pct.unwrap() - 5.0).abs() < 1e-9);
    assert!((s.ch5.balanced_pct.unwrap() - 25.0).abs() < 1e-9);
    assert_eq!(s.ch4.paper.blp_gain_pct, 46.8);
    assert_eq!(s.ch5.paper.balanced_pct, 17.32);

    // summary.json has the keys the issue requires.
    let text = std::fs::read_to_string(dir.path().join("out/summary.json")).unwrap();
    let j: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(j["checksums_match"], serde_json::Value::Bool(true));
    for k in ["blp_gain_pct", "time_reduction_pct"] {
        assert!(j["ch4"][k].is_number(), "{k}");
    }
    for k in ["mlp_first_pct", "clp_first_pct", "balanced_pct"] {
        assert!(j["ch5"][k].is_number(), "{k}");
    }
    // CSV has one line per cell plus the header.
    let csv = std::fs::read_to_string(dir.path().join("out/records.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + out.output.records.len());
    // The report puts our numbers next to the paper's.
    let md = std::fs::read_to_string(dir.path().join("out/results.md")).unwrap();
    assert!(md.contains("+20.0%") && md.contains("+18.30%"), "{md}");
    assert!(md.contains("+25.0%") && md.contains("+17.32%"));
    // Balanced betas 0.5, 0.6, 0.9: two of three inside [0.3, 0.8].
    assert!(md.contains("3 values, 2 (67%) in [0.3, 0.8]"), "{md}");
}

#[test]
fn unavailable_versions_are_reported_not_faked() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.studies = vec![Study::Ch5];
    let b = Synthetic {
        missing_pipelines: vec![CH5_LA_MLP, CH5_BALANCED],
        ..Default::default()
    };
    let out = eval::run(&o, &b).unwrap();
    let la: Vec<_> = out
        .output
        .records
        .iter()
        .filter(|r| r.version == "la-mlp")
        .collect();
    assert_eq!(la.len(), 1);
    assert!(matches!(&la[0].status, Status::NotAvailable(w) if w.contains("unregistered pass")));
    assert!(la[0].stats.is_none());
    assert_eq!(out.summary.ch5.balanced_pct, None);
    assert!(out
        .summary
        .not_available
        .iter()
        .any(|w| w.contains("la-mlp")));
    let j: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/summary.json")).unwrap(),
    )
    .unwrap();
    assert!(j["ch5"]["balanced_pct"].is_null());
    let md = std::fs::read_to_string(dir.path().join("out/results.md")).unwrap();
    assert!(md.contains("not available: pipeline"), "{md}");
    // One benchmark; only the 4 available pipelines (default, clustering,
    // mlp-first, clp-first) were built: none of the missing ones was attempted.
    assert_eq!(b.builds.load(Ordering::SeqCst), 4);
}

#[test]
fn contradictions_with_the_paper_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.studies = vec![Study::Ch4];
    let mut speed = BTreeMap::new();
    speed.insert(CH4_BLP_OPT, 1.25); // slower, lower BLP
    let b = Synthetic {
        speed,
        ..Default::default()
    };
    let out = eval::run(&o, &b).unwrap();
    let d: Vec<_> = out
        .disagreements
        .iter()
        .filter(|d| d.bench.as_deref() == Some("spmv"))
        .collect();
    assert!(
        d.iter().any(|d| d.claim.contains("raises BLP")),
        "{:?}",
        out.disagreements
    );
    assert!(d.iter().any(|d| d.claim.contains("reduces execution time")));
    assert!(
        d[0].analysis.contains("cycles 1000 -> 1250"),
        "{}",
        d[0].analysis
    );
    assert_eq!(out.summary.disagreements, out.disagreements.len());
    let md = std::fs::read_to_string(dir.path().join("out/results.md")).unwrap();
    assert!(md.contains("Where our numbers disagree"));
    assert!(md.contains("BLP Optimized raises BLP over Original"));
}

#[test]
fn sweeps_run_points_and_report_unavailable_knobs() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.studies = vec![Study::Ch4];
    o.only_versions = vec!["original".into(), "blp-opt".into()];
    o.sweeps = true;
    let b = Synthetic::default();
    let out = eval::run(&o, &b).unwrap();
    let cores: Vec<_> = out
        .output
        .records
        .iter()
        .filter(|r| r.point.as_ref().is_some_and(|p| p.sweep == "cores"))
        .collect();
    // 3 core counts x 2 versions x 2 benchmarks.
    assert_eq!(cores.len(), 12);
    assert!(b.seen_cores.lock().unwrap().contains(&Some(4)));
    assert!(out
        .output
        .unavailable
        .iter()
        .any(|(w, why)| w == "sweep input" && why.contains("no input scaling")));
    // Cycles are independent of the knob in the synthetic backend, so every
    // point's time reduction equals the default's (0%).
    let md = std::fs::read_to_string(dir.path().join("out/results.md")).unwrap();
    assert!(md.contains("| cores | 4 | 2 |"), "{md}");
}

/// A full run's sweeps on quick inputs simulate the machine for quick inputs
/// (caches shrunk), not the main matrix's faithful one; `input-main`, at the
/// main size, keeps the main machine.
#[test]
fn sweeps_use_the_machine_of_their_input_size() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.studies = vec![Study::Ch4];
    o.only_versions = vec!["original".into(), "blp-opt".into()];
    o.size = Size::Full;
    o.sweep_size = Size::Quick;
    o.sweeps = true;
    let main = o.machine(Study::Ch4).label();
    let small = o.machine_at(Study::Ch4, Size::Quick).label();
    assert_eq!(main, "table4.2");
    assert!(small.contains("llc.size_bytes=131072"), "{small}");
    let b = Synthetic {
        input_scaling: true,
        ..Default::default()
    };
    let out = eval::run(&o, &b).unwrap();
    let recs = &out.output.records;
    let point = |r: &&eval::engine::Record| r.point.as_ref().map(|p| p.sweep.clone());
    let cores: Vec<_> = recs
        .iter()
        .filter(|r| point(r).as_deref() == Some("cores"))
        .collect();
    assert_eq!(cores.len(), 12);
    for r in &cores {
        assert!(
            r.machine.starts_with("table4.2[") && r.machine.contains("llc.size_bytes=131072"),
            "{}",
            r.machine
        );
        assert!(r.machine.contains("core.count="), "{}", r.machine);
    }
    let scaled: Vec<_> = recs
        .iter()
        .filter(|r| point(r).as_deref() == Some("input-main"))
        .collect();
    assert!(!scaled.is_empty());
    assert!(scaled.iter().all(|r| r.machine == main), "{scaled:?}");
    assert!(recs
        .iter()
        .filter(|r| r.point.is_none())
        .all(|r| r.machine == main));
    let md = std::fs::read_to_string(dir.path().join("out/results.md")).unwrap();
    assert!(md.contains(&format!("ch. 4 `{small}`")), "{md}");
}

/// The `input-main` sweep runs at the main matrix's size and its points are
/// summarised next to the headline numbers.
#[test]
fn scaled_inputs_are_summarised() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.studies = vec![Study::Ch4];
    o.only_versions = vec!["original".into(), "blp-opt".into()];
    o.sweeps = true;
    o.sweep_size = Size::Quick;
    let mut speed = BTreeMap::new();
    speed.insert(CH4_BLP_OPT, 0.8);
    let b = Synthetic {
        input_scaling: true,
        speed,
        ..Default::default()
    };
    let out = eval::run(&o, &b).unwrap();
    let main: Vec<_> = out
        .output
        .records
        .iter()
        .filter(|r| r.point.as_ref().is_some_and(|p| p.sweep == "input-main"))
        .collect();
    // 2 scales x 2 versions x moldyn (the synthetic `spmv` has no size knob entry
    // in the sweep), all at the main matrix's (tiny) size.
    assert_eq!(main.len(), 4);
    let sizes = b.seen_sizes.lock().unwrap().clone();
    assert!(sizes.contains(&(4, Size::Tiny)), "{sizes:?}");
    assert!(
        !sizes.iter().any(|&(k, z)| k == 4 && z != Size::Tiny),
        "{sizes:?}"
    );
    let md = std::fs::read_to_string(dir.path().join("out/results.md")).unwrap();
    // 1x: 0.8 of Original's cycles (+20%); 4x: 0.7 (+30%); no inspection cycles.
    assert!(md.contains("| 1x | 1 | +25.0% | +20.0% | +20.0% |"), "{md}");
    assert!(md.contains("| 4x | 1 |"), "{md}");
    assert!(md.contains("| 4x | 1 | +42.9% | +30.0% | +30.0% |"), "{md}");
}

#[test]
fn plots_are_written_as_svg_and_png_when_a_font_exists() {
    let dir = tempfile::tempdir().unwrap();
    let o = opts(dir.path());
    let out = eval::run(&o, &Synthetic::default()).unwrap();
    let plots = dir.path().join("out/plots");
    let font = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"]
        .iter()
        .any(|p| Path::new(p).exists());
    if !font {
        // Without a font the report must say why plots are missing.
        let md = std::fs::read_to_string(dir.path().join("out/results.md")).unwrap();
        assert!(md.contains("no TrueType font"));
        return;
    }
    for name in [
        "ch4_blp_over_time",
        "ch4_blp",
        "ch4_time",
        "ch4_overhead",
        "ch5_mlp",
        "ch5_clp",
        "ch5_time",
        "ch5_beta",
    ] {
        for ext in ["svg", "png"] {
            let p = plots.join(format!("{name}.{ext}"));
            assert!(
                p.metadata().map(|m| m.len() > 500).unwrap_or(false),
                "{}",
                p.display()
            );
        }
    }
    assert!(out.files.iter().any(|f| f.ends_with("ch5_beta.png")));
    let svg = std::fs::read_to_string(plots.join("ch4_blp.svg")).unwrap();
    assert!(svg.contains("spmv") && svg.contains("BLP Optimized"));
}

#[test]
fn a_panicking_job_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.studies = vec![Study::Ch4];
    let b = Synthetic {
        panic_oracle: Some(Oracle::BlpIdeal),
        ..Default::default()
    };
    let out = eval::run(&o, &b).expect("the evaluation survives a panicking job");
    let recs = &out.output.records;
    assert_eq!(recs.len(), 30);
    for r in recs {
        if r.version == "blp-ideal" {
            match &r.status {
                Status::Failed(why) => assert!(why.contains("panicked"), "{why}"),
                s => panic!("{}: {s:?}", r.bench),
            }
        } else {
            assert_eq!(r.status, Status::Ok, "{} {}", r.bench, r.version);
        }
    }
}

#[test]
fn traces_are_deleted_after_simulation_and_regenerated_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = opts(dir.path());
    o.studies = vec![Study::Ch4];
    o.only_versions = vec!["original".into()];
    let b = Synthetic::default();
    eval::run(&o, &b).unwrap();
    let traces: Vec<_> = walk(&dir.path().join("out"))
        .into_iter()
        .filter(|p| p.ends_with("trace.bin"))
        .collect();
    assert!(traces.is_empty(), "{traces:?}");
    // A new version on the cached Original runs: the runs come from the cache,
    // their traces are regenerated (one program run per benchmark) and deleted.
    o.only_versions = vec!["original".into(), "blp-ideal".into()];
    let b2 = Synthetic::default();
    let out = eval::run(&o, &b2).unwrap();
    assert_eq!(out.output.job_counts["run"], (0, 2));
    assert_eq!(b2.runs.load(Ordering::SeqCst), 2);
    assert_eq!(b2.sims.load(Ordering::SeqCst), 2);
    assert!(out.output.records.iter().all(|r| r.status == Status::Ok));
    // With keep_traces they stay.
    o.keep_traces = true;
    o.cache = Some(dir.path().join("other-cache"));
    eval::run(&o, &Synthetic::default()).unwrap();
    assert_eq!(
        walk(&dir.path().join("other-cache"))
            .into_iter()
            .filter(|p| p.ends_with("trace.bin"))
            .count(),
        2
    );
}

fn walk(p: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd.flatten() {
            let q = e.path();
            if q.is_dir() {
                out.extend(walk(&q));
            } else {
                out.push(q);
            }
        }
    }
    out
}

/// Issue #38, item 7: unknown benchmark or version names and a cache that is
/// a file are errors naming what is valid, before anything runs (before: an
/// empty report, or every cell failed, and exit status 0).
#[test]
fn unknown_names_and_a_file_cache_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let b = Synthetic::default();
    let mut o = opts(dir.path());
    o.only_benches = vec!["spmv".into(), "nosuch".into()];
    match eval::run(&o, &b) {
        Err(EvalError::Usage(m)) => assert!(
            m.starts_with("unknown benchmark nosuch (valid: ")
                && m.contains("moldyn")
                && m.contains("mxm"),
            "{m}"
        ),
        r => panic!("{:?}", r.map(|o| o.output.records.len())),
    }
    let mut o = opts(dir.path());
    o.only_versions = vec!["original".into(), "fastest".into()];
    match eval::run(&o, &b) {
        Err(EvalError::Usage(m)) => assert!(
            m.starts_with("unknown version fastest (valid: ") && m.contains("blp-opt"),
            "{m}"
        ),
        r => panic!("{:?}", r.map(|o| o.output.records.len())),
    }
    let file = dir.path().join("cache-file");
    std::fs::write(&file, "").unwrap();
    let mut o = opts(dir.path());
    o.cache = Some(file.clone());
    match eval::run(&o, &b) {
        Err(EvalError::Usage(m)) => assert_eq!(
            m,
            format!("cache {} exists and is not a directory", file.display())
        ),
        r => panic!("{:?}", r.map(|o| o.output.records.len())),
    }
    assert_eq!(b.builds.load(Ordering::SeqCst), 0, "nothing ran");
}
