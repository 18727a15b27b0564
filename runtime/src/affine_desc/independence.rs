//! Interval-arithmetic proof that the iteration blocks of a described nest
//! are independent ([`AffineDesc::ibs_independent`]), and the line-interval
//! conflict test of the walk's independence check (module docs of
//! [`crate::affine_desc`]).

use super::*;

impl AffineDesc {
    /// Whether the IBs `[lo + i·ib, lo + (i+1)·ib) ∩ [lo, hi)` are proven
    /// independent by interval arithmetic alone: per IB and reference, the
    /// byte range the reference can touch (each IV bounded by the ranges of
    /// its loop's start and trip count over the ranges of the enclosing IVs,
    /// so a hull), and no IB's written range meets a range of another IB (a
    /// `P`-independent reference is seen by every IB). Cost O(IBs · refs ·
    /// depth), independent of the trip counts, against the line walk of
    /// [`AffineDesc::block_vectors`] with `check`. `false` means "not
    /// proven" (the hulls are conservative), never "dependent".
    pub fn ibs_independent(&self, lo: i64, hi: i64, ib: i64) -> bool {
        if ib <= 0 || lo >= hi {
            return ib > 0 && lo <= hi;
        }
        let n = ((hi as i128 - lo as i128) + ib as i128 - 1) / ib as i128;
        if n > HULL_MAX_IBS as i128 {
            return false;
        }
        let n = n as i64;
        let mut ivs: Vec<Interval> = Vec::with_capacity(n as usize * self.refs.len());
        let mut rg: IvRanges = [(0, 0); MAX_DEPTH + 1];
        let whole = self.p_range(lo, hi);
        for r in self.refs.iter().filter(|r| !r.dep[0]) {
            match self.hull(r, whole, &mut rg) {
                Hull::Empty => {}
                Hull::Bytes(a, b) => {
                    if r.write && n > 1 {
                        return false;
                    }
                    ivs.push((a, b, u32::MAX, r.write));
                }
                Hull::Unknown => return false,
            }
        }
        for i in 0..n {
            let a = lo + i * ib;
            let b = (a + ib).min(hi);
            let pr = self.p_range(a, b);
            for r in self.refs.iter().filter(|r| r.dep[0]) {
                match self.hull(r, pr, &mut rg) {
                    Hull::Empty => {}
                    Hull::Bytes(x, y) => ivs.push((x, y, i as u32, r.write)),
                    Hull::Unknown => return false,
                }
            }
        }
        !intervals_conflict(&mut ivs) || self.ibs_independent_2d(lo, n, ib, hi)
    }

    /// The second attempt of [`AffineDesc::ibs_independent`], for nests
    /// whose IBs own columns rather than rows (`a[i][j]` with `P` over `j`),
    /// where the one-dimensional hulls of all IBs span the same rows. The
    /// references of one array (same `base`) are delinearised: for a row
    /// length `R` (a candidate from their coefficients), every access's
    /// offset is `R·row + col` with `col` in `[0, R)` provided the part of
    /// the offset made of coefficients that are not multiples of `R` (plus
    /// the access size) stays within one row; then two accesses share a byte
    /// only if both their rows and their columns meet. The array is free of
    /// cross-IB conflicts when the per-IB column intervals, or the per-IB row
    /// intervals, do not conflict. Arrays must not overlap each other where
    /// one of them is written (whole-nest hulls).
    fn ibs_independent_2d(&self, lo: i64, n: i64, ib: i64, hi: i64) -> bool {
        let mut bases: Vec<i64> = self.refs.iter().map(|r| r.base).collect();
        bases.sort_unstable();
        bases.dedup();
        let whole = self.p_range(lo, hi);
        let mut rg: IvRanges = [(0, 0); MAX_DEPTH + 1];
        // Whole-nest hull and written flag of every array.
        let mut arrays: Vec<(u64, u64, bool)> = Vec::with_capacity(bases.len());
        for &b in &bases {
            let (mut a0, mut a1, mut w) = (u64::MAX, 0u64, false);
            for r in self.refs.iter().filter(|r| r.base == b) {
                match self.hull(r, whole, &mut rg) {
                    Hull::Empty => {}
                    Hull::Bytes(x, y) => {
                        a0 = a0.min(x);
                        a1 = a1.max(y);
                        w |= r.write;
                    }
                    Hull::Unknown => return false,
                }
            }
            arrays.push((a0, a1, w));
        }
        for (i, x) in arrays.iter().enumerate() {
            for y in &arrays[i + 1..] {
                if (x.2 || y.2) && x.0 <= y.1 && y.0 <= x.1 {
                    return false;
                }
            }
        }
        for (&b, arr) in bases.iter().zip(&arrays) {
            if !arr.2 {
                continue;
            }
            let refs: Vec<&Ref> = self.refs.iter().filter(|r| r.base == b).collect();
            let mut cands: Vec<i64> = refs
                .iter()
                .flat_map(|r| {
                    r.off
                        .iter()
                        .map(|c| c.unsigned_abs().min(i64::MAX as u64) as i64)
                })
                .filter(|&c| c > 1)
                .collect();
            cands.sort_unstable();
            cands.dedup();
            if !cands
                .iter()
                .any(|&row| self.columns_or_rows_own(&refs, row, lo, n, ib, hi))
            {
                return false;
            }
        }
        true
    }

    /// For [`AffineDesc::ibs_independent_2d`]: whether the references `refs`
    /// of one array delinearise with row length `row`, and then no IB writes
    /// a (row, column) another IB touches, judged on columns alone or on rows
    /// alone.
    fn columns_or_rows_own(
        &self,
        refs: &[&Ref],
        row: i64,
        lo: i64,
        n: i64,
        ib: i64,
        hi: i64,
    ) -> bool {
        let rw = row as i128;
        // Per reference, once: the row and column parts of its constant
        // offset, and each coefficient's factor and whether it moves the row
        // (a multiple of `row`) or the column.
        type Split = ((i128, i128), Vec<(bool, i128)>);
        let split: Vec<Split> = refs
            .iter()
            .map(|r| {
                let c = r.off_c as i128;
                let co = r
                    .off
                    .iter()
                    .map(|&k| {
                        let k = k as i128;
                        match k % rw == 0 {
                            true => (true, k / rw),
                            false => (false, k),
                        }
                    })
                    .collect();
                ((c.div_euclid(rw), c.rem_euclid(rw)), co)
            })
            .collect();
        let (mut rows, mut cols): (Vec<Interval>, Vec<Interval>) = (Vec::new(), Vec::new());
        let mut rg: IvRanges = [(0, 0); MAX_DEPTH + 1];
        for i in -1..n {
            // i = -1: the P-independent references, seen by every IB.
            let (pr, unit) = match i {
                -1 => (self.p_range(lo, hi), u32::MAX),
                _ => {
                    let a = lo + i * ib;
                    (self.p_range(a, (a + ib).min(hi)), i as u32)
                }
            };
            for (r, ((q, m), co)) in refs.iter().zip(&split) {
                if r.dep[0] != (i >= 0) {
                    continue;
                }
                match self.iv_ranges(r, pr, &mut rg) {
                    Ok(true) => {}
                    Ok(false) => continue,
                    Err(()) => return false,
                }
                let ((mut r0, mut r1), (mut c0, mut c1)) = ((*q, *q), (*m, *m));
                for (&(major, f), &(a, b)) in co.iter().zip(&rg) {
                    let (x, y) = ((f * a).min(f * b), (f * a).max(f * b));
                    if major {
                        (r0, r1) = (r0 + x, r1 + y);
                    } else {
                        (c0, c1) = (c0 + x, c1 + y);
                    }
                }
                c1 += r.size as i128 - 1;
                if c0 < 0 || c1 >= rw {
                    return false;
                }
                let sh = |v: i128| (v + (1i128 << 62)) as u64;
                rows.push((sh(r0), sh(r1), unit, r.write));
                cols.push((c0 as u64, c1 as u64, unit, r.write));
                if i == -1 && r.write && n > 1 {
                    return false;
                }
            }
        }
        !intervals_conflict(&mut cols) || !intervals_conflict(&mut rows)
    }

    /// Writes the IV ranges of `r`'s chain with `P`'s IV in `p` to
    /// `rg[..chain.len()]`: `Ok(false)` when it makes no access, `Err(())`
    /// beyond the arithmetic's range. (A buffer of the caller's, reused:
    /// these are computed per IB and reference.)
    #[allow(clippy::result_unit_err)]
    fn iv_ranges(
        &self,
        r: &Ref,
        p: (i128, i128),
        rg: &mut IvRanges,
    ) -> std::result::Result<bool, ()> {
        rg[0] = p;
        for (lev, &l) in r.chain.iter().enumerate().skip(1) {
            let lp = &self.loops[l];
            let (s0, s1) = lin_range(lp.start_c, &lp.start, &rg[..lev]);
            let (_, t1) = lin_range(lp.trip_c, &lp.trip, &rg[..lev]);
            if t1 <= 0 {
                return Ok(false);
            }
            let tmax = match lp.trip_div {
                1 => t1,
                d => (t1 + d as i128 - 1) / d as i128,
            };
            if tmax > MAX_TRIP as i128 || s0.abs().max(s1.abs()) > 1i128 << 80 {
                return Err(());
            }
            let span = lp.step as i128 * (tmax - 1);
            rg[lev] = (s0 + span.min(0), s1 + span.max(0));
        }
        Ok(true)
    }

    /// Range of `P`'s IV over the normalised iterations `[a, b)` (non-empty).
    fn p_range(&self, a: i64, b: i64) -> (i128, i128) {
        let x = self.p_start as i128 + self.p_step as i128 * a as i128;
        let y = self.p_start as i128 + self.p_step as i128 * (b as i128 - 1);
        (x.min(y), x.max(y))
    }

    /// The bytes reference `r` can touch while `P`'s IV stays in `p`.
    fn hull(&self, r: &Ref, p: (i128, i128), rg: &mut IvRanges) -> Hull {
        match self.iv_ranges(r, p, rg) {
            Ok(true) => {}
            Ok(false) => return Hull::Empty,
            Err(()) => return Hull::Unknown,
        }
        let (a, b) = lin_range(r.base.wrapping_add(r.off_c), &r.off, &rg[..r.chain.len()]);
        let b = b + r.size as i128 - 1;
        match (u64::try_from(a), u64::try_from(b)) {
            (Ok(a), Ok(b)) => Hull::Bytes(a, b),
            _ => Hull::Unknown,
        }
    }
}

/// Interval of `c + Σ co[j]·iv_j` with `iv_j` in `rg[j]`.
fn lin_range(c: i64, co: &[i64], rg: &[(i128, i128)]) -> (i128, i128) {
    co.iter()
        .zip(rg)
        .fold((c as i128, c as i128), |(lo, hi), (&k, &(a, b))| {
            let (x, y) = (k as i128 * a, k as i128 * b);
            (lo + x.min(y), hi + x.max(y))
        })
}

/// `(first, last, IB, written)`: an interval of one IB (`u32::MAX`: every IB).
type Interval = (u64, u64, u32, bool);

/// The IV ranges of a reference's loop chain, `P` first (only the first
/// `chain.len()` entries are used).
type IvRanges = [(i128, i128); MAX_DEPTH + 1];

/// A reference's byte range over an IB ([`AffineDesc::ibs_independent`]).
enum Hull {
    /// It makes no access.
    Empty,
    /// First and last byte.
    Bytes(u64, u64),
    /// Out of range of the arithmetic: nothing proven.
    Unknown,
}

/// Whether an interval of one IB meets a written interval of another
/// (`ib == u32::MAX`: seen by every IB, never written here).
pub(super) fn intervals_conflict(ivs: &mut [(u64, u64, u32, bool)]) -> bool {
    // Disjoint merged write segments, each owned by one IB.
    let mut w: Vec<(u64, u64, u32)> = ivs
        .iter()
        .filter(|x| x.3)
        .map(|x| (x.0, x.1, x.2))
        .collect();
    if w.is_empty() {
        return false;
    }
    w.sort_unstable();
    let mut seg: Vec<(u64, u64, u32)> = Vec::with_capacity(w.len());
    for (a, b, u) in w {
        match seg.last_mut() {
            Some(l) if a <= l.1 => {
                if l.2 != u {
                    return true;
                }
                l.1 = l.1.max(b);
            }
            _ => seg.push((a, b, u)),
        }
    }
    for &(a, b, u, _) in ivs.iter() {
        // Segments with start <= b, from the last one starting before a.
        let mut k = seg.partition_point(|s| s.0 <= a).saturating_sub(1);
        while k < seg.len() && seg[k].0 <= b {
            if seg[k].1 >= a && seg[k].2 != u {
                return true;
            }
            k += 1;
        }
    }
    false
}
