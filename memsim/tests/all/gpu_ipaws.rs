//! iPAWS, CCWS and the L1 access breakdown end to end (docs/gpu-ipaws.md): the
//! shipped iPAWS workloads, shrunk, on `gtx480-ipaws` with fewer SMs.

use std::sync::Arc;
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::config::{TbSchedKind, WarpSchedKind};
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
    run_tb(m, w, k, TbSchedKind::Rr, breakdown)
}

fn run_tb(
    m: &MachineConfig,
    w: &Arc<workload::Workload>,
    k: WarpSchedKind,
    tb: TbSchedKind,
    breakdown: bool,
) -> (GpuStats, GpuSim<weft_memsim::dram_backend::DdrBackend>) {
    let opts = GpuOptions {
        warp_sched: Some(k),
        tb_sched: Some(tb),
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

/// The pCKE / sCKE mix (`intra`'s GF kernel, instance 0, and `sc`'s RF kernel,
/// instance 1) shrunk for 4 SMs: 18 and 16 TBs, about 1.5 waves of 3 per SM
/// and kernel under sCKE.
fn mix() -> Arc<workload::Workload> {
    let text = include_str!("../../workloads/ipaws/mix.toml")
        .replace("GTBS = 72", "GTBS = 18")
        .replace("STBS = 64", "STBS = 16");
    Arc::new(workload::parse(&text, "mix").unwrap())
}

/// sCKE dispatch by dispatch: the kernels take turns over every SM, each SM
/// taking 3 TBs (24 warps, 768 threads: half of gtx480-ipaws's 48 warps) of
/// each; no kernel ever holds more than its half of an SM while the other has
/// TBs to dispatch. Round-robin dispatch, for contrast, fills SMs with the
/// first kernel.
#[test]
fn scke_splits_every_sm_between_the_kernels() {
    let m = machine(4);
    let w = mix();
    let (st, sim) = run_tb(&m, &w, WarpSchedKind::Gto, TbSchedKind::Scke, false);
    assert_eq!(st.tb_scheduler, "scke");
    let d = sim.dispatches();
    assert_eq!(d.len(), 34);
    let first: Vec<(u32, u32)> = d[..24].iter().map(|x| (x.kernel, x.sm)).collect();
    let want: Vec<(u32, u32)> = (0..12u32).flat_map(|i| [(0, i % 4), (1, i % 4)]).collect();
    assert_eq!(first, want, "turns, each kernel round-robin over all SMs");
    assert!(d[24].time > d[23].time + 100, "the halves are full");
    let r = sim.tb_policy_report().expect("report");
    for k in r["kernels"].as_array().unwrap() {
        assert_eq!(k["sms"], 4, "kernel {} on every SM", k["kernel"]);
        assert_eq!(k["max_tbs_per_sm_shared"], 3, "kernel {}", k["kernel"]);
    }
    let (_, rr) = run_tb(&m, &w, WarpSchedKind::Gto, TbSchedKind::Rr, false);
    let on0 = rr.dispatches()[..24]
        .iter()
        .filter(|x| x.kernel == 0 && x.sm == 0)
        .count();
    assert_eq!(
        on0, 5,
        "round-robin: kernel 0 holds 5 of SM 0's TBs, more than half"
    );
}

/// iPAWS under sCKE decides per kernel on the SMs that prioritise it: kernel 0
/// on an even SM, kernel 1 on an odd one, each classifying only its own warps
/// (at most its half, 24 of the SM's 48); the other SMs follow; every SM ends
/// each kernel in one Execute choice.
#[test]
fn ipaws_scke_decides_each_kernel_where_it_is_prioritised() {
    let m = machine(4);
    let w = mix();
    let (a, sim) = run_tb(&m, &w, WarpSchedKind::IpawsScke, TbSchedKind::Scke, false);
    assert_eq!(a.warp_scheduler, "ipaws-scke");
    let r = sim.warp_sched_ctx().ipaws_report().expect("report");
    assert_eq!(r.kernels.len(), 2);
    for k in &r.kernels {
        let by = k.decided_by.expect("decided");
        assert_eq!(
            by % 2,
            k.kernel % 2,
            "kernel {} decided on SM {by}",
            k.kernel
        );
        assert!(
            k.warps >= 1 && k.warps <= 24,
            "only its own warps: {}",
            k.warps
        );
        assert!(k.woi >= 1 && k.woi <= k.warps);
        assert!(k.choice == "gto" || k.choice == "lrr", "{}", k.choice);
        let rs: Vec<_> = r.records.iter().filter(|x| x.kernel == k.kernel).collect();
        assert_eq!(rs.len(), 4, "on every SM");
        for x in &rs {
            assert_eq!(x.decided_by, Some(by), "SM {} follows SM {by}", x.sm);
            assert_eq!(x.phase, rs[0].phase);
        }
    }
    let (b, _) = run_tb(&m, &w, WarpSchedKind::IpawsScke, TbSchedKind::Scke, false);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}

/// The static per-kernel oracle runs the same work as GTO under every
/// concurrent-kernel dispatcher.
#[test]
fn per_kernel_oracle_runs_the_same_work() {
    let m = machine(4);
    let w = mix();
    let (g, _) = run_tb(&m, &w, WarpSchedKind::Gto, TbSchedKind::Scke, false);
    for tb in [TbSchedKind::Rr, TbSchedKind::Pcke, TbSchedKind::Scke] {
        let (o, _) = run_tb(&m, &w, WarpSchedKind::GtoLrr, tb, false);
        assert_eq!(o.warp_instructions, g.warp_instructions);
        assert_eq!(o.warp_scheduler, "gto-lrr");
    }
}
