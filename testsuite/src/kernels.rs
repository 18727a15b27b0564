//! The kernel corpus (`testsuite/benchmarks/kernels/`, `docs/kernels.md`) and
//! the no-regression benchmark behind `weft bench kernels` (issue 34 part 5).
//!
//! The corpus holds small C kernels of the kinds a new user tries first (dense
//! linear algebra, triangular and symmetric solvers, factorizations, 1-3-D
//! stencils, statistics, dynamic programming, index-array loops), written for
//! weft, each with a checksum line and a small (`--quick`) and medium (default)
//! size. They reuse [`crate::bench`]'s compile/run helpers: every kernel is a
//! [`Benchmark`] whose source lives under `kernels/`, kept out of
//! [`crate::bench::all`] so `weft eval` does not pick it up.
//!
//! Measurement rule: every variant (the `--passes=none` build and each
//! pipeline) is built from the same `-O1` IR and linked at `-O1` with the
//! runtime, as `weft eval` builds; runs are interleaved (run `r` of every
//! variant of every kernel before run `r+1` of any, so a slow spell of the
//! shared host hits one or two runs of each cell rather than all of them) on a
//! fixed memory layout; the time is the program's own
//! timed region (`time:` on stderr, inspection and scheduling included) and the
//! figure is the median over runs. A run longer than the timeout is killed and
//! reported as such (the pathological builds of issue 34 ran for minutes).
//! `weft bench kernels --time program` takes the program's `program:` line
//! instead (from before `main` to the end: initialisation, kernel and
//! checksum), which also shows what the passes did to the initialisation
//! loops the timed region leaves out.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::bench::{self, BenchClass, Benchmark, CompileOptions};

macro_rules! kernel {
    ($name:literal, $class:ident, $what:literal, $small:literal, $medium:literal) => {
        Benchmark {
            name: $name,
            class: BenchClass::$class,
            paper_name: None,
            sources: &[concat!("kernels/", $name, ".c"), "common/weft_bench.c"],
            quick_args: &["--quick"],
            full_args: &[],
            inputs: &[],
            description: $what,
            quick_input: $small,
            full_input: $medium,
            variants: &[],
            eval_args: &[],
            eval_input: $medium,
            size_knob: None,
        }
    };
}

static KERNELS: &[Benchmark] = &[
    // dense linear algebra
    kernel!(
        "gemm",
        Affine,
        "C = beta C + alpha A B (restrict)",
        "n 72",
        "n 280"
    ),
    kernel!(
        "symm",
        Affine,
        "symmetric product, lower triangle of A (helper allocator)",
        "n 64",
        "n 240"
    ),
    kernel!(
        "trmm",
        Affine,
        "in-place triangular product B = alpha A^T B (globals)",
        "n 64",
        "n 240"
    ),
    kernel!(
        "syrk",
        Affine,
        "symmetric rank-k update, lower triangle (restrict)",
        "n 72",
        "n 280"
    ),
    kernel!(
        "gemver",
        Affine,
        "rank-2 update and matrix-vector products (helper allocator)",
        "n 400",
        "n 1600"
    ),
    kernel!("atax", Affine, "y = A^T A x (restrict)", "n 400", "n 1600"),
    kernel!(
        "bicg",
        Affine,
        "s = A^T r, q = A p in one sweep (globals)",
        "n 200",
        "n 400"
    ),
    kernel!(
        "mvt",
        Affine,
        "x1 += A y1, x2 += A^T y2 (helper allocator)",
        "n 400",
        "n 1600"
    ),
    kernel!(
        "mm2",
        Affine,
        "D = beta D + alpha A B C (restrict)",
        "n 64",
        "n 220"
    ),
    kernel!(
        "mm3",
        Affine,
        "G = (A B)(C D) (helper allocator)",
        "n 56",
        "n 200"
    ),
    kernel!(
        "doitgen",
        Affine,
        "tensor contraction over a 3-D array (restrict)",
        "n 24",
        "n 72"
    ),
    // solvers and factorizations
    kernel!(
        "trisolv",
        Affine,
        "forward substitution, 3 right-hand sides (restrict)",
        "n 400",
        "n 2000"
    ),
    kernel!(
        "cholesky",
        Affine,
        "in-place Cholesky, whole nest (helper allocator)",
        "n 96",
        "n 360"
    ),
    kernel!(
        "lu",
        Affine,
        "in-place LU without pivoting (globals)",
        "n 96",
        "n 360"
    ),
    kernel!(
        "durbin",
        Affine,
        "Levinson-Durbin recursion (restrict)",
        "n 800",
        "n 4000"
    ),
    kernel!(
        "gramschmidt",
        Affine,
        "modified Gram-Schmidt QR (helper allocator)",
        "n 64",
        "n 200"
    ),
    // stencils
    kernel!(
        "jacobi1d",
        Affine,
        "3-point Jacobi, two buffers (restrict)",
        "n 4000, 20 steps",
        "n 200000, 40 steps"
    ),
    kernel!(
        "jacobi2d",
        Affine,
        "5-point Jacobi, two buffers (globals)",
        "120^2, 6 steps",
        "400^2, 20 steps"
    ),
    kernel!(
        "heat3d",
        Affine,
        "7-point heat equation in 3-D (helper allocator)",
        "24^3, 4 steps",
        "72^3, 10 steps"
    ),
    kernel!(
        "seidel2d",
        Affine,
        "9-point Gauss-Seidel in place (restrict)",
        "120^2, 4 steps",
        "500^2, 8 steps"
    ),
    kernel!(
        "fdtd2d",
        Affine,
        "2-D FDTD, three coupled fields (helper allocator)",
        "100^2, 6 steps",
        "400^2, 16 steps"
    ),
    kernel!(
        "blur2d",
        Affine,
        "separable 5-tap blur (globals)",
        "160^2, 2 steps",
        "400^2, 8 steps"
    ),
    // statistics and data mining
    kernel!(
        "covariance",
        Affine,
        "covariance matrix (restrict)",
        "m 64",
        "m 240"
    ),
    kernel!(
        "correlation",
        Affine,
        "correlation matrix (helper allocator)",
        "m 64",
        "m 240"
    ),
    kernel!(
        "zscore",
        Affine,
        "column z-scores of a table (restrict)",
        "600 x 48",
        "12000 x 48"
    ),
    kernel!(
        "kmeans",
        Irregular,
        "k-means assignment and update (helper allocator)",
        "2000 points",
        "60000 points"
    ),
    // dynamic programming
    kernel!(
        "nussinov",
        Affine,
        "base-pair maximisation over a triangle (globals)",
        "n 120",
        "n 400"
    ),
    kernel!(
        "floyd",
        Affine,
        "Floyd-Warshall shortest paths (restrict)",
        "n 96",
        "n 320"
    ),
    kernel!(
        "lcs",
        Affine,
        "longest-common-subsequence table (helper allocator)",
        "n 400",
        "n 3000"
    ),
    kernel!(
        "knapsack",
        Irregular,
        "0/1 knapsack table (restrict)",
        "120 items",
        "800 items"
    ),
    // index-array loops
    kernel!(
        "spmv",
        Irregular,
        "CSR y = A x, 8 products (helper allocator)",
        "4000 rows",
        "200000 rows"
    ),
    kernel!(
        "histogram",
        Irregular,
        "weighted histogram by index (restrict)",
        "20000 samples",
        "10^6 samples"
    ),
    kernel!(
        "gather",
        Irregular,
        "y = a x[idx] + y through a permutation (restrict)",
        "20000",
        "10^6"
    ),
    kernel!(
        "scatter",
        Irregular,
        "y[perm] = x + c through a permutation (helper allocator)",
        "20000",
        "10^6"
    ),
];

/// Every kernel of the corpus.
pub fn all() -> &'static [Benchmark] {
    KERNELS
}

/// Looks kernels up by name (`None`: all of them); an unknown name is an error
/// listing the known ones.
pub fn select(names: Option<&[String]>) -> bench::Result<Vec<&'static Benchmark>> {
    let Some(names) = names else {
        return Ok(KERNELS.iter().collect());
    };
    names
        .iter()
        .map(|n| {
            KERNELS
                .iter()
                .find(|k| k.name == n)
                .ok_or_else(|| bench::BenchError::Unknown {
                    name: n.clone(),
                    known: KERNELS
                        .iter()
                        .map(|k| k.name)
                        .collect::<Vec<_>>()
                        .join(", "),
                })
        })
        .collect()
}

/// Chapter 5 pipeline of one scheme (`strip-mine,ib-schedule<scheme=..>,loop-permute`).
pub fn chapter5_pipeline(scheme: &str) -> String {
    format!("strip-mine,ib-schedule<scheme={scheme}>,loop-permute")
}

/// The pipelines `weft bench kernels` compares with `--passes=none`: the
/// default pipeline and the chapter 5 pipeline of every scheme `ib-schedule`
/// accepts.
pub fn pipelines() -> Vec<(String, String)> {
    let mut v = vec![(
        "default".to_string(),
        weft_passes::DEFAULT_PIPELINE.to_string(),
    )];
    for s in weft_passes::ib_schedule::SCHEMES {
        v.push((format!("ch5:{s}"), chapter5_pipeline(s)));
    }
    v
}

/// One built variant of a kernel.
#[derive(Debug, Clone)]
pub struct Built {
    /// The executable.
    pub exe: PathBuf,
    /// Loops a transforming pass reported applied in `kernel_*` functions
    /// (`strip-mine`'s plans, which change no code, are not counted).
    pub transformed: usize,
    /// Every remark, as `weft build --remarks` prints them.
    pub remarks: Vec<String>,
}

/// The IR, support object and runtime a kernel's variants are built from.
pub struct Sources {
    /// `-O1` IR of the kernel's own source.
    pub ir: PathBuf,
    /// The support library's object.
    pub support: PathBuf,
    /// `libweft_runtime.a`.
    pub runtime: PathBuf,
    /// Code-generation flags given to the linking compiler after `-O1`
    /// (`weft bench kernels` puts `-falign-loops=64` here: every variant's
    /// loops start on a cache line, so that where a hot loop falls in the
    /// binary does not decide a cell; empty in [`sources`]).
    pub codegen_flags: Vec<String>,
}

/// Emits the kernel's IR into `dir` (and the support object), once per kernel.
pub fn sources(k: &Benchmark, dir: &Path) -> Result<Sources, String> {
    let opts = CompileOptions::default();
    let ir = bench::emit_ir(k, dir, &opts).map_err(|e| e.to_string())?;
    let support = bench::compile_support_object(dir, &opts).map_err(|e| e.to_string())?;
    let runtime = weft_passes::link::find_runtime(None).map_err(|e| e.to_string())?;
    Ok(Sources {
        ir,
        support,
        runtime,
        codegen_flags: Vec::new(),
    })
}

/// Optimizes the kernel's IR with `pipeline` (`none`: unchanged) and links it
/// as `dir/<name>`.
pub fn build(src: &Sources, pipeline: &str, dir: &Path, name: &str) -> Result<Built, String> {
    let ctx = inkwell::context::Context::create();
    let module = weft_frontend::load_module(&ctx, &src.ir, &Default::default())
        .map_err(|e| e.to_string())?;
    let cfg = weft_passes::PipelineConfig {
        min_parallel_iters: weft_passes::manager::DEFAULT_MIN_PARALLEL_ITERS,
        serial_consumer_bytes: weft_passes::placement::DEFAULT_SERIAL_CONSUMER_BYTES,
        ..weft_passes::PipelineConfig::new()
    };
    let pm = weft_passes::PassManager::parse(pipeline, cfg)
        .map_err(|e| format!("pipeline `{pipeline}`: {e}"))?;
    let report = pm.run(&module).map_err(|e| format!("{pipeline}: {e}"))?;
    weft_passes::manager::verify(&module, "the last pass").map_err(|e| e.to_string())?;
    let transformed = report
        .remarks
        .iter()
        .filter(|r| {
            r.kind == weft_passes::RemarkKind::Applied
                && r.function.starts_with("kernel_")
                && r.pass != "strip-mine"
        })
        .count();
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let bc = dir.join(format!("{name}.bc"));
    if !module.write_bitcode_to_path(&bc) {
        return Err(format!("writing {}", bc.display()));
    }
    let exe = dir.join(name);
    // (no debug information: never read here, as in `weft eval`)
    let flags: Vec<String> = src
        .codegen_flags
        .iter()
        .cloned()
        .chain(std::iter::once(weft_passes::link::STRIP_DEBUG.to_string()))
        .collect();
    weft_passes::link::link_with(
        "clang-19",
        "-O1",
        &flags,
        &[&bc, &src.support],
        &src.runtime,
        &exe,
    )
    .map_err(|e| e.to_string())?;
    Ok(Built {
        exe,
        transformed,
        remarks: report.remarks.iter().map(|r| r.to_string()).collect(),
    })
}

/// What one run gave.
#[derive(Debug, Clone, PartialEq)]
pub enum RunResult {
    /// Finished: the timed region's seconds and the checksum.
    Done {
        /// `time:` on stderr.
        seconds: f64,
        /// `program:` on stderr (from before `main` to the end of the run),
        /// when printed.
        program: Option<f64>,
        /// The checksum line's value.
        checksum: u64,
    },
    /// Killed after the timeout.
    Timeout,
    /// Failed (status, no checksum, cannot start): the message.
    Failed(String),
}

/// Runs `exe` with `args` on `cores` workers (no statistics, no trace, fixed
/// memory layout), killing it after `timeout`.
pub fn run_once(exe: &Path, args: &[String], cores: u32, timeout: Duration) -> RunResult {
    let mut cmd = Command::new(exe);
    weft_passes::link::reproducible_layout(&mut cmd)
        .args(args)
        .env("WEFT_CORES", cores.to_string())
        .env_remove("WEFT_STATS")
        .env_remove("WEFT_TRACE")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return RunResult::Failed(format!("{}: {e}", exe.display())),
    };
    // Drain the pipes on threads so a chatty child cannot block.
    let drain = |p: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(mut p) = p {
                let _ = p.read_to_string(&mut s);
            }
            s
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return RunResult::Timeout;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => return RunResult::Failed(e.to_string()),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if !status.success() {
        let last = stderr.lines().last().unwrap_or("").to_string();
        return RunResult::Failed(format!("exit {status}: {last}"));
    }
    let Some(checksum) = bench::parse_checksum(&stdout) else {
        return RunResult::Failed("no checksum line".into());
    };
    // The first line with `key` followed by a number (`<prog>: time: S s`).
    let seconds_after = |key: &str| {
        stderr.lines().find_map(|l| {
            l.split_once(key)
                .and_then(|(_, r)| r.split_whitespace().next())
                .and_then(|v| v.parse::<f64>().ok())
        })
    };
    let program = seconds_after(": program: ");
    match seconds_after(": time: ") {
        Some(seconds) => RunResult::Done {
            seconds,
            program,
            checksum,
        },
        None => RunResult::Failed("no `time:` line on stderr".into()),
    }
}

/// Median of `v` (the upper one of an even count); `None` when empty.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied()
}

/// One-sided exact Mann-Whitney test: the probability, if `a` and `b` came
/// from one distribution, of a U statistic (pairs with `a_i > b_j`, ties
/// counting half) at least as large as the observed one: small when `a` is
/// systematically larger (slower) than `b`. With 5 runs against 5 the
/// smallest possible value is 1/252 ≈ 0.004. `None` when either is empty.
/// Exact by counting rank arrangements (`n·m` at most a few hundred here);
/// ties are counted half, which makes the test slightly conservative.
pub fn mann_whitney_greater(a: &[f64], b: &[f64]) -> Option<f64> {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return None;
    }
    let mut u2 = 0usize; // 2U, so ties stay integral
    for x in a {
        for y in b {
            u2 += match x.total_cmp(y) {
                std::cmp::Ordering::Greater => 2,
                std::cmp::Ordering::Equal => 1,
                std::cmp::Ordering::Less => 0,
            };
        }
    }
    // ways[i][j][u]: arrangements of i a's and j b's with U = u.
    let max = n * m;
    let mut ways = vec![vec![vec![0f64; max + 1]; m + 1]; n + 1];
    for j in 0..=m {
        ways[0][j][0] = 1.0;
    }
    for i in 1..=n {
        ways[i][0][0] = 1.0;
        for j in 1..=m {
            for u in 0..=i * j {
                // The largest value is an a (beating all j b's) or a b.
                let with_a = if u >= j { ways[i - 1][j][u - j] } else { 0.0 };
                ways[i][j][u] = with_a + ways[i][j - 1][u];
            }
        }
    }
    let total: f64 = ways[n][m].iter().sum();
    let at_least: f64 = ways[n][m]
        .iter()
        .enumerate()
        .filter(|(u, _)| 2 * u >= u2)
        .map(|(_, w)| w)
        .sum();
    Some(at_least / total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed: 5 against 5 all larger gives 1/C(10,5) = 1/252; all
    /// smaller gives 1; one swap (U = 24) gives 2/252.
    #[test]
    fn mann_whitney_exact_values() {
        let hi = [6.0, 7.0, 8.0, 9.0, 10.0];
        let lo = [1.0, 2.0, 3.0, 4.0, 5.0];
        let p = mann_whitney_greater(&hi, &lo).unwrap();
        assert!((p - 1.0 / 252.0).abs() < 1e-12, "{p}");
        assert!((mann_whitney_greater(&lo, &hi).unwrap() - 1.0).abs() < 1e-12);
        let swapped = [4.5, 7.0, 8.0, 9.0, 10.0]; // 4.5 < 5.0: U = 24
        let p = mann_whitney_greater(&swapped, &lo).unwrap();
        assert!((p - 2.0 / 252.0).abs() < 1e-12, "{p}");
        // 1 against 1: P(U >= 1) = 1/2.
        assert_eq!(mann_whitney_greater(&[2.0], &[1.0]), Some(0.5));
        assert_eq!(mann_whitney_greater(&[], &[1.0]), None);
    }

    #[test]
    fn corpus_is_complete_and_sources_exist() {
        assert!(KERNELS.len() >= 30, "{} kernels", KERNELS.len());
        let mut seen = std::collections::HashSet::new();
        for k in KERNELS {
            assert!(seen.insert(k.name), "duplicate kernel {}", k.name);
            for p in k.source_paths() {
                assert!(p.is_file(), "{}: missing {}", k.name, p.display());
            }
            let src = std::fs::read_to_string(k.main_source()).unwrap();
            assert!(src.contains("kernel_"), "{}: no kernel_ function", k.name);
            assert!(
                src.contains("wb_pick_size("),
                "{}: no size argument",
                k.name
            );
        }
        // The three array styles of the corpus are all present.
        let styles = ["restrict", "kc_array", "static double"];
        for s in styles {
            assert!(
                KERNELS
                    .iter()
                    .any(|k| std::fs::read_to_string(k.main_source())
                        .unwrap()
                        .contains(s)),
                "no kernel uses {s}"
            );
        }
        // The registry and the directory agree.
        let on_disk = std::fs::read_dir(bench::benchmarks_dir().join("kernels"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "c"))
            .count();
        assert_eq!(on_disk, KERNELS.len());
    }

    #[test]
    fn selection_and_pipelines() {
        let names = vec!["gemm".to_string(), "lu".to_string()];
        let v = select(Some(&names)).unwrap();
        assert_eq!(v.iter().map(|k| k.name).collect::<Vec<_>>(), ["gemm", "lu"]);
        assert!(select(Some(&["nope".to_string()])).is_err());
        let p = pipelines();
        assert_eq!(p.len(), 1 + weft_passes::ib_schedule::SCHEMES.len());
        for (_, pipe) in &p {
            weft_passes::PassManager::parse(pipe, weft_passes::PipelineConfig::new()).unwrap();
        }
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[]), None);
    }
}
