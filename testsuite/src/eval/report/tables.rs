//! The building blocks of the report's chapter sections: per-benchmark tables
//! (one column per version that ran, Figs. 4.4-4.12 and 5.6-5.10), the
//! per-version averages next to the dissertation's (§4.5.2, §5.6.2), and the
//! references to the drawn plots. A cell without a measurement says why
//! (`n/a`, `failed`) rather than showing a number.

use super::ReportInput;
use crate::eval::engine::{Record, Status};
use crate::eval::paper::{self, Measure};
use crate::eval::results::{bench_names, fmt_pct, main_cell, Derived, VersionAverage};
use crate::eval::versions::{self, Study};
use std::fmt::Write as _;

/// A per-benchmark table: its title and how a cell shows one result.
pub(super) type BenchTable = (&'static str, fn(&Derived) -> String);

fn paper_cell(version: &str, metric: &str, measure: Measure) -> String {
    match paper::average_for(version, metric, measure) {
        Some(p) => format!("{:+.2}% ({})", p.value, p.source),
        None => "—".into(),
    }
}

fn cell_for(r: Option<&Record>, d: Option<&Derived>, f: impl Fn(&Derived) -> String) -> String {
    match (r, d) {
        (_, Some(d)) => f(d),
        (Some(r), None) => match &r.status {
            Status::NotAvailable(_) => "n/a".into(),
            Status::Failed(_) => "failed".into(),
            Status::Ok => "—".into(),
        },
        (None, None) => "".into(),
    }
}

pub(super) fn per_bench_table(
    s: &mut String,
    inp: &ReportInput<'_>,
    study: Study,
    title: &str,
    f: impl Fn(&Derived) -> String,
) {
    let versions = versions::versions(study);
    let benches = bench_names(inp.output, study);
    let present: Vec<_> = versions
        .iter()
        .filter(|v| {
            inp.output
                .records
                .iter()
                .any(|r| r.study == study && r.version == v.id && r.point.is_none())
        })
        .collect();
    if benches.is_empty() || present.is_empty() {
        return;
    }
    let _ = writeln!(s, "\n**{title}**\n");
    let _ = write!(s, "| benchmark |");
    for v in &present {
        let _ = write!(s, " {} |", v.label);
    }
    let _ = write!(s, "\n|---|");
    for _ in &present {
        let _ = write!(s, "---:|");
    }
    s.push('\n');
    for b in &benches {
        let _ = write!(s, "| {b} |");
        for v in &present {
            let r = inp.output.records.iter().find(|r| {
                r.study == study && &r.bench == b && r.version == v.id && r.point.is_none()
            });
            let d = main_cell(inp.derived, study, b, v.id);
            let _ = write!(s, " {} |", cell_for(r, d, &f));
        }
        s.push('\n');
    }
}

pub(super) fn averages_table(s: &mut String, study: Study, avgs: &[VersionAverage]) {
    let metric2 = if study == Study::Ch4 { "blp" } else { "mlp" };
    let _ = writeln!(
        s,
        "\n| version | benchmarks | time reduction (ours) | time reduction (dissertation) | {m} gain (ours) | {m} gain (dissertation) | CLP gain (ours) | status |",
        m = metric2.to_uppercase()
    );
    let _ = writeln!(s, "|---|---:|---:|---|---:|---|---:|---|");
    for a in avgs {
        let gain = if study == Study::Ch4 {
            a.blp_gain_pct
        } else {
            a.mlp_gain_pct
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            a.label,
            a.n,
            crate::eval::noise::fmt_pct_ci(a.time_reduction_pct, a.time_reduction_ci95),
            paper_cell(&a.version, "time", Measure::TimeReductionPct),
            fmt_pct(gain),
            paper_cell(&a.version, metric2, Measure::GainPct),
            fmt_pct(a.clp_gain_pct),
            a.unavailable.clone().unwrap_or_else(|| if a.n > 0 {
                "ok".into()
            } else {
                "baseline".into()
            }),
        );
    }
}

pub(super) fn plot_refs(s: &mut String, inp: &ReportInput<'_>, names: &[&str]) {
    for n in names {
        if let Some(p) = inp.plots.drawn.iter().find(|p| p.name == *n) {
            let _ = writeln!(
                s,
                "\n![{t}]({pre}/{n}.svg)\n\n*{t}* ([PNG]({pre}/{n}.png))",
                t = p.title,
                pre = inp.plot_prefix,
                n = n
            );
        }
    }
}

/// A cell of the hit-rate tables (Figs. 4.11, 5.8, 5.9): LLC / row-buffer.
pub(super) fn hit_rates(d: &Derived) -> String {
    format!(
        "{:.1}% / {:.1}%",
        d.llc_hit_rate * 100.0,
        d.row_hit_rate * 100.0
    )
}
