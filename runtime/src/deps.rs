//! Runtime dependence check and unit dependence DAGs (slab DAG of §4.4.6,
//! iteration-block DAG of §5.5.4), plus synchronisation-point pruning.
//!
//! Units (slabs or iteration blocks) are numbered in the original sequential
//! iteration order. From the inspector's accesses we find, at a granularity of
//! [`GRANULE`] bytes, every pair of units where one writes what the other reads or
//! writes, and add an edge from the earlier unit to the later one (RAW, WAR and
//! WAW). Executing the units in any order that respects these edges, each unit's
//! iterations in increasing order, gives the same result as the sequential loop.
//! Only the nearest conflicting writer/readers are linked (the rest is implied
//! transitively). Invariant: every edge goes from a lower to a higher unit id, so
//! the graph is acyclic by construction.
//!
//! [`sync_points`] turns a DAG plus a per-core schedule into the cross-core waits
//! the executor performs, dropping every wait already implied by program order on
//! a core and by other kept waits (vector clocks over the schedule; this is the
//! "transitive closure based synchronization minimization" of §5.5.4).

use crate::error::invalid;
use crate::Result;
use petgraph::graph::{DiGraph, NodeIndex};

/// Conflict-detection granularity in bytes (4: distinct `float`/`int` elements
/// never alias; a `double` covers two granules).
pub const GRANULE: u64 = 4;

/// One recorded access of an inspector: which unit made it and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Unit (slab or IB) id in original order.
    pub unit: u32,
    /// Byte address.
    pub addr: u64,
    /// Size in bytes (at least 1).
    pub size: u32,
    /// Whether the access writes.
    pub write: bool,
}

/// Dependence DAG over units `0..len()`.
#[derive(Clone, Debug)]
pub struct UnitDag {
    graph: DiGraph<u32, ()>,
    preds: Vec<Vec<u32>>,
}

impl UnitDag {
    /// Graph without edges over `n` units.
    pub fn empty(n: usize) -> Self {
        let mut graph = DiGraph::with_capacity(n, 0);
        for i in 0..n {
            graph.add_node(i as u32);
        }
        UnitDag {
            graph,
            preds: vec![Vec::new(); n],
        }
    }

    /// Graph from explicit edges `(from, to)`; rejects out-of-range ids,
    /// self-loops and cycles.
    pub fn from_edges(n: usize, edges: &[(u32, u32)]) -> Result<Self> {
        let mut dag = Self::empty(n);
        let mut e: Vec<(u32, u32)> = edges.to_vec();
        e.sort_unstable();
        e.dedup();
        for &(a, b) in &e {
            if a as usize >= n || b as usize >= n {
                return Err(invalid(format!(
                    "edge ({a}, {b}) out of range (units: {n})"
                )));
            }
            if a == b {
                return Err(crate::RuntimeError::CyclicDependences(a as usize));
            }
            dag.graph
                .add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), ());
            dag.preds[b as usize].push(a);
        }
        if let Err(c) = petgraph::algo::toposort(&dag.graph, None) {
            return Err(crate::RuntimeError::CyclicDependences(c.node_id().index()));
        }
        Ok(dag)
    }

    /// Runtime dependence check: builds the DAG of `n` units from their accesses.
    pub fn from_accesses(n: usize, accesses: &[Access]) -> Result<Self> {
        let granules = |a: &Access| {
            let first = a.addr / GRANULE;
            let last = (a.addr + a.size.max(1) as u64 - 1) / GRANULE;
            first..=last
        };
        let mut written: Vec<u64> = Vec::new();
        for a in accesses {
            if a.unit as usize >= n {
                return Err(invalid(format!("access names unit {} of {n}", a.unit)));
            }
            if a.write {
                written.extend(granules(a));
            }
        }
        written.sort_unstable();
        written.dedup();
        if written.is_empty() {
            return Ok(Self::empty(n));
        }
        // (granule, unit, write) for every access to a written granule.
        let mut touch: Vec<(u64, u32, bool)> = Vec::new();
        for a in accesses {
            for g in granules(a) {
                if written.binary_search(&g).is_ok() {
                    touch.push((g, a.unit, a.write));
                }
            }
        }
        touch.sort_unstable();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut i = 0;
        while i < touch.len() {
            let g = touch[i].0;
            let mut last_writer: Option<u32> = None;
            let mut readers: Vec<u32> = Vec::new();
            while i < touch.len() && touch[i].0 == g {
                let u = touch[i].1;
                // all accesses of unit u to granule g
                let mut w = false;
                while i < touch.len() && touch[i].0 == g && touch[i].1 == u {
                    w |= touch[i].2;
                    i += 1;
                }
                if let Some(lw) = last_writer {
                    if lw != u {
                        edges.push((lw, u));
                    }
                }
                if w {
                    for &r in &readers {
                        if r != u {
                            edges.push((r, u));
                        }
                    }
                    readers.clear();
                    last_writer = Some(u);
                } else {
                    readers.push(u);
                }
            }
        }
        Self::from_edges(n, &edges)
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        self.preds.len()
    }
    /// True when there are no units.
    pub fn is_empty(&self) -> bool {
        self.preds.is_empty()
    }
    /// Number of dependence edges.
    pub fn num_edges(&self) -> usize {
        self.graph.edge_count()
    }
    /// Whether no two units conflict (then no DAG is needed).
    pub fn has_no_edges(&self) -> bool {
        self.graph.edge_count() == 0
    }
    /// Direct predecessors of unit `u`.
    pub fn preds(&self, u: usize) -> &[u32] {
        &self.preds[u]
    }
    /// The underlying petgraph graph (node weight = unit id).
    pub fn graph(&self) -> &DiGraph<u32, ()> {
        &self.graph
    }
    /// All edges `(from, to)`.
    pub fn edges(&self) -> Vec<(u32, u32)> {
        let mut e: Vec<(u32, u32)> = self
            .preds
            .iter()
            .enumerate()
            .flat_map(|(v, ps)| ps.iter().map(move |&p| (p, v as u32)))
            .collect();
        e.sort_unstable();
        e
    }
}

/// Cross-core waits for executing `per_core` (each core's units in order) under
/// `dag`. `seq` must be a global order of all units in which every core's list
/// appears as a subsequence and every edge goes forward (the scheduler's pick
/// order); it guarantees the waits cannot deadlock. Returns `waits[u]` = units
/// `u` must wait for before starting. Errors if the schedule breaks a dependence.
pub fn sync_points(dag: &UnitDag, per_core: &[Vec<u32>], seq: &[u32]) -> Result<Vec<Vec<u32>>> {
    let n = dag.len();
    let p = per_core.len();
    const NONE: u32 = u32::MAX;
    let mut core = vec![NONE; n];
    let mut pos = vec![0u32; n];
    for (c, list) in per_core.iter().enumerate() {
        for (i, &u) in list.iter().enumerate() {
            if u as usize >= n || core[u as usize] != NONE {
                return Err(invalid(format!("unit {u} scheduled twice or out of range")));
            }
            core[u as usize] = c as u32;
            pos[u as usize] = i as u32;
        }
    }
    if core.contains(&NONE) || seq.len() != n {
        return Err(invalid("schedule does not contain every unit exactly once"));
    }
    let mut seq_pos = vec![0u32; n];
    for (i, &u) in seq.iter().enumerate() {
        seq_pos[u as usize] = i as u32;
    }
    // vc[u][c] = (position + 1) on core c up to which u is known to run after.
    let mut vc = vec![0u32; n * p];
    let mut waits = vec![Vec::new(); n];
    let mut cur = vec![0u32; p];
    let mut preds: Vec<u32> = Vec::new();
    for &u in seq {
        let u = u as usize;
        let c = core[u] as usize;
        if pos[u] > 0 {
            let prev = per_core[c][pos[u] as usize - 1] as usize;
            if seq_pos[prev] > seq_pos[u] {
                return Err(invalid("sequence order disagrees with a core's order"));
            }
            cur.copy_from_slice(&vc[prev * p..(prev + 1) * p]);
        } else {
            cur.iter_mut().for_each(|x| *x = 0);
        }
        preds.clear();
        preds.extend_from_slice(dag.preds(u));
        preds.sort_unstable_by_key(|&v| std::cmp::Reverse(seq_pos[v as usize]));
        for &v in &preds {
            let v = v as usize;
            let cv = core[v] as usize;
            if seq_pos[v] > seq_pos[u] {
                return Err(invalid(format!(
                    "unit {u} is ordered before its predecessor {v}"
                )));
            }
            if cv == c {
                if pos[v] > pos[u] {
                    return Err(invalid(format!(
                        "unit {u} runs before its predecessor {v} on core {c}"
                    )));
                }
                continue;
            }
            if cur[cv] > pos[v] {
                continue; // already implied
            }
            waits[u].push(v as u32);
            for k in 0..p {
                cur[k] = cur[k].max(vc[v * p + k]);
            }
            cur[cv] = cur[cv].max(pos[v] + 1);
        }
        cur[c] = pos[u] + 1;
        vc[u * p..(u + 1) * p].copy_from_slice(&cur);
    }
    Ok(waits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(unit: u32, addr: u64, write: bool) -> Access {
        Access {
            unit,
            addr,
            size: 8,
            write,
        }
    }

    #[test]
    fn raw_war_waw_edges() {
        // unit0 writes A, unit1 reads A, unit2 writes A, unit3 reads B only
        let a = [
            acc(0, 0x100, true),
            acc(1, 0x100, false),
            acc(2, 0x104, true),
            acc(3, 0x200, false),
        ];
        let d = UnitDag::from_accesses(4, &a).unwrap();
        assert_eq!(d.edges(), vec![(0, 1), (0, 2), (1, 2)]);
    }

    #[test]
    fn read_only_sharing_has_no_edges() {
        let a = [
            acc(0, 0x100, false),
            acc(1, 0x100, false),
            acc(1, 0x300, true),
        ];
        let d = UnitDag::from_accesses(2, &a).unwrap();
        assert!(d.has_no_edges());
    }

    #[test]
    fn cycles_rejected() {
        assert!(UnitDag::from_edges(2, &[(0, 1), (1, 0)]).is_err());
    }

    #[test]
    fn sync_pruning_drops_implied_waits() {
        // core0: 0, 1 ; core1: 2, 3. edges 0->2, 0->3, 1->3, 2->3(same core)
        let d = UnitDag::from_edges(4, &[(0, 2), (0, 3), (1, 3), (2, 3)]).unwrap();
        let per_core = vec![vec![0, 1], vec![2, 3]];
        let w = sync_points(&d, &per_core, &[0, 1, 2, 3]).unwrap();
        assert_eq!(w[2], vec![0]);
        // 0->3 implied by 1->3 (0 before 1 on core 0)
        assert_eq!(w[3], vec![1]);
        assert!(w[0].is_empty() && w[1].is_empty());
    }

    #[test]
    fn sync_rejects_broken_order() {
        let d = UnitDag::from_edges(2, &[(0, 1)]).unwrap();
        assert!(sync_points(&d, &[vec![1, 0]], &[1, 0]).is_err());
    }
}
