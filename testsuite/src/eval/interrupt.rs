//! Interrupts of `weft eval` (issue #38): SIGINT and SIGTERM stop the
//! harness's children and leave the cache consistent.
//!
//! The cache publishes an entry only by renaming a complete temporary file
//! (`cache.rs`), and clang-19 writes its objects the same way; so a consistent
//! cache needs only that no temporary outlives the run and no child goes on
//! writing after it. [`install`] starts a watcher: on the first SIGINT or
//! SIGTERM it sends SIGTERM to every descendant process (found in `/proc`;
//! clang removes its own temporaries on SIGTERM), waits briefly for them, kills
//! what is left, removes every `*.tmp` file under the cache directory, and
//! exits with status 130 (SIGINT) or 143 (SIGTERM). Simulations run in-process
//! and end with the process. [`remove_temporaries`] also runs when a run
//! starts, for temporaries left by a run that was killed outright (SIGKILL).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

static SIGNAL: AtomicI32 = AtomicI32::new(0);
static WATCHED: OnceLock<PathBuf> = OnceLock::new();

extern "C" fn on_signal(sig: libc::c_int) {
    // Async-signal-safe: one atomic store; the watcher thread does the work.
    SIGNAL.store(sig, Ordering::SeqCst);
}

/// Installs the SIGINT/SIGTERM handling for a run whose cache is `cache`
/// (once per process; later calls keep the first directory).
pub fn install(cache: &Path) {
    if WATCHED.set(cache.to_path_buf()).is_err() {
        return;
    }
    // SAFETY: `on_signal` only stores to an atomic, which is async-signal-safe.
    unsafe {
        let h = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::signal(libc::SIGINT, h);
        libc::signal(libc::SIGTERM, h);
    }
    std::thread::spawn(|| loop {
        let sig = SIGNAL.load(Ordering::SeqCst);
        if sig != 0 {
            stop_children();
            if let Some(dir) = WATCHED.get() {
                remove_temporaries(dir);
            }
            eprintln!("weft eval: interrupted; children stopped, cache left consistent");
            std::process::exit(128 + sig);
        }
        std::thread::sleep(Duration::from_millis(50));
    });
}

/// Whether SIGINT or SIGTERM has arrived (after [`install`]). The engine
/// starts no job once it has: a child killed by the watcher must not be
/// replaced by a new one.
pub fn signalled() -> bool {
    SIGNAL.load(Ordering::SeqCst) != 0
}

/// Blocks forever when a signal has arrived: the watcher thread is stopping
/// the children and will end the process with 130 or 143. Callers use it
/// before reporting, so that cells failed by the watcher's kills are never
/// written as results nor turned into a different exit status.
pub fn park_if_signalled() {
    while signalled() {
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Process ids of the descendants of this process (from `/proc/*/stat`).
fn descendants() -> Vec<i32> {
    let mut parent_of = Vec::new();
    if let Ok(rd) = std::fs::read_dir("/proc") {
        for e in rd.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            // `pid (comm) state ppid ...`; comm may contain spaces and parens.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|s| s.parse::<i32>().ok());
            if let Some(ppid) = ppid {
                parent_of.push((pid, ppid));
            }
        }
    }
    let mut out = vec![std::process::id() as i32];
    let mut i = 0;
    while i < out.len() {
        let p = out[i];
        out.extend(
            parent_of
                .iter()
                .filter(|&&(_, pp)| pp == p)
                .map(|&(c, _)| c),
        );
        i += 1;
    }
    out.remove(0);
    out
}

fn stop_children() {
    let kids = descendants();
    for &pid in &kids {
        // SAFETY: kill(2) on a pid; no memory is involved.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    for _ in 0..40 {
        if descendants().is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    for pid in descendants() {
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

/// Removes every `*.tmp` file under `dir` (recursively; symbolic links are
/// not followed). Returns how many were removed.
pub fn remove_temporaries(dir: &Path) -> usize {
    let mut removed = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file()
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with(".tmp"))
                && std::fs::remove_file(&p).is_ok()
            {
                removed += 1;
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_are_removed_and_results_kept() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("build/abc");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("weft_bench.o-1a2b.tmp"), b"").unwrap();
        std::fs::write(sub.join("result.json.tmp"), b"{").unwrap();
        std::fs::write(sub.join("result.json"), b"{}").unwrap();
        assert_eq!(remove_temporaries(d.path()), 2);
        assert!(sub.join("result.json").exists());
        assert!(!sub.join("result.json.tmp").exists());
    }

    #[test]
    fn descendants_include_a_spawned_child() {
        let mut c = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let pid = c.id() as i32;
        assert!(descendants().contains(&pid));
        c.kill().unwrap();
        c.wait().unwrap();
    }
}
