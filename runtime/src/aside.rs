//! Stepping aside: whether a BLP (Algorithm 4, §4.4.4) or MLP/CLP (Algorithm
//! 5, §5.5.4) schedule can pay for a region before the runtime pays for it,
//! decided from counts only, so trace mode stays deterministic (no host time).
//!
//! The printed algorithms schedule every region they are given. On our inputs
//! they often cannot gain (issues #34 and #36, `docs/results.md`, "Where our
//! numbers disagree"): the inspection of a region proven parallel costs about
//! one execution of the region and is not amortised over a short timing loop
//! (moldyn: 25% of the run), and where the original order already covers most
//! banks per slot, reordering slabs only breaks the streams the caches and the
//! prefetcher rely on (hpcg: LLC hit rate 75.8% -> 66.2%). Four rules, each
//! enabled by a setting so that the printed algorithms stay as they are:
//!
//! 1. **Amortisation** ([`before_inspection`], `WEFT_BLP_ASIDE=1`): a region
//!    whose loop needs no dependence check (its inspector reports only
//!    unchecked accesses, or declares the loop parallel by annotation,
//!    `weft_inspect_no_check`; its fall-back, static chunks, is the ch. 4
//!    Original schedule and needs no inspection) is inspected only once
//!    `n · G ≥ C`, where `n` is the number
//!    of executions so far, taken as the estimate of the executions still to
//!    come (the region has been called `n` times, so it is expected to be
//!    called about as often again), `G` = [`GAIN_BOUND`] is the largest share
//!    of an execution a bank schedule was measured to save on this machine
//!    (BLP Ideal, the oracle that places every row on the least-loaded bank,
//!    `docs/oracles.md`), and `C` = [`INSPECT_COST_EXECS`] is the inspection's
//!    cost in executions (the inspector reports the loop's own accesses). So
//!    a region called fewer than ⌈C/G⌉ = 6 times is never inspected.
//! 2. **Coverage** ([`after_inspection`], `WEFT_BLP_ASIDE=1` or `coverage`): once the bank
//!    maps are known, Algorithm 4's schedule is kept only when it covers at
//!    least [`MIN_COVERAGE_GAIN`] more banks per slot (mean over slots) than
//!    the original order of the same slabs; otherwise the region runs its
//!    slabs in original order (Algorithm 4 with a candidate window of one
//!    slab, which respects the slab DAG), and the schedule costs nothing
//!    beyond the inspection. The margin stands for what reordering costs in
//!    locality, which the bank maps do not show.
//! 3. **One-block windows** ([`ib_window_aside`], `WEFT_IB_ASIDE`): with an
//!    iteration window (eq. 5.1) of one IB, Algorithm 5 takes the pool head
//!    at every step, which is the Default round-robin; the nest then runs the
//!    Default plan, without the permutation inside windows (§5.5.5) that a
//!    one-IB window cannot use.
//! 4. **Window coverage** ([`ib_coverage_aside`], `WEFT_IB_ASIDE`): once
//!    Algorithm 5 has built its windows, they are kept only when they cover at
//!    least [`MIN_COVERAGE_GAIN`] more memory banks or more LLC banks per
//!    window step (the union over every core's window, the model's own
//!    measure of MLP and CLP, [`window_coverage`]) than the Default windows
//!    of the same IBs; otherwise the nest runs the Default plan. The margin
//!    stands, as in rule 2, for the locality a reordering loses.
//!
//! Each rule returns the reason it stepped aside, which `WEFT_STATS` reports
//! in the region's `step_aside` field.

/// How rule 1's reason starts (readers of `step_aside` classify by it).
pub const AMORTISE_PREFIX: &str = "not inspected:";
/// How rule 2's reason starts.
pub const COVERAGE_PREFIX: &str = "original order kept:";
/// How rule 3's reason starts.
pub const ONE_IB_PREFIX: &str = "Default schedule:";
/// How rule 4's reason starts.
pub const WINDOW_COVERAGE_PREFIX: &str = "Default windows kept:";

/// Which of rules 1 and 2 apply to irregular regions (`WEFT_BLP_ASIDE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlpAside {
    /// Neither: Algorithm 4 as printed (`0`, `off`; the default).
    #[default]
    Off,
    /// Rule 2 only: every region is inspected as printed, and runs its slabs
    /// in original order when the schedule does not gain coverage
    /// (`coverage`).
    Coverage,
    /// Rules 1 and 2 (`1`, `on`).
    All,
}

impl BlpAside {
    /// Parses the setting's value (`None` for anything else).
    pub fn parse(v: &str) -> Option<BlpAside> {
        Some(match v.trim() {
            "0" | "off" | "" => BlpAside::Off,
            "coverage" => BlpAside::Coverage,
            "1" | "on" => BlpAside::All,
            _ => return None,
        })
    }
    /// Rule 1 applies.
    pub fn amortise(self) -> bool {
        self == BlpAside::All
    }
    /// Rule 2 applies.
    pub fn coverage(self) -> bool {
        self != BlpAside::Off
    }
}

/// Largest time saving of a bank schedule, as a share of an execution:
/// BLP Ideal's best per-benchmark time reduction on the ch. 4 machine the
/// quick evaluation uses (+17.7%, `docs/oracles.md`, "Measured"). No
/// schedule that keeps the data layout can beat the oracle, so this bounds
/// what one execution under Algorithm 4 can save.
pub const GAIN_BOUND: f64 = 0.177;

/// Cost of one inspection of a region proven parallel, in executions of the
/// region: its inspector reports the addresses the loop itself loads.
pub const INSPECT_COST_EXECS: f64 = 1.0;

/// Smallest gain in mean banks covered per slot (relative to the original
/// order of the same slabs) for which Algorithm 4's order is run.
pub const MIN_COVERAGE_GAIN: f64 = 0.10;

/// Rule 1: `None` when a region proven parallel that has run `executions`
/// times may be inspected now, else the reason to run it without inspection
/// (static chunks, the Original schedule).
pub fn before_inspection(executions: u64) -> Option<String> {
    let expected = executions as f64 * GAIN_BOUND;
    (expected < INSPECT_COST_EXECS).then(|| {
        format!(
            "{AMORTISE_PREFIX} {executions} execution(s) so far x {GAIN_BOUND} (largest measured \
             saving per execution) < {INSPECT_COST_EXECS} execution(s) of inspection"
        )
    })
}

/// Rule 2: `None` when Algorithm 4's schedule (mean `scheduled` banks per
/// slot) gains enough over the original order (`original`), else the reason
/// to run the slabs in original order.
pub fn after_inspection(original: f64, scheduled: f64, banks: usize) -> Option<String> {
    // The gain is compared as a difference (with a rounding margin), so that
    // exactly +10% counts as enough.
    (scheduled - original < MIN_COVERAGE_GAIN * original - 1e-9).then(|| {
        format!(
            "{COVERAGE_PREFIX} schedule covers {scheduled:.1} of {banks} banks per slot \
             against {original:.1} in original order (less than +{:.0}%)",
            MIN_COVERAGE_GAIN * 100.0
        )
    })
}

/// Rule 3: `None` when Algorithm 5 (any scheme but Default) can differ from
/// Default, else the reason it cannot: an iteration window of one IB.
pub fn ib_window_aside(window: usize) -> Option<String> {
    (window <= 1).then(|| {
        format!(
            "{ONE_IB_PREFIX} iteration window of one IB (eq. 5.1), where Algorithm 5 takes \
             the pool head, the Default round-robin"
        )
    })
}

/// Mean distinct memory banks and LLC banks per window step of `sched`:
/// for each step, the banks with at least one access in any IB of any
/// core's window (the union Algorithm 5's `g` vectors measure), averaged
/// over the steps that hold an IB.
pub fn window_coverage(
    inst: &crate::mlp::IbInstance,
    sched: &crate::mlp::IbSchedule,
) -> (f64, f64) {
    use crate::bankset::BankSet;
    let (mut mem, mut llc, mut steps) = (0usize, 0usize, 0usize);
    let mut m = BankSet::new(inst.mem_banks);
    let mut l = BankSet::new(inst.llc_banks);
    for step in sched
        .windows
        .iter()
        .filter(|s| s.iter().any(|w| !w.is_empty()))
    {
        m.clear();
        l.clear();
        for &b in step.iter().flatten() {
            m.insert_nonzero(&inst.blocks[b].mem);
            l.insert_nonzero(&inst.blocks[b].llc);
        }
        steps += 1;
        mem += m.count();
        llc += l.count();
    }
    let n = steps.max(1) as f64;
    (mem as f64 / n, llc as f64 / n)
}

/// Rule 4: `None` when the scheme's windows (mean memory and LLC banks per
/// step `scheme`) gain enough over the Default windows (`default`) in
/// memory banks or in LLC banks, else the reason to run the Default plan.
pub fn ib_coverage_aside(scheme: (f64, f64), default: (f64, f64)) -> Option<String> {
    let gains = |s: f64, d: f64| s - d >= MIN_COVERAGE_GAIN * d - 1e-9 && s > d;
    let keep = gains(scheme.0, default.0) || gains(scheme.1, default.1);
    (!keep).then(|| {
        format!(
            "{WINDOW_COVERAGE_PREFIX} the scheme's windows cover {:.1} memory and {:.1} LLC \
             banks per step against {:.1} and {:.1} in the Default windows (less than +{:.0}% \
             in both)",
            scheme.0,
            scheme.1,
            default.0,
            default.1,
            MIN_COVERAGE_GAIN * 100.0
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse() {
        assert_eq!(BlpAside::parse("0"), Some(BlpAside::Off));
        assert_eq!(BlpAside::parse("coverage"), Some(BlpAside::Coverage));
        assert_eq!(BlpAside::parse("1"), Some(BlpAside::All));
        assert_eq!(BlpAside::parse("yes"), None);
        assert!(BlpAside::All.amortise() && BlpAside::All.coverage());
        assert!(!BlpAside::Coverage.amortise() && BlpAside::Coverage.coverage());
        assert!(!BlpAside::Off.amortise() && !BlpAside::Off.coverage());
    }

    #[test]
    fn amortisation_needs_six_executions() {
        // 5 x 0.177 = 0.885 < 1 execution of inspection; 6 x 0.177 = 1.062 >= 1.
        for n in 0..=5 {
            let why = before_inspection(n).expect("too few executions to amortise");
            assert!(why.contains(&format!("{n} execution(s) so far")), "{why}");
        }
        assert_eq!(before_inspection(6), None);
        assert_eq!(before_inspection(50), None);
    }

    #[test]
    fn coverage_gain_threshold_is_ten_percent() {
        // 50 banks in original order: the schedule must reach 55.
        assert!(after_inspection(50.0, 54.9, 64).is_some());
        assert!(after_inspection(50.0, 50.0, 64).is_some());
        assert!(after_inspection(50.0, 40.0, 64).is_some());
        assert_eq!(after_inspection(50.0, 55.0, 64), None);
        assert_eq!(after_inspection(20.0, 40.0, 64), None);
        let why = after_inspection(50.0, 52.0, 64).unwrap();
        assert!(why.contains("52.0 of 64") && why.contains("50.0"), "{why}");
    }

    fn slabs(banks: usize, rows: &[&[&str]]) -> crate::blp::SlabInstance {
        let sets = rows
            .iter()
            .map(|r| {
                r.iter()
                    .map(|s| crate::bankset::BankSet::from_bitstring(s).unwrap())
                    .collect()
            })
            .collect();
        crate::blp::SlabInstance::new(banks, sets).unwrap()
    }

    /// Rule 2 on hand-computed coverages: two cores whose slabs alternate
    /// between banks 0 and 1 cover one bank per slot in original order and
    /// two when Algorithm 4 pairs them (+100%: kept); slabs that each cover
    /// both banks leave nothing to gain (2 against 2: stepped aside), and the
    /// stepped-aside order (a window of one slab) is the original one.
    #[test]
    fn coverage_rule_on_scheduled_instances() {
        use crate::blp::{original_order, schedule_blp, BlpOptions, TieBreak};
        let lowest = BlpOptions {
            tie_break: TieBreak::Lowest,
            ..BlpOptions::default()
        };
        let split = slabs(2, &[&["10", "01", "10", "01"], &["10", "01", "10", "01"]]);
        let (o, s) = (
            original_order(&split),
            schedule_blp(&split, &lowest, None).unwrap(),
        );
        assert_eq!((o.mean_coverage(), s.mean_coverage()), (1.0, 2.0));
        assert_eq!(
            after_inspection(o.mean_coverage(), s.mean_coverage(), 2),
            None
        );

        let full = slabs(2, &[&["11", "11", "11"], &["11", "11", "11"]]);
        let (o, s) = (
            original_order(&full),
            schedule_blp(&full, &lowest, None).unwrap(),
        );
        assert_eq!((o.mean_coverage(), s.mean_coverage()), (2.0, 2.0));
        assert!(after_inspection(o.mean_coverage(), s.mean_coverage(), 2).is_some());
        let keep = BlpOptions {
            window: Some(1),
            ..BlpOptions::default()
        };
        let kept = schedule_blp(&split, &keep, None).unwrap();
        assert_eq!(kept.slots, original_order(&split).slots);
    }

    /// Rule 4 on hand-computed windows: four IBs on two cores, windows of
    /// one IB per core. IB k touches memory bank k / 2 (0, 0, 1, 1) and LLC
    /// bank 0. Default's steps are {0, 1} and {2, 3}: one memory bank each
    /// (mean 1.0); windows {0, 2} and {1, 3} cover two (2.0, +100%: kept).
    /// Equal coverage, or a gain under 10% in both, steps aside.
    #[test]
    fn window_coverage_rule() {
        use crate::mlp::{BlockVectors, IbInstance, IbSchedule};
        let blocks = (0..4)
            .map(|k| BlockVectors {
                mem: (0..2).map(|b| u32::from(b == k / 2)).collect(),
                llc: vec![1],
            })
            .collect();
        let inst = IbInstance {
            cores: 2,
            window: 1,
            mem_banks: 2,
            llc_banks: 1,
            blocks,
        };
        let sched = |w: Vec<Vec<Vec<usize>>>| IbSchedule {
            windows: w,
            beta: Vec::new(),
            seq: vec![0, 1, 2, 3],
        };
        let default = sched(vec![vec![vec![0], vec![1]], vec![vec![2], vec![3]]]);
        let paired = sched(vec![vec![vec![0], vec![2]], vec![vec![1], vec![3]]]);
        let (d, p) = (
            window_coverage(&inst, &default),
            window_coverage(&inst, &paired),
        );
        assert_eq!((d, p), ((1.0, 1.0), (2.0, 1.0)));
        assert_eq!(ib_coverage_aside(p, d), None);
        let why = ib_coverage_aside(d, d).unwrap();
        assert!(why.starts_with(WINDOW_COVERAGE_PREFIX), "{why}");
        assert!(why.contains("1.0 memory and 1.0 LLC"), "{why}");
        // +9% memory and +5% LLC: aside; +10% LLC alone: kept.
        assert!(ib_coverage_aside((10.9, 21.0), (10.0, 20.0)).is_some());
        assert_eq!(ib_coverage_aside((10.0, 22.0), (10.0, 20.0)), None);
        // A step without IBs (a core idle) does not count.
        let gap = sched(vec![
            vec![vec![0], vec![1]],
            vec![vec![], vec![]],
            vec![vec![2], vec![3]],
        ]);
        assert_eq!(window_coverage(&inst, &gap), (1.0, 1.0));
    }

    /// Rule 3's premise: with windows of one IB, Algorithm 5 (every scheme)
    /// assigns and orders the IBs exactly as the Default round-robin.
    #[test]
    fn one_ib_windows_make_algorithm5_the_default() {
        use crate::mlp::{schedule_ibs, BlockVectors, IbInstance, MlpOptions, Scheme};
        // Five IBs on two cores; IB k touches memory bank k % 3 and LLC bank k % 2,
        // so a window of two would pick differently from the pool order.
        let blocks = (0..5)
            .map(|k| BlockVectors {
                mem: (0..3).map(|b| u32::from(b == k % 3)).collect(),
                llc: (0..2).map(|b| u32::from(b == k % 2)).collect(),
            })
            .collect();
        let inst = IbInstance {
            cores: 2,
            window: 1,
            mem_banks: 3,
            llc_banks: 2,
            blocks,
        };
        let run = |scheme| {
            let opts = MlpOptions {
                scheme,
                ..MlpOptions::default()
            };
            schedule_ibs(&inst, &opts, None).unwrap().per_core(2)
        };
        let default = run(Scheme::Default);
        assert_eq!(default, vec![vec![0, 2, 4], vec![1, 3]]);
        for scheme in [Scheme::MlpFirst, Scheme::ClpFirst, Scheme::Balanced] {
            assert_eq!(run(scheme), default, "{scheme:?}");
        }
    }

    /// Rule 1 in the runtime (count mode, as in trace mode): a region whose
    /// loop needs no dependence check runs static chunks, uninspected, for
    /// its first six calls, and is inspected once, at the seventh; every
    /// call runs every iteration once. `declare` is what the inspector says
    /// at entry; `amortised` whether rule 1 applies to it.
    fn rule_one_in_the_runtime(declare: fn(&mut crate::runtime::Inspector), amortised: bool) {
        use crate::runtime::{Inspector, LazyInspect, PayoffMode, Runtime, RuntimeConfig};
        use std::sync::Mutex;
        let rt = Runtime::new(RuntimeConfig {
            cores: 2,
            payoff: PayoffMode::Count,
            lazy: LazyInspect::Off,
            min_parallel_ns: 0,
            blp_aside: BlpAside::All,
            ..RuntimeConfig::default()
        })
        .unwrap();
        let data = vec![0u64; 4096];
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            declare(h);
            for i in lo..hi {
                let a = &data[(i as usize * 37) % 4096] as *const u64 as u64;
                h.report(i, a, 8, crate::abi::ACCESS_UNCHECKED).unwrap();
            }
        };
        let seen = Mutex::new(Vec::new());
        let body = |lo: i64, hi: i64| seen.lock().unwrap().extend(lo..hi);
        let region = |rt: &Runtime| -> serde_json::Value {
            let st = rt.stats_json();
            st["regions"].as_array().unwrap()[0].clone()
        };
        for call in 0..7u64 {
            rt.run_irregular(5, 0, 1000, 0, Some(&insp), &body).unwrap();
            let mut v = std::mem::take(&mut *seen.lock().unwrap());
            v.sort_unstable();
            assert_eq!(v, (0..1000).collect::<Vec<_>>(), "call {call}");
            let r = region(&rt);
            if call < 6 && amortised {
                assert!(rt.cached_irregular_plan(5).is_none(), "call {call}");
                assert_eq!(r["inspections"], 0, "call {call}");
                let why = r["step_aside"].as_str().unwrap().to_string();
                assert!(
                    why.contains(&format!("{call} execution(s) so far")),
                    "{why}"
                );
            } else {
                assert_eq!(r["inspections"], 1, "call {call}");
                assert!(rt.cached_irregular_plan(5).is_some(), "call {call}");
            }
        }
    }

    #[test]
    fn runtime_inspects_a_parallel_region_only_once_it_can_amortise() {
        rule_one_in_the_runtime(|h| h.declare_maps_only(), true);
    }

    /// A loop parallel by annotation (`weft_inspect_no_check`) is the
    /// Original's static chunks too, so rule 1 applies to it; an inspector
    /// that declares neither may need the dependence check and is
    /// inspected at its first call.
    #[test]
    fn rule_one_covers_annotated_loops_and_not_undeclared_ones() {
        rule_one_in_the_runtime(|h| h.declare_no_check(), true);
        rule_one_in_the_runtime(|_| {}, false);
    }

    /// Rule 2 in the runtime: a region whose every slab touches every bank
    /// leaves Algorithm 4 nothing to gain, so it steps aside; without
    /// conflicts its plan is then the Original's static chunks, one unit per
    /// core (not the slabs in original order, which cost a body call each).
    #[test]
    fn rule_two_without_conflicts_runs_static_chunks() {
        use crate::runtime::{Inspector, LazyInspect, PayoffMode, Runtime, RuntimeConfig};
        let rt = Runtime::new(RuntimeConfig {
            cores: 2,
            payoff: PayoffMode::Count,
            lazy: LazyInspect::Off,
            min_parallel_ns: 0,
            blp_aside: BlpAside::Coverage,
            ..RuntimeConfig::default()
        })
        .unwrap();
        // Reported addresses are never dereferenced: each iteration names
        // 2048 pseudo-random lines of a 16 GiB span, every bank of the
        // machine.
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            h.declare_maps_only();
            for i in lo..hi {
                let mut x = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                for _ in 0..2048 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let a = 0x1_0000_0000 + (x % (1 << 34)) / 64 * 64;
                    h.report(i, a, 8, crate::abi::ACCESS_UNCHECKED).unwrap();
                }
            }
        };
        let seen = std::sync::Mutex::new(Vec::new());
        let body = |lo: i64, hi: i64| seen.lock().unwrap().extend(lo..hi);
        rt.run_irregular(9, 0, 400, 10, Some(&insp), &body).unwrap();
        let mut v = std::mem::take(&mut *seen.lock().unwrap());
        v.sort_unstable();
        assert_eq!(v, (0..400).collect::<Vec<_>>());
        let st = rt.stats_json();
        let r = &st["regions"].as_array().unwrap()[0];
        assert_eq!(r["inspections"], 1);
        let why = r["step_aside"].as_str().unwrap_or_default();
        assert!(why.starts_with("original order kept"), "{r}");
        let plan = rt.cached_irregular_plan(9).expect("a cached plan");
        assert_eq!(plan.units, vec![(0, 200), (200, 400)]);
    }

    #[test]
    fn one_block_windows_step_aside() {
        assert!(ib_window_aside(1).is_some());
        assert_eq!(ib_window_aside(2), None);
        assert_eq!(ib_window_aside(6), None);
    }
}
