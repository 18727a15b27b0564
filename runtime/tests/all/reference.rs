//! Frozen reference implementations of Algorithm 4 and Algorithm 5: the
//! straightforward versions the optimized `weft_runtime::blp::schedule_blp` and
//! `weft_runtime::mlp::schedule_ibs` replaced. The differential property tests in
//! `props.rs` check that the optimized schedulers return exactly the same
//! schedules (same picks, same seeded tie-breaks, same β).

#![allow(clippy::all)]

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};
use weft_runtime::bankset;
use weft_runtime::blp::{BlpOptions, CoreOrder, SlabInstance, SlotSchedule, TieBreak};
use weft_runtime::deps::UnitDag;
use weft_runtime::mlp::{IbInstance, IbSchedule, MlpOptions, Scheme};
use weft_runtime::Result;

fn invalid(s: impl Into<String>) -> weft_runtime::RuntimeError {
    weft_runtime::RuntimeError::InvalidArgument(s.into())
}

/// Small deterministic generator (SplitMix64) for the seeded tie-breaks.
#[derive(Clone, Debug)]
struct SplitMix(pub u64);
impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Runs Algorithm 4 (with the variants selected in `opts`). With `dag` (nodes =
/// global slab ids, see [`SlabInstance::global_id`]) only slabs whose
/// predecessors all ran in earlier slots are candidates.
pub fn reference_blp(
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
            return Err(weft_runtime::RuntimeError::CyclicDependences(stuck));
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

struct Group {
    prim: Vec<u64>,
    sec: Vec<u64>,
    prim_count: usize,
    avail: BTreeSet<u32>,
}

/// Runs the selected scheme over `inst` (Algorithm 5 or the Default baseline).
pub fn reference_ibs(
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
    let mut quota = weft_runtime::mlp::core_quotas(m, n);
    while left > 0 {
        let mut g_prim = vec![0u64; pw]; // inter-core vectors of this step
        let mut g_sec = vec![0u64; sw];
        st.heaps[G_PRIM] = None;
        st.heaps[G_SEC] = None;
        let mut step = Vec::with_capacity(n);
        for quota_c in quota.iter_mut() {
            let cap = w.min(*quota_c);
            let mut win: Vec<usize> = Vec::with_capacity(cap);
            let mut l_prim = vec![0u64; pw];
            let mut l_sec = vec![0u64; sw];
            st.heaps[L_PRIM] = None;
            st.heaps[L_SEC] = None;
            let mut beta = 1.0f64;
            let mut mlp_done = false;
            while win.len() < cap {
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
            *quota_c -= win.len();
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
