//! Sampled simulation (issue #36 part 3): SMARTS-style systematic sampling of
//! a manycore trace, so that paper-scale inputs (Table 4.1, 0.2-1.4 GB) fit in
//! the evaluation (dissertation §4.3 simulates its timing loops in full; this
//! is our substitute, `docs/sampling.md`).
//!
//! The trace is cut at its own barriers into *intervals* (parallel regions,
//! serial parts, inspections). Inside an interval every core's stream is
//! divided into *periods* of [`SampleParams::period`] records of that core:
//! the first [`SampleParams::detailed`] records of a period run on the detailed
//! model, the rest are applied by **functional warming** (private caches, LLC
//! with its directory, the stream prefetchers and the DRAM row buffers are
//! updated; no time passes). A *sampling barrier* ([`SAMPLE_TAG`]) closes each
//! detailed part: when every core has reached it or a trace barrier,
//! [`Manycore::run_driven`](crate::manycore::Manycore::run_driven) lets this
//! source warm the rest of each waiting core's period and releases only those
//! cores; the trace barrier is released once no core is inside the interval.
//! So the detailed *segments* are systematically spaced, every interval starts
//! with one, and an interval no longer than one detailed part per core is
//! simulated in full.
//!
//! The estimate ([`estimate`]) scales each segment's cycles by the records its
//! period holds over the records it simulated (per core, the longest), adds the
//! segments in full detail unchanged, and gives a 95% confidence interval from
//! the variation of the cycles-per-record ratio between the sampled segments of
//! the same interval. Inspection and executor phases are separate intervals
//! (the runtime tags their barriers, [`BarrierPhase`]), so each phase is
//! extrapolated from its own segments and the inspector's cost enters at its
//! real count. BLP is extrapolated by weighting each DRAM statistics epoch with
//! the scale of the segments it overlaps, up to each segment's first arrival
//! at its closing barrier (the drain after it counts once).
//!
//! Limits (measured in `docs/sampling.md`): a sampling barrier makes the cores
//! wait for the slowest at the end of each detailed part, and each part starts
//! with empty reorder buffers and MSHRs; warming does not send
//! back-invalidations to other cores' private copies.

pub mod estimate;

use crate::core::{Core, Op, OpKind, RecordSource};
use crate::manycore::SimError;
use crate::system::{DramBackend, MemorySystem};
use crate::trace::BarrierPhase;
use estimate::Estimator;

/// Phase tag of the sampling barriers the sampled source inserts (outside the
/// trace format's tags, [`BarrierPhase`]).
pub const SAMPLE_TAG: u64 = 0x5341_4d50_4c45;

/// Sampling parameters: records per core.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SampleParams {
    /// Records of a core in one sampling period.
    pub period: u64,
    /// Records of a core simulated in detail at the start of each period.
    pub detailed: u64,
}

impl SampleParams {
    /// Parses `PERIOD:DETAILED` (records per core, `1 <= DETAILED <= PERIOD`).
    pub fn parse(s: &str) -> Result<Self, String> {
        let bad = || {
            format!("bad sampling spec `{s}`: expected PERIOD:DETAILED (records per core, 1 <= DETAILED <= PERIOD), e.g. 20000:2000")
        };
        let (a, b) = s.split_once(':').ok_or_else(bad)?;
        let period: u64 = a.trim().parse().map_err(|_| bad())?;
        let detailed: u64 = b.trim().parse().map_err(|_| bad())?;
        if detailed == 0 || detailed > period {
            return Err(bad());
        }
        Ok(SampleParams { period, detailed })
    }

    /// Fraction of the records simulated in detail (at most).
    pub fn fraction(&self) -> f64 {
        self.detailed as f64 / self.period as f64
    }
}

/// How a barrier was released.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// The cores at a sampling barrier (the others wait at a trace barrier).
    Sample,
    /// A barrier of the trace, with its phase tag.
    Trace(BarrierPhase),
}

/// A record source that is told of barrier releases and may update the
/// machine then ([`crate::manycore::Manycore::run_driven`]).
pub trait Driver<D: DramBackend>: RecordSource {
    /// The barrier is released at cycle `r` (before the cores go on).
    fn released(
        &mut self,
        r: u64,
        how: Release,
        cores: &mut [Core],
        mem: &mut MemorySystem<D>,
    ) -> Result<(), SimError>;
}

/// A plain source as a [`Driver`] that does nothing at releases.
pub struct Plain<'a>(pub &'a mut dyn RecordSource);

impl RecordSource for Plain<'_> {
    fn next_op(&mut self, core: u32) -> Result<Option<Op>, SimError> {
        self.0.next_op(core)
    }
}

impl<D: DramBackend> Driver<D> for Plain<'_> {
    fn released(
        &mut self,
        _: u64,
        _: Release,
        _: &mut [Core],
        _: &mut MemorySystem<D>,
    ) -> Result<(), SimError> {
        Ok(())
    }
}

/// Totals of the functional warming.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Warmed {
    /// Records applied by functional warming.
    pub records: u64,
    /// Their instructions (records plus gaps).
    pub instructions: u64,
    /// Of them, misses of every private cache (seen by the memory side).
    pub private_misses: u64,
}

/// The sampling source over a per-core source `S` (module docs).
pub struct SampledSource<S: RecordSource> {
    inner: S,
    p: SampleParams,
    /// Records handed to each core since its period began.
    pos: Vec<u64>,
    /// Records handed to each core in the current segment.
    seg: Vec<u64>,
    /// Handed a sampling barrier, not yet released.
    waiting: Vec<bool>,
    /// A trace barrier met while warming, handed out next.
    pending: Vec<Option<Op>>,
    warmed_now: Vec<u64>,
    arrival: Vec<u64>,
    wbs: Vec<u64>,
    warmed: Warmed,
    est: Estimator,
}

impl<S: RecordSource> SampledSource<S> {
    /// Samples `inner` for a machine of `cores` cores.
    pub fn new(inner: S, cores: u32, p: SampleParams) -> Self {
        let n = cores as usize;
        SampledSource {
            inner,
            p,
            pos: vec![0; n],
            seg: vec![0; n],
            waiting: vec![false; n],
            pending: vec![None; n],
            warmed_now: vec![0; n],
            arrival: Vec::with_capacity(n),
            wbs: Vec::new(),
            warmed: Warmed::default(),
            est: Estimator::default(),
        }
    }

    /// The parameters.
    pub fn params(&self) -> SampleParams {
        self.p
    }

    /// Warming totals so far.
    pub fn warmed(&self) -> Warmed {
        self.warmed
    }

    /// The segments measured so far.
    pub fn estimator(&self) -> &Estimator {
        &self.est
    }

    /// Closes the last segment at `end` (the run's cycles; core `c` finished
    /// at `finish[c]`) and returns the estimator.
    pub fn finish(mut self, end: u64, finish: &[u64]) -> Estimator {
        self.est.finish(end, finish, &self.seg);
        self.est
    }

    fn warm_core<D: DramBackend>(
        &mut self,
        c: usize,
        core: &mut Core,
        mem: &mut MemorySystem<D>,
    ) -> Result<u64, SimError> {
        let budget = self.p.period - self.p.detailed;
        let mut n = 0;
        while n < budget {
            let op = match self.pending[c].take() {
                Some(op) => Some(op),
                None => self.inner.next_op(c as u32)?,
            };
            let Some(op) = op else { break };
            if op.kind == OpKind::Barrier {
                self.pending[c] = Some(op);
                break;
            }
            n += 1;
            self.warmed.records += 1;
            self.warmed.instructions += u64::from(op.gap) + 1;
            let addr = op.addr;
            if core.warm(op, &mut self.wbs, |w| mem.warm_access(c as u32, addr, w)) {
                self.warmed.private_misses += 1;
            }
            for a in self.wbs.drain(..) {
                mem.warm_writeback(c as u32, a);
            }
        }
        Ok(n)
    }
}

impl<S: RecordSource> RecordSource for SampledSource<S> {
    fn next_op(&mut self, core: u32) -> Result<Option<Op>, SimError> {
        let c = core as usize;
        if self.p.period > self.p.detailed && self.pos[c] >= self.p.detailed && !self.waiting[c] {
            self.waiting[c] = true;
            return Ok(Some(Op {
                gap: 0,
                kind: OpKind::Barrier,
                addr: SAMPLE_TAG,
            }));
        }
        let op = match self.pending[c].take() {
            Some(op) => Some(op),
            None => self.inner.next_op(core)?,
        };
        if let Some(op) = op {
            if op.kind == OpKind::Barrier {
                self.pos[c] = 0;
            } else {
                self.pos[c] += 1;
                self.seg[c] += 1;
            }
        }
        Ok(op)
    }
}

impl<S: RecordSource, D: DramBackend> Driver<D> for SampledSource<S> {
    fn released(
        &mut self,
        r: u64,
        how: Release,
        cores: &mut [Core],
        mem: &mut MemorySystem<D>,
    ) -> Result<(), SimError> {
        self.arrival.clear();
        self.arrival.extend(
            cores
                .iter()
                .map(|c| c.at_barrier().unwrap_or(c.stats().cycles)),
        );
        self.warmed_now.fill(0);
        if how == Release::Sample {
            for (c, core) in cores.iter_mut().enumerate() {
                if self.waiting[c] {
                    self.warmed_now[c] = self.warm_core(c, core, mem)?;
                    self.waiting[c] = false;
                    self.pos[c] = 0;
                }
            }
        }
        let phase = match how {
            Release::Sample => None,
            Release::Trace(p) => Some(p),
        };
        self.est
            .close(r, &self.arrival, &self.seg, &self.warmed_now, phase);
        self.seg.fill(0);
        Ok(())
    }
}
