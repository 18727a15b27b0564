//! Dependence testing: which loops carry no dependence and may run their
//! iterations in parallel.
//!
//! A loop `L` is parallel when no pair of accesses inside it (at least one a
//! store) can touch the same location in two different iterations of `L`
//! while all loops enclosing `L` are in the same iteration (direction vector
//! `(=, ..., =, <, *, ...)`), when it has no loop-carried scalar other than
//! its induction variables, no call that may touch memory, and a trip count.
//!
//! Alias reasoning: accesses with different identified bases (a `noalias`
//! argument, a global, an alloca) never overlap; accesses to the same base are
//! tested; everything else may alias. When every access of such a may-alias
//! pair is affine or goes through an index array whose values a pre-pass can
//! read ([`crate::index_range`]), the loop gets [`AliasChecks`] (see [`crate::alias_check`]):
//! it is parallel provided the ranges the check names are disjoint at run
//! time, which a pass tests before choosing the transformed loop (loop
//! versioning); `parallel` stays false, as the verdict holds only under it.
//!
//! For two affine accesses `f(x)` and `g(y)` to one base the dependence
//! equation `f(x) - g(y) = 0` is tested with
//! * ZIV: no IV on either side, the constant difference decides;
//! * GCD: with constant coefficients, no integer solution unless the gcd of
//!   the coefficients divides the constant difference;
//! * Banerjee bounds: the range of `f(x) - g(y)` over the iteration space,
//!   with `y_L = x_L + d, d >= 1` at the tested level, `x = y` outside, and
//!   free instances inside. Ranges are polys over invariant symbols (the
//!   rectangular hull of triangular spaces); a symbolic coefficient needs a
//!   known sign, taken from the facts `T >= 1` for every enclosing trip
//!   count `T` (an access executes only if its loops run). With symbolic
//!   coefficients this subsumes SIV tests on delinearised subscripts such
//!   as `A[i*n + j]` with `0 <= j < n`.
//!
//! Scalar reductions (recognised in [`crate::reduction`]) are reported as
//! such; they still make the loop non-parallel for passes that do not
//! privatise them.

use inkwell::values::{FunctionValue, InstructionOpcode, PhiValue};
use serde::Serialize;

use crate::access::{Access, AccessClass, AccessId, AccessKind, Base, BaseKind};
use crate::alias_check::{self, AliasChecks};
use crate::cfg::Cfg;
use crate::delinearize;
use crate::expr::{gcd, Poly, Sym};
use crate::ir::{self, ValueKey};
use crate::iv::LoopIvs;
use crate::loops::{LoopForest, LoopId};
use crate::reduction::{reduction, Reduction};
use crate::symbols::SymbolTable;
use crate::triangular;

/// A memory dependence carried by a loop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CarriedDep {
    /// Source access.
    pub src: AccessId,
    /// Destination access.
    pub dst: AccessId,
    /// Why it could not be ruled out.
    pub reason: String,
}

/// Dependence verdict of one loop.
#[derive(Debug, Clone, Default)]
pub struct LoopDeps<'ctx> {
    /// Whether iterations may run in any order.
    pub parallel: bool,
    /// Why not (empty when parallel).
    pub reasons: Vec<String>,
    /// Loop-carried scalar reductions.
    pub reductions: Vec<Reduction<'ctx>>,
    /// Memory dependences carried by the loop (first few per loop).
    pub carried: Vec<CarriedDep>,
    /// Run-time alias checks under which the loop has no carried memory
    /// dependence (one entry of `reasons` says so; `carried` excludes them).
    pub checks: Option<AliasChecks<'ctx>>,
}

impl LoopDeps<'_> {
    /// Whether the loop is parallel once its run-time alias checks pass and
    /// its reductions are combined: no other reason remains.
    pub fn parallel_if_checked(&self) -> bool {
        self.carried.is_empty()
            && self.reasons.len() == self.reductions.len() + usize::from(self.checks.is_some())
    }
}

/// Alias relation of two bases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alias {
    /// Same base object.
    Same,
    /// Provably different objects.
    Distinct,
    /// Unknown.
    May,
}

/// Alias relation between two bases.
pub fn alias(a: &Base<'_>, b: &Base<'_>) -> Alias {
    if a.key() == b.key() {
        return Alias::Same;
    }
    let noalias_arg = |x: &Base<'_>| matches!(x.kind, BaseKind::Argument { noalias: true, .. });
    if noalias_arg(a) || noalias_arg(b) {
        // A noalias argument is accessed only through pointers based on it.
        return Alias::Distinct;
    }
    let local = |x: &Base<'_>| matches!(x.kind, BaseKind::Global | BaseKind::Alloca);
    if local(a) && local(b) {
        return Alias::Distinct;
    }
    if (matches!(a.kind, BaseKind::Alloca) && matches!(b.kind, BaseKind::Argument { .. }))
        || (matches!(b.kind, BaseKind::Alloca) && matches!(a.kind, BaseKind::Argument { .. }))
    {
        return Alias::Distinct;
    }
    Alias::May
}

const MAX_CARRIED: usize = 4;

/// Computes the verdict of every loop.
pub fn analyze<'ctx>(
    _f: FunctionValue<'ctx>,
    cfg: &Cfg<'ctx>,
    forest: &LoopForest,
    syms: &SymbolTable<'ctx>,
    ivs: &[LoopIvs<'ctx>],
    accesses: &[Access<'ctx>],
) -> Vec<LoopDeps<'ctx>> {
    let t = Tester { forest, syms, ivs };
    let mut out = Vec::with_capacity(forest.len());
    for l in &forest.loops {
        let mut d = LoopDeps::default();
        if ivs[l.id.index()].trip_count.is_none() {
            d.reasons
                .push("trip count unknown (not a counted loop)".into());
        }
        scalars(cfg, l.id, forest, &ivs[l.id.index()], &mut d);
        calls(cfg, forest, l.id, &mut d);
        let inside: Vec<&Access<'ctx>> = accesses
            .iter()
            .filter(|a| a.loop_id.map(|m| forest.encloses(l.id, m)).unwrap_or(false))
            .collect();
        let mut n_mem = 0usize;
        // Writes through an index array first: the remark names that
        // dependence (the inspector's case) before any other.
        for a in inside.iter().filter(|a| indirect_store(a)) {
            let r = indirect_reason(a, a);
            if n_mem == 0 {
                d.reasons.push(format!("memory dependence: {r}"));
            }
            n_mem += 1;
            d.carried.push(CarriedDep {
                src: a.id,
                dst: a.id,
                reason: r,
            });
        }
        // Base pairs a run-time check could separate.
        let mut checked: Vec<(Base<'ctx>, Base<'ctx>)> = Vec::new();
        'pairs: for a in &inside {
            for b in &inside {
                if a.kind != AccessKind::Store && b.kind != AccessKind::Store {
                    continue;
                }
                if a.id == b.id && indirect_store(a) {
                    continue; // (reported above)
                }
                if a.id > b.id && a.kind == b.kind {
                    // Symmetric store/store pairs are tested once each way below.
                }
                let rel = alias(&a.base, &b.base);
                if alias_check::checkable(a, b, rel) {
                    let (ka, kb) = (a.base.key(), b.base.key());
                    if !checked.iter().any(|(x, y)| {
                        (x.key(), y.key()) == (ka, kb) || (x.key(), y.key()) == (kb, ka)
                    }) {
                        checked.push((a.base.clone(), b.base.clone()));
                    }
                    continue;
                }
                let reason = match rel {
                    Alias::Distinct => continue,
                    Alias::May => Some(format!(
                        "{} and {} may alias (bases {} and {} are not provably distinct{})",
                        describe(a),
                        describe(b),
                        a.base.name,
                        b.base.name,
                        unchecked_because(a, b)
                    )),
                    Alias::Same => match (&a.class, &b.class) {
                        (
                            AccessClass::Affine { offset: fa },
                            AccessClass::Affine { offset: fb },
                        ) => {
                            if per_dimension_independent(&t, l.id, a, fa, b, fb) {
                                continue;
                            }
                            match t.test(l.id, a, fa, b, fb) {
                                Ok(()) => continue,
                                Err(_) if triangular_independent(&t, l.id, a, fa, b, fb) => {
                                    continue
                                }
                                Err(r) => Some(r),
                            }
                        }
                        (AccessClass::Indirect { .. }, _) | (_, AccessClass::Indirect { .. }) => {
                            Some(indirect_reason(a, b))
                        }
                        _ => Some(format!(
                            "{} and {} on {}: unknown access function",
                            describe(a),
                            describe(b),
                            a.base.name
                        )),
                    },
                };
                if let Some(r) = reason {
                    if n_mem == 0 {
                        d.reasons.push(format!("memory dependence: {r}"));
                    }
                    n_mem += 1;
                    d.carried.push(CarriedDep {
                        src: a.id,
                        dst: b.id,
                        reason: r,
                    });
                    if d.carried.len() >= MAX_CARRIED {
                        break 'pairs;
                    }
                }
            }
        }
        if !checked.is_empty() {
            match alias_check::build(cfg, forest, syms, ivs, l.id, &inside, &checked) {
                Ok(c) => {
                    let scans = c.describe_scans();
                    d.reasons.push(format!(
                        "bases {} may alias: parallel only if a run-time check finds their ranges disjoint{}",
                        c.describe(),
                        if scans.is_empty() {
                            String::new()
                        } else {
                            format!(" ({scans}: least and greatest index read by a pre-pass)")
                        }
                    ));
                    d.checks = Some(c);
                }
                Err(e) => {
                    let (x, y) = &checked[0];
                    let r = format!(
                        "bases {} and {} are not provably distinct and cannot be checked at run time ({e})",
                        x.name, y.name
                    );
                    if n_mem == 0 {
                        d.reasons.push(format!("memory dependence: {r}"));
                    }
                    if let Some((a, b)) = inside.iter().find_map(|a| {
                        inside
                            .iter()
                            .find(|b| a.base.key() == x.key() && b.base.key() == y.key())
                            .map(|b| (a.id, b.id))
                    }) {
                        d.carried.push(CarriedDep {
                            src: a,
                            dst: b,
                            reason: r,
                        });
                    }
                }
            }
        }
        d.parallel = d.reasons.is_empty();
        out.push(d);
    }
    out
}

/// Whether no dependence is carried by `l` from `a` in an iteration to `b` in
/// a later one (one of them a store): the same tests as [`analyze`] without
/// run-time checks (bases that may alias are a dependence). Used by loop
/// distribution ([`crate::distribution`]) on pairs of statements.
pub fn pair_independent(
    forest: &LoopForest,
    syms: &SymbolTable<'_>,
    ivs: &[LoopIvs<'_>],
    l: LoopId,
    a: &Access<'_>,
    b: &Access<'_>,
) -> Result<(), String> {
    if a.kind != AccessKind::Store && b.kind != AccessKind::Store {
        return Ok(());
    }
    let t = Tester { forest, syms, ivs };
    match alias(&a.base, &b.base) {
        Alias::Distinct => Ok(()),
        Alias::May => Err(format!(
            "{} and {} may alias (bases {} and {})",
            describe(a),
            describe(b),
            a.base.name,
            b.base.name
        )),
        Alias::Same => match (&a.class, &b.class) {
            (AccessClass::Affine { offset: fa }, AccessClass::Affine { offset: fb }) => {
                if per_dimension_independent(&t, l, a, fa, b, fb) {
                    return Ok(());
                }
                match t.test(l, a, fa, b, fb) {
                    Err(_) if triangular_independent(&t, l, a, fa, b, fb) => Ok(()),
                    r => r,
                }
            }
            _ => Err(format!(
                "{} and {} on {}: not both affine",
                describe(a),
                describe(b),
                a.base.name
            )),
        },
    }
}

/// Delinearised test ([`crate::delinearize`]): both accesses index the same
/// fixed-size array type with one element size, and the subscripts of some
/// dimension never meet across iterations of `l`.
fn per_dimension_independent(
    t: &Tester<'_, '_>,
    l: LoopId,
    a: &Access<'_>,
    fa: &Poly,
    b: &Access<'_>,
    fb: &Poly,
) -> bool {
    let (Some(sa), Some(sb)) = (&a.strides, &b.strides) else {
        return false;
    };
    let elem = sa.last().copied().unwrap_or(0);
    if sa != sb || a.size as i64 != elem || b.size as i64 != elem {
        return false;
    }
    let (Some(xa), Some(xb)) = (
        delinearize::subscripts(fa, sa),
        delinearize::subscripts(fb, sb),
    ) else {
        return false;
    };
    if !triangular::subscripts_fit(t.forest, t.ivs, l, a, &xa, sa)
        || !triangular::subscripts_fit(t.forest, t.ivs, l, b, &xb, sb)
    {
        return false;
    }
    xa.iter()
        .zip(&xb)
        .any(|(pa, pb)| t.test(l, a, pa, b, pb).is_ok())
}

/// Banerjee's test with triangular bounds ([`crate::triangular`]) on the
/// linearised offsets, then per delinearised dimension.
fn triangular_independent(
    t: &Tester<'_, '_>,
    l: LoopId,
    a: &Access<'_>,
    fa: &Poly,
    b: &Access<'_>,
    fb: &Poly,
) -> bool {
    let test =
        |pa: &Poly, pb: &Poly| triangular::independent(t.forest, t.syms, t.ivs, l, a, pa, b, pb);
    if test(fa, fb) {
        return true;
    }
    if let (Some(sa), Some(sb)) = (&a.strides, &b.strides) {
        let elem = sa.last().copied().unwrap_or(0);
        if sa == sb && a.size as i64 == elem && b.size as i64 == elem {
            if let (Some(xa), Some(xb)) = (
                delinearize::subscripts(fa, sa),
                delinearize::subscripts(fb, sb),
            ) {
                let fit = triangular::subscripts_fit(t.forest, t.ivs, l, a, &xa, sa)
                    && triangular::subscripts_fit(t.forest, t.ivs, l, b, &xb, sb);
                if fit && xa.iter().zip(&xb).any(|(pa, pb)| test(pa, pb)) {
                    return true;
                }
            }
        }
    }
    // A symbolic row length (`a[i*m + j]`), split where provably unique.
    fa.symbols()
        .into_iter()
        .filter(|s| matches!(s, Sym::Param(_)) && fb.mentions(*s))
        .filter_map(|m| triangular::symbolic_dims(t.forest, t.ivs, l, (a, fa), (b, fb), m))
        .any(|dims| {
            dims.iter()
                .any(|(pa, pb)| t.test(l, a, pa, b, pb).is_ok() || test(pa, pb))
        })
}

/// Whether `a` stores through an index array.
fn indirect_store(a: &Access<'_>) -> bool {
    a.kind == AccessKind::Store && matches!(a.class, AccessClass::Indirect { .. })
}

/// Why two accesses to one base, one of them through an index array
/// (`x[idx[i]]`), may conflict across iterations: only the values of the
/// index array can tell, which the inspector (`insert-inspector`, §4.4)
/// reads at run time.
fn indirect_reason(a: &Access<'_>, b: &Access<'_>) -> String {
    let (ind, other) = match a.class {
        AccessClass::Indirect { .. } => (a, b),
        _ => (b, a),
    };
    let idx = match &ind.class {
        AccessClass::Indirect { index_array, .. } => index_array.name.as_str(),
        _ => "?",
    };
    let what = if ind.kind == AccessKind::Store {
        if ind.id == other.id {
            format!(
                "{} writes {} through index array {idx}: two iterations may write the same element",
                describe(ind),
                ind.base.name
            )
        } else {
            format!(
                "{} writes {} through index array {idx}, possibly where {} in another iteration accesses it",
                describe(ind),
                ind.base.name,
                describe(other)
            )
        }
    } else {
        format!(
            "{} reads {} through index array {idx}, possibly where {} writes in another iteration",
            describe(ind),
            ind.base.name,
            describe(other)
        )
    };
    format!(
        "{what} (a dependence unless the inspector, insert-inspector, rules it out at run time)"
    )
}

/// Why a pair of possibly aliasing accesses gets no run-time alias check:
/// an unknown access function (accesses through an index array are checked,
/// see [`crate::index_range`]).
fn unchecked_because(a: &Access<'_>, b: &Access<'_>) -> String {
    [a, b]
        .into_iter()
        .find(|x| matches!(x.class, AccessClass::Unknown { .. }))
        .map(|x| format!("; {} has an unknown access function", describe(x)))
        .unwrap_or_default()
}

fn describe(a: &Access<'_>) -> String {
    format!(
        "{} #{}",
        match a.kind {
            AccessKind::Load => "load",
            AccessKind::Store => "store",
        },
        a.id.0
    )
}

fn scalars<'ctx>(
    cfg: &Cfg<'ctx>,
    l: LoopId,
    forest: &LoopForest,
    ivs: &LoopIvs<'ctx>,
    d: &mut LoopDeps<'ctx>,
) {
    let lp = forest.get(l);
    let header = cfg.block(lp.header);
    let mut inst = header.get_first_instruction();
    while let Some(i) = inst {
        if i.get_opcode() != InstructionOpcode::Phi {
            break;
        }
        inst = i.get_next_instruction();
        if ivs
            .ivs
            .iter()
            .any(|v| ValueKey::of(&v.phi) == ValueKey::of(&i))
        {
            continue;
        }
        let Ok(phi) = PhiValue::try_from(i) else {
            continue;
        };
        let name = ir::name_of(phi.as_basic_value()).unwrap_or_else(|| "%phi".into());
        match reduction(cfg, forest, l, phi) {
            Some((op, update)) => {
                d.reasons
                    .push(format!("loop-carried scalar reduction {name} ({op})"));
                d.reductions.push(Reduction {
                    phi,
                    name,
                    op,
                    update,
                });
            }
            None => d.reasons.push(format!(
                "loop-carried scalar {name} (not an induction variable or reduction)"
            )),
        }
    }
}

fn calls(cfg: &Cfg<'_>, forest: &LoopForest, l: LoopId, d: &mut LoopDeps<'_>) {
    for b in &forest.get(l).blocks {
        let mut inst = cfg.block(*b).get_first_instruction();
        while let Some(i) = inst {
            inst = i.get_next_instruction();
            if i.get_opcode() != InstructionOpcode::Call
                && i.get_opcode() != InstructionOpcode::Invoke
            {
                continue;
            }
            if crate::pure_calls::is_pure_call(i) {
                continue;
            }
            match ir::callee_name(i) {
                Some(n) if ir::is_pure_intrinsic(&n) => {}
                Some(n) => d.reasons.push(format!("call to @{n} may access memory")),
                None if ir::calls_inline_asm(i) => d
                    .reasons
                    .push("inline assembly may access memory (its effects are opaque)".into()),
                None => d.reasons.push("indirect call may access memory".into()),
            }
        }
    }
}

/// A closed interval of polys.
#[derive(Debug, Clone)]
struct Iv2 {
    lo: Poly,
    hi: Poly,
}

struct Tester<'a, 'ctx> {
    forest: &'a LoopForest,
    syms: &'a SymbolTable<'ctx>,
    ivs: &'a [LoopIvs<'ctx>],
}

type TestResult = Result<(), String>;

impl<'a, 'ctx> Tester<'a, 'ctx> {
    /// `Ok(())` when no dependence between `a` and `b` is carried by `l`.
    fn test(&self, l: LoopId, a: &Access<'_>, fa: &Poly, b: &Access<'_>, fb: &Poly) -> TestResult {
        let name = |p: &Poly| p.render(&|s| self.syms.name(s));
        let fail = |why: &str| {
            Err(format!(
                "{} [{}] and {} [{}] on {}: {why}",
                describe(a),
                name(fa),
                describe(b),
                name(fb),
                a.base.name
            ))
        };
        // Symbols that differ between two iterations of `l` make the test meaningless.
        for p in [fa, fb] {
            if !self.invariant_across(p, l) {
                return fail("index uses a value that changes between iterations");
            }
        }
        let (Some(la), Some(lb)) = (a.loop_id, b.loop_id) else {
            return fail("access outside loops");
        };
        let nest_a = self.forest.ancestors(la);
        let nest_b = self.forest.ancestors(lb);
        let mut loops: Vec<LoopId> = nest_a.iter().chain(nest_b.iter()).copied().collect();
        loops.sort();
        loops.dedup();
        let mut ga = fa.clone();
        let mut gb = fb.clone();
        let mut terms: Vec<(Poly, Iv2)> = Vec::new();
        let mut facts: Vec<Poly> = Vec::new();
        for m in &loops {
            if let Some(t) = self.ivs[m.index()]
                .trip_count
                .as_ref()
                .and_then(|t| t.as_poly())
            {
                if let Some(tp) = self.hull_poly(t, l) {
                    facts.push(tp);
                }
            }
        }
        for m in loops {
            let (ca, ra) = ga.split_iv(m);
            let (cb, rb) = gb.split_iv(m);
            ga = ra;
            gb = rb;
            if ca.is_zero() && cb.is_zero() {
                continue;
            }
            let Some(range) = self.hull_range(m, l) else {
                return fail(&format!("range of the induction variable of {m} unknown"));
            };
            let common = nest_a.contains(&m) && nest_b.contains(&m);
            if common && m != l && self.forest.encloses(m, l) {
                // Same iteration of an outer loop.
                terms.push((ca.sub(&cb).map_err(|_| "overflow".to_string())?, range));
            } else if common && m == l {
                // y = x + d with x in [lo, hi-1] and d in [1, hi-lo].
                let hi1 = range
                    .hi
                    .sub(&Poly::constant(1))
                    .map_err(|_| "overflow".to_string())?;
                let width = range
                    .hi
                    .sub(&range.lo)
                    .map_err(|_| "overflow".to_string())?;
                terms.push((
                    ca.sub(&cb).map_err(|_| "overflow".to_string())?,
                    Iv2 {
                        lo: range.lo.clone(),
                        hi: hi1,
                    },
                ));
                terms.push((
                    cb.scale(-1).map_err(|_| "overflow".to_string())?,
                    Iv2 {
                        lo: Poly::constant(1),
                        hi: width,
                    },
                ));
            } else {
                terms.push((ca, range.clone()));
                terms.push((cb.scale(-1).map_err(|_| "overflow".to_string())?, range));
            }
        }
        // Both sides must be fully decomposed now.
        if !ga.ivs().is_empty() || !gb.ivs().is_empty() {
            return fail("induction variable of an unrelated loop");
        }
        let diff = ga.sub(&gb).map_err(|_| "overflow".to_string())?;
        terms.retain(|(c, _)| !c.is_zero());
        // ZIV.
        if terms.is_empty() {
            return match diff.as_const() {
                Some(0) => fail("same location in every iteration"),
                Some(_) => Ok(()),
                None => fail("constant offsets differ by a symbolic amount"),
            };
        }
        // GCD.
        if let Some(dc) = diff.as_const() {
            if terms.iter().all(|(c, _)| c.as_const().is_some()) {
                let g = terms
                    .iter()
                    .fold(0, |g, (c, _)| gcd(g, c.as_const().unwrap_or(0)));
                if g != 0 && dc % g != 0 {
                    return Ok(());
                }
            }
        }
        // Banerjee bounds.
        let mut lo = diff.clone();
        let mut hi = diff;
        for (c, r) in &terms {
            let Some(prod) = mul_interval(c, r, &facts) else {
                return fail("coefficient of unknown sign");
            };
            lo = lo.add(&prod.lo).map_err(|_| "overflow".to_string())?;
            hi = hi.add(&prod.hi).map_err(|_| "overflow".to_string())?;
        }
        if is_negative(&hi, &facts) || is_positive(&lo, &facts) {
            return Ok(());
        }
        fail("dependence equation has solutions in the iteration space")
    }

    /// No symbol of `p` is defined inside `l`.
    fn invariant_across(&self, p: &Poly, l: LoopId) -> bool {
        p.symbols().into_iter().all(|s| match s {
            Sym::Param(id) => match self.syms.get(id).def_loop {
                Some(d) => !self.forest.encloses(l, d),
                None => true,
            },
            Sym::Iv(_) => true,
        })
    }

    /// `[lo, hi]` of loop `m`'s IV over invariant symbols only (outer IVs replaced by their hull).
    fn hull_range(&self, m: LoopId, l: LoopId) -> Option<Iv2> {
        let (lo, hi) = self.ivs[m.index()].range.clone()?;
        let lo = self.extreme(&lo, false, l, 0)?;
        let hi = self.extreme(&hi, true, l, 0)?;
        Some(Iv2 { lo, hi })
    }

    fn hull_poly(&self, p: &Poly, l: LoopId) -> Option<Poly> {
        // A trip count mentioning outer IVs is at least its minimum.
        self.extreme(p, false, l, 0)
    }

    /// Max (or min) of `p` over the ranges of the IVs it mentions.
    fn extreme(&self, p: &Poly, max: bool, l: LoopId, depth: u32) -> Option<Poly> {
        if depth > 16 || !self.invariant_across(p, l) {
            return None;
        }
        let ivs = p.ivs();
        let Some(&m) = ivs.last() else {
            return Some(p.clone());
        };
        let (c, rest) = p.split_iv(m);
        let k = c.as_const()?;
        let (lo, hi) = self.ivs[m.index()].range.clone()?;
        let pick = if (k > 0) == max { hi } else { lo };
        let sub = rest.add(&pick.scale(k).ok()?).ok()?;
        self.extreme(&sub, max, l, depth + 1)
    }
}

/// Sign of `p` (-1, 0, 1) given facts `f >= 1`, when it is known.
pub(crate) fn sign(p: &Poly, facts: &[Poly]) -> Option<i8> {
    if let Some(c) = p.as_const() {
        return Some(c.signum() as i8);
    }
    if is_positive(p, facts) {
        return Some(1);
    }
    if is_negative(p, facts) {
        return Some(-1);
    }
    None
}

/// `p >= 1`, using facts `f >= 1`: `p = k*f + c` with `k > 0` and `k + c >= 1`.
pub(crate) fn is_positive(p: &Poly, facts: &[Poly]) -> bool {
    if let Some(c) = p.as_const() {
        return c > 0;
    }
    facts.iter().any(|f| {
        let Some((m, cf)) = f.terms().find(|(m, _)| !m.is_empty()) else {
            return false;
        };
        let cp = p
            .terms()
            .find(|(pm, _)| *pm == m)
            .map(|(_, c)| c)
            .unwrap_or(0);
        if cf == 0 || cp % cf != 0 || cp / cf <= 0 {
            return false;
        }
        let k = cp / cf;
        f.scale(k)
            .ok()
            .and_then(|kf| p.sub(&kf).ok())
            .and_then(|d| d.as_const())
            .map(|c| k + c >= 1)
            .unwrap_or(false)
    })
}

/// `p <= -1`, using facts `f >= 1`.
pub(crate) fn is_negative(p: &Poly, facts: &[Poly]) -> bool {
    p.scale(-1).map(|q| is_positive(&q, facts)).unwrap_or(false)
}

fn mul_interval(c: &Poly, r: &Iv2, facts: &[Poly]) -> Option<Iv2> {
    let s = sign(c, facts)?;
    let a = c.mul(&r.lo).ok()?;
    let b = c.mul(&r.hi).ok()?;
    Some(match s {
        0 => Iv2 {
            lo: Poly::zero(),
            hi: Poly::zero(),
        },
        1 => Iv2 { lo: a, hi: b },
        _ => Iv2 { lo: b, hi: a },
    })
}
