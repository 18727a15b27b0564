//! The iPAWS warp-scheduling study (`weft eval --study ipaws`, issue #32 part 3):
//! GTO, LRR and iPAWS (and `iPAWS_ind_cores`) on the shipped iPAWS workloads
//! (`memsim/workloads/ipaws/`, digest §5.4) on `gtx480-ipaws` (iPAWS Table 1),
//! reported next to the paper (digest §5.5): GTO ahead on the greedy-friendly
//! class (GF), LRR ahead on the round-robin-friendly class (RF), iPAWS within a
//! few percent of the better of the two per workload, and its decision, warps of
//! interest and degree of convexity per kernel. The L1 access breakdown
//! (intra-/inter-warp hits and misses, cold; until the first warp ends and over the
//! kernel, iPAWS Fig. 4 / 20) comes with every run. Acceptance is on sign and
//! ordering; every contradiction is listed.

use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::config::WarpSchedKind;
use weft_memsim::gpu::warpsched::locality::Counts;
use weft_memsim::gpu::warpsched::IpawsReport;
use weft_memsim::gpu::workload;
use weft_memsim::gpu::{GpuOptions, GpuSim};

/// Errors of the study (a failed load or run).
pub type IpawsError = Box<dyn std::error::Error + Send + Sync>;

/// The machine (iPAWS Table 1).
pub const MACHINE: &str = "gtx480-ipaws";

/// Workload class (iPAWS Table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Class {
    /// GTO-friendly.
    Gf,
    /// Round-robin-friendly.
    Rf,
    /// Kernels of both classes (KMN).
    Mixed,
}

/// The shipped workloads: name, class, what stands for which paper workload, TOML.
pub const WORKLOADS: [(&str, Class, &str, &str); 6] = [
    (
        "intra",
        Class::Gf,
        "KMN k0 / CCWS-style private re-reads",
        include_str!("../../../memsim/workloads/ipaws/intra.toml"),
    ),
    (
        "rowspmv",
        Class::Gf,
        "SPMV, nonzeros adjacent in a row (Fig. 17)",
        include_str!("../../../memsim/workloads/ipaws/rowspmv.toml"),
    ),
    (
        "sc",
        Class::Rf,
        "SC, shared centre coordinates, D = 64",
        include_str!("../../../memsim/workloads/ipaws/sc.toml"),
    ),
    (
        "lps",
        Class::Rf,
        "LPS, 3-D stencil with inter-warp halo (Fig. 3)",
        include_str!("../../../memsim/workloads/ipaws/lps.toml"),
    ),
    (
        "blk",
        Class::Rf,
        "BLK, streaming with DRAM row-buffer locality",
        include_str!("../../../memsim/workloads/ipaws/blk.toml"),
    ),
    (
        "kmn",
        Class::Mixed,
        "KMN, k0 private re-reads then k1 shared centres",
        include_str!("../../../memsim/workloads/ipaws/kmn.toml"),
    ),
];

/// The schedulers compared.
pub const SCHEDULERS: [&str; 6] = ["gto", "lrr", "ipaws", "ipaws-ind", "ccws", "ipaws-ccws"];

/// Published figures (digest §5.5); the iPAWS-vs-best figure is "within a few
/// percent" (0.98 stands for it).
pub const PAPER: [(&str, f64); 5] = [
    ("GTO speedup over LRR, GF workloads (average)", 1.60),
    ("LRR speedup over GTO, RF workloads (average)", 1.43),
    (
        "iPAWS / better of GTO and LRR, all workloads (average)",
        0.98,
    ),
    ("iPAWS speedup over LRR, GF workloads (average)", 1.38),
    ("iPAWS-CCWS speedup over CCWS, RF workloads (average)", 1.40),
];

/// Study options.
#[derive(Debug, Clone)]
pub struct IpawsStudyOptions {
    /// Output directory (`ipaws.json`, `ipaws.md`, `ipaws.svg`).
    pub out: PathBuf,
    /// Workloads (names of [`WORKLOADS`]).
    pub workloads: Vec<String>,
    /// Schedulers (of [`SCHEDULERS`]).
    pub schedulers: Vec<String>,
    /// Print progress lines on stderr.
    pub verbose: bool,
}

impl IpawsStudyOptions {
    /// Every workload and scheduler.
    pub fn full(out: &Path) -> Self {
        IpawsStudyOptions {
            out: out.to_path_buf(),
            workloads: WORKLOADS.iter().map(|w| w.0.to_string()).collect(),
            schedulers: SCHEDULERS.iter().map(|s| s.to_string()).collect(),
            verbose: true,
        }
    }

    /// Without `ipaws-ind`.
    pub fn quick(out: &Path) -> Self {
        IpawsStudyOptions {
            schedulers: vec!["gto".into(), "lrr".into(), "ipaws".into()],
            ..Self::full(out)
        }
    }
}

/// One run.
#[derive(Debug, Clone, Serialize)]
pub struct IpawsRun {
    /// Scheduler.
    pub sched: String,
    /// Cycles.
    pub cycles: u64,
    /// IPC (warp instructions per cycle).
    pub ipc: f64,
    /// L1 hit rate.
    pub l1_hit_rate: f64,
    /// DRAM row-buffer hit rate.
    pub row_hit_rate: f64,
    /// Mean L1-miss latency (AMAT beyond the L1).
    pub avg_mem_latency: f64,
    /// L1 access breakdown until the first warp ends, summed over kernels.
    pub one: Counts,
    /// Over the whole run.
    pub all: Counts,
    /// iPAWS's decisions (iPAWS runs).
    pub ipaws: Option<IpawsReport>,
}

/// One workload's runs.
#[derive(Debug, Clone, Serialize)]
pub struct IpawsBench {
    /// Workload.
    pub name: String,
    /// Class.
    pub class: Class,
    /// Runs in scheduler order.
    pub runs: Vec<IpawsRun>,
}

impl IpawsBench {
    /// Cycles of scheduler `s` (NaN if it did not run).
    pub fn cycles(&self, s: &str) -> f64 {
        self.run(s).map_or(f64::NAN, |r| r.cycles as f64)
    }

    /// The run of scheduler `s`.
    pub fn run(&self, s: &str) -> Option<&IpawsRun> {
        self.runs.iter().find(|r| r.sched == s)
    }

    /// The better static scheduler and its cycles.
    pub fn best_static(&self) -> (&'static str, f64) {
        let (g, l) = (self.cycles("gto"), self.cycles("lrr"));
        if l < g {
            ("lrr", l)
        } else {
            ("gto", g)
        }
    }
}

/// The study's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct IpawsStudy {
    /// Per workload.
    pub benches: Vec<IpawsBench>,
    /// Measured figures beside the paper's: (name, paper, measured).
    pub summary: Vec<(String, f64, f64)>,
    /// Claims of the paper our numbers contradict.
    pub contradictions: Vec<String>,
}

fn simulate(name: &str, text: &str, sched: &str) -> Result<IpawsRun, IpawsError> {
    let cfg = MachineConfig::preset(MACHINE)?;
    let wl = Arc::new(workload::parse(text, name)?);
    let kind = WarpSchedKind::parse(sched).ok_or_else(|| format!("no scheduler `{sched}`"))?;
    let opts = GpuOptions {
        warp_sched: Some(kind),
        seed: 1,
        ..Default::default()
    };
    let mut sim = GpuSim::build(&cfg, wl, &opts)?;
    sim.enable_l1_breakdown();
    let s = sim.run(|_| {})?;
    let (mut one, mut all) = (Counts::default(), Counts::default());
    for k in sim.l1_breakdown() {
        one.add(&k.one);
        all.add(&k.all);
    }
    Ok(IpawsRun {
        sched: sched.into(),
        cycles: s.cycles,
        ipc: s.ipc,
        l1_hit_rate: s.l1_hit_rate,
        row_hit_rate: s
            .dram
            .get("row_hit_rate")
            .and_then(|v| v.as_f64())
            .unwrap_or(0.0),
        avg_mem_latency: s.avg_mem_latency,
        one,
        all,
        ipaws: sim.warp_sched_ctx().ipaws_report(),
    })
}

/// Runs the study and writes its report.
pub fn run(o: &IpawsStudyOptions) -> Result<IpawsStudy, IpawsError> {
    let mut benches = Vec::new();
    for w in &o.workloads {
        let (name, class, _, text) = WORKLOADS
            .iter()
            .find(|x| x.0 == w.as_str())
            .ok_or_else(|| format!("no iPAWS workload `{w}`"))?;
        let mut runs = Vec::new();
        for s in &o.schedulers {
            let r = simulate(name, text, s)?;
            if o.verbose {
                eprintln!(
                    "ipaws study: {name:<8} {s:<9} {} cycles, L1 hit {:.3}",
                    r.cycles, r.l1_hit_rate
                );
            }
            runs.push(r);
        }
        benches.push(IpawsBench {
            name: name.to_string(),
            class: *class,
            runs,
        });
    }
    let study = summarise(benches);
    std::fs::create_dir_all(&o.out)?;
    std::fs::write(
        o.out.join("ipaws.json"),
        serde_json::to_string_pretty(&study)?,
    )?;
    std::fs::write(o.out.join("ipaws.md"), report(&study))?;
    std::fs::write(o.out.join("ipaws.svg"), plot(&study))?;
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

/// The Execute-phase choice of iPAWS per kernel (`gto`, `lrr`, ...).
fn choices(r: &IpawsRun) -> Vec<String> {
    r.ipaws
        .as_ref()
        .map(|p| p.kernels.iter().map(|k| k.choice.clone()).collect())
        .unwrap_or_default()
}

/// Averages and contradictions of the benches.
pub fn summarise(benches: Vec<IpawsBench>) -> IpawsStudy {
    let of = |c: Class, f: &dyn Fn(&IpawsBench) -> f64| {
        mean(
            &benches
                .iter()
                .filter(|b| b.class == c)
                .map(f)
                .collect::<Vec<_>>(),
        )
    };
    let measured = [
        of(Class::Gf, &|b| b.cycles("lrr") / b.cycles("gto")),
        of(Class::Rf, &|b| b.cycles("gto") / b.cycles("lrr")),
        mean(
            &benches
                .iter()
                .map(|b| b.best_static().1 / b.cycles("ipaws"))
                .collect::<Vec<_>>(),
        ),
        of(Class::Gf, &|b| b.cycles("lrr") / b.cycles("ipaws")),
        of(Class::Rf, &|b| b.cycles("ccws") / b.cycles("ipaws-ccws")),
    ];
    let summary = PAPER
        .iter()
        .zip(measured)
        .map(|(&(n, p), m)| (n.to_string(), p, m))
        .collect();
    let mut contradictions = Vec::new();
    for b in &benches {
        let (g, l) = (b.cycles("gto"), b.cycles("lrr"));
        match b.class {
            Class::Gf if l < g => contradictions.push(format!(
                "{}: GTO-friendly workload faster under LRR ({l} < {g} cycles)",
                b.name
            )),
            Class::Rf if g < l => contradictions.push(format!(
                "{}: round-robin-friendly workload faster under GTO ({g} < {l} cycles)",
                b.name
            )),
            _ => {}
        }
        if let Some(r) = b.run("ipaws") {
            let (best, c) = b.best_static();
            let ratio = c / r.cycles as f64;
            if ratio < 0.95 {
                contradictions.push(format!(
                    "{}: iPAWS {:.1}% slower than the better static scheduler ({best}, {c} vs {} cycles)",
                    b.name,
                    100.0 * (1.0 / ratio - 1.0),
                    r.cycles
                ));
            }
            let ch = choices(r);
            let want: &[&str] = match b.class {
                Class::Gf => &["gto"],
                Class::Rf => &["lrr"],
                Class::Mixed => &["gto", "lrr"],
            };
            if b.class != Class::Mixed && ch.iter().any(|c| c != want[0]) {
                contradictions.push(format!(
                    "{}: iPAWS chose {:?}, the class calls for {}",
                    b.name, ch, want[0]
                ));
            }
            if b.class == Class::Mixed && ch != want {
                contradictions.push(format!(
                    "{}: iPAWS chose {:?} for its kernels, expected {:?}",
                    b.name, ch, want
                ));
            }
        }
    }
    IpawsStudy {
        benches,
        summary,
        contradictions,
    }
}

fn share(c: &Counts, i: usize) -> f64 {
    c.n[i] as f64 / c.total().max(1) as f64
}

/// The Markdown report.
pub fn report(s: &IpawsStudy) -> String {
    let mut r = String::new();
    let _ = writeln!(
        r,
        "# iPAWS warp-scheduling study (`weft eval --study ipaws`)\n"
    );
    let _ = writeln!(
        r,
        "Machine `{MACHINE}` (iPAWS Table 1). Workloads `memsim/workloads/ipaws/*.toml`:"
    );
    for (n, c, what, _) in WORKLOADS {
        if s.benches.iter().any(|b| b.name == n) {
            let _ = writeln!(r, "- `{n}` ({c:?}): {what}");
        }
    }
    let _ = writeln!(
        r,
        "\n| workload | class | scheduler | cycles | IPC / GTO | L1 hit | intra hit | inter hit | intra miss | inter miss | cold | row hit | L1-miss latency | iPAWS choice (WOI/warps, DoC, adapt %, recover %) |"
    );
    let _ = writeln!(
        r,
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    for b in &s.benches {
        let g = b.cycles("gto");
        for x in &b.runs {
            let ch = x.ipaws.as_ref().map_or(String::new(), |p| {
                p.kernels
                    .iter()
                    .map(|k| {
                        format!(
                            "k{} {} ({}/{}, {:.2}, {:.1}, {:.1})",
                            k.kernel,
                            k.choice,
                            k.woi,
                            k.warps,
                            k.doc,
                            100.0 * k.adapt_share,
                            100.0 * k.recover_share
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            });
            let _ = writeln!(
                r,
                "| {} | {:?} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.0} | {} |",
                b.name,
                b.class,
                x.sched,
                x.cycles,
                g / x.cycles as f64,
                x.l1_hit_rate,
                share(&x.all, 0),
                share(&x.all, 1),
                share(&x.all, 2),
                share(&x.all, 3),
                share(&x.all, 4),
                x.row_hit_rate,
                x.avg_mem_latency,
                ch
            );
        }
    }
    let _ = writeln!(
        r,
        "\nL1 access breakdown until the first warp of each kernel ends on its SM (ONE, iPAWS Fig. 20), shares of read lookups (intra hit / inter hit / intra miss / inter miss / cold):\n"
    );
    let _ = writeln!(r, "| workload | scheduler | ONE | ALL |");
    let _ = writeln!(r, "|---|---|---|---|");
    for b in &s.benches {
        for x in &b.runs {
            let f = |c: &Counts| {
                (0..5)
                    .map(|i| format!("{:.2}", share(c, i)))
                    .collect::<Vec<_>>()
                    .join(" / ")
            };
            let _ = writeln!(
                r,
                "| {} | {} | {} | {} |",
                b.name,
                x.sched,
                f(&x.one),
                f(&x.all)
            );
        }
    }
    let _ = writeln!(r, "\n## Next to the paper\n");
    let _ = writeln!(r, "| quantity | paper | measured |");
    let _ = writeln!(r, "|---|---:|---:|");
    for (n, p, m) in &s.summary {
        let _ = writeln!(r, "| {n} | {p:.2} | {m:.2} |");
    }
    let _ = writeln!(r, "\n## Contradictions of the paper's claims\n");
    if s.contradictions.is_empty() {
        let _ = writeln!(r, "None.");
    }
    for c in &s.contradictions {
        let _ = writeln!(r, "- {c}");
    }
    r
}

/// IPC normalised to GTO per workload and scheduler (SVG bar chart).
pub fn plot(s: &IpawsStudy) -> String {
    let scheds: Vec<&str> = SCHEDULERS
        .iter()
        .copied()
        .filter(|x| s.benches.iter().any(|b| b.run(x).is_some()))
        .collect();
    let bar = 14.0;
    let group = bar * (scheds.len() as f64 + 1.0);
    let h = 220.0;
    let w = 60.0 + group * s.benches.len() as f64;
    let vals: Vec<Vec<f64>> = s
        .benches
        .iter()
        .map(|b| {
            scheds
                .iter()
                .map(|x| b.cycles("gto") / b.cycles(x))
                .collect()
        })
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
    let _ = writeln!(o, "<line x1=\"40\" x2=\"{w}\" y1=\"{y1:.1}\" y2=\"{y1:.1}\" stroke=\"gray\" stroke-dasharray=\"3\"/><text x=\"2\" y=\"{y1:.1}\">GTO</text>");
    let colours = [
        "#888", "#d62728", "#1f77b4", "#9ecae1", "#2ca02c", "#98df8a",
    ];
    for (bi, b) in s.benches.iter().enumerate() {
        let x0 = 50.0 + bi as f64 * group;
        for (si, v) in vals[bi].iter().enumerate() {
            let v = if v.is_finite() { *v } else { 0.0 };
            let bh = h * v / top;
            let _ = writeln!(
                o,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{}\" height=\"{bh:.1}\" fill=\"{}\"><title>{} {} {v:.2}</title></rect>",
                x0 + si as f64 * bar,
                h - bh,
                bar - 2.0,
                colours[si % colours.len()],
                b.name,
                scheds[si]
            );
        }
        let _ = writeln!(
            o,
            "<text x=\"{x0}\" y=\"{}\">{} ({:?})</text>",
            h + 14.0,
            b.name,
            b.class
        );
    }
    let _ = writeln!(
        o,
        "<text x=\"2\" y=\"{}\">bars: {} (IPC normalised to GTO)</text>",
        h + 32.0,
        scheds.join(", ")
    );
    o.push_str("</svg>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_of(sched: &str, cycles: u64, choice: Option<&str>) -> IpawsRun {
        IpawsRun {
            sched: sched.into(),
            cycles,
            ipc: 1.0,
            l1_hit_rate: 0.5,
            row_hit_rate: 0.5,
            avg_mem_latency: 300.0,
            one: Counts::default(),
            all: Counts { n: [1, 1, 1, 1, 1] },
            ipaws: choice.map(|c| IpawsReport {
                kernels: vec![weft_memsim::gpu::warpsched::KernelChoice {
                    kernel: 0,
                    choice: c.into(),
                    decided_by: Some(0),
                    woi: 24,
                    warps: 48,
                    doc: 1.4,
                    adapt_share: 0.1,
                    recover_share: 0.05,
                }],
                records: Vec::new(),
            }),
        }
    }

    /// Averages and contradictions on hand-made numbers.
    #[test]
    fn summary_and_contradictions() {
        let gf = IpawsBench {
            name: "g".into(),
            class: Class::Gf,
            runs: vec![
                run_of("gto", 1000, None),
                run_of("lrr", 1600, None),
                run_of("ipaws", 1000, Some("gto")),
            ],
        };
        let rf = IpawsBench {
            name: "r".into(),
            class: Class::Rf,
            runs: vec![
                run_of("gto", 1430, None),
                run_of("lrr", 1000, None),
                run_of("ipaws", 1000, Some("lrr")),
            ],
        };
        let s = summarise(vec![gf.clone(), rf.clone()]);
        let m: Vec<f64> = s.summary.iter().map(|x| x.2).collect();
        for (got, want) in m.iter().zip([1.6, 1.43, 1.0, 1.6]) {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
        assert!(m[4].is_nan()); // no CCWS runs
        assert!(s.contradictions.is_empty(), "{:?}", s.contradictions);
        // wrong choice, 10% slower, and the RF workload faster under GTO
        let mut bad = rf;
        bad.runs[0].cycles = 900;
        bad.runs[2] = run_of("ipaws", 1000, Some("gto"));
        let s = summarise(vec![gf, bad]);
        assert_eq!(s.contradictions.len(), 3, "{:?}", s.contradictions);
        assert!(s.contradictions[0].contains("faster under GTO"));
        assert!(s.contradictions[1].contains("slower than the better"));
        assert!(s.contradictions[2].contains("chose"));
        assert!(plot(&s).starts_with("<svg"));
        assert!(report(&s).contains("| r | Rf | ipaws |"));
    }

    /// Every shipped workload parses.
    #[test]
    fn workloads_parse() {
        for (n, _, _, text) in WORKLOADS {
            let wl = workload::parse(text, n).expect("parses");
            assert!(!wl.functions.is_empty(), "{n}");
        }
    }
}
