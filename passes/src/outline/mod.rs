//! Executor form: outlining a counted loop into `void body(ctx*, lo, hi)`.
//!
//! This is the "executor" half of the inspector/executor transformation
//! (dissertation §4.4.4, Fig. 4.8(b)) and the form the chapter-5 passes reuse:
//! the loop's blocks are cloned into a new function that runs the normalised
//! iterations `k ∈ [lo, hi)` (iteration `k` of the original loop has primary
//! induction value `start + k*step`), live-in values travel in a context
//! struct the caller fills, and the original loop is replaced by a call the
//! pass emits (into the runtime's executor). The API has three steps so other
//! passes can plug their own executor call:
//!
//! 1. [`plan_loop`] checks the loop read-only and returns a [`LoopPlan`] or
//!    the reason it cannot be outlined (for the remark);
//! 2. [`clone_body`] builds a function from the plan ([`CloneKind::Executor`]
//!    for the body, [`CloneKind::Inspector`] for the address-slice skeleton);
//! 3. [`replace_loop`] fills the context in the preheader, materialises the
//!    trip count, lets the pass emit its call, rewrites live-outs and deletes
//!    the old loop.
//!
//! Invariants that make the result equal to the original bit for bit:
//! - the loop is in canonical form (preheader, one latch, dedicated exits), has
//!   a single exiting block (header or latch) whose test the frontend read as
//!   the primary IV's exit condition, and a trip count computable at entry;
//! - every header phi is an induction variable or an integer reduction with an
//!   associative and commutative operation (`add`, `sub`, `and`, `or`, `xor`),
//!   whose partial results are combined with one atomic operation per range:
//!   integer arithmetic wraps, so any combination order gives the same bits.
//!   Floating-point reductions would be reordered, so they are refused unless
//!   the caller opts in ([`PlanOptions::fp_reassoc`], `--fp-reassoc`): then
//!   `ordered` splits the range into a fixed number of blocks, each with its
//!   own partial, and combines the partials in block order (reproducible, and
//!   the same for every worker count, but not the sequential order's bits);
//! - values defined in the loop are used outside only if they are IVs (final
//!   value recomputed from the trip count) or reduction results;
//! - the loop calls nothing but intrinsics without memory effects (the caller
//!   pass decides which memory dependences are acceptable).
//!
//! The three steps are the modules `plan`, `clone` and `replace` (`ordered`
//! is the call for floating-point reductions); `ir` holds
//! the small IR helpers they and the passes share. They import one another,
//! never this file, which only declares and re-exports.

mod clone;
mod ir;
mod ordered;
mod plan;
mod replace;

pub use crate::util::entry_alloca;
pub use clone::{clone_body, context_type, relaxed, trip_count_slot, CloneKind, ClonedBody};
pub use ir::{delete_blocks, emit_if, fn_ptr, iter_type};
pub use ordered::{emit_ordered, emit_ordered_loop, BLOCKS};
pub use plan::{
    loop_label, plan_loop, plan_loop_with, privatized, IvPlan, LiveOut, LoopPlan, PlanOptions,
    PrivPlan, RedOp, RedPlan, FP_REFUSED,
};
pub use replace::{emit_trip_count, replace_loop, CallSite, CONTEXT_ALIGN};
