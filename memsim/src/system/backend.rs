//! The interface between the memory controllers and a DRAM model: the exact core/DRAM
//! clock ratio, the requests and completions the DRAM sees, and the [`DramBackend`]
//! trait the DDR4 model of [`crate::dram`] (and simpler test models) implement.

use crate::metrics::ParallelismSummary;
use std::sync::Arc;

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
