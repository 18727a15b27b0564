//! Region entry points (§4.4 inspector/executor, §5.5 iteration blocks):
//! `weft_parallel_for`, `weft_run_irregular` (Algorithm 4), `weft_run_affine`
//! and `weft_run_affine_desc` (Algorithm 5), the context-keyed region ids,
//! and how compiled bodies and inspectors are called (a body marks that it
//! ran, so an error after that is fatal, not a status).

use super::*;
use crate::runtime::{InspectRef, Inspector};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

/// A compiled loop body and its context as the runtime calls it: `f(lo,
/// hi)` runs iterations `[lo, hi)` and sets `ran` ([`guard_region`]); also
/// the context for an inspector.
pub(super) fn c_body(
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

#[derive(Clone, Copy)]
pub(super) struct SendPtr(*mut c_void);
// SAFETY: the context pointer is only handed back to the caller's callbacks; the
// compiler-generated bodies are written to be run concurrently on disjoint ranges.
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}
impl SendPtr {
    fn get(self) -> *mut c_void {
        self.0
    }
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

/// Counts the outcome of a run-time alias check (loop versioning): adds one
/// to `site[1]` when it passed (`passed != 0`), to `site[0]` otherwise (a
/// per-site `int64_t[2]` the compiled caller owns, updated atomically), and to
/// the totals written with the statistics.
#[no_mangle]
pub extern "C" fn weft_alias_check(site: *mut i64, passed: i32) -> i32 {
    guard(|| {
        if site.is_null() {
            return Err(null("site"));
        }
        let k = usize::from(passed != 0);
        // SAFETY: checked non-null; the caller provides an 8-byte aligned
        // int64_t[2] that other threads access only atomically.
        let a = unsafe { std::sync::atomic::AtomicI64::from_ptr(site.add(k)) };
        a.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        crate::runtime::count_alias_check(passed != 0);
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

pub(super) fn c_inspector(
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
pub(super) fn affine_scheme(
    scheme: u32,
) -> std::result::Result<(crate::mlp::Scheme, i64), (Status, String)> {
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
