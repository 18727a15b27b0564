//! Rule 2 of [`crate::aside`] on a sample of the slabs, before the full
//! inspection (issue 34, "do no harm"; the inspection of §4.4.2 and the slab
//! schedule of §4.4.4, tried on a sample first).
//!
//! Rule 2 keeps Algorithm 4's order only when it covers at least
//! [`aside::MIN_COVERAGE_GAIN`] more banks per slot than the original order
//! of the same slabs. As printed it is decided after the whole inspection,
//! so a region it steps aside from has paid one execution's worth of
//! inspection for nothing: on the chapter 4 evaluation `gauss_seidel`
//! inspected five colour loops to keep the original order in four of them
//! (4.7% of its simulated cycles, `blp-aside` 6.0% slower than Original) and
//! `hpcg` its one SpMV loop (4.9%, 4.7% slower; `docs/results.md`).
//!
//! So under `WEFT_BLP_ASIDE=1`, a region whose loop needs no dependence check
//! (its Original schedule is static chunks, which need no inspection) is
//! first inspected on a sample: one slab out of each group of `k`
//! consecutive slabs of each core's chunk, `k` chosen so that each core
//! contributes about [`SAMPLE_SLABS_PER_CORE`] slabs, the slab within the
//! group picked by a hash of (core, group) ([`sampled_slabs`]: stratified,
//! so a bank pattern that repeats every `k` slabs cannot alias the sample
//! the way every `k`-th slab would). Algorithm 4 schedules the sampled slabs (each
//! core's in chunk order) and rule 2 compares that schedule with their
//! original order. When rule 2 steps aside on the sample, the region runs its
//! static chunks from then on without the full inspection, and `WEFT_STATS`
//! says so in `step_aside` (the rule-2 reason, with the sample's size);
//! otherwise the full inspection and rule 2 run as before, the sample's cost
//! (about `1/k` of an inspection) spent on top.
//!
//! The estimate is biased towards stepping aside: on fewer slabs per core the
//! greedy pick has fewer candidates per slot, so the sample's schedule gains
//! less coverage than the whole region's would. The original order's coverage
//! is estimated without that bias (slots of sampled slabs are spread evenly
//! over the chunk). Regions with at most `2 ·` [`SAMPLE_SLABS_PER_CORE`]
//! slabs per core are not sampled (the sample would cost half an inspection).
//! The rule can only cost an optimisation, never a result: static chunks are
//! the loop's Original schedule, legal because the loop needs no check.

use super::*;
use crate::aside;
use crate::bankmap::AddressMap;
use crate::blp::{original_order, schedule_blp, BlpOptions, SlabInstance};
use crate::inspect::SlabLayout;

/// Slabs each core contributes to the sample, about.
pub const SAMPLE_SLABS_PER_CORE: i64 = 6;

/// The sampled slabs of each core, `(start, end)` in chunk order: with
/// `n` slabs of `si` iterations in core `c`'s chunk and
/// `k = ⌈n_max / SAMPLE_SLABS_PER_CORE⌉` (`n_max` the largest chunk's, so
/// that sampled slots stand for the same share of each chunk), one slab of
/// each group `[g·k, (g+1)·k)` of slabs, at the offset [`pick`]`(c, g) % len`
/// within the group (`len` its length, shorter at the chunk's end).
/// `None` when no chunk has more than `2 ·` [`SAMPLE_SLABS_PER_CORE`] slabs
/// (too few to sample).
pub fn sampled_slabs(chunk: &[i64], si: i64) -> Option<Vec<Vec<(i64, i64)>>> {
    let si = si.max(1);
    let slabs = |c: usize| (chunk[c + 1] - chunk[c] + si - 1) / si;
    let cores = chunk.len().saturating_sub(1);
    let most = (0..cores).map(slabs).max()?;
    if most <= 2 * SAMPLE_SLABS_PER_CORE {
        return None;
    }
    let k = (most + SAMPLE_SLABS_PER_CORE - 1) / SAMPLE_SLABS_PER_CORE;
    Some(
        (0..cores)
            .map(|c| {
                let n = slabs(c);
                (0..n)
                    .step_by(k as usize)
                    .map(|first| {
                        let len = k.min(n - first);
                        let j = first + (pick(c, first / k) % len as u64) as i64;
                        let a = chunk[c] + j * si;
                        (a, (a + si).min(chunk[c + 1]))
                    })
                    .collect()
            })
            .collect(),
    )
}

/// The deterministic hash that picks group `g`'s sampled slab of core `c`:
/// the first output of [`crate::blp::SplitMix`] seeded with `c · 2^32 + g`.
pub fn pick(c: usize, g: i64) -> u64 {
    crate::blp::SplitMix((c as u64) << 32 | g as u64).next_u64()
}

impl Runtime {
    /// The sampled rule 2 for a region proven parallel (module docs): the
    /// reason to step aside, or `None` to inspect the region in full (also
    /// when the region is too small to sample or the sample's inspection
    /// failed: the full inspection then reports the error).
    pub(super) fn coverage_probe(
        &self,
        si: i64,
        chunk: &[i64],
        insp: InspectRef<'_>,
    ) -> Option<String> {
        let sample = sampled_slabs(chunk, si)?;
        let machine = self.machine().ok()?;
        let banks = machine.num_mem_banks();
        let one = |c: usize, (a, b): (i64, i64)| -> Result<crate::bankset::BankSet> {
            let layout = SlabLayout {
                chunk: vec![a, b],
                offset: vec![0, 1],
                slab_iters: b - a,
            };
            let rec = self.slab_recorder(&machine, layout, false);
            let (rec, _) = self.inspect_slabs(c, a, b, rec, insp)?;
            rec.bank_maps()
                .into_iter()
                .next()
                .ok_or_else(|| crate::error::invalid("internal: a sampled slab has no bank map"))
        };
        let core_maps = |c: usize| {
            sample[c]
                .iter()
                .map(|&r| one(c, r))
                .collect::<Result<Vec<_>>>()
        };
        let maps: Vec<Vec<_>> = if self.tracing() {
            // One virtual core after the other, inside one inspection phase.
            self.traced_phase(true, || (0..sample.len()).map(core_maps).collect())
                .ok()?
        } else {
            (0..sample.len())
                .map(core_maps)
                .collect::<Result<_>>()
                .ok()?
        };
        let taken: usize = maps.iter().map(Vec::len).sum();
        let total: i64 = (0..sample.len())
            .map(|c| (chunk[c + 1] - chunk[c] + si - 1) / si)
            .sum();
        let inst = SlabInstance::new(banks, maps).ok()?;
        let opts = BlpOptions {
            window: self.cfg.blp_window,
            tie_break: self.cfg.blp_tie,
            ..BlpOptions::default()
        };
        let sched = schedule_blp(&inst, &opts, None).ok()?;
        let orig = original_order(&inst);
        aside::after_inspection(orig.mean_coverage(), sched.mean_coverage(), banks).map(|why| {
            format!("{why}; estimated on {taken} of {total} slabs, before the full inspection")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed samples: two chunks of 100 and 70 iterations in slabs of
    /// 5 (20 and 14 slabs): k = ⌈20/6⌉ = 4, so five groups of four slabs in
    /// the first chunk and four in the second (the last one, slabs 12-13, of
    /// two); one slab from each group, at the hashed offset, cut at the
    /// chunk's end; the same sample on every call.
    #[test]
    fn one_slab_per_group_with_one_stride_for_all_cores() {
        let s = sampled_slabs(&[0, 100, 170], 5).unwrap();
        let expect = |c: usize, groups: i64, n: i64, lo: i64| -> Vec<(i64, i64)> {
            (0..groups)
                .map(|g| {
                    let len = 4.min(n - 4 * g);
                    let j = 4 * g + (pick(c, g) % len as u64) as i64;
                    (lo + 5 * j, lo + 5 * j + 5)
                })
                .collect()
        };
        assert_eq!(s[0], expect(0, 5, 20, 0));
        assert_eq!(s[1], expect(1, 4, 14, 100));
        for (c, core) in s.iter().enumerate() {
            for (g, &(a, _)) in core.iter().enumerate() {
                let j = (a - [0, 100][c]) / 5;
                assert!(
                    4 * g as i64 <= j && j < 4 * g as i64 + 4,
                    "core {c} group {g}: slab {j}"
                );
            }
        }
        assert_eq!(sampled_slabs(&[0, 100, 170], 5).unwrap(), s);
        // 13 slabs of 8 iterations, the last one 4 long: k = 3, and the last
        // group is slab 12 alone, cut at 100.
        let s = sampled_slabs(&[0, 100], 8).unwrap();
        assert_eq!(s[0].len(), 5);
        assert_eq!(s[0][4], (96, 100));
        // The picks differ between cores and groups (not one fixed offset).
        let offsets: Vec<u64> = (0..8).map(|g| pick(0, g) % 4).collect();
        assert!(offsets.iter().any(|&o| o != offsets[0]), "{offsets:?}");
        assert_ne!((0..8).map(|g| pick(1, g) % 4).collect::<Vec<_>>(), offsets);
    }

    /// Too few slabs to sample: 12 per core (2 x 6) is the most left whole.
    #[test]
    fn small_regions_are_not_sampled() {
        assert_eq!(sampled_slabs(&[0, 120, 240], 10), None);
        assert!(sampled_slabs(&[0, 130, 240], 10).is_some());
        assert_eq!(sampled_slabs(&[0], 10), None);
        assert_eq!(sampled_slabs(&[5, 5, 5], 10), None);
    }
}
