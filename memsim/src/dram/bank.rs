//! One DRAM bank: its row buffer and the earliest cycle at which each command
//! may be issued to it because of its own past commands.
//!
//! Same-bank constraints enforced here (JEDEC DDR4, DRAM cycles):
//! ACT→RD/WR ≥ tRCD, ACT→PRE ≥ tRAS, ACT→ACT ≥ tRC = tRAS + tRP, RD→PRE ≥ tRTP,
//! WR→PRE ≥ tCWL + tBL + tWR, PRE→ACT ≥ tRP; auto-precharge (closed-row policy)
//! starts at max(column + tRTP (read) or tCWL + tBL + tWR (write), ACT + tRAS).
//! Bank-group, rank and channel constraints live in [`super::rank`] and
//! [`super::channel`]. Invariant: `open_row` is `Some` exactly between an ACT and
//! the next PRE (explicit or automatic) or REF.

/// Row-buffer state and per-bank earliest issue times.
#[derive(Debug, Clone, Default)]
pub struct Bank {
    /// Open row, if any.
    pub open_row: Option<u32>,
    /// Cycle of the last ACT.
    pub last_act: u64,
    /// Column commands since the last ACT (DRAMsim3's row-hit count).
    pub hits_since_act: u32,
    /// Earliest ACT.
    pub next_act: u64,
    /// Earliest PRE.
    pub next_pre: u64,
    /// Earliest RD.
    pub next_rd: u64,
    /// Earliest WR.
    pub next_wr: u64,
}

impl Bank {
    /// The bank's own part of the ready time of each command of the controller's
    /// `CMDS` order (ACT, PRE, RD, WR), for its row state: ACT of a precharged
    /// bank, PRE, RD and WR of an open one, `u64::MAX` for the others. The ready
    /// time of a command is this term's maximum with its bank group's and rank's
    /// (PRE has none). Selected by masks, without branches (a bank's row state is
    /// unpredictable).
    #[inline]
    pub fn own_ready(&self) -> [u64; 4] {
        let open = u64::from(self.open_row.is_some()).wrapping_neg();
        [
            self.next_act | open,
            self.next_pre | !open,
            self.next_rd | !open,
            self.next_wr | !open,
        ]
    }

    /// Record an ACT of `row` at `t`.
    pub fn activate(&mut self, t: u64, row: u32, tm: &super::Timing) {
        self.open_row = Some(row);
        self.last_act = t;
        self.hits_since_act = 0;
        self.next_rd = self.next_rd.max(t + tm.rcd);
        self.next_wr = self.next_wr.max(t + tm.rcd);
        self.next_pre = self.next_pre.max(t + tm.ras);
        self.next_act = self.next_act.max(t + tm.ras + tm.rp);
    }

    /// Record a PRE at `t`.
    pub fn precharge(&mut self, t: u64, tm: &super::Timing) {
        self.open_row = None;
        self.next_act = self.next_act.max(t + tm.rp);
    }

    /// Record a RD at `t`, with auto-precharge if `auto_pre`.
    pub fn read(&mut self, t: u64, auto_pre: bool, tm: &super::Timing) {
        self.hits_since_act += 1;
        self.next_pre = self.next_pre.max(t + tm.rtp);
        if auto_pre {
            let pre = (t + tm.rtp).max(self.last_act + tm.ras);
            self.open_row = None;
            self.next_act = self.next_act.max(pre + tm.rp);
        }
    }

    /// Record a WR at `t`, with auto-precharge if `auto_pre`.
    pub fn write(&mut self, t: u64, auto_pre: bool, tm: &super::Timing) {
        self.hits_since_act += 1;
        let wr_to_pre = t + tm.cwl + tm.bl + tm.wr;
        self.next_pre = self.next_pre.max(wr_to_pre);
        if auto_pre {
            let pre = wr_to_pre.max(self.last_act + tm.ras);
            self.open_row = None;
            self.next_act = self.next_act.max(pre + tm.rp);
        }
    }

    /// Record a refresh of the bank's rank at `t` (bank must be closed).
    pub fn refresh(&mut self, t: u64, tm: &super::Timing) {
        self.open_row = None;
        self.next_act = self.next_act.max(t + tm.rfc);
    }
}
