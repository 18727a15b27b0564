//! Issuing the chosen command on the channel: row-buffer outcome and command
//! counts, bank-level parallelism, and for a column command the retirement of
//! the request (latency, merged reads answered, writes waiting on it released,
//! its completion).

use crate::stats::ParallelismTracker;

use super::super::channel::CommandKind;
use super::super::scheduler::QueuedRequest;
use super::super::Completion;
use super::queue::Entry;
use super::Controller;

impl Controller {
    /// Issues `kind` on the channel ([`Channel::issue`]); the cached ready
    /// times are stale from now on.
    #[inline]
    pub(super) fn issue_command(
        &mut self,
        kind: CommandKind,
        b: usize,
        row: u32,
        t: u64,
        auto_pre: bool,
    ) {
        self.ready_valid = false;
        self.ch.issue(kind, b, row, t, auto_pre);
        if kind == CommandKind::Ref {
            let bpr = self.ch.banks_per_rank();
            let lo = self.ch.rank_of(b) * bpr;
            for i in lo..lo + bpr {
                self.own[i] = self.ch.banks[i].own_ready();
            }
        } else {
            self.own[b] = self.ch.banks[b].own_ready();
        }
    }

    pub(super) fn issue(
        &mut self,
        b: usize,
        j: usize,
        cmd: CommandKind,
        t: u64,
        blp: &mut ParallelismTracker,
    ) {
        let gb = self.global_bank_base + b;
        self.views[b].dirty = true;
        {
            let e = &mut self.slab[self.window[b][j].idx as usize];
            if e.req.first_cmd.is_none() {
                e.req.first_cmd = Some(cmd);
                match cmd {
                    CommandKind::Act => self.stats.row_misses += 1,
                    CommandKind::Pre => self.stats.row_conflicts += 1,
                    _ => self.stats.row_hits += 1,
                }
            }
        }
        match cmd {
            CommandKind::Act => {
                let row = self.window[b][j].row;
                self.issue_command(CommandKind::Act, b, row, t, false);
                self.stats.commands.act += 1;
                if !self.entry(b, j).req.in_service {
                    self.entry_mut(b, j).req.in_service = true;
                    blp.start(gb, t);
                }
                let idx = self.window[b][j].idx as usize;
                self.sched.on_command(t, &self.slab[idx].req, cmd);
            }
            CommandKind::Pre => {
                self.issue_command(CommandKind::Pre, b, 0, t, false);
                self.stats.commands.pre += 1;
                let idx = self.window[b][j].idx as usize;
                self.sched.on_command(t, &self.slab[idx].req, cmd);
            }
            CommandKind::Rd | CommandKind::Wr => {
                self.issue_command(cmd, b, 0, t, self.closed_row);
                let tm = self.ch.tm;
                let key = self.window[b].remove(j);
                let idx = key.idx;
                if !key.after_read {
                    let c = &mut self.counts[b];
                    let d = key.is_write as usize;
                    c.elig[d] -= 1;
                    if c.row == Some(key.row) {
                        c.hits[d] -= 1;
                    }
                }
                self.slab_free.push(idx);
                // Moved out of the slab (its slot is free from now on).
                let e = std::mem::replace(
                    &mut self.slab[idx as usize],
                    Entry {
                        req: QueuedRequest {
                            seq: 0,
                            arrival: 0,
                            source: 0,
                            is_write: false,
                            addr: 0,
                            bank: 0,
                            row: 0,
                            column: 0,
                            tag: 0,
                            sched_state: 0,
                            first_cmd: None,
                            in_service: false,
                        },
                        eligible_from: 0,
                        after_read: false,
                    },
                );
                self.window_len -= 1;
                self.bank_count[b] -= 1;
                if self.bank_count[b] == 0 {
                    self.nonempty[b / 64] &= !(1 << (b % 64));
                }
                self.stage_blocked = false;
                let is_write = e.req.is_write;
                let done = t + if is_write { tm.cwl } else { tm.cl } + tm.bl;
                blp.finish(gb, t, done, e.req.in_service);
                self.stats.bytes += self.burst_bytes;
                let lat = done - e.req.arrival;
                if is_write {
                    self.window_writes -= 1;
                    self.stats.commands.wr += 1;
                    self.stats.write_latency.add(lat);
                    self.pending_writes.remove(&e.req.addr);
                } else {
                    self.window_reads -= 1;
                    self.stats.commands.rd += 1;
                    self.stats.read_latency.add(lat);
                    self.pending_reads.remove(&e.req.addr);
                    let extra = if self.merged.is_empty() {
                        None
                    } else {
                        self.merged.remove(&e.req.addr)
                    };
                    if let Some(extra) = extra {
                        for (tag, source, arrival) in extra {
                            self.stats.read_latency.add(done - arrival);
                            self.complete(Completion {
                                tag,
                                source,
                                addr: e.req.addr,
                                is_write: false,
                                arrival,
                                done,
                            });
                        }
                    }
                    if self.war_writes > 0 {
                        self.release_war(e.req.addr);
                    }
                }
                self.sched.on_command(t, &e.req, cmd);
                self.sched.on_complete(t, &e.req);
                self.complete(Completion {
                    tag: e.req.tag,
                    source: e.req.source,
                    addr: e.req.addr,
                    is_write,
                    arrival: e.req.arrival,
                    done,
                });
            }
            CommandKind::Ref => unreachable!("refresh is not a request command"),
        }
    }
}
