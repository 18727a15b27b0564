//! The statistics of a GPU run (digest §8.4), serialized with stable key names.
//!
//! * performance: cycles (until the last kernel completed), warp instructions,
//!   IPC (warp instructions per SM cycle, whole GPU) total and per kernel;
//! * caches: L1 read hit rate with the intra-/inter-warp split (a hit is
//!   intra-warp when the line's last toucher is the same warp), L2 hit rate of the
//!   L1 misses (the LLC banks' demand hit rate);
//! * DRAM: the DRAM model's own statistics under `dram` (the same object and key
//!   names as `weft sim`: `row_hit_rate`, `blp`, `avg_read_latency`, ...) plus
//!   `efficiency`, the data-bus busy fraction over the DRAM's busy span
//!   (`bandwidth_gbps / peak_bandwidth_gbps`);
//! * occupancy, both definitions: `occupancy` (DTBL) = mean resident warps per
//!   cycle over all SMs / max warps per SM; `occupancy_active` (SPAWN) = the same
//!   mean over the cycles in which the SM has a resident warp;
//! * SIMD: `warp_activity` = mean active lanes per issued instruction / 32;
//! * stall cycles by reason (scheduler-cycles without issue, see
//!   `smcore::Stall`);
//! * a time series per epoch of `epoch_cycles`: warp instructions, IPC, occupancy
//!   and the utilisation of each SM resource, for the non-idle epochs only.

use super::config::GpuConfig;
use super::frontend::Kernel;
use super::smcore::{Sm, STALLS};
use super::workload::Workload;
use crate::noc::NocStats;
use crate::system::{DramBackend, MemorySystem};
use serde::Serialize;
use std::collections::BTreeMap;

/// One kernel instance.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct KernelStats {
    /// Instance id (launch order).
    pub id: u32,
    /// Function name.
    pub name: String,
    /// Grid.
    pub grid: [u32; 3],
    /// Block.
    pub block: [u32; 3],
    /// Cycle of the host launch.
    pub launched: u64,
    /// First TB dispatch.
    pub start: u64,
    /// Last TB exit.
    pub end: u64,
    /// Warp instructions.
    pub warp_instructions: u64,
    /// Warp instructions per cycle between start and end.
    pub ipc: f64,
    /// App (host program) that launched it.
    pub app: String,
    /// Stream (global index) it was launched on.
    pub stream: u32,
    /// TBs in its grid.
    pub tbs: u64,
    /// L1 read lookups of its warps.
    pub l1_reads: u64,
    /// L1 read hit rate of its warps.
    pub l1_hit_rate: f64,
}

/// One app (a host program and its streams) of a co-run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AppStats {
    /// App name.
    pub name: String,
    /// Its streams (global indices).
    pub streams: Vec<u32>,
    /// Kernel instances it launched.
    pub kernels: u32,
    /// First TB dispatch of any of its kernels.
    pub start: u64,
    /// Last TB exit of any of its kernels.
    pub end: u64,
    /// Warp instructions of its kernels.
    pub warp_instructions: u64,
    /// Warp instructions per cycle between start and end.
    pub ipc: f64,
    /// L1 read hit rate of its warps.
    pub l1_hit_rate: f64,
}

/// Mean fraction of each SM resource in use over the run (all SMs, every cycle).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ResourceUtilization {
    /// Registers allocated / registers per SM.
    pub registers: f64,
    /// Shared memory allocated / shared memory per SM.
    pub shared_memory: f64,
    /// Threads resident / max threads per SM.
    pub threads: f64,
    /// TBs resident / TB slots per SM.
    pub tb_slots: f64,
}

/// Shared-memory accesses and bank conflicts (32 banks of 4-byte words).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SharedMemStats {
    /// Shared-memory warp instructions.
    pub accesses: u64,
    /// Of them, those with a bank conflict.
    pub bank_conflicts: u64,
    /// Extra bank cycles (conflict degree minus one, summed); counted, not timed.
    pub replay_cycles: u64,
    /// bank_conflicts / accesses.
    pub conflict_rate: f64,
}

/// L1 details.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct L1Stats {
    /// Read lookups (hits + misses + merged).
    pub reads: u64,
    /// Read hits.
    pub hits: u64,
    /// Hits on a line last touched by the same warp.
    pub intra_warp_hits: u64,
    /// Hits on a line last touched by another warp.
    pub inter_warp_hits: u64,
    /// Misses that allocated an MSHR.
    pub misses: u64,
    /// Misses merged into an outstanding MSHR.
    pub mshr_merges: u64,
    /// Lookups refused for lack of an MSHR (retried).
    pub mshr_stalls: u64,
    /// Store transactions (write-through).
    pub stores: u64,
    /// Global memory transactions after coalescing.
    pub transactions: u64,
    /// Shared-memory instructions.
    pub shared_accesses: u64,
}

/// The statistics of a GPU run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GpuStats {
    /// Machine name.
    pub machine: String,
    /// Workload origin.
    pub workload: String,
    /// Warp scheduler.
    pub warp_scheduler: String,
    /// TB dispatcher.
    pub tb_scheduler: String,
    /// SMs.
    pub sms: u32,
    /// Cycles until the last kernel completed.
    pub cycles: u64,
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Thread instructions (active lanes summed).
    pub thread_instructions: u64,
    /// Warp instructions per cycle (whole GPU).
    pub ipc: f64,
    /// Kernel instances.
    pub kernels: Vec<KernelStats>,
    /// L1 read hit rate.
    pub l1_hit_rate: f64,
    /// Share of L1 read lookups that hit a line of the same warp.
    pub l1_intra_warp_hit_rate: f64,
    /// Share of L1 read lookups that hit a line of another warp.
    pub l1_inter_warp_hit_rate: f64,
    /// L1 details.
    pub l1: L1Stats,
    /// L2 hit rate of L1 misses.
    pub l2_hit_rate: f64,
    /// L1 misses that reached the L2.
    pub l2_requests: u64,
    /// Mean L1-miss latency, issue to data (SM cycles).
    pub avg_mem_latency: f64,
    /// Crossbar part of it.
    pub avg_network_latency: f64,
    /// L2 part of it.
    pub avg_l2_latency: f64,
    /// DRAM part of it (controller queueing and DRAM service).
    pub avg_dram_latency: f64,
    /// DTBL occupancy: mean resident warps per cycle / max warps per SM.
    pub occupancy: f64,
    /// SPAWN occupancy: the same over cycles with a resident warp.
    pub occupancy_active: f64,
    /// Mean active lanes per issued instruction / 32.
    pub warp_activity: f64,
    /// Mean fraction of each SM resource in use.
    pub resource_utilization: ResourceUtilization,
    /// Shared-memory bank conflicts.
    pub shared_memory: SharedMemStats,
    /// Per app (host program) of the workload that ran.
    pub apps: Vec<AppStats>,
    /// Scheduler-cycles without issue, by reason.
    pub stall_cycles: BTreeMap<String, u64>,
    /// DRAM model statistics (`weft sim` names) plus `efficiency`.
    pub dram: serde_json::Value,
    /// Crossbar statistics.
    pub noc: NocStats,
    /// Epoch length of the time series, cycles.
    pub epoch_cycles: u64,
    /// Time series: IPC, occupancy and resource utilisation per epoch, for the
    /// epochs in which a TB was resident or an instruction issued (idle epochs
    /// are left out, so idle time costs no entries).
    pub epochs: Vec<EpochStats>,
}

/// One epoch of the time series (whole GPU, means over the epoch's cycles up to
/// the end of the run and over all SMs).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EpochStats {
    /// First cycle of the epoch.
    pub start: u64,
    /// Its cycles (the last epoch ends with the run).
    pub cycles: u64,
    /// Warp instructions issued in it.
    pub warp_instructions: u64,
    /// Warp instructions per cycle.
    pub ipc: f64,
    /// Resident warps / max warps per SM (DTBL occupancy over the epoch).
    pub occupancy: f64,
    /// Registers allocated / registers per SM.
    pub registers: f64,
    /// Shared memory allocated / shared memory per SM.
    pub shared_memory: f64,
    /// Threads resident / max threads per SM.
    pub threads: f64,
    /// TBs resident / TB slots per SM.
    pub tb_slots: f64,
}

/// Whole-GPU integrals up to some cycle: instructions, resident-warp cycles and
/// resource cycles (index as `smcore::RESOURCES`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Totals {
    issued: u64,
    warp_cycles: u128,
    res: [u128; 4],
}

impl Totals {
    fn of(sms: &[Sm]) -> Self {
        let mut t = Totals::default();
        for s in sms {
            t.issued += s.c.issued;
            t.warp_cycles += s.c.warp_cycles;
            for (a, x) in t.res.iter_mut().zip(s.c.resource_cycles) {
                *a += x;
            }
        }
        t
    }

    fn minus(&self, o: &Totals) -> Totals {
        let mut res = self.res;
        for (a, x) in res.iter_mut().zip(o.res) {
            *a -= x;
        }
        Totals {
            issued: self.issued - o.issued,
            warp_cycles: self.warp_cycles - o.warp_cycles,
            res,
        }
    }

    fn plus(&self, o: &Totals) -> Totals {
        let mut res = self.res;
        for (a, x) in res.iter_mut().zip(o.res) {
            *a += x;
        }
        Totals {
            issued: self.issued + o.issued,
            warp_cycles: self.warp_cycles + o.warp_cycles,
            res,
        }
    }

    fn idle(&self) -> bool {
        *self == Totals::default()
    }
}

/// The per-epoch time series while it is recorded: at each epoch end the engine
/// integrates every SM up to it and [`EpochSeries::close`]s the epoch, which
/// keeps the differences of the whole-GPU integrals if the epoch was not idle.
#[derive(Clone, Debug, Default)]
pub struct EpochSeries {
    last: Totals,
    rows: Vec<(u64, Totals)>,
}

impl EpochSeries {
    /// Closes the epoch starting at `start`; every SM is integrated up to its end.
    /// Returns whether it was idle (no TB resident, no instruction issued).
    pub fn close(&mut self, start: u64, sms: &[Sm]) -> bool {
        let now = Totals::of(sms);
        let d = now.minus(&self.last);
        self.last = now;
        if d.idle() {
            return true;
        }
        self.rows.push((start, d));
        false
    }

    /// The series of a run of `cycles` cycles: epochs of `epoch` cycles cut at
    /// the run's end. What was counted at or after `cycles` (the instructions
    /// issued at the last cycle, the exits) goes into the last epoch.
    fn rows(&self, cycles: u64, epoch: u64, g: &GpuConfig, sms: usize) -> Vec<EpochStats> {
        let mut kept: Vec<(u64, Totals)> = Vec::new();
        for &(start, d) in &self.rows {
            if start < cycles {
                kept.push((start, d));
                continue;
            }
            match kept.last_mut() {
                Some((_, t)) => *t = t.plus(&d),
                None => kept.push((cycles.saturating_sub(1) / epoch * epoch, d)),
            }
        }
        let n_sms = sms.max(1) as f64;
        kept.into_iter()
            .map(|(start, d)| {
                let len = ((start + epoch).min(cycles) - start.min(cycles)).max(1);
                let per = |x: u128, cap: u32| x as f64 / (len as f64 * n_sms * cap.max(1) as f64);
                EpochStats {
                    start,
                    cycles: len,
                    warp_instructions: d.issued,
                    ipc: ratio(d.issued, len),
                    occupancy: per(d.warp_cycles, g.max_warps_per_sm()),
                    registers: per(d.res[0], g.registers_per_sm),
                    shared_memory: per(d.res[1], g.smem_per_sm),
                    threads: per(d.res[2], g.max_threads_per_sm),
                    tb_slots: per(d.res[3], g.max_tbs_per_sm),
                }
            })
            .collect()
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Builds the statistics at the end of a run of `cycles` cycles; `stream_app[i]`
/// is the app (index in the workload) of global stream `i`.
#[allow(clippy::too_many_arguments)]
pub fn collect<D: DramBackend>(
    machine: &str,
    wl: &Workload,
    g: &GpuConfig,
    cycles: u64,
    sms: &[Sm],
    kernels: &[Kernel],
    stream_app: &[u32],
    mem: &mut MemorySystem<D>,
    epoch: u64,
    series: &EpochSeries,
    tb_policy: &str,
) -> GpuStats {
    let issued: u64 = sms.iter().map(|s| s.c.issued).sum();
    let lanes: u64 = sms.iter().map(|s| s.c.lanes).sum();
    let mut l1 = L1Stats {
        reads: 0,
        hits: 0,
        intra_warp_hits: 0,
        inter_warp_hits: 0,
        misses: 0,
        mshr_merges: 0,
        mshr_stalls: 0,
        stores: 0,
        transactions: 0,
        shared_accesses: 0,
    };
    let mut stalls = BTreeMap::new();
    let mut warp_cycles = 0u128;
    let mut active = 0u64;
    for s in sms {
        let c = &s.l1().c;
        l1.intra_warp_hits += c.intra_warp_hits;
        l1.inter_warp_hits += c.inter_warp_hits;
        l1.misses += c.misses;
        l1.mshr_merges += c.merged;
        l1.mshr_stalls += c.stalls;
        l1.stores += s.c.stores;
        l1.transactions += s.c.transactions;
        l1.shared_accesses += s.c.smem_accesses;
        for (i, (_, name)) in STALLS.iter().enumerate() {
            *stalls.entry(name.to_string()).or_insert(0) += s.c.stalls[i];
        }
        warp_cycles += s.c.warp_cycles;
        active += s.c.active_cycles;
    }
    l1.hits = l1.intra_warp_hits + l1.inter_warp_hits;
    l1.reads = l1.hits + l1.misses + l1.mshr_merges;
    let mut per_kernel = vec![0u64; kernels.len()];
    let mut kernel_l1 = vec![[0u64; 2]; kernels.len()];
    let mut res_cycles = [0u128; 4];
    let mut smem_conflicts = 0;
    let mut smem_replays = 0;
    for s in sms {
        for (k, n) in s.per_kernel.iter().enumerate() {
            if k < per_kernel.len() {
                per_kernel[k] += n;
            }
        }
        for (k, rh) in s.l1().per_kernel().iter().enumerate() {
            if let Some(acc) = kernel_l1.get_mut(k) {
                acc[0] += rh[0];
                acc[1] += rh[1];
            }
        }
        for (acc, x) in res_cycles.iter_mut().zip(s.c.resource_cycles) {
            *acc += x;
        }
        smem_conflicts += s.c.smem_conflicts;
        smem_replays += s.c.smem_replays;
    }
    let app_of = |k: &Kernel| stream_app.get(k.stream as usize).copied();
    let app_name = |a: Option<u32>| {
        a.and_then(|a| wl.apps.get(a as usize))
            .map_or_else(String::new, |x| x.name.clone())
    };
    let ks: Vec<KernelStats> = kernels
        .iter()
        .map(|k| {
            let start = k.start.unwrap_or(k.launched);
            let end = k.end.unwrap_or(cycles);
            let n = per_kernel[k.id as usize];
            let [reads, hits] = kernel_l1[k.id as usize];
            KernelStats {
                id: k.id,
                name: wl.function(k.function).name.clone(),
                grid: k.grid,
                block: k.block,
                launched: k.launched,
                start,
                end,
                warp_instructions: n,
                ipc: ratio(n, end.saturating_sub(start)),
                app: app_name(app_of(k)),
                stream: k.stream,
                tbs: k.tbs,
                l1_reads: reads,
                l1_hit_rate: ratio(hits, reads),
            }
        })
        .collect();
    let mut apps: Vec<AppStats> = Vec::new();
    let mut app_ids: Vec<u32> = Vec::new();
    for (si, &a) in stream_app.iter().enumerate() {
        match app_ids.iter().position(|&x| x == a) {
            Some(i) => apps[i].streams.push(si as u32),
            None => {
                app_ids.push(a);
                apps.push(AppStats {
                    name: app_name(Some(a)),
                    streams: vec![si as u32],
                    kernels: 0,
                    start: u64::MAX,
                    end: 0,
                    warp_instructions: 0,
                    ipc: 0.0,
                    l1_hit_rate: 0.0,
                });
            }
        }
    }
    let mut app_l1 = vec![[0u64; 2]; apps.len()];
    for (k, st) in kernels.iter().zip(&ks) {
        let Some(i) = app_of(k).and_then(|a| app_ids.iter().position(|&x| x == a)) else {
            continue;
        };
        let a = &mut apps[i];
        a.kernels += 1;
        a.start = a.start.min(st.start);
        a.end = a.end.max(st.end);
        a.warp_instructions += st.warp_instructions;
        app_l1[i][0] += kernel_l1[k.id as usize][0];
        app_l1[i][1] += kernel_l1[k.id as usize][1];
    }
    for (a, [reads, hits]) in apps.iter_mut().zip(app_l1) {
        if a.kernels == 0 {
            a.start = 0;
        }
        a.ipc = ratio(a.warp_instructions, a.end.saturating_sub(a.start));
        a.l1_hit_rate = ratio(hits, reads);
    }
    let util = |i: usize, cap: u32| {
        let denom = cycles as f64 * sms.len() as f64 * cap as f64;
        if denom > 0.0 {
            res_cycles[i] as f64 / denom
        } else {
            0.0
        }
    };
    let resource_utilization = ResourceUtilization {
        registers: util(0, g.registers_per_sm),
        shared_memory: util(1, g.smem_per_sm),
        threads: util(2, g.max_threads_per_sm),
        tb_slots: util(3, g.max_tbs_per_sm),
    };
    let ms = mem.finish(cycles);
    let mut dram = mem.dram_mut().stats_json();
    if let Some(o) = dram.as_object_mut() {
        let bw = o
            .get("bandwidth_gbps")
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        let peak = o
            .get("peak_bandwidth_gbps")
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0);
        let eff = if peak > 0.0 { bw / peak } else { 0.0 };
        o.insert("efficiency".into(), serde_json::json!(eff));
    }
    let shared_memory = SharedMemStats {
        accesses: l1.shared_accesses,
        bank_conflicts: smem_conflicts,
        replay_cycles: smem_replays,
        conflict_rate: ratio(smem_conflicts, l1.shared_accesses),
    };
    let max_warps = g.max_warps_per_sm().max(1) as f64;
    let n_sms = sms.len().max(1) as f64;
    GpuStats {
        machine: machine.to_string(),
        workload: wl.origin.clone(),
        warp_scheduler: g.warp_scheduler_name().to_string(),
        tb_scheduler: tb_policy.to_string(),
        sms: sms.len() as u32,
        cycles,
        warp_instructions: issued,
        thread_instructions: lanes,
        ipc: ratio(issued, cycles),
        kernels: ks,
        l1_hit_rate: ratio(l1.hits, l1.reads),
        l1_intra_warp_hit_rate: ratio(l1.intra_warp_hits, l1.reads),
        l1_inter_warp_hit_rate: ratio(l1.inter_warp_hits, l1.reads),
        l1,
        l2_hit_rate: ms.llc_hit_rate,
        l2_requests: ms.demand_requests,
        avg_mem_latency: ms.avg_latency,
        avg_network_latency: ms.avg_network_latency,
        avg_l2_latency: ms.avg_llc_latency,
        avg_dram_latency: ms.avg_dram_latency,
        occupancy: if cycles == 0 {
            0.0
        } else {
            warp_cycles as f64 / (cycles as f64 * n_sms) / max_warps
        },
        occupancy_active: if active == 0 {
            0.0
        } else {
            warp_cycles as f64 / active as f64 / max_warps
        },
        warp_activity: if issued == 0 {
            0.0
        } else {
            lanes as f64 / (issued as f64 * 32.0)
        },
        resource_utilization,
        shared_memory,
        apps,
        stall_cycles: stalls,
        dram,
        noc: ms.noc,
        epoch_cycles: epoch,
        epochs: series.rows(cycles, epoch, g, sms.len()),
    }
}
