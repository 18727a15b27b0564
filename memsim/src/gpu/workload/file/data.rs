//! Data sections: `[[graph]]` (files, R-MAT, complete graphs; weights; the BFS and
//! SSSP pre-pass tables and families), `[[table]]` (generators, files, inline values)
//! and `[[buffer]]`.

use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use super::{IntOrExpr, Loader};
use crate::gpu::workload::graph::{self, Csr, Format};
use crate::gpu::workload::{builder, gen, Error, Result};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RmatSpec {
    scale: Option<u32>,
    vertices: Option<u64>,
    edges: u64,
    #[serde(default = "default_a")]
    a: f64,
    #[serde(default = "default_bc")]
    b: f64,
    #[serde(default = "default_bc")]
    c: f64,
    #[serde(default = "one")]
    seed: u64,
}

fn default_a() -> f64 {
    0.57
}
fn default_bc() -> f64 {
    0.19
}
fn one() -> u64 {
    1
}
pub(super) fn four() -> u32 {
    4
}
fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WeightSpec {
    #[serde(default = "w_lo")]
    lo: i64,
    #[serde(default = "w_hi")]
    hi: i64,
    #[serde(default = "one")]
    seed: u64,
}
fn w_lo() -> i64 {
    1
}
fn w_hi() -> i64 {
    64
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct WalkSpec {
    source: Option<u64>,
    family: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GraphSpec {
    #[serde(default)]
    name: String,
    file: Option<String>,
    format: Option<String>,
    base: Option<u32>,
    rmat: Option<RmatSpec>,
    complete: Option<u64>,
    #[serde(default = "yes")]
    symmetrize: bool,
    #[serde(default = "four")]
    elem_bytes: u32,
    weights: Option<WeightSpec>,
    bfs: Option<WalkSpec>,
    sssp: Option<WalkSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GenSpec {
    kind: String,
    len: Spanned<IntOrExpr>,
    start: Option<i64>,
    step: Option<i64>,
    value: Option<i64>,
    lo: Option<i64>,
    hi: Option<i64>,
    mu: Option<f64>,
    sigma: Option<f64>,
    seed: Option<u64>,
    of: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TableSpec {
    name: Spanned<String>,
    #[serde(default = "four")]
    elem_bytes: u32,
    gen: Option<GenSpec>,
    file: Option<String>,
    values: Option<Vec<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BufferSpec {
    name: Spanned<String>,
    #[serde(default = "four")]
    elem_bytes: u32,
    len: Spanned<IntOrExpr>,
}

impl Loader<'_> {
    pub(super) fn graph(&mut self, g: &Spanned<GraphSpec>, first: bool) -> Result<()> {
        let span = g.span();
        let g = g.get_ref();
        let limits = &self.opts.limits;
        let fail = |l: &Self, m: String| l.at(span.clone(), m);
        let csr: Csr = if let (true, Some(p)) = (first, &self.opts.graph) {
            graph::read(p, Format::from_path(p), g.symmetrize, None, limits)
                .map_err(|m| fail(self, format!("graph {}: {m}", p.display())))?
        } else {
            match (&g.file, &g.rmat, g.complete) {
                (Some(f), None, None) => {
                    let p = self.path(f);
                    let fmt = match g.format.as_deref() {
                        None => Format::from_path(&p),
                        Some("mtx") => Format::MatrixMarket,
                        Some("metis") => Format::Metis,
                        Some("edges") => Format::EdgeList,
                        Some(x) => {
                            return Err(fail(
                                self,
                                format!("unknown graph format `{x}` (mtx, metis, edges)"),
                            ))
                        }
                    };
                    graph::read(&p, fmt, g.symmetrize, g.base, limits)
                        .map_err(|m| fail(self, format!("graph {}: {m}", p.display())))?
                }
                (None, Some(r), None) => {
                    let vertices = match (r.scale, r.vertices) {
                        (Some(s), None) if s <= 32 => 1u64 << s,
                        (None, Some(v)) => v,
                        _ => {
                            return Err(fail(
                                self,
                                "rmat needs `scale` (at most 32) or `vertices`, not both".into(),
                            ))
                        }
                    };
                    let ok = [r.a, r.b, r.c].iter().all(|x| (0.0..=1.0).contains(x))
                        && r.a + r.b + r.c <= 1.0;
                    if !ok {
                        return Err(fail(
                            self,
                            "rmat probabilities a, b, c must be in [0, 1] with a + b + c <= 1"
                                .into(),
                        ));
                    }
                    if vertices < 1 || vertices > limits.max_vertices {
                        return Err(fail(
                            self,
                            format!("rmat: {vertices} vertices (1 to {})", limits.max_vertices),
                        ));
                    }
                    let m = r.edges.saturating_mul(if g.symmetrize { 2 } else { 1 });
                    if m > limits.max_edges {
                        return Err(fail(
                            self,
                            format!("rmat: {m} edges (at most {})", limits.max_edges),
                        ));
                    }
                    let e = gen::rmat_edges(&gen::Rmat {
                        vertices,
                        edges: r.edges,
                        a: r.a,
                        b: r.b,
                        c: r.c,
                        seed: r.seed,
                    });
                    Csr::from_edges(vertices as usize, e, g.symmetrize, limits)
                        .map_err(|m| fail(self, m))?
                }
                (None, None, Some(n)) => {
                    if n < 1 || n > limits.max_vertices || n * (n - 1) > limits.max_edges {
                        return Err(fail(
                            self,
                            format!("complete graph of {n} vertices is out of range"),
                        ));
                    }
                    let e = (0..n as u32)
                        .flat_map(|u| (0..n as u32).map(move |v| (u, v)))
                        .collect();
                    Csr::from_edges(n as usize, e, false, limits).map_err(|m| fail(self, m))?
                }
                _ => {
                    return Err(fail(
                        self,
                        "a graph needs exactly one of `file`, `rmat`, `complete`".into(),
                    ))
                }
            }
        };
        if csr.vertices() == 0 {
            return Err(fail(self, "the graph has no vertex".into()));
        }
        let p = if g.name.is_empty() {
            String::new()
        } else {
            self.check_name(&Spanned::new(span.clone(), g.name.clone()), "graph")?;
            format!("{}_", g.name)
        };
        let eb = g.elem_bytes;
        let n = csr.vertices();
        let to_i64 = |v: &[u32]| v.iter().map(|&x| x as i64).collect::<Vec<_>>();
        self.add_table(
            span.clone(),
            &format!("{p}row_ptr"),
            eb,
            to_i64(&csr.row_ptr),
        )?;
        self.add_table(
            span.clone(),
            &format!("{p}col_idx"),
            eb,
            to_i64(&csr.col_idx),
        )?;
        self.def(span.clone(), format!("{p}vertices"), n as i64)?;
        self.def(span.clone(), format!("{p}edges"), csr.edges() as i64)?;
        let source = |l: &Self, w: &WalkSpec| -> Result<usize> {
            match w.source {
                None => Ok(csr.max_degree_vertex()),
                Some(s) if (s as usize) < n => Ok(s as usize),
                Some(s) => Err(fail(l, format!("source {s} is not a vertex (n = {n})"))),
            }
        };
        let weights = match (&g.weights, &g.sssp) {
            (Some(w), _) => Some(builder::weights(&csr, w.lo, w.hi.max(w.lo), w.seed)),
            (None, Some(_)) => Some(builder::weights(&csr, w_lo(), w_hi(), 1)),
            _ => None,
        };
        if let Some(w) = &weights {
            self.add_table(span.clone(), &format!("{p}weight"), eb, w.clone())?;
        }
        if let Some(b) = &g.bfs {
            let s = source(self, b)?;
            let (level, fronts) = builder::bfs(&csr, s);
            self.add_table(span.clone(), &format!("{p}bfs_level"), eb, level)?;
            let fam = b.family.clone().unwrap_or_else(|| "frontier".into());
            self.check_name(&Spanned::new(span.clone(), fam.clone()), "family")?;
            self.family(span.clone(), &format!("{p}{fam}"), fronts, eb)?;
            self.def(span.clone(), format!("{p}bfs_source"), s as i64)?;
        }
        if let (Some(sp), Some(w)) = (&g.sssp, &weights) {
            let s = source(self, sp)?;
            let budget = self
                .opts
                .limits
                .max_total_elems
                .saturating_sub(self.total_elems);
            let (dist, lists) = builder::sssp(&csr, w, s, budget).map_err(|m| fail(self, m))?;
            self.add_table(span.clone(), &format!("{p}sssp_dist"), eb.max(4), dist)?;
            let fam = sp.family.clone().unwrap_or_else(|| "sssp_frontier".into());
            self.check_name(&Spanned::new(span.clone(), fam.clone()), "family")?;
            self.family(span.clone(), &format!("{p}{fam}"), lists, eb)?;
            self.def(span.clone(), format!("{p}sssp_source"), s as i64)?;
        }
        Ok(())
    }

    pub(super) fn family(
        &mut self,
        span: Range<usize>,
        name: &str,
        lists: Vec<Vec<i64>>,
        eb: u32,
    ) -> Result<()> {
        let mut ids = Vec::with_capacity(lists.len());
        for (k, l) in lists.into_iter().enumerate() {
            let t = format!("{name}_L{k}");
            self.add_table(span.clone(), &t, eb, l)?;
            ids.push(self.tables.id(&t).expect("just added"));
        }
        self.tables
            .add_family(name, ids)
            .map_err(|e| self.at(span.clone(), e.to_string()))?;
        self.def(
            span,
            format!("{name}_count"),
            self.tables
                .family_len(self.tables.family_id(name).expect("just added")) as i64,
        )
    }

    pub(super) fn table(&mut self, t: &TableSpec) -> Result<()> {
        self.check_name(&t.name, "table")?;
        let span = t.name.span();
        let name = t.name.get_ref();
        let values = match (&t.gen, &t.file, &t.values) {
            (Some(g), None, None) => {
                let len = self.count(&g.len, "len")?;
                self.reserve(g.len.span(), len)?;
                self.total_elems -= len;
                let n = len as usize;
                let need = |v: Option<i64>, f: &str| {
                    v.ok_or_else(|| {
                        self.at(span.clone(), format!("generator `{}` needs `{f}`", g.kind))
                    })
                };
                let seed = g.seed.unwrap_or(1);
                match g.kind.as_str() {
                    "range" => gen::range(n, g.start.unwrap_or(0), g.step.unwrap_or(1)),
                    "const" => gen::constant(n, need(g.value, "value")?),
                    "uniform" => {
                        let (lo, hi) = (need(g.lo, "lo")?, need(g.hi, "hi")?);
                        if lo > hi {
                            return Err(self.at(span, "uniform needs lo <= hi"));
                        }
                        gen::uniform(n, lo, hi, seed)
                    }
                    "gaussian" => {
                        let mu = g.mu.ok_or_else(|| self.at(span.clone(), "gaussian needs `mu`"))?;
                        let sigma = g.sigma.ok_or_else(|| self.at(span.clone(), "gaussian needs `sigma`"))?;
                        if !mu.is_finite() || !sigma.is_finite() || sigma < 0.0 {
                            return Err(self.at(span, "gaussian needs finite mu and sigma >= 0"));
                        }
                        gen::gaussian(n, mu, sigma, seed)
                    }
                    "histogram" | "scan" => {
                        let of = g.of.as_deref().ok_or_else(|| {
                            self.at(span.clone(), format!("generator `{}` needs `of`", g.kind))
                        })?;
                        let src = self
                            .tables
                            .id(of)
                            .map(|id| self.tables.region(id))
                            .filter(|r| r.is_table())
                            .ok_or_else(|| {
                                self.at(span.clone(), format!("`of`: no table `{of}` defined before"))
                            })?;
                        if g.kind == "histogram" {
                            gen::histogram(src.values(), n)
                        } else {
                            gen::scan(src.values(), n)
                        }
                    }
                    k => return Err(self.at(span, format!("unknown generator `{k}` (range, const, uniform, gaussian, histogram, scan; rmat is a [[graph]])"))),
                }
            }
            (None, Some(f), None) => self.table_file(span.clone(), f, t.elem_bytes)?,
            (None, None, Some(v)) => v.clone(),
            _ => return Err(self.at(span, "a table needs exactly one of `gen`, `file`, `values`")),
        };
        self.add_table(span, name, t.elem_bytes, values)
    }

    /// A table file: `.txt` holds whitespace-separated integers, anything else
    /// little-endian elements of `elem_bytes` (unsigned below 8 bytes).
    pub(super) fn table_file(&self, span: Range<usize>, f: &str, eb: u32) -> Result<Vec<i64>> {
        let p = self.path(f);
        let l = &self.opts.limits;
        let io = |e: std::io::Error| Error::Io {
            path: p.display().to_string(),
            source: e,
        };
        let size = std::fs::metadata(&p).map_err(io)?.len();
        if size > l.max_file_bytes {
            return Err(self.at(
                span,
                format!(
                    "{}: {size} bytes (at most {})",
                    p.display(),
                    l.max_file_bytes
                ),
            ));
        }
        let Some(bytes) = super::super::read_at_most(&p, l.max_file_bytes).map_err(io)? else {
            return Err(self.at(
                span,
                format!("{}: more than {} bytes", p.display(), l.max_file_bytes),
            ));
        };
        if p.extension().is_some_and(|e| e == "txt") {
            let text = String::from_utf8_lossy(&bytes);
            let mut v = Vec::new();
            for w in text.split_whitespace() {
                if v.len() as u64 >= l.max_table_len {
                    return Err(self.at(
                        span,
                        format!("{}: more than {} values", p.display(), l.max_table_len),
                    ));
                }
                v.push(w.parse::<i64>().map_err(|_| {
                    self.at(span.clone(), format!("{}: bad integer `{w}`", p.display()))
                })?);
            }
            return Ok(v);
        }
        if !matches!(eb, 1 | 2 | 4 | 8) || bytes.len() % eb as usize != 0 {
            return Err(self.at(
                span,
                format!(
                    "{}: binary tables need elem_bytes 1, 2, 4 or 8 and a whole number of elements",
                    p.display()
                ),
            ));
        }
        if (bytes.len() / eb as usize) as u64 > l.max_table_len {
            return Err(self.at(
                span,
                format!("{}: more than {} values", p.display(), l.max_table_len),
            ));
        }
        Ok(bytes
            .chunks_exact(eb as usize)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                i64::from_le_bytes(b)
            })
            .collect())
    }

    pub(super) fn buffer(&mut self, b: &BufferSpec) -> Result<()> {
        self.check_name(&b.name, "buffer")?;
        let n = self.int(&b.len)?;
        let max = self.opts.limits.max_buffer_bytes;
        if n < 0 || (n as u64).saturating_mul(b.elem_bytes as u64) > max {
            return Err(self.at(
                b.len.span(),
                format!("buffer of {n} elements is out of range (at most {max} bytes)"),
            ));
        }
        self.tables
            .add_buffer(b.name.get_ref(), b.elem_bytes, n as u64)
            .map_err(|e| self.at(b.name.span(), e.to_string()))?;
        Ok(())
    }
}
