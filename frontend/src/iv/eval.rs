//! The symbolic evaluator: integer SSA values to [`Poly`]s over induction
//! variables and symbols (loop-invariant values, loads, other leaves), with
//! the display names of symbols and base pointers.

use inkwell::values::{BasicValueEnum, InstructionOpcode};

use super::{strip_casts, Evaluator, IvReg};
use crate::expr::{Poly, Sym, SymId};
use crate::ir::{self, ValueKey};
use crate::loops::LoopId;
use crate::symbols::SymKind;

const MAX_DEPTH: u32 = 48;

impl<'a, 'ctx> Evaluator<'a, 'ctx> {
    /// Whether `p` is invariant in loop `l` (mentions neither its IV, nor an
    /// inner loop's IV, nor a symbol defined inside it).
    pub fn invariant_in(&self, p: &Poly, l: LoopId) -> bool {
        p.symbols().into_iter().all(|s| match s {
            Sym::Iv(m) => !self.forest.encloses(l, m),
            Sym::Param(id) => match self.symbols.get(id).def_loop {
                Some(d) => !self.forest.encloses(l, d),
                None => true,
            },
        })
    }

    fn leaf(&mut self, v: BasicValueEnum<'ctx>) -> Poly {
        let v = strip_casts(v);
        if let Some(id) = self.symbols.lookup(ValueKey::of(&v)) {
            return Poly::sym(Sym::Param(id));
        }
        let (kind, def_loop) = match ir::as_instruction(v) {
            Some(i) => {
                let kind = match i.get_opcode() {
                    InstructionOpcode::Load => SymKind::Load,
                    InstructionOpcode::Phi => SymKind::Phi,
                    op => SymKind::Other(format!("{op:?}").to_lowercase()),
                };
                (kind, self.def_loop(i))
            }
            None if ir::is_argument(v) => (SymKind::Argument, None),
            None if ir::is_global(v) => (SymKind::Global, None),
            None => (SymKind::Other("constant".into()), None),
        };
        let name = match (&kind, ir::name_of(v)) {
            (SymKind::Load, _) => self.load_name(v),
            (SymKind::Global, Some(n)) => format!("@{n}"),
            (_, Some(n)) => n,
            (_, None) => format!("%t{}", self.symbols.symbols.len()),
        };
        let id: SymId = self.symbols.intern(v, name, kind, def_loop);
        Poly::sym(Sym::Param(id))
    }

    fn load_name(&mut self, v: BasicValueEnum<'ctx>) -> String {
        let fallback = ir::name_of(v)
            .map(|n| format!("%{n}"))
            .unwrap_or_else(|| "%load".into());
        let Some(i) = ir::as_instruction(v) else {
            return fallback;
        };
        let Some(p) = ir::value_operand(i, 0) else {
            return fallback;
        };
        let size = match v {
            BasicValueEnum::IntValue(iv) => self.td.get_abi_size(&iv.get_type()) as i64,
            _ => return fallback,
        };
        let a = self.address(p);
        if a.problem.is_some() {
            return fallback;
        }
        let base = self.base_name(a.base);
        let idx = match a.offset.div_exact(size) {
            Some(e) => e.render(&|s| self.symbols.name(s)),
            None => format!("{} bytes", a.offset.render(&|s| self.symbols.name(s))),
        };
        format!("{base}[{idx}]")
    }

    /// Display name of a base pointer.
    pub fn base_name(&self, b: BasicValueEnum<'ctx>) -> String {
        match ir::name_of(b) {
            Some(n) if ir::is_global(b) => format!("@{n}"),
            Some(n) => n,
            None => format!("%p{:x}", ValueKey::of(&b).0 & 0xffff),
        }
    }

    /// Evaluates an integer value to a poly over IVs and symbols.
    pub fn eval(&mut self, v: BasicValueEnum<'ctx>) -> Poly {
        if let Some(c) = ir::const_int(v) {
            return Poly::constant(c);
        }
        let key = ValueKey::of(&v);
        if let Some(p) = self.memo.get(&key) {
            return p.clone();
        }
        if self.depth > MAX_DEPTH {
            return self.leaf(v);
        }
        self.depth += 1;
        let r = self.eval_uncached(v);
        self.depth -= 1;
        self.memo.insert(key, r.clone());
        r
    }

    fn eval_uncached(&mut self, v: BasicValueEnum<'ctx>) -> Poly {
        if let Some(reg) = self.ivs.get(&ValueKey::of(&v)).copied() {
            return self.iv_value(reg).unwrap_or_else(|| self.leaf(v));
        }
        let Some(i) = ir::as_instruction(v) else {
            return self.leaf(v);
        };
        let op = i.get_opcode();
        let bin = |s: &mut Self| -> Option<(Poly, Poly)> {
            let a = ir::value_operand(i, 0)?;
            let b = ir::value_operand(i, 1)?;
            Some((s.eval(a), s.eval(b)))
        };
        let r = match op {
            InstructionOpcode::SExt | InstructionOpcode::ZExt | InstructionOpcode::Trunc => {
                ir::value_operand(i, 0).map(|a| self.eval(a))
            }
            InstructionOpcode::Add => bin(self).and_then(|(a, b)| a.add(&b).ok()),
            InstructionOpcode::Sub => bin(self).and_then(|(a, b)| a.sub(&b).ok()),
            InstructionOpcode::Mul => bin(self).and_then(|(a, b)| a.mul(&b).ok()),
            InstructionOpcode::Shl => {
                let sh = ir::value_operand(i, 1).and_then(ir::const_int);
                match (sh, ir::value_operand(i, 0)) {
                    (Some(s), Some(a)) if (0..62).contains(&s) => {
                        let pa = self.eval(a);
                        pa.scale(1i64 << s).ok()
                    }
                    _ => None,
                }
            }
            InstructionOpcode::Or if i.get_disjoint_flag().unwrap_or(false) => {
                bin(self).and_then(|(a, b)| a.add(&b).ok())
            }
            _ => None,
        };
        match r {
            Some(p) => p,
            None => self.leaf(v),
        }
    }

    fn iv_value(&mut self, reg: IvReg) -> Option<Poly> {
        let info = &self.loop_ivs[reg.lp.index()];
        let pi = info.primary?;
        if pi == reg.idx {
            return Some(Poly::sym(Sym::Iv(reg.lp)));
        }
        let (s1, c1) = (info.ivs[pi].start_value, info.ivs[pi].step);
        let (s2, c2) = (info.ivs[reg.idx].start_value, info.ivs[reg.idx].step);
        if c2 % c1 != 0 {
            return None;
        }
        let k = c2 / c1;
        let p1 = self.eval(s1);
        let p2 = self.eval(s2);
        let iv = Poly::sym(Sym::Iv(reg.lp));
        // s2 + k*(iv - s1)
        iv.sub(&p1).ok()?.scale(k).ok()?.add(&p2).ok()
    }
}
