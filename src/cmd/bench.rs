//! `weft bench`: speed figures. `weft bench dram` times the DRAM model on
//! 1M-request streaming and random traces and DRAMsim3 on the same traces and
//! configuration (`dramsim3-ddr4-2400`), in the same run. `weft bench kernels`
//! is the no-regression benchmark of the kernel corpus (issue 34, measuring
//! rule in `weft_testsuite::kernels`, results in `docs/kernels.md`).

use std::time::Instant;

use anyhow::Context;
use weft_memsim::config::MachineConfig;
use weft_memsim::dram::reference::{dramsim3_ini, replay_cycle_sim, CycleSim};
use weft_memsim::dram::{replay, DramSystem};
use weft_memsim::trace::{synthetic, TimedRequest};

/// Measure simulation speed.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  weft bench dram                       # 1M streaming + 1M random requests, weft vs DRAMsim3
  weft bench dram --requests 200000 --json
  weft bench dram --no-reference        # weft only
  weft bench sim                        # full manycore, 10^7 records on table5.2
  weft bench sim --records 1000000 --json
  weft bench sim --machine m.toml --trace trace.bin   # a trace kept by `weft eval --keep-traces`
  weft bench kernels                    # corpus, small size, 2 workers, median of 5
  weft bench kernels --size medium --kernels gemm,lu --runs 3 --json
  weft bench kernels --kernels atax --variant 'dist=loop-distribute,insert-inspector,parallel-for'
  weft bench polly                      # parallel loops: weft vs Polly, restrict and not
  weft bench alias-checks               # outermost loops needing a run-time alias check")]
pub struct Args {
    #[command(subcommand)]
    pub what: What,
}

/// What to benchmark.
#[derive(clap::Subcommand, Debug)]
pub enum What {
    /// DRAM model vs DRAMsim3: simulated requests per second.
    Dram(DramArgs),
    /// Full manycore model: simulated records per second on a synthetic trace
    /// (3/4 streaming, 1/4 random accesses, gaps 0..=8, one store in 8), or on
    /// a trace file (`--trace`, e.g. one `weft eval --keep-traces` kept).
    Sim(SimArgs),
    /// GPU engine (`weft gpusim`): simulated warp instructions per second on one
    /// host thread, BFS over the largest shipped graph and the streaming kernel.
    Gpusim(super::gpusim::BenchArgs),
    /// Kernel corpus: each kernel under `--passes=none`, the default pipeline
    /// and every chapter 5 scheme, run natively; time ratios to `--passes=none`,
    /// transformed-loop counts and checksums in one table.
    Kernels(KernelsArgs),
    /// Kernel corpus: loops weft's `parallel-for` runs in parallel against
    /// Polly's parallel loops, with `restrict` and without (`-Drestrict=`);
    /// Markdown table for `docs/parallelism.md`.
    Polly(PollyArgs),
    /// Kernel corpus: outermost kernel loops `parallel-for` runs in parallel,
    /// as written and with `restrict` removed, before and after run-time alias
    /// checks (the remark says `versioned`); Markdown table for
    /// `docs/alias-checks.md`.
    AliasChecks(PollyArgs),
}

/// Options of `weft bench polly`.
#[derive(clap::Args, Debug)]
pub struct PollyArgs {
    /// Comma-separated kernel names (default: the whole corpus).
    #[arg(long, value_delimiter = ',')]
    pub kernels: Option<Vec<String>>,
    /// Keep the IR in this directory.
    #[arg(long)]
    pub keep: Option<std::path::PathBuf>,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    pub json: bool,
}

/// Options of `weft bench kernels`.
#[derive(clap::Args, Debug)]
pub struct KernelsArgs {
    /// Input size: `small` (`--quick`) or `medium` (the kernels' default).
    #[arg(long, default_value = "small", value_parser = ["small", "medium"])]
    pub size: String,
    /// Comma-separated kernel names (default: the whole corpus).
    #[arg(long, value_delimiter = ',')]
    pub kernels: Option<Vec<String>>,
    /// Runs per variant; the median is reported.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=101))]
    pub runs: u32,
    /// Worker threads (`WEFT_CORES`).
    #[arg(long, default_value_t = 2)]
    pub cores: u32,
    /// A run longer than this many seconds is killed and reported as a timeout
    /// (the variant's other runs are skipped).
    #[arg(long, default_value_t = 20.0)]
    pub timeout: f64,
    /// Keep the builds (IR, bitcode, executables) in this directory.
    #[arg(long)]
    pub keep: Option<std::path::PathBuf>,
    /// An extra variant `NAME=PIPELINE`, built and run beside the standard
    /// ones (repeatable), e.g. `--variant 'dist=loop-distribute,insert-inspector,parallel-for'`.
    #[arg(long = "variant", value_name = "NAME=PIPELINE", value_parser = parse_variant)]
    pub variants: Vec<(String, String)>,
    /// Link every variant with `-falign-loops=<BYTES>` (0: the compiler's
    /// default placement). A hot loop that straddles a 64-byte line can run
    /// 1.3x slower than the same instructions placed on one line, so without
    /// it a cell can measure where the loop fell in the binary rather than
    /// what the passes did (docs/kernels.md, session 7).
    #[arg(long, default_value_t = 64, value_name = "BYTES", value_parser = parse_align)]
    pub align_loops: u32,
    /// Print JSON.
    /// Which time to compare: `region` (the kernel's timed region, `time:`)
    /// or `program` (from before `main` to its end, `program:`: the
    /// initialisation loops, which the passes transform too, included)
    #[arg(long, default_value = "region", value_parser = ["region", "program"])]
    pub time: String,
    #[arg(long)]
    pub json: bool,
}

/// `--variant NAME=PIPELINE`.
fn parse_variant(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((n, p)) if !n.trim().is_empty() && !p.trim().is_empty() => {
            Ok((n.trim().to_string(), p.trim().to_string()))
        }
        _ => Err(format!("`{s}`: expected NAME=PIPELINE")),
    }
}

/// `--align-loops`: 0 or a power of two up to 4096.
fn parse_align(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(v) if v == 0 || (v.is_power_of_two() && v <= 4096) => Ok(v),
        _ => Err(format!("`{s}`: expected 0 or a power of two up to 4096")),
    }
}

/// Options of `weft bench sim`.
#[derive(clap::Args, Debug)]
pub struct SimArgs {
    /// Machine preset or TOML file.
    #[arg(long, default_value = "table5.2")]
    pub machine: String,
    /// Records in the synthetic trace (all cores together).
    #[arg(long, default_value_t = 10_000_000, conflicts_with = "trace")]
    pub records: u64,
    /// Simulate this trace file (binary or text, as `weft sim` reads) instead
    /// of the synthetic one.
    #[arg(long)]
    pub trace: Option<std::path::PathBuf>,
    /// Threads: 1, or 2 to run the DRAM model on a thread of its own (as `weft sim`;
    /// default: 2 when the machine has two or more cores).
    #[arg(long, value_name = "1|2", value_parser = clap::value_parser!(u32).range(1..=2))]
    pub threads: Option<u32>,
    /// Run the simulation this many times and report the median rate with
    /// the range (host speed varies between runs, the two-thread figure
    /// especially); every run must give the same statistics.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeat: u32,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Options of `weft bench dram`.
#[derive(clap::Args, Debug)]
pub struct DramArgs {
    /// Requests per trace.
    #[arg(long, default_value_t = 1_000_000)]
    pub requests: u64,
    /// Machine preset or TOML file (its DRAM part is used).
    #[arg(long, default_value = "dramsim3-ddr4-2400")]
    pub machine: String,
    /// Skip DRAMsim3.
    #[arg(long)]
    pub no_reference: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

struct Ds3(dramsim3::MemorySystem);

impl CycleSim for Ds3 {
    fn can_add(&self, addr: u64, is_write: bool) -> bool {
        self.0.can_add(addr, is_write)
    }
    fn add(&mut self, addr: u64, is_write: bool) {
        self.0.add(addr, is_write);
    }
    fn tick(&mut self, done: &mut dyn FnMut(u64, bool)) {
        self.0.tick(done);
    }
}

#[derive(serde::Serialize)]
struct Row {
    trace: String,
    requests: u64,
    weft_seconds: f64,
    weft_requests_per_s: f64,
    weft_cycles: u64,
    dramsim3_seconds: Option<f64>,
    dramsim3_requests_per_s: Option<f64>,
    dramsim3_cycles: Option<u64>,
    speedup: Option<f64>,
}

/// Runs the benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.what {
        What::Dram(a) => dram(a),
        What::Sim(a) => sim(a),
        What::Kernels(a) => kernels(a),
        What::Polly(a) => polly(a),
        What::AliasChecks(a) => alias_checks(a),
        What::Gpusim(a) => super::gpusim::bench(a),
    }
}

fn sim(args: SimArgs) -> anyhow::Result<()> {
    let cfg = MachineConfig::load(&args.machine)
        .with_context(|| format!("machine `{}`", args.machine))?;
    let threaded = super::sim::dram_thread(args.threads);
    let opts = super::sim::options(&cfg, None, "none", 1, threaded)?;
    let once = || -> anyhow::Result<(weft_memsim::manycore::RunStats, String, f64)> {
        let t = Instant::now();
        let (s, trace) = match &args.trace {
            None => {
                let mut src = weft_memsim::run::bench_workload(cfg.core.count, args.records, 1);
                let s = weft_memsim::run::simulate(&cfg, &mut src, &opts, |_| {})?;
                (s, "synthetic".to_string())
            }
            Some(path) => {
                let s = weft_memsim::run::simulate_trace_file(&cfg, path, &opts, |_| {})
                    .with_context(|| format!("simulating {}", path.display()))?;
                (s, path.display().to_string())
            }
        };
        Ok((s, trace, t.elapsed().as_secs_f64()))
    };
    let (s, trace, first) = once()?;
    let mut times = vec![first];
    for _ in 1..args.repeat {
        let (again, _, secs) = once()?;
        anyhow::ensure!(
            again == s,
            "the simulation gave different statistics on a repeated run"
        );
        times.push(secs);
    }
    times.sort_by(f64::total_cmp);
    let secs = times[times.len() / 2];
    let rate = s.records as f64 / secs;
    let (lo, hi) = (
        s.records as f64 / times[times.len() - 1],
        s.records as f64 / times[0],
    );
    if args.json {
        let v = serde_json::json!({
            "machine": cfg.name, "cores": cfg.core.count, "trace": trace, "records": s.records,
            "seconds": secs, "records_per_second": rate, "simulated_cycles": s.cycles,
            "llc_hit_rate": s.llc_hit_rate, "llc_mpki": s.llc_mpki,
            "threads": if threaded { 2 } else { 1 },
            "runs": times.len(), "records_per_second_min": lo, "records_per_second_max": hi,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        println!(
            "sim: {} records of {trace} on {} ({} cores) in {:.2} s = {:.0} records/s ({} simulated cycles, LLC hit rate {:.3}, {:.1} LLC MPKI, {} thread{})",
            s.records, cfg.name, cfg.core.count, secs, rate, s.cycles, s.llc_hit_rate, s.llc_mpki,
            if threaded { 2 } else { 1 }, if threaded { "s" } else { "" }
        );
        if times.len() > 1 {
            println!(
                "sim: median of {} runs; range {lo:.0} to {hi:.0} records/s",
                times.len()
            );
        }
    }
    Ok(())
}

fn dram(a: DramArgs) -> anyhow::Result<()> {
    let cfg = MachineConfig::load(&a.machine)?.dram;
    let dir = tempfile::tempdir()?;
    let ini = dir.path().join("weft.ini");
    if !a.no_reference {
        let text = dramsim3_ini(&cfg, i32::MAX as u64)
            .context("this machine cannot be expressed in DRAMsim3")?;
        std::fs::write(&ini, text)?;
    }
    let traces: Vec<(&str, Vec<TimedRequest>)> = vec![
        ("streaming", synthetic::streaming(a.requests).collect()),
        (
            "random",
            synthetic::random(a.requests, cfg.capacity_bytes(), 0x9e37_79b9_7f4a_7c15).collect(),
        ),
    ];
    let mut rows = Vec::new();
    for (name, t) in &traces {
        let t0 = Instant::now();
        let mut d = DramSystem::new(&cfg)?;
        let cycles = replay(
            &mut d,
            t.iter().map(|r| Ok::<_, std::convert::Infallible>(*r)),
        )?;
        let ws = t0.elapsed().as_secs_f64();
        let (mut ds, mut dc) = (None, None);
        if !a.no_reference {
            let t0 = Instant::now();
            let mut s = Ds3(dramsim3::MemorySystem::new(&ini, dir.path())
                .map_err(|e| anyhow::anyhow!("DRAMsim3: {e:?}"))?);
            let r = replay_cycle_sim(
                &mut s,
                t.iter().copied(),
                cfg.tck_ns,
                cfg.burst_bytes() as u64,
            );
            ds = Some(t0.elapsed().as_secs_f64());
            dc = Some(r.cycles);
        }
        let n = t.len() as u64;
        rows.push(Row {
            trace: name.to_string(),
            requests: n,
            weft_seconds: ws,
            weft_requests_per_s: n as f64 / ws,
            weft_cycles: cycles,
            dramsim3_seconds: ds,
            dramsim3_requests_per_s: ds.map(|s| n as f64 / s),
            dramsim3_cycles: dc,
            speedup: ds.map(|s| s / ws),
        });
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    println!(
        "{:<10} {:>9} {:>16} {:>19} {:>8} {:>12} {:>12}",
        "trace", "requests", "weft req/s", "DRAMsim3 req/s", "speedup", "weft cyc", "DRAMsim3 cyc"
    );
    for r in &rows {
        println!(
            "{:<10} {:>9} {:>16.0} {:>19} {:>8} {:>12} {:>12}",
            r.trace,
            r.requests,
            r.weft_requests_per_s,
            r.dramsim3_requests_per_s
                .map_or("-".into(), |v| format!("{v:.0}")),
            r.speedup.map_or("-".into(), |v| format!("{v:.2}x")),
            r.weft_cycles,
            r.dramsim3_cycles.map_or("-".into(), |v| v.to_string()),
        );
    }
    Ok(())
}

/// One variant's cell of the kernels table.
#[derive(serde::Serialize, Clone)]
struct Cell {
    variant: String,
    pipeline: String,
    /// Median seconds of the timed region; `None` after a timeout or failure.
    seconds: Option<f64>,
    /// `seconds` over the `--passes=none` median.
    ratio: Option<f64>,
    /// One-sided Mann-Whitney p that this variant's runs are slower than
    /// the `--passes=none` runs (`weft_testsuite::kernels::mann_whitney_greater`).
    p_slower: Option<f64>,
    transformed: usize,
    /// Every finished run printed the `--passes=none` checksum.
    checksum_ok: bool,
    /// `ok`, `timeout`, `checksum mismatch`, or the failure.
    status: String,
}

#[derive(serde::Serialize)]
struct KernelRow {
    kernel: String,
    none_seconds: Option<f64>,
    checksum: Option<String>,
    variants: Vec<Cell>,
}

fn polly(a: PollyArgs) -> anyhow::Result<()> {
    let list = weft_testsuite::kernels::select(a.kernels.as_deref())?;
    let tmp = tempfile::Builder::new().prefix("weft-polly-").tempdir()?;
    let root = a.keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let mut rows = Vec::new();
    for k in list {
        let r = weft_testsuite::polly::row(k, &root, &mut |m| eprintln!("{m}"))
            .map_err(|e| anyhow::anyhow!("{}: {e}", k.name))?;
        rows.push(r);
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", weft_testsuite::polly::markdown(&rows));
    }
    Ok(())
}

fn alias_checks(a: PollyArgs) -> anyhow::Result<()> {
    let list = weft_testsuite::kernels::select(a.kernels.as_deref())?;
    let tmp = tempfile::Builder::new().prefix("weft-alias-").tempdir()?;
    let root = a.keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let mut rows = Vec::new();
    for k in list {
        eprintln!("{}", k.name);
        let r = weft_testsuite::alias_checks::row(k, &root)
            .map_err(|e| anyhow::anyhow!("{}: {e}", k.name))?;
        rows.push(r);
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        print!("{}", weft_testsuite::alias_checks::markdown(&rows));
    }
    Ok(())
}

fn kernels(a: KernelsArgs) -> anyhow::Result<()> {
    use weft_testsuite::kernels::{self as k, RunResult};
    let list = k::select(a.kernels.as_deref())?;
    let args: Vec<String> = if a.size == "small" {
        vec!["--quick".into()]
    } else {
        Vec::new()
    };
    let tmp = tempfile::Builder::new().prefix("weft-kernels-").tempdir()?;
    let root = a.keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let timeout = std::time::Duration::from_secs_f64(a.timeout.max(0.001));
    let mut variants = vec![("none".to_string(), "none".to_string())];
    variants.extend(k::pipelines());
    variants.extend(a.variants.iter().cloned());
    // A/A control: a second, separately linked --passes=none build, whose
    // ratio and test against the first show the host's noise for the kernel.
    variants.push((AA_CONTROL.to_string(), "none".to_string()));
    // Every kernel's variants are built first; then round r runs every
    // variant of every kernel once before round r+1 (a slow spell of the
    // shared host, which can last minutes and slow only the parallel
    // variants, then hits one or two of a cell's runs instead of all of them).
    let mut kernels_built = Vec::new();
    for kern in list {
        let dir = root.join(kern.name);
        let mut src = k::sources(kern, &dir)
            .map_err(|e| anyhow::anyhow!("{}: {e}", kern.name))
            .context("emitting the kernel's IR")?;
        if a.align_loops > 0 {
            src.codegen_flags = vec![format!("-falign-loops={}", a.align_loops)];
        }
        let built: Vec<Result<k::Built, String>> = variants
            .iter()
            .enumerate()
            .map(|(i, (_, p))| k::build(&src, p, &dir, &format!("v{i}")))
            .collect();
        eprintln!("built {} ({} variants)", kern.name, built.len());
        kernels_built.push((kern, built));
    }
    let mut all_results: Vec<Vec<Vec<RunResult>>> =
        vec![vec![Vec::new(); variants.len()]; kernels_built.len()];
    for round in 0..a.runs {
        eprintln!("round {} of {}", round + 1, a.runs);
        // Each round rotates both orders by one, so that no variant keeps one
        // position (first after another kernel's runs, or last of its own) in
        // every round: in one 21-round run of histogram (medium size) the
        // first variant's median was 1.20x that of the last, an identical
        // binary (docs/kernels.md, session 14).
        let nk = kernels_built.len();
        for kk in 0..nk {
            let ki = (kk + round as usize) % nk;
            let (_, built) = &kernels_built[ki];
            let results = &mut all_results[ki];
            let nv = built.len();
            for j in 0..nv {
                let i = (j + round as usize) % nv;
                let Ok(b) = &built[i] else { continue };
                if results[i]
                    .iter()
                    .any(|r| !matches!(r, RunResult::Done { .. }))
                {
                    continue;
                }
                results[i].push(k::run_once(&b.exe, &args, a.cores, timeout));
            }
        }
    }
    let mut rows = Vec::new();
    for ((kern, built), results) in kernels_built.iter().zip(all_results.iter()) {
        let times = |i: usize| -> Vec<f64> {
            results[i]
                .iter()
                .filter_map(|r| match r {
                    RunResult::Done {
                        seconds, program, ..
                    } => match a.time.as_str() {
                        "program" => *program,
                        _ => Some(*seconds),
                    },
                    _ => None,
                })
                .collect()
        };
        let want = results[0].iter().find_map(|r| match r {
            RunResult::Done { checksum, .. } => Some(*checksum),
            _ => None,
        });
        let base = k::median(&times(0));
        let base_runs = times(0);
        let mut cells = Vec::new();
        for (i, (name, pipe)) in variants.iter().enumerate() {
            let (transformed, mut status) = match &built[i] {
                Ok(b) => (b.transformed, "ok".to_string()),
                Err(e) => (0, format!("build failed: {e}")),
            };
            let mut checksum_ok = true;
            for r in &results[i] {
                match r {
                    RunResult::Done { checksum, .. } => {
                        if Some(*checksum) != want {
                            checksum_ok = false;
                            status = "checksum mismatch".into();
                        }
                    }
                    RunResult::Timeout => status = format!("timeout (> {:.0} s)", a.timeout),
                    RunResult::Failed(e) => status = format!("failed: {e}"),
                }
            }
            let seconds = if status == "ok" || status == "checksum mismatch" {
                k::median(&times(i))
            } else {
                None
            };
            let p_slower = seconds.and_then(|_| k::mann_whitney_greater(&times(i), &base_runs));
            cells.push(Cell {
                variant: name.clone(),
                pipeline: pipe.clone(),
                seconds,
                p_slower,
                ratio: seconds.zip(base).map(|(s, b)| s / b.max(1e-9)),
                transformed,
                checksum_ok,
                status,
            });
        }
        if !a.json {
            if rows.is_empty() {
                print_kernels_header(&variants);
            }
            print_kernels_row(kern.name, base, want, &cells, a.timeout);
        }
        rows.push(KernelRow {
            kernel: kern.name.to_string(),
            none_seconds: base,
            checksum: want.map(|c| format!("{c:016x}")),
            variants: cells,
        });
    }
    if a.json {
        let v = serde_json::json!({
            "size": a.size, "runs": a.runs, "cores": a.cores, "timeout_seconds": a.timeout, "align_loops": a.align_loops, "time": a.time,
            "kernels": rows,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let cells: Vec<&Cell> = rows
        .iter()
        .flat_map(|r| r.variants.iter().skip(1))
        .filter(|c| c.variant != AA_CONTROL)
        .collect();
    let controls: Vec<&Cell> = rows
        .iter()
        .flat_map(|r| r.variants.iter())
        .filter(|c| c.variant == AA_CONTROL)
        .collect();
    let significant = |c: &&&Cell| significantly_slower(c);
    let over = |x: f64| {
        cells
            .iter()
            .filter(|c| c.ratio.map_or(c.status != "ok", |r| r > x))
            .count()
    };
    let worst = cells
        .iter()
        .filter_map(|c| c.ratio.map(|r| (r, c)))
        .max_by(|x, y| x.0.total_cmp(&y.0));
    let bad = cells.iter().filter(|c| !c.checksum_ok).count();
    println!(
        "{} kernel(s) x {} pipeline(s): {} cell(s) more than 5% slower than --passes=none, {} more than 1.5x (timeouts and failures included); checksum mismatches: {bad}{}",
        rows.len(),
        variants.len() - 2, // without none and the A/A control
        over(1.05),
        over(1.5),
        worst
            .map(|(r, c)| format!("; worst {r:.2}x ({})", c.variant))
            .unwrap_or_default()
    );
    println!(
        "significantly slower (more than 5% and one-sided Mann-Whitney p < {SIGNIFICANCE} against the --passes=none runs, marked *): {} cell(s); the A/A control ({AA_CONTROL}, a second --passes=none build) is so {} time(s) in {} kernel(s), its ratio {}",
        cells.iter().filter(significant).count(),
        controls.iter().filter(significant).count(),
        controls.len(),
        {
            let r: Vec<f64> = controls.iter().filter_map(|c| c.ratio).collect();
            match (r.iter().copied().reduce(f64::min), r.iter().copied().reduce(f64::max)) {
                (Some(lo), Some(hi)) => format!("{lo:.2}x-{hi:.2}x"),
                _ => "-".into(),
            }
        }
    );
    println!(
        "cells: median {} / --passes=none median [transformed loops]; {} run(s) each, interleaved over the corpus (round r runs every variant of every kernel, both orders rotated by r), {} worker(s), size {}, {}",
        match a.time.as_str() {
            "program" => "program time (main, initialisation included)",
            _ => "time of the timed region",
        },
        a.runs,
        a.cores,
        a.size,
        match a.align_loops {
            0 => "loops where the compiler put them".to_string(),
            n => format!("loops aligned to {n} bytes"),
        }
    );
    Ok(())
}

/// Name of the A/A control column of `weft bench kernels`.
const AA_CONTROL: &str = "none(A/A)";

/// Significance level of the "significantly slower" count.
const SIGNIFICANCE: f64 = 0.05;

/// More than 5% slower than `--passes=none` in the median and significantly
/// so by the one-sided Mann-Whitney test of the runs (a timeout or failure
/// counts as slower).
fn significantly_slower(c: &Cell) -> bool {
    match c.ratio {
        Some(r) => r > 1.05 && c.p_slower.is_some_and(|p| p < SIGNIFICANCE),
        None => c.status != "ok",
    }
}

fn print_kernels_header(variants: &[(String, String)]) {
    print!("{:<12} {:>9}", "kernel", "none ms");
    for (name, _) in variants.iter().skip(1) {
        print!(" {name:>13}");
    }
    println!("  checksum");
}

fn print_kernels_row(
    name: &str,
    base: Option<f64>,
    want: Option<u64>,
    cells: &[Cell],
    timeout: f64,
) {
    print!(
        "{:<12} {:>9}",
        name,
        base.map_or("-".into(), |b| format!("{:.3}", b * 1e3))
    );
    let mut mismatch = Vec::new();
    for c in cells.iter().skip(1) {
        let v = match (c.ratio, c.status.as_str()) {
            (Some(r), _) => format!(
                "{r:.2}x [{}]{}",
                c.transformed,
                if significantly_slower(c) { "*" } else { "" }
            ),
            (None, s) if s.starts_with("timeout") => format!(">{timeout:.0}s [{}]", c.transformed),
            (None, _) => {
                eprintln!("{name} [{}]: {}", c.variant, c.status);
                "failed".to_string()
            }
        };
        if !c.checksum_ok {
            mismatch.push(c.variant.clone());
        }
        print!(" {v:>13}");
    }
    let sum = want.map_or("-".into(), |w| format!("{w:016x}"));
    if mismatch.is_empty() {
        println!("  {sum}");
    } else {
        println!("  {sum} MISMATCH: {}", mismatch.join(","));
    }
}
