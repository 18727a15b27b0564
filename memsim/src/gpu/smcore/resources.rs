//! The resource side of an SM: whether a TB fits, admission at dispatch
//! (registers, shared memory, threads, TB slots) and the occupancy and
//! resource-utilisation integrals kept over time. See the parent module for
//! the model (`gpu-seeds.md` §8.1).
//!
//! FGTB hooks (`gpu-seeds.md` §8.1 "TB preemption", issue #33): a resident TB's
//! counters ([`Sm::tb_sample`]); preemption ([`Sm::preempt`]): the TB's warps
//! stop issuing at once, and when none of its loads is outstanding it leaves
//! the SM with its warps' state and counters ([`SavedTb`] in
//! [`Sm::preempted`]), giving its resources back; restoring it elsewhere
//! ([`Sm::reserve`] when its context starts to come back, [`Sm::restore`] when
//! it arrived). The engine moves the context bytes (`gpu/fgtb/context.rs`).

use super::*;
use crate::gpu::fgtb::monitor::TbSample;

/// A preempted TB: everything the SM held of it.
#[derive(Clone, Debug)]
pub struct SavedTb {
    /// Kernel instance.
    pub kernel: u32,
    /// Global TB id.
    pub gid: u32,
    /// Geometry.
    pub geo: TbGeo,
    /// Resources it takes.
    pub cost: TbCost,
    /// Its warps (state, stack, slots, scoreboard), in TB order.
    pub warps: Vec<Warp>,
    /// Warps not finished.
    pub live: u32,
    /// Warps at the barrier.
    pub arrived: u32,
    /// Cycle of its first dispatch.
    pub start: u64,
    /// Its counters.
    pub mon: TbCounters,
}

/// A resident TB, as the TB scheduler sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResidentTb {
    /// Global TB id.
    pub gid: u32,
    /// Kernel instance.
    pub kernel: u32,
    /// Warps.
    pub warps: u32,
    /// Being preempted.
    pub preempting: bool,
}

impl Sm {
    /// Whether a TB of `k` fits now.
    pub fn fits(&self, k: &KernelRt) -> bool {
        self.res.can_admit(&self.p.g, &k.cost)
    }

    /// Whether a TB of `k` fits now within `k`'s share of the SM split `n`
    /// ways (sCKE's admission cap, [`SmResources::within_share`]).
    pub fn fits_share(&self, k: &KernelRt, n: u32) -> bool {
        self.fits(k) && self.res.within_share(&self.p.g, k.id, &k.cost, n)
    }

    /// Integrates occupancy and resource use up to `t` (statistics epochs).
    pub fn integrate_to(&mut self, t: u64) {
        self.occupancy_to(t);
    }

    /// No TB resident.
    pub fn is_empty(&self) -> bool {
        self.res.tbs == 0
    }

    pub(super) fn occupancy_to(&mut self, t: u64) {
        if t > self.occ_last {
            let w = self.n_live as u128;
            let d = (t - self.occ_last) as u128;
            self.c.warp_cycles += w * d;
            let r = &self.res;
            for (acc, used) in self
                .c
                .resource_cycles
                .iter_mut()
                .zip([r.regs, r.smem, r.threads, r.tbs])
            {
                *acc += used as u128 * d;
            }
            if w > 0 {
                self.c.active_cycles += t - self.occ_last;
            }
            self.occ_last = t;
        }
    }

    /// Accounts the cycles up to `t` (end of run).
    pub fn finish(&mut self, t: u64) {
        self.occupancy_to(t);
    }

    /// Places TB `tb_gid` (index `ctaid`) of `k` here at cycle `t`; `age0` numbers
    /// its warps' ages (launch order over the GPU).
    pub fn admit(&mut self, k: &KernelRt, tb_gid: u32, ctaid: [u32; 3], t: u64, age0: u64) {
        self.occupancy_to(t);
        self.res.admit_kernel(k.id, &k.cost);
        if self.per_kernel.len() <= k.id as usize {
            self.per_kernel.resize(k.id as usize + 1, 0);
        }
        let slot = match self.tbs.iter().position(|s| !s.used) {
            Some(i) => i,
            None => {
                self.tbs.push(TbSlot::default());
                self.tbs.len() - 1
            }
        };
        let threads = k.block[0] * k.block[1] * k.block[2];
        let nw = threads.div_ceil(32);
        let mut warps = Vec::with_capacity(nw as usize);
        for w in 0..nw {
            let lanes = (threads - w * 32).min(32);
            let gid = (self.id << 20) | (self.next_warp_gid & 0xF_FFFF);
            self.next_warp_gid = self.next_warp_gid.wrapping_add(1);
            let warp = Warp::new(gid, age0 + w as u64, slot as u32, w, lanes, k.code.slots, t);
            let ws = match self.free_warps.pop() {
                Some(i) => {
                    self.warps[i as usize] = warp;
                    self.gates[i as usize] = Gate::OPEN;
                    i
                }
                None => {
                    self.warps.push(warp);
                    self.gates.push(Gate::OPEN);
                    (self.warps.len() - 1) as u32
                }
            };
            warps.push(ws);
            let nsch = self.live.len() as u32;
            self.live[(ws % nsch) as usize].push(ws);
            let info = super::WarpInfo {
                slot: ws,
                age: age0 + w as u64,
                kernel: k.id,
                gid,
                tb: tb_gid,
            };
            self.scheds[(ws % nsch) as usize].on_warp_start(info, t);
            self.n_live += 1;
        }
        for l in &mut self.live {
            l.sort_unstable();
        }
        self.tbs[slot] = TbSlot {
            used: true,
            kernel: k.id,
            gid: tb_gid,
            geo: TbGeo {
                block: k.block,
                grid: k.grid,
                ctaid,
            },
            cost: k.cost,
            live: nw,
            warps,
            arrived: 0,
            start: t,
            mon: TbCounters {
                since: t,
                ..TbCounters::default()
            },
            preempting: false,
        };
        self.wake = self.wake.min(t);
    }

    /// Whether a TB of cost `c` fits now.
    pub fn fits_cost(&self, c: &TbCost) -> bool {
        self.res.can_admit(&self.p.g, c)
    }

    /// TBs resident now (preempting ones included).
    pub fn resident(&self) -> impl Iterator<Item = ResidentTb> + '_ {
        self.tbs.iter().filter(|s| s.used).map(|s| ResidentTb {
            gid: s.gid,
            kernel: s.kernel,
            warps: s.warps.len() as u32,
            preempting: s.preempting,
        })
    }

    fn slot_of(&self, gid: u32) -> Option<usize> {
        self.tbs.iter().position(|s| s.used && s.gid == gid)
    }

    /// The counters of resident TB `gid` at `t`.
    pub fn tb_sample(&self, gid: u32, t: u64) -> Option<TbSample> {
        self.slot_of(gid).map(|i| self.tbs[i].mon.sample(t))
    }

    /// Starts preempting resident TB `gid` at `t`: its warps stop issuing; it
    /// leaves (into [`Sm::preempted`]) when no load of it is outstanding.
    /// Refused (false) for a TB that is not resident, already leaving or done.
    pub fn preempt(&mut self, gid: u32, t: u64) -> bool {
        let Some(i) = self.slot_of(gid) else {
            return false;
        };
        let s = &self.tbs[i];
        if s.preempting || s.live == 0 {
            return false;
        }
        let pending_launch = s.warps.iter().any(|&w| {
            let w = &self.warps[w as usize];
            !w.finished && !w.at_bar && w.ready_at == u64::MAX
        });
        if pending_launch {
            return false;
        }
        self.occupancy_to(t);
        let s = &mut self.tbs[i];
        s.preempting = true;
        s.mon.unthrottle_all(t);
        let ws: Vec<u32> = s.warps.clone();
        let mut n_live = 0;
        for l in &mut self.live {
            l.retain(|w| !ws.contains(w));
            n_live += l.len();
        }
        self.n_live = n_live;
        for &w in &ws {
            // A warp throttled by a full LSU queue leaves with its TB (its
            // interval was closed by `unthrottle_all`); it restarts open.
            if self.gates[w as usize].wait == Wait::Lsu {
                self.gates[w as usize] = Gate::OPEN;
            }
        }
        self.maybe_drain(i as u32, t);
        true
    }

    /// Lets preempting TB slot `tb` leave if none of its loads is outstanding.
    pub(super) fn maybe_drain(&mut self, tb: u32, t: u64) {
        let s = &self.tbs[tb as usize];
        if !s.used || !s.preempting {
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
        s.preempting = false;
        let cost = s.cost;
        let kernel = s.kernel;
        let warps = s
            .warps
            .iter()
            .map(|&w| self.warps[w as usize].clone())
            .collect();
        self.free_warps.extend(s.warps.iter().copied());
        self.res.release_kernel(kernel, &cost);
        self.preempted.push(SavedTb {
            kernel: s.kernel,
            gid: s.gid,
            geo: s.geo,
            cost,
            warps,
            live: s.live,
            arrived: s.arrived,
            start: s.start,
            mon: s.mon,
        });
        self.wake = self.wake.min(t);
    }

    /// Puts the line of byte address `addr` in the L1 (a cacheable context
    /// line passing through, FGTB's cacheable option).
    pub fn install_line(&mut self, addr: u64) {
        let line = addr >> self.p.l1.line_shift();
        self.l1.install(line, Owner::default());
    }

    /// Takes the resources of a TB of cost `c` whose context is coming back
    /// (call only when [`Sm::fits_cost`]).
    pub fn reserve(&mut self, c: &TbCost, t: u64) {
        self.occupancy_to(t);
        self.res.admit(c);
    }

    /// Places a restored TB at `t` (its resources reserved by [`Sm::reserve`]):
    /// its warps go on where they stopped.
    pub fn restore(&mut self, saved: SavedTb, t: u64) {
        self.occupancy_to(t);
        // `reserve` took the totals; the kernel's share follows here
        self.res.admit_share(saved.kernel, &saved.cost);
        if self.per_kernel.len() <= saved.kernel as usize {
            self.per_kernel.resize(saved.kernel as usize + 1, 0);
        }
        let slot = match self.tbs.iter().position(|s| !s.used) {
            Some(i) => i,
            None => {
                self.tbs.push(TbSlot::default());
                self.tbs.len() - 1
            }
        };
        let nsch = self.live.len() as u32;
        let mut warps = Vec::with_capacity(saved.warps.len());
        for mut w in saved.warps {
            w.tb = slot as u32;
            w.blocked = None;
            w.ready_at = w.ready_at.max(t);
            let finished = w.finished;
            let ws = match self.free_warps.pop() {
                Some(i) => {
                    self.warps[i as usize] = w;
                    self.gates[i as usize] = Gate::OPEN;
                    i
                }
                None => {
                    self.warps.push(w);
                    self.gates.push(Gate::OPEN);
                    (self.warps.len() - 1) as u32
                }
            };
            warps.push(ws);
            if !finished {
                self.live[(ws % nsch) as usize].push(ws);
                self.n_live += 1;
            }
        }
        for l in &mut self.live {
            l.sort_unstable();
        }
        let mut mon = saved.mon;
        mon.since = t;
        self.tbs[slot] = TbSlot {
            used: true,
            kernel: saved.kernel,
            gid: saved.gid,
            geo: saved.geo,
            cost: saved.cost,
            warps,
            live: saved.live,
            arrived: saved.arrived,
            start: saved.start,
            mon,
            preempting: false,
        };
        self.wake = self.wake.min(t);
    }
}
