//! The version matrix of the two studies.
//!
//! A *version* is everything that distinguishes one bar of a dissertation figure
//! from another: the optimizer pipeline the benchmark is built with, the machine
//! preset it runs and is simulated on, the hardware memory scheduler, the
//! simulator oracle (upper-bound modes of §4.3 and §5.6.1) and an optional
//! data-layout transformation of the benchmark's input (GPART-style reordering,
//! §4.5.5). Versions are data: the harness derives its job graph from them, and
//! two versions that share a pipeline share the build and trace jobs, so e.g.
//! PAR-BS and TCM reuse the Original trace and differ only in the simulation.
//!
//! Chapter 4 (§4.3, §4.5, Figs. 4.4-4.17) runs on the `table4.2` machine and
//! chapter 5 (§5.6.1, the eight versions) on `table5.2`. FR-FCFS is the default
//! scheduler of both machines, so "FR-FCFS alone" *is* Original (resp. Default)
//! and "FR-FCFS + BLP Optimized" *is* BLP Optimized; they are not listed twice.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Which study a version belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Study {
    /// Chapter 4: BLP of irregular (index-array) applications, `table4.2`.
    #[serde(rename = "ch4")]
    Ch4,
    /// Chapter 5: MLP and CLP of affine applications, `table5.2`.
    #[serde(rename = "ch5")]
    Ch5,
}

impl Study {
    /// The machine preset the study runs on.
    pub fn machine(self) -> &'static str {
        match self {
            Study::Ch4 => "table4.2",
            Study::Ch5 => "table5.2",
        }
    }
    /// Short name (`ch4`, `ch5`).
    pub fn name(self) -> &'static str {
        match self {
            Study::Ch4 => "ch4",
            Study::Ch5 => "ch5",
        }
    }
    /// The parallelism metric the study's figures plot first.
    pub fn primary_metric(self) -> &'static str {
        match self {
            Study::Ch4 => "blp",
            Study::Ch5 => "mlp",
        }
    }
}

impl fmt::Display for Study {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Hardware memory scheduler of the simulated memory controllers
/// (names as `weft sim --scheduler` spells them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemScheduler {
    /// First-ready, first-come-first-served (the default of both machines).
    FrFcfs,
    /// Parallelism-aware batch scheduling (Mutlu and Moscibroda, ISCA 2008).
    ParBs,
    /// Thread cluster memory scheduling (Kim et al., MICRO 2010).
    Tcm,
}

impl MemScheduler {
    /// CLI spelling.
    pub fn name(self) -> &'static str {
        match self {
            MemScheduler::FrFcfs => "fr-fcfs",
            MemScheduler::ParBs => "par-bs",
            MemScheduler::Tcm => "tcm",
        }
    }
}

/// Simulator oracle (upper-bound) mode, as `weft sim --oracle` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Oracle {
    /// A real execution.
    None,
    /// §4.3 MLP Ideal: each core's off-chip requests clustered.
    MlpIdeal,
    /// §4.3 BLP Ideal: outstanding requests spread evenly over the banks.
    BlpIdeal,
    /// §5.6.1 Ideal: MLP of MLP-first and CLP of CLP-first at once.
    Ideal,
}

impl Oracle {
    /// CLI spelling.
    pub fn name(self) -> &'static str {
        match self {
            Oracle::None => "none",
            Oracle::MlpIdeal => "mlp-ideal",
            Oracle::BlpIdeal => "blp-ideal",
            Oracle::Ideal => "ideal",
        }
    }
}

/// A data-layout transformation applied to a benchmark's input files before the
/// run (the program is unchanged).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reorder {
    /// GPART-style graph clustering of the data layout (see `eval::reorder`).
    Gpart,
}

/// Pipelines, in the pass-manager syntax of `weft opt --passes`. Only the
/// benchmarks' `kernel_*` functions (where their hot loop nests live) are
/// transformed and traced, so input generation and checking are not simulated.
pub mod pipelines {
    /// Ch. 4 Original: the parallel loops in executor form with the static
    /// contiguous-chunk schedule, traced. `executor-form` is
    /// `insert-inspector<schedule=original>` plus `parallel-for`: loops whose
    /// parallelism rests on the run-time dependence check (indirect writes
    /// the analysis cannot prove distinct, in loops without the `weft.parallel`
    /// annotation, which `insert-inspector` trusts) run in parallel in
    /// original order, one slab per core ordered by the slab DAG, as the
    /// dissertation's Original is the parallel program. (With `parallel-for` alone those loops
    /// ran serially, and BLP Optimized's gain on them was mostly parallelism,
    /// not BLP: gauss_seidel +72% against a serial baseline, -5% against this
    /// one.) Their inspectors are traced, as in BLP Optimized.
    pub const CH4_ORIGINAL: &str =
        "executor-form<only=kernel_*>,instrument-trace<only=kernel_*;inspectors=true>";
    /// Ch. 4 BLP Optimized: inspector/executor with Algorithm 4 (§4.4.4) on the
    /// irregular regions, executor form on the other parallel loops. The
    /// generated inspectors are traced too, so simulated time includes their
    /// cost, as the dissertation's execution times include the runtime overhead.
    pub const CH4_BLP_OPT: &str = "insert-inspector<only=kernel_*>,parallel-for<only=kernel_*>,instrument-trace<only=kernel_*;inspectors=true>";
    /// Ch. 5 Default: equal iteration blocks assigned round-robin (§5.6.1).
    pub const CH5_DEFAULT: &str =
        "strip-mine,ib-schedule<scheme=default>,instrument-trace<only=kernel_*>";
    /// Ch. 5 Clustering: Pai and Adve miss clustering on the default assignment.
    pub const CH5_CLUSTERING: &str =
        "cluster-misses,strip-mine,ib-schedule<scheme=default>,instrument-trace<only=kernel_*>";
    /// Ch. 5 MLP-first (Algorithm 5 with beta = 1).
    pub const CH5_MLP_FIRST: &str =
        "strip-mine,loop-permute,ib-schedule<scheme=mlp-first>,instrument-trace<only=kernel_*>";
    /// Ch. 5 CLP-first (beta = 0).
    pub const CH5_CLP_FIRST: &str =
        "strip-mine,loop-permute,ib-schedule<scheme=clp-first>,instrument-trace<only=kernel_*>";
    /// Ch. 5 Balanced (beta from the standard-deviation rule, §5.5.6).
    pub const CH5_BALANCED: &str =
        "strip-mine,loop-permute,ib-schedule<scheme=balanced>,instrument-trace<only=kernel_*>";
    /// Ch. 5 Locality-Aware-MLP (Ding et al., MICRO 2014): bank parallelism with
    /// row-buffer awareness and no CLP.
    pub const CH5_LA_MLP: &str =
        "strip-mine,loop-permute,ib-schedule<scheme=la-mlp>,instrument-trace<only=kernel_*>";
}

/// One version of a study.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Version {
    /// Stable id (`blp-opt`, `par-bs+blp-opt`, `balanced`).
    pub id: &'static str,
    /// Label as the dissertation's figures print it.
    pub label: &'static str,
    /// Study (and therefore machine preset).
    pub study: Study,
    /// Optimizer pipeline.
    pub pipeline: &'static str,
    /// Hardware memory scheduler.
    pub scheduler: MemScheduler,
    /// Simulator oracle.
    pub oracle: Oracle,
    /// Input data-layout transformation.
    pub reorder: Option<Reorder>,
    /// Id of the version percentages are computed against.
    pub baseline: &'static str,
    /// Part of `--quick`.
    pub quick: bool,
    /// Runtime settings the version's runs get (name, value): the variants of
    /// the printed algorithms (`crate::aside` rules, candidate window, miss
    /// filter) are the same build run with another runtime rule.
    pub env: &'static [(&'static str, &'static str)],
}

impl Version {
    /// Machine preset.
    pub fn machine(&self) -> &'static str {
        self.study.machine()
    }
    /// True for the study's baseline version.
    pub fn is_baseline(&self) -> bool {
        self.id == self.baseline
    }
}

#[allow(clippy::too_many_arguments)]
const fn v(
    id: &'static str,
    label: &'static str,
    study: Study,
    pipeline: &'static str,
    scheduler: MemScheduler,
    oracle: Oracle,
    reorder: Option<Reorder>,
    baseline: &'static str,
    quick: bool,
) -> Version {
    Version {
        id,
        label,
        study,
        pipeline,
        scheduler,
        oracle,
        reorder,
        baseline,
        quick,
        env: &[],
    }
}

impl Version {
    /// The same version with runtime settings `env` (a named variant).
    fn with_env(self, env: &'static [(&'static str, &'static str)]) -> Version {
        Version { env, ..self }
    }
}

/// The runtime settings of a run of `version`: those `weft eval` was started
/// with (`base`, from `backend::RUNTIME_ENV`), overridden by the version's own.
pub fn run_env(base: &[(String, String)], version: &Version) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = base
        .iter()
        .filter(|(k, _)| !version.env.iter().any(|(n, _)| n == k))
        .cloned()
        .collect();
    env.extend(
        version
            .env
            .iter()
            .map(|&(k, v)| (k.to_string(), v.to_string())),
    );
    env
}

use pipelines::*;
use MemScheduler::*;

/// Chapter-4 benchmarks of `--quick` (registry names), run at the full size
/// ([`super::QUICK_CH4_SIZE`]). Two of the eight: at the full size they give
/// BLP gain -26.8%, time -14.6% ±0.2, +4.7% without inspections, `blp-aside`
/// -0.5% ±0.3 (session 15), the signs of the full run's averages over eight
/// (-18.9%, -16.1%, +6.4%, -0.4%). On quick inputs all eight gave +0.8%,
/// -22.8%, -4.4%, -0.2%, and these two +1.3%, -25.4%, -7.8%, +0.4%: two
/// headlines with the opposite sign (issue #36).
pub const QUICK_CH4: &[&str] = &["hpcg", "moldyn"];

/// The `--quick` benchmarks of a study; `None`: every benchmark of the size
/// class. Chapter 5 runs all twelve (about 90 s on 2 cores): its headline is an
/// average that a few benchmarks decide (jacobi2d, transpose, fft at the full
/// size), and a subset of two (mxm, syr2k, until session 14) gave -0.4% where
/// the full run gives +3.5% to +4.2% and the twelve on quick inputs +2.8%.
pub fn quick_benchmarks(study: Study) -> Option<&'static [&'static str]> {
    match study {
        Study::Ch4 => Some(QUICK_CH4),
        Study::Ch5 => None,
    }
}

/// Chapter 4 versions (§4.3, §4.5.2, §4.5.5), baseline Original.
#[rustfmt::skip]
pub fn ch4_versions() -> Vec<Version> {
    use Study::Ch4;
    vec![
        v("original", "Original", Ch4, CH4_ORIGINAL, FrFcfs, Oracle::None, None, "original", true),
        v("blp-opt", "BLP Optimized", Ch4, CH4_BLP_OPT, FrFcfs, Oracle::None, None, "original", true),
        v("mlp-ideal", "MLP Ideal", Ch4, CH4_ORIGINAL, FrFcfs, Oracle::MlpIdeal, None, "original", false),
        v("blp-ideal", "BLP Ideal", Ch4, CH4_ORIGINAL, FrFcfs, Oracle::BlpIdeal, None, "original", true),
        v("par-bs", "PAR-BS", Ch4, CH4_ORIGINAL, ParBs, Oracle::None, None, "original", false),
        v("par-bs+blp-opt", "PAR-BS + BLP Optimized", Ch4, CH4_BLP_OPT, ParBs, Oracle::None, None, "original", false),
        v("tcm", "TCM", Ch4, CH4_ORIGINAL, Tcm, Oracle::None, None, "original", false),
        v("tcm+blp-opt", "TCM + BLP Optimized", Ch4, CH4_BLP_OPT, Tcm, Oracle::None, None, "original", false),
        v("gpart", "GPART", Ch4, CH4_ORIGINAL, FrFcfs, Oracle::None, Some(Reorder::Gpart), "original", false),
        // Variants of Algorithm 4 (issue #36 part 6); the printed one is blp-opt.
        v("blp-aside", "BLP Optimized, stepping aside", Ch4, CH4_BLP_OPT, FrFcfs, Oracle::None, None, "original", true)
            .with_env(&[("WEFT_BLP_ASIDE", "1")]),
        v("blp-keep", "BLP Optimized, original order unless it gains coverage", Ch4, CH4_BLP_OPT, FrFcfs, Oracle::None, None, "original", false)
            .with_env(&[("WEFT_BLP_ASIDE", "coverage")]),
        v("blp-subwin", "BLP Optimized, sub-slab window maps", Ch4, CH4_BLP_OPT, FrFcfs, Oracle::None, None, "original", false)
            .with_env(&[("WEFT_BLP_SUBWINDOWS", "8")]),
        v("blp-window", "BLP Optimized, window 2", Ch4, CH4_BLP_OPT, FrFcfs, Oracle::None, None, "original", false)
            .with_env(&[("WEFT_BLP_WINDOW", "2")]),
        v("blp-miss", "BLP Optimized, miss-filtered maps", Ch4, CH4_BLP_OPT, FrFcfs, Oracle::None, None, "original", false)
            .with_env(&[("WEFT_MISS_FILTER", "lines")]),
        v("blp-stagger", "BLP Optimized, staggered chunks", Ch4, CH4_BLP_OPT, FrFcfs, Oracle::None, None, "original", false)
            .with_env(&[("WEFT_BLP_STAGGER", "1")]),
    ]
}

/// Runtime setting of the ch. 5 step-aside variants (rule 3 of the runtime's
/// `aside` module).
const IB_ASIDE: &[(&str, &str)] = &[("WEFT_IB_ASIDE", "1")];

/// Chapter 5 versions (the eight of §5.6.1, then the variants), baseline Default.
#[rustfmt::skip]
pub fn ch5_versions() -> Vec<Version> {
    use Study::Ch5;
    vec![
        v("default", "Default", Ch5, CH5_DEFAULT, FrFcfs, Oracle::None, None, "default", true),
        v("clustering", "Clustering", Ch5, CH5_CLUSTERING, FrFcfs, Oracle::None, None, "default", false),
        v("mlp-first", "MLP-first", Ch5, CH5_MLP_FIRST, FrFcfs, Oracle::None, None, "default", true),
        v("clp-first", "CLP-first", Ch5, CH5_CLP_FIRST, FrFcfs, Oracle::None, None, "default", true),
        v("balanced", "Balanced", Ch5, CH5_BALANCED, FrFcfs, Oracle::None, None, "default", true),
        v("la-mlp", "Locality-Aware-MLP", Ch5, CH5_LA_MLP, FrFcfs, Oracle::None, None, "default", false),
        v("par-bs", "PAR-BS", Ch5, CH5_DEFAULT, ParBs, Oracle::None, None, "default", false),
        v("ideal", "Ideal", Ch5, CH5_DEFAULT, FrFcfs, Oracle::Ideal, None, "default", false),
        // Variants of Algorithm 5 (issue #36 part 6): one-IB windows, and windows that cover no more banks than Default's, run Default (rules 3 and 4 of `weft_runtime::aside`).
        v("mlp-first-aside", "MLP-first, stepping aside", Ch5, CH5_MLP_FIRST, FrFcfs, Oracle::None, None, "default", false)
            .with_env(IB_ASIDE),
        v("clp-first-aside", "CLP-first, stepping aside", Ch5, CH5_CLP_FIRST, FrFcfs, Oracle::None, None, "default", false)
            .with_env(IB_ASIDE),
        v("balanced-aside", "Balanced, stepping aside", Ch5, CH5_BALANCED, FrFcfs, Oracle::None, None, "default", true)
            .with_env(IB_ASIDE),
    ]
}

/// Each variant of a printed algorithm, with the printed version it is
/// reported against (issue #36 part 6: "report each variant against the
/// printed algorithm").
pub const VARIANTS: &[(&str, &str)] = &[
    ("blp-aside", "blp-opt"),
    ("blp-keep", "blp-opt"),
    ("blp-subwin", "blp-opt"),
    ("blp-window", "blp-opt"),
    ("blp-miss", "blp-opt"),
    ("blp-stagger", "blp-opt"),
    ("mlp-first-aside", "mlp-first"),
    ("clp-first-aside", "clp-first"),
    ("balanced-aside", "balanced"),
];

/// All versions of a study.
pub fn versions(study: Study) -> Vec<Version> {
    match study {
        Study::Ch4 => ch4_versions(),
        Study::Ch5 => ch5_versions(),
    }
}

/// Finds a version by study and id.
pub fn find(study: Study, id: &str) -> Option<Version> {
    versions(study).into_iter().find(|v| v.id == id)
}

/// One knob of a sensitivity sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Knob {
    /// A machine-config field, by dotted TOML path (`dram.banks_per_group`).
    Machine {
        /// Dotted path in the preset's TOML.
        path: &'static str,
    },
    /// A machine-config field as a percentage of the run's own value (so the
    /// sweep follows the cache sizes of the run's size class).
    MachinePercent {
        /// Dotted path in the preset's TOML.
        path: &'static str,
    },
    /// The number of cores (machine `core.count` and the runtime's `WEFT_CORES`).
    Cores,
    /// Iterations per slab of `insert-inspector` (its `slab` option; the
    /// default, 0, is 1/50 of a core's iterations, §4.5.1).
    SlabIters,
    /// Input size as a multiple of the benchmark's default (Fig. 4.16).
    InputScale,
}

/// A sensitivity sweep of Fig. 4.15 / 4.16: one knob, several values; every other
/// parameter keeps its `table4.2` default. Each point runs Original and BLP
/// Optimized.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sweep {
    /// Id (`banks`, `llc`, `cores`, `slab`, `row`, `input`).
    pub id: &'static str,
    /// Axis label.
    pub label: &'static str,
    /// What is varied.
    pub knob: Knob,
    /// Values (integers in the knob's unit).
    pub values: Vec<i64>,
    /// Benchmarks restricted to (Fig. 4.16 uses HPCG and GMR only); empty = all.
    pub benchmarks: Vec<&'static str>,
    /// Run at the main matrix's input size instead of the sweeps' (the full
    /// run sweeps on quick inputs; this one scales the full inputs).
    pub main_size: bool,
    /// Source in the dissertation.
    pub source: &'static str,
}

/// Id of the sweep that scales the main matrix's inputs (its points are
/// summarised next to the headline numbers and quoted in the analyses).
pub const INPUT_MAIN: &str = "input-main";

/// The sweeps of §4.5.4 (Fig. 4.15 a/b and Fig. 4.16).
pub fn sweeps() -> Vec<Sweep> {
    vec![
        Sweep {
            id: "banks",
            label: "banks per bank group (x 2 groups x 8 ranks x 4 channels)",
            knob: Knob::Machine {
                path: "dram.banks_per_group",
            },
            values: vec![1, 2, 4],
            benchmarks: vec![],
            main_size: false,
            source: "§4.5.4, Fig. 4.15; Fig. 4.6",
        },
        Sweep {
            id: "llc",
            label:
                "LLC capacity (% of the run's LLC; Fig. 4.15 uses 5, 10, 12 MB of a 10 MB default)",
            knob: Knob::MachinePercent {
                path: "llc.size_bytes",
            },
            values: vec![50, 100, 125],
            benchmarks: vec![],
            main_size: false,
            source: "§4.5.4, Fig. 4.15",
        },
        Sweep {
            id: "cores",
            label: "cores",
            knob: Knob::Cores,
            values: vec![4, 8, 12],
            benchmarks: vec![],
            main_size: false,
            source: "§4.5.4, Fig. 4.15",
        },
        Sweep {
            id: "slab",
            label: "iterations per slab",
            knob: Knob::SlabIters,
            values: vec![16, 64, 256],
            benchmarks: vec![],
            main_size: false,
            source: "§4.5.1, §4.5.4",
        },
        Sweep {
            id: "row",
            label: "row-buffer size (bytes)",
            knob: Knob::Machine {
                path: "dram.row_bytes",
            },
            values: vec![1024, 2048, 4096],
            benchmarks: vec![],
            main_size: false,
            source: "§4.5.4, Fig. 4.15",
        },
        Sweep {
            id: "input",
            label: "input size (x default)",
            knob: Knob::InputScale,
            values: vec![1, 2, 4],
            benchmarks: vec!["hpcg", "gmres"],
            main_size: false,
            source: "§4.5.4, Fig. 4.16",
        },
        Sweep {
            id: INPUT_MAIN,
            label: "input size of the main matrix (x default; every benchmark with a size knob)",
            knob: Knob::InputScale,
            values: vec![1, 4],
            benchmarks: vec!["moldyn", "stun", "hpcg", "minife", "gmres"],
            main_size: true,
            source: "§4.5.4, Fig. 4.16; §4.5.2",
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ch5_has_the_eight_versions() {
        let ids: Vec<_> = ch5_versions().iter().take(8).map(|v| v.id).collect();
        assert_eq!(
            ids,
            [
                "default",
                "clustering",
                "mlp-first",
                "clp-first",
                "balanced",
                "la-mlp",
                "par-bs",
                "ideal"
            ]
        );
    }

    #[test]
    fn ids_unique_and_baselines_exist() {
        for study in [Study::Ch4, Study::Ch5] {
            let vs = versions(study);
            for v in &vs {
                assert_eq!(vs.iter().filter(|w| w.id == v.id).count(), 1, "{}", v.id);
                assert!(vs.iter().any(|w| w.id == v.baseline), "{}", v.baseline);
                assert_eq!(v.machine(), study.machine());
            }
            assert_eq!(vs.iter().filter(|v| v.is_baseline()).count(), 1);
        }
    }

    #[test]
    fn quick_covers_both_studies_and_headlines() {
        let q4: Vec<_> = ch4_versions()
            .into_iter()
            .filter(|v| v.quick)
            .map(|v| v.id)
            .collect();
        let q5: Vec<_> = ch5_versions()
            .into_iter()
            .filter(|v| v.quick)
            .map(|v| v.id)
            .collect();
        assert!(q4.contains(&"original") && q4.contains(&"blp-opt"));
        for id in ["default", "mlp-first", "clp-first", "balanced"] {
            assert!(q5.contains(&id));
        }
    }

    #[test]
    fn variants_run_the_printed_build_with_their_setting() {
        let base = vec![
            ("WEFT_BLP_WINDOW".to_string(), "8".to_string()),
            ("WEFT_SLOT_BARRIER".to_string(), "1".to_string()),
        ];
        let w = find(Study::Ch4, "blp-window").unwrap();
        assert_eq!(w.pipeline, find(Study::Ch4, "blp-opt").unwrap().pipeline);
        // The version's own setting replaces the one weft eval was started with.
        assert_eq!(
            run_env(&base, &w),
            vec![
                ("WEFT_SLOT_BARRIER".to_string(), "1".to_string()),
                ("WEFT_BLP_WINDOW".to_string(), "2".to_string()),
            ]
        );
        let printed = find(Study::Ch4, "blp-opt").unwrap();
        assert_eq!(run_env(&base, &printed), base);
        let b = find(Study::Ch5, "balanced-aside").unwrap();
        assert_eq!(b.pipeline, find(Study::Ch5, "balanced").unwrap().pipeline);
        assert_eq!(b.env, &[("WEFT_IB_ASIDE", "1")]);
    }

    #[test]
    fn every_variant_has_its_printed_version_in_the_same_study() {
        for &(var, printed) in VARIANTS {
            let study = [Study::Ch4, Study::Ch5]
                .into_iter()
                .find(|&s| find(s, var).is_some())
                .unwrap_or_else(|| panic!("{var} is no version"));
            let (v, p) = (find(study, var).unwrap(), find(study, printed).unwrap());
            assert_eq!(v.pipeline, p.pipeline, "{var}");
            assert!(!v.env.is_empty() && p.env.is_empty(), "{var}");
        }
    }

    #[test]
    fn oracle_versions_share_the_baseline_pipeline() {
        for study in [Study::Ch4, Study::Ch5] {
            let vs = versions(study);
            let base = vs.iter().find(|v| v.is_baseline()).unwrap();
            for v in vs.iter().filter(|v| v.oracle != Oracle::None) {
                assert_eq!(v.pipeline, base.pipeline, "{}", v.id);
            }
        }
    }
}
