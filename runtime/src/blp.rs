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
//! Cost. The paper states O(N·M·P²) for N regions, P cores and M slabs per core.
//! This implementation runs one region in O(T·P·M·⌈Q/64⌉) word operations for
//! T slots (T = M without a DAG), i.e. O(P·M²) for Q <= 64, and in particular
//! linear, not quadratic, in P: every core scans only its own remaining slabs
//! once per slot, computing gain and reuse in the same pass. Bank-maps are single
//! `u64` words when Q <= 64 (a popcount of `set & !covered` per candidate and a
//! popcount of `set ^ prev` for the reuse tie-break, packed into one key so the
//! pick is a single first-maximum scan), else the `bitvec` words; the popcounts
//! use the `popcnt` instruction when the CPU has it (run-time check). Nothing is allocated per candidate; the scan stops early when a candidate adds
//! every uncovered bank and cannot lose the tie-break. The seeded random
//! tie-break costs a second pass only on a core's first pick. With a DAG the
//! readiness of a slab is kept incrementally (pending predecessors, earliest
//! slot), so the check is O(1) per candidate; the flexibility order adds
//! O(P·M) per visited core (O(P²·M) per slot) and is skipped once the slot covers
//! every bank.

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

/// The seed of [`BlpOptions::default`]'s tie-break.
pub const DEFAULT_TIE_SEED: u64 = 0x5eed;

impl TieBreak {
    /// Parses a `WEFT_BLP_TIE` value: `seeded` (seed [`DEFAULT_TIE_SEED`]),
    /// `seed:N` or `lowest`; `None` for anything else.
    pub fn parse(v: &str) -> Option<TieBreak> {
        match v.trim() {
            "seeded" => Some(TieBreak::Seeded(DEFAULT_TIE_SEED)),
            "lowest" => Some(TieBreak::Lowest),
            s => s
                .strip_prefix("seed:")
                .and_then(|n| n.trim().parse().ok())
                .map(TieBreak::Seeded),
        }
    }
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
            tie_break: TieBreak::Seeded(DEFAULT_TIE_SEED),
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
    if inst.banks() <= 64 {
        run_fastest::<u64>(inst, opts, dag)
    } else {
        run_fastest::<Box<[u64]>>(inst, opts, dag)
    }
}

/// [`run`] compiled with the `popcnt` instruction when the CPU has it (checked at
/// run time; the default x86-64 target computes popcounts in software).
fn run_fastest<M: Mask>(
    inst: &SlabInstance,
    opts: &BlpOptions,
    dag: Option<&UnitDag>,
) -> Result<SlotSchedule> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports `popcnt`, checked just above.
        return unsafe { run_popcnt::<M>(inst, opts, dag) };
    }
    run::<M>(inst, opts, dag)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn run_popcnt<M: Mask>(
    inst: &SlabInstance,
    opts: &BlpOptions,
    dag: Option<&UnitDag>,
) -> Result<SlotSchedule> {
    run::<M>(inst, opts, dag)
}

/// A bank-map in the scheduler's working form: one `u64` word when Q <= 64,
/// otherwise the `bitvec` storage words (dead tail bits zero in both).
trait Mask: Clone {
    fn zero(words: usize) -> Self;
    fn from_set(s: &BankSet) -> Self;
    fn or_assign(&mut self, o: &Self);
    /// ⊙ of the set.
    fn count(&self) -> usize;
    /// ⊙(self ∧ ¬covered): banks this set adds.
    fn count_new(&self, covered: &Self) -> usize;
    /// ⊙(self ⊕ o): banks where the sets differ (Q minus the XNOR reuse).
    fn count_diff(&self, o: &Self) -> usize;
}

impl Mask for u64 {
    #[inline]
    fn zero(_: usize) -> Self {
        0
    }
    fn from_set(s: &BankSet) -> Self {
        s.words()[0]
    }
    #[inline]
    fn or_assign(&mut self, o: &Self) {
        *self |= *o;
    }
    #[inline]
    fn count(&self) -> usize {
        self.count_ones() as usize
    }
    #[inline]
    fn count_new(&self, covered: &Self) -> usize {
        (*self & !*covered).count_ones() as usize
    }
    #[inline]
    fn count_diff(&self, o: &Self) -> usize {
        (*self ^ *o).count_ones() as usize
    }
}

impl Mask for Box<[u64]> {
    fn zero(words: usize) -> Self {
        vec![0u64; words].into_boxed_slice()
    }
    fn from_set(s: &BankSet) -> Self {
        s.words().into()
    }
    fn or_assign(&mut self, o: &Self) {
        bankset::or_into(self, o);
    }
    fn count(&self) -> usize {
        bankset::count(self)
    }
    fn count_new(&self, covered: &Self) -> usize {
        bankset::count_new(self, covered)
    }
    fn count_diff(&self, o: &Self) -> usize {
        self.iter()
            .zip(o.iter())
            .map(|(x, y)| (x ^ y).count_ones() as usize)
            .sum()
    }
}

/// Per-core pool of remaining slabs, ascending slab index (the original order,
/// which the tie-breaks and the window refer to).
struct Pool<M> {
    ids: Vec<u32>,
    masks: Vec<M>,
}

/// Algorithm 4 proper over bank-maps of type `M` (see the module doc for the cost).
#[inline(always)]
fn run<M: Mask>(
    inst: &SlabInstance,
    opts: &BlpOptions,
    dag: Option<&UnitDag>,
) -> Result<SlotSchedule> {
    let p = inst.cores();
    let q = inst.banks();
    let words = bankset::words_for(q);
    let total = inst.total_slabs();
    let mut pools: Vec<Pool<M>> = (0..p)
        .map(|c| Pool {
            ids: (0..inst.slabs_of(c).len() as u32).collect(),
            masks: inst.slabs_of(c).iter().map(M::from_set).collect(),
        })
        .collect();
    // Dependences: a slab is a candidate at slot t once all its predecessors ran
    // (`pending` = 0) in slots before t (`ready_at` <= t).
    let mut pending: Vec<u32> = Vec::new();
    let mut ready_at: Vec<u32> = Vec::new();
    let mut succs: Vec<Vec<u32>> = Vec::new();
    if let Some(d) = dag {
        pending = (0..total).map(|v| d.preds(v).len() as u32).collect();
        ready_at = vec![0; total];
        succs = vec![Vec::new(); total];
        for v in 0..total {
            for &u in d.preds(v) {
                succs[u as usize].push(v as u32);
            }
        }
    }
    let filtered = dag.is_some() || opts.window.is_some();
    let lim = opts.window.unwrap_or(usize::MAX);
    // cand[c] = candidate positions in pools[c] for the current slot (when filtered).
    let mut cand: Vec<Vec<u32>> = vec![Vec::new(); p];
    let mut prev: Vec<Option<M>> = vec![None; p];
    let mut scheduled = vec![false; total];
    let mut rng = match opts.tie_break {
        TieBreak::Seeded(s) => Some(SplitMix(s)),
        TieBreak::Lowest => None,
    };
    let mut history: Vec<M> = Vec::new(); // unions of past slots (for q > 1)
    let mut slots = Vec::new();
    let mut coverage = Vec::new();
    let mut left = total;
    let mut visited = vec![false; p];
    while left > 0 {
        let t = slots.len() as u32;
        let mut covered = M::zero(words);
        for h in history.iter().rev().take(opts.lookahead - 1) {
            covered.or_assign(h);
        }
        let mut slot_union = M::zero(words);
        let mut row: Vec<Option<usize>> = vec![None; p];
        visited.iter_mut().for_each(|v| *v = false);
        if filtered {
            // Candidates are fixed for the whole slot: picks of this slot only
            // release successors for later slots.
            for c in 0..p {
                cand[c].clear();
                for (i, &k) in pools[c].ids.iter().enumerate().take(lim) {
                    let g = inst.global_id(c, k as usize);
                    if dag.is_none() || (pending[g] == 0 && ready_at[g] <= t) {
                        cand[c].push(i as u32);
                    }
                }
            }
        }
        for pos in 0..p {
            let j = match opts.core_order {
                CoreOrder::Fixed => pos,
                CoreOrder::Flexibility => {
                    next_flexible(&pools, &cand, filtered, &visited, &covered, q).unwrap_or(pos)
                }
            };
            visited[j] = true;
            let pool = &pools[j];
            let n_cand = if filtered {
                cand[j].len()
            } else {
                pool.ids.len()
            };
            if n_cand == 0 {
                continue;
            }
            let position = |i: usize| if filtered { cand[j][i] as usize } else { i };
            // Primary = banks added (all equal for the reuse-only first pick and
            // once the slot covers every bank), secondary = reuse with the core's
            // previous slab (first maximum wins), else random among the tied.
            let first_reuse_only = pos == 0 && opts.lookahead == 1;
            let max_gain = if first_reuse_only {
                0
            } else {
                q - covered.count()
            };
            let at = match prev[j].as_ref() {
                Some(pm) if filtered => best_by_key(
                    cand[j]
                        .iter()
                        .map(|&i| (i as usize, &pool.masks[i as usize])),
                    &covered,
                    pm,
                    max_gain,
                ),
                Some(pm) => best_by_key(pool.masks.iter().enumerate(), &covered, pm, max_gain),
                None => {
                    let gain = |i: usize| {
                        if max_gain == 0 {
                            0
                        } else {
                            pool.masks[position(i)].count_new(&covered)
                        }
                    };
                    let (mut best_gain, mut best_i, mut ties) = (0usize, 0usize, 0usize);
                    for i in 0..n_cand {
                        let g = gain(i);
                        if ties == 0 || g > best_gain {
                            (best_gain, best_i, ties) = (g, i, 1);
                            if g == max_gain && rng.is_none() {
                                break; // the first one adding every bank wins
                            }
                        } else if g == best_gain {
                            ties += 1;
                        }
                    }
                    if ties > 1 {
                        if let Some(r) = rng.as_mut() {
                            // the r-th of the tied candidates, ascending
                            let nth = r.below(ties);
                            best_i = (0..n_cand)
                                .filter(|&i| gain(i) == best_gain)
                                .nth(nth)
                                .unwrap_or(best_i);
                        }
                    }
                    position(best_i)
                }
            };
            let pool = &mut pools[j];
            let pick = pool.ids.remove(at) as usize;
            let m = pool.masks.remove(at);
            slot_union.or_assign(&m);
            covered.or_assign(&m);
            prev[j] = Some(m);
            let g = inst.global_id(j, pick);
            scheduled[g] = true;
            if dag.is_some() {
                for &s2 in &succs[g] {
                    pending[s2 as usize] -= 1;
                    ready_at[s2 as usize] = ready_at[s2 as usize].max(t + 1);
                }
            }
            row[j] = Some(pick);
            left -= 1;
        }
        if row.iter().all(|r| r.is_none()) {
            // No core could run anything: the DAG must be cyclic.
            let stuck = scheduled.iter().position(|&s| !s).unwrap_or(0);
            return Err(crate::RuntimeError::CyclicDependences(stuck));
        }
        coverage.push(slot_union.count());
        if opts.lookahead > 1 {
            history.push(slot_union);
        }
        slots.push(row);
    }
    Ok(SlotSchedule { slots, coverage })
}

/// Position of the first candidate maximising (banks added to `covered`, reuse
/// with `prev`), both packed in one key; `max_gain` = banks still uncovered (0
/// when only reuse counts). Stops at a candidate that adds `max_gain` banks and
/// equals `prev`, which nothing later can beat.
#[inline(always)]
fn best_by_key<'a, M: Mask + 'a>(
    cands: impl Iterator<Item = (usize, &'a M)>,
    covered: &M,
    prev: &M,
    max_gain: usize,
) -> usize {
    let top = ((max_gain as u64) << 32) | u32::MAX as u64;
    let (mut best_key, mut best_at) = (0u64, 0usize);
    for (at, m) in cands {
        let gain = if max_gain == 0 {
            0
        } else {
            m.count_new(covered) as u64
        };
        let key = (gain << 32) | (u32::MAX as u64 - m.count_diff(prev) as u64);
        if key > best_key {
            best_key = key;
            best_at = at;
            if key == top {
                break;
            }
        }
    }
    best_at
}

/// [`CoreOrder::Flexibility`]: the unvisited core with the fewest candidates that
/// add an uncovered bank (cores with none count as the most flexible); lowest core
/// on ties. `None` when every core was visited.
fn next_flexible<M: Mask>(
    pools: &[Pool<M>],
    cand: &[Vec<u32>],
    filtered: bool,
    visited: &[bool],
    covered: &M,
    q: usize,
) -> Option<usize> {
    let first = visited.iter().position(|&v| !v)?;
    if covered.count() == q {
        return Some(first); // every key is "none adds"
    }
    let mut best: Option<(usize, usize)> = None; // (key, core)
    for c in first..pools.len() {
        if visited[c] {
            continue;
        }
        let masks = &pools[c].masks;
        let n_pos = if filtered {
            cand[c]
                .iter()
                .filter(|&&i| masks[i as usize].count_new(covered) > 0)
                .count()
        } else {
            masks.iter().filter(|m| m.count_new(covered) > 0).count()
        };
        let key = if n_pos == 0 { usize::MAX } else { n_pos };
        if best.map_or(true, |(bk, _)| key < bk) {
            best = Some((key, c));
        }
        if key == 1 {
            break; // nothing later is smaller
        }
    }
    best.map(|(_, c)| c)
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

    /// Every slab's map full (the large-input case of issue #36): every
    /// candidate ties. `Lowest` runs the original order; the seeded rule
    /// draws only each core's slot-0 slab (no previous slab yet) and then
    /// takes the lowest remaining one (the reuse key ties too), so each core
    /// starts at a random slab of its chunk and runs the rest in order.
    #[test]
    fn full_maps_tie_everywhere() {
        let full: &[&str] = &["11", "11", "11", "11"];
        let i = inst(&[full, full]);
        let lowest = BlpOptions {
            tie_break: TieBreak::Lowest,
            ..Default::default()
        };
        let s = schedule_blp(&i, &lowest, None).unwrap();
        let orig: Vec<Vec<Option<usize>>> = (0..4).map(|k| vec![Some(k), Some(k)]).collect();
        assert_eq!(s.slots, orig);
        let s = schedule_blp(&i, &BlpOptions::default(), None).unwrap();
        let mut rng = SplitMix(DEFAULT_TIE_SEED);
        for c in 0..2 {
            let first = rng.below(4);
            let mut expect = vec![first];
            expect.extend((0..4).filter(|&k| k != first));
            let got: Vec<usize> = s.slots.iter().map(|r| r[c].unwrap()).collect();
            assert_eq!(got, expect, "core {c}");
        }
    }

    #[test]
    fn tie_break_settings() {
        assert_eq!(TieBreak::parse("lowest"), Some(TieBreak::Lowest));
        assert_eq!(
            TieBreak::parse(" seeded"),
            Some(TieBreak::Seeded(DEFAULT_TIE_SEED))
        );
        assert_eq!(TieBreak::parse("seed:7"), Some(TieBreak::Seeded(7)));
        assert_eq!(TieBreak::parse("seed:x"), None);
        assert_eq!(TieBreak::parse("random"), None);
    }
}
