//! Stable loop ids across passes (issue 34 part 4): a loop keeps the id
//! `weft analyze` gives it (`L<k>`, the frontend's [`LoopId`] on the unchanged
//! module, `frontend/src/loops.rs`) in every pass's remarks, although a pass
//! that outlines a nest makes the frontend renumber the function's remaining
//! loops when it re-analyses.
//!
//! The first pass that asks takes the ids of the module as it is then, while
//! it holds no function weft generated (no `*.weft.*` function: nothing has
//! been outlined yet); later passes over the same module, and re-analyses
//! within a pass, look a loop up by its header block's name, which outlining
//! leaves alone. The ids are kept per thread for the module being optimized
//! (a pipeline runs on one thread), not in the IR, so the output module is
//! the same with or without them. A loop without a recorded id (a header
//! without a unique name, or a loop a pass created) keeps its current id.

use std::collections::HashMap;

use std::cell::RefCell;

use inkwell::module::Module;
use weft_frontend::{FunctionAnalysis, LoopId, ModuleAnalysis};

thread_local! {
    /// The module (by address) whose original ids are kept, and the ids.
    static KEPT: RefCell<Option<(usize, LoopIds)>> = const { RefCell::new(None) };
}

/// Original loop ids by (function, header block name).
#[derive(Debug, Clone, Default)]
pub struct LoopIds {
    ids: HashMap<(String, String), u32>,
}

fn header_name(fa: &FunctionAnalysis<'_>, l: LoopId) -> String {
    fa.cfg
        .block(fa.forest.get(l).header)
        .get_name()
        .to_string_lossy()
        .into_owned()
}

impl LoopIds {
    /// The original ids of `module`: those kept for it, or those of
    /// `analysis` (the module as it is now) when nothing was outlined yet.
    pub fn of_module<'ctx>(module: &Module<'ctx>, analysis: &ModuleAnalysis<'ctx>) -> LoopIds {
        let key = module.as_mut_ptr() as usize;
        let fresh = !module
            .get_functions()
            .any(|f| f.get_name().to_string_lossy().contains(".weft."));
        KEPT.with(|k| {
            let mut k = k.borrow_mut();
            match &*k {
                Some((m, ids)) if *m == key && !fresh => ids.clone(),
                _ => {
                    let ids = LoopIds::snapshot(analysis);
                    *k = Some((key, ids.clone()));
                    ids
                }
            }
        })
    }

    /// The ids of `analysis` as they are (headers with a unique name only).
    pub fn snapshot(analysis: &ModuleAnalysis<'_>) -> LoopIds {
        let mut ids = HashMap::new();
        for fa in &analysis.functions {
            let mut seen: HashMap<String, usize> = HashMap::new();
            for l in &fa.forest.loops {
                *seen.entry(header_name(fa, l.id)).or_default() += 1;
            }
            for l in &fa.forest.loops {
                let h = header_name(fa, l.id);
                if !h.is_empty() && seen[&h] == 1 {
                    ids.insert((fa.name.clone(), h), l.id.0);
                }
            }
        }
        LoopIds { ids }
    }

    /// The original id of loop `l` of `fa` (its current id when unrecorded).
    pub fn id(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> LoopId {
        self.ids
            .get(&(fa.name.clone(), header_name(fa, l)))
            .map_or(l, |&k| LoopId(k))
    }

    /// `L<k> (<header>)`, the label remarks carry.
    pub fn label(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> String {
        format!("{} ({})", self.id(fa, l), header_name(fa, l))
    }

    /// `@function L<k>`: a nest's name in remark texts.
    pub fn nest(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> String {
        format!("@{} {}", fa.name, self.id(fa, l))
    }
}
