//! Property test of loop distribution (`weft_frontend::distribution`,
//! `docs/parallelism.md`): random loops `i` whose body is two row loops
//!
//! ```c
//! for (long j = 0; j < W; j++) X1[r1(i)*W + j] = Y1[s1(i)*W + j] + 1.0;
//! for (long j = 0; j < W; j++) X2[r2(i)*W + j] = Y2[s2(i)*W + j] * 0.5;
//! ```
//!
//! over three `restrict` arrays, each row `i-1`, `i`, `i+1` or the fixed row
//! 0. Whenever weft proposes a split of the `i` loop, the brute force checks
//! on the real accesses that it is legal (no access of the second loop in
//! iteration `i` conflicts with one of the first in a later iteration) and
//! that each part it calls parallel is (no two iterations of the part touch
//! one element, one of them writing). When the brute force finds the loop
//! not parallel, the split legal and a part parallel, weft must propose it:
//! the rows are exact affine subscripts, within the tests' reach.

use std::collections::HashMap;

use proptest::prelude::*;

/// A row: `i + d` (`Some(d)`, `d` in -1..=1) or the fixed row 0 (`None`).
type Row = Option<i64>;

#[derive(Debug, Clone)]
struct Case {
    /// Trip count of `i` (from 1 to `n`, so row `i - 1` exists).
    n: i64,
    /// Row length.
    w: i64,
    /// (written array, its row, read array, its row) per statement.
    s: [(usize, Row, usize, Row); 2],
}

fn row() -> impl Strategy<Value = Row> {
    prop_oneof![
        3 => (-1i64..=1).prop_map(Some),
        1 => Just(None),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        4i64..=7,
        3i64..=5,
        (0usize..3, row(), 0usize..3, row()),
        (0usize..3, row(), 0usize..3, row()),
    )
        .prop_map(|(n, w, a, b)| Case { n, w, s: [a, b] })
}

const NAMES: [&str; 3] = ["A", "B", "C"];

impl Case {
    fn row_c(r: Row) -> String {
        match r {
            Some(0) => "i".into(),
            Some(d) if d > 0 => format!("(i + {d})"),
            Some(d) => format!("(i - {})", -d),
            None => "0".into(),
        }
    }

    fn to_c(&self) -> String {
        let w = self.w;
        let mut c =
            String::from("void k(double *restrict A, double *restrict B, double *restrict C) {\n");
        c += &format!("  for (long i = 1; i < {}; i++) {{\n", self.n);
        for (k, (x, rx, y, ry)) in self.s.iter().enumerate() {
            let op = if k == 0 { "+ 1.0" } else { "* 0.5" };
            c += &format!(
                "    for (long j = 0; j < {w}; j++) {}[{} * {w} + j] = {}[{} * {w} + j] {op};\n",
                NAMES[*x],
                Self::row_c(*rx),
                NAMES[*y],
                Self::row_c(*ry)
            );
        }
        c += "  }\n}\n";
        c
    }

    /// Accesses `(array, element, write)` of statement `k` in iteration `i`.
    fn trace(&self, k: usize, i: i64) -> Vec<(usize, i64, bool)> {
        let (x, rx, y, ry) = self.s[k];
        let at = |r: Row| r.map(|d| i + d).unwrap_or(0);
        (0..self.w)
            .flat_map(|j| {
                [
                    (y, at(ry) * self.w + j, false),
                    (x, at(rx) * self.w + j, true),
                ]
            })
            .collect()
    }

    /// Whether an access of `a`'s iterations conflicts with one of `b`'s,
    /// for the iteration pairs `pair` accepts.
    fn conflict(&self, a: usize, b: usize, pair: &dyn Fn(i64, i64) -> bool) -> bool {
        let mut at: HashMap<(usize, i64), Vec<(i64, bool)>> = HashMap::new();
        for i in 1..self.n {
            for (o, e, wr) in self.trace(b, i) {
                at.entry((o, e)).or_default().push((i, wr));
            }
        }
        (1..self.n).any(|i| {
            self.trace(a, i).into_iter().any(|(o, e, wr)| {
                at.get(&(o, e))
                    .is_some_and(|v| v.iter().any(|&(i2, w2)| pair(i, i2) && (wr || w2)))
            })
        })
    }

    fn legal(&self) -> bool {
        !self.conflict(1, 0, &|i2, i1| i2 < i1)
    }

    fn part_parallel(&self, k: usize) -> bool {
        !self.conflict(k, k, &|a, b| a != b)
    }

    fn loop_parallel(&self) -> bool {
        (0..2).all(|a| (0..2).all(|b| !self.conflict(a, b, &|x, y| x != y)))
    }
}

fn cases() -> u32 {
    std::env::var("WEFT_PROP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(24)
        * 2
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), .. ProptestConfig::default() })]
    #[test]
    fn random_distributions(c in case()) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.c");
        let src = c.to_c();
        std::fs::write(&p, &src).unwrap();
        let ctx = inkwell::context::Context::create();
        let m = weft_frontend::load_module(&ctx, &p, &Default::default()).unwrap();
        let a = weft_frontend::ModuleAnalysis::new(&m);
        let f = a.function("k").unwrap();
        prop_assert_eq!(f.forest.roots.len(), 1, "one nest expected:\n{}", src);
        let l = f.forest.roots[0];
        let weft_parallel = f.deps[l.index()].parallel;
        if weft_parallel {
            prop_assert!(c.loop_parallel(), "loop i reported parallel:\n{}", src);
        }
        match weft_frontend::distribution::split(f, l) {
            Ok(s) => {
                prop_assert!(c.legal(), "split proposed but illegal:\n{}", src);
                for k in 0..2 {
                    if s.parallel[k] {
                        prop_assert!(c.part_parallel(k), "part {} called parallel:\n{}", k, src);
                    }
                }
            }
            Err(why) => {
                let useful = !c.loop_parallel() && (c.part_parallel(0) || c.part_parallel(1));
                prop_assert!(
                    weft_parallel || !(c.legal() && useful),
                    "legal and useful split not found ({}):\n{}",
                    why,
                    src
                );
            }
        }
    }
}

/// The split of the `i` loop of C source `src`'s function `k`.
fn split_of(src: &str) -> Result<[bool; 2], String> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("k.c");
    std::fs::write(&p, src).unwrap();
    let ctx = inkwell::context::Context::create();
    let m = weft_frontend::load_module(&ctx, &p, &Default::default()).unwrap();
    let a = weft_frontend::ModuleAnalysis::new(&m);
    let f = a.function("k").unwrap();
    weft_frontend::distribution::split(f, f.forest.roots[0]).map(|s| s.parallel)
}

#[test]
fn split_verdicts_by_hand() {
    // A recurrence over rows of A, then a parallel use of the row just made.
    let fwd = Case {
        n: 6,
        w: 4,
        s: [(0, Some(0), 0, Some(-1)), (1, Some(0), 0, Some(0))],
    };
    assert_eq!(split_of(&fwd.to_c()), Ok([false, true]));
    // A parallel row copy, then a recurrence (atax's shape).
    let back = Case {
        n: 6,
        w: 4,
        s: [(1, Some(0), 2, Some(0)), (0, None, 1, Some(0))],
    };
    assert_eq!(split_of(&back.to_c()), Ok([true, false]));
    // The first statement reads the row the second wrote one iteration
    // earlier: a backward dependence, no split.
    let bad = Case {
        n: 6,
        w: 4,
        s: [(1, Some(0), 0, Some(-1)), (0, Some(0), 0, Some(-1))],
    };
    assert!(!bad.legal());
    let e = split_of(&bad.to_c()).unwrap_err();
    assert!(e.contains("dependence between the parts"), "{e}");
}
