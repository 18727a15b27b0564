//! Speed figures of the chapter-5 passes (`cargo bench -p weft-passes --bench affine`).
//!
//! 1. Compile-time overhead: for every affine benchmark, the time of the full
//!    affine pipeline (`strip-mine,ib-schedule<scheme=balanced>,loop-permute`,
//!    IR parse + analyses + transformation) against `clang-19 -O1 -c` of the
//!    same source (median of `WEFT_BENCH_REPS`, default 5). Target: < 25 %.
//! 2. Native run time on 2 threads (`WEFT_CORES=2`): each benchmark's own
//!    kernel timer (`<prog>: time: <s>`) for the original program and each
//!    version, best of `WEFT_BENCH_REPS` runs (default 3) at the benchmark's default size
//!    (`WEFT_BENCH_SIZE=quick` for a fast pass). Target: no version slower than
//!    the original by more than 3 %.
//!
//! Prints a table; `WEFT_BENCH_ONLY=<name,...>` restricts the benchmarks.
//!
//! Command (release runtime first, the bench links `target/release/libweft_runtime.a`):
//!
//! ```text
//! cargo build --release -p weft-runtime
//! WEFT_BENCH_REPS=3 cargo bench -p weft-passes --bench affine
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use inkwell::context::Context;
use weft_frontend::ClangOptions;
use weft_passes::{PassManager, PipelineConfig};

const FULL: &str = "strip-mine,ib-schedule<scheme=balanced>,loop-permute";

const VERSIONS: &[(&str, &str)] = &[
    ("default", "ib-schedule<scheme=default>"),
    ("clustering", "cluster-misses"),
    (
        "mlp-first",
        "strip-mine,ib-schedule<scheme=mlp-first>,loop-permute",
    ),
    (
        "clp-first",
        "strip-mine,ib-schedule<scheme=clp-first>,loop-permute",
    ),
    ("balanced", FULL),
    (
        "la-mlp",
        "strip-mine,ib-schedule<scheme=la-mlp>,loop-permute",
    ),
];

fn best(v: Vec<f64>) -> f64 {
    v.into_iter().fold(f64::INFINITY, f64::min)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn kernel_time(exe: &Path, quick: bool) -> f64 {
    let mut c = Command::new(exe);
    if quick {
        c.arg("--quick");
    }
    let out = c.env("WEFT_CORES", "2").output().expect("run");
    assert!(out.status.success(), "{} failed", exe.display());
    let err = String::from_utf8_lossy(&out.stderr);
    err.lines()
        .find_map(|l| {
            let i = l.find(": time: ")?;
            l[i + 8..].trim().trim_end_matches(" s").parse::<f64>().ok()
        })
        .unwrap_or_else(|| panic!("{}: no time line in {err}", exe.display()))
}

fn main() {
    let reps: usize = std::env::var("WEFT_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    let quick = std::env::var("WEFT_BENCH_SIZE")
        .map(|v| v == "quick")
        .unwrap_or(false);
    let only: Vec<String> = std::env::var("WEFT_BENCH_ONLY")
        .map(|v| v.split(',').map(|s| s.to_string()).collect())
        .unwrap_or_default();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testsuite/benchmarks");
    let support = dir.join("common/weft_bench.c");
    let runtime = weft_passes::link::find_runtime(None).expect("libweft_runtime.a");
    let tmp = tempfile::tempdir().unwrap();
    let mut flags = ClangOptions::default_flags();
    flags.push(format!("-I{}", dir.join("common").display()));
    let clang = ClangOptions {
        clang: "clang-19".into(),
        flags: flags.clone(),
    };
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(dir.join("affine"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().map(|x| x == "c").unwrap_or(false))
        .collect();
    srcs.sort();
    println!("# compile time (median of {reps}): clang-19 -O1 -c vs the affine pipeline `{FULL}`");
    println!(
        "{:<10} {:>10} {:>12} {:>9}",
        "bench", "clang_ms", "pipeline_ms", "overhead"
    );
    let (mut tc, mut tp) = (0.0, 0.0);
    let mut irs = Vec::new();
    for src in &srcs {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        if !only.is_empty() && !only.contains(&name) {
            continue;
        }
        let ir = weft_frontend::compile_c(src, &clang).unwrap();
        let mut c_times = Vec::new();
        let mut p_times = Vec::new();
        for _ in 0..reps {
            let obj = tmp.path().join(format!("{name}.o"));
            let t = Instant::now();
            let st = Command::new("clang-19")
                .args(["-O1", "-c", "-I"])
                .arg(dir.join("common"))
                .arg(src)
                .arg("-o")
                .arg(&obj)
                .status()
                .unwrap();
            assert!(st.success());
            c_times.push(t.elapsed().as_secs_f64());
            let cx = Context::create();
            let t = Instant::now();
            let m = weft_frontend::parse_ir(&cx, &ir, &name).unwrap();
            let mut cfg = PipelineConfig::new();
            cfg.verify_each = false;
            PassManager::parse(FULL, cfg).unwrap().run(&m).unwrap();
            p_times.push(t.elapsed().as_secs_f64());
        }
        let (c, p) = (median(c_times), median(p_times));
        tc += c;
        tp += p;
        println!(
            "{:<10} {:>10.1} {:>12.1} {:>8.1}%",
            name,
            c * 1e3,
            p * 1e3,
            100.0 * p / c
        );
        irs.push((name, ir));
    }
    println!(
        "{:<10} {:>10.1} {:>12.1} {:>8.1}%",
        "total",
        tc * 1e3,
        tp * 1e3,
        100.0 * tp / tc
    );

    println!(
        "\n# native kernel time on 2 threads (WEFT_CORES=2), best of {reps}, {} size; ratio = version / original",
        if quick { "quick" } else { "default" }
    );
    print!("{:<10} {:>11}", "bench", "original_s");
    for (v, _) in VERSIONS {
        print!(" {:>12}", v);
    }
    println!();
    for (name, ir) in &irs {
        let ll = tmp.path().join(format!("{name}.ll"));
        std::fs::write(&ll, ir).unwrap();
        let orig = tmp.path().join(format!("{name}.orig"));
        weft_passes::link::link("clang-19", "-O1", &[&ll, &support], &runtime, &orig).unwrap();
        let mut exes = Vec::new();
        for (v, p) in VERSIONS {
            let cx = Context::create();
            let m = weft_frontend::parse_ir(&cx, ir, name).unwrap();
            // What `weft build` does by default (short loops inline).
            let cfg = PipelineConfig {
                min_parallel_iters: weft_passes::manager::DEFAULT_MIN_PARALLEL_ITERS,
                ..PipelineConfig::new()
            };
            PassManager::parse(p, cfg).unwrap().run(&m).unwrap();
            let vll = tmp.path().join(format!("{name}.{v}.ll"));
            std::fs::write(&vll, m.print_to_string().to_string()).unwrap();
            let exe = tmp.path().join(format!("{name}.{v}"));
            weft_passes::link::link("clang-19", "-O1", &[&vll, &support], &runtime, &exe).unwrap();
            exes.push(exe);
        }
        // Interleave the runs so background load affects all versions alike.
        let mut t_orig = Vec::new();
        let mut t_v = vec![Vec::new(); exes.len()];
        for _ in 0..reps {
            t_orig.push(kernel_time(&orig, quick));
            for (k, e) in exes.iter().enumerate() {
                t_v[k].push(kernel_time(e, quick));
            }
        }
        let o = best(t_orig);
        print!("{:<10} {:>11.4}", name, o);
        for tv in t_v {
            let m = best(tv);
            print!(" {:>6.4} {:>4.2}x", m, m / o);
        }
        println!();
    }
}
