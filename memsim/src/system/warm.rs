//! Functional warming of the memory side for sampled simulation ([`crate::sample`],
//! `docs/sampling.md`): between detailed windows, private-cache misses and write-backs
//! update the LLC tags, the prefetchers, the directory and the DRAM row buffers without
//! any time passing or any statistic changing.

use super::directory::NO_OWNER;
use super::mc::DramHost;
use super::{DramBackend, MemorySystem};

impl<D: DramBackend> MemorySystem<D> {
    /// Functional warming of a private-cache miss of `requester` at `addr`
    /// (sampled simulation, [`crate::sample`]): trains the requester's
    /// prefetcher and installs its prefetches, then looks the line up in its
    /// home LLC bank, filling it on a miss (the victim's write-back and the
    /// fill open their DRAM rows), and records the requester in the directory.
    /// No time passes and no statistic changes; back-invalidations of private
    /// copies are not modelled here (`docs/sampling.md`).
    /// Returns whether the line is granted exclusive (always without coherence).
    pub fn warm_access(&mut self, requester: u32, addr: u64, write: bool) -> bool {
        let line = addr >> self.llc_shift;
        if !self.prefetchers.is_empty() {
            let mut out = std::mem::take(&mut self.pf_scratch);
            out.clear();
            self.prefetchers[requester as usize].on_miss(line, &mut out);
            for &pl in &out {
                self.warm_fill(pl, true);
            }
            self.pf_scratch = out;
        }
        let (b, slot) = self.warm_fill(line, false);
        if self.p.coherence {
            let me = 1u64 << (requester & 63);
            let bank = &mut self.banks[b];
            if write || bank.sharers[slot] & !me == 0 {
                bank.sharers[slot] = me;
                bank.owner[slot] = requester as u16;
                return true;
            }
            bank.sharers[slot] |= me;
            bank.owner[slot] = NO_OWNER;
            return false;
        }
        true
    }

    /// Functional warming of a write-back of `requester`'s dirty line at `addr`.
    pub fn warm_writeback(&mut self, requester: u32, addr: u64) {
        let line = addr >> self.llc_shift;
        let (b, slot) = self.warm_fill(line, false);
        let bank = &mut self.banks[b];
        bank.array.set_dirty(slot, true);
        if self.p.coherence {
            if bank.owner[slot] == requester as u16 {
                bank.owner[slot] = NO_OWNER;
            }
            bank.sharers[slot] &= !(1u64 << (requester & 63));
        }
    }

    /// Looks `line` up in its home bank, inserting it on a miss (marked
    /// prefetched if `prefetch`); a demand lookup clears the prefetched mark.
    pub(super) fn warm_fill(&mut self, line: u64, prefetch: bool) -> (usize, usize) {
        let b = self.home_bank(line) as usize;
        let bank = &mut self.banks[b];
        if let Some(slot) = bank.array.access(line) {
            if !prefetch {
                bank.array.set_prefetched(slot, false);
            }
            return (b, slot);
        }
        let (slot, victim) = bank.array.insert(line);
        bank.array.set_prefetched(slot, prefetch);
        if let DramHost::Local(d) = &mut self.dram {
            if let Some(v) = victim.filter(|v| v.dirty) {
                d.dram_mut().warm_row(v.line << self.llc_shift);
            }
            d.dram_mut().warm_row(line << self.llc_shift);
        }
        self.clear_dir(b, slot);
        (b, slot)
    }
}
