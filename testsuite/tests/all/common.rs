//! Shared fixtures: every benchmark compiled once at -O1 and once at -O0.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use weft_testsuite::bench::{self, CompileOptions};

/// Executables of every benchmark for one set of compile options.
pub struct Built {
    _dir: tempfile::TempDir,
    /// benchmark name -> executable (or the compile error text)
    pub exes: HashMap<&'static str, Result<PathBuf, String>>,
}

/// Compiles every benchmark on plain scoped threads, not on rayon's pool: this
/// runs inside a `OnceLock` initialiser that tests may reach from rayon
/// workers (`exe()` inside a `par_iter`); if the initialiser needed those
/// workers while they block on the `OnceLock`, the tests would deadlock.
fn build_all(opt: &[&str]) -> Built {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = CompileOptions::default().with_opt(opt);
    let all = bench::all();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let per = all.len().div_ceil(threads.max(1)).max(1);
    let exes = std::thread::scope(|s| {
        let handles: Vec<_> = all
            .chunks(per)
            .map(|chunk| {
                let (dir, opts) = (dir.path(), &opts);
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|b| {
                            (
                                b.name,
                                bench::compile(b, dir, opts).map_err(|e| e.to_string()),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("benchmark compile thread panicked"))
            .collect()
    });
    Built { _dir: dir, exes }
}

/// Benchmarks built with the registry's default flags (-O1, no unrolling/vectorizing).
pub fn built_o1() -> &'static Built {
    static B: OnceLock<Built> = OnceLock::new();
    B.get_or_init(|| {
        build_all(&[
            "-O1",
            "-fno-unroll-loops",
            "-fno-vectorize",
            "-fno-slp-vectorize",
        ])
    })
}

/// Benchmarks built at -O0 (differential check against -O1 for undefined behaviour).
pub fn built_o0() -> &'static Built {
    static B: OnceLock<Built> = OnceLock::new();
    B.get_or_init(|| build_all(&["-O0"]))
}

/// The -O1 executable of a benchmark (panics with the compiler output on failure).
pub fn exe(name: &str) -> &'static Path {
    match built_o1().exes.get(name) {
        Some(Ok(p)) => p,
        Some(Err(e)) => panic!("{name} failed to compile: {e}"),
        None => panic!("{name} is not registered"),
    }
}

/// The loadcheck tool (prints what the C loaders read from a data file).
pub fn loadcheck() -> &'static Path {
    static L: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, p) = L.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let exe = dir.path().join("loadcheck");
        let common = bench::benchmarks_dir().join("common");
        with_support(&common.join("loadcheck.c"), &exe);
        (dir, exe)
    });
    p
}

/// Compiles the C program `src` with the benchmarks' support library
/// (`common/weft_bench.c`) into `exe` (panics with the compiler output on failure).
pub fn with_support(src: &Path, exe: &Path) {
    let common = bench::benchmarks_dir().join("common");
    let out = Command::new("clang-19")
        .args(["-std=c11", "-O1", "-Wall"])
        .arg(format!("-I{}", common.display()))
        .arg(src)
        .arg(common.join("weft_bench.c"))
        .arg("-lm")
        .arg("-o")
        .arg(exe)
        .output()
        .expect("clang-19 must be installed");
    assert!(
        out.status.success(),
        "{} failed to compile:\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
