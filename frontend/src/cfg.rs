//! Per-function control-flow graph and dominator tree.
//!
//! Nodes are the function's basic blocks in layout order ([`BlockId`] is the
//! layout index); edges follow terminator successors. Dominators come from
//! petgraph's Cooper-Harvey-Kennedy algorithm (`simple_fast`). Blocks not
//! reachable from the entry have no immediate dominator and are ignored by the
//! loop analysis.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::values::FunctionValue;
use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::Direction;
use serde::Serialize;

use crate::ir::successors;

/// A basic block of one function (its index in layout order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct BlockId(pub u32);

impl BlockId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The CFG of one function plus its dominator tree.
pub struct Cfg<'ctx> {
    /// The blocks in layout order; `blocks[id.0]` is block `id`.
    pub blocks: Vec<BasicBlock<'ctx>>,
    /// Block names (`bbN` for unnamed blocks).
    pub names: Vec<String>,
    /// The graph; node `i` is block `BlockId(i)`.
    pub graph: DiGraph<BlockId, ()>,
    index: HashMap<BasicBlock<'ctx>, BlockId>,
    idom: Vec<Option<BlockId>>,
    dom_depth: Vec<u32>,
    reachable: Vec<bool>,
    doms: Dominators<NodeIndex>,
}

impl<'ctx> Cfg<'ctx> {
    /// Builds the CFG of a function with a body. Returns `None` for declarations.
    pub fn new(f: FunctionValue<'ctx>) -> Option<Cfg<'ctx>> {
        let blocks = f.get_basic_blocks();
        if blocks.is_empty() {
            return None;
        }
        let mut graph = DiGraph::with_capacity(blocks.len(), blocks.len() * 2);
        let mut index = HashMap::new();
        let mut names = Vec::with_capacity(blocks.len());
        for (i, b) in blocks.iter().enumerate() {
            graph.add_node(BlockId(i as u32));
            index.insert(*b, BlockId(i as u32));
            names.push(crate::ir::block_name(*b, i));
        }
        for (i, b) in blocks.iter().enumerate() {
            if let Some(t) = b.get_terminator() {
                for s in successors(t) {
                    if let Some(&j) = index.get(&s) {
                        graph.add_edge(NodeIndex::new(i), NodeIndex::new(j.index()), ());
                    }
                }
            }
        }
        let doms = simple_fast(&graph, NodeIndex::new(0));
        let n = blocks.len();
        let mut idom = vec![None; n];
        let mut reachable = vec![false; n];
        reachable[0] = true;
        for (i, slot) in idom.iter_mut().enumerate() {
            if let Some(d) = doms.immediate_dominator(NodeIndex::new(i)) {
                *slot = Some(BlockId(d.index() as u32));
                reachable[i] = true;
            }
        }
        // Depth in the dominator tree, for fast dominance queries.
        let mut dom_depth = vec![0u32; n];
        for i in 0..n {
            let mut d = 0;
            let mut cur = idom[i];
            while let Some(p) = cur {
                d += 1;
                if d as usize > n {
                    break;
                }
                cur = idom[p.index()];
            }
            dom_depth[i] = d;
        }
        Some(Cfg {
            blocks,
            names,
            graph,
            index,
            idom,
            dom_depth,
            reachable,
            doms,
        })
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Whether the function has no blocks (never true for a built CFG).
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The entry block.
    pub fn entry(&self) -> BlockId {
        BlockId(0)
    }

    /// The id of an inkwell block of this function.
    pub fn id(&self, b: BasicBlock<'ctx>) -> Option<BlockId> {
        self.index.get(&b).copied()
    }

    /// The inkwell block of an id.
    pub fn block(&self, id: BlockId) -> BasicBlock<'ctx> {
        self.blocks[id.index()]
    }

    /// The block's name.
    pub fn name(&self, id: BlockId) -> &str {
        &self.names[id.index()]
    }

    /// Successors (deduplicated).
    pub fn succs(&self, id: BlockId) -> Vec<BlockId> {
        let mut v: Vec<BlockId> = self
            .graph
            .neighbors_directed(NodeIndex::new(id.index()), Direction::Outgoing)
            .map(|n| BlockId(n.index() as u32))
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Predecessors (deduplicated).
    pub fn preds(&self, id: BlockId) -> Vec<BlockId> {
        let mut v: Vec<BlockId> = self
            .graph
            .neighbors_directed(NodeIndex::new(id.index()), Direction::Incoming)
            .map(|n| BlockId(n.index() as u32))
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Whether the block is reachable from the entry.
    pub fn is_reachable(&self, id: BlockId) -> bool {
        self.reachable[id.index()]
    }

    /// Immediate dominator (`None` for the entry and unreachable blocks).
    pub fn idom(&self, id: BlockId) -> Option<BlockId> {
        self.idom[id.index()]
    }

    /// petgraph's dominator result.
    pub fn dominators(&self) -> &Dominators<NodeIndex> {
        &self.doms
    }

    /// Whether `a` dominates `b` (reflexive).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        if !self.reachable[a.index()] || !self.reachable[b.index()] {
            return false;
        }
        let da = self.dom_depth[a.index()];
        let mut cur = b;
        while self.dom_depth[cur.index()] > da {
            match self.idom[cur.index()] {
                Some(p) => cur = p,
                None => return false,
            }
        }
        cur == a
    }
}
