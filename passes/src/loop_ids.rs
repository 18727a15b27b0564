//! Stable loop identifiers for remarks: the frontend's loop ids of the
//! pipeline's input.
//!
//! The frontend numbers the loops of a function `L0, L1, ...` in its loop
//! forest's order ([`weft_frontend::LoopId`]); `weft analyze` prints those
//! numbers. A pass that outlines a loop re-analyses the function, and the
//! loops left are numbered again from `L0`: without this module the same loop
//! was `L6` in `weft analyze` and `L0` in a remark, and two different loops of
//! one function were both `L0`. [`LoopNumbering`] records, for every function,
//! the id each loop header had when the pipeline first looked at the
//! function (the pass manager numbers the whole module before the first pass,
//! so that is the input `weft analyze` sees), and remarks name loops by that
//! id for the rest of the pipeline: `@kernel L3 (for.body)`.
//!
//! Identity is the header block, which survives transformations of other
//! loops (outlining deletes only the outlined loop's blocks, and LLVM's
//! `loop-simplify` adds preheaders but keeps headers). A block is recognised
//! by its address and its name; a loop whose header the numbering has not
//! seen (one a pass created) is labelled `new loop`.

use std::collections::{HashMap, HashSet};

use weft_frontend::{FunctionAnalysis, LoopId, ModuleAnalysis};

use crate::util;

/// What the numbering knows of one loop header.
#[derive(Debug, Clone)]
struct Header {
    function: String,
    /// The block's LLVM name (empty when unnamed), to recognise it.
    llvm_name: String,
    /// Its name as `weft analyze` prints it (`bb6` when unnamed: the
    /// block's index in the function as first seen).
    shown: String,
    id: LoopId,
}

/// Loop ids of the functions as first seen (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct LoopNumbering {
    /// Header block key → what was recorded.
    by_header: HashMap<usize, Header>,
    /// Functions already numbered.
    numbered: HashSet<String>,
}

impl LoopNumbering {
    /// Numbers every function of `analysis` not numbered yet.
    pub fn record_module(&mut self, analysis: &ModuleAnalysis<'_>) {
        for fa in &analysis.functions {
            self.record(fa);
        }
    }

    /// Numbers the loops of `fa` as they are now, unless the function was
    /// numbered before.
    pub fn record(&mut self, fa: &FunctionAnalysis<'_>) {
        if !self.numbered.insert(fa.name.clone()) {
            return;
        }
        for (k, l) in fa.forest.loops.iter().enumerate() {
            let h = fa.cfg.block(l.header);
            let header = Header {
                function: fa.name.clone(),
                llvm_name: h.get_name().to_string_lossy().into_owned(),
                shown: fa.cfg.name(l.header).to_string(),
                id: LoopId(k as u32),
            };
            self.by_header.insert(util::bkey(h), header);
        }
    }

    /// What was recorded of loop `l` of `fa` (`None`: a loop created since
    /// its function was numbered). Numbers the function first if needed.
    fn header(&mut self, fa: &FunctionAnalysis<'_>, l: LoopId) -> Option<&Header> {
        self.record(fa);
        let h = fa.cfg.block(fa.forest.get(l).header);
        let name = h.get_name().to_string_lossy().into_owned();
        self.by_header
            .get(&util::bkey(h))
            .filter(|r| r.function == fa.name && r.llvm_name == name)
    }

    /// The id loop `l` of `fa` had when its function was first numbered
    /// (`None`: a loop created since).
    pub fn id(&mut self, fa: &FunctionAnalysis<'_>, l: LoopId) -> Option<LoopId> {
        self.header(fa, l).map(|r| r.id)
    }

    /// The label of loop `l` in remarks, as `weft analyze` names it in the
    /// function as first seen: `L3 (for.body)`, `L3 (bb6)` for an unnamed
    /// header; `new loop (<header>)` for a loop created since.
    pub fn label(&mut self, fa: &FunctionAnalysis<'_>, l: LoopId) -> String {
        match self.header(fa, l) {
            Some(r) => format!("{} ({})", r.id, r.shown),
            None => format!("new loop ({})", fa.cfg.name(fa.forest.get(l).header)),
        }
    }
}

/// A read-only copy of the numbering, for helpers that hold no
/// [`crate::manager::PassContext`] (the compile-time payoff checks of
/// [`crate::payoff`], the decision closures of the affine passes). Taken with
/// [`crate::manager::PassContext::loop_ids`]; lookups go by header block, so
/// the copy stays right while a pass outlines nests and re-analyses.
#[derive(Debug, Clone, Default)]
pub struct LoopIds {
    numbering: LoopNumbering,
}

impl LoopIds {
    fn header(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> Option<&Header> {
        let h = fa.cfg.block(fa.forest.get(l).header);
        let name = h.get_name().to_string_lossy().into_owned();
        self.numbering
            .by_header
            .get(&util::bkey(h))
            .filter(|r| r.function == fa.name && r.llvm_name == name)
    }

    /// The input id of loop `l` of `fa` (its current id for a loop created
    /// since the numbering).
    pub fn id(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> LoopId {
        self.header(fa, l).map_or(l, |r| r.id)
    }

    /// The remark label of loop `l`, as [`LoopNumbering::label`] gives it.
    pub fn label(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> String {
        match self.header(fa, l) {
            Some(r) => format!("{} ({})", r.id, r.shown),
            None => format!("new loop ({})", fa.cfg.name(fa.forest.get(l).header)),
        }
    }

    /// `@function L<k>`: a nest's name in remark texts.
    pub fn nest(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> String {
        match self.header(fa, l) {
            Some(r) => format!("@{} {}", fa.name, r.id),
            None => format!(
                "@{} new loop ({})",
                fa.name,
                fa.cfg.name(fa.forest.get(l).header)
            ),
        }
    }
}

impl LoopNumbering {
    /// Numbers the functions of `analysis` not numbered yet and returns a
    /// read-only copy of the whole numbering.
    pub fn snapshot(&mut self, analysis: &ModuleAnalysis<'_>) -> LoopIds {
        self.record_module(analysis);
        LoopIds {
            numbering: self.clone(),
        }
    }
}
