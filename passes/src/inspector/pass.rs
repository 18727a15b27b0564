//! `impl Pass for InsertInspector`: drives the transformation over every
//! candidate loop ([`crate::parallel::drive`]): the decision
//! ([`super::decide`]), the rewrite of a decided loop ([`super::emit`]), and,
//! once every loop of the module is done, the index-array reset points
//! ([`super::reset`]); it records the remarks (§4.4.1's inspector/executor
//! per irregular region, Fig. 4.8(b)).

use std::collections::{HashMap, HashSet};

use inkwell::module::Module;
use weft_frontend::{FunctionAnalysis, LoopId};

use super::decide::{decide, unchecked_loads};
use super::emit::apply;
use super::options::{InsertInspector, PARALLEL_ANNOTATION};
use super::reset::insert_invalidations;
use crate::error::Result;
use crate::manager::{Changed, Pass, PassContext, RemarkKind};
use crate::parallel::{self, Decision};
use crate::util;

impl Pass for InsertInspector {
    fn name(&self) -> &'static str {
        "insert-inspector"
    }

    /// The index-array loops this pass turns into inspector regions. Their
    /// placement is the runtime's choice, made per execution (grain control
    /// runs small ones on the calling thread; dependences found at run time
    /// keep the original order), so for the serial-consumer rule they count
    /// as serial ([`Pass::may_parallelize`] keeps its default, no).
    fn takes(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> bool {
        crate::parallel::selected(&self.only, &fa.name)
            && fa
                .regions
                .irregular
                .iter()
                .flat_map(|r| r.loops.iter())
                .any(|il| il.loop_id == l)
    }

    fn run<'ctx>(&self, module: &Module<'ctx>, cx: &mut PassContext<'ctx>) -> Result<Changed> {
        let mut regions = Vec::new();
        // Per candidate header: (needs the dependence check, loads that need
        // none, parallel by annotation instead).
        type Check = (bool, HashSet<util::ValueKey>, bool);
        let checks: std::cell::RefCell<HashMap<usize, Check>> = Default::default();
        let annotated = match self.trust_annotations {
            true => util::annotated_functions(module, PARALLEL_ANNOTATION),
            false => Default::default(),
        };
        let mut decide_fn = |fa: &FunctionAnalysis<'ctx>, l: LoopId| {
            let d = decide(fa, l);
            if let Decision::Transform(p) = &d {
                let needs = fa
                    .regions
                    .irregular
                    .iter()
                    .flat_map(|r| r.loops.iter())
                    .any(|il| il.loop_id == l && il.needs_runtime_check);
                let trusted =
                    needs && fa.forest.get(l).parent.is_none() && annotated.contains(&fa.name);
                checks.borrow_mut().insert(
                    util::bkey(p.header),
                    (needs && !trusted, unchecked_loads(fa, l), trusted),
                );
            }
            d
        };
        let changed = parallel::drive(
            module,
            cx,
            &self.only,
            &mut decide_fn,
            &mut |m, plan, cx| {
                let (needs, unchecked, trusted) = checks
                    .borrow_mut()
                    .remove(&util::bkey(plan.header))
                    .unwrap_or((true, HashSet::new(), false));
                let min = cx.config.min_parallel_iters;
                let done = apply(
                    m,
                    plan,
                    self,
                    (needs, trusted),
                    &unchecked,
                    min,
                    &mut regions,
                )?;
                Ok(match trusted {
                    true => format!(
                        "{done}; parallel by its function's `{PARALLEL_ANNOTATION}` annotation, without the dependence check the analysis would need (trust-annotations=false checks it)"
                    ),
                    false => done,
                })
            },
        )?;
        if changed && self.invalidate {
            cx.invalidate();
            let n = insert_invalidations(module, cx, &regions)?;
            cx.remark(
                "<module>",
                None,
                RemarkKind::Note,
                format!(
                    "{n} invalidation point(s) after code that may reassign index arrays, for {} region(s)",
                    regions.len()
                ),
            );
        }
        Ok(Changed::from_bool(changed))
    }
}
