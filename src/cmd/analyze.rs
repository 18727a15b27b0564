//! `weft analyze`: the loop report of a program (IR or C).

use std::path::PathBuf;

use anyhow::Context as _;
use inkwell::context::Context;
use weft_frontend::{load_module, ClangOptions, ModuleAnalysis, ModuleSummary};

/// Report loop nests, induction variables, trip counts, access functions,
/// dependence verdicts and parallel-region candidates.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
weft analyze kernel.c\n  \
weft analyze kernel.ll --json > loops.json\n  \
weft analyze kernel.c --function spmv --cflag=-Iinclude --cflag=-DN=1024\n\n\
C files are compiled with `clang-19 -O1 -fno-unroll-loops -fno-vectorize \
-fno-slp-vectorize -fno-discard-value-names -g0` unless --clang-flag is given.\n\n\
Loops are numbered L0, L1, ... per function. `weft opt --remarks` and `weft build \
--remarks` name a loop the same way, `@function Lk (header)`, with the numbers of \
their input even after a pass has outlined other loops of the function; a region's \
remark also gives the ids its statistics carry in WEFT_STATS.")]
pub struct Args {
    /// Input: `.ll`, `.bc` or `.c`.
    pub file: PathBuf,
    /// Print the analysis as JSON.
    #[arg(long)]
    pub json: bool,
    /// Only report this function.
    #[arg(long)]
    pub function: Option<String>,
    /// C compiler for `.c` input.
    #[arg(long, default_value = "clang-19")]
    pub clang: String,
    /// Replace the default C compile flags (repeatable).
    #[arg(long = "clang-flag", allow_hyphen_values = true)]
    pub clang_flags: Vec<String>,
    /// Add a C compile flag after the defaults, e.g. `--cflag=-Iinclude` (repeatable).
    #[arg(long = "cflag", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let ctx = Context::create();
    let mut opts = ClangOptions {
        clang: args.clang.clone(),
        ..ClangOptions::default()
    };
    if !args.clang_flags.is_empty() {
        opts.flags = args.clang_flags.clone();
    }
    opts.flags.extend(args.cflags.iter().cloned());
    let module = load_module(&ctx, &args.file, &opts)
        .with_context(|| format!("loading {}", args.file.display()))?;
    let analysis = ModuleAnalysis::new(&module);
    let mut summary = ModuleSummary::new(&analysis);
    if let Some(name) = &args.function {
        summary.functions.retain(|f| &f.name == name);
        if summary.functions.is_empty() {
            anyhow::bail!(
                "no function named `{name}` with a body in {}",
                args.file.display()
            );
        }
    }
    if args.json {
        println!("{}", summary.to_json());
    } else {
        print!("{}", summary.report());
    }
    Ok(())
}
