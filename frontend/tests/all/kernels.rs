//! The C kernels of issue 5, compiled by clang-19 with the default flags:
//! exact access functions, indirect classification and parallel verdicts.

use crate::common::*;

#[test]
fn matmul() {
    let s = summarize_fixture("matmul.c");
    let f = func(&s, "matmul");
    assert_eq!(f.loops.len(), 3);
    let (l0, l1, l2) = (&f.loops[0], &f.loops[1], &f.loops[2]);
    assert_eq!((l0.parent, l1.parent, l2.parent), (None, Some(0), Some(1)));
    assert_eq!((l0.depth, l1.depth, l2.depth), (1, 2, 3));
    for l in &f.loops {
        assert_eq!(l.trip_count.as_deref(), Some("n"));
    }
    assert!(l0.parallel && l1.parallel);
    assert!(!l2.parallel);
    assert_eq!(l2.reductions.len(), 1);
    assert_eq!(l2.reductions[0].op, "fmuladd");
    assert!(l2.reason.as_deref().unwrap().contains("reduction"));
    assert_eq!(accesses(l1), vec![acc("store", "affine", "C", "i0*n + i1")]);
    assert_eq!(
        accesses(l2),
        vec![
            acc("load", "affine", "A", "i0*n + i2"),
            acc("load", "affine", "B", "i1 + i2*n"),
        ]
    );
    assert_eq!(f.affine_nests.len(), 1);
    assert!(f.affine_nests[0].candidate);
    assert!(f.regions.is_empty());
}

#[test]
fn stencil_2d() {
    let s = summarize_fixture("stencil2d.c");
    let f = func(&s, "stencil2d");
    assert_eq!(f.loops.len(), 2);
    assert!(f.loops.iter().all(|l| l.parallel));
    assert!(f
        .loops
        .iter()
        .all(|l| l.trip_count.as_deref() == Some("510")));
    assert_eq!(
        f.loops[1].induction_variables[0].start.as_deref(),
        Some("1")
    );
    assert_eq!(
        accesses(&f.loops[1]),
        vec![
            acc("load", "affine", "@in", "512*i0 + i1"),
            acc("load", "affine", "@in", "512*i0 + i1 - 512"),
            acc("load", "affine", "@in", "512*i0 + i1 + 512"),
            acc("load", "affine", "@in", "512*i0 + i1 - 1"),
            acc("load", "affine", "@in", "512*i0 + i1 + 1"),
            acc("store", "affine", "@out", "512*i0 + i1"),
        ]
    );
    assert_eq!(f.affine_nests[0].parallel_loops.len(), 2);
}

#[test]
fn triangular() {
    let s = summarize_fixture("triangular.c");
    let f = func(&s, "trmv");
    let (l0, l1) = (&f.loops[0], &f.loops[1]);
    assert_eq!(l0.trip_count.as_deref(), Some("n"));
    assert_eq!(l1.trip_count.as_deref(), Some("i0 + 1"));
    assert!(l0.parallel);
    assert!(!l1.parallel);
    assert_eq!(l1.reductions.len(), 1);
    assert_eq!(accesses(l0), vec![acc("store", "affine", "y", "i0")]);
    assert_eq!(
        accesses(l1),
        vec![
            acc("load", "affine", "L", "i0*n + i1"),
            acc("load", "affine", "x", "i1"),
        ]
    );
}

#[test]
fn syr2k() {
    let s = summarize_fixture("syr2k.c");
    let f = func(&s, "syr2k");
    assert_eq!(f.loops.len(), 4);
    let p: Vec<bool> = f.loops.iter().map(|l| l.parallel).collect();
    // i parallel, first j parallel, k carries the C update, inner j parallel.
    assert_eq!(p, vec![true, true, false, true]);
    assert!(f.loops[2].reason.as_deref().unwrap().contains("on C"));
    let tc: Vec<_> = f
        .loops
        .iter()
        .map(|l| l.trip_count.clone().unwrap())
        .collect();
    assert_eq!(tc, vec!["n", "i0 + 1", "m", "i0 + 1"]);
    assert_eq!(
        accesses(&f.loops[3]),
        vec![
            acc("load", "affine", "A", "i2 + i3*m"),
            acc("load", "affine", "B", "i2 + i3*m"),
            acc("load", "affine", "C", "i0*n + i3"),
            acc("store", "affine", "C", "i0*n + i3"),
        ]
    );
}

#[test]
fn spmv_csr() {
    let s = summarize_fixture("spmv_csr.c");
    let f = func(&s, "spmv_csr");
    let (l0, l1) = (&f.loops[0], &f.loops[1]);
    assert!(l0.parallel);
    assert!(!l1.parallel);
    assert_eq!(
        l1.trip_count.as_deref(),
        Some("rowptr[i0 + 1] - rowptr[i0]")
    );
    assert_eq!(
        l1.induction_variables[0].start.as_deref(),
        Some("rowptr[i0]")
    );
    assert_eq!(
        accesses(l1),
        vec![
            acc("load", "affine", "val", "i1"),
            acc("load", "affine", "col", "i1"),
            acc("load", "indirect", "x", "col[i1]"),
        ]
    );
    assert_eq!(l1.accesses[2].index_array.as_deref(), Some("col"));
    assert_eq!(f.regions.len(), 1);
    assert_eq!(f.regions[0].loops.len(), 1);
    assert!(!f.regions[0].loops[0].needs_runtime_check);
    assert_eq!(f.regions[0].index_arrays, vec!["col"]);
    assert!(!f.affine_nests[0].candidate);
}

#[test]
fn gauss_seidel() {
    let s = summarize_fixture("gauss_seidel.c");
    let f = func(&s, "gauss_seidel");
    let (l0, l1) = (&f.loops[0], &f.loops[1]);
    assert!(
        !l0.parallel,
        "x[i] is written and x[col[p]] read across rows"
    );
    assert!(l0
        .reason
        .as_deref()
        .unwrap()
        .contains("reads x through index array col"));
    assert!(!l1.parallel);
    assert_eq!(
        accesses(l1),
        vec![
            acc("load", "affine", "val", "i1"),
            acc("load", "affine", "col", "i1"),
            acc("load", "indirect", "x", "col[i1]"),
        ]
    );
    assert_eq!(f.regions.len(), 1);
    assert!(f.regions[0].loops[0].needs_runtime_check);
}

#[test]
fn edge_scatter() {
    let s = summarize_fixture("edge_scatter.c");
    let f = func(&s, "edge_scatter");
    let l0 = &f.loops[0];
    assert!(!l0.parallel);
    assert_eq!(
        accesses(l0),
        vec![
            acc("load", "affine", "w", "i0"),
            acc("load", "affine", "src", "i0"),
            acc("load", "indirect", "x", "src[i0]"),
            acc("load", "affine", "dst", "i0"),
            acc("load", "indirect", "y", "dst[i0]"),
            acc("store", "indirect", "y", "dst[i0]"),
        ]
    );
    assert_eq!(f.regions.len(), 1);
    assert_eq!(f.regions[0].index_arrays, vec!["dst", "src"]);
    assert!(f.regions[0].loops[0].needs_runtime_check);
}

#[test]
fn edge_program_has_two_regions() {
    // Fig. 4.8: regions are delimited by assignments to the index arrays.
    let s = summarize_fixture("edge_scatter.c");
    let f = func(&s, "edge_program");
    assert_eq!(f.loops.len(), 5);
    assert_eq!(f.regions.len(), 2);
    let r0: Vec<u32> = f.regions[0].loops.iter().map(|l| l.loop_id.0).collect();
    let r1: Vec<u32> = f.regions[1].loops.iter().map(|l| l.loop_id.0).collect();
    assert_eq!(r0, vec![1, 2]);
    assert_eq!(r1, vec![4]);
    assert!(f.regions[0].starts_after.as_deref().unwrap().contains("L0"));
    assert!(f.regions[0].ends_before.as_deref().unwrap().contains("L3"));
    // The swap loop writes the index arrays: affine and parallel, not a region.
    assert!(f.loops[3].parallel);
}

#[test]
fn json_shape() {
    let s = summarize_fixture("spmv_csr.c");
    let v: serde_json::Value = serde_json::from_str(&s.to_json()).unwrap();
    let l = &v["functions"][0]["loops"][1];
    assert_eq!(l["id"], 1);
    assert_eq!(l["parent"], 0);
    assert_eq!(l["depth"], 2);
    assert_eq!(l["parallel"], false);
    assert!(l["reason"].is_string());
    assert_eq!(
        v["functions"][0]["loops"][0]["parent"],
        serde_json::Value::Null
    );
    assert_eq!(
        v["functions"][0]["loops"][0]["reason"],
        serde_json::Value::Null
    );
    let a = &l["accesses"][2];
    assert_eq!(a["kind"], "load");
    assert_eq!(a["class"], "indirect");
    assert_eq!(a["base"], "x");
    assert_eq!(a["index"], "col[i1]");
}

#[test]
fn synthetic_module_has_the_expected_loops() {
    use weft_frontend::synth::{synthetic_c, LOOPS_PER_GROUP};
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.c");
    std::fs::write(&p, synthetic_c(2)).unwrap();
    let ctx = inkwell::context::Context::create();
    let m = weft_frontend::load_module(&ctx, &p, &Default::default()).unwrap();
    let a = weft_frontend::ModuleAnalysis::new(&m);
    let loops: usize = a.functions.iter().map(|f| f.forest.len()).sum();
    assert_eq!(loops, 2 * LOOPS_PER_GROUP);
    // Every loop of the generated kernels has a trip count.
    for f in &a.functions {
        for l in &f.forest.loops {
            assert!(
                f.ivs[l.id.index()].trip_count.is_some(),
                "{} {}",
                f.name,
                l.id
            );
        }
    }
}

#[test]
fn reference_matrix_and_exit_values() {
    let ctx = inkwell::context::Context::create();
    let m = weft_frontend::load_module(&ctx, &fixture("stencil2d.c"), &Default::default()).unwrap();
    let a = weft_frontend::ModuleAnalysis::new(&m);
    let f = a.function("stencil2d").unwrap();
    use weft_frontend::{LoopId, Poly};
    // in[i][j-1]: 4096*i + 8*j - 8 bytes.
    let acc = &f.accesses[3];
    let r = f.reference(acc).unwrap();
    assert_eq!(
        r.coefficients,
        vec![
            (LoopId(0), Poly::constant(4096)),
            (LoopId(1), Poly::constant(8))
        ]
    );
    assert_eq!(r.offset, Poly::constant(-8));
    let e = f.loop_ivs(LoopId(1)).exit.as_ref().unwrap();
    assert_eq!(weft_frontend::ir::const_int(e.bound_value), Some(511));
}
