//! The GPU thread-block management study (`weft eval --study tbm`, issue #33):
//! Beaumont and Mudge's fine-grained TB management with preemption against
//! oracle static classification and kernel-wide profiling (`gpu-seeds.md` §6),
//! on co-runs of the LonestarGPU-like apps (`memsim::gpu::fgtb::apps`) with a
//! Parboil-like compute-bound partner and with each other, on `v100-fgtb` with a
//! proportional share of its SMs. Throughput is the committed IPC of the
//! LonestarGPU app of a pair (its warp instructions over its span), averaged per
//! app over its pairings and inputs, as in the paper's Fig. 7, then over apps.
//! Cells and claims only; the rest is `gpu_study`'s frame.

use super::gpu_study::{
    average_claim, both, contradiction, mean, pct, Claim, Column, GpuCell, GpuSize, GpuStudy,
    MachineEdits, Measured, RunSpec, Runs, WorkloadSpec,
};
use weft_memsim::gpu::fgtb::apps::LONESTAR;
use weft_memsim::gpu::fgtb::FgtbConfig;

/// A management variant: its name, `--tb-manage`, its change to the paper's
/// parameters, and the sizes it runs at (smoke, quick).
pub type Variant = (&'static str, &'static str, fn(&mut FgtbConfig), bool, bool);

/// Every run of a pair. Adding a management or an ablation is one line. The
/// monitors run at the paper's period (`time_scale` 1.0: BFS's 16 KB context
/// gives 14.5 µs = 23,273 cycles); `fg-period/10` is fine-grained at the
/// tenth of it that `FgtbConfig`'s default keeps, where 3-bit levels move
/// from period to period by noise and every such rise on a full SM preempts
/// (docs/gpu-tbm.md, "What differs from the paper").
pub const VARIANTS: &[Variant] = &[
    ("none", "none", |_| {}, false, true),
    ("static-oracle", "static-oracle", |_| {}, true, true),
    ("profiler", "profiler", |c| c.time_scale = 1.0, true, true),
    (
        "fine-grained",
        "fine-grained",
        |c| c.time_scale = 1.0,
        true,
        true,
    ),
    (
        "fg-period/10",
        "fine-grained",
        |c| c.time_scale = 0.1,
        false,
        true,
    ),
    // the paper's ablations (§6.2): preemption only, predictive scheduling only
    (
        "fg-preempt-only",
        "fine-grained",
        |c| {
            c.time_scale = 1.0;
            c.predict = false;
        },
        false,
        false,
    ),
    (
        "fg-predict-only",
        "fine-grained",
        |c| {
            c.time_scale = 1.0;
            c.preempt = false;
        },
        false,
        false,
    ),
];

/// The study's shape at one size: SMs, inputs (vertices), partners, grid
/// divisor, rounds, sweeps, apps.
struct Shape {
    sms: u32,
    inputs: &'static [u32],
    partners: &'static [&'static str],
    div: u32,
    rounds: u32,
    sweeps: u32,
    apps: &'static [&'static str],
}

fn shape(size: GpuSize) -> Shape {
    match size {
        GpuSize::Smoke => Shape {
            sms: 4,
            inputs: &[5_000],
            partners: &["sgemm"],
            div: 40,
            rounds: 1,
            sweeps: 1,
            apps: &["bfs"],
        },
        GpuSize::Quick => Shape {
            sms: 4,
            inputs: &[20_000],
            partners: &["sgemm"],
            div: 20,
            rounds: 2,
            sweeps: 1,
            apps: &LONESTAR,
        },
        GpuSize::Full => Shape {
            sms: 8,
            inputs: &[5_000, 20_000, 80_000],
            partners: &["sgemm", "lonestar"],
            div: 10,
            rounds: 4,
            sweeps: 2,
            apps: &LONESTAR,
        },
    }
}

const SRC: &str = "Beaumont & Mudge §V (gpu-seeds §6.5)";

/// The study.
pub struct Tbm;

fn share(m: &Measured) -> f64 {
    let all = m.l2_requests as f64 * 128.0;
    if all > 0.0 {
        m.x("/manage/context_bytes") / all
    } else {
        f64::NAN
    }
}

fn gain(a: f64, b: f64) -> f64 {
    (a / b - 1.0) * 100.0
}

fn levels(m: &Measured) -> String {
    let n = m.x("/manage/exits").max(1.0);
    format!(
        "{:.2} / {:.2}",
        m.x("/manage/exit_levels/0") / n,
        m.x("/manage/exit_levels/1") / n
    )
}

/// The app of a pair (`bfs+sgemm` → `bfs`).
fn app_of(bench: &str) -> &str {
    bench.split('+').next().unwrap_or(bench)
}

impl GpuStudy for Tbm {
    fn id(&self) -> &'static str {
        "tbm"
    }

    fn title(&self) -> &'static str {
        "Fine-grained TB management with preemption"
    }

    fn about(&self) -> String {
        let d = FgtbConfig::default();
        format!("`v100-fgtb` with a proportional share of its 80 SMs (the `--quick` GPU part: BFS with the compute partner on 4 SMs, R-MAT 5,000 vertices, grids / 40; `--quick`: every app with `sgemm` on 4 SMs, 20,000 vertices, grids / 20, 2 rounds, 1 sweep; full: every app with `sgemm` and with the next LonestarGPU app on 8 SMs, 5,000, 20,000 and 80,000 vertices, grids / 10, 4 rounds, 2 sweeps); R-MAT graphs of 100,000 edges. Parameters: capacity {} per metric, victim queue {}, report on a level change of {}, contexts {:?}; monitor period: the paper's (time scale 1.0) for the profiler and fine-grained, a tenth of it for `fg-period/10`. Variants `fg-preempt-only` and `fg-predict-only` are the paper's ablations (full only). Performance = the LonestarGPU app's committed IPC; the baseline is the oracle static classification. Docs: `docs/gpu-tbm.md`.", d.cap, d.vq_capacity, d.report_delta, d.context)
    }

    fn cells(&self, size: GpuSize) -> Vec<GpuCell> {
        let s = shape(size);
        let mut v = Vec::new();
        for &vertices in s.inputs {
            for (i, app) in s.apps.iter().enumerate() {
                for p in s.partners {
                    let partner = if *p == "lonestar" {
                        s.apps[(i + 1) % s.apps.len()]
                    } else {
                        p
                    };
                    if partner == *app {
                        continue;
                    }
                    for &(name, manage, edit, smoke, quick) in VARIANTS {
                        let runs = match size {
                            GpuSize::Smoke => smoke,
                            GpuSize::Quick => quick,
                            GpuSize::Full => true,
                        };
                        if !runs {
                            continue;
                        }
                        let mut cfg = FgtbConfig::default();
                        edit(&mut cfg);
                        let mut spec = RunSpec::new(
                            "v100-fgtb",
                            WorkloadSpec::Fgtb {
                                apps: vec![app.to_string(), partner.to_string()],
                                vertices,
                                div: s.div,
                                rounds: s.rounds,
                                sweeps: s.sweeps,
                            },
                        );
                        spec.edits = MachineEdits {
                            sms: Some(s.sms),
                            ..MachineEdits::default()
                        };
                        spec.tb_manage = Some(manage.into());
                        spec.fgtb = Some(cfg);
                        v.push(GpuCell {
                            bench: format!("{app}+{partner}"),
                            input: format!("V={vertices}"),
                            group: String::new(),
                            variant: name.into(),
                            spec,
                        });
                    }
                }
            }
        }
        v
    }

    fn baseline(&self, _group: &str) -> &'static str {
        "static-oracle"
    }

    fn perf(&self, m: &Measured) -> f64 {
        m.app_ipc.unwrap_or(f64::NAN)
    }

    fn columns(&self) -> Vec<Column> {
        vec![
            Column {
                head: "app IPC",
                value: |m| format!("{:.3}", m.app_ipc.unwrap_or(f64::NAN)),
            },
            Column {
                head: "preemptions",
                value: |m| format!("{}", m.x("/manage/preemptions")),
            },
            Column {
                head: "refused (VQ full)",
                value: |m| format!("{}", m.x("/manage/vq_full")),
            },
            Column {
                head: "context share",
                value: |m| format!("{:.2}%", 100.0 * share(m)),
            },
            Column {
                head: "stalled dispatches",
                value: |m| format!("{}", m.x("/manage/stalled_dispatches")),
            },
            Column {
                head: "exit levels mem / FPU",
                value: levels,
            },
        ]
    }

    fn claims(&self, r: &Runs<'_>) -> Vec<Claim> {
        let id = self.id();
        let mut apps: Vec<&str> = Vec::new();
        for b in r.benches() {
            if !apps.contains(&app_of(b)) {
                apps.push(app_of(b));
            }
        }
        // per app: the mean over its pairs and inputs of the gain of x over y
        let per_app = |a: &str, x: &str, y: &str| {
            mean(
                &r.points()
                    .into_iter()
                    .filter(|(b, _)| app_of(b) == a)
                    .map(|(b, i)| gain(r.ratio(b, i, "", x, y), 1.0))
                    .collect::<Vec<_>>(),
            )
        };
        let over =
            |x: &str, y: &str| mean(&apps.iter().map(|a| per_app(a, x, y)).collect::<Vec<_>>());
        let fg = "fine-grained";
        let (fs, fp, ps) = (
            over(fg, "static-oracle"),
            over(fg, "profiler"),
            over("profiler", "static-oracle"),
        );
        let fg_runs: Vec<(&str, &str, &Measured)> = r
            .points()
            .into_iter()
            .filter_map(|(b, i)| r.get(b, i, "", fg).map(|m| (b, i, m)))
            .collect();
        let traffic = mean(&fg_runs.iter().map(|x| share(x.2)).collect::<Vec<_>>());
        let preempts: f64 = fg_runs.iter().map(|x| x.2.x("/manage/preemptions")).sum();
        let exits: f64 = fg_runs.iter().map(|x| x.2.x("/manage/exits")).sum();
        let mean_level = |k: usize| {
            let sum: f64 = fg_runs
                .iter()
                .map(|x| x.2.x(&format!("/manage/exit_levels/{k}")))
                .sum();
            sum / exits.max(1.0)
        };
        let why = format!(
            "fine-grained made {preempts} preemptions over {} co-runs, context traffic {:.2}% of the L2 line traffic, TBs' mean exit levels {:.2} memory throttle / {:.2} FPU of 7; analysis in docs/gpu-tbm.md",
            fg_runs.len(),
            100.0 * traffic,
            mean_level(0),
            mean_level(1)
        );
        let mut out = vec![
            average_claim(
                id,
                "fine-grained throughput gain over oracle static (average)",
                SRC,
                pct(17.1),
                fs,
                pct(fs),
                Some(fs > 0.0),
                &why,
            ),
            average_claim(
                id,
                "fine-grained throughput gain over the kernel-wide profiler (average)",
                SRC,
                pct(12.9),
                fp,
                pct(fp),
                Some(fp > 0.0),
                &why,
            ),
            average_claim(
                id,
                "the profiler above oracle static (the ordering fine-grained > profiler > static)",
                SRC,
                "ordering".into(),
                ps,
                pct(ps),
                Some(ps > 0.0),
                &why,
            ),
            average_claim(
                id,
                "context traffic share of the L2 line traffic under fine-grained",
                SRC,
                "< 1% of bandwidth".into(),
                traffic,
                format!("{:.2}%", 100.0 * traffic),
                Some(traffic < 0.01),
                &why,
            ),
        ];
        // Where the gain comes from (the ablations, full only).
        let by = |set: &[&str], v: &str| {
            mean(
                &apps
                    .iter()
                    .filter(|a| set.contains(*a))
                    .map(|a| per_app(a, v, "static-oracle"))
                    .collect::<Vec<_>>(),
            )
        };
        for (set, v, other, claim) in [
            (&["bfs", "sssp"][..], "fg-preempt-only", "fg-predict-only", "BFS and SSSP gain through preemption (preemption-only gain over static, above prediction-only's)"),
            (&["pta", "sgd"][..], "fg-predict-only", "fg-preempt-only", "PTA and SGD gain through prediction (prediction-only gain over static, above preemption-only's)"),
        ] {
            let (a, b) = (by(set, v), by(set, other));
            out.push(average_claim(id, claim, SRC, "all of the gain".into(), both(a, b), format!("{} vs {}", pct(a), pct(b)), Some(a > 0.0 && a >= b), &why));
        }
        for a in &apps {
            let g = per_app(a, fg, "static-oracle");
            if g < 0.0 {
                out.push(contradiction(
                    id,
                    a,
                    "fine-grained above oracle static",
                    SRC,
                    pct(g),
                    app_why(r, a),
                ));
            }
            let pre: f64 = fg_runs
                .iter()
                .filter(|x| app_of(x.0) == *a)
                .map(|x| x.2.x("/manage/preemptions"))
                .sum();
            if matches!(*a, "bfs" | "sssp") && pre == 0.0 {
                out.push(contradiction(
                    id,
                    a,
                    "BFS and SSSP gain through preemption",
                    SRC,
                    "no preemption".into(),
                    app_why(r, a),
                ));
            }
        }
        out
    }
}

/// The numbers behind one app's result: per pair and input, the
/// fine-grained run's preemptions, context share, exit levels and RUT hits.
fn app_why(r: &Runs<'_>, a: &str) -> String {
    r.points()
        .into_iter()
        .filter(|(b, _)| app_of(b) == a)
        .filter_map(|(b, i)| {
            let m = r.get(b, i, "", "fine-grained")?;
            let s = r.get(b, i, "", "static-oracle")?;
            Some(format!(
                "{b} {i}: IPC {:.3} vs static {:.3}, {} preemptions ({} refused), context {:.2}% of L2 traffic, exit levels mem/FPU {} (static {}), {} stalled dispatches, RUT hits {} of {}",
                m.app_ipc.unwrap_or(f64::NAN),
                s.app_ipc.unwrap_or(f64::NAN),
                m.x("/manage/preemptions"),
                m.x("/manage/vq_full"),
                100.0 * share(m),
                levels(m),
                levels(s),
                m.x("/manage/stalled_dispatches"),
                m.x("/manage/rut/2"),
                m.x("/manage/rut/3")
            ))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::engine::Status;
    use crate::eval::gpu_study::GpuRecord;
    use std::collections::BTreeMap;

    fn rec(bench: &str, variant: &str, ipc: f64, preemptions: u64) -> GpuRecord {
        let mut extra = BTreeMap::new();
        extra.insert(
            "manage".to_string(),
            serde_json::json!({"preemptions": preemptions, "context_bytes": 128 * preemptions, "exits": 1, "exit_levels": [1, 2]}),
        );
        GpuRecord {
            study: "tbm".into(),
            bench: bench.into(),
            input: "V=1".into(),
            group: String::new(),
            variant: variant.into(),
            spec: RunSpec::new("v100-fgtb", WorkloadSpec::Ipaws { name: "x".into() }),
            key: String::new(),
            status: Status::Ok,
            m: Some(Measured {
                cycles: 1000,
                ipc: 1.0,
                app_ipc: Some(ipc),
                l1_hit_rate: 0.0,
                l2_hit_rate: 0.0,
                row_hit_rate: 0.0,
                avg_mem_latency: 0.0,
                occupancy: 0.0,
                work: 10,
                l2_requests: 1000,
                extra,
                seconds: 0.0,
            }),
        }
    }

    #[test]
    fn per_app_means_and_the_ordering() {
        let recs = vec![
            rec("bfs+sgemm", "static-oracle", 1.0, 0),
            rec("bfs+sgemm", "profiler", 1.1, 0),
            rec("bfs+sgemm", "fine-grained", 1.2, 1),
            rec("pta+sgemm", "static-oracle", 2.0, 0),
            rec("pta+sgemm", "profiler", 1.7, 0),
            rec("pta+sgemm", "fine-grained", 2.0, 0),
        ];
        let c = Tbm.claims(&Runs::of(&Tbm, &recs));
        // fine-grained: +20% (bfs), 0% (pta) → +10%; over the profiler (+9.1%, +17.6%)
        assert_eq!(c[0].weft, "+10.0%");
        assert_eq!(c[0].holds, Some(true));
        assert_eq!(c[1].weft, "+13.4%");
        // profiler: +10%, -15% → -2.5%: the ordering does not hold
        assert_eq!(c[2].holds, Some(false));
        assert!(c[2].analysis.contains("1 preemptions over 2 co-runs"));
        // the fine-grained runs' mean exit levels (1 and 2 of 7 in each)
        assert!(c[2].analysis.contains("1.00 memory throttle / 2.00 FPU"));
        // 128 B of 128,000: 0.1%
        assert_eq!(c[3].weft, "0.05%");
        // ablations did not run: not measured
        assert_eq!(c[4].holds, None);
        assert!(c.iter().all(|x| x.bench.is_none()), "{c:?}");
    }

    #[test]
    fn every_app_pairs_at_every_size() {
        assert_eq!(Tbm.cells(GpuSize::Smoke).len(), 3);
        assert_eq!(Tbm.cells(GpuSize::Quick).len(), 6 * 5);
        assert_eq!(Tbm.cells(GpuSize::Full).len(), 3 * 6 * 2 * 7);
    }
}
