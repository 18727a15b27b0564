//! Perturbed runs (`RunOptions::perturb`, `MemorySystem::set_perturbation`):
//! off by default and then exactly the unperturbed run; deterministic for a
//! seed, on one thread or with the DRAM thread; different seeds sample
//! different interleavings; one request is delayed by at most the bound.

use weft_memsim::config::MachineConfig;
use weft_memsim::run::{bench_workload, simulate, RunOptions};
use weft_memsim::trace::{AccessKind, Record};
use weft_memsim::trace_source::DemuxSource;

fn mix(cfg: &MachineConfig, o: &RunOptions) -> String {
    let s = simulate(cfg, &mut bench_workload(36, 36 * 400, 3), o, |_| {}).unwrap();
    serde_json::to_string(&s).unwrap()
}

#[test]
fn no_perturbation_is_the_unperturbed_run_under_any_seed() {
    let cfg = MachineConfig::preset("table5.2").unwrap();
    let plain = mix(&cfg, &RunOptions::default());
    // The seed feeds TCM and the perturbation only: FR-FCFS with perturb 0
    // is the same run under every seed.
    for seed in [1, 2, 99] {
        let o = RunOptions {
            seed,
            perturb: 0,
            ..RunOptions::default()
        };
        assert_eq!(mix(&cfg, &o), plain, "seed {seed}");
    }
}

#[test]
fn a_perturbed_run_is_a_function_of_its_seed() {
    let cfg = MachineConfig::preset("table5.2").unwrap();
    let o = |seed| RunOptions {
        seed,
        perturb: 4,
        ..RunOptions::default()
    };
    let a = mix(&cfg, &o(2));
    assert_eq!(a, mix(&cfg, &o(2)), "same seed, same run");
    let threaded = RunOptions {
        dram_thread: true,
        ..o(2)
    };
    assert_eq!(a, mix(&cfg, &threaded), "the DRAM thread changes nothing");
    let plain = mix(&cfg, &RunOptions::default());
    let runs: Vec<String> = (1..=4).map(|s| mix(&cfg, &o(s))).collect();
    assert!(runs.iter().all(|r| *r != plain), "a perturbation perturbs");
    let distinct: std::collections::BTreeSet<&String> = runs.iter().collect();
    assert!(distinct.len() >= 3, "seeds sample different runs");
}

/// One load that misses everywhere: the perturbed run finishes no earlier
/// than the unperturbed one and at most `perturb` core cycles (plus one
/// DRAM clock of alignment) later, and some seed delays it.
#[test]
fn one_miss_is_delayed_by_at_most_the_bound() {
    let cfg = MachineConfig::preset("table5.2").unwrap();
    let cycles = |o: &RunOptions| {
        let w = vec![Record {
            core: 0,
            kind: AccessKind::Read,
            size: 8,
            addr: 0x4000_0000,
            gap: 0,
        }];
        let mut src = DemuxSource::new(w.into_iter().map(Ok), cfg.core.count);
        simulate(&cfg, &mut src, o, |_| {}).unwrap().cycles
    };
    let base = cycles(&RunOptions::default());
    let bound = 40u64;
    // a DRAM clock in core cycles, rounded up
    let align = (cfg.core.freq_mhz as f64 / (1000.0 / cfg.dram.tck_ns)).ceil() as u64;
    let mut delayed = 0;
    for seed in 1..=16 {
        let c = cycles(&RunOptions {
            seed,
            perturb: bound as u32,
            ..RunOptions::default()
        });
        assert!(
            c >= base && c <= base + bound + align,
            "seed {seed}: {c} against {base}"
        );
        delayed += usize::from(c > base);
    }
    assert!(delayed >= 8, "{delayed} of 16 seeds delayed the miss");
}
