//! Access-function descriptors of affine nests: the iteration blocks' memory-
//! and LLC-bank vectors computed at loop entry from the access functions and
//! the actual base addresses, without running the loop body (dissertation
//! §5.5.1 `r = A·i + o`, §5.5.2 bank vectors; issue 7 "compute them once at
//! loop entry from the access functions").
//!
//! The compiler (`ib-schedule`) describes the scheduled loop `P` and the loops
//! nested in it as a flat `i64` array (`weft_run_affine_desc`):
//!
//! ```text
//! header : VERSION, nloops, nrefs, p_start, p_step
//! loop l (1..nloops), in pre-order, parent before child:
//!          parent, start_c, start_coef[d], step, trip_c, trip_coef[d], trip_div
//! ref    : loop, base, size, is_write, off_c, off_coef[d + 1]
//! ```
//!
//! Loop 0 is `P`: its IV is `p_start + p_step·k` at normalised iteration `k`
//! (the runtime's `[lo, hi)`). Loop `l ≥ 1` has `d` = its depth (number of
//! enclosing loops up to and including `P`); `*_coef[j]` multiplies the IV
//! value of its `j`-th ancestor, outermost (`P`) first. Its IV takes the values
//! `start + step·t` for `t < ceil(max(0, trip)/trip_div)`. A reference belongs
//! to its innermost enclosing loop (`loop`, depth `d`); its address is
//! `base + off_c + Σ off_coef[j]·iv_j` over that loop's ancestors and itself.
//!
//! Cost is proportional to the cache lines touched, not to the iterations:
//! - a reference's own (innermost) loop is never iterated: the arithmetic
//!   sequence of its addresses is cut into cache lines, each counted with the
//!   number of accesses falling in it (stride ≥ line: one line per access;
//!   stride 0: one line with all the accesses);
//! - an enclosing loop whose IV neither the reference's address nor any deeper
//!   loop bound of it depends on is not iterated either: its trip count
//!   multiplies the weights (e.g. `C[i][j]` under `for k` in a matrix product);
//! - a reference independent of `P`'s IV has the same vector at every
//!   iteration of `P`: it is computed once and scaled by each IB's length.
//!
//! - a run longer than [`RUN_SAMPLE`] lines is sampled: its first
//!   `RUN_SAMPLE` lines are mapped to banks and their weights scaled by
//!   `lines / RUN_SAMPLE` (the rest of a long unit-stride run cycles through
//!   the interleaved banks in the same way), and the skipped lines are added
//!   to `D` as distinct. Per-entry cost is then O(runs · RUN_SAMPLE) — e.g.
//!   one or two runs per row for a triangular factorisation — however long
//!   the rows are.
//!
//! Independence check ([`AffineDesc::block_vectors`] with `check`): for nests
//! the compiler could not prove parallel, every run is also recorded as the
//! interval of lines it spans (a hull, so conservative) with its read/write
//! kind, and the IBs are independent when no IB's written interval meets an
//! interval of another IB (a write by a `P`-independent reference, seen by
//! every IB, is a conflict when there are several IBs). On a conflict the
//! runtime reports [`crate::abi::Status::Unsupported`] and the compiled code
//! falls back to the address inspector, whose dependence DAG synchronises the
//! IBs (§5.5.4).
//!
//! Weights equal the per-access counts the address inspector produces
//! ([`crate::bankmap::unit_maps`]) when no access straddles a cache line
//! (elements aligned to their size); a straddling access is counted in the
//! line it starts in. The data-set size `D` of an IB (eq. 5.1) counts its
//! distinct lines exactly for `P`-dependent references and adds the distinct
//! lines of the `P`-independent ones without merging the two sets (it can
//! over-count where both kinds touch the same lines).

use crate::bankmap::AddressMap;
use crate::error::invalid;
use crate::mlp::BlockVectors;
use crate::Result;
use std::time::Instant;

/// First word of a descriptor.
pub const VERSION: i64 = 0x5745_4654_0001;

/// Largest supported nest depth below `P`.
pub const MAX_DEPTH: usize = 16;

/// Lines of one run mapped to banks; longer runs are sampled (module docs).
pub const RUN_SAMPLE: i64 = 16;

/// Runs (address sequences of a reference's innermost loop) one entry may
/// visit; beyond it the runtime gives up (`RuntimeError::SearchBudget`, the
/// compiled code then runs the loop sequentially) rather than spend more
/// than the loop itself would.
pub const RUN_BUDGET: u64 = 1 << 18;

/// Runs between two reads of the clock when the walk has a deadline.
pub const DEADLINE_EVERY: u64 = 256;

/// Iterations of one loop enumerated at most (guards against absurd bounds).
const MAX_TRIP: i64 = 1 << 40;

/// Most IBs [`AffineDesc::ibs_independent`] examines (it gives up beyond).
pub const HULL_MAX_IBS: i64 = 1 << 16;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Loop {
    parent: usize,
    depth: usize,
    start_c: i64,
    start: Vec<i64>,
    step: i64,
    trip_c: i64,
    trip: Vec<i64>,
    trip_div: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Ref {
    lp: usize,
    base: i64,
    size: u32,
    write: bool,
    off_c: i64,
    off: Vec<i64>,
    /// Loop chain from P (index 0) to `lp`.
    chain: Vec<usize>,
    /// `dep[j]`: the reference must iterate chain level `j` (its address or a
    /// deeper bound of its chain depends on that IV).
    dep: Vec<bool>,
}

/// A parsed descriptor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffineDesc {
    p_start: i64,
    p_step: i64,
    loops: Vec<Loop>,
    refs: Vec<Ref>,
}

/// The bank vectors of the IBs of one execution.
#[derive(Clone, Debug, PartialEq)]
pub struct DescVectors {
    /// Per-IB weighted memory/LLC bank vectors.
    pub blocks: Vec<BlockVectors>,
    /// Per-IB distinct cache lines (the `D` of eq. 5.1).
    pub ds_lines: Vec<u32>,
    /// Cache-line runs visited (the cost measure).
    pub line_steps: u64,
    /// With `check`: whether some IB writes lines another IB touches.
    pub conflict: bool,
}

impl AffineDesc {
    /// Parses and checks a descriptor.
    pub fn parse(w: &[i64]) -> Result<AffineDesc> {
        let mut pos = 0usize;
        let mut take = |n: usize, what: &str| -> Result<&[i64]> {
            let s = w.get(pos..pos + n).ok_or_else(|| {
                invalid(format!(
                    "affine descriptor truncated at word {pos} ({what})"
                ))
            })?;
            pos += n;
            Ok(s)
        };
        let h = take(5, "header")?;
        if h[0] != VERSION {
            return Err(invalid(format!(
                "affine descriptor version {:#x}, expected {VERSION:#x}",
                h[0]
            )));
        }
        let (nloops, nrefs) = (h[1], h[2]);
        if !(1..=1024).contains(&nloops) || !(0..=1 << 16).contains(&nrefs) {
            return Err(invalid(format!(
                "affine descriptor with {nloops} loops and {nrefs} references"
            )));
        }
        let (p_start, p_step) = (h[3], h[4]);
        if p_step == 0 {
            return Err(invalid("affine descriptor: P has step 0"));
        }
        let mut loops = vec![Loop {
            parent: usize::MAX,
            depth: 0,
            start_c: p_start,
            start: Vec::new(),
            step: p_step,
            trip_c: 0,
            trip: Vec::new(),
            trip_div: 1,
        }];
        for l in 1..nloops as usize {
            let parent = take(1, "loop parent")?[0];
            if parent < 0 || parent as usize >= l {
                return Err(invalid(format!(
                    "affine descriptor: loop {l} has parent {parent}"
                )));
            }
            let parent = parent as usize;
            let d = loops[parent].depth + 1;
            if d > MAX_DEPTH {
                return Err(invalid(format!(
                    "affine descriptor deeper than {MAX_DEPTH}"
                )));
            }
            let start_c = take(1, "loop start")?[0];
            let start = take(d, "loop start coefficients")?.to_vec();
            let step = take(1, "loop step")?[0];
            let trip_c = take(1, "loop trip")?[0];
            let trip = take(d, "loop trip coefficients")?.to_vec();
            let trip_div = take(1, "loop trip divisor")?[0];
            if trip_div <= 0 {
                return Err(invalid(format!(
                    "affine descriptor: loop {l} has trip divisor {trip_div}"
                )));
            }
            loops.push(Loop {
                parent,
                depth: d,
                start_c,
                start,
                step,
                trip_c,
                trip,
                trip_div,
            });
        }
        let mut refs = Vec::with_capacity(nrefs as usize);
        for r in 0..nrefs as usize {
            let f = take(5, "reference")?;
            let (lp, base, size, wr, off_c) = (f[0], f[1], f[2], f[3], f[4]);
            if lp < 0 || lp >= nloops {
                return Err(invalid(format!(
                    "affine descriptor: reference {r} in loop {lp}"
                )));
            }
            if !(1..=4096).contains(&size) {
                return Err(invalid(format!(
                    "affine descriptor: reference {r} of {size} bytes"
                )));
            }
            let lp = lp as usize;
            let d = loops[lp].depth;
            let off = take(d + 1, "reference coefficients")?.to_vec();
            let mut chain = vec![lp];
            while *chain.last().unwrap_or(&0) != 0 {
                let c = *chain.last().unwrap_or(&0);
                chain.push(loops[c].parent);
            }
            chain.reverse();
            // Level j must be iterated when the address or any deeper loop
            // bound of the chain uses IV j. The reference's own loop is cut
            // into lines instead (never iterated), P is handled per IB.
            let mut dep = vec![false; d + 1];
            for (j, dj) in dep.iter_mut().enumerate() {
                *dj = off[j] != 0
                    || chain[j + 1..].iter().any(|&m| {
                        loops[m].start.get(j).is_some_and(|&c| c != 0)
                            || loops[m].trip.get(j).is_some_and(|&c| c != 0)
                    });
            }
            refs.push(Ref {
                lp,
                base,
                size: size as u32,
                write: wr != 0,
                off_c,
                off,
                chain,
                dep,
            });
        }
        if pos != w.len() {
            return Err(invalid(format!(
                "affine descriptor has {} trailing words",
                w.len() - pos
            )));
        }
        Ok(AffineDesc {
            p_start,
            p_step,
            loops,
            refs,
        })
    }

    /// Number of references described.
    pub fn num_refs(&self) -> usize {
        self.refs.len()
    }

    /// Computes the bank vectors of the IBs `[lo + i·ib, lo + (i+1)·ib) ∩ [lo, hi)`;
    /// with `check`, also whether the IBs conflict (module docs). With a
    /// `deadline`, the walk stops with [`crate::RuntimeError::InspectBudget`]
    /// once the clock passes it (read every [`DEADLINE_EVERY`] runs).
    pub fn block_vectors(
        &self,
        map: &dyn AddressMap,
        lo: i64,
        hi: i64,
        ib: i64,
        check: bool,
        deadline: Option<Instant>,
    ) -> Result<DescVectors> {
        if ib <= 0 || lo > hi {
            return Err(invalid(format!("bad IB range [{lo}, {hi}) / {ib}")));
        }
        let n = ((hi - lo) + ib - 1) / ib;
        let nb = map.num_mem_banks();
        let nl = map.num_llc_banks();
        let line = map.line_bytes().max(1);
        let mut acc = Acc {
            map,
            line,
            nb,
            nl,
            mem: vec![0u64; nb],
            llc: vec![0u64; nl],
            lines: Vec::new(),
            extra_ds: 0,
            steps: 0,
            runs: 0,
            ivs: check.then(Vec::new),
            deadline,
        };
        // P-independent references: once, per iteration of P.
        let mut vals = [0i64; MAX_DEPTH + 1];
        vals[0] = self.p_start;
        for r in self.refs.iter().filter(|r| !r.dep[0]) {
            self.walk(r, 1, &mut vals, 1, &mut acc)?;
        }
        let inv_mem = std::mem::replace(&mut acc.mem, vec![0; nb]);
        let inv_llc = std::mem::replace(&mut acc.llc, vec![0; nl]);
        acc.lines.sort_unstable();
        acc.lines.dedup();
        let inv_ds = acc.lines.len() as u64 + std::mem::take(&mut acc.extra_ds);
        acc.lines.clear();
        // Intervals of every IB: (first line, last line, IB, write);
        // P-independent ones are seen by all IBs (IB = u32::MAX).
        let mut all_ivs: Vec<(u64, u64, u32, bool)> = Vec::new();
        let mut conflict = false;
        if let Some(v) = acc.ivs.as_mut() {
            if n > 1 && v.iter().any(|x| x.2) {
                conflict = true;
            }
            all_ivs.extend(v.drain(..).map(|(a, b, w)| (a, b, u32::MAX, w)));
        }
        let mut blocks = Vec::with_capacity(n.max(0) as usize);
        let mut ds = Vec::with_capacity(n.max(0) as usize);
        for i in 0..n {
            let a = lo + i * ib;
            let b = (a + ib).min(hi);
            for k in a..b {
                vals[0] = self.p_start.wrapping_add(self.p_step.wrapping_mul(k));
                for r in self.refs.iter().filter(|r| r.dep[0]) {
                    self.walk(r, 1, &mut vals, 1, &mut acc)?;
                }
            }
            if let Some(v) = acc.ivs.as_mut() {
                all_ivs.extend(v.drain(..).map(|(x, y, w)| (x, y, i as u32, w)));
            }
            let iters = (b - a) as u64;
            let sat = |x: u64| x.min(u32::MAX as u64) as u32;
            let mem = acc
                .mem
                .iter_mut()
                .zip(&inv_mem)
                .map(|(v, &w)| sat(std::mem::take(v) + w * iters))
                .collect();
            let llc = acc
                .llc
                .iter_mut()
                .zip(&inv_llc)
                .map(|(v, &w)| sat(std::mem::take(v) + w * iters))
                .collect();
            acc.lines.sort_unstable();
            acc.lines.dedup();
            let any_inv = iters > 0 && inv_ds > 0;
            let extra = std::mem::take(&mut acc.extra_ds);
            ds.push(sat(acc.lines.len() as u64
                + extra
                + if any_inv { inv_ds } else { 0 }));
            acc.lines.clear();
            blocks.push(BlockVectors { mem, llc });
        }
        if check && !conflict {
            conflict = intervals_conflict(&mut all_ivs);
        }
        Ok(DescVectors {
            blocks,
            ds_lines: ds,
            line_steps: acc.steps,
            conflict,
        })
    }

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

    /// Visits chain level `lev` of reference `r` with the IVs of the levels
    /// above in `vals`, every access weighted by `w`.
    fn walk(
        &self,
        r: &Ref,
        lev: usize,
        vals: &mut [i64; MAX_DEPTH + 1],
        w: u64,
        acc: &mut Acc<'_>,
    ) -> Result<()> {
        let addr_at = |vals: &[i64; MAX_DEPTH + 1], upto: usize| {
            r.off[..upto]
                .iter()
                .zip(&vals[..upto])
                .fold(r.base.wrapping_add(r.off_c), |a, (&o, &v)| {
                    a.wrapping_add(o.wrapping_mul(v))
                })
        };
        if lev == r.chain.len() {
            // The reference sits directly in P: one access.
            return acc.run(addr_at(vals, 1), 0, 1, r.size, w, r.write);
        }
        let lp = &self.loops[r.chain[lev]];
        let lin = |c: i64, co: &[i64], vals: &[i64; MAX_DEPTH + 1]| {
            co.iter()
                .enumerate()
                .fold(c, |s, (j, &x)| s.wrapping_add(x.wrapping_mul(vals[j])))
        };
        let start = lin(lp.start_c, &lp.start, vals);
        let num = lin(lp.trip_c, &lp.trip, vals);
        let trip = if num <= 0 {
            0
        } else {
            (num + lp.trip_div - 1) / lp.trip_div
        };
        if trip == 0 {
            return Ok(());
        }
        if trip > MAX_TRIP {
            return Err(invalid(format!("affine descriptor: trip count {trip}")));
        }
        if lev + 1 == r.chain.len() {
            // The reference's own loop: cut its address sequence into lines.
            vals[lev] = start;
            let a0 = addr_at(vals, lev + 1);
            let stride = r.off[lev].wrapping_mul(lp.step);
            return acc.run(a0, stride, trip, r.size, w, r.write);
        }
        if !r.dep[lev] {
            vals[lev] = start;
            return self.walk(r, lev + 1, vals, w.saturating_mul(trip as u64), acc);
        }
        for t in 0..trip {
            vals[lev] = start.wrapping_add(lp.step.wrapping_mul(t));
            self.walk(r, lev + 1, vals, w, acc)?;
        }
        Ok(())
    }
}

struct Acc<'a> {
    map: &'a dyn AddressMap,
    line: u64,
    nb: usize,
    nl: usize,
    mem: Vec<u64>,
    llc: Vec<u64>,
    lines: Vec<u64>,
    /// Lines skipped by sampling (counted as distinct in `D`).
    extra_ds: u64,
    steps: u64,
    runs: u64,
    /// With the independence check: (first line, last line, write) per run.
    ivs: Option<Vec<(u64, u64, bool)>>,
    /// Time budget of the walk (payoff control): checked every
    /// [`DEADLINE_EVERY`] runs.
    deadline: Option<Instant>,
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
fn intervals_conflict(ivs: &mut [(u64, u64, u32, bool)]) -> bool {
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

impl Acc<'_> {
    fn add_line(&mut self, l: u64, w: u64) -> Result<()> {
        let addr = l * self.line;
        let (mb, lb) = (self.map.mem_bank(addr), self.map.llc_bank(addr));
        if mb >= self.nb || lb >= self.nl {
            return Err(invalid(format!(
                "address map returned bank {mb}/{lb} beyond {}/{}",
                self.nb, self.nl
            )));
        }
        self.mem[mb] += w;
        self.llc[lb] += w;
        self.lines.push(l);
        self.steps += 1;
        Ok(())
    }

    /// Accesses `a0 + stride·t` for `t < trip`, each weighted `w`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        a0: i64,
        stride: i64,
        trip: i64,
        size: u32,
        w: u64,
        write: bool,
    ) -> Result<()> {
        let line = self.line as i64;
        self.runs += 1;
        if self.runs > RUN_BUDGET {
            return Err(crate::RuntimeError::SearchBudget(RUN_BUDGET));
        }
        if self.runs % DEADLINE_EVERY == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() > d {
                    return Err(crate::RuntimeError::InspectBudget(format!(
                        "descriptor walk stopped after {} runs ({} line steps)",
                        self.runs, self.steps
                    )));
                }
            }
        }
        if let Some(v) = self.ivs.as_mut() {
            let end = a0.wrapping_add(stride.wrapping_mul(trip - 1));
            let (x, y) = (a0.min(end) as u64, a0.max(end) as u64 + size as u64 - 1);
            v.push((x / self.line, y / self.line, write));
        }
        if stride == 0 {
            // Every access touches the same bytes: count each line once per access.
            let (f, l) = (
                a0 as u64 / self.line,
                (a0 as u64 + size as u64 - 1) / self.line,
            );
            for x in f..=l {
                self.add_line(x, w.saturating_mul(trip as u64))?;
            }
            return Ok(());
        }
        let (a0, s) = if stride < 0 {
            (a0.wrapping_add(stride.wrapping_mul(trip - 1)), -stride)
        } else {
            (a0, stride)
        };
        if s >= line {
            // One line per access; long runs sampled.
            let take = trip.min(RUN_SAMPLE);
            let scale = |x: u64| x.saturating_mul(trip as u64) / take as u64;
            for t in 0..take {
                let a = a0.wrapping_add(s.wrapping_mul(t)) as u64;
                let (f, l) = (a / self.line, (a + size as u64 - 1) / self.line);
                for x in f..=l {
                    self.add_line(x, scale(w))?;
                }
            }
            self.extra_ds += (trip - take) as u64;
            return Ok(());
        }
        // s < line: every line from the first to the last address, with the
        // number of accesses starting in it. In i64 when nothing can overflow
        // (always, for real addresses: i128 division is a library call).
        if let Some(last) = s.checked_mul(trip - 1).and_then(|d| a0.checked_add(d)) {
            if a0 >= 0 && last.checked_add(line).is_some() && w <= u32::MAX as u64 {
                let ceil_div =
                    |x: i64, y: i64| -> i64 { x.div_euclid(y) + (x.rem_euclid(y) != 0) as i64 };
                let (f, e) = (a0 / line, last / line);
                let total = e - f + 1;
                let take = total.min(RUN_SAMPLE);
                if take < total {
                    self.extra_ds += (total - take) as u64;
                }
                for x in f..f + take {
                    let t0 = ceil_div(x * line - a0, s).max(0);
                    let t1 = ceil_div((x + 1) * line - a0, s).min(trip);
                    if t1 > t0 {
                        let n = (t1 - t0) as u64;
                        let c = match take == total {
                            true => w.saturating_mul(n),
                            false => (w as u128 * n as u128 * total as u128 / take as u128)
                                .min(u64::MAX as u128) as u64,
                        };
                        self.add_line(x as u64, c)?;
                    }
                }
                return Ok(());
            }
        }
        let (a0, s) = (a0 as i128, s as i128);
        let last = a0 + s * (trip as i128 - 1);
        let l = line as i128;
        let (f, e) = (a0.div_euclid(l), last.div_euclid(l));
        let ceil_div =
            |x: i128, y: i128| -> i128 { x.div_euclid(y) + (x.rem_euclid(y) != 0) as i128 };
        let total = e - f + 1;
        let take = total.min(RUN_SAMPLE as i128);
        // Sampled: the first `take` lines, weights scaled by total / take.
        if take < total {
            self.extra_ds += (total - take) as u64;
        }
        for x in f..f + take {
            let t0 = ceil_div(x * l - a0, s).max(0);
            let t1 = ceil_div((x + 1) * l - a0, s).min(trip as i128);
            if t1 > t0 {
                let c = (w as i128 * (t1 - t0) * total / take).min(u64::MAX as i128);
                self.add_line(x as u64, c as u64)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
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
}
