//! Loop versioning on run-time alias checks (issue #35 part 1; LLVM's
//! LoopVersioning over LoopAccessAnalysis' pointer checks).
//!
//! When the frontend proves a loop parallel only under [`AliasChecks`] (bases
//! not provably distinct, every access affine), the pass that transforms the
//! loop emits the check right before its runtime call and runs the
//! transformed loop only when it passes; otherwise the outlined body runs
//! `body(ctx, 0, tc)` on the calling thread, the original iterations in their
//! original order. The check, in the loop's preheader (after the short-loop
//! test, so short loops do not pay for it), is
//!
//! * every symbol `v` the ranges mention satisfies `-2^32 <= v < 2^32`
//!   ([`weft_frontend::alias_check::SYMBOL_BITS`]), so the ranges, evaluated
//!   in 128-bit integers, cannot wrap;
//! * every guard (an assumed sign of a symbolic coefficient) is `>= 0`;
//! * for every pair of bases `(A, B)`: `A + endA <= B + loB` or
//!   `B + endB <= A + loA`, with `lo` the least offset and `end` one past the
//!   greatest byte any access of the loop reaches through that base.
//!
//! An access through an index array (`x[idx[i]]`) has a range only once the
//! least and greatest index are known: before the check, a pre-pass reads the
//! elements of `idx` the loop will read ([`scan`]), and the check also
//! requires `0 <= min <= max < 2^31`
//! ([`weft_frontend::index_range::INDEX_LIMIT`]).
//!
//! Each outcome is counted by the runtime (`weft_alias_check`), per site.

mod scan;

use inkwell::builder::Builder;
use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicValueEnum, IntValue};
use inkwell::IntPredicate;
use weft_frontend::alias_check::{AliasChecks, SYMBOL_BITS};
use weft_frontend::index_range::INDEX_LIMIT;
use weft_frontend::{FunctionAnalysis, Poly, Sym};

use scan::ScanSpec;

use crate::error::{PassError, Result};
use crate::rtabi::{self, RtFn};

/// The IR values a check needs, taken from the analysis before the loop is
/// rewritten (every value is defined before the loop's preheader ends).
#[derive(Debug, Clone)]
pub struct VersionSpec<'ctx> {
    /// Value of each symbol the polys mention.
    syms: Vec<(Sym, BasicValueEnum<'ctx>)>,
    /// Per base: pointer, low offsets, end offsets and index terms (one per access).
    bases: Vec<BaseSpec<'ctx>>,
    /// Index arrays read by the pre-pass.
    scans: Vec<ScanSpec<'ctx>>,
    /// Base pairs that must be disjoint.
    pairs: Vec<(usize, usize)>,
    /// Polys that must be `>= 0`.
    guards: Vec<Poly>,
    /// `"A/B, ..."` for remarks.
    pub describe: String,
    /// `"x through index array idx"` for remarks (empty without a pre-pass).
    pub scans_note: String,
}

/// One base of a check: its pointer and, per access, the least offset, one
/// past the greatest byte and the index term `c*v` (scan, `c`) to add.
#[derive(Debug, Clone)]
struct BaseSpec<'ctx> {
    ptr: BasicValueEnum<'ctx>,
    lo: Vec<Poly>,
    end: Vec<Poly>,
    index: Vec<Option<(usize, i64)>>,
}

impl<'ctx> VersionSpec<'ctx> {
    /// Collects the values of `checks` from `fa`.
    pub fn new(
        fa: &FunctionAnalysis<'ctx>,
        checks: &AliasChecks<'ctx>,
    ) -> std::result::Result<Self, String> {
        let mut syms = Vec::new();
        for s in &checks.symbols {
            let v = match *s {
                Sym::Iv(m) => fa
                    .loop_ivs(m)
                    .primary_iv()
                    .ok_or("outer loop without a primary induction variable")?
                    .phi
                    .as_basic_value(),
                Sym::Param(id) => fa.symbols.get(id).value,
            };
            syms.push((*s, v));
        }
        Ok(VersionSpec {
            syms,
            bases: checks
                .bases
                .iter()
                .map(|r| BaseSpec {
                    ptr: r.base.value,
                    lo: r.lo.clone(),
                    end: r.end.clone(),
                    index: r.index.clone(),
                })
                .collect(),
            scans: checks
                .scans
                .iter()
                .map(ScanSpec::new)
                .collect::<std::result::Result<_, _>>()?,
            pairs: checks.pairs.clone(),
            guards: checks.guards.clone(),
            describe: checks.describe(),
            scans_note: checks.describe_scans(),
        })
    }

    /// Number of base pairs checked.
    pub fn pairs(&self) -> usize {
        self.pairs.len()
    }
}

fn to_i64<'ctx>(
    module: &Module<'ctx>,
    b: &Builder<'ctx>,
    v: BasicValueEnum<'ctx>,
) -> Result<IntValue<'ctx>> {
    let i64t = module.get_context().i64_type();
    Ok(match v {
        BasicValueEnum::IntValue(x) => match x.get_type().get_bit_width() {
            64 => x,
            w if w < 64 => b.build_int_s_extend(x, i64t, "")?,
            _ => b.build_int_truncate(x, i64t, "")?,
        },
        BasicValueEnum::PointerValue(p) => b.build_ptr_to_int(p, i64t, "")?,
        _ => return Err(PassError::Internal("alias check over a non-integer".into())),
    })
}

/// Emits `st = check ? parallel() : 1` at `b` (positioned before its
/// block's terminator, in a loop preheader whose loop runs `tc > 0`
/// iterations): the check, a block where it passed running
/// `parallel` (which emits the runtime call and returns its status), and a
/// join where the status is a phi. Returns the status, with `b` positioned
/// before the terminator, which moved to the join block; a non-zero status
/// means nothing ran and the caller's sequential fallback must run.
pub fn emit_guarded<'ctx>(
    module: &Module<'ctx>,
    b: &Builder<'ctx>,
    spec: &VersionSpec<'ctx>,
    tc: IntValue<'ctx>,
    parallel: impl FnOnce() -> Result<IntValue<'ctx>>,
) -> Result<IntValue<'ctx>> {
    let ok = emit_check(module, b, spec, tc)?;
    let cx = module.get_context();
    let i32t = cx.i32_type();
    let cur = b
        .get_insert_block()
        .ok_or_else(|| PassError::Internal("builder not positioned".into()))?;
    let term = cur
        .get_terminator()
        .ok_or_else(|| PassError::Internal("block without terminator".into()))?;
    let par = cx.insert_basic_block_after(cur, "weft.alias.ok");
    let join = cx.insert_basic_block_after(par, "weft.alias.join");
    term.remove_from_basic_block();
    b.position_at_end(cur);
    b.build_conditional_branch(ok, par, join)?;
    b.position_at_end(par);
    let st = parallel()?;
    if st.get_type() != i32t {
        return Err(PassError::Internal("runtime status is not an i32".into()));
    }
    let par_end = b
        .get_insert_block()
        .ok_or_else(|| PassError::Internal("builder not positioned".into()))?;
    b.build_unconditional_branch(join)?;
    b.position_at_end(join);
    let phi = b.build_phi(i32t, "weft.alias.status")?;
    phi.add_incoming(&[(&st, par_end), (&i32t.const_int(1, false), cur)]);
    b.insert_instruction(&term, None);
    b.position_before(&term);
    Ok(phi.as_basic_value().into_int_value())
}

/// Emits the check at `b` and returns its `i1` (true: ranges disjoint);
/// `tc` is the loop's trip count, the number of elements each index scan
/// reads.
pub fn emit_check<'ctx>(
    module: &Module<'ctx>,
    b: &Builder<'ctx>,
    spec: &VersionSpec<'ctx>,
    tc: IntValue<'ctx>,
) -> Result<IntValue<'ctx>> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let i128t = cx.i128_type();
    let mut ok = cx.bool_type().const_int(1, false);
    let mut vals: Vec<(Sym, IntValue<'ctx>)> = Vec::new();
    let bias = 1u64 << SYMBOL_BITS;
    for (s, v) in &spec.syms {
        let x = to_i64(module, b, *v)?;
        // -2^32 <= x < 2^32  <=>  (x + 2^32) <u 2^33.
        let shifted = b.build_int_add(x, i64t.const_int(bias, false), "")?;
        let inr = b.build_int_compare(
            IntPredicate::ULT,
            shifted,
            i64t.const_int(bias << 1, false),
            "",
        )?;
        ok = b.build_and(ok, inr, "")?;
        vals.push((*s, b.build_int_s_extend(x, i128t, "")?));
    }
    let eval = |p: &Poly| -> Result<IntValue<'ctx>> {
        let mut acc = i128t.const_zero();
        for (mono, c) in p.terms() {
            let mut t = i128t.const_int(c as u64, true);
            for s in mono {
                let v = vals
                    .iter()
                    .find(|(x, _)| x == s)
                    .map(|(_, v)| *v)
                    .ok_or_else(|| PassError::Internal("alias check symbol missing".into()))?;
                t = b.build_int_mul(t, v, "")?;
            }
            acc = b.build_int_add(acc, t, "")?;
        }
        Ok(acc)
    };
    for g in &spec.guards {
        let v = eval(g)?;
        let nonneg = b.build_int_compare(IntPredicate::SGE, v, i128t.const_zero(), "")?;
        ok = b.build_and(ok, nonneg, "")?;
    }
    // Least and greatest index of each scan, as i128.
    let mut extremes: Vec<(IntValue<'ctx>, IntValue<'ctx>)> = Vec::new();
    for sc in &spec.scans {
        let first = b.build_int_truncate(eval(&sc.first)?, i64t, "")?;
        let (mn, mx) = scan::emit_scan(module, b, sc, first, tc)?;
        let ordered = b.build_int_compare(IntPredicate::SLE, mn, mx, "")?;
        let nonneg = b.build_int_compare(IntPredicate::SGE, mn, i64t.const_zero(), "")?;
        let small = b.build_int_compare(
            IntPredicate::SLT,
            mx,
            i64t.const_int(INDEX_LIMIT as u64, false),
            "",
        )?;
        for c in [ordered, nonneg, small] {
            ok = b.build_and(ok, c, "")?;
        }
        extremes.push((
            b.build_int_s_extend(mn, i128t, "")?,
            b.build_int_s_extend(mx, i128t, "")?,
        ));
    }
    // `v + c*min` (`max`: `c*max`) of the scan, by the sign of `c`.
    let with_index =
        |v: IntValue<'ctx>, t: Option<(usize, i64)>, max: bool| -> Result<IntValue<'ctx>> {
            let Some((k, c)) = t else { return Ok(v) };
            let (mn, mx) = *extremes
                .get(k)
                .ok_or_else(|| PassError::Internal("alias check scan missing".into()))?;
            let x = if (c > 0) == max { mx } else { mn };
            let term = b.build_int_mul(i128t.const_int(c as u64, true), x, "")?;
            Ok(b.build_int_add(v, term, "")?)
        };
    let mut spans: Vec<(IntValue<'ctx>, IntValue<'ctx>)> = Vec::new();
    for bs in &spec.bases {
        let addr = b.build_int_z_extend(to_i64(module, b, bs.ptr)?, i128t, "")?;
        let mut lo: Option<IntValue<'ctx>> = None;
        for (p, t) in bs.lo.iter().zip(&bs.index) {
            let v = with_index(eval(p)?, *t, false)?;
            lo = Some(match lo {
                None => v,
                Some(m) => {
                    let lt = b.build_int_compare(IntPredicate::SLT, v, m, "")?;
                    b.build_select(lt, v, m, "")?.into_int_value()
                }
            });
        }
        let mut end: Option<IntValue<'ctx>> = None;
        for (p, t) in bs.end.iter().zip(&bs.index) {
            let v = with_index(eval(p)?, *t, true)?;
            end = Some(match end {
                None => v,
                Some(m) => {
                    let gt = b.build_int_compare(IntPredicate::SGT, v, m, "")?;
                    b.build_select(gt, v, m, "")?.into_int_value()
                }
            });
        }
        let (Some(lo), Some(end)) = (lo, end) else {
            return Err(PassError::Internal(
                "alias check base without accesses".into(),
            ));
        };
        spans.push((
            b.build_int_add(addr, lo, "weft.alias.lo")?,
            b.build_int_add(addr, end, "weft.alias.end")?,
        ));
    }
    for &(x, y) in &spec.pairs {
        let (xl, xe) = spans[x];
        let (yl, ye) = spans[y];
        let before = b.build_int_compare(IntPredicate::SLE, xe, yl, "")?;
        let after = b.build_int_compare(IntPredicate::SLE, ye, xl, "")?;
        let disjoint = b.build_or(before, after, "")?;
        ok = b.build_and(ok, disjoint, "")?;
    }
    // Count the outcome per site.
    let site = module.add_global(i64t.array_type(2), None, "weft.alias.site");
    site.set_linkage(Linkage::Internal);
    site.set_initializer(&i64t.array_type(2).const_zero());
    site.set_alignment(8);
    let f = rtabi::declare(module, RtFn::AliasCheck)?;
    let passed = b.build_int_z_extend(ok, cx.i32_type(), "")?;
    b.build_call(f, &[site.as_pointer_value().into(), passed.into()], "")?;
    Ok(ok)
}
