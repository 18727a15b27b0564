//! PAR-BS: parallelism-aware batch scheduling (Mutlu and Moscibroda, ISCA 2008).
//!
//! *Batching*: when no request of the current batch is left in the controller, a new
//! batch is formed by marking, for every (thread, bank), its `marking_cap` oldest
//! queued requests (the paper's Marking-Cap, default 5). Marked requests are served
//! before unmarked ones, which bounds starvation.
//! *Within-batch scheduling*: (1) marked first, (2) row hits first, (3) higher-ranked
//! thread first, (4) oldest first (the controller breaks remaining ties by age). Ranks
//! follow the paper's "max-total" shortest-job-first rule, computed when the batch is
//! formed: a thread with fewer marked requests to its most loaded bank ranks higher;
//! ties go to fewer marked requests in total, then to the lower thread id. Serving
//! one thread's requests back to back across banks preserves its bank-level
//! parallelism (the "parallelism-aware" part).
//! Like FR-FCFS, a precharge that would close a row with pending marked hits is held.

use crate::cache::mshr::IntMap;
use crate::dram::channel::CommandKind;
use crate::dram::scheduler::{Candidate, MemScheduler, QueuedRequest};

const MARKED: u64 = 1;

/// The PAR-BS policy of one controller.
#[derive(Debug, Clone)]
pub struct ParBs {
    /// Requests marked per (thread, bank) when a batch forms (paper default 5).
    pub marking_cap: u32,
    per_thread_bank: IntMap<u64, u32>,
    rank: IntMap<u32, u32>,
    marked_left: usize,
    batches: u64,
}

impl ParBs {
    /// PAR-BS with the given Marking-Cap.
    pub fn new(marking_cap: u32) -> Self {
        ParBs {
            marking_cap: marking_cap.max(1),
            per_thread_bank: IntMap::default(),
            rank: IntMap::default(),
            marked_left: 0,
            batches: 0,
        }
    }

    /// Batches formed so far.
    pub fn batches(&self) -> u64 {
        self.batches
    }

    fn form_batch(&mut self, queued: &mut [QueuedRequest]) {
        self.per_thread_bank.clear();
        self.batches += 1;
        let mut marked = 0;
        // queued is oldest first: the first `cap` of each (thread, bank) are marked.
        for r in queued.iter_mut() {
            let key = ((r.source as u64) << 32) | r.bank as u64;
            let c = self.per_thread_bank.entry(key).or_insert(0);
            if *c < self.marking_cap {
                *c += 1;
                r.sched_state |= MARKED;
                marked += 1;
            }
        }
        self.marked_left = marked;
        // Max-total ranking.
        let mut load: IntMap<u32, (u32, u32)> = IntMap::default();
        for (&key, &n) in &self.per_thread_bank {
            let e = load.entry((key >> 32) as u32).or_insert((0, 0));
            e.0 = e.0.max(n);
            e.1 += n;
        }
        let mut threads: Vec<(u32, u32, u32)> =
            load.into_iter().map(|(t, (m, s))| (m, s, t)).collect();
        threads.sort_unstable();
        self.rank.clear();
        let n = threads.len() as u32;
        for (i, &(_, _, t)) in threads.iter().enumerate() {
            self.rank.insert(t, n - i as u32);
        }
    }
}

impl Default for ParBs {
    fn default() -> Self {
        ParBs::new(5)
    }
}

impl MemScheduler for ParBs {
    fn name(&self) -> &'static str {
        "par-bs"
    }

    fn wants_prepare(&self) -> bool {
        true
    }

    fn prepare(&mut self, _now: u64, queued: &mut [QueuedRequest]) {
        self.marked_left = queued
            .iter()
            .filter(|r| r.sched_state & MARKED != 0)
            .count();
        if self.marked_left == 0 && !queued.is_empty() {
            self.form_batch(queued);
        }
    }

    fn priority(&mut self, _now: u64, c: &Candidate<'_>) -> Option<u64> {
        let marked = c.req.sched_state & MARKED != 0;
        if c.command == CommandKind::Pre && c.bank_has_hits && !marked {
            return None;
        }
        let hit = matches!(c.command, CommandKind::Rd | CommandKind::Wr);
        let rank = self.rank.get(&c.req.source).copied().unwrap_or(0) as u64;
        Some(((marked as u64) << 62) | ((hit as u64) << 61) | rank)
    }
}
