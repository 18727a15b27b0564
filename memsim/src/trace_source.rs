//! Feeds the cores from one interleaved trace stream (binary or per-core text).
//!
//! A trace file interleaves the records of all cores. [`DemuxSource`] reads it once,
//! front to back, and hands each core its own records in file order: when a core asks
//! for its next record and has none buffered, records of other cores read on the way
//! are queued for them. Memory use is bounded by how far the file's order is from the
//! simulated order: a trace recorded in time order (as the runtime writes it) keeps
//! the queues short; a trace sorted by core buffers the earlier cores' records.
//! A record naming a core the machine lacks is an error, not a wrap-around. A record
//! is one access at `addr` (its `size` is not split across lines). The sum of all
//! gaps is bounded by [`MAX_TRACE_INSTRUCTIONS`] (`docs/limits.md`).

use crate::core::{Op, OpKind, RecordSource};
use crate::limits::MAX_TRACE_INSTRUCTIONS;
use crate::manycore::SimError;
use crate::trace::{AccessKind, Record, TraceError};
use std::collections::VecDeque;

/// Per-core view of an interleaved record stream.
pub struct DemuxSource<I: Iterator<Item = Result<Record, TraceError>>> {
    inner: I,
    queues: Vec<VecDeque<Op>>,
    cores: u32,
    ended: bool,
    read: u64,
    gaps: u64,
}

impl<I: Iterator<Item = Result<Record, TraceError>>> DemuxSource<I> {
    /// Demultiplexes `inner` for a machine of `cores` cores.
    pub fn new(inner: I, cores: u32) -> Self {
        DemuxSource {
            inner,
            queues: vec![VecDeque::new(); cores as usize],
            cores,
            ended: false,
            read: 0,
            gaps: 0,
        }
    }

    /// Records read from the stream so far.
    pub fn records_read(&self) -> u64 {
        self.read
    }
}

fn op_of(r: &Record) -> Op {
    Op {
        gap: r.gap,
        kind: match r.kind {
            AccessKind::Read => OpKind::Read,
            AccessKind::Write => OpKind::Write,
            AccessKind::Barrier => OpKind::Barrier,
        },
        addr: r.addr,
    }
}

impl<I: Iterator<Item = Result<Record, TraceError>>> RecordSource for DemuxSource<I> {
    fn next_op(&mut self, core: u32) -> Result<Option<Op>, SimError> {
        if let Some(op) = self
            .queues
            .get_mut(core as usize)
            .and_then(|q| q.pop_front())
        {
            return Ok(Some(op));
        }
        while !self.ended {
            match self.inner.next() {
                None => self.ended = true,
                Some(Err(e)) => return Err(SimError::Trace(e.to_string())),
                Some(Ok(r)) => {
                    self.gaps += u64::from(r.gap);
                    if self.gaps > MAX_TRACE_INSTRUCTIONS {
                        return Err(SimError::TooLong {
                            record: self.read,
                            limit: MAX_TRACE_INSTRUCTIONS,
                        });
                    }
                    self.read += 1;
                    let c = r.core as u32;
                    if c >= self.cores {
                        return Err(SimError::TooManyCores {
                            core: c,
                            cores: self.cores,
                        });
                    }
                    if c == core {
                        return Ok(Some(op_of(&r)));
                    }
                    self.queues[c as usize].push_back(op_of(&r));
                }
            }
        }
        Ok(None)
    }
}
