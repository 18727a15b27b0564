//! Gathered reads (`weft_inspect_gather`): the reads `base + idx[j] *
//! scale` of one indirect access reported in a single call and recorded
//! exactly as the compiled wrappers record them one by one (bank-map bits,
//! §4.4.2; counts; records of checked reads for the §4.4.6 check): the inline
//! path and the per-read fallback.

use super::*;
use crate::error::invalid;
use crate::Result;

/// The reads of one [`Inspector::gather`] report
/// ([`crate::abi::weft_inspect_gather`]): `size` bytes at `base + idx[j] *
/// scale` for `j < n`, `idx` holding `n` signed integers of `idx_bytes` (4 or
/// 8) bytes; `kind` is `is_write` of `weft_inspect_access` (0: checked read,
/// [`crate::abi::ACCESS_UNCHECKED`]: unchecked).
#[derive(Clone, Copy, Debug)]
pub struct Gather {
    /// Address of element 0 of the gathered array.
    pub base: u64,
    /// The indices (`n` of them must be readable).
    pub idx: *const u8,
    /// Number of reads.
    pub n: u64,
    /// Bytes per index: 4 (`int32_t`) or 8 (`int64_t`).
    pub idx_bytes: u32,
    /// Bytes per index step.
    pub scale: i64,
    /// Bytes per read.
    pub size: u32,
    /// 0 (checked read) or 2 (unchecked).
    pub kind: u32,
}

impl Gather {
    /// Address of read `j < n` (`idx_bytes` checked to be 4 or 8).
    fn address(&self, j: u64) -> u64 {
        match self.idx_bytes {
            4 => self.address_of::<i32>(j),
            _ => self.address_of::<i64>(j),
        }
    }

    /// Address of read `j < n`, the indices being `I`s.
    #[inline(always)]
    fn address_of<I: GatherIndex>(&self, j: u64) -> u64 {
        // SAFETY: the caller of `weft_inspect_gather` passes `n` readable
        // indices of `idx_bytes` bytes, the size of `I`.
        let ix = unsafe { (self.idx as *const I).add(j as usize).read_unaligned() }.to_i64();
        self.base.wrapping_add(ix.wrapping_mul(self.scale) as u64)
    }
}

/// An index type of [`Gather`] (`i32` or `i64`).
pub(super) trait GatherIndex: Copy {
    fn to_i64(self) -> i64;
}

impl GatherIndex for i32 {
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
}

impl GatherIndex for i64 {
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self
    }
}

/// Sets the bank bit of address `x` from the inline state's bank lookup:
/// banks 0..64 into `word0` (every bank on most machines; a read-modify-write
/// of the row per access would chain one access's marking to the next through
/// the store), others straight into the row.
///
/// # Safety
/// `table`, `lsb`, `mask` and `row` of a filled [`crate::abi::InspectFast`].
#[inline(always)]
pub(super) unsafe fn mark_bank(st: &crate::abi::InspectFast, word0: &mut u64, x: u64) {
    // SAFETY: `(x >> lsb) & mask` indexes the runtime's table of `mask + 1`
    // entries, and a bank indexes the current slab's row (the contract).
    unsafe {
        let b = *st.table.add(((x >> st.lsb) & st.mask) as usize) as usize;
        match b < 64 {
            true => *word0 |= 1u64 << b,
            false => *st.row.add(b >> 6) |= 1u64 << (b & 63),
        }
    }
}

/// Writes the 16-byte record of a checked read at `*recs` and advances it
/// by `step`, as the compiled wrappers do.
///
/// # Safety
/// `*recs < recs_end` of a filled [`crate::abi::InspectFast`] (a free record
/// of the recorder's buffer, 8-byte aligned).
#[inline(always)]
pub(super) unsafe fn push_read_record(
    recs: &mut *mut u8,
    step: usize,
    a: u64,
    unit: u32,
    size: u32,
) {
    // SAFETY: the caller's contract.
    unsafe {
        let r = *recs;
        (r as *mut u64).write(a);
        (r.add(8) as *mut u32).write(unit);
        (r.add(12) as *mut u32).write(size);
        *recs = r.add(step);
    }
}

/// [`gather_inline`] for reads aligned to their power-of-two `size` of at
/// most 16 bytes, no longer than the bank maps' line: each lies in one line
/// and in one word of the read filter. Same records, bits and counts.
#[inline(never)]
pub(super) fn gather_aligned<I: GatherIndex, const CHECKED: bool>(
    st: &mut crate::abi::InspectFast,
    g: &Gather,
    from: u64,
    size: u32,
) -> u64 {
    let (shift, wbits, wgmin, wspan) = (st.shift, st.wbits, st.wgmin, st.wspan);
    let (mut recs, recs_end, step, unit) = (st.recs, st.recs_end, st.rec_step as usize, st.unit);
    let keep_reads = CHECKED && step != 0;
    let gshift = crate::deps::GRANULE.trailing_zeros();
    // The granules of one read (1 for up to 4 bytes, 2 for 8, 4 for 16).
    let gmask = (1u64 << (size as u64).div_ceil(crate::deps::GRANULE)) - 1;
    let (mut last_block, mut word0, mut j) = (u64::MAX, 0u64, from);
    while j < g.n {
        let a = g.address_of::<I>(j);
        let keep = keep_reads && {
            let i = (a >> gshift).wrapping_sub(wgmin);
            // SAFETY: `i < wspan`: a word of the filter.
            wspan == 0
                || (i < wspan && unsafe { *wbits.add((i >> 6) as usize) } >> (i & 63) & gmask != 0)
        };
        if keep && recs >= recs_end {
            break;
        }
        j += 1;
        let block = a >> shift;
        if block != last_block {
            last_block = block;
            // SAFETY: `st` is filled (the caller's slab is current).
            unsafe { mark_bank(st, &mut word0, a) };
        }
        if keep {
            // SAFETY: `recs < recs_end`, tested above.
            unsafe { push_read_record(&mut recs, step, a, unit, size) };
        }
    }
    if word0 != 0 {
        // SAFETY: the current slab's row has at least one word.
        unsafe { *st.row |= word0 };
    }
    // One line each.
    st.reported += j - from;
    st.touches += j - from;
    st.recs = recs;
    j
}

/// The inline path of [`Inspector::gather`] from read `j` on, with `st`'s
/// slab current: records reads into `st` (bank bits into its row, counts,
/// records of checked reads when `CHECKED`) until the last one or one it
/// cannot take (over more than two lines, or a record to keep and no free
/// one), whose index it returns (`g.n` when all were taken).
#[inline(never)]
pub(super) fn gather_inline<I: GatherIndex, const CHECKED: bool>(
    st: &mut crate::abi::InspectFast,
    g: &Gather,
    mut j: u64,
    size: u32,
) -> u64 {
    let (shift, wbits, wgmin, wspan) = (st.shift, st.wbits, st.wgmin, st.wspan);
    let (mut recs, recs_end, step, unit) = (st.recs, st.recs_end, st.rec_step as usize, st.unit);
    let keep_reads = CHECKED && step != 0;
    let (mut reported, mut touches) = (st.reported, st.touches);
    let gshift = crate::deps::GRANULE.trailing_zeros();
    let (mut last_block, mut word0) = (u64::MAX, 0u64);
    while j < g.n {
        let a = g.address_of::<I>(j);
        let end = a.wrapping_add(size as u64 - 1);
        let (first, last) = (a >> shift, end >> shift);
        let extra = last.wrapping_sub(first);
        if extra >= 2 {
            break;
        }
        let keep = keep_reads && {
            // The read filter: one bitmap word for reads inside one word's
            // granules, the general test otherwise.
            let (g0, g1) = (a >> gshift, end >> gshift);
            let i = g0.wrapping_sub(wgmin);
            if wspan == 0 {
                true
            } else if i < wspan && g1 - g0 < 64 - (i & 63) {
                let m = (2u64 << (g1 - g0)).wrapping_sub(1) << (i & 63);
                // SAFETY: `i < wspan`: a word of the filter.
                unsafe { *wbits.add((i >> 6) as usize) & m != 0 }
            } else {
                !unwritten_read(st, a, end)
            }
        };
        if keep && recs >= recs_end {
            break;
        }
        j += 1;
        reported += 1;
        touches += extra + 1;
        if first != last_block || last != last_block {
            // SAFETY: `st` is filled (the caller's slab is current).
            unsafe {
                mark_bank(st, &mut word0, a);
                mark_bank(st, &mut word0, end);
            }
            last_block = last;
        }
        if keep {
            // SAFETY: `recs < recs_end`, tested above.
            unsafe { push_read_record(&mut recs, step, a, unit, size) };
        }
    }
    if word0 != 0 {
        // SAFETY: the current slab's row has at least one word.
        unsafe { *st.row |= word0 };
    }
    (st.reported, st.touches, st.recs) = (reported, touches, recs);
    j
}

/// Whether the read of bytes `[a, end]` touches no granule the read filter of
/// `st` marks written (`wspan = 0`: no filter, false). Exact: granules
/// outside `[wgmin, wgmin + wspan)` are unwritten.
#[inline(always)]
pub(super) fn unwritten_read(st: &crate::abi::InspectFast, a: u64, end: u64) -> bool {
    if st.wspan == 0 {
        return false;
    }
    let shift = crate::deps::GRANULE.trailing_zeros();
    let (g0, g1) = (a >> shift, end >> shift);
    let (lo, hi) = (st.wgmin, st.wgmin + st.wspan);
    if g1 < g0 {
        return false; // wrapped around the address space: keep it
    }
    if g1 < lo || g0 >= hi {
        return true;
    }
    let (s, e) = (g0.max(lo) - lo, g1.min(hi - 1) - lo);
    for w in s >> 6..=e >> 6 {
        let from = if w == s >> 6 { s & 63 } else { 0 };
        let to = if w == e >> 6 { e & 63 } else { 63 };
        let m = (u64::MAX >> (63 - to)) & (u64::MAX << from);
        // SAFETY: `w <= (wspan - 1) / 64`, within the filter's words.
        if unsafe { *st.wbits.add(w as usize) } & m != 0 {
            return false;
        }
    }
    true
}

impl Inspector {
    /// See [`crate::abi::weft_inspect_gather`]: iteration `iter` reads
    /// `g.size` bytes at `g.base + idx[j] * g.scale` for every `j < g.n`, one
    /// report each, recorded as the compiled wrappers would record them one
    /// by one (checked reads: bank bits, counts and a record unless the read
    /// filter drops it; unchecked reads: bank bits and counts). `st` holds
    /// the inline state the caller handed back (counts and record cursor
    /// current, accumulated bits written back) and is current again on
    /// return. Elements the inline path cannot take (no inline path, `iter`
    /// outside its slab, no free record, an access over more than two
    /// lines) go the way of [`crate::abi::weft_inspect_checked`].
    pub fn gather(
        &mut self,
        iter: i64,
        st: &mut crate::abi::InspectFast,
        g: &Gather,
    ) -> Result<()> {
        let kind = g.kind;
        if kind != 0 && kind != crate::abi::ACCESS_UNCHECKED {
            let m = format!(
                "weft_inspect_gather: is_write = {kind} (only 0, a checked read, or 2, unchecked)"
            );
            self.error.get_or_insert(m.clone());
            return Err(invalid(m));
        }
        if kind == 0 && self.maps_only {
            let m = "weft_inspect_gather: checked reads from an inspector that declared \
                     only unchecked reports (weft_inspect_maps_only)"
                .to_string();
            self.error.get_or_insert(m.clone());
            return Err(invalid(m));
        }
        if g.idx_bytes != 4 && g.idx_bytes != 8 {
            let m = format!(
                "weft_inspect_gather: index width {} (4 or 8 bytes)",
                g.idx_bytes
            );
            self.error.get_or_insert(m.clone());
            return Err(invalid(m));
        }
        let size = g.size.max(1);
        let mut j = 0u64;
        // The inline path: the elements of one slab, straight into its row;
        // an element it cannot take goes through the runtime alone.
        // Reads aligned to their power-of-two size of at most 16 bytes lie in
        // one line and one word of the read filter (`wgmin` is a multiple
        // of 64 granules): the short loop.
        let low = size as u64 - 1;
        let aligned = size.is_power_of_two()
            && size <= 16
            && (g.base | g.scale as u64) & low == 0
            && 1u64 << st.shift.min(63) >= size as u64;
        while j < g.n && self.gather_inline_ok(iter, st, kind) {
            j = match (aligned, g.idx_bytes, kind) {
                (true, 4, 0) => gather_aligned::<i32, true>(st, g, j, size),
                (true, 4, _) => gather_aligned::<i32, false>(st, g, j, size),
                (true, _, 0) => gather_aligned::<i64, true>(st, g, j, size),
                (true, _, _) => gather_aligned::<i64, false>(st, g, j, size),
                (false, 4, 0) => gather_inline::<i32, true>(st, g, j, size),
                (false, 4, _) => gather_inline::<i32, false>(st, g, j, size),
                (false, _, 0) => gather_inline::<i64, true>(st, g, j, size),
                (false, _, _) => gather_inline::<i64, false>(st, g, j, size),
            };
            if j < g.n {
                self.gather_one_slow(iter, st, g.address(j), size, kind)?;
                j += 1;
            }
        }
        if j < g.n {
            // One report each, the generic way.
            let flushed = self.fast_flush(st);
            let mut r = flushed;
            while r.is_ok() && j < g.n {
                r = self.report(iter, g.address(j), size, kind);
                j += 1;
            }
            let refilled = self.fast_refresh(iter, st);
            r.and(refilled)?;
        }
        Ok(())
    }

    /// Whether the inline path records the gathered accesses of `iter` of
    /// kind `kind` (see [`Inspector::gather`]).
    pub(super) fn gather_inline_ok(
        &self,
        iter: i64,
        st: &crate::abi::InspectFast,
        kind: u32,
    ) -> bool {
        st.enabled != 0 && iter >= st.lo && iter < st.hi && (kind != 0 || !st.recs.is_null())
    }

    /// One gathered access through the runtime, as
    /// [`crate::abi::weft_inspect_checked`] takes it: hands back `st`,
    /// reports, refills `st` (also after an error).
    #[cold]
    pub(super) fn gather_one_slow(
        &mut self,
        iter: i64,
        st: &mut crate::abi::InspectFast,
        addr: u64,
        size: u32,
        kind: u32,
    ) -> Result<()> {
        let flushed = self.fast_flush(st);
        let r = flushed.and_then(|()| self.report(iter, addr, size, kind));
        let refilled = self.fast_refresh(iter, st);
        r.and(refilled)
    }
}
