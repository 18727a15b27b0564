//! Measures the bank-level parallelism (BLP) of a memory trace with the simulator's
//! API, as `weft sim` does (dissertation §4.2: BLP = banks busy serving requests,
//! averaged over the cycles when at least one is busy).
//!
//! With a trace path it simulates that trace (binary, from `weft run --trace`, or
//! text) on `table5.2`. Without one it writes two binary traces with
//! [`TraceWriter`] and compares them: 16 cores that each stream their own region
//! (the accesses spread over many banks) against 16 cores whose accesses all map to
//! one DRAM bank, in different rows: the cores then wait on that bank in turn.
//!
//! `cargo run --example trace_blp -- [TRACE]` (from the repository root)

use std::error::Error;
use std::io::Write;
use std::path::{Path, PathBuf};

use weft_memsim::config::MachineConfig;
use weft_memsim::run::{row_stride, simulate_trace_file, RunOptions};
use weft_memsim::trace::{AccessKind, Record, TraceWriter};

const CORES: u16 = 16;
const PER_CORE: u64 = 2_000;

fn main() -> Result<(), Box<dyn Error>> {
    let trace = std::env::args_os().nth(1).map(PathBuf::from);
    run(trace.as_deref(), &mut std::io::stdout().lock())
}

/// Simulates `trace`, or the two built-in traces without one, and prints the
/// statistics to `out` (`tests/all/readme.rs` calls this and checks what it prints).
pub fn run(trace: Option<&Path>, out: &mut dyn Write) -> Result<(), Box<dyn Error>> {
    let cfg = MachineConfig::preset("table5.2")?;
    // The DRAM model on a thread of its own gives the same statistics; one thread
    // keeps this example light on a loaded host.
    let opts = RunOptions {
        dram_thread: false,
        ..RunOptions::default()
    };
    if let Some(trace) = trace {
        return report(out, &cfg, &opts, trace);
    }
    let dir = tempfile::tempdir()?;
    let same_bank_stride = row_stride(&cfg)?;
    let spread = write_trace(dir.path().join("spread.trace"), |core, i| {
        // each core walks its own 64 MiB region line by line
        ((core as u64) << 26) + i * 64
    })?;
    let one_bank = write_trace(dir.path().join("one_bank.trace"), |core, i| {
        // rows of bank 0 only: consecutive accesses of all cores one row apart
        (i * CORES as u64 + core as u64 + 1) * same_bank_stride
    })?;
    report(out, &cfg, &opts, &spread)?;
    report(out, &cfg, &opts, &one_bank)
}

/// Writes a trace of `PER_CORE` 8-byte reads per core at `addr(core, i)`, with two
/// non-memory instructions between a core's reads.
fn write_trace(path: PathBuf, addr: impl Fn(u16, u64) -> u64) -> Result<PathBuf, Box<dyn Error>> {
    let mut w = TraceWriter::new(std::fs::File::create(&path)?, CORES as u32)?;
    for i in 0..PER_CORE {
        for core in 0..CORES {
            w.write(&Record {
                core,
                kind: AccessKind::Read,
                size: 8,
                addr: addr(core, i),
                gap: 2,
            })?;
        }
    }
    w.finish()?;
    Ok(path)
}

fn report(
    out: &mut dyn Write,
    cfg: &MachineConfig,
    opts: &RunOptions,
    trace: &Path,
) -> Result<(), Box<dyn Error>> {
    let s = simulate_trace_file(cfg, trace, opts, |_| {})?;
    let name = trace.file_name().unwrap_or_default().to_string_lossy();
    writeln!(
        out,
        "{name}: {} records, {} cycles, BLP {:.2}, CLP {:.2}, row-buffer hit rate {:.2}",
        s.records, s.cycles, s.blp, s.clp, s.row_hit_rate
    )?;
    Ok(())
}
