//! Property test: random two-level nests whose inner bounds depend on the
//! outer IV (`for (i1 = i0; i1 < T1; i1++)`, `i1 < i0`, ...), writing rows and
//! columns of a 16-wide matrix (`out[r][c]` over `int (*out)[16]`, `r` and `c` among `i0`,
//! `i1`, `i0+1`, `i1+1`, `0`). Every loop the frontend reports parallel is
//! checked by brute force over the real (triangular) iteration space; the
//! symmetric update of covariance (`out[i0][i1]` and `out[i1][i0]` for
//! `i1 >= i0`), which only the triangular test proves, must be reported
//! parallel at level 0, so the test fails if that test stops working, not
//! only if it becomes unsound.

use proptest::prelude::*;

/// Inner lower bound: `0`, `i0` or `i0 + 1`.
const LOWER: [&str; 3] = ["0", "i0", "i0 + 1"];
/// Inner upper bound (exclusive): `T1`, `i0` or `i0 + 1`.
const UPPER: [&str; 3] = ["T1", "i0", "i0 + 1"];
/// Row and column subscripts.
const SUBS: [&str; 5] = ["i0", "i1", "i0 + 1", "i1 + 1", "0"];

#[derive(Debug, Clone)]
struct Tri {
    t0: i64,
    t1: i64,
    lower: usize,
    upper: usize,
    /// Per statement: (row, column) subscripts into `SUBS`.
    stmts: Vec<(usize, usize)>,
}

/// The covariance pattern: `i1` from `i0` to `T1 = T0`, stores to
/// `out[i0][i1]` and `out[i1][i0]`.
fn symmetric(t: i64) -> Tri {
    Tri {
        t0: t,
        t1: t,
        lower: 1,
        upper: 0,
        stmts: vec![(0, 1), (1, 0)],
    }
}

fn tri() -> impl Strategy<Value = Tri> {
    (
        2i64..12,
        2i64..12,
        0usize..3,
        0usize..3,
        proptest::collection::vec((0usize..5, 0usize..5), 1..3),
        0u8..4,
    )
        .prop_map(|(t0, t1, lower, upper, mut stmts, kind)| {
            if kind == 0 {
                return symmetric(t0);
            }
            // Every statement varies with i1, so clang keeps it in the inner loop.
            for s in stmts.iter_mut() {
                if s.0 != 1 && s.0 != 3 && s.1 != 1 && s.1 != 3 {
                    s.1 = 1;
                }
            }
            Tri {
                t0,
                t1,
                lower,
                upper,
                stmts,
            }
        })
}

fn to_c(t: &Tri) -> String {
    let mut s = format!(
        "#define T1 {}\nvoid k(const int *restrict in, int (*restrict out)[16]) {{\n  for (long i0 = 0; i0 < {}; i0++)\n    for (long i1 = {}; i1 < {}; i1++) {{\n",
        t.t1, t.t0, LOWER[t.lower], UPPER[t.upper]
    );
    for (r, c) in &t.stmts {
        let e = format!("{}][{}", SUBS[*r], SUBS[*c]);
        s += &format!("      out[{e}] = out[{e}] + in[i0 + i1];\n");
    }
    s += "    }\n}\n";
    s
}

fn sub(k: usize, i0: i64, i1: i64) -> i64 {
    [i0, i1, i0 + 1, i1 + 1, 0][k]
}

/// Brute force: does level `l` (0: `i0`, 1: `i1`) carry a dependence on `out`?
fn carries(t: &Tri, l: usize) -> bool {
    use std::collections::HashMap;
    // (i0 if l == 1, location) -> the IV of level l that touched it first.
    let mut seen: HashMap<(i64, i64), i64> = HashMap::new();
    for i0 in 0..t.t0 {
        let lo = [0, i0, i0 + 1][t.lower];
        let hi = [t.t1, i0, i0 + 1][t.upper];
        for i1 in lo..hi {
            for (r, c) in &t.stmts {
                let loc = sub(*r, i0, i1) * 16 + sub(*c, i0, i1);
                let (outer, me) = if l == 0 { (0, i0) } else { (i0, i1) };
                match seen.get(&(outer, loc)) {
                    Some(&v) if v != me => return true,
                    Some(_) => {}
                    None => {
                        seen.insert((outer, loc), me);
                    }
                }
            }
        }
    }
    false
}

fn cases() -> u32 {
    std::env::var("WEFT_PROP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() * 2, .. ProptestConfig::default() })]
    #[test]
    fn random_triangular_nests(t in tri()) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.c");
        std::fs::write(&p, to_c(&t)).unwrap();
        let ctx = inkwell::context::Context::create();
        let m = weft_frontend::load_module(&ctx, &p, &Default::default()).unwrap();
        let a = weft_frontend::ModuleAnalysis::new(&m);
        let f = a.function("k").unwrap();
        let mut verdicts = Vec::new();
        for l in &f.forest.loops {
            let k = f.forest.ancestors(l.id).len() - 1;
            let d = &f.deps[l.id.index()];
            verdicts.push((k, d.parallel));
            if d.parallel {
                prop_assert!(
                    k < 2 && !carries(&t, k),
                    "L{} reported parallel but carries a dependence:\n{}", k, to_c(&t)
                );
            }
        }
        // (clang may fold a tiny inner loop into a form without a range.)
        let ranges = f.forest.loops.iter().all(|l| f.loop_ivs(l.id).range.is_some());
        if ranges && t.stmts == symmetric(t.t0).stmts && t.lower == 1 && t.upper == 0 && t.t0 == t.t1 {
            prop_assert!(
                verdicts.contains(&(0, true)),
                "the symmetric update is not reported parallel at level 0: {:?}\n{}",
                f.deps.iter().map(|d| d.reasons.clone()).collect::<Vec<_>>(),
                to_c(&t)
            );
        }
    }
}

/// The LU row update `for (j = i; j < n; j++) for (k = 0; k < i; k++)
/// A[i][j] -= A[i][k] * A[k][j]`: the `j` loop writes columns `>= i` and
/// reads columns `< i` of row `i`, so it is parallel, which only the
/// triangular test proves.
#[test]
fn lu_row_update_is_parallel() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("lu.c");
    std::fs::write(
        &p,
        "static double A[64][64];\n\
         void lu(long n) {\n\
           for (long i = 0; i < n; i++)\n\
             for (long j = i; j < n; j++)\n\
               for (long k = 0; k < i; k++) A[i][j] = A[i][j] - A[i][k] * A[k][j];\n\
         }\n",
    )
    .unwrap();
    let ctx = inkwell::context::Context::create();
    let m = weft_frontend::load_module(&ctx, &p, &Default::default()).unwrap();
    let a = weft_frontend::ModuleAnalysis::new(&m);
    let f = a.function("lu").unwrap();
    let depth = |l: &weft_frontend::Loop| f.forest.ancestors(l.id).len();
    let verdict = |d: usize| {
        let l = f.forest.loops.iter().find(|l| depth(l) == d).unwrap();
        (
            f.deps[l.id.index()].parallel,
            f.deps[l.id.index()].reasons.clone(),
        )
    };
    assert!(!verdict(1).0, "the i loop carries the factorisation");
    let (par, why) = verdict(2);
    assert!(par, "the j loop is parallel: {why:?}");
}
