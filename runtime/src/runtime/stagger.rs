//! Staggered chunks (`WEFT_BLP_STAGGER`, issue #36 part 6): where each core
//! starts its static chunk, so that the cores, which all progress at about
//! the same rate, touch different memory banks at the same time.
//!
//! Why. Static chunks of equal length start every core at the same offset
//! into each per-iteration array. Where the chunk's size in bytes is a
//! multiple of the address mapping's channel or bank period, the cores hit
//! the same channel at the same moment for the whole region. At Table 4.1's
//! moldyn (96³ = 884,736 particles, 12 cores) a chunk of `pos` is 1,769,472
//! bytes, 432 channel strides of 4 KiB (`table4.2`'s `column:5 row:1
//! channel:2`), so all twelve cores walk the same one of four channels in
//! step (Original BLP 13.2 of 64). Algorithm 4 cannot see this: each slab's
//! bank map covers all 64 banks over the slab's thousands of cycles, so
//! every candidate ties, and its only effect there is its seeded tie-break
//! starting each core at a random slab (+13.7% time; with `WEFT_BLP_TIE=lowest`
//! the printed algorithm runs the original order and gains nothing,
//! `docs/oracles.md` "Staggered chunks").
//!
//! Two settings:
//!
//! * `hash`: each core's chunk rotated to start at a hashed slab
//!   ([`hashed_starts`]), the same draw as Algorithm 4's tie-break. No
//!   inspection. An experiment: it also moves cores that were spread well.
//! * `1` (phase-aware): the inspector reports, for `OFFSETS` offsets into
//!   the chunks and for each core, the banks of a window of `WINDOW`
//!   iterations at that offset, for the chunk's own start and for
//!   `CANDIDATES` hashed rotations. Core 0 keeps its start; each next core
//!   takes the rotation that adds the most banks to the union of the cores
//!   before it, summed over the offsets ([`choose_shifts`]). The rotations
//!   are kept when the mean union gains at least
//!   [`crate::aside::MIN_COVERAGE_GAIN`] over the original alignment (the
//!   margin of rule 2); otherwise the region runs its static chunks. Decided
//!   once per region and bounds (cached with the plan); the probe inspects
//!   `P · (CANDIDATES + 1) · OFFSETS · WINDOW` iterations.
//!
//! Only for loops that need no dependence check (a rotation reorders
//! iterations within a core); others are inspected as printed.

use super::*;
use crate::bankmap::AddressMap;
use crate::bankset::BankSet;
use crate::inspect::SlabLayout;

/// Offsets into the chunks at which the windows are compared.
pub const OFFSETS: usize = 8;
/// Iterations per window.
pub const WINDOW: i64 = 4;
/// Hashed rotations tried per core (besides none).
pub const CANDIDATES: usize = 16;

/// `hash` setting: where each core starts its chunk, at slab `r_c` of its
/// `n_c` slabs of `si` iterations, `r_c` drawn for cores 0, 1, ... in turn
/// from [`crate::blp::SplitMix`] seeded with [`crate::blp::DEFAULT_TIE_SEED`]
/// (`below(n_c)`): the first slab Algorithm 4's seeded tie-break gives each
/// core when every slab's bank map is full
/// (`blp::tests::full_maps_tie_everywhere`).
pub fn hashed_starts(chunk: &[i64], si: i64) -> Vec<i64> {
    let si = si.max(1);
    let mut rng = crate::blp::SplitMix(crate::blp::DEFAULT_TIE_SEED);
    chunk
        .windows(2)
        .map(|w| {
            let n = ((w[1] - w[0] + si - 1) / si).max(1);
            w[0] + rng.below(n as usize) as i64 * si
        })
        .collect()
}

/// The greedy choice of the phase-aware setting. `maps[c][k][j]`: the banks
/// of core `c`'s window at offset `j` under candidate rotation `k` (`k = 0`:
/// none). Core 0 keeps `k = 0`; every next core takes the `k` adding the most
/// banks to the union of the cores before it, summed over the offsets (the
/// lowest `k` on ties). Returns the chosen `k` per core, the mean union size
/// over offsets with those rotations, and the same with none.
pub fn choose_shifts(maps: &[Vec<Vec<BankSet>>], banks: usize) -> (Vec<usize>, f64, f64) {
    let offsets = maps.first().and_then(|m| m.first()).map_or(0, Vec::len);
    let mean =
        |u: &[BankSet]| u.iter().map(BankSet::count).sum::<usize>() as f64 / offsets.max(1) as f64;
    let mut orig = vec![BankSet::new(banks); offsets];
    for core in maps {
        for (j, m) in core[0].iter().enumerate() {
            orig[j].union_with(m);
        }
    }
    let mut chosen = Vec::with_capacity(maps.len());
    let mut cover = vec![BankSet::new(banks); offsets];
    for (c, core) in maps.iter().enumerate() {
        let k = match c {
            0 => 0,
            _ => (0..core.len())
                .max_by_key(|&k| {
                    let added: usize = (0..offsets)
                        .map(|j| {
                            let mut u = cover[j].clone();
                            u.union_with(&core[k][j]);
                            u.count()
                        })
                        .sum();
                    (added, std::cmp::Reverse(k))
                })
                .unwrap_or(0),
        };
        for (j, m) in core[k].iter().enumerate() {
            cover[j].union_with(m);
        }
        chosen.push(k);
    }
    (chosen, mean(&cover), mean(&orig))
}

impl Runtime {
    /// The phase-aware setting for a region proven parallel (module docs):
    /// the start of each core's chunk, or `Err` with the reason to keep the
    /// static chunks (no gain, or a chunk too short to rotate).
    pub(super) fn phase_starts(
        &self,
        chunk: &[i64],
        insp: InspectRef<'_>,
    ) -> std::result::Result<Vec<i64>, String> {
        let p = chunk.len().saturating_sub(1);
        let shortest = chunk.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(0);
        if p < 2 || shortest < 2 * WINDOW * OFFSETS as i64 {
            return Err("static chunks kept: chunks too short to stagger".into());
        }
        let machine = self.machine().map_err(|e| e.to_string())?;
        let banks = machine.num_mem_banks();
        // Candidate rotations of core c: none, then CANDIDATES hashed ones.
        let shifts: Vec<Vec<i64>> = (0..p)
            .map(|c| {
                let len = chunk[c + 1] - chunk[c];
                let mut rng = crate::blp::SplitMix(crate::blp::DEFAULT_TIE_SEED ^ c as u64);
                std::iter::once(0)
                    .chain((0..CANDIDATES).map(|_| rng.below(len as usize) as i64))
                    .collect()
            })
            .collect();
        let window = |c: usize, at: i64| -> Result<BankSet> {
            let (a, len) = (chunk[c], chunk[c + 1] - chunk[c]);
            let lo = a + at.rem_euclid(len).min(len - WINDOW);
            let layout = SlabLayout {
                chunk: vec![lo, lo + WINDOW],
                offset: vec![0, 1],
                slab_iters: WINDOW,
            };
            let rec = self.slab_recorder(&machine, layout, false);
            let (rec, _) = self.inspect_slabs(c, lo, lo + WINDOW, rec, insp)?;
            Ok(rec.bank_maps().pop().unwrap_or_else(|| BankSet::new(banks)))
        };
        let probe = || -> Result<Vec<Vec<Vec<BankSet>>>> {
            (0..p)
                .map(|c| {
                    let len = chunk[c + 1] - chunk[c];
                    shifts[c]
                        .iter()
                        .map(|&s| {
                            (0..OFFSETS)
                                .map(|j| window(c, j as i64 * len / OFFSETS as i64 + s))
                                .collect()
                        })
                        .collect()
                })
                .collect()
        };
        let maps = match self.tracing() {
            true => self.traced_phase(true, probe),
            false => probe(),
        }
        .map_err(|e| e.to_string())?;
        let (k, staggered, original) = choose_shifts(&maps, banks);
        if staggered - original < crate::aside::MIN_COVERAGE_GAIN * original - 1e-9 {
            return Err(format!(
                "static chunks kept: staggered windows cover {staggered:.1} of {banks} banks \
                 at once against {original:.1} in original alignment (less than +{:.0}%)",
                crate::aside::MIN_COVERAGE_GAIN * 100.0
            ));
        }
        Ok((0..p)
            .map(|c| chunk[c] + shifts[c][k[c]].rem_euclid(chunk[c + 1] - chunk[c]))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(banks: usize, bits: &[usize]) -> BankSet {
        let mut s = BankSet::new(banks);
        bits.iter().for_each(|&b| s.insert(b));
        s
    }

    /// Two cores, two offsets, 4 banks. Aligned, both cores hit bank 0 at
    /// offset 0 and bank 1 at offset 1 (union 1 per offset). Core 1's
    /// rotations 1 ({1}, {0}) and 2 ({2}, {3}) both make unions of 2 at
    /// both offsets, rotation 3 ({0}, {3}) of 1 and 2: the lowest of the
    /// best, 1, wins.
    #[test]
    fn greedy_takes_the_rotation_adding_most_banks() {
        let b = |x: &[usize]| set(4, x);
        let core0 = vec![vec![b(&[0]), b(&[1])]];
        let core1 = vec![
            vec![b(&[0]), b(&[1])],
            vec![b(&[1]), b(&[0])],
            vec![b(&[2]), b(&[3])],
            vec![b(&[0]), b(&[3])],
        ];
        let (k, st, orig) = choose_shifts(&[core0.clone(), core1], 4);
        assert_eq!(k, vec![0, 1]);
        assert_eq!((st, orig), (2.0, 1.0));
        // A third core: aligned it adds nothing; its rotation 1 adds banks
        // 2 and 3 to the unions {0,1} and {0,1}.
        let core2 = vec![vec![b(&[0]), b(&[1])], vec![b(&[2]), b(&[3])]];
        let core1 = vec![vec![b(&[0]), b(&[1])], vec![b(&[1]), b(&[0])]];
        let (k, st, orig) = choose_shifts(&[core0, core1, core2], 4);
        assert_eq!(k, vec![0, 1, 1]);
        assert_eq!((st, orig), (3.0, 1.0));
    }

    /// Cores already spread: no rotation adds a bank, so every core keeps
    /// its start and the means are equal.
    #[test]
    fn spread_cores_keep_their_starts() {
        let b = |x: &[usize]| set(4, x);
        let maps = vec![
            vec![vec![b(&[0])], vec![b(&[1])]],
            vec![vec![b(&[1])], vec![b(&[0])]],
        ];
        let (k, st, orig) = choose_shifts(&maps, 4);
        assert_eq!(k, vec![0, 0]);
        assert_eq!(st, orig);
    }

    /// The hashed starts: slab boundaries inside each chunk, drawn in core
    /// order from one generator.
    #[test]
    fn hashed_starts_by_hand() {
        let s = hashed_starts(&[0, 100, 170], 10);
        let mut rng = crate::blp::SplitMix(crate::blp::DEFAULT_TIE_SEED);
        assert_eq!(
            s,
            vec![rng.below(10) as i64 * 10, 100 + rng.below(7) as i64 * 10]
        );
    }
}
