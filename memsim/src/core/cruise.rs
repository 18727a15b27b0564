//! Cruising through long gaps: a core that executes many non-memory
//! instructions in a row is not stepped cycle by cycle (issue #38: a gap of
//! 2^32-1 instructions took 112 s and 950 MB; the simulator must be
//! event-driven, its cost growing with work, not with idle time).
//!
//! The steady state: after a step at cycle `t`, the ROB holds only gap
//! instructions (no memory access), all ready by `t + 1`, `R` of them with
//! `width ≤ R ≤ rob`, and the gap has `G ≥ 2 × width` instructions left. Then
//! every following cycle retires `width` instructions from the front (all are
//! ready: an entry dispatched at cycle `c` is ready at `c + 1`) and dispatches
//! `width` more, ready the next cycle: `R` stays constant, nothing touches the
//! memory system, and MLP Ideal's clustering issues nothing (the cruise is not
//! taken when a record could enter its window before the cruise ends). So the core
//! sleeps until `t + 1 + ⌊G / width⌋` and its state after any number `e` of
//! those cycles follows in closed form from a snapshot of the ROB: the first
//! `e × width` instructions of (snapshot, then one `width` entry per cycle)
//! have retired. Should the core be stepped earlier (a completion or an
//! invalidation woke it), the state is rebuilt for the cycles actually
//! elapsed; otherwise for all of them. Either way it is exactly the state the
//! cycle-by-cycle model would have had (`tests/all/hostile.rs` compares both).

use super::{Core, RobEntry, SEQ_MASK};

thread_local! {
    static ENABLED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Turns cruising on or off for the cores stepped on this thread (on by
/// default); for tests that check that it changes nothing.
#[doc(hidden)]
pub fn set_cruise(on: bool) {
    ENABLED.with(|c| c.set(on));
}

/// A cruise in progress: the state after cycle `t0` and the cycles it covers.
#[derive(Debug)]
pub(super) struct Cruise {
    t0: u64,
    cycles: u64,
    rob: Vec<RobEntry>,
    gap_left: u32,
    instructions: u64,
    head_seq: u32,
}

impl Core {
    /// At the end of a step at `t` that made progress: starts a cruise if the
    /// core is in the steady state (module docs). Returns the next cycle to
    /// step.
    pub(super) fn cruise(&mut self, t: u64) -> u64 {
        let w = self.p.width;
        let cycles = u64::from(self.gap_left / w);
        if cycles < 2
            || self.cur.is_none()
            || self.rob_count < w
            || self.rob_count > self.p.rob
            // MLP Ideal: no record may enter the window during the cruise (the
            // ROB and the gap left after it still fill the window).
            || (self.p.lookahead > 0
                && u64::from(self.rob_count) + u64::from(self.gap_left) + 2
                    <= u64::from(self.p.lookahead) + cycles * u64::from(w))
            || !self.rob.iter().all(|e| !e.record && e.ready <= t + 1)
            || !ENABLED.with(|c| c.get())
        {
            return t + 1;
        }
        self.cruise = Some(Box::new(Cruise {
            t0: t,
            cycles,
            rob: self.rob.iter().copied().collect(),
            gap_left: self.gap_left,
            instructions: self.st.instructions,
            head_seq: self.head_seq,
        }));
        self.cruising = true;
        t + 1 + cycles
    }

    /// Before stepping cycle `t`: brings a cruise's state up to the start of
    /// cycle `t` (or to its end, if `t` is past it) and ends the cruise.
    pub(super) fn end_cruise(&mut self, t: u64) {
        self.cruising = false;
        let Some(c) = self.cruise.take() else {
            return;
        };
        let e = t.saturating_sub(c.t0 + 1).min(c.cycles);
        let w = u64::from(self.p.width);
        let mut pop = e * w;
        let mut popped = 0u64;
        self.rob.clear();
        for s in &c.rob {
            let n = u64::from(s.n);
            if pop >= n {
                pop -= n;
                popped += 1;
            } else {
                self.rob.push_back(RobEntry {
                    n: (n - pop) as u32,
                    ..*s
                });
                pop = 0;
            }
        }
        // Entry j (j < e) was dispatched at cycle t0 + 1 + j: `width`
        // instructions ready at t0 + 2 + j. The first `pop` of them retired.
        let skip = (pop / w).min(e);
        let part = pop % w;
        popped += skip;
        for j in skip..e {
            let n = if j == skip { w - part } else { w };
            self.rob.push_back(RobEntry {
                n: n as u32,
                ready: c.t0 + 2 + j,
                record: false,
            });
        }
        self.gap_left = c.gap_left - (e * w) as u32;
        self.st.instructions = c.instructions + e * w;
        self.head_seq = c.head_seq.wrapping_add(popped as u32) & SEQ_MASK;
    }
}
