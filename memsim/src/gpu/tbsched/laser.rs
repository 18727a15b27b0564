//! LASER's practical work-group scheduler (dissertation §3.4, digest §4.3): reuse
//! monitors set each child kernel's priority, child WGs are queued at the CU that
//! runs their parent WG (found through the schedule status table), and idle CUs
//! steal.
//!
//! - **Priority** (the GMU's HPQ / LPQ): at a child kernel's launch, the monitor
//!   of the CU its launching parent runs on predicts its reuse
//!   ([`super::monitor`]); parent–child or sibling → high priority, self or none
//!   → low. Warm-up: the first `warmup` children per CU are high and bound, to
//!   train the monitor. The flag is set through the device-launch unit's
//!   [`LaunchPriority`] hook ([`UnitPolicy::launch_priority`]), so it orders the
//!   pending pool (HPQ before LPQ, `dp/pool.rs`) and then the CUQs; a DTBL group
//!   (which never enters the pool) is judged the same way when the dispatcher
//!   first sees it.
//! - **SST**: the running (kernel, WG) → CU pairs, updated at dispatch and exit.
//! - **CUQs**: one per CU, high entries ahead of low ones. A child is queued at its
//!   parent WG's CU when that WG still runs, else at the CUQ with the fewest TBs
//!   (gap 3, [I]); low-priority children are bound the same way (gap 4 default).
//! - **Dispatch**, CUs visited round-robin: own CUQ high entries, then own low
//!   entries, then host-launched (parent) WGs in FCFS order, then a steal from the
//!   CUQ with the most TBs left (gap 5), its high entries first. [I]: the thesis
//!   spreads the first parent kernel's WGs round-robin over the CUQs without
//!   saying when; taking them lazily, one when a CU has room and nothing of its
//!   own queued, puts a CU's queued children ahead of the parents still to come.
//!   (Until session 10, with an FCFS pool, the parents went between the high and
//!   the low entries, the HPQ / LPQ order modelled at WG level: low children then
//!   waited for the whole parent kernel, pcreuse 1.00x of round-robin; now the
//!   pool orders the classes, as the GMU does.)
//! - When a host-launched kernel's last TB exits, the filters are cleared.
//!
//! - **Wavefront groups** (§3.5's CU: "if a child kernel is predicted to have
//!   parent–child reuse, its wavefronts join the group of the parent wavefront"):
//!   a child TB whose kernel the monitor predicted parent–child (not a warm-up
//!   child) and whose parent WG still runs is filed in the parent TB's group of
//!   the GPU's [`WarpGroups`](crate::gpu::warpsched::groups::WarpGroups); the
//!   `laser-groups` warp scheduler (GTO across groups, round-robin inside) reads
//!   them. A TB's global id is the count of TBs dispatched before it (as the
//!   oracle's wavefront level).

use super::monitor::{MonitorHook, Monitors, Reuse};
use super::steal::{self, Victim};
use super::UnitPolicy;
use crate::gpu::dp::pool::{LaunchPriority, ParentInfo};
use crate::gpu::l1::L1Observer;
use crate::gpu::sched::DispatchUnit;
use crate::gpu::warpsched::groups::{own_group, WarpGroups};
use crate::gpu::warpsched::WarpSchedCtx;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

/// LASER's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaserConfig {
    /// Children per CU bound and prioritised to train the monitor. Default 2
    /// ("the first couple", [I]).
    pub warmup: u32,
}

impl Default for LaserConfig {
    fn default() -> Self {
        LaserConfig { warmup: 2 }
    }
}

#[derive(Clone, Debug, Default)]
struct Cuq {
    high: VecDeque<u32>,
    low: VecDeque<u32>,
}

/// A child's priority, decided once (at its launch, or when the dispatcher first
/// sees a DTBL group).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Decision {
    /// HPQ (parent–child or sibling reuse predicted, or warm-up).
    high: bool,
    /// Parent–child reuse predicted (its wavefronts join the parent's group).
    pc: bool,
}

/// The decisions shared by the dispatcher and the launch hook: warm-up children
/// per CU and each child's decision until the dispatcher takes it.
#[derive(Debug, Default)]
struct Priorities {
    warm: HashMap<u32, u32>,
    decided: HashMap<u32, Decision>,
}

impl Priorities {
    /// The decision for a child launched from CU `sm`: warm-up, else the CU's
    /// monitor's prediction.
    fn decide(&mut self, mon: &Mutex<Monitors>, sm: u32, warmup: u32) -> Decision {
        let w = self.warm.entry(sm).or_insert(0);
        if *w < warmup {
            *w += 1;
            return Decision {
                high: true,
                pc: false,
            };
        }
        let m = mon.lock().expect("monitor lock");
        let pred = m.cu.get(sm as usize).map_or(Reuse::None, |c| c.predict());
        Decision {
            high: matches!(pred, Reuse::ParentChild | Reuse::Sibling),
            pc: pred == Reuse::ParentChild,
        }
    }
}

/// LASER's launch-time priority (the GMU's HPQ flag), installed in the
/// device-launch unit.
struct LaunchHook {
    pr: Arc<Mutex<Priorities>>,
    mon: Arc<Mutex<Monitors>>,
    warmup: u32,
}

impl LaunchPriority for LaunchHook {
    fn high(&mut self, kernel: u32, parent: &ParentInfo) -> bool {
        let mut pr = self.pr.lock().expect("priority lock");
        let d = pr.decide(&self.mon, parent.sm, self.warmup);
        pr.decided.insert(kernel, d);
        d.high
    }
}

/// Dispatch counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaserStats {
    /// Children predicted high priority (warm-up included).
    pub high: u64,
    /// Children predicted low priority.
    pub low: u64,
    /// Children queued at their running parent WG's CU.
    pub at_parent: u64,
    /// TBs stolen from another CUQ.
    pub stolen: u64,
    /// Filter resets.
    pub resets: u64,
    /// Child TBs whose wavefronts joined their running parent WG's group.
    pub joined: u64,
}

/// The LASER dispatcher.
pub struct Laser {
    cfg: LaserConfig,
    mon: Arc<Mutex<Monitors>>,
    cuq: Vec<Cuq>,
    parents: VecDeque<u32>,
    loc: HashMap<u32, Option<usize>>,
    left: HashMap<u32, u64>,
    sst: HashMap<(u32, u64), usize>,
    pr: Arc<Mutex<Priorities>>,
    host_tbs: HashMap<u32, (u64, u64)>,
    next: usize,
    stats: LaserStats,
    /// Children predicted parent–child (by the monitor): record → parent WG.
    pc: HashMap<u32, (u32, u64)>,
    /// Global TB id of each running TB.
    gid: HashMap<(u32, u64), u32>,
    dispatched: u32,
    groups: Option<WarpGroups>,
}

impl Laser {
    /// A dispatcher with `cfg`.
    pub fn new(cfg: LaserConfig) -> Self {
        Laser {
            cfg,
            mon: Arc::new(Mutex::new(Monitors::default())),
            cuq: Vec::new(),
            parents: VecDeque::new(),
            loc: HashMap::new(),
            left: HashMap::new(),
            sst: HashMap::new(),
            pr: Arc::default(),
            host_tbs: HashMap::new(),
            next: 0,
            stats: LaserStats::default(),
            pc: HashMap::new(),
            gid: HashMap::new(),
            dispatched: 0,
            groups: None,
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> LaserStats {
        self.stats
    }

    fn load(&self, s: usize) -> u64 {
        let q = &self.cuq[s];
        q.high
            .iter()
            .chain(q.low.iter())
            .map(|r| self.left[r])
            .sum()
    }

    fn sync(&mut self, units: &[DispatchUnit]) {
        let live: HashSet<u32> = units.iter().map(|u| u.record).collect();
        let gone: Vec<u32> = self
            .loc
            .keys()
            .copied()
            .filter(|r| !live.contains(r))
            .collect();
        for r in gone {
            self.dequeue(r);
        }
        for u in units {
            self.left.insert(u.record, u.left);
        }
        for u in units {
            if self.loc.contains_key(&u.record) {
                continue;
            }
            let child = u.parent.is_some() && u.depth > 0;
            self.mon
                .lock()
                .expect("monitor lock")
                .child
                .insert(u.record, child);
            let Some(p) = u.parent.filter(|_| child) else {
                self.parents.push_back(u.record);
                self.loc.insert(u.record, None);
                self.host_tbs.entry(u.record).or_insert((u.tbs, 0));
                continue;
            };
            let d = {
                let mut pr = self.pr.lock().expect("priority lock");
                match pr.decided.remove(&u.record) {
                    Some(d) => d,
                    None => pr.decide(&self.mon, p.sm, self.cfg.warmup),
                }
            };
            if d.pc {
                self.pc.insert(u.record, (p.kernel, p.tb));
            }
            let high = d.high;
            if high {
                self.stats.high += 1;
            } else {
                self.stats.low += 1;
            }
            let s = match self.sst.get(&(p.kernel, p.tb)) {
                Some(&s) => {
                    self.stats.at_parent += 1;
                    s
                }
                None => (0..self.cuq.len())
                    .min_by_key(|&s| (self.load(s), s))
                    .expect("CUs"),
            };
            if high {
                self.cuq[s].high.push_back(u.record);
            } else {
                self.cuq[s].low.push_back(u.record);
            }
            self.loc.insert(u.record, Some(s));
        }
    }

    fn dequeue(&mut self, r: u32) {
        match self.loc.remove(&r) {
            Some(Some(s)) => {
                let q = &mut self.cuq[s];
                q.high.retain(|&x| x != r);
                q.low.retain(|&x| x != r);
            }
            Some(None) => self.parents.retain(|&x| x != r),
            None => {}
        }
        self.left.remove(&r);
    }

    /// The victim CUQ for CU `s`: the one with the most TBs left.
    fn victim(&self, s: usize) -> Option<usize> {
        steal::victim(s, self.cuq.len(), Victim::Longest, |v| self.load(v))
    }
}

impl UnitPolicy for Laser {
    fn name(&self) -> &'static str {
        "laser"
    }

    fn size(&mut self, sms: usize) {
        if self.cuq.len() != sms {
            self.cuq = vec![Cuq::default(); sms];
        }
    }

    fn pick(
        &mut self,
        units: &[DispatchUnit],
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
        _now: u64,
    ) -> Option<(usize, usize)> {
        self.sync(units);
        let index: HashMap<u32, usize> = units
            .iter()
            .enumerate()
            .map(|(i, u)| (u.record, i))
            .collect();
        for i in 0..sms {
            let s = (self.next + i) % sms;
            let q = &self.cuq[s];
            let (cand, stolen) = if let Some(&r) = q.high.front() {
                (Some(r), false)
            } else if let Some(&r) = q.low.front() {
                (Some(r), false)
            } else if let Some(&r) = self.parents.front() {
                (Some(r), false)
            } else {
                let v = self.victim(s);
                let r = v.and_then(|v| {
                    let q = &self.cuq[v];
                    q.high.front().or(q.low.front()).copied()
                });
                (r, true)
            };
            let Some(r) = cand else { continue };
            let u = index[&r];
            if fits(u, s) {
                self.stats.stolen += stolen as u64;
                self.next = (s + 1) % sms;
                if units[u].left <= 1 {
                    self.dequeue(r);
                } else {
                    self.left.insert(r, units[u].left - 1);
                }
                return Some((u, s));
            }
        }
        None
    }

    fn on_dispatch(&mut self, record: u32, index: u64, sm: usize, _now: u64) {
        self.sst.insert((record, index), sm);
        let me = self.dispatched;
        self.dispatched += 1;
        let Some(g) = &self.groups else { return };
        self.gid.insert((record, index), me);
        let parent = self.pc.get(&record).and_then(|p| self.gid.get(p));
        if let Some(&pg) = parent {
            // the parent TB's warps and the child's in one group (the parent's
            // warps, running, are looked up again at their next pick)
            let grp = g.get(pg).unwrap_or(own_group(pg));
            g.set(pg, grp);
            g.set(me, grp);
            self.stats.joined += 1;
        }
    }

    fn attach(&mut self, ctx: &WarpSchedCtx) {
        let g = ctx.warp_groups();
        g.set_per_warp(true);
        self.groups = Some(g);
    }

    fn on_tb_done(&mut self, record: u32, index: u64, _sm: usize, _now: u64) {
        self.sst.remove(&(record, index));
        self.gid.remove(&(record, index));
        if let Some(h) = self.host_tbs.get_mut(&record) {
            h.1 += 1;
            if h.1 == h.0 {
                self.host_tbs.remove(&record);
                let mut m = self.mon.lock().expect("monitor lock");
                m.cu.iter_mut().for_each(|c| c.reset());
                self.stats.resets += 1;
            }
        }
    }

    fn l1_observer(&mut self) -> Option<Box<dyn L1Observer>> {
        Some(Box::new(MonitorHook(self.mon.clone())))
    }

    fn launch_priority(&mut self) -> Option<Box<dyn LaunchPriority>> {
        Some(Box::new(LaunchHook {
            pr: self.pr.clone(),
            mon: self.mon.clone(),
            warmup: self.cfg.warmup,
        }))
    }

    fn report(&self) -> Option<serde_json::Value> {
        let s = self.stats;
        Some(serde_json::json!({
            "policy": "laser",
            "high": s.high,
            "low": s.low,
            "at_parent": s.at_parent,
            "stolen": s.stolen,
            "filter_resets": s.resets,
            "joined_parent_group": s.joined,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::dp::ParentInfo;

    fn unit(record: u32, parent: Option<(u64, u32)>, left: u64) -> DispatchUnit {
        DispatchUnit {
            kernel: record,
            record,
            group: false,
            parent: parent.map(|(tb, sm)| ParentInfo {
                kernel: 0,
                tb,
                warp: 0,
                lane: 0,
                sm,
            }),
            depth: parent.is_some() as u32,
            left,
            tbs: left,
        }
    }

    #[test]
    fn children_go_to_the_running_parent_cu_and_idle_cus_steal() {
        let mut l = Laser::new(LaserConfig::default());
        let mut free = [true; 3];
        // host kernel 0 with 3 TBs: one per CU
        let host = [unit(0, None, 3)];
        for i in 0..3u64 {
            let (u, s) = l
                .select_unit(&host[..], 3, &mut |_, sm| free[sm], 0)
                .expect("parent TB");
            assert_eq!(u, 0);
            free[s] = false;
            l.on_dispatch(0, i, s, 0);
        }
        // TB 1 (on CU 1) launches kernel 1 with 2 TBs; CU 1 frees first
        free[1] = true;
        let units = [unit(1, Some((1, 1)), 2)];
        let (_, s) = l.select_unit(&units, 3, &mut |_, sm| free[sm], 1).unwrap();
        assert_eq!(s, 1, "bound to the parent WG's CU");
        assert_eq!(l.stats().at_parent, 1);
        free[1] = false;
        // CU 0 frees: its CUQ is empty, it steals the second child TB
        free[0] = true;
        let units = [unit(1, Some((1, 1)), 1)];
        let (_, s) = l.select_unit(&units, 3, &mut |_, sm| free[sm], 2).unwrap();
        assert_eq!((s, l.stats().stolen), (0, 1));
        assert_eq!(l.stats().high, 1, "warm-up child is high priority");
    }

    #[test]
    fn launch_hook_decides_once_warm_up_then_monitor() {
        let mut l = Laser::new(LaserConfig { warmup: 2 });
        let mut hook = UnitPolicy::launch_priority(&mut l).expect("LASER sets priorities");
        let p = |sm| ParentInfo {
            kernel: 0,
            tb: 0,
            warp: 0,
            lane: 0,
            sm,
        };
        // Two warm-up children per CU are high; the third has an untrained
        // monitor (no prediction): low.
        assert!(hook.high(1, &p(0)));
        assert!(hook.high(2, &p(0)));
        assert!(hook.high(3, &p(1)), "CU 1 has its own warm-up");
        assert!(!hook.high(4, &p(0)));
        // The dispatcher takes the launch-time decisions, not new ones: kernel 4
        // stays low although CU 0 has no warm-up left to give either way.
        let units: Vec<DispatchUnit> = (1..=4)
            .map(|r| unit(r, Some((0, if r == 3 { 1 } else { 0 })), 1))
            .collect();
        let mut fits = |_: usize, _: usize| false;
        assert!(l.select_unit(&units, 2, &mut fits, 0).is_none());
        assert_eq!((l.stats().high, l.stats().low), (3, 1));
        assert!(
            l.pr.lock().unwrap().decided.is_empty(),
            "decisions consumed"
        );
        // A unit the hook never saw (a DTBL group) is decided at first sight.
        let g = [unit(9, Some((0, 0)), 1)];
        assert!(l.select_unit(&g, 2, &mut fits, 0).is_none());
        assert_eq!((l.stats().high, l.stats().low), (3, 2));
    }

    #[test]
    fn a_cu_takes_its_queued_low_child_before_the_next_parent() {
        let mut l = Laser::new(LaserConfig { warmup: 0 });
        let mut free = [true, true];
        // host kernel 0 with 4 TBs, two dispatched (TB 0 on CU 0, TB 1 on CU 1)
        for i in 0..2u64 {
            let host = [unit(0, None, 4 - i)];
            let (_, s) = l.select_unit(&host, 2, &mut |_, sm| free[sm], 0).unwrap();
            free[s] = false;
            l.on_dispatch(0, i, s, 0);
        }
        // TB 1 (CU 1) launched kernel 1; no warm-up, untrained monitor: low
        free[1] = true;
        let units = [unit(0, None, 2), unit(1, Some((1, 1)), 1)];
        let (u, s) = l.select_unit(&units, 2, &mut |_, sm| free[sm], 1).unwrap();
        assert_eq!(
            (u, s),
            (1, 1),
            "the low child, on its parent's CU, before parent TB 2"
        );
        assert_eq!(
            (l.stats().high, l.stats().low, l.stats().at_parent),
            (0, 1, 1)
        );
    }
}
