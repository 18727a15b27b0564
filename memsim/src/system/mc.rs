//! The memory controllers' end of the memory side: LLC misses and write-backs travel
//! to the MC of their channel, the MC hands the line's bursts to the DRAM side
//! ([`crate::dram_side`], on this thread or its own), and completed lines travel back
//! to their home bank for the fill. BLP Ideal's page-granular spreading
//! ([`crate::oracle`]) re-targets misses here.

use super::{
    DramAddressing, DramBackend, DramRequest, MemorySystem, TxnKind, EV_FILL, EV_MC_ARRIVE,
};
use crate::dram_side::{DramSide, Finished, Remote};
use crate::noc::PacketClass;
use std::cmp::Reverse;
use std::sync::Arc;

/// Where the DRAM side runs.
pub(super) enum DramHost<D> {
    /// On the memory side's thread.
    Local(DramSide<D>),
    /// On its own thread, with a copy of the address functions.
    Remote(Remote<D>, Arc<dyn DramAddressing>),
    /// Briefly, while moving between the two.
    Moving,
}

impl<D: DramBackend> MemorySystem<D> {
    /// The DRAM backend.
    ///
    /// # Panics
    /// While the DRAM runs on its own thread ([`Self::spawn_dram_thread`] until
    /// [`Self::join_dram_thread`]).
    pub fn dram(&self) -> &D {
        match &self.dram {
            DramHost::Local(s) => s.dram(),
            _ => panic!("the DRAM runs on its own thread until the run ends"),
        }
    }

    /// The DRAM backend, mutably (statistics). Panics as [`Self::dram`].
    pub fn dram_mut(&mut self) -> &mut D {
        match &mut self.dram {
            DramHost::Local(s) => s.dram_mut(),
            _ => panic!("the DRAM runs on its own thread until the run ends"),
        }
    }

    /// Moves the DRAM side to a thread of its own (`crate::dram_side`); the results
    /// are those of a run on one thread. Returns false, and stays on one thread,
    /// when the backend cannot be moved ([`DramBackend::addressing`]) or the
    /// BLP-Ideal oracle is on (it reads the DRAM's queues at every LLC miss), or the
    /// backend gives no notice of its completions ([`DramBackend::notice_cycles`]).
    pub fn spawn_dram_thread(&mut self) -> std::io::Result<bool>
    where
        D: Send + 'static,
    {
        let addressing = match &self.dram {
            DramHost::Local(s) if !self.p.oracle.spread_memory_banks && s.lookahead() > 0 => {
                s.dram().addressing()
            }
            _ => None,
        };
        let Some(addressing) = addressing else {
            return Ok(false);
        };
        let DramHost::Local(side) = std::mem::replace(&mut self.dram, DramHost::Moving) else {
            unreachable!("checked above");
        };
        self.dram = DramHost::Remote(Remote::spawn(side, self.now)?, addressing);
        Ok(true)
    }

    /// Brings the DRAM side back from its thread (after the run; no-op otherwise).
    pub fn join_dram_thread(&mut self) {
        if let DramHost::Remote(..) = self.dram {
            let DramHost::Remote(r, _) = std::mem::replace(&mut self.dram, DramHost::Moving) else {
                unreachable!("checked above");
            };
            self.dram = DramHost::Local(r.join());
        }
    }

    /// The core cycle to process next, given the earliest one `t` the caller
    /// knows of (`u64::MAX`: none): `t`, or an earlier delivery of a DRAM
    /// completion. With the DRAM on its own thread this waits until the DRAM side
    /// has reported everything that can happen by then.
    #[inline]
    pub fn settle(&mut self, t: u64) -> u64 {
        let DramHost::Remote(r, _) = &mut self.dram else {
            return t;
        };
        if r.settled(t) {
            return t;
        }
        let queued = self.finished.peek().map(|Reverse((at, ..))| *at);
        let mut buf = std::mem::take(&mut self.finished_buf);
        let t = r.settle(t, queued, &mut buf);
        self.queue_finished(&mut buf);
        self.finished_buf = buf;
        t
    }

    /// Queues reported completions for delivery, in report order.
    pub(super) fn queue_finished(&mut self, buf: &mut Vec<Finished>) {
        for f in buf.drain(..) {
            self.st.dram_reqs += 1;
            if self.p.oracle.spread_memory_banks {
                let bank = self.bank_of(f.addr) as usize;
                if let Some(c) = self.bank_outstanding.get_mut(bank) {
                    *c = c.saturating_sub(1);
                }
            }
            self.finished.push(Reverse((f.at, self.finished_seq, f.id)));
            self.finished_seq += 1;
        }
    }

    /// Queues what the local DRAM side reported.
    pub(super) fn collect_finished(&mut self) {
        if let DramHost::Local(s) = &mut self.dram {
            let mut buf = std::mem::take(&mut self.finished_buf);
            s.take_finished(&mut buf);
            if !buf.is_empty() {
                self.queue_finished(&mut buf);
            }
            self.finished_buf = buf;
        }
    }

    pub(super) fn channel_of(&self, addr: u64) -> usize {
        match &self.dram {
            DramHost::Local(s) => s.dram().channel_of(addr),
            DramHost::Remote(_, a) => a.channel_of(addr),
            DramHost::Moving => unreachable!("DRAM side in transit"),
        }
    }

    pub(super) fn bank_of(&self, addr: u64) -> u32 {
        match &self.dram {
            DramHost::Local(s) => s.dram().bank_of(addr),
            DramHost::Remote(_, a) => a.bank_of(addr),
            DramHost::Moving => unreachable!("DRAM side in transit"),
        }
    }

    /// Core cycle of the local DRAM side's next visit.
    #[inline]
    pub(super) fn dram_next(&self) -> Option<u64> {
        match &self.dram {
            DramHost::Local(s) => s.next(),
            _ => None,
        }
    }

    /// One DRAM burst of transaction `txn` is back at its MC at core cycle `t`.
    pub(super) fn dram_done(&mut self, t: u64, txn: u32) {
        let x = &mut self.txns[txn as usize];
        x.bursts_left -= 1;
        if x.bursts_left == 0 {
            if x.kind == TxnKind::DramWrite {
                self.free_txn(txn);
            } else {
                x.dram = t - x.t_mc;
                let ch = self.channel_of(self.txns[txn as usize].addr);
                let home = self.txns[txn as usize].home as usize;
                let mc = self.p.mc_nodes[ch];
                let arrive = self
                    .net
                    .send(t, mc, self.p.llc_nodes[home], PacketClass::Data);
                if self.txns[txn as usize].kind == TxnKind::Demand {
                    self.txns[txn as usize].net += arrive - t;
                }
                self.schedule(arrive, EV_FILL, txn);
            }
        }
    }

    pub(super) fn send_to_mc(&mut self, t: u64, txn: u32) {
        let x = self.txns[txn as usize];
        let addr = if self.p.oracle.spread_memory_banks && x.kind != TxnKind::DramWrite {
            // BLP Ideal: page-granular spreading (`crate::oracle`).
            let a = x.line << self.llc_shift;
            let best = self.spreader.choose(a, &self.bank_outstanding);
            self.dram().retarget(a, best)
        } else {
            x.line << self.llc_shift
        };
        self.txns[txn as usize].addr = addr;
        let ch = self.channel_of(addr);
        let b = x.home as usize;
        // Count the line's bursts against their banks now, so BLP Ideal's choices
        // see requests already on their way to a controller (the counts are only
        // read, and so only kept, under that oracle).
        if self.p.oracle.spread_memory_banks {
            let burst = self.burst_bytes;
            let n = (self.p.llc_bank.line_bytes as u64).div_ceil(burst).max(1);
            for i in 0..n {
                let mb = self.bank_of(addr + i * burst) as usize;
                if let Some(c) = self.bank_outstanding.get_mut(mb) {
                    *c += 1;
                }
            }
        }
        let arrive = self.net.send(
            t,
            self.p.llc_nodes[b],
            self.p.mc_nodes[ch],
            PacketClass::Control,
        );
        if x.kind == TxnKind::Demand {
            self.txns[txn as usize].net += arrive - t;
        }
        if x.kind != TxnKind::DramWrite {
            let mb = self.bank_of(addr);
            if x.requester != u32::MAX {
                self.mlp_win.record(t, x.requester, mb);
            }
        }
        let arrive = arrive + self.perturbation();
        self.schedule(arrive, EV_MC_ARRIVE, txn);
    }

    pub(super) fn mc_arrive(&mut self, t: u64, txn: u32) {
        let line_bytes = self.p.llc_bank.line_bytes as u64;
        let burst = self.burst_bytes;
        let n = line_bytes.div_ceil(burst).max(1);
        let x = &mut self.txns[txn as usize];
        x.t_mc = t;
        x.bursts_left = n as u32;
        let first = DramRequest {
            id: (txn as u64) << 8,
            addr: x.addr,
            is_write: x.kind == TxnKind::DramWrite,
            source: x.requester.min(self.p.requesters),
        };
        match &mut self.dram {
            DramHost::Local(s) => {
                s.arrive(t, first, n as u32, burst);
                self.collect_finished();
            }
            DramHost::Remote(r, _) => r.arrive(t, first, n as u32, burst),
            DramHost::Moving => unreachable!("DRAM side in transit"),
        }
    }

    /// No further request will be issued: the DRAM may drain buffered writes.
    pub fn finish_input(&mut self) {
        let now = self.now;
        match &mut self.dram {
            DramHost::Local(s) => {
                s.finish_input(now);
                self.collect_finished();
            }
            DramHost::Remote(r, _) => r.finish_input(now),
            DramHost::Moving => unreachable!("DRAM side in transit"),
        }
    }
}
