//! The runtime object behind the C ABI: configuration (cores, trace, stats,
//! machine), the per-region schedule cache, the inspector handle, the executor
//! entry points and the statistics (§4.4 inspector/executor, §4.5.1 coverage
//! ratio, §5.5 iteration blocks).
//!
//! Caching: a region's plan is built on its first execution (or after
//! [`Runtime::invalidate`], or when its bounds, unit size, scheme or core count
//! change) and reused by every later execution — the inspector runs once, the
//! executor many times, as in the timing loops of the dissertation's benchmarks.
//! Compiled regions pick their id with [`Runtime::select_context`]: one static
//! region owns [`CONTEXT_SLOTS`] ids, keyed by the live-in values of its call
//! (LRU beyond that), so a kernel run on several index arrays in turn
//! (Gauss-Seidel's colours) keeps one schedule per array. A region with a
//! single slab in all (one worker) runs without inspection.
//!
//! Irregular inspections record through [`crate::inspect::SlabRecorder`]
//! (bank-map bits and compact records; the dependence check only when
//! something is reported as written); [`RegionStats::inspector_breakdown`]
//! says where the time went. Natively, each core inspects its own chunk on
//! its worker, concurrently (one recorder per chunk, merged in chunk order);
//! in trace mode the chunks are inspected one after another, each on its
//! virtual core.
//!
//! Grain control (native mode only): handing a region to the worker pool
//! and waiting for it costs microseconds, more than a whole small loop (the
//! stun benchmark calls regions of a few hundred nanoseconds millions of
//! times). Per region and per `weft_parallel_for` body the runtime keeps the
//! work per iteration of its last run (a sequential run's time, or the sum
//! of the workers' busy times of a parallel run, which leaves out the pool's
//! wake-up latency). A run goes to the calling thread alone, without
//! inspection or scheduling, when its estimated work is below
//! [`RuntimeConfig::min_parallel_ns`]; with one worker such a call still
//! skips inspection and scheduling (a schedule cannot pay for itself on so
//! little work). Either way gives the same results (parallel loops have independent
//! iterations; a plan with dependences runs in its sequential order, which
//! respects them). `RegionStats::serial_executions` counts such runs.
//!
//! Grain hints: even a call that grain control keeps on the calling thread
//! costs the runtime entry, context selection and statistics (about 0.1-0.5
//! us), which doubles loops of a few hundred nanoseconds. So after each call
//! the compiled caller asks `weft_grain_hint` for the trip count below which
//! grain control would have run that call's site serially
//! (`ceil(min_parallel_ns / work_per_iteration)`, at most [`GRAIN_HINT_MAX`])
//! and keeps it in a per-site global; smaller trip counts then run the
//! outlined body inline without calling the runtime at all (the same
//! original-order run grain control would choose). The hint is 0 (every call
//! reaches the runtime) in trace mode, in nested regions and with the
//! threshold off, so traces are unchanged. Calls run inline by a hint are not
//! in the region statistics.
//!
//! Schedule reuse: an irregular region re-inspected before every execution
//! (its index data change each time) pays the inspector on every run and
//! never amortises it. After [`RuntimeConfig::reinspect_limit`] schedules in
//! a row that each served a single execution, the region stops inspecting
//! and runs in original order (`RegionStats::inspection_abandoned`); regions
//! that report checked writes are exempt, as their parallel execution relies
//! on the dependence check. Counted in executions, so trace mode stays
//! deterministic. Natively, described affine nests whose plans each serve
//! one execution and cost more than [`RuntimeConfig::plan_cost_share`] of it
//! fall back to the Default schedule the same way. A region whose live-ins
//! change on every call gets a new context id each time (see
//! [`Runtime::select_context`]); after [`CHURN_CONTEXTS`] new contexts in a
//! row each new one inherits the previous one's reuse state, so the rule
//! above still applies across contexts.

use crate::affine_desc::AffineDesc;
use crate::bankmap::{unit_maps, AddressMap};
use crate::blp::{original_order, schedule_blp, BlpOptions, SlabInstance};
use crate::deps::{sync_points, Access, UnitDag};
use crate::error::invalid;
use crate::executor::{
    execute_native, execute_native_timed, execute_sequential, on_workers, BodyRef, Plan,
};
use crate::inspect::{
    BankTable, InlineRecs, RecordPool, SlabLayout, SlabRecorder, WrittenGranules, REC_BYTES,
};
use crate::machine::{Machine, DEFAULT_MACHINE};
use crate::mlp::{iw_size, schedule_ibs, BlockVectors, IbInstance, MlpOptions, Scheme};
use crate::trace::Tracer;
use crate::{Result, RuntimeError};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Instant;
use weft_memsim::trace::BarrierPhase;

/// Runtime configuration (from the environment for the C ABI).
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    /// Worker threads / virtual cores P (`WEFT_CORES`, default: available parallelism).
    pub cores: usize,
    /// Trace mode output (`WEFT_TRACE`); when set the executor runs sequentially.
    pub trace: Option<PathBuf>,
    /// Statistics output written at exit (`WEFT_STATS`).
    pub stats: Option<PathBuf>,
    /// Machine preset or TOML path (`WEFT_MACHINE`, default `table5.2`).
    pub machine: String,
    /// Barrier after every scheduling slot of Algorithm 4 (`WEFT_SLOT_BARRIER=1`; default off).
    pub slot_barrier: bool,
    /// Grain control (`WEFT_MIN_PARALLEL_NS`, default [`DEFAULT_MIN_PARALLEL_NS`];
    /// 0 = off): a native region or parallel loop whose sequential run is
    /// estimated below this many nanoseconds runs on the calling thread
    /// (see [`Runtime`] docs, *Grain control*).
    pub min_parallel_ns: u64,
    /// Schedule-reuse control (`WEFT_REINSPECT_LIMIT`, default
    /// [`DEFAULT_REINSPECT_LIMIT`]; 0 = off): an irregular region whose last
    /// this-many schedules each served a single execution stops inspecting and
    /// runs in its original order (see [`Runtime`] docs, *Schedule reuse*).
    pub reinspect_limit: u32,
    /// Schedule-reuse control of described affine nests (native only): a
    /// plan that served one execution counts against the nest when building
    /// it took more than this share of the execution's time (default
    /// [`AFFINE_PLAN_COST_SHARE`]; 0 = always, infinity = never).
    pub plan_cost_share: f64,
    /// The same for nests whose plans include the run-time conflict check
    /// (they fall back to sequential execution, so a plan must cost more than
    /// this many times `(cores - 1)` executions: then the sequential run is
    /// faster than building a plan and running it in parallel; default 1).
    pub checked_plan_cost_ratio: f64,
    /// Sliding candidate window of Algorithm 4 (`WEFT_BLP_WINDOW`, default
    /// `None`: every remaining slab of a core is a candidate, as in the
    /// dissertation; `0` in the variable also means none): each core picks
    /// among its next `w` remaining slabs in original order
    /// ([`BlpOptions::window`]). A small window bounds how far a slab moves
    /// from its original place, which keeps the cache reuse between
    /// neighbouring slabs (docs/runtime.md, *Candidate window*).
    pub blp_window: Option<usize>,
    /// Lazy inspection (`WEFT_LAZY_INSPECT`, default [`LazyInspect::Checked`];
    /// native runs only): which irregular regions run their first execution
    /// in original order on the calling thread, without inspection, and are
    /// inspected when they run again. See [`LazyInspect`].
    pub lazy: LazyInspect,
    /// Miss prediction of irregular inspections (`WEFT_MISS_FILTER`, default
    /// [`MissFilter::Off`]): which accesses of a slab set bits in its bank
    /// map (see [`MissFilter`]).
    pub miss_filter: MissFilter,
    /// Compiled inspectors may record unchecked accesses inline
    /// (`WEFT_INSPECT_INLINE`, default `true`; `0` turns it off, and every
    /// access goes through `weft_inspect_access`: for A/B measurements and
    /// checks, the bank maps and statistics are the same).
    pub inspect_inline: bool,
    /// Inspections stop recording a slab once its bank map is full
    /// (`WEFT_INSPECT_SATURATE`, default `true`; `0` inspects every
    /// iteration). Applies only to inspectors that declared every report
    /// unchecked ([`crate::abi::weft_inspect_maps_only`]): more unchecked
    /// accesses cannot change a full map, so the maps, the dependence DAG
    /// (empty) and the schedule are those of a full inspection; only the
    /// `accesses` / `line_touches` counts cover less. See
    /// `Runtime::inspect_chunk`.
    pub inspect_saturate: bool,
    /// Writes-first inspection of loops that need the dependence check
    /// (`WEFT_WRITES_FIRST`, default `true`; `0` turns it off; native runs
    /// only). When the compiled inspector has a slice of its checked writes
    /// alone ([`crate::abi::weft_inspect_writes_first`]), the cores first run
    /// that slice over their chunks, and the granules it writes form a bitmap;
    /// the full inspection then keeps only the reads that touch a written
    /// granule (the others cannot conflict). Same DAG and schedule; see
    /// `Runtime::build_irregular`.
    pub writes_first: bool,
}

/// Which irregular regions are inspected lazily ([`RuntimeConfig::lazy`]):
/// their first execution runs in original order on the calling thread,
/// without inspection, and they are inspected when they run again. A region
/// that runs once (miniFE's assembly loops, which write through index arrays
/// and so need the dependence check) then never pays an inspection worth
/// tens of its executions; a region that runs many times loses at most one
/// execution's parallel speed-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LazyInspect {
    /// No region (`WEFT_LAZY_INSPECT=0`).
    Off,
    /// Regions whose inspector does not declare
    /// [`crate::abi::weft_inspect_maps_only`], i.e. loops that need the
    /// dependence check, whose inspections record every access and cost tens
    /// of executions (`WEFT_LAZY_INSPECT=checked`, the default). Regions the
    /// compiler proves parallel keep their inspected first execution. To tell
    /// them apart the runtime runs the inspector over the region's first
    /// iteration into a throwaway layout. One that runs many times loses one
    /// execution's parallel speed-up, against an inspection that costs more
    /// than that anyway (docs/overheads.md).
    Checked,
    /// Every region (`WEFT_LAZY_INSPECT=1`).
    All,
}

/// The switch in variable `name`: `1` (or empty) on, `0` off, unset `default`.
fn env_on_off(name: &str, default: bool) -> Result<bool> {
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(v) => match v.trim() {
            "1" | "" => Ok(true),
            "0" => Ok(false),
            _ => Err(invalid(format!("{name}={v:?} is not 0 or 1"))),
        },
    }
}

/// Which accesses of a slab set bits in its bank map (§4.4.2).
///
/// The dissertation assumes every access misses in the LLC; then slabs of a
/// few dozen iterations of an indirect loop touch most banks and Algorithm 4
/// sees little difference between them. With a predictor, an access predicted
/// to hit sets no bit, so a slab's map holds the banks its misses are likely
/// to reach. The only predictor is [`crate::inspect::LineFilter`], fed per
/// core in original iteration order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissFilter {
    /// Every access is a predicted miss (`off`, the dissertation's default).
    #[default]
    Off,
    /// A line filter of the lines a core can expect to keep cached:
    /// [`Machine::core_cache_lines`] (private L2, else L1, plus the core's
    /// share of the LLC) (`lines`).
    Lines,
    /// A line filter of this many cache lines (`lines:N`).
    LinesOf(usize),
}

impl MissFilter {
    /// Parses `off`, `lines` or `lines:N` (N > 0 cache lines).
    pub fn parse(s: &str) -> Option<MissFilter> {
        match s.trim() {
            "off" | "" => Some(MissFilter::Off),
            "lines" => Some(MissFilter::Lines),
            s => s
                .strip_prefix("lines:")
                .and_then(|n| n.trim().parse::<usize>().ok())
                .filter(|&n| n > 0)
                .map(MissFilter::LinesOf),
        }
    }

    /// Filter capacity in cache lines on `machine` with `cores` cores (0 = off).
    pub fn lines(self, machine: &Machine, cores: usize) -> usize {
        match self {
            MissFilter::Off => 0,
            MissFilter::Lines => machine.core_cache_lines(cores),
            MissFilter::LinesOf(n) => n,
        }
    }
}

/// Default of [`RuntimeConfig::min_parallel_ns`]: about the cost of handing
/// work to the worker pool and waiting for it on this kind of machine
/// (`cargo bench -p weft-runtime --bench dispatch` measures it).
pub const DEFAULT_MIN_PARALLEL_NS: u64 = 20_000;

/// Default of [`RuntimeConfig::reinspect_limit`]: two schedules in a row that
/// were never reused.
pub const DEFAULT_REINSPECT_LIMIT: u32 = 2;

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig {
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            trace: None,
            stats: None,
            machine: DEFAULT_MACHINE.to_string(),
            slot_barrier: false,
            min_parallel_ns: DEFAULT_MIN_PARALLEL_NS,
            reinspect_limit: DEFAULT_REINSPECT_LIMIT,
            plan_cost_share: AFFINE_PLAN_COST_SHARE,
            checked_plan_cost_ratio: 1.0,
            blp_window: None,
            lazy: LazyInspect::Checked,
            miss_filter: MissFilter::Off,
            inspect_inline: true,
            inspect_saturate: true,
            writes_first: true,
        }
    }
}

impl RuntimeConfig {
    /// Reads `WEFT_CORES`, `WEFT_TRACE`, `WEFT_STATS`, `WEFT_MACHINE`,
    /// `WEFT_SLOT_BARRIER`, `WEFT_MIN_PARALLEL_NS`, `WEFT_REINSPECT_LIMIT`,
    /// `WEFT_BLP_WINDOW`, `WEFT_MISS_FILTER`, `WEFT_LAZY_INSPECT`,
    /// `WEFT_INSPECT_INLINE`, `WEFT_INSPECT_SATURATE`, `WEFT_WRITES_FIRST`.
    pub fn from_env() -> Result<Self> {
        let mut c = RuntimeConfig::default();
        if let Ok(v) = std::env::var("WEFT_CORES") {
            c.cores = v
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&n| (1..=65536).contains(&n))
                .ok_or_else(|| {
                    invalid(format!("WEFT_CORES={v:?} is not a core count in 1..=65536"))
                })?;
        }
        c.trace = std::env::var_os("WEFT_TRACE")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        c.stats = std::env::var_os("WEFT_STATS")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        if let Ok(m) = std::env::var("WEFT_MACHINE") {
            if !m.is_empty() {
                c.machine = m;
            }
        }
        c.slot_barrier = std::env::var("WEFT_SLOT_BARRIER").is_ok_and(|v| v == "1");
        if let Ok(v) = std::env::var("WEFT_MIN_PARALLEL_NS") {
            c.min_parallel_ns = v.trim().parse::<u64>().map_err(|_| {
                invalid(format!(
                    "WEFT_MIN_PARALLEL_NS={v:?} is not a number of nanoseconds (0 = always parallel)"
                ))
            })?;
        }
        if let Ok(v) = std::env::var("WEFT_REINSPECT_LIMIT") {
            c.reinspect_limit = v.trim().parse::<u32>().map_err(|_| {
                invalid(format!(
                    "WEFT_REINSPECT_LIMIT={v:?} is not a count of schedules (0 = always inspect)"
                ))
            })?;
        }
        if let Ok(v) = std::env::var("WEFT_LAZY_INSPECT") {
            c.lazy = match v.trim() {
                "1" | "on" | "true" => LazyInspect::All,
                "checked" => LazyInspect::Checked,
                "0" | "off" | "false" | "" => LazyInspect::Off,
                _ => {
                    return Err(invalid(format!(
                        "WEFT_LAZY_INSPECT={v:?} is not 0/1 (off/on) or `checked`"
                    )))
                }
            };
        }
        if let Ok(v) = std::env::var("WEFT_BLP_WINDOW") {
            let w = v.trim().parse::<usize>().map_err(|_| {
                invalid(format!(
                    "WEFT_BLP_WINDOW={v:?} is not a count of slabs (0 = no window)"
                ))
            })?;
            c.blp_window = (w > 0).then_some(w);
        }
        c.inspect_inline = env_on_off("WEFT_INSPECT_INLINE", c.inspect_inline)?;
        c.inspect_saturate = env_on_off("WEFT_INSPECT_SATURATE", c.inspect_saturate)?;
        c.writes_first = env_on_off("WEFT_WRITES_FIRST", c.writes_first)?;
        if let Ok(v) = std::env::var("WEFT_MISS_FILTER") {
            c.miss_filter = MissFilter::parse(&v).ok_or_else(|| {
                invalid(format!(
                    "WEFT_MISS_FILTER={v:?} is not `off`, `lines` or `lines:N` (N cache lines > 0)"
                ))
            })?;
        }
        Ok(c)
    }
}

/// Collects the accesses an inspector reports (the `weft_inspector_t` of the C ABI).
/// Irregular regions record straight into a [`SlabRecorder`] (bank-map bits and
/// compact records, see [`crate::inspect`]); affine nests keep every access for
/// their weighted bank vectors.
pub struct Inspector {
    lo: i64,
    hi: i64,
    /// [`RuntimeConfig::inspect_inline`].
    inline: bool,
    layout: Layout,
    accesses: Vec<Access>,
    error: Option<String>,
    /// The inspector declared that it reports only unchecked accesses
    /// ([`crate::abi::weft_inspect_maps_only`]).
    maps_only: bool,
    /// Where inline recorders write the records of reads the recorder
    /// drops ([`InlineRecs::Drop`], a cursor that does not advance).
    /// Aligned as records are (8 bytes).
    sink: Box<[u64; REC_BYTES / 8]>,
    /// The runtime asks for the checked writes only
    /// ([`crate::abi::weft_inspect_writes_first`]).
    writes_only: bool,
}

/// The reads of one [`Inspector::gather`] report
/// ([`crate::abi::weft_inspect_gather`]): `size` bytes at `base + idx[j] *
/// scale` for `j < n`, `idx` holding `n` signed integers of `idx_bytes` (4 or
/// 8) bytes; `kind` is `is_write` of `weft_inspect_access` (0: checked read,
/// [`crate::abi::ACCESS_UNCHECKED`]: unchecked).
#[derive(Clone, Copy, Debug)]
pub struct Gather {
    /// Address of element 0 of the gathered array.
    pub base: u64,
    /// The indices (`n` of them must be readable).
    pub idx: *const u8,
    /// Number of reads.
    pub n: u64,
    /// Bytes per index: 4 (`int32_t`) or 8 (`int64_t`).
    pub idx_bytes: u32,
    /// Bytes per index step.
    pub scale: i64,
    /// Bytes per read.
    pub size: u32,
    /// 0 (checked read) or 2 (unchecked).
    pub kind: u32,
}

impl Gather {
    /// Address of read `j < n` (`idx_bytes` checked to be 4 or 8).
    fn address(&self, j: u64) -> u64 {
        match self.idx_bytes {
            4 => self.address_of::<i32>(j),
            _ => self.address_of::<i64>(j),
        }
    }

    /// Address of read `j < n`, the indices being `I`s.
    #[inline(always)]
    fn address_of<I: GatherIndex>(&self, j: u64) -> u64 {
        // SAFETY: the caller of `weft_inspect_gather` passes `n` readable
        // indices of `idx_bytes` bytes, the size of `I`.
        let ix = unsafe { (self.idx as *const I).add(j as usize).read_unaligned() }.to_i64();
        self.base.wrapping_add(ix.wrapping_mul(self.scale) as u64)
    }
}

/// An index type of [`Gather`] (`i32` or `i64`).
trait GatherIndex: Copy {
    fn to_i64(self) -> i64;
}

impl GatherIndex for i32 {
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self as i64
    }
}

impl GatherIndex for i64 {
    #[inline(always)]
    fn to_i64(self) -> i64 {
        self
    }
}

/// Sets the bank bit of address `x` from the inline state's bank lookup:
/// banks 0..64 into `word0` (every bank on most machines; a read-modify-write
/// of the row per access would chain one access's marking to the next through
/// the store), others straight into the row.
///
/// # Safety
/// `table`, `lsb`, `mask` and `row` of a filled [`crate::abi::InspectFast`].
#[inline(always)]
unsafe fn mark_bank(st: &crate::abi::InspectFast, word0: &mut u64, x: u64) {
    // SAFETY: `(x >> lsb) & mask` indexes the runtime's table of `mask + 1`
    // entries, and a bank indexes the current slab's row (the contract).
    unsafe {
        let b = *st.table.add(((x >> st.lsb) & st.mask) as usize) as usize;
        match b < 64 {
            true => *word0 |= 1u64 << b,
            false => *st.row.add(b >> 6) |= 1u64 << (b & 63),
        }
    }
}

/// Writes the 16-byte record of a checked read at `*recs` and advances it
/// by `step`, as the compiled wrappers do.
///
/// # Safety
/// `*recs < recs_end` of a filled [`crate::abi::InspectFast`] (a free record
/// of the recorder's buffer, 8-byte aligned).
#[inline(always)]
unsafe fn push_read_record(recs: &mut *mut u8, step: usize, a: u64, unit: u32, size: u32) {
    // SAFETY: the caller's contract.
    unsafe {
        let r = *recs;
        (r as *mut u64).write(a);
        (r.add(8) as *mut u32).write(unit);
        (r.add(12) as *mut u32).write(size);
        *recs = r.add(step);
    }
}

/// [`gather_inline`] for reads aligned to their power-of-two `size` of at
/// most 16 bytes, no longer than the bank maps' line: each lies in one line
/// and in one word of the read filter. Same records, bits and counts.
#[inline(never)]
fn gather_aligned<I: GatherIndex, const CHECKED: bool>(
    st: &mut crate::abi::InspectFast,
    g: &Gather,
    from: u64,
    size: u32,
) -> u64 {
    let (shift, wbits, wgmin, wspan) = (st.shift, st.wbits, st.wgmin, st.wspan);
    let (mut recs, recs_end, step, unit) = (st.recs, st.recs_end, st.rec_step as usize, st.unit);
    let keep_reads = CHECKED && step != 0;
    let gshift = crate::deps::GRANULE.trailing_zeros();
    // The granules of one read (1 for up to 4 bytes, 2 for 8, 4 for 16).
    let gmask = (1u64 << (size as u64).div_ceil(crate::deps::GRANULE)) - 1;
    let (mut last_block, mut word0, mut j) = (u64::MAX, 0u64, from);
    while j < g.n {
        let a = g.address_of::<I>(j);
        let keep = keep_reads && {
            let i = (a >> gshift).wrapping_sub(wgmin);
            // SAFETY: `i < wspan`: a word of the filter.
            wspan == 0
                || (i < wspan && unsafe { *wbits.add((i >> 6) as usize) } >> (i & 63) & gmask != 0)
        };
        if keep && recs >= recs_end {
            break;
        }
        j += 1;
        let block = a >> shift;
        if block != last_block {
            last_block = block;
            // SAFETY: `st` is filled (the caller's slab is current).
            unsafe { mark_bank(st, &mut word0, a) };
        }
        if keep {
            // SAFETY: `recs < recs_end`, tested above.
            unsafe { push_read_record(&mut recs, step, a, unit, size) };
        }
    }
    if word0 != 0 {
        // SAFETY: the current slab's row has at least one word.
        unsafe { *st.row |= word0 };
    }
    // One line each.
    st.reported += j - from;
    st.touches += j - from;
    st.recs = recs;
    j
}

/// The inline path of [`Inspector::gather`] from read `j` on, with `st`'s
/// slab current: records reads into `st` (bank bits into its row, counts,
/// records of checked reads when `CHECKED`) until the last one or one it
/// cannot take (over more than two lines, or a record to keep and no free
/// one), whose index it returns (`g.n` when all were taken).
#[inline(never)]
fn gather_inline<I: GatherIndex, const CHECKED: bool>(
    st: &mut crate::abi::InspectFast,
    g: &Gather,
    mut j: u64,
    size: u32,
) -> u64 {
    let (shift, wbits, wgmin, wspan) = (st.shift, st.wbits, st.wgmin, st.wspan);
    let (mut recs, recs_end, step, unit) = (st.recs, st.recs_end, st.rec_step as usize, st.unit);
    let keep_reads = CHECKED && step != 0;
    let (mut reported, mut touches) = (st.reported, st.touches);
    let gshift = crate::deps::GRANULE.trailing_zeros();
    let (mut last_block, mut word0) = (u64::MAX, 0u64);
    while j < g.n {
        let a = g.address_of::<I>(j);
        let end = a.wrapping_add(size as u64 - 1);
        let (first, last) = (a >> shift, end >> shift);
        let extra = last.wrapping_sub(first);
        if extra >= 2 {
            break;
        }
        let keep = keep_reads && {
            // The read filter: one bitmap word for reads inside one word's
            // granules, the general test otherwise.
            let (g0, g1) = (a >> gshift, end >> gshift);
            let i = g0.wrapping_sub(wgmin);
            if wspan == 0 {
                true
            } else if i < wspan && g1 - g0 < 64 - (i & 63) {
                let m = (2u64 << (g1 - g0)).wrapping_sub(1) << (i & 63);
                // SAFETY: `i < wspan`: a word of the filter.
                unsafe { *wbits.add((i >> 6) as usize) & m != 0 }
            } else {
                !unwritten_read(st, a, end)
            }
        };
        if keep && recs >= recs_end {
            break;
        }
        j += 1;
        reported += 1;
        touches += extra + 1;
        if first != last_block || last != last_block {
            // SAFETY: `st` is filled (the caller's slab is current).
            unsafe {
                mark_bank(st, &mut word0, a);
                mark_bank(st, &mut word0, end);
            }
            last_block = last;
        }
        if keep {
            // SAFETY: `recs < recs_end`, tested above.
            unsafe { push_read_record(&mut recs, step, a, unit, size) };
        }
    }
    if word0 != 0 {
        // SAFETY: the current slab's row has at least one word.
        unsafe { *st.row |= word0 };
    }
    (st.reported, st.touches, st.recs) = (reported, touches, recs);
    j
}

/// Whether the read of bytes `[a, end]` touches no granule the read filter of
/// `st` marks written (`wspan = 0`: no filter, false). Exact: granules
/// outside `[wgmin, wgmin + wspan)` are unwritten.
#[inline(always)]
fn unwritten_read(st: &crate::abi::InspectFast, a: u64, end: u64) -> bool {
    if st.wspan == 0 {
        return false;
    }
    let shift = crate::deps::GRANULE.trailing_zeros();
    let (g0, g1) = (a >> shift, end >> shift);
    let (lo, hi) = (st.wgmin, st.wgmin + st.wspan);
    if g1 < g0 {
        return false; // wrapped around the address space: keep it
    }
    if g1 < lo || g0 >= hi {
        return true;
    }
    let (s, e) = (g0.max(lo) - lo, g1.min(hi - 1) - lo);
    for w in s >> 6..=e >> 6 {
        let from = if w == s >> 6 { s & 63 } else { 0 };
        let to = if w == e >> 6 { e & 63 } else { 63 };
        let m = (u64::MAX >> (63 - to)) & (u64::MAX << from);
        // SAFETY: `w <= (wspan - 1) / 64`, within the filter's words.
        if unsafe { *st.wbits.add(w as usize) } & m != 0 {
            return false;
        }
    }
    true
}

/// `(core, start, end)` of every per-core chunk (`chunk` has P+1 bounds).
fn core_ranges(chunk: &[i64]) -> Vec<(usize, i64, i64)> {
    chunk
        .windows(2)
        .enumerate()
        .map(|(c, w)| (c, w[0], w[1]))
        .collect()
}

/// An inspector as the runtime calls it: `insp(lo, hi, h)` reports the
/// accesses of iterations `[lo, hi)` to `h`. `Sync`: native irregular
/// inspections run the chunks of different cores concurrently.
pub type InspectRef<'a> = &'a (dyn Fn(i64, i64, &mut Inspector) + Sync);

/// What [`Runtime::inspect`] hands back: the accesses kept (affine nests),
/// the layout (with its recorder, for irregular regions), and whether the
/// inspector declared every report unchecked.
struct Inspected {
    accesses: Vec<Access>,
    layout: Layout,
    maps_only: bool,
}

enum Layout {
    /// Slabs of an irregular region.
    Slabs(Box<SlabRecorder>),
    /// Iteration blocks of `ib` iterations from `lo`.
    Blocks { ib: i64 },
}

impl Inspector {
    /// See [`crate::abi::weft_inspect_line_shift`]: the bank maps' line shift
    /// for irregular regions, 0 for affine nests.
    pub fn line_shift(&self) -> u32 {
        match &self.layout {
            Layout::Slabs(r) => r.line_shift(),
            Layout::Blocks { .. } => 0,
        }
    }

    /// See [`crate::abi::weft_inspect_fast`]: adds the counts `st` holds to
    /// the recorder's (and zeroes them), then fills `st` for iteration
    /// `iter`: the range of its slab within the inspected range, the slab's
    /// bank-map row and the bank table, with `enabled = 1` when the inline
    /// path is exact ([`SlabRecorder::inline_lookup`]). An `iter` outside
    /// the inspected range leaves an empty range (the caller's access then
    /// takes `weft_inspect_access`, which reports the error). With
    /// `enabled`, it also says where checked reads of the slab go
    /// ([`SlabRecorder::inline_records`]). `st` is filled even when handing
    /// back its records fails ([`Inspector::fast_flush`]'s error).
    pub fn fast_refresh(&mut self, iter: i64, st: &mut crate::abi::InspectFast) -> Result<()> {
        let flushed = self.fast_flush(st);
        let (lo, hi) = (self.lo, self.hi);
        let line_shift = self.line_shift();
        let mut out = crate::abi::InspectFast {
            shift: line_shift,
            ..Default::default()
        };
        if let (true, Layout::Slabs(r)) = (self.inline, &mut self.layout) {
            if let Some((table, lsb, mask)) = r.inline_lookup() {
                out.table = table.as_ptr();
                out.lsb = lsb;
                out.mask = mask;
                out.enabled = 1;
                if iter >= lo && iter < hi {
                    let s = r.inline_slab(iter);
                    (out.lo, out.hi, out.row) = (s.lo.max(lo), s.hi.min(hi), s.row);
                    out.slab_end = s.hi;
                    out.unit = s.unit;
                    match r.inline_records(out.lo, out.hi) {
                        InlineRecs::Keep { cur, end } => {
                            (out.recs, out.recs_end, out.rec_step) = (cur, end, REC_BYTES as u32);
                            if let Some((bits, gmin, span)) = r.inline_read_filter() {
                                (out.wbits, out.wgmin, out.wspan) = (bits, gmin, span);
                            }
                        }
                        InlineRecs::Drop => {
                            let p = self.sink.as_mut_ptr() as *mut u8;
                            // SAFETY: one past the end of the sink.
                            (out.recs, out.recs_end) = (p, unsafe { p.add(REC_BYTES) });
                        }
                        InlineRecs::Report => {}
                    }
                }
            }
        }
        *st = out;
        flushed
    }

    /// See [`crate::abi::weft_inspect_fast_flush`]: adds the counts `st`
    /// holds to the recorder's and zeroes them, and keeps the records of
    /// checked reads written up to `st.recs` (which it clears). An error when
    /// `st.recs` is not where such records can end (kept for the region's
    /// report too).
    pub fn fast_flush(&mut self, st: &mut crate::abi::InspectFast) -> Result<()> {
        let (reported, touches) = (st.reported, st.touches);
        (st.reported, st.touches) = (0, 0);
        let (cur, end, step) = (st.recs, st.recs_end, st.rec_step);
        (st.recs, st.recs_end, st.rec_step) = (std::ptr::null_mut(), std::ptr::null_mut(), 0);
        let Layout::Slabs(r) = &mut self.layout else {
            return Ok(());
        };
        r.add_inline_counts(reported, touches);
        if cur.is_null() || step == 0 {
            return Ok(());
        }
        // SAFETY: per the ABI (`InspectFast`), the inspector wrote every
        // record from the first free one up to `cur` and from `end` on.
        unsafe { r.commit_inline(cur, end) }.inspect_err(|e| {
            self.error.get_or_insert(e.to_string());
        })
    }

    /// Records one report of `weft_inspect_access` (`is_write` 0: checked
    /// read, [`crate::abi::ACCESS_UNCHECKED`]: unchecked, else checked write).
    pub fn report(&mut self, iter: i64, addr: u64, size: u32, is_write: u32) -> Result<()> {
        match is_write {
            crate::abi::ACCESS_UNCHECKED => self.access_unchecked(iter, addr, size),
            w => self.access_checked(iter, addr, size, w != 0),
        }
    }

    /// Records an access that cannot take part in a conflict (bank maps
    /// only; a read for affine nests). Same range rule as [`Inspector::access`].
    #[inline]
    pub fn access_unchecked(&mut self, iter: i64, addr: u64, size: u32) -> Result<()> {
        match &mut self.layout {
            Layout::Slabs(r) if iter >= self.lo && iter < self.hi => {
                r.record_unchecked(iter, addr, size);
                Ok(())
            }
            _ => self.access(iter, addr, size, false),
        }
    }

    /// See [`crate::abi::weft_inspect_range`]: `bytes` bytes from `addr` that
    /// cannot conflict, in one report. Same range rule as [`Inspector::access`];
    /// affine nests take it as one read (at most 4 GB).
    pub fn access_range(&mut self, iter: i64, addr: u64, bytes: u64) -> Result<()> {
        if iter < self.lo || iter >= self.hi {
            return Err(self.out_of_range(iter));
        }
        match &mut self.layout {
            Layout::Slabs(r) => {
                r.record_range(iter, addr, bytes);
                Ok(())
            }
            Layout::Blocks { .. } if bytes == 0 => Ok(()),
            Layout::Blocks { .. } => {
                let size = u32::try_from(bytes).map_err(|_| {
                    invalid(format!(
                        "an affine inspector reported {bytes} bytes at once"
                    ))
                })?;
                self.access(iter, addr, size, false)
            }
        }
    }

    /// A handle for inspecting `[lo, hi)` into `layout`, nothing reported yet.
    fn new(lo: i64, hi: i64, inline: bool, layout: Layout) -> Inspector {
        Inspector {
            lo,
            hi,
            inline,
            layout,
            accesses: Vec::new(),
            error: None,
            maps_only: false,
            sink: Box::new([0; REC_BYTES / 8]),
            writes_only: false,
        }
    }

    /// See [`crate::abi::weft_inspect_writes_first`]: whether the inspector
    /// is to run its writes-only slice (then its recorder notes that it
    /// holds the writes only).
    pub fn writes_first(&mut self) -> bool {
        if let (true, Layout::Slabs(r)) = (self.writes_only, &mut self.layout) {
            r.mark_writes_only();
        }
        self.writes_only
    }

    /// See [`crate::abi::weft_inspect_gather`]: iteration `iter` reads
    /// `g.size` bytes at `g.base + idx[j] * g.scale` for every `j < g.n`, one
    /// report each, recorded as the compiled wrappers would record them one
    /// by one (checked reads: bank bits, counts and a record unless the read
    /// filter drops it; unchecked reads: bank bits and counts). `st` holds
    /// the inline state the caller handed back (counts and record cursor
    /// current, accumulated bits written back) and is current again on
    /// return. Elements the inline path cannot take (no inline path, `iter`
    /// outside its slab, no free record, an access over more than two
    /// lines) go the way of [`crate::abi::weft_inspect_checked`].
    pub fn gather(
        &mut self,
        iter: i64,
        st: &mut crate::abi::InspectFast,
        g: &Gather,
    ) -> Result<()> {
        let kind = g.kind;
        if kind != 0 && kind != crate::abi::ACCESS_UNCHECKED {
            let m = format!(
                "weft_inspect_gather: is_write = {kind} (only 0, a checked read, or 2, unchecked)"
            );
            self.error.get_or_insert(m.clone());
            return Err(invalid(m));
        }
        if kind == 0 && self.maps_only {
            let m = "weft_inspect_gather: checked reads from an inspector that declared \
                     only unchecked reports (weft_inspect_maps_only)"
                .to_string();
            self.error.get_or_insert(m.clone());
            return Err(invalid(m));
        }
        if g.idx_bytes != 4 && g.idx_bytes != 8 {
            let m = format!(
                "weft_inspect_gather: index width {} (4 or 8 bytes)",
                g.idx_bytes
            );
            self.error.get_or_insert(m.clone());
            return Err(invalid(m));
        }
        let size = g.size.max(1);
        let mut j = 0u64;
        // The inline path: the elements of one slab, straight into its row;
        // an element it cannot take goes through the runtime alone.
        // Reads aligned to their power-of-two size of at most 16 bytes lie in
        // one line and one word of the read filter (`wgmin` is a multiple
        // of 64 granules): the short loop.
        let low = size as u64 - 1;
        let aligned = size.is_power_of_two()
            && size <= 16
            && (g.base | g.scale as u64) & low == 0
            && 1u64 << st.shift.min(63) >= size as u64;
        while j < g.n && self.gather_inline_ok(iter, st, kind) {
            j = match (aligned, g.idx_bytes, kind) {
                (true, 4, 0) => gather_aligned::<i32, true>(st, g, j, size),
                (true, 4, _) => gather_aligned::<i32, false>(st, g, j, size),
                (true, _, 0) => gather_aligned::<i64, true>(st, g, j, size),
                (true, _, _) => gather_aligned::<i64, false>(st, g, j, size),
                (false, 4, 0) => gather_inline::<i32, true>(st, g, j, size),
                (false, 4, _) => gather_inline::<i32, false>(st, g, j, size),
                (false, _, 0) => gather_inline::<i64, true>(st, g, j, size),
                (false, _, _) => gather_inline::<i64, false>(st, g, j, size),
            };
            if j < g.n {
                self.gather_one_slow(iter, st, g.address(j), size, kind)?;
                j += 1;
            }
        }
        if j < g.n {
            // One report each, the generic way.
            let flushed = self.fast_flush(st);
            let mut r = flushed;
            while r.is_ok() && j < g.n {
                r = self.report(iter, g.address(j), size, kind);
                j += 1;
            }
            let refilled = self.fast_refresh(iter, st);
            r.and(refilled)?;
        }
        Ok(())
    }

    /// Whether the inline path records the gathered accesses of `iter` of
    /// kind `kind` (see [`Inspector::gather`]).
    fn gather_inline_ok(&self, iter: i64, st: &crate::abi::InspectFast, kind: u32) -> bool {
        st.enabled != 0 && iter >= st.lo && iter < st.hi && (kind != 0 || !st.recs.is_null())
    }

    /// One gathered access through the runtime, as
    /// [`crate::abi::weft_inspect_checked`] takes it: hands back `st`,
    /// reports, refills `st` (also after an error).
    #[cold]
    fn gather_one_slow(
        &mut self,
        iter: i64,
        st: &mut crate::abi::InspectFast,
        addr: u64,
        size: u32,
        kind: u32,
    ) -> Result<()> {
        let flushed = self.fast_flush(st);
        let r = flushed.and_then(|()| self.report(iter, addr, size, kind));
        let refilled = self.fast_refresh(iter, st);
        r.and(refilled)
    }

    /// See [`crate::abi::weft_inspect_maps_only`].
    pub fn declare_maps_only(&mut self) {
        self.maps_only = true;
    }

    /// Records a read or write the dependence check must see (`weft_inspect_access`
    /// with `is_write` 0 or 1); an error after [`Inspector::declare_maps_only`].
    pub fn access_checked(&mut self, iter: i64, addr: u64, size: u32, write: bool) -> Result<()> {
        if self.maps_only {
            let m = "inspector declared only unchecked reports (weft_inspect_maps_only) \
                     but reported a checked access"
                .to_string();
            self.error.get_or_insert(m.clone());
            return Err(invalid(m));
        }
        self.access(iter, addr, size, write)
    }

    /// The error of an access of iteration `iter` outside the inspected range
    /// (kept for the region's report too).
    #[cold]
    #[inline(never)]
    fn out_of_range(&mut self, iter: i64) -> RuntimeError {
        let m = format!(
            "inspector reported iteration {iter} outside [{}, {})",
            self.lo, self.hi
        );
        self.error.get_or_insert(m.clone());
        invalid(m)
    }

    /// Records one access of iteration `iter` (must lie in the inspected range).
    #[inline]
    pub fn access(&mut self, iter: i64, addr: u64, size: u32, write: bool) -> Result<()> {
        if iter < self.lo || iter >= self.hi {
            return Err(self.out_of_range(iter));
        }
        match &mut self.layout {
            Layout::Slabs(r) => r.record(iter, addr, size, write),
            Layout::Blocks { ib } => self.accesses.push(Access {
                unit: ((iter - self.lo) / *ib) as u32,
                addr,
                size: size.max(1),
                write,
            }),
        }
        Ok(())
    }
}

/// FNV-1a over the words of `maps`, in order ([`RegionStats::bank_maps_hash`]).
fn bank_maps_hash(maps: &[crate::bankset::BankSet]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for w in maps.iter().flat_map(|m| m.words()) {
        for byte in w.to_le_bytes() {
            h = (h ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Statistics of one region (or loop nest), written to `WEFT_STATS`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RegionStats {
    /// `irregular` (Algorithm 4) or `affine` (Algorithm 5).
    pub kind: String,
    /// Region or nest id given by the compiler.
    pub id: u32,
    /// Times the inspector ran (first call and after invalidation or bound changes).
    pub inspections: u64,
    /// Total inspector time (inspection, bank maps, dependence check, scheduling), ns.
    pub inspector_ns: u64,
    /// Executions of the region.
    pub executions: u64,
    /// Executions that ran on the calling thread only (one worker, trace
    /// mode, a nested region, or grain control: too little work to share).
    pub serial_executions: u64,
    /// Total executor time, ns.
    pub executor_ns: u64,
    /// Units (slabs or iteration blocks) of the current schedule.
    pub units: u64,
    /// Iterations per unit of the current schedule.
    pub unit_iters: i64,
    /// Edges of the dependence DAG (0 when the units do not conflict).
    pub dag_edges: u64,
    /// Cross-core waits left after pruning.
    pub sync_waits: u64,
    /// Iterations executed under the optimized schedule.
    pub scheduled_iterations: u64,
    /// All iterations executed by this region's executor.
    pub total_iterations: u64,
    /// Coverage ratio (§4.5.1): `scheduled_iterations / total_iterations`.
    pub coverage_ratio: f64,
    /// Algorithm 4: mean memory banks covered per slot by the schedule.
    pub banks_per_slot: Option<f64>,
    /// Algorithm 4: the same for the original order.
    pub original_banks_per_slot: Option<f64>,
    /// Algorithm 4: mean memory banks in a slab's bank map (what
    /// [`RuntimeConfig::miss_filter`] shrinks).
    pub banks_per_slab: Option<f64>,
    /// Algorithm 4: a hash (FNV-1a, 64 bits) of every slab's bank map of the
    /// last inspection, in slab order: two ways of inspecting that must give
    /// the same bank maps give the same hash (the differential tests compare
    /// it).
    pub bank_maps_hash: Option<u64>,
    /// Algorithm 5: scheme name.
    pub scheme: Option<String>,
    /// Algorithm 5: IW size (eq. 5.1).
    pub iw_size: Option<usize>,
    /// Algorithm 5: mean data-set size D (cache lines per IB).
    pub ds_lines: Option<f64>,
    /// Algorithm 5: β of each window (first 4096), in (step, core) order.
    pub beta: Vec<f64>,
    /// Algorithm 5: mean β over all windows.
    pub beta_mean: Option<f64>,
    /// Descriptor path: cache-line runs visited to build the bank vectors
    /// (summed over inspections; the cost is proportional to it).
    pub line_steps: u64,
    /// Irregular regions: where the last inspection's time went.
    pub inspector_breakdown: Option<InspectorBreakdown>,
    /// Irregular regions: the region stopped inspecting because its
    /// schedules were not reused (*Schedule reuse* in the [`Runtime`] docs);
    /// later executions ran in original order.
    pub inspection_abandoned: bool,
}

/// Time split of one irregular inspection (all in ns).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct InspectorBreakdown {
    /// Accesses the inspector reported.
    pub accesses: u64,
    /// Lines those accesses touched: cache lines under a miss predictor,
    /// else the bank blocks the maps are kept at
    /// ([`crate::inspect::SlabRecorder::line_shift`]).
    pub line_touches: u64,
    /// Line touches the miss predictor counted as hits, which set no bank
    /// bit (0 with [`MissFilter::Off`]).
    pub predicted_hits: u64,
    /// Running the inspector: reports, slab lookup, bank mapping into bank-maps.
    pub record_ns: u64,
    /// Merging the cores' records (dropping reads of unwritten granules
    /// first), building the bank sets and the §4.4.6 dependence check.
    pub dependence_ns: u64,
    /// Algorithm 4, synchronisation pruning and plan building.
    pub schedule_ns: u64,
}

/// With nothing to go by, the first probe of a slab in
/// [`Runtime::inspect_chunk`] covers this fraction of it (at least one
/// iteration).
const PROBE_PARTS: i64 = 256;
/// Slabs shorter than this are inspected whole (probing them would cost more
/// calls than it could skip).
const PROBE_MIN_SLAB: i64 = 32;
/// After two slabs in a row that never filled, one slab in this many is probed.
const PROBE_RETRY: u32 = 8;

/// Where [`Runtime::inspect_chunk`] probes the slabs of one chunk.
#[derive(Default)]
struct Probe {
    /// Iterations the last slab that filled needed (as far as its probes
    /// tell: the end of the probe that found it full).
    need: Option<i64>,
    /// Slabs in a row that did not fill.
    unfilled: u32,
}

impl Probe {
    /// End of the first probe of slab `u` = `[lo, hi)`, and the length of
    /// the next one.
    fn first(&self, u: u32, lo: i64, hi: i64) -> (i64, i64) {
        let len = hi - lo;
        if self.unfilled >= 2 && u % PROBE_RETRY != 0 {
            return (hi, len);
        }
        match self.need {
            Some(n) => ((lo + n - n / 8).clamp(lo + 1, hi), (n / 8).max(1)),
            None => {
                let s = (len / PROBE_PARTS).max(1);
                (lo + s, s)
            }
        }
    }

    /// The slab filled within its first `n` iterations.
    fn filled(&mut self, n: i64) {
        self.need = Some(n);
        self.unfilled = 0;
    }

    /// The slab was inspected to its end without filling.
    fn unfilled(&mut self) {
        self.unfilled += 1;
    }
}

/// Runtime ids per static region for context-keyed schedule reuse
/// ([`Runtime::select_context`]): ids `base * CONTEXT_SLOTS ..`.
pub const CONTEXT_SLOTS: u32 = 64;

/// The saved contexts of one static region (LRU over [`CONTEXT_SLOTS`] slots).
#[derive(Default)]
struct Contexts {
    /// Per slot: key hash, key, last use.
    slots: Vec<Option<(u64, Vec<u64>, u64)>>,
    /// Bit `i` set: `slots[i]` is in use (regions reset in a loop touch only these).
    live: u64,
    clock: u64,
    /// Key buffers of reset slots, reused (regions reset in a loop).
    spare: Vec<Vec<u64>>,
    /// Consecutive selections that made a new context (0 after a match).
    fresh_run: u32,
    /// The id of the context made last.
    last_new: Option<u32>,
}

/// Context churn ([`Runtime::select_context`]): after this many selections
/// in a row that each made a new context (a kernel called with different
/// live-ins every time, like a factorisation's column index), a new context
/// inherits the schedule-reuse state of the previous one, so the
/// reuse control ([`RuntimeConfig::reinspect_limit`]) sees the region's
/// history rather than a fresh id's. Above the few contexts a region cycles
/// through (Gauss-Seidel's colours), below [`CONTEXT_SLOTS`].
pub const CHURN_CONTEXTS: u32 = 16;

/// Indices of the set bits of `m`, lowest first.
fn set_bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            i
        })
    })
}

// `Contexts::live` has one bit per slot.
const _: () = assert!(CONTEXT_SLOTS <= 64);

struct Cached {
    key: (i64, i64, i64, u32, usize),
    plan: Arc<Plan>,
    scheduled: bool,
}

/// The runtime: configuration, machine, schedule cache, trace and statistics.
pub struct Runtime {
    cfg: RuntimeConfig,
    machine: OnceLock<std::result::Result<Arc<Machine>, String>>,
    /// The machine's bank lookup table, built at the first inspection (up
    /// to 2^16 mapper calls: more than a small region's whole inspection).
    bank_table: OnceLock<BankTable>,
    regions: Mutex<FastMap<(u8, u32), Cached>>,
    contexts: Mutex<FastMap<u32, Contexts>>,
    stats: Mutex<BTreeMap<(u8, u32), RegionStats>>,
    pfor: Mutex<(u64, u64, u64)>,
    grains: Mutex<FastMap<(u8, u64), Grain>>,
    /// Schedule reuse per region `(kind, id)` (survives invalidation).
    reuse: Mutex<FastMap<(u8, u32), Reuse>>,
    tracer: Option<Mutex<Tracer>>,
    cur_core: AtomicU32,
    /// Trace mode: parallel phases (regions, inspections) under way; only the
    /// outermost one writes barriers.
    trace_depth: AtomicU32,
    /// Descriptor-driven affine plans: per nest, (key, plan), most recent last.
    affine_desc: Mutex<DescCache>,
    /// Context slots in use over all regions (changed under the `contexts`
    /// lock; read without it so that resets with nothing to drop are free).
    live_slots: AtomicUsize,
    /// Time [`Runtime::set_up`] took (`setup_ns` in the statistics), once it has run.
    setup_ns: OnceLock<u64>,
    /// Record buffers of irregular inspections, reused by the next ones.
    rec_pool: Arc<RecordPool>,
}

/// Per nest: (key, plan or `None` = the IBs conflict), most recent last.
/// `Err(())`: the descriptor exceeded its run budget (sequential fallback).
type DescCache = FastMap<u32, Vec<(Vec<i64>, DescEntry)>>;

/// Hash maps of the per-call paths (small integer keys; SipHash showed up in
/// the profile of programs that run millions of tiny regions).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::FixedState>;
type DescEntry = std::result::Result<Option<Arc<Plan>>, ()>;

/// Schedules kept per affine nest on the descriptor path (one per distinct
/// bounds / base addresses / live-ins, least recently used dropped).
pub const DESC_CACHE_SLOTS: usize = 8;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

const IRREGULAR: u8 = 0;
const AFFINE: u8 = 1;

/// The statistics name of region kind `kind` (`"irregular"`, `"affine"`).
fn kind_name(kind: u8) -> &'static str {
    match kind {
        IRREGULAR => "irregular",
        _ => "affine",
    }
}
/// Grain-control sites of `weft_parallel_for` loops (keyed by body address).
const PFOR: u8 = 2;

/// Grain hints never assume less work per iteration than this (a timer
/// reading of a tiny loop can be near zero), so a hint stays finite and a
/// larger call reaches the runtime again.
pub const GRAIN_HINT_MIN_NS_PER_ITER: f64 = 0.1;

/// Largest grain hint (iterations).
pub const GRAIN_HINT_MAX: i64 = 1 << 24;

thread_local! {
    /// Work per iteration (ns) of the last region call grain control timed
    /// on this thread, NaN when none (read by [`Runtime::take_grain_hint`]).
    static LAST_GRAIN: std::cell::Cell<f64> = const { std::cell::Cell::new(f64::NAN) };
}

/// What grain control knows of one site: the work per iteration of its last
/// run, in ns (a sequential run's time, or a parallel run's summed worker
/// busy time, which leaves out the pool's wake-up latency), over iterations.
#[derive(Clone, Copy, Debug, Default)]
struct Grain {
    work_ns_per_iter: Option<f64>,
}

impl Grain {
    /// Whether `iters` iterations should run on the calling thread: their
    /// estimated sequential work is under `min_ns`, not worth a parallel
    /// dispatch. Unknown sites run in parallel.
    fn serial(&self, iters: f64, min_ns: f64) -> bool {
        self.work_ns_per_iter.is_some_and(|w| w * iters < min_ns)
    }
}

/// How an irregular region's schedules have been used (schedule-reuse
/// control, [`RuntimeConfig::reinspect_limit`]).
#[derive(Clone, Copy, Debug, Default)]
struct Reuse {
    /// A schedule has been built for this id.
    built: bool,
    /// Executions of the latest schedule.
    runs_of_latest: u64,
    /// Consecutive schedules (before the latest) that served one execution.
    unreused: u32,
    /// Some inspection reported a checked write: the region needs the
    /// dependence check, so it must keep inspecting.
    checked_writes: bool,
    /// The latest schedule's cost counts against it (always for irregular
    /// regions; for affine nests, when building it took more than
    /// [`AFFINE_PLAN_COST_SHARE`] of its execution).
    costly: bool,
    /// The region stopped inspecting.
    abandoned: bool,
    /// Copied from the previous context of a churning region
    /// ([`CHURN_CONTEXTS`]) rather than earned by this id.
    inherited: bool,
}

/// Schedule-reuse control of described affine nests (native runs only):
/// a plan that served one execution counts as unreused when building it took
/// more than this share of that execution's time.
pub const AFFINE_PLAN_COST_SHARE: f64 = 0.05;

/// Largest iteration count a permuted affine plan may have (one unit per iteration).
pub const PERMUTE_MAX_UNITS: usize = 1 << 22;

impl Runtime {
    /// Creates a runtime; opens the trace file when `cfg.trace` is set.
    pub fn new(cfg: RuntimeConfig) -> Result<Runtime> {
        if cfg.cores == 0 {
            return Err(invalid("cores must be at least 1"));
        }
        let tracer = match &cfg.trace {
            Some(p) => Some(Mutex::new(Tracer::create(p, cfg.cores as u32)?)),
            None => None,
        };
        Ok(Runtime {
            cfg,
            machine: OnceLock::new(),
            bank_table: OnceLock::new(),
            regions: Mutex::new(FastMap::default()),
            contexts: Mutex::new(FastMap::default()),
            stats: Mutex::new(BTreeMap::new()),
            pfor: Mutex::new((0, 0, 0)),
            grains: Mutex::new(FastMap::default()),
            reuse: Mutex::new(FastMap::default()),
            tracer,
            cur_core: AtomicU32::new(0),
            trace_depth: AtomicU32::new(0),
            affine_desc: Mutex::new(FastMap::default()),
            live_slots: AtomicUsize::new(0),
            setup_ns: OnceLock::new(),
            rec_pool: Arc::new(RecordPool::default()),
        })
    }

    /// Creates a runtime with an already loaded machine.
    pub fn with_machine(cfg: RuntimeConfig, machine: Machine) -> Result<Runtime> {
        let rt = Self::new(cfg)?;
        let _ = rt.machine.set(Ok(Arc::new(machine)));
        Ok(rt)
    }

    /// The configuration.
    pub fn config(&self) -> &RuntimeConfig {
        &self.cfg
    }

    /// The machine (loaded on first use).
    pub fn machine(&self) -> Result<Arc<Machine>> {
        self.machine
            .get_or_init(|| {
                Machine::load(&self.cfg.machine)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
            .map_err(RuntimeError::Machine)
    }

    /// The runtime's one-time set-up, done before the first plan is built
    /// and timed apart from it: loading the machine description and, natively
    /// with more than one worker, starting the worker threads. Its time is
    /// `setup_ns` in the statistics, so a region's `inspector_ns` counts only
    /// its own inspections (before, the first region to be inspected also
    /// paid for these, about 0.4 ms on equake).
    fn set_up(&self) -> Result<()> {
        self.setup_ns.get_or_init(|| {
            let t = Instant::now();
            // A machine that fails to load fails below (and on every later call).
            if self.machine().is_ok() && !self.tracing() {
                crate::executor::start_workers(self.cfg.cores);
            }
            t.elapsed().as_nanos() as u64
        });
        self.machine().map(|_| ())
    }

    /// Whether trace mode is on.
    pub fn tracing(&self) -> bool {
        self.tracer.is_some()
    }

    /// Grain control (module docs): whether a native run of `iters`
    /// iterations at `site` should stay on the calling thread without
    /// inspection or scheduling. Never in trace mode, with the threshold off
    /// or when nested.
    fn grain_serial(&self, site: (u8, u64), iters: i64) -> bool {
        let min_ns = self.cfg.min_parallel_ns as f64;
        self.grain_applies()
            && lock(&self.grains)
                .get(&site)
                .is_some_and(|g| g.serial(iters.max(1) as f64, min_ns))
    }

    /// Whether grain control decides anything for a call on this thread:
    /// native mode, the threshold on, not nested. With one worker it only
    /// decides whether a small call skips inspection and scheduling.
    fn grain_applies(&self) -> bool {
        self.tracer.is_none() && self.cfg.min_parallel_ns > 0 && !crate::executor::nested()
    }

    /// Stores grain site `site`'s new estimate, `ns` over `iters` iterations,
    /// and leaves it for the caller's [`Runtime::take_grain_hint`].
    fn note_grain(&self, site: (u8, u64), ns: u64, iters: i64) {
        let w = ns as f64 / iters.max(1) as f64;
        lock(&self.grains).entry(site).or_default().work_ns_per_iter = Some(w);
        if self.grain_applies() {
            LAST_GRAIN.with(|g| g.set(w));
        }
    }

    /// The grain hint of the region call that just returned on this thread
    /// (module docs, "Grain hints"): the trip count below which grain control
    /// would run that call's site on the calling thread, so the caller may do
    /// so without calling the runtime; 0 when grain control did not apply
    /// (trace mode, nested, threshold off) or no run was timed
    /// since the last hint. Consumes the estimate.
    pub fn take_grain_hint(&self) -> i64 {
        let w = LAST_GRAIN.with(|g| g.replace(f64::NAN));
        if w.is_nan() || !self.grain_applies() {
            return 0;
        }
        let min_ns = self.cfg.min_parallel_ns as f64;
        (min_ns / w.max(GRAIN_HINT_MIN_NS_PER_ITER))
            .ceil()
            .min(GRAIN_HINT_MAX as f64) as i64
    }

    /// Runs `plan`: in trace mode sequentially with virtual cores; natively
    /// on the workers, or on the calling thread when grain control (at
    /// `site`) says the work is too small to share. Returns whether it ran
    /// on the calling thread only (never in trace mode, whose sequential run
    /// stands for all virtual cores).
    fn run_plan(&self, plan: &Plan, body: BodyRef<'_>, site: Option<(u8, u64)>) -> Result<bool> {
        if self.tracer.is_some() {
            return self
                .traced_phase(false, || {
                    let r = execute_sequential(plan, body, &mut |c| {
                        self.cur_core.store(c, Ordering::Relaxed)
                    });
                    self.cur_core.store(0, Ordering::Relaxed);
                    r
                })
                .map(|_| false);
        }
        let Some(site) = site.filter(|_| self.cfg.min_parallel_ns > 0) else {
            return execute_native(plan, body)
                .map(|_| !crate::executor::runs_parallel(plan.cores()));
        };
        if crate::executor::nested() {
            return execute_native(plan, body).map(|_| true);
        }
        let iters = plan.iterations().max(1);
        let serial = self.grain_serial(site, iters);
        let serial = serial || plan.cores() <= 1;
        let work = match serial {
            true => {
                let t = Instant::now();
                execute_sequential(plan, body, &mut |_| {})?;
                t.elapsed().as_nanos() as u64
            }
            false => execute_native_timed(plan, body)?,
        };
        self.note_grain(site, work, iters);
        Ok(serial)
    }

    /// Default schedule: static contiguous chunks over P workers.
    pub fn parallel_for(&self, lo: i64, hi: i64, body: BodyRef<'_>) -> Result<()> {
        self.parallel_for_at(None, lo, hi, body)
    }

    /// [`Runtime::parallel_for`] with grain control keyed by `site` (the C
    /// ABI passes the body's address): loops too small to share run on the
    /// calling thread.
    pub fn parallel_for_at(
        &self,
        site: Option<u64>,
        lo: i64,
        hi: i64,
        body: BodyRef<'_>,
    ) -> Result<()> {
        if lo > hi {
            return Err(invalid(format!("lo {lo} > hi {hi}")));
        }
        let t = Instant::now();
        match site.map(|s| (PFOR, s)) {
            Some(site) if self.grain_serial(site, hi - lo) => {
                // Too little work to share: on the calling thread.
                self.run_small(site, lo, hi, body)
                    .map_err(|_| RuntimeError::Panicked("parallel loop body panicked".into()))?;
            }
            site => {
                let plan = Plan::static_chunks(lo, hi, self.cfg.cores);
                self.run_plan(&plan, body, site)?;
            }
        }
        let mut g = lock(&self.pfor);
        g.0 += 1;
        g.1 += (hi - lo) as u64;
        g.2 += t.elapsed().as_nanos() as u64;
        Ok(())
    }

    /// Drops the cached schedules of region/nest `id` (index arrays changed).
    pub fn invalidate(&self, id: u32) {
        let mut r = lock(&self.regions);
        r.remove(&(IRREGULAR, id));
        r.remove(&(AFFINE, id));
        lock(&self.affine_desc).remove(&id);
    }

    /// Context-keyed schedule reuse: the runtime id of static region `base`
    /// for context `key` (its live-in values; `None` = not comparable). A key
    /// seen before gets its slot's id back; otherwise the least recently used
    /// slot (a free one first) is invalidated and takes the key. Bounded: at
    /// most [`CONTEXT_SLOTS`] keys per base. Ids are `base * CONTEXT_SLOTS + slot`.
    pub fn select_context(&self, base: u32, key: Option<&[u64]>) -> Result<u32> {
        let first = base.checked_mul(CONTEXT_SLOTS).ok_or_else(|| {
            invalid(format!(
                "region base {base} too large for {CONTEXT_SLOTS} slots"
            ))
        })?;
        let hash = key.map(|k| {
            k.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &w| {
                (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29)
            })
        });
        let mut all = lock(&self.contexts);
        let set = all.entry(base).or_default();
        if set.slots.is_empty() {
            set.slots = vec![None; CONTEXT_SLOTS as usize];
        }
        set.clock += 1;
        let now = set.clock;
        if let (Some(k), Some(h)) = (key, hash) {
            for i in set_bits(set.live) {
                if let Some((sh, sk, used)) = &mut set.slots[i] {
                    if *sh == h && sk.as_slice() == k {
                        *used = now;
                        set.fresh_run = 0;
                        drop(all);
                        let id = first + i as u32;
                        // A context that comes back is reused after all: it
                        // starts afresh if it only inherited its state.
                        let mut reuse = lock(&self.reuse);
                        for kind in [IRREGULAR, AFFINE] {
                            if reuse.get(&(kind, id)).is_some_and(|r| r.inherited) {
                                reuse.remove(&(kind, id));
                            }
                        }
                        return Ok(id);
                    }
                }
            }
        }
        // A free slot, else the least recently used one.
        let victim = match (!set.live).trailing_zeros() as usize {
            i if i < set.slots.len() => i,
            _ => set
                .slots
                .iter()
                .enumerate()
                .min_by_key(|(_, s)| s.as_ref().map_or(0, |(_, _, used)| *used))
                .map(|(i, _)| i)
                .unwrap_or(0),
        };
        if set.live & (1 << victim) == 0 {
            self.live_slots.fetch_add(1, Ordering::Relaxed);
        }
        set.live |= 1 << victim;
        let mut buf = match set.slots[victim].take() {
            Some((_, b, _)) => b,
            None => set.spare.pop().unwrap_or_default(),
        };
        buf.clear();
        buf.extend_from_slice(key.unwrap_or_default());
        set.slots[victim] = Some((hash.unwrap_or(0), buf, now));
        if key.is_none() {
            // Never matched again: mark it least recent.
            if let Some((_, _, used)) = &mut set.slots[victim] {
                *used = 0;
            }
        }
        let id = first + victim as u32;
        set.fresh_run = set.fresh_run.saturating_add(1);
        let inherit = match set.last_new.replace(id) {
            Some(prev) if set.fresh_run > CHURN_CONTEXTS => Some(prev),
            _ => None,
        };
        drop(all);
        self.invalidate(id);
        if let Some(prev) = inherit {
            let mut reuse = lock(&self.reuse);
            for kind in [IRREGULAR, AFFINE] {
                match reuse.get(&(kind, prev)).copied() {
                    Some(r) => reuse.insert(
                        (kind, id),
                        Reuse {
                            inherited: true,
                            ..r
                        },
                    ),
                    None => reuse.remove(&(kind, id)),
                };
            }
        }
        Ok(id)
    }

    /// Forgets the saved contexts of static region `base` and drops the
    /// schedules of all its ids.
    pub fn reset_contexts(&self, base: u32) {
        // Called after every code that may reassign index arrays (often in
        // loops of the program): only the slots in use are dropped, not all
        // CONTEXT_SLOTS ids of the region.
        if self.live_slots.load(Ordering::Relaxed) == 0 {
            // Nothing selected since the last resets (the usual case when grain
            // hints keep small calls out of the runtime): no lock needed.
            return;
        }
        let mut all = lock(&self.contexts);
        let Some(set) = all.get_mut(&base).filter(|s| s.live != 0) else {
            return;
        };
        let Some(first) = base.checked_mul(CONTEXT_SLOTS) else {
            return;
        };
        let mut r = lock(&self.regions);
        let mut d = lock(&self.affine_desc);
        let live = std::mem::take(&mut set.live);
        self.live_slots
            .fetch_sub(live.count_ones() as usize, Ordering::Relaxed);
        for i in set_bits(live) {
            if let Some((_, mut key, _)) = set.slots[i].take() {
                // Keep the key's allocation for a later context.
                key.clear();
                set.spare.push(key);
                r.remove(&(IRREGULAR, first + i as u32));
                r.remove(&(AFFINE, first + i as u32));
                d.remove(&(first + i as u32));
            }
        }
    }

    fn chunks(&self, lo: i64, hi: i64) -> Vec<i64> {
        let p = self.cfg.cores;
        let n = (hi - lo) as i128;
        (0..=p)
            .map(|c| (lo as i128 + n * c as i128 / p as i128) as i64)
            .collect()
    }

    /// Irregular region (Algorithm 4): inspect, map banks, check dependences,
    /// schedule slabs (cached), then execute. `slab_iters == 0` picks 1/50 of a
    /// core's iterations. Without an inspector the Default schedule runs and the
    /// region's coverage ratio records it.
    pub fn run_irregular(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        slab_iters: i64,
        inspect: Option<InspectRef<'_>>,
        body: BodyRef<'_>,
    ) -> Result<()> {
        if lo > hi {
            return Err(invalid(format!("lo {lo} > hi {hi}")));
        }
        if slab_iters < 0 {
            return Err(invalid(format!("slab_iters {slab_iters} is negative")));
        }
        if self.grain_serial((IRREGULAR, id as u64), hi - lo) {
            // Too little work to share: original order on the calling thread,
            // so neither inspection nor schedule is needed.
            return self.execute_small(IRREGULAR, id, lo, hi, body);
        }
        let p = self.cfg.cores;
        if p == 1 && self.tracer.is_none() {
            // One native worker: without an inspector, or with one slab in
            // all, the plan is the whole range in order; run it without
            // building one (no allocation on this per-call path).
            let n = hi - lo;
            let one_slab = n <= slab_iters || slab_iters == 0 && n <= 1;
            if inspect.is_none() || one_slab {
                return self.execute_inline(IRREGULAR, id, lo, hi, inspect.is_some(), body);
            }
        }
        let chunk = self.chunks(lo, hi);
        let max_chunk = (0..p).map(|c| chunk[c + 1] - chunk[c]).max().unwrap_or(0);
        let si = if slab_iters == 0 {
            ((max_chunk + 49) / 50).max(1)
        } else {
            slab_iters
        };
        let key = (lo, hi, si, 0u32, p);
        // One slab in all (one worker and `slab_iters` covering its chunk):
        // nothing to schedule and no slab to conflict with, so no inspection.
        let slabs: i64 = (0..p)
            .map(|c| (chunk[c + 1] - chunk[c] + si - 1) / si)
            .sum();
        let (plan, scheduled) = match inspect {
            None => (Arc::new(Plan::static_chunks(lo, hi, p)), false),
            Some(_) if slabs <= 1 => (Arc::new(Plan::static_chunks(lo, hi, p)), true),
            Some(insp) => {
                let cached = lock(&self.regions)
                    .get(&(IRREGULAR, id))
                    .filter(|c| c.key == key)
                    .map(|c| (c.plan.clone(), c.scheduled));
                match cached {
                    Some(c) => {
                        self.plan_reused(IRREGULAR, id);
                        c
                    }
                    None if self.cfg.lazy != LazyInspect::Off
                        && self.tracer.is_none()
                        && lock(&self.stats)
                            .get(&(IRREGULAR, id))
                            .map_or(true, |e| e.executions == 0)
                        && (self.cfg.lazy == LazyInspect::All
                            || !self.declares_maps_only(lo, insp)) =>
                    {
                        // Lazy inspection: the first execution runs in
                        // original order on the calling thread.
                        return self.execute_small(IRREGULAR, id, lo, hi, body);
                    }
                    None if self.abandon_inspection(IRREGULAR, id) => {
                        (Arc::new(Plan::static_chunks(lo, hi, p)), false)
                    }
                    None => {
                        self.set_up()?;
                        let t = Instant::now();
                        let (plan, mut st, writes) = self.build_irregular(si, &chunk, insp)?;
                        let plan = Arc::new(plan);
                        st.inspector_ns = t.elapsed().as_nanos() as u64;
                        st.unit_iters = si;
                        self.plan_built(IRREGULAR, id, true, writes);
                        self.record_inspection(IRREGULAR, id, st);
                        lock(&self.regions).insert(
                            (IRREGULAR, id),
                            Cached {
                                key,
                                plan: plan.clone(),
                                scheduled: true,
                            },
                        );
                        (plan, true)
                    }
                }
            }
        };
        self.execute_region(IRREGULAR, id, &plan, scheduled, body)
            .map(|_| ())
    }

    /// Schedule-reuse bookkeeping: the cached schedule of `(kind, id)` served
    /// one more execution.
    fn plan_reused(&self, kind: u8, id: u32) {
        lock(&self.reuse)
            .entry((kind, id))
            .or_default()
            .runs_of_latest += 1;
    }

    /// Schedule-reuse bookkeeping: a new schedule of `(kind, id)` was built
    /// and ran once; `costly` says whether its cost counts against it,
    /// `checked_writes` whether its inspection reported checked writes.
    fn plan_built(&self, kind: u8, id: u32, costly: bool, checked_writes: bool) {
        let mut all = lock(&self.reuse);
        let r = all.entry((kind, id)).or_default();
        r.built = true;
        r.runs_of_latest = 1;
        r.costly = costly;
        r.checked_writes |= checked_writes;
    }

    /// Schedule-reuse control (module docs): called when region `(kind, id)`
    /// has no valid schedule. Counts the latest schedule as unreused if it
    /// served one execution (and, for affine nests, cost more than
    /// [`AFFINE_PLAN_COST_SHARE`] of it), and says whether the region has now
    /// given up scheduling (it then runs in original order or, for an affine
    /// nest, under the Default schedule).
    fn abandon_inspection(&self, kind: u8, id: u32) -> bool {
        let limit = self.cfg.reinspect_limit;
        let mut all = lock(&self.reuse);
        let r = all.entry((kind, id)).or_default();
        if r.abandoned {
            return true;
        }
        if !r.built || limit == 0 || r.checked_writes {
            return false;
        }
        r.unreused = if r.runs_of_latest <= 1 && r.costly {
            r.unreused + 1
        } else {
            0
        };
        r.runs_of_latest = 0;
        if r.unreused < limit {
            return false;
        }
        r.abandoned = true;
        drop(all);
        lock(&self.stats)
            .entry((kind, id))
            .or_default()
            .inspection_abandoned = true;
        true
    }

    /// Records one inspection of region `(kind, id)`: the schedule-describing fields
    /// of `st` replace the entry's, its `inspector_ns` is added, and the execution
    /// counters (which [`Runtime::execute_region`] accumulates) are kept.
    fn record_inspection(&self, kind: u8, id: u32, st: RegionStats) {
        let mut s = lock(&self.stats);
        let e = s.entry((kind, id)).or_default();
        *e = RegionStats {
            kind: kind_name(kind).into(),
            id,
            inspections: e.inspections + 1,
            inspector_ns: e.inspector_ns + st.inspector_ns,
            executions: e.executions,
            serial_executions: e.serial_executions,
            executor_ns: e.executor_ns,
            scheduled_iterations: e.scheduled_iterations,
            total_iterations: e.total_iterations,
            coverage_ratio: e.coverage_ratio,
            inspection_abandoned: e.inspection_abandoned,
            ..st
        };
    }

    fn execute_region(
        &self,
        kind: u8,
        id: u32,
        plan: &Plan,
        scheduled: bool,
        body: BodyRef<'_>,
    ) -> Result<u64> {
        let t = Instant::now();
        let serial = self.run_plan(plan, body, Some((kind, id as u64)))?;
        let ns = t.elapsed().as_nanos() as u64;
        self.account(kind, id, plan.iterations() as u64, ns, scheduled, serial);
        Ok(ns)
    }

    /// Grain control's fast path: `body(lo, hi)`, the whole range in original
    /// order on the calling thread (no plan, no inspection), timed for the
    /// site's estimate and accounted as a serial execution of region `(kind, id)`.
    fn execute_small(&self, kind: u8, id: u32, lo: i64, hi: i64, body: BodyRef<'_>) -> Result<()> {
        self.execute_inline(kind, id, lo, hi, false, body)
    }

    /// `body(lo, hi)` on the calling thread, timed into grain site `(kind,
    /// id)` and accounted as one serial execution whose iterations count as
    /// `scheduled` or not: grain control's fast path, and the one-worker run
    /// of a plan that is the whole range in order (the static schedule of
    /// one core, which [`Runtime::execute_region`] would account the same way).
    fn execute_inline(
        &self,
        kind: u8,
        id: u32,
        lo: i64,
        hi: i64,
        scheduled: bool,
        body: BodyRef<'_>,
    ) -> Result<()> {
        let ns = self
            .run_small((kind, id as u64), lo, hi, body)
            .map_err(|_| RuntimeError::Panicked(format!("region {id}: the loop body panicked")))?;
        self.account(kind, id, (hi - lo).max(0) as u64, ns, scheduled, true);
        Ok(())
    }

    /// `body(lo, hi)` on the calling thread, timed into grain site `site`'s
    /// estimate; the time in ns, or `Err` if the body panicked.
    fn run_small(
        &self,
        site: (u8, u64),
        lo: i64,
        hi: i64,
        body: BodyRef<'_>,
    ) -> std::result::Result<u64, ()> {
        let t = Instant::now();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(lo, hi))).map_err(|_| ())?;
        let ns = t.elapsed().as_nanos() as u64;
        self.note_grain(site, ns, hi - lo);
        Ok(ns)
    }

    /// Adds one execution to the statistics of region `(kind, id)`.
    fn account(&self, kind: u8, id: u32, iters: u64, ns: u64, scheduled: bool, serial: bool) {
        let mut s = lock(&self.stats);
        let e = s.entry((kind, id)).or_default();
        if e.kind.is_empty() {
            e.kind = kind_name(kind).into();
            e.id = id;
        }
        e.executions += 1;
        e.serial_executions += serial as u64;
        e.executor_ns += ns;
        e.total_iterations += iters;
        if scheduled {
            e.scheduled_iterations += iters;
        }
        e.coverage_ratio = if e.total_iterations > 0 {
            e.scheduled_iterations as f64 / e.total_iterations as f64
        } else {
            0.0
        };
    }

    /// Runs the inspector over `[lo, hi)` in the per-core `ranges` (core,
    /// start, end), in order (the recorders rely on non-decreasing
    /// iterations). Each core inspects the
    /// iterations it owns (§4.4.1: the inspector is part of the parallel region,
    /// and its cost is "hidden during parallel execution", §4.5.2), so in trace
    /// mode the inspection of chunk `c` is recorded on virtual core `c`, not all
    /// on core 0.
    fn inspect(
        &self,
        lo: i64,
        hi: i64,
        ranges: &[(usize, i64, i64)],
        layout: Layout,
        insp: InspectRef<'_>,
    ) -> Result<Inspected> {
        self.inspect_phase(lo, hi, ranges, layout, insp, false)
    }

    /// [`Runtime::inspect`], asking an inspector with a writes-only slice to
    /// run that slice (`writes_only`, [`crate::abi::weft_inspect_writes_first`]).
    fn inspect_phase(
        &self,
        lo: i64,
        hi: i64,
        ranges: &[(usize, i64, i64)],
        layout: Layout,
        insp: InspectRef<'_>,
        writes_only: bool,
    ) -> Result<Inspected> {
        let mut h = Inspector::new(lo, hi, self.cfg.inspect_inline, layout);
        h.writes_only = writes_only;
        let tracing = self.tracing();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for &(c, a, b) in ranges {
                if a >= b {
                    continue;
                }
                if tracing {
                    self.cur_core.store(c as u32, Ordering::Relaxed);
                }
                insp(a, b, &mut h);
                if h.error.is_some() {
                    break;
                }
            }
        }));
        if tracing {
            self.cur_core.store(0, Ordering::Relaxed);
        }
        run.map_err(|_| RuntimeError::Panicked("inspector panicked".into()))?;
        if let Some(e) = h.error {
            return Err(invalid(e));
        }
        Ok(Inspected {
            accesses: h.accesses,
            layout: h.layout,
            maps_only: h.maps_only,
        })
    }

    /// Runs the inspector over `[lo, hi)`, part of core `core`'s chunk, into
    /// the slab recorder `rec` (in trace mode recorded on virtual core `core`).
    /// Also returns whether the inspector declared every report unchecked.
    fn inspect_slabs(
        &self,
        core: usize,
        lo: i64,
        hi: i64,
        rec: SlabRecorder,
        insp: InspectRef<'_>,
    ) -> Result<(SlabRecorder, bool)> {
        self.inspect_slabs_phase(core, lo, hi, rec, insp, false)
    }

    /// [`Runtime::inspect_slabs`], with the writes-only slice when `writes_only`.
    fn inspect_slabs_phase(
        &self,
        core: usize,
        lo: i64,
        hi: i64,
        rec: SlabRecorder,
        insp: InspectRef<'_>,
        writes_only: bool,
    ) -> Result<(SlabRecorder, bool)> {
        match self.inspect_phase(
            lo,
            hi,
            &[(core, lo, hi)],
            Layout::Slabs(Box::new(rec)),
            insp,
            writes_only,
        )? {
            Inspected {
                layout: Layout::Slabs(r),
                maps_only,
                ..
            } => Ok((*r, maps_only)),
            _ => Err(RuntimeError::Panicked(
                "internal: the inspector lost its slab layout".into(),
            )),
        }
    }

    /// Whether `insp` declares only unchecked reports
    /// ([`crate::abi::weft_inspect_maps_only`]), found by running it over
    /// iteration `lo` alone into a throwaway layout (an inspector that fails
    /// counts as not declaring).
    fn declares_maps_only(&self, lo: i64, insp: InspectRef<'_>) -> bool {
        let one = [(0, lo, lo + 1)];
        self.inspect(lo, lo + 1, &one, Layout::Blocks { ib: 1 }, insp)
            .is_ok_and(|i| i.maps_only)
    }

    /// Inspects core `core`'s chunk `[a, b)` into `rec`, skipping what
    /// cannot change the bank maps.
    ///
    /// A slab's bank map only gains bits, so once every bank is set, more
    /// unchecked accesses of that slab change nothing. When the inspector
    /// declares that it reports only unchecked accesses
    /// ([`crate::abi::weft_inspect_maps_only`]; the compiler does so for loops
    /// it proves parallel), [`RuntimeConfig::inspect_saturate`] is on and no
    /// miss predictor is used (its state depends on every access), each slab
    /// is inspected in probes, and the rest of the slab is skipped as soon as
    /// its map is full. The first probe tells whether the inspector declared;
    /// if not, the rest of the chunk is inspected in one call.
    ///
    /// Probes: a slab's first probe ends where the chunk's last full slab
    /// became full, less an eighth ([`Probe`]); each further probe is twice
    /// as long as the one before, starting at an eighth of that point. With
    /// nothing to go by, the first probe is 1/[`PROBE_PARTS`] of the slab.
    /// After two slabs in a row that never filled, slabs are inspected whole
    /// (one call each), with a probed one every [`PROBE_RETRY`] slabs. Slabs
    /// under [`PROBE_MIN_SLAB`] iterations are inspected whole.
    ///
    /// The bank maps, hence the schedule, are exactly those of inspecting
    /// every iteration; the `accesses` and `line_touches` counts cover the
    /// iterations inspected.
    fn inspect_chunk(
        &self,
        core: usize,
        (a, b): (i64, i64),
        mut rec: SlabRecorder,
        layout: &SlabLayout,
        insp: InspectRef<'_>,
        offer: bool,
    ) -> Result<SlabRecorder> {
        let mut probing = self.cfg.inspect_saturate
            && !rec.has_miss_filter()
            && layout.slab_iters >= PROBE_MIN_SLAB;
        let mut probe = Probe::default();
        let mut x = a;
        while x < b {
            if !probing {
                return Ok(self.inspect_slabs_phase(core, x, b, rec, insp, offer)?.0);
            }
            let (u, lo, hi) = layout.slab_of(x);
            let (mut y, mut step) = probe.first(u, lo, hi);
            while x < hi {
                let (r, maps_only) = self.inspect_slabs_phase(core, x, y, rec, insp, offer)?;
                (rec, x) = (r, y);
                if !maps_only || rec.first_write_iter().is_some() {
                    probing = false;
                    break;
                }
                if rec.slab_full(u) {
                    probe.filled(y - lo);
                    x = hi;
                } else if x >= hi {
                    probe.unfilled();
                }
                y = (x + step).min(hi);
                step = step.saturating_mul(2);
            }
        }
        Ok(rec)
    }

    fn build_irregular(
        &self,
        si: i64,
        chunk: &[i64],
        insp: InspectRef<'_>,
    ) -> Result<(Plan, RegionStats, bool)> {
        let p = self.cfg.cores;
        let machine = self.machine()?;
        let mut offset = vec![0u32; p + 1];
        let mut units = Vec::new();
        for c in 0..p {
            let (a, b) = (chunk[c], chunk[c + 1]);
            let mut s = a;
            while s < b {
                units.push((s, (s + si).min(b)));
                s += si;
            }
            offset[c + 1] = units.len() as u32;
        }
        let n = units.len();
        let t0 = Instant::now();
        let table = self
            .bank_table
            .get_or_init(|| BankTable::new(&machine))
            .clone();
        let line = machine.line_bytes().max(1);
        let layout = SlabLayout {
            chunk: chunk.to_vec(),
            offset: offset.clone(),
            slab_iters: si,
        };
        let banks = machine.num_mem_banks();
        let filter_lines = self.cfg.miss_filter.lines(&machine, p);
        let make = |lazy: bool| {
            let (l, t) = (layout.clone(), table.clone());
            match lazy {
                true => SlabRecorder::lazy(l, banks, line.trailing_zeros(), t),
                false => SlabRecorder::new(l, banks, line.trailing_zeros(), t),
            }
            .with_miss_filter(filter_lines)
            .with_pool(&self.rec_pool)
        };
        // Runs `f` for every core's chunk: natively on the workers, in trace
        // mode one virtual core at a time (the tracer tags the current core).
        let per_core = |f: &(dyn Fn(usize) -> Result<SlabRecorder> + Sync)| {
            let parts: Vec<Result<SlabRecorder>> = if self.tracing() {
                self.traced_phase(true, || Ok((0..p).map(f).collect()))?
            } else {
                let slots: Vec<Mutex<Option<Result<SlabRecorder>>>> =
                    (0..p).map(|_| Mutex::new(None)).collect();
                on_workers(p, &|c| *lock(&slots[c]) = Some(f(c)));
                slots
                    .into_iter()
                    .map(|m| {
                        m.into_inner()
                            .unwrap_or_else(|e| e.into_inner())
                            .unwrap_or_else(|| Err(invalid("internal: a chunk was not inspected")))
                    })
                    .collect()
            };
            parts.into_iter().collect::<Result<Vec<_>>>()
        };
        // Chunk `c`: with the written granules known, into a recorder that
        // keeps every write and the reads of written granules; otherwise into
        // a lazy recorder, a chunk that reports a write being completed by
        // re-inspecting its iterations up to the first write. `offer`: ask
        // for the writes-only slice (`weft_inspect_writes_first`).
        let chunk_rec = |c: usize, filter: Option<&Arc<WrittenGranules>>, offer: bool| {
            let (a, b) = (chunk[c], chunk[c + 1]);
            if let Some(w) = filter {
                let r = make(false).with_read_filter(w.clone());
                return Ok(self.inspect_slabs(c, a, b, r, insp)?.0);
            }
            let mut r = self.inspect_chunk(c, (a, b), make(true), &layout, insp, offer)?;
            if let Some(s) = r.first_write_iter() {
                let head = self.inspect_slabs_phase(c, a, s + 1, make(false), insp, offer)?;
                r.prepend(head.0);
            }
            Ok(r)
        };
        // Writes first (`RuntimeConfig::writes_first`): the chunks are
        // inspected offering the writes-only slice. An inspector without one
        // ignores the offer, and that is the inspection. One with it reports
        // its checked writes only; the granules they touch then filter the
        // reads of the full inspection (reads of others cannot conflict).
        let offer = self.cfg.writes_first && !self.tracing();
        let mut parts = per_core(&|c| chunk_rec(c, None, offer))?;
        let mut prefilter = None;
        if parts.iter().any(|r| r.writes_only()) {
            prefilter = WrittenGranules::of(&parts).map(Arc::new);
            parts = per_core(&|c| chunk_rec(c, prefilter.as_ref(), false))?;
            if prefilter.as_ref().is_some_and(|w| !w.covers_writes(&parts)) {
                // The writes-only slice missed a write of the full inspector
                // (a compiler bug): its filter may have dropped a conflicting
                // read. Inspect again without it.
                prefilter = None;
                parts = per_core(&|c| chunk_rec(c, None, false))?;
            }
        }
        let t1 = Instant::now();
        // Reads of granules nobody writes cannot conflict: each core drops
        // those of its chunk before the serial check. When the writes were
        // known first, the recorders dropped them already, and the check
        // numbers the granules of the writes-first phase (a superset of
        // those written, checked above: the extra ones link nothing).
        let written = match (&prefilter, parts.iter().all(|r| r.reads_filtered())) {
            (Some(w), true) => Some(w.clone()),
            _ => {
                let written = WrittenGranules::of(&parts);
                if let Some(w) = &written {
                    let cells: Vec<Mutex<&mut SlabRecorder>> =
                        parts.iter_mut().map(Mutex::new).collect();
                    match self.tracing() {
                        true => cells.iter().for_each(|r| lock(r).retain_conflicting(w)),
                        false => {
                            on_workers(cells.len(), &|c| lock(&cells[c]).retain_conflicting(w))
                        }
                    }
                }
                written.map(Arc::new)
            }
        };
        // The chunks in core order, appended to the first one's recorder
        // (their records are not copied into a new one).
        let mut parts = parts.into_iter();
        let mut rec = parts.next().unwrap_or_else(|| make(false));
        for part in parts {
            rec.append(part);
        }
        let maps = rec.bank_maps();
        let dag = rec.dependences_with(written.as_deref())?;
        let t2 = Instant::now();
        let accesses = rec.accesses() as u64;
        let (predicted_hits, line_touches) = rec.filter_counts();
        let writes = rec.writes() > 0;
        drop(rec);
        let slabs: Vec<Vec<_>> = (0..p)
            .map(|c| maps[offset[c] as usize..offset[c + 1] as usize].to_vec())
            .collect();
        let inst = SlabInstance::new(machine.num_mem_banks(), slabs)?;
        let dag_ref = (!dag.has_no_edges()).then_some(&dag);
        let opts = BlpOptions {
            window: self.cfg.blp_window,
            ..BlpOptions::default()
        };
        let sched = schedule_blp(&inst, &opts, dag_ref)?;
        let orig = original_order(&inst);
        let mut steps = Vec::with_capacity(sched.slots.len());
        let mut seq = Vec::with_capacity(n);
        for row in &sched.slots {
            let step: Vec<Vec<u32>> = row
                .iter()
                .enumerate()
                .map(|(c, k)| k.map(|k| vec![offset[c] + k as u32]).unwrap_or_default())
                .collect();
            seq.extend(step.iter().flatten().copied());
            steps.push(step);
        }
        let waits = match dag_ref {
            Some(d) => {
                let per_core: Vec<Vec<u32>> = (0..p)
                    .map(|c| steps.iter().flat_map(|s| s[c].iter().copied()).collect())
                    .collect();
                sync_points(d, &per_core, &seq)?
            }
            None => vec![Vec::new(); n],
        };
        let plan = Plan {
            units,
            steps,
            waits,
            seq,
            barrier: self.cfg.slot_barrier,
        };
        plan.validate()?;
        let t3 = Instant::now();
        let st = RegionStats {
            units: n as u64,
            inspector_breakdown: Some(InspectorBreakdown {
                accesses,
                line_touches,
                predicted_hits,
                record_ns: (t1 - t0).as_nanos() as u64,
                dependence_ns: (t2 - t1).as_nanos() as u64,
                schedule_ns: (t3 - t2).as_nanos() as u64,
            }),
            dag_edges: dag.num_edges() as u64,
            sync_waits: plan.waits.iter().map(|w| w.len() as u64).sum(),
            banks_per_slot: Some(sched.mean_coverage()),
            original_banks_per_slot: Some(orig.mean_coverage()),
            banks_per_slab: Some(
                maps.iter().map(|m| m.count()).sum::<usize>() as f64 / maps.len().max(1) as f64,
            ),
            bank_maps_hash: Some(bank_maps_hash(&maps)),
            ..Default::default()
        };
        Ok((plan, st, writes))
    }

    /// Affine nest (Algorithm 5): iteration blocks of `ib_iters` iterations over
    /// `[lo, hi)`, bank vectors from the address-only inspector, IW size from eq. 5.1,
    /// scheme `scheme`, IB dependence DAG with pruned synchronisation; cached.
    /// The inspector may be omitted only for [`Scheme::Default`].
    #[allow(clippy::too_many_arguments)]
    pub fn run_affine(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        ib_iters: i64,
        scheme: Scheme,
        inspect: Option<InspectRef<'_>>,
        body: BodyRef<'_>,
    ) -> Result<()> {
        self.run_affine_with(id, lo, hi, ib_iters, scheme, 0, inspect, body)
    }

    /// [`Runtime::run_affine`] with loop permutation inside windows (§5.5.5,
    /// [`Plan::permuted_windows`] with granules of `permute` iterations) when
    /// `permute > 0` and the schedule has no dependence waits (otherwise the
    /// plan runs unpermuted).
    #[allow(clippy::too_many_arguments)]
    pub fn run_affine_with(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        ib_iters: i64,
        scheme: Scheme,
        permute: i64,
        inspect: Option<InspectRef<'_>>,
        body: BodyRef<'_>,
    ) -> Result<()> {
        if lo > hi {
            return Err(invalid(format!("lo {lo} > hi {hi}")));
        }
        if ib_iters <= 0 {
            return Err(invalid(format!(
                "ib_iters must be positive, got {ib_iters}"
            )));
        }
        if inspect.is_none() && scheme != Scheme::Default {
            return Err(invalid("MLP/CLP schemes need an inspector"));
        }
        let p = self.cfg.cores;
        let key = (
            lo,
            hi,
            ib_iters,
            scheme as u32 | ((permute.clamp(0, 1 << 23) as u32) << 8),
            p,
        );
        if self.grain_serial((AFFINE, id as u64), hi - lo) {
            // Too little work to share: original order on the calling thread.
            return self.execute_small(AFFINE, id, lo, hi, body);
        }
        let cached = lock(&self.regions)
            .get(&(AFFINE, id))
            .filter(|c| c.key == key)
            .map(|c| c.plan.clone());
        // Schedule-reuse control, natively, for address-inspected nests (the
        // fall-back of nests the compiler could not prove parallel, whose
        // legality may rest on the dependence DAG): after
        // `reinspect_limit` plans in a row that each served one execution
        // and cost more than `checked_plan_cost_ratio · (cores - 1)` of it,
        // the nest runs in original order on the calling thread, which is
        // always legal and then the faster choice.
        let reuse_control = self.tracer.is_none() && inspect.is_some();
        if cached.is_none() && reuse_control && self.abandon_inspection(AFFINE, id) {
            return self.execute_small(AFFINE, id, lo, hi, body);
        }
        let mut built_ns = None;
        let plan = match cached {
            Some(pl) => {
                if reuse_control {
                    self.plan_reused(AFFINE, id);
                }
                pl
            }
            None => {
                self.set_up()?;
                let t = Instant::now();
                let (plan, st) = self.build_affine(lo, hi, ib_iters, scheme, inspect)?;
                let plan = match (permute > 0)
                    .then(|| plan.permuted_windows(PERMUTE_MAX_UNITS, permute))
                {
                    Some(Some(q)) => q,
                    _ => plan,
                };
                let plan = Arc::new(plan);
                let ns = t.elapsed().as_nanos() as u64;
                built_ns = Some(ns);
                self.record_affine(id, ib_iters, ns, st);
                lock(&self.regions).insert(
                    (AFFINE, id),
                    Cached {
                        key,
                        plan: plan.clone(),
                        scheduled: true,
                    },
                );
                plan
            }
        };
        self.execute_affine(
            id,
            &plan,
            scheme,
            body,
            built_ns.filter(|_| reuse_control),
            true,
        )
    }

    /// Runs affine nest `id`'s `plan` and, when a new plan was built for this
    /// call in `built_ns` (under reuse control), records whether that plan
    /// counts against the nest ([`Runtime::affine_plan_costly`]; `checked`:
    /// the nest's legality may rest on a run-time check).
    fn execute_affine(
        &self,
        id: u32,
        plan: &Plan,
        scheme: Scheme,
        body: BodyRef<'_>,
        built_ns: Option<u64>,
        checked: bool,
    ) -> Result<()> {
        let exec = self.execute_region(AFFINE, id, plan, scheme != Scheme::Default, body)? as f64;
        if let Some(b) = built_ns {
            self.plan_built(AFFINE, id, self.affine_plan_costly(b, exec, checked), false);
        }
        Ok(())
    }

    fn record_affine(&self, id: u32, ib_iters: i64, ns: u64, st: RegionStats) {
        let before = lock(&self.stats)
            .get(&(AFFINE, id))
            .map_or(0, |e| e.line_steps);
        let st = RegionStats {
            inspector_ns: ns,
            unit_iters: ib_iters,
            line_steps: before + st.line_steps,
            ..st
        };
        self.record_inspection(AFFINE, id, st);
    }

    /// A described nest whose descriptor needs more than
    /// [`crate::affine_desc::RUN_BUDGET`] runs: a nest proven parallel
    /// (`!check`) runs the Default schedule (round-robin IBs, §5.6.1) on all
    /// cores, with coverage 0 in its statistics; a nest whose IBs may conflict
    /// returns the error and the compiled code runs it sequentially.
    fn desc_over_budget(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        ib_iters: i64,
        check: bool,
        body: BodyRef<'_>,
    ) -> Result<()> {
        if check {
            return Err(RuntimeError::SearchBudget(crate::affine_desc::RUN_BUDGET));
        }
        self.run_affine(id, lo, hi, ib_iters, Scheme::Default, None, body)
    }

    /// Affine nest whose IBs are independent, with bank vectors from the
    /// access-function descriptor `desc` ([`AffineDesc`]) evaluated at loop
    /// entry (no inspector, no loop body run). Plans are cached per nest and
    /// descriptor contents (the actual base addresses and live-ins), up to
    /// [`DESC_CACHE_SLOTS`] per nest, so alternating arrays (`A→B`, `B→A`)
    /// keep their schedules. `permute` as in [`Runtime::run_affine_with`].
    #[allow(clippy::too_many_arguments)]
    pub fn run_affine_desc(
        &self,
        id: u32,
        lo: i64,
        hi: i64,
        ib_iters: i64,
        scheme: Scheme,
        permute: i64,
        check: bool,
        desc: &[i64],
        body: BodyRef<'_>,
    ) -> Result<()> {
        if lo > hi {
            return Err(invalid(format!("lo {lo} > hi {hi}")));
        }
        if ib_iters <= 0 {
            return Err(invalid(format!(
                "ib_iters must be positive, got {ib_iters}"
            )));
        }
        if self.grain_serial((AFFINE, id as u64), hi - lo) {
            // Too little work to share: original order on the calling thread
            // (correct whether or not the IBs conflict).
            return self.execute_small(AFFINE, id, lo, hi, body);
        }
        let p = self.cfg.cores;
        let mut key = vec![
            lo,
            hi,
            ib_iters,
            scheme as i64,
            permute,
            p as i64,
            check as i64,
        ];
        key.extend_from_slice(desc);
        let cached = {
            let mut g = lock(&self.affine_desc);
            let slots = g.entry(id).or_default();
            match slots.iter().position(|(k, _)| *k == key) {
                Some(i) => {
                    let e = slots.remove(i);
                    let pl = e.1.clone();
                    slots.push(e); // most recent last
                    Some(pl)
                }
                None => None,
            }
        };
        // A nest the compiler could not prove parallel (`check`) needs no
        // line-walk check when interval arithmetic over the actual bounds
        // proves its IBs independent (cholesky's column loop, `i` from
        // `j + 1`): it then follows the proven-parallel rules, including the
        // fall-back to the parallel Default schedule. A cached plan already
        // embodies the verdict (the key holds the bounds and the descriptor),
        // so only the other paths prove it; the parsed descriptor is kept for
        // the build.
        let mut parsed = None;
        let check = if check && !matches!(cached, Some(Ok(_))) {
            let d = AffineDesc::parse(desc)?;
            let needed = !d.ibs_independent(lo, hi, ib_iters);
            parsed = Some(d);
            needed
        } else {
            check
        };
        if cached.is_none()
            && !check
            && scheme == Scheme::Default
            && permute == 0
            && self.tracer.is_none()
        {
            // Natively the Default schedule (round-robin IBs) needs nothing
            // from the descriptor walk; trace mode keeps it for the
            // statistics (IW size, data-set size) the study reports.
            return self.run_affine(id, lo, hi, ib_iters, Scheme::Default, None, body);
        }
        let conflict = || {
            RuntimeError::IbConflict(format!("nest {id}: an IB writes lines another IB touches"))
        };
        // Schedule-reuse control, natively only (trace mode keeps scheduling:
        // building a plan costs no simulated cycles, and the study measures the
        // schedules). A nest proven parallel falls back to the Default
        // schedule; one whose legality rests on the conflict check to its
        // original order on the calling thread.
        let reuse_control = self.tracer.is_none();
        if cached.is_none() && reuse_control && self.abandon_inspection(AFFINE, id) {
            return match check {
                false => self.run_affine(id, lo, hi, ib_iters, Scheme::Default, None, body),
                true => self.execute_small(AFFINE, id, lo, hi, body),
            };
        }
        let mut built_ns = None;
        let plan = match cached {
            Some(Ok(Some(pl))) => {
                if reuse_control {
                    self.plan_reused(AFFINE, id);
                }
                pl
            }
            Some(Ok(None)) => return Err(conflict()),
            Some(Err(())) => {
                return self.desc_over_budget(id, lo, hi, ib_iters, check, body);
            }
            None => {
                self.set_up()?;
                let t = Instant::now();
                let parsed = match parsed {
                    Some(d) => d,
                    None => AffineDesc::parse(desc)?,
                };
                let built = match self.build_affine_desc(lo, hi, ib_iters, scheme, check, &parsed) {
                    Err(RuntimeError::SearchBudget(_)) => {
                        // Too many runs: remember it (the lock is released before
                        // the loop runs).
                        self.desc_cache_put(id, key, Err(()));
                        return self.desc_over_budget(id, lo, hi, ib_iters, check, body);
                    }
                    r => r?,
                };
                let Some((plan, st)) = built else {
                    self.desc_cache_put(id, key, Ok(None));
                    return Err(conflict());
                };
                let plan = match (permute > 0)
                    .then(|| plan.permuted_windows(PERMUTE_MAX_UNITS, permute))
                {
                    Some(Some(q)) => q,
                    _ => plan,
                };
                let plan = Arc::new(plan);
                let ns = t.elapsed().as_nanos() as u64;
                built_ns = Some(ns);
                self.record_affine(id, ib_iters, ns, st);
                self.desc_cache_put(id, key, Ok(Some(plan.clone())));
                plan
            }
        };
        self.execute_affine(
            id,
            &plan,
            scheme,
            body,
            built_ns.filter(|_| reuse_control),
            check,
        )
    }

    /// Schedule-reuse control of affine nests: whether a plan that took
    /// `built_ns` to build counts against its nest after an execution of
    /// `exec_ns`. A nest proven parallel (falls back to the Default
    /// schedule): more than `plan_cost_share` of the execution. One whose
    /// legality may rest on a check (falls back to a sequential run): more
    /// than `checked_plan_cost_ratio · (cores - 1)` executions.
    fn affine_plan_costly(&self, built_ns: u64, exec_ns: f64, checked: bool) -> bool {
        let limit = match checked {
            false => self.cfg.plan_cost_share * exec_ns,
            true => {
                let others = self.cfg.cores.saturating_sub(1) as f64;
                self.cfg.checked_plan_cost_ratio * others * exec_ns
            }
        };
        built_ns as f64 > limit
    }

    /// Saves the descriptor-path verdict for nest `id` under `key`, dropping
    /// the least recently used of its [`DESC_CACHE_SLOTS`] entries when full.
    fn desc_cache_put(&self, id: u32, key: Vec<i64>, entry: DescEntry) {
        let mut g = lock(&self.affine_desc);
        let slots = g.entry(id).or_default();
        if slots.len() >= DESC_CACHE_SLOTS {
            drop(slots.remove(0));
        }
        slots.push((key, entry));
    }

    fn build_affine_desc(
        &self,
        lo: i64,
        hi: i64,
        ib: i64,
        scheme: Scheme,
        check: bool,
        desc: &AffineDesc,
    ) -> Result<Option<(Plan, RegionStats)>> {
        let p = self.cfg.cores;
        let machine = self.machine()?;
        let v = desc.block_vectors(machine.as_ref() as &dyn AddressMap, lo, hi, ib, check)?;
        if v.conflict {
            return Ok(None);
        }
        let n = v.blocks.len();
        let units: Vec<(i64, i64)> = (0..n as i64)
            .map(|i| (lo + i * ib, (lo + (i + 1) * ib).min(hi)))
            .collect();
        let nz: Vec<f64> = v
            .ds_lines
            .iter()
            .filter(|&&d| d > 0)
            .map(|&d| d as f64)
            .collect();
        let ds = if nz.is_empty() {
            0.0
        } else {
            nz.iter().sum::<f64>() / nz.len() as f64
        };
        let w = iw_size(machine.llc_lines(), ds, p).min(n.div_ceil(p).max(1));
        let opts = MlpOptions {
            scheme,
            eta_mem: machine.eta_mem(),
            eta_llc: machine.eta_llc(),
        };
        let (plan, mut st) = self.plan_from_blocks(
            units,
            v.blocks,
            None,
            w,
            ds,
            (machine.num_mem_banks(), machine.num_llc_banks()),
            &opts,
        )?;
        st.line_steps = v.line_steps;
        Ok(Some((plan, st)))
    }

    fn build_affine(
        &self,
        lo: i64,
        hi: i64,
        ib: i64,
        scheme: Scheme,
        inspect: Option<InspectRef<'_>>,
    ) -> Result<(Plan, RegionStats)> {
        let p = self.cfg.cores;
        let n = ((hi - lo) + ib - 1) / ib;
        let n = n.max(0) as usize;
        let units: Vec<(i64, i64)> = (0..n as i64)
            .map(|i| (lo + i * ib, (lo + (i + 1) * ib).min(hi)))
            .collect();
        let (blocks, dag, window, ds, mb, lb, opts) = match inspect {
            Some(insp) => {
                let machine = self.machine()?;
                let Inspected { accesses: acc, .. } = self.traced_phase(true, || {
                    self.inspect(
                        lo,
                        hi,
                        &core_ranges(&self.chunks(lo, hi)),
                        Layout::Blocks { ib },
                        insp,
                    )
                })?;
                let maps = unit_maps(machine.as_ref() as &dyn AddressMap, n, &acc)?;
                let dag = UnitDag::from_accesses(n, &acc)?;
                let ds = maps.mean_ds_lines();
                // Eq. 5.1, capped at a core's fair share of the IBs: with fewer IBs
                // than n·W, an uncapped window lets the first core take them all.
                let w = iw_size(machine.llc_lines(), ds, p).min(n.div_ceil(p).max(1));
                let blocks: Vec<BlockVectors> = maps
                    .mem_weighted
                    .into_iter()
                    .zip(maps.llc_weighted)
                    .map(|(m, l)| BlockVectors {
                        mem: m.counts,
                        llc: l.counts,
                    })
                    .collect();
                let opts = MlpOptions {
                    scheme,
                    eta_mem: machine.eta_mem(),
                    eta_llc: machine.eta_llc(),
                };
                (
                    blocks,
                    Some(dag),
                    w,
                    ds,
                    machine.num_mem_banks(),
                    machine.num_llc_banks(),
                    opts,
                )
            }
            None => {
                let blocks = vec![
                    BlockVectors {
                        mem: vec![0],
                        llc: vec![0]
                    };
                    n
                ];
                let w = n.div_ceil(p).max(1);
                let opts = MlpOptions {
                    scheme,
                    ..Default::default()
                };
                (blocks, None, w, 0.0, 1, 1, opts)
            }
        };
        self.plan_from_blocks(units, blocks, dag.as_ref(), window, ds, (mb, lb), &opts)
    }

    /// Algorithm 5 over the IBs' vectors, then the executable plan (waits
    /// from the DAG, if any) and the statistics.
    #[allow(clippy::too_many_arguments)]
    fn plan_from_blocks(
        &self,
        units: Vec<(i64, i64)>,
        blocks: Vec<BlockVectors>,
        dag: Option<&UnitDag>,
        window: usize,
        ds: f64,
        (mb, lb): (usize, usize),
        opts: &MlpOptions,
    ) -> Result<(Plan, RegionStats)> {
        let p = self.cfg.cores;
        let n = units.len();
        let scheme = opts.scheme;
        let inst = IbInstance {
            cores: p,
            window,
            mem_banks: mb,
            llc_banks: lb,
            blocks,
        };
        let dag_ref = dag.filter(|d| !d.has_no_edges());
        let sched = schedule_ibs(&inst, opts, dag_ref)?;
        let steps: Vec<Vec<Vec<u32>>> = sched
            .windows
            .iter()
            .map(|s| {
                s.iter()
                    .map(|w| w.iter().map(|&b| b as u32).collect())
                    .collect()
            })
            .collect();
        let waits = match dag_ref {
            Some(d) => sync_points(d, &sched.per_core(p), &sched.seq)?,
            None => vec![Vec::new(); n],
        };
        let plan = Plan {
            units,
            steps,
            waits,
            seq: sched.seq.clone(),
            barrier: false,
        };
        plan.validate()?;
        let beta_mean = (!sched.beta.is_empty())
            .then(|| sched.beta.iter().sum::<f64>() / sched.beta.len() as f64);
        let st = RegionStats {
            units: n as u64,
            dag_edges: dag.map_or(0, |d| d.num_edges() as u64),
            sync_waits: plan.waits.iter().map(|w| w.len() as u64).sum(),
            scheme: Some(scheme.name().into()),
            iw_size: Some(window),
            ds_lines: Some(ds),
            beta: sched.beta.iter().take(4096).copied().collect(),
            beta_mean,
            ..Default::default()
        };
        Ok((plan, st))
    }

    /// The plan cached for irregular region `id`, if any (for tests and tools).
    pub fn cached_irregular_plan(&self, id: u32) -> Option<Arc<Plan>> {
        lock(&self.regions)
            .get(&(IRREGULAR, id))
            .map(|c| c.plan.clone())
    }

    /// The plan cached for affine nest `id`, if any.
    /// On the descriptor path: the most recently used plan of the nest.
    pub fn cached_affine_plan(&self, id: u32) -> Option<Arc<Plan>> {
        lock(&self.regions)
            .get(&(AFFINE, id))
            .map(|c| c.plan.clone())
            .or_else(|| {
                lock(&self.affine_desc)
                    .get(&id)
                    .and_then(|v| v.iter().rev().find_map(|e| e.1.clone().ok().flatten()))
            })
    }

    /// Trace mode: runs `f`, a phase that runs on all virtual cores (a region's
    /// executor, an inspection), between two barriers (fork and join), unless
    /// it is nested in another such phase. The barriers' errors come after `f`'s.
    fn traced_phase<T>(&self, inspection: bool, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let Some(t) = &self.tracer else {
            return f();
        };
        let (start, end) = match inspection {
            true => (BarrierPhase::InspectStart, BarrierPhase::InspectEnd),
            false => (BarrierPhase::RegionStart, BarrierPhase::RegionEnd),
        };
        let outer = self.trace_depth.fetch_add(1, Ordering::Relaxed) == 0;
        let fork = if outer {
            lock(t).barrier(start)
        } else {
            Ok(())
        };
        let r = f();
        let join = if outer { lock(t).barrier(end) } else { Ok(()) };
        self.trace_depth.fetch_sub(1, Ordering::Relaxed);
        let v = r?;
        fork?;
        join?;
        Ok(v)
    }

    /// Trace mode: records an access of the current virtual core (no-op otherwise).
    pub fn trace_access(&self, addr: u64, size: u32, write: bool, gap: u32) -> Result<()> {
        match &self.tracer {
            Some(t) => lock(t).access(
                self.cur_core.load(Ordering::Relaxed),
                addr,
                size,
                write,
                gap,
            ),
            None => Ok(()),
        }
    }

    /// Trace mode: `n` reads of `size` bytes from `addr` on, `gap` apart
    /// ([`crate::abi::weft_trace_reads`]).
    pub fn trace_reads(&self, addr: u64, n: u64, size: u32, gap: u32) -> Result<()> {
        let Some(t) = &self.tracer else {
            return Ok(());
        };
        let mut t = lock(t);
        let core = self.cur_core.load(Ordering::Relaxed);
        for j in 0..n {
            t.access(
                core,
                addr.wrapping_add(j.wrapping_mul(size as u64)),
                size,
                false,
                gap,
            )?;
        }
        Ok(())
    }

    /// Trace mode: adds `n` non-memory instructions to the current virtual core.
    pub fn trace_compute(&self, n: u32) {
        if let Some(t) = &self.tracer {
            lock(t).compute(self.cur_core.load(Ordering::Relaxed), n as u64);
        }
    }

    /// Flushes and closes the trace (idempotent).
    pub fn trace_finish(&self) -> Result<()> {
        match &self.tracer {
            Some(t) => lock(t).finish(),
            None => Ok(()),
        }
    }

    /// Statistics as JSON.
    pub fn stats_json(&self) -> serde_json::Value {
        let regions: Vec<RegionStats> = lock(&self.stats).values().cloned().collect();
        let pf = *lock(&self.pfor);
        serde_json::json!({
            "machine": self.cfg.machine,
            "cores": self.cfg.cores,
            "trace_mode": self.tracing(),
            "regions": regions,
            "parallel_for": {"calls": pf.0, "iterations": pf.1, "executor_ns": pf.2},
            "setup_ns": self.setup_ns.get().copied().unwrap_or(0),
        })
    }

    /// Writes the statistics to the configured path (no-op without one).
    pub fn write_stats(&self) -> Result<()> {
        if let Some(p) = &self.cfg.stats {
            let text = serde_json::to_string_pretty(&self.stats_json())
                .map_err(|e| RuntimeError::Io(std::io::Error::other(e)))?;
            std::fs::write(p, text)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::{
        weft_inspect_access, weft_inspect_checked, weft_inspect_fast, weft_inspect_fast_flush,
        InspectFast, ACCESS_UNCHECKED,
    };

    /// Where slabs are probed, hand-computed: with nothing known, 1/256 of
    /// the slab, then doubling; after a slab filled at 800 iterations, the
    /// next probe ends 700 in and the following ones grow from 100; after two
    /// slabs that never filled, whole slabs except every eighth.
    #[test]
    fn probe_points() {
        let mut p = Probe::default();
        assert_eq!(p.first(0, 1000, 3560), (1010, 10));
        assert_eq!(p.first(1, 0, 100), (1, 1));
        p.filled(800);
        assert_eq!(p.first(1, 2560, 5120), (3260, 100));
        // a short last slab of a chunk ends the probe at its end
        assert_eq!(p.first(2, 0, 500), (500, 100));
        p.unfilled();
        assert_eq!(p.first(3, 0, 2560), (700, 100));
        p.unfilled();
        assert_eq!(p.first(3, 0, 2560), (2560, 2560));
        assert_eq!(p.first(8, 0, 2560), (700, 100));
        p.filled(64);
        assert_eq!(p.first(9, 0, 2560), (56, 8));
    }

    /// What the compiler's inline wrappers (`weft.inspect.report_line` and
    /// `weft.inspect.report_checked` of `passes/src/inspector.rs`) do with an
    /// access, in Rust: unchecked accesses and checked reads of at most two
    /// lines are recorded through `st` (refreshed when `k` leaves its slab;
    /// a checked read also needs a free record), other unchecked accesses
    /// call `weft_inspect_access` and other checked ones
    /// `weft_inspect_checked`. Returns whether the access was recorded inline.
    fn report_inline(
        h: *mut Inspector,
        st: &mut InspectFast,
        shift: u32,
        (k, addr, size, kind): (i64, u64, u32, u32),
    ) -> bool {
        let (first, last) = (addr >> shift, (addr + size as u64 - 1) >> shift);
        let few = last - first <= 1 && st.enabled != 0;
        if few && !(st.lo <= k && k < st.hi) {
            assert_eq!(weft_inspect_fast(h, k, st), 0);
        }
        let rec_free = match kind {
            ACCESS_UNCHECKED => true,
            0 => st.recs < st.recs_end,
            _ => st.recs < st.recs_end && st.rec_step != 0,
        };
        if few && st.enabled != 0 && st.lo <= k && k < st.hi && rec_free {
            for x in [addr, addr + size as u64 - 1] {
                // SAFETY: the runtime's table and row, valid during the inspection.
                unsafe {
                    let b = *st.table.add(((x >> st.lsb) & st.mask) as usize) as usize;
                    *st.row.add(b >> 6) |= 1u64 << (b & 63);
                }
            }
            st.reported += 1;
            st.touches += last - first + 1;
            // SAFETY: a free record of the runtime (`recs < recs_end`).
            unsafe {
                match kind {
                    0 => {
                        write_record(st.recs, addr, st.unit, size);
                        if !unwritten_read(st, addr, size) {
                            st.recs = st.recs.add(st.rec_step as usize);
                        }
                    }
                    1 => {
                        st.recs_end = st.recs_end.sub(16);
                        write_record(st.recs_end, addr, st.unit, size | 1 << 31);
                    }
                    _ => {}
                }
            }
            return true;
        }
        match kind {
            ACCESS_UNCHECKED => {
                assert_eq!(weft_inspect_access(h, k, addr as *const _, size, kind), 0)
            }
            _ => assert_eq!(
                weft_inspect_checked(h, st, k, addr as *const _, size, kind),
                0
            ),
        }
        false
    }

    /// The compiled read filter's rule (`InspectFast::wbits`): a read the
    /// inspector need not record.
    fn unwritten_read(st: &InspectFast, addr: u64, size: u32) -> bool {
        let g = addr >> 2;
        let n = ((addr + size as u64 - 1) >> 2) - g;
        let i = g.wrapping_sub(st.wgmin);
        if st.wspan == 0 || i >= st.wspan || n >= 32 {
            return false;
        }
        // SAFETY: the runtime's bitmap, valid during the inspection; bits
        // `i..=i + n` lie in its words (one past the last bit's word).
        (i..=i + n).all(|j| unsafe { *st.wbits.add((j / 64) as usize) } >> (j % 64) & 1 == 0)
    }

    /// Writes a 16-byte record (`InspectFast`'s layout) at `p`.
    ///
    /// # Safety
    /// `p` must point at 16 writable bytes.
    unsafe fn write_record(p: *mut u8, addr: u64, unit: u32, size_w: u32) {
        unsafe {
            (p as *mut u64).write_unaligned(addr);
            (p.add(8) as *mut u32).write_unaligned(unit);
            (p.add(12) as *mut u32).write_unaligned(size_w);
        }
    }

    /// What the wrapper-model tests check after recording the same accesses
    /// one call per access (`slow`) and the compiled way (`fast`) in `mode`
    /// (`lazy`, `keep` or `filtered`): same bank maps, edges (not for lazy
    /// recorders, which drop reads before the first write), counts and writes;
    /// after `keep`, `written` holds the granules written (the next mode's
    /// filter); the filtered side keeps at least 100 records fewer.
    fn same_recording(
        mode: &str,
        fast: &SlabRecorder,
        slow: &SlabRecorder,
        written: &mut Option<Arc<WrittenGranules>>,
    ) {
        assert_eq!(fast.bank_maps(), slow.bank_maps(), "{mode}");
        if mode != "lazy" {
            let (df, ds) = (fast.dependences().unwrap(), slow.dependences().unwrap());
            assert!(ds.num_edges() > 10, "{} edges", ds.num_edges());
            assert_eq!(df.edges(), ds.edges(), "{mode}");
        }
        assert_eq!(fast.accesses(), slow.accesses(), "{mode}");
        assert_eq!(fast.filter_counts(), slow.filter_counts(), "{mode}");
        assert_eq!(fast.writes(), slow.writes(), "{mode}");
        assert!(slow.writes() > 0);
        assert_eq!(fast.first_write_iter(), slow.first_write_iter(), "{mode}");
        match mode {
            "keep" => {
                assert_eq!(fast.kept(), slow.kept());
                let w = WrittenGranules::of(std::slice::from_ref(slow)).expect("dense");
                *written = Some(Arc::new(w));
            }
            "filtered" => {
                assert!(fast.reads_filtered());
                assert!(
                    fast.kept() + 100 < slow.kept(),
                    "{} of {} records kept",
                    fast.kept(),
                    slow.kept()
                );
            }
            _ => {}
        }
    }

    /// One core over [0, 10), slabs [0, 5) and [5, 10).
    fn one_core_two_slabs() -> SlabLayout {
        SlabLayout {
            chunk: vec![0, 10],
            offset: vec![0, 2],
            slab_iters: 5,
        }
    }

    fn slab_inspector(lo: i64, hi: i64, rec: SlabRecorder) -> Inspector {
        Inspector::new(lo, hi, true, Layout::Slabs(Box::new(rec)))
    }

    fn recorder(h: Inspector) -> SlabRecorder {
        match h.layout {
            Layout::Slabs(r) => *r,
            Layout::Blocks { .. } => unreachable!(),
        }
    }

    #[test]
    fn inline_recording_equals_weft_inspect_access() {
        let m = Arc::new(Machine::load("table5.2").unwrap());
        let banks = m.num_mem_banks();
        // Two cores over [0, 300), slabs of 7 iterations.
        let layout = SlabLayout {
            chunk: vec![0, 150, 300],
            offset: vec![0, 22, 44],
            slab_iters: 7,
        };
        let mut next = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut rnd = move |n: u64| next() % n;
        // Per iteration: random addresses over 64 MiB, sizes of one byte to a
        // few lines; mostly unchecked, a few checked reads and writes (the
        // first write puts the lazy recorder into keeping mode).
        let mut accesses = Vec::new();
        for (lo, hi) in [(0i64, 150i64), (150, 300)] {
            let mut chunk = Vec::new();
            let mut iters: Vec<i64> = (lo..hi).collect();
            // Some iterations revisited out of order (a slab left and re-entered).
            for _ in 0..10 {
                iters.push(lo + rnd((hi - lo) as u64) as i64);
            }
            for k in iters {
                for _ in 0..1 + rnd(6) {
                    let kind = match rnd(40) {
                        0 => 1,
                        1..=12 => 0,
                        _ => ACCESS_UNCHECKED,
                    };
                    // Checked accesses within 8 KB, so that slabs conflict.
                    let addr = match kind {
                        ACCESS_UNCHECKED => 0x1000_0000 + rnd(64 << 20),
                        _ => 0x2000_0000 + rnd(8 << 10),
                    };
                    let size = [1u32, 4, 8, 8, 16, 24, 72, 72, 130][rnd(9) as usize];
                    chunk.push((k, addr, size, kind));
                }
            }
            accesses.push(((lo, hi), chunk));
        }
        let t = BankTable::new(&m);
        // Lazy recorders (checked reads dropped before the first write),
        // keeping ones (the dependences compare), and keeping ones whose
        // inline reads go through the writes-first filter (the granules the
        // keeping run wrote; the one-by-one side keeps every read).
        let mut written = None;
        for mode in ["lazy", "keep", "filtered"] {
            let lazy = mode == "lazy";
            let make = || match lazy {
                true => SlabRecorder::lazy(layout.clone(), banks, 6, t.clone()),
                false => SlabRecorder::new(layout.clone(), banks, 6, t.clone()),
            };
            let make_fast = || match (mode, &written) {
                ("filtered", Some(w)) => make().with_read_filter(Arc::clone(w)),
                _ => make(),
            };
            let (mut slow, mut fast) = (make(), make_fast());
            let (mut inline, mut inline_checked) = (0, 0);
            for ((lo, hi), chunk) in &accesses {
                let mut hs = slab_inspector(*lo, *hi, make());
                let mut hf = slab_inspector(*lo, *hi, make_fast());
                let shift = hf.line_shift();
                let mut st = InspectFast {
                    enabled: 1,
                    ..Default::default()
                };
                for &a in chunk {
                    let (k, addr, size, kind) = a;
                    assert_eq!(
                        weft_inspect_access(&mut hs, k, addr as *const _, size, kind),
                        0
                    );
                    let done = report_inline(&mut hf, &mut st, shift, a);
                    inline += done as usize;
                    inline_checked += (done && kind != ACCESS_UNCHECKED) as usize;
                }
                assert_eq!(st.enabled, 1, "table5.2, no miss filter: exact inline path");
                // 2 KB bank blocks of table5.2, not 64-byte lines.
                assert_eq!(st.shift, 11);
                assert_eq!(weft_inspect_fast_flush(&mut hf, &mut st), 0);
                assert_eq!((st.reported, st.touches), (0, 0));
                slow.append(recorder(hs));
                fast.append(recorder(hf));
            }
            assert!(inline > 500, "{inline} accesses recorded inline");
            assert!(
                inline_checked > 100,
                "{inline_checked} checked reads recorded inline"
            );
            same_recording(mode, &fast, &slow, &mut written);
        }
        assert!(written.is_some());
    }

    /// `weft_inspect_gather` against one `weft_inspect_access` per read:
    /// gathers through `int32_t` and `int64_t` indices (0 to 40 reads, some
    /// over three lines, some negative indices), mixed with checked writes
    /// and unchecked accesses through the inline model, iterations revisited
    /// out of order; lazy, keeping and filtered recorders. Same bank maps,
    /// edges and counts; most gathered reads take the inline path; the
    /// filtered side keeps fewer records.
    #[test]
    fn gather_equals_one_report_per_read() {
        use crate::abi::weft_inspect_gather;
        let m = Arc::new(Machine::load("table5.2").unwrap());
        let banks = m.num_mem_banks();
        let layout = SlabLayout {
            chunk: vec![0, 120, 240],
            offset: vec![0, 18, 36],
            slab_iters: 7,
        };
        let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1d);
        let mut rnd = move |n: u64| next() % n;
        // The gathered array: 8 KB of doubles at a fixed address (the reads
        // are not performed), indices into it.
        let base = 0x2000_0000u64;
        enum Op {
            One(i64, u64, u32, u32),
            Gather {
                k: i64,
                idx32: Vec<i32>,
                idx64: Vec<i64>,
                wide: bool,
                scale: i64,
                size: u32,
                kind: u32,
            },
        }
        let mut chunks = Vec::new();
        for (lo, hi) in [(0i64, 120i64), (120, 240)] {
            let mut ops = Vec::new();
            let mut iters: Vec<i64> = (lo..hi).collect();
            for _ in 0..8 {
                iters.push(lo + rnd((hi - lo) as u64) as i64);
            }
            for k in iters {
                for _ in 0..1 + rnd(3) {
                    match rnd(10) {
                        0 => ops.push(Op::One(k, base + rnd(8 << 10), 8, 1)),
                        1 => ops.push(Op::One(k, 0x1000_0000 + rnd(64 << 20), 8, ACCESS_UNCHECKED)),
                        r => {
                            let n = rnd(41) as usize;
                            // Indices around the middle of the array: doubles,
                            // 24-byte elements, or 2100-byte reads (two or three
                            // 2 KB blocks: the one-by-one way).
                            let (scale, size) = match rnd(8) {
                                0 => (24, 24),
                                1 => (8, 2100),
                                _ => (8, 8),
                            };
                            let idx64: Vec<i64> = (0..n).map(|_| rnd(800) as i64 - 200).collect();
                            ops.push(Op::Gather {
                                k,
                                idx32: idx64.iter().map(|&x| x as i32).collect(),
                                idx64,
                                wide: r % 2 == 0,
                                scale,
                                size,
                                kind: if r < 8 { 0 } else { ACCESS_UNCHECKED },
                            });
                        }
                    }
                }
            }
            chunks.push(((lo, hi), ops));
        }
        let base_g = base + 200 * 8;
        let t = BankTable::new(&m);
        let mut written = None;
        let mut gathered_inline = 0u64;
        for mode in ["lazy", "keep", "filtered"] {
            let lazy = mode == "lazy";
            let make = || match lazy {
                true => SlabRecorder::lazy(layout.clone(), banks, 6, t.clone()),
                false => SlabRecorder::new(layout.clone(), banks, 6, t.clone()),
            };
            let make_fast = || match (mode, &written) {
                ("filtered", Some(w)) => make().with_read_filter(Arc::clone(w)),
                _ => make(),
            };
            let (mut slow, mut fast) = (make(), make_fast());
            for ((lo, hi), ops) in &chunks {
                let mut hs = slab_inspector(*lo, *hi, make());
                let mut hf = slab_inspector(*lo, *hi, make_fast());
                let shift = hf.line_shift();
                let mut st = InspectFast {
                    enabled: 1,
                    ..Default::default()
                };
                for op in ops {
                    match op {
                        &Op::One(k, addr, size, kind) => {
                            let h: *mut Inspector = &mut hs;
                            assert_eq!(weft_inspect_access(h, k, addr as *const _, size, kind), 0);
                            report_inline(&mut hf, &mut st, shift, (k, addr, size, kind));
                        }
                        Op::Gather {
                            k,
                            idx32,
                            idx64,
                            wide,
                            scale,
                            size,
                            kind,
                        } => {
                            for &ix in idx64 {
                                let a = base_g.wrapping_add((ix * scale) as u64);
                                let h: *mut Inspector = &mut hs;
                                assert_eq!(
                                    weft_inspect_access(h, *k, a as *const _, *size, *kind),
                                    0
                                );
                            }
                            let (idx, bytes) = match wide {
                                true => (idx64.as_ptr() as *const std::ffi::c_void, 8),
                                false => (idx32.as_ptr() as *const std::ffi::c_void, 4),
                            };
                            let before = st.reported;
                            let r = weft_inspect_gather(
                                &mut hf,
                                &mut st,
                                *k,
                                base_g as *const _,
                                idx,
                                idx64.len() as u64,
                                bytes,
                                *scale,
                                *size,
                                *kind,
                            );
                            assert_eq!(r, 0);
                            gathered_inline += st.reported.saturating_sub(before);
                            if !idx64.is_empty() {
                                assert!(st.enabled == 1 && st.lo <= *k && *k < st.hi);
                            }
                        }
                    }
                }
                assert_eq!(weft_inspect_fast_flush(&mut hf, &mut st), 0);
                slow.append(recorder(hs));
                fast.append(recorder(hf));
            }
            same_recording(mode, &fast, &slow, &mut written);
        }
        assert!(
            gathered_inline > 3000,
            "{gathered_inline} gathered reads inline"
        );
    }

    /// Bad gathers are errors that leave the state current: a write, an
    /// index width other than 4 or 8, no index array; an empty one is fine.
    #[test]
    fn gather_rejects_what_it_cannot_take() {
        use crate::abi::weft_inspect_gather;
        let m = Arc::new(Machine::load("table5.2").unwrap());
        let rec = SlabRecorder::new(
            one_core_two_slabs(),
            m.num_mem_banks(),
            6,
            BankTable::new(&m),
        );
        let mut h = slab_inspector(0, 10, rec);
        let mut st = InspectFast::default();
        let idx = [1i32, 2, 3];
        let (x, p) = (
            0x1000_0000usize as *const std::ffi::c_void,
            idx.as_ptr() as *const _,
        );
        let g = |h: &mut Inspector, st: &mut InspectFast, idx, n, bytes, kind| {
            weft_inspect_gather(h, st, 3, x, idx, n, bytes, 8, 8, kind)
        };
        assert_ne!(g(&mut h, &mut st, p, 3, 4, 1), 0);
        assert_ne!(g(&mut h, &mut st, p, 3, 2, 0), 0);
        assert_ne!(g(&mut h, &mut st, std::ptr::null(), 3, 4, 0), 0);
        assert_eq!(g(&mut h, &mut st, std::ptr::null(), 0, 4, 0), 0);
        assert_eq!(g(&mut h, &mut st, p, 3, 4, 0), 0);
        assert!(st.enabled == 1 && st.lo <= 3 && 3 < st.hi);
        assert_ne!(
            weft_inspect_gather(std::ptr::null_mut(), &mut st, 3, x, p, 3, 4, 8, 8, 0),
            0
        );
        assert_eq!(weft_inspect_fast_flush(&mut h, &mut st), 0);
        assert_eq!(recorder(h).accesses(), 3);
        // A maps-only inspector reports unchecked gathers only.
        let rec = SlabRecorder::new(
            one_core_two_slabs(),
            m.num_mem_banks(),
            6,
            BankTable::new(&m),
        );
        let mut h = slab_inspector(0, 10, rec);
        h.declare_maps_only();
        let mut st = InspectFast::default();
        assert_ne!(g(&mut h, &mut st, p, 3, 4, 0), 0);
        assert_eq!(g(&mut h, &mut st, p, 3, 4, ACCESS_UNCHECKED), 0);
        assert_eq!(weft_inspect_fast_flush(&mut h, &mut st), 0);
        assert_eq!(recorder(h).accesses(), 3);
    }

    #[test]
    fn range_reports_keep_the_range_rule() {
        use crate::abi::weft_inspect_range;
        let m = Arc::new(Machine::load("table5.2").unwrap());
        let layout = one_core_two_slabs();
        let rec = SlabRecorder::new(layout, m.num_mem_banks(), 6, BankTable::new(&m));
        let mut h = slab_inspector(0, 8, rec);
        let a = 0x1000_0000usize as *const std::ffi::c_void;
        // In range: recorded (0 bytes: nothing marked, still fine).
        assert_eq!(weft_inspect_range(&mut h, 3, a, 4096), 0);
        assert_eq!(weft_inspect_range(&mut h, 3, a, 0), 0);
        // Outside the inspected range: an error whatever the length.
        assert_ne!(weft_inspect_range(&mut h, 9, a, 64), 0);
        assert_ne!(weft_inspect_range(&mut h, 9, a, 0), 0);
        assert_ne!(weft_inspect_range(std::ptr::null_mut(), 3, a, 8), 0);
        let r = recorder(h);
        assert_eq!(r.accesses(), 2);
        assert!(r.bank_maps()[0].count() > 1, "a 4 KB range spans two banks");
    }

    /// The records of checked reads, hand-checked: where `weft_inspect_fast`
    /// lets them go (kept, dropped by a lazy recorder before its first
    /// write, one by one in the slab where it starts keeping), that they
    /// reach the dependence check, and that a cursor off a record boundary
    /// is an error that keeps nothing.
    #[test]
    fn inline_records_of_checked_reads() {
        let m = Arc::new(Machine::load("table5.2").unwrap());
        let banks = m.num_mem_banks();
        let layout = one_core_two_slabs();
        let t = BankTable::new(&m);
        let a = 0x2000_0000u64;
        let write_rec = |st: &mut InspectFast, addr: u64, size: u32| {
            assert!(st.recs < st.recs_end);
            // SAFETY: a free record (`recs < recs_end`).
            unsafe {
                write_record(st.recs, addr, st.unit, size);
                st.recs = st.recs.add(st.rec_step as usize);
            }
            st.reported += 1;
            st.touches += 1;
        };
        // Keeping recorder: slab 0 reads a[0] and a[1] inline, slab 1 writes a[1].
        let mut h = slab_inspector(
            0,
            10,
            SlabRecorder::new(layout.clone(), banks, 6, t.clone()),
        );
        let mut st = InspectFast::default();
        assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
        assert_eq!((st.unit, st.rec_step), (0, 16));
        // (free records for the slab's 5 iterations: 16 each, 16 bytes a record)
        assert!(!st.recs.is_null() && st.recs_end as usize - st.recs as usize >= 5 * 16 * 16);
        write_rec(&mut st, a, 8);
        write_rec(&mut st, a + 8, 8);
        let p = a as *const std::ffi::c_void;
        assert_eq!(
            weft_inspect_checked(&mut h, &mut st, 7, p.wrapping_add(8), 8, 1),
            0
        );
        assert_eq!((st.lo, st.hi, st.unit, st.reported), (5, 10, 1, 0));
        // Slab 1 also reads a[4] (the first free record) and writes a[4]
        // and a[2] inline (from the other end); slab 0 does not read a[2]
        // or a[4], so no new edge, but both writes count.
        write_rec(&mut st, a + 32, 8);
        for x in [a + 32, a + 16] {
            // SAFETY: a free record below `recs_end` (`recs < recs_end`).
            unsafe {
                st.recs_end = st.recs_end.sub(16);
                write_record(st.recs_end, x, st.unit, 8 | 1 << 31);
            }
            st.reported += 1;
        }
        assert_eq!(weft_inspect_fast_flush(&mut h, &mut st), 0);
        assert!(st.recs.is_null());
        let r = recorder(h);
        assert_eq!((r.accesses(), r.writes()), (6, 3));
        assert_eq!(r.dependences().unwrap().edges(), vec![(0, 1)]);
        // A cursor half a record in: an error, nothing kept.
        let mut h = slab_inspector(
            0,
            10,
            SlabRecorder::new(layout.clone(), banks, 6, t.clone()),
        );
        let mut st = InspectFast::default();
        assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
        write_rec(&mut st, a, 8);
        st.recs = st.recs.wrapping_add(8);
        assert_ne!(weft_inspect_fast_flush(&mut h, &mut st), 0);
        assert!(h
            .error
            .as_deref()
            .unwrap_or("")
            .contains("record boundaries"));
        assert_eq!(recorder(h).accesses(), 1, "counted, not kept");
        // Accesses recorded one by one (`weft_inspect_access`) while a
        // cursor is out: fine when no record was written inline, an error
        // otherwise (the inline ones would land behind them).
        for inline in [false, true] {
            let rec = SlabRecorder::new(layout.clone(), banks, 6, t.clone());
            let mut h = slab_inspector(0, 10, rec);
            let mut st = InspectFast::default();
            assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
            if inline {
                write_rec(&mut st, a, 8);
            }
            assert_eq!(weft_inspect_access(&mut h, 2, p, 8, 0), 0);
            assert_eq!(weft_inspect_fast_flush(&mut h, &mut st) != 0, inline);
        }
        // Lazy recorder: before its first write, reads are dropped (a cursor
        // that does not advance); after a write in iteration 2, the rest of
        // slab 0 reports one by one and slab 1 is kept.
        let lazy = SlabRecorder::lazy(layout.clone(), banks, 6, t.clone());
        let mut h = slab_inspector(0, 10, lazy);
        let mut st = InspectFast::default();
        assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
        assert_eq!(
            (st.rec_step, st.recs_end as usize - st.recs as usize),
            (0, 16)
        );
        write_rec(&mut st, a, 8);
        assert_eq!(weft_inspect_checked(&mut h, &mut st, 2, p, 8, 1), 0);
        assert_eq!((st.lo, st.hi), (0, 5));
        assert!(st.recs.is_null(), "slab 0 keeps iterations 3.. only");
        assert_eq!(weft_inspect_checked(&mut h, &mut st, 3, p, 8, 0), 0);
        assert_eq!(weft_inspect_fast(&mut h, 5, &mut st), 0);
        assert_eq!(st.rec_step, 16);
        write_rec(&mut st, a, 8);
        assert_eq!(weft_inspect_fast_flush(&mut h, &mut st), 0);
        let r = recorder(h);
        assert_eq!((r.accesses(), r.first_write_iter()), (4, Some(2)));
        assert_eq!(
            r.writes(),
            0,
            "the write's iteration is re-inspected, not kept"
        );
    }

    #[test]
    fn inline_recording_is_off_where_it_would_not_be_exact() {
        let m = Arc::new(Machine::load("table5.2").unwrap());
        let banks = m.num_mem_banks();
        let layout = one_core_two_slabs();
        let rec = || SlabRecorder::new(layout.clone(), banks, 6, BankTable::new(&m));
        let mut st = InspectFast::default();
        // Exact: the slab of iteration 6 is [5, 10), cut to the inspected [0, 8).
        let mut h = slab_inspector(0, 8, rec());
        st.reported = 3;
        st.touches = 4;
        assert_eq!(weft_inspect_fast(&mut h, 6, &mut st), 0);
        // Kept per bank block (2 KB on table5.2), not per 64-byte line.
        assert_eq!((st.enabled, st.lo, st.hi, st.shift), (1, 5, 8, 11));
        // The slab's own end, not cut (compiled row streams read up to it).
        assert_eq!(st.slab_end, 10);
        assert_eq!((st.reported, st.touches), (0, 0), "handed to the recorder");
        assert!(!st.row.is_null() && !st.table.is_null());
        // Outside the inspected range: no slab (the access's slow path
        // reports the error).
        assert_eq!(weft_inspect_fast(&mut h, 9, &mut st), 0);
        assert_eq!((st.enabled, st.lo, st.hi), (1, 0, 0));
        let r = recorder(h);
        assert_eq!((r.accesses(), r.filter_counts()), (3, (0, 4)));
        // Lines under 16 bytes (an aligned 16-byte access could cross one):
        // the maps are kept per 2 KB bank block all the same, and inline.
        let mut h = slab_inspector(
            0,
            10,
            SlabRecorder::new(layout.clone(), banks, 3, BankTable::new(&m)),
        );
        assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
        assert_eq!((st.enabled, st.shift), (1, 11));
        // With a miss predictor, at 8-byte lines: off.
        st = InspectFast::default();
        let mut h = slab_inspector(
            0,
            10,
            SlabRecorder::new(layout.clone(), banks, 3, BankTable::new(&m)).with_miss_filter(64),
        );
        assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
        assert_eq!((st.enabled, st.shift), (0, 3));
        // Switched off (`WEFT_INSPECT_INLINE=0`).
        st = InspectFast::default();
        let mut h = slab_inspector(0, 10, rec());
        h.inline = false;
        assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
        assert_eq!((st.enabled, st.lo, st.hi, st.shift), (0, 0, 0, 11));
        // A miss predictor decides which lines set bits: off, and the maps
        // are kept per cache line.
        st = InspectFast::default();
        let mut h = slab_inspector(0, 10, rec().with_miss_filter(64));
        assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
        assert_eq!((st.enabled, st.lo, st.hi, st.shift), (0, 0, 0, 6));
        // Affine nests weigh every access: off, shift 0.
        st = InspectFast::default();
        let mut h = Inspector::new(0, 10, true, Layout::Blocks { ib: 2 });
        assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
        assert_eq!((st.enabled, st.shift), (0, 0));
        // Null arguments.
        assert_eq!(
            weft_inspect_fast(std::ptr::null_mut(), 0, &mut st),
            crate::abi::Status::Null as i32
        );
        assert_eq!(
            weft_inspect_fast_flush(&mut h, std::ptr::null_mut()),
            crate::abi::Status::Null as i32
        );
    }

    #[test]
    fn inspect_fast_layout_is_the_c_struct() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<InspectFast>(), 128);
        assert_eq!(offset_of!(InspectFast, row), 16);
        assert_eq!(offset_of!(InspectFast, mask), 32);
        assert_eq!(offset_of!(InspectFast, lsb), 40);
        assert_eq!(offset_of!(InspectFast, enabled), 48);
        assert_eq!(offset_of!(InspectFast, reported), 56);
        assert_eq!(offset_of!(InspectFast, touches), 64);
        assert_eq!(offset_of!(InspectFast, recs), 72);
        assert_eq!(offset_of!(InspectFast, recs_end), 80);
        assert_eq!(offset_of!(InspectFast, unit), 88);
        assert_eq!(offset_of!(InspectFast, rec_step), 92);
        assert_eq!(offset_of!(InspectFast, wbits), 96);
        assert_eq!(offset_of!(InspectFast, wgmin), 104);
        assert_eq!(offset_of!(InspectFast, wspan), 112);
        assert_eq!(offset_of!(InspectFast, slab_end), 120);
    }

    #[test]
    fn miss_filter_parses_and_sizes_from_the_machine() {
        assert_eq!(MissFilter::parse("off"), Some(MissFilter::Off));
        assert_eq!(MissFilter::parse(" lines "), Some(MissFilter::Lines));
        assert_eq!(
            MissFilter::parse("lines:512"),
            Some(MissFilter::LinesOf(512))
        );
        for bad in ["lines:0", "lines:", "on", "lines:x"] {
            assert_eq!(MissFilter::parse(bad), None, "{bad}");
        }
        // table4.2: 256 KiB private L2 = 4096 lines, plus 10 MiB LLC / 12
        // cores = 163840 / 12 = 13653 lines.
        let m = Machine::load("table4.2").unwrap();
        assert_eq!(MissFilter::Lines.lines(&m, 12), 4096 + 13653);
        assert_eq!(MissFilter::LinesOf(100).lines(&m, 12), 100);
        assert_eq!(MissFilter::Off.lines(&m, 12), 0);
        // table5.2 has no L2: the L1 plus the LLC share.
        let m = Machine::load("table5.2").unwrap();
        let c = &m.config;
        let l1 = (c.l1.size_bytes / c.l1.line_bytes as u64) as usize;
        assert_eq!(
            MissFilter::Lines.lines(&m, 4),
            l1 + m.llc_lines() as usize / 4
        );
    }
}
