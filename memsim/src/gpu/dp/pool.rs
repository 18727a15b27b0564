//! The pending-launch pool of CUDA dynamic parallelism (digest §1.1 "Baseline front
//! end", §3.1, §8.1 "Streams -> HWQs", "Device-launch unit, CDP").
//!
//! A device launch that passed its API call becomes a pending child kernel. It waits
//! here in FCFS order (within its priority class, below) until its stream's previous kernel completed (stream
//! semantics: a unique stream per child never waits, a per-parent-TB stream
//! serialises that TB's children), then until the kernel distributor has a free
//! entry (`max_concurrent_kernels`, 32). Two limits refuse a launch, which then runs
//! the parent's inline path, as a failed `cudaLaunchDevice` does: the nesting depth
//! (24) and the pending capacity (65,536 child CTAs, SPAWN's CCQS bound). Every
//! launch records its parent (kernel, TB, warp, lane, SM) and the global memory it
//! reserves until it starts (the pending-launch footprint of DTBL §5).
//!
//! Priority classes (LASER's GMU, dissertation §3.5, digest §4.3): a launch may carry
//! a high-priority flag, set at the launch from the launching CU's reuse monitor
//! ([`LaunchPriority`]). The pool is then a high-priority queue (HPQ) and a
//! low-priority one (LPQ) of one total capacity: when the distributor has room, the
//! oldest eligible HPQ launch goes first, an LPQ launch only when no HPQ launch is
//! eligible. Without a priority source every launch is low priority and the pool is
//! FCFS.
//! Invariant: `footprint` and `pending_ctas` are the sums over the entries held.

use std::collections::{HashMap, VecDeque};

/// Who launched a child (digest §8.5 B: recorded at every launch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParentInfo {
    /// Parent kernel instance.
    pub kernel: u32,
    /// Parent TB (linear index in its grid).
    pub tb: u64,
    /// Warp within the TB.
    pub warp: u32,
    /// Lane within the warp.
    pub lane: u32,
    /// SM the parent TB runs on.
    pub sm: u32,
}

/// The stream of a device launch, as the device runtime sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceStream {
    /// A stream created for this child alone (SPAWN's choice, §3.1).
    Unique,
    /// The parent TB's stream: children of one TB run one after another.
    PerTb {
        /// Parent kernel.
        kernel: u32,
        /// Parent TB.
        tb: u64,
    },
}

/// A child kernel waiting to enter the kernel distributor.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingLaunch {
    /// Launch id (order of acceptance).
    pub id: u64,
    /// Child function index.
    pub function: u32,
    /// Child grid.
    pub grid: [u32; 3],
    /// Child block.
    pub block: [u32; 3],
    /// Child arguments.
    pub args: Vec<i64>,
    /// Launching thread.
    pub parent: ParentInfo,
    /// Nesting depth of the child (a host kernel is depth 0).
    pub depth: u32,
    /// Stream.
    pub stream: DeviceStream,
    /// Cycle of the launch call.
    pub called: u64,
    /// Cycle from which the kernel distributor may take it (API + KMU latency).
    pub visible: u64,
    /// Global memory reserved while pending, bytes.
    pub footprint: u64,
    /// In the high-priority queue (LASER's HPQ); `false`: FCFS / LPQ.
    pub high: bool,
}

/// Decides a child kernel's pending-pool priority at its launch (LASER's reuse
/// monitors, [`crate::gpu::tbsched::laser`]); installed by the TB policy.
pub trait LaunchPriority {
    /// Whether child kernel record `kernel`, launched by `parent`, goes to the
    /// high-priority queue.
    fn high(&mut self, kernel: u32, parent: &ParentInfo) -> bool;
}

impl PendingLaunch {
    /// CTAs in the child grid.
    pub fn ctas(&self) -> u64 {
        self.grid.iter().map(|&d| d.max(1) as u64).product()
    }
}

/// Why a device launch was refused (the parent then runs its inline path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The child would nest deeper than the limit.
    Depth,
    /// The pending pool cannot hold the child's CTAs.
    Capacity,
}

/// Pending child kernels between the launch API and the kernel distributor.
#[derive(Debug, Clone)]
pub struct PendingPool {
    queue: VecDeque<PendingLaunch>,
    max_depth: u32,
    capacity: u64,
    pending_ctas: u64,
    footprint: u64,
    peak_footprint: u64,
    next_id: u64,
    /// Per-TB streams with a kernel in flight (pending or in the distributor).
    busy_streams: HashMap<DeviceStream, u32>,
    /// Launches refused for depth / capacity.
    pub refused: [u64; 2],
    /// High-priority launches accepted, and pops that took one ahead of an
    /// older eligible low-priority launch.
    pub high: u64,
    /// See [`Self::high`].
    pub overtakes: u64,
}

impl PendingPool {
    /// A pool with the nesting limit and the CTA capacity.
    pub fn new(max_depth: u32, capacity: u64) -> Self {
        PendingPool {
            queue: VecDeque::new(),
            max_depth,
            capacity,
            pending_ctas: 0,
            footprint: 0,
            peak_footprint: 0,
            next_id: 0,
            busy_streams: HashMap::new(),
            refused: [0; 2],
            high: 0,
            overtakes: 0,
        }
    }

    /// Whether a child of `ctas` CTAs at `depth` may be accepted now.
    pub fn check(&self, depth: u32, ctas: u64) -> Result<(), Refusal> {
        if depth > self.max_depth {
            return Err(Refusal::Depth);
        }
        if self.pending_ctas + ctas > self.capacity {
            return Err(Refusal::Capacity);
        }
        Ok(())
    }

    /// Accepts a launch (its `id` is assigned here) or refuses it.
    pub fn push(&mut self, mut l: PendingLaunch) -> Result<u64, Refusal> {
        if let Err(r) = self.check(l.depth, l.ctas()) {
            self.refused[r as usize] += 1;
            return Err(r);
        }
        l.id = self.next_id;
        self.next_id += 1;
        self.high += l.high as u64;
        self.pending_ctas += l.ctas();
        self.footprint += l.footprint;
        self.peak_footprint = self.peak_footprint.max(self.footprint);
        let id = l.id;
        self.queue.push_back(l);
        Ok(id)
    }

    /// Takes the oldest high-priority launch that is visible at `t` and heads its
    /// free stream, else the oldest such low-priority one, when the kernel
    /// distributor has room (`kd_free`). A per-TB stream becomes busy until
    /// [`Self::stream_done`].
    pub fn pop_ready(&mut self, t: u64, kd_free: bool) -> Option<PendingLaunch> {
        if !kd_free {
            return None;
        }
        // A per-TB stream's kernels leave in launch order: a launch behind
        // another of its stream is not eligible, whatever its priority.
        let mut seen: Vec<DeviceStream> = Vec::new();
        let mut first = None;
        for (i, l) in self.queue.iter().enumerate() {
            let free = match l.stream {
                DeviceStream::Unique => true,
                s if seen.contains(&s) => false,
                s => {
                    seen.push(s);
                    !self.busy_streams.contains_key(&s)
                }
            };
            if free && l.visible <= t {
                if l.high {
                    self.overtakes += first.is_some() as u64;
                    first = Some(i);
                    break;
                }
                first = first.or(Some(i));
            }
        }
        let pos = first?;
        let l = self.queue.remove(pos)?;
        self.pending_ctas -= l.ctas();
        self.footprint -= l.footprint;
        if l.stream != DeviceStream::Unique {
            self.busy_streams.insert(l.stream, 0);
        }
        Some(l)
    }

    /// The kernel on per-TB stream `s` completed; the stream's next child may go.
    pub fn stream_done(&mut self, s: DeviceStream) {
        self.busy_streams.remove(&s);
    }

    /// Earliest visibility cycle after `t` among the queued launches.
    pub fn next_visible(&self, t: u64) -> Option<u64> {
        self.queue
            .iter()
            .map(|l| l.visible)
            .filter(|&v| v > t)
            .min()
    }

    /// Launches waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// No launch waiting.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Child CTAs waiting.
    pub fn pending_ctas(&self) -> u64 {
        self.pending_ctas
    }

    /// Bytes reserved now and at most so far.
    pub fn footprint(&self) -> (u64, u64) {
        (self.footprint, self.peak_footprint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(grid: u32, depth: u32, stream: DeviceStream, visible: u64) -> PendingLaunch {
        PendingLaunch {
            id: 0,
            function: 1,
            grid: [grid, 1, 1],
            block: [32, 1, 1],
            args: vec![1, 2],
            parent: ParentInfo {
                kernel: 0,
                tb: 3,
                warp: 1,
                lane: 5,
                sm: 2,
            },
            depth,
            stream,
            called: 0,
            visible,
            footprint: 80,
            high: false,
        }
    }

    #[test]
    fn depth_limit_24() {
        let mut p = PendingPool::new(24, 65_536);
        assert!(p.push(launch(1, 24, DeviceStream::Unique, 0)).is_ok());
        assert_eq!(
            p.push(launch(1, 25, DeviceStream::Unique, 0)),
            Err(Refusal::Depth)
        );
        assert_eq!(p.refused, [1, 0]);
    }

    #[test]
    fn capacity_counts_ctas() {
        let mut p = PendingPool::new(24, 65_536);
        assert!(p.push(launch(65_535, 1, DeviceStream::Unique, 0)).is_ok());
        assert!(p.push(launch(1, 1, DeviceStream::Unique, 0)).is_ok());
        assert_eq!(p.pending_ctas(), 65_536);
        assert_eq!(
            p.push(launch(1, 1, DeviceStream::Unique, 0)),
            Err(Refusal::Capacity)
        );
        // Leaving the pool frees capacity.
        assert!(p.pop_ready(0, true).is_some());
        assert!(p.push(launch(1, 1, DeviceStream::Unique, 0)).is_ok());
    }

    #[test]
    fn fcfs_visibility_and_kd_room() {
        let mut p = PendingPool::new(24, 100);
        p.push(launch(1, 1, DeviceStream::Unique, 300)).unwrap();
        p.push(launch(2, 1, DeviceStream::Unique, 100)).unwrap();
        assert_eq!(p.next_visible(0), Some(100));
        assert!(p.pop_ready(150, false).is_none());
        let a = p.pop_ready(150, true).unwrap();
        assert_eq!((a.id, a.grid[0]), (1, 2));
        assert!(p.pop_ready(299, true).is_none());
        assert_eq!(p.pop_ready(300, true).unwrap().id, 0);
        assert!(p.is_empty());
    }

    #[test]
    fn per_tb_stream_serialises_children() {
        let s = DeviceStream::PerTb { kernel: 0, tb: 3 };
        let mut p = PendingPool::new(24, 100);
        p.push(launch(1, 1, s, 0)).unwrap();
        p.push(launch(1, 1, s, 0)).unwrap();
        p.push(launch(1, 1, DeviceStream::Unique, 0)).unwrap();
        assert_eq!(p.pop_ready(0, true).unwrap().id, 0);
        // The second child of the TB waits; the unique-stream child overtakes it.
        assert_eq!(p.pop_ready(0, true).unwrap().id, 2);
        assert!(p.pop_ready(0, true).is_none());
        p.stream_done(s);
        assert_eq!(p.pop_ready(0, true).unwrap().id, 1);
    }

    #[test]
    fn hpq_before_lpq_fcfs_within_each() {
        let mut p = PendingPool::new(24, 100);
        let mut l = |high, visible| {
            let mut x = launch(1, 1, DeviceStream::Unique, visible);
            x.high = high;
            p.push(x).unwrap()
        };
        let lo0 = l(false, 0);
        let hi1 = l(true, 0);
        let lo2 = l(false, 0);
        let hi3 = l(true, 50);
        let hi4 = l(true, 0);
        assert_eq!(p.pop_ready(10, true).unwrap().id, hi1);
        assert_eq!(
            p.pop_ready(10, true).unwrap().id,
            hi4,
            "HPQ in launch order"
        );
        // hi3 is not visible yet: the LPQ's head goes.
        assert_eq!(p.pop_ready(10, true).unwrap().id, lo0);
        assert_eq!(p.pop_ready(50, true).unwrap().id, hi3);
        assert_eq!(p.pop_ready(50, true).unwrap().id, lo2);
        assert!(p.is_empty());
        // hi1 and hi4 went ahead of lo0, hi3 ahead of lo2.
        assert_eq!((p.high, p.overtakes), (3, 3));
        // One capacity for both queues.
        let mut q = PendingPool::new(24, 3);
        let mut h = launch(2, 1, DeviceStream::Unique, 0);
        h.high = true;
        q.push(h).unwrap();
        assert!(q.push(launch(1, 1, DeviceStream::Unique, 0)).is_ok());
        assert_eq!(
            q.push(launch(1, 1, DeviceStream::Unique, 0)),
            Err(Refusal::Capacity)
        );
    }

    #[test]
    fn busy_stream_holds_its_high_child_back() {
        let s = DeviceStream::PerTb { kernel: 0, tb: 3 };
        let mut p = PendingPool::new(24, 100);
        p.push(launch(1, 1, s, 0)).unwrap();
        let mut h = launch(1, 1, s, 0);
        h.high = true;
        p.push(h).unwrap();
        p.push(launch(1, 1, DeviceStream::Unique, 0)).unwrap();
        // The high child (id 1) is first in its class but behind id 0 on its
        // stream: id 0 goes first, then the unique-stream child.
        assert_eq!(p.pop_ready(0, true).unwrap().id, 0);
        assert_eq!(p.pop_ready(0, true).unwrap().id, 2);
        assert!(p.pop_ready(0, true).is_none());
        p.stream_done(s);
        assert_eq!(p.pop_ready(0, true).unwrap().id, 1);
    }

    #[test]
    fn footprint_tracks_pending_and_peak() {
        let mut p = PendingPool::new(24, 100);
        p.push(launch(1, 1, DeviceStream::Unique, 0)).unwrap();
        p.push(launch(1, 1, DeviceStream::Unique, 0)).unwrap();
        assert_eq!(p.footprint(), (160, 160));
        p.pop_ready(0, true).unwrap();
        assert_eq!(p.footprint(), (80, 160));
    }
}
