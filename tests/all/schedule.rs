//! `weft schedule`: exact JSON formats and error messages.

use std::io::Write;
use std::process::Stdio;

fn run(args: &[&str], stdin: &str) -> (bool, String, String) {
    let mut child = crate::weft()
        .arg("schedule")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const FIG49: &str = r#"{"cores": 4, "banks": 4, "slabs": [[[3],[1,2],[1],[0,3]],[[0],[1],[2],[3]],[[1],[2],[3],[0]],[[0],[2],[1],[2]]]}"#;

#[test]
fn blp_json_format() {
    let (ok, out, err) = run(
        &["--algo", "blp", "--lowest", "--input", "-", "--json"],
        FIG49,
    );
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["schedule"],
        serde_json::json!([[0, 3, 2, 1], [0, 1, 2, 3], [0, 1, 2, 3], [1, 3, 0, 2]])
    );
    assert_eq!(v["coverage"], serde_json::json!([4, 4, 4, 4]));
}

#[test]
fn optimal_and_lookahead_variants() {
    let (ok, out, _) = run(&["--algo", "optimal", "--input", "-", "--json"], FIG49);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["coverage"], serde_json::json!([4, 4, 4, 4]));
    let (ok, out, _) = run(&["--algo", "blp-q2", "--input", "-", "--json"], FIG49);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schedule"].as_array().unwrap().len(), 4);
    let (ok, _, err) = run(&["--algo", "blp-q0", "--input", "-"], FIG49);
    assert!(!ok && err.contains("blp-q<N>"), "{err}");
}

#[test]
fn ib_json_format_table_5_1() {
    let inst = r#"{"cores":1,"window":2,"mem_banks":4,"llc_banks":4,"blocks":[
        {"mem":[0,1,3,0],"llc":[2,0,4,0]},{"mem":[1,2,0,1],"llc":[2,0,4,0]},
        {"mem":[0,0,2,2],"llc":[0,2,0,4]},{"mem":[2,2,0,0],"llc":[0,3,0,3]}]}"#;
    for (algo, first) in [
        ("mlp-first", [0, 1]),
        ("clp-first", [0, 2]),
        ("balanced", [0, 3]),
    ] {
        let (ok, out, err) = run(&["--algo", algo, "--input", "-", "--json"], inst);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["windows"][0][0], serde_json::json!(first), "{algo}");
        assert_eq!(v["beta"].as_array().unwrap().len(), 2);
    }
    // la-mlp: 0 first (g = {1,2}); IB 1 adds banks 0 and 3 (IB 2 and 3 one
    // each) -> [0, 1]; next window starts with 2, the successor of 1.
    let (ok, out, err) = run(&["--algo", "la-mlp", "--input", "-", "--json"], inst);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["windows"], serde_json::json!([[[0, 1]], [[2, 3]]]));
    assert_eq!(v["beta"], serde_json::json!([]));
    let (ok, out, _) = run(&["--algo", "default", "--input", "-", "--json"], inst);
    assert!(ok);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["windows"], serde_json::json!([[[0, 1]], [[2, 3]]]));
}

#[test]
fn malformed_instances_name_the_field() {
    let (ok, _, err) = run(
        &["--algo", "blp", "--input", "-"],
        r#"{"cores":1,"banks":4,"slabs":[[[1,7]]]}"#,
    );
    assert!(!ok && err.contains("slabs[0][0][1]"), "{err}");
    let (ok, _, err) = run(
        &["--algo", "blp", "--input", "-"],
        r#"{"banks":4,"slabs":[]}"#,
    );
    assert!(!ok && err.contains("`cores`"), "{err}");
    let (ok, _, err) = run(
        &["--algo", "balanced", "--input", "-"],
        r#"{"cores":1,"window":2,"mem_banks":2,"llc_banks":2,"blocks":[{"mem":[1,2]}]}"#,
    );
    assert!(!ok && err.contains("blocks[0].llc"), "{err}");
    let (ok, _, err) = run(&["--algo", "nope", "--input", "-"], FIG49);
    assert!(!ok && err.contains("unknown --algo"), "{err}");
}
