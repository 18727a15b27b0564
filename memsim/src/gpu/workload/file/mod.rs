//! The TOML layer of a workload file: sections `[defs]`, `[[graph]]`, `[[tree]]`,
//! `[[table]]`, `[[buffer]]`, `[[function]]`, `[[app]]` (digest §8.5 A-C; `docs/gpu-workloads.md`
//! is the reference), turned into a resolved [`Workload`].
//!
//! Order of construction, which is also the address layout order: graphs (CSR, then
//! weights, then builder tables), trees, tables, buffers. Errors carry the file, line and
//! column: the TOML crate's span for TOML errors, the value's span for section errors,
//! and positions inside `body`/`cmds` strings computed from where the string's
//! contents start (exact for literal strings `'''...'''`, which the format
//! recommends; escapes in basic strings shift columns on their line).

use std::collections::HashMap;

mod code;
mod data;
mod tree;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::expr::SimpleEnv;
use super::ir::Workload;
use super::lexer::lex;
use super::parser::{Callee, Parser, Scope};
use super::tables::Tables;
use super::{Error, Limits, Result};

/// How to load a workload.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A graph file that replaces the source of the first `[[graph]]` section.
    pub graph: Option<PathBuf>,
    /// Directory that relative `file` paths start from (the workload file's).
    pub base_dir: Option<PathBuf>,
    /// Size limits.
    pub limits: Limits,
    /// New values of `[defs]` constants (`weft gpusim --define NAME=VALUE`), as
    /// a C compiler's `-D`: each must name a constant the file defines (a
    /// misspelt name is an error, not a silent no-op); the last one of a name wins.
    pub defines: Vec<(String, i64)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    #[serde(default)]
    defs: HashMap<String, Spanned<i64>>,
    #[serde(default)]
    graph: Vec<Spanned<data::GraphSpec>>,
    #[serde(default)]
    tree: Vec<Spanned<tree::TreeSpec>>,
    #[serde(default)]
    table: Vec<data::TableSpec>,
    #[serde(default)]
    buffer: Vec<data::BufferSpec>,
    #[serde(default)]
    function: Vec<code::FunctionSpec>,
    #[serde(default)]
    app: Vec<code::AppSpec>,
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
pub(super) enum IntOrExpr {
    Int(i64),
    Expr(String),
}

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
pub(super) fn string_start(text: &str, span: Range<usize>) -> usize {
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

pub(super) struct Loader<'a> {
    text: &'a str,
    origin: &'a str,
    opts: &'a Options,
    tables: Tables,
    defs: HashMap<String, i64>,
    total_elems: u64,
}

impl<'a> Loader<'a> {
    pub(super) fn at(&self, span: Range<usize>, msg: impl Into<String>) -> Error {
        let (line, col) = line_col(self.text, span.start);
        Error::At {
            origin: self.origin.to_string(),
            line,
            col,
            msg: msg.into(),
        }
    }

    pub(super) fn check_name(&self, name: &Spanned<String>, what: &str) -> Result<()> {
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
        if super::parser::RESERVED.contains(&n.as_str()) {
            return Err(self.at(name.span(), format!("`{n}` is a reserved word")));
        }
        Ok(())
    }

    pub(super) fn scope<'s>(&'s self, functions: &'s HashMap<String, Callee>) -> Scope<'s> {
        Scope {
            origin: self.origin,
            tables: &self.tables,
            defs: &self.defs,
            functions,
            limits: &self.opts.limits,
        }
    }

    /// Evaluate an integer or an expression string over tables and constants.
    pub(super) fn int(&self, v: &Spanned<IntOrExpr>) -> Result<i64> {
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

    pub(super) fn count(&self, v: &Spanned<IntOrExpr>, what: &str) -> Result<u64> {
        let n = self.int(v)?;
        let max = self.opts.limits.max_table_len;
        if n < 0 || n as u64 > max {
            return Err(self.at(v.span(), format!("{what} is {n} (0 to {max})")));
        }
        Ok(n as u64)
    }

    pub(super) fn reserve(&mut self, span: Range<usize>, n: u64) -> Result<()> {
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

    pub(super) fn add_table(
        &mut self,
        span: Range<usize>,
        name: &str,
        eb: u32,
        v: Vec<i64>,
    ) -> Result<()> {
        self.reserve(span.clone(), v.len() as u64)?;
        self.tables
            .add_table(name, eb, v)
            .map_err(|e| self.at(span, e.to_string()))?;
        Ok(())
    }

    pub(super) fn def(&mut self, span: Range<usize>, name: String, v: i64) -> Result<()> {
        if self.defs.insert(name.clone(), v).is_some() {
            return Err(self.at(span, format!("constant `{name}` is defined twice")));
        }
        self.tables.scalars.push((name, v));
        Ok(())
    }

    pub(super) fn path(&self, f: &str) -> PathBuf {
        let p = Path::new(f);
        match &self.opts.base_dir {
            Some(d) if p.is_relative() => d.join(p),
            _ => p.to_path_buf(),
        }
    }

    pub(super) fn body_tokens(&self, s: &Spanned<String>) -> Result<Vec<super::lexer::Token>> {
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
    if let Some((k, _)) = opts
        .defines
        .iter()
        .find(|(k, _)| !spec.defs.contains_key(k))
    {
        let mut names: Vec<&str> = defs.iter().map(|(k, _)| k.as_str()).collect();
        names.sort_unstable();
        return Err(Error::Invalid {
            origin: origin.to_string(),
            msg: format!(
                "--define {k}: the workload defines no constant `{k}` (its [defs]: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        });
    }
    for (k, v) in defs {
        let name = Spanned::new(v.span(), k.clone());
        l.check_name(&name, "constant")?;
        let value = match opts.defines.iter().rev().find(|(d, _)| d == k) {
            Some(&(_, x)) => x,
            None => *v.get_ref(),
        };
        l.def(v.span(), k.clone(), value)?;
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
    for t in &spec.tree {
        l.tree(t)?;
    }
    for t in &spec.table {
        l.table(t)?;
    }
    for b in &spec.buffer {
        l.buffer(b)?;
    }
    let (functions, callees) = code::functions(&l, &spec.function)?;
    let apps = code::apps(&l, &spec.app, &callees)?;
    Ok(Workload {
        origin: origin.to_string(),
        tables: l.tables,
        functions,
        apps,
    })
}
