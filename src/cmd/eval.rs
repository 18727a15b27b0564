//! `weft eval`: the chapter-4 and chapter-5 studies, tables and plots.

use anyhow::Context;
use std::path::PathBuf;
use weft_testsuite::eval::gpu_study::GpuSize;
use weft_testsuite::eval::{self, backend::Size, versions::Study, EvalOptions};

/// Run the evaluation: build, trace, simulate every benchmark under every version.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  weft eval --quick                       # headline versions, about 3 min
  weft eval --out results --jobs 2        # the full evaluation
  weft eval --inputs quick --out r        # every benchmark and version, small inputs
  weft eval --quick --replicas 5          # five perturbed simulations per trace: tighter intervals
  weft eval --quick --study ch5 --bench mxm --versions default,balanced --json
  weft eval --study ch4 --versions original,blp-opt --input-scale 4 --no-sweeps --out big
  weft eval --inputs paper --study ch4 --bench hpcg --versions original --no-sweeps --out p
  weft eval --study gpu --quick --out g   # every GPU study on small inputs
  weft eval --study tbm --out t           # one GPU study as designed

Writes under DIR: summary.json, records.json/.csv, derived.csv, disagreements.json,
paper.json, results.md and plots/*.svg|png; the GPU studies under DIR/gpu/
(records.json/.csv, claims.json/.csv, summary.json, results.md, plots/*.svg;
their section and claims are also in DIR/results.md when CPU studies ran). The
cache of builds, traces and simulations is DIR/cache (reruns are incremental). A complete run (full inputs,
both studies, every benchmark and version, sweeps on) also regenerates
docs/results.md when run from the repository root; `--report FILE` writes it anywhere.")]
pub struct Args {
    /// The headline versions of both studies, no sweeps: two chapter 4 benchmarks (hpcg, moldyn) at the full size on the faithful machine, and every chapter 5 one on small inputs (--inputs or --machine give every study that size or machine).
    #[arg(long)]
    pub quick: bool,
    /// Output directory.
    #[arg(long, value_name = "DIR", default_value = "eval-out")]
    pub out: PathBuf,
    /// Parallel jobs (default: available cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Print summary.json instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Only these studies: ch4, ch5 (the CPU studies), gpu (every GPU study), or
    /// one GPU study: dp (dynamic parallelism: CDP, DTBL, SPAWN), gpu-sched
    /// (LaPerm and LASER TB scheduling), ipaws (GTO, LRR, iPAWS), tbm
    /// (fine-grained TB management), gpu-combo (DTBL + LaPerm + iPAWS, SPAWN +
    /// LASER). GPU studies write under DIR/gpu/; with --quick they run on small
    /// inputs; `weft eval --quick` without --study runs a smaller GPU part.
    #[arg(long, value_name = "STUDY", value_parser = ["ch4", "ch5", "gpu", "dp", "gpu-sched", "ipaws", "tbm", "gpu-combo"])]
    pub study: Vec<String>,
    /// Only these benchmarks.
    #[arg(long, value_name = "NAME")]
    pub bench: Vec<String>,
    /// Only these version ids, comma-separated (e.g. original,blp-opt,balanced).
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    pub versions: Vec<String>,
    /// Tiny inputs (what the CI test uses).
    #[arg(long, conflicts_with = "quick")]
    pub tiny: bool,
    /// Input sizes: `quick` (small inputs, caches scaled down so they still
    /// exceed the LLC 4x), `full` (the registry's full inputs, preset
    /// machines) or `paper` (Table 4.1 sizes, traces streamed into sampled
    /// simulation; hours per benchmark). Default: quick with --quick (its chapter
    /// 4 at full), else full.
    #[arg(long, value_name = "SIZE", value_parser = ["quick", "full", "paper"])]
    pub inputs: Option<String>,
    /// Machine variant of the main matrix: `faithful` (Tables 4.2/5.2, caches
    /// unshrunk) or `shrunk` (caches scaled down for small inputs). Default:
    /// faithful for full and paper inputs, shrunk for quick and tiny ones.
    /// Sweeps on other inputs than the main matrix's use the variant of
    /// their inputs' size.
    #[arg(long, value_name = "VARIANT", value_parser = ["faithful", "shrunk"])]
    pub machine: Option<String>,
    /// Skip the sensitivity sweeps of a full run.
    #[arg(long)]
    pub no_sweeps: bool,
    /// Also write the Markdown report here (default for a full run from the
    /// repository root: docs/results.md).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Cache directory (default DIR/cache).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Keep each run's trace in the cache after its simulations (by default it is
    /// deleted; full-size traces take hundreds of MB each).
    #[arg(long)]
    pub keep_traces: bool,
    /// Run the main matrix on K times the inputs of the size class (grid
    /// points, as Fig. 4.16 scales HPCG and GMR); benchmarks without a linear
    /// size knob (data-file inputs, log2 sizes) are reported as not available.
    /// The sweeps keep their own sizes.
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::value_parser!(i64).range(1..=64))]
    pub input_scale: i64,
    /// Simulations of each trace. 1 simulates it once, unperturbed; N > 1
    /// simulates it N times, each request to a memory controller delayed by
    /// 0-4 cycles drawn from seeds 1..=N (Alameldeen and Wood's perturbation),
    /// and reports the mean with a 95% confidence interval: a change within
    /// the interval is the simulation's noise, not the version's. Sampled
    /// `--inputs paper` runs simulate once (their interval is the sampling's).
    #[arg(long, value_name = "N", default_value_t = eval::DEFAULT_REPLICAS,
          value_parser = clap::value_parser!(u32).range(1..=32))]
    pub replicas: u32,
    /// GPU studies only: run nothing, rebuild DIR/gpu/ (report, CSV, claims,
    /// plots) and the `--report` section from RUN/gpu/records.json of an
    /// earlier `weft eval --out RUN`.
    #[arg(long, value_name = "RUN")]
    pub from_records: Option<PathBuf>,
}

/// The GPU studies `--study` selects (`gpu`: all of them; no `--study`: all).
pub fn gpu_studies(args: &Args) -> Vec<String> {
    let all = eval::gpu_study::ids();
    // `--bench` and `--versions` name CPU benchmarks and versions: without a
    // GPU study named, such a run is a CPU run.
    let cpu_filter = !args.bench.is_empty() || !args.versions.is_empty();
    if (args.study.is_empty() && !cpu_filter) || args.study.iter().any(|s| s == "gpu") {
        return all.iter().map(|s| s.to_string()).collect();
    }
    all.iter()
        .filter(|id| args.study.iter().any(|s| s == *id))
        .map(|s| s.to_string())
        .collect()
}

/// Builds the harness options from the arguments.
pub fn options(args: &Args) -> EvalOptions {
    let mut o = if args.quick || args.tiny {
        EvalOptions::quick(&args.out)
    } else {
        EvalOptions::full(&args.out)
    };
    if args.quick && args.inputs.is_none() && args.machine.is_none() {
        // Chapter 4 at the full size (`eval::QUICK_CH4_SIZE`); naming the
        // inputs or the machine gives every study that one.
        o.study_sizes = vec![(Study::Ch4, eval::QUICK_CH4_SIZE)];
    }
    if args.tiny {
        o.size = Size::Tiny;
        o.sweep_size = Size::Tiny;
    }
    match args.inputs.as_deref() {
        Some("quick") => o.size = Size::Quick,
        Some("full") => o.size = Size::Full,
        Some("paper") => o.size = Size::Paper,
        _ => {}
    }
    let variant = match args.machine.as_deref() {
        Some(name) => {
            eval::machine::Variant::parse(name).unwrap_or(eval::machine::Variant::Faithful)
        }
        None => eval::machine::Variant::for_size(o.size),
    };
    o.machine_overrides = variant.overrides();
    if args.no_sweeps {
        o.sweeps = false;
    }
    if let Some(j) = args.jobs {
        o.jobs = j.max(1);
    }
    o.quiet = args.quiet || args.json;
    if !args.study.is_empty() {
        o.studies = args
            .study
            .iter()
            .filter_map(|s| match s.as_str() {
                "ch4" => Some(Study::Ch4),
                "ch5" => Some(Study::Ch5),
                _ => None,
            })
            .collect();
    }
    o.gpu_studies = gpu_studies(args);
    // Asked for by name, a GPU study runs its own --quick size; the GPU part
    // of a whole `--quick` run is smaller, so the run stays within minutes.
    o.gpu_size = if args.tiny || (args.quick && args.study.is_empty()) {
        GpuSize::Smoke
    } else if args.quick || matches!(args.inputs.as_deref(), Some("quick")) {
        GpuSize::Quick
    } else {
        GpuSize::Full
    };
    o.only_benches = args.bench.clone();
    o.only_versions = args.versions.clone();
    o.cache = args.cache.clone();
    o.keep_traces = args.keep_traces;
    o.input_scale = args.input_scale;
    o.replicas = args.replicas;
    o.report = args.report.clone().or_else(|| {
        // Only a complete run replaces the published report: every benchmark,
        // version and study at the full input size, sweeps included.
        let full = !o.quick_benchmarks
            && !o.quick_versions
            && o.size == Size::Full
            && o.sweeps
            && o.studies.len() == 2
            && o.only_benches.is_empty()
            && o.only_versions.is_empty()
            && o.input_scale == 1;
        let root =
            std::path::Path::new("docs").is_dir() && std::path::Path::new("Cargo.toml").is_file();
        (full && root).then(|| PathBuf::from("docs/results.md"))
    });
    o
}

/// Runs only GPU studies (`--study` names no CPU study): writes DIR/gpu/ and,
/// with `--report FILE`, replaces the GPU section of FILE (its plots copied
/// under FILE's stem), leaving the rest of FILE as it is.
fn gpu_only(args: &Args, opts: &EvalOptions) -> anyhow::Result<()> {
    let g = opts.gpu();
    let out = match &args.from_records {
        Some(run) => {
            let text = std::fs::read_to_string(run.join("gpu").join("records.json"))
                .with_context(|| format!("reading {}/gpu/records.json", run.display()))?;
            let out: eval::gpu_engine::GpuOutput = serde_json::from_str(&text)?;
            eval::gpu_report::write(&g.out, &out)?;
            out
        }
        None => {
            eval::interrupt::install(&g.cache);
            eval::gpu_engine::run(&g)
                .context("GPU evaluation aborted")?
                .0
        }
    };
    if let Some(path) = &args.report {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("results")
            .to_string();
        let dir = path
            .parent()
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(&stem);
        std::fs::create_dir_all(&dir)?;
        for (name, svg) in eval::gpu_report::plots(&out) {
            std::fs::write(dir.join(format!("{name}.svg")), svg)?;
        }
        let doc = std::fs::read_to_string(path).unwrap_or_default();
        let section = eval::gpu_report::section(&out, &stem);
        let doc = eval::gpu_report::replace_section(&doc, &section);
        std::fs::write(path, eval::gpu_report::replace_summary_rows(&doc, &out))?;
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&eval::gpu_report::summary(&out))?
        );
    } else {
        print!("{}", eval::gpu_report::summary_table(&out));
        println!("report: {}", g.out.join("results.md").display());
        if let Some(r) = &args.report {
            println!("published: {} (GPU section)", r.display());
        }
    }
    gpu_failures(&out, &g.out)
}

/// An error naming the GPU cells that failed, if any did.
fn gpu_failures(out: &eval::gpu_engine::GpuOutput, dir: &std::path::Path) -> anyhow::Result<()> {
    let failed: Vec<String> = out
        .records
        .iter()
        .filter(|r| matches!(r.status, eval::engine::Status::Failed(_)))
        .map(|r| format!("{} {}/{}/{}", r.study, r.bench, r.group, r.variant))
        .collect();
    if failed.is_empty() {
        return Ok(());
    }
    Err(anyhow::anyhow!(
        "{} of {} GPU cells failed: {} (reasons in {})",
        failed.len(),
        out.records.len(),
        failed.join(", "),
        dir.join("results.md").display()
    ))
}

/// Runs the evaluation and prints the summary.
pub fn run(args: Args) -> anyhow::Result<()> {
    let opts = options(&args);
    if !args.study.is_empty() && opts.studies.is_empty() {
        return gpu_only(&args, &opts);
    }
    if args.from_records.is_some() {
        anyhow::bail!("--from-records rebuilds GPU reports only: add --study gpu (or a GPU study)");
    }
    eval::weft::check_layout_limits().map_err(|e| anyhow::anyhow!("weft eval: {e}"))?;
    // SIGINT/SIGTERM stop the children and remove the cache's temporaries.
    eval::interrupt::install(&opts.cache_dir());
    let backend = eval::weft::WeftBackend::new();
    let outcome = eval::run(&opts, &backend).context("evaluation aborted")?;
    if args.json {
        let mut v = serde_json::to_value(&outcome.summary)?;
        if let (Some(g), Some(map)) = (&outcome.gpu, v.as_object_mut()) {
            map.insert(
                "gpu".into(),
                serde_json::to_value(eval::gpu_report::summary(g))?,
            );
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print!("{}", eval::results::summary_table(&outcome.summary));
        if let Some(g) = &outcome.gpu {
            print!("{}", eval::gpu_report::summary_table(g));
        }
        println!("report: {}", opts.out.join("results.md").display());
        if let Some(r) = &opts.report {
            println!("published: {}", r.display());
        }
    }
    // Every output is written; a failed cell still makes the run a failure.
    if let Some(g) = &outcome.gpu {
        gpu_failures(g, &opts.out.join("gpu"))?;
    }
    match failed_cells(&outcome.output.records) {
        None => Ok(()),
        Some(line) => Err(anyhow::anyhow!(
            "{line} (reasons in {})",
            opts.out.join("results.md").display()
        )),
    }
}

/// The one-line summary of the cells that failed (build, run or simulation),
/// or `None` when none did. Cells reported as "not available" are not
/// failures: their ingredient does not exist by design.
pub fn failed_cells(records: &[eval::engine::Record]) -> Option<String> {
    let failed: Vec<String> = records
        .iter()
        .filter(|r| matches!(r.status, eval::engine::Status::Failed(_)))
        .map(|r| {
            let mut name = format!("{} {}/{}", r.study.name(), r.bench, r.version);
            if let Some(p) = &r.point {
                name.push_str(&format!(" [{}={}]", p.sweep, p.value));
            }
            name
        })
        .collect();
    if failed.is_empty() {
        return None;
    }
    const SHOWN: usize = 6;
    let mut list = failed[..failed.len().min(SHOWN)].join(", ");
    if failed.len() > SHOWN {
        list.push_str(&format!(" and {} more", failed.len() - SHOWN));
    }
    Some(format!(
        "{} of {} cells failed: {list}",
        failed.len(),
        records.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        eval: Args,
    }

    fn report_of(args: &[&str]) -> Option<PathBuf> {
        let cli = Cli::try_parse_from(std::iter::once("eval").chain(args.iter().copied()))
            .expect("arguments parse");
        options(&cli.eval).report
    }

    /// Issue #38, item 7: failed cells are named in one line; cells that are
    /// not available are not failures.
    #[test]
    fn failed_cells_are_summarised_in_one_line() {
        use eval::engine::{Record, Status, SweepPoint};
        let rec = |bench: &str, version: &str, status: Status| Record {
            study: Study::Ch5,
            bench: bench.into(),
            paper_name: None,
            version: version.into(),
            label: version.into(),
            point: None,
            machine: "table5.2".into(),
            status,
            checksum: None,
            records: None,
            stats: None,
            runtime: None,
            sim_key: None,
        };
        let mut rs = vec![
            rec("mxm", "original", Status::Ok),
            rec(
                "mxm",
                "balanced",
                Status::NotAvailable("no ingredient".into()),
            ),
        ];
        assert_eq!(failed_cells(&rs), None);
        rs.push(rec(
            "mxm",
            "default",
            Status::Failed("clang-19\nfailed".into()),
        ));
        let mut swept = rec("spmv", "original", Status::Failed("sim".into()));
        swept.point = Some(SweepPoint {
            sweep: "banks".into(),
            value: 16,
        });
        rs.push(swept);
        assert_eq!(
            failed_cells(&rs).unwrap(),
            "2 of 4 cells failed: ch5 mxm/default, ch5 spmv/original [banks=16]"
        );
        for i in 0..7 {
            rs.push(rec("b", &format!("v{i}"), Status::Failed("x".into())));
        }
        let line = failed_cells(&rs).unwrap();
        assert!(line.starts_with("9 of 11 cells failed: ") && line.ends_with(" and 3 more"));
        assert!(!line.contains('\n'), "{line}");
    }

    /// `--quick` runs chapter 4 at the full size; naming the inputs, the
    /// machine or `--tiny` gives every study that one size.
    #[test]
    fn quick_sizes_chapter_4_at_full_unless_told_otherwise() {
        let sizes = |args: &[&str]| {
            let cli = Cli::try_parse_from(std::iter::once("eval").chain(args.iter().copied()))
                .expect("arguments parse");
            let o = options(&cli.eval);
            (o.size_of(Study::Ch4), o.size_of(Study::Ch5))
        };
        assert_eq!(sizes(&["--quick"]), (Size::Full, Size::Quick));
        assert_eq!(
            sizes(&["--quick", "--inputs", "quick"]),
            (Size::Quick, Size::Quick)
        );
        assert_eq!(
            sizes(&["--quick", "--machine", "shrunk"]),
            (Size::Quick, Size::Quick)
        );
        assert_eq!(sizes(&["--tiny"]), (Size::Tiny, Size::Tiny));
        assert_eq!(sizes(&[]), (Size::Full, Size::Full));
    }

    /// Only a complete run replaces the published `docs/results.md` (tests run
    /// from the package root, which is the repository root).
    #[test]
    fn only_complete_runs_publish_the_report() {
        let published = Some(PathBuf::from("docs/results.md"));
        assert_eq!(report_of(&["--out", "x"]), published);
        for partial in [
            &["--quick"][..],
            &["--tiny"],
            &["--inputs", "quick"],
            &["--no-sweeps"],
            &["--study", "ch4"],
            &["--bench", "mxm"],
            &["--versions", "original,blp-opt"],
            &["--input-scale", "4"],
        ] {
            assert_eq!(report_of(partial), None, "{partial:?}");
        }
        assert_eq!(
            report_of(&["--quick", "--report", "r.md"]),
            Some(PathBuf::from("r.md"))
        );
    }
}
