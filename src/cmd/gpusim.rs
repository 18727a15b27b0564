//! `weft gpusim`: run a GPU workload on a GPU machine preset (`weft_memsim::gpu`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{anyhow, Context};
use weft_memsim::config::MachineConfig;
use weft_memsim::gpu::config::{KernelOrder, TbSchedKind, WarpSchedKind};
use weft_memsim::gpu::dp::{DpMode, DpStats};
use weft_memsim::gpu::{workload, GpuOptions, GpuSim, GpuStats};

/// Simulate a GPU workload (cycle-level SMs on the shared memory model).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  weft gpusim --machine k20c-dtbl --app bfs                      # shipped BFS on its R-MAT graph
  weft gpusim --machine gtx480-ipaws --app stream --warp-sched lrr --json
  weft gpusim --machine k20-spawn --app bfs --graph graphs/cit-HepTh.relabeled.edges   # a shipped graph (data/)
  weft gpusim --machine my-gpu.toml --workload kernels.toml --quiet
  weft gpusim --machine k20c-dtbl --app bfs --dp dtbl            # device launches as DTBL groups
  weft gpusim --machine v100-fgtb --app bfs --tb-manage fine-grained   # FGTB TB management
  weft gpusim --machine k20c-dtbl --app bfs --perturb 4 --seed 3      # one sample of the noise floor
  weft gpusim --app bfs --dp dtbl --tb-sched adaptive-bind        # LaPerm under DTBL
  weft gpusim --machine k20-spawn --app join_uniform -D nr=204800 --dp spawn   # the papers' probe count
  weft gpusim reuse --app bfs --dp cdp --out r                    # reuse characterisation
  weft gpusim --machine gtx480-ipaws --workload memsim/workloads/ipaws/sc.toml --warp-sched ipaws --l1-breakdown --json

Machines (GPU presets): k20c-dtbl, k20-spawn, gtx480-ipaws, v100-fgtb, or a TOML file with a
[gpu] table. Shipped apps: bfs, sssp, clr, spmv, stencil2d, matmul, kmeans, stream. Graphs: Matrix
Market (.mtx), METIS (.graph) or edge lists. The workload format is in docs/gpu-workloads.md,
the engine in docs/gpu.md.")]
pub struct Args {
    /// GPU machine preset or TOML file.
    #[arg(long, value_name = "PRESET|FILE", default_value = "k20c-dtbl")]
    pub machine: String,
    /// Workload file (TOML).
    #[arg(long, value_name = "FILE", conflicts_with = "app")]
    pub workload: Option<PathBuf>,
    /// A shipped workload by name.
    #[arg(long, value_name = "NAME")]
    pub app: Option<String>,
    /// Graph file replacing the shipped workload's generated graph; a relative path that
    /// does not exist names a file of the shipped data (`metis/4elt.graph`).
    #[arg(long, value_name = "FILE", requires = "app")]
    pub graph: Option<PathBuf>,
    /// Give a constant of the workload's `[defs]` another value, as a C
    /// compiler's `-D` (repeatable): `--define nr=204800` runs `join_uniform`
    /// with 204,800 probes. The name must be one the workload defines.
    #[arg(long, short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    pub define: Vec<(String, i64)>,
    /// Warp scheduler: lrr | gto | two-level | ipaws | ipaws-ind | ipaws-scke | gto-lrr |
    /// lrr-gto | gto-gto | lrr-lrr | ccws | ipaws-ccws | mascar | ipaws-mascar | owl |
    /// laser-groups (default: the machine's). `ipaws` adapts between GTO and LRR per
    /// kernel on the first SM's decision, `ipaws-ind` on each SM's own, `ipaws-scke` for
    /// kernels sharing SMs (`--tb-sched scke`: SM pairs each prioritising and deciding
    /// for one kernel), `ipaws-ccws` between CCWS and LRR, `ipaws-mascar` between MASCAR
    /// and LRR; `gto-lrr` is the static per-kernel oracle (GTO for even kernel
    /// instances, LRR for odd; also `per-kernel=gto,lrr`) (docs/gpu-ipaws.md).
    #[arg(long, value_name = "POLICY")]
    pub warp_sched: Option<String>,
    /// iPAWS's instruction-issue stall counter: greedy (cycles a warp is the
    /// greedy warp and stalled; default) or walk (stalled warps GTO's walk reaches
    /// before the issuing warp).
    #[arg(long, value_name = "greedy|walk", value_parser = ["greedy", "walk"])]
    pub ipaws_stall: Option<String>,
    /// Collect the L1 access breakdown per kernel (intra-/inter-warp hits and
    /// misses, cold misses; until the first warp ends and over the kernel): the
    /// JSON gets `l1_breakdown`.
    #[arg(long)]
    pub l1_breakdown: bool,
    /// Thread-block dispatcher: rr, tb-pri, smx-bind, adaptive-bind (LaPerm),
    /// laser, or owl (OWL-locality's co-located neighbouring TBs; pair it with
    /// `--warp-sched owl`), laser-oracle=kernel|wg|wavefront (LASER's oracle;
    /// profiles a round-robin run first), pcke (SMs partitioned among
    /// concurrent kernels) or scke (every SM's resources split equally among
    /// concurrent kernels) (default: the machine's).
    #[arg(long, value_name = "POLICY")]
    pub tb_sched: Option<String>,
    /// Kernel order of the rr dispatcher when several kernels have TBs left:
    /// fcfs (a later kernel only where the earliest one's next TB does not fit;
    /// the Kepler kernel distributor) or rotate (each TB from the next kernel,
    /// as GPGPU-Sim 3.x does) (default: the machine's `kernel_order`).
    #[arg(long, value_name = "ORDER")]
    pub kernel_order: Option<String>,
    /// Device launches (dynamic parallelism): flat (every launch site runs its
    /// inline path), cdp, cdpi (CDP without launch latency), dtbl, dtbli, spawn,
    /// spawn-q (SPAWN launching blind only into an empty queue; flags -req, -clamp
    /// select session 6's t_overhead and n_con readings, docs/gpu-dp.md), or threshold=<n>
    /// (Baseline-DP: launch where the site's workload exceeds n).
    /// Default: flat, with no device-launch statistics.
    #[arg(long, value_name = "MODE")]
    pub dp: Option<String>,
    /// Thread-block management (FGTB, docs/gpu-tbm.md): none, static-oracle
    /// (per-kernel average levels from a profiling run, no preemption), profiler
    /// (kernel-wide running levels with preemption) or fine-grained (per-TB
    /// levels, usage table, preemption). Default: the plain dispatcher.
    #[arg(long, value_name = "MODE")]
    pub tb_manage: Option<String>,
    /// Seed; equal inputs and seed give byte-identical output.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Perturbed run: every request to a memory controller arrives 0..=N
    /// cycles late, uniformly, drawn from `--seed` (as `weft sim --perturb`;
    /// Alameldeen and Wood, HPCA 2003). Runs under several seeds show how far a
    /// difference between two policies stands above the simulation's noise.
    /// 0 = off.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub perturb: u32,
    /// Print the statistics as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Threads: 1, or 2 to run the DRAM model on a thread of its own (identical
    /// results; default: 2 when the host has two or more cores).
    #[arg(long, value_name = "1|2", value_parser = clap::value_parser!(u32).range(1..=2))]
    pub threads: Option<u32>,
    /// `reuse`: the offline reuse characterisation instead of a plain run.
    #[command(subcommand)]
    pub sub: Option<Sub>,
}

/// `weft gpusim` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Offline data-reuse characterisation of a run's tagged L1 trace (LASER
    /// ratios, histograms, chains, reuse distances; LaPerm shared footprints).
    Reuse(super::gpusim_reuse::Args),
}

/// Loads the workload named by `--workload` or `--app` / `--graph`.
pub fn load_workload(
    file: Option<&std::path::Path>,
    app: Option<&str>,
    graph: Option<&std::path::Path>,
    defines: &[(String, i64)],
) -> anyhow::Result<workload::Workload> {
    let opts = workload::Options {
        defines: defines.to_vec(),
        ..Default::default()
    };
    match (file, app) {
        (Some(f), _) => {
            workload::load_with(f, &opts).with_context(|| format!("loading {}", f.display()))
        }
        (None, Some(a)) => {
            let shipped;
            let graph = match graph {
                // A relative path that does not exist names a shipped input
                // (`--graph metis/4elt.graph`), unpacked from `data/` on first use.
                Some(g) if g.is_relative() && !g.exists() => {
                    shipped = weft_testsuite::data::require(g)?;
                    Some(shipped.as_path())
                }
                g => g,
            };
            let opts = workload::Options {
                graph: graph.map(std::path::Path::to_path_buf),
                ..opts
            };
            workload::builtin_with(a, &opts).with_context(|| format!("building app `{a}`"))
        }
        (None, None) => Err(anyhow!(
            "give --workload <file.toml> or --app <name> ({})",
            workload::builtin_names().join(", ")
        )),
    }
}

/// `NAME=VALUE` of `--define` (the value an integer, as `[defs]` holds).
pub fn parse_define(s: &str) -> Result<(String, i64), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: expected NAME=VALUE"))?;
    let k = k.trim();
    if k.is_empty() {
        return Err(format!("`{s}`: the name is empty"));
    }
    let v = v.trim().replace('_', "");
    let v = v
        .parse::<i64>()
        .map_err(|_| format!("`{s}`: the value `{v}` is not an integer"))?;
    Ok((k.to_string(), v))
}

/// Parses the policy options.
pub fn options(args: &Args) -> anyhow::Result<GpuOptions> {
    let warp_sched = args
        .warp_sched
        .as_deref()
        .map(|s| {
            WarpSchedKind::parse(s).ok_or_else(|| {
                anyhow!("unknown warp scheduler `{s}` (expected lrr, gto, two-level, ipaws, ipaws-ind, ipaws-scke, gto-lrr, lrr-gto, gto-gto, lrr-lrr, ccws, ipaws-ccws, mascar, ipaws-mascar, owl or laser-groups)")
            })
        })
        .transpose()?;
    let tb_sched = args
        .tb_sched
        .as_deref()
        .map(|s| {
            TbSchedKind::parse(s).ok_or_else(|| {
                anyhow!(
                    "unknown TB scheduler `{s}` (expected {})",
                    TbSchedKind::NAMES.join(", ")
                )
            })
        })
        .transpose()?;
    let dp = args
        .dp
        .as_deref()
        .map(|s| {
            DpMode::parse(s).ok_or_else(|| {
                anyhow!("unknown --dp mode `{s}` (expected flat, cdp, cdpi, dtbl, dtbli, spawn[-q][-req][-clamp] or threshold=<n>)")
            })
        })
        .transpose()?;
    Ok(GpuOptions {
        warp_sched,
        tb_sched,
        seed: args.seed,
        dram_thread: super::sim::dram_thread(args.threads),
        app: None,
        dp,
        tb_manage: None,
    })
}

/// Runs the simulation.
pub fn run(mut args: Args) -> anyhow::Result<()> {
    if let Some(Sub::Reuse(r)) = args.sub.take() {
        return super::gpusim_reuse::run(r);
    }
    let mut machine =
        MachineConfig::load(&args.machine).context("loading the machine configuration")?;
    if let Some(o) = args.kernel_order.as_deref() {
        KernelOrder::apply(&mut machine, o).map_err(|e| anyhow!("--kernel-order: {e}"))?;
    }
    let mut opts = options(&args)?;
    let wl = Arc::new(load_workload(
        args.workload.as_deref(),
        args.app.as_deref(),
        args.graph.as_deref(),
        &args.define,
    )?);
    if let Some(m) = args.tb_manage.as_deref() {
        opts.tb_manage = Some(super::gpusim_tbm::prepare(&machine, &wl, &opts, m)?);
    }
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_message("simulating");
        b
    });
    let t0 = std::time::Instant::now();
    let oracle = opts
        .tb_sched
        .and_then(weft_memsim::gpu::tbsched::oracle_level);
    let oracle = oracle
        .map(|l| weft_memsim::gpu::tbsched::oracle::prepare(&machine, wl.clone(), &opts, l))
        .transpose()?;
    let mut sim = GpuSim::build(&machine, wl, &opts)?;
    sim.memory_mut().set_perturbation(args.perturb, args.seed);
    if let Some(p) = oracle {
        sim.set_tb_policy(p);
    }
    if args.ipaws_stall.as_deref() == Some("walk") {
        sim.warp_sched_ctx()
            .set_stall_counting(weft_memsim::gpu::warpsched::ipaws::StallCounting::Walk);
    }
    if args.l1_breakdown {
        sim.enable_l1_breakdown();
    }
    let stats = sim.run(|n| {
        if let Some(b) = &bar {
            b.set_message(format!("{n} warp instructions"));
            b.tick();
        }
    })?;
    let secs = t0.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let dp = sim.dp_stats();
    let ipaws = sim.warp_sched_ctx().ipaws_report();
    let mascar = sim.mascar_report();
    let breakdown = args.l1_breakdown.then(|| sim.l1_breakdown());
    if args.json {
        let mut v = serde_json::to_value(&stats)?;
        if let Some(o) = v.as_object_mut() {
            if let Some(d) = &dp {
                o.insert("dp".into(), serde_json::to_value(d)?);
                o.insert("lane_mem_ops".into(), sim.lane_mem_ops().into());
            }
            if let Some(r) = &ipaws {
                o.insert("ipaws".into(), serde_json::to_value(r)?);
            }
            if let Some(r) = &mascar {
                o.insert("mascar".into(), serde_json::to_value(r)?);
            }
            if let Some(b) = &breakdown {
                o.insert("l1_breakdown".into(), breakdown_json(b));
            }
        }
        if let (Some(r), Some(o)) = (sim.tb_manage_report(), v.as_object_mut()) {
            o.insert("tb_manage".into(), serde_json::to_value(r)?);
        }
        if let (Some(p), Some(o)) = (sim.tb_policy_report(), v.as_object_mut()) {
            o.insert("tb_policy".into(), p);
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print_summary(&stats, secs);
        if let Some(p) = sim.tb_policy_report() {
            println!("TB policy          {p}");
        }
        if let Some(d) = &dp {
            print_dp(d, sim.lane_mem_ops());
        }
        if let Some(r) = sim.tb_manage_report() {
            super::gpusim_tbm::print(&r);
        }
        if let Some(r) = &ipaws {
            for k in &r.kernels {
                println!(
                    "ipaws kernel {:<3}   {} (SM {:?}: WOI {} of {}, DoC {:.2}); adapt {:.1}%, recover {:.1}% of SM-cycles",
                    k.kernel,
                    k.choice,
                    k.decided_by,
                    k.woi,
                    k.warps,
                    k.doc,
                    100.0 * k.adapt_share,
                    100.0 * k.recover_share
                );
            }
        }
        if let Some(m) = &mascar {
            let s = &m.sched;
            println!(
                "mascar             saturated {} of {} steps, {} owners, {} memory warps held back, {} of {} memory issues saturated, {} re-executed hits",
                s.saturated_steps,
                s.steps,
                s.handovers,
                s.held_back,
                s.mem_issued_saturated,
                s.mem_issued,
                m.reexec_hits
            );
        }
        if let Some(b) = &breakdown {
            for (k, kb) in b.iter().enumerate() {
                let f = |c: &weft_memsim::gpu::warpsched::locality::Counts| {
                    c.shares()
                        .iter()
                        .map(|(n, x)| format!("{n} {x:.3}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                println!("l1 kernel {k:<3} ONE  {}", f(&kb.one));
                println!("l1 kernel {k:<3} ALL  {}", f(&kb.all));
            }
        }
    }
    Ok(())
}

/// The L1 access breakdown per kernel: counts and shares, ONE and ALL.
pub fn breakdown_json(
    b: &[weft_memsim::gpu::warpsched::locality::KernelBreakdown],
) -> serde_json::Value {
    use weft_memsim::gpu::warpsched::locality::{Counts, CATEGORIES};
    let side = |c: &Counts| {
        let mut m = serde_json::Map::new();
        for (name, n) in CATEGORIES.iter().zip(c.n) {
            m.insert((*name).into(), n.into());
        }
        m.insert("reads".into(), c.total().into());
        serde_json::Value::Object(m)
    };
    serde_json::Value::Array(
        b.iter()
            .enumerate()
            .map(|(k, kb)| serde_json::json!({"kernel": k, "one": side(&kb.one), "all": side(&kb.all)}))
            .collect(),
    )
}

fn print_dp(d: &DpStats, work: u64) {
    println!("device launches    mode {}", d.mode);
    println!(
        "  requests         {} (child kernels {}, aggregated groups {}, inline {}, refused {})",
        d.requests, d.child_kernels, d.aggregated_groups, d.inline, d.refused
    );
    println!(
        "  threads/child    {:.1}; wait launch->start {:.0} cycles; API cycles {}",
        d.threads_per_child, d.avg_wait_cycles, d.api_cycles
    );
    println!(
        "  pending memory   peak {} B; DTBL match rate {:.3}, AGT overflow {} (entry reads {}, {:.0} cycles each)",
        d.peak_pending_bytes,
        d.match_rate,
        d.agt_overflow,
        d.agt_spill_reads,
        d.agt_spill_cycles as f64 / d.agt_spill_reads.max(1) as f64
    );
    if d.mode.starts_with("spawn") {
        println!(
            "  SPAWN            {} launches admitted before any child CTA finished (no history)",
            d.spawn_no_history
        );
    }
    println!(
        "  peak TBs         child {}, parent {}; max depth {}; lane memory ops {}",
        d.peak_child_tbs, d.peak_parent_tbs, d.max_depth, work
    );
}

fn print_summary(s: &GpuStats, secs: f64) {
    let f = |k: &str| s.dram.get(k).and_then(|v| v.as_f64()).unwrap_or(0.0);
    println!("machine            {} ({} SMs)", s.machine, s.sms);
    println!("workload           {}", s.workload);
    println!(
        "schedulers         warp {}, TB {}",
        s.warp_scheduler, s.tb_scheduler
    );
    println!("kernels            {}", s.kernels.len());
    println!("cycles             {}", s.cycles);
    println!("warp instructions  {}", s.warp_instructions);
    println!("ipc                {:.3}", s.ipc);
    println!(
        "l1 hit rate        {:.4} (intra-warp {:.4}, inter-warp {:.4})",
        s.l1_hit_rate, s.l1_intra_warp_hit_rate, s.l1_inter_warp_hit_rate
    );
    println!("l2 hit rate        {:.4}", s.l2_hit_rate);
    println!(
        "dram               row hit rate {:.4}, blp {:.3}, avg read latency {:.1} DRAM cycles, efficiency {:.3}",
        f("row_hit_rate"),
        f("blp"),
        f("avg_read_latency"),
        f("efficiency")
    );
    println!(
        "avg L1-miss lat.   {:.1} (crossbar {:.1}, l2 {:.1}, dram {:.1})",
        s.avg_mem_latency, s.avg_network_latency, s.avg_l2_latency, s.avg_dram_latency
    );
    println!(
        "occupancy          {:.3} (per active cycle {:.3})",
        s.occupancy, s.occupancy_active
    );
    println!("warp activity      {:.3}", s.warp_activity);
    let stalls: Vec<String> = s
        .stall_cycles
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    println!("stall cycles       {}", stalls.join(", "));
    println!(
        "simulated in       {:.3} s ({:.0} warp instructions/s)",
        secs,
        s.warp_instructions as f64 / secs.max(1e-9)
    );
}

/// Options of `weft bench gpusim`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  weft bench gpusim                     # BFS on the shipped data/metis/mdual.graph + stream, k20c-dtbl
  weft bench gpusim --graph g.mtx --machine gtx480-ipaws --json
  weft bench gpusim --dram-thread       # the DRAM model on a second host thread (same results)")]
pub struct BenchArgs {
    /// GPU machine preset or TOML file.
    #[arg(long, default_value = "k20c-dtbl")]
    pub machine: String,
    /// Graph of the BFS run (default: the largest shipped graph, `metis/mdual.graph` of
    /// the data folder, `$WEFT_DATA_DIR` when set).
    #[arg(long)]
    pub graph: Option<PathBuf>,
    /// Run each simulation this many times and report the median rate.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub repeat: u32,
    /// Run the DRAM model on a second host thread (as `weft gpusim --threads 2`;
    /// identical statistics). The default measures one host thread.
    #[arg(long)]
    pub dram_thread: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// CPU time of the calling thread in seconds (Linux: the on-CPU nanoseconds of
/// `/proc/thread-self/schedstat`), so that rates on a loaded machine are comparable.
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 * 1e-9)
}

/// `weft bench gpusim`: warp instructions per second on one host thread (the DRAM
/// model on the same thread, or on a second one with `--dram-thread`), with its two
/// factors (IPC and simulated cycles per second); workload building excluded from
/// the timing.
pub fn bench(args: BenchArgs) -> anyhow::Result<()> {
    let machine =
        MachineConfig::load(&args.machine).context("loading the machine configuration")?;
    let graph = match args.graph {
        Some(g) => g,
        None => weft_testsuite::data::require("metis/mdual.graph")?,
    };
    let cases = [("bfs", Some(graph.as_path())), ("stream", None)];
    let mut rows = Vec::new();
    for (app, graph) in cases {
        let wl = Arc::new(load_workload(None, Some(app), graph, &[])?);
        let mut rates = Vec::new();
        let mut first: Option<String> = None;
        let mut last = None;
        for _ in 0..args.repeat {
            let opts = GpuOptions {
                seed: 1,
                dram_thread: args.dram_thread,
                ..Default::default()
            };
            let mut sim = GpuSim::build(&machine, wl.clone(), &opts)?;
            let t0 = std::time::Instant::now();
            // the calling thread's CPU time is not the run's with a DRAM thread
            let c0 = (!args.dram_thread).then(thread_cpu_seconds).flatten();
            let s = sim.run(|_| {})?;
            let secs = t0.elapsed().as_secs_f64();
            let cpu = thread_cpu_seconds().zip(c0).map(|(b, a)| b - a);
            let json = serde_json::to_string(&s)?;
            anyhow::ensure!(
                first.get_or_insert_with(|| json.clone()) == &json,
                "the GPU simulation gave different statistics on a repeated run"
            );
            rates.push((s.warp_instructions as f64 / secs.max(1e-9), secs, cpu));
            last = Some(s);
        }
        rates.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (rate, secs, cpu) = rates[rates.len() / 2];
        let s = last.expect("at least one run");
        rows.push(serde_json::json!({
            "app": app,
            "graph": graph.map(|g| g.display().to_string()),
            "machine": machine.name,
            "warp_instructions": s.warp_instructions,
            "cycles": s.cycles,
            "seconds": secs,
            "warp_instructions_per_second": rate,
            // the rate's other factor: warp instructions per second = IPC x this
            "simulated_cycles_per_second": s.cycles as f64 / secs.max(1e-9),
            "ipc": s.ipc,
            "host_threads": if args.dram_thread { 2 } else { 1 },
            "cpu_seconds": cpu,
            "warp_instructions_per_cpu_second": cpu.map(|c| s.warp_instructions as f64 / c.max(1e-9)),
            "runs": args.repeat,
        }));
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        for r in &rows {
            println!(
                "{:<7} {:>12} warp instructions {:>12} cycles  {:>8.3} s  {:>12.0} warp instructions/s  = IPC {:.2} x {:.0} cycles/s  ({})",
                r["app"].as_str().unwrap_or(""),
                r["warp_instructions"],
                r["cycles"],
                r["seconds"].as_f64().unwrap_or(0.0),
                r["warp_instructions_per_second"].as_f64().unwrap_or(0.0),
                r["ipc"].as_f64().unwrap_or(0.0),
                r["simulated_cycles_per_second"].as_f64().unwrap_or(0.0),
                match r["warp_instructions_per_cpu_second"].as_f64() {
                    Some(c) => format!("{c:.0} per CPU second"),
                    None if args.dram_thread => "two host threads".to_string(),
                    None => "CPU time not available".to_string(),
                }
            );
        }
    }
    Ok(())
}
