//! Schedule-reuse control: when an inspector/executor region (§4.4.1) or a
//! described affine nest (§5.5) stops building schedules that are never
//! reused.
//!
//! Schedule reuse: an irregular region re-inspected before every execution
//! (its index data change each time) pays the inspector on every run and
//! never amortises it. After [`RuntimeConfig::reinspect_limit`] schedules in
//! a row that each served a single execution, the region stops inspecting
//! and runs in original order (`RegionStats::inspection_abandoned`); regions
//! that report checked writes are exempt, as their parallel execution relies
//! on the dependence check. Counted in executions, so trace mode stays
//! deterministic. Natively, described affine nests whose plans each serve
//! one execution and cost more than [`RuntimeConfig::plan_cost_share`] of it
//! fall back to the Default schedule the same way. A region whose live-ins
//! change on every call gets a new context id each time (see
//! [`Runtime::select_context`]); after [`CHURN_CONTEXTS`] new contexts in a
//! row each new one inherits the previous one's reuse state, so the rule
//! above still applies across contexts.

use super::*;

/// How an irregular region's schedules have been used (schedule-reuse
/// control, [`RuntimeConfig::reinspect_limit`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Reuse {
    /// A schedule has been built for this id.
    pub(super) built: bool,
    /// Executions of the latest schedule.
    pub(super) runs_of_latest: u64,
    /// Consecutive schedules (before the latest) that served one execution.
    pub(super) unreused: u32,
    /// Some inspection reported a checked write: the region needs the
    /// dependence check, so it must keep inspecting.
    pub(super) checked_writes: bool,
    /// The latest schedule's cost counts against it (always for irregular
    /// regions; for affine nests, when building it took more than
    /// [`AFFINE_PLAN_COST_SHARE`] of its execution).
    pub(super) costly: bool,
    /// The region stopped inspecting.
    pub(super) abandoned: bool,
    /// Copied from the previous context of a churning region
    /// ([`CHURN_CONTEXTS`]) rather than earned by this id.
    pub(super) inherited: bool,
}

impl Runtime {
    /// Schedule-reuse bookkeeping: the cached schedule of `(kind, id)` served
    /// one more execution.
    pub(super) fn plan_reused(&self, kind: u8, id: u32) {
        lock(&self.reuse)
            .entry((kind, id))
            .or_default()
            .runs_of_latest += 1;
    }

    /// Schedule-reuse bookkeeping: a new schedule of `(kind, id)` was built
    /// and ran once; `costly` says whether its cost counts against it,
    /// `checked_writes` whether its inspection reported checked writes.
    pub(super) fn plan_built(&self, kind: u8, id: u32, costly: bool, checked_writes: bool) {
        let mut all = lock(&self.reuse);
        let r = all.entry((kind, id)).or_default();
        r.built = true;
        r.runs_of_latest = 1;
        r.costly = costly;
        r.checked_writes |= checked_writes;
    }

    /// Schedule-reuse control (module docs): called when region `(kind, id)`
    /// has no valid schedule. Counts the latest schedule as unreused if it
    /// served one execution (and, for affine nests, cost more than
    /// [`AFFINE_PLAN_COST_SHARE`] of it), and says whether the region has now
    /// given up scheduling (it then runs in original order or, for an affine
    /// nest, under the Default schedule).
    pub(super) fn abandon_inspection(&self, kind: u8, id: u32) -> bool {
        let limit = self.cfg.reinspect_limit;
        let mut all = lock(&self.reuse);
        let r = all.entry((kind, id)).or_default();
        if r.abandoned {
            return true;
        }
        if !r.built || limit == 0 || r.checked_writes {
            return false;
        }
        r.unreused = if r.runs_of_latest <= 1 && r.costly {
            r.unreused + 1
        } else {
            0
        };
        r.runs_of_latest = 0;
        if r.unreused < limit {
            return false;
        }
        r.abandoned = true;
        drop(all);
        lock(&self.stats)
            .entry((kind, id))
            .or_default()
            .inspection_abandoned = true;
        true
    }
}
