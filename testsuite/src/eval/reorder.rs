//! GPART-style data reordering: the software alternative of §4.5.5.
//!
//! GPART (Han and Tseng) is a hierarchical graph clustering that renumbers the
//! data of an irregular application so that elements used together sit together
//! in memory, for cache locality. We implement the same idea on the *input
//! side*: the rows/vertices of a benchmark's graph or sparse-matrix input file
//! are renumbered and the file rewritten; the program is unchanged (the
//! dissertation also applies GPART as a data-layout transformation, not a
//! schedule). Two levels:
//!
//! 1. **Clusters.** Vertices are visited in breadth-first order from the
//!    lowest-numbered unvisited vertex; consecutive BFS vertices are grouped into
//!    clusters of `cluster` vertices (the dissertation tuned GPART's cluster size
//!    for best performance; we default to the number of 8-byte elements that fill
//!    half of a 32 KiB L1, 2048, and expose the parameter).
//! 2. **Cluster order.** Clusters are ordered by BFS over the cluster graph (two
//!    clusters are adjacent when an edge joins them), and vertices keep their BFS
//!    order inside a cluster. The new number of a vertex is its position in this
//!    order.
//!
//! Invariants (tested): the result is a permutation; the permuted file has the
//! same entries under the renumbering (values unchanged); the order is
//! deterministic. Supported inputs: Matrix Market coordinate (`.mtx`, symmetric
//! permutation of rows and columns), edge lists (`.edges`, with their id base),
//! METIS graphs (`.graph`). Other formats (e.g. Spark98 `.pack`) are reported as
//! unsupported rather than copied unchanged.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::path::Path;

/// Errors of the reordering.
#[derive(Debug, thiserror::Error)]
pub enum ReorderError {
    /// Reading or writing failed.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// The file is malformed.
    #[error("{path}:{line}: {msg}")]
    Parse {
        /// File.
        path: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        msg: String,
    },
    /// The format is not supported.
    #[error("GPART reordering does not support `{0}` inputs (supported: .mtx, .edges, .graph)")]
    Unsupported(String),
}

/// Result alias.
pub type Result<T> = std::result::Result<T, ReorderError>;

/// Default cluster size (vertices).
pub const DEFAULT_CLUSTER: usize = 2048;

/// An undirected graph in adjacency-list form.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    adj: Vec<Vec<u32>>,
}

impl Graph {
    /// A graph with `n` vertices and the given undirected edges (self loops and
    /// out-of-range endpoints are ignored; duplicates are merged).
    pub fn from_edges(n: usize, edges: impl IntoIterator<Item = (u32, u32)>) -> Self {
        let mut adj = vec![Vec::new(); n];
        for (a, b) in edges {
            if a == b || a as usize >= n || b as usize >= n {
                continue;
            }
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        for l in &mut adj {
            l.sort_unstable();
            l.dedup();
        }
        Graph { adj }
    }

    /// Vertex count.
    pub fn len(&self) -> usize {
        self.adj.len()
    }

    /// True if there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.adj.is_empty()
    }

    /// Neighbours of `v`.
    pub fn neighbours(&self, v: u32) -> &[u32] {
        &self.adj[v as usize]
    }
}

fn bfs_order(n: usize, neighbours: impl Fn(usize) -> Vec<usize>) -> Vec<usize> {
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut queue = VecDeque::new();
    for start in 0..n {
        if seen[start] {
            continue;
        }
        seen[start] = true;
        queue.push_back(start);
        while let Some(v) = queue.pop_front() {
            order.push(v);
            for w in neighbours(v) {
                if !seen[w] {
                    seen[w] = true;
                    queue.push_back(w);
                }
            }
        }
    }
    order
}

/// The GPART-style order: `new_id[old]`.
pub fn gpart_order(g: &Graph, cluster: usize) -> Vec<u32> {
    let n = g.len();
    let cluster = cluster.max(1);
    let bfs = bfs_order(n, |v| {
        g.neighbours(v as u32).iter().map(|&w| w as usize).collect()
    });
    // Level 1: cluster id of each vertex, members in BFS order.
    let nc = n.div_ceil(cluster);
    let mut cid = vec![0usize; n];
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); nc];
    for (pos, &v) in bfs.iter().enumerate() {
        cid[v] = pos / cluster;
        members[pos / cluster].push(v as u32);
    }
    // Level 2: cluster graph, ordered by BFS.
    let mut cadj: Vec<Vec<usize>> = vec![Vec::new(); nc];
    for v in 0..n {
        for &w in g.neighbours(v as u32) {
            let (a, b) = (cid[v], cid[w as usize]);
            if a != b {
                cadj[a].push(b);
            }
        }
    }
    for l in &mut cadj {
        l.sort_unstable();
        l.dedup();
    }
    let corder = bfs_order(nc, |c| cadj[c].clone());
    let mut new_id = vec![0u32; n];
    let mut next = 0u32;
    for c in corder {
        for &v in &members[c] {
            new_id[v as usize] = next;
            next += 1;
        }
    }
    new_id
}

/// Sum over edges of |new(a) - new(b)|: the layout distance GPART shrinks.
pub fn layout_cost(g: &Graph, new_id: &[u32]) -> u64 {
    let mut c = 0u64;
    for v in 0..g.len() {
        for &w in g.neighbours(v as u32) {
            if (w as usize) > v {
                c += u64::from(new_id[v].abs_diff(new_id[w as usize]));
            }
        }
    }
    c
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> ReorderError + '_ {
    move |source| ReorderError::Io {
        path: path.display().to_string(),
        source,
    }
}

fn perr(path: &Path, line: usize, msg: impl Into<String>) -> ReorderError {
    ReorderError::Parse {
        path: path.display().to_string(),
        line,
        msg: msg.into(),
    }
}

/// Reorders a Matrix Market coordinate file (square matrices; rows and columns
/// are permuted together; values and the header are kept). A `symmetric` file
/// keeps storing one triangle: entries that move above the diagonal are
/// mirrored back below it.
pub fn reorder_mtx(input: &Path, output: &Path, cluster: usize) -> Result<Vec<u32>> {
    let text = std::fs::read_to_string(input).map_err(io(input))?;
    let mut lines = text.lines().enumerate();
    let (_, banner) = lines.next().ok_or_else(|| perr(input, 1, "empty file"))?;
    if !banner.starts_with("%%MatrixMarket") || !banner.contains("coordinate") {
        return Err(perr(input, 1, "not a Matrix Market coordinate file"));
    }
    let symmetric = banner.contains("symmetric") || banner.contains("hermitian");
    let mut header = vec![banner.to_string()];
    let mut size: Option<(usize, usize, usize)> = None;
    let mut entries: Vec<(u32, u32, String)> = Vec::new();
    for (i, line) in lines {
        let t = line.trim();
        if size.is_none() {
            if t.starts_with('%') || t.is_empty() {
                header.push(line.to_string());
                continue;
            }
            let f: Vec<usize> = t
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if f.len() != 3 {
                return Err(perr(input, i + 1, "expected `rows cols entries`"));
            }
            if f[0] != f[1] {
                return Err(perr(
                    input,
                    i + 1,
                    "GPART renumbering needs a square matrix",
                ));
            }
            size = Some((f[0], f[1], f[2]));
            continue;
        }
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        let mut it = t.splitn(3, char::is_whitespace);
        let r: usize = it
            .next()
            .and_then(|x| x.parse().ok())
            .ok_or_else(|| perr(input, i + 1, "bad row index"))?;
        let c: usize = it
            .next()
            .and_then(|x| x.trim().parse().ok())
            .ok_or_else(|| perr(input, i + 1, "bad column index"))?;
        let n = size.map_or(0, |s| s.0);
        if r == 0 || c == 0 || r > n || c > n {
            return Err(perr(input, i + 1, format!("index out of range 1..={n}")));
        }
        entries.push((
            (r - 1) as u32,
            (c - 1) as u32,
            it.next().unwrap_or("").trim().to_string(),
        ));
    }
    let (n, m, _) = size.ok_or_else(|| perr(input, 1, "missing size line"))?;
    let g = Graph::from_edges(n, entries.iter().map(|e| (e.0, e.1)));
    let new_id = gpart_order(&g, cluster);
    let mut moved: Vec<(u32, u32, &str)> = entries
        .iter()
        .map(|(r, c, v)| {
            let (mut a, mut b) = (new_id[*r as usize], new_id[*c as usize]);
            if symmetric && b > a {
                std::mem::swap(&mut a, &mut b);
            }
            (a, b, v.as_str())
        })
        .collect();
    moved.sort_by_key(|e| (e.1, e.0));
    let mut out = String::new();
    for h in &header {
        out.push_str(h);
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "% reordered by weft eval (GPART-style BFS clustering, cluster {cluster})"
    );
    let _ = writeln!(out, "{n} {m} {}", moved.len());
    for (a, b, v) in moved {
        if v.is_empty() {
            let _ = writeln!(out, "{} {}", a + 1, b + 1);
        } else {
            let _ = writeln!(out, "{} {} {}", a + 1, b + 1, v);
        }
    }
    std::fs::write(output, out).map_err(io(output))?;
    Ok(new_id)
}

/// Reorders an edge list (`u v` per line, ids starting at `base`).
pub fn reorder_edges(input: &Path, output: &Path, base: u32, cluster: usize) -> Result<Vec<u32>> {
    let text = std::fs::read_to_string(input).map_err(io(input))?;
    let mut edges = Vec::new();
    let mut n = 0usize;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') {
            continue;
        }
        let f: Vec<u32> = t
            .split_whitespace()
            .take(2)
            .filter_map(|x| x.parse().ok())
            .collect();
        if f.len() != 2 || f[0] < base || f[1] < base {
            return Err(perr(input, i + 1, "expected two vertex ids"));
        }
        let (a, b) = (f[0] - base, f[1] - base);
        n = n.max(a as usize + 1).max(b as usize + 1);
        edges.push((a, b));
    }
    let g = Graph::from_edges(n, edges.iter().copied());
    let new_id = gpart_order(&g, cluster);
    let mut out = String::with_capacity(text.len());
    for (a, b) in edges {
        let _ = writeln!(
            out,
            "{} {}",
            new_id[a as usize] + base,
            new_id[b as usize] + base
        );
    }
    std::fs::write(output, out).map_err(io(output))?;
    Ok(new_id)
}

/// Reorders a METIS graph file (unweighted; 1-based neighbours).
pub fn reorder_metis(input: &Path, output: &Path, cluster: usize) -> Result<Vec<u32>> {
    let text = std::fs::read_to_string(input).map_err(io(input))?;
    let mut rows = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with('%'));
    let (hl, head) = rows.next().ok_or_else(|| perr(input, 1, "empty file"))?;
    let hf: Vec<usize> = head
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    if hf.len() < 2 {
        return Err(perr(input, hl + 1, "expected `n m` header"));
    }
    if hf.len() > 2 && hf[2] != 0 {
        return Err(perr(
            input,
            hl + 1,
            "weighted METIS graphs are not supported",
        ));
    }
    let n = hf[0];
    let mut adj: Vec<Vec<u32>> = Vec::with_capacity(n);
    for (i, line) in rows.take(n) {
        let mut l = Vec::new();
        for x in line.split_whitespace() {
            let v: usize = x
                .parse()
                .map_err(|_| perr(input, i + 1, "bad neighbour id"))?;
            if v == 0 || v > n {
                return Err(perr(
                    input,
                    i + 1,
                    format!("neighbour {v} out of range 1..={n}"),
                ));
            }
            l.push((v - 1) as u32);
        }
        adj.push(l);
    }
    if adj.len() != n {
        return Err(perr(
            input,
            text.lines().count(),
            format!("expected {n} vertex lines, found {}", adj.len()),
        ));
    }
    let g = Graph::from_edges(
        n,
        adj.iter()
            .enumerate()
            .flat_map(|(v, l)| l.iter().map(move |&w| (v as u32, w))),
    );
    let new_id = gpart_order(&g, cluster);
    let mut old_of = vec![0usize; n];
    for (old, &new) in new_id.iter().enumerate() {
        old_of[new as usize] = old;
    }
    let mut out = String::new();
    let _ = writeln!(out, "{}", head.trim());
    for &old in &old_of {
        let mut l: Vec<u32> = adj[old].iter().map(|&w| new_id[w as usize] + 1).collect();
        l.sort_unstable();
        let s: Vec<String> = l.iter().map(u32::to_string).collect();
        let _ = writeln!(out, "{}", s.join(" "));
    }
    std::fs::write(output, out).map_err(io(output))?;
    Ok(new_id)
}

/// Reorders `input` into `output` by its extension (`edge_base` for `.edges`).
pub fn reorder_file(
    input: &Path,
    output: &Path,
    edge_base: u32,
    cluster: usize,
) -> Result<Vec<u32>> {
    match input.extension().and_then(|e| e.to_str()) {
        Some("mtx") => reorder_mtx(input, output, cluster),
        Some("edges") => reorder_edges(input, output, edge_base, cluster),
        Some("graph") => reorder_metis(input, output, cluster),
        other => Err(ReorderError::Unsupported(
            other.unwrap_or("(no extension)").to_string(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_perm(p: &[u32]) -> bool {
        let mut s: Vec<u32> = p.to_vec();
        s.sort_unstable();
        s.iter().enumerate().all(|(i, &x)| x as usize == i)
    }

    #[test]
    fn scrambled_path_becomes_contiguous() {
        // Path 0-1-2-...-9 under the scrambled numbering below.
        let scramble = [7u32, 2, 9, 0, 5, 3, 8, 1, 6, 4];
        let g = Graph::from_edges(10, (0..9).map(|i| (scramble[i], scramble[i + 1])));
        let before = layout_cost(&g, &(0..10).collect::<Vec<_>>());
        let p = gpart_order(&g, 4);
        assert!(is_perm(&p));
        // BFS from vertex 0 (path position 3) walks outwards, so the cost drops
        // from the scrambled layout's.
        assert!(
            layout_cost(&g, &p) < before,
            "{} vs {before}",
            layout_cost(&g, &p)
        );
    }

    #[test]
    fn components_and_clusters() {
        // Two triangles {0,2,4} and {1,3,5}: BFS keeps each component contiguous.
        let g = Graph::from_edges(6, [(0, 2), (2, 4), (4, 0), (1, 3), (3, 5), (5, 1)]);
        let p = gpart_order(&g, 3);
        assert_eq!(p, vec![0, 3, 1, 4, 2, 5]);
    }

    #[test]
    fn mtx_entries_survive_renumbering() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.mtx");
        let b = dir.path().join("b.mtx");
        std::fs::write(
            &a,
            "%%MatrixMarket matrix coordinate real symmetric\n% test\n4 4 5\n1 1 1.0\n3 1 2.5\n4 3 -1\n2 2 4\n4 2 7\n",
        )
        .unwrap();
        let p = reorder_mtx(&a, &b, 2).unwrap();
        assert!(is_perm(&p));
        let text = std::fs::read_to_string(&b).unwrap();
        assert!(text.starts_with("%%MatrixMarket matrix coordinate real symmetric\n% test\n"));
        let mut got: Vec<(u32, u32, String)> = text
            .lines()
            .skip_while(|l| l.starts_with('%'))
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (
                    f[0].parse().unwrap(),
                    f[1].parse().unwrap(),
                    f[2].to_string(),
                )
            })
            .collect();
        got.sort();
        let mut want: Vec<(u32, u32, String)> = [
            (1, 1, "1.0"),
            (3, 1, "2.5"),
            (4, 3, "-1"),
            (2, 2, "4"),
            (4, 2, "7"),
        ]
        .iter()
        .map(|&(r, c, v): &(u32, u32, &str)| {
            let (x, y) = (p[r as usize - 1] + 1, p[c as usize - 1] + 1);
            (x.max(y), x.min(y), v.to_string())
        })
        .collect();
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn metis_round_trip_is_a_relabelling() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("g.graph");
        let b = dir.path().join("h.graph");
        // Square 1-2-3-4-1.
        std::fs::write(&a, "4 4\n2 4\n1 3\n2 4\n1 3\n").unwrap();
        let p = reorder_metis(&a, &b, 2).unwrap();
        let text = std::fs::read_to_string(&b).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "4 4");
        for old in 0..4usize {
            let new = p[old] as usize;
            let nb: Vec<u32> = lines[1 + new]
                .split_whitespace()
                .map(|x| x.parse().unwrap())
                .collect();
            let mut want: Vec<u32> = [(old + 1) % 4, (old + 3) % 4]
                .iter()
                .map(|&w| p[w] + 1)
                .collect();
            want.sort_unstable();
            assert_eq!(nb, want);
        }
    }

    #[test]
    fn bad_inputs_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("x.mtx");
        std::fs::write(
            &a,
            "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n",
        )
        .unwrap();
        let e = reorder_mtx(&a, &dir.path().join("y.mtx"), 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("x.mtx:3"), "{e}");
        let e =
            reorder_file(&dir.path().join("m.pack"), &dir.path().join("n.pack"), 1, 2).unwrap_err();
        assert!(matches!(e, ReorderError::Unsupported(_)));
    }
}
