//! The thread-block resource usage tracker (RUT; `gpu-seeds.md` §6.1
//! "Structures"): an SRAM table indexed by (stream ID, block index) holding
//! `bits` per metric, which predicts a TB's levels from the earlier TBs with
//! the same stream and block index (pipelines of same-shaped kernels process
//! the same data per block index, so the stream is used rather than the kernel).
//!
//! The table is direct-mapped over `rut_bytes × 8 / (bits × metrics)` entries
//! (16 KB of two 3-bit metrics: 21,845 entries). Each entry keeps the key it
//! holds, so a conflicting key is reported as unseen (estimate 0, regular limits
//! only, [I]) and overwrites it at its next update; conflicts are counted.

use super::{FgtbConfig, Levels, TbKey, METRICS};

/// The usage table.
#[derive(Clone, Debug)]
pub struct UsageTable {
    entries: Vec<Option<(TbKey, Levels)>>,
    /// Updates written (monitor reports and exits).
    pub updates: u64,
    /// Updates that evicted another key.
    pub conflicts: u64,
    /// Lookups that found their key.
    pub hits: u64,
    /// Lookups.
    pub lookups: u64,
}

impl UsageTable {
    /// Entries of a table of `bytes` with `bits` per metric.
    pub fn entries_for(bytes: u32, bits: u32) -> usize {
        ((bytes as u64 * 8) / (bits.max(1) as u64 * METRICS as u64)).max(1) as usize
    }

    /// The table of `cfg`.
    pub fn new(cfg: &FgtbConfig) -> Self {
        Self::with_entries(Self::entries_for(cfg.rut_bytes, cfg.bits))
    }

    /// A table of `n` entries.
    pub fn with_entries(n: usize) -> Self {
        UsageTable {
            entries: vec![None; n.max(1)],
            updates: 0,
            conflicts: 0,
            hits: 0,
            lookups: 0,
        }
    }

    /// Entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table has no entries (never: at least one).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn index(&self, k: TbKey) -> usize {
        // stream-major interleave so that consecutive blocks of one stream take
        // consecutive entries and streams are spread by a large odd stride
        let h = k
            .block
            .wrapping_add((k.stream as u64).wrapping_mul(0x9E37_79B9));
        (h % self.entries.len() as u64) as usize
    }

    /// The levels last written for `k`, if the entry holds `k`.
    pub fn predict(&mut self, k: TbKey) -> Option<Levels> {
        self.lookups += 1;
        let i = self.index(k);
        match self.entries[i] {
            Some((key, l)) if key == k => {
                self.hits += 1;
                Some(l)
            }
            _ => None,
        }
    }

    /// Writes the levels of `k`.
    pub fn update(&mut self, k: TbKey, l: Levels) {
        self.updates += 1;
        let i = self.index(k);
        if matches!(self.entries[i], Some((key, _)) if key != k) {
            self.conflicts += 1;
        }
        self.entries[i] = Some((k, l));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_size_and_prediction() {
        let t = UsageTable::new(&FgtbConfig::default());
        assert_eq!(t.len(), 21845); // 16 KB / 6 bits
        let mut t = UsageTable::with_entries(8);
        let k = |s, b| TbKey {
            stream: s,
            block: b,
        };
        assert_eq!(t.predict(k(0, 3)), None);
        t.update(k(0, 3), Levels([5, 1]));
        assert_eq!(t.predict(k(0, 3)), Some(Levels([5, 1])));
        // another stream's block 3 is another key
        assert_eq!(t.predict(k(1, 3)), None);
        // block 11 maps onto block 3's entry: unseen, then it evicts it
        assert_eq!(t.predict(k(0, 11)), None);
        t.update(k(0, 11), Levels([1, 1]));
        assert_eq!((t.conflicts, t.updates), (1, 2));
        assert_eq!(t.predict(k(0, 3)), None);
        assert_eq!(t.predict(k(0, 11)), Some(Levels([1, 1])));
        assert_eq!((t.hits, t.lookups), (2, 6));
    }
}
