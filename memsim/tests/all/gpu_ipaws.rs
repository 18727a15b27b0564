//! iPAWS, CCWS and the L1 access breakdown end to end (docs/gpu-ipaws.md): the
//! shipped iPAWS workloads, shrunk, on `gtx480-ipaws` with fewer SMs.

use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::config::WarpSchedKind;
use weft_memsim::gpu::workload;
use weft_memsim::gpu::{GpuOptions, GpuSim, GpuStats};

/// `gtx480-ipaws` with `sms` SMs.
fn machine(sms: u32) -> MachineConfig {
    let mut m = MachineConfig::preset("gtx480-ipaws").unwrap();
    m.core.count = sms;
    m
}

/// A shipped iPAWS workload with `TBS` replaced.
fn wl(name: &str, tbs: u32) -> Arc<workload::Workload> {
    let text = match name {
        "intra" => include_str!("../../workloads/ipaws/intra.toml"),
        "sc" => include_str!("../../workloads/ipaws/sc.toml"),
        "kmn" => include_str!("../../workloads/ipaws/kmn.toml"),
        _ => unreachable!(),
    };
    let start = text.find("TBS = ").expect("TBS") + "TBS = ".len();
    let digits = text[start..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let text = format!("{}{tbs}{}", &text[..start], &text[start + digits..]);
    Arc::new(workload::parse(&text, name).unwrap())
}

fn run(
    m: &MachineConfig,
    w: &Arc<workload::Workload>,
    k: WarpSchedKind,
    breakdown: bool,
) -> (GpuStats, GpuSim<weft_memsim::dram_backend::DdrBackend>) {
    let opts = GpuOptions {
        warp_sched: Some(k),
        seed: 1,
        ..Default::default()
    };
    let mut sim = GpuSim::build(m, w.clone(), &opts).unwrap();
    if breakdown {
        sim.enable_l1_breakdown();
    }
    let s = sim.run(|_| {}).unwrap();
    (s, sim)
}

/// Collecting the breakdown changes nothing else; its totals are the L1's reads.
#[test]
fn breakdown_is_passive_and_complete() {
    let m = machine(2);
    let w = wl("sc", 4);
    let (a, _) = run(&m, &w, WarpSchedKind::Gto, false);
    let (b, sim) = run(&m, &w, WarpSchedKind::Gto, true);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let bd = sim.l1_breakdown();
    let all: u64 = bd.iter().map(|k| k.all.total()).sum();
    let one: u64 = bd.iter().map(|k| k.one.total()).sum();
    assert_eq!(all, b.l1.reads, "every read lookup classified once");
    assert!(one > 0 && one < all, "ONE stops at the first warp's end");
    // the centre lines are shared: inter-warp hits exist
    assert!(bd[0].all.n[1] > 0);
}

/// iPAWS decides per kernel, every SM follows the first decision, and runs are
/// deterministic.
#[test]
fn ipaws_decides_per_kernel_and_is_deterministic() {
    let m = machine(2);
    let w = wl("kmn", 8);
    let (a, sim) = run(&m, &w, WarpSchedKind::Ipaws, false);
    let r = sim.warp_sched_ctx().ipaws_report().expect("report");
    assert_eq!(r.kernels.len(), 2);
    for k in &r.kernels {
        assert!(k.decided_by.is_some());
        assert!(k.woi >= 1 && k.woi <= k.warps);
        assert!(k.adapt_share > 0.0 && k.adapt_share <= 1.0);
    }
    // both SMs of a kernel end in the deciding SM's Execute choice
    for k in &r.kernels {
        let phases: Vec<_> = r.records.iter().filter(|x| x.kernel == k.kernel).collect();
        assert_eq!(phases.len(), 2);
    }
    let (b, _) = run(&m, &w, WarpSchedKind::Ipaws, false);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    assert_eq!(a.warp_scheduler, "ipaws");
}

/// CCWS throttles on lost intra-warp locality and still completes the work.
#[test]
fn ccws_runs_the_same_work() {
    let m = machine(2);
    let w = wl("intra", 4);
    let (g, _) = run(&m, &w, WarpSchedKind::Gto, false);
    let (c, _) = run(&m, &w, WarpSchedKind::Ccws, false);
    assert_eq!(g.warp_instructions, c.warp_instructions);
    assert_eq!(c.warp_scheduler, "ccws");
}

/// MASCAR on a memory-bound workload: the memory path saturates, owners are
/// appointed and handed over, the other memory warps are held back, the LSU
/// re-executes hits past refused lookups, and the same work completes.
#[test]
fn mascar_saturates_hands_over_and_completes() {
    let m = machine(2);
    let w = wl("sc", 4);
    let (g, gsim) = run(&m, &w, WarpSchedKind::Gto, false);
    assert!(
        gsim.mascar_report().is_none(),
        "no MASCAR counters under GTO"
    );
    let (a, sim) = run(&m, &w, WarpSchedKind::Mascar, false);
    assert_eq!(a.warp_scheduler, "mascar");
    assert_eq!(g.warp_instructions, a.warp_instructions);
    let r = sim.mascar_report().expect("report");
    let s = r.sched;
    eprintln!("{r:?}");
    assert!(
        s.saturated_steps > 0 && s.saturated_steps < s.steps,
        "{s:?}"
    );
    assert!(s.handovers > 1 && s.releases > 0, "{s:?}");
    assert!(s.held_back > 0, "{s:?}");
    // while saturated only owners issue memory instructions, and not all of
    // them are issued then
    assert!(s.mem_issued_saturated > 0, "{s:?}");
    assert!(s.mem_issued_saturated < s.mem_issued, "{s:?}");
    assert!(r.reexec_hits > 0, "{r:?}");
    let (b, sim2) = run(&m, &w, WarpSchedKind::Mascar, false);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    assert_eq!(sim2.mascar_report(), Some(r));
}

/// iPAWS over MASCAR decides per kernel (two kernels of KMN) and completes the
/// same work; MASCAR ran in its Adapt phase.
#[test]
fn ipaws_mascar_decides_per_kernel() {
    let m = machine(2);
    let w = wl("kmn", 8);
    let (g, _) = run(&m, &w, WarpSchedKind::Gto, false);
    let (a, sim) = run(&m, &w, WarpSchedKind::IpawsMascar, false);
    assert_eq!(a.warp_scheduler, "ipaws-mascar");
    assert_eq!(g.warp_instructions, a.warp_instructions);
    let r = sim.warp_sched_ctx().ipaws_report().expect("iPAWS report");
    assert_eq!(r.kernels.len(), 2);
    for k in &r.kernels {
        assert!(k.decided_by.is_some());
        assert!(["gto", "lrr"].contains(&k.choice.as_str()), "{}", k.choice);
    }
    let s = sim.mascar_report().expect("MASCAR counters").sched;
    assert!(s.steps > 0 && s.mem_issued > 0, "{s:?}");
}
