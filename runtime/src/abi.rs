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

use crate::bankmap::AddressMap;
use crate::runtime::{InspectRef, Inspector, Runtime, RuntimeConfig};
use crate::RuntimeError;
use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

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

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

fn status_of(e: &RuntimeError) -> Status {
    match e {
        RuntimeError::InvalidArgument(_) | RuntimeError::Instance { .. } => Status::Invalid,
        RuntimeError::CyclicDependences(_) | RuntimeError::IbConflict(_) => Status::Dependence,
        RuntimeError::SearchBudget(_) => Status::Unsupported,
        RuntimeError::Machine(_) => Status::Machine,
        RuntimeError::Io(_) => Status::Io,
        RuntimeError::Panicked(_) => Status::Internal,
    }
}

/// Runs `f`, converting errors and panics into a status code and
/// `weft_last_error` (I/O errors are fatal, module docs).
fn guard(f: impl FnOnce() -> Result<(), (Status, String)>) -> i32 {
    guard_result(catch_unwind(AssertUnwindSafe(f)), false)
}

/// Exit status of a process the runtime ends on a fatal fault (module docs).
pub const FATAL_EXIT: i32 = 70;

extern "C" {
    fn _exit(status: std::ffi::c_int) -> !;
    fn fflush(stream: *mut c_void) -> std::ffi::c_int;
}

/// Ends the process on a fatal fault (module docs): `weft runtime: {msg}` on
/// stderr, status [`FATAL_EXIT`], no exit handlers (they could flush a
/// broken trace or compute more). What the program wrote to its C streams
/// before the fault is flushed.
fn fatal(msg: &str) -> ! {
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("weft runtime: {msg}\n").as_bytes(),
    );
    // SAFETY: `fflush(NULL)` flushes every C output stream; `_exit` ends the
    // process and nothing is used after it.
    unsafe {
        fflush(std::ptr::null_mut());
        _exit(FATAL_EXIT)
    }
}

/// [`guard`] for entry points that run loop bodies: `ran` is set by the
/// bodies ([`c_body`]). An error after some body ran is fatal, since the
/// caller's sequential fallback would run those iterations again.
fn guard_region(f: impl FnOnce(&AtomicBool) -> AbiResult<()>) -> i32 {
    let ran = AtomicBool::new(false);
    let r = catch_unwind(AssertUnwindSafe(|| f(&ran)));
    guard_result(r, ran.load(Ordering::Relaxed))
}

/// The status of an entry point's outcome `r` (module docs: I/O errors, and
/// any error once `ran`, are fatal).
fn guard_result(r: std::thread::Result<AbiResult<()>>, ran: bool) -> i32 {
    let (s, m) = match r {
        Ok(Ok(())) => return Status::Ok as i32,
        Ok(Err(e)) => e,
        Err(_) => (
            Status::Internal,
            "internal error: the runtime panicked".into(),
        ),
    };
    if s == Status::Io {
        fatal(m.trim_start_matches("i/o: "));
    }
    if ran {
        fatal(&format!(
            "{m} (after the region had run iterations; running them again is not possible)"
        ));
    }
    set_error(&m);
    s as i32
}

fn rt_err(e: RuntimeError) -> (Status, String) {
    (status_of(&e), e.to_string())
}

fn null(what: &str) -> (Status, String) {
    (Status::Null, format!("{what} is null"))
}

/// What the bodies of the C ABI functions return: a value, or the status and
/// message of the error.
type AbiResult<T> = std::result::Result<T, (Status, String)>;

/// The caller's output location `out` (named `what` in the error when null).
fn out_ref<'a, T>(out: *mut T, what: &str) -> AbiResult<&'a mut T> {
    // SAFETY: a non-null output pointer of the C ABI points to a writable,
    // aligned `T` for the duration of the call (the documented contract).
    unsafe { out.as_mut() }.ok_or_else(|| null(what))
}

/// The inspector handle `h` the runtime passed to an inspector.
fn handle<'a>(h: *mut Inspector) -> AbiResult<&'a mut Inspector> {
    // SAFETY: non-null handles only come from the runtime, which passes a
    // live &mut Inspector for the duration of the inspector call.
    unsafe { h.as_mut() }.ok_or_else(|| null("inspector handle"))
}

/// A compiled loop body and its context as the runtime calls it: `f(lo,
/// hi)` runs iterations `[lo, hi)` and sets `ran` ([`guard_region`]); also
/// the context for an inspector.
fn c_body(
    body: WeftBodyFn,
    ctx: *mut c_void,
    ran: &AtomicBool,
) -> AbiResult<(impl Fn(i64, i64) + Sync + '_, SendPtr)> {
    let body = body.ok_or_else(|| null("body"))?;
    let ctx = SendPtr(ctx);
    let f = move |a: i64, b: i64| {
        if a < b {
            ran.store(true, Ordering::Relaxed);
        }
        // SAFETY: calling the compiler-generated body with its own context;
        // the bodies are written to run concurrently on disjoint ranges.
        unsafe { body(ctx.get(), a, b) }
    };
    Ok((f, ctx))
}

static GLOBAL: OnceLock<Result<Runtime, String>> = OnceLock::new();

extern "C" {
    fn atexit(cb: extern "C" fn()) -> std::ffi::c_int;
}

extern "C" fn at_exit() {
    let r = catch_unwind(|| match GLOBAL.get() {
        Some(Ok(rt)) => rt.trace_finish().and_then(|_| rt.write_stats()),
        _ => Ok(()),
    });
    if let Ok(Err(e)) = r {
        fatal(rt_err(e).1.trim_start_matches("i/o: "));
    }
}

/// Program start-up (`.init_array`): configure the runtime now, so a bad
/// setting ends the program before it runs (module docs) and, with
/// `WEFT_TRACE` or `WEFT_STATS`, its exit handler writes the trace and
/// statistics even if no region call ever reaches it (grain hints can keep
/// every call of a small run inline). The machine description is loaded
/// here too; worker threads start at the first region. `weft build` keeps this entry in the link
/// (`-u weft_init_array_entry`); other programs linking the library may pass
/// the same flag.
extern "C" fn init_from_env() {
    // Settings are checked now, so a bad one ends the program before it
    // computes anything (module docs).
    let _ = catch_unwind(global);
}

/// The `.init_array` entry of [`init_from_env`] (exported so a link can keep it).
#[no_mangle]
#[used]
#[link_section = ".init_array"]
pub static weft_init_array_entry: extern "C" fn() = init_from_env;

/// The process-wide runtime used by the C ABI (configured from the
/// environment). A bad setting is fatal (module docs), so this returns only
/// a runtime.
pub fn global() -> Result<&'static Runtime, (Status, String)> {
    let r = GLOBAL.get_or_init(|| {
        let cfg = RuntimeConfig::from_env().map_err(|e| config_message(&e))?;
        let trace = cfg.trace.clone();
        let rt = Runtime::new(cfg).map_err(|e| match &trace {
            Some(t) => format!("WEFT_TRACE={:?}: {}", t, config_message(&e)),
            None => config_message(&e),
        })?;
        rt.machine().map_err(|e| {
            let name = &rt.config().machine;
            let m = config_message(&e);
            let m = m.strip_prefix(&format!("{name}: ")).unwrap_or(&m);
            format!("WEFT_MACHINE={name:?}: {m}")
        })?;
        if rt.config().trace.is_some() || rt.config().stats.is_some() {
            // SAFETY: registering a plain extern "C" function with the C library.
            unsafe {
                atexit(at_exit);
            }
        }
        Ok(rt)
    });
    match r {
        Ok(rt) => Ok(rt),
        Err(m) => fatal(m),
    }
}

/// A configuration error's text without the error kind's prefix.
fn config_message(e: &RuntimeError) -> String {
    match e {
        RuntimeError::InvalidArgument(m) => m.clone(),
        RuntimeError::Machine(m) => m
            .strip_prefix("machine configuration: ")
            .unwrap_or(m)
            .to_string(),
        RuntimeError::Io(e) => e.to_string(),
        e => e.to_string(),
    }
}

#[derive(Clone, Copy)]
struct SendPtr(*mut c_void);
// SAFETY: the context pointer is only handed back to the caller's callbacks; the
// compiler-generated bodies are written to be run concurrently on disjoint ranges.
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}
impl SendPtr {
    fn get(self) -> *mut c_void {
        self.0
    }
}

/// Message of the calling thread's last failed call ("" if none). The pointer is
/// valid until the next failing call on the same thread.
#[no_mangle]
pub extern "C" fn weft_last_error() -> *const c_char {
    catch_unwind(|| LAST_ERROR.with(|e| e.borrow().as_ptr())).unwrap_or(c"internal error".as_ptr())
}

/// Grain hint of the region call that just returned on this thread (see
/// "Grain hints" in [`crate::runtime`]): writes the trip count below which
/// the caller may run that call site's body inline, in original order,
/// without calling the runtime (0: always call it). Compiled callers store it
/// (atomically, relaxed) in a per-site global read before each call.
#[no_mangle]
pub extern "C" fn weft_grain_hint(out_min_iters: *mut i64) -> i32 {
    guard(|| {
        if out_min_iters.is_null() {
            return Err(null("out_min_iters"));
        }
        let h = global()?.take_grain_hint();
        // SAFETY: checked non-null; the caller provides a writable, 8-byte
        // aligned int64_t that other threads access only atomically.
        let a = unsafe { std::sync::atomic::AtomicI64::from_ptr(out_min_iters) };
        a.store(h, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    })
}

/// Writes the number of worker threads / virtual cores P.
#[no_mangle]
pub extern "C" fn weft_num_cores(out_cores: *mut u32) -> i32 {
    guard(|| {
        let out = out_ref(out_cores, "out_cores")?;
        *out = global()?.config().cores as u32;
        Ok(())
    })
}

/// Default schedule: static contiguous chunks of `[lo, hi)` over P workers
/// (on the calling thread when the loop is too small to share: grain
/// control, keyed by the body's address).
#[no_mangle]
pub extern "C" fn weft_parallel_for(lo: i64, hi: i64, body: WeftBodyFn, ctx: *mut c_void) -> i32 {
    guard_region(|ran| {
        let site = body.map(|b| b as usize as u64);
        let (f, _) = c_body(body, ctx, ran)?;
        global()?.parallel_for_at(site, lo, hi, &f).map_err(rt_err)
    })
}

fn c_inspector(
    insp: unsafe extern "C" fn(*mut c_void, i64, i64, *mut Inspector),
    ctx: SendPtr,
) -> impl Fn(i64, i64, &mut Inspector) {
    // SAFETY: the inspector only reads the program's data and reports addresses.
    move |a, b, h: &mut Inspector| unsafe { insp(ctx.get(), a, b, h as *mut Inspector) }
}

/// Irregular region: inspect (first call / after invalidation / new bounds),
/// schedule slabs with Algorithm 4 (respecting the runtime dependence check),
/// cache, and execute. `slab_iters == 0` = 1/50 of a core's iterations. `insp`
/// may be NULL: the Default schedule runs (reflected in the coverage ratio).
#[no_mangle]
pub extern "C" fn weft_run_irregular(
    region_id: u32,
    lo: i64,
    hi: i64,
    slab_iters: i64,
    insp: WeftInspectFn,
    body: WeftBodyFn,
    ctx: *mut c_void,
) -> i32 {
    guard_region(|ran| {
        let (f, ctx) = c_body(body, ctx, ran)?;
        let rt = global()?;
        let i = insp.map(|i| c_inspector(i, ctx));
        rt.run_irregular(
            region_id,
            lo,
            hi,
            slab_iters,
            i.as_ref().map(|x| x as InspectRef<'_>),
            &f,
        )
        .map_err(rt_err)
    })
}

/// Flag or-ed into `weft_run_affine`'s `scheme`: run each core's IBs of a
/// window interleaved iteration by iteration (loop permutation, §5.5.5); ignored
/// when the schedule has dependence waits.
pub const AFFINE_PERMUTE: u32 = 0x100;

/// Bits 16..31 of `weft_run_affine`'s `scheme`: the permutation granule
/// (iterations run together per IB in a permuted window; 0 means 1).
pub const AFFINE_GRANULE_SHIFT: u32 = 16;

/// Flag or-ed into `weft_run_affine_desc`'s `scheme`: the compiler did not
/// prove the IBs independent; the runtime checks it on the described lines and
/// returns `Status::Dependence` (4) on a conflict, without running anything.
pub const AFFINE_CHECK_DEPS: u32 = 0x200;

/// Splits a `scheme` word into (scheme, permutation granule or 0).
fn affine_scheme(scheme: u32) -> std::result::Result<(crate::mlp::Scheme, i64), (Status, String)> {
    let permute = scheme & AFFINE_PERMUTE != 0;
    let code = scheme & 0xff;
    let granule = ((scheme >> AFFINE_GRANULE_SHIFT) as i64).max(1);
    let s = crate::mlp::Scheme::from_code(code).ok_or_else(|| {
        (
            Status::Invalid,
            format!(
                "unknown scheme {code} (0..={}, optionally | 0x100 for permutation)",
                crate::mlp::Scheme::MAX_CODE
            ),
        )
    })?;
    if scheme & 0xfc00 != 0 {
        return Err((Status::Invalid, format!("unknown scheme flags {scheme:#x}")));
    }
    Ok((s, if permute { granule } else { 0 }))
}

/// Affine nest: iteration blocks of `ib_iters`, Algorithm 5 with `scheme`
/// (0 default, 1 mlp-first, 2 clp-first, 3 balanced, 4 la-mlp; `| 0x100` =
/// permute inside windows, bits 16.. = permutation granule), cached; `insp`
/// may be NULL only for scheme 0.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn weft_run_affine(
    nest_id: u32,
    lo: i64,
    hi: i64,
    ib_iters: i64,
    scheme: u32,
    insp: WeftInspectFn,
    body: WeftBodyFn,
    ctx: *mut c_void,
) -> i32 {
    guard_region(|ran| {
        let (f, ctx) = c_body(body, ctx, ran)?;
        // Bit 8 (0x100) asks for loop permutation inside windows (§5.5.5).
        let (scheme, permute) = affine_scheme(scheme)?;
        let rt = global()?;
        let i = insp.map(|i| c_inspector(i, ctx));
        rt.run_affine_with(
            nest_id,
            lo,
            hi,
            ib_iters,
            scheme,
            permute,
            i.as_ref().map(|x| x as InspectRef<'_>),
            &f,
        )
        .map_err(rt_err)
    })
}

/// Affine nest with independent IBs whose bank vectors come from the
/// access-function descriptor `desc[0..desc_len)` (`weft_runtime::affine_desc`),
/// evaluated at loop entry with the actual base addresses: no inspector and
/// no run of the loop body. `scheme` as for `weft_run_affine`, plus
/// [`AFFINE_CHECK_DEPS`] for nests not proven parallel (status 4 = the IBs
/// conflict, nothing ran: use `weft_run_affine` with an inspector).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn weft_run_affine_desc(
    nest_id: u32,
    lo: i64,
    hi: i64,
    ib_iters: i64,
    scheme: u32,
    desc: *const i64,
    desc_len: i64,
    body: WeftBodyFn,
    ctx: *mut c_void,
) -> i32 {
    guard_region(|ran| {
        let (f, _) = c_body(body, ctx, ran)?;
        if desc.is_null() {
            return Err(null("desc"));
        }
        if !(0..=1 << 24).contains(&desc_len) {
            return Err((Status::Invalid, format!("desc_len {desc_len}")));
        }
        let check = scheme & AFFINE_CHECK_DEPS != 0;
        let (scheme, permute) = affine_scheme(scheme)?;
        // SAFETY: the caller passes `desc_len` readable words at `desc`.
        let words = unsafe { std::slice::from_raw_parts(desc, desc_len as usize) };
        let rt = global()?;
        rt.run_affine_desc(nest_id, lo, hi, ib_iters, scheme, permute, check, words, &f)
            .map_err(rt_err)
    })
}

/// Drops the cached schedule of a region or nest (index arrays were reassigned).
#[no_mangle]
pub extern "C" fn weft_region_invalidate(region_id: u32) -> i32 {
    guard(|| {
        global()?.invalidate(region_id);
        Ok(())
    })
}

/// Context slots (runtime ids `base * CONTEXT_SLOTS ..`) per static region.
pub use crate::runtime::CONTEXT_SLOTS;

/// Picks the runtime id for static region `base` executing with context `key`
/// (`nkey` words: the live-in values its schedule depends on, as the compiler
/// chose them): the id whose saved key equals `key`, or the least recently
/// used of the base's [`CONTEXT_SLOTS`] ids, whose schedule is dropped and
/// which takes `key`. `key == NULL` means the context cannot be
/// compared (always a fresh id).
#[no_mangle]
pub extern "C" fn weft_region_select(
    base: u32,
    key: *const u64,
    nkey: u32,
    out_id: *mut u32,
) -> i32 {
    guard(|| {
        let out = out_ref(out_id, "out_id")?;
        let k = if key.is_null() {
            None
        } else {
            // SAFETY: the caller passes `nkey` readable words.
            Some(unsafe { std::slice::from_raw_parts(key, nkey as usize) })
        };
        *out = global()?.select_context(base, k).map_err(rt_err)?;
        Ok(())
    })
}

/// Forgets every saved context of static region `base` and drops the
/// schedules of all its ids (index arrays may have been reassigned).
#[no_mangle]
pub extern "C" fn weft_region_reset(base: u32) -> i32 {
    guard(|| {
        global()?.reset_contexts(base);
        Ok(())
    })
}

/// Reports one access of iteration `iter` from inside an inspector.
/// `is_write`: 1 = a write the slab dependence check (§4.4.6) must include;
/// 0 = a read it must include; [`ACCESS_UNCHECKED`] (2) = an access that
/// cannot take part in a conflict (compilers pass it for every access of a
/// loop they prove parallel and for loads of arrays the loop does not
/// write), which only counts for the bank maps (they treat reads and writes
/// alike). Affine inspectors treat 2 as a read.
#[no_mangle]
pub extern "C" fn weft_inspect_access(
    h: *mut Inspector,
    iter: i64,
    addr: *const c_void,
    size: u32,
    is_write: u32,
) -> i32 {
    guard(|| {
        handle(h)?
            .report(iter, addr as u64, size, is_write)
            .map_err(rt_err)
    })
}

/// Called by inspectors: iteration `iter` reads the `bytes` bytes from
/// `addr`, none of which can take part in a slab conflict: one report
/// equal to reporting each of them as [`ACCESS_UNCHECKED`] (bank maps only;
/// 0 bytes report nothing). Compilers report the stretch of an array an
/// inner counted loop streams through (`val[j]`, `col[j]` for `j` in
/// `rowptr[i]..rowptr[i+1]`) with one call before the loop instead of one
/// per element. No 4 GB limit, unlike `weft_inspect_access`'s size.
#[no_mangle]
pub extern "C" fn weft_inspect_range(
    h: *mut Inspector,
    iter: i64,
    addr: *const c_void,
    bytes: u64,
) -> i32 {
    guard(|| {
        handle(h)?
            .access_range(iter, addr as u64, bytes)
            .map_err(rt_err)
    })
}

/// Writes to `out_shift` the log2 of the block size within which an
/// inspector may report the reads of one reference once per iteration: an
/// irregular region's bank maps are kept per such block, so a second access
/// inside the block the same reference reported in the same iteration changes
/// nothing. The block is the largest aligned one that always lies in one
/// memory bank (the lowest bank bit of the address mapping: 2 KB on
/// `table5.2`, 4 KB on `table4.2`), or the cache line when a miss predictor
/// runs (`WEFT_MISS_FILTER`, which works on lines). 0 (report every access)
/// for affine nests, whose bank vectors weigh every access. Compilers call it
/// once per inspector call and skip repeated blocks only for accesses
/// reported as [`ACCESS_UNCHECKED`].
#[no_mangle]
pub extern "C" fn weft_inspect_line_shift(h: *const Inspector, out_shift: *mut u32) -> i32 {
    guard(|| {
        let out = out_ref(out_shift, "out_shift")?;
        *out = handle(h.cast_mut())?.line_shift();
        Ok(())
    })
}

/// Declares that the calling inspector reports only unchecked accesses
/// ([`ACCESS_UNCHECKED`]) in this call: it feeds the bank maps and nothing
/// else. Compilers call it at inspector entry, before any report, for loops
/// they prove parallel. The runtime may then run the inspector over part of
/// a slab and skip the rest once the slab's bank map has every bank set
/// (more unchecked accesses cannot change a full map; see
/// `RuntimeConfig::inspect_saturate`). An inspector that declares this and
/// then reports a checked access gets an error (its dependence check would
/// have missed the skipped iterations).
#[no_mangle]
pub extern "C" fn weft_inspect_maps_only(h: *mut Inspector) -> i32 {
    guard(|| {
        handle(h)?.declare_maps_only();
        Ok(())
    })
}

/// Writes-first inspection: an inspector that also has a slice reporting
/// its checked writes alone (the same writes, the same iterations, nothing
/// else reported) calls this at entry, before any report; with
/// `*out_writes_only = 1` it runs that slice for this call, with 0 the full
/// inspector. The runtime asks for the writes first and then inspects in
/// full keeping only the reads of granules some write touches (the others
/// cannot conflict; `RuntimeConfig::writes_first`). It checks that the full
/// inspection's writes are among those of the slice and inspects again
/// without the filter when they are not.
#[no_mangle]
pub extern "C" fn weft_inspect_writes_first(h: *mut Inspector, out_writes_only: *mut u32) -> i32 {
    guard(|| {
        let out = out_ref(out_writes_only, "out_writes_only")?;
        *out = handle(h)?.writes_first() as u32;
        Ok(())
    })
}

/// The state of an inspector's inline recording of unchecked accesses
/// (`weft_inspect_fast_t`): owned by the inspector's stack frame, filled by
/// [`weft_inspect_fast`]. While `enabled != 0` and `lo <= iter < hi`, the
/// inspector may record an unchecked access of iteration `iter` to bytes
/// `[a, e]` (`e = a + size - 1`) touching at most two blocks
/// (`(e >> shift) - (a >> shift) <= 1`) itself, exactly as
/// `weft_inspect_access(h, iter, a, size, WEFT_ACCESS_UNCHECKED)` would:
///
/// ```c
/// for (x in {a, e}) { uint32_t b = st->table[(x >> st->lsb) & st->mask];
///                     st->row[b >> 6] |= 1ull << (b & 63); }
/// st->reported += 1; st->touches += (e >> shift) - (a >> shift) + 1;
/// ```
///
/// (`shift` as given by [`weft_inspect_line_shift`], equal to `st->shift`,
/// at least 4 when `enabled`: an access of up to 16 bytes aligned to its
/// size lies in one block).
/// The inspector may keep bits in registers (e.g. those of word 0, banks
/// 0..64) and OR them into `row` later, as long as it does so before the
/// next call of [`weft_inspect_fast`] or [`weft_inspect_fast_flush`] and
/// before it returns. The counters must reach the runtime before the
/// inspector returns: [`weft_inspect_fast`] and [`weft_inspect_fast_flush`]
/// add and zero them.
///
/// A checked read (`is_write = 0`) of the same kind (in the current slab,
/// at most two blocks) may also be recorded inline while `recs < recs_end`:
/// the bank bits and counts as above, and the record
///
/// ```c
/// *(uint64_t *)st->recs = a; *(uint32_t *)(st->recs + 8) = st->unit;
/// *(uint32_t *)(st->recs + 12) = size; st->recs += st->rec_step;
/// ```
///
/// A checked write of the same kind may be recorded inline while
/// `recs < recs_end` and `rec_step != 0`, from the other end:
///
/// ```c
/// st->recs_end -= 16; *(uint64_t *)st->recs_end = a;
/// *(uint32_t *)(st->recs_end + 8) = st->unit;
/// *(uint32_t *)(st->recs_end + 12) = size | 0x80000000u;
/// ```
///
/// While `wspan != 0`, such a read need not be recorded (the bank bits and
/// counts still are) when it touches no written granule: with `g = a >> 2`,
/// `n = (e >> 2) - g`, `i = g - wgmin`, if `i < wspan` and `n < 32` and
/// none of bits `i..=i+n` of `wbits` is set (the runtime would drop it);
/// any other read is recorded.
///
/// `recs` and `recs_end` must be handed back with the counters (the calls
/// take the records up to `recs` and from `recs_end` on). Every other
/// checked access, and every checked access while `recs` is NULL, goes
/// through [`weft_inspect_checked`], which hands the state back itself and
/// refills it; other accesses go through [`weft_inspect_access`] or
/// [`weft_inspect_range`].
///
/// Lifetime: `row`, `table` and `recs` point into the inspector handle's
/// recorder; they stay valid until the next call with the handle and at
/// most until the inspector call that received it returns (the bank-map
/// bits are allocated before the call and not resized during it; the
/// records may move at any call), and must not be used after. The runtime
/// never keeps a pointer to the struct.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct InspectFast {
    /// First iteration of the current slab (within the inspected range).
    pub lo: i64,
    /// One past its last iteration (`lo == hi`: no slab is current).
    pub hi: i64,
    /// The current slab's bank-map words.
    pub row: *mut u64,
    /// Bank of every value of the bank bits.
    pub table: *const u16,
    /// Mask of the bank bits after the shift by `lsb`.
    pub mask: u64,
    /// Lowest bank bit of an address.
    pub lsb: u32,
    /// Log2 of the line size of the bank maps.
    pub shift: u32,
    /// 1: the inline path is exact for this inspector (irregular region,
    /// table-based bank lookup, no miss predictor); 0: report every access
    /// with [`weft_inspect_access`].
    pub enabled: u32,
    /// Padding (keeps the layout explicit).
    pub reserved: u32,
    /// Accesses recorded inline since the last call (added and zeroed by the runtime).
    pub reported: u64,
    /// Lines those accesses touched.
    pub touches: u64,
    /// Checked reads (`is_write = 0`): where the inspector writes the next
    /// record (NULL: report each with [`weft_inspect_checked`]). A record is
    /// 16 bytes: `uint64_t addr; uint32_t slab (= unit); uint32_t size`.
    pub recs: *mut u8,
    /// One past the last record the inspector may write; checked writes
    /// are recorded downwards from here.
    pub recs_end: *mut u8,
    /// The current slab's number, for the records.
    pub unit: u32,
    /// Bytes to advance `recs` by per record: 16, or 0 when the runtime
    /// keeps no access of the slab (`recs` then points at a dummy record,
    /// and writes must be reported with [`weft_inspect_checked`]).
    pub rec_step: u32,
    /// Granules (4 bytes) written by the inspected accesses, known before
    /// the inspection (writes first, [`weft_inspect_writes_first`]): bit `i`
    /// of these words is granule `wgmin + i`, for `i < wspan`, and the
    /// words go one past the last bit's word. Never NULL (a zero word pair
    /// when `wspan = 0`).
    pub wbits: *const u64,
    /// First granule of `wbits`, a multiple of 64 (so the granules of an
    /// access of at most 16 bytes aligned to its size lie in one word).
    pub wgmin: u64,
    /// Granules in `wbits` (0: no filter, every checked read is kept).
    pub wspan: u64,
    /// One past the current slab's last iteration: `hi` before it is
    /// clipped to the inspected range (a compiled inspector that reports
    /// the rest of a slab at once reads its row pointers up to here).
    pub slab_end: i64,
}

impl Default for InspectFast {
    fn default() -> Self {
        InspectFast {
            lo: 0,
            hi: 0,
            row: std::ptr::null_mut(),
            table: std::ptr::null(),
            mask: 0,
            lsb: 0,
            shift: 0,
            enabled: 0,
            reserved: 0,
            reported: 0,
            touches: 0,
            recs: std::ptr::null_mut(),
            recs_end: std::ptr::null_mut(),
            unit: 0,
            rec_step: 0,
            wbits: NO_WRITTEN_GRANULES.as_ptr(),
            wgmin: 0,
            wspan: 0,
            slab_end: 0,
        }
    }
}

/// The `wbits` of an [`InspectFast`] without a read filter (`wspan = 0`).
pub static NO_WRITTEN_GRANULES: [u64; 2] = [0; 2];

/// The inspector handle and the inline state of the `weft_inspect_fast`
/// family, or the error naming the null one.
fn handle_and_state<'a>(
    h: *mut Inspector,
    st: *mut InspectFast,
) -> std::result::Result<(&'a mut Inspector, &'a mut InspectFast), (Status, String)> {
    let h = handle(h)?;
    // SAFETY: the caller passes a writable weft_inspect_fast_t, or NULL.
    let st = unsafe { st.as_mut() }.ok_or_else(|| null("fast state"))?;
    Ok((h, st))
}

/// A checked access (`is_write` 0 or 1, as [`weft_inspect_access`]) of an
/// inspector that records inline ([`InspectFast`]): hands the inline counts
/// and records of `st` to the runtime, records the access, and refills `st`
/// for the slab of `iter` (as [`weft_inspect_fast`]). Compilers call it for
/// the checked accesses they cannot record inline: no free record
/// (`st->recs == st->recs_end`, or `st->rec_step == 0` for a write), the
/// access not in the current slab or crossing more than two blocks, the
/// inline path disabled; `st` is refilled even when the access is an error.
#[no_mangle]
pub extern "C" fn weft_inspect_checked(
    h: *mut Inspector,
    st: *mut InspectFast,
    iter: i64,
    addr: *const c_void,
    size: u32,
    is_write: u32,
) -> i32 {
    guard(|| {
        let (h, st) = handle_and_state(h, st)?;
        let flushed = h.fast_flush(st);
        let r = flushed.and(h.report(iter, addr as u64, size, is_write));
        let refilled = h.fast_refresh(iter, st);
        r.and(refilled).map_err(rt_err)
    })
}

/// A gather of an inspector recording inline: iteration `iter` reads `size`
/// bytes at `base + idx[j] * scale` for every `j < n`, where `idx` holds `n`
/// signed integers of `idx_bytes` bytes (4 or 8), each read a report of kind
/// `is_write` (0: checked read, [`ACCESS_UNCHECKED`]: unchecked; writes are
/// an error). The same as reporting each read through the inline wrappers
/// (bank bits, counts, records and the read filter of [`InspectFast`]) or
/// [`weft_inspect_checked`], in one call: compilers make it for an inner
/// counted loop whose only report is such a read (`x[col[j]]` of a CSR row),
/// before the loop. `st` is handed back before the call, as for
/// [`weft_inspect_checked`], and is current again on return (also after an
/// error).
#[no_mangle]
pub extern "C" fn weft_inspect_gather(
    h: *mut Inspector,
    st: *mut InspectFast,
    iter: i64,
    base: *const c_void,
    idx: *const c_void,
    n: u64,
    idx_bytes: u32,
    scale: i64,
    size: u32,
    is_write: u32,
) -> i32 {
    guard(|| {
        let (h, st) = handle_and_state(h, st)?;
        if idx.is_null() && n > 0 {
            return Err(null("index array"));
        }
        let g = crate::runtime::Gather {
            base: base as u64,
            idx: idx as *const u8,
            n,
            idx_bytes,
            scale,
            size,
            kind: is_write,
        };
        h.gather(iter, st, &g).map_err(rt_err)
    })
}

/// Inline recording of unchecked accesses (see [`InspectFast`]): adds
/// `st->reported` / `st->touches` to the inspector's counts and zeroes them,
/// then makes the slab of iteration `iter` current (as an access of `iter`
/// does) and fills `st` with its range, bank-map row and the bank lookup.
/// `enabled = 0` when the inline path would not be exact (affine nests, a
/// machine whose bank bits are too wide for a table or whose lines are
/// shorter than 16 bytes, `WEFT_MISS_FILTER`,
/// `WEFT_INSPECT_INLINE=0`);
/// `lo == hi` when `iter` lies outside the inspected range. Compilers call it
/// when an access's iteration leaves `[st->lo, st->hi)`, i.e. about once per
/// slab. With a NULL argument `st` is unchanged.
#[no_mangle]
pub extern "C" fn weft_inspect_fast(h: *mut Inspector, iter: i64, st: *mut InspectFast) -> i32 {
    guard(|| {
        let (h, st) = handle_and_state(h, st)?;
        h.fast_refresh(iter, st).map_err(rt_err)
    })
}

/// Adds the counts of the accesses recorded inline (`st->reported`,
/// `st->touches`, see [`InspectFast`]) to the inspector's and zeroes them,
/// and keeps the records written inline (up to `st->recs` and from
/// `st->recs_end`). Compilers call it before the inspector returns.
#[no_mangle]
pub extern "C" fn weft_inspect_fast_flush(h: *mut Inspector, st: *mut InspectFast) -> i32 {
    guard(|| {
        let (h, st) = handle_and_state(h, st)?;
        h.fast_flush(st).map_err(rt_err)
    })
}

/// `is_write` of [`weft_inspect_access`] for accesses that cannot conflict.
pub const ACCESS_UNCHECKED: u32 = 2;

/// Addresses at or above this bound cannot be part of a program's memory
/// (57-bit virtual addresses, the largest x86-64 and AArch64 offer): a
/// reported span that reaches it, or wraps around the address space, is an
/// error ([`check_span`]).
pub const ADDRESS_LIMIT: u64 = 1 << 57;

/// Largest access a trace record holds (its size field is one byte).
pub const TRACE_MAX_SIZE: u32 = 255;

/// Checks that the `bytes` bytes from `addr` can be memory of the program:
/// the span does not wrap around the address space and ends below
/// [`ADDRESS_LIMIT`] (0 bytes are always fine).
pub(crate) fn check_span(addr: u64, bytes: u64) -> std::result::Result<(), String> {
    if bytes == 0 {
        return Ok(());
    }
    match addr.checked_add(bytes - 1) {
        Some(end) if end < ADDRESS_LIMIT => Ok(()),
        _ => Err(format!(
            "{bytes} bytes from {addr:#x} do not fit below the address limit {ADDRESS_LIMIT:#x}"
        )),
    }
}

/// Checks a trace access's `size` and `is_write` (0 or 1).
fn check_trace_access(size: u32, is_write: u32) -> AbiResult<()> {
    if is_write > 1 {
        return Err((
            Status::Invalid,
            format!("is_write {is_write} is not 0 (read) or 1 (write)"),
        ));
    }
    if size > TRACE_MAX_SIZE {
        return Err((
            Status::Invalid,
            format!("access of {size} bytes: a trace record holds at most {TRACE_MAX_SIZE}"),
        ));
    }
    Ok(())
}

/// Trace mode: records an access for the current virtual core (no-op otherwise).
/// `gap` = non-memory instructions since the caller's previous report.
#[no_mangle]
pub extern "C" fn weft_trace_access(
    addr: *const c_void,
    size: u32,
    is_write: u32,
    gap: u32,
) -> i32 {
    guard(|| {
        check_trace_access(size, is_write)?;
        global()?
            .trace_access(addr as u64, size, is_write == 1, gap)
            .map_err(rt_err)
    })
}

/// Trace mode: records `n` reads of `size` bytes at `addr`, `addr + size`,
/// ..., each `gap` non-memory instructions after the previous one, for the
/// current virtual core (what a loop that loads an array element by element
/// records; compilers call it for the index loads of an inspector's
/// [`weft_inspect_gather`], which the runtime performs). A no-op when
/// `WEFT_TRACE` is not set.
#[no_mangle]
pub extern "C" fn weft_trace_reads(addr: *const c_void, n: u64, size: u32, gap: u32) -> i32 {
    guard(|| {
        check_trace_access(size, 0)?;
        if size == 0 && n > 0 {
            return Err((Status::Invalid, format!("{n} reads of 0 bytes")));
        }
        let span = n.checked_mul(size as u64).ok_or(u64::MAX);
        check_span(addr as u64, span.unwrap_or_else(|e| e))
            .map_err(|m| (Status::Invalid, format!("{n} reads of {size} bytes: {m}")))?;
        global()?
            .trace_reads(addr as u64, n, size, gap)
            .map_err(rt_err)
    })
}

/// Trace mode: adds `n` non-memory instructions to the current virtual core.
#[no_mangle]
pub extern "C" fn weft_trace_compute(n: u32) -> i32 {
    guard(|| {
        global()?.trace_compute(n);
        Ok(())
    })
}

/// Flushes and closes the trace (also done at exit); safe to call twice.
#[no_mangle]
pub extern "C" fn weft_trace_finish() -> i32 {
    guard(|| global()?.trace_finish().map_err(rt_err))
}

/// Writes the statistics to `WEFT_STATS` now (also done at exit).
#[no_mangle]
pub extern "C" fn weft_stats_flush() -> i32 {
    guard(|| global()?.write_stats().map_err(rt_err))
}

/// Writes the memory-side and LLC-side values `f` gives for the machine to
/// `out_mem` and `out_llc` (both non-null).
fn machine_pair(
    out_mem: *mut u32,
    out_llc: *mut u32,
    f: impl FnOnce(&crate::machine::Machine) -> (usize, usize),
) -> std::result::Result<(), (Status, String)> {
    let (mem, llc) = (
        out_ref(out_mem, "output pointer")?,
        out_ref(out_llc, "output pointer")?,
    );
    let m = global()?.machine().map_err(rt_err)?;
    let (a, b) = f(&m);
    (*mem, *llc) = (a as u32, b as u32);
    Ok(())
}

/// Memory and LLC bank of an address under the machine's mapping.
#[no_mangle]
pub extern "C" fn weft_bank_of(
    addr: *const c_void,
    out_mem_bank: *mut u32,
    out_llc_bank: *mut u32,
) -> i32 {
    guard(|| {
        let a = addr as u64;
        machine_pair(out_mem_bank, out_llc_bank, |m| {
            (m.mem_bank(a), m.llc_bank(a))
        })
    })
}

/// Number of memory banks and LLC banks of the machine.
#[no_mangle]
pub extern "C" fn weft_num_banks(out_mem_banks: *mut u32, out_llc_banks: *mut u32) -> i32 {
    guard(|| {
        machine_pair(out_mem_banks, out_llc_banks, |m| {
            (m.num_mem_banks(), m.num_llc_banks())
        })
    })
}

/// Algorithm 4 on explicit bank-maps. `slabs_per_core[c]` = M_c; `bankmaps` holds
/// ⌈banks/64⌉ words per slab (bit b of word b/64 = bank b), slabs core-major.
/// Writes `out_order[t * cores + c]` = slab of core c at slot t (-1 = idle) for
/// t < *out_slots, and `out_coverage[t]` = banks covered at slot t; both arrays
/// must hold max(M_c) slots.
#[no_mangle]
pub extern "C" fn weft_schedule_slabs(
    cores: u32,
    banks: u32,
    slabs_per_core: *const u32,
    bankmaps: *const u64,
    out_order: *mut i32,
    out_coverage: *mut u32,
    out_slots: *mut u32,
) -> i32 {
    guard(|| {
        if slabs_per_core.is_null()
            || bankmaps.is_null()
            || out_order.is_null()
            || out_coverage.is_null()
            || out_slots.is_null()
        {
            return Err(null("a pointer argument"));
        }
        if cores == 0 || banks == 0 || cores > 1 << 16 {
            return Err((
                Status::Invalid,
                format!("cores {cores} / banks {banks} out of range"),
            ));
        }
        // SAFETY: the caller passes `cores` counts.
        let counts = unsafe { std::slice::from_raw_parts(slabs_per_core, cores as usize) };
        let words = crate::bankset::words_for(banks as usize);
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        // SAFETY: the caller passes `total * words` words.
        let maps = unsafe { std::slice::from_raw_parts(bankmaps, total * words) };
        let mut slabs = Vec::with_capacity(cores as usize);
        let mut g = 0;
        for &m in counts {
            let mut list = Vec::with_capacity(m as usize);
            for _ in 0..m {
                let mut s = crate::bankset::BankSet::new(banks as usize);
                for b in 0..banks as usize {
                    if maps[g * words + b / 64] >> (b % 64) & 1 == 1 {
                        s.insert(b);
                    }
                }
                list.push(s);
                g += 1;
            }
            slabs.push(list);
        }
        let inst = crate::blp::SlabInstance::new(banks as usize, slabs).map_err(rt_err)?;
        let s = crate::blp::schedule_blp(&inst, &crate::blp::BlpOptions::default(), None)
            .map_err(rt_err)?;
        let t_max = counts.iter().copied().max().unwrap_or(0) as usize;
        if s.slots.len() > t_max {
            return Err((Status::Internal, "schedule longer than expected".into()));
        }
        for (t, row) in s.slots.iter().enumerate() {
            for (c, k) in row.iter().enumerate() {
                // SAFETY: out_order holds t_max * cores entries.
                unsafe { *out_order.add(t * cores as usize + c) = k.map_or(-1, |k| k as i32) };
            }
            // SAFETY: out_coverage holds t_max entries.
            unsafe { *out_coverage.add(t) = s.coverage[t] as u32 };
        }
        // SAFETY: checked non-null.
        unsafe { *out_slots = s.slots.len() as u32 };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spans that wrap around the address space or reach past
    /// [`ADDRESS_LIMIT`] are errors; empty spans never are.
    #[test]
    fn impossible_spans_are_errors() {
        assert!(check_span(0x1000, 4096).is_ok());
        assert!(check_span(u64::MAX, 0).is_ok());
        assert!(check_span(ADDRESS_LIMIT - 8, 8).is_ok());
        assert!(check_span(ADDRESS_LIMIT - 8, 9).is_err());
        assert!(check_span(0x1000, u64::MAX).is_err());
        assert!(check_span(u64::MAX, 2).is_err());
    }

    /// Trace accesses take `is_write` 0 or 1 and at most 255 bytes.
    #[test]
    fn trace_access_arguments() {
        assert!(check_trace_access(255, 1).is_ok());
        assert_eq!(check_trace_access(8, 9).unwrap_err().0, Status::Invalid);
        assert_eq!(check_trace_access(256, 0).unwrap_err().0, Status::Invalid);
    }
}
