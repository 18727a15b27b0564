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
use weft_frontend::{FunctionAnalysis, LoopId};

use crate::error::{PassError, Result};
use crate::inspector;
use crate::loop_ids::LoopIds;
use crate::manager::{Changed, Pass, PassContext};
use crate::outline::{self, LoopPlan};
use crate::parallel::{self, Decision};
use crate::payoff;
use crate::pipeline::PassOptions;
use crate::strip_mine::{self, StripPlan};
use crate::util;

mod emit;
pub use emit::{nest_of, outline_nest, NestEmit, Outlined};

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
        if !nest.only_sequential {
            let why = nest.reason.clone().unwrap_or_default();
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

    fn may_parallelize(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> bool {
        parallel::selected(&self.only, &fa.name) && strip_mine::may_be_scheduled(fa, l)
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
            let (inline_below, placement_note) = cx.inline_bound();
            let how = NestEmit {
                strip: sp.clone(),
                scheme,
                with_inspector: scheme != 0 || !par,
                fingerprint: !par,
                desc,
                min_parallel_iters: inline_below,
                name: name.clone(),
                work_guard: work
                    .zip(Some(min_work.unwrap_or(payoff::min_call_work(scheme, par))))
                    .filter(|(_, m)| *m > 0),
            };
            let guard_note = guard_note(&how);
            let guard_note = format!("{guard_note}{placement_note}");
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
