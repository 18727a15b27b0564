//! Context-keyed schedule slots: one static region owns [`CONTEXT_SLOTS`]
//! runtime ids, keyed by the live-in values of its call (LRU beyond that),
//! so a kernel run on several index arrays in turn keeps one schedule per
//! array, and the inspector (§4.4.1) runs once per index-array assignment.
//! Regions whose live-ins change on every call churn ([`CHURN_CONTEXTS`]).

use super::*;
use crate::error::invalid;
use crate::Result;
use std::sync::atomic::Ordering;

/// Runtime ids per static region for context-keyed schedule reuse
/// ([`Runtime::select_context`]): ids `base * CONTEXT_SLOTS ..`.
pub const CONTEXT_SLOTS: u32 = 64;

/// The saved contexts of one static region (LRU over [`CONTEXT_SLOTS`] slots).
#[derive(Default)]
pub(super) struct Contexts {
    /// Per slot: key hash, key, last use.
    pub(super) slots: Vec<Option<(u64, Vec<u64>, u64)>>,
    /// Bit `i` set: `slots[i]` is in use (regions reset in a loop touch only these).
    pub(super) live: u64,
    pub(super) clock: u64,
    /// Key buffers of reset slots, reused (regions reset in a loop).
    pub(super) spare: Vec<Vec<u64>>,
    /// Consecutive selections that made a new context (0 after a match).
    pub(super) fresh_run: u32,
    /// The id of the context made last.
    pub(super) last_new: Option<u32>,
}

/// Context churn ([`Runtime::select_context`]): after this many selections
/// in a row that each made a new context (a kernel called with different
/// live-ins every time, like a factorisation's column index), a new context
/// inherits the schedule-reuse state of the previous one, so the
/// reuse control ([`RuntimeConfig::reinspect_limit`]) sees the region's
/// history rather than a fresh id's. Above the few contexts a region cycles
/// through (Gauss-Seidel's colours), below [`CONTEXT_SLOTS`].
pub const CHURN_CONTEXTS: u32 = 16;

/// Indices of the set bits of `m`, lowest first.
pub(super) fn set_bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}

// `Contexts::live` has one bit per slot.
const _: () = assert!(CONTEXT_SLOTS <= 64);

impl Runtime {
    /// Context-keyed schedule reuse: the runtime id of static region `base`
    /// for context `key` (its live-in values; `None` = not comparable). A key
    /// seen before gets its slot's id back; otherwise the least recently used
    /// slot (a free one first) is invalidated and takes the key. Bounded: at
    /// most [`CONTEXT_SLOTS`] keys per base. Ids are `base * CONTEXT_SLOTS + slot`.
    pub fn select_context(&self, base: u32, key: Option<&[u64]>) -> Result<u32> {
        let first = base.checked_mul(CONTEXT_SLOTS).ok_or_else(|| {
            invalid(format!(
                "region base {base} too large for {CONTEXT_SLOTS} slots"
            ))
        })?;
        let hash = key.map(|k| {
            k.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &w| {
                (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29)
            })
        });
        let mut all = lock(&self.contexts);
        let set = all.entry(base).or_default();
        if set.slots.is_empty() {
            set.slots = vec![None; CONTEXT_SLOTS as usize];
        }
        set.clock += 1;
        let now = set.clock;
        if let (Some(k), Some(h)) = (key, hash) {
            for i in set_bits(set.live) {
                if let Some((sh, sk, used)) = &mut set.slots[i] {
                    if *sh == h && sk.as_slice() == k {
                        *used = now;
                        set.fresh_run = 0;
                        drop(all);
                        let id = first + i as u32;
                        // A context that comes back is reused after all: it
                        // starts afresh if it only inherited its state.
                        let mut reuse = lock(&self.reuse);
                        for kind in [IRREGULAR, AFFINE] {
                            if reuse.get(&(kind, id)).is_some_and(|r| r.inherited) {
                                reuse.remove(&(kind, id));
                            }
                        }
                        return Ok(id);
                    }
                }
            }
        }
        // A free slot, else the least recently used one.
        let victim = match (!set.live).trailing_zeros() as usize {
            i if i < set.slots.len() => i,
            _ => set
                .slots
                .iter()
                .enumerate()
                .min_by_key(|(_, s)| s.as_ref().map_or(0, |(_, _, used)| *used))
                .map(|(i, _)| i)
                .unwrap_or(0),
        };
        if set.live & (1 << victim) == 0 {
            self.live_slots.fetch_add(1, Ordering::Relaxed);
        }
        set.live |= 1 << victim;
        let mut buf = match set.slots[victim].take() {
            Some((_, b, _)) => b,
            None => set.spare.pop().unwrap_or_default(),
        };
        buf.clear();
        buf.extend_from_slice(key.unwrap_or_default());
        set.slots[victim] = Some((hash.unwrap_or(0), buf, now));
        if key.is_none() {
            // Never matched again: mark it least recent.
            if let Some((_, _, used)) = &mut set.slots[victim] {
                *used = 0;
            }
        }
        let id = first + victim as u32;
        set.fresh_run = set.fresh_run.saturating_add(1);
        let inherit = match set.last_new.replace(id) {
            Some(prev) if set.fresh_run > CHURN_CONTEXTS => Some(prev),
            _ => None,
        };
        drop(all);
        self.invalidate(id);
        if let Some(prev) = inherit {
            let mut reuse = lock(&self.reuse);
            for kind in [IRREGULAR, AFFINE] {
                match reuse.get(&(kind, prev)).copied() {
                    Some(r) => reuse.insert(
                        (kind, id),
                        Reuse {
                            inherited: true,
                            ..r
                        },
                    ),
                    None => reuse.remove(&(kind, id)),
                };
            }
        }
        Ok(id)
    }

    /// Forgets the saved contexts of static region `base` and drops the
    /// schedules of all its ids.
    pub fn reset_contexts(&self, base: u32) {
        // Called after every code that may reassign index arrays (often in
        // loops of the program): only the slots in use are dropped, not all
        // CONTEXT_SLOTS ids of the region.
        if self.live_slots.load(Ordering::Relaxed) == 0 {
            // Nothing selected since the last resets (the usual case when grain
            // hints keep small calls out of the runtime): no lock needed.
            return;
        }
        let mut all = lock(&self.contexts);
        let Some(set) = all.get_mut(&base).filter(|s| s.live != 0) else {
            return;
        };
        let Some(first) = base.checked_mul(CONTEXT_SLOTS) else {
            return;
        };
        let mut r = lock(&self.regions);
        let mut d = lock(&self.affine_desc);
        let live = std::mem::take(&mut set.live);
        self.live_slots
            .fetch_sub(live.count_ones() as usize, Ordering::Relaxed);
        for i in set_bits(live) {
            if let Some((_, mut key, _)) = set.slots[i].take() {
                // Keep the key's allocation for a later context.
                key.clear();
                set.spare.push(key);
                r.remove(&(IRREGULAR, first + i as u32));
                r.remove(&(AFFINE, first + i as u32));
                d.remove(&(first + i as u32));
            }
        }
    }
}
