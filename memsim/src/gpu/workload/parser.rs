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

use super::expr::{BinOp, Builtin, Expr, Func, TableRef, UnOp};
use super::ir::{
    AtomicOp, FuncId, HostCmd, LaunchMode, LaunchSite, MemKind, MemOp, Op, Space, StreamSel,
    UnitClass, Var,
};
use super::lexer::{Tok, Token};
use super::tables::Tables;
use super::{Error, Limits, Result};

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

    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn err_at(&self, pos: usize, msg: impl Into<String>) -> Error {
        let t = &self.toks[pos.min(self.toks.len() - 1)];
        Error::At {
            origin: self.scope.origin.to_string(),
            line: t.line,
            col: t.col,
            msg: msg.into(),
        }
    }

    fn err(&self, msg: impl Into<String>) -> Error {
        self.err_at(self.pos, msg)
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, p: &str) -> Result<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{p}`, found {}", tok_text(self.peek()))))
        }
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(q) if q == s)
    }

    fn expect_ident(&mut self, what: &str) -> Result<String> {
        match self.next() {
            Tok::Ident(s) => Ok(s),
            t => {
                self.pos -= 1;
                Err(self.err(format!("expected {what}, found {}", tok_text(&t))))
            }
        }
    }

    fn skip_separators(&mut self) {
        while matches!(self.peek(), Tok::Newline) || self.is_punct(";") {
            self.next();
        }
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > self.scope.limits.max_nesting {
            return Err(self.err(format!(
                "nesting deeper than {} levels",
                self.scope.limits.max_nesting
            )));
        }
        Ok(())
    }

    fn leave(&mut self) {
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

    fn lookup_var(&self, name: &str) -> Option<Var> {
        self.vars
            .iter()
            .position(|v| v == name)
            .map(|i| Var(i as u16))
    }

    fn define_var(&mut self, name: &str, at: usize) -> Result<Var> {
        if let Some(v) = self.lookup_var(name) {
            return Ok(v);
        }
        if self.params.iter().any(|p| p == name) {
            return Err(self.err_at(at, format!("cannot assign to parameter `{name}`")));
        }
        if self.scope.defs.contains_key(name) || Builtin::from_name(name).is_some() {
            return Err(self.err_at(at, format!("cannot assign to constant `{name}`")));
        }
        if self.scope.tables.id(name).is_some() || self.scope.tables.family_id(name).is_some() {
            return Err(self.err_at(at, format!("`{name}` is a table, not a variable")));
        }
        if self.vars.len() >= self.scope.limits.max_vars {
            return Err(self.err_at(
                at,
                format!("more than {} variables", self.scope.limits.max_vars),
            ));
        }
        self.vars.push(name.to_string());
        Ok(Var((self.vars.len() - 1) as u16))
    }

    // ---- expressions ----

    /// Parse one expression.
    pub fn expr(&mut self) -> Result<Expr> {
        self.enter()?;
        let r = self.binary(0);
        self.leave();
        r
    }

    fn binop(&self) -> Option<(BinOp, u8)> {
        let Tok::Punct(p) = self.peek() else {
            return None;
        };
        Some(match *p {
            "||" => (BinOp::LOr, 1),
            "&&" => (BinOp::LAnd, 2),
            "|" => (BinOp::Or, 3),
            "^" => (BinOp::Xor, 4),
            "&" => (BinOp::And, 5),
            "==" => (BinOp::Eq, 6),
            "!=" => (BinOp::Ne, 6),
            "<" => (BinOp::Lt, 7),
            "<=" => (BinOp::Le, 7),
            ">" => (BinOp::Gt, 7),
            ">=" => (BinOp::Ge, 7),
            "<<" => (BinOp::Shl, 8),
            ">>" => (BinOp::Shr, 8),
            "+" => (BinOp::Add, 9),
            "-" => (BinOp::Sub, 9),
            "*" => (BinOp::Mul, 10),
            "/" => (BinOp::Div, 10),
            "%" => (BinOp::Rem, 10),
            _ => return None,
        })
    }

    fn binary(&mut self, min_prec: u8) -> Result<Expr> {
        let mut lhs = self.unary()?;
        while let Some((op, prec)) = self.binop() {
            if prec <= min_prec {
                break;
            }
            self.next();
            self.enter()?;
            let rhs = self.binary(prec);
            self.leave();
            lhs = fold(Expr::Binary(op, Box::new(lhs), Box::new(rhs?)));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr> {
        let op = match self.peek() {
            Tok::Punct("-") => UnOp::Neg,
            Tok::Punct("!") => UnOp::Not,
            Tok::Punct("~") => UnOp::BitNot,
            Tok::Punct("&") => {
                self.next();
                return self.address_of();
            }
            _ => return self.primary(),
        };
        self.next();
        self.enter()?;
        let a = self.unary();
        self.leave();
        Ok(fold(Expr::Unary(op, Box::new(a?))))
    }

    /// After `&`: a table element, family element or shared-array element.
    fn address_of(&mut self) -> Result<Expr> {
        let at = self.pos;
        let name = self.expect_ident("a table name after `&`")?;
        if let Some(sa) = self.shared.get(&name).copied() {
            return self.shared_elem(sa);
        }
        match self.table_ref(&name, at)? {
            Some(t) => {
                let i = self.index()?;
                Ok(Expr::Addr(t, Box::new(i)))
            }
            None => Err(self.err_at(at, format!("`{name}` is not a table or shared array"))),
        }
    }

    fn shared_elem(&mut self, sa: SharedArray) -> Result<Expr> {
        let i = self.index()?;
        Ok(fold(Expr::Binary(
            BinOp::Add,
            Box::new(Expr::Const(sa.offset)),
            Box::new(fold(Expr::Binary(
                BinOp::Mul,
                Box::new(i),
                Box::new(Expr::Const(sa.elem_bytes)),
            ))),
        )))
    }

    fn index(&mut self) -> Result<Expr> {
        self.expect_punct("[")?;
        let i = self.expr()?;
        self.expect_punct("]")?;
        Ok(i)
    }

    /// `name` or `name(k)` as a table reference, if `name` is a table or family.
    fn table_ref(&mut self, name: &str, at: usize) -> Result<Option<TableRef>> {
        if let Some(id) = self.scope.tables.id(name) {
            return Ok(Some(TableRef::Table(id)));
        }
        if let Some(f) = self.scope.tables.family_id(name) {
            if !self.eat_punct("(") {
                return Err(self.err_at(at, format!("family `{name}` needs a member: `{name}(k)`")));
            }
            let k = self.expr()?;
            self.expect_punct(")")?;
            return Ok(Some(TableRef::Family(f, Box::new(k))));
        }
        Ok(None)
    }

    fn primary(&mut self) -> Result<Expr> {
        let at = self.pos;
        match self.next() {
            Tok::Int(v) => Ok(Expr::Const(v)),
            Tok::Punct("(") => {
                let e = self.expr()?;
                self.expect_punct(")")?;
                Ok(e)
            }
            Tok::Ident(name) => self.name(name, at),
            t => Err(self.err_at(
                at,
                format!("expected an expression, found {}", tok_text(&t)),
            )),
        }
    }

    fn name(&mut self, name: String, at: usize) -> Result<Expr> {
        if self.mode != Mode::Static {
            if let Some(v) = self.lookup_var(&name) {
                return Ok(Expr::Var(v));
            }
        }
        if self.mode == Mode::Device {
            if let Some(i) = self.params.iter().position(|p| *p == name) {
                return Ok(Expr::Param(i as u16));
            }
        }
        if let Some(v) = self.scope.defs.get(&name) {
            return Ok(Expr::Const(*v));
        }
        if let Some(b) = Builtin::from_name(&name) {
            if self.mode != Mode::Device {
                return Err(self.err_at(at, format!("`{name}` exists only in kernel bodies")));
            }
            return Ok(Expr::Builtin(b));
        }
        if self.is_punct("(") {
            match name.as_str() {
                "len" => {
                    self.next();
                    let at = self.pos;
                    let t = self.expect_ident("a table name")?;
                    let Some(r) = self.table_ref(&t, at)? else {
                        return Err(self.err_at(at, format!("`{t}` is not a table")));
                    };
                    self.expect_punct(")")?;
                    return Ok(Expr::Len(r));
                }
                "count" => {
                    self.next();
                    let at = self.pos;
                    let t = self.expect_ident("a family name")?;
                    let Some(f) = self.scope.tables.family_id(&t) else {
                        return Err(self.err_at(at, format!("`{t}` is not a table family")));
                    };
                    self.expect_punct(")")?;
                    return Ok(Expr::Const(self.scope.tables.family_len(f) as i64));
                }
                _ => {}
            }
            if let Some(f) = Func::from_name(&name) {
                return self.call(f, at);
            }
        }
        if let Some(sa) = self.shared.get(&name).copied() {
            let _ = sa;
            return Err(self.err_at(
                at,
                format!("shared array `{name}` has no values: use it as a load/store address or `&{name}[i]`"),
            ));
        }
        if let Some(t) = self.table_ref(&name, at)? {
            if !self.is_punct("[") {
                return Err(self.err_at(at, format!("table `{name}` needs an index: `{name}[i]`")));
            }
            let i = self.index()?;
            return Ok(Expr::Value(t, Box::new(i)));
        }
        Err(self.err_at(at, format!("unknown name `{name}`")))
    }

    fn call(&mut self, f: Func, at: usize) -> Result<Expr> {
        self.expect_punct("(")?;
        let mut args = Vec::new();
        if !self.eat_punct(")") {
            loop {
                args.push(self.expr()?);
                if self.eat_punct(")") {
                    break;
                }
                self.expect_punct(",")?;
            }
        }
        let (name, lo, hi) = f.signature();
        if args.len() < lo || args.len() > hi {
            let want = if lo == hi {
                format!("{lo}")
            } else {
                format!("at least {lo}")
            };
            return Err(self.err_at(
                at,
                format!("`{name}` takes {want} arguments, found {}", args.len()),
            ));
        }
        Ok(fold(Expr::Call(f, args)))
    }

    /// A constant expression (literals, `[defs]`, `len`, `count`), as a value.
    fn const_expr(&mut self, what: &str) -> Result<i64> {
        let at = self.pos;
        let e = self.expr()?;
        match e {
            Expr::Const(v) => Ok(v),
            Expr::Len(TableRef::Table(t)) => Ok(self.scope.tables.len_of(t) as i64),
            _ => Err(self.err_at(at, format!("{what} must be a constant"))),
        }
    }

    // ---- statements ----

    /// Parse statements until `}` (not consumed) or the end of text.
    pub fn device_block(&mut self) -> Result<Vec<Op>> {
        let mut ops = Vec::new();
        loop {
            self.skip_separators();
            if matches!(self.peek(), Tok::Eof) || self.is_punct("}") {
                return Ok(ops);
            }
            ops.push(self.device_stmt()?);
            self.end_of_stmt()?;
        }
    }

    fn end_of_stmt(&mut self) -> Result<()> {
        match self.peek() {
            Tok::Newline | Tok::Eof | Tok::Punct(";") | Tok::Punct("}") => Ok(()),
            t => Err(self.err(format!(
                "expected the end of the statement, found {}",
                tok_text(t)
            ))),
        }
    }

    fn braced_device_block(&mut self) -> Result<Vec<Op>> {
        self.expect_punct("{")?;
        self.enter()?;
        let b = self.device_block();
        self.leave();
        let b = b?;
        self.expect_punct("}")?;
        Ok(b)
    }

    fn guard(&mut self, op: Op) -> Result<Op> {
        if self.is_ident("if") {
            self.next();
            let cond = self.expr()?;
            return Ok(Op::If {
                cond,
                then_: vec![op],
                else_: Vec::new(),
            });
        }
        Ok(op)
    }

    fn device_stmt(&mut self) -> Result<Op> {
        let at = self.pos;
        let name = match self.peek() {
            Tok::Ident(s) => s.clone(),
            t => return Err(self.err(format!("expected a statement, found {}", tok_text(t)))),
        };
        // `v = ...`
        if matches!(self.peek_at(1), Tok::Punct("=")) {
            self.next();
            self.next();
            if let Tok::Ident(op) = self.peek().clone() {
                if op.starts_with("load.") || op.starts_with("atomic.") {
                    let var = self.define_var(&name, at)?;
                    let mut m = self.mem_op()?;
                    m.dest = Some(var);
                    return self.guard(Op::Mem(m));
                }
                if op.starts_with("store.") {
                    return Err(self.err("a store has no value to assign"));
                }
            }
            let expr = self.expr()?;
            let var = self.define_var(&name, at)?;
            return self.guard(Op::Let { var, expr });
        }
        let head = name.split('.').next().unwrap_or("");
        match head {
            "alu" | "fp" | "sfu" | "dp" if !name.contains('.') => {
                self.next();
                let class = match head {
                    "alu" => UnitClass::Alu,
                    "fp" => UnitClass::Fp,
                    "sfu" => UnitClass::Sfu,
                    _ => UnitClass::Dp,
                };
                let n = self.const_expr("an instruction count")?;
                let n = u32::try_from(n)
                    .ok()
                    .filter(|n| *n <= 1 << 20)
                    .ok_or_else(|| {
                        self.err_at(at, "instruction count out of range (0 to 1048576)")
                    })?;
                let mut ilp = 1;
                if self.is_ident("ilp") {
                    self.next();
                    self.expect_punct("=")?;
                    let k = self.const_expr("ilp")?;
                    ilp = u32::try_from(k)
                        .ok()
                        .filter(|k| (1..=64).contains(k))
                        .ok_or_else(|| self.err_at(at, "ilp must be 1 to 64"))?;
                }
                self.guard(Op::Unit { class, n, ilp })
            }
            "load" | "store" | "atomic" => {
                let m = self.mem_op()?;
                self.guard(Op::Mem(m))
            }
            "bar" | "sync_children" | "exit" if !name.contains('.') => {
                self.next();
                let op = match head {
                    "bar" => Op::Bar,
                    "sync_children" => Op::SyncChildren,
                    _ => Op::Exit,
                };
                self.guard(op)
            }
            "if" if !name.contains('.') => {
                self.next();
                self.device_if()
            }
            "loop" if !name.contains('.') => {
                self.next();
                let vat = self.pos;
                let v = self.expect_ident("a loop variable")?;
                let var = self.define_var(&v, vat)?;
                if !self.is_ident("in") {
                    return Err(self.err("expected `in`"));
                }
                self.next();
                let lo = self.expr()?;
                self.expect_punct("..")?;
                let hi = self.expr()?;
                let body = self.braced_device_block()?;
                Ok(Op::Loop { var, lo, hi, body })
            }
            "launch" => self.device_launch(),
            _ => Err(self.err_at(at, format!("unknown statement `{name}`"))),
        }
    }

    fn device_if(&mut self) -> Result<Op> {
        let cond = self.expr()?;
        let then_ = self.braced_device_block()?;
        let mut else_ = Vec::new();
        if self.is_ident("else") {
            self.next();
            if self.is_ident("if") {
                self.next();
                self.enter()?;
                let r = self.device_if();
                self.leave();
                else_.push(r?);
            } else {
                else_ = self.braced_device_block()?;
            }
        }
        Ok(Op::If { cond, then_, else_ })
    }

    fn mem_op(&mut self) -> Result<MemOp> {
        let at = self.pos;
        let word = self.expect_ident("a memory op")?;
        let parts: Vec<&str> = word.split('.').collect();
        let bad = |p: &Self, m: String| p.err_at(at, m);
        let (kind, rest) = match parts[0] {
            "load" => (MemKind::Load, &parts[1..]),
            "store" => (MemKind::Store, &parts[1..]),
            "atomic" => {
                let op = parts.get(1).copied().unwrap_or("");
                let op = match op {
                    "add" => AtomicOp::Add,
                    "min" => AtomicOp::Min,
                    "max" => AtomicOp::Max,
                    "and" => AtomicOp::And,
                    "or" => AtomicOp::Or,
                    "xor" => AtomicOp::Xor,
                    "exch" => AtomicOp::Exch,
                    "cas" => AtomicOp::Cas,
                    "inc" => AtomicOp::Inc,
                    _ => {
                        return Err(bad(
                            self,
                            format!("`{word}`: atomics are atomic.<add|min|max|and|or|xor|exch|cas|inc>[.<space><bits>]"),
                        ))
                    }
                };
                (MemKind::Atomic(op), &parts[2..])
            }
            _ => return Err(bad(self, format!("unknown memory op `{word}`"))),
        };
        let mut space = None;
        let mut bits = None;
        let (mut nc, mut bypass_l1) = (false, false);
        for p in rest {
            match *p {
                "nc" => nc = true,
                "bypass_l1" => bypass_l1 = true,
                _ if space.is_none() => {
                    let (s, b) = p.split_at(1.min(p.len()));
                    let sp = match s {
                        "g" => Space::Global,
                        "s" => Space::Shared,
                        "l" => Space::Local,
                        "c" => Space::Const,
                        "t" => Space::Texture,
                        _ => return Err(bad(self, format!("`{word}`: unknown space `{p}` (g, s, l, c, t followed by 8, 16, 32, 64 or 128)"))),
                    };
                    let bw = match b {
                        "8" => 8,
                        "16" => 16,
                        "32" => 32,
                        "64" => 64,
                        "128" => 128,
                        _ => {
                            return Err(bad(
                                self,
                                format!("`{word}`: width must be 8, 16, 32, 64 or 128"),
                            ))
                        }
                    };
                    space = Some(sp);
                    bits = Some(bw);
                }
                _ => {
                    return Err(bad(
                        self,
                        format!("`{word}`: unknown flag `{p}` (nc, bypass_l1)"),
                    ))
                }
            }
        }
        let (space, bits) = match (space, bits, kind) {
            (Some(s), Some(b), _) => (s, b),
            (_, _, MemKind::Atomic(_)) => (Space::Global, 32),
            _ => {
                return Err(bad(
                    self,
                    format!("`{word}` needs a space and width, e.g. `{}.g32`", parts[0]),
                ))
            }
        };
        let addr = self.mem_address()?;
        Ok(MemOp {
            kind,
            space,
            bits,
            addr,
            dest: None,
            nc,
            bypass_l1,
        })
    }

    /// A memory operand: `T[i]` means the element's address, a shared array element
    /// its offset, anything else is a raw byte address.
    fn mem_address(&mut self) -> Result<Expr> {
        if let Tok::Ident(name) = self.peek().clone() {
            if let Some(sa) = self.shared.get(&name).copied() {
                if matches!(self.peek_at(1), Tok::Punct("[")) {
                    self.next();
                    return self.shared_elem(sa);
                }
            }
        }
        Ok(match self.expr()? {
            Expr::Value(t, i) => Expr::Addr(t, i),
            e => e,
        })
    }

    /// `[e1, e2, e3]` with 1 to 3 entries; missing ones are `default`.
    fn dims(&mut self, default: [Expr; 3]) -> Result<[Expr; 3]> {
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

    fn args(&mut self, callee: &Callee, at: usize) -> Result<Vec<Expr>> {
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

    fn callee(&mut self) -> Result<(Callee, usize)> {
        let at = self.pos;
        let f = self.expect_ident("a function name")?;
        match self.scope.functions.get(&f) {
            Some(c) => Ok((c.clone(), at)),
            None => Err(self.err_at(at, format!("unknown function `{f}`"))),
        }
    }

    /// After a newline, does a launch option continue the statement?
    fn launch_continues(&mut self) -> bool {
        let mut k = 0;
        while matches!(self.peek_at(k), Tok::Newline) {
            k += 1;
        }
        let cont = match self.peek_at(k) {
            Tok::Ident(s) => {
                matches!(
                    s.as_str(),
                    "grid" | "block" | "args" | "stream" | "workload"
                ) && matches!(self.peek_at(k + 1), Tok::Punct("="))
                    || s == "else"
            }
            _ => false,
        };
        if cont {
            self.pos += k;
        }
        cont
    }

    fn device_launch(&mut self) -> Result<Op> {
        let at = self.pos;
        let word = self.expect_ident("launch")?;
        let mode = match word.as_str() {
            "launch.cdp" => LaunchMode::Cdp,
            "launch.agg" => LaunchMode::Agg,
            "launch.auto" => LaunchMode::Auto,
            _ => {
                return Err(self.err_at(
                    at,
                    format!("`{word}`: device launches are launch.cdp, launch.agg or launch.auto"),
                ))
            }
        };
        let (callee, cat) = self.callee()?;
        let one = || [Expr::Const(1), Expr::Const(1), Expr::Const(1)];
        let mut grid = None;
        let mut block = None;
        let mut args = None;
        let mut stream = None;
        let mut cond = None;
        let mut workload = None;
        let mut else_ = None;
        loop {
            let oat = self.pos;
            let opt = match self.peek().clone() {
                Tok::Ident(s) => s,
                Tok::Newline if self.launch_continues() => continue,
                _ => break,
            };
            let dup = |p: &Self| p.err_at(oat, format!("`{opt}` given twice"));
            match opt.as_str() {
                "grid" | "block" | "args" | "stream" | "workload" => {
                    self.next();
                    self.expect_punct("=")?;
                    match opt.as_str() {
                        "grid" if grid.is_none() => grid = Some(self.dims(one())?),
                        "block" if block.is_none() => block = Some(self.dims(one())?),
                        "args" if args.is_none() => args = Some(self.args(&callee, cat)?),
                        "stream" if stream.is_none() => {
                            stream = Some(if self.is_ident("unique") {
                                self.next();
                                StreamSel::Unique
                            } else if self.is_ident("per_cta") {
                                self.next();
                                StreamSel::PerCta
                            } else {
                                StreamSel::Expr(self.expr()?)
                            })
                        }
                        "workload" if workload.is_none() => workload = Some(self.expr()?),
                        _ => return Err(dup(self)),
                    }
                }
                "if" => {
                    if cond.is_some() {
                        return Err(dup(self));
                    }
                    self.next();
                    cond = Some(self.expr()?);
                }
                "else" => {
                    self.next();
                    self.enter()?;
                    let e = if self.is_punct("{") {
                        self.braced_device_block()
                    } else {
                        self.device_stmt().map(|s| vec![s])
                    };
                    self.leave();
                    else_ = Some(e?);
                    break;
                }
                _ => break,
            }
        }
        let Some(grid) = grid else {
            return Err(self.err_at(at, "a launch needs `grid=[..]`"));
        };
        let args = match args {
            Some(a) => a,
            None if callee.params.is_empty() => Vec::new(),
            None => {
                return Err(
                    self.err_at(at, "a launch needs `args={..}` for the callee's parameters")
                )
            }
        };
        let block = block.unwrap_or_else(|| callee.block.map(|d| Expr::Const(d as i64)));
        Ok(Op::Launch(Box::new(LaunchSite {
            mode,
            function: callee.id,
            grid,
            block,
            args,
            stream: stream.unwrap_or(StreamSel::Unique),
            cond: cond.unwrap_or(Expr::Const(1)),
            workload: workload.unwrap_or(Expr::Const(0)),
            else_: else_.unwrap_or_default(),
        })))
    }

    // ---- host programs ----

    /// Parse host commands until `}` (not consumed) or the end of text.
    pub fn host_block(&mut self) -> Result<Vec<HostCmd>> {
        let mut cmds = Vec::new();
        loop {
            self.skip_separators();
            if matches!(self.peek(), Tok::Eof) || self.is_punct("}") {
                return Ok(cmds);
            }
            cmds.push(self.host_cmd()?);
            self.end_of_stmt()?;
        }
    }

    fn host_cmd(&mut self) -> Result<HostCmd> {
        let at = self.pos;
        let word = self.expect_ident("a host command")?;
        match word.as_str() {
            "wait" => Ok(HostCmd::Wait),
            "device_sync" => Ok(HostCmd::DeviceSync),
            "memcpy" => Ok(HostCmd::Memcpy {
                bytes: self.expr()?,
            }),
            "repeat" => {
                let vat = self.pos;
                let v = self.expect_ident("a loop variable")?;
                let var = self.define_var(&v, vat)?;
                if !self.is_ident("in") {
                    return Err(self.err("expected `in`"));
                }
                self.next();
                let lo = self.expr()?;
                self.expect_punct("..")?;
                let hi = self.expr()?;
                self.expect_punct("{")?;
                self.enter()?;
                let body = self.host_block();
                self.leave();
                let body = body?;
                self.expect_punct("}")?;
                Ok(HostCmd::Repeat { var, lo, hi, body })
            }
            "launch" => {
                let (callee, cat) = self.callee()?;
                let one = || [Expr::Const(1), Expr::Const(1), Expr::Const(1)];
                let (mut grid, mut block, mut args) = (None, None, None);
                while let Tok::Ident(opt) = self.peek().clone() {
                    let oat = self.pos;
                    self.next();
                    self.expect_punct("=")?;
                    match opt.as_str() {
                        "grid" if grid.is_none() => grid = Some(self.dims(one())?),
                        "block" if block.is_none() => block = Some(self.dims(one())?),
                        "args" if args.is_none() => args = Some(self.args(&callee, cat)?),
                        "grid" | "block" | "args" => {
                            return Err(self.err_at(oat, format!("`{opt}` given twice")))
                        }
                        _ => {
                            return Err(self.err_at(
                                oat,
                                format!("unknown launch option `{opt}` (grid, block, args)"),
                            ))
                        }
                    }
                }
                let Some(grid) = grid else {
                    return Err(self.err_at(at, "a launch needs `grid=[..]`"));
                };
                let args = match args {
                    Some(a) => a,
                    None if callee.params.is_empty() => Vec::new(),
                    None => {
                        return Err(self
                            .err_at(at, "a launch needs `args={..}` for the kernel's parameters"))
                    }
                };
                let block = block.unwrap_or_else(|| callee.block.map(|d| Expr::Const(d as i64)));
                Ok(HostCmd::Launch {
                    function: callee.id,
                    grid,
                    block,
                    args,
                })
            }
            _ => Err(self.err_at(
                at,
                format!(
                    "unknown host command `{word}` (launch, wait, device_sync, repeat, memcpy)"
                ),
            )),
        }
    }
}

/// Fold an operator whose operands are all literals.
fn fold(e: Expr) -> Expr {
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
