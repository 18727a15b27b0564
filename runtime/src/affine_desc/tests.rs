//! Unit tests of the descriptor walk and the independence proofs.
use super::*;
use crate::bankmap::tests::Interleaved;
use crate::bankmap::unit_maps;
use crate::deps::Access;

/// `for i in P: for j in 0..m: a[i*row + j] (8 B), b[j] (8 B), c[2*i]`
/// against the explicit per-access inspector.
#[test]
fn matches_explicit_accesses() {
    let (row, m) = (200i64, 37i64);
    let (a, b, c) = (0x10_000i64, 0x80_008i64, 0x90_000i64);
    let desc = vec![
        VERSION,
        2,
        3,
        3,
        1, // P: i = 3 + k
        0,
        0,
        0,
        1,
        m,
        0,
        1, // loop 1: j = 0.., m iterations
        1,
        a,
        8,
        1,
        0,
        8 * row,
        8, // a[i*row + j], store
        1,
        b,
        8,
        0,
        0,
        0,
        8, // b[j]
        0,
        c,
        4,
        0,
        0,
        8, // c[2*i] (4 B), directly in P
    ];
    let d = AffineDesc::parse(&desc).unwrap();
    let map = Interleaved { mem: 8, llc: 4 };
    let (lo, hi, ib) = (0, 23, 4);
    let got = d.block_vectors(&map, lo, hi, ib, true, None).unwrap();
    let mut acc = Vec::new();
    for k in lo..hi {
        let i = 3 + k;
        let unit = ((k - lo) / ib) as u32;
        acc.push(Access {
            unit,
            addr: (c + 8 * i) as u64,
            size: 4,
            write: false,
        });
        for j in 0..m {
            acc.push(Access {
                unit,
                addr: (a + 8 * (i * row + j)) as u64,
                size: 8,
                write: true,
            });
            acc.push(Access {
                unit,
                addr: (b + 8 * j) as u64,
                size: 8,
                write: false,
            });
        }
    }
    let n = got.blocks.len();
    assert_eq!(n, 6);
    let want = unit_maps(&map, n, &acc).unwrap();
    for u in 0..n {
        assert_eq!(got.blocks[u].mem, want.mem_weighted[u].counts, "ib {u}");
        assert_eq!(got.blocks[u].llc, want.llc_weighted[u].counts, "ib {u}");
        assert_eq!(got.ds_lines[u], want.ds_lines[u], "ib {u}");
    }
}

/// Triangular inner loop `for j in i..n` and a backward stride.
#[test]
fn triangular_and_backward() {
    let n = 20i64;
    let a = 0x4000i64;
    // P: i = k; loop 1: j = i .. n (start coef 1 on i, trip n - i);
    // ref a[n*i - j] (backward in j).
    let desc = vec![
        VERSION,
        2,
        1,
        0,
        1, //
        0,
        0,
        1,
        1,
        n,
        -1,
        1, //
        1,
        a,
        8,
        0,
        0,
        8 * n,
        -8,
    ];
    let d = AffineDesc::parse(&desc).unwrap();
    let map = Interleaved { mem: 4, llc: 2 };
    let got = d.block_vectors(&map, 0, n, 3, false, None).unwrap();
    let mut acc = Vec::new();
    for i in 0..n {
        for j in i..n {
            acc.push(Access {
                unit: (i / 3) as u32,
                addr: (a + 8 * (n * i - j)) as u64,
                size: 8,
                write: false,
            });
        }
    }
    let want = unit_maps(&map, got.blocks.len(), &acc).unwrap();
    for u in 0..got.blocks.len() {
        assert_eq!(got.blocks[u].mem, want.mem_weighted[u].counts, "ib {u}");
        assert_eq!(got.ds_lines[u], want.ds_lines[u], "ib {u}");
    }
}

/// A reference independent of an enclosing loop is weighted, not iterated.
#[test]
fn invariant_levels_are_weighted() {
    // for i in P (4 iters): for k in 0..1000: for j in 0..16: c[i*16 + j]
    let desc = vec![
        VERSION, 3, 1, 0, 1, //
        0, 0, 0, 1, 1000, 0, 1, //
        1, 0, 0, 0, 1, 16, 0, 0, 1, //
        2, 0, 8, 1, 0, 128, 0, 8,
    ];
    let d = AffineDesc::parse(&desc).unwrap();
    let map = Interleaved { mem: 4, llc: 2 };
    let got = d.block_vectors(&map, 0, 4, 1, true, None).unwrap();
    // 16 doubles = 2 lines per row, 8 accesses each, 1000 times.
    assert_eq!(got.line_steps, 8);
    assert_eq!(got.blocks[0].mem, vec![8000, 8000, 0, 0]);
    assert_eq!(got.blocks[1].mem, vec![0, 0, 8000, 8000]);
    assert_eq!(got.ds_lines, vec![2, 2, 2, 2]);
}

/// A deadline in the past stops the walk at its first clock reading
/// (after `DEADLINE_EVERY` runs); without one, or with one far ahead,
/// the same walk finishes.
#[test]
fn deadline_stops_the_walk() {
    // for i in P (1024 iters): for j in 0..16: c[i*16 + j], one run per i
    let desc = vec![
        VERSION, 2, 1, 0, 1, //
        0, 0, 0, 1, 16, 0, 1, //
        1, 0, 8, 0, 0, 128, 8,
    ];
    let d = AffineDesc::parse(&desc).unwrap();
    let map = Interleaved { mem: 4, llc: 2 };
    let past = Some(Instant::now());
    match d.block_vectors(&map, 0, 1024, 8, false, past) {
        Err(crate::RuntimeError::InspectBudget(why)) => {
            assert!(
                why.contains(&format!("after {DEADLINE_EVERY} runs")),
                "{why}"
            )
        }
        other => panic!(
            "expected a stopped walk, got {:?}",
            other.map(|v| v.line_steps)
        ),
    }
    let ahead = Some(Instant::now() + std::time::Duration::from_secs(3600));
    let full = d.block_vectors(&map, 0, 1024, 8, false, ahead).unwrap();
    assert_eq!(full.blocks.len(), 128);
    assert_eq!(
        full.line_steps,
        d.block_vectors(&map, 0, 1024, 8, false, None)
            .unwrap()
            .line_steps
    );
}

/// Long runs are sampled: 1000 doubles = 63 lines of 128 B... with 64 B
/// lines 125 lines, 16 mapped, weights scaled, the rest counted in D.
#[test]
fn long_runs_sampled() {
    let desc = vec![
        VERSION, 2, 1, 0, 1, //
        0, 0, 0, 1, 1000, 0, 1, //
        1, 0, 8, 0, 0, 8000, 8,
    ];
    let d = AffineDesc::parse(&desc).unwrap();
    let map = Interleaved { mem: 4, llc: 2 };
    let got = d.block_vectors(&map, 0, 1, 1, false, None).unwrap();
    assert_eq!(got.line_steps, RUN_SAMPLE as u64);
    assert_eq!(got.ds_lines, vec![125]);
    // 16 sampled lines of 8 accesses, scaled by 125/16: 62 per line,
    // four lines per bank.
    assert_eq!(got.blocks[0].mem, vec![248, 248, 248, 248]);
}

/// `for i in P: for k in 0..8: a[i*64 + k] = b[b_row/8 * i + k]` with `a`
/// at 0x1000 (rows of 512 B) and `b` at `b_base`.
fn row_copy_desc(b_base: i64, b_row: i64) -> Vec<i64> {
    vec![
        VERSION, 2, 2, 0, 1, //
        0, 0, 0, 1, 8, 0, 1, //
        1, 0x1000, 8, 1, 0, 512, 8, //
        1, b_base, 8, 0, 0, b_row, 8,
    ]
}

/// Independence: rows written by their own IB only vs a shared row.
#[test]
fn conflicts_detected_by_line_intervals() {
    let mk = row_copy_desc;
    let map = Interleaved { mem: 4, llc: 2 };
    // b elsewhere: independent.
    let d = AffineDesc::parse(&mk(0x100000, 0)).unwrap();
    assert!(!d.block_vectors(&map, 0, 8, 2, true, None).unwrap().conflict);
    // b = row 0 of a (read by every IB, written by IB 0): conflict.
    let d = AffineDesc::parse(&mk(0x1000, 0)).unwrap();
    assert!(d.block_vectors(&map, 0, 8, 2, true, None).unwrap().conflict);
    // b = the previous row of a (a[i-1][k]): IB boundaries conflict.
    let d = AffineDesc::parse(&mk(0x1000 - 512, 512)).unwrap();
    assert!(d.block_vectors(&map, 0, 8, 2, true, None).unwrap().conflict);
    // Without the check nothing is reported.
    assert!(
        !d.block_vectors(&map, 0, 8, 2, false, None)
            .unwrap()
            .conflict
    );
}

/// The analytic independence proof on the same three cases, and on a
/// left-looking Cholesky column (`a[i][j] = (a[i][j] - Σ_k<j a[i][k]·a[j][k]) / a[j][j]`
/// for `i > j`), which the line walk also finds independent.
#[test]
fn ibs_independent_by_hulls() {
    let mk = row_copy_desc;
    let ok = |w: &[i64], ib: i64| AffineDesc::parse(w).unwrap().ibs_independent(0, 8, ib);
    assert!(ok(&mk(0x100000, 0), 2));
    assert!(!ok(&mk(0x1000, 0), 2));
    assert!(!ok(&mk(0x1000 - 512, 512), 2));
    // One IB holds everything: nothing to conflict with.
    assert!(ok(&mk(0x1000 - 512, 512), 8));
    // Cholesky, n = 16 (rows of 128 B at 0x10000), column j = 5: P = i from
    // p_start, inner loop k < 5.
    let chol = |p_start: i64, row_off: i64| {
        let a = 0x10000;
        vec![
            VERSION,
            2,
            5,
            p_start,
            1, //
            0,
            0,
            0,
            1,
            5,
            0,
            1, // loop k: start 0, step 1, trip 5
            1,
            a,
            8,
            0,
            0,
            128,
            8, // a[i][k]
            1,
            a,
            8,
            0,
            5 * 128,
            0,
            8, // a[j][k]
            0,
            a,
            8,
            1,
            5 * 8,
            128, // a[i][j] written
            0,
            a,
            8,
            0,
            row_off + 5 * 8,
            128, // a[i][j] (or a[i+1][j]) read
            0,
            a,
            8,
            0,
            5 * 128 + 5 * 8,
            0, // a[j][j]
        ]
    };
    let map = Interleaved { mem: 4, llc: 2 };
    for ib in [1, 3, 10] {
        let d = AffineDesc::parse(&chol(6, 0)).unwrap();
        assert!(d.ibs_independent(0, 10, ib), "ib {ib}");
        assert!(
            !d.block_vectors(&map, 0, 10, ib, true, None)
                .unwrap()
                .conflict
        );
    }
    // Reading the next row's a[i+1][j], which the next IB writes.
    assert!(!AffineDesc::parse(&chol(6, 128))
        .unwrap()
        .ibs_independent(0, 10, 3));
    // Starting at row j itself: IB 0 writes a[j][j], which every IB reads.
    assert!(!AffineDesc::parse(&chol(5, 0))
        .unwrap()
        .ibs_independent(0, 11, 3));
    // An empty inner loop: only the P-level references remain.
    let mut w = chol(6, 0);
    w[9] = 0;
    assert!(AffineDesc::parse(&w).unwrap().ibs_independent(0, 10, 2));
}

/// Column-parallel nests (LU's block-row update, `P` over columns `j`):
/// every IB's hull spans the same rows, so only the delinearised check
/// proves them independent.
#[test]
fn column_parallel_ibs_independent() {
    // for j in P (from 32): for k in 16..32: for i in k+1..32:
    //   a[i][j] -= a[i][k] * a[k][j]   (n = 100 doubles per row, base 0x10010)
    let (a, n) = (0x10010i64, 100i64);
    let lu_row = |j0: i64| {
        vec![
            VERSION,
            3,
            3,
            j0,
            1, //
            0,
            16,
            0,
            1,
            16,
            0,
            1, // loop 1: k = 16..32
            1,
            1,
            0,
            1,
            1,
            31,
            0,
            -1,
            1, // loop 2: i = k + 1.., 31 - k iterations
            2,
            a,
            8,
            1,
            0,
            8,
            0,
            8 * n, // a[i][j] written
            2,
            a,
            8,
            0,
            0,
            0,
            8,
            8 * n, // a[i][k]
            2,
            a,
            8,
            0,
            0,
            8,
            8 * n,
            0, // a[k][j]
        ]
    };
    let d = AffineDesc::parse(&lu_row(32)).unwrap();
    let map = Interleaved { mem: 4, llc: 2 };
    assert!(
        d.block_vectors(&map, 0, 68, 4, true, None)
            .unwrap()
            .conflict,
        "lines are shared"
    );
    for ib in [1, 4, 16] {
        assert!(d.ibs_independent(0, 68, ib), "ib {ib}");
    }
    // Written columns from 24: a[i][k] of one IB (k < 32) is a[i][j] of another.
    assert!(!AffineDesc::parse(&lu_row(24))
        .unwrap()
        .ibs_independent(0, 76, 4));
}

/// Soundness of [`AffineDesc::ibs_independent`] on random two-level nests
/// (triangular bounds, negative steps and coefficients, overlapping
/// arrays): whenever it proves the IBs independent, no byte written in
/// one IB is touched by another, by explicit enumeration.
#[test]
fn ibs_independent_is_sound() {
    let mut next = crate::testutil::xorshift(0x9E37_79B9_7F4A_7C15);
    let mut rnd = |m: i64| (next() % m as u64) as i64;
    let (mut proven, mut refuted) = (0, 0);
    for _ in 0..3000 {
        let (p_start, p_step) = (rnd(6), [1, 2, -1][rnd(3) as usize]);
        let (start_c, start_co, step) = (rnd(4), rnd(3) - 1, [1, 1, 2, -1][rnd(4) as usize]);
        let (trip_c, trip_co, div) = (rnd(6), rnd(3) - 1, 1 + rnd(2));
        let nrefs = 2 + rnd(3);
        let mut w = vec![VERSION, 2, nrefs, p_start, p_step];
        w.extend([0, start_c, start_co, step, trip_c, trip_co, div]);
        let mut refs = Vec::new();
        for _ in 0..nrefs {
            let lp = rnd(2);
            let base = 0x1000 + 64 * rnd(3);
            let size = [1, 4, 8][rnd(3) as usize];
            let write = rnd(3) == 0;
            let off_c = 8 * rnd(40) + 200;
            let mut off = vec![8 * (rnd(9) - 4)];
            if lp == 1 {
                off.push(8 * (rnd(5) - 2));
            }
            w.extend([lp, base, size, write as i64, off_c]);
            w.extend(&off);
            refs.push((lp, base + off_c, size, write, off));
        }
        let d = AffineDesc::parse(&w).unwrap();
        let (lo, hi, ib) = (0, 2 + rnd(7), 1 + rnd(3));
        let mut touched: Vec<(i64, i64, bool)> = Vec::new(); // (byte, ib, write)
        for k in lo..hi {
            let i = p_start + p_step * k;
            let u = (k - lo) / ib;
            for (lp, a0, size, write, off) in &refs {
                let mut addrs = Vec::new();
                if *lp == 0 {
                    addrs.push(a0 + off[0] * i);
                } else {
                    let num = trip_c + trip_co * i;
                    let trip = if num <= 0 { 0 } else { (num + div - 1) / div };
                    for t in 0..trip {
                        let j = start_c + start_co * i + step * t;
                        addrs.push(a0 + off[0] * i + off[1] * j);
                    }
                }
                for a in addrs {
                    for b in a..a + size {
                        touched.push((b, u, *write));
                    }
                }
            }
        }
        touched.sort_unstable();
        let racy = touched
            .chunk_by(|a, b| a.0 == b.0)
            .any(|g| g.iter().any(|a| a.2 && g.iter().any(|b| b.1 != a.1)));
        if d.ibs_independent(lo, hi, ib) {
            proven += 1;
            assert!(
                !racy,
                "proven independent but racy: {w:?} [{lo},{hi}) / {ib}"
            );
        } else if racy {
            refuted += 1;
        }
    }
    assert!(
        proven > 300 && refuted > 300,
        "proven {proven}, racy {refuted}"
    );
}

#[test]
fn rejects_malformed() {
    assert!(AffineDesc::parse(&[]).is_err());
    assert!(AffineDesc::parse(&[VERSION, 1, 0, 0, 0]).is_err());
    assert!(AffineDesc::parse(&[VERSION, 1, 1, 0, 1, 5, 0, 8, 0, 0, 8]).is_err());
    assert!(AffineDesc::parse(&[VERSION, 1, 0, 0, 1, 7]).is_err());
    assert!(AffineDesc::parse(&[VERSION, 1, 0, 0, 1]).is_ok());
}
