//! A byte-level mutation fuzzer that runs on stable Rust (no cargo-fuzz), for
//! the parsers of hostile input (issue #38): the trace readers, the machine
//! configuration loader, `weft schedule`'s instance parser and the GPU workload
//! parser.
//!
//! [`run`] mutates valid seed inputs (bit flips, byte and token insertions,
//! deletions, duplications, splices, boundary numbers such as `4294967295` or
//! `NaN`), feeds each to a target under `catch_unwind`, and reports every input
//! that panics or takes longer than the per-input time limit. Memory is bounded
//! by the parsers' limits (`docs/limits.md`); the test harness additionally
//! measures the peak heap of each input with a counting allocator. Runs are
//! deterministic for a given seed and input count; a time budget makes them
//! longer (`WEFT_FUZZ_SECONDS`), `WEFT_FUZZ_SEED` gives them fresh mutation
//! sequences and `WEFT_FUZZ_TARGET` picks the targets ([`selected`]).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant
    // Linux defines for every thread.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// What a fuzzing run found.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs tried.
    pub inputs: u64,
    /// Slowest input.
    pub slowest: Duration,
    /// Inputs that panicked or were too slow: a description and the input.
    pub failures: Vec<(String, Vec<u8>)>,
}

/// How long a run lasts and what counts as too slow.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Stop after this many inputs ...
    pub inputs: u64,
    /// ... or after this long, whichever comes first.
    pub time: Duration,
    /// An input taking longer than this is a failure.
    pub per_input: Duration,
    /// Largest mutated input, in bytes.
    pub max_len: usize,
}

/// Boundary tokens inserted into text inputs.
const TOKENS: &[&str] = &[
    "0",
    "1",
    "-1",
    "255",
    "256",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "1099511627776",
    "4000000000",
    "NaN",
    "inf",
    "-0",
    "1e999",
    "0x",
    "0xffffffffffffffff",
    "#",
    "\n",
    " ",
    "\"",
    "[",
    "]",
    "{",
    "}",
    "=",
    ",",
    "B",
    "R",
    "W",
    "[[",
    "\u{0}",
];

/// Boundary integers written (little-endian) into binary inputs.
const WORDS: &[u64] = &[
    0,
    1,
    0x7f,
    0xff,
    0xffff,
    0xffff_ffff,
    u64::MAX,
    1 << 63,
    2,
    3,
];

/// xorshift64* generator (deterministic).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// One to four random mutations of `input` (splicing from `seeds`).
fn mutate(rng: &mut Rng, input: &mut Vec<u8>, seeds: &[Vec<u8>], max_len: usize) {
    for _ in 0..1 + rng.below(4) {
        let len = input.len();
        let at = rng.below(len + 1);
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                input[i] = rng.next() as u8;
            }
            2 => {
                let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
                input.splice(at..at, t.iter().copied());
            }
            3 if len > 0 => {
                let end = (at + 1 + rng.below(16)).min(len);
                input.drain(at.min(end)..end);
            }
            4 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(64)).min(len);
                let copy = input[a..b].to_vec();
                input.splice(at..at, copy);
            }
            5 => {
                let s = &seeds[rng.below(seeds.len())];
                if !s.is_empty() {
                    let a = rng.below(s.len());
                    let b = (a + 1 + rng.below(64)).min(s.len());
                    input.splice(at..at, s[a..b].iter().copied());
                }
            }
            6 if len >= 8 => {
                let w = WORDS[rng.below(WORDS.len())].to_le_bytes();
                let n = [1, 2, 4, 8][rng.below(4)];
                let i = rng.below(len - n + 1);
                input[i..i + n].copy_from_slice(&w[..n]);
            }
            7 => input.truncate(at),
            _ => {
                // Replace a run of digits with a boundary number.
                if let Some(i) = (0..len)
                    .map(|k| (at + k) % len)
                    .find(|&i| input[i].is_ascii_digit())
                {
                    let mut j = i;
                    while j < len && input[j].is_ascii_digit() {
                        j += 1;
                    }
                    let t = TOKENS[rng.below(15)].as_bytes();
                    input.splice(i..j, t.iter().copied());
                }
            }
        }
    }
    input.truncate(max_len);
}

/// Fuzzes `target` from `seeds` (non-empty) within `budget`; `seed` fixes the
/// mutation sequence. Each seed is tried unmutated first.
pub fn run(seeds: &[Vec<u8>], seed: u64, budget: Budget, mut target: impl FnMut(&[u8])) -> Report {
    assert!(!seeds.is_empty(), "fuzzing needs at least one seed input");
    let mut rng = Rng(seed | 1);
    let mut report = Report::default();
    let start = Instant::now();
    let mut corpus: Vec<Vec<u8>> = seeds.to_vec();
    while report.inputs < budget.inputs && start.elapsed() < budget.time {
        let n = report.inputs as usize;
        let input = if n < seeds.len() {
            seeds[n].clone()
        } else {
            let mut v = corpus[rng.below(corpus.len())].clone();
            mutate(&mut rng, &mut v, seeds, budget.max_len);
            v
        };
        let t0 = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| target(&input)));
        let took = t0.elapsed();
        report.inputs += 1;
        report.slowest = report.slowest.max(took);
        if let Err(p) = outcome {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            report
                .failures
                .push((format!("panic: {msg}"), input.clone()));
        } else if took > budget.per_input {
            // The limit is on the input's own work: the wall time above
            // includes the time the fuzzer waited for a CPU on a loaded
            // host, so an input over it runs once more and fails only when
            // that run's thread CPU time is over the limit too.
            let c0 = thread_cpu();
            let again = catch_unwind(AssertUnwindSafe(|| target(&input)));
            let cpu = thread_cpu().saturating_sub(c0);
            if again.is_err() || cpu > budget.per_input {
                report.failures.push((
                    format!(
                        "took {took:?} (wall), then {cpu:?} of CPU (limit {:?})",
                        budget.per_input
                    ),
                    input.clone(),
                ));
            }
        }
        // Keep some mutants as new starting points (bounded corpus).
        if corpus.len() < 256 && rng.below(8) == 0 {
            corpus.push(input);
        }
    }
    report
}

/// The mutation seed of a target: `default` (the test suite's fixed value), or,
/// when the environment sets `WEFT_FUZZ_SEED`, that value mixed with `default`,
/// so that a long run explores fresh mutation sequences and each target of the
/// run still gets its own. An unparsable `WEFT_FUZZ_SEED` is a panic naming it.
pub fn seed_from_env(default: u64) -> u64 {
    match std::env::var("WEFT_FUZZ_SEED") {
        Err(_) => default,
        Ok(s) => {
            let v: u64 = s
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("WEFT_FUZZ_SEED={s:?}: expected an unsigned integer"));
            // splitmix64 finaliser of the pair: distinct defaults stay distinct.
            let mut z = v ^ default.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
    }
}

/// Whether the target `name` runs: always, unless the environment sets
/// `WEFT_FUZZ_TARGET`, a comma-separated list of substrings of target names
/// (`WEFT_FUZZ_TARGET=binary,gpu`), which runs only the targets matching one.
pub fn selected(name: &str) -> bool {
    match std::env::var("WEFT_FUZZ_TARGET") {
        Err(_) => true,
        Ok(list) => list
            .split(',')
            .map(str::trim)
            .any(|w| !w.is_empty() && name.contains(w)),
    }
}

/// The budget of the test suite's short run, or of a long run when the
/// environment sets `WEFT_FUZZ_SECONDS` (seconds per target).
pub fn budget_from_env(short_inputs: u64, short_time: Duration) -> Budget {
    let long = std::env::var("WEFT_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok());
    Budget {
        inputs: if long.is_some() {
            u64::MAX
        } else {
            short_inputs
        },
        time: long.map_or(short_time, Duration::from_secs),
        per_input: Duration::from_secs(2),
        max_len: 1 << 16,
    }
}

/// Heap that building the simulator of `cfg` (the manycore, its memory side
/// and the DRAM model, as `crate::run::build` does) may take, from what the
/// configuration declares, with room to spare: a fixed `slack` plus, per
/// declared unit, an upper bound of what the simulator allocates for it.
///
/// - a cache line (way slot) of any cache: 40 bytes (its tag 8, flags 1, LRU
///   stamp 8 above 16 ways or a recency word per set, and in the LLC the
///   directory's sharer mask 8 and owner 2);
/// - an MSHR (per core `l1.mshrs` and `l2.mshrs`, per LLC bank `llc.mshrs`):
///   192 bytes (entry 24, free list 4, tag 8, a line index reserved for two
///   per entry, four target slots 32);
/// - a per-core queue entry (reorder buffer, rounded up to a power of two,
///   write buffer, prefetcher stream): 128 bytes;
/// - a DRAM bank: 1 KiB (timing state, scheduler view, queue heads, BLP
///   tracker);
/// - a core, LLC bank, mesh node or DRAM channel: 16 KiB.
///
/// The machine-config fuzz target checks each input's peak heap against this
/// bound (`memsim/tests/fuzz.rs`), so an input over it is a simulator that
/// allocates more than its configuration accounts for, not merely a large
/// valid machine.
pub fn machine_heap_bound(cfg: &crate::config::MachineConfig, slack: u64) -> u64 {
    let cores = u64::from(cfg.core.count);
    let lines = |size: u64, line: u32| size / u64::from(line.max(1));
    let l2 = cfg.l2.as_ref();
    let private_lines = lines(cfg.l1.size_bytes, cfg.l1.line_bytes)
        + l2.map_or(0, |k| lines(k.size_bytes, k.line_bytes));
    let cache_lines = cores
        .saturating_mul(private_lines)
        .saturating_add(lines(cfg.llc.size_bytes, cfg.llc.line_bytes));
    let mshrs = cores
        .saturating_mul(u64::from(cfg.l1.mshrs) + l2.map_or(0, |k| u64::from(k.mshrs)))
        .saturating_add(u64::from(cfg.llc.banks).saturating_mul(u64::from(cfg.llc.mshrs)));
    let entries = cores.saturating_mul(
        u64::from(cfg.core.rob_entries.max(1)).next_power_of_two()
            + u64::from(cfg.core.write_buffer_entries)
            + u64::from(cfg.prefetcher.streams),
    );
    let d = &cfg.dram;
    let banks = [d.channels, d.ranks, d.bankgroups, d.banks_per_group]
        .iter()
        .fold(1u64, |a, &v| a.saturating_mul(v.into()));
    let units = cores
        + u64::from(cfg.llc.banks)
        + u64::from(cfg.noc.cols) * u64::from(cfg.noc.rows)
        + u64::from(d.channels);
    [
        (cache_lines, 40),
        (mshrs, 192),
        (entries, 128),
        (banks, 1 << 10),
        (units, 16 << 10),
    ]
    .iter()
    .fold(slack, |a, &(n, k)| a.saturating_add(n.saturating_mul(k)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_panic_and_a_slow_input() {
        let seeds = vec![b"12 R 0x40\n".to_vec()];
        let b = Budget {
            inputs: 5000,
            time: Duration::from_secs(30),
            per_input: Duration::from_secs(5),
            max_len: 256,
        };
        let r = run(&seeds, 7, b, |x| {
            if x.windows(3).any(|w| w == b"NaN") {
                panic!("found NaN");
            }
        });
        assert_eq!(r.inputs, 5000);
        assert!(
            r.failures.iter().any(|(m, _)| m.contains("found NaN")),
            "{:?}",
            r.failures.len()
        );
        // Deterministic: the same seed gives the same failures.
        let again = run(&seeds, 7, b, |x| {
            if x.windows(3).any(|w| w == b"NaN") {
                panic!("found NaN");
            }
        });
        assert_eq!(again.failures.len(), r.failures.len());
    }

    #[test]
    fn a_slow_input_fails_only_when_its_second_run_uses_the_cpu_time_too() {
        let seeds = vec![b"ab".to_vec()];
        let b = Budget {
            inputs: 1,
            time: Duration::from_secs(30),
            per_input: Duration::from_millis(200),
            max_len: 16,
        };
        // Over the limit in wall time without using the CPU (a host that
        // kept the fuzzer waiting): no failure.
        let nap = || std::thread::sleep(Duration::from_millis(300));
        let r = run(&seeds, 1, b, |_| nap());
        assert_eq!((r.inputs, r.failures.len()), (1, 0));
        // Over it in CPU time: one failure, with both times.
        let spin = || {
            let c0 = thread_cpu();
            while thread_cpu().saturating_sub(c0) < Duration::from_millis(300) {}
        };
        let r = run(&seeds, 1, b, |_| spin());
        assert_eq!(r.failures.len(), 1);
        assert!(r.failures[0].0.contains("of CPU"), "{}", r.failures[0].0);
    }
}
