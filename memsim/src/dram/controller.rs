//! One memory controller: bounded read and write queues with back-pressure,
//! write draining between watermarks, optional per-bank command queues, the
//! request scheduler, refresh, and the channel it drives.
//!
//! Per DRAM cycle the controller does what DRAMsim3's `Controller::ClockTick`
//! does, in the same order: (1) raise a refresh when one is due (every
//! tREFI / ranks cycles, ranks in turn) and, while one is pending, precharge that
//! rank's open banks and issue REF as soon as timing allows, keeping other
//! commands off that rank; (2) otherwise issue the command of the scheduler's
//! choice among requests whose next command is ready — at most one command per
//! cycle; (3) with per-bank command queues (`bank_queue_entries > 0`) move one
//! request from the active transaction queue (reads, or writes while draining)
//! into its bank's queue, where it becomes eligible the next cycle.
//! Without command queues the scheduler sees the whole queues, and only reads
//! (or, while draining, only writes) are eligible.
//!
//! It is event-driven: after each step it computes the next cycle at which
//! anything can happen (a command becoming ready, a refresh falling due) and
//! the caller skips straight there, so idle and waiting cycles cost nothing.
//! The refreshes of a long idle stretch are applied in closed form
//! ([`idle`]), so idle time costs nothing either.
//! That cycle is a lower bound (a bank's earliest command of any kind), not
//! always the cycle of the next command, and it is part of the model's
//! behaviour: the manycore memory side advances the DRAM at these cycles, which
//! decides, when a core clock edge coincides with a DRAM edge, whether a request
//! arriving then is offered at that DRAM cycle or the next, and at which cycle
//! the end of input reaches the controllers. A tighter bound would skip only a
//! few percent of the steps (most steps without a command are the cycle right
//! after one) and changes results.
//!
//! Writes are drained when the write queue reaches the high watermark, or when
//! more than `write_idle_drain` writes wait and no read does, or when the input
//! has ended; draining stops at the low watermark. A read of a burst that a
//! queued write will write is served from the write queue one cycle later
//! (forwarded); a read of a burst another queued read already asked for is
//! merged with it; a write to a burst already queued for writing is merged.
//! A write is not issued before an older queued read of the same burst.
//!
//! Row-buffer outcome of a request = its first command: RD/WR → hit, ACT → miss
//! (bank was precharged), PRE → conflict (another row was open).

mod idle;

use std::collections::hash_map::Entry as MapEntry;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use crate::addrmap::AddressMapping;
use crate::config::{BankArbitration, DramConfig, RowPolicy};
use crate::stats::{CommandCounts, Histogram, ParallelismTracker};

use super::channel::{Channel, CommandKind};
use super::scheduler::{self, Candidate, MemScheduler, Policy, QueuedRequest};
use super::{Completion, MemRequest, QueueFull, Timing};

/// Multiplicative hasher for burst addresses (no external dependency).
#[derive(Default, Clone, Copy)]
pub(crate) struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        // splitmix64 finaliser: every input bit reaches the low (bucket) bits
        let mut x = v ^ self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        self.0 = x ^ (x >> 31);
    }
}

type AddrMap<V> = HashMap<u64, V, BuildHasherDefault<AddrHasher>>;

/// Per-controller counters (merged into [`crate::stats::DramStats`]).
#[derive(Debug, Clone)]
pub struct ControllerStats {
    /// Reads accepted.
    pub reads: u64,
    /// Writes accepted.
    pub writes: u64,
    /// Row hits.
    pub row_hits: u64,
    /// Row misses.
    pub row_misses: u64,
    /// Row conflicts.
    pub row_conflicts: u64,
    /// Reads forwarded from the write queue.
    pub forwarded_reads: u64,
    /// Reads merged with a queued read.
    pub merged_reads: u64,
    /// Writes merged with a queued write.
    pub merged_writes: u64,
    /// Commands issued.
    pub commands: CommandCounts,
    /// Read latency histogram.
    pub read_latency: Histogram,
    /// Write latency histogram.
    pub write_latency: Histogram,
    /// Bytes moved by bursts.
    pub bytes: u64,
    /// Latest completion cycle.
    pub last_done: u64,
}

impl ControllerStats {
    fn new() -> Self {
        ControllerStats {
            reads: 0,
            writes: 0,
            row_hits: 0,
            row_misses: 0,
            row_conflicts: 0,
            forwarded_reads: 0,
            merged_reads: 0,
            merged_writes: 0,
            commands: CommandCounts::default(),
            read_latency: Histogram::new(8, 512),
            write_latency: Histogram::new(8, 512),
            bytes: 0,
            last_done: 0,
        }
    }
}

/// A queued request plus controller bookkeeping.
#[derive(Debug, Clone)]
struct Entry {
    req: QueuedRequest,
    /// First cycle at which the scheduler may serve it.
    eligible_from: u64,
    /// Waiting for an older read of the same burst (write only).
    after_read: bool,
}

/// A bank-queue position: the request's slot in the controller's slab plus the
/// fields the per-bank scans and [`BankView::fill_candidates`] read, so that
/// scanning and reordering a bank queue touch 24 bytes per request instead of
/// the whole entry.
#[derive(Debug, Clone, Copy)]
struct Key {
    /// Copy of the request's `seq` (never changes once queued).
    seq: u64,
    /// Index into `Controller::slab`.
    idx: u32,
    row: u32,
    is_write: bool,
    /// Copy of the entry's `after_read`.
    after_read: bool,
}

const NONE: u32 = u32::MAX;

/// Per-bank counts of a bank queue by direction (index `is_write`): requests not
/// waiting for an older read (`elig`), and among them those of row `row`
/// (`hits`; recounted when the bank's open row is no longer `row`). They let a
/// view refresh stop as soon as no later request can fill a slot.
#[derive(Debug, Clone, Copy, Default)]
struct BankCounts {
    elig: [u32; 2],
    hits: [u32; 2],
    row: Option<u32>,
}

/// Per-bank summary of the eligible requests, for class-uniform schedulers
/// (see [`MemScheduler::class_uniform`]): the first eligible request in queue
/// order, and the oldest (lowest `seq`) other eligible read hit, write hit and
/// non-hit. Recomputed when the bank's queue, its row state, the drain mode or a
/// request's eligibility changes (`dirty`), or when a not-yet-eligible request
/// becomes eligible (`recheck_at`).
///
/// The distinct representatives are also kept as a candidate list with their
/// queue index, `seq` and next command (which only depends on the bank's open
/// row, and every command to the bank marks the view dirty), so that picking a
/// command reads no queue entry except those of ready candidates.
///
/// Layout: the fields the per-step scan reads (`recheck_at`, `dirty` and the
/// candidate list) fill the first cache line; the representatives, only read
/// when the view changes, follow.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct BankView {
    recheck_at: u64,
    cand_seq: [u64; 4],
    cand_j: [u32; 4],
    /// Next command of each candidate: index into [`CMDS`].
    cand_cmd: [u8; 4],
    /// Number of candidates in `cand_*`.
    n: u8,
    has_hits: bool,
    dirty: bool,
    first: u32,
    hit_rd: u32,
    hit_wr: u32,
    other: u32,
}

impl Default for BankView {
    fn default() -> Self {
        BankView {
            dirty: true,
            recheck_at: u64::MAX,
            first: NONE,
            hit_rd: NONE,
            hit_wr: NONE,
            other: NONE,
            has_hits: false,
            n: 0,
            cand_j: [NONE; 4],
            cand_cmd: [0; 4],
            cand_seq: [0; 4],
        }
    }
}

/// Commands in the order of [`BankView::cand_cmd`].
const CMDS: [CommandKind; 4] = [
    CommandKind::Act,
    CommandKind::Pre,
    CommandKind::Rd,
    CommandKind::Wr,
];

impl BankView {
    /// Rebuilds the candidate list from the representatives.
    #[inline]
    fn fill_candidates(&mut self, q: &[Key], open: Option<u32>) {
        let mut n = 0;
        for j in [self.first, self.hit_rd, self.hit_wr, self.other] {
            if j == NONE {
                continue;
            }
            let k = &q[j as usize];
            self.cand_cmd[n] = match open {
                Some(r) if r == k.row => 2 + k.is_write as u8,
                Some(_) => 1,
                None => 0,
            };
            self.cand_j[n] = j;
            self.cand_seq[n] = k.seq;
            n += 1;
        }
        self.n = n as u8;
    }
}

/// One memory controller and its channel.
pub struct Controller {
    id: u32,
    ch: Channel,
    mapping: AddressMapping,
    burst_mask: u64,
    burst_bytes: u64,
    read_cap: usize,
    write_cap: usize,
    bank_cap: u32,
    high: usize,
    low: usize,
    idle_drain: usize,
    closed_row: bool,
    refresh: bool,
    refresh_interval: u64,
    next_refresh: u64,
    next_refresh_rank: usize,
    pending_refresh: VecDeque<usize>,
    sched: Policy,
    /// Transaction queues (only with per-bank command queues).
    read_q: VecDeque<Entry>,
    write_q: VecDeque<Entry>,
    /// Requests visible to the scheduler, per bank, oldest first (entries in `slab`).
    window: Vec<Vec<Key>>,
    /// Entries of the requests in `window`; free slots in `slab_free`.
    slab: Vec<Entry>,
    slab_free: Vec<u32>,
    window_len: usize,
    window_reads: usize,
    window_writes: usize,
    bank_count: Vec<u32>,
    /// Banks with a non-empty window queue (bit per bank).
    nonempty: Vec<u64>,
    /// Per-bank summaries (class-uniform schedulers only).
    views: Vec<BankView>,
    counts: Vec<BankCounts>,
    /// The scheduler is class-uniform: use `views`.
    fast: bool,
    /// Queued reads per burst address.
    pending_reads: AddrMap<u32>,
    /// Extra reads merged into a queued read: (tag, source, arrival).
    merged: AddrMap<Vec<(u64, u32, u64)>>,
    /// Queued writes per burst address.
    pending_writes: AddrMap<u32>,
    war_writes: usize,
    draining: bool,
    /// The last staging attempt found nothing to move (cleared by any change
    /// that could unblock it), so the scan is skipped.
    stage_blocked: bool,
    /// Latest `eligible_from` of any request ever queued: from this cycle on no
    /// queued request is waiting to become eligible.
    max_eligible: u64,
    input_done: bool,
    /// First cycle not yet processed.
    now: u64,
    next_event: u64,
    seq: u64,
    completions: Vec<Completion>,
    /// Statistics.
    pub stats: ControllerStats,
    global_bank_base: usize,
    /// Per bank, the ready time of each command of [`CMDS`] its row state allows
    /// (`u64::MAX` for the others) and its [gate](Self::gate); they only depend on
    /// the channel's timing state, so they are computed once after each command
    /// (`ready_valid` false) instead of at every step.
    ready: Vec<[u64; 4]>,
    gates: Vec<u64>,
    ready_valid: bool,
    /// Scratch of `update_ready`: per bank group, the group's and its rank's
    /// earliest (ACT, RD, WR).
    group_ready: Vec<[u64; 3]>,
}

impl Controller {
    /// Controller `id` of a validated DRAM config.
    pub fn new(id: u32, cfg: &DramConfig, mapping: AddressMapping) -> Self {
        let tm = Timing::from_config(cfg);
        let ch = Channel::new(tm, cfg.ranks, cfg.bankgroups, cfg.banks_per_group);
        let nb = ch.banks.len();
        let refresh_interval = (tm.refi / cfg.ranks as u64).max(1);
        let sched = scheduler::build_policy(cfg, nb as u32);
        let fast = sched.class_uniform() && !sched.wants_prepare();
        Controller {
            id,
            ch,
            burst_mask: !(cfg.burst_bytes() as u64 - 1),
            burst_bytes: cfg.burst_bytes() as u64,
            mapping,
            read_cap: cfg.read_queue_entries as usize,
            write_cap: cfg.write_queue_entries as usize,
            bank_cap: cfg.bank_queue_entries,
            high: cfg.write_high_watermark as usize,
            low: cfg.write_low_watermark as usize,
            idle_drain: cfg.write_idle_drain as usize,
            closed_row: cfg.row_policy == RowPolicy::Closed,
            refresh: cfg.refresh,
            refresh_interval,
            next_refresh: refresh_interval,
            next_refresh_rank: 0,
            pending_refresh: VecDeque::new(),
            sched,
            read_q: VecDeque::new(),
            write_q: VecDeque::new(),
            window: vec![Vec::new(); nb],
            slab: Vec::new(),
            slab_free: Vec::new(),
            window_len: 0,
            window_reads: 0,
            window_writes: 0,
            bank_count: vec![0; nb],
            nonempty: vec![0; nb.div_ceil(64)],
            views: vec![BankView::default(); nb],
            counts: vec![BankCounts::default(); nb],
            fast,
            pending_reads: AddrMap::default(),
            merged: AddrMap::default(),
            pending_writes: AddrMap::default(),
            war_writes: 0,
            draining: false,
            stage_blocked: false,
            max_eligible: 0,
            input_done: false,
            now: 0,
            next_event: if cfg.refresh {
                refresh_interval
            } else {
                u64::MAX
            },
            seq: 0,
            completions: Vec::new(),
            stats: ControllerStats::new(),
            global_bank_base: id as usize * nb,
            ready: vec![[u64::MAX; 4]; nb],
            gates: vec![u64::MAX; nb],
            ready_valid: false,
            group_ready: vec![[0; 3]; (cfg.ranks * cfg.bankgroups) as usize],
        }
    }

    /// Replace the scheduler (e.g. one not named in [`crate::config::SchedulerKind`]).
    pub fn set_scheduler(&mut self, s: Box<dyn MemScheduler>) {
        self.fast = s.class_uniform() && !s.wants_prepare();
        self.sched = Policy::Dyn(s);
        self.invalidate_views();
    }

    fn invalidate_views(&mut self) {
        for v in &mut self.views {
            v.dirty = true;
        }
    }

    /// Channel index.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The channel's timing state (read-only).
    pub fn channel(&self) -> &Channel {
        &self.ch
    }

    /// Cycle of the next event (`u64::MAX` if none).
    pub fn next_event(&self) -> u64 {
        self.next_event
    }

    /// Requests queued and not yet served.
    pub fn queued(&self) -> usize {
        self.read_q.len() + self.write_q.len() + self.window_len
    }

    /// Completions not yet drained.
    pub fn pending_completions(&self) -> usize {
        self.completions.len()
    }

    fn staged(&self) -> bool {
        self.bank_cap > 0
    }

    /// Whether a request of this kind would be accepted now.
    pub fn can_accept(&self, is_write: bool) -> bool {
        if self.staged() {
            if is_write {
                self.write_q.len() < self.write_cap
            } else {
                self.read_q.len() < self.read_cap
            }
        } else if is_write {
            self.window_writes < self.write_cap
        } else {
            self.window_reads < self.read_cap
        }
    }

    /// Functional warming (sampled simulation, `crate::sample`): leaves
    /// `addr`'s row open in its bank, as an access under the open-row policy
    /// would, when the bank has no queued request and no refresh is pending
    /// (otherwise, and under the closed-row policy, nothing changes).
    pub fn warm_row(&mut self, addr: u64) {
        if self.closed_row || !self.pending_refresh.is_empty() {
            return;
        }
        let d = self.mapping.decode(addr);
        let b = self.mapping.bank_in_channel(&d) as usize;
        if self.bank_count[b] == 0 && self.ch.banks[b].open_row != Some(d.row) {
            self.ch.banks[b].open_row = Some(d.row);
            self.ready_valid = false;
        }
    }

    /// The input has ended: drain every remaining write.
    pub fn finish_input(&mut self, now: u64) {
        self.input_done = true;
        self.wake(now);
    }

    fn wake(&mut self, t: u64) {
        self.next_event = self.next_event.min(t.max(self.now));
    }

    fn complete(&mut self, c: Completion) {
        self.stats.last_done = self.stats.last_done.max(c.done);
        self.completions.push(c);
    }

    /// Offer a request at cycle `now` (all events before `now` must have been
    /// processed). `Err(QueueFull)` if its queue is full.
    pub fn enqueue(&mut self, now: u64, r: MemRequest) -> Result<(), QueueFull> {
        if !self.can_accept(r.is_write) {
            return Err(QueueFull);
        }
        let now = now.max(self.now);
        let addr = r.addr & self.burst_mask;
        if !r.is_write {
            self.stats.reads += 1;
            if self.pending_writes.contains_key(&addr) {
                self.stats.forwarded_reads += 1;
                self.stats.read_latency.add(1);
                self.complete(Completion {
                    tag: r.tag,
                    source: r.source,
                    addr: r.addr,
                    is_write: false,
                    arrival: now,
                    done: now + 1,
                });
                // the completion must be collected even when nothing else is queued
                self.wake(now + 1);
                return Ok(());
            }
            match self.pending_reads.entry(addr) {
                MapEntry::Occupied(mut n) => {
                    *n.get_mut() += 1;
                    self.stats.merged_reads += 1;
                    self.merged
                        .entry(addr)
                        .or_default()
                        .push((r.tag, r.source, now));
                    return Ok(());
                }
                MapEntry::Vacant(v) => {
                    v.insert(1);
                }
            }
        } else {
            self.stats.writes += 1;
            match self.pending_writes.entry(addr) {
                MapEntry::Occupied(_) => {
                    self.stats.merged_writes += 1;
                    self.complete(Completion {
                        tag: r.tag,
                        source: r.source,
                        addr: r.addr,
                        is_write: true,
                        arrival: now,
                        done: now + 1,
                    });
                    return Ok(());
                }
                MapEntry::Vacant(v) => {
                    v.insert(1);
                }
            }
        }
        let d = self.mapping.decode(addr);
        let bank = self.mapping.bank_in_channel(&d);
        let after_read = r.is_write && self.pending_reads.contains_key(&addr);
        if after_read {
            self.war_writes += 1;
        }
        let mut req = QueuedRequest {
            seq: self.seq,
            arrival: now,
            source: r.source,
            is_write: r.is_write,
            addr,
            bank,
            row: d.row,
            column: d.column,
            tag: r.tag,
            sched_state: 0,
            first_cmd: None,
            in_service: false,
        };
        self.seq += 1;
        self.sched.on_arrival(now, &mut req);
        let e = Entry {
            req,
            eligible_from: now,
            after_read,
        };
        if self.staged() {
            self.stage_blocked = false;
            if r.is_write {
                self.write_q.push_back(e);
            } else {
                self.read_q.push_back(e);
            }
        } else {
            self.push_window(e);
        }
        self.wake(now);
        Ok(())
    }

    fn push_window(&mut self, e: Entry) {
        self.max_eligible = self.max_eligible.max(e.eligible_from);
        let bi = e.req.bank as usize;
        self.bank_count[bi] += 1;
        if !e.after_read {
            let c = &mut self.counts[bi];
            let d = e.req.is_write as usize;
            c.elig[d] += 1;
            if c.row == Some(e.req.row) {
                c.hits[d] += 1;
            }
        }
        self.nonempty[bi / 64] |= 1 << (bi % 64);
        if e.req.is_write {
            self.window_writes += 1;
        } else {
            self.window_reads += 1;
        }
        self.window_len += 1;
        let b = e.req.bank as usize;
        if self.staged() {
            self.views[b].dirty = true;
        } else if !self.views[b].dirty {
            // Without staging a new request is eligible from its arrival on and has
            // the highest `seq` of its bank, so it only fills an empty slot of the
            // bank's view (same result as recomputing it).
            let j = self.window[b].len() as u32;
            let v = &mut self.views[b];
            let mut changed = false;
            let open = self.ch.banks[b].open_row;
            if !e.after_read && e.req.is_write == self.draining {
                let hit = open == Some(e.req.row);
                v.has_hits |= hit;
                if v.first == NONE {
                    v.first = j;
                    changed = true;
                } else {
                    let slot = if !hit {
                        &mut v.other
                    } else if e.req.is_write {
                        &mut v.hit_wr
                    } else {
                        &mut v.hit_rd
                    };
                    if *slot == NONE {
                        *slot = j;
                        changed = true;
                    }
                }
            }
            let key = self.alloc(e);
            self.window[b].push(key);
            if changed {
                self.views[b].fill_candidates(&self.window[b], open);
            }
            return;
        }
        let key = self.alloc(e);
        self.window[b].push(key);
    }

    /// Stores `e` in the slab and returns its queue key.
    fn alloc(&mut self, e: Entry) -> Key {
        let key = Key {
            seq: e.req.seq,
            idx: 0,
            row: e.req.row,
            is_write: e.req.is_write,
            after_read: e.after_read,
        };
        let idx = match self.slab_free.pop() {
            Some(i) => {
                self.slab[i as usize] = e;
                i
            }
            None => {
                self.slab.push(e);
                (self.slab.len() - 1) as u32
            }
        };
        Key { idx, ..key }
    }

    /// Entry at position `j` of bank `b`'s queue.
    #[inline]
    fn entry(&self, b: usize, j: usize) -> &Entry {
        &self.slab[self.window[b][j].idx as usize]
    }

    #[inline]
    fn entry_mut(&mut self, b: usize, j: usize) -> &mut Entry {
        &mut self.slab[self.window[b][j].idx as usize]
    }

    /// Move completions with `done <= upto` to `out` (in no particular order).
    pub fn drain_completions(&mut self, upto: u64, out: &mut Vec<Completion>) {
        if upto == u64::MAX {
            out.append(&mut self.completions);
            return;
        }
        let mut i = 0;
        while i < self.completions.len() {
            if self.completions[i].done <= upto {
                out.push(self.completions.swap_remove(i));
            } else {
                i += 1;
            }
        }
    }

    /// Whether the write-drain mode changes at the next step: the new mode,
    /// or `None`.
    fn drain_flip(&self) -> Option<bool> {
        let (writes, reads_waiting, idle) = if self.staged() {
            (
                self.write_q.len(),
                !self.read_q.is_empty() || self.window_reads > 0,
                self.window_len == 0 && self.read_q.is_empty(),
            )
        } else {
            (
                self.window_writes,
                self.window_reads > 0,
                self.window_reads == 0,
            )
        };
        if !self.draining {
            (writes > 0
                && (writes >= self.high
                    || (writes > self.idle_drain && idle)
                    || (self.input_done && !reads_waiting)))
                .then_some(true)
        } else {
            (writes <= self.low && !(self.input_done && !reads_waiting && writes > 0))
                .then_some(false)
        }
    }

    fn update_drain(&mut self) {
        if let Some(draining) = self.drain_flip() {
            self.draining = draining;
            self.stage_blocked = false;
            self.invalidate_views();
        }
    }

    /// Process cycle `t` (= `next_event()`), reporting bank activity to `blp`.
    pub fn step(&mut self, t: u64, blp: &mut ParallelismTracker) {
        debug_assert!(
            t >= self.now,
            "step({t}) after cycle {} was processed",
            self.now
        );
        while self.refresh && t >= self.next_refresh {
            let r = self.next_refresh_rank;
            if !self.ch.ranks[r].refresh_pending {
                self.ch.ranks[r].refresh_pending = true;
                self.pending_refresh.push_back(r);
            }
            self.next_refresh_rank = (r + 1) % self.ch.ranks.len();
            self.next_refresh += self.refresh_interval;
        }
        self.update_drain();
        let mut issued = false;
        let mut future = u64::MAX;
        if let Some(&r) = self.pending_refresh.front() {
            let (done, f) = self.try_refresh(r, t);
            issued = done;
            future = f;
        }
        if !issued {
            let (done, f) = self.schedule(t, blp);
            issued = done;
            future = future.min(f);
        }
        let staged = self.staged() && self.stage_one(t);
        self.now = t + 1;
        self.next_event = if issued || staged {
            t + 1
        } else {
            let mut n = future;
            if self.refresh {
                n = n.min(self.next_refresh);
            }
            n.max(t + 1)
        };
    }

    /// Precharge or refresh rank `r`; returns (issued, earliest future ready time).
    fn try_refresh(&mut self, r: usize, t: u64) -> (bool, u64) {
        let bpr = self.ch.banks_per_rank();
        let lo = r * bpr;
        let mut future = u64::MAX;
        let mut any_open = false;
        for b in lo..lo + bpr {
            if self.ch.banks[b].open_row.is_some() {
                any_open = true;
                let rt = self.ch.banks[b].next_pre;
                if rt <= t {
                    self.views[b].dirty = true;
                    self.issue_command(CommandKind::Pre, b, 0, t, false);
                    self.stats.commands.pre += 1;
                    return (true, t + 1);
                }
                future = future.min(rt);
            }
        }
        if !any_open {
            let rt = self.ch.refresh_ready(r).unwrap_or(u64::MAX);
            if rt <= t {
                for v in &mut self.views[lo..lo + bpr] {
                    v.dirty = true;
                }
                self.issue_command(CommandKind::Ref, lo, 0, t, false);
                self.stats.commands.refresh += 1;
                self.pending_refresh.pop_front();
                return (true, t + 1);
            }
            future = future.min(rt);
        }
        (false, future)
    }

    #[inline]
    fn eligible(&self, e: &Entry, t: u64) -> bool {
        if e.eligible_from > t || e.after_read {
            return false;
        }
        if !self.staged() && e.req.is_write != self.draining {
            return false;
        }
        !self.ch.ranks[self.ch.rank_of(e.req.bank as usize)].refresh_pending
    }

    /// Pick and issue one command; returns (issued, earliest future ready time).
    ///
    /// Banks whose required commands are not ready are skipped in O(1): every
    /// request of a precharged bank needs ACT, and those of an open bank need
    /// either the column command (row hits) or PRE.
    fn schedule(&mut self, t: u64, blp: &mut ParallelismTracker) -> (bool, u64) {
        if self.window_len == 0 {
            return (false, u64::MAX);
        }
        let (pick, future) = if self.fast {
            let fast = self.pick_fast(t);
            #[cfg(debug_assertions)]
            {
                let general = self.pick_general(t);
                debug_assert_eq!(fast.0, general.0, "fast scheduling path diverged at {t}");
                if fast.0.is_none() {
                    debug_assert_eq!(fast.1, general.1, "fast wake-up bound diverged at {t}");
                }
            }
            fast
        } else {
            self.pick_general(t)
        };
        match pick {
            Some((b, j, cmd)) => {
                self.issue(b, j, cmd, t, blp);
                (true, t + 1)
            }
            None => (false, future),
        }
    }

    /// The scheduler's choice at `t` among all ready requests, as
    /// (bank, index in its window queue, command), and a lower bound of the next
    /// cycle at which some command may be ready (when there is no choice).
    fn pick_general(&mut self, t: u64) -> (Option<(usize, usize, CommandKind)>, u64) {
        if self.sched.wants_prepare() {
            let mut reqs: Vec<QueuedRequest> = self
                .window
                .iter()
                .flatten()
                .map(|k| self.slab[k.idx as usize].req.clone())
                .collect();
            reqs.sort_by_key(|r| r.seq);
            self.sched.prepare(t, &mut reqs);
            for q in self.window.iter() {
                for key in q.iter() {
                    let e = &mut self.slab[key.idx as usize];
                    if let Ok(k) = reqs.binary_search_by_key(&e.req.seq, |r| r.seq) {
                        e.req.sched_state = reqs[k].sched_state;
                    }
                }
            }
        }
        let mut future = u64::MAX;
        // (priority, seq, bank, index, command)
        let mut best: Option<(u64, u64, usize, usize, CommandKind)> = None;
        for b in 0..self.window.len() {
            let q = &self.window[b];
            if q.is_empty() {
                continue;
            }
            let rank = self.ch.rank_of(b);
            if self.ch.ranks[rank].refresh_pending {
                continue;
            }
            let bank = &self.ch.banks[b];
            let (rt_a, rt_b) = match bank.open_row {
                None => (self.ch.ready(CommandKind::Act, b), u64::MAX),
                Some(_) => (
                    self.ch
                        .ready(CommandKind::Rd, b)
                        .min(self.ch.ready(CommandKind::Wr, b)),
                    self.ch.ready(CommandKind::Pre, b),
                ),
            };
            if rt_a > t && rt_b > t {
                // nothing of this bank can issue now; a lower bound suffices as wake-up time
                future = future.min(rt_a.min(rt_b));
                continue;
            }
            let mut earliest_elig = u64::MAX;
            let mut any_elig = false;
            let mut has_hits = false;
            for key in q {
                let e = &self.slab[key.idx as usize];
                if e.eligible_from > t {
                    earliest_elig = earliest_elig.min(e.eligible_from);
                } else if self.eligible(e, t) {
                    any_elig = true;
                    if bank.open_row == Some(e.req.row) {
                        has_hits = true;
                    }
                }
            }
            if earliest_elig != u64::MAX {
                future = future.min(earliest_elig.max(rt_a.min(rt_b)));
            }
            if !any_elig {
                continue;
            }
            let mut oldest = true;
            for (j, key) in q.iter().enumerate() {
                let e = &self.slab[key.idx as usize];
                if e.eligible_from > t || !self.eligible(e, t) {
                    continue;
                }
                let first = oldest;
                oldest = false;
                let (cmd, hit) = match bank.open_row {
                    Some(r) if r == e.req.row => (
                        if e.req.is_write {
                            CommandKind::Wr
                        } else {
                            CommandKind::Rd
                        },
                        true,
                    ),
                    Some(_) => (CommandKind::Pre, false),
                    None => (CommandKind::Act, false),
                };
                let rt = match cmd {
                    CommandKind::Act => rt_a,
                    CommandKind::Pre => rt_b,
                    _ => self.ch.ready(cmd, b),
                };
                if rt > t {
                    future = future.min(rt);
                    continue;
                }
                let c = Candidate {
                    req: &e.req,
                    command: cmd,
                    row_hit: hit,
                    oldest_in_bank: first,
                    bank_has_hits: has_hits,
                    hits_since_act: bank.hits_since_act,
                };
                if let Some(p) = self.sched.priority(t, &c) {
                    let better = match best {
                        None => true,
                        Some((bp, bs, ..)) => p > bp || (p == bp && e.req.seq < bs),
                    };
                    if better {
                        best = Some((p, e.req.seq, b, j, cmd));
                    }
                }
            }
        }
        (best.map(|(_, _, b, j, c)| (b, j, c)), future)
    }

    /// Recomputes bank `b`'s [`BankView`] at cycle `t`.
    fn refresh_view(&mut self, b: usize, t: u64) {
        let open = self.ch.banks[b].open_row;
        let staged = self.staged();
        if !staged && t >= self.max_eligible {
            self.refresh_view_ordered(b, open);
            return;
        }
        let mut v = BankView {
            dirty: false,
            ..BankView::default()
        };
        let q = &self.window[b];
        let slab = &self.slab;
        for (j, key) in q.iter().enumerate() {
            let e = &slab[key.idx as usize];
            if e.eligible_from > t {
                v.recheck_at = v.recheck_at.min(e.eligible_from);
                continue;
            }
            if e.after_read || (!staged && e.req.is_write != self.draining) {
                continue;
            }
            let hit = open == Some(e.req.row);
            v.has_hits |= hit;
            if v.first == NONE {
                v.first = j as u32;
                continue;
            }
            let slot = if !hit {
                &mut v.other
            } else if e.req.is_write {
                &mut v.hit_wr
            } else {
                &mut v.hit_rd
            };
            if *slot == NONE || e.req.seq < q[*slot as usize].seq {
                *slot = j as u32;
            }
        }
        v.fill_candidates(q, open);
        self.views[b] = v;
    }

    /// [`Self::refresh_view`] when every queued request is eligible by time and
    /// requests are not staged. Then a bank's queue is in `seq` order (requests
    /// are appended in arrival order and removed in place) and every eligible
    /// request has the same direction (`is_write == draining`), so each slot is
    /// the first eligible request of its class after `first`, and the scan stops
    /// once every slot that can still change is filled.
    fn refresh_view_ordered(&mut self, b: usize, open: Option<u32>) {
        let draining = self.draining;
        let mut v = BankView {
            dirty: false,
            ..BankView::default()
        };
        let q = &self.window[b];
        let c = &mut self.counts[b];
        if c.row != open {
            c.row = open;
            c.hits = [0, 0];
            if let Some(r) = open {
                for e in q {
                    if !e.after_read && e.row == r {
                        c.hits[e.is_write as usize] += 1;
                    }
                }
            }
        }
        #[cfg(debug_assertions)]
        {
            let mut elig = [0u32; 2];
            let mut hits = [0u32; 2];
            for e in q.iter().filter(|e| !e.after_read) {
                elig[e.is_write as usize] += 1;
                hits[e.is_write as usize] += u32::from(open == Some(e.row));
            }
            debug_assert_eq!((elig, hits), (c.elig, c.hits), "bank {b} counts");
        }
        let d = draining as usize;
        // eligible hits and non-hits in the queue; the scan stops once every slot
        // is filled or no request of its class is left
        let (hits, others) = (c.hits[d], c.elig[d] - c.hits[d]);
        let (mut seen_hits, mut seen_others) = (0, 0);
        let mut hit_slot = NONE;
        if c.elig[d] > 0 {
            for (j, e) in q.iter().enumerate() {
                if e.after_read || e.is_write != draining {
                    continue;
                }
                let hit = open == Some(e.row);
                if hit {
                    seen_hits += 1;
                } else {
                    seen_others += 1;
                }
                if v.first == NONE {
                    v.first = j as u32;
                } else if hit {
                    if hit_slot == NONE {
                        hit_slot = j as u32;
                    }
                } else if v.other == NONE {
                    v.other = j as u32;
                }
                if (hit_slot != NONE || seen_hits == hits)
                    && (v.other != NONE || seen_others == others)
                {
                    break;
                }
            }
        }
        v.has_hits = hits > 0;
        if draining {
            v.hit_wr = hit_slot;
        } else {
            v.hit_rd = hit_slot;
        }
        v.fill_candidates(q, open);
        self.views[b] = v;
    }

    /// [`Self::pick_general`] for class-uniform schedulers: per bank only the
    /// representatives of [`BankView`] are candidates. Same decision and same
    /// wake-up bound as the general path, because every other eligible request
    /// of a bank has the same command, readiness and priority as its class's
    /// representative and a higher `seq` (checked in debug builds).
    fn pick_fast(&mut self, t: u64) -> (Option<(usize, usize, CommandKind)>, u64) {
        match &self.sched {
            Policy::FrFcfs(f) if f.arbitration == BankArbitration::Oldest => {
                let cap = f.row_hit_cap;
                self.pick_fast_impl::<true>(t, cap)
            }
            _ => self.pick_fast_impl::<false>(t, 0),
        }
    }

    /// [`Self::pick_fast`]; with `FR_OLDEST` the priority is FR-FCFS's with
    /// `bank_arbitration = "oldest"` and row-hit cap `cap`, computed in place
    /// ([`scheduler::FrFcfs::priority`]), otherwise the policy is asked.
    #[inline(always)]
    fn pick_fast_impl<const FR_OLDEST: bool>(
        &mut self,
        t: u64,
        cap: u32,
    ) -> (Option<(usize, usize, CommandKind)>, u64) {
        let mut future = u64::MAX;
        // Best so far: the largest (priority, !seq), i.e. the highest priority,
        // then the lowest `seq`, as (bank, index, command).
        let mut best_key: u128 = 0;
        let mut best: Option<(usize, usize, CommandKind)> = None;
        if !self.ready_valid {
            self.update_ready();
        }
        let any_refresh = !self.pending_refresh.is_empty();
        for w in 0..self.nonempty.len() {
            // Pass 1: which banks' gates are open at `t` (a bit each). A bank whose
            // gate lies ahead only bounds the wake-up time. Whether a gate is open
            // is unpredictable, so it is recorded by selects, not branches, and
            // only open banks reach the (branchy) candidate loop below.
            let mut bits = self.nonempty[w];
            let mut open = 0u64;
            while bits != 0 {
                let bit = bits.trailing_zeros();
                bits &= bits - 1;
                let b = w * 64 + bit as usize;
                let ri = self.ch.rank_of(b);
                if any_refresh && self.ch.ranks[ri].refresh_pending {
                    continue;
                }
                let m = self.gates[b];
                let closed = m > t;
                future = future.min(if closed { m } else { u64::MAX });
                open |= u64::from(!closed) << bit;
            }
            // Pass 2: the candidates of the banks whose gate is open.
            while open != 0 {
                let b = w * 64 + open.trailing_zeros() as usize;
                open &= open - 1;
                // A view is only needed once its bank's gate is open: a view
                // refreshed later equals one refreshed earlier and rechecked at
                // `recheck_at` (eligibility only changes there).
                if self.views[b].dirty || t >= self.views[b].recheck_at {
                    self.refresh_view(b, t);
                }
                let bank = &self.ch.banks[b];
                let (rts, m) = (self.ready[b], self.gates[b]);
                let v = &self.views[b];
                if v.recheck_at != u64::MAX {
                    future = future.min(v.recheck_at.max(m));
                }
                for k in 0..v.n as usize {
                    let c = v.cand_cmd[k] as usize;
                    let rt = rts[c];
                    if rt > t {
                        future = future.min(rt);
                        continue;
                    }
                    let j = v.cand_j[k];
                    let seq = v.cand_seq[k];
                    let prio = if FR_OLDEST {
                        let capped = cap > 0 && bank.hits_since_act >= cap;
                        if c == 1 && v.has_hits && !capped {
                            None
                        } else {
                            Some((c >= 2 && !capped) as u64)
                        }
                    } else {
                        let cand = Candidate {
                            req: &self.slab[self.window[b][j as usize].idx as usize].req,
                            command: CMDS[c],
                            row_hit: c >= 2,
                            oldest_in_bank: j == v.first,
                            bank_has_hits: v.has_hits,
                            hits_since_act: bank.hits_since_act,
                        };
                        self.sched.priority(t, &cand)
                    };
                    if let Some(p) = prio {
                        let key = (p as u128) << 64 | (!seq) as u128;
                        if best.is_none() || key > best_key {
                            best_key = key;
                            best = Some((b, j as usize, CMDS[c]));
                        }
                    }
                }
            }
        }
        (best, future)
    }

    /// Recomputes every bank's command ready times and gate: the earliest cycle
    /// at which any command its requests may need can issue — ACT of a
    /// precharged bank, the earliest of RD, WR and PRE of an open one. Every
    /// candidate's ready time is at least the gate, so the wake-up bound of the
    /// general path is the gate if it lies ahead, else each candidate's ready
    /// time that lies ahead.
    fn update_ready(&mut self) {
        let faw = self.ch.tm.faw;
        // The rank and bank-group terms, once per bank group: (ACT, RD, WR).
        let groups_per_rank = self.ch.groups.len() / self.ch.ranks.len();
        for (gi, g) in self.ch.groups.iter().enumerate() {
            let r = &self.ch.ranks[gi / groups_per_rank];
            self.group_ready[gi] = [
                g.next_act.max(r.act_ready(faw)),
                g.next_rd.max(r.next_rd).max(r.other_rd),
                g.next_wr.max(r.next_wr).max(r.other_wr),
            ];
        }
        for b in 0..self.ch.banks.len() {
            let bank = &self.ch.banks[b];
            let [g_act, g_rd, g_wr] = self.group_ready[self.ch.group_of(b)];
            let act = bank.next_act.max(g_act);
            let rd = bank.next_rd.max(g_rd);
            let wr = bank.next_wr.max(g_wr);
            // Selected by masks, without branches (a bank's row state is
            // unpredictable): `open` is all ones for an open bank, else zero.
            let open = u64::from(bank.open_row.is_some()).wrapping_neg();
            let (act, pre, rd, wr) = (act | open, bank.next_pre | !open, rd | !open, wr | !open);
            self.ready[b] = [act, pre, rd, wr];
            self.gates[b] = act.min(pre).min(rd).min(wr);
        }
        self.ready_valid = true;
    }

    /// Issues `kind` on the channel ([`Channel::issue`]); the cached ready
    /// times are stale from now on.
    #[inline]
    fn issue_command(&mut self, kind: CommandKind, b: usize, row: u32, t: u64, auto_pre: bool) {
        self.ready_valid = false;
        self.ch.issue(kind, b, row, t, auto_pre);
    }

    fn issue(
        &mut self,
        b: usize,
        j: usize,
        cmd: CommandKind,
        t: u64,
        blp: &mut ParallelismTracker,
    ) {
        let gb = self.global_bank_base + b;
        self.views[b].dirty = true;
        {
            let e = &mut self.slab[self.window[b][j].idx as usize];
            if e.req.first_cmd.is_none() {
                e.req.first_cmd = Some(cmd);
                match cmd {
                    CommandKind::Act => self.stats.row_misses += 1,
                    CommandKind::Pre => self.stats.row_conflicts += 1,
                    _ => self.stats.row_hits += 1,
                }
            }
        }
        match cmd {
            CommandKind::Act => {
                let row = self.window[b][j].row;
                self.issue_command(CommandKind::Act, b, row, t, false);
                self.stats.commands.act += 1;
                if !self.entry(b, j).req.in_service {
                    self.entry_mut(b, j).req.in_service = true;
                    blp.start(gb, t);
                }
                let idx = self.window[b][j].idx as usize;
                self.sched.on_command(t, &self.slab[idx].req, cmd);
            }
            CommandKind::Pre => {
                self.issue_command(CommandKind::Pre, b, 0, t, false);
                self.stats.commands.pre += 1;
                let idx = self.window[b][j].idx as usize;
                self.sched.on_command(t, &self.slab[idx].req, cmd);
            }
            CommandKind::Rd | CommandKind::Wr => {
                self.issue_command(cmd, b, 0, t, self.closed_row);
                let tm = self.ch.tm;
                let key = self.window[b].remove(j);
                let idx = key.idx;
                if !key.after_read {
                    let c = &mut self.counts[b];
                    let d = key.is_write as usize;
                    c.elig[d] -= 1;
                    if c.row == Some(key.row) {
                        c.hits[d] -= 1;
                    }
                }
                self.slab_free.push(idx);
                // Moved out of the slab (its slot is free from now on).
                let e = std::mem::replace(
                    &mut self.slab[idx as usize],
                    Entry {
                        req: QueuedRequest {
                            seq: 0,
                            arrival: 0,
                            source: 0,
                            is_write: false,
                            addr: 0,
                            bank: 0,
                            row: 0,
                            column: 0,
                            tag: 0,
                            sched_state: 0,
                            first_cmd: None,
                            in_service: false,
                        },
                        eligible_from: 0,
                        after_read: false,
                    },
                );
                self.window_len -= 1;
                self.bank_count[b] -= 1;
                if self.bank_count[b] == 0 {
                    self.nonempty[b / 64] &= !(1 << (b % 64));
                }
                self.stage_blocked = false;
                let is_write = e.req.is_write;
                let done = t + if is_write { tm.cwl } else { tm.cl } + tm.bl;
                blp.finish(gb, t, done, e.req.in_service);
                self.stats.bytes += self.burst_bytes;
                let lat = done - e.req.arrival;
                if is_write {
                    self.window_writes -= 1;
                    self.stats.commands.wr += 1;
                    self.stats.write_latency.add(lat);
                    self.pending_writes.remove(&e.req.addr);
                } else {
                    self.window_reads -= 1;
                    self.stats.commands.rd += 1;
                    self.stats.read_latency.add(lat);
                    self.pending_reads.remove(&e.req.addr);
                    let extra = if self.merged.is_empty() {
                        None
                    } else {
                        self.merged.remove(&e.req.addr)
                    };
                    if let Some(extra) = extra {
                        for (tag, source, arrival) in extra {
                            self.stats.read_latency.add(done - arrival);
                            self.complete(Completion {
                                tag,
                                source,
                                addr: e.req.addr,
                                is_write: false,
                                arrival,
                                done,
                            });
                        }
                    }
                    if self.war_writes > 0 {
                        self.release_war(e.req.addr);
                    }
                }
                self.sched.on_command(t, &e.req, cmd);
                self.sched.on_complete(t, &e.req);
                self.complete(Completion {
                    tag: e.req.tag,
                    source: e.req.source,
                    addr: e.req.addr,
                    is_write,
                    arrival: e.req.arrival,
                    done,
                });
            }
            CommandKind::Ref => unreachable!("refresh is not a request command"),
        }
    }

    fn release_war(&mut self, addr: u64) {
        for (b, q) in self.window.iter_mut().enumerate() {
            for key in q.iter_mut() {
                let e = &mut self.slab[key.idx as usize];
                if e.after_read && e.req.addr == addr {
                    e.after_read = false;
                    key.after_read = false;
                    self.war_writes -= 1;
                    let c = &mut self.counts[b];
                    let d = key.is_write as usize;
                    c.elig[d] += 1;
                    if c.row == Some(key.row) {
                        c.hits[d] += 1;
                    }
                }
            }
        }
        for e in self.write_q.iter_mut() {
            if e.after_read && e.req.addr == addr {
                e.after_read = false;
                self.war_writes -= 1;
            }
        }
        self.invalidate_views();
    }

    /// Move one request from the active transaction queue into its bank queue.
    fn stage_one(&mut self, t: u64) -> bool {
        if self.stage_blocked {
            return false;
        }
        let cap = self.bank_cap;
        let q = if self.draining {
            &mut self.write_q
        } else {
            &mut self.read_q
        };
        let mut pick = None;
        for (i, e) in q.iter().enumerate() {
            if self.bank_count[e.req.bank as usize] < cap {
                pick = Some(i);
                break;
            }
        }
        let Some(i) = pick else {
            self.stage_blocked = true;
            return false;
        };
        let mut e = q.remove(i).expect("index in range");
        e.eligible_from = t + 1;
        self.push_window(e);
        true
    }
}
