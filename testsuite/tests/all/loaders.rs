//! The C loaders (weft_bench.c) parse every file of the shared data set they
//! target, with the sizes listed in the data README, and reject malformed files
//! with a message.

use std::collections::HashMap;
use std::process::Command;

use weft_testsuite::bench;

use crate::common::{loadcheck, with_support};

/// Runs loadcheck and returns its key=value fields.
fn load(kind: &str, rel: &str) -> HashMap<String, i64> {
    let path = bench::data_dir().join(rel);
    let out = Command::new(loadcheck())
        .arg(kind)
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{rel}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.parse().unwrap()))
        .collect()
}

#[test]
fn matrix_market_files_match_readme_table() {
    // (file, rows, cols, stored entries, symmetric lower triangle)
    let table: &[(&str, i64, i64, i64, bool)] = &[
        ("suitesparse/bayer10.mtx", 13436, 13436, 94926, false),
        ("suitesparse/bcsstk16.mtx", 4884, 4884, 147631, true),
        ("suitesparse/bcsstk13.mtx", 2003, 2003, 42943, true),
        ("suitesparse/mbeacxc.mtx", 496, 496, 49920, false),
        ("suitesparse/rajat01.mtx", 6833, 6833, 43250, false),
        ("suitesparse/Pd.mtx", 8081, 8081, 13036, false),
        ("suitesparse/bcspwr10.mtx", 5300, 5300, 13571, true),
        ("suitesparse/zenios.mtx", 2873, 2873, 15032, true),
        ("suitesparse/cryg2500.mtx", 2500, 2500, 12349, false),
        ("suitesparse/watt_2.mtx", 1856, 1856, 11550, false),
        ("suitesparse/adder_dcop_05.mtx", 1813, 1813, 11097, false),
        ("suitesparse/dwt_992.mtx", 992, 992, 8868, true),
        ("suitesparse/nnc1374.mtx", 1374, 1374, 8606, false),
        ("suitesparse/hangGlider_2.mtx", 1647, 1647, 7834, true),
        ("suitesparse/G51.mtx", 1000, 1000, 5909, true),
        ("suitesparse/jagmesh7.mtx", 1138, 1138, 4294, true),
        ("suitesparse/olm1000.mtx", 1000, 1000, 3996, false),
        ("suitesparse/Erdos971.mtx", 472, 472, 1314, true),
        ("suitesparse/west0067.mtx", 67, 67, 294, false),
        ("suitesparse/GD97_b.mtx", 47, 47, 132, true),
        ("suitesparse/karate.mtx", 34, 34, 78, true),
        ("hb_rmatrix/lund_a.mtx", 147, 147, 1298, true),
        ("hb_rmatrix/pores_1.mtx", 30, 30, 180, false),
        ("hb_rmatrix/jgl009.mtx", 9, 9, 50, false),
    ];
    for &(file, rows, cols, stored, sym) in table {
        let f = load("mm", file);
        assert_eq!(f["rows"], rows, "{file}");
        assert_eq!(f["cols"], cols, "{file}");
        assert_eq!(f["stored"], stored, "{file}");
        assert_eq!(f["symmetric"] == 1, sym, "{file}");
        // symmetric expansion mirrors every off-diagonal entry of the lower triangle
        let expect = if sym { 2 * stored - f["diag"] } else { stored };
        assert_eq!(f["expanded"], expect, "{file}");
        assert_eq!(f["csr_nnz"], expect, "{file}: duplicates in the file?");
    }
}

#[test]
fn metis_graphs_match_readme() {
    for (file, v, e) in [
        ("metis/4elt.graph", 15606, 45878),
        ("metis/copter2.graph", 55476, 352238),
        ("metis/mdual.graph", 258569, 513132),
    ] {
        let f = load("metis", file);
        assert_eq!(f["vertices"], v, "{file}");
        assert_eq!(f["edges"], e, "{file}");
        assert_eq!(f["adjacency"], 2 * e, "{file}");
    }
}

#[test]
fn edge_lists_match_readme() {
    // (file, id range n = max id - base + 1, lines, base)
    for (file, n, lines, base) in [
        ("graphs/luxembourg_osm.edges", 114599, 119666, 1),
        ("graphs/delaunay_n16.edges", 65536, 196575, 1),
        ("graphs/3elt.edges", 4720, 13722, 1),
        ("graphs/USPowerGrid.edges", 4941, 6594, 1),
        ("graphs/facebook_combined.edges", 4039, 88234, 0),
        ("graphs/cit-HepTh.relabeled.edges", 27770, 352807, 0),
        // README: 16,384 generator ids; the largest id in the file is 16,380
        ("graphs/kron_g14_k16.gapbs.edges", 16381, 425860, 0),
    ] {
        let f = load("edges", file);
        assert_eq!(f["ids"], n, "{file}");
        assert_eq!(f["lines"], lines, "{file}");
        assert_eq!(f["base"], base, "{file}");
    }
    // the Kronecker file lists each of its 212,930 undirected edges in both directions
    assert_eq!(
        load("edges", "graphs/kron_g14_k16.gapbs.edges")["undirected"],
        212930
    );
    // edge lists that store each edge once keep all of them after symmetrization
    assert_eq!(
        load("edges", "graphs/delaunay_n16.edges")["undirected"],
        196575
    );
}

#[test]
fn spark98_packfiles_match_readme() {
    let f = load("pack", "spark98/sf10.1.pack");
    assert_eq!(f["nodes"], 7294);
    assert_eq!(f["elems"], 35025);
    assert_eq!(f["blocks"], 52216);
    assert_eq!(f["both_triangles"], 97138);
    let t = load("pack", "spark98/tiny.1.pack");
    assert_eq!(t["nodes"], 75);
}

#[test]
fn malformed_files_are_rejected_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("mm", "a.mtx", "not a matrix market file\n1 1 1\n"),
        (
            "mm",
            "b.mtx",
            "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n",
        ),
        (
            "mm",
            "c.mtx",
            "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n",
        ),
        (
            "mm",
            "d.mtx",
            "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
        ),
        ("metis", "e.graph", "3 2\n2\n1 3\n"),
        ("metis", "f.graph", "2 1\n2\n5\n"),
        ("edges", "g.edges", "1 2\nx y\n"),
        ("pack", "h.pack", "3 3\n1 4\n1\n1\n"),
    ];
    for (kind, name, text) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let out = Command::new(loadcheck())
            .arg(kind)
            .arg(&p)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{name} was accepted");
        let msg = String::from_utf8_lossy(&out.stderr);
        assert!(
            msg.contains(name),
            "{name}: message does not name the file: {msg}"
        );
    }
}

/// `wb_alloc` puts a run's blocks at fixed addresses: two programs of
/// different sizes, one of which churns the C heap first, get the same
/// addresses (4 KiB aligned, in allocation order from the arena base), freed
/// blocks are not reused, reallocated blocks keep their bytes (and their new
/// bytes are zero), and `WEFT_BENCH_ARENA=0` falls back to calloc.
#[test]
fn wb_alloc_addresses_do_not_depend_on_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let prog = |name: &str, extra: &str| {
        let src = dir.path().join(format!("{name}.c"));
        std::fs::write(
            &src,
            format!(
                r#"#include "weft_bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
{extra}
int main(void) {{
    churn();
    char *a = wb_alloc(1000);
    double *b = wb_alloc(3 << 20);
    memset(a, 7, 1000);
    wb_free(b);
    char *c = wb_realloc(a, 5000);
    int zero = 1;
    for (int i = 1000; i < 5000; i++) zero &= c[i] == 0;
    printf("%lx %lx %lx %lx %d %d\n", (unsigned long)wb_arena_base(), (unsigned long)a,
           (unsigned long)b, (unsigned long)c, c[999], zero);
    return 0;
}}
"#
            ),
        )
        .unwrap();
        let exe = dir.path().join(name);
        with_support(&src, &exe);
        exe
    };
    let run = |exe: &std::path::Path, arena: bool| {
        let mut c = Command::new(exe);
        if !arena {
            c.env("WEFT_BENCH_ARENA", "0");
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let small = prog("small", "static void churn(void) {}");
    let big = prog(
        "big",
        "static char pad[1 << 22] = {1};\n\
         static void churn(void) { for (int i = 0; i < 100; i++) free(malloc(1000 + (size_t)i * pad[i])); }",
    );
    let (s, b) = (run(&small, true), run(&big, true));
    if s.starts_with("0 ") {
        eprintln!("skipped: this kernel refuses the arena mapping ({s})");
        return;
    }
    assert_eq!(s, b);
    // base, then one 4 KiB page for `a`, then 3 MiB for `b`; `c` after both
    assert_eq!(
        s, "200000000000 200000000000 200000001000 200000301000 7 1",
        "{s}"
    );
    let fallback = run(&small, false);
    // (realloc's new bytes are not zeroed there)
    let f: Vec<&str> = fallback.split(' ').collect();
    assert!(f[0] == "0" && f[4] == "7", "{fallback}");
}
