//! Stable loop ids across passes (issue 34 part 4): a loop keeps the id
//! `weft analyze` gives it (`L<k>`, the frontend's [`LoopId`] on the unchanged
//! module, `frontend/src/loops.rs`) in every pass's remarks, although a pass
//! that outlines a nest makes the frontend renumber the function's remaining
//! loops when it re-analyses.
//!
//! The first pass that asks records, in the module's named metadata
//! `weft.loopids` (one node `!{function, header block, id}` per loop), the ids
//! of the module as it was then; later passes and re-analyses look a loop up
//! by its header block's name, which outlining leaves alone. A loop without a
//! recorded id (a header without a unique name, or a loop created by a pass)
//! keeps its current id.

use std::collections::HashMap;

use inkwell::module::Module;
use inkwell::values::BasicMetadataValueEnum;
use weft_frontend::{FunctionAnalysis, LoopId, ModuleAnalysis};

/// Name of the module metadata holding the original ids.
pub const MD_NAME: &str = "weft.loopids";

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
    /// The recorded ids of `module`; records those of `analysis` (the module
    /// as it is now) first when none are recorded yet.
    pub fn of_module<'ctx>(module: &Module<'ctx>, analysis: &ModuleAnalysis<'ctx>) -> LoopIds {
        let md = module.get_global_metadata(MD_NAME);
        if md.is_empty() {
            let ids = LoopIds::snapshot(analysis);
            let cx = module.get_context();
            let i64t = cx.i64_type();
            for ((f, h), id) in &ids.ids {
                let vals: [BasicMetadataValueEnum<'_>; 3] = [
                    cx.metadata_string(f).into(),
                    cx.metadata_string(h).into(),
                    i64t.const_int(u64::from(*id), false).into(),
                ];
                // A failure leaves the ids unrecorded: later passes then
                // snapshot again (their current ids), nothing worse.
                let _ = module.add_global_metadata(MD_NAME, &cx.metadata_node(&vals));
            }
            return ids;
        }
        let mut ids = HashMap::new();
        for n in md {
            let Some(ops) = n.get_node_values() else {
                continue;
            };
            if ops.len() < 3 {
                continue;
            }
            let s = |i: usize| {
                ops[i]
                    .into_metadata_value()
                    .get_string_value()
                    .map(|c| String::from_utf8_lossy(c).into_owned())
            };
            let id = match ops[2] {
                BasicMetadataValueEnum::IntValue(v) => v.get_zero_extended_constant(),
                _ => None,
            };
            if let (Some(f), Some(h), Some(id)) = (s(0), s(1), id) {
                ids.insert((f, h), id as u32);
            }
        }
        LoopIds { ids }
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
