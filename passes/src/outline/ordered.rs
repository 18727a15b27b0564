//! Reductions combined in a fixed order: the executor call for loops with
//! floating-point reductions under `--fp-reassoc` (issue 35 part 4; the
//! reduction pattern of dissertation §5.5.1, made reproducible).
//!
//! Floating-point addition is not associative, so running a reduction's
//! iterations in parallel changes its result; a run-time dependent combine
//! order (atomics, whichever worker finishes first) would change it from run
//! to run as well. Here the iteration range `[0, tc)` is cut into
//! [`BLOCKS`] contiguous blocks whose bounds depend on `tc` only (block `b`
//! holds `q + (b < r)` iterations, `q = tc / BLOCKS`, `r = tc % BLOCKS`).
//! The runtime schedules blocks, not iterations, over its workers; each
//! block runs the body ([`CloneKind::Partial`]) on its own copy of the
//! context, its reductions starting from the identity, and leaves its
//! partials there. After the call the partials are folded into the reduction
//! values in block order `0, 1, ..., BLOCKS-1`. The result therefore depends
//! neither on the worker count nor on the schedule (1 and 64 workers give the
//! same bits); it differs from the sequential loop's by reassociation only.
//! The sequential fallback (runtime refused the call) runs the same blocks in
//! order, and there is no short-loop inline path, so every run of a site
//! agrees.
//!
//! A loop parallel only under a run-time alias check
//! ([`crate::versioning`]) runs the check first; when it fails, the
//! fallback runs: the blocks one after the other on the calling thread,
//! which is every iteration in the original order (memory sees the
//! sequential loop) with the reductions grouped by block as in the parallel
//! path. The reduction values are then the same bits whichever way the check
//! goes, and only the order of memory accesses, which the check protects,
//! depends on it.

use inkwell::intrinsics::Intrinsic;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicTypeEnum, StructType};
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, BasicValueEnum, FunctionValue};
use inkwell::{AddressSpace, IntPredicate};

use super::clone::{clone_body, context_type, last_value_slot, unique_name, CloneKind};
use super::ir::{emit_if, fn_ptr, util_err};
use super::plan::{LoopPlan, RedOp};
use super::replace::{replace_loop, CallSite};
use crate::error::Result;
use crate::rtabi::{self, RtFn};
use crate::util::entry_alloca;
use crate::versioning::{self, VersionSpec};

/// Number of blocks the iteration range is cut into (at least the largest
/// worker count weft runs, so every worker can get a block).
pub const BLOCKS: u64 = 64;

/// The wrapper's own context: `{ ptr ctx, ptr partials, i64 tc }`.
fn wrapper_ctx_type<'ctx>(module: &Module<'ctx>) -> StructType<'ctx> {
    let cx = module.get_context();
    let ptr = cx.ptr_type(AddressSpace::default());
    cx.struct_type(&[ptr.into(), ptr.into(), cx.i64_type().into()], false)
}

/// `void blocks(ptr w, i64 blo, i64 bhi)`: runs `body` on blocks
/// `[blo, bhi)`, each with its own context copy `partials[b]`.
fn block_wrapper<'ctx>(
    module: &Module<'ctx>,
    plan: &LoopPlan<'ctx>,
    body: FunctionValue<'ctx>,
) -> Result<FunctionValue<'ctx>> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let ptrt = cx.ptr_type(AddressSpace::default());
    let fty = cx
        .void_type()
        .fn_type(&[ptrt.into(), i64t.into(), i64t.into()], false);
    let name = unique_name(module, &format!("{}.weft.blocks", plan.function_name));
    let f = module.add_function(&name, fty, Some(Linkage::Internal));
    let w = f.get_nth_param(0).expect("param 0").into_pointer_value();
    let blo = f.get_nth_param(1).expect("param 1").into_int_value();
    let bhi = f.get_nth_param(2).expect("param 2").into_int_value();
    w.set_name("w");
    blo.set_name("blo");
    bhi.set_name("bhi");
    let wty = wrapper_ctx_type(module);
    let sty = context_type(module, plan);
    let b = cx.create_builder();
    let entry = cx.append_basic_block(f, "entry");
    let lp = cx.append_basic_block(f, "block");
    let done = cx.append_basic_block(f, "done");

    b.position_at_end(entry);
    let field = |k: u32, ty: BasicTypeEnum<'ctx>, n: &str| -> Result<BasicValueEnum<'ctx>> {
        let p = b.build_struct_gep(wty, w, k, "")?;
        Ok(b.build_load(ty, p, n)?)
    };
    let ctx = field(0, ptrt.into(), "ctx")?.into_pointer_value();
    let parts = field(1, ptrt.into(), "parts")?.into_pointer_value();
    let tc = field(2, i64t.into(), "tc")?.into_int_value();
    let nb = i64t.const_int(BLOCKS, false);
    let q = b.build_int_unsigned_div(tc, nb, "q")?;
    let r = b.build_int_unsigned_rem(tc, nb, "r")?;
    let any = b.build_int_compare(IntPredicate::SLT, blo, bhi, "")?;
    b.build_conditional_branch(any, lp, done)?;

    b.position_at_end(lp);
    let k = b.build_phi(i64t, "b")?;
    let kv = k.as_basic_value().into_int_value();
    // lo = b*q + min(b, r); hi = lo + q + (b < r): no overflow for any tc.
    let below = b.build_int_compare(IntPredicate::ULT, kv, r, "")?;
    let extra = b.build_select(below, kv, r, "")?.into_int_value();
    let bq = b.build_int_mul(kv, q, "")?;
    let lo = b.build_int_add(bq, extra, "lo")?;
    let one_more = b.build_int_z_extend(below, i64t, "")?;
    let len = b.build_int_add(q, one_more, "")?;
    let hi = b.build_int_add(lo, len, "hi")?;
    // SAFETY: `parts` points to BLOCKS context structs and `b < BLOCKS`.
    let mine = unsafe { b.build_gep(sty, parts, &[kv], "mine")? };
    let whole = b.build_load(sty, ctx, "")?;
    b.build_store(mine, whole)?;
    for (j, red) in plan.reductions.iter().enumerate() {
        let slot = b.build_struct_gep(sty, mine, (plan.live_ins.len() + j) as u32, "")?;
        b.build_store(slot, identity(red.op, red.phi.as_basic_value().get_type())?)?;
    }
    b.build_call(body, &[mine.into(), lo.into(), hi.into()], "")?;
    if !plan.last_values.is_empty() {
        // The block that ran the last iteration hands its last values over.
        let tc_is_hi = b.build_int_compare(IntPredicate::EQ, hi, tc, "")?;
        let ran = b.build_int_compare(IntPredicate::SLT, lo, hi, "")?;
        let last = b.build_and(tc_is_hi, ran, "weft.last")?;
        let copy = cx.append_basic_block(f, "last");
        let after = cx.append_basic_block(f, "next");
        b.build_conditional_branch(last, copy, after)?;
        b.position_at_end(copy);
        for (j, v) in plan.last_values.iter().enumerate() {
            let ty = crate::util::basic_value(v.as_value_ref())
                .ok_or_else(|| util_err("void last value"))?
                .get_type();
            let k = last_value_slot(plan, j);
            let from = b.build_struct_gep(sty, mine, k, "")?;
            let to = b.build_struct_gep(sty, ctx, k, "")?;
            let x = b.build_load(ty, from, "")?;
            b.build_store(to, x)?;
        }
        b.build_unconditional_branch(after)?;
        b.position_at_end(after);
    }
    let next = b.build_int_add(kv, i64t.const_int(1, false), "")?;
    let more = b.build_int_compare(IntPredicate::SLT, next, bhi, "")?;
    b.build_conditional_branch(more, lp, done)?;
    let latch = b
        .get_insert_block()
        .ok_or_else(|| util_err("builder not positioned"))?;
    k.add_incoming(&[(&blo, entry), (&next, latch)]);

    b.position_at_end(done);
    b.build_return(None)?;
    Ok(f)
}

fn identity<'ctx>(op: RedOp, ty: BasicTypeEnum<'ctx>) -> Result<BasicValueEnum<'ctx>> {
    match ty {
        BasicTypeEnum::IntType(it) => Ok(it.const_int(op.identity(), false).into()),
        BasicTypeEnum::FloatType(ft) => Ok(ft.const_float(op.float_identity()).into()),
        _ => Err(util_err("reduction of unsupported type")),
    }
}

/// `acc op' part`, with `op'` the operation combining two partials of `op`.
fn combine<'ctx>(
    module: &Module<'ctx>,
    b: &inkwell::builder::Builder<'ctx>,
    op: RedOp,
    acc: BasicValueEnum<'ctx>,
    part: BasicValueEnum<'ctx>,
) -> Result<BasicValueEnum<'ctx>> {
    Ok(match op {
        RedOp::Add | RedOp::Sub => b
            .build_int_add(acc.into_int_value(), part.into_int_value(), "")?
            .into(),
        RedOp::And => b
            .build_and(acc.into_int_value(), part.into_int_value(), "")?
            .into(),
        RedOp::Or => b
            .build_or(acc.into_int_value(), part.into_int_value(), "")?
            .into(),
        RedOp::Xor => b
            .build_xor(acc.into_int_value(), part.into_int_value(), "")?
            .into(),
        RedOp::FAdd | RedOp::FSub | RedOp::FMulAdd => b
            .build_float_add(acc.into_float_value(), part.into_float_value(), "")?
            .into(),
        RedOp::FMul => b
            .build_float_mul(acc.into_float_value(), part.into_float_value(), "")?
            .into(),
        RedOp::MinNum | RedOp::MaxNum => {
            let n = if op == RedOp::MinNum {
                "llvm.minnum"
            } else {
                "llvm.maxnum"
            };
            let decl = Intrinsic::find(n)
                .and_then(|i| i.get_declaration(module, &[acc.get_type()]))
                .ok_or_else(|| util_err(&format!("no declaration of {n}")))?;
            b.build_call(decl, &[acc.into(), part.into()], "")?
                .try_as_basic_value()
                .basic()
                .ok_or_else(|| util_err("minnum/maxnum returns void"))?
        }
    })
}

/// Emits the ordered executor call at `site` for `body` (cloned with
/// [`super::CloneKind::Partial`]): the runtime runs the block wrapper over
/// `[0, BLOCKS)` (sequentially on a non-zero status, or when the run-time
/// alias check `version` fails), then the partials are folded into the
/// context's reduction slots in block order, where [`super::replace_loop`]
/// reads the final values.
pub fn emit_ordered<'ctx>(
    module: &Module<'ctx>,
    site: &CallSite<'ctx>,
    plan: &LoopPlan<'ctx>,
    body: FunctionValue<'ctx>,
    version: Option<&VersionSpec<'ctx>>,
) -> Result<()> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let b = &site.builder;
    let wrapper = block_wrapper(module, plan, body)?;
    let sty = context_type(module, plan);
    let wty = wrapper_ctx_type(module);
    let wctx = entry_alloca(module, b, wty.into(), "weft.blocks.ctx")?;
    let parts = entry_alloca(
        module,
        b,
        sty.array_type(BLOCKS as u32).into(),
        "weft.partials",
    )?;
    let set = |k: u32, v: BasicValueEnum<'ctx>| -> Result<()> {
        let p = b.build_struct_gep(wty, wctx, k, "")?;
        b.build_store(p, v)?;
        Ok(())
    };
    set(0, site.ctx.into())?;
    set(1, parts.into())?;
    set(2, site.trip_count.into())?;
    let nb = i64t.const_int(BLOCKS, false);
    let pf = rtabi::declare(module, RtFn::ParallelFor)?;
    let args: [BasicMetadataValueEnum<'ctx>; 4] = [
        i64t.const_zero().into(),
        nb.into(),
        fn_ptr(wrapper).into(),
        wctx.into(),
    ];
    let call = || -> Result<inkwell::values::IntValue<'ctx>> {
        Ok(b.build_call(pf, &args, "weft.status")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| util_err("weft_parallel_for returns void"))?
            .into_int_value())
    };
    let st = match version {
        Some(v) => versioning::emit_guarded(module, b, v, site.trip_count, call)?,
        None => call()?,
    };
    let bad = b.build_int_compare(IntPredicate::NE, st, st.get_type().const_zero(), "")?;
    emit_if(module, b, bad, "weft.fallback", |b| {
        b.build_call(
            wrapper,
            &[wctx.into(), i64t.const_zero().into(), nb.into()],
            "",
        )?;
        Ok(())
    })?;
    let fold = fold_function(module, plan)?;
    b.build_call(fold, &[site.ctx.into(), parts.into()], "")?;
    Ok(())
}

/// `void fold(ptr ctx, ptr partials)`: `for b in 0..BLOCKS { red_j = red_j
/// op partials[b].red_j }`, in a function of its own so the passes running
/// after (and this one) do not take its loop for the program's.
fn fold_function<'ctx>(
    module: &Module<'ctx>,
    plan: &LoopPlan<'ctx>,
) -> Result<FunctionValue<'ctx>> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let ptrt = cx.ptr_type(AddressSpace::default());
    let fty = cx.void_type().fn_type(&[ptrt.into(), ptrt.into()], false);
    let name = unique_name(module, &format!("{}.weft.fold", plan.function_name));
    let f = module.add_function(&name, fty, Some(Linkage::Internal));
    let ctx = f.get_nth_param(0).expect("param 0").into_pointer_value();
    let parts = f.get_nth_param(1).expect("param 1").into_pointer_value();
    ctx.set_name("ctx");
    parts.set_name("parts");
    let sty = context_type(module, plan);
    let b = cx.create_builder();
    let entry = cx.append_basic_block(f, "entry");
    let lp = cx.append_basic_block(f, "block");
    let done = cx.append_basic_block(f, "done");
    b.position_at_end(entry);
    b.build_unconditional_branch(lp)?;
    b.position_at_end(lp);
    let k = b.build_phi(i64t, "b")?;
    let kv = k.as_basic_value().into_int_value();
    // SAFETY: `parts` holds BLOCKS context structs and `k < BLOCKS`.
    let p = unsafe { b.build_gep(sty, parts, &[kv], "")? };
    for (j, red) in plan.reductions.iter().enumerate() {
        let idx = (plan.live_ins.len() + j) as u32;
        let ty = red.phi.as_basic_value().get_type();
        let acc_p = b.build_struct_gep(sty, ctx, idx, "")?;
        let part_p = b.build_struct_gep(sty, p, idx, "")?;
        let acc = b.build_load(ty, acc_p, "")?;
        let part = b.build_load(ty, part_p, "")?;
        let v = combine(module, &b, red.op, acc, part)?;
        b.build_store(acc_p, v)?;
    }
    let next = b.build_int_add(kv, i64t.const_int(1, false), "")?;
    let more = b.build_int_compare(IntPredicate::ULT, next, i64t.const_int(BLOCKS, false), "")?;
    b.build_conditional_branch(more, lp, done)?;
    k.add_incoming(&[(&i64t.const_zero(), entry), (&next, lp)]);
    b.position_at_end(done);
    b.build_return(None)?;
    Ok(f)
}

/// Outlines `plan` (which has a floating-point reduction, accepted under
/// `--fp-reassoc`) with the ordered executor call, behind the run-time alias
/// check `version` if any; returns the remark.
pub fn emit_ordered_loop<'ctx>(
    module: &Module<'ctx>,
    plan: &LoopPlan<'ctx>,
    version: Option<&VersionSpec<'ctx>>,
) -> Result<String> {
    let reds: Vec<String> = plan
        .reductions
        .iter()
        .map(|r| {
            let n = r.phi.get_name().to_string_lossy();
            format!("%{n} ({:?})", r.op)
        })
        .collect();
    let body = clone_body(module, plan, CloneKind::Partial)?;
    let bname = body.function.get_name().to_string_lossy().into_owned();
    replace_loop(module, plan, None, |site| {
        emit_ordered(module, site, plan, body.function, version)
    })?;
    Ok(format!(
        "executor form: body @{bname} run by weft_parallel_for over {BLOCKS} fixed blocks; reduction(s) {} combined in block order (--fp-reassoc: reproducible for any worker count, not bit-equal to the sequential order)",
        reds.join(", ")
    ))
}
