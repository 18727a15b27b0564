//! The report's chapter-4 section (`table4.2`): the averages of every version
//! against Original (§4.5.2), BLP, time and hit rates per benchmark (Figs.
//! 4.4-4.12), BLP Optimized's coverage and inspector overhead (§4.5.1, Fig.
//! 4.13), and the sensitivity sweeps (§4.5.4, Figs. 4.15, 4.16).

use super::tables::{averages_table, hit_rates, per_bench_table, plot_refs, BenchTable};
use super::ReportInput;
use crate::eval::results::{fmt_pct, main_blp_opt, mean, sweep_means, Derived};
use crate::eval::versions::VARIANTS;
use crate::eval::versions::{self, Study};
use std::fmt::Write as _;

/// The per-benchmark tables (Figs. 4.4-4.12): title and cell.
const CH4_TABLES: [BenchTable; 3] = [
    ("BLP per benchmark (Figs. 4.4, 4.10)", |d| {
        format!("{:.2}", d.blp)
    }),
    (
        "Execution-time reduction per benchmark (Figs. 4.5, 4.12, 4.17b)",
        |d| crate::eval::noise::fmt_pct_ci(d.time_reduction_pct, d.time_reduction_ci95),
    ),
    ("LLC hit rate / row-buffer hit rate (Fig. 4.11)", hit_rates),
];

/// `## Chapter 4`: averages, per-benchmark tables, coverage, plots, sweeps.
pub(super) fn chapter(s: &mut String, inp: &ReportInput<'_>) {
    let _ = writeln!(
        s,
        "\n## Chapter 4: BLP of irregular applications (`table4.2`)\n"
    );
    let _ = writeln!(s, "Versions: Original (FR-FCFS alone), BLP Optimized (inspector/executor, Algorithm 4), MLP Ideal and BLP Ideal (simulator oracles, §4.3), PAR-BS and TCM alone and with BLP Optimized, GPART-style data reordering (§4.5.5). Percentages are against Original on the same benchmark.");
    super::calibration::table(s, inp);
    averages_table(s, Study::Ch4, inp.a4);
    for (title, cell) in CH4_TABLES {
        per_bench_table(s, inp, Study::Ch4, title, cell);
    }
    coverage(s, inp);
    variants(s, inp, Study::Ch4);
    super::aside::section(s, inp, Study::Ch4);
    super::aside::cannot_pay(s, inp, Study::Ch4);
    plot_refs(
        s,
        inp,
        &["ch4_blp_over_time", "ch4_blp", "ch4_time", "ch4_overhead"],
    );
    sensitivity(s, inp);
}

/// Coverage ratio and inspector overhead of BLP Optimized (§4.5.1, Fig. 4.13).
fn coverage(s: &mut String, inp: &ReportInput<'_>) {
    let cov: Vec<&Derived> = main_blp_opt(inp.derived).collect();
    let _ = writeln!(
        s,
        "\n**Coverage ratio and inspector overhead of BLP Optimized (§4.5.1, Fig. 4.13)**\n"
    );
    if cov.is_empty() {
        let _ = writeln!(s, "No BLP Optimized run completed, so neither is measured.");
    } else {
        let _ = writeln!(
            s,
            "Overhead two ways: the inspector's share of the runtime's wall-clock region time in the traced run, and the inspections' share of the simulated cycles (between the trace's inspection barriers, where all cores meet). The last column is the time reduction with both runs' inspection cycles left out.\n"
        );
        let _ = writeln!(
            s,
            "| benchmark | coverage | overhead (wall clock) | overhead (simulated) | time reduction | without inspection |\n|---|---:|---:|---:|---:|---:|"
        );
        let p = |x: Option<f64>, prec: usize| x.map_or("n/a".into(), |c| format!("{c:.prec$}%"));
        for d in &cov {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                d.bench,
                p(d.coverage_pct, 1),
                p(d.overhead_pct, 2),
                p(d.sim_overhead_pct, 2),
                fmt_pct(d.time_reduction_pct),
                fmt_pct(d.time_reduction_excl_inspection_pct),
            );
        }
        let _ =
            writeln!(
            s,
            "| **average** (dissertation: 86% coverage, 4% overhead) | {} | {} | {} | {} | {} |",
            p(mean(cov.iter().map(|d| d.coverage_pct)), 1),
            p(mean(cov.iter().map(|d| d.overhead_pct)), 2),
            p(mean(cov.iter().map(|d| d.sim_overhead_pct)), 2),
            fmt_pct(mean(cov.iter().map(|d| d.time_reduction_pct))),
            fmt_pct(mean(cov.iter().map(|d| d.time_reduction_excl_inspection_pct))),
        );
    }
}

/// `### Sensitivity`: BLP Optimized's mean changes at every sweep point (§4.5.4).
fn sensitivity(s: &mut String, inp: &ReportInput<'_>) {
    let sweep_ds: Vec<&Derived> = inp
        .derived
        .iter()
        .filter(|d| d.study == Study::Ch4 && d.version == "blp-opt" && d.point.is_some())
        .collect();
    let _ = writeln!(s, "\n### Sensitivity (§4.5.4, Figs. 4.15, 4.16)\n");
    if sweep_ds.is_empty() {
        let _ = writeln!(
            s,
            "No sweep point completed{}.",
            if inp.opts.sweeps {
                ""
            } else {
                " (sweeps are not part of `--quick`)"
            }
        );
    } else {
        let _ = writeln!(
            s,
            "| sweep | value | benchmarks | BLP gain | time reduction | without inspection |\n|---|---:|---:|---:|---:|---:|"
        );
        for sw in versions::sweeps() {
            for v in &sw.values {
                let Some(m) = sweep_means(inp.derived, sw.id, *v) else {
                    continue;
                };
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | {} |",
                    sw.label,
                    v,
                    m.benchmarks,
                    fmt_pct(m.blp_gain),
                    fmt_pct(m.time_reduction),
                    fmt_pct(m.excl_inspection)
                );
            }
        }
        let _ = writeln!(s, "\nDissertation: the gain grows with banks and cores and shrinks with LLC capacity (29% BLP / 13.7% time at 12 MB L3); row-buffer size and slab size change it by at most 2%.");
    }
    plot_refs(s, inp, &["ch4_sensitivity"]);
}

/// `**Variants against the printed algorithm**` of `study` (issue #36 part
/// 6): per benchmark, each variant that ran beside its printed version, with
/// cycles, the study's parallelism metric, LLC hit rate, the simulated
/// inspection share and the time reduction against the baseline; then the
/// mean time reduction of each.
pub(super) fn variants(s: &mut String, inp: &ReportInput<'_>, study: Study) {
    let main = |v: &str, b: &str| inp.main_derived(study, v, b);
    let mut rows = Vec::new();
    for &(var, printed) in VARIANTS {
        let mut benches: Vec<&str> = inp
            .derived
            .iter()
            .filter(|d| d.study == study && d.version == var && d.point.is_none())
            .map(|d| d.bench.as_str())
            .collect();
        benches.sort_unstable();
        for b in benches {
            if let (Some(v), Some(p)) = (main(var, b), main(printed, b)) {
                rows.push((var, printed, v, p));
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    let metric = study.primary_metric().to_uppercase();
    let _ = writeln!(
        s,
        "\n**Variants against the printed algorithm** (`crate::aside` rules, candidate window, miss-filtered maps; `docs/oracles.md`, Variants)\n"
    );
    let _ = writeln!(
        s,
        "| benchmark | variant / printed | cycles | {metric} | LLC hit rate | inspection (simulated) | time reduction |\n|---|---|---:|---:|---:|---:|---:|"
    );
    let pct = |x: Option<f64>| x.map_or("-".into(), |c| format!("{c:.1}%"));
    let par = |d: &Derived| if study == Study::Ch4 { d.blp } else { d.mlp };
    for (var, printed, v, p) in &rows {
        let _ = writeln!(
            s,
            "| {} | {var} / {printed} | {} / {} | {:.2} / {:.2} | {:.1}% / {:.1}% | {} / {} | {} / {} |",
            v.bench,
            v.cycles,
            p.cycles,
            par(v),
            par(p),
            100.0 * v.llc_hit_rate,
            100.0 * p.llc_hit_rate,
            pct(v.sim_overhead_pct),
            pct(p.sim_overhead_pct),
            fmt_pct(v.time_reduction_pct),
            fmt_pct(p.time_reduction_pct),
        );
    }
    for &(var, printed) in VARIANTS {
        let of = |id: &str| {
            rows.iter()
                .filter(|r| r.0 == var)
                .map(|r| if id == var { r.2 } else { r.3 })
                .map(|d| d.time_reduction_pct)
                .collect::<Vec<_>>()
        };
        let (v, p) = (of(var), of(printed));
        if !v.is_empty() {
            let _ = writeln!(
                s,
                "| **average** ({} benchmarks) | {var} / {printed} | | | | | {} / {} |",
                v.len(),
                fmt_pct(mean(v)),
                fmt_pct(mean(p)),
            );
        }
    }
}
