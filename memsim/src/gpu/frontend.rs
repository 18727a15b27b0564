//! The front end: host streams -> hardware work queues -> kernel management unit
//! -> kernel distributor (digest §1.1, §2.2; design "Front end").
//!
//! Every stream of every app is a CUDA stream: its commands run in order, a
//! launch waits for the previous kernel of the stream to complete (stream
//! semantics), `wait` waits for it too, `device_sync` waits until no kernel of
//! the app is in flight, `memcpy` takes no GPU time (excluded from the timings, as
//! in DTBL). Streams map onto the `hw_queues` hardware work queues round-robin; a
//! HWQ passes one kernel at a time to the KMU, where it becomes visible
//! `kmu_latency` cycles later; the KMU moves pending kernels FCFS into the kernel
//! distributor, which holds at most `max_concurrent_kernels` kernels at once
//! (concurrent kernel execution). The TB dispatcher places TBs of the distributor's
//! kernels through a [`TbDispatchPolicy`](super::sched::TbDispatchPolicy).
//!
//! Device launches (issue #31, [`super::dp`]): with a [`DpUnit`] installed, a
//! warp's launch call ([`LaunchCall`]) is decided per lane, the warp pays the API
//! latency, and a child kernel waits in the pending pool until its API and KMU
//! latency passed, its stream is free and the distributor has room; under DTBL an
//! aggregated group is coalesced into an eligible distributor kernel when its API
//! call completes (a group kernel record with its own arguments and grid, whose
//! TBs the DTBL controller distributes with that kernel's), or falls back to CDP.
//! A kernel completes (its `end`) when its TBs finished and all its children
//! completed (CUDA's parent-child rule), so a host `wait` covers nested work.
//! Invariant: a kernel leaves the distributor exactly when its last TB exits
//! (under DTBL: the last TB of it and of the groups coalesced into it).

use super::dp::dtbl::{DtblTb, KernelShape, TbUnit};
use super::dp::pool::{DeviceStream, ParentInfo, PendingLaunch};
use super::dp::spawn::{Decision, LaunchRequest};
use super::dp::{DpMode, DpStats, DpUnit, LaunchCall};
use super::sched::DispatchUnit;
use super::sm::TbCost;
use super::workload::{FuncId, HostStep, LaunchMode};
use std::collections::VecDeque;

/// A kernel instance.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Instance id (launch order).
    pub id: u32,
    /// Function.
    pub function: FuncId,
    /// Grid.
    pub grid: [u32; 3],
    /// Block.
    pub block: [u32; 3],
    /// Arguments.
    pub args: Vec<i64>,
    /// Stream (global index) it was launched on.
    pub stream: u32,
    /// TBs in the grid.
    pub tbs: u64,
    /// TBs dispatched so far (the next TB id).
    pub next_tb: u64,
    /// TBs exited.
    pub done_tbs: u64,
    /// Cycle of the host launch.
    pub launched: u64,
    /// Cycle of the first TB dispatch.
    pub start: Option<u64>,
    /// Cycle the kernel completed: its last TB exited and all its children
    /// completed.
    pub end: Option<u64>,
    /// Launching thread of a device kernel or group (`None`: host launch).
    pub parent: Option<ParentInfo>,
    /// Nesting depth (host kernels 0).
    pub depth: u32,
    /// Stream of a device kernel.
    pub device_stream: Option<DeviceStream>,
    /// Children launched and not completed.
    pub live_children: u32,
    /// All of its TBs finished (and, under DTBL, it left the distributor).
    pub tbs_finished: bool,
    /// Bytes reserved until its first TB starts.
    pub footprint: u64,
}

impl Kernel {
    /// The `ctaid` of TB number `i` (x fastest).
    pub fn ctaid(&self, i: u64) -> [u32; 3] {
        let gx = self.grid[0] as u64;
        let gy = self.grid[1] as u64;
        [
            (i % gx) as u32,
            ((i / gx) % gy) as u32,
            (i / (gx * gy)) as u32,
        ]
    }
}

struct StreamState {
    app: u32,
    steps: Vec<HostStep>,
    pos: usize,
    running: Option<u32>,
}

/// Streams, HWQs, KMU and kernel distributor.
pub struct FrontEnd {
    streams: Vec<StreamState>,
    hwq_busy: Vec<bool>,
    kmu: VecDeque<(u64, u32)>,
    /// Kernels in the distributor, FCFS.
    pub distributor: Vec<u32>,
    /// All kernel instances by id.
    pub kernels: Vec<Kernel>,
    max_kernels: usize,
    kmu_latency: u64,
    /// Device-launch unit (dynamic parallelism), when enabled.
    pub dp: Option<Box<DpUnit>>,
}

impl FrontEnd {
    /// Streams given as `(app, steps)`.
    pub fn new(
        streams: Vec<(u32, Vec<HostStep>)>,
        hw_queues: u32,
        max_kernels: u32,
        kmu_latency: u64,
    ) -> Self {
        FrontEnd {
            streams: streams
                .into_iter()
                .map(|(app, steps)| StreamState {
                    app,
                    steps,
                    pos: 0,
                    running: None,
                })
                .collect(),
            hwq_busy: vec![false; hw_queues.max(1) as usize],
            kmu: VecDeque::new(),
            distributor: Vec::new(),
            kernels: Vec::new(),
            max_kernels: max_kernels.max(1) as usize,
            kmu_latency,
            dp: None,
        }
    }

    /// Enables device launches with `unit`.
    pub fn set_dp(&mut self, unit: DpUnit) {
        self.dp = Some(Box::new(unit));
    }

    fn hwq_of(&self, stream: usize) -> usize {
        stream % self.hwq_busy.len()
    }

    /// Advances the streams and the KMU at cycle `t`. Returns whether anything changed.
    pub fn tick(&mut self, t: u64) -> bool {
        let mut changed = false;
        for i in 0..self.streams.len() {
            loop {
                let s = &self.streams[i];
                let Some(step) = s.steps.get(s.pos) else {
                    break;
                };
                match step {
                    HostStep::Launch(l) => {
                        let q = self.hwq_of(i);
                        if s.running.is_some() || self.hwq_busy[q] {
                            break;
                        }
                        let id = self.kernels.len() as u32;
                        let tbs = l.grid.iter().map(|&d| d.max(1) as u64).product();
                        self.kernels.push(Kernel {
                            id,
                            function: l.function,
                            grid: l.grid,
                            block: l.block,
                            args: l.args.clone(),
                            stream: i as u32,
                            tbs,
                            next_tb: 0,
                            done_tbs: 0,
                            launched: t,
                            start: None,
                            end: None,
                            parent: None,
                            depth: 0,
                            device_stream: None,
                            live_children: 0,
                            tbs_finished: false,
                            footprint: 0,
                        });
                        self.hwq_busy[q] = true;
                        self.kmu.push_back((t + self.kmu_latency, id));
                        let s = &mut self.streams[i];
                        s.running = Some(id);
                        s.pos += 1;
                        changed = true;
                    }
                    HostStep::Wait => {
                        if s.running.is_some() {
                            break;
                        }
                        self.streams[i].pos += 1;
                    }
                    HostStep::DeviceSync => {
                        let app = s.app;
                        if self
                            .streams
                            .iter()
                            .any(|o| o.app == app && o.running.is_some())
                        {
                            break;
                        }
                        self.streams[i].pos += 1;
                    }
                    HostStep::Memcpy(_) => self.streams[i].pos += 1,
                }
            }
        }
        while let Some(&(at, id)) = self.kmu.front() {
            if at > t || self.distributor.len() >= self.max_kernels {
                break;
            }
            self.kmu.pop_front();
            self.enter_distributor(id, t);
            changed = true;
        }
        changed |= self.tick_device(t);
        changed
    }

    fn enter_distributor(&mut self, id: u32, t: u64) {
        self.distributor.push(id);
        let k = &self.kernels[id as usize];
        let (shape, tbs) = (self.shape(k.function, k.block), k.tbs);
        if let Some(d) = self.dp.as_mut().and_then(|u| u.dtbl.as_mut()) {
            d.add_kernel(id, shape, tbs);
        }
        self.note_concurrency(t);
    }

    /// Records the kernels in the distributor and the resident parent and child TBs
    /// from `t` on (the concurrency series of the launch unit).
    fn note_concurrency(&mut self, t: u64) {
        let kernels = self.distributor.len() as u64;
        if let Some(u) = self.dp.as_mut() {
            let (child, parent) = u.resident;
            u.series.update(t, [kernels, parent, child]);
        }
    }

    fn shape(&self, f: FuncId, block: [u32; 3]) -> KernelShape {
        let (regs, smem) = self.dp.as_ref().map_or((0, 0), |u| u.funcs[f.0 as usize]);
        KernelShape {
            function: f.0,
            block,
            smem,
            regs,
        }
    }

    /// Coalesces groups whose API call completed and moves pending child kernels
    /// into the distributor.
    fn tick_device(&mut self, t: u64) -> bool {
        let Some(u) = self.dp.as_mut() else {
            return false;
        };
        let mut changed = false;
        let mut due = Vec::new();
        u.deferred.retain(|g| {
            if g.at <= t {
                due.push(g.clone());
                false
            } else {
                true
            }
        });
        for g in due {
            let u = self.dp.as_mut().expect("dp");
            let d = u.dtbl.as_mut().expect("groups only under DTBL");
            match d.search(&g.shape).0 {
                Some(host) => {
                    let tbs = self.kernels[g.kernel as usize].tbs;
                    let entry = d.coalesce(host, g.kernel as u64, tbs, g.hw_tid);
                    u.group_entry.insert(g.kernel, (host, entry));
                    u.stats.aggregated_groups += 1;
                    let over = matches!(entry, super::dp::dtbl::AgeRef::Global(_));
                    let k = &mut self.kernels[g.kernel as usize];
                    k.footprint = u.cost.group_footprint(k.args.len(), over);
                    u.reserved += k.footprint;
                    u.stats.peak_pending_bytes = u.stats.peak_pending_bytes.max(u.reserved);
                    u.stats.pending_bytes_per_launch += k.footprint as f64;
                }
                None => {
                    // No eligible kernel (any more): a CDP launch; the warp was
                    // charged at the call, the KMU latency remains.
                    d.note_unmatched();
                    let kmu = u.cost.cdp(1, false).kmu;
                    if !self.pool_kernel(g.kernel, DeviceStream::Unique, t + kmu) {
                        // The pool is full: try again later.
                        let u = self.dp.as_mut().expect("dp");
                        u.deferred
                            .push(super::dp::unit::DeferredGroup { at: t + 1024, ..g });
                    }
                }
            }
            changed = true;
        }
        self.request_agt_loads(t);
        loop {
            let room = self.distributor.len() < self.max_kernels;
            let u = self.dp.as_mut().expect("dp");
            let Some(l) = u.pool.pop_ready(t, room) else {
                break;
            };
            let id = u.pooled.remove(&l.id).expect("pooled kernel");
            self.enter_distributor(id, t);
            changed = true;
        }
        changed
    }

    /// Puts device kernel `id` in the pending pool, visible from `visible`.
    fn pool_kernel(&mut self, id: u32, stream: DeviceStream, visible: u64) -> bool {
        let u = self.dp.as_mut().expect("dp");
        let k = &mut self.kernels[id as usize];
        k.device_stream = Some(stream);
        let footprint = u.cost.kernel_footprint(k.args.len());
        let parent = k.parent.expect("device kernel");
        let high = u.priority.as_mut().is_some_and(|p| p.high(id, &parent));
        let l = PendingLaunch {
            id: 0,
            function: k.function.0,
            grid: k.grid,
            block: k.block,
            args: Vec::new(),
            parent,
            depth: k.depth,
            stream,
            called: k.launched,
            visible,
            footprint,
            high,
        };
        match u.pool.push(l) {
            Ok(lid) => {
                u.pooled.insert(lid, id);
                k.footprint = footprint;
                u.reserved += footprint;
                u.stats.peak_pending_bytes = u.stats.peak_pending_bytes.max(u.reserved);
                u.stats.pending_bytes_per_launch += footprint as f64;
                u.stats.child_kernels += 1;
                true
            }
            Err(_) => false,
        }
    }

    /// Earliest cycle after `t` at which the KMU or the launch unit has something
    /// to do.
    pub fn next_event(&self, t: u64) -> Option<u64> {
        let room = self.distributor.len() < self.max_kernels;
        let mut next = match self.kmu.front() {
            Some(&(at, _)) if at > t && room => Some(at),
            _ => None,
        };
        if let Some(u) = &self.dp {
            let unasked = u.dtbl.as_ref().is_some_and(|d| {
                d.marked().any(|k| match d.pending_load(k) {
                    Some(super::dp::dtbl::AgeRef::Global(i)) => !u.agt_requested.contains_key(&i),
                    _ => false,
                })
            });
            if unasked || !u.agt_out.is_empty() {
                return Some(t + 1);
            }
            let pool = if room { u.pool.next_visible(t) } else { None };
            let group = u.deferred.iter().map(|g| g.at).filter(|&a| a > t).min();
            for c in [pool, group].into_iter().flatten() {
                next = Some(next.map_or(c, |n: u64| n.min(c)));
            }
        }
        next
    }

    /// Kernels of the distributor with TBs left to dispatch, FCFS (under DTBL: the
    /// marked kernels of the FCFS controller).
    pub fn dispatchable(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        if let Some(d) = self.dp.as_ref().and_then(|u| u.dtbl.as_ref()) {
            return Box::new(d.marked().filter(|&k| !d.blocked(k)));
        }
        Box::new(
            self.distributor
                .iter()
                .copied()
                .filter(|&k| self.kernels[k as usize].next_tb < self.kernels[k as usize].tbs),
        )
    }

    /// Whether [`Self::dispatchable`] has a kernel (without boxing an iterator:
    /// the engine asks at every step after a dispatch).
    pub fn has_dispatchable(&self) -> bool {
        if let Some(d) = self.dp.as_ref().and_then(|u| u.dtbl.as_ref()) {
            return d.marked().any(|k| !d.blocked(k));
        }
        self.distributor
            .iter()
            .any(|&k| self.kernels[k as usize].next_tb < self.kernels[k as usize].tbs)
    }

    /// [`Self::dispatchable`] into `out` (cleared first), without allocating once
    /// `out` has grown.
    pub fn dispatchable_into(&self, out: &mut Vec<u32>) {
        out.clear();
        if let Some(d) = self.dp.as_ref().and_then(|u| u.dtbl.as_ref()) {
            out.extend(d.marked().filter(|&k| !d.blocked(k)));
            return;
        }
        out.extend(
            self.distributor
                .iter()
                .copied()
                .filter(|&k| self.kernels[k as usize].next_tb < self.kernels[k as usize].tbs),
        );
    }

    /// Takes the next TB of dispatchable kernel `k` at `t`: the kernel record it
    /// runs as (a group's own record under DTBL), its TB index and `ctaid`.
    pub fn take_tb(&mut self, k: u32, t: u64) -> (u32, u64, [u32; 3]) {
        let (rk, tb) = match self.dp.as_mut().and_then(|u| u.dtbl.as_mut()) {
            Some(d) => {
                let tb = d.take(k);
                match tb.unit {
                    TbUnit::Native => (k, tb.blkid),
                    TbUnit::Group { group, .. } => (group as u32, tb.blkid),
                }
            }
            None => {
                let kern = &mut self.kernels[k as usize];
                kern.next_tb += 1;
                (k, kern.next_tb - 1)
            }
        };
        self.started(rk, tb, t)
    }

    /// The dispatch units (a kernel's own TBs or, under DTBL, one group) with their
    /// parents, for the policies that pick units (`TbDispatchPolicy::select_unit`).
    pub fn units(&self) -> Vec<DispatchUnit> {
        let unit = |kernel: u32, record: u32, left: u64, tbs: u64| {
            let r = &self.kernels[record as usize];
            DispatchUnit {
                kernel,
                record,
                group: kernel != record,
                parent: r.parent,
                depth: r.depth,
                left,
                tbs,
            }
        };
        match self.dp.as_ref().and_then(|u| u.dtbl.as_ref()) {
            Some(d) => d
                .marked()
                .flat_map(|k| {
                    d.units(k)
                        .into_iter()
                        .map(move |(g, left, tbs)| unit(k, g.map_or(k, |g| g as u32), left, tbs))
                })
                .collect(),
            None => self
                .dispatchable()
                .map(|k| {
                    let r = &self.kernels[k as usize];
                    unit(k, k, r.tbs - r.next_tb, r.tbs)
                })
                .collect(),
        }
    }

    /// Takes the next TB of unit (`k`, `record`) (see [`Self::units`]) at `t`;
    /// as [`Self::take_tb`].
    pub fn take_unit_tb(&mut self, k: u32, record: u32, t: u64) -> (u32, u64, [u32; 3]) {
        let (rk, tb) = match self.dp.as_mut().and_then(|u| u.dtbl.as_mut()) {
            Some(d) => {
                let tb = d.take_unit(k, (record != k).then_some(record as u64));
                match tb.unit {
                    TbUnit::Native => (k, tb.blkid),
                    TbUnit::Group { group, .. } => (group as u32, tb.blkid),
                }
            }
            None => {
                let kern = &mut self.kernels[k as usize];
                kern.next_tb += 1;
                (k, kern.next_tb - 1)
            }
        };
        self.started(rk, tb, t)
    }

    /// Bookkeeping of TB `tb` of kernel record `rk` starting at `t`.
    fn started(&mut self, rk: u32, tb: u64, t: u64) -> (u32, u64, [u32; 3]) {
        let kern = &mut self.kernels[rk as usize];
        if kern.start.is_none() {
            kern.start = Some(t);
            if let Some(u) = self.dp.as_mut() {
                u.reserved -= kern.footprint;
                if kern.parent.is_some() {
                    u.wait.0 += t - kern.launched;
                    u.wait.1 += 1;
                }
            }
        }
        if let Some(u) = self.dp.as_mut() {
            if kern.parent.is_some() {
                u.child.cta_start(t);
                u.resident.0 += 1;
                u.stats.peak_child_tbs = u.stats.peak_child_tbs.max(u.resident.0);
            } else {
                u.resident.1 += 1;
                u.stats.peak_parent_tbs = u.stats.peak_parent_tbs.max(u.resident.1);
            }
        }
        let ctaid = kern.ctaid(tb);
        self.note_concurrency(t);
        (rk, tb, ctaid)
    }

    /// A TB of kernel record `k` that started at `start` exited at `t`; returns
    /// whether a kernel completed.
    pub fn tb_exit(&mut self, k: u32, t: u64, start: u64) -> bool {
        let kern = &mut self.kernels[k as usize];
        kern.done_tbs += 1;
        let all = kern.done_tbs == kern.tbs;
        let child = kern.parent.is_some();
        let mut host = k;
        let mut left = all;
        if let Some(u) = self.dp.as_mut() {
            if child {
                u.child.cta_finish(t, t - start);
                u.child.warp_finish(t, t - start);
                u.resident.0 -= 1;
            } else {
                u.resident.1 -= 1;
            }
            if let Some(d) = u.dtbl.as_mut() {
                let unit = match u.group_entry.get(&k) {
                    Some(&(h, entry)) => {
                        host = h;
                        TbUnit::Group {
                            entry,
                            group: k as u64,
                        }
                    }
                    None => TbUnit::Native,
                };
                left = d.tb_finish(DtblTb {
                    kernel: host,
                    unit,
                    blkid: 0,
                    loads_entry: false,
                });
                if host != k && all {
                    self.kernels[k as usize].tbs_finished = true;
                }
            }
        }
        if left {
            self.distributor.retain(|&x| x != host);
            self.kernels[host as usize].tbs_finished = true;
        }
        self.note_concurrency(t);
        let a = self.settle(k, t);
        let b = host != k && self.settle(host, t);
        a || b
    }

    /// Completes kernel `k` and then its ancestors when their TBs and children are
    /// done; returns whether any completed.
    fn settle(&mut self, mut k: u32, t: u64) -> bool {
        let mut any = false;
        loop {
            let kern = &mut self.kernels[k as usize];
            if !kern.tbs_finished || kern.live_children > 0 || kern.end.is_some() {
                return any;
            }
            kern.end = Some(t);
            any = true;
            if let (Some(s), Some(u)) = (kern.device_stream, self.dp.as_mut()) {
                u.pool.stream_done(s);
            }
            match kern.parent {
                Some(p) => {
                    self.kernels[p.kernel as usize].live_children -= 1;
                    if let Some(u) = self.dp.as_mut() {
                        u.child_completed((p.kernel, p.tb, p.warp), t);
                    }
                    k = p.kernel;
                }
                None => {
                    let stream = kern.stream as usize;
                    let q = self.hwq_of(stream);
                    self.hwq_busy[q] = false;
                    self.streams[stream].running = None;
                    return any;
                }
            }
        }
    }

    /// Every stream finished its commands and no kernel is in flight.
    pub fn done(&self) -> bool {
        self.streams
            .iter()
            .all(|s| s.pos >= s.steps.len() && s.running.is_none())
            && self.kmu.is_empty()
            && self.distributor.is_empty()
            && self
                .dp
                .as_ref()
                .map_or(true, |u| u.pool.is_empty() && u.deferred.is_empty())
    }

    /// A warp's launch call at `t`: decides each lane's request, creates the
    /// children and returns the lanes that launched (they skip the site's `else`
    /// path) and the cycle the warp may issue again (after the API latency).
    /// Without a launch unit, or in the flat mode, no lane launches.
    pub fn device_launch(&mut self, call: &LaunchCall, t: u64) -> (u32, u64) {
        let Some(u) = self.dp.as_mut() else {
            return (0, t + 1);
        };
        if call.mode == LaunchMode::Sync {
            return (0, u.sync_children(call, t));
        }
        let mode = u.mode;
        if mode == DpMode::Flat {
            return (0, t + 1);
        }
        let parent_depth = self.kernels[call.kernel as usize].depth;
        let depth = parent_depth + 1;
        let uses_cond = matches!(mode, DpMode::Cdp { .. } | DpMode::Dtbl { .. });
        let asks: Vec<usize> = (0..call.lanes.len())
            .filter(|&i| {
                let l = &call.lanes[i];
                l.grid.iter().all(|&d| d >= 1) && if uses_cond { l.cond } else { l.workload > 0 }
            })
            .collect();
        u.stats.requests += asks.len() as u64;
        let n_asks = asks.len() as u64;
        let dtbl = u.dtbl.is_some();
        let mut launched = 0u32;
        let (mut x_cdp, mut x_agg, mut searched) = (0u64, 0u64, 0u64);
        let mut new_stream = false;
        let mut pooled_ctas = 0u64;
        let mut cdp_kernels = Vec::new();
        let mut groups = Vec::new();
        for i in asks {
            let u = self.dp.as_mut().expect("dp");
            let l = &call.lanes[i];
            let ctas: u64 = l.grid.iter().map(|&d| d as u64).product();
            let req = LaunchRequest {
                ctas,
                workload: l.workload,
                t_overhead: u.spawn_overhead(n_asks, launched.count_ones() as u64),
            };
            u.child.advance(t);
            let blind = matches!(mode, DpMode::Spawn(_)) && u.child.t_cta() == 0;
            let inline = u.decision.decide(&req, &u.child) == Decision::Inline;
            u.record_decision(&req, inline);
            if inline {
                u.stats.inline += 1;
                continue;
            }
            u.stats.spawn_no_history += blind as u64;
            let (regs, smem) = u.funcs[call.function.0 as usize];
            let threads: u32 = l.block.iter().product();
            let fits = threads <= u.g.max_threads_per_tb
                && TbCost::new(&u.g, threads, regs, smem).fits_empty(&u.g);
            let shape = KernelShape {
                function: call.function.0,
                block: l.block,
                smem,
                regs,
            };
            let eligible = dtbl && u.dtbl.as_ref().expect("dtbl").search(&shape).0.is_some();
            if dtbl {
                let s = u.dtbl.as_ref().expect("dtbl").search(&shape).1;
                searched = searched.max(s);
            }
            let refused = !fits
                || if eligible {
                    depth > u.g.device_launch.max_depth
                } else {
                    u.pool.check(depth, ctas + pooled_ctas).is_err()
                };
            if refused {
                u.stats.refused += 1;
                u.stats.inline += 1;
                continue;
            }
            launched |= 1 << l.lane;
            u.admit(t, ctas);
            u.stats.child_threads += ctas * threads as u64;
            u.stats.max_depth = u.stats.max_depth.max(depth);
            let id = self.kernels.len() as u32;
            self.kernels.push(Kernel {
                id,
                function: call.function,
                grid: l.grid,
                block: l.block,
                args: l.args.clone(),
                stream: u32::MAX,
                tbs: ctas,
                next_tb: 0,
                done_tbs: 0,
                launched: t,
                start: None,
                end: None,
                parent: Some(ParentInfo {
                    kernel: call.kernel,
                    tb: call.tb,
                    warp: call.warp_in_tb,
                    lane: l.lane,
                    sm: call.sm,
                }),
                depth,
                device_stream: None,
                live_children: 0,
                tbs_finished: false,
                footprint: 0,
            });
            self.kernels[call.kernel as usize].live_children += 1;
            u.child_launched((call.kernel, call.tb, call.warp_in_tb));
            if dtbl {
                // The group is coalesced (or falls back) when its API call ends.
                groups.push((id, shape, call.warp_slot * 32 + l.lane));
                if eligible {
                    x_agg += 1;
                } else {
                    x_cdp += 1;
                }
            } else {
                let stream = if call.unique_stream {
                    new_stream = true;
                    DeviceStream::Unique
                } else {
                    new_stream |= u.tb_streams.insert((call.kernel, call.tb));
                    DeviceStream::PerTb {
                        kernel: call.kernel,
                        tb: call.tb,
                    }
                };
                x_cdp += 1;
                pooled_ctas += ctas;
                cdp_kernels.push((id, stream));
            }
        }
        let u = self.dp.as_mut().expect("dp");
        let cdp = u.cost.cdp(x_cdp, new_stream || dtbl);
        let api = if dtbl {
            u.cost.dtbl(x_agg, searched).api.max(cdp.api)
        } else {
            cdp.api
        };
        u.stats.api_cycles += api;
        let done = t + api;
        u.pushed(done + cdp.kmu);
        for (id, shape, hw_tid) in groups {
            u.deferred.push(super::dp::unit::DeferredGroup {
                at: done,
                kernel: id,
                shape,
                hw_tid,
            });
        }
        for (id, stream) in cdp_kernels {
            let ok = self.pool_kernel(id, stream, done + cdp.kmu);
            debug_assert!(ok, "capacity was checked");
        }
        (launched, done.max(t + 1))
    }

    /// Warps whose `sync_children` wait ended since the last call, with the cycle:
    /// the engine answers their calls.
    pub fn take_woken(&mut self) -> Vec<(LaunchCall, u64)> {
        self.dp
            .as_mut()
            .map_or_else(Vec::new, |u| std::mem::take(&mut u.woken))
    }

    /// (threads, registers per thread, shared memory bytes) of a TB of kernel
    /// `k` (its context, `dp::release`).
    pub fn tb_context(&self, k: u32) -> (u32, u32, u32) {
        let k = &self.kernels[k as usize];
        let (regs, smem) = self
            .dp
            .as_ref()
            .and_then(|u| u.funcs.get(k.function.0 as usize).copied())
            .unwrap_or((0, 0));
        (k.block.iter().product(), regs, smem)
    }

    /// Device-launch statistics (with a launch unit).
    pub fn dp_stats(&self) -> Option<DpStats> {
        self.dp.as_ref().map(|u| u.report())
    }
}
