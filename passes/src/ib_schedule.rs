//! `ib-schedule<scheme=default|mlp-first|clp-first|balanced>`: iteration-block
//! scheduling of chapter-5 affine nests in executor form (dissertation §5.5.4,
//! Algorithm 5, Fig. 5.4(d)).
//!
//! For each affine nest the frontend reports, the scheduled loop `P` (see
//! [`crate::strip_mine::scheduled_loop`]) is outlined into
//! `void body(ctx, lo, hi)` ([`crate::outline`]) and replaced by
//!
//! ```text
//! head = min(H, tc);  if (head) body(ctx, 0, head);          // §5.5.3 boundary
//! ib   = max(E, roundup(ceil((tc-head)/max_ibs), E));         // strip size
//! st   = weft_run_affine(nest, head, tc, ib, scheme, insp, body, ctx);
//! if (st != 0) body(ctx, head, tc);                           // nothing ran
//! ```
//!
//! For a nest whose scheduled loop is proven parallel the call is
//! `weft_run_affine_desc(nest, head, tc, ib, scheme, desc, len, body, ctx)`:
//! `desc` is the nest's access-function descriptor ([`crate::affine_desc`]:
//! loops, IV bounds and every reference's base, size and byte offset `A·i + o`
//! as words evaluated at the call site from constants and loop invariants), and
//! the runtime computes each IB's memory- and LLC-bank vectors from it and the
//! actual base addresses by enumerating cache lines — no inspector, no run of
//! the loop body — then applies eq. 5.1 for the IW size and Algorithm 5 (or the
//! Locality-Aware-MLP baseline) for the schedule. A nest without a descriptor
//! (a non-affine access, a base or coefficient computed inside the loop, no
//! trip count) keeps the address-only inspector clone ([`crate::inspector`])
//! passed to `weft_run_affine`, run once at loop entry. The Default scheme of
//! §5.6.1 (equal IBs round-robin) of a parallel nest needs neither.
//!
//! Compile-time bank-vector tables (global arrays aligned to the
//! bank-interleaving period) are not implemented: no affine benchmark has a
//! global array (all are heap-allocated, so only run time knows their bank
//! bits), and under the Table 5.2 mapping (`rochrababgco`, bank bits above the
//! 2 KiB column bits) the interleaving period is column × bank groups × banks
//! × ranks × channels bytes, far above a page. The descriptor path handles
//! globals too (a global's address is a base word), at a per-entry cost
//! proportional to the cache-line runs (sampled for long runs), with every
//! constant word (strides, element sizes, constant bounds) folded at compile
//! time (the remark counts them).
//!
//! A nest whose IBs may depend on each other gets both: the descriptor call
//! with `WEFT_AFFINE_CHECK_DEPS`, where the runtime checks on the described
//! lines that no IB writes what another touches (then it schedules without a
//! DAG), and, when it reports a conflict (status 3), `weft_run_affine` with the
//! inspector, which builds the IB dependence DAG from the exact addresses and
//! inserts the synchronisation of §5.5.4 with transitive-reduction pruning.

//! Legality: a nest whose scheduled loop is proven parallel is transformed
//! directly (the DAG is then empty). A nest with no parallel loop is
//! transformed only when its inspector cannot read data the loop writes (so the
//! inspected addresses are the executed ones); its schedule is dropped and
//! re-inspected whenever any live-in value changes (the context fingerprint),
//! so the DAG always matches the executed addresses. Everything else is left
//! unchanged with a remark.
//!
//! Pay-off (issue 34): a legal nest is still declined, with a `missed` remark
//! naming it as `weft analyze` does (`@function L<k>`) and stating the reason,
//! when the schedule cannot change anything or cannot pay
//! ([`crate::payoff`]): IBs chained by a dependence on one array, windows of
//! one IB under Algorithm 5 (eq. 5.1), or too little work for the runtime's
//! fixed cost.

use inkwell::module::Module;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue};
use inkwell::{AddressSpace, IntPredicate};
use weft_frontend::{FunctionAnalysis, LoopId};

use crate::error::{PassError, Result};
use crate::inspector;
use crate::loop_ids::LoopIds;
use crate::manager::{Changed, Pass, PassContext};
use crate::outline::{self, CloneKind, LoopPlan};
use crate::parallel::{self, Decision};
use crate::payoff;
use crate::pipeline::PassOptions;
use crate::rtabi::{self, RtFn};
use crate::strip_mine::{self, StripPlan};
use crate::util;

/// Scheme names accepted by `scheme=`, in runtime-code order (0..=4).
pub const SCHEMES: &[&str] = &["default", "mlp-first", "clp-first", "balanced", "la-mlp"];

/// Options of `ib-schedule`.
pub const OPTIONS: &[(&str, &str)] = &[
    (
        "scheme",
        "default | mlp-first | clp-first | balanced | la-mlp (Algorithm 5 variants and the Locality-Aware-MLP baseline, §5.6.1; default: mlp-first)",
    ),
    (
        "max-ibs",
        "bound on IBs per execution when no strip-mine plan is recorded (default 512)",
    ),
    (
        "deps",
        "also schedule nests whose IBs depend on each other, with run-time synchronisation (default true)",
    ),
    (
        "only",
        "`|`-separated globs of functions to transform (default: all defined)",
    ),
    (
        "min-work",
        "innermost iterations per execution below which the executor is skipped at run time, the loop running in its original order (default 32768 for scheme=default on a parallel nest, 262144 for the bank-aware schemes and for nests whose IBs may depend on each other; 0: never skipped)",
    ),
];

/// The `ib-schedule` pass.
#[derive(Debug, Clone)]
pub struct IbSchedule {
    /// Runtime scheme code (index in [`SCHEMES`]).
    pub scheme: u32,
    /// Bound on IBs per execution without a recorded plan.
    pub max_ibs: u64,
    /// Whether dependent nests are scheduled (with synchronisation).
    pub deps: bool,
    /// Function globs.
    pub only: Vec<String>,
    /// Run-time work threshold (`None`: [`payoff::min_call_work`] of the scheme).
    pub min_work: Option<u64>,
}

impl IbSchedule {
    /// Builds the pass from its options.
    pub fn from_options(o: &PassOptions) -> Result<IbSchedule> {
        let s = o.choice_or("scheme", SCHEMES, "mlp-first")?;
        let max_ibs = o.u64_or("max-ibs", strip_mine::DEFAULT_MAX_IBS)?;
        if max_ibs == 0 {
            return Err(PassError::BadOption {
                pass: "ib-schedule".into(),
                option: "max-ibs".into(),
                message: "must be positive".into(),
            });
        }
        Ok(IbSchedule {
            scheme: SCHEMES.iter().position(|x| *x == s).unwrap_or(1) as u32,
            max_ibs,
            deps: o.bool_or("deps", true)?,
            only: o.list("only"),
            min_work: match o.get("min-work") {
                None => None,
                Some(_) => Some(o.u64_or("min-work", 0)?),
            },
        })
    }
}

/// What the β of a scheme is (for remarks; §5.5.6, §5.6.1).
pub fn beta_note(scheme: u32) -> &'static str {
    match scheme {
        0 => "no beta (round-robin IBs)",
        1 => "beta = 1 (MLP-first: CLP only from the TempSet)",
        2 => "beta = 0 (CLP-first)",
        4 => "no beta (Locality-Aware-MLP: inter-core bank parallelism with row-buffer locality, no CLP)",
        _ => {
            "beta chosen per window at run time by the SD rule (runtime stats `beta`, `beta_mean`)"
        }
    }
}

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

/// The remark's sentence on the run-time work guard.
pub fn guard_note(how: &NestEmit<'_>) -> String {
    match &how.work_guard {
        Some((w, min)) => format!(
            "; executions of fewer than {min} innermost iterations (trip count x {} per iteration, at loop entry) {}",
            w.text,
            if how.fingerprint {
                "run in the original order without calling the runtime"
            } else {
                "run in static chunks on weft_parallel_for (the Default schedule) without inspection"
            }
        ),
        None => "; no run-time work guard (min-work=0, or inner trip counts that depend on the nest's IVs or are unknown)".into(),
    }
}

/// What `ib-schedule` (and `cluster-misses`) decide for loop `l`.
pub fn decide_affine<'ctx>(
    ids: &LoopIds,
    fa: &FunctionAnalysis<'ctx>,
    l: LoopId,
    allow_deps: bool,
) -> (Decision<'ctx>, bool) {
    let Some(nest) = fa
        .regions
        .affine_nests
        .iter()
        .find(|n| n.loops.contains(&l))
    else {
        return (Decision::Skip("not in an affine nest".into()), false);
    };
    let Some((p, par)) = strip_mine::scheduled_loop(fa, nest.root) else {
        return (
            Decision::Skip("affine nest without a scheduled loop".into()),
            false,
        );
    };
    if p != l {
        return (
            Decision::Skip(if l == nest.root && par {
                format!(
                    "sequential loop; its parallel inner loop {} is the one scheduled",
                    ids.nest(fa, p)
                )
            } else {
                format!(
                    "part of the nest scheduled at {}, not a nest of its own (that loop's remark says what became of it)",
                    ids.nest(fa, p)
                )
            }),
            false,
        );
    }
    if !par {
        let why = nest.reason.clone().unwrap_or_default();
        if !why.contains("no loop of the nest is parallel") {
            return (
                Decision::Skip(format!("not an affine candidate: {why}")),
                false,
            );
        }
        if !allow_deps {
            return (
                Decision::Skip("IBs would depend on each other (deps=false)".into()),
                false,
            );
        }
        if let Some(why) = payoff::chained_dependence(ids, fa, l) {
            return (Decision::Skip(format!("ib-schedule: {why}")), false);
        }
    }
    if par && !parallel::parallel_except_reductions(fa, l) {
        let d = &fa.deps[l.index()];
        return (
            Decision::Skip(format!("not parallel: {}", d.reasons.join("; "))),
            false,
        );
    }
    let plan = match outline::plan_loop(fa, l) {
        Ok(p) => p,
        Err(e) => {
            return (
                Decision::Skip(format!("affine nest not outlined: {e}")),
                false,
            )
        }
    };
    if let Some(h) = inspector::inspector_hazard(fa, l, &plan) {
        return (Decision::Skip(format!("no address inspector: {h}")), false);
    }
    (Decision::Transform(Box::new(plan)), par)
}

impl Pass for IbSchedule {
    fn name(&self) -> &'static str {
        "ib-schedule"
    }

    fn run<'ctx>(&self, module: &Module<'ctx>, cx: &mut PassContext<'ctx>) -> Result<Changed> {
        let m = strip_mine::machine(cx)?;
        let line = m.llc.line_bytes as u64;
        let llc_lines = m.llc.size_bytes / line.max(1);
        let cores = m.core.count as u64;
        let max_ibs = self.max_ibs;
        let scheme = self.scheme;
        let allow = self.deps;
        let min_work = self.min_work;
        let ids = cx.loop_ids(module);
        // Parallelism per decided loop, read back in `apply`.
        let par_of = std::cell::RefCell::new(std::collections::HashMap::new());
        let mut decide = |fa: &FunctionAnalysis<'ctx>, l: LoopId| {
            let (d, par) = decide_affine(&ids, fa, l, allow);
            if let Decision::Transform(p) = &d {
                let sp = match strip_mine::recorded(
                    module,
                    &fa.name,
                    &p.header.get_name().to_string_lossy(),
                ) {
                    Some((e, h, mx)) => StripPlan {
                        line_iters: e,
                        head: h,
                        max_ibs: mx,
                        iw_estimate: None,
                        ds_lines: None,
                        why: "recorded by strip-mine".into(),
                    },
                    None => strip_mine::plan(fa, l, line, llc_lines, cores, max_ibs),
                };
                let refusal = payoff::too_little_work(&ids, fa, l, &sp, cores).or_else(|| {
                    payoff::is_algorithm5(scheme)
                        .then(|| payoff::one_block_windows(&ids, fa, l, &sp))
                        .flatten()
                });
                if let Some(why) = refusal {
                    return Decision::Skip(format!("ib-schedule: {why}"));
                }
                let name = ids.nest(fa, l);
                let desc = if scheme != 0 || !par {
                    Some(crate::affine_desc::build(fa, l))
                } else {
                    None
                };
                par_of.borrow_mut().insert(
                    util::bkey(p.header),
                    (par, sp, desc, name, payoff::work_spec(fa, l)),
                );
            }
            d
        };
        let mut apply = |m: &Module<'ctx>, plan: LoopPlan<'ctx>, cx: &mut PassContext<'ctx>| {
            let (par, sp, desc, name, work) = par_of
                .borrow_mut()
                .remove(&util::bkey(plan.header))
                .ok_or_else(|| PassError::Internal("ib-schedule: lost plan".into()))?;
            let (desc, no_desc) = match desc {
                Some(Ok(d)) => (Some(d), None),
                Some(Err(why)) => (None, Some(why)),
                None => (None, None),
            };
            let desc_note = desc.as_ref().map(|d| {
                format!(
                    ", no inspector: bank vectors computed at loop entry from the access-function descriptor ({} reference(s), {} loop(s), {} of {} words constant at compile time) and the actual base addresses, by cache lines",
                    d.refs,
                    d.loops,
                    d.constant_words,
                    d.words.len()
                )
            });
            let how = NestEmit {
                strip: sp.clone(),
                scheme,
                with_inspector: scheme != 0 || !par,
                fingerprint: !par,
                desc,
                min_parallel_iters: cx.config.min_parallel_iters,
                name: name.clone(),
                work_guard: work
                    .zip(Some(min_work.unwrap_or(payoff::min_call_work(scheme, par))))
                    .filter(|(_, m)| *m > 0),
            };
            let guard_note = guard_note(&how);
            let o = outline_nest(m, &plan, &how)?;
            Ok(format!(
                "ib-schedule: {name} (runtime nest {}) scheme {} body @{}{}; {} ({}); {}{}{guard_note}",
                o.nest,
                SCHEMES[scheme as usize],
                o.body.get_name().to_string_lossy(),
                match (o.inspector, desc_note) {
                    (Some((f, n)), Some(d)) => format!(
                        "{d}; the runtime checks on those lines that no IB writes what another touches, and when they do falls back to the address inspector @{} ({n} access report(s)) and its dependence DAG",
                        f.get_name().to_string_lossy()
                    ),
                    (None, Some(d)) => d,
                    (Some((f, n)), None) => format!(
                        ", address inspector @{} ({n} access report(s)), bank vectors computed at loop entry from the actual base addresses{}",
                        f.get_name().to_string_lossy(),
                        no_desc
                            .map(|w| format!(" (no descriptor: {w})"))
                            .unwrap_or_default()
                    ),
                    (None, None) => ", no inspector (round-robin needs no addresses)".into(),
                },
                sp.describe(),
                sp.why,
                beta_note(scheme),
                if par {
                    String::new()
                } else {
                    "; IBs depend on each other: run-time dependence DAG with synchronisation (transitive-reduction pruned), one cached schedule per live-in context, re-inspected for a new context".into()
                }
            ))
        };
        let changed = parallel::drive(module, cx, &self.only, &mut decide, &mut apply)?;
        Ok(Changed::from_bool(changed))
    }
}
