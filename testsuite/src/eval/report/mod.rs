//! Writers: every run as JSON and CSV, the averages, `summary.json` (`data`),
//! and the Markdown report (`results.md`, also published as `docs/results.md`)
//! that puts our numbers next to the dissertation's ([`super::paper`]), one
//! module per part of it: the opening and summary (`summary`), chapter 4
//! (§4.3-§4.5, `ch4`) and chapter 5 (§5.6, `ch5`) built from the tables of
//! `tables`, and the closing sections (`appendix`).
//!
//! The report is generated only from the saved records, so it can be rebuilt
//! without re-running anything; every table cell that has no measurement says
//! why ("not available: ...", "failed: ...") instead of showing a number.

mod appendix;
mod aside;
mod calibration;
mod ch4;
mod ch5;
mod data;
mod summary;
mod tables;

pub use data::{derived_csv, records_csv, write_data};

use super::engine::{EngineOutput, Record};
use super::honesty::Disagreement;
use super::plots::PlotSet;
use super::results::{Derived, Summary, VersionAverage};
use super::versions::Study;
use super::EvalOptions;

/// Every beta Balanced chose, over all ch. 5 runs of the main study.
pub fn all_betas(records: &[Record]) -> Vec<f64> {
    records
        .iter()
        .filter(|r| r.study == Study::Ch5 && r.version == "balanced" && r.point.is_none())
        .filter_map(|r| r.runtime.as_ref())
        .flat_map(|x| x.betas.iter().copied())
        .collect()
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
    /// The GPU studies' output, if any ran (its section follows chapter 5).
    pub gpu: Option<&'a crate::eval::gpu_engine::GpuOutput>,
}

impl<'a> ReportInput<'a> {
    /// The derived row of `version` on `bench` in `study` at the main
    /// matrix's point (not a sweep point).
    pub(super) fn main_derived(
        &self,
        study: Study,
        version: &str,
        bench: &str,
    ) -> Option<&'a Derived> {
        self.derived.iter().find(|d| {
            d.study == study && d.version == version && d.bench == bench && d.point.is_none()
        })
    }
}

/// The Markdown report: its sections in order.
pub fn markdown(inp: &ReportInput<'_>) -> String {
    let mut s = String::new();
    summary::header(&mut s, inp);
    summary::summary(&mut s, inp);
    summary::benchmarks(&mut s, inp);
    ch4::chapter(&mut s, inp);
    ch5::chapter(&mut s, inp);
    if let Some(g) = inp.gpu {
        // `<out>/results.md` links the GPU plots where `gpu_report` wrote them;
        // a published report has every plot copied under its own prefix.
        let prefix = if inp.plot_prefix == "plots" {
            "gpu/plots"
        } else {
            inp.plot_prefix
        };
        s.push('\n');
        s.push_str(&crate::eval::gpu_report::section(g, prefix));
    }
    appendix::disagreements(&mut s, inp);
    appendix::missing(&mut s, inp);
    appendix::paper_numbers(&mut s);
    appendix::method_notes(&mut s, inp);
    s
}
