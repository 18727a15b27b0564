//! Induction variables, exit conditions and trip counts, and the symbolic
//! evaluator that turns integer SSA values into [`Poly`]s.
//!
//! An induction variable (IV) of loop `L` is a header phi whose value from
//! outside the loop is one start value and whose value along every back edge
//! is `phi + c` for one constant step `c`. The *primary* IV is the one the
//! exit test compares; other IVs are rewritten in terms of it
//! (`start2 + (c2/c1) * (iv - start1)`), so every IV of a loop is the one
//! symbol `i<L>`.
//!
//! The exit test is read from the exiting latch (the rotated do-while form
//! clang -O1 produces: `icmp eq i64 %iv.next, %wide.trip.count`) or from the
//! header (unrotated form). With the continue condition normalised to
//! `iv + d < B'` and a positive step `s`, the trip count is
//! `ceil((B' - start - e) / s)`, where `e = d - s` when the test follows the
//! body (latch) and `e = d` when it precedes it (header). `<=` becomes
//! `< B + 1`; decreasing loops are negated; `!=` is read as `<` (exact for
//! unit steps, the form clang emits for `i < n` loops once it proved the
//! bound is reached).

use std::collections::HashMap;

use inkwell::targets::TargetData;
use inkwell::values::{BasicValueEnum, InstructionOpcode, InstructionValue, PhiValue};
use inkwell::IntPredicate;
use serde::Serialize;

use crate::cfg::{BlockId, Cfg};
use crate::expr::{Poly, Sym, SymId};
use crate::ir::{self, ValueKey};
use crate::loops::{LoopForest, LoopId};
use crate::symbols::{SymKind, SymbolTable};

/// One induction variable.
#[derive(Debug, Clone)]
pub struct InductionVar<'ctx> {
    /// The header phi.
    pub phi: PhiValue<'ctx>,
    /// The phi's name (or `iv<k>`).
    pub name: String,
    /// The value entering the loop.
    pub start_value: BasicValueEnum<'ctx>,
    /// The start value as an expression (over outer IVs and invariants).
    pub start: Option<Poly>,
    /// The constant step per iteration.
    pub step: i64,
    /// The `phi + step` instruction feeding the back edge.
    pub next: InstructionValue<'ctx>,
}

/// The exit test of a counted loop.
#[derive(Debug, Clone)]
pub struct ExitCondition<'ctx> {
    /// The exiting block holding the test.
    pub exiting: BlockId,
    /// The conditional branch.
    pub branch: InstructionValue<'ctx>,
    /// The `icmp`.
    pub cmp: InstructionValue<'ctx>,
    /// The predicate under which the loop continues, with the IV on the left.
    pub continue_predicate: IntPredicate,
    /// The compared IV side is `iv + offset` (0 for the phi, `step` for `phi.next`).
    pub offset: i64,
    /// The bound the IV is compared to, as an expression.
    pub bound: Poly,
    /// The bound operand of the comparison (the IR value a pass reuses).
    pub bound_value: BasicValueEnum<'ctx>,
    /// The IV-side operand of the comparison (the phi or its increment, maybe cast).
    pub iv_value: BasicValueEnum<'ctx>,
    /// Whether the test follows the body (rotated loop) rather than precedes it.
    pub after_body: bool,
}

/// The number of iterations of a loop each time it is entered: `ceil(numerator / step)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TripCount {
    /// The numerator (an expression over outer IVs and invariant symbols).
    #[serde(skip)]
    pub numerator: Poly,
    /// The (positive) divisor: the magnitude of the IV step.
    pub step: i64,
}

impl TripCount {
    /// The trip count as one poly when the step is 1.
    pub fn as_poly(&self) -> Option<&Poly> {
        if self.step == 1 {
            Some(&self.numerator)
        } else {
            None
        }
    }

    /// The trip count if it is a constant.
    pub fn as_const(&self) -> Option<i64> {
        let n = self.numerator.as_const()?;
        Some(if n <= 0 {
            0
        } else {
            (n + self.step - 1) / self.step
        })
    }

    /// Renders it with symbol names.
    pub fn render(&self, syms: &SymbolTable<'_>) -> String {
        if let Some(c) = self.as_const() {
            return c.to_string();
        }
        let num = self.numerator.render(&|s| syms.name(s));
        if self.step == 1 {
            num
        } else {
            format!("ceil(({num}) / {})", self.step)
        }
    }
}

/// IV information of one loop.
#[derive(Debug, Clone, Default)]
pub struct LoopIvs<'ctx> {
    /// All IVs of the loop.
    pub ivs: Vec<InductionVar<'ctx>>,
    /// Index in `ivs` of the primary IV.
    pub primary: Option<usize>,
    /// The exit test, when it could be read.
    pub exit: Option<ExitCondition<'ctx>>,
    /// The trip count, when it could be computed.
    pub trip_count: Option<TripCount>,
    /// Range `[lo, hi]` of the primary IV (inclusive) over outer IVs and invariants.
    pub range: Option<(Poly, Poly)>,
    /// Why the trip count or IVs are missing.
    pub remarks: Vec<String>,
}

impl<'ctx> LoopIvs<'ctx> {
    /// The primary IV.
    pub fn primary_iv(&self) -> Option<&InductionVar<'ctx>> {
        self.primary.map(|i| &self.ivs[i])
    }
}

/// A pointer decomposed into a base object and a byte offset.
#[derive(Debug, Clone)]
pub struct Address<'ctx> {
    /// The base pointer (after GEPs and casts are stripped).
    pub base: BasicValueEnum<'ctx>,
    /// Byte offset from the base.
    pub offset: Poly,
    /// Why the address is not analysable, if it is not (offset then meaningless).
    pub problem: Option<String>,
}

#[derive(Debug, Clone, Copy)]
struct IvReg {
    lp: LoopId,
    idx: usize,
}

/// The evaluator: integer values to polys, pointers to addresses.
pub struct Evaluator<'a, 'ctx> {
    cfg: &'a Cfg<'ctx>,
    forest: &'a LoopForest,
    td: &'a TargetData,
    /// Symbols made so far.
    pub symbols: SymbolTable<'ctx>,
    /// Per-loop IV info, indexed by loop.
    pub loop_ivs: Vec<LoopIvs<'ctx>>,
    ivs: HashMap<ValueKey, IvReg>,
    memo: HashMap<ValueKey, Poly>,
    depth: u32,
}

const MAX_DEPTH: u32 = 48;

fn is_phi(i: InstructionValue<'_>) -> bool {
    i.get_opcode() == InstructionOpcode::Phi
}

fn swap_pred(p: IntPredicate) -> IntPredicate {
    use IntPredicate::*;
    match p {
        EQ => EQ,
        NE => NE,
        SLT => SGT,
        SGT => SLT,
        SLE => SGE,
        SGE => SLE,
        ULT => UGT,
        UGT => ULT,
        ULE => UGE,
        UGE => ULE,
    }
}

fn invert_pred(p: IntPredicate) -> IntPredicate {
    use IntPredicate::*;
    match p {
        EQ => NE,
        NE => EQ,
        SLT => SGE,
        SGE => SLT,
        SGT => SLE,
        SLE => SGT,
        ULT => UGE,
        UGE => ULT,
        UGT => ULE,
        ULE => UGT,
    }
}

/// Text form of a predicate (`slt`, `ne`, ...).
pub fn pred_name(p: IntPredicate) -> &'static str {
    use IntPredicate::*;
    match p {
        EQ => "eq",
        NE => "ne",
        SLT => "slt",
        SGT => "sgt",
        SLE => "sle",
        SGE => "sge",
        ULT => "ult",
        UGT => "ugt",
        ULE => "ule",
        UGE => "uge",
    }
}

fn strip_casts<'ctx>(mut v: BasicValueEnum<'ctx>) -> BasicValueEnum<'ctx> {
    for _ in 0..16 {
        match ir::as_instruction(v) {
            Some(i)
                if matches!(
                    i.get_opcode(),
                    InstructionOpcode::SExt | InstructionOpcode::ZExt | InstructionOpcode::Trunc
                ) =>
            {
                match ir::value_operand(i, 0) {
                    Some(o) => v = o,
                    None => return v,
                }
            }
            _ => return v,
        }
    }
    v
}

impl<'a, 'ctx> Evaluator<'a, 'ctx> {
    /// Detects the IVs and trip counts of every loop.
    pub fn new(cfg: &'a Cfg<'ctx>, forest: &'a LoopForest, td: &'a TargetData) -> Self {
        let mut ev = Evaluator {
            cfg,
            forest,
            td,
            symbols: SymbolTable::default(),
            loop_ivs: vec![LoopIvs::default(); forest.len()],
            ivs: HashMap::new(),
            memo: HashMap::new(),
            depth: 0,
        };
        ev.detect_ivs();
        ev.detect_exits();
        ev.compute_starts_and_trips();
        ev
    }

    /// The innermost loop containing an instruction's block.
    pub fn def_loop(&self, i: InstructionValue<'ctx>) -> Option<LoopId> {
        let b = i.get_parent()?;
        let id = self.cfg.id(b)?;
        self.forest.loop_of(id)
    }

    fn detect_ivs(&mut self) {
        for l in &self.forest.loops {
            let header = self.cfg.block(l.header);
            let mut found = Vec::new();
            let mut inst = header.get_first_instruction();
            while let Some(i) = inst {
                if !is_phi(i) {
                    break;
                }
                inst = i.get_next_instruction();
                let Ok(phi) = PhiValue::try_from(i) else {
                    continue;
                };
                if !matches!(phi.as_basic_value(), BasicValueEnum::IntValue(_)) {
                    continue;
                }
                let mut start: Option<BasicValueEnum<'ctx>> = None;
                let mut step: Option<(i64, InstructionValue<'ctx>)> = None;
                let mut ok = true;
                for k in 0..phi.count_incoming() {
                    let Some((v, bb)) = phi.get_incoming(k) else {
                        ok = false;
                        break;
                    };
                    let inside = self.cfg.id(bb).map(|b| l.contains(b)).unwrap_or(false);
                    if inside {
                        match self.step_of(v, i) {
                            Some((c, next)) if step.map(|(s, _)| s == c).unwrap_or(true) => {
                                step = Some((c, next))
                            }
                            _ => {
                                ok = false;
                                break;
                            }
                        }
                    } else {
                        match start {
                            None => start = Some(v),
                            Some(s) if ValueKey::of(&s) == ValueKey::of(&v) => {}
                            Some(_) => {
                                ok = false;
                                break;
                            }
                        }
                    }
                }
                if let (true, Some(sv), Some((c, next))) = (ok, start, step) {
                    if c != 0 {
                        let name = ir::name_of(phi.as_basic_value())
                            .unwrap_or_else(|| format!("iv{}", found.len()));
                        found.push(InductionVar {
                            phi,
                            name,
                            start_value: sv,
                            start: None,
                            step: c,
                            next,
                        });
                    }
                }
            }
            self.loop_ivs[l.id.index()].ivs = found;
        }
    }

    /// `v == phi + c` (add/sub with a constant, possibly `or disjoint`)?
    fn step_of(
        &self,
        v: BasicValueEnum<'ctx>,
        phi: InstructionValue<'ctx>,
    ) -> Option<(i64, InstructionValue<'ctx>)> {
        let i = ir::as_instruction(v)?;
        let a = ir::value_operand(i, 0)?;
        let b = ir::value_operand(i, 1)?;
        let pk = ValueKey::of(&phi);
        match i.get_opcode() {
            InstructionOpcode::Add => {
                if ValueKey::of(&a) == pk {
                    Some((ir::const_int(b)?, i))
                } else if ValueKey::of(&b) == pk {
                    Some((ir::const_int(a)?, i))
                } else {
                    None
                }
            }
            InstructionOpcode::Sub if ValueKey::of(&a) == pk => {
                Some((ir::const_int(b)?.checked_neg()?, i))
            }
            _ => None,
        }
    }

    fn detect_exits(&mut self) {
        for li in 0..self.forest.len() {
            let l = &self.forest.loops[li];
            let mut remarks = Vec::new();
            let exiting = if l.exiting.len() == 1 {
                Some(l.exiting[0])
            } else if l.exiting.is_empty() {
                remarks.push("loop has no exit".to_string());
                None
            } else {
                remarks.push(format!(
                    "{} exiting blocks; only single-exit loops get a trip count",
                    l.exiting.len()
                ));
                None
            };
            let mut exit = None;
            let mut primary = None;
            if let Some(ex) = exiting {
                let after_body = l.latches.contains(&ex);
                if !after_body && ex != l.header {
                    remarks.push(format!(
                        "exit test in {} is neither in the header nor in the latch",
                        self.cfg.name(ex)
                    ));
                } else if let Some(term) = self.cfg.block(ex).get_terminator() {
                    match self.read_exit(li, ex, term, after_body) {
                        Ok((e, p)) => {
                            exit = Some(e);
                            primary = Some(p);
                        }
                        Err(r) => remarks.push(r),
                    }
                }
            }
            if primary.is_none() && !self.loop_ivs[li].ivs.is_empty() {
                // Prefer a unit-step IV as the loop's symbol even without an exit test.
                let ivs = &self.loop_ivs[li].ivs;
                primary = Some(ivs.iter().position(|v| v.step.abs() == 1).unwrap_or(0));
            }
            if self.loop_ivs[li].ivs.is_empty() {
                remarks.push("no induction variable (no header phi stepping by a constant)".into());
            }
            let e = &mut self.loop_ivs[li];
            e.primary = primary;
            // Keep the raw exit (bound filled later).
            e.exit = exit;
            e.remarks.extend(remarks);
        }
        // Register IVs now that primaries are known.
        for li in 0..self.forest.len() {
            for (k, iv) in self.loop_ivs[li].ivs.iter().enumerate() {
                self.ivs.insert(
                    ValueKey::of(&iv.phi),
                    IvReg {
                        lp: LoopId(li as u32),
                        idx: k,
                    },
                );
            }
        }
    }

    /// Reads `br (icmp pred a, b)`: which IV, which offset, continue predicate.
    fn read_exit(
        &self,
        li: usize,
        ex: BlockId,
        term: InstructionValue<'ctx>,
        after_body: bool,
    ) -> Result<(ExitCondition<'ctx>, usize), String> {
        let l = &self.forest.loops[li];
        let (c, t, f) = ir::cond_branch(term)
            .ok_or_else(|| format!("exit of {} is not a conditional branch", self.cfg.name(ex)))?;
        let cmp = ir::as_instruction(c)
            .filter(|i| i.get_opcode() == InstructionOpcode::ICmp)
            .ok_or_else(|| "exit condition is not an integer comparison".to_string())?;
        let pred = cmp
            .get_icmp_predicate()
            .ok_or_else(|| "exit comparison has no predicate".to_string())?;
        let t_in = self.cfg.id(t).map(|b| l.contains(b)).unwrap_or(false);
        let f_in = self.cfg.id(f).map(|b| l.contains(b)).unwrap_or(false);
        let cont = match (t_in, f_in) {
            (true, false) => pred,
            (false, true) => invert_pred(pred),
            _ => return Err("exit branch does not leave the loop on exactly one side".into()),
        };
        let a = ir::value_operand(cmp, 0).ok_or("exit comparison operand")?;
        let b = ir::value_operand(cmp, 1).ok_or("exit comparison operand")?;
        let ivs = &self.loop_ivs[li].ivs;
        let side = |v: BasicValueEnum<'ctx>| -> Option<(usize, i64)> {
            let v = strip_casts(v);
            let k = ValueKey::of(&v);
            for (idx, iv) in ivs.iter().enumerate() {
                if ValueKey::of(&iv.phi) == k {
                    return Some((idx, 0));
                }
                if ValueKey::of(&iv.next) == k {
                    return Some((idx, iv.step));
                }
            }
            None
        };
        let (idx, offset, pred, bound_v, iv_v) = if let Some((idx, off)) = side(a) {
            (idx, off, cont, b, a)
        } else if let Some((idx, off)) = side(b) {
            (idx, off, swap_pred(cont), a, b)
        } else {
            return Err("exit comparison does not test an induction variable".into());
        };
        Ok((
            ExitCondition {
                exiting: ex,
                branch: term,
                cmp,
                continue_predicate: pred,
                offset,
                bound: Poly::zero(),
                bound_value: bound_v,
                iv_value: iv_v,
                after_body,
            },
            idx,
        ))
    }

    fn compute_starts_and_trips(&mut self) {
        for li in 0..self.forest.len() {
            let n = self.loop_ivs[li].ivs.len();
            for k in 0..n {
                let sv = self.loop_ivs[li].ivs[k].start_value;
                let p = self.eval(sv);
                self.loop_ivs[li].ivs[k].start = Some(p);
            }
            let Some(exit) = self.loop_ivs[li].exit.clone() else {
                continue;
            };
            let Some(pi) = self.loop_ivs[li].primary else {
                continue;
            };
            let bv = exit.bound_value;
            let bound = self.eval(bv);
            let lid = LoopId(li as u32);
            if !self.invariant_in(&bound, lid) {
                self.loop_ivs[li]
                    .remarks
                    .push("exit bound varies inside the loop".into());
                continue;
            }
            if let Some(e) = self.loop_ivs[li].exit.as_mut() {
                e.bound = bound.clone();
            }
            let iv = self.loop_ivs[li].ivs[pi].clone();
            let start = iv.start.clone().unwrap_or_default();
            match trip_count(&exit, &bound, &start, iv.step) {
                Ok((tc, range)) => {
                    self.loop_ivs[li].trip_count = Some(tc);
                    self.loop_ivs[li].range = Some(range);
                }
                Err(r) => self.loop_ivs[li].remarks.push(r),
            }
        }
    }

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

    /// Decomposes a pointer into base + byte offset (GEPs over arrays, structs, casts).
    pub fn address(&mut self, p: BasicValueEnum<'ctx>) -> Address<'ctx> {
        let mut offset = Poly::zero();
        let mut cur = p;
        for _ in 0..64 {
            let Some(i) = ir::as_instruction(cur) else {
                return Address {
                    base: cur,
                    offset,
                    problem: None,
                };
            };
            match i.get_opcode() {
                InstructionOpcode::GetElementPtr => {
                    let Some(base) = ir::value_operand(i, 0) else {
                        return Address {
                            base: cur,
                            offset,
                            problem: Some("malformed getelementptr".into()),
                        };
                    };
                    match self.gep_offset(i) {
                        Ok(o) => match offset.add(&o) {
                            Ok(s) => offset = s,
                            Err(_) => {
                                return Address {
                                    base,
                                    offset,
                                    problem: Some("offset overflows i64".into()),
                                }
                            }
                        },
                        Err(r) => {
                            return Address {
                                base,
                                offset,
                                problem: Some(r),
                            }
                        }
                    }
                    cur = base;
                }
                InstructionOpcode::BitCast | InstructionOpcode::AddrSpaceCast => {
                    match ir::value_operand(i, 0) {
                        Some(b) => cur = b,
                        None => {
                            return Address {
                                base: cur,
                                offset,
                                problem: None,
                            }
                        }
                    }
                }
                InstructionOpcode::Phi => {
                    let in_header = i
                        .get_parent()
                        .and_then(|b| self.cfg.id(b))
                        .map(|b| self.forest.loops.iter().any(|l| l.header == b))
                        .unwrap_or(false);
                    let reason = if in_header {
                        "pointer-typed phi in a loop header (pointer induction variables are not supported)"
                    } else {
                        "pointer selected by a phi"
                    };
                    return Address {
                        base: cur,
                        offset,
                        problem: Some(reason.into()),
                    };
                }
                InstructionOpcode::Select => {
                    return Address {
                        base: cur,
                        offset,
                        problem: Some("pointer selected by a select".into()),
                    }
                }
                InstructionOpcode::IntToPtr => {
                    return Address {
                        base: cur,
                        offset,
                        problem: Some("pointer made from an integer (inttoptr)".into()),
                    }
                }
                _ => {
                    return Address {
                        base: cur,
                        offset,
                        problem: None,
                    }
                }
            }
        }
        Address {
            base: cur,
            offset,
            problem: Some("address chain too long".into()),
        }
    }

    fn gep_offset(&mut self, gep: InstructionValue<'ctx>) -> Result<Poly, String> {
        use inkwell::types::BasicTypeEnum;
        let src = gep
            .get_gep_source_element_type()
            .map_err(|_| "getelementptr without a source element type".to_string())?;
        let n = ir::num_operands(gep);
        let mut off = Poly::zero();
        let mut ty: BasicTypeEnum<'ctx> = src;
        for k in 1..n {
            let idx = ir::value_operand(gep, k).ok_or("non-value getelementptr index")?;
            if k == 1 {
                let sz = self.td.get_abi_size(&ty) as i64;
                let e = self.eval(idx);
                off = off
                    .add(&e.scale(sz).map_err(|_| "overflow")?)
                    .map_err(|_| "overflow")?;
                continue;
            }
            match ty {
                BasicTypeEnum::ArrayType(at) => {
                    let et = at.get_element_type();
                    let sz = self.td.get_abi_size(&et) as i64;
                    let e = self.eval(idx);
                    off = off
                        .add(&e.scale(sz).map_err(|_| "overflow")?)
                        .map_err(|_| "overflow")?;
                    ty = et;
                }
                BasicTypeEnum::StructType(st) => {
                    let fi = ir::const_int(idx).ok_or("non-constant struct field index")?;
                    let fo = self
                        .td
                        .offset_of_element(&st, fi as u32)
                        .ok_or("struct field index out of range")?;
                    off = off
                        .add(&Poly::constant(fo as i64))
                        .map_err(|_| "overflow")?;
                    ty = st
                        .get_field_type_at_index(fi as u32)
                        .ok_or("bad struct field")?;
                }
                BasicTypeEnum::VectorType(vt) => {
                    let et = vt.get_element_type();
                    let sz = self.td.get_abi_size(&et) as i64;
                    let e = self.eval(idx);
                    off = off
                        .add(&e.scale(sz).map_err(|_| "overflow")?)
                        .map_err(|_| "overflow")?;
                    ty = et;
                }
                _ => return Err("getelementptr steps into a scalar type".into()),
            }
        }
        Ok(off)
    }
}

/// Computes the trip count and IV range from an exit test.
fn trip_count(
    exit: &ExitCondition<'_>,
    bound: &Poly,
    start: &Poly,
    step: i64,
) -> Result<(TripCount, (Poly, Poly)), String> {
    use IntPredicate::*;
    let ov = |_| "trip count overflows".to_string();
    // Normalise to an increasing IV: negate everything for negative steps.
    let (s, st, b, d, pred) = if step > 0 {
        (
            step,
            start.clone(),
            bound.clone(),
            exit.offset,
            exit.continue_predicate,
        )
    } else {
        (
            -step,
            start.scale(-1).map_err(ov)?,
            bound.scale(-1).map_err(ov)?,
            -exit.offset,
            swap_pred(exit.continue_predicate),
        )
    };
    // `continue while x == B`: at most one more iteration (the step is non-zero).
    if pred == EQ {
        let k = b
            .sub(&st)
            .ok()
            .and_then(|x| x.as_const())
            .ok_or_else(|| "`eq` continue test against a symbolic bound".to_string())?;
        let hit = k == d;
        let t = match (exit.after_body, hit) {
            (true, true) => 2,
            (true, false) => 1,
            (false, true) => 1,
            (false, false) => 0,
        };
        let last = start
            .add(&Poly::constant(step * (t - 1).max(0)))
            .map_err(ov)?;
        let range = if step > 0 {
            (start.clone(), last)
        } else {
            (last, start.clone())
        };
        return Ok((
            TripCount {
                numerator: Poly::constant(t),
                step: 1,
            },
            range,
        ));
    }
    // Continue while `x < bp`.
    let bp = match pred {
        SLT | ULT | NE => b,
        SLE | ULE => b.add(&Poly::constant(1)).map_err(ov)?,
        other => {
            return Err(format!(
                "exit test `{}` with a {} step does not count towards its bound",
                pred_name(other),
                if step > 0 { "positive" } else { "negative" }
            ))
        }
    };
    if pred == NE && s != 1 {
        return Err(format!(
            "`ne` exit test with step {step}: trip count not computed"
        ));
    }
    let e = if exit.after_body { d - s } else { d };
    let num = bp
        .sub(&st)
        .map_err(ov)?
        .sub(&Poly::constant(e))
        .map_err(ov)?;
    // Highest value in the normalised space: bp - e - 1 (exact when s == 1).
    let hi_norm = bp.sub(&Poly::constant(e + 1)).map_err(ov)?;
    let range = if step > 0 {
        (st, hi_norm)
    } else {
        (hi_norm.scale(-1).map_err(ov)?, st.scale(-1).map_err(ov)?)
    };
    Ok((
        TripCount {
            numerator: num,
            step: s,
        },
        range,
    ))
}
