//! The frame of the GPU studies of `weft eval` (issue #33 part 4). A study is a
//! table of cells — a workload under a variant, each a [`RunSpec`] the frame
//! simulates ([`super::gpu_run`]) — and its claims: the papers' numbers and
//! orderings checked against the records. Everything else is shared: the cache,
//! parallel jobs, progress and the same-work check ([`super::gpu_engine`]),
//! JSON/CSV, plots and the Markdown report ([`super::gpu_report`]). Adding a
//! policy or a workload to a study is one line of its table; adding a study is
//! one line of [`studies`].
//!
//! Invariant (as for the CPU studies, `eval/mod.rs`): nothing is invented. A
//! cell that failed says why; an average over no measurement is `n/a`; a claim
//! whose numbers are missing is "not measured", never "holds".

use super::engine::Status;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use weft_memsim::gpu::fgtb::FgtbConfig;

/// Errors of a GPU cell (a failed load or run).
pub type GpuError = Box<dyn std::error::Error + Send + Sync>;

/// How much of each study runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GpuSize {
    /// The GPU part of `weft eval --quick` and `weft demo`: a few cells per
    /// study, seconds each.
    Smoke,
    /// `--study gpu --quick`: every variant on small inputs.
    Quick,
    /// The studies as designed.
    Full,
}

impl GpuSize {
    /// The name the report prints.
    pub fn name(self) -> &'static str {
        match self {
            GpuSize::Smoke => "smoke (the GPU part of --quick)",
            GpuSize::Quick => "quick",
            GpuSize::Full => "full",
        }
    }
}

/// Changes to a machine preset.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineEdits {
    /// SMs.
    pub sms: Option<u32>,
    /// L1 size, KB.
    pub l1_kb: Option<u64>,
    /// L1 associativity.
    pub l1_ways: Option<u32>,
    /// Shared memory per SM, KB.
    pub smem_kb: Option<u32>,
    /// DTBL's AGT read-ahead (`[gpu.device_launch] agt_prefetch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agt_prefetch: Option<u32>,
}

/// The workload of a cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum WorkloadSpec {
    /// A shipped app (`weft gpusim --app`), optionally on an R-MAT graph of
    /// another (scale, edges) than its template's.
    Shipped {
        /// App name.
        app: String,
        /// R-MAT scale and edges.
        graph: Option<(u32, u64)>,
        /// New values of `[defs]` constants (`weft gpusim --define`), e.g. a
        /// paper's input size.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        defines: Vec<(String, i64)>,
    },
    /// One of the iPAWS workloads (`memsim/workloads/ipaws/<name>.toml`).
    Ipaws {
        /// Workload name.
        name: String,
    },
    /// A workload of the scheduling study
    /// (`memsim/workloads/gpu-sched/<name>.toml`) with `parents` parent TBs
    /// (`None`: the file's).
    Sched {
        /// Workload name.
        name: String,
        /// Parent TBs (the file's `NP`).
        parents: Option<u32>,
    },
    /// A co-run of FGTB apps (`memsim::gpu::fgtb::apps`), one stream each.
    Fgtb {
        /// Apps, the measured LonestarGPU app first.
        apps: Vec<String>,
        /// R-MAT vertices (100,000 edges).
        vertices: u32,
        /// Grid divisor.
        div: u32,
        /// Invocations of the multi-kernel apps.
        rounds: u32,
        /// Sweeps of BFS and SSSP.
        sweeps: u32,
    },
}

/// Extra measurements of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Probe {
    /// None.
    #[default]
    None,
    /// The L1 access breakdown (iPAWS Fig. 4 / 20).
    L1Breakdown,
    /// The reuse characterisation of the run's L1 trace (LaPerm Fig. 2, LASER §3.3).
    Reuse,
}

/// What one cell simulates; its JSON (with the binary's fingerprint) is the
/// cache key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// Machine preset.
    pub machine: String,
    /// Changes to it.
    #[serde(default)]
    pub edits: MachineEdits,
    /// Workload.
    pub workload: WorkloadSpec,
    /// `--dp` mode.
    pub dp: Option<String>,
    /// `--tb-sched` policy.
    pub tb_sched: Option<String>,
    /// `--warp-sched` scheduler.
    pub warp_sched: Option<String>,
    /// `--tb-manage` management.
    pub tb_manage: Option<String>,
    /// `--kernel-order` of the round-robin dispatcher (default: the machine's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_order: Option<String>,
    /// Its parameters (default: the paper's).
    pub fgtb: Option<FgtbConfig>,
    /// Extra measurements.
    #[serde(default)]
    pub probe: Probe,
}

impl RunSpec {
    /// `workload` on preset `machine`, every option at the machine's default.
    pub fn new(machine: &str, workload: WorkloadSpec) -> Self {
        RunSpec {
            machine: machine.into(),
            edits: MachineEdits::default(),
            workload,
            dp: None,
            tb_sched: None,
            warp_sched: None,
            tb_manage: None,
            kernel_order: None,
            fgtb: None,
            probe: Probe::None,
        }
    }

    /// With `--dp mode` (`None`: unchanged).
    pub fn dp(mut self, mode: Option<&str>) -> Self {
        if let Some(m) = mode {
            self.dp = Some(m.into());
        }
        self
    }

    /// With `--tb-sched policy`.
    pub fn tb(mut self, policy: Option<&str>) -> Self {
        if let Some(p) = policy {
            self.tb_sched = Some(p.into());
        }
        self
    }

    /// With `--kernel-order order` (`fcfs` or `rotate`).
    pub fn kernel_order(mut self, order: &str) -> Self {
        self.kernel_order = Some(order.into());
        self
    }

    /// With `--warp-sched sched`.
    pub fn warp(mut self, sched: Option<&str>) -> Self {
        if let Some(s) = sched {
            self.warp_sched = Some(s.into());
        }
        self
    }
}

impl WorkloadSpec {
    /// Shipped app `app` on its template's input, or on an R-MAT graph of
    /// (scale, edges).
    pub fn shipped(app: impl Into<String>, graph: Option<(u32, u64)>) -> Self {
        WorkloadSpec::Shipped {
            app: app.into(),
            graph,
            defines: Vec::new(),
        }
    }

    /// A shipped app with `[defs]` constants set (`weft gpusim -D`); other
    /// workloads unchanged.
    pub fn define(mut self, name: &str, value: i64) -> Self {
        if let WorkloadSpec::Shipped { defines, .. } = &mut self {
            defines.push((name.to_string(), value));
        }
        self
    }
}

/// One cell of a study, as the study declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuCell {
    /// Workload (or pair).
    pub bench: String,
    /// Input (graph size, vertices), empty if the workload has one.
    pub input: String,
    /// Group of variants compared with the same baseline (machine, DP mode).
    pub group: String,
    /// Variant (mode, policy, scheduler, management).
    pub variant: String,
    /// What to simulate.
    pub spec: RunSpec,
}

/// The measurements of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Cycles.
    pub cycles: u64,
    /// Warp instructions per cycle, whole run.
    pub ipc: f64,
    /// IPC of the workload's first app over its own span (co-runs).
    pub app_ipc: Option<f64>,
    /// L1 hit rate.
    pub l1_hit_rate: f64,
    /// L2 hit rate.
    pub l2_hit_rate: f64,
    /// DRAM row-buffer hit rate.
    pub row_hit_rate: f64,
    /// Mean L1-miss latency.
    pub avg_mem_latency: f64,
    /// SM occupancy.
    pub occupancy: f64,
    /// Lane-level memory operations (the work; equal across the variants of a
    /// workload, checked).
    pub work: u64,
    /// Lines moved between SMs and L2 (contexts included).
    pub l2_requests: u64,
    /// The mechanisms' own reports (`dp`, `tb_policy`, `ipaws`, `l1`,
    /// `manage`, `reuse`), as JSON.
    pub extra: BTreeMap<String, serde_json::Value>,
    /// Wall-clock seconds of the simulation.
    pub seconds: f64,
}

impl Measured {
    /// A number inside `extra` by JSON pointer (`/dp/child_kernels`); NaN if absent.
    pub fn x(&self, pointer: &str) -> f64 {
        let mut parts = pointer.trim_start_matches('/').splitn(2, '/');
        let head = parts.next().unwrap_or_default();
        let rest = parts.next().map(|r| format!("/{r}")).unwrap_or_default();
        self.extra
            .get(head)
            .and_then(|v| v.pointer(&rest))
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(f64::NAN)
    }
}

/// One cell with its outcome (a line of `records.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuRecord {
    /// Study id.
    pub study: String,
    /// Workload.
    pub bench: String,
    /// Input.
    pub input: String,
    /// Group.
    pub group: String,
    /// Variant.
    pub variant: String,
    /// What was simulated.
    pub spec: RunSpec,
    /// Cache key.
    pub key: String,
    /// Outcome.
    pub status: Status,
    /// Measurements (`Ok` only).
    pub m: Option<Measured>,
}

/// A claim of a paper checked against the records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// Study id.
    pub study: String,
    /// Workload, or `None` for an average.
    pub bench: Option<String>,
    /// The claim or quantity, in words.
    pub claim: String,
    /// Where the paper makes it.
    pub source: String,
    /// The paper's number.
    pub paper: String,
    /// Ours.
    pub weft: String,
    /// Acceptance on sign and ordering: `Some(true)` holds, `Some(false)`
    /// contradicted, `None` reported only (no acceptance test, or not measured).
    pub holds: Option<bool>,
    /// Why, from the other metrics of the same runs (contradictions).
    pub analysis: String,
}

/// A column of a study's run table.
pub struct Column {
    /// Header.
    pub head: &'static str,
    /// Value of a run.
    pub value: fn(&Measured) -> String,
}

/// One GPU study: its cells and its claims.
pub trait GpuStudy: Sync {
    /// Id (`--study`, directory and table names).
    fn id(&self) -> &'static str;
    /// Title of its report section.
    fn title(&self) -> &'static str;
    /// Machine, workloads and method, one paragraph of Markdown.
    fn about(&self) -> String;
    /// Cells at `size`, in report order.
    fn cells(&self, size: GpuSize) -> Vec<GpuCell>;
    /// The variant every variant of `group` is compared with.
    fn baseline(&self, group: &str) -> &'static str;
    /// Performance of a run, higher is better (default: 1 / cycles).
    fn perf(&self, m: &Measured) -> f64 {
        1.0 / m.cycles.max(1) as f64
    }
    /// Extra columns of the run table.
    fn columns(&self) -> Vec<Column> {
        Vec::new()
    }
    /// The papers' claims on these records (this study's only).
    fn claims(&self, recs: &Runs<'_>) -> Vec<Claim>;
    /// Study-specific plots: (file stem, SVG).
    fn plots(&self, _recs: &Runs<'_>) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// Every GPU study, in report order (`weft eval --study gpu` runs them all).
pub fn studies() -> Vec<&'static dyn GpuStudy> {
    vec![
        &super::gpu_dp::Dp,
        &super::gpu_sched::Sched,
        &super::gpu_ipaws::Ipaws,
        &super::gpu_tbm::Tbm,
        &super::gpu_combo::Combo,
    ]
}

/// The study `id`.
pub fn study(id: &str) -> Option<&'static dyn GpuStudy> {
    studies().into_iter().find(|s| s.id() == id)
}

/// Ids of every GPU study.
pub fn ids() -> Vec<&'static str> {
    studies().iter().map(|s| s.id()).collect()
}

/// A study's records with lookups by (bench, input, group, variant).
pub struct Runs<'a> {
    /// The study.
    pub study: &'a dyn GpuStudy,
    /// Its records, in cell order.
    pub recs: Vec<&'a GpuRecord>,
}

impl<'a> Runs<'a> {
    /// The records of `study` among `all`.
    pub fn of(study: &'a dyn GpuStudy, all: &'a [GpuRecord]) -> Self {
        Runs {
            study,
            recs: all.iter().filter(|r| r.study == study.id()).collect(),
        }
    }

    /// Workloads, in first-seen order.
    pub fn benches(&self) -> Vec<&'a str> {
        let mut v: Vec<&'a str> = Vec::new();
        for r in self.recs.iter().copied() {
            if !v.contains(&r.bench.as_str()) {
                v.push(r.bench.as_str());
            }
        }
        v
    }

    /// (bench, input) pairs, in first-seen order.
    pub fn points(&self) -> Vec<(&'a str, &'a str)> {
        let mut v: Vec<(&'a str, &'a str)> = Vec::new();
        for r in self.recs.iter().copied() {
            let p = (r.bench.as_str(), r.input.as_str());
            if !v.contains(&p) {
                v.push(p);
            }
        }
        v
    }

    /// The measurements of one cell (`Ok` only).
    pub fn get(
        &self,
        bench: &str,
        input: &str,
        group: &str,
        variant: &str,
    ) -> Option<&'a Measured> {
        self.recs
            .iter()
            .copied()
            .find(|r| {
                r.bench == bench && r.input == input && r.group == group && r.variant == variant
            })
            .and_then(|r| r.m.as_ref())
    }

    /// Performance of `variant` over `base` of the same group at one point
    /// (NaN if either is missing).
    pub fn ratio(&self, bench: &str, input: &str, group: &str, variant: &str, base: &str) -> f64 {
        match (
            self.get(bench, input, group, variant),
            self.get(bench, input, group, base),
        ) {
            (Some(a), Some(b)) => self.study.perf(a) / self.study.perf(b),
            _ => f64::NAN,
        }
    }

    /// [`Self::ratio`] over the group's baseline.
    pub fn speedup(&self, bench: &str, input: &str, group: &str, variant: &str) -> f64 {
        self.ratio(bench, input, group, variant, self.study.baseline(group))
    }

    /// `f` at every point of the study (NaN where a run is missing).
    pub fn per_point(&self, f: impl Fn(&str, &str) -> f64) -> Vec<f64> {
        self.points().into_iter().map(|(b, i)| f(b, i)).collect()
    }
}

/// Mean of the finite values (NaN if none).
pub fn mean(v: &[f64]) -> f64 {
    let v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Geometric mean of the finite positive values (NaN if none).
pub fn geomean(v: &[f64]) -> f64 {
    let v: Vec<f64> = v
        .iter()
        .copied()
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    if v.is_empty() {
        f64::NAN
    } else {
        (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
    }
}

/// The smaller of two measurements, NaN unless both exist (an ordering
/// claim is measured only when both of its sides are).
pub fn both(a: f64, b: f64) -> f64 {
    if a.is_finite() && b.is_finite() {
        a.min(b)
    } else {
        f64::NAN
    }
}

/// `x` with `digits` decimals, `n/a` if not finite.
pub fn num(x: f64, digits: usize) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else {
        "n/a".into()
    }
}

/// `x` as a factor (`1.21x`), `n/a` if not finite.
pub fn factor(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}x")
    } else {
        "n/a".into()
    }
}

/// `x` as a signed percentage, `n/a` if not finite.
pub fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.1}%")
    } else {
        "n/a".into()
    }
}

/// A claim on an average: holds when `ok(measured)`; not measured (no
/// acceptance) when the measurement is NaN.
#[allow(clippy::too_many_arguments)]
pub fn average_claim(
    study: &str,
    claim: &str,
    source: &str,
    paper: String,
    measured: f64,
    shown: String,
    ok: Option<bool>,
    analysis: &str,
) -> Claim {
    let holds = if measured.is_finite() { ok } else { None };
    Claim {
        study: study.into(),
        bench: None,
        claim: claim.into(),
        source: source.into(),
        paper,
        weft: if measured.is_finite() {
            shown
        } else {
            "not measured".into()
        },
        holds,
        analysis: if holds == Some(false) {
            analysis.into()
        } else {
            String::new()
        },
    }
}

/// A per-workload contradiction.
pub fn contradiction(
    study: &str,
    bench: &str,
    claim: &str,
    source: &str,
    weft: String,
    analysis: String,
) -> Claim {
    Claim {
        study: study.into(),
        bench: Some(bench.into()),
        claim: claim.into(),
        source: source.into(),
        paper: String::new(),
        weft,
        holds: Some(false),
        analysis,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_study_has_a_unique_id_and_cells_at_every_size() {
        let ids = ids();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "{ids:?}");
        for s in studies() {
            let smoke = s.cells(GpuSize::Smoke);
            let quick = s.cells(GpuSize::Quick);
            let full = s.cells(GpuSize::Full);
            assert!(!smoke.is_empty(), "{}", s.id());
            assert!(
                smoke.len() <= quick.len() && quick.len() <= full.len(),
                "{}",
                s.id()
            );
            // every group has its baseline among the cells of each point
            for c in &full {
                assert!(
                    full.iter().any(|b| b.bench == c.bench
                        && b.input == c.input
                        && b.group == c.group
                        && b.variant == s.baseline(&c.group)),
                    "{} {} {} has no baseline",
                    s.id(),
                    c.bench,
                    c.group
                );
            }
        }
    }

    #[test]
    fn pointer_lookup_and_means() {
        let mut extra = BTreeMap::new();
        extra.insert("dp".into(), serde_json::json!({"child_kernels": 3}));
        let m = Measured {
            cycles: 10,
            ipc: 1.0,
            app_ipc: None,
            l1_hit_rate: 0.0,
            l2_hit_rate: 0.0,
            row_hit_rate: 0.0,
            avg_mem_latency: 0.0,
            occupancy: 0.0,
            work: 1,
            l2_requests: 0,
            extra,
            seconds: 0.0,
        };
        assert_eq!(m.x("/dp/child_kernels"), 3.0);
        assert!(m.x("/dp/none").is_nan() && m.x("/manage/x").is_nan());
        assert_eq!(mean(&[1.0, f64::NAN, 3.0]), 2.0);
        assert!((geomean(&[1.0, 4.0]) - 2.0).abs() < 1e-12);
        assert!(mean(&[]).is_nan());
        assert_eq!(pct(f64::NAN), "n/a");
    }
}
