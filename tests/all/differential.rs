//! Differential test of the chapter-4 path over every irregular benchmark:
//! the optimized program must print the same checksum (FNV-1a over the bit
//! patterns of its results) as the original, natively at several worker counts
//! and slab sizes, and in trace mode. Reductions are never reordered by the
//! passes, so equality is exact.

use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context;
use weft_passes::{PassManager, PipelineConfig, RemarkKind};
use weft_testsuite::bench::{self, BenchClass, CompileOptions, RunSize};

/// Default slabs (1/50 of a core's iterations), small odd slabs (many slab
/// conflicts and a deep slab DAG), the Original baseline, the default pipeline.
const PIPELINES: &[&str] = &[
    "insert-inspector",
    "insert-inspector<slab=37>",
    // loops annotated `weft.parallel` through the dependence check too
    "insert-inspector<trust-annotations=false>",
    "executor-form",
    "insert-inspector,parallel-for",
];
const CORES: &[u32] = &[1, 3];

/// Runs `exe` with `args` on `cores` workers, without statistics or trace
/// unless `env` (applied last) asks for them, and with the same memory layout
/// on every run; its output, or an error with its standard error.
fn launch(
    exe: &Path,
    args: &[String],
    cores: u32,
    env: &[(&str, &std::ffi::OsStr)],
) -> Result<std::process::Output, String> {
    // (Address-space randomisation off: the bank maps compared by
    // `schedules` depend on where the arrays lie. `WEFT_PAYOFF=count`: the
    // schedule choice must not depend on host timing either.)
    let mut cmd = Command::new(exe);
    let out = weft_passes::link::reproducible_layout(&mut cmd)
        .args(args)
        .env("WEFT_CORES", cores.to_string())
        .env("WEFT_PAYOFF", "count")
        .env_remove("WEFT_STATS")
        .env_remove("WEFT_TRACE")
        .envs(env.iter().copied())
        .output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} exited with {}: {}",
            exe.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out)
}

fn run(exe: &Path, args: &[String], cores: u32, trace: Option<&Path>) -> Result<u64, String> {
    let env: Vec<(&str, &std::ffi::OsStr)> = trace
        .map(|t| ("WEFT_TRACE", t.as_os_str()))
        .into_iter()
        .collect();
    let out = launch(exe, args, cores, &env)?;
    bench::parse_checksum(&String::from_utf8_lossy(&out.stdout))
        .ok_or_else(|| format!("{}: no checksum line", exe.display()))
}

/// The schedule of every irregular region as `WEFT_STATS` reports it (id,
/// inspections, units, banks per slab, banks per slot and Original's, DAG
/// edges), running `exe` on `cores` workers with the extra environment `env`.
fn schedules(
    exe: &Path,
    args: &[String],
    cores: u32,
    env: &[(&str, &str)],
) -> Result<String, String> {
    let stats = exe.with_extension(format!("stats{}.json", env.len()));
    let mut all: Vec<(&str, &std::ffi::OsStr)> = vec![("WEFT_STATS", stats.as_os_str())];
    all.extend(env.iter().map(|&(k, v)| (k, std::ffi::OsStr::new(v))));
    launch(exe, args, cores, &all)?;
    let text = std::fs::read_to_string(&stats).map_err(|e| format!("{}: {e}", stats.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let keys = [
        "id",
        "inspections",
        "units",
        "banks_per_slab",
        "bank_maps_hash",
        "banks_per_slot",
        "original_banks_per_slot",
        "dag_edges",
    ];
    let regions = v["regions"].as_array().cloned().unwrap_or_default();
    Ok(regions
        .iter()
        .filter(|r| r["kind"] == "irregular")
        .map(|r| keys.map(|k| format!("{k}={}", r[k])).join(" "))
        .collect::<Vec<_>>()
        .join("\n"))
}

/// A failure message when two [`schedules`] results are not the same
/// schedules (`what` says which runs; an error of either run is one too).
fn schedule_mismatch(
    what: &str,
    a: &Result<String, String>,
    b: &Result<String, String>,
) -> Option<String> {
    match (a, b) {
        (Ok(x), Ok(y)) if x == y => None,
        (Ok(x), Ok(y)) => Some(format!("{what}:\n{x}\nagainst\n{y}")),
        (Err(e), _) | (_, Err(e)) => Some(format!("{what}: {e}")),
    }
}

/// Optimizes `ll` with `pipeline`; returns the output path and the number of loops transformed.
fn optimize(ll: &Path, pipeline: &str, out: &Path) -> (PathBuf, usize) {
    let ctx = Context::create();
    let m = weft_frontend::load_module(&ctx, ll, &Default::default()).expect("load IR");
    let cfg = PipelineConfig {
        verify_each: true,
        ..PipelineConfig::new()
    };
    let report = PassManager::parse(pipeline, cfg)
        .unwrap()
        .run(&m)
        .unwrap_or_else(|e| panic!("{pipeline}: {e}"));
    let applied = report
        .remarks
        .iter()
        .filter(|r| r.kind == RemarkKind::Applied && r.function.starts_with("kernel_"))
        .count();
    m.print_to_file(out).expect("write IR");
    (out.to_path_buf(), applied)
}

#[test]
fn irregular_benchmarks_match_bit_for_bit() {
    let runtime = weft_passes::link::find_runtime(None).expect("libweft_runtime.a");
    let dir = tempfile::tempdir().unwrap();
    let opts = CompileOptions::default();
    let support = bench::compile_support_object(dir.path(), &opts).expect("support object");
    let link_args: Vec<String> = vec![
        runtime.display().to_string(),
        "-lpthread".into(),
        "-ldl".into(),
        "-lrt".into(),
    ];
    let mut failures = Vec::new();
    let mut runs = 0usize;
    let mut summary = Vec::new();
    let reproducible = weft_passes::link::layout_is_reproducible();
    if !reproducible {
        eprintln!(
            "note: address-space randomisation cannot be turned off here; schedules not compared"
        );
    }
    let benches: Vec<_> = bench::of_class(BenchClass::Irregular).collect();
    assert!(!benches.is_empty(), "no irregular benchmarks registered");
    for b in benches {
        let bdir = dir.path().join(b.name);
        let ll = bench::emit_ir(b, &bdir, &opts).expect("emit IR");
        let args = b.args(RunSize::Quick);
        let orig_exe = bench::link(
            &[ll.clone(), support.clone()],
            &link_args,
            &bdir.join("orig"),
            &opts,
        )
        .expect("link original");
        let want = run(&orig_exe, &args, 1, None).expect("original run");
        // `pipeline` applied to the benchmark, linked as `name`; the
        // executable and the number of kernel loops transformed.
        let build = |pipeline: &str, name: &str| {
            let (opt_ll, applied) = optimize(&ll, pipeline, &bdir.join(format!("{name}.ll")));
            let exe = bench::link(
                &[opt_ll, support.clone()],
                &link_args,
                &bdir.join(name),
                &opts,
            )
            .unwrap_or_else(|e| panic!("link [{pipeline}]: {e}"));
            (exe, applied)
        };
        let mut transformed = 0;
        for (k, p) in PIPELINES.iter().enumerate() {
            let (exe, applied) = build(p, &format!("opt{k}"));
            if k == 0 {
                transformed = applied;
            }
            // (Where the sandbox keeps addresses random, two runs' bank maps
            // differ whatever the inspector does: no schedule comparison.)
            if k == 0 && reproducible {
                // The inline recording path (per-slab line memory, bank bits
                // set by the inspector itself) builds the same schedules as
                // the runtime's generic path, which sees every line of every
                // iteration (`WEFT_INSPECT_INLINE=0`).
                runs += 2;
                // (Grain control off: which executions run in parallel must
                // not depend on how fast the inspections were.)
                let env = [("WEFT_MIN_PARALLEL_NS", "0")];
                let inline = schedules(&exe, &args, 3, &env);
                let generic = schedules(&exe, &args, 3, &[env[0], ("WEFT_INSPECT_INLINE", "0")]);
                let what = format!("{}: schedules differ with WEFT_INSPECT_INLINE=0", b.name);
                failures.extend(schedule_mismatch(&what, &inline, &generic));
                // One range report per entry of an inner streaming loop
                // (`val[j]`, `col[j]` of a CSR row) sets the bank bits of
                // reporting each element (`streams=false`), and checked
                // reads recorded inline (then filtered per core before the
                // dependence check) give the DAG of reporting each one to
                // the runtime (`inline-checked=false`); so do the reads
                // the writes-first phase drops, inline or in the runtime
                // (`writes-first=false`).
                runs += 1;
                let one_by_one =
                    "insert-inspector<streams=false,inline-checked=false,writes-first=false>";
                let (eexe, _) = build(one_by_one, "elements");
                let elements = schedules(&eexe, &args, 3, &env);
                let what = format!("{}: schedules differ with {one_by_one}", b.name);
                failures.extend(schedule_mismatch(&what, &inline, &elements));
            }
            for &c in CORES {
                runs += 1;
                match run(&exe, &args, c, None) {
                    Ok(got) if got == want => {}
                    Ok(got) => failures.push(format!(
                        "{} [{p}] cores={c}: checksum {got:016x}, original {want:016x}",
                        b.name
                    )),
                    Err(e) => failures.push(format!("{} [{p}] cores={c}: {e}", b.name)),
                }
            }
        }
        // Trace mode: the instrumented BLP version, 4 virtual cores.
        let (texe, _) = build("insert-inspector,instrument-trace<only=kernel_*>", "traced");
        let tfile = bdir.join("out.trace");
        runs += 1;
        match run(&texe, &args, 4, Some(&tfile)) {
            Ok(got) if got == want => {
                let len = std::fs::metadata(&tfile).map(|m| m.len()).unwrap_or(0);
                if len < 1024 {
                    failures.push(format!("{}: trace file has only {len} bytes", b.name));
                }
            }
            Ok(got) => failures.push(format!(
                "{} [trace mode]: checksum {got:016x}, original {want:016x}",
                b.name
            )),
            Err(e) => failures.push(format!("{} [trace mode]: {e}", b.name)),
        }
        if transformed == 0 {
            failures.push(format!(
                "{}: insert-inspector transformed no kernel loop",
                b.name
            ));
        }
        summary.push(format!("{}: {transformed} kernel loop(s)", b.name));
    }
    eprintln!("differential: {runs} runs; {}", summary.join(", "));
    assert!(
        failures.is_empty(),
        "differential failures:\n{}",
        failures.join("\n")
    );
}

/// The kernel corpus (`testsuite/benchmarks/kernels`, issue 34) at its small
/// size: the default pipeline and the chapter 5 pipeline with the balanced
/// scheme (descriptor path, dependence check, DAG, permutation) must print the
/// checksum of the program built without passes, at 1 and 3 workers. Builds
/// run on two threads to keep the test near a minute.
#[test]
fn kernel_corpus_matches_at_1_and_3_workers() {
    use weft_testsuite::kernels::{self, RunResult};
    let dir = tempfile::tempdir().unwrap();
    let pipelines = [
        weft_passes::DEFAULT_PIPELINE.to_string(),
        kernels::chapter5_pipeline("balanced"),
    ];
    let args = vec!["--quick".to_string()];
    let timeout = std::time::Duration::from_secs(60);
    let all = kernels::all();
    assert!(all.len() >= 30, "{} kernels", all.len());
    let check = |k: &weft_testsuite::bench::Benchmark| -> Vec<String> {
        let kdir = dir.path().join(k.name);
        let src = match kernels::sources(k, &kdir) {
            Ok(s) => s,
            Err(e) => return vec![format!("{}: {e}", k.name)],
        };
        let mut failures = Vec::new();
        let want = match kernels::build(&src, "none", &kdir, "orig")
            .map(|b| kernels::run_once(&b.exe, &args, 1, timeout))
        {
            Ok(RunResult::Done { checksum, .. }) => checksum,
            other => return vec![format!("{} [none]: {other:?}", k.name)],
        };
        for (i, p) in pipelines.iter().enumerate() {
            let b = match kernels::build(&src, p, &kdir, &format!("opt{i}")) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{} [{p}]: {e}", k.name));
                    continue;
                }
            };
            for cores in CORES {
                match kernels::run_once(&b.exe, &args, *cores, timeout) {
                    RunResult::Done { checksum, .. } if checksum == want => {}
                    r => failures.push(format!(
                        "{} [{p}] cores={cores}: {r:?}, original checksum {want:016x}",
                        k.name
                    )),
                }
            }
        }
        failures
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut f = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(k) = all.get(i) else { break };
                        f.extend(check(k));
                    }
                    f
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker panicked"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "kernel corpus differential failures:\n{}",
        failures.join("\n")
    );
}
