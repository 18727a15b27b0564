//! Exit tests, trip counts and IV ranges (see the parent module for the
//! normalisation of the continue condition to `iv + d < B'`).

use inkwell::values::{BasicValueEnum, InstructionOpcode, InstructionValue};
use inkwell::IntPredicate;

use super::{strip_casts, Evaluator, ExitCondition, IvReg, TripCount};
use crate::cfg::BlockId;
use crate::expr::Poly;
use crate::ir::{self, ValueKey};
use crate::loops::LoopId;

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

impl<'a, 'ctx> Evaluator<'a, 'ctx> {
    pub(super) fn detect_exits(&mut self) {
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

    pub(super) fn compute_starts_and_trips(&mut self) {
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
