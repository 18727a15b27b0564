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

/// Linker flags that keep a traced program's data where it is when its code
/// grows or shrinks: every loadable segment starts on a 2 MiB boundary
/// (`-z separate-code` with a 2 MiB `max-page-size`), so `.rodata`, `.data`
/// and `.bss`, and with them the DRAM and LLC banks of every traced access
/// to a global, move only when the code crosses a 2 MiB boundary. Without
/// them, two builds of one program whose code differs by a few KiB (another
/// runtime, another pipeline) put its globals 4 KiB apart and the simulated
/// cycles of identical work differ: mxm under the chapter 5 Default scheme
/// ran 1,517,068 and 1,541,510 cycles (1.6%) in two builds whose traces
/// differed only in that shift (`docs/performance.md`, "Run-to-run stability"). The cost is
/// a larger file (the segments are padded; about 6 MB for a small program).
/// The evaluation links with them (`weft eval`).
pub const STABLE_DATA_LAYOUT: [&str; 2] = ["-Wl,-z,max-page-size=0x200000", "-Wl,-z,separate-code"];

/// Link flag that leaves debug information out of the program, for programs
/// that are only run (the evaluation, the kernel corpus, the tests). Most of it
/// is the runtime archive's (74 MB in a dev build, 178 MB before its line-tables
/// only profile); without it a link takes about 0.45 s instead of 0.8-1.5 s.
/// Debug sections are not loaded: segments, code and so every traced address
/// are those of the same program linked with them.
pub const STRIP_DEBUG: &str = "-Wl,--strip-debug";

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Addresses of a global, a read-only string and a `.bss` variable of a
    /// small C program linked with `flags`, with `pad` bytes of extra code,
    /// run with ASLR off.
    fn data_addresses(dir: &Path, flags: &[&str], pad: usize) -> String {
        let c = dir.join("m.c");
        std::fs::write(
            &c,
            format!(
                "#include <stdio.h>\nint g = 3; int b; const char *s = \"x\";\n\
                 void pad(void) {{ __asm__ volatile(\".rept {pad}\\n nop\\n .endr\"); }}\n\
                 int main(void) {{ printf(\"%p %p %p\", (void *)&g, (void *)&b, (void *)s); return 0; }}\n"
            ),
        )
        .unwrap();
        let exe = dir.join(format!("m{pad}"));
        let st = Command::new("clang-19")
            .arg("-O1")
            .args(flags)
            .arg(&c)
            .arg("-o")
            .arg(&exe)
            .status()
            .unwrap();
        assert!(st.success());
        let mut cmd = Command::new(&exe);
        let out = reproducible_layout(&mut cmd).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    }

    /// With [`STABLE_DATA_LAYOUT`], 16 KiB more code leaves every data
    /// address where it was; without it the data moves (the premise).
    #[test]
    fn stable_data_layout_keeps_data_addresses_when_code_grows() {
        if !layout_is_reproducible() {
            eprintln!("skipped: ASLR cannot be turned off here");
            return;
        }
        let dir = std::env::temp_dir().join(format!("weft-layout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stable = |pad| data_addresses(&dir, &STABLE_DATA_LAYOUT, pad);
        assert_eq!(stable(16), stable(16 * 1024));
        let plain = |pad| data_addresses(&dir, &[], pad);
        assert_ne!(plain(16), plain(16 * 1024));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
