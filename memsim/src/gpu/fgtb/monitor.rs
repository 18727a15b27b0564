//! Per-TB monitoring (`gpu-seeds.md` §6.1 "every monitor_period", §8.1 "Per-TB
//! counters"): what an SM counts for each resident TB, the two metrics over a
//! monitor period, their quantisation and the monitor that decides when a TB's
//! change is reported to the TB scheduler.
//!
//! * **Memory-throttle stall rate**: the fraction of the TB's warp-cycles in
//!   which a warp could not issue its memory instruction because the LSU's miss
//!   queue was full (the SM's [`Stall::LsuFull`](crate::gpu::smcore::Stall), the
//!   paper's "the load-store unit is saturated and cannot accept requests").
//!   The SM integrates the number of throttled warps of the TB over time.
//! * **FPU utilisation**: the TB's `fp` warp instructions as a fraction of the
//!   SM's single-precision issue capacity over the period (`schedulers /
//!   sp.ii` per cycle).
//!
//! Each metric is quantised to `0..=top` (3 bits: `round(x * 7)`). The period
//! is the paper's heuristic, context KB / 1.1 µs (about five preemption
//! latencies), scaled by [`FgtbConfig::time_scale`]. A report is sent when a
//! level moved by at least [`FgtbConfig::report_delta`] since the last report
//! ([I]: "any deviation ... will be communicated").

use super::{FgtbConfig, Levels, FPU, MEM, METRICS};

/// What an SM counts for one resident TB (kept in its TB slot; travels with a
/// preempted TB).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TbCounters {
    /// Warps of the TB throttled now.
    pub throttled: u32,
    /// Which of its warps (bit = warp index in the TB, at most 32 warps).
    pub throttled_mask: u32,
    /// Cycle `throttled` last changed.
    pub since: u64,
    /// Throttled warp-cycles up to `since` (miss queue full).
    pub throttle_warp_cycles: u64,
    /// Warp-cycles the TB's memory instructions waited for the LSU's input
    /// (more than `lsu_queue` transactions' work ahead of them).
    pub lsu_wait_cycles: u64,
    /// `fp` warp instructions issued.
    pub fp_issued: u64,
    /// Warp instructions issued.
    pub issued: u64,
}

impl TbCounters {
    fn advance(&mut self, t: u64) {
        if t > self.since {
            self.throttle_warp_cycles += self.throttled as u64 * (t - self.since);
            self.since = t;
        }
    }

    /// Warp `warp` (index in the TB) is throttled at `t` (no change if it
    /// already was).
    pub fn throttle_on(&mut self, t: u64, warp: u32) {
        let b = 1u32 << (warp & 31);
        if self.throttled_mask & b == 0 {
            self.advance(t);
            self.throttled_mask |= b;
            self.throttled += 1;
        }
    }

    /// Warp `warp` is not throttled at `t` (no change if it was not).
    pub fn throttle_off(&mut self, t: u64, warp: u32) {
        let b = 1u32 << (warp & 31);
        if self.throttled_mask & b != 0 {
            self.advance(t);
            self.throttled_mask &= !b;
            self.throttled -= 1;
        }
    }

    /// A warp of the TB waits `cycles` for the LSU to accept its memory
    /// instruction (its input is full: more than `lsu_queue` transactions'
    /// work ahead): throttled warp-cycles, counted at once.
    pub fn throttle_for(&mut self, cycles: u64) {
        self.lsu_wait_cycles += cycles;
    }

    /// Closes every throttle interval at `t` (the TB leaves its SM).
    pub fn unthrottle_all(&mut self, t: u64) {
        self.advance(t);
        self.throttled = 0;
        self.throttled_mask = 0;
    }

    /// The cumulative counts at `t`.
    pub fn sample(&self, t: u64) -> TbSample {
        let open = self.throttled as u64 * t.saturating_sub(self.since);
        TbSample {
            at: t,
            throttle_warp_cycles: self.throttle_warp_cycles + open,
            lsu_wait_cycles: self.lsu_wait_cycles,
            fp_issued: self.fp_issued,
            issued: self.issued,
        }
    }
}

/// Cumulative counts of a TB at a cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TbSample {
    /// Cycle.
    pub at: u64,
    /// Throttled warp-cycles (miss queue full).
    pub throttle_warp_cycles: u64,
    /// Warp-cycles waiting for the LSU's input.
    pub lsu_wait_cycles: u64,
    /// `fp` warp instructions.
    pub fp_issued: u64,
    /// Warp instructions.
    pub issued: u64,
}

/// The two metrics over an interval, as fractions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Memory-throttle stall rate (throttled warp-cycles / warp-cycles).
    pub mem_throttle: f64,
    /// FPU utilisation (fp issue slots / the SM's fp issue capacity).
    pub fpu_util: f64,
}

impl Metrics {
    /// The metrics between two samples of a TB of `warps` warps on an SM that
    /// issues `fp_per_cycle` fp warp instructions per cycle at most.
    pub fn between(a: &TbSample, b: &TbSample, warps: u32, fp_per_cycle: f64) -> Metrics {
        let cycles = b.at.saturating_sub(a.at);
        if cycles == 0 {
            return Metrics::default();
        }
        let wc = (warps.max(1) as u64 * cycles) as f64;
        let thr = (b.throttle_warp_cycles + b.lsu_wait_cycles)
            .saturating_sub(a.throttle_warp_cycles + a.lsu_wait_cycles) as f64;
        let fp = b.fp_issued.saturating_sub(a.fp_issued) as f64;
        Metrics {
            mem_throttle: (thr / wc).min(1.0),
            fpu_util: (fp / (cycles as f64 * fp_per_cycle.max(1e-9))).min(1.0),
        }
    }

    /// The metrics as an array in [`Levels`] order.
    pub fn as_array(&self) -> [f64; METRICS] {
        let mut a = [0.0; METRICS];
        a[MEM] = self.mem_throttle;
        a[FPU] = self.fpu_util;
        a
    }

    /// Quantised to `0..=cfg.top()`; untracked metrics read 0.
    pub fn levels(&self, cfg: &FgtbConfig) -> Levels {
        let top = cfg.top();
        let mut l = [0u8; METRICS];
        for (i, x) in self.as_array().into_iter().enumerate() {
            if cfg.track[i] {
                l[i] = quantise(x, top);
            }
        }
        Levels(l)
    }
}

/// `s` with the LSU-input waits dropped unless `cfg.lsu_input` counts them.
fn masked(s: TbSample, cfg: &FgtbConfig) -> TbSample {
    if cfg.lsu_input {
        s
    } else {
        TbSample {
            lsu_wait_cycles: 0,
            ..s
        }
    }
}

/// `x` in `[0, 1]` to the nearest of `0..=top`.
pub fn quantise(x: f64, top: u8) -> u8 {
    (x.clamp(0.0, 1.0) * top as f64).round() as u8
}

/// Monitor period in cycles for a TB of `context_bytes` at `freq_mhz`: the
/// paper's `context KB / 1.1` µs, times `time_scale`, at least `min_period`.
/// Table I's contexts give 14.5 µs (BFS, 16 KB) ... 98.7 µs (PTA, 108 KB).
pub fn monitor_period(context_bytes: u64, freq_mhz: u32, cfg: &FgtbConfig) -> u64 {
    let us = context_bytes as f64 / 1024.0 / 1.1;
    let cycles = us * freq_mhz as f64 * cfg.time_scale;
    (cycles.round() as u64).max(cfg.min_period.max(1))
}

/// The monitor of one resident TB: samples it every period and says when its
/// levels changed enough to report.
#[derive(Clone, Debug, PartialEq)]
pub struct TbMonitor {
    /// Cycles between samples.
    pub period: u64,
    /// Cycle of the next sample.
    pub next: u64,
    /// Levels last reported (at dispatch: the estimate it was placed with).
    pub reported: Levels,
    /// Sample at the start of the current period.
    last: TbSample,
    /// Sample at dispatch, for the lifetime average.
    first: TbSample,
    /// Cycle the TB was preempted (while it is out), and the cycles it spent
    /// out of any SM so far (not part of its lifetime average).
    paused_at: Option<u64>,
    paused: u64,
    /// The unquantised metrics of the last period that ended (`None` before
    /// the first), for the report's distribution of period levels.
    pub last_period: Option<Metrics>,
}

impl TbMonitor {
    /// A monitor started at `s` (the TB's counters at dispatch) with the
    /// estimate `est`. The counters travel with a preempted TB, so one monitor
    /// follows a TB over its SMs.
    pub fn new(s: TbSample, period: u64, est: Levels) -> Self {
        TbMonitor {
            period: period.max(1),
            next: s.at + period.max(1),
            reported: est,
            last: s,
            first: s,
            paused_at: None,
            paused: 0,
            last_period: None,
        }
    }

    /// The TB was preempted at `t`: no sample until it resumes.
    pub fn pause(&mut self, t: u64) {
        self.paused_at = Some(t);
        self.next = u64::MAX;
    }

    /// The TB resumes at `s`: a new period starts there.
    pub fn resume(&mut self, s: TbSample) {
        if let Some(p) = self.paused_at.take() {
            self.paused += s.at.saturating_sub(p);
        }
        self.next = s.at + self.period;
        self.last = s;
    }

    /// Samples at `s` if a period ended: the period's levels when they moved
    /// by at least `report_delta` from the last report (which they then
    /// become), else `None`.
    pub fn poll(
        &mut self,
        s: TbSample,
        warps: u32,
        fp_per_cycle: f64,
        cfg: &FgtbConfig,
    ) -> Option<Levels> {
        if s.at < self.next {
            return None;
        }
        let m = Metrics::between(
            &masked(self.last, cfg),
            &masked(s, cfg),
            warps,
            fp_per_cycle,
        );
        self.last_period = Some(m);
        let l = m.levels(cfg);
        self.last = s;
        self.next = s.at + self.period;
        let moved =
            l.0.iter()
                .zip(self.reported.0.iter())
                .any(|(a, b)| a.abs_diff(*b) >= cfg.report_delta.max(1));
        if moved {
            self.reported = l;
            Some(l)
        } else {
            None
        }
    }

    /// The levels over the TB's whole residence up to `s` (its final values,
    /// written to the usage table at exit).
    pub fn lifetime(&self, s: TbSample, warps: u32, fp_per_cycle: f64, cfg: &FgtbConfig) -> Levels {
        self.lifetime_metrics(s, warps, fp_per_cycle, cfg)
            .levels(cfg)
    }

    /// The unquantised metrics over the TB's whole residence up to `s`.
    pub fn lifetime_metrics(
        &self,
        s: TbSample,
        warps: u32,
        fp_per_cycle: f64,
        cfg: &FgtbConfig,
    ) -> Metrics {
        let first = TbSample {
            at: (self.first.at + self.paused).min(s.at),
            ..self.first
        };
        Metrics::between(&masked(first, cfg), &masked(s, cfg), warps, fp_per_cycle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table I: context KB / 1.1 µs at 1.6 GHz, unscaled.
    #[test]
    fn table_one_periods() {
        let cfg = FgtbConfig {
            time_scale: 1.0,
            ..FgtbConfig::default()
        };
        // BFS: 128 threads x 32 registers x 4 B = 16 KB -> 14.5 µs
        let bfs = super::super::context::context_bytes(128, 32, 0);
        assert_eq!(bfs, 16384);
        assert_eq!(monitor_period(bfs, 1600, &cfg), 23273); // 14.55 µs
                                                            // PTA: 991 x 28 x 4 + 200 = 111,192 B -> 98.7 µs
        let pta = super::super::context::context_bytes(991, 28, 200);
        assert_eq!(pta, 111192);
        let us = monitor_period(pta, 1600, &cfg) as f64 / 1600.0;
        assert!((us - 98.7).abs() < 0.1, "{us}");
        // scaled by 0.1, floored at min_period for SGD's 2 KB
        let d = FgtbConfig::default();
        assert_eq!(monitor_period(bfs, 1600, &d), 2327);
        assert_eq!(monitor_period(16 * 26 * 4 + 68, 1600, &d), 256);
    }

    #[test]
    fn quantises_to_three_bits() {
        assert_eq!(quantise(0.0, 7), 0);
        assert_eq!(quantise(0.07, 7), 0);
        assert_eq!(quantise(0.08, 7), 1);
        assert_eq!(quantise(0.5, 7), 4);
        assert_eq!(quantise(1.0, 7), 7);
        assert_eq!(quantise(3.0, 7), 7);
        let cfg = FgtbConfig {
            track: [true, false],
            ..FgtbConfig::default()
        };
        let m = Metrics {
            mem_throttle: 0.3,
            fpu_util: 0.9,
        };
        assert_eq!(m.levels(&cfg), Levels([2, 0]));
    }

    /// Two of four warps throttled for 100 of 200 cycles: rate 0.25; 100 fp
    /// instructions in 200 cycles on a 4-per-cycle SM: 0.125.
    #[test]
    fn counters_integrate_throttled_warps() {
        let mut c = TbCounters::default();
        c.throttle_on(50, 0);
        c.throttle_on(50, 1);
        // idempotent per warp: warp 1 again, and warp 5 was never throttled
        c.throttle_on(80, 1);
        c.throttle_off(90, 5);
        c.throttle_off(150, 0);
        c.throttle_off(160, 0);
        c.fp_issued = 100;
        // one warp still throttled from 150 to 200
        let s = c.sample(200);
        assert_eq!(s.throttle_warp_cycles, 2 * 100 + 50);
        let m = Metrics::between(&TbSample::default(), &s, 4, 4.0);
        assert!((m.mem_throttle - 250.0 / 800.0).abs() < 1e-12);
        assert!((m.fpu_util - 0.125).abs() < 1e-12);
        c.unthrottle_all(300);
        assert_eq!(c.sample(400).throttle_warp_cycles, 350);
    }

    /// The LSU-input waits are throttled warp-cycles unless `lsu_input` is
    /// off. A 4-warp TB over 200 cycles: 2 warps blocked on the full miss
    /// queue for 100 cycles (200 warp-cycles) and LSU-input waits of 60 + 90
    /// warp-cycles: (200 + 150) / 800 = 0.4375 -> round(3.06) = level 3;
    /// the miss queue alone: 200 / 800 = 0.25 -> round(1.75) = level 2.
    #[test]
    fn lsu_input_waits_are_throttle() {
        let mut c = TbCounters::default();
        let mut m = TbMonitor::new(c.sample(0), 200, Levels([0, 0]));
        let mut off = m.clone();
        c.throttle_on(0, 0);
        c.throttle_on(0, 1);
        c.throttle_off(100, 0);
        c.throttle_off(100, 1);
        c.throttle_for(60);
        c.throttle_for(90);
        let s = c.sample(200);
        assert_eq!((s.throttle_warp_cycles, s.lsu_wait_cycles), (200, 150));
        let on = FgtbConfig::default();
        assert!(on.lsu_input);
        let miss_only = FgtbConfig {
            lsu_input: false,
            ..FgtbConfig::default()
        };
        assert_eq!(m.poll(s, 4, 1.0, &on), Some(Levels([3, 0])));
        assert_eq!(m.last_period.unwrap().mem_throttle, 0.4375);
        assert_eq!(off.poll(s, 4, 1.0, &miss_only), Some(Levels([2, 0])));
        assert_eq!(off.last_period.unwrap().mem_throttle, 0.25);
        assert_eq!(m.lifetime(s, 4, 1.0, &on), Levels([3, 0]));
        assert_eq!(m.lifetime(s, 4, 1.0, &miss_only), Levels([2, 0]));
    }

    /// The monitor reports only at period ends and only on a level change.
    #[test]
    fn monitor_reports_changes_only() {
        let cfg = FgtbConfig::default();
        let mut c = TbCounters::default();
        let mut m = TbMonitor::new(c.sample(0), 100, Levels([0, 0]));
        assert_eq!(m.poll(c.sample(50), 1, 1.0, &cfg), None); // mid-period
        assert_eq!(m.poll(c.sample(100), 1, 1.0, &cfg), None); // still 0, 0
        c.throttle_on(100, 0);
        assert_eq!(m.poll(c.sample(200), 1, 1.0, &cfg), Some(Levels([7, 0])));
        assert_eq!(m.poll(c.sample(300), 1, 1.0, &cfg), None); // unchanged
        c.throttle_off(300, 0);
        assert_eq!(m.poll(c.sample(400), 1, 1.0, &cfg), Some(Levels([0, 0])));
        // lifetime: throttled 200 of 400 cycles
        assert_eq!(m.lifetime(c.sample(400), 1, 1.0, &cfg), Levels([4, 0]));
        // preempted from 400 to 1000: no sample meanwhile, and the 600 cycles
        // out do not dilute the lifetime average
        c.throttle_on(400, 0);
        c.unthrottle_all(400);
        m.pause(400);
        assert_eq!(m.poll(c.sample(900), 1, 1.0, &cfg), None);
        m.resume(c.sample(1000));
        c.throttle_on(1000, 0);
        assert_eq!(m.poll(c.sample(1100), 1, 1.0, &cfg), Some(Levels([7, 0])));
        // 300 of 500 resident cycles throttled: 0.6 -> 4
        assert_eq!(m.lifetime(c.sample(1100), 1, 1.0, &cfg), Levels([4, 0]));
    }
}
