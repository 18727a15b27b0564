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
//! - [`pcke`]: SMs partitioned among concurrent kernels (iPAWS pCKE);
//! - [`scke`]: every SM shared by the concurrent kernels, its resources split
//!   equally between them (iPAWS sCKE).
//!
//! The same policies run under CDP (each child kernel is a unit) and DTBL (each
//! aggregated group is a unit, taken through its host kernel's entry).
//!
//! Every policy here implements [`UnitPolicy`]: its name, its pick
//! ([`UnitPolicy::pick`]), the sizing of its per-SM state ([`UnitPolicy::size`])
//! and the notifications it uses; [`TbDispatchPolicy`] follows from it (no
//! kernel-level `select`, `wants_units` true, `select_unit` sizing then picking).

pub mod laperm;
pub mod laser;
pub mod monitor;
pub mod oracle;
pub mod owl;
pub mod pcke;
pub mod profile;
pub mod queues;
pub mod scke;
pub mod steal;

#[cfg(test)]
mod fig4;

use super::config::TbSchedKind;
use super::dp::pool::LaunchPriority;
use super::l1::{L1Event, L1Observer};
use super::sched::{DispatchUnit, TbDispatchPolicy};
use super::warpsched::WarpSchedCtx;

/// A TB dispatch policy that picks [`DispatchUnit`]s (with their parents)
/// rather than distributor kernels. Implementing it gives the policy
/// [`TbDispatchPolicy`]: the kernel-level `select` answers nothing,
/// `wants_units` is true, and `select_unit` returns nothing without SMs, else
/// sizes the per-SM state ([`Self::size`]) and asks [`Self::pick`]. The other
/// methods are [`TbDispatchPolicy`]'s notifications, passed through.
pub trait UnitPolicy {
    /// Policy name.
    fn name(&self) -> &'static str;
    /// Sizes the per-SM state for `sms` (at least 1) SMs; called before every
    /// [`Self::pick`], so it must keep state that is already sized (default:
    /// no per-SM state).
    fn size(&mut self, _sms: usize) {}
    /// Picks a unit (index into `units`) and an SM (of `sms`, at least 1, the
    /// state sized) at cycle `now`; `fits(u, sm)` says whether unit `u`'s next
    /// TB fits SM `sm` now. `None`: nothing to dispatch now.
    fn pick(
        &mut self,
        units: &[DispatchUnit],
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
        now: u64,
    ) -> Option<(usize, usize)>;
    /// [`Self::pick`] after sizing, `None` without SMs (what the engine calls,
    /// through [`TbDispatchPolicy::select_unit`]).
    fn select_unit(
        &mut self,
        units: &[DispatchUnit],
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
        now: u64,
    ) -> Option<(usize, usize)> {
        if sms == 0 {
            return None;
        }
        self.size(sms);
        self.pick(units, sms, fits, now)
    }
    /// [`TbDispatchPolicy::on_tb_exit`].
    fn on_tb_exit(&mut self, _sm: usize) {}
    /// [`TbDispatchPolicy::on_dispatch`].
    fn on_dispatch(&mut self, _record: u32, _index: u64, _sm: usize, _now: u64) {}
    /// [`TbDispatchPolicy::on_tb_done`].
    fn on_tb_done(&mut self, _record: u32, _index: u64, _sm: usize, _now: u64) {}
    /// [`TbDispatchPolicy::wake_at`].
    fn wake_at(&self, _now: u64) -> Option<u64> {
        None
    }
    /// [`TbDispatchPolicy::l1_observer`].
    fn l1_observer(&mut self) -> Option<Box<dyn L1Observer>> {
        None
    }
    /// [`TbDispatchPolicy::report`].
    fn report(&self) -> Option<serde_json::Value> {
        None
    }
    /// [`TbDispatchPolicy::attach`].
    fn attach(&mut self, _ctx: &WarpSchedCtx) {}
    /// [`TbDispatchPolicy::launch_priority`].
    fn launch_priority(&mut self) -> Option<Box<dyn LaunchPriority>> {
        None
    }
    /// [`TbDispatchPolicy::splits_sms`].
    fn splits_sms(&self) -> bool {
        false
    }
}

impl<P: UnitPolicy> TbDispatchPolicy for P {
    fn name(&self) -> &'static str {
        UnitPolicy::name(self)
    }
    fn select(
        &mut self,
        _kernels: usize,
        _sms: usize,
        _fits: &mut dyn FnMut(usize, usize) -> bool,
    ) -> Option<(usize, usize)> {
        None
    }
    fn on_tb_exit(&mut self, sm: usize) {
        UnitPolicy::on_tb_exit(self, sm)
    }
    fn wants_units(&self) -> bool {
        true
    }
    fn select_unit(
        &mut self,
        units: &[DispatchUnit],
        sms: usize,
        fits: &mut dyn FnMut(usize, usize) -> bool,
        now: u64,
    ) -> Option<(usize, usize)> {
        UnitPolicy::select_unit(self, units, sms, fits, now)
    }
    fn on_dispatch(&mut self, record: u32, index: u64, sm: usize, now: u64) {
        UnitPolicy::on_dispatch(self, record, index, sm, now)
    }
    fn on_tb_done(&mut self, record: u32, index: u64, sm: usize, now: u64) {
        UnitPolicy::on_tb_done(self, record, index, sm, now)
    }
    fn wake_at(&self, now: u64) -> Option<u64> {
        UnitPolicy::wake_at(self, now)
    }
    fn l1_observer(&mut self) -> Option<Box<dyn L1Observer>> {
        UnitPolicy::l1_observer(self)
    }
    fn report(&self) -> Option<serde_json::Value> {
        UnitPolicy::report(self)
    }
    fn attach(&mut self, ctx: &WarpSchedCtx) {
        UnitPolicy::attach(self, ctx)
    }
    fn launch_priority(&mut self) -> Option<Box<dyn LaunchPriority>> {
        UnitPolicy::launch_priority(self)
    }
    fn splits_sms(&self) -> bool {
        UnitPolicy::splits_sms(self)
    }
}

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
        TbSchedKind::Scke => Box::new(scke::Scke::default()),
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

/// A host kernel's unit with `left` TBs to dispatch (record = kernel), for the
/// dispatch policies' tests.
#[cfg(test)]
pub(crate) fn host_unit(kernel: u32, left: u64) -> DispatchUnit {
    DispatchUnit {
        kernel,
        record: kernel,
        group: false,
        parent: None,
        depth: 0,
        left,
        tbs: left,
    }
}
