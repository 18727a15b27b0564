//! The device-launch unit's state: the chosen mode, the latency model, the
//! pending pool, DTBL's tables, the launch decision with SPAWN's monitor, and the
//! statistics (issue #31; digest §8.1 "Device-launch unit"). The front end
//! ([`crate::gpu::frontend`]) owns the kernels and drives this state.

use super::call::{DpStats, LaunchCall};
use super::cost::LaunchCostModel;
use super::dtbl::{AgeRef, Dtbl, KernelShape};
use super::pool::{LaunchPriority, PendingPool};
use super::release::TbRelease;
use super::series::ConcurrencySeries;
use super::spawn::{
    AlwaysLaunch, ChildStats, LaunchDecision, LaunchRequest, Spawn, SpawnReading, Threshold,
};
use super::DpMode;
use crate::gpu::config::GpuConfig;
use std::collections::{HashMap, HashSet};

/// Span of a concurrency-series point at the start of a run, cycles (SPAWN's
/// monitoring window).
pub const SERIES_EPOCH: u64 = 1024;
/// Most points the concurrency series keeps (pairs merge beyond).
pub const SERIES_POINTS: usize = 256;

/// A parent warp: (kernel record, TB, warp in the TB).
pub type WarpKey = (u32, u64, u32);

/// An aggregated group whose API call has not completed yet.
#[derive(Debug, Clone)]
pub struct DeferredGroup {
    /// Cycle the API call completes (the group is coalesced then).
    pub at: u64,
    /// Kernel record of the group.
    pub kernel: u32,
    /// Eligibility key.
    pub shape: KernelShape,
    /// Hardware thread of the launching lane (AGT hash).
    pub hw_tid: u32,
}

/// Device-launch state of a run with dynamic parallelism.
pub struct DpUnit {
    /// Mode.
    pub mode: DpMode,
    /// Latency model.
    pub cost: LaunchCostModel,
    /// Pending child kernels.
    pub pool: PendingPool,
    /// Who sets a launch's pool priority (LASER's HPQ / LPQ); `None`: FCFS.
    pub priority: Option<Box<dyn LaunchPriority>>,
    /// Kernel record of each pooled launch id.
    pub pooled: HashMap<u64, u32>,
    /// DTBL tables (DTBL modes).
    pub dtbl: Option<Dtbl>,
    /// Groups waiting for their API call to complete.
    pub deferred: Vec<DeferredGroup>,
    /// AGT entry of each coalesced group kernel.
    pub group_entry: HashMap<u32, (u32, AgeRef)>,
    /// Launch decision.
    pub decision: Box<dyn LaunchDecision>,
    /// SPAWN's CCQS monitor.
    pub child: ChildStats,
    /// Parent TBs that created their per-TB stream.
    pub tb_streams: HashSet<(u32, u64)>,
    /// GPU parameters (child fit checks).
    pub g: GpuConfig,
    /// Registers per thread and shared memory of each function.
    pub funcs: Vec<(u32, u32)>,
    /// Statistics.
    pub stats: DpStats,
    /// Bytes reserved by launches whose first TB has not started.
    pub reserved: u64,
    /// Sum of waits (launch call to first TB) and their count.
    pub wait: (u64, u64),
    /// Child / parent TBs resident now.
    pub resident: (u64, u64),
    /// Kernels in the distributor and resident parent / child TBs over time.
    pub series: ConcurrencySeries,
    /// Children launched by each warp and not completed.
    pub warp_children: HashMap<WarpKey, u32>,
    /// Warps waiting at `sync_children`: their call and the cycle they started.
    pub sync_waiting: HashMap<WarpKey, (LaunchCall, u64)>,
    /// Waiting warps whose children completed: their call and the cycle.
    pub woken: Vec<(LaunchCall, u64)>,
    /// DTBL: overflowed AGT entries being read (global index -> issue cycle).
    pub agt_requested: HashMap<u32, u64>,
    /// DTBL: entry reads to issue, (requesting SM, global index).
    pub agt_out: Vec<(u32, u32)>,
    /// `sync_children = "block_release"`: the released TBs (set by the engine,
    /// which knows the memory path).
    pub release: Option<TbRelease>,
    /// SPAWN `-push`: CTAs of the current call's launches, entering the CCQS
    /// when the call's latency ends.
    pushing: u64,
}

impl DpUnit {
    /// The unit for `mode` on GPU `g` with functions' (regs, smem).
    pub fn new(mode: DpMode, g: &GpuConfig, funcs: Vec<(u32, u32)>) -> Self {
        let d = &g.device_launch;
        let cost = match mode {
            DpMode::Cdp { ideal: true } | DpMode::Dtbl { ideal: true } => LaunchCostModel::ideal(d),
            _ => LaunchCostModel::new(d),
        };
        let decision: Box<dyn LaunchDecision> = match mode {
            DpMode::Threshold(n) => Box::new(Threshold(n)),
            DpMode::Spawn(reading) => Box::new(Spawn {
                max_queue_size: d.pending_capacity,
                reading,
            }),
            _ => Box::new(AlwaysLaunch),
        };
        DpUnit {
            mode,
            cost,
            pool: PendingPool::new(d.max_depth, d.pending_capacity),
            priority: None,
            pooled: HashMap::new(),
            dtbl: matches!(mode, DpMode::Dtbl { .. }).then(|| Dtbl::new(d.agt_entries)),
            deferred: Vec::new(),
            group_entry: HashMap::new(),
            decision,
            child: ChildStats::new(d.spawn_window),
            tb_streams: HashSet::new(),
            g: g.clone(),
            funcs,
            stats: DpStats {
                mode: mode.name(),
                ..DpStats::default()
            },
            reserved: 0,
            wait: (0, 0),
            resident: (0, 0),
            series: ConcurrencySeries::new(SERIES_EPOCH, SERIES_POINTS),
            warp_children: HashMap::new(),
            sync_waiting: HashMap::new(),
            woken: Vec::new(),
            agt_requested: HashMap::new(),
            agt_out: Vec::new(),
            release: None,
            pushing: 0,
        }
    }

    /// Final statistics.
    pub fn report(&self) -> DpStats {
        let mut s = self.stats.clone();
        (s.hpq_launches, s.hpq_overtakes) = (self.pool.high, self.pool.overtakes);
        let children = s.child_kernels + s.aggregated_groups;
        s.threads_per_child = ratio(s.child_threads, children);
        s.pending_bytes_per_launch /= children.max(1) as f64;
        s.avg_wait_cycles = ratio(self.wait.0, self.wait.1);
        if let Some(d) = &self.dtbl {
            s.match_rate = d.counters.match_rate();
            s.agt_overflow = d.counters.overflow;
        }
        (s.series_span, s.series) = self.series.finish(self.series.last());
        if let Some(r) = &self.release {
            s.release = r.stats;
        }
        let m = &mut s.spawn_model;
        (m.t_cta, m.n_con, m.t_warp) =
            (self.child.t_cta(), self.child.n_con(), self.child.t_warp());
        s
    }
}

impl DpUnit {
    /// SPAWN's reading (`None` in the other modes).
    pub fn spawn_reading(&self) -> Option<SpawnReading> {
        match self.mode {
            DpMode::Spawn(r) => Some(r),
            _ => None,
        }
    }

    /// SPAWN's `t_overhead` for a request of a warp call with `requests` asking
    /// lanes, `launched` of which launched already ([`SpawnReading::overhead`];
    /// 0 outside SPAWN, where no decision reads it).
    pub fn spawn_overhead(&self, requests: u64, launched: u64) -> u64 {
        self.spawn_reading().map_or(0, |r| {
            r.overhead(requests, launched, |x| self.cost.spawn_overhead(x))
        })
    }

    /// `ctas` child CTAs were launched at `t`: SPAWN's `n` counts them now, or
    /// (`-push`) from [`Self::pushed`].
    pub fn admit(&mut self, t: u64, ctas: u64) {
        if self.spawn_reading().is_some_and(|r| r.n_at_push) {
            self.child.advance(t);
            self.pushing += ctas;
        } else {
            self.child.admit(t, ctas);
        }
    }

    /// The current call's children enter the GMU at `at` (`-push`).
    pub fn pushed(&mut self, at: u64) {
        let x = std::mem::take(&mut self.pushing);
        self.child.enter_at(at, x);
    }

    /// SPAWN's decision on `req` (`inline`: vetoed), with history: its inputs
    /// and estimates go into `stats.spawn_model`.
    pub fn record_decision(&mut self, req: &LaunchRequest, inline: bool) {
        let Some(reading) = self.spawn_reading() else {
            return;
        };
        if self.child.t_cta() == 0 {
            return;
        }
        let sp = Spawn {
            max_queue_size: self.g.device_launch.pending_capacity,
            reading,
        };
        let (tc, tp) = (
            sp.t_child(req, &self.child),
            Spawn::t_parent(req, &self.child),
        );
        let n_con_zero = self.child.n_con() == 0;
        self.stats.spawn_model.add(
            inline,
            [tc, req.t_overhead, tp, req.workload, sp.n_con(&self.child)],
            n_con_zero,
        );
    }

    /// A child of warp `key` was launched.
    pub fn child_launched(&mut self, key: WarpKey) {
        *self.warp_children.entry(key).or_default() += 1;
    }

    /// A child of warp `key` completed at `t`; wakes the warp when it waits at
    /// `sync_children` and this was its last child.
    pub fn child_completed(&mut self, key: WarpKey, t: u64) {
        let Some(n) = self.warp_children.get_mut(&key) else {
            return;
        };
        *n -= 1;
        if *n > 0 {
            return;
        }
        self.warp_children.remove(&key);
        if let Some((call, since)) = self.sync_waiting.remove(&key) {
            self.stats.sync_wait_cycles += t - since;
            self.woken.push((call, t));
        }
    }

    /// Warp `call`'s `sync_children` at `t`: the cycle it may issue again, or
    /// `u64::MAX` while it waits for its children (see [`Self::child_completed`]).
    pub fn sync_children(&mut self, call: &LaunchCall, t: u64) -> u64 {
        use crate::gpu::config::SyncChildren;
        let key = (call.kernel, call.tb, call.warp_in_tb);
        match self.g.device_launch.sync_children {
            SyncChildren::Ignore => t + 1,
            SyncChildren::BlockWarp | SyncChildren::BlockRelease
                if !self.warp_children.contains_key(&key) =>
            {
                t + 1
            }
            SyncChildren::BlockWarp | SyncChildren::BlockRelease => {
                self.stats.sync_waits += 1;
                self.sync_waiting.insert(key, (call.clone(), t));
                u64::MAX
            }
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}
