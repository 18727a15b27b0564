//! A set-associative, write-back, LRU cache array (tags and state only; no data).
//!
//! Lines are identified by their line number (`byte address >> log2(line size)`).
//! The set of a line is `(line / index_divisor) % sets`: a private cache uses
//! divisor 1, an S-NUCA LLC bank uses the bank count so the bits that select the bank
//! do not also select the set (otherwise each bank would use 1/banks of its sets).
//! Replacement is true LRU; invalid ways are filled first. With up to 16 ways the
//! recency order of a set is one word (a stack of 4-bit way numbers, most recent
//! first), so a lookup touches the set's tags and one word instead of a stamp per
//! way; wider caches keep an access stamp per way. Both give the same victim: the
//! first invalid way, else the least recently used one.
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
///
/// Layout: the fields a lookup reads come first (they share one or two cache
/// lines), the per-way stamps of wide caches last.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct CacheArray {
    sets: u32,
    ways: u32,
    index_div: u64,
    /// `sets - 1` when `sets` is a power of two (the modulo is then a mask).
    set_mask: Option<u64>,
    tags: Vec<u64>,
    /// Per set (ways <= 16): nibble `i` = the way at recency position `i`
    /// (0 = most recent); positions >= ways hold 0xF. Invalid ways keep a
    /// position but are never chosen by recency.
    order: Vec<u64>,
    flags: Vec<u8>,
    /// Per way (ways > 16): last access stamp.
    stamp: Vec<u64>,
    clock: u64,
}

const NIBBLES: u64 = 0x1111_1111_1111_1111;

/// Position of way `w` in recency word `x` (the lowest nibble equal to `w`).
#[inline]
fn order_pos(x: u64, w: u64) -> u32 {
    let y = x ^ (NIBBLES * w);
    let zero = y.wrapping_sub(NIBBLES) & !y & (NIBBLES << 3);
    zero.trailing_zeros() / 4
}

/// Recency word `x` with way `w` (at position `p`) moved to the front.
#[inline]
fn order_touch(x: u64, p: u32, w: u64) -> u64 {
    let below = x & ((1u64 << (4 * p)) - 1);
    let above = if p >= 15 {
        0
    } else {
        x & (!0u64 << (4 * (p + 1)))
    };
    above | (below << 4) | w
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
            order: if ways <= 16 {
                let mut x = !0u64;
                for i in 0..ways as u64 {
                    x = (x & !(0xF << (4 * i))) | (i << (4 * i));
                }
                vec![x; sets as usize]
            } else {
                Vec::new()
            },
            stamp: if ways <= 16 { Vec::new() } else { vec![0; n] },
            flags: vec![0; n],
            clock: 0,
        }
    }

    /// Number of way slots (`sets * ways`); slot indices are `0..slots()`.
    pub fn slots(&self) -> usize {
        self.tags.len()
    }

    /// Set index of `line`.
    #[inline]
    fn set_of(&self, line: u64) -> usize {
        let q = if self.index_div == 1 {
            line
        } else {
            line / self.index_div
        };
        (match self.set_mask {
            Some(m) => q & m,
            None => q % self.sets as u64,
        }) as usize
    }

    /// Way of `line` in set `set`, if present.
    #[inline]
    fn find_way(&self, set: usize, line: u64) -> Option<usize> {
        let w = self.ways as usize;
        let b = set * w;
        self.tags[b..b + w].iter().position(|&t| t == line)
    }

    /// Slot holding `line`, without touching LRU state.
    #[inline]
    pub fn probe(&self, line: u64) -> Option<usize> {
        let set = self.set_of(line);
        self.find_way(set, line)
            .map(|i| set * self.ways as usize + i)
    }

    /// Slot holding `line`, marking it most recently used.
    #[inline]
    pub fn access(&mut self, line: u64) -> Option<usize> {
        let set = self.set_of(line);
        let i = self.find_way(set, line)?;
        let s = set * self.ways as usize + i;
        self.touch(set, s, i);
        Some(s)
    }

    /// Marks slot `s` (way `way` of set `set`) most recently used. Callers pass
    /// the set and way they already know, which saves a division by the
    /// associativity.
    #[inline]
    fn touch(&mut self, set: usize, s: usize, way: usize) {
        if self.order.is_empty() {
            self.clock += 1;
            self.stamp[s] = self.clock;
        } else {
            let w = way as u64;
            let x = self.order[set];
            self.order[set] = order_touch(x, order_pos(x, w), w);
        }
    }

    /// Inserts `line` (which must not be present) as most recently used; returns the
    /// slot and the victim if a valid line was evicted.
    pub fn insert(&mut self, line: u64) -> (usize, Option<Victim>) {
        debug_assert!(self.probe(line).is_none(), "line {line:#x} inserted twice");
        let set = self.set_of(line);
        let w = self.ways as usize;
        let b = set * w;
        let best = match self.tags[b..b + w].iter().position(|&t| t == INVALID) {
            Some(i) => b + i,
            None if !self.order.is_empty() => {
                let lru = (self.order[set] >> (4 * (w - 1))) & 0xF;
                b + lru as usize
            }
            None => {
                let mut best = b;
                for s in b..b + w {
                    if self.stamp[s] < self.stamp[best] {
                        best = s;
                    }
                }
                best
            }
        };
        let victim = (self.tags[best] != INVALID).then(|| Victim {
            line: self.tags[best],
            dirty: self.flags[best] & DIRTY != 0,
            slot: best,
        });
        self.tags[best] = line;
        self.touch(set, best, best - b);
        self.flags[best] = 0;
        (best, victim)
    }

    /// Removes `line`; returns whether it was dirty, or `None` if absent.
    pub fn invalidate(&mut self, line: u64) -> Option<bool> {
        let s = self.probe(line)?;
        let d = self.flags[s] & DIRTY != 0;
        self.tags[s] = INVALID;
        self.flags[s] = 0;
        if !self.stamp.is_empty() {
            self.stamp[s] = 0;
        }
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

    /// The recency words choose the same victims as per-way access stamps.
    #[test]
    fn recency_order_matches_stamps() {
        for ways in [1u32, 2, 3, 8, 15, 16, 17] {
            let g = CacheGeometry {
                size_bytes: 4 * ways as u64 * 64,
                ways,
                line_bytes: 64,
            };
            let mut c = CacheArray::new(g, 1);
            // reference: tags and stamps per slot, victim = first invalid, else min stamp
            let n = c.slots();
            let mut tags = vec![INVALID; n];
            let mut stamp = vec![0u64; n];
            let mut clock = 0u64;
            let mut x = 0x2545_f491_4f6c_dd1du64;
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let line = (x >> 8) % (6 * n as u64);
                let b = (line % 4) as usize * ways as usize;
                let set = b..b + ways as usize;
                match x % 5 {
                    0 => {
                        let want = set.clone().find(|&s| tags[s] == line);
                        assert_eq!(c.invalidate(line).is_some(), want.is_some());
                        if let Some(s) = want {
                            tags[s] = INVALID;
                            stamp[s] = 0;
                        }
                    }
                    _ => {
                        let hit = c.access(line);
                        let want = set.clone().find(|&s| tags[s] == line);
                        assert_eq!(hit, want);
                        clock += 1;
                        if let Some(s) = want {
                            stamp[s] = clock;
                        } else {
                            let mut best = b;
                            for s in set.clone() {
                                if tags[s] == INVALID {
                                    best = s;
                                    break;
                                }
                                if stamp[s] < stamp[best] {
                                    best = s;
                                }
                            }
                            let (slot, victim) = c.insert(line);
                            assert_eq!(slot, best, "ways {ways}");
                            assert_eq!(
                                victim.map(|v| v.line),
                                (tags[best] != INVALID).then_some(tags[best])
                            );
                            tags[best] = line;
                            stamp[best] = clock;
                        }
                    }
                }
            }
        }
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
