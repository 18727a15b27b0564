//! The Equake benchmark's pack-file loader and 3x3-block SMVP reproduce the
//! reference output of Spark98's `smv -O` on the shipped meshes.

use weft_testsuite::bench;

use crate::common::exe;

fn check(pack: &str, expected: &str) {
    let data = bench::data_dir().join("spark98");
    let args = vec![
        "--output".to_string(),
        "--input".to_string(),
        data.join(pack).to_string_lossy().into_owned(),
    ];
    let out = bench::run(exe("equake"), &args).unwrap();
    let ours: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| !l.starts_with("checksum:"))
        .collect();
    let text = std::fs::read_to_string(data.join(expected)).unwrap();
    let reference: Vec<&str> = text.lines().collect();
    assert_eq!(ours.len(), reference.len(), "line count for {pack}");
    for (i, (a, b)) in ours.iter().zip(&reference).enumerate() {
        assert_eq!(a.trim(), b.trim(), "{pack}: line {} differs", i + 1);
    }
}

#[test]
fn sf10_smvp_matches_spark98_reference() {
    check("sf10.1.pack", "sf10.1.smv_O_i100.expected.out");
}

#[test]
fn tiny_smvp_matches_spark98_reference() {
    check("tiny.1.pack", "tiny.1.smv_O.expected.out");
}
