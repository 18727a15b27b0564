//! `loop-distribute`: splits a loop that is not parallel into two loops over
//! the same iterations when one of them is parallel (issue 35; Allen &
//! Kennedy §2.4, LLVM's `LoopDistribute`). Legality and the choice of the cut
//! are the frontend's ([`weft_frontend::distribution`]); this pass rewrites
//! the IR, and `parallel-for` (after it in the default pipeline) then runs
//! the parallel loop.
//!
//! ```text
//! pre: ...                      pre: ...
//! H:  iv = phi [init, pre],     H:  iv = phi [init, pre], [next, T]
//!          [next, T]                P1
//!     P1 ... br C                   ... br T            (was C)
//! C:  P2 ... br T               T:  next = iv + 1; br H or H2   (was exit)
//! T:  next = iv + 1             H2: iv2 = phi [init, T], [next2, T2]
//!     br H or exit                  rebuilt address values of P1 used by P2
//!                                   br C'
//!                               C': P2' ... br T2
//!                               T2: next2 = iv2 + 1; br H2 or exit
//! ```
//!
//! The loops are bottom-tested, so the second runs as many iterations as the
//! first (at least one). The original second part is deleted. A loop the
//! pass creates is not split again; a loop may be split at most
//! [`MAX_SPLITS`] times per function.

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core::{
    LLVMBasicBlockAsValue, LLVMGetNumOperands, LLVMGetOperand, LLVMGetPoison,
    LLVMReplaceAllUsesWith, LLVMSetOperand, LLVMTypeOf, LLVMValueAsBasicBlock,
    LLVMValueIsBasicBlock,
};
use inkwell::module::Module;
use inkwell::values::{
    AsValueRef, BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue, PhiValue,
};
use weft_frontend::distribution::{self, Split};
use weft_frontend::{FunctionAnalysis, LoopId};

use crate::error::{PassError, Result};
use crate::manager::{Changed, Pass, PassContext, RemarkKind};
use crate::parallel::selected;
use crate::pipeline::PassOptions;
use crate::util::{self, ValueKey};

/// Options of `loop-distribute`.
pub const OPTIONS: &[(&str, &str)] = &[(
    "only",
    "`|`-separated globs of functions to transform (default: all defined)",
)];

/// Splits per function, at most.
pub const MAX_SPLITS: usize = 8;

/// The `loop-distribute` pass.
#[derive(Debug, Clone, Default)]
pub struct LoopDistribute {
    /// Function globs; empty = all.
    pub only: Vec<String>,
}

impl LoopDistribute {
    /// Builds the pass from its options.
    pub fn from_options(o: &PassOptions) -> Result<LoopDistribute> {
        Ok(LoopDistribute {
            only: o.list("only"),
        })
    }
}

fn err(m: &str) -> PassError {
    PassError::Internal(format!("loop-distribute: {m}"))
}

/// The first loop (outermost first) with a split, and the `missed` reasons of
/// loops before it whose split was refused at a cut.
fn find<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    skip: &HashSet<usize>,
) -> (Option<Split<'ctx>>, Vec<(LoopId, String)>) {
    let mut missed = Vec::new();
    let mut stack: Vec<LoopId> = fa.forest.roots.iter().rev().copied().collect();
    while let Some(l) = stack.pop() {
        for &c in fa.forest.get(l).children.iter().rev() {
            stack.push(c);
        }
        if skip.contains(&util::bkey(fa.cfg.block(fa.forest.get(l).header))) {
            continue;
        }
        match distribution::split(fa, l) {
            Ok(s) => return (Some(s), missed),
            Err(e) if e.starts_with("at ") => missed.push((l, e)),
            Err(_) => {}
        }
    }
    (None, missed)
}

impl Pass for LoopDistribute {
    fn name(&self) -> &'static str {
        "loop-distribute"
    }

    fn run<'ctx>(&self, module: &Module<'ctx>, cx: &mut PassContext<'ctx>) -> Result<Changed> {
        let names: Vec<String> = module
            .get_functions()
            .filter(|f| f.count_basic_blocks() > 0)
            .map(|f| f.get_name().to_string_lossy().into_owned())
            .filter(|n| selected(&self.only, n))
            .collect();
        if !names.is_empty() {
            util::run_llvm_passes(module, "function(loop-simplify)")?;
            cx.invalidate();
        }
        let mut changed = false;
        for name in names {
            // Headers of loops remarked on or created: not looked at again.
            let mut skip: HashSet<usize> = HashSet::new();
            for _ in 0..MAX_SPLITS {
                let a = cx.analysis(module);
                let Some(fa) = a.function(&name) else { break };
                let (found, missed) = find(fa, &skip);
                for (l, why) in missed {
                    let label = cx.loop_label(fa, l);
                    skip.insert(util::bkey(fa.cfg.block(fa.forest.get(l).header)));
                    cx.remark(
                        &name,
                        Some(label),
                        RemarkKind::Missed,
                        format!("not distributed: {why}"),
                    );
                }
                let Some(s) = found else { break };
                let label = cx.loop_label(fa, s.loop_id);
                let h2 = apply(module, fa, &s)?;
                skip.insert(util::bkey(h2));
                let which = |p: bool| if p { "parallel" } else { "sequential" };
                cx.remark(
                    &name,
                    Some(label),
                    RemarkKind::Applied,
                    format!(
                        "distributed at {} into two loops: the first {}, the second {} ({} value(s) rebuilt in the second)",
                        fa.cfg.name(s.cut),
                        which(s.parallel[0]),
                        which(s.parallel[1]),
                        s.remat.len()
                    ),
                );
                cx.invalidate();
                changed = true;
            }
        }
        Ok(Changed::from_bool(changed))
    }
}

/// Rewrites loop `s.loop_id` of `fa` as two loops; returns the second's header.
fn apply<'ctx>(
    module: &Module<'ctx>,
    fa: &FunctionAnalysis<'ctx>,
    s: &Split<'ctx>,
) -> Result<BasicBlock<'ctx>> {
    let cx = module.get_context();
    let cfg = &fa.cfg;
    let lp = fa.forest.get(s.loop_id);
    let (h, t, c) = (cfg.block(s.header), cfg.block(s.latch), cfg.block(s.cut));
    let exit = cfg.block(lp.exits[0]);
    let second: Vec<BasicBlock<'ctx>> = s.second.iter().map(|&b| cfg.block(b)).collect();
    let first: Vec<BasicBlock<'ctx>> = lp
        .blocks
        .iter()
        .filter(|&&b| b != s.latch && !s.second.contains(&b))
        .map(|&b| cfg.block(b))
        .collect();
    let name = |b: BasicBlock<'_>| format!("{}.dist", b.get_name().to_string_lossy());

    let mut bmap: HashMap<usize, BasicBlock<'ctx>> = HashMap::new();
    let h2 = cx.insert_basic_block_after(t, &name(h));
    bmap.insert(util::bkey(h), h2);
    let mut last = h2;
    for &bb in second.iter().chain(std::iter::once(&t)) {
        let nb = cx.insert_basic_block_after(last, &name(bb));
        bmap.insert(util::bkey(bb), nb);
        last = nb;
    }
    let t2 = bmap[&util::bkey(t)];

    let b = cx.create_builder();
    let mut vmap: HashMap<ValueKey, BasicValueEnum<'ctx>> = HashMap::new();
    let mut clones: Vec<InstructionValue<'ctx>> = Vec::new();
    let mut phis: Vec<(PhiValue<'ctx>, PhiValue<'ctx>)> = Vec::new();
    b.position_at_end(h2);
    let mut iv_phis = Vec::new();
    for p in &s.phis {
        let np = b.build_phi(p.as_basic_value().get_type(), &iv_name(p))?;
        vmap.insert(util::key(p), np.as_basic_value());
        iv_phis.push((*p, np));
    }
    for i in &s.remat {
        clones.push(clone_into(&b, *i, &mut vmap));
    }
    b.build_unconditional_branch(bmap[&util::bkey(c)])?;
    for &bb in second.iter().chain(std::iter::once(&t)) {
        b.position_at_end(bmap[&util::bkey(bb)]);
        for i in util::instructions(bb) {
            if i.get_opcode() == InstructionOpcode::Phi {
                let p = PhiValue::try_from(i).map_err(|_| err("malformed phi"))?;
                let np = b.build_phi(p.as_basic_value().get_type(), &iv_name(&p))?;
                vmap.insert(util::key(&i), np.as_basic_value());
                phis.push((p, np));
            } else {
                clones.push(clone_into(&b, i, &mut vmap));
            }
        }
    }
    for &i in &clones {
        remap(i, &vmap, &bmap);
    }
    let map = |v: BasicValueEnum<'ctx>| vmap.get(&util::key(&v)).copied().unwrap_or(v);
    for (p, np) in &phis {
        for k in 0..p.count_incoming() {
            let (v, bb) = p.get_incoming(k).ok_or_else(|| err("phi incoming"))?;
            // (the edge from the first part into the cut now comes from H2)
            let nb = match bmap.get(&util::bkey(bb)) {
                Some(nb) => *nb,
                None if first.contains(&bb) => h2,
                None => {
                    return Err(err(
                        "phi of the second part with an edge from outside the loop",
                    ))
                }
            };
            np.add_incoming(&[(&map(v) as &dyn BasicValue<'ctx>, nb)]);
        }
    }
    for (p, np) in &iv_phis {
        for k in 0..p.count_incoming() {
            let (v, bb) = p.get_incoming(k).ok_or_else(|| err("phi incoming"))?;
            if bb == t {
                np.add_incoming(&[(&map(v) as &dyn BasicValue<'ctx>, t2)]);
            } else {
                // (the first loop's exit edge enters the second loop)
                np.add_incoming(&[(&v as &dyn BasicValue<'ctx>, t)]);
            }
        }
    }

    // The first loop: its body ends where the second part began; its exit
    // enters the second loop.
    for bb in &first {
        if let Some(term) = bb.get_terminator() {
            replace_block(term, c, t);
        }
    }
    let term = t
        .get_terminator()
        .ok_or_else(|| err("latch without terminator"))?;
    replace_block(term, exit, h2);
    delete_blocks(&second);
    Ok(h2)
}

fn iv_name(p: &PhiValue<'_>) -> String {
    let n = p.get_name().to_string_lossy();
    if n.is_empty() {
        String::new()
    } else {
        format!("{n}.dist")
    }
}

/// Clones `i` at the builder's position, recording it in `vmap`.
fn clone_into<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    i: InstructionValue<'ctx>,
    vmap: &mut HashMap<ValueKey, BasicValueEnum<'ctx>>,
) -> InstructionValue<'ctx> {
    let c = i.explicit_clone();
    b.insert_instruction(&c, None);
    if let Some(n) = i.get_name() {
        let n = n.to_string_lossy();
        if !n.is_empty() {
            let _ = c.set_name(&format!("{n}.dist"));
        }
    }
    if let Some(v) = util::basic_value(c.as_value_ref()) {
        vmap.insert(util::key(&i), v);
    }
    c
}

/// Replaces operands of `c` found in the value and block maps.
fn remap<'ctx>(
    c: InstructionValue<'ctx>,
    vmap: &HashMap<ValueKey, BasicValueEnum<'ctx>>,
    bmap: &HashMap<usize, BasicBlock<'ctx>>,
) {
    // SAFETY: `c` is a live instruction; replacements are clones of the
    // operand (same type) or blocks of the same function (branch targets).
    unsafe {
        let r = c.as_value_ref();
        let n = LLVMGetNumOperands(r).max(0) as u32;
        for j in 0..n {
            let op = LLVMGetOperand(r, j);
            if op.is_null() {
                continue;
            }
            if LLVMValueIsBasicBlock(op) != 0 {
                let bb = LLVMValueAsBasicBlock(op);
                if let Some(nb) = bmap.get(&(bb as usize)) {
                    LLVMSetOperand(r, j, LLVMBasicBlockAsValue(nb.as_mut_ptr()));
                }
            } else if let Some(nv) = vmap.get(&ValueKey(op as usize)) {
                LLVMSetOperand(r, j, nv.as_value_ref());
            }
        }
    }
}

/// Makes terminator `term` branch to `to` where it branched to `from`.
fn replace_block<'ctx>(term: InstructionValue<'ctx>, from: BasicBlock<'ctx>, to: BasicBlock<'ctx>) {
    let mut m = HashMap::new();
    m.insert(util::bkey(from), to);
    remap(term, &HashMap::new(), &m);
}

/// Deletes the original second part, now unreachable (uses among its blocks
/// are dropped first; nothing outside them uses their values).
fn delete_blocks(blocks: &[BasicBlock<'_>]) {
    // SAFETY: the blocks are unreachable and their values are used only
    // inside them, so replacing those uses with poison and erasing is sound.
    unsafe {
        for bb in blocks {
            for i in util::instructions(*bb) {
                let r = i.as_value_ref();
                if util::basic_value(r).is_some() {
                    LLVMReplaceAllUsesWith(r, LLVMGetPoison(LLVMTypeOf(r)));
                }
            }
        }
        for bb in blocks {
            for i in util::instructions(*bb).into_iter().rev() {
                i.erase_from_basic_block();
            }
        }
        for bb in blocks {
            let _ = bb.delete();
        }
    }
}
