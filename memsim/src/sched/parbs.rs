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
//! Like FR-FCFS, an unmarked request's precharge is held while its bank has pending
//! row hits; a marked request's precharge is not (marked requests come first).
//! The scheduler chooses among commands that are ready this cycle, so a ready row
//! hit of an unmarked request can still go while a marked request's precharge
//! waits for tRAS. Tested in this module: marking cap, shortest-job-first ranking,
//! marked before older unmarked requests.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::addrmap::DramAddr;
    use crate::config::DramConfig;
    use crate::dram::{DramSystem, MemRequest};

    /// Enqueues `(thread, row, column)` reads to bank 0 of channel 0 at cycle 0
    /// under PAR-BS with `cap`, runs to completion and returns the tags (indices
    /// into `reqs`) in completion order.
    fn served_order(cap: u32, reqs: &[(u32, u32, u32)]) -> Vec<u64> {
        let cfg = DramConfig::default();
        let mut sys = DramSystem::new(&cfg).unwrap();
        sys.controllers_mut()[0].set_scheduler(Box::new(ParBs::new(cap)));
        let m = cfg.mapping().unwrap();
        for (i, &(thread, row, column)) in reqs.iter().enumerate() {
            let addr = m.encode(&DramAddr {
                row,
                column,
                ..Default::default()
            });
            assert_eq!(sys.channel_of(addr), 0);
            sys.try_enqueue(
                0,
                MemRequest {
                    addr,
                    is_write: false,
                    source: thread,
                    tag: i as u64,
                },
            )
            .unwrap();
        }
        sys.finish_input();
        sys.run_until_drained();
        let mut out = Vec::new();
        sys.drain_completions(u64::MAX, &mut out);
        out.sort_by_key(|c| (c.done, c.tag));
        out.iter().map(|c| c.tag).collect()
    }

    #[test]
    fn paper_marking_cap_by_default() {
        assert_eq!(ParBs::default().marking_cap, 5);
    }

    /// Marking cap 2: thread 0's four requests to the bank (all row conflicts)
    /// get only two marks, thread 1's one request is marked too. Within the
    /// batch thread 1 (max bank load 1) outranks thread 0 (load 2): shortest job
    /// first. Thread 0's unmarked requests wait for the next batch. (FR-FCFS
    /// would serve strictly oldest first: 0, 1, 2, 3, 4.)
    #[test]
    fn marking_cap_and_shortest_job_first_ranking() {
        let order = served_order(2, &[(0, 1, 0), (0, 2, 0), (0, 3, 0), (0, 4, 0), (1, 5, 0)]);
        assert_eq!(order, vec![4, 0, 1, 2, 3]);
    }

    /// Marked requests go before older unmarked ones: with cap 1, thread 0's
    /// second request (another row of the bank) is unmarked, so thread 1's
    /// younger marked request is served before it; equal loads rank the lower
    /// thread id first, so thread 0's marked request goes first. (A row hit of an
    /// unmarked request may still issue while the marked request's precharge
    /// waits for tRAS: the scheduler picks among ready commands.)
    #[test]
    fn marked_before_unmarked_row_hits() {
        let order = served_order(1, &[(0, 1, 0), (0, 2, 0), (1, 3, 0)]);
        assert_eq!(order, vec![0, 2, 1]);
        // FR-FCFS for comparison: oldest first.
        let cfg = DramConfig::default();
        let mut sys = DramSystem::new(&cfg).unwrap();
        let m = cfg.mapping().unwrap();
        for (i, &(thread, row, column)) in [(0u32, 1u32, 0u32), (0, 2, 0), (1, 3, 0)]
            .iter()
            .enumerate()
        {
            let addr = m.encode(&DramAddr {
                row,
                column,
                ..Default::default()
            });
            sys.try_enqueue(
                0,
                MemRequest {
                    addr,
                    is_write: false,
                    source: thread,
                    tag: i as u64,
                },
            )
            .unwrap();
        }
        sys.run_until_drained();
        let mut out = Vec::new();
        sys.drain_completions(u64::MAX, &mut out);
        out.sort_by_key(|c| (c.done, c.tag));
        assert_eq!(out.iter().map(|c| c.tag).collect::<Vec<_>>(), vec![0, 1, 2]);
    }
}
