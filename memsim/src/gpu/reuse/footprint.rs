//! LaPerm's shared-footprint ratios (LaPerm §III, Fig. 2; digest §2.4), in 128 B
//! blocks, from a tagged trace:
//! - parent–child `pc / c` per direct parent TB: `c` = distinct blocks of all its
//!   child TBs, `pc` = those the parent TB also touched;
//! - child–sibling `cos / cs` per child TB: `cs` = distinct blocks of its siblings
//!   (the other child TBs of the same direct parent TB), `cos` = those the child
//!   TB also touched (normalised by `cs`, as the paper);
//! - parent–parent: the same among the TBs of each host-launched kernel.
//!
//! Each is the mean over the TBs that have the relation (paper: 38.4%, 30.5%, 9.3%).

use super::trace::Trace;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// The three ratios and how many TBs each averages.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Footprint {
    /// Mean parent–child ratio.
    pub parent_child: f64,
    /// Mean child–sibling ratio.
    pub child_sibling: f64,
    /// Mean ratio among parent TBs of host kernels.
    pub parent_parent: f64,
    /// Parent TBs with children.
    pub parents: usize,
    /// Child TBs with siblings.
    pub children: usize,
    /// Host-kernel TBs in kernels of two or more TBs.
    pub host_tbs: usize,
}

type Tb = (u32, u64);

/// `cos / cs` for every member of `group` (TB -> blocks): shared with the union
/// of the others, over that union's size.
fn shared_with_others(group: &[&HashSet<u64>]) -> Vec<f64> {
    let mut count: HashMap<u64, u32> = HashMap::new();
    for s in group {
        for &b in s.iter() {
            *count.entry(b).or_insert(0) += 1;
        }
    }
    let all = count.len();
    group
        .iter()
        .map(|s| {
            let shared = s.iter().filter(|b| count[b] >= 2).count();
            let only_mine = s.len() - shared;
            let cs = all - only_mine;
            if cs == 0 {
                0.0
            } else {
                shared as f64 / cs as f64
            }
        })
        .collect()
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The ratios of `trace`.
pub fn footprint(trace: &Trace) -> Footprint {
    let mut blocks: HashMap<Tb, HashSet<u64>> = HashMap::new();
    for a in &trace.accesses {
        blocks.entry((a.kernel, a.tb)).or_default().insert(a.line);
    }
    // child TBs of each direct parent TB; TBs of each host kernel
    let mut children: HashMap<Tb, Vec<Tb>> = HashMap::new();
    let mut host: HashMap<u32, Vec<Tb>> = HashMap::new();
    let mut tbs: Vec<Tb> = blocks.keys().copied().collect();
    tbs.sort_unstable();
    for &tb in &tbs {
        match trace.parents.get(tb.0 as usize).copied().flatten() {
            Some(p) => children.entry((p.kernel, p.tb)).or_default().push(tb),
            None => host.entry(tb.0).or_default().push(tb),
        }
    }
    let empty = HashSet::new();
    let mut pc = Vec::new();
    let mut cs = Vec::new();
    let mut parents: Vec<&Tb> = children.keys().collect();
    parents.sort_unstable();
    for p in parents {
        let kids = &children[p];
        let pb = blocks.get(p).unwrap_or(&empty);
        let c: HashSet<u64> = kids
            .iter()
            .flat_map(|k| blocks[k].iter().copied())
            .collect();
        if !c.is_empty() {
            pc.push(c.iter().filter(|b| pb.contains(b)).count() as f64 / c.len() as f64);
        }
        if kids.len() >= 2 {
            let g: Vec<&HashSet<u64>> = kids.iter().map(|k| &blocks[k]).collect();
            cs.extend(shared_with_others(&g));
        }
    }
    let mut pp = Vec::new();
    let mut hosts: Vec<&u32> = host.keys().collect();
    hosts.sort_unstable();
    for k in hosts {
        let members = &host[k];
        if members.len() >= 2 {
            let g: Vec<&HashSet<u64>> = members.iter().map(|t| &blocks[t]).collect();
            pp.extend(shared_with_others(&g));
        }
    }
    Footprint {
        parent_child: mean(&pc),
        child_sibling: mean(&cs),
        parent_parent: mean(&pp),
        parents: pc.len(),
        children: cs.len(),
        host_tbs: pp.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::trace::{Access, Trace};
    use super::*;
    use crate::gpu::dp::ParentInfo;

    fn acc(kernel: u32, tb: u64, line: u64) -> Access {
        Access {
            line,
            kernel,
            tb,
            warp: 0,
            sm: 0,
            write: false,
        }
    }

    fn parent(kernel: u32, tb: u64) -> Option<ParentInfo> {
        Some(ParentInfo {
            kernel,
            tb,
            warp: 0,
            lane: 0,
            sm: 0,
        })
    }

    #[test]
    fn hand_computed_ratios() {
        // host kernel 0: TB0 {1,2,3,4}, TB1 {4,5}
        // kernel 1 (child of TB0): TB0 {1,2,9}, TB1 {9,10}
        let mut a = Vec::new();
        for l in [1, 2, 3, 4, 4] {
            a.push(acc(0, 0, l));
        }
        for l in [4, 5] {
            a.push(acc(0, 1, l));
        }
        for l in [1, 2, 9] {
            a.push(acc(1, 0, l));
        }
        for l in [9, 10] {
            a.push(acc(1, 1, l));
        }
        let t = Trace {
            accesses: a,
            parents: vec![None, parent(0, 0)],
        };
        let f = footprint(&t);
        // c = {1,2,9,10}, pc = {1,2}: 0.5
        assert!((f.parent_child - 0.5).abs() < 1e-12);
        // child TB0: cs = {9,10}, cos = {9}: 0.5; child TB1: cs = {1,2,9}, cos = {9}: 1/3
        assert!((f.child_sibling - (0.5 + 1.0 / 3.0) / 2.0).abs() < 1e-12);
        // host TB0: others {4,5}, shared {4}: 0.5; TB1: others {1,2,3,4}, shared {4}: 0.25
        assert!((f.parent_parent - 0.375).abs() < 1e-12);
        assert_eq!((f.parents, f.children, f.host_tbs), (1, 2, 2));
    }
}
