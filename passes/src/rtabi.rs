//! Declarations of the runtime entry points the passes insert calls to.
//!
//! Every signature comes from the runtime's ABI listing
//! (`weft_runtime::abi`, mirrored by `runtime/include/weft_runtime.h`); this
//! module only maps its C types to LLVM types (all pointers, including
//! function pointers, are `ptr`; `intN_t`/`uintN_t` are `iN`; `void` is void)
//! and declares the function once per module.

use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::FunctionValue;
use inkwell::AddressSpace;

use weft_runtime::abi::{AbiFn, CType};

use crate::error::{PassError, Result};

/// The runtime entry points used by the passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtFn {
    /// `weft_trace_access(addr, size, is_write, gap)`.
    TraceAccess,
    /// `weft_parallel_for(lo, hi, body, ctx)`.
    ParallelFor,
    /// `weft_run_irregular(region, lo, hi, slab_iters, inspect, body, ctx)`.
    RunIrregular,
    /// `weft_run_affine(nest, lo, hi, ib_iters, scheme, insp, body, ctx)`.
    RunAffine,
    /// `weft_run_affine_desc(nest, lo, hi, ib_iters, scheme, desc, desc_len, body, ctx)`.
    RunAffineDesc,
    /// `weft_region_invalidate(region)`.
    RegionInvalidate,
    /// `weft_region_select(base, key, nkey, &out_id)`.
    RegionSelect,
    /// `weft_region_reset(base)`.
    RegionReset,
    /// `weft_inspect_access(h, iter, addr, size, is_write)`.
    InspectAccess,
    /// `weft_inspect_range(h, iter, addr, bytes)`.
    InspectRange,
    /// `weft_inspect_line_shift(h)`.
    InspectLineShift,
    /// `weft_inspect_maps_only(h)`.
    InspectMapsOnly,
    /// `weft_inspect_no_check(h)`.
    InspectNoCheck,
    /// `weft_inspect_writes_first(h, &out)`.
    InspectWritesFirst,
    /// `weft_inspect_fast(h, iter, st)`.
    InspectFast,
    /// `weft_inspect_fast_flush(h, st)`.
    InspectFastFlush,
    /// `weft_inspect_checked(h, st, iter, addr, size, is_write)`.
    InspectChecked,
    /// `weft_inspect_gather(h, st, iter, base, idx, n, idx_bytes, scale, size, is_write)`.
    InspectGather,
    /// `weft_trace_reads(addr, n, size, gap)`.
    TraceReads,
    /// `weft_trace_compute(n)`.
    TraceCompute,
    /// `weft_num_cores(&out)`.
    NumCores,
    /// `weft_grain_hint(&out)`.
    GrainHint,
    /// `weft_alias_check(site, passed)`.
    AliasCheck,
}

impl RtFn {
    /// The C symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            RtFn::TraceAccess => "weft_trace_access",
            RtFn::ParallelFor => "weft_parallel_for",
            RtFn::RunIrregular => "weft_run_irregular",
            RtFn::RunAffine => "weft_run_affine",
            RtFn::RunAffineDesc => "weft_run_affine_desc",
            RtFn::RegionInvalidate => "weft_region_invalidate",
            RtFn::RegionSelect => "weft_region_select",
            RtFn::RegionReset => "weft_region_reset",
            RtFn::InspectAccess => "weft_inspect_access",
            RtFn::InspectRange => "weft_inspect_range",
            RtFn::InspectLineShift => "weft_inspect_line_shift",
            RtFn::InspectMapsOnly => "weft_inspect_maps_only",
            RtFn::InspectNoCheck => "weft_inspect_no_check",
            RtFn::InspectWritesFirst => "weft_inspect_writes_first",
            RtFn::InspectFast => "weft_inspect_fast",
            RtFn::InspectFastFlush => "weft_inspect_fast_flush",
            RtFn::InspectChecked => "weft_inspect_checked",
            RtFn::InspectGather => "weft_inspect_gather",
            RtFn::TraceReads => "weft_trace_reads",
            RtFn::TraceCompute => "weft_trace_compute",
            RtFn::NumCores => "weft_num_cores",
            RtFn::GrainHint => "weft_grain_hint",
            RtFn::AliasCheck => "weft_alias_check",
        }
    }
}

/// The runtime's listing entry of a symbol.
pub fn abi_entry(symbol: &str) -> Result<&'static AbiFn> {
    weft_runtime::abi::ABI
        .iter()
        .find(|s| s.name == symbol)
        .ok_or_else(|| PassError::MissingRuntimeSymbol(symbol.to_string()))
}

fn llvm_type<'ctx>(
    cx: inkwell::context::ContextRef<'ctx>,
    t: CType,
) -> Option<BasicTypeEnum<'ctx>> {
    Some(match t {
        CType::Void => return None,
        CType::I32 | CType::U32 => cx.i32_type().into(),
        CType::I64 | CType::U64 => cx.i64_type().into(),
        CType::Ptr => cx.ptr_type(AddressSpace::default()).into(),
    })
}

/// Declares (or returns the existing declaration of) a runtime function in `module`.
pub fn declare<'ctx>(module: &Module<'ctx>, f: RtFn) -> Result<FunctionValue<'ctx>> {
    let name = f.symbol();
    if let Some(existing) = module.get_function(name) {
        return Ok(existing);
    }
    let e = abi_entry(name)?;
    let cx = module.get_context();
    let mut ps: Vec<BasicMetadataTypeEnum<'ctx>> = Vec::new();
    for (pname, t) in e.params {
        match llvm_type(cx, *t) {
            Some(t) => ps.push(t.into()),
            None => {
                return Err(PassError::Internal(format!(
                    "runtime ABI: `{name}` has a void parameter `{pname}`"
                )))
            }
        }
    }
    let fty = match llvm_type(cx, e.ret) {
        None => cx.void_type().fn_type(&ps, false),
        Some(t) => t.fn_type(&ps, false),
    };
    Ok(module.add_function(name, fty, Some(Linkage::External)))
}
