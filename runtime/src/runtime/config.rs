//! Runtime configuration: [`RuntimeConfig`], its defaults and the `WEFT_*`
//! environment variables the C ABI reads at start-up, with the settings
//! that choose how regions are inspected ([`LazyInspect`]; [`MissFilter`],
//! which accesses set bank-map bits, §4.4.2).

use super::*;
use crate::error::invalid;
use crate::machine::{Machine, DEFAULT_MACHINE};
use crate::Result;
use std::path::PathBuf;

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
    /// (see the `runtime::grain` module docs, *Grain control*).
    pub min_parallel_ns: u64,
    /// Schedule-reuse control (`WEFT_REINSPECT_LIMIT`, default
    /// [`DEFAULT_REINSPECT_LIMIT`]; 0 = off): an irregular region whose last
    /// this-many schedules each served a single execution stops inspecting and
    /// runs in its original order (see the `runtime::reuse` module docs).
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
    /// How Algorithm 4 breaks ties where the dissertation says "randomly"
    /// (`WEFT_BLP_TIE`: `seeded`, the default, a generator seeded with
    /// [`crate::blp::DEFAULT_TIE_SEED`]; `seed:N` another seed; `lowest` the
    /// lowest slab index). With every slab's bank map full (large inputs),
    /// all candidates tie and the seeded rule only picks each core's first
    /// slab at random; `lowest` then runs the original order.
    pub blp_tie: crate::blp::TieBreak,
    /// Step aside from Algorithm 4 where it cannot pay (`WEFT_BLP_ASIDE`:
    /// `0` the default, `1` rules 1 and 2 of [`crate::aside`], `coverage`
    /// rule 2 only).
    pub blp_aside: crate::aside::BlpAside,
    /// Step aside from Algorithm 5 where its iteration window is one IB or
    /// its windows cover no more banks than Default's (`WEFT_IB_ASIDE`,
    /// default `false`; `1` turns it on): rules 3 and 4 of [`crate::aside`].
    pub ib_aside: bool,
    /// Bank maps per sub-slab time window (`WEFT_BLP_SUBWINDOWS=k`, default
    /// `None`; `0` or `1` also mean none): regions proven parallel record
    /// `k` maps per slab and are scheduled by [`crate::blp_windows`].
    pub blp_subwindows: Option<usize>,
    /// Staggered chunks (`WEFT_BLP_STAGGER`, default `false`; `1` turns it
    /// on): an irregular region whose loop needs no dependence check runs
    /// its static chunks without inspection, each core's rotated to start at
    /// a hashed slab ([`crate::executor::Plan::rotated_chunks`], the
    /// `super::stagger` module; issue #36, `docs/oracles.md` "Staggered
    /// chunks").
    pub blp_stagger: bool,
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
    /// Bounded inspection and payoff control (`WEFT_PAYOFF`; the
    /// `runtime::payoff` module docs). [`PayoffMode::Off`] by default here;
    /// [`RuntimeConfig::from_env`] gives `Time` natively, `Count` in trace mode.
    pub payoff: PayoffMode,
    /// Time budget of an inspection in reference executions of its range
    /// (`WEFT_INSPECT_BUDGET`; 0 = no time budget).
    pub inspect_budget: f64,
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
pub(super) fn env_on_off(name: &str, default: bool) -> Result<bool> {
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

/// Largest `WEFT_CORES` (worker threads or virtual cores): far above the
/// machines the runtime targets, and small enough that a typo cannot start
/// a hundred thousand threads.
pub const MAX_CORES: usize = 4096;

/// Start-up check of an output file named by variable `var`: it can be
/// created or opened for writing (it is created empty if missing, and
/// written at exit). Errors name the variable, the path and the cause.
fn check_writable(var: &str, p: &std::path::Path) -> Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(p)
        .map(drop)
        .map_err(|e| {
            invalid(format!(
                "{var}={:?}: cannot write {}: {e}",
                p.as_os_str(),
                p.display()
            ))
        })
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
            blp_tie: crate::blp::TieBreak::Seeded(crate::blp::DEFAULT_TIE_SEED),
            blp_aside: crate::aside::BlpAside::Off,
            ib_aside: false,
            blp_subwindows: None,
            blp_stagger: false,
            lazy: LazyInspect::Checked,
            miss_filter: MissFilter::Off,
            inspect_inline: true,
            inspect_saturate: true,
            writes_first: true,
            payoff: PayoffMode::Off,
            inspect_budget: DEFAULT_INSPECT_BUDGET,
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
                .filter(|&n| (1..=MAX_CORES).contains(&n))
                .ok_or_else(|| {
                    invalid(format!(
                        "WEFT_CORES={v:?} is not a core count in 1..={MAX_CORES}"
                    ))
                })?;
        }
        c.trace = std::env::var_os("WEFT_TRACE")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        c.stats = std::env::var_os("WEFT_STATS")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        if let Some(p) = &c.stats {
            check_writable("WEFT_STATS", p)?;
        }
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
        if let Ok(v) = std::env::var("WEFT_BLP_TIE") {
            c.blp_tie = crate::blp::TieBreak::parse(&v).ok_or_else(|| {
                invalid(format!(
                    "WEFT_BLP_TIE={v:?} is not `seeded`, `seed:N` (N a 64-bit integer) or `lowest`"
                ))
            })?;
        }
        if let Ok(v) = std::env::var("WEFT_BLP_ASIDE") {
            c.blp_aside = crate::aside::BlpAside::parse(&v).ok_or_else(|| {
                invalid(format!("WEFT_BLP_ASIDE={v:?} is not 0, 1 or `coverage`"))
            })?;
        }
        c.ib_aside = env_on_off("WEFT_IB_ASIDE", c.ib_aside)?;
        if let Ok(v) = std::env::var("WEFT_BLP_SUBWINDOWS") {
            let k = v.trim().parse::<usize>().map_err(|_| {
                invalid(format!(
                    "WEFT_BLP_SUBWINDOWS={v:?} is not a count of windows per slab"
                ))
            })?;
            c.blp_subwindows = (k > 1).then_some(k);
        }
        c.blp_stagger = env_on_off("WEFT_BLP_STAGGER", c.blp_stagger)?;
        c.inspect_inline = env_on_off("WEFT_INSPECT_INLINE", c.inspect_inline)?;
        c.inspect_saturate = env_on_off("WEFT_INSPECT_SATURATE", c.inspect_saturate)?;
        c.writes_first = env_on_off("WEFT_WRITES_FIRST", c.writes_first)?;
        super::payoff::payoff_from_env(&mut c)?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
