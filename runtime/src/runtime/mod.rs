//! The runtime object behind the C ABI: configuration (cores, trace, stats,
//! machine), the per-region schedule cache, the inspector handle, the executor
//! entry points and the statistics (§4.4 inspector/executor, §4.5.1 coverage
//! ratio, §5.5 iteration blocks).
//!
//! Caching: a region's plan is built on its first execution (or after
//! [`Runtime::invalidate`], or when its bounds, unit size, scheme or core count
//! change) and reused by every later execution — the inspector runs once, the
//! executor many times, as in the timing loops of the dissertation's benchmarks.
//! Compiled regions pick their id with [`Runtime::select_context`]: one static
//! region owns [`CONTEXT_SLOTS`] ids, keyed by the live-in values of its call
//! (LRU beyond that), so a kernel run on several index arrays in turn
//! (Gauss-Seidel's colours) keeps one schedule per array. A region with a
//! single slab in all (one worker) runs without inspection.
//!
//! One module per concept: [`RuntimeConfig`] and the environment (`config`);
//! the inspector handle and its reports (`inspector`, `gather`); running
//! inspections per core (`inspection`); irregular regions, Algorithm 4
//! (`irregular`); affine nests, Algorithm 5 (`affine`); the context-keyed
//! schedule slots (`contexts`); schedule-reuse control (`reuse`); bounded inspection and payoff
//! control (`payoff`); the sampled dependence pre-check (`sample`); grain
//! control and grain hints (`grain`); trace mode (`tracing`); statistics
//! (`stats`). This module holds the [`Runtime`] itself, its set-up and the
//! schedule cache.
use crate::error::invalid;
use crate::executor::{BodyRef, Plan};
use crate::inspect::{BankTable, RecordPool};
use crate::machine::Machine;
use crate::trace::Tracer;
use crate::{Result, RuntimeError};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;

mod affine;
mod config;
mod contexts;
mod coverage_probe;
mod gather;
mod grain;
mod inspection;
mod inspector;
mod irregular;
mod payoff;
mod reuse;
mod sample;
mod stagger;
mod stats;
mod tracing;
mod warm;

pub use affine::{AFFINE_PLAN_COST_SHARE, DESC_CACHE_SLOTS, PERMUTE_MAX_UNITS};
pub use config::{
    LazyInspect, MissFilter, RuntimeConfig, DEFAULT_MIN_PARALLEL_NS, DEFAULT_REINSPECT_LIMIT,
    MAX_CORES,
};
pub use contexts::{CHURN_CONTEXTS, CONTEXT_SLOTS};
pub use coverage_probe::SAMPLE_SLABS_PER_CORE;
pub use gather::Gather;
pub use grain::{GRAIN_HINT_MAX, GRAIN_HINT_MIN_NS_PER_ITER};
pub use inspector::{InspectRef, Inspector};
pub use payoff::{
    PayoffMode, DEFAULT_INSPECT_BUDGET, INSPECT_BUDGET_ADDRS_PER_ITER, INSPECT_BUDGET_MIN_ADDRS,
    INSPECT_BUDGET_MIN_NS, PAYOFF_FAR_SLOWER, PAYOFF_SLOWER, PAYOFF_STRIKES,
};
pub use sample::{CHAIN_EXPECTED, MIN_COLLISIONS, PROBE_ITERS, SAMPLE_PREFIX};
pub use stagger::hashed_starts;
pub use stats::{alias_checks, count_alias_check, InspectorBreakdown, RegionStats};

use contexts::Contexts;
use grain::Grain;
use inspector::{core_ranges, Inspected, Layout};
use payoff::Payoff;
use reuse::Reuse;

struct Cached {
    key: (i64, i64, i64, u32, usize),
    plan: Arc<Plan>,
    scheduled: bool,
}

/// The runtime: configuration, machine, schedule cache, trace and statistics.
pub struct Runtime {
    cfg: RuntimeConfig,
    machine: OnceLock<std::result::Result<Arc<Machine>, String>>,
    /// The machine's bank lookup table, built at the first inspection (up
    /// to 2^16 mapper calls: more than a small region's whole inspection).
    bank_table: OnceLock<BankTable>,
    regions: Mutex<FastMap<(u8, u32), Cached>>,
    contexts: Mutex<FastMap<u32, Contexts>>,
    stats: Mutex<BTreeMap<(u8, u32), RegionStats>>,
    pfor: Mutex<(u64, u64, u64)>,
    grains: Mutex<FastMap<(u8, u64), Grain>>,
    /// Schedule reuse per region `(kind, id)` (survives invalidation).
    reuse: Mutex<FastMap<(u8, u32), Reuse>>,
    /// Reference times and fall-backs per region (`payoff`).
    payoff: Mutex<FastMap<(u8, u32), Payoff>>,
    tracer: Option<Mutex<Tracer>>,
    cur_core: AtomicU32,
    /// Trace mode: parallel phases (regions, inspections) under way; only the
    /// outermost one writes barriers.
    trace_depth: AtomicU32,
    /// Descriptor-driven affine plans: per nest, (key, plan), most recent last.
    affine_desc: Mutex<DescCache>,
    /// Context slots in use over all regions (changed under the `contexts`
    /// lock; read without it so that resets with nothing to drop are free).
    live_slots: AtomicUsize,
    /// Time [`Runtime::set_up`] took (`setup_ns` in the statistics), once it has run.
    setup_ns: OnceLock<u64>,
    /// Record buffers of irregular inspections, reused by the next ones.
    rec_pool: Arc<RecordPool>,
}

/// Per nest: (key, plan or `None` = the IBs conflict), most recent last.
/// `Err(())`: the descriptor exceeded its run budget (sequential fallback).
type DescCache = FastMap<u32, Vec<(Vec<i64>, DescEntry)>>;

/// Hash maps of the per-call paths (small integer keys; SipHash showed up in
/// the profile of programs that run millions of tiny regions).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;
type DescEntry = std::result::Result<Option<Arc<Plan>>, ()>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

const IRREGULAR: u8 = 0;
const AFFINE: u8 = 1;

/// The trip count of `[lo, hi)`: an error when `lo > hi` or when the count
/// does not fit an `i64` (`[-1, i64::MAX)`), before anything runs.
fn trip_count(lo: i64, hi: i64) -> Result<i64> {
    if lo > hi {
        return Err(invalid(format!("lo {lo} > hi {hi}")));
    }
    hi.checked_sub(lo).ok_or_else(|| {
        invalid(format!(
            "[{lo}, {hi}) has more than {} iterations",
            i64::MAX
        ))
    })
}

/// The statistics name of region kind `kind` (`"irregular"`, `"affine"`).
fn kind_name(kind: u8) -> &'static str {
    match kind {
        IRREGULAR => "irregular",
        _ => "affine",
    }
}
/// Grain-control sites of `weft_parallel_for` loops (keyed by body address).
const PFOR: u8 = 2;

impl Runtime {
    /// Creates a runtime; opens the trace file when `cfg.trace` is set.
    pub fn new(cfg: RuntimeConfig) -> Result<Runtime> {
        if cfg.cores == 0 {
            return Err(invalid("cores must be at least 1"));
        }
        let tracer = match &cfg.trace {
            Some(p) => Some(Mutex::new(Tracer::create(p, cfg.cores as u32)?)),
            None => None,
        };
        Ok(Runtime {
            cfg,
            machine: OnceLock::new(),
            bank_table: OnceLock::new(),
            regions: Mutex::new(FastMap::default()),
            contexts: Mutex::new(FastMap::default()),
            stats: Mutex::new(BTreeMap::new()),
            pfor: Mutex::new((0, 0, 0)),
            grains: Mutex::new(FastMap::default()),
            reuse: Mutex::new(FastMap::default()),
            payoff: Mutex::new(FastMap::default()),
            tracer,
            cur_core: AtomicU32::new(0),
            trace_depth: AtomicU32::new(0),
            affine_desc: Mutex::new(FastMap::default()),
            live_slots: AtomicUsize::new(0),
            setup_ns: OnceLock::new(),
            rec_pool: Arc::new(RecordPool::default()),
        })
    }

    /// Creates a runtime with an already loaded machine.
    pub fn with_machine(cfg: RuntimeConfig, machine: Machine) -> Result<Runtime> {
        let rt = Self::new(cfg)?;
        let _ = rt.machine.set(Ok(Arc::new(machine)));
        Ok(rt)
    }

    /// The configuration.
    pub fn config(&self) -> &RuntimeConfig {
        &self.cfg
    }

    /// The machine (loaded on first use).
    pub fn machine(&self) -> Result<Arc<Machine>> {
        self.machine
            .get_or_init(|| {
                Machine::load(&self.cfg.machine)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(RuntimeError::Machine)
    }

    /// The runtime's one-time set-up, done before the first plan is built
    /// and timed apart from it: loading the machine description and, natively
    /// with more than one worker, starting the worker threads. Its time is
    /// `setup_ns` in the statistics, so a region's `inspector_ns` counts only
    /// its own inspections (before, the first region to be inspected also
    /// paid for these, about 0.4 ms on equake).
    fn set_up(&self) -> Result<()> {
        self.setup_ns.get_or_init(|| {
            let t = Instant::now();
            // A machine that fails to load fails below (and on every later call).
            if self.machine().is_ok() && !self.tracing() {
                crate::executor::start_workers(self.cfg.cores);
            }
            t.elapsed().as_nanos() as u64
        });
        self.machine().map(|_| ())
    }

    /// Starts the one-time set-up ([`Runtime::set_up`]: the machine and,
    /// natively with more than one worker, the worker threads) now rather
    /// than at the first region that needs the workers. The C ABI calls it
    /// when the process's runtime is created, at the program's first
    /// runtime call: the new threads then start while the program runs its
    /// first loops (often serially: a first call's probe, small loops), so
    /// the first parallel region finds them running instead of paying for
    /// their start. Measured on correlation (small size, four parallel loops
    /// of 5-100 µs in a 0.14 ms kernel): see `docs/kernels.md`, session 8.
    pub fn start_early(&self) {
        if !self.tracing() && self.cfg.cores > 1 {
            let _ = self.set_up();
        }
    }

    /// Whether trace mode is on.
    pub fn tracing(&self) -> bool {
        self.tracer.is_some()
    }

    /// Drops the cached schedules of region/nest `id` (index arrays changed).
    pub fn invalidate(&self, id: u32) {
        let mut r = lock(&self.regions);
        r.remove(&(IRREGULAR, id));
        r.remove(&(AFFINE, id));
        lock(&self.affine_desc).remove(&id);
    }

    fn chunks(&self, lo: i64, hi: i64) -> Vec<i64> {
        let p = self.cfg.cores;
        let n = (hi - lo) as i128;
        (0..=p)
            .map(|c| (lo as i128 + n * c as i128 / p as i128) as i64)
            .collect()
    }

    fn execute_region(
        &self,
        kind: u8,
        id: u32,
        plan: &Plan,
        scheduled: bool,
        body: BodyRef<'_>,
    ) -> Result<u64> {
        let t = Instant::now();
        let serial = self.run_plan(plan, body, Some((kind, id as u64)))?;
        let ns = t.elapsed().as_nanos() as u64;
        self.account(kind, id, plan.iterations() as u64, ns, scheduled, serial);
        Ok(ns)
    }

    /// The plan cached for irregular region `id`, if any (for tests and tools).
    pub fn cached_irregular_plan(&self, id: u32) -> Option<Arc<Plan>> {
        lock(&self.regions)
            .get(&(IRREGULAR, id))
            .map(|c| c.plan.clone())
    }

    /// The plan cached for affine nest `id`, if any.
    /// On the descriptor path: the most recently used plan of the nest.
    pub fn cached_affine_plan(&self, id: u32) -> Option<Arc<Plan>> {
        lock(&self.regions)
            .get(&(AFFINE, id))
            .map(|c| c.plan.clone())
            .or_else(|| {
                lock(&self.affine_desc)
                    .get(&id)
                    .and_then(|v| v.iter().rev().find_map(|e| e.1.clone().ok().flatten()))
            })
    }
}

#[cfg(test)]
mod tests;
