//! Bounded run-time inspection and payoff control (issue 34, "do no harm";
//! the inspector/executor split of §4.4.1, whose inspection cost §4.5.2
//! assumes is amortised over many executions).
//!
//! Three rules, all per region `(kind, id)`, stated in `docs/runtime.md`
//! ("Bounded inspection and payoff"):
//!
//! 1. **Reference executions.** A region's *reference* is its cost per
//!    iteration in the original order on the calling thread: an irregular
//!    region's first execution (lazy inspection), or, for an affine nest
//!    scheduled at its first call, a probe execution at its second call. The
//!    fastest reference execution counts; an irregular region whose first
//!    reference took under [`WARM_REFERENCE_BELOW_NS`] measures a second,
//!    warm one before it inspects. (Not the first parallel execution:
//!    it pays for starting or waking the workers, milliseconds on a loaded
//!    host, and would make any schedule look cheap.)
//! 2. **Inspection budget.** An inspection runs its inspector in pieces of
//!    at most 1/[`BUDGET_PIECES`] of the range and stops after the first
//!    piece that leaves its budget spent: in time, [`RuntimeConfig::inspect_budget`]
//!    reference executions of the range being inspected (below
//!    [`INSPECT_BUDGET_MIN_NS`] the inspection does not start); in addresses,
//!    [`INSPECT_BUDGET_ADDRS_PER_ITER`] per iteration (at least
//!    [`INSPECT_BUDGET_MIN_ADDRS`]) per core chunk. A stopped inspection
//!    builds no schedule; the region falls back.
//! 3. **Payoff.** After each execution of a runtime-built schedule, its time
//!    per iteration is compared with the reference: slower by more than
//!    [`PAYOFF_FAR_SLOWER`] once, or by more than [`PAYOFF_SLOWER`] in
//!    [`PAYOFF_STRIKES`] executions in a row, and the schedule is dropped for
//!    the region, the way [`RuntimeConfig::reinspect_limit`] drops unreused
//!    ones.
//!
//! A region that fell back runs in original order on the calling thread from
//! then on (always legal) or, when its inspector reports only unchecked
//! accesses (proven parallel), in the Default static chunks on all workers,
//! until these too run slower than the reference by the payoff rule; and
//! `WEFT_STATS` says why (`RegionStats::payoff_fallback`).
//!
//! Determinism: results never depend on these rules (every order they choose
//! is legal and gives the same output); only the schedule choice does.
//! [`PayoffMode::Time`] (native default) decides on measured times. With
//! `WEFT_TRACE` set the mode is [`PayoffMode::Count`]: only the address
//! budget applies, counted in inspected addresses, so a simulated trace never
//! depends on host timing; `WEFT_PAYOFF=count` asks for the same natively
//! (tests, reproducible runs), `WEFT_PAYOFF=off` turns all three rules off.

use super::*;
use crate::error::invalid;

/// Time-mode inspection budget in reference executions of the inspected
/// range ([`RuntimeConfig::inspect_budget`], `WEFT_INSPECT_BUDGET`).
pub const DEFAULT_INSPECT_BUDGET: f64 = 1.0;
/// Smallest time budget an inspection starts with, ns: the runtime's fixed
/// cost of a first inspection (the bank lookup table, up to 2^16 mapper
/// calls, and waking the workers) measured 50-200 µs on the development
/// host; a region whose budget is below it is not inspected at all.
pub const INSPECT_BUDGET_MIN_NS: u64 = 100_000;
/// Address budget of an inspection per iteration of the inspected range.
pub const INSPECT_BUDGET_ADDRS_PER_ITER: u64 = 4096;
/// Smallest address budget of an inspection.
pub const INSPECT_BUDGET_MIN_ADDRS: u64 = 1 << 20;
/// A schedule slower than this factor of the reference gets a strike.
pub const PAYOFF_SLOWER: f64 = 1.05;
/// A schedule slower than this factor of the reference is dropped at once.
pub const PAYOFF_FAR_SLOWER: f64 = 1.5;
/// Strikes in a row that drop a schedule.
pub const PAYOFF_STRIKES: u32 = 2;
/// A first reference execution shorter than this (ns) is followed by a
/// second one before the region is inspected: a region's first execution is
/// cold (first touches, page faults, TLB and cache misses) and can take
/// several times as long as the next, and a budget of one cold execution let
/// the gather kernel's inspector spend 331 µs on a loop of 40-55 µs warm.
/// Above it the second serial execution would cost more than the
/// overestimate it corrects.
pub const WARM_REFERENCE_BELOW_NS: u64 = 1_000_000;
/// A proven-parallel region falls back to static chunks only when its
/// reference execution took at least this long (ns): static chunks on `p`
/// workers win when the reference exceeds about `p/(p-1)` times the pool's
/// wake-up latency, measured at 10-50 µs on the idle two-core development
/// host (and at 1-30 ms when it is loaded: there rule 3 drops the static
/// chunks after one execution 1.5x slower than the reference). Was 1 ms,
/// which left proven-parallel nests of 0.1-1 ms (jacobi1d's, 0.19 ms) in the
/// original order on one core after their schedule was dropped.
pub const STATIC_MIN_REFERENCE_NS: u64 = 100_000;
/// An inspection checks its budget after at most 1/`BUDGET_PIECES` of its range.
pub const BUDGET_PIECES: i64 = 32;

/// How the budgets and the payoff rule decide (`WEFT_PAYOFF`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PayoffMode {
    /// Measured times and inspected addresses (native default).
    Time,
    /// Inspected addresses only (trace mode; deterministic).
    Count,
    /// No budget and no payoff rule.
    Off,
}

impl PayoffMode {
    /// `time`, `count` or `off`.
    pub fn parse(s: &str) -> Option<PayoffMode> {
        match s.trim() {
            "time" => Some(PayoffMode::Time),
            "count" => Some(PayoffMode::Count),
            "off" | "0" => Some(PayoffMode::Off),
            _ => None,
        }
    }
}

/// Payoff state of one region.
#[derive(Clone, Debug, Default)]
pub(super) struct Payoff {
    /// Fastest reference execution, ns per iteration.
    reference: Option<f64>,
    /// That execution's time, ns.
    reference_ns: u64,
    /// The fall-back may run static chunks on all workers (proven parallel,
    /// and they have not run slower than the reference).
    parallel: bool,
    /// Consecutive static-chunk executions slower than [`PAYOFF_SLOWER`].
    static_strikes: u32,
    /// The next execution runs the reference order to measure it.
    probe: bool,
    /// Consecutive executions of the schedule slower than [`PAYOFF_SLOWER`].
    strikes: u32,
    /// Why the region fell back (it then runs its reference order).
    fallback: Option<String>,
    /// Reference executions measured so far.
    references: u32,
    /// Descriptor-path nests: ns per iteration of the first execution, run
    /// without a schedule (rule 4); the base of the walk's time budget.
    entry: Option<f64>,
}

/// The budget of one inspection, shared by the cores inspecting its chunks.
pub(super) struct Budget {
    deadline: Option<(Instant, u64)>,
    /// Addresses each inspector handle (one per chunk) may report.
    addrs: u64,
    spent: Mutex<Option<String>>,
    /// Why the inspection should not start at all.
    skip: Option<String>,
}

impl Budget {
    /// Runs `insp` over `[a, b)` in pieces, stopping (an error in `h`) after
    /// the first piece that leaves the budget spent.
    pub(super) fn run(&self, insp: InspectRef<'_>, a: i64, b: i64, h: &mut Inspector) {
        let piece = ((h.hi - h.lo) / BUDGET_PIECES).max(64);
        let mut x = a;
        while x < b {
            let y = if b - x > piece { x + piece } else { b };
            insp(x, y, h);
            if h.error.is_some() {
                return;
            }
            if let Some(why) = self.check(h) {
                h.error = Some(why.clone());
                lock(&self.spent).get_or_insert(why);
                return;
            }
            x = y;
        }
    }

    fn check(&self, h: &Inspector) -> Option<String> {
        let n = h.inspected();
        if n > self.addrs {
            return Some(format!(
                "inspection over budget: {n} addresses reported by one chunk > {} \
                 ({INSPECT_BUDGET_ADDRS_PER_ITER} per iteration)",
                self.addrs
            ));
        }
        match self.deadline {
            Some((t, ns)) if t.elapsed().as_nanos() as u64 > ns => Some(format!(
                "inspection over budget: stopped after {} ns > {ns} ns \
                 (WEFT_INSPECT_BUDGET reference executions)",
                t.elapsed().as_nanos()
            )),
            _ => None,
        }
    }

    /// Why the inspection stopped, if it did.
    pub(super) fn spent(&self) -> Option<String> {
        lock(&self.spent).clone()
    }

    /// Why the inspection should not start (its time budget is below the
    /// fixed cost of inspecting, [`INSPECT_BUDGET_MIN_NS`]).
    pub(super) fn skip(&self) -> Option<String> {
        self.skip.clone()
    }
}

impl Inspector {
    /// Addresses reported so far through this handle.
    fn inspected(&self) -> u64 {
        match &self.layout {
            Layout::Slabs(r) => r.accesses() as u64,
            Layout::Blocks { .. } => self.accesses.len() as u64,
        }
    }
}

impl Runtime {
    /// The budget of an inspection of `iters` iterations of `(kind, id)`,
    /// `None` when the rules are off.
    pub(super) fn inspect_budget(&self, kind: u8, id: u32, iters: i64) -> Option<Budget> {
        let mode = self.cfg.payoff;
        if mode == PayoffMode::Off {
            return None;
        }
        let p = self.cfg.cores.max(1) as u64;
        let iters = iters.max(1) as u64;
        let addrs =
            (INSPECT_BUDGET_ADDRS_PER_ITER.saturating_mul(iters) / p).max(INSPECT_BUDGET_MIN_ADDRS);
        let (mut deadline, mut skip) = (None, None);
        match (mode, self.payoff_state(kind, id).reference) {
            (PayoffMode::Time, Some(r))
                if self.cfg.inspect_budget > 0.0 && self.tracer.is_none() =>
            {
                let ns = (self.cfg.inspect_budget * r * iters as f64) as u64;
                if ns < INSPECT_BUDGET_MIN_NS {
                    skip = Some(format!(
                        "not inspected: budget {ns} ns ({} reference execution(s) of {:.0} ns) \
                         below the inspection's fixed cost ({INSPECT_BUDGET_MIN_NS} ns)",
                        self.cfg.inspect_budget,
                        r * iters as f64
                    ));
                }
                deadline = Some((Instant::now(), ns));
            }
            _ => {}
        }
        Some(Budget {
            deadline,
            addrs,
            spent: Mutex::new(None),
            skip,
        })
    }

    fn payoff_state(&self, kind: u8, id: u32) -> Payoff {
        lock(&self.payoff)
            .get(&(kind, id))
            .cloned()
            .unwrap_or_default()
    }

    /// Whether time-mode rules apply (native, `WEFT_PAYOFF=time`).
    pub(super) fn payoff_timed(&self) -> bool {
        self.cfg.payoff == PayoffMode::Time && self.tracer.is_none()
    }

    /// Whether `(kind, id)` has no reference yet and should measure one now.
    pub(super) fn wants_reference(&self, kind: u8, id: u32) -> bool {
        self.payoff_timed() && {
            let s = self.payoff_state(kind, id);
            s.fallback.is_none()
                && (s.reference.is_none()
                    || (s.references < 2 && s.reference_ns < WARM_REFERENCE_BELOW_NS))
        }
    }

    /// `Some(parallel)` when `(kind, id)` fell back or must run a reference
    /// probe now: it runs its reference order (static chunks when
    /// `parallel`, else the original order on the calling thread).
    pub(super) fn reference_order(&self, kind: u8, id: u32) -> Option<bool> {
        if self.cfg.payoff == PayoffMode::Off {
            return None;
        }
        let mut all = lock(&self.payoff);
        let s = all.get_mut(&(kind, id))?;
        if s.fallback.is_some() {
            return Some(s.parallel && s.reference_ns >= STATIC_MIN_REFERENCE_NS);
        }
        std::mem::take(&mut s.probe).then_some(false)
    }

    /// Runs `(kind, id)` over `[lo, hi)` in its reference order (see
    /// [`Runtime::reference_order`]) and records the time as a reference.
    pub(super) fn run_reference(
        &self,
        kind: u8,
        id: u32,
        (lo, hi): (i64, i64),
        parallel: bool,
        body: BodyRef<'_>,
    ) -> Result<()> {
        if !parallel {
            return self.execute_small(kind, id, lo, hi, body);
        }
        self.set_up()?;
        let plan = Plan::static_chunks(lo, hi, self.cfg.cores);
        let ns = self.execute_region(kind, id, &plan, false, body)?;
        self.note_static(kind, id, hi - lo, ns);
        Ok(())
    }

    /// `(kind, id)` is proven parallel: its fall-back may run static chunks.
    pub(super) fn allow_static(&self, kind: u8, id: u32) {
        lock(&self.payoff).entry((kind, id)).or_default().parallel = true;
    }

    /// An execution of `(kind, id)` in original order on the calling thread:
    /// `iters` iterations in `ns`.
    pub(super) fn note_reference(&self, kind: u8, id: u32, iters: i64, ns: u64) {
        if !self.payoff_timed() || iters <= 0 {
            return;
        }
        let per = ns as f64 / iters as f64;
        let mut all = lock(&self.payoff);
        let s = all.entry((kind, id)).or_default();
        s.references += 1;
        if s.reference.map_or(true, |r| per < r) {
            (s.reference, s.reference_ns) = (Some(per), ns);
        }
    }

    /// A static-chunk fall-back execution of `(kind, id)`: the payoff rule
    /// against the reference; when it fails, the fall-back becomes the
    /// original order on the calling thread.
    fn note_static(&self, kind: u8, id: u32, iters: i64, ns: u64) {
        if !self.payoff_timed() || iters <= 0 {
            return;
        }
        let per = ns as f64 / iters as f64;
        let mut all = lock(&self.payoff);
        let s = all.entry((kind, id)).or_default();
        let Some(r) = s.reference else {
            return;
        };
        if per <= r * PAYOFF_SLOWER {
            s.static_strikes = 0;
            return;
        }
        s.static_strikes += 1;
        if per > r * PAYOFF_FAR_SLOWER || s.static_strikes >= PAYOFF_STRIKES {
            s.parallel = false;
            let why = format!(
                "{}; static chunks did not pay off either: {per:.2} ns per iteration \
                 against {r:.2} in original order",
                s.fallback.as_deref().unwrap_or("")
            );
            s.fallback = Some(why.clone());
            drop(all);
            self.note_fallback(kind, id, why);
        }
    }

    /// A runtime-built schedule of `(kind, id)` ran `iters` iterations in
    /// `ns`: the payoff rule (module docs). Without a reference, the next
    /// execution is a probe in original order.
    pub(super) fn note_scheduled(&self, kind: u8, id: u32, iters: i64, ns: u64) {
        if !self.payoff_timed() || iters <= 0 {
            return;
        }
        let per = ns as f64 / iters as f64;
        let mut all = lock(&self.payoff);
        let s = all.entry((kind, id)).or_default();
        let Some(r) = s.reference else {
            s.probe = true;
            return;
        };
        if per <= r * PAYOFF_SLOWER {
            s.strikes = 0;
            return;
        }
        s.strikes += 1;
        if per > r * PAYOFF_FAR_SLOWER || s.strikes >= PAYOFF_STRIKES {
            let why = format!(
                "schedule did not pay off: {per:.2} ns per iteration against {r:.2} \
                 in original order"
            );
            s.fallback = Some(why.clone());
            drop(all);
            self.note_fallback(kind, id, why);
        }
    }

    /// An inspection of `(kind, id)` stopped over its budget after `ns`: the
    /// region falls back to its reference order (the original order without
    /// one), which is returned (`true`: static chunks).
    pub(super) fn inspection_stopped(&self, kind: u8, id: u32, why: String, ns: u64) -> bool {
        let mut all = lock(&self.payoff);
        let s = all.entry((kind, id)).or_default();
        s.fallback = Some(why.clone());
        let parallel = s.parallel;
        drop(all);
        self.note_fallback(kind, id, why);
        let mut st = lock(&self.stats);
        let e = st.entry((kind, id)).or_default();
        e.inspections += (ns > 0) as u64;
        e.inspector_ns += ns;
        parallel
    }

    /// Rule 4: whether this call of affine nest `id` is its first natively
    /// in time mode, which builds no plan (no descriptor walk): static
    /// chunks when the nest is proven parallel, else the original order, timed
    /// ([`Runtime::note_entry`]).
    pub(super) fn entry_call(&self, id: u32) -> bool {
        self.payoff_timed() && {
            let s = self.payoff_state(AFFINE, id);
            s.entry.is_none() && s.fallback.is_none()
        }
    }

    /// Rule 4: runs the first call of affine nest `id` over `[lo, hi)`
    /// without a plan, timed: static chunks when `parallel` (proven), else
    /// the original order on the calling thread.
    pub(super) fn run_entry(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        parallel: bool,
        body: BodyRef<'_>,
    ) -> Result<()> {
        let t = Instant::now();
        if parallel {
            // The first-call probe (grain.rs): a nest of a few microseconds
            // stays on the calling thread instead of starting the workers.
            let (from, ns) = self
                .probe_first_call((AFFINE, id as u64), lo, hi, body)
                .map_err(|_| {
                    RuntimeError::Panicked(format!("region {id}: the loop body panicked"))
                })?;
            if from == hi {
                // The whole nest ran here, in original order: a reference.
                self.account(AFFINE, id, (hi - lo) as u64, ns, false, true);
                self.note_reference(AFFINE, id, hi - lo, ns);
            } else {
                self.set_up()?;
                let plan = Plan::static_chunks(from, hi, self.cfg.cores);
                self.execute_region(AFFINE, id, &plan, false, body)?;
                self.account_prefix(AFFINE, id, (from - lo) as u64, ns);
            }
        } else {
            self.execute_small(AFFINE, id, lo, hi, body)?;
        }
        self.note_entry(id, hi - lo, t.elapsed().as_nanos() as u64);
        Ok(())
    }

    /// The first execution of affine nest `id` (rule 4): `iters` iterations
    /// in `ns` (wall time).
    pub(super) fn note_entry(&self, id: u32, iters: i64, ns: u64) {
        if iters > 0 {
            let per = (ns.max(1) as f64) / iters as f64;
            lock(&self.payoff).entry((AFFINE, id)).or_default().entry = Some(per);
        }
    }

    /// Rule 4: the deadline of a descriptor walk for `iters` iterations of
    /// nest `id` starting now: [`RuntimeConfig::inspect_budget`] times the
    /// nest's first execution scaled to `iters`. `Ok(None)`: no time budget
    /// (count mode, trace mode, no first execution measured); `Err(why)`:
    /// the budget is below [`INSPECT_BUDGET_MIN_NS`], so the walk should not
    /// start.
    pub(super) fn walk_deadline(
        &self,
        id: u32,
        iters: i64,
    ) -> std::result::Result<Option<Instant>, String> {
        if !self.payoff_timed() {
            return Ok(None);
        }
        let Some(per) = self.payoff_state(AFFINE, id).entry else {
            return Ok(None);
        };
        let budget = self.cfg.inspect_budget * per * iters.max(1) as f64;
        if budget < INSPECT_BUDGET_MIN_NS as f64 {
            return Err(format!(
                "descriptor walk not started: its budget of {budget:.0} ns ({} x the first \
                 execution, {:.0} ns) is below the {INSPECT_BUDGET_MIN_NS} ns minimum",
                self.cfg.inspect_budget,
                per * iters.max(1) as f64
            ));
        }
        Ok(Some(
            Instant::now() + std::time::Duration::from_nanos(budget as u64),
        ))
    }

    /// Statistics only: nest `id`'s descriptor walk did not run or stopped
    /// (`why`) after `ns`; the nest keeps the schedule its over-budget rule
    /// gives ([`Runtime::desc_over_budget`]).
    pub(super) fn walk_stopped(&self, id: u32, why: String, ns: u64) {
        self.note_fallback(AFFINE, id, why);
        let mut st = lock(&self.stats);
        let e = st.entry((AFFINE, id)).or_default();
        e.inspections += (ns > 0) as u64;
        e.inspector_ns += ns;
    }

    fn note_fallback(&self, kind: u8, id: u32, why: String) {
        let mut st = lock(&self.stats);
        let e = st.entry((kind, id)).or_default();
        if e.kind.is_empty() {
            e.kind = kind_name(kind).into();
            e.id = id;
        }
        e.payoff_fallback = Some(why);
    }
}

/// Reads `WEFT_PAYOFF` and `WEFT_INSPECT_BUDGET` into `c` (Count whenever
/// `WEFT_TRACE` is set).
pub(super) fn payoff_from_env(c: &mut RuntimeConfig) -> Result<()> {
    c.payoff = PayoffMode::Time;
    if let Ok(v) = std::env::var("WEFT_PAYOFF") {
        c.payoff = PayoffMode::parse(&v)
            .ok_or_else(|| invalid(format!("WEFT_PAYOFF={v:?} is not `time`, `count` or `off`")))?;
    }
    if c.trace.is_some() && c.payoff == PayoffMode::Time {
        c.payoff = PayoffMode::Count;
    }
    if let Ok(v) = std::env::var("WEFT_INSPECT_BUDGET") {
        c.inspect_budget = v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|b| b.is_finite() && *b >= 0.0)
            .ok_or_else(|| {
                invalid(format!(
                    "WEFT_INSPECT_BUDGET={v:?} is not a number of reference executions (0 = no time budget)"
                ))
            })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime(mode: PayoffMode) -> Runtime {
        Runtime::new(RuntimeConfig {
            cores: 2,
            payoff: mode,
            lazy: LazyInspect::Off,
            inspect_saturate: false,
            ..RuntimeConfig::default()
        })
        .unwrap()
    }

    fn fallback(rt: &Runtime, id: u32) -> Option<String> {
        lock(&rt.stats)
            .get(&(IRREGULAR, id))
            .and_then(|s| s.payoff_fallback.clone())
    }

    /// Count mode (deterministic): an inspection reporting more addresses
    /// than its budget stops, builds no schedule and the region runs in
    /// original order, now and on later calls (no second inspection); every
    /// iteration runs once, in order.
    #[test]
    fn address_budget_stops_the_inspection() {
        let rt = runtime(PayoffMode::Count);
        let data = vec![0u64; 64];
        let n = 1000i64;
        let per_iter = 5000u64; // > INSPECT_BUDGET_ADDRS_PER_ITER
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            for i in lo..hi {
                for k in 0..per_iter {
                    let a = &data[(k % 64) as usize] as *const u64 as u64;
                    h.report(i, a, 8, crate::abi::ACCESS_UNCHECKED).unwrap();
                }
            }
        };
        let seen = Mutex::new(Vec::new());
        let body = |lo: i64, hi: i64| lock(&seen).extend(lo..hi);
        for call in 0..2 {
            rt.run_irregular(7, 0, n, 0, Some(&insp), &body).unwrap();
            let v = std::mem::take(&mut *lock(&seen));
            assert_eq!(v, (0..n).collect::<Vec<_>>(), "call {call}: original order");
        }
        let why = fallback(&rt, 7).expect("the region fell back");
        assert!(why.starts_with("inspection over budget"), "{why}");
        assert!(rt.cached_irregular_plan(7).is_none());
        assert_eq!(lock(&rt.stats)[&(IRREGULAR, 7)].inspections, 1);
    }

    /// The same inspection within budget (fewer addresses per iteration)
    /// builds its schedule.
    #[test]
    fn inspection_within_budget_schedules() {
        let rt = runtime(PayoffMode::Count);
        let data = vec![0u64; 64];
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            for i in lo..hi {
                let a = &data[(i % 64) as usize] as *const u64 as u64;
                h.report(i, a, 8, crate::abi::ACCESS_UNCHECKED).unwrap();
            }
        };
        rt.run_irregular(3, 0, 1000, 0, Some(&insp), &|_, _| {})
            .unwrap();
        assert!(rt.cached_irregular_plan(3).is_some());
        assert_eq!(fallback(&rt, 3), None);
    }

    /// The payoff rule on given times: within 5% resets the strikes, two
    /// strikes in a row or one execution 1.5x slower drop the schedule, and
    /// the region then runs its reference order.
    #[test]
    fn payoff_rule() {
        let rt = runtime(PayoffMode::Time);
        rt.note_reference(IRREGULAR, 1, 100, 1000); // 10 ns/iter
        rt.note_scheduled(IRREGULAR, 1, 100, 1100); // strike 1
        rt.note_scheduled(IRREGULAR, 1, 100, 1040); // within 5%: reset
        rt.note_scheduled(IRREGULAR, 1, 100, 1100); // strike 1
        assert_eq!(rt.reference_order(IRREGULAR, 1), None);
        rt.note_scheduled(IRREGULAR, 1, 100, 1100); // strike 2: dropped
        assert_eq!(rt.reference_order(IRREGULAR, 1), Some(false));
        let why = fallback(&rt, 1).unwrap();
        assert!(
            why.starts_with("schedule did not pay off: 11.00 ns"),
            "{why}"
        );
        // the fastest reference counts; one run 1.5x slower drops at once; a
        // proven-parallel region falls back to static chunks until those run
        // slower than the reference too
        let ms = STATIC_MIN_REFERENCE_NS;
        rt.note_reference(IRREGULAR, 2, 100, 5 * ms);
        rt.note_reference(IRREGULAR, 2, 100, 4 * ms);
        rt.allow_static(IRREGULAR, 2);
        rt.note_scheduled(IRREGULAR, 2, 100, 8 * ms);
        assert_eq!(rt.reference_order(IRREGULAR, 2), Some(true));
        rt.note_static(IRREGULAR, 2, 100, 3 * ms);
        rt.note_static(IRREGULAR, 2, 100, 5 * ms);
        assert_eq!(rt.reference_order(IRREGULAR, 2), Some(true));
        rt.note_static(IRREGULAR, 2, 100, 5 * ms);
        assert_eq!(rt.reference_order(IRREGULAR, 2), Some(false));
        let why = fallback(&rt, 2).unwrap();
        let per = format!("{:.2}", 5.0 * ms as f64 / 100.0);
        assert!(
            why.contains(&format!("static chunks did not pay off either: {per}")),
            "{why}"
        );
        // a proven-parallel region whose reference is shorter than
        // STATIC_MIN_REFERENCE_NS falls back to the original order at once
        rt.note_reference(IRREGULAR, 4, 100, ms / 2);
        rt.allow_static(IRREGULAR, 4);
        rt.note_scheduled(IRREGULAR, 4, 100, ms);
        assert_eq!(rt.reference_order(IRREGULAR, 4), Some(false));
        // no reference: the next execution is a probe, once
        rt.note_scheduled(AFFINE, 3, 100, 800);
        assert_eq!(rt.reference_order(AFFINE, 3), Some(false));
        assert_eq!(rt.reference_order(AFFINE, 3), None);
    }

    /// A first reference under [`WARM_REFERENCE_BELOW_NS`] asks for a second
    /// (warm) one; the faster counts. A longer first reference suffices.
    #[test]
    fn short_first_references_are_measured_twice() {
        let rt = runtime(PayoffMode::Time);
        assert!(rt.wants_reference(IRREGULAR, 1));
        rt.note_reference(IRREGULAR, 1, 1000, 300_000); // cold: 300 us
        assert!(rt.wants_reference(IRREGULAR, 1));
        rt.note_reference(IRREGULAR, 1, 1000, 40_000); // warm: 40 us
        assert!(!rt.wants_reference(IRREGULAR, 1));
        assert_eq!(rt.payoff_state(IRREGULAR, 1).reference_ns, 40_000);
        // 40 us of budget: below the fixed cost, not inspected
        assert!(rt
            .inspect_budget(IRREGULAR, 1, 1000)
            .unwrap()
            .skip()
            .is_some());
        rt.note_reference(IRREGULAR, 2, 1000, WARM_REFERENCE_BELOW_NS);
        assert!(!rt.wants_reference(IRREGULAR, 2));
    }

    /// Count and off modes take no time into account: no probe, no drop.
    #[test]
    fn count_mode_ignores_times() {
        for mode in [PayoffMode::Count, PayoffMode::Off] {
            let rt = runtime(mode);
            rt.note_reference(IRREGULAR, 1, 100, 100);
            rt.note_scheduled(IRREGULAR, 1, 100, 100_000);
            rt.note_scheduled(AFFINE, 2, 100, 100_000);
            assert_eq!(rt.reference_order(IRREGULAR, 1), None);
            assert_eq!(rt.reference_order(AFFINE, 2), None);
            assert!(!rt.wants_reference(IRREGULAR, 1));
        }
    }

    /// Time budgets: below the fixed cost the inspection does not start;
    /// above it, a deadline of `inspect_budget` reference executions.
    #[test]
    fn time_budget() {
        let rt = runtime(PayoffMode::Time);
        assert!(rt
            .inspect_budget(IRREGULAR, 1, 1000)
            .unwrap()
            .deadline
            .is_none());
        rt.note_reference(IRREGULAR, 1, 1000, 10_000); // 10 us
        let b = rt.inspect_budget(IRREGULAR, 1, 1000).unwrap();
        assert!(b
            .skip()
            .unwrap()
            .starts_with("not inspected: budget 10000 ns"));
        rt.note_reference(IRREGULAR, 2, 1000, 1_000_000); // 1 ms
        let b = rt.inspect_budget(IRREGULAR, 2, 1000).unwrap();
        assert_eq!(b.skip(), None);
        assert_eq!(b.deadline.map(|d| d.1), Some(1_000_000));
        assert_eq!(b.addrs, INSPECT_BUDGET_ADDRS_PER_ITER * 1000 / 2);
        assert!(runtime(PayoffMode::Off)
            .inspect_budget(IRREGULAR, 2, 1000)
            .is_none());
    }

    #[test]
    fn modes_parse() {
        assert_eq!(PayoffMode::parse(" time"), Some(PayoffMode::Time));
        assert_eq!(PayoffMode::parse("count"), Some(PayoffMode::Count));
        assert_eq!(PayoffMode::parse("off"), Some(PayoffMode::Off));
        assert_eq!(PayoffMode::parse("fast"), None);
    }
}
