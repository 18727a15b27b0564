//! Step 1 of the executor form (§4.4.4, Fig. 4.8(b)): [`plan_loop`] checks a
//! counted loop read-only and returns its [`LoopPlan`] (induction variables,
//! integer reductions, live-ins and live-outs, the trip count) or the reason it
//! cannot be outlined, for the remark; [`loop_label`] names a loop in remarks.

use std::collections::HashSet;

use inkwell::basic_block::BasicBlock;
use inkwell::values::{
    BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue, PhiValue,
};
use inkwell::AtomicRMWBinOp;
use weft_frontend::{FunctionAnalysis, LoopId, Sym};

use crate::util::{self, ValueKey};

/// A reduction the executor form supports: integer ones always (exact in any
/// order), floating-point ones only when the caller opts in to reassociation
/// ([`PlanOptions::fp_reassoc`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedOp {
    /// `r + x`.
    Add,
    /// `r - x` (partials are combined with `add`).
    Sub,
    /// `r & x`.
    And,
    /// `r | x`.
    Or,
    /// `r ^ x`.
    Xor,
    /// `r + x` in floating point.
    FAdd,
    /// `r - x` in floating point (partials are combined with `fadd`).
    FSub,
    /// `r * x` in floating point.
    FMul,
    /// `fmuladd(a, b, r)` or `fma(a, b, r)` (partials are combined with `fadd`).
    FMulAdd,
    /// `minnum(r, x)`.
    MinNum,
    /// `maxnum(r, x)`.
    MaxNum,
}

impl RedOp {
    /// Whether the operation is on floating-point values (reassociating it
    /// changes the result's bits).
    pub fn is_float(self) -> bool {
        !matches!(
            self,
            RedOp::Add | RedOp::Sub | RedOp::And | RedOp::Or | RedOp::Xor
        )
    }

    pub(super) fn identity(self) -> u64 {
        match self {
            RedOp::And => u64::MAX,
            _ => 0,
        }
    }

    /// The neutral element of the combining operation for floats: `-0.0` for
    /// sums (`-0.0 + x == x` for every `x`, `+0.0` included), `1.0` for
    /// products, NaN for `minnum`/`maxnum` (which return the other operand).
    pub(super) fn float_identity(self) -> f64 {
        match self {
            RedOp::FMul => 1.0,
            RedOp::MinNum | RedOp::MaxNum => f64::NAN,
            _ => -0.0,
        }
    }

    pub(super) fn atomic(self) -> AtomicRMWBinOp {
        match self {
            RedOp::Add | RedOp::Sub => AtomicRMWBinOp::Add,
            RedOp::And => AtomicRMWBinOp::And,
            RedOp::Or => AtomicRMWBinOp::Or,
            RedOp::Xor => AtomicRMWBinOp::Xor,
            // Never combined atomically: see `crate::outline::ordered`.
            _ => AtomicRMWBinOp::FAdd,
        }
    }
}

/// What [`plan_loop_with`] accepts beyond the bit-exact default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanOptions {
    /// Accept floating-point reductions (`--fp-reassoc`): their partials are
    /// combined in a fixed order ([`crate::outline::ordered`]), so the result
    /// is reproducible but may differ from the sequential one in the last bits.
    pub fp_reassoc: bool,
    /// Accept values computed in every iteration and used after the loop
    /// (privatised scalars): the body that runs the last iteration stores
    /// them into the context ([`LiveOut::Last`]).
    pub last_values: bool,
}

/// An induction variable of the outlined loop.
#[derive(Debug, Clone)]
pub struct IvPlan<'ctx> {
    /// The header phi.
    pub phi: PhiValue<'ctx>,
    /// The value entering the loop.
    pub start: BasicValueEnum<'ctx>,
    /// Constant step per iteration.
    pub step: i64,
    /// The `phi + step` instruction.
    pub next: InstructionValue<'ctx>,
}

/// A reduction of the outlined loop.
#[derive(Debug, Clone)]
pub struct RedPlan<'ctx> {
    /// The header phi.
    pub phi: PhiValue<'ctx>,
    /// The update `op(phi, x)` feeding the back edge.
    pub update: InstructionValue<'ctx>,
    /// The operation.
    pub op: RedOp,
    /// The value entering the loop.
    pub init: BasicValueEnum<'ctx>,
}

/// An object the outlined body works on a copy of (see
/// `weft_frontend::privatize`).
#[derive(Debug, Clone)]
pub struct PrivPlan<'ctx> {
    /// The original object (an `alloca` or a global).
    pub value: inkwell::values::PointerValue<'ctx>,
    /// Its type (the copy's).
    pub ty: inkwell::types::BasicTypeEnum<'ctx>,
    /// Copy in at entry, and out from the body that ran the last iteration.
    pub write_back: bool,
}

impl<'ctx> PrivPlan<'ctx> {
    /// The plan of a privatised object, or why it cannot be copied.
    pub fn new(p: &weft_frontend::privatize::Private<'ctx>) -> std::result::Result<Self, String> {
        use inkwell::values::AsValueRef;
        let BasicValueEnum::PointerValue(v) = p.value else {
            return Err(format!("{}: not a pointer", p.name));
        };
        let ty = if let Some(i) = v.as_instruction() {
            i.get_allocated_type()
                .map_err(|e| format!("{}: {e:?}", p.name))?
        } else {
            // SAFETY: the privatised value is a global variable (the frontend's
            // `BaseKind::Global`), whose value type is a sized first-class type.
            unsafe {
                let t = inkwell::llvm_sys::core::LLVMGlobalGetValueType(v.as_value_ref());
                inkwell::types::BasicTypeEnum::new(t)
            }
        };
        Ok(PrivPlan {
            value: v,
            ty,
            write_back: p.write_back,
        })
    }
}

/// A value defined in the loop and used after it.
#[derive(Debug, Clone, Copy)]
pub enum LiveOut {
    /// IV phi number `k` (value in the last iteration).
    IvPhi(usize),
    /// IV increment number `k` (value after the last iteration).
    IvNext(usize),
    /// Reduction `k`'s update (the final value).
    RedUpdate(usize),
    /// Reduction `k`'s phi (final value when the test precedes the body).
    RedPhi(usize),
    /// Last value `k` ([`LoopPlan::last_values`]): the value the last
    /// iteration computed, a scalar privatised per worker.
    Last(usize),
}

/// Everything needed to outline one loop, checked read-only.
pub struct LoopPlan<'ctx> {
    /// The function holding the loop.
    pub function: FunctionValue<'ctx>,
    /// Its name.
    pub function_name: String,
    /// The frontend's loop id.
    pub loop_id: LoopId,
    /// `L<id> (<header>)`, for remarks.
    pub label: String,
    /// Loop blocks in layout order.
    pub blocks: Vec<BasicBlock<'ctx>>,
    /// The header.
    pub header: BasicBlock<'ctx>,
    /// The preheader.
    pub preheader: BasicBlock<'ctx>,
    /// The latch.
    pub latch: BasicBlock<'ctx>,
    /// The only exiting block (header or latch).
    pub exiting: BasicBlock<'ctx>,
    /// The only exit block.
    pub exit: BasicBlock<'ctx>,
    /// Whether the exit test follows the body (rotated loop).
    pub after_body: bool,
    /// Induction variables (header phis).
    pub ivs: Vec<IvPlan<'ctx>>,
    /// Reductions (header phis).
    pub reductions: Vec<RedPlan<'ctx>>,
    /// Objects the body works on private copies of (set by the caller
    /// after [`plan_loop`], from `weft_frontend::privatize`).
    pub private: Vec<PrivPlan<'ctx>>,
    /// Values computed in every iteration and used after the loop.
    pub last_values: Vec<InstructionValue<'ctx>>,
    /// Values defined before the loop and used in it, in first-use order.
    pub live_ins: Vec<BasicValueEnum<'ctx>>,
    /// In-loop values used after the loop.
    pub live_outs: Vec<(InstructionValue<'ctx>, LiveOut)>,
    /// Trip count `ceil(num / step)` with `num = Σ coeff·Π values`.
    pub trip_terms: Vec<(i64, Vec<BasicValueEnum<'ctx>>)>,
    /// The trip count's divisor.
    pub trip_step: i64,
    in_loop: HashSet<ValueKey>,
    block_set: HashSet<usize>,
}

impl<'ctx> LoopPlan<'ctx> {
    /// Whether an instruction belongs to the loop.
    pub fn contains_inst(&self, i: InstructionValue<'ctx>) -> bool {
        self.in_loop.contains(&util::key(&i))
    }

    /// Whether a block belongs to the loop.
    pub fn contains_block(&self, b: BasicBlock<'ctx>) -> bool {
        self.block_set.contains(&util::bkey(b))
    }

    /// All instructions of the loop, in layout order.
    pub fn instructions(&self) -> Vec<InstructionValue<'ctx>> {
        self.blocks
            .iter()
            .flat_map(|b| util::instructions(*b))
            .collect()
    }
}

/// Label of a loop in the current analysis: `L3 (for.body)`. Its number is
/// the loop's id in `fa`, which changes once a pass has outlined an earlier
/// loop of the function: remarks use [`crate::manager::PassContext::loop_label`],
/// which keeps the ids of the pipeline's input (`weft analyze`'s).
pub fn loop_label(fa: &FunctionAnalysis<'_>, l: LoopId) -> String {
    let h = fa.cfg.block(fa.forest.get(l).header);
    format!("{l} ({})", h.get_name().to_string_lossy())
}

/// The remark's explanation when a floating-point reduction is refused.
pub const FP_REFUSED: &str = "floating-point reduction: parallel ranges would change the summation order (bit-exact results required); --fp-reassoc would run it in parallel, per-block partials combined in a fixed order";

pub(super) fn red_op(
    update: InstructionValue<'_>,
    phi: PhiValue<'_>,
    opts: PlanOptions,
) -> std::result::Result<RedOp, String> {
    let lhs_is_phi =
        || util::value_operand(update, 0).map(|v| util::key(&v)) == Some(util::key(&phi));
    let op = match update.get_opcode() {
        InstructionOpcode::Add => RedOp::Add,
        InstructionOpcode::Sub => {
            // Only `phi - x` is a reduction; `x - phi` alternates signs.
            if !lhs_is_phi() {
                return Err("subtraction from the reduced value is not associative".into());
            }
            RedOp::Sub
        }
        InstructionOpcode::And => RedOp::And,
        InstructionOpcode::Or => RedOp::Or,
        InstructionOpcode::Xor => RedOp::Xor,
        InstructionOpcode::FAdd => RedOp::FAdd,
        InstructionOpcode::FSub => {
            if !lhs_is_phi() {
                return Err("subtraction from the reduced value is not associative".into());
            }
            RedOp::FSub
        }
        InstructionOpcode::FMul => RedOp::FMul,
        InstructionOpcode::Call => {
            let name = util::callee_name(update).unwrap_or_default();
            let base = name
                .trim_start_matches("llvm.")
                .split('.')
                .next()
                .unwrap_or("");
            match base {
                "fmuladd" | "fma" => RedOp::FMulAdd,
                "minnum" => RedOp::MinNum,
                "maxnum" => RedOp::MaxNum,
                _ => return Err(format!("reduction with @{name} is not supported")),
            }
        }
        other => return Err(format!("reduction with {other:?} is not supported")),
    };
    match (phi.as_basic_value(), op.is_float()) {
        (BasicValueEnum::IntValue(_), false) => Ok(op),
        (BasicValueEnum::FloatValue(f), true) => {
            let t = f.get_type();
            let cx = t.get_context();
            if t != cx.f64_type() && t != cx.f32_type() {
                return Err("reduction of a floating-point type other than float or double".into());
            }
            if opts.fp_reassoc {
                Ok(op)
            } else {
                Err(FP_REFUSED.into())
            }
        }
        _ => Err("reduction of a vector or pointer value".into()),
    }
}

/// Checks that loop `l` of `fa` can be outlined and collects what outlining
/// needs; floating-point reductions are refused (bit-exact results).
pub fn plan_loop<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    l: LoopId,
) -> std::result::Result<LoopPlan<'ctx>, String> {
    plan_loop_with(fa, l, PlanOptions::default())
}

/// [`plan_loop`] with options (floating-point reductions on opt-in).
pub fn plan_loop_with<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    l: LoopId,
    opts: PlanOptions,
) -> std::result::Result<LoopPlan<'ctx>, String> {
    let lp = fa.forest.get(l);
    if !lp.canonical {
        return Err(format!(
            "loop not in canonical form: {}",
            lp.remarks.join("; ")
        ));
    }
    let pre = lp.preheader.ok_or("no preheader")?;
    let latch = lp.latch().ok_or("more than one latch")?;
    if lp.exiting.len() != 1 || lp.exits.len() != 1 {
        return Err(format!(
            "{} exiting block(s) and {} exit block(s) (break or return inside the loop); one of each is needed",
            lp.exiting.len(),
            lp.exits.len()
        ));
    }
    let ivs = fa.loop_ivs(l);
    let exit_cond = ivs.exit.as_ref().ok_or_else(|| {
        format!(
            "exit test not understood{}",
            if ivs.remarks.is_empty() {
                String::new()
            } else {
                format!(": {}", ivs.remarks.join("; "))
            }
        )
    })?;
    let tc = ivs
        .trip_count
        .as_ref()
        .ok_or("trip count not computable at loop entry")?;
    if exit_cond.exiting != lp.exiting[0] {
        return Err("the exit test is not in the exiting block".into());
    }
    if exit_cond.exiting != lp.header && exit_cond.exiting != latch {
        return Err("the exit test is in the middle of the body".into());
    }
    if tc.step <= 0 {
        return Err("non-positive trip-count divisor".into());
    }
    let blocks: Vec<BasicBlock<'ctx>> = fa
        .function
        .get_basic_blocks()
        .into_iter()
        .filter(|b| fa.cfg.id(*b).map(|id| lp.contains(id)).unwrap_or(false))
        .collect();
    let block_set: HashSet<usize> = blocks.iter().map(|b| util::bkey(*b)).collect();
    let mut in_loop = HashSet::new();
    for b in &blocks {
        for i in util::instructions(*b) {
            in_loop.insert(util::key(&i));
        }
    }
    let header = fa.cfg.block(lp.header);
    let deps = &fa.deps[l.index()];

    // Header phis: IVs or supported reductions.
    let mut iv_plans = Vec::new();
    let mut reds = Vec::new();
    for i in util::instructions(header) {
        if i.get_opcode() != InstructionOpcode::Phi {
            break;
        }
        let k = util::key(&i);
        if let Some(iv) = ivs.ivs.iter().find(|v| util::key(&v.phi) == k) {
            iv_plans.push(IvPlan {
                phi: iv.phi,
                start: iv.start_value,
                step: iv.step,
                next: iv.next,
            });
            continue;
        }
        if let Some(r) = deps.reductions.iter().find(|r| util::key(&r.phi) == k) {
            let op =
                red_op(r.update, r.phi, opts).map_err(|e| format!("reduction {}: {e}", r.name))?;
            let pre_bb = fa.cfg.block(pre);
            let init = (0..r.phi.count_incoming())
                .filter_map(|j| r.phi.get_incoming(j))
                .find(|(_, b)| *b == pre_bb)
                .map(|(v, _)| v)
                .ok_or("reduction phi without a value from the preheader")?;
            reds.push(RedPlan {
                phi: r.phi,
                update: r.update,
                op,
                init,
            });
            continue;
        }
        let name = i
            .get_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Err(format!(
            "loop-carried scalar %{name} is neither an induction variable nor a supported reduction"
        ));
    }
    if iv_plans.is_empty() {
        return Err("no induction variable".into());
    }

    // Instructions the executor cannot move into another function.
    let mut live_ins: Vec<BasicValueEnum<'ctx>> = Vec::new();
    let mut seen = HashSet::new();
    for b in &blocks {
        for i in util::instructions(*b) {
            match i.get_opcode() {
                InstructionOpcode::Call => {
                    let n = util::callee_name(i).unwrap_or_else(|| "<indirect>".into());
                    if !util::is_pure_intrinsic(&n) && !weft_frontend::pure_calls::is_pure_call(i) {
                        return Err(format!("calls @{n}, whose effects are unknown"));
                    }
                }
                InstructionOpcode::Invoke
                | InstructionOpcode::CallBr
                | InstructionOpcode::IndirectBr
                | InstructionOpcode::LandingPad
                | InstructionOpcode::Resume
                | InstructionOpcode::Return
                | InstructionOpcode::Unreachable => {
                    return Err(format!("contains {:?}", i.get_opcode()));
                }
                InstructionOpcode::Alloca => {
                    return Err("allocates stack memory in the loop".into())
                }
                _ => {}
            }
            let ops: Vec<BasicValueEnum<'ctx>> = if i.get_opcode() == InstructionOpcode::Phi {
                let phi = PhiValue::try_from(i).map_err(|_| "malformed phi")?;
                (0..phi.count_incoming())
                    .filter_map(|j| phi.get_incoming(j))
                    // Header phis' entry values travel separately (IV start, reduction init).
                    .filter(|(_, bb)| util::bkey(*bb) != util::bkey(fa.cfg.block(pre)))
                    .map(|(v, _)| v)
                    .collect()
            } else {
                util::value_operands(i)
            };
            for v in ops {
                let is_local = match util::as_instruction(v) {
                    Some(d) => !in_loop.contains(&util::key(&d)),
                    None => weft_frontend::ir::is_argument(v),
                };
                if is_local && seen.insert(util::key(&v)) {
                    live_ins.push(v);
                }
            }
        }
    }
    // IV starts are needed in the body too.
    for iv in &iv_plans {
        let v = iv.start;
        let local = util::as_instruction(v).is_some() || weft_frontend::ir::is_argument(v);
        if local && seen.insert(util::key(&v)) {
            live_ins.push(v);
        }
    }

    // Live-outs.
    let mut live_outs = Vec::new();
    let mut last_values = Vec::new();
    for b in &blocks {
        for i in util::instructions(*b) {
            let outside = util::unique_users(&i).into_iter().any(|u| {
                u.get_parent()
                    .map(|p| !block_set.contains(&util::bkey(p)))
                    .unwrap_or(false)
            });
            if !outside {
                continue;
            }
            let k = util::key(&i);
            let lo = if let Some(j) = iv_plans.iter().position(|v| util::key(&v.phi) == k) {
                LiveOut::IvPhi(j)
            } else if let Some(j) = iv_plans.iter().position(|v| util::key(&v.next) == k) {
                LiveOut::IvNext(j)
            } else if let Some(j) = reds.iter().position(|r| util::key(&r.update) == k) {
                if !exit_cond.after_body {
                    return Err("reduction update used after a top-tested loop".into());
                }
                LiveOut::RedUpdate(j)
            } else if let Some(j) = reds.iter().position(|r| util::key(&r.phi) == k) {
                if exit_cond.after_body {
                    return Err(
                        "the reduction's value before the last iteration is used after the loop"
                            .into(),
                    );
                }
                LiveOut::RedPhi(j)
            } else if opts.last_values
                && exit_cond.after_body
                && i.get_parent()
                    .and_then(|p| fa.cfg.id(p))
                    .is_some_and(|bid| fa.cfg.dominates(bid, latch))
            {
                // Computed in every iteration (its block dominates the latch
                // of a bottom-tested loop): the last iteration's value.
                last_values.push(i);
                LiveOut::Last(last_values.len() - 1)
            } else {
                let name = i
                    .get_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                return Err(format!(
                    "value %{name} computed in the loop is used after it{}",
                    if opts.last_values {
                        " (not computed in every iteration)"
                    } else {
                        ""
                    }
                ));
            };
            live_outs.push((i, lo));
        }
    }

    // Trip count terms as IR values available in the preheader.
    let mut trip_terms = Vec::new();
    for (syms, coeff) in tc.numerator.terms() {
        let mut vals = Vec::new();
        for s in syms {
            let v = match s {
                Sym::Iv(other) => {
                    if *other == l {
                        return Err("trip count depends on the loop's own IV".into());
                    }
                    fa.loop_ivs(*other)
                        .primary_iv()
                        .map(|iv| iv.phi.as_basic_value())
                        .ok_or("trip count depends on an outer loop without IV")?
                }
                Sym::Param(id) => fa.symbols.get(*id).value,
            };
            if let Some(d) = util::as_instruction(v) {
                if in_loop.contains(&util::key(&d)) {
                    return Err("trip count depends on a value computed in the loop".into());
                }
            }
            match v {
                BasicValueEnum::IntValue(_) | BasicValueEnum::PointerValue(_) => {}
                _ => return Err("trip count over a non-integer value".into()),
            }
            vals.push(v);
        }
        trip_terms.push((coeff, vals));
    }

    Ok(LoopPlan {
        function: fa.function,
        function_name: fa.name.clone(),
        loop_id: l,
        label: loop_label(fa, l),
        header,
        preheader: fa.cfg.block(pre),
        latch: fa.cfg.block(latch),
        exiting: fa.cfg.block(lp.exiting[0]),
        exit: fa.cfg.block(lp.exits[0]),
        after_body: exit_cond.after_body,
        blocks,
        ivs: iv_plans,
        reductions: reds,
        private: Vec::new(),
        last_values,
        live_ins,
        live_outs,
        trip_terms,
        trip_step: tc.step,
        in_loop,
        block_set,
    })
}

/// The private copies loop `l` needs to run in parallel: none when the
/// frontend proves it parallel apart from reductions, the objects of
/// `weft_frontend::privatize` when their copies remove every memory
/// dependence, and otherwise the reasons (with privatisation's) for the remark.
pub fn privatized<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    l: LoopId,
) -> std::result::Result<Vec<PrivPlan<'ctx>>, String> {
    let d = &fa.deps[l.index()];
    if d.carried.is_empty() && d.reasons.len() == d.reductions.len() {
        return Ok(Vec::new());
    }
    let reasons = d.reasons.join("; ");
    if d.carried.is_empty() {
        return Err(reasons);
    }
    match weft_frontend::privatize::privatize(fa, l) {
        Ok(p) => p.private.iter().map(PrivPlan::new).collect(),
        Err(e) if e == weft_frontend::privatize::NO_CANDIDATE => Err(reasons),
        Err(e) => Err(format!("{reasons}; privatisation: {e}")),
    }
}
