//! The C ABI of `libweft_runtime.a`: every exported symbol, its C prototype in
//! [`ABI`] (the compiler passes declare their calls from this listing, and a test
//! checks `include/weft_runtime.h` against it), and the implementations.
//!
//! Rules: every entry point catches panics (`catch_unwind`) so nothing unwinds
//! into C; every function returns a status code (`WEFT_OK` = 0, see
//! [`Status`]) except `weft_last_error`, which returns the message of the calling
//! thread's last failure (or an empty string). Null or inconsistent arguments
//! return `WEFT_ERR_NULL` / `WEFT_ERR_INVALID`. The runtime is configured from the
//! environment on first use: `WEFT_CORES`, `WEFT_TRACE`, `WEFT_STATS`,
//! `WEFT_MACHINE`, `WEFT_SLOT_BARRIER`, `WEFT_MIN_PARALLEL_NS`, `WEFT_REINSPECT_LIMIT`, `WEFT_MISS_FILTER`, `WEFT_INSPECT_INLINE`, `WEFT_INSPECT_SATURATE`, `WEFT_LAZY_INSPECT` (see [`crate::runtime::RuntimeConfig`]).
//! When `WEFT_TRACE` or `WEFT_STATS` is set, an `atexit` handler flushes the
//! trace and writes the statistics.
//!
//! Faults (docs/runtime.md, *Faults*): compiled callers run a loop
//! sequentially when a region call returns an error, so an error status
//! always means that no iteration ran. A failure after the region ran
//! iterations, an I/O error writing the trace or the statistics, and a bad
//! setting in the environment do not return: the runtime prints `weft
//! runtime: <cause>` to stderr and ends the process with status
//! [`FATAL_EXIT`] (without running the program's exit handlers). Settings are
//! read and checked at program start-up (`.init_array`), or at the first
//! call when the library was linked without that entry.
//!
//! Safety contract (why these `extern "C"` functions are not `unsafe fn`,
//! and clippy's `not_unsafe_ptr_arg_deref` is allowed here): they are called
//! from C, where `unsafe` means nothing, and each checks its pointers for null
//! before use. The caller guarantees what C callers always must: a non-null
//! pointer points to a live object of the documented type and size (handles
//! come from this library, arrays hold the stated count, strings are
//! NUL-terminated) for the duration of the call.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use crate::runtime::Inspector;
use std::ffi::c_void;

/// Status codes returned by the C ABI.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Success.
    Ok = 0,
    /// A required pointer argument was null.
    Null = 1,
    /// An argument is out of range or inconsistent.
    Invalid = 2,
    /// The dependence graph is cyclic or a schedule breaks a dependence.
    Dependence = 3,
    /// I/O failure (trace or statistics file).
    Io = 4,
    /// A callback panicked or the runtime hit an internal error.
    Internal = 5,
    /// The machine configuration could not be loaded.
    Machine = 6,
    /// The request is not supported (e.g. the exact solver's budget was exceeded).
    Unsupported = 7,
}

/// C type of a parameter or return value in [`ABI`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CType {
    /// `void` (return only).
    Void,
    /// `int32_t`.
    I32,
    /// `uint32_t`.
    U32,
    /// `int64_t`.
    I64,
    /// `uint64_t`.
    U64,
    /// Any pointer (`void *`, `const void *`, function pointers, handles, `char *`).
    Ptr,
}

/// One exported function.
#[derive(Clone, Copy, Debug)]
pub struct AbiFn {
    /// Symbol name.
    pub name: &'static str,
    /// Return type.
    pub ret: CType,
    /// Parameter names and types.
    pub params: &'static [(&'static str, CType)],
    /// Exact prototype as written in `include/weft_runtime.h` (without `;`).
    pub c_proto: &'static str,
}

use CType::*;

/// Every exported symbol of the runtime, in header order.
pub const ABI: &[AbiFn] = &[
    AbiFn {
        name: "weft_last_error",
        ret: Ptr,
        params: &[],
        c_proto: "const char *weft_last_error(void)",
    },
    AbiFn {
        name: "weft_num_cores",
        ret: I32,
        params: &[("out_cores", Ptr)],
        c_proto: "int32_t weft_num_cores(uint32_t *out_cores)",
    },
    AbiFn {
        name: "weft_grain_hint",
        ret: I32,
        params: &[("out_min_iters", Ptr)],
        c_proto: "int32_t weft_grain_hint(int64_t *out_min_iters)",
    },
    AbiFn {
        name: "weft_alias_check",
        ret: I32,
        params: &[("site", Ptr), ("passed", I32)],
        c_proto: "int32_t weft_alias_check(int64_t *site, int32_t passed)",
    },
    AbiFn {
        name: "weft_parallel_for",
        ret: I32,
        params: &[("lo", I64), ("hi", I64), ("body", Ptr), ("ctx", Ptr)],
        c_proto: "int32_t weft_parallel_for(int64_t lo, int64_t hi, weft_body_fn body, void *ctx)",
    },
    AbiFn {
        name: "weft_run_irregular",
        ret: I32,
        params: &[
            ("region_id", U32),
            ("lo", I64),
            ("hi", I64),
            ("slab_iters", I64),
            ("insp", Ptr),
            ("body", Ptr),
            ("ctx", Ptr),
        ],
        c_proto: "int32_t weft_run_irregular(uint32_t region_id, int64_t lo, int64_t hi, int64_t slab_iters, weft_inspect_fn insp, weft_body_fn body, void *ctx)",
    },
    AbiFn {
        name: "weft_run_affine",
        ret: I32,
        params: &[
            ("nest_id", U32),
            ("lo", I64),
            ("hi", I64),
            ("ib_iters", I64),
            ("scheme", U32),
            ("insp", Ptr),
            ("body", Ptr),
            ("ctx", Ptr),
        ],
        c_proto: "int32_t weft_run_affine(uint32_t nest_id, int64_t lo, int64_t hi, int64_t ib_iters, uint32_t scheme, weft_inspect_fn insp, weft_body_fn body, void *ctx)",
    },
    AbiFn {
        name: "weft_run_affine_desc",
        ret: I32,
        params: &[
            ("nest_id", U32),
            ("lo", I64),
            ("hi", I64),
            ("ib_iters", I64),
            ("scheme", U32),
            ("desc", Ptr),
            ("desc_len", I64),
            ("body", Ptr),
            ("ctx", Ptr),
        ],
        c_proto: "int32_t weft_run_affine_desc(uint32_t nest_id, int64_t lo, int64_t hi, int64_t ib_iters, uint32_t scheme, const int64_t *desc, int64_t desc_len, weft_body_fn body, void *ctx)",
    },
    AbiFn {
        name: "weft_region_invalidate",
        ret: I32,
        params: &[("region_id", U32)],
        c_proto: "int32_t weft_region_invalidate(uint32_t region_id)",
    },
    AbiFn {
        name: "weft_region_select",
        ret: I32,
        params: &[
            ("base", U32),
            ("key", Ptr),
            ("nkey", U32),
            ("out_id", Ptr),
        ],
        c_proto: "int32_t weft_region_select(uint32_t base, const uint64_t *key, uint32_t nkey, uint32_t *out_id)",
    },
    AbiFn {
        name: "weft_region_reset",
        ret: I32,
        params: &[("base", U32)],
        c_proto: "int32_t weft_region_reset(uint32_t base)",
    },
    AbiFn {
        name: "weft_inspect_access",
        ret: I32,
        params: &[
            ("h", Ptr),
            ("iter", I64),
            ("addr", Ptr),
            ("size", U32),
            ("is_write", U32),
        ],
        c_proto: "int32_t weft_inspect_access(weft_inspector_t *h, int64_t iter, const void *addr, uint32_t size, uint32_t is_write)",
    },
    AbiFn {
        name: "weft_inspect_range",
        ret: I32,
        params: &[("h", Ptr), ("iter", I64), ("addr", Ptr), ("bytes", U64)],
        c_proto: "int32_t weft_inspect_range(weft_inspector_t *h, int64_t iter, const void *addr, uint64_t bytes)",
    },
    AbiFn {
        name: "weft_inspect_line_shift",
        ret: I32,
        params: &[("h", Ptr), ("out_shift", Ptr)],
        c_proto: "int32_t weft_inspect_line_shift(const weft_inspector_t *h, uint32_t *out_shift)",
    },
    AbiFn {
        name: "weft_inspect_maps_only",
        ret: I32,
        params: &[("h", Ptr)],
        c_proto: "int32_t weft_inspect_maps_only(weft_inspector_t *h)",
    },
    AbiFn {
        name: "weft_inspect_no_check",
        ret: I32,
        params: &[("h", Ptr)],
        c_proto: "int32_t weft_inspect_no_check(weft_inspector_t *h)",
    },
    AbiFn {
        name: "weft_inspect_writes_first",
        ret: I32,
        params: &[("h", Ptr), ("out_writes_only", Ptr)],
        c_proto: "int32_t weft_inspect_writes_first(weft_inspector_t *h, uint32_t *out_writes_only)",
    },
    AbiFn {
        name: "weft_inspect_fast",
        ret: I32,
        params: &[("h", Ptr), ("iter", I64), ("st", Ptr)],
        c_proto: "int32_t weft_inspect_fast(weft_inspector_t *h, int64_t iter, weft_inspect_fast_t *st)",
    },
    AbiFn {
        name: "weft_inspect_checked",
        ret: I32,
        params: &[
            ("h", Ptr),
            ("st", Ptr),
            ("iter", I64),
            ("addr", Ptr),
            ("size", U32),
            ("is_write", U32),
        ],
        c_proto: "int32_t weft_inspect_checked(weft_inspector_t *h, weft_inspect_fast_t *st, int64_t iter, const void *addr, uint32_t size, uint32_t is_write)",
    },
    AbiFn {
        name: "weft_inspect_gather",
        ret: I32,
        params: &[
            ("h", Ptr),
            ("st", Ptr),
            ("iter", I64),
            ("base", Ptr),
            ("idx", Ptr),
            ("n", U64),
            ("idx_bytes", U32),
            ("scale", I64),
            ("size", U32),
            ("is_write", U32),
        ],
        c_proto: "int32_t weft_inspect_gather(weft_inspector_t *h, weft_inspect_fast_t *st, int64_t iter, const void *base, const void *idx, uint64_t n, uint32_t idx_bytes, int64_t scale, uint32_t size, uint32_t is_write)",
    },
    AbiFn {
        name: "weft_inspect_fast_flush",
        ret: I32,
        params: &[("h", Ptr), ("st", Ptr)],
        c_proto: "int32_t weft_inspect_fast_flush(weft_inspector_t *h, weft_inspect_fast_t *st)",
    },
    AbiFn {
        name: "weft_trace_access",
        ret: I32,
        params: &[("addr", Ptr), ("size", U32), ("is_write", U32), ("gap", U32)],
        c_proto: "int32_t weft_trace_access(const void *addr, uint32_t size, uint32_t is_write, uint32_t gap)",
    },
    AbiFn {
        name: "weft_trace_reads",
        ret: I32,
        params: &[("addr", Ptr), ("n", U64), ("size", U32), ("gap", U32)],
        c_proto: "int32_t weft_trace_reads(const void *addr, uint64_t n, uint32_t size, uint32_t gap)",
    },
    AbiFn {
        name: "weft_trace_compute",
        ret: I32,
        params: &[("n", U32)],
        c_proto: "int32_t weft_trace_compute(uint32_t n)",
    },
    AbiFn {
        name: "weft_trace_finish",
        ret: I32,
        params: &[],
        c_proto: "int32_t weft_trace_finish(void)",
    },
    AbiFn {
        name: "weft_stats_flush",
        ret: I32,
        params: &[],
        c_proto: "int32_t weft_stats_flush(void)",
    },
    AbiFn {
        name: "weft_bank_of",
        ret: I32,
        params: &[("addr", Ptr), ("out_mem_bank", Ptr), ("out_llc_bank", Ptr)],
        c_proto: "int32_t weft_bank_of(const void *addr, uint32_t *out_mem_bank, uint32_t *out_llc_bank)",
    },
    AbiFn {
        name: "weft_num_banks",
        ret: I32,
        params: &[("out_mem_banks", Ptr), ("out_llc_banks", Ptr)],
        c_proto: "int32_t weft_num_banks(uint32_t *out_mem_banks, uint32_t *out_llc_banks)",
    },
    AbiFn {
        name: "weft_schedule_slabs",
        ret: I32,
        params: &[
            ("cores", U32),
            ("banks", U32),
            ("slabs_per_core", Ptr),
            ("bankmaps", Ptr),
            ("out_order", Ptr),
            ("out_coverage", Ptr),
            ("out_slots", Ptr),
        ],
        c_proto: "int32_t weft_schedule_slabs(uint32_t cores, uint32_t banks, const uint32_t *slabs_per_core, const uint64_t *bankmaps, int32_t *out_order, uint32_t *out_coverage, uint32_t *out_slots)",
    },
];

/// `void body(void *ctx, int64_t lo, int64_t hi)`: runs iterations `[lo, hi)` in order.
pub type WeftBodyFn = Option<unsafe extern "C" fn(ctx: *mut c_void, lo: i64, hi: i64)>;
/// `void inspect(void *ctx, int64_t lo, int64_t hi, weft_inspector_t *h)`.
pub type WeftInspectFn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, lo: i64, hi: i64, h: *mut Inspector)>;

// Submodules: `faults` (errors, guards, fatal faults, the process-wide
// runtime), `regions`, `inspection`, `tracing`, `banks` (entry points by
// what they serve).

mod banks;
mod faults;
mod inspection;
mod regions;
mod tracing;

pub use banks::*;
pub use faults::*;
pub use inspection::*;
pub use regions::*;
pub use tracing::*;
