//! The GPU locality-aware scheduling study (`weft eval --study gpu-sched`, issue
//! #32): LaPerm's TB-Pri, SMX-Bind and Adaptive-Bind against round-robin under CDP
//! and DTBL (LaPerm §V on `k20c-dtbl` with its 32 KB L1 and shared memory), and
//! LASER against the baseline and LaPerm under CDP (dissertation ch. 3 on
//! `k20-spawn` with LASER's 32 KB 8-way L1 and 32 KB shared memory); plus the
//! offline reuse characterisation of every workload (LaPerm Fig. 2, LASER §3.3).
//! Reported next to the papers (digest §2.5, §4.7); acceptance is on sign and
//! ordering, and every contradiction is listed. The workloads are the shipped
//! graph templates with launch sites (`bfs`, `sssp`, `clr`); every policy must do
//! the same work (lane-level memory operations), else the study fails.

use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::config::TbSchedKind;
use weft_memsim::gpu::dp::DpMode;
use weft_memsim::gpu::reuse::{characterise, Recorder, ReuseReport, Trace};
use weft_memsim::gpu::workload::{self, Workload};
use weft_memsim::gpu::{GpuOptions, GpuSim};

/// Errors of the study.
pub type SchedError = Box<dyn std::error::Error + Send + Sync>;

/// LaPerm machine and LASER machine.
const LAPERM_M: &str = "k20c-dtbl";
const LASER_M: &str = "k20-spawn";

/// Published IPC over the baseline (digest §2.5, §4.7): (group, policy, value).
/// SMX-Bind's are TB-Pri's minus the paper's 9% (CDP) and 5% (DTBL) [D].
pub const PAPER: [(&str, &str, f64); 10] = [
    ("laperm-cdp", "tb-pri", 1.04),
    ("laperm-cdp", "smx-bind", 0.95),
    ("laperm-cdp", "adaptive-bind", 1.06),
    ("laperm-dtbl", "tb-pri", 1.13),
    ("laperm-dtbl", "smx-bind", 1.08),
    ("laperm-dtbl", "adaptive-bind", 1.27),
    ("laser", "laser", 1.113),
    ("laser", "adaptive-bind", 1.057),
    ("laser", "owl", 1.038),
    ("laser", "laser-oracle", 1.194),
];

/// Published locality figures: LaPerm Fig. 2 (parent–child, child–sibling,
/// parent–parent shared footprints), LASER Fig. 3.4 (aggregate shares).
pub const PAPER_REUSE: [(&str, f64); 6] = [
    ("LaPerm parent-child shared footprint", 0.384),
    ("LaPerm child-sibling shared footprint", 0.305),
    ("LaPerm parent-parent shared footprint", 0.093),
    ("LASER aggregate self-kernel reuse", 0.778),
    ("LASER aggregate parent-child reuse", 0.322),
    ("LASER aggregate sibling reuse", 0.411),
];

/// Study options.
#[derive(Debug, Clone)]
pub struct SchedStudyOptions {
    /// Output directory (`gpu-sched.json`, `.md`, `.svg`).
    pub out: PathBuf,
    /// R-MAT scale and edges (`None`: the shipped scale 14).
    pub graph: Option<(u32, u64)>,
    /// Workloads.
    pub apps: Vec<String>,
    /// Progress lines on stderr.
    pub verbose: bool,
}

impl SchedStudyOptions {
    /// The shipped sizes.
    pub fn full(out: &Path) -> Self {
        SchedStudyOptions {
            out: out.to_path_buf(),
            graph: None,
            apps: vec!["bfs".into(), "sssp".into(), "clr".into()],
            verbose: true,
        }
    }

    /// R-MAT scale 11 graphs (16,384 edges).
    pub fn quick(out: &Path) -> Self {
        SchedStudyOptions {
            graph: Some((11, 16_384)),
            ..Self::full(out)
        }
    }
}

/// One run.
#[derive(Debug, Clone, Serialize)]
pub struct SchedRun {
    /// Group: `laperm-cdp`, `laperm-dtbl` or `laser`.
    pub group: String,
    /// TB policy.
    pub policy: String,
    /// Cycles.
    pub cycles: u64,
    /// IPC (warp instructions per cycle).
    pub ipc: f64,
    /// L1 hit rate.
    pub l1_hit_rate: f64,
    /// L2 hit rate.
    pub l2_hit_rate: f64,
    /// Lane-level memory operations (the work).
    pub work: u64,
    /// The policy's counters.
    pub counters: serde_json::Value,
}

/// One workload.
#[derive(Debug, Clone, Serialize)]
pub struct SchedBench {
    /// Workload.
    pub app: String,
    /// Runs.
    pub runs: Vec<SchedRun>,
    /// Reuse characterisation of its CDP run under round-robin (LASER machine).
    pub reuse: ReuseReport,
}

impl SchedBench {
    fn run(&self, group: &str, policy: &str) -> Option<&SchedRun> {
        self.runs
            .iter()
            .find(|r| r.group == group && r.policy == policy)
    }

    /// IPC of `policy` over the group's baseline (round-robin).
    pub fn norm_ipc(&self, group: &str, policy: &str) -> f64 {
        match (self.run(group, policy), self.run(group, "rr")) {
            (Some(a), Some(b)) => a.ipc / b.ipc,
            _ => f64::NAN,
        }
    }
}

/// The study's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct SchedStudy {
    /// Per workload.
    pub benches: Vec<SchedBench>,
    /// (group, policy, paper, measured mean normalised IPC).
    pub summary: Vec<(String, String, f64, f64)>,
    /// (quantity, paper, measured mean).
    pub reuse_summary: Vec<(String, f64, f64)>,
    /// Orderings of the papers that the measurements contradict.
    pub contradictions: Vec<String>,
    /// Policies of the papers that are not implemented (no number).
    pub missing: Vec<String>,
}

fn load(app: &str, graph: Option<(u32, u64)>) -> Result<Arc<Workload>, SchedError> {
    let text = workload::builtin_text(app).ok_or_else(|| format!("no shipped app `{app}`"))?;
    let text = match graph {
        Some((scale, edges)) => text.replace(
            "scale = 14, edges = 131072",
            &format!("scale = {scale}, edges = {edges}"),
        ),
        None => text.to_string(),
    };
    Ok(Arc::new(workload::parse(&text, app)?))
}

/// The machine of a group, with the paper's L1 and shared memory.
pub fn machine(group: &str) -> Result<MachineConfig, SchedError> {
    let mut cfg = MachineConfig::preset(if group == "laser" { LASER_M } else { LAPERM_M })?;
    cfg.l1.size_bytes = 32 * 1024;
    if group == "laser" {
        cfg.l1.ways = 8;
    }
    if let Some(g) = cfg.gpu.as_mut() {
        g.smem_per_sm = 32 * 1024;
    }
    Ok(cfg)
}

fn simulate(
    group: &str,
    wl: &Arc<Workload>,
    dp: DpMode,
    policy: TbSchedKind,
) -> Result<SchedRun, SchedError> {
    let cfg = machine(group)?;
    let opts = GpuOptions {
        dp: Some(dp),
        tb_sched: Some(policy),
        seed: 1,
        ..Default::default()
    };
    let mut sim = GpuSim::build(&cfg, wl.clone(), &opts)?;
    let s = sim.run(|_| {})?;
    Ok(SchedRun {
        group: group.into(),
        policy: s.tb_scheduler.clone(),
        cycles: s.cycles,
        ipc: s.ipc,
        l1_hit_rate: s.l1_hit_rate,
        l2_hit_rate: s.l2_hit_rate,
        work: sim.lane_mem_ops(),
        counters: sim.tb_policy_report().unwrap_or(serde_json::Value::Null),
    })
}

/// Runs `wl` on `cfg` with a trace recorder and characterises the trace.
pub fn trace_reuse(
    cfg: &MachineConfig,
    wl: Arc<Workload>,
    opts: &GpuOptions,
    reads_only: bool,
) -> Result<ReuseReport, SchedError> {
    let mut sim = GpuSim::build(cfg, wl, opts)?;
    let rec = Recorder::default();
    sim.set_l1_hook(Box::new(rec.clone()));
    sim.run(|_| {})?;
    let events = rec.events.lock().map_err(|_| "trace lock")?;
    let trace = Trace::tag(&events, sim.dispatches(), sim.kernels(), reads_only);
    let l1 = cfg.l1.size_bytes / cfg.l1.line_bytes as u64;
    let l2 = cfg.llc.size_bytes / cfg.llc.line_bytes as u64;
    Ok(characterise(&trace, l1, l2))
}

/// Runs the study and writes its report.
pub fn run(o: &SchedStudyOptions) -> Result<SchedStudy, SchedError> {
    use TbSchedKind::*;
    let mut benches = Vec::new();
    for app in &o.apps {
        let wl = load(app, o.graph)?;
        let mut runs = Vec::new();
        let groups: [(&str, DpMode, &[TbSchedKind]); 3] = [
            (
                "laperm-cdp",
                DpMode::Cdp { ideal: false },
                &[Rr, TbPri, SmxBind, AdaptiveBind],
            ),
            (
                "laperm-dtbl",
                DpMode::Dtbl { ideal: false },
                &[Rr, TbPri, SmxBind, AdaptiveBind],
            ),
            (
                "laser",
                DpMode::Cdp { ideal: false },
                &[Rr, AdaptiveBind, Laser],
            ),
        ];
        for (group, dp, policies) in groups {
            for &p in policies {
                let r = simulate(group, &wl, dp, p)?;
                if o.verbose {
                    eprintln!(
                        "gpu-sched study: {app} {group:<11} {:<13} {} cycles, IPC {:.3}, L1 {:.3}",
                        r.policy, r.cycles, r.ipc, r.l1_hit_rate
                    );
                }
                runs.push(r);
            }
        }
        let work = runs[0].work;
        if let Some(r) = runs.iter().find(|r| r.work != work) {
            return Err(format!(
                "{app}: {} ({}) did {} lane memory operations, the first run {}: not the same work",
                r.policy, r.group, r.work, work
            )
            .into());
        }
        let opts = GpuOptions {
            dp: Some(DpMode::Cdp { ideal: false }),
            seed: 1,
            ..Default::default()
        };
        let reuse = trace_reuse(&machine("laser")?, wl.clone(), &opts, false)?;
        benches.push(SchedBench {
            app: app.clone(),
            runs,
            reuse,
        });
    }
    let study = summarise(benches);
    std::fs::create_dir_all(&o.out)?;
    std::fs::write(
        o.out.join("gpu-sched.json"),
        serde_json::to_string_pretty(&study)?,
    )?;
    std::fs::write(o.out.join("gpu-sched.md"), report(&study, o))?;
    std::fs::write(o.out.join("gpu-sched.svg"), plot(&study))?;
    Ok(study)
}

fn mean(v: &[f64]) -> f64 {
    let v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Averages, reuse figures and orderings of the benches.
pub fn summarise(benches: Vec<SchedBench>) -> SchedStudy {
    let avg =
        |g: &str, p: &str| mean(&benches.iter().map(|b| b.norm_ipc(g, p)).collect::<Vec<_>>());
    let mut summary = Vec::new();
    let mut missing = Vec::new();
    for (g, p, paper) in PAPER {
        let m = avg(g, p);
        if m.is_nan() {
            missing.push(format!("{p} ({g}): not implemented"));
        }
        summary.push((g.to_string(), p.to_string(), paper, m));
    }
    let r = |f: &dyn Fn(&ReuseReport) -> f64| {
        mean(&benches.iter().map(|b| f(&b.reuse)).collect::<Vec<_>>())
    };
    let measured = [
        r(&|x| x.laperm.parent_child),
        r(&|x| x.laperm.child_sibling),
        r(&|x| x.laperm.parent_parent),
        r(&|x| x.aggregate.self_kernel),
        r(&|x| x.aggregate.parent_child),
        r(&|x| x.aggregate.sibling),
    ];
    let reuse_summary = PAPER_REUSE
        .iter()
        .zip(measured)
        .map(|(&(n, p), m)| (n.to_string(), p, m))
        .collect();
    let mut contradictions = Vec::new();
    let mut check = |ok: bool, what: String| {
        if !ok {
            contradictions.push(what);
        }
    };
    let f = |g: &str, p: &str| avg(g, p);
    for g in ["laperm-cdp", "laperm-dtbl"] {
        check(
            f(g, "adaptive-bind") > 1.0,
            format!(
                "{g}: Adaptive-Bind not above round-robin ({:.3})",
                f(g, "adaptive-bind")
            ),
        );
        check(
            f(g, "tb-pri") > 1.0,
            format!("{g}: TB-Pri not above round-robin ({:.3})", f(g, "tb-pri")),
        );
        check(
            f(g, "adaptive-bind") >= f(g, "tb-pri"),
            format!(
                "{g}: Adaptive-Bind ({:.3}) below TB-Pri ({:.3})",
                f(g, "adaptive-bind"),
                f(g, "tb-pri")
            ),
        );
        check(
            f(g, "tb-pri") >= f(g, "smx-bind"),
            format!(
                "{g}: SMX-Bind ({:.3}) above TB-Pri ({:.3}); the paper has it 5-9% below",
                f(g, "smx-bind"),
                f(g, "tb-pri")
            ),
        );
    }
    check(
        f("laperm-dtbl", "adaptive-bind") > f("laperm-cdp", "adaptive-bind"),
        format!(
            "Adaptive-Bind gains no more under DTBL ({:.3}) than under CDP ({:.3})",
            f("laperm-dtbl", "adaptive-bind"),
            f("laperm-cdp", "adaptive-bind")
        ),
    );
    check(
        f("laser", "laser") > 1.0,
        format!("LASER not above the baseline ({:.3})", f("laser", "laser")),
    );
    check(
        f("laser", "laser") > f("laser", "adaptive-bind"),
        format!(
            "LASER ({:.3}) not above LaPerm ({:.3})",
            f("laser", "laser"),
            f("laser", "adaptive-bind")
        ),
    );
    SchedStudy {
        benches,
        summary,
        reuse_summary,
        contradictions,
        missing,
    }
}

/// The Markdown report.
pub fn report(s: &SchedStudy, o: &SchedStudyOptions) -> String {
    let mut r = String::new();
    let size = match o.graph {
        Some((sc, e)) => format!("R-MAT scale {sc}, {e} edges"),
        None => "the shipped R-MAT graphs (scale 14, 131,072 edges)".into(),
    };
    let _ = writeln!(
        r,
        "# GPU locality-aware scheduling study (`weft eval --study gpu-sched`)\n"
    );
    let _ = writeln!(
        r,
        "Workloads: {} on {size}. LaPerm groups on `{LAPERM_M}` with a 32 KB L1 and 32 KB shared memory (CDP and DTBL); LASER group on `{LASER_M}` with a 32 KB 8-way L1 and 32 KB shared memory (CDP). IPC is normalised to round-robin of the same group.\n",
        o.apps.join(", ")
    );
    let _ = writeln!(
        r,
        "| workload | group | policy | cycles | IPC | IPC / RR | L1 hit | L2 hit |"
    );
    let _ = writeln!(r, "|---|---|---|---:|---:|---:|---:|---:|");
    for b in &s.benches {
        for x in &b.runs {
            let _ = writeln!(
                r,
                "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
                b.app,
                x.group,
                x.policy,
                x.cycles,
                x.ipc,
                b.norm_ipc(&x.group, &x.policy),
                x.l1_hit_rate,
                x.l2_hit_rate
            );
        }
    }
    let _ = writeln!(r, "\n## Next to the papers (mean IPC over round-robin)\n");
    let _ = writeln!(r, "| group | policy | paper | measured |");
    let _ = writeln!(r, "|---|---|---:|---:|");
    for (g, p, paper, m) in &s.summary {
        let m = if m.is_nan() {
            "not run".to_string()
        } else {
            format!("{m:.3}")
        };
        let _ = writeln!(r, "| {g} | {p} | {paper:.3} | {m} |");
    }
    let _ = writeln!(r, "\n## Reuse (CDP, round-robin, `{LASER_M}`)\n");
    let _ = writeln!(r, "| quantity | paper | measured (mean) |");
    let _ = writeln!(r, "|---|---:|---:|");
    for (n, p, m) in &s.reuse_summary {
        let _ = writeln!(r, "| {n} | {p:.3} | {m:.3} |");
    }
    let _ = writeln!(r, "\n| workload | kernels | PC kernel ratio | sibling ratio | kernel chain (max, mean) | WG chain (max, mean) | self dist. > L1 | > L2 |");
    let _ = writeln!(r, "|---|---:|---:|---:|---|---|---:|---:|");
    for b in &s.benches {
        let x = &b.reuse;
        let _ = writeln!(
            r,
            "| {} | {} | {:.3} | {:.3} | ({}, {:.1}) | ({}, {:.1}) | {:.3} | {:.3} |",
            b.app,
            x.kernels,
            x.kernel_parent_child.mean,
            x.kernel_sibling.mean,
            x.kernel_chain.0,
            x.kernel_chain.1,
            x.wg_chain.0,
            x.wg_chain.1,
            x.distance_self.beyond_l1,
            x.distance_self.beyond_l2
        );
    }
    let _ = writeln!(r, "\n## Contradictions of the papers' orderings\n");
    if s.contradictions.is_empty() {
        let _ = writeln!(r, "None.");
    }
    for c in &s.contradictions {
        let _ = writeln!(r, "- {c}");
    }
    if !s.missing.is_empty() {
        let _ = writeln!(r, "\n## Not run\n");
        for m in &s.missing {
            let _ = writeln!(r, "- {m}");
        }
    }
    r
}

/// Bars of IPC over round-robin per workload, group and policy (SVG).
pub fn plot(s: &SchedStudy) -> String {
    let cols: Vec<(&str, &str)> = vec![
        ("laperm-cdp", "tb-pri"),
        ("laperm-cdp", "smx-bind"),
        ("laperm-cdp", "adaptive-bind"),
        ("laperm-dtbl", "tb-pri"),
        ("laperm-dtbl", "smx-bind"),
        ("laperm-dtbl", "adaptive-bind"),
        ("laser", "adaptive-bind"),
        ("laser", "laser"),
    ];
    let bar = 12.0;
    let group = bar * (cols.len() as f64 + 1.0);
    let h = 200.0;
    let w = 60.0 + group * s.benches.len() as f64;
    let vals: Vec<Vec<f64>> = s
        .benches
        .iter()
        .map(|b| cols.iter().map(|&(g, p)| b.norm_ipc(g, p)).collect())
        .collect();
    let top = vals
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max)
        * 1.1;
    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"10\">\n",
        h + 40.0
    );
    let y1 = h - h / top;
    let _ = writeln!(o, "<line x1=\"40\" x2=\"{w}\" y1=\"{y1:.1}\" y2=\"{y1:.1}\" stroke=\"gray\" stroke-dasharray=\"3\"/><text x=\"2\" y=\"{y1:.1}\">1.0x</text>");
    let colours = [
        "#c6dbef", "#6baed6", "#08519c", "#fdd0a2", "#fd8d3c", "#a63603", "#74c476", "#006d2c",
    ];
    for (bi, b) in s.benches.iter().enumerate() {
        let x0 = 50.0 + bi as f64 * group;
        for (ci, v) in vals[bi].iter().enumerate() {
            let v = if v.is_finite() { *v } else { 0.0 };
            let bh = h * v / top;
            let _ = writeln!(
                o,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{}\" height=\"{bh:.1}\" fill=\"{}\"><title>{} {} {v:.3}</title></rect>",
                x0 + ci as f64 * bar,
                h - bh,
                bar - 2.0,
                colours[ci],
                cols[ci].0,
                cols[ci].1
            );
        }
        let _ = writeln!(o, "<text x=\"{x0}\" y=\"{}\">{}</text>", h + 14.0, b.app);
    }
    let legend: Vec<String> = cols.iter().map(|c| format!("{} {}", c.0, c.1)).collect();
    let _ = writeln!(
        o,
        "<text x=\"2\" y=\"{}\">bars: {} (IPC / round-robin)</text>",
        h + 32.0,
        legend.join(", ")
    );
    o.push_str("</svg>\n");
    o
}

/// The reuse report as text (`weft gpusim reuse`).
pub fn reuse_text(x: &ReuseReport) -> String {
    let mut r = String::new();
    let h = |n: &str, v: &weft_memsim::gpu::reuse::ratios::Histogram, r: &mut String| {
        let _ = writeln!(
            r,
            "{n:<26} n {:>7}  mean {:.3}  high {:.3}  bins {:?}",
            v.n, v.mean, v.high, v.bins
        );
    };
    let _ = writeln!(
        r,
        "accesses {}  footprint {} blocks  kernels {}",
        x.accesses, x.footprint_blocks, x.kernels
    );
    h("kernel self", &x.kernel_self, &mut r);
    h("kernel parent-child", &x.kernel_parent_child, &mut r);
    h("kernel sibling", &x.kernel_sibling, &mut r);
    h("WG self", &x.wg_self, &mut r);
    h("WG intra-kernel", &x.wg_intra_kernel, &mut r);
    h("WG parent-child", &x.wg_parent_child, &mut r);
    h("WG sibling", &x.wg_sibling, &mut r);
    h("wavefront self", &x.wavefront_self, &mut r);
    h("wavefront inter", &x.wavefront_inter, &mut r);
    let _ = writeln!(
        r,
        "chains: kernel (max {}, mean {:.1}), WG (max {}, mean {:.1})",
        x.kernel_chain.0, x.kernel_chain.1, x.wg_chain.0, x.wg_chain.1
    );
    let a = &x.aggregate;
    let _ = writeln!(
        r,
        "aggregate reuse: self-kernel {:.3}, parent-child {:.3}, sibling {:.3}",
        a.self_kernel, a.parent_child, a.sibling
    );
    for (n, d) in [
        ("self", &x.distance_self),
        ("parent-child", &x.distance_parent_child),
        ("sibling", &x.distance_sibling),
    ] {
        let _ = writeln!(
            r,
            "reuse distance {n:<13} n {:>7}  median {:>6}  > L1 {:.3}  > L2 {:.3}",
            d.n, d.median, d.beyond_l1, d.beyond_l2
        );
    }
    let l = &x.laperm;
    let _ = writeln!(r, "LaPerm shared footprint: parent-child {:.3} ({} parents), child-sibling {:.3} ({} children), parent-parent {:.3}", l.parent_child, l.parents, l.child_sibling, l.children, l.parent_parent);
    r
}

/// The CDFs of the kernel- and WG-level ratio histograms (SVG) at `path`.
pub fn plot_reuse(x: &ReuseReport, path: &Path) -> std::io::Result<()> {
    let series = [
        ("kernel parent-child", &x.kernel_parent_child, "#1f77b4"),
        ("kernel sibling", &x.kernel_sibling, "#ff7f0e"),
        ("WG parent-child", &x.wg_parent_child, "#2ca02c"),
        ("WG intra-kernel", &x.wg_intra_kernel, "#d62728"),
        ("wavefront inter", &x.wavefront_inter, "#9467bd"),
    ];
    let (w, h) = (420.0, 220.0);
    let mut o = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"10\">\n", h + 30.0 + 12.0 * series.len() as f64);
    let _ = writeln!(
        o,
        "<rect x=\"40\" y=\"10\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"gray\"/>",
        w - 60.0,
        h - 20.0
    );
    for (i, (name, hist, colour)) in series.iter().enumerate() {
        let pts: Vec<String> = hist
            .cdf()
            .iter()
            .enumerate()
            .map(|(b, c)| {
                format!(
                    "{:.1},{:.1}",
                    40.0 + (b as f64 + 1.0) / 10.0 * (w - 60.0),
                    h - 10.0 - c * (h - 20.0)
                )
            })
            .collect();
        let _ = writeln!(
            o,
            "<polyline fill=\"none\" stroke=\"{colour}\" points=\"40,{} {}\"/>",
            h - 10.0,
            pts.join(" ")
        );
        let _ = writeln!(
            o,
            "<text x=\"40\" y=\"{}\" fill=\"{colour}\">{name} (n = {})</text>",
            h + 12.0 * (i as f64 + 1.0),
            hist.n
        );
    }
    let _ = writeln!(
        o,
        "<text x=\"2\" y=\"14\">CDF</text><text x=\"{}\" y=\"{}\">reuse ratio (0.1 bins)</text>",
        w - 160.0,
        h + 2.0
    );
    o.push_str("</svg>\n");
    std::fs::write(path, o)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(group: &str, policy: &str, ipc: f64) -> SchedRun {
        SchedRun {
            group: group.into(),
            policy: policy.into(),
            cycles: 1000,
            ipc,
            l1_hit_rate: 0.5,
            l2_hit_rate: 0.5,
            work: 10,
            counters: serde_json::Value::Null,
        }
    }

    #[test]
    fn normalisation_and_orderings_on_hand_numbers() {
        let runs = vec![
            run_of("laperm-cdp", "rr", 1.0),
            run_of("laperm-cdp", "tb-pri", 1.04),
            run_of("laperm-cdp", "smx-bind", 0.95),
            run_of("laperm-cdp", "adaptive-bind", 1.06),
            run_of("laperm-dtbl", "rr", 2.0),
            run_of("laperm-dtbl", "tb-pri", 2.26),
            run_of("laperm-dtbl", "smx-bind", 2.3),
            run_of("laperm-dtbl", "adaptive-bind", 2.54),
            run_of("laser", "rr", 1.0),
            run_of("laser", "adaptive-bind", 1.05),
            run_of("laser", "laser", 1.1),
        ];
        let b = SchedBench {
            app: "x".into(),
            runs,
            reuse: ReuseReport::default(),
        };
        assert!((b.norm_ipc("laperm-dtbl", "adaptive-bind") - 1.27).abs() < 1e-12);
        let s = summarise(vec![b]);
        // only SMX-Bind above TB-Pri under DTBL contradicts the paper
        assert_eq!(s.contradictions.len(), 1, "{:?}", s.contradictions);
        assert!(s.contradictions[0].contains("laperm-dtbl: SMX-Bind"));
        assert_eq!(s.missing.len(), 2, "owl and the oracle are not run");
    }
}
