//! Combinations no paper measured (issue #33 part 5): DTBL with LaPerm's
//! Adaptive-Bind and iPAWS together (on LaPerm's `k20c-dtbl` with its 32 KB L1
//! and shared memory), and SPAWN with LASER (on LASER's `k20-spawn` with its
//! 32 KB 8-way L1), on the dp study's graph workloads, each beside its parts.
//! No paper gives a number, so the claims table reports the measurements
//! without acceptance, plus one question per combination: do the gains of the
//! parts compose (the combination at least as fast as its best part)? Cells and
//! claims only; the rest is `gpu_study`'s frame.

use super::gpu_sched;
use super::gpu_study::{
    average_claim, factor, geomean, Claim, Column, GpuCell, GpuSize, GpuStudy, RunSpec, Runs,
    WorkloadSpec,
};

/// A variant: group, name, `--dp`, `--tb-sched`, `--warp-sched`, in the
/// `--quick` GPU part. Adding a combination is one line.
pub type Variant = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    Option<&'static str>,
    bool,
);

/// Every run of a workload.
pub const VARIANTS: &[Variant] = &[
    ("dtbl", "flat", "flat", None, None, true),
    ("dtbl", "dtbl", "dtbl", None, None, false),
    (
        "dtbl",
        "dtbl+laperm",
        "dtbl",
        Some("adaptive-bind"),
        None,
        false,
    ),
    ("dtbl", "dtbl+ipaws", "dtbl", None, Some("ipaws"), false),
    (
        "dtbl",
        "dtbl+laperm+ipaws",
        "dtbl",
        Some("adaptive-bind"),
        Some("ipaws"),
        true,
    ),
    ("spawn", "flat", "flat", None, None, true),
    ("spawn", "cdp", "cdp", None, None, false),
    ("spawn", "spawn", "spawn", None, None, false),
    ("spawn", "cdp+laser", "cdp", Some("laser"), None, false),
    ("spawn", "spawn+laser", "spawn", Some("laser"), None, true),
];

/// Each combination and its parts: (group, combination, parts).
pub const COMBOS: [(&str, &str, &[&str]); 2] = [
    (
        "dtbl",
        "dtbl+laperm+ipaws",
        &["dtbl", "dtbl+laperm", "dtbl+ipaws"],
    ),
    ("spawn", "spawn+laser", &["spawn", "cdp+laser"]),
];

/// The study.
pub struct Combo;

fn workloads(size: GpuSize) -> (Vec<&'static str>, Option<(u32, u64)>) {
    match size {
        GpuSize::Smoke => (vec!["bfs"], Some((9, 4096))),
        GpuSize::Quick => (vec!["bfs", "sssp", "clr"], Some((11, 16_384))),
        GpuSize::Full => (vec!["bfs", "sssp", "clr"], None),
    }
}

impl GpuStudy for Combo {
    fn id(&self) -> &'static str {
        "gpu-combo"
    }

    fn title(&self) -> &'static str {
        "Combinations no paper measured: DTBL + LaPerm + iPAWS, SPAWN + LASER"
    }

    fn about(&self) -> String {
        "Group `dtbl`: `k20c-dtbl` with LaPerm's 32 KB L1 and 32 KB shared memory, DTBL with Adaptive-Bind (`--tb-sched adaptive-bind`) and iPAWS (`--warp-sched ipaws`) alone and together. Group `spawn`: `k20-spawn` with LASER's 32 KB 8-way L1 and 32 KB shared memory, SPAWN's launch controller with LASER's TB scheduler, beside CDP + LASER (LASER's own setting) and SPAWN alone. Workloads and sizes as in the dp study (the `--quick` GPU part runs only flat and the two combinations on `bfs`). Performance 1 / cycles over flat of the same group.".into()
    }

    fn cells(&self, size: GpuSize) -> Vec<GpuCell> {
        let (apps, graph) = workloads(size);
        let input = graph.map_or("scale 14".to_string(), |(s, _)| format!("scale {s}"));
        let mut v = Vec::new();
        for app in apps {
            for &(g, name, dp, tb, warp, smoke) in VARIANTS {
                if size == GpuSize::Smoke && !smoke {
                    continue;
                }
                let (machine, edits, _) =
                    gpu_sched::group(if g == "spawn" { "laser" } else { "laperm-dtbl" });
                let mut spec = RunSpec::new(machine, WorkloadSpec::shipped(app, graph))
                    .dp(Some(dp))
                    .tb(tb)
                    .warp(warp);
                spec.edits = edits;
                v.push(GpuCell {
                    bench: app.into(),
                    input: input.clone(),
                    group: g.into(),
                    variant: name.into(),
                    spec,
                });
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
                head: "L1 hit",
                value: |m| format!("{:.3}", m.l1_hit_rate),
            },
            Column {
                head: "occupancy",
                value: |m| format!("{:.3}", m.occupancy),
            },
            Column {
                head: "children",
                value: |m| format!("{}", m.x("/dp/child_kernels")),
            },
        ]
    }

    fn claims(&self, r: &Runs<'_>) -> Vec<Claim> {
        let id = self.id();
        let src = "none (issue #33 part 5)";
        let g = |group: &str, v: &str| geomean(&r.per_point(|b, i| r.speedup(b, i, group, v)));
        let mut out = Vec::new();
        for (group, combo, parts) in COMBOS {
            let c = g(group, combo);
            out.push(average_claim(
                id,
                &format!("{combo} speedup over flat (geomean)"),
                src,
                "not measured".into(),
                c,
                factor(c),
                None,
                "",
            ));
            let best = parts
                .iter()
                .map(|p| (*p, g(group, p)))
                .filter(|x| x.1.is_finite())
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((p, bp)) = best {
                out.push(average_claim(
                    id,
                    &format!("{combo}: do the parts compose (at least the best part, {p})?"),
                    src,
                    "not measured".into(),
                    c,
                    format!(
                        "{}: {} vs {}",
                        if c >= bp { "yes" } else { "no" },
                        factor(c),
                        factor(bp)
                    ),
                    None,
                    "",
                ));
            }
        }
        out
    }
}
