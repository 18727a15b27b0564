//! Fine-grained TB management tests (issue #33, `gpu-seeds.md` §8.6 item 6):
//! the usage table predicts a repeated invocation from the previous one, a
//! preempted TB's context costs its bytes both ways and the TB finishes its
//! work, and no TB is preempted while the victim queue is full.

use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::fgtb::context::context_bytes;
use weft_memsim::gpu::fgtb::manager::{ManageOptions, ManageReport, TbRecord};
use weft_memsim::gpu::fgtb::{FgtbConfig, TbManage, FPU, MEM};
use weft_memsim::gpu::workload::{self, Workload};
use weft_memsim::gpu::{GpuOptions, GpuSim, GpuStats};

/// V100-like SMs, `sms` of them.
fn machine(sms: usize) -> MachineConfig {
    let mut cfg = MachineConfig::preset("v100-fgtb").unwrap();
    cfg.core.count = sms as u32;
    cfg
}

struct Run {
    stats: GpuStats,
    report: ManageReport,
    records: Vec<TbRecord>,
    lane_mem_ops: u64,
}

fn run(sms: usize, wl: &Arc<Workload>, mode: TbManage, cfg: FgtbConfig) -> Run {
    let opts = GpuOptions {
        seed: 1,
        tb_manage: Some(ManageOptions {
            mode,
            cfg,
            oracle: Default::default(),
        }),
        ..Default::default()
    };
    let mut sim = GpuSim::build(&machine(sms), wl.clone(), &opts).unwrap();
    let stats = sim.run(|_| {}).unwrap();
    let m = sim.tb_manager().unwrap();
    Run {
        stats,
        report: m.report(),
        records: m.records().to_vec(),
        lane_mem_ops: sim.lane_mem_ops(),
    }
}

/// Two classes of TB by block index: even blocks chase scattered lines (32
/// transactions per load, the miss queue fills: memory throttle), odd blocks
/// run dependent-free `fp` chains. The kernel runs twice on one stream.
fn two_class() -> Arc<Workload> {
    let text = r#"
[[buffer]]
name = "big"
len = 8388608

[[function]]
name = "phase"
block = [128]
regs_per_thread = 32
body = '''
if ctaid.x % 2 == 0 {
  loop i in 0..40 {
    v = load.g32 big[(hash(gtid, i) % 65536) * 32]
  }
} else {
  loop i in 0..160 {
    fp 16 ilp=4
  }
}
'''

[[app]]
name = "two"
cmds = '''
launch phase grid=[8]
wait
launch phase grid=[8]
wait
'''
"#;
    Arc::new(workload::parse(text, "two_class").unwrap())
}

/// The usage table predicts each TB of the second invocation from the TB with
/// the same stream and block index in the first, and the prediction is the
/// class the TB then shows.
#[test]
fn usage_table_predicts_the_repeated_invocation() {
    let wl = two_class();
    let r = run(2, &wl, TbManage::FineGrained, FgtbConfig::default());
    assert_eq!(r.records.len(), 16);
    let class = |l: [u8; 2]| l[MEM] > l[FPU];
    for b in 0..8u64 {
        let first = r
            .records
            .iter()
            .find(|x| x.info.kernel == 0 && x.info.key.block == b);
        let second = r
            .records
            .iter()
            .find(|x| x.info.kernel == 1 && x.info.key.block == b);
        let (first, second) = (first.unwrap(), second.unwrap());
        // unseen in the first invocation
        assert_eq!(first.placed.0, [0, 0], "block {b}");
        let measured = first.exited.unwrap();
        // placed with what the first invocation measured...
        assert_eq!(second.placed, measured, "block {b}");
        // ...which is the class it shows again
        let again = second.exited.unwrap();
        assert_eq!(
            class(again.0),
            class(second.placed.0),
            "block {b}: {again:?}"
        );
        assert_eq!(class(again.0), b % 2 == 0, "block {b}: {again:?}");
    }
    let [updates, _, hits, lookups] = r.report.rut.unwrap();
    assert!(
        hits >= 8 && lookups >= 16 && updates >= 16,
        "{:?}",
        r.report.rut
    );
}

/// TBs that turn from floating-point work to scattered loads halfway: on one
/// SM with several of them resident, their memory levels rise together and
/// oversubscribe the SM.
fn turns_memory_bound(tbs: u32) -> Arc<Workload> {
    let text = format!(
        r#"
[[buffer]]
name = "big"
len = 8388608

[[function]]
name = "turn"
block = [128]
regs_per_thread = 32
smem_bytes = 1024
body = '''
loop i in 0..120 {{
  fp 16 ilp=4
}}
loop i in 0..60 {{
  v = load.g32 big[(hash(gtid, i) % 65536) * 32]
}}
'''

[[app]]
name = "turn"
cmds = 'launch turn grid=[{tbs}]'
"#
    );
    Arc::new(workload::parse(&text, "turn").unwrap())
}

/// Preempted TBs are restored and finish their work; each save and each
/// restore moves the TB's registers and shared memory in whole lines.
#[test]
fn preempted_context_costs_its_bytes_and_work_is_kept() {
    let wl = turns_memory_bound(8);
    let base = run(1, &wl, TbManage::None, FgtbConfig::default());
    let r = run(1, &wl, TbManage::FineGrained, FgtbConfig::default());
    assert!(r.report.preemptions > 0, "{:?}", r.report);
    assert_eq!(r.report.restores, r.report.preemptions);
    let bytes = context_bytes(128, 32, 1024);
    assert_eq!(bytes, 17408);
    let lines = bytes.div_ceil(128);
    assert_eq!(
        r.report.context_bytes,
        2 * r.report.preemptions * lines * 128,
        "{:?}",
        r.report
    );
    // a restore takes at least its lines' round trip; a save its port time
    assert!(r.report.restore_cycles > 100.0, "{:?}", r.report);
    assert!(r.report.save_cycles >= (lines * 5) as f64, "{:?}", r.report);
    // the same work as without management
    assert_eq!(r.lane_mem_ops, base.lane_mem_ops);
    assert_eq!(r.stats.warp_instructions, base.stats.warp_instructions);
    assert_eq!(r.records.iter().filter(|x| x.exited.is_some()).count(), 8);
}

/// With no room in the victim queue nothing is preempted (the refusals are
/// counted); with one entry at most one TB is out at a time.
#[test]
fn no_preemption_while_the_victim_queue_is_full() {
    let wl = turns_memory_bound(8);
    let full = FgtbConfig {
        vq_capacity: 0,
        ..FgtbConfig::default()
    };
    let r = run(1, &wl, TbManage::FineGrained, full);
    assert_eq!(r.report.preemptions, 0);
    assert!(r.report.vq_full > 0, "{:?}", r.report);
    let one = FgtbConfig {
        vq_capacity: 1,
        ..FgtbConfig::default()
    };
    let r = run(1, &wl, TbManage::FineGrained, one);
    assert!(r.report.preemptions > 0, "{:?}", r.report);
    assert_eq!(r.report.vq_peak, 1);
}

/// The LSU-input side of the memory throttle, by hand: one TB of three warps
/// on one SM (one warp per scheduler) issues, in one cycle, one load of 32
/// distinct lines per warp. The LSU takes one transaction per cycle
/// (`lsu.ii` = 1) from `lsu.latency` after issue, so the work ahead of the three warps is
/// 0, 32 and 64 transactions; each waits for what exceeds `lsu_queue` (8):
/// 0 + 24 + 56 = 80 warp-cycles. The third warp's lines find the 64 L1 MSHRs
/// taken and wait in the miss queue, but no warp issues a second memory
/// instruction, so none is blocked on it. (A fourth warp would be: it finds
/// the miss queue full.) The counts are the same with `lsu_input` off, but
/// then the metric ignores them (level 0).
#[test]
fn lsu_input_throttle_by_hand() {
    let text = r#"
[[buffer]]
name = "big"
len = 8388608

[[function]]
name = "scatter"
block = [96]
regs_per_thread = 32
body = '''
v = load.g32 big[gtid * 32]
'''

[[app]]
name = "one"
cmds = 'launch scatter grid=[1]'
"#;
    let wl = Arc::new(workload::parse(text, "scatter").unwrap());
    let on = run(1, &wl, TbManage::None, FgtbConfig::default());
    assert_eq!(on.report.exits, 1);
    assert_eq!(on.report.throttle_cycles, [0, 80]);
    let cycles = on.stats.kernels[0].end - on.stats.kernels[0].start;
    assert!(on.report.exit_raw[MEM] > 0.0);
    assert!(
        on.report.exit_raw[MEM] >= 80.0 / (3.0 * cycles as f64),
        "{} over {cycles} cycles",
        on.report.exit_raw[MEM]
    );
    let off = run(
        1,
        &wl,
        TbManage::None,
        FgtbConfig {
            lsu_input: false,
            ..FgtbConfig::default()
        },
    );
    assert_eq!(off.report.throttle_cycles, [0, 80]);
    assert_eq!(off.report.exit_raw[MEM], 0.0);
    assert_eq!(off.report.exit_levels[MEM], 0);
    assert_eq!(off.stats.cycles, on.stats.cycles);
}
