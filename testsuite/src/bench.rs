//! Registry of the C benchmark programs under `testsuite/benchmarks/`, and helpers
//! to compile them with clang-19 and run them.
//!
//! Two classes, as in the dissertation: the *irregular* (index-array) programs of
//! chapter 4 (Table 4.1: Moldyn, STUN, HPCG, MiniFE, GMR, Carey, Equake, GS-Solver)
//! and the *affine* programs of chapter 5 (§5.6: mxm, syr2k and SPLASH-2-style
//! kernels, plus extra regular kernels). Every program:
//!
//! - accepts `--quick`, `--size N`, `--iters N`, `--input PATH` (and `--base`,
//!   `--seed`, `--output`), see `benchmarks/common/weft_bench.h`;
//! - prints only deterministic results on stdout, ending with the line
//!   `checksum: <16 hex digits>` (FNV-1a over the result bit patterns);
//! - prints its input, working-set size (`working set: N bytes`) and time on stderr;
//! - keeps each hot loop nest in a `noinline` function named `kernel_<what>`.
//!
//! Invariants of the registry: names are unique; every source path exists under
//! [`benchmarks_dir`]; every file in [`Benchmark::inputs`] is relative to
//! [`data_dir`]; argument lists may contain the placeholder `{data}`, replaced by
//! the data directory when the arguments are built ([`Benchmark::args`]).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Errors from compiling or running a benchmark.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// No benchmark with that name is registered.
    #[error("unknown benchmark '{name}' (known: {known})")]
    Unknown {
        /// The requested name.
        name: String,
        /// Comma-separated registered names.
        known: String,
    },
    /// The compiler could not be started (for example clang-19 is not installed).
    #[error("cannot run compiler '{cc}': {source}")]
    CompilerMissing {
        /// Compiler command.
        cc: String,
        /// Underlying I/O error.
        source: std::io::Error,
    },
    /// The compiler exited with an error.
    #[error("compiling {what} failed:\n{stderr}")]
    CompileFailed {
        /// What was being compiled.
        what: String,
        /// Compiler diagnostics.
        stderr: String,
    },
    /// The benchmark executable could not be started.
    #[error("cannot run {exe}: {source}")]
    Spawn {
        /// Executable path.
        exe: PathBuf,
        /// Underlying I/O error.
        source: std::io::Error,
    },
    /// The benchmark exited with a failure status.
    #[error("{exe} {args:?} exited with {status}:\n{stderr}")]
    RunFailed {
        /// Executable path.
        exe: PathBuf,
        /// Arguments given.
        args: Vec<String>,
        /// Exit status as text.
        status: String,
        /// Its stderr.
        stderr: String,
    },
    /// The output did not end with a well-formed `checksum:` line.
    #[error("no valid 'checksum: <hex>' line at the end of the output of {exe}")]
    NoChecksum {
        /// Executable path.
        exe: PathBuf,
    },
    /// An input file of the benchmark is missing.
    #[error(transparent)]
    Data(#[from] crate::data::DataError),
    /// A filesystem operation failed.
    #[error("{path}: {source}")]
    Io {
        /// Path involved.
        path: PathBuf,
        /// Underlying I/O error.
        source: std::io::Error,
    },
}

/// Result alias for this module.
pub type Result<T> = std::result::Result<T, BenchError>;

/// Benchmark class: which study of the dissertation it belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BenchClass {
    /// Index-array (irregular) programs, chapter 4 (BLP, inspector/executor).
    Irregular,
    /// Affine loop nests, chapter 5 (MLP/CLP, iteration-block scheduling).
    Affine,
}

/// Which preset argument list to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum RunSize {
    /// `--quick`: a timed region of roughly 1-5 million memory accesses.
    Quick,
    /// Program defaults: working set at least 4x the simulated last-level cache.
    Full,
}

/// A named alternative input for a benchmark (for example a real matrix).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Variant {
    /// Short name, e.g. `bcsstk16`.
    pub name: &'static str,
    /// Program arguments (may contain `{data}`).
    pub args: &'static [&'static str],
    /// Data files it reads, relative to [`data_dir`].
    pub inputs: &'static [&'static str],
}

/// One benchmark program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Benchmark {
    /// Registry name (also the executable name).
    pub name: &'static str,
    /// Study it belongs to.
    pub class: BenchClass,
    /// Name of the corresponding application in the dissertation, if any.
    pub paper_name: Option<&'static str>,
    /// Source files relative to [`benchmarks_dir`]; the first is the program, the
    /// rest are shared support files (compiled and linked with it).
    pub sources: &'static [&'static str],
    /// Arguments of the quick run (may contain `{data}`).
    pub quick_args: &'static [&'static str],
    /// Arguments of the full run (may contain `{data}`).
    pub full_args: &'static [&'static str],
    /// Data files read by the quick or full run, relative to [`data_dir`].
    pub inputs: &'static [&'static str],
    /// What the program computes.
    pub description: &'static str,
    /// Input of the quick run and its working set.
    pub quick_input: &'static str,
    /// Input of the full run and its working set.
    pub full_input: &'static str,
    /// Other inputs the program accepts.
    pub variants: &'static [Variant],
    /// Arguments of the evaluation's full size (`weft eval` without `--quick`):
    /// inputs several times the quick ones, sized so a trace stays near 10^7
    /// records and the simulation budget of a full run holds (may contain
    /// `{data}`).
    pub eval_args: &'static [&'static str],
    /// Input of the evaluation's full size and its working set.
    pub eval_input: &'static str,
    /// How `--size` scales the generated input, for the input-size sweep
    /// (Fig. 4.16); `None` when the program's size is fixed by its input file.
    pub size_knob: Option<SizeKnob>,
}

/// The `--size` argument of a generated-input benchmark: a linear dimension of a
/// `dims`-dimensional grid whose point count is the problem size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct SizeKnob {
    /// `--size` of the quick run.
    pub quick: i64,
    /// `--size` of the full run.
    pub full: i64,
    /// `--size` of the evaluation's full size ([`Benchmark::eval_args`]).
    pub eval: i64,
    /// Grid dimensions (problem size grows as `size^dims`).
    pub dims: u32,
}

impl SizeKnob {
    /// `--size` giving `scale` times the problem size (grid points) of a run
    /// whose `--size` is `base`: the linear dimension times `scale^(1/dims)`,
    /// rounded.
    pub fn scaled(&self, base: i64, scale: i64) -> i64 {
        let f = (scale.max(1) as f64).powf(1.0 / f64::from(self.dims.max(1)));
        ((base as f64) * f).round().max(1.0) as i64
    }
}

const SUPPORT: &str = "common/weft_bench.c";

macro_rules! srcs {
    ($main:expr) => {
        &[$main, SUPPORT]
    };
}

static ALL: &[Benchmark] = &[
    // ------------------------------------------------------------ irregular (ch. 4)
    Benchmark {
        name: "moldyn",
        class: BenchClass::Irregular,
        paper_name: Some("Moldyn"),
        sources: srcs!("irregular/moldyn.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "Lennard-Jones molecular dynamics; force loop over particles gathers \
                      pos[nbr[j]] through per-particle neighbour lists (random particle numbering)",
        quick_input: "12^3 = 1,728 particles, ~80 neighbours each, 3 steps; 0.66 MiB",
        full_input: "48^3 = 110,592 particles, 10 steps; 42 MiB",
        eval_args: &["--quick", "--size", "20", "--iters", "3"],
        eval_input: "20^3 = 8,000 particles, ~80 neighbours each, 3 steps; 3.05 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 12, full: 48, eval: 20, dims: 3 }),
    },
    Benchmark {
        name: "stun",
        class: BenchClass::Irregular,
        paper_name: Some("STUN"),
        sources: srcs!("irregular/stun.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "left-looking sparse Cholesky (numeric step after symbolic analysis); \
                      column updates scatter x[Li[p]] through L's row index array",
        quick_input: "2-D Laplacian on a 28x28 grid (784 rows); 0.38 MiB",
        full_input:
            "2-D Laplacian on a 140x140 grid (19,600 rows, natural order); 43 MiB",
        eval_args: &["--quick", "--size", "48"],
        eval_input: "2-D Laplacian on a 48x48 grid (2,304 rows); 1.83 MiB",
        variants: &[
            Variant {
                name: "bcsstk13",
                args: &["--input", "{data}/suitesparse/bcsstk13.mtx"],
                inputs: &["suitesparse/bcsstk13.mtx"],
            },
            Variant {
                name: "bcsstk16",
                args: &["--input", "{data}/suitesparse/bcsstk16.mtx"],
                inputs: &["suitesparse/bcsstk16.mtx"],
            },
        ],
        size_knob: Some(SizeKnob { quick: 28, full: 140, eval: 48, dims: 2 }),
    },
    Benchmark {
        name: "hpcg",
        class: BenchClass::Irregular,
        paper_name: Some("HPCG"),
        sources: srcs!("irregular/hpcg.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "Jacobi-preconditioned CG on the HPCG 27-point stencil matrix; SpMV \
                      gathers x[col[j]]",
        quick_input: "16^3 grid (4,096 rows, 97k nonzeros), 5 CG iterations; 1.4 MiB",
        full_input: "64^3 grid (262,144 rows, 6.9M nonzeros), 50 iterations; 94.5 MiB",
        eval_args: &["--quick", "--size", "24", "--iters", "8"],
        eval_input: "24^3 grid (13,824 rows, 0.35M nonzeros), 8 CG iterations; 4.77 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 16, full: 64, eval: 24, dims: 3 }),
    },
    Benchmark {
        name: "minife",
        class: BenchClass::Irregular,
        paper_name: Some("MiniFE"),
        sources: srcs!("irregular/minife.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "hexahedral finite-element assembly (element loop scattering through \
                      connectivity and CSR-slot index arrays, colour by colour) plus CG",
        quick_input: "8^3 elements (729 nodes), 20 CG iterations; 0.5 MiB",
        full_input: "36^3 elements (50,653 nodes), 50 CG iterations; 42 MiB",
        eval_args: &["--quick", "--size", "16", "--iters", "20"],
        eval_input: "16^3 elements (4,913 nodes), 20 CG iterations; 3.78 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 8, full: 36, eval: 16, dims: 3 }),
    },
    Benchmark {
        name: "gmres",
        class: BenchClass::Irregular,
        paper_name: Some("GMR"),
        sources: srcs!("irregular/gmres.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "restarted GMRES(m) with modified Gram-Schmidt on a nonsymmetric sparse \
                      matrix; SpMV gathers x[col[j]]",
        quick_input: "3-D convection-diffusion, 12^3 grid, m = 10, 2 restart cycles; 0.33 MiB",
        full_input: "3-D convection-diffusion, 50^3 grid (125,000 rows), m = 30, 3 cycles; 43 MiB",
        eval_args: &["--quick", "--size", "20"],
        eval_input: "3-D convection-diffusion, 20^3 grid (8,000 rows), m = 10, 2 restart cycles; 1.53 MiB",
        variants: &[Variant {
            name: "bayer10",
            args: &["--input", "{data}/suitesparse/bayer10.mtx"],
            inputs: &["suitesparse/bayer10.mtx"],
        }],
        size_knob: Some(SizeKnob { quick: 12, full: 50, eval: 20, dims: 3 }),
    },
    Benchmark {
        name: "carey",
        class: BenchClass::Irregular,
        paper_name: Some("Carey"),
        sources: srcs!("irregular/carey.c"),
        quick_args: &[
            "--quick",
            "--input",
            "{data}/graphs/kron_g14_k16.gapbs.edges",
        ],
        full_args: &[],
        inputs: &["graphs/kron_g14_k16.gapbs.edges"],
        description: "SIR epidemic diffusion on a social/Kronecker graph; per-person loop \
                      gathers state[adj[j]]",
        quick_input:
            "kron_g14_k16.gapbs.edges (16,381 ids, 425,860 adjacency entries), 3 days; 1.9 MiB",
        full_input: "generated R-MAT scale 19, edge factor 16 (524,288 vertices, 15.5M adjacency entries), 10 days; 67 MiB",
        eval_args: &["--quick", "--size", "15"],
        eval_input: "generated R-MAT scale 15, edge factor 16 (32,768 vertices, 882,830 adjacency entries), 3 days; 3.87 MiB",
        variants: &[
            Variant {
                name: "facebook",
                args: &[
                    "--input",
                    "{data}/graphs/facebook_combined.edges",
                    "--base",
                    "0",
                ],
                inputs: &["graphs/facebook_combined.edges"],
            },
            Variant {
                name: "cit-HepTh",
                args: &[
                    "--input",
                    "{data}/graphs/cit-HepTh.relabeled.edges",
                    "--base",
                    "0",
                ],
                inputs: &["graphs/cit-HepTh.relabeled.edges"],
            },
        ],
        size_knob: None,
    },
    Benchmark {
        name: "equake",
        class: BenchClass::Irregular,
        paper_name: Some("Equake"),
        sources: srcs!("irregular/equake.c"),
        quick_args: &["--quick", "--input", "{data}/spark98/sf10.1.pack"],
        full_args: &[],
        inputs: &["spark98/sf10.1.pack"],
        description: "explicit elastic wave propagation on a tetrahedral mesh; 3x3-block SMVP \
                      gathers disp[col[j]]",
        quick_input:
            "Spark98 sf10.1.pack (7,294 nodes, 35,025 tetrahedra, 97,138 blocks), 2 steps; 7.8 MiB",
        full_input:
            "generated box mesh of 32^3 cubes x 6 tetrahedra (35,937 nodes), 20 steps; 41 MiB",
        eval_args: &["--quick", "--input", "{data}/spark98/sf10.1.pack", "--iters", "6"],
        eval_input: "Spark98 sf10.1.pack mesh (7,294 nodes, 35,025 tetrahedra), 6 time steps; 7.82 MiB",
        variants: &[Variant {
            name: "sf10",
            args: &["--input", "{data}/spark98/sf10.1.pack"],
            inputs: &["spark98/sf10.1.pack"],
        }],
        size_knob: None,
    },
    Benchmark {
        name: "gauss_seidel",
        class: BenchClass::Irregular,
        paper_name: Some("GS-Solver"),
        sources: srcs!("irregular/gauss_seidel.c"),
        quick_args: &["--quick", "--input", "{data}/metis/4elt.graph"],
        full_args: &[],
        inputs: &["metis/4elt.graph"],
        description: "multicolour Gauss-Seidel sweeps; rows visited through each colour's row \
                      list, x gathered through the column index array",
        quick_input: "METIS 4elt.graph Laplacian + I (15,606 rows), 4 sweeps; 1.7 MiB",
        full_input: "27-point stencil on a 50^3 grid (125,000 rows), 20 sweeps; 41 MiB",
        eval_args: &["--quick", "--input", "{data}/metis/4elt.graph", "--iters", "12"],
        eval_input: "METIS 4elt.graph Laplacian + I (15,606 rows), 12 sweeps; 1.70 MiB",
        variants: &[
            Variant {
                name: "mdual",
                args: &["--input", "{data}/metis/mdual.graph"],
                inputs: &["metis/mdual.graph"],
            },
            Variant {
                name: "copter2",
                args: &["--input", "{data}/metis/copter2.graph"],
                inputs: &["metis/copter2.graph"],
            },
        ],
        size_knob: None,
    },
    // ------------------------------------------------------------ affine (ch. 5)
    Benchmark {
        name: "mxm",
        class: BenchClass::Affine,
        paper_name: Some("mxm"),
        sources: srcs!("affine/mxm.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "dense matrix multiplication C = A*B, i-k-j order",
        quick_input: "n = 80; 0.15 MiB",
        full_input: "n = 1800; 74 MiB",
        eval_args: &["--quick", "--size", "160"],
        eval_input: "n = 160; 0.59 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 80, full: 1800, eval: 160, dims: 2 }),
    },
    Benchmark {
        name: "syr2k",
        class: BenchClass::Affine,
        paper_name: Some("syr2k"),
        sources: srcs!("affine/syr2k.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "symmetric rank-2k update on the lower triangle",
        quick_input: "n = m = 96; 0.21 MiB",
        full_input: "n = m = 1800; 74 MiB",
        eval_args: &["--quick", "--size", "160"],
        eval_input: "n = m = 160; 0.59 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 96, full: 1800, eval: 160, dims: 2 }),
    },
    Benchmark {
        name: "lu",
        class: BenchClass::Affine,
        paper_name: Some("LU"),
        sources: srcs!("affine/lu.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "SPLASH-2-style blocked LU without pivoting (block 16)",
        quick_input: "n = 96; 0.07 MiB",
        full_input: "n = 3072; 72 MiB",
        eval_args: &["--quick", "--size", "192"],
        eval_input: "n = 192; 0.28 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 96, full: 3072, eval: 192, dims: 2 }),
    },
    Benchmark {
        name: "fft",
        class: BenchClass::Affine,
        paper_name: Some("FFT"),
        sources: srcs!("affine/fft.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "SPLASH-2-style six-step 1-D FFT computed as a 2-D FFT (row FFTs, \
                      twiddles, transposes)",
        quick_input: "2^14 points (128 x 128); 0.75 MiB",
        full_input: "2^22 points (2048 x 2048); 192 MiB (data, scratch and twiddle matrices)",
        eval_args: &["--quick", "--size", "16"],
        eval_input: "2^16 points (256 x 256); 3 MiB",
        variants: &[],
        size_knob: None,
    },
    Benchmark {
        name: "radix",
        class: BenchClass::Affine,
        paper_name: Some("Radix"),
        sources: srcs!("affine/radix.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "SPLASH-2-style radix sort of 32-bit keys (radix 256, 64 blocks)",
        quick_input: "65,536 keys; 0.75 MiB",
        full_input: "16,777,216 keys; 128 MiB",
        eval_args: &["--quick", "--size", "262144"],
        eval_input: "262,144 keys; 2.25 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 65536, full: 16777216, eval: 262144, dims: 1 }),
    },
    Benchmark {
        name: "ocean",
        class: BenchClass::Affine,
        paper_name: Some("Ocean"),
        sources: srcs!("affine/ocean.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "Ocean-style red-black SOR for the Poisson equation",
        quick_input: "128 x 128 grid, 15 iterations; 0.26 MiB",
        full_input: "2200 x 2200 grid, 10 iterations; 74 MiB",
        eval_args: &["--quick", "--size", "256"],
        eval_input: "256 x 256 grid, 15 iterations; 1.02 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 128, full: 2200, eval: 256, dims: 2 }),
    },
    Benchmark {
        name: "cholesky",
        class: BenchClass::Affine,
        paper_name: Some("Cholesky"),
        sources: srcs!("affine/cholesky.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "dense left-looking Cholesky factorization",
        quick_input: "n = 160; 0.2 MiB",
        full_input: "n = 3072; 72 MiB",
        eval_args: &["--quick", "--size", "320"],
        eval_input: "n = 320; 0.78 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 160, full: 3072, eval: 320, dims: 2 }),
    },
    Benchmark {
        name: "jacobi2d",
        class: BenchClass::Affine,
        paper_name: None,
        sources: srcs!("affine/jacobi2d.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "2-D Jacobi 5-point stencil (two grids, alternating)",
        quick_input: "128 x 128, 8 steps; 0.25 MiB",
        full_input: "2200 x 2200, 10 steps; 74 MiB",
        eval_args: &["--quick", "--size", "320"],
        eval_input: "320 x 320, 8 steps; 1.56 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 128, full: 2200, eval: 320, dims: 2 }),
    },
    Benchmark {
        name: "2mm",
        class: BenchClass::Affine,
        paper_name: None,
        sources: srcs!("affine/mm2.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "two chained matrix products (PolyBench 2mm)",
        quick_input: "n = 64; 0.16 MiB",
        full_input: "n = 1400; 75 MiB",
        eval_args: &["--quick", "--size", "128"],
        eval_input: "n = 128; 0.62 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 64, full: 1400, eval: 128, dims: 2 }),
    },
    Benchmark {
        name: "gemver",
        class: BenchClass::Affine,
        paper_name: None,
        sources: srcs!("affine/gemver.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "rank-2 update plus row- and column-wise matrix-vector products \
                      (PolyBench gemver)",
        quick_input: "n = 384; 1.1 MiB",
        full_input: "n = 3200, 2 repetitions; 78 MiB",
        eval_args: &["--quick", "--size", "960"],
        eval_input: "n = 960; 7.09 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 384, full: 3200, eval: 960, dims: 2 }),
    },
    Benchmark {
        name: "transpose",
        class: BenchClass::Affine,
        paper_name: None,
        sources: srcs!("affine/transpose.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "out-of-place matrix transpose round trips",
        quick_input: "n = 256, 5 round trips; 1 MiB",
        full_input: "n = 2200, 5 round trips; 74 MiB",
        eval_args: &["--quick", "--size", "640"],
        eval_input: "n = 640, 5 round trips; 6.25 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 256, full: 2200, eval: 640, dims: 2 }),
    },
    Benchmark {
        name: "conv2d",
        class: BenchClass::Affine,
        paper_name: None,
        sources: srcs!("affine/conv2d.c"),
        quick_args: &["--quick"],
        full_args: &[],
        inputs: &[],
        description: "2-D convolution with a 5x5 filter",
        quick_input: "128 x 128 image, 2 applications; 0.25 MiB",
        full_input: "2200 x 2200 image, 3 applications; 74 MiB",
        eval_args: &["--quick", "--size", "320"],
        eval_input: "320 x 320 image, 2 applications; 1.56 MiB",
        variants: &[],
        size_knob: Some(SizeKnob { quick: 128, full: 2200, eval: 320, dims: 2 }),
    },
];

/// Every registered benchmark, irregular ones first.
pub fn all() -> &'static [Benchmark] {
    ALL
}

/// The benchmarks of one class.
pub fn of_class(class: BenchClass) -> impl Iterator<Item = &'static Benchmark> {
    ALL.iter().filter(move |b| b.class == class)
}

/// Looks a benchmark up by name.
pub fn by_name(name: &str) -> Result<&'static Benchmark> {
    ALL.iter()
        .find(|b| b.name == name)
        .ok_or_else(|| BenchError::Unknown {
            name: name.to_string(),
            known: ALL.iter().map(|b| b.name).collect::<Vec<_>>().join(", "),
        })
}

/// Directory holding the C sources (`testsuite/benchmarks`).
pub fn benchmarks_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benchmarks")
}

pub use crate::data::data_dir;

fn expand(args: &[&str], data: &Path) -> Vec<String> {
    let d = data.to_string_lossy();
    args.iter().map(|a| a.replace("{data}", &d)).collect()
}

impl Benchmark {
    /// Arguments for a run of the given size, with `{data}` replaced by [`data_dir`].
    pub fn args(&self, size: RunSize) -> Vec<String> {
        let raw = match size {
            RunSize::Quick => self.quick_args,
            RunSize::Full => self.full_args,
        };
        expand(raw, &data_dir())
    }

    /// Arguments of the evaluation's full size ([`Benchmark::eval_args`]).
    pub fn eval_args(&self) -> Vec<String> {
        expand(self.eval_args, &data_dir())
    }

    /// Arguments of a named variant, if it exists.
    pub fn variant_args(&self, variant: &str) -> Option<Vec<String>> {
        self.variants
            .iter()
            .find(|v| v.name == variant)
            .map(|v| expand(v.args, &data_dir()))
    }

    /// Absolute paths of the source files (program first, then support files).
    pub fn source_paths(&self) -> Vec<PathBuf> {
        let dir = benchmarks_dir();
        self.sources.iter().map(|s| dir.join(s)).collect()
    }

    /// Absolute path of the program's own source file (without the support library).
    pub fn main_source(&self) -> PathBuf {
        benchmarks_dir().join(self.sources[0])
    }

    /// Absolute paths of all data files any preset or variant reads.
    pub fn input_paths(&self) -> Vec<PathBuf> {
        let d = data_dir();
        self.inputs
            .iter()
            .chain(self.variants.iter().flat_map(|v| v.inputs.iter()))
            .map(|f| d.join(f))
            .collect()
    }
}

/// How to invoke the C compiler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileOptions {
    /// Compiler command (default `clang-19`).
    pub cc: String,
    /// Optimisation flags (default `-O1 -fno-unroll-loops -fno-vectorize -fno-slp-vectorize`,
    /// which keeps the loop nests in the simple form the weft passes analyse).
    pub opt_flags: Vec<String>,
    /// Extra flags appended to every compile command.
    pub extra_flags: Vec<String>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            cc: "clang-19".to_string(),
            opt_flags: [
                "-O1",
                "-fno-unroll-loops",
                "-fno-vectorize",
                "-fno-slp-vectorize",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            extra_flags: Vec::new(),
        }
    }
}

impl CompileOptions {
    /// The same options with different optimisation flags (e.g. `["-O0"]`).
    pub fn with_opt(mut self, flags: &[&str]) -> Self {
        self.opt_flags = flags.iter().map(|s| s.to_string()).collect();
        self
    }

    fn base_command(&self) -> Command {
        let mut c = Command::new(&self.cc);
        c.arg("-std=c11")
            .args(&self.opt_flags)
            .arg("-Wall")
            .arg(format!("-I{}", benchmarks_dir().join("common").display()))
            .arg(format!(
                "-DWEFT_DATA_DIR=\"{}\"",
                data_dir().to_string_lossy().replace('"', "\\\"")
            ))
            .args(&self.extra_flags);
        c
    }
}

fn run_compiler(mut cmd: Command, cc: &str, what: &str) -> Result<()> {
    let out = cmd.output().map_err(|e| BenchError::CompilerMissing {
        cc: cc.to_string(),
        source: e,
    })?;
    if !out.status.success() {
        return Err(BenchError::CompileFailed {
            what: what.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(())
}

fn ensure_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| BenchError::Io {
        path: dir.to_path_buf(),
        source: e,
    })
}

/// Compiles a benchmark (program + support library) into `out_dir/<name>` and
/// returns the executable's path.
pub fn compile(bench: &Benchmark, out_dir: &Path, opts: &CompileOptions) -> Result<PathBuf> {
    ensure_dir(out_dir)?;
    let exe = out_dir.join(bench.name);
    let mut cmd = opts.base_command();
    cmd.args(bench.source_paths())
        .arg("-lm")
        .arg("-o")
        .arg(&exe);
    run_compiler(cmd, &opts.cc, bench.name)?;
    Ok(exe)
}

/// Emits the textual LLVM IR of the benchmark's own source (not the support
/// library) as `out_dir/<name>.ll`, for the optimizer; link the result with
/// [`compile_support_object`].
pub fn emit_ir(bench: &Benchmark, out_dir: &Path, opts: &CompileOptions) -> Result<PathBuf> {
    ensure_dir(out_dir)?;
    let ll = out_dir.join(format!("{}.ll", bench.name));
    let mut cmd = opts.base_command();
    cmd.arg("-S")
        .arg("-emit-llvm")
        .arg(bench.main_source())
        .arg("-o")
        .arg(&ll);
    run_compiler(cmd, &opts.cc, bench.name)?;
    Ok(ll)
}

/// Compiles the shared support library (`common/weft_bench.c`) to
/// `out_dir/weft_bench.o`.
pub fn compile_support_object(out_dir: &Path, opts: &CompileOptions) -> Result<PathBuf> {
    ensure_dir(out_dir)?;
    let obj = out_dir.join("weft_bench.o");
    let mut cmd = opts.base_command();
    cmd.arg("-c")
        .arg(benchmarks_dir().join(SUPPORT))
        .arg("-o")
        .arg(&obj);
    run_compiler(cmd, &opts.cc, "weft_bench.c")?;
    Ok(obj)
}

/// Links IR/object/source files (e.g. an optimized `.ll` plus the support object
/// and a runtime library) into an executable at `exe`.
pub fn link(
    inputs: &[PathBuf],
    extra_link_args: &[String],
    exe: &Path,
    opts: &CompileOptions,
) -> Result<PathBuf> {
    if let Some(dir) = exe.parent() {
        ensure_dir(dir)?;
    }
    let mut cmd = Command::new(&opts.cc);
    cmd.args(&opts.opt_flags)
        .args(inputs)
        .args(extra_link_args)
        .arg("-lm")
        .arg("-o")
        .arg(exe);
    run_compiler(cmd, &opts.cc, &exe.display().to_string())?;
    Ok(exe.to_path_buf())
}

/// What a benchmark run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutput {
    /// Everything printed on stdout (deterministic).
    pub stdout: String,
    /// Everything printed on stderr (input, working set, time).
    pub stderr: String,
    /// The value of the final `checksum:` line.
    pub checksum: u64,
    /// `working set: N bytes` from stderr, if reported.
    pub working_set_bytes: Option<u64>,
    /// `time: S s` from stderr, if reported.
    pub seconds: Option<f64>,
}

/// Parses the final `checksum: <16 hex digits>` line of a benchmark's stdout.
pub fn parse_checksum(stdout: &str) -> Option<u64> {
    let last = stdout.lines().rev().find(|l| !l.trim().is_empty())?;
    let hex = last.strip_prefix("checksum: ")?.trim();
    if hex.len() != 16 {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// Fails with [`BenchError::Data`], naming the file and what to do, when an argument
/// names a file inside [`data_dir`] that does not exist (checked before a run, so a
/// missing input is not reported as the program's own "cannot open" error).
pub fn check_data_args(args: &[String]) -> Result<()> {
    let dir = data_dir();
    for a in args {
        let p = Path::new(a);
        if let Ok(rel) = p.strip_prefix(&dir) {
            if !p.is_file() {
                return Err(crate::data::missing(rel, p.to_path_buf()).into());
            }
        }
    }
    Ok(())
}

fn find_after<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.split_once(key).map(|(_, rest)| rest.trim()))
}

/// Runs an executable with arguments and collects its output and checksum.
///
/// An argument naming a file inside [`data_dir`] that does not exist fails before the
/// program starts, with [`BenchError::Data`] naming the file and what to do.
pub fn run(exe: &Path, args: &[String]) -> Result<RunOutput> {
    check_data_args(args)?;
    let out = Command::new(exe)
        .args(args)
        .output()
        .map_err(|e| BenchError::Spawn {
            exe: exe.to_path_buf(),
            source: e,
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(BenchError::RunFailed {
            exe: exe.to_path_buf(),
            args: args.to_vec(),
            status: out.status.to_string(),
            stderr,
        });
    }
    let checksum = parse_checksum(&stdout).ok_or_else(|| BenchError::NoChecksum {
        exe: exe.to_path_buf(),
    })?;
    let working_set_bytes = find_after(&stderr, "working set: ")
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok());
    let seconds = find_after(&stderr, ": time: ")
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok());
    Ok(RunOutput {
        stdout,
        stderr,
        checksum,
        working_set_bytes,
        seconds,
    })
}

/// Compiles `bench` into `out_dir` and runs it at the given size.
pub fn compile_and_run(
    bench: &Benchmark,
    size: RunSize,
    out_dir: &Path,
    opts: &CompileOptions,
) -> Result<RunOutput> {
    let exe = compile(bench, out_dir, opts)?;
    run(&exe, &bench.args(size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_sources_exist() {
        let mut seen = HashSet::new();
        for b in all() {
            assert!(seen.insert(b.name), "duplicate benchmark name {}", b.name);
            for p in b.source_paths() {
                assert!(p.is_file(), "{}: missing source {}", b.name, p.display());
            }
            assert!(!b.description.is_empty() && !b.quick_input.is_empty());
        }
    }

    /// A size knob's `eval` value is the `--size` the evaluation passes, and its
    /// `quick`/`full` values are the program's own defaults (documented in the
    /// source's `--size` line), so `--input-scale` scales from the right base.
    #[test]
    fn size_knobs_match_the_arguments_and_sources() {
        let mut knobs = 0;
        for b in all() {
            let Some(k) = b.size_knob else { continue };
            knobs += 1;
            let at = b.eval_args.iter().position(|a| *a == "--size");
            let eval = at.map(|i| b.eval_args[i + 1].parse::<i64>().unwrap());
            assert_eq!(eval, Some(k.eval), "{}: eval --size", b.name);
            let src = std::fs::read_to_string(&b.source_paths()[0]).unwrap();
            let pick = format!(", {}, {})", k.quick, k.full);
            assert!(
                src.lines()
                    .any(|l| l.contains("wb_pick_size(") && l.contains(&pick)),
                "{}: expected `wb_pick_size(..{pick}`",
                b.name
            );
            assert!(k.scaled(k.eval, 1) == k.eval && k.scaled(k.eval, 8) > k.eval);
        }
        assert!(knobs >= 16, "{knobs} benchmarks have a size knob");
    }

    #[test]
    fn both_classes_cover_the_dissertation_lists() {
        let irregular: Vec<_> = of_class(BenchClass::Irregular)
            .filter_map(|b| b.paper_name)
            .collect();
        for name in [
            "Moldyn",
            "STUN",
            "HPCG",
            "MiniFE",
            "GMR",
            "Carey",
            "Equake",
            "GS-Solver",
        ] {
            assert!(irregular.contains(&name), "Table 4.1 app {name} missing");
        }
        let affine = of_class(BenchClass::Affine).count();
        assert!(
            affine >= 12,
            "need mxm, syr2k, 5 SPLASH-2 kernels and 3+ more"
        );
    }

    #[test]
    fn checksum_line_parsing() {
        assert_eq!(
            parse_checksum("x: 1\nchecksum: 00000000000000ff\n"),
            Some(255)
        );
        assert_eq!(parse_checksum("checksum: 0xff\n"), None);
        assert_eq!(parse_checksum("checksum: 00000000000000ff\nmore\n"), None);
        assert_eq!(parse_checksum(""), None);
    }

    #[test]
    fn data_placeholder_is_expanded() {
        let b = by_name("carey").unwrap();
        let args = b.args(RunSize::Quick);
        assert!(args.iter().all(|a| !a.contains("{data}")));
        assert!(args
            .iter()
            .any(|a| a.ends_with("graphs/kron_g14_k16.gapbs.edges")));
        assert!(by_name("nope").is_err());
    }
}
