//! Emission (§4.4.1, Fig. 4.8(b)): replaces a decided loop by the executor
//! body, its inspector slice (and, for loops that need the dependence check,
//! the writes-only slice and the phase dispatcher, `docs/runtime.md` item 6),
//! the context-key cache, and the `weft_run_irregular(region, ...)` call with
//! the slab size (§4.5.1) or the Original one-slab-per-core schedule (§4.5).
//! Returns the applied remark's text.

use std::collections::HashSet;

use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicMetadataValueEnum, FunctionValue};
use inkwell::IntPredicate;

use super::key::{
    emit_context_cache, inspector_inputs, next_region_id, runtime_ids, CONTEXT_SLOTS,
};
use super::options::InsertInspector;
use super::reset::regions_dirty_flag;
use super::slice::{make_inspector_with, Reports};
use crate::error::{PassError, Result};
use crate::outline::{self, CloneKind, LoopPlan};
use crate::parallel::{self};
use crate::rtabi::{self, RtFn};
use crate::util;

pub(super) fn apply<'ctx>(
    module: &Module<'ctx>,
    plan: LoopPlan<'ctx>,
    opts: &InsertInspector,
    (needs_check, trusted): (bool, bool),
    unchecked_loads: &HashSet<util::ValueKey>,
    min_parallel_iters: u64,
    regions: &mut Vec<u32>,
) -> Result<String> {
    let (slab, original) = (opts.slab, opts.original);
    let body = outline::clone_body(module, &plan, CloneKind::Executor)?;
    // The Original schedule needs no inspector unless slabs may conflict.
    let with_inspector = !original || needs_check;
    let (insp_fn, nrep) = if with_inspector {
        let insp = outline::clone_body(module, &plan, CloneKind::Inspector)?;
        // The clone's loads of arrays the loop does not write.
        let unchecked: HashSet<util::ValueKey> = unchecked_loads
            .iter()
            .filter_map(|o| insp.map.get(o).map(util::key))
            .collect();
        let how = Reports {
            streams: opts.streams,
            row_streams: opts.row_streams,
            gathers: opts.gathers,
            inline_checked: opts.inline_checked,
            writes_only: false,
            trusted,
        };
        let n = make_inspector_with(module, insp.function, insp.k, needs_check, &unchecked, how)?;
        (Some(insp.function), n)
    } else {
        (None, 0)
    };
    // Loops that need the dependence check: the writes-only slice and the
    // entry that picks one of the two (the function the runtime calls).
    let writes_first = match (insp_fn, needs_check && opts.writes_first) {
        (Some(full), true) => {
            let w = outline::clone_body(module, &plan, CloneKind::Inspector)?;
            let name = format!("{}.writes", full.get_name().to_string_lossy());
            w.function.as_global_value().set_name(&name);
            let unchecked: HashSet<util::ValueKey> = unchecked_loads
                .iter()
                .filter_map(|o| w.map.get(o).map(util::key))
                .collect();
            let how = Reports {
                streams: false,
                row_streams: false,
                gathers: false,
                inline_checked: opts.inline_checked,
                writes_only: true,
                trusted: false,
            };
            make_inspector_with(module, w.function, w.k, true, &unchecked, how)?;
            Some((w.function, writes_first_dispatch(module, full, w.function)?))
        }
        _ => None,
    };
    let insp_entry = writes_first.map(|(_, d)| d).or(insp_fn);
    let region = next_region_id(module).max(regions.iter().max().map(|m| m + 1).unwrap_or(0));
    regions.push(region);
    let run = rtabi::declare(module, RtFn::RunIrregular)?;
    let inline = Some((body.function, min_parallel_iters));
    outline::replace_loop(module, &plan, inline, |site| {
        let cx = module.get_context();
        let region_v = if with_inspector {
            let maps_only = !needs_check && !opts.data_key;
            let used = insp_fn.and_then(|f| inspector_inputs(f, plan.live_ins.len(), maps_only));
            emit_context_cache(module, site, &plan, region, used.as_deref())?
        } else {
            // No schedule depends on the context: one runtime id. Mark the id as used.
            let g = module.add_global(cx.i8_type(), None, &format!("weft.region.{region}.last"));
            g.set_linkage(Linkage::Internal);
            g.set_initializer(&cx.i8_type().const_zero());
            cx.i32_type()
                .const_int((region * CONTEXT_SLOTS) as u64, false)
        };
        let i64t = cx.i64_type();
        let b = &site.builder;
        let slab_v = if original && needs_check {
            // One slab per core: Algorithm 4 then has a single choice per
            // core, the static contiguous chunk, and the runtime's slab DAG
            // orders chunks that conflict.
            let nc = rtabi::declare(module, RtFn::NumCores)?;
            let slot = outline::entry_alloca(module, b, cx.i32_type().into(), "weft.cores")?;
            b.build_store(slot, cx.i32_type().const_int(1, false))?;
            b.build_call(nc, &[slot.into()], "")?;
            let p = b.build_load(cx.i32_type(), slot, "")?.into_int_value();
            let p = b.build_int_z_extend(p, i64t, "")?;
            let one = i64t.const_int(1, false);
            let p = b
                .build_select(
                    b.build_int_compare(IntPredicate::UGT, p, one, "")?,
                    p,
                    one,
                    "",
                )?
                .into_int_value();
            let num = b.build_int_add(site.trip_count, b.build_int_sub(p, one, "")?, "")?;
            let q = b.build_int_signed_div(num, p, "")?;
            b.build_select(
                b.build_int_compare(IntPredicate::SGT, q, one, "")?,
                q,
                one,
                "weft.slab",
            )?
            .into_int_value()
        } else {
            i64t.const_int(slab, false)
        };
        let null = cx.ptr_type(inkwell::AddressSpace::default()).const_null();
        let args: [BasicMetadataValueEnum<'ctx>; 7] = [
            region_v.into(),
            i64t.const_zero().into(),
            site.trip_count.into(),
            slab_v.into(),
            insp_entry.map(outline::fn_ptr).unwrap_or(null).into(),
            outline::fn_ptr(body.function).into(),
            site.ctx.into(),
        ];
        let st = b
            .build_call(run, &args, "weft.status")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| PassError::Internal("weft_run_irregular returns void".into()))?
            .into_int_value();
        // The runtime may now hold a schedule of this module's regions: the
        // next reset point must reach it.
        let dirty = regions_dirty_flag(module);
        let set = b.build_store(dirty.as_pointer_value(), cx.i8_type().const_int(1, false))?;
        outline::relaxed(Some(set), 1)?;
        parallel::emit_sequential_fallback(module, site, body.function, st)
    })?;
    let bname = body.function.get_name().to_string_lossy().into_owned();
    // The ids the runtime's statistics (`WEFT_STATS`, `regions[].id`) use.
    let ids = runtime_ids(region);
    let stats = match insp_fn {
        Some(_) => format!(
            "WEFT_STATS ids {}-{}, one per cached context",
            ids.start,
            ids.end - 1
        ),
        None => format!("WEFT_STATS id {}", ids.start),
    };
    Ok(match (original, insp_fn) {
        (false, Some(i)) => format!(
            "inspector/executor: region {region} ({stats}), body @{bname}, inspector @{} ({nrep} access report(s)), slab {}{}{}",
            i.get_name().to_string_lossy(),
            if slab == 0 { "runtime default (1/50 of a core's iterations)".to_string() } else { format!("{slab} iterations") },
            if needs_check { ", runtime dependence check" } else { "" },
            match writes_first {
                Some((w, _)) => format!(", writes first (@{})", w.get_name().to_string_lossy()),
                None => String::new(),
            }
        ),
        (true, Some(i)) => format!(
            "executor form, original schedule (one slab per core): region {region} ({stats}), body @{bname}, inspector @{} for the runtime dependence check",
            i.get_name().to_string_lossy()
        ),
        _ => format!("executor form, original schedule (static chunks): region {region} ({stats}), body @{bname}"),
    })
}

/// The inspector entry of a loop with a writes-only slice:
/// `void <full>.phases(ctx, lo, hi, h)` asks the runtime which one to run
/// (`weft_inspect_writes_first(h, &w)`) and calls `writes` when `w != 0`,
/// else `full`. The runtime runs the slice over every chunk first; the
/// granules its writes touch let the full inspection keep only the reads
/// that can conflict (`RuntimeConfig::writes_first`).
pub(super) fn writes_first_dispatch<'ctx>(
    module: &Module<'ctx>,
    full: FunctionValue<'ctx>,
    writes: FunctionValue<'ctx>,
) -> Result<FunctionValue<'ctx>> {
    let cx = module.get_context();
    let name = format!("{}.phases", full.get_name().to_string_lossy());
    let f = module.add_function(&name, full.get_type(), Some(Linkage::Internal));
    let params = f.get_params();
    let names = ["ctx", "lo", "hi", "insp"];
    for (p, n) in params.iter().zip(names) {
        p.set_name(n);
    }
    let b = cx.create_builder();
    let entry = cx.append_basic_block(f, "entry");
    let slice = cx.append_basic_block(f, "writes");
    let all = cx.append_basic_block(f, "full");
    b.position_at_end(entry);
    let i32t = cx.i32_type();
    let slot = b.build_alloca(i32t, "weft.writes_only")?;
    b.build_store(slot, i32t.const_zero())?;
    let h = params
        .get(3)
        .ok_or_else(|| PassError::Internal("inspector without handle".into()))?;
    b.build_call(
        rtabi::declare(module, RtFn::InspectWritesFirst)?,
        &[(*h).into(), slot.into()],
        "",
    )?;
    let w = b.build_load(i32t, slot, "")?.into_int_value();
    let c = b.build_int_compare(IntPredicate::NE, w, i32t.const_zero(), "")?;
    b.build_conditional_branch(c, slice, all)?;
    let args: Vec<BasicMetadataValueEnum<'ctx>> = params.iter().map(|p| (*p).into()).collect();
    for (bb, callee) in [(slice, writes), (all, full)] {
        b.position_at_end(bb);
        b.build_call(callee, &args, "")?;
        b.build_return(None)?;
    }
    Ok(f)
}
