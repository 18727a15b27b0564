//! The inline recording state of an inspector: the LLVM layout of the
//! runtime's `weft_inspect_fast_t` ([`fast`], [`fast_type`]; a test checks it
//! against the `#[repr(C)]` struct) and the IR building blocks the wrappers
//! use to set the current slab's bank bits (§4.4.2's bank map per slab)
//! without a runtime call: line range of an access, the slab test, the
//! hand-back and refill of counts and record cursors, the unwritten-granule
//! test of writes-first inspections (§4.4.6).

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicValueEnum, FunctionValue, IntValue};
use inkwell::IntPredicate;

use crate::error::{PassError, Result};
use crate::rtabi::{self, RtFn};

/// Field indices of `weft_inspect_fast_t` (`weft_runtime::abi::InspectFast`,
/// `#[repr(C)]`; a test checks that the LLVM struct has its layout).
pub(super) mod fast {
    pub const LO: u32 = 0;
    pub const HI: u32 = 1;
    pub const ROW: u32 = 2;
    pub const TABLE: u32 = 3;
    pub const MASK: u32 = 4;
    pub const LSB: u32 = 5;
    pub const ENABLED: u32 = 7;
    pub const REPORTED: u32 = 9;
    pub const TOUCHES: u32 = 10;
    pub const RECS: u32 = 11;
    pub const RECS_END: u32 = 12;
    pub const UNIT: u32 = 13;
    pub const REC_STEP: u32 = 14;
    pub const WBITS: u32 = 15;
    pub const WGMIN: u32 = 16;
    pub const WSPAN: u32 = 17;
    pub const SLAB_END: u32 = 18;
    /// Only in the inspector's own copy: the bits of the row's word 0 set
    /// since the row was last written (banks 0..64 in a register instead of
    /// a read-modify-write of memory per access).
    pub const ACC: u32 = 19;
    /// The fields the runtime fills (copied into the inspector's copy after
    /// each call that fills them).
    pub const FILLED: [u32; 17] = [
        LO, HI, ROW, TABLE, MASK, LSB, ENABLED, REPORTED, TOUCHES, RECS, RECS_END, UNIT, REC_STEP,
        WBITS, WGMIN, WSPAN, SLAB_END,
    ];
    /// The fields the inspector hands back before such a call.
    pub const HANDED_BACK: [u32; 4] = [REPORTED, TOUCHES, RECS, RECS_END];
}

/// The LLVM type of `weft_inspect_fast_t`; with `local`, followed by the
/// inspector's accumulator of word 0 ([`fast::ACC`]).
pub(super) fn fast_type(
    cx: inkwell::context::ContextRef<'_>,
    local: bool,
) -> inkwell::types::StructType<'_> {
    let (i64t, i32t) = (cx.i64_type(), cx.i32_type());
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let abi = [
        i64t.into(), // lo
        i64t.into(), // hi
        ptr.into(),  // row
        ptr.into(),  // table
        i64t.into(), // mask
        i32t.into(), // lsb
        i32t.into(), // shift
        i32t.into(), // enabled
        i32t.into(), // reserved
        i64t.into(), // reported
        i64t.into(), // touches
        ptr.into(),  // recs
        ptr.into(),  // recs_end
        i32t.into(), // unit
        i32t.into(), // rec_step
        ptr.into(),  // wbits
        i64t.into(), // wgmin
        i64t.into(), // wspan
        i64t.into(), // slab_end
    ];
    let acc = [i64t.into()];
    let fields: Vec<inkwell::types::BasicTypeEnum<'_>> = match local {
        true => abi.iter().chain(&acc).copied().collect(),
        false => abi.to_vec(),
    };
    cx.struct_type(&fields, false)
}

/// At `b`'s position: whether `lo <= k < hi` (signed), named `name`.
pub(super) fn in_range<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    k: IntValue<'ctx>,
    lo: IntValue<'ctx>,
    hi: IntValue<'ctx>,
    name: &str,
) -> Result<IntValue<'ctx>> {
    Ok(b.build_and(
        b.build_int_compare(IntPredicate::SGE, k, lo, "")?,
        b.build_int_compare(IntPredicate::SLT, k, hi, "")?,
        name,
    )?)
}

/// A new `alwaysinline` internal function `name` of type `fty`.
pub(super) fn always_inline<'ctx>(
    module: &Module<'ctx>,
    name: &str,
    fty: inkwell::types::FunctionType<'ctx>,
) -> FunctionValue<'ctx> {
    let cx = module.get_context();
    let w = module.add_function(name, fty, Some(Linkage::Internal));
    let kind = inkwell::attributes::Attribute::get_named_enum_kind_id("alwaysinline");
    w.add_attribute(
        inkwell::attributes::AttributeLoc::Function,
        cx.create_enum_attribute(kind, 0),
    );
    w
}

/// At `b`'s position: whether the checked read of `size` bytes at `a`
/// touches no granule of the state's written-granule bitmap (`wbits`,
/// `wgmin` of `cur`, `wspan` loaded by the caller, which checked it is
/// not 0; the runtime's rule, see `weft_inspect_fast_t`): accesses of up to 32
/// granules that start in the bitmap's span are decided, others are
/// kept. `aligned` (a constant at every call): the access is at most 16
/// bytes, aligned to its power-of-two size; its granules then lie in
/// one word of the bitmap (whose first granule is a multiple of 64), so
/// one load and a constant mask decide.
pub(super) fn unwritten_read<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    lty: inkwell::types::StructType<'ctx>,
    cur: inkwell::values::PointerValue<'ctx>,
    (a, size, aligned): (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
    wspan: IntValue<'ctx>,
) -> Result<IntValue<'ctx>> {
    let i64t = a.get_type();
    let cx = i64t.get_context();
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let c = |v: u64| i64t.const_int(v, false);
    let gcur = |j: u32| b.build_struct_gep(lty, cur, j, "");
    let g0 = b.build_right_shift(a, c(2), false, "g0")?;
    let last = b.build_int_add(a, b.build_int_sub(size, c(1), "")?, "")?;
    let g1 = b.build_right_shift(last, c(2), false, "")?;
    let n = b.build_int_sub(g1, g0, "")?;
    // aligned: (size - 1) / 4 more granules (folds: `size` is a constant)
    let n_al = b.build_right_shift(b.build_int_sub(size, c(1), "")?, c(2), false, "")?;
    let n = b.build_select(aligned, n_al, n, "g.n")?.into_int_value();
    let wgmin = b.build_load(i64t, gcur(fast::WGMIN)?, "")?.into_int_value();
    let wbits = b
        .build_load(ptr, gcur(fast::WBITS)?, "wbits")?
        .into_pointer_value();
    let gi = b.build_int_sub(g0, wgmin, "g.i")?;
    let in_span = b.build_int_compare(IntPredicate::ULT, gi, wspan, "")?;
    let small = b.build_int_compare(IntPredicate::ULT, n, c(32), "")?;
    // (For an aligned access `n` is at most 3 and folds.)
    let small = b.build_or(aligned, small, "")?;
    let decided = b.build_and(in_span, small, "g.ok")?;
    let gi = b.build_select(decided, gi, c(0), "")?.into_int_value();
    let n = b.build_select(decided, n, c(0), "")?.into_int_value();
    let word = b.build_right_shift(gi, c(6), false, "")?;
    let bit = b.build_and(gi, c(63), "")?;
    // SAFETY: `word` and `word + 1` are within the bitmap (`gi < wspan`,
    // or 0; the words go one past the last bit's word).
    let (pw0, pw1) = unsafe {
        let pw0 = b.build_in_bounds_gep(i64t, wbits, &[word], "")?;
        (pw0, b.build_in_bounds_gep(i64t, pw0, &[c(1)], "")?)
    };
    let w0 = b.build_load(i64t, pw0, "")?.into_int_value();
    let mask = b.build_int_sub(b.build_left_shift(c(2), n, "")?, c(1), "")?;
    // Aligned: bits gi..=gi+n of word 0.
    let one = b.build_and(w0, b.build_left_shift(mask, bit, "")?, "")?;
    // Otherwise bits gi.. of the span: word 0 shifted down, word 1's
    // low bits above.
    let w1 = b.build_load(i64t, pw1, "")?.into_int_value();
    let lo = b.build_right_shift(w0, bit, false, "")?;
    let up = b.build_left_shift(w1, c(1), "")?;
    let up = b.build_left_shift(up, b.build_int_sub(c(63), bit, "")?, "")?;
    let window = b.build_or(lo, up, "window")?;
    let two = b.build_and(window, mask, "")?;
    let touched = b.build_select(aligned, one, two, "")?.into_int_value();
    let clear = b.build_int_compare(IntPredicate::EQ, touched, c(0), "")?;
    Ok(b.build_and(decided, clear, "skip")?)
}

/// At `b`'s position (a block of `w`): branches to `hit` when `k` lies
/// in the current slab; else hands the state back, asks the runtime for
/// the slab of `k` (`weft_inspect_fast`) and branches to `hit` when the
/// inline path is enabled and `k` lies in the new slab, to `miss`
/// otherwise.
pub(super) fn slab_or_refresh<'ctx>(
    module: &Module<'ctx>,
    w: FunctionValue<'ctx>,
    b: &inkwell::builder::Builder<'ctx>,
    (h, st, cur): (
        BasicValueEnum<'ctx>,
        inkwell::values::PointerValue<'ctx>,
        inkwell::values::PointerValue<'ctx>,
    ),
    k: IntValue<'ctx>,
    (hit, miss): (BasicBlock<'ctx>, BasicBlock<'ctx>),
) -> Result<()> {
    let cx = module.get_context();
    let refresh = match b.get_insert_block() {
        Some(here) => cx.insert_basic_block_after(here, "refresh"),
        None => cx.append_basic_block(w, "refresh"),
    };
    let in_slab = in_current_slab(b, cur, k)?;
    b.build_conditional_branch(in_slab, hit, refresh)?;
    b.position_at_end(refresh);
    hand_back(module, b, st, cur)?;
    let refill = rtabi::declare(module, RtFn::InspectFast)?;
    b.build_call(refill, &[h.into(), k.into(), st.into()], "")?;
    let ok = reload(module, b, st, cur, k)?;
    b.build_conditional_branch(ok, hit, miss)?;
    Ok(())
}

/// At `b`'s position: the access of `size` bytes (`i64`) at `addr` as
/// `(a, end, first, last)`: its first byte's address, the address whose
/// line ends it (`a` itself when `aligned`: at most 16 bytes aligned to
/// their size lie in one line), and the lines of both (`>> shift`).
pub(super) fn access_lines<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    addr: BasicValueEnum<'ctx>,
    size: IntValue<'ctx>,
    aligned: IntValue<'ctx>,
    shift: IntValue<'ctx>,
) -> Result<(
    IntValue<'ctx>,
    IntValue<'ctx>,
    IntValue<'ctx>,
    IntValue<'ctx>,
)> {
    let i64t = size.get_type();
    let a = b.build_ptr_to_int(addr.into_pointer_value(), i64t, "a")?;
    let first = b.build_right_shift(a, shift, false, "first")?;
    let end = b.build_int_add(a, b.build_int_sub(size, i64t.const_int(1, false), "")?, "")?;
    let end = b.build_select(aligned, a, end, "end")?.into_int_value();
    let last = b.build_right_shift(end, shift, false, "last")?;
    Ok((a, end, first, last))
}

/// At `b`'s position: the lines an access spans beyond its first
/// (`last - first`) and whether the inline path takes it: at most two
/// lines, and the runtime enabled the path (`cur`'s `enabled`).
pub(super) fn few_lines_inline<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    cur: inkwell::values::PointerValue<'ctx>,
    first: IntValue<'ctx>,
    last: IntValue<'ctx>,
) -> Result<(IntValue<'ctx>, IntValue<'ctx>)> {
    let cx = first.get_type().get_context();
    let i64t = cx.i64_type();
    let extra = b.build_int_sub(last, first, "extra")?;
    let few = b.build_int_compare(IntPredicate::ULT, extra, i64t.const_int(2, false), "")?;
    let en = inline_enabled(b, cur)?;
    Ok((extra, b.build_and(few, en, "")?))
}

/// At `b`'s position: whether the runtime enabled the inline path
/// (`cur`'s `enabled != 0`).
pub(super) fn inline_enabled<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    cur: inkwell::values::PointerValue<'ctx>,
) -> Result<IntValue<'ctx>> {
    let cx = cur.get_type().get_context();
    let i32t = cx.i32_type();
    let pen = b.build_struct_gep(fast_type(cx, true), cur, fast::ENABLED, "")?;
    let en = b.build_load(i32t, pen, "enabled")?.into_int_value();
    Ok(b.build_int_compare(IntPredicate::NE, en, i32t.const_zero(), "")?)
}

/// At `b`'s position: whether `k` lies in the inspector's current slab
/// (`cur`'s `[lo, hi)`).
pub(super) fn in_current_slab<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    cur: inkwell::values::PointerValue<'ctx>,
    k: IntValue<'ctx>,
) -> Result<IntValue<'ctx>> {
    let cx = k.get_type().get_context();
    let (i64t, lty) = (cx.i64_type(), fast_type(cx, true));
    let lo = b.build_load(i64t, b.build_struct_gep(lty, cur, fast::LO, "")?, "lo")?;
    let hi = b.build_load(i64t, b.build_struct_gep(lty, cur, fast::HI, "")?, "hi")?;
    in_range(b, k, lo.into_int_value(), hi.into_int_value(), "in.slab")
}

/// At `b`'s position, before a runtime call that takes the inline state:
/// writes back word 0's accumulated bits and copies the counts and the
/// record cursor into the runtime's copy `st`.
pub(super) fn hand_back<'ctx>(
    module: &Module<'ctx>,
    b: &inkwell::builder::Builder<'ctx>,
    st: inkwell::values::PointerValue<'ctx>,
    cur: inkwell::values::PointerValue<'ctx>,
) -> Result<()> {
    write_back(module, b, cur)?;
    let cx = module.get_context();
    let (sty, lty) = (fast_type(cx, false), fast_type(cx, true));
    for j in fast::HANDED_BACK {
        let t = sty.get_field_type_at_index(j).expect("field");
        let v = b.build_load(t, b.build_struct_gep(lty, cur, j, "")?, "")?;
        b.build_store(b.build_struct_gep(sty, st, j, "")?, v)?;
    }
    Ok(())
}

/// At `b`'s position, after the runtime filled `st`: copies it into the
/// inspector's copy `cur`; returns whether the inline path is enabled
/// and `k` lies in the new slab.
pub(super) fn reload<'ctx>(
    module: &Module<'ctx>,
    b: &inkwell::builder::Builder<'ctx>,
    st: inkwell::values::PointerValue<'ctx>,
    cur: inkwell::values::PointerValue<'ctx>,
    k: IntValue<'ctx>,
) -> Result<IntValue<'ctx>> {
    let cx = module.get_context();
    let (sty, lty) = (fast_type(cx, false), fast_type(cx, true));
    let mut got = HashMap::new();
    for j in fast::FILLED {
        let t = sty.get_field_type_at_index(j).expect("field");
        let v = b.build_load(t, b.build_struct_gep(sty, st, j, "")?, "")?;
        b.build_store(b.build_struct_gep(lty, cur, j, "")?, v)?;
        got.insert(j, v);
    }
    let int = |j: u32| got[&j].into_int_value();
    let i32t = cx.i32_type();
    let en = b.build_int_compare(IntPredicate::NE, int(fast::ENABLED), i32t.const_zero(), "")?;
    let ok = in_range(b, k, int(fast::LO), int(fast::HI), "in.slab")?;
    Ok(b.build_and(en, ok, "")?)
}

/// At `b`'s position (a block of `w`): sets the bank bits of the first
/// and the last line of the access `(a, end, extra)` (the same twice for
/// a one-line access; banks 0..64 into the accumulator of word 0, others
/// straight into the row), counts the access and its `extra + 1` lines,
/// and branches to `done`.
pub(super) fn mark<'ctx>(
    module: &Module<'ctx>,
    w: FunctionValue<'ctx>,
    b: &inkwell::builder::Builder<'ctx>,
    cur: inkwell::values::PointerValue<'ctx>,
    (a, end, extra): (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
    done: BasicBlock<'ctx>,
) -> Result<()> {
    let cx = module.get_context();
    let (i64t, i32t, i16t) = (cx.i64_type(), cx.i32_type(), cx.i16_type());
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let lty = fast_type(cx, true);
    let word0 = cx.append_basic_block(w, "word0");
    let words = cx.append_basic_block(w, "words");
    let count = cx.append_basic_block(w, "count");
    let gcur = |j: u32| b.build_struct_gep(lty, cur, j, "");
    let table = b
        .build_load(ptr, gcur(fast::TABLE)?, "table")?
        .into_pointer_value();
    let mask = b
        .build_load(i64t, gcur(fast::MASK)?, "mask")?
        .into_int_value();
    let lsb = b
        .build_load(i32t, gcur(fast::LSB)?, "lsb")?
        .into_int_value();
    let lsb = b.build_int_z_extend(lsb, i64t, "")?;
    let mut banks = Vec::new();
    for x in [a, end] {
        let idx = b.build_and(b.build_right_shift(x, lsb, false, "")?, mask, "")?;
        // SAFETY: `idx <= mask` indexes the runtime's table of mask + 1 entries.
        let pb = unsafe { b.build_in_bounds_gep(i16t, table, &[idx], "")? };
        let bank = b.build_load(i16t, pb, "bank")?.into_int_value();
        banks.push(b.build_int_z_extend(bank, i64t, "")?);
    }
    let bit = |bank: IntValue<'ctx>| {
        let low = b.build_and(bank, i64t.const_int(63, false), "")?;
        b.build_left_shift(i64t.const_int(1, false), low, "")
    };
    let six = i64t.const_int(6, false);
    let both = b.build_or(banks[0], banks[1], "")?;
    let in_word0 = b.build_int_compare(
        IntPredicate::EQ,
        b.build_right_shift(both, six, false, "")?,
        i64t.const_zero(),
        "",
    )?;
    b.build_conditional_branch(in_word0, word0, words)?;
    // Banks 0..64 (every bank on most machines): into the accumulator.
    b.position_at_end(word0);
    let pacc = gcur(fast::ACC)?;
    let acc = b.build_load(i64t, pacc, "acc")?.into_int_value();
    let bits = b.build_or(bit(banks[0])?, bit(banks[1])?, "")?;
    b.build_store(pacc, b.build_or(acc, bits, "")?)?;
    b.build_unconditional_branch(count)?;
    // Other banks: straight into the row.
    b.position_at_end(words);
    let row = b
        .build_load(ptr, gcur(fast::ROW)?, "row")?
        .into_pointer_value();
    for &bank in &banks {
        let word = b.build_right_shift(bank, six, false, "")?;
        // SAFETY: a bank `< banks` indexes the row's words.
        let pw = unsafe { b.build_in_bounds_gep(i64t, row, &[word], "")? };
        let old = b.build_load(i64t, pw, "")?.into_int_value();
        b.build_store(pw, b.build_or(old, bit(bank)?, "")?)?;
    }
    b.build_unconditional_branch(count)?;
    b.position_at_end(count);
    let add = |j: u32, by: IntValue<'ctx>| -> Result<()> {
        let pc = gcur(j)?;
        let c = b.build_load(i64t, pc, "")?.into_int_value();
        b.build_store(pc, b.build_int_add(c, by, "")?)?;
        Ok(())
    };
    add(fast::REPORTED, i64t.const_int(1, false))?;
    add(
        fast::TOUCHES,
        b.build_int_add(extra, i64t.const_int(1, false), "")?,
    )?;
    b.build_unconditional_branch(done)?;
    Ok(())
}

/// At `b`'s position: ORs the accumulated bits of word 0 into the row
/// (the row is set whenever the accumulator is not 0) and clears them.
pub(super) fn write_back<'ctx>(
    module: &Module<'ctx>,
    b: &inkwell::builder::Builder<'ctx>,
    cur: inkwell::values::PointerValue<'ctx>,
) -> Result<()> {
    let cx = module.get_context();
    let (i64t, ptr) = (cx.i64_type(), cx.ptr_type(inkwell::AddressSpace::default()));
    let lty = fast_type(cx, true);
    let here = b
        .get_insert_block()
        .ok_or_else(|| PassError::Internal("builder not in a block".into()))?;
    let write = cx.insert_basic_block_after(here, "write.back");
    let rest = cx.insert_basic_block_after(write, "written");
    let pacc = b.build_struct_gep(lty, cur, fast::ACC, "")?;
    let acc = b.build_load(i64t, pacc, "acc")?.into_int_value();
    let any = b.build_int_compare(IntPredicate::NE, acc, i64t.const_zero(), "")?;
    b.build_conditional_branch(any, write, rest)?;
    b.position_at_end(write);
    let row = b
        .build_load(ptr, b.build_struct_gep(lty, cur, fast::ROW, "")?, "row")?
        .into_pointer_value();
    let old = b.build_load(i64t, row, "")?.into_int_value();
    b.build_store(row, b.build_or(old, acc, "")?)?;
    b.build_store(pacc, i64t.const_zero())?;
    b.build_unconditional_branch(rest)?;
    b.position_at_end(rest);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LLVM struct of the inline state has the layout of the runtime's
    /// `#[repr(C)]` `InspectFast` (x86-64 and the generic 64-bit layout).
    #[test]
    fn fast_state_type_matches_the_runtime_struct() {
        use std::mem::{offset_of, size_of};
        use weft_runtime::abi::InspectFast;
        let cx = inkwell::context::Context::create();
        let m = cx.create_module("t");
        let ty = fast_type(m.get_context(), false);
        for dl in [
            "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128",
            "e-i64:64",
        ] {
            let td = inkwell::targets::TargetData::create(dl);
            assert_eq!(td.get_abi_size(&ty), size_of::<InspectFast>() as u64);
            for (j, off) in [
                (fast::LO, offset_of!(InspectFast, lo)),
                (fast::HI, offset_of!(InspectFast, hi)),
                (fast::ROW, offset_of!(InspectFast, row)),
                (fast::TABLE, offset_of!(InspectFast, table)),
                (fast::MASK, offset_of!(InspectFast, mask)),
                (fast::LSB, offset_of!(InspectFast, lsb)),
                (fast::ENABLED, offset_of!(InspectFast, enabled)),
                (fast::REPORTED, offset_of!(InspectFast, reported)),
                (fast::TOUCHES, offset_of!(InspectFast, touches)),
                (fast::RECS, offset_of!(InspectFast, recs)),
                (fast::RECS_END, offset_of!(InspectFast, recs_end)),
                (fast::UNIT, offset_of!(InspectFast, unit)),
                (fast::REC_STEP, offset_of!(InspectFast, rec_step)),
                (fast::WBITS, offset_of!(InspectFast, wbits)),
                (fast::WGMIN, offset_of!(InspectFast, wgmin)),
                (fast::WSPAN, offset_of!(InspectFast, wspan)),
                (fast::SLAB_END, offset_of!(InspectFast, slab_end)),
            ] {
                assert_eq!(td.offset_of_element(&ty, j), Some(off as u64), "field {j}");
            }
        }
        // The inspector's copy only appends the accumulator.
        assert_eq!(
            fast_type(m.get_context(), true).count_fields(),
            fast::ACC + 1
        );
    }
}
