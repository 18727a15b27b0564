//! Irregular regions (Algorithm 4, §4.4): slabs per core, inspection into
//! bank maps (§4.4.2), the dependence check (§4.4.6), the BLP schedule
//! (§4.4.4), synchronisation pruning and the cached plan.

use super::stats::bank_maps_hash;
use super::*;
use crate::aside;
use crate::bankmap::AddressMap;
use crate::bankset::BankSet;
use crate::blp::{original_order, schedule_blp, BlpOptions, SlabInstance};
use crate::blp_windows::{schedule_windowed, WindowedInstance};
use crate::deps::sync_points;
use crate::error::invalid;
use crate::executor::{on_workers, BodyRef, Plan};
use crate::inspect::{BankTable, SlabLayout, SlabRecorder, WrittenGranules};
use crate::Result;
use std::sync::{Arc, Mutex};
use std::time::Instant;

impl Runtime {
    /// Irregular region (Algorithm 4): inspect, map banks, check dependences,
    /// schedule slabs (cached), then execute. `slab_iters == 0` picks 1/50 of a
    /// core's iterations. Without an inspector the Default schedule runs and the
    /// region's coverage ratio records it.
    pub fn run_irregular(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        slab_iters: i64,
        inspect: Option<InspectRef<'_>>,
        body: BodyRef<'_>,
    ) -> Result<()> {
        trip_count(lo, hi)?;
        if slab_iters < 0 {
            return Err(invalid(format!("slab_iters {slab_iters} is negative")));
        }
        if self.grain_serial((IRREGULAR, id as u64), hi - lo) {
            // Too little work to share: original order on the calling thread,
            // so neither inspection nor schedule is needed.
            return self.execute_small(IRREGULAR, id, lo, hi, body);
        }
        if let (Some(_), Some(parallel)) = (inspect, self.reference_order(IRREGULAR, id)) {
            // Fell back (bounded inspection, payoff): the reference order.
            return self.run_reference(IRREGULAR, id, (lo, hi), parallel, body);
        }
        let p = self.cfg.cores;
        if p == 1 && self.tracer.is_none() {
            // One native worker: without an inspector, or with one slab in
            // all, the plan is the whole range in order; run it without
            // building one (no allocation on this per-call path).
            let n = hi - lo;
            let one_slab = n <= slab_iters || slab_iters == 0 && n <= 1;
            if inspect.is_none() || one_slab {
                return self.execute_inline(IRREGULAR, id, lo, hi, inspect.is_some(), body);
            }
        }
        let chunk = self.chunks(lo, hi);
        let max_chunk = (0..p).map(|c| chunk[c + 1] - chunk[c]).max().unwrap_or(0);
        let si = if slab_iters == 0 {
            ((max_chunk + 49) / 50).max(1)
        } else {
            slab_iters
        };
        let key = (lo, hi, si, 0u32, p);
        // One slab in all (one worker and `slab_iters` covering its chunk):
        // nothing to schedule and no slab to conflict with, so no inspection.
        let slabs: i64 = (0..p)
            .map(|c| (chunk[c + 1] - chunk[c] + si - 1) / si)
            .sum();
        let (plan, scheduled) = match inspect {
            None => (Arc::new(Plan::static_chunks(lo, hi, p)), false),
            Some(_) if slabs <= 1 => (Arc::new(Plan::static_chunks(lo, hi, p)), true),
            Some(insp) => {
                let cached = lock(&self.regions)
                    .get(&(IRREGULAR, id))
                    .filter(|c| c.key == key)
                    .map(|c| (c.plan.clone(), c.scheduled));
                match cached {
                    Some(c) => {
                        self.plan_reused(IRREGULAR, id);
                        c
                    }
                    None if self.cfg.lazy != LazyInspect::Off
                        && self.tracer.is_none()
                        && lock(&self.stats)
                            .get(&(IRREGULAR, id))
                            .map_or(true, |e| e.executions == 0)
                        && (self.cfg.lazy == LazyInspect::All
                            || !self.declares_maps_only(lo, insp)) =>
                    {
                        // Lazy inspection: the first execution runs in
                        // original order on the calling thread.
                        return self.execute_small(IRREGULAR, id, lo, hi, body);
                    }
                    None if self.abandon_inspection(IRREGULAR, id) => {
                        (Arc::new(Plan::static_chunks(lo, hi, p)), false)
                    }
                    None if self.cfg.blp_stagger && self.declares_parallel(lo, insp) => {
                        // Staggered chunks (`super::stagger`): no inspection.
                        let starts = super::stagger::hashed_starts(&chunk, si);
                        let plan = Arc::new(Plan::rotated_chunks(&chunk, &starts));
                        self.cache_plan((IRREGULAR, id), key, &plan);
                        (plan, true)
                    }
                    None if self.cfg.blp_aside.amortise()
                        && self.aside_before_inspection(id, lo, insp) =>
                    {
                        // Step aside (rule 1 of `crate::aside`): the Original
                        // schedule, without inspection.
                        (Arc::new(Plan::static_chunks(lo, hi, p)), false)
                    }
                    None if self.cfg.blp_aside.amortise()
                        && self.aside_by_sample(id, si, &chunk, insp) =>
                    {
                        // Step aside (rule 2 on a sample, `super::coverage_probe`):
                        // the Original schedule from now on, without the full
                        // inspection.
                        let plan = Arc::new(Plan::static_chunks(lo, hi, p));
                        self.cache_plan((IRREGULAR, id), key, &plan);
                        (plan, true)
                    }
                    None if self.wants_reference(IRREGULAR, id) => {
                        // Payoff control: a region with no reference time
                        // yet measures one (original order on the calling
                        // thread) before it inspects; one whose inspector
                        // reports only unchecked accesses may fall back to
                        // static chunks.
                        if self.declares_maps_only(lo, insp) {
                            self.allow_static(IRREGULAR, id);
                        }
                        return self.run_reference(IRREGULAR, id, (lo, hi), false, body);
                    }
                    None => {
                        let budget = self.inspect_budget(IRREGULAR, id, hi - lo);
                        if let Some(why) = budget.as_ref().and_then(|b| b.skip()) {
                            let parallel = self.inspection_stopped(IRREGULAR, id, why, 0);
                            return self.run_reference(IRREGULAR, id, (lo, hi), parallel, body);
                        }
                        if self.payoff_timed()
                            && !self.declares_parallel(lo, insp)
                            && self.sample_stops(id, si, &chunk, insp)?
                        {
                            // The probes (`super::sample`): the writes chain
                            // the cores; no inspection, the original order.
                            return self.run_reference(IRREGULAR, id, (lo, hi), false, body);
                        }
                        self.set_up()?;
                        let t = Instant::now();
                        let guarded = |a: i64, b: i64, h: &mut Inspector| match &budget {
                            Some(bu) => bu.run(insp, a, b, h),
                            None => insp(a, b, h),
                        };
                        let built = self.build_irregular(si, &chunk, &guarded);
                        if let Some(why) = budget.as_ref().and_then(|b| b.spent()) {
                            let ns = t.elapsed().as_nanos() as u64;
                            let parallel = self.inspection_stopped(IRREGULAR, id, why, ns);
                            return self.run_reference(IRREGULAR, id, (lo, hi), parallel, body);
                        }
                        let (plan, st, writes) = built?;
                        let plan = Arc::new(plan);
                        let ns = t.elapsed().as_nanos() as u64;
                        self.plan_built(IRREGULAR, id, true, writes);
                        self.record_inspection((IRREGULAR, id), si, ns, st);
                        self.cache_plan((IRREGULAR, id), key, &plan);
                        (plan, true)
                    }
                }
            }
        };
        let ns = self.execute_region(IRREGULAR, id, &plan, scheduled, body)?;
        if scheduled && inspect.is_some() {
            self.note_scheduled(IRREGULAR, id, hi - lo, ns);
        }
        Ok(())
    }

    /// Rule 1 of [`crate::aside`] for region `id`: true (and the reason in
    /// its statistics) when its loop needs no dependence check (its
    /// inspector reports only unchecked accesses, or the loop is parallel by
    /// annotation) and it has not run often enough to amortise an
    /// inspection.
    fn aside_before_inspection(&self, id: u32, lo: i64, insp: InspectRef<'_>) -> bool {
        let runs = lock(&self.stats)
            .get(&(IRREGULAR, id))
            .map_or(0, |e| e.executions);
        match aside::before_inspection(runs) {
            Some(why) if self.declares_parallel(lo, insp) => {
                lock(&self.stats)
                    .entry((IRREGULAR, id))
                    .or_default()
                    .step_aside = Some(why);
                true
            }
            _ => false,
        }
    }

    /// Rule 2 of [`crate::aside`] on a sample (`super::coverage_probe`) for
    /// region `id`, when its loop needs no dependence check: true (and the
    /// reason and the sample's inspection in its statistics) when the
    /// sampled schedule does not gain enough coverage.
    fn aside_by_sample(&self, id: u32, si: i64, chunk: &[i64], insp: InspectRef<'_>) -> bool {
        if !self.declares_parallel(chunk[0], insp) {
            return false;
        }
        let t = Instant::now();
        let Some(why) = self.coverage_probe(si, chunk, insp) else {
            return false;
        };
        let ns = t.elapsed().as_nanos() as u64;
        let p = self.cfg.cores;
        let plan = Plan::static_chunks(chunk[0], chunk[p], p);
        let st = RegionStats {
            step_aside: Some(why),
            ..RegionStats::of_plan(&plan, 0)
        };
        self.plan_built(IRREGULAR, id, true, false);
        self.record_inspection((IRREGULAR, id), si, ns, st);
        true
    }

    /// A slab recorder for `layout` on `machine`, with this runtime's bank
    /// table, miss filter (`WEFT_MISS_FILTER`) and record pool; `lazy`: see
    /// [`SlabRecorder::lazy`].
    pub(super) fn slab_recorder(
        &self,
        machine: &Arc<Machine>,
        layout: SlabLayout,
        lazy: bool,
    ) -> SlabRecorder {
        let table = self
            .bank_table
            .get_or_init(|| BankTable::new(machine))
            .clone();
        let (banks, shift) = (
            machine.num_mem_banks(),
            machine.line_bytes().max(1).trailing_zeros(),
        );
        match lazy {
            true => SlabRecorder::lazy(layout, banks, shift, table),
            false => SlabRecorder::new(layout, banks, shift, table),
        }
        .with_miss_filter(self.cfg.miss_filter.lines(machine, self.cfg.cores))
        .with_pool(&self.rec_pool)
    }

    pub(super) fn build_irregular(
        &self,
        si: i64,
        chunk: &[i64],
        insp: InspectRef<'_>,
    ) -> Result<(Plan, RegionStats, bool)> {
        let p = self.cfg.cores;
        let machine = self.machine()?;
        // Sub-slab windows (`crate::blp_windows`), for regions proven parallel
        // only: slabs of `k · rsi` iterations, recorded as `k` sub-slabs of
        // `rsi` each.
        let sub = self
            .cfg
            .blp_subwindows
            .filter(|&k| k > 1 && self.declares_maps_only(chunk[0], insp));
        let (si, rsi) = match sub {
            Some(k) => {
                let r = ((si + k as i64 - 1) / k as i64).max(1);
                (r * k as i64, r)
            }
            None => (si, si),
        };
        let cut = |size: i64, units: &mut Vec<(i64, i64)>| {
            let mut offset = vec![0u32; p + 1];
            for c in 0..p {
                let (a, b) = (chunk[c], chunk[c + 1]);
                let mut s = a;
                while s < b {
                    units.push((s, (s + size).min(b)));
                    s += size;
                }
                offset[c + 1] = units.len() as u32;
            }
            offset
        };
        let mut units = Vec::new();
        let offset = cut(si, &mut units);
        let rec_offset = match sub {
            Some(_) => cut(rsi, &mut Vec::new()),
            None => offset.clone(),
        };
        let n = units.len();
        let t0 = Instant::now();
        let layout = SlabLayout {
            chunk: chunk.to_vec(),
            offset: rec_offset.clone(),
            slab_iters: rsi,
        };
        let banks = machine.num_mem_banks();
        let make = |lazy: bool| self.slab_recorder(&machine, layout.clone(), lazy);
        // Runs `f` for every core's chunk: natively on the workers, in trace
        // mode one virtual core at a time (the tracer tags the current core).
        let per_core = |f: &(dyn Fn(usize) -> Result<SlabRecorder> + Sync)| {
            let parts: Vec<Result<SlabRecorder>> = if self.tracing() {
                self.traced_phase(true, || Ok((0..p).map(f).collect()))?
            } else {
                let slots: Vec<Mutex<Option<Result<SlabRecorder>>>> =
                    (0..p).map(|_| Mutex::new(None)).collect();
                on_workers(p, &|c| *lock(&slots[c]) = Some(f(c)));
                slots
                    .into_iter()
                    .map(|m| {
                        m.into_inner()
                            .unwrap_or_else(|e| e.into_inner())
                            .unwrap_or_else(|| Err(invalid("internal: a chunk was not inspected")))
                    })
                    .collect()
            };
            parts.into_iter().collect::<Result<Vec<_>>>()
        };
        // Chunk `c`: with the written granules known, into a recorder that
        // keeps every write and the reads of written granules; otherwise into
        // a lazy recorder, a chunk that reports a write being completed by
        // re-inspecting its iterations up to the first write. `offer`: ask
        // for the writes-only slice (`weft_inspect_writes_first`).
        let chunk_rec = |c: usize, filter: Option<&Arc<WrittenGranules>>, offer: bool| {
            let (a, b) = (chunk[c], chunk[c + 1]);
            if let Some(w) = filter {
                let r = make(false).with_read_filter(w.clone());
                return Ok(self.inspect_slabs(c, a, b, r, insp)?.0);
            }
            let mut r = self.inspect_chunk(c, (a, b), make(true), &layout, insp, offer)?;
            if let Some(s) = r.first_write_iter() {
                let head = self.inspect_slabs_phase(c, a, s + 1, make(false), insp, offer)?;
                r.prepend(head.0);
            }
            Ok(r)
        };
        // Writes first (`RuntimeConfig::writes_first`): the chunks are
        // inspected offering the writes-only slice. An inspector without one
        // ignores the offer, and that is the inspection. One with it reports
        // its checked writes only; the granules they touch then filter the
        // reads of the full inspection (reads of others cannot conflict).
        let offer = self.cfg.writes_first && !self.tracing();
        let mut parts = per_core(&|c| chunk_rec(c, None, offer))?;
        let mut prefilter = None;
        if parts.iter().any(|r| r.writes_only()) {
            prefilter = WrittenGranules::of(&parts).map(Arc::new);
            parts = per_core(&|c| chunk_rec(c, prefilter.as_ref(), false))?;
            if prefilter.as_ref().is_some_and(|w| !w.covers_writes(&parts)) {
                // The writes-only slice missed a write of the full inspector
                // (a compiler bug): its filter may have dropped a conflicting
                // read. Inspect again without it.
                prefilter = None;
                parts = per_core(&|c| chunk_rec(c, None, false))?;
            }
        }
        let t1 = Instant::now();
        // Reads of granules nobody writes cannot conflict: each core drops
        // those of its chunk before the serial check. When the writes were
        // known first, the recorders dropped them already, and the check
        // numbers the granules of the writes-first phase (a superset of
        // those written, checked above: the extra ones link nothing).
        let written = match (&prefilter, parts.iter().all(|r| r.reads_filtered())) {
            (Some(w), true) => Some(w.clone()),
            _ => {
                let written = WrittenGranules::of(&parts);
                if let Some(w) = &written {
                    let cells: Vec<Mutex<&mut SlabRecorder>> =
                        parts.iter_mut().map(Mutex::new).collect();
                    match self.tracing() {
                        true => cells.iter().for_each(|r| lock(r).retain_conflicting(w)),
                        false => {
                            on_workers(cells.len(), &|c| lock(&cells[c]).retain_conflicting(w))
                        }
                    }
                }
                written.map(Arc::new)
            }
        };
        // The chunks in core order, appended to the first one's recorder
        // (their records are not copied into a new one).
        let mut parts = parts.into_iter();
        let mut rec = parts.next().unwrap_or_else(|| make(false));
        for part in parts {
            rec.append(part);
        }
        let maps = rec.bank_maps();
        let dag = rec.dependences_with(written.as_deref())?;
        let t2 = Instant::now();
        let accesses = rec.accesses() as u64;
        let (predicted_hits, line_touches) = rec.filter_counts();
        let writes = rec.writes() > 0;
        drop(rec);
        let of_core = |c: usize| &maps[rec_offset[c] as usize..rec_offset[c + 1] as usize];
        let (slabs, windowed): (Vec<Vec<_>>, _) = match sub {
            Some(k) => {
                if !dag.has_no_edges() {
                    return Err(invalid(
                        "internal: sub-slab windows on a region with conflicts",
                    ));
                }
                let wins: Vec<Vec<Vec<_>>> = (0..p)
                    .map(|c| of_core(c).chunks(k).map(|w| w.to_vec()).collect())
                    .collect();
                let unions = wins
                    .iter()
                    .map(|l| l.iter().map(|ws| union_of(banks, ws)).collect())
                    .collect();
                (unions, Some(WindowedInstance::new(banks, wins)?))
            }
            None => ((0..p).map(|c| of_core(c).to_vec()).collect(), None),
        };
        let inst = SlabInstance::new(machine.num_mem_banks(), slabs)?;
        let dag_ref = (!dag.has_no_edges()).then_some(&dag);
        let opts = BlpOptions {
            window: self.cfg.blp_window,
            tie_break: self.cfg.blp_tie,
            ..BlpOptions::default()
        };
        let sched = match &windowed {
            Some(w) => {
                let mut s = schedule_windowed(w);
                s.coverage = inst.coverage_of(&s.by_core());
                s
            }
            None => schedule_blp(&inst, &opts, dag_ref)?,
        };
        let orig = original_order(&inst);
        // Step aside (rule 2 of `crate::aside`): the slabs in original order,
        // subject to the slab DAG (a candidate window of one slab).
        let aside = self
            .cfg
            .blp_aside
            .coverage()
            .then(|| aside::after_inspection(orig.mean_coverage(), sched.mean_coverage(), banks))
            .flatten();
        let sched = match aside {
            Some(_) => {
                let keep = BlpOptions {
                    window: Some(1),
                    ..opts
                };
                schedule_blp(&inst, &keep, dag_ref)?
            }
            None => sched,
        };
        let mut steps = Vec::with_capacity(sched.slots.len());
        let mut seq = Vec::with_capacity(n);
        for row in &sched.slots {
            let step: Vec<Vec<u32>> = row
                .iter()
                .enumerate()
                .map(|(c, k)| k.map(|k| vec![offset[c] + k as u32]).unwrap_or_default())
                .collect();
            seq.extend(step.iter().flatten().copied());
            steps.push(step);
        }
        let waits = match dag_ref {
            Some(d) => {
                let per_core: Vec<Vec<u32>> = (0..p)
                    .map(|c| steps.iter().flat_map(|s| s[c].iter().copied()).collect())
                    .collect();
                sync_points(d, &per_core, &seq)?
            }
            None => vec![Vec::new(); n],
        };
        let plan = match (&aside, dag_ref) {
            // Stepped aside on a region without conflicts: the slabs in
            // original order are each core's chunk in order, so run the
            // chunks whole, as the Original schedule does (one body call per
            // core instead of one per slab).
            (Some(_), None) => Plan::static_chunks(chunk[0], chunk[p], p),
            _ => Plan {
                units,
                steps,
                waits,
                seq,
                barrier: self.cfg.slot_barrier,
            },
        };
        plan.validate()?;
        let t3 = Instant::now();
        let st = RegionStats {
            inspector_breakdown: Some(InspectorBreakdown {
                accesses,
                line_touches,
                predicted_hits,
                record_ns: (t1 - t0).as_nanos() as u64,
                dependence_ns: (t2 - t1).as_nanos() as u64,
                schedule_ns: (t3 - t2).as_nanos() as u64,
            }),
            banks_per_slot: Some(sched.mean_coverage()),
            original_banks_per_slot: Some(orig.mean_coverage()),
            banks_per_slab: Some(
                maps.iter().map(|m| m.count()).sum::<usize>() as f64 / maps.len().max(1) as f64,
            ),
            bank_maps_hash: Some(bank_maps_hash(&maps)),
            step_aside: aside,
            ..RegionStats::of_plan(&plan, dag.num_edges())
        };
        Ok((plan, st, writes))
    }
}

/// The union of `maps` (over `banks` banks).
fn union_of(banks: usize, maps: &[BankSet]) -> BankSet {
    let mut u = BankSet::new(banks);
    maps.iter().for_each(|m| u.union_with(m));
    u
}
