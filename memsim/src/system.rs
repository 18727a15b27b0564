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

use crate::cache::{CacheArray, CacheGeometry, MshrFile};
use crate::dram_side::{DramSide, Finished, Remote};
use crate::metrics::{ParallelismMeter, ParallelismSummary, WindowMeter, WindowSummary};
use crate::noc::{Crossbar, Mesh, Network, NocParams, NocStats, NodeId, PacketClass};
use crate::prefetch::{PrefetchParams, StreamPrefetcher};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

/// Kind of request a requester sends to the memory side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ReqKind {
    /// Read miss (GetS).
    Read,
    /// Write miss or upgrade: read for ownership (GetX).
    ReadExclusive,
    /// Write-back of a dirty private line (no reply).
    Writeback,
}

/// A request from a requester's private cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemRequest {
    /// Requester index (core or SM), `< params.requesters`.
    pub requester: u32,
    /// Byte address (any address within the wanted line).
    pub addr: u64,
    /// What is asked.
    pub kind: ReqKind,
    /// Opaque tag returned in the completion.
    pub token: u64,
}

/// What a completion tells the requester.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// The data of the requested line arrived; `exclusive` = the requester may write
    /// it without asking again.
    Data {
        /// Write permission granted.
        exclusive: bool,
    },
    /// The requester must drop every private copy inside LLC line `addr`, writing
    /// back the dirty ones (the LLC copy is only dirtied by such write-backs, so a
    /// line nobody wrote never goes back to DRAM). `recall`: the LLC evicted the
    /// line (inclusion); otherwise another requester's access invalidated it.
    Invalidate {
        /// The LLC evicted the line (rather than another requester taking it).
        recall: bool,
    },
}

/// A message from the memory side to a requester.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Requester it is for.
    pub requester: u32,
    /// Token of the request (0 for invalidations).
    pub token: u64,
    /// Byte address of the request, or the LLC-line address for invalidations.
    pub addr: u64,
    /// Core cycle at which it reaches the requester's node.
    pub time: u64,
    /// Data or invalidation.
    pub kind: CompletionKind,
}

/// Back-pressure: the request was not accepted; retry later.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("requester {requester} has {limit} requests outstanding; retry later")]
pub struct Busy {
    /// Requester that was refused.
    pub requester: u32,
    /// Its outstanding-request limit.
    pub limit: u32,
}

/// Exact ratio between the core clock and the DRAM clock.
///
/// Periods are integers in femtoseconds (`tCK` in ns is rounded to 1 fs), so a core
/// cycle `t` is the instant `t * core_fs` and a DRAM cycle `d` is `d * dram_fs`. A
/// request reaching the MC at core cycle `t` is offered to DRAM at the first DRAM edge
/// at or after it; a DRAM completion at DRAM cycle `d` is seen at the first core edge at
/// or after it. The same DRAM preset thus behaves identically at any core frequency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockRatio {
    /// Core clock period in femtoseconds.
    pub core_fs: u64,
    /// DRAM clock period in femtoseconds.
    pub dram_fs: u64,
}

impl ClockRatio {
    /// From a core frequency in MHz and a DRAM clock period in ns.
    pub fn new(core_mhz: u32, tck_ns: f64) -> Self {
        let core_fs = 1_000_000_000 / core_mhz.max(1) as u64;
        let dram_fs = (tck_ns * 1e6).round().max(1.0) as u64;
        ClockRatio { core_fs, dram_fs }
    }

    /// First DRAM cycle at or after core cycle `t`.
    #[inline]
    pub fn core_to_dram_ceil(&self, t: u64) -> u64 {
        match t.checked_mul(self.core_fs) {
            Some(x) => x.div_ceil(self.dram_fs),
            None => ((t as u128 * self.core_fs as u128).div_ceil(self.dram_fs as u128)) as u64,
        }
    }

    /// Last DRAM cycle at or before core cycle `t`.
    #[inline]
    pub fn core_to_dram_floor(&self, t: u64) -> u64 {
        match t.checked_mul(self.core_fs) {
            Some(x) => x / self.dram_fs,
            None => ((t as u128 * self.core_fs as u128) / self.dram_fs as u128) as u64,
        }
    }

    /// Whole core cycles in `d` DRAM cycles (rounded down).
    #[inline]
    pub fn dram_to_core_floor(&self, d: u64) -> u64 {
        ((d as u128 * self.dram_fs as u128) / self.core_fs as u128) as u64
    }

    /// First core cycle at or after DRAM cycle `d`.
    #[inline]
    pub fn dram_to_core_ceil(&self, d: u64) -> u64 {
        match d.checked_mul(self.dram_fs) {
            Some(x) => x.div_ceil(self.core_fs),
            None => ((d as u128 * self.dram_fs as u128).div_ceil(self.core_fs as u128)) as u64,
        }
    }
}

/// A request as the DRAM model sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DramRequest {
    /// Identifier echoed in the completion.
    pub id: u64,
    /// Byte address (decoded by the DRAM address mapping).
    pub addr: u64,
    /// Write (true) or read.
    pub is_write: bool,
    /// Requester that caused it (`requesters` for LLC write-backs), for schedulers.
    pub source: u32,
}

/// A finished (or scheduled-to-finish) DRAM request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DramDone {
    /// The request's identifier.
    pub id: u64,
    /// The request's address.
    pub addr: u64,
    /// DRAM cycle at which its data burst completes (may lie after the cycle the
    /// backend was advanced to: the model knows it once the column command issued).
    pub done: u64,
}

/// The DRAM side behind the memory controllers, in DRAM cycles.
///
/// Implemented by the DRAM model of [`crate::dram`]; tests may use simpler models.
pub trait DramBackend {
    /// Number of channels (one memory controller each).
    fn channels(&self) -> usize;
    /// Channel of a byte address.
    fn channel_of(&self, addr: u64) -> usize;
    /// Global memory bank of a byte address.
    fn bank_of(&self, addr: u64) -> u32;
    /// Total number of memory banks.
    fn num_banks(&self) -> u32;
    /// Bytes moved by one request (one burst).
    fn burst_bytes(&self) -> u64;
    /// Offers `req` to channel `ch` at DRAM cycle `now`; false when its queue is full.
    fn try_enqueue(&mut self, ch: usize, req: DramRequest, now: u64) -> bool;
    /// Earliest DRAM cycle at which the model has work to do, if any.
    fn next_event(&self) -> Option<u64>;
    /// Simulates up to and including DRAM cycle `t`, appending every request whose
    /// completion time became known (its `done` may be later than `t`).
    fn advance_to(&mut self, t: u64, out: &mut Vec<DramDone>);
    /// Bank-level parallelism over the run (DESIGN.md definition, DRAM cycles): mean
    /// and per-epoch series. Call once, after the run.
    fn blp_summary(&mut self) -> ParallelismSummary;
    /// Row-buffer and controller statistics as JSON (merged into the run's stats).
    fn stats_json(&mut self) -> serde_json::Value;
    /// No further request will come: drain buffered writes (default: nothing to do).
    fn finish_input(&mut self) {}
    /// Row-buffer hits, misses (closed bank) and conflicts so far.
    fn row_counts(&mut self) -> (u64, u64, u64);
    /// Address re-targeted to global bank `bank`, keeping row and column (BLP Ideal).
    fn retarget(&self, addr: u64, bank: u32) -> u64;
    /// Fewest DRAM cycles between the cycle at which the model reports a request's
    /// completion and the completion itself, for requests the DRAM serves (0:
    /// unknown). The memory side delivers every completion at least this long after
    /// the visit that reported it (`crate::dram_side`), which lets the DRAM run on
    /// its own thread.
    fn notice_cycles(&self) -> u64 {
        0
    }
    /// Functional warming (sampled simulation, [`crate::sample`]): the row
    /// buffer of `addr`'s bank holds `addr`'s row afterwards, as if it had been
    /// accessed, when the row policy keeps rows open and the bank has nothing
    /// queued (default: no row buffers to warm).
    fn warm_row(&mut self, _addr: u64) {}
    /// The address functions, as a copy another thread may use while this backend
    /// runs elsewhere (`None`: the backend cannot run on a thread of its own).
    fn addressing(&self) -> Option<Arc<dyn DramAddressing>> {
        None
    }
}

/// The pure address functions of a [`DramBackend`] (same results as its methods).
pub trait DramAddressing: Send + Sync {
    /// Channel of a byte address.
    fn channel_of(&self, addr: u64) -> usize;
    /// Global memory bank of a byte address.
    fn bank_of(&self, addr: u64) -> u32;
}

/// Simulator-side oracle applied on the memory side (see `crate::oracle`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemOracle {
    /// Send each LLC miss to the memory bank with the fewest outstanding requests.
    pub spread_memory_banks: bool,
    /// Serve each L1 miss's timing at the least-busy LLC bank.
    pub spread_llc_banks: bool,
    /// Granularity of the memory-bank spreading (`crate::oracle::PageSpreader`).
    pub spread_page_bytes: u64,
}

/// Parameters of the memory side.
#[derive(Clone, Debug)]
pub struct SystemParams {
    /// Number of requesters.
    pub requesters: u32,
    /// Mesh node of each requester.
    pub requester_nodes: Vec<NodeId>,
    /// The mesh.
    pub mesh: Mesh,
    /// NoC timing.
    pub noc: NocParams,
    /// Geometry of one LLC bank.
    pub llc_bank: CacheGeometry,
    /// Mesh node of each LLC bank.
    pub llc_nodes: Vec<NodeId>,
    /// LLC bank access latency (core cycles).
    pub llc_latency: u64,
    /// Cycles between two accesses starting at one bank port.
    pub llc_port_cycles: u64,
    /// MSHRs per LLC bank.
    pub llc_mshrs: u32,
    /// Mesh node of each memory controller, by channel.
    pub mc_nodes: Vec<NodeId>,
    /// Stream prefetcher, if on.
    pub prefetch: Option<PrefetchParams>,
    /// Directory coherence on/off.
    pub coherence: bool,
    /// Outstanding requests a requester may have (back-pressure).
    pub max_outstanding: u32,
    /// Core/DRAM clock ratio.
    pub clocks: ClockRatio,
    /// Statistics epoch and §5.4 window, core cycles.
    pub epoch: u64,
    /// Memory-side oracle.
    pub oracle: MemOracle,
}

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

const NO_OWNER: u16 = u16::MAX;

/// One LLC bank (fields in access order: port, tags, MSHRs, then the rest).
#[repr(C)]
struct LlcBank {
    port_free: u64,
    array: CacheArray,
    mshr: MshrFile,
    waiting: VecDeque<u32>,
    sharers: Vec<u64>,
    owner: Vec<u16>,
}

/// Aggregated memory-side statistics.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct SystemStats {
    /// Demand requests (L1 misses) served.
    pub demand_requests: u64,
    /// Demand requests that hit in the LLC.
    pub llc_hits: u64,
    /// Demand requests that missed in the LLC (including merged ones).
    pub llc_misses: u64,
    /// Demand misses merged into an in-flight LLC MSHR.
    pub llc_mshr_merges: u64,
    /// `llc_hits / demand_requests`.
    pub llc_hit_rate: f64,
    /// Private-cache write-backs received.
    pub writebacks_from_private: u64,
    /// Dirty LLC lines written back to DRAM.
    pub llc_writebacks: u64,
    /// Prefetches generated by the stream prefetchers.
    pub prefetches_issued: u64,
    /// Prefetches that fetched a line from DRAM.
    pub prefetches_filled: u64,
    /// Prefetched lines later hit by a demand request.
    pub prefetches_useful: u64,
    /// Invalidations sent by the directory.
    pub invalidations: u64,
    /// DRAM requests (bursts) completed.
    pub dram_requests: u64,
    /// Mean demand latency from issue to data at the requester (core cycles).
    pub avg_latency: f64,
    /// Mean network part of it.
    pub avg_network_latency: f64,
    /// Mean LLC part (bank queueing, access, MSHR wait).
    pub avg_llc_latency: f64,
    /// Mean DRAM part (MC queueing and DRAM service).
    pub avg_dram_latency: f64,
    /// Mean latency of demand requests that missed in the LLC.
    pub avg_miss_latency: f64,
    /// MLP/BLP: memory banks serving requests (all DRAM requests), from the DRAM model;
    /// its epochs are DRAM-clock epochs.
    pub mlp: ParallelismSummary,
    /// CLP: LLC banks serving L1 misses.
    pub clp: ParallelismSummary,
    /// Intra-/inter-core MLP per window (memory banks of LLC misses).
    pub mlp_windows: WindowSummary,
    /// Intra-/inter-core CLP per window (LLC banks of L1 misses).
    pub clp_windows: WindowSummary,
    /// NoC statistics.
    pub noc: NocStats,
}

/// Where the DRAM side runs.
enum DramHost<D> {
    /// On the memory side's thread.
    Local(DramSide<D>),
    /// On its own thread, with a copy of the address functions.
    Remote(Remote<D>, Arc<dyn DramAddressing>),
    /// Briefly, while moving between the two.
    Moving,
}

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
    clp: ParallelismMeter,
    mlp_win: WindowMeter,
    clp_win: WindowMeter,
    llc_shift: u32,
    st: Counters,
    issued: u64,
    completed: u64,
}

#[derive(Default, Clone, Debug)]
struct Counters {
    demand: u64,
    hits: u64,
    misses: u64,
    merges: u64,
    wb_private: u64,
    wb_llc: u64,
    pf_issued: u64,
    pf_filled: u64,
    pf_useful: u64,
    invals: u64,
    dram_reqs: u64,
    lat: u64,
    lat_net: u64,
    lat_llc: u64,
    lat_dram: u64,
    miss_lat: u64,
    miss_n: u64,
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

    /// The parameters.
    pub fn params(&self) -> &SystemParams {
        &self.p
    }

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
    fn queue_finished(&mut self, buf: &mut Vec<Finished>) {
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
    fn collect_finished(&mut self) {
        if let DramHost::Local(s) = &mut self.dram {
            let mut buf = std::mem::take(&mut self.finished_buf);
            s.take_finished(&mut buf);
            if !buf.is_empty() {
                self.queue_finished(&mut buf);
            }
            self.finished_buf = buf;
        }
    }

    fn channel_of(&self, addr: u64) -> usize {
        match &self.dram {
            DramHost::Local(s) => s.dram().channel_of(addr),
            DramHost::Remote(_, a) => a.channel_of(addr),
            DramHost::Moving => unreachable!("DRAM side in transit"),
        }
    }

    fn bank_of(&self, addr: u64) -> u32 {
        match &self.dram {
            DramHost::Local(s) => s.dram().bank_of(addr),
            DramHost::Remote(_, a) => a.bank_of(addr),
            DramHost::Moving => unreachable!("DRAM side in transit"),
        }
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

    /// Core cycle of the local DRAM side's next visit.
    #[inline]
    fn dram_next(&self) -> Option<u64> {
        match &self.dram {
            DramHost::Local(s) => s.next(),
            _ => None,
        }
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

    /// One DRAM burst of transaction `txn` is back at its MC at core cycle `t`.
    fn dram_done(&mut self, t: u64, txn: u32) {
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

    fn bank_access(&mut self, s: u64, txn: u32) {
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

    /// Directory actions for a demand access to `slot` of bank `b` at time `t`.
    fn directory(&mut self, t: u64, b: usize, slot: usize, txn: u32) {
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
    fn invalidate_holders(&mut self, t: u64, b: usize, slot: usize, mask: u64, r: u32) -> u64 {
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

    fn post_invalidation(&mut self, at: u64, h: u32, line: u64, recall: bool) {
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

    fn clear_dir(&mut self, b: usize, slot: usize) {
        if self.p.coherence {
            self.banks[b].sharers[slot] = 0;
            self.banks[b].owner[slot] = NO_OWNER;
        }
    }

    /// Handles an LLC victim: back-invalidation (inclusive with coherence) and write-back.
    fn evict(&mut self, t: u64, b: usize, line: u64, dirty: bool, slot: usize) {
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

    fn send_to_mc(&mut self, t: u64, txn: u32) {
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
        self.schedule(arrive, EV_MC_ARRIVE, txn);
    }

    fn mc_arrive(&mut self, t: u64, txn: u32) {
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

    fn fill(&mut self, t: u64, txn: u32) {
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

    fn bank_access_retry(&mut self, t: u64, txn: u32) {
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
    fn llc_miss(&mut self, send_at: u64, b: usize, line: u64, txn: u32) {
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
    fn warm_fill(&mut self, line: u64, prefetch: bool) -> (usize, usize) {
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

    /// Statistics of a run that lasted `cycles` core cycles.
    pub fn finish(&mut self, cycles: u64) -> SystemStats {
        self.join_dram_thread();
        debug_assert!(self.is_idle(), "finish() called with work in flight");
        debug_assert_eq!(
            self.issued, self.completed,
            "requests issued but never completed"
        );
        let s = &self.st;
        let n = s.demand.max(1) as f64;
        SystemStats {
            demand_requests: s.demand,
            llc_hits: s.hits,
            llc_misses: s.misses,
            llc_mshr_merges: s.merges,
            llc_hit_rate: if s.demand == 0 {
                0.0
            } else {
                s.hits as f64 / s.demand as f64
            },
            writebacks_from_private: s.wb_private,
            llc_writebacks: s.wb_llc,
            prefetches_issued: s.pf_issued,
            prefetches_filled: s.pf_filled,
            prefetches_useful: s.pf_useful,
            invalidations: s.invals,
            dram_requests: s.dram_reqs,
            avg_latency: s.lat as f64 / n,
            avg_network_latency: s.lat_net as f64 / n,
            avg_llc_latency: s.lat_llc as f64 / n,
            avg_dram_latency: s.lat_dram as f64 / n,
            avg_miss_latency: if s.miss_n == 0 {
                0.0
            } else {
                s.miss_lat as f64 / s.miss_n as f64
            },
            mlp: self.dram_mut().blp_summary(),
            clp: self.clp.finish(),
            mlp_windows: self.mlp_win.finish(),
            clp_windows: self.clp_win.finish(),
            noc: self.net.stats(cycles),
        }
    }
}
