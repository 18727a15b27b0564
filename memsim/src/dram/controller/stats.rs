//! Per-controller counters: requests by kind, row-buffer outcomes, merges and
//! forwards, commands, latency histograms and bytes, merged over the channels
//! into [`crate::stats::DramStats`].

use crate::stats::{CommandCounts, Histogram};

/// Per-controller counters (merged into [`crate::stats::DramStats`]).
#[derive(Debug, Clone)]
pub struct ControllerStats {
    /// Reads accepted.
    pub reads: u64,
    /// Writes accepted.
    pub writes: u64,
    /// Row hits.
    pub row_hits: u64,
    /// Row misses.
    pub row_misses: u64,
    /// Row conflicts.
    pub row_conflicts: u64,
    /// Reads forwarded from the write queue.
    pub forwarded_reads: u64,
    /// Reads merged with a queued read.
    pub merged_reads: u64,
    /// Writes merged with a queued write.
    pub merged_writes: u64,
    /// Commands issued.
    pub commands: CommandCounts,
    /// Read latency histogram.
    pub read_latency: Histogram,
    /// Write latency histogram.
    pub write_latency: Histogram,
    /// Bytes moved by bursts.
    pub bytes: u64,
    /// Latest completion cycle.
    pub last_done: u64,
}

impl ControllerStats {
    pub(super) fn new() -> Self {
        ControllerStats {
            reads: 0,
            writes: 0,
            row_hits: 0,
            row_misses: 0,
            row_conflicts: 0,
            forwarded_reads: 0,
            merged_reads: 0,
            merged_writes: 0,
            commands: CommandCounts::default(),
            read_latency: Histogram::new(8, 512),
            write_latency: Histogram::new(8, 512),
            bytes: 0,
            last_done: 0,
        }
    }
}
