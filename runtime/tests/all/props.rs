//! Property tests: every slab / IB scheduled exactly once, Algorithm 4 never moves
//! a slab to another core, every dependence respected, the exact solver agrees
//! with brute force, the dependence check links every conflicting pair.

use proptest::prelude::*;
use weft_runtime::bankset::BankSet;
use weft_runtime::blp::{schedule_blp, BlpOptions, CoreOrder, SlabInstance, TieBreak};
use weft_runtime::deps::{sync_points, Access, UnitDag};
use weft_runtime::executor::Plan;
use weft_runtime::mlp::{schedule_ibs, BlockVectors, IbInstance, MlpOptions, Scheme};
use weft_runtime::optimal::{brute_force, optimal_schedule, DEFAULT_BUDGET};

fn slab_instance() -> impl Strategy<Value = SlabInstance> {
    (1usize..70, 1usize..6).prop_flat_map(|(q, p)| {
        prop::collection::vec(
            prop::collection::vec(prop::collection::vec(0..q, 0..4), 0..8),
            p,
        )
        .prop_map(move |cores| {
            let slabs = cores
                .into_iter()
                .map(|l| {
                    l.into_iter()
                        .map(|b| BankSet::from_banks(q, &b).unwrap())
                        .collect()
                })
                .collect();
            SlabInstance::new(q, slabs).unwrap()
        })
    })
}

fn options() -> impl Strategy<Value = BlpOptions> {
    (
        1usize..4,
        any::<bool>(),
        prop::option::of(1usize..5),
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(|(q, flex, window, seed, lowest)| BlpOptions {
            lookahead: q,
            core_order: if flex {
                CoreOrder::Flexibility
            } else {
                CoreOrder::Fixed
            },
            window,
            tie_break: if lowest {
                TieBreak::Lowest
            } else {
                TieBreak::Seeded(seed)
            },
        })
}

/// Random forward DAG over n units (edges from lower to higher id).
fn random_dag(n: usize, seeds: &[(u32, u32)]) -> UnitDag {
    let edges: Vec<(u32, u32)> = if n < 2 {
        vec![]
    } else {
        seeds
            .iter()
            .map(|&(a, b)| {
                let (a, b) = (a as usize % n, b as usize % n);
                (a.min(b) as u32, a.max(b) as u32)
            })
            .filter(|(a, b)| a != b)
            .collect()
    };
    UnitDag::from_edges(n, &edges).unwrap()
}

fn check_blp(inst: &SlabInstance, s: &weft_runtime::blp::SlotSchedule, dag: Option<&UnitDag>) {
    let p = inst.cores();
    let mut slot_of = vec![usize::MAX; inst.total_slabs()];
    for (t, row) in s.slots.iter().enumerate() {
        assert_eq!(row.len(), p);
        for (c, k) in row.iter().enumerate() {
            if let Some(k) = k {
                // slab k of core c stays on core c
                assert!(*k < inst.slabs_of(c).len());
                let g = inst.global_id(c, *k);
                assert_eq!(slot_of[g], usize::MAX, "slab scheduled twice");
                slot_of[g] = t;
            }
        }
    }
    assert!(
        slot_of.iter().all(|&t| t != usize::MAX),
        "a slab was not scheduled"
    );
    if let Some(d) = dag {
        for v in 0..d.len() {
            for &u in d.preds(v) {
                assert!(
                    slot_of[u as usize] < slot_of[v],
                    "dependence {u}->{v} broken"
                );
            }
        }
    }
    let by_core = s.by_core();
    assert_eq!(inst.coverage_of(&by_core), s.coverage);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn blp_every_slab_once_on_its_core(inst in slab_instance(), opts in options()) {
        let s = schedule_blp(&inst, &opts, None).unwrap();
        check_blp(&inst, &s, None);
        // without a DAG no core idles before it has run all its slabs
        for (c, l) in s.per_core().iter().enumerate() {
            prop_assert_eq!(l.len(), inst.slabs_of(c).len());
        }
    }

    #[test]
    fn blp_equals_reference(inst in slab_instance(), opts in options(),
                            e in prop::collection::vec((any::<u32>(), any::<u32>()), 0..20),
                            with_dag in any::<bool>()) {
        let dag = with_dag.then(|| random_dag(inst.total_slabs(), &e));
        let fast = schedule_blp(&inst, &opts, dag.as_ref()).unwrap();
        let slow = super::reference::reference_blp(&inst, &opts, dag.as_ref()).unwrap();
        prop_assert_eq!(fast, slow);
    }

    #[test]
    fn blp_respects_dag(inst in slab_instance(), opts in options(),
                        e in prop::collection::vec((any::<u32>(), any::<u32>()), 0..20)) {
        let dag = random_dag(inst.total_slabs(), &e);
        let s = schedule_blp(&inst, &opts, Some(&dag)).unwrap();
        check_blp(&inst, &s, Some(&dag));
    }

    #[test]
    fn optimal_matches_brute_force(seed in any::<u64>(), p in 1usize..4, m in 1usize..4, q in 2usize..7) {
        let mut rng = super::Rng(seed);
        let inst = super::random_instance(&mut rng, p, m, q, 3);
        let (bf, _) = brute_force(&inst);
        let opt = optimal_schedule(&inst, DEFAULT_BUDGET).unwrap();
        check_blp(&inst, &opt, None);
        prop_assert_eq!(opt.coverage.iter().sum::<usize>(), bf);
        let greedy = schedule_blp(&inst, &BlpOptions::default(), None).unwrap();
        prop_assert!(greedy.coverage.iter().sum::<usize>() <= bf);
    }

    #[test]
    fn ib_schedule_every_block_once_and_dag(
        n in 1usize..5, w in 1usize..5, mb in 1usize..9, lb in 1usize..9,
        raw in prop::collection::vec((prop::collection::vec(0u32..3, 8), prop::collection::vec(0u32..3, 8)), 0..40),
        scheme in 0u32..4,
        e in prop::collection::vec((any::<u32>(), any::<u32>()), 0..30),
    ) {
        let blocks: Vec<BlockVectors> = raw.into_iter()
            .map(|(m, l)| BlockVectors { mem: m[..mb].to_vec(), llc: l[..lb].to_vec() })
            .collect();
        let m = blocks.len();
        let inst = IbInstance { cores: n, window: w, mem_banks: mb, llc_banks: lb, blocks };
        let dag = random_dag(m, &e);
        let scheme = Scheme::from_code(scheme).unwrap();
        let s = schedule_ibs(&inst, &MlpOptions { scheme, ..Default::default() }, Some(&dag)).unwrap();
        let mut seen = vec![0; m];
        for step in &s.windows {
            prop_assert_eq!(step.len(), n);
            for win in step {
                prop_assert!(win.len() <= w);
                for &b in win { seen[b] += 1; }
            }
        }
        prop_assert!(seen.iter().all(|&c| c == 1));
        // seq is a topological order and the waits make a valid, deadlock-free plan
        let mut pos = vec![0; m];
        for (i, &u) in s.seq.iter().enumerate() { pos[u as usize] = i; }
        for v in 0..m { for &u in dag.preds(v) { prop_assert!(pos[u as usize] < pos[v]); } }
        let per_core = s.per_core(n);
        let waits = sync_points(&dag, &per_core, &s.seq).unwrap();
        let plan = Plan {
            units: (0..m as i64).map(|i| (i, i + 1)).collect(),
            steps: s.windows.iter().map(|st| st.iter().map(|w| w.iter().map(|&b| b as u32).collect()).collect()).collect(),
            waits, seq: s.seq.clone(), barrier: false,
        };
        if m > 0 { plan.validate().unwrap(); }
        if scheme != Scheme::Default {
            prop_assert_eq!(s.beta.len(), s.windows.len() * n);
        }
    }

    #[test]
    fn ib_schedule_equals_reference(
        n in 1usize..5, w in 1usize..6, mb in 1usize..9, lb in 1usize..9,
        raw in prop::collection::vec((prop::collection::vec(0u32..3, 8), prop::collection::vec(0u32..3, 8)), 0..60),
        scheme in 0u32..4,
        e in prop::collection::vec((any::<u32>(), any::<u32>()), 0..30),
        with_dag in any::<bool>(),
        eta in prop::sample::select(vec![(1.0, 1.0), (40.0, 12.0)]),
    ) {
        let blocks: Vec<BlockVectors> = raw.into_iter()
            .map(|(m, l)| BlockVectors { mem: m[..mb].to_vec(), llc: l[..lb].to_vec() })
            .collect();
        let m = blocks.len();
        let inst = IbInstance { cores: n, window: w, mem_banks: mb, llc_banks: lb, blocks };
        let dag = with_dag.then(|| random_dag(m, &e));
        let opts = MlpOptions { scheme: Scheme::from_code(scheme).unwrap(), eta_mem: eta.0, eta_llc: eta.1 };
        let fast = schedule_ibs(&inst, &opts, dag.as_ref()).unwrap();
        let slow = super::reference::reference_ibs(&inst, &opts, dag.as_ref()).unwrap();
        prop_assert_eq!(fast, slow);
    }

    #[test]
    // `v` is a column of `reach` (`reach[u][v]`), so iterating its rows does not fit.
    #[allow(clippy::needless_range_loop)]
    fn dependence_check_links_every_conflict(
        acc in prop::collection::vec((0u32..6, 0u64..16, any::<bool>()), 0..40)
    ) {
        let accesses: Vec<Access> = acc.iter()
            .map(|&(u, a, w)| Access { unit: u, addr: 0x1000 + a * 4, size: 4, write: w })
            .collect();
        let dag = UnitDag::from_accesses(6, &accesses).unwrap();
        // reachability
        let mut reach = [[false; 6]; 6];
        for v in 0..6 { for &u in dag.preds(v) { reach[u as usize][v] = true; } }
        for k in 0..6 { for i in 0..6 { for j in 0..6 {
            if reach[i][k] && reach[k][j] { reach[i][j] = true; }
        }}}
        for x in &accesses { for y in &accesses {
            if x.unit < y.unit && x.addr == y.addr && (x.write || y.write) {
                prop_assert!(reach[x.unit as usize][y.unit as usize],
                    "conflict {} -> {} not ordered", x.unit, y.unit);
            }
        }}
    }
}

/// The optimized Algorithm 4 returns exactly the reference schedule on larger
/// instances too (bench-sized, and more than 64 banks), for every variant.
#[test]
fn blp_equals_reference_on_large_instances() {
    let mut rng = super::Rng(77);
    for &(p, m, q, max_b) in &[(64, 50, 64, 11), (9, 30, 130, 20), (16, 20, 32, 3)] {
        let inst = super::random_instance(&mut rng, p, m, q, max_b);
        let n = inst.total_slabs();
        let edges: Vec<(u32, u32)> = (0..n as u64 / 2)
            .map(|_| {
                let a = rng.below(n as u64) as u32;
                let b = rng.below(n as u64) as u32;
                (a.min(b), a.max(b))
            })
            .filter(|(a, b)| a != b)
            .collect();
        let dag = UnitDag::from_edges(n, &edges).unwrap();
        for lookahead in [1, 2] {
            for flex in [false, true] {
                for window in [None, Some(3)] {
                    for tie_break in [TieBreak::Lowest, TieBreak::Seeded(5)] {
                        let opts = BlpOptions {
                            lookahead,
                            core_order: if flex {
                                CoreOrder::Flexibility
                            } else {
                                CoreOrder::Fixed
                            },
                            window,
                            tie_break,
                        };
                        for d in [None, Some(&dag)] {
                            let fast = schedule_blp(&inst, &opts, d).unwrap();
                            let slow = super::reference::reference_blp(&inst, &opts, d).unwrap();
                            assert_eq!(
                                fast,
                                slow,
                                "P={p} M={m} Q={q} {opts:?} dag={}",
                                d.is_some()
                            );
                        }
                    }
                }
            }
        }
    }
}

/// The optimized Algorithm 5 returns exactly the reference schedule on larger
/// instances (many groups, more than 64 banks, with and without a DAG).
#[test]
fn ib_schedule_equals_reference_on_large_instances() {
    let mut rng = super::Rng(99);
    for &(m, cores, window, mb, lb, dense) in &[
        (3000usize, 8usize, 16usize, 32usize, 36usize, 3u64),
        (1500, 5, 40, 80, 70, 8),
        (800, 3, 7, 16, 8, 2),
    ] {
        let blocks: Vec<BlockVectors> = (0..m)
            .map(|_| {
                let mut v = |n: usize| {
                    let mut c = vec![0u32; n];
                    for _ in 0..1 + rng.below(dense) {
                        c[rng.below(n as u64) as usize] += 1 + rng.below(3) as u32;
                    }
                    c
                };
                BlockVectors {
                    mem: v(mb),
                    llc: v(lb),
                }
            })
            .collect();
        let inst = IbInstance {
            cores,
            window,
            mem_banks: mb,
            llc_banks: lb,
            blocks,
        };
        let edges: Vec<(u32, u32)> = (0..m / 2)
            .map(|_| {
                let a = rng.below(m as u64) as u32;
                let b = (a as u64 + 1 + rng.below(50)).min(m as u64 - 1) as u32;
                (a, b)
            })
            .filter(|(a, b)| a < b)
            .collect();
        let dag = UnitDag::from_edges(m, &edges).unwrap();
        for scheme in [Scheme::MlpFirst, Scheme::ClpFirst, Scheme::Balanced] {
            let opts = MlpOptions {
                scheme,
                eta_mem: 40.0,
                eta_llc: 12.0,
            };
            for d in [None, Some(&dag)] {
                let fast = schedule_ibs(&inst, &opts, d).unwrap();
                let slow = super::reference::reference_ibs(&inst, &opts, d).unwrap();
                assert_eq!(fast, slow, "m={m} {scheme:?} dag={}", d.is_some());
            }
        }
    }
}
