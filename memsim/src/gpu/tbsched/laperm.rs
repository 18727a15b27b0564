//! LaPerm: locality-aware TB dispatch for dynamic parallelism (Wang et al.; digest
//! §2.1; seed `000_6099d2f75cc48316.txt` §IV). Three schemes, each refining the
//! previous one:
//! - **TB-Pri**: priority levels `0..=L`; host kernels are level 0, a child gets
//!   `min(depth, L)` (its direct parent's level + 1, clamped); one FIFO per level,
//!   shared by all SMs; TBs come from the highest non-empty level and go to SMs
//!   round-robin, as the baseline.
//! - **SMX-Bind**: level 0 (PQ0) stays shared; levels `1..=L` are replicated per
//!   SM and a child is queued at the SM its direct parent TB ran on. SM `s` takes
//!   its own highest-priority TB, and a parent TB from PQ0 only when its own
//!   queues are empty.
//! - **Adaptive-Bind**: SMX-Bind plus stealing: when SM `s`'s queues and PQ0 are
//!   empty it takes TBs bound to a *backup* SM, chosen as the first SM after `s`
//!   (round-robin) with queued children (the paper leaves the rule open, [I]) and
//!   kept while it has entries, so stolen TBs stay together.
//!
//! The dispatcher visits SMs round-robin from the one after the last dispatch and
//! gives an SM the candidate of the first stage that has one; when that candidate
//! does not fit, the SM gets nothing (no fall-through to a later stage, digest §2.1
//! [I]) and the next SM is visited. Queue capacities: per SM `onchip` entries
//! (DTBL: 128, the 3 KB SRAM of 24 B entries; CDP: 32, the KDU size), PQ0 32
//! entries (768 B), TB-Pri's shared levels `onchip × SMs`; the rest overflows to
//! global memory ([`LevelQueues`]). Under CDP the kernel distributor's 32 entries
//! also bound what is visible (the paper's main reason LaPerm is weaker there).
//! Invariant: every unit the dispatcher lists is in exactly one queue, and a unit
//! leaves its queue with its last TB.

use super::queues::LevelQueues;
use super::steal::{self, Victim};
use super::UnitPolicy;
use crate::gpu::sched::DispatchUnit;
use std::collections::{HashMap, HashSet};

/// Which LaPerm scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// TB prioritising.
    TbPri,
    /// Prioritised SMX binding.
    SmxBind,
    /// Adaptive prioritised SMX binding (the full LaPerm).
    AdaptiveBind,
}

/// LaPerm's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LapermConfig {
    /// Highest priority level `L`. Default 8: the paper gives none ([I], digest §2.1).
    pub levels: u32,
    /// On-chip entries per SM for levels `1..=L`. Default 128 (DTBL); 32 under CDP.
    pub onchip: usize,
    /// PQ0 entries. Default 32.
    pub pq0: usize,
    /// Cycles before an entry moved on chip from the overflow is visible.
    /// Default 300 (assumed: one uncached global-memory read).
    pub overflow_latency: u64,
}

impl LapermConfig {
    /// The paper's capacities for DTBL (`dtbl`) or CDP.
    pub fn new(dtbl: bool) -> Self {
        LapermConfig {
            levels: 8,
            onchip: if dtbl { 128 } else { 32 },
            pq0: 32,
            overflow_latency: 300,
        }
    }
}

/// Where a unit is queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    Pq0,
    Set(usize),
}

/// Dispatch counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LapermStats {
    /// TBs taken from the SM's own (or TB-Pri's shared) child queues.
    pub bound: u64,
    /// TBs taken from PQ0.
    pub parents: u64,
    /// TBs stolen from a backup SM's queues.
    pub stolen: u64,
    /// Units that overflowed to global memory.
    pub overflowed: u64,
}

/// The LaPerm dispatcher (one of the three schemes).
#[derive(Clone, Debug)]
pub struct Laperm {
    scheme: Scheme,
    cfg: LapermConfig,
    pq0: LevelQueues,
    sets: Vec<LevelQueues>,
    loc: HashMap<u32, Loc>,
    backup: Vec<Option<usize>>,
    next: usize,
    stats: LapermStats,
}

impl Laperm {
    /// A dispatcher of `scheme` with `cfg`.
    pub fn new(scheme: Scheme, cfg: LapermConfig) -> Self {
        Laperm {
            scheme,
            cfg,
            pq0: LevelQueues::new(1, cfg.pq0, cfg.overflow_latency),
            sets: Vec::new(),
            loc: HashMap::new(),
            backup: Vec::new(),
            next: 0,
            stats: LapermStats::default(),
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> LapermStats {
        let mut s = self.stats;
        s.overflowed = self.pq0.overflowed + self.sets.iter().map(|q| q.overflowed).sum::<u64>();
        s
    }

    /// Queues units not seen before (in list order) and drops units that left.
    fn sync(&mut self, units: &[DispatchUnit], now: u64) {
        let live: HashSet<u32> = units.iter().map(|u| u.record).collect();
        let gone: Vec<u32> = self
            .loc
            .keys()
            .copied()
            .filter(|r| !live.contains(r))
            .collect();
        for r in gone {
            self.dequeue(r, now);
        }
        for u in units {
            if self.loc.contains_key(&u.record) {
                continue;
            }
            let level = u.depth.min(self.cfg.levels) as usize;
            let loc = match (u.parent, self.scheme) {
                (None, _) => Loc::Pq0,
                _ if level == 0 => Loc::Pq0,
                (Some(_), Scheme::TbPri) => Loc::Set(0),
                (Some(p), _) => Loc::Set(p.sm as usize % self.sets.len()),
            };
            match loc {
                Loc::Pq0 => self.pq0.push(u.record, 1, now),
                Loc::Set(s) => self.sets[s].push(u.record, level, now),
            }
            self.loc.insert(u.record, loc);
        }
    }

    fn dequeue(&mut self, record: u32, now: u64) {
        match self.loc.remove(&record) {
            Some(Loc::Pq0) => {
                self.pq0.remove(record, now);
            }
            Some(Loc::Set(s)) => {
                self.sets[s].remove(record, now);
            }
            None => {}
        }
    }

    /// Adaptive-Bind stage 3: the backup SM's front entry for SM `s`.
    fn steal(&mut self, s: usize, now: u64) -> Option<u32> {
        let sets = &self.sets;
        let b = steal::sticky(&mut self.backup[s], s, sets.len(), Victim::NextAfter, |u| {
            sets[u].front(now).is_some() as u64
        })?;
        self.sets[b].front(now)
    }

    fn take(&mut self, units: &[DispatchUnit], u: usize, s: usize, now: u64) {
        self.next = (s + 1) % self.backup.len().max(1);
        if units[u].left <= 1 {
            self.dequeue(units[u].record, now);
        }
    }
}

impl UnitPolicy for Laperm {
    fn name(&self) -> &'static str {
        match self.scheme {
            Scheme::TbPri => "tb-pri",
            Scheme::SmxBind => "smx-bind",
            Scheme::AdaptiveBind => "adaptive-bind",
        }
    }

    fn size(&mut self, sms: usize) {
        let n = if self.scheme == Scheme::TbPri { 1 } else { sms };
        if self.sets.len() != n {
            let cap = if self.scheme == Scheme::TbPri {
                self.cfg.onchip * sms
            } else {
                self.cfg.onchip
            };
            let l = self.cfg.levels.max(1) as usize;
            self.sets = vec![LevelQueues::new(l, cap, self.cfg.overflow_latency); n];
            self.backup = vec![None; sms];
        }
    }

    fn pick(
        &mut self,
        units: &[DispatchUnit],
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
        now: u64,
    ) -> Option<(usize, usize)> {
        self.sync(units, now);
        let index: HashMap<u32, usize> = units
            .iter()
            .enumerate()
            .map(|(i, u)| (u.record, i))
            .collect();
        if self.scheme == Scheme::TbPri {
            let order: Vec<u32> = self.sets[0]
                .ordered(now)
                .chain(self.pq0.ordered(now))
                .collect();
            for r in order {
                let u = index[&r];
                for i in 0..sms {
                    let s = (self.next + i) % sms;
                    if fits(u, s) {
                        if units[u].parent.is_some() && units[u].depth > 0 {
                            self.stats.bound += 1;
                        } else {
                            self.stats.parents += 1;
                        }
                        self.take(units, u, s, now);
                        return Some((u, s));
                    }
                }
            }
            return None;
        }
        for i in 0..sms {
            let s = (self.next + i) % sms;
            let cand = if let Some(r) = self.sets[s].front(now) {
                Some((r, 0))
            } else if let Some(r) = self.pq0.front(now) {
                Some((r, 1))
            } else if self.scheme == Scheme::AdaptiveBind {
                self.steal(s, now).map(|r| (r, 2))
            } else {
                None
            };
            let Some((r, stage)) = cand else {
                continue;
            };
            let u = index[&r];
            if fits(u, s) {
                match stage {
                    0 => self.stats.bound += 1,
                    1 => self.stats.parents += 1,
                    _ => self.stats.stolen += 1,
                }
                self.take(units, u, s, now);
                return Some((u, s));
            }
        }
        None
    }

    fn wake_at(&self, now: u64) -> Option<u64> {
        std::iter::once(&self.pq0)
            .chain(self.sets.iter())
            .filter_map(|q| q.next_ready(now))
            .min()
    }

    fn report(&self) -> Option<serde_json::Value> {
        let s = self.stats();
        Some(serde_json::json!({
            "policy": self.name(),
            "levels": self.cfg.levels,
            "onchip_entries": self.cfg.onchip,
            "bound": s.bound,
            "parents": s.parents,
            "stolen": s.stolen,
            "overflowed": s.overflowed,
        }))
    }
}
