//! `instrument-trace`: report every load and store of the selected functions
//! to the runtime's trace recorder.
//!
//! Before each load, store, atomic read-modify-write and compare-exchange, the
//! pass inserts `weft_trace_access(addr, size, is_write, gap)` (declared from
//! the runtime's ABI listing, [`crate::rtabi`]). `size` is the store size of
//! the accessed type; `gap` is the number of non-memory instructions executed
//! since the previous record, counted statically: within a block, the
//! instructions between two accesses; for the first access of a block, the
//! instructions before it plus the trailing instructions of its predecessor
//! when the predecessor is unique, or of its back-edge predecessor (a
//! predecessor laid out at or after it, i.e. the loop latch) otherwise. Phis,
//! debug and lifetime intrinsics are not counted. This is the DESIGN.md trace
//! record's `gap` (the simulator charges one cycle per non-memory instruction).
//!
//! Selection: option `only=<glob>|<glob>` (default: every defined function),
//! `exclude=<glob>|...`; functions of the runtime (`weft_*`) are never
//! instrumented, nor are the passes' inline wrappers (`weft.*`), and
//! generated inspectors (`*.weft.inspect.*`) only with `inspectors=true`
//! (their cost is the inspector overhead, measured apart). An inspector's
//! `weft.inspect.report_gather` call, whose index loads the runtime performs,
//! records them with `weft_trace_reads` ([`GATHER_GAP`] instructions apart),
//! as the inner loop it replaces would have.
//! Code outside the selected functions is not traced. The executor tags each
//! record with its virtual core (runtime side). Memory intrinsics
//! (`llvm.memcpy` and friends) are not recorded.

use inkwell::builder::Builder;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::values::{BasicMetadataValueEnum, FunctionValue, InstructionOpcode, InstructionValue};

use crate::error::Result;
use crate::manager::{Changed, Pass, PassContext, RemarkKind};
use crate::pipeline::PassOptions;
use crate::rtabi::{self, RtFn};
use crate::util;

/// Options of `instrument-trace`.
pub const OPTIONS: &[(&str, &str)] = &[
    (
        "only",
        "`|`-separated globs of functions to instrument (default: all defined)",
    ),
    (
        "exclude",
        "`|`-separated globs of functions not to instrument",
    ),
    (
        "inspectors",
        "also instrument generated inspectors (default false)",
    ),
];

/// The `instrument-trace` pass.
#[derive(Debug, Clone, Default)]
pub struct InstrumentTrace {
    /// Globs of functions to instrument; empty = all.
    pub only: Vec<String>,
    /// Globs of functions to skip.
    pub exclude: Vec<String>,
    /// Instrument generated inspector functions too.
    pub inspectors: bool,
}

impl InstrumentTrace {
    /// Builds the pass from its options.
    pub fn from_options(o: &PassOptions) -> Result<InstrumentTrace> {
        Ok(InstrumentTrace {
            only: o.list("only"),
            exclude: o.list("exclude"),
            inspectors: o.bool_or("inspectors", false)?,
        })
    }

    /// Whether function `name` is selected.
    pub fn selects(&self, name: &str) -> bool {
        // (`weft.*`: the inline wrappers the passes generate, runtime glue.)
        if name.starts_with("weft_") || name.starts_with("weft.") || name.starts_with("llvm.") {
            return false;
        }
        if !self.inspectors && name.contains(".weft.inspect") {
            return false;
        }
        if self.exclude.iter().any(|g| util::glob_match(g, name)) {
            return false;
        }
        self.only.is_empty() || self.only.iter().any(|g| util::glob_match(g, name))
    }
}

/// One access to record.
struct Record<'ctx> {
    inst: InstructionValue<'ctx>,
    ptr: inkwell::values::PointerValue<'ctx>,
    size: u64,
    is_write: bool,
    gap: u64,
    /// A gather of an inspector ([`gather_loads`]): the number of index
    /// loads the runtime performs from `ptr`, `size` bytes each.
    loads: Option<inkwell::values::IntValue<'ctx>>,
}

/// Non-memory instructions per index load of an inspector's gather: what
/// the inner loop it replaces ran per element (the index's address, its
/// extension, the gathered address, the report call, the increment, the
/// compare and the branch).
pub const GATHER_GAP: u64 = 7;

/// A call of an inspector's gather wrapper
/// ([`crate::inspector::GATHER_WRAPPER`], `(h, k, base, idx, n, st, cur,
/// scale, size, is_write, idx_bytes)`): `(idx, n, idx_bytes)`, the index
/// loads the runtime performs in its place, which a traced inspector
/// records as the loop it replaces would have.
fn gather_loads<'ctx>(
    inst: InstructionValue<'ctx>,
) -> Option<(
    inkwell::values::PointerValue<'ctx>,
    inkwell::values::IntValue<'ctx>,
    u64,
)> {
    if inst.get_opcode() != InstructionOpcode::Call
        || util::callee_name(inst).as_deref() != Some(crate::inspector::GATHER_WRAPPER)
    {
        return None;
    }
    let idx = util::value_operand(inst, 3)?;
    let n = util::value_operand(inst, 4)?;
    let bytes = weft_frontend::ir::const_int(util::value_operand(inst, 10)?)?;
    match (idx, n) {
        (
            inkwell::values::BasicValueEnum::PointerValue(p),
            inkwell::values::BasicValueEnum::IntValue(n),
        ) => Some((p, n, u64::try_from(bytes).ok()?)),
        _ => None,
    }
}

/// Classifies a memory instruction: `(pointer, accessed type size, is_write)`.
/// Accesses to the stack slots of generated code (allocas named `weft.*`,
/// e.g. the inspectors' line-deduplication state, which SROA keeps in
/// registers) are not memory traffic and are not recorded.
fn memory_access<'ctx>(
    inst: InstructionValue<'ctx>,
    td: &TargetData,
) -> Option<(inkwell::values::PointerValue<'ctx>, u64, bool)> {
    let (ptr, size, w) = memory_operand(inst, td)?;
    let generated_slot = ptr.as_instruction().is_some_and(|a| {
        a.get_opcode() == InstructionOpcode::Alloca
            && ptr.get_name().to_string_lossy().starts_with("weft.")
    });
    (!generated_slot).then_some((ptr, size, w))
}

/// `(pointer, accessed type size, is_write)` of a memory instruction.
fn memory_operand<'ctx>(
    inst: InstructionValue<'ctx>,
    td: &TargetData,
) -> Option<(inkwell::values::PointerValue<'ctx>, u64, bool)> {
    use inkwell::values::BasicValueEnum::PointerValue as P;
    match inst.get_opcode() {
        InstructionOpcode::Load => {
            let ptr = match util::value_operand(inst, 0)? {
                P(p) => p,
                _ => return None,
            };
            let ty = util::basic_type_of(inst)?;
            Some((ptr, td.get_store_size(&ty), false))
        }
        InstructionOpcode::Store => {
            let val = util::value_operand(inst, 0)?;
            let ptr = match util::value_operand(inst, 1)? {
                P(p) => p,
                _ => return None,
            };
            Some((ptr, td.get_store_size(&val.get_type()), true))
        }
        InstructionOpcode::AtomicRMW | InstructionOpcode::AtomicCmpXchg => {
            let ptr = match util::value_operand(inst, 0)? {
                P(p) => p,
                _ => return None,
            };
            let val = util::value_operand(inst, 1)?;
            Some((ptr, td.get_store_size(&val.get_type()), true))
        }
        _ => None,
    }
}

/// Whether an instruction counts toward `gap`.
fn counts(inst: InstructionValue<'_>) -> bool {
    match inst.get_opcode() {
        InstructionOpcode::Phi => false,
        InstructionOpcode::Call => match util::callee_name(inst) {
            Some(n) => {
                !(n.starts_with("llvm.dbg.")
                    || n.starts_with("llvm.lifetime.")
                    || n.starts_with("llvm.assume")
                    || n == rtabi::RtFn::TraceAccess.symbol())
            }
            None => true,
        },
        _ => true,
    }
}

/// Instruments one function; returns the number of records inserted.
pub fn instrument_function<'ctx>(
    module: &Module<'ctx>,
    f: FunctionValue<'ctx>,
    td: &TargetData,
) -> Result<usize> {
    let blocks = f.get_basic_blocks();
    // Analyse: per block, the records and the trailing count.
    let mut per_block: Vec<(Vec<Record<'ctx>>, u64, u64)> = Vec::new(); // (records, prefix-before-first, tail)
    for &b in &blocks {
        let mut recs = Vec::new();
        let mut run = 0u64;
        let mut first_prefix = None;
        let mut cur = b.get_first_instruction();
        while let Some(i) = cur {
            let access = memory_access(i, td).map(|(p, s, w)| (p, s, w, None));
            let gather = || gather_loads(i).map(|(p, n, s)| (p, s, false, Some(n)));
            if let Some((ptr, size, is_write, loads)) = access.or_else(gather) {
                if first_prefix.is_none() {
                    first_prefix = Some(run);
                }
                recs.push(Record {
                    inst: i,
                    ptr,
                    size,
                    is_write,
                    gap: run,
                    loads,
                });
                run = 0;
            } else if counts(i) {
                run += 1;
            }
            cur = i.get_next_instruction();
        }
        let tail = if recs.is_empty() { 0 } else { run };
        // A block without records passes its whole count on as its tail.
        let tail = if recs.is_empty() { run } else { tail };
        per_block.push((recs, first_prefix.unwrap_or(0), tail));
    }
    // Carry predecessor tails into each block's first record.
    let preds = util::predecessors(f);
    let index_of =
        |bb: inkwell::basic_block::BasicBlock<'ctx>| blocks.iter().position(|x| *x == bb);
    let mut carry = vec![0u64; blocks.len()];
    for (k, &b) in blocks.iter().enumerate() {
        let ps: Vec<usize> = preds
            .get(&util::bkey(b))
            .map(|v| v.iter().filter_map(|p| index_of(*p)).collect())
            .unwrap_or_default();
        carry[k] = if ps.len() == 1 {
            per_block[ps[0]].2
        } else if let Some(&back) = ps.iter().filter(|&&p| p >= k).max() {
            per_block[back].2
        } else {
            0
        };
    }
    // Patch.
    let trace = rtabi::declare(module, RtFn::TraceAccess)?;
    let i64t = module.get_context().i64_type();
    let cx = module.get_context();
    let i32t = cx.i32_type();
    let builder: Builder<'ctx> = cx.create_builder();
    let mut n = 0;
    for (k, (recs, _, _)) in per_block.iter().enumerate() {
        for (j, r) in recs.iter().enumerate() {
            let gap = if j == 0 { r.gap + carry[k] } else { r.gap };
            builder.position_before(&r.inst);
            if let Some(count) = r.loads {
                // The instructions before the gather, then its index loads.
                if gap > 0 {
                    let compute = rtabi::declare(module, RtFn::TraceCompute)?;
                    let g = i32t.const_int(gap.min(u32::MAX as u64), false);
                    builder.build_call(compute, &[g.into()], "")?;
                }
                let reads = rtabi::declare(module, RtFn::TraceReads)?;
                let args: [BasicMetadataValueEnum<'ctx>; 4] = [
                    r.ptr.into(),
                    builder.build_int_cast(count, i64t, "")?.into(),
                    i32t.const_int(r.size, false).into(),
                    i32t.const_int(GATHER_GAP, false).into(),
                ];
                builder.build_call(reads, &args, "")?;
                n += 1;
                continue;
            }
            let args: [BasicMetadataValueEnum<'ctx>; 4] = [
                r.ptr.into(),
                i32t.const_int(r.size.min(u32::MAX as u64), false).into(),
                i32t.const_int(r.is_write as u64, false).into(),
                i32t.const_int(gap.min(u32::MAX as u64), false).into(),
            ];
            builder.build_call(trace, &args, "")?;
            n += 1;
        }
    }
    Ok(n)
}

impl Pass for InstrumentTrace {
    fn name(&self) -> &'static str {
        "instrument-trace"
    }

    fn run<'ctx>(&self, module: &Module<'ctx>, cx: &mut PassContext<'ctx>) -> Result<Changed> {
        let td = util::target_data(module);
        let targets: Vec<FunctionValue<'ctx>> = module
            .get_functions()
            .filter(|f| f.count_basic_blocks() > 0)
            .filter(|f| self.selects(&f.get_name().to_string_lossy()))
            .collect();
        let mut changed = false;
        for f in targets {
            let name = f.get_name().to_string_lossy().into_owned();
            let n = instrument_function(module, f, &td)?;
            if n > 0 {
                changed = true;
            }
            cx.remark(
                &name,
                None,
                RemarkKind::Applied,
                format!("{n} memory access(es) instrumented"),
            );
        }
        Ok(Changed::from_bool(changed))
    }
}
