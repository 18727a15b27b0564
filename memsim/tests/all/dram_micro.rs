//! Exact micro-tests of the DRAM timing model, with hand-computed cycles.
//! Configuration: the `dramsim3-ddr4-2400` preset (tCL = tRCD = tRP = 17,
//! tRAS = 39, tBL = 4, tRRD_S = 4, tFAW = 26), refresh off, no command queues.

use weft_memsim::addrmap::DramAddr;
use weft_memsim::config::{BankArbitration, DramConfig, MachineConfig, SchedulerKind};
use weft_memsim::dram::{Completion, DramSystem, MemRequest};

fn cfg() -> DramConfig {
    let mut c = MachineConfig::preset("dramsim3-ddr4-2400").unwrap().dram;
    c.refresh = false;
    c.bank_queue_entries = 0;
    c.row_hit_cap = 0;
    c.bank_arbitration = BankArbitration::Oldest;
    c
}

fn addr(sys: &DramSystem, bankgroup: u32, bank: u32, row: u32, column: u32) -> u64 {
    sys.mapping().encode(&DramAddr {
        channel: 0,
        rank: 0,
        bankgroup,
        bank,
        row,
        column,
    })
}

/// Enqueue `reqs` = (cycle, addr) in order (several may share a cycle), run to the end.
fn run(sys: &mut DramSystem, reqs: &[(u64, u64)]) -> Vec<Completion> {
    let mut out = Vec::new();
    for (i, &(t, a)) in reqs.iter().enumerate() {
        sys.advance_to(t);
        sys.try_enqueue(
            t,
            MemRequest {
                addr: a,
                is_write: false,
                source: 0,
                tag: i as u64,
            },
        )
        .unwrap();
    }
    sys.finish_input();
    sys.run_until_drained();
    sys.drain_completions(u64::MAX, &mut out);
    out.sort_by_key(|c| c.tag);
    out
}

#[test]
fn closed_bank_costs_trcd_plus_tcl() {
    let mut s = DramSystem::new(&cfg()).unwrap();
    let a = addr(&s, 0, 0, 5, 0);
    let c = run(&mut s, &[(0, a)]);
    // ACT@0, RD@17 (tRCD), data 17+17 .. +4
    assert_eq!(c[0].done, 17 + 17 + 4);
    let st = s.stats();
    assert_eq!((st.row_hits, st.row_misses, st.row_conflicts), (0, 1, 0));
}

#[test]
fn row_hit_costs_tcl_after_the_column_command() {
    let mut s = DramSystem::new(&cfg()).unwrap();
    let a = addr(&s, 0, 0, 5, 0);
    let b = addr(&s, 0, 0, 5, 3);
    let c = run(&mut s, &[(0, a), (100, b)]);
    // RD@100 (row open), first data at 100 + tCL, burst ends 4 cycles later
    assert_eq!(c[1].done, 100 + 17 + 4);
    let st = s.stats();
    assert_eq!((st.row_hits, st.row_misses, st.row_conflicts), (1, 1, 0));
}

#[test]
fn row_conflict_pays_trp_trcd_tcl() {
    let mut s = DramSystem::new(&cfg()).unwrap();
    let a = addr(&s, 0, 0, 5, 0);
    let b = addr(&s, 0, 0, 9, 0);
    let c = run(&mut s, &[(0, a), (200, b)]);
    // PRE@200, ACT@217 (tRP), RD@234 (tRCD), data 234+17..+4
    assert_eq!(c[1].done, 200 + 17 + 17 + 17 + 4);
    let st = s.stats();
    assert_eq!((st.row_hits, st.row_misses, st.row_conflicts), (0, 1, 1));
    assert_eq!(st.commands.pre, 1);
    assert_eq!(st.commands.act, 2);
}

#[test]
fn fr_fcfs_serves_younger_hit_before_older_conflict() {
    let mut s = DramSystem::new(&cfg()).unwrap();
    let open = addr(&s, 0, 0, 5, 0);
    let conflict = addr(&s, 0, 0, 9, 0);
    let hit = addr(&s, 0, 0, 5, 1);
    let c = run(&mut s, &[(0, open), (100, conflict), (100, hit)]);
    // hit: RD@100 -> 121. conflict: PRE@max(101, 100+tRTP=109), ACT@126, RD@143 -> 164
    assert_eq!(c[2].done, 121);
    assert_eq!(c[1].done, 164);

    let mut f = cfg();
    f.scheduler = SchedulerKind::Fcfs;
    let mut s = DramSystem::new(&f).unwrap();
    let c = run(&mut s, &[(0, open), (100, conflict), (100, hit)]);
    // conflict first: PRE@100, ACT@117, RD@134 -> 155; then the former hit is a
    // conflict: PRE@max(134+tRTP=143, 117+tRAS=156), ACT@173, RD@190 -> 211
    assert_eq!(c[1].done, 155);
    assert_eq!(c[2].done, 211);
}

#[test]
fn tfaw_limits_a_burst_of_activates() {
    let mut s = DramSystem::new(&cfg()).unwrap();
    // five banks in bank groups 0,1,2,3,0: ACTs at 0,4,8,12 (tRRD_S), the fifth
    // waits for tFAW: 0 + 26 = 26 (tRRD_L from the first ACT of its group is only 6)
    let reqs: Vec<(u64, u64)> = [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1)]
        .iter()
        .map(|&(g, b)| (0, addr(&s, g, b, 1, 0)))
        .collect();
    let c = run(&mut s, &reqs);
    let done: Vec<u64> = c.iter().map(|c| c.done).collect();
    // RDs at 17, 21, 25, 29 (tCCD_S = 4 across groups), fifth RD at 26 + 17 = 43
    assert_eq!(done, vec![38, 42, 46, 50, 64]);

    let mut nofaw = cfg();
    nofaw.timing.tFAW = 1;
    let mut s = DramSystem::new(&nofaw).unwrap();
    let c = run(&mut s, &reqs);
    // without tFAW the fifth ACT goes at 16, its RD at 33
    assert_eq!(c[4].done, 33 + 21);
}

#[test]
fn blp_of_two_overlapping_banks() {
    let mut s = DramSystem::new(&cfg()).unwrap();
    let a = addr(&s, 0, 0, 1, 0);
    let b = addr(&s, 1, 0, 1, 0);
    let c = run(&mut s, &[(0, a), (0, b)]);
    // bank A serves [0, 38), bank B [4, 42): (38 + 38) / 42
    assert_eq!((c[0].done, c[1].done), (38, 42));
    let st = s.stats();
    assert!((st.blp - 76.0 / 42.0).abs() < 1e-12, "{}", st.blp);
    assert_eq!(st.cycles, 42);
}

#[test]
fn full_read_queue_refuses() {
    let mut s = DramSystem::new(&cfg()).unwrap();
    for i in 0..32u64 {
        s.try_enqueue(
            0,
            MemRequest {
                addr: i << 20,
                is_write: false,
                source: 0,
                tag: i,
            },
        )
        .unwrap();
    }
    assert!(s
        .try_enqueue(
            0,
            MemRequest {
                addr: 33 << 20,
                is_write: false,
                source: 0,
                tag: 33
            }
        )
        .is_err());
    // writes have their own queue
    assert!(s
        .try_enqueue(
            0,
            MemRequest {
                addr: 34 << 20,
                is_write: true,
                source: 0,
                tag: 34
            }
        )
        .is_ok());
}

#[test]
fn refresh_delays_an_access_by_trfc() {
    let mut c = cfg();
    c.refresh = true;
    let mut s = DramSystem::new(&c).unwrap();
    let a = addr(&s, 0, 0, 1, 0);
    let done = run(&mut s, &[(9360, a)]);
    // REF@9360 (tREFI; all banks closed), ACT@9360+420, RD +17, data +17+4
    assert_eq!(done[0].done, 9360 + 420 + 17 + 17 + 4);
    assert_eq!(s.stats().commands.refresh, 1);
}

#[test]
fn write_then_read_is_forwarded() {
    let mut s = DramSystem::new(&cfg()).unwrap();
    let a = addr(&s, 0, 0, 1, 0);
    s.try_enqueue(
        0,
        MemRequest {
            addr: a,
            is_write: true,
            source: 0,
            tag: 0,
        },
    )
    .unwrap();
    s.try_enqueue(
        0,
        MemRequest {
            addr: a + 8,
            is_write: false,
            source: 0,
            tag: 1,
        },
    )
    .unwrap();
    s.finish_input();
    s.run_until_drained();
    let mut out = Vec::new();
    s.drain_completions(u64::MAX, &mut out);
    out.sort_by_key(|c| c.tag);
    assert_eq!(out[1].done, 1);
    // the write: ACT@0, WR@17, data 17 + tCWL .. + tBL
    assert_eq!(out[0].done, 17 + 12 + 4);
    assert_eq!(s.stats().forwarded_reads, 1);
}
