//! The native worker pool: a fork-join team of `P - 1` persistent threads
//! that spin briefly between regions and then park, as OpenMP runtimes do
//! (libgomp's `GOMP_SPINCOUNT`, `OMP_WAIT_POLICY`).
//!
//! Why not rayon's pool, which the executor used before: a rayon worker
//! that finds no work goes to sleep within a few microseconds, so a region
//! that follows another after a short serial gap pays a futex wake-up and a
//! context switch, 20-40 µs on the two-core development host. Kernels of many
//! small parallel loops (jacobi2d's two stencil sweeps per time step of about
//! 25 µs each, zscore's ten loops of 5-10 µs) ran 1.3-2x slower than their
//! serial builds for that alone (`weft bench kernels --size small`,
//! docs/kernels.md). Here a worker spins for [`SPIN_NS`] after each region,
//! checking the region counter, and only then parks on a condition variable;
//! a region that starts within that window reaches the workers through one
//! cache line.
//!
//! Protocol. The caller stores the job (a lifetime-erased `&dyn Fn(usize)`),
//! sets the count of unfinished workers to `P - 1`, increments the region
//! counter (the *epoch*) and, when some worker is parked, notifies them under
//! the lock; it runs worker 0's part itself and then waits until the count
//! is zero. A worker that sees the epoch change runs its part (worker index
//! = its thread index + 1) and decrements the count; it never touches the job
//! after that, so the job outlives every use (the caller returns only after
//! the count reaches zero). Lost wake-ups are excluded by sequentially
//! consistent operations: the caller increments the epoch then reads the
//! sleeper count; a worker increments the sleeper count under the lock then
//! reads the epoch, so at least one of them sees the other. One region runs
//! on a pool at a time (`busy`); a region started inside a running one runs
//! sequentially (see `executor::nested`).

use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long an idle worker spins, checking for the next region, before it
/// parks (ns). Long enough to cover the serial code between the regions of a
/// loop nest, short enough that an idle program's workers stop using their
/// cores almost at once.
pub const SPIN_NS: u64 = 100_000;

type Job = dyn Fn(usize) + Sync;

/// A job pointer whose lifetime the protocol guarantees (module docs).
#[derive(Clone, Copy)]
struct JobPtr(*const Job);
// SAFETY: the pointee is `Sync` and outlives every dereference (module docs).
unsafe impl Send for JobPtr {}
unsafe impl Sync for JobPtr {}

struct Shared {
    epoch: AtomicU64,
    job: Mutex<Option<JobPtr>>,
    remaining: AtomicUsize,
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    /// A worker's part panicked (callers catch their bodies' panics; this is
    /// the pool's own guard).
    panicked: AtomicBool,
}

thread_local! {
    static IS_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is one of a pool's worker threads.
pub fn is_worker() -> bool {
    IS_WORKER.with(|f| f.get())
}

/// A team of `threads` workers (indices `1..=threads`; the caller is 0).
pub struct Pool {
    threads: usize,
    /// The process that started the threads (a `fork()`ed child has none of
    /// them and must start its own pool).
    pid: u32,
    shared: Arc<Shared>,
    busy: Mutex<()>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Pool {
    /// Starts `threads` worker threads; `None` if one cannot be created
    /// (those already started then park forever, which costs nothing).
    pub fn new(threads: usize) -> Option<Pool> {
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            job: Mutex::new(None),
            remaining: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
            panicked: AtomicBool::new(false),
        });
        for t in 0..threads {
            let s = shared.clone();
            std::thread::Builder::new()
                .name(format!("weft-worker-{}", t + 1))
                .spawn(move || worker_main(&s, t + 1))
                .ok()?;
        }
        Some(Pool {
            threads,
            pid: std::process::id(),
            shared,
            busy: Mutex::new(()),
        })
    }

    /// Worker threads (the caller not counted).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Whether the pool's threads belong to this process (not to the parent
    /// of a `fork()`ed child).
    pub fn is_own(&self) -> bool {
        self.pid == std::process::id()
    }

    /// Runs `work(c)` for `c` in `0..=threads` at once, `c = 0` on the
    /// calling thread, and returns when all have finished. A panic of the
    /// caller's part is resumed after the workers finish; a worker's panic
    /// becomes a panic here.
    pub fn run(&self, work: &(dyn Fn(usize) + Sync)) {
        let _busy = lock(&self.busy);
        let s = &*self.shared;
        // SAFETY: only the lifetime is erased; `work` outlives every use,
        // since this function returns only when `remaining` is zero and no
        // worker reads the job after decrementing it.
        let ptr: &'static Job =
            unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync + '_), &'static Job>(work) };
        *lock(&s.job) = Some(JobPtr(ptr));
        s.remaining.store(self.threads, Ordering::SeqCst);
        s.epoch.fetch_add(1, Ordering::SeqCst);
        if s.sleepers.load(Ordering::SeqCst) > 0 {
            let _g = lock(&s.lock);
            s.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| work(0)));
        let mut spins = 0u32;
        while s.remaining.load(Ordering::Acquire) > 0 {
            spins = spins.saturating_add(1);
            if spins < 1 << 12 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        *lock(&s.job) = None;
        if let Err(e) = mine {
            resume_unwind(e);
        }
        if s.panicked.swap(false, Ordering::Relaxed) {
            panic!("a weft worker's part of a region panicked");
        }
    }
}

fn worker_main(s: &Shared, c: usize) {
    IS_WORKER.with(|f| f.set(true));
    let mut seen = 0u64;
    loop {
        seen = wait_for_region(s, seen);
        let job = lock(&s.job).expect("a region's job is set before its epoch");
        // SAFETY: the caller keeps the job alive until `remaining` is zero.
        let work = unsafe { &*job.0 };
        if catch_unwind(AssertUnwindSafe(|| work(c))).is_err() {
            s.panicked.store(true, Ordering::Relaxed);
        }
        s.remaining.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Waits until the epoch differs from `seen` (spinning for [`SPIN_NS`],
/// then parked) and returns it.
fn wait_for_region(s: &Shared, seen: u64) -> u64 {
    let t = Instant::now();
    let spin = Duration::from_nanos(SPIN_NS);
    let mut n = 0u32;
    loop {
        let e = s.epoch.load(Ordering::Acquire);
        if e != seen {
            return e;
        }
        n = n.wrapping_add(1);
        if n % 64 == 0 && t.elapsed() > spin {
            break;
        }
        std::hint::spin_loop();
    }
    let mut g = lock(&s.lock);
    s.sleepers.fetch_add(1, Ordering::SeqCst);
    loop {
        let e = s.epoch.load(Ordering::SeqCst);
        if e != seen {
            s.sleepers.fetch_sub(1, Ordering::SeqCst);
            return e;
        }
        g = s.wake.wait(g).unwrap_or_else(|e| e.into_inner());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every index runs exactly once per region, over many back-to-back
    /// regions and after the workers have parked.
    #[test]
    fn every_part_runs_once_per_region() {
        let pool = Pool::new(3).unwrap();
        let counts: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
        for r in 0..2000 {
            pool.run(&|c| {
                counts[c].fetch_add(1, Ordering::Relaxed);
            });
            if r == 1000 {
                // Let the workers park, then wake them.
                std::thread::sleep(Duration::from_nanos(4 * SPIN_NS));
            }
        }
        for c in &counts {
            assert_eq!(c.load(Ordering::Relaxed), 2000);
        }
    }

    /// Parts run concurrently: each waits for all others to arrive.
    #[test]
    fn parts_run_at_once() {
        let pool = Pool::new(1).unwrap();
        let arrived = AtomicUsize::new(0);
        pool.run(&|_| {
            arrived.fetch_add(1, Ordering::SeqCst);
            while arrived.load(Ordering::SeqCst) < 2 {
                std::hint::spin_loop();
            }
        });
        assert_eq!(arrived.load(Ordering::SeqCst), 2);
    }

    /// A worker's panic surfaces in the caller, and the pool stays usable.
    #[test]
    fn worker_panics_surface_and_the_pool_survives() {
        let pool = Pool::new(1).unwrap();
        let r = catch_unwind(AssertUnwindSafe(|| {
            pool.run(&|c| {
                if c == 1 {
                    panic!("boom");
                }
            })
        }));
        assert!(r.is_err());
        let n = AtomicUsize::new(0);
        pool.run(&|_| {
            n.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(n.load(Ordering::Relaxed), 2);
        assert!(!is_worker());
    }
}
