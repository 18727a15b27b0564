//! The simulation's noise floor: confidence intervals of time reductions from
//! perturbed replicas (`--replicas`, [`super::EvalOptions::replicas`]).
//!
//! A multi-threaded simulation is chaotic: which core wins a bank, a port or a
//! barrier decides the interleaving that follows, so a change of a few cycles
//! anywhere moves the total by percents. On mxm (quick inputs, Default,
//! 219,112 cycles) moving the four stack words every core reads at a region's
//! start by 64 to 4,096 bytes gives 219,404 to 246,116 cycles, and delaying
//! each request to a memory controller by 0-4 cycles gives 221,751 to 230,203
//! over five seeds, while the versions the study compares differ by 0-3%
//! (Balanced's schedule there equals Default's, and its trace differs from
//! Default's only in those stack addresses: 224,190 cycles, "-2.3%"). Alameldeen and Wood
//! ("Variability in Architectural Simulations of Multi-threaded Workloads",
//! HPCA 2003) measure such variability by perturbing every memory access by
//! a small random delay, running each configuration several times, and
//! reporting confidence intervals; a difference inside the interval is not a
//! result. This module does the statistics of that method:
//!
//! - replica `i` of every cell is simulated with seed `SIM_SEED + i`, so a
//!   version and its baseline pair up by replica, and each pair gives a time
//!   reduction `r_i = (1 - cycles_v,i / cycles_b,i) * 100`;
//! - a benchmark's interval is the Student-t 95% interval of the mean of its
//!   `r_i` (half-width `t(0.975, n - 1) * s / sqrt(n)`);
//! - an average over benchmarks takes, per replica, the mean of the
//!   benchmarks' `r_i`, and its interval is that of those per-replica means
//!   (each replica of the whole study is one sample of the average).
//!
//! The point estimates stay ratios of the replicas' mean cycles, so a run
//! with one replica (no perturbation) reports what it always did, without an
//! interval.

/// Two-sided 95% quantile of Student's t with `df` degrees of freedom
/// (`df >= 1`; from `df = 31` on the normal 1.96 is within 2%).
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        d if d <= 30 => T[d - 1],
        _ => 1.96,
    }
}

/// Half-width of the 95% confidence interval of the mean of `xs` (`None`
/// for fewer than two values).
pub fn ci95(xs: &[f64]) -> Option<f64> {
    let n = xs.len();
    if n < 2 {
        return None;
    }
    let m = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64;
    Some(t95(n - 1) * (var / n as f64).sqrt())
}

/// Per-replica time reductions (%) of a version against its baseline, paired
/// by replica (empty unless both have the same number, at least two).
pub fn paired_reductions(version: &[u64], baseline: &[u64]) -> Vec<f64> {
    if version.len() < 2 || version.len() != baseline.len() || baseline.contains(&0) {
        return Vec::new();
    }
    version
        .iter()
        .zip(baseline)
        .map(|(&v, &b)| (1.0 - v as f64 / b as f64) * 100.0)
        .collect()
}

/// The interval of a time reduction between two sampled simulations (`paper`
/// inputs: one simulation each, no replicas), from their cycles and the half
/// widths of their cycles' 95% intervals in percent: the reduction is
/// `100 (1 - v/b)` and the relative errors of `v` and `b` add in quadrature,
/// which treats the two samplings as independent. They are not quite (both
/// runs sample the same positions of similar traces), so the interval is on
/// the wide side. `None` unless both intervals are known.
pub fn sampled_reduction_ci95(
    v: u64,
    v_ci_pct: Option<f64>,
    b: u64,
    b_ci_pct: Option<f64>,
) -> Option<f64> {
    let (ev, eb) = (v_ci_pct? / 100.0, b_ci_pct? / 100.0);
    (b > 0).then(|| 100.0 * (v as f64 / b as f64) * (ev * ev + eb * eb).sqrt())
}

/// The interval of a mean of independent estimates from their intervals:
/// `sqrt(Σ c_i²) / n` (`None` when any is unknown or there are none). For
/// averages of sampled runs, which have no replicas to pair.
pub fn mean_of_independent_ci95(cis: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let cis: Option<Vec<f64>> = cis.into_iter().collect();
    let cis = cis?;
    (!cis.is_empty()).then(|| cis.iter().map(|c| c * c).sum::<f64>().sqrt() / cis.len() as f64)
}

/// The interval of an average over benchmarks from each benchmark's
/// per-replica reductions: per replica the mean over benchmarks, then the
/// interval of those means (`None` when a benchmark has no replicas or the
/// counts differ).
pub fn average_ci95<'a>(per_bench: impl IntoIterator<Item = &'a [f64]>) -> Option<f64> {
    ci95(&replica_means(per_bench)?)
}

/// Per replica, the mean over benchmarks of the benchmarks' per-replica
/// values (`None` when a benchmark has fewer than two replicas or the counts
/// differ).
pub fn replica_means<'a>(per_bench: impl IntoIterator<Item = &'a [f64]>) -> Option<Vec<f64>> {
    let rows: Vec<&[f64]> = per_bench.into_iter().collect();
    let n = rows.first()?.len();
    if n < 2 || rows.iter().any(|r| r.len() != n) {
        return None;
    }
    Some(
        (0..n)
            .map(|i| rows.iter().map(|r| r[i]).sum::<f64>() / rows.len() as f64)
            .collect(),
    )
}

/// The interval of the difference `a - b` of two versions' averages from
/// their per-replica averages, paired by replica (`None` unless both have the
/// same number, at least two).
pub fn difference_ci95(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() < 2 || a.len() != b.len() {
        return None;
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    ci95(&d)
}

/// Whether a change of `x` (%) with half-width `ci` is distinguishable from
/// the noise: no interval (a single simulation) counts every change.
pub fn significant(x: f64, ci: Option<f64>) -> bool {
    ci.map_or(true, |c| x.abs() > c)
}

/// A percentage with its interval, for tables: `+1.2% ±0.8`, or `+1.2%`
/// without one.
pub fn fmt_pct_ci(x: Option<f64>, ci: Option<f64>) -> String {
    match (x, ci) {
        (Some(v), Some(c)) => format!("{v:+.1}% ±{c:.1}"),
        (Some(v), None) => format!("{v:+.1}%"),
        _ => "n/a".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampled_interval_by_hand() {
        // v/b = 0.9, errors 3% and 4%: 100 * 0.9 * 0.05 = 4.5 points
        let c = sampled_reduction_ci95(900, Some(3.0), 1000, Some(4.0)).unwrap();
        assert!((c - 4.5).abs() < 1e-9, "{c}");
        assert_eq!(sampled_reduction_ci95(900, None, 1000, Some(4.0)), None);
        assert_eq!(sampled_reduction_ci95(900, Some(3.0), 0, Some(4.0)), None);
        // two benchmarks at ±3 and ±4: sqrt(25) / 2 = 2.5
        assert_eq!(mean_of_independent_ci95([Some(3.0), Some(4.0)]), Some(2.5));
        assert_eq!(mean_of_independent_ci95([Some(3.0), None]), None);
        assert_eq!(mean_of_independent_ci95([]), None);
    }

    #[test]
    fn interval_by_hand() {
        // mean 2, s = 1, n = 3: 4.303 / sqrt(3) = 2.4844
        let c = ci95(&[1.0, 2.0, 3.0]).unwrap();
        assert!((c - 4.303 / 3f64.sqrt()).abs() < 1e-9, "{c}");
        assert_eq!(ci95(&[5.0]), None);
        assert_eq!(ci95(&[4.0, 4.0, 4.0]), Some(0.0));
        assert_eq!(t95(1), 12.706);
        assert_eq!(t95(100), 1.96);
    }

    #[test]
    fn pairs_by_replica() {
        // 1 - 90/100 = 10%, 1 - 110/100 = -10%
        let r = paired_reductions(&[90, 110], &[100, 100]);
        assert_eq!(r.len(), 2);
        assert!((r[0] - 10.0).abs() < 1e-9 && (r[1] + 10.0).abs() < 1e-9);
        assert!(paired_reductions(&[90], &[100]).is_empty());
        assert!(paired_reductions(&[90, 91], &[100, 100, 100]).is_empty());
        assert!(paired_reductions(&[90, 91], &[100, 0]).is_empty());
    }

    #[test]
    fn average_interval_is_over_replica_means() {
        // replica means: (1+3)/2 = 2, (2+4)/2 = 3, (3+5)/2 = 4 -> ci95([2,3,4])
        let a = [1.0, 2.0, 3.0];
        let b = [3.0, 4.0, 5.0];
        let c = average_ci95([&a[..], &b[..]]).unwrap();
        assert!((c - ci95(&[2.0, 3.0, 4.0]).unwrap()).abs() < 1e-12);
        assert_eq!(average_ci95([&a[..], &b[..2]]), None);
        assert_eq!(replica_means([&a[..], &b[..]]), Some(vec![2.0, 3.0, 4.0]));
        // differences 1, 1, 4: mean 2, s = sqrt(3)
        let d = difference_ci95(&[2.0, 3.0, 6.0], &[1.0, 2.0, 2.0]).unwrap();
        assert!(
            (d - 4.303 * (3f64).sqrt() / 3f64.sqrt()).abs() < 1e-9,
            "{d}"
        );
        assert_eq!(difference_ci95(&[1.0], &[0.0]), None);
        assert_eq!(average_ci95(std::iter::empty()), None);
    }

    #[test]
    fn significance_and_format() {
        assert!(significant(-2.0, None));
        assert!(!significant(-2.0, Some(2.5)));
        assert!(significant(3.0, Some(2.5)));
        assert_eq!(fmt_pct_ci(Some(-1.23), Some(2.47)), "-1.2% ±2.5");
        assert_eq!(fmt_pct_ci(Some(4.0), None), "+4.0%");
        assert_eq!(fmt_pct_ci(None, Some(1.0)), "n/a");
    }
}
