//! Planning and executing the evaluation: version matrix x benchmarks (x sweep
//! points) → a job graph of builds, traced runs and simulations, deduplicated,
//! cached by content hash and run in parallel.
//!
//! The graph has three layers; every edge goes from a layer to the next, so the
//! engine runs it layer by layer, each layer in parallel on a rayon pool of
//! `jobs` threads. Identical jobs are merged before running: PAR-BS, TCM, MLP
//! Ideal and BLP Ideal all consume the Original trace, and a sweep point equal to
//! the default configuration reuses the default runs. Runs and simulations go
//! benchmark by benchmark (builds all at once first): a benchmark's checksums are
//! compared as soon as its runs finish, before its simulations, so a wrong
//! program aborts the evaluation early with the benchmark and version named, and
//! its traces are deleted once simulated (unless `keep_traces`), so disk use is
//! bounded by one benchmark's traces.

use super::backend::*;
use super::cache::{Cache, ContentHasher};
use super::honesty;
use super::versions::{self, Knob, Oracle, Study, Sweep, Version};
use super::{EvalError, EvalOptions, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::IsTerminal;

/// A point of a sensitivity sweep.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Sweep id (`banks`, `llc`, ...).
    pub sweep: String,
    /// Value of the knob.
    pub value: i64,
}

/// Outcome of one cell of the matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", content = "why", rename_all = "snake_case")]
pub enum Status {
    /// Built, ran, simulated.
    Ok,
    /// An ingredient does not exist.
    NotAvailable(String),
    /// A stage failed.
    Failed(String),
}

/// One cell: a benchmark under a version (at a sweep point).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Study.
    pub study: Study,
    /// Benchmark name.
    pub bench: String,
    /// Dissertation name of the benchmark, if any.
    pub paper_name: Option<String>,
    /// Version id.
    pub version: String,
    /// Version label.
    pub label: String,
    /// Sweep point (`None` for the main study).
    pub point: Option<SweepPoint>,
    /// Machine label.
    pub machine: String,
    /// Outcome.
    pub status: Status,
    /// Printed checksum.
    pub checksum: Option<String>,
    /// Trace records.
    pub records: Option<u64>,
    /// Simulation statistics.
    pub stats: Option<SimStats>,
    /// Runtime statistics.
    pub runtime: Option<RuntimeStats>,
    /// Cache key of the simulation (where its artifacts live).
    pub sim_key: Option<String>,
}

/// A planned cell.
#[derive(Debug, Clone)]
struct Cell {
    study: Study,
    bench: BenchInfo,
    version: Version,
    point: Option<SweepPoint>,
    job: std::result::Result<SimJob, StageError>,
}

/// What the engine produced.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EngineOutput {
    /// Every cell.
    pub records: Vec<Record>,
    /// Studies or sweeps that could not be planned at all, with the reason.
    pub unavailable: Vec<(String, String)>,
    /// Benchmarks per study.
    pub benchmarks: BTreeMap<String, Vec<BenchInfo>>,
    /// Jobs run vs. taken from the cache, per stage.
    pub job_counts: BTreeMap<String, (usize, usize)>,
    /// Checksum comparisons made.
    pub checksums: honesty::ChecksumCount,
    /// The backend's notes on how the stages were performed.
    pub notes: Vec<String>,
}

fn sweep_job(base: &SimJob, sweep: &Sweep, value: i64) -> SimJob {
    let mut job = base.clone();
    match sweep.knob {
        Knob::Machine { path } => {
            job.machine = job.machine.with(path, value);
            job.run.machine = job.machine.clone();
        }
        Knob::MachinePercent { path } => {
            // An unreadable field leaves the machine as is; check_knob has
            // already vetted the path on the preset.
            if let Ok(base) = super::machine::int_field(&job.machine, path) {
                job.machine = job.machine.with(path, base * value / 100);
                job.run.machine = job.machine.clone();
            }
        }
        Knob::Cores => {
            job.run.cores = Some(value as u32);
            job.machine = job.machine.with("core.count", value);
            job.run.machine = job.machine.clone();
        }
        Knob::SlabIters => {
            let p = &job.run.build.pipeline;
            if let Some(i) = p.find("insert-inspector<") {
                let at = i + "insert-inspector<".len();
                job.run.build.pipeline = format!("{}slab={value};{}", &p[..at], &p[at..]);
            } else if p.contains("insert-inspector") {
                job.run.build.pipeline = p.replacen(
                    "insert-inspector",
                    &format!("insert-inspector<slab={value}>"),
                    1,
                );
            }
        }
        Knob::InputScale => job.run.input_scale = value,
    }
    job
}

/// `--bench` and `--versions` must name known benchmarks and versions of the
/// selected studies: an unknown name is an error listing the valid ones (an
/// empty report that exits 0 would look like success).
fn check_selection(opts: &EvalOptions, backend: &dyn Backend) -> Result<()> {
    let mut benches = std::collections::BTreeSet::new();
    let mut ids = std::collections::BTreeSet::new();
    for &study in &opts.studies {
        if let Ok(b) = backend.benchmarks(study, opts.size_of(study)) {
            benches.extend(b.into_iter().map(|b| b.name));
        }
        ids.extend(
            versions::versions(study)
                .into_iter()
                .map(|v| v.id.to_string()),
        );
    }
    let unknown = |asked: &[String], known: &std::collections::BTreeSet<String>| {
        asked
            .iter()
            .filter(|a| !known.contains(*a))
            .cloned()
            .collect::<Vec<_>>()
    };
    let bad = unknown(&opts.only_benches, &benches);
    if !bad.is_empty() && !benches.is_empty() {
        return Err(EvalError::Usage(format!(
            "unknown benchmark {} (valid: {})",
            bad.join(", "),
            benches.into_iter().collect::<Vec<_>>().join(", ")
        )));
    }
    let bad = unknown(&opts.only_versions, &ids);
    if !bad.is_empty() {
        return Err(EvalError::Usage(format!(
            "unknown version {} (valid: {})",
            bad.join(", "),
            ids.into_iter().collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(())
}

/// The cache directory must be a directory (created if missing): a file there
/// would fail every cell.
fn check_cache_dir(dir: &std::path::Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return Err(EvalError::Usage(format!(
            "cache {} exists and is not a directory",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        EvalError::Usage(format!(
            "cannot create the cache directory {}: {e}",
            dir.display()
        ))
    })
}

fn plan(opts: &EvalOptions, backend: &dyn Backend, out: &mut EngineOutput) -> Vec<Cell> {
    let mut cells = Vec::new();
    for &study in &opts.studies {
        let benches = match backend.benchmarks(study, opts.size_of(study)) {
            Ok(b) => b,
            Err(e) => {
                out.unavailable
                    .push((study.name().to_string(), e.to_string()));
                continue;
            }
        };
        let benches: Vec<BenchInfo> = benches
            .into_iter()
            .filter(|b| opts.only_benches.is_empty() || opts.only_benches.contains(&b.name))
            .filter(|b| {
                !opts.quick_benchmarks
                    || versions::quick_benchmarks(study)
                        .map_or(true, |q| q.contains(&b.name.as_str()))
            })
            .collect();
        out.benchmarks
            .insert(study.name().to_string(), benches.clone());
        let versions: Vec<Version> = versions::versions(study)
            .into_iter()
            .filter(|v| !opts.quick_versions || v.quick)
            .filter(|v| {
                opts.only_versions.is_empty() || opts.only_versions.iter().any(|o| o == v.id)
            })
            .collect();
        let machine = opts.machine(study);
        let runtime_env = super::backend::runtime_env();
        for version in &versions {
            let avail = backend.check_version(version);
            for bench in &benches {
                let job = avail.clone().map(|()| SimJob {
                    run: RunJob {
                        build: BuildJob {
                            bench: bench.name.clone(),
                            pipeline: version.pipeline.into(),
                        },
                        size: opts.size_of(study),
                        input_scale: opts.input_scale,
                        reorder: version.reorder,
                        cores: None,
                        machine: machine.clone(),
                        env: versions::run_env(&runtime_env, version),
                    },
                    machine: machine.clone(),
                    scheduler: version.scheduler,
                    oracle: version.oracle,
                    replicas: opts.replicas.max(1),
                });
                cells.push(Cell {
                    study,
                    bench: bench.clone(),
                    version: version.clone(),
                    point: None,
                    job,
                });
            }
        }
        if study == Study::Ch4 && opts.sweeps {
            let pair: Vec<Version> = versions::ch4_versions()
                .into_iter()
                .filter(|v| v.id == "original" || v.id == "blp-opt")
                .collect();
            for sweep in versions::sweeps() {
                if let Err(e) = backend.check_knob(study.machine(), &sweep.knob) {
                    out.unavailable
                        .push((format!("sweep {}", sweep.id), e.to_string()));
                    continue;
                }
                for &value in &sweep.values {
                    for version in &pair {
                        let avail = backend.check_version(version);
                        for bench in benches.iter().filter(|b| {
                            sweep.benchmarks.is_empty()
                                || sweep.benchmarks.contains(&b.name.as_str())
                        }) {
                            let size = if sweep.main_size {
                                opts.size_of(study)
                            } else {
                                opts.sweep_size
                            };
                            // The machine of the sweep's own input size: quick
                            // inputs on the faithful caches would never leave the LLC.
                            let machine = opts.machine_at(study, size);
                            let base = SimJob {
                                run: RunJob {
                                    build: BuildJob {
                                        bench: bench.name.clone(),
                                        pipeline: version.pipeline.into(),
                                    },
                                    size,
                                    input_scale: 1,
                                    reorder: None,
                                    cores: None,
                                    machine: machine.clone(),
                                    env: runtime_env.clone(),
                                },
                                machine,
                                scheduler: version.scheduler,
                                oracle: Oracle::None,
                                replicas: opts.replicas.max(1),
                            };
                            let job = avail.clone().map(|()| sweep_job(&base, &sweep, value));
                            cells.push(Cell {
                                study,
                                bench: bench.clone(),
                                version: version.clone(),
                                point: Some(SweepPoint {
                                    sweep: sweep.id.to_string(),
                                    value,
                                }),
                                job,
                            });
                        }
                    }
                }
            }
        }
    }
    cells
}

/// Keys of the three layers.
/// One benchmark's run jobs and simulation jobs, with their cache keys.
type RunSimJobs = (Vec<(RunJob, String)>, Vec<(SimJob, String)>);

struct Keys {
    build: BTreeMap<BuildJob, String>,
    run: BTreeMap<RunJob, String>,
    sim: BTreeMap<SimJob, String>,
}

fn keys(cells: &[Cell], fingerprint: &str) -> Keys {
    let mut k = Keys {
        build: BTreeMap::new(),
        run: BTreeMap::new(),
        sim: BTreeMap::new(),
    };
    for c in cells {
        let Ok(job) = &c.job else { continue };
        let b = k
            .build
            .entry(job.run.build.clone())
            .or_insert_with(|| {
                ContentHasher::new()
                    .field("build")
                    .field(fingerprint)
                    .field(&c.bench.content_hash)
                    .json(&job.run.build)
                    .hex()
            })
            .clone();
        let r = k
            .run
            .entry(job.run.clone())
            .or_insert_with(|| {
                ContentHasher::new()
                    .field("run")
                    .field(&b)
                    .json(&job.run)
                    .hex()
            })
            .clone();
        k.sim.entry(job.clone()).or_insert_with(|| {
            ContentHasher::new()
                .field("sim")
                .field(&r)
                .field(fingerprint)
                .json(job)
                .hex()
        });
    }
    k
}

fn progress(opts: &EvalOptions, total: usize) -> ProgressBar {
    let pb = ProgressBar::new(total as u64);
    if opts.quiet || !std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    } else {
        pb.set_draw_target(ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} {msg}")
        {
            pb.set_style(style);
        }
    }
    pb
}

/// Runs one layer: cached entries are loaded, the rest computed in parallel.
fn layer<J, T, F>(
    pool: &rayon::ThreadPool,
    cache: &Cache,
    stage: &'static str,
    jobs: Vec<(J, String)>,
    pb: &ProgressBar,
    counts: &mut BTreeMap<String, (usize, usize)>,
    f: F,
) -> BTreeMap<J, StageResult<T>>
where
    J: Ord + Send + Sync + Clone,
    T: Serialize + for<'de> Deserialize<'de> + Send,
    F: Fn(&J, &std::path::Path) -> StageResult<T> + Sync,
{
    let results: Vec<(J, StageResult<T>, bool)> = pool.install(|| {
        jobs.into_par_iter()
            .map(|(job, key)| {
                pb.set_message(stage);
                if let Some(hit) = cache.load::<StageResult<T>>(stage, &key) {
                    pb.inc(1);
                    return (job, hit, true);
                }
                // Interrupted: start nothing more (the watcher ends the run).
                let fresh = if super::interrupt::signalled() {
                    Err(std::io::Error::other("interrupted"))
                } else {
                    cache.fresh_dir(stage, &key)
                };
                let res = match fresh {
                    // A panic in one job (a simulator invariant, a bug) fails that
                    // job, named in the report, instead of the whole evaluation.
                    Ok(dir) => {
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&job, &dir)))
                            .unwrap_or_else(|p| {
                                let msg = p
                                    .downcast_ref::<String>()
                                    .cloned()
                                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                                    .unwrap_or_else(|| "unknown panic payload".into());
                                Err(StageError::Failed(format!("{stage} stage panicked: {msg}")))
                            })
                    }
                    Err(e) => Err(StageError::Failed(format!("cache directory: {e}"))),
                };
                // Failures are not cached (they may be transient); unavailable
                // ingredients and successes are.
                if !matches!(res, Err(StageError::Failed(_))) {
                    if let Err(e) = cache.store(stage, &key, &res) {
                        pb.println(format!("warning: could not store {stage} cache entry: {e}"));
                    }
                }
                pb.inc(1);
                (job, res, false)
            })
            .collect()
    });
    let hits = results.iter().filter(|r| r.2).count();
    let entry = counts.entry(stage.to_string()).or_default();
    entry.0 += results.len() - hits;
    entry.1 += hits;
    results.into_iter().map(|(j, r, _)| (j, r)).collect()
}

/// Plans and runs the evaluation.
pub fn execute(opts: &EvalOptions, backend: &dyn Backend) -> Result<EngineOutput> {
    let mut out = EngineOutput {
        records: Vec::new(),
        unavailable: Vec::new(),
        benchmarks: BTreeMap::new(),
        job_counts: BTreeMap::new(),
        checksums: honesty::ChecksumCount::default(),
        notes: backend.notes(),
    };
    check_selection(opts, backend)?;
    check_cache_dir(&opts.cache_dir())?;
    let cells = plan(opts, backend, &mut out);
    let fingerprint = backend.fingerprint();
    let k = keys(&cells, &fingerprint);
    let cache = Cache::new(opts.cache_dir());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.jobs.max(1))
        .build()
        .map_err(|e| EvalError::Io(std::io::Error::other(e)))?;
    let pb = progress(opts, k.build.len() + k.run.len() + k.sim.len());

    let builds = layer(
        &pool,
        &cache,
        "build",
        k.build
            .iter()
            .map(|(j, key)| (j.clone(), key.clone()))
            .collect(),
        &pb,
        &mut out.job_counts,
        |job, dir| backend.build(job, dir),
    );
    // Runs and simulations go benchmark by benchmark, so at most one
    // benchmark's traces are on disk at a time (full-size traces are hundreds
    // of MB each); a trace is deleted once its simulations are done unless
    // `keep_traces`, and regenerated if a later simulation needs it.
    let mut groups: BTreeMap<&str, RunSimJobs> = BTreeMap::new();
    for (j, key) in &k.run {
        groups
            .entry(j.build.bench.as_str())
            .or_default()
            .0
            .push((j.clone(), key.clone()));
    }
    for (j, key) in &k.sim {
        groups
            .entry(j.run.build.bench.as_str())
            .or_default()
            .1
            .push((j.clone(), key.clone()));
    }
    let mut runs: BTreeMap<RunJob, StageResult<RunOut>> = BTreeMap::new();
    let mut sims: BTreeMap<SimJob, StageResult<SimStats>> = BTreeMap::new();
    for (bench, (run_jobs, sim_jobs)) in groups {
        let group_runs = layer(
            &pool,
            &cache,
            "run",
            run_jobs,
            &pb,
            &mut out.job_counts,
            |job: &RunJob, dir| match builds.get(&job.build) {
                Some(Ok(b)) => backend.run(job, b, dir),
                Some(Err(e)) => Err(e.clone()),
                None => Err(StageError::Failed(
                    "build job missing from the graph".into(),
                )),
            },
        );

        // Checksums before this benchmark's simulations: abort on the first
        // mismatch.
        let checks: Vec<honesty::ChecksumRun> = cells
            .iter()
            .filter(|c| c.bench.name == bench)
            .filter_map(|c| {
                let job = c.job.as_ref().ok()?;
                let run = group_runs.get(&job.run)?.as_ref().ok()?;
                Some(honesty::ChecksumRun {
                    study: c.study,
                    bench: c.bench.name.clone(),
                    version: c.version.id.to_string(),
                    baseline: c.version.is_baseline(),
                    reordered: job.run.reorder.is_some(),
                    size: job.run.size,
                    input_scale: job.run.input_scale,
                    point: c.point.clone(),
                    checksum: run.checksum.clone(),
                })
            })
            .collect();
        if opts.check_checksums {
            let n = honesty::check_checksums(&checks)?;
            out.checksums.checked += n.checked;
            out.checksums.unchecked_reordered += n.unchecked_reordered;
        }

        let group_sims = layer(
            &pool,
            &cache,
            "sim",
            sim_jobs,
            &pb,
            &mut out.job_counts,
            |job: &SimJob, dir| match group_runs.get(&job.run) {
                Some(Ok(r)) if r.trace.is_file() => backend.simulate(job, r, dir),
                Some(Ok(r)) => {
                    // The trace was deleted after earlier simulations: run the
                    // program again (reproducible: same checksum, same trace).
                    let build = match builds.get(&job.run.build) {
                        Some(Ok(b)) => b,
                        _ => return Err(StageError::Failed("build missing".into())),
                    };
                    let again = backend.run(&job.run, build, dir)?;
                    if again.checksum != r.checksum || again.records != r.records {
                        return Err(StageError::Failed(format!(
                            "regenerating the trace gave checksum {} and {} records, the cached run {} and {}",
                            again.checksum, again.records, r.checksum, r.records
                        )));
                    }
                    let res = backend.simulate(job, &again, dir);
                    let _ = std::fs::remove_file(&again.trace);
                    res
                }
                Some(Err(e)) => Err(e.clone()),
                None => Err(StageError::Failed("run job missing from the graph".into())),
            },
        );
        if !opts.keep_traces {
            // A paper-size run's replay file (`eval::stream`) is a few bytes and
            // stands for no trace on disk: kept, so later simulations need not
            // rerun the program first.
            for r in group_runs.values().flatten() {
                if r.trace.file_name() != Some(std::ffi::OsStr::new(super::stream::REPLAY_FILE)) {
                    let _ = std::fs::remove_file(&r.trace);
                }
            }
        }
        runs.extend(group_runs);
        sims.extend(group_sims);
    }
    pb.finish_and_clear();

    for c in cells {
        let mut rec = Record {
            study: c.study,
            bench: c.bench.name.clone(),
            paper_name: c.bench.paper_name.clone(),
            version: c.version.id.to_string(),
            label: c.version.label.to_string(),
            point: c.point.clone(),
            machine: c.version.machine().to_string(),
            status: Status::Ok,
            checksum: None,
            records: None,
            stats: None,
            runtime: None,
            sim_key: None,
        };
        match &c.job {
            Err(e) => rec.status = status_of(e),
            Ok(job) => {
                rec.machine = job.machine.label();
                if let Some(Ok(r)) = runs.get(&job.run) {
                    rec.checksum = Some(r.checksum.clone());
                    rec.records = Some(r.records);
                    rec.runtime = Some(r.runtime.clone());
                }
                rec.sim_key = k.sim.get(job).cloned();
                match sims.get(job) {
                    Some(Ok(s)) => rec.stats = Some(s.clone()),
                    Some(Err(e)) => rec.status = status_of(e),
                    None => {
                        rec.status = Status::Failed("simulation job missing from the graph".into())
                    }
                }
            }
        }
        out.records.push(rec);
    }
    Ok(out)
}

fn status_of(e: &StageError) -> Status {
    match e {
        StageError::Unavailable(w) => Status::NotAvailable(w.clone()),
        StageError::Failed(w) => Status::Failed(w.clone()),
    }
}
