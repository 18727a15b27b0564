//! Kernel-body statements: unit ops, memory ops with their space/width/flags,
//! `let`, `if`/`else`, `loop`, `bar`, `sync_children`, `exit`, trailing guards and
//! device-side `launch` with its options and inline `else` path.

use super::{tok_text, Parser};
use crate::gpu::workload::expr::Expr;
use crate::gpu::workload::ir::{
    AtomicOp, LaunchMode, LaunchSite, MemKind, MemOp, Op, Space, StreamSel, UnitClass,
};
use crate::gpu::workload::lexer::Tok;
use crate::gpu::workload::Result;

impl Parser<'_> {
    /// Parse statements until `}` (not consumed) or the end of text.
    pub fn device_block(&mut self) -> Result<Vec<Op>> {
        self.statements(Self::device_stmt)
    }

    pub(super) fn end_of_stmt(&mut self) -> Result<()> {
        match self.peek() {
            Tok::Newline | Tok::Eof | Tok::Punct(";") | Tok::Punct("}") => Ok(()),
            t => Err(self.err(format!(
                "expected the end of the statement, found {}",
                tok_text(t)
            ))),
        }
    }

    pub(super) fn braced_device_block(&mut self) -> Result<Vec<Op>> {
        self.expect_punct("{")?;
        self.enter()?;
        let b = self.device_block();
        self.leave();
        let b = b?;
        self.expect_punct("}")?;
        Ok(b)
    }

    pub(super) fn guard(&mut self, op: Op) -> Result<Op> {
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

    pub(super) fn device_stmt(&mut self) -> Result<Op> {
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

    pub(super) fn device_if(&mut self) -> Result<Op> {
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

    pub(super) fn mem_op(&mut self) -> Result<MemOp> {
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
    pub(super) fn mem_address(&mut self) -> Result<Expr> {
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

    /// After a newline, does a launch option continue the statement?
    pub(super) fn launch_continues(&mut self) -> bool {
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

    pub(super) fn device_launch(&mut self) -> Result<Op> {
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
}
