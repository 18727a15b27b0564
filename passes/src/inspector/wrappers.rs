//! The `alwaysinline` report wrappers an inspector calls
//! (`weft.inspect.report_line`, `.report_checked`, `.report_rows.*`,
//! `.report_gather`, `.fast_flush`): each checks the site's last line, records
//! the access inline in the current slab's bank-map row when it can
//! ([`super::inline`]), and otherwise calls the runtime (`weft_inspect_range`,
//! `weft_inspect_checked`, `weft_inspect_gather`). The bank maps are §4.4.2's
//! per-slab bank sets; checked records feed §4.4.6's dependence check. Also
//! [`is_report_call`], which recognises any of them.

use inkwell::module::Module;
use inkwell::values::{
    BasicMetadataValueEnum, BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue,
    IntValue,
};
use inkwell::IntPredicate;

use super::inline;
use super::inline::{fast, fast_type};
use crate::error::{PassError, Result};
use crate::rtabi::{self, RtFn};
use crate::util;

/// Whether `i` reports an access (a call of `weft_inspect_access` or of the
/// wrappers of [`super::dedup::LineDedup`]).
pub(super) fn is_report_call(i: InstructionValue<'_>) -> bool {
    i.get_opcode() == InstructionOpcode::Call
        && matches!(
            util::callee_name(i).as_deref(),
            Some(n) if n == RtFn::InspectAccess.symbol()
                || n == REPORT
                || n == CHECKED
                || n == GATHER_WRAPPER
                || n.starts_with(ROWS_WRAPPER)
        )
}

/// Name of the `alwaysinline` wrapper of `weft_inspect_gather` in inspectors
/// (`void (ptr h, i64 k, ptr base, ptr idx, i64 n, ptr st, ptr cur, i64
/// scale, i32 size, i32 is_write, i32 idx_bytes)`); `instrument-trace`
/// records the index loads the runtime performs for it.
pub const GATHER_WRAPPER: &str = "weft.inspect.report_gather";

/// Prefix of the `alwaysinline` wrappers of [`super::dedup::LineDedup::report_rows`]
/// (`.64` or `.32`: the width of the row pointers).
pub const ROWS_WRAPPER: &str = "weft.inspect.report_rows.";

/// The wrapper `void (ptr h, i64 k, ptr addr, i64 size, ptr line, i64
/// shift, ptr st, ptr cur, i1 aligned)`; `aligned`: the access is at most
/// 16 bytes and aligned to its power-of-two size, so it lies in one line
/// (its last byte is not looked at).
pub(super) const REPORT: &str = "weft.inspect.report_line";

/// The exit wrapper `void (ptr h, ptr st, ptr cur)`: hands the inline
/// counts to the runtime.
pub(super) const FLUSH: &str = "weft.inspect.fast_flush";

/// The wrapper of checked accesses `void (ptr h, i64 k, ptr addr, i32
/// size, i64 shift, ptr st, ptr cur, i1 aligned, i32 is_write)`
/// ([`checked_wrapper`]).
pub(super) const CHECKED: &str = "weft.inspect.report_checked";

/// The gather wrapper `void (ptr h, i64 k, ptr base, ptr idx, i64 n,
/// ptr st, ptr cur, i64 scale, i32 size, i32 is_write, i32 idx_bytes)`
/// ([`gather_wrapper`]).
pub(super) const GATHER: &str = GATHER_WRAPPER;

/// Declares (once per module) and returns the wrapper.
pub(super) fn wrapper<'ctx>(module: &Module<'ctx>) -> Result<FunctionValue<'ctx>> {
    if let Some(w) = module.get_function(REPORT) {
        return Ok(w);
    }
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let fty = cx.void_type().fn_type(
        &[
            ptr.into(),
            i64t.into(),
            ptr.into(),
            i64t.into(),
            ptr.into(),
            i64t.into(),
            ptr.into(),
            ptr.into(),
            cx.bool_type().into(),
        ],
        false,
    );
    let w = inline::always_inline(module, REPORT, fty);
    let p = |i: u32| w.get_nth_param(i).expect("wrapper parameter");
    let (h, k, addr, size, line, shift) = (p(0), p(1), p(2), p(3), p(4), p(5));
    let (st, cur) = (p(6).into_pointer_value(), p(7).into_pointer_value());
    // A constant at every call: the access cannot cross a line.
    let aligned = p(8).into_int_value();
    let (k, size, line, shift) = (
        k.into_int_value(),
        size.into_int_value(),
        line.into_pointer_value(),
        shift.into_int_value(),
    );
    let b = cx.create_builder();
    let entry = cx.append_basic_block(w, "entry");
    let report = cx.append_basic_block(w, "report");
    let check = cx.append_basic_block(w, "check");
    let inline = cx.append_basic_block(w, "inline");
    let slow = cx.append_basic_block(w, "slow");
    let done = cx.append_basic_block(w, "done");
    b.position_at_end(entry);
    let (a, end, first, last) = inline::access_lines(&b, addr, size, aligned, shift)?;
    let prev = b.build_load(i64t, line, "prev")?.into_int_value();
    let same = b.build_and(
        b.build_int_compare(IntPredicate::EQ, first, prev, "")?,
        b.build_int_compare(IntPredicate::EQ, last, prev, "")?,
        "same",
    )?;
    b.build_conditional_branch(same, done, report)?;
    // Not the site's last line: record it, inline when it touches at most
    // two lines and the runtime enabled the inline path.
    b.position_at_end(report);
    b.build_store(line, first)?;
    let (extra, go) = inline::few_lines_inline(&b, cur, first, last)?;
    b.build_conditional_branch(go, check, slow)?;
    // `k` in the current slab (the slab changes about every slab_iters
    // iterations)?
    b.position_at_end(check);
    inline::slab_or_refresh(module, w, &b, (h, st, cur), k, (inline, slow))?;
    b.position_at_end(inline);
    inline::mark(module, w, &b, cur, (a, end, extra), done)?;
    b.position_at_end(slow);
    // Unchecked bytes, without the 4 GB limit of `weft_inspect_access`
    // (a stream's range, [`inner_streams`], may be longer).
    let range = rtabi::declare(module, RtFn::InspectRange)?;
    let args: [BasicMetadataValueEnum<'ctx>; 4] = [h.into(), k.into(), addr.into(), size.into()];
    b.build_call(range, &args, "")?;
    b.build_unconditional_branch(done)?;
    b.position_at_end(done);
    b.build_return(None)?;
    Ok(w)
}

/// Declares (once per module) and returns the wrapper of checked
/// accesses ([`CHECKED`]): an access of at most two lines in
/// the current slab, while the runtime hands out records, is recorded
/// inline (its bank bits and counts as in [`wrapper`], and
/// its 16-byte record: a read's at the cursor, a write's below the end
/// of the free records, and only while the recorder keeps records);
/// every other checked access hands the state back and calls
/// `weft_inspect_checked`, which records it and refills the state.
pub(super) fn checked_wrapper<'ctx>(module: &Module<'ctx>) -> Result<FunctionValue<'ctx>> {
    if let Some(w) = module.get_function(CHECKED) {
        return Ok(w);
    }
    let cx = module.get_context();
    let (i64t, i32t, i8t) = (cx.i64_type(), cx.i32_type(), cx.i8_type());
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let lty = fast_type(cx, true);
    let fty = cx.void_type().fn_type(
        &[
            ptr.into(),
            i64t.into(),
            ptr.into(),
            i32t.into(),
            i64t.into(),
            ptr.into(),
            ptr.into(),
            cx.bool_type().into(),
            i32t.into(),
        ],
        false,
    );
    let w = inline::always_inline(module, CHECKED, fty);
    let p = |i: u32| w.get_nth_param(i).expect("wrapper parameter");
    let (h, k, addr) = (p(0), p(1).into_int_value(), p(2));
    let (size, shift) = (p(3).into_int_value(), p(4).into_int_value());
    let (st, cur) = (p(5).into_pointer_value(), p(6).into_pointer_value());
    // Constants at every call: the access cannot cross a line; 0 = read.
    let (aligned, is_write) = (p(7).into_int_value(), p(8).into_int_value());
    let b = cx.create_builder();
    let entry = cx.append_basic_block(w, "entry");
    let check = cx.append_basic_block(w, "check");
    let cursor = cx.append_basic_block(w, "cursor");
    let inline = cx.append_basic_block(w, "inline");
    let slow = cx.append_basic_block(w, "slow");
    let done = cx.append_basic_block(w, "done");
    b.position_at_end(entry);
    let gcur = |j: u32| b.build_struct_gep(lty, cur, j, "");
    let size64 = b.build_int_z_extend(size, i64t, "")?;
    let (a, end, first, last) = inline::access_lines(&b, addr, size64, aligned, shift)?;
    let (extra, go) = inline::few_lines_inline(&b, cur, first, last)?;
    let read = b.build_int_compare(IntPredicate::EQ, is_write, i32t.const_zero(), "read")?;
    b.build_conditional_branch(go, check, slow)?;
    b.position_at_end(check);
    inline::slab_or_refresh(module, w, &b, (h, st, cur), k, (cursor, slow))?;
    // A free record? (A write also needs a recorder that keeps records:
    // before its first write a lazy one must see the write itself.)
    b.position_at_end(cursor);
    let rp = b
        .build_load(ptr, gcur(fast::RECS)?, "rec")?
        .into_pointer_value();
    let re = b
        .build_load(ptr, gcur(fast::RECS_END)?, "rec.end")?
        .into_pointer_value();
    let step = b
        .build_load(i32t, gcur(fast::REC_STEP)?, "step")?
        .into_int_value();
    let free = b.build_int_compare(IntPredicate::ULT, rp, re, "free")?;
    let keeps = b.build_int_compare(IntPredicate::NE, step, i32t.const_zero(), "")?;
    let ok = b.build_and(free, b.build_or(read, keeps, "")?, "")?;
    b.build_conditional_branch(ok, inline, slow)?;
    // Writes first: a read that touches no written granule (4 bytes) is
    // not recorded. A branch, weighted towards skipping, not a select:
    // the cursor must not wait for the bitmap load (a loop-carried chain
    // per read).
    b.position_at_end(inline);
    let filter = cx.append_basic_block(w, "filter");
    let record = cx.append_basic_block(w, "record");
    let marked = cx.append_basic_block(w, "marked");
    // (No filter, `wspan = 0`: straight to the record.)
    let wspan = b
        .build_load(i64t, gcur(fast::WSPAN)?, "wspan")?
        .into_int_value();
    let on = b.build_int_compare(IntPredicate::NE, wspan, i64t.const_zero(), "")?;
    b.build_conditional_branch(b.build_and(read, on, "")?, filter, record)?;
    b.position_at_end(filter);
    let skip = inline::unwritten_read(&b, lty, cur, (a, size64, aligned), wspan)?;
    let br = b.build_conditional_branch(skip, marked, record)?;
    let weights = cx.metadata_node(&[
        cx.metadata_string("branch_weights").into(),
        i32t.const_int(1000, false).into(),
        i32t.const_int(1, false).into(),
    ]);
    br.set_metadata(weights, cx.get_kind_id("prof"))
        .map_err(|e| PassError::Llvm(format!("branch weights: {e}")))?;
    // The record (address, slab, size): a read's at the cursor, which
    // advances by `step`; a write's just below the end, which moves down
    // (`is_write` is a constant at every call, so the selects fold).
    // Then the bank bits and counts.
    b.position_at_end(record);
    // SAFETY: `rp < re`, so the record below `re` is a free one.
    let below = unsafe { b.build_gep(i8t, re, &[i64t.const_int(-16i64 as u64, true)], "rec.w")? };
    let at = b
        .build_select(read, rp, below, "rec.at")?
        .into_pointer_value();
    let size_w = b.build_or(size, i32t.const_int(1 << 31, false), "")?;
    let size_w = b.build_select(read, size, size_w, "")?;
    b.build_store(at, a)?;
    let unit = b.build_load(i32t, gcur(fast::UNIT)?, "unit")?;
    // SAFETY: bytes 8 and 12 of the 16-byte record at `at`.
    let (pu, ps) = unsafe {
        (
            b.build_in_bounds_gep(i8t, at, &[i64t.const_int(8, false)], "")?,
            b.build_in_bounds_gep(i8t, at, &[i64t.const_int(12, false)], "")?,
        )
    };
    b.build_store(pu, unit)?;
    b.build_store(ps, size_w)?;
    let step = b.build_int_z_extend(step, i64t, "")?;
    // SAFETY: at most one past the last free record (`rp < re`).
    let next = unsafe { b.build_gep(i8t, rp, &[step], "rec.next")? };
    b.build_store(gcur(fast::RECS)?, b.build_select(read, next, rp, "")?)?;
    b.build_store(gcur(fast::RECS_END)?, b.build_select(read, re, below, "")?)?;
    b.build_unconditional_branch(marked)?;
    b.position_at_end(marked);
    inline::mark(module, w, &b, cur, (a, end, extra), done)?;
    // Hand the state back; the runtime records the access and refills it.
    b.position_at_end(slow);
    inline::hand_back(module, &b, st, cur)?;
    let f = rtabi::declare(module, RtFn::InspectChecked)?;
    let args: [BasicMetadataValueEnum<'ctx>; 6] = [
        h.into(),
        st.into(),
        k.into(),
        addr.into(),
        size.into(),
        is_write.into(),
    ];
    b.build_call(f, &args, "")?;
    inline::reload(module, &b, st, cur, k)?;
    b.build_unconditional_branch(done)?;
    b.position_at_end(done);
    b.build_return(None)?;
    Ok(w)
}

/// Declares (once per module) and returns the exit wrapper: writes back
/// word 0 and hands the counts of the inline path to the runtime when
/// there are any.
pub(super) fn flush_wrapper<'ctx>(module: &Module<'ctx>) -> Result<FunctionValue<'ctx>> {
    if let Some(w) = module.get_function(FLUSH) {
        return Ok(w);
    }
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let (sty, lty) = (fast_type(cx, false), fast_type(cx, true));
    let fty = cx
        .void_type()
        .fn_type(&[ptr.into(), ptr.into(), ptr.into()], false);
    let w = inline::always_inline(module, FLUSH, fty);
    let p = |i: u32| w.get_nth_param(i).expect("wrapper parameter");
    let (h, st, cur) = (p(0), p(1).into_pointer_value(), p(2).into_pointer_value());
    let b = cx.create_builder();
    let entry = cx.append_basic_block(w, "entry");
    b.position_at_end(entry);
    inline::write_back(module, &b, cur)?;
    let flush = cx.append_basic_block(w, "flush");
    let done = cx.append_basic_block(w, "done");
    let pr = b.build_struct_gep(lty, cur, fast::REPORTED, "")?;
    let pt = b.build_struct_gep(lty, cur, fast::TOUCHES, "")?;
    let r = b.build_load(i64t, pr, "reported")?.into_int_value();
    let t = b.build_load(i64t, pt, "touches")?;
    let any = b.build_int_compare(IntPredicate::NE, r, i64t.const_zero(), "")?;
    b.build_conditional_branch(any, flush, done)?;
    b.position_at_end(flush);
    b.build_store(b.build_struct_gep(sty, st, fast::REPORTED, "")?, r)?;
    b.build_store(b.build_struct_gep(sty, st, fast::TOUCHES, "")?, t)?;
    for j in [fast::RECS, fast::RECS_END] {
        let v = b.build_load(ptr, b.build_struct_gep(lty, cur, j, "")?, "")?;
        b.build_store(b.build_struct_gep(sty, st, j, "")?, v)?;
    }
    let f = rtabi::declare(module, RtFn::InspectFastFlush)?;
    b.build_call(f, &[h.into(), st.into()], "")?;
    b.build_store(pr, i64t.const_zero())?;
    b.build_store(pt, i64t.const_zero())?;
    b.build_unconditional_branch(done)?;
    b.position_at_end(done);
    b.build_return(None)?;
    Ok(w)
}

/// Declares (once per module and width of `P`) and returns the wrapper
/// of [`super::dedup::LineDedup::report_rows`]: `void (ptr h, i64 k, ptr at, i64
/// bytes, ptr line, i64 shift, ptr st, ptr cur, ptr done, ptr next, i64
/// end, ptr base, i64 stride)`. When `k < *done` the row was covered.
/// Otherwise it reports its own `[at, at + bytes)` through `report`
/// (which makes `k`'s slab current when the inline path records it);
/// then, if the inline path holds `k`'s slab, the rows `k + 1 .. e`,
/// `e` the slab's end (`slab_end`, not clipped to the inspected range:
/// a probe of the slab then sees the whole slab's streams), are reported
/// as the one range `[base + end * stride, base + next[e - k - 1] *
/// stride)` (when it is not empty), still in iteration `k`, whose slab
/// is theirs, and `*done = e`. `next[e - k - 1]` is `P[x + e - k]`, the
/// end bound the loop itself loads for row `e - 1` (a slab lies in the
/// loop's iteration range).
pub(super) fn rows_wrapper<'ctx>(
    module: &Module<'ctx>,
    report: FunctionValue<'ctx>,
    pbytes: u64,
) -> Result<FunctionValue<'ctx>> {
    let name = format!("{ROWS_WRAPPER}{}", pbytes * 8);
    if let Some(w) = module.get_function(&name) {
        return Ok(w);
    }
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    // The report wrapper's arguments up to `cur` (not `aligned`), then
    // `done, next, end, base, stride`.
    let mut params = report.get_type().get_param_types();
    params.truncate(8);
    let extra: [inkwell::types::BasicMetadataTypeEnum<'ctx>; 5] =
        [ptr.into(), ptr.into(), i64t.into(), ptr.into(), i64t.into()];
    params.extend(extra);
    let fty = cx.void_type().fn_type(&params, false);
    let w = inline::always_inline(module, &name, fty);
    let p = |i: u32| w.get_nth_param(i).expect("wrapper parameter");
    let (h, k, at, bytes, line, shift, st, cur) = (p(0), p(1), p(2), p(3), p(4), p(5), p(6), p(7));
    let k = k.into_int_value();
    let (done, next) = (p(8).into_pointer_value(), p(9).into_pointer_value());
    let (end, base, stride) = (
        p(10).into_int_value(),
        p(11).into_pointer_value(),
        p(12).into_int_value(),
    );
    let b = cx.create_builder();
    let entry = cx.append_basic_block(w, "entry");
    let own = cx.append_basic_block(w, "own");
    let slab = cx.append_basic_block(w, "slab");
    let rest = cx.append_basic_block(w, "rest");
    let more = cx.append_basic_block(w, "more");
    let out = cx.append_basic_block(w, "out");
    b.position_at_end(entry);
    let d = b.build_load(i64t, done, "done")?.into_int_value();
    let covered = b.build_int_compare(IntPredicate::SLT, k, d, "covered")?;
    b.build_conditional_branch(covered, out, own)?;
    // The row's own range (and `k`'s slab made current).
    b.position_at_end(own);
    let no = cx.bool_type().const_zero();
    let args = |a: BasicValueEnum<'ctx>, n: IntValue<'ctx>| -> [BasicMetadataValueEnum<'ctx>; 9] {
        [
            h.into(),
            k.into(),
            a.into(),
            n.into(),
            line.into(),
            shift.into(),
            st.into(),
            cur.into(),
            no.into(),
        ]
    };
    b.build_call(report, &args(at, bytes.into_int_value()), "")?;
    let cur = cur.into_pointer_value();
    let lty = fast_type(cx, true);
    let en = inline::inline_enabled(&b, cur)?;
    let held = b.build_and(en, inline::in_current_slab(&b, cur, k)?, "held")?;
    b.build_conditional_branch(held, slab, out)?;
    // The rows after `k` in its slab, up to the slab's end.
    b.position_at_end(slab);
    let e = b.build_load(i64t, b.build_struct_gep(lty, cur, fast::SLAB_END, "")?, "e")?;
    let e = e.into_int_value();
    b.build_store(done, e)?;
    let k1 = b.build_int_add(k, i64t.const_int(1, false), "")?;
    let any = b.build_int_compare(IntPredicate::SGT, e, k1, "")?;
    b.build_conditional_branch(any, rest, out)?;
    b.position_at_end(rest);
    let off = b.build_int_sub(e, k1, "")?;
    let pty = match pbytes {
        8 => i64t,
        _ => cx.i32_type(),
    };
    // SAFETY: `P[x + e - k]`, the end bound of row `e - 1`, which the
    // loop itself loads (`e <= hi`).
    let q = unsafe { b.build_gep(pty, next, &[off], "")? };
    let last = b.build_load(pty, q, "rows.end")?.into_int_value();
    let last = match pbytes {
        8 => last,
        _ => b.build_int_s_extend(last, i64t, "")?,
    };
    let grows = b.build_int_compare(IntPredicate::SGT, last, end, "")?;
    b.build_conditional_branch(grows, more, out)?;
    b.position_at_end(more);
    let from = b.build_int_mul(end, stride, "")?;
    // SAFETY: the first byte of row `k + 1`'s stream (the loop reads it
    // when that row is not empty).
    let a = unsafe { b.build_gep(cx.i8_type(), base, &[from], "rows.at")? };
    let n = b.build_int_mul(b.build_int_sub(last, end, "")?, stride, "rows.bytes")?;
    b.build_call(report, &args(a.into(), n), "")?;
    b.build_unconditional_branch(out)?;
    b.position_at_end(out);
    b.build_return(None)?;
    Ok(w)
}

/// Declares (once per module) and returns the gather wrapper: hands the
/// inline state back, calls `weft_inspect_gather`, and copies the state
/// the runtime left into the inspector's copy.
pub(super) fn gather_wrapper<'ctx>(module: &Module<'ctx>) -> Result<FunctionValue<'ctx>> {
    if let Some(w) = module.get_function(GATHER) {
        return Ok(w);
    }
    let cx = module.get_context();
    let (i64t, i32t) = (cx.i64_type(), cx.i32_type());
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let fty = cx.void_type().fn_type(
        &[
            ptr.into(),
            i64t.into(),
            ptr.into(),
            ptr.into(),
            i64t.into(),
            ptr.into(),
            ptr.into(),
            i64t.into(),
            i32t.into(),
            i32t.into(),
            i32t.into(),
        ],
        false,
    );
    let w = inline::always_inline(module, GATHER, fty);
    let p = |i: u32| w.get_nth_param(i).expect("wrapper parameter");
    let (st, cur) = (p(5).into_pointer_value(), p(6).into_pointer_value());
    let b = cx.create_builder();
    b.position_at_end(cx.append_basic_block(w, "entry"));
    inline::hand_back(module, &b, st, cur)?;
    let f = rtabi::declare(module, RtFn::InspectGather)?;
    let args: [BasicMetadataValueEnum<'ctx>; 10] = [
        p(0).into(),
        st.into(),
        p(1).into(),
        p(2).into(),
        p(3).into(),
        p(4).into(),
        p(10).into(),
        p(7).into(),
        p(8).into(),
        p(9).into(),
    ];
    b.build_call(f, &args, "")?;
    inline::reload(module, &b, st, cur, p(1).into_int_value())?;
    b.build_return(None)?;
    Ok(w)
}
