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
//! Speed: IBs with identical (memory set, LLC set) pairs are grouped, and each
//! covered vector (inter/intra-core × memory/LLC) has a lazy max-heap of group
//! gains (gains only shrink while a vector grows, so a popped group whose fresh
//! gain still tops the heap is the best); the Balanced SD uses sparse dot
//! products. Typical cost O(M log G) plus one heap build per step/window, instead
//! of the O(N·M²) of the printed algorithm.

use crate::bankset;
use crate::deps::UnitDag;
use crate::error::{inst, invalid};
use crate::Result;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

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

/// Eq. 5.1: IW size = C / (D · n) with C the LLC capacity in cache lines, D the
/// data-set size (cache lines per IB) and n the number of cores; at least 1.
pub fn iw_size(llc_lines: u64, ds_lines: f64, cores: usize) -> usize {
    if ds_lines <= 0.0 || cores == 0 {
        return 1;
    }
    ((llc_lines as f64 / (ds_lines * cores as f64)).floor() as usize).max(1)
}

struct Group {
    prim: Vec<u64>,
    sec: Vec<u64>,
    prim_count: usize,
    avail: BTreeSet<u32>,
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
    // Primary / secondary roles.
    let swap = opts.scheme == Scheme::ClpFirst;
    let (pb, sb) = if swap {
        (inst.llc_banks, inst.mem_banks)
    } else {
        (inst.mem_banks, inst.llc_banks)
    };
    let (pw, sw) = (bankset::words_for(pb), bankset::words_for(sb));
    let to_words = |counts: &[u32], words: usize| {
        let mut v = vec![0u64; words];
        for (b, &c) in counts.iter().enumerate() {
            if c > 0 {
                v[b / 64] |= 1 << (b % 64);
            }
        }
        v
    };
    // Group IBs by their (primary set, secondary set).
    let mut key_to_group: HashMap<(Vec<u64>, Vec<u64>), usize> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of = vec![0usize; m];
    for (i, b) in inst.blocks.iter().enumerate() {
        let (pc, sc) = if swap {
            (&b.llc, &b.mem)
        } else {
            (&b.mem, &b.llc)
        };
        let key = (to_words(pc, pw), to_words(sc, sw));
        let g = *key_to_group.entry(key.clone()).or_insert_with(|| {
            groups.push(Group {
                prim_count: bankset::count(&key.0),
                prim: key.0,
                sec: key.1,
                avail: BTreeSet::new(),
            });
            groups.len() - 1
        });
        group_of[i] = g;
    }
    let sec_count: Vec<usize> = groups.iter().map(|g| bankset::count(&g.sec)).collect();
    // Sparse per-IB vectors for the SD rule: SD of (c ⊎ x)·η needs only Σx, Σx² and
    // the dot product c·x over x's non-zeros.
    let sparse: Vec<(SparseVec, SparseVec)> = if opts.scheme == Scheme::Balanced {
        inst.blocks
            .iter()
            .map(|b| (SparseVec::new(&b.mem), SparseVec::new(&b.llc)))
            .collect()
    } else {
        Vec::new()
    };

    // Availability (DAG).
    let mut indeg = vec![0u32; m];
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); if dag.is_some() { m } else { 0 }];
    if let Some(d) = dag {
        for v in 0..m {
            indeg[v] = d.preds(v).len() as u32;
            for &u in d.preds(v) {
                succs[u as usize].push(v as u32);
            }
        }
    }
    let mut avail: BTreeSet<u32> = BTreeSet::new();
    for i in 0..m {
        if indeg[i] == 0 {
            avail.insert(i as u32);
            groups[group_of[i]].avail.insert(i as u32);
        }
    }

    let mut st = State {
        groups,
        avail,
        heaps: [None, None, None, None],
    };
    let mut windows = Vec::new();
    let mut betas = Vec::new();
    let mut seq: Vec<u32> = Vec::with_capacity(m);
    let mut left = m;
    while left > 0 {
        let mut g_prim = vec![0u64; pw]; // inter-core vectors of this step
        let mut g_sec = vec![0u64; sw];
        st.heaps[G_PRIM] = None;
        st.heaps[G_SEC] = None;
        let mut step = Vec::with_capacity(n);
        for _core in 0..n {
            let mut win: Vec<usize> = Vec::with_capacity(w.min(left));
            let mut l_prim = vec![0u64; pw];
            let mut l_sec = vec![0u64; sw];
            st.heaps[L_PRIM] = None;
            st.heaps[L_SEC] = None;
            let mut beta = 1.0f64;
            let mut mlp_done = false;
            while win.len() < w {
                let Some(&head) = st.avail.first() else { break };
                let pick: u32 = if win.is_empty() {
                    head
                } else if win.len() == 1 && opts.scheme == Scheme::Balanced {
                    // SD rule against the first IB of the window, over one
                    // representative (lowest id) per group.
                    let cur = &inst.blocks[win[0]];
                    let cm = Moments::of(&cur.mem);
                    let cl = Moments::of(&cur.llc);
                    let mut best: Option<(f64, u32, f64, f64)> = None;
                    for g in st.groups.iter() {
                        let Some(&x) = g.avail.first() else { continue };
                        let (sm, sc) = &sparse[x as usize];
                        let sdm = sm.sd_with(&cur.mem, cm, opts.eta_mem);
                        let sdc = sc.sd_with(&cur.llc, cl, opts.eta_llc);
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
                            chosen = st
                                .lazy_pick(G_PRIM, &g_prim, false)
                                .or_else(|| st.lazy_pick(L_PRIM, &l_prim, false));
                            if chosen.is_none() {
                                mlp_done = true;
                            }
                        }
                    }
                    if chosen.is_none() {
                        chosen = st
                            .lazy_pick(G_SEC, &g_sec, true)
                            .or_else(|| st.lazy_pick(L_SEC, &l_sec, true));
                    }
                    chosen.unwrap_or(head)
                };
                // take `pick`
                st.avail.remove(&pick);
                let gi = group_of[pick as usize];
                st.groups[gi].avail.remove(&pick);
                {
                    let gr = &st.groups[gi];
                    bankset::or_into(&mut g_prim, &gr.prim);
                    bankset::or_into(&mut l_prim, &gr.prim);
                    bankset::or_into(&mut g_sec, &gr.sec);
                    bankset::or_into(&mut l_sec, &gr.sec);
                }
                win.push(pick as usize);
                seq.push(pick);
                if dag.is_some() {
                    for k in 0..succs[pick as usize].len() {
                        let s2 = succs[pick as usize][k];
                        indeg[s2 as usize] -= 1;
                        if indeg[s2 as usize] == 0 {
                            st.avail.insert(s2);
                            let g2 = group_of[s2 as usize];
                            let was_empty = st.groups[g2].avail.is_empty();
                            st.groups[g2].avail.insert(s2);
                            if was_empty {
                                // back into every live heap with its size as upper bound
                                let (pc, sc2) = (st.groups[g2].prim_count, sec_count[g2]);
                                for (h, key) in
                                    [(G_PRIM, pc), (L_PRIM, pc), (G_SEC, sc2), (L_SEC, sc2)]
                                {
                                    if let Some(heap) = st.heaps[h].as_mut() {
                                        heap.push((key, Reverse(g2)));
                                    }
                                }
                            }
                        }
                    }
                }
                left -= 1;
            }
            betas.push(beta);
            step.push(win);
        }
        windows.push(step);
    }
    Ok(IbSchedule {
        windows,
        beta: betas,
        seq,
    })
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
    let mut groups: Vec<BTreeSet<u32>> = Vec::new();
    let mut rep: Vec<usize> = Vec::new();
    let mut group_of = vec![0usize; m];
    let mut indeg = vec![0u32; m];
    let mut succs: Vec<Vec<u32>> = vec![Vec::new(); if dag.is_some() { m } else { 0 }];
    if let Some(d) = dag {
        for v in 0..m {
            indeg[v] = d.preds(v).len() as u32;
            for &u in d.preds(v) {
                succs[u as usize].push(v as u32);
            }
        }
    }
    let mut avail: BTreeSet<u32> = BTreeSet::new();
    for i in 0..m {
        let g = *gid.entry(&sets[i]).or_insert_with(|| {
            groups.push(BTreeSet::new());
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
    while left > 0 {
        let mut g = vec![0u64; words];
        let mut step = Vec::with_capacity(n);
        for (c, lastc) in last.iter_mut().enumerate() {
            let _ = c;
            let mut win: Vec<usize> = Vec::with_capacity(w.min(left));
            while win.len() < w {
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

type GainHeap = BinaryHeap<(usize, Reverse<usize>)>;

struct State {
    groups: Vec<Group>,
    avail: BTreeSet<u32>,
    /// Lazy max-heaps of (gain upper bound, group) for the four covered vectors
    /// (inter/intra-core × primary/secondary); built on first use, dropped when
    /// their vector is reset (new step / new window).
    heaps: [Option<GainHeap>; 4],
}

impl State {
    /// Lazy greedy (gains only shrink while `covered` grows): the available IB of
    /// the group adding most bits to `covered`, or None when nothing adds a bit.
    fn lazy_pick(&mut self, h: usize, covered: &[u64], secondary: bool) -> Option<u32> {
        fn set(g: &Group, secondary: bool) -> &[u64] {
            if secondary {
                &g.sec
            } else {
                &g.prim
            }
        }
        let groups = &self.groups;
        let heap = self.heaps[h].get_or_insert_with(|| {
            groups
                .iter()
                .enumerate()
                .filter(|(_, g)| !g.avail.is_empty())
                .map(|(i, g)| (bankset::count(set(g, secondary)), Reverse(i)))
                .collect()
        });
        while let Some((_, Reverse(gi))) = heap.pop() {
            let g = &groups[gi];
            if g.avail.is_empty() {
                continue; // re-pushed when it gets an available IB again
            }
            let gain = bankset::count_new(set(g, secondary), covered);
            if gain == 0 {
                continue; // covered only grows while this heap lives
            }
            let top = heap.peek().map_or(0, |&(k, _)| k);
            heap.push((gain, Reverse(gi)));
            if gain >= top {
                return g.avail.first().copied();
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

/// Non-zeros of a count vector with Σx and Σx².
struct SparseVec {
    nz: Vec<(u32, f64)>,
    sum: f64,
    sumsq: f64,
}

impl SparseVec {
    fn new(v: &[u32]) -> Self {
        let nz: Vec<(u32, f64)> = v
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| (i as u32, c as f64))
            .collect();
        SparseVec {
            sum: nz.iter().map(|x| x.1).sum(),
            sumsq: nz.iter().map(|x| x.1 * x.1).sum(),
            nz,
        }
    }

    /// Population SD of (c + self)·η, equal to `sd_of_sum(c, self, η)`.
    fn sd_with(&self, c: &[u32], cm: Moments, eta: f64) -> f64 {
        let n = c.len() as f64;
        if n == 0.0 {
            return 0.0;
        }
        let (cs, css) = (cm.0, cm.1);
        let dot: f64 = self.nz.iter().map(|&(i, x)| c[i as usize] as f64 * x).sum();
        let sum = cs + self.sum;
        let sumsq = css + 2.0 * dot + self.sumsq;
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
    /// was 3, successor 4 available → 4; then g = {0}: 5 adds bank 1 → [4, 5].
    /// Core 1 gets nothing left.
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
            vec![vec![vec![0, 3], vec![1, 2]], vec![vec![4, 5], vec![]]]
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
