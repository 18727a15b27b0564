//! Banerjee's test with triangular bounds kept (issue #35 part 5: loops Polly
//! proves parallel that the rectangular test in [`crate::deps`] does not).
//!
//! The test in [`crate::deps`] bounds every IV by the rectangular hull of its
//! range: in `for (j = i; j < n; j++) for (k = 0; k < i; k++) A[i][j] -=
//! A[i][k] * A[k][j]` (LU's update of row `i`) it lets both `j` and `k` run
//! over `[0, n)`, so column `j` written and column `k` read may meet, and the
//! `j` loop looks sequential. Here, for a pair of accesses `f` (iteration
//! `x` of the tested loop `L`) and `g` (iteration `y = x + d`, `d >= 1`):
//!
//! * IVs of loops enclosing `L` stay symbols: both accesses run in the same
//!   iteration of those loops, so their value is one unknown shared by both;
//! * the IVs of loops inside `L` are eliminated innermost first, each bound
//!   expressed in the IVs around it (`k < i`, `j >= i`): `fmin(x)`,
//!   `fmax(x)`, `gmin(y)` and `gmax(y)` are exact bounds of each access over
//!   its inner iterations, as polys in `x` (resp. `y`) and the outer symbols;
//! * `fmax(x) - gmin(x + d)` and `fmin(x) - gmax(x + d)` are bounded over
//!   `x in [lo, hi - 1]`, `d in [1, hi - lo]` (the box around `x < y`); when
//!   the first is negative or the second positive everywhere, `f(x) = g(y)`
//!   has no solution and the pair carries no dependence.
//!
//! **Symbolic row length.** `cov[i*m + j]` over a plain pointer has no array
//! type to delinearise ([`crate::delinearize`]), and C allows `j >= m` there.
//! [`symbolic_dims`] splits each offset by a symbol `m` into a row `R` and a
//! column `C` (`offset = e*m*R + C`, `e` the element size) and accepts the
//! split only when it proves `0 <= C <= e*(m - 1)` for every instance of both
//! accesses (from the loop bounds): the decomposition is then unique, so the
//! accesses meet only if their rows and their columns are equal, and one
//! dimension proved apart suffices (the symmetric `cov[i][j] = cov[j][i]`
//! stores of covariance).
//!
//! Signs of symbolic coefficients (the row length `n` of `a[i*n + j]`) come
//! from the facts `T >= 1` for the trip count `T` of `L` and of the loops
//! around it (an access runs only when they do). Bounds taken over empty
//! inner ranges only enlarge the set of instances considered, so the test
//! stays sound; it is used when the rectangular test fails, on the
//! linearised offsets and on delinearised subscripts alike.

use crate::access::Access;
use crate::deps::{is_negative, is_positive, sign};
use crate::expr::{Poly, Sym, SymId};
use crate::iv::LoopIvs;
use crate::loops::{LoopForest, LoopId};
use crate::symbols::SymbolTable;

/// The distance `d` between the two iterations, as a symbol no table uses.
const DIST: Sym = Sym::Param(SymId(u32::MAX));

/// Largest loop nesting the elimination follows.
const MAX_STEPS: usize = 32;

/// Whether `a` (offset `fa`) in iteration `x` of `l` and `b` (offset `fb`)
/// in a later iteration `y` never touch the same location.
pub fn independent(
    forest: &LoopForest,
    syms: &SymbolTable<'_>,
    ivs: &[LoopIvs<'_>],
    l: LoopId,
    a: &Access<'_>,
    fa: &Poly,
    b: &Access<'_>,
    fb: &Poly,
) -> bool {
    // Both inside `l`, each offset over the IVs of the access's own loops.
    let nested = |x: &Access<'_>, p: &Poly| {
        x.loop_id.is_some_and(|m| {
            let nest = forest.ancestors(m);
            forest.encloses(l, m) && p.ivs().iter().all(|v| nest.contains(v))
        })
    };
    if !nested(a, fa) || !nested(b, fb) {
        return false;
    }
    // No value that changes between iterations of `l` other than IVs.
    let invariant = |p: &Poly| {
        p.symbols().into_iter().all(|s| match s {
            Sym::Param(id) => syms.get(id).def_loop.is_none_or(|d| !forest.encloses(l, d)),
            Sym::Iv(_) => true,
        })
    };
    if !invariant(fa) || !invariant(fb) {
        return false;
    }
    let Some((lo, hi)) = ivs[l.index()].range.clone() else {
        return false;
    };
    let facts = facts(forest, ivs, l);
    let bounds = |p: &Poly| -> Option<(Poly, Poly)> {
        Some((
            eliminate_inner(forest, ivs, l, p, false, &facts)?,
            eliminate_inner(forest, ivs, l, p, true, &facts)?,
        ))
    };
    let (Some((fmin, fmax)), Some((gmin, gmax))) = (bounds(fa), bounds(fb)) else {
        return false;
    };
    // y = x + d.
    let Some(y) = Poly::sym(Sym::Iv(l)).add(&Poly::sym(DIST)).ok() else {
        return false;
    };
    let shift = |p: &Poly| p.substitute(Sym::Iv(l), &y).ok();
    let (Some(gmin), Some(gmax)) = (shift(&gmin), shift(&gmax)) else {
        return false;
    };
    let (Ok(hi1), Ok(width)) = (hi.sub(&Poly::constant(1)), hi.sub(&lo)) else {
        return false;
    };
    let over_box = |p: &Poly, max: bool| -> Option<Poly> {
        let p = pick(p, DIST, &Poly::constant(1), &width, max, &facts)?;
        pick(&p, Sym::Iv(l), &lo, &hi1, max, &facts)
    };
    let below = fmax
        .sub(&gmin)
        .ok()
        .and_then(|h| over_box(&h, true))
        .is_some_and(|h| is_negative(&h, &facts));
    below
        || fmin
            .sub(&gmax)
            .ok()
            .and_then(|h| over_box(&h, false))
            .is_some_and(|h| is_positive(&h, &facts))
}

/// The (row, column) subscript pairs of `fa` and `fb` split by the symbol
/// `m` (see the module docs), when the split is proven unique.
pub fn symbolic_dims(
    forest: &LoopForest,
    ivs: &[LoopIvs<'_>],
    l: LoopId,
    (a, fa): (&Access<'_>, &Poly),
    (b, fb): (&Access<'_>, &Poly),
    m: Sym,
) -> Option<[(Poly, Poly); 2]> {
    let e = a.size as i64;
    if e <= 0 || b.size != a.size || !matches!(m, Sym::Param(_)) {
        return None;
    }
    let facts = facts(forest, ivs, l);
    // The column's bounds over every instance: all IVs eliminated.
    let column_fits = |x: &Access<'_>, c: &Poly| -> Option<()> {
        c.div_exact(e)?;
        let outer = forest.ancestors(x.loop_id?).last().copied()?;
        let lo = eliminate(forest, ivs, c, false, &facts, &|v| {
            forest.encloses(outer, v)
        })?;
        let hi = eliminate(forest, ivs, c, true, &facts, &|v| forest.encloses(outer, v))?;
        let room = Poly::sym(m)
            .scale(e)
            .ok()?
            .sub(&Poly::constant(e))
            .ok()?
            .sub(&hi)
            .ok()?;
        let nonneg = |p: &Poly| {
            p.add(&Poly::constant(1))
                .is_ok_and(|q| is_positive(&q, &facts))
        };
        (nonneg(&lo) && nonneg(&room)).then_some(())
    };
    let split = |x: &Access<'_>, f: &Poly| -> Option<(Poly, Poly)> {
        let (k, c) = f.split_sym(m);
        if k.is_zero() || c.mentions(m) {
            return None;
        }
        let r = k.div_exact(e)?;
        column_fits(x, &c)?;
        Some((r, c))
    };
    let (ra, ca) = split(a, fa)?;
    let (rb, cb) = split(b, fb)?;
    Some([(ra, rb), (ca, cb)])
}

/// Whether every delinearised subscript of `x` but the first is of the usual
/// form the C-semantics assumption covers (unit coefficients, a small
/// constant) or provably stays in its dimension (`0 <= s_k < strides[k-1] /
/// strides[k]`) for every instance: the recovered subscripts are then the
/// decomposition the per-dimension tests need (clang folds `a[i][i]` into
/// one `68*i`, which would otherwise be taken for column `17*i`).
pub fn subscripts_fit(
    forest: &LoopForest,
    ivs: &[LoopIvs<'_>],
    l: LoopId,
    x: &Access<'_>,
    subs: &[Poly],
    strides: &[i64],
) -> bool {
    let facts = facts(forest, ivs, l);
    let Some(outer) = x.loop_id.and_then(|m| forest.ancestors(m).last().copied()) else {
        return false;
    };
    let all = |v: LoopId| forest.encloses(outer, v);
    subs.iter().enumerate().skip(1).all(|(k, p)| {
        let n = strides[k - 1] / strides[k].max(1);
        // The usual forms the C-semantics assumption covers
        // (`crate::delinearize`): unit coefficients, a constant offset
        // smaller than the dimension.
        let usual = p.terms().all(|(m, c)| {
            if m.is_empty() {
                c.abs() < n
            } else {
                c.abs() == 1
            }
        });
        if usual {
            return true;
        }
        let (Some(lo), Some(hi)) = (
            eliminate(forest, ivs, p, false, &facts, &all),
            eliminate(forest, ivs, p, true, &facts, &all),
        ) else {
            return false;
        };
        let nonneg = |q: &Poly| {
            q.add(&Poly::constant(1))
                .is_ok_and(|r| is_positive(&r, &facts))
        };
        nonneg(&lo) && Poly::constant(n - 1).sub(&hi).is_ok_and(|r| nonneg(&r))
    })
}

/// Trip counts of `l` and the loops around it: each is `>= 1` wherever an
/// access inside `l` runs.
fn facts(forest: &LoopForest, ivs: &[LoopIvs<'_>], l: LoopId) -> Vec<Poly> {
    forest
        .ancestors(l)
        .into_iter()
        .filter_map(|m| ivs[m.index()].trip_count.as_ref()?.as_poly().cloned())
        .collect()
}

/// Min (or max) of `p` over the IVs of loops strictly inside `l`, innermost
/// first; IVs of `l` and of the loops around it stay.
fn eliminate_inner(
    forest: &LoopForest,
    ivs: &[LoopIvs<'_>],
    l: LoopId,
    p: &Poly,
    max: bool,
    facts: &[Poly],
) -> Option<Poly> {
    eliminate(forest, ivs, p, max, facts, &|m| {
        m != l && forest.encloses(l, m)
    })
}

/// Min (or max) of `p` over the IVs of the loops `which` selects, innermost first.
fn eliminate(
    forest: &LoopForest,
    ivs: &[LoopIvs<'_>],
    p: &Poly,
    max: bool,
    facts: &[Poly],
    which: &dyn Fn(LoopId) -> bool,
) -> Option<Poly> {
    let mut p = p.clone();
    for _ in 0..MAX_STEPS {
        let inner = p
            .ivs()
            .into_iter()
            .filter(|m| which(*m))
            .max_by_key(|m| forest.ancestors(*m).len());
        let Some(m) = inner else {
            return Some(p);
        };
        let (lo, hi) = ivs[m.index()].range.clone()?;
        p = pick(&p, Sym::Iv(m), &lo, &hi, max, facts)?;
    }
    None
}

/// `p` with `v` replaced by `lo` or `hi`, whichever makes it the max (or
/// min), by the sign of `v`'s coefficient; `None` when that sign is unknown
/// or `p` is not linear in `v`.
fn pick(p: &Poly, v: Sym, lo: &Poly, hi: &Poly, max: bool, facts: &[Poly]) -> Option<Poly> {
    let (c, rest) = p.split_sym(v);
    if c.mentions(v)
        || c.symbols()
            .iter()
            .any(|s| matches!(s, Sym::Iv(_)) || *s == DIST)
    {
        return None;
    }
    let s = sign(&c, facts)?;
    if s == 0 {
        return Some(rest);
    }
    let at = if (s > 0) == max { hi } else { lo };
    rest.add(&c.mul(at).ok()?).ok()
}
