//! Behavioural tests of the manycore model: coherence, back-pressure without
//! deadlock, parallelism ordering (streaming vs same-bank), oracle modes.

use super::micro::{machine, machine_with};
use weft_memsim::core::{Op, OpKind};
use weft_memsim::manycore::VecSource;
use weft_memsim::synth::{Pattern, SynthParams, SynthSource};

#[test]
fn write_then_remote_read_invalidates_the_owner() {
    let mut m = machine(2, false);
    let a = 0x4000u64;
    let ops0 = vec![Op {
        gap: 0,
        kind: OpKind::Write,
        addr: a,
    }];
    let ops1 = vec![Op {
        gap: 2000,
        kind: OpKind::Read,
        addr: a + 8,
    }];
    let s = m
        .run(&mut VecSource::new(vec![ops0, ops1]), |_| {})
        .unwrap();
    assert_eq!(s.memory.invalidations, 1);
    assert_eq!(s.per_core[0].invalidations, 1);
    assert_eq!(s.per_core[1].invalidations, 0);
    assert_eq!(s.memory.llc_hits, 1);
}

#[test]
fn private_data_needs_no_upgrade() {
    // read then write the same line: the read was granted exclusive (E state).
    let mut m = machine(1, false);
    let a = 0x8000u64;
    let ops = vec![
        Op {
            gap: 0,
            kind: OpKind::Read,
            addr: a,
        },
        Op {
            gap: 400,
            kind: OpKind::Write,
            addr: a,
        },
    ];
    let s = m.run(&mut VecSource::new(vec![ops]), |_| {}).unwrap();
    assert_eq!(s.memory.demand_requests, 1);
    assert_eq!(s.per_core[0].l1_hits, 1);
}

fn synth(pattern: Pattern, cores: u32, n: u64) -> SynthSource {
    SynthSource::new(SynthParams {
        pattern,
        cores,
        records_per_core: n,
        max_gap: 4,
        write_every: 0,
        stride: 32,
        row_stride: 64 * 1024,
        seed: 7,
    })
}

#[test]
fn streaming_has_higher_mlp_than_same_bank() {
    // fixed-latency DRAM: 4 channels x 8 banks interleaved at 2 KB; the same-bank
    // pattern strides 64 KB = 32 banks x 2 KB, so every access hits bank 0.
    let st = machine(8, false)
        .run(&mut synth(Pattern::Stream, 8, 4000), |_| {})
        .unwrap();
    let sb = machine(8, false)
        .run(&mut synth(Pattern::SameBank, 8, 4000), |_| {})
        .unwrap();
    assert!(sb.mlp <= 1.0 + 1e-9, "same-bank MLP {}", sb.mlp);
    assert!(
        st.mlp > 2.0 * sb.mlp,
        "stream {} vs same-bank {}",
        st.mlp,
        sb.mlp
    );
    assert!(st.cycles < sb.cycles);
    assert!(st.clp > 1.0);
}

#[test]
fn tiny_queues_do_not_deadlock_and_every_request_completes() {
    // 16 cores of random traffic with 1 L1 MSHR each and stores: heavy back-pressure.
    let mut m = machine_with(16, true, true);
    let mut src = SynthSource::new(SynthParams {
        pattern: Pattern::Random,
        cores: 16,
        records_per_core: 1500,
        max_gap: 2,
        write_every: 3,
        stride: 8,
        row_stride: 64 * 1024,
        seed: 3,
    });
    let s = m.run(&mut src, |_| {}).unwrap();
    assert_eq!(s.records, 16 * 1500);
    assert!(s.memory.llc_writebacks + s.memory.writebacks_from_private > 0);
    // debug builds also assert issued == completed inside MemorySystem::finish
}

#[test]
fn blp_ideal_spreads_same_bank_misses() {
    use weft_memsim::oracle::Oracle;
    let base = machine(8, false)
        .run(&mut synth(Pattern::SameBank, 8, 2000), |_| {})
        .unwrap();
    let mut m = super::micro::machine_oracle(8, Oracle::BlpIdeal);
    let ideal = m
        .run(&mut synth(Pattern::SameBank, 8, 2000), |_| {})
        .unwrap();
    assert!(
        ideal.mlp > 4.0 * base.mlp,
        "blp-ideal {} vs {}\n{:?}\n{:?}",
        ideal.mlp,
        base.mlp,
        ideal.memory,
        base.memory
    );
    assert!(ideal.cycles < base.cycles);
    assert_eq!(ideal.memory.llc_misses, base.memory.llc_misses);
}

#[test]
fn mlp_ideal_clusters_misses_inside_the_window() {
    use weft_memsim::oracle::Oracle;
    // One core, random misses 4 instructions apart: the 64-entry ROB holds about
    // 12 of them, which 2-wide dispatch sends over 32 cycles; MLP Ideal sends each
    // as soon as it enters the window.
    let mk = || synth_gap(Pattern::Random, 1, 400, 4);
    let base = machine(1, false).run(&mut mk(), |_| {}).unwrap();
    let ideal = super::micro::machine_oracle(1, Oracle::MlpIdeal)
        .run(&mut mk(), |_| {})
        .unwrap();
    // The misses leave earlier but no more of them are in flight (the window
    // and the 16 MSHRs bound both runs alike), so the run is not faster: it
    // measured 4711 against 4636 cycles, MLP 4.43 against 4.44. In-window
    // clustering only moves misses (docs/oracles.md).
    assert!(ideal.per_core[0].runahead_requests > 0);
    assert_eq!(ideal.memory.llc_misses, base.memory.llc_misses);
    // 100 instructions apart, no second record ever fits in the window: nothing
    // is clustered and the run is the real core's.
    let mk = || synth_gap(Pattern::Random, 1, 400, 100);
    let base = machine(1, false).run(&mut mk(), |_| {}).unwrap();
    let ideal = super::micro::machine_oracle(1, Oracle::MlpIdeal)
        .run(&mut mk(), |_| {})
        .unwrap();
    assert_eq!(ideal.per_core[0].runahead_requests, 0);
    assert_eq!(ideal.cycles, base.cycles);
}

fn synth_gap(pattern: Pattern, cores: u32, n: u64, gap: u32) -> SynthSource {
    SynthSource::new(SynthParams {
        pattern,
        cores,
        records_per_core: n,
        max_gap: gap,
        write_every: 0,
        stride: 32,
        row_stride: 64 * 1024,
        seed: 11,
    })
}
