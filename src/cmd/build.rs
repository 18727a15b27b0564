//! `weft build`: optimize a program and link it with the runtime (clang-19).

use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use inkwell::context::Context;
use weft_passes::PipelineConfig;

use super::opt::PipelineArgs;

/// Arguments of `weft build`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  weft build spmv.c -o spmv                      # default pipeline: every legal loop transformed
  weft build spmv.c -o spmv.orig --passes=none   # unchanged program, same compiler flags
  weft build spmv.c -o spmv.tr --passes='insert-inspector,instrument-trace<only=kernel_*>'
  weft build hpcg.c weft_bench.c --cflag=-Icommon -o hpcg
  weft build spmv.c -o spmv --codegen-flag=-falign-loops=64   # loops line-aligned (A/B timing)
The runtime library is looked up next to the weft binary (target/<profile>/libweft_runtime.a,
or its deps/ directory); override with --runtime or WEFT_RUNTIME_LIB.")]
pub struct Args {
    /// Input files: `.c`, `.ll` or `.bc` (several are linked into one module
    /// before optimizing, so region ids stay unique).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output executable.
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// The pipeline and its settings (shared with `weft opt`).
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Optimisation level given to clang-19 for code generation.
    #[arg(long, default_value = "-O2")]
    pub opt_level: String,
    /// Path of `libweft_runtime.a`.
    #[arg(long)]
    pub runtime: Option<PathBuf>,
    /// Keep the optimized IR next to the executable (`<output>.ll`).
    #[arg(long)]
    pub keep_ir: bool,
    /// The C compiler used to link.
    #[arg(long, default_value = "clang-19")]
    pub cc: String,
    /// Extra flag for compiling C inputs to IR (repeatable), e.g. `--cflag=-Iinclude`.
    #[arg(long = "cflag", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
    /// Extra flag for code generation and linking (repeatable), given to the C
    /// compiler with the optimized module, e.g. `--codegen-flag=-march=native`.
    ///
    /// `--codegen-flag=-falign-loops=64` puts every loop at the start of a
    /// 64-byte line: timing comparisons between builds (`--passes=none` against
    /// a transformed program) then do not depend on where the linker happened to
    /// place a hot loop (on this repository's AMD hosts one that straddles two
    /// lines ran miniFE's SpMV 20% slower; `docs/overheads.md`).
    #[arg(long = "codegen-flag", allow_hyphen_values = true)]
    pub codegen_flags: Vec<String>,
    /// Extra object file or library given to the final link unchanged (repeatable).
    #[arg(long = "link")]
    pub link: Vec<PathBuf>,
}

/// Loads and links the inputs, optimizes them and links the executable.
pub fn build(args: &Args) -> Result<()> {
    let runtime = weft_passes::link::find_runtime(args.runtime.as_deref())?;
    let ctx = Context::create();
    let mut copts = weft_frontend::ClangOptions::default();
    copts.flags.extend(args.cflags.iter().cloned());
    let mut inputs = args.inputs.iter();
    let first = inputs.next().context("no input file")?;
    let module = weft_frontend::load_module(&ctx, first, &copts)
        .with_context(|| format!("loading {}", first.display()))?;
    for other in inputs {
        let m = weft_frontend::load_module(&ctx, other, &copts)
            .with_context(|| format!("loading {}", other.display()))?;
        module.link_in_module(m).map_err(|e| {
            anyhow::anyhow!("linking {} into {}: {e}", other.display(), first.display())
        })?;
    }
    let pm = args.pipeline.pass_manager(PipelineConfig::new())?;
    let report = pm.run(&module)?;
    weft_passes::manager::verify(&module, "the last pass")?;
    if args.pipeline.remarks {
        for r in &report.remarks {
            eprintln!("{r}");
        }
    }
    let tmp = tempfile::Builder::new()
        .prefix("weft-build-")
        .tempdir()
        .context("creating a temporary directory")?;
    let bc = tmp.path().join("prog.bc");
    if !module.write_bitcode_to_path(&bc) {
        bail!("writing bitcode to {} failed", bc.display());
    }
    if args.keep_ir {
        let ll = PathBuf::from(format!("{}.ll", args.output.display()));
        module
            .print_to_file(&ll)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", ll.display()))?;
    }
    let mut objs: Vec<&std::path::Path> = vec![&bc];
    objs.extend(args.link.iter().map(|p| p.as_path()));
    weft_passes::link::link_with(
        &args.cc,
        &args.opt_level,
        &args.codegen_flags,
        &objs,
        &runtime,
        &args.output,
    )?;
    Ok(())
}

/// Runs `weft build`.
pub fn run(args: Args) -> Result<()> {
    build(&args)
}
