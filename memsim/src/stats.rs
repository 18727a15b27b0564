//! Statistics: the parallelism tracker behind BLP (and MLP/CLP), latency
//! histograms, and the DRAM statistics record serialised as JSON.
//!
//! **BLP** (DESIGN.md "Metrics"; dissertation §4.2, same as PAR-BS): the average
//! number of DRAM banks serving a request, over the cycles in which at least one
//! bank serves one. A bank serves from the command that starts a request (ACT
//! for a row miss or conflict, RD/WR for a row hit) until that request's data
//! burst completes. [`ParallelismTracker`] integrates exactly that: per unit
//! (bank) it knows whether a request is in service (started, column command not
//! yet issued: busy until further notice) and until when its last data burst
//! runs; between two state changes the number of busy units is piecewise
//! constant, so integrating at every state change is exact. The same tracker
//! serves MLP (memory banks serving LLC misses) and CLP (LLC banks serving L1
//! misses) in the manycore model.
//!
//! Invariant: calls to [`ParallelismTracker`] come in non-decreasing time order.

use serde::{Deserialize, Serialize};

/// Integrates "number of busy units" over time, with a per-epoch time series.
///
/// Between two calls the busy set only shrinks, as data bursts end: a unit is
/// busy while a request is in service, or until its last burst ends. So the
/// integral over `[from, stop)` is `serving × (stop − from)` plus, per unit in
/// its final burst (the `tail`), `min(busy_until, stop) − from`. The tail is
/// kept ordered by `busy_until`, so that sum is `(stop − from)` per tail unit
/// still busy at `stop` plus `busy_until − from` per unit whose burst ends by
/// then, and the work per call is the number of bursts that end, not the tail's
/// size (nor the number of units). Per-unit busy time is
/// accounted lazily: `unit_busy[u]` is exact up to `mark[u]`, and the unit's
/// state has not changed since.
#[derive(Debug, Clone)]
pub struct ParallelismTracker {
    /// Requests started and not yet in their final data phase, per unit.
    in_service: Vec<u64>,
    /// End of the last known busy period per unit (exclusive).
    busy_until: Vec<u64>,
    /// Busy cycles per unit, up to `mark`.
    unit_busy: Vec<u64>,
    mark: Vec<u64>,
    /// Units with `in_service > 0`.
    serving: u64,
    /// Units with `in_service == 0` and `busy_until > at`, as
    /// `(busy_until, unit)` in decreasing `busy_until` order (the next burst to
    /// end is last).
    tail: Vec<(u64, u32)>,
    in_tail: Vec<bool>,
    /// Time integrated so far.
    at: u64,
    /// Σ over cycles of busy units.
    busy_unit_cycles: u64,
    /// Cycles with at least one busy unit.
    any_busy_cycles: u64,
    epoch_len: u64,
    epochs: Vec<EpochSample>,
    cur: EpochSample,
}

/// One epoch of the parallelism time series.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct EpochSample {
    /// First cycle of the epoch.
    pub start: u64,
    /// Σ over the epoch's cycles of busy units.
    pub busy_unit_cycles: u64,
    /// Cycles of the epoch with at least one busy unit.
    pub any_busy_cycles: u64,
    /// `busy_unit_cycles / any_busy_cycles` (0 when idle).
    pub parallelism: f64,
}

impl ParallelismTracker {
    /// A tracker over `units` units with epochs of `epoch_len` cycles (> 0).
    pub fn new(units: usize, epoch_len: u64) -> Self {
        ParallelismTracker {
            in_service: vec![0; units],
            busy_until: vec![0; units],
            unit_busy: vec![0; units],
            mark: vec![0; units],
            serving: 0,
            tail: Vec::with_capacity(units),
            in_tail: vec![false; units],
            at: 0,
            busy_unit_cycles: 0,
            any_busy_cycles: 0,
            epoch_len: epoch_len.max(1),
            epochs: Vec::new(),
            cur: EpochSample::default(),
        }
    }

    /// Ends the current epoch; it enters the series only if a unit was busy in
    /// it (idle epochs are left out, so idle time costs no memory or output).
    fn close_epoch(&mut self) {
        let mut e = self.cur;
        e.parallelism = ratio(e.busy_unit_cycles, e.any_busy_cycles);
        if e.any_busy_cycles > 0 {
            self.epochs.push(e);
        }
        self.cur = EpochSample {
            start: e.start + self.epoch_len,
            ..Default::default()
        };
    }

    /// Busy cycles of `unit` in `[mark[unit], to)` (its state is unchanged since the mark).
    #[inline]
    fn busy_since_mark(&self, unit: usize, to: u64) -> u64 {
        let m = self.mark[unit];
        if self.in_service[unit] > 0 {
            to.saturating_sub(m)
        } else {
            self.busy_until[unit].min(to).saturating_sub(m)
        }
    }

    /// Brings `unit`'s busy time up to `at` before its state changes.
    #[inline]
    fn settle_unit(&mut self, unit: usize) {
        self.unit_busy[unit] += self.busy_since_mark(unit, self.at);
        self.mark[unit] = self.at;
    }

    /// Integrate up to `now` (exclusive); `now` below the current time is ignored.
    pub fn advance(&mut self, now: u64) {
        while self.at < now {
            let epoch_end = self.cur.start + self.epoch_len;
            let stop = now.min(epoch_end);
            let from = self.at;
            // a unit in service is busy until `stop`, a tail unit until its last
            // burst ends (`busy_until > from`)
            let mut sum = self.serving * (stop - from);
            let mut union_end = if self.serving > 0 { stop } else { from };
            // tail units whose burst ends by `stop` leave the tail
            while let Some(&(end, u)) = self.tail.last() {
                if end > stop {
                    break;
                }
                sum += end - from;
                union_end = union_end.max(end);
                self.in_tail[u as usize] = false;
                self.tail.pop();
            }
            // the others are busy until `stop`
            if !self.tail.is_empty() {
                sum += self.tail.len() as u64 * (stop - from);
                union_end = stop;
            }
            let any = union_end - from;
            self.busy_unit_cycles += sum;
            self.any_busy_cycles += any;
            self.cur.busy_unit_cycles += sum;
            self.cur.any_busy_cycles += any;
            if any == 0 && stop == epoch_end && now > epoch_end {
                // Idle (nothing serving, no tail): jump over whole idle epochs at once.
                self.at = stop;
                self.close_epoch();
                let idle_epochs = (now - self.at) / self.epoch_len;
                self.cur.start += idle_epochs * self.epoch_len;
                self.at += idle_epochs * self.epoch_len;
                continue;
            }
            self.at = stop;
            if stop == epoch_end {
                self.close_epoch();
            }
        }
    }

    /// Removes `unit` from the tail (it must be there).
    fn leave_tail(&mut self, unit: usize) {
        self.in_tail[unit] = false;
        if let Some(i) = self.tail.iter().position(|&(_, u)| u as usize == unit) {
            self.tail.remove(i);
        }
    }

    /// A request starts being served by `unit` at `now` and stays in service
    /// until [`finish`](Self::finish) is called for it.
    pub fn start(&mut self, unit: usize, now: u64) {
        self.advance(now);
        self.settle_unit(unit);
        if self.in_service[unit] == 0 {
            self.serving += 1;
            if self.in_tail[unit] {
                self.leave_tail(unit);
            }
        }
        self.in_service[unit] += 1;
    }

    /// A request of `unit` (started with [`start`](Self::start), or started and
    /// finished at once when `started` is false) is served until `until` (exclusive).
    pub fn finish(&mut self, unit: usize, now: u64, until: u64, started: bool) {
        self.advance(now);
        self.settle_unit(unit);
        if started {
            debug_assert!(self.in_service[unit] > 0);
            if self.in_service[unit] > 0 {
                self.in_service[unit] -= 1;
                if self.in_service[unit] == 0 {
                    self.serving -= 1;
                }
            }
        }
        let bu = self.busy_until[unit].max(until).max(now);
        self.busy_until[unit] = bu;
        if self.in_service[unit] == 0 && bu > self.at {
            if self.in_tail[unit] {
                // its burst end may have moved: re-insert it in order
                self.leave_tail(unit);
            }
            self.in_tail[unit] = true;
            let i = self.tail.partition_point(|&(end, _)| end > bu);
            self.tail.insert(i, (bu, unit as u32));
        }
    }

    /// Integrate until every unit is idle (end of simulation); returns that time.
    pub fn settle(&mut self) -> u64 {
        let end = (0..self.busy_until.len())
            .map(|u| {
                if self.in_service[u] > 0 {
                    self.at
                } else {
                    self.busy_until[u]
                }
            })
            .max()
            .unwrap_or(0)
            .max(self.at);
        self.advance(end);
        end
    }

    /// Average busy units over cycles with at least one busy unit.
    pub fn parallelism(&self) -> f64 {
        ratio(self.busy_unit_cycles, self.any_busy_cycles)
    }

    /// Cycles with at least one busy unit.
    pub fn any_busy_cycles(&self) -> u64 {
        self.any_busy_cycles
    }

    /// Σ over cycles of busy units.
    pub fn busy_unit_cycles(&self) -> u64 {
        self.busy_unit_cycles
    }

    /// Busy cycles per unit, up to the time integrated so far.
    pub fn unit_busy(&self) -> Vec<u64> {
        (0..self.unit_busy.len())
            .map(|u| self.unit_busy[u] + self.busy_since_mark(u, self.at))
            .collect()
    }

    /// The epoch series so far (the epochs with a busy unit, in time order),
    /// including the current partial epoch if it has any activity.
    pub fn epochs(&self) -> Vec<EpochSample> {
        let mut v = self.epochs.clone();
        if self.cur.any_busy_cycles > 0 {
            let mut e = self.cur;
            e.parallelism = ratio(e.busy_unit_cycles, e.any_busy_cycles);
            v.push(e);
        }
        v
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Fixed-width latency histogram with an overflow bin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Width of each bin, in cycles.
    pub bin_width: u64,
    /// Counts of bins `[i × bin_width, (i+1) × bin_width)`.
    pub bins: Vec<u64>,
    /// Samples at or above `bins.len() × bin_width`.
    pub overflow: u64,
    /// Number of samples.
    pub count: u64,
    /// Sum of samples.
    pub sum: u64,
    /// Largest sample.
    pub max: u64,
}

impl Histogram {
    /// `bins` bins of `bin_width` cycles.
    pub fn new(bin_width: u64, bins: usize) -> Self {
        Histogram {
            bin_width: bin_width.max(1),
            bins: vec![0; bins],
            overflow: 0,
            count: 0,
            sum: 0,
            max: 0,
        }
    }

    /// Add a sample.
    #[inline]
    pub fn add(&mut self, v: u64) {
        let i = (v / self.bin_width) as usize;
        if i < self.bins.len() {
            self.bins[i] += 1;
        } else {
            self.overflow += 1;
        }
        self.count += 1;
        self.sum += v;
        self.max = self.max.max(v);
    }

    /// Mean of the samples (0 if none).
    pub fn mean(&self) -> f64 {
        ratio(self.sum, self.count)
    }

    /// Drop trailing empty bins (for compact JSON).
    pub fn trimmed(&self) -> Histogram {
        let mut h = self.clone();
        while h.bins.last() == Some(&0) {
            h.bins.pop();
        }
        h
    }
}

/// Command counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct CommandCounts {
    /// Activates.
    pub act: u64,
    /// Explicit precharges (auto-precharges not counted).
    pub pre: u64,
    /// Reads (with or without auto-precharge).
    pub rd: u64,
    /// Writes (with or without auto-precharge).
    pub wr: u64,
    /// All-bank refreshes.
    #[serde(rename = "ref")]
    pub refresh: u64,
}

/// Statistics of a DRAM simulation (the JSON of `weft sim --dram-only --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DramStats {
    /// Requests accepted (reads + writes).
    pub requests: u64,
    /// Read requests accepted.
    pub reads: u64,
    /// Write requests accepted.
    pub writes: u64,
    /// DRAM cycles from 0 until the last request completed.
    pub cycles: u64,
    /// Bank-level parallelism (DESIGN.md definition).
    pub blp: f64,
    /// Requests whose first command was RD/WR (row already open).
    pub row_hits: u64,
    /// Requests whose first command was ACT (bank precharged).
    pub row_misses: u64,
    /// Requests whose first command was PRE (another row open).
    pub row_conflicts: u64,
    /// `row_hits / (row_hits + row_misses + row_conflicts)`.
    pub row_hit_rate: f64,
    /// `row_misses / (hits + misses + conflicts)`.
    pub row_miss_rate: f64,
    /// `row_conflicts / (hits + misses + conflicts)`.
    pub row_conflict_rate: f64,
    /// Mean read latency, arrival to end of data burst, DRAM cycles.
    pub avg_read_latency: f64,
    /// Mean write latency, arrival to end of write burst, DRAM cycles.
    pub avg_write_latency: f64,
    /// Data moved by RD/WR bursts per second, GB/s (10^9 B/s), over `cycles`.
    pub bandwidth_gbps: f64,
    /// Peak bandwidth of the configuration, GB/s.
    pub peak_bandwidth_gbps: f64,
    /// Reads served from the write queue (same burst address), no DRAM access.
    pub forwarded_reads: u64,
    /// Reads merged with a queued read of the same burst.
    pub merged_reads: u64,
    /// Writes merged into a queued write of the same burst.
    pub merged_writes: u64,
    /// DRAM commands issued.
    pub commands: CommandCounts,
    /// Fraction of `cycles` each bank (global index) was serving a request.
    pub bank_utilization: Vec<f64>,
    /// Read latency histogram (DRAM cycles).
    pub read_latency_hist: Histogram,
    /// Write latency histogram (DRAM cycles).
    pub write_latency_hist: Histogram,
    /// Length of a statistics epoch, DRAM cycles.
    pub epoch_cycles: u64,
    /// Per-epoch BLP time series: the epochs with at least one busy bank, in
    /// time order (`start` names the epoch; idle epochs are left out).
    pub blp_epochs: Vec<EpochSample>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blp_by_hand() {
        // bank 0 busy [0,10), bank 1 busy [5,20) via start/finish: BLP = (10+15)/20.
        let mut t = ParallelismTracker::new(2, 8);
        t.start(0, 0);
        t.start(1, 5);
        t.finish(0, 6, 10, true);
        t.finish(1, 12, 20, true);
        assert_eq!(t.settle(), 20);
        assert_eq!(t.busy_unit_cycles(), 25);
        assert_eq!(t.any_busy_cycles(), 20);
        assert_eq!(t.unit_busy(), &[10, 15]);
        let e = t.epochs();
        // epochs [0,8): 8+3=11 over 8; [8,16): 2+8=10 over 8; [16,20): 4 over 4
        assert_eq!(e.len(), 3);
        assert_eq!((e[0].busy_unit_cycles, e[0].any_busy_cycles), (11, 8));
        assert_eq!((e[1].busy_unit_cycles, e[1].any_busy_cycles), (10, 8));
        assert_eq!((e[2].busy_unit_cycles, e[2].any_busy_cycles), (4, 4));
    }

    #[test]
    fn idle_gaps_do_not_count() {
        let mut t = ParallelismTracker::new(1, 10);
        t.finish(0, 0, 5, false);
        t.finish(0, 100, 104, false);
        assert_eq!(t.settle(), 104);
        assert_eq!(t.any_busy_cycles(), 9);
        assert_eq!(t.parallelism(), 1.0);
        // Only the two busy epochs are in the series (issue #38: idle time
        // must not grow it), each named by its start.
        let e = t.epochs();
        assert_eq!(e.iter().map(|e| e.start).collect::<Vec<_>>(), vec![0, 100]);
        assert_eq!(e[1].any_busy_cycles, 4);
        // 10^12 idle cycles cost nothing either.
        t.finish(0, 1_000_000_000_000, 1_000_000_000_001, false);
        t.settle();
        assert_eq!(t.epochs().len(), 3);
    }

    #[test]
    fn histogram() {
        let mut h = Histogram::new(10, 3);
        for v in [0, 9, 10, 29, 30, 100] {
            h.add(v);
        }
        assert_eq!(h.bins, vec![2, 1, 1]);
        assert_eq!(h.overflow, 2);
        assert_eq!(h.max, 100);
        assert!((h.mean() - 178.0 / 6.0).abs() < 1e-12);
    }
}
