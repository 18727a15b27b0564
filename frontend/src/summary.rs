//! Serialisable summary of an analysis (`weft analyze --json`) and its text report.
//!
//! The JSON shape is stable: later tools and tests read it.
//! `{"functions": [{"name", "loops": [{"id", "parent", "depth", "trip_count",
//! "parallel", "reason", "accesses": [{"kind", "class", "base", "index", ...}],
//! ...}], "regions": ..., "affine_nests": ...}]}`; each access is listed under
//! its innermost loop. Extra fields may be added; none are removed.

use std::fmt::Write;

use serde::Serialize;

use crate::access::{AccessClass, AccessKind};
use crate::analysis::{FunctionAnalysis, ModuleAnalysis};
use crate::regions::{AffineNest, Region};

/// Summary of a module.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleSummary {
    /// Functions with bodies.
    pub functions: Vec<FunctionSummary>,
}

/// Summary of one function.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionSummary {
    /// Function name.
    pub name: String,
    /// Loops in pre-order.
    pub loops: Vec<LoopSummary>,
    /// Chapter-4 parallel regions.
    pub regions: Vec<Region>,
    /// Outermost loops with indirect accesses rejected as region candidates.
    pub rejected_regions: Vec<RejectedLoop>,
    /// Chapter-5 affine nests.
    pub affine_nests: Vec<AffineNest>,
}

/// A loop rejected as a region candidate.
#[derive(Debug, Clone, Serialize)]
pub struct RejectedLoop {
    /// The loop.
    pub loop_id: u32,
    /// Why.
    pub reason: String,
}

/// Summary of one loop.
#[derive(Debug, Clone, Serialize)]
pub struct LoopSummary {
    /// Loop id (pre-order index in its function).
    pub id: u32,
    /// Enclosing loop.
    pub parent: Option<u32>,
    /// Nesting depth (1 = outermost).
    pub depth: u32,
    /// Header block name.
    pub header: String,
    /// Latch block names.
    pub latches: Vec<String>,
    /// Preheader block name.
    pub preheader: Option<String>,
    /// Exit block names.
    pub exits: Vec<String>,
    /// Canonical form (preheader, one latch, dedicated exits).
    pub canonical: bool,
    /// Remarks on form, IVs and trip count.
    pub remarks: Vec<String>,
    /// Induction variables.
    pub induction_variables: Vec<IvSummary>,
    /// Trip count expression, or null.
    pub trip_count: Option<String>,
    /// Whether the loop is parallel.
    pub parallel: bool,
    /// Why not (null when parallel).
    pub reason: Option<String>,
    /// All reasons.
    pub reasons: Vec<String>,
    /// Scalar reductions carried by the loop.
    pub reductions: Vec<ReductionSummary>,
    /// Objects whose per-worker copies would make the loop parallel
    /// ([`crate::privatize`]); empty when none would.
    pub private: Vec<String>,
    /// Why privatisation does not help, when the loop carries a memory
    /// dependence and it does not.
    pub privatization: Option<String>,
    /// Accesses whose innermost loop this is.
    pub accesses: Vec<AccessSummary>,
}

/// An induction variable.
#[derive(Debug, Clone, Serialize)]
pub struct IvSummary {
    /// Phi name.
    pub name: String,
    /// Symbol used in expressions (`i<L>`).
    pub symbol: String,
    /// Whether it is the primary IV (the one the exit tests).
    pub primary: bool,
    /// Start expression.
    pub start: Option<String>,
    /// Step.
    pub step: i64,
    /// The exit test, for the primary IV (`i0 + 1 ne n`).
    pub exit: Option<String>,
}

/// A reduction.
#[derive(Debug, Clone, Serialize)]
pub struct ReductionSummary {
    /// Phi name.
    pub name: String,
    /// Operation.
    pub op: String,
}

/// One access.
#[derive(Debug, Clone, Serialize)]
pub struct AccessSummary {
    /// Access number within the function.
    pub id: u32,
    /// `load` or `store`.
    pub kind: AccessKind,
    /// `affine`, `indirect` or `unknown`.
    pub class: String,
    /// Base object name.
    pub base: String,
    /// Base object kind (`argument`, `global`, `alloca`, `loaded`, `other`).
    pub base_kind: String,
    /// Element index (affine form in elements, or the index expression for indirect).
    pub index: Option<String>,
    /// Byte offset from the base.
    pub offset_bytes: Option<String>,
    /// Access size in bytes.
    pub size: u64,
    /// Index array, for indirect accesses.
    pub index_array: Option<String>,
    /// Why the access is unknown.
    pub reason: Option<String>,
}

impl ModuleSummary {
    /// Summarises a module analysis.
    pub fn new(m: &ModuleAnalysis<'_>) -> ModuleSummary {
        ModuleSummary {
            functions: m.functions.iter().map(summarize_function).collect(),
        }
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Human-readable report.
    pub fn report(&self) -> String {
        let mut o = String::new();
        for f in &self.functions {
            let _ = writeln!(o, "function @{} ({} loops)", f.name, f.loops.len());
            for l in &f.loops {
                let ind = "  ".repeat(l.depth as usize);
                let _ = writeln!(
                    o,
                    "{ind}loop L{} (header {}, depth {}{}): trip count {}, {}",
                    l.id,
                    l.header,
                    l.depth,
                    l.parent.map(|p| format!(", in L{p}")).unwrap_or_default(),
                    l.trip_count.as_deref().unwrap_or("unknown"),
                    if l.parallel {
                        "PARALLEL".to_string()
                    } else {
                        "not parallel".to_string()
                    }
                );
                for iv in &l.induction_variables {
                    let _ = writeln!(
                        o,
                        "{ind}  iv {}{} start {} step {}{}",
                        iv.name,
                        if iv.primary {
                            format!(" = {}", iv.symbol)
                        } else {
                            String::new()
                        },
                        iv.start.as_deref().unwrap_or("?"),
                        iv.step,
                        iv.exit
                            .as_ref()
                            .map(|e| format!(", continues while {e}"))
                            .unwrap_or_default()
                    );
                }
                if !l.private.is_empty() {
                    let _ = writeln!(
                        o,
                        "{ind}  parallel once privatised: {}",
                        l.private.join(", ")
                    );
                } else if let Some(p) = &l.privatization {
                    let _ = writeln!(o, "{ind}  privatisation: {p}");
                }
                for r in &l.reasons {
                    let _ = writeln!(o, "{ind}  why not parallel: {r}");
                }
                for r in &l.remarks {
                    let _ = writeln!(o, "{ind}  remark: {r}");
                }
                for a in &l.accesses {
                    let detail = match a.class.as_str() {
                        "affine" => format!("{}[{}]", a.base, a.index.as_deref().unwrap_or("?")),
                        "indirect" => format!(
                            "{}[{}] (index array {})",
                            a.base,
                            a.index.as_deref().unwrap_or("?"),
                            a.index_array.as_deref().unwrap_or("?")
                        ),
                        _ => format!("{}: {}", a.base, a.reason.as_deref().unwrap_or("")),
                    };
                    let _ = writeln!(o, "{ind}  #{} {:?} {} {}", a.id, a.kind, a.class, detail);
                }
            }
            for r in &f.regions {
                let loops: Vec<String> = r
                    .loops
                    .iter()
                    .map(|c| {
                        format!(
                            "{}{}",
                            c.loop_id,
                            if c.needs_runtime_check {
                                " (runtime dependence check)"
                            } else {
                                ""
                            }
                        )
                    })
                    .collect();
                let _ = writeln!(
                    o,
                    "  parallel region {}: loops [{}], index arrays [{}]{}{}",
                    r.id,
                    loops.join(", "),
                    r.index_arrays.join(", "),
                    r.starts_after
                        .as_ref()
                        .map(|s| format!(", after {s}"))
                        .unwrap_or_default(),
                    r.ends_before
                        .as_ref()
                        .map(|s| format!(", before {s}"))
                        .unwrap_or_default()
                );
            }
            for r in &f.rejected_regions {
                let _ = writeln!(
                    o,
                    "  L{} is not a region candidate: {}",
                    r.loop_id, r.reason
                );
            }
            for n in &f.affine_nests {
                let pl: Vec<String> = n.parallel_loops.iter().map(|l| l.to_string()).collect();
                match &n.reason {
                    None => {
                        let _ = writeln!(
                            o,
                            "  affine nest {}: parallel loops [{}]",
                            n.root,
                            pl.join(", ")
                        );
                    }
                    Some(r) => {
                        let _ = writeln!(o, "  {} is not an affine-nest candidate: {r}", n.root);
                    }
                }
            }
        }
        o
    }
}

fn summarize_function(f: &FunctionAnalysis<'_>) -> FunctionSummary {
    let mut loops = Vec::new();
    for l in &f.forest.loops {
        let li = &f.ivs[l.id.index()];
        let d = &f.deps[l.id.index()];
        let mut remarks = l.remarks.clone();
        remarks.extend(li.remarks.iter().cloned());
        let ivs = li
            .ivs
            .iter()
            .enumerate()
            .map(|(k, iv)| {
                let primary = li.primary == Some(k);
                IvSummary {
                    name: iv.name.clone(),
                    symbol: format!("i{}", l.id.0),
                    primary,
                    start: iv.start.as_ref().map(|p| f.render(p)),
                    step: iv.step,
                    exit: if primary {
                        li.exit
                            .as_ref()
                            .filter(|_| li.trip_count.is_some())
                            .map(|e| {
                                let lhs = f.render(
                                    &crate::expr::Poly::sym(crate::expr::Sym::Iv(l.id))
                                        .add(&crate::expr::Poly::constant(e.offset))
                                        .unwrap_or_default(),
                                );
                                format!(
                                    "{lhs} {} {}",
                                    crate::iv::pred_name(e.continue_predicate),
                                    f.render(&e.bound)
                                )
                            })
                    } else {
                        None
                    },
                }
            })
            .collect();
        let accesses = f
            .accesses_in(l.id)
            .map(|a| {
                let render_idx = |p: &crate::expr::Poly| match p.div_exact(a.size.max(1) as i64) {
                    Some(e) => f.render(&e),
                    None => format!("({}) / {}", f.render(p), a.size),
                };
                let (index, offset, index_array, reason) = match &a.class {
                    AccessClass::Affine { offset } => {
                        (Some(render_idx(offset)), Some(f.render(offset)), None, None)
                    }
                    AccessClass::Indirect {
                        offset,
                        index_array,
                        ..
                    } => (
                        Some(render_idx(offset)),
                        Some(f.render(offset)),
                        Some(index_array.name.clone()),
                        None,
                    ),
                    AccessClass::Unknown { reason } => (None, None, None, Some(reason.clone())),
                };
                AccessSummary {
                    id: a.id.0,
                    kind: a.kind,
                    class: a.class.label().to_string(),
                    base: a.base.name.clone(),
                    base_kind: match a.base.kind {
                        crate::access::BaseKind::Argument { .. } => "argument",
                        crate::access::BaseKind::Global => "global",
                        crate::access::BaseKind::Alloca => "alloca",
                        crate::access::BaseKind::Loaded => "loaded",
                        crate::access::BaseKind::Other => "other",
                    }
                    .to_string(),
                    index,
                    offset_bytes: offset,
                    size: a.size,
                    index_array,
                    reason,
                }
            })
            .collect();
        let (private, privatization) = if d.carried.is_empty() {
            (Vec::new(), None)
        } else {
            match crate::privatize::privatize(f, l.id) {
                Ok(p) => (p.private.into_iter().map(|x| x.name).collect(), None),
                Err(e) if e == crate::privatize::NO_CANDIDATE => (Vec::new(), None),
                Err(e) => (Vec::new(), Some(e)),
            }
        };
        loops.push(LoopSummary {
            id: l.id.0,
            parent: l.parent.map(|p| p.0),
            depth: l.depth,
            header: f.cfg.name(l.header).to_string(),
            latches: l
                .latches
                .iter()
                .map(|b| f.cfg.name(*b).to_string())
                .collect(),
            preheader: l.preheader.map(|b| f.cfg.name(b).to_string()),
            exits: l.exits.iter().map(|b| f.cfg.name(*b).to_string()).collect(),
            canonical: l.canonical,
            remarks,
            induction_variables: ivs,
            trip_count: li.trip_count.as_ref().map(|t| t.render(&f.symbols)),
            parallel: d.parallel,
            reason: d.reasons.first().cloned(),
            reasons: d.reasons.clone(),
            reductions: d
                .reductions
                .iter()
                .map(|r| ReductionSummary {
                    name: r.name.clone(),
                    op: r.op.clone(),
                })
                .collect(),
            private,
            privatization,
            accesses,
        });
    }
    FunctionSummary {
        name: f.name.clone(),
        loops,
        regions: f.regions.irregular.clone(),
        rejected_regions: f
            .regions
            .rejected
            .iter()
            .map(|(l, r)| RejectedLoop {
                loop_id: l.0,
                reason: r.clone(),
            })
            .collect(),
        affine_nests: f.regions.affine_nests.clone(),
    }
}
