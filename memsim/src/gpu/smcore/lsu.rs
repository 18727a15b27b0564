//! The LSU side of an SM: the memory path of a warp instruction (address
//! generation, coalescing, L1 lookups, write-through stores, bypassing and atomic
//! requests) and the miss queue of transactions that wait for an L1 MSHR or a
//! memory-side slot (retried in order, head-of-line blocking). See the parent
//! module for the timing model.
//!
//! A head lookup refused for lack of an MSHR or target is not redone while the
//! L1 is unchanged since ([`L1::epoch`](crate::gpu::l1::L1::epoch)): it would be
//! refused again, so only the refusal is counted, as the lookup would count
//! it (debug builds redo it and check). BFS refuses about 3.6 M such retries.
//!
//! With cache access re-execution (`Sm::reexec`, MASCAR's, only when a warp
//! scheduler asks for it) a read that hits the L1 is served even when lookups
//! wait in the miss queue: a new transaction does not queue behind them, and
//! after a retry stopped at a refused lookup, the queued lookups behind it whose
//! line is present are served (hits under misses). The refused lookups stay in
//! the queue, in order, and are re-executed as before: the queue is MASCAR's
//! re-execution queue [I].

use super::{lanes, KernelRt, Sm, TbExit, WarpCtx, LOCAL_BASE};
use crate::gpu::l1::{L1Observer, Lookup, Owner};
use crate::gpu::warp::{TbGeo, PENDING};
use crate::gpu::workload::{MemKind, MemOp, Space, TableId, Tables};
use crate::system::{DramBackend, MemRequest, MemorySystem, ReqKind};

/// A memory transaction waiting for an MSHR or a memory-side slot.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    line: u64,
    waiter: u64,
    who: Owner,
    at: u64,
    kind: PendKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PendKind {
    /// L1 lookup to redo (no MSHR or target was free).
    Lookup,
    /// MSHR held, request refused by the memory side.
    Send(u32, ReqKind),
    /// Bypassing request without an MSHR yet.
    Bypass(ReqKind),
}

/// Shared-memory banks (4-byte words interleaved over them).
const SMEM_BANKS: u64 = 32;

/// The bank-conflict degree of one shared-memory access with these lane
/// addresses: the largest number of distinct 4-byte words any of the 32 banks
/// must serve (lanes reading the same word share one broadcast), 1 without a
/// conflict, 0 without lanes. Each degree above 1 is a replay cycle.
pub(super) fn bank_conflict_degree(addrs: &[u64], scratch: &mut Vec<u64>) -> u32 {
    scratch.clear();
    scratch.extend(addrs.iter().map(|a| a / 4));
    scratch.sort_unstable_by_key(|&w| (w % SMEM_BANKS, w));
    scratch.dedup();
    let mut best = 0u32;
    let mut run = 0u32;
    let mut bank = u64::MAX;
    for &w in scratch.iter() {
        if w % SMEM_BANKS == bank {
            run += 1;
        } else {
            bank = w % SMEM_BANKS;
            run = 1;
        }
        best = best.max(run);
    }
    best
}

/// [`Tables::value_at`], looking first in the region of the previous lane's
/// address (`near`), which the lanes of one access mostly share: the same value
/// without the search over the regions.
#[inline]
fn value_near(tables: &Tables, addr: u64, bits: u16, near: &mut Option<TableId>) -> i64 {
    let id = match *near {
        Some(id) if addr.wrapping_sub(tables.region(id).base) < tables.region(id).bytes() => id,
        _ => match tables.region_at(addr) {
            Some(id) => {
                *near = Some(id);
                id
            }
            None => return 0,
        },
    };
    let r = tables.region(id);
    let v = r
        .values()
        .get(((addr - r.base) / r.elem_bytes as u64) as usize)
        .copied()
        .unwrap_or(0);
    if bits == 0 || bits >= 64 {
        v
    } else {
        let sh = 64 - bits as u32;
        (v << sh) >> sh
    }
}

impl Sm {
    /// Retries the miss queue in order (head-of-line blocking) at cycle `t`.
    pub(super) fn retry<D: DramBackend>(
        &mut self,
        t: u64,
        mem: &mut MemorySystem<D>,
        exits: &mut Vec<TbExit>,
    ) {
        while let Some(&p) = self.miss_q.front() {
            let at = p.at.max(t);
            let ok = match p.kind {
                PendKind::Lookup if self.head_stall == Some(self.l1.epoch()) => {
                    // Nothing changed in the L1 since this lookup stalled: it
                    // stalls again (debug builds check it by doing it).
                    #[cfg(debug_assertions)]
                    {
                        let r = self.l1.read(p.line, p.who, p.waiter, at, &mut None);
                        debug_assert_eq!(r, Lookup::Stall, "skipped L1 retry would not stall");
                    }
                    #[cfg(not(debug_assertions))]
                    self.l1.count_stall();
                    false
                }
                PendKind::Lookup => match self.l1.read(p.line, p.who, p.waiter, at, &mut None) {
                    Lookup::Hit { .. } => {
                        let done = at + self.p.l1_latency;
                        self.miss_q.pop_front();
                        self.head_stall = None;
                        self.load_returned(p.waiter, done, exits);
                        self.wake = self.wake.min(done);
                        continue;
                    }
                    Lookup::Merged(_) => true,
                    Lookup::Miss(m) => {
                        if !self.send(mem, p.line, m, ReqKind::Read, at + self.p.l1_latency) {
                            self.miss_q[0].kind = PendKind::Send(m, ReqKind::Read);
                            false
                        } else {
                            true
                        }
                    }
                    Lookup::Stall => {
                        self.head_stall = Some(self.l1.epoch());
                        false
                    }
                },
                PendKind::Send(m, kind) => self.send(mem, p.line, m, kind, at),
                PendKind::Bypass(kind) => match self.l1.bypass(p.line, p.waiter) {
                    Some(m) => {
                        if self.send(mem, p.line, m, kind, at) {
                            true
                        } else {
                            self.miss_q[0].kind = PendKind::Send(m, kind);
                            false
                        }
                    }
                    None => false,
                },
            };
            if !ok {
                if self.reexec && self.miss_q.len() > 1 {
                    self.hits_under_misses(t, exits);
                }
                break;
            }
            self.miss_q.pop_front();
            self.head_stall = None;
        }
    }

    /// Whether a new lookup of `line` waits in the miss queue behind the ones
    /// there: whenever the queue is not empty, except, with re-execution, when
    /// it would hit.
    #[inline]
    fn queues_behind(&self, line: u64) -> bool {
        if self.miss_q.is_empty() {
            return false;
        }
        !(self.reexec && self.l1.present(line))
    }

    /// Serves the queued lookups behind the miss queue's blocked head whose line
    /// is in the L1 (cache access re-execution, only with `reexec`).
    // Out of line: the default path's `retry` stays as it was.
    #[inline(never)]
    fn hits_under_misses(&mut self, t: u64, exits: &mut Vec<TbExit>) {
        let mut i = 1;
        while i < self.miss_q.len() {
            let p = self.miss_q[i];
            if p.kind != PendKind::Lookup || !self.l1.present(p.line) {
                i += 1;
                continue;
            }
            let at = p.at.max(t);
            let r = self.l1.read(p.line, p.who, p.waiter, at, &mut None);
            debug_assert!(matches!(r, Lookup::Hit { .. }), "present line missed");
            self.miss_q.remove(i);
            self.c.reexec_hits += 1;
            let done = at + self.p.l1_latency;
            self.load_returned(p.waiter, done, exits);
            self.wake = self.wake.min(done);
        }
    }

    fn send<D: DramBackend>(
        &mut self,
        mem: &mut MemorySystem<D>,
        line: u64,
        mshr: u32,
        kind: ReqKind,
        at: u64,
    ) -> bool {
        let req = MemRequest {
            requester: self.id,
            addr: line << self.p.l1.line_shift(),
            kind,
            token: mshr as u64,
        };
        mem.issue(req, at).is_ok()
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn memory<D: DramBackend>(
        &mut self,
        ws: u32,
        t: u64,
        m: &MemOp,
        geo: &TbGeo,
        k: &KernelRt,
        who: Owner,
        tables: &Tables,
        mem: &mut MemorySystem<D>,
        exits: &mut Vec<TbExit>,
        hook: &mut Option<Box<dyn L1Observer>>,
    ) {
        let g = &self.p.g;
        let bytes = (m.bits as u32 / 8).max(1);
        let w = &mut self.warps[ws as usize];
        let mask = w.top().mask;
        self.scratch_addr.clear();
        self.scratch_lane.clear();
        let warp_global =
            geo.linear_ctaid() * geo.threads().div_ceil(32) as u64 + w.warp_in_tb as u64;
        let mut addrs = [0i64; 32];
        let cx = WarpCtx {
            w,
            geo,
            args: &k.args,
            mask,
        };
        super::eval::eval(&m.addr, &cx, tables, &mut addrs);
        for lane in lanes(mask) {
            let a = addrs[lane as usize] as u64;
            let a = match m.space {
                Space::Local => {
                    LOCAL_BASE + (((warp_global * 1024 + (a / 4) % 1024) * 32 + lane as u64) * 4)
                }
                _ => a,
            };
            self.scratch_addr.push(a);
            self.scratch_lane.push(lane);
        }
        // Functional part: loads and atomics write the table value.
        if let (Some(v), MemKind::Load | MemKind::Atomic(_)) = (m.dest, m.kind) {
            let mut near = None;
            for (i, &lane) in self.scratch_lane.iter().enumerate() {
                let val = if m.space == Space::Global {
                    value_near(tables, self.scratch_addr[i], m.bits, &mut near)
                } else {
                    0
                };
                w.set(v.0, lane, val);
            }
        }
        let dest = match m.kind {
            MemKind::Store => None,
            _ => m.dest.map(|v| v.0),
        };
        if m.space == Space::Shared {
            // A d-way bank conflict replays the access d - 1 times: the banks
            // stay busy until t + d (no shared access issues before), and the
            // data comes d - 1 cycles later than without a conflict.
            self.c.smem_accesses += 1;
            let degree = bank_conflict_degree(&self.scratch_addr, &mut self.scratch_w);
            let replays = degree.saturating_sub(1) as u64;
            if replays > 0 {
                self.c.smem_conflicts += 1;
                self.c.smem_replays += replays;
                self.smem_free = t + 1 + replays;
            }
            if let Some(v) = dest {
                w.score(v, t + g.smem_latency as u64 + replays);
            }
            return;
        }
        self.coal
            .coalesce(&self.scratch_addr, bytes, &mut self.scratch_tx);
        let lat = g.lsu.latency as u64;
        let ii = g.lsu.ii as u64;
        let l1_lat = self.p.l1_latency;
        let is_store = m.kind == MemKind::Store;
        let bypass = m.nc || m.bypass_l1 || matches!(m.kind, MemKind::Atomic(_));
        let load = if is_store {
            None
        } else {
            Some(w.new_load(dest))
        };
        // FGTB memory throttle, input side: the LSU accepts an instruction once
        // at most `lsu_queue` transactions' work is ahead of it; the cycles this
        // warp waits beyond that are its TB's throttled warp-cycles (counters
        // only: a FIFO LSU ends the instruction at the same cycle either way).
        let ahead = self.lsu_free.saturating_sub(t + lat);
        let wait = ahead.saturating_sub(self.p.g.lsu_queue as u64 * ii);
        if wait > 0 {
            self.tbs[w.tb as usize].mon.throttle_for(wait);
        }
        let mut left = 0u32;
        let mut done = t;
        let txs = std::mem::take(&mut self.scratch_tx);
        for tx in &txs {
            self.c.transactions += 1;
            let tau = (t + lat).max(self.lsu_free);
            self.lsu_free = tau + ii;
            let at = tau + l1_lat;
            let addr = tx.line << self.p.l1.line_shift();
            if is_store {
                self.l1.write(tx.line, who, tau, hook);
                self.c.stores += 1;
                let req = MemRequest {
                    requester: self.id,
                    addr,
                    kind: ReqKind::Writeback,
                    token: u64::MAX,
                };
                // write-backs are never refused
                let _ = mem.issue(req, at);
                continue;
            }
            let waiter = ((ws as u64) << 32) | load.unwrap_or(0) as u64;
            if bypass {
                let kind = if matches!(m.kind, MemKind::Atomic(_)) {
                    ReqKind::ReadExclusive
                } else {
                    ReqKind::Read
                };
                left += 1;
                self.miss_q.push_back(Pending {
                    line: tx.line,
                    waiter,
                    who,
                    at,
                    kind: PendKind::Bypass(kind),
                });
                continue;
            }
            if self.queues_behind(tx.line) {
                // keep the miss queue in order: later lookups wait behind it
                // (with re-execution only the ones that would not hit)
                left += 1;
                self.miss_q.push_back(Pending {
                    line: tx.line,
                    waiter,
                    who,
                    at: tau,
                    kind: PendKind::Lookup,
                });
                continue;
            }
            match self.l1.read(tx.line, who, waiter, tau, hook) {
                Lookup::Hit { .. } => {
                    if self.reexec && !self.miss_q.is_empty() {
                        self.c.reexec_hits += 1;
                    }
                    done = done.max(at)
                }
                Lookup::Merged(_) => left += 1,
                Lookup::Miss(id) => {
                    left += 1;
                    if !self.send(mem, tx.line, id, ReqKind::Read, at) {
                        self.miss_q.push_back(Pending {
                            line: tx.line,
                            waiter,
                            who,
                            at,
                            kind: PendKind::Send(id, ReqKind::Read),
                        });
                    }
                }
                Lookup::Stall => {
                    left += 1;
                    self.miss_q.push_back(Pending {
                        line: tx.line,
                        waiter,
                        who,
                        at: tau,
                        kind: PendKind::Lookup,
                    });
                }
            }
        }
        self.scratch_tx = txs;
        if let Some(id) = load {
            let w = &mut self.warps[ws as usize];
            w.loads[id as usize].left = left + 1;
            if let Some(v) = dest {
                w.score(v, PENDING);
            }
            // the hits' part returns now (the extra count above keeps the load open)
            if w.load_returned(id, done) && w.finished && w.outstanding == 0 {
                let tb = w.tb;
                self.maybe_exit_tb(tb, t, exits);
            }
        }
        if !self.miss_q.is_empty() {
            self.retry(t, mem, exits);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{bank_conflict_degree, value_near};
    use crate::gpu::workload::Tables;

    /// The region cache gives `value_at`'s value for addresses inside, between,
    /// before and after regions, in any order, with truncation to the width.
    #[test]
    fn value_near_equals_value_at() {
        let mut t = Tables::new();
        let a = t
            .add_table("a", 4, (0..40).map(|i| i * 1000 - 7).collect())
            .unwrap();
        t.add_buffer("b", 8, 16).unwrap();
        let c = t
            .add_table("c", 2, (0..9).map(|i| -i * 40000).collect())
            .unwrap();
        let (lo, hi) = (t.region(a).base - 64, t.region(c).base + 64);
        let mut near = None;
        for addr in (lo..hi).step_by(3).chain((lo..hi).rev().step_by(7)) {
            for bits in [8, 16, 32, 64] {
                assert_eq!(
                    value_near(&t, addr, bits, &mut near),
                    t.value_at(addr, bits),
                    "{addr:#x} {bits}"
                );
            }
        }
    }

    /// 32 lanes, 4-byte stride: one word per bank, no conflict; 8-byte stride:
    /// two words in each even bank (2-way); 128-byte stride: 32 words in bank 0;
    /// every lane on one word: a broadcast, no conflict.
    #[test]
    fn bank_conflict_degrees() {
        let mut s = Vec::new();
        let stride = |b: u64| (0..32).map(|l| 0x100 + l * b).collect::<Vec<u64>>();
        assert_eq!(bank_conflict_degree(&stride(4), &mut s), 1);
        assert_eq!(bank_conflict_degree(&stride(8), &mut s), 2);
        assert_eq!(bank_conflict_degree(&stride(128), &mut s), 32);
        assert_eq!(bank_conflict_degree(&[0x40; 32], &mut s), 1);
        // two lanes on the same word and one on another word of its bank: 2-way
        assert_eq!(bank_conflict_degree(&[0, 2, 128, 4], &mut s), 2);
        assert_eq!(bank_conflict_degree(&[], &mut s), 0);
    }
}
