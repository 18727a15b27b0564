//! The memory controllers' side of [`crate::system::MemorySystem`]: the DRAM
//! backend, the requests waiting at a controller whose queue is full, and the order
//! in which the DRAM is run against the requests offered to it — on the memory
//! side's thread ([`DramSide`] called directly) or on a thread of its own
//! ([`Remote`]), with identical results.
//!
//! # The order (the contract between the two sides)
//! Core cycles are processed in increasing order. The DRAM side *visits* core cycle
//! `t` — runs every DRAM cycle up to the last DRAM edge at or before `t`
//! ([`crate::system::ClockRatio`]) — whenever its next event lies at or before `t`:
//! before each request offered at `t` and after the last one
//! ([`DramSide::catch_up`]). A request offered at `t` is enqueued at the first DRAM
//! edge at or after `t`; one that finds its controller's queue full waits at the MC
//! in arrival order and is offered again after every visit. A burst whose completion
//! the DRAM reports during the visit of `t` is delivered to the memory side at core
//! cycle `max(first core edge at or after its DRAM completion, t + lookahead)`. The
//! lookahead is the shortest data latency of a column command, `min(tCL, tCWL) +
//! tBL` DRAM cycles, in whole core cycles ([`DramBackend::notice_cycles`]), so the
//! rule only delays what a controller answers at once: a read forwarded from a
//! queued write or a write merged into one, which DRAMsim3 (and the DRAM model on
//! its own) completes one DRAM cycle after arrival.
//!
//! # The DRAM thread
//! The memory side learns of the DRAM only through completions, and a completion
//! found while visiting `t` is delivered at `t + lookahead` or later. So the DRAM
//! side may trail the memory side by up to the lookahead: the memory side sends
//! the requests it offers, in order, and *watermarks* (no request at or before
//! this core cycle will follow); the DRAM side runs every visit up to a watermark
//! and answers with the completions it found and its next visit. The memory side
//! processes core cycle `t` only when every completion deliverable by `t` must have
//! been answered: `t` lies within the lookahead of the last watermark answered, or
//! before the lookahead after the DRAM side's next visit and after every request
//! sent since (or no burst of its is in the DRAM). So quiet stretches (the DRAM has
//! nothing to do for a while) cost no exchange, and a busy one costs one per half
//! lookahead. Both sides perform the same
//! operations in the same order either way, so a run with the DRAM thread equals
//! one without, byte for byte (`tests/all/dram_thread.rs`).
//!
//! Not supported on the thread: the BLP-Ideal oracle, which reads the memory banks'
//! outstanding counts at every LLC miss ([`crate::system::MemorySystem::spawn_dram_thread`]
//! declines and the run stays on one thread).

use crate::system::{ClockRatio, DramBackend, DramDone, DramRequest};
use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::thread::JoinHandle;

/// A DRAM burst reported to the memory side, to be delivered at core cycle `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Finished {
    /// Delivery core cycle.
    pub at: u64,
    /// The request's identifier.
    pub id: u64,
    /// The request's address.
    pub addr: u64,
}

/// The DRAM backend with the MCs' overflow queues, run in the order of the module
/// docs. Completions accumulate in an output list ([`Self::take_finished`]).
pub(crate) struct DramSide<D> {
    dram: D,
    clocks: ClockRatio,
    lookahead: u64,
    /// Requests that found their controller's queue full, per channel.
    overflow: Vec<VecDeque<DramRequest>>,
    scratch: Vec<DramDone>,
    /// Bursts enqueued in the DRAM and not yet completed.
    outstanding: u64,
    /// Last DRAM cycle run.
    last_cycle: u64,
    /// Core cycle of the last operation.
    now: u64,
    /// Last DRAM event time converted to core cycles, `(dram, core)`.
    next_conv: Cell<(u64, u64)>,
    /// The DRAM's next event as last asked (`None`: ask again). Cleared by every
    /// call that may change the DRAM.
    next_raw: Cell<Option<Option<u64>>>,
    out: Vec<Finished>,
}

impl<D: DramBackend> DramSide<D> {
    pub(crate) fn new(dram: D, clocks: ClockRatio) -> Self {
        let lookahead = clocks.dram_to_core_floor(dram.notice_cycles());
        let channels = dram.channels();
        DramSide {
            dram,
            clocks,
            lookahead,
            overflow: (0..channels).map(|_| VecDeque::new()).collect(),
            scratch: Vec::new(),
            outstanding: 0,
            last_cycle: 0,
            now: 0,
            next_conv: Cell::new((0, 0)),
            next_raw: Cell::new(None),
            out: Vec::new(),
        }
    }

    pub(crate) fn dram(&self) -> &D {
        &self.dram
    }

    pub(crate) fn dram_mut(&mut self) -> &mut D {
        self.next_raw.set(None);
        &mut self.dram
    }

    /// Core cycles between the visit that reports a completion and its delivery, at
    /// least (0: the DRAM side cannot run on its own thread).
    pub(crate) fn lookahead(&self) -> u64 {
        self.lookahead
    }

    /// No burst in the DRAM and none waiting at an MC.
    pub(crate) fn is_idle(&self) -> bool {
        self.outstanding == 0 && self.overflow.iter().all(|q| q.is_empty())
    }

    /// Moves the completions reported so far, in report order, into `out`.
    pub(crate) fn take_finished(&mut self, out: &mut Vec<Finished>) {
        out.append(&mut self.out);
    }

    #[inline]
    fn next_event(&self) -> Option<u64> {
        match self.next_raw.get() {
            Some(n) => n,
            None => {
                let n = self.dram.next_event();
                self.next_raw.set(Some(n));
                n
            }
        }
    }

    /// Core cycle of the next visit, only while the DRAM holds requests of ours
    /// (the model's periodic refresh alone must not keep an idle system running).
    #[inline]
    pub(crate) fn next(&self) -> Option<u64> {
        if self.outstanding == 0 {
            return None;
        }
        self.next_event().map(|d| {
            let (cd, cc) = self.next_conv.get();
            let c = if cd == d {
                cc
            } else {
                let c = self.clocks.dram_to_core_ceil(d);
                self.next_conv.set((d, c));
                c
            };
            c.max(self.now)
        })
    }

    /// Every visit due at or before core cycle `t`.
    pub(crate) fn catch_up(&mut self, t: u64) {
        while let Some(v) = self.next() {
            if v > t || !self.visit(v) {
                break;
            }
        }
    }

    /// Runs the DRAM up to core cycle `t`; false if there was nothing new to run.
    fn visit(&mut self, t: u64) -> bool {
        let dc = self.clocks.core_to_dram_floor(t);
        if dc < self.last_cycle {
            return false;
        }
        let before = self.next_event();
        self.last_cycle = dc;
        self.now = self.now.max(t);
        let mut done = std::mem::take(&mut self.scratch);
        done.clear();
        self.next_raw.set(None);
        self.dram.advance_to(dc, &mut done);
        for d in &done {
            let at = self
                .clocks
                .dram_to_core_ceil(d.done)
                .max(t + self.lookahead);
            self.outstanding -= 1;
            self.out.push(Finished {
                at,
                id: d.id,
                addr: d.addr,
            });
        }
        let progressed = !done.is_empty() || self.next_event() != before;
        self.scratch = done;
        for ch in 0..self.overflow.len() {
            self.drain_overflow(ch, dc);
        }
        progressed
    }

    fn drain_overflow(&mut self, ch: usize, dc: u64) {
        while let Some(&r) = self.overflow[ch].front() {
            self.next_raw.set(None);
            if self.dram.try_enqueue(ch, r, dc) {
                self.overflow[ch].pop_front();
                self.outstanding += 1;
            } else {
                break;
            }
        }
    }

    /// Offers a line's `n` bursts at core cycle `t`: `first`, then `burst` bytes
    /// apart with identifiers `first.id | i`.
    pub(crate) fn arrive(&mut self, t: u64, first: DramRequest, n: u32, burst: u64) {
        self.catch_up(t);
        self.now = self.now.max(t);
        let ch = self.dram.channel_of(first.addr);
        let dc = self.clocks.core_to_dram_ceil(t);
        for i in 0..n as u64 {
            let r = DramRequest {
                id: first.id | i,
                addr: first.addr + i * burst,
                ..first
            };
            if self.overflow[ch].is_empty() && {
                self.next_raw.set(None);
                self.dram.try_enqueue(ch, r, dc)
            } {
                self.outstanding += 1;
            } else {
                self.overflow[ch].push_back(r);
            }
        }
    }

    /// No further request will come (after core cycle `t`): the DRAM may drain its
    /// buffered writes.
    pub(crate) fn finish_input(&mut self, t: u64) {
        self.catch_up(t);
        self.now = self.now.max(t);
        self.next_raw.set(None);
        self.dram.finish_input();
    }
}

/// What the memory side tells the DRAM thread, in order.
enum Msg {
    /// [`DramSide::arrive`].
    Arrive {
        t: u64,
        first: DramRequest,
        n: u32,
        burst: u64,
    },
    /// [`DramSide::finish_input`].
    Finish(u64),
    /// No request at or before this core cycle will follow: run every visit up to
    /// it and answer with the completions found.
    Watermark(u64),
}

/// Memory side to DRAM thread: messages in order, and an emptied completion list
/// for reuse (the two sides pass their buffers back and forth instead of
/// allocating one per exchange).
struct Batch {
    msgs: Vec<Msg>,
    spare: Vec<Finished>,
}

/// DRAM thread to memory side: the watermark answered, the completions found up
/// to it, the DRAM side's next visit then (`u64::MAX`: none), and an emptied
/// message list for reuse.
struct Answer {
    upto: u64,
    next: u64,
    fin: Vec<Finished>,
    spent: Vec<Msg>,
}

/// The DRAM side on its own thread, seen from the memory side.
pub(crate) struct Remote<D> {
    tx: Option<Sender<Batch>>,
    rx: Receiver<Answer>,
    /// Emptied lists to reuse.
    spare_msgs: Vec<Vec<Msg>>,
    spare_fin: Vec<Vec<Finished>>,
    handle: Option<JoinHandle<DramSide<D>>>,
    pending: Vec<Msg>,
    lookahead: u64,
    /// Every completion delivered at or before this core cycle has been received:
    /// the last watermark answered or, if later, the cycle before the DRAM side's
    /// next visit then, plus the lookahead; lowered to `t + lookahead - 1` by a
    /// request offered at `t` since.
    safe_until: u64,
    /// Earliest core cycle at which the DRAM side may have a visit to make, as
    /// far as known (the next visit it reported, or an earlier request offered).
    dram_next: u64,
    /// Core cycles of the requests (and end of input) sent and not yet covered by
    /// an answered watermark, in order.
    uncovered: VecDeque<u64>,
    /// Last watermark sent.
    published: u64,
    /// Bursts offered and not yet reported back.
    in_dram: u64,
}

/// Receives from `rx`, spinning a little before blocking (the other side usually
/// answers within microseconds). `None` once the other side is gone.
fn recv_soon<T>(rx: &Receiver<T>) -> Option<T> {
    for i in 0..20_000u32 {
        match rx.try_recv() {
            Ok(v) => return Some(v),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => {
                if i < 2_000 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }
    rx.recv().ok()
}

fn serve<D: DramBackend>(
    mut side: DramSide<D>,
    rx: Receiver<Batch>,
    tx: Sender<Answer>,
) -> DramSide<D> {
    let mut spare_fin: Vec<Vec<Finished>> = Vec::new();
    let mut spent: Vec<Vec<Msg>> = Vec::new();
    while let Some(Batch { mut msgs, spare }) = recv_soon(&rx) {
        if spare.capacity() > 0 {
            spare_fin.push(spare);
        }
        let mut watermark = None;
        for m in msgs.drain(..) {
            match m {
                Msg::Arrive { t, first, n, burst } => side.arrive(t, first, n, burst),
                Msg::Finish(t) => side.finish_input(t),
                Msg::Watermark(w) => {
                    // the memory side sends a watermark last in its batch
                    side.catch_up(w);
                    watermark = Some(w);
                }
            }
        }
        if spent.len() < 4 {
            spent.push(msgs);
        }
        if let Some(upto) = watermark {
            let mut fin = spare_fin.pop().unwrap_or_default();
            side.take_finished(&mut fin);
            let spent = spent.pop().unwrap_or_default();
            let next = side.next().unwrap_or(u64::MAX);
            if tx
                .send(Answer {
                    upto,
                    next,
                    fin,
                    spent,
                })
                .is_err()
            {
                return side;
            }
        }
    }
    side
}

impl<D: DramBackend + Send + 'static> Remote<D> {
    /// Moves `side` to a new thread. `now` is the memory side's current core cycle.
    pub(crate) fn spawn(side: DramSide<D>, now: u64) -> std::io::Result<Self> {
        let (tx, rx_thread) = mpsc::channel();
        let (tx_thread, rx) = mpsc::channel();
        let lookahead = side.lookahead();
        let in_dram = side.outstanding + side.overflow.iter().map(|q| q.len() as u64).sum::<u64>();
        let handle = std::thread::Builder::new()
            .name("weft-dram".into())
            .spawn(move || serve(side, rx_thread, tx_thread))?;
        Ok(Remote {
            tx: Some(tx),
            rx,
            spare_msgs: Vec::new(),
            spare_fin: Vec::new(),
            handle: Some(handle),
            pending: Vec::new(),
            lookahead,
            // a visit at `now` or later delivers at `now + lookahead` or later
            safe_until: now + lookahead - 1,
            dram_next: if in_dram > 0 { now } else { u64::MAX },
            uncovered: VecDeque::new(),
            published: now.saturating_sub(1),
            in_dram,
        })
    }
}

impl<D> Remote<D> {
    pub(crate) fn arrive(&mut self, t: u64, first: DramRequest, n: u32, burst: u64) {
        self.in_dram += n as u64;
        self.pending.push(Msg::Arrive { t, first, n, burst });
        self.offered(t);
    }

    pub(crate) fn finish_input(&mut self, t: u64) {
        self.pending.push(Msg::Finish(t));
        self.offered(t);
    }

    /// Something sent at `t` may make the DRAM side visit `t` or later.
    fn offered(&mut self, t: u64) {
        self.uncovered.push_back(t);
        self.safe_until = self.safe_until.min(t + self.lookahead - 1);
        self.dram_next = self.dram_next.min(t);
    }

    /// No burst of ours in the DRAM or on its way there.
    pub(crate) fn is_idle(&self) -> bool {
        self.in_dram == 0
    }

    fn send(&mut self, w: Option<u64>) {
        if let Some(w) = w {
            debug_assert!(
                w >= self.published,
                "watermark {w} after {}",
                self.published
            );
            self.pending.push(Msg::Watermark(w));
            self.published = w;
        }
        if !self.pending.is_empty() {
            let next = self.spare_msgs.pop().unwrap_or_default();
            let batch = std::mem::replace(&mut self.pending, next);
            debug_assert!(batch
                .iter()
                .rev()
                .skip(1)
                .all(|m| !matches!(m, Msg::Watermark(_))));
            let spare = self.spare_fin.pop().unwrap_or_default();
            if let Some(tx) = &self.tx {
                // A send fails only if the DRAM thread is gone (it panicked); the
                // panic surfaces at `join`.
                let _ = tx.send(Batch { msgs: batch, spare });
            }
        }
    }

    /// Takes answer `a` in; its completions go to `out`. Returns the earliest
    /// delivery among them (`u64::MAX`: none).
    fn absorb(&mut self, a: Answer, out: &mut Vec<Finished>) -> u64 {
        let Answer {
            upto,
            next,
            mut fin,
            spent,
        } = a;
        // Up to `upto` everything is reported; after it the DRAM side visits
        // nothing before `next`, unless a request sent after the watermark wakes
        // it earlier.
        while self.uncovered.front().is_some_and(|&u| u <= upto) {
            self.uncovered.pop_front();
        }
        let first = self.uncovered.front().copied().unwrap_or(u64::MAX);
        let quiet_until = next.min(first).saturating_sub(1).max(upto);
        self.safe_until = self
            .safe_until
            .max(quiet_until.saturating_add(self.lookahead));
        self.dram_next = next.min(first);
        self.in_dram -= fin.len() as u64;
        let earliest = fin.iter().map(|f| f.at).min().unwrap_or(u64::MAX);
        out.append(&mut fin);
        if self.spare_fin.len() < 4 {
            self.spare_fin.push(fin);
        }
        if self.spare_msgs.len() < 4 && spent.capacity() > 0 {
            self.spare_msgs.push(spent);
        }
        earliest
    }

    /// Whether [`Self::settle`] would return `t` at once without a word to the
    /// DRAM side (its common case). `t` is the next core cycle the memory side
    /// processes (everything before it is done).
    #[inline]
    pub(crate) fn settled(&mut self, t: u64) -> bool {
        if self.in_dram == 0 && self.pending.is_empty() {
            // Nothing of ours in the DRAM: every completion to come belongs to a
            // request offered at `t` or later, delivered `lookahead` after it. No
            // watermark is needed meanwhile either (the DRAM side has no visit to
            // make); the next one goes out with the next request.
            self.safe_until = self.safe_until.max(t.saturating_add(self.lookahead - 1));
            return true;
        }
        t <= self.safe_until && !self.should_publish(t)
    }

    /// Whether to tell the DRAM side now that everything before `t` is done: it
    /// has fallen half a lookahead behind and may have a visit to make, or many
    /// requests are waiting to go.
    #[inline]
    fn should_publish(&self, t: u64) -> bool {
        self.pending.len() >= 256 || (t > self.published + self.lookahead / 2 && t > self.dram_next)
    }

    /// Makes core cycle `t` (or, for `t == u64::MAX`, the end of the run) safe to
    /// process: when this returns, every completion deliverable at or before the
    /// returned cycle has been appended to `out`. `queued` is the earliest delivery
    /// among the completions received before (the memory side's own queue);
    /// returns the core cycle to process next, `min(t, earliest delivery)`.
    pub(crate) fn settle(
        &mut self,
        mut t: u64,
        queued: Option<u64>,
        out: &mut Vec<Finished>,
    ) -> u64 {
        if let Some(c) = queued {
            t = t.min(c);
        }
        loop {
            // Everything deliverable by `safe_until` is in already; answers that
            // arrived meanwhile are taken the next time they are needed.
            if t > self.safe_until && self.in_dram > 0 {
                while let Ok(a) = self.rx.try_recv() {
                    t = t.min(self.absorb(a, out));
                }
            }
            if self.in_dram == 0 || t <= self.safe_until {
                if t == u64::MAX {
                    self.send(None);
                } else if self.should_publish(t) {
                    // Let the DRAM side follow (everything before `t` is done).
                    self.send(Some(t - 1));
                }
                return t;
            }
            // Completions not received yet are delivered after `safe_until`.
            let w = t.min(self.safe_until + 1) - 1;
            // (`w == published`: that watermark's answer is on its way)
            self.send((w > self.published).then_some(w));
            match recv_soon(&self.rx) {
                Some(a) => t = t.min(self.absorb(a, out)),
                // The DRAM thread is gone (it panicked): `join` reports it.
                None => self.in_dram = 0,
            }
        }
    }

    /// Stops the thread and returns the DRAM side (re-raises a panic of the thread).
    pub(crate) fn join(mut self) -> DramSide<D> {
        self.send(None);
        self.tx = None;
        let h = self.handle.take().expect("joined once");
        match h.join() {
            Ok(side) => side,
            Err(p) => std::panic::resume_unwind(p),
        }
    }
}

impl<D> Drop for Remote<D> {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}
