//! The real backend: stages performed by the weft crates.
//!
//! Build = the benchmark's C source through `weft-passes` with the version's
//! pipeline, linked with `libweft_runtime.a` by clang-19; run = the executable in
//! trace mode (`WEFT_TRACE`, `WEFT_CORES`, `WEFT_MACHINE`, `WEFT_STATS`); simulate
//! = `weft-memsim`'s manycore simulator with the version's scheduler and oracle.
//! Each stage is wired to its crate as that crate provides it; a stage whose crate
//! does not offer it yet answers "not available" with the reason.

use super::backend::*;
use super::cache::ContentHasher;
use super::versions::{Knob, Study, Version};
use std::path::Path;
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

impl Backend for WeftBackend {
    fn fingerprint(&self) -> String {
        let mut h = ContentHasher::new();
        if let Ok(exe) = std::env::current_exe() {
            let _ = h.file(&exe);
        }
        h.field(&clang_version());
        h.hex()
    }

    fn benchmarks(&self, _study: Study, _size: Size) -> StageResult<Vec<BenchInfo>> {
        Err(StageError::Unavailable(
            "no benchmark registry in weft-testsuite yet (testsuite/src/bench.rs)".into(),
        ))
    }

    fn check_version(&self, _version: &Version) -> StageResult<()> {
        Err(StageError::Unavailable(
            "weft-passes has no pass manager yet".into(),
        ))
    }

    fn check_knob(&self, _machine: &str, _knob: &Knob) -> StageResult<()> {
        Err(StageError::Unavailable(
            "weft-memsim has no machine configuration yet".into(),
        ))
    }

    fn build(&self, _job: &BuildJob, _dir: &Path) -> StageResult<BuildOut> {
        Err(StageError::Unavailable(
            "weft-passes has no build driver yet".into(),
        ))
    }

    fn run(&self, _job: &RunJob, _build: &BuildOut, _dir: &Path) -> StageResult<RunOut> {
        Err(StageError::Unavailable(
            "weft-runtime has no trace mode yet".into(),
        ))
    }

    fn simulate(&self, _job: &SimJob, _run: &RunOut, _dir: &Path) -> StageResult<SimStats> {
        Err(StageError::Unavailable(
            "weft-memsim has no manycore simulator yet".into(),
        ))
    }
}
