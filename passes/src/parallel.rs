//! `parallel-for`: statically parallel loops in executor form on the runtime's
//! `weft_parallel_for` (contiguous equal chunks per worker: the "Original"
//! schedule of dissertation §4.5 / "Default" of §5.6.1 when run natively or
//! in trace mode).
//!
//! A loop is transformed when the frontend proves it parallel (no carried
//! memory dependence, no carried scalar other than IVs and integer reductions
//! that [`crate::outline`] supports) and it can be outlined; the outermost
//! such loop of a nest is chosen and its inner loops run inside the body.
//! Loops in generated functions (`*.weft.*`) are left alone. Every loop that
//! was looked at gets a remark. A loop parallel only when bases that are not
//! provably distinct touch disjoint ranges is versioned
//! ([`crate::versioning`]): the check runs before the runtime call and, when
//! it fails, the body runs sequentially; the remark names the checked pairs. Before looking, LLVM's `loop-simplify` puts
//! loops into canonical form (it only adds preheaders and dedicated exits).

use std::cell::RefCell;
use std::collections::HashSet;

use inkwell::module::Module;
use inkwell::values::BasicMetadataValueEnum;
use inkwell::IntPredicate;
use weft_frontend::{FunctionAnalysis, LoopId};

use crate::error::Result;
use crate::manager::{Changed, Pass, PassContext, RemarkKind};
use crate::outline::{self, CloneKind, LoopPlan};
use crate::pipeline::PassOptions;
use crate::rtabi::{self, RtFn};
use crate::util;
use crate::versioning::{self, VersionSpec};

/// Options of `parallel-for`.
pub const OPTIONS: &[(&str, &str)] = &[
    (
        "only",
        "`|`-separated globs of functions to transform (default: all defined)",
    ),
    (
        "fp-reassoc",
        "run floating-point reductions in parallel, partials combined in a fixed order (default: the pipeline's --fp-reassoc)",
    ),
];

/// The `parallel-for` pass.
#[derive(Debug, Clone, Default)]
pub struct ParallelFor {
    /// Function globs; empty = all.
    pub only: Vec<String>,
    /// `fp-reassoc` option; `None` = the pipeline's `--fp-reassoc`.
    pub fp_reassoc: Option<bool>,
}

impl ParallelFor {
    /// Builds the pass from its options.
    pub fn from_options(o: &PassOptions) -> Result<ParallelFor> {
        Ok(ParallelFor {
            only: o.list("only"),
            fp_reassoc: o
                .get("fp-reassoc")
                .map(|_| o.bool_or("fp-reassoc", false))
                .transpose()?,
        })
    }
}

/// Whether the frontend's verdict allows running iterations in parallel, apart
/// from the reductions the outliner combines (each reduction adds one reason).
pub fn parallel_except_reductions(fa: &FunctionAnalysis<'_>, l: LoopId) -> bool {
    let d = &fa.deps[l.index()];
    d.carried.is_empty() && d.reasons.len() == d.reductions.len()
}

/// Whether the pass may touch function `name` given `only` globs.
pub fn selected(only: &[String], name: &str) -> bool {
    !name.contains(".weft.")
        && !name.starts_with("weft_")
        && (only.is_empty() || only.iter().any(|g| util::glob_match(g, name)))
}

/// Outcome of looking at one loop.
pub enum Decision<'ctx> {
    /// Transform it with this plan (boxed: a plan is far larger than a reason).
    Transform(Box<LoopPlan<'ctx>>),
    /// Leave it and say why (a `missed` remark); look at its children. An
    /// empty reason is no remark: see [`Decision::NotCandidate`].
    Skip(String),
    /// Not a loop this pass is about (no remark); look at its children.
    NotCandidate,
}

/// Walks the loop forest outermost-first; returns the first undecided loop's
/// decision (children of skipped loops are visited). `decided` holds header keys.
pub fn next_decision<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    decided: &HashSet<usize>,
    decide: &mut dyn FnMut(&FunctionAnalysis<'ctx>, LoopId) -> Decision<'ctx>,
) -> Option<(LoopId, Decision<'ctx>)> {
    let mut stack: Vec<LoopId> = fa.forest.roots.iter().rev().copied().collect();
    while let Some(l) = stack.pop() {
        let hk = util::bkey(fa.cfg.block(fa.forest.get(l).header));
        if decided.contains(&hk) {
            for &c in fa.forest.get(l).children.iter().rev() {
                stack.push(c);
            }
            continue;
        }
        return Some((l, decide(fa, l)));
    }
    None
}

/// Drives a loop-by-loop transformation over every selected function:
/// re-analyses after each change, remarks on every candidate loop looked at
/// (naming it by its id in the pipeline's input, [`PassContext::loop_label`],
/// although each re-analysis numbers the loops left afresh).
pub fn drive<'ctx>(
    module: &Module<'ctx>,
    cx: &mut PassContext<'ctx>,
    only: &[String],
    decide: &mut dyn FnMut(&FunctionAnalysis<'ctx>, LoopId) -> Decision<'ctx>,
    apply: &mut dyn FnMut(&Module<'ctx>, LoopPlan<'ctx>, &mut PassContext<'ctx>) -> Result<String>,
) -> Result<bool> {
    let names: Vec<String> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .filter(|n| selected(only, n))
        .collect();
    // Canonical loops (preheaders, dedicated exits) for the outliner.
    if !names.is_empty() {
        util::run_llvm_passes(module, "function(loop-simplify)")?;
        cx.invalidate();
    }
    let mut changed = false;
    for name in names {
        let mut decided: HashSet<usize> = HashSet::new();
        loop {
            let a = cx.analysis(module);
            let Some(fa) = a.function(&name) else { break };
            let Some((l, d)) = next_decision(fa, &decided, decide) else {
                break;
            };
            let label = cx.loop_label(fa, l);
            decided.insert(util::bkey(fa.cfg.block(fa.forest.get(l).header)));
            match d {
                // A `missed` remark always says why: a decision without a
                // reason is a loop the pass is not about.
                Decision::NotCandidate => {}
                Decision::Skip(why) if why.trim().is_empty() => {}
                Decision::Skip(why) => cx.remark(&name, Some(label), RemarkKind::Missed, why),
                Decision::Transform(plan) => {
                    let verdict = cx.serial_consumer(fa, l);
                    cx.set_transforming(verdict);
                    let msg = apply(module, *plan, cx);
                    cx.set_transforming(None);
                    let msg = msg?;
                    cx.remark(&name, Some(label), RemarkKind::Applied, msg);
                    cx.invalidate();
                    changed = true;
                }
            }
        }
    }
    Ok(changed)
}

/// Decides on loop `l`; a loop parallel only under run-time alias checks
/// leaves its [`VersionSpec`] in `spec` for the transformation. Privatisation
/// is tried first; a loop that needs both privatisation and a run-time check
/// is refused (the two are not combined). A run-time check and an ordered
/// floating-point reduction combine: see [`outline::emit_ordered`].
fn decide_parallel<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    l: LoopId,
    opts: outline::PlanOptions,
    spec: &RefCell<Option<VersionSpec<'ctx>>>,
) -> Decision<'ctx> {
    let d = &fa.deps[l.index()];
    *spec.borrow_mut() = None;
    let private = match outline::privatized(fa, l) {
        Ok(p) => p,
        Err(why) => {
            let Some(checks) = d.checks.as_ref().filter(|_| d.parallel_if_checked()) else {
                return Decision::Skip(format!("not parallel: {why}"));
            };
            match VersionSpec::new(fa, checks) {
                Ok(v) => *spec.borrow_mut() = Some(v),
                Err(e) => {
                    return Decision::Skip(format!("not parallel: {why}; no run-time check: {e}"))
                }
            }
            Vec::new()
        }
    };
    match outline::plan_loop_with(fa, l, opts) {
        Ok(mut p) => {
            p.private = private;
            Decision::Transform(Box::new(p))
        }
        Err(e) => Decision::Skip(format!("parallel but not outlined: {e}")),
    }
}

/// Emits `if (check) st = weft_parallel_for(...) else st = 1;` followed by
/// the sequential fallback on `st != 0` (the original order).
fn emit_versioned<'ctx>(
    module: &Module<'ctx>,
    site: &outline::CallSite<'ctx>,
    body: inkwell::values::FunctionValue<'ctx>,
    spec: &VersionSpec<'ctx>,
) -> Result<()> {
    let st = versioning::emit_guarded(module, &site.builder, spec, site.trip_count, || {
        call_parallel_for(module, site, body)
    })?;
    emit_sequential_fallback(module, site, body, st)
}

/// `weft_parallel_for(0, tc, body, ctx)` at the site; returns its status.
fn call_parallel_for<'ctx>(
    module: &Module<'ctx>,
    site: &outline::CallSite<'ctx>,
    body: inkwell::values::FunctionValue<'ctx>,
) -> Result<inkwell::values::IntValue<'ctx>> {
    let pf = rtabi::declare(module, RtFn::ParallelFor)?;
    let zero = module.get_context().i64_type().const_zero();
    let args: [BasicMetadataValueEnum<'ctx>; 4] = [
        zero.into(),
        site.trip_count.into(),
        outline::fn_ptr(body).into(),
        site.ctx.into(),
    ];
    Ok(site
        .builder
        .build_call(pf, &args, "weft.status")?
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| crate::error::PassError::Internal("weft_parallel_for returns void".into()))?
        .into_int_value())
}

/// Emits `if (weft_parallel_for(0, tc, body, ctx) != 0) body(ctx, 0, tc);`.
/// The runtime validates its arguments before running anything, so on a
/// non-zero status no iteration has run and the sequential call is exact.
pub fn emit_parallel_for<'ctx>(
    module: &Module<'ctx>,
    site: &outline::CallSite<'ctx>,
    body: inkwell::values::FunctionValue<'ctx>,
) -> Result<()> {
    let st = call_parallel_for(module, site, body)?;
    emit_sequential_fallback(module, site, body, st)
}

/// `if (status != 0) body(ctx, 0, tc);` at the call site.
pub fn emit_sequential_fallback<'ctx>(
    module: &Module<'ctx>,
    site: &outline::CallSite<'ctx>,
    body: inkwell::values::FunctionValue<'ctx>,
    status: inkwell::values::IntValue<'ctx>,
) -> Result<()> {
    let b = &site.builder;
    let bad = b.build_int_compare(
        IntPredicate::NE,
        status,
        status.get_type().const_zero(),
        "weft.failed",
    )?;
    outline::emit_if(module, b, bad, "weft.fallback", |b| {
        let zero = module.get_context().i64_type().const_zero();
        b.build_call(
            body,
            &[site.ctx.into(), zero.into(), site.trip_count.into()],
            "",
        )?;
        Ok(())
    })
}

/// The remark's note on a run-time alias check (empty without one).
/// `ordered`: the loop runs in fixed blocks ([`outline::emit_ordered`]).
fn versioned_note(version: Option<&VersionSpec<'_>>, ordered: bool) -> String {
    match version {
        Some(v) => format!(
            "; versioned on a run-time alias check of {} base pair(s) ({}{}), {} when it fails",
            v.pairs(),
            v.describe,
            if v.scans_note.is_empty() {
                String::new()
            } else {
                format!(
                    "; {}, least and greatest index read by a pre-pass",
                    v.scans_note
                )
            },
            if ordered {
                "the blocks in order on the calling thread"
            } else {
                "sequential body"
            }
        ),
        None => String::new(),
    }
}

impl Pass for ParallelFor {
    fn name(&self) -> &'static str {
        "parallel-for"
    }

    fn may_parallelize(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> bool {
        selected(&self.only, &fa.name) && crate::placement::parallel_by_deps(fa, l)
    }

    fn run<'ctx>(&self, module: &Module<'ctx>, cx: &mut PassContext<'ctx>) -> Result<Changed> {
        let opts = outline::PlanOptions {
            fp_reassoc: self.fp_reassoc.unwrap_or(cx.config.fp_reassoc),
            last_values: true,
        };
        let spec: RefCell<Option<VersionSpec<'ctx>>> = RefCell::new(None);
        let changed = drive(
            module,
            cx,
            &self.only,
            &mut |fa, l| decide_parallel(fa, l, opts, &spec),
            &mut |m, plan, cx| {
                let version = spec.borrow_mut().take();
                if plan.reductions.iter().any(|r| r.op.is_float()) {
                    let msg = outline::emit_ordered_loop(m, &plan, version.as_ref())?;
                    return Ok(format!("{msg}{}", versioned_note(version.as_ref(), true)));
                }
                let body = outline::clone_body(m, &plan, CloneKind::Executor)?;
                let nred = plan.reductions.len();
                let npriv = plan.private.len() + plan.last_values.len();
                let bname = body.function.get_name().to_string_lossy().into_owned();
                let (below, placement_note) = cx.inline_bound();
                let inline = Some((body.function, below));
                outline::replace_loop(m, &plan, inline, |site| match &version {
                    Some(v) => emit_versioned(m, site, body.function, v),
                    None => emit_parallel_for(m, site, body.function),
                })?;
                Ok(format!(
                    "executor form: body @{bname} run by weft_parallel_for{}{}{}{}",
                    if nred > 0 {
                        format!(" ({nred} integer reduction(s) combined atomically)")
                    } else {
                        String::new()
                    },
                    if npriv > 0 {
                        format!(" ({npriv} object(s) or scalar(s) privatised, last values written back)")
                    } else {
                        String::new()
                    },
                    versioned_note(version.as_ref(), false),
                    placement_note
                ))
            },
        )?;
        Ok(Changed::from_bool(changed))
    }
}
