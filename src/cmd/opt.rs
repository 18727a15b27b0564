//! `weft opt`: IR to IR through a pass pipeline, like LLVM's `opt`.

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use inkwell::context::Context;
use weft_passes::{PassManager, PipelineConfig};

/// The pipeline arguments `weft opt` and `weft build` share: which passes,
/// for which machine, the short-loop threshold, and whether to print remarks.
#[derive(clap::Args)]
pub struct PipelineArgs {
    /// Pipeline, e.g. `insert-inspector<slab=64>,instrument-trace`; `none` = no pass.
    /// Default: the default pipeline (every loop transformed where legal).
    #[arg(long)]
    pub passes: Option<String>,
    /// Machine preset name or TOML file, for passes that need the machine.
    #[arg(long)]
    pub machine: Option<String>,
    /// Loops whose trip count is below N at run time run inline, without a
    /// runtime call (like OpenMP's `if` clause); 0 sends every transformed loop
    /// to the runtime.
    #[arg(long, value_name = "N", default_value_t = weft_passes::manager::DEFAULT_MIN_PARALLEL_ITERS)]
    pub min_parallel_iters: u64,
    /// Print a remark for every candidate loop: what was done or why not.
    #[arg(long)]
    pub remarks: bool,
    /// Let passes run floating-point reductions in parallel (like
    /// `-ffast-math` or OpenMP's `reduction` clause): per-block partials are
    /// combined in a fixed order, so results are reproducible for any worker
    /// count but may differ from the sequential loop in the last bits.
    /// Default: bit-exact, such loops stay sequential.
    #[arg(long)]
    pub fp_reassoc: bool,
    /// A parallel loop whose written data only serial loops read runs on the
    /// calling thread while it writes at most BYTES (the data then stays in
    /// the private cache of the thread that reads it; docs/runtime.md,
    /// "Serial consumers"); 0 turns the rule off.
    #[arg(long, value_name = "BYTES", default_value_t = weft_passes::placement::DEFAULT_SERIAL_CONSUMER_BYTES)]
    pub serial_consumer_bytes: u64,
}

impl PipelineArgs {
    /// The pass manager these arguments select, on top of `cfg` (whose
    /// machine and short-loop threshold they set).
    pub fn pass_manager(&self, mut cfg: PipelineConfig) -> Result<PassManager> {
        if let Some(m) = &self.machine {
            // Validated even when no pass of the pipeline reads it.
            weft_memsim::config::MachineConfig::load(m)
                .with_context(|| format!("--machine {m}"))?;
        }
        cfg.machine = self.machine.clone();
        cfg.min_parallel_iters = self.min_parallel_iters;
        cfg.fp_reassoc = self.fp_reassoc;
        cfg.serial_consumer_bytes = self.serial_consumer_bytes;
        let pipeline = self
            .passes
            .as_deref()
            .unwrap_or(weft_passes::DEFAULT_PIPELINE);
        Ok(PassManager::parse(pipeline, cfg)?)
    }
}

/// Arguments of `weft opt`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  weft opt kernel.ll -o kernel.opt.ll -S --passes=insert-inspector --remarks
  weft opt prog.c -o prog.bc --passes='insert-inspector<slab=64>,instrument-trace<only=kernel_*>'
  weft opt --list-passes")]
pub struct Args {
    /// Input: `.ll`, `.bc`, or `.c` (compiled with clang-19 by the frontend).
    pub input: Option<PathBuf>,
    /// Output file (`-` for standard output; textual IR there).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Write textual IR (default: bitcode, unless the output ends in `.ll`).
    #[arg(short = 'S')]
    pub text: bool,
    /// The pipeline and its settings (shared with `weft build`).
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Print per-pass wall time.
    #[arg(long)]
    pub time_passes: bool,
    /// Write the IR before and after every pass into this directory.
    #[arg(long)]
    pub dump_dir: Option<PathBuf>,
    /// Run the LLVM verifier after every pass (always on in debug builds).
    #[arg(long)]
    pub verify_each: bool,
    /// List the registered passes and their options, then exit.
    #[arg(long)]
    pub list_passes: bool,
    /// Print remarks and timings as JSON on standard error... on standard output
    /// when the IR goes to a file.
    #[arg(long)]
    pub json: bool,
}

/// Runs `weft opt`.
pub fn run(args: Args) -> Result<()> {
    if args.list_passes {
        for p in weft_passes::registry::all() {
            println!("{:18} {}", p.name, p.summary);
            for (k, d) in p.options {
                println!("    {k:14} {d}");
            }
        }
        println!("default pipeline: {}", weft_passes::DEFAULT_PIPELINE);
        return Ok(());
    }
    let input = args
        .input
        .clone()
        .context("missing input file (see `weft opt --help`)")?;
    let output = args
        .output
        .clone()
        .context("missing `-o <output>` (use `-o -` for standard output)")?;
    let ctx = Context::create();
    let module = weft_frontend::load_module(&ctx, &input, &Default::default())
        .with_context(|| format!("loading {}", input.display()))?;
    let mut cfg = PipelineConfig::new();
    cfg.verify_each |= args.verify_each;
    cfg.dump_dir = args.dump_dir.clone();
    let pm = args.pipeline.pass_manager(cfg)?;
    let report = pm.run(&module)?;
    // Always verify the final module: never write broken IR.
    weft_passes::manager::verify(&module, "the last pass")?;
    let to_stdout = output.as_os_str() == "-";
    let text = args.text || to_stdout || output.extension().is_some_and(|e| e == "ll");
    if to_stdout {
        print!("{}", module.print_to_string().to_string());
    } else if text {
        module
            .print_to_file(&output)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", output.display()))?;
    } else if !module.write_bitcode_to_path(&output) {
        anyhow::bail!("writing bitcode to {} failed", output.display());
    }
    if args.json {
        let s = serde_json::to_string_pretty(&report)?;
        if to_stdout {
            eprintln!("{s}");
        } else {
            println!("{s}");
        }
    } else {
        if args.pipeline.remarks {
            for r in &report.remarks {
                eprintln!("{r}");
            }
        }
        if args.time_passes {
            let total: f64 = report.timings.iter().map(|t| t.seconds).sum();
            for t in &report.timings {
                eprintln!(
                    "time [{}] {:.3} ms{}",
                    t.pass,
                    t.seconds * 1e3,
                    if t.changed { " (changed)" } else { "" }
                );
            }
            eprintln!("time total {:.3} ms", total * 1e3);
        }
    }
    Ok(())
}
