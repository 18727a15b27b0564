//! Index-array reset points (§4.4.1: the inspector is re-run when the index
//! arrays are reassigned): after code that may write integer arrays (integer
//! stores, memory intrinsics, unknown external calls) a call of the module's
//! `weft.regions.reset` helper, hoisted to the exits of the outermost loop
//! that runs no region, drops the cached schedules of every region. The
//! helper calls the runtime only when a region ran since the last reset.

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::module::{Linkage, Module};
use inkwell::types::AnyType;
use inkwell::values::{
    AsValueRef, BasicValue, BasicValueEnum, FunctionValue, GlobalValue, InstructionOpcode,
    InstructionValue,
};
use inkwell::IntPredicate;

use super::inline;
use crate::error::Result;
use crate::manager::PassContext;
use crate::outline::{self};
use crate::rtabi::{self, RtFn};
use crate::util;

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

/// The objects (see [`util::underlying_object`]) that function `f` loads and
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
            let k = util::key(&util::underlying_object(ptr));
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
            let obj = util::value_operand(i, 1).map(util::underlying_object);
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
pub(super) fn regions_dirty_flag<'ctx>(module: &Module<'ctx>) -> GlobalValue<'ctx> {
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
    let f = inline::always_inline(module, REGIONS_RESET, cx.void_type().fn_type(&[], false));
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
pub(super) fn insert_invalidations<'ctx>(
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
                    .is_some_and(|d| fp_only.contains(&util::key(&util::underlying_object(d))))
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
