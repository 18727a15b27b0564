//! Running an inspector over a region's chunks (§4.4.1: each core inspects
//! the iterations it owns, so the inspector's cost is hidden in the parallel
//! region, §4.5.2), and probing slabs whose bank map fills early.
//!
//! Irregular inspections record through [`crate::inspect::SlabRecorder`]
//! (bank-map bits and compact records; the dependence check only when
//! something is reported as written); [`RegionStats::inspector_breakdown`]
//! says where the time went. Natively, each core inspects its own chunk on
//! its worker, concurrently (one recorder per chunk, merged in chunk order);
//! in trace mode the chunks are inspected one after another, each on its
//! virtual core.

use super::*;
use crate::error::invalid;
use crate::inspect::{SlabLayout, SlabRecorder};
use crate::{Result, RuntimeError};
use std::sync::atomic::Ordering;

/// With nothing to go by, the first probe of a slab in
/// [`Runtime::inspect_chunk`] covers this fraction of it (at least one
/// iteration).
const PROBE_PARTS: i64 = 256;
/// Slabs shorter than this are inspected whole (probing them would cost more
/// calls than it could skip).
const PROBE_MIN_SLAB: i64 = 32;
/// After two slabs in a row that never filled, one slab in this many is probed.
const PROBE_RETRY: u32 = 8;

/// Where [`Runtime::inspect_chunk`] probes the slabs of one chunk.
#[derive(Default)]
pub(super) struct Probe {
    /// Iterations the last slab that filled needed (as far as its probes
    /// tell: the end of the probe that found it full).
    pub(super) need: Option<i64>,
    /// Slabs in a row that did not fill.
    pub(super) unfilled: u32,
}

impl Probe {
    /// End of the first probe of slab `u` = `[lo, hi)`, and the length of
    /// the next one.
    fn first(&self, u: u32, lo: i64, hi: i64) -> (i64, i64) {
        let len = hi - lo;
        if self.unfilled >= 2 && u % PROBE_RETRY != 0 {
            return (hi, len);
        }
        match self.need {
            Some(n) => ((lo + n - n / 8).clamp(lo + 1, hi), (n / 8).max(1)),
            None => {
                let s = (len / PROBE_PARTS).max(1);
                (lo + s, s)
            }
        }
    }

    /// The slab filled within its first `n` iterations.
    fn filled(&mut self, n: i64) {
        self.need = Some(n);
        self.unfilled = 0;
    }

    /// The slab was inspected to its end without filling.
    fn unfilled(&mut self) {
        self.unfilled += 1;
    }
}

/// The declarations an inspector makes about its loop
/// ([`Runtime::declarations`]).
#[derive(Clone, Copy, Default)]
struct Declared {
    /// Only unchecked reports ([`crate::abi::weft_inspect_maps_only`]).
    maps_only: bool,
    /// Parallel by annotation ([`crate::abi::weft_inspect_no_check`]).
    no_check: bool,
}

impl Runtime {
    /// Runs the inspector over `[lo, hi)` in the per-core `ranges` (core,
    /// start, end), in order (the recorders rely on non-decreasing
    /// iterations). Each core inspects the
    /// iterations it owns (§4.4.1: the inspector is part of the parallel region,
    /// and its cost is "hidden during parallel execution", §4.5.2), so in trace
    /// mode the inspection of chunk `c` is recorded on virtual core `c`, not all
    /// on core 0.
    pub(super) fn inspect(
        &self,
        lo: i64,
        hi: i64,
        ranges: &[(usize, i64, i64)],
        layout: Layout,
        insp: InspectRef<'_>,
    ) -> Result<Inspected> {
        self.inspect_phase(lo, hi, ranges, layout, insp, false)
    }

    /// [`Runtime::inspect`], asking an inspector with a writes-only slice to
    /// run that slice (`writes_only`, [`crate::abi::weft_inspect_writes_first`]).
    pub(super) fn inspect_phase(
        &self,
        lo: i64,
        hi: i64,
        ranges: &[(usize, i64, i64)],
        layout: Layout,
        insp: InspectRef<'_>,
        writes_only: bool,
    ) -> Result<Inspected> {
        let mut h = Inspector::new(lo, hi, self.cfg.inspect_inline, layout);
        h.writes_only = writes_only;
        let tracing = self.tracing();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for &(c, a, b) in ranges {
                if a >= b {
                    continue;
                }
                if tracing {
                    self.cur_core.store(c as u32, Ordering::Relaxed);
                }
                insp(a, b, &mut h);
                if h.error.is_some() {
                    break;
                }
            }
        }));
        if tracing {
            self.cur_core.store(0, Ordering::Relaxed);
        }
        run.map_err(|_| RuntimeError::Panicked("inspector panicked".into()))?;
        if let Some(e) = h.error {
            return Err(invalid(e));
        }
        Ok(Inspected {
            accesses: h.accesses,
            layout: h.layout,
            maps_only: h.maps_only,
            no_check: h.no_check,
        })
    }

    /// Runs the inspector over `[lo, hi)`, part of core `core`'s chunk, into
    /// the slab recorder `rec` (in trace mode recorded on virtual core `core`).
    /// Also returns whether the inspector declared every report unchecked.
    pub(super) fn inspect_slabs(
        &self,
        core: usize,
        lo: i64,
        hi: i64,
        rec: SlabRecorder,
        insp: InspectRef<'_>,
    ) -> Result<(SlabRecorder, bool)> {
        self.inspect_slabs_phase(core, lo, hi, rec, insp, false)
    }

    /// [`Runtime::inspect_slabs`], with the writes-only slice when `writes_only`.
    pub(super) fn inspect_slabs_phase(
        &self,
        core: usize,
        lo: i64,
        hi: i64,
        rec: SlabRecorder,
        insp: InspectRef<'_>,
        writes_only: bool,
    ) -> Result<(SlabRecorder, bool)> {
        match self.inspect_phase(
            lo,
            hi,
            &[(core, lo, hi)],
            Layout::Slabs(Box::new(rec)),
            insp,
            writes_only,
        )? {
            Inspected {
                layout: Layout::Slabs(r),
                maps_only,
                ..
            } => Ok((*r, maps_only)),
            _ => Err(RuntimeError::Panicked(
                "internal: the inspector lost its slab layout".into(),
            )),
        }
    }

    /// What `insp` declares about its loop, found by running it over
    /// iteration `lo` alone into a throwaway layout (an inspector that fails
    /// declares nothing).
    fn declarations(&self, lo: i64, insp: InspectRef<'_>) -> Declared {
        let one = [(0, lo, lo + 1)];
        self.inspect(lo, lo + 1, &one, Layout::Blocks { ib: 1 }, insp)
            .map_or(Declared::default(), |i| Declared {
                maps_only: i.maps_only,
                no_check: i.no_check,
            })
    }

    /// Whether `insp` declares only unchecked reports
    /// ([`crate::abi::weft_inspect_maps_only`]).
    pub(super) fn declares_maps_only(&self, lo: i64, insp: InspectRef<'_>) -> bool {
        self.declarations(lo, insp).maps_only
    }

    /// Whether `insp`'s loop needs no dependence check: it declares only
    /// unchecked reports ([`Runtime::declares_maps_only`]) or that it is
    /// parallel by annotation ([`crate::abi::weft_inspect_no_check`]). Such a
    /// region's Original schedule is static chunks without inspection.
    pub(super) fn declares_parallel(&self, lo: i64, insp: InspectRef<'_>) -> bool {
        let d = self.declarations(lo, insp);
        d.maps_only || d.no_check
    }

    /// Inspects core `core`'s chunk `[a, b)` into `rec`, skipping what
    /// cannot change the bank maps.
    ///
    /// A slab's bank map only gains bits, so once every bank is set, more
    /// unchecked accesses of that slab change nothing. When the inspector
    /// declares that it reports only unchecked accesses
    /// ([`crate::abi::weft_inspect_maps_only`]; the compiler does so for loops
    /// it proves parallel), [`RuntimeConfig::inspect_saturate`] is on and no
    /// miss predictor is used (its state depends on every access), each slab
    /// is inspected in probes, and the rest of the slab is skipped as soon as
    /// its map is full. The first probe tells whether the inspector declared;
    /// if not, the rest of the chunk is inspected in one call.
    ///
    /// Probes: a slab's first probe ends where the chunk's last full slab
    /// became full, less an eighth ([`Probe`]); each further probe is twice
    /// as long as the one before, starting at an eighth of that point. With
    /// nothing to go by, the first probe is 1/[`PROBE_PARTS`] of the slab.
    /// After two slabs in a row that never filled, slabs are inspected whole
    /// (one call each), with a probed one every [`PROBE_RETRY`] slabs. Slabs
    /// under [`PROBE_MIN_SLAB`] iterations are inspected whole.
    ///
    /// The bank maps, hence the schedule, are exactly those of inspecting
    /// every iteration; the `accesses` and `line_touches` counts cover the
    /// iterations inspected.
    pub(super) fn inspect_chunk(
        &self,
        core: usize,
        (a, b): (i64, i64),
        mut rec: SlabRecorder,
        layout: &SlabLayout,
        insp: InspectRef<'_>,
        offer: bool,
    ) -> Result<SlabRecorder> {
        let mut probing = self.cfg.inspect_saturate
            && !rec.has_miss_filter()
            && layout.slab_iters >= PROBE_MIN_SLAB;
        let mut probe = Probe::default();
        let mut x = a;
        while x < b {
            if !probing {
                return Ok(self.inspect_slabs_phase(core, x, b, rec, insp, offer)?.0);
            }
            let (u, lo, hi) = layout.slab_of(x);
            let (mut y, mut step) = probe.first(u, lo, hi);
            while x < hi {
                let (r, maps_only) = self.inspect_slabs_phase(core, x, y, rec, insp, offer)?;
                (rec, x) = (r, y);
                if !maps_only || rec.first_write_iter().is_some() {
                    probing = false;
                    break;
                }
                if rec.slab_full(u) {
                    probe.filled(y - lo);
                    x = hi;
                } else if x >= hi {
                    probe.unfilled();
                }
                y = (x + step).min(hi);
                step = step.saturating_mul(2);
            }
        }
        Ok(rec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where slabs are probed, hand-computed: with nothing known, 1/256 of
    /// the slab, then doubling; after a slab filled at 800 iterations, the
    /// next probe ends 700 in and the following ones grow from 100; after two
    /// slabs that never filled, whole slabs except every eighth.
    #[test]
    fn probe_points() {
        let mut p = Probe::default();
        assert_eq!(p.first(0, 1000, 3560), (1010, 10));
        assert_eq!(p.first(1, 0, 100), (1, 1));
        p.filled(800);
        assert_eq!(p.first(1, 2560, 5120), (3260, 100));
        // a short last slab of a chunk ends the probe at its end
        assert_eq!(p.first(2, 0, 500), (500, 100));
        p.unfilled();
        assert_eq!(p.first(3, 0, 2560), (700, 100));
        p.unfilled();
        assert_eq!(p.first(3, 0, 2560), (2560, 2560));
        assert_eq!(p.first(8, 0, 2560), (700, 100));
        p.filled(64);
        assert_eq!(p.first(9, 0, 2560), (56, 8));
    }
}
