//! A warp's device-launch call as the SM hands it to the launch unit, and the
//! statistics of device launches (digest §8.2 "Device launch", §8.4 "DP").
//!
//! The SM evaluates the launch site per active lane (condition, child grid and
//! block, arguments, workload) when the warp issues the launch instruction and
//! leaves the call in its outbox; the engine passes it to the front end's launch
//! unit the same cycle, which decides per lane, charges the warp's API latency and
//! answers with the lanes that launched (they skip the site's `else` path).

use crate::gpu::warp::{LaneView, TbGeo, Warp};
use crate::gpu::workload::{FuncId, LaunchSite, StreamSel, Tables};
use serde::Serialize;

/// Largest child grid dimension taken from a lane (a larger value is clamped).
const MAX_CHILD_GRID: i64 = 1 << 24;

/// One lane's request at a launch site.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneLaunch {
    /// Lane.
    pub lane: u32,
    /// Child grid.
    pub grid: [u32; 3],
    /// Child block.
    pub block: [u32; 3],
    /// Child arguments.
    pub args: Vec<i64>,
    /// The parent's workload estimate (SPAWN's `workload`, Baseline-DP's threshold).
    pub workload: u64,
    /// The site's own condition held (the programmer's threshold).
    pub cond: bool,
}

/// A warp's launch instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchCall {
    /// SM.
    pub sm: u32,
    /// Warp slot on the SM (the hardware thread of lane `l` is `slot * 32 + l`).
    pub warp_slot: u32,
    /// Warp index within its TB.
    pub warp_in_tb: u32,
    /// Parent kernel instance.
    pub kernel: u32,
    /// Parent TB (linear index in its grid).
    pub tb: u64,
    /// Child function.
    pub function: FuncId,
    /// Site mode.
    pub mode: crate::gpu::workload::LaunchMode,
    /// A new stream per child (else one stream per parent TB).
    pub unique_stream: bool,
    /// Requests of the active lanes, in lane order.
    pub lanes: Vec<LaneLaunch>,
    /// First instruction of the inline path.
    pub else_pc: u32,
    /// Reconvergence point after the site.
    pub end_pc: u32,
}

/// Evaluates `site` for the lanes of `mask` of warp `w` (TB `geo`, kernel
/// arguments `args`). The SM fills in who called (SM, warp, kernel, TB).
#[allow(clippy::too_many_arguments)]
pub fn evaluate(
    site: &LaunchSite,
    w: &Warp,
    mask: u32,
    geo: &TbGeo,
    args: &[i64],
    tables: &Tables,
    else_pc: u32,
    end_pc: u32,
) -> LaunchCall {
    let mut lanes = Vec::with_capacity(mask.count_ones() as usize);
    let mut m = mask;
    while m != 0 {
        let lane = m.trailing_zeros();
        m &= m - 1;
        let v = LaneView { w, geo, args, lane };
        let dim = |e: &crate::gpu::workload::Expr, lo: i64, hi: i64| {
            e.eval(&v, tables).clamp(lo, hi) as u32
        };
        lanes.push(LaneLaunch {
            lane,
            grid: [
                dim(&site.grid[0], 0, MAX_CHILD_GRID),
                dim(&site.grid[1], 0, MAX_CHILD_GRID),
                dim(&site.grid[2], 0, MAX_CHILD_GRID),
            ],
            block: [
                dim(&site.block[0], 1, 1024),
                dim(&site.block[1], 1, 1024),
                dim(&site.block[2], 1, 1024),
            ],
            args: site.args.iter().map(|a| a.eval(&v, tables)).collect(),
            workload: site.workload.eval(&v, tables).max(0) as u64,
            cond: site.cond.eval(&v, tables) != 0,
        });
    }
    LaunchCall {
        sm: 0,
        warp_slot: 0,
        warp_in_tb: w.warp_in_tb,
        kernel: 0,
        tb: geo.linear_ctaid(),
        function: site.function,
        mode: site.mode,
        unique_stream: !matches!(site.stream, StreamSel::PerCta),
        lanes,
        else_pc,
        end_pc,
    }
}

/// SPAWN's decisions made with history (`DpStats::spawn_model`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SpawnModelStats {
    /// Decisions with `t_cta > 0`.
    pub decisions: u64,
    /// Of them, vetoed by the model (the parent runs the work).
    pub vetoed: u64,
    /// Mean Eq. 2.1 `t_child`.
    pub t_child: f64,
    /// Mean `t_overhead` (part of `t_child`).
    pub t_overhead: f64,
    /// Mean Eq. 2.2 `t_parent`.
    pub t_parent: f64,
    /// Mean `workload` of the requests.
    pub workload: f64,
    /// Mean `n_con` Eq. 2.1 divided by (after the reading's zero rule).
    pub n_con_used: f64,
    /// Decisions whose last window had no child CTA running (`n_con = 0`).
    pub n_con_zero: u64,
    /// Final `t_cta`, `n_con` and `t_warp` of the monitor.
    pub t_cta: u64,
    /// See `t_cta`.
    pub n_con: u64,
    /// See `t_cta`.
    pub t_warp: u64,
}

impl SpawnModelStats {
    /// Adds a decision with history (running means of `[t_child, t_overhead,
    /// t_parent, workload, n_con used]`).
    pub fn add(&mut self, vetoed: bool, v: [u64; 5], n_con_zero: bool) {
        self.decisions += 1;
        self.vetoed += vetoed as u64;
        self.n_con_zero += n_con_zero as u64;
        let n = self.decisions as f64;
        for (m, v) in [
            &mut self.t_child,
            &mut self.t_overhead,
            &mut self.t_parent,
            &mut self.workload,
            &mut self.n_con_used,
        ]
        .into_iter()
        .zip(v)
        {
            *m += (v as f64 - *m) / n;
        }
    }
}

/// Statistics of device launches over a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DpStats {
    /// `--dp` mode.
    pub mode: String,
    /// Lanes that reached a launch site with work (requests).
    pub requests: u64,
    /// Child kernels launched (CDP, including DTBL fallbacks).
    pub child_kernels: u64,
    /// Aggregated groups coalesced (DTBL).
    pub aggregated_groups: u64,
    /// Requests run inline: vetoed by the decision or refused (depth, capacity, fit).
    pub inline: u64,
    /// Requests refused by the depth limit or the pending capacity.
    pub refused: u64,
    /// Child kernels that entered the pending pool's high-priority queue
    /// (LASER's HPQ; omitted when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub hpq_launches: u64,
    /// Pool pops that took an HPQ kernel ahead of an older eligible LPQ one
    /// (omitted when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub hpq_overtakes: u64,
    /// SPAWN: requests admitted before any child CTA had finished (no history,
    /// `t_cta = 0`: Algorithm 1 launches), refused ones included.
    pub spawn_no_history: u64,
    /// SPAWN's decisions with history (`t_cta > 0`): how many, how many the
    /// model vetoed, and the means of its estimates over them, Eq. 2.1
    /// `t_child` (and its `t_overhead` part) and Eq. 2.2 `t_parent`, cycles.
    pub spawn_model: SpawnModelStats,
    /// Threads in launched children (kernels and groups).
    pub child_threads: u64,
    /// Mean threads per child.
    pub threads_per_child: f64,
    /// Mean cycles from the launch call to the child's first TB.
    pub avg_wait_cycles: f64,
    /// Most global memory reserved by pending launches at once, bytes.
    pub peak_pending_bytes: u64,
    /// Mean bytes a launch reserved while pending (footprint per launch; summed
    /// during the run, divided by the launches in the report).
    pub pending_bytes_per_launch: f64,
    /// Warp cycles spent in the launch API.
    pub api_cycles: u64,
    /// DTBL: groups that found an eligible kernel / all groups.
    pub match_rate: f64,
    /// DTBL: group entries that overflowed the on-chip AGT.
    pub agt_overflow: u64,
    /// DTBL: overflowed entries read from global memory before their group's TBs
    /// were scheduled.
    pub agt_spill_reads: u64,
    /// DTBL: cycles from issuing those reads to their return, summed.
    pub agt_spill_cycles: u64,
    /// Most child TBs (of device kernels and groups) resident at once.
    pub peak_child_tbs: u64,
    /// Most parent (host-kernel) TBs resident at once.
    pub peak_parent_tbs: u64,
    /// Deepest nesting reached.
    pub max_depth: u32,
    /// Warps that waited at `sync_children` (policy `block_warp`).
    pub sync_waits: u64,
    /// Warp cycles spent waiting there.
    pub sync_wait_cycles: u64,
    /// `block_release`: TBs released at `sync_children`, their context traffic
    /// and restore waits (`dp::release`).
    pub release: super::release::ReleaseStats,
    /// Span of each concurrency point, cycles.
    pub series_span: u64,
    /// Kernels in the distributor and resident parent / child TBs over time
    /// (time-weighted means per point; bounded, see [`super::series`]).
    pub series: Vec<super::series::ConcurrencyPoint>,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}
