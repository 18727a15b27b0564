//! Sampled simulation (`weft_memsim::sample`): full-detail sampling equals the
//! plain run, and systematic sampling of a repetitive barrier-separated
//! workload lands near the full run's cycles and BLP.

use weft_memsim::config::MachineConfig;
use weft_memsim::core::{Op, OpKind};
use weft_memsim::manycore::VecSource;
use weft_memsim::run::{simulate, simulate_sampled, RunOptions};
use weft_memsim::sample::SampleParams;
use weft_memsim::trace::BarrierPhase;

/// `iters` timing-loop iterations on `cores` cores: a region where each core
/// streams its own slice (8-byte stride, one store in 4), then a region of
/// gathers through a pseudo-random index (hpcg-like SpMV), then a short serial
/// part on core 0 (a dot product's final sum).
fn workload(cores: usize, iters: usize, per_core: u64) -> VecSource {
    let mut v: Vec<Vec<Op>> = vec![Vec::new(); cores];
    let barrier = |tag: BarrierPhase| Op {
        gap: 0,
        kind: OpKind::Barrier,
        addr: tag as u64,
    };
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..iters {
        for (c, ops) in v.iter_mut().enumerate() {
            ops.push(barrier(BarrierPhase::RegionStart));
            let base = 0x1000_0000 + c as u64 * per_core * 8;
            for i in 0..per_core {
                ops.push(Op {
                    gap: 3,
                    kind: if i % 4 == 3 {
                        OpKind::Write
                    } else {
                        OpKind::Read
                    },
                    addr: base + i * 8,
                });
            }
            ops.push(barrier(BarrierPhase::RegionEnd));
            ops.push(barrier(BarrierPhase::RegionStart));
            let base = 0x8000_0000u64;
            for i in 0..per_core / 2 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                ops.push(Op {
                    gap: 5,
                    kind: OpKind::Read,
                    addr: base + (x % (64 << 20)) / 8 * 8,
                });
                ops.push(Op {
                    gap: 2,
                    kind: OpKind::Read,
                    addr: 0x4000_0000 + (c as u64 * per_core + i) * 8,
                });
            }
            ops.push(barrier(BarrierPhase::RegionEnd));
            if c == 0 {
                for i in 0..200 {
                    ops.push(Op {
                        gap: 1,
                        kind: OpKind::Read,
                        addr: 0x2000_0000 + i * 64,
                    });
                }
            }
            ops.push(barrier(BarrierPhase::None));
        }
    }
    VecSource::new(v)
}

fn machine() -> MachineConfig {
    MachineConfig::preset("table4.2").unwrap()
}

#[test]
fn full_detail_sampling_equals_the_plain_run() {
    let cfg = machine();
    let opts = RunOptions::default();
    let full = simulate(
        &cfg,
        &mut workload(cfg.core.count as usize, 2, 3000),
        &opts,
        |_| {},
    )
    .unwrap();
    let p = SampleParams {
        period: 5000,
        detailed: 5000,
    };
    let s = simulate_sampled(
        &cfg,
        &mut workload(cfg.core.count as usize, 2, 3000),
        &opts,
        p,
        |_| {},
    )
    .unwrap();
    assert_eq!(s.warmed.records, 0);
    assert_eq!(s.detailed.cycles, full.cycles);
    assert_eq!(s.estimate.cycles, full.cycles as f64);
    assert_eq!(s.estimate.cycles_ci95, Some(0.0));
    assert!((s.estimate.blp - full.blp).abs() < 1e-9 * full.blp.max(1.0));
    assert_eq!(s.estimate.region_cycles as u64, full.region_cycles);
}

#[test]
fn systematic_sampling_is_near_the_full_run() {
    let cfg = machine();
    let opts = RunOptions::default();
    let full = simulate(
        &cfg,
        &mut workload(cfg.core.count as usize, 2, 24_000),
        &opts,
        |_| {},
    )
    .unwrap();
    let p = std::env::var("SAMPLE_SPEC")
        .ok()
        .map(|v| SampleParams::parse(&v).unwrap())
        .unwrap_or(SampleParams {
            period: 16000,
            detailed: 4000,
        });
    let s = simulate_sampled(
        &cfg,
        &mut workload(cfg.core.count as usize, 2, 24_000),
        &opts,
        p,
        |_| {},
    )
    .unwrap();
    let e = &s.estimate;
    assert!(s.warmed.records > s.detailed.records, "{:?}", s.warmed);
    assert!(s.detailed.cycles < full.cycles / 2);
    let dc = e.cycles / full.cycles as f64 - 1.0;
    let db = e.blp / full.blp - 1.0;
    eprintln!(
        "full {} cycles blp {:.3}; sampled {:.0} +- {:?} blp {:.3}; error {:.2}% / {:.2}%",
        full.cycles,
        full.blp,
        e.cycles,
        e.cycles_ci95,
        e.blp,
        100.0 * dc,
        100.0 * db
    );
    assert!(dc.abs() < 0.03, "cycles off by {:.2}%", 100.0 * dc);
    assert!(db.abs() < 0.03, "BLP off by {:.2}%", 100.0 * db);
    let ci = e
        .cycles_ci95
        .expect("several sampled segments per interval");
    assert!(ci > 0.0 && ci < 0.1 * e.cycles);
}
