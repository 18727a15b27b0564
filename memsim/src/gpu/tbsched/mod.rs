//! Locality-aware thread-block dispatch policies (issue #32; digest §2, §4, §8.3),
//! behind [`TbDispatchPolicy`] with the parent view
//! ([`DispatchUnit`](super::sched::DispatchUnit)): each unit
//! carries its direct parent (kernel, TB, SM) and nesting depth, so a policy can
//! prioritise children and bind them to their parent's SM. One module per concept:
//! - [`queues`]: priority levels with on-chip capacity and global overflow;
//! - [`laperm`]: LaPerm's TB-Pri, SMX-Bind and Adaptive-Bind (digest §2.1);
//! - [`monitor`]: LASER's per-CU Bloom-filter reuse monitors (digest §4.3);
//! - [`laser`]: LASER's WG scheduler: priorities, SST, CUQs, stealing (§4.3);
//! - [`steal`]: the victim choice both share (LaPerm stage 3, LASER CUQ steals);
//! - [`owl`]: OWL-locality's co-location of neighbouring TBs (digest §4.4);
//! - [`profile`], [`oracle`]: LASER's oracle limit study (digest §4.2): a
//!   profiling run's high-reuse kernels and WG chains, and the dispatcher that
//!   uses them;
//! - [`pcke`]: SMs partitioned among concurrent kernels (iPAWS pCKE).
//!
//! The same policies run under CDP (each child kernel is a unit) and DTBL (each
//! aggregated group is a unit, taken through its host kernel's entry).

pub mod laperm;
pub mod laser;
pub mod monitor;
pub mod oracle;
pub mod owl;
pub mod pcke;
pub mod profile;
pub mod queues;
pub mod steal;

#[cfg(test)]
mod fig4;

use super::config::TbSchedKind;
use super::l1::{L1Event, L1Observer};
use super::sched::TbDispatchPolicy;

/// The policy of kind `k` (not round-robin); `dtbl`: device launches are DTBL
/// groups (queue capacities).
pub fn policy(k: TbSchedKind, dtbl: bool) -> Box<dyn TbDispatchPolicy> {
    use laperm::{Laperm, LapermConfig, Scheme};
    let cfg = LapermConfig::new(dtbl);
    match k {
        TbSchedKind::TbPri => Box::new(Laperm::new(Scheme::TbPri, cfg)),
        TbSchedKind::SmxBind => Box::new(Laperm::new(Scheme::SmxBind, cfg)),
        TbSchedKind::AdaptiveBind => Box::new(Laperm::new(Scheme::AdaptiveBind, cfg)),
        TbSchedKind::Laser => Box::new(laser::Laser::new(laser::LaserConfig::default())),
        TbSchedKind::Owl => Box::new(owl::OwlTb::default()),
        TbSchedKind::Pcke => Box::new(pcke::Pcke::default()),
        // without a profile (`oracle::prepare` supplies one): no kernel is known
        TbSchedKind::OracleKernel | TbSchedKind::OracleWg | TbSchedKind::OracleWavefront => {
            Box::new(oracle::Oracle::new(
                oracle_level(k).expect("oracle kind"),
                Default::default(),
            ))
        }
        TbSchedKind::Rr => Box::new(super::sched::RoundRobin::default()),
    }
}

/// The oracle level of kind `k` (`None`: not an oracle).
pub fn oracle_level(k: TbSchedKind) -> Option<oracle::Level> {
    match k {
        TbSchedKind::OracleKernel => Some(oracle::Level::Kernel),
        TbSchedKind::OracleWg => Some(oracle::Level::Wg),
        TbSchedKind::OracleWavefront => Some(oracle::Level::Wavefront),
        _ => None,
    }
}

/// Two L1 observers fed the same events (a policy's monitor and a trace).
pub struct Tee(pub Box<dyn L1Observer>, pub Box<dyn L1Observer>);

impl L1Observer for Tee {
    fn on_access(&mut self, e: &L1Event) {
        self.0.on_access(e);
        self.1.on_access(e);
    }
}
