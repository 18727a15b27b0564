//! [`WrittenGranules`]: the 4-byte granules some inspection wrote (a dense
//! bitmap, or runs of pages), used to drop reads that cannot conflict before
//! the §4.4.6 dependence check and, with writes-first inspection, while
//! recording; plus the numbering of written pages and the hasher the check's
//! maps use ([`SplitMix`]).

use super::*;
use crate::deps::GRANULE;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The granules some recorders' writes touch, as a bitmap over their span
/// `[gmin, gmin + span)` (the dense case of the dependence check, and the
/// filter of [`SlabRecorder::retain_conflicting`]), with the number of
/// written granules before each bitmap word so that the check's state is
/// kept per written granule, not per granule of the span.
#[derive(Debug)]
pub struct WrittenGranules {
    pub(super) gmin: u64,
    pub(super) span: usize,
    /// One bit per granule of the span, plus one zero word (so that a
    /// two-word window at any granule of the span stays in bounds).
    pub(super) bits: Vec<u64>,
    /// Written granules in the words before each word of `bits`.
    pub(super) rank: Vec<u32>,
    /// Written granules.
    pub(super) count: usize,
}

impl WrittenGranules {
    /// Of the writes of every recorder in `recs`; `None` when there is no
    /// write or the written granules are too far apart for a bitmap (the
    /// rule of [`SlabRecorder::dependences`]).
    pub fn of(recs: &[SlabRecorder]) -> Option<WrittenGranules> {
        let writes = || recs.iter().flat_map(|r| &r.wrecs);
        let (gmin, span) = Self::dense_span(writes()).0?;
        Some(Self::build(gmin, span, writes()))
    }

    /// `(Some((gmin, span)), budget)` when the granules `writes` touch span
    /// at most the dense budget ([`DENSE_SPAN`] granules or 8 per written
    /// granule); `None` (no write, or too far apart) otherwise.
    pub(super) fn dense_span<'a>(
        writes: impl Iterator<Item = &'a Rec>,
    ) -> (Option<(u64, usize)>, u64) {
        let (mut gmin, mut gmax, mut wcount) = (u64::MAX, 0u64, 0usize);
        for r in writes {
            let g = SlabRecorder::granules(r);
            gmin = gmin.min(*g.start());
            gmax = gmax.max(*g.end());
            wcount += g.count();
        }
        let budget = (DENSE_SPAN as u64).max(8 * wcount as u64);
        if wcount == 0 {
            return (None, budget);
        }
        let span = gmax - gmin + 1;
        ((span <= budget).then_some((gmin, span as usize)), budget)
    }

    pub(super) fn build<'a>(gmin: u64, span: usize, writes: impl Iterator<Item = &'a Rec>) -> Self {
        // The first granule a multiple of 64: an aligned access of up to 16
        // bytes then lies in one bitmap word (the compiled read filter,
        // `weft_inspect_fast_t`).
        let (gmin, span) = (gmin & !63, span + (gmin & 63) as usize);
        let mut bits = vec![0u64; span.div_ceil(64) + 1];
        for r in writes {
            for g in SlabRecorder::granules(r) {
                let i = (g - gmin) as usize;
                bits[i / 64] |= 1 << (i % 64);
            }
        }
        Self::from_bits(gmin, span, bits)
    }

    /// Of the bitmap `bits` over `[gmin, gmin + span)` (with its trailing
    /// zero word).
    pub(super) fn from_bits(gmin: u64, span: usize, bits: Vec<u64>) -> Self {
        debug_assert_eq!(bits.len(), span.div_ceil(64) + 1);
        let mut count = 0usize;
        let rank = bits
            .iter()
            .map(|w| {
                let before = count as u32;
                count += w.count_ones() as usize;
                before
            })
            .collect();
        WrittenGranules {
            gmin,
            span,
            bits,
            rank,
            count,
        }
    }

    /// The number of granule `g` among the written granules (`0..count`)
    /// when it is written.
    #[inline]
    pub(super) fn index(&self, g: u64) -> Option<usize> {
        let i = g.checked_sub(self.gmin)? as usize;
        if i >= self.span {
            return None;
        }
        let (w, b) = (self.bits[i / 64], i % 64);
        (w >> b & 1 != 0)
            .then(|| self.rank[i / 64] as usize + (w & ((1u64 << b) - 1)).count_ones() as usize)
    }

    /// Whether the `size` bytes at `addr` touch a written granule: the
    /// test of [`SlabRecorder::retain_conflicting`], one two-word window
    /// for accesses of up to 32 granules that start in the span.
    #[inline]
    pub(super) fn touches(&self, addr: u64, size: u64) -> bool {
        let (g0, g1) = (addr / GRANULE, (addr + size.max(1) - 1) / GRANULE);
        let i = g0.wrapping_sub(self.gmin);
        let n = g1 - g0;
        if i < self.span as u64 && n < 32 {
            let (w, b) = ((i / 64) as usize, (i % 64) as u32);
            // bits i.. of the span: word w shifted down, word w+1's low bits above
            let window = self.bits[w] >> b | (self.bits[w + 1] << 1) << (63 - b);
            return window & ((2u64 << n) - 1) != 0;
        }
        self.any(g0, g1)
    }

    /// Whether every granule the writes of `recs` touch is one of these
    /// (the bitmap [`SlabRecorder::with_read_filter`] needs).
    pub fn covers_writes(&self, recs: &[SlabRecorder]) -> bool {
        recs.iter()
            .flat_map(|r| &r.wrecs)
            .all(|r| SlabRecorder::granules(r).all(|g| self.index(g).is_some()))
    }

    /// Whether a granule in `[g0, g1]` is written.
    #[inline]
    pub(super) fn any(&self, g0: u64, g1: u64) -> bool {
        let lo = g0.max(self.gmin);
        let hi = g1.min(self.gmin + self.span as u64 - 1);
        if lo > hi {
            return false;
        }
        let (a, b) = ((lo - self.gmin) as usize, (hi - self.gmin) as usize);
        (a / 64..=b / 64).any(|w| {
            let mut m = self.bits[w];
            if w == a / 64 {
                m &= u64::MAX << (a % 64);
            }
            if w == b / 64 {
                m &= u64::MAX >> (63 - b % 64);
            }
            m != 0
        })
    }
}

/// Written granules of arrays far apart (miniFE's assembly: the matrix values
/// and the right-hand side), numbered densely per run of written pages: a
/// [`WrittenGranules`] per run (pages less than [`RUN_GAP_PAGES`] apart share
/// one), the runs' numbers one after the other. The dependence check's state
/// is then one entry per written granule, as in the dense case, instead of
/// one per granule of every written page (`edges_paged`): 4x smaller where
/// each double of a page is written by some iteration of the region, which
/// keeps the state of a few-MB region within the TLB's reach.
pub(super) struct WrittenRuns {
    /// The runs in address order, each with the number of its first written
    /// granule.
    pub(super) runs: Vec<(WrittenGranules, usize)>,
    /// Run of the last lookup (consecutive accesses mostly stay in one run).
    pub(super) last: std::cell::Cell<usize>,
    /// Written granules.
    pub(super) count: usize,
}

/// Written pages at most this far apart share a run of [`WrittenRuns`]
/// (the gap's bitmap costs 128 bytes per page).
pub(super) const RUN_GAP_PAGES: u64 = 16;

/// More runs than this: [`WrittenRuns`] declines (the paged check instead).
pub(super) const MAX_RUNS: usize = 16;

impl WrittenRuns {
    /// Of the written `pages` (as numbered by `written_pages`) and the
    /// `writes` that touch them; `None` when they form more than
    /// [`MAX_RUNS`] runs.
    pub(super) fn build<'a>(
        pages: &HashMap<u64, u32, Fast>,
        writes: impl Iterator<Item = &'a Rec>,
    ) -> Option<WrittenRuns> {
        let mut sorted: Vec<u64> = pages.keys().copied().collect();
        sorted.sort_unstable();
        let mut spans: Vec<(u64, u64)> = Vec::new(); // (first page, last page)
        for &p in &sorted {
            match spans.last_mut() {
                Some((_, last)) if p - *last <= RUN_GAP_PAGES => *last = p,
                _ => {
                    if spans.len() == MAX_RUNS {
                        return None;
                    }
                    spans.push((p, p));
                }
            }
        }
        let mut bits: Vec<Vec<u64>> = spans
            .iter()
            .map(|&(a, b)| vec![0u64; (((b - a + 1) << PAGE_BITS) as usize).div_ceil(64) + 1])
            .collect();
        let mut k = 0usize;
        for r in writes {
            for g in SlabRecorder::granules(r) {
                let pg = g >> PAGE_BITS;
                if !(spans[k].0..=spans[k].1).contains(&pg) {
                    k = spans.partition_point(|&(_, last)| last < pg);
                }
                let i = (g - (spans[k].0 << PAGE_BITS)) as usize;
                bits[k][i / 64] |= 1 << (i % 64);
            }
        }
        let mut count = 0usize;
        let runs = spans
            .iter()
            .zip(bits)
            .map(|(&(a, b), bits)| {
                let w = WrittenGranules::from_bits(
                    a << PAGE_BITS,
                    ((b - a + 1) << PAGE_BITS) as usize,
                    bits,
                );
                let base = count;
                count += w.count;
                (w, base)
            })
            .collect();
        Some(WrittenRuns {
            runs,
            last: std::cell::Cell::new(0),
            count,
        })
    }

    /// The number of granule `g` among the written granules when it is written.
    #[inline]
    pub(super) fn index(&self, g: u64) -> Option<usize> {
        let k = self.last.get();
        let (w, base) = &self.runs[k];
        if g.wrapping_sub(w.gmin) < w.span as u64 {
            return w.index(g).map(|i| base + i);
        }
        let k = self
            .runs
            .partition_point(|(w, _)| w.gmin + w.span as u64 <= g);
        let (w, base) = self.runs.get(k)?;
        self.last.set(k);
        w.index(g).map(|i| base + i)
    }
}

/// Moves the writes of `recs` and the reads that touch a granule of `w` to
/// its front, in order, and returns their number (an in-place compaction
/// without a branch per record: most reads are dropped).
pub(super) fn retain_touching(recs: &mut [Rec], w: &WrittenGranules) -> usize {
    let mut k = 0;
    for i in 0..recs.len() {
        let r = recs[i];
        let keep = r.size_w & WRITE_BIT != 0 || w.touches(r.addr, (r.size_w & !WRITE_BIT) as u64);
        recs[k] = r;
        k += keep as usize;
    }
    k
}

/// Granules per page of [`SlabRecorder`]'s paged dependence check (4 KiB).
pub(super) const PAGE_BITS: u32 = 10;

/// Written-granule spans up to this many granules (or 8 per written granule)
/// use the dense arrays of [`SlabRecorder`]'s dependence check (8 bytes each).
pub(super) const DENSE_SPAN: usize = 1 << 20;

/// splitmix64 finaliser as a hasher for granule numbers.
#[derive(Default, Clone, Copy)]
pub struct SplitMix(u64);

impl Hasher for SplitMix {
    fn finish(&self) -> u64 {
        let mut z = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 ^= i;
    }
}

pub(super) type Fast = BuildHasherDefault<SplitMix>;
