//! The coherence directory kept at each line's home LLC bank (dissertation §5.2;
//! Table 5.2 lists MOESI, modelled as MESI with invalidate-and-forward): per LLC line
//! the sharers and an exclusive owner; reads with no other holder are granted
//! exclusive, writes invalidate every other holder and wait for the last
//! acknowledgement. With coherence off every access is granted exclusive.

use super::{DramBackend, MemorySystem, Txn, TxnKind, EV_DELIVER};
use crate::noc::PacketClass;

/// Directory owner field of a line nobody owns.
pub(super) const NO_OWNER: u16 = u16::MAX;

impl<D: DramBackend> MemorySystem<D> {
    /// Directory actions for a demand access to `slot` of bank `b` at time `t`.
    pub(super) fn directory(&mut self, t: u64, b: usize, slot: usize, txn: u32) {
        if !self.p.coherence {
            self.txns[txn as usize].granted_excl = true;
            return;
        }
        let x = self.txns[txn as usize];
        let r = x.requester;
        let me = 1u64 << (r & 63);
        let bank = &self.banks[b];
        let owner = bank.owner[slot];
        let others = bank.sharers[slot] & !me;
        let mut not_before = t;
        if x.exclusive {
            if others != 0 {
                // Holders drop their copies; a dirty one is written back by its
                // holder (see `CompletionKind::Invalidate`), so the LLC copy is
                // only dirtied by data that was actually written.
                not_before = self.invalidate_holders(t, b, slot, others, r);
            }
            let bank = &mut self.banks[b];
            bank.sharers[slot] = me;
            bank.owner[slot] = r as u16;
            self.txns[txn as usize].granted_excl = true;
        } else if owner != NO_OWNER && owner as u32 != r {
            let mask = 1u64 << (owner & 63);
            not_before = self.invalidate_holders(t, b, slot, mask, r);
            let bank = &mut self.banks[b];
            bank.owner[slot] = NO_OWNER;
            bank.sharers[slot] = (bank.sharers[slot] & !mask) | me;
        } else if others == 0 {
            let bank = &mut self.banks[b];
            bank.sharers[slot] = me;
            bank.owner[slot] = r as u16;
            self.txns[txn as usize].granted_excl = true;
        } else {
            self.banks[b].sharers[slot] |= me;
        }
        self.txns[txn as usize].not_before = not_before;
    }

    /// Sends invalidations for `mask` holders of a line; returns when the last
    /// acknowledgement reaches requester `r`.
    pub(super) fn invalidate_holders(
        &mut self,
        t: u64,
        b: usize,
        slot: usize,
        mask: u64,
        r: u32,
    ) -> u64 {
        let line = self.banks[b].array.line_at(slot).unwrap_or(0);
        let bank_node = self.p.llc_nodes[b];
        let rnode = self.p.requester_nodes[r as usize];
        let mut last = t;
        let mut m = mask;
        while m != 0 {
            let h = m.trailing_zeros();
            m &= m - 1;
            if h >= self.p.requesters {
                continue;
            }
            let hnode = self.p.requester_nodes[h as usize];
            let at = self.net.send(t, bank_node, hnode, PacketClass::Control);
            let ack = self.net.send(at, hnode, rnode, PacketClass::Control);
            last = last.max(ack);
            self.post_invalidation(at, h, line, false);
        }
        last
    }

    pub(super) fn post_invalidation(&mut self, at: u64, h: u32, line: u64, recall: bool) {
        self.st.invals += 1;
        let txn = self.alloc_txn(Txn {
            kind: TxnKind::Inval,
            exclusive: recall,
            granted_excl: false,
            requester: h,
            token: 0,
            addr: line << self.llc_shift,
            line,
            home: 0,
            timing_bank: 0,
            t_issue: at,
            t_mc: 0,
            net: 0,
            dram: 0,
            bursts_left: 0,
            not_before: 0,
            missed: false,
        });
        self.schedule(at, EV_DELIVER, txn);
    }

    pub(super) fn clear_dir(&mut self, b: usize, slot: usize) {
        if self.p.coherence {
            self.banks[b].sharers[slot] = 0;
            self.banks[b].owner[slot] = NO_OWNER;
        }
    }
}
