//! Linking optimized IR with the runtime: locating `libweft_runtime.a` and
//! invoking clang-19. Used by `weft build` and the filetests' native runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{PassError, Result};

fn err(msg: String) -> PassError {
    PassError::Link(msg)
}

/// Finds `libweft_runtime.a`: `explicit`, else `$WEFT_RUNTIME_LIB`, else next
/// to the running binary: the newest of `target/<profile>/libweft_runtime.a`
/// and cargo's `deps/libweft_runtime-<hash>.a`. The error says how to build it.
pub fn find_runtime(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = explicit {
        if p.is_file() {
            return Ok(p.to_path_buf());
        }
        return Err(err(format!(
            "runtime library {} does not exist",
            p.display()
        )));
    }
    if let Some(p) = std::env::var_os("WEFT_RUNTIME_LIB") {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        return Err(err(format!(
            "WEFT_RUNTIME_LIB={} does not exist",
            p.display()
        )));
    }
    let exe =
        std::env::current_exe().map_err(|e| err(format!("locating the running binary: {e}")))?;
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(d) = exe.parent() {
        dirs.push(d.to_path_buf());
        if let Some(up) = d.parent() {
            dirs.push(up.to_path_buf());
        }
    }
    // The newest candidate wins: `cargo build` of a package that depends on
    // the runtime refreshes `deps/libweft_runtime-<hash>.a` but not the
    // `target/<profile>/libweft_runtime.a` copy (only building the runtime
    // package itself does), so preferring that copy links a stale runtime.
    let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
    for d in &dirs {
        for dd in [d.join("deps"), d.clone()] {
            let Ok(rd) = std::fs::read_dir(&dd) else {
                continue;
            };
            for e in rd.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                let hashed = n.starts_with("libweft_runtime-") && n.ends_with(".a");
                if !(hashed || n == "libweft_runtime.a") {
                    continue;
                }
                let t = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                if best.as_ref().map_or(true, |(bt, _)| t > *bt) {
                    best = Some((t, e.path()));
                }
            }
        }
    }
    best.map(|(_, p)| p).ok_or_else(|| {
        err(format!(
            "libweft_runtime.a not found next to {} (looked in {}); build it with \
             `cargo build -p weft-runtime` in the same profile, or pass --runtime <path> / set WEFT_RUNTIME_LIB",
            exe.display(),
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// Compiles and links `inputs` (IR, bitcode, C) with the runtime into `exe`.
pub fn link(cc: &str, opt_level: &str, inputs: &[&Path], runtime: &Path, exe: &Path) -> Result<()> {
    link_with(cc, opt_level, &[], inputs, runtime, exe)
}

/// [`link`] with `flags` given to `cc` after the optimisation level (code
/// generation options such as `-falign-loops=64` or `-march=native`).
pub fn link_with(
    cc: &str,
    opt_level: &str,
    flags: &[String],
    inputs: &[&Path],
    runtime: &Path,
    exe: &Path,
) -> Result<()> {
    let out = Command::new(cc)
        .arg(opt_level)
        .args(flags)
        .args(inputs)
        .arg(runtime)
        // Keep the runtime's start-up entry (configures it early when
        // WEFT_TRACE / WEFT_STATS is set; `weft_runtime::abi`).
        .arg("-Wl,-u,weft_init_array_entry")
        .args(["-lpthread", "-ldl", "-lm", "-lrt", "-o"])
        .arg(exe)
        .output()
        .map_err(|e| {
            err(format!(
                "running {cc}: {e} (install it: apt-get install clang-19)"
            ))
        })?;
    if !out.status.success() {
        return Err(err(format!(
            "{cc} failed linking {}:\n{}",
            exe.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(())
}

/// Makes a program's memory layout reproducible: the child runs with address-space
/// layout randomisation off (`personality(ADDR_NO_RANDOMIZE)`, what `setarch -R`
/// does), so heap, stack and mmap addresses, and therefore the DRAM and LLC banks
/// of every traced access, are the same on every run. Traced runs (`weft run
/// --trace`, `weft eval`) use it; without it two runs of one binary give
/// different bank mappings and different simulated statistics.
///
/// Where the kernel refuses the personality change (some sandboxes), the program
/// still runs, with randomised addresses; [`layout_is_reproducible`] tells.
pub fn reproducible_layout(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: `personality` is async-signal-safe and touches no memory of the
    // parent; the closure runs in the forked child before exec.
    unsafe {
        cmd.pre_exec(|| {
            let cur = libc::personality(0xffff_ffff);
            if cur != -1 {
                let _ = libc::personality((cur as libc::c_ulong) | ADDR_NO_RANDOMIZE);
            }
            Ok(())
        })
    }
}

/// `ADDR_NO_RANDOMIZE` of `<linux/personality.h>`.
const ADDR_NO_RANDOMIZE: libc::c_ulong = 0x0004_0000;

/// Whether [`reproducible_layout`] takes effect on this machine: a child started
/// with it reports `ADDR_NO_RANDOMIZE` in `/proc/self/personality`.
pub fn layout_is_reproducible() -> bool {
    let mut cmd = Command::new("cat");
    cmd.arg("/proc/self/personality");
    match reproducible_layout(&mut cmd).output() {
        Ok(o) => {
            let s = String::from_utf8_lossy(&o.stdout);
            u64::from_str_radix(s.trim(), 16)
                .map(|p| p & ADDR_NO_RANDOMIZE != 0)
                .unwrap_or(false)
        }
        Err(_) => false,
    }
}
