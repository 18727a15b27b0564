//! Simulation speed of the DRAM model on 1M-request streaming and random traces
//! (`dramsim3-ddr4-2400`), side by side with DRAMsim3 on the same traces.
//! Throughput is reported in requests (elements) per second.
//!
//! `cargo bench -p weft-memsim --bench dram`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use weft_memsim::config::MachineConfig;
use weft_memsim::dram::reference::{dramsim3_ini, replay_cycle_sim, CycleSim};
use weft_memsim::dram::{replay, DramSystem};
use weft_memsim::trace::{synthetic, TimedRequest};

struct Ds3(dramsim3::MemorySystem);

impl CycleSim for Ds3 {
    fn can_add(&self, addr: u64, is_write: bool) -> bool {
        self.0.can_add(addr, is_write)
    }
    fn add(&mut self, addr: u64, is_write: bool) {
        self.0.add(addr, is_write);
    }
    fn tick(&mut self, done: &mut dyn FnMut(u64, bool)) {
        self.0.tick(done);
    }
}

const N: u64 = 1_000_000;

fn bench(c: &mut Criterion) {
    let cfg = MachineConfig::preset("dramsim3-ddr4-2400").unwrap().dram;
    let dir = tempfile::tempdir().unwrap();
    let ini = dir.path().join("weft.ini");
    std::fs::write(&ini, dramsim3_ini(&cfg, i32::MAX as u64).unwrap()).unwrap();
    let traces: Vec<(&str, Vec<TimedRequest>)> = vec![
        ("streaming", synthetic::streaming(N).collect()),
        (
            "random",
            synthetic::random(N, cfg.capacity_bytes(), 0x9e37_79b9_7f4a_7c15).collect(),
        ),
    ];
    let mut g = c.benchmark_group("dram_1M");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N));
    for (name, t) in &traces {
        g.bench_function(format!("weft/{name}"), |b| {
            b.iter(|| {
                let mut d = DramSystem::new(&cfg).unwrap();
                replay(
                    &mut d,
                    t.iter().map(|r| Ok::<_, std::convert::Infallible>(*r)),
                )
                .unwrap()
            })
        });
        g.bench_function(format!("dramsim3/{name}"), |b| {
            b.iter(|| {
                let mut s = Ds3(dramsim3::MemorySystem::new(&ini, dir.path()).unwrap());
                replay_cycle_sim(&mut s, t.iter().copied(), cfg.tck_ns, 64).cycles
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
