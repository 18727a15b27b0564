//! Hand-computed micro-traces on the manycore model with the fixed-latency DRAM.

use weft_memsim::cache::CacheGeometry;
use weft_memsim::core::{CoreParams, Op, OpKind};
use weft_memsim::manycore::{Manycore, VecSource};
use weft_memsim::noc::{Mesh, NocParams};
use weft_memsim::simple_dram::SimpleDram;
use weft_memsim::system::{ClockRatio, SystemParams};

pub const ROUTER: u64 = 3;
pub const LINK: u64 = 1;
pub const DATA_FLITS: u64 = 9;
pub const L1_LAT: u64 = 2;
pub const LLC_LAT: u64 = 10;
pub const DRAM_LAT: u64 = 50;

/// 6x6 mesh, 36 LLC banks (128 B lines, round-robin), 4 MCs at the corners,
/// fixed-latency DRAM with 4 channels x 8 banks interleaved every 2 KB.
pub fn machine(cores: u32, prefetch: bool) -> Manycore<SimpleDram> {
    machine_with(cores, prefetch, true)
}

/// [`machine`] with directory coherence on or off.
pub fn machine_with(cores: u32, prefetch: bool, coherence: bool) -> Manycore<SimpleDram> {
    build(
        cores,
        prefetch,
        coherence,
        weft_memsim::oracle::Oracle::None,
    )
}

/// [`machine`] under an oracle mode.
pub fn machine_oracle(cores: u32, oracle: weft_memsim::oracle::Oracle) -> Manycore<SimpleDram> {
    build(cores, false, true, oracle)
}

fn build(
    cores: u32,
    prefetch: bool,
    coherence: bool,
    oracle: weft_memsim::oracle::Oracle,
) -> Manycore<SimpleDram> {
    let mesh = Mesh::new(6, 6);
    let cp = CoreParams {
        width: 2,
        rob: 64,
        l1: CacheGeometry {
            size_bytes: 16 * 1024,
            ways: 8,
            line_bytes: 32,
        },
        l1_latency: L1_LAT,
        l1_mshrs: 16,
        mshr_targets: 8,
        write_buffer: 8,
        l2: None,
        coherence,
        lookahead: oracle.lookahead(64),
    };
    let sp = SystemParams {
        requesters: cores,
        requester_nodes: (0..cores).collect(),
        mesh: mesh.clone(),
        noc: NocParams {
            router_cycles: ROUTER,
            link_cycles: LINK,
            request_flits: 1,
            data_flits: DATA_FLITS,
        },
        llc_bank: CacheGeometry {
            size_bytes: 512 * 1024,
            ways: 16,
            line_bytes: 128,
        },
        llc_nodes: (0..36).collect(),
        llc_latency: LLC_LAT,
        llc_port_cycles: LLC_LAT,
        llc_mshrs: 128,
        mc_nodes: mesh.corners(),
        prefetch: prefetch.then_some(weft_memsim::prefetch::PrefetchParams {
            streams: 32,
            degree: 4,
            distance: 64,
            train_window: 16,
            stride: false,
            page_lines: 0,
            mshrs: 0,
        }),
        coherence,
        max_outstanding: 64,
        clocks: ClockRatio {
            core_fs: 1000,
            dram_fs: 1000,
        },
        epoch: 2500,
        oracle: oracle.memory_side(2048),
    };
    let dram = SimpleDram::new(4, 8, 2048, DRAM_LAT, 128);
    Manycore::new(cores, cp, sp, dram).unwrap()
}

fn hop_lat(h: u64, flits: u64) -> u64 {
    if h == 0 {
        0
    } else {
        h * (ROUTER + LINK) + flits - 1
    }
}

#[test]
fn one_core_one_miss_latency_is_sum_of_parts() {
    let mesh = Mesh::new(6, 6);
    // address 0x1a80: LLC line 53 -> bank 53 % 36 = 17 at (5,2); DRAM bank
    // (0x1a80 / 2048) % 32 = 3 -> channel 0 -> MC at node 0.
    let addr = 0x1a80u64;
    let (bank, mc) = (17u32, 0u32);
    let mut m = machine(1, false);
    let mut src = VecSource::new(vec![vec![Op {
        gap: 0,
        kind: OpKind::Read,
        addr,
    }]]);
    let s = m.run(&mut src, |_| {}).unwrap();
    let req = hop_lat(mesh.hops(0, bank) as u64, 1); // 7 hops * 4 = 28
    let to_mc = hop_lat(mesh.hops(bank, mc) as u64, 1);
    let from_mc = hop_lat(mesh.hops(mc, bank) as u64, DATA_FLITS);
    let reply = hop_lat(mesh.hops(bank, 0) as u64, DATA_FLITS);
    let expected = L1_LAT + req + LLC_LAT + to_mc + DRAM_LAT + from_mc + reply;
    assert_eq!(req, 28);
    assert_eq!(expected, 2 + 28 + 10 + 28 + 50 + 36 + 36);
    assert_eq!(s.cycles, expected, "{s:#?}");
    assert_eq!(s.memory.llc_misses, 1);
    // Latency split (from issue at L1_LAT): network + LLC + DRAM.
    assert_eq!(s.avg_mem_latency, (expected - L1_LAT) as f64);
    assert_eq!(
        s.avg_network_latency,
        (req + to_mc + from_mc + reply) as f64
    );
    assert_eq!(s.avg_llc_latency, LLC_LAT as f64);
    assert_eq!(s.avg_dram_latency, DRAM_LAT as f64);
    assert_eq!(s.mlp, 1.0);
    assert_eq!(s.clp, 1.0);
}

#[test]
fn llc_hit_latency_and_l1_hit() {
    // Core 0 misses twice on the same LLC line (two L1 lines); the second is an LLC hit
    // once the first has filled the bank: gap 300 puts it after the fill.
    let addr = 0x1a80u64;
    let mut m = machine(1, false);
    let ops = vec![
        Op {
            gap: 0,
            kind: OpKind::Read,
            addr,
        },
        Op {
            gap: 600,
            kind: OpKind::Read,
            addr: addr + 32,
        },
        Op {
            gap: 0,
            kind: OpKind::Read,
            addr: addr + 36,
        },
    ];
    let mut src = VecSource::new(vec![ops]);
    let s = m.run(&mut src, |_| {}).unwrap();
    assert_eq!(s.memory.demand_requests, 2);
    assert_eq!(s.memory.llc_hits, 1);
    assert_eq!(
        s.per_core[0].l1_hits, 0,
        "third access merges into the second's MSHR"
    );
    assert_eq!(s.per_core[0].l1_misses, 3);
    // hit latency: request 28 + LLC 10 + data reply 36
    let hit = 28 + LLC_LAT + 36;
    let miss = 28 + 10 + 28 + 50 + 36 + 36;
    assert_eq!(s.avg_mem_latency, (hit + miss) as f64 / 2.0);
}

#[test]
fn two_cores_on_one_llc_bank_queue_at_its_port() {
    // Core 0 (node 0) and core 2 (node 2) are both 1 hop from bank 1 (node 1): their
    // requests arrive together and the second waits one access at the bank port.
    let addr_bank1 = 128u64; // line 1 -> bank 1
                             // Coherence off: with it, core 1 would own the line and core 0's read would also
                             // pay an invalidation whose acknowledgement shares the 1->0 link.
    let mut m = machine_with(3, false, false);
    // warm the LLC: core 1 (at the bank's node) reads the line first, long before.
    let ops0 = vec![Op {
        gap: 1000,
        kind: OpKind::Read,
        addr: addr_bank1,
    }];
    let ops1 = vec![Op {
        gap: 0,
        kind: OpKind::Read,
        addr: addr_bank1 + 64,
    }];
    let ops2 = vec![Op {
        gap: 1000,
        kind: OpKind::Read,
        addr: addr_bank1 + 32,
    }];
    let mut src = VecSource::new(vec![ops0, ops1, ops2]);
    let s = m.run(&mut src, |_| {}).unwrap();
    assert_eq!(s.memory.llc_hits, 2);
    let req = 4; // 1 hop
    let reply = 4 + DATA_FLITS - 1;
    let first = req + LLC_LAT + reply;
    let second = first + LLC_LAT; // queued behind the first at the port
                                  // core 0 steps before core 2 in the same cycle, so it gets the port first
    assert_eq!(s.per_core[0].cycles, 500 + L1_LAT + first);
    assert_eq!(s.per_core[2].cycles, 500 + L1_LAT + second);
}

#[test]
fn runs_are_deterministic() {
    let mk = || {
        let mut ops = Vec::new();
        for c in 0..4u64 {
            let mut v = Vec::new();
            let mut x = c * 7 + 1;
            for i in 0..3000u64 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let addr = if i % 3 == 0 {
                    (x >> 20) % (1 << 26)
                } else {
                    (c << 24) | (i * 8)
                };
                let kind = if x % 5 == 0 {
                    OpKind::Write
                } else {
                    OpKind::Read
                };
                v.push(Op {
                    gap: (x % 7) as u32,
                    kind,
                    addr,
                });
            }
            ops.push(v);
        }
        VecSource::new(ops)
    };
    let a = serde_json::to_string(&machine(4, true).run(&mut mk(), |_| {}).unwrap()).unwrap();
    let b = serde_json::to_string(&machine(4, true).run(&mut mk(), |_| {}).unwrap()).unwrap();
    assert_eq!(a, b);
}

/// Barriers: core 0 arrives at once, core 1 after 400 non-memory
/// instructions (width 2: its last two retire at cycle 200, so it arrives at
/// 200); both go on at 201. Core 0's miss then takes the one-miss latency of
/// `one_core_one_miss_latency_is_sum_of_parts` (190), it retires at 391 and
/// arrives at the second barrier, where core 1 waits since 201; released at
/// 392, both finish. The tagged pair times the region: 392 - 201.
#[test]
fn barriers_hold_every_core_until_the_last_arrives() {
    use weft_memsim::trace::BarrierPhase;
    let b = |gap: u32, phase: BarrierPhase| Op {
        gap,
        kind: OpKind::Barrier,
        addr: phase as u64,
    };
    let read = Op {
        gap: 0,
        kind: OpKind::Read,
        addr: 0x1a80,
    };
    let mut m = machine(2, false);
    let mut src = VecSource::new(vec![
        vec![
            b(0, BarrierPhase::RegionStart),
            read,
            b(0, BarrierPhase::RegionEnd),
        ],
        vec![
            b(400, BarrierPhase::RegionStart),
            b(0, BarrierPhase::RegionEnd),
        ],
    ]);
    let s = m.run(&mut src, |_| {}).unwrap();
    assert_eq!(s.cycles, 392, "{s:#?}");
    assert_eq!(
        (s.barriers, s.region_cycles, s.inspection_cycles),
        (2, 191, 0)
    );
    assert_eq!(s.records, 1, "barriers are not records");
    assert_eq!(s.per_core[0].barriers, 2);
    assert_eq!(s.per_core[0].barrier_wait_cycles, 201 + 1);
    assert_eq!(s.per_core[1].barrier_wait_cycles, 1 + 191);

    // A core that has finished its stream does not hold a barrier: core 1
    // waits only until core 0 (no barrier at all) is done, at 190.
    let mut m = machine(2, false);
    let mut src = VecSource::new(vec![vec![read], vec![b(0, BarrierPhase::None), read]]);
    let s = m.run(&mut src, |_| {}).unwrap();
    assert_eq!(s.per_core[0].cycles, 190);
    assert_eq!(s.per_core[1].barrier_wait_cycles, 191);
    assert!(s.per_core[1].cycles > 191, "{s:#?}");
}
