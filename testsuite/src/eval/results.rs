//! Derived results: per-benchmark changes against each study's baseline, the
//! averages over benchmarks, and `summary.json`.
//!
//! Definitions (issue 8 and DESIGN.md): for a benchmark under version `v` with
//! baseline `b` (Original for ch. 4, Default for ch. 5) at the same sweep point,
//! `time_reduction_pct = (1 - cycles_v / cycles_b) * 100` (positive = faster) and
//! `<metric>_gain_pct = (metric_v / metric_b - 1) * 100` for BLP, MLP and CLP.
//! Averages are arithmetic means of the per-benchmark percentages over the
//! benchmarks where both runs exist (how the dissertation's "on average" reads);
//! a version with no such benchmark has `null` averages, never 0.

use super::engine::{EngineOutput, Record, Status, SweepPoint};
use super::noise;
use super::paper;
use super::versions::{self, Study};
use serde::{Deserialize, Serialize};

/// One benchmark under one version, with its changes against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Derived {
    /// Study.
    pub study: Study,
    /// Benchmark.
    pub bench: String,
    /// Version id.
    pub version: String,
    /// Sweep point.
    pub point: Option<SweepPoint>,
    /// Execution cycles.
    pub cycles: u64,
    /// BLP.
    pub blp: f64,
    /// MLP.
    pub mlp: f64,
    /// CLP.
    pub clp: f64,
    /// LLC hit rate.
    pub llc_hit_rate: f64,
    /// Row-buffer hit rate.
    pub row_hit_rate: f64,
    /// Execution-time reduction against the baseline (%).
    pub time_reduction_pct: Option<f64>,
    /// BLP gain (%).
    pub blp_gain_pct: Option<f64>,
    /// MLP gain (%).
    pub mlp_gain_pct: Option<f64>,
    /// CLP gain (%).
    pub clp_gain_pct: Option<f64>,
    /// Coverage ratio (%).
    pub coverage_pct: Option<f64>,
    /// Inspector overhead (%), wall clock of the traced run.
    pub overhead_pct: Option<f64>,
    /// Inspector overhead (%) in simulated cycles: inspection cycles over
    /// the run's cycles (`None` when the run has no inspection).
    #[serde(default)]
    pub sim_overhead_pct: Option<f64>,
    /// Execution-time reduction against the baseline with both runs'
    /// inspection cycles left out (%): the steady state of a schedule that is
    /// reused long enough to amortise its inspection.
    #[serde(default)]
    pub time_reduction_excl_inspection_pct: Option<f64>,
    /// DRAM requests (bursts) served.
    #[serde(default)]
    pub dram_requests: u64,
    /// Prefetches that fetched a line from DRAM and no demand request used:
    /// `prefetches_filled - prefetches_useful` (0 when more were used than
    /// filled, e.g. lines already in the LLC).
    #[serde(default)]
    pub useless_prefetches: u64,
    /// Trace records simulated (the program's traced loads and stores).
    #[serde(default)]
    pub records: u64,
    /// Time reduction of each perturbed replica against the baseline's
    /// replica of the same seed (%; empty for single simulations,
    /// [`super::noise`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replica_time_reductions: Vec<f64>,
    /// Half-width of the 95% confidence interval of `time_reduction_pct`
    /// (percentage points; `None` without replicas).
    #[serde(default)]
    pub time_reduction_ci95: Option<f64>,
}

fn pct_gain(v: f64, b: f64) -> Option<f64> {
    (b > 0.0 && v.is_finite()).then(|| (v / b - 1.0) * 100.0)
}

fn baseline_of(study: Study, version: &str) -> &'static str {
    versions::find(study, version)
        .map(|v| v.baseline)
        .unwrap_or(match study {
            Study::Ch4 => "original",
            Study::Ch5 => "default",
        })
}

/// Changes of every successful record against its baseline.
pub fn derive(records: &[Record]) -> Vec<Derived> {
    let ok: Vec<&Record> = records
        .iter()
        .filter(|r| r.status == Status::Ok && r.stats.is_some())
        .collect();
    ok.iter()
        .map(|r| {
            let s = r.stats.as_ref().expect("filtered");
            let base_id = baseline_of(r.study, &r.version);
            let base = ok
                .iter()
                .find(|b| {
                    b.study == r.study
                        && b.bench == r.bench
                        && b.version == base_id
                        && b.point == r.point
                })
                .and_then(|b| b.stats.as_ref());
            // The baseline against itself has no interval (0 by definition).
            let other = base.filter(|_| r.version != base_id);
            let reps = other.map_or_else(Vec::new, |b| {
                noise::paired_reductions(&s.replica_cycles, &b.replica_cycles)
            });
            Derived {
                study: r.study,
                bench: r.bench.clone(),
                version: r.version.clone(),
                point: r.point.clone(),
                cycles: s.cycles,
                blp: s.blp,
                mlp: s.mlp,
                clp: s.clp,
                llc_hit_rate: s.llc_hit_rate,
                row_hit_rate: s.row_hit_rate,
                time_reduction_pct: base
                    .filter(|b| b.cycles > 0)
                    .map(|b| (1.0 - s.cycles as f64 / b.cycles as f64) * 100.0),
                blp_gain_pct: base.and_then(|b| pct_gain(s.blp, b.blp)),
                mlp_gain_pct: base.and_then(|b| pct_gain(s.mlp, b.mlp)),
                clp_gain_pct: base.and_then(|b| pct_gain(s.clp, b.clp)),
                coverage_pct: r.runtime.as_ref().and_then(|x| x.coverage_pct),
                overhead_pct: r.runtime.as_ref().and_then(|x| x.overhead_pct),
                sim_overhead_pct: (s.inspection_cycles > 0 && s.cycles > 0)
                    .then(|| 100.0 * s.inspection_cycles as f64 / s.cycles as f64),
                time_reduction_excl_inspection_pct: base
                    .map(|b| b.cycles.saturating_sub(b.inspection_cycles))
                    .filter(|&b| b > 0)
                    .map(|b| {
                        let own = s.cycles.saturating_sub(s.inspection_cycles);
                        (1.0 - own as f64 / b as f64) * 100.0
                    }),
                dram_requests: s.dram_requests,
                useless_prefetches: s.prefetches_filled.saturating_sub(s.prefetches_useful),
                records: r.records.unwrap_or(0),
                // replicas, or else the sampling's interval (`paper` inputs)
                time_reduction_ci95: noise::ci95(&reps).or_else(|| {
                    other.and_then(|b| {
                        noise::sampled_reduction_ci95(
                            s.cycles,
                            s.sample_ci95_pct,
                            b.cycles,
                            b.sample_ci95_pct,
                        )
                    })
                }),
                replica_time_reductions: reps,
            }
        })
        .collect()
}

/// Averages of one version over the benchmarks of its study (main study only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VersionAverage {
    /// Study.
    pub study: Study,
    /// Version id.
    pub version: String,
    /// Label.
    pub label: String,
    /// Benchmarks averaged.
    pub n: usize,
    /// Mean time reduction (%).
    pub time_reduction_pct: Option<f64>,
    /// Half-width of its 95% confidence interval over the perturbed
    /// replicas (percentage points; `None` without replicas).
    #[serde(default)]
    pub time_reduction_ci95: Option<f64>,
    /// Per replica, the mean over the benchmarks of that replica's time
    /// reductions (%; empty without replicas, [`noise::replica_means`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replica_time_reductions: Vec<f64>,
    /// Mean BLP gain (%).
    pub blp_gain_pct: Option<f64>,
    /// Mean MLP gain (%).
    pub mlp_gain_pct: Option<f64>,
    /// Mean CLP gain (%).
    pub clp_gain_pct: Option<f64>,
    /// Mean absolute BLP.
    pub blp: Option<f64>,
    /// Mean absolute MLP.
    pub mlp: Option<f64>,
    /// Mean absolute CLP.
    pub clp: Option<f64>,
    /// Why the version has no numbers, if it has none.
    pub unavailable: Option<String>,
}

/// The main-matrix (no sweep point) result of `version` on `bench`, if it
/// completed: the cell every per-benchmark table, plot and claim reads.
pub fn main_cell<'a>(
    derived: &'a [Derived],
    study: Study,
    bench: &str,
    version: &str,
) -> Option<&'a Derived> {
    derived
        .iter()
        .find(|d| d.study == study && d.bench == bench && d.version == version && d.point.is_none())
}

/// The benchmarks of a study, in the engine's order (empty if it did not run).
pub fn bench_names(out: &EngineOutput, study: Study) -> Vec<String> {
    out.benchmarks
        .get(study.name())
        .map(|b| b.iter().map(|x| x.name.clone()).collect())
        .unwrap_or_default()
}

/// BLP Optimized's records of the main ch. 4 study (no sweep point).
pub fn main_blp_opt(derived: &[Derived]) -> impl Iterator<Item = &Derived> {
    derived
        .iter()
        .filter(|d| d.study == Study::Ch4 && d.version == "blp-opt" && d.point.is_none())
}

/// Mean of the present values (`None` if there are none).
pub fn mean(xs: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = xs.into_iter().flatten().filter(|x| x.is_finite()).collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Averages of BLP Optimized's changes at one sweep point (§4.5.4).
#[derive(Debug, Clone, PartialEq)]
pub struct SweepMeans {
    /// Benchmarks that completed at the point.
    pub benchmarks: usize,
    /// Mean BLP gain (%).
    pub blp_gain: Option<f64>,
    /// Mean time reduction (%).
    pub time_reduction: Option<f64>,
    /// Mean time reduction with inspection cycles left out (%).
    pub excl_inspection: Option<f64>,
}

/// BLP Optimized's average changes at point `value` of sweep `id` (`None`
/// when no benchmark completed there).
pub fn sweep_means(derived: &[Derived], id: &str, value: i64) -> Option<SweepMeans> {
    let ds: Vec<&Derived> = derived
        .iter()
        .filter(|d| {
            d.study == Study::Ch4
                && d.version == "blp-opt"
                && d.point
                    .as_ref()
                    .is_some_and(|p| p.sweep == id && p.value == value)
        })
        .collect();
    (!ds.is_empty()).then(|| SweepMeans {
        benchmarks: ds.len(),
        blp_gain: mean(ds.iter().map(|d| d.blp_gain_pct)),
        time_reduction: mean(ds.iter().map(|d| d.time_reduction_pct)),
        excl_inspection: mean(ds.iter().map(|d| d.time_reduction_excl_inspection_pct)),
    })
}

/// Per-version averages of a study's main matrix (no sweep points).
pub fn averages(records: &[Record], derived: &[Derived], study: Study) -> Vec<VersionAverage> {
    versions::versions(study)
        .into_iter()
        .filter_map(|v| {
            let recs: Vec<&Record> = records
                .iter()
                .filter(|r| r.study == study && r.version == v.id && r.point.is_none())
                .collect();
            if recs.is_empty() {
                return None;
            }
            let ds: Vec<&Derived> = derived
                .iter()
                .filter(|d| d.study == study && d.version == v.id && d.point.is_none())
                .collect();
            let unavailable = if ds.is_empty() {
                recs.iter().find_map(|r| match &r.status {
                    Status::NotAvailable(w) => Some(format!("not available: {w}")),
                    Status::Failed(w) => Some(format!("failed: {w}")),
                    Status::Ok => None,
                })
            } else {
                None
            };
            Some(VersionAverage {
                study,
                version: v.id.to_string(),
                label: v.label.to_string(),
                n: ds.iter().filter(|d| d.time_reduction_pct.is_some()).count(),
                time_reduction_pct: mean(ds.iter().map(|d| d.time_reduction_pct)),
                time_reduction_ci95: noise::average_ci95(
                    ds.iter()
                        .filter(|d| d.time_reduction_pct.is_some())
                        .map(|d| d.replica_time_reductions.as_slice()),
                )
                .or_else(|| {
                    // sampled runs: the benchmarks' own intervals, independent
                    noise::mean_of_independent_ci95(
                        ds.iter()
                            .filter(|d| d.time_reduction_pct.is_some())
                            .map(|d| d.time_reduction_ci95),
                    )
                }),
                replica_time_reductions: noise::replica_means(
                    ds.iter()
                        .filter(|d| d.time_reduction_pct.is_some())
                        .map(|d| d.replica_time_reductions.as_slice()),
                )
                .unwrap_or_default(),
                blp_gain_pct: mean(ds.iter().map(|d| d.blp_gain_pct)),
                mlp_gain_pct: mean(ds.iter().map(|d| d.mlp_gain_pct)),
                clp_gain_pct: mean(ds.iter().map(|d| d.clp_gain_pct)),
                blp: mean(ds.iter().map(|d| Some(d.blp))),
                mlp: mean(ds.iter().map(|d| Some(d.mlp))),
                clp: mean(ds.iter().map(|d| Some(d.clp))),
                unavailable,
            })
        })
        .collect()
}

/// Chapter-4 part of the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ch4Summary {
    /// Mean BLP gain of BLP Optimized over Original (%).
    pub blp_gain_pct: Option<f64>,
    /// Mean execution-time reduction of BLP Optimized (%).
    pub time_reduction_pct: Option<f64>,
    /// The same with every run's inspection cycles left out (%): the
    /// steady state of schedules reused long enough to amortise inspection.
    #[serde(default)]
    pub time_reduction_excl_inspection_pct: Option<f64>,
    /// Mean inspection share of BLP Optimized's simulated cycles (%).
    #[serde(default)]
    pub sim_overhead_pct: Option<f64>,
    /// Mean execution-time reduction of BLP Optimized stepping aside where
    /// it cannot pay (`blp-aside`, `WEFT_BLP_ASIDE=1`; issue #34) (%).
    #[serde(default)]
    pub aside_time_reduction_pct: Option<f64>,
    /// Half-widths of the 95% confidence intervals of `time_reduction_pct`
    /// and `aside_time_reduction_pct` over the perturbed replicas
    /// ([`super::noise`]; `None` without replicas).
    #[serde(default)]
    pub time_reduction_ci95: Option<f64>,
    /// See `time_reduction_ci95`.
    #[serde(default)]
    pub aside_time_reduction_ci95: Option<f64>,
    /// Benchmarks averaged.
    pub benchmarks: usize,
    /// The dissertation's values (46.8, 18.3).
    pub paper: PaperCh4,
}

/// Dissertation values for ch. 4.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperCh4 {
    /// 46.8.
    pub blp_gain_pct: f64,
    /// 18.3.
    pub time_reduction_pct: f64,
}

/// Chapter-5 part of the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ch5Summary {
    /// MLP-first time reduction over Default (%).
    pub mlp_first_pct: Option<f64>,
    /// CLP-first time reduction (%).
    pub clp_first_pct: Option<f64>,
    /// Balanced time reduction (%).
    pub balanced_pct: Option<f64>,
    /// Balanced stepping aside where its windows cannot gain (one-IB windows, window coverage) (`balanced-aside`,
    /// `WEFT_IB_ASIDE=1`; issue #34) (%).
    #[serde(default)]
    pub balanced_aside_pct: Option<f64>,
    /// Half-widths of the 95% confidence intervals of the four time
    /// reductions above, in their order ([`super::noise`]; `None` without
    /// replicas).
    #[serde(default)]
    pub ci95: [Option<f64>; 4],
    /// Benchmarks averaged (for Balanced).
    pub benchmarks: usize,
    /// The dissertation's values (11.31, 9.43, 17.32).
    pub paper: PaperCh5,
}

/// Dissertation values for ch. 5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaperCh5 {
    /// 11.31.
    pub mlp_first_pct: f64,
    /// 9.43.
    pub clp_first_pct: f64,
    /// 17.32.
    pub balanced_pct: f64,
}

/// `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Every optimized run printed the baseline's checksum (the evaluation aborts
    /// otherwise, so a written summary with `false` means no run could be checked).
    pub checksums_match: bool,
    /// Runs whose checksum was compared.
    pub checksums_checked: usize,
    /// `--quick` run.
    pub quick: bool,
    /// Chapter 4.
    pub ch4: Ch4Summary,
    /// Chapter 5.
    pub ch5: Ch5Summary,
    /// Cells by status.
    pub cells_ok: usize,
    /// Cells whose version is not available.
    pub cells_not_available: usize,
    /// Cells that failed.
    pub cells_failed: usize,
    /// Every distinct "not available" reason (`version: why`).
    pub not_available: Vec<String>,
    /// Claims of the dissertation our numbers contradict (see results.md).
    pub disagreements: usize,
    /// Wall-clock seconds of the evaluation.
    pub seconds: f64,
}

fn avg_of<'a>(avgs: &'a [VersionAverage], id: &str) -> Option<&'a VersionAverage> {
    avgs.iter().find(|a| a.version == id)
}

/// Cells whose status satisfies `f`.
fn cells(out: &EngineOutput, f: impl Fn(&Status) -> bool) -> usize {
    out.records.iter().filter(|r| f(&r.status)).count()
}

/// Builds the summary.
pub fn summarize(
    out: &EngineOutput,
    derived: &[Derived],
    checksums_checked: usize,
    disagreements: usize,
    quick: bool,
    seconds: f64,
) -> Summary {
    let a4 = averages(&out.records, derived, Study::Ch4);
    let a5 = averages(&out.records, derived, Study::Ch5);
    let blp = avg_of(&a4, "blp-opt");
    let bal = avg_of(&a5, "balanced");
    let mut na: Vec<String> = out
        .records
        .iter()
        .filter_map(|r| match &r.status {
            Status::NotAvailable(w) => Some(format!("{} {}: {}", r.study, r.version, w)),
            _ => None,
        })
        .chain(out.unavailable.iter().map(|(w, why)| format!("{w}: {why}")))
        .collect();
    na.sort();
    na.dedup();
    Summary {
        checksums_match: checksums_checked > 0,
        checksums_checked,
        quick,
        ch4: Ch4Summary {
            blp_gain_pct: blp.and_then(|a| a.blp_gain_pct),
            time_reduction_pct: blp.and_then(|a| a.time_reduction_pct),
            time_reduction_excl_inspection_pct: mean(
                main_blp_opt(derived).map(|d| d.time_reduction_excl_inspection_pct),
            ),
            sim_overhead_pct: mean(main_blp_opt(derived).map(|d| d.sim_overhead_pct)),
            aside_time_reduction_pct: avg_of(&a4, "blp-aside").and_then(|a| a.time_reduction_pct),
            time_reduction_ci95: blp.and_then(|a| a.time_reduction_ci95),
            aside_time_reduction_ci95: avg_of(&a4, "blp-aside").and_then(|a| a.time_reduction_ci95),
            benchmarks: blp.map_or(0, |a| a.n),
            paper: PaperCh4 {
                blp_gain_pct: paper::ch4_blp_gain_pct(),
                time_reduction_pct: paper::ch4_time_reduction_pct(),
            },
        },
        ch5: Ch5Summary {
            mlp_first_pct: avg_of(&a5, "mlp-first").and_then(|a| a.time_reduction_pct),
            clp_first_pct: avg_of(&a5, "clp-first").and_then(|a| a.time_reduction_pct),
            balanced_pct: bal.and_then(|a| a.time_reduction_pct),
            balanced_aside_pct: avg_of(&a5, "balanced-aside").and_then(|a| a.time_reduction_pct),
            ci95: ["mlp-first", "clp-first", "balanced", "balanced-aside"]
                .map(|v| avg_of(&a5, v).and_then(|a| a.time_reduction_ci95)),
            benchmarks: bal.map_or(0, |a| a.n),
            paper: PaperCh5 {
                mlp_first_pct: paper::ch5_mlp_first_pct(),
                clp_first_pct: paper::ch5_clp_first_pct(),
                balanced_pct: paper::ch5_balanced_pct(),
            },
        },
        cells_ok: cells(out, |s| *s == Status::Ok),
        cells_not_available: cells(out, |s| matches!(s, Status::NotAvailable(_))),
        cells_failed: cells(out, |s| matches!(s, Status::Failed(_))),
        not_available: na,
        disagreements,
        seconds,
    }
}

/// Formats an optional percentage for tables.
pub fn fmt_pct(x: Option<f64>) -> String {
    match x {
        Some(v) => format!("{v:+.1}%"),
        None => "n/a".into(),
    }
}

/// One headline number of the summary next to the dissertation's.
#[derive(Debug, Clone, PartialEq)]
pub struct Headline {
    /// Study, as the report names it (`ch. 4`).
    pub study: &'static str,
    /// Row label of the plain-text table.
    pub label: &'static str,
    /// Metric, as the report words it.
    pub metric: &'static str,
    /// Our value.
    pub ours: Option<f64>,
    /// Half-width of its 95% confidence interval over the perturbed
    /// replicas, where one is measured.
    pub ci95: Option<f64>,
    /// The dissertation's value.
    pub paper: f64,
    /// Where the dissertation gives it.
    pub source: &'static str,
}

/// The headline numbers of `s`, in the order every summary lists them.
#[rustfmt::skip]
pub fn headlines(s: &Summary) -> [Headline; 8] {
    let h = |study, label, metric, (ours, ci95), paper, source| Headline {
        study,
        label,
        metric,
        ours,
        ci95,
        paper,
        source,
    };
    let (c4, c5) = (&s.ch4, &s.ch5);
    [
        h("ch. 4", "ch4 BLP gain, BLP Optimized", "BLP gain, BLP Optimized vs Original",
            (c4.blp_gain_pct, None), c4.paper.blp_gain_pct, "§4.6, Fig. 4.10"),
        h("ch. 4", "ch4 time reduction, BLP Optimized", "execution-time reduction, BLP Optimized",
            (c4.time_reduction_pct, c4.time_reduction_ci95), c4.paper.time_reduction_pct, "§4.5.2, Fig. 4.12"),
        h("ch. 4", "  the same, inspections left out",
            "the same, inspection cycles left out (steady state; the dissertation amortises one inspection over long timing loops)",
            (c4.time_reduction_excl_inspection_pct, None), c4.paper.time_reduction_pct, "§4.5.2, Fig. 4.12"),
        h("ch. 4", "  stepping aside (blp-aside)",
            "the same, stepping aside where it cannot pay (`blp-aside`, inspection included; issue #34)",
            (c4.aside_time_reduction_pct, c4.aside_time_reduction_ci95), c4.paper.time_reduction_pct, "§4.5.2, Fig. 4.12"),
        h("ch. 5", "ch5 time reduction, MLP-first", "execution-time reduction, MLP-first vs Default",
            (c5.mlp_first_pct, c5.ci95[0]), c5.paper.mlp_first_pct, "§5.6.2, Fig. 5.10"),
        h("ch. 5", "ch5 time reduction, CLP-first", "execution-time reduction, CLP-first",
            (c5.clp_first_pct, c5.ci95[1]), c5.paper.clp_first_pct, "§5.6.2, Fig. 5.10"),
        h("ch. 5", "ch5 time reduction, Balanced", "execution-time reduction, Balanced",
            (c5.balanced_pct, c5.ci95[2]), c5.paper.balanced_pct, "§5.6.2, Fig. 5.10"),
        h("ch. 5", "  stepping aside (balanced-aside)",
            "the same, stepping aside where the windows cannot gain (`balanced-aside`: one-IB windows, window coverage; issue #34)",
            (c5.balanced_aside_pct, c5.ci95[3]), c5.paper.balanced_pct, "§5.6.2, Fig. 5.10"),
    ]
}

/// The summary as a plain-text table (what `weft eval` and `weft demo` print).
pub fn summary_table(s: &Summary) -> String {
    let mut t = String::new();
    t.push_str(&format!(
        "{:<38} {:>14} {:>12}\n",
        "metric (average over benchmarks)", "weft", "dissertation"
    ));
    for h in headlines(s) {
        t.push_str(&format!(
            "{:<38} {:>14} {:>11.2}%\n",
            h.label,
            noise::fmt_pct_ci(h.ours, h.ci95),
            h.paper
        ));
    }
    t.push_str(&format!(
        "benchmarks: ch4 {}, ch5 {}; cells ok {}, not available {}, failed {}; checksums {} ({} runs checked); disagreements with the paper: {}\n",
        s.ch4.benchmarks,
        s.ch5.benchmarks,
        s.cells_ok,
        s.cells_not_available,
        s.cells_failed,
        if s.checksums_match { "match" } else { "NOT checked" },
        s.checksums_checked,
        s.disagreements,
    ));
    if !s.not_available.is_empty() {
        t.push_str("not available:\n");
        for w in &s.not_available {
            t.push_str(&format!("  {w}\n"));
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::backend::SimStats;

    fn sampled(bench: &str, version: &str, cycles: u64, ci: f64) -> Record {
        Record {
            study: Study::Ch4,
            bench: bench.into(),
            paper_name: None,
            version: version.into(),
            label: version.into(),
            point: None,
            machine: "table4.2".into(),
            status: Status::Ok,
            checksum: None,
            records: None,
            stats: Some(SimStats {
                cycles,
                sample_ci95_pct: Some(ci),
                ..Default::default()
            }),
            runtime: None,
            sim_key: None,
        }
    }

    /// Sampled runs (one simulation each, no replicas) carry the sampling's
    /// interval into the time reduction and its average, by hand.
    #[test]
    fn sampled_runs_get_the_samplings_interval() {
        let recs = [
            sampled("hpcg", "original", 1000, 4.0),
            sampled("hpcg", "blp-opt", 900, 3.0),
            sampled("moldyn", "original", 2000, 0.0),
            sampled("moldyn", "blp-opt", 2000, 5.0),
        ];
        let d = derive(&recs);
        let get = |b: &str, v: &str| d.iter().find(|x| x.bench == b && x.version == v).unwrap();
        // 100 * 0.9 * sqrt(0.03^2 + 0.04^2) = 4.5
        let h = get("hpcg", "blp-opt");
        assert!((h.time_reduction_pct.unwrap() - 10.0).abs() < 1e-9);
        assert!((h.time_reduction_ci95.unwrap() - 4.5).abs() < 1e-9);
        assert_eq!(get("hpcg", "original").time_reduction_ci95, None);
        assert!((get("moldyn", "blp-opt").time_reduction_ci95.unwrap() - 5.0).abs() < 1e-9);
        // the average of +10 and 0: sqrt(4.5^2 + 5^2) / 2
        let a = averages(&recs, &d, Study::Ch4);
        let opt = a.iter().find(|x| x.version == "blp-opt").unwrap();
        let want = (4.5f64 * 4.5 + 25.0).sqrt() / 2.0;
        assert!(
            (opt.time_reduction_ci95.unwrap() - want).abs() < 1e-9,
            "{opt:?}"
        );
    }
}
