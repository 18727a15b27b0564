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
use crate::eval::results::fmt_pct;
use crate::eval::versions::{Study, VARIANTS};
use std::fmt::Write as _;

/// Which rule of `weft_runtime::aside` a `step_aside` reason comes from,
/// by the fixed start the runtime gives its text.
fn rule_of(reason: &str) -> &'static str {
    use weft_runtime::aside::{AMORTISE_PREFIX, COVERAGE_PREFIX, ONE_IB_PREFIX};
    if reason.starts_with(AMORTISE_PREFIX) {
        "rule 1 (amortisation)"
    } else if reason.starts_with(COVERAGE_PREFIX) {
        "rule 2 (coverage)"
    } else if reason.starts_with(ONE_IB_PREFIX) {
        "rule 3 (one-IB windows)"
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
}

/// Summarises the `regions` of a run's `WEFT_STATS` JSON (`None` when the
/// record has no runtime statistics).
pub(super) fn summarise(r: &Record) -> Option<AsideSummary> {
    let rt = r.runtime.as_ref()?.extra.get("runtime")?;
    let regions = rt.get("regions")?.as_array()?;
    let mut out = AsideSummary {
        regions: regions.len(),
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
            let t = |v: &str| find(v, &r.bench).and_then(|d| d.time_reduction_pct);
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
        let f = |x: &Option<f64>| fmt_pct(*x);
        let why = if sum.regions == 0 {
            "no region reached the scheduler: what differs from Original is the code around the loops".to_string()
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
            "| {bench} | {var} (vs {printed}) | {} / {} | {} of {} | {why} |",
            f(tp),
            f(tv),
            sum.scheduled,
            sum.regions,
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

    #[test]
    fn a_record_without_runtime_statistics_has_no_summary() {
        let mut r = record(serde_json::json!({}));
        assert_eq!(summarise(&r).map(|s| s.regions), None);
        r.runtime = None;
        assert!(summarise(&r).is_none());
    }
}
