//! The evaluation harness behind `weft eval`: reproduces the dissertation's
//! chapter-4 BLP study (§4.3, §4.5, Table 4.1, Figs. 4.3-4.17) and chapter-5
//! MLP/CLP study (§5.6, the eight versions, Figs. 5.6-5.11).
//!
//! Flow: [`versions`] (the version matrix) × the benchmark registry →
//! [`engine`] (job graph of build → traced run → simulation; deduplicated,
//! cached by content hash in [`cache`], run in parallel with rayon, progress bar
//! on stderr) → [`honesty`] (checksum equality aborts on mismatch; claims of the
//! paper our numbers contradict) → [`results`] (per-benchmark changes, averages,
//! `summary.json`) → [`report`] (JSON, CSV, `results.md`) and [`plots`] (SVG and
//! PNG). The published numbers compared against are in [`paper`]. The stages are
//! performed by a [`backend::Backend`]; [`weft::WeftBackend`] is the real one.
//! GPART-style data reordering of inputs is in [`reorder`].
//!
//! Invariant: nothing is invented. A version whose ingredient does not exist is
//! reported as "not available: <why>", a failed stage as "failed: <why>", and a
//! missing average as `null`.

pub mod backend;
pub mod cache;
pub mod engine;
pub mod gpu_combo;
pub mod gpu_dp;
pub mod gpu_engine;
pub mod gpu_ipaws;
pub mod gpu_report;
pub mod gpu_reuse;
pub mod gpu_run;
pub mod gpu_sched;
pub mod gpu_study;
pub mod gpu_tbm;
pub mod honesty;
pub mod inputs;
pub mod interrupt;
pub mod machine;
pub mod noise;
pub mod paper;
pub mod plots;
pub mod reorder;
pub mod report;
pub mod results;
pub mod stream;
pub mod versions;
pub mod weft;

use backend::{Backend, Size};
use std::path::{Path, PathBuf};
use versions::Study;

/// Errors of the harness.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// A run printed a checksum different from its baseline's (boxed: it is
    /// several times larger than the other variants, and every `Result` of the
    /// harness would carry its size).
    #[error(transparent)]
    ChecksumMismatch(Box<ChecksumMismatch>),
    /// The variants of a GPU workload did different work (the GPU studies'
    /// counterpart of a checksum mismatch, `gpu_engine::check_same_work`).
    #[error("{0}")]
    WorkMismatch(String),
    /// Writing outputs failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// Serialization failed.
    #[error("JSON error: {0}")]
    Json(#[from] serde_json::Error),
    /// The options name something that does not exist or cannot be used
    /// (an unknown benchmark or version, a cache path that is a file).
    #[error("{0}")]
    Usage(String),
    /// Drawing a plot failed.
    #[error("plot `{name}`: {msg}")]
    Plot {
        /// Plot file stem.
        name: String,
        /// What went wrong.
        msg: String,
    },
}

/// A run printed a checksum different from its baseline's.
#[derive(Debug, thiserror::Error)]
#[error(
    "checksum mismatch: {study} benchmark `{bench}` version `{version}`{} printed `{got}`, \
     but `{reference_version}` printed `{expected}`",
    point.as_ref().map(|p| format!(" at {p}")).unwrap_or_default()
)]
pub struct ChecksumMismatch {
    /// Study.
    pub study: String,
    /// Benchmark.
    pub bench: String,
    /// Version whose checksum differs.
    pub version: String,
    /// Sweep point, if any.
    pub point: Option<String>,
    /// Version the reference checksum comes from.
    pub reference_version: String,
    /// Reference checksum.
    pub expected: String,
    /// Checksum printed.
    pub got: String,
}

/// Result alias of the harness.
pub type Result<T> = std::result::Result<T, EvalError>;

/// What to evaluate and where to write it.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// Output directory (records, summary, report, plots).
    pub out: PathBuf,
    /// Input size class.
    pub size: Size,
    /// Only the versions marked `quick` in the matrix.
    pub quick_versions: bool,
    /// Only the `--quick` benchmarks of each study (`versions::quick_benchmarks`).
    pub quick_benchmarks: bool,
    /// Run the sensitivity sweeps of §4.5.4.
    pub sweeps: bool,
    /// Input size of the sweeps' runs (the full run sweeps on quick inputs: six
    /// knobs x three values x two versions x eight benchmarks at full size
    /// would take several times the main matrix).
    pub sweep_size: Size,
    /// Studies to run.
    pub studies: Vec<Study>,
    /// Restrict to these benchmarks (empty = all of the size class).
    pub only_benches: Vec<String>,
    /// Restrict to these version ids (empty = all).
    pub only_versions: Vec<String>,
    /// Parallel jobs.
    pub jobs: usize,
    /// No progress bar.
    pub quiet: bool,
    /// Compare checksums (always on from the CLI).
    pub check_checksums: bool,
    /// Cache directory (`None` = `<out>/cache`).
    pub cache: Option<PathBuf>,
    /// Also write the Markdown report here (e.g. `docs/results.md`), with its
    /// plots copied next to it under `<stem>/`.
    pub report: Option<PathBuf>,
    /// Overrides of the studies' machine presets (dotted TOML path, value), for
    /// every cell run at the main matrix's input size `size`.
    pub machine_overrides: Vec<(Study, String, i64)>,
    /// Overrides of the presets for the sweep points that run on `sweep_size`
    /// inputs when those differ from `size` (default: the variant for the sweep
    /// size, [`machine::Variant::for_size`], so a full run's quick-input sweeps
    /// use the shrunk caches that keep those inputs above the LLC).
    pub sweep_machine_overrides: Vec<(Study, String, i64)>,
    /// Keep trace files after their simulations (default: delete them; a later
    /// simulation that needs one reruns the program).
    pub keep_traces: bool,
    /// Input size of the main matrix as a multiple of the size class's inputs
    /// (`--input-scale`, Fig. 4.16 for every study): benchmarks with a size knob
    /// run `scale` times as many grid points; the others are reported as not
    /// available. 1 = the registry's inputs.
    pub input_scale: i64,
    /// GPU studies run with this evaluation (`gpu_study::ids()`; empty: none),
    /// written under `<out>/gpu/` and as the GPU section of the report.
    pub gpu_studies: Vec<String>,
    /// Their size.
    pub gpu_size: gpu_study::GpuSize,
    /// Simulations per trace (`--replicas`): 1 simulates each trace once,
    /// unperturbed; `n > 1` simulates it `n` times under seeded latency
    /// perturbations and reports the mean with a 95% confidence interval
    /// (`docs/results.md`, "Noise floor"). Default [`DEFAULT_REPLICAS`].
    pub replicas: u32,
    /// Studies whose cells run at another size class than [`Self::size`], on
    /// that size's machine variant ([`machine::Variant::for_size`]). Empty in
    /// [`Self::quick`] and [`Self::full`]; `weft eval --quick` (the CLI, and
    /// `weft demo`) runs its two chapter 4 benchmarks at [`QUICK_CH4_SIZE`].
    pub study_sizes: Vec<(Study, Size)>,
}

/// The size class of `--quick`'s chapter 4 cells. At the quick size the
/// printed Algorithm 4 raises BLP and loses time even without its inspections
/// (hpcg and moldyn: +1.3% BLP, -7.8% time without inspections, session 14),
/// the opposite direction of the full run (-18.9%, +6.4%): the demo would show
/// a regime no other run has. hpcg and moldyn at the full size are the full
/// run's own cells, and their signs are the full run's averages' on every
/// chapter 4 headline (issue #36).
pub const QUICK_CH4_SIZE: Size = Size::Full;

/// Default of [`EvalOptions::replicas`]: one trace's cycles move by several
/// percent under a perturbation of a few cycles (mxm, quick inputs: 217,041 to
/// 234,944 cycles over ten seeds), so a single simulation cannot tell a 3%
/// change from noise.
pub const DEFAULT_REPLICAS: u32 = 3;

impl EvalOptions {
    /// `--quick`: small inputs, the headline versions of both studies, no
    /// sweeps; two chapter 4 benchmarks and every chapter 5 one
    /// ([`versions::quick_benchmarks`]).
    pub fn quick(out: impl Into<PathBuf>) -> Self {
        EvalOptions {
            out: out.into(),
            size: Size::Quick,
            sweep_size: Size::Quick,
            quick_versions: true,
            quick_benchmarks: true,
            sweeps: false,
            studies: vec![Study::Ch4, Study::Ch5],
            only_benches: Vec::new(),
            only_versions: Vec::new(),
            jobs: default_jobs(),
            quiet: false,
            check_checksums: true,
            cache: None,
            report: None,
            machine_overrides: machine::Variant::Shrunk.overrides(),
            sweep_machine_overrides: machine::Variant::for_size(Size::Quick).overrides(),
            keep_traces: false,
            input_scale: 1,
            gpu_studies: Vec::new(),
            gpu_size: gpu_study::GpuSize::Smoke,
            replicas: DEFAULT_REPLICAS,
            study_sizes: Vec::new(),
        }
    }

    /// The full evaluation: every benchmark, every version, the sweeps.
    pub fn full(out: impl Into<PathBuf>) -> Self {
        EvalOptions {
            size: Size::Full,
            quick_versions: false,
            quick_benchmarks: false,
            sweeps: true,
            keep_traces: false,
            machine_overrides: machine::Variant::Faithful.overrides(),
            gpu_size: gpu_study::GpuSize::Full,
            ..Self::quick(out)
        }
    }

    /// The size class of a study's main cells.
    pub fn size_of(&self, study: Study) -> Size {
        self.study_sizes
            .iter()
            .find(|(s, _)| *s == study)
            .map_or(self.size, |&(_, z)| z)
    }

    /// The machine of a study: its preset with this run's overrides, or, for a
    /// study run at another size ([`Self::study_sizes`]), with that size's
    /// machine variant.
    pub fn machine(&self, study: Study) -> backend::MachineSpec {
        let size = self.size_of(study);
        if size == self.size {
            with_overrides(study, &self.machine_overrides)
        } else {
            with_overrides(study, &machine::Variant::for_size(size).overrides())
        }
    }

    /// The machine of a study's cells run on `size` inputs: [`Self::machine`] at
    /// the main matrix's size, else the preset with `sweep_machine_overrides`.
    pub fn machine_at(&self, study: Study, size: Size) -> backend::MachineSpec {
        if size == self.size_of(study) {
            self.machine(study)
        } else {
            with_overrides(study, &self.sweep_machine_overrides)
        }
    }

    /// The cache directory in use.
    pub fn cache_dir(&self) -> PathBuf {
        self.cache.clone().unwrap_or_else(|| self.out.join("cache"))
    }

    /// The GPU studies' options: under `<out>/gpu/`, the same cache and jobs.
    pub fn gpu(&self) -> gpu_engine::GpuEvalOptions {
        gpu_engine::GpuEvalOptions {
            out: self.out.join("gpu"),
            size: self.gpu_size,
            studies: self.gpu_studies.clone(),
            jobs: self.jobs,
            quiet: self.quiet,
            cache: self.cache_dir(),
            command: gpu_engine::command_line(),
        }
    }
}

/// `study`'s preset with the overrides of `overrides` that concern it.
fn with_overrides(study: Study, overrides: &[(Study, String, i64)]) -> backend::MachineSpec {
    overrides.iter().filter(|(s, _, _)| *s == study).fold(
        backend::MachineSpec::preset(study.machine()),
        |m, (_, p, v)| m.with(p, *v),
    )
}

/// Available parallelism (at least 1).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// What an evaluation produced.
#[derive(Debug, Clone)]
pub struct EvalOutcome {
    /// The summary (also in `summary.json`).
    pub summary: results::Summary,
    /// Engine output (records etc.).
    pub output: engine::EngineOutput,
    /// Contradictions with the paper.
    pub disagreements: Vec<honesty::Disagreement>,
    /// Files written.
    pub files: Vec<PathBuf>,
    /// The GPU studies' output, if any ran.
    pub gpu: Option<gpu_engine::GpuOutput>,
}

/// Runs the evaluation with `backend` and writes every output under `opts.out`.
pub fn run(opts: &EvalOptions, backend: &dyn Backend) -> Result<EvalOutcome> {
    let start = std::time::Instant::now();
    std::fs::create_dir_all(&opts.out)?;
    let output = engine::execute(opts, backend);
    // Cells failed by an interrupt's kills are not results: write nothing.
    interrupt::park_if_signalled();
    let output = output?;
    let gpu = if opts.gpu_studies.is_empty() {
        None
    } else {
        Some(gpu_engine::run(&opts.gpu())?)
    };
    let derived = results::derive(&output.records);
    let a4 = results::averages(&output.records, &derived, Study::Ch4);
    let a5 = results::averages(&output.records, &derived, Study::Ch5);
    let betas = report::all_betas(&output.records);
    let disagreements = honesty::disagreements(&derived, &a4, &a5, &betas);
    let summary = results::summarize(
        &output,
        &derived,
        output.checksums.checked,
        disagreements.len(),
        matches!(opts.size, Size::Tiny | Size::Quick),
        start.elapsed().as_secs_f64(),
    );
    let mut files = report::write_data(&opts.out, &output, &derived, &summary, &disagreements)?;
    if let Some((_, f)) = &gpu {
        files.extend(f.iter().cloned());
    }
    let gpu = gpu.map(|(g, _)| g);
    let plot_dir = opts.out.join("plots");
    let plots = plots::draw_all(&plot_dir, &output, &derived);
    files.extend(plots.files.iter().cloned());
    let md = report::markdown(&report::ReportInput {
        opts,
        output: &output,
        derived: &derived,
        a4: &a4,
        a5: &a5,
        summary: &summary,
        disagreements: &disagreements,
        plots: &plots,
        plot_prefix: "plots",
        gpu: gpu.as_ref(),
    });
    let md_path = opts.out.join("results.md");
    std::fs::write(&md_path, &md)?;
    files.push(md_path);
    if let Some(path) = &opts.report {
        files.extend(publish_report(
            path,
            opts,
            &output,
            &derived,
            &a4,
            &a5,
            &summary,
            &disagreements,
            &plots,
            gpu.as_ref(),
        )?);
    }
    Ok(EvalOutcome {
        summary,
        output,
        disagreements,
        files,
        gpu,
    })
}

#[allow(clippy::too_many_arguments)]
fn publish_report(
    path: &Path,
    opts: &EvalOptions,
    output: &engine::EngineOutput,
    derived: &[results::Derived],
    a4: &[results::VersionAverage],
    a5: &[results::VersionAverage],
    summary: &results::Summary,
    disagreements: &[honesty::Disagreement],
    plots: &plots::PlotSet,
    gpu: Option<&gpu_engine::GpuOutput>,
) -> Result<Vec<PathBuf>> {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("results")
        .to_string();
    let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let dir = parent.join(&stem);
    std::fs::create_dir_all(&dir)?;
    let mut files = Vec::new();
    for f in &plots.files {
        if let Some(name) = f.file_name() {
            let dst = dir.join(name);
            std::fs::copy(f, &dst)?;
            files.push(dst);
        }
    }
    if let Some(g) = gpu {
        for (name, svg) in gpu_report::plots(g) {
            let dst = dir.join(format!("{name}.svg"));
            std::fs::write(&dst, svg)?;
            files.push(dst);
        }
    }
    let md = report::markdown(&report::ReportInput {
        opts,
        output,
        derived,
        a4,
        a5,
        summary,
        disagreements,
        plots,
        plot_prefix: &stem,
        gpu,
    });
    std::fs::write(path, md)?;
    files.push(path.to_path_buf());
    Ok(files)
}
