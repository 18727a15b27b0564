//! `weft analyze`: text report and the stable JSON shape.

use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("frontend/tests/fixtures")
        .join(name)
}

use crate::weft;

#[test]
fn analyze_json_shape() {
    let out = weft()
        .args(["analyze", "--json"])
        .arg(fixture("edge_scatter.c"))
        .output()
        .unwrap();
    let v = crate::json_of(&out);
    let f = v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "edge_scatter")
        .unwrap();
    let l = &f["loops"][0];
    assert_eq!(l["id"], 0);
    assert_eq!(l["parent"], serde_json::Value::Null);
    assert_eq!(l["depth"], 1);
    assert_eq!(l["trip_count"], "m");
    assert_eq!(l["parallel"], false);
    assert!(l["reason"]
        .as_str()
        .unwrap()
        .contains("through index array"));
    let store = &l["accesses"][5];
    assert_eq!(store["kind"], "store");
    assert_eq!(store["class"], "indirect");
    assert_eq!(store["base"], "y");
    assert_eq!(store["index"], "dst[i0]");
    assert_eq!(f["regions"].as_array().unwrap().len(), 1);
}

#[test]
fn analyze_text_report_and_function_filter() {
    let out = weft()
        .args(["analyze", "--function", "matmul"])
        .arg(fixture("matmul.c"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("function @matmul (3 loops)"), "{s}");
    assert!(s.contains("C[i0*n + i1]"), "{s}");
    assert!(s.contains("loop-carried scalar reduction"), "{s}");
}

#[test]
fn analyze_bad_input_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.ll");
    std::fs::write(
        &p,
        "define void @f() {\n  %x = add i32 1, %nope\n  ret void\n}\n",
    )
    .unwrap();
    let out = weft().arg("analyze").arg(&p).output().unwrap();
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("bad.ll:2: invalid LLVM IR"), "{e}");
    assert!(e.contains("nope"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
}
