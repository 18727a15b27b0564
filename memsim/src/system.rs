//! The memory side of the manycore: the L1-miss path from a requester's node over the
//! mesh NoC to the S-NUCA LLC banks, the directory, the memory controllers and DRAM.
//!
//! [`MemorySystem`] is the API between *requesters* and the memory side. A requester
//! (a core of [`crate::core`], or later a GPU streaming multiprocessor) owns its private
//! caches; it hands each private-cache miss or write-back to [`MemorySystem::issue`]
//! with the mesh node it sits at and a token, and later receives [`Completion`]s (data,
//! or an invalidation of a line it holds) from [`MemorySystem::drain_completions`]. No
//! core model lives here.
//!
//! What it models (dissertation §5.2, Fig. 5.1 flow; Table 5.2):
//! 1. request packet requester node -> home LLC bank node (X-Y, [`crate::noc`];
//!    GPU machines use a crossbar instead, [`MemorySystem::with_crossbar`]);
//! 2. the bank's single port: an access starts when the port is free (concurrent
//!    accesses to one bank queue, `port_cycles` apart) and takes `llc_latency`;
//!    a hit answers with a data packet to the requester;
//! 3. a miss allocates a bank MSHR (merging later misses to the same line; a full
//!    MSHR file parks the request at the bank until an entry frees), sends a request
//!    to the memory controller of the line's channel, which enqueues the line's DRAM
//!    bursts (back-pressure: a full controller queue holds them at the MC); DRAM runs
//!    in its own clock domain (see [`ClockRatio`]), on this thread or its own, in the
//!    order `crate::dram_side` states (a burst's completion is delivered no sooner
//!    than the shortest DRAM data latency after it is known); when every burst of the line has
//!    returned, a data packet goes MC -> bank, the line is filled (a dirty victim is
//!    written back to DRAM) and every merged requester gets a data packet;
//! 4. the stream prefetchers ([`crate::prefetch`]), one per requester, train on the
//!    demand misses and fill the LLC;
//! 5. coherence (switchable): a directory at the home bank keeps, per LLC line, the
//!    sharers and an exclusive owner. A read with no other holder is granted exclusive
//!    (the MESI E state, so private data needs no upgrade); a read of a line owned by
//!    another requester invalidates the owner (it forwards the data, and writes it
//!    back to the LLC if its copy is dirty); a write (read-exclusive) invalidates every other holder, and the
//!    reply waits for the last acknowledgement. The LLC is inclusive when coherence is
//!    on: evicting a line invalidates its holders.
//!
//! Each requester may have `max_outstanding` demand requests in flight (per requester:
//! [`MemorySystem::set_max_outstanding`]); beyond that [`MemorySystem::issue`] refuses.
//!
//! Simplifications: an MSI/MESI-style directory without transient-state races (the
//! directory state changes at the bank access, invalidations are timed but not
//! acknowledged through the bank); Table 5.2's MOESI owner-forwarding of shared dirty
//! data is modelled as invalidate-and-forward; clean private evictions are silent, so
//! the directory may send an invalidation to a node that no longer holds the line.
//!
//! Invariants (checked in debug builds): every issued request completes exactly once;
//! every DRAM burst enqueued is completed exactly once; no transaction slot is freed
//! twice; at the end of a run nothing is in flight.
//!
//! Layout, one concept per module: this file holds the event loop (issue, advance,
//! delivery) and the transaction table; `request` the requester-facing messages,
//! `params` the parameters and memory-side oracles, `backend` the DRAM interface and
//! clock ratio, `llc` the banks, their MSHRs and fills, `directory` coherence, `mc`
//! the memory controllers and the DRAM host, `warm` functional warming, `stats` the
//! counters and the run's summary.

mod backend;
mod directory;
mod llc;
mod mc;
mod params;
mod request;
mod stats;
mod warm;

pub use backend::{ClockRatio, DramAddressing, DramBackend, DramDone, DramRequest};
pub use params::{MemOracle, SystemParams};
pub use request::{Busy, Completion, CompletionKind, MemRequest, ReqKind};
pub use stats::SystemStats;

use crate::cache::{CacheArray, MshrFile};
use crate::dram_side::{DramSide, Finished};
use crate::metrics::{ParallelismMeter, WindowMeter};
use crate::noc::{Crossbar, Network, PacketClass};
use crate::prefetch::StreamPrefetcher;
use directory::NO_OWNER;
use llc::LlcBank;
use mc::DramHost;
use stats::Counters;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TxnKind {
    Demand,
    Writeback,
    Prefetch,
    DramWrite,
    Inval,
    Free,
}

#[derive(Clone, Copy, Debug)]
struct Txn {
    kind: TxnKind,
    exclusive: bool,
    granted_excl: bool,
    requester: u32,
    token: u64,
    addr: u64,
    line: u64,
    home: u32,
    timing_bank: u32,
    t_issue: u64,
    t_mc: u64,
    net: u64,
    dram: u64,
    bursts_left: u32,
    /// earliest delivery (acks of invalidations)
    not_before: u64,
    missed: bool,
}

const EV_BANK_ARRIVE: u8 = 0;
const EV_BANK_ACCESS: u8 = 1;
const EV_MC_ARRIVE: u8 = 2;
const EV_FILL: u8 = 4;
const EV_DELIVER: u8 = 5;

/// The memory side: NoC, LLC banks with directory, prefetchers, MCs and DRAM.
pub struct MemorySystem<D: DramBackend> {
    p: SystemParams,
    net: Network,
    banks: Vec<LlcBank>,
    dram: DramHost<D>,
    /// DRAM completions reported and not yet delivered, by (core cycle, report order).
    finished: BinaryHeap<Reverse<(u64, u64, u64)>>,
    finished_seq: u64,
    finished_buf: Vec<Finished>,
    burst_bytes: u64,
    txns: Vec<Txn>,
    free_txns: Vec<u32>,
    events: crate::evq::EventQueue,
    now: u64,
    completions: Vec<Completion>,
    outstanding: Vec<u32>,
    /// Outstanding-request limit of each requester (`params.max_outstanding`
    /// unless set with [`Self::set_max_outstanding`]).
    limits: Vec<u32>,
    prefetchers: Vec<StreamPrefetcher>,
    /// Prefetches in flight per requester (bounded by `PrefetchParams::mshrs`).
    pf_inflight: Vec<u32>,
    /// BLP Ideal's page-to-bank choices.
    spreader: crate::oracle::PageSpreader,
    /// DRAM bursts on their way to or queued at each memory bank (kept only
    /// under the BLP-Ideal oracle, `spread_memory_banks`, which reads it).
    bank_outstanding: Vec<u32>,
    scratch: Vec<u32>,
    pf_scratch: Vec<u64>,
    /// Latency perturbation of requests to the memory controllers
    /// ([`Self::set_perturbation`]): the largest extra delay and its stream.
    perturb: Option<(u64, crate::rng::SplitMix64)>,
    clp: ParallelismMeter,
    mlp_win: WindowMeter,
    clp_win: WindowMeter,
    llc_shift: u32,
    st: Counters,
    issued: u64,
    completed: u64,
}

impl<D: DramBackend> MemorySystem<D> {
    /// A memory side over `dram` with parameters `p`.
    pub fn new(p: SystemParams, dram: D) -> Self {
        let nb = p.llc_nodes.len().max(1);
        let banks = (0..nb)
            .map(|_| {
                let array = CacheArray::new(p.llc_bank, nb as u64);
                let slots = array.slots();
                LlcBank {
                    array,
                    mshr: MshrFile::new(p.llc_mshrs as usize, 64),
                    port_free: 0,
                    waiting: VecDeque::new(),
                    sharers: if p.coherence {
                        vec![0; slots]
                    } else {
                        Vec::new()
                    },
                    owner: if p.coherence {
                        vec![NO_OWNER; slots]
                    } else {
                        Vec::new()
                    },
                }
            })
            .collect();
        let mem_banks = dram.num_banks() as usize;
        let prefetchers = match p.prefetch {
            Some(pp) => (0..p.requesters)
                .map(|_| StreamPrefetcher::new(pp))
                .collect(),
            None => Vec::new(),
        };
        MemorySystem {
            net: Network::new(p.mesh.clone(), p.noc.clone()),
            banks,
            burst_bytes: dram.burst_bytes().max(1),
            dram: DramHost::Local(DramSide::new(dram, p.clocks)),
            finished: BinaryHeap::new(),
            finished_seq: 0,
            finished_buf: Vec::new(),
            txns: Vec::with_capacity(1024),
            free_txns: Vec::new(),
            events: crate::evq::EventQueue::new(),
            now: 0,
            completions: Vec::new(),
            outstanding: vec![0; p.requesters as usize],
            pf_inflight: vec![0; p.requesters as usize],
            spreader: crate::oracle::PageSpreader::new(
                mem_banks as u32,
                p.oracle.spread_page_bytes,
            ),
            limits: vec![p.max_outstanding; p.requesters as usize],
            prefetchers,
            bank_outstanding: vec![0; mem_banks],
            scratch: Vec::new(),
            pf_scratch: Vec::new(),
            perturb: None,
            clp: ParallelismMeter::new(nb, p.epoch),
            mlp_win: WindowMeter::new(p.requesters as usize, mem_banks, p.epoch),
            clp_win: WindowMeter::new(p.requesters as usize, nb, p.epoch),
            llc_shift: p.llc_bank.line_shift(),
            st: Counters::default(),
            issued: 0,
            completed: 0,
            p,
        }
    }

    /// A memory side whose requesters reach the LLC banks over crossbar `xbar`
    /// instead of the mesh (GPU machines: requester `i` is crossbar port `i`, the
    /// `llc_nodes` and `mc_nodes` name memory-side ports; `p.mesh` is unused).
    pub fn with_crossbar(p: SystemParams, xbar: Crossbar, dram: D) -> Self {
        let noc = p.noc.clone();
        let mut m = Self::new(p, dram);
        m.net = Network::crossbar(xbar, noc);
        m
    }

    /// Sets the outstanding-request limit of one requester (an SM has far more
    /// MSHRs than a CPU core); the others keep theirs.
    pub fn set_max_outstanding(&mut self, requester: u32, limit: u32) {
        if let Some(l) = self.limits.get_mut(requester as usize) {
            *l = limit.max(1);
        }
    }

    /// Requests of `requester` issued and not yet completed (write-backs excluded).
    pub fn outstanding(&self, requester: u32) -> u32 {
        self.outstanding
            .get(requester as usize)
            .copied()
            .unwrap_or(0)
    }

    /// Perturbs the simulation the way Alameldeen and Wood measure the
    /// variability of multi-threaded workloads ("Variability in Architectural
    /// Simulations of Multi-threaded Workloads", HPCA 2003): every request
    /// sent from an LLC bank to a memory controller arrives `0..=max_cycles`
    /// cycles later than the network delivers it, uniformly, drawn from a
    /// SplitMix64 stream seeded by `seed`. Runs of one trace under different
    /// seeds then sample the timing-dependent interleavings of the cores
    /// (which core wins a bank, a barrier), and their spread is the
    /// simulation's noise floor: a difference between two versions smaller
    /// than it says nothing about the versions. `max_cycles = 0` (the
    /// default) turns it off, and the results are those of an unperturbed run.
    pub fn set_perturbation(&mut self, max_cycles: u32, seed: u64) {
        self.perturb = (max_cycles > 0).then(|| {
            (
                max_cycles as u64,
                crate::rng::SplitMix64::new(seed ^ 0x5045_5254_5552_4221),
            )
        });
    }

    /// The extra delay of the next request to a memory controller (0 without
    /// perturbation).
    #[inline]
    fn perturbation(&mut self) -> u64 {
        match &mut self.perturb {
            None => 0,
            Some((max, rng)) => rng.next_u64() % (*max + 1),
        }
    }

    /// The parameters.
    pub fn params(&self) -> &SystemParams {
        &self.p
    }

    /// Current time (last cycle processed).
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Requests issued and not yet completed (write-backs count until they reach the LLC).
    pub fn in_flight(&self) -> u64 {
        self.issued - self.completed
    }

    fn alloc_txn(&mut self, t: Txn) -> u32 {
        if let Some(i) = self.free_txns.pop() {
            self.txns[i as usize] = t;
            i
        } else {
            self.txns.push(t);
            (self.txns.len() - 1) as u32
        }
    }

    fn free_txn(&mut self, i: u32) {
        debug_assert!(
            self.txns[i as usize].kind != TxnKind::Free,
            "transaction {i} freed twice"
        );
        let x = &self.txns[i as usize];
        if x.kind == TxnKind::Prefetch {
            if let Some(c) = self.pf_inflight.get_mut(x.requester as usize) {
                *c -= 1;
            }
        }
        self.txns[i as usize].kind = TxnKind::Free;
        self.free_txns.push(i);
    }

    #[inline]
    fn schedule(&mut self, t: u64, ev: u8, txn: u32) {
        self.events.push(t, (ev, txn));
    }

    #[inline]
    fn home_bank(&self, line: u64) -> u32 {
        (line % self.banks.len() as u64) as u32
    }

    /// Hands a request to the memory side at core cycle `t` (not before [`Self::now`]).
    pub fn issue(&mut self, req: MemRequest, t: u64) -> Result<(), Busy> {
        let r = req.requester as usize;
        debug_assert!(r < self.outstanding.len(), "requester {r} out of range");
        if req.kind != ReqKind::Writeback && self.outstanding[r] >= self.limits[r] {
            return Err(Busy {
                requester: req.requester,
                limit: self.limits[r],
            });
        }
        let t = t.max(self.now);
        let line = req.addr >> self.llc_shift;
        let home = self.home_bank(line);
        let kind = if req.kind == ReqKind::Writeback {
            TxnKind::Writeback
        } else {
            TxnKind::Demand
        };
        let timing_bank = if kind == TxnKind::Demand && self.p.oracle.spread_llc_banks {
            self.least_busy_bank(req.requester, t)
        } else {
            home
        };
        let node = self.p.requester_nodes[r];
        let class = if kind == TxnKind::Writeback {
            PacketClass::Data
        } else {
            PacketClass::Control
        };
        let arrive = self
            .net
            .send(t, node, self.p.llc_nodes[timing_bank as usize], class);
        let txn = self.alloc_txn(Txn {
            kind,
            exclusive: req.kind == ReqKind::ReadExclusive,
            granted_excl: false,
            requester: req.requester,
            token: req.token,
            addr: req.addr,
            line,
            home,
            timing_bank,
            t_issue: t,
            t_mc: 0,
            net: arrive - t,
            dram: 0,
            bursts_left: 0,
            not_before: 0,
            missed: false,
        });
        self.issued += 1;
        if kind == TxnKind::Demand {
            self.outstanding[r] += 1;
            self.st.demand += 1;
            if !self.prefetchers.is_empty() {
                let mut out = std::mem::take(&mut self.pf_scratch);
                out.clear();
                self.prefetchers[r].on_miss(line, &mut out);
                for &pl in &out {
                    self.issue_prefetch(req.requester, pl, t);
                }
                self.pf_scratch = out;
            }
        } else {
            self.st.wb_private += 1;
        }
        self.schedule(arrive, EV_BANK_ARRIVE, txn);
        Ok(())
    }

    fn issue_prefetch(&mut self, requester: u32, line: u64, t: u64) {
        // The prefetcher's level has no free MSHR for it (`PrefetchParams::mshrs`).
        let r = requester as usize;
        let cap = self.p.prefetch.map_or(0, |p| p.mshrs);
        if cap > 0 && self.outstanding[r] + self.pf_inflight[r] >= cap {
            return;
        }
        self.pf_inflight[r] += 1;
        let home = self.home_bank(line);
        self.st.pf_issued += 1;
        let node = self.p.requester_nodes[requester as usize];
        let arrive = self.net.send(
            t,
            node,
            self.p.llc_nodes[home as usize],
            PacketClass::Control,
        );
        let txn = self.alloc_txn(Txn {
            kind: TxnKind::Prefetch,
            exclusive: false,
            granted_excl: false,
            requester,
            token: 0,
            addr: line << self.llc_shift,
            line,
            home,
            timing_bank: home,
            t_issue: t,
            t_mc: 0,
            net: 0,
            dram: 0,
            bursts_left: 0,
            not_before: 0,
            missed: false,
        });
        self.schedule(arrive, EV_BANK_ARRIVE, txn);
    }

    fn least_busy_bank(&self, requester: u32, t: u64) -> u32 {
        let node = self.p.requester_nodes[requester as usize];
        let mut best = 0u32;
        let mut key = (u64::MAX, u32::MAX);
        for (i, b) in self.banks.iter().enumerate() {
            let k = (
                b.port_free.max(t),
                self.p.mesh.hops(node, self.p.llc_nodes[i]),
            );
            if k < key {
                key = k;
                best = i as u32;
            }
        }
        best
    }

    /// Earliest core cycle at which the memory side has something to do (with the
    /// DRAM on its own thread, as far as known; see [`Self::settle`]).
    pub fn next_event_time(&self) -> Option<u64> {
        let n = self.next_times().0;
        (n != u64::MAX).then_some(n)
    }

    /// (earliest of everything, the local DRAM side's next visit), `u64::MAX` for none.
    #[inline]
    fn next_times(&self) -> (u64, u64) {
        let e = self.events.peek_time().unwrap_or(u64::MAX);
        let f = self
            .finished
            .peek()
            .map_or(u64::MAX, |Reverse((at, ..))| *at);
        let d = self.dram_next().unwrap_or(u64::MAX);
        (e.min(f).min(d), d)
    }

    /// Processes everything up to core cycle `t` (inclusive).
    pub fn advance_to(&mut self, t: u64) {
        loop {
            let (next, d) = self.next_times();
            if next > t {
                break;
            }
            self.now = next;
            if d == next {
                if let DramHost::Local(s) = &mut self.dram {
                    s.catch_up(next);
                }
                self.collect_finished();
            }
            // DRAM completions first, in report order, then the other events.
            while let Some(&Reverse((at, _, id))) = self.finished.peek() {
                if at > next {
                    break;
                }
                self.finished.pop();
                self.dram_done(at, (id >> 8) as u32);
            }
            while let Some((et, (ev, txn))) = self.events.pop_upto(next) {
                self.handle(et, ev, txn);
            }
        }
        self.now = self.now.max(t);
        // DRAM intervals may complete late; CLP starts are in time order.
        self.clp.advance(self.now);
    }

    fn handle(&mut self, t: u64, ev: u8, txn: u32) {
        match ev {
            EV_BANK_ARRIVE => {
                let b = self.txns[txn as usize].timing_bank as usize;
                let bank = &mut self.banks[b];
                let start = t.max(bank.port_free);
                bank.port_free = start + self.p.llc_port_cycles;
                if start == t {
                    self.bank_access(t, txn);
                } else {
                    self.schedule(start, EV_BANK_ACCESS, txn);
                }
            }
            EV_BANK_ACCESS => self.bank_access(t, txn),
            EV_MC_ARRIVE => self.mc_arrive(t, txn),
            EV_FILL => self.fill(t, txn),
            EV_DELIVER => self.deliver(t, txn),
            _ => unreachable!("unknown event {ev}"),
        }
    }

    fn respond(&mut self, t: u64, txn: u32, not_before: u64) {
        let x = self.txns[txn as usize];
        let from = self.p.llc_nodes[x.timing_bank as usize];
        let to = self.p.requester_nodes[x.requester as usize];
        let arrive = self.net.send(t, from, to, PacketClass::Data);
        self.txns[txn as usize].net += arrive - t;
        self.schedule(arrive.max(not_before), EV_DELIVER, txn);
    }

    fn deliver(&mut self, t: u64, txn: u32) {
        let x = self.txns[txn as usize];
        if x.kind == TxnKind::Inval {
            self.completions.push(Completion {
                requester: x.requester,
                token: 0,
                addr: x.addr,
                time: t,
                kind: CompletionKind::Invalidate {
                    recall: x.exclusive,
                },
            });
            self.free_txn(txn);
            return;
        }
        let total = t - x.t_issue;
        let net = x.net.min(total);
        let dram = x.dram.min(total - net);
        self.st.lat += total;
        self.st.lat_net += net;
        self.st.lat_dram += dram;
        self.st.lat_llc += total - net - dram;
        if x.missed {
            self.st.miss_lat += total;
            self.st.miss_n += 1;
        }
        self.outstanding[x.requester as usize] -= 1;
        self.completed += 1;
        self.completions.push(Completion {
            requester: x.requester,
            token: x.token,
            addr: x.addr,
            time: t,
            kind: CompletionKind::Data {
                exclusive: x.granted_excl,
            },
        });
        self.free_txn(txn);
    }

    /// Moves the completions produced so far into `out` (in time order).
    pub fn drain_completions(&mut self, out: &mut Vec<Completion>) {
        out.append(&mut self.completions);
    }

    /// Whether nothing is in flight (no request, event or DRAM work pending).
    pub fn is_idle(&self) -> bool {
        self.events.is_empty()
            && self.finished.is_empty()
            && match &self.dram {
                DramHost::Local(s) => s.is_idle(),
                DramHost::Remote(r, _) => r.is_idle(),
                DramHost::Moving => false,
            }
            && self.banks.iter().all(|b| b.waiting.is_empty())
    }
}
