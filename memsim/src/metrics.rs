//! Parallelism metrics: BLP/MLP and CLP as time averages, and intra-/inter-core
//! MLP/CLP per scheduling window.
//!
//! [`ParallelismMeter`] computes "the average number of units (banks) serving a
//! request, over the cycles in which at least one unit serves one" (dissertation §4.2,
//! the PAR-BS definition; §5.1 for MLP and CLP; DESIGN.md "Metrics"). Callers report
//! each service interval `[start, end)` with its unit; a unit counts once however many
//! requests it serves at a time. Intervals may be reported out of order as long as
//! their start is not before the meter's *frontier* (the time up to which it has been
//! advanced); a late interval is clipped to the frontier and counted in `clipped`.
//! The meter also keeps the same average per epoch (time series).
//!
//! [`WindowMeter`] implements §5.4's per-window counts: in each window of `window`
//! cycles, the *intra-core* value of a core is the number of distinct units its
//! accesses touched, and the *inter-core* value is the number of distinct units all
//! cores' accesses touched. Reported means are over (core, window) pairs, resp.
//! windows, with at least one access.

use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Time-averaged number of busy units (BLP, MLP, CLP).
///
/// Pending interval starts and ends wait in two FIFOs while they are reported in
/// time order (the usual case: intervals of one length reported as they start),
/// and in a heap otherwise; they are applied in time order. The order of changes
/// at one time does not matter: nothing is integrated between them, and an end
/// always comes after its own start.
#[derive(Clone, Debug)]
pub struct ParallelismMeter {
    active: Vec<u32>,
    busy: u64,
    now: u64,
    area: u128,
    nonzero: u64,
    starts: VecDeque<(u64, u32)>,
    ends: VecDeque<(u64, u32)>,
    /// Changes reported out of time order: (time, unit, is start).
    late: BinaryHeap<Reverse<(u64, u32, bool)>>,
    epoch: u64,
    /// `(epoch index, unit-cycles, busy cycles)` of the epochs with a busy
    /// cycle, in epoch order: idle time costs no memory.
    ep: Vec<(u64, u64, u64)>,
    clipped: u64,
    intervals: u64,
}

/// Summary of a [`ParallelismMeter`].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ParallelismSummary {
    /// Mean busy units over cycles with at least one busy unit.
    pub mean: f64,
    /// Cycles with at least one busy unit.
    pub active_cycles: u64,
    /// Sum over cycles of busy units (unit-cycles).
    pub unit_cycles: u128,
    /// Service intervals reported.
    pub intervals: u64,
    /// Intervals that started before the frontier and were clipped.
    pub clipped: u64,
    /// Per-epoch mean as `(epoch index, mean)`, for the epochs with at least
    /// one busy cycle, in epoch order; idle epochs are left out (their mean is
    /// 0), so the series does not grow with idle time.
    pub per_epoch: Vec<(u64, f64)>,
}

impl ParallelismMeter {
    /// A meter over `units` units with epochs of `epoch` cycles.
    pub fn new(units: usize, epoch: u64) -> Self {
        ParallelismMeter {
            active: vec![0; units],
            busy: 0,
            now: 0,
            area: 0,
            nonzero: 0,
            starts: VecDeque::new(),
            ends: VecDeque::new(),
            late: BinaryHeap::new(),
            epoch: epoch.max(1),
            ep: Vec::new(),
            clipped: 0,
            intervals: 0,
        }
    }

    /// Reports that `unit` serves a request during `[start, end)`.
    #[inline]
    pub fn add(&mut self, start: u64, end: u64, unit: u32) {
        let mut s = start;
        if s < self.now {
            self.clipped += 1;
            s = self.now;
        }
        self.intervals += 1;
        if end <= s {
            return;
        }
        Self::queue(&mut self.starts, &mut self.late, s, unit, true);
        Self::queue(&mut self.ends, &mut self.late, end, unit, false);
    }

    #[inline]
    fn queue(
        fifo: &mut VecDeque<(u64, u32)>,
        late: &mut BinaryHeap<Reverse<(u64, u32, bool)>>,
        t: u64,
        unit: u32,
        start: bool,
    ) {
        if fifo.back().map_or(true, |&(b, _)| b <= t) {
            fifo.push_back((t, unit));
        } else {
            late.push(Reverse((t, unit, start)));
        }
    }

    /// Earliest pending change if it is at or before `t`, removed.
    #[inline]
    fn pop_upto(&mut self, t: u64) -> Option<(u64, u32, bool)> {
        let e = self.ends.front().map_or(u64::MAX, |e| e.0);
        let s = self.starts.front().map_or(u64::MAX, |s| s.0);
        let l = self.late.peek().map_or(u64::MAX, |Reverse(l)| l.0);
        let m = e.min(s).min(l);
        if m > t {
            return None;
        }
        if e == m {
            self.ends.pop_front().map(|(x, u)| (x, u, false))
        } else if s == m {
            self.starts.pop_front().map(|(x, u)| (x, u, true))
        } else {
            self.late.pop().map(|Reverse(l)| l)
        }
    }

    fn accumulate(&mut self, from: u64, to: u64) {
        if self.busy == 0 || to <= from {
            return;
        }
        self.area += self.busy as u128 * (to - from) as u128;
        self.nonzero += to - from;
        // Usual case: the span lies in the latest epoch so far (no division).
        if let Some(last) = self.ep.last_mut() {
            let start = last.0 * self.epoch;
            if from >= start && to <= start + self.epoch {
                last.1 += self.busy * (to - from);
                last.2 += to - from;
                return;
            }
        }
        // Spans come in time order: an epoch is either the last one or new.
        let mut t = from;
        while t < to {
            let e = t / self.epoch;
            let seg_end = to.min((e + 1).saturating_mul(self.epoch));
            match self.ep.last_mut() {
                Some(last) if last.0 == e => {
                    last.1 += self.busy * (seg_end - t);
                    last.2 += seg_end - t;
                }
                _ => self.ep.push((e, self.busy * (seg_end - t), seg_end - t)),
            }
            t = seg_end;
        }
    }

    /// Moves the frontier to `t`, applying every reported change up to `t`.
    pub fn advance(&mut self, t: u64) {
        while let Some((et, unit, start)) = self.pop_upto(t) {
            let now = self.now;
            self.accumulate(now, et);
            self.now = self.now.max(et);
            let a = &mut self.active[unit as usize];
            if start {
                *a += 1;
                if *a == 1 {
                    self.busy += 1;
                }
            } else {
                *a -= 1;
                if *a == 0 {
                    self.busy -= 1;
                }
            }
        }
        if t > self.now {
            let now = self.now;
            self.accumulate(now, t);
            self.now = t;
        }
    }

    /// Applies every pending change and summarises.
    pub fn finish(&mut self) -> ParallelismSummary {
        self.advance(u64::MAX - 1);
        debug_assert_eq!(self.busy, 0);
        let per_epoch = self
            .ep
            .iter()
            .map(|&(e, a, n)| (e, if n == 0 { 0.0 } else { a as f64 / n as f64 }))
            .collect();
        ParallelismSummary {
            mean: if self.nonzero == 0 {
                0.0
            } else {
                self.area as f64 / self.nonzero as f64
            },
            active_cycles: self.nonzero,
            unit_cycles: self.area,
            intervals: self.intervals,
            clipped: self.clipped,
            per_epoch,
        }
    }
}

/// Intra-/inter-core distinct-unit counts per window (§5.4).
#[derive(Clone, Debug)]
pub struct WindowMeter {
    window: u64,
    cur: u64,
    words: usize,
    cores: usize,
    per_core: Vec<u64>,
    global: Vec<u64>,
    touched: Vec<bool>,
    any: bool,
    intra_sum: u64,
    intra_n: u64,
    inter_sum: u64,
    inter_n: u64,
    inter_series: Vec<(u64, u32)>,
}

/// Summary of a [`WindowMeter`].
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct WindowSummary {
    /// Window length in cycles.
    pub window_cycles: u64,
    /// Mean distinct units per (core, window) with at least one access.
    pub intra_core: f64,
    /// Mean distinct units per window with at least one access.
    pub inter_core: f64,
    /// Distinct units per window (all cores) as `(window index, units)`, for
    /// the windows with at least one access, in window order (windows without
    /// an access are left out: the series does not grow with idle time).
    pub inter_core_series: Vec<(u64, u32)>,
}

impl WindowMeter {
    /// `cores` requesters, `units` units, windows of `window` cycles.
    pub fn new(cores: usize, units: usize, window: u64) -> Self {
        let words = units.div_ceil(64).max(1);
        WindowMeter {
            window: window.max(1),
            cur: 0,
            words,
            cores,
            per_core: vec![0; cores * words],
            global: vec![0; words],
            touched: vec![false; cores],
            any: false,
            intra_sum: 0,
            intra_n: 0,
            inter_sum: 0,
            inter_n: 0,
            inter_series: Vec::new(),
        }
    }

    fn close(&mut self) {
        if self.any {
            for c in 0..self.cores {
                if self.touched[c] {
                    let b = &mut self.per_core[c * self.words..(c + 1) * self.words];
                    self.intra_sum += b.iter().map(|w| w.count_ones() as u64).sum::<u64>();
                    self.intra_n += 1;
                    b.iter_mut().for_each(|w| *w = 0);
                    self.touched[c] = false;
                }
            }
            let g: u32 = self.global.iter().map(|w| w.count_ones()).sum();
            self.inter_sum += g as u64;
            self.inter_n += 1;
            self.global.iter_mut().for_each(|w| *w = 0);
        }
        self.any = false;
    }

    /// Core `core` accessed `unit` at time `t` (times should be non-decreasing; an
    /// earlier time is counted in the current window).
    #[inline]
    pub fn record(&mut self, t: u64, core: u32, unit: u32) {
        let w = t / self.window;
        if w > self.cur {
            if self.any {
                let touched_units: u32 = self.global.iter().map(|x| x.count_ones()).sum();
                self.inter_series.push((self.cur, touched_units));
            }
            self.close();
            self.cur = w;
        }
        let c = core as usize;
        if c >= self.cores {
            return;
        }
        let (word, bit) = (unit as usize / 64, unit as u64 % 64);
        self.per_core[c * self.words + word] |= 1 << bit;
        self.global[word] |= 1 << bit;
        self.touched[c] = true;
        self.any = true;
    }

    /// Closes the current window and summarises.
    pub fn finish(&mut self) -> WindowSummary {
        if self.any {
            let touched_units: u32 = self.global.iter().map(|x| x.count_ones()).sum();
            self.inter_series.push((self.cur, touched_units));
        }
        self.close();
        WindowSummary {
            window_cycles: self.window,
            intra_core: if self.intra_n == 0 {
                0.0
            } else {
                self.intra_sum as f64 / self.intra_n as f64
            },
            inter_core: if self.inter_n == 0 {
                0.0
            } else {
                self.inter_sum as f64 / self.inter_n as f64
            },
            inter_core_series: std::mem::take(&mut self.inter_series),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meter_counts_units_not_requests() {
        let mut m = ParallelismMeter::new(4, 10);
        // unit 0 busy [0,10) twice (overlapping requests count once), unit 1 [5,15).
        m.add(0, 10, 0);
        m.add(2, 8, 0);
        m.add(5, 15, 1);
        let s = m.finish();
        // busy: [0,5) 1 unit, [5,10) 2 units, [10,15) 1 unit -> area 20 over 15 cycles
        assert_eq!(s.active_cycles, 15);
        assert_eq!(s.unit_cycles, 20);
        assert!((s.mean - 20.0 / 15.0).abs() < 1e-12);
        assert_eq!(s.per_epoch, vec![(0, 1.5), (1, 1.0)]);
    }

    #[test]
    fn meter_ignores_idle_gaps_and_clips_late_intervals() {
        let mut m = ParallelismMeter::new(2, 100);
        m.add(0, 4, 0);
        m.add(100, 104, 1);
        m.advance(102);
        m.add(90, 110, 0); // starts before the frontier: clipped to 102
        let s = m.finish();
        assert_eq!(s.clipped, 1);
        // [0,4):1, [100,102):1, [102,104):2, [104,110):1 -> area 4+2+4+6=16 over 14
        assert_eq!(s.unit_cycles, 16);
        assert_eq!(s.active_cycles, 14);
    }

    #[test]
    fn idle_time_costs_no_series_entries() {
        // Two busy spans 10^12 cycles apart (10^9 epochs): two entries, not 10^9.
        let mut m = ParallelismMeter::new(2, 1000);
        m.add(0, 4, 0);
        m.add(1_000_000_000_000, 1_000_000_000_004, 1);
        let s = m.finish();
        assert_eq!(s.per_epoch, vec![(0, 1.0), (1_000_000_000, 1.0)]);
        let mut w = WindowMeter::new(1, 2, 1000);
        w.record(0, 0, 0);
        w.record(1_000_000_000_000, 0, 1);
        assert_eq!(
            w.finish().inter_core_series,
            vec![(0, 1), (1_000_000_000, 1)]
        );
    }

    #[test]
    fn window_meter_matches_fig_5_3_style_counts() {
        let mut w = WindowMeter::new(2, 4, 10);
        // window 0: core0 -> banks {1,0}, core1 -> banks {0,3}
        w.record(0, 0, 1);
        w.record(1, 0, 0);
        w.record(2, 1, 0);
        w.record(3, 1, 3);
        // window 2: core0 -> {2,1,0}, core1 -> {3,1}
        w.record(20, 0, 2);
        w.record(21, 0, 1);
        w.record(22, 0, 0);
        w.record(23, 1, 3);
        w.record(24, 1, 1);
        let s = w.finish();
        // intra: (2 + 2 + 3 + 2) / 4; inter: (3 + 4) / 2
        assert!((s.intra_core - 9.0 / 4.0).abs() < 1e-12);
        assert!((s.inter_core - 3.5).abs() < 1e-12);
        assert_eq!(s.inter_core_series, vec![(0, 3), (2, 4)]);
    }
}
