//! Scheduling policies behind traits (digest §8.3): the warp schedulers of an SM
//! ([`WarpScheduler`]: LRR, GTO, two-level) and the thread-block dispatcher
//! ([`TbDispatchPolicy`]: round-robin, digest §2.2; the locality-aware policies
//! that need each TB's parent live in [`super::tbsched`]).
//!
//! A warp scheduler sees the warps that can issue this cycle, as candidates in
//! warp-slot order with their age (launch order, smaller = older), and picks one;
//! it is told which warp issued. The engine knows no policy; iPAWS-style
//! meta-policies wrap these (`super::warpsched`). Their extra inputs are default
//! methods that LRR, GTO and two-level ignore: warp starts and exits, and, only for
//! a scheduler that [`WarpScheduler::observes`], each step's stalled and
//! barrier-waiting warps (the SM collects them only then, so the other policies
//! pay nothing and behave exactly as before).

use super::config::{GpuConfig, KernelOrder, TbSchedKind, WarpSchedKind};
use super::dp::pool::LaunchPriority;
use super::dp::ParentInfo;
use super::l1::L1Observer;
use super::warpsched::{self, WarpSchedCtx};

/// A warp that can issue now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cand {
    /// Warp slot on the SM.
    pub slot: u32,
    /// Its next instruction is a global-memory instruction (one that goes
    /// through the LSU's miss queue: not shared memory). Filled in only for a
    /// memory-aware scheduler ([`WarpScheduler::mem_aware`]); `false` otherwise
    /// and in the lists of stalled and barrier-waiting warps.
    pub mem: bool,
    /// Age: dynamic warp id, smaller = launched earlier.
    pub age: u64,
}

/// What a memory-aware scheduler ([`WarpScheduler::mem_aware`]) sees of its SM
/// at a step, besides the ready warps (MASCAR, `super::warpsched::mascar`).
#[derive(Clone, Copy, Debug)]
pub struct MemView<'a> {
    /// The SM's memory path is saturated: every L1 MSHR is in use, or a
    /// transaction waits in the miss queue (the L1 refused it for lack of an
    /// MSHR or target, or the memory side refused its request).
    pub saturated: bool,
    /// This scheduler's warps waiting for the data of a load (`Stall::Memory`).
    pub mem_wait: &'a [Cand],
    /// This scheduler's warps waiting at a barrier.
    pub at_bar: &'a [Cand],
}

/// A warp as the start and exit notifications name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpInfo {
    /// Warp slot on the SM.
    pub slot: u32,
    /// Age: dynamic warp id, smaller = launched earlier.
    pub age: u64,
    /// Kernel instance.
    pub kernel: u32,
    /// Global warp id (the L1's owner tag).
    pub gid: u32,
    /// Global TB id of the warp's TB (OWL's CTA groups).
    pub tb: u32,
}

/// A warp issue policy (one instance per scheduler of an SM).
pub trait WarpScheduler {
    /// Policy name.
    fn name(&self) -> &'static str;
    /// Index into `ready` (non-empty, slot order) of the warp to issue.
    fn pick(&mut self, ready: &[Cand]) -> usize;
    /// Warp `slot` issued.
    fn on_issue(&mut self, slot: u32);
    /// Whether the SM reports every step through [`WarpScheduler::on_step`].
    /// Default `false`: the SM collects nothing.
    fn observes(&self) -> bool {
        false
    }
    /// One step of this scheduler at cycle `t` (only if it [`observes`]): the
    /// warps whose next instruction could not issue (scoreboard, memory, unit
    /// busy, LSU full), the warps waiting at a barrier, and the warp that issued
    /// (`None`: nothing issued). Cycles the SM skipped had no issue.
    ///
    /// [`observes`]: WarpScheduler::observes
    fn on_step(&mut self, _t: u64, _stalled: &[Cand], _at_bar: &[Cand], _issued: Option<Cand>) {}
    /// Removes the warps that may not issue this step (only if it [`observes`];
    /// called before [`WarpScheduler::pick`]). When it removes every ready warp,
    /// nothing issues and the SM looks again next cycle.
    ///
    /// [`observes`]: WarpScheduler::observes
    fn throttle(&mut self, _ready: &mut Vec<Cand>) {}
    /// Whether the SM builds a [`MemView`] for [`WarpScheduler::throttle_mem`]
    /// (only asked of observing schedulers; default `false`).
    fn mem_aware(&self) -> bool {
        false
    }
    /// [`WarpScheduler::throttle`] with the SM's memory view, called in its
    /// place for a [`mem_aware`](WarpScheduler::mem_aware) scheduler.
    fn throttle_mem(&mut self, ready: &mut Vec<Cand>, _v: &MemView) {
        self.throttle(ready)
    }
    /// Whether the SM's LSU re-executes L1 hits under stalled misses (MASCAR's
    /// cache access re-execution): a read that hits the L1 does not wait in the
    /// miss queue behind lookups refused for lack of an MSHR. Asked once, when
    /// the SM is built (default `false`: strict in-order miss queue).
    fn reexecutes(&self) -> bool {
        false
    }
    /// A warp of this scheduler was created at cycle `t`.
    fn on_warp_start(&mut self, _w: WarpInfo, _t: u64) {}
    /// A warp of this scheduler finished (its last instruction issued) at `t`.
    fn on_warp_exit(&mut self, _w: WarpInfo, _t: u64) {}
}

/// Loose round-robin: the first ready warp after the one that issued last.
#[derive(Clone, Debug, Default)]
pub struct Lrr {
    last: Option<u32>,
}

impl WarpScheduler for Lrr {
    fn name(&self) -> &'static str {
        "lrr"
    }
    fn pick(&mut self, ready: &[Cand]) -> usize {
        match self.last {
            Some(l) => ready.iter().position(|c| c.slot > l).unwrap_or(0),
            None => 0,
        }
    }
    fn on_issue(&mut self, slot: u32) {
        self.last = Some(slot);
    }
}

/// Greedy then oldest: the warp that issued last while it can, else the oldest.
#[derive(Clone, Debug, Default)]
pub struct Gto {
    last: Option<u32>,
}

fn oldest(ready: &[Cand]) -> usize {
    let mut best = 0;
    for (i, c) in ready.iter().enumerate() {
        if c.age < ready[best].age {
            best = i;
        }
    }
    best
}

impl WarpScheduler for Gto {
    fn name(&self) -> &'static str {
        "gto"
    }
    fn pick(&mut self, ready: &[Cand]) -> usize {
        if let Some(l) = self.last {
            if let Some(i) = ready.iter().position(|c| c.slot == l) {
                return i;
            }
        }
        oldest(ready)
    }
    fn on_issue(&mut self, slot: u32) {
        self.last = Some(slot);
    }
}

/// Two-level: warp slots in fetch groups of `group`; greedy-then-oldest across the
/// groups (stay in the group that issued last while it has a ready warp, else the
/// group of the oldest ready warp), round-robin inside the group.
#[derive(Clone, Debug)]
pub struct TwoLevel {
    group: u32,
    last: Option<u32>,
}

impl TwoLevel {
    /// Groups of `group` warp slots.
    pub fn new(group: u32) -> Self {
        TwoLevel {
            group: group.max(1),
            last: None,
        }
    }
}

impl WarpScheduler for TwoLevel {
    fn name(&self) -> &'static str {
        "two-level"
    }
    fn pick(&mut self, ready: &[Cand]) -> usize {
        let g = match self.last {
            Some(l) if ready.iter().any(|c| c.slot / self.group == l / self.group) => {
                l / self.group
            }
            _ => ready[oldest(ready)].slot / self.group,
        };
        let in_group = |c: &Cand| c.slot / self.group == g;
        let after = self.last.filter(|l| l / self.group == g);
        if let Some(l) = after {
            if let Some(i) = ready.iter().position(|c| in_group(c) && c.slot > l) {
                return i;
            }
        }
        ready.iter().position(in_group).unwrap_or(0)
    }
    fn on_issue(&mut self, slot: u32) {
        self.last = Some(slot);
    }
}

/// A warp scheduler of a basic kind `k` (LRR, GTO, two-level); `None` for the
/// meta-policies, which need the SM's other schedulers ([`warp_schedulers`]).
pub fn warp_scheduler(k: WarpSchedKind, group: u32) -> Option<Box<dyn WarpScheduler>> {
    Some(match k {
        WarpSchedKind::Lrr => Box::new(Lrr::default()),
        WarpSchedKind::Gto => Box::new(Gto::default()),
        WarpSchedKind::TwoLevel => Box::new(TwoLevel::new(group)),
        WarpSchedKind::Owl => Box::new(warpsched::owl::Owl::default()),
        _ => return None,
    })
}

/// The `g.schedulers_per_sm` warp schedulers of SM `sm`: the basic policies one
/// each; the meta-policies (iPAWS, CCWS) share per-SM state between them and
/// GPU-wide state through `ctx`, and may come with a probe for the SM's L1.
pub fn warp_schedulers(g: &GpuConfig, sm: u32, ctx: &WarpSchedCtx) -> warpsched::SmSchedulers {
    let n = g.schedulers_per_sm.max(1);
    match warp_scheduler(g.warp_scheduler, g.two_level_group) {
        Some(_) => (
            (0..n)
                .filter_map(|_| warp_scheduler(g.warp_scheduler, g.two_level_group))
                .collect(),
            None,
        ),
        None => warpsched::schedulers(g.warp_scheduler, sm, n, ctx),
    }
}

/// A source of TBs as policies with the parent view see it (LaPerm, LASER): a
/// distributor kernel's own TBs, or under DTBL one aggregated group coalesced into
/// it. Listed in the dispatcher's FCFS order (a kernel's native TBs before its
/// groups, groups in NAGEI order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DispatchUnit {
    /// Distributor kernel the TBs are taken through.
    pub kernel: u32,
    /// Kernel record the TBs run as (`kernel` itself, or a DTBL group's record).
    pub record: u32,
    /// A DTBL aggregated group.
    pub group: bool,
    /// Launching thread (`None`: host launch).
    pub parent: Option<ParentInfo>,
    /// Nesting depth (host kernels 0).
    pub depth: u32,
    /// TBs left to dispatch (at least 1).
    pub left: u64,
    /// TBs in the unit.
    pub tbs: u64,
}

/// The thread-block dispatcher's policy: where the next TB goes.
///
/// Two views: [`Self::select`] sees the runnable kernels only (round-robin);
/// a policy whose [`Self::wants_units`] is true is asked [`Self::select_unit`]
/// with every [`DispatchUnit`] and its parent instead, and told of dispatches and
/// exits ([`Self::on_dispatch`], [`Self::on_tb_done`]).
pub trait TbDispatchPolicy {
    /// Policy name.
    fn name(&self) -> &'static str;
    /// Picks a kernel (index into the kernel distributor's runnable kernels, in
    /// FCFS order, `kernels` of them) whose next TB goes to an SM (of `sms`);
    /// `fits(k, sm)` says whether it fits there now. `None`: nothing fits.
    fn select(
        &mut self,
        kernels: usize,
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Option<(usize, usize)>;
    /// A TB exited from `sm`.
    fn on_tb_exit(&mut self, _sm: usize) {}
    /// Whether the policy dispatches from [`DispatchUnit`]s (default: kernels).
    fn wants_units(&self) -> bool {
        false
    }
    /// Picks a unit (index into `units`) and an SM at cycle `now`; `fits(u, sm)`
    /// says whether unit `u`'s next TB fits SM `sm` now. Only called when
    /// [`Self::wants_units`].
    fn select_unit(
        &mut self,
        _units: &[DispatchUnit],
        _sms: usize,
        _fits: &mut dyn FnMut(usize, usize) -> bool,
        _now: u64,
    ) -> Option<(usize, usize)> {
        None
    }
    /// TB `index` of kernel record `record` went to `sm` at `now`.
    fn on_dispatch(&mut self, _record: u32, _index: u64, _sm: usize, _now: u64) {}
    /// TB `index` of kernel record `record` left `sm` at `now`.
    fn on_tb_done(&mut self, _record: u32, _index: u64, _sm: usize, _now: u64) {}
    /// Earliest cycle after `now` at which the policy has a TB to offer that it
    /// hides now (an entry on its way from a global-memory overflow).
    fn wake_at(&self, _now: u64) -> Option<u64> {
        None
    }
    /// The policy's L1 monitor (LASER's reuse monitors), installed as an L1 hook.
    fn l1_observer(&mut self) -> Option<Box<dyn L1Observer>> {
        None
    }
    /// Policy counters for the statistics (`tb_policy` in the JSON).
    fn report(&self) -> Option<serde_json::Value> {
        None
    }
    /// The GPU's warp-scheduler state, given once when the policy is installed
    /// (LASER's oracle files wavefront groups there).
    fn attach(&mut self, _ctx: &WarpSchedCtx) {}
    /// What sets a child kernel's pending-pool priority at its launch (LASER's
    /// HPQ / LPQ), installed in the device-launch unit; `None`: an FCFS pool.
    fn launch_priority(&mut self) -> Option<Box<dyn LaunchPriority>> {
        None
    }
    /// Whether every SM's resources are split equally between the kernels
    /// with TBs to dispatch (sCKE): the engine then offers a TB only where it
    /// fits its kernel's share (`SmResources::within_share`). Default false.
    fn splits_sms(&self) -> bool {
        false
    }
}

/// Round-robin (digest §2.2): TBs in increasing id order, kernels FCFS; each TB goes
/// to the next SM, from the one after the last TB's, that has room for it. With
/// [`RoundRobin::rotating`], each TB comes from the next kernel after the one
/// served last instead (GPGPU-Sim 3.x, [`KernelOrder::Rotate`]); kernels are
/// the distributor's runnable ones by position, so when one finishes the
/// rotation continues at the same position.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    next: usize,
    rotate: bool,
    next_kernel: usize,
}

impl RoundRobin {
    /// Round-robin over the SMs with kernels in turn ([`KernelOrder::Rotate`]).
    pub fn rotating() -> Self {
        RoundRobin {
            rotate: true,
            ..Default::default()
        }
    }
}

impl TbDispatchPolicy for RoundRobin {
    fn name(&self) -> &'static str {
        "rr"
    }
    fn select(
        &mut self,
        kernels: usize,
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Option<(usize, usize)> {
        for j in 0..kernels {
            let k = if self.rotate {
                (self.next_kernel + j) % kernels
            } else {
                j
            };
            for i in 0..sms {
                let sm = (self.next + i) % sms;
                if fits(k, sm) {
                    self.next = (sm + 1) % sms;
                    self.next_kernel = k + 1;
                    return Some((k, sm));
                }
            }
        }
        None
    }
}

/// A TB dispatch policy of kind `k`; `dtbl`: device launches are DTBL groups
/// (LaPerm's on-chip queue capacities differ between CDP and DTBL); `order`:
/// the round-robin policy's kernel order.
pub fn tb_policy(k: TbSchedKind, dtbl: bool, order: KernelOrder) -> Box<dyn TbDispatchPolicy> {
    match k {
        TbSchedKind::Rr if order == KernelOrder::Rotate => Box::new(RoundRobin::rotating()),
        TbSchedKind::Rr => Box::new(RoundRobin::default()),
        other => super::tbsched::policy(other, dtbl),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(slot: u32, age: u64) -> Cand {
        Cand {
            slot,
            mem: false,
            age,
        }
    }

    #[test]
    fn round_robin_kernel_orders() {
        // Two kernels with TBs left, two SMs with room for everything: FCFS
        // serves kernel 0 while its TBs fit; rotation alternates kernels, and
        // a kernel whose TB fits nowhere is passed over.
        let mut fcfs = RoundRobin::default();
        let mut rot = RoundRobin::rotating();
        let mut all = |_: usize, _: usize| true;
        let a: Vec<_> = (0..4)
            .map(|_| fcfs.select(2, 2, &mut all).unwrap())
            .collect();
        let b: Vec<_> = (0..4)
            .map(|_| rot.select(2, 2, &mut all).unwrap())
            .collect();
        assert_eq!(a, vec![(0, 0), (0, 1), (0, 0), (0, 1)]);
        assert_eq!(b, vec![(0, 0), (1, 1), (0, 0), (1, 1)]);
        // kernel 1 fits only SM 1; the next pick after kernel 0 tries kernel 1
        let mut only = |k: usize, sm: usize| k == 0 || sm == 1;
        let mut rot = RoundRobin::rotating();
        assert_eq!(rot.select(2, 2, &mut only), Some((0, 0)));
        assert_eq!(rot.select(2, 2, &mut only), Some((1, 1)));
        assert_eq!(rot.select(2, 2, &mut only), Some((0, 0)));
        // three kernels, the middle one full: rotation skips it
        let mut skip = |k: usize, _: usize| k != 1;
        let picks: Vec<_> = (0..4)
            .map(|_| rot.select(3, 2, &mut skip).unwrap().0)
            .collect();
        assert_eq!(picks, vec![2, 0, 2, 0]);
        assert_eq!(KernelOrder::parse("rotate"), Some(KernelOrder::Rotate));
        assert_eq!(KernelOrder::parse("fcfs"), Some(KernelOrder::Fcfs));
        assert_eq!(KernelOrder::parse("lifo"), None);
        // setting it on a machine: a GPU preset takes it, a CPU one has no table
        let mut m = crate::config::MachineConfig::preset("k20c-dtbl").unwrap();
        KernelOrder::apply(&mut m, "rotate").unwrap();
        assert_eq!(m.gpu.as_ref().unwrap().kernel_order, KernelOrder::Rotate);
        let e = KernelOrder::apply(&mut m, "lifo").unwrap_err();
        assert!(e.contains("expected fcfs or rotate"), "{e}");
        assert_eq!(m.gpu.as_ref().unwrap().kernel_order, KernelOrder::Rotate);
        let mut cpu = crate::config::MachineConfig::preset("table4.2").unwrap();
        let e = KernelOrder::apply(&mut cpu, "fcfs").unwrap_err();
        assert!(e.contains("no [gpu] table"), "{e}");
    }

    #[test]
    fn lrr_rotates_gto_sticks() {
        let ready = [c(0, 5), c(1, 3), c(2, 9)];
        let mut l = Lrr::default();
        let mut order = Vec::new();
        for _ in 0..4 {
            let i = l.pick(&ready);
            l.on_issue(ready[i].slot);
            order.push(ready[i].slot);
        }
        assert_eq!(order, vec![0, 1, 2, 0]);
        let mut g = Gto::default();
        let i = g.pick(&ready);
        assert_eq!(ready[i].slot, 1); // oldest
        g.on_issue(1);
        assert_eq!(ready[g.pick(&ready)].slot, 1); // greedy
        assert_eq!(g.pick(&[c(0, 5), c(2, 9)]), 0); // 1 not ready: oldest
    }

    #[test]
    fn two_level_stays_in_group() {
        let mut t = TwoLevel::new(2);
        let ready = [c(0, 4), c(1, 5), c(2, 0), c(3, 1)];
        // oldest is slot 2 -> group 1, then round-robin inside it
        let i = t.pick(&ready);
        assert_eq!(ready[i].slot, 2);
        t.on_issue(2);
        assert_eq!(ready[t.pick(&ready)].slot, 3);
        t.on_issue(3);
        assert_eq!(ready[t.pick(&ready)].slot, 2);
        // group 1 has nothing ready: oldest of the rest
        assert_eq!(t.pick(&[c(0, 4), c(1, 5)]), 0);
    }
}
