//! The irregular inspector's recording path (dissertation §4.4.1 inspector,
//! §4.4.2 bank-maps Δ, §4.4.6 runtime dependence check), built for speed: the
//! inspector runs once per index-array assignment, but on the quick inputs a
//! region executes only a few times, so its cost shows directly in the
//! region's run time (§4.5 reports ~4%).
//!
//! What happens per reported access (no allocation, no hashing):
//! - the slab of the iteration comes from a cached `[lo, hi)` range (the
//!   inspector walks iterations in order, so the cache almost always hits);
//! - the memory bank of each cache line comes from [`BankTable`], a lookup
//!   table over the address bits that select the bank (exact for the bit-field
//!   mappings of `weft-memsim`), and sets one bit in the slab's bank-map words;
//! - the access is appended to a compact record list for the dependence check;
//! - compiled inspectors do the bank-map part of an unchecked access (one or
//!   two lines) themselves, with the slab's row and the bank table the
//!   recorder hands out ([`SlabRecorder::inline_slab`],
//!   [`SlabRecorder::inline_lookup`], `weft_inspect_fast` in the C ABI) and
//!   counts added back ([`SlabRecorder::add_inline_counts`]).
//! - with a miss predictor ([`SlabRecorder::with_miss_filter`], off by
//!   default), a line found in the recorder's [`LineFilter`] (a small
//!   set-associative tag array of the lines touched last) is predicted to hit
//!   in the caches and sets no bank bit (§4.4.2 assumes every access misses;
//!   the dissertation, around its Algorithm 4, suggests predicting the misses
//!   instead). One filter per recorder, i.e. per core's chunk, filled in
//!   original iteration order; it starts empty, so re-inspecting a chunk's
//!   prefix (lazy recorders) sets the same bits.
//!
//! At the end, [`SlabRecorder::dependences`] builds the slab DAG only when
//! some reported access writes (the compiler reports the stores of loops it
//! proves parallel as non-conflicting, `is_write = 0`, so their check is
//! skipped): a bitmap of the written 4-byte granules over their address span
//! (a hash set when they lie far apart), then one streaming pass that links
//! each access to the nearest conflicting writer and readers of the granule
//! (RAW, WAR, WAW), relying on slabs being reported in
//! non-decreasing order; out-of-order reports fall back to the sort-based
//! [`UnitDag::from_accesses`]. Both give the same dependence relation (the
//! transitive reduction may differ), which the executor enforces.

use crate::bankset::{words_for, BankSet};
use crate::deps::{Access, UnitDag, GRANULE};
use crate::machine::Machine;
use crate::Result;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use weft_memsim::addrmap::Field;

/// Exact address → memory-bank lookup: the bank depends only on the address
/// bits of the channel, rank, bank-group and bank fields, which lie in
/// `[lsb, lsb + span)`; the table holds the bank of every value of those bits.
/// Spans over [`BankTable::MAX_SPAN`] bits fall back to the mapper.
#[derive(Clone, Debug)]
pub struct BankTable {
    lsb: u32,
    mask: u64,
    /// Shared: every recorder of an inspection holds a copy of the table.
    table: std::sync::Arc<[u16]>,
    machine: Option<std::sync::Arc<Machine>>,
    /// Lowest address bit of any bank field (capped at
    /// [`BankTable::MAX_BLOCK_SHIFT`]): every aligned block of
    /// `2^block_shift` bytes lies in one bank.
    block_shift: u32,
}

impl BankTable {
    /// Widest bank-bit span tabulated (2^16 entries of 2 bytes).
    pub const MAX_SPAN: u32 = 16;

    /// Largest [`BankTable::block_shift`] (a machine with a single bank: any
    /// block lies in it).
    pub const MAX_BLOCK_SHIFT: u32 = 32;

    /// Log2 of the largest aligned block of addresses that always lies in
    /// one memory bank: the lowest address bit of the channel, rank,
    /// bank-group and bank fields (11 on `table5.2`, 2 KB; 12 on `table4.2`).
    pub fn block_shift(&self) -> u32 {
        self.block_shift
    }

    /// Table for `machine`'s DRAM mapping.
    pub fn new(machine: &std::sync::Arc<Machine>) -> BankTable {
        let dram = &machine.mapper().dram;
        let (mut lo, mut hi, mut pos) = (u32::MAX, 0u32, 0u32);
        for (f, bits) in dram.fields() {
            if matches!(
                f,
                Field::Channel | Field::Rank | Field::BankGroup | Field::Bank
            ) && bits > 0
            {
                lo = lo.min(pos);
                hi = hi.max(pos + bits);
            }
            pos += bits;
        }
        if lo == u32::MAX {
            // A single bank.
            return BankTable {
                lsb: 0,
                mask: 0,
                table: std::sync::Arc::from([0u16]),
                machine: None,
                block_shift: Self::MAX_BLOCK_SHIFT,
            };
        }
        let block_shift = lo.min(Self::MAX_BLOCK_SHIFT);
        let span = hi - lo;
        if span > Self::MAX_SPAN || machine.mapper().num_mem_banks() > u16::MAX as u32 {
            return BankTable {
                lsb: 0,
                mask: 0,
                table: std::sync::Arc::from([]),
                machine: Some(machine.clone()),
                block_shift,
            };
        }
        let table: Vec<u16> = (0..1u64 << span)
            .map(|v| machine.mapper().mem_bank(v << lo) as u16)
            .collect();
        let table = table.into();
        BankTable {
            lsb: lo,
            mask: (1u64 << span) - 1,
            table,
            machine: None,
            block_shift,
        }
    }

    /// The lookup as `(table, lsb, mask)`: the bank of `addr` is
    /// `table[(addr >> lsb) & mask]`. `None` when the bank bits are too wide
    /// for a table and the mapper decides.
    pub fn lookup(&self) -> Option<(&[u16], u32, u64)> {
        match self.machine {
            None => Some((&self.table, self.lsb, self.mask)),
            Some(_) => None,
        }
    }

    /// Memory bank of byte address `addr`.
    #[inline(always)]
    pub fn bank(&self, addr: u64) -> usize {
        match &self.machine {
            None => self.table[((addr >> self.lsb) & self.mask) as usize] as usize,
            Some(m) => m.mapper().mem_bank(addr) as usize,
        }
    }
}

/// Predicts which cache lines of a slab still sit in the caches: a
/// set-associative tag array with [`LineFilter::WAYS`] ways and LRU
/// replacement (move to front) over the lines touched last, in the order the
/// inspector reports them. A touched line that is in the array is a predicted
/// hit; any other is a predicted miss and is inserted, evicting its set's
/// least recently touched line. Sets are selected by the low bits of the line
/// number, as in the caches it models. No allocation after construction.
#[derive(Clone, Debug)]
pub struct LineFilter {
    /// `WAYS` tags per set, most recent first; a tag is the line number + 1
    /// (0 = empty way).
    tags: Vec<u64>,
    set_mask: u64,
}

impl LineFilter {
    /// Ways per set.
    pub const WAYS: usize = 4;

    /// A filter of about `lines` lines: the number of sets is `lines / WAYS`
    /// rounded to the nearest power of two (at least one set).
    pub fn new(lines: usize) -> LineFilter {
        let want = (lines / Self::WAYS).max(1);
        let up = want.next_power_of_two();
        let sets = if up - want > want - up / 2 {
            up / 2
        } else {
            up
        };
        LineFilter {
            tags: vec![0; sets * Self::WAYS],
            set_mask: sets as u64 - 1,
        }
    }

    /// Lines the filter holds at most.
    pub fn capacity(&self) -> usize {
        self.tags.len()
    }

    /// Touches cache line number `line`: `true` if it was in the filter
    /// (predicted hit). Either way it becomes its set's most recent line.
    #[inline]
    pub fn touch(&mut self, line: u64) -> bool {
        let s = (line & self.set_mask) as usize * Self::WAYS;
        let set = &mut self.tags[s..s + Self::WAYS];
        let t = line.wrapping_add(1);
        if set[0] == t {
            return true;
        }
        let pos = set[1..].iter().position(|&x| x == t);
        let end = pos.map_or(Self::WAYS - 1, |w| w + 1);
        set.copy_within(0..end, 1);
        set[0] = t;
        pos.is_some()
    }
}

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

/// Bytes of one record as inline recorders write it ([`InlineRecs`]).
pub const REC_BYTES: usize = 16;

/// Free records an inline recorder gets at least ([`SlabRecorder::inline_records`]),
/// for slabs of at least `INLINE_SPARE / INLINE_SPARE_PER_ITER` iterations.
const INLINE_SPARE: usize = 4096;

/// Free records per iteration of a smaller slab (at least
/// [`INLINE_SPARE_MIN`]): a region of a few iterations per slab (stun's
/// column updates, 16 cores over 86 iterations) then does not reserve, and
/// so allocate and copy, 64 KB per recorder and call. A slab that needs
/// more asks again ([`SlabRecorder::inline_records`] grows the buffer).
const INLINE_SPARE_PER_ITER: usize = 16;

/// Free records an inline recorder gets at least, whatever the slab.
const INLINE_SPARE_MIN: usize = 64;

/// One recorded access, 16 bytes: address, slab, size (low 31 bits) and the
/// write flag (bit 31). `repr(C)`: inline recorders write records of checked
/// reads themselves ([`InlineRecs`]).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Rec {
    addr: u64,
    unit: u32,
    size_w: u32,
}

const WRITE_BIT: u32 = 1 << 31;

/// Record buffers of finished inspections, for the next ones: a region
/// that records millions of checked accesses per inspection otherwise
/// page-faults its buffer in afresh each time (gauss_seidel's first two
/// colours paid 4 ms of 5.5 for it, the later ones reused freed memory).
/// At most [`RecordPool::MAX_BUFFERS`] buffers and [`RecordPool::MAX_BYTES`]
/// bytes are kept; larger ones are freed.
#[derive(Debug, Default)]
pub struct RecordPool {
    bufs: std::sync::Mutex<(Vec<Vec<Rec>>, usize)>,
    scratch: std::sync::Mutex<Vec<DepScratch>>,
}

/// Working arrays of the dependence check ([`SlabRecorder::dependences`]):
/// per written granule its last writer and the head of its reader list,
/// and the pool of list nodes.
#[derive(Debug, Default)]
struct DepScratch {
    state: Vec<[u32; 2]>,
    pool: Vec<(u32, u32)>,
}

impl RecordPool {
    /// Buffers kept at most (one per recorder of an inspection on up to 64
    /// cores: every recorder of a trace-mode inspection on 16 virtual cores
    /// gets a kept one).
    pub const MAX_BUFFERS: usize = 64;
    /// Bytes of record buffers kept at most (over all buffers).
    pub const MAX_BYTES: usize = 64 << 20;
    /// Bytes of a dependence check's working arrays kept at most (two sets).
    pub const MAX_SCRATCH_BYTES: usize = 32 << 20;

    /// The largest buffer kept, empty (a new one when none is).
    fn take(&self) -> Vec<Rec> {
        let mut g = self.bufs.lock().unwrap_or_else(|e| e.into_inner());
        let (bufs, bytes) = &mut *g;
        let i = (0..bufs.len()).max_by_key(|&i| bufs[i].capacity());
        match i {
            Some(i) => {
                let v = bufs.swap_remove(i);
                *bytes -= v.capacity() * REC_BYTES;
                v
            }
            None => Vec::new(),
        }
    }

    /// Keeps `v`'s allocation for a later [`RecordPool::take`] if it fits.
    fn put(&self, mut v: Vec<Rec>) {
        let size = v.capacity() * REC_BYTES;
        if size == 0 {
            return;
        }
        v.clear();
        let mut g = self.bufs.lock().unwrap_or_else(|e| e.into_inner());
        let (bufs, bytes) = &mut *g;
        if bufs.len() < Self::MAX_BUFFERS && *bytes + size <= Self::MAX_BYTES {
            *bytes += size;
            bufs.push(v);
        }
    }

    /// Working arrays of a dependence check, kept or new.
    fn take_scratch(&self) -> DepScratch {
        let mut g = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        g.pop().unwrap_or_default()
    }

    /// Keeps the working arrays of a dependence check (two sets, up to
    /// [`RecordPool::MAX_SCRATCH_BYTES`] each).
    fn put_scratch(&self, sc: DepScratch) {
        let size = sc.state.capacity() * 8 + sc.pool.capacity() * 8;
        let mut g = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        if g.len() < 2 && size <= Self::MAX_SCRATCH_BYTES {
            g.push(sc);
        }
    }

    /// Bytes of the record buffers kept.
    pub fn bytes(&self) -> usize {
        self.bufs.lock().unwrap_or_else(|e| e.into_inner()).1
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
    layout: SlabLayout,
    /// Accesses of iterations `>= rec_from` are kept (`i64::MIN`: all;
    /// `i64::MAX`: none yet, lazy mode before the first write).
    rec_from: i64,
    first_write: Option<i64>,
    cur_lo: i64,
    cur_hi: i64,
    cur_unit: u32,
    banks: usize,
    words: usize,
    bits: Vec<u64>,
    table: BankTable,
    /// Log2 of the blocks the bank maps are kept at (a "line" below): the
    /// table's bank block ([`BankTable::block_shift`]) when no miss
    /// predictor runs, else the cache line.
    line_shift: u32,
    /// Log2 of the cache line size.
    cache_line_shift: u32,
    recs: Vec<Rec>,
    /// The first free record and the end of the free records last handed
    /// to an inline recorder ([`SlabRecorder::inline_records`]) and the
    /// record count then.
    issued: Option<(usize, usize, usize)>,
    /// Where `recs`' allocation goes when the recorder is dropped.
    pool: Option<std::sync::Arc<RecordPool>>,
    /// The writes among `recs`, in the same order: the dependence check
    /// finds the written granules from these without streaming every read.
    wrecs: Vec<Rec>,
    reported: usize,
    monotone: bool,
    filter: Option<LineFilter>,
    /// Line touches the filter predicted to hit (set no bit).
    filtered: u64,
    /// All line touches (blocks of `2^line_shift` bytes).
    touches: u64,
    /// Every granule the inspection writes, known before it
    /// ([`SlabRecorder::with_read_filter`]): reads touching none are not kept.
    read_filter: Option<std::sync::Arc<WrittenGranules>>,
    /// The inspector ran its writes-only slice into this recorder (or a
    /// recorder merged into it): it holds the checked writes, not a full
    /// inspection.
    writes_only: bool,
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
    fn take_buffer(&mut self) {
        if let Some(p) = &self.pool {
            self.recs = p.take();
        }
    }

    /// Log2 of the blocks the bank maps are kept at, for cache lines of
    /// `2^cache_line_shift` bytes: `table`'s bank block when larger, unless a
    /// miss predictor (which works on lines) runs.
    fn map_shift(cache_line_shift: u32, table: &BankTable, miss_filter: bool) -> u32 {
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
    fn merge_meta(&mut self, other: &SlabRecorder, before: bool) {
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

    fn merge_bits(&mut self, other: &SlabRecorder) {
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

    /// Makes the slab of `iter` current.
    #[inline]
    fn set_slab(&mut self, iter: i64) {
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
    fn mark_lines(&mut self, addr: u64, size: u64) {
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

    /// The slab dependence DAG of §4.4.6 (no edges when nothing is written).
    pub fn dependences(&self) -> Result<UnitDag> {
        self.dependences_with(None)
    }

    /// [`Self::dependences`], given the written granules of this recorder's
    /// writes when they were already computed ([`WrittenGranules::of`] of
    /// the recorders appended into this one).
    pub fn dependences_with(&self, written: Option<&WrittenGranules>) -> Result<UnitDag> {
        let n = self.layout.slabs();
        if let Some(s) = self.first_write {
            return Err(crate::error::RuntimeError::Panicked(format!(
                "internal: the lazy slab recorder dropped the accesses up to iteration {s} \
                 and was not completed with `prepend`"
            )));
        }
        if self.wrecs.is_empty() {
            return Ok(UnitDag::empty(n));
        }
        if !self.monotone {
            let acc: Vec<Access> = self
                .recs
                .iter()
                .map(|r| Access {
                    unit: r.unit,
                    addr: r.addr,
                    size: r.size_w & !WRITE_BIT,
                    write: r.size_w & WRITE_BIT != 0,
                })
                .collect();
            return UnitDag::from_accesses(n, &acc);
        }
        // Written granules: their span decides between dense arrays and hashing.
        let built;
        let dense = match written {
            Some(w) => Ok(w),
            None => match WrittenGranules::dense_span(self.wrecs.iter()) {
                (Some((gmin, span)), _) => {
                    built = WrittenGranules::build(gmin, span, self.wrecs.iter());
                    Ok(&built)
                }
                (None, budget) => Err(budget),
            },
        };
        let edges = match dense {
            Ok(w) => self.edges_with(w.count, |g| w.index(g)),
            Err(budget) => {
                // Written arrays far apart (a matrix and a vector): the written
                // pages in a few runs, each numbered densely like the dense
                // case, when the pages are not too sparsely written; per page
                // when they form many runs; hashed otherwise.
                let pages = self.written_pages();
                if ((pages.len() as u64) << PAGE_BITS) > budget {
                    self.edges_hashed()
                } else {
                    match WrittenRuns::build(&pages, self.wrecs.iter()) {
                        Some(runs) => self.edges_with(runs.count, |g| runs.index(g)),
                        None => self.edges_paged(&pages),
                    }
                }
            }
        };
        UnitDag::from_edges(n, &edges)
    }

    /// Granules of a record.
    fn granules(r: &Rec) -> std::ops::RangeInclusive<u64> {
        let size = (r.size_w & !WRITE_BIT) as u64;
        r.addr / GRANULE..=(r.addr + size - 1) / GRANULE
    }

    /// Drops the kept reads that touch no granule of `w`, the granules
    /// written by this recorder and the others of its inspection (the
    /// dependence check ignores such reads: no conflict without a write).
    /// Runs per chunk, on the inspecting cores, before the chunks are
    /// appended, so the serial check streams only the reads that matter
    /// (gauss_seidel: one read in eight).
    pub fn retain_conflicting(&mut self, w: &WrittenGranules) {
        let k = retain_touching(&mut self.recs, w);
        self.recs.truncate(k);
    }

    /// Pages (`PAGE_BITS` granules) holding a written granule, numbered in
    /// order of first write.
    fn written_pages(&self) -> HashMap<u64, u32, Fast> {
        let mut pages: HashMap<u64, u32, Fast> = HashMap::default();
        let mut last = u64::MAX;
        for r in &self.wrecs {
            for g in Self::granules(r) {
                let pg = g >> PAGE_BITS;
                if pg != last {
                    let n = pages.len() as u32;
                    pages.entry(pg).or_insert(n);
                    last = pg;
                }
            }
        }
        pages
    }

    /// Dense per-granule state over the written `pages` only (a bitmap per
    /// page says which granules are written); consecutive accesses mostly
    /// stay in one page, so the page lookup is cached.
    fn edges_paged(&self, pages: &HashMap<u64, u32, Fast>) -> Vec<(u32, u32)> {
        let n = pages.len() << PAGE_BITS;
        let mut written = vec![0u64; n.div_ceil(64)];
        let slot = |g: u64| {
            pages
                .get(&(g >> PAGE_BITS))
                .map(|&p| ((p as usize) << PAGE_BITS) | (g as usize & ((1 << PAGE_BITS) - 1)))
        };
        for r in &self.wrecs {
            for g in Self::granules(r) {
                if let Some(i) = slot(g) {
                    written[i / 64] |= 1 << (i % 64);
                }
            }
        }
        let last = std::cell::Cell::new((u64::MAX, None::<usize>));
        self.edges_with(n, |g| {
            let pg = g >> PAGE_BITS;
            let base = match last.get() {
                (p, b) if p == pg => b,
                _ => {
                    let b = pages.get(&pg).map(|&p| (p as usize) << PAGE_BITS);
                    last.set((pg, b));
                    b
                }
            };
            let i = base? | (g as usize & ((1 << PAGE_BITS) - 1));
            (written[i / 64] >> (i % 64) & 1 != 0).then_some(i)
        })
    }

    /// The same with the written granules numbered through a hash map
    /// (written granules far apart): one lookup per accessed granule, the
    /// per-granule state in arrays as in the dense case.
    fn edges_hashed(&self) -> Vec<(u32, u32)> {
        let mut slot: HashMap<u64, u32, Fast> = HashMap::default();
        for r in &self.wrecs {
            for g in Self::granules(r) {
                let n = slot.len() as u32;
                slot.entry(g).or_insert(n);
            }
        }
        self.edges_with(slot.len(), |g| slot.get(&g).map(|&i| i as usize))
    }

    /// The streaming pass shared by both: `index(g)` numbers the written
    /// granules `0..n` (`None`: never written, no conflict possible). Per
    /// written granule it keeps the last writer and the readers since that
    /// write (a linked list in a pool), and links each access to the nearest
    /// conflicting writer and readers (RAW, WAR, WAW).
    ///
    /// The state (last writer and list head, side by side: one cache line
    /// per granule) and the list pool come from the recorder's
    /// [`RecordPool`] when it has one and go back to it, so that repeated
    /// inspections do not page-fault them in afresh.
    fn edges_with(&self, n: usize, index: impl Fn(u64) -> Option<usize>) -> Vec<(u32, u32)> {
        const NONE: u32 = u32::MAX;
        let mut sc = self
            .pool
            .as_ref()
            .map(|p| p.take_scratch())
            .unwrap_or_default();
        let (state, pool) = (&mut sc.state, &mut sc.pool);
        state.clear();
        state.resize(n, [NONE, NONE]);
        pool.clear();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for r in &self.recs {
            let w = r.size_w & WRITE_BIT != 0;
            let u = r.unit;
            for g in Self::granules(r) {
                let Some(i) = index(g) else {
                    continue;
                };
                let [lw, head] = &mut state[i];
                if w {
                    if *lw != NONE && *lw != u {
                        edges.push((*lw, u));
                    }
                    let mut h = *head;
                    while h != NONE {
                        let (x, next) = pool[h as usize];
                        if x != u {
                            edges.push((x, u));
                        }
                        h = next;
                    }
                    *head = NONE;
                    *lw = u;
                } else if *lw != u && (*head == NONE || pool[*head as usize].0 != u) {
                    if *lw != NONE {
                        edges.push((*lw, u));
                    }
                    pool.push((u, *head));
                    *head = (pool.len() - 1) as u32;
                }
            }
        }
        if let Some(p) = &self.pool {
            p.put_scratch(sc);
        }
        edges
    }
}

impl Drop for SlabRecorder {
    fn drop(&mut self) {
        if let Some(p) = &self.pool {
            p.put(std::mem::take(&mut self.recs));
        }
    }
}

/// The granules some recorders' writes touch, as a bitmap over their span
/// `[gmin, gmin + span)` (the dense case of the dependence check, and the
/// filter of [`SlabRecorder::retain_conflicting`]), with the number of
/// written granules before each bitmap word so that the check's state is
/// kept per written granule, not per granule of the span.
#[derive(Debug)]
pub struct WrittenGranules {
    gmin: u64,
    span: usize,
    /// One bit per granule of the span, plus one zero word (so that a
    /// two-word window at any granule of the span stays in bounds).
    bits: Vec<u64>,
    /// Written granules in the words before each word of `bits`.
    rank: Vec<u32>,
    /// Written granules.
    count: usize,
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
    fn dense_span<'a>(writes: impl Iterator<Item = &'a Rec>) -> (Option<(u64, usize)>, u64) {
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

    fn build<'a>(gmin: u64, span: usize, writes: impl Iterator<Item = &'a Rec>) -> Self {
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
    fn from_bits(gmin: u64, span: usize, bits: Vec<u64>) -> Self {
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
    fn index(&self, g: u64) -> Option<usize> {
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
    fn touches(&self, addr: u64, size: u64) -> bool {
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
    fn any(&self, g0: u64, g1: u64) -> bool {
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
struct WrittenRuns {
    /// The runs in address order, each with the number of its first written
    /// granule.
    runs: Vec<(WrittenGranules, usize)>,
    /// Run of the last lookup (consecutive accesses mostly stay in one run).
    last: std::cell::Cell<usize>,
    /// Written granules.
    count: usize,
}

/// Written pages at most this far apart share a run of [`WrittenRuns`]
/// (the gap's bitmap costs 128 bytes per page).
const RUN_GAP_PAGES: u64 = 16;

/// More runs than this: [`WrittenRuns`] declines (the paged check instead).
const MAX_RUNS: usize = 16;

impl WrittenRuns {
    /// Of the written `pages` (as numbered by `written_pages`) and the
    /// `writes` that touch them; `None` when they form more than
    /// [`MAX_RUNS`] runs.
    fn build<'a>(
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
    fn index(&self, g: u64) -> Option<usize> {
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
fn retain_touching(recs: &mut [Rec], w: &WrittenGranules) -> usize {
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
const PAGE_BITS: u32 = 10;

/// Written-granule spans up to this many granules (or 8 per written granule)
/// use the dense arrays of [`SlabRecorder`]'s dependence check (8 bytes each).
const DENSE_SPAN: usize = 1 << 20;

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

type Fast = BuildHasherDefault<SplitMix>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bankmap::AddressMap;

    fn machine() -> std::sync::Arc<Machine> {
        std::sync::Arc::new(Machine::load("table5.2").unwrap())
    }

    #[test]
    fn bank_table_matches_the_mapper() {
        let m = machine();
        let t = BankTable::new(&m);
        assert!(t.machine.is_none(), "table5.2 has a narrow bank span");
        let mut next = crate::testutil::xorshift(0x1234_5678_9abc_def0);
        for _ in 0..20000 {
            let a = next() >> 20;
            assert_eq!(t.bank(a), m.mem_bank(a), "address {a:#x}");
        }
    }

    /// Index arrays of the conflict tests: 10 iterations, repeated targets.
    const IDX: [u64; 10] = [3, 9, 0, 3, 5, 5, 1, 8, 2, 7];
    const DST: [u64; 10] = [0, 1, 0, 2, 3, 4, 1, 9, 9, 3];

    fn layout() -> SlabLayout {
        // 2 cores over [0, 10): core 0 [0,5) slabs of 2: 0:[0,2) 1:[2,4) 2:[4,5);
        // core 1 [5,10): 3:[5,7) 4:[7,9) 5:[9,10)
        SlabLayout {
            chunk: vec![0, 5, 10],
            offset: vec![0, 3, 6],
            slab_iters: 2,
        }
    }

    /// Records 8-byte accesses of iteration `i` into `r` and, for the
    /// generic reference path, into `acc`.
    fn record_both(
        r: &mut SlabRecorder,
        acc: &mut Vec<Access>,
        i: i64,
        accesses: impl IntoIterator<Item = (u64, bool)>,
    ) {
        let unit = layout().slab_of(i).0;
        for (addr, write) in accesses {
            r.record(i, addr, 8, write);
            acc.push(Access {
                unit,
                addr,
                size: 8,
                write,
            });
        }
    }

    #[test]
    fn slab_of_hand_computed() {
        let l = layout();
        assert_eq!(l.slab_of(0), (0, 0, 2));
        assert_eq!(l.slab_of(4), (2, 4, 5));
        assert_eq!(l.slab_of(5), (3, 5, 7));
        assert_eq!(l.slab_of(9), (5, 9, 10));
        assert_eq!(l.slabs(), 6);
    }

    /// Dropping reads of unwritten granules per chunk keeps the edges:
    /// random reads and writes of 1 to 12 bytes over 2 KB (conflicts) and
    /// reads far away (dropped), in two chunks of a two-core layout.
    #[test]
    fn reads_of_unwritten_granules_are_dropped_without_changing_the_edges() {
        let m = machine();
        let banks = m.num_mem_banks();
        let t = BankTable::new(&m);
        let layout = SlabLayout {
            chunk: vec![0, 200, 400],
            offset: vec![0, 20, 40],
            slab_iters: 10,
        };
        let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1d);
        let mut rnd = move |n: u64| next() % n;
        let mut chunks = Vec::new();
        for (lo, hi) in [(0i64, 200i64), (200, 400)] {
            let mut r = SlabRecorder::new(layout.clone(), banks, 6, t.clone());
            for i in lo..hi {
                for _ in 0..4 {
                    let (addr, write) = match rnd(10) {
                        0 => (0x10_0000 + rnd(2048), true),
                        1..=4 => (0x10_0000 + rnd(2048), false),
                        _ => (0x80_0000 + rnd(1 << 20), false),
                    };
                    r.record(i, addr, 1 + rnd(12) as u32, write);
                }
            }
            chunks.push(r);
        }
        let merged = |mut parts: Vec<SlabRecorder>| {
            let mut r = parts.remove(0);
            r.append(parts.remove(0));
            r
        };
        let clone = |r: &SlabRecorder| {
            let mut c = SlabRecorder::new(layout.clone(), banks, 6, t.clone());
            c.recs = r.recs.clone();
            c.wrecs = r.wrecs.clone();
            c
        };
        let all = merged(chunks.iter().map(clone).collect());
        let w = WrittenGranules::of(&chunks).expect("dense");
        for c in &mut chunks {
            c.retain_conflicting(&w);
        }
        let kept = merged(chunks);
        assert!(
            kept.recs.len() * 2 < all.recs.len(),
            "{} of {}",
            kept.recs.len(),
            all.recs.len()
        );
        assert_eq!(kept.writes(), all.writes());
        let (a, b) = (all.dependences().unwrap(), kept.dependences().unwrap());
        assert!(a.num_edges() > 10);
        assert_eq!(a.edges(), b.edges());
    }

    /// Record buffers go back to the pool when a recorder is dropped and
    /// are taken by the next recorder that keeps a record; a recorder that
    /// keeps none takes none; the pool's bounds hold.
    #[test]
    fn record_buffers_are_pooled() {
        let m = machine();
        let banks = m.num_mem_banks();
        let pool = std::sync::Arc::new(RecordPool::default());
        let make = || SlabRecorder::new(layout(), banks, 6, BankTable::new(&m)).with_pool(&pool);
        let mut r = make();
        for i in 0..10 {
            r.record(i, 0x10_0000 + 8 * i as u64, 8, i % 3 == 0);
        }
        let cap = r.recs.capacity();
        assert!(cap >= 10);
        drop(r);
        assert_eq!(pool.bytes(), cap * REC_BYTES);
        let mut idle = make();
        idle.record_unchecked(0, 0x10_0000, 8);
        assert_eq!(
            pool.bytes(),
            cap * REC_BYTES,
            "an unchecked access keeps no record"
        );
        let mut r = make();
        r.record(1, 0x10_0000, 8, false);
        assert_eq!(
            (pool.bytes(), r.recs.capacity()),
            (0, cap),
            "the pooled buffer"
        );
        drop((idle, r));
        // Bounds: at most MAX_BUFFERS buffers and MAX_BYTES bytes.
        for _ in 0..RecordPool::MAX_BUFFERS + 4 {
            pool.put(Vec::with_capacity(1024));
        }
        assert_eq!(pool.bufs.lock().unwrap().0.len(), RecordPool::MAX_BUFFERS);
        pool.put(Vec::with_capacity(RecordPool::MAX_BYTES / REC_BYTES + 1));
        assert!(pool.bytes() <= RecordPool::MAX_BYTES);
    }

    /// `WrittenGranules::any` at word edges, hand-checked: granules 0 and
    /// 63..=64 of a span starting at granule 100 are written.
    #[test]
    fn written_granules_any_hand_checked() {
        let rec = |addr: u64, size: u32| Rec {
            addr,
            unit: 0,
            size_w: size | WRITE_BIT,
        };
        let g = |i: u64| (100 + i) * GRANULE;
        let writes = [rec(g(0), 4), rec(g(63), 8), rec(g(200), 4)];
        let w = WrittenGranules::build(100, 201, writes.iter());
        assert!(w.any(100, 100) && w.any(0, 100) && w.any(163, 163) && w.any(164, 170));
        assert!(!w.any(101, 162) && !w.any(165, 299) && !w.any(0, 99) && !w.any(301, 400));
        assert!(w.any(0, u64::MAX) && w.any(300, 400));
        // numbered among the written granules 100, 163, 164, 300
        assert_eq!(
            (
                w.index(100),
                w.index(101),
                w.index(164),
                w.index(300),
                w.count
            ),
            (Some(0), None, Some(2), Some(3), 4)
        );
        // `touches` (bytes): the window path and the fallback agree with `any`
        for g0 in 0..420u64 {
            for n in [1u64, 2, 3, 8, 31, 32, 40, 70] {
                let (a, size) = (g0 * GRANULE + g0 % 3, n * GRANULE);
                let (e0, e1) = (a / GRANULE, (a + size - 1) / GRANULE);
                assert_eq!(w.touches(a, size), w.any(e0, e1), "{a} {size}");
            }
        }
        assert!(w.touches(g(63) + 3, 2) && !w.touches(g(62), 4) && w.touches(g(62), 5));
    }

    /// The bitmap `build` sets and `covers_writes` against granule-by-granule
    /// versions, on random writes of 1 byte to 300 granules (the window paths
    /// and the long fallbacks), and on writes that leave it partly or wholly.
    #[test]
    fn written_bitmap_and_cover_match_granule_by_granule() {
        let m = machine();
        let banks = m.num_mem_banks();
        let mut next = crate::testutil::xorshift(0x51_7cc1_b727_220a);
        let mut rnd = move |n: u64| next() % n;
        let base = 0x4000_0000u64;
        let mut seen = [0usize; 2];
        for round in 0..40 {
            let mut r = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
            let mut granules = std::collections::BTreeSet::new();
            for i in 0..10 {
                for _ in 0..1 + rnd(6) {
                    let size = match rnd(5) {
                        0 => 1 + rnd(1200) as u32,
                        _ => [1u32, 4, 8, 16, 24, 250][rnd(6) as usize],
                    };
                    let addr = base + rnd(4096) * 3 + (round % 5);
                    r.record(i, addr, size, true);
                    granules.extend(addr / GRANULE..=(addr + size as u64 - 1) / GRANULE);
                }
            }
            let w = WrittenGranules::of(std::slice::from_ref(&r)).expect("dense");
            let set: Vec<u64> = (w.gmin..w.gmin + w.span as u64)
                .filter(|&g| w.index(g).is_some())
                .collect();
            assert_eq!(
                set,
                granules.iter().copied().collect::<Vec<_>>(),
                "round {round}"
            );
            assert_eq!(w.count, granules.len());
            assert!(w.covers_writes(std::slice::from_ref(&r)));
            // Other writes: covered exactly when each of their granules is written.
            for _ in 0..50 {
                let mut o = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
                let size = [1u32, 4, 8, 40, 300][rnd(5) as usize];
                let addr = base - 64 + rnd(12_500);
                o.record(3, addr, size, true);
                let want = (addr / GRANULE..=(addr + size as u64 - 1) / GRANULE)
                    .all(|g| granules.contains(&g));
                assert_eq!(
                    w.covers_writes(std::slice::from_ref(&o)),
                    want,
                    "{addr} {size}"
                );
                seen[want as usize] += 1;
            }
        }
        assert!(
            seen[0] > 100 && seen[1] > 100,
            "{seen:?} (uncovered, covered)"
        );
    }

    #[test]
    fn maps_and_dependences_match_the_generic_path() {
        let m = machine();
        let banks = m.num_mem_banks();
        let mut r = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
        let mut acc = Vec::new();
        // iteration i reads x[IDX[i]] and writes y[DST[i]] (8-byte elements)
        for i in 0..10i64 {
            record_both(
                &mut r,
                &mut acc,
                i,
                [
                    (0x10_0000 + 8 * IDX[i as usize], false),
                    (0x10_0000 + 8 * DST[i as usize], true),
                    (0x80_0000 + 4096 * i as u64, false),
                ],
            );
        }
        let generic = crate::bankmap::unit_maps(m.as_ref(), 6, &acc).unwrap();
        assert_eq!(r.bank_maps(), generic.mem);
        let fast = r.dependences().unwrap();
        let slow = UnitDag::from_accesses(6, &acc).unwrap();
        assert_eq!(closure(&fast), closure(&slow));
        assert!(!fast.has_no_edges());
        let hashed = UnitDag::from_edges(6, &r.edges_hashed()).unwrap();
        assert_eq!(closure(&hashed), closure(&slow));
    }

    #[test]
    fn bank_block_maps_equal_the_per_line_maps() {
        // table5.2: bank bits from bit 11 up, so the maps are kept per 2 KB
        // block; they must be those of marking every 64-byte line.
        let m = machine();
        let banks = m.num_mem_banks();
        let t = BankTable::new(&m);
        assert_eq!(t.block_shift(), 11);
        let mut r = SlabRecorder::new(layout(), banks, 6, t.clone());
        assert_eq!(r.line_shift(), 11);
        assert_eq!(
            SlabRecorder::new(layout(), banks, 6, t)
                .with_miss_filter(64)
                .line_shift(),
            6,
            "a miss predictor works on cache lines"
        );
        let mut acc = Vec::new();
        let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1d);
        for i in 0..10i64 {
            for _ in 0..40 {
                let x = next();
                // Sizes up to a few blocks, some accesses straddling a block.
                let size = [1u32, 8, 8, 64, 72, 2048, 2056, 5000][(x % 8) as usize];
                let addr = 0x4000_0000 + (x >> 16) % (1 << 24);
                r.record_unchecked(i, addr, size);
                acc.push(Access {
                    unit: layout().slab_of(i).0,
                    addr,
                    size,
                    write: false,
                });
            }
        }
        let generic = crate::bankmap::unit_maps(m.as_ref(), 6, &acc).unwrap();
        assert_eq!(r.bank_maps(), generic.mem);
        assert!(
            r.bank_maps().iter().all(|s| s.count() > 1),
            "slabs touch several banks"
        );
    }

    #[test]
    fn range_reports_equal_element_reports() {
        // One report of a row's bytes (weft_inspect_range) sets the bits of
        // reporting each 8-byte element; 0 bytes set nothing.
        let m = machine();
        let banks = m.num_mem_banks();
        let mut ranges = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
        let mut elements = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
        for i in 0..10i64 {
            let (start, len) = (0x2000_0000 + 1000 * 8 * i as u64, 37 * (i as u64 + 1));
            ranges.record_range(i, start, len * 8);
            ranges.record_range(i, start, 0);
            for e in 0..len {
                elements.record_unchecked(i, start + 8 * e, 8);
            }
        }
        assert_eq!(ranges.bank_maps(), elements.bank_maps());
        assert!(ranges.bank_maps().iter().any(|s| s.count() > 1));
        // Past 4 GB (the limit of weft_inspect_access's size): every bank.
        let mut big = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
        big.record_range(3, 0x1_0000_0000, 5 << 30);
        assert_eq!(
            big.bank_maps()[layout().slab_of(3).0 as usize].count(),
            banks
        );
    }

    #[test]
    fn lazy_chunks_completed_by_prefix_equal_the_full_recording() {
        let m = machine();
        let banks = m.num_mem_banks();
        let t = || BankTable::new(&m);
        // iteration i reads x[i] and a far line; from iteration 3 on (chunk 0)
        // and 7 on (chunk 1) it also writes y[i % 4].
        let accesses = |i: i64| {
            let mut v = vec![
                (0x4000 + 8 * i as u64, false),
                (0x90_0000 + 4096 * i as u64, false),
            ];
            if i == 3 || i >= 7 {
                v.push((0x2000 + 8 * (i as u64 % 4), true));
            }
            v
        };
        let inspect = |r: &mut SlabRecorder, a: i64, b: i64| {
            for i in a..b {
                for (addr, w) in accesses(i) {
                    r.record(i, addr, 8, w);
                }
            }
        };
        let mut full = SlabRecorder::new(layout(), banks, 6, t());
        inspect(&mut full, 0, 10);
        let mut merged = SlabRecorder::new(layout(), banks, 6, t());
        for (a, b, first) in [(0, 5, 3), (5, 10, 7)] {
            let mut lazy = SlabRecorder::lazy(layout(), banks, 6, t());
            inspect(&mut lazy, a, b);
            assert_eq!(lazy.first_write_iter(), Some(first));
            assert!(lazy.dependences().is_err(), "incomplete until prepended");
            let mut pre = SlabRecorder::new(layout(), banks, 6, t());
            inspect(&mut pre, a, first + 1);
            lazy.prepend(pre);
            merged.append(lazy);
        }
        assert_eq!(merged.bank_maps(), full.bank_maps());
        assert_eq!(merged.accesses(), full.accesses());
        assert_eq!(merged.writes(), full.writes());
        assert_eq!(
            merged.dependences().unwrap().edges(),
            full.dependences().unwrap().edges()
        );
        assert!(!full.dependences().unwrap().has_no_edges());
        // Without writes a lazy recorder keeps nothing and needs no prefix.
        let mut lazy = SlabRecorder::lazy(layout(), banks, 6, t());
        lazy.record(1, 0x4000, 8, false);
        assert_eq!(lazy.first_write_iter(), None);
        assert!(lazy.recs.is_empty());
        assert_eq!(lazy.accesses(), 1);
        assert!(lazy.dependences().unwrap().has_no_edges());
        // Unchecked accesses set the same bits as reads and keep no record,
        // even after a write.
        let mut full = SlabRecorder::new(layout(), banks, 6, t());
        let mut unch = SlabRecorder::new(layout(), banks, 6, t());
        for i in 0..10 {
            full.record(i, 0x7000 + 4096 * i as u64, 8, false);
            unch.record_unchecked(i, 0x7000 + 4096 * i as u64, 8);
        }
        unch.record(9, 0x40, 8, true);
        full.record(9, 0x40, 8, true);
        assert_eq!(unch.bank_maps(), full.bank_maps());
        assert_eq!((unch.recs.len(), unch.accesses()), (1, 11));
    }

    #[test]
    fn far_apart_writes_paged_and_hashed_match_the_generic_path() {
        let m = machine();
        let mut r = SlabRecorder::new(layout(), m.num_mem_banks(), 6, BankTable::new(&m));
        let mut acc = Vec::new();
        // Two written arrays 1 TiB apart (span far over the dense budget):
        // iteration i updates a[IDX[i]] and b[DST[i]] and reads a[i].
        let (a, b) = (0x10_0000u64, 0x100_0000_0000u64);
        for i in 0..10i64 {
            record_both(
                &mut r,
                &mut acc,
                i,
                [
                    (a + 8 * i as u64, false),
                    (a + 8 * IDX[i as usize], true),
                    (b + 8 * DST[i as usize], true),
                ],
            );
        }
        let slow = closure(&UnitDag::from_accesses(6, &acc).unwrap());
        assert_eq!(closure(&r.dependences().unwrap()), slow);
        let pages = r.written_pages();
        assert_eq!(pages.len(), 2);
        let paged = UnitDag::from_edges(6, &r.edges_paged(&pages)).unwrap();
        assert_eq!(closure(&paged), slow);
        let hashed = UnitDag::from_edges(6, &r.edges_hashed()).unwrap();
        assert_eq!(closure(&hashed), slow);
        assert!(slow.iter().flatten().any(|&e| e));
    }

    /// The run-numbered check (`WrittenRuns`) against the generic one, on
    /// random accesses of 1-16 bytes to two written arrays 1 TiB apart, one
    /// of them written in two places 64 pages apart (three runs), and a
    /// read-only array: equal dependence closures for every seed, and the
    /// runs agree with the paged and hashed numbering.
    #[test]
    fn written_runs_match_the_generic_path() {
        let m = machine();
        let lay = || SlabLayout {
            chunk: vec![0, 100, 200],
            offset: vec![0, 10, 20],
            slab_iters: 10,
        };
        let (a, b, c) = (0x10_0000u64, 0x100_0000_0000u64, 0x7000_0000u64);
        for seed in 0..20u64 {
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut rnd = |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            let mut r = SlabRecorder::new(lay(), m.num_mem_banks(), 6, BankTable::new(&m));
            let mut acc = Vec::new();
            for i in 0..200i64 {
                let unit = lay().slab_of(i).0;
                for _ in 0..3 {
                    let (base, span, may_write) = match rnd(4) {
                        0 => (a, 2048, true),
                        1 => (b, 2048, true),
                        2 => (b + 64 * 4096, 2048, true),
                        _ => (c, 4096, false),
                    };
                    let size = [1u32, 2, 4, 8, 16][rnd(5) as usize];
                    let addr = base + rnd(span);
                    let write = may_write && rnd(3) == 0;
                    r.record(i, addr, size, write);
                    acc.push(Access {
                        unit,
                        addr,
                        size,
                        write,
                    });
                }
            }
            let slow = closure(&UnitDag::from_accesses(20, &acc).unwrap());
            assert_eq!(closure(&r.dependences().unwrap()), slow, "seed {seed}");
            let pages = r.written_pages();
            let runs = WrittenRuns::build(&pages, r.wrecs.iter()).expect("three runs");
            assert_eq!(runs.runs.len(), 3, "seed {seed}");
            let by_runs = r.edges_with(runs.count, |g| runs.index(g));
            assert_eq!(closure(&UnitDag::from_edges(20, &by_runs).unwrap()), slow);
            let paged = UnitDag::from_edges(20, &r.edges_paged(&pages)).unwrap();
            assert_eq!(closure(&paged), slow);
            let hashed = UnitDag::from_edges(20, &r.edges_hashed()).unwrap();
            assert_eq!(closure(&hashed), slow);
            assert!(
                slow.iter().flatten().any(|&e| e),
                "seed {seed}: no dependence"
            );
        }
    }

    /// More than `MAX_RUNS` runs of written pages: `WrittenRuns` declines.
    #[test]
    fn written_runs_decline_many_runs() {
        let m = machine();
        let mut r = SlabRecorder::new(layout(), m.num_mem_banks(), 6, BankTable::new(&m));
        for i in 0..10i64 {
            for k in 0..2u64 {
                let page = (2 * i as u64 + k) * (RUN_GAP_PAGES + 1);
                r.record(i, 0x10_0000 + (page << (PAGE_BITS + 2)), 8, true);
            }
        }
        let pages = r.written_pages();
        assert_eq!(pages.len(), 20);
        assert!(WrittenRuns::build(&pages, r.wrecs.iter()).is_none());
    }

    #[test]
    fn line_filter_is_lru_per_set() {
        let mut f = LineFilter::new(8); // 2 sets of 4 ways
        assert_eq!(f.capacity(), 8);
        // Even lines share set 0: 0, 2, 4, 6 fill it, 8 evicts 0 (LRU).
        for l in [0, 2, 4, 6] {
            assert!(!f.touch(l), "line {l} is new");
        }
        assert!(f.touch(0), "0 is still there; now most recent");
        assert!(!f.touch(8), "evicts the LRU line, 2");
        assert!(!f.touch(2), "2 was evicted (and now evicts 4)");
        assert!(f.touch(0) && f.touch(8) && f.touch(6));
        assert!(!f.touch(4));
        // Set 1 (odd lines) is untouched by all that.
        assert!(!f.touch(1) && f.touch(1));
        // Sizes round to the nearest power-of-two number of sets.
        assert_eq!(LineFilter::new(0).capacity(), 4);
        assert_eq!(LineFilter::new(12).capacity(), 16);
        assert_eq!(LineFilter::new(20).capacity(), 16);
        assert_eq!(LineFilter::new(17749).capacity(), 16384);
    }

    /// `table4.2`: page-interleaved, so the 4 KiB pages at 0x0, 0x1000, ...
    /// 0x5000 lie in six different banks (the bank bits start at bit 12).
    fn paged_banks() -> (std::sync::Arc<Machine>, [usize; 6]) {
        let m = std::sync::Arc::new(Machine::load("table4.2").unwrap());
        let b: [usize; 6] = std::array::from_fn(|k| m.mem_bank(0x1000 * k as u64));
        let mut d = b.to_vec();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), 6, "distinct banks {b:?}");
        (m, b)
    }

    #[test]
    fn miss_filter_hand_computed_bank_maps() {
        let (m, bank) = paged_banks();
        let banks = m.num_mem_banks();
        let set = |v: &[usize]| BankSet::from_banks(banks, v).unwrap();
        // Pages 0..5 start at lines 0, 64, ..., 320: all in set 0 of a
        // 16-line filter (4 sets of 4 ways).
        let (a, b, c, d, e, f) = (0x0, 0x1000, 0x2000, 0x3000, 0x4000, 0x5000);
        let run = |filter: usize| {
            let mut r =
                SlabRecorder::new(layout(), banks, 6, BankTable::new(&m)).with_miss_filter(filter);
            // slab 0: A twice (the same line), B once
            r.record(0, a, 8, false);
            r.record(1, a + 8, 8, false);
            r.record(1, b, 8, false);
            // slab 1: A again (within capacity), C
            r.record(2, a, 8, false);
            r.record_unchecked(3, c, 8);
            // slab 2: D, E, F evict A (LRU of set 0 after slab 1: C A B),
            // then A again
            for x in [d, e, f, a] {
                r.record(4, x, 8, false);
            }
            r
        };
        // Every access a predicted miss (the dissertation's default).
        let off = run(0);
        assert_eq!(off.filter_counts(), (0, 9));
        let maps = off.bank_maps();
        assert_eq!(maps[0], set(&[bank[0], bank[1]]));
        assert_eq!(maps[1], set(&[bank[0], bank[2]]));
        assert_eq!(maps[2], set(&[bank[3], bank[4], bank[5], bank[0]]));
        // With the filter: A's second touch in slab 0 and its touch in slab 1
        // hit; in slab 2 it was evicted and misses again.
        let on = run(16);
        assert_eq!(on.filter_counts(), (2, 9));
        let maps = on.bank_maps();
        assert_eq!(maps[0], set(&[bank[0], bank[1]]));
        assert_eq!(maps[1], set(&[bank[2]]));
        assert_eq!(maps[2], set(&[bank[3], bank[4], bank[5], bank[0]]));
        assert!(maps[3..].iter().all(|s| s.count() == 0));
        // 256 sets: A, E in set 0, B, F in set 64, C in 128, D in 192; A
        // stays and slab 2 loses A's bank.
        let big = run(1024);
        assert_eq!(big.filter_counts(), (3, 9));
        assert_eq!(big.bank_maps()[2], set(&[bank[3], bank[4], bank[5]]));
    }

    #[test]
    fn miss_filter_lines_spanning_accesses_and_empty_maps_schedule() {
        let (m, bank) = paged_banks();
        let banks = m.num_mem_banks();
        let mut r = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m)).with_miss_filter(64);
        // A 16-byte access across the page boundary 0x1000: two lines, two banks.
        r.record(0, 0x1000 - 8, 16, false);
        // Slab 1 touches only those lines again: an empty map.
        r.record(2, 0x1000 - 8, 8, false);
        r.record(3, 0x1000, 8, false);
        assert_eq!(r.filter_counts(), (2, 4));
        let maps = r.bank_maps();
        assert_eq!(
            maps[0],
            BankSet::from_banks(banks, &[bank[0], bank[1]]).unwrap()
        );
        assert_eq!(maps[1].count(), 0);
        // Algorithm 4 still schedules every slab (empty maps included) once.
        let per_core = vec![maps[0..3].to_vec(), maps[3..6].to_vec()];
        let inst = crate::blp::SlabInstance::new(banks, per_core).unwrap();
        let s = crate::blp::schedule_blp(&inst, &Default::default(), None).unwrap();
        let mut got = s.per_core();
        for c in &mut got {
            c.sort_unstable();
        }
        assert_eq!(got, vec![vec![0, 1, 2], vec![0, 1, 2]]);
    }

    #[test]
    fn miss_filter_lazy_prefix_equals_the_full_recording() {
        let (m, _) = paged_banks();
        let banks = m.num_mem_banks();
        let t = || BankTable::new(&m);
        // Iterations read lines of a few pages again and again; iteration 3
        // writes.
        let inspect = |r: &mut SlabRecorder, a: i64, b: i64| {
            for i in a..b {
                r.record(i, 0x1000 * (i as u64 % 3), 8, false);
                r.record(i, 0x8000 + 0x1000 * (i as u64 % 5), 8, i == 3);
            }
        };
        let mut full = SlabRecorder::new(layout(), banks, 6, t()).with_miss_filter(1024);
        inspect(&mut full, 0, 5);
        let mut lazy = SlabRecorder::lazy(layout(), banks, 6, t()).with_miss_filter(1024);
        inspect(&mut lazy, 0, 5);
        let mut pre = SlabRecorder::new(layout(), banks, 6, t()).with_miss_filter(1024);
        inspect(&mut pre, 0, 4);
        lazy.prepend(pre);
        assert_eq!(lazy.bank_maps(), full.bank_maps());
        assert_eq!(lazy.filter_counts(), full.filter_counts());
        assert!(full.filter_counts().0 > 0);
        assert_eq!(lazy.accesses(), full.accesses());
    }

    /// Reachability matrix (the dependence relation both DAGs must induce).
    fn closure(d: &UnitDag) -> Vec<Vec<bool>> {
        let n = d.len();
        let mut r = vec![vec![false; n]; n];
        for v in 0..n {
            for &p in d.preds(v) {
                r[p as usize][v] = true;
                for row in r.iter_mut() {
                    if row[p as usize] {
                        row[v] = true;
                    }
                }
            }
        }
        r
    }

    #[test]
    fn no_writes_no_edges_and_out_of_order_falls_back() {
        let m = machine();
        let mut r = SlabRecorder::new(layout(), m.num_mem_banks(), 6, BankTable::new(&m));
        r.record(9, 64, 4, false);
        r.record(0, 64, 4, false);
        assert!(r.dependences().unwrap().has_no_edges());
        r.record(1, 64, 4, true);
        // units 5 (read), 0 (read), 0 (write): WAR edge 5 -> 0 would be cyclic in
        // unit order; the generic path orders by unit: 0 writes before 5 reads.
        let d = r.dependences().unwrap();
        assert_eq!(d.edges(), vec![(0, 5)]);
    }
}
