//! The soundness hazard of an inspector (§4.4.1, §4.4.6): the inspector
//! evaluates addresses and branches before the executor runs, so a value it
//! loads for them must not be written by the loop itself, or it would read
//! stale data. [`inspector_hazard`] names such a load, proven with the
//! frontend's alias relation; the pass refuses the loop when there is one.

use std::collections::HashMap;

use inkwell::values::InstructionOpcode;
use weft_frontend::deps::{alias, Alias};
use weft_frontend::{AccessKind, FunctionAnalysis, LoopId};

use super::slice::address_slice;
use crate::outline::LoopPlan;
use crate::util;

/// Why the inspector of `plan` could read stale data, if it could (`None`: safe).
pub fn inspector_hazard<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    l: LoopId,
    plan: &LoopPlan<'ctx>,
) -> Option<String> {
    let insts = plan.instructions();
    for i in &insts {
        if matches!(
            i.get_opcode(),
            InstructionOpcode::AtomicRMW
                | InstructionOpcode::AtomicCmpXchg
                | InstructionOpcode::Fence
        ) {
            return Some("atomic operation in the loop".into());
        }
        if i.get_opcode() == InstructionOpcode::Call {
            let n = util::callee_name(*i).unwrap_or_default();
            if n.starts_with("llvm.mem") {
                return Some(format!("memory intrinsic @{n} in the loop"));
            }
        }
    }
    let slice = address_slice(&insts, &|i| plan.contains_inst(i));
    let accesses: HashMap<util::ValueKey, &weft_frontend::Access<'ctx>> = fa
        .accesses_within(l)
        .map(|a| (util::key(&a.inst), a))
        .collect();
    let stores: Vec<&weft_frontend::Access<'ctx>> = fa
        .accesses_within(l)
        .filter(|a| a.kind == AccessKind::Store)
        .collect();
    for i in &insts {
        if i.get_opcode() != InstructionOpcode::Load || !slice.contains(&util::key(i)) {
            continue;
        }
        let Some(a) = accesses.get(&util::key(i)) else {
            return Some("an address depends on a load the frontend did not classify".into());
        };
        for s in &stores {
            if alias(&a.base, &s.base) != Alias::Distinct {
                return Some(format!(
                    "an address or branch depends on {} which the loop may write (store to {})",
                    a.base.name, s.base.name
                ));
            }
        }
    }
    None
}
