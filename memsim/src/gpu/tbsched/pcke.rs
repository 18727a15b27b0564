//! Partitioned concurrent kernel execution (pCKE, iPAWS §4.4; digest §5.1
//! "pCKE"): the SMs are split among the kernels that have TBs to dispatch, each
//! SM running TBs of one kernel only, so that with `--warp-sched ipaws-ind`
//! every SM decides its warp scheduler for the one kernel it runs.
//!
//! With `n` kernels holding undispatched TBs (in the distributor's FCFS order),
//! kernel `i` owns SMs `s` with `s * n / sms == i` (contiguous, equal shares up
//! to one SM). A kernel's TBs go round-robin over its own SMs only; an SM that
//! still runs TBs of another kernel takes no new kernel's TB until they are gone
//! (one kind of kernel per core). When a kernel has dispatched its last TB the
//! shares are recomputed over the rest ([I]: the paper gives no
//! repartitioning rule; equal shares follow "cores are partitioned to different
//! kernels" with two kernels per mix).

use super::UnitPolicy;
use crate::gpu::sched::DispatchUnit;
use std::collections::HashMap;

/// The pCKE dispatcher.
#[derive(Clone, Debug, Default)]
pub struct Pcke {
    /// Per SM, the distributor kernel whose TBs run there and how many.
    owner: Vec<Option<(u32, u64)>>,
    /// Where each dispatched TB went: (record, index) → SM.
    at: HashMap<(u32, u64), usize>,
    /// Distributor kernel of each record.
    kernel_of: HashMap<u32, u32>,
    next: Vec<usize>,
    /// TBs dispatched on an SM another kernel still occupied (0 by construction).
    pub shared: u64,
}

impl Pcke {
    /// SMs of kernel `i` of `n` over `sms` SMs.
    pub fn share(i: usize, n: usize, sms: usize) -> std::ops::Range<usize> {
        // s * n / sms == i  <=>  i * sms / n <= s < (i + 1) * sms / n (ceil)
        let lo = (i * sms).div_ceil(n);
        let hi = ((i + 1) * sms).div_ceil(n);
        lo..hi
    }
}

impl UnitPolicy for Pcke {
    fn name(&self) -> &'static str {
        "pcke"
    }

    fn size(&mut self, sms: usize) {
        if self.owner.len() != sms {
            self.owner = vec![None; sms];
        }
    }

    fn pick(
        &mut self,
        units: &[DispatchUnit],
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
        _now: u64,
    ) -> Option<(usize, usize)> {
        // the kernels with TBs to dispatch, FCFS
        let mut kernels: Vec<u32> = Vec::new();
        for u in units {
            self.kernel_of.insert(u.record, u.kernel);
            if !kernels.contains(&u.kernel) {
                kernels.push(u.kernel);
            }
        }
        let n = kernels.len();
        if self.next.len() < n {
            self.next.resize(n, 0);
        }
        for (i, &k) in kernels.iter().enumerate() {
            let r = Self::share(i, n, sms);
            let len = r.len();
            for d in 0..len {
                let s = r.start + (self.next[i] + d) % len;
                if self.owner[s].is_some_and(|(o, _)| o != k) {
                    continue;
                }
                let Some(u) = (0..units.len()).find(|&u| units[u].kernel == k && fits(u, s)) else {
                    continue;
                };
                self.next[i] = (s - r.start + 1) % len;
                return Some((u, s));
            }
        }
        None
    }

    fn on_dispatch(&mut self, record: u32, index: u64, sm: usize, _now: u64) {
        let k = self.kernel_of.get(&record).copied().unwrap_or(record);
        match &mut self.owner[sm] {
            Some((o, c)) if *o == k => *c += 1,
            Some(_) => self.shared += 1,
            slot => *slot = Some((k, 1)),
        }
        self.at.insert((record, index), sm);
    }

    fn on_tb_done(&mut self, record: u32, index: u64, sm: usize, _now: u64) {
        self.at.remove(&(record, index));
        if let Some((_, c)) = &mut self.owner[sm] {
            *c -= 1;
            if *c == 0 {
                self.owner[sm] = None;
            }
        }
    }

    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "policy": "pcke",
            "shared_sm_dispatches": self.shared,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::tbsched::host_unit as unit;

    #[test]
    fn shares_are_contiguous_and_cover_the_sms() {
        assert_eq!(Pcke::share(0, 2, 15), 0..8);
        assert_eq!(Pcke::share(1, 2, 15), 8..15);
        assert_eq!(Pcke::share(0, 1, 15), 0..15);
        assert_eq!(
            (0..3).map(|i| Pcke::share(i, 3, 4)).collect::<Vec<_>>(),
            vec![0..2, 2..3, 3..4]
        );
    }

    #[test]
    fn two_kernels_run_on_disjoint_sms_then_the_survivor_takes_the_free_ones() {
        let mut p = Pcke::default();
        // 4 SMs, 2 slots each; kernel 0 with 6 TBs, kernel 1 with 4
        let mut slots = [2u32; 4];
        let mut left = [6u64, 4];
        let mut went = Vec::new();
        let units_of = |left: &[u64; 2]| -> Vec<DispatchUnit> {
            (0..2)
                .filter(|&k| left[k] > 0)
                .map(|k| unit(k as u32, left[k]))
                .collect()
        };
        for t in 0..8 {
            let units = units_of(&left);
            let (u, s) = p
                .select_unit(&units, 4, &mut |_, sm| slots[sm] > 0, t)
                .unwrap();
            let k = units[u].kernel;
            let tbs = [6, 4][k as usize];
            p.on_dispatch(k, tbs - left[k as usize], s, t);
            left[k as usize] -= 1;
            slots[s] -= 1;
            went.push((k, s));
        }
        // kernel 0 stays on SMs 0-1 although it comes first and has TBs left
        assert_eq!(
            went,
            vec![
                (0, 0),
                (0, 1),
                (0, 0),
                (0, 1),
                (1, 2),
                (1, 3),
                (1, 2),
                (1, 3)
            ]
        );
        assert!(p
            .select_unit(&units_of(&left), 4, &mut |_, sm| slots[sm] > 0, 8)
            .is_none());
        // kernel 1 has dispatched everything: kernel 0 alone, but SMs 2-3 keep
        // kernel 1's TBs until they exit
        slots = [1, 0, 1, 0];
        let units = units_of(&left);
        let (_, s) = p
            .select_unit(&units, 4, &mut |_, sm| slots[sm] > 0, 9)
            .unwrap();
        assert_eq!(s, 0, "SM 2 still runs kernel 1");
        slots[0] = 0;
        assert!(p
            .select_unit(&units, 4, &mut |_, sm| slots[sm] > 0, 10)
            .is_none());
        for (i, sm) in [(0u64, 2usize), (1, 3), (2, 2), (3, 3)] {
            p.on_tb_done(1, i, sm, 11);
        }
        let (_, s) = p
            .select_unit(&units, 4, &mut |_, sm| slots[sm] > 0, 12)
            .unwrap();
        assert_eq!(s, 2, "free of kernel 1, SM 2 takes kernel 0");
        assert_eq!(p.shared, 0);
    }
}
