//! The report's chapter-5 section (`table5.2`): the averages of the eight
//! versions of §5.6.1 against Default, MLP, CLP, time and hit rates per
//! benchmark (Figs. 5.6-5.10), and the betas Balanced chose (Fig. 5.11).

use super::tables::{averages_table, hit_rates, per_bench_table, plot_refs, BenchTable};
use super::{all_betas, ReportInput};
use crate::eval::versions::Study;
use std::fmt::Write as _;

/// The per-benchmark tables (Figs. 5.6-5.10): title and cell.
const CH5_TABLES: [BenchTable; 4] = [
    ("MLP per benchmark (Fig. 5.6)", |d| format!("{:.2}", d.mlp)),
    ("CLP per benchmark (Fig. 5.7)", |d| format!("{:.2}", d.clp)),
    ("Execution-time reduction per benchmark (Fig. 5.10)", |d| {
        crate::eval::noise::fmt_pct_ci(d.time_reduction_pct, d.time_reduction_ci95)
    }),
    (
        "LLC hit rate / row-buffer hit rate (Figs. 5.8, 5.9)",
        hit_rates,
    ),
];

/// `## Chapter 5`: averages, per-benchmark tables, beta, plots.
pub(super) fn chapter(s: &mut String, inp: &ReportInput<'_>) {
    let _ = writeln!(
        s,
        "\n## Chapter 5: MLP and CLP of affine applications (`table5.2`)\n"
    );
    let _ = writeln!(
        s,
        "The eight versions of §5.6.1 and the step-aside variants; percentages are against Default on the same benchmark."
    );
    averages_table(s, Study::Ch5, inp.a5);
    for (title, cell) in CH5_TABLES {
        per_bench_table(s, inp, Study::Ch5, title, cell);
    }
    let betas = all_betas(&inp.output.records);
    let _ = writeln!(
        s,
        "\n**Beta chosen by Balanced (Fig. 5.11)**: {}",
        if betas.is_empty() {
            "no Balanced run reported beta values.".to_string()
        } else {
            let inside = betas.iter().filter(|b| (0.3..=0.8).contains(*b)).count();
            format!(
                "{} values, {} ({:.0}%) in [0.3, 0.8] (dissertation: an overwhelming majority).",
                betas.len(),
                inside,
                100.0 * inside as f64 / betas.len() as f64
            )
        }
    );
    super::ch4::variants(s, inp, Study::Ch5);
    super::aside::section(s, inp, Study::Ch5);
    super::aside::cannot_pay(s, inp, Study::Ch5);
    plot_refs(s, inp, &["ch5_mlp", "ch5_clp", "ch5_time", "ch5_beta"]);
}
