//! Time-ordered event queue of the memory side: a timing wheel for the near future
//! plus a binary heap for events beyond the wheel's horizon.
//!
//! Order: events pop by time, and events of one time in the order they were
//! scheduled — exactly the `(time, sequence number)` order of a binary heap keyed
//! by time and insertion sequence, which this replaces. Invariants: no event is
//! scheduled before the time of the last popped event; every wheel event lies in
//! `[base, base + WHEEL)`, one bucket per time, appended in scheduling order; a
//! far event moves into the wheel (in sequence order) as soon as its time enters
//! the horizon, before anything can be scheduled directly at that time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const WHEEL: usize = 1024;
const MASK: u64 = WHEEL as u64 - 1;

/// An event: kind and transaction.
pub(crate) type Payload = (u8, u32);

pub(crate) struct EventQueue {
    buckets: Vec<Vec<Payload>>,
    /// Read position inside the current bucket (events already popped).
    head: usize,
    /// Non-empty buckets (bit per bucket).
    occupied: [u64; WHEEL / 64],
    /// Lower bound of every queued time (the time of the last pop).
    base: u64,
    in_wheel: usize,
    far: BinaryHeap<Reverse<(u64, u64, u8, u32)>>,
    seq: u64,
    /// Time of the earliest wheel event (`u64::MAX` if none).
    wheel_min: u64,
}

impl EventQueue {
    pub(crate) fn new() -> Self {
        EventQueue {
            buckets: (0..WHEEL).map(|_| Vec::new()).collect(),
            head: 0,
            occupied: [0; WHEEL / 64],
            base: 0,
            in_wheel: 0,
            far: BinaryHeap::new(),
            seq: 0,
            wheel_min: u64::MAX,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.in_wheel == 0 && self.far.is_empty()
    }

    #[inline]
    fn put(&mut self, t: u64, p: Payload) {
        let i = (t & MASK) as usize;
        self.buckets[i].push(p);
        self.occupied[i / 64] |= 1 << (i % 64);
        self.in_wheel += 1;
        self.wheel_min = self.wheel_min.min(t);
    }

    /// Schedules `p` at time `t` (not before the last popped time).
    #[inline]
    pub(crate) fn push(&mut self, t: u64, p: Payload) {
        debug_assert!(t >= self.base, "event at {t} scheduled after {}", self.base);
        let t = t.max(self.base);
        if t - self.base < WHEEL as u64 {
            self.put(t, p);
        } else {
            self.seq += 1;
            self.far.push(Reverse((t, self.seq, p.0, p.1)));
        }
    }

    /// Time of the earliest event.
    #[inline]
    pub(crate) fn peek_time(&self) -> Option<u64> {
        if self.in_wheel > 0 {
            return Some(self.wheel_min);
        }
        self.far.peek().map(|Reverse((t, ..))| *t)
    }

    /// Earliest wheel time by scanning the occupancy bitmap.
    fn scan_wheel(&self) -> u64 {
        if self.in_wheel > 0 {
            let start = (self.base & MASK) as usize;
            // scan the occupancy bitmap from the base's bucket, wrapping once
            let words = WHEEL / 64;
            let mut w = start / 64;
            let mut bits = self.occupied[w] & (!0u64 << (start % 64));
            for k in 0..=words {
                if bits != 0 {
                    let i = w * 64 + bits.trailing_zeros() as usize;
                    let d = (i + WHEEL - start) % WHEEL;
                    return self.base + d as u64;
                }
                w = (w + 1) % words;
                bits = self.occupied[w];
                if k == words - 1 {
                    // back at the start word: only bits below `start`
                    bits &= !(!0u64 << (start % 64));
                }
            }
            unreachable!("occupied bitmap out of sync");
        }
        u64::MAX
    }

    /// Moves the base to `t` (no event before it), pulling far events into the wheel.
    fn set_base(&mut self, t: u64) {
        if t == self.base {
            return;
        }
        debug_assert!(t > self.base);
        self.base = t;
        self.head = 0;
        while let Some(&Reverse((ft, _, e, x))) = self.far.peek() {
            if ft - self.base >= WHEEL as u64 {
                break;
            }
            self.far.pop();
            self.put(ft, (e, x));
        }
    }

    /// Pops the earliest event if its time is `<= upto`.
    #[inline]
    pub(crate) fn pop_upto(&mut self, upto: u64) -> Option<(u64, Payload)> {
        let t = self.peek_time()?;
        if t > upto {
            return None;
        }
        self.set_base(t);
        let i = (t & MASK) as usize;
        let p = self.buckets[i][self.head];
        self.head += 1;
        self.in_wheel -= 1;
        if self.head == self.buckets[i].len() {
            self.buckets[i].clear();
            self.head = 0;
            self.occupied[i / 64] &= !(1 << (i % 64));
            self.wheel_min = self.scan_wheel();
        }
        Some((t, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same order as a (time, sequence) binary heap, across the wheel horizon.
    #[test]
    fn matches_heap_order() {
        let mut q = EventQueue::new();
        let mut h: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
        let mut seq = 0u64;
        let mut x = 12345u64;
        let mut now = 0u64;
        let mut popped = 0;
        for step in 0..20000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x % 3 != 0 {
                let dt = match x % 7 {
                    0 => 0,
                    1 => (x >> 8) % 5000,
                    _ => (x >> 8) % 40,
                };
                seq += 1;
                q.push(now + dt, (0, step));
                h.push(Reverse((now + dt, seq, step)));
            } else {
                let upto = now + (x >> 20) % 3;
                loop {
                    let a = q.pop_upto(upto);
                    let b = match h.peek() {
                        Some(Reverse((t, _, _))) if *t <= upto => {
                            h.pop().map(|Reverse((t, _, p))| (t, (0u8, p)))
                        }
                        _ => None,
                    };
                    assert_eq!(a, b);
                    match a {
                        Some((t, _)) => {
                            now = t;
                            popped += 1;
                        }
                        None => break,
                    }
                }
                now = now.max(upto);
                // the queue's base only moves on pops; pushes must not precede it
                now = now.max(q.base);
            }
            assert_eq!(q.peek_time(), h.peek().map(|Reverse((t, ..))| *t));
        }
        assert!(popped > 1000);
    }
}
