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
//! iteration and skips accesses inside it ([`LineDedup`]; the line size
//! comes from the runtime at inspector entry). Unchecked loads that an
//! inner counted loop streams through (`val[j]`, `col[j]` of a CSR row) are
//! not reported per element at all: one `weft.stream` report of the bytes
//! the loop will read goes before the loop ([`inner_streams`], option
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
//! (`weft_inspect_fast`, see [`LineDedup`]).
//!
//! Checked reads (loops that need the dependence check) are recorded inline
//! as well, option `inline-checked`: the same bank bits and counts, plus the
//! 16-byte record the check needs, written into the runtime's free records
//! (reads from the front, writes from the back; [`LineDedup::checked_wrapper`]);
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
//! those that touch one ([`writes_first_dispatch`], `docs/runtime.md` item 6).
//!
//! Row streams (option `row-streams`, with `streams`): when a stream's
//! bounds are the parallel loop's own row pointers (`rowptr[i]`,
//! `rowptr[i+1]`, [`csr_rows`]), the first row of each slab reports the
//! streams of every row left in the slab at once, up to the slab's end
//! (`weft_inspect_fast_t.slab_end`, [`LineDedup::report_rows`]); a slab of
//! SpMV rows then has a full bank map after its first row, and the
//! runtime's probes skip the rest (minife's inspection went from 0.61 to
//! 0.15 ms, `docs/runtime.md`).
//!
//! Gathers (option `gathers`): a checked read `base[idx[j]]` of an inner
//! counted loop (`x[col[j]]` of a CSR row) is reported with one
//! `weft_inspect_gather` call before the loop, which reads `idx` itself
//! ([`inner_gathers`], wrapper [`GATHER_WRAPPER`]); the inner loop then
//! reports nothing. On gauss_seidel the inspection went from 12.95 to 11.84
//! ms (`docs/runtime.md` item 7). Unchecked gathers keep the line memory.

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core::{LLVMGetPoison, LLVMReplaceAllUsesWith, LLVMTypeOf};
use inkwell::module::{Linkage, Module};
use inkwell::types::AnyType;
use inkwell::values::{
    AsValueRef, BasicMetadataValueEnum, BasicValue, BasicValueEnum, FunctionValue, GlobalValue,
    InstructionOpcode, InstructionValue, IntValue, PhiValue,
};
use inkwell::IntPredicate;
use weft_frontend::deps::{alias, Alias};
use weft_frontend::{AccessKind, FunctionAnalysis, LoopId};

use crate::error::{PassError, Result};
use crate::manager::{Changed, Pass, PassContext, RemarkKind};
use crate::outline::{self, CloneKind, LoopPlan};
use crate::parallel::{self, Decision};
use crate::pipeline::PassOptions;
use crate::rtabi::{self, RtFn};
use crate::util;

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
    /// (see [`inspector_inputs`]).
    pub data_key: bool,
    /// Report inner loops' streaming loads as one range before the loop
    /// ([`inner_streams`]).
    pub streams: bool,
    /// With `streams`: report the streams of a CSR loop's rows once per
    /// slab ([`csr_rows`]).
    pub row_streams: bool,
    /// Report inner loops' gathered reads with one runtime call before the
    /// loop ([`inner_gathers`]).
    pub gathers: bool,
    /// Record checked reads inline ([`LineDedup::CHECKED`]).
    pub inline_checked: bool,
    /// Writes-only inspector slice for loops that need the dependence
    /// check ([`writes_first_dispatch`]).
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

/// Pointer, size and kind of a memory instruction.
fn mem_op<'ctx>(
    i: InstructionValue<'ctx>,
    td: &inkwell::targets::TargetData,
) -> Option<(BasicValueEnum<'ctx>, u64, bool)> {
    match i.get_opcode() {
        InstructionOpcode::Load => {
            let p = util::value_operand(i, 0)?;
            let t = util::basic_type_of(i)?;
            Some((p, td.get_store_size(&t), false))
        }
        InstructionOpcode::Store => {
            let v = util::value_operand(i, 0)?;
            let p = util::value_operand(i, 1)?;
            Some((p, td.get_store_size(&v.get_type()), true))
        }
        _ => None,
    }
}

/// Instructions of the loop needed to compute addresses and branch conditions.
fn address_slice<'ctx>(
    insts: &[InstructionValue<'ctx>],
    in_scope: &dyn Fn(InstructionValue<'ctx>) -> bool,
) -> HashSet<util::ValueKey> {
    let mut marked = HashSet::new();
    let mut work: Vec<InstructionValue<'ctx>> = Vec::new();
    let push = |v: BasicValueEnum<'ctx>, work: &mut Vec<InstructionValue<'ctx>>| {
        if let Some(d) = util::as_instruction(v) {
            work.push(d);
        }
    };
    for &i in insts {
        match i.get_opcode() {
            InstructionOpcode::Load => {
                if let Some(p) = util::value_operand(i, 0) {
                    push(p, &mut work)
                }
            }
            InstructionOpcode::Store => {
                if let Some(p) = util::value_operand(i, 1) {
                    push(p, &mut work)
                }
            }
            InstructionOpcode::Br | InstructionOpcode::Switch => {
                if let Some(c) = util::value_operand(i, 0) {
                    push(c, &mut work)
                }
            }
            InstructionOpcode::Call if is_report_call(i) => {
                work.push(i);
            }
            _ => {}
        }
    }
    while let Some(i) = work.pop() {
        if !in_scope(i) || !marked.insert(util::key(&i)) {
            continue;
        }
        if i.get_opcode() == InstructionOpcode::Phi {
            if let Ok(phi) = PhiValue::try_from(i) {
                for j in 0..phi.count_incoming() {
                    if let Some((v, _)) = phi.get_incoming(j) {
                        push(v, &mut work);
                    }
                }
            }
        } else {
            for v in util::value_operands(i) {
                push(v, &mut work);
            }
        }
    }
    marked
}

/// Why the inspector of `plan` could read stale data, if it could (`None`: safe).
pub fn inspector_hazard<'ctx>(
    fa: &FunctionAnalysis<'ctx>,
    l: LoopId,
    plan: &LoopPlan<'ctx>,
) -> Option<String> {
    let insts = plan.instructions();
    for i in &insts {
        if matches!(
            i.get_opcode(),
            InstructionOpcode::AtomicRMW
                | InstructionOpcode::AtomicCmpXchg
                | InstructionOpcode::Fence
        ) {
            return Some("atomic operation in the loop".into());
        }
        if i.get_opcode() == InstructionOpcode::Call {
            let n = util::callee_name(*i).unwrap_or_default();
            if n.starts_with("llvm.mem") {
                return Some(format!("memory intrinsic @{n} in the loop"));
            }
        }
    }
    let slice = address_slice(&insts, &|i| plan.contains_inst(i));
    let accesses: HashMap<util::ValueKey, &weft_frontend::Access<'ctx>> = fa
        .accesses_within(l)
        .map(|a| (util::key(&a.inst), a))
        .collect();
    let stores: Vec<&weft_frontend::Access<'ctx>> = fa
        .accesses_within(l)
        .filter(|a| a.kind == AccessKind::Store)
        .collect();
    for i in &insts {
        if i.get_opcode() != InstructionOpcode::Load || !slice.contains(&util::key(i)) {
            continue;
        }
        let Some(a) = accesses.get(&util::key(i)) else {
            return Some("an address depends on a load the frontend did not classify".into());
        };
        for s in &stores {
            if alias(&a.base, &s.base) != Alias::Distinct {
                return Some(format!(
                    "an address or branch depends on {} which the loop may write (store to {})",
                    a.base.name, s.base.name
                ));
            }
        }
    }
    None
}

fn decide<'ctx>(fa: &FunctionAnalysis<'ctx>, l: LoopId) -> Decision<'ctx> {
    let in_region = fa
        .regions
        .irregular
        .iter()
        .flat_map(|r| r.loops.iter())
        .find(|il| il.loop_id == l);
    if in_region.is_none() {
        if let Some((_, why)) = fa.regions.rejected.iter().find(|(id, _)| *id == l) {
            return Decision::Skip(format!("not an irregular region: {why}"));
        }
        return Decision::Skip(String::new());
    }
    let plan = match outline::plan_loop(fa, l) {
        Ok(p) => p,
        Err(e) => return Decision::Skip(format!("irregular region not outlined: {e}")),
    };
    if let Some(h) = inspector_hazard(fa, l, &plan) {
        return Decision::Skip(format!("no inspector: {h}"));
    }
    Decision::Transform(Box::new(plan))
}

/// Turns a clone made with [`CloneKind::Inspector`] into the inspector:
/// report every access with `weft_inspect_access(h, k, addr, size, is_write)`,
/// drop stores, delete everything not needed for addresses and control flow.
/// Returns the number of report calls. (Also used by the affine passes, whose
/// runtime entry takes the same inspector type.)
pub fn make_inspector<'ctx>(
    module: &Module<'ctx>,
    f: FunctionValue<'ctx>,
    k: IntValue<'ctx>,
) -> Result<usize> {
    make_inspector_with(module, f, k, true, &HashSet::new(), Reports::default())
}

/// How [`make_inspector_with`] reports (the options of `insert-inspector`
/// of the same names; all off: every report calls the runtime, as affine
/// inspectors do).
#[derive(Clone, Copy, Debug, Default)]
pub struct Reports {
    /// Inner loops' streaming loads as one range ([`inner_streams`]).
    pub streams: bool,
    /// With `streams`: a CSR loop's row streams once per slab ([`csr_rows`]).
    pub row_streams: bool,
    /// Inner loops' gathered reads as one runtime call ([`inner_gathers`]).
    pub gathers: bool,
    /// Checked reads recorded inline ([`LineDedup::CHECKED`]).
    pub inline_checked: bool,
    /// Report the checked writes only (the writes-only slice of
    /// [`writes_first_dispatch`]); every other access is dropped, and the
    /// loads that fed only those reports go with it.
    pub writes_only: bool,
    /// The loop is parallel by its annotation (`trust-annotations`), not by
    /// proof: its inspector does not declare `weft_inspect_maps_only`, so
    /// the runtime treats it as it treats loops whose inspections are costly
    /// (the lazy first execution of `WEFT_LAZY_INSPECT=checked`, one call
    /// per chunk instead of probes). The annotated loops write through index
    /// arrays, so an inspection costs about one execution (miniFE's
    /// assembly, which runs once) and their bank maps seldom fill.
    pub trusted: bool,
}

/// [`make_inspector`] for irregular regions. With `report_writes == false`
/// (the loop is proven parallel) every access is reported as unchecked
/// (`is_write = 2`): the runtime's dependence check has nothing to find and
/// is skipped. With `report_writes`, the loads in `unchecked` (keys of the
/// clone's instructions: loads of arrays the loop does not write) are
/// reported as unchecked and the others as reads or writes. Unchecked
/// reports go through the per-iteration line deduplication of [`LineDedup`];
/// with `how.streams`, those of [`inner_streams`] become one range report
/// per entry of their loop. With `how.inline_checked`, checked reports go
/// through [`LineDedup::CHECKED`] (reads recorded inline).
pub fn make_inspector_with<'ctx>(
    module: &Module<'ctx>,
    f: FunctionValue<'ctx>,
    k: IntValue<'ctx>,
    report_writes: bool,
    unchecked: &HashSet<util::ValueKey>,
    how: Reports,
) -> Result<usize> {
    let td = util::target_data(module);
    let cx = module.get_context();
    let i32t = cx.i32_type();
    let h = f
        .get_nth_param(3)
        .ok_or_else(|| PassError::Llvm("inspector without handle".into()))?;
    let b = cx.create_builder();
    let entry = f.get_first_basic_block();
    // The memory operations of the loop, found before anything is inserted.
    let ops: Vec<_> = f
        .get_basic_blocks()
        .into_iter()
        .filter(|bb| Some(*bb) != entry)
        .flat_map(util::instructions)
        .filter_map(|i| mem_op(i, &td).map(|(p, size, w)| (i, p, size, w)))
        .collect();
    // Accesses that only feed the bank maps are deduplicated per line.
    let is_unchecked = |i: &InstructionValue<'ctx>, w: bool| {
        !report_writes || (!w && unchecked.contains(&util::key(i)))
    };
    // The writes-only slice reports checked writes and nothing else.
    let reported = |w: bool| !how.writes_only || (w && report_writes);
    let inline_checked = how.inline_checked
        && ops
            .iter()
            .any(|(i, _, _, w)| !is_unchecked(i, *w) && reported(*w));
    let unchecked_reports = ops
        .iter()
        .any(|(i, _, _, w)| is_unchecked(i, *w) && reported(*w));
    let mut dedup = match inline_checked || unchecked_reports {
        true => Some(LineDedup::new(module, f, k, h)?),
        false => None,
    };
    if !report_writes && !how.trusted {
        // Bank maps only: the runtime may skip the rest of a slab whose map
        // is full (`weft_inspect_maps_only`).
        let term = entry
            .and_then(|e| e.get_terminator())
            .ok_or_else(|| PassError::Llvm("inspector entry without terminator".into()))?;
        b.position_before(&term);
        b.build_call(
            rtabi::declare(module, RtFn::InspectMapsOnly)?,
            &[h.into()],
            "",
        )?;
    }
    // Unchecked accesses of one block at constant offsets from one base
    // that cover a contiguous byte range are reported once, as that range.
    let runs = if dedup.is_some() && !how.writes_only {
        coalesced_runs(
            &ops,
            &|i: &InstructionValue<'ctx>, w| is_unchecked(i, w),
            &td,
        )
    } else {
        HashMap::new()
    };
    // Unchecked loads streaming through an array in an inner counted loop
    // are reported once per entry of the loop, as the whole stretch.
    let streams = match dedup.is_some() && how.streams && !how.writes_only {
        true => inner_streams(
            &ops,
            &|i: &InstructionValue<'ctx>, w| is_unchecked(i, w),
            &td,
            k,
        ),
        false => HashMap::new(),
    };
    // (An access coalesced into a run is reported with its run.)
    let streams: HashMap<_, _> = streams
        .into_iter()
        .filter(|(key, _)| !runs.contains_key(key))
        .collect();
    // Checked reads `base[idx[j]]` of an inner counted loop are reported
    // with one call before the loop, which reads `idx` itself, where they
    // would be recorded inline, in loops that report no checked write (the
    // reads then move ahead of no write of their iteration). Unchecked ones
    // keep their per-site line memory, which skips most of them for the
    // price of a compare (one call per row cost more on the SpMV rows of
    // gmres, minife and hpcg: 1.09 -> 1.58, 0.61 -> 0.84, 0.61 -> 0.78 ms
    // per inspection).
    let gathers = match dedup.is_some() && how.gathers && inline_checked && !how.writes_only {
        true => {
            let write_blocks: HashSet<usize> = ops
                .iter()
                .filter(|(_, _, _, w)| *w && report_writes)
                .filter_map(|(i, _, _, _)| i.get_parent().map(util::bkey))
                .collect();
            let eligible = |i: &InstructionValue<'ctx>| {
                !is_unchecked(i, false)
                    && !runs.contains_key(&util::key(i))
                    && i.get_parent()
                        .is_some_and(|h| !write_blocks.contains(&util::bkey(h)))
            };
            inner_gathers(&ops, &eligible, &td, k)
        }
        false => HashMap::new(),
    };
    // An access of at most 16 bytes aligned to its power-of-two size lies
    // in one line (the runtime's lines are at least 16 bytes wherever the
    // inline path is enabled).
    let aligned = |i: &InstructionValue<'ctx>, size: u64| {
        size.is_power_of_two() && size <= 16 && i.get_alignment().is_ok_and(|a| a as u64 >= size)
    };
    let i8t = cx.i8_type();
    let mut stores = Vec::new();
    for &(i, p, size, w) in &ops {
        if !reported(w) {
            if w {
                stores.push(i);
            }
            continue;
        }
        b.position_before(&i);
        if let (Some(d), Some(g)) = (&mut dedup, gathers.get(&util::key(&i))) {
            let span = (g.start, g.end, g.idx_bytes);
            let names = ("weft.gather.off", "weft.gather.idx", "weft.gather.n");
            let (idx, n) = before_counted_loop(&b, g.pre, g.idx, span, names)?;
            // (Only checked reads are gathered: `is_write` 0.)
            d.report_gather(
                &b,
                k,
                g.base,
                idx.into(),
                n,
                (g.scale, size, 0, g.idx_bytes),
            )?;
            continue;
        }
        if let (Some(d), Some(st)) = (&mut dedup, streams.get(&util::key(&i))) {
            let span = (st.start, st.end, st.stride);
            let names = ("weft.stream.off", "weft.stream", "weft.stream.n");
            let (at, n) = before_counted_loop(&b, st.pre, st.base, span, names)?;
            let stride = cx.i64_type().const_int(st.stride, false);
            let bytes = b.build_int_mul(n, stride, "weft.stream.bytes")?;
            match (&st.rows, how.row_streams) {
                (Some(r), true) => {
                    let rows = (r.next, r.bytes, st.end, st.base, st.stride);
                    d.report_rows(&b, k, (at, bytes), rows)?
                }
                _ => d.report_bytes(&b, h, k, at.into(), bytes, false)?,
            }
            continue;
        }
        match &mut dedup {
            Some(d) if is_unchecked(&i, w) => match runs.get(&util::key(&i)) {
                None => d.report(&b, h, k, p, size, aligned(&i, size))?,
                Some(Run::Covered) => {}
                Some(&Run::Leader { base, offset, size }) => {
                    let at = if offset == 0 {
                        base.into_pointer_value()
                    } else {
                        let off = cx.i64_type().const_int(offset as u64, true);
                        // SAFETY: an in-bounds byte offset the loop itself accesses.
                        unsafe { b.build_gep(i8t, base.into_pointer_value(), &[off], "weft.span")? }
                    };
                    d.report(&b, h, k, at.into(), size, false)?
                }
            },
            Some(d) if inline_checked => {
                // (The runtime takes a checked access of 0 bytes as 1 byte.)
                let size = size.clamp(1, (1 << 31) - 1);
                d.report_checked(&b, k, p, size, aligned(&i, size), w)?
            }
            _ => {
                let report = rtabi::declare(module, RtFn::InspectAccess)?;
                let args: [BasicMetadataValueEnum<'ctx>; 5] = [
                    h.into(),
                    k.into(),
                    p.into(),
                    i32t.const_int(size, false).into(),
                    i32t.const_int(w as u64, false).into(),
                ];
                b.build_call(report, &args, "")?;
            }
        }
        if w {
            stores.push(i);
        }
    }
    let n = ops.len();
    for s in stores {
        s.erase_from_basic_block();
    }
    // Mark-sweep dead code elimination over the whole function.
    let all: Vec<InstructionValue<'ctx>> = f
        .get_basic_blocks()
        .into_iter()
        .filter(|bb| Some(*bb) != entry)
        .flat_map(util::instructions)
        .collect();
    let live = address_slice(&all, &|_| true);
    let dead: Vec<InstructionValue<'ctx>> = all
        .iter()
        .copied()
        .filter(|i| !i.is_terminator() && !live.contains(&util::key(i)) && !is_report_call(*i))
        .collect();
    // SAFETY: dead values are used only by other dead values; poison first, then erase.
    unsafe {
        for i in &dead {
            let r = i.as_value_ref();
            if util::basic_value(r).is_some() {
                LLVMReplaceAllUsesWith(r, LLVMGetPoison(LLVMTypeOf(r)));
            }
        }
    }
    for i in dead {
        i.erase_from_basic_block();
    }
    if let Some(d) = dedup {
        d.finish(&b)?;
    }
    Ok(n)
}

/// Positions `b` at the end of `pre` (before its branch into a counted loop
/// from `S` to `E`, `(S, E, elem)` in `span`) and builds the address of
/// element `S` of `array` (`elem` bytes each) and the trip count `E - S`,
/// with the value names `(byte offset, address, count)` of `names`.
fn before_counted_loop<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    pre: BasicBlock<'ctx>,
    array: BasicValueEnum<'ctx>,
    (start, end, elem): (IntValue<'ctx>, IntValue<'ctx>, u64),
    (off_name, at_name, n_name): (&str, &str, &str),
) -> Result<(inkwell::values::PointerValue<'ctx>, IntValue<'ctx>)> {
    let term = pre
        .get_terminator()
        .ok_or_else(|| PassError::Llvm("preheader without terminator".into()))?;
    b.position_before(&term);
    let cx = pre.get_context();
    let off = b.build_int_mul(start, cx.i64_type().const_int(elem, false), off_name)?;
    // SAFETY: the loop's first element; a byte offset from the array.
    let at = unsafe { b.build_gep(cx.i8_type(), array.into_pointer_value(), &[off], at_name)? };
    let n = b.build_int_sub(end, start, n_name)?;
    Ok((at, n))
}

/// An unchecked load that walks an array element by element in an inner
/// counted loop ([`inner_streams`]): the loop's iterations read the
/// contiguous bytes `[base + start * stride, base + end * stride)`.
struct Stream<'ctx> {
    /// The loop's preheader: its only entry, a block that only branches to it.
    pre: BasicBlock<'ctx>,
    base: BasicValueEnum<'ctx>,
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    /// Bytes per element (= the load's size).
    stride: u64,
    /// The loop runs over a CSR row ([`csr_rows`]).
    rows: Option<Rows<'ctx>>,
}

/// The rows of a CSR loop: iteration `k`'s inner loop runs from `P[x]` to
/// `P[x + 1]`, with `x` = `k` plus a value that does not change with `k`
/// ([`csr_rows`]). So iterations `k` to `e - 1` together run their inner
/// loops over `[P[x], P[x + e - k])`, when `P` does not decrease (a CSR row
/// pointer), and their streams are one range of the streamed array.
struct Rows<'ctx> {
    /// `&P[x + 1]`, where the loop's end bound is loaded from.
    next: inkwell::values::PointerValue<'ctx>,
    /// Bytes of an element of `P`: 8, or 4 (sign-extended to 64 bits).
    bytes: u64,
}

/// [`Rows`] of a stream's bounds: `start` = `P[x]` and `end` = `P[x + 1]`
/// (loads of `i64`, or of `i32` sign-extended), `x` unit-stepped in `k`
/// ([`steps_with`]).
fn csr_rows<'ctx>(
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    k: IntValue<'ctx>,
    td: &inkwell::targets::TargetData,
) -> Option<Rows<'ctx>> {
    use InstructionOpcode as O;
    // A bound: `load i64 p` or `sext (load i32 p)`; its load and width.
    let bound = |v: IntValue<'ctx>| -> Option<(InstructionValue<'ctx>, u64)> {
        let i = v.as_instruction()?;
        let (load, bytes) = match i.get_opcode() {
            O::Load => (i, 8),
            O::SExt => (util::value_operand(i, 0).and_then(util::as_instruction)?, 4),
            _ => return None,
        };
        let width = util::basic_type_of(load)
            .filter(|t| t.is_int_type())
            .map(|t| t.into_int_type().get_bit_width());
        (load.get_opcode() == O::Load && width == Some(bytes as u32 * 8)).then_some((load, bytes))
    };
    let (ls, bytes) = bound(start)?;
    let (le, bytes_e) = bound(end)?;
    let (ps, pe) = (util::value_operand(ls, 0)?, util::value_operand(le, 0)?);
    let (base_s, xs, es) = two_operand_gep(ps, td)?;
    let (base_e, xe, ee) = two_operand_gep(pe, td)?;
    if bytes_e != bytes || es != bytes {
        return None;
    }
    // `pe` = `gep P, xs + 1`, or `pe` = `ps` plus one element's bytes.
    let plus_one = util::as_instruction(xe).is_some_and(|a| {
        let ops = util::value_operands(a);
        a.get_opcode() == O::Add
            && ops.len() == 2
            && (0..2).any(|i| {
                util::key(&ops[i]) == util::key(&xs)
                    && weft_frontend::ir::const_int(ops[1 - i]) == Some(1)
            })
    });
    let next = match util::key(&base_e) {
        b if b == util::key(&base_s) => ee == bytes && plus_one,
        b if b == util::key(&ps) => weft_frontend::ir::const_int(xe)
            .is_some_and(|c| c as i128 * ee as i128 == bytes as i128),
        _ => false,
    };
    (next && steps_with(xs, k, 4)).then(|| Rows {
        next: pe.into_pointer_value(),
        bytes,
    })
}

/// Whether the inner loop entered through `pre` runs in every iteration `k`
/// whose range `[start, end)` is not empty: `pre`'s only predecessor is
/// the block that defines `k` (run once per iteration), and it branches to
/// `pre` exactly when `start < end` (compared as loaded, before a sign
/// extension). Then the rows of iterations `k .. e` stream
/// `[P[x], P[x + e - k])` between them ([`Rows`]), not a part of it that
/// another condition picks.
fn entered_unless_empty<'ctx>(
    pre: BasicBlock<'ctx>,
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    k: IntValue<'ctx>,
    preds: &HashMap<usize, Vec<BasicBlock<'ctx>>>,
) -> bool {
    use InstructionOpcode as O;
    let Some(header) = k.as_instruction().and_then(|d| d.get_parent()) else {
        return false;
    };
    if preds.get(&util::bkey(pre)).map(Vec::as_slice) != Some(&[header][..]) {
        return false;
    }
    let Some((c, t, f)) = header.get_terminator().and_then(util::cond_branch) else {
        return false;
    };
    let Some(cmp) = util::as_instruction(c).filter(|x| x.get_opcode() == O::ICmp) else {
        return false;
    };
    // `v` is the bound `b`, or the value `b` sign-extends.
    let is = |v: &BasicValueEnum<'ctx>, b: IntValue<'ctx>| {
        util::key(v) == util::key(&b)
            || b.as_instruction().is_some_and(|x| {
                x.get_opcode() == O::SExt
                    && util::value_operand(x, 0).is_some_and(|o| util::key(&o) == util::key(v))
            })
    };
    let ops = util::value_operands(cmp);
    let [a, b] = ops.as_slice() else {
        return false;
    };
    let (se, es) = (is(a, start) && is(b, end), is(a, end) && is(b, start));
    use IntPredicate as P;
    match cmp.get_icmp_predicate() {
        Some(P::SLT) => se && t == pre,
        Some(P::SGT) => es && t == pre,
        Some(P::SGE) => se && f == pre,
        Some(P::SLE) => es && f == pre,
        Some(P::NE) => (se || es) && t == pre,
        Some(P::EQ) => (se || es) && f == pre,
        _ => false,
    }
}

/// Whether `x` is `k` plus a value that does not change with `k`: `k`,
/// `c + y` or `y + c` with `y` such a value and `c` a constant or defined in
/// the function's entry block, `y * 1` (how the outliner writes the loop's
/// counter from `k`).
fn steps_with<'ctx>(x: BasicValueEnum<'ctx>, k: IntValue<'ctx>, depth: u32) -> bool {
    use InstructionOpcode as O;
    if util::key(&x) == util::key(&k) {
        return true;
    }
    let Some(i) = util::as_instruction(x) else {
        return false;
    };
    if depth == 0 {
        return false;
    }
    let ops = util::value_operands(i);
    if ops.len() != 2 {
        return false;
    }
    let entry = i
        .get_parent()
        .and_then(|bb| bb.get_parent())
        .and_then(|f| f.get_first_basic_block());
    let fixed = |v: BasicValueEnum<'ctx>| {
        weft_frontend::ir::const_int(v).is_some()
            || util::as_instruction(v)
                .is_some_and(|d| d.get_parent().is_some() && d.get_parent() == entry)
    };
    match i.get_opcode() {
        O::Add => (0..2).any(|j| steps_with(ops[j], k, depth - 1) && fixed(ops[1 - j])),
        O::Mul => (0..2).any(|j| {
            steps_with(ops[j], k, depth - 1) && weft_frontend::ir::const_int(ops[1 - j]) == Some(1)
        }),
        _ => false,
    }
}

/// Unchecked loads `gep T, base, j` of a one-block counted loop `for (j =
/// S; ; ) { ..; if (++j == E) break; }` (LLVM's rotated form of `for (j = S;
/// j < E; j++)`, e.g. `val[j]` and `col[j]` of a CSR row), with `T` as wide
/// as the load and `base`, `S`, `E` defined outside the loop, which is
/// entered only through a preheader that branches to nothing else. Such a
/// loop runs `E - S` times whenever it is entered (it runs at least once and
/// steps `j` by one up to `E`), and the load executes in every iteration (it
/// is in the loop's only block), so reporting `[base + S * size, base + E *
/// size)` once in the preheader sets exactly the bank bits of reporting each
/// element: every line of that range is read by some iteration. Reports of
/// the same iteration `k` land in the same slab either way. The loop must
/// not be the parallel loop itself (whose header defines `k`).
fn inner_streams<'ctx>(
    ops: &[(InstructionValue<'ctx>, BasicValueEnum<'ctx>, u64, bool)],
    unchecked: &dyn Fn(&InstructionValue<'ctx>, bool) -> bool,
    td: &inkwell::targets::TargetData,
    k: IntValue<'ctx>,
) -> HashMap<util::ValueKey, Stream<'ctx>> {
    use InstructionOpcode as O;
    let mut out = HashMap::new();
    // The function's predecessor lists, made once, when a candidate needs them.
    let mut preds = None;
    for &(i, p, size, w) in ops {
        if w || size == 0 || i.get_opcode() != O::Load || !unchecked(&i, w) {
            continue;
        }
        let Some(h) = i.get_parent() else { continue };
        // Only loops inside an iteration `k` (its report needs `k`; the
        // parallel loop's own accesses are reported per iteration).
        if k.as_instruction().and_then(|d| d.get_parent()) == Some(h) {
            continue;
        }
        // p = gep T, base, j with base outside the loop (`counted_loop`
        // checks `j`).
        let Some((base, j, stride)) = two_operand_gep(p, td) else {
            continue;
        };
        if stride != size || !defined_outside(base, h) {
            continue;
        }
        let Some((pre, start, end)) = counted_loop(h, j, &mut preds) else {
            continue;
        };
        let rows = csr_rows(start, end, k, td).filter(|_| {
            let preds = preds.get_or_insert_with(|| {
                util::predecessors(h.get_parent().expect("block in a function"))
            });
            entered_unless_empty(pre, start, end, k, preds)
        });
        out.insert(
            util::key(&i),
            Stream {
                pre,
                base,
                start,
                end,
                stride,
                rows,
            },
        );
    }
    out
}

/// A read `base[idx[j]]` of an inner counted loop ([`inner_gathers`]).
struct GatherSite<'ctx> {
    /// The loop's preheader (see [`counted_loop`]).
    pre: BasicBlock<'ctx>,
    /// The gathered array.
    base: BasicValueEnum<'ctx>,
    /// The index array (`idx`, indexed by the loop's `j`).
    idx: BasicValueEnum<'ctx>,
    /// Bytes per index: 4 (`i32`, sign-extended) or 8 (`i64`).
    idx_bytes: u64,
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
    /// Bytes per index step (the gathered array's element size).
    scale: u64,
}

/// Reads `gep T, base, idx[j]` (the index sign-extended from `i32`, or an
/// `i64`) of a one-block counted loop over `j` ([`counted_loop`]), with
/// `base` and the index array defined outside the loop and `idx[j]` loaded
/// in it (`x[col[j]]` of a CSR row). The read executes once per iteration, at
/// the address `base + idx[j] * sizeof(T)` for `j` from `S` to `E`, so one
/// `weft_inspect_gather` of `idx + S` over `E - S` indices before the loop
/// reports exactly its reads, in iteration `k` (the reads of one iteration
/// may be reported in any order among themselves). `eligible` says which
/// reads may move (see [`make_inspector_with`]); not the parallel loop itself.
fn inner_gathers<'ctx>(
    ops: &[(InstructionValue<'ctx>, BasicValueEnum<'ctx>, u64, bool)],
    eligible: &dyn Fn(&InstructionValue<'ctx>) -> bool,
    td: &inkwell::targets::TargetData,
    k: IntValue<'ctx>,
) -> HashMap<util::ValueKey, GatherSite<'ctx>> {
    use InstructionOpcode as O;
    let mut out = HashMap::new();
    let mut preds = None;
    let in_block = |v: BasicValueEnum<'ctx>, h: BasicBlock<'ctx>, op: O| {
        util::as_instruction(v).filter(|x| x.get_opcode() == op && x.get_parent() == Some(h))
    };
    for &(i, p, size, w) in ops {
        if w || size == 0 || i.get_opcode() != O::Load || !eligible(&i) {
            continue;
        }
        let Some(h) = i.get_parent() else { continue };
        if k.as_instruction().and_then(|d| d.get_parent()) == Some(h) {
            continue;
        }
        // p = gep T, base, ix with base outside the loop.
        let Some((base, ix, scale)) = two_operand_gep(p, td) else {
            continue;
        };
        if !defined_outside(base, h) {
            continue;
        }
        // ix = sext (load i32 q) or load i64 q, in the loop.
        let (load, idx_bytes) = match in_block(ix, h, O::SExt) {
            Some(x) => match util::value_operand(x, 0).and_then(|v| in_block(v, h, O::Load)) {
                Some(l) => (l, 4),
                None => continue,
            },
            None => match in_block(ix, h, O::Load) {
                Some(l) => (l, 8),
                None => continue,
            },
        };
        let width = util::basic_type_of(load)
            .filter(|t| t.is_int_type())
            .map(|t| t.into_int_type().get_bit_width());
        if width != Some(idx_bytes as u32 * 8) || !ix.is_int_value() {
            continue;
        }
        if ix.into_int_value().get_type().get_bit_width() != 64 {
            continue;
        }
        // q = gep Ti, idx, j with idx outside the loop and j its counter.
        let Some(q) = util::value_operand(load, 0) else {
            continue;
        };
        let Some((idx, j, stride)) = two_operand_gep(q, td) else {
            continue;
        };
        if stride != idx_bytes || !defined_outside(idx, h) {
            continue;
        }
        let Some((pre, start, end)) = counted_loop(h, j, &mut preds) else {
            continue;
        };
        out.insert(
            util::key(&i),
            GatherSite {
                pre,
                base,
                idx,
                idx_bytes,
                start,
                end,
                scale,
            },
        );
    }
    out
}

/// Whether `v` is not an instruction of block `h` (a constant, an argument,
/// or defined in another block).
fn defined_outside<'ctx>(v: BasicValueEnum<'ctx>, h: BasicBlock<'ctx>) -> bool {
    util::as_instruction(v).map_or(true, |i| i.get_parent() != Some(h))
}

/// `p = getelementptr T, base, ix` with one index, as `(base, ix, alloc size of T)`.
fn two_operand_gep<'ctx>(
    p: BasicValueEnum<'ctx>,
    td: &inkwell::targets::TargetData,
) -> Option<(BasicValueEnum<'ctx>, BasicValueEnum<'ctx>, u64)> {
    use inkwell::llvm_sys::core::{LLVMGetGEPSourceElementType, LLVMGetNumOperands};
    use inkwell::llvm_sys::target::LLVMABISizeOfType;
    let gep =
        util::as_instruction(p).filter(|g| g.get_opcode() == InstructionOpcode::GetElementPtr)?;
    let r = gep.as_value_ref();
    // SAFETY: `r` is a live GEP instruction; its source element type is sized.
    let (two, size) = unsafe {
        (
            LLVMGetNumOperands(r) == 2,
            LLVMABISizeOfType(td.as_mut_ptr(), LLVMGetGEPSourceElementType(r)),
        )
    };
    let (base, ix) = (util::value_operand(gep, 0)?, util::value_operand(gep, 1)?);
    two.then_some((base, ix, size))
}

/// The counted loop of `h` over `j`, as `(preheader, S, E)`: `h` is a one-block
/// loop `for (j = S; ; ) { ..; if (++j == E) break; }` (LLVM's rotated form of
/// `for (j = S; j < E; j++)`, `j` a phi of `h`), `S` and `E` defined outside
/// it, entered only through a preheader that branches to nothing else. Such a
/// loop runs `E - S` times whenever it is entered (at least once, stepping `j`
/// by one up to `E`), and every instruction of `h` runs in each iteration.
/// `preds`: the function's predecessor lists, made on first use.
fn counted_loop<'ctx>(
    h: BasicBlock<'ctx>,
    j: BasicValueEnum<'ctx>,
    preds: &mut Option<HashMap<usize, Vec<BasicBlock<'ctx>>>>,
) -> Option<(BasicBlock<'ctx>, IntValue<'ctx>, IntValue<'ctx>)> {
    use InstructionOpcode as O;
    if !j.is_int_value() || j.into_int_value().get_type().get_bit_width() != 64 {
        return None;
    }
    // j = phi [S, pre], [j + 1, h] in h.
    let phi = util::as_instruction(j)
        .filter(|x| x.get_opcode() == O::Phi && x.get_parent() == Some(h))
        .and_then(|x| inkwell::values::PhiValue::try_from(x).ok())?;
    if phi.count_incoming() != 2 {
        return None;
    }
    let (Some((v0, b0)), Some((v1, b1))) = (phi.get_incoming(0), phi.get_incoming(1)) else {
        return None;
    };
    let ((start, pre), (next, latch)) = if b1 == h {
        ((v0, b0), (v1, b1))
    } else {
        ((v1, b1), (v0, b0))
    };
    if latch != h || pre == h || !defined_outside(start, h) {
        return None;
    }
    let is_inc = util::as_instruction(next).is_some_and(|a| {
        let ops = util::value_operands(a);
        a.get_opcode() == O::Add
            && a.get_parent() == Some(h)
            && ops.len() == 2
            && ops.iter().any(|o| util::key(o) == util::key(&j))
            && ops
                .iter()
                .any(|o| weft_frontend::ir::const_int(*o) == Some(1))
    });
    if !is_inc {
        return None;
    }
    // h ends with `br (icmp eq next, E), exit, h` or `br (icmp ne next, E), h, exit`.
    let (c, t, f) = h.get_terminator().and_then(util::cond_branch)?;
    let cmp = util::as_instruction(c).filter(|x| x.get_opcode() == O::ICmp)?;
    let ops2 = util::value_operands(cmp);
    let end = match ops2.as_slice() {
        [a, e] if util::key(a) == util::key(&next) => *e,
        [e, a] if util::key(a) == util::key(&next) => *e,
        _ => return None,
    };
    let loops = match cmp.get_icmp_predicate() {
        Some(IntPredicate::EQ) => f == h && t != h,
        Some(IntPredicate::NE) => t == h && f != h,
        _ => false,
    };
    if !loops || !defined_outside(end, h) || !end.is_int_value() || !start.is_int_value() {
        return None;
    }
    // The preheader only enters the loop, which has no other entry.
    let pre_ok = pre
        .get_terminator()
        .is_some_and(|term| util::successors(term) == vec![h]);
    let entries = preds
        .get_or_insert_with(|| util::predecessors(h.get_parent().expect("block in a function")))
        .get(&util::bkey(h))
        .map_or(0, Vec::len);
    if !pre_ok || entries != 2 {
        return None;
    }
    Some((pre, start.into_int_value(), end.into_int_value()))
}

/// Role of an access in [`coalesced_runs`].
#[derive(Clone, Copy, Debug)]
enum Run<'ctx> {
    /// The first access of a run (in block order): reports the run's bytes
    /// `[base + offset, base + offset + size)`.
    Leader {
        base: BasicValueEnum<'ctx>,
        offset: i64,
        size: u64,
    },
    /// Covered by its run's leader: no report of its own.
    Covered,
}

/// `p` as (base, constant byte offset): strips getelementptrs with a single
/// constant index (`gep T, base, C` = `base + C * alloc_size(T)`, e.g. the
/// `gep i8, %row, 8` of `a[3*i+1]` next to `a[3*i]`).
fn const_offset_base<'ctx>(
    mut p: BasicValueEnum<'ctx>,
    td: &inkwell::targets::TargetData,
) -> (BasicValueEnum<'ctx>, i64) {
    use inkwell::llvm_sys::core::{
        LLVMConstIntGetSExtValue, LLVMGetGEPSourceElementType, LLVMGetNumOperands, LLVMGetOperand,
        LLVMIsAConstantInt,
    };
    use inkwell::llvm_sys::target::LLVMABISizeOfType;
    let mut offset = 0i64;
    for _ in 0..16 {
        let Some(i) = util::as_instruction(p) else {
            break;
        };
        if i.get_opcode() != InstructionOpcode::GetElementPtr {
            break;
        }
        let r = i.as_value_ref();
        // SAFETY: `r` is a live GEP instruction: 2 operands are (pointer,
        // index); its source element type is a sized type.
        let step = unsafe {
            if LLVMGetNumOperands(r) != 2 || LLVMIsAConstantInt(LLVMGetOperand(r, 1)).is_null() {
                break;
            }
            let c = LLVMConstIntGetSExtValue(LLVMGetOperand(r, 1));
            let size = LLVMABISizeOfType(td.as_mut_ptr(), LLVMGetGEPSourceElementType(r));
            c.checked_mul(size as i64)
        };
        let Some(base) = util::value_operand(i, 0) else {
            break;
        };
        match step.and_then(|s| offset.checked_add(s)) {
            Some(o) => offset = o,
            None => break,
        }
        p = base;
    }
    (p, offset)
}

/// Runs of unchecked accesses to coalesce: per block and base pointer
/// ([`const_offset_base`]), the accesses sorted by offset and cut where the
/// next one starts past the bytes covered so far; every run of two or more
/// accesses covers one contiguous byte range, so its lines, and the bank
/// maps, are exactly those of reporting each access. The leader is the
/// run's first access in block order (the base dominates it: every access
/// of the run computes its address from the base).
fn coalesced_runs<'ctx>(
    ops: &[(InstructionValue<'ctx>, BasicValueEnum<'ctx>, u64, bool)],
    unchecked: &dyn Fn(&InstructionValue<'ctx>, bool) -> bool,
    td: &inkwell::targets::TargetData,
) -> HashMap<util::ValueKey, Run<'ctx>> {
    // (block, base) -> (base, [(offset, size, position in ops)])
    type Group<'ctx> = (BasicValueEnum<'ctx>, Vec<(i64, u64, usize)>);
    let mut groups: HashMap<(usize, util::ValueKey), Group<'ctx>> = HashMap::new();
    for (n, &(i, p, size, w)) in ops.iter().enumerate() {
        if size == 0 || !unchecked(&i, w) {
            continue;
        }
        let Some(bb) = i.get_parent() else { continue };
        let (base, off) = const_offset_base(p, td);
        groups
            .entry((util::bkey(bb), util::key(&base)))
            .or_insert_with(|| (base, Vec::new()))
            .1
            .push((off, size, n));
    }
    let mut out = HashMap::new();
    for (base, mut accs) in groups.into_values() {
        accs.sort_unstable();
        let mut start = 0;
        while start < accs.len() {
            let (lo, mut end) = (accs[start].0, accs[start].0 + accs[start].1 as i64);
            let mut stop = start + 1;
            while stop < accs.len() && accs[stop].0 <= end {
                end = end.max(accs[stop].0 + accs[stop].1 as i64);
                stop += 1;
            }
            let run = &accs[start..stop];
            if run.len() > 1 {
                let lead = run.iter().map(|a| a.2).min().unwrap_or(run[0].2);
                for a in run {
                    let role = if a.2 == lead {
                        Run::Leader {
                            base,
                            offset: lo,
                            size: (end - lo) as u64,
                        }
                    } else {
                        Run::Covered
                    };
                    out.insert(util::key(&ops[a.2].0), role);
                }
            }
            start = stop;
        }
    }
    out
}

/// The loads of loop `l` from arrays the loop does not write (the frontend
/// proves their base distinct from every store's): they cannot take part in
/// a slab conflict.
fn unchecked_loads(fa: &FunctionAnalysis<'_>, l: LoopId) -> HashSet<util::ValueKey> {
    let stores: Vec<_> = fa
        .accesses_within(l)
        .filter(|a| a.kind == AccessKind::Store)
        .collect();
    fa.accesses_within(l)
        .filter(|a| {
            a.kind == AccessKind::Load
                && stores
                    .iter()
                    .all(|s| alias(&a.base, &s.base) == Alias::Distinct)
        })
        .map(|a| util::key(&a.inst))
        .collect()
}

/// Whether `i` reports an access (a call of `weft_inspect_access` or of the
/// wrappers of [`LineDedup`]).
fn is_report_call(i: InstructionValue<'_>) -> bool {
    i.get_opcode() == InstructionOpcode::Call
        && matches!(
            util::callee_name(i).as_deref(),
            Some(n) if n == RtFn::InspectAccess.symbol()
                || n == LineDedup::REPORT
                || n == LineDedup::CHECKED
                || n == GATHER_WRAPPER
                || n.starts_with(ROWS_WRAPPER)
        )
}

/// Line deduplication of unchecked reports (accesses that cannot conflict,
/// so they only feed the bank maps, kept per "line": the largest aligned
/// block that lies in one memory bank, 2 KB on `table5.2`, or the cache line
/// under a miss predictor; the runtime decides): each report site keeps the
/// line (`addr >> shift`, `shift` from `weft_inspect_line_shift` at inspector
/// entry) it last reported, and skips an access that lies wholly inside that
/// line. The lines are forgotten at the top of every
/// iteration `k` that is not in the inline path's current slab (every
/// iteration when the runtime disabled that path), so every slab still sees
/// every line its iterations touch and the bank maps are exactly those of
/// reporting every access ([`LineDedup::finish`]). The check lives in an
/// `alwaysinline` wrapper ([`LineDedup::REPORT`]); after inlining, SROA
/// keeps the lines in registers, so a skipped access costs a shift and two
/// compares instead of a runtime call (SpMV rows report each line of `val`,
/// `col` and `x` once). Eight lines per site, direct-mapped, were tried for
/// the bands of `x` a stencil row visits: gmres reported 349k instead of 643k
/// accesses per inspection, but the table lookups cost what the reports
/// saved (1.16 against 1.21 ms; minife 1.12 against 1.03 ms), so one line it
/// is. Tried again with 2 KB bank blocks and stream ranges, as a victim table
/// of 4 or 8 blocks per site consulted only when the last block misses
/// (tagged with a slab generation): reports per inspection fell from 375k to
/// 122k (4) and 12k (8) on gmres and from 131k to 12k on minife, but the
/// inspection times stayed within the run-to-run spread (9 interleaved runs:
/// minimums 0.79, 0.76, 0.78 ms on gmres; 0.58, 0.56, 0.55 ms on minife),
/// since what is left is the walk of the loop itself.
///
/// An access that is not skipped and touches at most two lines is recorded
/// inline (the runtime's `weft_inspect_fast_t`, [`fast`]): the wrapper looks
/// its lines' banks up in the runtime's bank table and sets their bits in
/// the current slab's bank-map row, and counts the access and its lines.
/// The state lives in two entry-block allocas: `weft.fast.cur`, which only
/// the wrappers load and store (SROA turns it into registers), and
/// `weft.fast`, which the runtime fills when the iteration leaves the
/// current slab (`weft_inspect_fast`, about once per slab) and which is
/// copied into the first. The counts reach the runtime with each refill and
/// at every return of the inspector ([`LineDedup::FLUSH`]). When the runtime
/// disables the inline path (miss predictor, a bank mapping without table,
/// affine nests) and for longer accesses, the wrapper calls
/// `weft_inspect_range`. Checked accesses go through a second wrapper,
/// [`LineDedup::CHECKED`], which shares the state (and so hands the record
/// cursor back with the counts at every runtime call that takes it).
struct LineDedup<'m, 'ctx> {
    /// The module (a reference: `Module::clone` copies the whole module).
    module: &'m Module<'ctx>,
    f: FunctionValue<'ctx>,
    k: IntValue<'ctx>,
    h: BasicValueEnum<'ctx>,
    shift: IntValue<'ctx>,
    wrapper: FunctionValue<'ctx>,
    lines: Vec<inkwell::values::PointerValue<'ctx>>,
    /// The runtime's copy of the inline state (`weft.fast`).
    st: inkwell::values::PointerValue<'ctx>,
    /// The inspector's own copy (`weft.fast.cur`).
    cur: inkwell::values::PointerValue<'ctx>,
    /// Checked accesses reported through [`LineDedup::CHECKED`].
    checked_sites: usize,
}

/// Name of the `alwaysinline` wrapper of `weft_inspect_gather` in inspectors
/// (`void (ptr h, i64 k, ptr base, ptr idx, i64 n, ptr st, ptr cur, i64
/// scale, i32 size, i32 is_write, i32 idx_bytes)`); `instrument-trace`
/// records the index loads the runtime performs for it.
pub const GATHER_WRAPPER: &str = "weft.inspect.report_gather";

/// Prefix of the `alwaysinline` wrappers of [`LineDedup::report_rows`]
/// (`.64` or `.32`: the width of the row pointers).
pub const ROWS_WRAPPER: &str = "weft.inspect.report_rows.";

/// Field indices of `weft_inspect_fast_t` (`weft_runtime::abi::InspectFast`,
/// `#[repr(C)]`; a test checks that the LLVM struct has its layout).
mod fast {
    pub const LO: u32 = 0;
    pub const HI: u32 = 1;
    pub const ROW: u32 = 2;
    pub const TABLE: u32 = 3;
    pub const MASK: u32 = 4;
    pub const LSB: u32 = 5;
    pub const ENABLED: u32 = 7;
    pub const REPORTED: u32 = 9;
    pub const TOUCHES: u32 = 10;
    pub const RECS: u32 = 11;
    pub const RECS_END: u32 = 12;
    pub const UNIT: u32 = 13;
    pub const REC_STEP: u32 = 14;
    pub const WBITS: u32 = 15;
    pub const WGMIN: u32 = 16;
    pub const WSPAN: u32 = 17;
    pub const SLAB_END: u32 = 18;
    /// Only in the inspector's own copy: the bits of the row's word 0 set
    /// since the row was last written (banks 0..64 in a register instead of
    /// a read-modify-write of memory per access).
    pub const ACC: u32 = 19;
    /// The fields the runtime fills (copied into the inspector's copy after
    /// each call that fills them).
    pub const FILLED: [u32; 17] = [
        LO, HI, ROW, TABLE, MASK, LSB, ENABLED, REPORTED, TOUCHES, RECS, RECS_END, UNIT, REC_STEP,
        WBITS, WGMIN, WSPAN, SLAB_END,
    ];
    /// The fields the inspector hands back before such a call.
    pub const HANDED_BACK: [u32; 4] = [REPORTED, TOUCHES, RECS, RECS_END];
}

/// The LLVM type of `weft_inspect_fast_t`; with `local`, followed by the
/// inspector's accumulator of word 0 ([`fast::ACC`]).
fn fast_type(cx: inkwell::context::ContextRef<'_>, local: bool) -> inkwell::types::StructType<'_> {
    let (i64t, i32t) = (cx.i64_type(), cx.i32_type());
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let abi = [
        i64t.into(), // lo
        i64t.into(), // hi
        ptr.into(),  // row
        ptr.into(),  // table
        i64t.into(), // mask
        i32t.into(), // lsb
        i32t.into(), // shift
        i32t.into(), // enabled
        i32t.into(), // reserved
        i64t.into(), // reported
        i64t.into(), // touches
        ptr.into(),  // recs
        ptr.into(),  // recs_end
        i32t.into(), // unit
        i32t.into(), // rec_step
        ptr.into(),  // wbits
        i64t.into(), // wgmin
        i64t.into(), // wspan
        i64t.into(), // slab_end
    ];
    let acc = [i64t.into()];
    let fields: Vec<inkwell::types::BasicTypeEnum<'_>> = match local {
        true => abi.iter().chain(&acc).copied().collect(),
        false => abi.to_vec(),
    };
    cx.struct_type(&fields, false)
}

impl<'m, 'ctx> LineDedup<'m, 'ctx> {
    /// The wrapper `void (ptr h, i64 k, ptr addr, i64 size, ptr line, i64
    /// shift, ptr st, ptr cur, i1 aligned)`; `aligned`: the access is at most
    /// 16 bytes and aligned to its power-of-two size, so it lies in one line
    /// (its last byte is not looked at).
    const REPORT: &'static str = "weft.inspect.report_line";
    /// The exit wrapper `void (ptr h, ptr st, ptr cur)`: hands the inline
    /// counts to the runtime.
    const FLUSH: &'static str = "weft.inspect.fast_flush";
    /// The wrapper of checked accesses `void (ptr h, i64 k, ptr addr, i32
    /// size, i64 shift, ptr st, ptr cur, i1 aligned, i32 is_write)`
    /// ([`LineDedup::checked_wrapper`]).
    const CHECKED: &'static str = "weft.inspect.report_checked";
    /// The gather wrapper `void (ptr h, i64 k, ptr base, ptr idx, i64 n,
    /// ptr st, ptr cur, i64 scale, i32 size, i32 is_write, i32 idx_bytes)`
    /// ([`LineDedup::gather_wrapper`]).
    const GATHER: &'static str = GATHER_WRAPPER;

    fn new(
        module: &'m Module<'ctx>,
        f: FunctionValue<'ctx>,
        k: IntValue<'ctx>,
        h: BasicValueEnum<'ctx>,
    ) -> Result<Self> {
        let cx = module.get_context();
        let entry = f
            .get_first_basic_block()
            .ok_or_else(|| PassError::Llvm("inspector without entry block".into()))?;
        let term = entry
            .get_terminator()
            .ok_or_else(|| PassError::Llvm("inspector entry without terminator".into()))?;
        let b = cx.create_builder();
        b.position_before(&term);
        // The entry block only stores and calls (its loads are the live-ins,
        // see `inspector_inputs`); the header loads the shift. A failing
        // query leaves 0: every access is reported.
        let i32t = cx.i32_type();
        let slot = outline::entry_alloca(module, &b, i32t.into(), "weft.line.shift")?;
        b.build_store(slot, i32t.const_zero())?;
        let q = rtabi::declare(module, RtFn::InspectLineShift)?;
        b.build_call(q, &[h.into(), slot.into()], "")?;
        // The inline state: no slab yet (an empty range) but enabled, so the
        // first access asks the runtime; the runtime's copy starts disabled,
        // which is what a failed refill leaves.
        let (sty, lty) = (fast_type(cx, false), fast_type(cx, true));
        let st = outline::entry_alloca(module, &b, sty.into(), "weft.fast")?;
        let cur = outline::entry_alloca(module, &b, lty.into(), "weft.fast.cur")?;
        b.build_store(st, sty.const_zero())?;
        let init: Vec<BasicValueEnum<'ctx>> = lty
            .get_field_types()
            .iter()
            .enumerate()
            .map(|(j, t)| match j as u32 {
                fast::ENABLED => i32t.const_int(1, false).into(),
                _ => t.const_zero(),
            })
            .collect();
        b.build_store(cur, lty.const_named_struct(&init))?;
        let header = Self::header(k)?;
        let first = util::instructions(header)
            .into_iter()
            .find(|i| i.get_opcode() != InstructionOpcode::Phi)
            .ok_or_else(|| PassError::Llvm("inspector header without terminator".into()))?;
        b.position_before(&first);
        let shift = b.build_load(i32t, slot, "weft.shift")?.into_int_value();
        let shift = b.build_int_z_extend(shift, cx.i64_type(), "")?;
        Ok(LineDedup {
            module,
            f,
            k,
            h,
            shift,
            wrapper: Self::wrapper(module)?,
            lines: Vec::new(),
            st,
            cur,
            checked_sites: 0,
        })
    }

    /// The block defining the iteration number `k` (the loop header).
    fn header(k: IntValue<'ctx>) -> Result<BasicBlock<'ctx>> {
        k.as_instruction()
            .and_then(|i| i.get_parent())
            .ok_or_else(|| {
                PassError::Llvm("inspector iteration number is not an instruction".into())
            })
    }

    /// At `b`'s position: whether `lo <= k < hi` (signed), named `name`.
    fn in_range(
        b: &inkwell::builder::Builder<'ctx>,
        k: IntValue<'ctx>,
        lo: IntValue<'ctx>,
        hi: IntValue<'ctx>,
        name: &str,
    ) -> Result<IntValue<'ctx>> {
        Ok(b.build_and(
            b.build_int_compare(IntPredicate::SGE, k, lo, "")?,
            b.build_int_compare(IntPredicate::SLT, k, hi, "")?,
            name,
        )?)
    }

    /// A new `alwaysinline` internal function `name` of type `fty`.
    fn always_inline(
        module: &Module<'ctx>,
        name: &str,
        fty: inkwell::types::FunctionType<'ctx>,
    ) -> FunctionValue<'ctx> {
        let cx = module.get_context();
        let w = module.add_function(name, fty, Some(Linkage::Internal));
        let kind = inkwell::attributes::Attribute::get_named_enum_kind_id("alwaysinline");
        w.add_attribute(
            inkwell::attributes::AttributeLoc::Function,
            cx.create_enum_attribute(kind, 0),
        );
        w
    }

    /// Declares (once per module) and returns the wrapper.
    fn wrapper(module: &Module<'ctx>) -> Result<FunctionValue<'ctx>> {
        if let Some(w) = module.get_function(Self::REPORT) {
            return Ok(w);
        }
        let cx = module.get_context();
        let i64t = cx.i64_type();
        let ptr = cx.ptr_type(inkwell::AddressSpace::default());
        let fty = cx.void_type().fn_type(
            &[
                ptr.into(),
                i64t.into(),
                ptr.into(),
                i64t.into(),
                ptr.into(),
                i64t.into(),
                ptr.into(),
                ptr.into(),
                cx.bool_type().into(),
            ],
            false,
        );
        let w = Self::always_inline(module, Self::REPORT, fty);
        let p = |i: u32| w.get_nth_param(i).expect("wrapper parameter");
        let (h, k, addr, size, line, shift) = (p(0), p(1), p(2), p(3), p(4), p(5));
        let (st, cur) = (p(6).into_pointer_value(), p(7).into_pointer_value());
        // A constant at every call: the access cannot cross a line.
        let aligned = p(8).into_int_value();
        let (k, size, line, shift) = (
            k.into_int_value(),
            size.into_int_value(),
            line.into_pointer_value(),
            shift.into_int_value(),
        );
        let b = cx.create_builder();
        let entry = cx.append_basic_block(w, "entry");
        let report = cx.append_basic_block(w, "report");
        let check = cx.append_basic_block(w, "check");
        let inline = cx.append_basic_block(w, "inline");
        let slow = cx.append_basic_block(w, "slow");
        let done = cx.append_basic_block(w, "done");
        b.position_at_end(entry);
        let (a, end, first, last) = Self::access_lines(&b, addr, size, aligned, shift)?;
        let prev = b.build_load(i64t, line, "prev")?.into_int_value();
        let same = b.build_and(
            b.build_int_compare(IntPredicate::EQ, first, prev, "")?,
            b.build_int_compare(IntPredicate::EQ, last, prev, "")?,
            "same",
        )?;
        b.build_conditional_branch(same, done, report)?;
        // Not the site's last line: record it, inline when it touches at most
        // two lines and the runtime enabled the inline path.
        b.position_at_end(report);
        b.build_store(line, first)?;
        let (extra, go) = Self::few_lines_inline(&b, cur, first, last)?;
        b.build_conditional_branch(go, check, slow)?;
        // `k` in the current slab (the slab changes about every slab_iters
        // iterations)?
        b.position_at_end(check);
        Self::slab_or_refresh(module, w, &b, (h, st, cur), k, (inline, slow))?;
        b.position_at_end(inline);
        Self::mark(module, w, &b, cur, (a, end, extra), done)?;
        b.position_at_end(slow);
        // Unchecked bytes, without the 4 GB limit of `weft_inspect_access`
        // (a stream's range, [`inner_streams`], may be longer).
        let range = rtabi::declare(module, RtFn::InspectRange)?;
        let args: [BasicMetadataValueEnum<'ctx>; 4] =
            [h.into(), k.into(), addr.into(), size.into()];
        b.build_call(range, &args, "")?;
        b.build_unconditional_branch(done)?;
        b.position_at_end(done);
        b.build_return(None)?;
        Ok(w)
    }

    /// Declares (once per module) and returns the wrapper of checked
    /// accesses ([`LineDedup::CHECKED`]): an access of at most two lines in
    /// the current slab, while the runtime hands out records, is recorded
    /// inline (its bank bits and counts as in [`LineDedup::wrapper`], and
    /// its 16-byte record: a read's at the cursor, a write's below the end
    /// of the free records, and only while the recorder keeps records);
    /// every other checked access hands the state back and calls
    /// `weft_inspect_checked`, which records it and refills the state.
    fn checked_wrapper(module: &Module<'ctx>) -> Result<FunctionValue<'ctx>> {
        if let Some(w) = module.get_function(Self::CHECKED) {
            return Ok(w);
        }
        let cx = module.get_context();
        let (i64t, i32t, i8t) = (cx.i64_type(), cx.i32_type(), cx.i8_type());
        let ptr = cx.ptr_type(inkwell::AddressSpace::default());
        let lty = fast_type(cx, true);
        let fty = cx.void_type().fn_type(
            &[
                ptr.into(),
                i64t.into(),
                ptr.into(),
                i32t.into(),
                i64t.into(),
                ptr.into(),
                ptr.into(),
                cx.bool_type().into(),
                i32t.into(),
            ],
            false,
        );
        let w = Self::always_inline(module, Self::CHECKED, fty);
        let p = |i: u32| w.get_nth_param(i).expect("wrapper parameter");
        let (h, k, addr) = (p(0), p(1).into_int_value(), p(2));
        let (size, shift) = (p(3).into_int_value(), p(4).into_int_value());
        let (st, cur) = (p(5).into_pointer_value(), p(6).into_pointer_value());
        // Constants at every call: the access cannot cross a line; 0 = read.
        let (aligned, is_write) = (p(7).into_int_value(), p(8).into_int_value());
        let b = cx.create_builder();
        let entry = cx.append_basic_block(w, "entry");
        let check = cx.append_basic_block(w, "check");
        let cursor = cx.append_basic_block(w, "cursor");
        let inline = cx.append_basic_block(w, "inline");
        let slow = cx.append_basic_block(w, "slow");
        let done = cx.append_basic_block(w, "done");
        b.position_at_end(entry);
        let gcur = |j: u32| b.build_struct_gep(lty, cur, j, "");
        let size64 = b.build_int_z_extend(size, i64t, "")?;
        let (a, end, first, last) = Self::access_lines(&b, addr, size64, aligned, shift)?;
        let (extra, go) = Self::few_lines_inline(&b, cur, first, last)?;
        let read = b.build_int_compare(IntPredicate::EQ, is_write, i32t.const_zero(), "read")?;
        b.build_conditional_branch(go, check, slow)?;
        b.position_at_end(check);
        Self::slab_or_refresh(module, w, &b, (h, st, cur), k, (cursor, slow))?;
        // A free record? (A write also needs a recorder that keeps records:
        // before its first write a lazy one must see the write itself.)
        b.position_at_end(cursor);
        let rp = b
            .build_load(ptr, gcur(fast::RECS)?, "rec")?
            .into_pointer_value();
        let re = b
            .build_load(ptr, gcur(fast::RECS_END)?, "rec.end")?
            .into_pointer_value();
        let step = b
            .build_load(i32t, gcur(fast::REC_STEP)?, "step")?
            .into_int_value();
        let free = b.build_int_compare(IntPredicate::ULT, rp, re, "free")?;
        let keeps = b.build_int_compare(IntPredicate::NE, step, i32t.const_zero(), "")?;
        let ok = b.build_and(free, b.build_or(read, keeps, "")?, "")?;
        b.build_conditional_branch(ok, inline, slow)?;
        // Writes first: a read that touches no written granule (4 bytes) is
        // not recorded. A branch, weighted towards skipping, not a select:
        // the cursor must not wait for the bitmap load (a loop-carried chain
        // per read).
        b.position_at_end(inline);
        let filter = cx.append_basic_block(w, "filter");
        let record = cx.append_basic_block(w, "record");
        let marked = cx.append_basic_block(w, "marked");
        // (No filter, `wspan = 0`: straight to the record.)
        let wspan = b
            .build_load(i64t, gcur(fast::WSPAN)?, "wspan")?
            .into_int_value();
        let on = b.build_int_compare(IntPredicate::NE, wspan, i64t.const_zero(), "")?;
        b.build_conditional_branch(b.build_and(read, on, "")?, filter, record)?;
        b.position_at_end(filter);
        let skip = Self::unwritten_read(&b, lty, cur, (a, size64, aligned), wspan)?;
        let br = b.build_conditional_branch(skip, marked, record)?;
        let weights = cx.metadata_node(&[
            cx.metadata_string("branch_weights").into(),
            i32t.const_int(1000, false).into(),
            i32t.const_int(1, false).into(),
        ]);
        br.set_metadata(weights, cx.get_kind_id("prof"))
            .map_err(|e| PassError::Llvm(format!("branch weights: {e}")))?;
        // The record (address, slab, size): a read's at the cursor, which
        // advances by `step`; a write's just below the end, which moves down
        // (`is_write` is a constant at every call, so the selects fold).
        // Then the bank bits and counts.
        b.position_at_end(record);
        // SAFETY: `rp < re`, so the record below `re` is a free one.
        let below =
            unsafe { b.build_gep(i8t, re, &[i64t.const_int(-16i64 as u64, true)], "rec.w")? };
        let at = b
            .build_select(read, rp, below, "rec.at")?
            .into_pointer_value();
        let size_w = b.build_or(size, i32t.const_int(1 << 31, false), "")?;
        let size_w = b.build_select(read, size, size_w, "")?;
        b.build_store(at, a)?;
        let unit = b.build_load(i32t, gcur(fast::UNIT)?, "unit")?;
        // SAFETY: bytes 8 and 12 of the 16-byte record at `at`.
        let (pu, ps) = unsafe {
            (
                b.build_in_bounds_gep(i8t, at, &[i64t.const_int(8, false)], "")?,
                b.build_in_bounds_gep(i8t, at, &[i64t.const_int(12, false)], "")?,
            )
        };
        b.build_store(pu, unit)?;
        b.build_store(ps, size_w)?;
        let step = b.build_int_z_extend(step, i64t, "")?;
        // SAFETY: at most one past the last free record (`rp < re`).
        let next = unsafe { b.build_gep(i8t, rp, &[step], "rec.next")? };
        b.build_store(gcur(fast::RECS)?, b.build_select(read, next, rp, "")?)?;
        b.build_store(gcur(fast::RECS_END)?, b.build_select(read, re, below, "")?)?;
        b.build_unconditional_branch(marked)?;
        b.position_at_end(marked);
        Self::mark(module, w, &b, cur, (a, end, extra), done)?;
        // Hand the state back; the runtime records the access and refills it.
        b.position_at_end(slow);
        Self::hand_back(module, &b, st, cur)?;
        let f = rtabi::declare(module, RtFn::InspectChecked)?;
        let args: [BasicMetadataValueEnum<'ctx>; 6] = [
            h.into(),
            st.into(),
            k.into(),
            addr.into(),
            size.into(),
            is_write.into(),
        ];
        b.build_call(f, &args, "")?;
        Self::reload(module, &b, st, cur, k)?;
        b.build_unconditional_branch(done)?;
        b.position_at_end(done);
        b.build_return(None)?;
        Ok(w)
    }

    /// At `b`'s position: whether the checked read of `size` bytes at `a`
    /// touches no granule of the state's written-granule bitmap (`wbits`,
    /// `wgmin` of `cur`, `wspan` loaded by the caller, which checked it is
    /// not 0; the runtime's rule, see `weft_inspect_fast_t`): accesses of up to 32
    /// granules that start in the bitmap's span are decided, others are
    /// kept. `aligned` (a constant at every call): the access is at most 16
    /// bytes, aligned to its power-of-two size; its granules then lie in
    /// one word of the bitmap (whose first granule is a multiple of 64), so
    /// one load and a constant mask decide.
    fn unwritten_read(
        b: &inkwell::builder::Builder<'ctx>,
        lty: inkwell::types::StructType<'ctx>,
        cur: inkwell::values::PointerValue<'ctx>,
        (a, size, aligned): (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
        wspan: IntValue<'ctx>,
    ) -> Result<IntValue<'ctx>> {
        let i64t = a.get_type();
        let cx = i64t.get_context();
        let ptr = cx.ptr_type(inkwell::AddressSpace::default());
        let c = |v: u64| i64t.const_int(v, false);
        let gcur = |j: u32| b.build_struct_gep(lty, cur, j, "");
        let g0 = b.build_right_shift(a, c(2), false, "g0")?;
        let last = b.build_int_add(a, b.build_int_sub(size, c(1), "")?, "")?;
        let g1 = b.build_right_shift(last, c(2), false, "")?;
        let n = b.build_int_sub(g1, g0, "")?;
        // aligned: (size - 1) / 4 more granules (folds: `size` is a constant)
        let n_al = b.build_right_shift(b.build_int_sub(size, c(1), "")?, c(2), false, "")?;
        let n = b.build_select(aligned, n_al, n, "g.n")?.into_int_value();
        let wgmin = b.build_load(i64t, gcur(fast::WGMIN)?, "")?.into_int_value();
        let wbits = b
            .build_load(ptr, gcur(fast::WBITS)?, "wbits")?
            .into_pointer_value();
        let gi = b.build_int_sub(g0, wgmin, "g.i")?;
        let in_span = b.build_int_compare(IntPredicate::ULT, gi, wspan, "")?;
        let small = b.build_int_compare(IntPredicate::ULT, n, c(32), "")?;
        // (For an aligned access `n` is at most 3 and folds.)
        let small = b.build_or(aligned, small, "")?;
        let decided = b.build_and(in_span, small, "g.ok")?;
        let gi = b.build_select(decided, gi, c(0), "")?.into_int_value();
        let n = b.build_select(decided, n, c(0), "")?.into_int_value();
        let word = b.build_right_shift(gi, c(6), false, "")?;
        let bit = b.build_and(gi, c(63), "")?;
        // SAFETY: `word` and `word + 1` are within the bitmap (`gi < wspan`,
        // or 0; the words go one past the last bit's word).
        let (pw0, pw1) = unsafe {
            let pw0 = b.build_in_bounds_gep(i64t, wbits, &[word], "")?;
            (pw0, b.build_in_bounds_gep(i64t, pw0, &[c(1)], "")?)
        };
        let w0 = b.build_load(i64t, pw0, "")?.into_int_value();
        let mask = b.build_int_sub(b.build_left_shift(c(2), n, "")?, c(1), "")?;
        // Aligned: bits gi..=gi+n of word 0.
        let one = b.build_and(w0, b.build_left_shift(mask, bit, "")?, "")?;
        // Otherwise bits gi.. of the span: word 0 shifted down, word 1's
        // low bits above.
        let w1 = b.build_load(i64t, pw1, "")?.into_int_value();
        let lo = b.build_right_shift(w0, bit, false, "")?;
        let up = b.build_left_shift(w1, c(1), "")?;
        let up = b.build_left_shift(up, b.build_int_sub(c(63), bit, "")?, "")?;
        let window = b.build_or(lo, up, "window")?;
        let two = b.build_and(window, mask, "")?;
        let touched = b.build_select(aligned, one, two, "")?.into_int_value();
        let clear = b.build_int_compare(IntPredicate::EQ, touched, c(0), "")?;
        Ok(b.build_and(decided, clear, "skip")?)
    }

    /// At `b`'s position (a block of `w`): branches to `hit` when `k` lies
    /// in the current slab; else hands the state back, asks the runtime for
    /// the slab of `k` (`weft_inspect_fast`) and branches to `hit` when the
    /// inline path is enabled and `k` lies in the new slab, to `miss`
    /// otherwise.
    fn slab_or_refresh(
        module: &Module<'ctx>,
        w: FunctionValue<'ctx>,
        b: &inkwell::builder::Builder<'ctx>,
        (h, st, cur): (
            BasicValueEnum<'ctx>,
            inkwell::values::PointerValue<'ctx>,
            inkwell::values::PointerValue<'ctx>,
        ),
        k: IntValue<'ctx>,
        (hit, miss): (BasicBlock<'ctx>, BasicBlock<'ctx>),
    ) -> Result<()> {
        let cx = module.get_context();
        let refresh = match b.get_insert_block() {
            Some(here) => cx.insert_basic_block_after(here, "refresh"),
            None => cx.append_basic_block(w, "refresh"),
        };
        let in_slab = Self::in_current_slab(b, cur, k)?;
        b.build_conditional_branch(in_slab, hit, refresh)?;
        b.position_at_end(refresh);
        Self::hand_back(module, b, st, cur)?;
        let refill = rtabi::declare(module, RtFn::InspectFast)?;
        b.build_call(refill, &[h.into(), k.into(), st.into()], "")?;
        let ok = Self::reload(module, b, st, cur, k)?;
        b.build_conditional_branch(ok, hit, miss)?;
        Ok(())
    }

    /// At `b`'s position: the access of `size` bytes (`i64`) at `addr` as
    /// `(a, end, first, last)`: its first byte's address, the address whose
    /// line ends it (`a` itself when `aligned`: at most 16 bytes aligned to
    /// their size lie in one line), and the lines of both (`>> shift`).
    fn access_lines(
        b: &inkwell::builder::Builder<'ctx>,
        addr: BasicValueEnum<'ctx>,
        size: IntValue<'ctx>,
        aligned: IntValue<'ctx>,
        shift: IntValue<'ctx>,
    ) -> Result<(
        IntValue<'ctx>,
        IntValue<'ctx>,
        IntValue<'ctx>,
        IntValue<'ctx>,
    )> {
        let i64t = size.get_type();
        let a = b.build_ptr_to_int(addr.into_pointer_value(), i64t, "a")?;
        let first = b.build_right_shift(a, shift, false, "first")?;
        let end = b.build_int_add(a, b.build_int_sub(size, i64t.const_int(1, false), "")?, "")?;
        let end = b.build_select(aligned, a, end, "end")?.into_int_value();
        let last = b.build_right_shift(end, shift, false, "last")?;
        Ok((a, end, first, last))
    }

    /// At `b`'s position: the lines an access spans beyond its first
    /// (`last - first`) and whether the inline path takes it: at most two
    /// lines, and the runtime enabled the path (`cur`'s `enabled`).
    fn few_lines_inline(
        b: &inkwell::builder::Builder<'ctx>,
        cur: inkwell::values::PointerValue<'ctx>,
        first: IntValue<'ctx>,
        last: IntValue<'ctx>,
    ) -> Result<(IntValue<'ctx>, IntValue<'ctx>)> {
        let cx = first.get_type().get_context();
        let i64t = cx.i64_type();
        let extra = b.build_int_sub(last, first, "extra")?;
        let few = b.build_int_compare(IntPredicate::ULT, extra, i64t.const_int(2, false), "")?;
        let en = Self::inline_enabled(b, cur)?;
        Ok((extra, b.build_and(few, en, "")?))
    }

    /// At `b`'s position: whether the runtime enabled the inline path
    /// (`cur`'s `enabled != 0`).
    fn inline_enabled(
        b: &inkwell::builder::Builder<'ctx>,
        cur: inkwell::values::PointerValue<'ctx>,
    ) -> Result<IntValue<'ctx>> {
        let cx = cur.get_type().get_context();
        let i32t = cx.i32_type();
        let pen = b.build_struct_gep(fast_type(cx, true), cur, fast::ENABLED, "")?;
        let en = b.build_load(i32t, pen, "enabled")?.into_int_value();
        Ok(b.build_int_compare(IntPredicate::NE, en, i32t.const_zero(), "")?)
    }

    /// At `b`'s position: whether `k` lies in the inspector's current slab
    /// (`cur`'s `[lo, hi)`).
    fn in_current_slab(
        b: &inkwell::builder::Builder<'ctx>,
        cur: inkwell::values::PointerValue<'ctx>,
        k: IntValue<'ctx>,
    ) -> Result<IntValue<'ctx>> {
        let cx = k.get_type().get_context();
        let (i64t, lty) = (cx.i64_type(), fast_type(cx, true));
        let lo = b.build_load(i64t, b.build_struct_gep(lty, cur, fast::LO, "")?, "lo")?;
        let hi = b.build_load(i64t, b.build_struct_gep(lty, cur, fast::HI, "")?, "hi")?;
        Self::in_range(b, k, lo.into_int_value(), hi.into_int_value(), "in.slab")
    }

    /// At `b`'s position, before a runtime call that takes the inline state:
    /// writes back word 0's accumulated bits and copies the counts and the
    /// record cursor into the runtime's copy `st`.
    fn hand_back(
        module: &Module<'ctx>,
        b: &inkwell::builder::Builder<'ctx>,
        st: inkwell::values::PointerValue<'ctx>,
        cur: inkwell::values::PointerValue<'ctx>,
    ) -> Result<()> {
        Self::write_back(module, b, cur)?;
        let cx = module.get_context();
        let (sty, lty) = (fast_type(cx, false), fast_type(cx, true));
        for j in fast::HANDED_BACK {
            let t = sty.get_field_type_at_index(j).expect("field");
            let v = b.build_load(t, b.build_struct_gep(lty, cur, j, "")?, "")?;
            b.build_store(b.build_struct_gep(sty, st, j, "")?, v)?;
        }
        Ok(())
    }

    /// At `b`'s position, after the runtime filled `st`: copies it into the
    /// inspector's copy `cur`; returns whether the inline path is enabled
    /// and `k` lies in the new slab.
    fn reload(
        module: &Module<'ctx>,
        b: &inkwell::builder::Builder<'ctx>,
        st: inkwell::values::PointerValue<'ctx>,
        cur: inkwell::values::PointerValue<'ctx>,
        k: IntValue<'ctx>,
    ) -> Result<IntValue<'ctx>> {
        let cx = module.get_context();
        let (sty, lty) = (fast_type(cx, false), fast_type(cx, true));
        let mut got = HashMap::new();
        for j in fast::FILLED {
            let t = sty.get_field_type_at_index(j).expect("field");
            let v = b.build_load(t, b.build_struct_gep(sty, st, j, "")?, "")?;
            b.build_store(b.build_struct_gep(lty, cur, j, "")?, v)?;
            got.insert(j, v);
        }
        let int = |j: u32| got[&j].into_int_value();
        let i32t = cx.i32_type();
        let en =
            b.build_int_compare(IntPredicate::NE, int(fast::ENABLED), i32t.const_zero(), "")?;
        let ok = Self::in_range(b, k, int(fast::LO), int(fast::HI), "in.slab")?;
        Ok(b.build_and(en, ok, "")?)
    }

    /// At `b`'s position (a block of `w`): sets the bank bits of the first
    /// and the last line of the access `(a, end, extra)` (the same twice for
    /// a one-line access; banks 0..64 into the accumulator of word 0, others
    /// straight into the row), counts the access and its `extra + 1` lines,
    /// and branches to `done`.
    fn mark(
        module: &Module<'ctx>,
        w: FunctionValue<'ctx>,
        b: &inkwell::builder::Builder<'ctx>,
        cur: inkwell::values::PointerValue<'ctx>,
        (a, end, extra): (IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>),
        done: BasicBlock<'ctx>,
    ) -> Result<()> {
        let cx = module.get_context();
        let (i64t, i32t, i16t) = (cx.i64_type(), cx.i32_type(), cx.i16_type());
        let ptr = cx.ptr_type(inkwell::AddressSpace::default());
        let lty = fast_type(cx, true);
        let word0 = cx.append_basic_block(w, "word0");
        let words = cx.append_basic_block(w, "words");
        let count = cx.append_basic_block(w, "count");
        let gcur = |j: u32| b.build_struct_gep(lty, cur, j, "");
        let table = b
            .build_load(ptr, gcur(fast::TABLE)?, "table")?
            .into_pointer_value();
        let mask = b
            .build_load(i64t, gcur(fast::MASK)?, "mask")?
            .into_int_value();
        let lsb = b
            .build_load(i32t, gcur(fast::LSB)?, "lsb")?
            .into_int_value();
        let lsb = b.build_int_z_extend(lsb, i64t, "")?;
        let mut banks = Vec::new();
        for x in [a, end] {
            let idx = b.build_and(b.build_right_shift(x, lsb, false, "")?, mask, "")?;
            // SAFETY: `idx <= mask` indexes the runtime's table of mask + 1 entries.
            let pb = unsafe { b.build_in_bounds_gep(i16t, table, &[idx], "")? };
            let bank = b.build_load(i16t, pb, "bank")?.into_int_value();
            banks.push(b.build_int_z_extend(bank, i64t, "")?);
        }
        let bit = |bank: IntValue<'ctx>| {
            let low = b.build_and(bank, i64t.const_int(63, false), "")?;
            b.build_left_shift(i64t.const_int(1, false), low, "")
        };
        let six = i64t.const_int(6, false);
        let both = b.build_or(banks[0], banks[1], "")?;
        let in_word0 = b.build_int_compare(
            IntPredicate::EQ,
            b.build_right_shift(both, six, false, "")?,
            i64t.const_zero(),
            "",
        )?;
        b.build_conditional_branch(in_word0, word0, words)?;
        // Banks 0..64 (every bank on most machines): into the accumulator.
        b.position_at_end(word0);
        let pacc = gcur(fast::ACC)?;
        let acc = b.build_load(i64t, pacc, "acc")?.into_int_value();
        let bits = b.build_or(bit(banks[0])?, bit(banks[1])?, "")?;
        b.build_store(pacc, b.build_or(acc, bits, "")?)?;
        b.build_unconditional_branch(count)?;
        // Other banks: straight into the row.
        b.position_at_end(words);
        let row = b
            .build_load(ptr, gcur(fast::ROW)?, "row")?
            .into_pointer_value();
        for &bank in &banks {
            let word = b.build_right_shift(bank, six, false, "")?;
            // SAFETY: a bank `< banks` indexes the row's words.
            let pw = unsafe { b.build_in_bounds_gep(i64t, row, &[word], "")? };
            let old = b.build_load(i64t, pw, "")?.into_int_value();
            b.build_store(pw, b.build_or(old, bit(bank)?, "")?)?;
        }
        b.build_unconditional_branch(count)?;
        b.position_at_end(count);
        let add = |j: u32, by: IntValue<'ctx>| -> Result<()> {
            let pc = gcur(j)?;
            let c = b.build_load(i64t, pc, "")?.into_int_value();
            b.build_store(pc, b.build_int_add(c, by, "")?)?;
            Ok(())
        };
        add(fast::REPORTED, i64t.const_int(1, false))?;
        add(
            fast::TOUCHES,
            b.build_int_add(extra, i64t.const_int(1, false), "")?,
        )?;
        b.build_unconditional_branch(done)?;
        Ok(())
    }

    /// At `b`'s position: ORs the accumulated bits of word 0 into the row
    /// (the row is set whenever the accumulator is not 0) and clears them.
    fn write_back(
        module: &Module<'ctx>,
        b: &inkwell::builder::Builder<'ctx>,
        cur: inkwell::values::PointerValue<'ctx>,
    ) -> Result<()> {
        let cx = module.get_context();
        let (i64t, ptr) = (cx.i64_type(), cx.ptr_type(inkwell::AddressSpace::default()));
        let lty = fast_type(cx, true);
        let here = b
            .get_insert_block()
            .ok_or_else(|| PassError::Llvm("builder not in a block".into()))?;
        let write = cx.insert_basic_block_after(here, "write.back");
        let rest = cx.insert_basic_block_after(write, "written");
        let pacc = b.build_struct_gep(lty, cur, fast::ACC, "")?;
        let acc = b.build_load(i64t, pacc, "acc")?.into_int_value();
        let any = b.build_int_compare(IntPredicate::NE, acc, i64t.const_zero(), "")?;
        b.build_conditional_branch(any, write, rest)?;
        b.position_at_end(write);
        let row = b
            .build_load(ptr, b.build_struct_gep(lty, cur, fast::ROW, "")?, "row")?
            .into_pointer_value();
        let old = b.build_load(i64t, row, "")?.into_int_value();
        b.build_store(row, b.build_or(old, acc, "")?)?;
        b.build_store(pacc, i64t.const_zero())?;
        b.build_unconditional_branch(rest)?;
        b.position_at_end(rest);
        Ok(())
    }

    /// Declares (once per module) and returns the exit wrapper: writes back
    /// word 0 and hands the counts of the inline path to the runtime when
    /// there are any.
    fn flush_wrapper(module: &Module<'ctx>) -> Result<FunctionValue<'ctx>> {
        if let Some(w) = module.get_function(Self::FLUSH) {
            return Ok(w);
        }
        let cx = module.get_context();
        let i64t = cx.i64_type();
        let ptr = cx.ptr_type(inkwell::AddressSpace::default());
        let (sty, lty) = (fast_type(cx, false), fast_type(cx, true));
        let fty = cx
            .void_type()
            .fn_type(&[ptr.into(), ptr.into(), ptr.into()], false);
        let w = Self::always_inline(module, Self::FLUSH, fty);
        let p = |i: u32| w.get_nth_param(i).expect("wrapper parameter");
        let (h, st, cur) = (p(0), p(1).into_pointer_value(), p(2).into_pointer_value());
        let b = cx.create_builder();
        let entry = cx.append_basic_block(w, "entry");
        b.position_at_end(entry);
        Self::write_back(module, &b, cur)?;
        let flush = cx.append_basic_block(w, "flush");
        let done = cx.append_basic_block(w, "done");
        let pr = b.build_struct_gep(lty, cur, fast::REPORTED, "")?;
        let pt = b.build_struct_gep(lty, cur, fast::TOUCHES, "")?;
        let r = b.build_load(i64t, pr, "reported")?.into_int_value();
        let t = b.build_load(i64t, pt, "touches")?;
        let any = b.build_int_compare(IntPredicate::NE, r, i64t.const_zero(), "")?;
        b.build_conditional_branch(any, flush, done)?;
        b.position_at_end(flush);
        b.build_store(b.build_struct_gep(sty, st, fast::REPORTED, "")?, r)?;
        b.build_store(b.build_struct_gep(sty, st, fast::TOUCHES, "")?, t)?;
        for j in [fast::RECS, fast::RECS_END] {
            let v = b.build_load(ptr, b.build_struct_gep(lty, cur, j, "")?, "")?;
            b.build_store(b.build_struct_gep(sty, st, j, "")?, v)?;
        }
        let f = rtabi::declare(module, RtFn::InspectFastFlush)?;
        b.build_call(f, &[h.into(), st.into()], "")?;
        b.build_store(pr, i64t.const_zero())?;
        b.build_store(pt, i64t.const_zero())?;
        b.build_unconditional_branch(done)?;
        b.position_at_end(done);
        b.build_return(None)?;
        Ok(w)
    }

    /// Reports the read of `size` bytes at `p` in iteration `k` at `b`'s position.
    fn report(
        &mut self,
        b: &inkwell::builder::Builder<'ctx>,
        h: BasicValueEnum<'ctx>,
        k: IntValue<'ctx>,
        p: BasicValueEnum<'ctx>,
        size: u64,
        aligned: bool,
    ) -> Result<()> {
        let size = self.module.get_context().i64_type().const_int(size, false);
        self.report_bytes(b, h, k, p, size, aligned)
    }

    /// [`Self::report`] of `size` bytes computed at run time (`i64`, at
    /// least 1).
    fn report_bytes(
        &mut self,
        b: &inkwell::builder::Builder<'ctx>,
        h: BasicValueEnum<'ctx>,
        k: IntValue<'ctx>,
        p: BasicValueEnum<'ctx>,
        size: IntValue<'ctx>,
        aligned: bool,
    ) -> Result<()> {
        let cx = self.module.get_context();
        let i64t = cx.i64_type();
        let line = outline::entry_alloca(self.module, b, i64t.into(), "weft.line")?;
        self.lines.push(line);
        let args: [BasicMetadataValueEnum<'ctx>; 9] = [
            h.into(),
            k.into(),
            p.into(),
            size.into(),
            line.into(),
            self.shift.into(),
            self.st.into(),
            self.cur.into(),
            cx.bool_type().const_int(aligned as u64, false).into(),
        ];
        b.build_call(self.wrapper, &args, "")?;
        Ok(())
    }

    /// Reports the stream of a CSR loop's row, `bytes` at `at`, in
    /// iteration `k`, and with it the streams of the rows after it that lie
    /// in the same slab, through
    /// `weft.inspect.report_rows.<bits>` (`rows`: `&P[x + 1]`, the bytes of
    /// an element of `P`, the row's end `P[x + 1]`, the streamed array and
    /// its element size; see [`Rows`]). A row already covered reports
    /// nothing. Only while the inline path holds `k`'s slab is the slab's
    /// end known; otherwise the row reports its own range, as
    /// [`LineDedup::report_bytes`] does.
    fn report_rows(
        &mut self,
        b: &inkwell::builder::Builder<'ctx>,
        k: IntValue<'ctx>,
        (at, bytes): (inkwell::values::PointerValue<'ctx>, IntValue<'ctx>),
        (next, pbytes, end, base, stride): (
            inkwell::values::PointerValue<'ctx>,
            u64,
            IntValue<'ctx>,
            BasicValueEnum<'ctx>,
            u64,
        ),
    ) -> Result<()> {
        let cx = self.module.get_context();
        let i64t = cx.i64_type();
        let line = outline::entry_alloca(self.module, b, i64t.into(), "weft.line")?;
        self.lines.push(line);
        // The first iteration not yet covered (none at entry).
        let done = outline::entry_alloca(self.module, b, i64t.into(), "weft.rows.done")?;
        let init = cx.create_builder();
        let after = done
            .as_instruction()
            .and_then(|i| i.get_next_instruction())
            .ok_or_else(|| PassError::Llvm("entry alloca without successor".into()))?;
        init.position_before(&after);
        init.build_store(done, i64t.const_int(i64::MIN as u64, true))?;
        let w = Self::rows_wrapper(self.module, self.wrapper, pbytes)?;
        let args: [BasicMetadataValueEnum<'ctx>; 13] = [
            self.h.into(),
            k.into(),
            at.into(),
            bytes.into(),
            line.into(),
            self.shift.into(),
            self.st.into(),
            self.cur.into(),
            done.into(),
            next.into(),
            end.into(),
            base.into(),
            i64t.const_int(stride, false).into(),
        ];
        b.build_call(w, &args, "")?;
        Ok(())
    }

    /// Declares (once per module and width of `P`) and returns the wrapper
    /// of [`LineDedup::report_rows`]: `void (ptr h, i64 k, ptr at, i64
    /// bytes, ptr line, i64 shift, ptr st, ptr cur, ptr done, ptr next, i64
    /// end, ptr base, i64 stride)`. When `k < *done` the row was covered.
    /// Otherwise it reports its own `[at, at + bytes)` through `report`
    /// (which makes `k`'s slab current when the inline path records it);
    /// then, if the inline path holds `k`'s slab, the rows `k + 1 .. e`,
    /// `e` the slab's end (`slab_end`, not clipped to the inspected range:
    /// a probe of the slab then sees the whole slab's streams), are reported
    /// as the one range `[base + end * stride, base + next[e - k - 1] *
    /// stride)` (when it is not empty), still in iteration `k`, whose slab
    /// is theirs, and `*done = e`. `next[e - k - 1]` is `P[x + e - k]`, the
    /// end bound the loop itself loads for row `e - 1` (a slab lies in the
    /// loop's iteration range).
    fn rows_wrapper(
        module: &Module<'ctx>,
        report: FunctionValue<'ctx>,
        pbytes: u64,
    ) -> Result<FunctionValue<'ctx>> {
        let name = format!("{ROWS_WRAPPER}{}", pbytes * 8);
        if let Some(w) = module.get_function(&name) {
            return Ok(w);
        }
        let cx = module.get_context();
        let i64t = cx.i64_type();
        let ptr = cx.ptr_type(inkwell::AddressSpace::default());
        // The report wrapper's arguments up to `cur` (not `aligned`), then
        // `done, next, end, base, stride`.
        let mut params = report.get_type().get_param_types();
        params.truncate(8);
        let extra: [inkwell::types::BasicMetadataTypeEnum<'ctx>; 5] =
            [ptr.into(), ptr.into(), i64t.into(), ptr.into(), i64t.into()];
        params.extend(extra);
        let fty = cx.void_type().fn_type(&params, false);
        let w = Self::always_inline(module, &name, fty);
        let p = |i: u32| w.get_nth_param(i).expect("wrapper parameter");
        let (h, k, at, bytes, line, shift, st, cur) =
            (p(0), p(1), p(2), p(3), p(4), p(5), p(6), p(7));
        let k = k.into_int_value();
        let (done, next) = (p(8).into_pointer_value(), p(9).into_pointer_value());
        let (end, base, stride) = (
            p(10).into_int_value(),
            p(11).into_pointer_value(),
            p(12).into_int_value(),
        );
        let b = cx.create_builder();
        let entry = cx.append_basic_block(w, "entry");
        let own = cx.append_basic_block(w, "own");
        let slab = cx.append_basic_block(w, "slab");
        let rest = cx.append_basic_block(w, "rest");
        let more = cx.append_basic_block(w, "more");
        let out = cx.append_basic_block(w, "out");
        b.position_at_end(entry);
        let d = b.build_load(i64t, done, "done")?.into_int_value();
        let covered = b.build_int_compare(IntPredicate::SLT, k, d, "covered")?;
        b.build_conditional_branch(covered, out, own)?;
        // The row's own range (and `k`'s slab made current).
        b.position_at_end(own);
        let no = cx.bool_type().const_zero();
        let args =
            |a: BasicValueEnum<'ctx>, n: IntValue<'ctx>| -> [BasicMetadataValueEnum<'ctx>; 9] {
                [
                    h.into(),
                    k.into(),
                    a.into(),
                    n.into(),
                    line.into(),
                    shift.into(),
                    st.into(),
                    cur.into(),
                    no.into(),
                ]
            };
        b.build_call(report, &args(at, bytes.into_int_value()), "")?;
        let cur = cur.into_pointer_value();
        let lty = fast_type(cx, true);
        let en = Self::inline_enabled(&b, cur)?;
        let held = b.build_and(en, Self::in_current_slab(&b, cur, k)?, "held")?;
        b.build_conditional_branch(held, slab, out)?;
        // The rows after `k` in its slab, up to the slab's end.
        b.position_at_end(slab);
        let e = b.build_load(i64t, b.build_struct_gep(lty, cur, fast::SLAB_END, "")?, "e")?;
        let e = e.into_int_value();
        b.build_store(done, e)?;
        let k1 = b.build_int_add(k, i64t.const_int(1, false), "")?;
        let any = b.build_int_compare(IntPredicate::SGT, e, k1, "")?;
        b.build_conditional_branch(any, rest, out)?;
        b.position_at_end(rest);
        let off = b.build_int_sub(e, k1, "")?;
        let pty = match pbytes {
            8 => i64t,
            _ => cx.i32_type(),
        };
        // SAFETY: `P[x + e - k]`, the end bound of row `e - 1`, which the
        // loop itself loads (`e <= hi`).
        let q = unsafe { b.build_gep(pty, next, &[off], "")? };
        let last = b.build_load(pty, q, "rows.end")?.into_int_value();
        let last = match pbytes {
            8 => last,
            _ => b.build_int_s_extend(last, i64t, "")?,
        };
        let grows = b.build_int_compare(IntPredicate::SGT, last, end, "")?;
        b.build_conditional_branch(grows, more, out)?;
        b.position_at_end(more);
        let from = b.build_int_mul(end, stride, "")?;
        // SAFETY: the first byte of row `k + 1`'s stream (the loop reads it
        // when that row is not empty).
        let a = unsafe { b.build_gep(cx.i8_type(), base, &[from], "rows.at")? };
        let n = b.build_int_mul(b.build_int_sub(last, end, "")?, stride, "rows.bytes")?;
        b.build_call(report, &args(a.into(), n), "")?;
        b.build_unconditional_branch(out)?;
        b.position_at_end(out);
        b.build_return(None)?;
        Ok(w)
    }

    /// Reports the checked access (`is_write` 0: read, 1: write) of `size`
    /// bytes at `p` in iteration `k` at `b`'s position, through
    /// [`LineDedup::CHECKED`] (a read of at most two lines is recorded
    /// inline, every other access calls `weft_inspect_checked`).
    fn report_checked(
        &mut self,
        b: &inkwell::builder::Builder<'ctx>,
        k: IntValue<'ctx>,
        p: BasicValueEnum<'ctx>,
        size: u64,
        aligned: bool,
        is_write: bool,
    ) -> Result<()> {
        let cx = self.module.get_context();
        let i32t = cx.i32_type();
        let w = Self::checked_wrapper(self.module)?;
        let args: [BasicMetadataValueEnum<'ctx>; 9] = [
            self.h.into(),
            k.into(),
            p.into(),
            i32t.const_int(size, false).into(),
            self.shift.into(),
            self.st.into(),
            self.cur.into(),
            cx.bool_type().const_int(aligned as u64, false).into(),
            i32t.const_int(is_write as u64, false).into(),
        ];
        b.build_call(w, &args, "")?;
        self.checked_sites += 1;
        Ok(())
    }

    /// Reports the reads `base[idx[j]]`, `j < n`, of iteration `k` at `b`'s
    /// position through [`LineDedup::GATHER`] (`(scale, size, kind,
    /// idx_bytes)`: bytes per index step, per read, `is_write` 0 or
    /// [`weft_runtime::abi::ACCESS_UNCHECKED`], bytes per index).
    #[allow(clippy::too_many_arguments)]
    fn report_gather(
        &mut self,
        b: &inkwell::builder::Builder<'ctx>,
        k: IntValue<'ctx>,
        base: BasicValueEnum<'ctx>,
        idx: BasicValueEnum<'ctx>,
        n: IntValue<'ctx>,
        (scale, size, kind, idx_bytes): (u64, u64, u32, u64),
    ) -> Result<()> {
        let cx = self.module.get_context();
        let (i64t, i32t) = (cx.i64_type(), cx.i32_type());
        let w = Self::gather_wrapper(self.module)?;
        let args: [BasicMetadataValueEnum<'ctx>; 11] = [
            self.h.into(),
            k.into(),
            base.into(),
            idx.into(),
            n.into(),
            self.st.into(),
            self.cur.into(),
            i64t.const_int(scale, false).into(),
            i32t.const_int(size.clamp(1, u32::MAX as u64), false).into(),
            i32t.const_int(kind as u64, false).into(),
            i32t.const_int(idx_bytes, false).into(),
        ];
        b.build_call(w, &args, "")?;
        // (The state is handed back before each return too.)
        self.checked_sites += 1;
        Ok(())
    }

    /// Declares (once per module) and returns the gather wrapper: hands the
    /// inline state back, calls `weft_inspect_gather`, and copies the state
    /// the runtime left into the inspector's copy.
    fn gather_wrapper(module: &Module<'ctx>) -> Result<FunctionValue<'ctx>> {
        if let Some(w) = module.get_function(Self::GATHER) {
            return Ok(w);
        }
        let cx = module.get_context();
        let (i64t, i32t) = (cx.i64_type(), cx.i32_type());
        let ptr = cx.ptr_type(inkwell::AddressSpace::default());
        let fty = cx.void_type().fn_type(
            &[
                ptr.into(),
                i64t.into(),
                ptr.into(),
                ptr.into(),
                i64t.into(),
                ptr.into(),
                ptr.into(),
                i64t.into(),
                i32t.into(),
                i32t.into(),
                i32t.into(),
            ],
            false,
        );
        let w = Self::always_inline(module, Self::GATHER, fty);
        let p = |i: u32| w.get_nth_param(i).expect("wrapper parameter");
        let (st, cur) = (p(5).into_pointer_value(), p(6).into_pointer_value());
        let b = cx.create_builder();
        b.position_at_end(cx.append_basic_block(w, "entry"));
        Self::hand_back(module, &b, st, cur)?;
        let f = rtabi::declare(module, RtFn::InspectGather)?;
        let args: [BasicMetadataValueEnum<'ctx>; 10] = [
            p(0).into(),
            st.into(),
            p(1).into(),
            p(2).into(),
            p(3).into(),
            p(4).into(),
            p(10).into(),
            p(7).into(),
            p(8).into(),
            p(9).into(),
        ];
        b.build_call(f, &args, "")?;
        Self::reload(module, &b, st, cur, p(1).into_int_value())?;
        b.build_return(None)?;
        Ok(w)
    }

    /// Forgets every site's line at the top of each iteration that is not in
    /// the inline path's current slab (after the phis of the block defining
    /// `k`), and hands the inline counts to the runtime before every return.
    ///
    /// A line a site reported earlier in the same slab has set its bank's bit
    /// in that slab's map already, so while the inline path records (the
    /// runtime enabled it: no miss predictor, whose state would see the
    /// repeated touch) the lines are kept from one iteration to the next
    /// until the iteration leaves the slab: streaming references (`val[j]`,
    /// `col[j]` and `y[i]` of consecutive SpMV rows) report each line once
    /// per slab instead of once per iteration, with the same bank maps.
    fn finish(self, b: &inkwell::builder::Builder<'ctx>) -> Result<()> {
        if self.lines.is_empty() && self.checked_sites == 0 {
            return Ok(());
        }
        let header = Self::header(self.k)?;
        let first = util::instructions(header)
            .into_iter()
            .find(|i| i.get_opcode() != InstructionOpcode::Phi)
            .ok_or_else(|| PassError::Llvm("inspector header without terminator".into()))?;
        b.position_before(&first);
        let cx = self.module.get_context();
        let (i64t, i32t) = (cx.i64_type(), cx.i32_type());
        let lty = fast_type(cx, true);
        let field = |j: u32, t: inkwell::types::BasicTypeEnum<'ctx>| -> Result<IntValue<'ctx>> {
            let pf = b.build_struct_gep(lty, self.cur, j, "")?;
            Ok(b.build_load(t, pf, "")?.into_int_value())
        };
        let (lo, hi) = (field(fast::LO, i64t.into())?, field(fast::HI, i64t.into())?);
        let en = field(fast::ENABLED, i32t.into())?;
        let keep = b.build_and(
            Self::in_range(b, self.k, lo, hi, "")?,
            b.build_int_compare(IntPredicate::NE, en, i32t.const_zero(), "")?,
            "weft.same.slab",
        )?;
        let none = i64t.const_all_ones();
        for l in &self.lines {
            let old = b.build_load(i64t, *l, "")?.into_int_value();
            b.build_store(*l, b.build_select(keep, old, none, "")?)?;
        }
        debug_assert_eq!(header.get_parent(), Some(self.f));
        let flush = Self::flush_wrapper(self.module)?;
        for bb in self.f.get_basic_blocks() {
            if let Some(t) = bb
                .get_terminator()
                .filter(|t| t.get_opcode() == InstructionOpcode::Return)
            {
                b.position_before(&t);
                b.build_call(flush, &[self.h.into(), self.st.into(), self.cur.into()], "")?;
            }
        }
        Ok(())
    }
}

/// Which live-ins of the context the schedule of an inspector made by
/// [`make_inspector_with`] depends on: the clone's entry block loads live-in
/// `j` as its `j`-th load ([`outline::clone_body`]), and dead code
/// elimination has removed every use of a live-in that no reported address
/// or branch depends on. `None` when the entry block does not have exactly
/// `n` loads (then every live-in counts).
///
/// With `maps_only` (the loop is proven parallel, so its inspector only feeds
/// bank maps and every slab order is legal), a live-in that reaches nothing
/// but the address operand of report calls ([`only_reported_address`]: the
/// base of a data array such as SpMV's `x`, `val` and `y`) does not count
/// either: the schedule is kept per assignment of the values the inspector
/// reads (index arrays, bounds), as §4.4.1 keeps it per index-array
/// assignment, and reused when the same loop runs over other data arrays
/// (GMRES's Krylov vectors, CG's `p`). The reused schedule was computed from
/// the first data arrays' bank maps: the regular and index-array parts of the
/// maps are identical, the data arrays' banks shifted with their bases.
pub fn inspector_inputs(f: FunctionValue<'_>, n: usize, maps_only: bool) -> Option<Vec<bool>> {
    let entry = f.get_first_basic_block()?;
    let loads: Vec<_> = util::instructions(entry)
        .into_iter()
        .filter(|i| i.get_opcode() == InstructionOpcode::Load)
        .collect();
    (loads.len() == n).then(|| {
        loads
            .iter()
            .map(|l| l.get_first_use().is_some() && !(maps_only && only_reported_address(*l)))
            .collect()
    })
}

/// Whether every use of `v`, followed through address arithmetic (GEPs,
/// casts, integer arithmetic, phis, select values), ends in the address
/// operand of a report call: no load, store, comparison, branch or other
/// call sees it, so it changes which addresses are reported and nothing
/// else.
fn only_reported_address(v: InstructionValue<'_>) -> bool {
    use InstructionOpcode as O;
    let mut stack = vec![v];
    let mut seen = HashSet::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(util::key(&x)) {
            continue;
        }
        for user in util::unique_users(&x) {
            let uses_x = |k: u32| {
                util::value_operand(user, k).is_some_and(|o| util::key(&o) == util::key(&x))
            };
            match user.get_opcode() {
                O::GetElementPtr
                | O::BitCast
                | O::AddrSpaceCast
                | O::PtrToInt
                | O::IntToPtr
                | O::ZExt
                | O::SExt
                | O::Trunc
                | O::Add
                | O::Sub
                | O::Mul
                | O::Shl
                | O::And
                | O::Or
                | O::Xor
                | O::Phi
                | O::Freeze => stack.push(user),
                O::Select if !uses_x(0) => stack.push(user),
                // Every argument but the addresses (operand 2, and a row
                // stream's array, operand 11 of [`ROWS_WRAPPER`]): the
                // callee operand is last, after the arguments.
                O::Call if is_report_call(user) => {
                    let args = user.get_num_operands().saturating_sub(1);
                    let rows = util::callee_name(user).is_some_and(|n| n.starts_with(ROWS_WRAPPER));
                    let address = |a: u32| a == 2 || (rows && a == 11);
                    if (0..args).any(|a| !address(a) && uses_x(a)) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
    }
    true
}

/// Next free region id in the module (ids are unique per module).
fn next_region_id(module: &Module<'_>) -> u32 {
    // Every transformed region owns a global `weft.region.<n>.last`.
    let mut next = 0u32;
    for g in module.get_globals() {
        let name = g.get_name().to_string_lossy().into_owned();
        if let Some(n) = name
            .strip_prefix("weft.region.")
            .and_then(|r| r.strip_suffix(".last"))
            .and_then(|n| n.parse::<u32>().ok())
        {
            next = next.max(n + 1);
        }
    }
    next
}

/// Context slots per region: a region executed with up to this many
/// different contexts (Gauss-Seidel colours, CG's `p` and `z`) keeps one
/// cached schedule per context instead of re-inspecting; the runtime
/// recycles the least recently used slot beyond that.
pub const CONTEXT_SLOTS: u32 = weft_runtime::runtime::CONTEXT_SLOTS;

/// The runtime region ids of region `base` (one per context slot).
pub fn runtime_ids(base: u32) -> std::ops::Range<u32> {
    base * CONTEXT_SLOTS..(base + 1) * CONTEXT_SLOTS
}

/// A live-in value as one `i64` key word (`None`: not comparable).
fn key_word<'ctx>(
    module: &Module<'ctx>,
    b: &inkwell::builder::Builder<'ctx>,
    v: BasicValueEnum<'ctx>,
) -> Result<Option<IntValue<'ctx>>> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    Ok(match v {
        BasicValueEnum::IntValue(x) => {
            let w = x.get_type().get_bit_width();
            if w > 64 {
                None
            } else if w == 64 {
                Some(x)
            } else {
                Some(b.build_int_z_extend(x, i64t, "")?)
            }
        }
        BasicValueEnum::PointerValue(x) => Some(b.build_ptr_to_int(x, i64t, "")?),
        BasicValueEnum::FloatValue(x) => {
            let bits = util::target_data(module).get_bit_size(&x.get_type()) as u32;
            if !(1..=64).contains(&bits) {
                return Ok(None);
            }
            let it = cx
                .custom_width_int_type(std::num::NonZeroU32::new(bits).expect("non-zero"))
                .map_err(|e| PassError::Llvm(e.to_string()))?;
            let xi = b.build_bit_cast(x, it, "")?.into_int_value();
            Some(if bits == 64 {
                xi
            } else {
                b.build_int_z_extend(xi, i64t, "")?
            })
        }
        // Aggregates and vectors: not comparable (a fresh slot every time).
        _ => None,
    })
}

/// Picks the runtime region id for this execution: packs the live-in values
/// of the context into an `i64` key and asks the runtime
/// (`weft_region_select`), which returns the id of the slot that saved the
/// same key or recycles the least recently used of the region's
/// [`CONTEXT_SLOTS`] slots (dropping its schedule). Returns the `i32` id.
///
/// With `used`, only the live-ins marked `true` enter the key: a schedule
/// depends only on the values its inspector reads (see
/// [`inspector_inputs`]), so a scalar such as a time-step number or a
/// coefficient that changes on every call does not force a re-inspection.
/// The key holds the used values only, taken from their SSA values (not
/// reloaded from the context): traced programs run this code before every
/// call, on the calling core (stun makes 40 k calls of ~40 iterations).
pub fn emit_context_cache<'ctx>(
    module: &Module<'ctx>,
    site: &outline::CallSite<'ctx>,
    plan: &LoopPlan<'ctx>,
    region: u32,
    used: Option<&[bool]>,
) -> Result<IntValue<'ctx>> {
    let cx = module.get_context();
    let b = &site.builder;
    let i32t = cx.i32_type();
    let i64t = cx.i64_type();
    let n = plan.live_ins.len() as u32;
    // Marks the region id as used in the module (see `next_region_id`).
    let g = module.add_global(cx.i8_type(), None, &format!("weft.region.{region}.last"));
    g.set_linkage(Linkage::Internal);
    g.set_initializer(&cx.i8_type().const_zero());
    let keyed: Vec<usize> = (0..n as usize)
        .filter(|&j| used.map_or(true, |u| u.get(j).copied().unwrap_or(true)))
        .collect();
    let n = keyed.len() as u32;
    let kty = i64t.array_type(n.max(1));
    let key = outline::entry_alloca(module, b, kty.into(), "weft.key")?;
    let mut comparable = true;
    for (k, &j) in keyed.iter().enumerate() {
        // The live-ins dominate the call site: they were stored into the
        // context in the loop's preheader.
        match key_word(module, b, plan.live_ins[j])? {
            Some(w) => {
                // SAFETY: in-bounds index (< n) into the key array.
                let pk = unsafe {
                    b.build_in_bounds_gep(
                        kty,
                        key,
                        &[i32t.const_zero(), i32t.const_int(k as u64, false)],
                        "",
                    )?
                };
                b.build_store(pk, w)?;
            }
            None => comparable = false,
        }
    }
    let first = region
        .checked_mul(CONTEXT_SLOTS)
        .ok_or_else(|| PassError::Llvm(format!("region id {region} too large")))?;
    let out = outline::entry_alloca(module, b, i32t.into(), "weft.slot")?;
    b.build_store(out, i32t.const_int(first as u64, false))?;
    let sel = rtabi::declare(module, RtFn::RegionSelect)?;
    let key_arg = if comparable {
        key
    } else {
        cx.ptr_type(inkwell::AddressSpace::default()).const_null()
    };
    b.build_call(
        sel,
        &[
            i32t.const_int(region as u64, false).into(),
            key_arg.into(),
            i32t.const_int(n as u64, false).into(),
            out.into(),
        ],
        "",
    )?;
    Ok(b.build_load(i32t, out, "weft.region")?.into_int_value())
}

fn apply<'ctx>(
    module: &Module<'ctx>,
    plan: LoopPlan<'ctx>,
    opts: &InsertInspector,
    (needs_check, trusted): (bool, bool),
    unchecked_loads: &HashSet<util::ValueKey>,
    min_parallel_iters: u64,
    regions: &mut Vec<u32>,
) -> Result<String> {
    let (slab, original) = (opts.slab, opts.original);
    let body = outline::clone_body(module, &plan, CloneKind::Executor)?;
    // The Original schedule needs no inspector unless slabs may conflict.
    let with_inspector = !original || needs_check;
    let (insp_fn, nrep) = if with_inspector {
        let insp = outline::clone_body(module, &plan, CloneKind::Inspector)?;
        // The clone's loads of arrays the loop does not write.
        let unchecked: HashSet<util::ValueKey> = unchecked_loads
            .iter()
            .filter_map(|o| insp.map.get(o).map(util::key))
            .collect();
        let how = Reports {
            streams: opts.streams,
            row_streams: opts.row_streams,
            gathers: opts.gathers,
            inline_checked: opts.inline_checked,
            writes_only: false,
            trusted,
        };
        let n = make_inspector_with(module, insp.function, insp.k, needs_check, &unchecked, how)?;
        (Some(insp.function), n)
    } else {
        (None, 0)
    };
    // Loops that need the dependence check: the writes-only slice and the
    // entry that picks one of the two (the function the runtime calls).
    let writes_first = match (insp_fn, needs_check && opts.writes_first) {
        (Some(full), true) => {
            let w = outline::clone_body(module, &plan, CloneKind::Inspector)?;
            let name = format!("{}.writes", full.get_name().to_string_lossy());
            w.function.as_global_value().set_name(&name);
            let unchecked: HashSet<util::ValueKey> = unchecked_loads
                .iter()
                .filter_map(|o| w.map.get(o).map(util::key))
                .collect();
            let how = Reports {
                streams: false,
                row_streams: false,
                gathers: false,
                inline_checked: opts.inline_checked,
                writes_only: true,
                trusted: false,
            };
            make_inspector_with(module, w.function, w.k, true, &unchecked, how)?;
            Some((w.function, writes_first_dispatch(module, full, w.function)?))
        }
        _ => None,
    };
    let insp_entry = writes_first.map(|(_, d)| d).or(insp_fn);
    let region = next_region_id(module).max(regions.iter().max().map(|m| m + 1).unwrap_or(0));
    regions.push(region);
    let run = rtabi::declare(module, RtFn::RunIrregular)?;
    let inline = Some((body.function, min_parallel_iters));
    outline::replace_loop(module, &plan, inline, |site| {
        let cx = module.get_context();
        let region_v = if with_inspector {
            let maps_only = !needs_check && !opts.data_key;
            let used = insp_fn.and_then(|f| inspector_inputs(f, plan.live_ins.len(), maps_only));
            emit_context_cache(module, site, &plan, region, used.as_deref())?
        } else {
            // No schedule depends on the context: one runtime id. Mark the id as used.
            let g = module.add_global(cx.i8_type(), None, &format!("weft.region.{region}.last"));
            g.set_linkage(Linkage::Internal);
            g.set_initializer(&cx.i8_type().const_zero());
            cx.i32_type()
                .const_int((region * CONTEXT_SLOTS) as u64, false)
        };
        let i64t = cx.i64_type();
        let b = &site.builder;
        let slab_v = if original && needs_check {
            // One slab per core: Algorithm 4 then has a single choice per
            // core, the static contiguous chunk, and the runtime's slab DAG
            // orders chunks that conflict.
            let nc = rtabi::declare(module, RtFn::NumCores)?;
            let slot = outline::entry_alloca(module, b, cx.i32_type().into(), "weft.cores")?;
            b.build_store(slot, cx.i32_type().const_int(1, false))?;
            b.build_call(nc, &[slot.into()], "")?;
            let p = b.build_load(cx.i32_type(), slot, "")?.into_int_value();
            let p = b.build_int_z_extend(p, i64t, "")?;
            let one = i64t.const_int(1, false);
            let p = b
                .build_select(
                    b.build_int_compare(IntPredicate::UGT, p, one, "")?,
                    p,
                    one,
                    "",
                )?
                .into_int_value();
            let num = b.build_int_add(site.trip_count, b.build_int_sub(p, one, "")?, "")?;
            let q = b.build_int_signed_div(num, p, "")?;
            b.build_select(
                b.build_int_compare(IntPredicate::SGT, q, one, "")?,
                q,
                one,
                "weft.slab",
            )?
            .into_int_value()
        } else {
            i64t.const_int(slab, false)
        };
        let null = cx.ptr_type(inkwell::AddressSpace::default()).const_null();
        let args: [BasicMetadataValueEnum<'ctx>; 7] = [
            region_v.into(),
            i64t.const_zero().into(),
            site.trip_count.into(),
            slab_v.into(),
            insp_entry.map(outline::fn_ptr).unwrap_or(null).into(),
            outline::fn_ptr(body.function).into(),
            site.ctx.into(),
        ];
        let st = b
            .build_call(run, &args, "weft.status")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| PassError::Llvm("weft_run_irregular returns void".into()))?
            .into_int_value();
        // The runtime may now hold a schedule of this module's regions: the
        // next reset point must reach it.
        let dirty = regions_dirty_flag(module);
        let set = b.build_store(dirty.as_pointer_value(), cx.i8_type().const_int(1, false))?;
        outline::relaxed(Some(set), 1)?;
        parallel::emit_sequential_fallback(module, site, body.function, st)
    })?;
    let bname = body.function.get_name().to_string_lossy().into_owned();
    Ok(match (original, insp_fn) {
        (false, Some(i)) => format!(
            "inspector/executor: region {region}, body @{bname}, inspector @{} ({nrep} access report(s)), slab {}{}{}",
            i.get_name().to_string_lossy(),
            if slab == 0 { "runtime default (1/50 of a core's iterations)".to_string() } else { format!("{slab} iterations") },
            if needs_check { ", runtime dependence check" } else { "" },
            match writes_first {
                Some((w, _)) => format!(", writes first (@{})", w.get_name().to_string_lossy()),
                None => String::new(),
            }
        ),
        (true, Some(i)) => format!(
            "executor form, original schedule (one slab per core): region {region}, body @{bname}, inspector @{} for the runtime dependence check",
            i.get_name().to_string_lossy()
        ),
        _ => format!("executor form, original schedule (static chunks): region {region}, body @{bname}"),
    })
}

/// The inspector entry of a loop with a writes-only slice:
/// `void <full>.phases(ctx, lo, hi, h)` asks the runtime which one to run
/// (`weft_inspect_writes_first(h, &w)`) and calls `writes` when `w != 0`,
/// else `full`. The runtime runs the slice over every chunk first; the
/// granules its writes touch let the full inspection keep only the reads
/// that can conflict (`RuntimeConfig::writes_first`).
fn writes_first_dispatch<'ctx>(
    module: &Module<'ctx>,
    full: FunctionValue<'ctx>,
    writes: FunctionValue<'ctx>,
) -> Result<FunctionValue<'ctx>> {
    let cx = module.get_context();
    let name = format!("{}.phases", full.get_name().to_string_lossy());
    let f = module.add_function(&name, full.get_type(), Some(Linkage::Internal));
    let params = f.get_params();
    let names = ["ctx", "lo", "hi", "insp"];
    for (p, n) in params.iter().zip(names) {
        p.set_name(n);
    }
    let b = cx.create_builder();
    let entry = cx.append_basic_block(f, "entry");
    let slice = cx.append_basic_block(f, "writes");
    let all = cx.append_basic_block(f, "full");
    b.position_at_end(entry);
    let i32t = cx.i32_type();
    let slot = b.build_alloca(i32t, "weft.writes_only")?;
    b.build_store(slot, i32t.const_zero())?;
    let h = params
        .get(3)
        .ok_or_else(|| PassError::Llvm("inspector without handle".into()))?;
    b.build_call(
        rtabi::declare(module, RtFn::InspectWritesFirst)?,
        &[(*h).into(), slot.into()],
        "",
    )?;
    let w = b.build_load(i32t, slot, "")?.into_int_value();
    let c = b.build_int_compare(IntPredicate::NE, w, i32t.const_zero(), "")?;
    b.build_conditional_branch(c, slice, all)?;
    let args: Vec<BasicMetadataValueEnum<'ctx>> = params.iter().map(|p| (*p).into()).collect();
    for (bb, callee) in [(slice, writes), (all, full)] {
        b.position_at_end(bb);
        b.build_call(callee, &args, "")?;
        b.build_return(None)?;
    }
    Ok(f)
}

/// External functions known not to write user memory that could hold index arrays.
const NO_WRITE_EXTERNALS: &[&str] = &[
    "printf",
    "fprintf",
    "puts",
    "putchar",
    "fputs",
    "fflush",
    "clock",
    "clock_gettime",
    "gettimeofday",
    "time",
    "malloc",
    "calloc",
    "free",
    "exit",
    "abort",
    "sqrt",
    "exp",
    "log",
    "pow",
    "fabs",
    "sin",
    "cos",
    "atoi",
    "atof",
    "strtol",
    "strtod",
    "strcmp",
    "strlen",
    "getenv",
    "omp_get_wtime",
    "aligned_alloc",
    "posix_memalign",
];

/// The objects (see [`underlying_object`]) that function `f` loads and
/// stores only as floating-point values (scalars or vectors), at least once:
/// by C's effective-type rules such an array holds no integers, so writing
/// it cannot reassign an index array.
fn fp_only_objects(f: FunctionValue<'_>) -> HashSet<util::ValueKey> {
    let mut fp: HashSet<util::ValueKey> = HashSet::new();
    let mut other: HashSet<util::ValueKey> = HashSet::new();
    for bb in f.get_basic_blocks() {
        for i in util::instructions(bb) {
            let (ptr, ty) = match i.get_opcode() {
                InstructionOpcode::Load => (util::value_operand(i, 0), i.get_type()),
                InstructionOpcode::Store => (
                    util::value_operand(i, 1),
                    match util::value_operand(i, 0) {
                        Some(v) => v.get_type().as_any_type_enum(),
                        None => continue,
                    },
                ),
                _ => continue,
            };
            let Some(ptr) = ptr else { continue };
            let is_fp = match ty {
                inkwell::types::AnyTypeEnum::FloatType(_) => true,
                inkwell::types::AnyTypeEnum::VectorType(v) => v.get_element_type().is_float_type(),
                _ => false,
            };
            let k = util::key(&underlying_object(ptr));
            if is_fp {
                fp.insert(k);
            } else {
                other.insert(k);
            }
        }
    }
    fp.retain(|k| !other.contains(k));
    fp
}

/// The destination of a `llvm.memset`/`memcpy`/`memmove` call.
fn mem_intrinsic_dest(i: InstructionValue<'_>) -> Option<BasicValueEnum<'_>> {
    let n = util::callee_name(i)?;
    (n.starts_with("llvm.memset") || n.starts_with("llvm.memcpy") || n.starts_with("llvm.memmove"))
        .then(|| util::value_operand(i, 0))
        .flatten()
}

/// Whether instruction `i` may write an integer array (an index array).
fn may_write_index_array(i: InstructionValue<'_>) -> bool {
    match i.get_opcode() {
        InstructionOpcode::Store => {
            let Some(v) = util::value_operand(i, 0) else {
                return false;
            };
            let int_like = match v {
                BasicValueEnum::IntValue(_) => true,
                BasicValueEnum::VectorValue(vv) => vv.get_type().get_element_type().is_int_type(),
                _ => false,
            };
            // Stores to the function's own stack slots cannot reach an index array
            // that a region reads through a pointer.
            let obj = util::value_operand(i, 1).map(underlying_object);
            let to_alloca = obj
                .and_then(util::as_instruction)
                .map(|p| p.get_opcode() == InstructionOpcode::Alloca)
                .unwrap_or(false);
            // A store to a scalar global (a counter, a checksum) or to the
            // pass's own bookkeeping globals is not an index-array element.
            let to_scalar_global = obj.is_some_and(|p| {
                weft_frontend::ir::is_global(p)
                    && (scalar_global(p) || p.get_name().to_string_lossy().starts_with("weft."))
            });
            int_like && !to_alloca && !to_scalar_global
        }
        InstructionOpcode::Call | InstructionOpcode::Invoke => {
            let Some(n) = util::callee_name(i) else {
                return true;
            };
            if n.starts_with("llvm.") {
                return n.starts_with("llvm.memcpy")
                    || n.starts_with("llvm.memmove")
                    || n.starts_with("llvm.memset");
            }
            if n.starts_with("weft_") {
                return false;
            }
            // Calls to defined functions are covered by the stores inside them.
            false
        }
        _ => false,
    }
}

/// Strips GEPs and casts (instructions and constant expressions) off a pointer.
fn underlying_object(p: BasicValueEnum<'_>) -> BasicValueEnum<'_> {
    use inkwell::llvm_sys::core::{LLVMGetConstOpcode, LLVMGetOperand, LLVMIsAConstantExpr};
    use inkwell::llvm_sys::LLVMOpcode;
    let mut cur = p;
    for _ in 0..32 {
        let r = cur.as_value_ref();
        let next = if let Some(i) = util::as_instruction(cur) {
            match i.get_opcode() {
                InstructionOpcode::GetElementPtr
                | InstructionOpcode::BitCast
                | InstructionOpcode::AddrSpaceCast => util::value_operand(i, 0),
                _ => None,
            }
        } else {
            // SAFETY: live value; operand 0 of a GEP/cast constant expression exists.
            unsafe {
                if !LLVMIsAConstantExpr(r).is_null()
                    && matches!(
                        LLVMGetConstOpcode(r),
                        LLVMOpcode::LLVMGetElementPtr
                            | LLVMOpcode::LLVMBitCast
                            | LLVMOpcode::LLVMAddrSpaceCast
                    )
                {
                    util::basic_value(LLVMGetOperand(r, 0))
                } else {
                    None
                }
            }
        };
        match next {
            Some(n) => cur = n,
            None => break,
        }
    }
    cur
}

fn scalar_global(p: BasicValueEnum<'_>) -> bool {
    use inkwell::llvm_sys::core::LLVMGlobalGetValueType;
    use inkwell::llvm_sys::LLVMTypeKind;
    // SAFETY: `p` is a global variable (checked by the caller).
    unsafe {
        let t = LLVMGlobalGetValueType(p.as_value_ref());
        !matches!(
            inkwell::llvm_sys::core::LLVMGetTypeKind(t),
            LLVMTypeKind::LLVMArrayTypeKind
                | LLVMTypeKind::LLVMStructTypeKind
                | LLVMTypeKind::LLVMVectorTypeKind
        )
    }
}

/// The module's flag (`i8`, internal) saying that a region call has reached
/// the runtime since the last reset point: set after every
/// `weft_run_irregular` call, tested and cleared by [`REGIONS_RESET`].
fn regions_dirty_flag<'ctx>(module: &Module<'ctx>) -> GlobalValue<'ctx> {
    const NAME: &str = "weft.regions.dirty";
    if let Some(g) = module.get_global(NAME) {
        return g;
    }
    let i8t = module.get_context().i8_type();
    let g = module.add_global(i8t, None, NAME);
    g.set_linkage(Linkage::Internal);
    g.set_initializer(&i8t.const_zero());
    g
}

/// The `alwaysinline` helper each reset point calls: when a region call has
/// reached the runtime since the last reset (the dirty flag), it clears the
/// flag and calls `weft_region_reset` for every region; otherwise the
/// runtime holds nothing of this module's regions that an earlier reset did
/// not drop, and it returns at once (a load and a branch once inlined,
/// instead of one runtime call per region: stun resets after the store of
/// its innermost factorisation loop, millions of times).
const REGIONS_RESET: &str = "weft.regions.reset";

fn regions_reset_fn<'ctx>(module: &Module<'ctx>, regions: &[u32]) -> Result<FunctionValue<'ctx>> {
    let cx = module.get_context();
    let f = LineDedup::always_inline(module, REGIONS_RESET, cx.void_type().fn_type(&[], false));
    let dirty = regions_dirty_flag(module);
    let inval = rtabi::declare(module, RtFn::RegionReset)?;
    let (entry, work, done) = (
        cx.append_basic_block(f, "entry"),
        cx.append_basic_block(f, "reset"),
        cx.append_basic_block(f, "done"),
    );
    let b = cx.create_builder();
    b.position_at_end(entry);
    let d = b.build_load(cx.i8_type(), dirty.as_pointer_value(), "weft.dirty")?;
    outline::relaxed(d.as_instruction_value(), 1)?;
    let set = b.build_int_compare(
        IntPredicate::NE,
        d.into_int_value(),
        cx.i8_type().const_zero(),
        "",
    )?;
    b.build_conditional_branch(set, work, done)?;
    b.position_at_end(work);
    let clr = b.build_store(dirty.as_pointer_value(), cx.i8_type().const_zero())?;
    outline::relaxed(Some(clr), 1)?;
    for r in regions {
        b.build_call(
            inval,
            &[cx.i32_type().const_int(*r as u64, false).into()],
            "",
        )?;
    }
    b.build_unconditional_branch(done)?;
    b.position_at_end(done);
    b.build_return(None)?;
    Ok(f)
}

/// Inserts a reset of every region (through [`REGIONS_RESET`]) after code
/// that may reassign index arrays (see the module docs).
fn insert_invalidations<'ctx>(
    module: &Module<'ctx>,
    cx: &mut PassContext<'ctx>,
    regions: &[u32],
) -> Result<usize> {
    if regions.is_empty() {
        return Ok(0);
    }
    let a = cx.analysis(module);
    // Functions that may run a region: those calling weft_run_irregular, and their callers.
    let mut runs: HashSet<String> = HashSet::new();
    let mut calls: HashMap<String, Vec<(String, bool)>> = HashMap::new();
    for f in module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
    {
        let name = f.get_name().to_string_lossy().into_owned();
        let mut cs = Vec::new();
        for bb in f.get_basic_blocks() {
            for i in util::instructions(bb) {
                if i.get_opcode() == InstructionOpcode::Call {
                    match util::callee_name(i) {
                        Some(c) if c == RtFn::RunIrregular.symbol() => {
                            runs.insert(name.clone());
                        }
                        Some(c) => cs.push((c, false)),
                        None => cs.push((String::new(), true)),
                    }
                }
            }
        }
        calls.insert(name, cs);
    }
    loop {
        let mut grew = false;
        for (f, cs) in &calls {
            if !runs.contains(f) && cs.iter().any(|(c, indirect)| *indirect || runs.contains(c)) {
                runs.insert(f.clone());
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let block_runs = |bb: BasicBlock<'_>| {
        util::instructions(bb).into_iter().any(|i| {
            i.get_opcode() == InstructionOpcode::Call
                && match util::callee_name(i) {
                    Some(c) => c == RtFn::RunIrregular.symbol() || runs.contains(&c),
                    None => true,
                }
        })
    };
    // Insertion points: (function, block to insert at start of | instruction to insert after).
    enum At<'ctx> {
        BlockStart(BasicBlock<'ctx>),
        After(InstructionValue<'ctx>),
    }
    let mut points: Vec<At<'ctx>> = Vec::new();
    let mut seen_blocks: HashSet<usize> = HashSet::new();
    for fa in &a.functions {
        // Generated code: outlined bodies and inspectors, runtime symbols and
        // module-level helpers (`weft.*`, e.g. the line-deduplicating wrapper).
        if fa.name.contains(".weft.")
            || fa.name.starts_with("weft_")
            || fa.name.starts_with("weft.")
        {
            continue;
        }
        let fp_only = fp_only_objects(fa.function);
        for bb in fa.function.get_basic_blocks() {
            for i in util::instructions(bb) {
                let external_write = i.get_opcode() == InstructionOpcode::Call
                    && util::callee_name(i).is_some_and(|n| {
                        !n.starts_with("llvm.")
                            && !n.starts_with("weft_")
                            && module
                                .get_function(&n)
                                .is_some_and(|g| g.count_basic_blocks() == 0)
                            && !NO_WRITE_EXTERNALS.contains(&n.as_str())
                    });
                if !(may_write_index_array(i) || external_write) {
                    continue;
                }
                // memset/memcpy into a floating-point array (a vector being
                // cleared) cannot change an index array.
                if mem_intrinsic_dest(i)
                    .is_some_and(|d| fp_only.contains(&util::key(&underlying_object(d))))
                {
                    continue;
                }
                let Some(bid) = fa.cfg.id(bb) else { continue };
                let nest = fa.forest.nest_of(bid);
                // Outermost enclosing loop that does not run a region.
                let chosen = nest.iter().copied().find(|l| {
                    !fa.forest
                        .basic_blocks(&fa.cfg, *l)
                        .into_iter()
                        .any(&block_runs)
                });
                match chosen {
                    Some(l) => {
                        for e in &fa.forest.get(l).exits {
                            let eb = fa.cfg.block(*e);
                            if seen_blocks.insert(util::bkey(eb)) {
                                points.push(At::BlockStart(eb));
                            }
                        }
                    }
                    None => points.push(At::After(i)),
                }
            }
        }
    }
    drop(a);
    if points.is_empty() {
        return Ok(0);
    }
    let reset = regions_reset_fn(module, regions)?;
    let ctx = module.get_context();
    let b = ctx.create_builder();
    let mut n = 0;
    for p in &points {
        match p {
            At::BlockStart(bb) => {
                match util::instructions(*bb).into_iter().find(|i| {
                    i.get_opcode() != InstructionOpcode::Phi
                        && i.get_opcode() != InstructionOpcode::LandingPad
                }) {
                    Some(i) => b.position_before(&i),
                    None => continue,
                }
            }
            At::After(i) => match i.get_next_instruction() {
                Some(nx) => b.position_before(&nx),
                None => continue,
            },
        }
        b.build_call(reset, &[], "")?;
        n += 1;
    }
    Ok(n)
}

impl Pass for InsertInspector {
    fn name(&self) -> &'static str {
        "insert-inspector"
    }

    fn run<'ctx>(&self, module: &Module<'ctx>, cx: &mut PassContext<'ctx>) -> Result<Changed> {
        let mut regions = Vec::new();
        // Per candidate header: (needs the dependence check, loads that need
        // none, parallel by annotation instead).
        type Check = (bool, HashSet<util::ValueKey>, bool);
        let checks: std::cell::RefCell<HashMap<usize, Check>> = Default::default();
        let annotated = match self.trust_annotations {
            true => util::annotated_functions(module, PARALLEL_ANNOTATION),
            false => Default::default(),
        };
        let mut decide_fn = |fa: &FunctionAnalysis<'ctx>, l: LoopId| {
            let d = decide(fa, l);
            if let Decision::Transform(p) = &d {
                let needs = fa
                    .regions
                    .irregular
                    .iter()
                    .flat_map(|r| r.loops.iter())
                    .any(|il| il.loop_id == l && il.needs_runtime_check);
                let trusted =
                    needs && fa.forest.get(l).parent.is_none() && annotated.contains(&fa.name);
                checks.borrow_mut().insert(
                    util::bkey(p.header),
                    (needs && !trusted, unchecked_loads(fa, l), trusted),
                );
            }
            d
        };
        let changed = parallel::drive(
            module,
            cx,
            &self.only,
            &mut decide_fn,
            &mut |m, plan, cx| {
                let (needs, unchecked, trusted) = checks
                    .borrow_mut()
                    .remove(&util::bkey(plan.header))
                    .unwrap_or((true, HashSet::new(), false));
                let min = cx.config.min_parallel_iters;
                let done = apply(
                    m,
                    plan,
                    self,
                    (needs, trusted),
                    &unchecked,
                    min,
                    &mut regions,
                )?;
                Ok(match trusted {
                    true => format!(
                        "{done}; parallel by its function's `{PARALLEL_ANNOTATION}` annotation, without the dependence check the analysis would need (trust-annotations=false checks it)"
                    ),
                    false => done,
                })
            },
        )?;
        // Drop the empty remarks of loops that were never candidates.
        cx.remarks.retain(|r| !r.message.is_empty());
        if changed && self.invalidate {
            cx.invalidate();
            let n = insert_invalidations(module, cx, &regions)?;
            cx.remark(
                "<module>",
                None,
                RemarkKind::Note,
                format!(
                    "{n} invalidation point(s) after code that may reassign index arrays, for {} region(s)",
                    regions.len()
                ),
            );
        }
        Ok(Changed::from_bool(changed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The LLVM struct of the inline state has the layout of the runtime's
    /// `#[repr(C)]` `InspectFast` (x86-64 and the generic 64-bit layout).
    #[test]
    fn fast_state_type_matches_the_runtime_struct() {
        use std::mem::{offset_of, size_of};
        use weft_runtime::abi::InspectFast;
        let cx = inkwell::context::Context::create();
        let m = cx.create_module("t");
        let ty = fast_type(m.get_context(), false);
        for dl in [
            "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128",
            "e-i64:64",
        ] {
            let td = inkwell::targets::TargetData::create(dl);
            assert_eq!(td.get_abi_size(&ty), size_of::<InspectFast>() as u64);
            for (j, off) in [
                (fast::LO, offset_of!(InspectFast, lo)),
                (fast::HI, offset_of!(InspectFast, hi)),
                (fast::ROW, offset_of!(InspectFast, row)),
                (fast::TABLE, offset_of!(InspectFast, table)),
                (fast::MASK, offset_of!(InspectFast, mask)),
                (fast::LSB, offset_of!(InspectFast, lsb)),
                (fast::ENABLED, offset_of!(InspectFast, enabled)),
                (fast::REPORTED, offset_of!(InspectFast, reported)),
                (fast::TOUCHES, offset_of!(InspectFast, touches)),
                (fast::RECS, offset_of!(InspectFast, recs)),
                (fast::RECS_END, offset_of!(InspectFast, recs_end)),
                (fast::UNIT, offset_of!(InspectFast, unit)),
                (fast::REC_STEP, offset_of!(InspectFast, rec_step)),
                (fast::WBITS, offset_of!(InspectFast, wbits)),
                (fast::WGMIN, offset_of!(InspectFast, wgmin)),
                (fast::WSPAN, offset_of!(InspectFast, wspan)),
                (fast::SLAB_END, offset_of!(InspectFast, slab_end)),
            ] {
                assert_eq!(td.offset_of_element(&ty, j), Some(off as u64), "field {j}");
            }
        }
        // The inspector's copy only appends the accumulator.
        assert_eq!(
            fast_type(m.get_context(), true).count_fields(),
            fast::ACC + 1
        );
    }
}
