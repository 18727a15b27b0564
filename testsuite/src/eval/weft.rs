//! The real backend: stages performed by the weft crates.
//!
//! - **benchmarks**: the registry of `crate::bench` (chapter 4 = irregular
//!   class, chapter 5 = affine class), with the registry's quick arguments for
//!   the quick and tiny sizes and its evaluation arguments (`eval_args`) for the
//!   full size.
//! - **build**: the benchmark's C source to LLVM IR with clang-19
//!   (`bench::emit_ir`), the version's pipeline through `weft-passes`'
//!   `PassManager`, then linked with the benchmark support object and
//!   `libweft_runtime.a` (`weft_passes::link`). This is `weft build` as a library
//!   call.
//! - **run**: the executable in trace mode with `WEFT_TRACE`, `WEFT_CORES`,
//!   `WEFT_MACHINE` (a materialized TOML of the machine spec) and `WEFT_STATS`,
//!   plus the runtime options of the job (`RunJob::env`: the
//!   `backend::RUNTIME_ENV` variables `weft eval` was started with);
//!   the checksum is the program's final `checksum:` line; coverage, inspector
//!   time and beta come from the runtime's statistics JSON. GPART-reordered runs
//!   rewrite the benchmark's `--input` file first (`eval::reorder`); a benchmark
//!   that generates its input is run once with `--dump-graph` and then with
//!   `--permute` and the order computed from that graph (`gpart_args`).
//! - **simulate**: `weft-memsim`'s manycore model on the trace with the version's
//!   scheduler and oracle.
//!
//! Inspector overhead is reported as the inspector's share of the region time
//! the runtime measured (wall clock, in trace mode, so tracing slows the executor
//! and the share is an underestimate of the native one); it is labelled as such.

use super::backend::*;
use super::cache::ContentHasher;
use super::versions::{Knob, MemScheduler, Oracle, Reorder, Study, Version};
use crate::bench::{self, BenchClass, CompileOptions, RunSize};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The backend over the weft crates.
#[derive(Debug, Clone, Default)]
pub struct WeftBackend {}

impl WeftBackend {
    /// A backend using the current executable as the toolchain fingerprint.
    pub fn new() -> Self {
        WeftBackend {}
    }
}

fn clang_version() -> String {
    Command::new("clang-19")
        .arg("--version")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_else(|e| format!("clang-19 not runnable: {e}"))
}

/// Makes `dir/name` a symbolic link to `target` (absolute), replacing an old link.
fn link_into(target: &Path, dir: &Path, name: &str) -> StageResult<()> {
    let link = dir.join(name);
    if link.symlink_metadata().is_ok() {
        std::fs::remove_file(&link).map_err(failed)?;
    }
    let target = std::fs::canonicalize(target).map_err(failed)?;
    std::os::unix::fs::symlink(&target, &link).map_err(|e| {
        failed(format!(
            "linking {} to {}: {e}",
            link.display(),
            target.display()
        ))
    })
}

/// The stack size the benchmarks run with (the usual default, 8 MiB).
const STACK_BYTES: u64 = 8 << 20;

/// Refuses to run when the harness's resource limits would move the
/// benchmarks' memory: results depend on addresses (bank maps), and the kernel
/// and the C library place memory differently under an address-space limit
/// (`ulimit -v`: a large `mmap` that fails falls back to the `brk` heap) or an
/// unlimited stack (the legacy bottom-up `mmap` layout). A finite soft limit
/// under an unlimited hard one is lifted for the children
/// ([`layout_limits`]); a finite hard address-space limit is an error, as is a
/// hard stack limit below 8 MiB (issue #38: `ulimit -v 6000000` changed
/// moldyn's bank map and the ch. 4 figures).
pub fn check_layout_limits() -> std::result::Result<(), String> {
    let get = |r| {
        let mut l = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given.
        let ok = unsafe { libc::getrlimit(r, &mut l) } == 0;
        ok.then_some(l)
    };
    let Some(as_) = get(libc::RLIMIT_AS) else {
        return Err("cannot read the address-space limit (getrlimit)".into());
    };
    if as_.rlim_max != libc::RLIM_INFINITY {
        return Err(format!(
            "the address-space limit (ulimit -v) is {} KiB and cannot be lifted: the benchmarks' \
             memory layout, hence their bank maps and every result, depends on it; run weft eval \
             without it (ulimit -v unlimited)",
            as_.rlim_max / 1024
        ));
    }
    if let Some(st) = get(libc::RLIMIT_STACK) {
        if st.rlim_max != libc::RLIM_INFINITY && st.rlim_max < STACK_BYTES {
            return Err(format!(
                "the hard stack limit (ulimit -s) is {} KiB, below the {} KiB the benchmarks run with",
                st.rlim_max / 1024,
                STACK_BYTES / 1024
            ));
        }
    }
    Ok(())
}

/// Gives a benchmark's process the resource limits its memory layout assumes:
/// no address-space limit and an 8 MiB stack (see [`check_layout_limits`],
/// which makes sure the hard limits allow both).
fn layout_limits(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        cmd.pre_exec(|| {
            let inf = libc::rlimit {
                rlim_cur: libc::RLIM_INFINITY,
                rlim_max: libc::RLIM_INFINITY,
            };
            libc::setrlimit(libc::RLIMIT_AS, &inf);
            let mut st = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            if libc::getrlimit(libc::RLIMIT_STACK, &mut st) == 0 {
                st.rlim_cur = STACK_BYTES;
                libc::setrlimit(libc::RLIMIT_STACK, &st);
            }
            Ok(())
        })
    };
}

fn failed(e: impl std::fmt::Display) -> StageError {
    StageError::Failed(e.to_string())
}

fn class_of(study: Study) -> BenchClass {
    match study {
        Study::Ch4 => BenchClass::Irregular,
        Study::Ch5 => BenchClass::Affine,
    }
}

fn run_args(b: &bench::Benchmark, size: Size) -> Vec<String> {
    match size {
        Size::Tiny | Size::Quick => b.args(RunSize::Quick),
        Size::Full => b.eval_args(),
        Size::Paper => super::inputs::paper_args(b),
    }
}

fn scheduler_name(s: MemScheduler) -> &'static str {
    s.name()
}

impl Backend for WeftBackend {
    fn fingerprint(&self) -> String {
        let mut h = ContentHasher::new();
        if let Ok(exe) = std::env::current_exe() {
            let _ = h.file(&exe);
        }
        if let Ok(rt) = weft_passes::link::find_runtime(None) {
            let _ = h.file(&rt);
        }
        h.field(&clang_version());
        h.hex()
    }

    fn notes(&self) -> Vec<String> {
        let env = super::backend::runtime_env();
        let env_note = (!env.is_empty()).then(|| {
            let list: Vec<String> = env.iter().map(|(k, v)| format!("`{k}={v}`")).collect();
            format!(
                "Runtime options of the traced runs (from the environment `weft eval` ran in): {}.",
                list.join(", ")
            )
        });
        let mut notes = vec![
            format!("DRAM model of the simulations: {DRAM_MODEL}."),
            "Inspector overhead = the inspector's share of the region time the runtime measured in trace mode (wall clock; tracing slows the executor, so this underestimates the native share). The inspectors' own memory accesses are traced, so simulated cycles include their cost.".into(),
        ];
        notes.extend(env_note);
        notes
    }

    fn benchmarks(&self, study: Study, size: Size) -> StageResult<Vec<BenchInfo>> {
        let mut out = Vec::new();
        for b in bench::of_class(class_of(study)) {
            let mut h = ContentHasher::new();
            for p in b.source_paths().iter().chain(std::iter::once(
                &bench::benchmarks_dir().join("common/weft_bench.h"),
            )) {
                h.file(p)
                    .map_err(|e| failed(format!("{}: {e}", p.display())))?;
            }
            for p in b.input_paths() {
                // Inputs of variants we do not run may be absent; hash what exists.
                let _ = h.file(&p);
            }
            h.json(&run_args(b, size));
            out.push(BenchInfo {
                name: b.name.to_string(),
                paper_name: b.paper_name.map(str::to_string),
                study,
                input: match size {
                    Size::Full => b.eval_input.to_string(),
                    Size::Paper => super::inputs::paper_input(b),
                    _ => b.quick_input.to_string(),
                },
                content_hash: h.hex(),
            });
        }
        if out.is_empty() {
            return Err(StageError::Unavailable(format!(
                "no {study} benchmark in the registry for this size"
            )));
        }
        Ok(out)
    }

    fn check_version(&self, version: &Version) -> StageResult<()> {
        weft_passes::PassManager::parse(version.pipeline, weft_passes::PipelineConfig::new())
            .map(|_| ())
            .map_err(|e| {
                StageError::Unavailable(format!("pipeline `{}`: {e}", version.pipeline))
            })?;
        let _ = scheduler_name(version.scheduler);
        Ok(())
    }

    fn check_knob(&self, machine: &str, knob: &Knob) -> StageResult<()> {
        match knob {
            Knob::Machine { path } | Knob::MachinePercent { path } => {
                super::machine::has_field(machine, path).map_err(StageError::Unavailable)
            }
            Knob::Cores => {
                super::machine::has_field(machine, "core.count").map_err(StageError::Unavailable)
            }
            Knob::SlabIters => Ok(()),
            // Checked per benchmark when it runs (its registry `size_knob`).
            Knob::InputScale => Ok(()),
        }
    }

    fn build(&self, job: &BuildJob, dir: &Path) -> StageResult<BuildOut> {
        let b = bench::by_name(&job.bench).map_err(failed)?;
        let opts = CompileOptions::default();
        let ll = bench::emit_ir(b, dir, &opts).map_err(failed)?;
        let ctx = inkwell::context::Context::create();
        let module = weft_frontend::load_module(&ctx, &ll, &Default::default()).map_err(failed)?;
        // The same short-loop threshold as `weft build`.
        let cfg = weft_passes::PipelineConfig {
            min_parallel_iters: weft_passes::manager::DEFAULT_MIN_PARALLEL_ITERS,
            ..weft_passes::PipelineConfig::new()
        };
        let pm = weft_passes::PassManager::parse(&job.pipeline, cfg)
            .map_err(|e| StageError::Unavailable(format!("pipeline `{}`: {e}", job.pipeline)))?;
        let report = pm.run(&module).map_err(failed)?;
        weft_passes::manager::verify(&module, "the last pass").map_err(failed)?;
        let bc = dir.join("prog.bc");
        if !module.write_bitcode_to_path(&bc) {
            return Err(failed(format!("writing {}", bc.display())));
        }
        let support = bench::compile_support_object(dir, &opts).map_err(failed)?;
        let runtime = weft_passes::link::find_runtime(None).map_err(failed)?;
        let exe = dir.join(b.name);
        // The evaluation's programs carry no debug information (the runtime
        // archive's would make each 73 MB; linking and caching 52 of them
        // cost the quick run about 45 s of CPU, session 16).
        let stable: Vec<String> = weft_passes::link::STABLE_DATA_LAYOUT
            .iter()
            .chain([&weft_passes::link::STRIP_DEBUG])
            .map(|f| f.to_string())
            .collect();
        weft_passes::link::link_with(&opts.cc, "-O1", &stable, &[&bc, &support], &runtime, &exe)
            .map_err(failed)?;
        Ok(BuildOut {
            exe,
            remarks: report.remarks.iter().map(|r| r.to_string()).collect(),
        })
    }

    fn run(&self, job: &RunJob, build: &BuildOut, dir: &Path) -> StageResult<RunOut> {
        let b = bench::by_name(&job.build.bench).map_err(failed)?;
        let mut args = run_args(b, job.size);
        bench::check_data_args(&args).map_err(failed)?;
        if job.input_scale != 1 {
            let knob = b.size_knob.ok_or_else(|| {
                StageError::Unavailable(format!(
                    "`{}` has no generated input whose size `--size` scales",
                    b.name
                ))
            })?;
            let base = match job.size {
                Size::Tiny | Size::Quick => knob.quick,
                Size::Full => knob.eval,
                Size::Paper => super::inputs::paper_knob_base(b).unwrap_or(knob.full),
            };
            // A later `--size` overrides an earlier one (weft_bench.c).
            args.push("--size".into());
            args.push(knob.scaled(base, job.input_scale).to_string());
        }
        if let Some(Reorder::Gpart) = job.reorder {
            gpart_args(b, &build.exe, &mut args, dir)?;
        }
        let machine_text =
            super::machine::materialize(&job.machine).map_err(StageError::Unavailable)?;
        let machine_path = dir.join("machine.toml");
        std::fs::write(&machine_path, &machine_text).map_err(failed)?;
        let cores = match job.cores {
            Some(c) => c,
            None => {
                weft_memsim::config::MachineConfig::from_toml_str(&machine_text, "machine")
                    .map_err(failed)?
                    .core
                    .count
            }
        };
        let trace = dir.join(TRACE_NAME);
        let stats = dir.join(STATS_NAME);
        // The same process image whatever the paths: the initial stack holds
        // the environment, the arguments and the executable's name, so their
        // lengths shift every stack address (and its DRAM bank; a longer
        // `--out` moved moldyn's BLP by 5.7%). The program runs in `dir` as
        // `./prog`, with only its own variables, and reaches files outside
        // `dir` through links named by their file names.
        link_into(&build.exe, dir, "prog")?;
        let here = std::fs::canonicalize(dir).map_err(failed)?;
        for a in args.iter_mut() {
            let p = Path::new(a.as_str());
            if !a.contains('/') || !p.is_file() {
                continue;
            }
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .ok_or_else(|| failed(format!("argument {a} has no file name")))?;
            let canon = std::fs::canonicalize(p).map_err(failed)?;
            if canon.parent() != Some(here.as_path()) {
                link_into(&canon, dir, &name)?;
            }
            *a = name;
        }
        let mut cmd = program_command(dir, &args, &job.env, cores, TRACE_NAME, STATS_NAME);
        if job.size == Size::Paper {
            return run_paper(b, cmd, args, cores, job, dir);
        }
        let out = cmd
            .output()
            .map_err(|e| failed(format!("running {}: {e}", build.exe.display())))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(failed(format!(
                "{} {:?} exited with {}: {}",
                build.exe.display(),
                args,
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            )));
        }
        let checksum = bench::parse_checksum(&stdout)
            .map(|c| format!("{c:016x}"))
            .ok_or_else(|| failed(format!("{} printed no `checksum:` line", b.name)))?;
        let runtime = parse_runtime_stats(&stats)?;
        let records = trace_records(&trace)?;
        Ok(RunOut {
            checksum,
            trace,
            records,
            runtime,
        })
    }

    fn simulate(&self, job: &SimJob, run: &RunOut, dir: &Path) -> StageResult<SimStats> {
        if job.run.size == Size::Paper {
            return super::stream::simulate_streamed(job, run, dir);
        }
        simulate_trace(job, &run.trace, dir)
    }
}

/// The trace and statistics file names of a run (in its directory). Their
/// lengths are part of the program's image: a rerun streaming its trace uses
/// names of the same lengths (`eval::stream`).
pub(super) const TRACE_NAME: &str = "trace.bin";
/// See [`TRACE_NAME`].
pub(super) const STATS_NAME: &str = "stats.json";

/// The traced program `./prog` in `dir` with `args`, only its own variables
/// and the runtime options `env`, writing its trace and statistics to the
/// files `trace` and `stats` of `dir`.
pub(super) fn program_command(
    dir: &Path,
    args: &[String],
    env: &[(String, String)],
    cores: u32,
    trace: &str,
    stats: &str,
) -> Command {
    let mut cmd = Command::new("./prog");
    // Same addresses, hence same banks, on every run (no ASLR).
    weft_passes::link::reproducible_layout(&mut cmd);
    layout_limits(&mut cmd);
    cmd.current_dir(dir)
        .env_clear()
        // Runtime options only through the job (they are in its cache key).
        .envs(env.iter().map(|(k, v)| (k, v)))
        .args(args)
        .env("WEFT_TRACE", trace)
        .env("WEFT_STATS", stats)
        .env("WEFT_CORES", cores.to_string())
        .env("WEFT_MACHINE", "machine.toml");
    cmd
}

/// The run stage of a paper-size run: the trace goes through a FIFO and is
/// only counted; a replay file takes its place (`eval::stream`).
fn run_paper(
    b: &bench::Benchmark,
    cmd: Command,
    args: Vec<String>,
    cores: u32,
    job: &RunJob,
    dir: &Path,
) -> StageResult<RunOut> {
    use super::stream::{count_records, make_fifo, run_streamed, Replay, REPLAY_FILE};
    let fifo = dir.join(TRACE_NAME);
    let _ = std::fs::remove_file(&fifo);
    make_fifo(&fifo).map_err(|e| failed(format!("mkfifo {}: {e}", fifo.display())))?;
    let (stdout, (records, records_total)) = run_streamed(cmd, &fifo, |r| count_records(r, b.name))
        .map_err(|e| failed(format!("{} {args:?}: {e}", b.name)))?;
    let checksum = bench::parse_checksum(&stdout)
        .map(|c| format!("{c:016x}"))
        .ok_or_else(|| failed(format!("{} printed no `checksum:` line", b.name)))?;
    let runtime = parse_runtime_stats(&dir.join(STATS_NAME))?;
    let replay = dir.join(REPLAY_FILE);
    Replay {
        args,
        cores,
        env: job.env.clone(),
        checksum: checksum.clone(),
        records_total,
    }
    .save(&replay)?;
    Ok(RunOut {
        checksum,
        trace: replay,
        records,
        runtime,
    })
}

/// Rewrites `args` for a GPART run. With an `--input` file, the file is
/// renumbered into `dir` (`reorder::reorder_file`). Without one, the program
/// generates its data: it is run once with `--dump-graph` (it writes its data's
/// graph and exits before the timed part), the GPART order of that graph is
/// written to `dir/gpart.perm`, and `--permute` passes it to the traced run.
///
/// The permutation is a function of the program's sources, `weft_bench.c`, its
/// arguments and input files (all in the benchmark's content hash, hence in the
/// build key the run key extends), the `reorder` field of the run job and the
/// ordering code (in the toolchain fingerprint, the weft binary itself), so the
/// run cache keys on it as it does on a reordered input file.
fn gpart_args(
    b: &bench::Benchmark,
    exe: &Path,
    args: &mut Vec<String>,
    dir: &Path,
) -> StageResult<()> {
    use super::reorder::{self, ReorderError, DEFAULT_CLUSTER};
    let reorder_failed = |e: ReorderError| match e {
        ReorderError::Unsupported(_) => StageError::Unavailable(e.to_string()),
        e => failed(e),
    };
    if let Some(i) = args.iter().position(|a| a == "--input") {
        let input = PathBuf::from(args.get(i + 1).cloned().unwrap_or_default());
        let name = input
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        let out = dir.join(name);
        let base = args
            .iter()
            .position(|a| a == "--base")
            .and_then(|j| args.get(j + 1)?.parse().ok())
            .unwrap_or(0);
        reorder::reorder_file(&input, &out, base, DEFAULT_CLUSTER).map_err(reorder_failed)?;
        args[i + 1] = out.display().to_string();
        return Ok(());
    }
    let graph = dir.join("gpart.graph.mtx");
    let mut cmd = Command::new(exe);
    weft_passes::link::reproducible_layout(&mut cmd);
    layout_limits(&mut cmd);
    // No inherited variables: a `WEFT_TRACE` or `WEFT_STATS` of the harness's
    // environment must not make this run write a trace or statistics.
    let out = cmd
        .env_clear()
        .args(args.iter())
        .arg("--dump-graph")
        .arg(&graph)
        .output()
        .map_err(|e| failed(format!("running {}: {e}", exe.display())))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().last().unwrap_or("").to_string();
        return Err(if last.contains("not supported") {
            StageError::Unavailable(format!(
                "`{}` cannot renumber its generated input for GPART: {last}",
                b.name
            ))
        } else {
            failed(format!(
                "{} --dump-graph exited with {}: {last}",
                b.name, out.status
            ))
        });
    }
    let perm = dir.join("gpart.perm");
    reorder::permutation_file(&graph, &perm, DEFAULT_CLUSTER).map_err(reorder_failed)?;
    // The graph can be large and is not an artifact anyone reads.
    let _ = std::fs::remove_file(&graph);
    args.push("--permute".into());
    args.push(perm.display().to_string());
    Ok(())
}

/// The DRAM model the simulation uses.
pub const DRAM_MODEL: &str = "memsim DDR4 controllers (`dram_backend::DdrBackend`: per-channel controllers with bank/rank timing, row buffers, the version's request scheduler; cycle-exact against DRAMsim3 on read-only traces)";

/// Seed of every simulation (TCM's shuffles); fixed so runs are reproducible.
pub const SIM_SEED: u64 = 1;

/// The machine and the policies of a simulation job.
pub(super) fn sim_setup(
    job: &SimJob,
) -> StageResult<(
    weft_memsim::config::MachineConfig,
    weft_memsim::run::RunOptions,
)> {
    use weft_memsim::config::MachineConfig;
    let text = super::machine::materialize(&job.machine).map_err(StageError::Unavailable)?;
    let cfg = MachineConfig::from_toml_str(&text, &job.machine.label()).map_err(failed)?;
    let oracle = weft_memsim::oracle::Oracle::parse(job.oracle.name()).ok_or_else(|| {
        StageError::Unavailable(format!(
            "oracle `{}` is not offered by weft-memsim",
            job.oracle.name()
        ))
    })?;
    let scheduler =
        weft_memsim::dram_backend::Scheduler::parse(job.scheduler.name()).ok_or_else(|| {
            StageError::Unavailable(format!(
                "scheduler `{}` is not offered by weft-memsim",
                job.scheduler.name()
            ))
        })?;
    let opts = weft_memsim::run::RunOptions {
        scheduler,
        oracle,
        seed: SIM_SEED,
        perturb: 0,
        // the evaluation already runs `--jobs` simulations side by side
        dram_thread: false,
    };
    Ok((cfg, opts))
}

fn simulate_trace(job: &SimJob, trace: &Path, dir: &Path) -> StageResult<SimStats> {
    let (cfg, opts) = sim_setup(job)?;
    if job.replicas <= 1 {
        let st =
            weft_memsim::run::simulate_trace_file(&cfg, trace, &opts, |_| {}).map_err(failed)?;
        if let Ok(text) = serde_json::to_string(&st) {
            let _ = std::fs::write(dir.join("sim.json"), text);
        }
        return Ok(sim_stats(&st));
    }
    let mut reps = Vec::with_capacity(job.replicas as usize);
    for i in 0..job.replicas as u64 {
        let o = weft_memsim::run::RunOptions {
            seed: SIM_SEED + i,
            perturb: PERTURB_CYCLES,
            ..opts
        };
        let st = weft_memsim::run::simulate_trace_file(&cfg, trace, &o, |_| {}).map_err(failed)?;
        if let Ok(text) = serde_json::to_string(&st) {
            let _ = std::fs::write(dir.join(format!("sim.{i}.json")), text);
        }
        reps.push(sim_stats(&st));
    }
    Ok(mean_of_replicas(reps))
}

/// Largest extra delay (core cycles) of a request to a memory controller in a
/// perturbed replica (`weft_memsim::system::MemorySystem::set_perturbation`):
/// small against the memory latency (hundreds of cycles), so a replica's
/// mean is that of the unperturbed run within its noise, and enough for the
/// cores' interleavings to diverge (one cycle is; Alameldeen and Wood, HPCA
/// 2003, perturb each L2 miss by 0-4 ns).
pub const PERTURB_CYCLES: u32 = 4;

fn sim_stats(st: &weft_memsim::manycore::RunStats) -> SimStats {
    SimStats {
        cycles: st.cycles,
        blp: st.blp,
        mlp: st.mlp,
        clp: st.clp,
        llc_hit_rate: st.llc_hit_rate,
        row_hit_rate: st.row_hit_rate,
        avg_mem_latency: st.avg_mem_latency,
        blp_series: dense_series(&st.mlp_per_epoch),
        epoch_cycles: st.epoch_cycles,
        inspection_cycles: st.inspection_cycles,
        dram_requests: st.memory.dram_requests,
        prefetches_filled: st.memory.prefetches_filled,
        prefetches_useful: st.memory.prefetches_useful,
        llc_mpki: st.llc_mpki,
        sample_ci95_pct: None,
        ..SimStats::default()
    }
}

/// The replicas' statistics as one: means of every count, rate and average
/// (counts rounded), the first replica's BLP series (a series is one run's
/// time line, not an average), and each replica's cycles.
pub(super) fn mean_of_replicas(reps: Vec<SimStats>) -> SimStats {
    let n = reps.len().max(1) as f64;
    let mf = |f: fn(&SimStats) -> f64| reps.iter().map(f).sum::<f64>() / n;
    let mu = |f: fn(&SimStats) -> u64| (reps.iter().map(f).sum::<u64>() as f64 / n).round() as u64;
    let first = reps.first().cloned().unwrap_or_default();
    SimStats {
        cycles: mu(|s| s.cycles),
        blp: mf(|s| s.blp),
        mlp: mf(|s| s.mlp),
        clp: mf(|s| s.clp),
        llc_hit_rate: mf(|s| s.llc_hit_rate),
        row_hit_rate: mf(|s| s.row_hit_rate),
        avg_mem_latency: mf(|s| s.avg_mem_latency),
        inspection_cycles: mu(|s| s.inspection_cycles),
        dram_requests: mu(|s| s.dram_requests),
        prefetches_filled: mu(|s| s.prefetches_filled),
        prefetches_useful: mu(|s| s.prefetches_useful),
        llc_mpki: mf(|s| s.llc_mpki),
        replica_cycles: reps.iter().map(|s| s.cycles).collect(),
        replica_inspection_cycles: reps.iter().map(|s| s.inspection_cycles).collect(),
        ..first
    }
}

fn trace_records(path: &Path) -> StageResult<u64> {
    let f = std::fs::File::open(path).map_err(|e| failed(format!("{}: {e}", path.display())))?;
    let r = weft_memsim::trace::TraceReader::new(
        std::io::BufReader::new(f),
        path.display().to_string(),
    )
    .map_err(failed)?;
    let mut n = 0u64;
    for rec in r {
        // accesses only: barriers are synchronisation, not records of work
        n += u64::from(!rec.map_err(failed)?.kind.is_barrier());
    }
    Ok(n)
}

/// Coverage, inspector share and betas from the runtime's `WEFT_STATS` JSON.
pub fn parse_runtime_stats(path: &Path) -> StageResult<RuntimeStats> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            return Err(failed(format!(
                "runtime statistics {}: {e}",
                path.display()
            )))
        }
    };
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| failed(format!("{}: {e}", path.display())))?;
    Ok(runtime_stats_from_json(&v))
}

/// The same from parsed JSON (see `weft_runtime`'s `RegionStats`).
pub fn runtime_stats_from_json(v: &serde_json::Value) -> RuntimeStats {
    let regions = v
        .get("regions")
        .and_then(|r| r.as_array())
        .cloned()
        .unwrap_or_default();
    let num = |r: &serde_json::Value, k: &str| r.get(k).and_then(|x| x.as_f64()).unwrap_or(0.0);
    let irregular: Vec<&serde_json::Value> = regions
        .iter()
        .filter(|r| r.get("kind").and_then(|k| k.as_str()) == Some("irregular"))
        .collect();
    let coverage_pct = if irregular.is_empty() {
        None
    } else {
        let sched: f64 = irregular
            .iter()
            .map(|r| num(r, "scheduled_iterations"))
            .sum();
        let total: f64 = irregular.iter().map(|r| num(r, "total_iterations")).sum();
        (total > 0.0).then(|| 100.0 * sched / total)
    };
    let insp: f64 = regions.iter().map(|r| num(r, "inspector_ns")).sum();
    let exec: f64 = regions.iter().map(|r| num(r, "executor_ns")).sum::<f64>()
        + v.get("parallel_for").map_or(0.0, |p| num(p, "executor_ns"));
    let overhead_pct =
        (!irregular.is_empty() && insp + exec > 0.0).then(|| 100.0 * insp / (insp + exec));
    let betas = regions
        .iter()
        .flat_map(|r| {
            r.get("beta")
                .and_then(|b| b.as_array())
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|b| b.as_f64())
        .collect();
    let mut extra = std::collections::BTreeMap::new();
    extra.insert("runtime".to_string(), v.clone());
    RuntimeStats {
        coverage_pct,
        overhead_pct,
        betas,
        extra,
    }
}

#[allow(dead_code)]
fn _oracle(o: Oracle) -> &'static str {
    o.name()
}

/// The sparse per-epoch series of the simulator (`(epoch, value)` for the busy
/// epochs) as one value per epoch, 0 for the idle epochs in between (the plots'
/// form; an evaluation trace is bounded by the simulator's limits).
pub(super) fn dense_series(sparse: &[(u64, f64)]) -> Vec<f64> {
    let mut v = Vec::new();
    for &(e, x) in sparse {
        v.resize(e as usize, 0.0);
        v.push(x);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replicas average to one record: counts and cycles rounded, rates
    /// averaged, the series and the epoch of the first, each replica's cycles kept.
    #[test]
    fn replicas_average_by_hand() {
        let rep = |cycles, blp, insp, series: Vec<f64>| SimStats {
            cycles,
            blp,
            inspection_cycles: insp,
            dram_requests: cycles / 10,
            blp_series: series,
            epoch_cycles: 250,
            ..SimStats::default()
        };
        let m = mean_of_replicas(vec![
            rep(100, 2.0, 10, vec![1.0]),
            rep(201, 4.0, 11, vec![9.0, 9.0]),
        ]);
        assert_eq!(m.cycles, 151); // 150.5 rounds up
        assert_eq!(m.inspection_cycles, 11); // 10.5
        assert_eq!(m.dram_requests, 15); // (10 + 20) / 2
        assert!((m.blp - 3.0).abs() < 1e-12);
        assert_eq!(m.blp_series, vec![1.0]);
        assert_eq!(m.epoch_cycles, 250);
        assert_eq!(m.replica_cycles, vec![100, 201]);
        assert_eq!(m.replica_inspection_cycles, vec![10, 11]);
    }
}
