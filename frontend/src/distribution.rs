//! Loop distribution legality: where a loop `L` that is not parallel can be
//! split into two loops over the same iteration space, one of which is
//! parallel (issue 35; the "loop distribution" of Allen & Kennedy,
//! *Optimizing Compilers for Modern Architectures* §2.4 and ch. 6 (cited as
//! the seeds' dependence-analysis reference), as LLVM's `LoopDistribute`
//! does it for innermost loops).
//!
//! The body of `L` is cut at a block `C` of `L`'s own depth into a first part
//! (the header up to `C`) and a second part (`C` up to the latch):
//!
//! ```text
//! for i { P1(i); P2(i) }   ==>   for i { P1(i) }  for i { P2(i) }
//! ```
//!
//! The order of `P1(i)` and `P2(j)` changes only for `j < i` (originally
//! `P2(j)` ran first, now `P1(i)` does), so the split is legal when no access
//! of the second part in an iteration conflicts with an access of the first
//! part in a later iteration, one of them a store
//! ([`crate::deps::pair_independent`]: the same tests as the parallel
//! verdict, with that direction; bases that may alias count as a dependence).
//! Dependences from the first part to the second (in the same or a later
//! iteration) are kept: `P1(i)` still runs before every `P2(j)`, `j >= i`.
//!
//! The shape required (what clang's `-O1` rotated loops look like; anything
//! else is refused with a reason):
//! * one latch `T`, which is also the only exiting block, and a preheader;
//! * every header phi is an induction variable whose next value `T` computes;
//!   `T` holds only side-effect-free integer and address arithmetic on those
//!   phis and loop invariants, and its branch;
//! * `C` is a block of `L`'s own depth or the header of a loop inside `L`
//!   (clang lets an inner loop exit straight into the next one);
//! * edges leave the first part only to the first part or to `C` (one edge
//!   only if `C` has phis: they take that edge's value in the second loop's
//!   header),
//!   and the second part only to the second part or to `T`;
//! * a value the first part defines and the second part uses is rebuilt in
//!   the second loop's header: it must be side-effect-free arithmetic
//!   (address computations such as `&tmp[i]`), not a load or a phi;
//! * no value of `L` is used after `L`, and no call may access memory.
//!
//! A split is proposed only when `L` is not parallel (not even under run-time
//! alias checks), no loop around `L` is, and one of the two parts would be
//! parallel at `L`'s level: its own pairs of accesses carry no dependence.

use inkwell::values::InstructionOpcode as Op;
use inkwell::values::{InstructionValue, PhiValue};

use crate::access::{Access, AccessKind};
use crate::analysis::FunctionAnalysis;
use crate::cfg::BlockId;
use crate::deps::pair_independent;
use crate::ir::{self, ValueKey};
use crate::loops::LoopId;
use crate::pure_calls::is_pure_call;

/// A legal, useful split of one loop.
#[derive(Debug, Clone)]
pub struct Split<'ctx> {
    /// The loop.
    pub loop_id: LoopId,
    /// The header.
    pub header: BlockId,
    /// The latch (and only exiting block).
    pub latch: BlockId,
    /// The first block of the second part.
    pub cut: BlockId,
    /// Blocks of the second part (`cut` first), without the latch.
    pub second: Vec<BlockId>,
    /// Instructions of the first part the second part uses, defs before uses.
    pub remat: Vec<InstructionValue<'ctx>>,
    /// The header phis (induction variables), in order.
    pub phis: Vec<PhiValue<'ctx>>,
    /// Whether the loop holding each part is parallel.
    pub parallel: [bool; 2],
}

/// Opcodes that may be rebuilt or may sit in the latch.
fn pure_op(op: Op) -> bool {
    matches!(
        op,
        Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Shl
            | Op::LShr
            | Op::AShr
            | Op::And
            | Op::Or
            | Op::Xor
            | Op::ICmp
            | Op::GetElementPtr
            | Op::Trunc
            | Op::ZExt
            | Op::SExt
            | Op::Select
            | Op::PtrToInt
            | Op::IntToPtr
    )
}

/// The split of loop `l`, or why there is none.
pub fn split<'ctx>(fa: &FunctionAnalysis<'ctx>, l: LoopId) -> Result<Split<'ctx>, String> {
    let lp = fa.forest.get(l);
    let d = &fa.deps[l.index()];
    if d.parallel || d.parallel_if_checked() {
        return Err("already parallel".into());
    }
    if fa
        .forest
        .ancestors(l)
        .iter()
        .any(|&m| m != l && fa.deps[m.index()].parallel_if_checked())
    {
        return Err("an enclosing loop is parallel".into());
    }
    let latch = lp.latch().ok_or("more than one latch")?;
    if lp.preheader.is_none() || lp.exiting != [latch] || lp.exits.len() != 1 {
        return Err("not a loop with a preheader and a single exit at its latch".into());
    }
    if fa.ivs[l.index()].trip_count.is_none() {
        return Err("trip count unknown".into());
    }
    let cfg = &fa.cfg;
    let block_of = |i: InstructionValue<'ctx>| i.get_parent().and_then(|b| cfg.id(b));
    let in_loop = |i: InstructionValue<'ctx>| block_of(i).is_some_and(|b| lp.contains(b));
    // Header phis: induction variables stepped in the latch.
    let mut phis = Vec::new();
    for i in instructions(cfg.block(lp.header)) {
        if i.get_opcode() != Op::Phi {
            break;
        }
        let phi = PhiValue::try_from(i).map_err(|_| "malformed phi")?;
        let iv = fa.ivs[l.index()]
            .ivs
            .iter()
            .any(|v| ValueKey::of(&v.phi) == ValueKey::of(&i));
        let next = (0..phi.count_incoming())
            .filter_map(|k| phi.get_incoming(k))
            .find(|(_, b)| cfg.id(*b) == Some(latch))
            .and_then(|(v, _)| ir::as_instruction(v));
        if !iv || next.is_some_and(|n| block_of(n) != Some(latch)) {
            return Err("a header phi is not an induction variable stepped in the latch".into());
        }
        phis.push(phi);
    }
    let is_phi = |v: InstructionValue<'ctx>| phis.iter().any(|p| p.as_instruction() == v);
    // The latch: arithmetic on the phis, itself and invariants, then its branch.
    let insts = instructions(cfg.block(latch));
    for &i in &insts[..insts.len().saturating_sub(1)] {
        if !pure_op(i.get_opcode()) {
            return Err(format!("latch holds {:?}", i.get_opcode()));
        }
        for v in ir::value_operands(i) {
            if let Some(o) = ir::as_instruction(v) {
                if in_loop(o) && !is_phi(o) && block_of(o) != Some(latch) {
                    return Err("the latch uses a value of the body".into());
                }
            }
        }
    }
    // Nothing of the loop is used after it; no call touches memory.
    for &b in &lp.blocks {
        for i in instructions(cfg.block(b)) {
            if ir::users(&i).into_iter().any(|u| !in_loop(u)) {
                return Err("a value of the loop is used after it".into());
            }
            match i.get_opcode() {
                Op::Call if !is_pure_call(i) => {
                    return Err("a call may access memory".into());
                }
                Op::Invoke | Op::AtomicRMW | Op::AtomicCmpXchg | Op::Fence | Op::VAArg => {
                    return Err(format!("{:?} in the loop", i.get_opcode()));
                }
                _ => {}
            }
        }
    }
    let exit = cfg.block(lp.exits[0]);
    if exit.get_first_instruction().map(|i| i.get_opcode()) == Some(Op::Phi) {
        return Err("the exit block has a phi".into());
    }
    let inside: Vec<&Access<'ctx>> = fa
        .accesses
        .iter()
        .filter(|a| lp.contains(a.block))
        .collect();
    let mut why = String::from("no block splits the body");
    for &c in &lp.blocks {
        let child_header = lp.children.iter().any(|&m| fa.forest.get(m).header == c);
        if c == lp.header
            || c == latch
            || (fa.forest.innermost[c.index()] != Some(l) && !child_header)
        {
            continue;
        }
        if !cfg.dominates(c, latch) {
            continue;
        }
        match try_cut(fa, l, c, latch, &phis, &inside) {
            Ok(s) => return Ok(s),
            Err(e) => why = format!("at {}: {e}", cfg.name(c)),
        }
    }
    Err(why)
}

fn try_cut<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    l: LoopId,
    c: BlockId,
    latch: BlockId,
    phis: &[PhiValue<'ctx>],
    inside: &[&Access<'ctx>],
) -> Result<Split<'ctx>, String> {
    let cfg = &fa.cfg;
    let lp = fa.forest.get(l);
    let second: Vec<BlockId> = std::iter::once(c)
        .chain(
            lp.blocks
                .iter()
                .copied()
                .filter(|&b| b != c && b != latch && cfg.dominates(c, b)),
        )
        .collect();
    let in_second = |b: BlockId| second.contains(&b);
    for &b in &lp.blocks {
        if b == latch {
            continue;
        }
        for s in cfg.succs(b) {
            let ok = if in_second(b) {
                in_second(s) || s == latch
            } else {
                s == c || (!in_second(s) && s != latch && lp.contains(s))
            };
            if !ok {
                return Err("the cut is not a single entry and exit of the body".into());
            }
        }
    }
    // With phis, one edge enters the second part: they take its value.
    let cb = cfg.block(c);
    if cb.get_first_instruction().map(|i| i.get_opcode()) == Some(Op::Phi)
        && cfg.preds(c).iter().filter(|&&p| !in_second(p)).count() != 1
    {
        return Err("more than one edge enters a cut block with phis".into());
    }
    // Values of the first part used by the second: rebuilt, defs first.
    let block_of = |i: InstructionValue<'ctx>| i.get_parent().and_then(|b| cfg.id(b));
    let first_part = |i: InstructionValue<'ctx>| {
        block_of(i).is_some_and(|b| lp.contains(b) && !in_second(b) && b != latch)
    };
    let mut remat: Vec<InstructionValue<'ctx>> = Vec::new();
    fn visit<'ctx>(
        i: InstructionValue<'ctx>,
        phis: &[PhiValue<'ctx>],
        first_part: &dyn Fn(InstructionValue<'ctx>) -> bool,
        out: &mut Vec<InstructionValue<'ctx>>,
    ) -> Result<(), String> {
        if out.contains(&i) || phis.iter().any(|p| p.as_instruction() == i) {
            return Ok(());
        }
        if !pure_op(i.get_opcode()) {
            let name = i
                .get_name()
                .map(|n| n.to_string_lossy().into_owned())
                .filter(|n| !n.is_empty())
                .map(|n| format!("%{n}"))
                .unwrap_or_else(|| "a value".into());
            return Err(format!(
                "the second part uses {name} of the first ({:?}, not rebuildable)",
                i.get_opcode()
            ));
        }
        for v in ir::value_operands(i) {
            if let Some(o) = ir::as_instruction(v) {
                if first_part(o) {
                    visit(o, phis, first_part, out)?;
                }
            }
        }
        out.push(i);
        Ok(())
    }
    for &b in &second {
        for i in instructions(cfg.block(b)) {
            for v in ir::value_operands(i) {
                if let Some(o) = ir::as_instruction(v) {
                    if first_part(o) {
                        visit(o, phis, &first_part, &mut remat)?;
                    }
                }
            }
        }
    }
    // Dependences: across the parts (legality), within each (usefulness).
    let (p2, p1): (Vec<&Access<'ctx>>, Vec<&Access<'ctx>>) =
        inside.iter().partition(|a| in_second(a.block));
    let stores = |part: &[&Access<'ctx>]| part.iter().any(|a| a.kind == AccessKind::Store);
    if !stores(&p1) || !stores(&p2) {
        return Err("a part would store nothing".into());
    }
    let test = |a: &Access<'ctx>, b: &Access<'ctx>| {
        pair_independent(&fa.forest, &fa.symbols, &fa.ivs, l, a, b)
    };
    for a in &p2 {
        for b in &p1 {
            test(a, b).map_err(|r| format!("dependence between the parts: {r}"))?;
        }
    }
    let parallel = |part: &[&Access<'ctx>]| {
        part.iter().all(|a| {
            part.iter().all(|b| {
                (a.kind != AccessKind::Store && b.kind != AccessKind::Store) || test(a, b).is_ok()
            })
        })
    };
    let par = [parallel(&p1), parallel(&p2)];
    if !par[0] && !par[1] {
        return Err("neither part would be parallel".into());
    }
    Ok(Split {
        loop_id: l,
        header: lp.header,
        latch,
        cut: c,
        second,
        remat,
        phis: phis.to_vec(),
        parallel: par,
    })
}

fn instructions(b: inkwell::basic_block::BasicBlock<'_>) -> Vec<InstructionValue<'_>> {
    let mut v = Vec::new();
    let mut i = b.get_first_instruction();
    while let Some(x) = i {
        v.push(x);
        i = x.get_next_instruction();
    }
    v
}
