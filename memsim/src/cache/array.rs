//! A set-associative, write-back, LRU cache array (tags and state only; no data).
//!
//! Lines are identified by their line number (`byte address >> log2(line size)`).
//! The set of a line is `(line / index_divisor) % sets`: a private cache uses
//! divisor 1, an S-NUCA LLC bank uses the bank count so the bits that select the bank
//! do not also select the set (otherwise each bank would use 1/banks of its sets).
//! Replacement is true LRU by access stamp; invalid ways are filled first.
//! Each way carries two state bits: dirty and "filled by a prefetch, not yet used".
//! Invariant: a line is present in at most one way of its set.

/// Geometry of one cache (or of one LLC bank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheGeometry {
    /// Capacity in bytes.
    pub size_bytes: u64,
    /// Associativity.
    pub ways: u32,
    /// Line size in bytes (a power of two).
    pub line_bytes: u32,
}

impl CacheGeometry {
    /// Number of sets (at least 1).
    pub fn sets(&self) -> u32 {
        let lines = self.size_bytes / self.line_bytes.max(1) as u64;
        ((lines / self.ways.max(1) as u64).max(1)) as u32
    }

    /// `log2(line_bytes)`.
    pub fn line_shift(&self) -> u32 {
        self.line_bytes.max(1).trailing_zeros()
    }
}

/// A line evicted to make room for another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Victim {
    /// Line number of the evicted line.
    pub line: u64,
    /// Whether it was dirty (needs a write-back).
    pub dirty: bool,
    /// Way slot it occupied (now holding the new line).
    pub slot: usize,
}

const INVALID: u64 = u64::MAX;
const DIRTY: u8 = 1;
const PREFETCHED: u8 = 2;

/// Tag/state array of a set-associative cache.
#[derive(Clone, Debug)]
pub struct CacheArray {
    sets: u32,
    ways: u32,
    index_div: u64,
    /// `sets - 1` when `sets` is a power of two (the modulo is then a mask).
    set_mask: Option<u64>,
    tags: Vec<u64>,
    stamp: Vec<u64>,
    flags: Vec<u8>,
    clock: u64,
}

impl CacheArray {
    /// An empty cache of geometry `g`; the set index skips a factor `index_div`.
    pub fn new(g: CacheGeometry, index_div: u64) -> Self {
        let sets = g.sets();
        let ways = g.ways.max(1);
        let n = sets as usize * ways as usize;
        CacheArray {
            sets,
            ways,
            index_div: index_div.max(1),
            set_mask: sets.is_power_of_two().then(|| sets as u64 - 1),
            tags: vec![INVALID; n],
            stamp: vec![0; n],
            flags: vec![0; n],
            clock: 0,
        }
    }

    /// Number of way slots (`sets * ways`); slot indices are `0..slots()`.
    pub fn slots(&self) -> usize {
        self.tags.len()
    }

    #[inline]
    fn set_base(&self, line: u64) -> usize {
        let q = if self.index_div == 1 {
            line
        } else {
            line / self.index_div
        };
        let set = match self.set_mask {
            Some(m) => q & m,
            None => q % self.sets as u64,
        };
        (set * self.ways as u64) as usize
    }

    /// Slot holding `line`, without touching LRU state.
    #[inline]
    pub fn probe(&self, line: u64) -> Option<usize> {
        let b = self.set_base(line);
        self.tags[b..b + self.ways as usize]
            .iter()
            .position(|&t| t == line)
            .map(|i| b + i)
    }

    /// Slot holding `line`, marking it most recently used.
    #[inline]
    pub fn access(&mut self, line: u64) -> Option<usize> {
        let s = self.probe(line)?;
        self.clock += 1;
        self.stamp[s] = self.clock;
        Some(s)
    }

    /// Inserts `line` (which must not be present) as most recently used; returns the
    /// slot and the victim if a valid line was evicted.
    pub fn insert(&mut self, line: u64) -> (usize, Option<Victim>) {
        debug_assert!(self.probe(line).is_none(), "line {line:#x} inserted twice");
        let b = self.set_base(line);
        let w = self.ways as usize;
        let mut best = b;
        for s in b..b + w {
            if self.tags[s] == INVALID {
                best = s;
                break;
            }
            if self.stamp[s] < self.stamp[best] {
                best = s;
            }
        }
        let victim = (self.tags[best] != INVALID).then(|| Victim {
            line: self.tags[best],
            dirty: self.flags[best] & DIRTY != 0,
            slot: best,
        });
        self.clock += 1;
        self.tags[best] = line;
        self.stamp[best] = self.clock;
        self.flags[best] = 0;
        (best, victim)
    }

    /// Removes `line`; returns whether it was dirty, or `None` if absent.
    pub fn invalidate(&mut self, line: u64) -> Option<bool> {
        let s = self.probe(line)?;
        let d = self.flags[s] & DIRTY != 0;
        self.tags[s] = INVALID;
        self.flags[s] = 0;
        self.stamp[s] = 0;
        Some(d)
    }

    /// Line held by `slot`, if valid.
    pub fn line_at(&self, slot: usize) -> Option<u64> {
        (self.tags[slot] != INVALID).then_some(self.tags[slot])
    }

    /// Marks `slot` dirty (or clean).
    #[inline]
    pub fn set_dirty(&mut self, slot: usize, d: bool) {
        if d {
            self.flags[slot] |= DIRTY
        } else {
            self.flags[slot] &= !DIRTY
        }
    }

    /// Whether `slot` is dirty.
    #[inline]
    pub fn is_dirty(&self, slot: usize) -> bool {
        self.flags[slot] & DIRTY != 0
    }

    /// Marks `slot` as filled by a prefetch and not yet demanded.
    pub fn set_prefetched(&mut self, slot: usize, p: bool) {
        if p {
            self.flags[slot] |= PREFETCHED
        } else {
            self.flags[slot] &= !PREFETCHED
        }
    }

    /// Whether `slot` was filled by a prefetch and not yet demanded.
    pub fn is_prefetched(&self, slot: usize) -> bool {
        self.flags[slot] & PREFETCHED != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recent() {
        // 2 sets x 2 ways, 32-byte lines.
        let g = CacheGeometry {
            size_bytes: 128,
            ways: 2,
            line_bytes: 32,
        };
        assert_eq!(g.sets(), 2);
        let mut c = CacheArray::new(g, 1);
        // lines 0, 2, 4 all map to set 0.
        assert!(c.insert(0).1.is_none());
        assert!(c.insert(2).1.is_none());
        assert!(c.access(0).is_some()); // 2 is now LRU
        let (s, v) = c.insert(4);
        let v = v.unwrap();
        assert_eq!(v.line, 2);
        assert!(!v.dirty);
        c.set_dirty(s, true);
        assert!(c.probe(2).is_none());
        let (_, v) = c.insert(6); // evicts 0 (older than 4)
        assert_eq!(v.unwrap().line, 0);
        let (_, v) = c.insert(8); // evicts dirty 4
        assert_eq!(
            v.unwrap(),
            Victim {
                line: 4,
                dirty: true,
                slot: s
            }
        );
        assert_eq!(c.invalidate(8), Some(false));
        assert_eq!(c.invalidate(8), None);
    }

    #[test]
    fn index_divisor_spreads_bank_lines_over_sets() {
        let g = CacheGeometry {
            size_bytes: 4 * 128,
            ways: 1,
            line_bytes: 128,
        };
        let mut c = CacheArray::new(g, 4);
        // lines 0, 4, 8, 12 belong to bank 0 of 4 and must use 4 different sets.
        for l in [0u64, 4, 8, 12] {
            assert!(c.insert(l).1.is_none());
        }
    }
}
