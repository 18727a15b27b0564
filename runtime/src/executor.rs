//! Executor (the "executor" half of the inspector/executor paradigm, §4.4.4, and
//! the per-core IW sequences of §5.5.4): runs a [`Plan`] either natively on P
//! worker threads or sequentially in trace mode.
//!
//! A plan lists the units (contiguous iteration ranges `[lo, hi)` of the original
//! loop), for each step (scheduling slot or IW step) the units each core runs in
//! order, the cross-core waits of every unit (dependence synchronisation), and a
//! global sequence `seq` that is a topological order consistent with every core's
//! order. Natively, worker `c` runs its units step by step, waiting before a unit
//! until all its `waits` are done; with `barrier`, all workers also meet after
//! every step. In trace mode the units run on the calling thread in `seq` order and
//! the virtual core is set to the unit's core before each one, so recorded
//! accesses are tagged with the core that would have run them.
//!
//! Native workers are persistent: the calling thread is worker 0 and a pool
//! of P-1 threads ([`crate::pool`]: spin briefly between regions, then park),
//! created on first use, takes workers 1..P of every region, so a region call
//! costs a store to a shared counter (a wake-up after a long gap), not P-1
//! thread creations, and no
//! more threads than P are runnable. One region runs on a pool at a time; a
//! region started from inside a running body (nested parallelism) runs
//! sequentially on that worker, as OpenMP does by default.
//!
//! Invariants checked by [`Plan::validate`]: every unit appears exactly once, waits
//! point to units on other cores that come earlier in `seq` (so waiting cannot
//! deadlock), and `seq` lists each core's units in that core's order.

use crate::error::invalid;
use crate::{Result, RuntimeError};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;

/// An executable schedule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Iteration range `[lo, hi)` of each unit.
    pub units: Vec<(i64, i64)>,
    /// `steps[s][core]` = units of `core` in step `s`, in order.
    pub steps: Vec<Vec<Vec<u32>>>,
    /// Cross-core units each unit waits for.
    pub waits: Vec<Vec<u32>>,
    /// Global order (used by trace mode and to prove the waits deadlock-free).
    pub seq: Vec<u32>,
    /// Whether all cores synchronise after every step.
    pub barrier: bool,
}

impl Plan {
    /// Number of cores.
    pub fn cores(&self) -> usize {
        self.steps.first().map(|s| s.len()).unwrap_or(0)
    }

    /// `core_of()[u]` = the core running unit `u`.
    pub fn core_of(&self) -> Vec<u32> {
        let mut c = vec![u32::MAX; self.units.len()];
        for step in &self.steps {
            for (core, list) in step.iter().enumerate() {
                for &u in list {
                    if let Some(x) = c.get_mut(u as usize) {
                        *x = core as u32;
                    }
                }
            }
        }
        c
    }

    /// Total iterations covered by the units.
    pub fn iterations(&self) -> i64 {
        self.units.iter().map(|(a, b)| b - a).sum()
    }

    /// Loop permutation inside iteration windows (dissertation §5.5.5,
    /// Fig. 5.4(e)): every core's list of IBs in a step is replaced by single
    /// iterations taken round-robin over those IBs (iteration `t` of each IB,
    /// then `t+1`, ...), so the first accesses of all IBs of a window (the
    /// misses) are issued back to back. Order inside each IB is kept. Only
    /// legal when IBs of a window are independent, so a plan with any wait is
    /// returned unchanged (`None`), as is one with more than `max_units`
    /// units after permutation.
    ///
    /// `granule` iterations run together (a sub-range `[a+t·g, a+(t+1)·g)` of
    /// each IB in turn): with `g` = the iterations sharing a cache line (the
    /// §5.5.3 line rule), every granule of an IB starts one new line per
    /// reference, so the misses of the window still come back to back while
    /// the body runs as ranges rather than one call per iteration.
    pub fn permuted_windows(&self, max_units: usize, granule: i64) -> Option<Plan> {
        let gran = granule.max(1);
        if self.waits.iter().any(|w| !w.is_empty()) {
            return None;
        }
        let total: i64 = self
            .units
            .iter()
            .map(|(a, b)| ((b - a).max(0) + gran - 1) / gran)
            .sum();
        if total as usize > max_units {
            return None;
        }
        let mut units: Vec<(i64, i64)> = Vec::with_capacity(total as usize);
        let mut steps = Vec::with_capacity(self.steps.len());
        // New ids of each old unit's group, to rebuild `seq` in the old order.
        let mut group_of = vec![usize::MAX; self.units.len()];
        let mut groups: Vec<Vec<u32>> = Vec::new();
        for step in &self.steps {
            let mut nstep = Vec::with_capacity(step.len());
            for list in step {
                let g = groups.len();
                let mut ids = Vec::new();
                let longest = list
                    .iter()
                    .map(|&u| self.units[u as usize].1 - self.units[u as usize].0)
                    .max()
                    .unwrap_or(0);
                let mut t = 0;
                while t < longest {
                    for &u in list {
                        let (a, b) = self.units[u as usize];
                        if a + t < b {
                            ids.push(units.len() as u32);
                            units.push((a + t, (a + t + gran).min(b)));
                        }
                    }
                    t += gran;
                }
                for &u in list {
                    group_of[u as usize] = g;
                }
                nstep.push(ids.clone());
                groups.push(ids);
            }
            steps.push(nstep);
        }
        let mut seq = Vec::with_capacity(units.len());
        let mut emitted = vec![false; groups.len()];
        for &u in &self.seq {
            let g = group_of[u as usize];
            if g != usize::MAX && !emitted[g] {
                emitted[g] = true;
                seq.extend_from_slice(&groups[g]);
            }
        }
        let n = units.len();
        Some(Plan {
            units,
            steps,
            waits: vec![Vec::new(); n],
            seq,
            barrier: self.barrier,
        })
    }

    /// Checks the invariants listed in the module documentation.
    pub fn validate(&self) -> Result<()> {
        let n = self.units.len();
        let p = self.cores();
        if self.steps.iter().any(|s| s.len() != p) {
            return Err(invalid("plan steps have different core counts"));
        }
        if self.waits.len() != n || self.seq.len() != n {
            return Err(invalid("plan waits/seq do not cover every unit"));
        }
        for &(a, b) in &self.units {
            if a > b {
                return Err(invalid(format!("unit range [{a}, {b}) is reversed")));
            }
        }
        let core = self.core_of();
        let mut count = vec![0u32; n];
        for step in &self.steps {
            for list in step {
                for &u in list {
                    *count
                        .get_mut(u as usize)
                        .ok_or_else(|| invalid(format!("unit {u} out of range")))? += 1;
                }
            }
        }
        if count.iter().any(|&c| c != 1) {
            return Err(invalid("a unit is scheduled zero or several times"));
        }
        let mut seq_pos = vec![u32::MAX; n];
        for (i, &u) in self.seq.iter().enumerate() {
            let s = seq_pos
                .get_mut(u as usize)
                .ok_or_else(|| invalid("seq names a unit out of range"))?;
            if *s != u32::MAX {
                return Err(invalid("seq repeats a unit"));
            }
            *s = i as u32;
        }
        let mut last = vec![None::<u32>; p];
        for step in &self.steps {
            for (c, list) in step.iter().enumerate() {
                for &u in list {
                    if let Some(prev) = last[c] {
                        if seq_pos[prev as usize] > seq_pos[u as usize] {
                            return Err(invalid("seq disagrees with a core's order"));
                        }
                    }
                    last[c] = Some(u);
                }
            }
        }
        for (u, ws) in self.waits.iter().enumerate() {
            for &v in ws {
                if v as usize >= n
                    || seq_pos[v as usize] >= seq_pos[u]
                    || core[v as usize] == core[u]
                {
                    return Err(invalid(format!(
                        "wait {v} -> {u} could deadlock or is redundant"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Static contiguous chunks: core `c` of `p` runs one unit covering its share
    /// of `[lo, hi)` (the Default schedule).
    pub fn static_chunks(lo: i64, hi: i64, p: usize) -> Plan {
        let n = (hi - lo).max(0) as i128;
        let p = p.max(1);
        let units: Vec<(i64, i64)> = (0..p)
            .map(|c| {
                let a = lo as i128 + n * c as i128 / p as i128;
                let b = lo as i128 + n * (c as i128 + 1) / p as i128;
                (a as i64, b as i64)
            })
            .collect();
        Plan {
            steps: vec![(0..p as u32).map(|c| vec![c]).collect()],
            waits: vec![Vec::new(); p],
            seq: (0..p as u32).collect(),
            units,
            barrier: false,
        }
    }

    /// Each core's chunk `[chunk[c], chunk[c + 1])` rotated to start at
    /// `starts[c]` (clamped into the chunk): the core runs `[starts[c],
    /// chunk[c + 1])`, then `[chunk[c], starts[c])`; empty parts are left
    /// out. No waits, no barrier: only for loops without cross-iteration
    /// dependences (a rotation reorders iterations within a core).
    pub fn rotated_chunks(chunk: &[i64], starts: &[i64]) -> Plan {
        let p = chunk.len().saturating_sub(1);
        let mut units = Vec::new();
        let mut step = Vec::with_capacity(p);
        for c in 0..p {
            let (a, b) = (chunk[c], chunk[c + 1].max(chunk[c]));
            let s = starts.get(c).copied().unwrap_or(a).clamp(a, b);
            let mut mine = Vec::new();
            for (lo, hi) in [(s, b), (a, s)] {
                if lo < hi {
                    mine.push(units.len() as u32);
                    units.push((lo, hi));
                }
            }
            step.push(mine);
        }
        Plan {
            seq: (0..units.len() as u32).collect(),
            waits: vec![Vec::new(); units.len()],
            steps: vec![step],
            units,
            barrier: false,
        }
    }
}

/// What the executor runs for a unit: `body(lo, hi)`.
pub type BodyRef<'a> = &'a (dyn Fn(i64, i64) + Sync);

fn panic_msg(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| e.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// The persistent worker pool for one worker count.
type Workers = crate::pool::Pool;

/// The pool of `p` workers (created on first use; `None` if the threads
/// cannot be created, then regions fall back to scoped threads).
fn workers(p: usize) -> Option<std::sync::Arc<Workers>> {
    use std::sync::{Arc, Mutex, OnceLock};
    static POOLS: OnceLock<Mutex<Vec<Arc<Workers>>>> = OnceLock::new();
    let mut g = POOLS
        .get_or_init(|| Mutex::new(Vec::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    // A fork()ed child inherits the list but not the threads.
    g.retain(|w| w.is_own());
    if let Some(w) = g.iter().find(|w| w.threads() == p) {
        return Some(w.clone());
    }
    let w = Arc::new(crate::pool::Pool::new(p)?);
    g.push(w.clone());
    Some(w)
}

/// Starts the pool [`on_workers`] uses for `p` workers, if not yet running
/// (a no-op for one worker).
pub fn start_workers(p: usize) {
    if p > 1 {
        let _ = workers(p - 1);
    }
}

thread_local! {
    /// Set while this thread runs a region as worker 0.
    static IN_REGION: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether [`on_workers`] would run `p` workers concurrently: `p > 1` and
/// the caller is not itself inside a running region.
pub fn runs_parallel(p: usize) -> bool {
    p > 1 && !nested()
}

/// Whether the calling thread is inside a running region (a worker, or the
/// caller while it runs its share).
pub fn nested() -> bool {
    crate::pool::is_worker() || IN_REGION.with(|f| f.get())
}

/// Runs `work(c)` for every worker `c` in `0..p` at once on the native
/// workers: the caller is worker 0 and a persistent pool of P-1 threads takes
/// the others, so no more threads than cores are runnable. Sequential (in
/// worker order, on the caller) when `p <= 1` or when called from inside a
/// running region (nested regions). `work` must not panic (callers catch).
pub fn on_workers(p: usize, work: &(dyn Fn(usize) + Sync)) {
    if !runs_parallel(p) {
        (0..p).for_each(work);
        return;
    }
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            IN_REGION.with(|f| f.set(false));
        }
    }
    IN_REGION.with(|f| f.set(true));
    let _reset = Reset;
    match workers(p - 1) {
        Some(w) => w.run(work),
        None => std::thread::scope(|s| {
            for c in 0..p {
                s.spawn(move || work(c));
            }
        }),
    }
}

/// Runs `plan` on `plan.cores()` native workers (module docs, [`on_workers`]).
pub fn execute_native(plan: &Plan, body: BodyRef<'_>) -> Result<()> {
    if !runs_parallel(plan.cores()) {
        // Sequential, untimed (no clock reads on the per-call path).
        return run_in_order(plan, body, None);
    }
    execute_native_timed(plan, body).map(|_| ())
}

/// [`execute_native`], returning the workers' busy time: the sum over
/// workers of the time from starting their part to finishing it, in ns
/// (dependence and barrier waits included, the pool's wake-up latency not:
/// an estimate of the work that grain control compares with a sequential run).
pub fn execute_native_timed(plan: &Plan, body: BodyRef<'_>) -> Result<u64> {
    let p = plan.cores();
    if !runs_parallel(p) {
        // One worker, or a region started inside a running body: sequential.
        let t = std::time::Instant::now();
        execute_sequential(plan, body, &mut |_| {})?;
        return Ok(t.elapsed().as_nanos() as u64);
    }
    let done: Vec<AtomicBool> = (0..plan.units.len())
        .map(|_| AtomicBool::new(false))
        .collect();
    let abort = AtomicBool::new(false);
    let barrier = Barrier::new(p);
    let err: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);
    let busy = std::sync::atomic::AtomicU64::new(0);
    on_workers(p, &|c| {
        let t = std::time::Instant::now();
        run_core(plan, body, c, &done, &abort, &barrier, &err);
        busy.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    });
    match err.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(m) => Err(RuntimeError::Panicked(m)),
        None => Ok(busy.into_inner()),
    }
}

/// Worker `c`'s part of `plan`: its units step by step, waiting for their
/// cross-core dependences, meeting the others after each step with `barrier`.
fn run_core(
    plan: &Plan,
    body: BodyRef<'_>,
    c: usize,
    done: &[AtomicBool],
    abort: &AtomicBool,
    barrier: &Barrier,
    err: &std::sync::Mutex<Option<String>>,
) {
    for step in &plan.steps {
        for &u in &step[c] {
            if abort.load(Ordering::Relaxed) {
                break;
            }
            for &w in &plan.waits[u as usize] {
                let mut spins = 0u32;
                while !done[w as usize].load(Ordering::Acquire) {
                    if abort.load(Ordering::Relaxed) {
                        break;
                    }
                    spins += 1;
                    if spins < 64 {
                        std::hint::spin_loop();
                    } else {
                        std::thread::yield_now();
                    }
                }
            }
            if abort.load(Ordering::Relaxed) {
                break;
            }
            let (lo, hi) = plan.units[u as usize];
            if let Err(e) = catch_unwind(AssertUnwindSafe(|| body(lo, hi))) {
                abort.store(true, Ordering::Relaxed);
                let mut g = err.lock().unwrap_or_else(|p| p.into_inner());
                g.get_or_insert(panic_msg(e));
                break;
            }
            done[u as usize].store(true, Ordering::Release);
        }
        if plan.barrier {
            barrier.wait();
        }
    }
}

/// Runs `plan` on the calling thread in `seq` order, calling `set_core(c)` before
/// each unit of core `c` (trace mode uses it to tag accesses).
pub fn execute_sequential(
    plan: &Plan,
    body: BodyRef<'_>,
    set_core: &mut dyn FnMut(u32),
) -> Result<()> {
    run_in_order(plan, body, Some(set_core))
}

/// The units of `plan` in sequential order on the calling thread, telling
/// `set_core` (when given) each unit's core first; without it no unit-to-core
/// table is built.
fn run_in_order(
    plan: &Plan,
    body: BodyRef<'_>,
    mut set_core: Option<&mut dyn FnMut(u32)>,
) -> Result<()> {
    let core = set_core.as_ref().map(|_| plan.core_of());
    for &u in &plan.seq {
        if let (Some(f), Some(c)) = (set_core.as_mut(), core.as_ref()) {
            f(c[u as usize]);
        }
        let (lo, hi) = plan.units[u as usize];
        catch_unwind(AssertUnwindSafe(|| body(lo, hi)))
            .map_err(|e| RuntimeError::Panicked(panic_msg(e)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicI64;

    #[test]
    fn rotated_chunks_by_hand() {
        // Two cores over [0, 10) and [10, 16): core 0 starts at 4, core 1
        // at its chunk's start (no second part), a start past the end is
        // clamped (the chunk whole, from its start).
        let p = Plan::rotated_chunks(&[0, 10, 16], &[4, 10]);
        p.validate().unwrap();
        assert_eq!(p.units, vec![(4, 10), (0, 4), (10, 16)]);
        assert_eq!(p.steps, vec![vec![vec![0, 1], vec![2]]]);
        let p = Plan::rotated_chunks(&[0, 10, 16], &[0, 99]);
        assert_eq!(p.units, vec![(0, 10), (10, 16)]);
        let sum = AtomicI64::new(0);
        execute_native(&Plan::rotated_chunks(&[3, 8, 13], &[6, 12]), &|a, b| {
            for i in a..b {
                sum.fetch_add(i, Ordering::Relaxed);
            }
        })
        .unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), (3..13).sum::<i64>());
    }

    #[test]
    fn static_chunks_cover_range() {
        let p = Plan::static_chunks(3, 13, 4);
        p.validate().unwrap();
        assert_eq!(p.units, vec![(3, 5), (5, 8), (8, 10), (10, 13)]);
        let sum = AtomicI64::new(0);
        execute_native(&p, &|a, b| {
            for i in a..b {
                sum.fetch_add(i, Ordering::Relaxed);
            }
        })
        .unwrap();
        assert_eq!(sum.load(Ordering::Relaxed), (3..13).sum::<i64>());
    }

    #[test]
    fn permuted_windows_interleave_ibs() {
        // Two cores, one step: core 0 runs IBs [0,3) and [6,8), core 1 runs [3,6).
        let p = Plan {
            units: vec![(0, 3), (3, 6), (6, 8)],
            steps: vec![vec![vec![0, 2], vec![1]]],
            waits: vec![vec![], vec![], vec![]],
            seq: vec![0, 1, 2],
            barrier: false,
        };
        let q = p.permuted_windows(100, 1).unwrap();
        q.validate().unwrap();
        let core0: Vec<(i64, i64)> = q.steps[0][0].iter().map(|&u| q.units[u as usize]).collect();
        assert_eq!(core0, vec![(0, 1), (6, 7), (1, 2), (7, 8), (2, 3)]);
        let core1: Vec<(i64, i64)> = q.steps[0][1].iter().map(|&u| q.units[u as usize]).collect();
        assert_eq!(core1, vec![(3, 4), (4, 5), (5, 6)]);
        assert!(p.permuted_windows(7, 1).is_none());
        // Granule 2: sub-ranges of two iterations, still interleaved.
        let g = p.permuted_windows(100, 2).unwrap();
        g.validate().unwrap();
        let core0: Vec<(i64, i64)> = g.steps[0][0].iter().map(|&u| g.units[u as usize]).collect();
        assert_eq!(core0, vec![(0, 2), (6, 8), (2, 3)]);
        assert_eq!(g.iterations(), 8);
        let mut w = p.clone();
        w.waits[2] = vec![1];
        assert!(w.permuted_windows(100, 1).is_none());
    }

    #[test]
    fn panics_become_errors() {
        let p = Plan::static_chunks(0, 8, 2);
        let r = execute_native(&p, &|a, _| {
            if a == 0 {
                panic!("boom")
            }
        });
        assert!(matches!(r, Err(RuntimeError::Panicked(m)) if m == "boom"));
    }

    #[test]
    fn barrier_orders_steps_and_waits_are_honoured() {
        use std::sync::Mutex;
        // 3 cores, 3 steps, core 2 idles in step 1; unit 4 (core 1) waits for unit 2 (core 2)
        let plan = Plan {
            units: (0..7).map(|i| (i, i + 1)).collect(),
            steps: vec![
                vec![vec![0], vec![1], vec![2]],
                vec![vec![3], vec![4], vec![]],
                vec![vec![5], vec![], vec![6]],
            ],
            waits: vec![vec![], vec![], vec![], vec![], vec![2], vec![], vec![]],
            seq: vec![0, 1, 2, 3, 4, 5, 6],
            barrier: true,
        };
        plan.validate().unwrap();
        for _ in 0..20 {
            let log = Mutex::new(Vec::new());
            execute_native(&plan, &|a, _| log.lock().unwrap().push(a)).unwrap();
            let log = log.into_inner().unwrap();
            let pos = |u: i64| log.iter().position(|&x| x == u).unwrap();
            assert_eq!(log.len(), 7);
            // every unit of step s finishes before any unit of step s+1 starts
            for a in [0, 1, 2] {
                for b in [3, 4, 5, 6] {
                    assert!(pos(a) < pos(b));
                }
            }
            for a in [3, 4] {
                for b in [5, 6] {
                    assert!(pos(a) < pos(b));
                }
            }
        }
        let mut bad = plan.clone();
        bad.waits[2] = vec![4]; // waits for a later unit: could deadlock
        assert!(bad.validate().is_err());
    }
}
