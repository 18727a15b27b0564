//! `cluster-misses`: the Pai and Adve style miss-clustering baseline
//! ("Clustering" of dissertation §5.6.1; Fig. 5.2(b)(c), reference [81]).
//!
//! Loop permutation plus strip-mining without any bank awareness: the
//! scheduled loop of each parallel affine nest is strip-mined into strips of
//! one cache line of iterations (the §5.5.3 line rule of
//! [`crate::strip_mine`], grown only to bound the strip count), the strips are
//! dealt to the cores by the Default round-robin distribution (no inspector,
//! no MLP/CLP scheduling), and each core runs its strips permuted (Fig. 5.2(b):
//! iteration `t` of every strip before iteration `t+1`), so each core's misses
//! come in bursts while the strips keep the line reuse of Fig. 5.2(c).
//!
//! Legality is that of the permutation: only nests whose scheduled loop is
//! proven parallel are transformed; other loops get a remark.

use inkwell::module::Module;
use weft_frontend::{FunctionAnalysis, LoopId};

use crate::error::{PassError, Result};
use crate::ib_schedule::{self, NestEmit};
use crate::loop_permute::PERMUTE_FLAG;
use crate::manager::{Changed, Pass, PassContext};
use crate::outline::LoopPlan;
use crate::parallel::{self, Decision};
use crate::pipeline::PassOptions;
use crate::strip_mine;
use crate::util;

/// Options of `cluster-misses`.
pub const OPTIONS: &[(&str, &str)] = &[
    ("max-ibs", "bound on strips per execution (default 512)"),
    (
        "min-work",
        "innermost iterations per execution below which the executor is skipped at run time (default 32768; 0: never skipped)",
    ),
    (
        "only",
        "`|`-separated globs of functions to transform (default: all defined)",
    ),
];

/// The `cluster-misses` pass.
#[derive(Debug, Clone)]
pub struct ClusterMisses {
    /// Bound on strips per execution.
    pub max_ibs: u64,
    /// Function globs.
    pub only: Vec<String>,
    /// Run-time work threshold ([`crate::payoff::MIN_CALL_WORK_DEFAULT`]).
    pub min_work: u64,
}

impl ClusterMisses {
    /// Builds the pass from its options.
    pub fn from_options(o: &PassOptions) -> Result<ClusterMisses> {
        let max_ibs = o.u64_or("max-ibs", strip_mine::DEFAULT_MAX_IBS)?;
        if max_ibs == 0 {
            return Err(PassError::BadOption {
                pass: "cluster-misses".into(),
                option: "max-ibs".into(),
                message: "must be positive".into(),
            });
        }
        Ok(ClusterMisses {
            max_ibs,
            only: o.list("only"),
            min_work: o.u64_or("min-work", crate::payoff::MIN_CALL_WORK_DEFAULT)?,
        })
    }
}

impl Pass for ClusterMisses {
    fn name(&self) -> &'static str {
        "cluster-misses"
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
        let min_work = self.min_work;
        let ids = cx.loop_ids(module);
        let plans = std::cell::RefCell::new(std::collections::HashMap::new());
        let mut decide = |fa: &FunctionAnalysis<'ctx>, l: LoopId| {
            let (d, _) = ib_schedule::decide_affine(&ids, fa, l, false);
            if let Decision::Transform(p) = &d {
                let sp = strip_mine::plan(fa, l, line, llc_lines, cores, max_ibs);
                if let Some(why) = crate::payoff::too_little_work(&ids, fa, l, &sp, cores) {
                    return Decision::Skip(format!("cluster-misses: {why}"));
                }
                plans.borrow_mut().insert(
                    util::bkey(p.header),
                    (sp, ids.nest(fa, l), crate::payoff::work_spec(fa, l)),
                );
            }
            d
        };
        let mut apply = |m: &Module<'ctx>, plan: LoopPlan<'ctx>, cx: &mut PassContext<'ctx>| {
            let (sp, name, work) = plans
                .borrow()
                .get(&util::bkey(plan.header))
                .cloned()
                .ok_or_else(|| PassError::Internal("cluster-misses: lost plan".into()))?;
            let (inline_below, placement_note) = cx.inline_bound();
            let how = NestEmit {
                strip: sp.clone(),
                scheme: PERMUTE_FLAG as u32,
                with_inspector: false,
                fingerprint: false,
                desc: None,
                min_parallel_iters: inline_below,
                name: name.clone(),
                work_guard: work.zip(Some(min_work)).filter(|(_, m)| *m > 0),
            };
            let guard_note = ib_schedule::guard_note(&how);
            let guard_note = format!("{guard_note}{placement_note}");
            let o = ib_schedule::outline_nest(m, &plan, &how)?;
            Ok(format!(
                "cluster-misses: {name} (runtime nest {}) body @{}: strips of {} iteration(s) ({}), round-robin over cores, permuted inside each core's window (Fig. 5.2(b)(c)){guard_note}",
                o.nest,
                o.body.get_name().to_string_lossy(),
                sp.line_iters,
                sp.why
            ))
        };
        let changed = parallel::drive(module, cx, &self.only, &mut decide, &mut apply)?;
        Ok(Changed::from_bool(changed))
    }
}
