//! LASER's oracle limit study (dissertation §3.4.1, Alg. 2 and 3; digest §4.2):
//! schedulers that know, from a profiling run ([`super::profile`]), which kernels
//! and WGs reuse each other's data. Not implementable in hardware; it bounds what
//! a locality-aware scheduler can gain (paper: kernel +2.6%, kernel+WG +14.3%,
//! kernel+WG+wavefront +19.4% over the baseline).
//!
//! - **Kernel** (Alg. 2): when a slot frees, the high-reuse partners of the
//!   kernels that are running go first, the best ratio first; the others keep the
//!   FCFS order; TBs go to the SMs round-robin as in the baseline. The thesis
//!   pulls the partner from the pending pool into an empty hardware queue; here
//!   the order acts on the kernels the dispatcher sees (the distributor's entries
//!   under CDP, every DTBL group), the pending pool staying FCFS ([I]).
//! - **Kernel+WG** (Alg. 3): one CU queue per SM, holding no resources. Each
//!   high-reuse WG chain goes to the CU queue with the fewest queued WGs when its
//!   first WG becomes visible; a WG in no high-reuse pair is a chain of its own.
//!   A CU takes the next WG of its own queue (kernels in the kernel level's
//!   order); with none that fits, it steals from the queue with the most WGs, and
//!   failing that takes any WG that fits: a CU is never kept idle waiting for a
//!   child not launched yet. Running WGs never migrate. Since a unit's TBs leave
//!   in index order, a CU's queue is the set of units whose *next* WG is bound to
//!   it. [I]: when a chain's first WG runs on another CU than its queue's (it was
//!   stolen), the chain follows it, so its children queue where their parent WG
//!   runs.
//! - **Kernel+WG+wavefront**: the WG level plus two-level warp groups: each
//!   dispatched WG is filed under its chain in the GPU's
//!   [`WarpGroups`](crate::gpu::warpsched::groups::WarpGroups), which the
//!   `laser-groups` warp scheduler reads (GTO across chains, round-robin inside;
//!   run it with `--warp-sched laser-groups`). A WG's global TB id is the number
//!   of TBs dispatched before it: every TB of a run with a unit policy is
//!   dispatched through it, and the engine numbers them in that order.
//!
//! The profile comes from a round-robin run of the same workload and machine
//! ([`prepare`]); kernels of the second run are matched through stable keys
//! ([`super::profile::KeyMap`]).

use super::profile::{Key, KeyMap, Profile};
use super::steal::{self, Victim};
use super::UnitPolicy;
use crate::config::MachineConfig;
use crate::gpu::reuse::{Recorder, Trace};
use crate::gpu::sched::DispatchUnit;
use crate::gpu::warpsched::groups::WarpGroups;
use crate::gpu::warpsched::WarpSchedCtx;
use crate::gpu::workload::Workload;
use crate::gpu::{GpuOptions, GpuSim};
use crate::manycore::SimError;
use std::collections::HashMap;
use std::sync::Arc;

/// The oracle's knowledge level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Kernel scheduling only (Alg. 2).
    Kernel,
    /// Kernel and WG scheduling (Alg. 2 and 3).
    Wg,
    /// Kernel, WG and wavefront scheduling (Alg. 2 and 3, and the WG chains as
    /// wavefront groups).
    Wavefront,
}

impl Level {
    /// `kernel`, `wg` or `wavefront`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Kernel => "kernel",
            Level::Wg => "wg",
            Level::Wavefront => "wavefront",
        }
    }
}

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OracleStats {
    /// Dispatches of a running kernel's high-reuse partner ahead of FCFS order.
    pub promoted: u64,
    /// WGs taken from the CU's own queue.
    pub own: u64,
    /// WGs stolen from the longest queue.
    pub stolen: u64,
    /// WGs taken from any queue (nothing of the own or the victim's fitted).
    pub any: u64,
    /// Chains moved to where their first WG ran.
    pub rebound: u64,
    /// Units whose kernel the profiling run did not launch (no matching key).
    pub unknown: u64,
}

/// The oracle dispatcher.
pub struct Oracle {
    level: Level,
    prof: Arc<Profile>,
    keys: KeyMap,
    /// Running TBs per kernel key.
    running: HashMap<Key, u64>,
    /// Key of each record seen.
    rec_key: HashMap<u32, Key>,
    /// CU queue of each chain.
    home: HashMap<u64, usize>,
    /// Chains with a WG dispatched.
    started: HashMap<u64, ()>,
    /// WGs queued (bound, not dispatched) per CU, and where each was counted.
    queued: Vec<u64>,
    counted: HashMap<(u32, u64), usize>,
    next: usize,
    stats: OracleStats,
    /// Wavefront level: where the chains of dispatched WGs are filed.
    groups: Option<WarpGroups>,
    /// TBs dispatched so far (the next TB's global id).
    dispatched: u32,
}

impl Oracle {
    /// An oracle at `level` knowing `prof`.
    pub fn new(level: Level, prof: Arc<Profile>) -> Self {
        Oracle {
            level,
            prof,
            keys: KeyMap::default(),
            running: HashMap::new(),
            rec_key: HashMap::new(),
            home: HashMap::new(),
            started: HashMap::new(),
            queued: Vec::new(),
            counted: HashMap::new(),
            next: 0,
            stats: OracleStats::default(),
            groups: None,
            dispatched: 0,
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> OracleStats {
        self.stats
    }

    fn chain(&self, key: Key, tb: u64) -> u64 {
        // a WG the profile does not know (no access, or an unknown kernel) is a
        // chain of its own, outside the profile's id range
        self.prof
            .chain
            .get(&(key, tb))
            .copied()
            .unwrap_or_else(|| (1 << 63) ^ key.rotate_left(17) ^ tb)
    }

    fn sync(&mut self, units: &[DispatchUnit]) {
        for u in units {
            if self.rec_key.contains_key(&u.record) {
                continue;
            }
            let k = self.keys.key(u.record, u.parent);
            self.rec_key.insert(u.record, k);
            self.stats.unknown += (!self.prof.keys.contains(&k)) as u64;
            if self.level == Level::Kernel {
                continue;
            }
            for tb in u.tbs - u.left..u.tbs {
                let c = self.chain(k, tb);
                let q = &self.queued;
                let h = *self
                    .home
                    .entry(c)
                    .or_insert_with(|| (0..q.len()).min_by_key(|&s| (q[s], s)).expect("CUs"));
                self.queued[h] += 1;
                self.counted.insert((u.record, tb), h);
            }
        }
    }

    /// Kernel-level priority of unit `u`: the best ratio to a running kernel.
    fn priority(&self, u: &DispatchUnit) -> Option<f64> {
        let k = self.rec_key.get(&u.record)?;
        self.prof
            .partners
            .get(k)?
            .iter()
            .find(|(p, _)| self.running.get(p).copied().unwrap_or(0) > 0)
            .map(|&(_, v)| v)
    }

    /// Units in the kernel level's order: partners of running kernels, best
    /// ratio first, then FCFS.
    fn order(&self, units: &[DispatchUnit]) -> Vec<(usize, bool)> {
        let mut pri: Vec<(usize, f64)> = units
            .iter()
            .enumerate()
            .filter_map(|(i, u)| self.priority(u).map(|v| (i, v)))
            .collect();
        pri.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut out: Vec<(usize, bool)> = pri.iter().map(|&(i, _)| (i, true)).collect();
        let mut first = vec![false; units.len()];
        pri.iter().for_each(|&(i, _)| first[i] = true);
        out.extend((0..units.len()).filter(|&i| !first[i]).map(|i| (i, false)));
        out
    }

    /// The CU queue of unit `u`'s next WG.
    fn next_home(&self, u: &DispatchUnit) -> usize {
        let k = self.rec_key[&u.record];
        let c = self.chain(k, u.tbs - u.left);
        self.home.get(&c).copied().unwrap_or(0)
    }

    fn take(&mut self, u: &DispatchUnit, s: usize, promoted: bool) {
        self.stats.promoted += promoted as u64;
        self.next = (s + 1) % self.queued.len().max(1);
        if self.level == Level::Kernel {
            return;
        }
        let tb = u.tbs - u.left;
        if let Some(h) = self.counted.remove(&(u.record, tb)) {
            self.queued[h] = self.queued[h].saturating_sub(1);
        }
        let c = self.chain(self.rec_key[&u.record], tb);
        if self.started.insert(c, ()).is_none() && self.home.get(&c) != Some(&s) {
            self.home.insert(c, s);
            self.stats.rebound += 1;
        }
    }

    fn select_kernel(
        &mut self,
        units: &[DispatchUnit],
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Option<(usize, usize)> {
        for (i, promoted) in self.order(units) {
            for d in 0..sms {
                let s = (self.next + d) % sms;
                if fits(i, s) {
                    self.take(&units[i], s, promoted);
                    return Some((i, s));
                }
            }
        }
        None
    }

    fn select_wg(
        &mut self,
        units: &[DispatchUnit],
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Option<(usize, usize)> {
        let order = self.order(units);
        let homes: Vec<usize> = units.iter().map(|u| self.next_home(u)).collect();
        for d in 0..sms {
            let s = (self.next + d) % sms;
            let own = order
                .iter()
                .copied()
                .find(|&(i, _)| homes[i] == s && fits(i, s));
            if let Some((i, p)) = own {
                self.stats.own += 1;
                self.take(&units[i], s, p);
                return Some((i, s));
            }
            // the victim: the queue with the most WGs whose next WG is visible
            let mut vis = vec![0u64; sms];
            order.iter().for_each(|&(i, _)| vis[homes[i]] += 1);
            let q = &self.queued;
            let v = steal::victim(
                s,
                sms,
                Victim::Longest,
                |v| {
                    if vis[v] > 0 {
                        q[v]
                    } else {
                        0
                    }
                },
            );
            let stolen = v.and_then(|v| {
                order
                    .iter()
                    .copied()
                    .find(|&(i, _)| homes[i] == v && fits(i, s))
            });
            if let Some((i, p)) = stolen {
                self.stats.stolen += 1;
                self.take(&units[i], s, p);
                return Some((i, s));
            }
            if let Some((i, p)) = order.iter().copied().find(|&(i, _)| fits(i, s)) {
                self.stats.any += 1;
                self.take(&units[i], s, p);
                return Some((i, s));
            }
        }
        None
    }
}

impl UnitPolicy for Oracle {
    fn name(&self) -> &'static str {
        match self.level {
            Level::Kernel => "laser-oracle=kernel",
            Level::Wg => "laser-oracle=wg",
            Level::Wavefront => "laser-oracle=wavefront",
        }
    }

    fn size(&mut self, sms: usize) {
        if self.queued.len() != sms {
            self.queued = vec![0; sms];
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
        match self.level {
            Level::Kernel => self.select_kernel(units, sms, fits),
            Level::Wg | Level::Wavefront => self.select_wg(units, sms, fits),
        }
    }

    fn on_dispatch(&mut self, record: u32, index: u64, _sm: usize, _now: u64) {
        if let Some(&k) = self.rec_key.get(&record) {
            *self.running.entry(k).or_insert(0) += 1;
            if let Some(g) = &self.groups {
                g.set(self.dispatched, self.chain(k, index));
            }
        }
        self.dispatched += 1;
    }

    fn attach(&mut self, ctx: &WarpSchedCtx) {
        if self.level == Level::Wavefront {
            self.groups = Some(ctx.warp_groups());
        }
    }

    fn on_tb_done(&mut self, record: u32, _index: u64, _sm: usize, _now: u64) {
        if let Some(&k) = self.rec_key.get(&record) {
            if let Some(n) = self.running.get_mut(&k) {
                *n = n.saturating_sub(1);
            }
        }
    }

    fn report(&self) -> Option<serde_json::Value> {
        let s = self.stats;
        Some(serde_json::json!({
            "policy": self.name(),
            "profile_kernels": self.prof.kernels,
            "profile_kernel_pairs": self.prof.kernel_pairs,
            "profile_wg_pairs": self.prof.wg_pairs,
            "promoted": s.promoted,
            "own": s.own,
            "stolen": s.stolen,
            "any": s.any,
            "rebound": s.rebound,
            "unknown_kernels": s.unknown,
            "warp_groups": self.groups.is_some(),
            "grouped_tbs": self.groups.as_ref().map_or(0, |g| g.len()),
        }))
    }
}

/// The profile of `wl` on `cfg` under `opts` with the round-robin dispatcher
/// (the same seed and DP mode; the warp scheduler as `opts` says).
pub fn profile(
    cfg: &MachineConfig,
    wl: Arc<Workload>,
    opts: &GpuOptions,
) -> Result<Profile, SimError> {
    let o = GpuOptions {
        tb_sched: Some(crate::gpu::config::TbSchedKind::Rr),
        dram_thread: false,
        ..opts.clone()
    };
    let mut sim = GpuSim::build(cfg, wl, &o)?;
    let rec = Recorder::default();
    sim.set_l1_hook(Box::new(rec.clone()));
    sim.run(|_| {})?;
    let events = rec
        .events
        .lock()
        .map_err(|_| SimError::Thread("trace lock".into()))?;
    let trace = Trace::tag(&events, sim.dispatches(), sim.kernels(), false);
    Ok(Profile::of(&trace))
}

/// The oracle at `level` for `wl` on `cfg` under `opts`: profiles first.
pub fn prepare(
    cfg: &MachineConfig,
    wl: Arc<Workload>,
    opts: &GpuOptions,
    level: Level,
) -> Result<Box<dyn crate::gpu::sched::TbDispatchPolicy>, SimError> {
    Ok(Box::new(Oracle::new(
        level,
        Arc::new(profile(cfg, wl, opts)?),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::dp::ParentInfo;

    fn unit(record: u32, parent: Option<(u32, u64)>, tbs: u64, left: u64) -> DispatchUnit {
        DispatchUnit {
            kernel: record,
            record,
            group: false,
            parent: parent.map(|(kernel, tb)| ParentInfo {
                kernel,
                tb,
                warp: 0,
                lane: 0,
                sm: 0,
            }),
            depth: parent.is_some() as u32,
            left,
            tbs,
        }
    }

    /// A profile: host kernel 0 (4 WGs); children of WG 1 (record 1) and WG 2
    /// (record 2); child 1 reuses its parent WG (chain {h1, c1}, kernel
    /// partners 0–1 at 0.9), child 2 does not.
    fn prof() -> (Arc<Profile>, Vec<Key>) {
        let mut km = KeyMap::default();
        let h = km.key(0, None);
        let p = |tb| {
            Some(ParentInfo {
                kernel: 0,
                tb,
                warp: 0,
                lane: 0,
                sm: 0,
            })
        };
        let c1 = km.key(1, p(1));
        let c2 = km.key(2, p(2));
        let mut pr = Profile::default();
        pr.partners.insert(h, vec![(c1, 0.9)]);
        pr.partners.insert(c1, vec![(h, 0.9)]);
        for tb in 0..4 {
            pr.chain.insert((h, tb), tb);
        }
        pr.chain.insert((c1, 0), 1);
        pr.chain.insert((c2, 0), 10);
        pr.keys = [h, c1, c2].into_iter().collect();
        (Arc::new(pr), vec![h, c1, c2])
    }

    #[test]
    fn kernel_level_puts_a_running_kernels_partner_first() {
        let (p, _) = prof();
        let mut o = Oracle::new(Level::Kernel, p);
        // host kernel with 4 TBs on 2 SMs, 2 slots each
        let mut slots = [2u32; 2];
        for i in 0..4u64 {
            let units = [unit(0, None, 4, 4 - i)];
            let (u, s) = o
                .select_unit(&units, 2, &mut |_, sm| slots[sm] > 0, i)
                .unwrap();
            assert_eq!((u, s), (0, i as usize % 2), "round-robin placement");
            slots[s] -= 1;
            o.on_dispatch(0, i, s, i);
        }
        // child 2 (no reuse) arrived before child 1 (partner of the running host)
        slots[1] = 1;
        let units = [unit(2, Some((0, 2)), 1, 1), unit(1, Some((0, 1)), 1, 1)];
        let (u, _) = o
            .select_unit(&units, 2, &mut |_, sm| slots[sm] > 0, 9)
            .unwrap();
        assert_eq!(u, 1, "the partner overtakes FCFS order");
        assert_eq!(o.stats().promoted, 1);
        // once the host's TBs are done, FCFS again
        for i in 0..4 {
            o.on_tb_done(0, i, (i % 2) as usize, 10);
        }
        let (u, _) = o
            .select_unit(&units, 2, &mut |_, sm| slots[sm] > 0, 11)
            .unwrap();
        assert_eq!(u, 0);
    }

    #[test]
    fn wg_level_queues_chains_and_children_follow_their_parent_wg() {
        let (p, _) = prof();
        let mut o = Oracle::new(Level::Wg, p);
        let mut slots = [1u32, 1, 1];
        // host kernel, 4 WGs, 3 CUs of one slot: chains 0..3 bound to the
        // queues with the fewest WGs: 0, 1, 2, 0
        let mut placed = Vec::new();
        for i in 0..3u64 {
            let units = [unit(0, None, 4, 4 - i)];
            let (_, s) = o
                .select_unit(&units, 3, &mut |_, sm| slots[sm] > 0, i)
                .unwrap();
            slots[s] -= 1;
            o.on_dispatch(0, i, s, i);
            placed.push(s);
        }
        assert_eq!(placed, vec![0, 1, 2], "every WG from its own queue");
        assert_eq!(o.stats().own, 3);
        // CU 2 frees first; host WG 3 is queued at CU 0, child 1 (chain of
        // WG 1, running on CU 1) at CU 1: CU 2 must steal, not idle
        o.on_tb_done(0, 2, 2, 5);
        slots[2] = 1;
        let units = [unit(0, None, 4, 1), unit(1, Some((0, 1)), 1, 1)];
        let (u, s) = o
            .select_unit(&units, 3, &mut |_, sm| slots[sm] > 0, 6)
            .unwrap();
        // CU 0's queue (host WG 3) and CU 1's (child 1) hold one WG each: the
        // lower CU is the victim, and chain 3 follows its WG to CU 2
        assert_eq!((u, s), (0, 2));
        assert_eq!(
            (o.stats().stolen, o.stats().any, o.stats().rebound),
            (1, 0, 1)
        );
        slots[2] = 0;
        o.on_dispatch(0, 3, 2, 6);
        // CU 1 frees: child 1 runs there, next to its parent WG, from its own queue
        slots[1] = 1;
        let rest = [unit(1, Some((0, 1)), 1, 1)];
        let (_, s) = o
            .select_unit(&rest, 3, &mut |_, sm| slots[sm] > 0, 7)
            .unwrap();
        assert_eq!(s, 1, "child WG on its parent WG's CU");
        assert_eq!(o.stats().own, 4);
    }
}
