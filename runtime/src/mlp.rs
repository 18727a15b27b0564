//! Algorithm 5 (MLP, CLP aware iteration-block scheduling, dissertation §5.5.4)
//! with the MLP-first, CLP-first and Balanced schemes (§5.5.6, eq. 5.2), the
//! iteration-window size of eq. 5.1, and the Default round-robin baseline.
//!
//! Model (§5.5.1): the loop nest is strip-mined into iteration blocks (IBs), each
//! with a memory-bank vector and an LLC-bank vector (per-bank access counts; the
//! bit vectors b⃗, c⃗ are their supports). At every scheduling step each core in
//! turn fills an iteration window (IW) of `W` IBs:
//!
//! 1. the first IB is the head of the pool (the lowest-id available IB — in the
//!    printed algorithm the scan starts there and it always improves the empty
//!    intra-core vector);
//! 2. MLP phase: the IB adding the most banks to the inter-core vector g⃗ (OR over
//!    all windows of the step) is taken; when none adds to g⃗, the one adding most
//!    to the intra-core vector l⃗ (this window) — lines 15–29 read as a greedy
//!    choice (ties: first group found, see below);
//! 3. once ⊙g⃗ ≥ β·MAX_MLP (line 33) or the MLP cannot grow, the CLP phase picks
//!    IBs that add LLC banks (inter-core first, then intra-core) — lines 37–41;
//! 4. if the window still has room, it is filled with the lowest-id available
//!    IBs, so that every window is full and the schedule always terminates (the
//!    printed algorithm leaves this case open).
//!
//! CLP-first swaps the roles of the memory and LLC vectors. Balanced picks the
//! second IB of each window by the standard-deviation rule of §5.5.6 (smallest
//! SD_m((m⃗_c ⊎ m⃗_x)·η_m) + SD_c((c⃗_c ⊎ c⃗_x)·η_c)) and then sets that window's
//! β = SD_m / (SD_m + SD_c) of the chosen pair (0.5 when both are 0): a window whose
//! memory load is the more unbalanced keeps optimising MLP longer. MLP-first and
//! CLP-first use β = 1.
//!
//! Dependences (§5.5.4): with an IB DAG only IBs whose predecessors have all been
//! picked are candidates, so the pick order is a topological order; cross-core
//! waits are then derived by [`crate::deps::sync_points`].
//!
//! Speed. The paper states O(N·M²) for N cores and M IBs. Here IBs with
//! identical (memory set, LLC set) pairs are grouped (G groups; a fast hash of
//! the set words), and each covered vector (inter/intra-core × memory/LLC) has a
//! lazy greedy queue of group gains: gains only shrink while a vector grows, so a
//! popped group whose fresh gain still tops the queue is the best. The queues are
//! bucket queues (one bitset over the groups per gain value, gains <= banks), so a
//! new window's queue is a copy of a per-role template (O(B·G/64) words instead
//! of a heap build), and a per-role union of the available groups' sets answers
//! "does any group still add a bank?" in O(B/64) instead of draining the queue.
//! The pool head is a bitset with a cursor, each group's members a sorted list
//! with a cursor (a min-heap with a DAG); the Balanced SD uses sparse dot
//! products over CSR non-zeros, O(G·nnz) once per window. Popcounts use the
//! `popcnt` instruction when the CPU has it. Total: O(M·(B/64 + log) + picks ·
//! stale re-evaluations) plus O(S·B·G/64) for S windows, instead of O(N·M²).
//! The schedule is exactly that of the straightforward heap version (checked by
//! differential tests against a frozen copy).

use crate::bankset;
use crate::deps::UnitDag;
use crate::error::{inst, invalid};
use crate::Result;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasherDefault;

/// Per-IB weighted bank vectors.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct BlockVectors {
    /// Accesses per memory bank.
    pub mem: Vec<u32>,
    /// Accesses per LLC bank.
    pub llc: Vec<u32>,
}

/// An iteration-block scheduling instance.
#[derive(Clone, Debug)]
pub struct IbInstance {
    /// Number of cores N.
    pub cores: usize,
    /// Iteration-window size W (IBs per core per step).
    pub window: usize,
    /// Number of memory banks.
    pub mem_banks: usize,
    /// Number of LLC banks.
    pub llc_banks: usize,
    /// The IBs in original order.
    pub blocks: Vec<BlockVectors>,
}

impl IbInstance {
    /// Checks the vector lengths and sizes.
    pub fn validate(&self) -> Result<()> {
        if self.cores == 0 {
            return Err(inst("cores", "must be at least 1"));
        }
        if self.window == 0 {
            return Err(inst("window", "must be at least 1"));
        }
        if self.mem_banks == 0 {
            return Err(inst("mem_banks", "must be at least 1"));
        }
        if self.llc_banks == 0 {
            return Err(inst("llc_banks", "must be at least 1"));
        }
        for (i, b) in self.blocks.iter().enumerate() {
            if b.mem.len() != self.mem_banks {
                return Err(inst(
                    format!("blocks[{i}].mem"),
                    format!(
                        "has {} entries, expected mem_banks = {}",
                        b.mem.len(),
                        self.mem_banks
                    ),
                ));
            }
            if b.llc.len() != self.llc_banks {
                return Err(inst(
                    format!("blocks[{i}].llc"),
                    format!(
                        "has {} entries, expected llc_banks = {}",
                        b.llc.len(),
                        self.llc_banks
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Parses `{"cores": N, "window": W, "mem_banks": B, "llc_banks": L, "blocks": [{"mem": [...], "llc": [...]}, ...]}`.
    pub fn from_json(v: &serde_json::Value) -> Result<Self> {
        let num = |f: &str| -> Result<usize> {
            v.get(f)
                .ok_or_else(|| inst(f, "missing"))?
                .as_u64()
                .map(|x| x as usize)
                .ok_or_else(|| inst(f, "not a non-negative integer"))
        };
        let (cores, window, mem_banks, llc_banks) = (
            num("cores")?,
            num("window")?,
            num("mem_banks")?,
            num("llc_banks")?,
        );
        let arr = v
            .get("blocks")
            .and_then(|b| b.as_array())
            .ok_or_else(|| inst("blocks", "missing or not an array"))?;
        let mut blocks = Vec::with_capacity(arr.len());
        for (i, b) in arr.iter().enumerate() {
            let vecf = |f: &str| -> Result<Vec<u32>> {
                let a = b
                    .get(f)
                    .and_then(|x| x.as_array())
                    .ok_or_else(|| inst(format!("blocks[{i}].{f}"), "missing or not an array"))?;
                a.iter()
                    .enumerate()
                    .map(|(j, x)| {
                        x.as_u64()
                            .filter(|&x| x <= u32::MAX as u64)
                            .map(|x| x as u32)
                            .ok_or_else(|| {
                                inst(
                                    format!("blocks[{i}].{f}[{j}]"),
                                    "not a non-negative 32-bit integer",
                                )
                            })
                    })
                    .collect()
            };
            blocks.push(BlockVectors {
                mem: vecf("mem")?,
                llc: vecf("llc")?,
            });
        }
        let s = IbInstance {
            cores,
            window,
            mem_banks,
            llc_banks,
            blocks,
        };
        s.validate()?;
        Ok(s)
    }
}

/// Scheduling scheme (C ABI numbering in parentheses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// (0) Round-robin IBs over cores, W per window: the baseline.
    Default,
    /// (1) MLP first, CLP from the TempSet afterwards.
    MlpFirst,
    /// (2) CLP first, then MLP.
    ClpFirst,
    /// (3) Balanced: β per window from the SD rule.
    Balanced,
    /// (4) Locality-Aware-MLP baseline of §5.6.1 (after Ding et al., MICRO
    /// 2014): inter-core bank parallelism with row-buffer locality, no CLP
    /// ([`schedule_la_mlp`]).
    LaMlp,
}

impl Scheme {
    /// From the C ABI code (0..=3).
    pub fn from_code(c: u32) -> Option<Scheme> {
        Some(match c {
            0 => Scheme::Default,
            1 => Scheme::MlpFirst,
            2 => Scheme::ClpFirst,
            3 => Scheme::Balanced,
            4 => Scheme::LaMlp,
            _ => return None,
        })
    }
    /// Largest C ABI code.
    pub const MAX_CODE: u32 = 4;
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Default => "default",
            Scheme::MlpFirst => "mlp-first",
            Scheme::ClpFirst => "clp-first",
            Scheme::Balanced => "balanced",
            Scheme::LaMlp => "la-mlp",
        }
    }
    /// From the CLI name (`default`, `mlp-first`, `clp-first`, `balanced`).
    pub fn from_name(s: &str) -> Option<Scheme> {
        Some(match s {
            "default" => Scheme::Default,
            "mlp-first" => Scheme::MlpFirst,
            "clp-first" => Scheme::ClpFirst,
            "balanced" => Scheme::Balanced,
            "la-mlp" => Scheme::LaMlp,
            _ => return None,
        })
    }
}

/// Options of [`schedule_ibs`].
#[derive(Clone, Debug)]
pub struct MlpOptions {
    /// Scheme (default MLP-first).
    pub scheme: Scheme,
    /// η_m: service latency of a memory bank, cycles (default 1.0; the ABI uses the
    /// machine's tRCD + tCL).
    pub eta_mem: f64,
    /// η_c: service latency of an LLC bank, cycles (default 1.0; the ABI uses the
    /// machine's LLC hit latency).
    pub eta_llc: f64,
}

impl Default for MlpOptions {
    fn default() -> Self {
        MlpOptions {
            scheme: Scheme::MlpFirst,
            eta_mem: 1.0,
            eta_llc: 1.0,
        }
    }
}

/// Result of iteration-block scheduling.
#[derive(Clone, Debug, PartialEq)]
pub struct IbSchedule {
    /// `windows[step][core]` = IB ids of that core's window, in execution order.
    pub windows: Vec<Vec<Vec<usize>>>,
    /// β of each window in (step, core) order (empty for Default).
    pub beta: Vec<f64>,
    /// Global pick order: a topological order of the DAG in which every core's
    /// sequence is a subsequence (used for dependence waits and trace mode).
    pub seq: Vec<u32>,
}

impl IbSchedule {
    /// `per_core()[c]` = all IBs of core `c` in execution order.
    pub fn per_core(&self, cores: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); cores];
        for step in &self.windows {
            for (c, w) in step.iter().enumerate() {
                out[c].extend(w.iter().map(|&b| b as u32));
            }
        }
        out
    }
}

/// How many IBs each core runs in total: `m / n`, one more for the first
/// `m % n` cores, the same counts as the Default round-robin. Every scheme
/// caps a core's windows at its remaining quota, so reordering IBs never
/// changes the load balance: without the cap the last step fills the first
/// cores' windows to W and leaves the others idle (with few IBs per core, up to
/// twice the Default's longest core).
pub fn core_quotas(m: usize, n: usize) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    (0..n).map(|c| m / n + usize::from(c < m % n)).collect()
}

/// Eq. 5.1: IW size = C / (D · n) with C the LLC capacity in cache lines, D the
/// data-set size (cache lines per IB) and n the number of cores; at least 1.
pub fn iw_size(llc_lines: u64, ds_lines: f64, cores: usize) -> usize {
    if ds_lines <= 0.0 || cores == 0 {
        return 1;
    }
    ((llc_lines as f64 / (ds_lines * cores as f64)).floor() as usize).max(1)
}

/// Runs the selected scheme over `inst` (Algorithm 5 or the Default baseline).
pub fn schedule_ibs(
    inst: &IbInstance,
    opts: &MlpOptions,
    dag: Option<&UnitDag>,
) -> Result<IbSchedule> {
    inst.validate()?;
    let m = inst.blocks.len();
    if let Some(d) = dag {
        if d.len() != m {
            return Err(invalid(format!(
                "dependence graph has {} nodes but there are {m} iteration blocks",
                d.len()
            )));
        }
    }
    let n = inst.cores;
    let w = inst.window;
    if opts.scheme == Scheme::Default {
        let mut windows: Vec<Vec<Vec<usize>>> = Vec::new();
        for i in 0..m {
            let step = (i / n) / w;
            if windows.len() <= step {
                windows.push(vec![Vec::new(); n]);
            }
            windows[step][i % n].push(i);
        }
        return Ok(IbSchedule {
            windows,
            beta: Vec::new(),
            seq: (0..m as u32).collect(),
        });
    }
    if opts.scheme == Scheme::LaMlp {
        return Ok(schedule_la_mlp(inst, dag));
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports `popcnt`, checked just above.
        return Ok(unsafe { algorithm5_popcnt(inst, opts, dag) });
    }
    Ok(algorithm5(inst, opts, dag))
}

/// [`algorithm5`] compiled with the `popcnt` instruction (the default x86-64
/// target computes popcounts in software).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn algorithm5_popcnt(
    inst: &IbInstance,
    opts: &MlpOptions,
    dag: Option<&UnitDag>,
) -> IbSchedule {
    algorithm5(inst, opts, dag)
}

/// Fast hasher for the grouping keys (bank-set words): FxHash-style multiply.
#[derive(Default)]
struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.write_u64(u64::from_le_bytes(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Algorithm 5 proper (MLP-first, CLP-first, Balanced); see the module doc.
#[inline(always)]
fn algorithm5(inst: &IbInstance, opts: &MlpOptions, dag: Option<&UnitDag>) -> IbSchedule {
    let m = inst.blocks.len();
    let n = inst.cores;
    let w = inst.window;
    // Primary / secondary roles.
    let swap = opts.scheme == Scheme::ClpFirst;
    let (pb, sb) = if swap {
        (inst.llc_banks, inst.mem_banks)
    } else {
        (inst.mem_banks, inst.llc_banks)
    };
    let (pw, sw) = (bankset::words_for(pb), bankset::words_for(sb));
    let kw = pw + sw;
    // Group IBs by their (primary set, secondary set); groups are numbered in
    // order of first appearance.
    let mut keys = vec![0u64; m * kw];
    for (i, b) in inst.blocks.iter().enumerate() {
        let (pc, sc) = if swap {
            (&b.llc, &b.mem)
        } else {
            (&b.mem, &b.llc)
        };
        let key = &mut keys[i * kw..(i + 1) * kw];
        for (bank, &c) in pc.iter().enumerate() {
            if c > 0 {
                key[bank / 64] |= 1 << (bank % 64);
            }
        }
        for (bank, &c) in sc.iter().enumerate() {
            if c > 0 {
                key[pw + bank / 64] |= 1 << (bank % 64);
            }
        }
    }
    let mut key_to_group: HashMap<&[u64], u32, BuildHasherDefault<WordHasher>> = HashMap::default();
    let mut group_of = vec![0u32; m];
    let mut reps: Vec<usize> = Vec::new(); // first IB of each group
    for i in 0..m {
        let g = *key_to_group
            .entry(&keys[i * kw..(i + 1) * kw])
            .or_insert_with(|| {
                reps.push(i);
                reps.len() as u32 - 1
            });
        group_of[i] = g;
    }
    let ng = reps.len();
    let mut prim = Vec::with_capacity(ng * pw);
    let mut sec = Vec::with_capacity(ng * sw);
    for &i in &reps {
        prim.extend_from_slice(&keys[i * kw..i * kw + pw]);
        sec.extend_from_slice(&keys[i * kw + pw..(i + 1) * kw]);
    }
    drop(key_to_group);
    drop(keys);
    let sets = [Sets::new(prim, pw, pb), Sets::new(sec, sw, sb)];
    // Sparse per-IB vectors for the SD rule: SD of (c ⊎ x)·η needs only Σx, Σx² and
    // the dot product c·x over x's non-zeros.
    let sparse = if opts.scheme == Scheme::Balanced {
        Some((
            SparseVecs::new(inst.blocks.iter().map(|b| &b.mem[..])),
            SparseVecs::new(inst.blocks.iter().map(|b| &b.llc[..])),
        ))
    } else {
        None
    };
    // Availability (DAG): in-degrees and successors (CSR).
    let mut indeg = vec![0u32; m];
    let mut succ_off = vec![0usize; if dag.is_some() { m + 1 } else { 0 }];
    let mut succ: Vec<u32> = Vec::new();
    if let Some(d) = dag {
        for (v, deg) in indeg.iter_mut().enumerate() {
            *deg = d.preds(v).len() as u32;
            for &u in d.preds(v) {
                succ_off[u as usize + 1] += 1;
            }
        }
        for v in 0..m {
            succ_off[v + 1] += succ_off[v];
        }
        succ = vec![0; succ_off[m]];
        let mut fill = succ_off.clone();
        for v in 0..m {
            for &u in d.preds(v) {
                succ[fill[u as usize]] = v as u32;
                fill[u as usize] += 1;
            }
        }
    }
    let mut pool = Pool::new(m, ng, &group_of, &indeg, dag.is_some());
    let mut index = Index::new(&sets, ng);
    for gi in 0..ng {
        if pool.first(gi).is_some() {
            index.group_filled(&sets, gi);
        }
    }

    let mut windows = Vec::new();
    let mut betas = Vec::new();
    let mut seq: Vec<u32> = Vec::with_capacity(m);
    let mut left = m;
    let mut quota = core_quotas(m, n);
    let mut g_prim = vec![0u64; pw];
    let mut g_sec = vec![0u64; sw];
    let mut l_prim = vec![0u64; pw];
    let mut l_sec = vec![0u64; sw];
    while left > 0 {
        // inter-core vectors of this step
        g_prim.iter_mut().for_each(|x| *x = 0);
        g_sec.iter_mut().for_each(|x| *x = 0);
        index.queues[G_PRIM].live = false;
        index.queues[G_SEC].live = false;
        let mut step = Vec::with_capacity(n);
        for quota_c in quota.iter_mut() {
            let cap = w.min(*quota_c);
            let mut win: Vec<usize> = Vec::with_capacity(cap);
            l_prim.iter_mut().for_each(|x| *x = 0);
            l_sec.iter_mut().for_each(|x| *x = 0);
            index.queues[L_PRIM].live = false;
            index.queues[L_SEC].live = false;
            let mut beta = 1.0f64;
            let mut mlp_done = false;
            while win.len() < cap {
                let Some(head) = pool.head() else { break };
                let pick: u32 = if win.is_empty() {
                    head
                } else if win.len() == 1 && opts.scheme == Scheme::Balanced {
                    // SD rule against the first IB of the window, over one
                    // representative (lowest available id) per group.
                    let (sm, sl) = sparse.as_ref().expect("balanced has sparse vectors");
                    let cur = &inst.blocks[win[0]];
                    let cm = Moments::of(&cur.mem);
                    let cl = Moments::of(&cur.llc);
                    let mut best: Option<(f64, u32, f64, f64)> = None;
                    for gi in 0..ng {
                        let Some(x) = pool.first(gi) else { continue };
                        let sdm = sm.sd_with(x as usize, &cur.mem, cm, opts.eta_mem);
                        let sdc = sl.sd_with(x as usize, &cur.llc, cl, opts.eta_llc);
                        let v = sdm + sdc;
                        let better = match best {
                            None => true,
                            Some((bv, bx, ..)) => v < bv - 1e-9 || (v <= bv + 1e-9 && x < bx),
                        };
                        if better {
                            best = Some((v, x, sdm, sdc));
                        }
                    }
                    let (_, x, sdm, sdc) = best.expect("pool not empty");
                    beta = if sdm + sdc > 0.0 {
                        sdm / (sdm + sdc)
                    } else {
                        0.5
                    };
                    x
                } else {
                    let mut chosen = None;
                    if !mlp_done {
                        if (bankset::count(&g_prim) as f64) >= beta * pb as f64 - 1e-9 {
                            mlp_done = true;
                        } else {
                            chosen = index
                                .lazy_pick(G_PRIM, &sets, &pool, &g_prim)
                                .or_else(|| index.lazy_pick(L_PRIM, &sets, &pool, &l_prim));
                            if chosen.is_none() {
                                mlp_done = true;
                            }
                        }
                    }
                    if chosen.is_none() {
                        chosen = index
                            .lazy_pick(G_SEC, &sets, &pool, &g_sec)
                            .or_else(|| index.lazy_pick(L_SEC, &sets, &pool, &l_sec));
                    }
                    chosen.unwrap_or(head)
                };
                // take `pick` (always the lowest available IB of its group)
                let gi = group_of[pick as usize] as usize;
                pool.take(gi, pick);
                if pool.first(gi).is_none() {
                    index.group_emptied(&sets, gi);
                }
                let (gp, gs) = (sets[0].set(gi), sets[1].set(gi));
                bankset::or_into(&mut g_prim, gp);
                bankset::or_into(&mut l_prim, gp);
                bankset::or_into(&mut g_sec, gs);
                bankset::or_into(&mut l_sec, gs);
                win.push(pick as usize);
                seq.push(pick);
                if dag.is_some() {
                    for &s2 in &succ[succ_off[pick as usize]..succ_off[pick as usize + 1]] {
                        indeg[s2 as usize] -= 1;
                        if indeg[s2 as usize] == 0 {
                            let g2 = group_of[s2 as usize] as usize;
                            let was_empty = pool.first(g2).is_none();
                            pool.release(g2, s2);
                            if was_empty {
                                index.group_filled(&sets, g2);
                                // back into every live queue with its size as upper bound
                                for h in [G_PRIM, L_PRIM, G_SEC, L_SEC] {
                                    let q = &mut index.queues[h];
                                    if q.live {
                                        q.push(sets[h / 2].size[g2], g2);
                                    }
                                }
                            }
                        }
                    }
                }
                left -= 1;
            }
            *quota_c -= win.len();
            betas.push(beta);
            step.push(win);
        }
        windows.push(step);
    }
    IbSchedule {
        windows,
        beta: betas,
        seq,
    }
}

/// The Locality-Aware-MLP baseline of dissertation §5.6.1 ("bank-parallelism
/// scheduling in a row-buffer-aware manner, no CLP", after Ding, Tang,
/// Kandemir et al., "Compiler support for optimizing memory bank-level
/// parallelism", MICRO 2014), defined on the same IBs and windows as
/// Algorithm 5 so that only the selection rule differs:
///
/// - LLC-bank vectors are ignored (no CLP) and so is intra-core MLP: the only
///   objective is the inter-core memory-bank vector g⃗ of the step (the banks
///   the cores' windows of the step touch together);
/// - each pick takes an available IB adding the most banks to g⃗;
/// - ties — including "nothing adds a bank" — go to row-buffer locality: the
///   IB that directly follows (in iteration order) the IB this core ran last,
///   when it is available, as consecutive IBs continue the core's streams in
///   the same DRAM rows (row-interleaved mapping, 2 KB rows hold 32 lines);
///   otherwise the lowest-id IB among the best;
/// - the first IB of a window also prefers that successor, else the lowest
///   available IB; windows are filled to W, so the schedule always ends.
///
/// With a DAG only IBs whose predecessors were all picked are available.
/// Cost O(M·G) bank-set operations for M IBs in G distinct bank sets.
pub fn schedule_la_mlp(inst: &IbInstance, dag: Option<&UnitDag>) -> IbSchedule {
    let m = inst.blocks.len();
    let (n, w) = (inst.cores, inst.window);
    let words = bankset::words_for(inst.mem_banks);
    let sets: Vec<Vec<u64>> = inst
        .blocks
        .iter()
        .map(|b| {
            let mut v = vec![0u64; words];
            for (i, &c) in b.mem.iter().enumerate() {
                if c > 0 {
                    v[i / 64] |= 1 << (i % 64);
                }
            }
            v
        })
        .collect();
    // Group IBs with equal sets: gains are computed per group.
    let mut gid: HashMap<&[u64], usize> = HashMap::new();
    let mut groups: Vec<std::collections::BTreeSet<u32>> = Vec::new();
    let mut rep: Vec<usize> = Vec::new();
    let mut group_of = vec![0usize; m];
    let mut indeg = vec![0u32; m];
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); if dag.is_some() { m } else { 0 }];
    if let Some(d) = dag {
        for (v, deg) in indeg.iter_mut().enumerate() {
            *deg = d.preds(v).len() as u32;
            for &u in d.preds(v) {
                succs[u as usize].push(v as u32);
            }
        }
    }
    let mut avail: std::collections::BTreeSet<u32> = std::collections::BTreeSet::new();
    for i in 0..m {
        let g = *gid.entry(&sets[i]).or_insert_with(|| {
            groups.push(std::collections::BTreeSet::new());
            rep.push(i);
            groups.len() - 1
        });
        group_of[i] = g;
        if indeg[i] == 0 {
            avail.insert(i as u32);
            groups[g].insert(i as u32);
        }
    }
    let mut last: Vec<Option<u32>> = vec![None; n];
    let mut windows = Vec::new();
    let mut seq = Vec::with_capacity(m);
    let mut left = m;
    let mut quota = core_quotas(m, n);
    while left > 0 {
        let mut g = vec![0u64; words];
        let mut step = Vec::with_capacity(n);
        for (lastc, quota_c) in last.iter_mut().zip(quota.iter_mut()) {
            let cap = w.min(*quota_c);
            let mut win: Vec<usize> = Vec::with_capacity(cap);
            while win.len() < cap {
                let Some(&lowest) = avail.first() else { break };
                let next = lastc.map(|p| p + 1).filter(|x| avail.contains(x));
                let pick = if win.is_empty() {
                    next.unwrap_or(lowest)
                } else {
                    let mut best = 0usize;
                    let mut best_id = lowest;
                    for (gi, gs) in groups.iter().enumerate() {
                        let Some(&x) = gs.first() else { continue };
                        let gain = bankset::count_new(&sets[rep[gi]], &g);
                        if gain > best || (gain == best && gain > 0 && x < best_id) {
                            best = gain;
                            best_id = x;
                        }
                    }
                    match next {
                        Some(x) if bankset::count_new(&sets[x as usize], &g) == best => x,
                        _ => best_id,
                    }
                };
                avail.remove(&pick);
                groups[group_of[pick as usize]].remove(&pick);
                bankset::or_into(&mut g, &sets[pick as usize]);
                win.push(pick as usize);
                seq.push(pick);
                *lastc = Some(pick);
                if dag.is_some() {
                    for &s2 in &succs[pick as usize] {
                        indeg[s2 as usize] -= 1;
                        if indeg[s2 as usize] == 0 {
                            avail.insert(s2);
                            groups[group_of[s2 as usize]].insert(s2);
                        }
                    }
                }
                left -= 1;
            }
            *quota_c -= win.len();
            step.push(win);
        }
        windows.push(step);
    }
    IbSchedule {
        windows,
        beta: Vec::new(),
        seq,
    }
}

const G_PRIM: usize = 0;
const L_PRIM: usize = 1;
const G_SEC: usize = 2;
const L_SEC: usize = 3;

/// Bank sets of the groups in one role (primary or secondary), flat words.
struct Sets {
    words: Vec<u64>,
    stride: usize,
    banks: usize,
    size: Vec<usize>,
}

impl Sets {
    fn new(words: Vec<u64>, stride: usize, banks: usize) -> Sets {
        let size = words.chunks(stride).map(bankset::count).collect();
        Sets {
            words,
            stride,
            banks,
            size,
        }
    }
    #[inline(always)]
    fn set(&self, g: usize) -> &[u64] {
        &self.words[g * self.stride..(g + 1) * self.stride]
    }
}

/// The available IBs: a bitset with a cursor for the lowest one (the head of
/// the pool) and, per group, its available members lowest first (a cursor into
/// the sorted member list without a DAG; a min-heap with one, where members
/// become available in dependence order).
struct Pool {
    bits: Vec<u64>,
    cursor: usize,
    members: Vec<u32>,
    member_off: Vec<usize>,
    next: Vec<usize>,
    heaps: Vec<BinaryHeap<Reverse<u32>>>,
}

impl Pool {
    fn new(m: usize, ng: usize, group_of: &[u32], indeg: &[u32], with_dag: bool) -> Pool {
        let mut bits = vec![0u64; m.div_ceil(64)];
        let mut member_off = vec![0usize; ng + 1];
        let mut members = Vec::new();
        let mut heaps = Vec::new();
        if with_dag {
            heaps = vec![BinaryHeap::new(); ng];
            for i in 0..m {
                if indeg[i] == 0 {
                    bits[i / 64] |= 1 << (i % 64);
                    heaps[group_of[i] as usize].push(Reverse(i as u32));
                }
            }
        } else {
            for &g in group_of {
                member_off[g as usize + 1] += 1;
            }
            for g in 0..ng {
                member_off[g + 1] += member_off[g];
            }
            members = vec![0u32; m];
            let mut fill = member_off.clone();
            for i in 0..m {
                let g = group_of[i] as usize;
                members[fill[g]] = i as u32;
                fill[g] += 1;
                bits[i / 64] |= 1 << (i % 64);
            }
        }
        Pool {
            bits,
            cursor: 0,
            next: member_off[..ng].to_vec(),
            members,
            member_off,
            heaps,
        }
    }

    /// Lowest available IB.
    #[inline]
    fn head(&mut self) -> Option<u32> {
        while self.cursor < self.bits.len() {
            let x = self.bits[self.cursor];
            if x != 0 {
                return Some((self.cursor * 64) as u32 + x.trailing_zeros());
            }
            self.cursor += 1;
        }
        None
    }

    /// Lowest available IB of group `g`.
    #[inline]
    fn first(&self, g: usize) -> Option<u32> {
        if self.heaps.is_empty() {
            let k = self.next[g];
            (k < self.member_off[g + 1]).then(|| self.members[k])
        } else {
            self.heaps[g].peek().map(|r| r.0)
        }
    }

    /// Removes `ib`, which must be `first(g)`.
    fn take(&mut self, g: usize, ib: u32) {
        debug_assert_eq!(self.first(g), Some(ib));
        if self.heaps.is_empty() {
            self.next[g] += 1;
        } else {
            self.heaps[g].pop();
        }
        self.bits[ib as usize / 64] &= !(1 << (ib % 64));
    }

    /// Makes `ib` (of group `g`) available (DAG only).
    fn release(&mut self, g: usize, ib: u32) {
        self.heaps[g].push(Reverse(ib));
        self.bits[ib as usize / 64] |= 1 << (ib % 64);
        self.cursor = self.cursor.min(ib as usize / 64);
    }
}

/// Bucket queue of (gain upper bound, group) entries, popped in the order of a
/// max-heap on (gain, lowest group first): gains are at most the number of
/// banks, so each gain value has a bitset over the groups. Equal entries are
/// stored once (a duplicate never changes which group the lazy greedy returns).
#[derive(Clone)]
struct Buckets {
    gw: usize,
    bits: Vec<u64>,
    len: Vec<u32>,
    lo: Vec<usize>,
    total: usize,
    top: usize,
    live: bool,
}

impl Buckets {
    fn new(max_key: usize, groups: usize) -> Buckets {
        let gw = groups.div_ceil(64).max(1);
        Buckets {
            gw,
            bits: vec![0; (max_key + 1) * gw],
            len: vec![0; max_key + 1],
            lo: vec![0; max_key + 1],
            total: 0,
            top: 0,
            live: false,
        }
    }

    #[inline]
    fn push(&mut self, key: usize, g: usize) {
        let wi = key * self.gw + g / 64;
        let bit = 1u64 << (g % 64);
        if self.bits[wi] & bit == 0 {
            self.bits[wi] |= bit;
            self.len[key] += 1;
            self.total += 1;
            self.top = self.top.max(key);
            self.lo[key] = self.lo[key].min(g / 64);
        }
    }

    #[inline]
    fn remove(&mut self, key: usize, g: usize) {
        let wi = key * self.gw + g / 64;
        let bit = 1u64 << (g % 64);
        if self.bits[wi] & bit != 0 {
            self.bits[wi] &= !bit;
            self.len[key] -= 1;
            self.total -= 1;
        }
    }

    /// Largest key present.
    #[inline]
    fn peek_key(&mut self) -> Option<usize> {
        if self.total == 0 {
            return None;
        }
        while self.len[self.top] == 0 {
            self.top -= 1;
        }
        Some(self.top)
    }

    /// Removes and returns the entry with the largest key, lowest group first.
    #[inline]
    fn pop(&mut self) -> Option<(usize, usize)> {
        let key = self.peek_key()?;
        let row = &mut self.bits[key * self.gw..(key + 1) * self.gw];
        let mut k = self.lo[key];
        while row[k] == 0 {
            k += 1;
        }
        self.lo[key] = k;
        let g = k * 64 + row[k].trailing_zeros() as usize;
        row[k] &= row[k] - 1;
        self.len[key] -= 1;
        self.total -= 1;
        Some((key, g))
    }

    fn clear(&mut self) {
        self.bits.iter_mut().for_each(|x| *x = 0);
        self.len.iter_mut().for_each(|x| *x = 0);
        self.total = 0;
        self.top = 0;
    }

    fn copy_from(&mut self, o: &Buckets) {
        self.bits.copy_from_slice(&o.bits);
        self.len.copy_from_slice(&o.len);
        self.lo.copy_from_slice(&o.lo);
        self.total = o.total;
        self.top = o.top;
    }
}

/// The selection index: for each covered vector (inter/intra-core ×
/// primary/secondary) a lazy queue of group gains, plus per role the template
/// queue every new queue starts from (each non-empty group keyed by its size) and
/// the union of the non-empty groups' sets (per-bank group counts).
struct Index {
    queues: [Buckets; 4],
    templates: [Buckets; 2],
    bank_groups: [Vec<u32>; 2],
    union: [Vec<u64>; 2],
}

impl Index {
    fn new(sets: &[Sets; 2], ng: usize) -> Index {
        let b = |r: usize| Buckets::new(sets[r].banks, ng);
        Index {
            queues: [b(0), b(0), b(1), b(1)],
            templates: [b(0), b(1)],
            bank_groups: [vec![0; sets[0].banks], vec![0; sets[1].banks]],
            union: [vec![0; sets[0].stride], vec![0; sets[1].stride]],
        }
    }

    // `r` (0 = primary, 1 = secondary) indexes `sets` and three per-resource fields.
    #[allow(clippy::needless_range_loop)]
    fn group_filled(&mut self, sets: &[Sets; 2], g: usize) {
        for r in 0..2 {
            self.templates[r].push(sets[r].size[g], g);
            for (wi, &x) in sets[r].set(g).iter().enumerate() {
                let mut x = x;
                while x != 0 {
                    let b = wi * 64 + x.trailing_zeros() as usize;
                    x &= x - 1;
                    self.bank_groups[r][b] += 1;
                    if self.bank_groups[r][b] == 1 {
                        self.union[r][wi] |= 1 << (b % 64);
                    }
                }
            }
        }
    }

    // `r` (0 = primary, 1 = secondary) indexes `sets` and three per-resource fields.
    #[allow(clippy::needless_range_loop)]
    fn group_emptied(&mut self, sets: &[Sets; 2], g: usize) {
        for r in 0..2 {
            self.templates[r].remove(sets[r].size[g], g);
            for (wi, &x) in sets[r].set(g).iter().enumerate() {
                let mut x = x;
                while x != 0 {
                    let b = wi * 64 + x.trailing_zeros() as usize;
                    x &= x - 1;
                    self.bank_groups[r][b] -= 1;
                    if self.bank_groups[r][b] == 0 {
                        self.union[r][wi] &= !(1 << (b % 64));
                    }
                }
            }
        }
    }

    /// Lazy greedy (gains only shrink while `covered` grows): the lowest available
    /// IB of the group adding most bits to `covered`, or None when nothing adds a
    /// bit. A queue is built (copied from its role's template) on first use after
    /// its vector was reset.
    #[inline]
    fn lazy_pick(
        &mut self,
        h: usize,
        sets: &[Sets; 2],
        pool: &Pool,
        covered: &[u64],
    ) -> Option<u32> {
        let r = h / 2;
        let q = &mut self.queues[h];
        if !q.live {
            q.copy_from(&self.templates[r]);
            q.live = true;
        }
        if q.total == 0 {
            return None;
        }
        if bankset::count_new(&self.union[r], covered) == 0 {
            // No available group adds a bit: the lazy greedy would pop and drop
            // every entry.
            q.clear();
            return None;
        }
        while let Some((_, gi)) = q.pop() {
            let Some(first) = pool.first(gi) else {
                continue; // re-pushed when it gets an available IB again
            };
            let gain = bankset::count_new(sets[r].set(gi), covered);
            if gain == 0 {
                continue; // covered only grows while this queue lives
            }
            let top = q.peek_key().unwrap_or(0);
            q.push(gain, gi);
            if gain >= top {
                return Some(first);
            }
        }
        None
    }
}

/// (Σc, Σc²) of a count vector.
#[derive(Clone, Copy)]
struct Moments(f64, f64);

impl Moments {
    fn of(c: &[u32]) -> Moments {
        c.iter().fold(Moments(0.0, 0.0), |m, &x| {
            let x = x as f64;
            Moments(m.0 + x, m.1 + x * x)
        })
    }
}

/// Non-zeros of every IB's count vector (CSR) with Σx and Σx².
struct SparseVecs {
    off: Vec<usize>,
    idx: Vec<u32>,
    val: Vec<f64>,
    sum: Vec<f64>,
    sumsq: Vec<f64>,
}

impl SparseVecs {
    fn new<'a>(vs: impl Iterator<Item = &'a [u32]>) -> Self {
        let mut s = SparseVecs {
            off: vec![0],
            idx: Vec::new(),
            val: Vec::new(),
            sum: Vec::new(),
            sumsq: Vec::new(),
        };
        for v in vs {
            let start = s.idx.len();
            for (i, &c) in v.iter().enumerate() {
                if c > 0 {
                    s.idx.push(i as u32);
                    s.val.push(c as f64);
                }
            }
            let nz = &s.val[start..];
            s.sum.push(nz.iter().sum());
            s.sumsq.push(nz.iter().map(|x| x * x).sum());
            s.off.push(s.idx.len());
        }
        s
    }

    /// Population SD of (c + x_ib)·η, equal to `sd_of_sum(c, x_ib, η)`.
    fn sd_with(&self, ib: usize, c: &[u32], cm: Moments, eta: f64) -> f64 {
        let n = c.len() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let (cs, css) = (cm.0, cm.1);
        let r = self.off[ib]..self.off[ib + 1];
        let dot: f64 = self.idx[r.clone()]
            .iter()
            .zip(&self.val[r])
            .map(|(&i, &x)| c[i as usize] as f64 * x)
            .sum();
        let sum = cs + self.sum[ib];
        let sumsq = css + 2.0 * dot + self.sumsq[ib];
        let var = (sumsq / n - (sum / n).powi(2)).max(0.0);
        var.sqrt() * eta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_5_1() {
        assert_eq!(iw_size(1024, 2.0, 4), 128);
        assert_eq!(iw_size(10, 20.0, 4), 1);
    }

    /// Hand-computed Locality-Aware-MLP choice: 2 cores, W = 2, 4 banks.
    /// IB banks: 0 {0}, 1 {0}, 2 {1}, 3 {2,3}, 4 {0}, 5 {1}.
    /// Step 0, core 0: 0 (lowest), then the most new banks for g = {0}:
    /// IB 3 adds 2 → [0, 3], g = {0,2,3}. Core 1: first IB prefers the
    /// successor of its last (none) → lowest 1; then g = {0,2,3}: only IBs 2
    /// and 5 add bank 1 (gain 1), lowest id 2 → [1, 2]. Step 1, core 0: last
    /// was 3, successor 4 available → 4, and its quota of 3 IBs is reached →
    /// [4]. Core 1: last was 2, successor 3 taken → lowest available → [5].
    #[test]
    fn la_mlp_hand_computed() {
        let b = |banks: &[usize]| {
            let mut mem = vec![0u32; 4];
            for &x in banks {
                mem[x] = 1;
            }
            BlockVectors {
                mem,
                llc: vec![7, 0],
            }
        };
        let i = IbInstance {
            cores: 2,
            window: 2,
            mem_banks: 4,
            llc_banks: 2,
            blocks: vec![b(&[0]), b(&[0]), b(&[1]), b(&[2, 3]), b(&[0]), b(&[1])],
        };
        let o = MlpOptions {
            scheme: Scheme::LaMlp,
            ..Default::default()
        };
        let s = schedule_ibs(&i, &o, None).unwrap();
        assert_eq!(
            s.windows,
            vec![vec![vec![0, 3], vec![1, 2]], vec![vec![4], vec![5]]]
        );
        assert_eq!(s.seq, vec![0, 3, 1, 2, 4, 5]);
        // Row-buffer locality: one core, W = 2, IBs 0 {0}, 1 {0}, 2 {1}, 3 {1}.
        // Step 0: 0, then 2 (adds bank 1). Step 1 starts with 3, the successor
        // of the core's last IB (not the lowest id 1); then 1 adds bank 0.
        let j = IbInstance {
            cores: 1,
            window: 2,
            mem_banks: 4,
            llc_banks: 2,
            blocks: vec![b(&[0]), b(&[0]), b(&[1]), b(&[1])],
        };
        let s = schedule_ibs(&j, &o, None).unwrap();
        assert_eq!(s.windows, vec![vec![vec![0, 2]], vec![vec![3, 1]]]);
    }

    /// Every scheme gives each core the Default's number of IBs: 7 IBs on 3
    /// cores with W = 2 is 3, 2, 2 — without the quota the second step would
    /// fill core 0's window to 2 (4 IBs) and leave core 2 with 1.
    #[test]
    fn every_scheme_keeps_the_default_load_balance() {
        assert_eq!(core_quotas(7, 3), vec![3, 2, 2]);
        assert_eq!(core_quotas(2, 3), vec![1, 1, 0]);
        assert_eq!(core_quotas(5, 0), Vec::<usize>::new());
        let blocks = (0..7)
            .map(|i| BlockVectors {
                mem: (0..4).map(|b| u32::from(b == i % 4)).collect(),
                llc: (0..3).map(|b| u32::from(b == (i * 2) % 3)).collect(),
            })
            .collect();
        let i = IbInstance {
            cores: 3,
            window: 2,
            mem_banks: 4,
            llc_banks: 3,
            blocks,
        };
        for scheme in [
            Scheme::Default,
            Scheme::MlpFirst,
            Scheme::ClpFirst,
            Scheme::Balanced,
            Scheme::LaMlp,
        ] {
            let o = MlpOptions {
                scheme,
                ..Default::default()
            };
            let s = schedule_ibs(&i, &o, None).unwrap();
            let counts: Vec<usize> = s.per_core(3).iter().map(Vec::len).collect();
            assert_eq!(counts, vec![3, 2, 2], "{scheme:?}");
            let mut all: Vec<u32> = s.per_core(3).concat();
            all.sort_unstable();
            assert_eq!(all, (0..7).collect::<Vec<u32>>(), "{scheme:?}");
        }
    }

    #[test]
    fn default_round_robin() {
        let b = BlockVectors {
            mem: vec![1],
            llc: vec![1],
        };
        let i = IbInstance {
            cores: 2,
            window: 2,
            mem_banks: 1,
            llc_banks: 1,
            blocks: vec![b; 6],
        };
        let o = MlpOptions {
            scheme: Scheme::Default,
            ..Default::default()
        };
        let s = schedule_ibs(&i, &o, None).unwrap();
        assert_eq!(
            s.windows,
            vec![vec![vec![0, 2], vec![1, 3]], vec![vec![4], vec![5]]]
        );
    }
}
