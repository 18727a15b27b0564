//! Step 2 of the executor form (§4.4.4, Fig. 4.8(b)): [`clone_body`] clones a
//! planned loop into `void body(ctx, lo, hi)` ([`CloneKind::Executor`]) or the
//! skeleton of an inspector `void inspect(ctx, lo, hi, h)`
//! ([`CloneKind::Inspector`], which `crate::inspector` slices to addresses),
//! remapping operands to the clone and live-ins to context loads.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core::{
    LLVMBasicBlockAsValue, LLVMGetNumOperands, LLVMGetOperand, LLVMSetOperand,
    LLVMValueAsBasicBlock, LLVMValueIsBasicBlock,
};
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum, StructType};
use inkwell::values::{
    AsValueRef, BasicValue, BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue,
    IntValue, PhiValue,
};
use inkwell::{AddressSpace, AtomicOrdering, IntPredicate};

use super::ir::util_err;
use super::plan::LoopPlan;
use crate::error::Result;
use crate::util::{self, ValueKey};

/// What [`clone_body`] builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloneKind {
    /// `void body(ptr ctx, i64 lo, i64 hi)`; reductions combine into the context.
    Executor,
    /// `void body(ptr ctx, i64 lo, i64 hi)` whose reductions store their
    /// partial into the context with a plain store: for
    /// [`crate::outline::emit_ordered`], which gives every block of iterations
    /// its own copy of the context and combines the partials in block order.
    Partial,
    /// `void inspect(ptr ctx, i64 lo, i64 hi, ptr handle)`; reductions are ignored
    /// (the caller slices the clone down to address computations).
    Inspector,
}

/// A cloned loop function.
pub struct ClonedBody<'ctx> {
    /// The new function.
    pub function: FunctionValue<'ctx>,
    /// Original instruction → its clone.
    pub map: HashMap<ValueKey, InstructionValue<'ctx>>,
    /// The normalised iteration number `k` (an `i64` phi in the cloned header).
    pub k: IntValue<'ctx>,
}

/// The context struct type of a plan: live-ins, then one slot per reduction,
/// then the trip count when a private copy is written back
/// ([`trip_count_slot`]).
pub fn context_type<'ctx>(module: &Module<'ctx>, plan: &LoopPlan<'ctx>) -> StructType<'ctx> {
    let mut fields: Vec<BasicTypeEnum<'ctx>> = plan.live_ins.iter().map(|v| v.get_type()).collect();
    for r in &plan.reductions {
        fields.push(r.phi.as_basic_value().get_type());
    }
    if trip_count_slot(plan).is_some() {
        fields.push(module.get_context().i64_type().into());
    }
    for v in &plan.last_values {
        if let Some(bv) = util::basic_value(v.as_value_ref()) {
            fields.push(bv.get_type());
        }
    }
    module.get_context().struct_type(&fields, false)
}

/// The context slot holding the trip count, which the body that runs the
/// last iteration needs to write its private copies back.
pub fn trip_count_slot(plan: &LoopPlan<'_>) -> Option<u32> {
    (plan.private.iter().any(|p| p.write_back) || !plan.last_values.is_empty())
        .then_some((plan.live_ins.len() + plan.reductions.len()) as u32)
}

/// The context slot of last value `j` (after the trip count).
pub fn last_value_slot(plan: &LoopPlan<'_>, j: usize) -> u32 {
    (plan.live_ins.len() + plan.reductions.len() + 1 + j) as u32
}

pub(super) fn unique_name(module: &Module<'_>, base: &str) -> String {
    let mut n = 0;
    loop {
        let name = format!("{base}.{n}");
        if module.get_function(&name).is_none() {
            return name;
        }
        n += 1;
    }
}

/// Clones the loop of `plan` into a new internal function.
pub fn clone_body<'ctx>(
    module: &Module<'ctx>,
    plan: &LoopPlan<'ctx>,
    kind: CloneKind,
) -> Result<ClonedBody<'ctx>> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let ptrt = cx.ptr_type(AddressSpace::default());
    let mut params: Vec<BasicMetadataTypeEnum<'ctx>> = vec![ptrt.into(), i64t.into(), i64t.into()];
    if kind == CloneKind::Inspector {
        params.push(ptrt.into());
    }
    let fty = cx.void_type().fn_type(&params, false);
    let suffix = match kind {
        CloneKind::Executor | CloneKind::Partial => "weft.body",
        CloneKind::Inspector => "weft.inspect",
    };
    let name = unique_name(module, &format!("{}.{suffix}", plan.function_name));
    let f = module.add_function(&name, fty, Some(Linkage::Internal));
    let ctx_arg = f.get_nth_param(0).expect("param 0").into_pointer_value();
    let lo = f.get_nth_param(1).expect("param 1").into_int_value();
    let hi = f.get_nth_param(2).expect("param 2").into_int_value();
    ctx_arg.set_name("ctx");
    lo.set_name("lo");
    hi.set_name("hi");
    if kind == CloneKind::Inspector {
        f.get_nth_param(3).expect("param 3").set_name("insp");
    }
    let b = cx.create_builder();
    let entry = cx.append_basic_block(f, "entry");
    let mut bmap: HashMap<usize, BasicBlock<'ctx>> = HashMap::new();
    for bb in &plan.blocks {
        let nb = cx.append_basic_block(f, &bb.get_name().to_string_lossy());
        bmap.insert(util::bkey(*bb), nb);
    }
    let exit_bb = cx.append_basic_block(f, "weft.exit");
    let empty_bb = cx.append_basic_block(f, "weft.empty");
    let nheader = bmap[&util::bkey(plan.header)];
    let nlatch = bmap[&util::bkey(plan.latch)];

    // Entry: load live-ins, guard the empty range.
    let sty = context_type(module, plan);
    let mut vmap: HashMap<ValueKey, BasicValueEnum<'ctx>> = HashMap::new();
    b.position_at_end(entry);
    for (j, v) in plan.live_ins.iter().enumerate() {
        let p = b.build_struct_gep(sty, ctx_arg, j as u32, "")?;
        let x = b.build_load(
            v.get_type(),
            p,
            &format!("{}.in", v.get_name().to_string_lossy()),
        )?;
        vmap.insert(util::key(v), x);
    }
    // Private copies (privatised objects): fresh per call, started from the
    // original when they are written back.
    let mut copies = Vec::new();
    for p in &plan.private {
        let c = b.build_alloca(p.ty, "weft.private")?;
        if p.write_back && kind != CloneKind::Inspector {
            let size =
                p.ty.size_of()
                    .ok_or_else(|| util_err("unsized private object"))?;
            b.build_memcpy(c, 8, p.value, 8, size)
                .map_err(|e| util_err(&format!("memcpy: {e}")))?;
        }
        vmap.insert(util::key(&p.value), c.into());
        copies.push(c);
    }
    let nonempty = b.build_int_compare(IntPredicate::SLT, lo, hi, "weft.nonempty")?;
    b.build_conditional_branch(nonempty, nheader, empty_bb)?;
    b.position_at_end(empty_bb);
    b.build_return(None)?;

    // k phi first in the new header.
    b.position_at_end(nheader);
    let kphi = b.build_phi(i64t, "weft.k")?;
    let k = kphi.as_basic_value().into_int_value();

    // Clone instructions; phis are rebuilt, IV phis replaced after.
    let mut imap: HashMap<ValueKey, InstructionValue<'ctx>> = HashMap::new();
    let mut new_phis: Vec<(PhiValue<'ctx>, PhiValue<'ctx>)> = Vec::new();
    let mut red_phis: Vec<(usize, PhiValue<'ctx>)> = Vec::new();
    let mut clones: Vec<InstructionValue<'ctx>> = Vec::new();
    for bb in &plan.blocks {
        let nb = bmap[&util::bkey(*bb)];
        b.position_at_end(nb);
        for i in util::instructions(*bb) {
            let name = i
                .get_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if i.get_opcode() == InstructionOpcode::Phi {
                let phi = PhiValue::try_from(i).map_err(|_| util_err("malformed phi"))?;
                if *bb == plan.header && plan.ivs.iter().any(|v| v.phi == phi) {
                    continue;
                }
                let np = b.build_phi(phi.as_basic_value().get_type(), &name)?;
                imap.insert(util::key(&i), np.as_instruction());
                vmap.insert(util::key(&i), np.as_basic_value());
                if let Some(j) = plan.reductions.iter().position(|r| r.phi == phi) {
                    red_phis.push((j, np));
                } else {
                    new_phis.push((phi, np));
                }
                continue;
            }
            if i.get_opcode() == InstructionOpcode::Call
                && util::callee_name(i).is_some_and(|n| n.starts_with("llvm.dbg."))
            {
                continue;
            }
            let c = i.explicit_clone();
            b.insert_instruction(&c, None);
            if !name.is_empty() {
                let _ = c.set_name(&name);
            }
            imap.insert(util::key(&i), c);
            if let Some(v) = util::basic_value(c.as_value_ref()) {
                vmap.insert(util::key(&i), v);
            }
            clones.push(c);
        }
    }

    // IV values: start + k*step, after the header's phis.
    let first_non_phi = util::instructions(nheader)
        .into_iter()
        .find(|i| i.get_opcode() != InstructionOpcode::Phi);
    match first_non_phi {
        Some(i) => b.position_before(&i),
        None => b.position_at_end(nheader),
    }
    for iv in &plan.ivs {
        let start = map_value(&vmap, iv.start);
        let val: BasicValueEnum<'ctx> = match start {
            BasicValueEnum::IntValue(s) => {
                let t = s.get_type();
                let kt = if t.get_bit_width() == 64 {
                    k
                } else if t.get_bit_width() < 64 {
                    b.build_int_truncate(k, t, "")?
                } else {
                    b.build_int_s_extend(k, t, "")?
                };
                let off = b.build_int_mul(kt, t.const_int(iv.step as u64, true), "")?;
                b.build_int_add(s, off, &iv.phi.get_name().to_string_lossy())?
                    .as_basic_value_enum()
            }
            BasicValueEnum::PointerValue(p) => {
                let off = b.build_int_mul(k, i64t.const_int(iv.step as u64, true), "")?;
                // SAFETY: byte GEP from the loop's own start pointer, as the original IV.
                unsafe {
                    b.build_gep(
                        cx.i8_type(),
                        p,
                        &[off],
                        &iv.phi.get_name().to_string_lossy(),
                    )?
                }
                .as_basic_value_enum()
            }
            _ => return Err(util_err("induction variable of unsupported type")),
        };
        vmap.insert(util::key(&iv.phi), val);
    }

    // Remap operands of cloned instructions.
    for c in &clones {
        remap_operands(*c, &vmap, &bmap);
    }
    for (old, np) in &new_phis {
        for j in 0..old.count_incoming() {
            let (v, bb) = old
                .get_incoming(j)
                .ok_or_else(|| util_err("phi incoming"))?;
            let nb = *bmap
                .get(&util::bkey(bb))
                .ok_or_else(|| util_err("phi incoming from outside the loop"))?;
            let nv = map_value(&vmap, v);
            np.add_incoming(&[(&nv as &dyn BasicValue<'ctx>, nb)]);
        }
    }

    // Back edge counter and the new exit test.
    let term = plan
        .latch
        .get_terminator()
        .ok_or_else(|| util_err("latch without terminator"))?;
    let nlatch_term = imap[&util::key(&term)];
    b.position_before(&nlatch_term);
    let knext = b.build_int_add(k, i64t.const_int(1, false), "weft.k.next")?;
    kphi.add_incoming(&[(&lo, entry), (&knext, nlatch)]);
    let eterm = plan
        .exiting
        .get_terminator()
        .ok_or_else(|| util_err("exiting block without terminator"))?;
    let neterm = imap[&util::key(&eterm)];
    let (_, t, fsucc) = util::cond_branch(eterm)
        .ok_or_else(|| util_err("exit test is not a conditional branch"))?;
    let inside = if plan.contains_block(t) { t } else { fsucc };
    let ninside = bmap[&util::bkey(inside)];
    b.position_before(&neterm);
    let cont = if plan.after_body {
        b.build_int_compare(IntPredicate::SLT, knext, hi, "weft.cont")?
    } else {
        b.build_int_compare(IntPredicate::SLT, k, hi, "weft.cont")?
    };
    b.build_conditional_branch(cont, ninside, exit_bb)?;
    neterm.erase_from_basic_block();

    // Reductions: local partial from the identity, combined atomically at exit
    // (or stored, for `ordered`'s per-block contexts).
    b.position_at_end(exit_bb);
    for (j, np) in &red_phis {
        let r = &plan.reductions[*j];
        let ty = r.phi.as_basic_value().get_type();
        let identity: BasicValueEnum<'ctx> = match ty {
            BasicTypeEnum::IntType(it) => it.const_int(r.op.identity(), false).into(),
            BasicTypeEnum::FloatType(ft) => ft.const_float(r.op.float_identity()).into(),
            _ => return Err(util_err("reduction of unsupported type")),
        };
        let upd = map_value(&vmap, r.update.as_value_ref_basic()?);
        np.add_incoming(&[(&identity, entry), (&upd, nlatch)]);
        let partial = if plan.after_body {
            upd
        } else {
            np.as_basic_value()
        };
        let slot = || b.build_struct_gep(sty, ctx_arg, (plan.live_ins.len() + j) as u32, "");
        match kind {
            CloneKind::Executor => {
                if r.op.is_float() {
                    return Err(util_err(
                        "floating-point reduction needs the ordered executor (CloneKind::Partial)",
                    ));
                }
                b.build_atomicrmw(
                    r.op.atomic(),
                    slot()?,
                    partial.into_int_value(),
                    AtomicOrdering::Monotonic,
                )?;
            }
            CloneKind::Partial => {
                b.build_store(slot()?, partial)?;
            }
            CloneKind::Inspector => {}
        }
    }
    // The body that ran the last iteration writes its copies back.
    if let (Some(slot), true) = (trip_count_slot(plan), kind != CloneKind::Inspector) {
        let p = b.build_struct_gep(sty, ctx_arg, slot, "")?;
        let tc = b.build_load(i64t, p, "weft.tc")?.into_int_value();
        let last = b.build_int_compare(IntPredicate::EQ, hi, tc, "weft.last")?;
        let wb = cx.append_basic_block(f, "weft.writeback");
        let done = cx.append_basic_block(f, "weft.done");
        b.build_conditional_branch(last, wb, done)?;
        b.position_at_end(wb);
        for (j, v) in plan.last_values.iter().enumerate() {
            let val = map_value(&vmap, v.as_value_ref_basic()?);
            let slot = b.build_struct_gep(sty, ctx_arg, last_value_slot(plan, j), "")?;
            b.build_store(slot, val)?;
        }
        for (p, c) in plan.private.iter().zip(&copies) {
            if p.write_back {
                let size =
                    p.ty.size_of()
                        .ok_or_else(|| util_err("unsized private object"))?;
                b.build_memcpy(p.value, 8, *c, 8, size)
                    .map_err(|e| util_err(&format!("memcpy: {e}")))?;
            }
        }
        b.build_unconditional_branch(done)?;
        b.position_at_end(done);
    }
    b.build_return(None)?;

    Ok(ClonedBody {
        function: f,
        map: imap,
        k,
    })
}

/// Makes load or store `i` a relaxed (`monotonic`) atomic access of
/// alignment `align`: the form of the per-module flags and per-site globals
/// that generated code shares between threads.
pub fn relaxed(i: Option<InstructionValue<'_>>, align: u32) -> Result<()> {
    let i = i.ok_or_else(|| util_err("atomic access is not an instruction"))?;
    i.set_atomic_ordering(AtomicOrdering::Monotonic)
        .and_then(|_| i.set_alignment(align))
        .map_err(|e| util_err(&format!("atomic access: {e}")))
}

pub(super) trait AsBasic<'ctx> {
    fn as_value_ref_basic(&self) -> Result<BasicValueEnum<'ctx>>;
}

impl<'ctx> AsBasic<'ctx> for InstructionValue<'ctx> {
    fn as_value_ref_basic(&self) -> Result<BasicValueEnum<'ctx>> {
        util::basic_value(self.as_value_ref()).ok_or_else(|| util_err("void reduction update"))
    }
}

pub(super) fn map_value<'ctx>(
    vmap: &HashMap<ValueKey, BasicValueEnum<'ctx>>,
    v: BasicValueEnum<'ctx>,
) -> BasicValueEnum<'ctx> {
    vmap.get(&util::key(&v)).copied().unwrap_or(v)
}

pub(super) fn remap_operands<'ctx>(
    c: InstructionValue<'ctx>,
    vmap: &HashMap<ValueKey, BasicValueEnum<'ctx>>,
    bmap: &HashMap<usize, BasicBlock<'ctx>>,
) {
    // SAFETY: `c` is a live instruction; replacements have the operand's type
    // (value clones) or are blocks (branch targets).
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
                continue;
            }
            if let Some(nv) = vmap.get(&ValueKey(op as usize)) {
                LLVMSetOperand(r, j, nv.as_value_ref());
            }
        }
    }
}
