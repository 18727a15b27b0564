//! Miss status holding registers with request merging.
//!
//! An [`MshrFile`] tracks the lines with an outstanding miss. A second miss to a line
//! that already has an entry is merged into it (it becomes another *target* of the
//! entry) instead of sending another request; when the fill arrives every target is
//! released at once. Capacity (entries) and targets per entry are bounded; a full file
//! is back-pressure for the requester. Targets are kept in a pooled linked list, so
//! steady-state operation allocates nothing.
//! Invariants: at most one entry per line; every added target is released exactly once.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Index of an MSHR entry.
pub type MshrId = u32;

const NIL: u32 = u32::MAX;

/// Multiplicative hasher for integer keys (deterministic, fast; keys are line numbers).
#[derive(Default, Clone, Copy)]
pub struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(5) ^ *b as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0 ^ i)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
}

/// A `HashMap` keyed by integers with [`IntHasher`].
pub type IntMap<K, V> = HashMap<K, V, BuildHasherDefault<IntHasher>>;

#[derive(Clone, Debug)]
struct Entry {
    line: u64,
    head: u32,
    tail: u32,
    targets: u32,
    valid: bool,
}

/// Files of at most this many entries find a line by scanning `tags` (an L1's
/// 10 or 16 MSHRs: one or two cache lines of tags), larger ones through the
/// hash index.
const SCAN_MAX: usize = 32;

/// Tag of a free entry (no line address is all ones).
const NO_LINE: u64 = u64::MAX;

/// A file of MSHRs.
#[derive(Clone, Debug)]
pub struct MshrFile {
    entries: Vec<Entry>,
    free: Vec<u32>,
    /// The line of every entry (`NO_LINE` when free), scanned by small files.
    tags: Vec<u64>,
    /// Line to entry, kept by files of more than [`SCAN_MAX`] entries.
    index: IntMap<u64, u32>,
    pool: Vec<(u32, u32)>,
    pool_free: u32,
    max_targets: u32,
}

impl MshrFile {
    /// `capacity` entries of up to `max_targets` targets each (both at least 1).
    pub fn new(capacity: usize, max_targets: u32) -> Self {
        let capacity = capacity.max(1);
        let mut index = IntMap::default();
        if capacity > SCAN_MAX {
            index.reserve(capacity * 2);
        }
        MshrFile {
            entries: vec![
                Entry {
                    line: 0,
                    head: NIL,
                    tail: NIL,
                    targets: 0,
                    valid: false
                };
                capacity
            ],
            free: (0..capacity as u32).rev().collect(),
            tags: vec![NO_LINE; capacity],
            index,
            pool: Vec::with_capacity(capacity * 4),
            pool_free: NIL,
            max_targets: max_targets.max(1),
        }
    }

    /// Entry tracking `line`, if any.
    #[inline]
    pub fn find(&self, line: u64) -> Option<MshrId> {
        if self.tags.len() <= SCAN_MAX {
            return self
                .tags
                .iter()
                .position(|&t| t == line)
                .map(|i| i as MshrId);
        }
        self.index.get(&line).copied()
    }

    /// Whether every entry is in use.
    pub fn is_full(&self) -> bool {
        self.free.is_empty()
    }

    /// Number of entries in use.
    pub fn in_use(&self) -> usize {
        self.entries.len() - self.free.len()
    }

    /// Allocates an entry for `line` (which must not have one); `None` when full.
    pub fn allocate(&mut self, line: u64) -> Option<MshrId> {
        debug_assert!(self.find(line).is_none());
        let id = self.free.pop()?;
        let e = &mut self.entries[id as usize];
        *e = Entry {
            line,
            head: NIL,
            tail: NIL,
            targets: 0,
            valid: true,
        };
        self.tags[id as usize] = line;
        if self.tags.len() > SCAN_MAX {
            self.index.insert(line, id);
        }
        Some(id)
    }

    /// Line of entry `id`.
    pub fn line(&self, id: MshrId) -> u64 {
        self.entries[id as usize].line
    }

    /// Whether entry `id` can take another target.
    pub fn can_add(&self, id: MshrId) -> bool {
        self.entries[id as usize].targets < self.max_targets
    }

    /// Adds target `w` to entry `id`; false (nothing added) when the entry is full.
    pub fn add_target(&mut self, id: MshrId, w: u32) -> bool {
        if !self.can_add(id) {
            return false;
        }
        let node = if self.pool_free != NIL {
            let n = self.pool_free;
            self.pool_free = self.pool[n as usize].1;
            self.pool[n as usize] = (w, NIL);
            n
        } else {
            self.pool.push((w, NIL));
            (self.pool.len() - 1) as u32
        };
        let e = &mut self.entries[id as usize];
        if e.tail == NIL {
            e.head = node;
        } else {
            self.pool[e.tail as usize].1 = node;
        }
        e.tail = node;
        e.targets += 1;
        true
    }

    /// Frees entry `id`, appending its targets (in arrival order) to `out`; returns the line.
    pub fn release(&mut self, id: MshrId, out: &mut Vec<u32>) -> u64 {
        let e = &mut self.entries[id as usize];
        debug_assert!(e.valid, "MSHR {id} released twice");
        e.valid = false;
        let line = e.line;
        let mut n = e.head;
        e.head = NIL;
        e.tail = NIL;
        e.targets = 0;
        while n != NIL {
            let (w, next) = self.pool[n as usize];
            out.push(w);
            self.pool[n as usize].1 = self.pool_free;
            self.pool_free = n;
            n = next;
        }
        self.tags[id as usize] = NO_LINE;
        if self.tags.len() > SCAN_MAX {
            self.index.remove(&line);
        }
        self.free.push(id);
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scanned file (16 entries) and a hashed one (64) agree with a model
    /// on random allocate / find / release sequences.
    #[test]
    fn scanned_and_hashed_files_find_the_same_lines() {
        for cap in [16usize, SCAN_MAX, SCAN_MAX + 1, 64] {
            let mut m = MshrFile::new(cap, 4);
            let mut model: std::collections::HashMap<u64, MshrId> = Default::default();
            let mut x = 0x2545_f491_4f6c_dd1du64;
            let mut out = Vec::new();
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let line = x % (cap as u64 * 2);
                assert_eq!(m.find(line), model.get(&line).copied(), "cap {cap}");
                match model.get(&line).copied() {
                    Some(id) if x & 1 == 0 => {
                        assert_eq!(m.release(id, &mut out), line);
                        model.remove(&line);
                    }
                    Some(_) => {}
                    None => match m.allocate(line) {
                        Some(id) => {
                            model.insert(line, id);
                        }
                        None => assert_eq!(model.len(), cap),
                    },
                }
                assert_eq!(m.in_use(), model.len());
            }
        }
    }

    #[test]
    fn merge_and_release() {
        let mut m = MshrFile::new(2, 3);
        let a = m.allocate(10).unwrap();
        assert!(m.add_target(a, 1));
        assert_eq!(m.find(10), Some(a));
        assert!(m.add_target(a, 2));
        assert!(m.add_target(a, 3));
        assert!(!m.add_target(a, 4), "target cap");
        let b = m.allocate(11).unwrap();
        assert!(m.is_full());
        assert!(m.allocate(12).is_none());
        let mut out = Vec::new();
        assert_eq!(m.release(a, &mut out), 10);
        assert_eq!(out, vec![1, 2, 3]);
        assert!(m.find(10).is_none());
        assert!(m.add_target(b, 9));
        out.clear();
        m.release(b, &mut out);
        assert_eq!(out, vec![9]);
        assert_eq!(m.in_use(), 0);
    }
}
