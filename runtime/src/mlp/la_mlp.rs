//! Locality-Aware MLP (LA-MLP): the row-locality-preserving variant of
//! Algorithm 5 (module docs of [`crate::mlp`]).

use super::*;

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
