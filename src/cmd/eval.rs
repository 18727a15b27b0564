//! `weft eval`: the chapter-4 and chapter-5 studies, tables and plots.

use anyhow::Context;
use std::path::PathBuf;
use weft_testsuite::eval::{self, backend::Size, versions::Study, EvalOptions};

/// Run the evaluation: build, trace, simulate every benchmark under every version.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  weft eval --quick                       # small inputs, headline versions, < 3 min
  weft eval --out results --jobs 2        # the full evaluation
  weft eval --inputs quick --out r        # every benchmark and version, small inputs
  weft eval --quick --study ch5 --bench mxm --versions default,balanced --json
  weft eval --study ch4 --versions original,blp-opt --input-scale 4 --no-sweeps --out big

Writes under DIR: summary.json, records.json/.csv, derived.csv, disagreements.json,
paper.json, results.md and plots/*.svg|png; the cache of builds, traces and
simulations is DIR/cache (reruns are incremental). A complete run (full inputs,
both studies, every benchmark and version, sweeps on) also regenerates
docs/results.md when run from the repository root; `--report FILE` writes it anywhere.")]
pub struct Args {
    /// Few benchmarks, small inputs, the headline versions of both studies, no sweeps.
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
    /// Only these studies (ch4, ch5).
    #[arg(long, value_name = "STUDY", value_parser = ["ch4", "ch5"])]
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
    /// exceed the LLC 4x) or `full` (the registry's full inputs, preset
    /// machines). Default: quick with --quick, else full.
    #[arg(long, value_name = "SIZE", value_parser = ["quick", "full"])]
    pub inputs: Option<String>,
    /// Machine variant: `faithful` (Tables 4.2/5.2, caches unshrunk) or
    /// `shrunk` (caches scaled down for small inputs). Default: faithful for
    /// full inputs, shrunk for quick and tiny ones.
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
}

/// Builds the harness options from the arguments.
pub fn options(args: &Args) -> EvalOptions {
    let mut o = if args.quick || args.tiny {
        EvalOptions::quick(&args.out)
    } else {
        EvalOptions::full(&args.out)
    };
    if args.tiny {
        o.size = Size::Tiny;
        o.sweep_size = Size::Tiny;
    }
    match args.inputs.as_deref() {
        Some("quick") => o.size = Size::Quick,
        Some("full") => o.size = Size::Full,
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
            .map(|s| if s == "ch4" { Study::Ch4 } else { Study::Ch5 })
            .collect();
    }
    o.only_benches = args.bench.clone();
    o.only_versions = args.versions.clone();
    o.cache = args.cache.clone();
    o.keep_traces = args.keep_traces;
    o.input_scale = args.input_scale;
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

/// Runs the evaluation and prints the summary.
pub fn run(args: Args) -> anyhow::Result<()> {
    let opts = options(&args);
    eval::weft::check_layout_limits().map_err(|e| anyhow::anyhow!("weft eval: {e}"))?;
    // SIGINT/SIGTERM stop the children and remove the cache's temporaries.
    eval::interrupt::install(&opts.cache_dir());
    let backend = eval::weft::WeftBackend::new();
    let outcome = eval::run(&opts, &backend).context("evaluation aborted")?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&outcome.summary)?);
    } else {
        print!("{}", eval::results::summary_table(&outcome.summary));
        println!("report: {}", opts.out.join("results.md").display());
        if let Some(r) = &opts.report {
            println!("published: {}", r.display());
        }
    }
    Ok(())
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
