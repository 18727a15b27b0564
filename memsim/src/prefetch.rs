//! Stream prefetcher (Table 5.2: 32 streams, prefetch degree 4, prefetch distance 64
//! cache lines; on by default as in the dissertation's experiments, §4.5.1, §5.6.1).
//!
//! One prefetcher per requester, trained on that requester's demand L1-miss stream at
//! last-level-cache line granularity, as a stream prefetcher at the L2 of each node
//! would be (Srinath et al., HPCA 2007, the design gem5 and most simulators follow).
//! A stream entry goes through two states:
//! - *training*: created by a miss that no stream covers; a second miss within
//!   `train_window` lines fixes the direction, and a third miss in the same direction
//!   confirms the stream and switches it to monitoring;
//! - *monitoring*: the stream covers the lines between its last demand line `start`
//!   and its prefetch frontier `end`. A demand miss inside that region moves `start`
//!   to it and prefetches up to `degree` further lines beyond `end`, never more than
//!   `distance` lines ahead of the demand.
//!
//! Entries are replaced LRU. Prefetches fill the LLC (not the private caches); the
//! memory side drops a prefetch for a line that is present or already in flight.
//! Invariant: `end` is never more than `distance` lines ahead of `start`.
//!
//! Page bound (`page_lines`, from `prefetcher.page_bytes`; 4 KiB in the presets):
//! no prefetch leaves the page of the miss that triggered it, as in hardware that
//! prefetches physical addresses. A stream's frontier stops at the page end; a
//! demand miss in the next page falls outside the stream and trains a new one.
//! Without the bound, every stream that ends (a slab of a reordered schedule, a
//! row of a sparse matrix) prefetches up to `distance` lines past its end.

/// Prefetcher parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrefetchParams {
    /// Number of stream entries (Table 5.2: 32).
    pub streams: u32,
    /// Lines prefetched per trigger (Table 5.2: 4).
    pub degree: u32,
    /// Maximum prefetches ahead of the demand stream (Table 5.2: 64 lines).
    pub distance: u32,
    /// Lines within which consecutive misses train one stream (16).
    pub train_window: u32,
    /// Stride mode: a stream is confirmed by two equal deltas and prefetches in
    /// steps of that delta (Table 4.2's stride prefetcher, per requester, since
    /// traces carry no PCs). Stream mode (false) only needs two deltas of the same
    /// sign and steps one line at a time.
    pub stride: bool,
    /// Lines per page that prefetches do not cross (0: unbounded).
    pub page_lines: u64,
    /// MSHRs of the level the prefetcher fills on behalf of its requester,
    /// shared with that requester's demand misses (a private L2's MSHRs, Intel's
    /// 16-entry L2 superqueue): a prefetch is dropped while the requester's
    /// outstanding demand misses plus prefetches fill them. 0: bounded only by
    /// the LLC banks' MSHRs (Table 5.2, whose prefetcher sits at the LLC).
    pub mshrs: u32,
}

#[derive(Clone, Copy, Debug)]
enum State {
    Training { last: u64, delta: i64 },
    Monitoring { start: u64, end: u64, step: i64 },
}

#[derive(Clone, Copy, Debug)]
struct Stream {
    state: State,
    lru: u64,
}

/// A per-requester stream (or stride) prefetcher.
#[derive(Clone, Debug)]
pub struct StreamPrefetcher {
    p: PrefetchParams,
    streams: Vec<Stream>,
    clock: u64,
}

#[inline]
fn add(x: u64, d: i64) -> u64 {
    x.wrapping_add(d as u64)
}

/// Signed distance `b - a`.
#[inline]
fn delta(a: u64, b: u64) -> i64 {
    b.wrapping_sub(a) as i64
}

impl StreamPrefetcher {
    /// An untrained prefetcher.
    pub fn new(p: PrefetchParams) -> Self {
        StreamPrefetcher {
            p,
            streams: Vec::with_capacity(p.streams as usize),
            clock: 0,
        }
    }

    /// Trains on a demand miss to LLC line `line`; appends lines to prefetch to `out`.
    pub fn on_miss(&mut self, line: u64, out: &mut Vec<u64>) {
        self.clock += 1;
        let clock = self.clock;
        let p = self.p;
        let pl = p.page_lines;
        let in_page = |x: u64| pl == 0 || x / pl == line / pl;
        // A monitoring stream whose region holds the line.
        for s in self.streams.iter_mut() {
            if let State::Monitoring { start, end, step } = &mut s.state {
                let sign = step.signum();
                if delta(*start, line) * sign >= 0 && delta(line, *end) * sign >= 0 {
                    *start = line;
                    let limit = add(line, *step * p.distance as i64);
                    let mut issued = 0;
                    while issued < p.degree
                        && delta(*end, limit) * sign > 0
                        && in_page(add(*end, *step))
                    {
                        *end = add(*end, *step);
                        out.push(*end);
                        issued += 1;
                    }
                    s.lru = clock;
                    return;
                }
            }
        }
        // A training stream near the line.
        for s in self.streams.iter_mut() {
            if let State::Training { last, delta: prev } = &mut s.state {
                let d = delta(*last, line);
                if d != 0 && d.unsigned_abs() <= p.train_window as u64 {
                    s.lru = clock;
                    let confirmed = if p.stride {
                        *prev == d
                    } else {
                        *prev != 0 && prev.signum() == d.signum()
                    };
                    if confirmed {
                        let step = if p.stride { d } else { d.signum() };
                        let mut end = line;
                        for _ in 0..p.degree.min(p.distance) {
                            if !in_page(add(end, step)) {
                                break;
                            }
                            end = add(end, step);
                            out.push(end);
                        }
                        s.state = State::Monitoring {
                            start: line,
                            end,
                            step,
                        };
                    } else {
                        *prev = d;
                        *last = line;
                    }
                    return;
                }
            }
        }
        let fresh = Stream {
            state: State::Training {
                last: line,
                delta: 0,
            },
            lru: clock,
        };
        if self.streams.len() < p.streams.max(1) as usize {
            self.streams.push(fresh);
        } else if let Some(v) = self.streams.iter_mut().min_by_key(|s| s.lru) {
            *v = fresh;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pf() -> StreamPrefetcher {
        StreamPrefetcher::new(PrefetchParams {
            streams: 2,
            degree: 4,
            distance: 8,
            train_window: 16,
            stride: false,
            page_lines: 0,
            mshrs: 0,
        })
    }

    #[test]
    fn ascending_stream_trains_then_runs_ahead_bounded_by_distance() {
        let mut p = pf();
        let mut out = Vec::new();
        p.on_miss(100, &mut out);
        p.on_miss(101, &mut out);
        assert!(out.is_empty(), "two misses only train");
        p.on_miss(102, &mut out);
        assert_eq!(out, vec![103, 104, 105, 106]);
        out.clear();
        p.on_miss(103, &mut out);
        // frontier may reach 103 + 8 = 111
        assert_eq!(out, vec![107, 108, 109, 110]);
        out.clear();
        p.on_miss(104, &mut out);
        assert_eq!(out, vec![111, 112]);
        out.clear();
        p.on_miss(104, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn descending_stream_and_lru_replacement() {
        let mut p = pf();
        let mut out = Vec::new();
        for l in [50u64, 49, 48] {
            p.on_miss(l, &mut out);
        }
        assert_eq!(out, vec![47, 46, 45, 44]);
        out.clear();
        // two unrelated far-away misses replace entries; no prefetch
        p.on_miss(1_000_000, &mut out);
        p.on_miss(2_000_000, &mut out);
        assert!(out.is_empty());
        // the descending stream was evicted (LRU): 47 now only trains
        p.on_miss(47, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn stride_mode_needs_equal_deltas() {
        let mut p = StreamPrefetcher::new(PrefetchParams {
            streams: 4,
            degree: 2,
            distance: 4,
            train_window: 16,
            stride: true,
            page_lines: 0,
            mshrs: 0,
        });
        let mut out = Vec::new();
        for l in [10u64, 13, 15] {
            p.on_miss(l, &mut out);
        }
        assert!(out.is_empty(), "deltas 3 then 2 do not confirm");
        p.on_miss(17, &mut out);
        assert_eq!(out, vec![19, 21]);
        out.clear();
        p.on_miss(19, &mut out);
        // limit 19 + 2*4 = 27
        assert_eq!(out, vec![23, 25]);
    }

    /// With 64-line (4 KB) pages a stream stops at the page end, in both
    /// directions, and a miss in the next page trains a new stream.
    #[test]
    fn prefetches_stay_in_the_page_of_the_miss() {
        let mut p = StreamPrefetcher::new(PrefetchParams {
            streams: 4,
            degree: 4,
            distance: 8,
            train_window: 16,
            stride: false,
            page_lines: 64,
            mshrs: 0,
        });
        let mut out = Vec::new();
        for l in [57u64, 58, 59] {
            p.on_miss(l, &mut out);
        }
        assert_eq!(out, vec![60, 61, 62, 63], "the page ends at line 63");
        out.clear();
        p.on_miss(60, &mut out);
        assert!(out.is_empty(), "line 64 is in the next page");
        p.on_miss(64, &mut out);
        p.on_miss(65, &mut out);
        assert!(out.is_empty(), "the next page retrains");
        p.on_miss(66, &mut out);
        assert_eq!(out, vec![67, 68, 69, 70]);
        out.clear();
        // descending, from the start of a page
        for l in [130u64, 129, 128] {
            p.on_miss(l, &mut out);
        }
        assert!(out.is_empty(), "line 127 is in the previous page");
    }
}
