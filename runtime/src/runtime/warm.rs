//! Warming the runtime's own code and data at program start-up.
//!
//! A program's first call into the runtime ran 25-40 µs slower than the
//! same call later, whatever its region: the runtime's code pages are mapped
//! on first execution (file-backed page faults, a few dozen on this path),
//! its thread-locals and allocator arenas are set up, and its branches and
//! caches are cold. The corpus's `histogram` at the small size (four kernel
//! calls of 10-20 µs in a 50 µs timed region) paid all of it inside its
//! timed region once its initialisation loops stopped calling the runtime
//! (the serial-consumer rule, `passes/src/placement.rs`): its first kernel
//! call took 45-70 µs against 19-25 µs in the `--passes=none` build, with
//! one worker as with two. A warm-up call of *another* region before the
//! timed region removed the difference (`docs/kernels.md`, session 13).
//!
//! So the C ABI's start-up entry (`.init_array`, before `main`) runs the
//! region entry points once on a throw-away [`Runtime`] with the process's
//! settings (no statistics file, no trace): a `parallel_for`, an irregular
//! region without and with an (empty) inspector, each over a few iterations
//! of an empty body. The process's own runtime is not touched: no region,
//! site, statistic or grain estimate of the program changes, so results,
//! statistics and traces are as before. The cost moves to start-up, where
//! the program pays it once before its own code runs. Native mode only
//! (trace mode simulates the regions and leaves native timing aside).

use super::*;

/// Iterations of each warm-up call: more than the compiled callers' inline
/// bound (`--min-parallel-iters`, 32), as a real first call has.
pub const WARM_ITERS: i64 = 64;

impl Runtime {
    /// Runs the region entry points once on a throw-away runtime with this
    /// runtime's settings (module docs). Does nothing in trace mode.
    pub fn warm_up(&self) {
        if self.tracing() {
            return;
        }
        let cfg = RuntimeConfig {
            stats: None,
            trace: None,
            ..self.cfg.clone()
        };
        let Ok(tmp) = Runtime::new(cfg) else {
            return;
        };
        let body = |_: i64, _: i64| {};
        let inspect = |_: i64, _: i64, _: &mut Inspector| {};
        // Errors are ignored: a warm-up that fails leaves the program's own
        // calls to report the same error where they happen.
        let _ = tmp.parallel_for_at(Some(0), 0, WARM_ITERS, &body);
        let _ = tmp.take_grain_hint();
        let _ = tmp.run_irregular(0, 0, WARM_ITERS, 0, None, &body);
        if let Ok(id) = tmp.select_context(1, Some(&[1, 2, 3])) {
            let _ = tmp.run_irregular(id, 0, WARM_ITERS, 0, Some(&inspect), &body);
        }
        let _ = tmp.take_grain_hint();
        tmp.reset_contexts(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The warm-up leaves no trace in the process's runtime: its statistics,
    /// regions, contexts, grain estimates, reuse and payoff records are as
    /// before it.
    #[test]
    fn warm_up_leaves_the_runtime_untouched() {
        for cores in [1, 2] {
            let rt = Runtime::new(RuntimeConfig {
                cores,
                ..RuntimeConfig::default()
            })
            .unwrap();
            let before = rt.stats_json();
            rt.warm_up();
            assert_eq!(rt.stats_json(), before);
            assert!(lock(&rt.regions).is_empty());
            assert!(lock(&rt.grains).is_empty());
            assert!(lock(&rt.contexts).is_empty());
            assert!(lock(&rt.reuse).is_empty());
            assert!(lock(&rt.payoff).is_empty());
            assert_eq!(rt.take_grain_hint(), 0, "no hint left for the program");
        }
    }
}
