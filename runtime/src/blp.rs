//! Algorithm 4 (BLP_scheduling, dissertation §4.4.4) and the variants the chapter
//! describes: q-step look-ahead (§4.4.3), flexibility-ordered cores (§4.4.4, last
//! paragraph), a sliding candidate window, and scheduling over a slab dependence
//! DAG (§4.4.6: only *schedulable* slabs are candidates).
//!
//! Model: core `j` owns the slab list `L_j` (its static chunk of the parallel
//! region cut into slabs). At each scheduling slot every core runs one of *its
//! own* slabs — a slab never moves to another core. Per slot the cores are visited
//! in turn; the first visited core picks the slab with the most bank reuse (XNOR
//! of bank-maps) with its previous slab (randomly at the first slot); every other
//! core picks the slab adding the most banks not yet covered in the slot, ties
//! broken by bank reuse with that core's previous slab (randomly when it has none).
//!
//! Invariants of the result: every slab appears exactly once, in a slot of its own
//! core; with a DAG, every predecessor of a slab is in a strictly earlier slot.
//!
//! Cost: O(T · P · M · ⌈Q/64⌉) word operations for T slots, P cores, M slabs per core
//! and Q banks (bank-maps are packed in `u64` words, so OR/popcount/XNOR over 64
//! banks is one instruction each).

use crate::bankset::{self, BankSet};
use crate::deps::UnitDag;
use crate::error::{inst, invalid};
use crate::Result;

/// A slab-scheduling instance: `slabs[core][k]` is the bank-map of slab `k` of `core`.
#[derive(Clone, Debug)]
pub struct SlabInstance {
    banks: usize,
    slabs: Vec<Vec<BankSet>>,
    offsets: Vec<usize>,
}

impl SlabInstance {
    /// Builds an instance; every bank-map must range over `banks` banks.
    pub fn new(banks: usize, slabs: Vec<Vec<BankSet>>) -> Result<Self> {
        if banks == 0 {
            return Err(inst("banks", "must be at least 1"));
        }
        if slabs.is_empty() {
            return Err(inst("slabs", "needs at least one core"));
        }
        for (c, list) in slabs.iter().enumerate() {
            for (k, s) in list.iter().enumerate() {
                if s.len() != banks {
                    return Err(inst(
                        format!("slabs[{c}][{k}]"),
                        format!("bank-map has {} banks, expected {banks}", s.len()),
                    ));
                }
            }
        }
        let mut offsets = Vec::with_capacity(slabs.len() + 1);
        let mut acc = 0;
        for l in &slabs {
            offsets.push(acc);
            acc += l.len();
        }
        offsets.push(acc);
        Ok(SlabInstance {
            banks,
            slabs,
            offsets,
        })
    }

    /// Parses the `weft schedule` instance `{"cores": P, "banks": Q, "slabs": [[[bank, ...], ...], ...]}`.
    pub fn from_json(v: &serde_json::Value) -> Result<Self> {
        let cores = json_usize(v, "cores")?;
        let banks = json_usize(v, "banks")?;
        let slabs_v = v
            .get("slabs")
            .and_then(|s| s.as_array())
            .ok_or_else(|| inst("slabs", "missing or not an array"))?;
        if slabs_v.len() != cores {
            return Err(inst(
                "slabs",
                format!("has {} core lists but cores = {cores}", slabs_v.len()),
            ));
        }
        let mut slabs = Vec::with_capacity(cores);
        for (c, list) in slabs_v.iter().enumerate() {
            let list = list
                .as_array()
                .ok_or_else(|| inst(format!("slabs[{c}]"), "not an array"))?;
            let mut core_slabs = Vec::with_capacity(list.len());
            for (k, s) in list.iter().enumerate() {
                let arr = s
                    .as_array()
                    .ok_or_else(|| inst(format!("slabs[{c}][{k}]"), "not an array of banks"))?;
                let mut set = BankSet::new(banks);
                for (i, b) in arr.iter().enumerate() {
                    let b = b.as_u64().ok_or_else(|| {
                        inst(
                            format!("slabs[{c}][{k}][{i}]"),
                            "not a non-negative integer",
                        )
                    })? as usize;
                    if b >= banks {
                        return Err(inst(
                            format!("slabs[{c}][{k}][{i}]"),
                            format!("bank {b} out of range (banks = {banks})"),
                        ));
                    }
                    set.insert(b);
                }
                core_slabs.push(set);
            }
            slabs.push(core_slabs);
        }
        Self::new(banks, slabs)
    }

    /// Number of banks Q.
    pub fn banks(&self) -> usize {
        self.banks
    }
    /// Number of cores P.
    pub fn cores(&self) -> usize {
        self.slabs.len()
    }
    /// Slab list of `core`.
    pub fn slabs_of(&self, core: usize) -> &[BankSet] {
        &self.slabs[core]
    }
    /// Total number of slabs.
    pub fn total_slabs(&self) -> usize {
        *self.offsets.last().unwrap_or(&0)
    }
    /// Global id of slab `k` of `core` (core-major order; this is the original
    /// iteration order when cores own contiguous chunks).
    pub fn global_id(&self, core: usize, k: usize) -> usize {
        self.offsets[core] + k
    }
    /// Inverse of [`SlabInstance::global_id`].
    pub fn core_of(&self, id: usize) -> (usize, usize) {
        let c = self.offsets.partition_point(|&o| o <= id) - 1;
        (c, id - self.offsets[c])
    }
    /// Banks covered per slot if the slabs run in the order `order[core]`.
    pub fn coverage_of(&self, order: &[Vec<Option<usize>>]) -> Vec<usize> {
        let t_max = order.iter().map(|o| o.len()).max().unwrap_or(0);
        (0..t_max)
            .map(|t| {
                let mut u = BankSet::new(self.banks);
                for (c, o) in order.iter().enumerate() {
                    if let Some(Some(k)) = o.get(t) {
                        u.union_with(&self.slabs[c][*k]);
                    }
                }
                u.count()
            })
            .collect()
    }
}

fn json_usize(v: &serde_json::Value, field: &str) -> Result<usize> {
    v.get(field)
        .ok_or_else(|| inst(field, "missing"))?
        .as_u64()
        .map(|x| x as usize)
        .ok_or_else(|| inst(field, "not a non-negative integer"))
}

/// How ties are broken where the dissertation says "randomly".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieBreak {
    /// The candidate with the lowest slab index (deterministic; used by the Fig. 4.9 test).
    Lowest,
    /// Uniformly among the tied candidates with a seeded generator.
    Seeded(u64),
}

/// Order in which the cores are visited within a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreOrder {
    /// Core 0, 1, ..., P-1 (Algorithm 4 as printed).
    Fixed,
    /// Most constrained core first: the unvisited core with the fewest candidate
    /// slabs that add an uncovered bank goes next (cores with none go last).
    Flexibility,
}

/// Options of Algorithm 4 and its variants.
#[derive(Clone, Debug)]
pub struct BlpOptions {
    /// q of §4.4.3: banks covered by the previous `q-1` slots also count as covered
    /// when a slab's gain is computed (default 1 = Algorithm 4).
    pub lookahead: usize,
    /// Core visiting order (default [`CoreOrder::Fixed`]).
    pub core_order: CoreOrder,
    /// Sliding candidate window: only the first `w` remaining slabs of a core (in
    /// original order) are candidates (default `None` = all).
    pub window: Option<usize>,
    /// Tie-breaking where the algorithm picks randomly (default seeded, seed 0x5eed).
    pub tie_break: TieBreak,
}

impl Default for BlpOptions {
    fn default() -> Self {
        BlpOptions {
            lookahead: 1,
            core_order: CoreOrder::Fixed,
            window: None,
            tie_break: TieBreak::Seeded(0x5eed),
        }
    }
}

/// A slot schedule: `slots[t][core]` is the slab (index within the core's list)
/// run by `core` at slot `t`, or `None` when the core idles (only with a DAG).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotSchedule {
    /// `slots[t][core]`.
    pub slots: Vec<Vec<Option<usize>>>,
    /// Banks covered by the slabs of each slot (⊙ of the OR of their bank-maps).
    pub coverage: Vec<usize>,
}

impl SlotSchedule {
    /// `per_core()[core]` = the core's slabs in execution order (idle slots dropped).
    pub fn per_core(&self) -> Vec<Vec<usize>> {
        let cores = self.slots.first().map(|s| s.len()).unwrap_or(0);
        (0..cores)
            .map(|c| self.slots.iter().filter_map(|s| s[c]).collect())
            .collect()
    }
    /// `by_core()[core][t]` = slab at slot t (with idle slots).
    pub fn by_core(&self) -> Vec<Vec<Option<usize>>> {
        let cores = self.slots.first().map(|s| s.len()).unwrap_or(0);
        (0..cores)
            .map(|c| self.slots.iter().map(|s| s[c]).collect())
            .collect()
    }
    /// Mean banks covered per slot.
    pub fn mean_coverage(&self) -> f64 {
        if self.coverage.is_empty() {
            0.0
        } else {
            self.coverage.iter().sum::<usize>() as f64 / self.coverage.len() as f64
        }
    }
}

/// The original order: slot t runs slab t of every core.
pub fn original_order(inst: &SlabInstance) -> SlotSchedule {
    let t_max = (0..inst.cores())
        .map(|c| inst.slabs_of(c).len())
        .max()
        .unwrap_or(0);
    let slots: Vec<Vec<Option<usize>>> = (0..t_max)
        .map(|t| {
            (0..inst.cores())
                .map(|c| (t < inst.slabs_of(c).len()).then_some(t))
                .collect()
        })
        .collect();
    let by_core: Vec<Vec<Option<usize>>> = (0..inst.cores())
        .map(|c| slots.iter().map(|s| s[c]).collect())
        .collect();
    let coverage = inst.coverage_of(&by_core);
    SlotSchedule { slots, coverage }
}

/// Small deterministic generator (SplitMix64) for the seeded tie-breaks.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix(pub u64);
impl SplitMix {
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Runs Algorithm 4 (with the variants selected in `opts`). With `dag` (nodes =
/// global slab ids, see [`SlabInstance::global_id`]) only slabs whose
/// predecessors all ran in earlier slots are candidates.
pub fn schedule_blp(
    inst: &SlabInstance,
    opts: &BlpOptions,
    dag: Option<&UnitDag>,
) -> Result<SlotSchedule> {
    let p = inst.cores();
    let q = inst.banks();
    let w = bankset::words_for(q);
    let total = inst.total_slabs();
    if opts.lookahead == 0 {
        return Err(invalid("lookahead q must be at least 1"));
    }
    if opts.window == Some(0) {
        return Err(invalid("candidate window must be at least 1"));
    }
    if let Some(d) = dag {
        if d.len() != total {
            return Err(invalid(format!(
                "dependence graph has {} nodes but the instance has {total} slabs",
                d.len()
            )));
        }
    }
    // Flat bank-maps by global id.
    let mut flat = vec![0u64; total * w];
    for c in 0..p {
        for (k, s) in inst.slabs_of(c).iter().enumerate() {
            let g = inst.global_id(c, k);
            flat[g * w..(g + 1) * w].copy_from_slice(s.words());
        }
    }
    let map = |g: usize| &flat[g * w..(g + 1) * w];
    let mut remaining: Vec<Vec<u32>> = (0..p)
        .map(|c| (0..inst.slabs_of(c).len() as u32).collect())
        .collect();
    let mut prev: Vec<Option<usize>> = vec![None; p];
    const UNSCHED: u32 = u32::MAX;
    let mut slot_of = vec![UNSCHED; total];
    let mut rng = match opts.tie_break {
        TieBreak::Seeded(s) => Some(SplitMix(s)),
        TieBreak::Lowest => None,
    };
    let mut history: Vec<Vec<u64>> = Vec::new(); // unions of past slots (for q > 1)
    let mut slots = Vec::new();
    let mut coverage = Vec::new();
    let mut left = total;
    let mut cand: Vec<usize> = Vec::new();
    let mut tied: Vec<usize> = Vec::new();
    while left > 0 {
        let t = slots.len() as u32;
        let mut base = vec![0u64; w];
        for h in history.iter().rev().take(opts.lookahead - 1) {
            bankset::or_into(&mut base, h);
        }
        let mut slot_union = vec![0u64; w];
        let mut covered = base.clone();
        let mut row: Vec<Option<usize>> = vec![None; p];
        let mut visited = vec![false; p];
        for pos in 0..p {
            // Choose the next core.
            let j = match opts.core_order {
                CoreOrder::Fixed => pos,
                CoreOrder::Flexibility => {
                    let mut best: Option<(usize, usize)> = None; // (key, core)
                    for c in 0..p {
                        if visited[c] {
                            continue;
                        }
                        candidates(
                            &remaining[c],
                            c,
                            inst,
                            opts.window,
                            dag,
                            &slot_of,
                            t,
                            &mut cand,
                        );
                        let n_pos = cand
                            .iter()
                            .filter(|&&k| {
                                bankset::count_new(map(inst.global_id(c, k)), &covered) > 0
                            })
                            .count();
                        let key = if n_pos == 0 { usize::MAX } else { n_pos };
                        if best.map_or(true, |(bk, _)| key < bk) {
                            best = Some((key, c));
                        }
                    }
                    best.map(|(_, c)| c).unwrap_or(pos)
                }
            };
            visited[j] = true;
            candidates(
                &remaining[j],
                j,
                inst,
                opts.window,
                dag,
                &slot_of,
                t,
                &mut cand,
            );
            if cand.is_empty() {
                continue;
            }
            // Primary criterion.
            tied.clear();
            let first_reuse_only = pos == 0 && opts.lookahead == 1;
            if first_reuse_only {
                tied.extend_from_slice(&cand);
            } else {
                let mut best = 0usize;
                for &k in cand.iter() {
                    let gain = bankset::count_new(map(inst.global_id(j, k)), &covered);
                    if tied.is_empty() || gain > best {
                        best = gain;
                        tied.clear();
                        tied.push(k);
                    } else if gain == best {
                        tied.push(k);
                    }
                }
            }
            // Secondary: bank reuse with the core's previous slab, else random.
            let pick = if tied.len() == 1 {
                tied[0]
            } else if let Some(pg) = prev[j] {
                let pm = map(pg);
                let mut best = (0usize, usize::MAX);
                for &k in tied.iter() {
                    let r = bankset::count_xnor(map(inst.global_id(j, k)), pm, q);
                    if best.1 == usize::MAX || r > best.0 {
                        best = (r, k);
                    }
                }
                best.1
            } else {
                match rng.as_mut() {
                    Some(r) => tied[r.below(tied.len())],
                    None => tied[0],
                }
            };
            let g = inst.global_id(j, pick);
            bankset::or_into(&mut slot_union, map(g));
            bankset::or_into(&mut covered, map(g));
            slot_of[g] = t;
            prev[j] = Some(g);
            let idx = remaining[j]
                .iter()
                .position(|&x| x as usize == pick)
                .unwrap();
            remaining[j].remove(idx);
            row[j] = Some(pick);
            left -= 1;
        }
        if row.iter().all(|r| r.is_none()) {
            // No core could run anything: the DAG must be cyclic.
            let stuck = (0..total).find(|&g| slot_of[g] == UNSCHED).unwrap_or(0);
            return Err(crate::RuntimeError::CyclicDependences(stuck));
        }
        coverage.push(bankset::count(&slot_union));
        history.push(slot_union);
        slots.push(row);
    }
    Ok(SlotSchedule { slots, coverage })
}

/// Candidate slabs of core `c` at slot `t`: within the sliding window and with all
/// DAG predecessors scheduled in earlier slots. Ascending slab index.
#[allow(clippy::too_many_arguments)]
fn candidates(
    remaining: &[u32],
    c: usize,
    inst: &SlabInstance,
    window: Option<usize>,
    dag: Option<&UnitDag>,
    slot_of: &[u32],
    t: u32,
    out: &mut Vec<usize>,
) {
    out.clear();
    let lim = window.unwrap_or(usize::MAX);
    for &k in remaining.iter().take(lim) {
        let ok = match dag {
            None => true,
            Some(d) => d
                .preds(inst.global_id(c, k as usize))
                .iter()
                .all(|&p| slot_of[p as usize] < t),
        };
        if ok {
            out.push(k as usize);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(rows: &[&[&str]]) -> SlabInstance {
        let banks = rows[0][0].len();
        SlabInstance::new(
            banks,
            rows.iter()
                .map(|r| {
                    r.iter()
                        .map(|s| BankSet::from_bitstring(s).unwrap())
                        .collect()
                })
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn original_order_coverage() {
        let i = inst(&[&["1000", "0100"], &["1000", "0010"]]);
        let o = original_order(&i);
        assert_eq!(o.coverage, vec![1, 2]);
    }

    #[test]
    fn greedy_separates_banks() {
        let i = inst(&[&["1000", "0100"], &["1000", "0100"]]);
        let opts = BlpOptions {
            tie_break: TieBreak::Lowest,
            ..Default::default()
        };
        let s = schedule_blp(&i, &opts, None).unwrap();
        assert_eq!(s.coverage, vec![2, 2]);
        assert_eq!(
            s.slots,
            vec![vec![Some(0), Some(1)], vec![Some(1), Some(0)]]
        );
    }
}
