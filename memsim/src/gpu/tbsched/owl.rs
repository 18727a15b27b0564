//! OWL-locality's TB placement, the "data layout to WG mapping" half of the LASER
//! baseline OWL-locality (Jog et al., ASPLOS 2013; LASER dissertation §3.6:
//! "simply co-locating neighboring WGs"; digest §4.4). Neighbouring TBs of a
//! kernel (consecutive indices, which in the usual layouts read neighbouring data)
//! go to the same SM in runs of `run` TBs; the warp half is
//! [`crate::gpu::warpsched::owl`].
//!
//! Units (kernels and DTBL groups) are served FCFS as round-robin serves kernels.
//! A unit's next TB goes to the SM its previous TB went to while the run is not
//! complete and it fits there; otherwise (a new run, or no room) to the next SM
//! round-robin that has room. Assumed [I]: runs of 2 TBs (OWL groups CTAs by
//! occupancy; the dissertation gives no size).

use super::UnitPolicy;
use crate::gpu::sched::DispatchUnit;
use std::collections::HashMap;

/// The OWL-locality dispatcher.
#[derive(Clone, Debug)]
pub struct OwlTb {
    run: u64,
    next: usize,
    /// Kernel record → (index of its last dispatched TB, SM, TBs in the run so far).
    last: HashMap<u32, (u64, usize, u64)>,
    /// TBs placed next to their predecessor.
    colocated: u64,
}

impl OwlTb {
    /// Runs of `run` neighbouring TBs per SM.
    pub fn new(run: u64) -> Self {
        OwlTb {
            run: run.max(1),
            next: 0,
            last: HashMap::new(),
            colocated: 0,
        }
    }
}

impl Default for OwlTb {
    fn default() -> Self {
        OwlTb::new(2)
    }
}

impl UnitPolicy for OwlTb {
    fn name(&self) -> &'static str {
        "owl"
    }

    fn pick(
        &mut self,
        units: &[DispatchUnit],
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
        _now: u64,
    ) -> Option<(usize, usize)> {
        for (u, unit) in units.iter().enumerate() {
            let index = unit.tbs - unit.left;
            if let Some(&(prev, sm, n)) = self.last.get(&unit.record) {
                if prev + 1 == index && n < self.run && sm < sms && fits(u, sm) {
                    self.colocated += 1;
                    return Some((u, sm));
                }
            }
            for i in 0..sms {
                let sm = (self.next + i) % sms;
                if fits(u, sm) {
                    self.next = (sm + 1) % sms;
                    return Some((u, sm));
                }
            }
        }
        None
    }

    fn on_dispatch(&mut self, record: u32, index: u64, sm: usize, _now: u64) {
        let n = match self.last.get(&record) {
            Some(&(prev, s, n)) if prev + 1 == index && s == sm && n < self.run => n + 1,
            _ => 1,
        };
        self.last.insert(record, (index, sm, n));
    }

    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "policy": "owl",
            "run": self.run,
            "colocated": self.colocated,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(record: u32, tbs: u64, left: u64) -> DispatchUnit {
        DispatchUnit {
            kernel: record,
            record,
            group: false,
            parent: None,
            depth: 0,
            left,
            tbs,
        }
    }

    #[test]
    fn neighbouring_tbs_pair_up_on_one_sm() {
        let mut p = OwlTb::new(2);
        let mut placed = Vec::new();
        for i in 0..6u64 {
            let units = [unit(0, 6, 6 - i)];
            let (u, sm) = p.select_unit(&units, 3, &mut |_, _| true, 0).expect("fits");
            assert_eq!(u, 0);
            p.on_dispatch(0, i, sm, 0);
            placed.push(sm);
        }
        assert_eq!(placed, vec![0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn a_full_sm_breaks_the_run() {
        let mut p = OwlTb::new(2);
        let units = [unit(0, 4, 4)];
        let (_, sm) = p.select_unit(&units, 2, &mut |_, _| true, 0).unwrap();
        p.on_dispatch(0, 0, sm, 0);
        let units = [unit(0, 4, 3)];
        // SM 0 is full: TB 1 goes to SM 1
        let (_, sm) = p.select_unit(&units, 2, &mut |_, s| s != 0, 0).unwrap();
        assert_eq!(sm, 1);
    }
}
