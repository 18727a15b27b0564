//! The GPU dynamic-parallelism study (`weft eval --study dp`, issue #31): every
//! graph workload under flat, CDP, CDP without launch latency (CDPI), DTBL, DTBLI
//! (DTBL paper §5, on `k20c-dtbl`; and DTBL with a 4-entry AGT read-ahead,
//! [`DTBL_RA`], reported only) and under flat, Baseline-DP (CDP with the
//! programmer's threshold), SPAWN and Offline-Search (the best static threshold of
//! a sweep; SPAWN dissertation §2.5, on `k20-spawn`), reported next to the papers'
//! averages (digest §1.5, §3.5). Workloads are the shipped templates, whose launch
//! site's `else` is the flat version, so every version does the same work (the
//! frame checks it). Cells and claims only; the rest is `gpu_study`'s frame.

use super::gpu_study::{
    average_claim, contradiction, factor, geomean, mean, Claim, Column, GpuCell, GpuSize, GpuStudy,
    Measured, RunSpec, Runs, WorkloadSpec,
};
use std::fmt::Write as _;

/// The DTBL paper's machine and SPAWN's.
pub const DTBL_M: &str = "k20c-dtbl";
/// SPAWN's machine.
pub const SPAWN_M: &str = "k20-spawn";

/// Every run of a workload: (machine = group, `--dp` mode = variant, in the
/// `--quick` GPU part). Adding a version is one line.
pub const VARIANTS: &[(&str, &str, bool)] = &[
    (DTBL_M, "flat", true),
    (DTBL_M, "cdp", true),
    (DTBL_M, "cdpi", false),
    (DTBL_M, "dtbl", true),
    (DTBL_M, "dtbli", false),
    (DTBL_M, DTBL_RA, false),
    (SPAWN_M, "flat", true),
    (SPAWN_M, "cdp", true),
    (SPAWN_M, "spawn", true),
    (SPAWN_M, SPAWN_S6, false),
];

/// DTBL reading `READ_AHEAD` overflowed AGT entries at once (`[gpu.device_launch]
/// agt_prefetch`; the paper reads the one its next group needs, `dtbl`): how much
/// of DTBL's time the serialised spill reads cost (docs/gpu-dp.md, session 19).
pub const DTBL_RA: &str = "dtbl-ra4";

/// The read-ahead of [`DTBL_RA`].
pub const READ_AHEAD: u32 = 4;

/// SPAWN as session 6 read it (`t_overhead` over every requesting lane, `n_con
/// = 0` clamped to 1; docs/gpu-dp.md "Why SPAWN is below Baseline-DP"), run
/// beside `spawn` to show what the two readings change.
pub const SPAWN_S6: &str = "spawn-req-clamp";

/// Thresholds Offline-Search sweeps on the graph apps (the parent's workload,
/// edges; `quick` and `full` only). Up to 2048: BFS on the Graph 500 input is
/// fastest at 1024 (1,889,817 cycles against 1,919,780 at 512, session 16), so
/// a sweep ending at 512 understated Offline-Search there.
pub const SWEEP: [u64; 10] = [0, 8, 16, 32, 64, 128, 256, 512, 1024, 2048];

/// The graph apps, on R-MAT graphs resized per study size.
const GRAPH_APPS: [&str; 3] = ["bfs", "sssp", "clr"];

/// The session-5 apps with a built-in input (no graph to resize; full size
/// only) and the thresholds Offline-Search sweeps on each: the site's
/// `workload` is the subtree work `T_sub` for the Type II apps (`amr`,
/// `mandelbrot`, `quicksort`), the bucket size for the joins, the candidates for
/// `sa` and nonzeros times B's 64 columns for `spmm`; each sweep brackets the
/// template's own threshold (Baseline-DP) and reaches the threshold above
/// which nothing launches or past the best one. `amr` and `quicksort` swept up
/// to 1024 and 4096 until session 16, where their best split lies further out
/// (4096: 427,977 cycles against 495,430 at 1024; 32768: 948,093 against
/// 1,113,839 at 4096), so Offline-Search was understated by 14-15% there; the
/// report flags a best threshold at the end of its sweep ([`edge_notes`]).
pub const BUILTIN_APPS: [(&str, &[u64]); 7] = [
    ("amr", &[0, 16, 64, 256, 1024, 2048, 4096, 8192]),
    ("mandelbrot", &[0, 64, 128, 256, 512, 1024, 2048, 4096]),
    ("join_uniform", &[0, 8, 16, 32, 64, 128, 256, 512]),
    ("join_gaussian", &[0, 8, 16, 32, 64, 128, 256, 512]),
    ("spmm", &[0, 128, 256, 512, 1024, 2048, 4096, 8192]),
    ("sa", &[0, 32, 64, 128, 256, 512, 1024, 2048]),
    (
        "quicksort",
        &[0, 256, 1024, 4096, 8192, 16384, 32768, 65536],
    ),
];

/// The input label of a built-in app's cells.
pub const BUILTIN: &str = "built-in";

/// The SPAWN and LASER chapters' Graph 500 input (thesis Table 3.3: 65,536
/// vertices, 2,456,071 edges) as an R-MAT of the same size with the templates'
/// R-MAT parameters: `BFS-graph500`, `SSSP-graph500`, `GC-graph500` (full size).
pub const GRAPH500: (u32, u64) = (16, 2_456_071);

/// The input label of the Graph 500-sized cells.
pub const GRAPH500_LABEL: &str = "graph500";

/// The joins at the papers' probe counts (DTBL Table 4 and SPAWN Table 2.1
/// give the arrays as 2 x 204,800 uniform and 2 x 300,000 Gaussian tuples):
/// `nr` probes instead of the templates' 16,384, the build side S and its
/// buckets unchanged, so the work per probe is the template's and the probe
/// kernel runs 15-23 waves of TBs instead of about one. Run with the kernel
/// order of SPAWN's simulator (GPGPU-Sim 3.x rotates the kernel of each TB,
/// `kernel_order = "rotate"`): under FCFS a child cannot start before the
/// parent's last TB is placed, so SPAWN would decide every request blind
/// (docs/gpu-dp.md, "Session 18").
pub const PAPER_JOINS: [(&str, i64); 2] = [("join_uniform", 204_800), ("join_gaussian", 300_000)];

/// The input label of the paper-size join cells.
pub const PAPER_LABEL: &str = "paper size, rotated kernels";

/// A workload of the study.
struct Input {
    app: &'static str,
    /// R-MAT (scale, edges), `None` for the template's own input.
    graph: Option<(u32, u64)>,
    /// `[defs]` values (`weft gpusim -D`).
    defines: Vec<(&'static str, i64)>,
    /// `--kernel-order` (`None`: the machine's, FCFS).
    order: Option<&'static str>,
    label: String,
    /// Offline-Search's thresholds.
    sweep: Vec<u64>,
}

impl Input {
    fn new(app: &'static str, graph: Option<(u32, u64)>, label: &str, sweep: &[u64]) -> Self {
        Input {
            app,
            graph,
            defines: Vec::new(),
            order: None,
            label: label.to_string(),
            sweep: sweep.to_vec(),
        }
    }
}

/// Workloads of a size.
fn workloads(size: GpuSize) -> Vec<Input> {
    // The graph apps on one graph (`None`: the templates' own), one label.
    let graph = |g: Option<(u32, u64)>, label: &str| {
        GRAPH_APPS
            .iter()
            .map(|&a| Input::new(a, g, label, &SWEEP))
            .collect::<Vec<_>>()
    };
    match size {
        GpuSize::Smoke => vec![Input::new("bfs", Some((9, 4096)), "scale 9", &SWEEP)],
        GpuSize::Quick => graph(Some((11, 16_384)), "scale 11"),
        GpuSize::Full => {
            let mut v = graph(None, "scale 14");
            v.extend(graph(Some(GRAPH500), GRAPH500_LABEL));
            v.extend(
                BUILTIN_APPS
                    .iter()
                    .map(|&(a, sw)| Input::new(a, None, BUILTIN, sw)),
            );
            for (app, nr) in PAPER_JOINS {
                let sweep = BUILTIN_APPS
                    .iter()
                    .find(|b| b.0 == app)
                    .map_or(&[][..], |b| b.1);
                let mut i = Input::new(app, None, PAPER_LABEL, sweep);
                i.defines.push(("nr", nr));
                i.order = Some("rotate");
                v.push(i);
            }
            v
        }
    }
}

/// Published averages (digest §1.5, §3.5).
const SRC_DTBL: &str = "DTBL §5 (gpu-seeds §1.5)";
const SRC_SPAWN: &str = "SPAWN §2.5 (gpu-seeds §3.5)";

/// The study.
pub struct Dp;

fn mean_child_tbs(m: &Measured) -> f64 {
    let pts = m
        .extra
        .get("dp")
        .and_then(|d| d.get("series"))
        .and_then(|s| s.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|p| p.get("child_tbs").and_then(|v| v.as_f64()))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    mean(&pts)
}

/// Offline-Search at one point: the best threshold and its cycles.
fn offline(r: &Runs<'_>, bench: &str, input: &str) -> Option<(String, u64)> {
    r.recs
        .iter()
        .filter(|x| x.bench == bench && x.input == input && x.variant.starts_with("threshold="))
        .filter_map(|x| x.m.as_ref().map(|m| (x.variant.clone(), m.cycles)))
        .min_by_key(|(_, c)| *c)
}

/// Reported-only notes, one per point where Offline-Search's best threshold is
/// the largest one swept and still launched children: a larger threshold might
/// be faster, so the sweep may not bracket the best static split and
/// Offline-Search's performance (and SPAWN's ratio to it) may be understated
/// (overstated). Session 16 found amr, quicksort and bfs on Graph 500 so.
pub fn edge_notes(study: &str, r: &Runs<'_>) -> Vec<Claim> {
    let th = |v: &str| {
        v.strip_prefix("threshold=")
            .and_then(|n| n.parse::<u64>().ok())
    };
    let mut out = Vec::new();
    for (b, i) in r.points() {
        let Some((best, _)) = offline(r, b, i) else {
            continue;
        };
        let largest = r
            .recs
            .iter()
            .filter(|x| x.bench == b && x.input == i)
            .filter_map(|x| th(&x.variant))
            .max();
        let launched = r
            .get(b, i, SPAWN_M, &best)
            .map_or(0.0, |m| m.x("/dp/child_kernels"));
        if th(&best).is_some() && th(&best) == largest && launched > 0.0 {
            out.push(Claim {
                study: study.into(),
                bench: Some(point_label(b, i)),
                claim: "Offline-Search's sweep brackets its best threshold".into(),
                source: "weft method".into(),
                paper: String::new(),
                weft: format!("best at the largest threshold swept, {best}, which still launched {launched} children"),
                holds: None,
                analysis: "a larger threshold may be faster: Offline-Search may be understated here; extend the app's sweep (gpu_dp.rs)".into(),
            });
        }
    }
    out
}

/// A point's name in claims: the Graph 500 cells are named apart from the
/// app's default input.
fn point_label(b: &str, i: &str) -> String {
    if i == GRAPH500_LABEL {
        format!("{b} ({i})")
    } else {
        b.to_string()
    }
}

fn cycles(r: &Runs<'_>, b: &str, i: &str, g: &str, v: &str) -> f64 {
    r.get(b, i, g, v).map_or(f64::NAN, |m| m.cycles as f64)
}

/// SPAWN's decisions of a run: blind launches, and the decisions with history
/// with the means of their estimates (`spawn_model`).
fn spawn_model(m: &Measured) -> String {
    let d = m.x("/dp/spawn_model/decisions");
    if m.extra
        .get("dp")
        .and_then(|d| d.get("spawn_model"))
        .is_none()
    {
        return String::new();
    }
    format!(
        " ({} launched blind; {d} decisions with history, {} vetoed, mean t_child {:.0} (t_overhead {:.0}) vs t_parent {:.0}, workload {:.0}, n_con {:.1})",
        m.x("/dp/spawn_no_history"),
        m.x("/dp/spawn_model/vetoed"),
        m.x("/dp/spawn_model/t_child"),
        m.x("/dp/spawn_model/t_overhead"),
        m.x("/dp/spawn_model/t_parent"),
        m.x("/dp/spawn_model/workload"),
        m.x("/dp/spawn_model/n_con_used"),
    )
}

fn why(r: &Runs<'_>, b: &str, i: &str, runs: &[(&str, &str)]) -> String {
    runs.iter()
        .filter_map(|(g, v)| {
            let m = r.get(b, i, g, v)?;
            let model = if v.starts_with("spawn") {
                spawn_model(m)
            } else {
                String::new()
            };
            Some(format!(
                "{v} on {g}: {} cycles, occupancy {:.3}, {} child kernels{model}, {} aggregated groups, mean launch wait {:.0} cycles, mean resident child TBs {:.1}",
                m.cycles,
                m.occupancy,
                m.x("/dp/child_kernels"),
                m.x("/dp/aggregated_groups"),
                m.x("/dp/avg_wait_cycles"),
                mean_child_tbs(m)
            ))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl GpuStudy for Dp {
    fn id(&self) -> &'static str {
        "dp"
    }

    fn title(&self) -> &'static str {
        "Dynamic parallelism: CDP, DTBL, SPAWN"
    }

    fn about(&self) -> String {
        format!("DTBL group on `{DTBL_M}` (Table 3 latencies), SPAWN group on `{SPAWN_M}` (1721·x + 20210). Workloads: the shipped `bfs`, `sssp`, `clr` templates (the `--quick` GPU part: `bfs` on R-MAT scale 9; `--quick`: scale 11, 16,384 edges; full: scale 14, 131,072 edges, and `graph500`, an R-MAT of the SPAWN and LASER chapters' Graph 500 input, 65,536 vertices and 2,456,071 edges, thesis Table 3.3) and, at full size only, `amr`, `mandelbrot`, `join_uniform`, `join_gaussian`, `spmm`, `sa`, `quicksort` on their built-in inputs (input `built-in`; Offline-Search sweeps per app around the template's threshold), and the two joins again at the papers' probe counts (`-D nr=204800`, `nr=300000`: 15-23 waves of parent TBs instead of one) with the kernel order of SPAWN's simulator (input `{PAPER_LABEL}`: `--kernel-order rotate`, GPGPU-Sim 3.x's per-TB kernel rotation, in both groups). Flat versions as in the DTBL paper; children are the parent's function and TB shape, so DTBL groups coalesce into the running kernel. `{DTBL_RA}` is DTBL reading {READ_AHEAD} overflowed AGT entries at once along the Next chain (`agt_prefetch = {READ_AHEAD}`; the paper reads only the entry its next group needs), reported only: it shows what the serialised spill reads cost. Baseline-DP is CDP with the template's threshold (bfs/sssp/clr: degree > 128); `spawn` is SPAWN with `t_overhead` over the warp's launched lanes and `n_con` kept from the last window with running child CTAs, `{SPAWN_S6}` session 6's reading (over every requesting lane, clamped to 1); Offline-Search is the best of the thresholds (variants `threshold=N`; graph apps {SWEEP:?}). Docs: `docs/gpu-dp.md`.")
    }

    fn cells(&self, size: GpuSize) -> Vec<GpuCell> {
        let mut v = Vec::new();
        for w in workloads(size) {
            let mut wl = WorkloadSpec::shipped(w.app, w.graph);
            for &(k, x) in &w.defines {
                wl = wl.define(k, x);
            }
            let mut cell = |group: &str, mode: String| {
                // The read-ahead variant is DTBL on an edited machine.
                let (dp, prefetch) = match mode.as_str() {
                    DTBL_RA => ("dtbl", Some(READ_AHEAD)),
                    m => (m, None),
                };
                let mut spec = RunSpec::new(group, wl.clone()).dp(Some(dp));
                spec.edits.agt_prefetch = prefetch;
                if let Some(o) = w.order {
                    spec = spec.kernel_order(o);
                }
                v.push(GpuCell {
                    bench: w.app.into(),
                    input: w.label.clone(),
                    group: group.into(),
                    spec,
                    variant: mode,
                })
            };
            for &(g, mode, smoke) in VARIANTS {
                if smoke || size != GpuSize::Smoke {
                    cell(g, mode.into());
                }
            }
            if size != GpuSize::Smoke {
                for &th in &w.sweep {
                    cell(SPAWN_M, format!("threshold={th}"));
                }
            }
        }
        v
    }

    fn baseline(&self, _group: &str) -> &'static str {
        "flat"
    }

    fn columns(&self) -> Vec<Column> {
        vec![
            Column {
                head: "children",
                value: |m| format!("{}", m.x("/dp/child_kernels")),
            },
            Column {
                head: "groups",
                value: |m| format!("{}", m.x("/dp/aggregated_groups")),
            },
            Column {
                head: "threads/child",
                value: |m| format!("{:.1}", m.x("/dp/threads_per_child")),
            },
            Column {
                head: "wait",
                value: |m| format!("{:.0}", m.x("/dp/avg_wait_cycles")),
            },
            Column {
                head: "occupancy",
                value: |m| format!("{:.3}", m.occupancy),
            },
            Column {
                head: "child TBs",
                value: |m| format!("{:.1}", mean_child_tbs(m)),
            },
            Column {
                head: "peak",
                value: |m| format!("{}", m.x("/dp/peak_child_tbs")),
            },
        ]
    }

    fn claims(&self, r: &Runs<'_>) -> Vec<Claim> {
        let id = self.id();
        let c = |b: &str, i: &str, g: &str, v: &str| cycles(r, b, i, g, v);
        let d_flat = r.per_point(|b, i| c(b, i, DTBL_M, "flat") / c(b, i, DTBL_M, "dtbl"));
        let d_cdp = r.per_point(|b, i| c(b, i, DTBL_M, "cdp") / c(b, i, DTBL_M, "dtbl"));
        let s_flat = r.per_point(|b, i| c(b, i, SPAWN_M, "flat") / c(b, i, SPAWN_M, "spawn"));
        let s_base = r.per_point(|b, i| c(b, i, SPAWN_M, "cdp") / c(b, i, SPAWN_M, "spawn"));
        let s_off = r.per_point(|b, i| {
            offline(r, b, i).map_or(f64::NAN, |(_, o)| o as f64) / c(b, i, SPAWN_M, "spawn")
        });
        let kids = r.per_point(|b, i| {
            let k = |v: &str| {
                r.get(b, i, SPAWN_M, v)
                    .map_or(f64::NAN, |m| m.x("/dp/child_kernels"))
            };
            k("spawn") / k("cdp").max(1.0)
        });
        let (m1, m2, m3, m4, m5, m6) = (
            mean(&d_flat),
            mean(&d_cdp),
            geomean(&s_flat),
            geomean(&s_base),
            geomean(&s_off),
            mean(&kids),
        );
        let mut out = vec![
            average_claim(id, "DTBL speedup over flat (average)", SRC_DTBL, factor(1.21), m1, factor(m1), Some(m1 > 1.0), "see the per-workload contradictions"),
            average_claim(id, "DTBL speedup over CDP (average)", SRC_DTBL, factor(1.40), m2, factor(m2), Some(m2 > 1.0), "see the per-workload contradictions"),
            average_claim(id, "SPAWN speedup over flat (geomean)", SRC_SPAWN, factor(1.69), m3, factor(m3), Some(m3 > 1.0), "see the per-workload contradictions"),
            average_claim(id, "SPAWN speedup over Baseline-DP (geomean)", SRC_SPAWN, factor(1.57), m4, factor(m4), Some(m4 > 1.0), "see the per-workload contradictions"),
            average_claim(id, "SPAWN performance / Offline-Search's (geomean)", SRC_SPAWN, factor(0.96), m5, factor(m5), Some(m5 >= 0.96), "SPAWN's launch controller ends below the best static threshold by more than the paper's 4%"),
            average_claim(id, "SPAWN child kernels / Baseline-DP's (average)", SRC_SPAWN, format!("{:.2}", 0.27), m6, format!("{m6:.2}"), Some(m6 < 1.0), "SPAWN launched no fewer children than Baseline-DP"),
        ];
        out.extend(edge_notes(id, r));
        for (b, i) in r.points() {
            let bl = point_label(b, i);
            let (flat, cdp, dtbl) = (
                c(b, i, DTBL_M, "flat"),
                c(b, i, DTBL_M, "cdp"),
                c(b, i, DTBL_M, "dtbl"),
            );
            let dt = [(DTBL_M, "flat"), (DTBL_M, "cdp"), (DTBL_M, "dtbl")];
            if dtbl > flat {
                out.push(contradiction(
                    id,
                    &bl,
                    "DTBL faster than flat",
                    SRC_DTBL,
                    format!("{dtbl} > {flat} cycles"),
                    why(r, b, i, &dt),
                ));
            }
            if dtbl > cdp {
                out.push(contradiction(
                    id,
                    &bl,
                    "DTBL faster than CDP",
                    SRC_DTBL,
                    format!("{dtbl} > {cdp} cycles"),
                    why(r, b, i, &dt),
                ));
            }
            if cdp < flat {
                out.push(contradiction(
                    id,
                    &bl,
                    "CDP slower than flat (1.16x on average in the DTBL paper)",
                    SRC_DTBL,
                    format!("{cdp} < {flat} cycles"),
                    why(r, b, i, &dt),
                ));
            }
            let (base, spawn) = (c(b, i, SPAWN_M, "cdp"), c(b, i, SPAWN_M, "spawn"));
            let sp = [(SPAWN_M, "flat"), (SPAWN_M, "cdp"), (SPAWN_M, "spawn")];
            if spawn > base {
                out.push(contradiction(
                    id,
                    &bl,
                    "SPAWN faster than Baseline-DP",
                    SRC_SPAWN,
                    format!("{spawn} > {base} cycles"),
                    why(r, b, i, &sp),
                ));
            }
            if let Some((th, o)) = offline(r, b, i) {
                if spawn > 1.04 * o as f64 {
                    out.push(contradiction(
                        id,
                        &bl,
                        "SPAWN within 4% of Offline-Search",
                        SRC_SPAWN,
                        format!("{spawn} vs {o} cycles at {th}"),
                        why(r, b, i, &[(SPAWN_M, "spawn"), (SPAWN_M, th.as_str())]),
                    ));
                }
            }
        }
        out
    }

    fn plots(&self, r: &Runs<'_>) -> Vec<(String, String)> {
        vec![("timeline".into(), timeline(r))]
    }
}

/// The versions drawn over time: (machine, mode, colour).
const TIMELINE: [(&str, &str, &str); 4] = [
    (DTBL_M, "cdp", "#d62728"),
    (DTBL_M, "dtbl", "#1f77b4"),
    (SPAWN_M, "cdp", "#ff7f0e"),
    (SPAWN_M, "spawn", "#2ca02c"),
];

/// Resident child TBs (solid) and parent TBs (dashed) over time, one panel per
/// workload, for CDP, DTBL, Baseline-DP and SPAWN (SPAWN's Fig. 2.17 kind of
/// timeline, digest §3.6).
pub fn timeline(r: &Runs<'_>) -> String {
    let points = r.points();
    let (pw, ph, gap) = (420.0, 160.0, 40.0);
    let h = (ph + gap) * points.len() as f64 + 30.0;
    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"10\">\n",
        pw + 80.0
    );
    let series = |m: &Measured, key: &str| -> Vec<(f64, f64)> {
        m.extra
            .get("dp")
            .and_then(|d| d.get("series"))
            .and_then(|s| s.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|p| Some((p.get("start")?.as_f64()?, p.get(key)?.as_f64()?)))
                    .collect()
            })
            .unwrap_or_default()
    };
    for (bi, (b, i)) in points.iter().enumerate() {
        let y0 = 20.0 + bi as f64 * (ph + gap);
        let runs: Vec<(&Measured, &str, &str, &str)> = TIMELINE
            .iter()
            .filter_map(|&(g, v, c)| r.get(b, i, g, v).map(|m| (m, g, v, c)))
            .collect();
        let tmax = runs.iter().map(|x| x.0.cycles).max().unwrap_or(1).max(1) as f64;
        let ymax = runs
            .iter()
            .flat_map(|x| {
                let mut v = series(x.0, "child_tbs");
                v.extend(series(x.0, "parent_tbs"));
                v.into_iter().map(|p| p.1)
            })
            .fold(1.0f64, f64::max);
        let _ = writeln!(
            o,
            "<text x=\"50\" y=\"{:.1}\">{b} {i}: resident TBs over time (0 to {} cycles, peak mean {ymax:.0})</text>",
            y0 - 4.0,
            tmax as u64
        );
        let _ = writeln!(
            o,
            "<rect x=\"50\" y=\"{y0:.1}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#ccc\"/>"
        );
        for (m, g, v, colour) in &runs {
            for (key, dash) in [
                ("child_tbs", ""),
                ("parent_tbs", " stroke-dasharray=\"4 2\""),
            ] {
                let pts: Vec<String> = series(m, key)
                    .iter()
                    .map(|(t, y)| {
                        format!("{:.1},{:.1}", 50.0 + pw * t / tmax, y0 + ph - ph * y / ymax)
                    })
                    .collect();
                let _ = writeln!(
                    o,
                    "<polyline fill=\"none\" stroke=\"{colour}\"{dash} points=\"{}\"><title>{g} {v} {key}</title></polyline>",
                    pts.join(" ")
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
    use crate::eval::engine::Status;
    use crate::eval::gpu_study::GpuRecord;
    use std::collections::BTreeMap;

    fn rec(group: &str, variant: &str, cycles: u64, kids: u64) -> GpuRecord {
        let mut extra = BTreeMap::new();
        extra.insert(
            "dp".to_string(),
            serde_json::json!({"child_kernels": kids, "series": [{"start": 0, "child_tbs": 2.0, "parent_tbs": 1.0}]}),
        );
        GpuRecord {
            study: "dp".into(),
            bench: "g".into(),
            input: "scale 9".into(),
            group: group.into(),
            variant: variant.into(),
            spec: RunSpec::new(group, WorkloadSpec::shipped("bfs", None)),
            key: String::new(),
            status: Status::Ok,
            m: Some(Measured {
                cycles,
                ipc: 1.0,
                app_ipc: None,
                l1_hit_rate: 0.0,
                l2_hit_rate: 0.0,
                row_hit_rate: 0.0,
                avg_mem_latency: 0.0,
                occupancy: 0.5,
                work: 10,
                l2_requests: 0,
                extra,
                seconds: 0.0,
            }),
        }
    }

    /// The full study holds the ten apps, the graph apps also on the Graph 500
    /// input, the seven built-in ones with no graph and their own sweep, the
    /// joins also at the papers' probe counts with rotated kernels;
    /// `--quick` and the smoke part keep the graph apps.
    #[test]
    fn cells_per_size() {
        let full = Dp.cells(GpuSize::Full);
        let per_app = VARIANTS.len() + SWEEP.len();
        let builtin: usize = BUILTIN_APPS
            .iter()
            .map(|a| VARIANTS.len() + a.1.len())
            .sum();
        // the read-ahead variant is DTBL on an edited machine
        let ra = full
            .iter()
            .find(|c| c.variant == DTBL_RA && c.bench == "clr")
            .unwrap();
        assert_eq!(ra.spec.dp.as_deref(), Some("dtbl"));
        assert_eq!(ra.spec.edits.agt_prefetch, Some(READ_AHEAD));
        assert!(full.iter().filter(|c| c.variant != DTBL_RA).all(|c| c
            .spec
            .edits
            .agt_prefetch
            .is_none()));
        let paper = 2 * (VARIANTS.len() + 8);
        assert_eq!(full.len(), 6 * per_app + builtin + paper);
        // the joins again at the papers' probe counts, every run with rotated kernels
        let big: Vec<&GpuCell> = full.iter().filter(|c| c.input == PAPER_LABEL).collect();
        assert_eq!(big.len(), paper);
        assert!(big
            .iter()
            .all(|c| c.spec.kernel_order.as_deref() == Some("rotate")));
        assert!(big.iter().any(|c| c.bench == "join_gaussian"
            && c.variant == "spawn"
            && c.spec.workload
                == WorkloadSpec::shipped("join_gaussian", None).define("nr", 300_000)));
        assert!(full
            .iter()
            .filter(|c| c.input != PAPER_LABEL)
            .all(|c| c.spec.kernel_order.is_none()));
        let amr: Vec<&GpuCell> = full.iter().filter(|c| c.bench == "amr").collect();
        assert_eq!(amr.len(), VARIANTS.len() + 8);
        assert!(amr
            .iter()
            .all(|c| c.input == BUILTIN && c.spec.workload == WorkloadSpec::shipped("amr", None)));
        assert!(amr.iter().any(|c| c.variant == "threshold=4096"));
        let bfs: Vec<&GpuCell> = full.iter().filter(|c| c.bench == "bfs").collect();
        assert_eq!(bfs.len(), 2 * per_app);
        assert!(bfs.iter().all(|c| c.input == "scale 14"
            || (c.input == GRAPH500_LABEL
                && c.spec.workload == WorkloadSpec::shipped("bfs", Some(GRAPH500)))));
        let quick = Dp.cells(GpuSize::Quick);
        assert_eq!(quick.len(), 3 * per_app);
        assert!(quick.iter().all(|c| c.input == "scale 11"));
        let smoke = Dp.cells(GpuSize::Smoke);
        assert_eq!(smoke.len(), VARIANTS.iter().filter(|v| v.2).count());
    }

    /// Averages and orderings on hand-made numbers.
    #[test]
    fn summary_and_contradictions() {
        let mut recs = vec![
            rec(DTBL_M, "flat", 1200, 0),
            rec(DTBL_M, "cdp", 1500, 10),
            rec(DTBL_M, "dtbl", 1000, 0),
            rec(SPAWN_M, "flat", 1690, 0),
            rec(SPAWN_M, "cdp", 1570, 100),
            rec(SPAWN_M, "spawn", 1000, 27),
            rec(SPAWN_M, "threshold=64", 1000, 50),
            rec(SPAWN_M, "threshold=128", 1100, 20),
        ];
        let claims = Dp.claims(&Runs::of(&Dp, &recs));
        let got: Vec<&str> = claims.iter().map(|c| c.weft.as_str()).collect();
        assert_eq!(got, ["1.20x", "1.50x", "1.69x", "1.57x", "1.00x", "0.27"]);
        assert!(claims.iter().all(|c| c.holds == Some(true)), "{claims:?}");
        recs[1].m.as_mut().unwrap().cycles = 1100; // CDP faster than flat
        let claims = Dp.claims(&Runs::of(&Dp, &recs));
        let bad: Vec<&Claim> = claims.iter().filter(|c| c.holds == Some(false)).collect();
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(bad[0].claim.contains("CDP slower than flat"));
        assert!(
            bad[0].analysis.contains("cdp on k20c-dtbl: 1100 cycles"),
            "{}",
            bad[0].analysis
        );
        assert!(timeline(&Runs::of(&Dp, &recs)).contains("g scale 9: resident TBs"));
    }

    /// A best threshold at the end of its sweep is flagged while it launched
    /// children (a larger one might be faster), not once nothing launches.
    #[test]
    fn a_best_threshold_at_the_sweeps_end_is_flagged() {
        let mut recs = vec![
            rec(SPAWN_M, "spawn", 1000, 27),
            rec(SPAWN_M, "threshold=64", 1000, 50),
            rec(SPAWN_M, "threshold=128", 900, 20),
        ];
        let notes = edge_notes("dp", &Runs::of(&Dp, &recs));
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(notes[0].holds, None);
        assert!(notes[0].weft.contains("threshold=128"), "{}", notes[0].weft);
        assert!(notes[0].weft.contains("launched 20 children"));
        // the best launches nothing: it is the flat version, nothing beyond
        recs[2]
            .m
            .as_mut()
            .unwrap()
            .extra
            .insert("dp".into(), serde_json::json!({"child_kernels": 0}));
        assert!(edge_notes("dp", &Runs::of(&Dp, &recs)).is_empty());
        // the best inside the sweep
        recs[2].m.as_mut().unwrap().cycles = 1200;
        assert!(edge_notes("dp", &Runs::of(&Dp, &recs)).is_empty());
    }
}
