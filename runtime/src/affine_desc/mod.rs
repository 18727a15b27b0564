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

mod acc;
mod independence;
#[cfg(test)]
mod tests;

use acc::Acc;
use independence::intervals_conflict;

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
