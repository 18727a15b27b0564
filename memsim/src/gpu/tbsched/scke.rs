//! Shared concurrent kernel execution (sCKE, iPAWS §4.4; digest §5.1
//! "Extensions", sCKE): every SM runs TBs of all the concurrent kernels, its
//! resources (threads and warps, registers, shared memory, TB slots) split
//! equally between them ("we assumed that the resources (e.g., register file,
//! shared memory) in each core are shared equally between the two kernels").
//!
//! The split is the engine's admission cap ([`splits_sms`]): with `n` kernels
//! holding undispatched TBs, a TB is offered to an SM only if its kernel's use
//! there plus the TB stays within `1/n` of every resource
//! (`SmResources::within_share`). [I] The cap counts the kernels that still
//! have TBs to dispatch: when one has dispatched its last TB the others' cap
//! lifts (`n` drops; with one left, no cap), so they fill the SM as its TBs
//! exit, as a dispatcher without the split would; a TB that does not fit a
//! `1/n` share at all waits for that.
//!
//! Dispatch order [I]: the kernels take turns (FCFS order, one TB each), each
//! going round-robin over all SMs from the one after its previous TB's. The
//! policy counts, per kernel, the SMs it ran on and the most TBs it had on one
//! SM while another kernel still had TBs to dispatch (the split in force).
//!
//! [`splits_sms`]: crate::gpu::sched::TbDispatchPolicy::splits_sms

use super::UnitPolicy;
use crate::gpu::sched::DispatchUnit;
use std::collections::{BTreeMap, HashMap};

/// Per kernel, what the policy saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelLog {
    /// TBs resident per SM now.
    pub resident: Vec<u32>,
    /// SMs that ran at least one of its TBs.
    pub sms: Vec<bool>,
    /// The most TBs resident on one SM at a dispatch while another kernel had
    /// TBs to dispatch too.
    pub max_shared: u32,
    /// The most TBs resident on one SM at any dispatch.
    pub max: u32,
}

/// The sCKE dispatcher.
#[derive(Clone, Debug, Default)]
pub struct Scke {
    /// Next SM per distributor kernel.
    next: HashMap<u32, usize>,
    /// Dispatches so far (whose turn it is).
    turn: usize,
    /// Distributor kernel of each record.
    kernel_of: HashMap<u32, u32>,
    /// Kernels with TBs to dispatch at the last pick.
    pending: usize,
    sms: usize,
    /// Per distributor kernel.
    pub log: BTreeMap<u32, KernelLog>,
}

impl UnitPolicy for Scke {
    fn name(&self) -> &'static str {
        "scke"
    }

    fn size(&mut self, sms: usize) {
        self.sms = sms;
    }

    fn pick(
        &mut self,
        units: &[DispatchUnit],
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
        _now: u64,
    ) -> Option<(usize, usize)> {
        let mut kernels: Vec<u32> = Vec::new();
        for u in units {
            self.kernel_of.insert(u.record, u.kernel);
            if !kernels.contains(&u.kernel) {
                kernels.push(u.kernel);
            }
        }
        let n = kernels.len();
        self.pending = n;
        for i in 0..n {
            let k = kernels[(self.turn + i) % n];
            let start = self.next.get(&k).copied().unwrap_or(0);
            for d in 0..sms {
                let s = (start + d) % sms;
                if let Some(u) = (0..units.len()).find(|&u| units[u].kernel == k && fits(u, s)) {
                    self.next.insert(k, (s + 1) % sms);
                    self.turn += 1;
                    return Some((u, s));
                }
            }
        }
        None
    }

    fn on_dispatch(&mut self, record: u32, _index: u64, sm: usize, _now: u64) {
        let k = self.kernel_of.get(&record).copied().unwrap_or(record);
        let sms = self.sms.max(sm + 1);
        let l = self.log.entry(k).or_default();
        if l.resident.len() < sms {
            l.resident.resize(sms, 0);
            l.sms.resize(sms, false);
        }
        l.resident[sm] += 1;
        l.sms[sm] = true;
        l.max = l.max.max(l.resident[sm]);
        if self.pending > 1 {
            l.max_shared = l.max_shared.max(l.resident[sm]);
        }
    }

    fn on_tb_done(&mut self, record: u32, _index: u64, sm: usize, _now: u64) {
        let k = self.kernel_of.get(&record).copied().unwrap_or(record);
        if let Some(c) = self.log.get_mut(&k).and_then(|l| l.resident.get_mut(sm)) {
            *c = c.saturating_sub(1);
        }
    }

    fn splits_sms(&self) -> bool {
        true
    }

    fn report(&self) -> Option<serde_json::Value> {
        let kernels: Vec<serde_json::Value> = self
            .log
            .iter()
            .map(|(k, l)| {
                serde_json::json!({
                    "kernel": k,
                    "sms": l.sms.iter().filter(|&&b| b).count(),
                    "max_tbs_per_sm_shared": l.max_shared,
                    "max_tbs_per_sm": l.max,
                })
            })
            .collect();
        Some(serde_json::json!({ "policy": "scke", "kernels": kernels }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::tbsched::host_unit as unit;

    /// Two kernels take turns over every SM; the cap (here: 2 TB slots per
    /// kernel and SM of 4, as the engine's `fits` applies it) keeps each to its
    /// half; when kernel 1 has no TB left, kernel 0 may fill the SM.
    #[test]
    fn kernels_alternate_over_all_sms_within_their_halves() {
        let mut p = Scke::default();
        // 2 SMs, 4 TB slots each; kernel 0 with 6 TBs, kernel 1 with 3
        let mut used = [[0u32; 2]; 2]; // [sm][kernel]
        let mut left = [6u64, 3];
        let units_of = |left: &[u64; 2]| -> Vec<DispatchUnit> {
            (0..2)
                .filter(|&k| left[k] > 0)
                .map(|k| unit(k as u32, left[k]))
                .collect()
        };
        let mut went = Vec::new();
        for t in 0..8 {
            let units = units_of(&left);
            let n = units.len() as u32;
            let Some((u, s)) = p.select_unit(
                &units,
                2,
                &mut |u, sm| {
                    let k = units[u].kernel as usize;
                    used[sm][0] + used[sm][1] < 4 && (n <= 1 || used[sm][k] < 4 / n)
                },
                t,
            ) else {
                break;
            };
            let k = units[u].kernel as usize;
            p.on_dispatch(k as u32, [6, 3][k] - left[k], s, t);
            left[k] -= 1;
            used[s][k] += 1;
            went.push((k, s));
        }
        // turns: 0, 1, 0, 1, ...; each kernel round-robin over both SMs
        assert_eq!(
            went,
            vec![
                (0, 0),
                (1, 0),
                (0, 1),
                (1, 1),
                (0, 0),
                (1, 0),
                (0, 1),
                (0, 1)
            ]
        );
        // while kernel 1 had TBs, kernel 0 held at most 2 (its half) per SM; the
        // last dispatch, with kernel 1 done dispatching, takes SM 1's third slot
        assert_eq!(p.log[&0].max_shared, 2);
        assert_eq!(p.log[&0].max, 3);
        assert_eq!(p.log[&1].max_shared, 2);
        assert!(p.log.values().all(|l| l.sms.iter().all(|&b| b)));
        // SM 0 is full (2 + 2), SM 1 has 3 + 1: kernel 0's last TB goes nowhere
        // until a TB leaves
        assert_eq!(used, [[2, 2], [3, 1]]);
        assert_eq!(left, [1, 0]);
        let units = units_of(&left);
        assert!(p
            .select_unit(&units, 2, &mut |_, sm| used[sm][0] + used[sm][1] < 4, 8)
            .is_none());
        p.on_tb_done(1, 0, 0, 9);
        assert_eq!(p.log[&1].resident, vec![1, 1]);
    }
}
