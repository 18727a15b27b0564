//! `loop-permute`: loop permutation inside iteration windows (dissertation
//! §5.5.5, Fig. 5.4(e)).
//!
//! After `ib-schedule`, each core runs its IBs of a window one after the
//! other. Fig. 5.4(e) interchanges the loop over the IBs of a window with the
//! loop inside an IB, so iteration `t` of every IB of the window runs before
//! iteration `t+1` of any: the misses of the window's IBs (their first touches
//! of each line) are issued back to back, while the window's data still fits
//! in the cache by eq. 5.1, so no miss is added. In executor form the
//! interchange is an execution order: this pass sets the permutation flag
//! (`WEFT_AFFINE_PERMUTE`, 0x100) in the scheme argument of each
//! `weft_run_affine` / `weft_run_affine_desc` call, and the runtime
//! interleaves the window's IBs by granules of the iterations sharing a cache
//! line (`Plan::permuted_windows`; the granule is in bits 16.. of the scheme
//! word, set by `ib-schedule` from the §5.5.3 line rule): each granule of an
//! IB starts one new line per reference, so the misses still come back to
//! back, and the body runs over ranges rather than one call per iteration.
//!
//! Legality: iterations of different IBs of a window are reordered relative to
//! each other, so only nests whose scheduled loop is proven parallel are
//! permuted (those `ib-schedule` emitted without a context fingerprint). A nest
//! whose IBs depend on each other keeps its order, with a remark; the runtime
//! also refuses to permute a plan that has synchronisation waits.
//!
//! Pay-off (issue 34): a nest whose windows hold one IB (eq. 5.1 at compile
//! time, recorded by `ib-schedule` for the call with the nest's name) is not
//! permuted either: there is nothing to interleave ([`crate::payoff`]). Every
//! remark names the nest as `weft analyze` does (`@function L<k>`).

use inkwell::module::Module;
use inkwell::values::BasicValueEnum;

use crate::error::Result;
use crate::manager::{Changed, Pass, PassContext, RemarkKind};
use crate::pipeline::PassOptions;
use crate::rtabi::RtFn;
use crate::util;

/// The permutation flag of `weft_run_affine`'s scheme (runtime `AFFINE_PERMUTE`).
pub const PERMUTE_FLAG: u64 = weft_runtime::abi::AFFINE_PERMUTE as u64;

/// Options of `loop-permute`.
pub const OPTIONS: &[(&str, &str)] = &[(
    "only",
    "`|`-separated globs of functions to transform (default: all defined)",
)];

/// The `loop-permute` pass.
#[derive(Debug, Clone, Default)]
pub struct LoopPermute {
    /// Function globs.
    pub only: Vec<String>,
}

impl LoopPermute {
    /// Builds the pass from its options.
    pub fn from_options(o: &PassOptions) -> Result<LoopPermute> {
        Ok(LoopPermute {
            only: o.list("only"),
        })
    }
}

/// Sets the permutation flag on every affine executor call of parallel nests;
/// returns `(function, nest name, applied, message)` per call.
pub fn permute_calls(module: &Module<'_>, only: &[String]) -> Vec<(String, String, bool, String)> {
    let mut out = Vec::new();
    let calls: Vec<_> = [RtFn::RunAffine, RtFn::RunAffineDesc]
        .iter()
        .filter_map(|r| module.get_function(r.symbol()))
        .flat_map(|f| util::unique_users(&f.as_global_value().as_pointer_value()))
        .collect();
    let cx = module.get_context();
    for call in calls {
        let fname = call
            .get_parent()
            .and_then(|b| b.get_parent())
            .map(|f| f.get_name().to_string_lossy().into_owned())
            .unwrap_or_default();
        if !crate::parallel::selected(only, &fname) {
            continue;
        }
        let nest = match util::value_operand(call, 0) {
            Some(BasicValueEnum::IntValue(c)) => c.get_zero_extended_constant(),
            _ => None,
        };
        let scheme = match util::value_operand(call, 4) {
            Some(BasicValueEnum::IntValue(c)) => c.get_zero_extended_constant(),
            _ => None,
        };
        let Some(scheme) = scheme else {
            continue;
        };
        if scheme & PERMUTE_FLAG != 0 {
            continue;
        }
        let md = crate::ib_schedule::nest_of(module, call);
        let name = match (&md, nest) {
            (Some((n, _)), _) => n.clone(),
            (None, Some(id)) => format!("@{fname} (runtime nest {id})"),
            (None, None) => format!("@{fname} (a nest with a per-context id)"),
        };
        // `ib-schedule` passes a constant id only for nests proven parallel;
        // dependent nests get their id from the per-context schedule cache.
        if nest.is_none() {
            // (A dependent nest has two calls, descriptor and inspector path.)
            if out.iter().any(|(f, n, _, _)| *f == fname && *n == name) {
                continue;
            }
            out.push((
                fname,
                name.clone(),
                false,
                format!("loop-permute: {name} not permuted: the nest's IBs depend on each other (run-time synchronisation); reordering iterations across IBs is not proven legal"),
            ));
            continue;
        }
        if let Some((_, iw @ 1)) = md {
            out.push((
                fname,
                name.clone(),
                false,
                format!("loop-permute: {name} not permuted: eq. 5.1 gives windows of {iw} iteration block (compile-time estimate), so a window has nothing to interleave"),
            ));
            continue;
        }
        let nv = cx.i32_type().const_int(scheme | PERMUTE_FLAG, false);
        // SAFETY: operand 4 of a `weft_run_affine` call is its `uint32_t scheme`;
        // `nv` is an i32 constant.
        unsafe {
            inkwell::llvm_sys::core::LLVMSetOperand(
                inkwell::values::AsValueRef::as_value_ref(&call),
                4,
                inkwell::values::AsValueRef::as_value_ref(&nv),
            )
        };
        out.push((
            fname,
            name.clone(),
            true,
            format!("{name}: IBs of each window interleaved iteration by iteration (Fig. 5.4(e)): misses of the window's IBs clustered; legal, the nest's scheduled loop is parallel"),
        ));
    }
    out
}

impl Pass for LoopPermute {
    fn name(&self) -> &'static str {
        "loop-permute"
    }

    fn run<'ctx>(&self, module: &Module<'ctx>, cx: &mut PassContext<'ctx>) -> Result<Changed> {
        let r = permute_calls(module, &self.only);
        if module.get_function(RtFn::RunAffine.symbol()).is_none()
            && module.get_function(RtFn::RunAffineDesc.symbol()).is_none()
        {
            cx.remark(
                "",
                None,
                RemarkKind::Missed,
                "loop-permute: no affine executor call in the module (ib-schedule did not run or transformed no nest; its remarks say why)",
            );
        }
        let mut changed = false;
        for (f, nest, applied, msg) in r {
            changed |= applied;
            cx.remark(
                &f,
                Some(nest),
                if applied {
                    RemarkKind::Applied
                } else {
                    RemarkKind::Missed
                },
                msg,
            );
        }
        Ok(Changed::from_bool(changed))
    }
}
