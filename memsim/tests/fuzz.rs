//! Fuzzing of the parsers of hostile input (issue #38) with the stable-Rust
//! mutation fuzzer `weft_memsim::fuzz`: the binary and text trace readers and
//! the machine-configuration loader. Each target asserts no panic, a bounded
//! time per input and a bounded peak heap per input (a counting allocator;
//! this file is its own test binary so that no other test shares the count).
//!
//! The default run is short and deterministic (a few seconds per target);
//! `WEFT_FUZZ_SECONDS=N cargo test -p weft-memsim --test fuzz -- --nocapture`
//! runs each target for N seconds.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use weft_memsim::config::MachineConfig;
use weft_memsim::fuzz::{budget_from_env, run, Report};
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

/// Heap bytes an input may add at its peak.
const HEAP_LIMIT: usize = 64 << 20;

/// Runs `target` on each input with the heap measured; fails the test on a
/// panic, a slow input or a heap peak above `HEAP_LIMIT`.
fn fuzz(name: &str, seeds: Vec<Vec<u8>>, seed: u64, mut target: impl FnMut(&[u8])) {
    // One target at a time: the heap count is process-wide.
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let budget = budget_from_env(40_000, Duration::from_secs(5));
    let mut heavy: Vec<(usize, Vec<u8>)> = Vec::new();
    let r: Report = run(&seeds, seed, budget, |input| {
        let base = CURRENT.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        target(input);
        let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base);
        if peak > HEAP_LIMIT {
            heavy.push((peak, input.to_vec()));
        }
    });
    eprintln!(
        "fuzz {name}: {} inputs, slowest {:?}, {} failures, {} over the heap limit",
        r.inputs,
        r.slowest,
        r.failures.len(),
        heavy.len()
    );
    for (m, input) in r.failures.iter().take(3) {
        eprintln!(
            "  {m}: {:?}",
            String::from_utf8_lossy(&input[..input.len().min(200)])
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
    });
    let text = vec![
        golden("in/hit_miss_conflict.trace"),
        golden("in/stream_and_random.trace"),
    ];
    fuzz("DRAM text trace", text, 12, |b| {
        for x in TextTraceReader::new(b, "fuzz") {
            let _ = x;
        }
    });
    let core = vec![
        golden("manycore/shared4.trace"),
        b"0 3 B 1\n1 0 W 0x40 4\n".to_vec(),
    ];
    fuzz("per-core text trace", core, 13, |b| {
        for x in CoreTextReader::new(b, "fuzz") {
            let _ = x;
        }
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
    fuzz("machine config", seeds, 14, |b| {
        if let Ok(cfg) = MachineConfig::from_toml_str(&String::from_utf8_lossy(b), "fuzz") {
            // A config that validates must build: the DRAM model and the manycore.
            weft_memsim::run::build(&cfg, &Default::default())
                .map(drop)
                .ok();
        }
    });
}
