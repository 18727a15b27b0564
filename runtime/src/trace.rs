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
//!
//! After `fork()`, the tracer belongs to the parent: in the child (a
//! `pthread_atfork` handler counts forks) every call is a no-op and the
//! buffered records are dropped unwritten, so a child that exits cannot
//! flush the parent's records into the parent's file.
//!
//! Failures are sticky: once writing the file fails (a full disk, `/dev/full`),
//! every later call returns the same error, naming the file and the cause
//! (`writing trace /dev/full: No space left on device`), so a trace with a
//! hole in it is never completed as if nothing happened. Records are never
//! truncated: an access wider than a record's one-byte size field (255 bytes)
//! is an error (the C ABI's `weft_trace_access` rejects it before).

use crate::{Result, RuntimeError};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;
use weft_memsim::trace::{AccessKind, BarrierPhase, Record, TraceError, TraceWriter};

/// An open trace.
pub struct Tracer {
    writer: Option<TraceWriter<File>>,
    /// The trace file (named in error messages).
    path: PathBuf,
    /// The first write error (module docs: failures are sticky).
    failed: Option<String>,
    /// [`FORKS`] when the tracer was made: it differs in a forked child.
    forks: u64,
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
        watch_forks();
        let f = File::create(path).map_err(|e| io_error(path, "creating", &e))?;
        let writer =
            TraceWriter::new(f, cores).map_err(|e| io_error(path, "writing", &cause(&e)))?;
        Ok(Tracer {
            writer: Some(writer),
            path: path.to_path_buf(),
            failed: None,
            forks: FORKS.load(Ordering::Relaxed),
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
        if self.forked() {
            return;
        }
        if let Some(p) = self.pending.get_mut(core as usize) {
            *p = p.saturating_add(n);
        }
    }

    /// Whether this process is a forked child of the tracer's (module docs);
    /// then the buffered records are dropped unwritten and the tracer goes
    /// idle.
    fn forked(&mut self) -> bool {
        if FORKS.load(Ordering::Relaxed) == self.forks {
            return false;
        }
        if let Some(w) = self.writer.take() {
            // Not dropped: dropping flushes the parent's records.
            std::mem::forget(w);
        }
        true
    }

    /// The sticky error (module docs), if writing has failed.
    fn check(&self) -> Result<()> {
        match &self.failed {
            Some(m) => Err(RuntimeError::Io(std::io::Error::other(m.clone()))),
            None => Ok(()),
        }
    }

    /// Keeps the first write error (module docs) and returns it.
    fn fail(&mut self, e: TraceError) -> RuntimeError {
        let err = io_error(&self.path, "writing", &cause(&e));
        self.failed = Some(err.to_string().trim_start_matches("i/o: ").to_string());
        err
    }

    /// Records one access of `core`; `gap` non-memory instructions preceded it.
    /// Sizes above 255 bytes (the record's size field is one byte) are an
    /// error, not truncated. After [`Tracer::finish`] this is a no-op.
    pub fn access(&mut self, core: u32, addr: u64, size: u32, write: bool, gap: u32) -> Result<()> {
        if self.forked() {
            return Ok(());
        }
        self.check()?;
        if size > u8::MAX as u32 {
            return Err(crate::error::invalid(format!(
                "access of {size} bytes: a trace record holds at most 255"
            )));
        }
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
            size: size as u8,
            addr,
            gap: total.min(u32::MAX as u64) as u32,
        };
        if let Err(e) = w.write(&rec) {
            return Err(self.fail(e));
        }
        self.records += 1;
        Ok(())
    }

    /// Records a barrier on every virtual core (module docs), tagged with
    /// `phase` ([`weft_memsim::trace::BarrierPhase`]). After [`Tracer::finish`]
    /// this is a no-op.
    pub fn barrier(&mut self, phase: BarrierPhase) -> Result<()> {
        if self.forked() {
            return Ok(());
        }
        self.check()?;
        let Some(w) = self.writer.as_mut() else {
            return Ok(());
        };
        let mut res = Ok(());
        for (core, p) in self.pending.iter_mut().enumerate() {
            let rec = Record {
                core: core as u16,
                kind: AccessKind::Barrier,
                size: 0,
                addr: phase as u64,
                gap: (*p).min(u32::MAX as u64) as u32,
            };
            *p = 0;
            if let Err(e) = w.write(&rec) {
                res = Err(e);
                break;
            }
        }
        if let Err(e) = res {
            return Err(self.fail(e));
        }
        self.barriers += 1;
        Ok(())
    }

    /// Barriers written so far.
    pub fn barriers(&self) -> u64 {
        self.barriers
    }

    /// Flushes and closes the file; safe to call more than once (a failed
    /// trace keeps failing).
    pub fn finish(&mut self) -> Result<()> {
        if self.forked() {
            return Ok(());
        }
        self.check()?;
        if let Some(w) = self.writer.take() {
            match w.finish() {
                Ok(inner) => inner.sync_all().ok(),
                Err(e) => return Err(self.fail(e)),
            };
        }
        Ok(())
    }
}

/// Forks of this process so far, counted in the child ([`watch_forks`]).
static FORKS: AtomicU64 = AtomicU64::new(0);

extern "C" {
    fn pthread_atfork(
        prepare: Option<extern "C" fn()>,
        parent: Option<extern "C" fn()>,
        child: Option<extern "C" fn()>,
    ) -> std::ffi::c_int;
}

extern "C" fn forked_child() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

/// Registers the fork counter (once per process).
fn watch_forks() {
    static ONCE: Once = Once::new();
    // SAFETY: registers a plain extern "C" function that only touches an atomic.
    ONCE.call_once(|| unsafe {
        pthread_atfork(None, None, Some(forked_child));
    });
}

/// What went wrong in `e`, without the writer's own name for the file.
fn cause(e: &TraceError) -> String {
    match e {
        TraceError::Io { error, .. } => error.to_string(),
        e => e.to_string(),
    }
}

/// The I/O error of `doing` (creating, writing) the trace at `path`.
fn io_error(path: &Path, doing: &str, e: &dyn std::fmt::Display) -> RuntimeError {
    RuntimeError::Io(std::io::Error::other(format!(
        "{doing} trace {}: {e}",
        path.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write error names the file and the cause and stays: later calls
    /// fail the same way (a trace with a hole is never completed).
    #[test]
    fn write_errors_name_the_file_and_are_sticky() {
        let mut t = Tracer::create(Path::new("/dev/full"), 2).unwrap();
        let mut err = None;
        for i in 0..100_000u64 {
            if let Err(e) = t.access((i % 2) as u32, i * 8, 8, false, 0) {
                err = Some(e.to_string());
                break;
            }
        }
        let e = err.expect("/dev/full fails once the buffer is written");
        assert!(e.contains("writing trace /dev/full: No space left"), "{e}");
        for r in [
            t.access(0, 0, 8, false, 0),
            t.barrier(BarrierPhase::RegionEnd),
            t.finish(),
        ] {
            assert_eq!(r.unwrap_err().to_string(), e);
        }
    }

    /// Sizes a record cannot hold are errors, not truncated to 255.
    #[test]
    fn oversized_accesses_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let mut t = Tracer::create(&dir.path().join("t"), 1).unwrap();
        t.access(0, 0, 255, false, 0).unwrap();
        let e = t.access(0, 0, 256, false, 0).unwrap_err().to_string();
        assert!(e.contains("256 bytes"), "{e}");
        t.finish().unwrap();
        assert_eq!(t.records(), 1);
    }
}
