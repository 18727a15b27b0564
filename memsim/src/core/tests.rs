//! Hand-computed checks of the core's miss-handling limits on a one-core
//! 6x6-mesh machine with the fixed-latency DRAM (the `tests/all/micro.rs`
//! machine): MSHR targets (issue #36 part 1) and the prefetch budget of the
//! prefetcher's level.

use super::{CoreParams, Op, OpKind};
use crate::cache::CacheGeometry;
use crate::manycore::{Manycore, RunStats, VecSource};
use crate::noc::{Mesh, NocParams};
use crate::prefetch::PrefetchParams;
use crate::simple_dram::SimpleDram;
use crate::system::{ClockRatio, SystemParams};

const L1_LAT: u64 = 2;

fn run(targets: u32, rob: u32, prefetch_mshrs: Option<u32>, ops: Vec<Op>) -> RunStats {
    let mesh = Mesh::new(6, 6);
    let cp = CoreParams {
        width: 2,
        rob,
        l1: CacheGeometry {
            size_bytes: 16 * 1024,
            ways: 8,
            line_bytes: 32,
        },
        l1_latency: L1_LAT,
        l1_mshrs: 16,
        mshr_targets: targets,
        write_buffer: 8,
        l2: None,
        coherence: true,
        lookahead: 0,
    };
    let sp = SystemParams {
        requesters: 1,
        requester_nodes: vec![0],
        mesh: mesh.clone(),
        noc: NocParams {
            router_cycles: 3,
            link_cycles: 1,
            request_flits: 1,
            data_flits: 9,
        },
        llc_bank: CacheGeometry {
            size_bytes: 512 * 1024,
            ways: 16,
            line_bytes: 128,
        },
        llc_nodes: (0..36).collect(),
        llc_latency: 10,
        llc_port_cycles: 10,
        llc_mshrs: 128,
        mc_nodes: mesh.corners(),
        prefetch: prefetch_mshrs.map(|mshrs| PrefetchParams {
            streams: 32,
            degree: 4,
            distance: 64,
            train_window: 16,
            stride: false,
            page_lines: 0,
            mshrs,
        }),
        coherence: true,
        max_outstanding: 64,
        clocks: ClockRatio {
            core_fs: 1000,
            dram_fs: 1000,
        },
        epoch: 2500,
        oracle: crate::system::MemOracle::default(),
    };
    let dram = SimpleDram::new(4, 8, 2048, 50, 128);
    let mut m = Manycore::new(1, cp, sp, dram).unwrap();
    m.run(&mut VecSource::new(vec![ops]), |_| {}).unwrap()
}

fn load(addr: u64) -> Op {
    Op {
        gap: 0,
        kind: OpKind::Read,
        addr,
    }
}

/// Three loads of one line: with 8 targets all three merge into the miss and
/// complete with its fill at cycle 190 (the single-miss latency of address
/// 0x1a80 in `tests/all/micro.rs`: 2 + 28 + 10 + 28 + 50 + 36 + 36); two
/// retire then, the third one cycle later (2-wide retire): 191. With 2 targets
/// the third load cannot dispatch until the fill frees the MSHR; it dispatches
/// at 190, hits the L1 and completes at 190 + L1_LAT = 192, retiring then.
#[test]
fn mshr_targets_bound_merged_accesses() {
    let ops = vec![load(0x1a80), load(0x1a88), load(0x1a90)];
    let wide = run(8, 64, None, ops.clone());
    assert_eq!(wide.cycles, 191, "{wide:#?}");
    assert_eq!(wide.memory.llc_misses, 1);
    let narrow = run(2, 64, None, ops);
    assert_eq!(narrow.cycles, 190 + L1_LAT, "{narrow:#?}");
    assert_eq!(narrow.memory.llc_misses, 1);
}

/// A sequential stream of loads, one at a time (ROB of one instruction): the
/// requester has exactly one demand miss in flight whenever its prefetcher
/// fires. With a budget of one MSHR that miss takes it and no prefetch is ever
/// issued; with two, at most one prefetch is in flight, so fewer are issued
/// than with an unbounded budget (0).
#[test]
fn prefetches_share_the_levels_mshrs_with_demand_misses() {
    let ops: Vec<Op> = (0..64u64).map(|i| load(i * 128)).collect();
    let unbounded = run(8, 1, Some(0), ops.clone()).memory.prefetches_issued;
    let one = run(8, 1, Some(1), ops.clone()).memory.prefetches_issued;
    let two = run(8, 1, Some(2), ops).memory.prefetches_issued;
    assert!(unbounded > 0);
    assert_eq!(one, 0);
    assert!(two > 0 && two < unbounded, "{two} vs {unbounded}");
}
