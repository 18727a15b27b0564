//! Launch decisions: always launch, Baseline-DP's static threshold, and SPAWN's
//! model of child versus parent time (dissertation §2.4, Algorithm 1; digest §3.1,
//! §8.3 `LaunchDecision`, §8.6 item 3).
//!
//! SPAWN's controller sits in the GMU and answers every child-launch call at once.
//! It monitors the child CTA queuing system (CCQS): `n` child CTAs admitted and not
//! finished, `t_cta` the mean execution time of finished child CTAs, `n_con` the
//! mean number of concurrently running child CTAs over the previous window (each
//! cycle adds the running count; every `window` cycles the sum is shifted right by
//! log2(window)), and `t_warp` the mean duration of the child warps that finished in
//! the previous window (kept when none did). A request for `x` CTAs launches when
//! there is no history (`t_cta = 0`), or when
//! `t_overhead + (x + n)·t_cta / n_con <= workload · t_warp` and the queue can take
//! `n + x <= max_queue_size`; otherwise the parent runs the work inline. A vetoed
//! launch runs the launch site's `else` path. Integer arithmetic, as the hardware's
//! adders and shift register.
//!
//! Two inputs the dissertation leaves to the implementation ([`SpawnReading`]):
//! - `t_overhead`, "the time to push child CTAs from SPAWN controller to CCQS"
//!   (§2.4.1), with Table 2.2's `A·x + b`, "x is number of child kernels launched
//!   per warp": the lanes of the calling warp are decided in lane order, so the
//!   default is `A·k + b` with `k` the warp's launches so far, this one included
//!   (the push time the warp's launches cost if this is the last one). Session 6
//!   charged `A·r + b` with `r` every lane that *requests* a launch, vetoed ones
//!   included (`overhead_all_requests`);
//! - a window in which no child CTA ran gives `n_con = 0` (Eq. 2.1 divides by it).
//!   The default keeps the last non-zero window, as `t_warp` keeps its last value
//!   when no child warp finished (§2.4.2 "t_warp is also calculated in a windowed
//!   fashion"); session 6 clamped it to 1 (`clamp_n_con`, digest §3.1 "Gaps to
//!   fill"), which prices every child CTA as if it ran alone.

/// One lane's launch request, as the decision sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchRequest {
    /// CTAs of the requested child.
    pub ctas: u64,
    /// Work the parent thread holds (work items, e.g. edges): SPAWN's `workload`.
    pub workload: u64,
    /// Launch overhead: the push time `A·k + b` (see [`SpawnReading`]).
    pub t_overhead: u64,
}

/// The answer to a launch call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Launch the child.
    Launch,
    /// Run the work in the parent (the launch site's `else` path).
    Inline,
}

/// The CCQS monitor (SPAWN's hardware counters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildStats {
    window_shift: u32,
    /// Child CTAs in the CCQS (admitted, not finished).
    pub n: u64,
    cta_time_sum: u64,
    cta_count: u64,
    running: u64,
    con_sum: u64,
    n_con: u64,
    warp_sum: u64,
    warp_count: u64,
    t_warp: u64,
    n_con_kept: u64,
    entering: Vec<(u64, u64)>,
    window_start: u64,
    last: u64,
}

impl ChildStats {
    /// A monitor with a `window`-cycle averaging window (a power of two; SPAWN 1024).
    pub fn new(window: u64) -> Self {
        assert!(window.is_power_of_two(), "the window average is a shift");
        ChildStats {
            window_shift: window.trailing_zeros(),
            n: 0,
            cta_time_sum: 0,
            cta_count: 0,
            running: 0,
            con_sum: 0,
            n_con: 0,
            warp_sum: 0,
            warp_count: 0,
            t_warp: 0,
            n_con_kept: 0,
            entering: Vec::new(),
            window_start: 0,
            last: 0,
        }
    }

    /// Accumulates the running count up to cycle `t`, closing windows on the way.
    /// An event reported with an earlier cycle than the last one (TB exits carry
    /// their own cycle, launch calls the engine's) counts at the last cycle.
    pub fn advance(&mut self, t: u64) {
        let t = t.max(self.last);
        let w = 1u64 << self.window_shift;
        while t >= self.window_start + w {
            let end = self.window_start + w;
            self.con_sum += self.running * (end - self.last);
            self.n_con = self.con_sum >> self.window_shift;
            if self.n_con > 0 {
                self.n_con_kept = self.n_con;
            }
            self.con_sum = 0;
            if let Some(m) = self.warp_sum.checked_div(self.warp_count) {
                self.t_warp = m;
            }
            self.warp_sum = 0;
            self.warp_count = 0;
            self.window_start = end;
            self.last = end;
        }
        self.con_sum += self.running * (t - self.last);
        self.last = t;
        if !self.entering.is_empty() {
            let mut n = self.n;
            self.entering.retain(|&(at, x)| {
                n += x * (at <= t) as u64;
                at > t
            });
            self.n = n;
        }
    }

    /// `x` child CTAs admitted now enter the CCQS at `at` (after their launch
    /// overhead): `n` counts them from then on ([`SpawnReading::n_at_push`]).
    pub fn enter_at(&mut self, at: u64, x: u64) {
        if x > 0 {
            self.entering.push((at, x));
        }
    }

    /// `x` child CTAs were admitted (launched) at `t`.
    pub fn admit(&mut self, t: u64, x: u64) {
        self.advance(t);
        self.n += x;
    }

    /// A child CTA started running at `t`.
    pub fn cta_start(&mut self, t: u64) {
        self.advance(t);
        self.running += 1;
    }

    /// A child CTA that ran `exec` cycles finished at `t`.
    pub fn cta_finish(&mut self, t: u64, exec: u64) {
        self.advance(t);
        self.running = self.running.saturating_sub(1);
        self.n = self.n.saturating_sub(1);
        self.cta_time_sum += exec;
        self.cta_count += 1;
    }

    /// A child warp that ran `dur` cycles finished at `t`.
    pub fn warp_finish(&mut self, t: u64, dur: u64) {
        self.advance(t);
        self.warp_sum += dur;
        self.warp_count += 1;
    }

    /// Mean child CTA execution time (0 before any finished).
    pub fn t_cta(&self) -> u64 {
        self.cta_time_sum.checked_div(self.cta_count).unwrap_or(0)
    }

    /// Mean concurrent child CTAs over the last closed window.
    pub fn n_con(&self) -> u64 {
        self.n_con
    }

    /// `n_con` of the last window in which it was not 0 (0 before any).
    pub fn n_con_kept(&self) -> u64 {
        self.n_con_kept
    }

    /// Mean child warp duration over the last window with finished warps.
    pub fn t_warp(&self) -> u64 {
        self.t_warp
    }
}

/// Decides, at each launch call, whether the child is launched (digest §8.3).
pub trait LaunchDecision {
    /// Kebab-case name.
    fn name(&self) -> &'static str;
    /// The decision for one lane's request.
    fn decide(&mut self, req: &LaunchRequest, stats: &ChildStats) -> Decision;
}

/// CDP / DTBL as written: every request whose site condition holds launches.
#[derive(Debug, Clone, Copy, Default)]
pub struct AlwaysLaunch;

impl LaunchDecision for AlwaysLaunch {
    fn name(&self) -> &'static str {
        "always"
    }
    fn decide(&mut self, _: &LaunchRequest, _: &ChildStats) -> Decision {
        Decision::Launch
    }
}

/// Baseline-DP with a static THRESHOLD: launch when the parent's work exceeds it.
#[derive(Debug, Clone, Copy)]
pub struct Threshold(pub u64);

impl LaunchDecision for Threshold {
    fn name(&self) -> &'static str {
        "threshold"
    }
    fn decide(&mut self, req: &LaunchRequest, _: &ChildStats) -> Decision {
        if req.workload > self.0 {
            Decision::Launch
        } else {
            Decision::Inline
        }
    }
}

/// How SPAWN's controller reads what §2.4 leaves open (`--dp spawn[-q][-req][-clamp]`;
/// the default, all `false`, is `spawn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SpawnReading {
    /// The no-history case. `false`: Algorithm 1 line 2 as printed, launch while
    /// `t_cta = 0` (no child CTA finished yet). `true` (`-q`): the prose beside it
    /// ("Initially, it decides to launch child kernels because there is no CTAs
    /// in CCQS"): launch blind only into an empty CCQS (`n = 0`); with children
    /// queued and still no history, Eq. 2.1 and 2.2 decide, and with `t_warp = 0`
    /// the parent's estimate is 0, so the work stays in the parent until the
    /// first child CTA finishes.
    pub empty_queue_only: bool,
    /// `true` (`-req`, session 6): `t_overhead = A·r + b` with `r` the lanes of the
    /// warp that request a launch; `false`: `A·k + b` with `k` the warp's
    /// launches so far, this one included (Table 2.2's "launched per warp").
    pub overhead_all_requests: bool,
    /// `true` (`-clamp`, session 6): `n_con = 0` is clamped to 1; `false`: a window
    /// without running child CTAs keeps the last non-zero `n_con`.
    pub clamp_n_con: bool,
    /// `true` (`-push`): `n` counts a child's CTAs from the cycle they are pushed
    /// into the GMU (the launch call plus its API and KMU latency: §2.4.1 "CCQS
    /// tracks the child kernel CTAs only *after* they are pushed into GMU", §2.4.2
    /// "n is incremented [...] whenever a child CTA [...] enters [...] CCQS");
    /// `false`: from the decision, as Algorithm 1 line 8 (`n ← n + x`) prints it.
    pub n_at_push: bool,
}

impl SpawnReading {
    /// The `--dp` suffix flags in order (`-q`, `-req`, `-clamp`).
    pub fn flags(&self) -> String {
        let mut s = String::new();
        for (on, f) in [
            (self.empty_queue_only, "-q"),
            (self.overhead_all_requests, "-req"),
            (self.clamp_n_con, "-clamp"),
            (self.n_at_push, "-push"),
        ] {
            if on {
                s.push_str(f);
            }
        }
        s
    }

    /// Parses the suffix after `spawn` (`""`, `"-q"`, `"-req-clamp"`, ...; each
    /// flag at most once, in the order of [`Self::flags`]).
    pub fn parse(rest: &str) -> Option<Self> {
        let mut r = SpawnReading::default();
        let mut left = rest;
        for (f, flag) in [
            (&mut r.empty_queue_only, "-q"),
            (&mut r.overhead_all_requests, "-req"),
            (&mut r.clamp_n_con, "-clamp"),
            (&mut r.n_at_push, "-push"),
        ] {
            if let Some(x) = left.strip_prefix(flag) {
                *f = true;
                left = x;
            }
        }
        left.is_empty().then_some(r)
    }

    /// `t_overhead` of a request (`A·x + b` given by `cost`) from a warp call
    /// with `requests` asking lanes, `launched` of them launched already.
    pub fn overhead(&self, requests: u64, launched: u64, cost: impl Fn(u64) -> u64) -> u64 {
        cost(if self.overhead_all_requests {
            requests
        } else {
            launched + 1
        })
    }
}

/// SPAWN's controller (Algorithm 1).
#[derive(Debug, Clone, Copy)]
pub struct Spawn {
    /// CCQS capacity (65,536 on Kepler).
    pub max_queue_size: u64,
    /// The reading of the open inputs.
    pub reading: SpawnReading,
}

impl Spawn {
    /// The `n_con` Eq. 2.1 divides by (never 0; see [`SpawnReading::clamp_n_con`]).
    pub fn n_con(&self, s: &ChildStats) -> u64 {
        if self.reading.clamp_n_con {
            s.n_con().max(1)
        } else {
            s.n_con_kept().max(1)
        }
    }

    /// Predicted child time `t_overhead + (x + n)·t_cta / n_con` (Eq. 2.1).
    pub fn t_child(&self, req: &LaunchRequest, s: &ChildStats) -> u64 {
        req.t_overhead + (req.ctas + s.n) * s.t_cta() / self.n_con(s)
    }

    /// Predicted parent time `workload · t_warp` (Eq. 2.2).
    pub fn t_parent(req: &LaunchRequest, s: &ChildStats) -> u64 {
        req.workload * s.t_warp()
    }
}

impl LaunchDecision for Spawn {
    fn name(&self) -> &'static str {
        "spawn"
    }
    fn decide(&mut self, req: &LaunchRequest, s: &ChildStats) -> Decision {
        if s.t_cta() == 0 && (!self.reading.empty_queue_only || s.n == 0) {
            return Decision::Launch;
        }
        if self.t_child(req, s) <= Self::t_parent(req, s) && s.n + req.ctas <= self.max_queue_size {
            Decision::Launch
        } else {
            Decision::Inline
        }
    }
}

/// Offline-Search: the static threshold with the fewest cycles, found by running
/// every candidate (`run` returns a run's cycles). Ties keep the smaller threshold.
pub fn offline_search(thresholds: &[u64], mut run: impl FnMut(u64) -> u64) -> Option<(u64, u64)> {
    let mut best: Option<(u64, u64)> = None;
    for &th in thresholds {
        let c = run(th);
        if best.map_or(true, |(_, bc)| c < bc) {
            best = Some((th, c));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn(reading: SpawnReading) -> Spawn {
        Spawn {
            max_queue_size: 65_536,
            reading,
        }
    }

    fn req(ctas: u64, workload: u64, t_overhead: u64) -> LaunchRequest {
        LaunchRequest {
            ctas,
            workload,
            t_overhead,
        }
    }

    /// A monitor with t_cta = 1000, n_con = 4, t_warp = 100, n = 0 after one window.
    fn warm() -> ChildStats {
        let mut s = ChildStats::new(1024);
        for _ in 0..4 {
            s.cta_start(0);
        }
        s.warp_finish(10, 100);
        s.advance(1024);
        for _ in 0..4 {
            s.cta_finish(1024, 1000);
        }
        assert_eq!((s.t_cta(), s.n_con(), s.t_warp(), s.n), (1000, 4, 100, 0));
        s
    }

    /// Events reported out of order do not move the clock back.
    #[test]
    fn late_events_count_at_the_last_cycle() {
        let mut s = ChildStats::new(1024);
        s.cta_start(100);
        s.cta_finish(50, 10);
        s.advance(2048);
        assert_eq!((s.n_con(), s.t_cta()), (0, 10));
    }

    #[test]
    fn no_history_launches() {
        let s = ChildStats::new(1024);
        let mut p = spawn(SpawnReading::default());
        assert_eq!(p.decide(&req(1_000_000, 0, 75_282), &s), Decision::Launch);
    }

    /// The prose reading: blind only into an empty queue; with children queued
    /// and no history the parent keeps the work.
    #[test]
    fn no_history_empty_queue_reading() {
        let mut p = spawn(SpawnReading {
            empty_queue_only: true,
            ..SpawnReading::default()
        });
        let mut s = ChildStats::new(1024);
        assert_eq!(p.decide(&req(4, 500, 21_931), &s), Decision::Launch);
        s.admit(0, 4);
        assert_eq!(p.decide(&req(4, 500, 21_931), &s), Decision::Inline);
        // With history it decides as Algorithm 1.
        let w = warm();
        assert_eq!(p.decide(&req(4, 230, 21_931), &w), Decision::Launch);
        assert_eq!(p.decide(&req(4, 229, 21_931), &w), Decision::Inline);
    }

    #[test]
    fn full_queue_inlines() {
        let mut s = warm();
        s.admit(1024, 65_535);
        let mut p = spawn(SpawnReading::default());
        // A huge parent workload makes the child look cheap, but n + x > capacity.
        let r = req(2, u64::MAX / 1_000_000, 0);
        assert!(p.t_child(&r, &s) <= Spawn::t_parent(&r, &s));
        assert_eq!(p.decide(&r, &s), Decision::Inline);
        assert_eq!(
            p.decide(&req(1, u64::MAX / 1_000_000, 0), &s),
            Decision::Launch
        );
    }

    #[test]
    fn boundary_t_child_equal_t_parent_launches() {
        let s = warm();
        let mut p = spawn(SpawnReading::default());
        // t_child = 21_931 + (4 + 0) * 1000 / 4 = 22_931; t_parent = workload * 100.
        let at = req(4, 0, 21_931);
        assert_eq!(p.t_child(&at, &s), 22_931);
        // 22_931 is not a multiple of 100: shift the overhead to make it one.
        let eq = req(4, 230, 22_000);
        assert_eq!(p.t_child(&eq, &s), 23_000);
        assert_eq!(Spawn::t_parent(&eq, &s), 23_000);
        assert_eq!(p.decide(&eq, &s), Decision::Launch);
        assert_eq!(p.decide(&req(4, 229, 22_000), &s), Decision::Inline);
        assert_eq!(p.decide(&req(4, 231, 22_000), &s), Decision::Launch);
    }

    #[test]
    fn n_con_is_window_sum_shifted() {
        let mut s = ChildStats::new(1024);
        // 3 CTAs run the whole window, a 4th half of it: (3*1024 + 512) >> 10 = 3.
        for _ in 0..3 {
            s.cta_start(0);
        }
        s.cta_start(512);
        assert_eq!(s.n_con(), 0, "no window closed yet");
        s.advance(1024);
        assert_eq!(s.n_con(), 3);
        // Next window: 4 CTAs throughout -> 4, available after the window ends.
        s.advance(2047);
        assert_eq!(s.n_con(), 3);
        s.advance(2048);
        assert_eq!(s.n_con(), 4);
        // Empty windows skipped at once: running 4 through two windows.
        s.advance(4096);
        assert_eq!(s.n_con(), 4);
    }

    #[test]
    fn n_con_zero_clamps_to_one() {
        let mut s = ChildStats::new(1024);
        s.cta_start(0);
        s.cta_finish(10, 10);
        s.advance(1024);
        assert_eq!((s.n_con(), s.n_con_kept()), (0, 0));
        // No window ever had a child running: both readings divide by 1.
        for clamp_n_con in [false, true] {
            let p = spawn(SpawnReading {
                clamp_n_con,
                ..SpawnReading::default()
            });
            assert_eq!(p.t_child(&req(2, 0, 5), &s), 5 + 2 * 10);
        }
    }

    /// A window without running child CTAs: the default keeps the last non-zero
    /// `n_con` (2), session 6's reading divides by 1, and the decision flips.
    #[test]
    fn n_con_zero_window_keeps_last_nonzero() {
        let mut s = ChildStats::new(1024);
        // Window 0: two child CTAs run throughout -> n_con = 2.
        s.cta_start(0);
        s.cta_start(0);
        s.advance(1024);
        assert_eq!(s.n_con(), 2);
        // Both finish at 1024 after 1024 cycles (t_cta = 1024); their warps
        // count in window 1, which closes at 2048 with nothing running.
        for _ in 0..2 {
            s.cta_finish(1024, 1024);
            s.warp_finish(1024, 1024);
        }
        s.advance(2048);
        assert_eq!((s.n_con(), s.n_con_kept()), (0, 2));
        assert_eq!((s.t_cta(), s.t_warp(), s.n), (1024, 1024, 0));
        // x = 2 CTAs, workload 2, overhead 100: t_parent = 2 * 1024 = 2048.
        let r = req(2, 2, 100);
        assert_eq!(Spawn::t_parent(&r, &s), 2048);
        let mut keep = spawn(SpawnReading::default());
        assert_eq!(keep.t_child(&r, &s), 100 + 2 * 1024 / 2);
        assert_eq!(keep.decide(&r, &s), Decision::Launch);
        let mut clamp = spawn(SpawnReading {
            clamp_n_con: true,
            ..SpawnReading::default()
        });
        assert_eq!(clamp.t_child(&r, &s), 100 + 2 * 1024);
        assert_eq!(clamp.decide(&r, &s), Decision::Inline);
        // A later window with one CTA running replaces the kept value.
        s.cta_start(2048);
        s.advance(3072);
        assert_eq!((s.n_con(), s.n_con_kept()), (1, 1));
    }

    /// `t_overhead` per Table 2.2 ("x is number of child kernels launched per
    /// warp"): the warp's launches so far plus this one, not every requesting
    /// lane; SPAWN's form 1721·x + 20210.
    #[test]
    fn overhead_counts_launched_lanes() {
        let cost = |x: u64| 1721 * x + 20_210;
        let d = SpawnReading::default();
        assert_eq!(d.overhead(32, 0, cost), 21_931);
        assert_eq!(d.overhead(32, 5, cost), 1721 * 6 + 20_210);
        assert_eq!(d.overhead(32, 31, cost), 75_282);
        let s6 = SpawnReading {
            overhead_all_requests: true,
            ..SpawnReading::default()
        };
        assert_eq!(s6.overhead(32, 0, cost), 75_282);
        assert_eq!(s6.overhead(1, 0, cost), 21_931);
        // The first launching lane of a full requesting warp, on warm() (t_cta
        // 1000, n_con 4, t_warp 100) with 4 CTAs and workload 230 (t_parent
        // 23,000): 21,931 + 1000 = 22,931 launches; 75,282 + 1000 does not.
        let w = warm();
        let mut p = spawn(d);
        assert_eq!(
            p.decide(&req(4, 230, d.overhead(32, 0, cost)), &w),
            Decision::Launch
        );
        assert_eq!(
            p.decide(&req(4, 230, s6.overhead(32, 0, cost)), &w),
            Decision::Inline
        );
    }

    /// `-push`: CTAs count in `n` from the cycle they enter the CCQS.
    #[test]
    fn n_counts_from_push() {
        let mut s = ChildStats::new(1024);
        s.admit(0, 3);
        s.enter_at(21_931 + 283, 2);
        s.advance(22_213);
        assert_eq!(s.n, 3);
        s.advance(22_214);
        assert_eq!(s.n, 5);
        s.enter_at(30_000, 0);
        s.advance(40_000);
        assert_eq!(s.n, 5);
    }

    #[test]
    fn reading_flags_round_trip() {
        for f in [
            "",
            "-q",
            "-req",
            "-clamp",
            "-push",
            "-req-clamp",
            "-q-req-clamp-push",
        ] {
            assert_eq!(SpawnReading::parse(f).unwrap().flags(), f);
        }
        assert_eq!(SpawnReading::parse("-clamp-req"), None);
        assert_eq!(SpawnReading::parse("-x"), None);
    }

    #[test]
    fn t_warp_keeps_old_value_without_finished_warps() {
        let mut s = ChildStats::new(1024);
        s.warp_finish(5, 300);
        s.warp_finish(6, 100);
        s.advance(1024);
        assert_eq!(s.t_warp(), 200);
        s.advance(3000);
        assert_eq!(s.t_warp(), 200);
    }

    #[test]
    fn threshold_and_always() {
        let s = ChildStats::new(1024);
        let mut t = Threshold(128);
        assert_eq!(t.decide(&req(1, 128, 0), &s), Decision::Inline);
        assert_eq!(t.decide(&req(1, 129, 0), &s), Decision::Launch);
        assert_eq!(AlwaysLaunch.decide(&req(1, 0, 0), &s), Decision::Launch);
    }

    #[test]
    fn offline_search_picks_fastest_threshold() {
        let cycles = |th: u64| (th as i64 - 64).unsigned_abs() * 10 + 1000;
        assert_eq!(offline_search(&[16, 32, 64, 128], cycles), Some((64, 1000)));
        assert_eq!(offline_search(&[], cycles), None);
        // Ties keep the first (smaller) threshold.
        assert_eq!(offline_search(&[32, 96], cycles), Some((32, 1320)));
    }
}
