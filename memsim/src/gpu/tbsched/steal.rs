//! Stealing between per-SM queues, the one block LaPerm's Adaptive-Bind (stage 3:
//! an SM whose own queues and PQ0 are empty takes from its *backup* SM, digest
//! §2.1 (c)) and LASER's WG scheduler (a CU whose CUQ is empty steals from another
//! CUQ, digest §4.3) share. They differ only in the victim rule:
//! - [`Victim::NextAfter`]: the first SM after the thief, in round-robin order,
//!   whose queue holds work (LaPerm; the paper gives no rule, [I]);
//! - [`Victim::Longest`]: the queue with the most TBs left, the lower SM among
//!   equals (LASER gap 5, [I]).
//!
//! [`sticky`] adds LaPerm's stickiness: the backup is kept while its queue holds
//! work, so stolen TBs of one parent stay together on the thief.

use std::cmp::Reverse;

/// How a thief chooses its victim queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Victim {
    /// First non-empty queue after the thief, round-robin.
    NextAfter,
    /// The queue with the most work.
    Longest,
}

/// The queue SM `s` of `n` steals from: `load(v)` is the work queue `v` holds
/// (0: nothing to steal). Never `s` itself.
pub fn victim(s: usize, n: usize, rule: Victim, load: impl Fn(usize) -> u64) -> Option<usize> {
    match rule {
        Victim::NextAfter => (1..n).map(|d| (s + d) % n).find(|&v| load(v) > 0),
        Victim::Longest => (0..n)
            .filter(|&v| v != s && load(v) > 0)
            .max_by_key(|&v| (load(v), Reverse(v))),
    }
}

/// [`victim`] with a sticky choice: `backup` is kept while its queue holds work
/// and re-chosen otherwise.
pub fn sticky(
    backup: &mut Option<usize>,
    s: usize,
    n: usize,
    rule: Victim,
    load: impl Fn(usize) -> u64,
) -> Option<usize> {
    if backup.map_or(true, |b| load(b) == 0) {
        *backup = victim(s, n, rule, &load);
    }
    *backup
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_after_wraps_and_skips_the_thief_and_empty_queues() {
        let load = [3, 0, 0, 5];
        let l = |v: usize| load[v];
        assert_eq!(victim(1, 4, Victim::NextAfter, l), Some(3));
        assert_eq!(victim(3, 4, Victim::NextAfter, l), Some(0));
        assert_eq!(
            victim(0, 4, Victim::NextAfter, |v| load[v] * (v == 0) as u64),
            None
        );
    }

    #[test]
    fn longest_takes_the_most_work_lower_sm_among_equals() {
        let load = [3, 7, 7, 1];
        assert_eq!(victim(0, 4, Victim::Longest, |v| load[v]), Some(1));
        assert_eq!(victim(1, 4, Victim::Longest, |v| load[v]), Some(2));
    }

    #[test]
    fn sticky_keeps_a_backup_with_work_and_rechooses_an_empty_one() {
        let mut b = Some(3);
        let mut load = [4, 0, 9, 1];
        assert_eq!(
            sticky(&mut b, 0, 4, Victim::NextAfter, |v| load[v]),
            Some(3)
        );
        load[3] = 0;
        assert_eq!(
            sticky(&mut b, 0, 4, Victim::NextAfter, |v| load[v]),
            Some(2)
        );
        assert_eq!(b, Some(2));
    }
}
