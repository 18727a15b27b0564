//! A rank and its bank groups: constraints shared by banks of one rank.
//!
//! Enforced here (JEDEC DDR4, DRAM cycles):
//! * same bank group: RD→RD and WR→WR ≥ max(tBL, tCCD_L), WR→RD ≥ tCWL + tBL +
//!   tWTR_L, ACT→ACT ≥ tRRD_L;
//! * other bank group, same rank: RD→RD and WR→WR ≥ max(tBL, tCCD_S), WR→RD ≥
//!   tCWL + tBL + tWTR_S, ACT→ACT ≥ tRRD_S, RD→WR ≥ tCL + tBL − tCWL + tRTRS;
//! * tFAW: at most four ACTs per rank in any tFAW window;
//! * commands from *other* ranks (data-bus turnaround, stored per rank):
//!   RD→RD ≥ tBL + tRTRS, RD→WR ≥ tCL + tBL + tRTRS − tCWL, WR→RD ≥ tCWL + tBL +
//!   tRTRS − tCL, WR→WR ≥ tBL + tRTRS;
//! * REF: all banks precharged; REF→ACT ≥ tRFC (kept in the banks).
//!
//! These are the command-to-command rules of DRAMsim3's `timing.cc` (which
//! derives them from JEDEC JESD79-4), except WR→WR across ranks, where
//! DRAMsim3 omits tRTRS.

/// Earliest issue times imposed by one bank group.
#[derive(Debug, Clone, Default)]
pub struct BankGroup {
    /// Earliest ACT (tRRD_L).
    pub next_act: u64,
    /// Earliest RD (tCCD_L, tWTR_L).
    pub next_rd: u64,
    /// Earliest WR (tCCD_L, read-to-write).
    pub next_wr: u64,
}

/// Earliest issue times imposed by one rank, and its activate window.
#[derive(Debug, Clone, Default)]
pub struct Rank {
    /// Earliest ACT (tRRD_S).
    pub next_act: u64,
    /// Earliest RD from this rank's own commands (tCCD_S, tWTR_S).
    pub next_rd: u64,
    /// Earliest WR from this rank's own commands.
    pub next_wr: u64,
    /// Earliest RD because of other ranks' commands.
    pub other_rd: u64,
    /// Earliest WR because of other ranks' commands.
    pub other_wr: u64,
    /// Times of the last four ACTs (ring buffer) for tFAW.
    acts: [u64; 4],
    /// Number of ACTs recorded (saturates at 4 for the ring logic).
    n_acts: u8,
    /// Ring index of the oldest of the last four ACTs.
    oldest: u8,
    /// A refresh is due and not yet issued.
    pub refresh_pending: bool,
}

impl Rank {
    /// Earliest ACT allowed by tRRD_S and tFAW.
    #[inline]
    pub fn act_ready(&self, faw: u64) -> u64 {
        if self.n_acts < 4 {
            self.next_act
        } else {
            self.next_act.max(self.acts[self.oldest as usize] + faw)
        }
    }

    /// Record an ACT at `t`.
    pub fn activate(&mut self, t: u64, rrd_s: u64) {
        self.next_act = self.next_act.max(t + rrd_s);
        if self.n_acts < 4 {
            self.acts[self.n_acts as usize] = t;
            self.n_acts += 1;
        } else {
            self.acts[self.oldest as usize] = t;
            self.oldest = (self.oldest + 1) % 4;
        }
    }
}
