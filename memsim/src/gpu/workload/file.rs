//! The TOML layer of a workload file: sections `[defs]`, `[[graph]]`, `[[table]]`,
//! `[[buffer]]`, `[[function]]`, `[[app]]` (digest §8.5 A-C; `docs/gpu-workloads.md`
//! is the reference), turned into a resolved [`Workload`].
//!
//! Order of construction, which is also the address layout order: graphs (CSR, then
//! weights, then builder tables), tables, buffers. Errors carry the file, line and
//! column: the TOML crate's span for TOML errors, the value's span for section errors,
//! and positions inside `body`/`cmds` strings computed from where the string's
//! contents start (exact for literal strings `'''...'''`, which the format
//! recommends; escapes in basic strings shift columns on their line).

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::expr::SimpleEnv;
use super::gen;
use super::graph::{self, Csr, Format};
use super::ir::{App, FuncId, Function, Stream, Workload};
use super::lexer::lex;
use super::parser::{Callee, Parser, Scope, SharedArray};
use super::tables::Tables;
use super::{builder, Error, Limits, Result, MAX_BLOCK};

/// How to load a workload.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A graph file that replaces the source of the first `[[graph]]` section.
    pub graph: Option<PathBuf>,
    /// Directory that relative `file` paths start from (the workload file's).
    pub base_dir: Option<PathBuf>,
    /// Size limits.
    pub limits: Limits,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    #[serde(default)]
    defs: HashMap<String, Spanned<i64>>,
    #[serde(default)]
    graph: Vec<Spanned<GraphSpec>>,
    #[serde(default)]
    table: Vec<TableSpec>,
    #[serde(default)]
    buffer: Vec<BufferSpec>,
    #[serde(default)]
    function: Vec<FunctionSpec>,
    #[serde(default)]
    app: Vec<AppSpec>,
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum IntOrExpr {
    Int(i64),
    Expr(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RmatSpec {
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
fn four() -> u32 {
    4
}
fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WeightSpec {
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
struct WalkSpec {
    source: Option<u64>,
    family: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GraphSpec {
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
struct GenSpec {
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
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableSpec {
    name: Spanned<String>,
    #[serde(default = "four")]
    elem_bytes: u32,
    gen: Option<GenSpec>,
    file: Option<String>,
    values: Option<Vec<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BufferSpec {
    name: Spanned<String>,
    #[serde(default = "four")]
    elem_bytes: u32,
    len: Spanned<IntOrExpr>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SharedSpec {
    name: String,
    #[serde(default = "four")]
    elem_bytes: u32,
    len: Spanned<IntOrExpr>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FunctionSpec {
    name: Spanned<String>,
    #[serde(default)]
    block: Option<Spanned<Vec<u32>>>,
    #[serde(default)]
    regs_per_thread: Option<Spanned<u32>>,
    smem_bytes: Option<u32>,
    #[serde(default)]
    params: Vec<String>,
    #[serde(default)]
    shared: Vec<SharedSpec>,
    body: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StreamSpec {
    id: u32,
    cmds: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AppSpec {
    name: Spanned<String>,
    #[serde(default)]
    stream: Vec<StreamSpec>,
    cmds: Option<Spanned<String>>,
}

/// Words that cannot name a table, constant, function or variable.
const RESERVED: &[&str] = &[
    "if",
    "else",
    "loop",
    "in",
    "launch",
    "bar",
    "exit",
    "sync_children",
    "alu",
    "fp",
    "sfu",
    "dp",
    "repeat",
    "wait",
    "device_sync",
    "memcpy",
    "unique",
    "per_cta",
    "len",
    "count",
    "min",
    "max",
    "ceil",
    "select",
    "abs",
    "hash",
    "rand",
    "load",
    "store",
    "atomic",
    "tid",
    "ctaid",
    "ntid",
    "nctaid",
    "gtid",
    "lane",
    "warp",
    "ilp",
    "grid",
    "block",
    "args",
    "stream",
    "workload",
];

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut off = offset.min(text.len());
    while !text.is_char_boundary(off) {
        off -= 1;
    }
    let before = &text[..off];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Byte offset where the contents of the string value at `span` start.
fn string_start(text: &str, span: Range<usize>) -> usize {
    let s = text.get(span.clone()).unwrap_or("");
    let mut off = span.start;
    if s.starts_with("'''") || s.starts_with("\"\"\"") {
        off += 3;
        // TOML trims a newline right after the opening delimiter.
        let rest = text.get(off..).unwrap_or("");
        if rest.starts_with("\r\n") {
            off += 2;
        } else if rest.starts_with('\n') {
            off += 1;
        }
    } else if s.starts_with('\'') || s.starts_with('"') {
        off += 1;
    }
    off
}

struct Loader<'a> {
    text: &'a str,
    origin: &'a str,
    opts: &'a Options,
    tables: Tables,
    defs: HashMap<String, i64>,
    total_elems: u64,
}

impl<'a> Loader<'a> {
    fn at(&self, span: Range<usize>, msg: impl Into<String>) -> Error {
        let (line, col) = line_col(self.text, span.start);
        Error::At {
            origin: self.origin.to_string(),
            line,
            col,
            msg: msg.into(),
        }
    }

    fn check_name(&self, name: &Spanned<String>, what: &str) -> Result<()> {
        let n = name.get_ref();
        let ok = n
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok {
            return Err(self.at(
                name.span(),
                format!(
                    "{what} name `{n}` must be letters, digits and `_`, not starting with a digit"
                ),
            ));
        }
        if RESERVED.contains(&n.as_str()) {
            return Err(self.at(name.span(), format!("`{n}` is a reserved word")));
        }
        Ok(())
    }

    fn scope<'s>(&'s self, functions: &'s HashMap<String, Callee>) -> Scope<'s> {
        Scope {
            origin: self.origin,
            tables: &self.tables,
            defs: &self.defs,
            functions,
            limits: &self.opts.limits,
        }
    }

    /// Evaluate an integer or an expression string over tables and constants.
    fn int(&self, v: &Spanned<IntOrExpr>) -> Result<i64> {
        match v.get_ref() {
            IntOrExpr::Int(i) => Ok(*i),
            IntOrExpr::Expr(s) => {
                let start = string_start(self.text, v.span());
                let (line, col) = line_col(self.text, start);
                let toks = lex(s, self.origin, line, col)?;
                let none = HashMap::new();
                let scope = self.scope(&none);
                let mut p = Parser::static_expr(&scope, toks);
                let e = p.expr()?;
                p.finish()?;
                Ok(e.eval(&SimpleEnv::default(), &self.tables))
            }
        }
    }

    fn count(&self, v: &Spanned<IntOrExpr>, what: &str) -> Result<u64> {
        let n = self.int(v)?;
        let max = self.opts.limits.max_table_len;
        if n < 0 || n as u64 > max {
            return Err(self.at(v.span(), format!("{what} is {n} (0 to {max})")));
        }
        Ok(n as u64)
    }

    fn reserve(&mut self, span: Range<usize>, n: u64) -> Result<()> {
        let l = &self.opts.limits;
        if n > l.max_table_len || self.total_elems + n > l.max_total_elems {
            return Err(self.at(
                span,
                format!(
                    "tables would hold {} elements (at most {} per table, {} in all)",
                    self.total_elems + n,
                    l.max_table_len,
                    l.max_total_elems
                ),
            ));
        }
        self.total_elems += n;
        Ok(())
    }

    fn add_table(&mut self, span: Range<usize>, name: &str, eb: u32, v: Vec<i64>) -> Result<()> {
        self.reserve(span.clone(), v.len() as u64)?;
        self.tables
            .add_table(name, eb, v)
            .map_err(|e| self.at(span, e.to_string()))?;
        Ok(())
    }

    fn def(&mut self, span: Range<usize>, name: String, v: i64) -> Result<()> {
        if self.defs.insert(name.clone(), v).is_some() {
            return Err(self.at(span, format!("constant `{name}` is defined twice")));
        }
        self.tables.scalars.push((name, v));
        Ok(())
    }

    fn path(&self, f: &str) -> PathBuf {
        let p = Path::new(f);
        match &self.opts.base_dir {
            Some(d) if p.is_relative() => d.join(p),
            _ => p.to_path_buf(),
        }
    }

    fn graph(&mut self, g: &Spanned<GraphSpec>, first: bool) -> Result<()> {
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
                    let m = r.edges * if g.symmetrize { 2 } else { 1 };
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
                    if n < 1
                        || n * n.saturating_sub(1) > limits.max_edges
                        || n > limits.max_vertices
                    {
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
            self.family(span.clone(), &format!("{p}{fam}"), lists, eb)?;
            self.def(span.clone(), format!("{p}sssp_source"), s as i64)?;
        }
        Ok(())
    }

    fn family(
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

    fn table(&mut self, t: &TableSpec) -> Result<()> {
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
                    k => return Err(self.at(span, format!("unknown generator `{k}` (range, const, uniform, gaussian; rmat is a [[graph]])"))),
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
    fn table_file(&self, span: Range<usize>, f: &str, eb: u32) -> Result<Vec<i64>> {
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
        let bytes = std::fs::read(&p).map_err(io)?;
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

    fn buffer(&mut self, b: &BufferSpec) -> Result<()> {
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

    fn body_tokens(&self, s: &Spanned<String>) -> Result<Vec<super::lexer::Token>> {
        let start = string_start(self.text, s.span());
        let (line, col) = line_col(self.text, start);
        lex(s.get_ref(), self.origin, line, col)
    }
}

/// Parse a workload from TOML text.
pub fn parse_with(text: &str, origin: &str, opts: &Options) -> Result<Workload> {
    let limits = &opts.limits;
    if text.len() > limits.max_text_bytes {
        return Err(Error::Invalid {
            origin: origin.to_string(),
            msg: format!(
                "{} bytes of text (at most {})",
                text.len(),
                limits.max_text_bytes
            ),
        });
    }
    let spec: FileSpec = toml::from_str(text).map_err(|e| {
        let (line, col) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        Error::At {
            origin: origin.to_string(),
            line,
            col,
            msg: e.message().trim().to_string(),
        }
    })?;
    let mut l = Loader {
        text,
        origin,
        opts,
        tables: Tables::new(),
        defs: HashMap::new(),
        total_elems: 0,
    };
    let mut defs: Vec<_> = spec.defs.iter().collect();
    defs.sort_by_key(|(_, v)| v.span().start);
    for (k, v) in defs {
        let name = Spanned::new(v.span(), k.clone());
        l.check_name(&name, "constant")?;
        l.def(v.span(), k.clone(), *v.get_ref())?;
    }
    for (i, g) in spec.graph.iter().enumerate() {
        l.graph(g, i == 0)?;
    }
    if opts.graph.is_some() && spec.graph.is_empty() {
        return Err(Error::Invalid {
            origin: origin.to_string(),
            msg: "a graph was given but the workload has no [[graph]] section".into(),
        });
    }
    for t in &spec.table {
        l.table(t)?;
    }
    for b in &spec.buffer {
        l.buffer(b)?;
    }
    if spec.function.len() > limits.max_functions {
        return Err(Error::Invalid {
            origin: origin.to_string(),
            msg: format!("more than {} functions", limits.max_functions),
        });
    }
    // First pass: names, shapes and parameters, so launches may name any function.
    let mut callees = HashMap::new();
    let mut shapes = Vec::new();
    for (i, f) in spec.function.iter().enumerate() {
        l.check_name(&f.name, "function")?;
        let name = f.name.get_ref();
        if l.tables.id(name).is_some() || l.defs.contains_key(name) {
            return Err(l.at(
                f.name.span(),
                format!("`{name}` is already a table or constant"),
            ));
        }
        let block = match &f.block {
            None => [256, 1, 1],
            Some(b) => {
                let v = b.get_ref();
                let bad = v.is_empty()
                    || v.len() > 3
                    || v.iter()
                        .zip(MAX_BLOCK)
                        .any(|(&d, m)| d == 0 || d as i64 > m)
                    || v.iter().map(|&d| d as i64).product::<i64>() > MAX_BLOCK[0];
                if bad {
                    return Err(l.at(b.span(), "block must have 1 to 3 dimensions, each at least 1, x and y at most 1024, z at most 64, at most 1024 threads"));
                }
                let mut out = [1; 3];
                out[..v.len()].copy_from_slice(v);
                out
            }
        };
        let regs = match &f.regs_per_thread {
            None => 32,
            Some(r) if (1..=255).contains(r.get_ref()) => *r.get_ref(),
            Some(r) => return Err(l.at(r.span(), "regs_per_thread must be 1 to 255")),
        };
        let mut seen = std::collections::HashSet::new();
        for p in &f.params {
            let sp = Spanned::new(f.name.span(), p.clone());
            l.check_name(&sp, "parameter")?;
            if !seen.insert(p) {
                return Err(l.at(f.name.span(), format!("parameter `{p}` is declared twice")));
            }
        }
        let callee = Callee {
            id: FuncId(i as u32),
            params: f.params.clone(),
            block,
        };
        if callees.insert(name.clone(), callee).is_some() {
            return Err(l.at(f.name.span(), format!("function `{name}` is defined twice")));
        }
        shapes.push((block, regs));
    }
    let mut functions = Vec::with_capacity(spec.function.len());
    for (f, (block, regs)) in spec.function.iter().zip(shapes) {
        let mut shared = HashMap::new();
        let mut off = 0i64;
        for s in &f.shared {
            let sp = Spanned::new(f.name.span(), s.name.clone());
            l.check_name(&sp, "shared array")?;
            let n = l.count(&s.len, "shared array length")? as i64;
            if !matches!(s.elem_bytes, 1 | 2 | 4 | 8 | 16) {
                return Err(l.at(s.len.span(), "elem_bytes must be 1, 2, 4, 8 or 16"));
            }
            let eb = s.elem_bytes as i64;
            off = (off + eb - 1) / eb * eb;
            shared.insert(
                s.name.clone(),
                SharedArray {
                    offset: off,
                    elem_bytes: eb,
                },
            );
            off += n * eb;
            if off > 1 << 20 {
                return Err(l.at(s.len.span(), "shared arrays exceed 1 MiB"));
            }
        }
        let smem = match f.smem_bytes {
            Some(b) if (b as i64) < off => {
                return Err(l.at(
                    f.name.span(),
                    format!("smem_bytes {b} is below the {off} bytes of the shared arrays"),
                ))
            }
            Some(b) if b > 1 << 20 => return Err(l.at(f.name.span(), "smem_bytes above 1 MiB")),
            Some(b) => b,
            None => off as u32,
        };
        let toks = l.body_tokens(&f.body)?;
        let scope = l.scope(&callees);
        let mut p = Parser::device(&scope, toks, f.params.clone(), shared);
        let body = p.device_block()?;
        p.finish()?;
        functions.push(Function {
            name: f.name.get_ref().clone(),
            block,
            regs_per_thread: regs,
            smem_bytes: smem,
            params: f.params.clone(),
            var_names: p.vars,
            body,
        });
    }
    let mut apps = Vec::with_capacity(spec.app.len());
    for a in &spec.app {
        if a.name.get_ref().trim().is_empty() {
            return Err(l.at(a.name.span(), "an app needs a name"));
        }
        if apps.iter().any(|x: &App| x.name == *a.name.get_ref()) {
            return Err(l.at(
                a.name.span(),
                format!("app `{}` is defined twice", a.name.get_ref()),
            ));
        }
        let mut streams: Vec<(u32, &Spanned<String>)> = Vec::new();
        if let Some(c) = &a.cmds {
            streams.push((0, c));
        }
        for s in &a.stream {
            if streams.iter().any(|(id, _)| *id == s.id) {
                return Err(l.at(s.cmds.span(), format!("stream {} is defined twice", s.id)));
            }
            streams.push((s.id, &s.cmds));
        }
        if streams.is_empty() {
            return Err(l.at(
                a.name.span(),
                "an app needs `cmds` or [[app.stream]] sections",
            ));
        }
        let scope = l.scope(&callees);
        let mut vars = Vec::new();
        let mut out = Vec::new();
        for (id, cmds) in streams {
            let toks = l.body_tokens(cmds)?;
            let mut p = Parser::host(&scope, toks);
            p.vars = vars;
            let c = p.host_block()?;
            p.finish()?;
            vars = p.vars;
            out.push(Stream { id, cmds: c });
        }
        apps.push(App {
            name: a.name.get_ref().clone(),
            streams: out,
            var_names: vars,
        });
    }
    Ok(Workload {
        origin: origin.to_string(),
        tables: l.tables,
        functions,
        apps,
    })
}
