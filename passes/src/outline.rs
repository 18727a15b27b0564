//! Executor form: outlining a counted loop into `void body(ctx*, lo, hi)`.
//!
//! This is the "executor" half of the inspector/executor transformation
//! (dissertation §4.4.4, Fig. 4.8(b)) and the form the chapter-5 passes reuse:
//! the loop's blocks are cloned into a new function that runs the normalised
//! iterations `k ∈ [lo, hi)` (iteration `k` of the original loop has primary
//! induction value `start + k*step`), live-in values travel in a context
//! struct the caller fills, and the original loop is replaced by a call the
//! pass emits (into the runtime's executor). The API has three steps so other
//! passes can plug their own executor call:
//!
//! 1. [`plan_loop`] checks the loop read-only and returns a [`LoopPlan`] or
//!    the reason it cannot be outlined (for the remark);
//! 2. [`clone_body`] builds a function from the plan ([`CloneKind::Executor`]
//!    for the body, [`CloneKind::Inspector`] for the address-slice skeleton);
//! 3. [`replace_loop`] fills the context in the preheader, materialises the
//!    trip count, lets the pass emit its call, rewrites live-outs and deletes
//!    the old loop.
//!
//! Invariants that make the result equal to the original bit for bit:
//! - the loop is in canonical form (preheader, one latch, dedicated exits), has
//!   a single exiting block (header or latch) whose test the frontend read as
//!   the primary IV's exit condition, and a trip count computable at entry;
//! - every header phi is an induction variable or an integer reduction with an
//!   associative and commutative operation (`add`, `sub`, `and`, `or`, `xor`),
//!   whose partial results are combined with one atomic operation per range:
//!   integer arithmetic wraps, so any combination order gives the same bits.
//!   Floating-point reductions would be reordered, so they are refused;
//! - values defined in the loop are used outside only if they are IVs (final
//!   value recomputed from the trip count) or reduction results;
//! - the loop calls nothing but intrinsics without memory effects (the caller
//!   pass decides which memory dependences are acceptable).

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::llvm_sys::core::{
    LLVMBasicBlockAsValue, LLVMGetNumOperands, LLVMGetOperand, LLVMGetPoison,
    LLVMReplaceAllUsesWith, LLVMSetOperand, LLVMTypeOf, LLVMValueAsBasicBlock,
    LLVMValueIsBasicBlock,
};
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum, StructType};
use inkwell::values::{
    AsValueRef, BasicValue, BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue,
    IntValue, PhiValue, PointerValue,
};
use inkwell::{AddressSpace, AtomicOrdering, AtomicRMWBinOp, IntPredicate};
use weft_frontend::{FunctionAnalysis, LoopId, Sym};

use crate::error::Result;
use crate::util::{self, ValueKey};

/// An integer reduction the executor form supports.
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
}

impl RedOp {
    fn identity(self) -> u64 {
        match self {
            RedOp::And => u64::MAX,
            _ => 0,
        }
    }

    fn atomic(self) -> AtomicRMWBinOp {
        match self {
            RedOp::Add | RedOp::Sub => AtomicRMWBinOp::Add,
            RedOp::And => AtomicRMWBinOp::And,
            RedOp::Or => AtomicRMWBinOp::Or,
            RedOp::Xor => AtomicRMWBinOp::Xor,
        }
    }
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

/// Label of a loop for remarks: `L3 (for.body)`.
pub fn loop_label(fa: &FunctionAnalysis<'_>, l: LoopId) -> String {
    let h = fa.cfg.block(fa.forest.get(l).header);
    format!("{l} ({})", h.get_name().to_string_lossy())
}

fn red_op(update: InstructionValue<'_>, phi: PhiValue<'_>) -> std::result::Result<RedOp, String> {
    let op = match update.get_opcode() {
        InstructionOpcode::Add => RedOp::Add,
        InstructionOpcode::Sub => {
            // Only `phi - x` is a reduction; `x - phi` alternates signs.
            let lhs = util::value_operand(update, 0);
            if lhs.map(|v| util::key(&v)) != Some(util::key(&phi)) {
                return Err("subtraction from the reduced value is not associative".into());
            }
            RedOp::Sub
        }
        InstructionOpcode::And => RedOp::And,
        InstructionOpcode::Or => RedOp::Or,
        InstructionOpcode::Xor => RedOp::Xor,
        InstructionOpcode::FAdd
        | InstructionOpcode::FSub
        | InstructionOpcode::FMul
        | InstructionOpcode::Call => {
            return Err(
                "floating-point reduction: parallel ranges would change the summation order (bit-exact results required)"
                    .into(),
            )
        }
        other => return Err(format!("reduction with {other:?} is not supported")),
    };
    match phi.as_basic_value() {
        BasicValueEnum::IntValue(_) => Ok(op),
        _ => Err("reduction of a non-integer value".into()),
    }
}

/// Checks that loop `l` of `fa` can be outlined and collects what outlining needs.
pub fn plan_loop<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    l: LoopId,
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
            let op = red_op(r.update, r.phi).map_err(|e| format!("reduction {}: {e}", r.name))?;
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
                    if !util::is_pure_intrinsic(&n) {
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
            } else {
                let name = i
                    .get_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                return Err(format!(
                    "value %{name} computed in the loop is used after it"
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
        live_ins,
        live_outs,
        trip_terms,
        trip_step: tc.step,
        in_loop,
        block_set,
    })
}

/// What [`clone_body`] builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CloneKind {
    /// `void body(ptr ctx, i64 lo, i64 hi)`; reductions combine into the context.
    Executor,
    /// `void inspect(ptr ctx, i64 lo, i64 hi, ptr handle)`; reductions are ignored
    /// (the caller slices the clone down to address computations).
    Inspector,
}

/// A cloned loop function.
pub struct ClonedBody<'ctx> {
    /// The new function.
    pub function: FunctionValue<'ctx>,
    /// Original instruction → its clone.
    pub map: HashMap<ValueKey, InstructionValue<'ctx>>,
    /// The normalised iteration number `k` (an `i64` phi in the cloned header).
    pub k: IntValue<'ctx>,
}

/// The context struct type of a plan: live-ins, then one slot per reduction.
pub fn context_type<'ctx>(module: &Module<'ctx>, plan: &LoopPlan<'ctx>) -> StructType<'ctx> {
    let mut fields: Vec<BasicTypeEnum<'ctx>> = plan.live_ins.iter().map(|v| v.get_type()).collect();
    for r in &plan.reductions {
        fields.push(r.phi.as_basic_value().get_type());
    }
    module.get_context().struct_type(&fields, false)
}

fn unique_name(module: &Module<'_>, base: &str) -> String {
    let mut n = 0;
    loop {
        let name = format!("{base}.{n}");
        if module.get_function(&name).is_none() {
            return name;
        }
        n += 1;
    }
}

/// Clones the loop of `plan` into a new internal function.
pub fn clone_body<'ctx>(
    module: &Module<'ctx>,
    plan: &LoopPlan<'ctx>,
    kind: CloneKind,
) -> Result<ClonedBody<'ctx>> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let ptrt = cx.ptr_type(AddressSpace::default());
    let mut params: Vec<BasicMetadataTypeEnum<'ctx>> = vec![ptrt.into(), i64t.into(), i64t.into()];
    if kind == CloneKind::Inspector {
        params.push(ptrt.into());
    }
    let fty = cx.void_type().fn_type(&params, false);
    let suffix = match kind {
        CloneKind::Executor => "weft.body",
        CloneKind::Inspector => "weft.inspect",
    };
    let name = unique_name(module, &format!("{}.{suffix}", plan.function_name));
    let f = module.add_function(&name, fty, Some(Linkage::Internal));
    let ctx_arg = f.get_nth_param(0).expect("param 0").into_pointer_value();
    let lo = f.get_nth_param(1).expect("param 1").into_int_value();
    let hi = f.get_nth_param(2).expect("param 2").into_int_value();
    ctx_arg.set_name("ctx");
    lo.set_name("lo");
    hi.set_name("hi");
    if kind == CloneKind::Inspector {
        f.get_nth_param(3).expect("param 3").set_name("insp");
    }
    let b = cx.create_builder();
    let entry = cx.append_basic_block(f, "entry");
    let mut bmap: HashMap<usize, BasicBlock<'ctx>> = HashMap::new();
    for bb in &plan.blocks {
        let nb = cx.append_basic_block(f, &bb.get_name().to_string_lossy());
        bmap.insert(util::bkey(*bb), nb);
    }
    let exit_bb = cx.append_basic_block(f, "weft.exit");
    let empty_bb = cx.append_basic_block(f, "weft.empty");
    let nheader = bmap[&util::bkey(plan.header)];
    let nlatch = bmap[&util::bkey(plan.latch)];

    // Entry: load live-ins, guard the empty range.
    let sty = context_type(module, plan);
    let mut vmap: HashMap<ValueKey, BasicValueEnum<'ctx>> = HashMap::new();
    b.position_at_end(entry);
    for (j, v) in plan.live_ins.iter().enumerate() {
        let p = b.build_struct_gep(sty, ctx_arg, j as u32, "")?;
        let x = b.build_load(
            v.get_type(),
            p,
            &format!("{}.in", v.get_name().to_string_lossy()),
        )?;
        vmap.insert(util::key(v), x);
    }
    let nonempty = b.build_int_compare(IntPredicate::SLT, lo, hi, "weft.nonempty")?;
    b.build_conditional_branch(nonempty, nheader, empty_bb)?;
    b.position_at_end(empty_bb);
    b.build_return(None)?;

    // k phi first in the new header.
    b.position_at_end(nheader);
    let kphi = b.build_phi(i64t, "weft.k")?;
    let k = kphi.as_basic_value().into_int_value();

    // Clone instructions; phis are rebuilt, IV phis replaced after.
    let mut imap: HashMap<ValueKey, InstructionValue<'ctx>> = HashMap::new();
    let mut new_phis: Vec<(PhiValue<'ctx>, PhiValue<'ctx>)> = Vec::new();
    let mut red_phis: Vec<(usize, PhiValue<'ctx>)> = Vec::new();
    let mut clones: Vec<InstructionValue<'ctx>> = Vec::new();
    for bb in &plan.blocks {
        let nb = bmap[&util::bkey(*bb)];
        b.position_at_end(nb);
        for i in util::instructions(*bb) {
            let name = i
                .get_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if i.get_opcode() == InstructionOpcode::Phi {
                let phi = PhiValue::try_from(i).map_err(|_| util_err("malformed phi"))?;
                if *bb == plan.header && plan.ivs.iter().any(|v| v.phi == phi) {
                    continue;
                }
                let np = b.build_phi(phi.as_basic_value().get_type(), &name)?;
                imap.insert(util::key(&i), np.as_instruction());
                vmap.insert(util::key(&i), np.as_basic_value());
                if let Some(j) = plan.reductions.iter().position(|r| r.phi == phi) {
                    red_phis.push((j, np));
                } else {
                    new_phis.push((phi, np));
                }
                continue;
            }
            if i.get_opcode() == InstructionOpcode::Call
                && util::callee_name(i).is_some_and(|n| n.starts_with("llvm.dbg."))
            {
                continue;
            }
            let c = i.explicit_clone();
            b.insert_instruction(&c, None);
            if !name.is_empty() {
                let _ = c.set_name(&name);
            }
            imap.insert(util::key(&i), c);
            if let Some(v) = util::basic_value(c.as_value_ref()) {
                vmap.insert(util::key(&i), v);
            }
            clones.push(c);
        }
    }

    // IV values: start + k*step, after the header's phis.
    let first_non_phi = util::instructions(nheader)
        .into_iter()
        .find(|i| i.get_opcode() != InstructionOpcode::Phi);
    match first_non_phi {
        Some(i) => b.position_before(&i),
        None => b.position_at_end(nheader),
    }
    for iv in &plan.ivs {
        let start = map_value(&vmap, iv.start);
        let val: BasicValueEnum<'ctx> = match start {
            BasicValueEnum::IntValue(s) => {
                let t = s.get_type();
                let kt = if t.get_bit_width() == 64 {
                    k
                } else if t.get_bit_width() < 64 {
                    b.build_int_truncate(k, t, "")?
                } else {
                    b.build_int_s_extend(k, t, "")?
                };
                let off = b.build_int_mul(kt, t.const_int(iv.step as u64, true), "")?;
                b.build_int_add(s, off, &iv.phi.get_name().to_string_lossy())?
                    .as_basic_value_enum()
            }
            BasicValueEnum::PointerValue(p) => {
                let off = b.build_int_mul(k, i64t.const_int(iv.step as u64, true), "")?;
                // SAFETY: byte GEP from the loop's own start pointer, as the original IV.
                unsafe {
                    b.build_gep(
                        cx.i8_type(),
                        p,
                        &[off],
                        &iv.phi.get_name().to_string_lossy(),
                    )?
                }
                .as_basic_value_enum()
            }
            _ => return Err(util_err("induction variable of unsupported type")),
        };
        vmap.insert(util::key(&iv.phi), val);
    }

    // Remap operands of cloned instructions.
    for c in &clones {
        remap_operands(*c, &vmap, &bmap);
    }
    for (old, np) in &new_phis {
        for j in 0..old.count_incoming() {
            let (v, bb) = old
                .get_incoming(j)
                .ok_or_else(|| util_err("phi incoming"))?;
            let nb = *bmap
                .get(&util::bkey(bb))
                .ok_or_else(|| util_err("phi incoming from outside the loop"))?;
            let nv = map_value(&vmap, v);
            np.add_incoming(&[(&nv as &dyn BasicValue<'ctx>, nb)]);
        }
    }

    // Back edge counter and the new exit test.
    let term = plan
        .latch
        .get_terminator()
        .ok_or_else(|| util_err("latch without terminator"))?;
    let nlatch_term = imap[&util::key(&term)];
    b.position_before(&nlatch_term);
    let knext = b.build_int_add(k, i64t.const_int(1, false), "weft.k.next")?;
    kphi.add_incoming(&[(&lo, entry), (&knext, nlatch)]);
    let eterm = plan
        .exiting
        .get_terminator()
        .ok_or_else(|| util_err("exiting block without terminator"))?;
    let neterm = imap[&util::key(&eterm)];
    let (_, t, fsucc) = util::cond_branch(eterm)
        .ok_or_else(|| util_err("exit test is not a conditional branch"))?;
    let inside = if plan.contains_block(t) { t } else { fsucc };
    let ninside = bmap[&util::bkey(inside)];
    b.position_before(&neterm);
    let cont = if plan.after_body {
        b.build_int_compare(IntPredicate::SLT, knext, hi, "weft.cont")?
    } else {
        b.build_int_compare(IntPredicate::SLT, k, hi, "weft.cont")?
    };
    b.build_conditional_branch(cont, ninside, exit_bb)?;
    neterm.erase_from_basic_block();

    // Reductions: local partial from the identity, combined atomically at exit.
    b.position_at_end(exit_bb);
    for (j, np) in &red_phis {
        let r = &plan.reductions[*j];
        let it = r.phi.as_basic_value().into_int_value().get_type();
        let upd = map_value(&vmap, r.update.as_value_ref_basic()?);
        np.add_incoming(&[
            (&it.const_int(r.op.identity(), false), entry),
            (&upd, nlatch),
        ]);
        if kind == CloneKind::Executor {
            let partial = if plan.after_body {
                upd
            } else {
                np.as_basic_value()
            };
            let slot = b.build_struct_gep(sty, ctx_arg, (plan.live_ins.len() + j) as u32, "")?;
            b.build_atomicrmw(
                r.op.atomic(),
                slot,
                partial.into_int_value(),
                AtomicOrdering::Monotonic,
            )?;
        }
    }
    b.build_return(None)?;

    Ok(ClonedBody {
        function: f,
        map: imap,
        k,
    })
}

fn util_err(m: &str) -> crate::error::PassError {
    crate::error::PassError::Llvm(format!("outlining: {m}"))
}

/// Makes load or store `i` a relaxed (`monotonic`) atomic access of
/// alignment `align`: the form of the per-module flags and per-site globals
/// that generated code shares between threads.
pub fn relaxed(i: Option<InstructionValue<'_>>, align: u32) -> Result<()> {
    let i = i.ok_or_else(|| util_err("atomic access is not an instruction"))?;
    i.set_atomic_ordering(AtomicOrdering::Monotonic)
        .and_then(|_| i.set_alignment(align))
        .map_err(|e| util_err(&format!("atomic access: {e}")))
}

trait AsBasic<'ctx> {
    fn as_value_ref_basic(&self) -> Result<BasicValueEnum<'ctx>>;
}

impl<'ctx> AsBasic<'ctx> for InstructionValue<'ctx> {
    fn as_value_ref_basic(&self) -> Result<BasicValueEnum<'ctx>> {
        util::basic_value(self.as_value_ref()).ok_or_else(|| util_err("void reduction update"))
    }
}

fn map_value<'ctx>(
    vmap: &HashMap<ValueKey, BasicValueEnum<'ctx>>,
    v: BasicValueEnum<'ctx>,
) -> BasicValueEnum<'ctx> {
    vmap.get(&util::key(&v)).copied().unwrap_or(v)
}

fn remap_operands<'ctx>(
    c: InstructionValue<'ctx>,
    vmap: &HashMap<ValueKey, BasicValueEnum<'ctx>>,
    bmap: &HashMap<usize, BasicBlock<'ctx>>,
) {
    // SAFETY: `c` is a live instruction; replacements have the operand's type
    // (value clones) or are blocks (branch targets).
    unsafe {
        let r = c.as_value_ref();
        let n = LLVMGetNumOperands(r).max(0) as u32;
        for j in 0..n {
            let op = LLVMGetOperand(r, j);
            if op.is_null() {
                continue;
            }
            if LLVMValueIsBasicBlock(op) != 0 {
                let bb = LLVMValueAsBasicBlock(op);
                if let Some(nb) = bmap.get(&(bb as usize)) {
                    LLVMSetOperand(r, j, LLVMBasicBlockAsValue(nb.as_mut_ptr()));
                }
                continue;
            }
            if let Some(nv) = vmap.get(&ValueKey(op as usize)) {
                LLVMSetOperand(r, j, nv.as_value_ref());
            }
        }
    }
}

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
fn grain_hint_global<'ctx>(module: &Module<'ctx>) -> inkwell::values::GlobalValue<'ctx> {
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

/// Deletes blocks that are no longer reachable (uses among them are dropped first).
pub fn delete_blocks(blocks: &[BasicBlock<'_>]) {
    // SAFETY: the blocks are unreachable; values they define are only used
    // inside them, so replacing those uses with poison and erasing is sound.
    unsafe {
        for bb in blocks {
            for i in util::instructions(*bb) {
                let r = i.as_value_ref();
                if util::basic_value(r).is_some() {
                    LLVMReplaceAllUsesWith(r, LLVMGetPoison(LLVMTypeOf(r)));
                }
            }
        }
        for bb in blocks {
            for i in util::instructions(*bb).into_iter().rev() {
                i.erase_from_basic_block();
            }
        }
        for bb in blocks {
            let _ = bb.delete();
        }
    }
}

/// The normalised-iteration type used by every executor call.
pub fn iter_type<'ctx>(module: &Module<'ctx>) -> inkwell::types::IntType<'ctx> {
    module.get_context().i64_type()
}

/// The address of a function as a pointer value (for passing bodies to the runtime).
pub fn fn_ptr<'ctx>(f: FunctionValue<'ctx>) -> PointerValue<'ctx> {
    f.as_global_value().as_pointer_value()
}

/// `if (cond) { then }` at the builder's position (which must be right
/// before its block's terminator); the builder ends before that terminator
/// in the continuation block.
pub fn emit_if<'ctx>(
    module: &Module<'ctx>,
    b: &Builder<'ctx>,
    cond: IntValue<'ctx>,
    name: &str,
    then: impl FnOnce(&Builder<'ctx>) -> Result<()>,
) -> Result<()> {
    let cx = module.get_context();
    let cur = b
        .get_insert_block()
        .ok_or_else(|| crate::error::PassError::Llvm("builder not positioned".into()))?;
    let term = cur
        .get_terminator()
        .ok_or_else(|| crate::error::PassError::Llvm("block without terminator".into()))?;
    let then_bb = cx.insert_basic_block_after(cur, name);
    let cont = cx.insert_basic_block_after(then_bb, &format!("{name}.cont"));
    term.remove_from_basic_block();
    b.position_at_end(cur);
    b.build_conditional_branch(cond, then_bb, cont)?;
    b.position_at_end(then_bb);
    then(b)?;
    b.build_unconditional_branch(cont)?;
    b.position_at_end(cont);
    b.insert_instruction(&term, None);
    b.position_before(&term);
    Ok(())
}

/// An `alloca` in the entry block of the function holding `b`'s insertion
/// point (so loops around the insertion point do not grow the stack).
pub fn entry_alloca<'ctx>(
    module: &Module<'ctx>,
    b: &Builder<'ctx>,
    ty: inkwell::types::BasicTypeEnum<'ctx>,
    name: &str,
) -> Result<PointerValue<'ctx>> {
    let f = b
        .get_insert_block()
        .and_then(|bb| bb.get_parent())
        .ok_or_else(|| util_err("builder not positioned in a function"))?;
    let entry = f
        .get_first_basic_block()
        .ok_or_else(|| util_err("function without entry block"))?;
    let eb = module.get_context().create_builder();
    match entry.get_first_instruction() {
        Some(i) => eb.position_before(&i),
        None => eb.position_at_end(entry),
    }
    Ok(eb.build_alloca(ty, name)?)
}
