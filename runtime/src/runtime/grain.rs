//! Grain control and grain hints: which region calls are too small to hand
//! to the worker pool, and the trip count below which compiled callers skip
//! the runtime altogether (a cost of the inspector/executor split, §4.4.1,
//! that the dissertation's large inputs never show).
//!
//! Grain control (native mode only): handing a region to the worker pool
//! and waiting for it costs microseconds, more than a whole small loop (the
//! stun benchmark calls regions of a few hundred nanoseconds millions of
//! times). Per region and per `weft_parallel_for` body the runtime keeps the
//! work per iteration of its last run (a sequential run's time, or the sum
//! of the workers' busy times of a parallel run, which leaves out the pool's
//! wake-up latency). A run goes to the calling thread alone, without
//! inspection or scheduling, when its estimated work is below
//! [`RuntimeConfig::min_parallel_ns`]; with one worker such a call still
//! skips inspection and scheduling (a schedule cannot pay for itself on so
//! little work). Either way gives the same results (parallel loops have independent
//! iterations; a plan with dependences runs in its sequential order, which
//! respects them). `RegionStats::serial_executions` counts such runs.
//!
//! Measured choice: the summed busy time of a parallel run includes the
//! cache-line traffic between cores, so a small loop whose data moves
//! between the workers (a stencil sweep of 12 µs reading what the other
//! worker wrote in the previous sweep) keeps an estimate above the threshold
//! and stays on the workers while it runs faster on one thread (jacobi2d
//! took 1.7x its serial build at the small size). So a site whose estimated
//! work is below [`COMPARE_BELOW`] thresholds also keeps the fastest wall
//! time per iteration of each placement; after its first run on the workers
//! its next call runs on the calling thread once, and from then on the
//! placement with the faster wall time wins.
//!
//! Grain hints: even a call that grain control keeps on the calling thread
//! costs the runtime entry, context selection and statistics (about 0.1-0.5
//! us), which doubles loops of a few hundred nanoseconds. So after each call
//! the compiled caller asks `weft_grain_hint` for the trip count below which
//! grain control would have run that call's site serially
//! (`ceil(min_parallel_ns / work_per_iteration)`, at most [`GRAIN_HINT_MAX`])
//! and keeps it in a per-site global; smaller trip counts then run the
//! outlined body inline without calling the runtime at all (the same
//! original-order run grain control would choose). The hint is 0 (every call
//! reaches the runtime) in trace mode, in nested regions and with the
//! threshold off, so traces are unchanged. Calls run inline by a hint are not
//! in the region statistics.
//!
//! First-call probe: a site grain control knows nothing about (its first
//! call) would go to the worker pool, which costs starting the pool and
//! waking it, tens of microseconds, even when the whole loop is a few
//! microseconds of work (a program of many small loops then runs several
//! times slower than its serial build). So a site's first native call runs a
//! prefix of its range on the calling thread in batches of 1, 2, 4, ...
//! iterations until [`RuntimeConfig::min_parallel_ns`]` / `[`PROBE_SHARE`]
//! has passed, and extrapolates: when the rest is estimated below
//! `min_parallel_ns` it finishes on the calling thread too, otherwise the
//! rest goes to the workers in static chunks. The probe costs at most a
//! quarter of the grain threshold of serial work; it applies only where
//! grain control does (native, threshold on, not nested, more than one
//! worker) and only to ranges whose iterations are independent (proven
//! parallel loops: any split is legal, and reductions combine per block of
//! the trip count, `passes::outline::ordered`, so results do not depend on
//! where the probe stopped).

use super::*;
use crate::executor::{execute_native, execute_native_timed, execute_sequential, BodyRef, Plan};
use crate::{Result, RuntimeError};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Grain hints never assume less work per iteration than this (a timer
/// reading of a tiny loop can be near zero), so a hint stays finite and a
/// larger call reaches the runtime again.
pub const GRAIN_HINT_MIN_NS_PER_ITER: f64 = 0.1;

/// Largest grain hint (iterations).
pub const GRAIN_HINT_MAX: i64 = 1 << 24;

/// A first call's probe runs for `min_parallel_ns / PROBE_SHARE` on the
/// calling thread (module docs, "First-call probe").
pub const PROBE_SHARE: u64 = 4;

thread_local! {
    /// Work per iteration (ns) of the last region call grain control timed
    /// on this thread, NaN when none (read by [`Runtime::take_grain_hint`]).
    static LAST_GRAIN: std::cell::Cell<f64> = const { std::cell::Cell::new(f64::NAN) };
}

/// What grain control knows of one site: the work per iteration of its last
/// run, in ns (a sequential run's time, or a parallel run's summed worker
/// busy time, which leaves out the pool's wake-up latency), over iterations.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Grain {
    pub(super) work_ns_per_iter: Option<f64>,
    /// Fastest wall time per iteration of a run on the calling thread.
    serial_wall: Option<f64>,
    /// Fastest wall time per iteration of a run on the workers (dispatch,
    /// wake-up and the cache-line traffic between cores included).
    parallel_wall: Option<f64>,
}

impl Grain {
    /// Whether `iters` iterations should run on the calling thread (module
    /// docs, "Grain control" and "Measured choice"). Unknown sites run in
    /// parallel.
    fn serial(&self, iters: f64, min_ns: f64) -> bool {
        let Some(w) = self.work_ns_per_iter else {
            return false;
        };
        if w * iters < min_ns {
            return true;
        }
        if w * iters >= COMPARE_BELOW * min_ns {
            return false;
        }
        match (self.serial_wall, self.parallel_wall) {
            (Some(s), Some(p)) => s <= p,
            // Measure the calling thread once before trusting the workers.
            (None, Some(_)) => true,
            _ => false,
        }
    }
}

/// Calls whose estimated work is below this many times the grain threshold
/// are placed by measured wall time (module docs, "Measured choice").
pub const COMPARE_BELOW: f64 = 16.0;

impl Runtime {
    /// Grain control (module docs): whether a native run of `iters`
    /// iterations at `site` should stay on the calling thread without
    /// inspection or scheduling. Never in trace mode, with the threshold off
    /// or when nested.
    pub(super) fn grain_serial(&self, site: (u8, u64), iters: i64) -> bool {
        let min_ns = self.cfg.min_parallel_ns as f64;
        self.grain_applies()
            && lock(&self.grains)
                .get(&site)
                .is_some_and(|g| g.serial(iters.max(1) as f64, min_ns))
    }

    /// Whether grain control decides anything for a call on this thread:
    /// native mode, the threshold on, not nested. With one worker it only
    /// decides whether a small call skips inspection and scheduling.
    pub(super) fn grain_applies(&self) -> bool {
        self.tracer.is_none() && self.cfg.min_parallel_ns > 0 && !crate::executor::nested()
    }

    /// Records a run's wall time at grain site `site` for the measured
    /// choice: `ns` for `iters` iterations on the calling thread (`serial`)
    /// or on the workers.
    pub(super) fn note_wall(&self, site: (u8, u64), serial: bool, ns: u64, iters: i64) {
        let per = ns.max(1) as f64 / iters.max(1) as f64;
        let mut g = lock(&self.grains);
        let e = g.entry(site).or_default();
        let slot = match serial {
            true => &mut e.serial_wall,
            false => &mut e.parallel_wall,
        };
        if slot.map_or(true, |x| per < x) {
            *slot = Some(per);
        }
    }

    /// Stores grain site `site`'s new estimate, `ns` over `iters` iterations,
    /// and leaves it for the caller's [`Runtime::take_grain_hint`].
    pub(super) fn note_grain(&self, site: (u8, u64), ns: u64, iters: i64) {
        let w = ns as f64 / iters.max(1) as f64;
        lock(&self.grains).entry(site).or_default().work_ns_per_iter = Some(w);
        if self.grain_applies() {
            LAST_GRAIN.with(|g| g.set(w));
        }
    }

    /// The grain hint of the region call that just returned on this thread
    /// (module docs, "Grain hints"): the trip count below which grain control
    /// would run that call's site on the calling thread, so the caller may do
    /// so without calling the runtime; 0 when grain control did not apply
    /// (trace mode, nested, threshold off) or no run was timed
    /// since the last hint. Consumes the estimate.
    pub fn take_grain_hint(&self) -> i64 {
        let w = LAST_GRAIN.with(|g| g.replace(f64::NAN));
        if w.is_nan() || !self.grain_applies() {
            return 0;
        }
        let min_ns = self.cfg.min_parallel_ns as f64;
        (min_ns / w.max(GRAIN_HINT_MIN_NS_PER_ITER))
            .ceil()
            .min(GRAIN_HINT_MAX as f64) as i64
    }

    /// Runs `plan`: in trace mode sequentially with virtual cores; natively
    /// on the workers, or on the calling thread when grain control (at
    /// `site`) says the work is too small to share. Returns whether it ran
    /// on the calling thread only (never in trace mode, whose sequential run
    /// stands for all virtual cores).
    pub(super) fn run_plan(
        &self,
        plan: &Plan,
        body: BodyRef<'_>,
        site: Option<(u8, u64)>,
    ) -> Result<bool> {
        if self.tracer.is_some() {
            return self
                .traced_phase(false, || {
                    let r = execute_sequential(plan, body, &mut |c| {
                        self.cur_core.store(c, Ordering::Relaxed)
                    });
                    self.cur_core.store(0, Ordering::Relaxed);
                    r
                })
                .map(|_| false);
        }
        let Some(site) = site.filter(|_| self.cfg.min_parallel_ns > 0) else {
            return execute_native(plan, body)
                .map(|_| !crate::executor::runs_parallel(plan.cores()));
        };
        if crate::executor::nested() {
            return execute_native(plan, body).map(|_| true);
        }
        let iters = plan.iterations().max(1);
        let serial = self.grain_serial(site, iters);
        let serial = serial || plan.cores() <= 1;
        let t = Instant::now();
        let work = match serial {
            true => {
                execute_sequential(plan, body, &mut |_| {})?;
                t.elapsed().as_nanos() as u64
            }
            false => execute_native_timed(plan, body)?,
        };
        self.note_wall(site, serial, t.elapsed().as_nanos() as u64, iters);
        self.note_grain(site, work, iters);
        Ok(serial)
    }

    /// The first-call probe (module docs) of a proven-parallel range at
    /// `site`, when grain control applies and knows nothing of the site:
    /// runs a prefix of `[lo, hi)` on the calling thread and returns the
    /// first iteration left for the workers, `hi` when the whole range ran
    /// here (then the site's grain estimate is this run), and the probe's
    /// time in ns. Returns `(lo, 0)` without running anything when the probe
    /// does not apply. `Err` if the body panicked.
    pub(super) fn probe_first_call(
        &self,
        site: (u8, u64),
        lo: i64,
        hi: i64,
        body: BodyRef<'_>,
    ) -> std::result::Result<(i64, u64), ()> {
        if hi - lo < 2
            || self.cfg.cores <= 1
            || !self.grain_applies()
            || lock(&self.grains)
                .get(&site)
                .is_some_and(|g| g.work_ns_per_iter.is_some())
        {
            return Ok((lo, 0));
        }
        let min_ns = self.cfg.min_parallel_ns;
        let box_ns = (min_ns / PROBE_SHARE).max(1);
        let t = Instant::now();
        let (mut next, mut batch) = (lo, 1i64);
        let run = |a: i64, b: i64| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(a, b))).map_err(|_| ())
        };
        let mut ns = 0u64;
        while next < hi && ns < box_ns {
            let end = next.saturating_add(batch).min(hi);
            run(next, end)?;
            next = end;
            batch = batch.saturating_mul(2);
            ns = t.elapsed().as_nanos() as u64;
        }
        if next < hi {
            let per = ns.max(1) as f64 / (next - lo) as f64;
            if per * ((hi - next) as f64) < min_ns as f64 {
                run(next, hi)?;
                next = hi;
                ns = t.elapsed().as_nanos() as u64;
            }
        }
        if next == hi {
            self.note_grain(site, ns, hi - lo);
        }
        Ok((next, ns))
    }

    /// Default schedule: static contiguous chunks over P workers.
    pub fn parallel_for(&self, lo: i64, hi: i64, body: BodyRef<'_>) -> Result<()> {
        self.parallel_for_at(None, lo, hi, body)
    }

    /// [`Runtime::parallel_for`] with grain control keyed by `site` (the C
    /// ABI passes the body's address): loops too small to share run on the
    /// calling thread.
    pub fn parallel_for_at(
        &self,
        site: Option<u64>,
        lo: i64,
        hi: i64,
        body: BodyRef<'_>,
    ) -> Result<()> {
        let n = trip_count(lo, hi)?;
        let t = Instant::now();
        match site.map(|s| (PFOR, s)) {
            Some(site) if self.grain_serial(site, n) => {
                // Too little work to share: on the calling thread.
                self.run_small(site, lo, hi, body)
                    .map_err(|_| RuntimeError::Panicked("parallel loop body panicked".into()))?;
            }
            site => {
                let from = match site {
                    Some(site) => {
                        self.probe_first_call(site, lo, hi, body)
                            .map_err(|_| {
                                RuntimeError::Panicked("parallel loop body panicked".into())
                            })?
                            .0
                    }
                    None => lo,
                };
                if from < hi {
                    let plan = Plan::static_chunks(from, hi, self.cfg.cores);
                    self.run_plan(&plan, body, site)?;
                }
            }
        }
        let mut g = lock(&self.pfor);
        g.0 += 1;
        g.1 += n as u64;
        g.2 += t.elapsed().as_nanos() as u64;
        Ok(())
    }

    /// Grain control's fast path: `body(lo, hi)`, the whole range in original
    /// order on the calling thread (no plan, no inspection), timed for the
    /// site's estimate and accounted as a serial execution of region `(kind, id)`.
    pub(super) fn execute_small(
        &self,
        kind: u8,
        id: u32,
        lo: i64,
        hi: i64,
        body: BodyRef<'_>,
    ) -> Result<()> {
        self.execute_inline(kind, id, lo, hi, false, body)
    }

    /// `body(lo, hi)` on the calling thread, timed into grain site `(kind,
    /// id)` and accounted as one serial execution whose iterations count as
    /// `scheduled` or not: grain control's fast path, and the one-worker run
    /// of a plan that is the whole range in order (the static schedule of
    /// one core, which [`Runtime::execute_region`] would account the same way).
    pub(super) fn execute_inline(
        &self,
        kind: u8,
        id: u32,
        lo: i64,
        hi: i64,
        scheduled: bool,
        body: BodyRef<'_>,
    ) -> Result<()> {
        let ns = self
            .run_small((kind, id as u64), lo, hi, body)
            .map_err(|_| RuntimeError::Panicked(format!("region {id}: the loop body panicked")))?;
        self.account(kind, id, (hi - lo).max(0) as u64, ns, scheduled, true);
        if kind != PFOR {
            self.note_reference(kind, id, hi - lo, ns);
        }
        Ok(())
    }

    /// `body(lo, hi)` on the calling thread, timed into grain site `site`'s
    /// estimate; the time in ns, or `Err` if the body panicked.
    pub(super) fn run_small(
        &self,
        site: (u8, u64),
        lo: i64,
        hi: i64,
        body: BodyRef<'_>,
    ) -> std::result::Result<u64, ()> {
        let t = Instant::now();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(lo, hi))).map_err(|_| ())?;
        let ns = t.elapsed().as_nanos() as u64;
        self.note_wall(site, true, ns, hi - lo);
        self.note_grain(site, ns, hi - lo);
        Ok(ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    fn runtime(min_parallel_ns: u64) -> Runtime {
        Runtime::new(RuntimeConfig {
            cores: 2,
            min_parallel_ns,
            ..RuntimeConfig::default()
        })
        .unwrap()
    }

    /// Runs `[0, n)` through the probe at a fresh site and returns where it
    /// stopped and how often each iteration ran.
    fn probe(rt: &Runtime, site: u64, n: i64) -> (i64, Vec<u64>) {
        let runs: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let body = |a: i64, b: i64| {
            for i in a..b {
                runs[i as usize].fetch_add(1, Ordering::Relaxed);
            }
        };
        let (from, _) = rt.probe_first_call((PFOR, site), 0, n, &body).unwrap();
        (
            from,
            runs.iter().map(|r| r.load(Ordering::Relaxed)).collect(),
        )
    }

    /// With a threshold far above the loop's work the probe runs the whole
    /// range on the calling thread, once per iteration, and leaves a grain
    /// estimate, so the site's next call is not probed again.
    #[test]
    fn a_small_first_call_runs_on_the_calling_thread() {
        let rt = runtime(10_000_000_000); // box of 2.5 s
        let (from, runs) = probe(&rt, 7, 1000);
        assert_eq!(from, 1000);
        assert!(runs.iter().all(|&r| r == 1));
        assert!(lock(&rt.grains)[&(PFOR, 7)].work_ns_per_iter.is_some());
        assert_eq!(probe(&rt, 7, 1000).0, 0, "a known site is not probed");
    }

    /// With a box of 1 ns the probe stops after its first batch (one
    /// iteration) and, the rest being estimated above the threshold, leaves
    /// it to the workers; through `parallel_for_at` every iteration still runs
    /// exactly once.
    #[test]
    fn a_large_first_call_leaves_the_rest_to_the_workers() {
        let rt = runtime(1);
        let (from, runs) = probe(&rt, 8, 1000);
        assert_eq!(from, 1);
        assert_eq!(runs[0], 1);
        assert!(runs[1..].iter().all(|&r| r == 0));
        let rt = runtime(1);
        let runs: Vec<AtomicU64> = (0..1000).map(|_| AtomicU64::new(0)).collect();
        let body = |a: i64, b: i64| {
            for i in a..b {
                runs[i as usize].fetch_add(1, Ordering::Relaxed);
            }
        };
        rt.parallel_for_at(Some(9), 0, 1000, &body).unwrap();
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    }

    /// The measured choice, hand-computed: threshold 20 µs, 100 iterations.
    #[test]
    fn measured_choice_between_placements() {
        let min = 20_000.0;
        let mut g = Grain::default();
        assert!(!g.serial(100.0, min), "unknown sites run in parallel");
        g.work_ns_per_iter = Some(100.0); // 10 µs of work: below the threshold
        assert!(g.serial(100.0, min));
        g.work_ns_per_iter = Some(300.0); // 30 µs: above, below 16 thresholds
        assert!(!g.serial(100.0, min), "no wall time yet: the workers");
        g.parallel_wall = Some(350.0);
        assert!(g.serial(100.0, min), "one run here to measure");
        g.serial_wall = Some(300.0);
        assert!(g.serial(100.0, min), "300 ns <= 350 ns per iteration");
        g.parallel_wall = Some(200.0);
        assert!(!g.serial(100.0, min), "the workers are faster");
        g.work_ns_per_iter = Some(4000.0); // 400 µs: parallel without asking
        g.parallel_wall = Some(5000.0);
        assert!(!g.serial(100.0, min));
    }

    /// The probe does not apply with one worker, with grain control off, or
    /// to a range of one iteration.
    #[test]
    fn the_probe_applies_only_where_grain_control_does() {
        let one = Runtime::new(RuntimeConfig {
            cores: 1,
            min_parallel_ns: 10_000_000_000,
            ..RuntimeConfig::default()
        })
        .unwrap();
        assert_eq!(probe(&one, 1, 100).0, 0);
        assert_eq!(probe(&runtime(0), 1, 100).0, 0);
        assert_eq!(probe(&runtime(10_000_000_000), 1, 1).0, 0);
    }
}
