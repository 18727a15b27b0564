//! Natural loops and the loop forest.
//!
//! A back edge is an edge `u -> h` where `h` dominates `u`; the natural loop
//! of `h` is `h` plus every block that reaches a back-edge source without
//! passing through `h`. Loops sharing a header are merged. The forest orders
//! loops by containment; `depth` is 1 for outermost loops. Loop ids are
//! assigned in pre-order of the forest with siblings in layout order of their
//! headers, so ids are stable for a given function.
//!
//! Canonical form (what LLVM's `loop-simplify` produces and what the passes
//! need to rewrite a loop): a preheader (the unique predecessor of the header
//! from outside, whose only successor is the header), a single latch, and
//! dedicated exit blocks (all of whose predecessors are in the loop).
//! Non-canonical loops are kept, with a remark saying which property fails.

use std::collections::BTreeSet;

use inkwell::basic_block::BasicBlock;
use serde::Serialize;

use crate::cfg::{BlockId, Cfg};

/// A loop of one function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct LoopId(pub u32);

impl LoopId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for LoopId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "L{}", self.0)
    }
}

/// One natural loop.
#[derive(Debug, Clone)]
pub struct Loop {
    /// Its id.
    pub id: LoopId,
    /// The header.
    pub header: BlockId,
    /// Blocks with a back edge to the header.
    pub latches: Vec<BlockId>,
    /// Blocks of the loop (including nested loops' blocks), sorted.
    pub blocks: BTreeSet<BlockId>,
    /// Blocks inside the loop with a successor outside.
    pub exiting: Vec<BlockId>,
    /// Blocks outside the loop with a predecessor inside.
    pub exits: Vec<BlockId>,
    /// The preheader, when the loop has one.
    pub preheader: Option<BlockId>,
    /// The enclosing loop.
    pub parent: Option<LoopId>,
    /// Directly nested loops, in header layout order.
    pub children: Vec<LoopId>,
    /// Nesting depth, 1 for outermost loops.
    pub depth: u32,
    /// Whether the loop has a preheader, one latch and dedicated exits.
    pub canonical: bool,
    /// Why the loop is not canonical (empty when it is).
    pub remarks: Vec<String>,
}

impl Loop {
    /// Whether `b` belongs to the loop (or a nested one).
    pub fn contains(&self, b: BlockId) -> bool {
        self.blocks.contains(&b)
    }

    /// The single latch, if there is exactly one.
    pub fn latch(&self) -> Option<BlockId> {
        if self.latches.len() == 1 {
            Some(self.latches[0])
        } else {
            None
        }
    }
}

/// All loops of a function.
#[derive(Debug, Clone, Default)]
pub struct LoopForest {
    /// Loops indexed by [`LoopId`].
    pub loops: Vec<Loop>,
    /// Outermost loops in header layout order.
    pub roots: Vec<LoopId>,
    /// Innermost loop containing each block (indexed by [`BlockId`]).
    pub innermost: Vec<Option<LoopId>>,
}

impl LoopForest {
    /// Finds the loops of a CFG.
    pub fn new(cfg: &Cfg<'_>) -> LoopForest {
        let n = cfg.len();
        // Natural loops per header.
        let mut raw: Vec<(BlockId, Vec<BlockId>, BTreeSet<BlockId>)> = Vec::new();
        for hi in 0..n {
            let h = BlockId(hi as u32);
            if !cfg.is_reachable(h) {
                continue;
            }
            let latches: Vec<BlockId> = cfg
                .preds(h)
                .into_iter()
                .filter(|&p| cfg.is_reachable(p) && cfg.dominates(h, p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            let mut body = BTreeSet::new();
            body.insert(h);
            let mut stack: Vec<BlockId> = latches.clone();
            while let Some(b) = stack.pop() {
                if body.insert(b) {
                    for p in cfg.preds(b) {
                        if cfg.is_reachable(p) && !body.contains(&p) {
                            stack.push(p);
                        }
                    }
                }
            }
            raw.push((h, latches, body));
        }
        // Parent = smallest strictly larger loop containing the header.
        let m = raw.len();
        let mut parent_raw: Vec<Option<usize>> = vec![None; m];
        for i in 0..m {
            let mut best: Option<usize> = None;
            for j in 0..m {
                if i != j && raw[j].2.contains(&raw[i].0) && raw[j].2.len() > raw[i].2.len() {
                    best = match best {
                        Some(b) if raw[b].2.len() <= raw[j].2.len() => Some(b),
                        _ => Some(j),
                    };
                }
            }
            parent_raw[i] = best;
        }
        // Pre-order numbering, siblings by header layout order.
        let mut children_raw: Vec<Vec<usize>> = vec![Vec::new(); m];
        let mut roots_raw = Vec::new();
        for (i, p) in parent_raw.iter().enumerate() {
            match p {
                Some(p) => children_raw[*p].push(i),
                None => roots_raw.push(i),
            }
        }
        for c in children_raw.iter_mut() {
            c.sort_by_key(|&i| raw[i].0);
        }
        roots_raw.sort_by_key(|&i| raw[i].0);
        let mut order = Vec::with_capacity(m);
        let mut stack: Vec<usize> = roots_raw.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            for &c in children_raw[i].iter().rev() {
                stack.push(c);
            }
        }
        let mut new_id = vec![LoopId(0); m];
        for (k, &i) in order.iter().enumerate() {
            new_id[i] = LoopId(k as u32);
        }
        let mut loops = Vec::with_capacity(m);
        for &i in &order {
            let (header, latches, blocks) = &raw[i];
            let mut exiting = Vec::new();
            let mut exits = BTreeSet::new();
            for &b in blocks {
                let mut is_exiting = false;
                for s in cfg.succs(b) {
                    if !blocks.contains(&s) {
                        exits.insert(s);
                        is_exiting = true;
                    }
                }
                if is_exiting {
                    exiting.push(b);
                }
            }
            let outside_preds: Vec<BlockId> = cfg
                .preds(*header)
                .into_iter()
                .filter(|p| !blocks.contains(p))
                .collect();
            let preheader = if outside_preds.len() == 1 && cfg.succs(outside_preds[0]).len() == 1 {
                Some(outside_preds[0])
            } else {
                None
            };
            let mut remarks = Vec::new();
            if preheader.is_none() {
                remarks.push(format!(
                    "no preheader: header {} has {} predecessor(s) outside the loop{}",
                    cfg.name(*header),
                    outside_preds.len(),
                    if outside_preds.len() == 1 {
                        " that also branches elsewhere"
                    } else {
                        ""
                    }
                ));
            }
            if latches.len() != 1 {
                remarks.push(format!(
                    "{} latches (back edges), expected 1",
                    latches.len()
                ));
            }
            for &e in &exits {
                if cfg.preds(e).iter().any(|p| !blocks.contains(p)) {
                    remarks.push(format!(
                        "exit block {} is not dedicated (it has predecessors outside the loop)",
                        cfg.name(e)
                    ));
                }
            }
            loops.push(Loop {
                id: new_id[i],
                header: *header,
                latches: latches.clone(),
                blocks: blocks.clone(),
                exiting,
                exits: exits.into_iter().collect(),
                preheader,
                parent: parent_raw[i].map(|p| new_id[p]),
                children: children_raw[i].iter().map(|&c| new_id[c]).collect(),
                depth: 0,
                canonical: remarks.is_empty(),
                remarks,
            });
        }
        for k in 0..loops.len() {
            let d = match loops[k].parent {
                Some(p) => loops[p.index()].depth + 1,
                None => 1,
            };
            loops[k].depth = d;
        }
        // Innermost loop per block: pre-order guarantees children come later.
        let mut innermost = vec![None; n];
        for l in &loops {
            for b in &l.blocks {
                innermost[b.index()] = Some(l.id);
            }
        }
        LoopForest {
            roots: roots_raw.iter().map(|&i| new_id[i]).collect(),
            loops,
            innermost,
        }
    }

    /// The loop with an id.
    pub fn get(&self, id: LoopId) -> &Loop {
        &self.loops[id.index()]
    }

    /// Number of loops.
    pub fn len(&self) -> usize {
        self.loops.len()
    }

    /// Whether there are no loops.
    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// Innermost loop containing `b`.
    pub fn loop_of(&self, b: BlockId) -> Option<LoopId> {
        self.innermost.get(b.index()).copied().flatten()
    }

    /// `l` and its ancestors, innermost first.
    pub fn ancestors(&self, l: LoopId) -> Vec<LoopId> {
        let mut v = vec![l];
        let mut cur = self.get(l).parent;
        while let Some(p) = cur {
            v.push(p);
            cur = self.get(p).parent;
        }
        v
    }

    /// The loops enclosing block `b`, outermost first.
    pub fn nest_of(&self, b: BlockId) -> Vec<LoopId> {
        match self.loop_of(b) {
            Some(l) => {
                let mut v = self.ancestors(l);
                v.reverse();
                v
            }
            None => Vec::new(),
        }
    }

    /// Whether loop `outer` contains loop `inner` (reflexive).
    pub fn encloses(&self, outer: LoopId, inner: LoopId) -> bool {
        let mut cur = Some(inner);
        while let Some(c) = cur {
            if c == outer {
                return true;
            }
            cur = self.get(c).parent;
        }
        false
    }

    /// Inkwell blocks of a loop, for passes that rewrite it.
    pub fn basic_blocks<'ctx>(&self, cfg: &Cfg<'ctx>, id: LoopId) -> Vec<BasicBlock<'ctx>> {
        self.get(id).blocks.iter().map(|b| cfg.block(*b)).collect()
    }
}
