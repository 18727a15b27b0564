//! Trace mode: the runtime's side of the per-virtual-core memory traces
//! ([`crate::trace`]) that the simulator replays (the methodology of §4.5.1
//! and §5.6.1): fork and join barriers around parallel phases, and the trace
//! calls of instrumented programs.

use super::*;
use crate::Result;
use std::sync::atomic::Ordering;
use weft_memsim::trace::BarrierPhase;

impl Runtime {
    /// Trace mode: runs `f`, a phase that runs on all virtual cores (a region's
    /// executor, an inspection), between two barriers (fork and join), unless
    /// it is nested in another such phase. The barriers' errors come after `f`'s.
    pub(super) fn traced_phase<T>(
        &self,
        inspection: bool,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let Some(t) = &self.tracer else {
            return f();
        };
        let (start, end) = match inspection {
            true => (BarrierPhase::InspectStart, BarrierPhase::InspectEnd),
            false => (BarrierPhase::RegionStart, BarrierPhase::RegionEnd),
        };
        let outer = self.trace_depth.fetch_add(1, Ordering::Relaxed) == 0;
        let fork = if outer {
            lock(t).barrier(start)
        } else {
            Ok(())
        };
        let r = f();
        let join = if outer { lock(t).barrier(end) } else { Ok(()) };
        self.trace_depth.fetch_sub(1, Ordering::Relaxed);
        let v = r?;
        fork?;
        join?;
        Ok(v)
    }

    /// Trace mode: records an access of the current virtual core (no-op otherwise).
    pub fn trace_access(&self, addr: u64, size: u32, write: bool, gap: u32) -> Result<()> {
        match &self.tracer {
            Some(t) => lock(t).access(
                self.cur_core.load(Ordering::Relaxed),
                addr,
                size,
                write,
                gap,
            ),
            None => Ok(()),
        }
    }

    /// Trace mode: `n` reads of `size` bytes from `addr` on, `gap` apart
    /// ([`crate::abi::weft_trace_reads`]).
    pub fn trace_reads(&self, addr: u64, n: u64, size: u32, gap: u32) -> Result<()> {
        let Some(t) = &self.tracer else {
            return Ok(());
        };
        let mut t = lock(t);
        let core = self.cur_core.load(Ordering::Relaxed);
        for j in 0..n {
            t.access(
                core,
                addr.wrapping_add(j.wrapping_mul(size as u64)),
                size,
                false,
                gap,
            )?;
        }
        Ok(())
    }

    /// Trace mode: adds `n` non-memory instructions to the current virtual core.
    pub fn trace_compute(&self, n: u32) {
        if let Some(t) = &self.tracer {
            lock(t).compute(self.cur_core.load(Ordering::Relaxed), n as u64);
        }
    }

    /// Flushes and closes the trace (idempotent).
    pub fn trace_finish(&self) -> Result<()> {
        match &self.tracer {
            Some(t) => lock(t).finish(),
            None => Ok(()),
        }
    }
}
