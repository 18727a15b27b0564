//! The front end: host streams -> hardware work queues -> kernel management unit
//! -> kernel distributor (digest §1.1, §2.2; design "Front end").
//!
//! Every stream of every app is a CUDA stream: its commands run in order, a
//! launch waits for the previous kernel of the stream to complete (stream
//! semantics), `wait` waits for it too, `device_sync` waits until no kernel of
//! the app is in flight, `memcpy` takes no GPU time (excluded from the timings, as
//! in DTBL). Streams map onto the `hw_queues` hardware work queues round-robin; a
//! HWQ passes one kernel at a time to the KMU, where it becomes visible
//! `kmu_latency` cycles later; the KMU moves pending kernels FCFS into the kernel
//! distributor, which holds at most `max_concurrent_kernels` kernels at once
//! (concurrent kernel execution). The TB dispatcher places TBs of the distributor's
//! kernels through a [`TbDispatchPolicy`](super::sched::TbDispatchPolicy).
//! Invariant: a kernel leaves the distributor exactly when its last TB exits.

use super::workload::{FuncId, HostStep};
use std::collections::VecDeque;

/// A kernel instance.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Instance id (launch order).
    pub id: u32,
    /// Function.
    pub function: FuncId,
    /// Grid.
    pub grid: [u32; 3],
    /// Block.
    pub block: [u32; 3],
    /// Arguments.
    pub args: Vec<i64>,
    /// Stream (global index) it was launched on.
    pub stream: u32,
    /// TBs in the grid.
    pub tbs: u64,
    /// TBs dispatched so far (the next TB id).
    pub next_tb: u64,
    /// TBs exited.
    pub done_tbs: u64,
    /// Cycle of the host launch.
    pub launched: u64,
    /// Cycle of the first TB dispatch.
    pub start: Option<u64>,
    /// Cycle the last TB exited.
    pub end: Option<u64>,
}

impl Kernel {
    /// The `ctaid` of TB number `i` (x fastest).
    pub fn ctaid(&self, i: u64) -> [u32; 3] {
        let gx = self.grid[0] as u64;
        let gy = self.grid[1] as u64;
        [
            (i % gx) as u32,
            ((i / gx) % gy) as u32,
            (i / (gx * gy)) as u32,
        ]
    }
}

struct StreamState {
    app: u32,
    steps: Vec<HostStep>,
    pos: usize,
    running: Option<u32>,
}

/// Streams, HWQs, KMU and kernel distributor.
pub struct FrontEnd {
    streams: Vec<StreamState>,
    hwq_busy: Vec<bool>,
    kmu: VecDeque<(u64, u32)>,
    /// Kernels in the distributor, FCFS.
    pub distributor: Vec<u32>,
    /// All kernel instances by id.
    pub kernels: Vec<Kernel>,
    max_kernels: usize,
    kmu_latency: u64,
}

impl FrontEnd {
    /// Streams given as `(app, steps)`.
    pub fn new(
        streams: Vec<(u32, Vec<HostStep>)>,
        hw_queues: u32,
        max_kernels: u32,
        kmu_latency: u64,
    ) -> Self {
        FrontEnd {
            streams: streams
                .into_iter()
                .map(|(app, steps)| StreamState {
                    app,
                    steps,
                    pos: 0,
                    running: None,
                })
                .collect(),
            hwq_busy: vec![false; hw_queues.max(1) as usize],
            kmu: VecDeque::new(),
            distributor: Vec::new(),
            kernels: Vec::new(),
            max_kernels: max_kernels.max(1) as usize,
            kmu_latency,
        }
    }

    fn hwq_of(&self, stream: usize) -> usize {
        stream % self.hwq_busy.len()
    }

    /// Advances the streams and the KMU at cycle `t`. Returns whether anything changed.
    pub fn tick(&mut self, t: u64) -> bool {
        let mut changed = false;
        for i in 0..self.streams.len() {
            loop {
                let s = &self.streams[i];
                let Some(step) = s.steps.get(s.pos) else {
                    break;
                };
                match step {
                    HostStep::Launch(l) => {
                        let q = self.hwq_of(i);
                        if s.running.is_some() || self.hwq_busy[q] {
                            break;
                        }
                        let id = self.kernels.len() as u32;
                        let tbs = l.grid.iter().map(|&d| d.max(1) as u64).product();
                        self.kernels.push(Kernel {
                            id,
                            function: l.function,
                            grid: l.grid,
                            block: l.block,
                            args: l.args.clone(),
                            stream: i as u32,
                            tbs,
                            next_tb: 0,
                            done_tbs: 0,
                            launched: t,
                            start: None,
                            end: None,
                        });
                        self.hwq_busy[q] = true;
                        self.kmu.push_back((t + self.kmu_latency, id));
                        let s = &mut self.streams[i];
                        s.running = Some(id);
                        s.pos += 1;
                        changed = true;
                    }
                    HostStep::Wait => {
                        if s.running.is_some() {
                            break;
                        }
                        self.streams[i].pos += 1;
                    }
                    HostStep::DeviceSync => {
                        let app = s.app;
                        if self
                            .streams
                            .iter()
                            .any(|o| o.app == app && o.running.is_some())
                        {
                            break;
                        }
                        self.streams[i].pos += 1;
                    }
                    HostStep::Memcpy(_) => self.streams[i].pos += 1,
                }
            }
        }
        while let Some(&(at, id)) = self.kmu.front() {
            if at > t || self.distributor.len() >= self.max_kernels {
                break;
            }
            self.kmu.pop_front();
            self.distributor.push(id);
            changed = true;
        }
        changed
    }

    /// Earliest cycle after `t` at which the KMU has something to do.
    pub fn next_event(&self, t: u64) -> Option<u64> {
        match self.kmu.front() {
            Some(&(at, _)) if at > t && self.distributor.len() < self.max_kernels => Some(at),
            _ => None,
        }
    }

    /// Kernels of the distributor with TBs left to dispatch, FCFS.
    pub fn dispatchable(&self) -> impl Iterator<Item = u32> + '_ {
        self.distributor
            .iter()
            .copied()
            .filter(|&k| self.kernels[k as usize].next_tb < self.kernels[k as usize].tbs)
    }

    /// A TB of kernel `k` exited at `t`; returns whether the kernel completed.
    pub fn tb_exit(&mut self, k: u32, t: u64) -> bool {
        let kern = &mut self.kernels[k as usize];
        kern.done_tbs += 1;
        if kern.done_tbs < kern.tbs {
            return false;
        }
        kern.end = Some(t);
        let stream = kern.stream as usize;
        self.distributor.retain(|&x| x != k);
        let q = self.hwq_of(stream);
        self.hwq_busy[q] = false;
        self.streams[stream].running = None;
        true
    }

    /// Every stream finished its commands and no kernel is in flight.
    pub fn done(&self) -> bool {
        self.streams
            .iter()
            .all(|s| s.pos >= s.steps.len() && s.running.is_none())
            && self.kmu.is_empty()
            && self.distributor.is_empty()
    }
}
