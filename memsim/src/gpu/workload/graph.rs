//! Graphs for the workload builder: CSR construction from edge lists, and readers of
//! the graph files in the project's data folder (Matrix Market `.mtx`, METIS `.graph`,
//! plain edge lists), with every size checked against [`Limits`] before it is
//! allocated.
//!
//! Conventions: vertex ids are 0-based in the CSR; self-loops and duplicate edges are
//! removed; with `symmetrize` every edge is also stored reversed (an undirected
//! graph). A `symmetric` Matrix Market file stores one triangle, so it is always
//! mirrored; METIS files already list every edge twice.

use std::path::Path;

use super::Limits;

/// A graph in compressed sparse row form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr {
    /// `row_ptr[v]..row_ptr[v + 1]` indexes `col_idx` for vertex `v` (length n + 1).
    pub row_ptr: Vec<u32>,
    /// Neighbours, sorted within each row.
    pub col_idx: Vec<u32>,
}

impl Csr {
    /// Vertex count.
    pub fn vertices(&self) -> usize {
        self.row_ptr.len() - 1
    }

    /// Stored (directed) edge count.
    pub fn edges(&self) -> usize {
        self.col_idx.len()
    }

    /// Neighbours of `v`.
    pub fn neighbours(&self, v: usize) -> &[u32] {
        &self.col_idx[self.row_ptr[v] as usize..self.row_ptr[v + 1] as usize]
    }

    /// The vertex of highest degree (lowest id among ties).
    pub fn max_degree_vertex(&self) -> usize {
        (0..self.vertices())
            .max_by_key(|&v| (self.row_ptr[v + 1] - self.row_ptr[v], std::cmp::Reverse(v)))
            .unwrap_or(0)
    }

    /// Build from an edge list over `0..n`: optionally add reversed edges, drop
    /// self-loops and duplicates, sort neighbours.
    pub fn from_edges(
        n: usize,
        mut edges: Vec<(u32, u32)>,
        symmetrize: bool,
        limits: &Limits,
    ) -> Result<Csr, String> {
        if n as u64 > limits.max_vertices {
            return Err(format!("{n} vertices (at most {})", limits.max_vertices));
        }
        let doubled = if symmetrize { 2 } else { 1 } * edges.len() as u64;
        if doubled > limits.max_edges {
            return Err(format!("{doubled} edges (at most {})", limits.max_edges));
        }
        if symmetrize {
            let m = edges.len();
            edges.reserve(m);
            for i in 0..m {
                let (u, v) = edges[i];
                edges.push((v, u));
            }
        }
        edges.retain(|&(u, v)| u != v);
        edges.sort_unstable();
        edges.dedup();
        let mut row_ptr = vec![0u32; n + 1];
        for &(u, _) in &edges {
            row_ptr[u as usize + 1] += 1;
        }
        for v in 0..n {
            row_ptr[v + 1] += row_ptr[v];
        }
        let col_idx = edges.into_iter().map(|(_, v)| v).collect();
        Ok(Csr { row_ptr, col_idx })
    }
}

/// The format of a graph file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Matrix Market coordinate (`.mtx`), 1-based.
    MatrixMarket,
    /// METIS (`.graph`), 1-based adjacency lines.
    Metis,
    /// `u v` per line; `#` and `%` lines are comments.
    EdgeList,
}

impl Format {
    /// The format by file extension: `.mtx`, `.graph`, anything else is an edge list.
    pub fn from_path(p: &Path) -> Format {
        match p.extension().and_then(|e| e.to_str()) {
            Some("mtx") => Format::MatrixMarket,
            Some("graph") => Format::Metis,
            _ => Format::EdgeList,
        }
    }
}

/// Read a graph file. `base` overrides the id base of an edge list (default: 0 if
/// any id is 0, else 1).
pub fn read(
    path: &Path,
    format: Format,
    symmetrize: bool,
    base: Option<u32>,
    limits: &Limits,
) -> Result<Csr, String> {
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size > limits.max_file_bytes {
        return Err(format!(
            "the file has {size} bytes (at most {})",
            limits.max_file_bytes
        ));
    }
    let bytes = super::read_at_most(path, limits.max_file_bytes)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("the file has more than {} bytes", limits.max_file_bytes))?;
    let text = String::from_utf8_lossy(&bytes);
    parse(&text, format, symmetrize, base, limits)
}

/// Parse graph text (see [`read`]).
pub fn parse(
    text: &str,
    format: Format,
    symmetrize: bool,
    base: Option<u32>,
    limits: &Limits,
) -> Result<Csr, String> {
    match format {
        Format::MatrixMarket => parse_mtx(text, symmetrize, limits),
        Format::Metis => parse_metis(text, limits),
        Format::EdgeList => parse_edges(text, symmetrize, base, limits),
    }
}

fn num(tok: Option<&str>, line: usize, what: &str) -> Result<u64, String> {
    let t = tok.ok_or_else(|| format!("line {line}: missing {what}"))?;
    t.parse::<u64>()
        .map_err(|_| format!("line {line}: bad {what} `{t}`"))
}

fn push_edge(
    edges: &mut Vec<(u32, u32)>,
    u: u64,
    v: u64,
    n: u64,
    line: usize,
    limits: &Limits,
) -> Result<(), String> {
    if u >= n || v >= n {
        return Err(format!("line {line}: vertex id out of range (n = {n})"));
    }
    if edges.len() as u64 >= limits.max_edges {
        return Err(format!("more than {} edges", limits.max_edges));
    }
    edges.push((u as u32, v as u32));
    Ok(())
}

fn parse_mtx(text: &str, symmetrize: bool, limits: &Limits) -> Result<Csr, String> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (_, header) = lines.next().ok_or("empty file")?;
    let h: Vec<String> = header
        .split_whitespace()
        .map(|s| s.to_lowercase())
        .collect();
    if h.len() < 5 || h[0] != "%%matrixmarket" || h[1] != "matrix" {
        return Err("line 1: not a Matrix Market header".into());
    }
    if h[2] != "coordinate" {
        return Err("line 1: only the coordinate format holds a sparse matrix".into());
    }
    let mirrored = h[4] != "general";
    let mut lines = lines.filter(|(_, l)| !l.trim_start().starts_with('%') && !l.trim().is_empty());
    let (ln, size) = lines.next().ok_or("missing the size line")?;
    let mut t = size.split_whitespace();
    let rows = num(t.next(), ln, "row count")?;
    let cols = num(t.next(), ln, "column count")?;
    let nnz = num(t.next(), ln, "entry count")?;
    let n = rows.max(cols);
    if n > limits.max_vertices {
        return Err(format!("{n} vertices (at most {})", limits.max_vertices));
    }
    let mut edges = Vec::with_capacity(nnz.min(limits.max_edges) as usize);
    for (ln, l) in lines {
        let mut t = l.split_whitespace();
        let i = num(t.next(), ln, "row")?;
        let j = num(t.next(), ln, "column")?;
        if i == 0 || j == 0 {
            return Err(format!("line {ln}: Matrix Market ids are 1-based"));
        }
        push_edge(&mut edges, i - 1, j - 1, n, ln, limits)?;
    }
    Csr::from_edges(n as usize, edges, symmetrize || mirrored, limits)
}

fn parse_metis(text: &str, limits: &Limits) -> Result<Csr, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim_start().starts_with('%'));
    let (ln, header) = lines.next().ok_or("empty file")?;
    let mut t = header.split_whitespace();
    let n = num(t.next(), ln, "vertex count")?;
    let m = num(t.next(), ln, "edge count")?;
    let fmt = t.next().unwrap_or("0");
    if fmt.len() > 3 || !fmt.chars().all(|c| c == '0' || c == '1') {
        return Err(format!("line {ln}: bad fmt `{fmt}`"));
    }
    let fmt = format!("{fmt:0>3}");
    let fmt = fmt.as_bytes();
    let ncon = match t.next() {
        Some(s) => num(Some(s), ln, "ncon")?,
        None => 1,
    };
    if ncon > 64 {
        return Err(format!("line {ln}: ncon {ncon} is too large"));
    }
    let skip = (fmt[0] == b'1') as u64 + if fmt[1] == b'1' { ncon } else { 0 };
    let weighted = fmt[2] == b'1';
    if n > limits.max_vertices {
        return Err(format!("{n} vertices (at most {})", limits.max_vertices));
    }
    let mut edges = Vec::with_capacity((2 * m).min(limits.max_edges) as usize);
    let mut v = 0u64;
    for (ln, l) in lines {
        if v == n {
            if l.trim().is_empty() {
                continue;
            }
            return Err(format!("line {ln}: more than {n} vertex lines"));
        }
        let mut t = l.split_whitespace().skip(skip as usize);
        while let Some(x) = t.next() {
            let u = num(Some(x), ln, "neighbour")?;
            if u == 0 {
                return Err(format!("line {ln}: METIS ids are 1-based"));
            }
            if weighted {
                num(t.next(), ln, "edge weight")?;
            }
            push_edge(&mut edges, v, u - 1, n, ln, limits)?;
        }
        v += 1;
    }
    // Trailing isolated vertices may have no line at all: they are simply empty rows.
    Csr::from_edges(n as usize, edges, false, limits)
}

fn parse_edges(
    text: &str,
    symmetrize: bool,
    base: Option<u32>,
    limits: &Limits,
) -> Result<Csr, String> {
    let mut raw = Vec::new();
    let mut min_id = u64::MAX;
    let mut max_id = 0u64;
    for (i, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with('%') {
            continue;
        }
        let mut t = l.split_whitespace();
        let u = num(t.next(), i + 1, "source id")?;
        let v = num(t.next(), i + 1, "target id")?;
        if raw.len() as u64 >= limits.max_edges {
            return Err(format!("more than {} edges", limits.max_edges));
        }
        min_id = min_id.min(u.min(v));
        max_id = max_id.max(u.max(v));
        raw.push((u, v));
    }
    let base = base.map_or(if min_id == 0 { 0 } else { 1 }, u64::from);
    if raw.is_empty() {
        return Err("no edges".into());
    }
    if min_id < base {
        return Err(format!("id {min_id} below the id base {base}"));
    }
    let n = max_id - base + 1;
    if n > limits.max_vertices {
        return Err(format!("{n} vertices (at most {})", limits.max_vertices));
    }
    let edges = raw
        .into_iter()
        .map(|(u, v)| ((u - base) as u32, (v - base) as u32))
        .collect();
    Csr::from_edges(n as usize, edges, symmetrize, limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mtx_symmetric_is_mirrored() {
        let t = "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n3 3 2\n2 1\n3 2\n";
        let g = parse(t, Format::MatrixMarket, false, None, &Limits::default()).unwrap();
        assert_eq!(g.row_ptr, vec![0, 1, 3, 4]);
        assert_eq!(g.col_idx, vec![1, 0, 2, 1]);
    }

    #[test]
    fn metis_with_isolated_vertex_and_weights() {
        // 3 vertices, vertex 3 isolated (empty line), edge weights (fmt 1).
        let t = "% c\n3 1 1\n2 5\n1 5\n\n";
        let g = parse(t, Format::Metis, false, None, &Limits::default()).unwrap();
        assert_eq!(g.row_ptr, vec![0, 1, 2, 2]);
        assert_eq!(g.col_idx, vec![1, 0]);
    }

    #[test]
    fn edge_list_base_and_limits() {
        let t = "# c\n1 2\n2 3\n3 3\n";
        let g = parse(t, Format::EdgeList, true, None, &Limits::default()).unwrap();
        assert_eq!(g.vertices(), 3);
        assert_eq!(g.edges(), 4); // self-loop dropped, both directions kept
        let small = Limits {
            max_edges: 1,
            ..Limits::default()
        };
        let e = parse(t, Format::EdgeList, false, None, &small).unwrap_err();
        assert!(e.contains("more than 1 edges"), "{e}");
    }
}
