//! Per-bank summaries for class-uniform schedulers ([`BankView`]): the few
//! requests of a bank that can be the scheduler's choice, their next command,
//! and when they must be recomputed; with per-bank counts ([`BankCounts`]) that
//! let a recomputation stop early.

use super::super::channel::CommandKind;
use super::queue::Key;
use super::Controller;

pub(super) const NONE: u32 = u32::MAX;

/// Per-bank counts of a bank queue by direction (index `is_write`): requests not
/// waiting for an older read (`elig`), and among them those of row `row`
/// (`hits`; recounted when the bank's open row is no longer `row`). They let a
/// view refresh stop as soon as no later request can fill a slot.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct BankCounts {
    pub(super) elig: [u32; 2],
    pub(super) hits: [u32; 2],
    pub(super) row: Option<u32>,
}

/// Per-bank summary of the eligible requests, for class-uniform schedulers
/// (see
/// [`MemScheduler::class_uniform`](super::super::scheduler::MemScheduler::class_uniform)): the first eligible request in queue
/// order, and the oldest (lowest `seq`) other eligible read hit, write hit and
/// non-hit. Recomputed when the bank's queue, its row state, the drain mode or a
/// request's eligibility changes (`dirty`), or when a not-yet-eligible request
/// becomes eligible (`recheck_at`).
///
/// The distinct representatives are also kept as a candidate list with their
/// queue index, `seq` and next command (which only depends on the bank's open
/// row, and every command to the bank marks the view dirty), so that picking a
/// command reads no queue entry except those of ready candidates.
///
/// Layout: the fields the per-step scan reads (`recheck_at`, `dirty` and the
/// candidate list) fill the first cache line; the representatives, only read
/// when the view changes, follow.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(super) struct BankView {
    pub(super) recheck_at: u64,
    pub(super) cand_seq: [u64; 4],
    pub(super) cand_j: [u32; 4],
    /// Next command of each candidate: index into [`CMDS`].
    pub(super) cand_cmd: [u8; 4],
    /// Number of candidates in `cand_*`.
    pub(super) n: u8,
    pub(super) has_hits: bool,
    pub(super) dirty: bool,
    pub(super) first: u32,
    pub(super) hit_rd: u32,
    pub(super) hit_wr: u32,
    pub(super) other: u32,
}

impl Default for BankView {
    fn default() -> Self {
        BankView {
            dirty: true,
            recheck_at: u64::MAX,
            first: NONE,
            hit_rd: NONE,
            hit_wr: NONE,
            other: NONE,
            has_hits: false,
            n: 0,
            cand_j: [NONE; 4],
            cand_cmd: [0; 4],
            cand_seq: [0; 4],
        }
    }
}

/// Commands in the order of [`BankView::cand_cmd`].
pub(super) const CMDS: [CommandKind; 4] = [
    CommandKind::Act,
    CommandKind::Pre,
    CommandKind::Rd,
    CommandKind::Wr,
];

impl BankView {
    /// Rebuilds the candidate list from the representatives.
    #[inline]
    pub(super) fn fill_candidates(&mut self, q: &[Key], open: Option<u32>) {
        let mut n = 0;
        for j in [self.first, self.hit_rd, self.hit_wr, self.other] {
            if j == NONE {
                continue;
            }
            let k = &q[j as usize];
            self.cand_cmd[n] = match open {
                Some(r) if r == k.row => 2 + k.is_write as u8,
                Some(_) => 1,
                None => 0,
            };
            self.cand_j[n] = j;
            self.cand_seq[n] = k.seq;
            n += 1;
        }
        self.n = n as u8;
    }
}

impl Controller {
    /// Recomputes bank `b`'s [`BankView`] at cycle `t`.
    pub(super) fn refresh_view(&mut self, b: usize, t: u64) {
        let open = self.ch.banks[b].open_row;
        let staged = self.staged();
        if !staged && t >= self.max_eligible {
            self.refresh_view_ordered(b, open);
            return;
        }
        let mut v = BankView {
            dirty: false,
            ..BankView::default()
        };
        let q = &self.window[b];
        let slab = &self.slab;
        for (j, key) in q.iter().enumerate() {
            let e = &slab[key.idx as usize];
            if e.eligible_from > t {
                v.recheck_at = v.recheck_at.min(e.eligible_from);
                continue;
            }
            if e.after_read || (!staged && e.req.is_write != self.draining) {
                continue;
            }
            let hit = open == Some(e.req.row);
            v.has_hits |= hit;
            if v.first == NONE {
                v.first = j as u32;
                continue;
            }
            let slot = if !hit {
                &mut v.other
            } else if e.req.is_write {
                &mut v.hit_wr
            } else {
                &mut v.hit_rd
            };
            if *slot == NONE || e.req.seq < q[*slot as usize].seq {
                *slot = j as u32;
            }
        }
        v.fill_candidates(q, open);
        self.views[b] = v;
    }

    /// [`Self::refresh_view`] when every queued request is eligible by time and
    /// requests are not staged. Then a bank's queue is in `seq` order (requests
    /// are appended in arrival order and removed in place) and every eligible
    /// request has the same direction (`is_write == draining`), so each slot is
    /// the first eligible request of its class after `first`, and the scan stops
    /// once every slot that can still change is filled.
    pub(super) fn refresh_view_ordered(&mut self, b: usize, open: Option<u32>) {
        let draining = self.draining;
        let mut v = BankView {
            dirty: false,
            ..BankView::default()
        };
        let q = &self.window[b];
        let c = &mut self.counts[b];
        if c.row != open {
            c.row = open;
            c.hits = [0, 0];
            if let Some(r) = open {
                for e in q {
                    if !e.after_read && e.row == r {
                        c.hits[e.is_write as usize] += 1;
                    }
                }
            }
        }
        #[cfg(debug_assertions)]
        {
            let mut elig = [0u32; 2];
            let mut hits = [0u32; 2];
            for e in q.iter().filter(|e| !e.after_read) {
                elig[e.is_write as usize] += 1;
                hits[e.is_write as usize] += u32::from(open == Some(e.row));
            }
            debug_assert_eq!((elig, hits), (c.elig, c.hits), "bank {b} counts");
        }
        let d = draining as usize;
        // eligible hits and non-hits in the queue; the scan stops once every slot
        // is filled or no request of its class is left
        let (hits, others) = (c.hits[d], c.elig[d] - c.hits[d]);
        let (mut seen_hits, mut seen_others) = (0, 0);
        let mut hit_slot = NONE;
        if c.elig[d] > 0 {
            for (j, e) in q.iter().enumerate() {
                if e.after_read || e.is_write != draining {
                    continue;
                }
                let hit = open == Some(e.row);
                if hit {
                    seen_hits += 1;
                } else {
                    seen_others += 1;
                }
                if v.first == NONE {
                    v.first = j as u32;
                } else if hit {
                    if hit_slot == NONE {
                        hit_slot = j as u32;
                    }
                } else if v.other == NONE {
                    v.other = j as u32;
                }
                if (hit_slot != NONE || seen_hits == hits)
                    && (v.other != NONE || seen_others == others)
                {
                    break;
                }
            }
        }
        v.has_hits = hits > 0;
        if draining {
            v.hit_wr = hit_slot;
        } else {
            v.hit_rd = hit_slot;
        }
        v.fill_candidates(q, open);
        self.views[b] = v;
    }
}
