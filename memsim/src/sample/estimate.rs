//! Extrapolation of a sampled run (module docs of [`crate::sample`]): cycles
//! with a 95% confidence interval, phase cycles, and BLP.
//!
//! Segment `j` ran `cycles_j` detailed cycles for `detailed_j` records (the
//! most any core ran in it) and stands for a period of `total_j` records (the
//! most any core had in it, detailed plus warmed); its estimate is
//! `cycles_j * total_j / detailed_j` (exact, factor 1, when nothing was warmed).
//! Error: the rate `r_j = cycles_j / detailed_j` of a sampled segment stands
//! for its `total_j - detailed_j` warmed records; its error is taken as the
//! spread of the rates of the sampled segments within the same interval
//! (pooled variance `s^2` over intervals with two or more), so the estimate's
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
    /// Ends the current segment at `r`; `phase` is the tag of the trace barrier
    /// released there (`None` for a sampling barrier).
    pub fn close(&mut self, r: u64, detailed: u64, total: u64, phase: Option<BarrierPhase>) {
        self.segments.push(Segment {
            start: self.start,
            end: r.max(self.start),
            detailed,
            total: total.max(detailed),
            interval: self.interval,
            phase: self.phase,
        });
        self.start = r.max(self.start);
        if let Some(p) = phase {
            self.interval += 1;
            self.phase = match p {
                BarrierPhase::InspectStart => Phase::Inspection,
                BarrierPhase::RegionStart => Phase::Region,
                BarrierPhase::InspectEnd | BarrierPhase::RegionEnd => Phase::Other,
                BarrierPhase::None => self.phase,
            };
        }
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
        for s in &self.segments {
            let e = s.cycles() as f64 * s.factor();
            cycles += e;
            match s.phase {
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
            intervals: self.interval + 1,
        }
    }

    fn ci95(&self) -> Option<f64> {
        let mut ss = 0.0;
        let mut dof = 0u64;
        let mut weight = 0.0;
        let mut i = 0;
        let segs: Vec<&Segment> = self.segments.iter().filter(|s| s.sampled()).collect();
        while i < segs.len() {
            let mut j = i;
            while j < segs.len() && segs[j].interval == segs[i].interval {
                j += 1;
            }
            let g = &segs[i..j];
            let rate = |s: &Segment| s.cycles() as f64 / s.detailed as f64;
            let mean = g.iter().map(|s| rate(s)).sum::<f64>() / g.len() as f64;
            ss += g.iter().map(|s| (rate(s) - mean).powi(2)).sum::<f64>();
            dof += g.len() as u64 - 1;
            weight += g
                .iter()
                .map(|s| ((s.total - s.detailed) as f64).powi(2))
                .sum::<f64>();
            i = j;
        }
        if segs.is_empty() {
            return Some(0.0);
        }
        if dof == 0 {
            return None;
        }
        Some(1.96 * (ss / dof as f64 * weight).sqrt())
    }

    /// BLP over the DRAM epochs, each weighted by the mean factor of the
    /// segments it overlaps (factor 1 outside every segment).
    fn blp(&self, epochs: &[EpochSample], epoch_len: u64, to_dram: impl Fn(u64) -> u64) -> f64 {
        let segs: Vec<(u64, u64, f64)> = self
            .segments
            .iter()
            .filter(|s| s.end > s.start)
            .map(|s| (to_dram(s.start), to_dram(s.end), s.factor()))
            .collect();
        let (mut num, mut den) = (0.0, 0.0);
        let mut k = 0;
        for e in epochs {
            let (a, b) = (e.start, e.start + epoch_len.max(1));
            while k < segs.len() && segs[k].1 <= a {
                k += 1;
            }
            let (mut w, mut cov) = (0.0, 0.0);
            let mut j = k;
            while j < segs.len() && segs[j].0 < b {
                let o = (segs[j].1.min(b) - segs[j].0.max(a)) as f64;
                w += o * segs[j].2;
                cov += o;
                j += 1;
            }
            let f = if cov > 0.0 { w / cov } else { 1.0 };
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

    fn est(segs: &[(u64, u64, u64)]) -> Estimator {
        let mut e = Estimator::default();
        for &(r, d, t) in segs {
            e.close(r, d, t, None);
        }
        e
    }

    #[test]
    fn full_detail_is_exact_and_has_no_error() {
        let mut e = est(&[(100, 10, 10), (250, 20, 20)]);
        e.close(300, 5, 5, Some(BarrierPhase::RegionEnd));
        let s = e.estimate(&[], 2500, |c| c);
        assert_eq!(s.cycles, 300.0);
        assert_eq!(s.cycles_ci95, Some(0.0));
        assert_eq!(s.detailed_cycles, 300);
        assert_eq!(s.sampled_segments, 0);
    }

    #[test]
    fn sampled_segments_scale_and_spread_gives_interval() {
        // Two sampled segments of one interval: rates 10 and 12 cycles/record.
        let e = est(&[(100, 10, 100), (220, 10, 100)]);
        let s = e.estimate(&[], 2500, |c| c);
        assert_eq!(s.cycles, 1000.0 + 1200.0);
        // s^2 = ((10-11)^2 + (12-11)^2) / 1 = 2; weight = 90^2 * 2.
        let want = 1.96 * (2.0f64 * 2.0 * 8100.0).sqrt();
        assert!((s.cycles_ci95.unwrap() - want).abs() < 1e-9);
        // A single sampled segment: the interval is unknown, not zero.
        let one = est(&[(100, 10, 100)]).estimate(&[], 2500, |c| c);
        assert_eq!(one.cycles_ci95, None);
    }

    #[test]
    fn blp_weights_epochs_by_factor() {
        // Segment 1 (factor 1) covers epoch 0, segment 2 (factor 3) epoch 1.
        let e = est(&[(100, 10, 10), (200, 10, 30)]);
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
}
