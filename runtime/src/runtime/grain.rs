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
}

impl Grain {
    /// Whether `iters` iterations should run on the calling thread: their
    /// estimated sequential work is under `min_ns`, not worth a parallel
    /// dispatch. Unknown sites run in parallel.
    fn serial(&self, iters: f64, min_ns: f64) -> bool {
        self.work_ns_per_iter.is_some_and(|w| w * iters < min_ns)
    }
}

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
        let work = match serial {
            true => {
                let t = Instant::now();
                execute_sequential(plan, body, &mut |_| {})?;
                t.elapsed().as_nanos() as u64
            }
            false => execute_native_timed(plan, body)?,
        };
        self.note_grain(site, work, iters);
        Ok(serial)
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
                let plan = Plan::static_chunks(lo, hi, self.cfg.cores);
                self.run_plan(&plan, body, site)?;
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
        self.note_grain(site, ns, hi - lo);
        Ok(ns)
    }
}
