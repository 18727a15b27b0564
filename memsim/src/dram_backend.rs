//! Attaches the DDR4 model of [`crate::dram`] to the manycore memory side.
//!
//! [`DdrBackend`] implements [`DramBackend`] over a [`DramSystem`] (one controller per
//! channel, FCFS / FR-FCFS from the config, or PAR-BS / TCM from [`crate::sched`]).
//! Times are DRAM cycles; the memory side converts them ([`crate::system::ClockRatio`]).
//! BLP/MLP comes from the DRAM model's own tracker (a bank is serving from the command
//! that starts a request until its data burst ends, DESIGN.md), row-buffer counts from
//! its statistics.

use crate::addrmap::AddressMapping;
use crate::config::{ConfigError, DramConfig};
use crate::dram::{Completion, DramSystem, MemRequest};
use crate::metrics::ParallelismSummary;
use crate::sched::{ParBs, Tcm};
use crate::system::{DramAddressing, DramBackend, DramDone, DramRequest};
use serde::Serialize;

/// Memory-request scheduler of every controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheduler {
    /// First come, first served.
    Fcfs,
    /// Row hits first, then oldest (Tables 4.2 and 5.2).
    FrFcfs,
    /// Parallelism-aware batch scheduling.
    ParBs,
    /// Thread cluster memory scheduling.
    Tcm,
}

impl Scheduler {
    /// Parses `fcfs`, `fr-fcfs`, `par-bs` or `tcm`.
    pub fn parse(s: &str) -> Option<Scheduler> {
        match s {
            "fcfs" => Some(Scheduler::Fcfs),
            "fr-fcfs" => Some(Scheduler::FrFcfs),
            "par-bs" => Some(Scheduler::ParBs),
            "tcm" => Some(Scheduler::Tcm),
            _ => None,
        }
    }
}

/// The DDR model as a [`DramBackend`].
pub struct DdrBackend {
    sys: DramSystem,
    mapping: AddressMapping,
    burst: u64,
    scratch: Vec<Completion>,
    stats: Option<crate::stats::DramStats>,
}

impl DdrBackend {
    /// Builds the DRAM of `cfg` with `sched` in every controller; `seed` drives TCM's
    /// shuffles.
    pub fn new(cfg: &DramConfig, sched: Scheduler, seed: u64) -> Result<Self, ConfigError> {
        let mut c = cfg.clone();
        match sched {
            Scheduler::Fcfs => c.scheduler = crate::config::SchedulerKind::Fcfs,
            Scheduler::FrFcfs => c.scheduler = crate::config::SchedulerKind::FrFcfs,
            _ => {}
        }
        let mut sys = DramSystem::new(&c)?;
        for (i, ctrl) in sys.controllers_mut().iter_mut().enumerate() {
            match sched {
                Scheduler::ParBs => ctrl.set_scheduler(Box::new(ParBs::default())),
                Scheduler::Tcm => {
                    ctrl.set_scheduler(Box::new(Tcm::new(seed.wrapping_add(i as u64))))
                }
                _ => {}
            }
        }
        let mapping = c.mapping()?;
        Ok(DdrBackend {
            sys,
            mapping,
            burst: c.burst_bytes() as u64,
            scratch: Vec::new(),
            stats: None,
        })
    }

    /// The DRAM model.
    pub fn system(&self) -> &DramSystem {
        &self.sys
    }

    /// DRAM statistics of the run (computed once, after the run).
    pub fn final_stats(&mut self) -> &crate::stats::DramStats {
        if self.stats.is_none() {
            self.stats = Some(self.sys.stats());
        }
        self.stats.as_ref().expect("just set")
    }
}

impl DramBackend for DdrBackend {
    fn channels(&self) -> usize {
        self.sys.controllers().len()
    }
    fn channel_of(&self, addr: u64) -> usize {
        self.sys.channel_of(addr)
    }
    fn bank_of(&self, addr: u64) -> u32 {
        self.mapping.flat_bank(addr)
    }
    fn num_banks(&self) -> u32 {
        self.mapping.num_banks()
    }
    fn burst_bytes(&self) -> u64 {
        self.burst
    }
    fn try_enqueue(&mut self, _ch: usize, req: DramRequest, now: u64) -> bool {
        self.sys.advance_to(now);
        let r = MemRequest {
            addr: req.addr,
            is_write: req.is_write,
            source: req.source,
            tag: req.id,
        };
        self.sys.try_enqueue(now, r).is_ok()
    }
    fn warm_row(&mut self, addr: u64) {
        self.sys.warm_row(addr);
    }
    fn next_event(&self) -> Option<u64> {
        self.sys.next_event()
    }
    fn advance_to(&mut self, t: u64, out: &mut Vec<DramDone>) {
        self.sys.advance_to(t + 1);
        self.scratch.clear();
        self.sys.drain_completions(u64::MAX, &mut self.scratch);
        // Deterministic order (the model drains controllers in an unspecified order).
        if self.scratch.len() > 1 {
            self.scratch.sort_unstable_by_key(|c| (c.done, c.tag));
        }
        out.extend(self.scratch.iter().map(|c| DramDone {
            id: c.tag,
            addr: c.addr,
            done: c.done,
        }));
    }
    fn blp_summary(&mut self) -> ParallelismSummary {
        let s = self.final_stats();
        ParallelismSummary {
            mean: s.blp,
            active_cycles: s.blp_epochs.iter().map(|e| e.any_busy_cycles).sum(),
            unit_cycles: s
                .blp_epochs
                .iter()
                .map(|e| e.busy_unit_cycles as u128)
                .sum(),
            intervals: s.requests,
            clipped: 0,
            per_epoch: s
                .blp_epochs
                .iter()
                .map(|e| (e.start / s.epoch_cycles.max(1), e.parallelism))
                .collect(),
        }
    }
    fn stats_json(&mut self) -> serde_json::Value {
        let mut v = serde_json::to_value(self.final_stats()).unwrap_or(serde_json::Value::Null);
        if let Some(o) = v.as_object_mut() {
            // The time series is reported once, as mlp_per_epoch.
            o.remove("blp_epochs");
        }
        v
    }
    fn finish_input(&mut self) {
        self.sys.finish_input();
    }
    fn row_counts(&mut self) -> (u64, u64, u64) {
        let s = self.final_stats();
        (s.row_hits, s.row_misses, s.row_conflicts)
    }
    fn retarget(&self, addr: u64, bank: u32) -> u64 {
        self.mapping.retarget(addr, bank)
    }
    fn notice_cycles(&self) -> u64 {
        // A request's completion is reported when its column command issues and
        // lies tCL (read) or tCWL (write) plus the burst after it.
        self.sys
            .controllers()
            .iter()
            .map(|c| {
                let tm = &c.channel().tm;
                tm.cl.min(tm.cwl) + tm.bl
            })
            .min()
            .unwrap_or(0)
    }
    fn addressing(&self) -> Option<std::sync::Arc<dyn DramAddressing>> {
        Some(std::sync::Arc::new(self.mapping.clone()))
    }
}

impl DramAddressing for AddressMapping {
    fn channel_of(&self, addr: u64) -> usize {
        self.channel(addr) as usize
    }
    fn bank_of(&self, addr: u64) -> u32 {
        self.flat_bank(addr)
    }
}
