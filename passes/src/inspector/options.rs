//! The `insert-inspector` pass's options: the option table `--passes` and
//! `weft opt --list-passes` read, and the [`InsertInspector`] settings struct
//! built from it (slab size, §4.5.1; Original or Algorithm 4 schedule, §4.5;
//! the report-cost switches of the inspector slice; trusting `weft.parallel`
//! annotations, §4.4.6). No transformation code lives here.

use crate::error::Result;
use crate::pipeline::PassOptions;

/// Options of `insert-inspector`.
pub const OPTIONS: &[(&str, &str)] = &[
    (
        "slab",
        "iterations per slab; 0 = the runtime default, 1/50 of a core's iterations",
    ),
    (
        "only",
        "`|`-separated globs of functions to transform (default: all defined)",
    ),
    (
        "invalidate",
        "insert invalidation after possible index-array writes (default true)",
    ),
    (
        "schedule",
        "blp (Algorithm 4, default) or original (static chunks, the ch. 4 Original baseline)",
    ),
    (
        "data-key",
        "keep one schedule per data-array context too, built from that context's bank maps (default false: one per index-array assignment, §4.4.1)",
    ),
    (
        "streams",
        "report an inner counted loop's element-by-element loads (val[j], col[j] of a CSR row) once before the loop, as one byte range (default true; false reports each element)",
    ),
    (
        "row-streams",
        "with streams: an inner loop over a CSR row (j from rowptr[i] to rowptr[i+1], i the parallel loop's counter) reports the streams of every row left in the current slab at once, as one range, the first time a row of the slab enters it (default true; false reports each row's range)",
    ),
    (
        "gathers",
        "report a gathered read of an inner counted loop (x[col[j]] of a CSR row) with one weft_inspect_gather call before the loop, which reads the index array itself (default true; false reports each element)",
    ),
    (
        "inline-checked",
        "record reads the dependence check must see inline, without a runtime call, when they touch at most two lines (default true; false calls weft_inspect_access for each)",
    ),
    (
        "writes-first",
        "give loops that need the dependence check a second inspector slice reporting their checked writes alone, which the runtime runs first so that the full inspection keeps only reads of written granules (default true)",
    ),
    (
        "trust-annotations",
        "treat the outermost loops of a function annotated weft.parallel (__attribute__((annotate(\"weft.parallel\")))) as parallel, without the runtime dependence check, as OpenMP trusts `parallel for` (default true; false checks them like any loop the analysis cannot prove parallel)",
    ),
];

/// The annotation that declares a function's outermost loops parallel
/// (`InsertInspector::trust_annotations`).
pub const PARALLEL_ANNOTATION: &str = "weft.parallel";

/// The `insert-inspector` pass.
#[derive(Debug, Clone)]
pub struct InsertInspector {
    /// Iterations per slab (0 = runtime default).
    pub slab: u64,
    /// Function globs; empty = all.
    pub only: Vec<String>,
    /// Insert invalidation calls after possible index-array writes.
    pub invalidate: bool,
    /// Run the Original schedule (static chunks) instead of Algorithm 4.
    pub original: bool,
    /// Key schedules of loops proven parallel by their data arrays too
    /// (see [`super::key::inspector_inputs`]).
    pub data_key: bool,
    /// Report inner loops' streaming loads as one range before the loop
    /// ([`super::sites::inner_streams`]).
    pub streams: bool,
    /// With `streams`: report the streams of a CSR loop's rows once per
    /// slab ([`super::sites::csr_rows`]).
    pub row_streams: bool,
    /// Report inner loops' gathered reads with one runtime call before the
    /// loop ([`super::sites::inner_gathers`]).
    pub gathers: bool,
    /// Record checked reads inline ([`super::wrappers::CHECKED`]).
    pub inline_checked: bool,
    /// Writes-only inspector slice for loops that need the dependence
    /// check ([`super::emit::writes_first_dispatch`]).
    pub writes_first: bool,
    /// Outermost loops of functions annotated [`PARALLEL_ANNOTATION`] are
    /// parallel: no runtime dependence check (the programmer's assertion,
    /// as an OpenMP `parallel for`; the benchmarks carry it where a
    /// colouring or the sparsity structure keeps indirect writes distinct).
    pub trust_annotations: bool,
}

impl Default for InsertInspector {
    fn default() -> Self {
        InsertInspector {
            slab: 0,
            only: Vec::new(),
            invalidate: true,
            original: false,
            data_key: false,
            streams: true,
            row_streams: true,
            gathers: true,
            inline_checked: true,
            writes_first: true,
            trust_annotations: true,
        }
    }
}

impl InsertInspector {
    /// Builds the pass from its options.
    pub fn from_options(o: &PassOptions) -> Result<InsertInspector> {
        Ok(InsertInspector {
            slab: o.u64_or("slab", 0)?,
            only: o.list("only"),
            invalidate: o.bool_or("invalidate", true)?,
            original: o.choice_or("schedule", &["blp", "original"], "blp")? == "original",
            data_key: o.bool_or("data-key", false)?,
            streams: o.bool_or("streams", true)?,
            row_streams: o.bool_or("row-streams", true)?,
            gathers: o.bool_or("gathers", true)?,
            inline_checked: o.bool_or("inline-checked", true)?,
            writes_first: o.bool_or("writes-first", true)?,
            trust_annotations: o.bool_or("trust-annotations", true)?,
        })
    }
}
