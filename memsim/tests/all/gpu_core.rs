//! GPU core timing and statistics on hand-computed toys: shared-memory bank
//! conflicts delay the warp and the shared-memory pipe, and the per-epoch time
//! series (IPC, occupancy, resource utilisation) with idle epochs left out.

use super::gpu::{b, bin, c, function, k20c, workload};
use weft_memsim::gpu::workload::expr::{BinOp, Builtin};
use weft_memsim::gpu::workload::{HostCmd, MemKind, MemOp, Op, Space, Tables, UnitClass, Var};
use weft_memsim::gpu::{GpuOptions, GpuSim};

fn one_sched(mut cfg: weft_memsim::config::MachineConfig) -> weft_memsim::config::MachineConfig {
    cfg.gpu.as_mut().unwrap().schedulers_per_sm = 1;
    cfg
}

/// Two warps, one scheduler: `v0 = shared load at tid.x * 16` (4 distinct words in
/// each of 8 banks: a 4-way conflict, 3 replays), then `if v0 == 0 { alu 1 }`.
/// Warp 0's load issues at 0 and holds the banks until 4, so warp 1's load issues
/// at 4 (not 1); each warp's data comes at issue + smem_latency + 3, when its
/// `if` issues, then `alu` and `exit` one cycle apart.
#[test]
fn bank_conflicts_delay_the_warp_and_the_banks() {
    let cfg = one_sched(k20c());
    let l = cfg.gpu.as_ref().unwrap().smem_latency as u64;
    let body = vec![
        Op::Mem(MemOp {
            kind: MemKind::Load,
            space: Space::Shared,
            bits: 32,
            addr: bin(BinOp::Mul, b(Builtin::TidX), c(16)),
            dest: Some(Var(0)),
            nc: false,
            bypass_l1: false,
        }),
        Op::If {
            cond: bin(
                BinOp::Eq,
                weft_memsim::gpu::workload::Expr::Var(Var(0)),
                c(0),
            ),
            then_: vec![Op::Unit {
                class: UnitClass::Alu,
                n: 1,
                ilp: 1,
            }],
            else_: vec![],
        },
    ];
    let wl = workload(function("k", 64, body), 1, Tables::new());
    let mut sim = GpuSim::build(&cfg, wl, &GpuOptions::default()).unwrap();
    sim.enable_issue_trace();
    let s = sim.run(|_| {}).unwrap();
    let tr: Vec<(u64, u64)> = sim
        .issue_trace(0)
        .iter()
        .map(|r| (r.age, r.cycle))
        .collect();
    assert_eq!(
        tr,
        vec![
            (0, 0),
            (1, 4),
            (0, l + 3),
            (0, l + 4),
            (0, l + 5),
            (1, 4 + l + 3),
            (1, 4 + l + 4),
            (1, 4 + l + 5),
        ]
    );
    assert_eq!(s.shared_memory.accesses, 2);
    assert_eq!(s.shared_memory.bank_conflicts, 2);
    assert_eq!(s.shared_memory.replay_cycles, 6);
    assert_eq!(s.cycles, 4 + l + 5);
}

/// Time series on a toy with idle gaps: two launches of one warp running
/// `alu 10` (SP latency 4: issues at start + 4k, k < 10, exit at start + 37),
/// on a stream with a wait between them, a KMU latency of 1000 cycles and epochs
/// of 10 cycles. Only the epochs with a resident TB or an issue are reported
/// (9 of the run's 208: 4 for the first launch, 5 for the second), each with the hand count of instructions and the
/// resident fraction of its cycles.
#[test]
fn time_series_per_epoch_skips_idle_epochs() {
    let mut cfg = one_sched(k20c());
    cfg.epoch_cycles = 10;
    cfg.gpu.as_mut().unwrap().kmu_latency = 1000;
    let g = cfg.gpu.clone().unwrap();
    let f = function(
        "k",
        32,
        vec![Op::Unit {
            class: UnitClass::Alu,
            n: 10,
            ilp: 1,
        }],
    );
    let mut wl = (*workload(f, 1, Tables::new())).clone();
    let launch = wl.apps[0].streams[0].cmds[0].clone();
    wl.apps[0].streams[0].cmds = vec![launch.clone(), HostCmd::Wait, launch];
    let mut sim = GpuSim::build(&cfg, std::sync::Arc::new(wl), &GpuOptions::default()).unwrap();
    let s = sim.run(|_| {}).unwrap();
    let starts: Vec<u64> = s.kernels.iter().map(|k| k.start).collect();
    // the KMU makes each launch visible 1000 cycles after it (the second one is
    // launched when the first ends)
    assert_eq!(starts, vec![1000, 1000 + 37 + 1000]);
    assert_eq!(s.cycles, starts[1] + 37);
    // the hand model: issue times and residency per cycle
    let cycles = s.cycles;
    let mut issues = vec![0u64; (cycles / 10 + 1) as usize];
    let mut resident = vec![0u64; issues.len()];
    for &st in &starts {
        for x in (0..10).map(|k| st + 4 * k).chain([st + 37]) {
            issues[(x.min(cycles - 1) / 10) as usize] += 1;
        }
        for x in st..st + 37 {
            resident[(x / 10) as usize] += 1;
        }
    }
    let n = 13.0;
    let mut want = Vec::new();
    for e in 0..issues.len() {
        if issues[e] == 0 && resident[e] == 0 {
            continue;
        }
        let start = e as u64 * 10;
        let len = (start + 10).min(cycles) - start;
        let r = resident[e] as f64 / (len as f64 * n);
        want.push((
            start,
            len,
            issues[e],
            r / g.max_warps_per_sm() as f64,
            r * 512.0 / g.registers_per_sm as f64,
            r * 32.0 / g.max_threads_per_sm as f64,
            r / g.max_tbs_per_sm as f64,
        ));
    }
    let got: Vec<_> = s
        .epochs
        .iter()
        .map(|e| {
            assert_eq!(e.shared_memory, 0.0);
            assert!((e.ipc - e.warp_instructions as f64 / e.cycles as f64).abs() < 1e-12);
            (
                e.start,
                e.cycles,
                e.warp_instructions,
                e.occupancy,
                e.registers,
                e.threads,
                e.tb_slots,
            )
        })
        .collect();
    assert_eq!(got.len(), 9, "{got:?}");
    for (a, w) in got.iter().zip(&want) {
        assert_eq!((a.0, a.1, a.2), (w.0, w.1, w.2));
        for (x, y) in [(a.3, w.3), (a.4, w.4), (a.5, w.5), (a.6, w.6)] {
            assert!((x - y).abs() < 1e-12, "{a:?} {w:?}");
        }
    }
    assert_eq!(got.len(), want.len());
    let total: u64 = s.epochs.iter().map(|e| e.warp_instructions).sum();
    assert_eq!(total, s.warp_instructions);
}
