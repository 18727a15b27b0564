//! Region ids and schedule reuse (§4.4.1, "re-run it when they are
//! reassigned"): each static region owns [`CONTEXT_SLOTS`] runtime ids, the
//! live-ins a schedule depends on ([`inspector_inputs`]) are packed into an
//! `i64` key before the region call, and `weft_region_select` returns the id
//! whose cached schedule matches ([`emit_context_cache`]).

use std::collections::HashSet;

use inkwell::module::{Linkage, Module};
use inkwell::values::{
    BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue, IntValue,
};

use super::wrappers::{is_report_call, ROWS_WRAPPER};
use crate::error::{PassError, Result};
use crate::outline::{self, LoopPlan};
use crate::rtabi::{self, RtFn};
use crate::util;

/// Which live-ins of the context the schedule of an inspector made by
/// [`super::slice::make_inspector_with`] depends on: the clone's entry block loads live-in
/// `j` as its `j`-th load ([`outline::clone_body`]), and dead code
/// elimination has removed every use of a live-in that no reported address
/// or branch depends on. `None` when the entry block does not have exactly
/// `n` loads (then every live-in counts).
///
/// With `maps_only` (the loop is proven parallel, so its inspector only feeds
/// bank maps and every slab order is legal), a live-in that reaches nothing
/// but the address operand of report calls ([`only_reported_address`]: the
/// base of a data array such as SpMV's `x`, `val` and `y`) does not count
/// either: the schedule is kept per assignment of the values the inspector
/// reads (index arrays, bounds), as §4.4.1 keeps it per index-array
/// assignment, and reused when the same loop runs over other data arrays
/// (GMRES's Krylov vectors, CG's `p`). The reused schedule was computed from
/// the first data arrays' bank maps: the regular and index-array parts of the
/// maps are identical, the data arrays' banks shifted with their bases.
pub fn inspector_inputs(f: FunctionValue<'_>, n: usize, maps_only: bool) -> Option<Vec<bool>> {
    let entry = f.get_first_basic_block()?;
    let loads: Vec<_> = util::instructions(entry)
        .into_iter()
        .filter(|i| i.get_opcode() == InstructionOpcode::Load)
        .collect();
    (loads.len() == n).then(|| {
        loads
            .iter()
            .map(|l| l.get_first_use().is_some() && !(maps_only && only_reported_address(*l)))
            .collect()
    })
}

/// Whether every use of `v`, followed through address arithmetic (GEPs,
/// casts, integer arithmetic, phis, select values), ends in the address
/// operand of a report call: no load, store, comparison, branch or other
/// call sees it, so it changes which addresses are reported and nothing
/// else.
fn only_reported_address(v: InstructionValue<'_>) -> bool {
    use InstructionOpcode as O;
    let mut stack = vec![v];
    let mut seen = HashSet::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(util::key(&x)) {
            continue;
        }
        for user in util::unique_users(&x) {
            let uses_x = |k: u32| {
                util::value_operand(user, k).is_some_and(|o| util::key(&o) == util::key(&x))
            };
            match user.get_opcode() {
                O::GetElementPtr
                | O::BitCast
                | O::AddrSpaceCast
                | O::PtrToInt
                | O::IntToPtr
                | O::ZExt
                | O::SExt
                | O::Trunc
                | O::Add
                | O::Sub
                | O::Mul
                | O::Shl
                | O::And
                | O::Or
                | O::Xor
                | O::Phi
                | O::Freeze => stack.push(user),
                O::Select if !uses_x(0) => stack.push(user),
                // Every argument but the addresses (operand 2, and a row
                // stream's array, operand 11 of [`ROWS_WRAPPER`]): the
                // callee operand is last, after the arguments.
                O::Call if is_report_call(user) => {
                    let args = user.get_num_operands().saturating_sub(1);
                    let rows = util::callee_name(user).is_some_and(|n| n.starts_with(ROWS_WRAPPER));
                    let address = |a: u32| a == 2 || (rows && a == 11);
                    if (0..args).any(|a| !address(a) && uses_x(a)) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }
    true
}

/// Next free region id in the module (ids are unique per module).
pub(super) fn next_region_id(module: &Module<'_>) -> u32 {
    // Every transformed region owns a global `weft.region.<n>.last`.
    let mut next = 0u32;
    for g in module.get_globals() {
        let name = g.get_name().to_string_lossy().into_owned();
        if let Some(n) = name
            .strip_prefix("weft.region.")
            .and_then(|r| r.strip_suffix(".last"))
            .and_then(|n| n.parse::<u32>().ok())
        {
            next = next.max(n + 1);
        }
    }
    next
}

/// Context slots per region: a region executed with up to this many
/// different contexts (Gauss-Seidel colours, CG's `p` and `z`) keeps one
/// cached schedule per context instead of re-inspecting; the runtime
/// recycles the least recently used slot beyond that.
pub const CONTEXT_SLOTS: u32 = weft_runtime::runtime::CONTEXT_SLOTS;

/// The runtime region ids of region `base` (one per context slot).
pub fn runtime_ids(base: u32) -> std::ops::Range<u32> {
    base * CONTEXT_SLOTS..(base + 1) * CONTEXT_SLOTS
}

/// A live-in value as one `i64` key word (`None`: not comparable).
fn key_word<'ctx>(
    module: &Module<'ctx>,
    b: &inkwell::builder::Builder<'ctx>,
    v: BasicValueEnum<'ctx>,
) -> Result<Option<IntValue<'ctx>>> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    Ok(match v {
        BasicValueEnum::IntValue(x) => {
            let w = x.get_type().get_bit_width();
            if w > 64 {
                None
            } else if w == 64 {
                Some(x)
            } else {
                Some(b.build_int_z_extend(x, i64t, "")?)
            }
        }
        BasicValueEnum::PointerValue(x) => Some(b.build_ptr_to_int(x, i64t, "")?),
        BasicValueEnum::FloatValue(x) => {
            let bits = util::target_data(module).get_bit_size(&x.get_type()) as u32;
            if !(1..=64).contains(&bits) {
                return Ok(None);
            }
            let it = cx
                .custom_width_int_type(std::num::NonZeroU32::new(bits).expect("non-zero"))
                .map_err(|e| PassError::Llvm(e.to_string()))?;
            let xi = b.build_bit_cast(x, it, "")?.into_int_value();
            Some(if bits == 64 {
                xi
            } else {
                b.build_int_z_extend(xi, i64t, "")?
            })
        }
        // Aggregates and vectors: not comparable (a fresh slot every time).
        _ => None,
    })
}

/// Picks the runtime region id for this execution: packs the live-in values
/// of the context into an `i64` key and asks the runtime
/// (`weft_region_select`), which returns the id of the slot that saved the
/// same key or recycles the least recently used of the region's
/// [`CONTEXT_SLOTS`] slots (dropping its schedule). Returns the `i32` id.
///
/// With `used`, only the live-ins marked `true` enter the key: a schedule
/// depends only on the values its inspector reads (see
/// [`inspector_inputs`]), so a scalar such as a time-step number or a
/// coefficient that changes on every call does not force a re-inspection.
/// The key holds the used values only, taken from their SSA values (not
/// reloaded from the context): traced programs run this code before every
/// call, on the calling core (stun makes 40 k calls of ~40 iterations).
pub fn emit_context_cache<'ctx>(
    module: &Module<'ctx>,
    site: &outline::CallSite<'ctx>,
    plan: &LoopPlan<'ctx>,
    region: u32,
    used: Option<&[bool]>,
) -> Result<IntValue<'ctx>> {
    let cx = module.get_context();
    let b = &site.builder;
    let i32t = cx.i32_type();
    let i64t = cx.i64_type();
    let n = plan.live_ins.len() as u32;
    // Marks the region id as used in the module (see `next_region_id`).
    let g = module.add_global(cx.i8_type(), None, &format!("weft.region.{region}.last"));
    g.set_linkage(Linkage::Internal);
    g.set_initializer(&cx.i8_type().const_zero());
    let keyed: Vec<usize> = (0..n as usize)
        .filter(|&j| used.map_or(true, |u| u.get(j).copied().unwrap_or(true)))
        .collect();
    let n = keyed.len() as u32;
    let kty = i64t.array_type(n.max(1));
    let key = outline::entry_alloca(module, b, kty.into(), "weft.key")?;
    let mut comparable = true;
    for (k, &j) in keyed.iter().enumerate() {
        // The live-ins dominate the call site: they were stored into the
        // context in the loop's preheader.
        match key_word(module, b, plan.live_ins[j])? {
            Some(w) => {
                // SAFETY: in-bounds index (< n) into the key array.
                let pk = unsafe {
                    b.build_in_bounds_gep(
                        kty,
                        key,
                        &[i32t.const_zero(), i32t.const_int(k as u64, false)],
                        "",
                    )?
                };
                b.build_store(pk, w)?;
            }
            None => comparable = false,
        }
    }
    let first = region
        .checked_mul(CONTEXT_SLOTS)
        .ok_or_else(|| PassError::Internal(format!("region id {region} too large")))?;
    let out = outline::entry_alloca(module, b, i32t.into(), "weft.slot")?;
    b.build_store(out, i32t.const_int(first as u64, false))?;
    let sel = rtabi::declare(module, RtFn::RegionSelect)?;
    let key_arg = if comparable {
        key
    } else {
        cx.ptr_type(inkwell::AddressSpace::default()).const_null()
    };
    b.build_call(
        sel,
        &[
            i32t.const_int(region as u64, false).into(),
            key_arg.into(),
            i32t.const_int(n as u64, false).into(),
            out.into(),
        ],
        "",
    )?;
    Ok(b.build_load(i32t, out, "weft.region")?.into_int_value())
}
