//! iPAWS, instruction-issue pattern-based adaptive warp scheduling (iPAWS §3;
//! digest §5.1) as a [`WarpScheduler`] wrapping a greedy scheduler (GTO, or CCWS
//! for RR↔CCWS, iPAWS §4.2) and LRR.
//!
//! Per kernel and per SM, three phases:
//! 1. **Adapt**: GTO; every warp of the kernel on the SM counts its issued
//!    instructions, its barrier time (cycles at a barrier while a warp of its
//!    scheduler issued) and its instruction-issue stall counter, until the first
//!    warp of the kernel on the SM finishes. Then the classifier
//!    ([`super::classifier`]) cuts the warps-of-interest and decides.
//! 2. **Recover** (convex only): least-instructions-issued first, until every
//!    warp-of-interest has issued as many instructions as the oldest one had at
//!    the end of Adapt, or the warp with the fewest instructions then (the
//!    newest) finishes, whichever comes first (digest §5.1 "gaps", [I]).
//! 3. **Execute**: GTO (concave) or LRR (convex) until the kernel ends.
//!
//! Multi-core policy: with `ipaws` the first SM to finish Adapt for a kernel
//! decides for all (the paper's "first core"; read as first to finish Adapt,
//! [I]); SMs still in Adapt adopt it (Recover first if convex), SMs that start
//! the kernel later skip Adapt. With `ipaws-ind` every SM decides alone
//! (`iPAWS_ind_cores`, and pCKE where SMs run different kernels).
//!
//! The stall counter is ambiguous in the paper ("the number of times each warp
//! is stalled even though it is the oldest warp"). [`StallCounting::Greedy`]
//! (default, [I]) counts the cycles a warp is GTO's top-priority (greedy) warp
//! but stalled: under GTO the warp that issued last before the SM runs dry
//! collects them, which is the youngest warp that got to issue, so the oldest
//! maximum marks the end of the warps that had a fair chance (Fig. 8).
//! [`StallCounting::Walk`] is the digest's suggestion: each stepped cycle, every
//! stalled warp that GTO's walk (greedy warp, then oldest first) reaches before
//! the issuing warp gets one.
//!
//! When warps of several kernels share an SM, a pick follows the phase of the
//! kernel of the oldest ready warp. Invariant: a kernel's phase only moves
//! forward (Adapt → Recover → Lrr, Adapt → Gto).
//!
//! sCKE (`ipaws-scke`, iPAWS §4.4; digest §5.1 "Extensions"): each SM
//! prioritises one kernel of a pair ([`super::perkernel`]); a pick takes the
//! prioritised kernel's ready warps when it has any, each kernel's warps by
//! its own phase with its own greedy warp; the stall counter follows the
//! prioritised kernel's greedy warp; a kernel classifies (its WOI only over its
//! own warps) and publishes only on SMs that prioritise it, the first of them
//! deciding for every SM (the others stay in Adapt until then, [I]).

use super::classifier::{self, Shape, Verdict};
use super::perkernel::{Rule, Split};
use crate::gpu::sched::{Cand, Lrr, MemView, WarpInfo, WarpScheduler};
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// A kernel's phase on an SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Counting under GTO until the first warp finishes.
    Adapt,
    /// Least-instructions-issued first (convex, before LRR).
    Recover,
    /// Execute with GTO.
    Gto,
    /// Execute with LRR.
    Lrr,
}

/// How the instruction-issue stall counter counts (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum StallCounting {
    /// Cycles a warp is the greedy warp and stalled.
    #[default]
    Greedy,
    /// Stalled warps GTO's walk reaches before the issuing warp, per step.
    Walk,
}

/// Counters of one warp slot.
#[derive(Clone, Copy, Debug, Default)]
struct WarpCtr {
    live: bool,
    age: u64,
    kernel: u32,
    inst: u64,
    btime: u64,
    stall: u64,
    /// In Recover and still below the target.
    catching: bool,
}

/// One kernel on one SM.
#[derive(Clone, Debug, Serialize)]
pub struct KernelRecord {
    /// SM.
    pub sm: u32,
    /// Kernel instance.
    pub kernel: u32,
    /// Current (at the end: last) phase.
    pub phase: Phase,
    /// Cycle its first warp started on the SM.
    pub start: u64,
    /// Cycle Adapt ended (`None`: skipped, the decision was known).
    pub adapt_end: Option<u64>,
    /// Cycle Recover ended (`None`: no Recover).
    pub recover_end: Option<u64>,
    /// Cycle its last warp on the SM finished so far.
    pub end: u64,
    /// This SM's own classification at the end of its Adapt phase.
    pub verdict: Option<Verdict>,
    /// The SM whose decision it followed (itself when it decided).
    pub decided_by: Option<u32>,
    /// Issue scores at the end of Adapt, oldest warp first.
    pub iscore: Vec<u64>,
    /// Stall counters at the end of Adapt, oldest warp first.
    pub stall: Vec<u64>,
    #[serde(skip)]
    live: u32,
    #[serde(skip)]
    target: u64,
    #[serde(skip)]
    behind: u32,
    #[serde(skip)]
    newest: Option<u64>,
}

/// Per-SM state shared by the SM's schedulers.
#[derive(Debug)]
pub struct Core {
    sm: u32,
    independent: bool,
    warps: Vec<WarpCtr>,
    kernels: Vec<KernelRecord>,
    seen: u64,
}

/// GPU-wide state: the first decision per kernel and every SM's core.
#[derive(Debug, Default)]
pub struct Board {
    decided: Vec<(u32, u32, Shape)>,
    cores: Vec<Rc<RefCell<Core>>>,
}

/// What the schedulers of all SMs share (created once per GPU).
#[derive(Clone, Debug, Default)]
pub struct IpawsShared {
    board: Rc<RefCell<Board>>,
    version: Rc<Cell<u64>>,
    counting: Rc<Cell<StallCounting>>,
}

impl IpawsShared {
    /// The decision published for `kernel`: (SM, shape).
    fn decision(&self, kernel: u32) -> Option<(u32, Shape)> {
        let b = self.board.borrow();
        b.decided.iter().find(|d| d.0 == kernel).map(|d| (d.1, d.2))
    }

    fn publish(&self, kernel: u32, sm: u32, shape: Shape) {
        let mut b = self.board.borrow_mut();
        if !b.decided.iter().any(|d| d.0 == kernel) {
            b.decided.push((kernel, sm, shape));
            self.version.set(self.version.get() + 1);
        }
    }

    /// Sets how the stall counters count (before the run).
    pub fn set_stall_counting(&self, c: StallCounting) {
        self.counting.set(c);
    }

    /// A new SM core registered on the board.
    pub fn core(&self, sm: u32, independent: bool) -> Rc<RefCell<Core>> {
        let c = Rc::new(RefCell::new(Core {
            sm,
            independent,
            warps: Vec::new(),
            kernels: Vec::new(),
            seen: 0,
        }));
        self.board.borrow_mut().cores.push(c.clone());
        c
    }

    /// Every SM's per-kernel records, SM by SM.
    pub fn records(&self) -> Vec<KernelRecord> {
        let b = self.board.borrow();
        b.cores
            .iter()
            .flat_map(|c| c.borrow().kernels.clone())
            .collect()
    }
}

impl Core {
    fn kernel_mut(&mut self, k: u32) -> Option<&mut KernelRecord> {
        self.kernels.iter_mut().find(|r| r.kernel == k)
    }

    fn phase(&self, k: u32) -> Phase {
        self.kernels
            .iter()
            .find(|r| r.kernel == k)
            .map_or(Phase::Gto, |r| r.phase)
    }

    /// The kernel's warps on the SM, oldest first (slots).
    fn warps_of(&self, k: u32, also: Option<u32>) -> Vec<u32> {
        let mut v: Vec<u32> = (0..self.warps.len() as u32)
            .filter(|&s| {
                let w = &self.warps[s as usize];
                w.kernel == k && (w.live || Some(s) == also)
            })
            .collect();
        v.sort_by_key(|&s| self.warps[s as usize].age);
        v
    }

    /// Classifies kernel `k` from the counters (with the finishing warp `also`).
    fn classify(&mut self, k: u32, also: Option<u32>) -> (Verdict, Vec<u32>) {
        let ws = self.warps_of(k, also);
        let iscore: Vec<u64> = ws
            .iter()
            .map(|&s| self.warps[s as usize].inst + self.warps[s as usize].btime)
            .collect();
        let stall: Vec<u64> = ws.iter().map(|&s| self.warps[s as usize].stall).collect();
        let v = classifier::decide(&iscore, &stall);
        let r = self.kernel_mut(k).expect("kernel started");
        r.iscore = iscore;
        r.stall = stall;
        r.verdict = Some(v);
        (v, ws)
    }

    /// Leaves Adapt for `shape` at `t`; `ws` are the kernel's warps (oldest
    /// first) of which the first `n` are of interest.
    fn leave_adapt(&mut self, k: u32, shape: Shape, ws: &[u32], n: usize, t: u64) {
        if shape == Shape::Concave {
            let r = self.kernel_mut(k).expect("kernel started");
            r.phase = Phase::Gto;
            r.adapt_end = Some(t);
            return;
        }
        let woi = &ws[..n.min(ws.len())];
        let target = woi.first().map_or(0, |&s| self.warps[s as usize].inst);
        let mut behind = 0;
        for &s in woi {
            let w = &mut self.warps[s as usize];
            if w.live && w.inst < target {
                w.catching = true;
                behind += 1;
            }
        }
        // the newest warp: fewest instructions, the youngest among equals
        let newest = woi
            .iter()
            .filter(|&&s| self.warps[s as usize].live)
            .min_by_key(|&&s| {
                let w = &self.warps[s as usize];
                (w.inst, std::cmp::Reverse(w.age))
            })
            .map(|&s| self.warps[s as usize].age);
        let r = self.kernel_mut(k).expect("kernel started");
        r.adapt_end = Some(t);
        r.target = target;
        r.behind = behind;
        r.newest = newest;
        if behind == 0 {
            r.phase = Phase::Lrr;
            r.recover_end = Some(t);
        } else {
            r.phase = Phase::Recover;
        }
    }

    fn end_recover(&mut self, k: u32, t: u64) {
        for w in self.warps.iter_mut().filter(|w| w.kernel == k) {
            w.catching = false;
        }
        let r = self.kernel_mut(k).expect("kernel started");
        r.phase = Phase::Lrr;
        r.recover_end = Some(t);
    }

    /// Adopts the board's decisions for kernels still in Adapt.
    fn sync(&mut self, shared: &IpawsShared, t: u64) {
        self.seen = shared.version.get();
        if self.independent {
            return;
        }
        let adapting: Vec<u32> = self
            .kernels
            .iter()
            .filter(|r| r.phase == Phase::Adapt)
            .map(|r| r.kernel)
            .collect();
        for k in adapting {
            if let Some((sm, shape)) = shared.decision(k) {
                let (v, ws) = self.classify(k, None);
                self.kernel_mut(k).expect("kernel").decided_by = Some(sm);
                self.leave_adapt(k, shape, &ws, v.woi, t);
            }
        }
    }
}

/// One iPAWS scheduler of an SM.
pub struct Ipaws {
    core: Rc<RefCell<Core>>,
    shared: IpawsShared,
    /// The greedy scheduler of Adapt and of a concave Execute phase.
    gto: Box<dyn WarpScheduler>,
    lrr: Lrr,
    /// The warp that issued last here (GTO's greedy warp).
    greedy: Option<u32>,
    last_t: u64,
    /// At the last step the greedy warp was stalled and nothing issued.
    idle_stalled: bool,
    now: u64,
    /// sCKE: the kernel-priority composition (`None`: plain iPAWS).
    split: Option<Box<Split>>,
}

impl Ipaws {
    /// A scheduler on `core`, sharing `shared` with the other SMs, with the
    /// greedy scheduler `greedy`.
    pub fn new(
        core: Rc<RefCell<Core>>,
        shared: IpawsShared,
        greedy: Box<dyn WarpScheduler>,
    ) -> Self {
        Ipaws {
            core,
            shared,
            gto: greedy,
            lrr: Lrr::default(),
            greedy: None,
            last_t: 0,
            idle_stalled: false,
            now: 0,
            split: None,
        }
    }

    /// sCKE's pick ([`Split`]): the selected kernel's ready warps by its phase.
    fn pick_split(&mut self, ready: &[Cand]) -> usize {
        let core = self.core.borrow();
        let split = self.split.as_mut().expect("sCKE");
        let k = split.select(ready, |s| core.warps[s as usize].kernel);
        match core.phase(k) {
            Phase::Adapt | Phase::Gto => split.pick(k, Rule::Gto),
            Phase::Lrr => split.pick(k, Rule::Lrr),
            Phase::Recover => {
                let sub = split.ready();
                let key = |c: &Cand| (core.warps[c.slot as usize].inst, c.age);
                let mut best = 0;
                for (i, c) in sub.iter().enumerate() {
                    if key(c) < key(&sub[best]) {
                        best = i;
                    }
                }
                split.index(best)
            }
        }
    }

    /// Walk stall counting's order: under sCKE the prioritised kernel's warps
    /// are older than the other's.
    fn walk_key(&self, core: &Core, c: &Cand) -> (bool, u64) {
        match &self.split {
            None => (false, c.age),
            Some(s) => (!s.prioritises(core.warps[c.slot as usize].kernel), c.age),
        }
    }

    /// Whether the kernel of the oldest ready warp is in a greedy phase (Adapt
    /// or GTO), where the greedy scheduler may throttle; `true` without ready
    /// warps (a memory-aware greedy scheduler still follows its warps then).
    fn greedy_phase(&self, ready: &[Cand]) -> bool {
        let Some(old) = ready.iter().min_by_key(|c| c.age) else {
            return true;
        };
        let core = self.core.borrow();
        let k = core.warps[old.slot as usize].kernel;
        matches!(core.phase(k), Phase::Adapt | Phase::Gto)
    }
}

impl WarpScheduler for Ipaws {
    fn name(&self) -> &'static str {
        "ipaws"
    }

    fn pick(&mut self, ready: &[Cand]) -> usize {
        if self.split.is_some() {
            return self.pick_split(ready);
        }
        let core = self.core.borrow();
        let mut oldest = 0;
        for (i, c) in ready.iter().enumerate() {
            if c.age < ready[oldest].age {
                oldest = i;
            }
        }
        let k = core.warps[ready[oldest].slot as usize].kernel;
        match core.phase(k) {
            Phase::Adapt | Phase::Gto => self.gto.pick(ready),
            Phase::Lrr => self.lrr.pick(ready),
            Phase::Recover => {
                let key = |c: &Cand| (core.warps[c.slot as usize].inst, c.age);
                let mut best = 0;
                for (i, c) in ready.iter().enumerate() {
                    if key(c) < key(&ready[best]) {
                        best = i;
                    }
                }
                best
            }
        }
    }

    fn on_issue(&mut self, slot: u32) {
        self.gto.on_issue(slot);
        self.lrr.on_issue(slot);
        let t = self.now;
        let mut core = self.core.borrow_mut();
        match &mut self.split {
            None => self.greedy = Some(slot),
            Some(s) => {
                // the stall counter follows the prioritised kernel's greedy warp
                let k = core.warps[slot as usize].kernel;
                s.on_issue(k, slot);
                if s.prioritises(k) {
                    self.greedy = Some(slot);
                }
            }
        }
        let (catching, k, inst) = {
            let w = &mut core.warps[slot as usize];
            w.inst += 1;
            (w.catching, w.kernel, w.inst)
        };
        if catching && inst >= core.kernel_mut(k).map_or(0, |r| r.target) {
            core.warps[slot as usize].catching = false;
            let r = core.kernel_mut(k).expect("kernel started");
            r.behind -= 1;
            if r.behind == 0 {
                core.end_recover(k, t);
            }
        }
    }

    fn observes(&self) -> bool {
        true
    }

    fn mem_aware(&self) -> bool {
        self.gto.mem_aware()
    }

    fn reexecutes(&self) -> bool {
        self.gto.reexecutes()
    }

    fn throttle(&mut self, ready: &mut Vec<Cand>) {
        if self.gto.observes() && self.greedy_phase(ready) {
            self.gto.throttle(ready);
        }
    }

    fn throttle_mem(&mut self, ready: &mut Vec<Cand>, v: &MemView) {
        if self.gto.observes() && self.greedy_phase(ready) {
            self.gto.throttle_mem(ready, v);
        }
    }

    fn on_step(&mut self, t: u64, stalled: &[Cand], at_bar: &[Cand], issued: Option<Cand>) {
        if self.gto.observes() {
            self.gto.on_step(t, stalled, at_bar, issued);
        }
        self.now = t;
        let mut core = self.core.borrow_mut();
        if core.seen != self.shared.version.get() {
            core.sync(&self.shared, t);
        }
        if issued.is_some() {
            for c in at_bar {
                core.warps[c.slot as usize].btime += 1;
            }
        }
        match self.shared.counting.get() {
            StallCounting::Greedy => {
                let Some(g) = self.greedy else {
                    self.last_t = t;
                    return;
                };
                let w = &mut core.warps[g as usize];
                if self.idle_stalled && t > self.last_t + 1 {
                    w.stall += t - self.last_t - 1;
                }
                let g_stalled = stalled.iter().any(|c| c.slot == g);
                if g_stalled {
                    w.stall += 1;
                }
                self.idle_stalled = g_stalled && issued.is_none();
            }
            StallCounting::Walk => {
                for c in stalled {
                    let before = match issued {
                        None => true,
                        Some(i) => {
                            Some(i.slot) != self.greedy
                                && (Some(c.slot) == self.greedy
                                    || self.walk_key(&core, c) < self.walk_key(&core, &i))
                        }
                    };
                    if before {
                        core.warps[c.slot as usize].stall += 1;
                    }
                }
            }
        }
        self.last_t = t;
    }

    fn on_warp_start(&mut self, w: WarpInfo, t: u64) {
        self.gto.on_warp_start(w, t);
        self.now = self.now.max(t);
        let mut core = self.core.borrow_mut();
        let slot = w.slot as usize;
        if core.warps.len() <= slot {
            core.warps.resize(slot + 1, WarpCtr::default());
        }
        core.warps[slot] = WarpCtr {
            live: true,
            age: w.age,
            kernel: w.kernel,
            ..WarpCtr::default()
        };
        if let Some(r) = core.kernel_mut(w.kernel) {
            r.live += 1;
            return;
        }
        let known = if core.independent {
            None
        } else {
            self.shared.decision(w.kernel)
        };
        let sm = core.sm;
        core.kernels.push(KernelRecord {
            sm,
            kernel: w.kernel,
            phase: match known {
                None => Phase::Adapt,
                Some((_, Shape::Concave)) => Phase::Gto,
                Some((_, Shape::Convex)) => Phase::Lrr,
            },
            start: t,
            adapt_end: None,
            recover_end: None,
            end: t,
            verdict: None,
            decided_by: known.map(|d| d.0),
            iscore: Vec::new(),
            stall: Vec::new(),
            live: 1,
            target: 0,
            behind: 0,
            newest: None,
        });
    }

    fn on_warp_exit(&mut self, w: WarpInfo, t: u64) {
        self.gto.on_warp_exit(w, t);
        self.now = self.now.max(t);
        let mut core = self.core.borrow_mut();
        let k = w.kernel;
        let phase = {
            let r = core.kernel_mut(k).expect("kernel started");
            r.live = r.live.saturating_sub(1);
            r.end = t;
            r.phase
        };
        match phase {
            // sCKE: only an SM that prioritises the kernel decides for it
            Phase::Adapt if self.split.as_ref().is_some_and(|s| !s.prioritises(k)) => {
                core.warps[w.slot as usize].live = false
            }
            Phase::Adapt => {
                let (v, ws) = core.classify(k, Some(w.slot));
                core.warps[w.slot as usize].live = false;
                let sm = core.sm;
                let shape = if core.independent {
                    v.shape
                } else {
                    self.shared.publish(k, sm, v.shape);
                    self.shared.decision(k).map_or(v.shape, |d| d.1)
                };
                let by = if core.independent {
                    sm
                } else {
                    self.shared.decision(k).map_or(sm, |d| d.0)
                };
                core.kernel_mut(k).expect("kernel").decided_by = Some(by);
                core.leave_adapt(k, shape, &ws, v.woi, t);
            }
            Phase::Recover => {
                let ctr = core.warps[w.slot as usize];
                core.warps[w.slot as usize].live = false;
                let r = core.kernel_mut(k).expect("kernel");
                if ctr.catching {
                    r.behind -= 1;
                }
                if r.behind == 0 || r.newest == Some(ctr.age) {
                    core.end_recover(k, t);
                }
            }
            Phase::Gto | Phase::Lrr => core.warps[w.slot as usize].live = false,
        }
    }
}

/// The iPAWS schedulers of SM `sm` (one shared core), one per greedy scheduler
/// of `greedy`.
pub fn schedulers(
    shared: &IpawsShared,
    sm: u32,
    independent: bool,
    greedy: Vec<Box<dyn WarpScheduler>>,
) -> Vec<Box<dyn WarpScheduler>> {
    let core = shared.core(sm, independent);
    greedy
        .into_iter()
        .map(|g| Box::new(Ipaws::new(core.clone(), shared.clone(), g)) as Box<dyn WarpScheduler>)
        .collect()
}

/// The `n` sCKE iPAWS schedulers of SM `sm` (`ipaws-scke`, module doc).
pub fn scke_schedulers(shared: &IpawsShared, sm: u32, n: u32) -> Vec<Box<dyn WarpScheduler>> {
    let core = shared.core(sm, false);
    (0..n)
        .map(|_| {
            let mut s = Ipaws::new(
                core.clone(),
                shared.clone(),
                Box::new(crate::gpu::sched::Gto::default()),
            );
            s.split = Some(Box::new(Split::new(sm)));
            Box::new(s) as Box<dyn WarpScheduler>
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(slot: u32, age: u64, kernel: u32) -> WarpInfo {
        WarpInfo {
            slot,
            age,
            kernel,
            gid: slot,
            tb: 0,
        }
    }

    fn schedulers(sh: &IpawsShared, sm: u32, n: u32, ind: bool) -> Vec<Box<dyn WarpScheduler>> {
        let g = (0..n)
            .map(|_| Box::new(crate::gpu::sched::Gto::default()) as Box<dyn WarpScheduler>)
            .collect();
        super::schedulers(sh, sm, ind, g)
    }

    fn cand(slot: u32, age: u64) -> Cand {
        Cand {
            slot,
            mem: false,
            age,
        }
    }

    /// Warp `slot` issues `n` instructions at cycles from `*t`.
    fn issue(s: &mut dyn WarpScheduler, slot: u32, age: u64, n: u64, t: &mut u64) {
        for _ in 0..n {
            s.on_step(*t, &[], &[], Some(cand(slot, age)));
            s.on_issue(slot);
            *t += 1;
        }
    }

    /// Warp `slot`, the greedy warp, stalls for one stepped cycle.
    fn stall(s: &mut dyn WarpScheduler, slot: u32, age: u64, t: &mut u64) {
        s.on_step(*t, &[cand(slot, age)], &[], None);
        *t += 1;
    }

    fn phase(sh: &IpawsShared, sm: u32, k: u32) -> KernelRecord {
        sh.records()
            .into_iter()
            .find(|r| r.sm == sm && r.kernel == k)
            .expect("record")
    }

    /// A scripted convex kernel on SM 0: Adapt → Recover (least issued first) →
    /// LRR; SM 1, still in Adapt, follows SM 0's decision; the next kernel is
    /// concave and stays with GTO.
    #[test]
    fn scripted_phase_transitions() {
        let sh = IpawsShared::default();
        let mut s0 = schedulers(&sh, 0, 1, false).remove(0);
        let mut s1 = schedulers(&sh, 1, 1, false).remove(0);
        let mut t = 0;
        for w in 0..4 {
            s0.on_warp_start(info(w, w as u64, 0), 0);
            s1.on_warp_start(info(w, 10 + w as u64, 0), 0);
        }
        assert_eq!(phase(&sh, 0, 0).phase, Phase::Adapt);
        // a flat-ish curve 10, 9, 8, 6; warp 3 stalls most as the greedy warp
        for (w, n) in [(0u32, 10u64), (1, 9), (2, 8), (3, 6)] {
            issue(&mut *s0, w, w as u64, n, &mut t);
            stall(&mut *s0, w, w as u64, &mut t);
        }
        stall(&mut *s0, 3, 3, &mut t);
        // Adapt picks GTO: the greedy warp 3 while ready, else the oldest
        let all = [cand(0, 0), cand(1, 1), cand(2, 2), cand(3, 3)];
        assert_eq!(s0.pick(&all), 3);
        assert_eq!(s0.pick(&all[..3]), 0);
        s0.on_warp_exit(info(0, 0, 0), t);
        let r = phase(&sh, 0, 0);
        assert_eq!(r.phase, Phase::Recover);
        assert_eq!(r.iscore, vec![10, 9, 8, 6]);
        assert_eq!(r.stall, vec![1, 1, 1, 2]);
        let v = r.verdict.expect("verdict");
        assert_eq!((v.woi, v.sum, v.threshold), (4, 33, 20.0));
        assert_eq!(v.shape, Shape::Convex);
        assert_eq!((r.adapt_end, r.decided_by), (Some(t), Some(0)));
        // Recover: least instructions first
        let live = [cand(1, 1), cand(2, 2), cand(3, 3)];
        assert_eq!(s0.pick(&live), 2);
        issue(&mut *s0, 3, 3, 4, &mut t);
        assert_eq!(s0.pick(&live), 1); // 9 vs 8 vs 10: warp 2
        issue(&mut *s0, 2, 2, 2, &mut t);
        assert_eq!(phase(&sh, 0, 0).phase, Phase::Recover);
        issue(&mut *s0, 1, 1, 1, &mut t);
        let r = phase(&sh, 0, 0);
        assert_eq!(r.phase, Phase::Lrr);
        assert_eq!(r.recover_end, Some(t - 1));
        // LRR now: after warp 1, warp 2
        assert_eq!(s0.pick(&live), 1);
        // SM 1 adopts SM 0's decision at its next step (no skew: straight to LRR)
        assert_eq!(phase(&sh, 1, 0).phase, Phase::Adapt);
        s1.on_step(t, &[], &[], None);
        let r1 = phase(&sh, 1, 0);
        assert_eq!((r1.phase, r1.decided_by), (Phase::Lrr, Some(0)));
        // kernel 1 on SM 0: a steep decay, the youngest warp stalls most
        for w in 4..8 {
            s0.on_warp_start(info(w, 16 + w as u64, 1), t);
        }
        assert_eq!(phase(&sh, 0, 1).phase, Phase::Adapt);
        for (w, n) in [(4u32, 50u64), (5, 5), (6, 1)] {
            issue(&mut *s0, w, 16 + w as u64, n, &mut t);
        }
        s0.on_step(t, &[cand(6, 22)], &[], None);
        t += 3; // two skipped cycles with the greedy warp still stalled
        s0.on_step(t, &[cand(6, 22)], &[cand(7, 23)], None);
        s0.on_warp_exit(info(4, 20, 1), t);
        let r = phase(&sh, 0, 1);
        assert_eq!(r.stall, vec![0, 0, 4, 0]);
        assert_eq!(r.verdict.map(|v| v.woi), Some(3));
        assert_eq!(r.phase, Phase::Gto); // 56 < 3 * 50 / 2
                                         // a warp of a kernel with a known decision skips Adapt
        s1.on_warp_start(info(9, 40, 1), t);
        assert_eq!(phase(&sh, 1, 1).phase, Phase::Gto);
        assert_eq!(phase(&sh, 1, 1).adapt_end, None);
    }

    /// Barrier time: warps at a barrier gain a point per cycle another issues.
    #[test]
    fn barrier_time_counts_while_another_issues() {
        let sh = IpawsShared::default();
        let mut s = schedulers(&sh, 0, 1, false).remove(0);
        s.on_warp_start(info(0, 0, 0), 0);
        s.on_warp_start(info(1, 1, 0), 0);
        s.on_step(0, &[], &[cand(0, 0)], Some(cand(1, 1)));
        s.on_issue(1);
        s.on_step(1, &[], &[cand(0, 0)], None); // nobody issued
        s.on_step(2, &[], &[cand(0, 0)], Some(cand(1, 1)));
        s.on_issue(1);
        s.on_warp_exit(info(1, 1, 0), 3);
        assert_eq!(phase(&sh, 0, 0).iscore, vec![2, 2]);
    }

    /// `ipaws-ind`: every SM decides alone.
    #[test]
    fn independent_cores_do_not_follow() {
        let sh = IpawsShared::default();
        let mut s0 = schedulers(&sh, 0, 1, true).remove(0);
        let mut s1 = schedulers(&sh, 1, 1, true).remove(0);
        s0.on_warp_start(info(0, 0, 0), 0);
        s1.on_warp_start(info(0, 5, 0), 0);
        s0.on_step(0, &[], &[], Some(cand(0, 0)));
        s0.on_issue(0);
        s0.on_warp_exit(info(0, 0, 0), 1);
        s1.on_step(2, &[], &[], None);
        assert_eq!(phase(&sh, 1, 0).phase, Phase::Adapt);
        assert_ne!(phase(&sh, 0, 0).phase, Phase::Adapt);
    }
}
