//! The GPU engine: SMs, front end and TB dispatcher on the shared memory side.
//!
//! [`GpuSim`] drives memsim's [`MemorySystem`] the way the manycore does
//! (`gpu-design.md`, "Sharing the memory model"): every SM is a requester whose L1
//! misses become memory requests over the crossbar to the L2 slices (the LLC
//! banks), the memory controllers and DRAM. One event-driven loop: at each step
//! it takes the earliest cycle at which an SM, the front end or the memory side
//! has work, advances the memory side to it, hands completions to their SMs,
//! advances the streams and the KMU, dispatches TBs (one per
//! `tb_dispatch_per_cycle` per cycle, through the [`TbDispatchPolicy`]), and steps
//! the SMs due then, in SM order. Idle cycles are skipped; runs are deterministic,
//! and with the DRAM on its own thread the results are the same
//! ([`MemorySystem::settle`]).
//! The run ends when every stream has finished; its length is the completion
//! cycle of the last kernel. If nothing can progress while work remains, the run
//! fails with a deadlock error instead of looping.

use super::code::Code;
use super::config::{GpuConfig, TbSchedKind, WarpSchedKind};
use super::frontend::FrontEnd;
use super::l1::L1Observer;
use super::sched::{tb_policy, TbDispatchPolicy};
use super::sm::TbCost;
use super::smcore::{KernelRt, Sm, SmParams, TbExit};
use super::stats::{self, GpuStats};
use super::workload::{HostStep, Workload};
use crate::cache::CacheGeometry;
use crate::config::MachineConfig;
use crate::dram_backend::DdrBackend;
use crate::manycore::SimError;
use crate::noc::{Crossbar, Mesh, NocParams};
use crate::system::{ClockRatio, Completion, DramBackend, MemorySystem, SystemParams};
use std::sync::Arc;

/// One TB dispatch (the dispatcher's log).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dispatch {
    /// Global TB id (dispatch order).
    pub tb: u32,
    /// Kernel instance.
    pub kernel: u32,
    /// TB index in its grid (linear).
    pub index: u64,
    /// SM.
    pub sm: u32,
    /// Cycle.
    pub time: u64,
}

/// Policy and run choices.
#[derive(Clone, Debug, Default)]
pub struct GpuOptions {
    /// Warp scheduler (default: the machine's).
    pub warp_sched: Option<WarpSchedKind>,
    /// TB dispatcher (default: the machine's).
    pub tb_sched: Option<TbSchedKind>,
    /// Seed (DRAM schedulers that use one); runs are deterministic for a seed.
    pub seed: u64,
    /// Run the DRAM model on a thread of its own (same results).
    pub dram_thread: bool,
    /// Run only this app (default: every app of the workload, as a co-run).
    pub app: Option<String>,
    /// Device launches (dynamic parallelism, `--dp`); `None` runs the flat
    /// version exactly as before device launches existed.
    pub dp: Option<super::dp::DpMode>,
    /// Thread-block management (FGTB, `--tb-manage`); `None` runs the
    /// dispatcher exactly as before.
    pub tb_manage: Option<super::fgtb::manager::ManageOptions>,
}

/// The GPU table of `cfg`, or an error naming the machine.
pub fn gpu_table(cfg: &MachineConfig) -> Result<&GpuConfig, SimError> {
    cfg.gpu.as_ref().ok_or_else(|| {
        SimError::Unsupported(format!(
            "machine `{}` has no [gpu] table (GPU presets: k20c-dtbl, k20-spawn, gtx480-ipaws, v100-fgtb)",
            cfg.name
        ))
    })
}

/// Memory-side parameters of a GPU machine: SM `i` is crossbar port `i`, L2 slice
/// `b` port `sms + b`, memory controller `c` port `sms + slices + c`.
pub fn system_params(cfg: &MachineConfig) -> Result<(SystemParams, Crossbar), SimError> {
    let g = gpu_table(cfg)?;
    let sms = cfg.core.count;
    let slices = cfg.llc.banks;
    let line = cfg.llc.line_bytes;
    let xbar = Crossbar::new(sms, slices + cfg.dram.channels, g.crossbar_latency as u64);
    let sp = SystemParams {
        requesters: sms,
        requester_nodes: (0..sms).collect(),
        mesh: Mesh::new(1, 1),
        noc: NocParams {
            router_cycles: 0,
            link_cycles: 0,
            request_flits: 1,
            // a line plus an 8-byte header
            data_flits: (line as u64 + 8).div_ceil(g.crossbar_flit_bytes as u64),
        },
        llc_bank: CacheGeometry {
            size_bytes: cfg.llc.size_bytes / slices as u64,
            ways: cfg.llc.ways,
            line_bytes: line,
        },
        llc_nodes: (0..slices).map(|b| sms + b).collect(),
        llc_latency: cfg.llc.hit_latency as u64,
        llc_port_cycles: cfg.llc.port_cycles as u64,
        llc_mshrs: cfg.llc.mshrs,
        mc_nodes: (0..cfg.dram.channels).map(|c| sms + slices + c).collect(),
        prefetch: None,
        coherence: false,
        max_outstanding: g.max_outstanding_per_sm,
        clocks: ClockRatio::new(cfg.core.freq_mhz, cfg.dram.tck_ns),
        epoch: cfg.epoch_cycles,
        oracle: Default::default(),
    };
    Ok((sp, xbar))
}

/// The GPU simulator.
pub struct GpuSim<D: DramBackend> {
    machine: String,
    p: Arc<SmParams>,
    sms: Vec<Sm>,
    mem: MemorySystem<D>,
    fe: FrontEnd,
    policy: Box<dyn TbDispatchPolicy>,
    wl: Arc<Workload>,
    codes: Vec<Arc<Code>>,
    rts: Vec<KernelRt>,
    next_age: u64,
    next_tb_gid: u32,
    epoch: u64,
    hook: Option<Box<dyn L1Observer>>,
    dispatches: Vec<Dispatch>,
    /// App (workload index) of each global stream.
    stream_app: Vec<u32>,
    /// FGTB's TB scheduler state (with `tb_manage`).
    tbm: Option<Box<super::fgtb::manager::Manager>>,
    /// State the warp schedulers share across SMs (iPAWS's decisions).
    warp_ctx: super::warpsched::WarpSchedCtx,
    /// Dispatchable kernels (scratch of `dispatch`).
    ks_scratch: Vec<u32>,
}

impl GpuSim<DdrBackend> {
    /// The GPU of `cfg` running `wl` with the DDR/GDDR model.
    pub fn build(
        cfg: &MachineConfig,
        wl: Arc<Workload>,
        opts: &GpuOptions,
    ) -> Result<Self, SimError> {
        let dram = DdrBackend::new(&cfg.dram, crate::run::config_scheduler(cfg), opts.seed)
            .map_err(|e| SimError::Unsupported(e.to_string()))?;
        let mut sim = Self::with_dram(cfg, wl, opts, dram)?;
        if opts.dram_thread {
            sim.mem
                .spawn_dram_thread()
                .map_err(|e| SimError::Thread(e.to_string()))?;
        }
        Ok(sim)
    }
}

impl<D: DramBackend> GpuSim<D> {
    /// The GPU of `cfg` running `wl` over the DRAM backend `dram`.
    pub fn with_dram(
        cfg: &MachineConfig,
        wl: Arc<Workload>,
        opts: &GpuOptions,
        dram: D,
    ) -> Result<Self, SimError> {
        cfg.validate()
            .map_err(|e| SimError::Unsupported(e.to_string()))?;
        let mut g = gpu_table(cfg)?.clone();
        if let Some(w) = opts.warp_sched {
            g.warp_scheduler = w;
        }
        if let Some(t) = opts.tb_sched {
            g.tb_scheduler = t;
        }
        let (sp, xbar) = system_params(cfg)?;
        let mem = MemorySystem::with_crossbar(sp, xbar, dram);
        let p = Arc::new(SmParams {
            l1: CacheGeometry {
                size_bytes: cfg.l1.size_bytes,
                ways: cfg.l1.ways,
                line_bytes: cfg.l1.line_bytes,
            },
            l1_latency: cfg.l1.hit_latency as u64,
            l1_mshrs: cfg.l1.mshrs,
            g: g.clone(),
        });
        // Kernels that cannot fit an empty SM would never run: refuse them now.
        for f in &wl.functions {
            let c = TbCost::new(&g, f.threads_per_block(), f.regs_per_thread, f.smem_bytes);
            if !c.fits_empty(&g) {
                return Err(SimError::Unsupported(format!(
                    "kernel `{}` ({} threads, {} registers/thread, {} B shared) does not fit an SM of `{}`",
                    f.name,
                    f.threads_per_block(),
                    f.regs_per_thread,
                    f.smem_bytes,
                    cfg.name
                )));
            }
        }
        let mut streams = Vec::new();
        for (ai, app) in wl.apps.iter().enumerate() {
            if opts.app.as_ref().is_some_and(|n| *n != app.name) {
                continue;
            }
            let unrolled = app
                .unroll(&wl, super::workload::Limits::default().max_host_steps)
                .map_err(|e| SimError::Unsupported(e.to_string()))?;
            for (_, steps) in unrolled {
                streams.push((ai as u32, steps));
            }
        }
        if let Some(n) = &opts.app {
            if !wl.apps.iter().any(|a| a.name == *n) {
                let names: Vec<&str> = wl.apps.iter().map(|a| a.name.as_str()).collect();
                return Err(SimError::Unsupported(format!(
                    "workload has no app `{n}` (apps: {})",
                    names.join(", ")
                )));
            }
        }
        for (_, steps) in &streams {
            for s in steps {
                if let HostStep::Launch(l) = s {
                    let f = wl.function(l.function);
                    let threads: u32 = l.block.iter().product();
                    let c = TbCost::new(&g, threads, f.regs_per_thread, f.smem_bytes);
                    if threads > g.max_threads_per_tb || !c.fits_empty(&g) {
                        return Err(SimError::Unsupported(format!(
                            "launch of `{}` with block {:?} does not fit an SM of `{}`",
                            f.name, l.block, cfg.name
                        )));
                    }
                }
            }
        }
        let stream_app = streams.iter().map(|(a, _)| *a).collect();
        let mut mem = mem;
        for i in 0..cfg.core.count {
            mem.set_max_outstanding(i, g.max_outstanding_per_sm);
        }
        let launches = opts.dp.is_some_and(|m| m != super::dp::DpMode::Flat);
        let mut fe = FrontEnd::new(
            streams,
            g.hw_queues,
            g.max_concurrent_kernels,
            g.kmu_latency as u64,
        );
        if let Some(mode) = opts.dp {
            let funcs = wl
                .functions
                .iter()
                .map(|f| (f.regs_per_thread, f.smem_bytes))
                .collect();
            fe.set_dp(super::dp::DpUnit::new(mode, &g, funcs));
        }
        let tbm = opts.tb_manage.as_ref().map(|o| {
            let pace = (cfg.l1.line_bytes as u64 + 8).div_ceil(g.crossbar_flit_bytes.max(1) as u64);
            Box::new(super::fgtb::manager::Manager::new(
                o,
                wl.functions
                    .iter()
                    .map(|f| (f.regs_per_thread, f.smem_bytes))
                    .collect(),
                cfg.core.count as usize,
                cfg.l1.line_bytes,
                pace,
                g.schedulers_per_sm as f64 / g.sp.ii.max(1) as f64,
                cfg.core.freq_mhz,
            ))
        });
        if let (Some(u), None) = (fe.dp.as_mut(), &tbm) {
            if g.device_launch.sync_children == super::config::SyncChildren::BlockRelease {
                let pace =
                    (cfg.l1.line_bytes as u64 + 8).div_ceil(g.crossbar_flit_bytes.max(1) as u64);
                u.release = Some(super::dp::release::TbRelease::new(
                    cfg.core.count as usize,
                    cfg.l1.line_bytes,
                    pace,
                ));
            }
        }
        let warp_ctx = super::warpsched::WarpSchedCtx::default();
        let mut sim = GpuSim {
            tbm,
            machine: cfg.name.clone(),
            sms: (0..cfg.core.count)
                .map(|i| Sm::with_ctx(i, p.clone(), &warp_ctx))
                .collect(),
            warp_ctx,
            fe,
            policy: tb_policy(
                g.tb_scheduler,
                matches!(opts.dp, Some(super::dp::DpMode::Dtbl { .. })),
                g.kernel_order,
            ),
            codes: wl
                .functions
                .iter()
                .map(|f| {
                    Arc::new(if launches {
                        Code::with_launches(f)
                    } else {
                        Code::new(f)
                    })
                })
                .collect(),
            wl,
            rts: Vec::new(),
            next_age: 0,
            next_tb_gid: 0,
            epoch: cfg.epoch_cycles.max(1),
            hook: None,
            dispatches: Vec::new(),
            stream_app,
            mem,
            p,
            ks_scratch: Vec::new(),
        };
        sim.install_policy_hooks();
        Ok(sim)
    }

    /// Replaces the TB dispatch policy (before the run and before
    /// [`Self::set_l1_hook`]; LASER's oracle with its profile).
    pub fn set_tb_policy(&mut self, p: Box<dyn TbDispatchPolicy>) {
        self.policy = p;
        self.install_policy_hooks();
    }

    /// The TB policy's L1 monitor, warp-scheduler state and launch priorities.
    fn install_policy_hooks(&mut self) {
        self.hook = self.policy.l1_observer();
        self.policy.attach(&self.warp_ctx);
        if let Some(u) = self.fe.dp.as_mut() {
            u.priority = self.policy.launch_priority();
        }
        self.track_shares();
    }

    /// Per-kernel resource use on every SM when the policy splits SMs between
    /// kernels (sCKE); nothing otherwise.
    fn track_shares(&mut self) {
        if self.policy.splits_sms() {
            for s in &mut self.sms {
                if s.res.shares.is_none() {
                    s.res.track_kernels();
                }
            }
        }
    }

    /// Installs an L1 access hook (every SM's L1 reports to it, and to the TB
    /// policy's monitor if it has one).
    pub fn set_l1_hook(&mut self, h: Box<dyn L1Observer>) {
        self.hook = Some(match self.policy.l1_observer() {
            Some(m) => Box::new(super::tbsched::Tee(m, h)),
            None => h,
        });
    }

    /// The warp schedulers' shared state (iPAWS's report and settings).
    pub fn warp_sched_ctx(&self) -> &super::warpsched::WarpSchedCtx {
        &self.warp_ctx
    }

    /// Switches on every SM's L1 access breakdown (iPAWS Fig. 4 / 20).
    pub fn enable_l1_breakdown(&mut self) {
        for s in &mut self.sms {
            s.l1_mut().breakdown = Some(Box::default());
        }
    }

    /// The L1 access breakdown per kernel instance, summed over the SMs (empty
    /// unless enabled).
    pub fn l1_breakdown(&self) -> Vec<super::warpsched::locality::KernelBreakdown> {
        let mut out: Vec<super::warpsched::locality::KernelBreakdown> = Vec::new();
        for s in &self.sms {
            if let Some(b) = &s.l1().breakdown {
                if out.len() < b.kernels.len() {
                    out.resize(b.kernels.len(), Default::default());
                }
                for (o, k) in out.iter_mut().zip(&b.kernels) {
                    o.one.add(&k.one);
                    o.all.add(&k.all);
                    o.frozen |= k.frozen;
                }
            }
        }
        out
    }

    /// Takes the L1 access hook back.
    pub fn take_l1_hook(&mut self) -> Option<Box<dyn L1Observer>> {
        self.hook.take()
    }

    /// The thread-block management's state (runs with `tb_manage`).
    pub fn tb_manager(&self) -> Option<&super::fgtb::manager::Manager> {
        self.tbm.as_deref()
    }

    /// What the thread-block management did (runs with `tb_manage`).
    pub fn tb_manage_report(&self) -> Option<super::fgtb::manager::ManageReport> {
        self.tbm.as_ref().map(|m| m.report())
    }

    /// Whole-run mean levels per function id, as measured by the management's
    /// monitors (the oracle of a later `static-oracle` run).
    pub fn function_levels(&self) -> Option<std::collections::HashMap<u32, super::fgtb::Levels>> {
        self.tbm.as_ref().map(|m| m.function_levels())
    }

    /// Device-launch statistics (runs with `dp`).
    pub fn dp_stats(&self) -> Option<super::dp::DpStats> {
        self.fe.dp_stats()
    }

    /// Lane-level memory operations issued on every SM (the same-work check:
    /// flat and dynamic-parallelism versions of a workload do the same accesses).
    pub fn lane_mem_ops(&self) -> u64 {
        self.sms.iter().map(|s| s.c.lane_mem_ops).sum()
    }

    /// What MASCAR did (`None` unless a MASCAR scheduler ran): its schedulers'
    /// counters and the L1 hits its cache access re-execution served.
    pub fn mascar_report(&self) -> Option<super::warpsched::mascar::MascarReport> {
        let sched = self.warp_ctx.mascar_stats()?;
        Some(super::warpsched::mascar::MascarReport {
            sched,
            reexec_hits: self.sms.iter().map(|s| s.c.reexec_hits).sum(),
        })
    }

    /// Every TB dispatch so far, in order.
    pub fn dispatches(&self) -> &[Dispatch] {
        &self.dispatches
    }

    /// Records every warp instruction issued (cycle, warp age, pc) per SM.
    pub fn enable_issue_trace(&mut self) {
        for s in &mut self.sms {
            s.trace = Some(Vec::new());
        }
    }

    /// The issue trace of SM `sm` (empty unless enabled).
    pub fn issue_trace(&self, sm: usize) -> &[super::smcore::IssueRec] {
        self.sms[sm].trace.as_deref().unwrap_or(&[])
    }

    /// The memory side.
    pub fn memory(&self) -> &MemorySystem<D> {
        &self.mem
    }

    /// The memory side, mutably (the DRAM backend's recorded state in tests).
    pub fn memory_mut(&mut self) -> &mut MemorySystem<D> {
        &mut self.mem
    }

    /// Kernel runtimes for kernels the front end created.
    fn sync_kernels(&mut self) {
        while self.rts.len() < self.fe.kernels.len() {
            let k = &self.fe.kernels[self.rts.len()];
            let f = self.wl.function(k.function);
            let threads = k.block.iter().product();
            self.rts.push(KernelRt {
                id: k.id,
                code: self.codes[k.function.0 as usize].clone(),
                args: k.args.clone(),
                grid: k.grid,
                block: k.block,
                cost: TbCost::new(&self.p.g, threads, f.regs_per_thread, f.smem_bytes),
            });
        }
    }

    /// Dispatches up to `tb_dispatch_per_cycle` TBs at `t`; returns how many.
    fn dispatch(&mut self, t: u64) -> u32 {
        let mut n = 0;
        if let Some(m) = self.tbm.as_mut() {
            n += m.restore_victims(t, &mut self.sms, self.p.g.tb_dispatch_per_cycle);
        }
        if self.policy.wants_units() {
            return n + self.dispatch_units(t);
        }
        let mut ks = std::mem::take(&mut self.ks_scratch);
        while n < self.p.g.tb_dispatch_per_cycle {
            self.fe.dispatchable_into(&mut ks);
            if ks.is_empty() {
                break;
            }
            let sms = &self.sms;
            let rts = &self.rts;
            let pick = match self.tbm.as_mut() {
                Some(m) => m.select(&ks, &self.fe, rts, sms),
                None => self.policy.select(ks.len(), sms.len(), &mut |k, sm| {
                    sms[sm].fits(&rts[ks[k] as usize])
                }),
            };
            let Some((k, sm)) = pick else {
                break;
            };
            let (kid, tb, ctaid) = self.fe.take_tb(ks[k], t);
            let gid = self.place(kid, tb, ctaid, sm, t);
            if let Some(m) = self.tbm.as_mut() {
                let rt = &self.rts[kid as usize];
                m.on_dispatch(&self.fe, rt, sm, gid, tb, t, &self.sms[sm]);
            }
            n += 1;
        }
        self.ks_scratch = ks;
        n
    }

    /// Logs TB `tb` (its index in the grid) of kernel `kid` as dispatched to SM
    /// `sm` at `t` and admits it there, its warps taking the next ages; returns
    /// its global TB id.
    fn place(&mut self, kid: u32, tb: u64, ctaid: [u32; 3], sm: usize, t: u64) -> u32 {
        let gid = self.next_tb_gid;
        let rt = &self.rts[kid as usize];
        self.dispatches.push(Dispatch {
            tb: gid,
            kernel: kid,
            index: tb,
            sm: sm as u32,
            time: t,
        });
        self.sms[sm].admit(rt, gid, ctaid, t, self.next_age);
        self.next_age += rt.cost.warps as u64;
        self.next_tb_gid += 1;
        gid
    }

    /// [`Self::dispatch`] for policies that pick [`super::sched::DispatchUnit`]s.
    fn dispatch_units(&mut self, t: u64) -> u32 {
        let mut n = 0;
        while n < self.p.g.tb_dispatch_per_cycle {
            let units = self.fe.units();
            if units.is_empty() {
                break;
            }
            let (sms, rts) = (&self.sms, &self.rts);
            // sCKE: each SM split equally between the kernels with TBs to dispatch
            let split = if self.policy.splits_sms() {
                let mut ks: Vec<u32> = units.iter().map(|u| u.kernel).collect();
                ks.sort_unstable();
                ks.dedup();
                ks.len() as u32
            } else {
                1
            };
            let pick = if split > 1 {
                self.policy.select_unit(
                    &units,
                    sms.len(),
                    &mut |u, sm| sms[sm].fits_share(&rts[units[u].record as usize], split),
                    t,
                )
            } else {
                self.policy.select_unit(
                    &units,
                    sms.len(),
                    &mut |u, sm| sms[sm].fits(&rts[units[u].record as usize]),
                    t,
                )
            };
            let Some((u, sm)) = pick else {
                break;
            };
            let (kid, tb, ctaid) = self.fe.take_unit_tb(units[u].kernel, units[u].record, t);
            self.policy.on_dispatch(kid, tb, sm, t);
            self.place(kid, tb, ctaid, sm, t);
            n += 1;
        }
        n
    }

    /// The TB policy's counters (`None` for round-robin).
    pub fn tb_policy_report(&self) -> Option<serde_json::Value> {
        self.policy.report()
    }

    /// Kernel instances so far (with their parents), by id.
    pub fn kernels(&self) -> &[super::frontend::Kernel] {
        &self.fe.kernels
    }

    /// Issues the DTBL front end's reads of overflowed AGT entries (issue #31).
    fn issue_agt_reads(&mut self, t: u64) {
        for (sm, addr, token) in self.fe.take_agt_reads() {
            let req = crate::system::MemRequest {
                requester: sm,
                addr,
                kind: crate::system::ReqKind::Read,
                token,
            };
            if self.mem.issue(req, t).is_err() {
                self.fe.retry_agt_read(sm, token);
            }
        }
    }

    /// Hands SM `i`'s launch calls to the front end's launch unit and answers them.
    fn device_launches(&mut self, i: usize, t: u64) {
        let calls = std::mem::take(&mut self.sms[i].launch_out);
        let mut waits = Vec::new();
        for c in &calls {
            let (launched, ready) = self.fe.device_launch(c, t);
            self.sms[i].resolve_launch(c, launched, ready);
            if ready == u64::MAX {
                waits.push(c);
            }
        }
        self.sync_kernels();
        for c in waits {
            let ctx = self.fe.tb_context(c.kernel);
            if let Some(r) = self.fe.dp.as_mut().and_then(|u| u.release.as_mut()) {
                r.on_wait(c, &self.sms[i], ctx, t);
            }
        }
    }

    /// Runs the workload to completion; `progress(warp_instructions)` now and then.
    pub fn run(&mut self, mut progress: impl FnMut(u64)) -> Result<GpuStats, SimError> {
        let mut comps: Vec<Completion> = Vec::new();
        let mut exits: Vec<TbExit> = Vec::new();
        let mut t = 0u64;
        let mut input_done = false;
        let mut dirty = true;
        let mut steps = 0u64;
        let mut series = stats::EpochSeries::default();
        let mut next_epoch = self.epoch;
        let mut last_end = 0u64;
        loop {
            if self.fe.tick(t) {
                dirty = true;
            }
            self.issue_agt_reads(t);
            self.sync_kernels();
            if dirty {
                dirty = self.dispatch(t) > 0;
            }
            for i in 0..self.sms.len() {
                if self.sms[i].wake <= t {
                    self.sms[i].step(
                        t,
                        &self.rts,
                        &self.wl.tables,
                        &mut self.mem,
                        &mut exits,
                        &mut self.hook,
                    );
                    if !self.sms[i].launch_out.is_empty() {
                        self.device_launches(i, t);
                        dirty = true;
                    }
                }
            }
            if let Some(r) = self.fe.dp.as_mut().and_then(|u| u.release.as_mut()) {
                dirty |= r.pump(t, &mut self.mem, &mut self.sms);
            }
            if let Some(m) = self.tbm.as_mut() {
                dirty |= m.poll(t, &mut self.sms);
                m.collect(t, &mut self.sms);
                dirty |= m.pump(t, &mut self.mem, &mut self.sms);
            }
            if !exits.is_empty() {
                for e in exits.drain(..) {
                    if let Some(m) = self.tbm.as_mut() {
                        m.on_exit(&e);
                    }
                    self.policy.on_tb_exit(e.sm as usize);
                    let index = self.dispatches[e.tb as usize].index;
                    self.policy
                        .on_tb_done(e.kernel, index, e.sm as usize, e.time);
                    if self.fe.tb_exit(e.kernel, e.time, e.start) {
                        last_end = last_end.max(e.time);
                    }
                }
                for (c, at) in self.fe.take_woken() {
                    let c = match self.fe.dp.as_mut().and_then(|u| u.release.as_mut()) {
                        Some(r) => r.on_woken(c, at, &self.sms),
                        None => Some(c),
                    };
                    if let Some(c) = c {
                        self.sms[c.sm as usize].resolve_launch(&c, 0, at + 1);
                    }
                }
                dirty = true;
                if self.fe.tick(t) {
                    self.sync_kernels();
                }
            }
            if !input_done && self.fe.done() && self.mem.in_flight() == 0 {
                self.mem.finish_input();
                input_done = true;
            }
            let mut nt = u64::MAX;
            for s in &self.sms {
                nt = nt.min(s.wake.max(t + 1));
            }
            if dirty && self.fe.has_dispatchable() {
                nt = nt.min(t + 1);
            }
            if let Some(w) = self.policy.wake_at(t) {
                nt = nt.min(w);
                dirty = true;
            }
            if let Some(k) = self.fe.next_event(t) {
                nt = nt.min(k);
            }
            if let Some(r) = self.fe.dp.as_ref().and_then(|u| u.release.as_ref()) {
                if let Some(k) = r.next_event(t) {
                    nt = nt.min(k);
                }
                if dirty && r.waiting() {
                    nt = nt.min(t + 1);
                }
            }
            if let Some(m) = &self.tbm {
                if let Some(k) = m.next_event(t) {
                    nt = nt.min(k);
                }
                if dirty && m.victims_ready() {
                    nt = nt.min(t + 1);
                }
            }
            if let Some(m) = self.mem.next_event_time() {
                nt = nt.min(m.max(t + 1));
            }
            let nt = self.mem.settle(nt);
            if nt == u64::MAX {
                break;
            }
            while nt >= next_epoch {
                // The SMs changed nothing after t (< next_epoch) so far, and the
                // completions up to nt come below: integrating every SM up to the
                // epoch's end is exact.
                for s in &mut self.sms {
                    s.integrate_to(next_epoch);
                }
                let idle = series.close(next_epoch - self.epoch, &self.sms);
                next_epoch += self.epoch;
                if idle && self.sms.iter().all(|s| s.is_empty()) {
                    // nothing resident until nt: skip the idle epochs at once
                    next_epoch = next_epoch.max(nt / self.epoch * self.epoch);
                }
            }
            self.mem.advance_to(nt);
            self.mem.drain_completions(&mut comps);
            for c in comps.drain(..) {
                let sm = c.requester as usize;
                if super::dp::dtbl::is_agt_token(c.token) {
                    self.fe.agt_read_done(c.token, c.time);
                    dirty = true;
                    continue;
                }
                if super::fgtb::context::is_context_token(c.token) {
                    if let Some(m) = self.tbm.as_mut() {
                        m.context_read_done(sm, c.token, c.addr, c.time, &mut self.sms);
                        dirty = true;
                    }
                    if let Some(r) = self.fe.dp.as_mut().and_then(|u| u.release.as_mut()) {
                        r.read_done(c.token, c.time, &mut self.sms);
                        dirty = true;
                    }
                    continue;
                }
                self.sms[sm].complete(&c, &mut self.mem, &mut exits);
            }
            t = nt;
            steps += 1;
            if steps & 0xffff == 0 {
                progress(self.sms.iter().map(|s| s.c.issued).sum());
            }
        }
        self.mem.join_dram_thread();
        if !self.fe.done() {
            return Err(SimError::Deadlock {
                cycle: t,
                unfinished: self.fe.kernels.iter().filter(|k| k.end.is_none()).count(),
            });
        }
        progress(self.sms.iter().map(|s| s.c.issued).sum());
        let cycles = last_end;
        for s in &mut self.sms {
            s.finish(cycles);
        }
        series.close(next_epoch - self.epoch, &self.sms);
        Ok(stats::collect(
            &self.machine,
            &self.wl,
            &self.p.g,
            cycles,
            &self.sms,
            &self.fe.kernels,
            &self.stream_app,
            &mut self.mem,
            self.epoch,
            &series,
            self.policy.name(),
        ))
    }
}
