//! Writers: every run as JSON and CSV, the averages, `summary.json`, and the
//! Markdown report (`results.md`, also published as `docs/results.md`) that puts
//! our numbers next to the dissertation's ([`super::paper`]).
//!
//! The report is generated only from the saved records, so it can be rebuilt
//! without re-running anything; every table cell that has no measurement says
//! why ("not available: ...", "failed: ...") instead of showing a number.

use super::engine::{EngineOutput, Record, Status};
use super::honesty::Disagreement;
use super::paper::{self, Measure};
use super::plots::PlotSet;
use super::results::{fmt_pct, main_blp_opt, mean, Derived, Summary, VersionAverage};
use super::versions::{self, Study};
use super::{EvalOptions, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Every beta Balanced chose, over all ch. 5 runs of the main study.
pub fn all_betas(records: &[Record]) -> Vec<f64> {
    records
        .iter()
        .filter(|r| r.study == Study::Ch5 && r.version == "balanced" && r.point.is_none())
        .filter_map(|r| r.runtime.as_ref())
        .flat_map(|x| x.betas.iter().copied())
        .collect()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.6}")).unwrap_or_default()
}

/// Records as CSV (one line per cell).
pub fn records_csv(records: &[Record]) -> String {
    let mut s = String::from(
        "study,bench,version,sweep,value,machine,status,why,checksum,records,cycles,blp,mlp,clp,llc_hit_rate,row_hit_rate,avg_mem_latency,coverage_pct,overhead_pct\n",
    );
    for r in records {
        let (status, why) = match &r.status {
            Status::Ok => ("ok", String::new()),
            Status::NotAvailable(w) => ("not_available", w.clone()),
            Status::Failed(w) => ("failed", w.clone()),
        };
        let st = r.stats.as_ref();
        let rt = r.runtime.as_ref();
        let fields = [
            r.study.name().to_string(),
            r.bench.clone(),
            r.version.clone(),
            r.point
                .as_ref()
                .map(|p| p.sweep.clone())
                .unwrap_or_default(),
            r.point
                .as_ref()
                .map(|p| p.value.to_string())
                .unwrap_or_default(),
            r.machine.clone(),
            status.to_string(),
            why,
            r.checksum.clone().unwrap_or_default(),
            r.records.map(|x| x.to_string()).unwrap_or_default(),
            st.map(|s| s.cycles.to_string()).unwrap_or_default(),
            opt(st.map(|s| s.blp)),
            opt(st.map(|s| s.mlp)),
            opt(st.map(|s| s.clp)),
            opt(st.map(|s| s.llc_hit_rate)),
            opt(st.map(|s| s.row_hit_rate)),
            opt(st.map(|s| s.avg_mem_latency)),
            opt(rt.and_then(|x| x.coverage_pct)),
            opt(rt.and_then(|x| x.overhead_pct)),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        s.push_str(&line.join(","));
        s.push('\n');
    }
    s
}

/// Derived changes as CSV.
pub fn derived_csv(derived: &[Derived]) -> String {
    let mut s = String::from(
        "study,bench,version,sweep,value,cycles,time_reduction_pct,blp,blp_gain_pct,mlp,mlp_gain_pct,clp,clp_gain_pct,llc_hit_rate,row_hit_rate,coverage_pct,overhead_pct\n",
    );
    for d in derived {
        let fields = [
            d.study.name().to_string(),
            d.bench.clone(),
            d.version.clone(),
            d.point
                .as_ref()
                .map(|p| p.sweep.clone())
                .unwrap_or_default(),
            d.point
                .as_ref()
                .map(|p| p.value.to_string())
                .unwrap_or_default(),
            d.cycles.to_string(),
            opt(d.time_reduction_pct),
            opt(Some(d.blp)),
            opt(d.blp_gain_pct),
            opt(Some(d.mlp)),
            opt(d.mlp_gain_pct),
            opt(Some(d.clp)),
            opt(d.clp_gain_pct),
            opt(Some(d.llc_hit_rate)),
            opt(Some(d.row_hit_rate)),
            opt(d.coverage_pct),
            opt(d.overhead_pct),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        s.push_str(&line.join(","));
        s.push('\n');
    }
    s
}

/// Writes `records.json`, `records.csv`, `derived.csv`, `summary.json`,
/// `disagreements.json` and `paper.json` under `out`.
pub fn write_data(
    out: &Path,
    output: &EngineOutput,
    derived: &[Derived],
    summary: &Summary,
    disagreements: &[Disagreement],
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut put = |name: &str, text: String| -> Result<()> {
        let p = out.join(name);
        std::fs::write(&p, text)?;
        files.push(p);
        Ok(())
    };
    put("records.json", serde_json::to_string_pretty(output)?)?;
    put("records.csv", records_csv(&output.records))?;
    put("derived.csv", derived_csv(derived))?;
    put("summary.json", serde_json::to_string_pretty(summary)?)?;
    put(
        "disagreements.json",
        serde_json::to_string_pretty(disagreements)?,
    )?;
    put("paper.json", serde_json::to_string_pretty(paper::PAPER)?)?;
    Ok(files)
}

/// Everything the Markdown report is made from.
pub struct ReportInput<'a> {
    /// Options of the run.
    pub opts: &'a EvalOptions,
    /// Engine output.
    pub output: &'a EngineOutput,
    /// Derived changes.
    pub derived: &'a [Derived],
    /// Ch. 4 averages.
    pub a4: &'a [VersionAverage],
    /// Ch. 5 averages.
    pub a5: &'a [VersionAverage],
    /// Summary.
    pub summary: &'a Summary,
    /// Contradictions.
    pub disagreements: &'a [Disagreement],
    /// Plots drawn.
    pub plots: &'a PlotSet,
    /// Path prefix of the plots relative to the report.
    pub plot_prefix: &'a str,
}

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

fn per_bench_table(
    s: &mut String,
    inp: &ReportInput<'_>,
    study: Study,
    title: &str,
    f: impl Fn(&Derived) -> String,
) {
    let versions = versions::versions(study);
    let benches: Vec<String> = inp
        .output
        .benchmarks
        .get(study.name())
        .map(|b| b.iter().map(|x| x.name.clone()).collect())
        .unwrap_or_default();
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
            let d = inp.derived.iter().find(|d| {
                d.study == study && &d.bench == b && d.version == v.id && d.point.is_none()
            });
            let _ = write!(s, " {} |", cell_for(r, d, &f));
        }
        s.push('\n');
    }
}

fn averages_table(s: &mut String, study: Study, avgs: &[VersionAverage]) {
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
            fmt_pct(a.time_reduction_pct),
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

fn plot_refs(s: &mut String, inp: &ReportInput<'_>, names: &[&str]) {
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

/// The Markdown report.
pub fn markdown(inp: &ReportInput<'_>) -> String {
    let sm = inp.summary;
    let mut s = String::new();
    let _ = writeln!(s, "# weft evaluation results\n");
    let _ = writeln!(
        s,
        "Generated by `weft eval{}` ({} input size, {} parallel jobs, {:.0} s). Every number below comes from `records.json` in the output directory; regenerate with the same command. The dissertation's numbers are from `shared/seeds/001_828adc0306446d60.txt` (section and figure given per number).\n",
        if inp.opts.size == super::backend::Size::Full { "" } else { " --quick" },
        match inp.opts.size {
            super::backend::Size::Tiny => "tiny",
            super::backend::Size::Quick => "quick",
            super::backend::Size::Full => "full",
        },
        inp.opts.jobs,
        sm.seconds
    );
    if inp.opts.input_scale != 1 {
        let _ = writeln!(
            s,
            "Inputs of the main matrix scaled {}x (`--input-scale`): benchmarks with a size knob run {} times the grid points of the inputs listed below; the others are not available.\n",
            inp.opts.input_scale, inp.opts.input_scale
        );
    }
    if inp.opts.sweeps && inp.opts.sweep_size != inp.opts.size {
        let _ = writeln!(
            s,
            "The sensitivity sweeps ran on the {} inputs (to keep the full run within its time budget), except `input-main`, which scales the main matrix's inputs.\n",
            match inp.opts.sweep_size {
                super::backend::Size::Tiny => "tiny",
                super::backend::Size::Quick => "quick",
                super::backend::Size::Full => "full",
            }
        );
    }
    let _ = writeln!(s, "## Summary\n");
    let _ = writeln!(s, "| study | metric | weft | dissertation | source |");
    let _ = writeln!(s, "|---|---|---:|---:|---|");
    let rows = [
        (
            "ch. 4",
            "BLP gain, BLP Optimized vs Original",
            sm.ch4.blp_gain_pct,
            sm.ch4.paper.blp_gain_pct,
            "§4.6, Fig. 4.10",
        ),
        (
            "ch. 4",
            "execution-time reduction, BLP Optimized",
            sm.ch4.time_reduction_pct,
            sm.ch4.paper.time_reduction_pct,
            "§4.5.2, Fig. 4.12",
        ),
        (
            "ch. 4",
            "the same, inspection cycles left out (steady state; the dissertation amortises one inspection over long timing loops)",
            sm.ch4.time_reduction_excl_inspection_pct,
            sm.ch4.paper.time_reduction_pct,
            "§4.5.2, Fig. 4.12",
        ),
        (
            "ch. 5",
            "execution-time reduction, MLP-first vs Default",
            sm.ch5.mlp_first_pct,
            sm.ch5.paper.mlp_first_pct,
            "§5.6.2, Fig. 5.10",
        ),
        (
            "ch. 5",
            "execution-time reduction, CLP-first",
            sm.ch5.clp_first_pct,
            sm.ch5.paper.clp_first_pct,
            "§5.6.2, Fig. 5.10",
        ),
        (
            "ch. 5",
            "execution-time reduction, Balanced",
            sm.ch5.balanced_pct,
            sm.ch5.paper.balanced_pct,
            "§5.6.2, Fig. 5.10",
        ),
    ];
    for (st, m, ours, theirs, src) in rows {
        let _ = writeln!(
            s,
            "| {st} | {m} | {} | {theirs:+.2}% | {src} |",
            fmt_pct(ours)
        );
    }
    let _ = writeln!(
        s,
        "\nAverages are over {} (ch. 4) and {} (ch. 5) benchmarks; the dissertation averages over 8 and 12 applications on gem5 with inputs of 0.2-1.4 GB. `n/a` means no measurement exists (see *Not available*).",
        sm.ch4.benchmarks, sm.ch5.benchmarks
    );
    let scaled: Vec<(i64, SweepMeans)> = versions::sweeps()
        .into_iter()
        .filter(|sw| sw.id == versions::INPUT_MAIN)
        .flat_map(|sw| sw.values)
        .filter_map(|v| sweep_means(inp.derived, versions::INPUT_MAIN, v).map(|m| (v, m)))
        .collect();
    if scaled.len() > 1 {
        let _ = writeln!(
            s,
            "\nThe dissertation's inputs are 0.2-1.4 GB; ours are a few MB. How ch. 4 moves with input size, on the {} benchmarks whose input is generated (sweep `input-main`, the main matrix's inputs scaled):\n\n| inputs | benchmarks | BLP gain | time reduction | without inspection |\n|---|---:|---:|---:|---:|",
            scaled.iter().map(|(_, m)| m.benchmarks).max().unwrap_or(0)
        );
        for (v, m) in &scaled {
            let _ = writeln!(
                s,
                "| {v}x | {} | {} | {} | {} |",
                m.benchmarks,
                fmt_pct(m.blp_gain),
                fmt_pct(m.time_reduction),
                fmt_pct(m.excl_inspection)
            );
        }
    }
    let _ = writeln!(
        s,
        "\nHonesty checks: checksums {} ({} runs compared against their baseline; a mismatch aborts the evaluation). Cells: {} ok, {} not available, {} failed. Claims of the dissertation our numbers contradict: {} (listed below).",
        if sm.checksums_match { "match" } else { "were not checked (no run completed)" },
        sm.checksums_checked,
        sm.cells_ok,
        sm.cells_not_available,
        sm.cells_failed,
        sm.disagreements
    );

    // Benchmarks.
    let _ = writeln!(s, "\n## Benchmarks\n");
    for study in [Study::Ch4, Study::Ch5] {
        if let Some(bs) = inp.output.benchmarks.get(study.name()) {
            for b in bs {
                let _ = writeln!(
                    s,
                    "- {} `{}`{}: {}",
                    study,
                    b.name,
                    b.paper_name
                        .as_ref()
                        .map(|p| format!(" ({p})"))
                        .unwrap_or_default(),
                    b.input
                );
            }
        }
    }

    // Chapter 4.
    let _ = writeln!(
        s,
        "\n## Chapter 4: BLP of irregular applications (`table4.2`)\n"
    );
    let _ = writeln!(s, "Versions: Original (FR-FCFS alone), BLP Optimized (inspector/executor, Algorithm 4), MLP Ideal and BLP Ideal (simulator oracles, §4.3), PAR-BS and TCM alone and with BLP Optimized, GPART-style data reordering (§4.5.5). Percentages are against Original on the same benchmark.");
    averages_table(&mut s, Study::Ch4, inp.a4);
    per_bench_table(
        &mut s,
        inp,
        Study::Ch4,
        "BLP per benchmark (Figs. 4.4, 4.10)",
        |d| format!("{:.2}", d.blp),
    );
    per_bench_table(
        &mut s,
        inp,
        Study::Ch4,
        "Execution-time reduction per benchmark (Figs. 4.5, 4.12, 4.17b)",
        |d| fmt_pct(d.time_reduction_pct),
    );
    per_bench_table(
        &mut s,
        inp,
        Study::Ch4,
        "LLC hit rate / row-buffer hit rate (Fig. 4.11)",
        |d| {
            format!(
                "{:.1}% / {:.1}%",
                d.llc_hit_rate * 100.0,
                d.row_hit_rate * 100.0
            )
        },
    );
    // Coverage and overhead.
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
    plot_refs(
        &mut s,
        inp,
        &["ch4_blp_over_time", "ch4_blp", "ch4_time", "ch4_overhead"],
    );

    // Sweeps.
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
    plot_refs(&mut s, inp, &["ch4_sensitivity"]);

    // Chapter 5.
    let _ = writeln!(
        s,
        "\n## Chapter 5: MLP and CLP of affine applications (`table5.2`)\n"
    );
    let _ = writeln!(
        s,
        "The eight versions of §5.6.1; percentages are against Default on the same benchmark."
    );
    averages_table(&mut s, Study::Ch5, inp.a5);
    per_bench_table(
        &mut s,
        inp,
        Study::Ch5,
        "MLP per benchmark (Fig. 5.6)",
        |d| format!("{:.2}", d.mlp),
    );
    per_bench_table(
        &mut s,
        inp,
        Study::Ch5,
        "CLP per benchmark (Fig. 5.7)",
        |d| format!("{:.2}", d.clp),
    );
    per_bench_table(
        &mut s,
        inp,
        Study::Ch5,
        "Execution-time reduction per benchmark (Fig. 5.10)",
        |d| fmt_pct(d.time_reduction_pct),
    );
    per_bench_table(
        &mut s,
        inp,
        Study::Ch5,
        "LLC hit rate / row-buffer hit rate (Figs. 5.8, 5.9)",
        |d| {
            format!(
                "{:.1}% / {:.1}%",
                d.llc_hit_rate * 100.0,
                d.row_hit_rate * 100.0
            )
        },
    );
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
    plot_refs(&mut s, inp, &["ch5_mlp", "ch5_clp", "ch5_time", "ch5_beta"]);

    // Disagreements.
    let _ = writeln!(s, "\n## Where our numbers disagree with the dissertation\n");
    if inp.disagreements.is_empty() {
        let _ = writeln!(s, "None of the checked claims is contradicted by the runs that completed (claims about versions that did not run cannot be checked; see below).");
    } else {
        for d in inp.disagreements {
            let _ = writeln!(
                s,
                "- **{}{}**: {} ({}). Ours: {}. Analysis: {}.",
                d.study,
                d.bench
                    .as_ref()
                    .map(|b| format!(" {b}"))
                    .unwrap_or_default(),
                d.claim,
                d.source,
                d.ours,
                d.analysis
            );
        }
    }

    // Not available.
    let _ = writeln!(s, "\n## Not available\n");
    if sm.not_available.is_empty() {
        let _ = writeln!(s, "Every version of the matrix ran.");
    } else {
        for w in &sm.not_available {
            let _ = writeln!(s, "- {w}");
        }
    }
    let failed: Vec<&Record> = inp
        .output
        .records
        .iter()
        .filter(|r| matches!(r.status, Status::Failed(_)))
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(s, "\n## Failed runs\n");
        for r in failed {
            if let Status::Failed(w) = &r.status {
                let _ = writeln!(s, "- {} `{}` {}: {}", r.study, r.bench, r.version, w);
            }
        }
    }
    if !inp.plots.skipped.is_empty() {
        let _ = writeln!(s, "\n## Plots not drawn\n");
        for (n, w) in &inp.plots.skipped {
            let _ = writeln!(s, "- `{n}`: {w}");
        }
    }

    // Published numbers.
    let _ = writeln!(s, "\n## The dissertation's numbers used for comparison\n");
    let _ = writeln!(s, "| chapter | version | benchmark | metric | value | source | note |\n|---|---|---|---|---:|---|---|");
    for p in paper::PAPER {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} {} | {} | {} |",
            p.chapter,
            p.version.unwrap_or("—"),
            p.benchmark.unwrap_or("average"),
            p.metric,
            p.value,
            p.unit,
            p.source,
            p.note
        );
    }
    let _ = writeln!(s, "\n## Method notes\n");
    for n in &inp.output.notes {
        let _ = writeln!(s, "- {n}");
    }
    let machines: Vec<String> = {
        let mut m: Vec<String> = inp
            .output
            .records
            .iter()
            .filter(|r| r.point.is_none())
            .map(|r| format!("{} `{}`", r.study, r.machine))
            .collect();
        m.sort();
        m.dedup();
        m
    };
    if !machines.is_empty() {
        let _ = writeln!(s, "- Machines: {}.", machines.join(", "));
    }
    let _ = writeln!(s, "- Time reduction = (1 - cycles / baseline cycles) x 100; gains = (metric / baseline metric - 1) x 100; averages are arithmetic means of per-benchmark percentages.");
    let _ = writeln!(s, "- FR-FCFS is the default scheduler of both machines: \"FR-FCFS alone\" is Original (ch. 4) / Default (ch. 5), and \"FR-FCFS + BLP Optimized\" is BLP Optimized; they share jobs rather than being listed twice.");
    let _ = writeln!(s, "- GPART: the harness renumbers the rows/vertices of a benchmark's graph, matrix or mesh input by a greedy BFS clustering (see `testsuite/src/eval/reorder.rs`): an input file (`.mtx`, `.edges`, `.graph`, Spark98 `.pack`) is rewritten; a program that generates its input writes the graph of its data (`--dump-graph`) and renumbers its own arrays by the computed order (`--permute`); the kernels are unchanged. Its results come out in the new element order, so its bit-exact checksum cannot equal Original's; GPART runs are counted as unchecked ({} here) rather than compared. Where the numbering is part of the algorithm, GPART also changes the work, not only the layout: `stun` factorises P·A·Pᵀ, whose fill differs (at the quick size a random numbering doubles it; BFS clustering lowers it, so the GPART run does less work), `gauss_seidel`'s greedy colouring and so its sweeps follow the numbering, and `carey`'s random draws hash the person number, so it simulates another, statistically equivalent epidemic.", inp.output.checksums.unchecked_reordered);
    let _ = writeln!(
        s,
        "- Jobs: {}.",
        inp.output
            .job_counts
            .iter()
            .map(|(k, (run, hit))| format!("{k} {run} run, {hit} cached"))
            .collect::<Vec<_>>()
            .join("; ")
    );
    s
}
/// Averages of BLP Optimized's changes at one sweep point.
struct SweepMeans {
    benchmarks: usize,
    blp_gain: Option<f64>,
    time_reduction: Option<f64>,
    excl_inspection: Option<f64>,
}

/// BLP Optimized's average changes at point `value` of sweep `id` (`None`
/// when no benchmark completed there).
fn sweep_means(derived: &[Derived], id: &str, value: i64) -> Option<SweepMeans> {
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
