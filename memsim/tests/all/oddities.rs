//! Regression tests for two oddities of the memory side: DRAM writes in a run
//! that never stores, and an LLC fill of a line that a private write-back had
//! already allocated while the fetch was out at DRAM.

use weft_memsim::config::MachineConfig;
use weft_memsim::core::{Op, OpKind};
use weft_memsim::manycore::VecSource;
use weft_memsim::run::{build, RunOptions};

/// `table5.2` with a small LLC (4 sets per bank) so a modest footprint evicts.
fn small_llc() -> MachineConfig {
    let mut cfg = MachineConfig::preset("table5.2").unwrap();
    cfg.llc.size_bytes = 36 * 16 * 128 * 4;
    cfg
}

fn dram_writes(s: &weft_memsim::manycore::RunStats) -> u64 {
    s.dram["writes"].as_u64().expect("dram.writes")
}

fn reads(lines: impl Iterator<Item = u64>) -> Vec<Op> {
    lines
        .map(|l| Op {
            gap: 1,
            kind: OpKind::Read,
            addr: l * 128,
        })
        .collect()
}

/// Several cores read the same lines (so the directory moves lines from an
/// exclusive owner to sharers) over a footprint larger than the LLC: nothing is
/// ever written, so no line may become dirty and DRAM must see no write.
#[test]
fn read_only_sharing_writes_nothing_back() {
    let cfg = small_llc();
    let n = 36 * 16 * 4 * 4; // 4x the LLC
    let per_core: Vec<Vec<Op>> = (0..4)
        .map(|c| reads((0..n).map(move |i| (i + c * 7) % n)))
        .collect();
    let mut m = build(&cfg, &RunOptions::default()).unwrap();
    let s = m.run(&mut VecSource::new(per_core), |_| {}).unwrap();
    assert!(
        s.memory.invalidations > 0,
        "the test must exercise owner forwarding"
    );
    let fetched = s.memory.llc_misses - s.memory.llc_mshr_merges + s.memory.prefetches_filled;
    assert!(
        fetched > n / 4 + 64,
        "the test must evict ({fetched} lines fetched)"
    );
    assert_eq!(
        s.memory.llc_writebacks, 0,
        "clean lines written back to DRAM"
    );
    assert_eq!(dram_writes(&s), 0);
}

/// How the fill/write-back overlap arises: a private cache writes a line back to
/// its home LLC bank while a fetch of that line is out at DRAM (the LLC had
/// evicted it — without inclusion nothing recalls the private copy, and with
/// inclusion the recall and a new miss race on the NoC). The write-back
/// allocates the line dirty; the later fill must find it resident, keep it
/// once in its set and keep it dirty, so its eviction still writes it to DRAM.
#[test]
fn fill_after_writeback_allocated_the_line_keeps_it_dirty() {
    use weft_memsim::cache::CacheGeometry;
    use weft_memsim::noc::{Mesh, NocParams};
    use weft_memsim::simple_dram::SimpleDram;
    use weft_memsim::system::{
        ClockRatio, Completion, MemOracle, MemRequest, MemorySystem, ReqKind, SystemParams,
    };
    let mesh = Mesh::new(6, 6);
    let p = SystemParams {
        requesters: 2,
        requester_nodes: vec![0, 1],
        mesh: mesh.clone(),
        noc: NocParams {
            router_cycles: 3,
            link_cycles: 1,
            request_flits: 1,
            data_flits: 5,
        },
        // one set of two ways per bank
        llc_bank: CacheGeometry {
            size_bytes: 256,
            ways: 2,
            line_bytes: 128,
        },
        llc_nodes: (0..36).collect(),
        llc_latency: 10,
        llc_port_cycles: 10,
        llc_mshrs: 8,
        mc_nodes: mesh.corners(),
        prefetch: None,
        coherence: false,
        max_outstanding: 8,
        clocks: ClockRatio {
            core_fs: 1000,
            dram_fs: 1000,
        },
        epoch: 2500,
        oracle: MemOracle::default(),
    };
    let mut mem = MemorySystem::new(p, SimpleDram::new(4, 8, 2048, 50, 128));
    let run = |mem: &mut MemorySystem<SimpleDram>,
               done: &mut Vec<Completion>,
               reqs: &[(u32, u64, ReqKind)],
               t0: u64| {
        for (i, &(r, addr, kind)) in reqs.iter().enumerate() {
            let t = t0 + i as u64;
            mem.advance_to(t);
            mem.issue(
                MemRequest {
                    requester: r,
                    addr,
                    kind,
                    token: addr,
                },
                t,
            )
            .unwrap();
        }
        let mut t = t0 + reqs.len() as u64;
        while !mem.is_idle() {
            t = mem.next_event_time().unwrap_or(t + 1).max(t);
            mem.advance_to(t);
        }
        mem.drain_completions(done);
        t + 1
    };
    // line 0 (bank 0): requester 0 misses; requester 1's write-back of the same
    // line reaches the bank one access later, while the fetch is out at DRAM
    let mut done: Vec<Completion> = Vec::new();
    let t = run(
        &mut mem,
        &mut done,
        &[(0, 0, ReqKind::Read), (1, 0, ReqKind::Writeback)],
        0,
    );
    assert_eq!(done.len(), 1, "the demand read completes once");
    // lines 36 and 72 map to bank 0's only set: two more lines evict line 0
    let t = run(&mut mem, &mut done, &[(0, 36 * 128, ReqKind::Read)], t);
    let t = run(&mut mem, &mut done, &[(0, 72 * 128, ReqKind::Read)], t);
    // line 0 was resident once (else a stale copy could hit) and dirty
    let t = run(&mut mem, &mut done, &[(0, 0, ReqKind::Read)], t);
    let s = mem.finish(t);
    assert_eq!(s.demand_requests, 4);
    assert_eq!(s.llc_hits, 0, "line 0 must have been evicted exactly once");
    assert_eq!(
        s.llc_writebacks, 1,
        "the written-back data of line 0 must reach DRAM"
    );
}
