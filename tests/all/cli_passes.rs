//! `weft opt` / `weft build` / `weft run` from the command line: errors are
//! clear messages (exit status 1), never panics.

use std::process::Command;

use crate::weft;

const LOOP: &str = "define void @k(i64 %n, ptr noalias %a) {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 7, ptr %p
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %body, label %exit
exit:
  ret void
}
";

fn output(args: &[&str]) -> (bool, String) {
    let o = weft().args(args).output().expect("run weft");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!text.contains("panicked"), "{text}");
    (o.status.success(), text)
}

#[test]
fn opt_errors_are_clear() {
    let d = tempfile::tempdir().unwrap();
    let good = d.path().join("k.ll");
    std::fs::write(&good, LOOP).unwrap();
    let bad = d.path().join("bad.ll");
    // Well-formed syntax, but fails the verifier (use before definition).
    std::fs::write(
        &bad,
        "define i32 @f() {\n  %a = add i32 %b, 1\n  %b = add i32 %a, 1\n  ret i32 %a\n}\n",
    )
    .unwrap();
    let out = d.path().join("o.ll");
    let o = out.to_str().unwrap();
    let (ok, t) = output(&["opt", good.to_str().unwrap(), "-o", o, "--passes=nope"]);
    assert!(
        !ok && t.contains("unknown pass `nope`") && t.contains("insert-inspector"),
        "{t}"
    );
    let (ok, t) = output(&[
        "opt",
        good.to_str().unwrap(),
        "-o",
        o,
        "--passes=insert-inspector<slab=-3>",
    ]);
    assert!(!ok && t.contains("slab"), "{t}");
    let (ok, t) = output(&["opt", bad.to_str().unwrap(), "-o", o]);
    assert!(!ok && t.contains("bad.ll"), "{t}");
    let (ok, t) = output(&[
        "opt",
        good.to_str().unwrap(),
        "-o",
        o,
        "--passes=parallel-for",
        "--remarks",
    ]);
    assert!(ok, "{t}");
    assert!(t.contains("applied: executor form"), "{t}");
    let ir = std::fs::read_to_string(&out).unwrap();
    assert!(ir.contains("@weft_parallel_for"), "{ir}");
    let (ok, t) = output(&["opt", "--list-passes"]);
    assert!(
        ok && t.contains("instrument-trace") && t.contains("default pipeline"),
        "{t}"
    );
}

#[test]
fn build_and_run_in_trace_mode() {
    let d = tempfile::tempdir().unwrap();
    let c = d.path().join("p.c");
    std::fs::write(
        &c,
        r#"#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) void kernel_gather(int n, const int *restrict idx, const double *restrict x, double *restrict y) {
  for (int i = 0; i < n; i++) y[i] = 2.0 * x[idx[i]];
}
int main(void) {
  int n = 5000; int *idx = malloc(n * sizeof(int));
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) { idx[i] = (i * 7919) % n; x[i] = i * 0.5; }
  kernel_gather(n, idx, x, y);
  double s = 0; for (int i = 0; i < n; i++) s += y[i] * (i % 3);
  printf("%.17g\n", s);
  return 0;
}
"#,
    )
    .unwrap();
    let exe = d.path().join("p");
    let orig = d.path().join("p0");
    let (ok, t) = output(&[
        "build",
        c.to_str().unwrap(),
        "-o",
        orig.to_str().unwrap(),
        "--passes=none",
    ]);
    assert!(ok, "{t}");
    let (ok, t) = output(&[
        "build",
        c.to_str().unwrap(),
        "-o",
        exe.to_str().unwrap(),
        "--passes=insert-inspector,instrument-trace<only=kernel_*>",
        "--remarks",
    ]);
    assert!(ok && t.contains("applied: inspector/executor"), "{t}");
    let want = Command::new(&orig).output().unwrap().stdout;
    let trace = d.path().join("p.trace");
    let o = weft()
        .args([
            "run",
            exe.to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
            "--cores",
            "4",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.stdout, want);
    let bytes = std::fs::read(&trace).unwrap();
    assert!(bytes.starts_with(b"WEFTTRC"), "trace header");
    // 5000 iterations x 3 accesses at least (idx, x, y).
    assert!(
        bytes.len() > 15_000,
        "trace too small: {} bytes",
        bytes.len()
    );
    let (ok, t) = output(&["run", "/nonexistent/exe", "--cores", "2"]);
    assert!(!ok && t.contains("does not exist"), "{t}");
}

/// A program whose run never calls the runtime (here: `--passes=none`) still
/// writes `WEFT_STATS` at exit: `weft build` links the runtime's start-up
/// entry, which configures it when the variable is set.
#[test]
fn stats_written_without_runtime_calls() {
    let d = tempfile::tempdir().unwrap();
    let c = d.path().join("p.c");
    std::fs::write(&c, "int main(void) { return 0; }\n").unwrap();
    let exe = d.path().join("p");
    let (ok, t) = output(&[
        "build",
        c.to_str().unwrap(),
        "-o",
        exe.to_str().unwrap(),
        "--passes=none",
    ]);
    assert!(ok, "{t}");
    let stats = d.path().join("s.json");
    let st = std::process::Command::new(&exe)
        .env("WEFT_STATS", &stats)
        .env("WEFT_CORES", "2")
        .status()
        .unwrap();
    assert!(st.success());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).expect("stats written")).unwrap();
    assert_eq!(v["cores"], 2);
    assert_eq!(v["regions"].as_array().map(|r| r.len()), Some(0));
}

/// `weft build --codegen-flag` hands its flags to the compiler that compiles the
/// optimized module and links it (here a linker map file shows it did), and a flag
/// the compiler rejects fails the build with the compiler's message.
#[test]
fn build_passes_codegen_flags_to_the_compiler() {
    let d = tempfile::tempdir().unwrap();
    let c = d.path().join("p.c");
    std::fs::write(
        &c,
        "int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += i; return s - 45; }\n",
    )
    .unwrap();
    let exe = d.path().join("p");
    let map = d.path().join("p.map");
    let (ok, t) = output(&[
        "build",
        c.to_str().unwrap(),
        "-o",
        exe.to_str().unwrap(),
        "--codegen-flag=-falign-loops=64",
        &format!("--codegen-flag=-Wl,-Map={}", map.display()),
    ]);
    assert!(ok, "{t}");
    assert!(map.exists(), "the linker map was not written: {t}");
    assert!(Command::new(&exe).status().unwrap().success());
    let (ok, t) = output(&[
        "build",
        c.to_str().unwrap(),
        "-o",
        exe.to_str().unwrap(),
        "--codegen-flag=-fno-such-flag-for-weft",
    ]);
    assert!(!ok, "an unknown compiler flag must fail the build");
    assert!(t.contains("no-such-flag-for-weft"), "{t}");
}

/// Issue #38, item 9: `--machine garbage` is refused even when no pass of the
/// pipeline reads the machine, and a bad pass option is not reported as an
/// LLVM failure.
#[test]
fn machine_and_option_errors_name_their_cause() {
    let d = tempfile::tempdir().unwrap();
    let good = d.path().join("k.ll");
    std::fs::write(&good, LOOP).unwrap();
    let o = d.path().join("o.ll");
    let (g, o) = (good.to_str().unwrap(), o.to_str().unwrap());
    let (ok, t) = output(&["opt", g, "-o", o, "--passes=none", "--machine", "garbage"]);
    assert!(
        !ok && t.contains("--machine garbage: unknown machine `garbage`"),
        "{t}"
    );
    let (ok, t) = output(&["opt", g, "-o", o, "--passes=strip-mine<max-ibs=0>"]);
    assert!(
        !ok && t.contains("pass `strip-mine`: option `max-ibs`: must be positive"),
        "{t}"
    );
    assert!(!t.contains("LLVM"), "{t}");
}
