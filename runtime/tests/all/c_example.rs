//! Compiles `examples/spmv_runtime.c` with clang-19 against the static library
//! and runs it natively and in trace mode (checking the trace and the stats).
//! Skipped, with a message, when clang-19 is not installed.

use std::path::PathBuf;
use std::process::Command;

fn lib_dir() -> PathBuf {
    // target/<profile>/deps/all-<hash> -> target/<profile>
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// `target/<profile>/libweft_runtime.a` exists when the runtime package itself was
/// built (`cargo build`); under `cargo test --workspace` cargo only leaves the
/// hashed copy in `deps/`, so look there too (newest first).
fn static_lib() -> PathBuf {
    let dir = lib_dir();
    let direct = dir.join("libweft_runtime.a");
    if direct.exists() {
        return direct;
    }
    let mut hashed: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir.join("deps"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("libweft_runtime-") && n.ends_with(".a")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    hashed.sort();
    match hashed.pop() {
        Some((_, p)) => p,
        None => panic!(
            "static library missing: neither {} nor deps/libweft_runtime-*.a exists",
            direct.display()
        ),
    }
}

/// Compiles `source` (relative to the runtime crate) with clang-19 at
/// `opt` (`-Wall -Werror`) against the static library into `exe`.
pub fn build_c(source: &str, opt: &str, exe: &std::path::Path) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("clang-19")
        .args([opt, "-Wall", "-Werror"])
        .arg(root.join(source))
        .arg(format!("-I{}", root.join("include").display()))
        .arg(static_lib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "clang-19 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn c_spmv_example_builds_and_runs() {
    if Command::new("clang-19").arg("--version").output().is_err() {
        eprintln!("SKIPPED: clang-19 not found; the C example test needs it");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("spmv");
    build_c("../examples/spmv_runtime.c", "-O2", &exe);

    let out = Command::new(&exe).env("WEFT_CORES", "4").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("\nOK\n"));
    let line = stdout
        .lines()
        .find(|l| l.starts_with("mean banks per slot"))
        .unwrap();
    let nums: Vec<f64> = line
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|s| s.parse().ok())
        .collect();
    assert!(
        nums[1] > nums[0],
        "scheduled coverage must beat the original: {line}"
    );

    // trace mode + stats
    let trace = dir.path().join("spmv.trace");
    let stats = dir.path().join("spmv.json");
    let out = Command::new(&exe)
        .env("WEFT_CORES", "4")
        .env("WEFT_TRACE", &trace)
        .env("WEFT_STATS", &stats)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let f = std::fs::File::open(&trace).unwrap();
    let mut rd = weft_memsim::trace::TraceReader::new(std::io::BufReader::new(f), "spmv").unwrap();
    assert_eq!(rd.cores(), 4);
    let mut per_core = [0u64; 4];
    let (mut reads, mut writes) = (0u64, 0u64);
    for r in rd.by_ref() {
        let r = r.unwrap();
        per_core[r.core as usize] += 1;
        if r.kind.is_write() {
            writes += 1;
        } else {
            reads += 1;
        }
    }
    // 5 executions x 20000 rows, one write of y[i] per row
    assert_eq!(writes, 5 * 20000);
    assert!(reads > 2 * writes);
    assert!(per_core.iter().all(|&c| c > 0), "{per_core:?}");
    let st: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let reg = &st["regions"][0];
    assert_eq!(reg["kind"], "irregular");
    assert_eq!(reg["executions"], 5);
    assert_eq!(reg["inspections"], 1);
    assert_eq!(reg["coverage_ratio"], 1.0);
    assert_eq!(st["trace_mode"], true);
}
