//! Issue gates: per warp slot, a compact record of why and until when its next
//! instruction cannot issue, so that a scheduler's scan skips waiting warps
//! without touching their warp records (`Sm::step`).
//!
//! A gate caches the answer of `Sm::ready` for as long as that answer cannot
//! change: a fixed time (`ready_at`, operands with a known data time, a unit
//! chain), "until an event" (a load returning, the miss queue draining, a barrier
//! release, a launch answered: time `u64::MAX`), or a functional unit or the
//! shared-memory banks being busy, whose free time is read at every scan (other
//! warps' issues can only move it later), or room in the miss queue, also
//! checked at every scan. A gate is opened again (`Gate::OPEN`:
//! ask `ready`) by every event that changes its warp: its own issue, a returning
//! load, a barrier release, a launch answer and a
//! new warp in the slot. Code that changes a warp's state elsewhere must call
//! `Sm::open_gate` for it.

use super::Stall;

/// What a waiting warp waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Wait {
    /// Until the cycle in `Gate::at` (`u64::MAX`: until an event), for `Stall`.
    Until(Stall),
    /// The functional unit of this index (SP, SFU, DP) of its scheduler.
    Unit(u8),
    /// The shared-memory banks (bank-conflict replays).
    Smem,
    /// Room in the miss queue (LSU back-pressure) for a global memory
    /// instruction: waits while the queue holds `lsu_queue` transactions.
    Lsu,
}

/// The issue gate of one warp slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Gate {
    /// For [`Wait::Until`]: the first cycle `ready` has to be asked again.
    pub at: u64,
    /// What it waits for.
    pub wait: Wait,
}

impl Gate {
    /// Nothing known: ask `ready`.
    pub const OPEN: Gate = Gate {
        at: 0,
        wait: Wait::Until(Stall::NoWarp),
    };
}
