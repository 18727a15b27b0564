//! DRAM: memory controllers, channels, ranks, bank groups and banks with DDR4
//! command timing (dissertation §4.2, Fig. 4.1; Tables 4.2 and 5.2).
//!
//! [`DramSystem`] owns one [`controller::Controller`] per channel and routes
//! requests by the address mapping's channel field. It is a discrete-event
//! simulation in DRAM clock cycles: [`DramSystem::advance_to`] processes every
//! controller event before a cycle in global time order (so bank activity is
//! reported to the BLP tracker in order), idle cycles are skipped, and so are
//! the refreshes of idle stretches (counted in closed form).
//!
//! Usage from a cycle-driven model (the manycore):
//!
//! ```
//! use weft_memsim::config::MachineConfig;
//! use weft_memsim::dram::{DramSystem, MemRequest};
//! let cfg = MachineConfig::preset("dramsim3-ddr4-2400").unwrap();
//! let mut dram = DramSystem::new(&cfg.dram).unwrap();
//! dram.advance_to(10);
//! dram.try_enqueue(10, MemRequest { addr: 0x1000, is_write: false, source: 0, tag: 7 }).unwrap();
//! let mut done = Vec::new();
//! while done.is_empty() {
//!     let t = dram.next_event().unwrap();
//!     dram.advance_to(t + 1);
//!     dram.drain_completions(t, &mut done);
//! }
//! // staged into its bank queue at 10 (DRAMsim3's one-cycle hop), bank closed:
//! // ACT at 11, RD at 11 + tRCD, data until RD + tCL + tBL
//! assert_eq!(done[0].done, 11 + 17 + 17 + 4);
//! ```
//!
//! GDDR5 and HBM2 (`dram.standard`, the GPU presets of `crate::gpu::config`) run
//! on this DDR engine and controller; what differs from DDR4 is configuration, not
//! code: one bank group (tCCD_L = tCCD_S, tRRD_L = tRRD_S, as GPGPU-Sim's
//! `nbkgrp = 1`), four data transfers per command clock for GDDR5 (`tBL` = burst
//! length / 4, where DDR4 has / 2), a tFAW that never binds, and no refresh
//! (GPGPU-Sim models none). `gtx480-ipaws` carries iPAWS Table 1's timing (tCL =
//! tRP = tRCD = 12, tRAS = 28, tRC = 40, tRRD = 6 at 924 MHz) with GPGPU-Sim's
//! CCD = 2, WL = 4, CDLR (= tWTR) = 5, WR = 12; `memsim/tests/all/gpu.rs` checks a
//! closed-bank read (tRCD + tCL + tBL) and the row hit after it (tCCD).
//!
//! What is modelled and what is not: see [`controller`] (queues, draining,
//! refresh, scheduling), [`channel`], [`rank`] and [`bank`] (timing rules).
//! Not modelled: power, power-down and self-refresh, per-bank refresh, data-bus
//! ODT/preamble subtleties beyond tRTRS, command/address parity, and ECC.

pub mod bank;
pub mod channel;
pub mod controller;
pub mod rank;
pub mod reference;
pub mod scheduler;

use crate::addrmap::AddressMapping;
use crate::config::{ConfigError, DramConfig};
use crate::stats::{DramStats, ParallelismTracker};

pub use channel::CommandKind;
pub use controller::Controller;
pub use scheduler::{Candidate, Fcfs, FrFcfs, MemScheduler, QueuedRequest};

/// Timing parameters in DRAM cycles (from [`crate::config::DramTimings`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Timing {
    pub cl: u64,
    pub cwl: u64,
    pub rcd: u64,
    pub rp: u64,
    pub ras: u64,
    pub bl: u64,
    pub ccd_s: u64,
    pub ccd_l: u64,
    pub rrd_s: u64,
    pub rrd_l: u64,
    pub faw: u64,
    pub wr: u64,
    pub wtr_s: u64,
    pub wtr_l: u64,
    pub rtp: u64,
    pub rtrs: u64,
    pub refi: u64,
    pub rfc: u64,
}

impl Timing {
    /// From a DRAM config.
    pub fn from_config(c: &DramConfig) -> Self {
        let t = &c.timing;
        Timing {
            cl: t.tCL as u64,
            cwl: t.tCWL as u64,
            rcd: t.tRCD as u64,
            rp: t.tRP as u64,
            ras: t.tRAS as u64,
            bl: t.tBL as u64,
            ccd_s: t.tCCD_S as u64,
            ccd_l: t.tCCD_L as u64,
            rrd_s: t.tRRD_S as u64,
            rrd_l: t.tRRD_L as u64,
            faw: t.tFAW as u64,
            wr: t.tWR as u64,
            wtr_s: t.tWTR_S as u64,
            wtr_l: t.tWTR_L as u64,
            rtp: t.tRTP as u64,
            rtrs: t.tRTRS as u64,
            refi: t.tREFI as u64,
            rfc: t.tRFC as u64,
        }
    }

    /// RD to WR, same rank: tCL + tBL − tCWL + tRTRS (bus turnaround).
    pub fn read_to_write(&self) -> u64 {
        (self.cl + self.bl + self.rtrs).saturating_sub(self.cwl)
    }
}

/// A request offered to the DRAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemRequest {
    /// Byte address (the request moves the burst containing it).
    pub addr: u64,
    /// True for writes.
    pub is_write: bool,
    /// Source (core/thread) id, for schedulers that care.
    pub source: u32,
    /// Caller's tag, returned in the completion.
    pub tag: u64,
}

/// A finished request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Completion {
    /// The request's tag.
    pub tag: u64,
    /// The request's source.
    pub source: u32,
    /// The request's address.
    pub addr: u64,
    /// True for writes.
    pub is_write: bool,
    /// Cycle the request was accepted.
    pub arrival: u64,
    /// Cycle its data burst ended (reads: data returned; writes: data written).
    pub done: u64,
}

/// The controller's queue for this kind of request is full (back-pressure).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("memory controller queue full")]
pub struct QueueFull;

/// All channels of a machine.
pub struct DramSystem {
    cfg: DramConfig,
    mapping: AddressMapping,
    ctrls: Vec<Controller>,
    blp: ParallelismTracker,
    /// Events before this cycle have been processed.
    now: u64,
    /// Apply idle controllers' refreshes in closed form (off only to test it
    /// against stepping).
    idle_skip: bool,
    /// Shortest advance over which a controller can skip refreshes: two
    /// refresh intervals minus the first one's wait, plus its quiet step.
    skip_span: u64,
    /// Idle stretches skipped in closed form.
    idle_skips: u64,
}

impl DramSystem {
    /// Build from a DRAM config (validated here).
    pub fn new(cfg: &DramConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let mapping = cfg.mapping()?;
        let ctrls = (0..cfg.channels)
            .map(|c| Controller::new(c, cfg, mapping.clone()))
            .collect();
        Ok(DramSystem {
            cfg: cfg.clone(),
            blp: ParallelismTracker::new(mapping.num_banks() as usize, cfg.epoch_cycles),
            mapping,
            ctrls,
            now: 0,
            idle_skip: true,
            skip_span: (u64::from(cfg.timing.tREFI) / u64::from(cfg.ranks.max(1))).max(1) + 2,
            idle_skips: 0,
        })
    }

    /// The address mapping.
    pub fn mapping(&self) -> &AddressMapping {
        &self.mapping
    }

    /// The controllers.
    pub fn controllers(&self) -> &[Controller] {
        &self.ctrls
    }

    /// Mutable controllers (e.g. to install another scheduler).
    pub fn controllers_mut(&mut self) -> &mut [Controller] {
        &mut self.ctrls
    }

    /// Channel of an address.
    #[inline]
    pub fn channel_of(&self, addr: u64) -> usize {
        self.mapping.channel(addr) as usize
    }

    /// Functional warming of `addr`'s row buffer ([`Controller::warm_row`]).
    pub fn warm_row(&mut self, addr: u64) {
        let c = self.channel_of(addr);
        self.ctrls[c].warm_row(addr);
    }

    /// Whether `addr`'s controller would accept a request of this kind now.
    pub fn can_accept(&self, addr: u64, is_write: bool) -> bool {
        self.ctrls[self.channel_of(addr)].can_accept(is_write)
    }

    /// Offer a request at cycle `now` (call [`advance_to(now)`](Self::advance_to) first).
    pub fn try_enqueue(&mut self, now: u64, r: MemRequest) -> Result<(), QueueFull> {
        let c = self.channel_of(r.addr);
        self.ctrls[c].enqueue(now.max(self.now), r)
    }

    /// Process every event before cycle `t`. An idle controller's refreshes
    /// before `t` are applied in closed form (`controller::idle`), with the
    /// same result as stepping through them.
    pub fn advance_to(&mut self, t: u64) {
        loop {
            let (best, bi) = self.earliest();
            if best >= t {
                break;
            }
            if self.idle_skip && t - best >= self.skip_span && self.ctrls[bi].skip_idle_refreshes(t)
            {
                self.idle_skips += 1;
                continue;
            }
            self.ctrls[bi].step(best, &mut self.blp);
        }
        self.now = self.now.max(t);
    }

    /// Earliest next event and its controller (the first one on ties). Branch-free:
    /// which controller is next is unpredictable, and this runs once per event.
    #[inline]
    fn earliest(&self) -> (u64, usize) {
        let mut best = u64::MAX;
        let mut bi = 0usize;
        for (i, c) in self.ctrls.iter().enumerate() {
            let n = c.next_event();
            let m = ((n < best) as u64).wrapping_neg();
            best = (n & m) | (best & !m);
            bi = (i & m as usize) | (bi & !(m as usize));
        }
        (best, bi)
    }

    /// Idle stretches whose refreshes were applied in closed form so far.
    pub fn idle_stretches_skipped(&self) -> u64 {
        self.idle_skips
    }

    /// Cycle of the next event of any controller, if any (refresh included).
    pub fn next_event(&self) -> Option<u64> {
        Some(self.earliest().0).filter(|&n| n != u64::MAX)
    }

    /// Move completions with `done <= upto` into `out` (unordered).
    pub fn drain_completions(&mut self, upto: u64, out: &mut Vec<Completion>) {
        for c in &mut self.ctrls {
            c.drain_completions(upto, out);
        }
    }

    /// Requests queued in any controller.
    pub fn queued(&self) -> usize {
        self.ctrls.iter().map(|c| c.queued()).sum()
    }

    /// No request queued and no completion pending.
    pub fn is_idle(&self) -> bool {
        self.ctrls
            .iter()
            .all(|c| c.queued() == 0 && c.pending_completions() == 0)
    }

    /// No more requests will come: drain the write queues.
    pub fn finish_input(&mut self) {
        let now = self.now;
        for c in &mut self.ctrls {
            c.finish_input(now);
        }
    }

    /// Run until every queued request has been served (after [`finish_input`](Self::finish_input)).
    /// Returns the cycle of the last completion.
    pub fn run_until_drained(&mut self) -> u64 {
        while self.queued() > 0 {
            match self.next_event() {
                Some(t) => self.advance_to(t + 1),
                None => break,
            }
        }
        self.last_done()
    }

    /// Cycle of the latest completion so far.
    pub fn last_done(&self) -> u64 {
        self.ctrls
            .iter()
            .map(|c| c.stats.last_done)
            .max()
            .unwrap_or(0)
    }

    /// Statistics so far (call after the run; integrates BLP to the end of all bursts).
    pub fn stats(&mut self) -> DramStats {
        self.blp.settle();
        let cycles = self.last_done();
        let mut s = DramStats {
            requests: 0,
            reads: 0,
            writes: 0,
            cycles,
            blp: self.blp.parallelism(),
            row_hits: 0,
            row_misses: 0,
            row_conflicts: 0,
            row_hit_rate: 0.0,
            row_miss_rate: 0.0,
            row_conflict_rate: 0.0,
            avg_read_latency: 0.0,
            avg_write_latency: 0.0,
            bandwidth_gbps: 0.0,
            peak_bandwidth_gbps: self.cfg.peak_bandwidth_gbps(),
            forwarded_reads: 0,
            merged_reads: 0,
            merged_writes: 0,
            commands: Default::default(),
            bank_utilization: Vec::new(),
            read_latency_hist: crate::stats::Histogram::new(8, 512),
            write_latency_hist: crate::stats::Histogram::new(8, 512),
            epoch_cycles: self.cfg.epoch_cycles,
            blp_epochs: self.blp.epochs(),
        };
        let mut bytes = 0;
        for c in &self.ctrls {
            let x = &c.stats;
            s.reads += x.reads;
            s.writes += x.writes;
            s.row_hits += x.row_hits;
            s.row_misses += x.row_misses;
            s.row_conflicts += x.row_conflicts;
            s.forwarded_reads += x.forwarded_reads;
            s.merged_reads += x.merged_reads;
            s.merged_writes += x.merged_writes;
            s.commands.act += x.commands.act;
            s.commands.pre += x.commands.pre;
            s.commands.rd += x.commands.rd;
            s.commands.wr += x.commands.wr;
            s.commands.refresh += x.commands.refresh;
            merge_hist(&mut s.read_latency_hist, &x.read_latency);
            merge_hist(&mut s.write_latency_hist, &x.write_latency);
            bytes += x.bytes;
        }
        s.requests = s.reads + s.writes;
        let served = (s.row_hits + s.row_misses + s.row_conflicts) as f64;
        if served > 0.0 {
            s.row_hit_rate = s.row_hits as f64 / served;
            s.row_miss_rate = s.row_misses as f64 / served;
            s.row_conflict_rate = s.row_conflicts as f64 / served;
        }
        s.avg_read_latency = s.read_latency_hist.mean();
        s.avg_write_latency = s.write_latency_hist.mean();
        if cycles > 0 {
            s.bandwidth_gbps = bytes as f64 / (cycles as f64 * self.cfg.tck_ns);
            s.bank_utilization = self
                .blp
                .unit_busy()
                .iter()
                .map(|&b| b as f64 / cycles as f64)
                .collect();
        } else {
            s.bank_utilization = vec![0.0; self.mapping.num_banks() as usize];
        }
        s.read_latency_hist = s.read_latency_hist.trimmed();
        s.write_latency_hist = s.write_latency_hist.trimmed();
        s
    }
}

fn merge_hist(into: &mut crate::stats::Histogram, h: &crate::stats::Histogram) {
    for (a, b) in into.bins.iter_mut().zip(&h.bins) {
        *a += b;
    }
    into.overflow += h.overflow;
    into.count += h.count;
    into.sum += h.sum;
    into.max = into.max.max(h.max);
}

/// How a timed trace is offered to the DRAM (the replay rule of DRAMsim3 and
/// Ramulator): requests enter in order, at most one per cycle, never before
/// their cycle; one refused by a full queue is retried every cycle and holds
/// back the rest.
pub fn replay<I, E>(dram: &mut DramSystem, requests: I) -> Result<u64, E>
where
    I: IntoIterator<Item = Result<crate::trace::TimedRequest, E>>,
{
    let mut t = 0u64;
    let mut first = true;
    let mut sink = Vec::new();
    for (n, r) in requests.into_iter().enumerate() {
        let r = r?;
        t = if first { r.cycle } else { r.cycle.max(t + 1) };
        first = false;
        let req = MemRequest {
            addr: r.addr,
            is_write: r.kind.is_write(),
            source: 0,
            tag: n as u64,
        };
        loop {
            dram.advance_to(t);
            match dram.try_enqueue(t, req) {
                Ok(()) => break,
                Err(QueueFull) => {
                    // Nothing can free the queue before the controller's next event.
                    let c = dram.channel_of(req.addr);
                    let ne = dram.ctrls[c].next_event();
                    t = if ne == u64::MAX { t + 1 } else { ne.max(t) + 1 };
                }
            }
        }
        if n % 4096 == 0 {
            sink.clear();
            dram.drain_completions(t, &mut sink);
        }
    }
    dram.finish_input();
    dram.run_until_drained();
    sink.clear();
    dram.drain_completions(u64::MAX, &mut sink);
    Ok(dram.last_done())
}

/// Simulate a trace file on the DRAM alone and return the statistics.
///
/// The file is either the binary trace (detected by its magic; a record is
/// offered `gap` DRAM cycles after the previous one, its core is the source) or
/// the text form `<cycle> <R|W> <hex address>`. Both are streamed. Errors name
/// the file and the line (text) or record (binary).
pub fn simulate_trace_file(
    cfg: &DramConfig,
    path: &std::path::Path,
) -> Result<DramStats, crate::Error> {
    use crate::limits::MAX_TRACE_CYCLE;
    use crate::trace::{self, TimedRequest, TraceError};
    use std::io::{BufRead, BufReader};
    let name = path.display().to_string();
    let io = |error| TraceError::Io {
        source_name: name.clone(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let binary = trace::is_binary(reader.fill_buf().map_err(io)?);
    let mut dram = DramSystem::new(cfg)?;
    if binary {
        let mut cycle = 0u64;
        // Barriers (core synchronisation) mean nothing to the DRAM alone:
        // their gaps still advance the clock.
        let mut record = 0u64;
        let recs = trace::TraceReader::new(reader, name.clone())?.filter_map(|r| match r {
            Ok(r) => {
                cycle += r.gap as u64;
                record += 1;
                if cycle > MAX_TRACE_CYCLE {
                    return Some(Err(TraceError::BadRecord {
                        source_name: name.clone(),
                        record: record - 1,
                        message: format!(
                            "the gaps add up to cycle {cycle}, above the limit {MAX_TRACE_CYCLE} \
                             (2^36) of a DRAM-only trace"
                        ),
                    }));
                }
                (!r.kind.is_barrier()).then_some(Ok(TimedRequest {
                    cycle,
                    kind: r.kind,
                    addr: r.addr,
                }))
            }
            Err(e) => Some(Err(e)),
        });
        replay(&mut dram, recs)?;
    } else {
        replay(&mut dram, trace::TextTraceReader::new(reader, name.clone()))?;
    }
    Ok(dram.stats())
}
