//! Differential test against DRAMsim3 (the `dramsim3` crate, which builds
//! DRAMsim3's C++ sources): both simulators get the `dramsim3-ddr4-2400`
//! configuration (DDR4_8Gb_x8_2400: 17-17-17, tRAS 39, tRFC 420, tREFI 9360;
//! 1 channel, 1 rank, rochrababgco, open page, FR-FCFS with DRAMsim3's
//! round-robin bank arbitration and 4-hit cap, 32-entry transaction queues,
//! 8-entry per-bank command queues, rank-staggered refresh) and the same traces,
//! replayed with the same rule (in order, one per cycle, a refused request
//! retried every cycle). Clock cycles are DRAM cycles (1.2 GHz) on both sides.
//!
//! Targets (issue 2): cycles and bandwidth within 3 % on saturated traces,
//! average read latency within 5 % on unsaturated traces, row-buffer hit rate
//! within 1 percentage point (DRAMsim3 counts a hit per column command after the
//! first in an open row, we count requests whose first command is RD/WR: the
//! same number when every request is one column command).
//!
//! Measured (this file, `cargo test -p weft-memsim --test all differential -- --nocapture`):
//! on read-only traces (streaming, random, same-bank, saturated and at light
//! load) total cycles, average read latency and row-hit rate are identical to
//! DRAMsim3's, so those tests also assert exact cycle equality. Remaining
//! differences, all from write handling or request merging:
//!
//! * writes: DRAMsim3 calls the write callback one cycle after accepting a write
//!   (posted write), we complete a write when its burst has been written, so a
//!   trace ending in writes ends later for us (mixed light load: +31 of 500k
//!   cycles; mixed saturated: +0.36 % cycles, −1.0 % read latency);
//! * write drains: DRAMsim3 drains exactly the writes counted when the drain
//!   starts and stops a drain when a write has an older read to the same
//!   address; we drain down to the low watermark (0 here), including writes
//!   arriving meanwhile, and only hold the dependent write back;
//! * bandwidth: a read merged with a queued read of the same burst moves no
//!   data for us, DRAMsim3's bandwidth counts requests × 64 B (same-bank trace:
//!   1.314 vs 1.315 GB/s with identical cycles);
//! * not exercised by this configuration: with the closed-row policy we start
//!   the auto-precharge at max(RD + tRTP, ACT + tRAS) (JEDEC) where DRAMsim3
//!   adds the burst (RD + tBL + tRTP); WR→WR across ranks pays tRTRS for us, not
//!   in DRAMsim3.

use weft_memsim::config::MachineConfig;
use weft_memsim::dram::reference::{
    dramsim3_ini, parse_dramsim3_epochs, replay_cycle_sim, CycleSim,
};
use weft_memsim::dram::{replay, DramSystem};
use weft_memsim::trace::{AccessKind, TimedRequest};

pub struct Ds3 {
    pub sys: dramsim3::MemorySystem,
    pub ticks: u64,
}

impl CycleSim for Ds3 {
    fn can_add(&self, addr: u64, is_write: bool) -> bool {
        self.sys.can_add(addr, is_write)
    }
    fn add(&mut self, addr: u64, is_write: bool) {
        assert!(self.sys.add(addr, is_write));
    }
    fn tick(&mut self, done: &mut dyn FnMut(u64, bool)) {
        self.sys.tick(done);
        self.ticks += 1;
    }
}

const EPOCH: u64 = 100_000;

/// Results of one trace on both simulators.
#[derive(Debug)]
pub struct Both {
    pub ours: weft_memsim::stats::DramStats,
    pub ref_cycles: u64,
    pub ref_latency: f64,
    pub ref_bw: f64,
    pub ref_hit_rate: f64,
}

pub fn run_both(trace: &[TimedRequest]) -> Both {
    let cfg = MachineConfig::preset("dramsim3-ddr4-2400").unwrap().dram;
    let mut ours = DramSystem::new(&cfg).unwrap();
    replay(
        &mut ours,
        trace.iter().map(|r| Ok::<_, std::convert::Infallible>(*r)),
    )
    .unwrap();
    let ours = ours.stats();

    let dir = tempfile::tempdir().unwrap();
    let ini = dir.path().join("weft.ini");
    std::fs::write(&ini, dramsim3_ini(&cfg, EPOCH).unwrap()).unwrap();
    let mut ds3 = Ds3 {
        sys: dramsim3::MemorySystem::new(&ini, dir.path()).unwrap(),
        ticks: 0,
    };
    let r = replay_cycle_sim(
        &mut ds3,
        trace.iter().copied(),
        cfg.tck_ns,
        cfg.burst_bytes() as u64,
    );
    while ds3.ticks % EPOCH != 0 {
        ds3.tick(&mut |_, _| {});
    }
    drop(ds3);
    let counters = parse_dramsim3_epochs(
        &std::fs::read_to_string(dir.path().join("dramsim3epoch.json")).unwrap(),
    )
    .unwrap();
    Both {
        ours,
        ref_cycles: r.cycles,
        ref_latency: r.avg_read_latency,
        ref_bw: r.bandwidth_gbps,
        ref_hit_rate: counters.row_hits as f64 / counters.column_cmds.max(1) as f64,
    }
}

/// Deterministic xorshift.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const CAP: u64 = 8 << 30;

pub fn streaming(n: u64, every: u64) -> Vec<TimedRequest> {
    (0..n)
        .map(|i| TimedRequest {
            cycle: i * every,
            kind: AccessKind::Read,
            addr: i * 64,
        })
        .collect()
}

pub fn random(n: u64, every: u64, seed: u64) -> Vec<TimedRequest> {
    let mut r = Rng(seed);
    (0..n)
        .map(|i| TimedRequest {
            cycle: i * every,
            kind: AccessKind::Read,
            addr: (r.next() % CAP) & !63,
        })
        .collect()
}

/// Bank 0 of bank group 0 (address bits 13-16 zero), random rows and columns.
pub fn same_bank(n: u64, every: u64, seed: u64) -> Vec<TimedRequest> {
    let mut r = Rng(seed);
    (0..n)
        .map(|i| {
            let row = r.next() % 65536;
            let col = r.next() % 128;
            TimedRequest {
                cycle: i * every,
                kind: AccessKind::Read,
                addr: (row << 17) | (col << 6),
            }
        })
        .collect()
}

/// Two reads for each write, random addresses.
pub fn mixed(n: u64, every: u64, seed: u64) -> Vec<TimedRequest> {
    let mut r = Rng(seed);
    (0..n)
        .map(|i| {
            let kind = if r.next() % 3 == 0 {
                AccessKind::Write
            } else {
                AccessKind::Read
            };
            TimedRequest {
                cycle: i * every,
                kind,
                addr: (r.next() % CAP) & !63,
            }
        })
        .collect()
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b
}

fn report(name: &str, b: &Both) {
    eprintln!(
        "{name:12} cycles {} vs {} ({:+.2}%), bw {:.3} vs {:.3} GB/s, read lat {:.2} vs {:.2} ({:+.2}%), hit rate {:.4} vs {:.4}",
        b.ours.cycles,
        b.ref_cycles,
        100.0 * (b.ours.cycles as f64 - b.ref_cycles as f64) / b.ref_cycles as f64,
        b.ours.bandwidth_gbps,
        b.ref_bw,
        b.ours.avg_read_latency,
        b.ref_latency,
        100.0 * (b.ours.avg_read_latency - b.ref_latency) / b.ref_latency,
        b.ours.row_hit_rate,
        b.ref_hit_rate
    );
}

fn check_saturated(name: &str, trace: &[TimedRequest]) {
    let b = run_both(trace);
    report(name, &b);
    // read-only traces: cycle-exact (see the module docs)
    assert_eq!(
        b.ours.cycles, b.ref_cycles,
        "{name}: read-only trace no longer cycle-exact"
    );
    assert!(
        rel(b.ours.cycles as f64, b.ref_cycles as f64) <= 0.03,
        "{name}: cycles off by more than 3 %: {b:?}"
    );
    assert!(
        rel(b.ours.bandwidth_gbps, b.ref_bw) <= 0.03,
        "{name}: bandwidth off by more than 3 %"
    );
    assert!(
        (b.ours.row_hit_rate - b.ref_hit_rate).abs() <= 0.01,
        "{name}: row-hit rate off by more than 1 pp"
    );
}

fn check_unsaturated(name: &str, trace: &[TimedRequest]) {
    let b = run_both(trace);
    report(name, &b);
    assert!(
        rel(b.ours.avg_read_latency, b.ref_latency) <= 0.05,
        "{name}: read latency off by more than 5 %: {b:?}"
    );
    assert!(
        (b.ours.row_hit_rate - b.ref_hit_rate).abs() <= 0.01,
        "{name}: row-hit rate off by more than 1 pp"
    );
}

#[test]
fn streaming_saturated() {
    check_saturated("streaming", &streaming(40_000, 0));
}

#[test]
fn random_saturated() {
    check_saturated("random", &random(20_000, 0, 0x9e3779b97f4a7c15));
}

#[test]
fn same_bank_saturated() {
    check_saturated("same-bank", &same_bank(5_000, 0, 12345));
}

#[test]
fn random_light_load() {
    check_unsaturated("random-light", &random(10_000, 40, 777));
}

#[test]
fn mixed_light_load() {
    check_unsaturated("mixed-light", &mixed(10_000, 50, 4242));
}

#[test]
fn streaming_light_load() {
    check_unsaturated("stream-light", &streaming(10_000, 20));
}

/// Reads and writes at full load. Not a target of issue 2: DRAMsim3 acknowledges
/// a write one cycle after accepting it, we when its burst is written, so end
/// times differ by the final write drain; printed for the record, and checked
/// loosely on the row-hit rate only.
#[test]
fn mixed_saturated_report() {
    let b = run_both(&mixed(20_000, 0, 99));
    report("mixed-sat", &b);
    assert!((b.ours.row_hit_rate - b.ref_hit_rate).abs() <= 0.01);
}
