//! Extrapolation of a sampled run (module docs of [`crate::sample`]): cycles
//! with a 95% confidence interval, phase cycles, and BLP.
//!
//! Cycles: in segment `j` core `c` ran `d_cj` records in detail in `t_cj`
//! cycles (from the segment's start to its arrival at the barrier, so waiting
//! for slower cores is not counted), and the `w_cj` records warmed between its
//! previous segment and this one are attributed to it (those warmed after its
//! last segment of an interval, to that last one), so that an interval's first
//! segment, at the start of the region, stands only for itself; it stands for `t_cj * (d_cj + w_cj) / d_cj` cycles. An interval (between
//! two trace barriers) lasts as long as its slowest core, `max_c sum_j` of
//! these, plus the release delay after the last arrival; the run is the sum of
//! its intervals. With nothing warmed this is the simulated time exactly.
//! Segment `j` as a whole ran `cycles_j` cycles for `detailed_j` records (the
//! most any core ran in it) and stands for `total_j` (the most any core had,
//! detailed plus warmed); its factor `total_j / detailed_j` weights BLP over
//! the part of the segment in which every core still runs (before the first
//! arrival at its barrier), the rest counting once (`Estimator::blp`).
//! Error: the rate `r_j = cycles_j / detailed_j` of a sampled segment stands
//! for its `total_j - detailed_j` warmed records; its error is taken as the
//! spread of the rates of all segments of the same interval (pooled variance
//! `s^2` over the intervals with a sampled segment; the unsampled first and
//! last segments of an interval, with their start-up and barrier wait, make it
//! conservative), so the estimate's
//! variance is `s^2 * sum_j (total_j - detailed_j)^2` and the interval is
//! `+- 1.96 sqrt(.)`. With no interval holding two sampled segments the
//! interval is unknown (`None`), never zero.

use crate::stats::EpochSample;
use crate::trace::BarrierPhase;
use serde::Serialize;

/// Phase a segment belongs to (between the trace's tagged barriers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Neither (serial code, untagged regions).
    #[default]
    Other,
    /// Between inspection-start and inspection-end barriers.
    Inspection,
    /// Between region-start and region-end barriers.
    Region,
}

/// One detailed segment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Segment {
    /// First cycle (simulated time).
    pub start: u64,
    /// Cycle of the release that ended it.
    pub end: u64,
    /// Records simulated in detail (the most of any core).
    pub detailed: u64,
    /// Records of its period (the most of any core, detailed plus warmed).
    pub total: u64,
    /// First arrival at the closing barrier of a core that ran records in it
    /// (`end` if none did): until then every active core is still running.
    pub first_arrival: u64,
    /// Interval (between trace barriers) index.
    pub interval: u64,
    /// Phase.
    pub phase: Phase,
}

impl Segment {
    /// Scale factor `total / detailed` (1 when nothing was warmed).
    pub fn factor(&self) -> f64 {
        if self.total <= self.detailed || self.detailed == 0 {
            1.0
        } else {
            self.total as f64 / self.detailed as f64
        }
    }

    /// Whether warmed records follow it.
    pub fn sampled(&self) -> bool {
        self.total > self.detailed && self.detailed > 0
    }

    fn cycles(&self) -> u64 {
        self.end - self.start
    }
}

/// Collects segments during a run.
#[derive(Clone, Debug, Default)]
pub struct Estimator {
    segments: Vec<Segment>,
    start: u64,
    interval: u64,
    phase: Phase,
    /// Per core, the estimated busy cycles of the current interval so far.
    acc: Vec<f64>,
    /// Per core, records warmed since its last segment, not yet attributed.
    pend: Vec<u64>,
    /// Per core, its last segment in this interval: (index, cycles, detailed
    /// records, records it stands for).
    last: Vec<Option<(usize, f64, u64, u64)>>,
    /// Estimated cycles of each closed interval, with its phase.
    intervals: Vec<(f64, Phase)>,
}

/// The extrapolated results of a sampled run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SampleEstimate {
    /// Estimated total cycles.
    pub cycles: f64,
    /// Half width of the 95% confidence interval of `cycles` (`None`: unknown).
    pub cycles_ci95: Option<f64>,
    /// `cycles_ci95 / cycles`.
    pub cycles_ci95_rel: Option<f64>,
    /// Cycles simulated in detail.
    pub detailed_cycles: u64,
    /// Estimated cycles of the inspections.
    pub inspection_cycles: f64,
    /// Estimated cycles of the parallel regions.
    pub region_cycles: f64,
    /// Estimated BLP (epochs weighted by their segments' factors).
    pub blp: f64,
    /// Segments.
    pub segments: u64,
    /// Of them, followed by functional warming.
    pub sampled_segments: u64,
    /// Intervals (between the trace's barriers).
    pub intervals: u64,
}

impl Estimator {
    /// Ends the current segment at `r`: core `c` ran `recs[c]` records in
    /// detail and reached the barrier (or finished) at `arrival[c]`, and
    /// `warmed[c]` records were warmed after them; `phase` is the tag of the
    /// trace barrier released at `r` (`None` for a sampling barrier).
    pub fn close(
        &mut self,
        r: u64,
        arrival: &[u64],
        recs: &[u64],
        warmed: &[u64],
        phase: Option<BarrierPhase>,
    ) {
        let n = recs.len();
        if self.acc.len() < n {
            self.acc.resize(n, 0.0);
            self.pend.resize(n, 0);
            self.last.resize(n, None);
        }
        let end = r.max(self.start);
        let idx = self.segments.len();
        let mut detailed = 0;
        let mut total = 0;
        let mut last = None::<u64>;
        let mut first = end;
        for c in 0..n {
            if recs[c] > 0 {
                // The records warmed before this segment are attributed to it.
                let w = std::mem::take(&mut self.pend[c]);
                let a = arrival[c].clamp(self.start, end);
                let t = (a - self.start) as f64;
                self.acc[c] += t * (recs[c] + w) as f64 / recs[c] as f64;
                self.last[c] = Some((idx, t, recs[c], recs[c] + w));
                detailed = detailed.max(recs[c]);
                total = total.max(recs[c] + w);
                last = Some(last.map_or(a, |l| l.max(a)));
                first = first.min(a);
            }
            self.pend[c] += warmed.get(c).copied().unwrap_or(0);
        }
        self.segments.push(Segment {
            start: self.start,
            end,
            detailed,
            total,
            first_arrival: first,
            interval: self.interval,
            phase: self.phase,
        });
        if let Some(p) = phase {
            self.close_interval(end - last.unwrap_or(self.start));
            self.phase = match p {
                BarrierPhase::InspectStart => Phase::Inspection,
                BarrierPhase::RegionStart => Phase::Region,
                BarrierPhase::InspectEnd | BarrierPhase::RegionEnd => Phase::Other,
                BarrierPhase::None => self.phase,
            };
        }
        self.start = end;
    }

    /// Closes the run at `end` (its cycles), each core having finished at
    /// `finish[c]` after `recs[c]` records of the last segment.
    pub fn finish(&mut self, end: u64, finish: &[u64], recs: &[u64]) {
        self.close(end, finish, recs, &[], Some(BarrierPhase::None));
    }

    /// The interval's estimate: its slowest core plus the release delay `tail`
    /// after the last arrival.
    fn close_interval(&mut self, tail: u64) {
        // Records warmed after a core's last segment: attributed to that one.
        for c in 0..self.pend.len() {
            let w = std::mem::take(&mut self.pend[c]);
            if let (true, Some((i, t, d, tot))) = (w > 0, self.last[c]) {
                self.acc[c] += t * w as f64 / d as f64;
                let s = &mut self.segments[i];
                s.total = s.total.max(tot + w);
            }
            self.last[c] = None;
        }
        let busy = self.acc.iter().copied().fold(0.0, f64::max);
        self.intervals.push((busy + tail as f64, self.phase));
        self.acc.fill(0.0);
        self.interval += 1;
    }

    /// The segments.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The estimate; `epochs` are the DRAM's BLP epochs (start in DRAM cycles),
    /// `to_dram` converts a core cycle to DRAM cycles.
    pub fn estimate(
        &self,
        epochs: &[EpochSample],
        epoch_len: u64,
        to_dram: impl Fn(u64) -> u64,
    ) -> SampleEstimate {
        let mut cycles = 0.0;
        let mut insp = 0.0;
        let mut region = 0.0;
        for &(e, phase) in &self.intervals {
            cycles += e;
            match phase {
                Phase::Inspection => insp += e,
                Phase::Region => region += e,
                Phase::Other => {}
            }
        }
        let ci = self.ci95();
        SampleEstimate {
            cycles,
            cycles_ci95: ci,
            cycles_ci95_rel: ci.map(|c| if cycles > 0.0 { c / cycles } else { 0.0 }),
            detailed_cycles: self.segments.iter().map(|s| s.cycles()).sum(),
            inspection_cycles: insp,
            region_cycles: region,
            blp: self.blp(epochs, epoch_len, to_dram),
            segments: self.segments.len() as u64,
            sampled_segments: self.segments.iter().filter(|s| s.sampled()).count() as u64,
            intervals: self.intervals.len() as u64,
        }
    }

    fn ci95(&self) -> Option<f64> {
        if !self.segments.iter().any(|s| s.sampled()) {
            return Some(0.0);
        }
        let rate = |s: &Segment| s.cycles() as f64 / s.detailed as f64;
        let (mut ss, mut dof, mut weight) = (0.0, 0u64, 0.0);
        for g in self.segments.chunk_by(|a, b| a.interval == b.interval) {
            let g: Vec<&Segment> = g.iter().filter(|s| s.detailed > 0).collect();
            if g.iter().all(|s| !s.sampled()) {
                continue;
            }
            let mean = g.iter().map(|s| rate(s)).sum::<f64>() / g.len() as f64;
            ss += g.iter().map(|s| (rate(s) - mean).powi(2)).sum::<f64>();
            dof += g.len() as u64 - 1;
            weight += g
                .iter()
                .filter(|s| s.sampled())
                .map(|s| ((s.total - s.detailed) as f64).powi(2))
                .sum::<f64>();
        }
        (dof > 0).then(|| 1.96 * (ss / dof as f64 * weight).sqrt())
    }

    /// BLP over the DRAM epochs, each weighted by the time the cycles it
    /// overlaps stand for. A segment's cycles count once for themselves, and
    /// its cycles up to its first arrival count `factor - 1` more times for
    /// the warmed records it stands for: those run, in the full simulation,
    /// with every core busy, which holds in a segment only until the first
    /// core reaches the sampling barrier; after that the cores drain one by
    /// one (fewer busy banks), a state the full run has only at the trace's
    /// own barriers. Cycles outside every segment count for themselves.
    /// (Scaling whole segments underestimated the benchmarks' BLP by 1-13%;
    /// weighting *only* the steady part, a warm-up quarter left out,
    /// overestimated it by up to 16%: `docs/sampling.md`.)
    fn blp(&self, epochs: &[EpochSample], epoch_len: u64, to_dram: impl Fn(u64) -> u64) -> f64 {
        // (start, end, weight per cycle) in DRAM cycles, in time order.
        let mut win: Vec<(u64, u64, f64)> = Vec::new();
        for s in self.segments.iter().filter(|s| s.end > s.start) {
            let (a, m, b) = (
                to_dram(s.start),
                to_dram(s.first_arrival.clamp(s.start, s.end)),
                to_dram(s.end),
            );
            win.push((a, m, s.factor()));
            win.push((m, b, 1.0));
        }
        let (mut num, mut den) = (0.0, 0.0);
        let len = epoch_len.max(1);
        let mut k = 0;
        for e in epochs {
            let (a, b) = (e.start, e.start + len);
            while k < win.len() && win[k].1 <= a {
                k += 1;
            }
            let (mut w, mut cov) = (0.0, 0u64);
            let mut j = k;
            while j < win.len() && win[j].0 < b {
                let o = win[j].1.min(b).saturating_sub(win[j].0.max(a));
                w += o as f64 * win[j].2;
                cov += o;
                j += 1;
            }
            let f = (w + (len - cov.min(len)) as f64) / len as f64;
            num += f * e.busy_unit_cycles as f64;
            den += f * e.any_busy_cycles as f64;
        }
        if den > 0.0 {
            num / den
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One core: segments `(release, detailed records, warmed records)`,
    /// the core arriving at each release, then the end of the run.
    fn est(segs: &[(u64, u64, u64)], end: u64) -> Estimator {
        let mut e = Estimator::default();
        for &(r, d, w) in segs {
            e.close(r, &[r], &[d], &[w], None);
        }
        e.finish(end, &[end], &[0]);
        e
    }

    #[test]
    fn full_detail_is_exact_and_has_no_error() {
        let mut e = Estimator::default();
        e.close(100, &[90, 99], &[10, 4], &[0, 0], Some(BarrierPhase::None));
        e.close(
            250,
            &[249, 120],
            &[20, 3],
            &[0, 0],
            Some(BarrierPhase::RegionStart),
        );
        e.finish(300, &[300, 260], &[5, 2]);
        let s = e.estimate(&[], 2500, |c| c);
        assert_eq!(s.cycles, 300.0);
        assert_eq!(s.region_cycles, 50.0);
        assert_eq!(s.cycles_ci95, Some(0.0));
        assert_eq!(s.detailed_cycles, 300);
        assert_eq!(s.sampled_segments, 0);
        assert_eq!(s.intervals, 3);
    }

    #[test]
    fn sampled_segments_scale_per_core_and_spread_gives_interval() {
        // Rates 10 and 12 cycles/record, 90 records warmed between: the
        // second segment stands for them, the first only for itself.
        let s = est(&[(100, 10, 90), (220, 10, 0)], 220).estimate(&[], 2500, |c| c);
        assert_eq!(s.cycles, 100.0 + 1200.0);
        // s^2 = ((10-11)^2 + (12-11)^2) / 1 = 2; weight = 90^2 (one sampled).
        let want = 1.96 * (2.0f64 * 8100.0).sqrt();
        assert!((s.cycles_ci95.unwrap() - want).abs() < 1e-9);
        // Records warmed after the last segment are attributed to it.
        let s = est(&[(100, 10, 90), (220, 10, 90)], 220).estimate(&[], 2500, |c| c);
        assert_eq!(s.cycles, 100.0 + 1200.0 + 1080.0);
        // A single segment with a rate: the interval is unknown, not zero.
        let one = est(&[(100, 10, 90)], 100).estimate(&[], 2500, |c| c);
        assert_eq!(one.cycles_ci95, None);
        // The slowest core sets the interval; a core's wait is not scaled.
        let mut e = Estimator::default();
        e.close(100, &[100, 40], &[10, 10], &[10, 10], None);
        e.finish(100, &[100, 40], &[0, 0]);
        assert_eq!(e.estimate(&[], 2500, |c| c).cycles, 200.0);
    }

    #[test]
    fn blp_weights_epochs_by_factor() {
        // Segment 1 (factor 1) covers epoch 0, segment 2 (factor 3) epoch 1.
        let e = est(&[(100, 10, 0), (200, 10, 20)], 200);
        let ep = |start, busy, any| EpochSample {
            start,
            busy_unit_cycles: busy,
            any_busy_cycles: any,
            parallelism: busy as f64 / any as f64,
        };
        let epochs = [ep(0, 200, 100), ep(100, 400, 100)];
        let s = e.estimate(&epochs, 100, |c| c);
        // (200 + 3*400) / (100 + 3*100)
        assert!((s.blp - 1400.0 / 400.0).abs() < 1e-12);
        assert_eq!(s.cycles, 100.0 + 300.0);
    }

    #[test]
    fn blp_scales_a_segment_only_until_its_first_arrival() {
        // Two cores. Segment 1 (full detail, 0..100); segment 2 (100..300)
        // stands for 40 records per core of which 10 detailed (factor 4); core
        // 1 arrives at 200, core 0 at 300: after 200 only core 0 runs, a drain
        // the full run does not have between its trace barriers.
        let mut e = Estimator::default();
        e.close(100, &[100, 100], &[10, 10], &[30, 30], None);
        e.close(300, &[300, 200], &[10, 10], &[0, 0], None);
        e.finish(300, &[300, 300], &[0, 0]);
        assert_eq!(e.segments()[1].first_arrival, 200);
        let ep = |start, busy, any| EpochSample {
            start,
            busy_unit_cycles: busy,
            any_busy_cycles: any,
            parallelism: busy as f64 / any as f64,
        };
        // BLP 2 in segment 1, 8 while both cores run, 1 in the drain.
        let epochs = [ep(0, 200, 100), ep(100, 800, 100), ep(200, 100, 100)];
        let s = e.estimate(&epochs, 100, |c| c);
        // Weights 1, 4, 1: (200 + 4*800 + 100) / (100 + 400 + 100).
        assert!((s.blp - 3500.0 / 600.0).abs() < 1e-12, "{}", s.blp);
        // The drain epoch scaled as well would give (200+3200+400)/(100+400+400).
        assert!((s.blp - 3800.0 / 900.0).abs() > 1.0);
        // Cycles: core 0 runs 200 cycles for 10 records standing for 40.
        assert_eq!(s.cycles, 100.0 + 800.0);
    }
}
