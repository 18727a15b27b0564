//! The full manycore simulation: trace-driven cores attached to the memory side.
//!
//! [`Manycore`] owns one [`Core`] per trace core and a [`MemorySystem`], and runs them
//! in one event-driven loop: at each step it picks the earliest cycle at which a core
//! can progress or the memory side has an event, advances the memory side to it,
//! hands the completions to their cores, and steps the cores due at that cycle (in
//! core order, so runs are deterministic). Idle cycles are skipped. The run ends when
//! every core has retired its last record and the memory side has drained (late
//! write-backs are simulated but do not extend the run time, which is the last
//! core's finish cycle, DESIGN.md "Metrics").
//!
//! Barriers: a core that reaches a barrier record and has drained
//! ([`Core::at_barrier`]) sleeps; once every core has arrived at its barrier or
//! finished its stream, all arrived cores are released and go on at the next
//! cycle. Barriers are matched by count, so the k-th barrier of every core is
//! the same barrier (the runtime writes them for all cores at once).
//!
//! Invariant: if no core can progress and the memory side has nothing in flight while
//! some core is unfinished, the model is deadlocked and the run fails with
//! [`SimError::Deadlock`] rather than looping.

use crate::core::{Core, CoreParams, CoreStats, Op, RecordSource};
use crate::metrics::WindowSummary;
use crate::noc::NocStats;
use crate::sample::{Driver, Plain, Release, SAMPLE_TAG};
use crate::system::{Completion, DramBackend, MemorySystem, SystemParams, SystemStats};
use crate::trace::BarrierPhase;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Errors of a manycore run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The record source failed (I/O, malformed trace).
    #[error("trace: {0}")]
    Trace(String),
    /// The trace names a core the machine does not have.
    #[error("trace has records for core {core} but the machine has {cores} cores")]
    TooManyCores {
        /// Core id found in the trace.
        core: u32,
        /// Cores of the machine.
        cores: u32,
    },
    /// The binary trace's header declares more cores than the machine has.
    #[error(
        "the trace header declares {header} cores but the machine has {cores} cores (core.count)"
    )]
    HeaderCores {
        /// Core count of the trace header.
        header: u32,
        /// Cores of the machine.
        cores: u32,
    },
    /// The trace's instructions (the sum of its gaps) exceed the limit.
    #[error(
        "the trace's gaps add up to more than {limit} instructions (the limit of a simulation, \
         docs/limits.md) at record {record}"
    )]
    TooLong {
        /// 0-based index of the record that crossed the limit.
        record: u64,
        /// The limit.
        limit: u64,
    },
    /// The machine description cannot be simulated.
    #[error("unsupported machine: {0}")]
    Unsupported(String),
    /// The DRAM thread could not be started.
    #[error("cannot start the DRAM thread: {0}")]
    Thread(String),
    /// No unit can progress but work remains (a model bug).
    #[error("deadlock at cycle {cycle}: {unfinished} cores unfinished, nothing in flight")]
    Deadlock {
        /// Cycle of detection.
        cycle: u64,
        /// Cores that had not finished.
        unfinished: usize,
    },
}

/// Result alias of this module.
pub type Result<T> = std::result::Result<T, SimError>;

/// Records held in memory, per core (tests, small traces, generated workloads).
#[derive(Clone, Debug, Default)]
pub struct VecSource {
    ops: Vec<VecDeque<Op>>,
}

impl VecSource {
    /// From one record list per core.
    pub fn new(per_core: Vec<Vec<Op>>) -> Self {
        VecSource {
            ops: per_core.into_iter().map(VecDeque::from).collect(),
        }
    }

    /// Number of cores with a stream.
    pub fn cores(&self) -> usize {
        self.ops.len()
    }
}

impl RecordSource for VecSource {
    fn next_op(&mut self, core: u32) -> Result<Option<Op>> {
        Ok(self.ops.get_mut(core as usize).and_then(|q| q.pop_front()))
    }
}

/// Statistics of a manycore run (serialized with stable key names).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunStats {
    /// Cycles until the last core retired its last record.
    pub cycles: u64,
    /// Records retired (all cores).
    pub records: u64,
    /// Instructions retired (records plus gaps).
    pub instructions: u64,
    /// Barriers passed (all cores together count once).
    pub barriers: u64,
    /// Cycles between inspection-start and inspection-end barriers: the
    /// simulated cost of the runtime's inspections (all cores wait at both ends).
    pub inspection_cycles: u64,
    /// Cycles between region-start and region-end barriers: the parallel
    /// regions' executions.
    pub region_cycles: u64,
    /// DRAM bank-level parallelism (= `mlp`, DESIGN.md).
    pub blp: f64,
    /// Memory-level parallelism: memory banks serving LLC misses.
    pub mlp: f64,
    /// Cache-level parallelism: LLC banks serving L1 misses.
    pub clp: f64,
    /// LLC hit rate of demand (L1-miss) requests.
    pub llc_hit_rate: f64,
    /// Row-buffer hits / DRAM requests.
    pub row_hit_rate: f64,
    /// Row-buffer misses (bank closed) / DRAM requests.
    pub row_miss_rate: f64,
    /// Row-buffer conflicts / DRAM requests.
    pub row_conflict_rate: f64,
    /// Mean L1-miss latency (issue to data), core cycles.
    pub avg_mem_latency: f64,
    /// Network part of `avg_mem_latency`.
    pub avg_network_latency: f64,
    /// LLC part of `avg_mem_latency`.
    pub avg_llc_latency: f64,
    /// DRAM part of `avg_mem_latency`.
    pub avg_dram_latency: f64,
    /// LLC misses per thousand instructions.
    pub llc_mpki: f64,
    /// L1 misses per thousand instructions.
    pub l1_mpki: f64,
    /// Intra-core MLP per window (§5.4).
    pub intra_core_mlp: f64,
    /// Inter-core MLP per window (§5.4).
    pub inter_core_mlp: f64,
    /// Intra-core CLP per window (§5.4).
    pub intra_core_clp: f64,
    /// Inter-core CLP per window (§5.4).
    pub inter_core_clp: f64,
    /// Epoch / window length, core cycles.
    pub epoch_cycles: u64,
    /// Per-epoch MLP as `[epoch index, MLP]` for the epochs with a busy bank
    /// (idle epochs are left out: their MLP is 0).
    pub mlp_per_epoch: Vec<(u64, f64)>,
    /// Per-epoch CLP as `[epoch index, CLP]` for the epochs with a busy LLC bank.
    pub clp_per_epoch: Vec<(u64, f64)>,
    /// Per-window inter-core MLP and CLP details.
    pub windows: Windows,
    /// Memory-side details.
    pub memory: SystemStats,
    /// NoC summary (also inside `memory`).
    pub noc: NocStats,
    /// DRAM model statistics.
    pub dram: serde_json::Value,
    /// Per-core counters.
    pub per_core: Vec<CoreStats>,
}

/// Window summaries.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Windows {
    /// MLP windows.
    pub mlp: WindowSummary,
    /// CLP windows.
    pub clp: WindowSummary,
}

/// Wake-up calendar of the cores: which cores are due at which cycle, so that a
/// step visits only the cores due then, in core order, instead of every core.
///
/// A core due within the next [`SLOTS`] cycles is a bit in the slot of its
/// wake-up cycle (one bit per core), later ones wait in `far`. The cores' `wake`
/// array stays the truth: an entry is valid only while `wake[core]` equals its
/// time (a completion may wake a core earlier; its old entry is then stale and
/// dropped when met). Invariant: a valid slot entry for cycle `w` was made at a
/// cycle `now` with `w - now < SLOTS`, so slot `t % SLOTS` holds at cycle `t`
/// only entries for `t` or stale ones.
struct Calendar {
    /// `SLOTS` slots of `words` bitmask words each.
    slots: Vec<u64>,
    words: usize,
    /// Non-empty slots (bit per slot).
    occupied: u64,
    far: BinaryHeap<Reverse<(u64, u32)>>,
}

const SLOTS: u64 = 64;

impl Calendar {
    fn new(cores: usize) -> Self {
        let words = cores.div_ceil(64).max(1);
        Calendar {
            slots: vec![0; SLOTS as usize * words],
            words,
            occupied: 0,
            far: BinaryHeap::new(),
        }
    }

    /// Core `i` is due at `w` (`now <= w`, or `w == SLEEP` for never).
    #[inline]
    fn insert(&mut self, i: usize, w: u64, now: u64) {
        if w == SLEEP {
            return;
        }
        debug_assert!(w >= now, "core {i} due at {w}, before {now}");
        if w - now < SLOTS {
            let s = (w % SLOTS) as usize;
            self.slots[s * self.words + i / 64] |= 1 << (i % 64);
            self.occupied |= 1 << s;
        } else {
            self.far.push(Reverse((w, i as u32)));
        }
    }

    /// Earliest valid wake-up at or after `now` (dropping stale entries on the way).
    fn next(&mut self, now: u64, wake: &[u64]) -> u64 {
        // Far entries due inside the slot horizon move into their slots first, so
        // every cycle's cores sit in one place.
        while let Some(&Reverse((w, i))) = self.far.peek() {
            if w >= now + SLOTS {
                break;
            }
            self.far.pop();
            if wake[i as usize] == w && w >= now {
                self.insert(i as usize, w, now);
            }
        }
        let base = (now % SLOTS) as u32;
        loop {
            let rot = self.occupied.rotate_right(base);
            if rot == 0 {
                break;
            }
            let w = now + rot.trailing_zeros() as u64;
            let s = (w % SLOTS) as usize;
            let mut any = false;
            for k in 0..self.words {
                let mut bits = self.slots[s * self.words + k];
                let mut valid = 0;
                while bits != 0 {
                    let b = bits.trailing_zeros();
                    bits &= bits - 1;
                    if wake[k * 64 + b as usize] == w {
                        valid |= 1 << b;
                    }
                }
                self.slots[s * self.words + k] = valid;
                any |= valid != 0;
            }
            if any {
                return w;
            }
            self.occupied &= !(1 << s);
        }
        // Nothing in the slots: the earliest valid far entry.
        while let Some(&Reverse((w, i))) = self.far.peek() {
            if wake[i as usize] == w {
                return w;
            }
            self.far.pop();
        }
        SLEEP
    }

    /// Takes the cores of slot `t`: bitmask words appended to `out`.
    fn take(&mut self, t: u64, out: &mut Vec<u64>) {
        // Far entries for `t` (if any were not moved by `next`).
        while let Some(&Reverse((w, i))) = self.far.peek() {
            if w > t {
                break;
            }
            self.far.pop();
            if w == t {
                let s = (t % SLOTS) as usize;
                self.slots[s * self.words + i as usize / 64] |= 1 << (i % 64);
            }
        }
        let s = (t % SLOTS) as usize;
        out.clear();
        out.extend_from_slice(&self.slots[s * self.words..(s + 1) * self.words]);
        self.slots[s * self.words..(s + 1) * self.words].fill(0);
        self.occupied &= !(1 << s);
    }
}

/// Cores plus memory side.
pub struct Manycore<D: DramBackend> {
    cores: Vec<Core>,
    mem: MemorySystem<D>,
    wake: Vec<u64>,
    phases: PhaseTimes,
}

/// Barrier bookkeeping: phases timed between tagged barriers.
#[derive(Clone, Copy, Debug, Default)]
struct PhaseTimes {
    barriers: u64,
    inspect_start: Option<u64>,
    inspection_cycles: u64,
    region_start: Option<u64>,
    region_cycles: u64,
}

const SLEEP: u64 = u64::MAX;

impl<D: DramBackend> Manycore<D> {
    /// `cores` cores with parameters `cp` on the memory side `sp` over `dram`.
    pub fn new(cores: u32, cp: CoreParams, sp: SystemParams, dram: D) -> Result<Self> {
        if cores == 0 {
            return Err(SimError::Unsupported("no cores".into()));
        }
        if sp.coherence && sp.requesters > 64 {
            return Err(SimError::Unsupported(format!(
                "directory coherence tracks at most 64 requesters, machine has {}",
                sp.requesters
            )));
        }
        if sp.requester_nodes.len() < cores as usize {
            return Err(SimError::Unsupported(
                "fewer requester nodes than cores".into(),
            ));
        }
        let llc_line = sp.llc_bank.line_bytes;
        let nodes = sp.requester_nodes.clone();
        let cores: Vec<Core> = (0..cores)
            .map(|i| Core::new(i, nodes[i as usize], cp, llc_line))
            .collect();
        let n = cores.len();
        Ok(Manycore {
            cores,
            mem: MemorySystem::new(sp, dram),
            wake: vec![0; n],
            phases: PhaseTimes::default(),
        })
    }

    /// The memory side.
    pub fn memory(&self) -> &MemorySystem<D> {
        &self.mem
    }

    /// The memory side, mutably (statistics after a run).
    pub fn memory_mut(&mut self) -> &mut MemorySystem<D> {
        &mut self.mem
    }

    /// Runs the DRAM model on a thread of its own during [`Self::run`]
    /// ([`MemorySystem::spawn_dram_thread`]): same results, up to twice the speed
    /// on a memory-bound run. Returns whether it did (not under the BLP-Ideal oracle).
    pub fn spawn_dram_thread(&mut self) -> Result<bool>
    where
        D: Send + 'static,
    {
        self.mem
            .spawn_dram_thread()
            .map_err(|e| SimError::Thread(e.to_string()))
    }

    /// Runs to completion; `progress(records_retired)` is called now and then.
    pub fn run(
        &mut self,
        src: &mut dyn RecordSource,
        progress: impl FnMut(u64),
    ) -> Result<RunStats> {
        self.run_driven(&mut Plain(src), progress)
    }

    /// [`Self::run`] with a source that is told of every barrier release and
    /// may act on the machine then (sampled simulation, [`crate::sample`]):
    /// when every core has arrived at a barrier (or finished) and some wait at
    /// a sampling barrier ([`SAMPLE_TAG`]), only those are released, after
    /// [`Driver::released`]; the trace's own barriers are released as in
    /// [`Self::run`] once no core waits at a sampling barrier.
    pub fn run_driven<S: Driver<D>>(
        &mut self,
        src: &mut S,
        mut progress: impl FnMut(u64),
    ) -> Result<RunStats> {
        let mut comps: Vec<Completion> = Vec::new();
        let mut steps = 0u64;
        let mut input_done = false;
        let mut cal = Calendar::new(self.cores.len());
        let now0 = self
            .wake
            .iter()
            .copied()
            .min()
            .unwrap_or(SLEEP)
            .min(self.mem.now());
        for (i, &w) in self.wake.iter().enumerate() {
            cal.insert(i, w, now0);
        }
        let mut due: Vec<u64> = Vec::new();
        // Earliest wake-up of any core (kept up to date below).
        let mut min_wake = cal.next(now0, &self.wake);
        loop {
            if !input_done && self.mem.in_flight() == 0 && self.cores.iter().all(|c| c.is_done()) {
                // No request can follow: let the DRAM drain its write queues.
                self.mem.finish_input();
                input_done = true;
            }
            let mut t = min_wake;
            if let Some(m) = self.mem.next_event_time() {
                t = t.min(m);
            }
            // With the DRAM on its own thread: wait until it has reported every
            // completion due by `t` (which may come first).
            let t = self.mem.settle(t);
            if t == SLEEP {
                break;
            }
            self.mem.advance_to(t);
            self.mem.drain_completions(&mut comps);
            // When only the memory side had something to do (no completion, no
            // core due), the calendar is unchanged and there is nothing to step.
            if t >= min_wake || !comps.is_empty() {
                for c in comps.drain(..) {
                    let i = c.requester as usize;
                    let at = self.cores[i].complete(&c, &mut self.mem);
                    if !self.cores[i].is_done() && at < self.wake[i] {
                        self.wake[i] = at;
                        // due now if `at <= t` (stepped below), else at `at`
                        cal.insert(i, at.max(t), t);
                    }
                }
                // Step the cores due at `t` (wake-up <= t), in core order.
                cal.take(t, &mut due);
                let mut sync_changed = false;
                for (k, &word) in due.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        let i = k * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if self.wake[i] <= t {
                            let c = &mut self.cores[i];
                            let before = (c.is_done(), c.at_barrier().is_some());
                            let w = c.step(t, &mut self.mem, src)?.unwrap_or(SLEEP);
                            sync_changed |= before != (c.is_done(), c.at_barrier().is_some());
                            self.wake[i] = w;
                            cal.insert(i, w, t);
                        }
                    }
                }
                if sync_changed {
                    self.release_barrier(t, &mut cal, src)?;
                }
                min_wake = cal.next(t + 1, &self.wake);
            }
            steps += 1;
            if steps & 0xffff == 0 {
                progress(self.cores.iter().map(|c| c.stats().records).sum());
            }
        }
        self.mem.join_dram_thread();
        let unfinished = self.cores.iter().filter(|c| !c.is_done()).count();
        if unfinished > 0 {
            return Err(SimError::Deadlock {
                cycle: self.mem.now(),
                unfinished,
            });
        }
        progress(self.cores.iter().map(|c| c.stats().records).sum());
        Ok(self.stats())
    }

    /// Releases the cores waiting at a barrier when no core is still on its
    /// way to it (every core has arrived or finished); they go on at `t + 1`.
    fn release_barrier<S: Driver<D>>(
        &mut self,
        t: u64,
        cal: &mut Calendar,
        src: &mut S,
    ) -> Result<()> {
        if !self
            .cores
            .iter()
            .all(|c| c.is_done() || c.at_barrier().is_some())
        {
            return Ok(());
        }
        if self
            .cores
            .iter()
            .any(|c| c.barrier_tag() == Some(SAMPLE_TAG))
        {
            let r = t + 1;
            src.released(r, Release::Sample, &mut self.cores, &mut self.mem)?;
            for (i, c) in self.cores.iter_mut().enumerate() {
                if c.barrier_tag() == Some(SAMPLE_TAG) {
                    c.release_barrier(r);
                    self.wake[i] = r;
                    cal.insert(i, r, t);
                }
            }
            return Ok(());
        }
        // The tag of the barrier the cores wait at (none waiting: nothing to do).
        let Some(tag) = self.cores.iter().find_map(|c| c.barrier_tag()) else {
            return Ok(());
        };
        let r = t + 1;
        let phase = BarrierPhase::from_tag(tag);
        src.released(r, Release::Trace(phase), &mut self.cores, &mut self.mem)?;
        match phase {
            BarrierPhase::InspectStart => self.phases.inspect_start = Some(r),
            BarrierPhase::InspectEnd => {
                if let Some(s) = self.phases.inspect_start.take() {
                    self.phases.inspection_cycles += r - s;
                }
            }
            BarrierPhase::RegionStart => self.phases.region_start = Some(r),
            BarrierPhase::RegionEnd => {
                if let Some(s) = self.phases.region_start.take() {
                    self.phases.region_cycles += r - s;
                }
            }
            BarrierPhase::None => {}
        }
        self.phases.barriers += 1;
        for (i, c) in self.cores.iter_mut().enumerate() {
            if c.at_barrier().is_some() {
                c.release_barrier(r);
                self.wake[i] = r;
                cal.insert(i, r, t);
            }
        }
        Ok(())
    }

    fn stats(&mut self) -> RunStats {
        let per_core: Vec<CoreStats> = self.cores.iter().map(|c| c.stats().clone()).collect();
        let cycles = per_core.iter().map(|c| c.cycles).max().unwrap_or(0);
        let records = per_core.iter().map(|c| c.records).sum();
        let instructions: u64 = per_core.iter().map(|c| c.instructions).sum();
        let l1_misses: u64 = per_core.iter().map(|c| c.l1_misses).sum();
        let mem = self.mem.finish(cycles);
        let (h, m, c) = self.mem.dram_mut().row_counts();
        let tot = (h + m + c).max(1) as f64;
        let kinst = (instructions as f64 / 1000.0).max(1e-9);
        RunStats {
            cycles,
            records,
            instructions,
            barriers: self.phases.barriers,
            inspection_cycles: self.phases.inspection_cycles,
            region_cycles: self.phases.region_cycles,
            blp: mem.mlp.mean,
            mlp: mem.mlp.mean,
            clp: mem.clp.mean,
            llc_hit_rate: mem.llc_hit_rate,
            row_hit_rate: h as f64 / tot,
            row_miss_rate: m as f64 / tot,
            row_conflict_rate: c as f64 / tot,
            avg_mem_latency: mem.avg_latency,
            avg_network_latency: mem.avg_network_latency,
            avg_llc_latency: mem.avg_llc_latency,
            avg_dram_latency: mem.avg_dram_latency,
            llc_mpki: mem.llc_misses as f64 / kinst,
            l1_mpki: l1_misses as f64 / kinst,
            intra_core_mlp: mem.mlp_windows.intra_core,
            inter_core_mlp: mem.mlp_windows.inter_core,
            intra_core_clp: mem.clp_windows.intra_core,
            inter_core_clp: mem.clp_windows.inter_core,
            epoch_cycles: self.mem.params().epoch,
            mlp_per_epoch: mem.mlp.per_epoch.clone(),
            clp_per_epoch: mem.clp.per_epoch.clone(),
            windows: Windows {
                mlp: mem.mlp_windows.clone(),
                clp: mem.clp_windows.clone(),
            },
            noc: mem.noc.clone(),
            dram: self.mem.dram_mut().stats_json(),
            memory: mem,
            per_core,
        }
    }
}
