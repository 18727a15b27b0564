//! The three stages the harness drives (build, traced run, simulation) and the
//! data passed between them.
//!
//! The harness itself (`engine`) only plans, caches, parallelises and checks; a
//! [`Backend`] performs the stages. [`crate::eval::weft::WeftBackend`] wires
//! them to the real crates (benchmark registry, `weft-passes`, the runtime's
//! trace mode, `weft-memsim`). Keeping the stages behind a trait lets the
//! harness's own logic (deduplication, caching, checksum checks, averages) be
//! tested exactly on a small synthetic backend in `tests/`.
//!
//! A stage that cannot run because one of its ingredients does not exist (a pass
//! not registered, a scheduler or oracle the simulator does not offer, a config
//! field a preset does not have) returns [`StageError::Unavailable`] with the
//! reason; the report shows it as "not available: <why>". It is never replaced by
//! a made-up number.

use super::versions::{Knob, MemScheduler, Oracle, Reorder, Study, Version};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Input size class of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Size {
    /// Smallest inputs, for CI tests (seconds).
    Tiny,
    /// `--quick` inputs.
    Quick,
    /// Full evaluation inputs (working set >= 4x the simulated LLC).
    Full,
    /// Table 4.1's input sizes (0.2-1.4 GB) or the largest that fits
    /// (`eval::inputs`), streamed into sampled simulation (`eval::stream`).
    Paper,
}

/// A benchmark as the harness sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchInfo {
    /// Registry name (`hpcg`, `mxm`).
    pub name: String,
    /// Name in the dissertation's figures if it is one of its benchmarks.
    pub paper_name: Option<String>,
    /// Study it belongs to.
    pub study: Study,
    /// Input description and working-set size (for the report).
    pub input: String,
    /// Hash of everything the benchmark's output depends on besides the
    /// toolchain: its C sources and input files.
    pub content_hash: String,
}

/// A machine: a preset plus integer overrides of dotted TOML paths.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MachineSpec {
    /// Preset name (`table4.2`).
    pub preset: String,
    /// Overrides, sorted by path.
    pub overrides: Vec<(String, i64)>,
}

impl MachineSpec {
    /// A preset without overrides.
    pub fn preset(name: &str) -> Self {
        MachineSpec {
            preset: name.to_string(),
            overrides: Vec::new(),
        }
    }
    /// With one more override (kept sorted).
    pub fn with(mut self, path: &str, value: i64) -> Self {
        self.overrides.retain(|(p, _)| p != path);
        self.overrides.push((path.to_string(), value));
        self.overrides.sort();
        self
    }
    /// Short label (`table4.2[dram.row_bytes=1024]`).
    pub fn label(&self) -> String {
        if self.overrides.is_empty() {
            return self.preset.clone();
        }
        let o: Vec<String> = self
            .overrides
            .iter()
            .map(|(p, v)| format!("{p}={v}"))
            .collect();
        format!("{}[{}]", self.preset, o.join(","))
    }
}

/// Build a benchmark with a pipeline.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct BuildJob {
    /// Benchmark name.
    pub bench: String,
    /// Pass pipeline.
    pub pipeline: String,
}

/// Run a built benchmark in trace mode.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RunJob {
    /// The build it runs.
    pub build: BuildJob,
    /// Input size class.
    pub size: Size,
    /// Input scale (1 = the size class's default; Fig. 4.16 sweep).
    pub input_scale: i64,
    /// Input data-layout transformation.
    pub reorder: Option<Reorder>,
    /// Virtual cores (`None` = the machine's core count).
    pub cores: Option<u32>,
    /// Machine the runtime computes bank maps for.
    pub machine: MachineSpec,
    /// Runtime options passed to the program (name, value), from
    /// [`RUNTIME_ENV`]; part of the cache key (omitted when empty, so the
    /// keys of runs without options stay as they were).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<(String, String)>,
}

/// Runtime environment variables that change the schedules a traced run
/// builds. `weft eval` passes those it was started with to every run (and
/// removes them otherwise), so they take effect and enter the cache key.
pub const RUNTIME_ENV: &[&str] = &[
    "WEFT_BLP_STAGGER",
    "WEFT_BLP_TIE",
    "WEFT_BLP_WINDOW",
    "WEFT_MISS_FILTER",
    "WEFT_REINSPECT_LIMIT",
    "WEFT_SLOT_BARRIER",
];

/// The [`RUNTIME_ENV`] variables set in this process, in that order.
pub fn runtime_env() -> Vec<(String, String)> {
    RUNTIME_ENV
        .iter()
        .filter_map(|&k| Some((k.to_string(), std::env::var(k).ok()?)))
        .collect()
}

/// Simulate a trace.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SimJob {
    /// The run whose trace is simulated.
    pub run: RunJob,
    /// Machine simulated (same as the run's).
    pub machine: MachineSpec,
    /// Memory scheduler.
    pub scheduler: MemScheduler,
    /// Oracle mode.
    pub oracle: Oracle,
    /// Simulations of the trace (`--replicas`): 1 runs it once, unperturbed;
    /// `n > 1` runs it `n` times perturbed under seeds `SIM_SEED..SIM_SEED + n`
    /// ([`super::weft::PERTURB_CYCLES`]) and reports their mean, with each
    /// replica's cycles kept for confidence intervals.
    #[serde(default = "one_replica")]
    pub replicas: u32,
}

fn one_replica() -> u32 {
    1
}

/// What a build produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildOut {
    /// The executable (inside the cache entry).
    pub exe: PathBuf,
    /// Optimizer remarks (what was transformed or why not).
    pub remarks: Vec<String>,
}

/// Runtime statistics a traced run reports (`WEFT_STATS`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RuntimeStats {
    /// Share of executor iterations run under the optimized schedule, in
    /// percent (§4.5.1 coverage ratio); `None` if the version has no inspector.
    pub coverage_pct: Option<f64>,
    /// Inspector and scheduling cost as a share of the run, in percent
    /// (Fig. 4.13); `None` if not measured.
    pub overhead_pct: Option<f64>,
    /// Beta chosen per loop nest / window by Balanced (Fig. 5.11).
    pub betas: Vec<f64>,
    /// Anything else the runtime reported, kept verbatim.
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// What a traced run produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunOut {
    /// The checksum line the benchmark printed.
    pub checksum: String,
    /// Per-core trace (inside the cache entry).
    pub trace: PathBuf,
    /// Records in the trace.
    pub records: u64,
    /// Runtime statistics.
    pub runtime: RuntimeStats,
}

/// Simulation statistics the report uses (DESIGN.md metric definitions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SimStats {
    /// Total execution cycles (last core's finish).
    pub cycles: u64,
    /// Bank-level parallelism.
    pub blp: f64,
    /// Memory-level parallelism (banks serving LLC misses).
    pub mlp: f64,
    /// Cache-level parallelism (LLC banks serving L1 misses).
    pub clp: f64,
    /// LLC hit rate in [0, 1].
    pub llc_hit_rate: f64,
    /// Row-buffer hit rate in [0, 1].
    pub row_hit_rate: f64,
    /// Average memory latency (cycles).
    pub avg_mem_latency: f64,
    /// Per-epoch BLP series (Fig. 4.3).
    pub blp_series: Vec<f64>,
    /// Epoch length of the series, in cycles.
    pub epoch_cycles: u64,
    /// Cycles of the runtime's inspections (between the trace's
    /// inspection barriers, when every core takes part).
    #[serde(default)]
    pub inspection_cycles: u64,
    /// DRAM requests (bursts) served.
    #[serde(default)]
    pub dram_requests: u64,
    /// Prefetches that fetched a line from DRAM.
    #[serde(default)]
    pub prefetches_filled: u64,
    /// Prefetched lines later hit by a demand request.
    #[serde(default)]
    pub prefetches_useful: u64,
    /// Demand LLC misses per thousand instructions (Table 4.1's MPKI).
    #[serde(default)]
    pub llc_mpki: f64,
    /// Sampled simulation (`paper` inputs, `eval::stream`): half width of the
    /// 95% confidence interval of `cycles`, in percent of it (`None`: not
    /// sampled, or the interval is unknown). `mlp`, `clp`, the rates and
    /// averages are then those of the detailed segments, and `dram_requests`
    /// and the prefetch counts their counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_ci95_pct: Option<f64>,
    /// Cycles of each perturbed replica, in seed order (empty for a single
    /// unperturbed simulation); `cycles` and the other statistics are then
    /// the replicas' means.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replica_cycles: Vec<u64>,
    /// Inspection cycles of each replica, in the same order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replica_inspection_cycles: Vec<u64>,
}

/// Why a stage did not produce a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", content = "why", rename_all = "snake_case")]
pub enum StageError {
    /// An ingredient does not exist; the version is reported as not available.
    #[error("not available: {0}")]
    Unavailable(String),
    /// The stage ran and failed.
    #[error("failed: {0}")]
    Failed(String),
}

/// Result of a stage.
pub type StageResult<T> = std::result::Result<T, StageError>;

/// Performs the stages. Implementations must be deterministic: the same job gives
/// the same result, which is what makes the cache sound.
pub trait Backend: Send + Sync {
    /// Fingerprint of the toolchain (changes whenever results could change).
    fn fingerprint(&self) -> String;
    /// Facts about how the stages are performed that the report must state
    /// (e.g. which DRAM model the simulator uses).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// Benchmarks of a study at a size class (`only` filters by name if nonempty).
    fn benchmarks(&self, study: Study, size: Size) -> StageResult<Vec<BenchInfo>>;
    /// Whether every ingredient of a version exists (`Err` = not available).
    fn check_version(&self, version: &Version) -> StageResult<()>;
    /// Whether a sweep knob can be varied.
    fn check_knob(&self, machine: &str, knob: &Knob) -> StageResult<()>;
    /// Builds a benchmark; artifacts go under `dir`.
    fn build(&self, job: &BuildJob, dir: &Path) -> StageResult<BuildOut>;
    /// Runs a build in trace mode; artifacts go under `dir`.
    fn run(&self, job: &RunJob, build: &BuildOut, dir: &Path) -> StageResult<RunOut>;
    /// Simulates a run's trace.
    fn simulate(&self, job: &SimJob, run: &RunOut, dir: &Path) -> StageResult<SimStats>;
}
