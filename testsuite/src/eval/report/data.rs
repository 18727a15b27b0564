//! The machine-readable outputs of `weft eval`: every run as CSV
//! (`records.csv`), the derived changes as CSV (`derived.csv`), and the JSON
//! files (`records.json`, `summary.json`, `disagreements.json`, `paper.json`).
//! `records.json` is the engine's whole output; everything else, the Markdown
//! report included, is computed from it.

use crate::eval::engine::{EngineOutput, Record, Status, SweepPoint};
use crate::eval::honesty::Disagreement;
use crate::eval::paper;
use crate::eval::results::{Derived, Summary};
use crate::eval::Result;
use std::path::{Path, PathBuf};

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Appends one CSV line.
fn push_line(s: &mut String, fields: &[String]) {
    let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
    s.push_str(&line.join(","));
    s.push('\n');
}

/// The `sweep` column: the sweep's id, empty for the main matrix.
fn sweep_of(p: Option<&SweepPoint>) -> String {
    p.map(|p| p.sweep.clone()).unwrap_or_default()
}

/// The `value` column: the sweep point's value, empty for the main matrix.
fn value_of(p: Option<&SweepPoint>) -> String {
    p.map(|p| p.value.to_string()).unwrap_or_default()
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
            sweep_of(r.point.as_ref()),
            value_of(r.point.as_ref()),
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
        push_line(&mut s, &fields);
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
            sweep_of(d.point.as_ref()),
            value_of(d.point.as_ref()),
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
        push_line(&mut s, &fields);
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
