//! Which loops get an inspector/executor (§4.4.1): the outermost loop of an
//! irregular region the frontend found (indirect accesses through index
//! arrays the loop does not write), planned for outlining and refused when
//! its inspector could read stale data ([`super::hazard`]); and which of its
//! loads need no place in the §4.4.6 dependence check (arrays the loop does
//! not write).

use std::collections::HashSet;

use weft_frontend::deps::{alias, Alias};
use weft_frontend::{AccessKind, FunctionAnalysis, LoopId};

use super::hazard::inspector_hazard;
use crate::outline::{self};
use crate::parallel::Decision;
use crate::util;

pub(super) fn decide<'ctx>(fa: &FunctionAnalysis<'ctx>, l: LoopId) -> Decision<'ctx> {
    let in_region = fa
        .regions
        .irregular
        .iter()
        .flat_map(|r| r.loops.iter())
        .find(|il| il.loop_id == l);
    if in_region.is_none() {
        if let Some((_, why)) = fa.regions.rejected.iter().find(|(id, _)| *id == l) {
            return Decision::Skip(format!("not an irregular region: {why}"));
        }
        return Decision::NotCandidate;
    }
    let plan = match outline::plan_loop(fa, l) {
        Ok(p) => p,
        Err(e) => return Decision::Skip(format!("irregular region not outlined: {e}")),
    };
    if let Some(h) = inspector_hazard(fa, l, &plan) {
        return Decision::Skip(format!("no inspector: {h}"));
    }
    Decision::Transform(Box::new(plan))
}

/// The loads of loop `l` from arrays the loop does not write (the frontend
/// proves their base distinct from every store's): they cannot take part in
/// a slab conflict.
pub(super) fn unchecked_loads(fa: &FunctionAnalysis<'_>, l: LoopId) -> HashSet<util::ValueKey> {
    let stores: Vec<_> = fa
        .accesses_within(l)
        .filter(|a| a.kind == AccessKind::Store)
        .collect();
    fa.accesses_within(l)
        .filter(|a| {
            a.kind == AccessKind::Load
                && stores
                    .iter()
                    .all(|s| alias(&a.base, &s.base) == Alias::Distinct)
        })
        .map(|a| util::key(&a.inst))
        .collect()
}
