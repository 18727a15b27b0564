//! Running the GPU studies: every selected study's cells at one size,
//! deduplicated and cached by content hash in the CPU studies' cache (stage
//! `gpu`, key = the binary's fingerprint + the cell's [`RunSpec`]), simulated in
//! parallel on `jobs` threads with the CPU studies' progress bar, then the
//! same-work check: every variant of a workload at one input must perform the
//! same lane-level memory operations as the first (the GPU counterpart of the
//! CPU studies' checksum check, `honesty.rs`); a mismatch aborts the
//! evaluation with the cells named. Outputs are written by
//! [`super::gpu_report`] from the [`GpuOutput`] alone.

use super::cache::{Cache, ContentHasher};
use super::engine::Status;
use super::gpu_study::{self, GpuRecord, GpuSize, Measured, RunSpec};
use super::{EvalError, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;

/// Cache stage of the GPU cells.
pub const STAGE: &str = "gpu";

/// What to run.
#[derive(Debug, Clone)]
pub struct GpuEvalOptions {
    /// Output directory (`records.json`, `results.md`, `plots/`).
    pub out: PathBuf,
    /// Size of the studies.
    pub size: GpuSize,
    /// Study ids (`gpu_study::ids()`).
    pub studies: Vec<String>,
    /// Parallel jobs.
    pub jobs: usize,
    /// No progress bar or lines.
    pub quiet: bool,
    /// Cache directory.
    pub cache: PathBuf,
    /// The command line, for the report.
    pub command: String,
}

/// Everything a GPU evaluation produced (`records.json`); the report, CSV and
/// plots are computed from it alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuOutput {
    /// Command that produced it.
    pub command: String,
    /// Size.
    pub size: GpuSize,
    /// Studies run.
    pub studies: Vec<String>,
    /// Parallel jobs.
    pub jobs: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Cells simulated now.
    pub cells_run: usize,
    /// Cells taken from the cache.
    pub cells_cached: usize,
    /// Lane memory operations compared by the same-work check.
    pub work_checked: usize,
    /// Every cell, in study and cell order.
    pub records: Vec<GpuRecord>,
}

/// The binary's fingerprint (cache entries of another build are misses).
fn fingerprint() -> String {
    let mut h = ContentHasher::new();
    if let Ok(exe) = std::env::current_exe() {
        let _ = h.file(&exe);
    }
    h.hex()
}

fn key(fp: &str, spec: &RunSpec) -> String {
    ContentHasher::new().field(STAGE).field(fp).json(spec).hex()
}

fn progress(quiet: bool, total: usize) -> ProgressBar {
    let pb = ProgressBar::new(total as u64);
    if quiet || !std::io::stderr().is_terminal() {
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

/// Runs one spec, a panic failing the cell only.
fn run_one(spec: &RunSpec) -> std::result::Result<Measured, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| gpu_study_run(spec))).unwrap_or_else(
        |p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic payload".into());
            Err(format!("simulation panicked: {msg}"))
        },
    )
}

fn gpu_study_run(spec: &RunSpec) -> std::result::Result<Measured, String> {
    super::gpu_run::simulate(spec).map_err(|e| e.to_string())
}

/// Plans, runs (or loads) and checks every cell.
pub fn execute(o: &GpuEvalOptions) -> Result<GpuOutput> {
    let start = std::time::Instant::now();
    let mut cells = Vec::new();
    for id in &o.studies {
        let s = gpu_study::study(id).ok_or_else(|| {
            EvalError::Usage(format!(
                "unknown GPU study `{id}` (valid: {})",
                gpu_study::ids().join(", ")
            ))
        })?;
        for c in s.cells(o.size) {
            cells.push((s.id(), c));
        }
    }
    let fp = fingerprint();
    let mut unique: BTreeMap<String, RunSpec> = BTreeMap::new();
    let keys: Vec<String> = cells
        .iter()
        .map(|(_, c)| {
            let k = key(&fp, &c.spec);
            unique.entry(k.clone()).or_insert_with(|| c.spec.clone());
            k
        })
        .collect();
    let cache = Cache::new(&o.cache);
    std::fs::create_dir_all(&o.cache)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(o.jobs.max(1))
        .build()
        .map_err(|e| EvalError::Io(std::io::Error::other(e)))?;
    let pb = progress(o.quiet, unique.len());
    let lines = !o.quiet && !std::io::stderr().is_terminal();
    let total = unique.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(String, std::result::Result<Measured, String>, bool)> = pool.install(|| {
        unique
            .into_par_iter()
            .map(|(k, spec)| {
                pb.set_message(STAGE);
                if let Some(hit) = cache.load::<Measured>(STAGE, &k) {
                    pb.inc(1);
                    done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    return (k, Ok(hit), true);
                }
                let res = if super::interrupt::signalled() {
                    Err("interrupted".to_string())
                } else {
                    run_one(&spec)
                };
                if let Ok(m) = &res {
                    if let Err(e) = cache.store(STAGE, &k, m) {
                        pb.println(format!("warning: could not store gpu cache entry: {e}"));
                    }
                }
                pb.inc(1);
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if lines {
                    let what = match &res {
                        Ok(m) => format!("{} cycles, {:.1} s", m.cycles, m.seconds),
                        Err(e) => format!("failed: {e}"),
                    };
                    eprintln!(
                        "gpu [{n}/{total}] {} {}: {what}",
                        spec.machine,
                        describe(&spec)
                    );
                }
                (k, res, false)
            })
            .collect()
    });
    pb.finish_and_clear();
    let cached = results.iter().filter(|r| r.2).count();
    let by_key: BTreeMap<String, std::result::Result<Measured, String>> =
        results.into_iter().map(|(k, r, _)| (k, r)).collect();
    let records: Vec<GpuRecord> = cells
        .into_iter()
        .zip(keys)
        .map(|((study, c), k)| {
            let (status, m) = match by_key.get(&k) {
                Some(Ok(m)) => (Status::Ok, Some(m.clone())),
                Some(Err(e)) => (Status::Failed(e.clone()), None),
                None => (Status::Failed("cell missing from the plan".into()), None),
            };
            GpuRecord {
                study: study.into(),
                bench: c.bench,
                input: c.input,
                group: c.group,
                variant: c.variant,
                spec: c.spec,
                key: k,
                status,
                m,
            }
        })
        .collect();
    let work_checked = check_same_work(&records)?;
    Ok(GpuOutput {
        command: o.command.clone(),
        size: o.size,
        studies: o.studies.clone(),
        jobs: o.jobs,
        seconds: start.elapsed().as_secs_f64(),
        cells_run: by_key.len() - cached,
        cells_cached: cached,
        work_checked,
        records,
    })
}

/// Runs the GPU studies and writes their outputs under `o.out`.
pub fn run(o: &GpuEvalOptions) -> Result<(GpuOutput, Vec<PathBuf>)> {
    let out = execute(o)?;
    let files = super::gpu_report::write(&o.out, &out)?;
    Ok((out, files))
}

/// This process's command line as the report prints it (`weft eval ...`).
pub fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    format!("weft {}", args.join(" ")).trim_end().to_string()
}

/// A cell's options in `weft gpusim` spelling.
pub fn describe(spec: &RunSpec) -> String {
    let mut v = vec![match &spec.workload {
        gpu_study::WorkloadSpec::Shipped {
            app,
            graph,
            defines,
        } => {
            let mut d = match graph {
                Some((s, e)) => format!("{app} (R-MAT scale {s}, {e} edges)"),
                None => app.clone(),
            };
            for (k, v) in defines {
                d.push_str(&format!(" -D {k}={v}"));
            }
            d
        }
        gpu_study::WorkloadSpec::Ipaws { name } => name.clone(),
        gpu_study::WorkloadSpec::Sched { name, parents } => match parents {
            Some(n) => format!("{name} (NP = {n})"),
            None => name.clone(),
        },
        gpu_study::WorkloadSpec::Fgtb { apps, vertices, .. } => {
            format!("{} (V={vertices})", apps.join("+"))
        }
    }];
    for (flag, x) in [
        ("--dp", &spec.dp),
        ("--tb-sched", &spec.tb_sched),
        ("--warp-sched", &spec.warp_sched),
        ("--tb-manage", &spec.tb_manage),
        ("--kernel-order", &spec.kernel_order),
    ] {
        if let Some(x) = x {
            v.push(format!("{flag} {x}"));
        }
    }
    if let Some(n) = spec.edits.agt_prefetch {
        v.push(format!("(agt_prefetch = {n})"));
    }
    v.join(" ")
}

/// The same-work check: within a (study, workload, input), every finished
/// variant did the first one's lane memory operations. Returns the number of
/// runs compared.
pub fn check_same_work(records: &[GpuRecord]) -> Result<usize> {
    let mut first: BTreeMap<(&str, &str, &str), &GpuRecord> = BTreeMap::new();
    let mut n = 0;
    for r in records {
        let Some(m) = &r.m else { continue };
        let k = (r.study.as_str(), r.bench.as_str(), r.input.as_str());
        match first.get(&k) {
            None => {
                first.insert(k, r);
            }
            Some(f) => {
                let w = f.m.as_ref().map_or(0, |x| x.work);
                if m.work != w {
                    return Err(EvalError::WorkMismatch(format!(
                        "GPU same-work check: {} `{}`{} {}/{} did {} lane memory operations, but {}/{} did {}: the variants do not do the same work",
                        r.study,
                        r.bench,
                        if r.input.is_empty() { String::new() } else { format!(" ({})", r.input) },
                        r.group,
                        r.variant,
                        m.work,
                        f.group,
                        f.variant,
                        w
                    )));
                }
                n += 1;
            }
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::gpu_study::WorkloadSpec;

    fn rec(variant: &str, work: u64) -> GpuRecord {
        let spec = RunSpec::new("k20c-dtbl", WorkloadSpec::shipped("bfs", None));
        GpuRecord {
            study: "dp".into(),
            bench: "bfs".into(),
            input: String::new(),
            group: "g".into(),
            variant: variant.into(),
            spec,
            key: String::new(),
            status: Status::Ok,
            m: Some(Measured {
                cycles: 1,
                ipc: 1.0,
                app_ipc: None,
                l1_hit_rate: 0.0,
                l2_hit_rate: 0.0,
                row_hit_rate: 0.0,
                avg_mem_latency: 0.0,
                occupancy: 0.0,
                work,
                l2_requests: 0,
                extra: BTreeMap::new(),
                seconds: 0.0,
            }),
        }
    }

    #[test]
    fn same_work_is_checked_per_workload() {
        assert_eq!(
            check_same_work(&[rec("a", 5), rec("b", 5), rec("c", 5)]).unwrap(),
            2
        );
        let err = check_same_work(&[rec("a", 5), rec("b", 6)])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("g/b did 6") && err.contains("g/a did 5"),
            "{err}"
        );
        let mut other = rec("b", 6);
        other.input = "V=1".into();
        assert_eq!(check_same_work(&[rec("a", 5), other]).unwrap(), 0);
    }

    #[test]
    fn describe_spells_gpusim_flags() {
        let s = RunSpec::new("k20-spawn", WorkloadSpec::shipped("bfs", Some((11, 16384))))
            .dp(Some("spawn"))
            .tb(Some("laser"));
        assert_eq!(
            describe(&s),
            "bfs (R-MAT scale 11, 16384 edges) --dp spawn --tb-sched laser"
        );
    }
}
