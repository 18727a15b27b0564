//! The sampled dependence pre-check of irregular regions (issue 34, "do no
//! harm"; the runtime dependence check of §4.4.6, tried on a sample first).
//!
//! An irregular region whose inspector reports checked accesses (a write
//! through an index array: `hist[bin[i]] += w[i]`, a force update
//! `f[j] -= d`) needs the whole dependence check before any schedule can
//! run, and the check costs about one execution of the region. When the
//! index array scatters the writes densely over the whole target (a
//! histogram over hashed bins, a random scatter), every slab conflicts with
//! the slabs of every other core: the DAG chains the cores, the schedule can
//! only run them one after another, and the inspection is lost. The
//! histogram kernel of the corpus paid 2.3 ms of inspection on a loop of
//! 1.75 ms called 4 times (1.42x its serial build at the medium size,
//! `docs/kernels.md`, session 8).
//!
//! So before the full inspection, in time mode (native runs; traces keep the
//! printed algorithm) and only when the inspection budget lets one start,
//! the runtime runs the inspector's writes-only slice over a probe of
//! `m = min(slab, `[`PROBE_ITERS`]`)` iterations at the start of each core's
//! chunk and counts the *collisions*: granules written by the probes of two
//! different cores (one per pair of cores per granule). Writes scattered
//! uniformly over `G` granules collide `m²/G` times per pair of probes in
//! expectation, so a pair of slabs (`si` iterations each) is expected to
//! share `c · (si/m)²` written granules, `c` the collisions per pair of
//! cores. When at least [`MIN_COLLISIONS`] collisions were seen and that
//! expectation is at least [`CHAIN_EXPECTED`], every slab of a core is
//! expected to conflict with every slab of the others; the region falls back
//! to its reference order (the original order on the calling thread) without
//! the full inspection, and `WEFT_STATS` says why in `payoff_fallback`.
//!
//! Loops with locality (meshes, neighbour lists, band matrices) write near
//! each other only across chunk boundaries, which the probes (the chunk
//! starts) do not contain: they collide nowhere and are inspected as before.
//! Sparse scatter (few collisions per slab pair) is not detected from so
//! small a probe and is left to the inspection budget. The rule can only cost
//! an optimisation, never a result: the original order is always legal. It
//! looks at write-write conflicts only (a read-modify-write, as every
//! scatter-add, is one); read-write conflicts are left to the full check.

use super::*;
use crate::deps::GRANULE;

/// Iterations in each core's probe, at most (and at most one slab).
pub const PROBE_ITERS: i64 = 512;
/// Collisions the probes must show before the rule extrapolates.
pub const MIN_COLLISIONS: usize = 2;
/// Expected written granules shared by a pair of slabs on different cores
/// from which the cores count as chained.
pub const CHAIN_EXPECTED: f64 = 8.0;
/// How the rule's reason starts (in `payoff_fallback`).
pub const SAMPLE_PREFIX: &str = "inspection skipped:";

/// The probe ranges `(core, start, end)`: the first `min(si, PROBE_ITERS)`
/// iterations of each non-empty chunk of `chunk`.
pub(super) fn probe_ranges(si: i64, chunk: &[i64]) -> Vec<(usize, i64, i64)> {
    let m = si.clamp(1, PROBE_ITERS);
    core_ranges(chunk)
        .into_iter()
        .filter(|&(_, a, b)| a < b)
        .map(|(c, a, b)| (c, a, a.saturating_add(m).min(b)))
        .collect()
}

/// Collisions of `writes`, `(granule, core)` pairs: for each granule, one
/// per pair of distinct cores that wrote it. Sorts `writes`.
pub(super) fn collisions(writes: &mut Vec<(u64, u32)>) -> usize {
    writes.sort_unstable();
    writes.dedup();
    let mut n = 0;
    let mut i = 0;
    while i < writes.len() {
        let g = writes[i].0;
        let j = i + writes[i..].iter().take_while(|w| w.0 == g).count();
        let k = j - i;
        n += k * (k - 1) / 2;
        i = j;
    }
    n
}

/// The rule's verdict: `collisions` seen among the probes of `cores` cores,
/// probes of `m` iterations, slabs of `si`; the reason when they chain.
pub(super) fn verdict(collisions: usize, cores: usize, m: i64, si: i64) -> Option<String> {
    if collisions < MIN_COLLISIONS || cores < 2 || m < 1 {
        return None;
    }
    let pairs = (cores * (cores - 1) / 2) as f64;
    let scale = (si as f64 / m as f64).powi(2);
    let expected = collisions as f64 / pairs * scale;
    (expected >= CHAIN_EXPECTED).then(|| {
        format!(
            "{SAMPLE_PREFIX} writes scatter over the whole target: probes of {m} iterations \
             per core collided on {collisions} granule(s), so a pair of slabs of {si} \
             iterations on different cores is expected to share {expected:.0} written \
             granules, and no schedule could run the cores in parallel"
        )
    })
}

impl Runtime {
    /// The pre-check of irregular region `id` (module docs): true when it
    /// stopped the region's inspection, which then falls back (reason and
    /// the sample's time in the region's statistics). The sample's time
    /// counts as inspection time either way.
    pub(super) fn sample_stops(
        &self,
        id: u32,
        si: i64,
        chunk: &[i64],
        insp: InspectRef<'_>,
    ) -> Result<bool> {
        let t = Instant::now();
        let why = self.sample_chains(si, chunk, insp)?;
        let ns = t.elapsed().as_nanos() as u64;
        match why {
            Some(why) => {
                self.inspection_stopped(IRREGULAR, id, why, ns);
                Ok(true)
            }
            None => {
                lock(&self.stats)
                    .entry((IRREGULAR, id))
                    .or_default()
                    .inspector_ns += ns;
                Ok(false)
            }
        }
    }

    /// Runs the probes of irregular region `[chunk[0], chunk[P])` (slabs of
    /// `si` iterations); `Some(reason)` when the full inspection should not
    /// run. Inspector errors are the region's errors.
    pub(super) fn sample_chains(
        &self,
        si: i64,
        chunk: &[i64],
        insp: InspectRef<'_>,
    ) -> Result<Option<String>> {
        let ranges = probe_ranges(si, chunk);
        let (lo, hi) = (chunk[0], chunk[chunk.len() - 1]);
        if ranges.len() < 2 || hi - lo > u32::MAX as i64 {
            return Ok(None);
        }
        // One unit per iteration: `unit` is the iteration's offset from `lo`.
        let ins = self.inspect_phase(lo, hi, &ranges, Layout::Blocks { ib: 1 }, insp, true)?;
        if ins.maps_only || ins.no_check {
            return Ok(None);
        }
        let mut writes: Vec<(u64, u32)> = ins
            .accesses
            .iter()
            .filter(|a| a.write)
            .map(|a| {
                let it = lo + a.unit as i64;
                let k = ranges.partition_point(|r| r.1 <= it).saturating_sub(1);
                (a.addr / GRANULE, ranges[k].0 as u32)
            })
            .collect();
        let m = ranges.iter().map(|r| r.2 - r.1).min().unwrap_or(0);
        Ok(verdict(collisions(&mut writes), ranges.len(), m, si))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed_runtime() -> Runtime {
        Runtime::new(RuntimeConfig {
            cores: 2,
            payoff: PayoffMode::Time,
            lazy: LazyInspect::Off,
            // Any reference time gives a budget above the fixed-cost floor.
            inspect_budget: 1e9,
            min_parallel_ns: 0,
            ..RuntimeConfig::default()
        })
        .unwrap()
    }

    /// Runs region `id` over `0..n` three times with an inspector that
    /// reports one checked write per iteration to `target[slot(i)]`; checks
    /// every iteration ran once per call; returns the region's fallback.
    fn three_calls(rt: &Runtime, id: u32, n: i64, slot: fn(i64) -> usize) -> Option<String> {
        let target = vec![0u64; n as usize];
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            for i in lo..hi {
                let a = &target[slot(i)] as *const u64 as u64;
                h.report(i, a, 8, 1).unwrap();
            }
        };
        let seen = Mutex::new(Vec::new());
        let body = |lo: i64, hi: i64| lock(&seen).extend(lo..hi);
        for call in 0..3 {
            rt.run_irregular(id, 0, n, 0, Some(&insp), &body).unwrap();
            let mut v = std::mem::take(&mut *lock(&seen));
            v.sort_unstable();
            assert_eq!(v, (0..n).collect::<Vec<_>>(), "call {call}");
        }
        lock(&rt.stats)
            .get(&(IRREGULAR, id))
            .and_then(|s| s.payoff_fallback.clone())
    }

    /// A histogram over 64 bins (every probe writes every bin) is not
    /// inspected: it runs in original order with the rule's reason; writes
    /// to distinct elements (a local loop) collide nowhere and the region is
    /// inspected as before.
    #[test]
    fn scattered_writes_skip_the_inspection_and_local_ones_do_not() {
        let rt = timed_runtime();
        let why = three_calls(&rt, 1, 100_000, |i| (i as usize * 7) % 64).expect("fell back");
        assert!(why.starts_with(SAMPLE_PREFIX), "{why}");
        assert!(why.contains("collided on 64 granule(s)"), "{why}");
        assert!(rt.cached_irregular_plan(1).is_none());
        // (The payoff rule may still drop the local loop's schedule on a
        // slow run: timing, not this rule.)
        let local = three_calls(&rt, 2, 100_000, |i| i as usize);
        assert!(!local.is_some_and(|w| w.starts_with(SAMPLE_PREFIX)));
        assert_eq!(lock(&rt.stats)[&(IRREGULAR, 2)].inspections, 1);
    }

    #[test]
    fn probes_take_each_chunks_first_iterations() {
        assert_eq!(
            probe_ranges(10_000, &[0, 500_000, 1_000_000]),
            vec![(0, 0, 512), (1, 500_000, 500_512)]
        );
        // A slab shorter than the probe bounds it; empty chunks are skipped.
        assert_eq!(
            probe_ranges(100, &[0, 50, 50, 1000]),
            vec![(0, 0, 50), (2, 50, 150)]
        );
    }

    #[test]
    fn collisions_count_pairs_of_cores_per_granule() {
        // Granule 7 written by cores 0, 1 and 2 (3 pairs), twice by core 0;
        // granule 9 by core 1 only; granule 11 by cores 0 and 2 (1 pair).
        let mut w = vec![(7, 0), (7, 0), (9, 1), (7, 1), (11, 0), (7, 2), (11, 2)];
        assert_eq!(collisions(&mut w), 4);
        assert_eq!(collisions(&mut vec![]), 0);
    }

    #[test]
    fn the_verdict_extrapolates_probe_collisions_to_slab_pairs() {
        // Histogram, medium size: 2 cores, probes of 512, slabs of 10,000;
        // 4 collisions expected (512^2 / 62,500 bins): 4 x (10,000/512)^2
        // = 1,526 shared granules per slab pair.
        let why = verdict(4, 2, 512, 10_000).expect("chained");
        assert!(why.starts_with(SAMPLE_PREFIX), "{why}");
        assert!(why.contains("share 1526"), "{why}");
        // One collision is not evidence; nor is a high count over slabs
        // barely larger than the probe (2 x (600/512)^2 = 2.7 < 8).
        assert!(verdict(1, 2, 512, 10_000).is_none());
        assert!(verdict(2, 2, 512, 600).is_none());
        // Four cores: 6 pairs share the collisions (12/6 x 4 = 8).
        assert!(verdict(12, 4, 256, 512).is_some());
        assert!(verdict(11, 4, 256, 512).is_none());
    }
}
