//! [`SlabRecorder`], the per-access recording of irregular inspections
//! (§4.4.1, §4.4.2): slab lookup through [`SlabLayout`], bank-map bits, the
//! record list, lazy recorders completed by a re-inspected prefix, and the
//! merge of the cores' recorders in chunk order.

use super::*;
use crate::bankset::{words_for, BankSet};

/// Where the slabs of a region lie: per-core chunk starts (len P+1), the id
/// of each core's first slab (len P+1) and the slab length.
#[derive(Clone, Debug)]
pub struct SlabLayout {
    /// Chunk boundaries: core `c` runs `[chunk[c], chunk[c+1])`.
    pub chunk: Vec<i64>,
    /// `offset[c]` = id of core `c`'s first slab; `offset[P]` = number of slabs.
    pub offset: Vec<u32>,
    /// Iterations per slab (the last slab of a chunk may be shorter).
    pub slab_iters: i64,
}

impl SlabLayout {
    /// Slab of iteration `iter` and the iteration range of that slab.
    /// `iter` must lie in `[chunk[0], chunk[P])`.
    pub fn slab_of(&self, iter: i64) -> (u32, i64, i64) {
        let c = self.chunk.partition_point(|&s| s <= iter).saturating_sub(1);
        let c = c.min(self.chunk.len().saturating_sub(2));
        let k = (iter - self.chunk[c]) / self.slab_iters;
        let lo = self.chunk[c] + k * self.slab_iters;
        let hi = (lo + self.slab_iters).min(self.chunk[c + 1]);
        (self.offset[c] + k as u32, lo, hi)
    }

    /// Number of slabs.
    pub fn slabs(&self) -> usize {
        self.offset.last().copied().unwrap_or(0) as usize
    }
}

/// Accumulates the bank-maps and the access records of a slab layout.
///
/// A recorder made with [`SlabRecorder::new`] keeps every access for the
/// dependence check. One made with [`SlabRecorder::lazy`] keeps none until
/// the first write is reported: most regions are proven parallel and report
/// no write, so they only pay for the bank-map bits. After a lazy recorder
/// has seen its first write, in iteration `s`, it keeps the accesses of the
/// iterations after `s`. The caller re-inspects `[start, s]` into a recorder
/// made with `new` and puts it in front with [`SlabRecorder::prepend`]
/// ([`SlabRecorder::first_write_iter`] tells whether that is needed).
pub struct SlabRecorder {
    pub(super) layout: SlabLayout,
    /// Accesses of iterations `>= rec_from` are kept (`i64::MIN`: all;
    /// `i64::MAX`: none yet, lazy mode before the first write).
    pub(super) rec_from: i64,
    pub(super) first_write: Option<i64>,
    pub(super) cur_lo: i64,
    pub(super) cur_hi: i64,
    pub(super) cur_unit: u32,
    pub(super) banks: usize,
    pub(super) words: usize,
    pub(super) bits: Vec<u64>,
    pub(super) table: BankTable,
    /// Log2 of the blocks the bank maps are kept at (a "line" below): the
    /// table's bank block ([`BankTable::block_shift`]) when no miss
    /// predictor runs, else the cache line.
    pub(super) line_shift: u32,
    /// Log2 of the cache line size.
    pub(super) cache_line_shift: u32,
    pub(super) recs: Vec<Rec>,
    /// The first free record and the end of the free records last handed
    /// to an inline recorder ([`SlabRecorder::inline_records`]) and the
    /// record count then.
    pub(super) issued: Option<(usize, usize, usize)>,
    /// Where `recs`' allocation goes when the recorder is dropped.
    pub(super) pool: Option<std::sync::Arc<RecordPool>>,
    /// The writes among `recs`, in the same order: the dependence check
    /// finds the written granules from these without streaming every read.
    pub(super) wrecs: Vec<Rec>,
    pub(super) reported: usize,
    pub(super) monotone: bool,
    pub(super) filter: Option<LineFilter>,
    /// Line touches the filter predicted to hit (set no bit).
    pub(super) filtered: u64,
    /// All line touches (blocks of `2^line_shift` bytes).
    pub(super) touches: u64,
    /// Every granule the inspection writes, known before it
    /// ([`SlabRecorder::with_read_filter`]): reads touching none are not kept.
    pub(super) read_filter: Option<std::sync::Arc<WrittenGranules>>,
    /// The inspector ran its writes-only slice into this recorder (or a
    /// recorder merged into it): it holds the checked writes, not a full
    /// inspection.
    pub(super) writes_only: bool,
}

impl SlabRecorder {
    /// Recorder for `layout` with `banks` memory banks, cache lines of
    /// `2^line_shift` bytes and the bank lookup `table`; keeps every access.
    ///
    /// The bank maps are kept per bank block of `table`
    /// ([`BankTable::block_shift`], 2 KB on `table5.2`) when that is larger
    /// than a line: every line of a block lies in the block's bank, so the
    /// bits are those of marking each line, and an access inside the block
    /// an inspector's report site reported last changes nothing (compilers
    /// skip it, [`SlabRecorder::line_shift`]). A miss predictor
    /// ([`SlabRecorder::with_miss_filter`]) works on cache lines and brings
    /// the line back.
    pub fn new(layout: SlabLayout, banks: usize, line_shift: u32, table: BankTable) -> Self {
        let words = words_for(banks);
        let n = layout.slabs();
        SlabRecorder {
            layout,
            rec_from: i64::MIN,
            first_write: None,
            cur_lo: 0,
            cur_hi: 0,
            cur_unit: 0,
            banks,
            words,
            bits: vec![0; n * words],
            line_shift: Self::map_shift(line_shift, &table, false),
            cache_line_shift: line_shift,
            table,
            recs: Vec::new(),
            issued: None,
            pool: None,
            wrecs: Vec::new(),
            reported: 0,
            monotone: true,
            filter: None,
            filtered: 0,
            touches: 0,
            read_filter: None,
            writes_only: false,
        }
    }

    /// The same recorder with a miss predictor of about `lines` cache lines
    /// (see [`LineFilter`]; `0`: none, every access sets its bank bits).
    pub fn with_miss_filter(mut self, lines: usize) -> Self {
        self.filter = (lines > 0).then(|| LineFilter::new(lines));
        self.line_shift =
            Self::map_shift(self.cache_line_shift, &self.table, self.filter.is_some());
        self
    }

    /// The same recorder taking its record buffer from `pool` when it
    /// keeps its first record, and putting it back (and those of recorders
    /// appended to it) when dropped; the dependence check's working arrays
    /// come from the pool too.
    pub fn with_pool(mut self, pool: &std::sync::Arc<RecordPool>) -> Self {
        self.pool = Some(pool.clone());
        self
    }

    /// The same recorder keeping only the reads that touch a granule of
    /// `written`, which must hold every granule the inspected accesses
    /// write (the writes-first phase of an inspection; the caller checks
    /// that with [`WrittenGranules::covers_writes`] afterwards). A read
    /// touching no written granule cannot conflict, so the dependences are
    /// those of keeping every read, as with
    /// [`SlabRecorder::retain_conflicting`] afterwards.
    pub fn with_read_filter(mut self, written: std::sync::Arc<WrittenGranules>) -> Self {
        self.read_filter = Some(written);
        self
    }

    /// The inspector runs its writes-only slice into this recorder
    /// ([`crate::abi::weft_inspect_writes_first`]).
    pub fn mark_writes_only(&mut self) {
        self.writes_only = true;
    }

    /// Whether the accesses are those of the writes-only slice (in part:
    /// merged recorders), not a full inspection.
    pub fn writes_only(&self) -> bool {
        self.writes_only
    }

    /// Whether the reads were filtered while recording
    /// ([`SlabRecorder::with_read_filter`]).
    pub fn reads_filtered(&self) -> bool {
        self.read_filter.is_some()
    }

    /// Takes a record buffer from the pool, if there is one (the recorder
    /// has kept nothing yet).
    #[cold]
    pub(super) fn take_buffer(&mut self) {
        if let Some(p) = &self.pool {
            self.recs = p.take();
        }
    }

    /// Log2 of the blocks the bank maps are kept at, for cache lines of
    /// `2^cache_line_shift` bytes: `table`'s bank block when larger, unless a
    /// miss predictor (which works on lines) runs.
    pub(super) fn map_shift(cache_line_shift: u32, table: &BankTable, miss_filter: bool) -> u32 {
        match miss_filter {
            true => cache_line_shift,
            false => cache_line_shift.max(table.block_shift()),
        }
    }

    /// `(line touches predicted to hit, all line touches)` so far, lines of
    /// `2^line_shift()` bytes.
    pub fn filter_counts(&self) -> (u64, u64) {
        (self.filtered, self.touches)
    }

    /// The same recorder keeping no access until the first write (type docs).
    pub fn lazy(layout: SlabLayout, banks: usize, line_shift: u32, table: BankTable) -> Self {
        let mut r = Self::new(layout, banks, line_shift, table);
        r.rec_from = i64::MAX;
        r
    }

    /// Iteration of the first reported write, if a lazy recorder dropped the
    /// accesses of that iteration and the ones before it (type docs).
    pub fn first_write_iter(&self) -> Option<i64> {
        self.first_write
    }

    /// Log2 of the block size the bank maps are kept at: the bank block of
    /// the table, or the cache line under a miss predictor
    /// ([`SlabRecorder::new`]). An access within the block a report site
    /// reported last in the same slab sets no new bit.
    pub fn line_shift(&self) -> u32 {
        self.line_shift
    }

    /// Puts the accesses of `prefix` (recorded with [`SlabRecorder::new`] over
    /// the iterations this lazy recorder dropped) in front of this one's, and
    /// merges its bank-map bits; afterwards the recorder is complete.
    pub fn prepend(&mut self, mut prefix: SlabRecorder) {
        // The prefix re-reported iterations this recorder already counted, so
        // the counts stay; its few records go in front of this recorder's
        // many (moved in place, not copied into a new allocation).
        self.merge_meta(&prefix, true);
        self.recs.splice(0..0, prefix.recs.drain(..));
        self.wrecs.splice(0..0, prefix.wrecs.drain(..));
        self.rec_from = i64::MIN;
        self.first_write = None;
    }

    /// Appends the accesses of `other` (a recorder of the same layout over
    /// later iterations, e.g. the next core's chunk) and merges its bits.
    pub fn append(&mut self, mut other: SlabRecorder) {
        self.merge_meta(&other, false);
        self.reported += other.reported;
        self.filtered += other.filtered;
        self.touches += other.touches;
        if self.recs.is_empty() && self.recs.capacity() < other.recs.capacity() {
            // Nothing kept here: take the other's buffer instead of copying.
            std::mem::swap(&mut self.recs, &mut other.recs);
        } else {
            self.recs.append(&mut other.recs);
        }
        self.wrecs.append(&mut other.wrecs);
    }

    /// Merges `other`'s bank-map bits, write count and record order, its
    /// records going in front of this recorder's (`before`) or after them.
    pub(super) fn merge_meta(&mut self, other: &SlabRecorder, before: bool) {
        self.merge_bits(other);
        let (a, b) = match before {
            true => (other.recs.last(), self.recs.first()),
            false => (self.recs.last(), other.recs.first()),
        };
        if let (Some(a), Some(b)) = (a, b) {
            self.monotone &= a.unit <= b.unit;
        }
        self.monotone &= other.monotone;
        self.writes_only |= other.writes_only;
    }

    pub(super) fn merge_bits(&mut self, other: &SlabRecorder) {
        debug_assert_eq!(self.bits.len(), other.bits.len(), "same layout");
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a |= b;
        }
    }

    /// Records an access that cannot conflict: its lines' banks only.
    #[inline]
    pub fn record_unchecked(&mut self, iter: i64, addr: u64, size: u32) {
        self.record_range(iter, addr, size.clamp(1, WRITE_BIT - 1) as u64);
    }

    /// Records `bytes` bytes from `addr` that cannot conflict (one report,
    /// e.g. the stretch of an array an inner loop streams through): their
    /// lines' banks only. Nothing for 0 bytes.
    #[inline]
    pub fn record_range(&mut self, iter: i64, addr: u64, bytes: u64) {
        self.set_slab(iter);
        self.reported += 1;
        if bytes > 0 {
            self.mark_lines(addr, bytes);
        }
    }

    /// Makes the slab of `iter` current.
    #[inline]
    pub(super) fn set_slab(&mut self, iter: i64) {
        if iter < self.cur_lo || iter >= self.cur_hi {
            let (u, lo, hi) = self.layout.slab_of(iter);
            if u < self.cur_unit {
                self.monotone = false;
            }
            self.cur_unit = u;
            self.cur_lo = lo;
            self.cur_hi = hi;
        }
    }

    /// Sets the bank bits of the lines of `[addr, addr + size)` in the current slab.
    #[inline(always)]
    pub(super) fn mark_lines(&mut self, addr: u64, size: u64) {
        let u = self.cur_unit as usize;
        let first = addr >> self.line_shift;
        let last = addr.saturating_add(size - 1) >> self.line_shift;
        self.touches += last - first + 1;
        if first == last && self.filter.is_none() {
            // The common case: one line, no miss predictor.
            let b = self.table.bank(first << self.line_shift);
            self.bits[u * self.words + b / 64] |= 1u64 << (b % 64);
            return;
        }
        let row = &mut self.bits[u * self.words..(u + 1) * self.words];
        // Without a predictor, the banks of consecutive lines repeat with
        // the bank table's period: a longer span sets exactly the banks of
        // one period, so only that much is walked (a huge range returns).
        let last = match (&self.filter, self.table.lookup()) {
            (None, Some((_, lsb, mask))) => {
                let bits = (lsb + (64 - mask.leading_zeros())).saturating_sub(self.line_shift);
                match bits < 63 {
                    true => last.min(first + (1u64 << bits) - 1),
                    false => last,
                }
            }
            _ => last,
        };
        let mut l = first;
        while l <= last {
            let hit = match &mut self.filter {
                Some(f) => f.touch(l),
                None => false,
            };
            if hit {
                self.filtered += 1;
            } else {
                let b = self.table.bank(l << self.line_shift);
                row[b / 64] |= 1u64 << (b % 64);
            }
            l += 1;
        }
    }

    /// Records an access of iteration `iter` (the caller checked the range).
    #[inline]
    pub fn record(&mut self, iter: i64, addr: u64, size: u32, write: bool) {
        let size = size.clamp(1, WRITE_BIT - 1);
        self.record_range(iter, addr, size as u64);
        if write && self.first_write.is_none() && self.rec_from == i64::MAX {
            // Lazy mode: keep what follows this iteration; the caller
            // re-inspects up to and including it.
            self.first_write = Some(iter);
            self.rec_from = iter.saturating_add(1);
        }
        if iter < self.rec_from {
            return;
        }
        if !write
            && self
                .read_filter
                .as_ref()
                .is_some_and(|w| !w.touches(addr, size as u64))
        {
            return;
        }
        let rec = Rec {
            addr,
            unit: self.cur_unit,
            size_w: size | if write { WRITE_BIT } else { 0 },
        };
        if write {
            self.wrecs.push(rec);
        }
        if self.recs.capacity() == 0 {
            self.take_buffer();
        }
        self.recs.push(rec);
    }

    /// Whether slab `unit`'s bank map has every bank set: no further
    /// unchecked access of the slab can change it.
    pub fn slab_full(&self, unit: u32) -> bool {
        let row = &self.bits[unit as usize * self.words..(unit as usize + 1) * self.words];
        row.iter().enumerate().all(|(i, &w)| {
            let left = self.banks - i * 64;
            w == if left >= 64 {
                u64::MAX
            } else {
                (1u64 << left) - 1
            }
        })
    }

    /// Whether a miss predictor decides which lines set bits (its state
    /// then depends on every access, so none may be skipped).
    pub fn has_miss_filter(&self) -> bool {
        self.filter.is_some()
    }

    /// Number of records kept (reads and writes) for the dependence check.
    pub fn kept(&self) -> usize {
        self.recs.len()
    }

    /// Number of reported accesses (kept or not).
    pub fn accesses(&self) -> usize {
        self.reported
    }

    /// Number of recorded writes (0: the dependence check has nothing to do).
    pub fn writes(&self) -> usize {
        self.wrecs.len()
    }

    /// The bank-map of every slab, in slab order.
    pub fn bank_maps(&self) -> Vec<BankSet> {
        self.bits
            .chunks(self.words)
            .map(|w| BankSet::from_words(self.banks, w))
            .collect()
    }
}

impl Drop for SlabRecorder {
    fn drop(&mut self) {
        if let Some(p) = &self.pool {
            p.put(std::mem::take(&mut self.recs));
        }
    }
}
