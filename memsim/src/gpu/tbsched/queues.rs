//! LaPerm's priority queues (digest §2.1, "Hardware and timing costs"): one FIFO
//! per priority level, an on-chip capacity in entries, and a global-memory
//! overflow behind it.
//!
//! An entry is a dispatch unit (a kernel or an aggregated group, keyed by its
//! kernel record). Entries past the on-chip capacity wait in the overflow, FIFO,
//! invisible to the dispatcher; when an on-chip entry leaves, the oldest overflowed
//! entry moves on chip and becomes visible `overflow_latency` cycles later (the
//! global-memory read, partly hidden in the paper; its cost is our assumption).
//! Invariant: `onchip` = entries held in `levels`, never above `cap` after a push
//! unless the capacity is zero (then nothing is held on chip).

use std::collections::VecDeque;

/// One queued unit: its kernel record and the cycle it becomes visible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    record: u32,
    ready: u64,
}

/// Priority levels `1..=levels` (index 0 = level 1) of one queue set, or a
/// single level (LaPerm's PQ0).
#[derive(Clone, Debug)]
pub struct LevelQueues {
    levels: Vec<VecDeque<Entry>>,
    onchip: usize,
    cap: usize,
    overflow: VecDeque<(u32, usize)>,
    overflow_latency: u64,
    /// Entries that went to the overflow.
    pub overflowed: u64,
}

impl LevelQueues {
    /// `levels` FIFOs sharing `cap` on-chip entries.
    pub fn new(levels: usize, cap: usize, overflow_latency: u64) -> Self {
        LevelQueues {
            levels: vec![VecDeque::new(); levels.max(1)],
            onchip: 0,
            cap,
            overflow: VecDeque::new(),
            overflow_latency,
            overflowed: 0,
        }
    }

    /// Appends `record` at `level` (1-based; a single-level set ignores it) at
    /// `now`: on chip if there is room, else in the overflow.
    pub fn push(&mut self, record: u32, level: usize, now: u64) {
        let l = level.clamp(1, self.levels.len()) - 1;
        if self.onchip < self.cap {
            self.onchip += 1;
            self.levels[l].push_back(Entry { record, ready: now });
        } else {
            self.overflowed += 1;
            self.overflow.push_back((record, l));
        }
    }

    /// Removes `record` wherever it is; a freed on-chip entry takes the oldest
    /// overflowed one, visible `overflow_latency` after `now`.
    pub fn remove(&mut self, record: u32, now: u64) -> bool {
        for q in &mut self.levels {
            if let Some(i) = q.iter().position(|e| e.record == record) {
                q.remove(i);
                self.onchip -= 1;
                if let Some((r, l)) = self.overflow.pop_front() {
                    self.onchip += 1;
                    self.levels[l].push_back(Entry {
                        record: r,
                        ready: now + self.overflow_latency,
                    });
                }
                return true;
            }
        }
        if let Some(i) = self.overflow.iter().position(|e| e.0 == record) {
            self.overflow.remove(i);
            return true;
        }
        false
    }

    /// The front of the highest non-empty level among entries visible at `now`.
    pub fn front(&self, now: u64) -> Option<u32> {
        self.levels
            .iter()
            .rev()
            .find_map(|q| q.iter().find(|e| e.ready <= now).map(|e| e.record))
    }

    /// Visible entries at `now`, highest level first, FIFO within a level.
    pub fn ordered(&self, now: u64) -> impl Iterator<Item = u32> + '_ {
        self.levels
            .iter()
            .rev()
            .flat_map(move |q| q.iter().filter(move |e| e.ready <= now))
            .map(|e| e.record)
    }

    /// Entries held (on chip and overflowed).
    pub fn len(&self) -> usize {
        self.onchip + self.overflow.len()
    }

    /// No entry held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Earliest cycle after `now` at which a held on-chip entry becomes visible.
    pub fn next_ready(&self, now: u64) -> Option<u64> {
        self.levels
            .iter()
            .flat_map(|q| q.iter())
            .map(|e| e.ready)
            .filter(|&r| r > now)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highest_level_first_fifo_within() {
        let mut q = LevelQueues::new(3, 8, 0);
        q.push(10, 1, 0);
        q.push(11, 2, 0);
        q.push(12, 2, 0);
        q.push(13, 9, 0); // clamped to level 3
        assert_eq!(q.ordered(0).collect::<Vec<_>>(), vec![13, 11, 12, 10]);
        assert_eq!(q.front(0), Some(13));
        assert!(q.remove(13, 0));
        assert_eq!(q.front(0), Some(11));
        assert!(!q.remove(99, 0));
    }

    #[test]
    fn overflow_is_invisible_until_promoted_with_latency() {
        let mut q = LevelQueues::new(2, 2, 100);
        q.push(1, 1, 0);
        q.push(2, 1, 0);
        q.push(3, 2, 0); // no room: overflow, even at a higher level
        assert_eq!(q.overflowed, 1);
        assert_eq!(q.len(), 3);
        assert_eq!(q.front(5), Some(1));
        q.remove(1, 10);
        // 3 is on chip now, visible from cycle 110
        assert_eq!(q.front(50), Some(2));
        assert_eq!(q.next_ready(50), Some(110));
        assert_eq!(q.front(110), Some(3));
        q.remove(3, 110);
        q.remove(2, 110);
        assert!(q.is_empty());
    }
}
