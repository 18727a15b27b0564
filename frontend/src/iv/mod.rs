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
//!
//! ## Layout
//!
//! | module | owns |
//! | --- | --- |
//! | this file | the IV types, the [`Evaluator`] and IV detection |
//! | `exit` | exit tests, trip counts and IV ranges |
//! | `eval` | integer SSA values to [`Poly`]s, symbol names |
//! | `address` | pointers to base + byte offset ([`Address`]) |

mod address;
mod eval;
mod exit;

use std::collections::HashMap;

use inkwell::targets::TargetData;
use inkwell::values::{BasicValueEnum, InstructionOpcode, InstructionValue, PhiValue};
use inkwell::IntPredicate;
use serde::Serialize;

use crate::cfg::{BlockId, Cfg};
use crate::expr::Poly;
use crate::ir::{self, ValueKey};
use crate::loops::{LoopForest, LoopId};
use crate::symbols::SymbolTable;

pub use address::Address;
pub use exit::pred_name;

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

fn is_phi(i: InstructionValue<'_>) -> bool {
    i.get_opcode() == InstructionOpcode::Phi
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
}
