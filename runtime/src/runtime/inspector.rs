//! The inspector handle [`Inspector`] (`weft_inspector_t` of the C ABI):
//! what a compiled inspector reports per access (§4.4.1) and where it goes,
//! into an irregular region's slab recorder (bank maps, §4.4.2, and records
//! for the dependence check, §4.4.6) or an affine nest's access list (bank
//! vectors of iteration blocks, §5.5.1), plus the inline state that compiled
//! inspectors fill themselves (`weft_inspect_fast`).

use crate::deps::Access;
use crate::error::invalid;
use crate::inspect::{InlineRecs, SlabRecorder, REC_BYTES};
use crate::{Result, RuntimeError};

/// Collects the accesses an inspector reports (the `weft_inspector_t` of the C ABI).
/// Irregular regions record straight into a [`SlabRecorder`] (bank-map bits and
/// compact records, see [`crate::inspect`]); affine nests keep every access for
/// their weighted bank vectors.
pub struct Inspector {
    pub(super) lo: i64,
    pub(super) hi: i64,
    /// [`RuntimeConfig::inspect_inline`].
    pub(super) inline: bool,
    pub(super) layout: Layout,
    pub(super) accesses: Vec<Access>,
    pub(super) error: Option<String>,
    /// The inspector declared that it reports only unchecked accesses
    /// ([`crate::abi::weft_inspect_maps_only`]).
    pub(super) maps_only: bool,
    /// The inspector declared that the loop needs no dependence check
    /// (parallel by the programmer's annotation) without declaring
    /// [`Inspector::maps_only`] ([`crate::abi::weft_inspect_no_check`]).
    pub(super) no_check: bool,
    /// Where inline recorders write the records of reads the recorder
    /// drops ([`InlineRecs::Drop`], a cursor that does not advance).
    /// Aligned as records are (8 bytes).
    pub(super) sink: Box<[u64; REC_BYTES / 8]>,
    /// The runtime asks for the checked writes only
    /// ([`crate::abi::weft_inspect_writes_first`]).
    pub(super) writes_only: bool,
}

/// `(core, start, end)` of every per-core chunk (`chunk` has P+1 bounds).
pub(super) fn core_ranges(chunk: &[i64]) -> Vec<(usize, i64, i64)> {
    chunk
        .windows(2)
        .enumerate()
        .map(|(c, w)| (c, w[0], w[1]))
        .collect()
}

/// An inspector as the runtime calls it: `insp(lo, hi, h)` reports the
/// accesses of iterations `[lo, hi)` to `h`. `Sync`: native irregular
/// inspections run the chunks of different cores concurrently.
pub type InspectRef<'a> = &'a (dyn Fn(i64, i64, &mut Inspector) + Sync);

/// What [`Runtime::inspect`] hands back: the accesses kept (affine nests),
/// the layout (with its recorder, for irregular regions), and whether the
/// inspector declared every report unchecked.
pub(super) struct Inspected {
    pub(super) accesses: Vec<Access>,
    pub(super) layout: Layout,
    pub(super) maps_only: bool,
    /// The inspector declared that the loop needs no dependence check
    /// ([`crate::abi::weft_inspect_no_check`]).
    pub(super) no_check: bool,
}

pub(super) enum Layout {
    /// Slabs of an irregular region.
    Slabs(Box<SlabRecorder>),
    /// Iteration blocks of `ib` iterations from `lo`.
    Blocks { ib: i64 },
}

impl Inspector {
    /// See [`crate::abi::weft_inspect_line_shift`]: the bank maps' line shift
    /// for irregular regions, 0 for affine nests.
    pub fn line_shift(&self) -> u32 {
        match &self.layout {
            Layout::Slabs(r) => r.line_shift(),
            Layout::Blocks { .. } => 0,
        }
    }

    /// See [`crate::abi::weft_inspect_fast`]: adds the counts `st` holds to
    /// the recorder's (and zeroes them), then fills `st` for iteration
    /// `iter`: the range of its slab within the inspected range, the slab's
    /// bank-map row and the bank table, with `enabled = 1` when the inline
    /// path is exact ([`SlabRecorder::inline_lookup`]). An `iter` outside
    /// the inspected range leaves an empty range (the caller's access then
    /// takes `weft_inspect_access`, which reports the error). With
    /// `enabled`, it also says where checked reads of the slab go
    /// ([`SlabRecorder::inline_records`]). `st` is filled even when handing
    /// back its records fails ([`Inspector::fast_flush`]'s error).
    pub fn fast_refresh(&mut self, iter: i64, st: &mut crate::abi::InspectFast) -> Result<()> {
        let flushed = self.fast_flush(st);
        let (lo, hi) = (self.lo, self.hi);
        let line_shift = self.line_shift();
        let mut out = crate::abi::InspectFast {
            shift: line_shift,
            ..Default::default()
        };
        if let (true, Layout::Slabs(r)) = (self.inline, &mut self.layout) {
            if let Some((table, lsb, mask)) = r.inline_lookup() {
                out.table = table.as_ptr();
                out.lsb = lsb;
                out.mask = mask;
                out.enabled = 1;
                if iter >= lo && iter < hi {
                    let s = r.inline_slab(iter);
                    (out.lo, out.hi, out.row) = (s.lo.max(lo), s.hi.min(hi), s.row);
                    out.slab_end = s.hi;
                    out.unit = s.unit;
                    match r.inline_records(out.lo, out.hi) {
                        InlineRecs::Keep { cur, end } => {
                            (out.recs, out.recs_end, out.rec_step) = (cur, end, REC_BYTES as u32);
                            if let Some((bits, gmin, span)) = r.inline_read_filter() {
                                (out.wbits, out.wgmin, out.wspan) = (bits, gmin, span);
                            }
                        }
                        InlineRecs::Drop => {
                            let p = self.sink.as_mut_ptr() as *mut u8;
                            // SAFETY: one past the end of the sink.
                            (out.recs, out.recs_end) = (p, unsafe { p.add(REC_BYTES) });
                        }
                        InlineRecs::Report => {}
                    }
                }
            }
        }
        *st = out;
        flushed
    }

    /// See [`crate::abi::weft_inspect_fast_flush`]: adds the counts `st`
    /// holds to the recorder's and zeroes them, and keeps the records of
    /// checked reads written up to `st.recs` (which it clears). An error when
    /// `st.recs` is not where such records can end (kept for the region's
    /// report too).
    pub fn fast_flush(&mut self, st: &mut crate::abi::InspectFast) -> Result<()> {
        let (reported, touches) = (st.reported, st.touches);
        (st.reported, st.touches) = (0, 0);
        let (cur, end, step) = (st.recs, st.recs_end, st.rec_step);
        (st.recs, st.recs_end, st.rec_step) = (std::ptr::null_mut(), std::ptr::null_mut(), 0);
        let Layout::Slabs(r) = &mut self.layout else {
            return Ok(());
        };
        r.add_inline_counts(reported, touches);
        if cur.is_null() || step == 0 {
            return Ok(());
        }
        // SAFETY: per the ABI (`InspectFast`), the inspector wrote every
        // record from the first free one up to `cur` and from `end` on.
        unsafe { r.commit_inline(cur, end) }.inspect_err(|e| {
            self.error.get_or_insert(e.to_string());
        })
    }

    /// Records one report of `weft_inspect_access` (`is_write` 0: checked
    /// read, [`crate::abi::ACCESS_UNCHECKED`]: unchecked, else checked write).
    pub fn report(&mut self, iter: i64, addr: u64, size: u32, is_write: u32) -> Result<()> {
        match is_write {
            crate::abi::ACCESS_UNCHECKED => self.access_unchecked(iter, addr, size),
            0 | 1 => self.access_checked(iter, addr, size, is_write == 1),
            w => Err(self.fail(format!(
                "is_write {w} is not 0 (read), 1 (write) or {} (unchecked)",
                crate::abi::ACCESS_UNCHECKED
            ))),
        }
    }

    /// The error `m` of a report, kept for the region's report too (the
    /// region then fails before running anything).
    #[cold]
    #[inline(never)]
    pub(super) fn fail(&mut self, m: String) -> RuntimeError {
        self.error.get_or_insert(m.clone());
        invalid(m)
    }

    /// Records an access that cannot take part in a conflict (bank maps
    /// only; a read for affine nests). Same range rule as [`Inspector::access`].
    #[inline]
    pub fn access_unchecked(&mut self, iter: i64, addr: u64, size: u32) -> Result<()> {
        match &mut self.layout {
            Layout::Slabs(r) if iter >= self.lo && iter < self.hi => {
                r.record_unchecked(iter, addr, size);
                Ok(())
            }
            _ => self.access(iter, addr, size, false),
        }
    }

    /// See [`crate::abi::weft_inspect_range`]: `bytes` bytes from `addr` that
    /// cannot conflict, in one report. Same range rule as [`Inspector::access`];
    /// affine nests take it as one read (at most 4 GB).
    pub fn access_range(&mut self, iter: i64, addr: u64, bytes: u64) -> Result<()> {
        if iter < self.lo || iter >= self.hi {
            return Err(self.out_of_range(iter));
        }
        if let Err(m) = crate::abi::check_span(addr, bytes) {
            return Err(self.fail(m));
        }
        match &mut self.layout {
            Layout::Slabs(r) => {
                r.record_range(iter, addr, bytes);
                Ok(())
            }
            Layout::Blocks { .. } if bytes == 0 => Ok(()),
            Layout::Blocks { .. } => {
                let size = u32::try_from(bytes).map_err(|_| {
                    invalid(format!(
                        "an affine inspector reported {bytes} bytes at once"
                    ))
                })?;
                self.access(iter, addr, size, false)
            }
        }
    }

    /// A handle for inspecting `[lo, hi)` into `layout`, nothing reported yet.
    pub(super) fn new(lo: i64, hi: i64, inline: bool, layout: Layout) -> Inspector {
        Inspector {
            lo,
            hi,
            inline,
            layout,
            accesses: Vec::new(),
            error: None,
            maps_only: false,
            no_check: false,
            sink: Box::new([0; REC_BYTES / 8]),
            writes_only: false,
        }
    }

    /// See [`crate::abi::weft_inspect_writes_first`]: whether the inspector
    /// is to run its writes-only slice (then its recorder notes that it
    /// holds the writes only).
    pub fn writes_first(&mut self) -> bool {
        if let (true, Layout::Slabs(r)) = (self.writes_only, &mut self.layout) {
            r.mark_writes_only();
        }
        self.writes_only
    }

    /// See [`crate::abi::weft_inspect_maps_only`].
    pub fn declare_maps_only(&mut self) {
        self.maps_only = true;
    }

    /// See [`crate::abi::weft_inspect_no_check`].
    pub fn declare_no_check(&mut self) {
        self.no_check = true;
    }

    /// Records a read or write the dependence check must see (`weft_inspect_access`
    /// with `is_write` 0 or 1); an error after [`Inspector::declare_maps_only`].
    pub fn access_checked(&mut self, iter: i64, addr: u64, size: u32, write: bool) -> Result<()> {
        if self.maps_only {
            let m = "inspector declared only unchecked reports (weft_inspect_maps_only) \
                     but reported a checked access"
                .to_string();
            self.error.get_or_insert(m.clone());
            return Err(invalid(m));
        }
        self.access(iter, addr, size, write)
    }

    /// The error of an access of iteration `iter` outside the inspected range
    /// (kept for the region's report too).
    #[cold]
    #[inline(never)]
    pub(super) fn out_of_range(&mut self, iter: i64) -> RuntimeError {
        let m = format!(
            "inspector reported iteration {iter} outside [{}, {})",
            self.lo, self.hi
        );
        self.error.get_or_insert(m.clone());
        invalid(m)
    }

    /// Records one access of iteration `iter` (must lie in the inspected range).
    #[inline]
    pub fn access(&mut self, iter: i64, addr: u64, size: u32, write: bool) -> Result<()> {
        if iter < self.lo || iter >= self.hi {
            return Err(self.out_of_range(iter));
        }
        match &mut self.layout {
            Layout::Slabs(r) => r.record(iter, addr, size, write),
            Layout::Blocks { ib } => self.accesses.push(Access {
                unit: ((iter - self.lo) / *ib) as u32,
                addr,
                size: size.max(1),
                write,
            }),
        }
        Ok(())
    }
}
