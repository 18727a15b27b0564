//! Per-SM L1 data cache: tags on memsim's [`CacheArray`] (set-associative, LRU),
//! MSHRs with merging, owner tags and an access hook (digest §8.1, "L1D per SM").
//!
//! What it models: a lookup per coalesced transaction. A hit is served after the
//! hit latency (the SM adds it). A miss to a line already outstanding merges into
//! its MSHR (up to `targets` requests); a new miss takes a free MSHR and goes to
//! the memory side; with no MSHR or target free the transaction waits in the SM's
//! miss queue. Fills install the line (LRU victim; the L1 is write-through, so
//! victims are clean) and record its owner (warp, TB, kernel) for the intra- /
//! inter-warp classification of later hits (iPAWS Fig. 4): a hit is intra-warp when
//! the line was filled or last hit by the same warp. Stores write through to L2
//! and update a present line (no write-allocate, as Fermi/Kepler global stores).
//! Every lookup is reported to an [`L1Observer`], the hook for locality monitors
//! (LASER's Bloom filters, reuse analysis).
//! Invariant: a line has at most one MSHR; an MSHR's waiters are answered exactly once.

use crate::cache::{CacheArray, CacheGeometry};

/// Who touched a line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Owner {
    /// Global warp id (unique over the run).
    pub warp: u32,
    /// Global TB id (unique over the run).
    pub tb: u32,
    /// Kernel instance.
    pub kernel: u32,
}

/// Result of one lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Present; `intra_warp` = last touched by the same warp.
    Hit {
        /// Same warp as the line's last owner.
        intra_warp: bool,
    },
    /// Merged into the MSHR of an outstanding miss.
    Merged(u32),
    /// New miss: MSHR `id` allocated; send a request for the line.
    Miss(u32),
    /// No MSHR (or target) free: retry later.
    Stall,
}

/// One L1 access as the hook sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct L1Event {
    /// SM.
    pub sm: u32,
    /// Line number.
    pub line: u64,
    /// Who accesses it.
    pub who: Owner,
    /// Write (store) or read.
    pub write: bool,
    /// Whether it hit.
    pub hit: bool,
    /// Cycle.
    pub time: u64,
}

/// The access hook (locality monitors).
pub trait L1Observer {
    /// Called on every L1 lookup of a global access.
    fn on_access(&mut self, e: &L1Event);
}

/// One MSHR: the line and the requests waiting for it.
#[derive(Clone, Debug, Default)]
struct Mshr {
    line: u64,
    used: bool,
    fill: bool,
    waiters: Vec<u64>,
}

/// L1 hit/miss counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct L1Counters {
    /// Read hits by the line's last owner warp.
    pub intra_warp_hits: u64,
    /// Read hits by another warp.
    pub inter_warp_hits: u64,
    /// Read misses (new MSHR).
    pub misses: u64,
    /// Read misses merged into an outstanding MSHR.
    pub merged: u64,
    /// Lookups refused for lack of an MSHR (retried).
    pub stalls: u64,
    /// Store lookups.
    pub writes: u64,
}

/// `fill_keys` entry of an MSHR that is free or does not fill (line numbers are
/// addresses shifted right, so never this value).
const NO_LINE: u64 = u64::MAX;

/// The L1D of one SM.
pub struct L1 {
    sm: u32,
    array: CacheArray,
    owners: Vec<Owner>,
    mshrs: Vec<Mshr>,
    /// Per MSHR, the line of a used filling MSHR, else [`NO_LINE`]: the merge
    /// lookup scans these 8-byte keys instead of the MSHRs (at most one filling
    /// MSHR per line, so the first match is the only one).
    fill_keys: Vec<u64>,
    free: Vec<u32>,
    targets: usize,
    /// Per kernel instance: read lookups (hits, misses, merges) and hits.
    per_kernel: Vec<[u64; 2]>,
    /// Counters.
    pub c: L1Counters,
    /// The iPAWS / CCWS access breakdown, when switched on (`None`: no cost).
    pub breakdown: Option<Box<crate::gpu::warpsched::locality::Breakdown>>,
    /// A warp scheduler's probe of misses and evictions (CCWS's victim tags).
    pub probe: Option<Box<dyn crate::gpu::warpsched::L1Probe>>,
    /// Changes of the lines present or of the MSHRs so far (see [`Self::epoch`]).
    epoch: u64,
}

impl L1 {
    /// An empty L1 of geometry `g` with `mshrs` MSHRs of `targets` targets each.
    pub fn new(sm: u32, g: CacheGeometry, mshrs: u32, targets: u32) -> Self {
        let array = CacheArray::new(g, 1);
        let slots = array.slots();
        L1 {
            sm,
            array,
            owners: vec![Owner::default(); slots],
            mshrs: vec![Mshr::default(); mshrs.max(1) as usize],
            fill_keys: vec![NO_LINE; mshrs.max(1) as usize],
            free: (0..mshrs.max(1)).rev().collect(),
            targets: targets.max(1) as usize,
            per_kernel: Vec::new(),
            c: L1Counters::default(),
            breakdown: None,
            probe: None,
            epoch: 0,
        }
    }

    fn find_mshr(&self, line: u64) -> Option<u32> {
        debug_assert_ne!(line, NO_LINE);
        self.fill_keys
            .iter()
            .position(|&k| k == line)
            .map(|i| i as u32)
    }

    /// A read of `line` by `who` at `time`; `waiter` is answered when a miss fills.
    pub fn read(
        &mut self,
        line: u64,
        who: Owner,
        waiter: u64,
        time: u64,
        hook: &mut Option<Box<dyn L1Observer>>,
    ) -> Lookup {
        let r = if let Some(slot) = self.array.access(line) {
            let intra = self.owners[slot].warp == who.warp;
            self.owners[slot] = who;
            if intra {
                self.c.intra_warp_hits += 1;
            } else {
                self.c.inter_warp_hits += 1;
            }
            Lookup::Hit { intra_warp: intra }
        } else if let Some(id) = self.find_mshr(line) {
            let m = &mut self.mshrs[id as usize];
            if m.waiters.len() < self.targets {
                m.waiters.push(waiter);
                self.c.merged += 1;
                Lookup::Merged(id)
            } else {
                self.c.stalls += 1;
                Lookup::Stall
            }
        } else {
            match self.alloc(line, true, waiter) {
                Some(id) => {
                    self.c.misses += 1;
                    if let Some(p) = &mut self.probe {
                        p.on_miss(line, who.warp);
                    }
                    Lookup::Miss(id)
                }
                None => {
                    self.c.stalls += 1;
                    Lookup::Stall
                }
            }
        };
        if !matches!(r, Lookup::Stall) {
            self.epoch += 1;
            let k = who.kernel as usize;
            if self.per_kernel.len() <= k {
                self.per_kernel.resize(k + 1, [0; 2]);
            }
            self.per_kernel[k][0] += 1;
            self.per_kernel[k][1] += matches!(r, Lookup::Hit { .. }) as u64;
            if let Some(b) = &mut self.breakdown {
                use crate::gpu::warpsched::locality::Access;
                let a = match r {
                    Lookup::Hit { intra_warp: true } => Access::HitIntra,
                    Lookup::Hit { .. } => Access::HitInter,
                    Lookup::Merged(_) => Access::Merged,
                    _ => Access::Miss,
                };
                b.record(line, who.warp, who.kernel, a);
            }
        }
        // A refused lookup is retried: the hook sees the request once, when it is
        // served.
        if let Some(h) = hook.as_deref_mut().filter(|_| !matches!(r, Lookup::Stall)) {
            h.on_access(&L1Event {
                sm: self.sm,
                line,
                who,
                write: false,
                hit: matches!(r, Lookup::Hit { .. }),
                time,
            });
        }
        r
    }

    /// An MSHR for a request that bypasses the cache (no lookup, no fill).
    pub fn bypass(&mut self, line: u64, waiter: u64) -> Option<u32> {
        self.epoch += 1;
        self.alloc(line, false, waiter)
    }

    /// A counter that changes with every change of the lines present, the
    /// MSHRs or their waiters. A read that found [`Lookup::Stall`] finds it
    /// again, with no other effect than counting the stall, as long as this
    /// is unchanged ([`Self::count_stall`]).
    #[inline]
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Counts a refused lookup without doing it: the result of [`Self::read`]
    /// of a line whose last read stalled, while [`Self::epoch`] is unchanged.
    #[inline]
    pub fn count_stall(&mut self) {
        self.c.stalls += 1;
    }

    fn alloc(&mut self, line: u64, fill: bool, waiter: u64) -> Option<u32> {
        let id = self.free.pop()?;
        let m = &mut self.mshrs[id as usize];
        m.line = line;
        m.used = true;
        m.fill = fill;
        self.fill_keys[id as usize] = if fill { line } else { NO_LINE };
        m.waiters.clear();
        m.waiters.push(waiter);
        Some(id)
    }

    /// A store to `line` (write-through, no allocate): touches a present line.
    pub fn write(
        &mut self,
        line: u64,
        who: Owner,
        time: u64,
        hook: &mut Option<Box<dyn L1Observer>>,
    ) {
        self.c.writes += 1;
        let hit = match self.array.access(line) {
            Some(slot) => {
                self.owners[slot] = who;
                true
            }
            None => false,
        };
        if let Some(h) = hook.as_deref_mut() {
            h.on_access(&L1Event {
                sm: self.sm,
                line,
                who,
                write: true,
                hit,
                time,
            });
        }
    }

    /// The fill of MSHR `id` arrived: installs the line (owner `who`), frees the
    /// MSHR and appends its waiters to `out`. Returns the line.
    pub fn fill(&mut self, id: u32, who: Owner, out: &mut Vec<u64>) -> u64 {
        self.epoch += 1;
        let m = &mut self.mshrs[id as usize];
        debug_assert!(m.used, "fill of a free MSHR");
        m.used = false;
        out.append(&mut m.waiters);
        let (line, fill) = (m.line, m.fill);
        self.fill_keys[id as usize] = NO_LINE;
        if fill {
            let (slot, victim) = self.array.insert(line);
            if let (Some(p), Some(v)) = (&mut self.probe, victim) {
                p.on_evict(v.line, self.owners[slot].warp);
            }
            self.owners[slot] = who;
        }
        self.free.push(id);
        line
    }

    /// Installs `line` without a request (FGTB's cacheable context lines,
    /// `gpu/fgtb/context.rs`): it evicts like a fill.
    pub fn install(&mut self, line: u64, who: Owner) {
        self.epoch += 1;
        let slot = match self.array.access(line) {
            Some(slot) => slot,
            None => self.array.insert(line).0,
        };
        self.owners[slot] = who;
    }

    /// The first waiter of MSHR `id` (whose owner the fill records).
    pub fn first_waiter(&self, id: u32) -> u64 {
        self.mshrs[id as usize]
            .waiters
            .first()
            .copied()
            .unwrap_or(0)
    }

    /// Read lookups and hits per kernel instance (index = instance id; shorter
    /// than the kernel list when later kernels made no lookup here).
    pub fn per_kernel(&self) -> &[[u64; 2]] {
        &self.per_kernel
    }

    /// MSHRs in use.
    pub fn mshrs_in_use(&self) -> usize {
        self.mshrs.len() - self.free.len()
    }

    /// Whether `line` is present (no LRU update, no counting): a read of it now
    /// would hit.
    #[inline]
    pub fn present(&self, line: u64) -> bool {
        self.array.probe(line).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn who(warp: u32) -> Owner {
        Owner {
            warp,
            tb: 0,
            kernel: 0,
        }
    }

    #[test]
    fn miss_merge_fill_hit_classification() {
        let g = CacheGeometry {
            size_bytes: 1024,
            ways: 2,
            line_bytes: 128,
        };
        let mut l1 = L1::new(0, g, 2, 2);
        assert_eq!(l1.read(5, who(1), 10, 0, &mut None), Lookup::Miss(0));
        assert_eq!(l1.read(5, who(2), 11, 0, &mut None), Lookup::Merged(0));
        assert_eq!(l1.read(5, who(3), 12, 0, &mut None), Lookup::Stall); // 2 targets
        assert_eq!(l1.read(6, who(1), 13, 0, &mut None), Lookup::Miss(1));
        assert_eq!(l1.read(7, who(1), 14, 0, &mut None), Lookup::Stall); // no MSHR
        let mut w = Vec::new();
        assert_eq!(l1.fill(0, who(1), &mut w), 5);
        assert_eq!(w, vec![10, 11]);
        assert_eq!(
            l1.read(5, who(1), 0, 1, &mut None),
            Lookup::Hit { intra_warp: true }
        );
        assert_eq!(
            l1.read(5, who(2), 0, 1, &mut None),
            Lookup::Hit { intra_warp: false }
        );
        assert_eq!(l1.c.intra_warp_hits, 1);
        assert_eq!(l1.c.inter_warp_hits, 1);
        assert_eq!(l1.mshrs_in_use(), 1);
    }

    /// The epoch stays put across refused lookups and a count-only stall
    /// (what the SM's miss-queue retry relies on), and moves with every
    /// accepted lookup, bypass and fill, after which the lookup succeeds.
    #[test]
    fn epoch_tracks_every_change_that_can_end_a_stall() {
        let g = CacheGeometry {
            size_bytes: 1024,
            ways: 2,
            line_bytes: 128,
        };
        let mut l1 = L1::new(0, g, 1, 1);
        let e0 = l1.epoch();
        assert_eq!(l1.read(5, who(1), 10, 0, &mut None), Lookup::Miss(0));
        let e1 = l1.epoch();
        assert_ne!(e1, e0);
        // one target: line 5 stalls; no MSHR left: line 6 stalls
        assert_eq!(l1.read(5, who(2), 11, 0, &mut None), Lookup::Stall);
        assert_eq!(l1.read(6, who(2), 12, 0, &mut None), Lookup::Stall);
        assert_eq!(l1.bypass(7, 13), None);
        let e2 = l1.epoch();
        assert_eq!(l1.read(6, who(2), 12, 0, &mut None), Lookup::Stall);
        assert_eq!(l1.epoch(), e2);
        l1.count_stall();
        assert_eq!(l1.c.stalls, 4);
        let mut w = Vec::new();
        l1.fill(0, who(1), &mut w);
        assert_ne!(l1.epoch(), e2);
        assert_eq!(
            l1.read(5, who(2), 11, 1, &mut None),
            Lookup::Hit { intra_warp: false }
        );
        let e3 = l1.epoch();
        assert_eq!(l1.read(6, who(2), 12, 1, &mut None), Lookup::Miss(0));
        assert_ne!(l1.epoch(), e3);
        assert_eq!(l1.c.stalls, 4);
    }
}
