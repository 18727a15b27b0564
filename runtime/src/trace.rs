//! Trace recorder for trace mode: every access an instrumented program reports
//! is tagged with the *virtual core* whose slab or iteration block is running and
//! written with `weft-memsim`'s streaming binary trace writer (header `WEFTTRC`,
//! version, core count; records core/kind/size/address/gap).
//!
//! Gap accounting is per virtual core: `gap` of a record is the number of
//! non-memory instructions *that core* executed since its previous record. The
//! instrumented code reports, with each access, the non-memory instructions it
//! executed since its previous report (`weft_trace_access(.., gap)`), and may
//! report trailing work with `weft_trace_compute(n)`; both are added to the
//! pending count of the current virtual core only, so when the executor switches
//! virtual cores the instructions of one core never leak into another's gaps.
//! Barriers: [`Tracer::barrier`] writes one barrier record per virtual core
//! (carrying its pending gap). The runtime calls it where the program forks
//! and joins a parallel region (and around trace-mode inspections, which also
//! run on all cores), so the simulator makes every core wait there as the
//! native executor's fork and join do.
//!
//! Invariant: a record's core is below the header's core count.

use crate::{Result, RuntimeError};
use std::fs::File;
use std::path::Path;
use weft_memsim::trace::{AccessKind, BarrierPhase, Record, TraceWriter};

/// An open trace.
pub struct Tracer {
    writer: Option<TraceWriter<File>>,
    pending: Vec<u64>,
    cores: u32,
    records: u64,
    barriers: u64,
}

impl Tracer {
    /// Creates the trace file for `cores` virtual cores.
    pub fn create(path: &Path, cores: u32) -> Result<Tracer> {
        if cores == 0 || cores > u16::MAX as u32 + 1 {
            return Err(crate::error::invalid(format!(
                "trace core count {cores} out of range"
            )));
        }
        let f = File::create(path)?;
        let writer = TraceWriter::new(f, cores)
            .map_err(|e| RuntimeError::Io(std::io::Error::other(e.to_string())))?;
        Ok(Tracer {
            writer: Some(writer),
            pending: vec![0; cores as usize],
            cores,
            records: 0,
            barriers: 0,
        })
    }

    /// Number of virtual cores.
    pub fn cores(&self) -> u32 {
        self.cores
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Adds `n` non-memory instructions to `core`'s pending gap.
    pub fn compute(&mut self, core: u32, n: u64) {
        if let Some(p) = self.pending.get_mut(core as usize) {
            *p = p.saturating_add(n);
        }
    }

    /// Records one access of `core`; `gap` non-memory instructions preceded it.
    /// Accesses wider than 255 bytes are recorded as 255 (the record's size field
    /// is one byte). After [`Tracer::finish`] this is a no-op.
    pub fn access(&mut self, core: u32, addr: u64, size: u32, write: bool, gap: u32) -> Result<()> {
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        if core >= self.cores {
            return Err(crate::error::invalid(format!(
                "virtual core {core} not below the trace's {} cores",
                self.cores
            )));
        }
        let p = &mut self.pending[core as usize];
        let total = p.saturating_add(gap as u64);
        *p = 0;
        let rec = Record {
            core: core as u16,
            kind: if write {
                AccessKind::Write
            } else {
                AccessKind::Read
            },
            size: size.min(255) as u8,
            addr,
            gap: total.min(u32::MAX as u64) as u32,
        };
        w.write(&rec)
            .map_err(|e| RuntimeError::Io(std::io::Error::other(e.to_string())))?;
        self.records += 1;
        Ok(())
    }

    /// Records a barrier on every virtual core (module docs), tagged with
    /// `phase` ([`weft_memsim::trace::BarrierPhase`]). After [`Tracer::finish`]
    /// this is a no-op.
    pub fn barrier(&mut self, phase: BarrierPhase) -> Result<()> {
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        for (core, p) in self.pending.iter_mut().enumerate() {
            let rec = Record {
                core: core as u16,
                kind: AccessKind::Barrier,
                size: 0,
                addr: phase as u64,
                gap: (*p).min(u32::MAX as u64) as u32,
            };
            *p = 0;
            w.write(&rec)
                .map_err(|e| RuntimeError::Io(std::io::Error::other(e.to_string())))?;
        }
        self.barriers += 1;
        Ok(())
    }

    /// Barriers written so far.
    pub fn barriers(&self) -> u64 {
        self.barriers
    }

    /// Flushes and closes the file; safe to call more than once.
    pub fn finish(&mut self) -> Result<()> {
        if let Some(w) = self.writer.take() {
            let inner = w
                .finish()
                .map_err(|e| RuntimeError::Io(std::io::Error::other(e.to_string())))?;
            inner.sync_all().ok();
        }
        Ok(())
    }
}
