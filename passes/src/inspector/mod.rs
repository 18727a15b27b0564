//! `insert-inspector`: the inspector/executor transformation of irregular
//! parallel regions (dissertation §4.4.1, §4.4.4 and Fig. 4.8(b)).
//!
//! For each loop the frontend lists in an irregular region (indirect accesses
//! through index arrays not written by the loop), the pass builds
//! - the executor body `void body(ctx, lo, hi)` ([`crate::outline`]), and
//! - the inspector `void inspect(ctx, lo, hi, h)`: a clone of the body cut down
//!   to the address slice. Every load and store reports
//!   `weft_inspect_access(h, k, addr, size, is_write)` instead of being
//!   performed (stores are dropped; loads survive only when an address or a
//!   branch needs their value). Regular and irregular references are reported
//!   alike (§4.4.5), so the runtime's bank maps see both;
//!
//! and replaces the loop with `weft_run_irregular(region, 0, tc, slab, inspect,
//! body, ctx)`. The runtime runs the inspector once per region, builds bank
//! maps, schedules slabs with Algorithm 4 (slab size `slab=<iters>`, default 0
//! = the runtime's 1/50 of a core's iterations, §4.5.1), and checks the
//! recorded addresses for slab conflicts (§4.4.6), so loops with indirect
//! writes (`y[dst[e]] += ...`) are executed over the slab dependence DAG
//! instead of being rejected. Iterations inside a slab keep their order.
//!
//! With `schedule=original` the same loops run the Original baseline of
//! §4.5: static contiguous chunks per core. Loops without possible slab
//! conflicts get no inspector (`insp = NULL`, the runtime's Default
//! schedule); loops that need the dependence check keep the inspector and
//! use one slab per core (`slab = ceil(tc / P)`, P from `weft_num_cores`), so
//! the schedule is the static one and conflicting chunks are ordered by the
//! slab DAG.
//!
//! Soundness of the inspector: a value it loads to compute an address or a
//! branch must not be written by the loop (it would read stale data); the
//! pass proves that with the frontend's alias relation and refuses otherwise.
//!
//! Schedule reuse (§4.4.1, "re-run it when they are reassigned"): the
//! inspector runs once per index-array assignment, the executor on every
//! call. Each static region owns [`CONTEXT_SLOTS`] runtime ids; before the
//! call the live-in values of the context (base pointers, bounds) are packed
//! into an `i64` key and `weft_region_select` returns the id whose saved key
//! is equal (its cached schedule is reused) or recycles the least recently
//! used id (a kernel called on another matrix, Gauss-Seidel's colours: up
//! to [`CONTEXT_SLOTS`] contexts per region stay cached). The key holds only
//! what the schedule depends on ([`inspector_inputs`]): live-ins the
//! inspector reads, and for a loop proven parallel not the bases of the data
//! arrays it merely reports (SpMV's `x`, `val`, `y`), so one schedule serves
//! the loop over every vector (GMRES's Krylov vectors, CG's `p`) as §4.4.1
//! keeps it per index-array assignment.
//! Index arrays reassigned in place are caught by `weft_region_reset(region)`
//! calls after code that may write integer arrays: after each integer store,
//! memory intrinsic or unknown external call outside generated code, placed
//! at the exits of the outermost enclosing loop that does not itself run a
//! region (so a loop that fills an index array costs one call). This is
//! conservative: integer stores to other arrays cause a re-inspection too.
//! Each point calls the module's `alwaysinline` helper `weft.regions.reset`,
//! which calls the runtime only when a region call has reached it since the
//! last reset (a module flag set after every `weft_run_irregular`), so a
//! point inside a hot loop between region calls that grain hints keep inline
//! costs a load and a branch.
//!
//! Dependence check cost: the inspector of a loop the frontend proves
//! parallel (no slab can conflict) reports every access as unchecked and
//! says so at entry (`weft_inspect_maps_only`), so the runtime skips the
//! §4.4.6 check and may stop inspecting a slab once its bank map has every
//! bank set; only loops with possible cross-iteration conflicts
//! (`y[dst[e]] += ...`) report reads and writes.
//!
//! Annotated loops (`trust-annotations`, default true): the outermost loops
//! of a function annotated `weft.parallel` (`__attribute__((annotate(
//! "weft.parallel")))`, read from `@llvm.global.annotations`) count as proven
//! parallel even when their writes go through index arrays the analysis
//! cannot prove distinct: the programmer's assertion, taken as OpenMP takes
//! `parallel for`, and the dissertation's own premise that a parallel
//! region's slabs may run in any order (§4.4.6 treats dependences as the
//! exception). The benchmarks carry it where a colouring or the sparsity
//! structure keeps the writes distinct (Gauss-Seidel's colours, miniFE's
//! assembly, STUN's column updates). Their inspectors do not declare
//! `weft_inspect_maps_only`, though, so the runtime inspects them lazily
//! ([`Reports::trusted`]). `trust-annotations=false` checks them like any
//! other loop; the remark says which applied.
//!
//! Report cost: such an inspector's reports only feed the bank maps, which
//! are kept per "line" (the runtime's bank block, 2 KB on `table5.2`), so
//! each report site remembers the line it last reported in the current
//! iteration and skips accesses inside it ([`dedup::LineDedup`]; the line size
//! comes from the runtime at inspector entry). Unchecked loads that an
//! inner counted loop streams through (`val[j]`, `col[j]` of a CSR row) are
//! not reported per element at all: one `weft.stream` report of the bytes
//! the loop will read goes before the loop ([`sites::inner_streams`], option
//! `streams`), so the inner loop keeps only the reports of gathered
//! references (`x[col[j]]`).
//! On the HPCG SpMV that leaves 4.5M of 21.4M runtime calls per two
//! inspections with identical bank maps. While the inline path below
//! records, the line is remembered for the rest of the slab instead of the
//! iteration (streaming references then report each line once per slab).
//! The reports left are recorded
//! inline when they touch at most two lines: the wrapper sets the bank bits
//! of the current slab itself, from the runtime's bank table, and asks the
//! runtime only when the iteration enters another slab
//! (`weft_inspect_fast`, see [`dedup::LineDedup`]).
//!
//! Checked reads (loops that need the dependence check) are recorded inline
//! as well, option `inline-checked`: the same bank bits and counts, plus the
//! 16-byte record the check needs, written into the runtime's free records
//! (reads from the front, writes from the back; [`wrappers::checked_wrapper`]);
//! accesses it cannot record call `weft_inspect_checked`, which hands the
//! state back and refills it. On gauss_seidel this and the runtime's side (records
//! pooled, reads of unwritten granules dropped per core) took the inspection
//! from 53 to 22 ms (`docs/runtime.md`, "Checked reads recorded inline").
//!
//! Writes first (option `writes-first`): such a loop also gets the slice of
//! its checked writes alone, `@<inspector>.writes` (every other report
//! dropped, and with it the loads that fed only them), and the runtime calls
//! `@<inspector>.phases`, which asks `weft_inspect_writes_first` which slice
//! to run. The runtime runs the writes first; in the full inspection the
//! wrapper then tests each checked read against the bitmap of written
//! granules the runtime hands over in the inline state and records only
//! those that touch one (`emit::writes_first_dispatch`, `docs/runtime.md` item 6).
//!
//! Row streams (option `row-streams`, with `streams`): when a stream's
//! bounds are the parallel loop's own row pointers (`rowptr[i]`,
//! `rowptr[i+1]`, `sites::csr_rows`), the first row of each slab reports the
//! streams of every row left in the slab at once, up to the slab's end
//! (`weft_inspect_fast_t.slab_end`, [`dedup::LineDedup::report_rows`]); a slab of
//! SpMV rows then has a full bank map after its first row, and the
//! runtime's probes skip the rest (minife's inspection went from 0.61 to
//! 0.15 ms, `docs/runtime.md`).
//!
//! Gathers (option `gathers`): a checked read `base[idx[j]]` of an inner
//! counted loop (`x[col[j]]` of a CSR row) is reported with one
//! `weft_inspect_gather` call before the loop, which reads `idx` itself
//! ([`sites::inner_gathers`], wrapper [`GATHER_WRAPPER`]); the inner loop then
//! reports nothing. On gauss_seidel the inspection went from 12.95 to 11.84
//! ms (`docs/runtime.md` item 7). Unchecked gathers keep the line memory.
//!
//! ## Layout
//!
//! | module | owns |
//! | --- | --- |
//! | `options` | the option table and [`InsertInspector`] |
//! | `pass` | `impl Pass`: decision, emission, reset points, remarks |
//! | `decide` | which loops get an inspector, which loads need no check |
//! | `hazard` | [`inspector_hazard`]: stale reads of the inspector |
//! | `slice` | the address slice: [`make_inspector`], [`make_inspector_with`] |
//! | `sites` | report-site analysis: streams, CSR rows, gathers, runs |
//! | `dedup` | per-site line deduplication of reports |
//! | `wrappers` | the `alwaysinline` report wrappers |
//! | `inline` | the inline recording state `weft_inspect_fast_t` |
//! | `key` | region ids, context keys, cached schedules per context |
//! | `emit` | the rewrite of one loop into the runtime call |
//! | `reset` | index-array reset points |
//!
//! The children import one another, never this file, so the module graph
//! has no cycle (this file only declares and re-exports).

mod decide;
mod dedup;
mod emit;
mod hazard;
mod inline;
mod key;
mod options;
mod pass;
mod reset;
mod sites;
mod slice;
mod wrappers;

pub use hazard::inspector_hazard;
pub use key::{emit_context_cache, inspector_inputs, runtime_ids, CONTEXT_SLOTS};
pub use options::{InsertInspector, OPTIONS, PARALLEL_ANNOTATION};
pub use slice::{make_inspector, make_inspector_with, Reports};
pub use wrappers::{GATHER_WRAPPER, ROWS_WRAPPER};
