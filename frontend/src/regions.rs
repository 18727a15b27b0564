//! Parallel-region candidates.
//!
//! Chapter 4 (§4.4.1, Fig. 4.8): a *parallel region* starts with an
//! assignment to index arrays and ends with the next one; the loops between
//! (whose indirect references `x[idx[i]]` read index arrays not written in
//! the loop) are scheduled by the inspector/executor. Regular (affine)
//! references in those loops count too (§4.4.5), so they are listed with the
//! loop. A candidate loop that is not provably parallel (e.g. an indirect
//! store `y[dst[e]] += ...`) is still a candidate; it is marked as needing
//! the runtime's inter-slab dependence check (§4.4.6).
//!
//! Chapter 5 (§5.5.1): an *affine nest* is an outermost loop nest whose
//! accesses are all affine and whose loops all have trip counts; it is a
//! candidate when at least one of its loops is parallel.
//!
//! Candidates are outermost loops; program order is block layout order.

use inkwell::values::{FunctionValue, InstructionOpcode};
use serde::Serialize;

use crate::access::{Access, AccessClass, AccessKind};
use crate::cfg::{BlockId, Cfg};
use crate::deps::{alias, Alias, LoopDeps};
use crate::ir::{self, ValueKey};
use crate::loops::{LoopForest, LoopId};

/// A loop nest of chapter 4.
#[derive(Debug, Clone, Serialize)]
pub struct IrregularLoop {
    /// The outermost loop of the nest.
    pub loop_id: LoopId,
    /// Names of the index arrays its indirect references read.
    pub index_arrays: Vec<String>,
    /// Whether the loop is not provably parallel, so slabs need the runtime dependence check.
    pub needs_runtime_check: bool,
}

/// A parallel region of chapter 4.
#[derive(Debug, Clone, Serialize)]
pub struct Region {
    /// Region number in program order.
    pub id: u32,
    /// Candidate loops in program order.
    pub loops: Vec<IrregularLoop>,
    /// Index arrays read in the region.
    pub index_arrays: Vec<String>,
    /// The index-array assignment that opens the region (none: function entry).
    pub starts_after: Option<String>,
    /// The assignment that closes it (none: function end).
    pub ends_before: Option<String>,
}

/// An affine loop nest of chapter 5.
#[derive(Debug, Clone, Serialize)]
pub struct AffineNest {
    /// The outermost loop.
    pub root: LoopId,
    /// Loops of the nest, pre-order.
    pub loops: Vec<LoopId>,
    /// Loops of the nest proven parallel.
    pub parallel_loops: Vec<LoopId>,
    /// Whether the nest is a candidate.
    pub candidate: bool,
    /// Why not, when it is not.
    pub reason: Option<String>,
    /// Not a candidate only because no loop of the nest is parallel: every
    /// access is affine and every trip count known, so `ib-schedule` may still
    /// run it as iteration blocks ordered by a dependence DAG (§5.5.4).
    pub only_sequential: bool,
}

/// All candidates of a function.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Regions {
    /// Chapter-4 regions.
    pub irregular: Vec<Region>,
    /// Outermost loops with indirect accesses that are not candidates, with the reason.
    pub rejected: Vec<(LoopId, String)>,
    /// Chapter-5 nests (one per outermost loop).
    pub affine_nests: Vec<AffineNest>,
}

#[derive(Debug)]
enum Event {
    Candidate(IrregularLoop),
    Assign(String),
}

fn subtree(forest: &LoopForest, root: LoopId) -> Vec<LoopId> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(l) = stack.pop() {
        out.push(l);
        for &c in forest.get(l).children.iter().rev() {
            stack.push(c);
        }
    }
    out
}

/// Finds the candidates of a function.
pub fn find<'ctx>(
    cfg: &Cfg<'ctx>,
    forest: &LoopForest,
    accesses: &[Access<'ctx>],
    deps: &[LoopDeps<'ctx>],
    f: FunctionValue<'ctx>,
) -> Regions {
    let mut r = Regions::default();
    let within = |root: LoopId| -> Vec<&Access<'ctx>> {
        accesses
            .iter()
            .filter(|a| a.loop_id.map(|m| forest.encloses(root, m)).unwrap_or(false))
            .collect()
    };
    // Index arrays of every nest.
    let mut all_index: Vec<crate::access::Base<'ctx>> = Vec::new();
    for &root in &forest.roots {
        for a in within(root) {
            if let AccessClass::Indirect { index_array, .. } = &a.class {
                if !all_index.iter().any(|b| b.key() == index_array.key()) {
                    all_index.push(index_array.clone());
                }
            }
        }
    }
    let _ = f;
    let mut events: Vec<((BlockId, u32), Event)> = Vec::new();
    for &root in &forest.roots {
        let acc = within(root);
        let loops = subtree(forest, root);
        // Chapter 5.
        let mut reason = None;
        if let Some(a) = acc
            .iter()
            .find(|a| !matches!(a.class, AccessClass::Affine { .. }))
        {
            reason = Some(format!(
                "{} access #{} to {} is {}",
                if a.kind == AccessKind::Store {
                    "store"
                } else {
                    "load"
                },
                a.id.0,
                a.base.name,
                a.class.label()
            ));
        } else if let Some(l) = loops.iter().find(|l| {
            deps[l.index()]
                .reasons
                .iter()
                .any(|r| r.starts_with("trip count"))
        }) {
            reason = Some(format!("trip count of {l} unknown"));
        }
        let parallel_loops: Vec<LoopId> = loops
            .iter()
            .copied()
            .filter(|l| deps[l.index()].parallel)
            .collect();
        let only_sequential = reason.is_none() && parallel_loops.is_empty();
        if only_sequential {
            reason = Some("no loop of the nest is parallel".into());
        }
        r.affine_nests.push(AffineNest {
            root,
            loops: loops.clone(),
            parallel_loops,
            candidate: reason.is_none(),
            reason,
            only_sequential,
        });
        // Chapter 4.
        let mut index: Vec<crate::access::Base<'ctx>> = Vec::new();
        for a in &acc {
            if let AccessClass::Indirect { index_array, .. } = &a.class {
                if !index.iter().any(|b| b.key() == index_array.key()) {
                    index.push(index_array.clone());
                }
            }
        }
        let header = forest.get(root).header;
        let writes_index: Option<String> = acc
            .iter()
            .filter(|a| a.kind == AccessKind::Store)
            .find_map(|a| {
                all_index
                    .iter()
                    .find(|ix| alias(&a.base, ix) != Alias::Distinct)
                    .map(|ix| format!("store to index array {} in {}", ix.name, root))
            });
        if index.is_empty() {
            if let Some(w) = writes_index {
                events.push(((header, 0), Event::Assign(w)));
            }
            continue;
        }
        if let Some(w) = writes_index {
            r.rejected
                .push((root, format!("index array written inside the loop ({w})")));
            events.push(((header, 0), Event::Assign(w)));
            continue;
        }
        let opaque = deps[root.index()]
            .reasons
            .iter()
            .find(|x| x.starts_with("call to") || x.starts_with("indirect call"));
        if let Some(c) = opaque {
            r.rejected
                .push((root, format!("{c} (it may write the index arrays)")));
            continue;
        }
        let mut names: Vec<String> = index.iter().map(|b| b.name.clone()).collect();
        names.sort();
        names.dedup();
        events.push((
            (header, 0),
            Event::Candidate(IrregularLoop {
                loop_id: root,
                index_arrays: names,
                needs_runtime_check: !deps[root.index()].parallel,
            }),
        ));
    }
    // Index-array assignments outside loops: stores and calls passing an index array.
    for bi in 0..cfg.len() {
        let b = BlockId(bi as u32);
        if forest.loop_of(b).is_some() {
            continue;
        }
        let mut pos = 1u32;
        let mut inst = cfg.block(b).get_first_instruction();
        while let Some(i) = inst {
            inst = i.get_next_instruction();
            pos += 1;
            match i.get_opcode() {
                InstructionOpcode::Store => {
                    if let Some(p) = ir::value_operand(i, 1) {
                        let base = strip_gep(p);
                        if let Some(ix) =
                            all_index.iter().find(|ix| ix.key() == ValueKey::of(&base))
                        {
                            events.push((
                                (b, pos),
                                Event::Assign(format!("store to index array {}", ix.name)),
                            ));
                        }
                    }
                }
                InstructionOpcode::Call | InstructionOpcode::Invoke => {
                    let name = ir::callee_name(i).unwrap_or_else(|| "<indirect>".into());
                    if ir::is_pure_intrinsic(&name) || crate::pure_calls::is_pure_call(i) {
                        continue;
                    }
                    let args = ir::value_operands(i);
                    let hit = all_index.iter().find(|ix| {
                        args.iter()
                            .any(|a| ValueKey::of(&strip_gep(*a)) == ix.key())
                            || matches!(ix.kind, crate::access::BaseKind::Global)
                    });
                    if let Some(ix) = hit {
                        events.push((
                            (b, pos),
                            Event::Assign(format!(
                                "call @{name} may assign index array {}",
                                ix.name
                            )),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    events.sort_by_key(|e| e.0);
    let mut current: Vec<IrregularLoop> = Vec::new();
    let mut opened_by: Option<String> = None;
    let flush = |current: &mut Vec<IrregularLoop>,
                 opened: &Option<String>,
                 closed: Option<String>,
                 out: &mut Vec<Region>| {
        if current.is_empty() {
            return;
        }
        let mut ix: Vec<String> = current
            .iter()
            .flat_map(|c| c.index_arrays.clone())
            .collect();
        ix.sort();
        ix.dedup();
        out.push(Region {
            id: out.len() as u32,
            loops: std::mem::take(current),
            index_arrays: ix,
            starts_after: opened.clone(),
            ends_before: closed,
        });
    };
    for (_, e) in events {
        match e {
            Event::Candidate(c) => current.push(c),
            Event::Assign(w) => {
                flush(&mut current, &opened_by, Some(w.clone()), &mut r.irregular);
                opened_by = Some(w);
            }
        }
    }
    flush(&mut current, &opened_by, None, &mut r.irregular);
    r
}

fn strip_gep<'ctx>(
    mut v: inkwell::values::BasicValueEnum<'ctx>,
) -> inkwell::values::BasicValueEnum<'ctx> {
    for _ in 0..32 {
        match ir::as_instruction(v) {
            Some(i)
                if matches!(
                    i.get_opcode(),
                    InstructionOpcode::GetElementPtr | InstructionOpcode::BitCast
                ) =>
            {
                match ir::value_operand(i, 0) {
                    Some(b) => v = b,
                    None => return v,
                }
            }
            _ => return v,
        }
    }
    v
}
