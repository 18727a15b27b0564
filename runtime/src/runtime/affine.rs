//! Affine nests (Algorithm 5, §5.5): iteration blocks, bank vectors from an
//! address inspector or from the access-function descriptor, the IW size of
//! eq. 5.1, the scheme (MLP/CLP/Default, §5.5.4-5.5.6), loop permutation
//! inside windows (§5.5.5), the Default fall-back (§5.6.1) and the
//! descriptor-path plan cache.

use super::*;
use crate::affine_desc::AffineDesc;
use crate::aside;
use crate::bankmap::{unit_maps, AddressMap};
use crate::deps::{sync_points, UnitDag};
use crate::error::invalid;
use crate::executor::{BodyRef, Plan};
use crate::mlp::{iw_size, schedule_ibs, BlockVectors, IbInstance, MlpOptions, Scheme};
use crate::{Result, RuntimeError};
use std::sync::Arc;
use std::time::Instant;

/// Schedules kept per affine nest on the descriptor path (one per distinct
/// bounds / base addresses / live-ins, least recently used dropped).
pub const DESC_CACHE_SLOTS: usize = 8;

/// Schedule-reuse control of described affine nests (native runs only):
/// a plan that served one execution counts as unreused when building it took
/// more than this share of that execution's time.
pub const AFFINE_PLAN_COST_SHARE: f64 = 0.05;

/// Largest iteration count a permuted affine plan may have (one unit per iteration).
pub const PERMUTE_MAX_UNITS: usize = 1 << 22;

impl Runtime {
    /// Affine nest (Algorithm 5): iteration blocks of `ib_iters` iterations over
    /// `[lo, hi)`, bank vectors from the address-only inspector, IW size from eq. 5.1,
    /// scheme `scheme`, IB dependence DAG with pruned synchronisation; cached.
    /// The inspector may be omitted only for [`Scheme::Default`].
    #[allow(clippy::too_many_arguments)]
    pub fn run_affine(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        ib_iters: i64,
        scheme: Scheme,
        inspect: Option<InspectRef<'_>>,
        body: BodyRef<'_>,
    ) -> Result<()> {
        self.run_affine_with(id, lo, hi, ib_iters, scheme, 0, inspect, body)
    }

    /// [`Runtime::run_affine`] with loop permutation inside windows (§5.5.5,
    /// [`Plan::permuted_windows`] with granules of `permute` iterations) when
    /// `permute > 0` and the schedule has no dependence waits (otherwise the
    /// plan runs unpermuted).
    #[allow(clippy::too_many_arguments)]
    pub fn run_affine_with(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        ib_iters: i64,
        scheme: Scheme,
        permute: i64,
        inspect: Option<InspectRef<'_>>,
        body: BodyRef<'_>,
    ) -> Result<()> {
        trip_count(lo, hi)?;
        if ib_iters <= 0 {
            return Err(invalid(format!(
                "ib_iters must be positive, got {ib_iters}"
            )));
        }
        if inspect.is_none() && scheme != Scheme::Default {
            return Err(invalid("MLP/CLP schemes need an inspector"));
        }
        if inspect.is_none() {
            // Compiled without an inspector: the compiler proved the IBs
            // independent, so a fall-back may run static chunks.
            self.allow_static(AFFINE, id);
        }
        let p = self.cfg.cores;
        let key = (
            lo,
            hi,
            ib_iters,
            scheme as u32 | ((permute.clamp(0, 1 << 23) as u32) << 8),
            p,
        );
        if self.grain_serial((AFFINE, id as u64), hi - lo) {
            // Too little work to share: original order on the calling thread.
            return self.execute_small(AFFINE, id, lo, hi, body);
        }
        if inspect.is_none() && self.tracer.is_none() {
            // Natively a nest compiled without an inspector (the Default
            // scheme, IBs proven independent) runs static chunks, timed
            // (rule 4's run), not round-robin IBs: neighbouring IBs on
            // different cores share lines at every IB boundary and break each
            // core's stream. jacobi1d's permuted round-robin plans ran 0.8-1.1
            // ns per iteration against 0.43-0.58 on one thread, were dropped
            // by the payoff rule, and one of its two sweeps (86 µs, below
            // `STATIC_MIN_REFERENCE_NS`) then ran on one thread: ch5:default
            // 1.24x of `--passes=none` at the medium size where every other
            // scheme took 0.55x (`docs/kernels.md`, session 8). Trace mode
            // keeps the round-robin plan the study simulates.
            return self.run_entry(id, lo, hi, true, body);
        }
        if let Some(parallel) = self.reference_order(AFFINE, id) {
            // Payoff control: a probe of the original order, or a fall-back.
            return self.run_reference(AFFINE, id, (lo, hi), parallel, body);
        }
        let cached = lock(&self.regions)
            .get(&(AFFINE, id))
            .filter(|c| c.key == key)
            .map(|c| c.plan.clone());
        // Schedule-reuse control, natively, for address-inspected nests (the
        // fall-back of nests the compiler could not prove parallel, whose
        // legality may rest on the dependence DAG): after
        // `reinspect_limit` plans in a row that each served one execution
        // and cost more than `checked_plan_cost_ratio · (cores - 1)` of it,
        // the nest runs in original order on the calling thread, which is
        // always legal and then the faster choice.
        let reuse_control = self.tracer.is_none() && inspect.is_some();
        if cached.is_none() && reuse_control && self.abandon_inspection(AFFINE, id) {
            return self.execute_small(AFFINE, id, lo, hi, body);
        }
        if cached.is_none() && inspect.is_none() && self.entry_call(id) {
            // Payoff rule 4 for nests proven parallel: the first call runs
            // static chunks, timed, before any plan is built.
            return self.run_entry(id, lo, hi, true, body);
        }
        let mut built_ns = None;
        let plan = match cached {
            Some(pl) => {
                if reuse_control {
                    self.plan_reused(AFFINE, id);
                }
                pl
            }
            None => {
                let budget = inspect.and_then(|_| self.inspect_budget(AFFINE, id, hi - lo));
                if let Some(why) = budget.as_ref().and_then(|b| b.skip()) {
                    let parallel = self.inspection_stopped(AFFINE, id, why, 0);
                    return self.run_reference(AFFINE, id, (lo, hi), parallel, body);
                }
                self.set_up()?;
                let t = Instant::now();
                let guarded = |a: i64, b: i64, h: &mut Inspector| match (&budget, inspect) {
                    (Some(bu), Some(insp)) => bu.run(insp, a, b, h),
                    (_, Some(insp)) => insp(a, b, h),
                    (_, None) => {}
                };
                let built = self.build_affine(
                    lo,
                    hi,
                    ib_iters,
                    scheme,
                    inspect.map(|_| &guarded as InspectRef<'_>),
                );
                if let Some(why) = budget.as_ref().and_then(|b| b.spent()) {
                    let ns = t.elapsed().as_nanos() as u64;
                    let parallel = self.inspection_stopped(AFFINE, id, why, ns);
                    return self.run_reference(AFFINE, id, (lo, hi), parallel, body);
                }
                let (plan, st) = built?;
                let (plan, ns) = self.finish_affine(id, ib_iters, permute, t, plan, st);
                built_ns = Some(ns);
                self.cache_plan((AFFINE, id), key, &plan);
                plan
            }
        };
        self.execute_affine(
            id,
            &plan,
            scheme,
            body,
            built_ns.filter(|_| reuse_control),
            true,
        )
    }

    /// Runs affine nest `id`'s `plan` and, when a new plan was built for this
    /// call in `built_ns` (under reuse control), records whether that plan
    /// counts against the nest ([`Runtime::affine_plan_costly`]; `checked`:
    /// the nest's legality may rest on a run-time check).
    pub(super) fn execute_affine(
        &self,
        id: u32,
        plan: &Plan,
        scheme: Scheme,
        body: BodyRef<'_>,
        built_ns: Option<u64>,
        checked: bool,
    ) -> Result<()> {
        let ns = self.execute_region(AFFINE, id, plan, scheme != Scheme::Default, body)?;
        self.note_scheduled(AFFINE, id, plan.iterations(), ns);
        let exec = ns as f64;
        if let Some(b) = built_ns {
            self.plan_built(AFFINE, id, self.affine_plan_costly(b, exec, checked), false);
        }
        Ok(())
    }

    /// A plan just built for nest `id` (since `t`, with statistics `st`):
    /// permuted inside windows when `permute > 0` (and possible), its
    /// inspection recorded; the plan and its build time in ns.
    pub(super) fn finish_affine(
        &self,
        id: u32,
        ib_iters: i64,
        permute: i64,
        t: Instant,
        plan: Plan,
        st: RegionStats,
    ) -> (Arc<Plan>, u64) {
        // A nest that stepped aside runs the Default plan, unpermuted.
        let permute = if st.step_aside.is_some() { 0 } else { permute };
        let plan = match (permute > 0).then(|| plan.permuted_windows(PERMUTE_MAX_UNITS, permute)) {
            Some(Some(q)) => q,
            _ => plan,
        };
        let plan = Arc::new(plan);
        let ns = t.elapsed().as_nanos() as u64;
        self.record_inspection((AFFINE, id), ib_iters, ns, st);
        (plan, ns)
    }

    /// Natively in time mode, whether described nest `id` has run too few
    /// times to amortise a descriptor walk: rule 1 of [`crate::aside`]
    /// (`n · G < C`, `n` its executions so far, the walk's cost taken as one
    /// execution, its budget's default). While it has, the reason is the
    /// nest's `step_aside`; it is cleared when the walk may run. kmeans's
    /// chapter 5 nest, called twice, walked for 11.6 ms on its second call
    /// against 7.1 ms of execution in all (1.29x-1.39x its `--passes=none`
    /// time at the medium size, `docs/kernels.md`, session 8).
    fn walk_not_amortised(&self, id: u32) -> bool {
        if !self.payoff_timed() {
            return false;
        }
        let mut st = lock(&self.stats);
        let e = st.entry((AFFINE, id)).or_default();
        match aside::before_inspection(e.executions) {
            Some(why) => {
                e.step_aside = Some(why);
                true
            }
            None => {
                if e.step_aside
                    .as_deref()
                    .is_some_and(|w| w.starts_with(aside::AMORTISE_PREFIX))
                {
                    e.step_aside = None;
                }
                false
            }
        }
    }

    /// A described nest whose descriptor needs more than
    /// [`crate::affine_desc::RUN_BUDGET`] runs: a nest proven parallel
    /// (`!check`) runs the Default schedule (round-robin IBs, §5.6.1) on all
    /// cores, with coverage 0 in its statistics; a nest whose IBs may conflict
    /// returns the error and the compiled code runs it sequentially.
    pub(super) fn desc_over_budget(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        ib_iters: i64,
        check: bool,
        body: BodyRef<'_>,
    ) -> Result<()> {
        if check {
            return Err(RuntimeError::SearchBudget(crate::affine_desc::RUN_BUDGET));
        }
        self.run_affine(id, lo, hi, ib_iters, Scheme::Default, None, body)
    }

    /// Affine nest whose IBs are independent, with bank vectors from the
    /// access-function descriptor `desc` ([`AffineDesc`]) evaluated at loop
    /// entry (no inspector, no loop body run). Plans are cached per nest and
    /// descriptor contents (the actual base addresses and live-ins), up to
    /// [`DESC_CACHE_SLOTS`] per nest, so alternating arrays (`A→B`, `B→A`)
    /// keep their schedules. `permute` as in [`Runtime::run_affine_with`].
    #[allow(clippy::too_many_arguments)]
    pub fn run_affine_desc(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        ib_iters: i64,
        scheme: Scheme,
        permute: i64,
        check: bool,
        desc: &[i64],
        body: BodyRef<'_>,
    ) -> Result<()> {
        trip_count(lo, hi)?;
        if ib_iters <= 0 {
            return Err(invalid(format!(
                "ib_iters must be positive, got {ib_iters}"
            )));
        }
        if self.grain_serial((AFFINE, id as u64), hi - lo) {
            // Too little work to share: original order on the calling thread
            // (correct whether or not the IBs conflict).
            return self.execute_small(AFFINE, id, lo, hi, body);
        }
        if let Some(parallel) = self.reference_order(AFFINE, id) {
            // Payoff control: a probe of the original order, or a fall-back.
            return self.run_reference(AFFINE, id, (lo, hi), parallel, body);
        }
        let p = self.cfg.cores;
        let mut key = vec![
            lo,
            hi,
            ib_iters,
            scheme as i64,
            permute,
            p as i64,
            check as i64,
        ];
        key.extend_from_slice(desc);
        let cached = {
            let mut g = lock(&self.affine_desc);
            let slots = g.entry(id).or_default();
            match slots.iter().position(|(k, _)| *k == key) {
                Some(i) => {
                    let e = slots.remove(i);
                    let pl = e.1.clone();
                    slots.push(e); // most recent last
                    Some(pl)
                }
                None => None,
            }
        };
        // A nest the compiler could not prove parallel (`check`) needs no
        // line-walk check when interval arithmetic over the actual bounds
        // proves its IBs independent (cholesky's column loop, `i` from
        // `j + 1`): it then follows the proven-parallel rules, including the
        // fall-back to the parallel Default schedule. A cached plan already
        // embodies the verdict (the key holds the bounds and the descriptor),
        // so only the other paths prove it; the parsed descriptor is kept for
        // the build.
        let mut parsed = None;
        let check = if check && !matches!(cached, Some(Ok(_))) {
            let d = AffineDesc::parse(desc)?;
            let needed = !d.ibs_independent(lo, hi, ib_iters);
            parsed = Some(d);
            needed
        } else {
            check
        };
        if !check {
            self.allow_static(AFFINE, id);
        }
        if cached.is_none()
            && !check
            && scheme == Scheme::Default
            && permute == 0
            && self.tracer.is_none()
        {
            // Natively the Default schedule needs nothing from the
            // descriptor walk; trace mode keeps it for the statistics (IW
            // size, data-set size) the study reports. `run_affine` without
            // an inspector runs it natively as static chunks (see
            // `run_affine_with`).
            return self.run_affine(id, lo, hi, ib_iters, Scheme::Default, None, body);
        }
        let conflict = || {
            RuntimeError::IbConflict(format!("nest {id}: an IB writes lines another IB touches"))
        };
        // Schedule-reuse control, natively only (trace mode keeps scheduling:
        // building a plan costs no simulated cycles, and the study measures the
        // schedules). A nest proven parallel falls back to the Default
        // schedule; one whose legality rests on the conflict check to its
        // original order on the calling thread.
        let reuse_control = self.tracer.is_none();
        if cached.is_none() && reuse_control && self.abandon_inspection(AFFINE, id) {
            return match check {
                false => self.run_affine(id, lo, hi, ib_iters, Scheme::Default, None, body),
                true => self.execute_small(AFFINE, id, lo, hi, body),
            };
        }
        if cached.is_none() && self.entry_call(id) {
            // Payoff rule 4: the first call runs without a walk and is timed;
            // its time bounds the walk of the next call.
            return self.run_entry(id, lo, hi, !check, body);
        }
        if cached.is_none() && reuse_control && self.walk_not_amortised(id) {
            // Rule 1 of `crate::aside` for walks (natively): until the nest
            // has run often enough to amortise a walk, each call runs as the
            // first did (rule 4, timed: its time bounds the walk); a later
            // call walks.
            return self.run_entry(id, lo, hi, !check, body);
        }
        let mut built_ns = None;
        let plan = match cached {
            Some(Ok(Some(pl))) => {
                if reuse_control {
                    self.plan_reused(AFFINE, id);
                }
                pl
            }
            Some(Ok(None)) => return Err(conflict()),
            Some(Err(())) => {
                return self.desc_over_budget(id, lo, hi, ib_iters, check, body);
            }
            None => {
                self.set_up()?;
                let deadline = match self.walk_deadline(id, hi - lo) {
                    Ok(d) => d,
                    Err(why) => {
                        self.walk_stopped(id, why, 0);
                        self.desc_cache_put(id, key, Err(()));
                        return self.desc_over_budget(id, lo, hi, ib_iters, check, body);
                    }
                };
                let t = Instant::now();
                let parsed = match parsed {
                    Some(d) => d,
                    None => AffineDesc::parse(desc)?,
                };
                let built =
                    self.build_affine_desc(lo, hi, ib_iters, scheme, check, &parsed, deadline);
                let built = match built {
                    Err(RuntimeError::InspectBudget(why)) => {
                        self.walk_stopped(id, why, t.elapsed().as_nanos() as u64);
                        self.desc_cache_put(id, key, Err(()));
                        return self.desc_over_budget(id, lo, hi, ib_iters, check, body);
                    }
                    Err(RuntimeError::SearchBudget(_)) => {
                        // Too many runs: remember it (the lock is released before
                        // the loop runs).
                        self.desc_cache_put(id, key, Err(()));
                        return self.desc_over_budget(id, lo, hi, ib_iters, check, body);
                    }
                    r => r?,
                };
                let Some((plan, st)) = built else {
                    self.desc_cache_put(id, key, Ok(None));
                    return Err(conflict());
                };
                let (plan, ns) = self.finish_affine(id, ib_iters, permute, t, plan, st);
                built_ns = Some(ns);
                self.desc_cache_put(id, key, Ok(Some(plan.clone())));
                plan
            }
        };
        self.execute_affine(
            id,
            &plan,
            scheme,
            body,
            built_ns.filter(|_| reuse_control),
            check,
        )
    }

    /// Schedule-reuse control of affine nests: whether a plan that took
    /// `built_ns` to build counts against its nest after an execution of
    /// `exec_ns`. A nest proven parallel (falls back to the Default
    /// schedule): more than `plan_cost_share` of the execution. One whose
    /// legality may rest on a check (falls back to a sequential run): more
    /// than `checked_plan_cost_ratio · (cores - 1)` executions.
    pub(super) fn affine_plan_costly(&self, built_ns: u64, exec_ns: f64, checked: bool) -> bool {
        let limit = match checked {
            false => self.cfg.plan_cost_share * exec_ns,
            true => {
                let others = self.cfg.cores.saturating_sub(1) as f64;
                self.cfg.checked_plan_cost_ratio * others * exec_ns
            }
        };
        built_ns as f64 > limit
    }

    /// Saves the descriptor-path verdict for nest `id` under `key`, dropping
    /// the least recently used of its [`DESC_CACHE_SLOTS`] entries when full.
    pub(super) fn desc_cache_put(&self, id: u32, key: Vec<i64>, entry: DescEntry) {
        let mut g = lock(&self.affine_desc);
        let slots = g.entry(id).or_default();
        if slots.len() >= DESC_CACHE_SLOTS {
            drop(slots.remove(0));
        }
        slots.push((key, entry));
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn build_affine_desc(
        &self,
        lo: i64,
        hi: i64,
        ib: i64,
        scheme: Scheme,
        check: bool,
        desc: &AffineDesc,
        deadline: Option<Instant>,
    ) -> Result<Option<(Plan, RegionStats)>> {
        let p = self.cfg.cores;
        let machine = self.machine()?;
        let map = machine.as_ref() as &dyn AddressMap;
        let v = desc.block_vectors(map, lo, hi, ib, check, deadline)?;
        if v.conflict {
            return Ok(None);
        }
        let n = v.blocks.len();
        let units: Vec<(i64, i64)> = (0..n as i64)
            .map(|i| (lo + i * ib, (lo + (i + 1) * ib).min(hi)))
            .collect();
        let nz: Vec<f64> = v
            .ds_lines
            .iter()
            .filter(|&&d| d > 0)
            .map(|&d| d as f64)
            .collect();
        let ds = if nz.is_empty() {
            0.0
        } else {
            nz.iter().sum::<f64>() / nz.len() as f64
        };
        let w = iw_size(machine.llc_lines(), ds, p).min(n.div_ceil(p).max(1));
        let opts = MlpOptions {
            scheme,
            eta_mem: machine.eta_mem(),
            eta_llc: machine.eta_llc(),
        };
        let (plan, mut st) = self.plan_from_blocks(
            units,
            v.blocks,
            None,
            w,
            ds,
            (machine.num_mem_banks(), machine.num_llc_banks()),
            &opts,
        )?;
        st.line_steps = v.line_steps;
        Ok(Some((plan, st)))
    }

    pub(super) fn build_affine(
        &self,
        lo: i64,
        hi: i64,
        ib: i64,
        scheme: Scheme,
        inspect: Option<InspectRef<'_>>,
    ) -> Result<(Plan, RegionStats)> {
        let p = self.cfg.cores;
        let n = (hi - lo) / ib + ((hi - lo) % ib != 0) as i64;
        let n = n.max(0) as usize;
        let units: Vec<(i64, i64)> = (0..n as i64)
            .map(|i| (lo + i * ib, (lo + (i + 1) * ib).min(hi)))
            .collect();
        let (blocks, dag, window, ds, mb, lb, opts) = match inspect {
            Some(insp) => {
                let machine = self.machine()?;
                let Inspected { accesses: acc, .. } = self.traced_phase(true, || {
                    self.inspect(
                        lo,
                        hi,
                        &core_ranges(&self.chunks(lo, hi)),
                        Layout::Blocks { ib },
                        insp,
                    )
                })?;
                let maps = unit_maps(machine.as_ref() as &dyn AddressMap, n, &acc)?;
                let dag = UnitDag::from_accesses(n, &acc)?;
                let ds = maps.mean_ds_lines();
                // Eq. 5.1, capped at a core's fair share of the IBs: with fewer IBs
                // than n·W, an uncapped window lets the first core take them all.
                let w = iw_size(machine.llc_lines(), ds, p).min(n.div_ceil(p).max(1));
                let blocks: Vec<BlockVectors> = maps
                    .mem_weighted
                    .into_iter()
                    .zip(maps.llc_weighted)
                    .map(|(m, l)| BlockVectors {
                        mem: m.counts,
                        llc: l.counts,
                    })
                    .collect();
                let opts = MlpOptions {
                    scheme,
                    eta_mem: machine.eta_mem(),
                    eta_llc: machine.eta_llc(),
                };
                (
                    blocks,
                    Some(dag),
                    w,
                    ds,
                    machine.num_mem_banks(),
                    machine.num_llc_banks(),
                    opts,
                )
            }
            None => {
                let blocks = vec![
                    BlockVectors {
                        mem: vec![0],
                        llc: vec![0]
                    };
                    n
                ];
                let w = n.div_ceil(p).max(1);
                let opts = MlpOptions {
                    scheme,
                    ..Default::default()
                };
                (blocks, None, w, 0.0, 1, 1, opts)
            }
        };
        self.plan_from_blocks(units, blocks, dag.as_ref(), window, ds, (mb, lb), &opts)
    }

    /// Algorithm 5 over the IBs' vectors, then the executable plan (waits
    /// from the DAG, if any) and the statistics.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn plan_from_blocks(
        &self,
        units: Vec<(i64, i64)>,
        blocks: Vec<BlockVectors>,
        dag: Option<&UnitDag>,
        window: usize,
        ds: f64,
        (mb, lb): (usize, usize),
        opts: &MlpOptions,
    ) -> Result<(Plan, RegionStats)> {
        let p = self.cfg.cores;
        let n = units.len();
        // Step aside (rule 3 of `crate::aside`): a one-IB window runs Default.
        let aside = (self.cfg.ib_aside && opts.scheme != Scheme::Default)
            .then(|| crate::aside::ib_window_aside(window))
            .flatten();
        let stepped;
        let opts = match aside {
            Some(_) => {
                stepped = MlpOptions {
                    scheme: Scheme::Default,
                    ..opts.clone()
                };
                &stepped
            }
            None => opts,
        };
        let scheme = opts.scheme;
        let inst = IbInstance {
            cores: p,
            window,
            mem_banks: mb,
            llc_banks: lb,
            blocks,
        };
        let dag_ref = dag.filter(|d| !d.has_no_edges());
        let sched = schedule_ibs(&inst, opts, dag_ref)?;
        // Step aside (rule 4 of `crate::aside`): windows that do not cover
        // more banks than Default's run the Default plan.
        let (aside, scheme, sched) = match (&aside, self.cfg.ib_aside, scheme) {
            (None, true, s) if s != Scheme::Default => {
                let default = MlpOptions {
                    scheme: Scheme::Default,
                    ..opts.clone()
                };
                let plain = schedule_ibs(&inst, &default, dag_ref)?;
                let cov = |x| crate::aside::window_coverage(&inst, x);
                match crate::aside::ib_coverage_aside(cov(&sched), cov(&plain)) {
                    Some(why) => (Some(why), Scheme::Default, plain),
                    None => (None, scheme, sched),
                }
            }
            _ => (aside, scheme, sched),
        };
        let steps: Vec<Vec<Vec<u32>>> = sched
            .windows
            .iter()
            .map(|s| {
                s.iter()
                    .map(|w| w.iter().map(|&b| b as u32).collect())
                    .collect()
            })
            .collect();
        let waits = match dag_ref {
            Some(d) => sync_points(d, &sched.per_core(p), &sched.seq)?,
            None => vec![Vec::new(); n],
        };
        let plan = Plan {
            units,
            steps,
            waits,
            seq: sched.seq.clone(),
            barrier: false,
        };
        plan.validate()?;
        let beta_mean = (!sched.beta.is_empty())
            .then(|| sched.beta.iter().sum::<f64>() / sched.beta.len() as f64);
        let st = RegionStats {
            scheme: Some(scheme.name().into()),
            iw_size: Some(window),
            ds_lines: Some(ds),
            beta: sched.beta.iter().take(4096).copied().collect(),
            beta_mean,
            step_aside: aside,
            ..RegionStats::of_plan(&plan, dag.map_or(0, |d| d.num_edges()))
        };
        Ok((plan, st))
    }
}
