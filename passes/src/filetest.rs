//! Filetests: `testsuite/filetests/<pass>/<case>.ll`.
//!
//! A case is an IR file whose comment header drives the test:
//!
//! ```text
//! ; PASSES: insert-inspector<slab=8>     pipeline to run (required)
//! ; CHECK: call i32 @weft_run_irregular  line substrings expected in order ({{.*}} = anything)
//! ; CHECK-NOT: @weft_parallel_for       must not occur between the neighbouring CHECKs
//! ; REMARK: applied                      substring expected in some remark
//! ; run: @test(1000)                     execute original and transformed, compare bit for bit
//! ; cores: 1,2,3                         worker counts for `run:` lines (default 1,2,4)
//! ; MIN-PARALLEL-ITERS: 32               short-loop threshold (default 0: always the runtime)
//! ; SERIAL-CONSUMER-BYTES: 4096           serial-consumer limit (default 0: rule off; `crate::placement`)
//! ```
//!
//! Textual checks alone cannot prove a transformation kept the semantics, so
//! each `run:` line executes the original module and the transformed one and
//! requires identical results at every listed worker count. Execution is
//! native: both modules are linked by clang-19 with `libweft_runtime.a` and a
//! generated `main` that makes the call its argument selects (one program per
//! module serves every `run:` line) and prints its result's bits;
//! each run gets `WEFT_CORES=<n>` (the runtime reads its configuration once
//! per process, so separate processes are what lets one test vary it). Next to the case, the golden
//! `<case>.out` holds the exact transformed IR and remarks; it must match, and
//! `WEFT_BLESS=1` (re)writes it.

use std::path::{Path, PathBuf};

use inkwell::context::Context;

use crate::error::{PassError, Result};
use crate::manager::{PassManager, PipelineConfig};

/// A parsed filetest.
#[derive(Debug, Clone, Default)]
pub struct Case {
    /// The file.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// The pipeline.
    pub passes: String,
    /// CHECK / CHECK-NOT directives in order (`true` = CHECK-NOT).
    pub checks: Vec<(bool, String)>,
    /// REMARK substrings.
    pub remarks: Vec<String>,
    /// `run:` lines: function and integer arguments.
    pub runs: Vec<(String, Vec<i64>)>,
    /// Worker counts.
    pub cores: Vec<u32>,
    /// [`PipelineConfig::min_parallel_iters`] of the pipeline.
    pub min_parallel_iters: u64,
    /// [`PipelineConfig::serial_consumer_bytes`] of the pipeline.
    pub serial_consumer_bytes: u64,
}

fn bad(path: &Path, msg: String) -> PassError {
    PassError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, msg),
    }
}

/// Parses the directives of a case.
pub fn parse_case(path: &Path) -> Result<Case> {
    let text = std::fs::read_to_string(path).map_err(|source| PassError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut c = Case {
        path: path.to_path_buf(),
        text: text.clone(),
        cores: vec![1, 2, 4],
        ..Default::default()
    };
    let mut have_passes = false;
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix(';') else {
            continue;
        };
        let rest = rest.trim();
        if let Some(p) = rest.strip_prefix("PASSES:") {
            c.passes = p.trim().to_string();
            have_passes = true;
        } else if let Some(p) = rest.strip_prefix("CHECK-NOT:") {
            c.checks.push((true, p.trim().to_string()));
        } else if let Some(p) = rest.strip_prefix("CHECK:") {
            c.checks.push((false, p.trim().to_string()));
        } else if let Some(p) = rest.strip_prefix("REMARK:") {
            c.remarks.push(p.trim().to_string());
        } else if let Some(p) = rest.strip_prefix("MIN-PARALLEL-ITERS:") {
            c.min_parallel_iters = p
                .trim()
                .parse()
                .map_err(|_| bad(path, format!("bad `MIN-PARALLEL-ITERS:` line `{p}`")))?;
        } else if let Some(p) = rest.strip_prefix("SERIAL-CONSUMER-BYTES:") {
            c.serial_consumer_bytes = p
                .trim()
                .parse()
                .map_err(|_| bad(path, format!("bad `SERIAL-CONSUMER-BYTES:` line `{p}`")))?;
        } else if let Some(p) = rest.strip_prefix("cores:") {
            c.cores = p
                .split(',')
                .map(|s| s.trim().parse::<u32>())
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| bad(path, format!("bad `cores:` line `{p}`")))?;
        } else if let Some(p) = rest.strip_prefix("run:") {
            let p = p.trim();
            let (name, args) = p
                .strip_prefix('@')
                .and_then(|s| s.split_once('('))
                .ok_or_else(|| bad(path, format!("bad `run:` line `{p}`, expected `@f(1, 2)`")))?;
            let args = args
                .trim_end()
                .strip_suffix(')')
                .ok_or_else(|| bad(path, format!("bad `run:` line `{p}`: missing `)`")))?;
            let args: Vec<i64> = args
                .split(',')
                .map(|s| s.trim())
                .filter(|s| !s.is_empty())
                .map(|s| s.parse::<i64>())
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| {
                    bad(
                        path,
                        format!("bad `run:` arguments `{args}` (integers only)"),
                    )
                })?;
            c.runs.push((name.to_string(), args));
        }
    }
    if !have_passes {
        return Err(bad(path, "missing `; PASSES:` header".into()));
    }
    Ok(c)
}

/// What running a case produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The transformed IR text.
    pub output: String,
    /// Rendered remarks.
    pub remarks: Vec<String>,
    /// Per `run:` line and worker count: (call, cores, original output, transformed output).
    pub runs: Vec<(String, u32, String, String)>,
}

fn transform(case: &Case, ctx: &Context) -> Result<(String, Vec<String>, String)> {
    let name = case
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let m = weft_frontend::parse_ir(ctx, &case.text, &name)?;
    let cfg = PipelineConfig {
        verify_each: true,
        min_parallel_iters: case.min_parallel_iters,
        serial_consumer_bytes: case.serial_consumer_bytes,
        ..PipelineConfig::new()
    };
    let pm = PassManager::parse(&case.passes, cfg)?;
    let report = pm.run(&m)?;
    let remarks = report.remarks.iter().map(|r| r.to_string()).collect();
    Ok((m.print_to_string().to_string(), remarks, name))
}

fn c_type(t: inkwell::types::BasicTypeEnum<'_>) -> Option<(&'static str, &'static str)> {
    use inkwell::types::BasicTypeEnum as T;
    // (C type, printf conversion of the printed value)
    match t {
        T::IntType(i) => match i.get_bit_width() {
            8 => Some(("signed char", "int")),
            16 => Some(("short", "int")),
            32 => Some(("int", "int")),
            64 => Some(("long long", "ll")),
            _ => None,
        },
        T::FloatType(_) => Some(("double", "double")),
        _ => None,
    }
}

/// One call of a `run:` line as C: its declaration and the statements that
/// call it and print the result (floating point as bits).
fn driver_call(
    module: &inkwell::module::Module<'_>,
    f: &str,
    args: &[i64],
) -> Result<(String, String)> {
    let func = module
        .get_function(f)
        .ok_or_else(|| PassError::FileTest(format!("no function @{f} to run")))?;
    let fty = func.get_type();
    let params = fty.get_param_types();
    if params.len() != args.len() {
        return Err(PassError::FileTest(format!(
            "@{f} takes {} argument(s), {} given",
            params.len(),
            args.len()
        )));
    }
    let mut ps = Vec::new();
    for p in &params {
        let t = inkwell::types::BasicTypeEnum::try_from(*p)
            .ok()
            .and_then(|t| if t.is_int_type() { c_type(t) } else { None })
            .ok_or_else(|| {
                PassError::FileTest(format!("@{f}: `run:` supports integer parameters only"))
            })?;
        ps.push(t.0);
    }
    let ret = fty.get_return_type();
    let is_float = matches!(ret, Some(inkwell::types::BasicTypeEnum::FloatType(_)));
    let (rty, print) = match ret {
        None => ("void", "F(ARGS); printf(\"void\\n\");".to_string()),
        Some(t) => {
            let (ct, kind) = c_type(t).ok_or_else(|| {
                PassError::FileTest(format!("@{f}: unsupported return type for `run:`"))
            })?;
            let p = match kind {
                "ll" => "long long r = F(ARGS); printf(\"%lld\\n\", r);".to_string(),
                "int" => "long long r = (long long)F(ARGS); printf(\"%lld\\n\", r);".to_string(),
                _ => "double r = F(ARGS); unsigned long long b; memcpy(&b, &r, 8); printf(\"%.17g 0x%016llx\\n\", r, b);".to_string(),
            };
            (ct, p)
        }
    };
    // A float-returning LLVM function is declared with its exact type.
    let rty = if is_float {
        let td = crate::util::target_data(module);
        match ret {
            Some(t) if td.get_bit_size(&t) == 32 => "float",
            _ => rty,
        }
    } else {
        rty
    };
    let arglist = args
        .iter()
        .enumerate()
        .map(|(k, a)| format!("({}){a}LL", ps[k]))
        .collect::<Vec<_>>()
        .join(", ");
    let params = if ps.is_empty() {
        "void".to_string()
    } else {
        ps.join(", ")
    };
    Ok((
        format!("extern {rty} {f}({params});"),
        print
            .replace("F(", &format!("{f}("))
            .replace("ARGS", &arglist),
    ))
}

/// A C `main` that makes call `k` of `runs` (the `run:` lines) when given `k`
/// as its argument and prints the result, so one program per module serves
/// every `run:` line (one link per module instead of one per line).
fn driver(module: &inkwell::module::Module<'_>, runs: &[(String, Vec<i64>)]) -> Result<String> {
    let mut decls: Vec<String> = Vec::new();
    let mut cases = String::new();
    for (k, (f, args)) in runs.iter().enumerate() {
        let (decl, body) = driver_call(module, f, args)?;
        if !decls.contains(&decl) {
            decls.push(decl);
        }
        cases.push_str(&format!("  case {k}: {{ {body} break; }}\n"));
    }
    Ok(format!(
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n{decls}\nint main(int argc, char **argv) {{\n  switch (argc > 1 ? atoi(argv[1]) : -1) {{\n{cases}  default: return 2;\n  }}\n  return 0;\n}}\n",
        decls = decls.join("\n"),
    ))
}

/// Runs a case: transforms it, executes `run:` lines natively, returns what
/// happened. Checks are applied by [`check_case`].
pub fn run_case(case: &Case) -> Result<Outcome> {
    let ctx = Context::create();
    let (output, remarks, name) = transform(case, &ctx)?;
    let mut runs = Vec::new();
    if case.runs.is_empty() {
        return Ok(Outcome {
            output,
            remarks,
            runs,
        });
    }
    let runtime = crate::link::find_runtime(None)?;
    let tmp = tempfile::Builder::new()
        .prefix("weft-filetest-")
        .tempdir()
        .map_err(|source| PassError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
    let io = |path: &Path, source| PassError::Io {
        path: path.to_path_buf(),
        source,
    };
    let orig_ll = tmp.path().join("orig.ll");
    let opt_ll = tmp.path().join("opt.ll");
    std::fs::write(&orig_ll, &case.text).map_err(|e| io(&orig_ll, e))?;
    std::fs::write(&opt_ll, &output).map_err(|e| io(&opt_ll, e))?;
    let probe_ctx = Context::create();
    let probe = weft_frontend::parse_ir(&probe_ctx, &case.text, &name)?;
    let drv = tmp.path().join("main.c");
    std::fs::write(&drv, driver(&probe, &case.runs)?).map_err(|e| io(&drv, e))?;
    let e1 = tmp.path().join("orig");
    let e2 = tmp.path().join("opt");
    // (no debug information: never read here)
    let link = |ll: &Path, exe: &Path| {
        let strip = [crate::link::STRIP_DEBUG.to_string()];
        crate::link::link_with("clang-19", "-O1", &strip, &[&drv, ll], &runtime, exe)
    };
    link(&orig_ll, &e1)?;
    link(&opt_ll, &e2)?;
    for (k, (f, args)) in case.runs.iter().enumerate() {
        let call = format!(
            "@{f}({})",
            args.iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        for &p in &case.cores {
            let run = |exe: &Path| -> Result<String> {
                let out = std::process::Command::new(exe)
                    .arg(k.to_string())
                    .env("WEFT_CORES", p.to_string())
                    // Schedules even for the small inputs of the cases
                    // (grain control would run them in original order).
                    .env("WEFT_MIN_PARALLEL_NS", "0")
                    .env_remove("WEFT_TRACE")
                    .output()
                    .map_err(|e| io(exe, e))?;
                let mut s = String::from_utf8_lossy(&out.stdout).trim().to_string();
                if !out.status.success() {
                    s.push_str(&format!(
                        " [exit {}; stderr: {}]",
                        out.status,
                        String::from_utf8_lossy(&out.stderr).trim()
                    ));
                }
                Ok(s)
            };
            runs.push((call.clone(), p, run(&e1)?, run(&e2)?));
        }
    }
    Ok(Outcome {
        output,
        remarks,
        runs,
    })
}

/// Whether `line` contains the pieces of `pat` (split at `{{.*}}`) in order.
pub fn line_matches(line: &str, pat: &str) -> bool {
    let mut pos = 0usize;
    for piece in pat.split("{{.*}}") {
        match line[pos..].find(piece) {
            Some(at) => pos += at + piece.len(),
            None => return false,
        }
    }
    true
}

/// Golden path of a case.
pub fn golden_path(case: &Path) -> PathBuf {
    case.with_extension("out")
}

fn golden_text(o: &Outcome) -> String {
    let mut s = String::new();
    for r in &o.remarks {
        s.push_str("; ");
        s.push_str(r);
        s.push('\n');
    }
    s.push_str(&o.output);
    s
}

/// Applies every check of a case to an outcome; returns failures (empty = pass).
/// With `bless`, the golden file is rewritten instead of compared.
pub fn check_case(case: &Case, o: &Outcome, bless: bool) -> Result<Vec<String>> {
    let mut fails = Vec::new();
    // CHECK / CHECK-NOT in order, line by line.
    let lines: Vec<&str> = o.output.lines().collect();
    let mut next = 0usize;
    let mut pending_not: Vec<&str> = Vec::new();
    for (not, pat) in &case.checks {
        if *not {
            pending_not.push(pat);
            continue;
        }
        match (next..lines.len()).find(|&k| line_matches(lines[k], pat)) {
            Some(at) => {
                for n in pending_not.drain(..) {
                    if let Some(k) = (next..at).find(|&k| line_matches(lines[k], n)) {
                        fails.push(format!(
                            "CHECK-NOT: `{n}` found at output line {} before `{pat}`",
                            k + 1
                        ));
                    }
                }
                next = at + 1;
            }
            None => fails.push(format!("CHECK: `{pat}` not found after output line {next}")),
        }
    }
    for n in pending_not {
        if let Some(k) = (next..lines.len()).find(|&k| line_matches(lines[k], n)) {
            fails.push(format!("CHECK-NOT: `{n}` found at output line {}", k + 1));
        }
    }
    for r in &case.remarks {
        if !o.remarks.iter().any(|x| x.contains(r.as_str())) {
            fails.push(format!(
                "REMARK: `{r}` not among remarks:\n  {}",
                o.remarks.join("\n  ")
            ));
        }
    }
    for (call, p, a, b) in &o.runs {
        if a != b || a.contains("[exit") {
            fails.push(format!(
                "run {call} with {p} worker(s): original `{a}`, transformed `{b}`"
            ));
        }
    }
    let golden = golden_path(&case.path);
    let text = golden_text(o);
    if bless {
        std::fs::write(&golden, &text).map_err(|source| PassError::Io {
            path: golden.clone(),
            source,
        })?;
    } else {
        match std::fs::read_to_string(&golden) {
            Ok(want) if want == text => {}
            Ok(want) => {
                let line = want
                    .lines()
                    .zip(text.lines())
                    .position(|(x, y)| x != y)
                    .unwrap_or(want.lines().count().min(text.lines().count()));
                fails.push(format!(
                    "output differs from {} at line {} (rerun with WEFT_BLESS=1 to accept):\n  want: {}\n  got:  {}",
                    golden.display(),
                    line + 1,
                    want.lines().nth(line).unwrap_or("<eof>"),
                    text.lines().nth(line).unwrap_or("<eof>")
                ));
            }
            Err(_) => fails.push(format!(
                "no golden file {} (run with WEFT_BLESS=1 to create it)",
                golden.display()
            )),
        }
    }
    Ok(fails)
}

/// All `.ll` cases under a directory, sorted.
pub fn discover(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "ll") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
