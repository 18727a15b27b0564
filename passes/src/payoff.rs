//! When a chapter-5 schedule cannot change anything or cannot pay for itself:
//! the compile-time refusals shared by `strip-mine`, `ib-schedule`,
//! `loop-permute` and `cluster-misses` (issue 34 part 1; dissertation §5.5.1,
//! §5.5.3, §5.5.4, Algorithm 5, eq. 5.1-5.2).
//!
//! Three rules, each giving the reason a `missed` remark states:
//!
//! - **Chained iteration blocks (§5.5.4).** A nest whose scheduled loop `P`
//!   carries a dependence between two affine references to the *same* array
//!   that the dependence test cannot rule out (triangular solves, Cholesky's
//!   and LU's row updates, symmetric updates writing the rows before `i`,
//!   in-place Gauss-Seidel sweeps, dynamic-programming tables) has, in
//!   general, every IB depending on the IBs before it: the run-time DAG is a
//!   chain, the synchronised schedule runs the IBs one after another, and the
//!   inspection that finds the chain is pure cost. A dependence with a
//!   constant distance of [`MIN_CHAIN_DISTANCE`] or more iterations (`a[i]`
//!   and `a[i-40]`) leaves independent IBs and is kept. Dependences that exist only
//!   because two *different* pointers may alias are not refused: the runtime's
//!   check on the described lines can prove them distinct objects and then
//!   schedule without a DAG.
//! - **Windows of one IB (Algorithm 5, eq. 5.1).** When eq. 5.1 gives
//!   `IW = C / (D·n) <= 1` (an IB's data set is at least the core's share of
//!   the LLC), every window holds one IB per core and Algorithm 5 takes the
//!   head of the pool each time: the MLP-first, CLP-first and balanced
//!   schedules equal Default, and loop permutation inside a window has
//!   nothing to interleave. Decided when `D` is a compile-time constant.
//! - **Too little work (the runtime's fixed cost).** When `P`'s trip count is
//!   a constant giving fewer than two IBs per core, no schedule has anything
//!   to balance; when every trip count of the nest is constant and the nest
//!   runs fewer than [`MIN_NEST_ITERATIONS`] innermost iterations per
//!   execution, the runtime's fixed cost per scheduled execution (waking the
//!   workers, the plan, the descriptor or inspector pass) exceeds the work.
//!
//! The third rule has a run-time half for trip counts only known at run time:
//! [`work_spec`] gives the innermost iterations per iteration of `P` as a
//! polynomial over loop invariants (rectangular nests; triangular ones at the
//! middle of `P`, `i = tc/2`), and `ib-schedule`
//! emits, before the runtime call, `if (tc * work < min_work) body(0, tc)`:
//! the original order, with no call into the runtime (thresholds
//! [`MIN_CALL_WORK_DEFAULT`], [`MIN_CALL_WORK_BANKS`]).
//!
//! Nests are named as `weft analyze` prints them: `@function L<k>` with the
//! frontend's loop id (`frontend/src/loops.rs`) of the scheduled loop.

use std::collections::HashMap;

use inkwell::values::BasicValueEnum;
use weft_frontend::deps::{alias, Alias};
use weft_frontend::expr::Sym;
use weft_frontend::{AccessClass, FunctionAnalysis, LoopId, Poly};

use crate::loop_ids::LoopIds;
use crate::strip_plan::StripPlan;

/// Innermost iterations per execution below which a nest with constant trip
/// counts is left alone: about the work of the runtime's fixed cost of one
/// scheduled execution (tens of microseconds with the descriptor or
/// inspector pass; `docs/kernels.md`).
pub const MIN_NEST_ITERATIONS: u64 = 16_384;

/// Smallest constant dependence distance (in iterations of the scheduled loop)
/// that leaves independent IBs to run side by side: two IBs of 16 iterations,
/// the §5.5.3 line rule's size for 8-byte elements and 128-byte lines.
pub const MIN_CHAIN_DISTANCE: i64 = 32;

/// The constant distance, in iterations of `p`, between two affine byte
/// offsets that differ only in their constant term and step with `p` alike.
fn constant_distance(fa: &FunctionAnalysis<'_>, p: LoopId, a: &Poly, b: &Poly) -> Option<i64> {
    let (ca, ra) = a.split_iv(p);
    let (cb, rb) = b.split_iv(p);
    let c = ca
        .as_const()
        .filter(|c| *c != 0 && cb.as_const() == Some(*c))?;
    let d = ra.sub(&rb).ok()?.as_const()?;
    let step = fa.loop_ivs(p).primary_iv().map_or(1, |v| v.step).max(1);
    (d % c == 0).then(|| (d / c).abs() / step)
}

/// Why the IBs of `p` chain (first rule of the module docs), if they do: a
/// carried dependence between affine references to one array without a
/// constant distance of at least [`MIN_CHAIN_DISTANCE`] iterations.
pub fn chained_dependence(ids: &LoopIds, fa: &FunctionAnalysis<'_>, p: LoopId) -> Option<String> {
    let d = &fa.deps[p.index()];
    let find = |id| fa.accesses.iter().find(|a| a.id == id);
    for c in &d.carried {
        let (Some(a), Some(b)) = (find(c.src), find(c.dst)) else {
            continue;
        };
        let (AccessClass::Affine { offset: oa }, AccessClass::Affine { offset: ob }) =
            (&a.class, &b.class)
        else {
            continue;
        };
        if alias(&a.base, &b.base) != Alias::Same {
            continue;
        }
        let far = constant_distance(fa, p, oa, ob).is_some_and(|k| k >= MIN_CHAIN_DISTANCE);
        if !far {
            return Some(format!(
                "{} carries a dependence on `{}` ({}) without a constant distance of {MIN_CHAIN_DISTANCE}+ iterations: every iteration block may wait for the ones before it, so a synchronised schedule runs them one after another and its inspection is pure cost",
                ids.nest(fa, p),
                a.base.name,
                c.reason
            ));
        }
    }
    None
}

/// Constant trip count of loop `l`, if any.
fn const_trip(fa: &FunctionAnalysis<'_>, l: LoopId) -> Option<u64> {
    let tc = fa.loop_ivs(l).trip_count.as_ref()?;
    let n = tc.numerator.as_const()?;
    let s = tc.step.max(1);
    Some(((n.max(0) + s - 1) / s) as u64)
}

/// Why the nest scheduled at `p` has too little work (third rule), if so.
pub fn too_little_work(
    ids: &LoopIds,
    fa: &FunctionAnalysis<'_>,
    p: LoopId,
    sp: &StripPlan,
    cores: u64,
) -> Option<String> {
    let tc = const_trip(fa, p)?;
    let e = sp.line_iters.max(1);
    let ibs = tc.div_ceil(e);
    if ibs < 2 * cores.max(1) {
        return Some(format!(
            "{} runs {tc} iteration(s), {ibs} iteration block(s) of {e}: fewer than two per core ({cores} cores), nothing for a schedule to balance",
            ids.nest(fa, p)
        ));
    }
    // Innermost iterations of one execution (the leaves' iteration counts),
    // when every trip count of the nest is constant.
    let mut work: u64 = 0;
    let mut stack = vec![(p, 1u64)];
    while let Some((l, outer)) = stack.pop() {
        let here = outer.saturating_mul(const_trip(fa, l)?);
        let kids = &fa.forest.get(l).children;
        if kids.is_empty() {
            work = work.saturating_add(here);
        }
        stack.extend(kids.iter().map(|&c| (c, here)));
    }
    (work < MIN_NEST_ITERATIONS).then(|| {
        format!(
            "{} runs {work} innermost iteration(s) per execution (constant trip counts), below the {MIN_NEST_ITERATIONS} that pay for the runtime's fixed cost of a scheduled execution",
            ids.nest(fa, p)
        )
    })
}

/// Why Algorithm 5 cannot differ from Default for the nest at `p` (second
/// rule), if so: eq. 5.1 gives windows of one IB.
pub fn one_block_windows(
    ids: &LoopIds,
    fa: &FunctionAnalysis<'_>,
    p: LoopId,
    sp: &StripPlan,
) -> Option<String> {
    let (w, d) = (sp.iw_estimate?, sp.ds_lines?);
    (w <= 1).then(|| {
        format!(
            "{}: eq. 5.1 gives windows of {w} iteration block (D = {d} lines per block, at least the core's share of the LLC): Algorithm 5 takes the pool's head each time, so the schedule equals Default and a window has nothing to permute",
            ids.nest(fa, p)
        )
    })
}

/// Whether `scheme` (runtime code, `ib_schedule::SCHEMES`) runs Algorithm 5
/// (MLP-first, CLP-first, balanced).
pub fn is_algorithm5(scheme: u32) -> bool {
    matches!(scheme, 1..=3)
}

/// Innermost iterations per execution below which the Default scheme's
/// executor call is skipped at run time (its fixed cost is a few microseconds
/// per call: waking the workers and dealing the IBs; `docs/kernels.md`).
pub const MIN_CALL_WORK_DEFAULT: u64 = 32_768;

/// The same for the bank-aware schemes (Algorithm 5 and Locality-Aware-MLP),
/// whose call also computes every IB's bank vectors (descriptor enumeration or
/// the inspector) and the window schedule, and for nests whose IBs may depend
/// on each other (the run-time dependence check): tens of microseconds per call.
pub const MIN_CALL_WORK_BANKS: u64 = 262_144;

/// The run-time work threshold of a scheme (runtime code) for a nest proven
/// parallel (`par`) or not: a nest whose IBs may depend on each other pays
/// the runtime's dependence check on the described lines at every call, as
/// costly as the bank vectors, whatever the scheme.
pub fn min_call_work(scheme: u32, par: bool) -> u64 {
    if scheme == 0 && par {
        MIN_CALL_WORK_DEFAULT
    } else {
        MIN_CALL_WORK_BANKS
    }
}

/// Innermost iterations per iteration of the scheduled loop, as a polynomial
/// over loop invariants, with the values of its symbols before the loop.
#[derive(Debug, Clone)]
pub struct WorkSpec<'ctx> {
    /// Sum over the innermost loops of the product of the trip counts from
    /// `P` (exclusive) down to them; 1 when `P` is innermost.
    pub per_iteration: Poly,
    /// The values of the symbols `per_iteration` mentions.
    pub syms: HashMap<Sym, BasicValueEnum<'ctx>>,
    /// `per_iteration` with the source's names, for remarks.
    pub text: String,
    /// The IV of the scheduled loop when `per_iteration` mentions it (a
    /// triangular nest, `j <= i`): the guard evaluates it at the middle of
    /// the loop, `tc / 2` (the mean of `i` over `0..tc`; an estimate that
    /// errs towards the original order when `i` starts above 0).
    pub mid_iv: Option<Sym>,
}

/// The [`WorkSpec`] of `p`, when every loop inside it has a step-1 trip count
/// that depends on no IV of the nest but `p`'s own (a rectangular nest, or a
/// triangular one evaluated at the middle of `p`) and on values defined
/// before `p`.
pub fn work_spec<'ctx>(fa: &FunctionAnalysis<'ctx>, p: LoopId) -> Option<WorkSpec<'ctx>> {
    let forest = &fa.forest;
    fn below(fa: &FunctionAnalysis<'_>, p: LoopId, l: LoopId) -> Option<Poly> {
        let kids = &fa.forest.get(l).children;
        if kids.is_empty() {
            return Some(Poly::constant(1));
        }
        let mut sum = Poly::zero();
        for &c in kids {
            let tc = fa.loop_ivs(c).trip_count.as_ref()?.as_poly()?.clone();
            if tc
                .ivs()
                .iter()
                .any(|m| *m != p && fa.forest.encloses(p, *m))
            {
                return None;
            }
            sum = sum.add(&tc.mul(&below(fa, p, c)?).ok()?).ok()?;
        }
        Some(sum)
    }
    let per_iteration = below(fa, p, p)?;
    let inside = |v: BasicValueEnum<'ctx>| {
        inkwell::values::BasicValue::as_instruction_value(&v)
            .and_then(|i| i.get_parent())
            .and_then(|b| fa.cfg.id(b))
            .is_some_and(|b| forest.get(p).contains(b))
    };
    let mut syms = HashMap::new();
    let mut mid_iv = None;
    for s in per_iteration.symbols() {
        if s == Sym::Iv(p) {
            mid_iv = Some(s);
            continue;
        }
        let v = match s {
            Sym::Iv(m) => fa.loop_ivs(m).primary_iv()?.phi.as_basic_value(),
            Sym::Param(id) => {
                let info = fa.symbols.symbols.get(id.0 as usize)?;
                if info.def_loop.is_some_and(|d| forest.encloses(p, d)) {
                    return None;
                }
                info.value
            }
        };
        if inside(v) || !v.is_int_value() {
            return None;
        }
        syms.insert(s, v);
    }
    let mut text = per_iteration.render(&|s| fa.symbols.name(s));
    if let Some(s) = mid_iv {
        text = format!("{text} at {} = tc/2", fa.symbols.name(s));
    }
    Some(WorkSpec {
        per_iteration,
        syms,
        text,
        mid_iv,
    })
}
