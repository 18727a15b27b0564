//! One-call entry points for a full-system (manycore) simulation, used by `weft sim`,
//! `weft bench sim`, the benchmarks and the evaluation harness.

use crate::config::MachineConfig;
use crate::core::RecordSource;
use crate::dram_backend::{DdrBackend, Scheduler};
use crate::manycore::{Manycore, RunStats, SimError};
use crate::oracle::Oracle;
use crate::sample::estimate::SampleEstimate;
use crate::sample::{Plain, SampleParams, SampledSource, Warmed};
use crate::trace::{is_binary, CoreTextReader, TraceReader};
use crate::trace_source::DemuxSource;
use std::io::{BufReader, Read};
use std::path::Path;

/// Policy choices of a run.
#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Memory scheduler of every controller.
    pub scheduler: Scheduler,
    /// Oracle mode.
    pub oracle: Oracle,
    /// Seed (TCM shuffles, the perturbation); runs are deterministic for a
    /// given seed.
    pub seed: u64,
    /// Largest extra delay (cycles) of a request to a memory controller, drawn
    /// per request from `seed` (`MemorySystem::set_perturbation`); 0 = off.
    pub perturb: u32,
    /// Run the DRAM model on a thread of its own (same results; see
    /// `MemorySystem::spawn_dram_thread`).
    pub dram_thread: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            scheduler: Scheduler::FrFcfs,
            oracle: Oracle::None,
            seed: 1,
            perturb: 0,
            dram_thread: false,
        }
    }
}

/// Scheduler named by the config's `dram.scheduler`.
pub fn config_scheduler(cfg: &MachineConfig) -> Scheduler {
    match cfg.dram.scheduler {
        crate::config::SchedulerKind::Fcfs => Scheduler::Fcfs,
        _ => Scheduler::FrFcfs,
    }
}

/// Builds the manycore of `cfg` with the DDR model.
pub fn build(cfg: &MachineConfig, opts: &RunOptions) -> Result<Manycore<DdrBackend>, SimError> {
    let (cp, sp) = crate::machine::params(cfg, opts.oracle)?;
    let dram = DdrBackend::new(&cfg.dram, opts.scheduler, opts.seed)
        .map_err(|e| SimError::Unsupported(e.to_string()))?;
    let mut m = Manycore::new(cfg.core.count, cp, sp, dram)?;
    m.memory_mut().set_perturbation(opts.perturb, opts.seed);
    Ok(m)
}

/// Simulates `src` on `cfg`.
pub fn simulate(
    cfg: &MachineConfig,
    src: &mut dyn RecordSource,
    opts: &RunOptions,
    progress: impl FnMut(u64),
) -> Result<RunStats, SimError> {
    let mut m = build(cfg, opts)?;
    if opts.dram_thread {
        m.spawn_dram_thread()?;
    }
    m.run(src, progress)
}

/// Simulates a trace file, binary (`WEFTTRC` header) or per-core text
/// (`<core> <gap> <R|W> <hex address>`, `<core> <gap> B`), streaming it.
pub fn simulate_trace_file(
    cfg: &MachineConfig,
    path: &Path,
    opts: &RunOptions,
    progress: impl FnMut(u64),
) -> Result<RunStats, SimError> {
    with_trace_source(cfg, path, |src| simulate(cfg, src, opts, progress))
}

/// A sampled run's results.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SampledRun {
    /// Sampling parameters.
    pub params: SampleParams,
    /// The extrapolated totals.
    pub estimate: SampleEstimate,
    /// Functional-warming totals.
    pub warmed: Warmed,
    /// Statistics of the detailed segments alone (their cycles are the
    /// simulated time, without the warmed records).
    pub detailed: RunStats,
}

/// DRAM statistics epoch of a sampled run (DRAM cycles).
const SAMPLED_EPOCH: u64 = 200;

/// Simulates `src` on `cfg` with sampling `params` ([`crate::sample`]); the
/// DRAM model runs on the simulating thread (warming updates its row buffers).
pub fn simulate_sampled(
    cfg: &MachineConfig,
    src: &mut dyn RecordSource,
    opts: &RunOptions,
    params: SampleParams,
    progress: impl FnMut(u64),
) -> Result<SampledRun, SimError> {
    // Finer DRAM statistics epochs (the mean BLP does not depend on them), so
    // that the BLP weighting resolves each segment's steady part.
    let mut cfg = cfg.clone();
    cfg.dram.epoch_cycles = cfg.dram.epoch_cycles.min(SAMPLED_EPOCH);
    let cfg = &cfg;
    let mut m = build(cfg, opts)?;
    let mut s = SampledSource::new(Plain(src), cfg.core.count, params);
    let detailed = m.run_driven(&mut s, progress)?;
    let warmed = s.warmed();
    let finish: Vec<u64> = detailed.per_core.iter().map(|c| c.cycles).collect();
    let est = s.finish(detailed.cycles, &finish);
    let clocks = m.memory().params().clocks;
    let epoch_len = cfg.dram.epoch_cycles;
    let epochs = m.memory_mut().dram_mut().final_stats().blp_epochs.clone();
    let estimate = est.estimate(&epochs, epoch_len, |c| clocks.core_to_dram_floor(c));
    Ok(SampledRun {
        params,
        estimate,
        warmed,
        detailed,
    })
}

/// [`simulate_sampled`] on a trace file (formats as [`simulate_trace_file`]).
pub fn simulate_trace_file_sampled(
    cfg: &MachineConfig,
    path: &Path,
    opts: &RunOptions,
    params: SampleParams,
    progress: impl FnMut(u64),
) -> Result<SampledRun, SimError> {
    with_trace_source(cfg, path, |src| {
        simulate_sampled(cfg, src, opts, params, progress)
    })
}

/// Opens a trace file as a per-core source for a machine of `cfg`'s cores.
fn with_trace_source<T>(
    cfg: &MachineConfig,
    path: &Path,
    f: impl FnOnce(&mut dyn RecordSource) -> Result<T, SimError>,
) -> Result<T, SimError> {
    let name = path.display().to_string();
    let io = |e: std::io::Error| SimError::Trace(format!("{name}: I/O error: {e}"));
    let mut file = BufReader::with_capacity(1 << 16, std::fs::File::open(path).map_err(io)?);
    let mut head = [0u8; 8];
    let n = read_prefix(&mut file, &mut head).map_err(io)?;
    let file = std::io::Cursor::new(head[..n].to_vec()).chain(file);
    let cores = cfg.core.count;
    if is_binary(&head[..n]) {
        let r = TraceReader::new(file, name.clone()).map_err(|e| SimError::Trace(e.to_string()))?;
        if r.cores() > cores {
            return Err(SimError::HeaderCores {
                header: r.cores(),
                cores,
            });
        }
        f(&mut DemuxSource::new(r, cores))
    } else {
        let r = CoreTextReader::new(BufReader::new(file), name);
        f(&mut DemuxSource::new(r, cores))
    }
}

fn read_prefix(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// The benchmark workload of `weft bench sim` and `benches/sim.rs`: `total` records
/// over `cores` cores, 3/4 streaming and 1/4 random 8-byte accesses, gaps 0..=8, one
/// store in 8 (see [`crate::synth`]).
pub fn bench_workload(cores: u32, total: u64, seed: u64) -> crate::synth::SynthSource {
    use crate::synth::{Pattern, SynthParams, SynthSource};
    SynthSource::new(SynthParams {
        pattern: Pattern::Mixed,
        cores,
        records_per_core: total / cores.max(1) as u64,
        max_gap: 8,
        write_every: 8,
        stride: 8,
        row_stride: 64 * 1024,
        seed,
    })
}

/// The single-pattern workloads of the `sim_speed` and `sim_stats` examples
/// (streaming versus same-bank BLP/CLP): `per_core` loads per core of
/// `pattern`, gaps 0..=4, 32-byte stride, seed 1, rows of `cfg`'s mapping.
pub fn pattern_workload(
    cfg: &MachineConfig,
    pattern: crate::synth::Pattern,
    cores: u32,
    per_core: u64,
) -> Result<crate::synth::SynthSource, SimError> {
    use crate::synth::{SynthParams, SynthSource};
    Ok(SynthSource::new(SynthParams {
        pattern,
        cores,
        records_per_core: per_core,
        max_gap: 4,
        write_every: 0,
        stride: 32,
        row_stride: row_stride(cfg)?,
        seed: 1,
    }))
}

/// Bytes between consecutive rows of one memory bank under `cfg`'s mapping (the
/// span of every address bit below the lowest row bit), for same-bank workloads.
pub fn row_stride(cfg: &MachineConfig) -> Result<u64, SimError> {
    let m = cfg
        .dram
        .mapping()
        .map_err(|e| SimError::Unsupported(e.to_string()))?;
    let a = m.encode(&crate::addrmap::DramAddr {
        row: 1,
        ..Default::default()
    });
    Ok(a.max(1))
}
