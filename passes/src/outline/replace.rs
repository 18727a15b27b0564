//! Step 3 of the executor form (§4.4.4, Fig. 4.8(b)): [`replace_loop`] fills
//! the context in the preheader, materialises the trip count
//! ([`emit_trip_count`]), lets the pass emit its runtime call (or the inline
//! call below the short-loop threshold), rewrites live-outs and deletes the
//! original loop.

use inkwell::builder::Builder;
use inkwell::llvm_sys::core::LLVMReplaceAllUsesWith;
use inkwell::module::{Linkage, Module};
use inkwell::values::{
    AsValueRef, BasicValue, BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue,
    IntValue, PhiValue, PointerValue,
};
use inkwell::IntPredicate;

use super::clone::{context_type, relaxed};
use super::ir::{delete_blocks, util_err};
use super::plan::{LiveOut, LoopPlan};
use crate::error::Result;
use crate::util;

/// Materialises the plan's trip count as an `i64` at the builder's position.
pub fn emit_trip_count<'ctx>(
    module: &Module<'ctx>,
    b: &Builder<'ctx>,
    plan: &LoopPlan<'ctx>,
) -> Result<IntValue<'ctx>> {
    let i64t = module.get_context().i64_type();
    let mut num = i64t.const_zero();
    for (coeff, vals) in &plan.trip_terms {
        let mut t = i64t.const_int(*coeff as u64, true);
        for v in vals {
            let x = match v {
                BasicValueEnum::IntValue(iv) => {
                    let w = iv.get_type().get_bit_width();
                    if w == 64 {
                        *iv
                    } else if w < 64 {
                        b.build_int_s_extend(*iv, i64t, "")?
                    } else {
                        b.build_int_truncate(*iv, i64t, "")?
                    }
                }
                BasicValueEnum::PointerValue(p) => b.build_ptr_to_int(*p, i64t, "")?,
                _ => return Err(util_err("trip count over a non-integer")),
            };
            t = b.build_int_mul(t, x, "")?;
        }
        num = b.build_int_add(num, t, "")?;
    }
    let step = i64t.const_int(plan.trip_step as u64, false);
    let q = if plan.trip_step == 1 {
        num
    } else {
        let adj = b.build_int_add(num, i64t.const_int(plan.trip_step as u64 - 1, false), "")?;
        b.build_int_signed_div(adj, step, "")?
    };
    let floor = if plan.after_body { 1 } else { 0 };
    let floor_v = i64t.const_int(floor, false);
    let pos = b.build_int_compare(IntPredicate::SGT, q, floor_v, "")?;
    let tc = b.build_select(pos, q, floor_v, "weft.tc")?.into_int_value();
    Ok(tc)
}

/// What [`replace_loop`] hands the pass for emitting its executor call.
pub struct CallSite<'ctx> {
    /// Builder positioned in the preheader, before its (old) terminator.
    pub builder: Builder<'ctx>,
    /// The filled context struct.
    pub ctx: PointerValue<'ctx>,
    /// The trip count (`i64`); iterations are `0..trip_count`.
    pub trip_count: IntValue<'ctx>,
}

/// A new per-site grain-hint global (`i64`, internal, 0 = no hint).
pub(super) fn grain_hint_global<'ctx>(module: &Module<'ctx>) -> inkwell::values::GlobalValue<'ctx> {
    let i64t = module.get_context().i64_type();
    let g = module.add_global(i64t, None, "weft.grain");
    g.set_linkage(Linkage::Internal);
    g.set_initializer(&i64t.const_zero());
    g.set_alignment(8);
    g
}

/// Alignment of the executor's context (`weft.ctx`): a cache line.
pub const CONTEXT_ALIGN: u32 = 64;

/// Replaces the loop of `plan` by the call `emit` builds (which must run
/// `body(ctx, lo, hi)` over a partition of `[0, trip_count)`), then rewrites
/// live-outs and deletes the loop.
///
/// With `inline_below = Some((body, n))` and `n > 0`, a trip count below `n`
/// at run time skips everything `emit` produces and calls the outlined
/// `body(ctx, 0, tc)` directly (the sequential original order, always legal).
/// The bound is then `max(n, hint)`, where `hint` is a per-site global that
/// the code after the runtime call refreshes with `weft_grain_hint` (the
/// runtime's "Grain hints": the trip count below which its grain control would
/// run the site on the calling thread anyway).
pub fn replace_loop<'ctx>(
    module: &Module<'ctx>,
    plan: &LoopPlan<'ctx>,
    inline_below: Option<(FunctionValue<'ctx>, u64)>,
    emit: impl FnOnce(&CallSite<'ctx>) -> Result<()>,
) -> Result<()> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let sty = context_type(module, plan);
    let b = cx.create_builder();
    // The context lives in the entry block so loops around the call reuse it.
    let entry = plan
        .function
        .get_first_basic_block()
        .ok_or_else(|| util_err("function without entry block"))?;
    match entry.get_first_instruction() {
        Some(i) => b.position_before(&i),
        None => b.position_at_end(entry),
    }
    let ctx = b.build_alloca(sty, "weft.ctx")?;
    // Every worker reads the context while the calling thread goes on using
    // its stack: on a line of its own (whole lines when it is longer), it is
    // not split over two lines nor shares one with the caller's other stack
    // data, whatever the frame around it (with 8-byte alignment, two builds
    // of a benchmark differing only in an unrelated stack slot simulated 2.7%
    // apart: one invalidation more per worker and call, `docs/results.md`).
    ctx.as_instruction()
        .ok_or_else(|| util_err("alloca is not an instruction"))?
        .set_alignment(CONTEXT_ALIGN)
        .map_err(|e| util_err(&format!("context alignment: {e}")))?;
    let pre_term = plan
        .preheader
        .get_terminator()
        .ok_or_else(|| util_err("preheader without terminator"))?;
    b.position_before(&pre_term);
    for (j, v) in plan.live_ins.iter().enumerate() {
        let p = b.build_struct_gep(sty, ctx, j as u32, "")?;
        b.build_store(p, *v)?;
    }
    for (j, r) in plan.reductions.iter().enumerate() {
        let p = b.build_struct_gep(sty, ctx, (plan.live_ins.len() + j) as u32, "")?;
        b.build_store(p, r.init)?;
    }
    let tc = emit_trip_count(module, &b, plan)?;
    if let Some(slot) = super::clone::trip_count_slot(plan) {
        let p = b.build_struct_gep(sty, ctx, slot, "")?;
        b.build_store(p, tc)?;
    }
    // Short loops run inline: preheader -> weft.inline | weft.par -> weft.join.
    let join = match inline_below {
        Some((body, n)) if n > 0 => {
            let cur = b
                .get_insert_block()
                .ok_or_else(|| util_err("builder not positioned"))?;
            let par_bb = cx.insert_basic_block_after(cur, "weft.par");
            let inline_bb = cx.insert_basic_block_after(par_bb, "weft.inline");
            let join_bb = cx.insert_basic_block_after(inline_bb, "weft.join");
            pre_term.remove_from_basic_block();
            b.position_at_end(cur);
            // The runtime's grain hint for this site (0 until a call returns
            // one): below it, grain control would run the call inline anyway.
            let hint = grain_hint_global(module);
            let h = b.build_load(i64t, hint.as_pointer_value(), "weft.grain")?;
            relaxed(h.as_instruction_value(), 8)?;
            let h = h.into_int_value();
            let nv = i64t.const_int(n, false);
            let above = b.build_int_compare(IntPredicate::SGT, h, nv, "")?;
            let limit = b.build_select(above, h, nv, "weft.limit")?.into_int_value();
            let small = b.build_int_compare(IntPredicate::SLT, tc, limit, "weft.short")?;
            b.build_conditional_branch(small, inline_bb, par_bb)?;
            b.position_at_end(inline_bb);
            b.build_call(body, &[ctx.into(), i64t.const_zero().into(), tc.into()], "")?;
            b.build_unconditional_branch(join_bb)?;
            b.position_at_end(par_bb);
            let t = b.build_unconditional_branch(join_bb)?;
            b.position_before(&t);
            Some((join_bb, hint))
        }
        _ => None,
    };
    let site = CallSite {
        builder: b,
        ctx,
        trip_count: tc,
    };
    emit(&site)?;
    let b = site.builder;
    if let Some((join_bb, hint)) = join {
        // After the runtime call: keep its hint for the next one.
        let f = crate::rtabi::declare(module, crate::rtabi::RtFn::GrainHint)?;
        b.build_call(f, &[hint.as_pointer_value().into()], "")?;
        b.position_at_end(join_bb);
        b.insert_instruction(&pre_term, None);
        b.position_before(&pre_term);
    }

    // Live-out replacements.
    let mut repl: Vec<(InstructionValue<'ctx>, BasicValueEnum<'ctx>)> = Vec::new();
    for (inst, lo) in &plan.live_outs {
        let v: BasicValueEnum<'ctx> = match *lo {
            LiveOut::IvPhi(j) | LiveOut::IvNext(j) => {
                let iv = &plan.ivs[j];
                // Number of steps taken by the value: last iteration index for the
                // phi of a rotated loop, the trip count otherwise.
                let steps = match (*lo, plan.after_body) {
                    (LiveOut::IvPhi(_), true) => {
                        b.build_int_sub(tc, i64t.const_int(1, false), "")?
                    }
                    _ => tc,
                };
                match iv.start {
                    BasicValueEnum::IntValue(s) => {
                        let t = s.get_type();
                        let st = if t.get_bit_width() == 64 {
                            steps
                        } else if t.get_bit_width() < 64 {
                            b.build_int_truncate(steps, t, "")?
                        } else {
                            b.build_int_s_extend(steps, t, "")?
                        };
                        let off = b.build_int_mul(st, t.const_int(iv.step as u64, true), "")?;
                        b.build_int_add(s, off, "weft.iv.final")?
                            .as_basic_value_enum()
                    }
                    BasicValueEnum::PointerValue(p) => {
                        let off =
                            b.build_int_mul(steps, i64t.const_int(iv.step as u64, true), "")?;
                        // SAFETY: same byte offsets the original IV reached.
                        unsafe { b.build_gep(cx.i8_type(), p, &[off], "weft.iv.final")? }
                            .as_basic_value_enum()
                    }
                    _ => return Err(util_err("IV of unsupported type")),
                }
            }
            LiveOut::Last(j) => {
                let ty = util::basic_value(plan.last_values[j].as_value_ref())
                    .ok_or_else(|| util_err("void last value"))?
                    .get_type();
                let slot = super::clone::last_value_slot(plan, j);
                let p = b.build_struct_gep(sty, ctx, slot, "")?;
                b.build_load(ty, p, "weft.last")?
            }
            LiveOut::RedUpdate(j) | LiveOut::RedPhi(j) => {
                let r = &plan.reductions[j];
                let p = b.build_struct_gep(sty, ctx, (plan.live_ins.len() + j) as u32, "")?;
                b.build_load(r.phi.as_basic_value().get_type(), p, "weft.red.final")?
            }
        };
        repl.push((*inst, v));
    }
    b.build_unconditional_branch(plan.exit)?;
    pre_term.erase_from_basic_block();
    for (inst, v) in &repl {
        for u in util::unique_users(inst) {
            let outside = u
                .get_parent()
                .map(|p| !plan.contains_block(p))
                .unwrap_or(false);
            if outside {
                util::replace_operand(u, inst, v);
            }
        }
    }
    // The exit's phis had one incoming edge (from the exiting block): fold them.
    for i in util::instructions(plan.exit) {
        if i.get_opcode() != InstructionOpcode::Phi {
            break;
        }
        let phi = PhiValue::try_from(i).map_err(|_| util_err("phi"))?;
        if phi.count_incoming() != 1 {
            return Err(util_err("exit phi with several incoming edges"));
        }
        let (v, _) = phi
            .get_incoming(0)
            .ok_or_else(|| util_err("phi incoming"))?;
        // SAFETY: same type; the phi is erased right after.
        unsafe { LLVMReplaceAllUsesWith(i.as_value_ref(), v.as_value_ref()) };
        i.erase_from_basic_block();
    }
    delete_blocks(&plan.blocks);
    Ok(())
}
