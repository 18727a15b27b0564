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
//! METIS graphs (`.graph`), Spark98 packfiles (`.pack`: mesh nodes renumbered over
//! the node graph the elements span). Other formats are reported as unsupported
//! rather than copied unchanged.
//!
//! Benchmarks that generate their input in-program are renumbered the same way
//! through two flags of `common/weft_bench.c`: `--dump-graph PATH` writes the
//! adjacency of the generated data as a Matrix Market pattern file and exits;
//! [`permutation_file`] computes the order from it and writes `perm[old] = new`,
//! one id a line; `--permute PATH` makes the program renumber its own arrays.

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
    #[error(
        "GPART reordering does not support `{0}` inputs (supported: .mtx, .edges, .graph, .pack)"
    )]
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

/// A Matrix Market coordinate file: banner and comment lines, size, entries
/// (0-based row, column, value text).
struct Mtx {
    header: Vec<String>,
    symmetric: bool,
    n: usize,
    m: usize,
    entries: Vec<(u32, u32, String)>,
}

fn parse_mtx(input: &Path) -> Result<Mtx> {
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
    Ok(Mtx {
        header,
        symmetric,
        n,
        m,
        entries,
    })
}

/// Reorders a Matrix Market coordinate file (square matrices; rows and columns
/// are permuted together; values and the header are kept). A `symmetric` file
/// keeps storing one triangle: entries that move above the diagonal are
/// mirrored back below it.
pub fn reorder_mtx(input: &Path, output: &Path, cluster: usize) -> Result<Vec<u32>> {
    let Mtx {
        header,
        symmetric,
        n,
        m,
        entries,
    } = parse_mtx(input)?;
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

/// The graph of a Matrix Market file's pattern (square; both directions of every
/// entry; self loops dropped), e.g. what a benchmark's `--dump-graph` wrote.
pub fn read_mtx_graph(input: &Path) -> Result<Graph> {
    let m = parse_mtx(input)?;
    Ok(Graph::from_edges(m.n, m.entries.iter().map(|e| (e.0, e.1))))
}

/// Computes the GPART order of the graph in `graph` (a `--dump-graph` file) and
/// writes it to `perm` as `--permute` reads it: the new id of element `i` (0-based)
/// on line `i`.
pub fn permutation_file(graph: &Path, perm: &Path, cluster: usize) -> Result<Vec<u32>> {
    let g = read_mtx_graph(graph)?;
    let new_id = gpart_order(&g, cluster);
    let mut out = String::with_capacity(new_id.len() * 7);
    for v in &new_id {
        let _ = writeln!(out, "{v}");
    }
    std::fs::write(perm, out).map_err(io(perm))?;
    Ok(new_id)
}

/// Whitespace-separated tokens of a text, with their 1-based line and byte end.
struct Tokens<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    path: &'a Path,
}

impl<'a> Tokens<'a> {
    fn next_str(&mut self, what: &str) -> Result<&'a str> {
        let b = self.text.as_bytes();
        while self.pos < b.len() && b[self.pos].is_ascii_whitespace() {
            self.line += usize::from(b[self.pos] == b'\n');
            self.pos += 1;
        }
        let start = self.pos;
        while self.pos < b.len() && !b[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(perr(
                self.path,
                self.line,
                format!("expected {what}, found the end"),
            ));
        }
        Ok(&self.text[start..self.pos])
    }

    fn next_num(&mut self, what: &str) -> Result<i64> {
        let t = self.next_str(what)?;
        t.parse().map_err(|_| {
            perr(
                self.path,
                self.line,
                format!("expected {what}, found `{t}`"),
            )
        })
    }
}

/// Reorders a single-subdomain Spark98 packfile (the layout `wb_read_pack` and
/// Spark98's `readpackfile` read): the mesh nodes are renumbered by the GPART
/// order of the node graph that the elements span (two nodes are adjacent when
/// an element contains both; this is the file's sparse-matrix structure too).
/// Node lines move to their new positions with their coordinate text unchanged,
/// element corners and matrix pairs are renumbered (pairs stay in the upper
/// triangle, sorted by row then column); headers, the element order and the
/// trailing communication section are kept.
pub fn reorder_pack(input: &Path, output: &Path, cluster: usize) -> Result<Vec<u32>> {
    let text = std::fs::read_to_string(input).map_err(io(input))?;
    let mut t = Tokens {
        text: &text,
        pos: 0,
        line: 1,
        path: input,
    };
    let mut head = Vec::new();
    for what in [
        "global node count",
        "dimension",
        "global element count",
        "corners",
        "subdomains",
        "processors",
    ] {
        head.push(t.next_num(what)?);
    }
    let (gnodes, dim, gelems, corners) = (head[0], head[1], head[2], head[3]);
    if head[4] != 1 || head[5] != 1 || gnodes <= 0 || dim <= 0 || corners <= 0 || gelems < 0 {
        return Err(perr(
            input,
            t.line,
            "not a single-subdomain packfile (GPART renumbers one mesh)",
        ));
    }
    let n = gnodes as usize;
    let counts = [
        t.next_num("node count")?,
        t.next_num("owned node count")?,
        t.next_num("private node count")?,
    ];
    if counts[0] != gnodes {
        return Err(perr(input, t.line, "node count differs from the header"));
    }
    let mut coords: Vec<Vec<&str>> = Vec::with_capacity(n);
    for _ in 0..n {
        t.next_num("node number")?;
        let mut c = Vec::with_capacity(dim as usize);
        for _ in 0..dim {
            c.push(t.next_str("coordinate")?);
        }
        coords.push(c);
    }
    let elems = t.next_num("element count")?;
    if elems != gelems {
        return Err(perr(input, t.line, "element count differs from the header"));
    }
    let mut ids = Vec::with_capacity(elems as usize);
    let mut vertex: Vec<u32> = Vec::with_capacity((elems * corners) as usize);
    for _ in 0..elems {
        ids.push(t.next_str("element number")?);
        for _ in 0..corners {
            let v = t.next_num("element corner")?;
            if v < 0 || v >= gnodes {
                return Err(perr(
                    input,
                    t.line,
                    format!("corner {v} out of range 0..{n}"),
                ));
            }
            vertex.push(v as u32);
        }
    }
    let mlen = t.next_num("matrix length")?;
    let clen = t.next_str("matrix entry count")?;
    let mut pairs = Vec::with_capacity(mlen.max(0) as usize);
    for _ in 0..mlen {
        let (r, c) = (t.next_num("matrix row")?, t.next_num("matrix column")?);
        if r < 0 || c < 0 || r >= gnodes || c >= gnodes {
            return Err(perr(
                input,
                t.line,
                format!("matrix entry ({r},{c}) out of range"),
            ));
        }
        pairs.push((r as u32, c as u32));
    }
    let rest = &text[t.pos..];
    let k = corners as usize;
    let g = Graph::from_edges(
        n,
        vertex
            .chunks(k)
            .flat_map(|e| e.iter().flat_map(move |&a| e.iter().map(move |&b| (a, b)))),
    );
    let new_id = gpart_order(&g, cluster);
    let mut old_of = vec![0usize; n];
    for (old, &new) in new_id.iter().enumerate() {
        old_of[new as usize] = old;
    }
    let mut out = String::with_capacity(text.len());
    let _ = writeln!(out, "{gnodes} {dim}\n{gelems} {corners}\n1\n1");
    let _ = writeln!(out, "{} {} {}", counts[0], counts[1], counts[2]);
    for (new, &old) in old_of.iter().enumerate() {
        let _ = writeln!(out, "{} {}", new + 1, coords[old].join(" "));
    }
    let _ = writeln!(out, "{elems}");
    for (id, e) in ids.iter().zip(vertex.chunks(k)) {
        let vs: Vec<String> = e.iter().map(|&v| new_id[v as usize].to_string()).collect();
        let _ = writeln!(out, "{id} {}", vs.join(" "));
    }
    let mut moved: Vec<(u32, u32)> = pairs
        .iter()
        .map(|&(r, c)| {
            let (a, b) = (new_id[r as usize], new_id[c as usize]);
            (a.min(b), a.max(b))
        })
        .collect();
    moved.sort_unstable();
    let _ = writeln!(out, "{mlen} {clen}");
    for (a, b) in moved {
        let _ = writeln!(out, "{a} {b}");
    }
    out.push_str(rest.trim_start_matches([' ', '\t', '\r', '\n']));
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
        Some("pack") => reorder_pack(input, output, cluster),
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

    /// A hand-written packfile: three tetrahedra in a chain over six scrambled
    /// nodes (A..F = 5,0,3,1,4,2), matrix pairs in the upper triangle.
    fn tiny_pack() -> String {
        let tets = [[5u32, 0, 3, 1], [0, 3, 1, 4], [3, 1, 4, 2]];
        let mut s = String::from("6 3\n3 4\n1\n1\n6 6 6\n");
        for v in 0..6 {
            s += &format!("{}  {v}.5 -{v} {}e-1\n", v + 1, 10 * v + 3);
        }
        s += "3\n";
        for (e, t) in tets.iter().enumerate() {
            s += &format!("{}  {} {} {} {}\n", e + 1, t[0], t[1], t[2], t[3]);
        }
        let mut pairs: Vec<(u32, u32)> = tets
            .iter()
            .flat_map(|t| t.iter().flat_map(move |&a| t.iter().map(move |&b| (a, b))))
            .filter(|(a, b)| a <= b)
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        s += &format!("{} {}\n", pairs.len(), 9 * pairs.len());
        for (a, b) in pairs {
            s += &format!("{a} {b}\n");
        }
        s + "0\n0\n0\n"
    }

    /// (coordinates by node, elements, matrix pairs, trailing text) of a packfile.
    #[allow(clippy::type_complexity)]
    fn parse_pack(text: &str) -> (Vec<String>, Vec<Vec<u32>>, Vec<(u32, u32)>, String) {
        let p = Path::new("t.pack");
        let mut t = Tokens {
            text,
            pos: 0,
            line: 1,
            path: p,
        };
        let h: Vec<i64> = (0..9).map(|_| t.next_num("head").unwrap()).collect();
        let (n, dim, ne, k) = (h[0], h[1], h[2], h[3]);
        let coords = (0..n)
            .map(|i| {
                assert_eq!(t.next_num("id").unwrap(), i + 1);
                (0..dim)
                    .map(|_| t.next_str("c").unwrap())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(t.next_num("elems").unwrap(), ne);
        let elems = (0..ne)
            .map(|_| {
                t.next_num("id").unwrap();
                (0..k).map(|_| t.next_num("v").unwrap() as u32).collect()
            })
            .collect();
        let m = t.next_num("mlen").unwrap();
        t.next_num("clen").unwrap();
        let pairs = (0..m)
            .map(|_| {
                (
                    t.next_num("r").unwrap() as u32,
                    t.next_num("c").unwrap() as u32,
                )
            })
            .collect();
        (coords, elems, pairs, text[t.pos..].trim().to_string())
    }

    #[test]
    fn pack_round_trip_is_a_relabelling() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("m.pack");
        let b = dir.path().join("r.pack");
        std::fs::write(&a, tiny_pack()).unwrap();
        let p = reorder_file(&a, &b, 1, 2).unwrap();
        assert!(is_perm(&p));
        assert_ne!(
            p,
            (0..6).collect::<Vec<u32>>(),
            "the scrambled chain is renumbered"
        );
        let (c0, e0, m0, r0) = parse_pack(&std::fs::read_to_string(&a).unwrap());
        let (c1, e1, m1, r1) = parse_pack(&std::fs::read_to_string(&b).unwrap());
        assert_eq!(
            (c1.len(), e1.len(), m1.len(), &r1),
            (c0.len(), e0.len(), m0.len(), &r0)
        );
        for (old, c) in c0.iter().enumerate() {
            assert_eq!(&c1[p[old] as usize], c, "coordinates of node {old}");
        }
        for (x, y) in e0.iter().zip(&e1) {
            let want: Vec<u32> = x.iter().map(|&v| p[v as usize]).collect();
            assert_eq!(y, &want);
        }
        // Edge sets: the permuted mesh's node graph is the original's under p.
        let edges = |es: &[Vec<u32>], map: &dyn Fn(u32) -> u32| {
            let mut s: Vec<(u32, u32)> = es
                .iter()
                .flat_map(|e| e.iter().flat_map(|&a| e.iter().map(move |&b| (a, b))))
                .map(|(a, b)| (map(a).min(map(b)), map(a).max(map(b))))
                .collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        assert_eq!(edges(&e1, &|v| v), edges(&e0, &|v| p[v as usize]));
        // The matrix structure is that same edge set, upper triangle, sorted.
        assert_eq!(m1, edges(&e1, &|v| v));
    }

    #[test]
    fn dumped_graphs_give_permutation_files() {
        let dir = tempfile::tempdir().unwrap();
        let g = dir.path().join("g.mtx");
        let f = dir.path().join("perm.txt");
        // A benchmark's --dump-graph output: a 4-cycle 0-2-1-3-0 with self loops.
        std::fs::write(
            &g,
            "%%MatrixMarket matrix coordinate pattern general\n% x\n4 4 8\n1 1\n1 3\n1 4\n2 3\n2 4\n3 3\n3 1\n4 2\n",
        )
        .unwrap();
        let p = permutation_file(&g, &f, 2).unwrap();
        assert!(is_perm(&p));
        let lines: Vec<u32> = std::fs::read_to_string(&f)
            .unwrap()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        assert_eq!(lines, p);
        assert_eq!(read_mtx_graph(&g).unwrap().neighbours(0), &[2, 3]);
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
            reorder_file(&dir.path().join("m.xyz"), &dir.path().join("n.xyz"), 1, 2).unwrap_err();
        assert!(matches!(e, ReorderError::Unsupported(_)));
    }
}
