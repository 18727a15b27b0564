//! Errors and faults of the C ABI: the status of a `RuntimeError`, the
//! `guard`s every entry point runs in (no unwinding into C; errors as status
//! codes and `weft_last_error`), the fatal faults that end the process
//! (module docs of `abi`, docs/runtime.md *Faults*), and the process-wide
//! runtime configured and checked at start-up.

use super::*;
use crate::runtime::{Inspector, Runtime, RuntimeConfig};
use crate::RuntimeError;
use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

pub(super) fn set_error(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

pub(super) fn status_of(e: &RuntimeError) -> Status {
    match e {
        RuntimeError::InvalidArgument(_) | RuntimeError::Instance { .. } => Status::Invalid,
        RuntimeError::CyclicDependences(_) | RuntimeError::IbConflict(_) => Status::Dependence,
        RuntimeError::SearchBudget(_) | RuntimeError::InspectBudget(_) => Status::Unsupported,
        RuntimeError::Machine(_) => Status::Machine,
        RuntimeError::Io(_) => Status::Io,
        RuntimeError::Panicked(_) => Status::Internal,
    }
}

/// Runs `f`, converting errors and panics into a status code and
/// `weft_last_error` (I/O errors are fatal, module docs).
pub(super) fn guard(f: impl FnOnce() -> Result<(), (Status, String)>) -> i32 {
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
pub(super) fn fatal(msg: &str) -> ! {
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
pub(super) fn guard_region(f: impl FnOnce(&AtomicBool) -> AbiResult<()>) -> i32 {
    let ran = AtomicBool::new(false);
    let r = catch_unwind(AssertUnwindSafe(|| f(&ran)));
    guard_result(r, ran.load(Ordering::Relaxed))
}

/// The status of an entry point's outcome `r` (module docs: I/O errors, and
/// any error once `ran`, are fatal).
pub(super) fn guard_result(r: std::thread::Result<AbiResult<()>>, ran: bool) -> i32 {
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

pub(super) fn rt_err(e: RuntimeError) -> (Status, String) {
    (status_of(&e), e.to_string())
}

pub(super) fn null(what: &str) -> (Status, String) {
    (Status::Null, format!("{what} is null"))
}

/// What the bodies of the C ABI functions return: a value, or the status and
/// message of the error.
pub(super) type AbiResult<T> = std::result::Result<T, (Status, String)>;

/// The caller's output location `out` (named `what` in the error when null).
pub(super) fn out_ref<'a, T>(out: *mut T, what: &str) -> AbiResult<&'a mut T> {
    // SAFETY: a non-null output pointer of the C ABI points to a writable,
    // aligned `T` for the duration of the call (the documented contract).
    unsafe { out.as_mut() }.ok_or_else(|| null(what))
}

/// The inspector handle `h` the runtime passed to an inspector.
pub(super) fn handle<'a>(h: *mut Inspector) -> AbiResult<&'a mut Inspector> {
    // SAFETY: non-null handles only come from the runtime, which passes a
    // live &mut Inspector for the duration of the inspector call.
    unsafe { h.as_mut() }.ok_or_else(|| null("inspector handle"))
}

pub(super) static GLOBAL: OnceLock<Result<Runtime, String>> = OnceLock::new();

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
/// here too, the worker threads are started (`Runtime::start_early`) and the
/// region entry points are warmed on a throw-away runtime
/// (`Runtime::warm_up`, `runtime/src/runtime/warm.rs`), so a program's first
/// region call does not pay for cold code. `weft build` keeps this entry in the link
/// (`-u weft_init_array_entry`); other programs linking the library may pass
/// the same flag.
extern "C" fn init_from_env() {
    // Settings are checked now, so a bad one ends the program before it
    // computes anything (module docs).
    let _ = catch_unwind(|| {
        if let Ok(rt) = global() {
            rt.warm_up();
        }
    });
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
        rt.start_early();
        Ok(rt)
    });
    match r {
        Ok(rt) => Ok(rt),
        Err(m) => fatal(m),
    }
}

/// A configuration error's text without the error kind's prefix.
pub(super) fn config_message(e: &RuntimeError) -> String {
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

/// Message of the calling thread's last failed call ("" if none). The pointer is
/// valid until the next failing call on the same thread.
#[no_mangle]
pub extern "C" fn weft_last_error() -> *const c_char {
    catch_unwind(|| LAST_ERROR.with(|e| e.borrow().as_ptr())).unwrap_or(c"internal error".as_ptr())
}
