//! MASCAR, memory-aware scheduling and cache access re-execution (Sethia,
//! Jamshidi, Mahlke, HPCA 2015; an iPAWS baseline and its greedy side in
//! RR↔MASCAR, digest §5.2 and §5 "Extensions"; `docs/gpu-ipaws.md`).
//!
//! The iPAWS paper says only that MASCAR "detect[s] memory saturation and
//! limit[s] warps which send memory requests simultaneously" (iPAWS §6) and names
//! its cache access re-execution (digest §5.2). Everything else is from the
//! MASCAR paper as recalled, not checked against its text ([X]: the abstract
//! confirms saturation detection, prioritised memory requests among warps, and
//! re-execution of memory instructions that could not be sent, to use the
//! cache's hits), or assumed here ([I]):
//!
//! * **Saturation signal** [X] a flag raised when the SM's memory path cannot
//!   take more requests. Here [I]: every L1 MSHR is in use, or at least one
//!   transaction waits in the SM's miss queue (the L1 refused it for lack of an
//!   MSHR), read by the SM at each scheduler step ([`MemView::saturated`]). (A
//!   miss queue at `lsu_queue` never held a warp back: the engine's LSU
//!   back-pressure already stops every memory instruction there.)
//! * **Memory-access-priority mode** (saturated) [X]: one *owner* warp may issue
//!   memory instructions; the other warps may issue only non-memory ones, so the
//!   owner gets all its requests out and reaches its computation early. Here the
//!   owner is per SM (shared by its schedulers) [I]; ready memory warps other than
//!   the owner are held back ([`WarpScheduler::throttle_mem`]); the pick is the
//!   owner if it is ready (memory or not), else GTO over the ready compute warps
//!   [I]. Only global-memory instructions count as memory (shared memory does
//!   not use the MSHRs) [I].
//! * **Owner hand-over** [X]: the owner keeps the right until it waits for the
//!   data of one of its loads; then another warp with a memory instruction
//!   becomes the owner. Here [I]: the owner is released when its scheduler sees
//!   it waiting for load data (`Stall::Memory`) or at a barrier (the rest of its
//!   TB may need memory to arrive), or when it finishes; while saturated and
//!   without an owner, the oldest ready memory warp of the scheduler that steps
//!   first becomes the owner. A warp held up by the full miss queue keeps it. The
//!   release is seen at the owner's scheduler's next step (the SM's schedulers
//!   step in order, so the other one may see the old owner for one step).
//! * **Compute-priority mode** (not saturated) [X as recalled; the MASCAR paper
//!   may call it "equal priority"]: ready warps whose next instruction is not a
//!   memory instruction first, GTO among them; memory warps, GTO, when no compute
//!   warp is ready [I: GTO as the order inside a class].
//! * **Cache access re-execution** [X]: memory instructions that cannot be sent
//!   for lack of MSHRs wait in a re-execution queue beside the L1 and are
//!   replayed, while later accesses that hit are served (hits under misses).
//!   Here the SM's miss queue is that queue (unbounded beyond the
//!   `lsu_queue` back-pressure, [I]; the paper's queue has a fixed size), and
//!   with [`WarpScheduler::reexecutes`] a read that hits is served past the
//!   refused lookups instead of waiting behind them (`smcore/lsu.rs`).
//!   Merges into outstanding MSHRs still wait in order [I].
//!
//! Counters ([`MascarStats`], the `mascar` report of `weft gpusim --json`) show
//! what it did: saturated steps, owner appointments, memory warps held back,
//! memory issues while saturated, and the re-executed hits.

use crate::gpu::sched::{Cand, MemView, WarpInfo, WarpScheduler};
use serde::Serialize;
use std::cell::RefCell;
use std::rc::Rc;

/// MASCAR's counters, summed over the SMs and their schedulers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MascarStats {
    /// Scheduler steps at which the mode was decided.
    pub steps: u64,
    /// Of them, steps in memory-access-priority mode (memory path saturated).
    pub saturated_steps: u64,
    /// Owner appointments (a warp made the owner; the first of each saturated
    /// period included).
    pub handovers: u64,
    /// Owners released (waiting for data, at a barrier or finished).
    pub releases: u64,
    /// Ready memory warps held back (not the owner while saturated), summed over
    /// steps.
    pub held_back: u64,
    /// Steps with ready warps at which all of them were held back.
    pub idle_steps: u64,
    /// Global-memory instructions issued through MASCAR's pick.
    pub mem_issued: u64,
    /// Of them, while saturated (by the owner).
    pub mem_issued_saturated: u64,
    /// Compute-priority picks of a compute warp while a memory warp was ready.
    pub compute_first: u64,
}

/// What a MASCAR run did (`weft gpusim --json`: `mascar`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MascarReport {
    /// The schedulers' counters.
    #[serde(flatten)]
    pub sched: MascarStats,
    /// L1 hits served past refused lookups in the miss queue (re-execution).
    pub reexec_hits: u64,
}

/// GPU-wide MASCAR state: the counters (`None` until a MASCAR scheduler exists).
#[derive(Clone, Debug, Default)]
pub struct MascarShared {
    stats: Rc<RefCell<Option<MascarStats>>>,
}

impl MascarShared {
    /// The counters so far (`None`: no MASCAR scheduler was built).
    pub fn stats(&self) -> Option<MascarStats> {
        *self.stats.borrow()
    }
}

/// Per-SM state shared by the SM's schedulers: the owner warp (slot, age).
#[derive(Debug, Default)]
pub struct MascarCore {
    owner: Option<(u32, u64)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Compute,
    Memory,
}

/// One MASCAR scheduler of an SM.
#[derive(Debug)]
pub struct Mascar {
    core: Rc<RefCell<MascarCore>>,
    stats: Rc<RefCell<Option<MascarStats>>>,
    /// The warp that issued last (GTO's greedy warp inside a class).
    last: Option<u32>,
    mode: Mode,
    /// The warp of the last pick (for the issue counters).
    picked: Option<Cand>,
}

impl Mascar {
    /// A scheduler on SM state `core`, counting into `shared`.
    pub fn new(core: Rc<RefCell<MascarCore>>, shared: &MascarShared) -> Self {
        shared
            .stats
            .borrow_mut()
            .get_or_insert_with(Default::default);
        Mascar {
            core,
            stats: shared.stats.clone(),
            last: None,
            mode: Mode::Compute,
            picked: None,
        }
    }

    fn count(&self, f: impl FnOnce(&mut MascarStats)) {
        if let Some(s) = self.stats.borrow_mut().as_mut() {
            f(s);
        }
    }

    /// GTO over the candidates `keep` accepts: the greedy warp if among them,
    /// else the oldest of them (`None`: none accepted).
    fn gto(&self, ready: &[Cand], keep: impl Fn(&Cand) -> bool) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, c) in ready.iter().enumerate() {
            if !keep(c) {
                continue;
            }
            if Some(c.slot) == self.last {
                return Some(i);
            }
            if best.map_or(true, |b| c.age < ready[b].age) {
                best = Some(i);
            }
        }
        best
    }
}

impl WarpScheduler for Mascar {
    fn name(&self) -> &'static str {
        "mascar"
    }

    fn pick(&mut self, ready: &[Cand]) -> usize {
        let i = match self.mode {
            Mode::Memory => {
                let owner = self.core.borrow().owner;
                ready
                    .iter()
                    .position(|c| Some((c.slot, c.age)) == owner)
                    .or_else(|| self.gto(ready, |_| true))
            }
            Mode::Compute => {
                let i = self.gto(ready, |c| !c.mem);
                if i.is_some() && ready.iter().any(|c| c.mem) {
                    self.count(|s| s.compute_first += 1);
                }
                i.or_else(|| self.gto(ready, |_| true))
            }
        }
        .unwrap_or(0);
        self.picked = Some(ready[i]);
        i
    }

    fn on_issue(&mut self, slot: u32) {
        self.last = Some(slot);
        if self.picked.take().is_some_and(|p| p.slot == slot && p.mem) {
            let sat = self.mode == Mode::Memory;
            self.count(|s| {
                s.mem_issued += 1;
                s.mem_issued_saturated += sat as u64;
            });
        }
    }

    fn observes(&self) -> bool {
        true
    }

    fn mem_aware(&self) -> bool {
        true
    }

    fn reexecutes(&self) -> bool {
        true
    }

    fn throttle_mem(&mut self, ready: &mut Vec<Cand>, v: &MemView) {
        let mut core = self.core.borrow_mut();
        let mut st = self.stats.borrow_mut();
        let st = st.get_or_insert_with(Default::default);
        st.steps += 1;
        if let Some((slot, age)) = core.owner {
            let is = |c: &Cand| c.slot == slot && c.age == age;
            if v.mem_wait.iter().any(is) || v.at_bar.iter().any(is) {
                core.owner = None;
                st.releases += 1;
            }
        }
        if !v.saturated {
            self.mode = Mode::Compute;
            return;
        }
        self.mode = Mode::Memory;
        st.saturated_steps += 1;
        if core.owner.is_none() {
            if let Some(c) = ready.iter().filter(|c| c.mem).min_by_key(|c| c.age) {
                core.owner = Some((c.slot, c.age));
                st.handovers += 1;
            }
        }
        let owner = core.owner;
        let before = ready.len();
        ready.retain(|c| !c.mem || Some((c.slot, c.age)) == owner);
        st.held_back += (before - ready.len()) as u64;
        if before > 0 && ready.is_empty() {
            st.idle_steps += 1;
        }
    }

    fn on_warp_exit(&mut self, w: WarpInfo, _t: u64) {
        let mut core = self.core.borrow_mut();
        if core.owner == Some((w.slot, w.age)) {
            core.owner = None;
            self.count(|s| s.releases += 1);
        }
    }
}

/// The `n` MASCAR schedulers of an SM (one shared owner), counting into `shared`.
pub fn schedulers(shared: &MascarShared, n: u32) -> Vec<Box<dyn WarpScheduler>> {
    let core = Rc::new(RefCell::new(MascarCore::default()));
    (0..n)
        .map(|_| Box::new(Mascar::new(core.clone(), shared)) as Box<dyn WarpScheduler>)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(slot: u32, age: u64, mem: bool) -> Cand {
        Cand { slot, mem, age }
    }

    fn view<'a>(saturated: bool, mem_wait: &'a [Cand], at_bar: &'a [Cand]) -> MemView<'a> {
        MemView {
            saturated,
            mem_wait,
            at_bar,
        }
    }

    fn slots(r: &[Cand]) -> Vec<u32> {
        r.iter().map(|c| c.slot).collect()
    }

    /// One step: throttle, pick, issue; the issued slot (`None`: all held back).
    fn step(s: &mut dyn WarpScheduler, ready: &[Cand], v: &MemView) -> Option<u32> {
        let mut r = ready.to_vec();
        s.throttle_mem(&mut r, v);
        if r.is_empty() {
            return None;
        }
        let slot = r[s.pick(&r)].slot;
        s.on_issue(slot);
        Some(slot)
    }

    /// Not saturated: compute warps first (GTO among them), memory warps only
    /// when no compute warp is ready; saturated: only the owner, the oldest ready
    /// memory warp, keeps its memory instruction, and it goes first.
    #[test]
    fn mode_switch_and_pick_order() {
        let sh = MascarShared::default();
        let mut v = schedulers(&sh, 1);
        let s = v[0].as_mut();
        // slot 0: memory (age 0), 1: compute (age 3), 2: memory (age 1),
        // 3: compute (age 2)
        let ready = [c(0, 0, true), c(1, 3, false), c(2, 1, true), c(3, 2, false)];
        let free = view(false, &[], &[]);
        // compute priority: the oldest compute warp (slot 3, age 2), then greedy
        assert_eq!(step(s, &ready, &free), Some(3));
        assert_eq!(step(s, &ready, &free), Some(3));
        // slot 3 not ready: the oldest other compute warp
        assert_eq!(step(s, &[ready[0], ready[1], ready[2]], &free), Some(1));
        // only memory warps: GTO among them (oldest, slot 0)
        assert_eq!(step(s, &[ready[0], ready[2]], &free), Some(0));
        let st = sh.stats().unwrap();
        assert_eq!((st.steps, st.saturated_steps, st.handovers), (4, 0, 0));
        assert_eq!(st.compute_first, 3);
        assert_eq!((st.mem_issued, st.mem_issued_saturated), (1, 0));
        // saturated: owner = oldest ready memory warp (slot 0); slot 2 held back;
        // the owner goes first although slot 1 issued last
        let sat = view(true, &[], &[]);
        let mut r = ready.to_vec();
        s.throttle_mem(&mut r, &sat);
        assert_eq!(slots(&r), vec![0, 1, 3]);
        assert_eq!(r[s.pick(&r)].slot, 0);
        s.on_issue(0);
        // the owner not ready (miss queue full: no release): compute only
        let mut r = vec![ready[1], ready[2], ready[3]];
        s.throttle_mem(&mut r, &sat);
        assert_eq!(slots(&r), vec![1, 3]);
        assert_eq!(r[s.pick(&r)].slot, 3); // oldest compute (slot 0 was greedy)
        s.on_issue(3);
        let st = sh.stats().unwrap();
        assert_eq!((st.steps, st.saturated_steps, st.handovers), (6, 2, 1));
        assert_eq!(st.held_back, 2);
        assert_eq!((st.mem_issued, st.mem_issued_saturated), (2, 1));
    }

    /// The owner keeps the right until it waits for load data or at a barrier,
    /// or finishes; then the oldest ready memory warp takes over. Two schedulers
    /// of one SM share the owner.
    #[test]
    fn owner_hand_over() {
        let sh = MascarShared::default();
        let mut v = schedulers(&sh, 2);
        let (a, b) = v.split_at_mut(1);
        let (s0, s1) = (a[0].as_mut(), b[0].as_mut());
        let sat = view(true, &[], &[]);
        // scheduler 0 appoints slot 0 (age 4; slot 2, age 6, held back)
        assert_eq!(step(s0, &[c(0, 4, true), c(2, 6, true)], &sat), Some(0));
        // scheduler 1's memory warps are held back: nothing issues
        assert_eq!(step(s1, &[c(1, 1, true), c(3, 2, true)], &sat), None);
        // the owner waits for its data: scheduler 0 releases it and, saturated,
        // appoints its oldest ready memory warp
        let wait = [c(0, 4, false)];
        assert_eq!(step(s0, &[c(2, 6, true)], &view(true, &wait, &[])), Some(2));
        // owner at a barrier: released; scheduler 0 has no memory warp ready
        let bar = [c(2, 6, false)];
        assert_eq!(step(s0, &[c(4, 7, false)], &view(true, &[], &bar)), Some(4));
        // scheduler 1 now appoints its oldest ready memory warp
        assert_eq!(step(s1, &[c(3, 2, true), c(1, 1, true)], &sat), Some(1));
        // the owner finishes: released, next saturated step appoints slot 3
        s1.on_warp_exit(
            WarpInfo {
                slot: 1,
                age: 1,
                kernel: 0,
                gid: 1,
                tb: 0,
            },
            9,
        );
        assert_eq!(step(s1, &[c(3, 2, true)], &sat), Some(3));
        // the same slot with another age (a new warp) is not the owner
        assert_eq!(step(s0, &[c(3, 99, true)], &sat), None);
        let st = sh.stats().unwrap();
        assert_eq!(st.handovers, 4);
        assert_eq!(st.releases, 3);
        assert_eq!(st.idle_steps, 2);
        assert_eq!(st.mem_issued_saturated, 4);
        // no longer saturated: everyone may issue memory again
        assert_eq!(step(s0, &[c(5, 3, true)], &view(false, &[], &[])), Some(5));
    }
}
