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
//!
//! Layout, one concept per module: this file holds the controller's state, its
//! public interface, the write-drain mode and the per-cycle step with refresh;
//! `queue` the request queues (admission, merging and forwarding, the slab and
//! the per-bank windows, staging), `view` the per-bank summaries of the
//! class-uniform fast path, `pick` the choice of the next command (general and
//! fast paths, the cached command ready times), `issue` issuing it and
//! retiring the served request, `stats` the counters, and `idle` the closed-form
//! refreshes of idle stretches.

mod idle;
mod issue;
mod pick;
mod queue;
mod stats;
mod view;

use std::collections::VecDeque;

use crate::addrmap::AddressMapping;
use crate::config::{DramConfig, RowPolicy};
use crate::stats::ParallelismTracker;

use super::channel::{Channel, CommandKind};
use super::scheduler::{self, MemScheduler, Policy};
use super::{Completion, Timing};
use queue::{AddrMap, Entry, Key};
pub use stats::ControllerStats;
use view::{BankCounts, BankView};

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
    /// Per bank, its own part of each command's ready time ([`Bank::own_ready`](super::bank::Bank::own_ready)):
    /// a command changes only its own bank's (a refresh its rank's), so it is
    /// updated at each command for that bank alone.
    own: Vec<[u64; 4]>,
    /// Per bank, the ready time of each command of [`CMDS`] its row state allows
    /// (`u64::MAX` for the others) and its [gate](Self::gate); they only depend on
    /// the channel's timing state, so they are computed once after each command
    /// (`ready_valid` false) instead of at every step.
    ready: Vec<[u64; 4]>,
    gates: Vec<u64>,
    ready_valid: bool,
    /// Per bank group, the group's and its rank's part of each command's ready
    /// time (ACT, PRE, RD, WR; PRE has none), current while `ready_valid`: a
    /// bank's ready time of command `c` is `own[b][c].max(group_ready[g][c])`.
    group_ready: Vec<[u64; 4]>,
}

impl Controller {
    /// Controller `id` of a validated DRAM config.
    pub fn new(id: u32, cfg: &DramConfig, mapping: AddressMapping) -> Self {
        let tm = Timing::from_config(cfg);
        let ch = Channel::new(tm, cfg.ranks, cfg.bankgroups, cfg.banks_per_group);
        let nb = ch.banks.len();
        let own = ch.banks.iter().map(|b| b.own_ready()).collect();
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
            own,
            ready: vec![[u64::MAX; 4]; nb],
            gates: vec![u64::MAX; nb],
            ready_valid: false,
            group_ready: vec![[0; 4]; (cfg.ranks * cfg.bankgroups) as usize],
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
            self.own[b] = self.ch.banks[b].own_ready();
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
}
