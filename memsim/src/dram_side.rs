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
//! The two sides talk through two single-producer rings ([`rtrb`]): requests go
//! out as they are offered, so the DRAM thread runs each one's visits at once and
//! has only the tail to run when the watermark comes; the answers (completions,
//! then the watermark answered) are read in chunks. A side with nothing to read
//! spins briefly, then sleeps until the other rings its [`Doorbell`] (after a
//! watermark, the end of input or an answer). This replaced `std::sync::mpsc`
//! channels carrying batches sent with each watermark: `weft bench sim
//! --records 3000000`, 7 alternating runs, 1.62 -> 1.68 M records/s (median).
//!
//! Not supported on the thread: the BLP-Ideal oracle, which reads the memory banks'
//! outstanding counts at every LLC miss ([`crate::system::MemorySystem::spawn_dram_thread`]
//! declines and the run stays on one thread).

use crate::system::{ClockRatio, DramBackend, DramDone, DramRequest};
use rtrb::{Consumer, Producer, PushError, RingBuffer};
use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
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

/// What the DRAM thread tells the memory side, in order: the completions found,
/// then, for each watermark, the watermark answered and the DRAM side's next
/// visit then (`u64::MAX`: none).
enum Ans {
    Fin(Finished),
    Upto { upto: u64, next: u64 },
}

/// Capacity of each ring between the two sides. A full ring makes its writer
/// wait (rare: the DRAM side answers every half lookahead).
const RING: usize = 4096;

/// Lets one side sleep until the other has written to a ring: the writer rings
/// after the writes the sleeper waits for (a watermark, the end of input, an
/// answer), and the sleeper re-checks under the lock after declaring itself
/// asleep, so no wake-up is lost (the timed wait is a second guard).
#[derive(Default)]
struct Doorbell {
    sleeping: AtomicBool,
    lock: Mutex<()>,
    cv: Condvar,
}

impl Doorbell {
    /// After writing to a ring: wakes the other side if it sleeps.
    fn ring(&self) {
        fence(Ordering::SeqCst);
        if self.sleeping.load(Ordering::Relaxed) {
            let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.cv.notify_one();
        }
    }

    /// Returns once `ready()` holds, spinning a little, then yielding, then
    /// sleeping (the other side usually answers within microseconds).
    fn wait(&self, mut ready: impl FnMut() -> bool) {
        for i in 0..20_000u32 {
            if ready() {
                return;
            }
            if i < 2_000 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        loop {
            let g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.sleeping.store(true, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            if ready() {
                self.sleeping.store(false, Ordering::Relaxed);
                return;
            }
            let g = self
                .cv
                .wait_timeout(g, std::time::Duration::from_millis(1))
                .unwrap_or_else(|e| e.into_inner())
                .0;
            self.sleeping.store(false, Ordering::Relaxed);
            drop(g);
            if ready() {
                return;
            }
        }
    }
}

/// The two doorbells: the DRAM thread's (it waits for messages) and the memory
/// side's (it waits for answers).
#[derive(Default)]
struct Bells {
    dram: Doorbell,
    mem: Doorbell,
}

/// The DRAM side on its own thread, seen from the memory side.
pub(crate) struct Remote<D> {
    tx: Option<Producer<Msg>>,
    rx: Option<Consumer<Ans>>,
    bells: Arc<Bells>,
    handle: Option<JoinHandle<DramSide<D>>>,
    /// Completions taken in while waiting to write a message, for the next
    /// [`Self::settle`].
    inbox: Vec<Finished>,
    /// What the answers so far tell of the DRAM side.
    k: Known,
    /// Last watermark sent.
    published: u64,
}

/// The memory side's knowledge of the DRAM side, updated request by request
/// and answer by answer.
struct Known {
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
    /// Bursts offered and not yet reported back.
    in_dram: u64,
}

/// Writes `m` to `tx`, waiting while the ring is full (`false`: the reader is
/// gone). `drain` runs while waiting (the memory side takes answers in, so the
/// DRAM thread never waits on a full answer ring while this side waits on it).
fn push_waiting<T>(
    tx: &mut Producer<T>,
    mut m: T,
    bell: &Doorbell,
    mut drain: impl FnMut(),
) -> bool {
    loop {
        match tx.push(m) {
            Ok(()) => return true,
            Err(PushError::Full(back)) => {
                if tx.is_abandoned() {
                    return false;
                }
                m = back;
                bell.ring();
                drain();
                std::thread::yield_now();
            }
        }
    }
}

fn serve<D: DramBackend>(
    mut side: DramSide<D>,
    mut rx: Consumer<Msg>,
    mut tx: Producer<Ans>,
    bells: Arc<Bells>,
) -> DramSide<D> {
    let mut fin: Vec<Finished> = Vec::new();
    loop {
        let n = rx.slots();
        if n == 0 {
            if rx.is_abandoned() && rx.is_empty() {
                return side;
            }
            bells.dram.wait(|| !rx.is_empty() || rx.is_abandoned());
            continue;
        }
        let Ok(chunk) = rx.read_chunk(n) else {
            continue;
        };
        for m in chunk {
            match m {
                Msg::Arrive { t, first, n, burst } => side.arrive(t, first, n, burst),
                Msg::Finish(t) => side.finish_input(t),
                Msg::Watermark(w) => {
                    side.catch_up(w);
                    side.take_finished(&mut fin);
                    let next = side.next().unwrap_or(u64::MAX);
                    let k = fin.len() + 1;
                    let answers = fin.drain(..).map(Ans::Fin);
                    let mut answers = answers.chain(std::iter::once(Ans::Upto { upto: w, next }));
                    if let Ok(c) = tx.write_chunk_uninit(k) {
                        c.fill_from_iter(&mut answers);
                    }
                    for a in answers {
                        // A full ring whose reader is gone: the run is over.
                        push_waiting(&mut tx, a, &bells.mem, || {});
                    }
                    bells.mem.ring();
                }
            }
        }
    }
}

impl<D: DramBackend + Send + 'static> Remote<D> {
    /// Moves `side` to a new thread. `now` is the memory side's current core cycle.
    pub(crate) fn spawn(side: DramSide<D>, now: u64) -> std::io::Result<Self> {
        Self::spawn_with(side, now, RING)
    }

    /// [`Self::spawn`] with rings of `ring` messages each.
    fn spawn_with(side: DramSide<D>, now: u64, ring: usize) -> std::io::Result<Self> {
        let (tx, rx_thread) = RingBuffer::new(ring);
        let (tx_thread, rx) = RingBuffer::new(ring);
        let bells = Arc::new(Bells::default());
        let lookahead = side.lookahead();
        let in_dram = side.outstanding + side.overflow.iter().map(|q| q.len() as u64).sum::<u64>();
        let b = bells.clone();
        let handle = std::thread::Builder::new()
            .name("weft-dram".into())
            .spawn(move || serve(side, rx_thread, tx_thread, b))?;
        Ok(Remote {
            tx: Some(tx),
            rx: Some(rx),
            bells,
            handle: Some(handle),
            inbox: Vec::new(),
            k: Known {
                lookahead,
                // a visit at `now` or later delivers at `now + lookahead` or later
                safe_until: now + lookahead - 1,
                dram_next: if in_dram > 0 { now } else { u64::MAX },
                uncovered: VecDeque::new(),
                in_dram,
            },
            published: now.saturating_sub(1),
        })
    }
}

impl<D> Remote<D> {
    pub(crate) fn arrive(&mut self, t: u64, first: DramRequest, n: u32, burst: u64) {
        self.k.in_dram += n as u64;
        self.post(Msg::Arrive { t, first, n, burst });
        self.offered(t);
    }

    pub(crate) fn finish_input(&mut self, t: u64) {
        self.post(Msg::Finish(t));
        self.offered(t);
        self.bells.dram.ring();
    }

    /// Writes `m` for the DRAM thread (which reads it at once unless asleep; it is
    /// woken by the next watermark).
    fn post(&mut self, m: Msg) {
        let (Some(tx), Some(rx)) = (&mut self.tx, &mut self.rx) else {
            return;
        };
        let m = match tx.push(m) {
            Ok(()) => return,
            Err(PushError::Full(m)) => m,
        };
        // Full: take answers in while the DRAM thread catches up. A send fails
        // only if the DRAM thread is gone (it panicked); the panic surfaces at
        // `join`.
        let (k, inbox) = (&mut self.k, &mut self.inbox);
        push_waiting(tx, m, &self.bells.dram, || {
            k.take(rx, inbox);
        });
    }

    /// Something sent at `t` may make the DRAM side visit `t` or later.
    fn offered(&mut self, t: u64) {
        self.k.uncovered.push_back(t);
        self.k.safe_until = self.k.safe_until.min(t + self.k.lookahead - 1);
        self.k.dram_next = self.k.dram_next.min(t);
    }

    /// No burst of ours in the DRAM or on its way there.
    pub(crate) fn is_idle(&self) -> bool {
        self.k.in_dram == 0
    }

    /// Tells the DRAM side that nothing before `w + 1` will follow.
    fn publish(&mut self, w: u64) {
        debug_assert!(
            w >= self.published,
            "watermark {w} after {}",
            self.published
        );
        self.post(Msg::Watermark(w));
        self.published = w;
        self.bells.dram.ring();
    }

    /// Takes in every answer available; completions go to `out`. Returns the
    /// earliest delivery among them (`u64::MAX`: none).
    fn take(&mut self, out: &mut Vec<Finished>) -> u64 {
        match &mut self.rx {
            Some(rx) => self.k.take(rx, out),
            None => u64::MAX,
        }
    }

    /// Whether [`Self::settle`] would return `t` at once without a word to the
    /// DRAM side (its common case). `t` is the next core cycle the memory side
    /// processes (everything before it is done).
    #[inline]
    pub(crate) fn settled(&mut self, t: u64) -> bool {
        if self.k.in_dram == 0 {
            // Nothing of ours in the DRAM: every completion to come belongs to a
            // request offered at `t` or later, delivered `lookahead` after it. No
            // watermark is needed meanwhile either (the DRAM side has no visit to
            // make); the next one goes out after the next request.
            self.k.safe_until = self
                .k
                .safe_until
                .max(t.saturating_add(self.k.lookahead - 1));
            return true;
        }
        t <= self.k.safe_until && !self.should_publish(t)
    }

    /// Whether to tell the DRAM side now that everything before `t` is done: it
    /// has fallen half a lookahead behind and may have a visit to make.
    #[inline]
    fn should_publish(&self, t: u64) -> bool {
        t > self.published + self.k.lookahead / 2 && t > self.k.dram_next
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
        if let Some(c) = self.inbox.iter().map(|f| f.at).min() {
            t = t.min(c);
            out.append(&mut self.inbox);
        }
        loop {
            // Everything deliverable by `safe_until` is in already; answers that
            // arrived meanwhile are taken the next time they are needed.
            if t > self.k.safe_until && self.k.in_dram > 0 {
                t = t.min(self.take(out));
            }
            if self.k.in_dram == 0 || t <= self.k.safe_until {
                if t != u64::MAX && self.should_publish(t) {
                    // Let the DRAM side follow (everything before `t` is done).
                    self.publish(t - 1);
                }
                return t;
            }
            // Completions not received yet are delivered after `safe_until`.
            let w = t.min(self.k.safe_until + 1) - 1;
            // (`w == published`: that watermark's answer is on its way)
            if w > self.published {
                self.publish(w);
            }
            let Some(rx) = &self.rx else {
                self.k.in_dram = 0;
                continue;
            };
            self.bells.mem.wait(|| !rx.is_empty() || rx.is_abandoned());
            if rx.is_empty() {
                // The DRAM thread is gone (it panicked): `join` reports it.
                self.k.in_dram = 0;
            }
            t = t.min(self.take(out));
        }
    }

    /// Stops the thread and returns the DRAM side (re-raises a panic of the thread).
    pub(crate) fn join(mut self) -> DramSide<D> {
        self.hang_up();
        let h = self.handle.take().expect("joined once");
        match h.join() {
            Ok(side) => side,
            Err(p) => std::panic::resume_unwind(p),
        }
    }

    /// Closes both rings: the DRAM thread runs what it was sent and returns.
    fn hang_up(&mut self) {
        self.tx = None;
        self.bells.dram.ring();
        self.rx = None;
    }
}

impl Known {
    /// Takes every answer available in `rx`; completions go to `out`. Returns
    /// the earliest delivery among them (`u64::MAX`: none).
    fn take(&mut self, rx: &mut Consumer<Ans>, out: &mut Vec<Finished>) -> u64 {
        let mut earliest = u64::MAX;
        let n = rx.slots();
        let Ok(chunk) = rx.read_chunk(n) else {
            return earliest;
        };
        for a in chunk {
            match a {
                Ans::Fin(f) => {
                    self.in_dram -= 1;
                    earliest = earliest.min(f.at);
                    out.push(f);
                }
                Ans::Upto { upto, next } => {
                    // Up to `upto` everything is reported; after it the DRAM side
                    // visits nothing before `next`, unless a request sent after
                    // the watermark wakes it earlier.
                    while self.uncovered.front().is_some_and(|&u| u <= upto) {
                        self.uncovered.pop_front();
                    }
                    let first = self.uncovered.front().copied().unwrap_or(u64::MAX);
                    let quiet_until = next.min(first).saturating_sub(1).max(upto);
                    self.safe_until = self
                        .safe_until
                        .max(quiet_until.saturating_add(self.lookahead));
                    self.dram_next = next.min(first);
                }
            }
        }
        earliest
    }
}

impl<D> Drop for Remote<D> {
    fn drop(&mut self) {
        self.hang_up();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MachineConfig;
    use crate::dram_backend::{DdrBackend, Scheduler};
    use std::sync::atomic::AtomicU64;

    fn side() -> DramSide<DdrBackend> {
        let cfg = MachineConfig::preset("table5.2").unwrap();
        let dram = DdrBackend::new(&cfg.dram, Scheduler::FrFcfs, 1).unwrap();
        DramSide::new(dram, ClockRatio::new(cfg.core.freq_mhz, cfg.dram.tck_ns))
    }

    /// `(t, request)` pairs: a burst of reads and writes every few cycles, over
    /// few rows (hits, conflicts, forwarded reads).
    fn requests() -> Vec<(u64, DramRequest)> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut t = 0;
        (0..3_000u64)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                t += x % 4;
                let r = DramRequest {
                    id: i << 8,
                    addr: ((x >> 8) % (1 << 22)) & !63,
                    is_write: x % 5 == 0,
                    source: (i % 36) as u32,
                };
                (t, r)
            })
            .collect()
    }

    fn sorted(mut v: Vec<Finished>) -> Vec<Finished> {
        v.sort_by_key(|f| (f.at, f.id));
        v
    }

    /// The DRAM side run directly: every completion reported.
    fn local() -> Vec<Finished> {
        let mut s = side();
        let mut out = Vec::new();
        let reqs = requests();
        for &(t, r) in &reqs {
            s.arrive(t, r, 1, 64);
        }
        s.finish_input(reqs.last().unwrap().0 + 1);
        s.catch_up(u64::MAX);
        s.take_finished(&mut out);
        sorted(out)
    }

    /// The same on a thread with rings of `ring` messages, driven as the memory
    /// side does: settle each cycle before offering its requests.
    fn remote(ring: usize) -> Vec<Finished> {
        let mut r = Remote::spawn_with(side(), 0, ring).unwrap();
        let mut out = Vec::new();
        let reqs = requests();
        for &(t, q) in &reqs {
            let t = r.settle(t, None, &mut out).max(t);
            r.arrive(t, q, 1, 64);
        }
        r.finish_input(reqs.last().unwrap().0 + 1);
        while !r.is_idle() {
            r.settle(u64::MAX, None, &mut out);
        }
        let _ = r.join();
        sorted(out)
    }

    #[test]
    fn a_thread_with_full_rings_reports_what_the_side_reports() {
        let want = local();
        assert_eq!(want.len(), 3_000);
        // Rings of one and two messages: both sides wait on full rings all the
        // time (the memory side taking answers in meanwhile).
        for ring in [1, 2, 4096] {
            assert_eq!(remote(ring), want, "rings of {ring}");
        }
    }

    #[test]
    fn a_sleeping_side_wakes_when_rung() {
        let bell = Arc::new(Doorbell::default());
        let flag = Arc::new(AtomicU64::new(0));
        let (b, f) = (bell.clone(), flag.clone());
        let other = std::thread::spawn(move || {
            // long enough for the waiter to fall asleep
            std::thread::sleep(std::time::Duration::from_millis(200));
            f.store(1, Ordering::Release);
            b.ring();
        });
        bell.wait(|| flag.load(Ordering::Acquire) == 1);
        assert_eq!(flag.load(Ordering::Acquire), 1);
        other.join().unwrap();
    }
}
