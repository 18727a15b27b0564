//! The address slice (§4.4.1, "the inspector ... records the addresses"):
//! turns a clone of the loop body into the inspector `void inspect(ctx, lo,
//! hi, h)`. Every load and store becomes a report of its address (regular and
//! irregular references alike, §4.4.5), stores are dropped, and only the
//! instructions an address or a branch needs survive. Report sites are
//! grouped first ([`super::sites`]: streams, gathers, coalesced runs) and
//! emitted through the line-dedup wrappers ([`super::dedup`]). Also used by
//! the affine passes of chapter 5, whose runtime entry takes the same
//! inspector type.

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::core::{LLVMGetPoison, LLVMReplaceAllUsesWith, LLVMTypeOf};
use inkwell::module::Module;
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValueEnum, FunctionValue, InstructionOpcode,
    InstructionValue, IntValue, PhiValue,
};

use super::dedup::LineDedup;
use super::sites::{before_counted_loop, coalesced_runs, inner_gathers, inner_streams, Run};
use super::wrappers::is_report_call;
use crate::error::{PassError, Result};
use crate::rtabi::{self, RtFn};
use crate::util;

/// Pointer, size and kind of a memory instruction.
fn mem_op<'ctx>(
    i: InstructionValue<'ctx>,
    td: &inkwell::targets::TargetData,
) -> Option<(BasicValueEnum<'ctx>, u64, bool)> {
    match i.get_opcode() {
        InstructionOpcode::Load => {
            let p = util::value_operand(i, 0)?;
            let t = util::basic_type_of(i)?;
            Some((p, td.get_store_size(&t), false))
        }
        InstructionOpcode::Store => {
            let v = util::value_operand(i, 0)?;
            let p = util::value_operand(i, 1)?;
            Some((p, td.get_store_size(&v.get_type()), true))
        }
        _ => None,
    }
}

/// Instructions of the loop needed to compute addresses and branch conditions.
pub(super) fn address_slice<'ctx>(
    insts: &[InstructionValue<'ctx>],
    in_scope: &dyn Fn(InstructionValue<'ctx>) -> bool,
) -> HashSet<util::ValueKey> {
    let mut marked = HashSet::new();
    let mut work: Vec<InstructionValue<'ctx>> = Vec::new();
    let push = |v: BasicValueEnum<'ctx>, work: &mut Vec<InstructionValue<'ctx>>| {
        if let Some(d) = util::as_instruction(v) {
            work.push(d);
        }
    };
    for &i in insts {
        match i.get_opcode() {
            InstructionOpcode::Load => {
                if let Some(p) = util::value_operand(i, 0) {
                    push(p, &mut work)
                }
            }
            InstructionOpcode::Store => {
                if let Some(p) = util::value_operand(i, 1) {
                    push(p, &mut work)
                }
            }
            InstructionOpcode::Br | InstructionOpcode::Switch => {
                if let Some(c) = util::value_operand(i, 0) {
                    push(c, &mut work)
                }
            }
            InstructionOpcode::Call if is_report_call(i) => {
                work.push(i);
            }
            _ => {}
        }
    }
    while let Some(i) = work.pop() {
        if !in_scope(i) || !marked.insert(util::key(&i)) {
            continue;
        }
        if i.get_opcode() == InstructionOpcode::Phi {
            if let Ok(phi) = PhiValue::try_from(i) {
                for j in 0..phi.count_incoming() {
                    if let Some((v, _)) = phi.get_incoming(j) {
                        push(v, &mut work);
                    }
                }
            }
        } else {
            for v in util::value_operands(i) {
                push(v, &mut work);
            }
        }
    }
    marked
}

/// Turns a clone made with [`crate::outline::CloneKind::Inspector`] into the inspector:
/// report every access with `weft_inspect_access(h, k, addr, size, is_write)`,
/// drop stores, delete everything not needed for addresses and control flow.
/// Returns the number of report calls. (Also used by the affine passes, whose
/// runtime entry takes the same inspector type.)
pub fn make_inspector<'ctx>(
    module: &Module<'ctx>,
    f: FunctionValue<'ctx>,
    k: IntValue<'ctx>,
) -> Result<usize> {
    make_inspector_with(module, f, k, true, &HashSet::new(), Reports::default())
}

/// How [`make_inspector_with`] reports (the options of `insert-inspector`
/// of the same names; all off: every report calls the runtime, as affine
/// inspectors do).
#[derive(Clone, Copy, Debug, Default)]
pub struct Reports {
    /// Inner loops' streaming loads as one range ([`inner_streams`]).
    pub streams: bool,
    /// With `streams`: a CSR loop's row streams once per slab ([`super::sites::csr_rows`]).
    pub row_streams: bool,
    /// Inner loops' gathered reads as one runtime call ([`inner_gathers`]).
    pub gathers: bool,
    /// Checked reads recorded inline ([`super::wrappers::CHECKED`]).
    pub inline_checked: bool,
    /// Report the checked writes only (the writes-only slice of
    /// [`super::emit::writes_first_dispatch`]); every other access is dropped, and the
    /// loads that fed only those reports go with it.
    pub writes_only: bool,
    /// The loop is parallel by its annotation (`trust-annotations`), not by
    /// proof: its inspector does not declare `weft_inspect_maps_only`, so
    /// the runtime treats it as it treats loops whose inspections are costly
    /// (the lazy first execution of `WEFT_LAZY_INSPECT=checked`, one call
    /// per chunk instead of probes). The annotated loops write through index
    /// arrays, so an inspection costs about one execution (miniFE's
    /// assembly, which runs once) and their bank maps seldom fill.
    pub trusted: bool,
}

/// [`make_inspector`] for irregular regions. With `report_writes == false`
/// (the loop is proven parallel) every access is reported as unchecked
/// (`is_write = 2`): the runtime's dependence check has nothing to find and
/// is skipped. With `report_writes`, the loads in `unchecked` (keys of the
/// clone's instructions: loads of arrays the loop does not write) are
/// reported as unchecked and the others as reads or writes. Unchecked
/// reports go through the per-iteration line deduplication of [`LineDedup`];
/// with `how.streams`, those of [`inner_streams`] become one range report
/// per entry of their loop. With `how.inline_checked`, checked reports go
/// through [`super::wrappers::CHECKED`] (reads recorded inline).
pub fn make_inspector_with<'ctx>(
    module: &Module<'ctx>,
    f: FunctionValue<'ctx>,
    k: IntValue<'ctx>,
    report_writes: bool,
    unchecked: &HashSet<util::ValueKey>,
    how: Reports,
) -> Result<usize> {
    let td = util::target_data(module);
    let cx = module.get_context();
    let i32t = cx.i32_type();
    let h = f
        .get_nth_param(3)
        .ok_or_else(|| PassError::Internal("inspector without handle".into()))?;
    let b = cx.create_builder();
    let entry = f.get_first_basic_block();
    // The memory operations of the loop, found before anything is inserted.
    let ops: Vec<_> = f
        .get_basic_blocks()
        .into_iter()
        .filter(|bb| Some(*bb) != entry)
        .flat_map(util::instructions)
        .filter_map(|i| mem_op(i, &td).map(|(p, size, w)| (i, p, size, w)))
        .collect();
    // Accesses that only feed the bank maps are deduplicated per line.
    let is_unchecked = |i: &InstructionValue<'ctx>, w: bool| {
        !report_writes || (!w && unchecked.contains(&util::key(i)))
    };
    // The writes-only slice reports checked writes and nothing else.
    let reported = |w: bool| !how.writes_only || (w && report_writes);
    let inline_checked = how.inline_checked
        && ops
            .iter()
            .any(|(i, _, _, w)| !is_unchecked(i, *w) && reported(*w));
    let unchecked_reports = ops
        .iter()
        .any(|(i, _, _, w)| is_unchecked(i, *w) && reported(*w));
    let mut dedup = match inline_checked || unchecked_reports {
        true => Some(LineDedup::new(module, f, k, h)?),
        false => None,
    };
    if !report_writes {
        // Bank maps only: the runtime may skip the rest of a slab whose map
        // is full (`weft_inspect_maps_only`). A loop parallel by annotation
        // declares only that it needs no check (`weft_inspect_no_check`).
        let term = entry
            .and_then(|e| e.get_terminator())
            .ok_or_else(|| PassError::Internal("inspector entry without terminator".into()))?;
        b.position_before(&term);
        let decl = if how.trusted {
            RtFn::InspectNoCheck
        } else {
            RtFn::InspectMapsOnly
        };
        b.build_call(rtabi::declare(module, decl)?, &[h.into()], "")?;
    }
    // Unchecked accesses of one block at constant offsets from one base
    // that cover a contiguous byte range are reported once, as that range.
    let runs = if dedup.is_some() && !how.writes_only {
        coalesced_runs(
            &ops,
            &|i: &InstructionValue<'ctx>, w| is_unchecked(i, w),
            &td,
        )
    } else {
        HashMap::new()
    };
    // Unchecked loads streaming through an array in an inner counted loop
    // are reported once per entry of the loop, as the whole stretch.
    let streams = match dedup.is_some() && how.streams && !how.writes_only {
        true => inner_streams(
            &ops,
            &|i: &InstructionValue<'ctx>, w| is_unchecked(i, w),
            &td,
            k,
        ),
        false => HashMap::new(),
    };
    // (An access coalesced into a run is reported with its run.)
    let streams: HashMap<_, _> = streams
        .into_iter()
        .filter(|(key, _)| !runs.contains_key(key))
        .collect();
    // Checked reads `base[idx[j]]` of an inner counted loop are reported
    // with one call before the loop, which reads `idx` itself, where they
    // would be recorded inline, in loops that report no checked write (the
    // reads then move ahead of no write of their iteration). Unchecked ones
    // keep their per-site line memory, which skips most of them for the
    // price of a compare (one call per row cost more on the SpMV rows of
    // gmres, minife and hpcg: 1.09 -> 1.58, 0.61 -> 0.84, 0.61 -> 0.78 ms
    // per inspection).
    let gathers = match dedup.is_some() && how.gathers && inline_checked && !how.writes_only {
        true => {
            let write_blocks: HashSet<usize> = ops
                .iter()
                .filter(|(_, _, _, w)| *w && report_writes)
                .filter_map(|(i, _, _, _)| i.get_parent().map(util::bkey))
                .collect();
            let eligible = |i: &InstructionValue<'ctx>| {
                !is_unchecked(i, false)
                    && !runs.contains_key(&util::key(i))
                    && i.get_parent()
                        .is_some_and(|h| !write_blocks.contains(&util::bkey(h)))
            };
            inner_gathers(&ops, &eligible, &td, k)
        }
        false => HashMap::new(),
    };
    // An access of at most 16 bytes aligned to its power-of-two size lies
    // in one line (the runtime's lines are at least 16 bytes wherever the
    // inline path is enabled).
    let aligned = |i: &InstructionValue<'ctx>, size: u64| {
        size.is_power_of_two() && size <= 16 && i.get_alignment().is_ok_and(|a| a as u64 >= size)
    };
    let i8t = cx.i8_type();
    let mut stores = Vec::new();
    for &(i, p, size, w) in &ops {
        if !reported(w) {
            if w {
                stores.push(i);
            }
            continue;
        }
        b.position_before(&i);
        if let (Some(d), Some(g)) = (&mut dedup, gathers.get(&util::key(&i))) {
            let span = (g.start, g.end, g.idx_bytes);
            let names = ("weft.gather.off", "weft.gather.idx", "weft.gather.n");
            let (idx, n) = before_counted_loop(&b, g.pre, g.idx, span, names)?;
            // (Only checked reads are gathered: `is_write` 0.)
            d.report_gather(
                &b,
                k,
                g.base,
                idx.into(),
                n,
                (g.scale, size, 0, g.idx_bytes),
            )?;
            continue;
        }
        if let (Some(d), Some(st)) = (&mut dedup, streams.get(&util::key(&i))) {
            let span = (st.start, st.end, st.stride);
            let names = ("weft.stream.off", "weft.stream", "weft.stream.n");
            let (at, n) = before_counted_loop(&b, st.pre, st.base, span, names)?;
            let stride = cx.i64_type().const_int(st.stride, false);
            let bytes = b.build_int_mul(n, stride, "weft.stream.bytes")?;
            match (&st.rows, how.row_streams) {
                (Some(r), true) => {
                    let rows = (r.next, r.bytes, st.end, st.base, st.stride);
                    d.report_rows(&b, k, (at, bytes), rows)?
                }
                _ => d.report_bytes(&b, h, k, at.into(), bytes, false)?,
            }
            continue;
        }
        match &mut dedup {
            Some(d) if is_unchecked(&i, w) => match runs.get(&util::key(&i)) {
                None => d.report(&b, h, k, p, size, aligned(&i, size))?,
                Some(Run::Covered) => {}
                Some(&Run::Leader { base, offset, size }) => {
                    let at = if offset == 0 {
                        base.into_pointer_value()
                    } else {
                        let off = cx.i64_type().const_int(offset as u64, true);
                        // SAFETY: an in-bounds byte offset the loop itself accesses.
                        unsafe { b.build_gep(i8t, base.into_pointer_value(), &[off], "weft.span")? }
                    };
                    d.report(&b, h, k, at.into(), size, false)?
                }
            },
            Some(d) if inline_checked => {
                // (The runtime takes a checked access of 0 bytes as 1 byte.)
                let size = size.clamp(1, (1 << 31) - 1);
                d.report_checked(&b, k, p, size, aligned(&i, size), w)?
            }
            _ => {
                let report = rtabi::declare(module, RtFn::InspectAccess)?;
                let args: [BasicMetadataValueEnum<'ctx>; 5] = [
                    h.into(),
                    k.into(),
                    p.into(),
                    i32t.const_int(size, false).into(),
                    i32t.const_int(w as u64, false).into(),
                ];
                b.build_call(report, &args, "")?;
            }
        }
        if w {
            stores.push(i);
        }
    }
    let n = ops.len();
    for s in stores {
        s.erase_from_basic_block();
    }
    // Mark-sweep dead code elimination over the whole function.
    let all: Vec<InstructionValue<'ctx>> = f
        .get_basic_blocks()
        .into_iter()
        .filter(|bb| Some(*bb) != entry)
        .flat_map(util::instructions)
        .collect();
    let live = address_slice(&all, &|_| true);
    let dead: Vec<InstructionValue<'ctx>> = all
        .iter()
        .copied()
        .filter(|i| !i.is_terminator() && !live.contains(&util::key(i)) && !is_report_call(*i))
        .collect();
    // SAFETY: dead values are used only by other dead values; poison first, then erase.
    unsafe {
        for i in &dead {
            let r = i.as_value_ref();
            if util::basic_value(r).is_some() {
                LLVMReplaceAllUsesWith(r, LLVMGetPoison(LLVMTypeOf(r)));
            }
        }
    }
    for i in dead {
        i.erase_from_basic_block();
    }
    if let Some(d) = dedup {
        d.finish(&b)?;
    }
    Ok(n)
}
