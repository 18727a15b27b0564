//! Parser of kernel bodies, host commands and standalone expressions (digest §8.5 B
//! and C), from [`lexer`](super::lexer) tokens to the resolved [`ir`](super::ir).
//!
//! Statements end at a newline or `;`. A simple statement may carry a trailing guard
//! `if cond` on the same line, which makes it `if cond { stmt }`. A `launch` may
//! continue on following lines with its options (`grid= block= args= stream=
//! workload= else`); its launch condition `if cond` must stay on a line of the launch.
//! Names resolve in this order: local variable, parameter, `[defs]` constant, builtin;
//! table, family and shared-array names only in their forms `T[i]`, `&T[i]`,
//! `F(k)[i]`, `len(T)`, `count(F)`. Assigning a new name creates a variable slot;
//! reading a name never assigned is an error. Nesting (blocks, parentheses, unary
//! operators) is bounded by [`Limits::max_nesting`].

use std::collections::HashMap;

mod device;
mod exprs;
mod host;

use super::expr::{Builtin, Expr};
use super::ir::{FuncId, Var};
use super::lexer::{Tok, Token};
use super::tables::Tables;
use super::{Error, Limits, Result};

/// Words that cannot name a table, constant, function or variable.
pub(crate) const RESERVED: &[&str] = &[
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
    "popc",
    "activemask",
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

/// What a launch needs to know about a callee.
#[derive(Debug, Clone)]
pub struct Callee {
    /// Its id.
    pub id: FuncId,
    /// Parameter names.
    pub params: Vec<String>,
    /// Declared block.
    pub block: [u32; 3],
}

/// Names visible to every body of a workload.
pub struct Scope<'a> {
    /// File path or `builtin:<name>`.
    pub origin: &'a str,
    /// Data tables and families.
    pub tables: &'a Tables,
    /// `[defs]` constants and builder scalars.
    pub defs: &'a HashMap<String, i64>,
    /// Kernel functions by name.
    pub functions: &'a HashMap<String, Callee>,
    /// Limits.
    pub limits: &'a Limits,
}

/// A shared-memory array of a function: offset and element size.
#[derive(Debug, Clone, Copy)]
pub struct SharedArray {
    /// Byte offset in the block's shared memory.
    pub offset: i64,
    /// Element size in bytes.
    pub elem_bytes: i64,
}

/// What kind of text is being parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A kernel body.
    Device,
    /// A host program.
    Host,
    /// A standalone expression over tables and constants.
    Static,
}

/// The parser state for one body.
pub struct Parser<'a> {
    scope: &'a Scope<'a>,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    mode: Mode,
    params: Vec<String>,
    shared: HashMap<String, SharedArray>,
    /// Variable names, in slot order.
    pub vars: Vec<String>,
}

fn tok_text(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Int(v) => format!("`{v}`"),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Newline => "end of line".into(),
        Tok::Eof => "end of text".into(),
    }
}

impl<'a> Parser<'a> {
    fn new(scope: &'a Scope<'a>, toks: Vec<Token>, mode: Mode) -> Self {
        Parser {
            scope,
            toks,
            pos: 0,
            depth: 0,
            mode,
            params: Vec::new(),
            shared: HashMap::new(),
            vars: Vec::new(),
        }
    }

    /// A parser for a kernel body with these parameters and shared arrays.
    pub fn device(
        scope: &'a Scope<'a>,
        toks: Vec<Token>,
        params: Vec<String>,
        shared: HashMap<String, SharedArray>,
    ) -> Self {
        let mut p = Self::new(scope, toks, Mode::Device);
        p.params = params;
        p.shared = shared;
        p
    }

    /// A parser for a host program.
    pub fn host(scope: &'a Scope<'a>, toks: Vec<Token>) -> Self {
        Self::new(scope, toks, Mode::Host)
    }

    /// A parser for one expression over tables and constants.
    pub fn static_expr(scope: &'a Scope<'a>, toks: Vec<Token>) -> Self {
        Self::new(scope, toks, Mode::Static)
    }

    // ---- token helpers ----

    pub(super) fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }

    pub(super) fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    pub(super) fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    pub(super) fn err_at(&self, pos: usize, msg: impl Into<String>) -> Error {
        let t = &self.toks[pos.min(self.toks.len() - 1)];
        Error::At {
            origin: self.scope.origin.to_string(),
            line: t.line,
            col: t.col,
            msg: msg.into(),
        }
    }

    pub(super) fn err(&self, msg: impl Into<String>) -> Error {
        self.err_at(self.pos, msg)
    }

    pub(super) fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    pub(super) fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.next();
            true
        } else {
            false
        }
    }

    pub(super) fn expect_punct(&mut self, p: &str) -> Result<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{p}`, found {}", tok_text(self.peek()))))
        }
    }

    pub(super) fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(q) if q == s)
    }

    pub(super) fn expect_ident(&mut self, what: &str) -> Result<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.next();
                Ok(s)
            }
            t => Err(self.err(format!("expected {what}, found {}", tok_text(&t)))),
        }
    }

    /// Statements parsed by `stmt`, each ended by a separator, until `}` (not
    /// consumed) or the end of text: the block loop of device and host code.
    pub(super) fn statements<T>(&mut self, stmt: fn(&mut Self) -> Result<T>) -> Result<Vec<T>> {
        let mut out = Vec::new();
        loop {
            self.skip_separators();
            if matches!(self.peek(), Tok::Eof) || self.is_punct("}") {
                return Ok(out);
            }
            out.push(stmt(self)?);
            self.end_of_stmt()?;
        }
    }

    pub(super) fn skip_separators(&mut self) {
        while matches!(self.peek(), Tok::Newline) || self.is_punct(";") {
            self.next();
        }
    }

    pub(super) fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > self.scope.limits.max_nesting {
            return Err(self.err(format!(
                "nesting deeper than {} levels",
                self.scope.limits.max_nesting
            )));
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Fail unless the text is fully consumed (trailing separators allowed).
    pub fn finish(&mut self) -> Result<()> {
        self.skip_separators();
        match self.peek() {
            Tok::Eof => Ok(()),
            t => Err(self.err(format!("unexpected {}", tok_text(t)))),
        }
    }

    // ---- variables ----

    pub(super) fn lookup_var(&self, name: &str) -> Option<Var> {
        self.vars
            .iter()
            .position(|v| v == name)
            .map(|i| Var(i as u16))
    }

    pub(super) fn define_var(&mut self, name: &str, at: usize) -> Result<Var> {
        if let Some(v) = self.lookup_var(name) {
            return Ok(v);
        }
        if RESERVED.contains(&name) {
            return Err(self.err_at(at, format!("`{name}` is a reserved word")));
        }
        if self.params.iter().any(|p| p == name) {
            return Err(self.err_at(at, format!("cannot assign to parameter `{name}`")));
        }
        if self.scope.defs.contains_key(name) || Builtin::from_name(name).is_some() {
            return Err(self.err_at(at, format!("cannot assign to constant `{name}`")));
        }
        if self.scope.tables.id(name).is_some()
            || self.scope.tables.family_id(name).is_some()
            || self.shared.contains_key(name)
        {
            return Err(self.err_at(at, format!("`{name}` is a table, not a variable")));
        }
        if self.vars.len() >= self.scope.limits.max_vars.min(u16::MAX as usize) {
            return Err(self.err_at(
                at,
                format!("more than {} variables", self.scope.limits.max_vars),
            ));
        }
        self.vars.push(name.to_string());
        Ok(Var((self.vars.len() - 1) as u16))
    }

    /// `[e1, e2, e3]` with 1 to 3 entries; missing ones are `default`.
    pub(super) fn dims(&mut self, default: [Expr; 3]) -> Result<[Expr; 3]> {
        self.expect_punct("[")?;
        let mut out = default;
        let mut n = 0;
        loop {
            if n == 3 {
                return Err(self.err("at most 3 dimensions"));
            }
            out[n] = self.expr()?;
            n += 1;
            if self.eat_punct("]") {
                return Ok(out);
            }
            self.expect_punct(",")?;
        }
    }

    pub(super) fn args(&mut self, callee: &Callee, at: usize) -> Result<Vec<Expr>> {
        self.expect_punct("{")?;
        let mut args: Vec<Option<Expr>> = vec![None; callee.params.len()];
        while !self.eat_punct("}") {
            while matches!(self.peek(), Tok::Newline) {
                self.next();
            }
            if self.eat_punct("}") {
                break;
            }
            let nat = self.pos;
            let n = self.expect_ident("a parameter name")?;
            let Some(i) = callee.params.iter().position(|p| *p == n) else {
                return Err(self.err_at(
                    nat,
                    format!(
                        "`{n}` is not a parameter of the callee ({})",
                        callee.params.join(", ")
                    ),
                ));
            };
            if args[i].is_some() {
                return Err(self.err_at(nat, format!("argument `{n}` given twice")));
            }
            self.expect_punct("=")?;
            args[i] = Some(self.expr()?);
            while matches!(self.peek(), Tok::Newline) {
                self.next();
            }
            if !self.eat_punct(",") && !self.is_punct("}") {
                return Err(self.err("expected `,` or `}`"));
            }
        }
        let mut out = Vec::with_capacity(args.len());
        for (i, a) in args.into_iter().enumerate() {
            match a {
                Some(e) => out.push(e),
                None => {
                    return Err(self.err_at(at, format!("missing argument `{}`", callee.params[i])))
                }
            }
        }
        Ok(out)
    }

    pub(super) fn callee(&mut self) -> Result<(Callee, usize)> {
        let at = self.pos;
        let f = self.expect_ident("a function name")?;
        match self.scope.functions.get(&f) {
            Some(c) => Ok((c.clone(), at)),
            None => Err(self.err_at(at, format!("unknown function `{f}`"))),
        }
    }
}

/// Fold an operator whose operands are all literals.
pub(super) fn fold(e: Expr) -> Expr {
    let all_const = match &e {
        Expr::Unary(_, a) => a.as_const().is_some(),
        Expr::Binary(_, a, b) => a.as_const().is_some() && b.as_const().is_some(),
        Expr::Call(_, args) => args.iter().all(|a| a.as_const().is_some()),
        _ => false,
    };
    if all_const {
        let v = e.eval(&super::expr::SimpleEnv::default(), &Tables::new());
        Expr::Const(v)
    } else {
        e
    }
}
