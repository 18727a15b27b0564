//! Fuzzing of the parsers of hostile input (issue #38) with the stable-Rust
//! mutation fuzzer `weft_memsim::fuzz`: the binary and text trace readers, the
//! machine-configuration loader and the GPU workload parser. Each target asserts no panic, a bounded
//! time per input and a bounded peak heap per input (a counting allocator;
//! this file is its own test binary so that no other test shares the count):
//! 64 MiB for the parsers, and for a machine that validates and is built, what
//! its configuration declares (`weft_memsim::fuzz::machine_heap_bound`), so
//! that an input over it is a defect, not a large valid machine.
//!
//! The default run is short and deterministic (a few seconds per target);
//! `WEFT_FUZZ_SECONDS=N cargo test -p weft-memsim --test fuzz -- --nocapture`
//! runs each target for N seconds; `WEFT_FUZZ_SEED` (fresh mutations) and
//! `WEFT_FUZZ_TARGET` (a comma-separated list of substrings of target names:
//! `binary trace`, `DRAM text trace`, `per-core text trace`, `machine config`,
//! `gpu workload`) select what a long run does.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use weft_memsim::config::MachineConfig;
use weft_memsim::fuzz::{
    budget_from_env, machine_heap_bound, run, seed_from_env, selected, Report,
};
use weft_memsim::gpu::workload;
use weft_memsim::trace::AccessKind;
use weft_memsim::trace::{CoreTextReader, Record, TextTraceReader, TraceReader, TraceWriter};

struct Counting;
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        CURRENT.fetch_sub(l.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// One measurement at a time: the heap count is process-wide.
static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Heap bytes an input may add at its peak (the parsers' inputs), and the
/// fixed slack of [`weft_memsim::fuzz::machine_heap_bound`].
const HEAP_LIMIT: usize = 64 << 20;

/// Largest heap bound of a machine the machine-config target builds: a valid
/// machine declaring more (up to about 2 GB within the limits of
/// `weft_memsim::limits`) is parsed and validated but not built, so that a long
/// run cannot take gigabytes of a shared host; the limits tests build those.
const BUILD_CAP: u64 = 512 << 20;

/// Most simulator state a machine within the limits of `weft_memsim::limits`
/// may declare ([`machine_heap_bound`]; the worst corner of the limits is
/// about 6.3 GiB): a valid machine declaring more is
/// a hole in the limits, found without building it.
const MAX_DECLARED: u64 = 8 << 30;

/// Runs `target` on each input with the heap measured; fails the test on a
/// panic, a slow input or a heap peak above the bound `target` returns for
/// that input (`HEAP_LIMIT` for the parsers).
fn fuzz(name: &str, seeds: Vec<Vec<u8>>, seed: u64, mut target: impl FnMut(&[u8]) -> usize) {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    if !selected(name) {
        return;
    }
    let seed = seed_from_env(seed);
    let budget = budget_from_env(40_000, Duration::from_secs(5));
    let start = std::time::Instant::now();
    let mut heavy: Vec<(usize, Vec<u8>)> = Vec::new();
    let r: Report = run(&seeds, seed, budget, |input| {
        let base = CURRENT.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let bound = target(input);
        let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
        if peak > bound {
            heavy.push((peak, input.to_vec()));
        }
    });
    eprintln!(
        "fuzz {name}: seed {seed}, {:.0} s, {} inputs, slowest {:?}, {} failures, {} over the heap limit",
        start.elapsed().as_secs_f64(),
        r.inputs,
        r.slowest,
        r.failures.len(),
        heavy.len()
    );
    for (k, (m, input)) in r.failures.iter().enumerate().take(3) {
        // The whole input goes to a file (a reproducer), its start to the log.
        let file = std::env::temp_dir().join(format!(
            "weft-fuzz-{}-{seed}-{k}.bin",
            name.replace(' ', "-")
        ));
        let saved = match std::fs::write(&file, input) {
            Ok(()) => format!("saved as {}", file.display()),
            Err(e) => format!("not saved ({}: {e})", file.display()),
        };
        eprintln!(
            "  {m} ({} bytes, {saved}): {:?}",
            input.len(),
            String::from_utf8_lossy(&input[..input.len().min(200)])
        );
    }
    for (peak, input) in heavy.iter().take(3) {
        eprintln!(
            "  heap peak {peak} bytes: {:?}",
            String::from_utf8_lossy(&input[..input.len().min(2000)])
        );
    }
    assert!(
        r.failures.is_empty(),
        "{name}: {} failing inputs",
        r.failures.len()
    );
    assert!(heavy.is_empty(), "{name}: heap peak {} bytes", heavy[0].0);
}

fn golden(path: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/golden/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn binary_seed() -> Vec<u8> {
    let mut w = TraceWriter::new(Vec::new(), 4).unwrap();
    for i in 0..24u64 {
        let kind = [AccessKind::Read, AccessKind::Write, AccessKind::Barrier][(i % 3) as usize];
        w.write(&Record {
            core: (i % 4) as u16,
            kind,
            size: if kind.is_barrier() { 0 } else { 8 },
            addr: if kind.is_barrier() { 3 } else { i * 0x40 },
            gap: (i * 5) as u32,
        })
        .unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn fuzz_trace_readers() {
    fuzz("binary trace", vec![binary_seed()], 11, |b| {
        if let Ok(r) = TraceReader::new(b, "fuzz") {
            for x in r {
                let _ = x;
            }
        }
        HEAP_LIMIT
    });
    let text = vec![
        golden("in/hit_miss_conflict.trace"),
        golden("in/stream_and_random.trace"),
    ];
    fuzz("DRAM text trace", text, 12, |b| {
        for x in TextTraceReader::new(b, "fuzz") {
            let _ = x;
        }
        HEAP_LIMIT
    });
    let core = vec![
        golden("manycore/shared4.trace"),
        b"0 3 B 1\n1 0 W 0x40 4\n".to_vec(),
    ];
    fuzz("per-core text trace", core, 13, |b| {
        for x in CoreTextReader::new(b, "fuzz") {
            let _ = x;
        }
        HEAP_LIMIT
    });
}

#[test]
fn fuzz_machine_config() {
    let seeds = vec![
        golden("in/fig42_pages.toml"),
        golden("in/stream_and_random.toml"),
        MachineConfig::preset("table4.2")
            .unwrap()
            .to_toml()
            .into_bytes(),
        MachineConfig::preset("table5.2")
            .unwrap()
            .to_toml()
            .into_bytes(),
    ];
    let mut unbuilt = 0u64;
    fuzz("machine config", seeds, 14, |b| {
        let Ok(cfg) = MachineConfig::from_toml_str(&String::from_utf8_lossy(b), "fuzz") else {
            return HEAP_LIMIT;
        };
        let bound = machine_heap_bound(&cfg, HEAP_LIMIT as u64);
        // The limits must keep what a valid machine declares bounded.
        assert!(
            bound <= MAX_DECLARED,
            "a valid machine declaring {bound} bytes of simulator state"
        );
        if bound > BUILD_CAP {
            unbuilt += 1;
            return HEAP_LIMIT;
        }
        // A config that validates must build: the DRAM model and the manycore.
        weft_memsim::run::build(&cfg, &Default::default())
            .map(drop)
            .ok();
        bound as usize
    });
    eprintln!("fuzz machine config: {unbuilt} valid machines over the build cap, not built");
}

/// [`machine_heap_bound`] covers what building a machine takes, across the
/// shapes that scale each declared unit: many cores, large caches with short
/// lines, many LLC banks with many MSHRs, deep reorder buffers, many DRAM
/// banks. The bound also stays within a few times the peak (it is a bound on
/// what the configuration declares, not a blanket allowance).
#[test]
fn machine_heap_bound_covers_building_large_machines() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let base = MachineConfig::preset("table5.2").unwrap();
    let mut shapes = vec![("table5.2", base.clone())];
    let mut m = base.clone();
    m.l1.size_bytes = 1 << 20;
    m.l1.line_bytes = 16;
    shapes.push(("1 MiB L1s of 16-byte lines", m));
    let mut m = base.clone();
    m.llc.mshrs = 16_384;
    shapes.push(("16384 MSHRs per LLC bank", m));
    let mut m = base.clone();
    m.core.rob_entries = 40_000;
    m.core.write_buffer_entries = 20_000;
    shapes.push(("deep reorder and write buffers", m));
    let mut m = base.clone();
    m.dram.ranks = 4;
    m.dram.bankgroups = 4;
    m.dram.banks_per_group = 16;
    m.dram.rows = 1 << 13;
    m.dram.address_mapping = "offset:6 column:5 channel:2 bankgroup:2 bank:4 rank:2 row:13".into();
    shapes.push(("1024 DRAM banks", m));
    let mut m = MachineConfig::preset("table4.2").unwrap();
    m.l2.as_mut().unwrap().size_bytes = 4 << 20;
    shapes.push(("table4.2 with 4 MiB L2s", m));
    for (what, cfg) in shapes {
        cfg.validate().unwrap();
        let bound = machine_heap_bound(&cfg, 0);
        let base = CURRENT.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let sim = weft_memsim::run::build(&cfg, &Default::default()).unwrap();
        let peak = (PEAK.load(Ordering::Relaxed) - base) as u64;
        drop(sim);
        eprintln!("{what}: peak {peak} bytes, bound {bound}");
        assert!(peak <= bound, "{what}: peak {peak} over the bound {bound}");
        // Tight enough to mean something: at most 12x the peak (deep reorder
        // and write buffers measured 9.7x after the session-5 merges).
        assert!(
            bound <= 12 * peak.max(1 << 20),
            "{what}: bound {bound}, peak {peak}"
        );
    }
}

/// The GPU workload parser (`weft gpusim --workload`): the TOML layer, the
/// SIMT body language, the data sections (generated tables and graphs, which
/// the parser builds) and the unrolling of the host programs that the engine
/// performs before it starts. Seeds: every shipped workload, scaled down. The data limits
/// are lowered so that a valid input stays within the heap and time bounds of
/// the harness (a generated graph at the default limit of 2^24 edges is meant
/// to take hundreds of MB); the limits themselves are checked by the workload
/// tests. Relative `file` paths resolve in an empty directory.
#[test]
fn fuzz_gpu_workload() {
    // The shipped sizes (a 2^14-vertex R-MAT graph and its BFS levels, 256 x
    // 256 matrices) cost up to a second per parse; scaled-down copies give the
    // mutator a hundred times more inputs in the same time.
    const SMALLER: &[(&str, &str)] = &[
        ("scale = 14", "scale = 7"),
        ("edges = 131072", "edges = 1024"),
        ("vertices = 16384", "vertices = 128"),
        ("NPOINTS = 32768", "NPOINTS = 512"),
        ("N = 256", "N = 32"),
        ("size = 512", "size = 64"),
        ("arrays = 32, n = 2048", "arrays = 4, n = 256"),
        ("grid = 16", "grid = 4"),
        ("ns = 393216", "ns = 4096"),
        ("ns = 65536", "ns = 4096"),
    ];
    let seeds: Vec<Vec<u8>> = workload::builtin_names()
        .iter()
        .map(|n| {
            let mut t = workload::builtin_text(n).unwrap().to_string();
            for (from, to) in SMALLER {
                t = t.replace(from, to);
            }
            t.into_bytes()
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let limits = workload::Limits {
        max_table_len: 1 << 20,
        max_total_elems: 1 << 21,
        max_vertices: 1 << 18,
        max_edges: 1 << 20,
        max_file_bytes: 1 << 20,
        max_host_steps: 1 << 16,
        ..workload::Limits::default()
    };
    let opts = workload::Options {
        base_dir: Some(dir.path().to_path_buf()),
        limits,
        ..workload::Options::default()
    };
    fuzz("gpu workload", seeds, 15, |b| {
        let text = String::from_utf8_lossy(b);
        if let Ok(wl) = workload::parse_with(&text, "fuzz", &opts) {
            for app in &wl.apps {
                let _ = app.unroll(&wl, opts.limits.max_host_steps);
            }
        }
        HEAP_LIMIT
    });
}
