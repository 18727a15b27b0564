//! Differential test of the chapter-5 passes over every affine benchmark
//! kernel of the testsuite (`testsuite/benchmarks/affine/*.c`).
//!
//! Each benchmark is compiled to IR with the frontend's flags, linked untouched
//! as the reference, and transformed by each evaluated version's pipeline
//! ([`PIPELINES`]); every transformed program must print the reference's
//! `checksum:` line bit for bit at 2 worker threads and at one more count,
//! 1 or 3 alternating over (benchmark, version) pairs so every version meets
//! both across the suite (the runtime reads `WEFT_CORES`; two runs per pair
//! instead of three keep this, the largest CI item, within budget). The test also requires that each pipeline transforms at
//! least one `kernel_*` loop nest, so it cannot pass by doing nothing, and
//! prints the counts.

use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context;
use weft_frontend::ClangOptions;
use weft_passes::{PassManager, PipelineConfig, RemarkKind};

/// The versions of §5.6.1 the passes implement and their pipeline strings
/// (`min-work=0`: every execution goes through the runtime, whose paths this
/// test is about; the run-time work guard is covered by the kernel corpus's
/// differential test in `tests/all/differential.rs`).
pub const PIPELINES: &[(&str, &str)] = &[
    ("default", "ib-schedule<scheme=default,min-work=0>"),
    ("clustering", "cluster-misses<min-work=0>"),
    (
        "mlp-first",
        "strip-mine,ib-schedule<scheme=mlp-first,min-work=0>,loop-permute",
    ),
    (
        "clp-first",
        "strip-mine,ib-schedule<scheme=clp-first,min-work=0>,loop-permute",
    ),
    (
        "balanced",
        "strip-mine,ib-schedule<scheme=balanced,min-work=0>,loop-permute",
    ),
    (
        "la-mlp",
        "strip-mine,ib-schedule<scheme=la-mlp,min-work=0>,loop-permute",
    ),
];

/// Worker counts of pair (benchmark `i`, version `k`): always 2, plus 1 or 3.
fn cores_for(i: usize, k: usize) -> [u32; 2] {
    [2, if (i + k) % 2 == 0 { 1 } else { 3 }]
}

fn bench_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testsuite/benchmarks")
}

fn sources() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(bench_dir().join("affine"))
        .expect("affine benchmarks")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().map(|x| x == "c").unwrap_or(false))
        .collect();
    v.sort();
    v
}

fn checksum(exe: &Path, cores: u32) -> String {
    let out = Command::new(exe)
        .arg("--quick")
        .env("WEFT_CORES", cores.to_string())
        .env_remove("WEFT_TRACE")
        .output()
        .expect("run benchmark");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{} failed at {cores} core(s): {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .find(|l| l.starts_with("checksum:"))
        .unwrap_or_else(|| panic!("{}: no checksum line in {stdout}", exe.display()))
        .to_string()
}

#[test]
fn affine_benchmarks_bit_identical() {
    let runtime = weft_passes::link::find_runtime(None).expect("libweft_runtime.a");
    let tmp = tempfile::tempdir().unwrap();
    let support = bench_dir().join("common/weft_bench.c");
    let mut flags = ClangOptions::default_flags();
    flags.push(format!("-I{}", bench_dir().join("common").display()));
    let clang = ClangOptions {
        clang: "clang-19".into(),
        flags,
    };
    let mut runs = 0;
    // One IR file with the support library and the runtime, without debug
    // information (never read here).
    let strip = [weft_passes::link::STRIP_DEBUG.to_string()];
    let link = |ll: &Path, exe: &Path| {
        weft_passes::link::link_with("clang-19", "-O1", &strip, &[ll, &support], &runtime, exe)
    };
    let mut transformed = vec![Vec::<String>::new(); PIPELINES.len()];
    let srcs = sources();
    assert!(
        srcs.len() >= 10,
        "expected the affine benchmarks, found {}",
        srcs.len()
    );
    for (bi, src) in srcs.iter().enumerate() {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        let ir = weft_frontend::compile_c(src, &clang).expect("compile benchmark");
        let orig_ll = tmp.path().join(format!("{name}.ll"));
        std::fs::write(&orig_ll, &ir).unwrap();
        let orig = tmp.path().join(&name);
        link(&orig_ll, &orig).expect("link original");
        let reference = checksum(&orig, 1);
        for (k, (version, pipeline)) in PIPELINES.iter().enumerate() {
            let cx = Context::create();
            let m = weft_frontend::parse_ir(&cx, &ir, &name).unwrap();
            let pm = PassManager::parse(pipeline, PipelineConfig::new()).unwrap();
            let report = pm
                .run(&m)
                .unwrap_or_else(|e| panic!("{name} / {version}: {e}"));
            let mut kernels: Vec<String> = report
                .remarks
                .iter()
                .filter(|r| r.kind == RemarkKind::Applied && r.function.starts_with("kernel_"))
                .filter(|r| r.pass != "strip-mine")
                .map(|r| r.function.clone())
                .collect();
            kernels.dedup();
            for kf in kernels {
                transformed[k].push(format!("{name}:{kf}"));
            }
            let ll = tmp.path().join(format!("{name}.{version}.ll"));
            std::fs::write(&ll, m.print_to_string().to_string()).unwrap();
            let exe = tmp.path().join(format!("{name}.{version}"));
            link(&ll, &exe).unwrap_or_else(|e| panic!("{name} / {version}: {e}"));
            for p in cores_for(bi, k) {
                let got = checksum(&exe, p);
                assert_eq!(
                    got, reference,
                    "{name} / {version} at {p} core(s) differs from the original"
                );
                runs += 1;
            }
        }
    }
    for (k, (version, _)) in PIPELINES.iter().enumerate() {
        let mut t = transformed[k].clone();
        t.sort();
        t.dedup();
        eprintln!(
            "affine diff: {version}: {} kernel(s) transformed: {}",
            t.len(),
            t.join(" ")
        );
        assert!(!t.is_empty(), "{version} transformed no kernel");
    }
    eprintln!(
        "affine diff: {} benchmark(s) x {} version(s) x 2 core counts = {runs} bit-identical runs",
        srcs.len(),
        PIPELINES.len()
    );
    assert_eq!(runs, srcs.len() * PIPELINES.len() * 2);
}

/// The executor call really runs the Algorithm 5 schedule (not the sequential
/// fallback): the runtime's stats name the scheme, cover every iteration, and
/// record the IB size, the eq. 5.1 window and the β values of the windows.
#[test]
fn schedule_runs_and_reports_ib_iw_beta() {
    let runtime = weft_passes::link::find_runtime(None).expect("libweft_runtime.a");
    let tmp = tempfile::tempdir().unwrap();
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testsuite/filetests/ib-schedule/vec_balanced.ll");
    let text = std::fs::read_to_string(&src).unwrap();
    let cx = Context::create();
    let m = weft_frontend::parse_ir(&cx, &text, "vec").unwrap();
    PassManager::parse(
        "strip-mine,ib-schedule<scheme=balanced,min-work=0>,loop-permute",
        PipelineConfig::new(),
    )
    .unwrap()
    .run(&m)
    .unwrap();
    let ll = tmp.path().join("vec.ll");
    std::fs::write(&ll, m.print_to_string().to_string()).unwrap();
    let drv = tmp.path().join("main.c");
    std::fs::write(
        &drv,
        "#include <stdio.h>\nlong test(long);\nint main(void){printf(\"%ld\\n\", test(5000));return 0;}\n",
    )
    .unwrap();
    let exe = tmp.path().join("vec");
    weft_passes::link::link("clang-19", "-O1", &[&drv, &ll], &runtime, &exe).unwrap();
    let stats = tmp.path().join("stats.json");
    // Count mode: natively in time mode a nest called once runs static
    // chunks without a plan (payoff rule 4, docs/runtime.md); this test is
    // about the schedule the pass's call produces.
    let out = Command::new(&exe)
        .env("WEFT_CORES", "2")
        .env("WEFT_STATS", &stats)
        .env("WEFT_PAYOFF", "count")
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let kernel = v["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == 0x10000)
        .expect("the kernel's nest in the stats");
    assert_eq!(kernel["scheme"], "balanced");
    assert_eq!(kernel["coverage_ratio"], 1.0);
    // n = 5000, i from 2 to n-2: 4997 iterations, 15 of them in the leading block.
    assert_eq!(kernel["total_iterations"], 4997 - 15);
    assert_eq!(kernel["unit_iters"], 16);
    assert!(kernel["iw_size"].as_u64().unwrap() >= 1);
    assert!(!kernel["beta"].as_array().unwrap().is_empty());
}
