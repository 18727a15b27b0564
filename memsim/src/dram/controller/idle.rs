//! Idle refresh in closed form: an idle controller's refreshes over a long
//! stretch of simulated time are counted, not stepped (issue #38: a DRAM-only
//! request at cycle 4·10^10 took 16 s stepping through 8.5 million refreshes
//! per channel).
//!
//! An idle controller (nothing queued, no refresh pending, not draining,
//! every bank precharged) repeats one pattern per refresh interval `I`: at the
//! due cycle `T` the next rank in turn gets its refresh and, its banks being
//! closed and ready, REF issues at once; the step at `T + 1` changes nothing
//! but the clock; the next event is `T + I`. REF leaves the rank's banks
//! closed with `next_act = T + tRFC`, so the rank's next REF, `ranks × I`
//! later, is also on time when `tRFC <= ranks × I`.
//! [`Controller::skip_idle_refreshes`] applies `n` such intervals at once: the
//! refresh count, the next due cycle and rank, each refreshed rank's banks as
//! its last REF leaves them (REF only raises `next_act`), the views and ready
//! times marked stale as REF marks them, and the clock where the last step
//! leaves it: the state stepping reaches, field for field (tested below).
//! Where the pattern does not hold (requests queued, e.g. writes waiting for a
//! drain; a bank open; a rank not ready at its due cycle; `I < 2`;
//! `tRFC > ranks × I`, which validation now refuses, since such a rank
//! starves) the controller steps, which is exact by construction. There is no energy model: REF
//! commands are the only statistic refresh changes.

use super::{CommandKind, Controller};

impl Controller {
    /// When idle (see the module docs), processes in closed form every
    /// refresh whose two steps fall before cycle `t`, and returns true;
    /// otherwise (or for fewer than two refreshes) changes nothing and
    /// returns false.
    pub(crate) fn skip_idle_refreshes(&mut self, t: u64) -> bool {
        let quiet = self.window_len == 0 && self.read_q.is_empty() && self.write_q.is_empty();
        if !quiet
            || !self.refresh
            || !self.pending_refresh.is_empty()
            || self.draining
            || self.drain_flip().is_some()
            || (self.staged() && !self.stage_blocked)
            || self.next_event != self.next_refresh
            || self.now > self.next_refresh
        {
            return false;
        }
        let (t0, i) = (self.next_refresh, self.refresh_interval);
        let ranks = self.ch.ranks.len() as u64;
        if i < 2 || self.ch.tm.rfc > ranks.saturating_mul(i) {
            return false;
        }
        // Refreshes k = 0, 1, ... are due at t0 + k·i; those with both their
        // first steps (t0 + k·i and the cycle after) before `t` number `due`,
        // and the first n of them are skipped.
        let Some(span) = t.checked_sub(t0).and_then(|d| d.checked_sub(2)) else {
            return false;
        };
        let mut n = span / i + 1;
        if t0.checked_add(n * i).is_none() {
            n -= 1;
        }
        if n < 2 {
            return false;
        }
        let bpr = self.ch.banks_per_rank();
        let first_rank = self.next_refresh_rank as u64;
        // Rank r's first refresh in the stretch is the k-th with k = its
        // distance from the next rank in turn.
        let first = |r: u64| (r + ranks - first_rank) % ranks;
        for r in 0..ranks {
            let banks = &self.ch.banks[r as usize * bpr..(r as usize + 1) * bpr];
            if banks.iter().any(|b| b.open_row.is_some()) {
                return false;
            }
            let k = first(r);
            if k < n && banks.iter().any(|b| b.next_act > t0 + k * i) {
                return false;
            }
        }
        for r in 0..ranks {
            let k = first(r);
            if k >= n {
                continue;
            }
            let last = k + (n - 1 - k) / ranks * ranks;
            let lo = r as usize * bpr;
            for v in &mut self.views[lo..lo + bpr] {
                v.dirty = true;
            }
            self.issue_command(CommandKind::Ref, lo, 0, t0 + last * i, false);
        }
        self.stats.commands.refresh += n;
        self.next_refresh = t0 + n * i;
        self.next_refresh_rank = ((first_rank + n % ranks) % ranks) as usize;
        self.now = t0 + (n - 1) * i + 2;
        self.next_event = self.next_refresh;
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{DramConfig, MachineConfig, RowPolicy, SchedulerKind};
    use crate::dram::{replay, DramSystem, MemRequest};
    use crate::trace::{AccessKind, TimedRequest};

    use super::Controller;

    impl Controller {
        /// Every field of the controller's state that a step can change, and
        /// those it reads, as text.
        fn snapshot(&self) -> String {
            format!(
                "now {} next_event {} next_refresh {} rank {} pending {:?} draining {} \
                 stage_blocked {} ready_valid {} input_done {} seq {} max_eligible {}\n\
                 channel {:?}\nviews {:?}\ncounts {:?}\nready {:?}\ngates {:?}\n\
                 window {:?}\nlens {} {} {} {:?} {:?}\nqueues {:?} {:?}\nstats {:?}\n\
                 completions {:?}\nwar {} free {:?}",
                self.now,
                self.next_event,
                self.next_refresh,
                self.next_refresh_rank,
                self.pending_refresh,
                self.draining,
                self.stage_blocked,
                self.ready_valid,
                self.input_done,
                self.seq,
                self.max_eligible,
                self.ch,
                self.views,
                self.counts,
                self.ready,
                self.gates,
                self.window,
                self.window_len,
                self.window_reads,
                self.window_writes,
                self.bank_count,
                self.nonempty,
                self.read_q,
                self.write_q,
                self.stats,
                self.completions,
                self.war_writes,
                self.slab_free,
            )
        }
    }

    /// `cfg` with `ranks` ranks (the rank bits taken from the row bits).
    fn with_ranks(mut d: DramConfig, ranks: u32) -> DramConfig {
        let bits = ranks.trailing_zeros();
        d.ranks = ranks;
        d.rows >>= bits;
        let mut fields: Vec<String> = Vec::new();
        for f in d.address_mapping.split_whitespace() {
            let (name, n) = f.split_once(':').unwrap();
            let n: u32 = n.parse().unwrap();
            fields.push(match name {
                "rank" => format!("rank:{}", n + bits),
                "row" => format!("row:{}", n - bits),
                _ => f.to_string(),
            });
        }
        d.address_mapping = fields.join(" ");
        d.validate().unwrap();
        d
    }

    /// The DRAM configurations compared: open and closed rows, one to eight
    /// ranks, staged bank queues, both schedulers, and a refresh period that
    /// leaves the fewest cycles validation allows between a rank's REF and
    /// its next (one more than tRFC and the time to open, access and close a
    /// row). A shorter period (including those where the closed form would
    /// not apply, `tRFC > ranks × interval`) is refused by validation: the
    /// rank's requests would starve (`hostile::refresh_leaving_no_room_for_a_request_is_refused`).
    fn configs() -> Vec<(&'static str, DramConfig)> {
        let t52 = MachineConfig::preset("table5.2").unwrap().dram;
        let t42 = MachineConfig::preset("table4.2").unwrap().dram;
        let d3 = MachineConfig::preset("dramsim3-ddr4-2400").unwrap().dram;
        let mut closed = with_ranks(t52.clone(), 2);
        closed.row_policy = RowPolicy::Closed;
        let mut fcfs = with_ranks(d3.clone(), 4);
        fcfs.scheduler = SchedulerKind::Fcfs;
        let mut tight = with_ranks(t52.clone(), 2);
        tight.timing.tREFI = 4001;
        let t = &tight.timing;
        let serve = t
            .tRAS
            .max(t.tRCD + t.tRTP)
            .max(t.tRCD + t.tCWL + t.tBL + t.tWR)
            + t.tRP;
        tight.timing.tRFC = 4000 - serve - 1;
        tight.validate().unwrap();
        vec![
            ("table5.2", t52),
            ("table4.2", t42),
            ("dramsim3 (staged)", d3),
            ("2 ranks, closed rows", closed),
            ("4 ranks, staged, fcfs", fcfs),
            ("least room between refreshes", tight),
        ]
    }

    /// Requests in bursts separated by idle gaps of 6-13·10^4 cycles (8-30
    /// refresh intervals of the configs above) (and
    /// one short one), reads and writes over a few rows and banks.
    fn gappy_requests() -> Vec<(u64, MemRequest)> {
        let mut v = Vec::new();
        let mut t = 0u64;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for burst in 0..6u64 {
            for j in 0..40u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let addr = (x % (1 << 24)) & !63;
                v.push((
                    t,
                    MemRequest {
                        addr,
                        is_write: x % 3 == 0,
                        source: 0,
                        tag: burst * 100 + j,
                    },
                ));
                t += 1 + x % 7;
            }
            t += if burst == 2 {
                9_000
            } else {
                60_000 + burst * 12_345
            };
        }
        v
    }

    /// The closed form and stepping reach the same controller state, field by
    /// field, after every advance of an offered trace with idle gaps of
    /// 6-13·10^4 cycles. Each configuration runs twice: as it is, where
    /// writes below the drain watermarks wait through the gaps (the
    /// controller is not quiet and steps), and with writes drained before
    /// each gap (low watermark and idle-drain threshold 0), where the closed
    /// form must be used.
    #[test]
    fn skipping_idle_refreshes_equals_stepping_field_by_field() {
        let variants = configs().into_iter().flat_map(|(what, cfg)| {
            let mut drained = cfg.clone();
            drained.write_low_watermark = 0;
            drained.write_idle_drain = 0;
            [(what, false, cfg), (what, true, drained)]
        });
        for (what, drained, cfg) in variants {
            let what = format!("{what}{}", if drained { ", drained" } else { "" });
            let mut fast = DramSystem::new(&cfg).unwrap();
            let mut slow = DramSystem::new(&cfg).unwrap();
            slow.idle_skip = false;
            let mut sink = Vec::new();
            let reqs = gappy_requests();
            for (n, &(t, r)) in reqs.iter().enumerate() {
                for d in [&mut fast, &mut slow] {
                    let mut t = t;
                    loop {
                        d.advance_to(t);
                        if d.try_enqueue(t, r).is_ok() {
                            break;
                        }
                        t += 1;
                    }
                    d.drain_completions(u64::MAX, &mut sink);
                }
                // Halfway into the following gap, and at its end.
                let next = reqs.get(n + 1).map_or(t + 200_000, |x| x.0);
                for at in [t + (next - t) / 2, next] {
                    fast.advance_to(at);
                    slow.advance_to(at);
                    for (a, b) in fast.ctrls.iter().zip(&slow.ctrls) {
                        assert_eq!(a.snapshot(), b.snapshot(), "{what}: at cycle {at}");
                    }
                }
            }
            for d in [&mut fast, &mut slow] {
                d.finish_input();
                d.run_until_drained();
            }
            for (a, b) in fast.ctrls.iter().zip(&slow.ctrls) {
                assert_eq!(a.snapshot(), b.snapshot(), "{what}: at the end");
            }
            assert_eq!(
                serde_json::to_string(&fast.stats()).unwrap(),
                serde_json::to_string(&slow.stats()).unwrap(),
                "{what}"
            );
            assert_eq!(slow.idle_stretches_skipped(), 0);
            if drained {
                assert!(fast.idle_stretches_skipped() > 0, "{what}");
            }
        }
    }

    /// A replayed trace whose requests lie up to 2.4·10^5 cycles apart gives
    /// the same statistics with and without the closed form.
    #[test]
    fn long_idle_gaps_give_the_same_statistics() {
        let reqs: Vec<TimedRequest> = [0u64, 60_000, 60_040, 180_000, 420_001]
            .iter()
            .enumerate()
            .map(|(i, &cycle)| TimedRequest {
                cycle,
                kind: if i % 2 == 0 {
                    AccessKind::Read
                } else {
                    AccessKind::Write
                },
                addr: 0x40 + (i as u64) * 0x10_0000,
            })
            .collect();
        for (what, cfg) in configs() {
            let run = |skip: bool| {
                let mut d = DramSystem::new(&cfg).unwrap();
                d.idle_skip = skip;
                let ok = reqs.iter().map(|&r| Ok::<_, std::convert::Infallible>(r));
                replay(&mut d, ok).unwrap();
                (
                    serde_json::to_string(&d.stats()).unwrap(),
                    d.idle_stretches_skipped(),
                )
            };
            let (fast, skips) = run(true);
            assert!(skips > 0, "{what}");
            assert_eq!(fast, run(false).0, "{what}");
            assert!(!fast.contains("\"ref\":0"), "{what}");
        }
    }

    /// Writes waiting below the idle-drain threshold (no read queued, input
    /// not ended) stay queued through an idle gap: the controller is not
    /// quiet, so the closed form declines and the gap is stepped, which
    /// reaches the same state as stepping everywhere (field by field), and
    /// the other channels still skip.
    #[test]
    fn writes_waiting_through_a_gap_are_stepped() {
        let cfg = MachineConfig::preset("table5.2").unwrap().dram;
        assert!(cfg.write_idle_drain >= 3);
        let mut fast = DramSystem::new(&cfg).unwrap();
        let mut slow = DramSystem::new(&cfg).unwrap();
        slow.idle_skip = false;
        let w = |tag: u64, addr: u64, is_write: bool| MemRequest {
            addr,
            is_write,
            source: 0,
            tag,
        };
        // Three writes to one channel, then a read 2·10^5 cycles later.
        let reqs = [
            (0, w(0, 0x40, true)),
            (1, w(1, 0x80, true)),
            (2, w(2, 0xc0, true)),
            (200_000, w(3, 0x100, false)),
        ];
        let c = fast.channel_of(0x40);
        assert!(reqs.iter().all(|(_, r)| fast.channel_of(r.addr) == c));
        let mut sink = Vec::new();
        for (t, r) in reqs {
            for d in [&mut fast, &mut slow] {
                d.advance_to(t);
                d.try_enqueue(t, r).unwrap();
            }
            if t == 2 {
                for at in [50_000, 100_000, 199_999] {
                    fast.advance_to(at);
                    slow.advance_to(at);
                    assert_eq!(fast.ctrls[c].queued(), 3, "the writes wait");
                    assert!(!fast.ctrls[c].skip_idle_refreshes(at + 100_000));
                    for (a, b) in fast.ctrls.iter().zip(&slow.ctrls) {
                        assert_eq!(a.snapshot(), b.snapshot(), "at cycle {at}");
                    }
                }
                assert!(fast.ctrls[c].stats.commands.refresh >= 20);
                assert!(fast.idle_stretches_skipped() > 0, "other channels skip");
            }
        }
        for d in [&mut fast, &mut slow] {
            d.finish_input();
            d.run_until_drained();
            d.drain_completions(u64::MAX, &mut sink);
        }
        for (a, b) in fast.ctrls.iter().zip(&slow.ctrls) {
            assert_eq!(a.snapshot(), b.snapshot(), "at the end");
        }
        assert_eq!(
            serde_json::to_string(&fast.stats()).unwrap(),
            serde_json::to_string(&slow.stats()).unwrap()
        );
        assert_eq!(sink.len(), 8);
    }

    /// The closed form's bounds: the last refresh of each rank (one rank
    /// here) is left to stepping, and a refresh interval below 2 cycles is
    /// stepped.
    #[test]
    fn short_stretches_and_tiny_intervals_are_stepped() {
        let cfg = MachineConfig::preset("table5.2").unwrap().dram;
        let mut d = DramSystem::new(&cfg).unwrap();
        let i = d.ctrls[0].refresh_interval;
        assert!(!d.ctrls[0].skip_idle_refreshes(i + i + 1));
        assert!(d.ctrls[0].skip_idle_refreshes(i + i + 2));
        assert_eq!(d.ctrls[0].stats.commands.refresh, 2);
        assert_eq!(d.ctrls[0].next_event(), 3 * i);
        d.ctrls[0].refresh_interval = 1;
        assert!(!d.ctrls[0].skip_idle_refreshes(u64::MAX));
    }
}
