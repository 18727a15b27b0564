//! The LLC banks of the memory side (dissertation §5.2; Table 5.2): one port per bank
//! (accesses start `llc_port_cycles` apart and take `llc_latency`), tags, and an MSHR
//! file that merges misses to one line and parks requests while it is full; fills,
//! victims and their write-backs. The directory it consults is [`super::directory`].
//!
//! Invariant: a parked request retries only when an MSHR of its bank frees, in
//! arrival order.

use super::directory::NO_OWNER;
use super::{DramBackend, MemorySystem, Txn, TxnKind};
use crate::cache::{CacheArray, MshrFile};
use crate::noc::PacketClass;
use std::collections::VecDeque;

/// One LLC bank (fields in access order: port, tags, MSHRs, then the rest).
#[repr(C)]
pub(super) struct LlcBank {
    pub(super) port_free: u64,
    pub(super) array: CacheArray,
    pub(super) mshr: MshrFile,
    pub(super) waiting: VecDeque<u32>,
    pub(super) sharers: Vec<u64>,
    pub(super) owner: Vec<u16>,
}

impl<D: DramBackend> MemorySystem<D> {
    pub(super) fn bank_access(&mut self, s: u64, txn: u32) {
        let x = self.txns[txn as usize];
        let lat = self.p.llc_latency;
        let b = x.home as usize;
        match x.kind {
            TxnKind::Writeback => {
                let bank = &mut self.banks[b];
                let slot = match bank.array.access(x.line) {
                    Some(s) => s,
                    None => {
                        let (slot, victim) = bank.array.insert(x.line);
                        if let Some(v) = victim {
                            self.evict(s + lat, b, v.line, v.dirty, v.slot);
                        }
                        self.clear_dir(b, slot);
                        slot
                    }
                };
                let bank = &mut self.banks[b];
                bank.array.set_dirty(slot, true);
                if self.p.coherence {
                    let r = x.requester as u16;
                    if bank.owner[slot] == r {
                        bank.owner[slot] = NO_OWNER;
                    }
                    bank.sharers[slot] &= !(1u64 << (x.requester & 63));
                }
                self.completed += 1;
                self.free_txn(txn);
            }
            TxnKind::Prefetch => {
                let bank = &mut self.banks[b];
                if bank.array.probe(x.line).is_some() || bank.mshr.find(x.line).is_some() {
                    self.free_txn(txn);
                    return;
                }
                match bank.mshr.allocate(x.line) {
                    Some(id) => {
                        bank.mshr.add_target(id, txn);
                        self.st.pf_filled += 1;
                        self.send_to_mc(s + lat, txn);
                    }
                    None => self.free_txn(txn),
                }
            }
            TxnKind::Demand => {
                let tb = x.timing_bank;
                self.clp.add(s, s + lat, tb);
                self.clp_win.record(s, x.requester, tb);
                let bank = &mut self.banks[b];
                if let Some(slot) = bank.array.access(x.line) {
                    self.st.hits += 1;
                    if bank.array.is_prefetched(slot) {
                        bank.array.set_prefetched(slot, false);
                        self.st.pf_useful += 1;
                    }
                    let done = s + lat;
                    self.txns[txn as usize].dram = 0;
                    self.directory(done, b, slot, txn);
                    let nb = self.txns[txn as usize].not_before;
                    self.respond(done, txn, nb);
                } else {
                    self.llc_miss(s + lat, b, x.line, txn);
                }
            }
            _ => unreachable!("bad transaction kind at the LLC"),
        }
    }

    /// Handles an LLC victim: back-invalidation (inclusive with coherence) and write-back.
    pub(super) fn evict(&mut self, t: u64, b: usize, line: u64, dirty: bool, slot: usize) {
        if self.p.coherence {
            // Holders are recalled; an owner with a dirty copy writes it back itself.
            let holders = self.banks[b].sharers[slot];
            let bank_node = self.p.llc_nodes[b];
            let mut m = holders;
            while m != 0 {
                let h = m.trailing_zeros();
                m &= m - 1;
                if h >= self.p.requesters {
                    continue;
                }
                let at = self.net.send(
                    t,
                    bank_node,
                    self.p.requester_nodes[h as usize],
                    PacketClass::Control,
                );
                self.post_invalidation(at, h, line, true);
            }
        }
        if dirty {
            self.st.wb_llc += 1;
            let txn = self.alloc_txn(Txn {
                kind: TxnKind::DramWrite,
                exclusive: false,
                granted_excl: false,
                requester: u32::MAX,
                token: 0,
                addr: line << self.llc_shift,
                line,
                home: b as u32,
                timing_bank: b as u32,
                t_issue: t,
                t_mc: 0,
                net: 0,
                dram: 0,
                bursts_left: 0,
                not_before: 0,
                missed: false,
            });
            self.send_to_mc(t, txn);
        }
    }

    pub(super) fn fill(&mut self, t: u64, txn: u32) {
        let x = self.txns[txn as usize];
        let b = x.home as usize;
        let bank = &mut self.banks[b];
        // A write-back from a private cache can allocate the line in its home bank
        // while the fetch for it is still out at DRAM. The resident copy is the newer
        // one, so the fill only refreshes its LRU position and keeps its directory
        // state; inserting it again would corrupt the set.
        let slot = match bank.array.access(x.line) {
            Some(resident) => resident,
            None => {
                let (slot, victim) = bank.array.insert(x.line);
                if let Some(v) = victim {
                    self.evict(t, b, v.line, v.dirty, v.slot);
                }
                self.clear_dir(b, slot);
                slot
            }
        };
        let id = self.banks[b].mshr.find(x.line).expect("fill without MSHR");
        let mut waiters = std::mem::take(&mut self.scratch);
        waiters.clear();
        self.banks[b].mshr.release(id, &mut waiters);
        let mut demanded = false;
        for &w in &waiters {
            let wk = self.txns[w as usize].kind;
            if wk == TxnKind::Demand {
                demanded = true;
                self.directory(t, b, slot, w);
                let nb = self.txns[w as usize].not_before;
                if w != txn {
                    self.txns[w as usize].dram = 0;
                }
                self.respond(t, w, nb);
            } else {
                self.free_txn(w);
            }
        }
        if !demanded {
            self.banks[b].array.set_prefetched(slot, true);
        }
        self.scratch = waiters;
        // Requests parked for an MSHR retry now, in arrival order.
        let parked = self.banks[b].waiting.len();
        for _ in 0..parked {
            if self.banks[b].mshr.is_full() {
                break;
            }
            if let Some(w) = self.banks[b].waiting.pop_front() {
                self.bank_access_retry(t, w);
            }
        }
    }

    pub(super) fn bank_access_retry(&mut self, t: u64, txn: u32) {
        // The request already paid its port access; it only re-checks tags/MSHR.
        let x = self.txns[txn as usize];
        let b = x.home as usize;
        let bank = &mut self.banks[b];
        if let Some(slot) = bank.array.access(x.line) {
            self.st.hits += 1;
            self.directory(t, b, slot, txn);
            let nb = self.txns[txn as usize].not_before;
            self.respond(t, txn, nb);
        } else {
            self.llc_miss(t, b, x.line, txn);
        }
    }

    /// A demand miss in bank `b`: merge into the line's MSHR, or allocate one and
    /// send the fetch to its memory controller at `send_at`, or (MSHR full, or no
    /// room for another target) wait in the bank's retry queue.
    pub(super) fn llc_miss(&mut self, send_at: u64, b: usize, line: u64, txn: u32) {
        let bank = &mut self.banks[b];
        if let Some(id) = bank.mshr.find(line) {
            if bank.mshr.add_target(id, txn) {
                self.st.misses += 1;
                self.st.merges += 1;
                self.txns[txn as usize].missed = true;
            } else {
                bank.waiting.push_back(txn);
            }
        } else if let Some(id) = bank.mshr.allocate(line) {
            bank.mshr.add_target(id, txn);
            self.st.misses += 1;
            self.txns[txn as usize].missed = true;
            self.send_to_mc(send_at, txn);
        } else {
            bank.waiting.push_back(txn);
        }
    }
}
