//! The GPU thread-block management study (`weft eval --study tbm`, issue #33):
//! Beaumont and Mudge's fine-grained TB management with preemption against
//! oracle static classification and kernel-wide profiling (`gpu-seeds.md` §6),
//! on co-runs of the LonestarGPU-like apps (`memsim::gpu::fgtb::apps`) with a
//! Parboil-like compute-bound partner and with each other, on `v100-fgtb` with a
//! proportional share of its SMs. Throughput is the committed IPC of the
//! LonestarGPU app of a pair (its warp instructions over its span), averaged per
//! app over its pairings and inputs, as in the paper's Fig. 7. Reported beside
//! the paper: +17.1% over static and +12.9% over the profiler on average, and the
//! preemption traffic share; acceptance is on sign and ordering (fine-grained >
//! profiler > static); every contradiction is listed. Every management must do
//! the same work as the unmanaged run (lane memory operations), else the study
//! fails.

use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::fgtb::apps::{self, Scale, LONESTAR};
use weft_memsim::gpu::fgtb::manager::ManageReport;
use weft_memsim::gpu::fgtb::{oracle, FgtbConfig, TbManage};
use weft_memsim::gpu::workload::Workload;
use weft_memsim::gpu::{GpuOptions, GpuSim};

/// Errors of the study.
pub type TbmError = Box<dyn std::error::Error + Send + Sync>;

/// Published averages (digest §6.5).
pub const PAPER: [(&str, f64); 2] = [
    (
        "fine-grained throughput gain over oracle static (average, %)",
        17.1,
    ),
    (
        "fine-grained throughput gain over kernel-wide profiler (average, %)",
        12.9,
    ),
];

/// Managements run per pair, in report order.
pub const MODES: [TbManage; 4] = [
    TbManage::None,
    TbManage::StaticOracle,
    TbManage::Profiler,
    TbManage::FineGrained,
];

/// Study options.
#[derive(Debug, Clone)]
pub struct TbmStudyOptions {
    /// Output directory (`tbm.json`, `tbm.md`).
    pub out: PathBuf,
    /// SMs of the `v100-fgtb` machine used (80 in the paper).
    pub sms: usize,
    /// Vertex counts of the R-MAT inputs (100,000 edges).
    pub inputs: Vec<u32>,
    /// LonestarGPU apps.
    pub apps: Vec<String>,
    /// Partners: `sgemm` and/or `lonestar` (the next LonestarGPU app).
    pub partners: Vec<String>,
    /// Workload sizes (vertices are set per input).
    pub scale: Scale,
    /// Management parameters.
    pub cfg: FgtbConfig,
    /// Print progress lines on stderr.
    pub verbose: bool,
}

impl TbmStudyOptions {
    /// The study: 8 of 80 SMs (grids / 10), three inputs, both partners.
    pub fn full(out: &Path) -> Self {
        TbmStudyOptions {
            out: out.to_path_buf(),
            sms: 8,
            inputs: vec![5_000, 20_000, 80_000],
            apps: LONESTAR.iter().map(|s| s.to_string()).collect(),
            partners: vec!["sgemm".into(), "lonestar".into()],
            scale: Scale::default(),
            cfg: FgtbConfig::default(),
            verbose: true,
        }
    }

    /// 4 SMs (grids / 20), one input, the compute partner only.
    pub fn quick(out: &Path) -> Self {
        TbmStudyOptions {
            sms: 4,
            inputs: vec![20_000],
            partners: vec!["sgemm".into()],
            scale: Scale {
                div: 20,
                rounds: 2,
                sweeps: 1,
                ..Scale::default()
            },
            ..Self::full(out)
        }
    }
}

/// One run of a pair under one management.
#[derive(Debug, Clone, Serialize)]
pub struct TbmRun {
    /// Management.
    pub mode: String,
    /// Cycles of the co-run.
    pub cycles: u64,
    /// IPC of the LonestarGPU app.
    pub ipc: f64,
    /// IPC of the whole co-run.
    pub total_ipc: f64,
    /// Lane memory operations (the work).
    pub work: u64,
    /// L2 requests (every line moved between SMs and L2, contexts included).
    pub l2_requests: u64,
    /// What the management did.
    pub manage: ManageReport,
}

/// A pair on one input.
#[derive(Debug, Clone, Serialize)]
pub struct TbmPair {
    /// LonestarGPU app.
    pub app: String,
    /// Its partner.
    pub partner: String,
    /// R-MAT vertices.
    pub vertices: u32,
    /// Runs in [`MODES`] order.
    pub runs: Vec<TbmRun>,
}

impl TbmPair {
    fn ipc(&self, m: TbManage) -> f64 {
        self.runs
            .iter()
            .find(|r| r.mode == m.name())
            .map_or(f64::NAN, |r| r.ipc)
    }
}

/// Per-app averages.
#[derive(Debug, Clone, Serialize)]
pub struct TbmApp {
    /// App.
    pub app: String,
    /// Mean gain of fine-grained over static, %.
    pub over_static: f64,
    /// Mean gain of fine-grained over the profiler, %.
    pub over_profiler: f64,
    /// Mean gain of the profiler over static, %.
    pub profiler_over_static: f64,
    /// Preemptions under fine-grained (sum over pairs).
    pub preemptions: u64,
    /// Context bytes / all L2 line traffic under fine-grained.
    pub traffic_share: f64,
}

/// The study's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct TbmStudy {
    /// Every pair.
    pub pairs: Vec<TbmPair>,
    /// Per app.
    pub apps: Vec<TbmApp>,
    /// (claim, paper, measured).
    pub summary: Vec<(String, f64, f64)>,
    /// Context traffic share under fine-grained, all pairs.
    pub traffic_share: f64,
    /// Claims our numbers contradict.
    pub contradictions: Vec<String>,
}

fn simulate(
    cfg: &MachineConfig,
    wl: &Arc<Workload>,
    mode: TbManage,
    o: &TbmStudyOptions,
) -> Result<TbmRun, TbmError> {
    let mut opts = GpuOptions {
        seed: 1,
        ..Default::default()
    };
    opts.tb_manage = Some(oracle::prepare(
        cfg,
        wl.clone(),
        &opts,
        mode,
        o.cfg.clone(),
    )?);
    let mut sim = GpuSim::build(cfg, wl.clone(), &opts)?;
    let s = sim.run(|_| {})?;
    let lone = s.apps.first().ok_or("a co-run reports its apps")?;
    Ok(TbmRun {
        mode: mode.name().into(),
        cycles: s.cycles,
        ipc: lone.ipc,
        total_ipc: s.ipc,
        work: sim.lane_mem_ops(),
        l2_requests: s.l2_requests,
        manage: sim.tb_manage_report().expect("managed run"),
    })
}

/// Runs the study and writes its report.
pub fn run(o: &TbmStudyOptions) -> Result<TbmStudy, TbmError> {
    let mut cfg = MachineConfig::preset("v100-fgtb")?;
    cfg.core.count = o.sms as u32;
    let mut pairs = Vec::new();
    for &v in &o.inputs {
        for (i, app) in o.apps.iter().enumerate() {
            for p in &o.partners {
                let partner = if p == "lonestar" {
                    o.apps[(i + 1) % o.apps.len()].clone()
                } else {
                    p.clone()
                };
                if partner == *app {
                    continue;
                }
                let scale = Scale {
                    vertices: v,
                    ..o.scale
                };
                let wl = Arc::new(apps::build(&[app.as_str(), partner.as_str()], &scale)?);
                let mut runs = Vec::new();
                for m in MODES {
                    let r = simulate(&cfg, &wl, m, o)?;
                    if o.verbose {
                        eprintln!(
                            "tbm study: {app}+{partner} V={v} {:<13} ipc {:.3} cycles {} preemptions {}",
                            r.mode, r.ipc, r.cycles, r.manage.preemptions
                        );
                    }
                    runs.push(r);
                }
                let work = runs[0].work;
                if let Some(r) = runs.iter().find(|r| r.work != work) {
                    return Err(format!(
                        "{app}+{partner}: {} did {} lane memory operations, unmanaged {work}",
                        r.mode, r.work
                    )
                    .into());
                }
                pairs.push(TbmPair {
                    app: app.clone(),
                    partner,
                    vertices: v,
                    runs,
                });
            }
        }
    }
    let study = summarise(pairs, &o.apps);
    std::fs::create_dir_all(&o.out)?;
    std::fs::write(
        o.out.join("tbm.json"),
        serde_json::to_string_pretty(&study)?,
    )?;
    std::fs::write(o.out.join("tbm.md"), report(&study, o))?;
    Ok(study)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn gain(a: f64, b: f64) -> f64 {
    (a / b - 1.0) * 100.0
}

fn share(r: &TbmRun) -> f64 {
    let all = r.l2_requests as f64 * 128.0;
    if all > 0.0 {
        r.manage.context_bytes as f64 / all
    } else {
        0.0
    }
}

/// Averages, claims and contradictions of the pairs.
pub fn summarise(pairs: Vec<TbmPair>, apps: &[String]) -> TbmStudy {
    let fg = TbManage::FineGrained;
    let (st, pr) = (TbManage::StaticOracle, TbManage::Profiler);
    let mut per_app = Vec::new();
    for a in apps {
        let ps: Vec<&TbmPair> = pairs.iter().filter(|p| p.app == *a).collect();
        if ps.is_empty() {
            continue;
        }
        let g = |x: TbManage, y: TbManage| {
            mean(
                &ps.iter()
                    .map(|p| gain(p.ipc(x), p.ipc(y)))
                    .collect::<Vec<_>>(),
            )
        };
        let fgr: Vec<&TbmRun> = ps
            .iter()
            .filter_map(|p| p.runs.iter().find(|r| r.mode == fg.name()))
            .collect();
        per_app.push(TbmApp {
            app: a.clone(),
            over_static: g(fg, st),
            over_profiler: g(fg, pr),
            profiler_over_static: g(pr, st),
            preemptions: fgr.iter().map(|r| r.manage.preemptions).sum(),
            traffic_share: mean(&fgr.iter().map(|r| share(r)).collect::<Vec<_>>()),
        });
    }
    let over_static = mean(&per_app.iter().map(|a| a.over_static).collect::<Vec<_>>());
    let over_profiler = mean(&per_app.iter().map(|a| a.over_profiler).collect::<Vec<_>>());
    let prof_static = mean(
        &per_app
            .iter()
            .map(|a| a.profiler_over_static)
            .collect::<Vec<_>>(),
    );
    let summary = PAPER
        .iter()
        .zip([over_static, over_profiler])
        .map(|(&(n, p), m)| (n.to_string(), p, m))
        .collect();
    let traffic_share = mean(
        &pairs
            .iter()
            .filter_map(|p| p.runs.iter().find(|r| r.mode == fg.name()))
            .map(share)
            .collect::<Vec<_>>(),
    );
    let mut contradictions = Vec::new();
    if over_static <= 0.0 {
        contradictions.push(format!(
            "fine-grained is not faster than oracle static on average ({over_static:+.1}%; paper +17.1%)"
        ));
    }
    if over_profiler <= 0.0 {
        contradictions.push(format!(
            "fine-grained is not faster than the kernel-wide profiler on average ({over_profiler:+.1}%; paper +12.9%)"
        ));
    }
    if prof_static <= 0.0 {
        contradictions.push(format!(
            "the profiler is not faster than oracle static on average ({prof_static:+.1}%; the paper's ordering has it between static and fine-grained)"
        ));
    }
    for a in &per_app {
        if a.over_static < 0.0 {
            contradictions.push(format!(
                "{}: fine-grained {:+.1}% vs static",
                a.app, a.over_static
            ));
        }
        if matches!(a.app.as_str(), "bfs" | "sssp") && a.preemptions == 0 {
            contradictions.push(format!(
                "{}: no preemption, but the paper attributes its whole gain to preemption",
                a.app
            ));
        }
    }
    if traffic_share > 0.01 {
        contradictions.push(format!(
            "context traffic is {:.2}% of the L2 line traffic (paper: < 1% of bandwidth)",
            traffic_share * 100.0
        ));
    }
    TbmStudy {
        pairs,
        apps: per_app,
        summary,
        traffic_share,
        contradictions,
    }
}

/// The Markdown report.
pub fn report(s: &TbmStudy, o: &TbmStudyOptions) -> String {
    let mut r = String::new();
    let _ = writeln!(
        r,
        "# GPU thread-block management study (`weft eval --study tbm`)\n"
    );
    let _ = writeln!(
        r,
        "`v100-fgtb` with {} SMs; LonestarGPU-like apps {} paired with {}; R-MAT inputs of {:?} vertices, 100,000 edges; grids / {}, {} rounds, {} sweeps; capacity {} per metric, time scale {}, victim queue {}, contexts {:?}.\n",
        o.sms,
        o.apps.join(", "),
        o.partners.join(" and "),
        o.inputs,
        o.scale.div,
        o.scale.rounds,
        o.scale.sweeps,
        o.cfg.cap,
        o.cfg.time_scale,
        o.cfg.vq_capacity,
        o.cfg.context
    );
    let _ = writeln!(r, "| app | partner | vertices | none | static | profiler | fine-grained | FG vs static | FG vs profiler | preemptions | context share |");
    let _ = writeln!(r, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for p in &s.pairs {
        let fgr = p.runs.iter().find(|x| x.mode == "fine-grained");
        let _ = writeln!(
            r,
            "| {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:+.1}% | {:+.1}% | {} | {:.3}% |",
            p.app,
            p.partner,
            p.vertices,
            p.ipc(TbManage::None),
            p.ipc(TbManage::StaticOracle),
            p.ipc(TbManage::Profiler),
            p.ipc(TbManage::FineGrained),
            gain(p.ipc(TbManage::FineGrained), p.ipc(TbManage::StaticOracle)),
            gain(p.ipc(TbManage::FineGrained), p.ipc(TbManage::Profiler)),
            fgr.map_or(0, |x| x.manage.preemptions),
            fgr.map_or(0.0, share) * 100.0
        );
    }
    let _ = writeln!(r, "\n| app | FG vs static | FG vs profiler | profiler vs static | preemptions | context share |");
    let _ = writeln!(r, "|---|---:|---:|---:|---:|---:|");
    for a in &s.apps {
        let _ = writeln!(
            r,
            "| {} | {:+.1}% | {:+.1}% | {:+.1}% | {} | {:.3}% |",
            a.app,
            a.over_static,
            a.over_profiler,
            a.profiler_over_static,
            a.preemptions,
            a.traffic_share * 100.0
        );
    }
    let _ = writeln!(r, "\n| claim | paper | measured |");
    let _ = writeln!(r, "|---|---:|---:|");
    for (n, p, m) in &s.summary {
        let _ = writeln!(r, "| {n} | {p:+.1} | {m:+.1} |");
    }
    let _ = writeln!(
        r,
        "| context traffic share of L2 line traffic (paper: < 1% of bandwidth) | < 1% | {:.3}% |",
        s.traffic_share * 100.0
    );
    if s.contradictions.is_empty() {
        let _ = writeln!(r, "\nNo contradiction of the paper's signs and ordering.");
    } else {
        let _ = writeln!(r, "\nContradictions (analysed in docs/gpu-tbm.md):\n");
        for c in &s.contradictions {
            let _ = writeln!(r, "- {c}");
        }
    }
    r
}
