//! Choosing the next command: the general path asks the scheduler about every
//! eligible request; the fast path (class-uniform schedulers) only about each
//! bank's [`BankView`](super::view::BankView) representatives, with FR-FCFS's
//! priority computed in place. Both return the earliest cycle a command may
//! become ready when nothing can issue. Command ready times and per-bank gates
//! are cached between commands.

use crate::config::BankArbitration;
use crate::stats::ParallelismTracker;

use super::super::channel::CommandKind;
use super::super::scheduler::{Candidate, Policy, QueuedRequest};
use super::queue::Entry;
use super::view::CMDS;
use super::Controller;

impl Controller {
    #[inline]
    pub(super) fn eligible(&self, e: &Entry, t: u64) -> bool {
        if e.eligible_from > t || e.after_read {
            return false;
        }
        if !self.staged() && e.req.is_write != self.draining {
            return false;
        }
        !self.ch.ranks[self.ch.rank_of(e.req.bank as usize)].refresh_pending
    }

    /// Pick and issue one command; returns (issued, earliest future ready time).
    ///
    /// Banks whose required commands are not ready are skipped in O(1): every
    /// request of a precharged bank needs ACT, and those of an open bank need
    /// either the column command (row hits) or PRE.
    pub(super) fn schedule(&mut self, t: u64, blp: &mut ParallelismTracker) -> (bool, u64) {
        if self.window_len == 0 {
            return (false, u64::MAX);
        }
        let (pick, future) = if self.fast {
            let fast = self.pick_fast(t);
            #[cfg(debug_assertions)]
            {
                let general = self.pick_general(t);
                debug_assert_eq!(fast.0, general.0, "fast scheduling path diverged at {t}");
                if fast.0.is_none() {
                    debug_assert_eq!(fast.1, general.1, "fast wake-up bound diverged at {t}");
                }
            }
            fast
        } else {
            self.pick_general(t)
        };
        match pick {
            Some((b, j, cmd)) => {
                self.issue(b, j, cmd, t, blp);
                (true, t + 1)
            }
            None => (false, future),
        }
    }

    /// The scheduler's choice at `t` among all ready requests, as
    /// (bank, index in its window queue, command), and a lower bound of the next
    /// cycle at which some command may be ready (when there is no choice).
    pub(super) fn pick_general(&mut self, t: u64) -> (Option<(usize, usize, CommandKind)>, u64) {
        if self.sched.wants_prepare() {
            let mut reqs: Vec<QueuedRequest> = self
                .window
                .iter()
                .flatten()
                .map(|k| self.slab[k.idx as usize].req.clone())
                .collect();
            reqs.sort_by_key(|r| r.seq);
            self.sched.prepare(t, &mut reqs);
            for q in self.window.iter() {
                for key in q.iter() {
                    let e = &mut self.slab[key.idx as usize];
                    if let Ok(k) = reqs.binary_search_by_key(&e.req.seq, |r| r.seq) {
                        e.req.sched_state = reqs[k].sched_state;
                    }
                }
            }
        }
        let mut future = u64::MAX;
        // (priority, seq, bank, index, command)
        let mut best: Option<(u64, u64, usize, usize, CommandKind)> = None;
        for b in 0..self.window.len() {
            let q = &self.window[b];
            if q.is_empty() {
                continue;
            }
            let rank = self.ch.rank_of(b);
            if self.ch.ranks[rank].refresh_pending {
                continue;
            }
            let bank = &self.ch.banks[b];
            let (rt_a, rt_b) = match bank.open_row {
                None => (self.ch.ready(CommandKind::Act, b), u64::MAX),
                Some(_) => (
                    self.ch
                        .ready(CommandKind::Rd, b)
                        .min(self.ch.ready(CommandKind::Wr, b)),
                    self.ch.ready(CommandKind::Pre, b),
                ),
            };
            if rt_a > t && rt_b > t {
                // nothing of this bank can issue now; a lower bound suffices as wake-up time
                future = future.min(rt_a.min(rt_b));
                continue;
            }
            let mut earliest_elig = u64::MAX;
            let mut any_elig = false;
            let mut has_hits = false;
            for key in q {
                let e = &self.slab[key.idx as usize];
                if e.eligible_from > t {
                    earliest_elig = earliest_elig.min(e.eligible_from);
                } else if self.eligible(e, t) {
                    any_elig = true;
                    if bank.open_row == Some(e.req.row) {
                        has_hits = true;
                    }
                }
            }
            if earliest_elig != u64::MAX {
                future = future.min(earliest_elig.max(rt_a.min(rt_b)));
            }
            if !any_elig {
                continue;
            }
            let mut oldest = true;
            for (j, key) in q.iter().enumerate() {
                let e = &self.slab[key.idx as usize];
                if e.eligible_from > t || !self.eligible(e, t) {
                    continue;
                }
                let first = oldest;
                oldest = false;
                let (cmd, hit) = match bank.open_row {
                    Some(r) if r == e.req.row => (
                        if e.req.is_write {
                            CommandKind::Wr
                        } else {
                            CommandKind::Rd
                        },
                        true,
                    ),
                    Some(_) => (CommandKind::Pre, false),
                    None => (CommandKind::Act, false),
                };
                let rt = match cmd {
                    CommandKind::Act => rt_a,
                    CommandKind::Pre => rt_b,
                    _ => self.ch.ready(cmd, b),
                };
                if rt > t {
                    future = future.min(rt);
                    continue;
                }
                let c = Candidate {
                    req: &e.req,
                    command: cmd,
                    row_hit: hit,
                    oldest_in_bank: first,
                    bank_has_hits: has_hits,
                    hits_since_act: bank.hits_since_act,
                };
                if let Some(p) = self.sched.priority(t, &c) {
                    let better = match best {
                        None => true,
                        Some((bp, bs, ..)) => p > bp || (p == bp && e.req.seq < bs),
                    };
                    if better {
                        best = Some((p, e.req.seq, b, j, cmd));
                    }
                }
            }
        }
        (best.map(|(_, _, b, j, c)| (b, j, c)), future)
    }

    /// [`Self::pick_general`] for class-uniform schedulers: per bank only the
    /// representatives of [`BankView`] are candidates. Same decision and same
    /// wake-up bound as the general path, because every other eligible request
    /// of a bank has the same command, readiness and priority as its class's
    /// representative and a higher `seq` (checked in debug builds).
    pub(super) fn pick_fast(&mut self, t: u64) -> (Option<(usize, usize, CommandKind)>, u64) {
        match &self.sched {
            Policy::FrFcfs(f) if f.arbitration == BankArbitration::Oldest => {
                let cap = f.row_hit_cap;
                self.pick_fast_impl::<true>(t, cap)
            }
            _ => self.pick_fast_impl::<false>(t, 0),
        }
    }

    /// [`Self::pick_fast`]; with `FR_OLDEST` the priority is FR-FCFS's with
    /// `bank_arbitration = "oldest"` and row-hit cap `cap`, computed in place
    /// ([`scheduler::FrFcfs::priority`]), otherwise the policy is asked.
    #[inline(always)]
    pub(super) fn pick_fast_impl<const FR_OLDEST: bool>(
        &mut self,
        t: u64,
        cap: u32,
    ) -> (Option<(usize, usize, CommandKind)>, u64) {
        let mut future = u64::MAX;
        // Best so far: the largest (priority, !seq), i.e. the highest priority,
        // then the lowest `seq`, as (bank, index, command).
        let mut best_key: u128 = 0;
        let mut best: Option<(usize, usize, CommandKind)> = None;
        if !self.ready_valid {
            self.update_ready();
        }
        let any_refresh = !self.pending_refresh.is_empty();
        for w in 0..self.nonempty.len() {
            // Pass 1: which banks' gates are open at `t` (a bit each). A bank whose
            // gate lies ahead only bounds the wake-up time. Whether a gate is open
            // is unpredictable, so it is recorded by selects, not branches, and
            // only open banks reach the (branchy) candidate loop below.
            let mut bits = self.nonempty[w];
            let mut open = 0u64;
            while bits != 0 {
                let bit = bits.trailing_zeros();
                bits &= bits - 1;
                let b = w * 64 + bit as usize;
                let ri = self.ch.rank_of(b);
                if any_refresh && self.ch.ranks[ri].refresh_pending {
                    continue;
                }
                let m = self.gates[b];
                let closed = m > t;
                future = future.min(if closed { m } else { u64::MAX });
                open |= u64::from(!closed) << bit;
            }
            // Pass 2: the candidates of the banks whose gate is open.
            while open != 0 {
                let b = w * 64 + open.trailing_zeros() as usize;
                open &= open - 1;
                // A view is only needed once its bank's gate is open: a view
                // refreshed later equals one refreshed earlier and rechecked at
                // `recheck_at` (eligibility only changes there).
                if self.views[b].dirty || t >= self.views[b].recheck_at {
                    self.refresh_view(b, t);
                }
                let bank = &self.ch.banks[b];
                let (rts, m) = (self.ready[b], self.gates[b]);
                let v = &self.views[b];
                if v.recheck_at != u64::MAX {
                    future = future.min(v.recheck_at.max(m));
                }
                for k in 0..v.n as usize {
                    let c = v.cand_cmd[k] as usize;
                    let rt = rts[c];
                    if rt > t {
                        future = future.min(rt);
                        continue;
                    }
                    let j = v.cand_j[k];
                    let seq = v.cand_seq[k];
                    let prio = if FR_OLDEST {
                        let capped = cap > 0 && bank.hits_since_act >= cap;
                        if c == 1 && v.has_hits && !capped {
                            None
                        } else {
                            Some((c >= 2 && !capped) as u64)
                        }
                    } else {
                        let cand = Candidate {
                            req: &self.slab[self.window[b][j as usize].idx as usize].req,
                            command: CMDS[c],
                            row_hit: c >= 2,
                            oldest_in_bank: j == v.first,
                            bank_has_hits: v.has_hits,
                            hits_since_act: bank.hits_since_act,
                        };
                        self.sched.priority(t, &cand)
                    };
                    if let Some(p) = prio {
                        let key = (p as u128) << 64 | (!seq) as u128;
                        if best.is_none() || key > best_key {
                            best_key = key;
                            best = Some((b, j as usize, CMDS[c]));
                        }
                    }
                }
            }
        }
        (best, future)
    }

    /// Recomputes every bank's command ready times, from its own part
    /// (`own`, kept current at each command) and its group's and rank's terms,
    /// and its gate: the earliest cycle at which any command its requests may
    /// need can issue — ACT of a precharged bank, the earliest of RD, WR and PRE
    /// of an open one. Every candidate's ready time is at least
    /// the gate, so the wake-up bound of the general path is the gate if it lies
    /// ahead, else each candidate's ready time that lies ahead.
    pub(super) fn update_ready(&mut self) {
        let faw = self.ch.tm.faw;
        // The rank and bank-group terms, once per bank group: (ACT, PRE, RD, WR).
        let groups_per_rank = self.ch.groups.len() / self.ch.ranks.len();
        for (gi, g) in self.ch.groups.iter().enumerate() {
            let r = &self.ch.ranks[gi / groups_per_rank];
            self.group_ready[gi] = [
                g.next_act.max(r.act_ready(faw)),
                0,
                g.next_rd.max(r.next_rd).max(r.other_rd),
                g.next_wr.max(r.next_wr).max(r.other_wr),
            ];
        }
        // Banks are numbered group by group (`Channel::group_of` is `b /
        // banks_per_group`): walk each group's banks with its terms, without
        // an index lookup or bounds check per bank.
        let per_group = self.own.len() / self.group_ready.len().max(1);
        debug_assert_eq!(per_group * self.group_ready.len(), self.own.len());
        let own = self.own.chunks_exact(per_group);
        let ready = self.ready.chunks_exact_mut(per_group);
        let gates = self.gates.chunks_exact_mut(per_group);
        for (((own, ready), gates), g) in own.zip(ready).zip(gates).zip(&self.group_ready) {
            for ((o, ready), gate) in own.iter().zip(ready).zip(gates) {
                let r = [o[0].max(g[0]), o[1], o[2].max(g[2]), o[3].max(g[3])];
                *ready = r;
                *gate = r[0].min(r[1]).min(r[2]).min(r[3]);
            }
        }
        self.ready_valid = true;
    }
}
