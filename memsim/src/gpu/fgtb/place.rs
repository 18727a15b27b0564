//! Co-location of complementary TBs (`gpu-seeds.md` §6.1 `dispatch(tb)`): a
//! [`TbDispatchPolicy`] that places a TB on the first SM, rotating round-robin,
//! where the regular resources fit *and* the SM's summed levels plus the TB's
//! estimate stay within the capacity in every metric. A memory-heavy TB thus
//! goes where the TBs are compute-heavy and vice versa; when no SM qualifies,
//! dispatch stalls (the paper's rule), except that an SM without TBs takes any
//! TB (an estimate above the capacity must not stall the kernel for ever).
//!
//! The TB scheduler ([`super::manager`]) sets the view before each selection:
//! the estimate of the next TB of each runnable kernel and each SM's load.

use super::{Levels, METRICS};
use crate::gpu::sched::TbDispatchPolicy;

/// Round-robin placement under the supplemental-resource limits.
#[derive(Clone, Debug, Default)]
pub struct CoLocate {
    next: usize,
    /// Estimate of the next TB of each runnable kernel (FCFS order).
    pub estimates: Vec<Levels>,
    /// Summed levels of each SM's resident TBs.
    pub load: Vec<[u32; METRICS]>,
    /// TBs resident on (or being restored to) each SM.
    pub resident: Vec<u32>,
    /// Summed levels an SM holds per metric.
    pub capacity: u32,
}

impl CoLocate {
    /// A placement over `sms` SMs with `capacity` summed levels per metric.
    pub fn new(sms: usize, capacity: u32) -> Self {
        CoLocate {
            next: 0,
            estimates: Vec::new(),
            load: vec![[0; METRICS]; sms],
            resident: vec![0; sms],
            capacity,
        }
    }

    /// Whether a TB of `est` may join SM `sm`'s TBs.
    pub fn admits(&self, sm: usize, est: Levels) -> bool {
        self.resident[sm] == 0
            || self.load[sm]
                .iter()
                .zip(est.0)
                .all(|(l, e)| l + e as u32 <= self.capacity)
    }

    /// Whether SM `sm`'s load is past the capacity in some metric.
    pub fn oversubscribed(&self, sm: usize) -> bool {
        self.load[sm].iter().any(|&l| l > self.capacity)
    }
}

impl TbDispatchPolicy for CoLocate {
    fn name(&self) -> &'static str {
        "co-locate"
    }
    fn select(
        &mut self,
        kernels: usize,
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Option<(usize, usize)> {
        for k in 0..kernels {
            let est = self.estimates.get(k).copied().unwrap_or_default();
            for i in 0..sms {
                let sm = (self.next + i) % sms;
                if self.admits(sm, est) && fits(k, sm) {
                    self.next = (sm + 1) % sms;
                    return Some((k, sm));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A memory-heavy TB skips the SM full of memory-heavy TBs and joins the
    /// compute-heavy one; nothing fits: dispatch stalls; an empty SM takes all.
    #[test]
    fn places_complementary_tbs_together() {
        let mut p = CoLocate::new(3, 7);
        p.load = vec![[6, 1], [1, 6], [7, 7]];
        p.resident = vec![2, 2, 3];
        p.estimates = vec![Levels([4, 0])];
        let mut yes = |_: usize, _: usize| true;
        assert_eq!(p.select(1, 3, &mut yes), Some((0, 1)));
        // FCFS: a kernel that fits nowhere does not block the next one
        p.estimates = vec![Levels([7, 7]), Levels([1, 0])];
        assert_eq!(p.select(2, 3, &mut yes), Some((1, 0)));
        p.estimates = vec![Levels([7, 7])];
        assert_eq!(p.select(1, 3, &mut yes), None);
        p.resident[2] = 0;
        assert_eq!(p.select(1, 3, &mut yes), Some((0, 2)));
        // the regular resources still decide
        assert_eq!(p.select(1, 3, &mut |_, _| false), None);
        assert!(!p.oversubscribed(0));
        p.load[0] = [8, 0];
        assert!(p.oversubscribed(0));
    }
}
