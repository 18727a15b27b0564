//! The workload builder's functional pre-pass (digest §8.5 A, "anything that needs
//! algorithm semantics"): BFS levels and SSSP worklists computed on the host, so the
//! timing engine gets per-level frontiers as tables and never runs the algorithm.
//!
//! - **BFS**: `frontier_L<k>` holds the vertices at distance `k` from the source, in
//!   ascending id order (a bitmap-ordered frontier; a GPU's atomic-append order is not
//!   deterministic). The level of every vertex (-1 when unreached) is a table too.
//! - **SSSP**: a data-driven Bellman-Ford worklist (the LonestarGPU/`sssp` scheme):
//!   iteration 0 is `{source}`; iteration `k + 1` holds the vertices whose distance
//!   dropped while relaxing the edges of iteration `k`'s vertices, in ascending order.
//!   Relaxations within an iteration run in worklist order (Gauss-Seidel), so the
//!   iteration count is deterministic. Edge weights are symmetric: the weight of
//!   `{u, v}` is `lo + hash(min, max, seed) % (hi - lo + 1)`.

use super::expr::hash_values;
use super::graph::Csr;

/// BFS from `source`: the level of each vertex (-1 if unreached) and the frontier of
/// each level.
pub fn bfs(g: &Csr, source: usize) -> (Vec<i64>, Vec<Vec<i64>>) {
    let n = g.vertices();
    let mut level = vec![-1i64; n];
    let mut frontiers = Vec::new();
    if source >= n {
        return (level, frontiers);
    }
    level[source] = 0;
    let mut cur = vec![source as i64];
    while !cur.is_empty() {
        let next_level = frontiers.len() as i64 + 1;
        let mut next = Vec::new();
        for &v in &cur {
            for &u in g.neighbours(v as usize) {
                if level[u as usize] < 0 {
                    level[u as usize] = next_level;
                    next.push(u as i64);
                }
            }
        }
        next.sort_unstable();
        frontiers.push(cur);
        cur = next;
    }
    (level, frontiers)
}

/// The weight of edge `{u, v}` in `lo..=hi`.
pub fn edge_weight(u: u32, v: u32, lo: i64, hi: i64, seed: u64) -> i64 {
    let span = (hi - lo).max(0) as u64 + 1;
    let h = hash_values(seed, [u.min(v) as i64, u.max(v) as i64]) as u64;
    lo + (h % span) as i64
}

/// Weights in CSR order.
pub fn weights(g: &Csr, lo: i64, hi: i64, seed: u64) -> Vec<i64> {
    let mut w = Vec::with_capacity(g.edges());
    for v in 0..g.vertices() {
        for &u in g.neighbours(v) {
            w.push(edge_weight(v as u32, u, lo, hi, seed));
        }
    }
    w
}

/// SSSP worklists from `source` with weights in CSR order: final distances (-1 if
/// unreached) and the worklist of each iteration. Stops with an error message once
/// the worklists hold more than `max_total` entries.
pub fn sssp(
    g: &Csr,
    w: &[i64],
    source: usize,
    max_total: u64,
) -> Result<(Vec<i64>, Vec<Vec<i64>>), String> {
    let n = g.vertices();
    let mut dist = vec![i64::MAX; n];
    let mut lists = Vec::new();
    if source < n {
        dist[source] = 0;
        let mut cur = vec![source as i64];
        let mut in_next = vec![false; n];
        let mut total = 0u64;
        while !cur.is_empty() {
            total += cur.len() as u64;
            if total > max_total {
                return Err(format!(
                    "SSSP worklists exceed {max_total} entries after {} iterations",
                    lists.len()
                ));
            }
            let mut next = Vec::new();
            for &v in &cur {
                let v = v as usize;
                let dv = dist[v];
                let beg = g.row_ptr[v] as usize;
                for (k, &u) in g.neighbours(v).iter().enumerate() {
                    let nd = dv.saturating_add(w[beg + k]);
                    if nd < dist[u as usize] {
                        dist[u as usize] = nd;
                        if !in_next[u as usize] {
                            in_next[u as usize] = true;
                            next.push(u as i64);
                        }
                    }
                }
            }
            next.sort_unstable();
            for &u in &next {
                in_next[u as usize] = false;
            }
            lists.push(cur);
            cur = next;
        }
    }
    for d in &mut dist {
        if *d == i64::MAX {
            *d = -1;
        }
    }
    Ok((dist, lists))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::workload::Limits;

    /// 0-1, 0-2, 1-3, 2-3, 3-4, and 5 isolated.
    fn hand_graph() -> Csr {
        let e = vec![(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)];
        Csr::from_edges(6, e, true, &Limits::default()).unwrap()
    }

    #[test]
    fn bfs_levels_of_a_hand_graph() {
        let (level, f) = bfs(&hand_graph(), 0);
        assert_eq!(level, vec![0, 1, 1, 2, 3, -1]);
        assert_eq!(f, vec![vec![0], vec![1, 2], vec![3], vec![4]]);
    }

    #[test]
    fn sssp_with_unit_weights_matches_bfs() {
        let g = hand_graph();
        let w = vec![1; g.edges()];
        let (dist, lists) = sssp(&g, &w, 0, 1000).unwrap();
        assert_eq!(dist, vec![0, 1, 1, 2, 3, -1]);
        assert_eq!(lists, vec![vec![0], vec![1, 2], vec![3], vec![4]]);
    }

    #[test]
    fn sssp_reinserts_a_vertex_whose_distance_drops_later() {
        // 0-1 weight 10, 0-2 weight 1, 2-1 weight 1: vertex 1 first gets 10, then 2.
        let g = Csr::from_edges(3, vec![(0, 1), (0, 2), (1, 2)], true, &Limits::default()).unwrap();
        // CSR order: 0:[1,2] 1:[0,2] 2:[0,1]
        let w = vec![10, 1, 10, 1, 1, 1];
        let (dist, lists) = sssp(&g, &w, 0, 1000).unwrap();
        assert_eq!(dist, vec![0, 2, 1]);
        assert_eq!(lists, vec![vec![0], vec![1, 2], vec![1]]);
    }

    #[test]
    fn weights_are_symmetric() {
        assert_eq!(edge_weight(3, 9, 1, 64, 5), edge_weight(9, 3, 1, 64, 5));
        let w = weights(&hand_graph(), 1, 4, 5);
        assert!(w.iter().all(|x| (1..=4).contains(x)));
    }
}
