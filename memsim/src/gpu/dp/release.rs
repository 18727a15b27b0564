//! Block and release the TB at `sync_children` (`sync_children =
//! "block_release"`; issue #31 item 1, digest §3.1 "Launches are asynchronous. A
//! parent waits only at completion or at `cudaDeviceSynchronize`. A parent CTA
//! that is entirely waiting at sync relinquishes its resources", §8.1
//! "Parent–child synchronisation (optional)"; the context cost is FGTB's, §6.1
//! "Preemption and context" and §8.1 "TB preemption").
//!
//! The CUDA programming guide says of device-side `cudaDeviceSynchronize` only
//! that the parent block "may be swapped out" to make room for its children; the
//! papers give no cost. The model, and its assumptions:
//! - **When.** Each warp waits for its own lanes' children (as `block_warp`). A
//!   TB is released when the warp that makes all of its unfinished warps wait
//!   issues `sync_children` (`Sm::tb_all_waiting`). A TB whose last running
//!   warp finishes instead of waiting stays resident (the SM reports warp exits
//!   to nobody; in the templates the warps without work finish at their start).
//! - **Save.** The context, `threads × regs_per_thread × 4 + smem` bytes
//!   ([`context_bytes`]), is written from the TB's SM to a per-TB save area as
//!   line write-backs through the crossbar, L2 and DRAM, one line per `pace`
//!   cycles on the SM's port ([`Mover`], non-cacheable). The TB keeps its
//!   registers, shared memory, threads and TB slot until its last line left the
//!   port; then they return to the SM (`Sm::release_tb`) and other TBs, its
//!   children first of all, may be dispatched into them.
//! - **Restore.** When every waiting warp's children completed (a child
//!   completes after its own children) the TB asks for its resources back on the
//!   SM it left; it takes them as soon as they fit there (TBs dispatched
//!   meanwhile may delay it; a restore is tried before new TBs are dispatched),
//!   reads its context back, and its warps issue one cycle after the last line
//!   returned. Children that complete while the save is still going make the
//!   restore start when the save ends (a swap in progress is not cancelled).
//!   The TB returns to the same SM because the simulator keeps its warps' state
//!   in that SM's arrays; hardware could restore it to any SM with room.
//! - **Not with `--tb-manage`.** FGTB's manager owns the context-read tokens;
//!   with it, `block_release` behaves as `block_warp` (no release).

use super::call::LaunchCall;
use crate::gpu::fgtb::context::{context_bytes, Dir, Mover};
use crate::gpu::smcore::Sm;
use crate::system::{DramBackend, MemorySystem};
use serde::Serialize;

/// Where a released TB is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Context being written (transfer id).
    Saving(u32),
    /// Saved; its resources are free.
    Saved,
    /// Children done; waiting for room on its SM.
    Waiting,
    /// Context being read back (transfer id).
    Restoring(u32),
}

/// A TB that is saving, saved or restoring.
#[derive(Debug, Clone)]
struct Released {
    sm: u32,
    gid: u32,
    bytes: u64,
    /// Warps waiting at `sync_children` when it was released.
    waiting: u32,
    /// Their answered calls (the cycle the children completed).
    woken: Vec<(LaunchCall, u64)>,
    state: State,
    /// Cycle the save started, the restore was asked for.
    saved_at: u64,
    asked_at: u64,
}

/// Counters of the released TBs (`dp` in `--json`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReleaseStats {
    /// TBs that released their resources.
    pub released_tbs: u64,
    /// TBs restored.
    pub restored_tbs: u64,
    /// Context bytes saved and restored (whole lines).
    pub context_bytes: u64,
    /// Cycles from the start of a save to the release of the resources, summed.
    pub save_cycles: u64,
    /// Cycles from the children's completion to the restore's start (room on
    /// the SM), summed.
    pub restore_wait_cycles: u64,
    /// Cycles of the context reads, summed.
    pub restore_cycles: u64,
}

/// The released TBs of a run and their context traffic.
pub struct TbRelease {
    mover: Mover,
    line_bytes: u64,
    tbs: Vec<Released>,
    /// Counters.
    pub stats: ReleaseStats,
}

impl TbRelease {
    /// For `sms` SMs with `line_bytes` lines moved one per `pace` cycles per port.
    pub fn new(sms: usize, line_bytes: u32, pace: u64) -> Self {
        TbRelease {
            mover: Mover::new(sms, line_bytes, pace, false),
            line_bytes: line_bytes.max(1) as u64,
            tbs: Vec::new(),
            stats: ReleaseStats::default(),
        }
    }

    /// Warp `call` started waiting at `sync_children` at `t` on `sm`; when all
    /// of its TB's unfinished warps now wait, the TB's save starts. `ctx` is
    /// (threads, registers per thread, shared memory bytes) of the TB.
    pub fn on_wait(&mut self, call: &LaunchCall, sm: &Sm, ctx: (u32, u32, u32), t: u64) {
        let Some(gid) = sm.tb_all_waiting(call.warp_slot) else {
            return;
        };
        if self.find(call.sm, gid).is_some() {
            return;
        }
        let waiting = sm.tb_unfinished_warps(gid);
        let bytes = context_bytes(ctx.0, ctx.1, ctx.2);
        let job = self.mover.start(call.sm, Dir::Save, gid, bytes, t);
        self.stats.released_tbs += 1;
        self.tbs.push(Released {
            sm: call.sm,
            gid,
            bytes,
            waiting,
            woken: Vec::new(),
            state: State::Saving(job),
            saved_at: t,
            asked_at: 0,
        });
    }

    /// Warp `call`'s children completed at `at`. Returns the call back when its
    /// TB was not released (the caller answers it now); else keeps it until the
    /// TB is restored.
    pub fn on_woken(&mut self, call: LaunchCall, at: u64, sms: &[Sm]) -> Option<LaunchCall> {
        let Some(gid) = sms[call.sm as usize].tb_of_warp(call.warp_slot) else {
            return Some(call);
        };
        let Some(i) = self.find(call.sm, gid) else {
            return Some(call);
        };
        let r = &mut self.tbs[i];
        r.woken.push((call, at));
        if r.woken.len() as u32 == r.waiting {
            r.asked_at = at;
            if r.state == State::Saved {
                r.state = State::Waiting;
            }
        }
        None
    }

    /// Moves context lines at `t`: ends saves (the resources return to the
    /// SM) and starts the restores that fit. Returns whether resources changed.
    pub fn pump<D: DramBackend>(
        &mut self,
        t: u64,
        mem: &mut MemorySystem<D>,
        sms: &mut [Sm],
    ) -> bool {
        let mut changed = false;
        for (job, end) in self.mover.pump(t, mem) {
            let Some(r) = self.tbs.iter_mut().find(|r| r.state == State::Saving(job)) else {
                continue;
            };
            sms[r.sm as usize].release_tb(r.gid, t);
            self.stats.save_cycles += end.max(t) - r.saved_at;
            self.stats.context_bytes += self.mover.lines(r.bytes) as u64 * self.line_bytes;
            r.state = if r.woken.len() as u32 == r.waiting {
                State::Waiting
            } else {
                State::Saved
            };
            changed = true;
        }
        for r in self.tbs.iter_mut().filter(|r| r.state == State::Waiting) {
            let sm = &mut sms[r.sm as usize];
            let Some(cost) = sm.tb_cost(r.gid) else {
                continue;
            };
            if !sm.fits_cost(&cost) {
                continue;
            }
            sm.reserve(&cost, t);
            self.stats.restore_wait_cycles += t.saturating_sub(r.asked_at);
            let job = self.mover.start(r.sm, Dir::Restore, r.gid, r.bytes, t);
            r.state = State::Restoring(job);
            r.saved_at = t;
            changed = true;
        }
        changed
    }

    /// Whether a restore waits for room (the engine retries after TB exits).
    pub fn waiting(&self) -> bool {
        self.tbs.iter().any(|r| r.state == State::Waiting)
    }

    /// A context read with `token` returned at `t`; when it ends a restore, the
    /// TB's warps return to the SM and their calls are answered (issue at
    /// `t + 1`). Returns the answered calls.
    pub fn read_done(&mut self, token: u64, t: u64, sms: &mut [Sm]) -> Vec<LaunchCall> {
        let Some(job) = self.mover.complete(token, t) else {
            return Vec::new();
        };
        let Some(i) = self
            .tbs
            .iter()
            .position(|r| r.state == State::Restoring(job))
        else {
            return Vec::new();
        };
        let r = self.tbs.remove(i);
        let sm = &mut sms[r.sm as usize];
        sm.return_tb(r.gid, t);
        self.stats.restored_tbs += 1;
        self.stats.restore_cycles += t - r.saved_at;
        self.stats.context_bytes += self.mover.lines(r.bytes) as u64 * self.line_bytes;
        let mut out = Vec::with_capacity(r.woken.len());
        for (c, _) in r.woken {
            sm.resolve_launch(&c, 0, t + 1);
            out.push(c);
        }
        out
    }

    /// The next cycle after `t` a context line may be issued.
    pub fn next_event(&self, t: u64) -> Option<u64> {
        self.mover.next_event(t)
    }

    fn find(&self, sm: u32, gid: u32) -> Option<usize> {
        self.tbs.iter().position(|r| r.sm == sm && r.gid == gid)
    }
}
