//! The GPU locality-aware scheduling study (`weft eval --study gpu-sched`, issue
//! #32): LaPerm's TB-Pri, SMX-Bind and Adaptive-Bind against round-robin under CDP
//! and DTBL (LaPerm §V on `k20c-dtbl` with its 32 KB L1 and shared memory), and
//! LASER against the baseline and LaPerm under CDP (dissertation ch. 3 on
//! `k20-spawn` with LASER's 32 KB 8-way L1 and 32 KB shared memory); plus the
//! offline reuse characterisation of every workload (LaPerm Fig. 2, LASER §3.3),
//! LASER's oracle limit study (kernel, kernel+WG and kernel+WG+wavefront
//! levels, profiled on a round-robin run) and OWL-locality. Workloads: the shipped `bfs`, `sssp`,
//! `clr` and `pcreuse` (parents outnumbering the TB slots, children reusing
//! their parent's data: the papers' regime, docs/gpu-sched.md).
//! Reported next to the papers (digest §2.5, §4.7). Cells and claims only; the
//! rest is `gpu_study`'s frame.

pub use super::gpu_reuse::{plot_reuse, reuse_text, trace_reuse};
use super::gpu_study::{
    average_claim, both, factor, mean, Claim, Column, GpuCell, GpuSize, GpuStudy, MachineEdits,
    Measured, Probe, RunSpec, Runs, WorkloadSpec,
};

/// LaPerm machine and LASER machine.
const LAPERM_M: &str = "k20c-dtbl";
const LASER_M: &str = "k20-spawn";

/// Every run of a workload: (group, `--tb-sched` policy, in the `--quick` GPU
/// part). Adding a policy is one line.
pub const VARIANTS: &[(&str, &str, bool)] = &[
    ("laperm-cdp", "rr", false),
    ("laperm-cdp", "tb-pri", false),
    ("laperm-cdp", "smx-bind", false),
    ("laperm-cdp", "adaptive-bind", false),
    ("laperm-dtbl", "rr", true),
    ("laperm-dtbl", "tb-pri", false),
    ("laperm-dtbl", "smx-bind", false),
    ("laperm-dtbl", "adaptive-bind", true),
    ("laser", "rr", true),
    ("laser", "adaptive-bind", false),
    ("laser", "laser", true),
    ("laser", "laser-oracle=kernel", false),
    ("laser", "laser-oracle=wg", false),
    ("laser", "laser-oracle=wavefront", false),
    ("laser", "owl", false),
];

/// The `--warp-sched` a policy's cell runs with (`None`: the machine's GTO):
/// OWL's CTA-aware half; the wavefront-level oracle's chain groups and LASER's
/// parent–child groups (both the thesis's two-level wavefront scheduler).
pub fn warp_of(policy: &str) -> Option<&'static str> {
    match policy {
        "owl" => Some("owl"),
        "laser-oracle=wavefront" | "laser" => Some("laser-groups"),
        _ => None,
    }
}

/// The scheduling study's own workload files.
const FILES: [(&str, &str); 1] = [(
    "pcreuse",
    include_str!("../../../memsim/workloads/gpu-sched/pcreuse.toml"),
)];

/// The text of scheduling workload `name`.
pub fn text(name: &str) -> Option<&'static str> {
    FILES.iter().find(|f| f.0 == name).map(|f| f.1)
}

/// `text` with `n` parent TBs (its `NP` definition replaced).
pub fn with_parents(text: &str, n: u32) -> Result<String, String> {
    let mut found = false;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if !found && l.starts_with("NP = ") {
                found = true;
                let rest = l.find('#').map_or("", |i| &l[i..]);
                format!("NP = {n}      {rest}")
            } else {
                l.to_string()
            }
        })
        .collect();
    if found {
        Ok(out.join("\n") + "\n")
    } else {
        Err("the workload has no `NP = ` definition".into())
    }
}

/// The group of the reuse characterisation cells (CDP, round-robin, LASER's machine).
pub const REUSE: &str = "reuse";

/// A group's machine, its edits and its `--dp` mode.
pub fn group(g: &str) -> (&'static str, MachineEdits, &'static str) {
    let laser = g == "laser" || g == REUSE;
    let edits = MachineEdits {
        l1_kb: Some(32),
        l1_ways: laser.then_some(8),
        smem_kb: Some(32),
        ..MachineEdits::default()
    };
    let dp = if g == "laperm-dtbl" { "dtbl" } else { "cdp" };
    (if laser { LASER_M } else { LAPERM_M }, edits, dp)
}

/// Published IPC over the baseline (digest §2.5, §4.7): (group, policy, value).
/// SMX-Bind's are TB-Pri's minus the paper's 9% (CDP) and 5% (DTBL) [D].
pub const PAPER: [(&str, &str, f64); 12] = [
    ("laperm-cdp", "tb-pri", 1.04),
    ("laperm-cdp", "smx-bind", 0.95),
    ("laperm-cdp", "adaptive-bind", 1.06),
    ("laperm-dtbl", "tb-pri", 1.13),
    ("laperm-dtbl", "smx-bind", 1.08),
    ("laperm-dtbl", "adaptive-bind", 1.27),
    ("laser", "laser", 1.113),
    ("laser", "adaptive-bind", 1.057),
    ("laser", "owl", 1.038),
    ("laser", "laser-oracle=kernel", 1.026),
    ("laser", "laser-oracle=wg", 1.143),
    ("laser", "laser-oracle=wavefront", 1.194),
];

/// Published locality figures: LaPerm Fig. 2 (parent–child, child–sibling,
/// parent–parent shared footprints), LASER Fig. 3.4 (aggregate shares).
pub const PAPER_REUSE: [(&str, &str, f64); 6] = [
    (
        "LaPerm parent-child shared footprint",
        "/reuse/laperm/parent_child",
        0.384,
    ),
    (
        "LaPerm child-sibling shared footprint",
        "/reuse/laperm/child_sibling",
        0.305,
    ),
    (
        "LaPerm parent-parent shared footprint",
        "/reuse/laperm/parent_parent",
        0.093,
    ),
    (
        "LASER aggregate self-kernel reuse",
        "/reuse/aggregate/self_kernel",
        0.778,
    ),
    (
        "LASER aggregate parent-child reuse",
        "/reuse/aggregate/parent_child",
        0.322,
    ),
    (
        "LASER aggregate sibling reuse",
        "/reuse/aggregate/sibling",
        0.411,
    ),
];

const SRC_LAPERM: &str = "LaPerm §V (gpu-seeds §2.5)";
const SRC_LASER: &str = "LASER ch. 3 (gpu-seeds §4.7)";

/// The study.
pub struct Sched;

/// The workloads of `size`: (bench, input label, spec).
fn workloads(size: GpuSize) -> Vec<(&'static str, String, WorkloadSpec)> {
    let (apps, graph, parents) = match size {
        GpuSize::Smoke => (vec!["bfs"], Some((9, 4096)), None),
        GpuSize::Quick => (vec!["bfs", "sssp", "clr"], Some((11, 16_384)), Some(512)),
        GpuSize::Full => (vec!["bfs", "sssp", "clr"], None, Some(2048)),
    };
    let input = graph.map_or("scale 14".to_string(), |(s, _)| format!("scale {s}"));
    let mut inputs = vec![(graph, input)];
    if size == GpuSize::Full {
        // LASER's Graph 500 input (thesis Table 3.3), as in the dp study
        inputs.push((
            Some(super::gpu_dp::GRAPH500),
            super::gpu_dp::GRAPH500_LABEL.to_string(),
        ));
    }
    let mut v = Vec::new();
    for (graph, input) in inputs {
        for &app in &apps {
            let wl = WorkloadSpec::shipped(app, graph);
            v.push((app, input.clone(), wl));
        }
    }
    if let Some(n) = parents {
        let wl = WorkloadSpec::Sched {
            name: "pcreuse".into(),
            parents: Some(n),
        };
        v.push(("pcreuse", format!("NP {n}"), wl));
    }
    v
}

impl GpuStudy for Sched {
    fn id(&self) -> &'static str {
        "gpu-sched"
    }

    fn title(&self) -> &'static str {
        "Locality-aware TB scheduling: LaPerm, LASER"
    }

    fn about(&self) -> String {
        format!("LaPerm groups on `{LAPERM_M}` with a 32 KB L1 and 32 KB shared memory (CDP and DTBL); LASER group on `{LASER_M}` with a 32 KB 8-way L1 and 32 KB shared memory (CDP). Workloads: the shipped `bfs`, `sssp`, `clr` (sizes as in the dp study) and `pcreuse` (memsim/workloads/gpu-sched, 512 parent TBs in --quick, 2048 in full). The LASER group adds the oracle (kernel, kernel+WG and kernel+WG+wavefront levels, the last with `--warp-sched laser-groups`; each profiles a round-robin run first) and OWL (`--tb-sched owl --warp-sched owl`). Performance is IPC, normalised to round-robin of the same group. The `{REUSE}` group is the reuse characterisation of the CDP run under round-robin on the LASER machine. Docs: `docs/gpu-sched.md`.")
    }

    fn cells(&self, size: GpuSize) -> Vec<GpuCell> {
        let mut v = Vec::new();
        for (app, input, wl) in workloads(size) {
            let mut cell = |g: &str, policy: &str, probe: Probe| {
                let (machine, edits, dp) = group(g);
                let mut spec = RunSpec::new(machine, wl.clone())
                    .dp(Some(dp))
                    .tb(Some(policy))
                    .warp(warp_of(policy));
                spec.edits = edits;
                spec.probe = probe;
                v.push(GpuCell {
                    bench: app.into(),
                    input: input.clone(),
                    group: g.into(),
                    variant: policy.into(),
                    spec,
                });
            };
            for &(g, p, smoke) in VARIANTS {
                if smoke || size != GpuSize::Smoke {
                    cell(g, p, Probe::None);
                }
            }
            if size != GpuSize::Smoke {
                cell(REUSE, "rr", Probe::Reuse);
            }
        }
        v
    }

    fn baseline(&self, _group: &str) -> &'static str {
        "rr"
    }

    fn perf(&self, m: &Measured) -> f64 {
        m.ipc
    }

    fn columns(&self) -> Vec<Column> {
        vec![
            Column {
                head: "L1 hit",
                value: |m| format!("{:.3}", m.l1_hit_rate),
            },
            Column {
                head: "L2 hit",
                value: |m| format!("{:.3}", m.l2_hit_rate),
            },
        ]
    }

    fn claims(&self, r: &Runs<'_>) -> Vec<Claim> {
        let id = self.id();
        let f = |g: &str, p: &str| mean(&r.per_point(|b, i| r.speedup(b, i, g, p)));
        let why = |g: &str, a: &str, b: &str| {
            let l1 = |p: &str| {
                mean(&r.per_point(|bb, i| r.get(bb, i, g, p).map_or(f64::NAN, |m| m.l1_hit_rate)))
            };
            format!(
                "mean L1 hit rate {a} {:.3}, {b} {:.3} in {g}: the binding moves too little reuse into the L1 of these graphs (docs/gpu-sched.md)",
                l1(a),
                l1(b)
            )
        };
        let mut out = Vec::new();
        for (g, p, paper) in PAPER {
            let m = f(g, p);
            let src = if g == "laser" { SRC_LASER } else { SRC_LAPERM };
            let implemented = VARIANTS.iter().any(|v| v.0 == g && v.1 == p);
            let mut c = average_claim(
                id,
                &format!("{p} IPC over round-robin ({g})"),
                src,
                factor(paper),
                m,
                factor(m),
                (paper > 1.0).then_some(m > 1.0),
                &why(g, p, "rr"),
            );
            if !implemented {
                c.weft = "not implemented".into();
            }
            out.push(c);
        }
        for g in ["laperm-cdp", "laperm-dtbl"] {
            let (ab, tp, sb) = (f(g, "adaptive-bind"), f(g, "tb-pri"), f(g, "smx-bind"));
            let d = both(ab, tp);
            out.push(average_claim(
                id,
                &format!("Adaptive-Bind at least TB-Pri ({g})"),
                SRC_LAPERM,
                "ordering".into(),
                d,
                format!("{} vs {}", factor(ab), factor(tp)),
                Some(ab >= tp),
                &why(g, "adaptive-bind", "tb-pri"),
            ));
            let d = both(tp, sb);
            out.push(average_claim(
                id,
                &format!("SMX-Bind 5-9% below TB-Pri ({g})"),
                SRC_LAPERM,
                "ordering".into(),
                d,
                format!("{} vs {}", factor(sb), factor(tp)),
                Some(tp >= sb),
                &why(g, "smx-bind", "tb-pri"),
            ));
        }
        let (dt, cd) = (
            f("laperm-dtbl", "adaptive-bind"),
            f("laperm-cdp", "adaptive-bind"),
        );
        out.push(average_claim(id, "Adaptive-Bind gains more under DTBL than under CDP", SRC_LAPERM, "1.27x vs 1.06x".into(), both(dt, cd), format!("{} vs {}", factor(dt), factor(cd)), Some(dt > cd), "DTBL's aggregated groups coalesce into the running kernel, so there are fewer child kernels whose TBs the binding can place next to their parents"));
        let (ls, ab) = (f("laser", "laser"), f("laser", "adaptive-bind"));
        out.push(average_claim(
            id,
            "LASER above LaPerm (Adaptive-Bind)",
            SRC_LASER,
            "1.113x vs 1.057x".into(),
            both(ls, ab),
            format!("{} vs {}", factor(ls), factor(ab)),
            Some(ls > ab),
            &why("laser", "laser", "adaptive-bind"),
        ));
        let (wg, k) = (
            f("laser", "laser-oracle=wg"),
            f("laser", "laser-oracle=kernel"),
        );
        out.push(average_claim(
            id,
            "Oracle kernel+WG above LASER",
            SRC_LASER,
            "1.143x vs 1.113x".into(),
            both(wg, ls),
            format!("{} vs {}", factor(wg), factor(ls)),
            Some(wg >= ls),
            &why("laser", "laser-oracle=wg", "laser"),
        ));
        let wf = f("laser", "laser-oracle=wavefront");
        out.push(average_claim(
            id,
            "Oracle kernel+WG+wavefront above kernel+WG",
            SRC_LASER,
            "1.194x vs 1.143x".into(),
            both(wf, wg),
            format!("{} vs {}", factor(wf), factor(wg)),
            Some(wf >= wg),
            &why("laser", "laser-oracle=wavefront", "laser-oracle=wg"),
        ));
        out.push(average_claim(
            id,
            "Oracle kernel+WG above oracle kernel",
            SRC_LASER,
            "1.143x vs 1.026x".into(),
            both(wg, k),
            format!("{} vs {}", factor(wg), factor(k)),
            Some(wg > k),
            &why("laser", "laser-oracle=wg", "laser-oracle=kernel"),
        ));
        for (n, ptr, paper) in PAPER_REUSE {
            let m =
                mean(&r.per_point(|b, i| r.get(b, i, REUSE, "rr").map_or(f64::NAN, |m| m.x(ptr))));
            out.push(average_claim(
                id,
                n,
                if n.starts_with("LaPerm") {
                    "LaPerm Fig. 2"
                } else {
                    "LASER Fig. 3.4"
                },
                format!("{paper:.3}"),
                m,
                format!("{m:.3}"),
                None,
                "",
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::engine::Status;
    use crate::eval::gpu_study::GpuRecord;

    fn rec(g: &str, policy: &str, ipc: f64) -> GpuRecord {
        GpuRecord {
            study: "gpu-sched".into(),
            bench: "x".into(),
            input: String::new(),
            group: g.into(),
            variant: policy.into(),
            spec: RunSpec::new(LAPERM_M, WorkloadSpec::shipped("bfs", None)),
            key: String::new(),
            status: Status::Ok,
            m: Some(Measured {
                cycles: 1000,
                ipc,
                app_ipc: None,
                l1_hit_rate: 0.5,
                l2_hit_rate: 0.5,
                row_hit_rate: 0.5,
                avg_mem_latency: 0.0,
                occupancy: 0.0,
                work: 10,
                l2_requests: 0,
                extra: Default::default(),
                seconds: 0.0,
            }),
        }
    }

    #[test]
    fn pcreuse_cells_resize_the_parent_count() {
        let t = with_parents(text("pcreuse").unwrap(), 512).unwrap();
        assert!(t.contains("NP = 512      # parent TBs"));
        assert!(!t.contains("NP = 2048      #"));
        assert!(with_parents("[defs]\nX = 1\n", 4).is_err());
        let cells = Sched.cells(GpuSize::Quick);
        let pc: Vec<&GpuCell> = cells.iter().filter(|c| c.bench == "pcreuse").collect();
        // every variant plus the reuse cell
        assert_eq!(pc.len(), VARIANTS.len() + 1);
        assert!(pc.iter().all(|c| c.input == "NP 512"));
        let owl = pc.iter().find(|c| c.variant == "owl").unwrap();
        assert_eq!(owl.spec.warp_sched.as_deref(), Some("owl"));
        let wf = pc
            .iter()
            .find(|c| c.variant == "laser-oracle=wavefront")
            .unwrap();
        assert_eq!(wf.spec.warp_sched.as_deref(), Some("laser-groups"));
        assert_eq!(
            Sched.cells(GpuSize::Smoke).len(),
            4,
            "bfs only, smoke variants"
        );
    }

    /// The full study runs the graph apps on the shipped graph and on the
    /// Graph 500 input (the dp study's), and pcreuse with 2048 parents; the
    /// quick one has no Graph 500 cells.
    #[test]
    fn full_size_adds_the_graph500_input() {
        let per = VARIANTS.len() + 1;
        let full = Sched.cells(GpuSize::Full);
        assert_eq!(full.len(), (3 + 3 + 1) * per);
        let g500: Vec<&GpuCell> = full
            .iter()
            .filter(|c| c.input == super::super::gpu_dp::GRAPH500_LABEL)
            .collect();
        assert_eq!(g500.len(), 3 * per);
        assert!(g500.iter().all(|c| matches!(
            &c.spec.workload,
            WorkloadSpec::Shipped { graph: Some(g), .. } if *g == super::super::gpu_dp::GRAPH500
        )));
        assert!(Sched
            .cells(GpuSize::Quick)
            .iter()
            .all(|c| c.input != super::super::gpu_dp::GRAPH500_LABEL));
    }

    #[test]
    fn normalisation_and_orderings_on_hand_numbers() {
        let recs = vec![
            rec("laperm-cdp", "rr", 1.0),
            rec("laperm-cdp", "tb-pri", 1.04),
            rec("laperm-cdp", "smx-bind", 0.95),
            rec("laperm-cdp", "adaptive-bind", 1.06),
            rec("laperm-dtbl", "rr", 2.0),
            rec("laperm-dtbl", "tb-pri", 2.26),
            rec("laperm-dtbl", "smx-bind", 2.3),
            rec("laperm-dtbl", "adaptive-bind", 2.54),
            rec("laser", "rr", 1.0),
            rec("laser", "adaptive-bind", 1.05),
            rec("laser", "laser", 1.1),
            rec("laser", "laser-oracle=kernel", 1.03),
            rec("laser", "laser-oracle=wg", 1.14),
            rec("laser", "laser-oracle=wavefront", 1.19),
            rec("laser", "owl", 1.04),
        ];
        let r = Runs::of(&Sched, &recs);
        assert!((r.speedup("x", "", "laperm-dtbl", "adaptive-bind") - 1.27).abs() < 1e-12);
        let claims = Sched.claims(&r);
        let bad: Vec<&Claim> = claims.iter().filter(|c| c.holds == Some(false)).collect();
        // only SMX-Bind above TB-Pri under DTBL contradicts the papers
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert!(bad[0].claim.contains("SMX-Bind") && bad[0].claim.contains("laperm-dtbl"));
        let missing = claims
            .iter()
            .filter(|c| c.weft == "not implemented")
            .count();
        assert_eq!(missing, 0, "every published scheme is run");
    }
}
