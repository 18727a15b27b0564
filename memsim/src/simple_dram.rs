//! A fixed-latency DRAM model: every request occupies its bank for exactly `latency`
//! DRAM cycles, banks serve one request at a time in arrival order, no row buffers,
//! no bus contention.
//!
//! It is the "simple memory" of trace-driven simulators: it makes memory-side timing
//! easy to compute by hand, which the micro-tests of the manycore model rely on
//! (one miss costs L1 + NoC + LLC + `latency`). Bank `b` of a request is
//! `(addr / interleave) % banks`; its channel is `b / banks_per_channel`. Real runs use
//! the DDR4 model of [`crate::dram`].
//! Invariant: a bank's requests complete in arrival order, `latency` cycles apart at least.
//! Completions are reported in time order (banks in index order at one cycle); the
//! banks in service wait in a heap by completion time, so an event costs
//! O(log banks) rather than a scan of every bank.

use crate::metrics::{ParallelismMeter, ParallelismSummary};
use crate::system::{DramBackend, DramDone, DramRequest};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Fixed-latency banks.
#[derive(Clone, Debug)]
pub struct SimpleDram {
    latency: u64,
    interleave: u64,
    channels: u32,
    banks_per_channel: u32,
    queue_cap: usize,
    queues: Vec<VecDeque<(DramRequest, u64)>>,
    busy_until: Vec<u64>,
    in_service: Vec<Option<(DramRequest, u64)>>,
    /// (completion cycle, bank) of every bank in service.
    due: BinaryHeap<Reverse<(u64, u32)>>,
    per_channel: Vec<usize>,
    served: u64,
    blp: ParallelismMeter,
}

impl SimpleDram {
    /// `channels` x `banks_per_channel` banks interleaved every `interleave` bytes,
    /// `latency` DRAM cycles per request, `queue_cap` requests per channel.
    pub fn new(
        channels: u32,
        banks_per_channel: u32,
        interleave: u64,
        latency: u64,
        queue_cap: usize,
    ) -> Self {
        let nb = (channels * banks_per_channel).max(1) as usize;
        SimpleDram {
            latency: latency.max(1),
            interleave: interleave.max(1),
            channels: channels.max(1),
            banks_per_channel: banks_per_channel.max(1),
            queue_cap: queue_cap.max(1),
            queues: vec![VecDeque::new(); nb],
            busy_until: vec![0; nb],
            in_service: vec![None; nb],
            due: BinaryHeap::new(),
            per_channel: vec![0; channels.max(1) as usize],
            served: 0,
            blp: ParallelismMeter::new(nb, 2500),
        }
    }

    fn bank(&self, addr: u64) -> usize {
        ((addr / self.interleave) % (self.channels * self.banks_per_channel) as u64) as usize
    }

    fn start_next(&mut self, b: usize, t: u64) {
        if self.in_service[b].is_none() {
            if let Some((r, arr)) = self.queues[b].pop_front() {
                let s = t.max(arr).max(self.busy_until[b]);
                self.busy_until[b] = s + self.latency;
                self.in_service[b] = Some((r, s));
                self.due.push(Reverse((s + self.latency, b as u32)));
            }
        }
    }
}

impl DramBackend for SimpleDram {
    fn channels(&self) -> usize {
        self.channels as usize
    }
    fn channel_of(&self, addr: u64) -> usize {
        self.bank(addr) / self.banks_per_channel as usize
    }
    fn bank_of(&self, addr: u64) -> u32 {
        self.bank(addr) as u32
    }
    fn num_banks(&self) -> u32 {
        self.channels * self.banks_per_channel
    }
    fn burst_bytes(&self) -> u64 {
        u64::MAX / 2
    }
    fn try_enqueue(&mut self, ch: usize, req: DramRequest, now: u64) -> bool {
        if self.per_channel[ch] >= self.queue_cap {
            return false;
        }
        self.per_channel[ch] += 1;
        let b = self.bank(req.addr);
        self.queues[b].push_back((req, now));
        self.start_next(b, now);
        true
    }
    fn next_event(&self) -> Option<u64> {
        self.due.peek().map(|Reverse((done, _))| *done)
    }
    fn advance_to(&mut self, t: u64, out: &mut Vec<DramDone>) {
        while let Some(&Reverse((done, b))) = self.due.peek() {
            if done > t {
                break;
            }
            self.due.pop();
            let b = b as usize;
            let (r, s) = self.in_service[b]
                .take()
                .expect("a bank in the heap is in service");
            debug_assert_eq!(s + self.latency, done);
            out.push(DramDone {
                id: r.id,
                addr: r.addr,
                done,
            });
            self.blp.add(s, done, b as u32);
            self.per_channel[b / self.banks_per_channel as usize] -= 1;
            self.served += 1;
            self.start_next(b, done);
        }
    }
    fn stats_json(&mut self) -> serde_json::Value {
        serde_json::json!({ "model": "fixed-latency", "latency": self.latency, "served": self.served })
    }
    fn blp_summary(&mut self) -> ParallelismSummary {
        self.blp.finish()
    }
    fn row_counts(&mut self) -> (u64, u64, u64) {
        (0, self.served, 0)
    }
    fn retarget(&self, addr: u64, bank: u32) -> u64 {
        let nb = (self.channels * self.banks_per_channel) as u64;
        let unit = addr / self.interleave;
        let off = addr % self.interleave;
        ((unit / nb) * nb + bank as u64) * self.interleave + off
    }
}
