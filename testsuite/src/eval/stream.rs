//! Streamed, sampled simulation of paper-scale runs (issue #36 parts 2 and 3).
//!
//! A paper-size trace does not fit on disk (16 bytes a record; HPCG at Table
//! 4.1's size writes ~2x10^9 records), so in the `paper` size class no trace
//! is stored. The program's `WEFT_TRACE` names a FIFO: in the *run* stage a
//! thread reads it only to count the records, and the run leaves a small
//! replay file (the program's arguments, cores, runtime options, checksum and
//! record count) where the trace would be; each *simulation* reruns the
//! program with its trace going through a FIFO straight into
//! `weft_memsim::run::simulate_sampled` (SMARTS-style sampling,
//! `docs/sampling.md`). The rerun is the same process image (same argument and
//! variable lengths: the FIFO and statistics names have the lengths of
//! `trace.bin` and `stats.json`, so every stack address and bank is the same),
//! and its checksum and record count must equal the run's, or the simulation
//! fails.
//!
//! The reading end is opened before the program starts (the runtime opens its
//! trace for writing at start-up to check it, which blocks without a reader,
//! and closes it again); an end of file before any byte arrived is that check,
//! not the end of the trace, so the reader waits for the real writer unless the
//! program has exited.

pub mod check;

use super::backend::*;
use serde::{Deserialize, Serialize};
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use weft_memsim::sample::SampleParams;
use weft_memsim::trace::TraceReader;

/// Sampling of the paper-size simulations, records per core
/// (`PERIOD:DETAILED`): 4,000 detailed records per segment, the length below
/// which `docs/sampling.md` measured the BLP error growing, one period in 16.
pub const PAPER_SAMPLE: &str = "64000:4000";

/// The sampling parameters of [`PAPER_SAMPLE`].
pub fn paper_sample() -> SampleParams {
    SampleParams::parse(PAPER_SAMPLE).expect("PAPER_SAMPLE is a valid spec")
}

/// Name of the replay file a paper-size run leaves instead of its trace.
pub const REPLAY_FILE: &str = "replay.json";

/// How to rerun a paper-size program (written by the run stage).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replay {
    /// The program's arguments (file names relative to the run directory).
    pub args: Vec<String>,
    /// `WEFT_CORES`.
    pub cores: u32,
    /// Runtime options (`RunJob::env`).
    pub env: Vec<(String, String)>,
    /// The checksum the run printed.
    pub checksum: String,
    /// Records of the trace, barriers included.
    pub records_total: u64,
}

impl Replay {
    /// Reads a replay file.
    pub fn load(path: &Path) -> StageResult<Replay> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| failed(format!("{}: {e}", path.display())))?;
        serde_json::from_str(&text).map_err(|e| failed(format!("{}: {e}", path.display())))
    }

    /// Writes it.
    pub fn save(&self, path: &Path) -> StageResult<()> {
        let text = serde_json::to_string_pretty(self).map_err(failed)?;
        std::fs::write(path, text).map_err(|e| failed(format!("{}: {e}", path.display())))
    }
}

fn failed(e: impl std::fmt::Display) -> StageError {
    StageError::Failed(e.to_string())
}

/// Creates a FIFO at `path`; fails if anything exists there.
pub fn make_fifo(path: &Path) -> io::Result<()> {
    let c = CString::new(path.as_os_str().as_bytes())?;
    // SAFETY: `c` is a valid NUL-terminated path; mkfifo only reads it.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Claims a name `<stem>.<n>` of `len` bytes in `dir` (the length of the
/// name the first run used, so the program's image is the same) by creating
/// it with `create`, which must fail with `AlreadyExists` on a taken name.
fn claim(
    dir: &Path,
    stem: &str,
    len: usize,
    create: impl Fn(&Path) -> io::Result<()>,
) -> StageResult<String> {
    let digits = len.saturating_sub(stem.len() + 1).max(1);
    let limit = 10u32.saturating_pow(digits.min(9) as u32);
    for n in 0..limit {
        let name = format!("{stem}.{n:0digits$}");
        match create(&dir.join(&name)) {
            Ok(()) => return Ok(name),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(failed(format!(
                    "creating {}: {e}",
                    dir.join(&name).display()
                )))
            }
        }
    }
    Err(failed(format!(
        "no free name {stem}.* in {}",
        dir.display()
    )))
}

/// Claims a FIFO `<stem>.<n>` of `len` bytes in `dir` (see [`claim`]).
pub fn claim_fifo(dir: &Path, stem: &str, len: usize) -> StageResult<String> {
    claim(dir, stem, len, make_fifo)
}

/// Claims an empty file `<stem>.<n>` of `len` bytes in `dir` (see [`claim`]).
pub fn claim_file(dir: &Path, stem: &str, len: usize) -> StageResult<String> {
    claim(dir, stem, len, |p| {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(p)
            .map(drop)
    })
}

/// The reading end of a trace FIFO (see the module docs for its end of file).
pub struct FifoReader {
    file: File,
    seen: bool,
    writer_gone: Arc<AtomicBool>,
}

impl FifoReader {
    /// Opens `path` for reading without waiting for a writer; `writer_gone`
    /// is set once the writing program has exited.
    pub fn open(path: &Path, writer_gone: Arc<AtomicBool>) -> io::Result<FifoReader> {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?;
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns.
        unsafe {
            let fl = libc::fcntl(fd, libc::F_GETFL);
            if fl < 0 || libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_NONBLOCK) < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(FifoReader {
            file,
            seen: false,
            writer_gone,
        })
    }
}

impl Read for FifoReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.file.read(buf) {
                Ok(0) => {}
                Ok(n) => {
                    self.seen = true;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            // No writer: the trace ended, or the program has not opened it yet.
            if self.seen || self.writer_gone.load(Ordering::Acquire) {
                return Ok(0);
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }
}

/// Runs `cmd`, whose trace goes to the FIFO `fifo` (already created), and
/// hands the trace to `consume` while the program writes it. Returns the
/// program's standard output and `consume`'s result; the FIFO is removed.
/// A failing `consume` kills the program.
pub fn run_streamed<T>(
    mut cmd: Command,
    fifo: &Path,
    consume: impl FnOnce(BufReader<FifoReader>) -> StageResult<T>,
) -> StageResult<(String, T)> {
    let gone = Arc::new(AtomicBool::new(false));
    let reader = FifoReader::open(fifo, gone.clone());
    let reader = match reader {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_file(fifo);
            return Err(failed(format!("opening {}: {e}", fifo.display())));
        }
    };
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_file(fifo);
            return Err(failed(format!("starting the program: {e}")));
        }
    };
    let drain = |s: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut s) = s {
                let _ = s.read_to_end(&mut text);
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    );
    // The child stays owned here (so a failing `consume` can kill it without
    // racing its reaping); a thread polls for its exit and flags it.
    let child = Arc::new(std::sync::Mutex::new(child));
    let (flag, polled) = (gone.clone(), child.clone());
    let waiter = std::thread::spawn(move || loop {
        let st = polled.lock().map(|mut c| c.try_wait());
        match st {
            Ok(Ok(Some(st))) => {
                flag.store(true, Ordering::Release);
                return Ok(st);
            }
            Ok(Ok(None)) => std::thread::sleep(std::time::Duration::from_millis(5)),
            Ok(Err(e)) => {
                flag.store(true, Ordering::Release);
                return Err(e);
            }
            Err(_) => {
                flag.store(true, Ordering::Release);
                return Err(io::Error::other("the program's handle was poisoned"));
            }
        }
    });
    let result = consume(BufReader::with_capacity(1 << 20, reader));
    if result.is_err() {
        if let Ok(mut c) = child.lock() {
            // Does nothing once the child has been reaped.
            let _ = c.kill();
        }
    }
    let status = waiter
        .join()
        .map_err(|_| failed("waiting for the program"))?;
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    let _ = std::fs::remove_file(fifo);
    let value = result?;
    let status = status.map_err(|e| failed(format!("waiting for the program: {e}")))?;
    if !status.success() {
        return Err(failed(format!(
            "the program exited with {status}: {}",
            stderr.lines().last().unwrap_or("")
        )));
    }
    Ok((stdout, value))
}

/// Counts a streamed trace's records: (accesses, all records).
pub fn count_records(r: impl Read, name: &str) -> StageResult<(u64, u64)> {
    let tr = TraceReader::new(r, name.to_string()).map_err(failed)?;
    let (mut accesses, mut all) = (0u64, 0u64);
    for rec in tr {
        let rec = rec.map_err(failed)?;
        all += 1;
        accesses += u64::from(!rec.kind.is_barrier());
    }
    Ok((accesses, all))
}

/// The run directory of a paper-size run's replay file.
pub fn run_dir(replay: &Path) -> PathBuf {
    replay.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// The simulation stage of a paper-size run: reruns the program of `run`'s
/// replay file with its trace streamed into a sampled simulation of `job`.
pub fn simulate_streamed(job: &SimJob, run: &RunOut, dir: &Path) -> StageResult<SimStats> {
    use super::weft::{dense_series, program_command, sim_setup, STATS_NAME, TRACE_NAME};
    let replay = Replay::load(&run.trace)?;
    let here = run_dir(&run.trace);
    let (cfg, opts) = sim_setup(job)?;
    let params = paper_sample();
    let trace = claim_fifo(&here, "trace", TRACE_NAME.len())?;
    let stats = match claim_file(&here, "stats", STATS_NAME.len()) {
        Ok(name) => name,
        Err(e) => {
            let _ = std::fs::remove_file(here.join(&trace));
            return Err(e);
        }
    };
    let cmd = program_command(
        &here,
        &replay.args,
        &replay.env,
        replay.cores,
        &trace,
        &stats,
    );
    let cores = cfg.core.count;
    let streamed = run_streamed(cmd, &here.join(&trace), |r| {
        let tr = TraceReader::new(r, trace.clone()).map_err(failed)?;
        if tr.cores() > cores {
            return Err(failed(format!(
                "the trace has {} cores, the machine {cores}",
                tr.cores()
            )));
        }
        let mut src = weft_memsim::trace_source::DemuxSource::new(tr, cores);
        let r = weft_memsim::run::simulate_sampled(&cfg, &mut src, &opts, params, |_| {})
            .map_err(failed)?;
        Ok((r, src.records_read()))
    });
    let _ = std::fs::remove_file(here.join(&stats));
    let (stdout, (r, read)) = streamed?;
    let checksum = crate::bench::parse_checksum(&stdout).map(|c| format!("{c:016x}"));
    if checksum.as_deref() != Some(replay.checksum.as_str()) || read != replay.records_total {
        return Err(failed(format!(
            "the rerun differs from the run: checksum {checksum:?} and {read} records, the run {} and {}",
            replay.checksum, replay.records_total
        )));
    }
    if let Ok(text) = serde_json::to_string(&r) {
        let _ = std::fs::write(dir.join("sim.json"), text);
    }
    let d = &r.detailed;
    let e = &r.estimate;
    Ok(SimStats {
        cycles: e.cycles.round() as u64,
        blp: e.blp,
        // Rates and averages of the detailed segments.
        mlp: d.mlp,
        clp: d.clp,
        llc_hit_rate: d.llc_hit_rate,
        row_hit_rate: d.row_hit_rate,
        avg_mem_latency: d.avg_mem_latency,
        blp_series: dense_series(&d.mlp_per_epoch),
        epoch_cycles: d.epoch_cycles,
        inspection_cycles: e.inspection_cycles.round() as u64,
        dram_requests: d.memory.dram_requests,
        prefetches_filled: d.memory.prefetches_filled,
        prefetches_useful: d.memory.prefetches_useful,
        llc_mpki: d.llc_mpki,
        sample_ci95_pct: e.cycles_ci95_rel.map(|x| 100.0 * x),
        ..SimStats::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use weft_memsim::trace::{AccessKind, Record, TraceWriter};

    fn trace_bytes(n: u64) -> Vec<u8> {
        let mut w = TraceWriter::new(Vec::new(), 2).unwrap();
        for i in 0..n {
            let kind = if i % 10 == 9 {
                AccessKind::Barrier
            } else {
                AccessKind::Read
            };
            w.write(&Record {
                core: (i % 2) as u16,
                gap: 1,
                kind,
                addr: i * 64,
                size: 8,
            })
            .unwrap();
        }
        w.finish().unwrap()
    }

    /// A writer that opens and closes the FIFO first (the runtime's start-up
    /// check), then writes the trace: the reader sees all of it.
    #[test]
    fn streamed_trace_survives_the_start_up_check() {
        let dir = tempfile::tempdir().unwrap();
        let name = claim_fifo(dir.path(), "trace", "trace.bin".len()).unwrap();
        assert_eq!(name.len(), "trace.bin".len());
        let fifo = dir.path().join(&name);
        let bytes = trace_bytes(1000);
        std::fs::write(dir.path().join("t.src"), &bytes).unwrap();
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!(
                ": > {name}; sleep 0.05; cat t.src > {name}; echo checksum: 42"
            ))
            .current_dir(dir.path());
        let (out, (acc, all)) = run_streamed(cmd, &fifo, |r| count_records(r, "fifo")).unwrap();
        assert_eq!((acc, all), (900, 1000));
        assert!(out.contains("checksum: 42"));
        assert!(!fifo.exists());
    }

    /// A program that fails before writing ends the stream (no hang) and the
    /// stage fails with its exit status.
    #[test]
    fn a_program_that_never_writes_fails_the_stage() {
        let dir = tempfile::tempdir().unwrap();
        let name = claim_fifo(dir.path(), "trace", 9).unwrap();
        let fifo = dir.path().join(&name);
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg("echo boom >&2; exit 3");
        let e = run_streamed(cmd, &fifo, |r| count_records(r, "fifo")).unwrap_err();
        assert!(matches!(e, StageError::Failed(_)), "{e:?}");
    }

    #[test]
    fn fifo_names_keep_their_length_and_do_not_collide() {
        let dir = tempfile::tempdir().unwrap();
        let a = claim_fifo(dir.path(), "trace", 9).unwrap();
        let b = claim_fifo(dir.path(), "trace", 9).unwrap();
        assert_eq!(a, "trace.000");
        assert_eq!(b, "trace.001");
        let s = claim_file(dir.path(), "stats", "stats.json".len()).unwrap();
        assert_eq!(s, "stats.0000");
        assert!(dir.path().join(&s).is_file());
    }
}
