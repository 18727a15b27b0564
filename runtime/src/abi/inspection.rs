//! What compiled inspectors call (§4.4.1 inspector, §4.4.2 bank maps,
//! §4.4.6 dependence check): access and range reports, the declarations
//! (maps only, writes first), and the inline recording state
//! [`InspectFast`] with its refresh, flush, checked-access and gather
//! calls.

use super::*;
use crate::runtime::Inspector;
use std::ffi::c_void;

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

/// Declares that the calling inspector's loop needs no dependence check
/// although the inspector does not declare [`weft_inspect_maps_only`]: the
/// loop is parallel by the programmer's assertion (weft's `weft.parallel`
/// annotation, as an OpenMP `parallel for`), every report is unchecked
/// ([`ACCESS_UNCHECKED`]), but its bank maps seldom fill, so the runtime
/// inspects it in whole chunks rather than in probes. Compilers call it at
/// inspector entry, before any report. The runtime may then run the region
/// as the Original schedule does (static chunks, no inspection) until it
/// has run often enough to amortise one (`WEFT_BLP_ASIDE`, rule 1 of
/// "Stepping aside" in `docs/runtime.md`).
#[no_mangle]
pub extern "C" fn weft_inspect_no_check(h: *mut Inspector) -> i32 {
    guard(|| {
        handle(h)?.declare_no_check();
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
pub(super) fn handle_and_state<'a>(
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
