//! The registry of passes: every kebab-case name, once, with its options.
//!
//! A pass is added by one entry here; `--passes` strings, `weft opt --help`
//! and error messages listing valid names all read this table.
//!
//! The registry sits above the pass manager: it turns a pipeline string into
//! a [`PassManager`] over the passes it names ([`PassManager::parse`], defined
//! here), while the manager only runs [`Pass`] objects and never imports this
//! module (Cranelift and rustc keep their pipelines apart from the pass trait
//! the same way).

use crate::cluster_misses::{self, ClusterMisses};
use crate::distribute::{self, LoopDistribute};
use crate::error::{PassError, Result};
use crate::ib_schedule::{self, IbSchedule};
use crate::inspector::{self, InsertInspector};
use crate::loop_permute::{self, LoopPermute};
use crate::manager::{Pass, PassManager, PipelineConfig};
use crate::parallel::{self, ParallelFor};
use crate::pipeline::{self, PassOptions};
use crate::strip_mine::{self, StripMine};
use crate::trace::{self, InstrumentTrace};

/// One registered pass.
pub struct PassInfo {
    /// Kebab-case name used in pipeline strings.
    pub name: &'static str,
    /// One-line description.
    pub summary: &'static str,
    /// Option keys with descriptions.
    pub options: &'static [(&'static str, &'static str)],
    /// Builds the pass from validated options.
    pub create: fn(&PassOptions) -> Result<Box<dyn Pass>>,
}

static REGISTRY: &[PassInfo] = &[
    PassInfo {
        name: "insert-inspector",
        summary: "inspector/executor for irregular regions, slabs scheduled by Algorithm 4 (§4.4)",
        options: inspector::OPTIONS,
        create: |o| Ok(Box::new(InsertInspector::from_options(o)?)),
    },
    PassInfo {
        name: "loop-distribute",
        summary: "splits a loop that is not parallel into two over the same iterations, one of them parallel",
        options: distribute::OPTIONS,
        create: |o| Ok(Box::new(LoopDistribute::from_options(o)?)),
    },
    PassInfo {
        name: "parallel-for",
        summary: "executor form for statically parallel loops, contiguous chunks per core",
        options: parallel::OPTIONS,
        create: |o| Ok(Box::new(ParallelFor::from_options(o)?)),
    },
    PassInfo {
        name: "strip-mine",
        summary: "IB and IW sizes of affine nests: cache-line boundary rule (§5.5.3), eq. 5.1",
        options: strip_mine::OPTIONS,
        create: |o| Ok(Box::new(StripMine::from_options(o)?)),
    },
    PassInfo {
        name: "ib-schedule",
        summary: "affine nests in executor form scheduled by Algorithm 5 (default|mlp-first|clp-first|balanced, §5.5.4)",
        options: ib_schedule::OPTIONS,
        create: |o| Ok(Box::new(IbSchedule::from_options(o)?)),
    },
    PassInfo {
        name: "loop-permute",
        summary: "interleave the IBs of each window iteration by iteration (Fig. 5.4(e), §5.5.5)",
        options: loop_permute::OPTIONS,
        create: |o| Ok(Box::new(LoopPermute::from_options(o)?)),
    },
    PassInfo {
        name: "cluster-misses",
        summary: "Pai-Adve miss clustering baseline: line strips, round-robin, permuted (Fig. 5.2(b)(c))",
        options: cluster_misses::OPTIONS,
        create: |o| Ok(Box::new(ClusterMisses::from_options(o)?)),
    },
    PassInfo {
        name: "executor-form",
        summary: "the ch. 4 Original baseline: irregular regions and parallel loops in executor form, static chunks",
        options: &[("only", "`|`-separated globs of functions to transform (default: all defined)")],
        create: |o| Ok(Box::new(ExecutorForm::from_options(o)?)),
    },
    PassInfo {
        name: "instrument-trace",
        summary: "report every load and store to the runtime's trace recorder",
        options: trace::OPTIONS,
        create: |o| Ok(Box::new(InstrumentTrace::from_options(o)?)),
    },
];

/// `executor-form`: `insert-inspector<schedule=original>` then `parallel-for`.
pub struct ExecutorForm {
    irregular: InsertInspector,
    parallel: ParallelFor,
}

impl ExecutorForm {
    /// Builds the pass from its options.
    pub fn from_options(o: &PassOptions) -> Result<ExecutorForm> {
        let only = o.list("only");
        Ok(ExecutorForm {
            irregular: InsertInspector {
                only: only.clone(),
                original: true,
                ..Default::default()
            },
            parallel: ParallelFor {
                only,
                fp_reassoc: None,
            },
        })
    }
}

impl Pass for ExecutorForm {
    fn name(&self) -> &'static str {
        "executor-form"
    }

    fn may_parallelize(
        &self,
        fa: &weft_frontend::FunctionAnalysis<'_>,
        l: weft_frontend::LoopId,
    ) -> bool {
        !self.irregular.takes(fa, l) && self.parallel.may_parallelize(fa, l)
    }

    fn takes(&self, fa: &weft_frontend::FunctionAnalysis<'_>, l: weft_frontend::LoopId) -> bool {
        self.irregular.takes(fa, l) || self.parallel.takes(fa, l)
    }

    fn run<'ctx>(
        &self,
        module: &inkwell::module::Module<'ctx>,
        cx: &mut crate::manager::PassContext<'ctx>,
    ) -> Result<crate::manager::Changed> {
        let a = self.irregular.run(module, cx)?;
        cx.invalidate();
        let b = self.parallel.run(module, cx)?;
        Ok(crate::manager::Changed::from_bool(
            a == crate::manager::Changed::Yes || b == crate::manager::Changed::Yes,
        ))
    }
}

impl PassManager {
    /// Builds a pipeline from a string such as `insert-inspector<slab=64>,instrument-trace`:
    /// every name is looked up in the registry (an unknown one fails, listing
    /// the valid names) and its options are checked against the pass's own.
    pub fn parse(pipeline_str: &str, config: PipelineConfig) -> Result<PassManager> {
        let specs = pipeline::parse(pipeline_str)?;
        let mut passes = Vec::with_capacity(specs.len());
        for s in specs {
            let info = lookup(&s.name).ok_or_else(|| PassError::UnknownPass {
                name: s.name.clone(),
                valid: names().join(", "),
            })?;
            s.options.check_known(info.options)?;
            passes.push((info.create)(&s.options)?);
        }
        Ok(PassManager::new(passes, config))
    }
}

/// All registered passes.
pub fn all() -> &'static [PassInfo] {
    REGISTRY
}

/// The pass registered under `name`.
pub fn lookup(name: &str) -> Option<&'static PassInfo> {
    REGISTRY.iter().find(|p| p.name == name)
}

/// Registered names, in registry order.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|p| p.name).collect()
}

/// The pipeline `weft build` uses without `--passes`: every loop it legally can
/// is transformed (irregular regions get the inspector/executor, the remaining
/// parallel loops the executor form).
pub const DEFAULT_PIPELINE: &str = "insert-inspector,parallel-for";
