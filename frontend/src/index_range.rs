//! Byte ranges of accesses through an index array, for run-time alias checks
//! (issue #35; [`crate::alias_check`]).
//!
//! An access `x[idx[i]]` reaches `x + c*v + rest`, where `v` is the value the
//! loop loads from `idx` in iteration `i`. Its range over the loop is known
//! once the least and greatest `v` are: a pass reads them with a pre-pass over
//! the index array (an [`IndexScan`]) before the loop, the way an inspector
//! reads the index array before the executor runs.
//!
//! The scan reads exactly the elements the loop reads, so it is only built
//! when that set is simple and every element of it is read by the loop
//! anyway (reading it is then as safe as running the loop):
//!
//! * the index load's address is affine in the IV of the checked loop `L`
//!   alone (`idx[k*i + b]`, `b` invariant), so iteration `t` of `L` reads
//!   element `first + t*stride`;
//! * the loop writes nothing through the index array's base (other bases
//!   that may alias it are in the check's pairs, so a pass that runs the
//!   parallel loop has proven they do not overlap it);
//! * the load is in `L` itself, not in an inner loop, and its block dominates
//!   every latch of `L` (it runs in every iteration; not in the header of a
//!   header-exiting loop, which runs once more than the body);
//! * the loaded value reaches the address through sign or zero extensions and
//!   truncations to at least 32 bits only, and the pass requires at run time
//!   `0 <= min <= max < 2^31` ([`INDEX_LIMIT`]), so every such cast leaves the
//!   value unchanged and the offset poly, which ignores casts, is exact.
//!
//! The scan costs one read per iteration of `L`. A loop that does not do
//! much more (fewer than [`MIN_ACCESSES_PER_SCAN`] memory accesses per
//! scanned index read) is not versioned: the pre-pass would cost about as
//! much as the parallel speed-up gains.

use inkwell::values::{InstructionOpcode, InstructionValue};

use crate::access::{Access, AccessClass, AccessKind, Base};
use crate::cfg::Cfg;
use crate::expr::{Poly, Sym, SymId};
use crate::ir::{self, ValueKey};
use crate::iv::LoopIvs;
use crate::loops::{LoopForest, LoopId};
use crate::symbols::{SymKind, SymbolTable};

/// Exclusive upper bound on the index values a scan accepts (`2^31`).
pub const INDEX_LIMIT: i64 = 1 << 31;

/// Least number of memory accesses of the loop (its own and its inner
/// loops', counted once each) per scanned index read.
pub const MIN_ACCESSES_PER_SCAN: usize = 4;

/// A pre-pass over an index array: the least and greatest value the loop
/// loads from it, element `first + t*stride` (bytes) in iteration `t`.
#[derive(Debug, Clone)]
pub struct IndexScan<'ctx> {
    /// The index array.
    pub array: Base<'ctx>,
    /// The index load of the loop (its type is the element type read).
    pub load: InstructionValue<'ctx>,
    /// Byte offset from the array of the element iteration 0 reads (over
    /// values available before the loop).
    pub first: Poly,
    /// Bytes between the elements of consecutive iterations.
    pub stride: i64,
}

/// Splits `offset` into `rest + c*v`, where `v` is the one value loaded
/// inside loop `l` that the offset uses (`None` when it uses none): the
/// symbol of `v` and the constant `c`.
pub fn split_offset(
    forest: &LoopForest,
    syms: &SymbolTable<'_>,
    l: LoopId,
    offset: &Poly,
) -> Result<(Poly, Option<(SymId, i64)>), String> {
    let varying: Vec<SymId> = offset
        .symbols()
        .into_iter()
        .filter_map(|s| match s {
            Sym::Param(id) => syms
                .get(id)
                .def_loop
                .filter(|d| forest.encloses(l, *d))
                .map(|_| id),
            Sym::Iv(_) => None,
        })
        .collect();
    let id = match varying.as_slice() {
        [] => return Ok((offset.clone(), None)),
        [id] => *id,
        _ => return Err("offset uses several values computed inside the loop".into()),
    };
    let s = Sym::Param(id);
    if syms.get(id).kind != SymKind::Load {
        return Err(format!(
            "offset uses {}, computed inside the loop",
            syms.name(s)
        ));
    }
    let (coef, rest) = offset.split_sym(s);
    match coef.as_const() {
        Some(c) if c != 0 && !rest.mentions(s) => Ok((rest, Some((id, c)))),
        _ => Err(format!(
            "offset uses index {} with a non-constant factor",
            syms.name(s)
        )),
    }
}

/// The scan of the index value `id` loaded in loop `l` (`inside`: the
/// accesses of `l`), or why none is built.
pub fn scan_of<'ctx>(
    cfg: &Cfg<'ctx>,
    forest: &LoopForest,
    syms: &SymbolTable<'ctx>,
    ivs: &[LoopIvs<'ctx>],
    l: LoopId,
    inside: &[&Access<'ctx>],
    id: SymId,
) -> Result<IndexScan<'ctx>, String> {
    let name = syms.name(Sym::Param(id));
    let load = ir::as_instruction(syms.get(id).value)
        .filter(|i| i.get_opcode() == InstructionOpcode::Load)
        .ok_or_else(|| format!("index {name} is not a load"))?;
    let x = inside
        .iter()
        .find(|a| ValueKey::of(&a.inst) == ValueKey::of(&load))
        .ok_or_else(|| format!("index {name} is not an access of the loop"))?;
    let AccessClass::Affine { offset } = &x.class else {
        return Err(format!("index {name} is not read at an affine offset"));
    };
    if inside
        .iter()
        .any(|a| a.kind == AccessKind::Store && a.base.key() == x.base.key())
    {
        return Err(format!(
            "index array {} is written in the loop",
            x.base.name
        ));
    }
    if x.loop_id != Some(l) {
        return Err(format!(
            "index {name} is read in an inner loop (its range would need a scan of that loop)"
        ));
    }
    let lp = forest.get(l);
    let info = &ivs[l.index()];
    let header_exit = info.exit.as_ref().is_some_and(|e| !e.after_body);
    if lp.latches.is_empty()
        || !lp.latches.iter().all(|t| cfg.dominates(x.block, *t))
        || (header_exit && x.block == lp.header)
    {
        return Err(format!(
            "index {name} is not read exactly once in every iteration"
        ));
    }
    if narrowed(load, 0) {
        return Err(format!("index {name} is truncated below 32 bits"));
    }
    let (c, rest) = offset.split_iv(l);
    let c = c
        .as_const()
        .ok_or_else(|| format!("index {name} is read with a symbolic stride"))?;
    let invariant = rest.ivs().iter().all(|m| !forest.encloses(l, *m))
        && rest.symbols().iter().all(|s| match s {
            Sym::Param(p) => syms.get(*p).def_loop.is_none_or(|d| !forest.encloses(l, d)),
            Sym::Iv(_) => true,
        });
    if !invariant {
        return Err(format!(
            "index {name} is read at an offset that depends on more than the loop's IV"
        ));
    }
    let iv = info
        .primary_iv()
        .ok_or("loop without a primary induction variable")?;
    let start = iv.start.clone().ok_or("start of the loop's IV unknown")?;
    let ov = |_| "index scan offset overflows".to_string();
    let first = rest.add(&start.scale(c).map_err(ov)?).map_err(ov)?;
    let stride = c
        .checked_mul(iv.step)
        .ok_or("index scan stride overflows")?;
    Ok(IndexScan {
        array: x.base.clone(),
        load,
        first,
        stride,
    })
}

/// Whether the loaded value reaches a truncation below 32 bits (through casts).
fn narrowed(v: InstructionValue<'_>, depth: u32) -> bool {
    if depth > 8 {
        return true;
    }
    ir::users(&v).into_iter().any(|u| match u.get_opcode() {
        InstructionOpcode::Trunc => {
            let w = ir::basic_value_of_inst(u)
                .filter(|x| x.is_int_value())
                .map(|x| x.into_int_value().get_type().get_bit_width())
                .unwrap_or(0);
            w < 32 || narrowed(u, depth + 1)
        }
        InstructionOpcode::SExt | InstructionOpcode::ZExt => narrowed(u, depth + 1),
        _ => false,
    })
}
