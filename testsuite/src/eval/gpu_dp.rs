//! The GPU dynamic-parallelism study (`weft eval --study dp`, issue #31): every
//! graph workload under flat, CDP, CDP without launch latency (CDPI), DTBL, DTBLI
//! (DTBL paper §5, on `k20c-dtbl`) and under flat, Baseline-DP (CDP with the
//! programmer's threshold), SPAWN and Offline-Search (the best static threshold of
//! a sweep; SPAWN dissertation §2.5, on `k20-spawn`), reported next to the papers'
//! averages (digest §1.5, §3.5). Acceptance is on sign and ordering; every
//! contradiction is listed. Workloads are the shipped templates, whose launch
//! site's `else` is the flat version, so every version does the same work (checked
//! here: the lane-level memory operations must be equal, else the study fails).

use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::dp::{spawn::offline_search, DpMode, DpStats};
use weft_memsim::gpu::workload::{self, Workload};
use weft_memsim::gpu::{GpuOptions, GpuSim};

/// Errors of the study (a failed load or run, or versions doing different work).
pub type DpError = Box<dyn std::error::Error + Send + Sync>;

/// Thresholds Offline-Search sweeps (the parent's workload, edges).
pub const SWEEP: [u64; 8] = [0, 8, 16, 32, 64, 128, 256, 512];

/// Published averages (digest §1.5, §3.5).
pub const PAPER: [(&str, f64); 6] = [
    ("DTBL speedup over flat (average)", 1.21),
    ("DTBL speedup over CDP (average)", 1.40),
    ("SPAWN speedup over flat (geomean)", 1.69),
    ("SPAWN speedup over Baseline-DP (geomean)", 1.57),
    ("SPAWN / Offline-Search (geomean)", 0.96),
    ("SPAWN child kernels / Baseline-DP's", 0.27),
];

/// Study options.
#[derive(Debug, Clone)]
pub struct DpStudyOptions {
    /// Output directory (`dp.json`, `dp.md`, `dp.svg`).
    pub out: PathBuf,
    /// R-MAT scale and edges of the graphs (`None`: the shipped size, scale 14).
    pub graph: Option<(u32, u64)>,
    /// Workloads (shipped apps with launch sites).
    pub apps: Vec<String>,
    /// Print progress lines on stderr.
    pub verbose: bool,
}

impl DpStudyOptions {
    /// The study at the shipped sizes.
    pub fn full(out: &Path) -> Self {
        DpStudyOptions {
            out: out.to_path_buf(),
            graph: None,
            apps: vec!["bfs".into(), "sssp".into(), "clr".into()],
            verbose: true,
        }
    }

    /// Small graphs (R-MAT scale 11, 16,384 edges), a few minutes.
    pub fn quick(out: &Path) -> Self {
        DpStudyOptions {
            graph: Some((11, 16_384)),
            ..Self::full(out)
        }
    }
}

/// One run.
#[derive(Debug, Clone, Serialize)]
pub struct DpRun {
    /// Machine preset.
    pub machine: String,
    /// `--dp` mode.
    pub mode: String,
    /// Cycles.
    pub cycles: u64,
    /// SM occupancy (DTBL's definition).
    pub occupancy: f64,
    /// Lane-level memory operations (the work).
    pub work: u64,
    /// Device-launch statistics.
    pub dp: DpStats,
}

/// One workload's results.
#[derive(Debug, Clone, Serialize)]
pub struct DpBench {
    /// Workload.
    pub app: String,
    /// Runs in order.
    pub runs: Vec<DpRun>,
    /// Offline-Search's best threshold and its cycles.
    pub offline: (u64, u64),
}

impl DpBench {
    fn cycles(&self, machine: &str, mode: &str) -> f64 {
        self.runs
            .iter()
            .find(|r| r.machine == machine && r.mode == mode)
            .map_or(f64::NAN, |r| r.cycles as f64)
    }

    fn run(&self, machine: &str, mode: &str) -> Option<&DpRun> {
        self.runs
            .iter()
            .find(|r| r.machine == machine && r.mode == mode)
    }
}

/// The study's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct DpStudy {
    /// Per workload.
    pub benches: Vec<DpBench>,
    /// Measured averages beside the papers': (name, paper, measured).
    pub summary: Vec<(String, f64, f64)>,
    /// Orderings the papers claim that our numbers contradict.
    pub contradictions: Vec<String>,
}

fn load(app: &str, graph: Option<(u32, u64)>) -> Result<Arc<Workload>, DpError> {
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

fn simulate(machine: &str, wl: &Arc<Workload>, mode: DpMode) -> Result<DpRun, DpError> {
    let cfg = MachineConfig::preset(machine)?;
    let opts = GpuOptions {
        dp: Some(mode),
        seed: 1,
        ..Default::default()
    };
    let mut sim = GpuSim::build(&cfg, wl.clone(), &opts)?;
    let s = sim.run(|_| {})?;
    Ok(DpRun {
        machine: machine.into(),
        mode: mode.name(),
        cycles: s.cycles,
        occupancy: s.occupancy,
        work: sim.lane_mem_ops(),
        dp: sim.dp_stats().expect("dp runs report launches"),
    })
}

const DTBL_M: &str = "k20c-dtbl";
const SPAWN_M: &str = "k20-spawn";

/// Runs the study and writes its report.
pub fn run(o: &DpStudyOptions) -> Result<DpStudy, DpError> {
    let mut benches = Vec::new();
    for app in &o.apps {
        let wl = load(app, o.graph)?;
        let mut runs = Vec::new();
        let go = |machine: &str, mode: DpMode| -> Result<DpRun, DpError> {
            let r = simulate(machine, &wl, mode)?;
            if o.verbose {
                eprintln!(
                    "dp study: {app} {machine} {:<14} {} cycles",
                    r.mode, r.cycles
                );
            }
            Ok(r)
        };
        for m in ["flat", "cdp", "cdpi", "dtbl", "dtbli"] {
            runs.push(go(DTBL_M, DpMode::parse(m).expect("mode"))?);
        }
        for m in ["flat", "cdp", "spawn"] {
            runs.push(go(SPAWN_M, DpMode::parse(m).expect("mode"))?);
        }
        let mut sweep = Vec::new();
        let best = offline_search(&SWEEP, |th| match go(SPAWN_M, DpMode::Threshold(th)) {
            Ok(r) => {
                let c = r.cycles;
                sweep.push(r);
                c
            }
            Err(_) => u64::MAX,
        })
        .expect("a non-empty sweep");
        runs.extend(sweep);
        let work = runs[0].work;
        if let Some(r) = runs.iter().find(|r| r.work != work) {
            return Err(format!(
                "{app}: {} on {} did {} lane memory operations, flat {}: the versions do not do the same work",
                r.mode, r.machine, r.work, work
            )
            .into());
        }
        benches.push(DpBench {
            app: app.clone(),
            runs,
            offline: best,
        });
    }
    let study = summarise(benches);
    std::fs::create_dir_all(&o.out)?;
    std::fs::write(o.out.join("dp.json"), serde_json::to_string_pretty(&study)?)?;
    std::fs::write(o.out.join("dp.md"), report(&study, o))?;
    std::fs::write(o.out.join("dp.svg"), plot(&study))?;
    std::fs::write(o.out.join("dp_timeline.svg"), timeline(&study))?;
    Ok(study)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len().max(1) as f64).exp()
}

/// Speedups and orderings of the benches.
pub fn summarise(benches: Vec<DpBench>) -> DpStudy {
    let per = |f: &dyn Fn(&DpBench) -> f64| benches.iter().map(f).collect::<Vec<f64>>();
    let d_flat = per(&|b| b.cycles(DTBL_M, "flat") / b.cycles(DTBL_M, "dtbl"));
    let d_cdp = per(&|b| b.cycles(DTBL_M, "cdp") / b.cycles(DTBL_M, "dtbl"));
    let s_flat = per(&|b| b.cycles(SPAWN_M, "flat") / b.cycles(SPAWN_M, "spawn"));
    let s_base = per(&|b| b.cycles(SPAWN_M, "cdp") / b.cycles(SPAWN_M, "spawn"));
    let s_off = per(&|b| b.offline.1 as f64 / b.cycles(SPAWN_M, "spawn"));
    let kids = per(&|b| {
        let k = |m: &str| {
            b.run(SPAWN_M, m)
                .map_or(f64::NAN, |r| r.dp.child_kernels as f64)
        };
        k("spawn") / k("cdp").max(1.0)
    });
    let measured = [
        mean(&d_flat),
        mean(&d_cdp),
        geomean(&s_flat),
        geomean(&s_base),
        geomean(&s_off),
        mean(&kids),
    ];
    let summary = PAPER
        .iter()
        .zip(measured)
        .map(|(&(n, p), m)| (n.to_string(), p, m))
        .collect();
    let mut contradictions = Vec::new();
    for b in &benches {
        let c = |m: &str, mode: &str| b.cycles(m, mode);
        let (flat, cdp, dtbl) = (c(DTBL_M, "flat"), c(DTBL_M, "cdp"), c(DTBL_M, "dtbl"));
        if dtbl > flat {
            contradictions.push(format!(
                "{}: DTBL slower than flat ({dtbl} > {flat} cycles)",
                b.app
            ));
        }
        if dtbl > cdp {
            contradictions.push(format!(
                "{}: DTBL slower than CDP ({dtbl} > {cdp} cycles)",
                b.app
            ));
        }
        if cdp < flat {
            contradictions.push(format!(
                "{}: CDP faster than flat ({cdp} < {flat} cycles); the DTBL paper has CDP 1.16x slower on average",
                b.app
            ));
        }
        let (base, spawn) = (c(SPAWN_M, "cdp"), c(SPAWN_M, "spawn"));
        if spawn > base {
            contradictions.push(format!(
                "{}: SPAWN slower than Baseline-DP ({spawn} > {base} cycles)",
                b.app
            ));
        }
        if spawn > 1.04 * b.offline.1 as f64 {
            contradictions.push(format!(
                "{}: SPAWN more than 4% slower than Offline-Search ({spawn} vs {} cycles at threshold {})",
                b.app, b.offline.1, b.offline.0
            ));
        }
    }
    DpStudy {
        benches,
        summary,
        contradictions,
    }
}

/// Mean resident child TBs over a run (its concurrency series' points).
pub fn mean_child_tbs(d: &DpStats) -> f64 {
    mean(&d.series.iter().map(|p| p.child_tbs).collect::<Vec<_>>())
}

/// The Markdown report.
pub fn report(s: &DpStudy, o: &DpStudyOptions) -> String {
    let mut r = String::new();
    let size = match o.graph {
        Some((sc, e)) => format!("R-MAT scale {sc}, {e} edges"),
        None => "the shipped R-MAT graphs (scale 14, 131,072 edges)".into(),
    };
    let _ = writeln!(
        r,
        "# GPU dynamic parallelism study (`weft eval --study dp`)\n"
    );
    let _ = writeln!(
        r,
        "Workloads: {} on {size}. DTBL group on `{DTBL_M}` (Table 3 latencies), SPAWN group on `{SPAWN_M}` (1721·x + 20210). Flat versions as in the DTBL paper: bfs expands vertices of 32+ edges warp-cooperatively (Merrill's warp-based gathering), sssp and clr loop over a vertex's edges in its thread. Children are the parent's function and TB shape, so DTBL groups coalesce into the running kernel. Baseline-DP is CDP with the template's threshold (degree > 128); Offline-Search sweeps thresholds {:?}. `child TBs` is the mean number of resident child TBs over the run, `peak` its peak (the timelines are in `dp_timeline.svg`).\n",
        o.apps.join(", "),
        SWEEP
    );
    let _ = writeln!(r, "| workload | machine | mode | cycles | speedup vs flat | children | groups | threads/child | wait | occupancy | child TBs | peak |");
    let _ = writeln!(
        r,
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for b in &s.benches {
        for x in &b.runs {
            let flat = b.cycles(&x.machine, "flat");
            let _ = writeln!(
                r,
                "| {} | {} | {} | {} | {:.2} | {} | {} | {:.1} | {:.0} | {:.3} | {:.1} | {} |",
                b.app,
                x.machine,
                x.mode,
                x.cycles,
                flat / x.cycles as f64,
                x.dp.child_kernels,
                x.dp.aggregated_groups,
                x.dp.threads_per_child,
                x.dp.avg_wait_cycles,
                x.occupancy,
                mean_child_tbs(&x.dp),
                x.dp.peak_child_tbs
            );
        }
        let _ = writeln!(
            r,
            "| {} | {SPAWN_M} | Offline-Search (threshold={}) | {} | | | | | | | | |",
            b.app, b.offline.0, b.offline.1
        );
    }
    let _ = writeln!(r, "\n## Next to the papers\n");
    let _ = writeln!(r, "| quantity | paper | measured |");
    let _ = writeln!(r, "|---|---:|---:|");
    for (n, p, m) in &s.summary {
        let _ = writeln!(r, "| {n} | {p:.2} | {m:.2} |");
    }
    let _ = writeln!(r, "\n## Contradictions of the papers' orderings\n");
    if s.contradictions.is_empty() {
        let _ = writeln!(r, "None.");
    }
    for c in &s.contradictions {
        let _ = writeln!(r, "- {c}");
    }
    r
}

/// A bar chart of speedups over flat per workload and mode (SVG).
pub fn plot(s: &DpStudy) -> String {
    let modes: [(&str, &str); 7] = [
        (DTBL_M, "cdp"),
        (DTBL_M, "cdpi"),
        (DTBL_M, "dtbl"),
        (DTBL_M, "dtbli"),
        (SPAWN_M, "cdp"),
        (SPAWN_M, "spawn"),
        (SPAWN_M, "offline"),
    ];
    let bar = 14.0;
    let group = bar * (modes.len() as f64 + 1.0);
    let h = 220.0;
    let w = 60.0 + group * s.benches.len() as f64;
    let vals: Vec<Vec<f64>> = s
        .benches
        .iter()
        .map(|b| {
            modes
                .iter()
                .map(|&(m, mode)| {
                    let flat = b.cycles(m, "flat");
                    let c = if mode == "offline" {
                        b.offline.1 as f64
                    } else {
                        b.cycles(m, mode)
                    };
                    flat / c
                })
                .collect()
        })
        .collect();
    let top = vals.iter().flatten().cloned().fold(1.0f64, f64::max) * 1.1;
    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{}\" font-family=\"sans-serif\" font-size=\"10\">\n",
        h + 40.0
    );
    let y1 = h - h / top;
    let _ = writeln!(o, "<line x1=\"40\" x2=\"{w}\" y1=\"{y1:.1}\" y2=\"{y1:.1}\" stroke=\"gray\" stroke-dasharray=\"3\"/><text x=\"2\" y=\"{y1:.1}\">1.0x</text>");
    let colours = [
        "#888", "#bbb", "#1f77b4", "#9ecae1", "#d62728", "#2ca02c", "#98df8a",
    ];
    for (bi, b) in s.benches.iter().enumerate() {
        let x0 = 50.0 + bi as f64 * group;
        for (mi, v) in vals[bi].iter().enumerate() {
            let bh = h * v / top;
            let _ = writeln!(
                o,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{}\" height=\"{bh:.1}\" fill=\"{}\"><title>{} {} {v:.2}x</title></rect>",
                x0 + mi as f64 * bar,
                h - bh,
                bar - 2.0,
                colours[mi],
                modes[mi].0,
                modes[mi].1
            );
        }
        let _ = writeln!(o, "<text x=\"{x0}\" y=\"{}\">{}</text>", h + 14.0, b.app);
    }
    let legend: Vec<String> = modes.iter().map(|m| format!("{} {}", m.1, m.0)).collect();
    let _ = writeln!(
        o,
        "<text x=\"2\" y=\"{}\">bars: {} (speedup over flat)</text>",
        h + 32.0,
        legend.join(", ")
    );
    o.push_str("</svg>\n");
    o
}

/// The versions drawn over time: (machine, mode, colour).
const TIMELINE: [(&str, &str, &str); 4] = [
    (DTBL_M, "cdp", "#d62728"),
    (DTBL_M, "dtbl", "#1f77b4"),
    (SPAWN_M, "cdp", "#ff7f0e"),
    (SPAWN_M, "spawn", "#2ca02c"),
];

/// Resident child TBs (solid) and parent TBs (dashed) over time, one panel per
/// workload, for CDP, DTBL, Baseline-DP and SPAWN (SVG; SPAWN's Fig. 2.17 kind of
/// timeline, digest §3.6).
pub fn timeline(s: &DpStudy) -> String {
    let (pw, ph, gap) = (420.0, 160.0, 40.0);
    let h = (ph + gap) * s.benches.len() as f64 + 30.0;
    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"10\">\n",
        pw + 80.0
    );
    for (bi, b) in s.benches.iter().enumerate() {
        let y0 = 20.0 + bi as f64 * (ph + gap);
        let runs: Vec<(&DpRun, &str)> = TIMELINE
            .iter()
            .filter_map(|&(m, mode, c)| b.run(m, mode).map(|r| (r, c)))
            .collect();
        let tmax = runs.iter().map(|(r, _)| r.cycles).max().unwrap_or(1).max(1) as f64;
        let ymax = runs
            .iter()
            .flat_map(|(r, _)| r.dp.series.iter().map(|p| p.child_tbs.max(p.parent_tbs)))
            .fold(1.0f64, f64::max);
        let _ = writeln!(
            o,
            "<text x=\"50\" y=\"{:.1}\">{}: resident TBs over time (0 to {} cycles, peak mean {ymax:.0})</text>",
            y0 - 4.0,
            b.app,
            tmax as u64
        );
        let _ = writeln!(
            o,
            "<rect x=\"50\" y=\"{y0:.1}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#ccc\"/>"
        );
        for (r, colour) in &runs {
            for (child, dash) in [(true, ""), (false, " stroke-dasharray=\"4 2\"")] {
                let pts: Vec<String> =
                    r.dp.series
                        .iter()
                        .map(|p| {
                            let v = if child { p.child_tbs } else { p.parent_tbs };
                            format!(
                                "{:.1},{:.1}",
                                50.0 + pw * p.start as f64 / tmax,
                                y0 + ph - ph * v / ymax
                            )
                        })
                        .collect();
                let _ = writeln!(
                    o,
                    "<polyline fill=\"none\" stroke=\"{colour}\"{dash} points=\"{}\"><title>{} {} {}</title></polyline>",
                    pts.join(" "),
                    r.machine,
                    r.mode,
                    if child { "child TBs" } else { "parent TBs" }
                );
            }
        }
    }
    let legend: Vec<String> = TIMELINE
        .iter()
        .map(|(m, mode, c)| format!("{mode} {m} ({c})"))
        .collect();
    let _ = writeln!(
        o,
        "<text x=\"2\" y=\"{:.1}\">solid: child TBs, dashed: parent TBs; {}</text>",
        h - 8.0,
        legend.join(", ")
    );
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(machine: &str, mode: &str, cycles: u64, kids: u64) -> DpRun {
        DpRun {
            machine: machine.into(),
            mode: mode.into(),
            cycles,
            occupancy: 0.5,
            work: 10,
            dp: DpStats {
                child_kernels: kids,
                ..DpStats::default()
            },
        }
    }

    /// Averages and orderings on hand-made numbers.
    #[test]
    fn summary_and_contradictions() {
        let b = DpBench {
            app: "g".into(),
            runs: vec![
                run_of(DTBL_M, "flat", 1200, 0),
                run_of(DTBL_M, "cdp", 1500, 10),
                run_of(DTBL_M, "dtbl", 1000, 0),
                run_of(SPAWN_M, "flat", 1690, 0),
                run_of(SPAWN_M, "cdp", 1570, 100),
                run_of(SPAWN_M, "spawn", 1000, 27),
            ],
            offline: (64, 1000),
        };
        let s = summarise(vec![b]);
        let m: Vec<f64> = s.summary.iter().map(|x| x.2).collect();
        for (got, want) in m.iter().zip([1.2, 1.5, 1.69, 1.57, 1.0, 0.27]) {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
        assert!(s.contradictions.is_empty(), "{:?}", s.contradictions);
        let mut bad = s.benches[0].clone();
        bad.runs[1].cycles = 1100; // CDP faster than flat
        let s = summarise(vec![bad]);
        assert_eq!(s.contradictions.len(), 1);
        assert!(s.contradictions[0].contains("CDP faster than flat"));
        assert!(plot(&s).starts_with("<svg"));
        assert!(timeline(&s).contains("g: resident TBs"));
    }
}
