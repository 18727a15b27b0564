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
//! Nests are named as `weft analyze` prints them: `@function L<k>` with the
//! frontend's loop id (`frontend/src/loops.rs`) of the scheduled loop.

use weft_frontend::deps::{alias, Alias};
use weft_frontend::{AccessClass, FunctionAnalysis, LoopId, Poly};

use crate::loop_ids::LoopIds;
use crate::strip_mine::StripPlan;

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
    let c = ca.as_const().filter(|c| *c != 0 && cb.as_const() == Some(*c))?;
    let d = ra.sub(&rb).ok()?.as_const()?;
    let step = fa.loop_ivs(p).primary_iv().map_or(1, |v| v.step).max(1);
    (d % c == 0).then(|| (d / c).abs() / step)
}

/// Why the IBs of `p` chain (first rule of the module docs), if they do: a
/// carried dependence between affine references to one array without a
/// constant distance of at least [`MIN_CHAIN_DISTANCE`] iterations.
pub fn chained_dependence(
    ids: &LoopIds,
    fa: &FunctionAnalysis<'_>,
    p: LoopId,
) -> Option<String> {
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
