//! Report-site analysis of the address slice (the cost side of §4.4.1's
//! inspector): which reports can be merged before they are emitted. An inner
//! counted loop's streaming loads become one byte range before the loop
//! (`inner_streams`; CSR rows bounded by the parallel loop's own row
//! pointers, `csr_rows`), its gathered reads one `weft_inspect_gather` call
//! (`inner_gathers`), and neighbouring constant-offset accesses of one base
//! one report (`coalesced_runs`). Pure analysis over the clone: it builds
//! only the address and count of a range, in the loop's preheader.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, BasicValueEnum, InstructionOpcode, InstructionValue, IntValue};
use inkwell::IntPredicate;

use crate::error::{PassError, Result};
use crate::util;

/// Positions `b` at the end of `pre` (before its branch into a counted loop
/// from `S` to `E`, `(S, E, elem)` in `span`) and builds the address of
/// element `S` of `array` (`elem` bytes each) and the trip count `E - S`,
/// with the value names `(byte offset, address, count)` of `names`.
pub(super) fn before_counted_loop<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    pre: BasicBlock<'ctx>,
    array: BasicValueEnum<'ctx>,
    (start, end, elem): (IntValue<'ctx>, IntValue<'ctx>, u64),
    (off_name, at_name, n_name): (&str, &str, &str),
) -> Result<(inkwell::values::PointerValue<'ctx>, IntValue<'ctx>)> {
    let term = pre
        .get_terminator()
        .ok_or_else(|| PassError::Internal("preheader without terminator".into()))?;
    b.position_before(&term);
    let cx = pre.get_context();
    let off = b.build_int_mul(start, cx.i64_type().const_int(elem, false), off_name)?;
    // SAFETY: the loop's first element; a byte offset from the array.
    let at = unsafe { b.build_gep(cx.i8_type(), array.into_pointer_value(), &[off], at_name)? };
    let n = b.build_int_sub(end, start, n_name)?;
    Ok((at, n))
}

/// An unchecked load that walks an array element by element in an inner
/// counted loop ([`inner_streams`]): the loop's iterations read the
/// contiguous bytes `[base + start * stride, base + end * stride)`.
pub(super) struct Stream<'ctx> {
    /// The loop's preheader: its only entry, a block that only branches to it.
    pub(super) pre: BasicBlock<'ctx>,
    pub(super) base: BasicValueEnum<'ctx>,
    pub(super) start: IntValue<'ctx>,
    pub(super) end: IntValue<'ctx>,
    /// Bytes per element (= the load's size).
    pub(super) stride: u64,
    /// The loop runs over a CSR row ([`csr_rows`]).
    pub(super) rows: Option<Rows<'ctx>>,
}

/// The rows of a CSR loop: iteration `k`'s inner loop runs from `P[x]` to
/// `P[x + 1]`, with `x` = `k` plus a value that does not change with `k`
/// ([`csr_rows`]). So iterations `k` to `e - 1` together run their inner
/// loops over `[P[x], P[x + e - k])`, when `P` does not decrease (a CSR row
/// pointer), and their streams are one range of the streamed array.
pub(super) struct Rows<'ctx> {
    /// `&P[x + 1]`, where the loop's end bound is loaded from.
    pub(super) next: inkwell::values::PointerValue<'ctx>,
    /// Bytes of an element of `P`: 8, or 4 (sign-extended to 64 bits).
    pub(super) bytes: u64,
}

/// [`Rows`] of a stream's bounds: `start` = `P[x]` and `end` = `P[x + 1]`
/// (loads of `i64`, or of `i32` sign-extended), `x` unit-stepped in `k`
/// ([`steps_with`]).
pub(super) fn csr_rows<'ctx>(
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    k: IntValue<'ctx>,
    td: &inkwell::targets::TargetData,
) -> Option<Rows<'ctx>> {
    use InstructionOpcode as O;
    // A bound: `load i64 p` or `sext (load i32 p)`; its load and width.
    let bound = |v: IntValue<'ctx>| -> Option<(InstructionValue<'ctx>, u64)> {
        let i = v.as_instruction()?;
        let (load, bytes) = match i.get_opcode() {
            O::Load => (i, 8),
            O::SExt => (util::value_operand(i, 0).and_then(util::as_instruction)?, 4),
            _ => return None,
        };
        let width = util::basic_type_of(load)
            .filter(|t| t.is_int_type())
            .map(|t| t.into_int_type().get_bit_width());
        (load.get_opcode() == O::Load && width == Some(bytes as u32 * 8)).then_some((load, bytes))
    };
    let (ls, bytes) = bound(start)?;
    let (le, bytes_e) = bound(end)?;
    let (ps, pe) = (util::value_operand(ls, 0)?, util::value_operand(le, 0)?);
    let (base_s, xs, es) = two_operand_gep(ps, td)?;
    let (base_e, xe, ee) = two_operand_gep(pe, td)?;
    if bytes_e != bytes || es != bytes {
        return None;
    }
    // `pe` = `gep P, xs + 1`, or `pe` = `ps` plus one element's bytes.
    let plus_one = util::as_instruction(xe).is_some_and(|a| {
        let ops = util::value_operands(a);
        a.get_opcode() == O::Add
            && ops.len() == 2
            && (0..2).any(|i| {
                util::key(&ops[i]) == util::key(&xs)
                    && weft_frontend::ir::const_int(ops[1 - i]) == Some(1)
            })
    });
    let next = match util::key(&base_e) {
        b if b == util::key(&base_s) => ee == bytes && plus_one,
        b if b == util::key(&ps) => weft_frontend::ir::const_int(xe)
            .is_some_and(|c| c as i128 * ee as i128 == bytes as i128),
        _ => false,
    };
    (next && steps_with(xs, k, 4)).then(|| Rows {
        next: pe.into_pointer_value(),
        bytes,
    })
}

/// Whether the inner loop entered through `pre` runs in every iteration `k`
/// whose range `[start, end)` is not empty: `pre`'s only predecessor is
/// the block that defines `k` (run once per iteration), and it branches to
/// `pre` exactly when `start < end` (compared as loaded, before a sign
/// extension). Then the rows of iterations `k .. e` stream
/// `[P[x], P[x + e - k])` between them ([`Rows`]), not a part of it that
/// another condition picks.
fn entered_unless_empty<'ctx>(
    pre: BasicBlock<'ctx>,
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    k: IntValue<'ctx>,
    preds: &HashMap<usize, Vec<BasicBlock<'ctx>>>,
) -> bool {
    use InstructionOpcode as O;
    let Some(header) = k.as_instruction().and_then(|d| d.get_parent()) else {
        return false;
    };
    if preds.get(&util::bkey(pre)).map(Vec::as_slice) != Some(&[header][..]) {
        return false;
    }
    let Some((c, t, f)) = header.get_terminator().and_then(util::cond_branch) else {
        return false;
    };
    let Some(cmp) = util::as_instruction(c).filter(|x| x.get_opcode() == O::ICmp) else {
        return false;
    };
    // `v` is the bound `b`, or the value `b` sign-extends.
    let is = |v: &BasicValueEnum<'ctx>, b: IntValue<'ctx>| {
        util::key(v) == util::key(&b)
            || b.as_instruction().is_some_and(|x| {
                x.get_opcode() == O::SExt
                    && util::value_operand(x, 0).is_some_and(|o| util::key(&o) == util::key(v))
            })
    };
    let ops = util::value_operands(cmp);
    let [a, b] = ops.as_slice() else {
        return false;
    };
    let (se, es) = (is(a, start) && is(b, end), is(a, end) && is(b, start));
    use IntPredicate as P;
    match cmp.get_icmp_predicate() {
        Some(P::SLT) => se && t == pre,
        Some(P::SGT) => es && t == pre,
        Some(P::SGE) => se && f == pre,
        Some(P::SLE) => es && f == pre,
        Some(P::NE) => (se || es) && t == pre,
        Some(P::EQ) => (se || es) && f == pre,
        _ => false,
    }
}

/// Whether `x` is `k` plus a value that does not change with `k`: `k`,
/// `c + y` or `y + c` with `y` such a value and `c` a constant or defined in
/// the function's entry block, `y * 1` (how the outliner writes the loop's
/// counter from `k`).
fn steps_with<'ctx>(x: BasicValueEnum<'ctx>, k: IntValue<'ctx>, depth: u32) -> bool {
    use InstructionOpcode as O;
    if util::key(&x) == util::key(&k) {
        return true;
    }
    let Some(i) = util::as_instruction(x) else {
        return false;
    };
    if depth == 0 {
        return false;
    }
    let ops = util::value_operands(i);
    if ops.len() != 2 {
        return false;
    }
    let entry = i
        .get_parent()
        .and_then(|bb| bb.get_parent())
        .and_then(|f| f.get_first_basic_block());
    let fixed = |v: BasicValueEnum<'ctx>| {
        weft_frontend::ir::const_int(v).is_some()
            || util::as_instruction(v)
                .is_some_and(|d| d.get_parent().is_some() && d.get_parent() == entry)
    };
    match i.get_opcode() {
        O::Add => (0..2).any(|j| steps_with(ops[j], k, depth - 1) && fixed(ops[1 - j])),
        O::Mul => (0..2).any(|j| {
            steps_with(ops[j], k, depth - 1) && weft_frontend::ir::const_int(ops[1 - j]) == Some(1)
        }),
        _ => false,
    }
}

/// Unchecked loads `gep T, base, j` of a one-block counted loop `for (j =
/// S; ; ) { ..; if (++j == E) break; }` (LLVM's rotated form of `for (j = S;
/// j < E; j++)`, e.g. `val[j]` and `col[j]` of a CSR row), with `T` as wide
/// as the load and `base`, `S`, `E` defined outside the loop, which is
/// entered only through a preheader that branches to nothing else. Such a
/// loop runs `E - S` times whenever it is entered (it runs at least once and
/// steps `j` by one up to `E`), and the load executes in every iteration (it
/// is in the loop's only block), so reporting `[base + S * size, base + E *
/// size)` once in the preheader sets exactly the bank bits of reporting each
/// element: every line of that range is read by some iteration. Reports of
/// the same iteration `k` land in the same slab either way. The loop must
/// not be the parallel loop itself (whose header defines `k`).
pub(super) fn inner_streams<'ctx>(
    ops: &[(InstructionValue<'ctx>, BasicValueEnum<'ctx>, u64, bool)],
    unchecked: &dyn Fn(&InstructionValue<'ctx>, bool) -> bool,
    td: &inkwell::targets::TargetData,
    k: IntValue<'ctx>,
) -> HashMap<util::ValueKey, Stream<'ctx>> {
    use InstructionOpcode as O;
    let mut out = HashMap::new();
    // The function's predecessor lists, made once, when a candidate needs them.
    let mut preds = None;
    for &(i, p, size, w) in ops {
        if w || size == 0 || i.get_opcode() != O::Load || !unchecked(&i, w) {
            continue;
        }
        let Some(h) = i.get_parent() else { continue };
        // Only loops inside an iteration `k` (its report needs `k`; the
        // parallel loop's own accesses are reported per iteration).
        if k.as_instruction().and_then(|d| d.get_parent()) == Some(h) {
            continue;
        }
        // p = gep T, base, j with base outside the loop (`counted_loop`
        // checks `j`).
        let Some((base, j, stride)) = two_operand_gep(p, td) else {
            continue;
        };
        if stride != size || !defined_outside(base, h) {
            continue;
        }
        let Some((pre, start, end)) = counted_loop(h, j, &mut preds) else {
            continue;
        };
        let rows = csr_rows(start, end, k, td).filter(|_| {
            let preds = preds.get_or_insert_with(|| {
                util::predecessors(h.get_parent().expect("block in a function"))
            });
            entered_unless_empty(pre, start, end, k, preds)
        });
        out.insert(
            util::key(&i),
            Stream {
                pre,
                base,
                start,
                end,
                stride,
                rows,
            },
        );
    }
    out
}

/// A read `base[idx[j]]` of an inner counted loop ([`inner_gathers`]).
pub(super) struct GatherSite<'ctx> {
    /// The loop's preheader (see [`counted_loop`]).
    pub(super) pre: BasicBlock<'ctx>,
    /// The gathered array.
    pub(super) base: BasicValueEnum<'ctx>,
    /// The index array (`idx`, indexed by the loop's `j`).
    pub(super) idx: BasicValueEnum<'ctx>,
    /// Bytes per index: 4 (`i32`, sign-extended) or 8 (`i64`).
    pub(super) idx_bytes: u64,
    pub(super) start: IntValue<'ctx>,
    pub(super) end: IntValue<'ctx>,
    /// Bytes per index step (the gathered array's element size).
    pub(super) scale: u64,
}

/// Reads `gep T, base, idx[j]` (the index sign-extended from `i32`, or an
/// `i64`) of a one-block counted loop over `j` ([`counted_loop`]), with
/// `base` and the index array defined outside the loop and `idx[j]` loaded
/// in it (`x[col[j]]` of a CSR row). The read executes once per iteration, at
/// the address `base + idx[j] * sizeof(T)` for `j` from `S` to `E`, so one
/// `weft_inspect_gather` of `idx + S` over `E - S` indices before the loop
/// reports exactly its reads, in iteration `k` (the reads of one iteration
/// may be reported in any order among themselves). `eligible` says which
/// reads may move (see [`super::slice::make_inspector_with`]); not the parallel loop itself.
pub(super) fn inner_gathers<'ctx>(
    ops: &[(InstructionValue<'ctx>, BasicValueEnum<'ctx>, u64, bool)],
    eligible: &dyn Fn(&InstructionValue<'ctx>) -> bool,
    td: &inkwell::targets::TargetData,
    k: IntValue<'ctx>,
) -> HashMap<util::ValueKey, GatherSite<'ctx>> {
    use InstructionOpcode as O;
    let mut out = HashMap::new();
    let mut preds = None;
    let in_block = |v: BasicValueEnum<'ctx>, h: BasicBlock<'ctx>, op: O| {
        util::as_instruction(v).filter(|x| x.get_opcode() == op && x.get_parent() == Some(h))
    };
    for &(i, p, size, w) in ops {
        if w || size == 0 || i.get_opcode() != O::Load || !eligible(&i) {
            continue;
        }
        let Some(h) = i.get_parent() else { continue };
        if k.as_instruction().and_then(|d| d.get_parent()) == Some(h) {
            continue;
        }
        // p = gep T, base, ix with base outside the loop.
        let Some((base, ix, scale)) = two_operand_gep(p, td) else {
            continue;
        };
        if !defined_outside(base, h) {
            continue;
        }
        // ix = sext (load i32 q) or load i64 q, in the loop.
        let (load, idx_bytes) = match in_block(ix, h, O::SExt) {
            Some(x) => match util::value_operand(x, 0).and_then(|v| in_block(v, h, O::Load)) {
                Some(l) => (l, 4),
                None => continue,
            },
            None => match in_block(ix, h, O::Load) {
                Some(l) => (l, 8),
                None => continue,
            },
        };
        let width = util::basic_type_of(load)
            .filter(|t| t.is_int_type())
            .map(|t| t.into_int_type().get_bit_width());
        if width != Some(idx_bytes as u32 * 8) || !ix.is_int_value() {
            continue;
        }
        if ix.into_int_value().get_type().get_bit_width() != 64 {
            continue;
        }
        // q = gep Ti, idx, j with idx outside the loop and j its counter.
        let Some(q) = util::value_operand(load, 0) else {
            continue;
        };
        let Some((idx, j, stride)) = two_operand_gep(q, td) else {
            continue;
        };
        if stride != idx_bytes || !defined_outside(idx, h) {
            continue;
        }
        let Some((pre, start, end)) = counted_loop(h, j, &mut preds) else {
            continue;
        };
        out.insert(
            util::key(&i),
            GatherSite {
                pre,
                base,
                idx,
                idx_bytes,
                start,
                end,
                scale,
            },
        );
    }
    out
}

/// Whether `v` is not an instruction of block `h` (a constant, an argument,
/// or defined in another block).
fn defined_outside<'ctx>(v: BasicValueEnum<'ctx>, h: BasicBlock<'ctx>) -> bool {
    util::as_instruction(v).map_or(true, |i| i.get_parent() != Some(h))
}

/// `p = getelementptr T, base, ix` with one index, as `(base, ix, alloc size of T)`.
fn two_operand_gep<'ctx>(
    p: BasicValueEnum<'ctx>,
    td: &inkwell::targets::TargetData,
) -> Option<(BasicValueEnum<'ctx>, BasicValueEnum<'ctx>, u64)> {
    use inkwell::llvm_sys::core::{LLVMGetGEPSourceElementType, LLVMGetNumOperands};
    use inkwell::llvm_sys::target::LLVMABISizeOfType;
    let gep =
        util::as_instruction(p).filter(|g| g.get_opcode() == InstructionOpcode::GetElementPtr)?;
    let r = gep.as_value_ref();
    // SAFETY: `r` is a live GEP instruction; its source element type is sized.
    let (two, size) = unsafe {
        (
            LLVMGetNumOperands(r) == 2,
            LLVMABISizeOfType(td.as_mut_ptr(), LLVMGetGEPSourceElementType(r)),
        )
    };
    let (base, ix) = (util::value_operand(gep, 0)?, util::value_operand(gep, 1)?);
    two.then_some((base, ix, size))
}

/// The counted loop of `h` over `j`, as `(preheader, S, E)`: `h` is a one-block
/// loop `for (j = S; ; ) { ..; if (++j == E) break; }` (LLVM's rotated form of
/// `for (j = S; j < E; j++)`, `j` a phi of `h`), `S` and `E` defined outside
/// it, entered only through a preheader that branches to nothing else. Such a
/// loop runs `E - S` times whenever it is entered (at least once, stepping `j`
/// by one up to `E`), and every instruction of `h` runs in each iteration.
/// `preds`: the function's predecessor lists, made on first use.
fn counted_loop<'ctx>(
    h: BasicBlock<'ctx>,
    j: BasicValueEnum<'ctx>,
    preds: &mut Option<HashMap<usize, Vec<BasicBlock<'ctx>>>>,
) -> Option<(BasicBlock<'ctx>, IntValue<'ctx>, IntValue<'ctx>)> {
    use InstructionOpcode as O;
    if !j.is_int_value() || j.into_int_value().get_type().get_bit_width() != 64 {
        return None;
    }
    // j = phi [S, pre], [j + 1, h] in h.
    let phi = util::as_instruction(j)
        .filter(|x| x.get_opcode() == O::Phi && x.get_parent() == Some(h))
        .and_then(|x| inkwell::values::PhiValue::try_from(x).ok())?;
    if phi.count_incoming() != 2 {
        return None;
    }
    let (Some((v0, b0)), Some((v1, b1))) = (phi.get_incoming(0), phi.get_incoming(1)) else {
        return None;
    };
    let ((start, pre), (next, latch)) = if b1 == h {
        ((v0, b0), (v1, b1))
    } else {
        ((v1, b1), (v0, b0))
    };
    if latch != h || pre == h || !defined_outside(start, h) {
        return None;
    }
    let is_inc = util::as_instruction(next).is_some_and(|a| {
        let ops = util::value_operands(a);
        a.get_opcode() == O::Add
            && a.get_parent() == Some(h)
            && ops.len() == 2
            && ops.iter().any(|o| util::key(o) == util::key(&j))
            && ops
                .iter()
                .any(|o| weft_frontend::ir::const_int(*o) == Some(1))
    });
    if !is_inc {
        return None;
    }
    // h ends with `br (icmp eq next, E), exit, h` or `br (icmp ne next, E), h, exit`.
    let (c, t, f) = h.get_terminator().and_then(util::cond_branch)?;
    let cmp = util::as_instruction(c).filter(|x| x.get_opcode() == O::ICmp)?;
    let ops2 = util::value_operands(cmp);
    let end = match ops2.as_slice() {
        [a, e] if util::key(a) == util::key(&next) => *e,
        [e, a] if util::key(a) == util::key(&next) => *e,
        _ => return None,
    };
    let loops = match cmp.get_icmp_predicate() {
        Some(IntPredicate::EQ) => f == h && t != h,
        Some(IntPredicate::NE) => t == h && f != h,
        _ => false,
    };
    if !loops || !defined_outside(end, h) || !end.is_int_value() || !start.is_int_value() {
        return None;
    }
    // The preheader only enters the loop, which has no other entry.
    let pre_ok = pre
        .get_terminator()
        .is_some_and(|term| util::successors(term) == vec![h]);
    let entries = preds
        .get_or_insert_with(|| util::predecessors(h.get_parent().expect("block in a function")))
        .get(&util::bkey(h))
        .map_or(0, Vec::len);
    if !pre_ok || entries != 2 {
        return None;
    }
    Some((pre, start.into_int_value(), end.into_int_value()))
}

/// Role of an access in [`coalesced_runs`].
#[derive(Clone, Copy, Debug)]
pub(super) enum Run<'ctx> {
    /// The first access of a run (in block order): reports the run's bytes
    /// `[base + offset, base + offset + size)`.
    Leader {
        base: BasicValueEnum<'ctx>,
        offset: i64,
        size: u64,
    },
    /// Covered by its run's leader: no report of its own.
    Covered,
}

/// `p` as (base, constant byte offset): strips getelementptrs with a single
/// constant index (`gep T, base, C` = `base + C * alloc_size(T)`, e.g. the
/// `gep i8, %row, 8` of `a[3*i+1]` next to `a[3*i]`).
fn const_offset_base<'ctx>(
    mut p: BasicValueEnum<'ctx>,
    td: &inkwell::targets::TargetData,
) -> (BasicValueEnum<'ctx>, i64) {
    use inkwell::llvm_sys::core::{
        LLVMConstIntGetSExtValue, LLVMGetGEPSourceElementType, LLVMGetNumOperands, LLVMGetOperand,
        LLVMIsAConstantInt,
    };
    use inkwell::llvm_sys::target::LLVMABISizeOfType;
    let mut offset = 0i64;
    for _ in 0..16 {
        let Some(i) = util::as_instruction(p) else {
            break;
        };
        if i.get_opcode() != InstructionOpcode::GetElementPtr {
            break;
        }
        let r = i.as_value_ref();
        // SAFETY: `r` is a live GEP instruction: 2 operands are (pointer,
        // index); its source element type is a sized type.
        let step = unsafe {
            if LLVMGetNumOperands(r) != 2 || LLVMIsAConstantInt(LLVMGetOperand(r, 1)).is_null() {
                break;
            }
            let c = LLVMConstIntGetSExtValue(LLVMGetOperand(r, 1));
            let size = LLVMABISizeOfType(td.as_mut_ptr(), LLVMGetGEPSourceElementType(r));
            c.checked_mul(size as i64)
        };
        let Some(base) = util::value_operand(i, 0) else {
            break;
        };
        match step.and_then(|s| offset.checked_add(s)) {
            Some(o) => offset = o,
            None => break,
        }
        p = base;
    }
    (p, offset)
}

/// Runs of unchecked accesses to coalesce: per block and base pointer
/// ([`const_offset_base`]), the accesses sorted by offset and cut where the
/// next one starts past the bytes covered so far; every run of two or more
/// accesses covers one contiguous byte range, so its lines, and the bank
/// maps, are exactly those of reporting each access. The leader is the
/// run's first access in block order (the base dominates it: every access
/// of the run computes its address from the base).
pub(super) fn coalesced_runs<'ctx>(
    ops: &[(InstructionValue<'ctx>, BasicValueEnum<'ctx>, u64, bool)],
    unchecked: &dyn Fn(&InstructionValue<'ctx>, bool) -> bool,
    td: &inkwell::targets::TargetData,
) -> HashMap<util::ValueKey, Run<'ctx>> {
    // (block, base) -> (base, [(offset, size, position in ops)])
    type Group<'ctx> = (BasicValueEnum<'ctx>, Vec<(i64, u64, usize)>);
    let mut groups: HashMap<(usize, util::ValueKey), Group<'ctx>> = HashMap::new();
    for (n, &(i, p, size, w)) in ops.iter().enumerate() {
        if size == 0 || !unchecked(&i, w) {
            continue;
        }
        let Some(bb) = i.get_parent() else { continue };
        let (base, off) = const_offset_base(p, td);
        groups
            .entry((util::bkey(bb), util::key(&base)))
            .or_insert_with(|| (base, Vec::new()))
            .1
            .push((off, size, n));
    }
    let mut out = HashMap::new();
    for (base, mut accs) in groups.into_values() {
        accs.sort_unstable();
        let mut start = 0;
        while start < accs.len() {
            let (lo, mut end) = (accs[start].0, accs[start].0 + accs[start].1 as i64);
            let mut stop = start + 1;
            while stop < accs.len() && accs[stop].0 <= end {
                end = end.max(accs[stop].0 + accs[stop].1 as i64);
                stop += 1;
            }
            let run = &accs[start..stop];
            if run.len() > 1 {
                let lead = run.iter().map(|a| a.2).min().unwrap_or(run[0].2);
                for a in run {
                    let role = if a.2 == lead {
                        Run::Leader {
                            base,
                            offset: lo,
                            size: (end - lo) as u64,
                        }
                    } else {
                        Run::Covered
                    };
                    out.insert(util::key(&ops[a.2].0), role);
                }
            }
            start = stop;
        }
    }
    out
}
