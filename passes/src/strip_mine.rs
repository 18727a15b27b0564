//! `strip-mine`: iteration-block (IB) and iteration-window (IW) sizes of the
//! chapter-5 affine nests (dissertation §5.5.1, §5.5.3, eq. 5.1, Fig. 5.4(c)).
//!
//! The strip-mined nest of Fig. 5.4(c) is realised in executor form: the
//! scheduled loop `P` (the outermost parallel loop of the nest, or the root of
//! a nest whose IBs depend on each other) is outlined by `ib-schedule` and its
//! normalised iterations are cut into IBs of `ib` consecutive iterations by
//! the runtime (`weft_run_affine(.., lo, hi, ib, ..)`); the IW loop is the
//! runtime's window of eq. 5.1. This pass decides the sizes and records them
//! in the module (named metadata `weft.strip`, one node per loop:
//! `!{function, header, line_iters, head, max_ibs, iw_estimate}`), which
//! `ib-schedule` reads; without it `ib-schedule` computes the same plan.
//!
//! Rules (invariants the tests check):
//! - **Cache-line rule (§5.5.3).** Let `s` be the smallest non-zero constant
//!   byte stride per iteration of `P` over the nest's affine references and
//!   `L` the LLC line size. When `s < L`, `E = L / s` iterations share a line
//!   and every IB is a multiple of `E` iterations. The first boundary is put
//!   where the reference with the smallest offset of that stride group enters
//!   a new line (the `a[j][i-1]` reference of Fig. 5.4(a)), so iterations `k`
//!   and `k+1` of the text land in the same IB: the iterations before it form
//!   a separate leading block (`head`), assuming line-aligned array bases
//!   (only performance depends on that assumption). When `s ≥ L` (or the stride
//!   is symbolic, e.g. a row of `n` elements) `E = 1`.
//! - **Small IBs.** An IB is `E` iterations, grown in multiples of `E` only
//!   as needed to keep at most `max_ibs` IBs per execution (Algorithm 5 is
//!   O(N·M²) in the number M of IBs); the final size is computed at run time
//!   from the trip count, so it is exact for any trip count (the last IB is
//!   partial).
//! - **IW size (eq. 5.1).** `IW = C / (D · n)` with `C` the LLC capacity in
//!   lines, `D` the lines an IB touches and `n` the cores. When `D` is known
//!   at compile time (all strides and inner trip counts constant) the estimate
//!   is reported; the runtime recomputes `D` from the inspected addresses and
//!   applies eq. 5.1 at loop entry (its stats hold the value used).
//! - **Pay-off (issue 34).** No plan is recorded for a nest whose IBs are
//!   chained by a dependence on one array or whose work is too small for the
//!   runtime's fixed cost ([`crate::payoff`]); the `missed` remark names the
//!   nest as `weft analyze` does (`@function L<k>`) and states the reason.
//!   (Windows of one IB depend on the scheme: `ib-schedule` decides those.)

use inkwell::module::Module;
use inkwell::values::{BasicMetadataValueEnum, MetadataValue};
use weft_frontend::expr::Sym;
use weft_frontend::{AccessClass, FunctionAnalysis, LoopId};
use weft_memsim::config::MachineConfig;

use crate::error::{PassError, Result};
use crate::manager::{Changed, Pass, PassContext, RemarkKind};
use crate::parallel;
use crate::payoff;
use crate::pipeline::PassOptions;

/// Options of `strip-mine`.
pub const OPTIONS: &[(&str, &str)] = &[
    (
        "max-ibs",
        "upper bound on IBs per execution; IBs grow in multiples of the line rule to respect it (default 512)",
    ),
    (
        "line",
        "cache-line bytes for the IB rule (default: the machine's LLC line)",
    ),
    (
        "only",
        "`|`-separated globs of functions to look at (default: all defined)",
    ),
];

/// Default bound on the number of IBs per execution.
pub const DEFAULT_MAX_IBS: u64 = 512;

pub use crate::strip_plan::StripPlan;

/// The machine the passes assume: `--machine` or the Table 5.2 default.
pub fn machine(cx: &PassContext<'_>) -> Result<MachineConfig> {
    match &cx.config.machine {
        None => Ok(MachineConfig::default()),
        Some(m) => MachineConfig::load(m).map_err(|e| PassError::Machine {
            path: m.to_string(),
            message: e.to_string(),
        }),
    }
}

/// Whether loop `l` is in an affine nest the chapter 5 passes (`ib-schedule`,
/// `cluster-misses`) may schedule on the workers: a candidate nest with a
/// scheduled loop, or one whose only obstacle is that no loop is parallel
/// (`ib-schedule`'s dependence DAG), as [`crate::ib_schedule::decide_affine`]
/// first checks.
pub fn may_be_scheduled(fa: &FunctionAnalysis<'_>, l: LoopId) -> bool {
    fa.regions.affine_nests.iter().any(|n| {
        n.loops.contains(&l)
            && scheduled_loop(fa, n.root).is_some_and(|(_, par)| par || n.only_sequential)
    })
}

/// Chooses the loop of nest `root` that the executor schedules: the outermost
/// parallel loop, or, when no loop is parallel (IBs depend on each other and
/// are synchronised by the runtime, §5.5.4), the root.
pub fn scheduled_loop(fa: &FunctionAnalysis<'_>, root: LoopId) -> Option<(LoopId, bool)> {
    let nest = fa.regions.affine_nests.iter().find(|n| n.root == root)?;
    if nest.candidate {
        // Pre-order: the first parallel loop in `loops` is the outermost.
        let p = nest
            .loops
            .iter()
            .copied()
            .find(|l| nest.parallel_loops.contains(l))?;
        return Some((p, true));
    }
    Some((root, false))
}

/// Computes the strip plan of loop `p` (§5.5.3, eq. 5.1).
pub fn plan(
    fa: &FunctionAnalysis<'_>,
    p: LoopId,
    line: u64,
    llc_lines: u64,
    cores: u64,
    max_ibs: u64,
) -> StripPlan {
    let ivs = fa.loop_ivs(p);
    let step = ivs.primary_iv().map(|v| v.step).unwrap_or(1).max(1);
    let start = ivs
        .primary_iv()
        .and_then(|v| v.start.as_ref())
        .and_then(|s| s.as_const());
    // (stride bytes per iteration, constant byte offset if fully constant apart from P's IV)
    let mut refs: Vec<(Option<i64>, Option<i64>)> = Vec::new();
    let mut symbolic = 0;
    let mut backward = false;
    for a in fa.accesses_within(p) {
        let AccessClass::Affine { offset } = &a.class else {
            continue;
        };
        let (coef, rest) = offset.split_iv(p);
        match coef.as_const() {
            Some(0) => {}
            Some(c) => {
                let inner_free = rest.symbols().iter().all(|s| !matches!(s, Sym::Iv(_)));
                let off = if inner_free && rest.as_const().is_some() {
                    rest.as_const()
                } else {
                    None
                };
                if c * step < 0 {
                    backward = true;
                }
                refs.push((Some((c * step).abs()), off));
            }
            None => {
                symbolic += 1;
                refs.push((None, None));
            }
        }
    }
    let min_stride = refs.iter().filter_map(|r| r.0).filter(|s| *s > 0).min();
    let (e, head, why) = match min_stride {
        Some(s) if (s as u64) < line && symbolic == 0 => {
            let e = (line / s as u64).max(1);
            // The group of references with stride s: the smallest offset decides the boundary.
            let omin = refs
                .iter()
                .filter(|r| r.0 == Some(s))
                .map(|r| r.1)
                .collect::<Option<Vec<i64>>>()
                .and_then(|v| v.into_iter().min());
            let head = match (omin, start) {
                (Some(o), Some(st)) if !backward => {
                    // `rest` excludes the IV, so the byte position at normalised
                    // iteration k is o + coef*(st + k*step) = o + coef*st + s*k.
                    let pos0 = o + s * st / step;
                    let r = pos0.rem_euclid(line as i64);
                    if r == 0 {
                        0
                    } else {
                        (((line as i64 - r) + s - 1) / s) as u64 % e
                    }
                }
                _ => 0,
            };
            (
                e,
                head,
                format!("smallest stride {s} B < line {line} B: {e} iterations per line"),
            )
        }
        Some(s) if symbolic == 0 => (1, 0, format!("smallest stride {s} B >= line {line} B")),
        None if symbolic == 0 => (1, 0, "no reference varies with the loop".to_string()),
        _ => (
            1,
            0,
            format!(
                "{symbolic} reference(s) with a symbolic stride (rows): one iteration per IB unit"
            ),
        ),
    };
    // D for one E-iteration IB: constant strides only, inner loops constant trip counts.
    let ds = (|| {
        let mut d = 0u64;
        for (s, _) in &refs {
            let s = (*s)? as u64;
            d += (e * s).div_ceil(line) + 1;
        }
        // Inner loops must not multiply the footprint by unknown counts.
        for a in fa.accesses_within(p) {
            if let AccessClass::Affine { offset } = &a.class {
                if offset.ivs().iter().any(|l| *l != p) {
                    return None;
                }
            }
        }
        Some(d.max(1))
    })();
    let iw = ds.map(|d| weft_runtime::mlp::iw_size(llc_lines, d as f64, cores as usize) as u64);
    StripPlan {
        line_iters: e,
        head,
        max_ibs: max_ibs.max(1),
        iw_estimate: iw,
        ds_lines: ds,
        why,
    }
}

/// The `strip-mine` pass.
#[derive(Debug, Clone)]
pub struct StripMine {
    /// Bound on IBs per execution.
    pub max_ibs: u64,
    /// Line size override.
    pub line: Option<u64>,
    /// Function globs.
    pub only: Vec<String>,
}

impl StripMine {
    /// Builds the pass from its options.
    pub fn from_options(o: &PassOptions) -> Result<StripMine> {
        let max_ibs = o.u64_or("max-ibs", DEFAULT_MAX_IBS)?;
        if max_ibs == 0 {
            return Err(PassError::BadOption {
                pass: "strip-mine".into(),
                option: "max-ibs".into(),
                message: "must be positive".into(),
            });
        }
        let line = match o.get("line") {
            None => None,
            Some(_) => Some(o.u64_or("line", 0)?).filter(|l| *l > 0),
        };
        Ok(StripMine {
            max_ibs,
            line,
            only: o.list("only"),
        })
    }
}

/// Name of the module metadata holding strip plans.
pub const MD_NAME: &str = "weft.strip";

/// Records a plan for loop `header` of `function`.
pub fn record(module: &Module<'_>, function: &str, header: &str, sp: &StripPlan) -> Result<()> {
    let cx = module.get_context();
    let i64t = cx.i64_type();
    let vals: [BasicMetadataValueEnum<'_>; 6] = [
        cx.metadata_string(function).into(),
        cx.metadata_string(header).into(),
        i64t.const_int(sp.line_iters, false).into(),
        i64t.const_int(sp.head, false).into(),
        i64t.const_int(sp.max_ibs, false).into(),
        i64t.const_int(sp.iw_estimate.unwrap_or(0), false).into(),
    ];
    let node: MetadataValue<'_> = cx.metadata_node(&vals);
    module
        .add_global_metadata(MD_NAME, &node)
        .map_err(|e| PassError::Llvm(format!("metadata: {e}")))
}

/// The recorded `(line_iters, head, max_ibs)` for loop `header` of `function`, if any.
pub fn recorded(module: &Module<'_>, function: &str, header: &str) -> Option<(u64, u64, u64)> {
    let mut found = None;
    for n in module.get_global_metadata(MD_NAME) {
        let Some(ops) = n.get_node_values() else {
            continue;
        };
        if ops.len() < 5 {
            continue;
        }
        let s = |i: usize| {
            ops[i]
                .into_metadata_value()
                .get_string_value()
                .map(|c| String::from_utf8_lossy(c).into_owned())
        };
        let u = |i: usize| match ops[i] {
            inkwell::values::BasicMetadataValueEnum::IntValue(v) => v.get_zero_extended_constant(),
            _ => None,
        };
        if s(0).as_deref() == Some(function) && s(1).as_deref() == Some(header) {
            if let (Some(e), Some(h), Some(m)) = (u(2), u(3), u(4)) {
                found = Some((e, h, m));
            }
        }
    }
    found
}

impl Pass for StripMine {
    fn name(&self) -> &'static str {
        "strip-mine"
    }

    fn run<'ctx>(&self, module: &Module<'ctx>, cx: &mut PassContext<'ctx>) -> Result<Changed> {
        let m = machine(cx)?;
        let line = self.line.unwrap_or(m.llc.line_bytes as u64).max(1);
        let llc_lines = m.llc.size_bytes / line;
        let cores = std::env::var("WEFT_CORES")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(m.core.count as u64)
            .max(1);
        let a = cx.analysis(module);
        let ids = cx.loop_ids(module);
        let mut out = Vec::new();
        let mut refused = Vec::new();
        for fa in &a.functions {
            if !parallel::selected(&self.only, &fa.name) {
                continue;
            }
            for nest in &fa.regions.affine_nests {
                let Some((p, par)) = scheduled_loop(fa, nest.root) else {
                    continue;
                };
                if !par && !nest.only_sequential {
                    continue;
                }
                let label = ids.label(fa, p);
                let sp = plan(fa, p, line, llc_lines, cores, self.max_ibs);
                let why = (!par)
                    .then(|| payoff::chained_dependence(&ids, fa, p))
                    .flatten()
                    .or_else(|| payoff::too_little_work(&ids, fa, p, &sp, cores));
                if let Some(why) = why {
                    refused.push((fa.name.clone(), label, why));
                    continue;
                }
                let header = fa
                    .cfg
                    .block(fa.forest.get(p).header)
                    .get_name()
                    .to_string_lossy()
                    .into_owned();
                out.push((fa.name.clone(), header, label, sp, par, nest.reason.clone()));
            }
        }
        for (f, header, label, sp, par, reason) in out {
            record(module, &f, &header, &sp)?;
            cx.remark(
                &f,
                Some(label),
                RemarkKind::Applied,
                format!(
                    "strip plan ({}): {}{}",
                    sp.why,
                    sp.describe(),
                    if par {
                        String::new()
                    } else {
                        format!(
                            "; IBs may depend on each other ({}): the runtime synchronises them",
                            reason.unwrap_or_default()
                        )
                    }
                ),
            );
        }
        for (f, label, why) in refused {
            cx.remark(
                &f,
                Some(label),
                RemarkKind::Missed,
                format!("strip-mine: no plan: {why}"),
            );
        }
        // Metadata only: the loop analyses stay valid.
        Ok(Changed::No)
    }
}
