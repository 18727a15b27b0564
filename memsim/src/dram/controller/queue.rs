//! The controller's request queues: admission with back-pressure, reads
//! forwarded from a queued write or merged with a queued read, merged writes,
//! writes held behind an older read of the same burst, the slab of queued
//! entries and the per-bank windows the scheduler sees, and, with per-bank
//! command queues, staging from the transaction queues.

use std::collections::hash_map::Entry as MapEntry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::super::scheduler::QueuedRequest;
use super::super::{Completion, MemRequest, QueueFull};
use super::view::NONE;
use super::Controller;

/// Multiplicative hasher for burst addresses (no external dependency).
#[derive(Default, Clone, Copy)]
pub(crate) struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, v: u64) {
        // splitmix64 finaliser: every input bit reaches the low (bucket) bits
        let mut x = v ^ self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        self.0 = x ^ (x >> 31);
    }
}

pub(super) type AddrMap<V> = HashMap<u64, V, BuildHasherDefault<AddrHasher>>;

/// A queued request plus controller bookkeeping.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) req: QueuedRequest,
    /// First cycle at which the scheduler may serve it.
    pub(super) eligible_from: u64,
    /// Waiting for an older read of the same burst (write only).
    pub(super) after_read: bool,
}

/// A bank-queue position: the request's slot in the controller's slab plus the
/// fields the per-bank scans and [`BankView::fill_candidates`](super::view::BankView::fill_candidates) read, so that
/// scanning and reordering a bank queue touch 24 bytes per request instead of
/// the whole entry.
#[derive(Debug, Clone, Copy)]
pub(super) struct Key {
    /// Copy of the request's `seq` (never changes once queued).
    pub(super) seq: u64,
    /// Index into `Controller::slab`.
    pub(super) idx: u32,
    pub(super) row: u32,
    pub(super) is_write: bool,
    /// Copy of the entry's `after_read`.
    pub(super) after_read: bool,
}

impl Controller {
    pub(super) fn complete(&mut self, c: Completion) {
        self.stats.last_done = self.stats.last_done.max(c.done);
        self.completions.push(c);
    }

    /// Offer a request at cycle `now` (all events before `now` must have been
    /// processed). `Err(QueueFull)` if its queue is full.
    pub fn enqueue(&mut self, now: u64, r: MemRequest) -> Result<(), QueueFull> {
        if !self.can_accept(r.is_write) {
            return Err(QueueFull);
        }
        let now = now.max(self.now);
        let addr = r.addr & self.burst_mask;
        if !r.is_write {
            self.stats.reads += 1;
            if self.pending_writes.contains_key(&addr) {
                self.stats.forwarded_reads += 1;
                self.stats.read_latency.add(1);
                self.complete(Completion {
                    tag: r.tag,
                    source: r.source,
                    addr: r.addr,
                    is_write: false,
                    arrival: now,
                    done: now + 1,
                });
                // the completion must be collected even when nothing else is queued
                self.wake(now + 1);
                return Ok(());
            }
            match self.pending_reads.entry(addr) {
                MapEntry::Occupied(mut n) => {
                    *n.get_mut() += 1;
                    self.stats.merged_reads += 1;
                    self.merged
                        .entry(addr)
                        .or_default()
                        .push((r.tag, r.source, now));
                    return Ok(());
                }
                MapEntry::Vacant(v) => {
                    v.insert(1);
                }
            }
        } else {
            self.stats.writes += 1;
            match self.pending_writes.entry(addr) {
                MapEntry::Occupied(_) => {
                    self.stats.merged_writes += 1;
                    self.complete(Completion {
                        tag: r.tag,
                        source: r.source,
                        addr: r.addr,
                        is_write: true,
                        arrival: now,
                        done: now + 1,
                    });
                    return Ok(());
                }
                MapEntry::Vacant(v) => {
                    v.insert(1);
                }
            }
        }
        let d = self.mapping.decode(addr);
        let bank = self.mapping.bank_in_channel(&d);
        let after_read = r.is_write && self.pending_reads.contains_key(&addr);
        if after_read {
            self.war_writes += 1;
        }
        let mut req = QueuedRequest {
            seq: self.seq,
            arrival: now,
            source: r.source,
            is_write: r.is_write,
            addr,
            bank,
            row: d.row,
            column: d.column,
            tag: r.tag,
            sched_state: 0,
            first_cmd: None,
            in_service: false,
        };
        self.seq += 1;
        self.sched.on_arrival(now, &mut req);
        let e = Entry {
            req,
            eligible_from: now,
            after_read,
        };
        if self.staged() {
            self.stage_blocked = false;
            if r.is_write {
                self.write_q.push_back(e);
            } else {
                self.read_q.push_back(e);
            }
        } else {
            self.push_window(e);
        }
        self.wake(now);
        Ok(())
    }

    pub(super) fn push_window(&mut self, e: Entry) {
        self.max_eligible = self.max_eligible.max(e.eligible_from);
        let bi = e.req.bank as usize;
        self.bank_count[bi] += 1;
        if !e.after_read {
            let c = &mut self.counts[bi];
            let d = e.req.is_write as usize;
            c.elig[d] += 1;
            if c.row == Some(e.req.row) {
                c.hits[d] += 1;
            }
        }
        self.nonempty[bi / 64] |= 1 << (bi % 64);
        if e.req.is_write {
            self.window_writes += 1;
        } else {
            self.window_reads += 1;
        }
        self.window_len += 1;
        let b = e.req.bank as usize;
        if self.staged() {
            self.views[b].dirty = true;
        } else if !self.views[b].dirty {
            // Without staging a new request is eligible from its arrival on and has
            // the highest `seq` of its bank, so it only fills an empty slot of the
            // bank's view (same result as recomputing it).
            let j = self.window[b].len() as u32;
            let v = &mut self.views[b];
            let mut changed = false;
            let open = self.ch.banks[b].open_row;
            if !e.after_read && e.req.is_write == self.draining {
                let hit = open == Some(e.req.row);
                v.has_hits |= hit;
                if v.first == NONE {
                    v.first = j;
                    changed = true;
                } else {
                    let slot = if !hit {
                        &mut v.other
                    } else if e.req.is_write {
                        &mut v.hit_wr
                    } else {
                        &mut v.hit_rd
                    };
                    if *slot == NONE {
                        *slot = j;
                        changed = true;
                    }
                }
            }
            let key = self.alloc(e);
            self.window[b].push(key);
            if changed {
                self.views[b].fill_candidates(&self.window[b], open);
            }
            return;
        }
        let key = self.alloc(e);
        self.window[b].push(key);
    }

    /// Stores `e` in the slab and returns its queue key.
    pub(super) fn alloc(&mut self, e: Entry) -> Key {
        let key = Key {
            seq: e.req.seq,
            idx: 0,
            row: e.req.row,
            is_write: e.req.is_write,
            after_read: e.after_read,
        };
        let idx = match self.slab_free.pop() {
            Some(i) => {
                self.slab[i as usize] = e;
                i
            }
            None => {
                self.slab.push(e);
                (self.slab.len() - 1) as u32
            }
        };
        Key { idx, ..key }
    }

    /// Entry at position `j` of bank `b`'s queue.
    #[inline]
    pub(super) fn entry(&self, b: usize, j: usize) -> &Entry {
        &self.slab[self.window[b][j].idx as usize]
    }

    #[inline]
    pub(super) fn entry_mut(&mut self, b: usize, j: usize) -> &mut Entry {
        &mut self.slab[self.window[b][j].idx as usize]
    }

    pub(super) fn release_war(&mut self, addr: u64) {
        for (b, q) in self.window.iter_mut().enumerate() {
            for key in q.iter_mut() {
                let e = &mut self.slab[key.idx as usize];
                if e.after_read && e.req.addr == addr {
                    e.after_read = false;
                    key.after_read = false;
                    self.war_writes -= 1;
                    let c = &mut self.counts[b];
                    let d = key.is_write as usize;
                    c.elig[d] += 1;
                    if c.row == Some(key.row) {
                        c.hits[d] += 1;
                    }
                }
            }
        }
        for e in self.write_q.iter_mut() {
            if e.after_read && e.req.addr == addr {
                e.after_read = false;
                self.war_writes -= 1;
            }
        }
        self.invalidate_views();
    }

    /// Move one request from the active transaction queue into its bank queue.
    pub(super) fn stage_one(&mut self, t: u64) -> bool {
        if self.stage_blocked {
            return false;
        }
        let cap = self.bank_cap;
        let q = if self.draining {
            &mut self.write_q
        } else {
            &mut self.read_q
        };
        let mut pick = None;
        for (i, e) in q.iter().enumerate() {
            if self.bank_count[e.req.bank as usize] < cap {
                pick = Some(i);
                break;
            }
        }
        let Some(i) = pick else {
            self.stage_blocked = true;
            return false;
        };
        let mut e = q.remove(i).expect("index in range");
        e.eligible_from = t + 1;
        self.push_window(e);
        true
    }
}
