//! Staggered chunks (`WEFT_BLP_STAGGER=1`, issue #36 part 6): each core's
//! static chunk rotated to start at a hashed slab of it, without inspection.
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
//! starting each core at a random slab (+13.7% time; with
//! `WEFT_BLP_TIE=lowest` the printed algorithm runs the original order and
//! gains nothing). The rotation here starts each core at that same slab and
//! wraps around (moldyn +22.3% at Table 4.1's size), but it also moves cores
//! that started spread (hpcg -9.1%, equake -18.6%): a research setting, not a
//! default. A phase-aware choice (the rotation adding most banks at once
//! over 4-iteration windows, kept with +10%) was tried in session 20 and
//! dropped: such windows already cover every bank on moldyn, so it kept the
//! aligned chunks there and staggered hpcg and equake at a loss
//! (`docs/oracles.md`, "Staggered chunks").
//!
//! Only for loops that need no dependence check (a rotation reorders
//! iterations within a core); others are inspected as printed.

/// Where each core starts its chunk: at slab `r_c` of its `n_c` slabs of
/// `si` iterations, `r_c` drawn for cores 0, 1, ... in turn from
/// [`crate::blp::SplitMix`] seeded with [`crate::blp::DEFAULT_TIE_SEED`]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Slab boundaries inside each chunk, drawn in core order from one
    /// generator.
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
