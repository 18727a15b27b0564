//! Scalar reductions: a header phi `s` whose only in-loop use is one update
//! `s' = s op x` feeding back into `s` (dissertation §5.5.1, reductions as a
//! parallel pattern).
//!
//! `op` is one of `add`, `sub` (phi on the left), `mul`, `and`, `or`, `xor`,
//! the integer `smin`/`smax`/`umin`/`umax` intrinsics, or a floating-point
//! `fadd`, `fsub`, `fmul`, `fmuladd`/`fma` (phi as the addend),
//! `minnum`/`maxnum`/`minimum`/`maximum`. The frontend only recognises the
//! pattern; whether a pass may reorder it (integer ops always, floating-point
//! ones only with `--fp-reassoc`) is the pass's decision.

use inkwell::values::{InstructionOpcode, InstructionValue, PhiValue};

use crate::cfg::Cfg;
use crate::ir::{self, ValueKey};
use crate::loops::{LoopForest, LoopId};

/// A loop-carried scalar reduction.
#[derive(Debug, Clone)]
pub struct Reduction<'ctx> {
    /// The header phi accumulating the value.
    pub phi: PhiValue<'ctx>,
    /// Its name.
    pub name: String,
    /// The operation (`fadd`, `fmuladd`, `add`, ...).
    pub op: String,
    /// The instruction combining the phi with the new value.
    pub update: InstructionValue<'ctx>,
}

fn in_loop(cfg: &Cfg<'_>, forest: &LoopForest, l: LoopId, i: InstructionValue<'_>) -> bool {
    i.get_parent()
        .and_then(|b| cfg.id(b))
        .map(|b| forest.get(l).contains(b))
        .unwrap_or(false)
}

/// `phi -> update -> phi` with `update = op(phi, x)` and no other in-loop use of either.
pub fn reduction<'ctx>(
    cfg: &Cfg<'ctx>,
    forest: &LoopForest,
    l: LoopId,
    phi: PhiValue<'ctx>,
) -> Option<(String, InstructionValue<'ctx>)> {
    let lp = forest.get(l);
    let mut update = None;
    for k in 0..phi.count_incoming() {
        let (v, bb) = phi.get_incoming(k)?;
        if lp.contains(cfg.id(bb)?) {
            let u = ir::as_instruction(v)?;
            match update {
                None => update = Some(u),
                Some(p) if p == u => {}
                Some(_) => return None,
            }
        }
    }
    let u = update?;
    let pk = ValueKey::of(&phi);
    let ops = ir::value_operands(u);
    let uses_phi = ops.iter().filter(|o| ValueKey::of(*o) == pk).count();
    if uses_phi != 1 {
        return None;
    }
    let op = match u.get_opcode() {
        InstructionOpcode::Add => "add".to_string(),
        InstructionOpcode::FAdd => "fadd".into(),
        InstructionOpcode::Mul => "mul".into(),
        InstructionOpcode::FMul => "fmul".into(),
        InstructionOpcode::And => "and".into(),
        InstructionOpcode::Or => "or".into(),
        InstructionOpcode::Xor => "xor".into(),
        InstructionOpcode::Sub | InstructionOpcode::FSub if ValueKey::of(&ops[0]) == pk => {
            if u.get_opcode() == InstructionOpcode::Sub {
                "sub".into()
            } else {
                "fsub".into()
            }
        }
        InstructionOpcode::Call => {
            let name = ir::callee_name(u)?;
            let short = name.trim_start_matches("llvm.");
            let base = short.split('.').next().unwrap_or("");
            match base {
                "fmuladd" | "fma" if ValueKey::of(&ops[2]) == pk => base.to_string(),
                "smax" | "smin" | "umax" | "umin" | "maxnum" | "minnum" | "maximum" | "minimum" => {
                    base.to_string()
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    // The phi feeds only the update inside the loop; the update feeds only the
    // phi (and uses outside the loop, e.g. the LCSSA phi).
    for user in ir::users(&phi) {
        if in_loop(cfg, forest, l, user) && user != u {
            return None;
        }
    }
    for user in ir::users(&u) {
        if in_loop(cfg, forest, l, user) && ValueKey::of(&user) != pk {
            return None;
        }
    }
    Some((op, u))
}
