//! The dissertation's published numbers that `weft eval` compares against.
//!
//! Every entry is transcribed from the text of the dissertation
//! (`shared/seeds/001_828adc0306446d60.txt`) and names the section and figure or
//! table it comes from. The figures themselves are not in the text, so per-benchmark
//! bar heights are only available where the prose quotes them (e.g. HPCG's original
//! BLP of 19.7 in §4.3, GS-Solver's 4.1% and STUN's 22.6% time reduction in §4.5.2).
//! Values are percentages unless `unit` says otherwise; "reduction" values are
//! positive when the optimized version is faster.
//!
//! Invariants (checked by unit tests): keys are unique, and the headline averages
//! (ch. 4: BLP +46.8 %, time -18.3 %; ch. 5: 11.31 / 9.43 / 17.32 %) are present.

use serde::Serialize;

/// What a published number measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// Average BLP/MLP/CLP value (banks), not a percentage.
    Absolute,
    /// Percentage gain of a parallelism metric (BLP, MLP or CLP) over the baseline.
    GainPct,
    /// Percentage execution-time reduction over the baseline (positive = faster).
    TimeReductionPct,
    /// A share of execution time or of iterations, in percent.
    SharePct,
    /// A size or rate given for context (MB, MPKI, beta, ...).
    Context,
}

/// One number published in the dissertation.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PaperNumber {
    /// Stable key used by the report (`ch4.blp_opt.blp_gain.avg`).
    pub key: &'static str,
    /// Chapter (4 or 5).
    pub chapter: u8,
    /// Version the number is about (our version id, see `versions`), or `None`
    /// for a property of the benchmark itself.
    pub version: Option<&'static str>,
    /// Benchmark (dissertation name), `None` for an average over the suite.
    pub benchmark: Option<&'static str>,
    /// Metric name (`blp`, `time`, `coverage`, `overhead`, `clp`, `mpki`, ...).
    pub metric: &'static str,
    /// What kind of quantity `value` is.
    pub measure: Measure,
    /// The value as printed.
    pub value: f64,
    /// Unit of `value` (`%`, `banks`, `MB`, `MPKI`, ...).
    pub unit: &'static str,
    /// Where the text states it.
    pub source: &'static str,
    /// Extra qualification copied or paraphrased from the text.
    pub note: &'static str,
}

#[allow(clippy::too_many_arguments)]
const fn n(
    key: &'static str,
    chapter: u8,
    version: Option<&'static str>,
    benchmark: Option<&'static str>,
    metric: &'static str,
    measure: Measure,
    value: f64,
    unit: &'static str,
    source: &'static str,
    note: &'static str,
) -> PaperNumber {
    PaperNumber {
        key,
        chapter,
        version,
        benchmark,
        metric,
        measure,
        value,
        unit,
        source,
        note,
    }
}

use Measure::*;

/// All numbers transcribed from the dissertation, chapter 4 then chapter 5.
#[rustfmt::skip]
pub static PAPER: &[PaperNumber] = &[
    // ---- Chapter 4: headline averages.
    n("ch4.blp_opt.blp_gain.avg", 4, Some("blp-opt"), None, "blp", GainPct, 46.8, "%",
      "abstract of ch. 4; §4.6", "average BLP improvement of BLP Optimized over Original"),
    n("ch4.blp_opt.time_reduction.avg", 4, Some("blp-opt"), None, "time", TimeReductionPct, 18.3, "%",
      "§4.5.2, Fig. 4.12; §4.6", "average execution-time reduction, overheads included"),
    n("ch4.blp_opt.time_reduction.gs_solver", 4, Some("blp-opt"), Some("GS-Solver"), "time", TimeReductionPct, 4.1, "%",
      "§4.5.2, Fig. 4.12", "smallest improvement"),
    n("ch4.blp_opt.time_reduction.stun", 4, Some("blp-opt"), Some("STUN"), "time", TimeReductionPct, 22.6, "%",
      "§4.5.2, Fig. 4.12", "largest improvement"),
    // Fig. 4.10 / 4.4 absolute BLP values.
    n("ch4.original.blp.avg", 4, Some("original"), None, "blp", Absolute, 30.3, "banks",
      "§4.5.2, Fig. 4.10", "average BLP of the original codes (12 cores, 64 banks)"),
    n("ch4.blp_opt.blp.avg", 4, Some("blp-opt"), None, "blp", Absolute, 44.5, "banks",
      "§4.5.2, Fig. 4.10", "average BLP with BLP Optimized"),
    n("ch4.blp_ideal.blp.avg", 4, Some("blp-ideal"), None, "blp", Absolute, 51.5, "banks",
      "§4.5.2, Fig. 4.10", "average BLP with BLP Ideal"),
    n("ch4.original.blp.hpcg", 4, Some("original"), Some("HPCG"), "blp", Absolute, 19.7, "banks",
      "§4.3, Fig. 4.4", "original BLP of HPCG"),
    n("ch4.original.blp.gmr", 4, Some("original"), Some("GMR"), "blp", Absolute, 16.6, "banks",
      "§4.3, Fig. 4.4", "original BLP of GMR"),
    // §4.3 oracles.
    n("ch4.mlp_ideal.blp_gain.avg", 4, Some("mlp-ideal"), None, "blp", GainPct, 21.2, "%",
      "§4.3, Fig. 4.4", "MLP Ideal (clustered misses, Pai and Adve in hardware)"),
    n("ch4.mlp_ideal.time_reduction.avg", 4, Some("mlp-ideal"), None, "time", TimeReductionPct, 6.5, "%",
      "§4.3, Fig. 4.5", "MLP Ideal"),
    n("ch4.blp_ideal.blp_gain.avg", 4, Some("blp-ideal"), None, "blp", GainPct, 69.8, "%",
      "§4.3, Fig. 4.4", "BLP Ideal (misses spread evenly over banks)"),
    n("ch4.blp_ideal.time_reduction.avg", 4, Some("blp-ideal"), None, "time", TimeReductionPct, 27.8, "%",
      "§4.3, Fig. 4.5", "BLP Ideal"),
    n("ch4.original.time.min", 4, Some("original"), None, "time_seconds", Context, 55.6, "s",
      "§4.3, Fig. 4.5", "shortest original execution time (simulated)"),
    n("ch4.original.time.max", 4, Some("original"), None, "time_seconds", Context, 124.4, "s",
      "§4.3, Fig. 4.5", "longest original execution time (simulated)"),
    // §4.5.1 coverage, Fig. 4.13 overhead, Fig. 4.11 side effects.
    n("ch4.blp_opt.coverage.avg", 4, Some("blp-opt"), None, "coverage", SharePct, 86.0, "%",
      "§4.5.1", "coverage ratio: share of executor iterations under the new schedule"),
    n("ch4.blp_opt.coverage.min", 4, Some("blp-opt"), None, "coverage", SharePct, 73.0, "%", "§4.5.1", "lowest coverage"),
    n("ch4.blp_opt.coverage.max", 4, Some("blp-opt"), None, "coverage", SharePct, 91.0, "%", "§4.5.1", "highest coverage"),
    n("ch4.blp_opt.overhead.avg", 4, Some("blp-opt"), None, "overhead", SharePct, 4.0, "%",
      "§4.5.2, Fig. 4.13", "runtime (inspector + scheduling) overhead as a share of execution time"),
    n("ch4.blp_opt.llc_hit_gain.avg", 4, Some("blp-opt"), None, "llc_hit_rate", GainPct, 5.6, "%",
      "§4.5.2, Fig. 4.11", "LLC hit-rate improvement, range 2.2% to 8.8%"),
    n("ch4.blp_opt.row_hit_improved.count", 4, Some("blp-opt"), None, "row_hit_rate", Context, 3.0, "benchmarks of 8",
      "§4.5.2, Fig. 4.11", "row-buffer locality improves in 3 of 8 applications and degrades in the rest"),
    // §4.5.4 sensitivity, Fig. 4.15 / 4.16.
    n("ch4.sens.l3_12mb.blp_gain", 4, Some("blp-opt"), None, "blp", GainPct, 29.0, "%",
      "§4.5.4, Fig. 4.15", "with a 12 MB L3"),
    n("ch4.sens.l3_12mb.time_reduction", 4, Some("blp-opt"), None, "time", TimeReductionPct, 13.7, "%",
      "§4.5.4, Fig. 4.15", "with a 12 MB L3"),
    n("ch4.sens.insensitive.bound", 4, Some("blp-opt"), None, "time", Context, 2.0, "%",
      "§4.5.4", "row-buffer size, MC count, slab size, queue size change the improvement by at most 2%"),
    n("ch4.sens.open_vs_closed", 4, Some("original"), None, "time", TimeReductionPct, 4.0, "%",
      "§4.5.4", "open-page policy is 4% faster than closed-page for the original codes"),
    n("ch4.input.hpcg.mb", 4, None, Some("HPCG"), "input_mb", Context, 210.8, "MB", "§4.5.4, Fig. 4.16 footnote", "default input size"),
    n("ch4.input.gmr.mb", 4, None, Some("GMR"), "input_mb", Context, 308.6, "MB", "§4.5.4, Fig. 4.16 footnote", "default input size"),
    // §4.5.5, Fig. 4.17 alternate strategies (normalised to FR-FCFS).
    n("ch4.gpart.time_reduction.avg", 4, Some("gpart"), None, "time", TimeReductionPct, 9.4, "%",
      "§4.5.5, Fig. 4.17(b)", "GPART data reordering; it degrades BLP in all eight applications"),
    n("ch4.gpart.llc_gain.avg", 4, Some("gpart"), None, "llc_hit_rate", GainPct, 9.6, "%",
      "§4.5.5", "GPART improves cache performance by 9.6%"),
    n("ch4.blp_opt_over_tcm.blp_gain.avg", 4, Some("tcm+blp-opt"), None, "blp", GainPct, 32.0, "%",
      "§4.5.5, Fig. 4.17(a)", "BLP Optimized over TCM (relative to TCM, not to Original)"),
    n("ch4.blp_opt_over_tcm.time_reduction.avg", 4, Some("tcm+blp-opt"), None, "time", TimeReductionPct, 16.8, "%",
      "§4.5.5, Fig. 4.17(b)", "BLP Optimized over TCM (relative to TCM)"),
    n("ch4.blp_opt_over_parbs.time_reduction.avg", 4, Some("blp-opt"), None, "time", TimeReductionPct, 6.9, "%",
      "§4.5.5, Fig. 4.17(b)", "BLP Optimized over PAR-BS alone (relative to PAR-BS)"),
    n("ch4.parbs_blp_opt.time_reduction.avg", 4, Some("par-bs+blp-opt"), None, "time", TimeReductionPct, 23.4, "%",
      "§4.5.5, Fig. 4.17(b)", "PAR-BS + BLP Optimized over the original execution"),
    n("ch4.cra.time_reduction.avg", 4, None, None, "time", TimeReductionPct, 11.5, "%",
      "§4.5.5, Fig. 4.17(b)", "CRA scheduler alone (not in weft's version matrix)"),
    n("ch4.cra_blp_opt.time_reduction.avg", 4, None, None, "time", TimeReductionPct, 26.7, "%",
      "§4.5.5, Fig. 4.17(b)", "CRA + BLP Optimized (not in weft's version matrix)"),
    n("ch4.par.blp_gain.avg", 4, None, None, "blp", GainPct, 23.2, "%",
      "§4.5.5, Fig. 4.17(a)", "PAR scheduler alone (not in weft's version matrix)"),
    n("ch4.par.time_reduction.avg", 4, None, None, "time", TimeReductionPct, 13.7, "%",
      "§4.5.5, Fig. 4.17(b)", "PAR scheduler alone (not in weft's version matrix)"),
    n("ch4.par_blp_opt.blp_gain.avg", 4, None, None, "blp", GainPct, 51.5, "%",
      "§4.5.5, Fig. 4.17(a)", "PAR + BLP Optimized (not in weft's version matrix)"),
    n("ch4.par_blp_opt.time_reduction.avg", 4, None, None, "time", TimeReductionPct, 26.7, "%",
      "§4.5.5, Fig. 4.17(b)", "PAR + BLP Optimized (not in weft's version matrix)"),
    n("ch4.deps.time_reduction.avg", 4, Some("blp-opt"), None, "time", TimeReductionPct, 3.3, "%",
      "§4.5.6", "extra gain from running regions with inter-slab dependences in parallel"),
    n("ch4.ivybridge.time_reduction.avg", 4, Some("blp-opt"), None, "time", TimeReductionPct, 15.7, "%",
      "§4.5.3, Fig. 4.14", "real Ivy Bridge hardware (not simulated; context only)"),
    n("ch4.ddr3.blp_gain.avg", 4, Some("blp-opt"), None, "blp", GainPct, 30.7, "%",
      "§4.5.3", "simulated DDR3-2133 system, range 18.8% to 56.3%"),
    // Table 4.1: input sizes and MPKI of the original codes.
    n("ch4.table4.1.moldyn.mb", 4, None, Some("Moldyn"), "input_mb", Context, 336.2, "MB", "Table 4.1", ""),
    n("ch4.table4.1.stun.mb", 4, None, Some("STUN"), "input_mb", Context, 1280.0, "MB", "Table 4.1", "1.25 GB"),
    n("ch4.table4.1.hpcg.mb", 4, None, Some("HPCG"), "input_mb", Context, 210.8, "MB", "Table 4.1", ""),
    n("ch4.table4.1.minife.mb", 4, None, Some("MiniFE"), "input_mb", Context, 654.1, "MB", "Table 4.1", ""),
    n("ch4.table4.1.gmr.mb", 4, None, Some("GMR"), "input_mb", Context, 308.6, "MB", "Table 4.1", ""),
    n("ch4.table4.1.carey.mb", 4, None, Some("Carey"), "input_mb", Context, 1126.4, "MB", "Table 4.1", "1.10 GB"),
    n("ch4.table4.1.equake.mb", 4, None, Some("Equake"), "input_mb", Context, 487.7, "MB", "Table 4.1", ""),
    n("ch4.table4.1.gs_solver.mb", 4, None, Some("GS-Solver"), "input_mb", Context, 390.2, "MB", "Table 4.1", ""),
    n("ch4.table4.1.moldyn.mpki", 4, Some("original"), Some("Moldyn"), "mpki", Context, 81.3, "MPKI", "Table 4.1", ""),
    n("ch4.table4.1.stun.mpki", 4, Some("original"), Some("STUN"), "mpki", Context, 66.6, "MPKI", "Table 4.1", ""),
    n("ch4.table4.1.hpcg.mpki", 4, Some("original"), Some("HPCG"), "mpki", Context, 87.4, "MPKI", "Table 4.1", ""),
    n("ch4.table4.1.minife.mpki", 4, Some("original"), Some("MiniFE"), "mpki", Context, 26.5, "MPKI", "Table 4.1", ""),
    n("ch4.table4.1.gmr.mpki", 4, Some("original"), Some("GMR"), "mpki", Context, 91.2, "MPKI", "Table 4.1", ""),
    n("ch4.table4.1.carey.mpki", 4, Some("original"), Some("Carey"), "mpki", Context, 12.5, "MPKI", "Table 4.1", ""),
    n("ch4.table4.1.equake.mpki", 4, Some("original"), Some("Equake"), "mpki", Context, 14.1, "MPKI", "Table 4.1", ""),
    n("ch4.table4.1.gs_solver.mpki", 4, Some("original"), Some("GS-Solver"), "mpki", Context, 9.1, "MPKI", "Table 4.1", ""),
    // ---- Chapter 5.
    n("ch5.mlp_first.time_reduction.avg", 5, Some("mlp-first"), None, "time", TimeReductionPct, 11.31, "%",
      "§5.6.2, Fig. 5.10; §5.7", "MLP-first over Default"),
    n("ch5.clp_first.time_reduction.avg", 5, Some("clp-first"), None, "time", TimeReductionPct, 9.43, "%",
      "§5.6.2, Fig. 5.10; §5.7", "CLP-first over Default"),
    n("ch5.balanced.time_reduction.avg", 5, Some("balanced"), None, "time", TimeReductionPct, 17.32, "%",
      "§5.6.2, Fig. 5.10; §5.7", "Balanced over Default"),
    n("ch5.balanced.clp.avg", 5, Some("balanced"), None, "clp", Absolute, 20.59, "banks",
      "§5.6.2, Fig. 5.7", "average CLP with Balanced"),
    n("ch5.clp_first.clp.avg", 5, Some("clp-first"), None, "clp", Absolute, 24.16, "banks",
      "§5.6.2, Fig. 5.7", "average CLP with CLP-first"),
    n("ch5.balanced_over_clustering.time", 5, Some("clustering"), None, "time", Context, 12.87, "%",
      "§5.1", "Balanced performs 12.87% better than Clustering (Pai and Adve)"),
    n("ch5.balanced_over_lamlp.time", 5, Some("la-mlp"), None, "time", Context, 8.31, "%",
      "§5.1", "Balanced performs 8.31% better than Locality-Aware-MLP (Ding et al.)"),
    n("ch5.balanced_over_parbs.time", 5, Some("par-bs"), None, "time", Context, 6.21, "%",
      "§5.1", "Balanced performs 6.21% better than PAR-BS"),
    n("ch5.llc_miss_increase.max", 5, None, None, "llc_miss_rate", Context, 1.48, "%",
      "§5.6.2, Fig. 5.8", "largest LLC miss-rate increase of any version over Default"),
    n("ch5.row_miss_variation.bound", 5, None, None, "row_miss_rate", Context, 2.0, "%",
      "§5.6.2, Fig. 5.9", "row-buffer miss variations lie within -2%..+2% (Locality-Aware-MLP improves them)"),
    n("ch5.beta.range.low", 5, Some("balanced"), None, "beta", Context, 0.3, "",
      "§5.6.2, Fig. 5.11", "for most loop nests beta falls between 0.3 and 0.8"),
    n("ch5.beta.range.high", 5, Some("balanced"), None, "beta", Context, 0.8, "", "§5.6.2, Fig. 5.11", ""),
    n("ch5.llc_miss_rate.min", 5, Some("default"), None, "llc_miss_rate", Context, 16.6, "%", "§5.6.1", "range of LLC miss rates"),
    n("ch5.llc_miss_rate.max", 5, Some("default"), None, "llc_miss_rate", Context, 37.2, "%", "§5.6.1", ""),
    n("ch5.knl.mlp_first.time_reduction.avg", 5, Some("mlp-first"), None, "time", TimeReductionPct, 17.06, "%",
      "§5.7", "Knights Landing hardware (context only)"),
    n("ch5.knl.clp_first.time_reduction.avg", 5, Some("clp-first"), None, "time", TimeReductionPct, 15.19, "%",
      "§5.7", "Knights Landing hardware (context only)"),
    n("ch5.knl.balanced.time_reduction.avg", 5, Some("balanced"), None, "time", TimeReductionPct, 26.15, "%",
      "§5.7", "Knights Landing hardware (context only)"),
];

/// Looks a number up by key.
pub fn get(key: &str) -> Option<&'static PaperNumber> {
    PAPER.iter().find(|p| p.key == key)
}

/// The value of a headline number; the keys used here are covered by tests.
fn headline(key: &str) -> f64 {
    get(key).map(|p| p.value).unwrap_or(f64::NAN)
}

/// Ch. 4 headline: average BLP gain of BLP Optimized (46.8 %).
pub fn ch4_blp_gain_pct() -> f64 {
    headline("ch4.blp_opt.blp_gain.avg")
}
/// Ch. 4 headline: average execution-time reduction of BLP Optimized (18.3 %).
pub fn ch4_time_reduction_pct() -> f64 {
    headline("ch4.blp_opt.time_reduction.avg")
}
/// Ch. 5 headline: MLP-first time reduction (11.31 %).
pub fn ch5_mlp_first_pct() -> f64 {
    headline("ch5.mlp_first.time_reduction.avg")
}
/// Ch. 5 headline: CLP-first time reduction (9.43 %).
pub fn ch5_clp_first_pct() -> f64 {
    headline("ch5.clp_first.time_reduction.avg")
}
/// Ch. 5 headline: Balanced time reduction (17.32 %).
pub fn ch5_balanced_pct() -> f64 {
    headline("ch5.balanced.time_reduction.avg")
}

/// The published average, if any, for `(version, metric, measure)` over the suite.
pub fn average_for(version: &str, metric: &str, measure: Measure) -> Option<&'static PaperNumber> {
    PAPER.iter().find(|p| {
        p.version == Some(version)
            && p.benchmark.is_none()
            && p.metric == metric
            && p.measure == measure
            && p.key.ends_with(".avg")
            && !p.key.contains("knl")
            && !p.key.contains("ivybridge")
            && !p.key.contains("_over_")
            && !p.key.contains("ddr3")
            && !p.key.contains("deps")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique() {
        let mut keys: Vec<_> = PAPER.iter().map(|p| p.key).collect();
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        assert_eq!(before, keys.len());
    }

    #[test]
    fn headline_numbers() {
        assert_eq!(ch4_blp_gain_pct(), 46.8);
        assert_eq!(ch4_time_reduction_pct(), 18.3);
        assert_eq!(ch5_mlp_first_pct(), 11.31);
        assert_eq!(ch5_clp_first_pct(), 9.43);
        assert_eq!(ch5_balanced_pct(), 17.32);
    }

    #[test]
    fn blp_averages_are_consistent() {
        // 44.5 / 30.3 = 1.4686: the +46.8 % headline is the ratio of the Fig. 4.10 averages.
        let o = get("ch4.original.blp.avg").unwrap().value;
        let b = get("ch4.blp_opt.blp.avg").unwrap().value;
        let gain = (b / o - 1.0) * 100.0;
        assert!((gain - ch4_blp_gain_pct()).abs() < 0.1, "{gain}");
    }

    #[test]
    fn average_lookup() {
        assert_eq!(
            average_for("blp-opt", "time", Measure::TimeReductionPct)
                .unwrap()
                .value,
            18.3
        );
        assert_eq!(
            average_for("balanced", "time", Measure::TimeReductionPct)
                .unwrap()
                .value,
            17.32
        );
        assert_eq!(
            average_for("gpart", "time", Measure::TimeReductionPct)
                .unwrap()
                .value,
            9.4
        );
        assert!(average_for("default", "time", Measure::TimeReductionPct).is_none());
    }
}
