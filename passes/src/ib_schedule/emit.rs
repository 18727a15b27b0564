//! Emission of one scheduled nest for `ib-schedule` (dissertation §5.5,
//! executor form): the outlined body, the run-time work guard (small
//! executions skip the runtime), the nest's id and descriptor, and the
//! `weft_run_affine` / `weft_run_affine_desc` call with its sequential
//! fallback. The pass's decisions are in the parent module.

use inkwell::module::Module;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue};
use inkwell::{AddressSpace, IntPredicate};

use crate::error::{PassError, Result};
use crate::inspector;
use crate::outline::{self, CloneKind, LoopPlan};
use crate::payoff;
use crate::rtabi::{self, RtFn};
use crate::strip_mine::StripPlan;
use crate::util;

/// How the executor of one nest is emitted.
pub struct NestEmit<'ctx> {
    /// Strip plan.
    pub strip: StripPlan,
    /// Runtime scheme code.
    pub scheme: u32,
    /// Whether an inspector is passed.
    pub with_inspector: bool,
    /// Whether the schedule must be re-inspected when live-ins change.
    pub fingerprint: bool,
    /// Access-function descriptor replacing the inspector (parallel nests).
    pub desc: Option<crate::affine_desc::DescSpec<'ctx>>,
    /// Trip counts below this run inline ([`crate::PipelineConfig::min_parallel_iters`]).
    pub min_parallel_iters: u64,
    /// The nest's name as `weft analyze` gives it (`@function L<k>`).
    pub name: String,
    /// Run-time work guard ([`crate::payoff`]): executions with fewer than
    /// this many innermost iterations skip the schedule: a parallel nest runs
    /// in static chunks on `weft_parallel_for` (Default), a dependent one in
    /// the original order.
    pub work_guard: Option<(payoff::WorkSpec<'ctx>, u64)>,
}

/// `if (tc * work < min) <default> else <what follows>`, where `<default>` is
/// `weft_parallel_for(body)` (static chunks, the Default schedule) for a
/// parallel nest and `body(ctx, 0, tc)` for one whose IBs depend on each
/// other (the original order); splits the
/// builder's block; returns the join block and the block's old terminator,
/// which [`finish_work_guard`] puts back there.
fn emit_work_guard<'ctx>(
    module: &Module<'ctx>,
    site: &outline::CallSite<'ctx>,
    body: FunctionValue<'ctx>,
    spec: &payoff::WorkSpec<'ctx>,
    min: u64,
    parallel: bool,
) -> Result<(
    inkwell::basic_block::BasicBlock<'ctx>,
    inkwell::values::InstructionValue<'ctx>,
)> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let b = &site.builder;
    let mut vals = std::collections::HashMap::new();
    for (s, v) in &spec.syms {
        let x = v.into_int_value();
        let x = match x.get_type().get_bit_width() {
            64 => x,
            w if w < 64 => b.build_int_s_extend(x, i64t, "")?,
            _ => b.build_int_truncate(x, i64t, "")?,
        };
        vals.insert(*s, x);
    }
    if let Some(s) = spec.mid_iv {
        let half = b.build_int_signed_div(site.trip_count, i64t.const_int(2, false), "weft.mid")?;
        vals.insert(s, half);
    }
    let mut per = i64t.const_zero();
    for (mono, c) in spec.per_iteration.terms() {
        let mut t = i64t.const_int(c as u64, true);
        for s in mono {
            let v = *vals
                .get(s)
                .ok_or_else(|| PassError::Internal("work guard: symbol missing".into()))?;
            t = b.build_int_mul(t, v, "")?;
        }
        per = b.build_int_add(per, t, "")?;
    }
    let work = b.build_int_mul(site.trip_count, per, "weft.work")?;
    let small = b.build_int_compare(
        IntPredicate::SLT,
        work,
        i64t.const_int(min, false),
        "weft.fewwork",
    )?;
    let cur = b
        .get_insert_block()
        .ok_or_else(|| PassError::Internal("builder not positioned".into()))?;
    let term = cur
        .get_terminator()
        .ok_or_else(|| PassError::Internal("block without terminator".into()))?;
    let small_bb = cx.insert_basic_block_after(cur, "weft.fewwork");
    let big_bb = cx.insert_basic_block_after(small_bb, "weft.enoughwork");
    let join_bb = cx.insert_basic_block_after(big_bb, "weft.work.join");
    term.remove_from_basic_block();
    b.position_at_end(cur);
    b.build_conditional_branch(small, small_bb, big_bb)?;
    b.position_at_end(small_bb);
    let to_join = b.build_unconditional_branch(join_bb)?;
    b.position_before(&to_join);
    if parallel {
        // A parallel nest keeps its parallelism: static chunks, the Default
        // schedule, without the inspection the guard is there to avoid.
        crate::parallel::emit_parallel_for(module, site, body)?;
    } else {
        b.build_call(
            body,
            &[
                site.ctx.into(),
                i64t.const_zero().into(),
                site.trip_count.into(),
            ],
            "",
        )?;
    }
    b.position_at_end(big_bb);
    let t = b.build_unconditional_branch(join_bb)?;
    b.position_before(&t);
    Ok((join_bb, term))
}

/// Continues after the guard of [`emit_work_guard`].
fn finish_work_guard<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    join: (
        inkwell::basic_block::BasicBlock<'ctx>,
        inkwell::values::InstructionValue<'ctx>,
    ),
) {
    b.position_at_end(join.0);
    b.insert_instruction(&join.1, None);
    b.position_before(&join.1);
}

/// Per module (by address): executor call (by address) -> `(name, iw)`.
type NestTable = (usize, std::collections::HashMap<usize, (String, u64)>);

thread_local! {
    /// The executor calls `ib-schedule` emitted in the module being optimized
    /// (by address): the nest's name (`@function L<k>`) and the compile-time
    /// eq. 5.1 window size (0 when unknown), read back by `loop-permute`.
    /// Kept beside the IR rather than in it, so the output module is unchanged.
    static NESTS: std::cell::RefCell<NestTable> =
        std::cell::RefCell::new((0, std::collections::HashMap::new()));
}

fn record_nest(
    module: &Module<'_>,
    call: inkwell::values::InstructionValue<'_>,
    name: &str,
    iw: u64,
) {
    use inkwell::values::AsValueRef;
    let m = module.as_mut_ptr() as usize;
    NESTS.with(|n| {
        let mut n = n.borrow_mut();
        if n.0 != m {
            *n = (m, std::collections::HashMap::new());
        }
        n.1.insert(call.as_value_ref() as usize, (name.to_string(), iw));
    });
}

/// The `(name, iw)` recorded for an executor call of `module`, if
/// `ib-schedule` emitted it in this thread.
pub fn nest_of(
    module: &Module<'_>,
    call: inkwell::values::InstructionValue<'_>,
) -> Option<(String, u64)> {
    use inkwell::values::AsValueRef;
    let m = module.as_mut_ptr() as usize;
    NESTS.with(|n| {
        let n = n.borrow();
        (n.0 == m)
            .then(|| n.1.get(&(call.as_value_ref() as usize)).cloned())
            .flatten()
    })
}

/// Result of [`outline_nest`]: the generated functions.
pub struct Outlined<'ctx> {
    /// The nest id passed to the runtime.
    pub nest: u32,
    /// The body.
    pub body: FunctionValue<'ctx>,
    /// The inspector, if any, and its number of access reports.
    pub inspector: Option<(FunctionValue<'ctx>, usize)>,
}

/// Next free nest id (affine ids start at 0x10000 so they never meet the
/// irregular region ids in `weft_region_invalidate`).
fn next_nest_id(module: &Module<'_>) -> u32 {
    let mut next = 0x10000u32;
    for f in [RtFn::RunAffine, RtFn::RunAffineDesc]
        .iter()
        .filter_map(|r| module.get_function(r.symbol()))
    {
        for u in util::unique_users(&f.as_global_value().as_pointer_value()) {
            if let Some(BasicValueEnum::IntValue(c)) = util::value_operand(u, 0) {
                if let Some(v) = c.get_zero_extended_constant() {
                    next = next.max(v as u32 + 1);
                }
            }
        }
    }
    next
}

/// Next context-cache base for a dependent nest: bases from 0x8000, so their
/// runtime ids (`base * CONTEXT_SLOTS ..`) start at 0x20000, above the constant
/// ids of parallel nests (0x10000..) and the irregular regions.
fn next_dep_base(module: &Module<'_>) -> u32 {
    let mut next = 0x8000u32;
    let mut g = module.get_first_global();
    while let Some(gv) = g {
        let name = gv.get_name().to_string_lossy().into_owned();
        if let Some(n) = name
            .strip_prefix("weft.region.")
            .and_then(|r| r.strip_suffix(".last"))
            .and_then(|n| n.parse::<u32>().ok())
        {
            if n >= 0x8000 {
                next = next.max(n + 1);
            }
        }
        g = gv.get_next_global();
    }
    next
}

/// Outlines loop `plan` and replaces it by the executor call (module docs).
pub fn outline_nest<'ctx>(
    module: &Module<'ctx>,
    plan: &LoopPlan<'ctx>,
    how: &NestEmit<'ctx>,
) -> Result<Outlined<'ctx>> {
    let body = outline::clone_body(module, plan, CloneKind::Executor)?;
    // A dependent nest with a descriptor keeps its inspector for the case the
    // runtime finds the IBs conflicting (then the DAG needs exact addresses).
    let insp = if how.with_inspector && (how.desc.is_none() || how.fingerprint) {
        let c = outline::clone_body(module, plan, CloneKind::Inspector)?;
        let n = inspector::make_inspector(module, c.function, c.k)?;
        Some((c.function, n))
    } else {
        None
    };
    let nest = next_nest_id(module);
    let run = if how.desc.is_some() {
        rtabi::declare(module, RtFn::RunAffineDesc)?
    } else {
        rtabi::declare(module, RtFn::RunAffine)?
    };
    // Permutation granule (runtime `AFFINE_GRANULE_SHIFT`): the iterations
    // sharing a cache line, so a permuted window runs sub-ranges, not single
    // iterations.
    let scheme_word = how.scheme as u64
        | (how.strip.line_iters.clamp(1, 0xffff) << weft_runtime::abi::AFFINE_GRANULE_SHIFT);
    let run_insp = if how.desc.is_some() && insp.is_some() {
        Some(rtabi::declare(module, RtFn::RunAffine)?)
    } else {
        None
    };
    let bf = body.function;
    outline::replace_loop(module, plan, Some((bf, how.min_parallel_iters)), |site| {
        let guard = match &how.work_guard {
            Some((spec, min)) => Some(emit_work_guard(
                module,
                site,
                bf,
                spec,
                *min,
                !how.fingerprint,
            )?),
            None => None,
        };
        let r = emit_nest_call(
            module,
            plan,
            how,
            site,
            nest,
            insp,
            run,
            run_insp,
            scheme_word,
            bf,
        );
        if let Some(j) = guard {
            finish_work_guard(&site.builder, j);
        }
        r
    })?;
    Ok(Outlined {
        nest,
        body: bf,
        inspector: insp,
    })
}

/// [`outline_nest`]'s call site, after the work guard.
#[allow(clippy::too_many_arguments)]
fn emit_nest_call<'ctx>(
    module: &Module<'ctx>,
    plan: &LoopPlan<'ctx>,
    how: &NestEmit<'ctx>,
    site: &outline::CallSite<'ctx>,
    nest: u32,
    insp: Option<(FunctionValue<'ctx>, usize)>,
    run: FunctionValue<'ctx>,
    run_insp: Option<FunctionValue<'ctx>>,
    scheme_word: u64,
    bf: FunctionValue<'ctx>,
) -> Result<()> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let i32t = cx.i32_type();
    {
        // Dependent nests: one cached schedule per live-in context (the
        // inspector's context cache); a new context gets a fresh inspection.
        let nest_id: IntValue<'ctx> = if how.fingerprint {
            inspector::emit_context_cache(module, site, plan, next_dep_base(module), None)?
        } else {
            i32t.const_int(nest as u64, false)
        };
        let b = &site.builder;
        let tc = site.trip_count;
        // Leading block up to the first line boundary (§5.5.3).
        let head: IntValue<'ctx> = if how.strip.head > 0 {
            let h = i64t.const_int(how.strip.head, false);
            let lt = b.build_int_compare(IntPredicate::SLT, tc, h, "")?;
            let head = b.build_select(lt, tc, h, "weft.head")?.into_int_value();
            let pos = b.build_int_compare(IntPredicate::SGT, head, i64t.const_zero(), "")?;
            outline::emit_if(module, b, pos, "weft.headblk", |b| {
                b.build_call(
                    bf,
                    &[site.ctx.into(), i64t.const_zero().into(), head.into()],
                    "",
                )?;
                Ok(())
            })?;
            head
        } else {
            i64t.const_zero()
        };
        // ib = max(E, roundup(ceil(rem / max_ibs), E)).
        let e = how.strip.line_iters.max(1);
        let rem = b.build_int_sub(tc, head, "")?;
        let m = i64t.const_int(how.strip.max_ibs.max(1), false);
        let per = b.build_int_signed_div(
            b.build_int_add(rem, i64t.const_int(how.strip.max_ibs.max(1) - 1, false), "")?,
            m,
            "",
        )?;
        let ev = i64t.const_int(e, false);
        let per_e = b.build_int_mul(
            b.build_int_signed_div(
                b.build_int_add(per, i64t.const_int(e - 1, false), "")?,
                ev,
                "",
            )?,
            ev,
            "",
        )?;
        let big = b.build_int_compare(IntPredicate::SGT, per_e, ev, "")?;
        let ib = b.build_select(big, per_e, ev, "weft.ib")?.into_int_value();
        let insp_ptr = match insp {
            Some((f, _)) => outline::fn_ptr(f),
            None => cx.ptr_type(AddressSpace::default()).const_null(),
        };
        let sw = i32t.const_int(scheme_word, false);
        // Dependent nests: the runtime checks the IBs' independence on the
        // described lines (status 3 = they conflict, nothing ran).
        let sw_desc = i32t.const_int(
            scheme_word
                | if how.fingerprint {
                    weft_runtime::abi::AFFINE_CHECK_DEPS as u64
                } else {
                    0
                },
            false,
        );
        let insp_args: [BasicMetadataValueEnum<'ctx>; 8] = [
            nest_id.into(),
            head.into(),
            tc.into(),
            ib.into(),
            sw.into(),
            insp_ptr.into(),
            outline::fn_ptr(bf).into(),
            site.ctx.into(),
        ];
        let args: Vec<BasicMetadataValueEnum<'ctx>> = match &how.desc {
            Some(spec) => {
                let (arr, len) = crate::affine_desc::emit(module, b, plan.function, spec)?;
                vec![
                    nest_id.into(),
                    head.into(),
                    tc.into(),
                    ib.into(),
                    sw_desc.into(),
                    arr.into(),
                    len.into(),
                    outline::fn_ptr(bf).into(),
                    site.ctx.into(),
                ]
            }
            None => insp_args.to_vec(),
        };
        let st = b
            .build_call(run, &args, "weft.status")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| PassError::Internal("weft_run_affine returns void".into()))?
            .into_int_value();
        let tag = |v: IntValue<'ctx>| -> Result<()> {
            if let Some(call) = inkwell::values::BasicValue::as_instruction_value(&v) {
                record_nest(module, call, &how.name, how.strip.iw_estimate.unwrap_or(0));
            }
            Ok(())
        };
        tag(st)?;
        let seq = |b: &inkwell::builder::Builder<'ctx>| -> Result<()> {
            b.build_call(bf, &[site.ctx.into(), head.into(), tc.into()], "")?;
            Ok(())
        };
        let zero = st.get_type().const_zero();
        if let Some(ri) = run_insp {
            // Conflicting IBs (status 3): the inspector path with its
            // dependence DAG; the final status decides the sequential fallback.
            let slot = {
                let eb = cx.create_builder();
                let entry = plan
                    .function
                    .get_first_basic_block()
                    .ok_or_else(|| PassError::Internal("function without entry block".into()))?;
                match entry.get_first_instruction() {
                    Some(i) => eb.position_before(&i),
                    None => eb.position_at_end(entry),
                }
                eb.build_alloca(st.get_type(), "weft.status.slot")?
            };
            b.build_store(slot, st)?;
            let dep = b.build_int_compare(
                IntPredicate::EQ,
                st,
                st.get_type()
                    .const_int(weft_runtime::abi::Status::Dependence as u64, false),
                "weft.conflict",
            )?;
            outline::emit_if(module, b, dep, "weft.inspect.path", |b| {
                let st2 = b
                    .build_call(ri, &insp_args, "weft.status2")?
                    .try_as_basic_value()
                    .basic()
                    .ok_or_else(|| PassError::Internal("weft_run_affine returns void".into()))?
                    .into_int_value();
                tag(st2)?;
                b.build_store(slot, st2)?;
                Ok(())
            })?;
            let fin = b
                .build_load(st.get_type(), slot, "weft.status.final")?
                .into_int_value();
            let bad = b.build_int_compare(IntPredicate::NE, fin, zero, "weft.failed")?;
            return outline::emit_if(module, b, bad, "weft.fallback", seq);
        }
        // The runtime validates before running anything: on failure run the rest sequentially.
        let bad = b.build_int_compare(IntPredicate::NE, st, zero, "weft.failed")?;
        outline::emit_if(module, b, bad, "weft.fallback", seq)
    }
}
