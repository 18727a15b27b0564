//! Executor tests through the Rust API of the runtime: native threads (results
//! equal the sequential loop, bit for bit, also with slab conflicts), schedule
//! caching and invalidation, Algorithm 5 nests, and trace mode (trace content).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use weft_runtime::machine::Machine;
use weft_runtime::mlp::Scheme;
use weft_runtime::runtime::{Inspector, LazyInspect, Runtime, RuntimeConfig};

/// Core count and records of the trace file at `path`.
/// The trace's core count and its access records (barriers left out).
fn read_trace(path: &std::path::Path) -> (u32, Vec<weft_memsim::trace::Record>) {
    let (cores, all) = read_trace_all(path);
    (
        cores,
        all.into_iter().filter(|r| !r.kind.is_barrier()).collect(),
    )
}

/// The trace's core count and all its records, barriers included.
fn read_trace_all(path: &std::path::Path) -> (u32, Vec<weft_memsim::trace::Record>) {
    let f = std::fs::File::open(path).unwrap();
    let mut rd =
        weft_memsim::trace::TraceReader::new(std::io::BufReader::new(f), "test trace").unwrap();
    let cores = rd.cores();
    (cores, rd.by_ref().map(|x| x.unwrap()).collect())
}

/// The default configuration without lazy inspection of checked regions:
/// these tests' inspectors are closures that do not declare
/// `weft_inspect_maps_only`, and most of them are about what the first
/// inspected execution does (`lazy_checked_inspection_defers_only_undeclared_inspectors`
/// tests the default).
fn eager() -> RuntimeConfig {
    RuntimeConfig {
        lazy: LazyInspect::Off,
        ..Default::default()
    }
}

/// A runtime on the `table5.2` machine with configuration `cfg`.
fn rt_with(cfg: RuntimeConfig) -> Runtime {
    Runtime::with_machine(cfg, Machine::load("table5.2").unwrap()).unwrap()
}

/// A loop body adding `i + 1` to `y[i]` for every iteration `i` it runs.
fn add_index_body(y: &[AtomicU64]) -> impl Fn(i64, i64) + Sync + '_ {
    move |lo, hi| {
        for i in lo..hi {
            y[i as usize].fetch_add(i as u64 + 1, Ordering::Relaxed);
        }
    }
}

/// An inspector reporting iteration `i`'s read of `y[i]` (the accesses of
/// [`add_index_body`], as reads).
fn index_read_inspector(y: &[AtomicU64]) -> impl Fn(i64, i64, &mut Inspector) + Sync + '_ {
    move |lo, hi, h| {
        for i in lo..hi {
            h.access(i, &y[i as usize] as *const AtomicU64 as u64, 8, false)
                .unwrap();
        }
    }
}

/// A runtime with `cores` cores (trace mode with `trace`), eager inspection,
/// and no grain control: whether a native call runs in parallel does not
/// depend on how fast the machine ran the previous one (a row-parallel SpMV
/// of 3000 rows is close to the default threshold, so the caching test
/// below went serial, uninspected, on one CI run).
fn rt(cores: usize, trace: Option<std::path::PathBuf>) -> Runtime {
    rt_with(RuntimeConfig {
        cores,
        trace,
        min_parallel_ns: 0,
        ..eager()
    })
}

/// CSR matrix with a pseudo-random sparsity pattern.
struct Csr {
    rowptr: Vec<usize>,
    col: Vec<usize>,
    val: Vec<f64>,
    n: usize,
}

fn csr(n: usize, per_row: usize, seed: u64) -> Csr {
    let mut r = super::Rng(seed);
    let mut rowptr = vec![0];
    let mut col = Vec::new();
    let mut val = Vec::new();
    for _ in 0..n {
        let k = 1 + r.below(per_row as u64) as usize;
        for _ in 0..k {
            col.push(r.below(n as u64) as usize);
            val.push((r.below(1000) as f64) / 7.0);
        }
        rowptr.push(col.len());
    }
    Csr {
        rowptr,
        col,
        val,
        n,
    }
}

fn load(a: &[AtomicU64], i: usize) -> f64 {
    f64::from_bits(a[i].load(Ordering::Relaxed))
}
fn store(a: &[AtomicU64], i: usize, v: f64) {
    a[i].store(v.to_bits(), Ordering::Relaxed)
}

#[test]
fn irregular_spmv_matches_sequential_and_caches() {
    let m = csr(3000, 8, 7);
    let x: Vec<f64> = (0..m.n).map(|i| i as f64 * 0.5).collect();
    let y: Vec<AtomicU64> = (0..m.n).map(|_| AtomicU64::new(0)).collect();
    let body = |lo: i64, hi: i64| {
        for i in lo as usize..hi as usize {
            let mut s = 0.0;
            for j in m.rowptr[i]..m.rowptr[i + 1] {
                s += m.val[j] * x[m.col[j]];
            }
            store(&y, i, s);
        }
    };
    let runs = AtomicUsize::new(0);
    let insp = |lo: i64, hi: i64, h: &mut Inspector| {
        runs.fetch_add(1, Ordering::Relaxed);
        for i in lo..hi {
            let iu = i as usize;
            for j in m.rowptr[iu]..m.rowptr[iu + 1] {
                h.access(i, &x[m.col[j]] as *const f64 as u64, 8, false)
                    .unwrap();
                h.access(i, &m.val[j] as *const f64 as u64, 8, false)
                    .unwrap();
            }
            h.access(i, &y[iu] as *const AtomicU64 as u64, 8, true)
                .unwrap();
        }
    };
    let r = rt(4, None);
    let mut after_first = 0;
    for k in 0..3 {
        r.run_irregular(1, 0, m.n as i64, 0, Some(&insp), &body)
            .unwrap();
        if k == 0 {
            after_first = runs.load(Ordering::Relaxed);
        }
    }
    // One inspection, three executions. The inspector is called once per
    // core's chunk, and once more per chunk over the iterations up to the
    // chunk's first reported write (y[i] in iteration 0 of each chunk).
    assert_eq!(
        after_first, 8,
        "4 chunks, each re-inspected up to its first write"
    );
    assert_eq!(runs.load(Ordering::Relaxed), 8, "the schedule is reused");
    for i in 0..m.n {
        let want: f64 = (m.rowptr[i]..m.rowptr[i + 1])
            .map(|j| m.val[j] * x[m.col[j]])
            .sum();
        assert_eq!(load(&y, i).to_bits(), want.to_bits());
    }
    let plan = r.cached_irregular_plan(1).unwrap();
    plan.validate().unwrap();
    // default slab size: 1/50 of a core's 750 iterations = 15 -> 50 slabs per core
    assert_eq!(plan.units.len(), 200);
    // slabs never leave their core: core c only runs units of its own chunk
    let core = plan.core_of();
    for (u, &(lo, _)) in plan.units.iter().enumerate() {
        assert_eq!(core[u] as i64, lo / 750);
    }
    assert!(
        plan.waits.iter().all(|w| w.is_empty()),
        "row-parallel SpMV has no conflicts"
    );
    let st = r.stats_json();
    let reg = &st["regions"][0];
    assert_eq!(reg["executions"], 3);
    assert_eq!(reg["inspections"], 1);
    assert_eq!(reg["coverage_ratio"], 1.0);
    // Greedy (Algorithm 4) has no guarantee per instance, and the bank maps
    // follow the heap addresses, which change from run to run (seen once
    // below the original order): a 3% margin.
    assert!(
        reg["banks_per_slot"].as_f64().unwrap()
            >= 0.97 * reg["original_banks_per_slot"].as_f64().unwrap()
    );
    // invalidation re-runs the inspector
    r.invalidate(1);
    r.run_irregular(1, 0, m.n as i64, 0, Some(&insp), &body)
        .unwrap();
    assert_eq!(runs.load(Ordering::Relaxed), 16);
    // changed bounds too
    r.run_irregular(1, 0, m.n as i64 - 1, 0, Some(&insp), &body)
        .unwrap();
    assert_eq!(runs.load(Ordering::Relaxed), 24);
}

#[test]
// CSR row `i` indexes both `x` and the row pointers at `i` and `i + 1`.
#[allow(clippy::needless_range_loop)]
fn irregular_conflicts_respect_original_order_bitwise() {
    // transposed SpMV: y[col[j]] += val[j] * x[i]; slabs conflict on y.
    let m = csr(800, 6, 11);
    let x: Vec<f64> = (0..m.n).map(|i| 1.0 + i as f64 / 3.0).collect();
    let run = |cores: usize| -> (Vec<u64>, usize) {
        let y: Vec<AtomicU64> = (0..m.n).map(|_| AtomicU64::new(0)).collect();
        let body = |lo: i64, hi: i64| {
            for i in lo as usize..hi as usize {
                for j in m.rowptr[i]..m.rowptr[i + 1] {
                    let c = m.col[j];
                    store(&y, c, load(&y, c) + m.val[j] * x[i]);
                }
            }
        };
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            for i in lo..hi {
                let iu = i as usize;
                for j in m.rowptr[iu]..m.rowptr[iu + 1] {
                    let a = &y[m.col[j]] as *const AtomicU64 as u64;
                    h.access(i, a, 8, false).unwrap();
                    h.access(i, a, 8, true).unwrap();
                }
            }
        };
        let r = rt(cores, None);
        r.run_irregular(5, 0, m.n as i64, 4, Some(&insp), &body)
            .unwrap();
        let plan = r.cached_irregular_plan(5).unwrap();
        let waits = plan.waits.iter().map(|w| w.len()).sum();
        (y.iter().map(|v| v.load(Ordering::Relaxed)).collect(), waits)
    };
    let (seq, _) = run(1);
    for cores in [2, 3, 4] {
        let (par, waits) = run(cores);
        assert!(waits > 0, "conflicting slabs need cross-core waits");
        assert_eq!(par, seq, "{cores} cores");
    }
}

/// Writes first (`RuntimeConfig::writes_first`): an inspector with a
/// writes-only slice gets the plan of a full inspection that keeps every
/// read (its reads of `x`, never written, are dropped), the results of the
/// original order, and a slice that misses writes (a compiler bug) is
/// caught: the runtime inspects again without the filter, same plan.
#[test]
fn writes_first_gives_the_plan_of_a_full_inspection() {
    // transposed SpMV with checked reads of x: y[col[j]] += val[j] * x[i]
    let m = csr(900, 6, 5);
    let x: Vec<AtomicU64> = (0..m.n)
        .map(|i| AtomicU64::new((1.0 + i as f64).to_bits()))
        .collect();
    // (One y for every run: the bank maps, hence the plans, depend on its address.)
    let y: Vec<AtomicU64> = (0..m.n).map(|_| AtomicU64::new(0)).collect();
    let run = |cores: usize, writes_first: bool, lie: bool| {
        y.iter().for_each(|v| v.store(0, Ordering::Relaxed));
        let body = |lo: i64, hi: i64| {
            for i in lo as usize..hi as usize {
                for j in m.rowptr[i]..m.rowptr[i + 1] {
                    let c = m.col[j];
                    store(&y, c, load(&y, c) + m.val[j] * load(&x, i));
                }
            }
        };
        let slices = AtomicUsize::new(0);
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            let only_writes = h.writes_first();
            slices.fetch_add(only_writes as usize, Ordering::Relaxed);
            for i in lo..hi {
                let iu = i as usize;
                if !only_writes {
                    h.access(i, &x[iu] as *const AtomicU64 as u64, 8, false)
                        .unwrap();
                }
                for j in m.rowptr[iu]..m.rowptr[iu + 1] {
                    let a = &y[m.col[j]] as *const AtomicU64 as u64;
                    if !only_writes {
                        h.access(i, a, 8, false).unwrap();
                    }
                    // the lying slice misses the writes of odd columns
                    if !(only_writes && lie && m.col[j] % 2 == 1) {
                        h.access(i, a, 8, true).unwrap();
                    }
                }
            }
        };
        let r = rt_with(RuntimeConfig {
            cores,
            min_parallel_ns: 0,
            writes_first,
            ..eager()
        });
        r.run_irregular(6, 0, m.n as i64, 5, Some(&insp), &body)
            .unwrap();
        let plan = r.cached_irregular_plan(6).unwrap();
        let y: Vec<u64> = y.iter().map(|v| v.load(Ordering::Relaxed)).collect();
        (
            y,
            plan.steps.clone(),
            plan.waits.clone(),
            slices.load(Ordering::Relaxed),
        )
    };
    let (seq, ..) = run(1, false, false);
    for cores in [2, 3] {
        let (full_y, full_steps, full_waits, none) = run(cores, false, false);
        assert_eq!(none, 0, "writes first off: no slice");
        assert!(full_waits.iter().any(|w| !w.is_empty()), "conflicts");
        for lie in [false, true] {
            let (y, steps, waits, slices) = run(cores, true, lie);
            assert!(
                slices >= cores,
                "{slices} writes-only slices on {cores} cores"
            );
            assert_eq!(
                (&steps, &waits),
                (&full_steps, &full_waits),
                "{cores} cores, lie {lie}"
            );
            assert_eq!(y, seq, "{cores} cores, lie {lie}");
        }
        assert_eq!(full_y, seq);
    }
}

#[test]
// Flat index `k` gives the (row, column) pair and indexes `count` and `b`.
#[allow(clippy::needless_range_loop)]
fn affine_schemes_run_every_iteration_once() {
    // 2-D stencil b[j][i] = a[j][i-1] + a[j][i] + a[j][i+1], flattened.
    let (rows, cols) = (64usize, 256usize);
    let a: Vec<f64> = (0..rows * cols).map(|i| (i % 97) as f64).collect();
    let count: Vec<AtomicU64> = (0..rows * cols).map(|_| AtomicU64::new(0)).collect();
    let b: Vec<AtomicU64> = (0..rows * cols).map(|_| AtomicU64::new(0)).collect();
    let body = |lo: i64, hi: i64| {
        for k in lo as usize..hi as usize {
            let (j, i) = (k / cols, k % cols);
            if i == 0 || i == cols - 1 {
                count[k].fetch_add(1, Ordering::Relaxed);
                continue;
            }
            let v = a[j * cols + i - 1] + a[j * cols + i] + a[j * cols + i + 1];
            store(&b, k, v);
            count[k].fetch_add(1, Ordering::Relaxed);
        }
    };
    let insp = |lo: i64, hi: i64, h: &mut Inspector| {
        for k in lo..hi {
            let ku = k as usize;
            let i = ku % cols;
            if i == 0 || i == cols - 1 {
                continue;
            }
            for d in [ku - 1, ku, ku + 1] {
                h.access(k, &a[d] as *const f64 as u64, 8, false).unwrap();
            }
            h.access(k, &b[ku] as *const AtomicU64 as u64, 8, true)
                .unwrap();
        }
    };
    for (id, scheme) in [
        Scheme::Default,
        Scheme::MlpFirst,
        Scheme::ClpFirst,
        Scheme::Balanced,
    ]
    .into_iter()
    .enumerate()
    {
        count.iter().for_each(|c| c.store(0, Ordering::Relaxed));
        let r = rt(4, None);
        r.run_affine(
            id as u32,
            0,
            (rows * cols) as i64,
            16,
            scheme,
            Some(&insp),
            &body,
        )
        .unwrap();
        assert!(
            count.iter().all(|c| c.load(Ordering::Relaxed) == 1),
            "{scheme:?}"
        );
        for k in 0..rows * cols {
            let i = k % cols;
            if i > 0 && i < cols - 1 {
                assert_eq!(load(&b, k), a[k - 1] + a[k] + a[k + 1]);
            }
        }
        let plan = r.cached_affine_plan(id as u32).unwrap();
        plan.validate().unwrap();
        assert_eq!(plan.units.len(), rows * cols / 16);
        let st = r.stats_json();
        let reg = &st["regions"][0];
        assert!(reg["iw_size"].as_u64().unwrap() >= 1);
        if scheme != Scheme::Default {
            assert!(!reg["beta"].as_array().unwrap().is_empty());
            assert_eq!(reg["coverage_ratio"], 1.0);
        }
    }
}

/// `weft_trace_reads`: n records of size bytes from addr on, the first
/// carrying the pending work, each `gap` after the previous one.
#[test]
fn trace_reads_records_each_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.trace");
    let r = rt(2, Some(path.clone()));
    r.trace_compute(3);
    r.trace_reads(0x1000, 4, 4, 7).unwrap();
    r.trace_reads(0x2000, 0, 8, 7).unwrap();
    r.trace_access(0x40, 8, true, 1).unwrap();
    r.trace_finish().unwrap();
    let (_, recs) = read_trace(&path);
    let got: Vec<(u16, u64, u32, bool)> = recs
        .iter()
        .map(|x| (x.core, x.addr, x.gap, x.kind.is_write()))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, 0x1000, 10, false),
            (0, 0x1004, 7, false),
            (0, 0x1008, 7, false),
            (0, 0x100c, 7, false),
            (0, 0x40, 1, true),
        ]
    );
}

#[test]
fn trace_mode_tags_virtual_cores_and_gaps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.trace");
    let n = 600usize;
    let data: Vec<u64> = (0..n as u64).collect();
    let r = rt(3, Some(path.clone()));
    let body = |lo: i64, hi: i64| {
        for i in lo..hi {
            r.trace_access(&data[i as usize] as *const u64 as u64, 8, false, 2)
                .unwrap();
        }
        r.trace_compute(5);
    };
    let insp = |lo: i64, hi: i64, h: &mut Inspector| {
        for i in lo..hi {
            h.access(i, &data[i as usize] as *const u64 as u64, 8, false)
                .unwrap();
        }
    };
    // an access outside any executor belongs to core 0
    r.trace_access(0x40, 4, true, 9).unwrap();
    r.run_irregular(2, 0, n as i64, 10, Some(&insp), &body)
        .unwrap();
    r.trace_finish().unwrap();
    r.trace_finish().unwrap(); // idempotent
    let plan = r.cached_irregular_plan(2).unwrap();
    let core = plan.core_of();
    let unit_of = |i: usize| {
        plan.units
            .iter()
            .position(|&(a, b)| (a..b).contains(&(i as i64)))
            .unwrap()
    };
    let (cores, recs) = read_trace(&path);
    assert_eq!(cores, 3);
    assert_eq!(recs.len(), n + 1);
    assert_eq!(
        (
            recs[0].core,
            recs[0].addr,
            recs[0].gap,
            recs[0].kind.is_write()
        ),
        (0, 0x40, 9, true)
    );
    // records appear in the sequential (slot-major) order of the plan
    let mut seen_first = [false; 3];
    for (k, rec) in recs[1..].iter().enumerate() {
        let i = ((rec.addr - data.as_ptr() as u64) / 8) as usize;
        let u = unit_of(i);
        assert_eq!(rec.core as u32, core[u], "record {k}");
        let first_of_unit = plan.units[u].0 == i as i64;
        let c = rec.core as usize;
        let want = if !first_of_unit {
            2
        } else if !seen_first[c] {
            seen_first[c] = true;
            // core 0 saw the outside access before; its gap restarted there
            2
        } else {
            2 + 5 // this core's trailing work from its previous slab
        };
        assert_eq!(rec.gap, want, "record {k} (iteration {i}, core {c})");
    }
    // slot order: the first three slabs executed belong to cores 0, 1, 2
    let cores_in_order: Vec<u16> = recs[1..]
        .iter()
        .step_by(10)
        .take(3)
        .map(|r| r.core)
        .collect();
    assert_eq!(cores_in_order, vec![0, 1, 2]);
    // Barriers on every core: around the inspection (which reports but traces
    // nothing here) and around the region (fork, join). The join carries each
    // core's trailing work (5), the fork core 0's zero pending gap.
    use weft_memsim::trace::BarrierPhase as B;
    let (_, all) = read_trace_all(&path);
    let bars: Vec<_> = all.iter().filter(|r| r.kind.is_barrier()).collect();
    let phases: Vec<B> = bars
        .iter()
        .step_by(3)
        .map(|r| B::from_tag(r.addr))
        .collect();
    assert_eq!(
        phases,
        [B::InspectStart, B::InspectEnd, B::RegionStart, B::RegionEnd]
    );
    assert!(bars.chunks(3).all(|c| c.iter().map(|r| r.core).eq(0..3)));
    assert!(bars[9..].iter().all(|r| r.gap == 5), "{:?}", &bars[9..]);
    let first_access = all.iter().position(|r| !r.kind.is_barrier()).unwrap();
    assert_eq!(first_access, 0, "the outside access precedes every barrier");
    let region: Vec<_> = all
        .iter()
        .skip_while(|r| r.addr != B::RegionStart as u64)
        .collect();
    assert_eq!(region.len(), 3 + n + 3);
}

/// The inspector of an irregular region runs chunk by chunk, each chunk on the
/// virtual core that owns those iterations (as an instrumented inspector does
/// in the benchmarks: its own loads are traced), so in the simulator the
/// inspection is parallel instead of a serial prologue on core 0.
#[test]
fn trace_mode_inspects_each_chunk_on_its_core() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("i.trace");
    let n = 400usize;
    let data: Vec<u64> = (0..n as u64).collect();
    let index: Vec<u32> = (0..n as u32).map(|i| (i * 7) % n as u32).collect();
    let r = rt(4, Some(path.clone()));
    let body = |_lo: i64, _hi: i64| {};
    let insp = |lo: i64, hi: i64, h: &mut Inspector| {
        for i in lo..hi {
            // the inspector's own load of the index array is traced ...
            r.trace_access(&index[i as usize] as *const u32 as u64, 4, false, 0)
                .unwrap();
            // ... and the address it computes is reported
            let a = &data[index[i as usize] as usize] as *const u64 as u64;
            h.access(i, a, 8, false).unwrap();
        }
    };
    r.run_irregular(5, 0, n as i64, 10, Some(&insp), &body)
        .unwrap();
    r.trace_finish().unwrap();
    let (_, recs) = read_trace(&path);
    assert_eq!(recs.len(), n);
    for rec in &recs {
        let i = ((rec.addr - index.as_ptr() as u64) / 4) as usize;
        // static chunks of 100 iterations: iteration i belongs to core i / 100
        assert_eq!(rec.core as usize, i / 100, "iteration {i}");
    }
    // in iteration order: chunk 0 on core 0, then chunk 1 on core 1, ...
    let cores: Vec<u16> = recs.iter().map(|r| r.core).collect();
    assert!(cores.windows(2).all(|w| w[0] <= w[1]));
}

/// A described nest whose descriptor needs more runs than
/// `affine_desc::RUN_BUDGET` still runs in parallel when it is proven
/// parallel (Default schedule on every core), and is refused (the compiled
/// code then runs it sequentially) when its IBs may conflict.
#[test]
fn described_nest_over_budget_runs_default_schedule() {
    use weft_runtime::affine_desc::{RUN_BUDGET, VERSION};
    let (n, m) = (600i64, 500i64);
    assert!((n * m) as u64 > RUN_BUDGET);
    let data: Vec<u64> = vec![0; (n * m * 2) as usize];
    let a = data.as_ptr() as i64;
    // for i in P: for j in 0..m: for t in 0..2: a[i*2m + 2j + t]  (one run per (i, j))
    let desc = vec![
        VERSION,
        3,
        1,
        0,
        1, // header: 3 loops, 1 ref, i = k
        0,
        0,
        0,
        1,
        m,
        0,
        1, // loop 1: j in 0..m
        1,
        0,
        0,
        0,
        1,
        2,
        0,
        0,
        1, // loop 2: t in 0..2
        2,
        a,
        8,
        0,
        0,
        16 * m,
        16,
        8, // ref in loop 2
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.trace");
    let r = rt(4, Some(path.clone()));
    let body = |lo: i64, hi: i64| {
        for i in lo..hi {
            r.trace_access(&data[i as usize] as *const u64 as u64, 8, false, 0)
                .unwrap();
        }
    };
    r.run_affine_desc(9, 0, n, 10, Scheme::MlpFirst, 0, false, &desc, &body)
        .unwrap();
    // cached verdict: the second call takes the same path
    r.run_affine_desc(9, 0, n, 10, Scheme::MlpFirst, 0, false, &desc, &body)
        .unwrap();
    // The same nest written, and row 0 read by every IB: the IBs may
    // conflict (they do), and over budget the runtime cannot check them.
    let mut checked = desc.clone();
    checked[2] = 2;
    let last = checked.len() - 5;
    checked[last] = 1; // the reference is a write
    checked.extend([0, a, 8, 0, 0, 0]); // a[0], directly in P
    assert!(r
        .run_affine_desc(10, 0, n, 10, Scheme::MlpFirst, 0, true, &checked, &body)
        .is_err());
    r.trace_finish().unwrap();
    let (_, recs) = read_trace(&path);
    assert_eq!(recs.len(), 2 * n as usize);
    let mut per_core = [0usize; 4];
    for rec in &recs {
        per_core[rec.core as usize] += 1;
    }
    assert!(per_core.iter().all(|&c| c >= 2 * 140), "{per_core:?}");
}

/// Regions run on persistent workers; a region started inside a running body
/// (nested parallelism) runs sequentially on that worker instead of waiting
/// for the busy pool, on the calling thread (worker 0) as on a pool thread.
#[test]
fn nested_regions_run_sequentially_without_deadlock() {
    let r = rt(3, None);
    let hits: Vec<AtomicU64> = (0..30 * 20).map(|_| AtomicU64::new(0)).collect();
    for _ in 0..50 {
        r.parallel_for(0, 30, &|lo, hi| {
            for i in lo..hi {
                r.parallel_for(0, 20, &|a, b| {
                    for j in a..b {
                        hits[(i * 20 + j) as usize].fetch_add(1, Ordering::Relaxed);
                    }
                })
                .unwrap();
            }
        })
        .unwrap();
    }
    assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 50));
}

/// Grain control: with a huge threshold a region runs in parallel once, then
/// once on the calling thread to measure its sequential cost, then stays
/// there, without inspecting again; with the threshold off it always runs on the workers. Results are
/// the same either way (trace mode is not affected: it is always sequential).
#[test]
fn grain_control_runs_small_regions_on_the_caller() {
    let n = 64usize;
    let run = |min_ns: u64| -> (Vec<u64>, u64, u64, u64) {
        let r = rt_with(RuntimeConfig {
            cores: 2,
            min_parallel_ns: min_ns,
            ..eager()
        });
        let y: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let body = add_index_body(&y);
        let insp = index_read_inspector(&y);
        for _ in 0..5 {
            r.run_irregular(3, 0, n as i64, 4, Some(&insp), &body)
                .unwrap();
        }
        let st = r.stats_json();
        let reg = &st["regions"][0];
        let serial = reg["serial_executions"].as_u64().unwrap();
        let execs = reg["executions"].as_u64().unwrap();
        let insps = reg["inspections"].as_u64().unwrap();
        let y = y.iter().map(|v| v.load(Ordering::Relaxed)).collect();
        (y, serial, execs, insps)
    };
    let (a, serial, execs, insps) = run(u64::MAX / 4);
    assert_eq!(
        (serial, execs),
        (4, 5),
        "parallel once, then probe and stay serial"
    );
    assert_eq!(insps, 1, "serial runs need no inspection");
    let (b, serial, _, insps) = run(0);
    assert_eq!((serial, insps), (0, 1), "grain control off");
    assert_eq!(a, b);
    assert!(a.iter().enumerate().all(|(i, &v)| v == 5 * (i as u64 + 1)));
}

/// Grain hints: after a timed native run the caller gets the trip count
/// below which grain control would keep the site on the calling thread,
/// `ceil(min_parallel_ns / ns_per_iteration)`, once (the hint is consumed);
/// 0 with the threshold off and in trace mode. With one worker grain control
/// still skips inspection of small calls.
#[test]
fn grain_hints_follow_grain_control() {
    use weft_runtime::runtime::GRAIN_HINT_MAX;
    let n = 64usize;
    let y: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let body = add_index_body(&y);
    let insp = index_read_inspector(&y);
    let min_ns = 1_000_000u64;
    for cores in [1usize, 2] {
        let r = rt_with(RuntimeConfig {
            cores,
            min_parallel_ns: min_ns,
            ..eager()
        });
        assert_eq!(r.take_grain_hint(), 0, "nothing ran yet");
        for k in 0..4 {
            r.run_irregular(3, 0, n as i64, 4, Some(&insp), &body)
                .unwrap();
            let h = r.take_grain_hint();
            // n iterations took far less than 1 ms: the hint is above n.
            assert!(
                h > n as i64 && h <= GRAIN_HINT_MAX,
                "cores {cores}, run {k}: hint {h}"
            );
            assert_eq!(r.take_grain_hint(), 0, "a hint is consumed");
        }
        r.parallel_for_at(Some(7), 0, n as i64, &body).unwrap();
        assert!(r.take_grain_hint() > n as i64);
        let st = r.stats_json();
        let reg = &st["regions"][0];
        assert_eq!(reg["inspections"].as_u64(), Some(1), "cores {cores}");
        assert_eq!(reg["executions"].as_u64(), Some(4));
        let serial = reg["serial_executions"].as_u64().unwrap();
        assert_eq!(serial, if cores == 1 { 4 } else { 3 }, "cores {cores}");
    }
    let off = rt_with(RuntimeConfig {
        cores: 2,
        min_parallel_ns: 0,
        ..eager()
    });
    off.run_irregular(3, 0, n as i64, 4, Some(&insp), &body)
        .unwrap();
    assert_eq!(off.take_grain_hint(), 0, "grain control off");
    let dir = tempfile::tempdir().unwrap();
    let traced = rt(2, Some(dir.path().join("t.trace")));
    traced
        .run_irregular(3, 0, n as i64, 4, Some(&insp), &body)
        .unwrap();
    assert_eq!(traced.take_grain_hint(), 0, "trace mode");
    let total: u64 = y.iter().map(|v| v.load(Ordering::Relaxed)).sum();
    let runs = 2 * 5 + 2; // per worker count: 4 regions + 1 parallel_for; then 2 more
    assert_eq!(total, runs * (1..=n as u64).sum::<u64>());
}

/// Context slots: one id per distinct key (schedule reused), least recently
/// used slot recycled beyond CONTEXT_SLOTS keys, `None` keys never matched,
/// and a reset drops every saved context (the next call re-inspects).
#[test]
fn context_slots_reuse_recycle_and_reset() {
    use weft_runtime::runtime::CONTEXT_SLOTS;
    let cfg = RuntimeConfig {
        cores: 2,
        min_parallel_ns: 0, // tiny regions must still go through the cache
        ..eager()
    };
    let r = rt_with(cfg);
    let a = r.select_context(3, Some(&[1, 2])).unwrap();
    let b = r.select_context(3, Some(&[1, 3])).unwrap();
    assert_ne!(a, b);
    assert_eq!(r.select_context(3, Some(&[1, 2])).unwrap(), a);
    assert!((3 * CONTEXT_SLOTS..4 * CONTEXT_SLOTS).contains(&a));
    let n1 = r.select_context(3, None).unwrap();
    let n2 = r.select_context(3, None).unwrap();
    assert!(![a, b].contains(&n1) && ![a, b].contains(&n2));
    // A schedule saved under `a` survives other keys but not a reset.
    let n = 4000i64;
    let body = |_: i64, _: i64| {};
    let x: Vec<u64> = (0..n as u64).collect();
    let insp = |lo: i64, hi: i64, h: &mut Inspector| {
        for i in lo..hi {
            h.access(i, &x[i as usize] as *const u64 as u64, 8, false)
                .unwrap();
        }
    };
    let inspections = |id: u32| {
        let st = r.stats_json();
        st["regions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == id)
            .map_or(0, |g| g["inspections"].as_u64().unwrap())
    };
    r.run_irregular(a, 0, n, 0, Some(&insp), &body).unwrap();
    assert_eq!(r.select_context(3, Some(&[1, 2])).unwrap(), a);
    r.run_irregular(a, 0, n, 0, Some(&insp), &body).unwrap();
    assert_eq!(inspections(a), 1);
    r.reset_contexts(3);
    let a2 = r.select_context(3, Some(&[1, 2])).unwrap();
    r.run_irregular(a2, 0, n, 0, Some(&insp), &body).unwrap();
    assert_eq!(
        inspections(a2),
        1 + (a2 == a) as u64,
        "re-inspected after the reset"
    );
    // More keys than slots: the least recently used one is recycled.
    let ids: Vec<u32> = (0..CONTEXT_SLOTS as u64 + 1)
        .map(|k| r.select_context(3, Some(&[100 + k])).unwrap())
        .collect();
    assert_eq!(ids[CONTEXT_SLOTS as usize], ids[0], "oldest slot reused");
    let distinct: std::collections::HashSet<_> = ids[..CONTEXT_SLOTS as usize].iter().collect();
    assert_eq!(distinct.len(), CONTEXT_SLOTS as usize);
}

/// Schedule reuse: a region invalidated before every execution has each
/// schedule serve one run; after `reinspect_limit` such schedules in a row it
/// stops inspecting and runs in original order (coverage drops, results do
/// not change). A region whose inspector reports checked writes keeps
/// inspecting (it needs the dependence check), and so does every region with
/// the limit at 0 or with schedules that are reused.
#[test]
fn unreused_schedules_stop_inspection() {
    let n = 4000usize;
    // (limit, report writes, invalidate every run) -> (inspections, abandoned, coverage, y)
    let run = |limit: u32, writes: bool, invalidate: bool| {
        let r = rt_with(RuntimeConfig {
            cores: 2,
            min_parallel_ns: 0,
            reinspect_limit: limit,
            ..eager()
        });
        let y: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let body = add_index_body(&y);
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            for i in lo..hi {
                let a = &y[i as usize] as *const AtomicU64 as u64;
                if writes {
                    h.access(i, a, 8, true).unwrap();
                } else {
                    h.access_unchecked(i, a, 8).unwrap();
                }
            }
        };
        for _ in 0..6 {
            if invalidate {
                r.invalidate(9);
            }
            r.run_irregular(9, 0, n as i64, 50, Some(&insp), &body)
                .unwrap();
        }
        let st = r.stats_json();
        let reg = &st["regions"][0];
        let y: Vec<u64> = y.iter().map(|v| v.load(Ordering::Relaxed)).collect();
        (
            reg["inspections"].as_u64().unwrap(),
            reg["inspection_abandoned"].as_bool().unwrap(),
            reg["coverage_ratio"].as_f64().unwrap(),
            y,
        )
    };
    let (insps, abandoned, coverage, y) = run(2, false, true);
    assert_eq!(
        (insps, abandoned),
        (2, true),
        "two unreused schedules, then none"
    );
    assert!((coverage - 2.0 / 6.0).abs() < 1e-9, "{coverage}");
    assert!(y.iter().enumerate().all(|(i, &v)| v == 6 * (i as u64 + 1)));
    assert_eq!(run(0, false, true).0, 6, "limit 0: always inspect");
    assert_eq!(run(2, true, true).0, 6, "checked writes: always inspect");
    assert_eq!(run(1, false, true).0, 1);
    let (insps, abandoned, coverage, _) = run(2, false, false);
    assert_eq!(
        (insps, abandoned, coverage),
        (1, false, 1.0),
        "reused schedule"
    );
}

/// Schedule reuse of described affine nests (native only): a nest whose
/// bounds change on every call (a left-looking factorisation's column loop)
/// builds a plan per call. When each plan costs more than the configured
/// share of its run (0 here: always), after two such plans the nest runs
/// under the Default schedule without building plans, or, when its legality
/// rests on the conflict check, in original order on the calling thread;
/// every iteration still runs once per call. Cheap plans (infinite share:
/// never costly) and trace mode keep scheduling.
#[test]
fn described_nests_with_unreused_costly_plans_fall_back_to_default() {
    use weft_runtime::affine_desc::VERSION;
    let (n, m) = (400i64, 64i64);
    let data: Vec<u64> = vec![0; (n * m) as usize];
    // Rows line-aligned (the line walk works on 128-byte lines; the
    // descriptor's addresses are only mapped to banks, never dereferenced).
    let a = (data.as_ptr() as i64 + 127) & !127;
    // for i in P (from 1): { for j in 0..m: a[i*m + j] = ..;
    //                        for t in 0..2: for u in 0..1: .. = a[t*(n+2)*m + u] }
    // Independent IBs: each writes its own row, and the rows read by all
    // (0 and n + 2) are never written. The interval proof
    // (`AffineDesc::ibs_independent`) cannot see it (the reads' hull spans the
    // written rows, and they go through another pointer into the same array,
    // which rules out the row/column split), so with `check` the line walk
    // decides.
    let desc = vec![
        VERSION,
        4,
        2,
        1,
        1, // header: 4 loops, 2 refs, i = 1 + k
        0,
        0,
        0,
        1,
        m,
        0,
        1, // loop 1: j in 0..m
        0,
        0,
        0,
        1,
        2,
        0,
        1, // loop 2: t in 0..2
        2,
        0,
        0,
        0,
        1,
        1,
        0,
        0,
        1, // loop 3: u in 0..1, in loop 2
        1,
        a,
        8,
        1,
        0,
        8 * m,
        8, // a[i*m + j] written, in loop 1
        3,
        a + 8,
        8,
        0,
        -8,
        0,
        8 * (n + 2) * m,
        8, // a[t*(n+2)*m + u] read (through a pointer one element on), in loop 3
    ];
    {
        let d = weft_runtime::affine_desc::AffineDesc::parse(&desc).unwrap();
        assert!(!d.ibs_independent(0, n, 4));
    }
    let run = |trace: Option<std::path::PathBuf>, check: bool, share: f64| {
        let cfg = RuntimeConfig {
            cores: 2,
            trace,
            min_parallel_ns: 0,
            plan_cost_share: share,
            checked_plan_cost_ratio: share,
            ..eager()
        };
        let r = rt_with(cfg);
        let hits: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let body = |lo: i64, hi: i64| {
            for i in lo..hi {
                hits[i as usize].fetch_add(1, Ordering::Relaxed);
            }
        };
        for k in 0..8 {
            r.run_affine_desc(4, k, n, 4, Scheme::MlpFirst, 0, check, &desc, &body)
                .unwrap();
        }
        for (i, h) in hits.iter().enumerate() {
            assert_eq!(
                h.load(Ordering::Relaxed),
                (i as u64 + 1).min(8),
                "iteration {i}"
            );
        }
        let st = r.stats_json();
        let reg = st["regions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == 4)
            .unwrap()
            .clone();
        let serial = reg["serial_executions"].as_u64().unwrap();
        (reg["inspection_abandoned"].as_bool().unwrap(), serial)
    };
    assert_eq!(
        run(None, false, 0.0),
        (true, 0),
        "unreused costly plans: Default schedule"
    );
    assert_eq!(
        run(None, false, f64::INFINITY),
        (false, 0),
        "cheap plans are kept"
    );
    assert_eq!(
        run(None, true, 0.0),
        (true, 6),
        "checked nests: original order after 2 plans"
    );
    assert_eq!(run(None, true, f64::INFINITY), (false, 0));
    let dir = tempfile::tempdir().unwrap();
    assert!(
        !run(Some(dir.path().join("d.trace")), false, 0.0).0,
        "trace mode keeps scheduling"
    );
}

/// `RuntimeConfig::miss_filter` reaches the inspector: every iteration reads
/// one shared line and its own 8 bytes of `y`. With the line filter the
/// shared line's later touches and the repeated lines of `y` are predicted
/// hits and set no bank bit, so the slabs' maps shrink; results are the same.
#[test]
fn miss_filter_shrinks_bank_maps_not_results() {
    use weft_runtime::runtime::MissFilter;
    let n = 4000usize;
    let run = |miss_filter: MissFilter| {
        let r = rt_with(RuntimeConfig {
            cores: 2,
            min_parallel_ns: 0,
            miss_filter,
            ..eager()
        });
        let y: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let body = add_index_body(&y);
        let shared = &y[0] as *const AtomicU64 as u64;
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            for i in lo..hi {
                h.access_unchecked(i, shared, 8).unwrap();
                h.access_unchecked(i, &y[i as usize] as *const AtomicU64 as u64, 8)
                    .unwrap();
            }
        };
        r.run_irregular(3, 0, n as i64, 50, Some(&insp), &body)
            .unwrap();
        let st = r.stats_json();
        let reg = &st["regions"][0];
        let b = &reg["inspector_breakdown"];
        let y: Vec<u64> = y.iter().map(|v| v.load(Ordering::Relaxed)).collect();
        (
            b["predicted_hits"].as_u64().unwrap(),
            b["line_touches"].as_u64().unwrap(),
            reg["banks_per_slab"].as_f64().unwrap(),
            y,
        )
    };
    let (hits_off, touches, slab_off, y_off) = run(MissFilter::Off);
    assert_eq!((hits_off, touches), (0, 2 * n as u64));
    let (hits_on, touches_on, slab_on, y_on) = run(MissFilter::Lines);
    assert_eq!(touches_on, touches);
    // Misses: per core's chunk the shared line once and each 64-byte line
    // of its part of `y` once (8 iterations per line, +1 for alignment).
    assert!(
        hits_on >= 2 * n as u64 - 2 - 2 * (n as u64 / 8 + 2),
        "{hits_on}"
    );
    assert!(slab_on <= slab_off, "{slab_on} > {slab_off}");
    assert_eq!(y_on, y_off);
}

/// Candidate window of Algorithm 4 (`RuntimeConfig::blp_window`): every slab a
/// core runs is among its first `w` not yet run slabs in original order, so
/// `w = 1` is the original order; without a window the same slabs are
/// reordered. Results do not depend on it.
#[test]
fn blp_window_bounds_how_far_slabs_move() {
    let (n, p) = (6000usize, 4usize);
    // per core: the rank of each picked slab among the core's remaining ones
    let ranks = |window: Option<usize>| {
        let r = rt_with(RuntimeConfig {
            cores: p,
            min_parallel_ns: 0,
            blp_window: window,
            ..eager()
        });
        let y: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let body = add_index_body(&y);
        // addresses spread over many banks, in an order unrelated to the iteration's
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            for i in lo..hi {
                let a = ((i as u64).wrapping_mul(0x9E37_79B9) % 4099) << 11;
                h.access_unchecked(i, a, 8).unwrap();
            }
        };
        r.run_irregular(3, 0, n as i64, 40, Some(&insp), &body)
            .unwrap();
        assert!(y
            .iter()
            .enumerate()
            .all(|(i, v)| v.load(Ordering::Relaxed) == i as u64 + 1));
        let plan = r.cached_irregular_plan(3).unwrap();
        let mut remaining: Vec<Vec<u32>> = vec![Vec::new(); p];
        for (u, &c) in plan.core_of().iter().enumerate() {
            remaining[c as usize].push(u as u32);
        }
        let mut max_rank = 0;
        for step in &plan.steps {
            for (c, units) in step.iter().enumerate() {
                for u in units {
                    let k = remaining[c].iter().position(|x| x == u).unwrap();
                    // units of a core are numbered in iteration order
                    assert!(
                        k == 0
                            || plan.units[remaining[c][k - 1] as usize].0
                                < plan.units[*u as usize].0
                    );
                    max_rank = max_rank.max(k);
                    remaining[c].remove(k);
                }
            }
        }
        max_rank
    };
    assert_eq!(ranks(Some(1)), 0, "window 1: original order");
    assert!(
        (1..=2).contains(&ranks(Some(3))),
        "window 3: reordered within it"
    );
    assert!(ranks(None) > 2, "no window: slabs move further");
}

/// Context churn: a described nest called with new live-ins every time (a
/// factorisation's column index) gets a new context id per call. After
/// `CHURN_CONTEXTS` new contexts in a row, each new context inherits the
/// previous one's reuse state, so two more costly single-use plans end the
/// planning (before, every call built a plan until the slots recycled);
/// every iteration still runs once per call. Calls that come back to a
/// known context (a few contexts in turn) never churn.
#[test]
fn churning_contexts_share_schedule_reuse() {
    use weft_runtime::affine_desc::VERSION;
    use weft_runtime::runtime::CHURN_CONTEXTS;
    let (n, m) = (64i64, 16i64);
    let data: Vec<u64> = vec![0; (n * m + 16) as usize];
    let a = (data.as_ptr() as i64 + 127) & !127;
    // for i in P: for j in 0..m: a[i*m + j] (written)
    let desc = vec![
        VERSION,
        2,
        1,
        0,
        1, //
        0,
        0,
        0,
        1,
        m,
        0,
        1, //
        1,
        a,
        8,
        1,
        0,
        8 * m,
        8,
    ];
    let run = |keys: &[u64]| {
        let r = rt_with(RuntimeConfig {
            cores: 2,
            min_parallel_ns: 0,
            plan_cost_share: 0.0,
            ..eager()
        });
        let hits: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let body = |lo: i64, hi: i64| {
            for i in lo..hi {
                hits[i as usize].fetch_add(1, Ordering::Relaxed);
            }
        };
        for &k in keys {
            let id = r.select_context(7, Some(&[k])).unwrap();
            r.run_affine_desc(id, 0, n, 4, Scheme::MlpFirst, 0, false, &desc, &body)
                .unwrap();
        }
        assert!(hits
            .iter()
            .all(|h| h.load(Ordering::Relaxed) == keys.len() as u64));
        // Plans built by the descriptor walk (the Default fall-back walks nothing).
        let st = r.stats_json();
        st["regions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["line_steps"].as_u64().unwrap_or(0) > 0)
            .count()
    };
    let fresh: Vec<u64> = (0..40).collect();
    assert_eq!(run(&fresh), CHURN_CONTEXTS as usize + 1);
    // Four contexts in turn: one plan each, reused.
    let cycle: Vec<u64> = (0..40).map(|i| i % 4).collect();
    assert_eq!(run(&cycle), 4);
    // Twenty in turn: the first round churns (contexts 18-20 inherit the
    // abandonment), but when they come back they start afresh and plan.
    let cycle: Vec<u64> = (0..60).map(|i| i % 20).collect();
    assert_eq!(run(&cycle), 20);
}

/// Three calls of a 4000-iteration region on 2 cores with configuration
/// `cfg` (grain control and saturation probes off, so one inspector call per
/// chunk), with an inspector of unchecked reads that declares
/// `weft_inspect_maps_only` or not. Checks the results against the
/// sequential loop; returns the inspector calls made by the end of each call,
/// and the region's serial executions and inspections.
fn three_lazy_runs(cfg: RuntimeConfig, declare: bool) -> (Vec<usize>, u64, u64) {
    let n = 4000i64;
    let x: Vec<u64> = (0..n as u64).map(|i| i * 7 % 1009).collect();
    let r = rt_with(RuntimeConfig {
        cores: 2,
        min_parallel_ns: 0,
        inspect_saturate: false,
        ..cfg
    });
    let y: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
    let calls = AtomicUsize::new(0);
    let insp = |lo: i64, hi: i64, h: &mut Inspector| {
        calls.fetch_add(1, Ordering::Relaxed);
        if declare {
            h.declare_maps_only();
        }
        for i in lo..hi {
            h.access_unchecked(i, &x[i as usize] as *const u64 as u64, 8)
                .unwrap();
        }
    };
    let body = |lo: i64, hi: i64| {
        for i in lo..hi {
            y[i as usize].fetch_add(x[i as usize] + 1, Ordering::Relaxed);
        }
    };
    let mut after = Vec::new();
    for _ in 0..3 {
        r.run_irregular(5, 0, n, 0, Some(&insp), &body).unwrap();
        after.push(calls.load(Ordering::Relaxed));
    }
    for (i, v) in y.iter().enumerate() {
        assert_eq!(v.load(Ordering::Relaxed), 3 * (x[i] + 1));
    }
    let st = r.stats_json();
    let reg = &st["regions"][0];
    (
        after,
        reg["serial_executions"].as_u64().unwrap(),
        reg["inspections"].as_u64().unwrap(),
    )
}

/// Lazy inspection of every region (`LazyInspect::All`): the first execution
/// of an irregular region runs in original order without inspection, the
/// second inspects and schedules, later ones reuse the schedule; results are
/// those of the sequential loop throughout. Off by default.
#[test]
fn lazy_inspection_skips_the_first_execution() {
    let run = |lazy: bool| {
        let (after, serial, _) = three_lazy_runs(
            RuntimeConfig {
                lazy: if lazy {
                    LazyInspect::All
                } else {
                    LazyInspect::Off
                },
                ..eager()
            },
            false,
        );
        (after, serial)
    };
    // Eager: one inspection (2 chunks) before the first execution.
    assert_eq!(run(false), (vec![2, 2, 2], 0));
    // Lazy: the first execution runs serially, the second inspects.
    assert_eq!(run(true), (vec![0, 2, 2], 1));
}

/// Saturation (`RuntimeConfig::inspect_saturate`): an inspector that declares
/// only unchecked reports stops recording a slab once its bank map is full.
/// The first half of the iterations touch random lines of a 1 GiB range (a
/// slab of 400 fills all 32 banks of `table5.2` after about 130 of them), the
/// second half four lines (their slabs never fill). The plan and the bank
/// maps are those of the full inspection, only fewer accesses are counted;
/// an inspector that does not declare is inspected in full, and one that
/// declares and then reports a checked access fails.
#[test]
fn full_slabs_end_declared_inspections_with_identical_plans() {
    let (n, p, slab) = (16_000usize, 2usize, 400i64);
    let addr: Vec<u64> = {
        let mut r = super::Rng(11);
        (0..n)
            .map(|i| match i < n / 2 {
                true => (1 << 30) + r.below(1 << 24) * 64,
                false => (1 << 30) + (i as u64 % 4) * 64,
            })
            .collect()
    };
    // (declare, report a checked read too, saturate)
    let run = |declare: bool, checked: bool, saturate: bool| {
        let r = rt_with(RuntimeConfig {
            cores: p,
            min_parallel_ns: 0,
            inspect_saturate: saturate,
            ..eager()
        });
        let y: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
        let body = add_index_body(&y);
        let calls = AtomicUsize::new(0);
        let insp = |lo: i64, hi: i64, h: &mut Inspector| {
            calls.fetch_add(1, Ordering::Relaxed);
            if declare {
                h.declare_maps_only();
            }
            for i in lo..hi {
                h.access_unchecked(i, addr[i as usize], 8).unwrap();
                if checked && i == n as i64 - 1 {
                    // what weft_inspect_access(.., is_write = 0) does
                    if h.access_checked(i, addr[0], 8, false).is_err() {
                        return;
                    }
                }
            }
        };
        let res = r.run_irregular(3, 0, n as i64, slab, Some(&insp), &body);
        let st = r.stats_json();
        let reg = &st["regions"][0];
        let out = res.map(|_| {
            (
                r.cached_irregular_plan(3).expect("plan cached"),
                reg["inspector_breakdown"]["accesses"].as_u64().unwrap(),
                reg["banks_per_slab"].as_f64().unwrap(),
                y.iter()
                    .map(|v| v.load(Ordering::Relaxed))
                    .collect::<Vec<u64>>(),
            )
        });
        (out, calls.load(Ordering::Relaxed))
    };
    let (full, full_calls) = run(true, false, false);
    let (full_plan, full_acc, full_banks, full_y) = full.unwrap();
    assert_eq!((full_acc, full_calls), (n as u64, p));
    let (sat, sat_calls) = run(true, false, true);
    let (sat_plan, sat_acc, sat_banks, sat_y) = sat.unwrap();
    assert_eq!(sat_plan, full_plan);
    assert_eq!(sat_banks, full_banks);
    assert_eq!(sat_y, full_y);
    // The random half: about 130 of each 400-iteration slab, plus the probes'
    // overshoot; the four-line half in full.
    assert!(
        sat_acc < (n / 2) as u64 + (n / 2) as u64 * 3 / 5 && sat_acc >= (n / 2) as u64,
        "{sat_acc} of {n} accesses inspected"
    );
    // Four-line slabs stop being probed after two of them (one probed slab in
    // eight): far fewer calls than four per slab.
    let slabs = n / slab as usize;
    assert!(sat_calls < 3 * slabs, "{sat_calls} calls for {slabs} slabs");
    // Without the declaration every iteration is inspected (two calls per
    // chunk: the first probe, then the rest).
    let (undeclared, calls) = run(false, false, true);
    let (plan, acc, _, _) = undeclared.unwrap();
    assert_eq!((plan, acc, calls), (full_plan, n as u64, 2 * p));
    // A checked report after the declaration is an error.
    let (bad, _) = run(true, true, true);
    let e = bad.unwrap_err().to_string();
    assert!(e.contains("weft_inspect_maps_only"), "{e}");
}

/// Lazy inspection of checked regions (`LazyInspect::Checked`, the default):
/// a region whose inspector does not declare `weft_inspect_maps_only` (one
/// that needs the dependence check) runs its first execution in original
/// order without a schedule (one inspector call over its first iteration
/// tells the kinds apart) and is inspected when it runs again; a region whose
/// inspector declares is inspected on its first execution. Results are those
/// of the sequential loop either way.
#[test]
fn lazy_checked_inspection_defers_only_undeclared_inspectors() {
    assert_eq!(
        RuntimeConfig::default().lazy,
        LazyInspect::Checked,
        "on by default"
    );
    let run = |declare: bool| {
        let cfg = RuntimeConfig {
            lazy: LazyInspect::Checked,
            ..eager()
        };
        three_lazy_runs(cfg, declare)
    };
    // Declared: the one-iteration check, then the inspection at once (two
    // chunks); never serial.
    assert_eq!(run(true), (vec![3, 3, 3], 0, 1));
    // Not declared: the one-iteration check, a serial first execution, then
    // the inspection (two chunks) on the second.
    assert_eq!(run(false), (vec![1, 3, 3], 1, 1));
}
