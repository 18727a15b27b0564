//! Where a parallel loop leaves the data it writes: the serial-consumer rule
//! (issue 34, "do no harm").
//!
//! A loop run on the workers writes each chunk of its range from another core,
//! so the lines it writes end in the private caches (L1/L2) of the cores that
//! wrote them. When the next code to read that data runs on the calling thread
//! alone, every line the other cores wrote has to come back from their caches
//! first. For data that fits in a private cache this costs more than the
//! parallel loop saved: the corpus's `histogram` at its small size (two
//! initialisation loops of 20,000 iterations in `main`, 0.24 MiB, read by a
//! kernel that stays serial) ran its timed kernel 1.5x-2.3x slower than the
//! `--passes=none` build, only because the initialisation ran on two cores
//! (`docs/kernels.md`, sessions 8-12; the same binary with the initialisation
//! kept on one thread ran at the `--passes=none` time). OpenMP programmers
//! know the effect as first-touch placement and keep such loops serial by
//! hand; this module finds them at compile time.
//!
//! **The rule.** A loop `P` that a pass would run on the workers is marked
//! when
//!
//! 1. `P` is an outermost loop with no loop nested in it (an initialisation
//!    or copy loop: its iteration writes a fixed number of bytes, the sum of
//!    its stores' sizes, which gives the footprint `trip count x bytes`);
//! 2. every object `P` writes is a global, a stack object, a call result
//!    (`malloc`) or an argument of `P`'s function: not a pointer loaded from
//!    memory, whose other readers cannot be found;
//! 3. the object has at least one *consumer*, and every consumer is
//!    *serial*. The consumers of an object are the outermost loop nests of
//!    the module other than `P` that load or store through it: in `P`'s own
//!    function; in the functions it is passed to as an argument (through any
//!    depth of calls passing it on, [`MAX_CALL_DEPTH`]); for an argument of
//!    `P`'s function, in its callers (the nests and calls around each call
//!    site); for a global, anywhere. A nest is serial when no pass of the
//!    pipeline may run one of its loops on the workers by compile-time
//!    knowledge ([`crate::Pass::may_parallelize`]; the first pass that takes
//!    a loop, [`crate::Pass::takes`], decides): `parallel-for` runs the loops
//!    the dependence test finds parallel (even under run-time alias checks),
//!    `ib-schedule` and `cluster-misses` the affine nests they schedule.
//!    The index-array loops `insert-inspector` takes count as serial: whether
//!    such a region runs on the workers is the runtime's choice per
//!    execution (grain control keeps small executions on the calling thread,
//!    and dependences found at run time keep the original order); the rule
//!    does not wait for that choice.
//!
//! A marked loop keeps its transformation, but the call site runs it inline
//! (the original order on the calling thread, no runtime call) when its
//! footprint at run time is at most the limit
//! ([`crate::PipelineConfig::serial_consumer_bytes`], by default
//! [`DEFAULT_SERIAL_CONSUMER_BYTES`]): the trip-count bound of the existing
//! inline guard ([`crate::outline::replace_loop`]) becomes at least
//! `floor(limit / bytes) + 1` (inline while `trip count x bytes <=
//! limit`). Larger data does not fit in a private cache anyway, so the
//! consumer reads it from the shared cache or memory whoever wrote it, and
//! the loop keeps its parallel speed.
//!
//! What the rule cannot see: an object that escapes through memory (its
//! pointer stored and loaded elsewhere) or into a function without a body
//! has readers the rule does not count; they are neither for nor against.
//! The rule only moves work between threads of the same original order, so
//! it never changes results.

use std::collections::{HashMap, HashSet};

use inkwell::values::{InstructionOpcode, InstructionValue};
use weft_frontend::ir::{self, ValueKey};
use weft_frontend::{AccessKind, BaseKind, FunctionAnalysis, LoopId, ModuleAnalysis};

use crate::loop_ids::LoopIds;
use crate::util;

/// Default of [`crate::PipelineConfig::serial_consumer_bytes`] in `weft opt`,
/// `weft build` and `weft bench kernels`: the smaller private L2 of current
/// server cores (512 KiB on AMD Zen 2/3; 1-2 MiB on Zen 4, Intel Skylake-SP
/// and later), so data under it fits in the writing core's private caches
/// on all of them.
pub const DEFAULT_SERIAL_CONSUMER_BYTES: u64 = 512 * 1024;

/// How many calls deep an object passed on as an argument is followed.
pub const MAX_CALL_DEPTH: u32 = 4;

/// A loop whose written data only serial nests read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SerialConsumer {
    /// Bytes one iteration stores (the sum of the loop's stores' sizes).
    pub bytes_per_iteration: u64,
    /// The consuming nests, `@function L<k>` as remarks name them, sorted.
    pub consumers: Vec<String>,
}

impl SerialConsumer {
    /// The trip count at or below which the loop's footprint fits in
    /// `limit_bytes` (0 when the limit is 0: the rule is off).
    pub fn inline_below(&self, limit_bytes: u64) -> u64 {
        if limit_bytes == 0 {
            return 0;
        }
        // "tc * bytes <= limit" is "tc < floor(limit / bytes) + 1".
        limit_bytes / self.bytes_per_iteration.max(1) + 1
    }

    /// The remark's note on the rule.
    pub fn note(&self, limit_bytes: u64) -> String {
        format!(
            "; runs inline up to {} iteration(s) ({} B per iteration, at most {} B written): only serial code reads what it writes ({}), so on the workers it would leave that data in other cores' private caches",
            self.inline_below(limit_bytes).saturating_sub(1),
            self.bytes_per_iteration,
            limit_bytes,
            self.consumers.join(", ")
        )
    }
}

/// The serial-consumer verdicts of a module (see the module doc), keyed by
/// function name and the loop's id in the pipeline's input.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    by_loop: HashMap<(String, LoopId), SerialConsumer>,
}

impl Placement {
    /// Applies the rule to every loop of `analysis` (the pipeline's input).
    /// `may_parallelize` says which loops some pass of the pipeline may run
    /// on the workers ([`crate::Pass::may_parallelize`]): the producers are
    /// among them, and a nest with none of them is serial.
    pub fn analyze(
        analysis: &ModuleAnalysis<'_>,
        ids: &LoopIds,
        may_parallelize: &dyn Fn(&FunctionAnalysis<'_>, LoopId) -> bool,
    ) -> Placement {
        let m = ModuleFacts::new(analysis, ids, may_parallelize);
        let mut by_loop = HashMap::new();
        for (fi, fa) in analysis.functions.iter().enumerate() {
            for &p in &fa.forest.roots {
                if let Some(sc) = m.producer(fi, p, may_parallelize) {
                    by_loop.insert((fa.name.clone(), ids.id(fa, p)), sc);
                }
            }
        }
        Placement { by_loop }
    }

    /// The verdict on loop `input_id` (its id in the pipeline's input) of
    /// `function`, when the rule marks it.
    pub fn get(&self, function: &str, input_id: LoopId) -> Option<&SerialConsumer> {
        self.by_loop.get(&(function.to_string(), input_id))
    }

    /// Number of marked loops.
    pub fn len(&self) -> usize {
        self.by_loop.len()
    }

    /// Whether no loop is marked.
    pub fn is_empty(&self) -> bool {
        self.by_loop.is_empty()
    }
}

/// One outermost loop nest: its name, whether it is serial and what it touches.
struct Nest {
    root: LoopId,
    name: String,
    serial: bool,
    touched: HashSet<ValueKey>,
}

/// One call with a body to go into: the callee's index and the stripped
/// pointer arguments (position, value).
struct Call<'ctx> {
    inst: InstructionValue<'ctx>,
    callee: usize,
    args: Vec<(u32, ValueKey)>,
}

/// Nests and calls of every function.
struct ModuleFacts<'a, 'ctx> {
    analysis: &'a ModuleAnalysis<'ctx>,
    nests: Vec<Vec<Nest>>,
    calls: Vec<Vec<Call<'ctx>>>,
    params: Vec<Vec<ValueKey>>,
}

/// Whether the dependence test finds loop `l` parallel, possibly under
/// run-time alias checks and with its reductions combined: the loops
/// `parallel-for` may run on the workers.
pub fn parallel_by_deps(fa: &FunctionAnalysis<'_>, l: LoopId) -> bool {
    let d = &fa.deps[l.index()];
    d.parallel || d.parallel_if_checked()
}

impl<'a, 'ctx> ModuleFacts<'a, 'ctx> {
    fn new(
        analysis: &'a ModuleAnalysis<'ctx>,
        ids: &LoopIds,
        may_parallelize: &dyn Fn(&FunctionAnalysis<'_>, LoopId) -> bool,
    ) -> ModuleFacts<'a, 'ctx> {
        let index: HashMap<&str, usize> = analysis
            .functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.as_str(), i))
            .collect();
        let mut nests = Vec::new();
        let mut calls = Vec::new();
        let mut params = Vec::new();
        for fa in &analysis.functions {
            let fnests: Vec<Nest> = fa
                .forest
                .roots
                .iter()
                .map(|&r| Nest {
                    root: r,
                    name: ids.nest(fa, r),
                    serial: !fa
                        .forest
                        .loops
                        .iter()
                        .any(|lp| fa.forest.encloses(r, lp.id) && may_parallelize(fa, lp.id)),
                    touched: fa.accesses_within(r).map(|a| a.base.key()).collect(),
                })
                .collect();
            nests.push(fnests);
            params.push(fa.function.get_params().iter().map(ValueKey::of).collect());
            let mut fcalls = Vec::new();
            for i in fa
                .function
                .get_basic_blocks()
                .into_iter()
                .flat_map(util::instructions)
            {
                if i.get_opcode() != InstructionOpcode::Call {
                    continue;
                }
                let Some(callee) = ir::callee_name(i).and_then(|n| index.get(n.as_str()).copied())
                else {
                    continue;
                };
                let n = ir::num_operands(i).saturating_sub(1);
                let args = (0..n)
                    .filter_map(|k| {
                        let v = ir::value_operand(i, k)?;
                        v.is_pointer_value()
                            .then(|| (k, ValueKey::of(&util::underlying_object(v))))
                    })
                    .collect();
                fcalls.push(Call {
                    inst: i,
                    callee,
                    args,
                });
            }
            calls.push(fcalls);
        }
        ModuleFacts {
            analysis,
            nests,
            calls,
            params,
        }
    }

    /// The nests of function `f` that touch object `key` (except the nest
    /// `skip`), and those of the functions `f` passes it to (except through
    /// the call `skip_call`), as (name, serial).
    fn consumers(
        &self,
        f: usize,
        key: ValueKey,
        skip: Option<LoopId>,
        skip_call: Option<InstructionValue<'ctx>>,
        depth: u32,
        out: &mut Vec<(String, bool)>,
    ) {
        for n in &self.nests[f] {
            if Some(n.root) != skip && n.touched.contains(&key) {
                out.push((n.name.clone(), n.serial));
            }
        }
        if depth >= MAX_CALL_DEPTH {
            return;
        }
        for c in &self.calls[f] {
            if Some(c.inst) == skip_call {
                continue;
            }
            for &(pos, a) in &c.args {
                if a == key {
                    if let Some(&pk) = self.params[c.callee].get(pos as usize) {
                        self.consumers(c.callee, pk, None, None, depth + 1, out);
                    }
                }
            }
        }
    }

    /// The rule's verdict on the outermost loop `p` of function `fi`.
    fn producer(
        &self,
        fi: usize,
        p: LoopId,
        may_parallelize: &dyn Fn(&FunctionAnalysis<'_>, LoopId) -> bool,
    ) -> Option<SerialConsumer> {
        let fa = &self.analysis.functions[fi];
        if !fa.forest.get(p).children.is_empty() || !may_parallelize(fa, p) {
            return None;
        }
        let stores: Vec<_> = fa
            .accesses_in(p)
            .filter(|a| a.kind == AccessKind::Store)
            .collect();
        let bytes: u64 = stores.iter().map(|a| a.size).sum();
        if stores.is_empty() || bytes == 0 {
            return None;
        }
        let mut seen = HashSet::new();
        let mut all = Vec::new();
        for a in &stores {
            let key = a.base.key();
            if !seen.insert(key) {
                continue;
            }
            let mut found = Vec::new();
            match a.base.kind {
                BaseKind::Loaded => return None,
                BaseKind::Global => {
                    for g in 0..self.analysis.functions.len() {
                        let skip = (g == fi).then_some(p);
                        self.consumers(g, key, skip, None, 0, &mut found);
                    }
                }
                BaseKind::Argument { index, .. } => {
                    self.consumers(fi, key, Some(p), None, 0, &mut found);
                    // Around each call of this function: the caller's nests
                    // and its other calls that see the same object.
                    for (h, hcalls) in self.calls.iter().enumerate() {
                        for c in hcalls.iter().filter(|c| c.callee == fi) {
                            if let Some(&(_, actual)) = c.args.iter().find(|(k, _)| *k == index) {
                                self.consumers(h, actual, None, Some(c.inst), 0, &mut found);
                            }
                        }
                    }
                }
                BaseKind::Alloca | BaseKind::Other => {
                    self.consumers(fi, key, Some(p), None, 0, &mut found);
                }
            }
            if found.is_empty() || found.iter().any(|(_, serial)| !serial) {
                return None;
            }
            all.extend(found.into_iter().map(|(n, _)| n));
        }
        all.sort();
        all.dedup();
        Some(SerialConsumer {
            bytes_per_iteration: bytes,
            consumers: all,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_bound_is_the_footprint_limit() {
        let sc = SerialConsumer {
            bytes_per_iteration: 8,
            consumers: vec!["@k L0".into()],
        };
        // 8 B x 65,536 = 512 KiB fits; 65,537 iterations do not.
        assert_eq!(sc.inline_below(512 * 1024), 65_537);
        assert_eq!(sc.inline_below(0), 0);
        assert_eq!(sc.inline_below(7), 1);
        assert!(sc.note(512 * 1024).contains("up to 65536 iteration(s)"));
    }
}
