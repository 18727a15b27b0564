//! The inline path handed to compiled inspectors (`weft_inspect_fast`): the
//! current slab's bank-map row and the bank table ([`InlineSlab`]), where
//! records of checked reads go ([`InlineRecs`]), and how the records and
//! counts written inline come back into the recorder (§4.4.1 inspector,
//! §4.4.2 bank maps).

use super::*;
use crate::Result;

/// The slab an inline recorder writes to ([`SlabRecorder::inline_slab`]):
/// iterations `[lo, hi)` and the slab's bank-map words.
#[derive(Clone, Copy, Debug)]
pub struct InlineSlab {
    /// First iteration of the slab.
    pub lo: i64,
    /// One past its last iteration.
    pub hi: i64,
    /// The slab's bank-map words (bit `b % 64` of word `b / 64` = bank `b`).
    pub row: *mut u64,
    /// The slab's number (the `slab` field of its records).
    pub unit: u32,
}

/// Where an inline recorder puts the records of the checked reads of the
/// current slab ([`SlabRecorder::inline_records`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InlineRecs {
    /// Into the free records `[cur, end)` after the kept ones, 16 bytes each
    /// ([`REC_BYTES`]: `u64` address, `u32` slab, `u32` size with the write
    /// flag in bit 31): reads upwards from `cur`, writes downwards from
    /// `end`; [`SlabRecorder::commit_inline`] keeps those written.
    Keep {
        /// The first free record.
        cur: *mut u8,
        /// One past the last.
        end: *mut u8,
    },
    /// Nowhere: the recorder keeps no access of these iterations (a lazy
    /// recorder before its first write), so a read only sets bank bits.
    Drop,
    /// Reads must be reported one by one (the recorder starts keeping
    /// accesses inside this range).
    Report,
}

/// Free records an inline recorder gets at least ([`SlabRecorder::inline_records`]),
/// for slabs of at least `INLINE_SPARE / INLINE_SPARE_PER_ITER` iterations.
pub(super) const INLINE_SPARE: usize = 4096;

/// Free records per iteration of a smaller slab (at least
/// [`INLINE_SPARE_MIN`]): a region of a few iterations per slab (stun's
/// column updates, 16 cores over 86 iterations) then does not reserve, and
/// so allocate and copy, 64 KB per recorder and call. A slab that needs
/// more asks again ([`SlabRecorder::inline_records`] grows the buffer).
pub(super) const INLINE_SPARE_PER_ITER: usize = 16;

/// Free records an inline recorder gets at least, whatever the slab.
pub(super) const INLINE_SPARE_MIN: usize = 64;

impl SlabRecorder {
    /// The read filter as an inline recorder tests it (`wbits`, `wgmin`,
    /// `wspan` of [`crate::abi::InspectFast`]): the bitmap's words (one
    /// past the last bit's word), its first granule and its granules.
    /// Valid while the recorder lives.
    pub fn inline_read_filter(&self) -> Option<(*const u64, u64, u64)> {
        self.read_filter
            .as_ref()
            .filter(|w| w.span > 0)
            .map(|w| (w.bits.as_ptr(), w.gmin, w.span as u64))
    }

    /// The bank lookup of an inline recorder ([`InlineSlab`]): `Some` when
    /// recording a one- or two-line access inline gives exactly the bits and
    /// counts of [`SlabRecorder::record_unchecked`]: the bank comes from a
    /// table over address bits at or above the line offset (so any byte of a
    /// line selects the line's bank), and no miss predictor decides which
    /// lines set bits. Lines are at least 16 bytes, so that compilers may
    /// take an access of up to 16 bytes aligned to its size for one line.
    pub fn inline_lookup(&self) -> Option<(&[u16], u32, u64)> {
        if self.filter.is_some() || self.line_shift < 4 {
            return None;
        }
        self.table
            .lookup()
            .filter(|&(_, lsb, mask)| mask == 0 || lsb >= self.line_shift)
    }

    /// Makes the slab of `iter` current, as recording an access of `iter`
    /// does, and returns its iteration range and its bank-map row, for an
    /// inline recorder. The row pointer stays valid while the recorder is
    /// neither dropped nor merged into another (the bits are allocated once,
    /// in [`SlabRecorder::new`], and never resized); the recorder's own
    /// writes to the bits (`mark_lines`, `merge_bits`) are plain `|=` of the
    /// same words, so interleaving them with the inline writes of one thread
    /// loses nothing.
    pub fn inline_slab(&mut self, iter: i64) -> InlineSlab {
        self.set_slab(iter);
        let u = self.cur_unit as usize;
        InlineSlab {
            lo: self.cur_lo,
            hi: self.cur_hi,
            // In bounds: `cur_unit` < number of slabs, `bits` holds `words` per slab.
            row: self.bits[u * self.words..(u + 1) * self.words].as_mut_ptr(),
            unit: self.cur_unit,
        }
    }

    /// Where an inline recorder may put the records of checked reads of
    /// iterations `[lo, hi)` of the current slab ([`InlineRecs`]): the free
    /// records after the kept ones (at least [`INLINE_SPARE`], grown
    /// geometrically) when the recorder keeps every access of those
    /// iterations, nowhere when it keeps none of them, else one report each.
    /// The pointers stay valid until the recorder next records, commits,
    /// merges or is dropped; writes go through [`SlabRecorder::record`] only
    /// after [`SlabRecorder::commit_inline`].
    pub fn inline_records(&mut self, lo: i64, hi: i64) -> InlineRecs {
        if self.rec_from >= hi {
            return InlineRecs::Drop;
        }
        if self.rec_from > lo {
            return InlineRecs::Report;
        }
        if self.recs.capacity() == 0 {
            self.take_buffer();
        }
        let iters = (hi - lo).clamp(0, INLINE_SPARE as i64) as usize;
        self.recs
            .reserve((iters * INLINE_SPARE_PER_ITER).clamp(INLINE_SPARE_MIN, INLINE_SPARE));
        let (len, cap) = (self.recs.len(), self.recs.capacity());
        let p = self.recs.as_mut_ptr();
        // SAFETY: `len <= cap`, both within (or one past) the allocation.
        let (cur, end) = unsafe { (p.add(len), p.add(cap)) };
        self.issued = Some((cur as usize, end as usize, len));
        InlineRecs::Keep {
            cur: cur as *mut u8,
            end: end as *mut u8,
        }
    }

    /// Keeps the records an inline recorder wrote into the free records
    /// handed out by [`SlabRecorder::inline_records`]: reads from the first
    /// free record up to `cur` (exclusive), writes from `end` (inclusive)
    /// up to the last free record, the last one written first. All are
    /// accesses of the current slab, so their order among themselves does
    /// not change the dependence check's edges (within one slab it links
    /// nothing, and a slab's write hides its own reads from later slabs
    /// whatever their order); the writes are kept after the reads. Nothing
    /// to keep when `cur` and `end` are the pointers handed out (an
    /// inspector that records nothing inline may record one by one
    /// meanwhile). An error, keeping nothing, when `cur` or `end` is not a
    /// record boundary within the free records or `cur > end`, or when
    /// accesses were recorded one by one after inline ones.
    ///
    /// # Safety
    /// Every record in `[first free, cur)` and `[end, last free]` must have
    /// been written (16 bytes each, the layout of [`InlineRecs::Keep`], the
    /// write flag set in the second range only) since
    /// [`SlabRecorder::inline_records`] handed them out.
    pub unsafe fn commit_inline(&mut self, cur: *const u8, end: *const u8) -> Result<()> {
        let (c, e) = (cur as usize, end as usize);
        let Some((issued, issued_end, issued_len)) = self.issued.take() else {
            return Err(crate::error::invalid(format!(
                "inline record cursor {c:#x} handed back, but none is out"
            )));
        };
        if c == issued && e == issued_end {
            return Ok(());
        }
        let len = self.recs.len();
        let base = self.recs.as_ptr() as usize + len * REC_BYTES;
        if base != issued || len != issued_len {
            return Err(crate::error::invalid(
                "accesses were recorded one by one while inline records were pending \
                 (report checked accesses with weft_inspect_checked)",
            ));
        }
        let boundary = |x: usize| x >= base && x <= issued_end && (x - base) % REC_BYTES == 0;
        if !boundary(c) || !boundary(e) || c > e {
            return Err(crate::error::invalid(format!(
                "inline record cursors {c:#x}, {e:#x} are not record boundaries in order \
                 in the free records [{base:#x}, {issued_end:#x}]"
            )));
        }
        let (mut nr, nw) = ((c - base) / REC_BYTES, (issued_end - e) / REC_BYTES);
        if let Some(w) = &self.read_filter {
            // SAFETY: the reads lie in the free records after `len` (`c <=
            // issued_end`), all written by the caller (any bit pattern is a
            // valid `Rec`); only reads are compacted, below `c <= e`.
            let reads =
                unsafe { std::slice::from_raw_parts_mut(self.recs.as_mut_ptr().add(len), nr) };
            nr = retain_touching(reads, w);
        }
        // SAFETY: both ranges lie in the free records (`base <= c <= e <=
        // issued_end`, the end of the allocation); the writes move down to
        // right after the (kept) reads (`ptr::copy` allows the overlap), and
        // the caller wrote all of them (any bit pattern is a valid `Rec`).
        unsafe {
            let p = self.recs.as_mut_ptr().add(len);
            std::ptr::copy(p.add((e - base) / REC_BYTES), p.add(nr), nw);
            self.recs.set_len(len + nr + nw);
        }
        self.wrecs.extend_from_slice(&self.recs[len + nr..]);
        debug_assert!(self.recs[len..]
            .iter()
            .enumerate()
            .all(|(i, r)| r.unit == self.cur_unit
                && (r.size_w & WRITE_BIT != 0) == (i >= nr)
                && r.size_w & !WRITE_BIT > 0));
        Ok(())
    }

    /// Adds the counts of accesses an inline recorder recorded itself:
    /// `reported` accesses touching `touches` lines (see
    /// [`SlabRecorder::accesses`] and [`SlabRecorder::filter_counts`]).
    pub fn add_inline_counts(&mut self, reported: u64, touches: u64) {
        self.reported += reported as usize;
        self.touches += touches;
    }
}
