//! Exact reference for slab selection (the dissertation's ILP remark, §4.4.6):
//! maximise the total number of banks covered, summed over all slots, over every
//! way of ordering each core's slabs (each core keeps its own slabs and runs one
//! per slot without idling; a core with fewer slabs finishes early).
//!
//! [`optimal_schedule`] is a depth-first branch-and-bound seeded with the greedy
//! Algorithm 4 value. Bound: the current slot can reach at most
//! `min(Q, covered + Σ largest remaining slab of each unvisited core)`, each future
//! slot at most `min(Q, Σ largest remaining slab of each core still active)`, and
//! all of it together at most the sum of the remaining slab sizes. When every core
//! has the same number of slabs, slot order is irrelevant to the objective, so core
//! 0's slabs are forced into ascending order (removes the M! symmetric copies).
//! [`brute_force`] enumerates every permutation and exists to test the solver.

use crate::bankset::{self, BankSet};
use crate::blp::{original_order, schedule_blp, BlpOptions, SlabInstance, SlotSchedule, TieBreak};
use crate::error::invalid;
use crate::{Result, RuntimeError};

/// Default node budget of the branch-and-bound.
pub const DEFAULT_BUDGET: u64 = 200_000_000;

struct Bb<'a> {
    p: usize,
    q: usize,
    w: usize,
    counts: Vec<usize>,
    maps: Vec<Vec<&'a [u64]>>,
    sizes: Vec<Vec<usize>>,
    t_max: usize,
    symmetric: bool,
    remaining: Vec<u64>,
    cur: Vec<Vec<usize>>, // cur[c][t]
    best_val: usize,
    best: Vec<Vec<usize>>,
    nodes: u64,
    budget: u64,
}

impl Bb<'_> {
    fn max_rem(&self, c: usize) -> usize {
        let mut m = 0;
        let mut r = self.remaining[c];
        while r != 0 {
            let k = r.trailing_zeros() as usize;
            m = m.max(self.sizes[c][k]);
            r &= r - 1;
        }
        m
    }

    fn bound(&self, t: usize, j: usize, covered: usize, acc: usize) -> usize {
        let mut cur = covered;
        for c in j..self.p {
            if t < self.counts[c] {
                cur += self.max_rem(c);
            }
        }
        let cur_b = cur.min(self.q);
        let mut fut = 0;
        for t2 in t + 1..self.t_max {
            let s: usize = (0..self.p)
                .filter(|&c| t2 < self.counts[c])
                .map(|c| self.max_rem(c))
                .sum();
            fut += s.min(self.q);
        }
        let total_rem: usize = (0..self.p)
            .map(|c| {
                let mut r = self.remaining[c];
                let mut s = 0;
                while r != 0 {
                    s += self.sizes[c][r.trailing_zeros() as usize];
                    r &= r - 1;
                }
                s
            })
            .sum();
        acc + (cur_b + fut).min(covered + total_rem)
    }

    fn dfs(&mut self, t: usize, j: usize, cov: &[u64], acc: usize) -> Result<()> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(RuntimeError::SearchBudget(self.budget));
        }
        if t == self.t_max {
            if acc > self.best_val {
                self.best_val = acc;
                self.best = self.cur.clone();
            }
            return Ok(());
        }
        if j == self.p {
            let c = bankset::count(cov);
            let zero = vec![0u64; self.w];
            return self.dfs(t + 1, 0, &zero, acc + c);
        }
        if t >= self.counts[j] {
            return self.dfs(t, j + 1, cov, acc);
        }
        let covered = bankset::count(cov);
        if self.bound(t, j, covered, acc) <= self.best_val {
            return Ok(());
        }
        // children by gain, descending
        let mut kids: Vec<(usize, usize)> = Vec::new();
        let mut r = self.remaining[j];
        while r != 0 {
            let k = r.trailing_zeros() as usize;
            r &= r - 1;
            if self.symmetric && j == 0 && t > 0 && k < self.cur[0][t - 1] {
                continue;
            }
            kids.push((bankset::count_new(self.maps[j][k], cov), k));
        }
        kids.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut next = vec![0u64; self.w];
        for (_, k) in kids {
            next.copy_from_slice(cov);
            bankset::or_into(&mut next, self.maps[j][k]);
            self.remaining[j] &= !(1u64 << k);
            self.cur[j].push(k);
            let res = self.dfs(t, j + 1, &next, acc);
            self.cur[j].pop();
            self.remaining[j] |= 1u64 << k;
            res?;
        }
        Ok(())
    }
}

fn to_schedule(inst: &SlabInstance, order: &[Vec<usize>]) -> SlotSchedule {
    let t_max = order.iter().map(|o| o.len()).max().unwrap_or(0);
    let slots: Vec<Vec<Option<usize>>> = (0..t_max)
        .map(|t| order.iter().map(|o| o.get(t).copied()).collect())
        .collect();
    let by_core: Vec<Vec<Option<usize>>> = order
        .iter()
        .map(|o| o.iter().map(|&k| Some(k)).collect())
        .collect();
    let coverage = inst.coverage_of(&by_core);
    SlotSchedule { slots, coverage }
}

/// Exact optimum of Σ_t ⊙(∪_j Δ_{j,k_t}) (branch-and-bound). Supports at most 64
/// slabs per core; fails with [`RuntimeError::SearchBudget`] beyond `budget` nodes.
pub fn optimal_schedule(inst: &SlabInstance, budget: u64) -> Result<SlotSchedule> {
    let p = inst.cores();
    let counts: Vec<usize> = (0..p).map(|c| inst.slabs_of(c).len()).collect();
    if counts.iter().any(|&m| m > 64) {
        return Err(invalid(
            "the exact solver supports at most 64 slabs per core",
        ));
    }
    let greedy = schedule_blp(
        inst,
        &BlpOptions {
            tie_break: TieBreak::Lowest,
            ..Default::default()
        },
        None,
    )?;
    let orig = original_order(inst);
    let (start, start_val) = {
        let g: usize = greedy.coverage.iter().sum();
        let o: usize = orig.coverage.iter().sum();
        if g >= o {
            (greedy.per_core(), g)
        } else {
            (orig.per_core(), o)
        }
    };
    let mut bb = Bb {
        p,
        q: inst.banks(),
        w: bankset::words_for(inst.banks()),
        t_max: counts.iter().copied().max().unwrap_or(0),
        symmetric: counts.iter().all(|&m| m == counts[0]),
        maps: (0..p)
            .map(|c| inst.slabs_of(c).iter().map(|s| s.words()).collect())
            .collect(),
        sizes: (0..p)
            .map(|c| inst.slabs_of(c).iter().map(BankSet::count).collect())
            .collect(),
        remaining: counts
            .iter()
            .map(|&m| if m == 64 { u64::MAX } else { (1u64 << m) - 1 })
            .collect(),
        counts,
        cur: vec![Vec::new(); p],
        best_val: start_val,
        best: start,
        nodes: 0,
        budget,
    };
    let zero = vec![0u64; bb.w];
    bb.dfs(0, 0, &zero, 0)?;
    Ok(to_schedule(inst, &bb.best))
}

/// Enumerates every per-core permutation; returns the best total coverage and one
/// schedule achieving it. Only for tiny instances (tests).
pub fn brute_force(inst: &SlabInstance) -> (usize, SlotSchedule) {
    fn perms(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in perms(n - 1) {
            for i in 0..=p.len() {
                let mut q = p.clone();
                q.insert(i, n - 1);
                out.push(q);
            }
        }
        out
    }
    let p = inst.cores();
    let all: Vec<Vec<Vec<usize>>> = (0..p).map(|c| perms(inst.slabs_of(c).len())).collect();
    let mut idx = vec![0usize; p];
    let mut best: Option<(usize, Vec<Vec<usize>>)> = None;
    loop {
        let order: Vec<Vec<usize>> = (0..p).map(|c| all[c][idx[c]].clone()).collect();
        let s = to_schedule(inst, &order);
        let v: usize = s.coverage.iter().sum();
        if best.as_ref().map_or(true, |(b, _)| v > *b) {
            best = Some((v, order));
        }
        let mut c = 0;
        loop {
            if c == p {
                let (v, o) = best.expect("at least one permutation");
                return (v, to_schedule(inst, &o));
            }
            idx[c] += 1;
            if idx[c] < all[c].len() {
                break;
            }
            idx[c] = 0;
            c += 1;
        }
    }
}
