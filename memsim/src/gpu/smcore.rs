//! The SM pipeline: warp issue through the schedulers, functional units, the LSU
//! with the coalescer and L1D, and the miss queue to the memory side (digest §8.1).
//!
//! Timing model, per SM cycle in which something can happen (idle cycles are
//! skipped, the engine wakes the SM):
//! * each of the `schedulers_per_sm` schedulers (warps split by slot % n) issues at
//!   most one warp instruction per cycle, chosen by its [`WarpScheduler`] among the
//!   warps whose next instruction is ready: operands available (scoreboard), unit
//!   free (initiation interval), not at a barrier, and for memory instructions the
//!   miss queue below `lsu_queue` (LSU back-pressure);
//! * `alu`/`fp` go to the scheduler's SP pipe, `sfu` and `dp` to its SFU / DP pipe:
//!   `n` instructions in `ilp` independent chains, each instruction `latency` after
//!   the previous one of its chain, `ii` cycles apart in the unit;
//! * a memory instruction enters the LSU `lsu.latency` after issue and is split
//!   into coalesced transactions, one per `lsu.ii` cycles (replays). Each looks up
//!   the L1 after its `hit_latency`: a hit returns then, a miss goes to the memory
//!   side from there (L2 slice over the crossbar, memory controller, DRAM) and
//!   returns with the reply. Shared-memory accesses take `smem_latency`; a
//!   `d`-way bank conflict adds `d - 1` replay cycles to the data and keeps the
//!   banks busy for them (no shared access issues until they end). Stores
//!   write through (no write-allocate, the L2 line is written); atomics bypass the
//!   L1 and are performed at the L2 (read for ownership). Loads flagged `nc` or
//!   `bypass_l1` skip the L1;
//! * `if` and a loop test are one (branch) instruction each; `let`, jumps and loop
//!   entry are folded into the instructions around them and take no issue slot;
//!   `bar` and `exit` are one instruction.
//!
//! The memory path and the miss queue are in the `lsu` submodule.
//!
//! Simplifications: L1 tag state changes at issue time even though the lookup is
//! timed later; local memory is global memory at a per-thread interleaved address;
//! constant and texture accesses go through the L1D.
//! Invariant: a TB leaves the SM only when all its warps finished and none has a
//! load outstanding, so a returning load never meets a reused warp slot.

use super::coalesce::{Coalescer, Transaction};
use super::code::{Code, Inst};
use super::config::GpuConfig;
use super::fgtb::monitor::TbCounters;
use super::l1::{L1Observer, Owner, L1};
use super::sched::{warp_schedulers, Cand, MemView, WarpInfo, WarpScheduler};
use super::sm::{SmResources, TbCost};
use super::warp::{TbGeo, Warp, PENDING};
use super::warpsched::WarpSchedCtx;
use super::workload::{Space, Tables, UnitClass};
use crate::cache::CacheGeometry;
use crate::system::{Completion, DramBackend, MemorySystem};
use std::collections::VecDeque;
use std::sync::Arc;

mod eval;
mod gate;
mod issue;
mod lsu;
mod release;
mod resources;
use eval::WarpCtx;
use gate::{Gate, Wait};
use lsu::Pending;
pub use resources::{ResidentTb, SavedTb};

/// Why a scheduler issued nothing in a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stall {
    /// Waiting for data from the memory side (a pending load).
    Memory,
    /// Waiting for a short-latency result (unit chain, L1 hit, shared memory).
    Scoreboard,
    /// At a TB barrier.
    Barrier,
    /// The functional unit is busy (initiation interval).
    FuBusy,
    /// The miss queue is full (LSU back-pressure).
    LsuFull,
    /// No warp resident on this scheduler (or all finished).
    NoWarp,
}

/// Stall reasons in report order.
pub const STALLS: [(Stall, &str); 6] = [
    (Stall::Memory, "memory"),
    (Stall::Scoreboard, "scoreboard"),
    (Stall::Barrier, "barrier"),
    (Stall::FuBusy, "fu_busy"),
    (Stall::LsuFull, "lsu_full"),
    (Stall::NoWarp, "no_warp"),
];

/// What the SM needs of a running kernel.
#[derive(Clone, Debug)]
pub struct KernelRt {
    /// Kernel instance id.
    pub id: u32,
    /// Flat code.
    pub code: Arc<Code>,
    /// Arguments.
    pub args: Vec<i64>,
    /// Grid and block.
    pub grid: [u32; 3],
    /// Block shape.
    pub block: [u32; 3],
    /// TB cost.
    pub cost: TbCost,
}

/// A TB resident on an SM.
#[derive(Clone, Debug, Default)]
struct TbSlot {
    used: bool,
    kernel: u32,
    gid: u32,
    geo: TbGeo,
    cost: TbCost,
    warps: Vec<u32>,
    live: u32,
    arrived: u32,
    start: u64,
    /// FGTB per-TB counters (memory throttle, FPU).
    mon: TbCounters,
    /// Being preempted: its warps no longer issue; it leaves once no load of
    /// it is outstanding (`resources.rs`).
    preempting: bool,
}

/// A TB that left its SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TbExit {
    /// Kernel instance.
    pub kernel: u32,
    /// Global TB id.
    pub tb: u32,
    /// SM.
    pub sm: u32,
    /// Cycle of exit.
    pub time: u64,
    /// Cycle it was dispatched.
    pub start: u64,
    /// Its FGTB counters at exit.
    pub mon: TbCounters,
}

/// One issued warp instruction (issue trace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IssueRec {
    /// Cycle.
    pub cycle: u64,
    /// Warp age (launch order over the GPU).
    pub age: u64,
    /// Instruction index in the flat code.
    pub pc: u32,
    /// Active lanes.
    pub mask: u32,
}

/// Per-SM counters.
#[derive(Clone, Debug, Default)]
pub struct SmCounters {
    /// Warp instructions issued.
    pub issued: u64,
    /// Active lanes summed over issued instructions.
    pub lanes: u64,
    /// Scheduler-cycles without issue, by [`Stall`] (index as [`STALLS`]).
    pub stalls: [u64; 6],
    /// Resident warps integrated over cycles.
    pub warp_cycles: u128,
    /// Cycles with at least one resident warp.
    pub active_cycles: u64,
    /// Memory transactions (global), and of them shared-memory accesses.
    pub transactions: u64,
    /// Shared-memory instructions.
    pub smem_accesses: u64,
    /// Store transactions written through.
    pub stores: u64,
    /// L1 hits served past refused lookups in the miss queue (MASCAR's cache
    /// access re-execution; 0 unless a scheduler [re-executes](WarpScheduler::reexecutes)).
    pub reexec_hits: u64,
    /// Active lanes summed over issued memory instructions (work items).
    pub lane_mem_ops: u64,
    /// Resources in use integrated over cycles: registers, shared-memory bytes,
    /// threads, TBs (index as [`RESOURCES`]).
    pub resource_cycles: [u128; 4],
    /// Shared-memory instructions with a bank conflict (more than one distinct
    /// 4-byte word in some bank).
    pub smem_conflicts: u64,
    /// Extra bank cycles of the conflicts: the conflict degree minus one, summed.
    pub smem_replays: u64,
}

/// SM resources in the order of [`SmCounters::resource_cycles`] (report names).
pub const RESOURCES: [&str; 4] = ["registers", "shared_memory", "threads", "tb_slots"];

/// Static parameters of an SM.
#[derive(Clone, Debug)]
pub struct SmParams {
    /// GPU table.
    pub g: GpuConfig,
    /// L1D geometry.
    pub l1: CacheGeometry,
    /// L1 hit latency.
    pub l1_latency: u64,
    /// L1 MSHRs.
    pub l1_mshrs: u32,
}

/// One streaming multiprocessor.
pub struct Sm {
    id: u32,
    p: Arc<SmParams>,
    /// Resources in use.
    pub res: SmResources,
    warps: Vec<Warp>,
    /// Issue gate per warp slot (see the `gate` submodule).
    gates: Vec<Gate>,
    free_warps: Vec<u32>,
    /// Live warp slots per scheduler (slot % schedulers), in slot order.
    live: Vec<Vec<u32>>,
    /// Live warps on the SM (sum of the `live` lists).
    n_live: usize,
    tbs: Vec<TbSlot>,
    scheds: Vec<Box<dyn WarpScheduler>>,
    /// Per scheduler: it observes each step (stalled and barrier warps).
    observe: Vec<bool>,
    /// Per scheduler: it observes and is memory-aware (gets a [`MemView`]).
    mem_view: Vec<bool>,
    obs_stalled: Vec<Cand>,
    obs_bar: Vec<Cand>,
    /// The warps of `obs_stalled` waiting for load data (memory-aware only).
    obs_mem: Vec<Cand>,
    /// The LSU serves L1 hits past refused lookups (cache access re-execution).
    reexec: bool,
    /// per scheduler: SP, SFU, DP free times
    fu_free: Vec<[u64; 3]>,
    lsu_free: u64,
    /// First cycle the shared-memory banks are free of bank-conflict replays.
    smem_free: u64,
    l1: L1,
    coal: Coalescer,
    miss_q: VecDeque<Pending>,
    /// The L1 [epoch](L1::epoch) at which the miss queue's head lookup last
    /// stalled (`None`: it did not, or the head changed since).
    head_stall: Option<u64>,
    /// Some warp finished since the live list was cleaned.
    any_finished: bool,
    /// Next cycle the SM has to be stepped (u64::MAX: only on a completion).
    pub wake: u64,
    last_step: u64,
    last_reason: Vec<Stall>,
    occ_last: u64,
    /// Counters.
    pub c: SmCounters,
    scratch_addr: Vec<u64>,
    scratch_lane: Vec<u32>,
    scratch_tx: Vec<Transaction>,
    scratch_w: Vec<u64>,
    cands: Vec<Cand>,
    next_warp_gid: u32,
    /// Warp instructions issued per kernel instance.
    pub per_kernel: Vec<u64>,
    /// Issue trace, when enabled.
    pub trace: Option<Vec<IssueRec>>,
    /// Device-launch calls issued this step, for the engine's launch unit (the
    /// warp waits until [`Sm::resolve_launch`]).
    pub launch_out: Vec<super::dp::LaunchCall>,
    /// Preempted TBs whose loads drained, for the engine to save (FGTB).
    pub preempted: Vec<SavedTb>,
}

const LOCAL_BASE: u64 = 0x7000_0000_0000;

impl Sm {
    /// SM `id` with parameters `p`, warp schedulers of `sched`.
    pub fn new(id: u32, p: Arc<SmParams>) -> Self {
        Self::with_ctx(id, p, &WarpSchedCtx::default())
    }

    /// SM `id` whose warp schedulers share GPU-wide state through `ctx`.
    pub fn with_ctx(id: u32, p: Arc<SmParams>, ctx: &WarpSchedCtx) -> Self {
        let g = &p.g;
        let n = g.schedulers_per_sm as usize;
        let (scheds, probe) = warp_schedulers(g, id, ctx);
        let mut l1 = L1::new(id, p.l1, p.l1_mshrs, g.l1_mshr_targets);
        l1.probe = probe;
        Sm {
            id,
            res: SmResources::default(),
            warps: Vec::new(),
            gates: Vec::new(),
            free_warps: Vec::new(),
            live: vec![Vec::new(); n],
            n_live: 0,
            tbs: Vec::new(),
            observe: scheds.iter().map(|s| s.observes()).collect(),
            mem_view: scheds
                .iter()
                .map(|s| s.observes() && s.mem_aware())
                .collect(),
            obs_stalled: Vec::new(),
            obs_bar: Vec::new(),
            obs_mem: Vec::new(),
            reexec: scheds.iter().any(|s| s.reexecutes()),
            scheds,
            fu_free: vec![[0; 3]; n],
            lsu_free: 0,
            smem_free: 0,
            l1,
            coal: Coalescer::new(p.l1.line_bytes, g.sector_bytes),
            miss_q: VecDeque::new(),
            head_stall: None,
            any_finished: false,
            wake: u64::MAX,
            last_step: 0,
            last_reason: vec![Stall::NoWarp; n],
            occ_last: 0,
            c: SmCounters::default(),
            scratch_addr: Vec::new(),
            scratch_lane: Vec::new(),
            scratch_tx: Vec::new(),
            scratch_w: Vec::new(),
            cands: Vec::new(),
            next_warp_gid: 0,
            per_kernel: Vec::new(),
            trace: None,
            launch_out: Vec::new(),
            preempted: Vec::new(),
            p,
        }
    }

    /// The L1D.
    pub fn l1(&self) -> &L1 {
        &self.l1
    }

    /// The L1D, mutably (to switch on its access breakdown).
    pub fn l1_mut(&mut self) -> &mut L1 {
        &mut self.l1
    }

    /// Hands a memory-side completion to the SM at its time.
    pub fn complete<D: DramBackend>(
        &mut self,
        c: &Completion,
        mem: &mut MemorySystem<D>,
        exits: &mut Vec<TbExit>,
    ) {
        let t = c.time;
        let id = c.token as u32;
        let who = self.owner_of(self.l1.first_waiter(id));
        let mut ws = std::mem::take(&mut self.scratch_w);
        ws.clear();
        self.l1.fill(id, who, &mut ws);
        for &w in &ws {
            self.load_returned(w, t, exits);
        }
        self.scratch_w = ws;
        self.retry(t, mem, exits);
        self.wake = self.wake.min(t);
    }

    fn owner_of(&self, waiter: u64) -> Owner {
        let w = &self.warps[(waiter >> 32) as usize];
        let tb = &self.tbs[w.tb as usize];
        Owner {
            warp: w.gid,
            tb: tb.gid,
            kernel: tb.kernel,
        }
    }

    fn load_returned(&mut self, waiter: u64, t: u64, exits: &mut Vec<TbExit>) {
        let slot = (waiter >> 32) as usize;
        self.gates[slot] = Gate::OPEN;
        let w = &mut self.warps[slot];
        if w.blocked == Some(Stall::Memory) {
            w.blocked = None;
        }
        if w.load_returned(waiter as u32, t) && w.outstanding == 0 {
            let (tb, finished) = (w.tb, w.finished);
            if self.tbs[tb as usize].preempting {
                self.maybe_drain(tb, t);
            } else if finished {
                self.maybe_exit_tb(tb, t, exits);
            }
        }
    }

    fn maybe_exit_tb(&mut self, tb: u32, t: u64, exits: &mut Vec<TbExit>) {
        let s = &self.tbs[tb as usize];
        if !s.used || s.live > 0 || s.preempting {
            return;
        }
        if s.warps
            .iter()
            .any(|&w| self.warps[w as usize].outstanding > 0)
        {
            return;
        }
        self.occupancy_to(t);
        let s = &mut self.tbs[tb as usize];
        s.used = false;
        let cost = s.cost;
        for &w in &s.warps {
            self.free_warps.push(w);
        }
        self.res.release_kernel(s.kernel, &cost);
        exits.push(TbExit {
            kernel: s.kernel,
            tb: s.gid,
            sm: self.id,
            time: t,
            start: s.start,
            mon: s.mon,
        });
    }

    /// Steps the SM at cycle `t`: each scheduler issues at most one instruction.
    #[allow(clippy::too_many_arguments)]
    pub fn step<D: DramBackend>(
        &mut self,
        t: u64,
        kernels: &[KernelRt],
        tables: &Tables,
        mem: &mut MemorySystem<D>,
        exits: &mut Vec<TbExit>,
        hook: &mut Option<Box<dyn L1Observer>>,
    ) {
        // Cycles skipped since the last step stalled for the reasons seen then.
        if t > self.last_step + 1 {
            let skipped = t - self.last_step - 1;
            for r in &self.last_reason {
                self.c.stalls[*r as usize] += skipped;
            }
        }
        self.last_step = t;
        self.occupancy_to(t);
        self.retry(t, mem, exits);
        let n = self.scheds.len() as u32;
        let mut wake = u64::MAX;
        for s in 0..n {
            let mut cands = std::mem::take(&mut self.cands);
            cands.clear();
            let observe = self.observe[s as usize];
            if observe {
                self.obs_stalled.clear();
                self.obs_bar.clear();
            }
            let mut best: Option<(u64, Stall)> = None;
            for i in 0..self.live[s as usize].len() {
                let ws = self.live[s as usize][i];
                let g = self.gates[ws as usize];
                let shut = match g.wait {
                    Wait::Until(why) => (g.at > t).then_some((g.at, why)),
                    Wait::Unit(u) => {
                        let f = self.fu_free[s as usize][u as usize];
                        (f > t).then_some((f, Stall::FuBusy))
                    }
                    Wait::Smem => (self.smem_free > t).then_some((self.smem_free, Stall::FuBusy)),
                    Wait::Lsu => {
                        if self.miss_q.len() >= self.p.g.lsu_queue as usize {
                            Some((u64::MAX, Stall::LsuFull))
                        } else {
                            // The queue has room: the warp's throttle interval
                            // (opened where `ready` returned `Wait::Lsu`) ends.
                            let w = &self.warps[ws as usize];
                            self.tbs[w.tb as usize].mon.throttle_off(t, w.warp_in_tb);
                            None
                        }
                    }
                };
                let r = match shut {
                    Some(e) => Err(e),
                    None => self.ready(ws, s, t, kernels, tables),
                };
                match r {
                    Ok(()) => cands.push(Cand {
                        slot: ws,
                        mem: false,
                        age: self.warps[ws as usize].age,
                    }),
                    Err((at, why)) => {
                        if best.map_or(true, |(b, _)| at < b) {
                            best = Some((at, why));
                        }
                        wake = wake.min(at);
                        if observe {
                            self.observed(ws, why);
                        }
                    }
                }
            }
            // A memory-aware scheduler is told every step (it follows its
            // warps' waits even when none is ready); the others only when a
            // warp is ready.
            if observe && (!cands.is_empty() || self.mem_view[s as usize]) {
                let had = !cands.is_empty();
                if self.mem_view[s as usize] {
                    self.mem_classes(&mut cands, kernels);
                    let v = MemView {
                        saturated: !self.miss_q.is_empty()
                            || self.l1.mshrs_in_use() >= self.p.l1_mshrs.max(1) as usize,
                        mem_wait: &self.obs_mem,
                        at_bar: &self.obs_bar,
                    };
                    self.scheds[s as usize].throttle_mem(&mut cands, &v);
                } else {
                    self.scheds[s as usize].throttle(&mut cands);
                }
                if had && cands.is_empty() {
                    wake = wake.min(t + 1);
                }
            }
            if cands.is_empty() {
                let why = best.map_or(Stall::NoWarp, |b| b.1);
                self.c.stalls[why as usize] += 1;
                self.last_reason[s as usize] = why;
                if observe {
                    self.scheds[s as usize].on_step(t, &self.obs_stalled, &self.obs_bar, None);
                }
            } else {
                let i = self.scheds[s as usize].pick(&cands);
                let ws = cands[i].slot;
                if observe {
                    let sched = &mut self.scheds[s as usize];
                    sched.on_step(t, &self.obs_stalled, &self.obs_bar, Some(cands[i]));
                }
                self.scheds[s as usize].on_issue(ws);
                self.issue(ws, s, t, kernels, tables, mem, exits, hook);
                wake = wake.min(t + 1);
                self.last_reason[s as usize] = best.map_or(Stall::NoWarp, |b| b.1);
                if cands.len() > 1 {
                    wake = t + 1;
                }
            }
            self.cands = cands;
        }
        if self.any_finished {
            self.any_finished = false;
            let warps = &self.warps;
            let mut n_live = 0;
            for l in &mut self.live {
                l.retain(|&w| !warps[w as usize].finished);
                n_live += l.len();
            }
            self.n_live = n_live;
        }
        self.wake = wake;
    }

    /// Whether the next instruction of warp `ws` (ready: its free instructions
    /// ran) is a global-memory instruction (one that uses the miss queue), for
    /// a memory-aware scheduler's [`Cand::mem`].
    fn next_is_global_mem(&self, ws: u32, kernels: &[KernelRt]) -> bool {
        let w = &self.warps[ws as usize];
        let code = &kernels[self.tbs[w.tb as usize].kernel as usize].code;
        matches!(&code.insts[w.top().pc as usize], Inst::Mem(m) if m.space != Space::Shared)
    }

    /// Files warp `ws`, which cannot issue for `why`, for an observing scheduler.
    fn observed(&mut self, ws: u32, why: Stall) {
        let c = Cand {
            slot: ws,
            mem: false,
            age: self.warps[ws as usize].age,
        };
        match why {
            Stall::Barrier => self.obs_bar.push(c),
            Stall::NoWarp => {}
            _ => self.obs_stalled.push(c),
        }
    }

    /// For a memory-aware scheduler, after the scan: each ready warp's
    /// [`Cand::mem`], and in `obs_mem` the stalled warps waiting for load data
    /// (their gates say so: `ready` leaves the reason there). Out of line, so
    /// the scan of the other policies is what it was.
    #[inline(never)]
    fn mem_classes(&mut self, cands: &mut [Cand], kernels: &[KernelRt]) {
        for c in cands.iter_mut() {
            c.mem = self.next_is_global_mem(c.slot, kernels);
        }
        self.obs_mem.clear();
        for c in &self.obs_stalled {
            if self.gates[c.slot as usize].wait == Wait::Until(Stall::Memory) {
                self.obs_mem.push(*c);
            }
        }
    }

    /// Answers warp `ws`'s launch call: the `launched` lanes skip the inline path;
    /// the warp issues again at `ready_at`.
    pub fn resolve_launch(&mut self, call: &super::dp::LaunchCall, launched: u32, ready_at: u64) {
        self.gates[call.warp_slot as usize] = Gate::OPEN;
        let w = &mut self.warps[call.warp_slot as usize];
        w.branch(launched, call.else_pc, call.end_pc);
        w.ready_at = ready_at;
        w.normalize();
        self.wake = self.wake.min(ready_at);
    }

    /// Makes the schedulers ask `ready` for warp slot `ws` again: for any change
    /// of a warp's state outside the engine's own events (see the `gate` module).
    pub fn open_gate(&mut self, ws: u32) {
        self.gates[ws as usize] = Gate::OPEN;
    }
}

/// The set lanes of a mask, in lane order.
#[inline]
fn lanes(mask: u32) -> impl Iterator<Item = u32> {
    let mut m = mask;
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let l = m.trailing_zeros();
            m &= m - 1;
            Some(l)
        }
    })
}
