//! Speed of the optimized schedulers against the frozen reference versions
//! (`runtime/tests/all/reference.rs`, the implementations they replaced) on the
//! benchmark instances, in thread CPU time so that a loaded machine distorts the
//! ratio less than wall-clock time. Run:
//! `cargo run --release -p weft-runtime --example sched_compare [-- REPS]`.

#[path = "../tests/all/reference.rs"]
#[allow(dead_code, missing_docs)]
mod reference;

use weft_runtime::bankmap::AddressMap;
use weft_runtime::blp::{schedule_blp, BlpOptions, CoreOrder, SlabInstance};
use weft_runtime::deps::UnitDag;
use weft_runtime::machine::Machine;
use weft_runtime::mlp::{iw_size, schedule_ibs, IbInstance, MlpOptions, Scheme};

#[path = "../benches/common/sched_workloads.rs"]
mod sched_workloads;
use sched_workloads::{slab_instance, stencil_blocks, Rng};

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("repetitions must be a number"))
        .unwrap_or(5);
    let cpu = thread_cpu_seconds;
    let time = |f: &mut dyn FnMut()| {
        let t = cpu();
        for _ in 0..reps {
            f();
        }
        (cpu() - t) / reps as f64 * 1e3
    };
    let inst = slab_instance(64, 50, 64);
    let n = inst.total_slabs();
    let mut r = Rng(3);
    let edges: Vec<(u32, u32)> = (0..n / 2)
        .map(|_| {
            let a = r.next_u64() % n as u64;
            let b = (a + 1 + r.next_u64() % 200).min(n as u64 - 1);
            (a as u32, b as u32)
        })
        .filter(|(a, b)| a < b)
        .collect();
    let dag = UnitDag::from_edges(n, &edges).unwrap();
    let wide = slab_instance(64, 50, 256);
    let cases: Vec<(&str, &SlabInstance, BlpOptions, Option<&UnitDag>)> = vec![
        ("default", &inst, BlpOptions::default(), None),
        (
            "q2",
            &inst,
            BlpOptions {
                lookahead: 2,
                ..Default::default()
            },
            None,
        ),
        (
            "q4",
            &inst,
            BlpOptions {
                lookahead: 4,
                ..Default::default()
            },
            None,
        ),
        (
            "flex",
            &inst,
            BlpOptions {
                core_order: CoreOrder::Flexibility,
                ..Default::default()
            },
            None,
        ),
        (
            "window8",
            &inst,
            BlpOptions {
                window: Some(8),
                ..Default::default()
            },
            None,
        ),
        ("dag", &inst, BlpOptions::default(), Some(&dag)),
        ("256banks", &wide, BlpOptions::default(), None),
    ];
    for (name, i, o, d) in cases {
        let new = time(&mut || {
            std::hint::black_box(schedule_blp(i, &o, d).unwrap());
        });
        let old = time(&mut || {
            std::hint::black_box(reference::reference_blp(i, &o, d).unwrap());
        });
        println!("alg4 {name}: new {new:.3} ms, reference {old:.3} ms (thread CPU time)");
    }
    let machine = Machine::load("table5.2").unwrap();
    let (blocks, ds) = stencil_blocks(&machine, 32_000);
    let edges: Vec<(u32, u32)> = (37..32_000u32).map(|i| (i - 37, i)).collect();
    let ib_dag = UnitDag::from_edges(32_000, &edges).unwrap();
    for (wname, w) in [("eq5.1", iw_size(machine.llc_lines(), ds, 36)), ("w16", 16)] {
        let inst = IbInstance {
            cores: 36,
            window: w,
            mem_banks: machine.num_mem_banks(),
            llc_banks: machine.num_llc_banks(),
            blocks: blocks.clone(),
        };
        for scheme in [Scheme::MlpFirst, Scheme::ClpFirst, Scheme::Balanced] {
            let opts = MlpOptions {
                scheme,
                eta_mem: machine.eta_mem(),
                eta_llc: machine.eta_llc(),
            };
            for d in [None, Some(&ib_dag)] {
                if w == 16 && d.is_some() {
                    continue;
                }
                let new = time(&mut || {
                    std::hint::black_box(schedule_ibs(&inst, &opts, d).unwrap());
                });
                let old = time(&mut || {
                    std::hint::black_box(reference::reference_ibs(&inst, &opts, d).unwrap());
                });
                println!("alg5 {wname} {scheme:?} dag={}: new {new:.2} ms, reference {old:.2} ms (thread CPU time)", d.is_some());
            }
        }
    }
}

/// Thread CPU time in seconds (Linux `CLOCK_THREAD_CPUTIME_ID`).
#[cfg(target_os = "linux")]
fn thread_cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        s: i64,
        ns: i64,
    }
    extern "C" {
        fn clock_gettime(clk: i32, ts: *mut Timespec) -> i32;
    }
    let mut ts = Timespec { s: 0, ns: 0 };
    // SAFETY: valid clock id and a valid pointer to a timespec.
    unsafe { clock_gettime(3, &mut ts) };
    ts.s as f64 + ts.ns as f64 * 1e-9
}

/// Wall-clock seconds since the first call (no thread CPU clock here).
#[cfg(not(target_os = "linux"))]
fn thread_cpu_seconds() -> f64 {
    use std::sync::OnceLock;
    static T0: OnceLock<std::time::Instant> = OnceLock::new();
    T0.get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}
