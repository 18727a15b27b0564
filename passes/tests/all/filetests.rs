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
