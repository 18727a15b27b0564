//! Concurrency over time: kernels in the distributor, resident parent TBs and
//! resident child TBs, averaged over epochs (digest §3.6 "concurrent parent/child
//! CTAs over time", SPAWN's BFS-graph500 timeline; §8.2 "Periodic ticks").
//!
//! The front end reports every change of the three counts with its cycle; the
//! series integrates each count over time and closes an epoch every `epoch`
//! cycles with the time-weighted means. The series is bounded: when it holds
//! `max_points` epochs, neighbouring pairs are merged and the epoch doubles, so a
//! run of any length keeps fewer than `max_points` closed points (at least half
//! of that once it has merged), every one covering the same span.

use serde::Serialize;

/// One epoch: the time-weighted mean of each count over `[start, start + span)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ConcurrencyPoint {
    /// First cycle of the epoch.
    pub start: u64,
    /// Kernels in the kernel distributor.
    pub kernels: f64,
    /// Resident TBs of host-launched (parent) kernels.
    pub parent_tbs: f64,
    /// Resident TBs of device-launched kernels and aggregated groups.
    pub child_tbs: f64,
}

/// Counts integrated over epochs.
#[derive(Debug, Clone, PartialEq)]
pub struct ConcurrencySeries {
    epoch: u64,
    max_points: usize,
    points: Vec<ConcurrencyPoint>,
    /// Start of the open epoch.
    open: u64,
    /// Count-cycles accumulated in the open epoch.
    acc: [u64; 3],
    /// Counts since `last`.
    now: [u64; 3],
    last: u64,
}

impl ConcurrencySeries {
    /// A series with `epoch`-cycle points (at least 1), holding at most
    /// `max_points` (even, at least 2).
    pub fn new(epoch: u64, max_points: usize) -> Self {
        assert!(max_points >= 2 && max_points % 2 == 0, "pairs are merged");
        ConcurrencySeries {
            epoch: epoch.max(1),
            max_points,
            points: Vec::new(),
            open: 0,
            acc: [0; 3],
            now: [0; 3],
            last: 0,
        }
    }

    /// The counts (kernels, parent TBs, child TBs) are `counts` from cycle `t` on.
    pub fn update(&mut self, t: u64, counts: [u64; 3]) {
        self.advance(t);
        self.now = counts;
    }

    fn advance(&mut self, t: u64) {
        let t = t.max(self.last);
        while t >= self.open + self.epoch {
            let end = self.open + self.epoch;
            self.add(end);
            self.close();
        }
        self.add(t);
    }

    fn add(&mut self, to: u64) {
        let dt = to - self.last;
        for (a, n) in self.acc.iter_mut().zip(self.now) {
            *a += n * dt;
        }
        self.last = to;
    }

    fn close(&mut self) {
        let e = self.epoch as f64;
        self.points.push(ConcurrencyPoint {
            start: self.open,
            kernels: self.acc[0] as f64 / e,
            parent_tbs: self.acc[1] as f64 / e,
            child_tbs: self.acc[2] as f64 / e,
        });
        self.acc = [0; 3];
        self.open += self.epoch;
        if self.points.len() == self.max_points {
            self.points = self
                .points
                .chunks(2)
                .map(|p| ConcurrencyPoint {
                    start: p[0].start,
                    kernels: (p[0].kernels + p[1].kernels) / 2.0,
                    parent_tbs: (p[0].parent_tbs + p[1].parent_tbs) / 2.0,
                    child_tbs: (p[0].child_tbs + p[1].child_tbs) / 2.0,
                })
                .collect();
            self.epoch *= 2;
        }
    }

    /// The cycle of the last update.
    pub fn last(&self) -> u64 {
        self.last
    }

    /// The points up to cycle `end` (the open epoch's means over its elapsed part)
    /// and the span of each full point.
    pub fn finish(&self, end: u64) -> (u64, Vec<ConcurrencyPoint>) {
        let mut s = self.clone();
        s.advance(end);
        let mut points = s.points.clone();
        let part = s.last - s.open;
        if part > 0 {
            let e = part as f64;
            points.push(ConcurrencyPoint {
                start: s.open,
                kernels: s.acc[0] as f64 / e,
                parent_tbs: s.acc[1] as f64 / e,
                child_tbs: s.acc[2] as f64 / e,
            });
        }
        (s.epoch, points)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_are_time_weighted_per_epoch() {
        let mut s = ConcurrencySeries::new(100, 8);
        s.update(0, [1, 4, 0]);
        s.update(50, [1, 4, 10]); // child TBs 10 for the second half of epoch 0
        s.update(150, [2, 0, 10]);
        let (span, p) = s.finish(200);
        assert_eq!(span, 100);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].start, 0);
        assert_eq!(p[0].child_tbs, 5.0);
        assert_eq!(p[0].parent_tbs, 4.0);
        assert_eq!(p[1].start, 100);
        assert_eq!(p[1].parent_tbs, 2.0);
        assert_eq!(p[1].kernels, 1.5);
        assert_eq!(p[1].child_tbs, 10.0);
    }

    #[test]
    fn a_long_run_stays_bounded_and_merges_pairs() {
        let mut s = ConcurrencySeries::new(10, 8);
        // The count is the epoch index of the original 10-cycle epochs.
        for i in 0..16u64 {
            s.update(i * 10, [0, i, 0]);
        }
        let (span, p) = s.finish(160);
        assert_eq!(span, 40);
        assert!(p.len() < 8, "{p:?}");
        // 16 epochs merged twice: points of 4 original epochs, means 1.5, 5.5, ...
        let means: Vec<f64> = p.iter().map(|x| x.parent_tbs).collect();
        assert_eq!(means, vec![1.5, 5.5, 9.5, 13.5]);
        assert_eq!(p[1].start, 40);
    }

    #[test]
    fn a_partial_epoch_is_averaged_over_its_elapsed_part() {
        let mut s = ConcurrencySeries::new(100, 8);
        s.update(0, [0, 2, 0]);
        let (_, p) = s.finish(30);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].parent_tbs, 2.0);
        assert!(s.finish(0).1.is_empty());
    }
}
