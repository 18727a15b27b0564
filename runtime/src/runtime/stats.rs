//! Region statistics written to `WEFT_STATS`: [`RegionStats`] per region
//! or nest, the [`InspectorBreakdown`] of irregular inspections, the coverage
//! ratio (§4.5.1), and how inspections and executions are accounted (one path
//! for irregular regions and affine nests).

use super::*;
use crate::{Result, RuntimeError};
use serde::Serialize;

/// FNV-1a over the words of `maps`, in order ([`RegionStats::bank_maps_hash`]).
pub(super) fn bank_maps_hash(maps: &[crate::bankset::BankSet]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for w in maps.iter().flat_map(|m| m.words()) {
        for byte in w.to_le_bytes() {
            h = (h ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Run-time alias checks (loop versioning) that failed and passed, over the
/// whole run (`weft_alias_check`; written as `alias_checks`).
static ALIAS_CHECKS: [std::sync::atomic::AtomicU64; 2] = [
    std::sync::atomic::AtomicU64::new(0),
    std::sync::atomic::AtomicU64::new(0),
];

/// Counts one run-time alias check outcome.
pub fn count_alias_check(passed: bool) {
    ALIAS_CHECKS[usize::from(passed)].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// `(failed, passed)` run-time alias checks so far.
pub fn alias_checks() -> (u64, u64) {
    let r = |k: usize| ALIAS_CHECKS[k].load(std::sync::atomic::Ordering::Relaxed);
    (r(0), r(1))
}

/// Statistics of one region (or loop nest), written to `WEFT_STATS`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RegionStats {
    /// `irregular` (Algorithm 4) or `affine` (Algorithm 5).
    pub kind: String,
    /// Region or nest id given by the compiler.
    pub id: u32,
    /// Times the inspector ran (first call and after invalidation or bound changes).
    pub inspections: u64,
    /// Total inspector time (inspection, bank maps, dependence check, scheduling), ns.
    pub inspector_ns: u64,
    /// Executions of the region.
    pub executions: u64,
    /// Executions that ran on the calling thread only (one worker, trace
    /// mode, a nested region, or grain control: too little work to share).
    pub serial_executions: u64,
    /// Total executor time, ns.
    pub executor_ns: u64,
    /// Units (slabs or iteration blocks) of the current schedule.
    pub units: u64,
    /// Iterations per unit of the current schedule.
    pub unit_iters: i64,
    /// Edges of the dependence DAG (0 when the units do not conflict).
    pub dag_edges: u64,
    /// Cross-core waits left after pruning.
    pub sync_waits: u64,
    /// Iterations executed under the optimized schedule.
    pub scheduled_iterations: u64,
    /// All iterations executed by this region's executor.
    pub total_iterations: u64,
    /// Coverage ratio (§4.5.1): `scheduled_iterations / total_iterations`.
    pub coverage_ratio: f64,
    /// Algorithm 4: mean memory banks covered per slot by the schedule.
    pub banks_per_slot: Option<f64>,
    /// Algorithm 4: the same for the original order.
    pub original_banks_per_slot: Option<f64>,
    /// Algorithm 4: mean memory banks in a slab's bank map (what
    /// [`RuntimeConfig::miss_filter`] shrinks).
    pub banks_per_slab: Option<f64>,
    /// Algorithm 4: a hash (FNV-1a, 64 bits) of every slab's bank map of the
    /// last inspection, in slab order: two ways of inspecting that must give
    /// the same bank maps give the same hash (the differential tests compare
    /// it).
    pub bank_maps_hash: Option<u64>,
    /// Algorithm 5: scheme name.
    pub scheme: Option<String>,
    /// Algorithm 5: IW size (eq. 5.1).
    pub iw_size: Option<usize>,
    /// Algorithm 5: mean data-set size D (cache lines per IB).
    pub ds_lines: Option<f64>,
    /// Algorithm 5: β of each window (first 4096), in (step, core) order.
    pub beta: Vec<f64>,
    /// Algorithm 5: mean β over all windows.
    pub beta_mean: Option<f64>,
    /// Descriptor path: cache-line runs visited to build the bank vectors
    /// (summed over inspections; the cost is proportional to it).
    pub line_steps: u64,
    /// Irregular regions: where the last inspection's time went.
    pub inspector_breakdown: Option<InspectorBreakdown>,
    /// Irregular regions: the region stopped inspecting because its
    /// schedules were not reused (the `runtime::reuse` module docs);
    /// later executions ran in original order.
    pub inspection_abandoned: bool,
    /// Why the region fell back to its reference order (an inspection over
    /// its budget, or a schedule that ran slower than the reference; the
    /// `runtime::payoff` module docs), `None` if it did not.
    pub payoff_fallback: Option<String>,
    /// Why the region ran without the schedule its scheme would build
    /// (`WEFT_BLP_ASIDE`, `WEFT_IB_ASIDE`; the [`crate::aside`] rules), `None`
    /// if it did not step aside.
    pub step_aside: Option<String>,
}

/// Time split of one irregular inspection (all in ns).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct InspectorBreakdown {
    /// Accesses the inspector reported.
    pub accesses: u64,
    /// Lines those accesses touched: cache lines under a miss predictor,
    /// else the bank blocks the maps are kept at
    /// ([`crate::inspect::SlabRecorder::line_shift`]).
    pub line_touches: u64,
    /// Line touches the miss predictor counted as hits, which set no bank
    /// bit (0 with [`MissFilter::Off`]).
    pub predicted_hits: u64,
    /// Running the inspector: reports, slab lookup, bank mapping into bank-maps.
    pub record_ns: u64,
    /// Merging the cores' records (dropping reads of unwritten granules
    /// first), building the bank sets and the §4.4.6 dependence check.
    pub dependence_ns: u64,
    /// Algorithm 4, synchronisation pruning and plan building.
    pub schedule_ns: u64,
}

impl RegionStats {
    /// The fields every newly built plan describes the same way, irregular or
    /// affine: its units, the edges of the dependence DAG it respects and the
    /// cross-core waits left after pruning.
    pub(super) fn of_plan(plan: &Plan, dag_edges: usize) -> RegionStats {
        RegionStats {
            units: plan.units.len() as u64,
            dag_edges: dag_edges as u64,
            sync_waits: plan.waits.iter().map(|w| w.len() as u64).sum(),
            ..RegionStats::default()
        }
    }
}

impl Runtime {
    /// Caches `plan`, newly built for region `(kind, id)` under `key`.
    pub(super) fn cache_plan(
        &self,
        (kind, id): (u8, u32),
        key: (i64, i64, i64, u32, usize),
        plan: &Arc<Plan>,
    ) {
        let cached = Cached {
            key,
            plan: plan.clone(),
            scheduled: true,
        };
        lock(&self.regions).insert((kind, id), cached);
    }

    /// Records one inspection of region `(kind, id)`, irregular or affine: a
    /// plan of `unit_iters` iterations per unit built in `ns`. The
    /// schedule-describing fields of `st` replace the entry's, the build time
    /// and `line_steps` are added, and the execution counters (which
    /// [`Runtime::execute_region`] accumulates) are kept.
    pub(super) fn record_inspection(
        &self,
        (kind, id): (u8, u32),
        unit_iters: i64,
        ns: u64,
        st: RegionStats,
    ) {
        let mut s = lock(&self.stats);
        let e = s.entry((kind, id)).or_default();
        *e = RegionStats {
            kind: kind_name(kind).into(),
            id,
            inspections: e.inspections + 1,
            inspector_ns: e.inspector_ns + ns,
            unit_iters,
            line_steps: e.line_steps + st.line_steps,
            executions: e.executions,
            serial_executions: e.serial_executions,
            executor_ns: e.executor_ns,
            scheduled_iterations: e.scheduled_iterations,
            total_iterations: e.total_iterations,
            coverage_ratio: e.coverage_ratio,
            inspection_abandoned: e.inspection_abandoned,
            payoff_fallback: e.payoff_fallback.clone(),
            ..st
        };
    }

    /// Adds one execution to the statistics of region `(kind, id)`.
    pub(super) fn account(
        &self,
        kind: u8,
        id: u32,
        iters: u64,
        ns: u64,
        scheduled: bool,
        serial: bool,
    ) {
        let mut s = lock(&self.stats);
        let e = s.entry((kind, id)).or_default();
        if e.kind.is_empty() {
            e.kind = kind_name(kind).into();
            e.id = id;
        }
        e.executions += 1;
        e.serial_executions += serial as u64;
        e.executor_ns += ns;
        e.total_iterations += iters;
        if scheduled {
            e.scheduled_iterations += iters;
        }
        e.coverage_ratio = if e.total_iterations > 0 {
            e.scheduled_iterations as f64 / e.total_iterations as f64
        } else {
            0.0
        };
    }

    /// Adds a first-call probe's prefix (`iters` iterations in `ns` on the
    /// calling thread, grain.rs) to the execution of `(kind, id)` that
    /// [`Runtime::account`] just counted.
    pub(super) fn account_prefix(&self, kind: u8, id: u32, iters: u64, ns: u64) {
        let mut s = lock(&self.stats);
        let e = s.entry((kind, id)).or_default();
        e.executor_ns += ns;
        e.total_iterations += iters;
        if e.total_iterations > 0 {
            e.coverage_ratio = e.scheduled_iterations as f64 / e.total_iterations as f64;
        }
    }

    /// Statistics as JSON.
    pub fn stats_json(&self) -> serde_json::Value {
        let regions: Vec<RegionStats> = lock(&self.stats).values().cloned().collect();
        let pf = *lock(&self.pfor);
        serde_json::json!({
            "machine": self.cfg.machine,
            "cores": self.cfg.cores,
            "trace_mode": self.tracing(),
            "regions": regions,
            "parallel_for": {"calls": pf.0, "iterations": pf.1, "executor_ns": pf.2},
            "alias_checks": {"passed": alias_checks().1, "failed": alias_checks().0},
            "setup_ns": self.setup_ns.get().copied().unwrap_or(0),
        })
    }

    /// Writes the statistics to the configured path (no-op without one).
    pub fn write_stats(&self) -> Result<()> {
        if let Some(p) = &self.cfg.stats {
            let text = serde_json::to_string_pretty(&self.stats_json())
                .map_err(|e| RuntimeError::Io(std::io::Error::other(e)))?;
            std::fs::write(p, text).map_err(|e| {
                RuntimeError::Io(std::io::Error::new(
                    e.kind(),
                    format!("writing statistics {}: {e}", p.display()),
                ))
            })?;
        }
        Ok(())
    }
}
