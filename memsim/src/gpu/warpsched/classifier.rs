//! iPAWS's instruction-issue pattern classifier (iPAWS §3.2-3.3, Algorithm 1;
//! digest §5.1): from the per-warp counters of one SM collected during the Adapt
//! phase, the warps-of-interest (WOI) cut and the concave / convex decision.
//!
//! Inputs are per warp, oldest first (age order = GTO's priority order):
//! * `iscore[i] = inst[i] + btime[i]`: instructions issued plus cycles waited at a
//!   barrier while another warp issued (§3.3);
//! * `stall[i]`: the instruction-issue stall counter of §3.2.
//!
//! The WOI are the warps up to and including the *oldest* warp holding the
//! maximum stall count; younger warps never had a fair chance to issue and are
//! excluded (Fig. 8). With W = |WOI|, `iscore_thr = W * max(iscore) / 2` (the
//! triangle of Fig. 7, equal to the strict round-robin rectangle) and
//! `iscore_sum = Σ iscore` over the WOI: below the threshold the curve is concave
//! (keep the greedy scheduler), otherwise convex (Recover, then round-robin).
//! The degree of convexity is `DoC = iscore_sum / iscore_thr` (the paper's text
//! calls it "the ratio of the threshold and the sum", but its reported values,
//! convex ≥ 1.3 and concave ≤ 0.85, only make sense as sum over threshold).
//! Invariant: the WOI is never empty when there is at least one warp.

use serde::Serialize;

/// The issue-pattern shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// Issue biased to old warps: keep the greedy scheduler.
    Concave,
    /// Issue spread over the warps: switch to round-robin (after Recover).
    Convex,
}

/// One classification.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// Warps-of-interest (the oldest `woi` warps).
    pub woi: usize,
    /// Warps considered (all resident warps of the kernel on the SM).
    pub warps: usize,
    /// `Σ iscore` over the WOI.
    pub sum: u64,
    /// `W * max(iscore) / 2` (as a real number: W * max may be odd).
    pub threshold: f64,
    /// Degree of convexity, `sum / threshold` (1 for an empty or all-zero curve).
    pub doc: f64,
    /// The decision.
    pub shape: Shape,
}

/// Number of warps-of-interest: warps up to the oldest one with the maximum
/// stall count (`stall` oldest first). All warps when every count is zero.
pub fn warps_of_interest(stall: &[u64]) -> usize {
    let Some(&max) = stall.iter().max() else {
        return 0;
    };
    if max == 0 {
        return stall.len();
    }
    stall.iter().position(|&s| s == max).map_or(0, |i| i + 1)
}

/// Algorithm 1 over the first `woi` warps of `iscore` (oldest first).
pub fn classify(iscore: &[u64], woi: usize) -> Verdict {
    let w = woi.min(iscore.len());
    let of_interest = &iscore[..w];
    let max = of_interest.iter().copied().max().unwrap_or(0);
    let sum: u64 = of_interest.iter().sum();
    let threshold = w as f64 * max as f64 / 2.0;
    let doc = if threshold > 0.0 {
        sum as f64 / threshold
    } else {
        1.0
    };
    let shape = if (sum as f64) < threshold {
        Shape::Concave
    } else {
        Shape::Convex
    };
    Verdict {
        woi: w,
        warps: iscore.len(),
        sum,
        threshold,
        doc,
        shape,
    }
}

/// The WOI cut on `stall`, then Algorithm 1 on `iscore` (both oldest first).
pub fn decide(iscore: &[u64], stall: &[u64]) -> Verdict {
    classify(iscore, warps_of_interest(stall))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Digest §8.6 item 4: a discrete linear ramp i·max/W (i = 1..W) has
    /// DoC = (W+1)/W, just above 1: the boundary case, convex.
    #[test]
    fn linear_ramp_is_the_boundary() {
        for w in [4usize, 10, 32, 48] {
            let max = 1000 * w as u64;
            let ramp: Vec<u64> = (1..=w as u64).map(|i| i * max / w as u64).collect();
            let v = classify(&ramp, w);
            let want = (w as f64 + 1.0) / w as f64;
            assert!((v.doc - want).abs() < 1e-9, "W={w}: {} vs {want}", v.doc);
            assert_eq!(v.shape, Shape::Convex);
        }
        // a ramp down to zero sits exactly on the threshold (convex: not below)
        let mut ramp: Vec<u64> = (0..8u64).map(|i| i * 100).collect();
        let v = classify(&ramp, 8);
        assert_eq!((v.sum, v.threshold, v.doc), (2800, 2800.0, 1.0));
        assert_eq!(v.shape, Shape::Convex);
        // one instruction less anywhere below the maximum tips it to concave
        ramp[3] -= 1;
        assert_eq!(classify(&ramp, 8).shape, Shape::Concave);
    }

    /// A flat curve (strict round-robin) has DoC = 2: convex.
    #[test]
    fn flat_curve_is_convex() {
        let v = classify(&[500; 24], 24);
        assert_eq!(v.doc, 2.0);
        assert_eq!(v.shape, Shape::Convex);
        assert_eq!(v.sum, 12_000);
        assert_eq!(v.threshold, 6000.0);
    }

    /// A geometric decay with ratio 0.5 (greedy: the oldest warp issues most)
    /// has DoC ≈ 4/W: concave.
    #[test]
    fn geometric_decay_is_concave() {
        for w in [8usize, 16, 32] {
            let curve: Vec<u64> = (0..w).map(|i| (1u64 << 40) >> i).collect();
            let v = classify(&curve, w);
            // Σ 2^-i = 2(1 - 2^-W), threshold W/2: DoC = 4(1 - 2^-W)/W ≈ 4/W
            let want = 4.0 * (1.0 - 0.5f64.powi(w as i32)) / w as f64;
            assert!((v.doc - want).abs() < 1e-12, "W={w}: {}", v.doc);
            assert!((v.doc - 4.0 / w as f64).abs() < 0.01);
            assert_eq!(v.shape, Shape::Concave);
        }
    }

    /// The WOI ends at the oldest warp with the maximum stall count (Fig. 8).
    #[test]
    fn woi_cut_at_oldest_maximum() {
        assert_eq!(warps_of_interest(&[3, 5, 9, 2, 9, 0, 0]), 3);
        assert_eq!(warps_of_interest(&[9, 1, 1]), 1);
        assert_eq!(warps_of_interest(&[0, 0, 0, 0]), 4);
        assert_eq!(warps_of_interest(&[]), 0);
        // Fig. 8: the starved tail makes the curve look concave over all warps;
        // cut at the WOI, the same counts are convex.
        let mut iscore = vec![900, 880, 870, 860, 850, 840];
        iscore.extend([5u64; 10]);
        let mut stall = vec![10, 20, 30, 40, 50, 60];
        stall.extend([1u64; 10]);
        assert_eq!(classify(&iscore, iscore.len()).shape, Shape::Concave);
        let v = decide(&iscore, &stall);
        assert_eq!((v.woi, v.warps), (6, 16));
        assert_eq!(v.shape, Shape::Convex);
    }

    /// Barrier time added to the issue count turns a barrier-flattened greedy
    /// curve back to concave (§3.3, Fig. 9: PFT).
    #[test]
    fn barrier_time_restores_concavity() {
        // 16 warps of one TB, all held to the same instruction count by barriers.
        let inst = [400u64; 16];
        assert_eq!(classify(&inst, 16).shape, Shape::Convex);
        // the old warps waited longest at the barrier while the young ones issued
        let btime: Vec<u64> = (0..16u64).map(|i| 6000 >> (i / 2)).collect();
        let iscore: Vec<u64> = inst.iter().zip(&btime).map(|(a, b)| a + b).collect();
        assert_eq!(classify(&iscore, 16).shape, Shape::Concave);
    }
}
