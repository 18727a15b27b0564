//! CCWS, cache-conscious wavefront scheduling (Rogers, O'Connor, Aamodt, MICRO
//! 2012; iPAWS's baseline and its greedy side in RR↔CCWS, digest §5.2): GTO whose
//! warps lose the right to issue when the L1 shows that intra-warp locality is
//! being lost.
//!
//! What it models: each warp has a victim tag array (VTA) of the lines evicted from
//! the L1 while it owned them; a miss of a warp on a line in its own VTA is lost
//! intra-warp locality and raises the warp's lost-locality score (LLS). Warps are
//! stacked by LLS, largest first (ties: older first); the warps whose cumulative
//! score exceeds the cutoff `live warps × base score` may not issue, so warps that
//! lose locality squeeze the youngest out until the scores decay back to the base.
//! The first warp of the stack is never throttled.
//!
//! The iPAWS paper gives no CCWS detail ([X], digest §5.2); assumed here ([I]):
//! 8 VTA entries per warp (FIFO), base score 100, a VTA hit adds 100 (one warp's
//! share of the cutoff), scores decay by 1 per scheduler step (applied every 32
//! steps) down to the base, and a throttled warp may issue nothing (CCWS stops
//! only its loads; the scheduler does not see instruction classes).

use super::L1Probe;
use crate::gpu::sched::{Cand, Gto, WarpInfo, WarpScheduler};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

/// VTA entries per warp.
pub const VTA_ENTRIES: usize = 8;
/// Base lost-locality score of a warp.
pub const BASE: i64 = 100;
/// Score added by a VTA hit.
pub const BUMP: i64 = 100;
/// Steps between two decays (by this many points).
pub const DECAY_PERIOD: u64 = 32;

/// Per-SM CCWS state (shared by the SM's schedulers and its L1 probe).
#[derive(Debug, Default)]
pub struct CcwsCore {
    /// VTA per warp (global warp id).
    vta: HashMap<u32, VecDeque<u64>>,
    /// Per warp slot: live, age, global id, score.
    slots: Vec<(bool, u64, u32, i64)>,
    by_gid: HashMap<u32, u32>,
    /// Allowed to issue, per slot (recomputed when scores change).
    allowed: Vec<bool>,
    dirty: bool,
    steps: u64,
    /// VTA hits so far.
    pub vta_hits: u64,
}

impl CcwsCore {
    fn recompute(&mut self) {
        self.dirty = false;
        let mut live: Vec<(i64, u64, usize)> = self
            .slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.0)
            .map(|(i, s)| (s.3, s.1, i))
            .collect();
        live.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let cutoff = live.len() as i64 * BASE;
        self.allowed.clear();
        self.allowed.resize(self.slots.len(), false);
        let mut sum = 0;
        for (k, &(score, _, i)) in live.iter().enumerate() {
            sum += score;
            self.allowed[i] = k == 0 || sum <= cutoff;
        }
    }
}

impl L1Probe for Rc<RefCell<CcwsCore>> {
    fn on_miss(&mut self, line: u64, warp: u32) {
        let mut c = self.borrow_mut();
        let hit = c.vta.get_mut(&warp).and_then(|v| {
            let p = v.iter().position(|&l| l == line)?;
            v.remove(p)
        });
        if hit.is_some() {
            c.vta_hits += 1;
            if let Some(&slot) = c.by_gid.get(&warp) {
                c.slots[slot as usize].3 += BUMP;
                c.dirty = true;
            }
        }
    }

    fn on_evict(&mut self, line: u64, warp: u32) {
        let mut c = self.borrow_mut();
        if !c.by_gid.contains_key(&warp) {
            return;
        }
        let v = c.vta.entry(warp).or_default();
        v.push_back(line);
        if v.len() > VTA_ENTRIES {
            v.pop_front();
        }
    }
}

/// One CCWS scheduler of an SM.
#[derive(Debug)]
pub struct Ccws {
    core: Rc<RefCell<CcwsCore>>,
    gto: Gto,
}

impl Ccws {
    /// A scheduler on `core`.
    pub fn new(core: Rc<RefCell<CcwsCore>>) -> Self {
        Ccws {
            core,
            gto: Gto::default(),
        }
    }
}

impl WarpScheduler for Ccws {
    fn name(&self) -> &'static str {
        "ccws"
    }

    fn pick(&mut self, ready: &[Cand]) -> usize {
        self.gto.pick(ready)
    }

    fn on_issue(&mut self, slot: u32) {
        self.gto.on_issue(slot);
    }

    fn observes(&self) -> bool {
        true
    }

    fn throttle(&mut self, ready: &mut Vec<Cand>) {
        let mut c = self.core.borrow_mut();
        c.steps += 1;
        if c.steps % DECAY_PERIOD == 0 {
            for s in c.slots.iter_mut() {
                if s.3 > BASE {
                    s.3 = (s.3 - DECAY_PERIOD as i64).max(BASE);
                }
            }
            c.dirty = true;
        }
        if c.dirty {
            c.recompute();
        }
        ready.retain(|r| c.allowed.get(r.slot as usize).copied().unwrap_or(true));
    }

    fn on_warp_start(&mut self, w: WarpInfo, _t: u64) {
        let mut c = self.core.borrow_mut();
        let slot = w.slot as usize;
        if c.slots.len() <= slot {
            c.slots.resize(slot + 1, (false, 0, 0, 0));
        }
        c.slots[slot] = (true, w.age, w.gid, BASE);
        c.by_gid.insert(w.gid, w.slot);
        c.dirty = true;
    }

    fn on_warp_exit(&mut self, w: WarpInfo, _t: u64) {
        let mut c = self.core.borrow_mut();
        c.slots[w.slot as usize].0 = false;
        c.by_gid.remove(&w.gid);
        c.vta.remove(&w.gid);
        c.dirty = true;
    }
}

/// The `n` CCWS schedulers of an SM and their L1 probe.
pub fn schedulers(n: u32) -> (Vec<Box<dyn WarpScheduler>>, Box<dyn L1Probe>) {
    let core = Rc::new(RefCell::new(CcwsCore::default()));
    let v = (0..n)
        .map(|_| Box::new(Ccws::new(core.clone())) as Box<dyn WarpScheduler>)
        .collect();
    (v, Box::new(core))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(slot: u32, gid: u32) -> WarpInfo {
        WarpInfo {
            slot,
            age: slot as u64,
            kernel: 0,
            gid,
            tb: 0,
        }
    }

    /// A warp that re-misses its own evicted lines pushes the youngest warps out.
    #[test]
    fn lost_locality_throttles_the_youngest() {
        let (mut s, mut probe) = schedulers(1);
        let s = &mut s[0];
        for w in 0..4 {
            s.on_warp_start(info(w, 100 + w), 0);
        }
        let all: Vec<Cand> = (0..4)
            .map(|w| Cand {
                slot: w,
                mem: false,
                age: w as u64,
            })
            .collect();
        let mut r = all.clone();
        s.throttle(&mut r);
        assert_eq!(r.len(), 4);
        // warp 0 loses lines 7 and 9 and misses on them again: +200
        probe.on_evict(7, 100);
        probe.on_evict(9, 100);
        probe.on_miss(7, 100);
        probe.on_miss(9, 100);
        probe.on_miss(11, 101); // not in its VTA: no change
        let mut r = all.clone();
        s.throttle(&mut r);
        // stack: 300 (w0), 100, 100, 100 > cutoff 400 after w1: w2, w3 throttled
        assert_eq!(r.iter().map(|c| c.slot).collect::<Vec<_>>(), vec![0, 1]);
        // decay back to the base: everyone issues again
        for _ in 0..(2 * BUMP as u64 / DECAY_PERIOD + 1) * DECAY_PERIOD {
            let mut r = all.clone();
            s.throttle(&mut r);
        }
        let mut r = all.clone();
        s.throttle(&mut r);
        assert_eq!(r.len(), 4);
    }
}
