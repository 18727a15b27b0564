//! GPU engine tests (issue #30's list): RR dispatch, hand-computed latency through
//! the shared memory model, GTO vs LRR order, divergence, barriers, determinism,
//! and the L2-miss stream replayed through the DRAM model alone.

use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::dram_backend::{DdrBackend, Scheduler};
use weft_memsim::gpu::workload::expr::{BinOp, Builtin, Expr};
use weft_memsim::gpu::workload::{
    App, FuncId, Function, HostCmd, MemKind, MemOp, Op, Space, Stream, Tables, UnitClass, Var,
    Workload,
};
use weft_memsim::gpu::{GpuOptions, GpuSim};
use weft_memsim::metrics::ParallelismSummary;
use weft_memsim::simple_dram::SimpleDram;
use weft_memsim::system::{DramAddressing, DramBackend, DramDone, DramRequest};

pub fn c(v: i64) -> Expr {
    Expr::Const(v)
}
pub fn b(x: Builtin) -> Expr {
    Expr::Builtin(x)
}
pub fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
    Expr::Binary(op, Box::new(l), Box::new(r))
}
pub fn alu(n: u32, ilp: u32) -> Op {
    Op::Unit {
        class: UnitClass::Alu,
        n,
        ilp,
    }
}
pub fn load(addr: Expr, dest: Option<u16>) -> Op {
    Op::Mem(MemOp {
        kind: MemKind::Load,
        space: Space::Global,
        bits: 32,
        addr,
        dest: dest.map(Var),
        nc: false,
        bypass_l1: false,
    })
}

pub fn function(name: &str, block: u32, body: Vec<Op>) -> Function {
    Function {
        name: name.into(),
        block: [block, 1, 1],
        regs_per_thread: 16,
        smem_bytes: 0,
        params: vec![],
        var_names: (0..4).map(|i| format!("v{i}")).collect(),
        body,
    }
}

/// One app, one stream launching function 0 with `grid` TBs of `block` threads.
pub fn workload(f: Function, grid: u32, tables: Tables) -> Arc<Workload> {
    let block = f.block[0] as i64;
    Arc::new(Workload {
        origin: "test".into(),
        tables,
        functions: vec![f],
        apps: vec![App {
            name: "a".into(),
            streams: vec![Stream {
                id: 0,
                cmds: vec![HostCmd::Launch {
                    function: FuncId(0),
                    grid: [c(grid as i64), c(1), c(1)],
                    block: [c(block), c(1), c(1)],
                    args: vec![],
                }],
            }],
            var_names: vec![],
        }],
    })
}

pub fn k20c() -> MachineConfig {
    MachineConfig::preset("k20c-dtbl").unwrap()
}

/// The machine with one warp scheduler per SM (single-issue toys).
fn one_sched(mut cfg: MachineConfig) -> MachineConfig {
    cfg.gpu.as_mut().unwrap().schedulers_per_sm = 1;
    cfg
}

fn simple_dram(cfg: &mut MachineConfig, latency: u64) -> SimpleDram {
    // DRAM clock = SM clock, so DRAM cycles are SM cycles.
    let core_fs = 1_000_000_000 / cfg.core.freq_mhz as u64;
    cfg.dram.tck_ns = core_fs as f64 / 1e6;
    SimpleDram::new(cfg.dram.channels, 16, 256, latency, 128)
}

/// Digest §2.2: 100 TBs on a 13-SMX K20 give SMX0 <- 0, 13, 26; with 3 TBs per SM
/// TB 39 cannot go to SMX0, and goes to SMX4 when TB 17 (on SMX4) finishes first.
#[test]
fn rr_dispatch_100_tbs_on_13_sms() {
    let mut cfg = k20c();
    cfg.gpu.as_mut().unwrap().max_tbs_per_sm = 3;
    // TB 17 runs 1 instruction, the others a 2000-instruction dependent chain.
    let body = vec![Op::If {
        cond: bin(BinOp::Eq, b(Builtin::CtaidX), c(17)),
        then_: vec![alu(1, 1)],
        else_: vec![alu(2000, 1)],
    }];
    let wl = workload(function("k", 32, body), 100, Tables::new());
    let mut sim = GpuSim::build(&cfg, wl, &GpuOptions::default()).unwrap();
    let s = sim.run(|_| {}).unwrap();
    let d = sim.dispatches();
    assert_eq!(d.len(), 100);
    for (i, x) in d.iter().take(39).enumerate() {
        assert_eq!(x.index, i as u64, "TBs in id order");
        assert_eq!(x.sm, (i % 13) as u32, "TB {i}");
        assert_eq!(x.time, i as u64, "one TB per cycle");
    }
    assert_eq!(d[39].index, 39);
    assert_eq!(d[39].sm, 4, "TB 39 takes TB 17's slot on SMX4");
    assert_eq!(d[39].time, 39, "TB 17 had finished by then");
    // TB 40 has no free slot until the first long TB exits: TB 0 issues its `if`
    // at 0, the chain at 1, 5, .., 1 + 1999 * 4 = 7997, `exit` at 7998, and the
    // dispatcher sees the free slot the next cycle.
    assert_eq!(d[40].sm, 0);
    assert_eq!(d[40].time, 7999);
    assert_eq!(s.kernels.len(), 1);
    assert_eq!(
        s.kernels[0].warp_instructions,
        99 * (1 + 2000 + 1) + (1 + 1 + 1)
    );
}

/// One warp, one load missing in L1 and L2: its latency is LSU + L1 lookup +
/// crossbar request + L2 slice + DRAM + crossbar reply (5 flits of 32 B).
#[test]
fn one_load_latency_is_sum_of_parts() {
    let mut cfg = one_sched(k20c());
    let dram = simple_dram(&mut cfg, 100);
    let g = cfg.gpu.clone().unwrap();
    let mut t = Tables::new();
    let tab = t.add_table("x", 4, vec![7; 64]).unwrap();
    let addr = Expr::Addr(
        weft_memsim::gpu::workload::expr::TableRef::Table(tab),
        Box::new(c(0)),
    );
    // every lane loads the same word: one transaction
    let wl = workload(function("k", 32, vec![load(addr, Some(0))]), 1, t);
    let mut sim = GpuSim::with_dram(&cfg, wl, &GpuOptions::default(), dram).unwrap();
    let s = sim.run(|_| {}).unwrap();
    let lsu = g.lsu.latency as u64;
    let l1 = cfg.l1.hit_latency as u64;
    let xbar_req = g.crossbar_latency as u64; // 1 flit
    let xbar_reply = g.crossbar_latency as u64 + (128u64 + 8).div_ceil(32) - 1;
    let l2 = cfg.llc.hit_latency as u64;
    let dram_lat = 100;
    assert_eq!((lsu, l1, xbar_req, xbar_reply, l2), (4, 82, 8, 12, 120));
    // issue at cycle 0 (dispatch at 0), the warp exits at 1, the TB when the data returns
    assert_eq!(s.cycles, lsu + l1 + xbar_req + l2 + dram_lat + xbar_reply);
    assert_eq!(
        s.avg_mem_latency,
        (xbar_req + l2 + dram_lat + xbar_reply) as f64
    );
    assert_eq!(s.avg_network_latency, (xbar_req + xbar_reply) as f64);
    assert_eq!(s.avg_dram_latency, dram_lat as f64);
    assert_eq!((s.l1.misses, s.l2_requests, s.l2_hit_rate), (1, 1, 0.0));
    assert_eq!(s.warp_instructions, 2); // load, exit
}

/// Two warps of independent instructions: GTO issues all of warp 0 first, LRR
/// alternates.
#[test]
fn gto_versus_lrr_issue_order() {
    let order = |sched| {
        let cfg = one_sched(k20c());
        let wl = workload(function("k", 64, vec![alu(4, 4)]), 1, Tables::new());
        let opts = GpuOptions {
            warp_sched: Some(sched),
            ..Default::default()
        };
        let mut sim = GpuSim::build(&cfg, wl, &opts).unwrap();
        sim.enable_issue_trace();
        sim.run(|_| {}).unwrap();
        sim.issue_trace(0).iter().map(|r| r.age).collect::<Vec<_>>()
    };
    use weft_memsim::gpu::config::WarpSchedKind;
    // 4 alu + exit per warp
    assert_eq!(
        order(WarpSchedKind::Gto),
        vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    );
    assert_eq!(
        order(WarpSchedKind::Lrr),
        vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1]
    );
}

/// `if lane < 8 { alu 2 } else { alu 3 }`: the paths run one after the other;
/// warp activity = (32 + 2*8 + 3*24 + 32) / (7 * 32).
#[test]
fn divergence_serialises_if_else() {
    let cfg = one_sched(k20c());
    let body = vec![Op::If {
        cond: bin(BinOp::Lt, b(Builtin::Lane), c(8)),
        then_: vec![alu(2, 1)],
        else_: vec![alu(3, 1)],
    }];
    let wl = workload(function("k", 32, body), 1, Tables::new());
    let mut sim = GpuSim::build(&cfg, wl, &GpuOptions::default()).unwrap();
    sim.enable_issue_trace();
    let s = sim.run(|_| {}).unwrap();
    let masks: Vec<u32> = sim.issue_trace(0).iter().map(|r| r.mask).collect();
    assert_eq!(
        masks,
        vec![u32::MAX, 0xFF, 0xFF, !0xFF, !0xFF, !0xFF, u32::MAX]
    );
    assert_eq!(s.warp_instructions, 7);
    assert_eq!(s.thread_instructions, 32 + 16 + 72 + 32);
    assert!((s.warp_activity - 152.0 / 224.0).abs() < 1e-12);
    // dependent chains (SP latency 4): then at 1, 5; else after it at 6, 10, 14
    let cycles: Vec<u64> = sim.issue_trace(0).iter().map(|r| r.cycle).collect();
    assert_eq!(cycles, vec![0, 1, 5, 6, 10, 14, 15]);
}

/// `if warp == 0 { alu 50 }; bar; alu 1`: warp 1 reaches the barrier early and
/// issues nothing after it until warp 0 arrives.
#[test]
fn barrier_holds_every_warp_of_the_tb() {
    let cfg = one_sched(k20c());
    let body = vec![
        Op::If {
            cond: bin(BinOp::Eq, b(Builtin::Warp), c(0)),
            then_: vec![alu(50, 1)],
            else_: vec![],
        },
        Op::Bar,
        alu(1, 1),
    ];
    let wl = workload(function("k", 64, body), 1, Tables::new());
    let mut sim = GpuSim::build(&cfg, wl, &GpuOptions::default()).unwrap();
    sim.enable_issue_trace();
    let s = sim.run(|_| {}).unwrap();
    let tr = sim.issue_trace(0);
    // flat code: 0 If, 1 alu 50, 2 Bar, 3 alu 1, 4 Exit
    let bar0 = tr.iter().find(|r| r.age == 0 && r.pc == 2).unwrap().cycle;
    let bar1 = tr.iter().find(|r| r.age == 1 && r.pc == 2).unwrap().cycle;
    let after1 = tr.iter().find(|r| r.age == 1 && r.pc == 3).unwrap().cycle;
    assert!(bar1 < 10 && bar0 > 49 * 4, "{bar0} {bar1}");
    assert!(after1 > bar0, "warp 1 waited: {after1} > {bar0}");
    assert_eq!(s.warp_instructions, 2 * 4 + 50);
}

/// Resource utilisation, per-app statistics and shared-memory bank conflicts on a
/// one-TB toy: 64 threads (2 warps) with 16 registers each (512 per warp, two
/// allocation units of 256) and 1000 B of shared memory (1024 B in units of 256)
/// stay resident on one of the 13 SMs from the kernel's start to its end; each
/// warp's shared load with an 8-byte stride puts two words in each even bank
/// (a 2-way conflict, one replay cycle), its 4-byte-stride load none.
#[test]
fn resource_utilisation_apps_and_bank_conflicts() {
    let cfg = k20c();
    let g = cfg.gpu.clone().unwrap();
    let shared = |stride: i64| {
        Op::Mem(MemOp {
            kind: MemKind::Load,
            space: Space::Shared,
            bits: 32,
            addr: bin(BinOp::Mul, b(Builtin::TidX), c(stride)),
            dest: Some(Var(0)),
            nc: false,
            bypass_l1: false,
        })
    };
    let mut f = function("k", 64, vec![shared(8), shared(4), alu(20, 1)]);
    f.smem_bytes = 1000;
    let wl = workload(f, 1, Tables::new());
    let mut sim = GpuSim::build(&cfg, wl, &GpuOptions::default()).unwrap();
    let s = sim.run(|_| {}).unwrap();
    let k = &s.kernels[0];
    let resident = (k.end - k.start) as f64;
    let total = s.cycles as f64 * 13.0;
    let u = &s.resource_utilization;
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(
        u.registers,
        2.0 * 512.0 * resident / total / g.registers_per_sm as f64
    ));
    assert!(close(
        u.shared_memory,
        1024.0 * resident / total / g.smem_per_sm as f64
    ));
    assert!(close(
        u.threads,
        64.0 * resident / total / g.max_threads_per_sm as f64
    ));
    assert!(close(
        u.tb_slots,
        resident / total / g.max_tbs_per_sm as f64
    ));
    assert!(u.registers > 0.0);
    assert_eq!(s.shared_memory.accesses, 4);
    assert_eq!(s.shared_memory.bank_conflicts, 2);
    assert_eq!(s.shared_memory.replay_cycles, 2);
    assert_eq!(s.apps.len(), 1);
    let a = &s.apps[0];
    assert_eq!((a.name.as_str(), a.kernels), ("a", 1));
    assert_eq!((a.start, a.end), (k.start, k.end));
    assert_eq!(a.warp_instructions, s.warp_instructions);
    assert_eq!((k.app.as_str(), k.stream, k.tbs), ("a", 0, 1));
}

/// A streaming kernel: each thread loads `x[gtid + i * n]` for 4 i.
pub fn streaming(tbs: u32) -> Arc<Workload> {
    let mut t = Tables::new();
    let n = tbs as i64 * 256;
    let tab = t.add_table("x", 4, vec![1; (n * 4) as usize]).unwrap();
    let idx = bin(
        BinOp::Add,
        b(Builtin::Gtid),
        bin(BinOp::Mul, Expr::Var(Var(1)), c(n)),
    );
    let body = vec![Op::Loop {
        var: Var(1),
        lo: c(0),
        hi: c(4),
        body: vec![
            load(
                Expr::Addr(
                    weft_memsim::gpu::workload::expr::TableRef::Table(tab),
                    Box::new(idx),
                ),
                Some(0),
            ),
            Op::Unit {
                class: UnitClass::Fp,
                n: 2,
                ilp: 1,
            },
            Op::Let {
                var: Var(2),
                expr: bin(BinOp::Add, Expr::Var(Var(2)), Expr::Var(Var(0))),
            },
        ],
    }];
    workload(function("stream", 256, body), tbs, t)
}

#[test]
fn deterministic_on_reruns_and_with_a_dram_thread() {
    let cfg = k20c();
    let run = |thread: bool| {
        let opts = GpuOptions {
            dram_thread: thread,
            ..Default::default()
        };
        let mut sim = GpuSim::build(&cfg, streaming(64), &opts).unwrap();
        serde_json::to_string(&sim.run(|_| {}).unwrap()).unwrap()
    };
    let a = run(false);
    assert_eq!(a, run(false));
    assert_eq!(a, run(true));
    let s: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert!(s["dram"]["reads"].as_u64().unwrap() > 0);
    assert!(s["l1_hit_rate"].as_f64().unwrap() < 0.5);
}

/// Records every request the memory side hands to the DRAM model.
struct Recording {
    inner: DdrBackend,
    log: Vec<(usize, DramRequest, u64)>,
}

impl DramBackend for Recording {
    fn channels(&self) -> usize {
        self.inner.channels()
    }
    fn channel_of(&self, addr: u64) -> usize {
        self.inner.channel_of(addr)
    }
    fn bank_of(&self, addr: u64) -> u32 {
        self.inner.bank_of(addr)
    }
    fn num_banks(&self) -> u32 {
        self.inner.num_banks()
    }
    fn burst_bytes(&self) -> u64 {
        self.inner.burst_bytes()
    }
    fn try_enqueue(&mut self, ch: usize, req: DramRequest, now: u64) -> bool {
        let ok = self.inner.try_enqueue(ch, req, now);
        if ok {
            self.log.push((ch, req, now));
        }
        ok
    }
    fn next_event(&self) -> Option<u64> {
        self.inner.next_event()
    }
    fn advance_to(&mut self, t: u64, out: &mut Vec<DramDone>) {
        self.inner.advance_to(t, out)
    }
    fn blp_summary(&mut self) -> ParallelismSummary {
        self.inner.blp_summary()
    }
    fn stats_json(&mut self) -> serde_json::Value {
        self.inner.stats_json()
    }
    fn finish_input(&mut self) {
        self.inner.finish_input()
    }
    fn row_counts(&mut self) -> (u64, u64, u64) {
        self.inner.row_counts()
    }
    fn retarget(&self, addr: u64, bank: u32) -> u64 {
        self.inner.retarget(addr, bank)
    }
    fn notice_cycles(&self) -> u64 {
        self.inner.notice_cycles()
    }
    fn addressing(&self) -> Option<Arc<dyn DramAddressing>> {
        None
    }
}

/// The shared memory model: the DRAM requests of a GPU run (its L2 misses),
/// replayed at the same DRAM cycles through the DRAM model alone, give the same
/// DRAM statistics.
#[test]
fn l2_miss_stream_replays_to_the_same_dram_stats() {
    let cfg = k20c();
    let ddr = || DdrBackend::new(&cfg.dram, Scheduler::FrFcfs, 1).unwrap();
    let rec = Recording {
        inner: ddr(),
        log: Vec::new(),
    };
    let mut sim = GpuSim::with_dram(&cfg, streaming(32), &GpuOptions::default(), rec).unwrap();
    let s = sim.run(|_| {}).unwrap();
    let log = std::mem::take(&mut sim.memory_mut().dram_mut().log);
    assert!(log.len() > 1000, "{}", log.len());
    let mut alone = ddr();
    let mut out = Vec::new();
    for (ch, req, now) in log {
        assert!(alone.try_enqueue(ch, req, now));
    }
    alone.finish_input();
    while let Some(t) = alone.next_event() {
        alone.advance_to(t, &mut out);
    }
    let mut gpu_side = s.dram.clone();
    gpu_side.as_object_mut().unwrap().remove("efficiency");
    assert_eq!(alone.stats_json(), gpu_side);
}

/// Speed probe (not a check): `cargo test -p weft-memsim --test all gpu_speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn gpu_speed() {
    let machine = std::env::var("GPU_SPEED_MACHINE").unwrap_or("k20c-dtbl".into());
    let cfg = MachineConfig::preset(&machine).unwrap();
    for (app, graph) in [
        ("stream", None),
        ("bfs", Some("../../../shared/data/metis/mdual.graph")),
    ] {
        let wl = Arc::new(
            weft_memsim::gpu::workload::builtin(app, graph.map(std::path::Path::new)).unwrap(),
        );
        let mut sim = GpuSim::build(&cfg, wl, &GpuOptions::default()).unwrap();
        let t0 = std::time::Instant::now();
        let s = sim.run(|_| {}).unwrap();
        let secs = t0.elapsed().as_secs_f64();
        println!(
            "{app}: {} warp instructions, {} cycles, {:.3} s, {:.0} /s",
            s.warp_instructions,
            s.cycles,
            secs,
            s.warp_instructions as f64 / secs
        );
    }
}

/// GDDR5 on the DDR engine (gtx480-ipaws, iPAWS Table 1 timing at 924 MHz): a read of
/// a closed bank costs tRCD + tCL + tBL = 12 + 12 + 2 (BL8 at four transfers per
/// clock); a row hit right after it follows tCCD = 2 later.
#[test]
fn gddr5_closed_bank_read_and_row_hit() {
    use weft_memsim::dram::{DramSystem, MemRequest};
    let cfg = MachineConfig::preset("gtx480-ipaws").unwrap();
    let mut dram = DramSystem::new(&cfg.dram).unwrap();
    dram.advance_to(10);
    for (i, addr) in [0x1000u64, 0x1040].into_iter().enumerate() {
        dram.try_enqueue(
            10,
            MemRequest {
                addr,
                is_write: false,
                source: 0,
                tag: i as u64,
            },
        )
        .unwrap();
    }
    while let Some(t) = dram.next_event() {
        dram.advance_to(t + 1);
    }
    let mut done = Vec::new();
    dram.drain_completions(u64::MAX, &mut done);
    assert_eq!(done.len(), 2);
    done.sort_by_key(|c| c.tag);
    assert_eq!(done[0].done, 10 + 12 + 12 + 2);
    assert_eq!(done[1].done, done[0].done + 2);
}
