//! The iPAWS warp-scheduling study (`weft eval --study ipaws`, issue #32 part 3):
//! GTO, LRR and iPAWS (and `iPAWS_ind_cores`, CCWS, iPAWS over CCWS, MASCAR,
//! iPAWS over MASCAR) on the
//! shipped iPAWS workloads (`memsim/workloads/ipaws/`, digest §5.4) on
//! `gtx480-ipaws` (iPAWS Table 1), reported next to the paper (digest §5.5): GTO
//! ahead on the greedy-friendly class (GF), LRR ahead on the
//! round-robin-friendly class (RF), iPAWS within a few percent of the better of
//! the two per workload, and its decision per kernel. Every run carries the L1
//! access breakdown (iPAWS Fig. 4 / 20). Cells and claims only; the rest is
//! `gpu_study`'s frame.

use super::gpu_study::{
    average_claim, contradiction, factor, mean, Claim, Column, GpuCell, GpuSize, GpuStudy,
    Measured, Probe, RunSpec, Runs, WorkloadSpec,
};
use serde::Serialize;

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

/// The shipped workloads: name, class, what stands for which paper workload,
/// in the `--quick` GPU part, TOML. Adding a workload is one line.
pub const WORKLOADS: [(&str, Class, &str, bool, &str); 6] = [
    (
        "intra",
        Class::Gf,
        "KMN k0 / CCWS-style private re-reads",
        true,
        include_str!("../../../memsim/workloads/ipaws/intra.toml"),
    ),
    (
        "rowspmv",
        Class::Gf,
        "SPMV, nonzeros adjacent in a row (Fig. 17)",
        false,
        include_str!("../../../memsim/workloads/ipaws/rowspmv.toml"),
    ),
    (
        "sc",
        Class::Rf,
        "SC, shared centre coordinates, D = 64",
        false,
        include_str!("../../../memsim/workloads/ipaws/sc.toml"),
    ),
    (
        "lps",
        Class::Rf,
        "LPS, 3-D stencil with inter-warp halo (Fig. 3)",
        false,
        include_str!("../../../memsim/workloads/ipaws/lps.toml"),
    ),
    (
        "blk",
        Class::Rf,
        "BLK, streaming with DRAM row-buffer locality",
        true,
        include_str!("../../../memsim/workloads/ipaws/blk.toml"),
    ),
    (
        "kmn",
        Class::Mixed,
        "KMN, k0 private re-reads then k1 shared centres",
        false,
        include_str!("../../../memsim/workloads/ipaws/kmn.toml"),
    ),
];

/// The schedulers: name, in `--quick` (and its GPU part). Adding one is one line.
pub const SCHEDULERS: [(&str, bool); 8] = [
    ("gto", true),
    ("lrr", true),
    ("ipaws", true),
    ("ipaws-ind", false),
    ("ccws", false),
    ("ipaws-ccws", false),
    ("mascar", false),
    ("ipaws-mascar", false),
];

/// Concurrent-kernel mixes (iPAWS §4.4, Fig. 16): a GF kernel (instance 0) and
/// an RF kernel (instance 1) launched by two apps; name, what, TOML.
pub const MIXES: [(&str, &str, &str); 2] = [
    (
        "mix",
        "intra's GF kernel + sc's RF kernel",
        include_str!("../../../memsim/workloads/ipaws/mix.toml"),
    ),
    (
        "mix-spmv",
        "rowspmv's GF kernel + lps's RF kernel",
        include_str!("../../../memsim/workloads/ipaws/mix-spmv.toml"),
    ),
];

/// The concurrent-kernel cells of a full run: (`--tb-sched` = group,
/// `--warp-sched` = variant). Per dispatcher: GTO, LRR, iPAWS deciding per
/// kernel (each SM alone under pCKE, the SM pairs under sCKE) and the static
/// GTO-RR oracle (`gto-lrr`: GTO on kernel 0, LRR on kernel 1).
pub const CKE: [(&str, &str); 8] = [
    ("pcke", "gto"),
    ("pcke", "lrr"),
    ("pcke", "ipaws-ind"),
    ("pcke", "gto-lrr"),
    ("scke", "gto"),
    ("scke", "lrr"),
    ("scke", "ipaws-scke"),
    ("scke", "gto-lrr"),
];

/// The TOML of the iPAWS workload or mix `name`.
pub fn text(name: &str) -> Option<&'static str> {
    WORKLOADS
        .iter()
        .find(|w| w.0 == name)
        .map(|w| w.4)
        .or_else(|| MIXES.iter().find(|m| m.0 == name).map(|m| m.2))
}

fn class(name: &str) -> Option<Class> {
    WORKLOADS.iter().find(|w| w.0 == name).map(|w| w.1)
}

const SRC: &str = "iPAWS §5 (gpu-seeds §5.5)";

/// The study.
pub struct Ipaws;

fn share(m: &Measured, i: usize) -> f64 {
    let all: Vec<f64> = (0..5).map(|k| m.x(&format!("/l1/all/n/{k}"))).collect();
    all[i] / all.iter().sum::<f64>().max(1.0)
}

fn choices(m: &Measured) -> Vec<String> {
    m.extra
        .get("ipaws")
        .and_then(|p| p.get("kernels"))
        .and_then(|k| k.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|k| k.get("choice")?.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn cycles(r: &Runs<'_>, b: &str, s: &str) -> f64 {
    r.get(b, "", "", s).map_or(f64::NAN, |m| m.cycles as f64)
}

fn why(r: &Runs<'_>, b: &str, scheds: &[&str]) -> String {
    scheds
        .iter()
        .filter_map(|s| {
            let m = r.get(b, "", "", s)?;
            Some(format!(
                "{s}: {} cycles, L1 hit {:.3} (intra-warp {:.2}, inter-warp {:.2} of lookups), row hit {:.3}, L1-miss latency {:.0}",
                m.cycles,
                m.l1_hit_rate,
                share(m, 0),
                share(m, 1),
                m.row_hit_rate,
                m.avg_mem_latency
            ))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl GpuStudy for Ipaws {
    fn id(&self) -> &'static str {
        "ipaws"
    }

    fn title(&self) -> &'static str {
        "Warp scheduling: GTO, LRR, iPAWS"
    }

    fn about(&self) -> String {
        let list: Vec<String> = WORKLOADS
            .iter()
            .map(|(n, c, what, _, _)| format!("`{n}` ({c:?}: {what})"))
            .collect();
        format!("Machine `{MACHINE}` (iPAWS Table 1). Workloads `memsim/workloads/ipaws/*.toml`: {}. The `--quick` GPU part runs `intra` and `blk` under GTO, LRR and iPAWS; `--quick` every workload under those three; full adds `ipaws-ind`, CCWS, iPAWS over CCWS, MASCAR and iPAWS over MASCAR, and the concurrent-kernel mixes {} under pCKE and sCKE (groups `pcke`, `scke`: GTO, LRR, iPAWS per kernel (`ipaws-ind`, `ipaws-scke`) and the static GTO-RR oracle `gto-lrr`). Performance 1 / cycles, normalised to GTO (of the same dispatcher for the mixes). Docs: `docs/gpu-ipaws.md`.", list.join(", "), MIXES.iter().map(|(n, w, _)| format!("`{n}` ({w})")).collect::<Vec<_>>().join(", "))
    }

    fn cells(&self, size: GpuSize) -> Vec<GpuCell> {
        let mut v = Vec::new();
        for &(name, _, _, smoke_w, _) in &WORKLOADS {
            if size == GpuSize::Smoke && !smoke_w {
                continue;
            }
            for &(s, quick) in &SCHEDULERS {
                if size == GpuSize::Full || quick {
                    let mut spec = RunSpec::new(MACHINE, WorkloadSpec::Ipaws { name: name.into() })
                        .warp(Some(s));
                    spec.probe = Probe::L1Breakdown;
                    v.push(GpuCell {
                        bench: name.into(),
                        input: String::new(),
                        group: String::new(),
                        variant: s.into(),
                        spec,
                    });
                }
            }
        }
        if size == GpuSize::Full {
            for &(name, _, _) in &MIXES {
                for &(tb, s) in &CKE {
                    let mut spec = RunSpec::new(MACHINE, WorkloadSpec::Ipaws { name: name.into() })
                        .warp(Some(s));
                    spec.tb_sched = Some(tb.into());
                    spec.probe = Probe::L1Breakdown;
                    v.push(GpuCell {
                        bench: name.into(),
                        input: String::new(),
                        group: tb.into(),
                        variant: s.into(),
                        spec,
                    });
                }
            }
        }
        v
    }

    fn baseline(&self, _group: &str) -> &'static str {
        "gto"
    }

    fn columns(&self) -> Vec<Column> {
        vec![
            Column {
                head: "L1 hit",
                value: |m| format!("{:.3}", m.l1_hit_rate),
            },
            Column {
                head: "intra hit",
                value: |m| format!("{:.3}", share(m, 0)),
            },
            Column {
                head: "inter hit",
                value: |m| format!("{:.3}", share(m, 1)),
            },
            Column {
                head: "row hit",
                value: |m| format!("{:.3}", m.row_hit_rate),
            },
            Column {
                head: "L1-miss latency",
                value: |m| format!("{:.0}", m.avg_mem_latency),
            },
            Column {
                head: "iPAWS choice",
                value: |m| choices(m).join(" "),
            },
        ]
    }

    fn claims(&self, r: &Runs<'_>) -> Vec<Claim> {
        let id = self.id();
        // the single-kernel workloads (the mixes have claims of their own)
        let benches: Vec<&str> = r
            .benches()
            .into_iter()
            .filter(|b| class(b).is_some())
            .collect();
        let of = |c: Class, f: &dyn Fn(&str) -> f64| {
            mean(
                &benches
                    .iter()
                    .filter(|b| class(b) == Some(c))
                    .map(|b| f(b))
                    .collect::<Vec<_>>(),
            )
        };
        let best = |b: &str| cycles(r, b, "gto").min(cycles(r, b, "lrr"));
        let m = [
            of(Class::Gf, &|b| cycles(r, b, "lrr") / cycles(r, b, "gto")),
            of(Class::Rf, &|b| cycles(r, b, "gto") / cycles(r, b, "lrr")),
            mean(
                &benches
                    .iter()
                    .map(|b| best(b) / cycles(r, b, "ipaws"))
                    .collect::<Vec<_>>(),
            ),
            of(Class::Gf, &|b| cycles(r, b, "lrr") / cycles(r, b, "ipaws")),
            of(Class::Rf, &|b| {
                cycles(r, b, "ccws") / cycles(r, b, "ipaws-ccws")
            }),
            of(Class::Rf, &|b| {
                cycles(r, b, "mascar") / cycles(r, b, "ipaws-mascar")
            }),
        ];
        let mut out = vec![
            average_claim(
                id,
                "GTO speedup over LRR, GF workloads (average)",
                SRC,
                factor(1.60),
                m[0],
                factor(m[0]),
                Some(m[0] > 1.0),
                "see the per-workload contradictions",
            ),
            average_claim(
                id,
                "LRR speedup over GTO, RF workloads (average)",
                SRC,
                factor(1.43),
                m[1],
                factor(m[1]),
                Some(m[1] > 1.0),
                "see the per-workload contradictions",
            ),
            average_claim(
                id,
                "iPAWS / better of GTO and LRR, all workloads (average)",
                SRC,
                "within a few %".into(),
                m[2],
                factor(m[2]),
                Some(m[2] >= 0.95),
                "see the per-workload contradictions",
            ),
            average_claim(
                id,
                "iPAWS speedup over LRR, GF workloads (average)",
                SRC,
                factor(1.38),
                m[3],
                factor(m[3]),
                Some(m[3] > 1.0),
                "see the per-workload contradictions",
            ),
            average_claim(
                id,
                "iPAWS-CCWS speedup over CCWS, RF workloads (average)",
                SRC,
                factor(1.40),
                m[4],
                factor(m[4]),
                Some(m[4] > 1.0),
                "see the per-workload contradictions",
            ),
            // iPAWS §4.2 shows no numbers: "the trend is similar to RR-CCWS".
            average_claim(
                id,
                "iPAWS-MASCAR speedup over MASCAR, RF workloads (average)",
                SRC,
                "> 1x (not shown; \"similar to RR-CCWS\")".into(),
                m[5],
                factor(m[5]),
                Some(m[5] > 1.0),
                "see the per-workload contradictions",
            ),
        ];
        out.extend(cke_claims(r));
        for b in benches {
            let (g, l) = (cycles(r, b, "gto"), cycles(r, b, "lrr"));
            let c = class(b);
            if c == Some(Class::Gf) && l < g {
                out.push(contradiction(
                    id,
                    b,
                    "GTO-friendly workload faster under GTO",
                    SRC,
                    format!("LRR {l} < GTO {g} cycles"),
                    why(r, b, &["gto", "lrr"]),
                ));
            }
            if c == Some(Class::Rf) && g < l {
                out.push(contradiction(
                    id,
                    b,
                    "round-robin-friendly workload faster under LRR",
                    SRC,
                    format!("GTO {g} < LRR {l} cycles"),
                    why(r, b, &["gto", "lrr"]),
                ));
            }
            let Some(ip) = r.get(b, "", "", "ipaws") else {
                continue;
            };
            let ratio = best(b) / ip.cycles as f64;
            if ratio < 0.95 {
                out.push(contradiction(
                    id,
                    b,
                    "iPAWS within a few percent of the better static scheduler",
                    SRC,
                    format!(
                        "{:.1}% slower ({} vs {} cycles)",
                        100.0 * (1.0 / ratio - 1.0),
                        ip.cycles,
                        best(b)
                    ),
                    why(r, b, &["gto", "lrr", "ipaws"]),
                ));
            }
            let ch = choices(ip);
            let want: Vec<String> = match c {
                Some(Class::Gf) => vec!["gto".into(); ch.len()],
                Some(Class::Rf) => vec!["lrr".into(); ch.len()],
                _ => vec!["gto".into(), "lrr".into()],
            };
            if ch != want {
                out.push(contradiction(
                    id,
                    b,
                    "iPAWS chooses the scheduler of the workload's class per kernel",
                    SRC,
                    format!("chose {ch:?}, expected {want:?}"),
                    why(r, b, &["gto", "lrr", "ipaws"]),
                ));
            }
        }
        out
    }
}

/// The concurrent-kernel claims (iPAWS §4.4, Fig. 16; digest §5.5 "pCKE / sCKE
/// ≈ matches the static GTO-RR oracle"): per mix and dispatcher, iPAWS within a
/// few percent of the oracle, and the oracle at least the better static
/// scheduler (the mixes need a different scheduler per kernel).
fn cke_claims(r: &Runs<'_>) -> Vec<Claim> {
    let mut out = Vec::new();
    for &(mix, _, _) in &MIXES {
        for (tb, ip) in [("pcke", "ipaws-ind"), ("scke", "ipaws-scke")] {
            let c = |s: &str| r.get(mix, "", tb, s).map_or(f64::NAN, |m| m.cycles as f64);
            let (o, i) = (c("gto-lrr"), c(ip));
            let best = c("gto").min(c("lrr"));
            if o.is_nan() || i.is_nan() || best.is_nan() {
                continue;
            }
            out.push(average_claim(
                "ipaws",
                &format!("{mix}, {tb}: {ip} / static GTO-RR oracle"),
                SRC,
                "≈ 1 (within a few %)".into(),
                o / i,
                factor(o / i),
                Some(o / i >= 0.95),
                "iPAWS's per-kernel choices (docs/gpu-ipaws.md, sCKE)",
            ));
            out.push(average_claim(
                "ipaws",
                &format!("{mix}, {tb}: static GTO-RR oracle over the better of GTO and LRR"),
                SRC,
                "≥ 1 (a scheduler per kernel)".into(),
                best / o,
                factor(best / o),
                Some(best / o >= 1.0),
                "the kernels' classes (docs/gpu-ipaws.md, sCKE)",
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::engine::Status;
    use crate::eval::gpu_study::GpuRecord;
    use std::collections::BTreeMap;

    fn rec(bench: &str, sched: &str, cycles: u64, choice: Option<&str>) -> GpuRecord {
        let mut extra = BTreeMap::new();
        extra.insert(
            "l1".to_string(),
            serde_json::json!({"all": {"n": [1, 1, 1, 1, 1]}}),
        );
        if let Some(c) = choice {
            extra.insert(
                "ipaws".to_string(),
                serde_json::json!({"kernels": [{"choice": c}]}),
            );
        }
        GpuRecord {
            study: "ipaws".into(),
            bench: bench.into(),
            input: String::new(),
            group: String::new(),
            variant: sched.into(),
            spec: RunSpec::new(MACHINE, WorkloadSpec::Ipaws { name: bench.into() }),
            key: String::new(),
            status: Status::Ok,
            m: Some(Measured {
                cycles,
                ipc: 1.0,
                app_ipc: None,
                l1_hit_rate: 0.5,
                l2_hit_rate: 0.5,
                row_hit_rate: 0.5,
                avg_mem_latency: 300.0,
                occupancy: 0.0,
                work: 10,
                l2_requests: 0,
                extra,
                seconds: 0.0,
            }),
        }
    }

    /// Averages and contradictions on hand-made numbers.
    #[test]
    fn summary_and_contradictions() {
        let mut recs = vec![
            rec("intra", "gto", 1000, None),
            rec("intra", "lrr", 1600, None),
            rec("intra", "ipaws", 1000, Some("gto")),
            rec("sc", "gto", 1430, None),
            rec("sc", "lrr", 1000, None),
            rec("sc", "ipaws", 1000, Some("lrr")),
        ];
        let claims = Ipaws.claims(&Runs::of(&Ipaws, &recs));
        let got: Vec<&str> = claims.iter().take(6).map(|c| c.weft.as_str()).collect();
        assert_eq!(
            got,
            [
                "1.60x",
                "1.43x",
                "1.00x",
                "1.60x",
                "not measured",
                "not measured"
            ]
        );
        assert!(claims.iter().all(|c| c.holds != Some(false)), "{claims:?}");
        assert_eq!(share(recs[0].m.as_ref().unwrap(), 1), 0.2);
        // wrong choice, 10% slower, and the RF workload faster under GTO
        recs[3].m.as_mut().unwrap().cycles = 900;
        recs[5] = rec("sc", "ipaws", 1000, Some("gto"));
        let claims = Ipaws.claims(&Runs::of(&Ipaws, &recs));
        let bad: Vec<&str> = claims
            .iter()
            .filter(|c| c.holds == Some(false) && c.bench.is_some())
            .map(|c| c.claim.as_str())
            .collect();
        assert_eq!(bad.len(), 3, "{bad:?}");
        assert!(bad[0].contains("faster under LRR"));
        assert!(bad[1].contains("within a few percent"));
        assert!(bad[2].contains("chooses"));
    }

    /// The concurrent-kernel claims on hand-made numbers: per mix and
    /// dispatcher, iPAWS against the oracle and the oracle against the better
    /// static scheduler; the mixes stay out of the single-workload averages.
    #[test]
    fn cke_claims_per_mix_and_dispatcher() {
        let mut recs = vec![
            rec("intra", "gto", 1000, None),
            rec("intra", "lrr", 1600, None),
            rec("intra", "ipaws", 1000, Some("gto")),
        ];
        for (tb, ip, i) in [("pcke", "ipaws-ind", 1020), ("scke", "ipaws-scke", 1300)] {
            for (s, c) in [("gto", 1100), ("lrr", 1200), ("gto-lrr", 1000), (ip, i)] {
                let mut r = rec("mix", s, c, None);
                r.group = tb.into();
                recs.push(r);
            }
        }
        let claims = Ipaws.claims(&Runs::of(&Ipaws, &recs));
        assert_eq!(claims[2].weft, "1.00x", "the mix is not in the averages");
        let cke: Vec<(&str, Option<bool>)> = claims
            .iter()
            .filter(|c| c.claim.starts_with("mix,"))
            .map(|c| (c.weft.as_str(), c.holds))
            .collect();
        assert_eq!(
            cke,
            [
                ("0.98x", Some(true)),
                ("1.10x", Some(true)),
                ("0.77x", Some(false)),
                ("1.10x", Some(true))
            ]
        );
    }

    /// Every shipped workload and mix parses.
    #[test]
    fn workloads_parse() {
        for (n, _, _, _, text) in WORKLOADS {
            let wl = weft_memsim::gpu::workload::parse(text, n).expect("parses");
            assert!(!wl.functions.is_empty(), "{n}");
        }
        for (n, _, text) in MIXES {
            let wl = weft_memsim::gpu::workload::parse(text, n).expect("parses");
            assert!(!wl.functions.is_empty(), "{n}");
        }
    }
}
