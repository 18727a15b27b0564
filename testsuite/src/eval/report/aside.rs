//! `**Where weft steps aside, and why**`: per benchmark, what the runtime's
//! step-aside rules (`weft_runtime::aside`, issue #34) decided in the run of
//! each `*-aside` variant, read from the region statistics the run reported
//! (`WEFT_STATS`, kept verbatim in the record). Issue #34 lets a version be
//! slower than its baseline only where the report names the benchmark as one
//! where the method cannot pay and shows the measured reason: these reasons
//! are that measurement, one row per benchmark, beside the printed
//! algorithm's and the variant's time reduction.

use super::ReportInput;
use crate::eval::engine::Record;
use crate::eval::results::{fmt_pct, Derived};
use crate::eval::versions::{self, Study, VARIANTS};
use std::fmt::Write as _;

/// Which rule of `weft_runtime::aside` a `step_aside` reason comes from,
/// by the fixed start the runtime gives its text.
fn rule_of(reason: &str) -> &'static str {
    use weft_runtime::aside::{
        AMORTISE_PREFIX, COVERAGE_PREFIX, ONE_IB_PREFIX, WINDOW_COVERAGE_PREFIX,
    };
    if reason.starts_with(AMORTISE_PREFIX) {
        "rule 1 (amortisation)"
    } else if reason.starts_with(COVERAGE_PREFIX) {
        "rule 2 (coverage)"
    } else if reason.starts_with(ONE_IB_PREFIX) {
        "rule 3 (one-IB windows)"
    } else if reason.starts_with(WINDOW_COVERAGE_PREFIX) {
        "rule 4 (window coverage)"
    } else {
        "other"
    }
}

/// One benchmark's regions in one run, summarised.
#[derive(Debug, Default, PartialEq)]
pub(super) struct AsideSummary {
    /// Regions the run reported.
    pub regions: usize,
    /// Regions that ran at least one iteration from a plan (a schedule, or
    /// after rule 2 the slabs in original order).
    pub scheduled: usize,
    /// Per rule: regions that stepped aside, and the first reason seen.
    pub rules: Vec<(&'static str, usize, String)>,
    /// Loops the run handed to `weft_parallel_for` (static chunks) instead
    /// of a region: the fall-back of nests proven parallel whose executions
    /// are too small to inspect.
    pub parallel_for_calls: u64,
}

/// Why a run of a variant had no region (nothing reached the scheduler).
fn no_region_reason(sum: &AsideSummary, baseline: &str) -> String {
    if sum.parallel_for_calls > 0 {
        format!(
            "no region reached the scheduler: the nests ran as static chunks (`weft_parallel_for`, \
             {} call(s)), so what differs from {baseline} is that schedule against {baseline}'s own \
             plan, and the code around the loops",
            sum.parallel_for_calls
        )
    } else {
        format!(
            "no region reached the scheduler: what differs from {baseline} is the code around the loops"
        )
    }
}

/// Summarises the `regions` of a run's `WEFT_STATS` JSON (`None` when the
/// record has no runtime statistics).
pub(super) fn summarise(r: &Record) -> Option<AsideSummary> {
    let rt = r.runtime.as_ref()?.extra.get("runtime")?;
    let regions = rt.get("regions")?.as_array()?;
    let mut out = AsideSummary {
        regions: regions.len(),
        parallel_for_calls: rt
            .get("parallel_for")
            .and_then(|p| p.get("calls"))
            .and_then(|c| c.as_u64())
            .unwrap_or(0),
        ..Default::default()
    };
    for reg in regions {
        let n = |k: &str| reg.get(k).and_then(|x| x.as_f64()).unwrap_or(0.0);
        if n("scheduled_iterations") > 0.0 {
            out.scheduled += 1;
        }
        if let Some(why) = reg.get("step_aside").and_then(|w| w.as_str()) {
            let rule = rule_of(why);
            match out.rules.iter_mut().find(|(r, _, _)| *r == rule) {
                Some(e) => e.1 += 1,
                None => out.rules.push((rule, 1, why.to_string())),
            }
        }
    }
    Some(out)
}

/// The section for `study`: one row per (variant, benchmark) that ran.
pub(super) fn section(s: &mut String, inp: &ReportInput<'_>, study: Study) {
    let find = |v: &str, b: &str| inp.main_derived(study, v, b);
    let mut rows = Vec::new();
    for &(var, printed) in VARIANTS.iter().filter(|(v, _)| v.ends_with("-aside")) {
        let mut recs: Vec<&Record> = inp
            .output
            .records
            .iter()
            .filter(|r| r.study == study && r.version == var && r.point.is_none())
            .collect();
        recs.sort_by(|a, b| a.bench.cmp(&b.bench));
        for r in recs {
            let Some(sum) = summarise(r) else { continue };
            let t = |v: &str| {
                let d = find(v, &r.bench);
                crate::eval::noise::fmt_pct_ci(
                    d.and_then(|d| d.time_reduction_pct),
                    d.and_then(|d| d.time_reduction_ci95),
                )
            };
            rows.push((var, printed, r.bench.clone(), sum, t(printed), t(var)));
        }
    }
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n**Where weft steps aside, and why** (the runtime's rules, `weft_runtime::aside`, as the variant's run reported them in `WEFT_STATS`; issue #34)\n"
    );
    let _ = writeln!(
        s,
        "| benchmark | variant | time reduction: printed / variant | regions run from a plan | stepped aside (first reason measured) |\n|---|---|---:|---:|---|"
    );
    for (var, printed, bench, sum, tp, tv) in &rows {
        let why = if sum.regions == 0 {
            // the variant's baseline (Original, Default), by the version table
            let baseline = versions::find(study, var)
                .and_then(|v| versions::find(study, v.baseline))
                .map_or("its baseline", |b| b.label);
            no_region_reason(sum, baseline)
        } else if sum.rules.is_empty() {
            "none: the schedule ran as printed".to_string()
        } else {
            sum.rules
                .iter()
                .map(|(rule, n, first)| format!("{rule}: {n} region(s); \"{first}\""))
                .collect::<Vec<_>>()
                .join("<br>")
        };
        let _ = writeln!(
            s,
            "| {bench} | {var} (vs {printed}) | {tp} / {tv} | {} of {} | {why} |",
            sum.scheduled, sum.regions,
        );
    }
}

/// A parallelism metric's name and how to read it from a [`Derived`].
pub(super) type Metric = (&'static str, fn(&Derived) -> f64);

/// Why a printed version that ran slower than its baseline on a benchmark
/// cannot pay there, from the measurements in `d` (the version), `base` (its
/// baseline: Original, Default) and `oracle` (the study's oracle, BLP Ideal or
/// Ideal: an upper bound on what a schedule keeping the data layout gains;
/// `metric` names the parallelism the study counts, `par` reads it).
pub(super) fn why_slower(
    d: &Derived,
    base: &Derived,
    oracle: Option<&Derived>,
    (metric, par): Metric,
) -> String {
    let insp = d.sim_overhead_pct.unwrap_or(0.0);
    let head = oracle.and_then(|o| o.time_reduction_pct);
    let excl = d.time_reduction_excl_inspection_pct;
    let locality = format!(
        "LLC hit rate {:.1}% -> {:.1}%, row-buffer hits {:.1}% -> {:.1}%, {metric} {:.2} -> {:.2}, \
         CLP (LLC banks busy at once) {:.2} -> {:.2}",
        100.0 * base.llc_hit_rate,
        100.0 * d.llc_hit_rate,
        100.0 * base.row_hit_rate,
        100.0 * d.row_hit_rate,
        par(base),
        par(d),
        base.clp,
        d.clp,
    );
    if let (Some(t), Some(ci)) = (d.time_reduction_pct, d.time_reduction_ci95) {
        if !crate::eval::noise::significant(t, Some(ci)) {
            let over = match d.replica_time_reductions.len() {
                0 => "of the two sampled simulations".to_string(),
                n => format!("over {n} perturbed replicas"),
            };
            return format!(
                "no measurable loss: {t:+.1}% lies within the simulation's noise (95% interval \
                 ±{ci:.1} {over})"
            );
        }
    }
    match (head, excl) {
        (Some(h), _) if insp > 0.0 && insp >= h.max(0.0) => format!(
            "cannot pay at this input size: the inspection alone is {insp:.1}% of the run, \
             more than the oracle's whole gain ({h:+.1}%)"
        ),
        (_, Some(e)) if e < 0.0 => format!(
            "the schedule itself is slower ({e:+.1}% with the inspection left out): {locality}"
        ),
        (_, Some(e)) => format!(
            "the inspection ({insp:.1}% of the run) is not amortised: the schedule gains \
             {e:+.1}% with it left out"
        ),
        (_, None) => format!("slower without inspection: {locality}"),
    }
}

/// `**Where the printed algorithm cannot pay, and why**`: every benchmark on
/// which a printed version (BLP Optimized; MLP-first, CLP-first, Balanced)
/// ran slower than its baseline, with the measured reason ([`why_slower`]).
/// Issue #34 allows such a loss only where the report names the benchmark
/// and shows the reason; the `*-aside` variants are weft's answer.
pub(super) fn cannot_pay(s: &mut String, inp: &ReportInput<'_>, study: Study) {
    let blp: Metric = ("BLP", |d| d.blp);
    let mlp: Metric = ("MLP", |d| d.mlp);
    let (printed, base, oracle, metric): (&[&str], _, _, Metric) = match study {
        Study::Ch4 => (&["blp-opt"], "original", "blp-ideal", blp),
        Study::Ch5 => (
            &["mlp-first", "clp-first", "balanced"],
            "default",
            "ideal",
            mlp,
        ),
    };
    let mut rows = Vec::new();
    for &v in printed {
        let mut ds: Vec<&Derived> = inp
            .derived
            .iter()
            .filter(|d| d.study == study && d.version == v && d.point.is_none())
            .filter(|d| d.time_reduction_pct.is_some_and(|t| t < 0.0))
            .collect();
        ds.sort_by(|a, b| a.bench.cmp(&b.bench));
        for d in ds {
            let Some(b) = inp.main_derived(study, base, &d.bench) else {
                continue;
            };
            let o = inp.main_derived(study, oracle, &d.bench);
            rows.push((
                d,
                o.and_then(|o| o.time_reduction_pct),
                why_slower(d, b, o, metric),
            ));
        }
    }
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n**Where the printed algorithm cannot pay, and why** (every benchmark on which it ran slower than {base}; the oracle is {oracle}; issue #34)\n"
    );
    let _ = writeln!(
        s,
        "| benchmark | version | time reduction | inspection (simulated) | without inspection | oracle | measured reason |\n|---|---|---:|---:|---:|---:|---|"
    );
    for (d, o, why) in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {why} |",
            d.bench,
            d.version,
            crate::eval::noise::fmt_pct_ci(d.time_reduction_pct, d.time_reduction_ci95),
            d.sim_overhead_pct
                .map_or("-".to_string(), |x| format!("{x:.1}%")),
            fmt_pct(d.time_reduction_excl_inspection_pct),
            fmt_pct(o),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::backend::RuntimeStats;

    fn record(runtime: serde_json::Value) -> Record {
        let mut extra = std::collections::BTreeMap::new();
        extra.insert("runtime".to_string(), runtime);
        Record {
            study: Study::Ch4,
            bench: "moldyn".into(),
            paper_name: None,
            version: "blp-aside".into(),
            label: "BLP Optimized, stepping aside".into(),
            point: None,
            machine: "table4.2".into(),
            status: crate::eval::engine::Status::Ok,
            checksum: None,
            records: None,
            stats: None,
            runtime: Some(RuntimeStats {
                extra,
                ..Default::default()
            }),
            sim_key: None,
        }
    }

    #[test]
    fn regions_are_counted_by_rule_with_their_first_reason() {
        let r = record(serde_json::json!({"regions": [
            {"scheduled_iterations": 0, "step_aside": "not inspected: 2 execution(s) so far x 0.14"},
            {"scheduled_iterations": 0, "step_aside": "not inspected: 5 execution(s) so far x 0.14"},
            {"scheduled_iterations": 640, "step_aside": null},
            {"scheduled_iterations": 0, "step_aside": "original order kept: schedule covers 40.1 of 64"},
        ]}));
        let s = summarise(&r).unwrap();
        assert_eq!((s.regions, s.scheduled), (4, 1));
        assert_eq!(s.parallel_for_calls, 0);
        assert_eq!(
            s.rules,
            vec![
                (
                    "rule 1 (amortisation)",
                    2,
                    "not inspected: 2 execution(s) so far x 0.14".to_string()
                ),
                (
                    "rule 2 (coverage)",
                    1,
                    "original order kept: schedule covers 40.1 of 64".to_string()
                ),
            ]
        );
    }

    /// A run without regions names its static-chunk loops when it had any.
    #[test]
    fn runs_without_regions_name_their_static_chunks() {
        let r = record(serde_json::json!({"regions": [], "parallel_for": {"calls": 16}}));
        let s = summarise(&r).unwrap();
        assert_eq!((s.regions, s.parallel_for_calls), (0, 16));
        let w = no_region_reason(&s, "Default");
        assert!(
            w.contains("static chunks (`weft_parallel_for`, 16 call(s))"),
            "{w}"
        );
        assert!(w.contains("against Default's own plan"), "{w}");
        let none = summarise(&record(serde_json::json!({"regions": []}))).unwrap();
        assert_eq!(
            no_region_reason(&none, "Original"),
            "no region reached the scheduler: what differs from Original is the code around the loops"
        );
    }

    fn derived(version: &str, t: f64, insp: Option<f64>, excl: Option<f64>) -> Derived {
        Derived {
            study: Study::Ch4,
            bench: "hpcg".into(),
            version: version.into(),
            point: None,
            cycles: 1000,
            blp: 8.0,
            mlp: 8.0,
            clp: 3.0,
            llc_hit_rate: 0.9,
            row_hit_rate: 0.8,
            time_reduction_pct: Some(t),
            blp_gain_pct: None,
            mlp_gain_pct: None,
            clp_gain_pct: None,
            coverage_pct: None,
            overhead_pct: None,
            sim_overhead_pct: insp,
            time_reduction_excl_inspection_pct: excl,
            dram_requests: 0,
            useless_prefetches: 0,
            records: 0,
            replica_time_reductions: Vec::new(),
            time_reduction_ci95: None,
        }
    }

    /// The three measured reasons, hand-picked: an inspection of 6.4% against
    /// an oracle that gains 1.0% cannot pay; with the oracle at 9% the same
    /// schedule, 2.0% slower with the inspection left out, is itself slower
    /// (its locality quoted); one that gains 3% without its inspection is not
    /// amortised.
    #[test]
    fn why_a_printed_version_is_slower() {
        let base = derived("original", 0.0, None, None);
        let mut opt = derived("blp-opt", -3.6, Some(6.4), Some(-2.0));
        opt.llc_hit_rate = 0.75;
        opt.blp = 6.5;
        opt.clp = 2.4;
        let blp: Metric = ("BLP", |d| d.blp);
        let oracle = |t| derived("blp-ideal", t, None, None);
        let w = why_slower(&opt, &base, Some(&oracle(1.0)), blp);
        assert!(w.starts_with("cannot pay at this input size"), "{w}");
        assert!(w.contains("6.4%") && w.contains("+1.0%"), "{w}");
        // An oracle that loses time bounds the gain at 0: still cannot pay.
        let w = why_slower(&opt, &base, Some(&oracle(-2.0)), blp);
        assert!(w.starts_with("cannot pay"), "{w}");
        let w = why_slower(&opt, &base, Some(&oracle(9.0)), blp);
        assert!(w.starts_with("the schedule itself is slower (-2.0%"), "{w}");
        assert!(
            w.contains("LLC hit rate 90.0% -> 75.0%") && w.contains("BLP 8.00 -> 6.50"),
            "{w}"
        );
        assert!(
            w.contains("CLP (LLC banks busy at once) 3.00 -> 2.40"),
            "{w}"
        );
        let amort = derived("blp-opt", -1.0, Some(4.0), Some(3.0));
        let w = why_slower(&amort, &base, Some(&oracle(9.0)), blp);
        assert!(
            w.starts_with("the inspection (4.0% of the run) is not amortised"),
            "{w}"
        );
        // No inspection and no oracle: the locality is the reason.
        let plain = derived("balanced", -5.4, None, Some(-5.4));
        let w = why_slower(&plain, &base, None, blp);
        assert!(w.starts_with("the schedule itself is slower (-5.4%"), "{w}");
        // Inside the replicas' interval the loss is noise, whatever else.
        let mut noisy = derived("balanced", -2.3, None, Some(-2.3));
        noisy.replica_time_reductions = vec![-0.3, -2.6, -1.0];
        noisy.time_reduction_ci95 = Some(2.9);
        let w = why_slower(&noisy, &base, None, blp);
        assert!(w.starts_with("no measurable loss: -2.3%"), "{w}");
        assert!(w.contains("±2.9 over 3 perturbed replicas"), "{w}");
        // Outside it, the measured reason as before.
        noisy.time_reduction_ci95 = Some(1.0);
        let w = why_slower(&noisy, &base, None, blp);
        assert!(w.starts_with("the schedule itself is slower (-2.3%"), "{w}");
    }

    #[test]
    fn a_record_without_runtime_statistics_has_no_summary() {
        let mut r = record(serde_json::json!({}));
        assert_eq!(summarise(&r).map(|s| s.regions), None);
        r.runtime = None;
        assert!(summarise(&r).is_none());
    }
}
