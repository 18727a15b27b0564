//! The device-launch unit's state: the chosen mode, the latency model, the
//! pending pool, DTBL's tables, the launch decision with SPAWN's monitor, and the
//! statistics (issue #31; digest §8.1 "Device-launch unit"). The front end
//! ([`crate::gpu::frontend`]) owns the kernels and drives this state.

use super::call::DpStats;
use super::cost::LaunchCostModel;
use super::dtbl::{AgeRef, Dtbl, KernelShape};
use super::pool::PendingPool;
use super::spawn::{AlwaysLaunch, ChildStats, LaunchDecision, Spawn, Threshold};
use super::DpMode;
use crate::gpu::config::GpuConfig;
use std::collections::{HashMap, HashSet};

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
            DpMode::Spawn => Box::new(Spawn {
                max_queue_size: d.pending_capacity,
            }),
            _ => Box::new(AlwaysLaunch),
        };
        DpUnit {
            mode,
            cost,
            pool: PendingPool::new(d.max_depth, d.pending_capacity),
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
        }
    }

    /// Final statistics.
    pub fn report(&self) -> DpStats {
        let mut s = self.stats.clone();
        let children = s.child_kernels + s.aggregated_groups;
        s.threads_per_child = ratio(s.child_threads, children);
        s.pending_bytes_per_launch /= children.max(1) as f64;
        s.avg_wait_cycles = ratio(self.wait.0, self.wait.1);
        if let Some(d) = &self.dtbl {
            s.match_rate = d.counters.match_rate();
            s.agt_overflow = d.counters.overflow;
        }
        s
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}
