//! Runs every case under `testsuite/filetests/` (see `weft_passes::filetest`).
//! `WEFT_BLESS=1` rewrites the golden `.out` files.

use std::path::PathBuf;

use weft_passes::filetest;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testsuite/filetests")
}

#[test]
fn filetests() {
    let bless = std::env::var("WEFT_BLESS").is_ok_and(|v| v == "1");
    let cases = filetest::discover(&root());
    assert!(
        cases.len() >= 10,
        "expected the filetests, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    let mut runs = 0;
    // `WEFT_FILETEST=<substring>` runs only the matching cases (for iterating on one pass).
    let filter = std::env::var("WEFT_FILETEST").unwrap_or_default();
    for path in cases
        .iter()
        .filter(|p| p.to_string_lossy().contains(&filter))
    {
        let case = filetest::parse_case(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        match filetest::run_case(&case) {
            Ok(o) => {
                runs += o.runs.len();
                let fails = filetest::check_case(&case, &o, bless).expect("golden io");
                for f in fails {
                    failures.push(format!("{}: {f}", path.display()));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "filetests: {} case(s), {runs} differential run(s)",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "filetest failures:\n{}",
        failures.join("\n")
    );
}

#[test]
fn check_directives_can_fail() {
    // A case whose CHECK line cannot match must be reported, not silently pass.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.ll");
    std::fs::write(
        &p,
        "; PASSES: none\n; CHECK: this text is not in the module\ndefine i32 @f() {\n  ret i32 1\n}\n",
    )
    .unwrap();
    let case = filetest::parse_case(&p).unwrap();
    let o = filetest::run_case(&case).unwrap();
    let fails = filetest::check_case(&case, &o, false).unwrap();
    assert!(fails.iter().any(|f| f.contains("not found")), "{fails:?}");
    assert!(
        fails.iter().any(|f| f.contains("no golden file")),
        "{fails:?}"
    );
}

#[test]
fn one_program_serves_every_run_line() {
    // Two `run:` lines calling different functions (integer and floating-point
    // results) through the one generated driver: each line gets its own call.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.ll");
    std::fs::write(
        &p,
        "; PASSES: none\n; run: @twice(21)\n; run: @half(3)\n; run: @twice(-4)\n; cores: 1,2\n\
         define i32 @twice(i32 %x) {\n  %y = mul i32 %x, 2\n  ret i32 %y\n}\n\
         define double @half(i64 %x) {\n  %f = sitofp i64 %x to double\n  %h = fmul double %f, 5.000000e-01\n  ret double %h\n}\n",
    )
    .unwrap();
    let case = filetest::parse_case(&p).unwrap();
    let o = filetest::run_case(&case).unwrap();
    let got: Vec<(String, u32, String)> = o
        .runs
        .iter()
        .map(|(call, cores, a, b)| {
            assert_eq!(a, b, "{call} at {cores} worker(s)");
            (call.clone(), *cores, a.clone())
        })
        .collect();
    let want = |call: &str, out: &str| [1, 2].map(|c| (call.to_string(), c, out.to_string()));
    let mut expected = Vec::new();
    expected.extend(want("@twice(21)", "42"));
    expected.extend(want("@half(3)", "1.5 0x3ff8000000000000"));
    expected.extend(want("@twice(-4)", "-8"));
    assert_eq!(got, expected);
}
