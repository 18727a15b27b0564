//! One channel's devices: ranks, bank groups and banks, and the timing rules
//! that combine them (the command bus carries one command per DRAM cycle; the
//! data bus is kept conflict-free by the column-to-column rules).
//!
//! [`Channel::ready`] answers "earliest cycle command X may go to bank b" as the
//! maximum of the bank's, its bank group's and its rank's constraints (plus tFAW
//! for ACT); [`Channel::issue`] records a command. Neither allocates.

use super::bank::Bank;
use super::rank::{BankGroup, Rank};
use super::Timing;

/// A DRAM command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum CommandKind {
    /// Activate (open a row).
    Act,
    /// Precharge (close the open row).
    Pre,
    /// Column read (with auto-precharge under the closed-row policy).
    Rd,
    /// Column write (with auto-precharge under the closed-row policy).
    Wr,
    /// All-bank refresh of a rank.
    Ref,
}

/// Timing state of one channel.
#[derive(Debug, Clone)]
pub struct Channel {
    /// Timing parameters.
    pub tm: Timing,
    /// Banks, indexed by bank-in-channel `(rank × bankgroups + bankgroup) × banks + bank`.
    pub banks: Vec<Bank>,
    /// Bank groups, indexed `rank × bankgroups + bankgroup`.
    pub groups: Vec<BankGroup>,
    /// Ranks.
    pub ranks: Vec<Rank>,
    banks_per_rank: u32,
    /// Bank-group index of each bank.
    group_idx: Vec<u32>,
    /// Rank index of each bank.
    rank_idx: Vec<u32>,
}

impl Channel {
    /// A channel with all banks precharged.
    pub fn new(tm: Timing, ranks: u32, bankgroups: u32, banks_per_group: u32) -> Self {
        let n = (ranks * bankgroups * banks_per_group) as usize;
        Channel {
            tm,
            banks: vec![Bank::default(); n],
            groups: vec![BankGroup::default(); (ranks * bankgroups) as usize],
            ranks: vec![Rank::default(); ranks as usize],
            banks_per_rank: bankgroups * banks_per_group,
            group_idx: (0..n as u32).map(|b| b / banks_per_group).collect(),
            rank_idx: (0..n as u32)
                .map(|b| b / (bankgroups * banks_per_group))
                .collect(),
        }
    }

    /// Rank of a bank-in-channel index.
    #[inline]
    pub fn rank_of(&self, b: usize) -> usize {
        self.rank_idx[b] as usize
    }

    /// Bank-group index (into `groups`) of a bank.
    #[inline]
    pub fn group_of(&self, b: usize) -> usize {
        self.group_idx[b] as usize
    }

    /// Banks per rank.
    pub fn banks_per_rank(&self) -> usize {
        self.banks_per_rank as usize
    }

    /// Earliest cycle at which `kind` may be issued to bank `b` (ignores the
    /// bank's row state: the caller asks for the command the state requires).
    #[inline(always)]
    pub fn ready(&self, kind: CommandKind, b: usize) -> u64 {
        let bank = &self.banks[b];
        match kind {
            CommandKind::Act => {
                let g = &self.groups[self.group_of(b)];
                let r = &self.ranks[self.rank_of(b)];
                bank.next_act.max(g.next_act).max(r.act_ready(self.tm.faw))
            }
            CommandKind::Pre => bank.next_pre,
            CommandKind::Rd => {
                let g = &self.groups[self.group_of(b)];
                let r = &self.ranks[self.rank_of(b)];
                bank.next_rd.max(g.next_rd).max(r.next_rd).max(r.other_rd)
            }
            CommandKind::Wr => {
                let g = &self.groups[self.group_of(b)];
                let r = &self.ranks[self.rank_of(b)];
                bank.next_wr.max(g.next_wr).max(r.next_wr).max(r.other_wr)
            }
            CommandKind::Ref => self.refresh_ready(self.rank_of(b)).unwrap_or(u64::MAX),
        }
    }

    /// Earliest (RD, WR) of bank `b` (same as [`Self::ready`] for each).
    #[inline]
    pub fn ready_column(&self, b: usize) -> (u64, u64) {
        let bank = &self.banks[b];
        let g = &self.groups[self.group_of(b)];
        let r = &self.ranks[self.rank_of(b)];
        (
            bank.next_rd.max(g.next_rd).max(r.next_rd).max(r.other_rd),
            bank.next_wr.max(g.next_wr).max(r.next_wr).max(r.other_wr),
        )
    }

    /// Earliest REF of `rank`, or `None` while one of its banks is open.
    pub fn refresh_ready(&self, rank: usize) -> Option<u64> {
        let lo = rank * self.banks_per_rank as usize;
        let mut t = 0;
        for bank in &self.banks[lo..lo + self.banks_per_rank as usize] {
            if bank.open_row.is_some() {
                return None;
            }
            t = t.max(bank.next_act);
        }
        Some(t)
    }

    /// Record `kind` issued to bank `b` (for REF: to `b`'s rank) at `t`.
    /// `row` is the row of an ACT; `auto_pre` closes the row after RD/WR.
    pub fn issue(&mut self, kind: CommandKind, b: usize, row: u32, t: u64, auto_pre: bool) {
        let tm = self.tm;
        let gi = self.group_of(b);
        let ri = self.rank_of(b);
        match kind {
            CommandKind::Act => {
                self.banks[b].activate(t, row, &tm);
                let g = &mut self.groups[gi];
                g.next_act = g.next_act.max(t + tm.rrd_l);
                self.ranks[ri].activate(t, tm.rrd_s);
            }
            CommandKind::Pre => self.banks[b].precharge(t, &tm),
            CommandKind::Rd => {
                self.banks[b].read(t, auto_pre, &tm);
                let g = &mut self.groups[gi];
                g.next_rd = g.next_rd.max(t + tm.bl.max(tm.ccd_l));
                g.next_wr = g.next_wr.max(t + tm.read_to_write());
                let r = &mut self.ranks[ri];
                r.next_rd = r.next_rd.max(t + tm.bl.max(tm.ccd_s));
                r.next_wr = r.next_wr.max(t + tm.read_to_write());
                let (o_rd, o_wr) = (
                    t + tm.bl + tm.rtrs,
                    (t + tm.cl + tm.bl + tm.rtrs).saturating_sub(tm.cwl),
                );
                for (i, r) in self.ranks.iter_mut().enumerate() {
                    if i != ri {
                        r.other_rd = r.other_rd.max(o_rd);
                        r.other_wr = r.other_wr.max(o_wr);
                    }
                }
            }
            CommandKind::Wr => {
                self.banks[b].write(t, auto_pre, &tm);
                let g = &mut self.groups[gi];
                g.next_rd = g.next_rd.max(t + tm.cwl + tm.bl + tm.wtr_l);
                g.next_wr = g.next_wr.max(t + tm.bl.max(tm.ccd_l));
                let r = &mut self.ranks[ri];
                r.next_rd = r.next_rd.max(t + tm.cwl + tm.bl + tm.wtr_s);
                r.next_wr = r.next_wr.max(t + tm.bl.max(tm.ccd_s));
                let (o_rd, o_wr) = (
                    (t + tm.cwl + tm.bl + tm.rtrs).saturating_sub(tm.cl),
                    t + tm.bl + tm.rtrs,
                );
                for (i, r) in self.ranks.iter_mut().enumerate() {
                    if i != ri {
                        r.other_rd = r.other_rd.max(o_rd);
                        r.other_wr = r.other_wr.max(o_wr);
                    }
                }
            }
            CommandKind::Ref => {
                let lo = ri * self.banks_per_rank as usize;
                for bank in &mut self.banks[lo..lo + self.banks_per_rank as usize] {
                    bank.refresh(t, &tm);
                }
                self.ranks[ri].refresh_pending = false;
            }
        }
    }
}
