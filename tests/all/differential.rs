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
        weft_passes::link::STRIP_DEBUG.into(),
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

/// Support library whose result-hashing calls also record the values they
/// hash (`WEFT_VALUES=<file>`: a kind byte, a `u64` count, the raw elements),
/// so a run can be compared within a tolerance and not only by checksum. The
/// program's own code is untouched: its calls reach these wrappers, which
/// call the renamed originals.
const VALUES_SUPPORT: &str = r#"
#define wb_hash_doubles wb_hash_doubles_real
#define wb_hash_ints wb_hash_ints_real
#define wb_hash_u64 wb_hash_u64_real
#define wb_hash_bytes wb_hash_bytes_real
#define wb_print_double wb_print_double_real
#include "SUPPORT_C"
#undef wb_hash_doubles
#undef wb_hash_ints
#undef wb_hash_u64
#undef wb_hash_bytes
#undef wb_print_double
static FILE *wbv_file(void) {
    static FILE *f;
    static int opened;
    if (!opened) {
        const char *p = getenv("WEFT_VALUES");
        opened = 1;
        if (p) f = fopen(p, "wb");
    }
    return f;
}
static void wbv_record(char kind, const void *p, uint64_t n, size_t elem) {
    FILE *f = wbv_file();
    if (!f) return;
    fputc(kind, f);
    fwrite(&n, sizeof n, 1, f);
    if (n) fwrite(p, elem, (size_t)n, f);
    fflush(f);
}
void wb_hash_doubles(wb_hash *h, const double *v, long n) {
    wbv_record('d', v, (uint64_t)n, sizeof *v);
    wb_hash_doubles_real(h, v, n);
}
void wb_hash_ints(wb_hash *h, const int *v, long n) {
    wbv_record('i', v, (uint64_t)n, sizeof *v);
    wb_hash_ints_real(h, v, n);
}
void wb_hash_u64(wb_hash *h, uint64_t v) {
    wbv_record('u', &v, 1, sizeof v);
    wb_hash_u64_real(h, v);
}
void wb_hash_bytes(wb_hash *h, const void *p, size_t n) {
    wbv_record('b', p, (uint64_t)n, 1);
    wb_hash_bytes_real(h, p, n);
}
void wb_print_double(const char *label, double v) {
    wbv_record('d', &v, 1, sizeof v);
    wb_print_double_real(label, v);
}
"#;

/// Normwise relative tolerance of `--fp-reassoc` results: every element of a
/// hashed `double` array may differ from the sequential build's by at most
/// `FP_RTOL` times the array's largest magnitude (a regrouped sum of `n`
/// terms errs by about `n * 2^-53` of the sum of their magnitudes).
const FP_RTOL: f64 = 1e-9;

/// One recorded call: kind (`d` doubles, `i` ints, `u` a u64, `b` bytes) and
/// the raw elements.
#[derive(Debug, Clone, PartialEq)]
struct Record {
    kind: u8,
    bytes: Vec<u8>,
}

fn read_records(path: &Path) -> Result<Vec<Record>, String> {
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < data.len() {
        let kind = data[at];
        let n = data
            .get(at + 1..at + 9)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()) as usize)
            .ok_or("truncated record header")?;
        let elem = match kind {
            b'd' | b'u' => 8,
            b'i' => 4,
            b'b' => 1,
            k => return Err(format!("unknown record kind {k}")),
        };
        let end = at + 9 + n * elem;
        let bytes = data.get(at + 9..end).ok_or("truncated record")?.to_vec();
        out.push(Record { kind, bytes });
        at = end;
    }
    Ok(out)
}

fn doubles(r: &Record) -> Vec<f64> {
    r.bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Largest normwise relative difference of `got` from `want` over the
/// `double` records (exact equality required of every other record); an
/// error when the shapes differ.
fn max_rel_error(want: &[Record], got: &[Record]) -> Result<f64, String> {
    if want.len() != got.len() {
        return Err(format!("{} records, original {}", got.len(), want.len()));
    }
    let mut worst = 0.0f64;
    for (k, (w, g)) in want.iter().zip(got).enumerate() {
        if w.kind != g.kind || w.bytes.len() != g.bytes.len() {
            return Err(format!("record {k}: different kind or length"));
        }
        if w.kind != b'd' {
            if w.bytes != g.bytes {
                return Err(format!("record {k} ({}) differs", w.kind as char));
            }
            continue;
        }
        let (w, g) = (doubles(w), doubles(g));
        let scale = w.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        for (i, (a, b)) in w.iter().zip(&g).enumerate() {
            if a.is_nan() || b.is_nan() {
                if a.is_nan() != b.is_nan() {
                    return Err(format!("record {k}[{i}]: {b}, original {a}"));
                }
                continue;
            }
            let diff = (a - b).abs();
            if diff == 0.0 {
                continue;
            }
            if scale == 0.0 || !diff.is_finite() {
                return Err(format!("record {k}[{i}]: {b}, original {a}"));
            }
            worst = worst.max(diff / scale);
        }
    }
    Ok(worst)
}

/// Stdout without the checksum line and the `label: <hex float>` lines of
/// `wb_print_double` (their values are compared as records).
fn plain_stdout(s: &str) -> Vec<&str> {
    s.lines()
        .filter(|l| !l.starts_with("checksum: "))
        .filter(|l| {
            let v = l.rsplit(": ").next().unwrap_or("");
            !(v.trim_start_matches('-').starts_with("0x") && v.contains('p'))
        })
        .collect()
}

/// Runs `exe` recording its hashed values into `values`.
fn run_recording(
    exe: &Path,
    args: &[String],
    cores: u32,
    values: &Path,
) -> Result<(String, Vec<Record>), String> {
    let out = launch(exe, args, cores, &[("WEFT_VALUES", values.as_os_str())])?;
    Ok((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        read_records(values)?,
    ))
}

/// `--fp-reassoc` (issue 35 part 4) over every benchmark and corpus kernel.
/// The flag only changes what `parallel-for` does with floating-point
/// reductions, so each program's IR is first optimized with the default
/// pipeline with and without it, in process: where the two agree, the
/// flag changes nothing and the other differential tests cover the program.
/// Where they differ, the program is built both ways (`--passes=none` and
/// the default pipeline with `parallel-for<fp-reassoc>`) and run at 1 and 3
/// workers: the flagged build must give the same bits at both worker counts
/// (partials combined in a fixed order), and every hashed value must be
/// within [`FP_RTOL`] (normwise) of the sequential build's, every integer
/// and every other output line identical.
#[test]
fn fp_reassoc_within_tolerance_at_1_and_3_workers() {
    use weft_testsuite::kernels;
    let dir = tempfile::tempdir().unwrap();
    let runtime = weft_passes::link::find_runtime(None).expect("libweft_runtime.a");
    let support_c = bench::benchmarks_dir().join("common/weft_bench.c");
    let wrapper = dir.path().join("values.c");
    std::fs::write(
        &wrapper,
        VALUES_SUPPORT.replace("SUPPORT_C", &support_c.display().to_string()),
    )
    .unwrap();
    let support = dir.path().join("values.o");
    let opts = CompileOptions::default();
    let cc = Command::new(&opts.cc)
        .arg("-std=c11")
        .args(&opts.opt_flags)
        .arg(format!(
            "-I{}",
            bench::benchmarks_dir().join("common").display()
        ))
        .arg(format!(
            "-DWEFT_DATA_DIR=\"{}\"",
            bench::data_dir().display()
        ))
        .arg("-c")
        .arg(&wrapper)
        .arg("-o")
        .arg(&support)
        .output()
        .expect("clang-19");
    assert!(
        cc.status.success(),
        "values.c: {}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let flagged = weft_passes::DEFAULT_PIPELINE.replace("parallel-for", "parallel-for<fp-reassoc>");
    assert_ne!(flagged, weft_passes::DEFAULT_PIPELINE);
    let programs: Vec<&'static bench::Benchmark> =
        bench::all().iter().chain(kernels::all()).collect();
    // The IR of `ir` after `pipeline`, as text.
    let optimized = |ir: &Path, pipeline: &str| -> Result<String, String> {
        let ctx = Context::create();
        let m =
            weft_frontend::load_module(&ctx, ir, &Default::default()).map_err(|e| e.to_string())?;
        let cfg = PipelineConfig {
            min_parallel_iters: weft_passes::manager::DEFAULT_MIN_PARALLEL_ITERS,
            ..PipelineConfig::new()
        };
        PassManager::parse(pipeline, cfg)
            .map_err(|e| e.to_string())?
            .run(&m)
            .map_err(|e| e.to_string())?;
        Ok(m.print_to_string().to_string())
    };
    let check = |b: &'static bench::Benchmark| -> Result<Option<String>, String> {
        // (Corpus kernels and benchmarks share some names.)
        let corpus = b.sources[0].starts_with("kernels/");
        let bdir = dir
            .path()
            .join(format!("{}{}", if corpus { "k-" } else { "" }, b.name));
        let ir = bench::emit_ir(b, &bdir, &opts).map_err(|e| e.to_string())?;
        if optimized(&ir, weft_passes::DEFAULT_PIPELINE)? == optimized(&ir, &flagged)? {
            return Ok(None);
        }
        let src = kernels::Sources {
            ir,
            support: support.clone(),
            runtime: runtime.clone(),
            codegen_flags: Vec::new(),
        };
        let args = b.args(RunSize::Quick);
        let orig = kernels::build(&src, "none", &bdir, "orig")?;
        let fp = kernels::build(&src, &flagged, &bdir, "fp")?;
        let (want_out, want) = run_recording(&orig.exe, &args, 1, &bdir.join("orig.values"))?;
        if want.is_empty() {
            return Err("no value recorded".into());
        }
        let mut first: Option<Vec<Record>> = None;
        let mut worst = 0.0f64;
        for &c in CORES {
            let (out, got) = run_recording(&fp.exe, &args, c, &bdir.join(format!("fp{c}.values")))?;
            if plain_stdout(&out) != plain_stdout(&want_out) {
                return Err(format!(
                    "cores={c}: stdout differs:\n{out}\noriginal:\n{want_out}"
                ));
            }
            let e = max_rel_error(&want, &got).map_err(|e| format!("cores={c}: {e}"))?;
            if e > FP_RTOL {
                return Err(format!(
                    "cores={c}: relative error {e:.3e} above {FP_RTOL:.0e}"
                ));
            }
            worst = worst.max(e);
            match &first {
                None => first = Some(got),
                Some(f) if *f == got => {}
                Some(_) => return Err(format!("cores={c}: values differ from 1 worker's")),
            }
        }
        Ok(Some(format!(
            "{}{} (max relative error {worst:.2e}, {} loop(s))",
            if corpus { "kernels/" } else { "" },
            b.name,
            fp.transformed
        )))
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<(&str, Result<Option<String>, String>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut r = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(b) = programs.get(i) else { break };
                        r.push((b.name, check(b)));
                    }
                    r
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("worker panicked"))
            .collect()
    });
    let mut failures = Vec::new();
    let mut changed = Vec::new();
    for (name, r) in results {
        match r {
            Ok(Some(s)) => changed.push(s),
            Ok(None) => {}
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "fp-reassoc: {} of {} programs change with the flag: {}",
        changed.len(),
        programs.len(),
        changed.join(", ")
    );
    assert!(
        failures.is_empty(),
        "--fp-reassoc differential failures:\n{}",
        failures.join("\n")
    );
    assert!(!changed.is_empty(), "--fp-reassoc changed no program");
}

/// Every corpus kernel written with `restrict`, compiled with `-Drestrict=`
/// (every pair of pointer arguments may alias, so run-time alias checks and
/// their index pre-passes decide, issue #35), under `parallel-for` alone and
/// the default pipeline: the checksum of the program built without passes,
/// at 1 and 3 workers.
#[test]
fn kernel_corpus_without_restrict_matches_at_1_and_3_workers() {
    use weft_testsuite::kernels::{self, RunResult, Sources};
    let dir = tempfile::tempdir().unwrap();
    let pipelines = ["parallel-for", weft_passes::DEFAULT_PIPELINE];
    let args = vec!["--quick".to_string()];
    let timeout = std::time::Duration::from_secs(60);
    let with_restrict: Vec<_> = kernels::all()
        .iter()
        .filter(|k| {
            std::fs::read_to_string(k.main_source())
                .map(|s| s.contains("restrict"))
                .unwrap_or(false)
        })
        .collect();
    assert!(with_restrict.len() >= 10, "{} kernels", with_restrict.len());
    let mut opts = CompileOptions::default();
    opts.extra_flags.push("-Drestrict=".into());
    let check = |k: &weft_testsuite::bench::Benchmark| -> Vec<String> {
        let kdir = dir.path().join(k.name);
        let src = match (
            bench::emit_ir(k, &kdir, &opts),
            bench::compile_support_object(&kdir, &CompileOptions::default()),
            weft_passes::link::find_runtime(None),
        ) {
            (Ok(ir), Ok(support), Ok(runtime)) => Sources {
                ir,
                support,
                runtime,
                codegen_flags: Vec::new(),
            },
            (a, b, c) => {
                return vec![format!(
                    "{}: sources: {:?} {:?} {:?}",
                    k.name,
                    a.err(),
                    b.err(),
                    c.err()
                )]
            }
        };
        let want = match kernels::build(&src, "none", &kdir, "orig")
            .map(|b| kernels::run_once(&b.exe, &args, 1, timeout))
        {
            Ok(RunResult::Done { checksum, .. }) => checksum,
            other => return vec![format!("{} [none]: {other:?}", k.name)],
        };
        let mut failures = Vec::new();
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
                        "{} -Drestrict= [{p}] cores={cores}: {r:?}, original checksum {want:016x}",
                        k.name
                    )),
                }
            }
        }
        failures
    };
    let failures: Vec<String> = with_restrict.iter().flat_map(|k| check(k)).collect();
    assert!(
        failures.is_empty(),
        "kernel corpus (-Drestrict=) differential failures:\n{}",
        failures.join("\n")
    );
}
