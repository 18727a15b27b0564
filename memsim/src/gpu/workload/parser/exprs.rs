//! Expressions: precedence climbing over the C operator levels, names resolved
//! in the order the parent module documents, literal subtrees folded.

use super::{fold, tok_text, Mode, Parser, SharedArray};
use crate::gpu::workload::expr::{BinOp, Builtin, Expr, Func, TableRef, UnOp};
use crate::gpu::workload::lexer::Tok;
use crate::gpu::workload::Result;

impl Parser<'_> {
    /// Parse one expression.
    pub fn expr(&mut self) -> Result<Expr> {
        self.enter()?;
        let r = self.binary(0);
        self.leave();
        r
    }

    pub(super) fn binop(&self) -> Option<(BinOp, u8)> {
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

    pub(super) fn binary(&mut self, min_prec: u8) -> Result<Expr> {
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

    pub(super) fn unary(&mut self) -> Result<Expr> {
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
    pub(super) fn address_of(&mut self) -> Result<Expr> {
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

    pub(super) fn shared_elem(&mut self, sa: SharedArray) -> Result<Expr> {
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

    pub(super) fn index(&mut self) -> Result<Expr> {
        self.expect_punct("[")?;
        let i = self.expr()?;
        self.expect_punct("]")?;
        Ok(i)
    }

    /// `name` or `name(k)` as a table reference, if `name` is a table or family.
    pub(super) fn table_ref(&mut self, name: &str, at: usize) -> Result<Option<TableRef>> {
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

    pub(super) fn primary(&mut self) -> Result<Expr> {
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

    pub(super) fn name(&mut self, name: String, at: usize) -> Result<Expr> {
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
                    return Ok(Expr::Count(f));
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

    pub(super) fn call(&mut self, f: Func, at: usize) -> Result<Expr> {
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
    pub(super) fn const_expr(&mut self, what: &str) -> Result<i64> {
        let at = self.pos;
        let e = self.expr()?;
        match e {
            Expr::Const(v) => Ok(v),
            Expr::Len(TableRef::Table(t)) => Ok(self.scope.tables.len_of(t) as i64),
            Expr::Count(f) => Ok(self.scope.tables.family_len(f) as i64),
            _ => Err(self.err_at(at, format!("{what} must be a constant"))),
        }
    }
}
