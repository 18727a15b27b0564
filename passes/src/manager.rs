//! The pass trait, remarks, and the pass manager.
//!
//! The manager owns the cross-cutting work (conventions.md, "Passes"): it
//! times each pass, runs LLVM's verifier after each pass when asked (always in tests and
//! debug builds), writes the IR before and after each pass to `--dump-dir`,
//! collects remarks, and caches the frontend's [`ModuleAnalysis`], dropping it
//! whenever a pass reports that it changed the module. Pass bodies contain none
//! of that.
//!
//! The manager knows passes only through the [`Pass`] trait: it never names
//! one. The list of passes and the parsing of pipeline strings into them live
//! above it, in [`crate::registry`] (`PassManager::parse`), as Cranelift and
//! rustc keep the pipeline apart from the pass trait; so the passes, which
//! import this module for [`Pass`] and [`PassContext`], and the registry,
//! which imports them, form no import cycle with it.

use std::path::PathBuf;
use std::rc::Rc;
use std::time::Instant;

use inkwell::module::Module;
use serde::Serialize;
use weft_frontend::{FunctionAnalysis, LoopId, ModuleAnalysis};

use crate::error::{PassError, Result};
use crate::loop_ids::LoopNumbering;
use crate::placement::{Placement, SerialConsumer};

/// Whether a pass changed the module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Changed {
    /// Nothing was modified; cached analyses stay valid.
    No,
    /// The module was modified; cached analyses are dropped.
    Yes,
}

impl Changed {
    /// `Yes` when `b`.
    pub fn from_bool(b: bool) -> Changed {
        if b {
            Changed::Yes
        } else {
            Changed::No
        }
    }
}

/// One transformation pass.
pub trait Pass {
    /// Its registered kebab-case name.
    fn name(&self) -> &'static str;
    /// Runs the pass over a module.
    fn run<'ctx>(&self, module: &Module<'ctx>, cx: &mut PassContext<'ctx>) -> Result<Changed>;
    /// Whether the pass may run loop `l` of `fa` on the worker threads,
    /// judged on the pipeline's input by compile-time knowledge alone (the
    /// serial-consumer rule, [`crate::placement`], asks every pass of the
    /// pipeline). Default: no.
    fn may_parallelize(&self, _fa: &FunctionAnalysis<'_>, _l: LoopId) -> bool {
        false
    }
    /// Whether the pass transforms loop `l` of `fa` (judged as
    /// [`Pass::may_parallelize`] is), so that the passes after it never see
    /// the loop. Default: the loops it may parallelize.
    fn takes(&self, fa: &FunctionAnalysis<'_>, l: LoopId) -> bool {
        self.may_parallelize(fa, l)
    }
}

/// Whether a pipeline of `passes` may run loop `l` of `fa` on the workers by
/// compile-time knowledge: the first pass that takes the loop decides
/// ([`Pass::takes`], [`Pass::may_parallelize`]).
pub fn pipeline_may_parallelize(
    passes: &[Box<dyn Pass>],
    fa: &FunctionAnalysis<'_>,
    l: LoopId,
) -> bool {
    passes
        .iter()
        .find(|p| p.takes(fa, l))
        .is_some_and(|p| p.may_parallelize(fa, l))
}

/// What a remark reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RemarkKind {
    /// The transformation was applied.
    Applied,
    /// The candidate was left unchanged (the message says why).
    Missed,
    /// Extra information.
    Note,
}

/// A remark about one function or loop.
#[derive(Debug, Clone, Serialize)]
pub struct Remark {
    /// The pass.
    pub pass: String,
    /// The function.
    pub function: String,
    /// The loop (`L<id> (<header block>)`, the id of the pipeline's input as
    /// `weft analyze` prints it: [`crate::loop_ids`]), when the remark is
    /// about one.
    pub loop_label: Option<String>,
    /// Applied, missed or note.
    pub kind: RemarkKind,
    /// The message.
    pub message: String,
}

impl std::fmt::Display for Remark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            RemarkKind::Applied => "applied",
            RemarkKind::Missed => "missed",
            RemarkKind::Note => "note",
        };
        // `@kernel L3 (for.body)`: the function as LLVM names it and the
        // loop as `weft analyze` numbers it; `<module>` for module-wide notes.
        write!(f, "remark [{}] ", self.pass)?;
        match self.function.as_str() {
            "" => write!(f, "<module>")?,
            s if s.starts_with('<') => write!(f, "{s}")?,
            s => write!(f, "@{s}")?,
        }
        if let Some(l) = &self.loop_label {
            write!(f, " {l}")?;
        }
        write!(f, ": {kind}: {}", self.message)
    }
}

/// Settings of a pipeline run.
#[derive(Debug, Clone, Default)]
pub struct PipelineConfig {
    /// Run LLVM's verifier after each pass. Default: on in debug builds.
    pub verify_each: bool,
    /// Directory for `NN-<pass>-before.ll` / `NN-<pass>-after.ll`. Default none.
    pub dump_dir: Option<PathBuf>,
    /// Machine preset name or TOML path for passes that need the machine
    /// (bank interleaving, cache sizes). Default: none (the memsim default).
    pub machine: Option<String>,
    /// Loops whose trip count at run time is below this run inline (the
    /// outlined body called directly on the whole range, no runtime call),
    /// like OpenMP's `if` clause: a region call, schedule lookup and thread
    /// hand-off cost microseconds, more than a short loop's work. 0 (the
    /// library default) always calls the runtime; `weft opt`/`weft build`
    /// default to [`DEFAULT_MIN_PARALLEL_ITERS`].
    pub min_parallel_iters: u64,
    /// `--fp-reassoc`: passes may reassociate floating-point reductions
    /// (combined in a fixed order, reproducible but not bit-equal to the
    /// sequential loop). Default off: results are bit-exact.
    pub fp_reassoc: bool,
    /// The serial-consumer rule's limit ([`crate::placement`]): a parallel
    /// loop whose written data only serial nests read runs inline while it
    /// writes at most this many bytes. 0 (the library default) turns the rule
    /// off; `weft opt`/`weft build` default to
    /// [`crate::placement::DEFAULT_SERIAL_CONSUMER_BYTES`].
    pub serial_consumer_bytes: u64,
}

/// The command line's default for [`PipelineConfig::min_parallel_iters`].
pub const DEFAULT_MIN_PARALLEL_ITERS: u64 = 32;

impl PipelineConfig {
    /// The default: verification on in debug builds, no dumps, default machine.
    pub fn new() -> PipelineConfig {
        PipelineConfig {
            verify_each: cfg!(debug_assertions),
            dump_dir: None,
            machine: None,
            min_parallel_iters: 0,
            fp_reassoc: false,
            serial_consumer_bytes: 0,
        }
    }
}

/// What a pass sees besides the module: settings, cached analyses, remarks.
pub struct PassContext<'ctx> {
    /// The pipeline settings.
    pub config: PipelineConfig,
    /// Remarks emitted so far.
    pub remarks: Vec<Remark>,
    analysis: Option<Rc<ModuleAnalysis<'ctx>>>,
    current_pass: &'static str,
    loops: LoopNumbering,
    placement: Placement,
    /// The serial-consumer verdict on the loop being transformed, set by
    /// [`crate::parallel::drive`] before it calls the pass's `apply`.
    transforming: Option<SerialConsumer>,
}

impl<'ctx> PassContext<'ctx> {
    /// A context with no cached analysis.
    pub fn new(config: PipelineConfig) -> PassContext<'ctx> {
        PassContext {
            config,
            remarks: Vec::new(),
            analysis: None,
            current_pass: "",
            loops: LoopNumbering::default(),
            placement: Placement::default(),
            transforming: None,
        }
    }

    /// Numbers the loops of every function of `module` as they are now, for
    /// remarks ([`PassContext::loop_label`]); the pass manager does this
    /// before its first pass. Functions numbered before keep their numbers.
    pub fn number_loops(&mut self, module: &Module<'ctx>) {
        let a = self.analysis(module);
        self.loops.record_module(&a);
    }

    /// Applies the serial-consumer rule ([`crate::placement`]) to the module
    /// as it is now (the pass manager does this on the pipeline's input,
    /// when the rule is on), after [`PassContext::number_loops`].
    pub fn find_serial_consumers(
        &mut self,
        module: &Module<'ctx>,
        may_parallelize: &dyn Fn(&FunctionAnalysis<'_>, LoopId) -> bool,
    ) {
        let a = self.analysis(module);
        let ids = self.loops.snapshot(&a);
        self.placement = Placement::analyze(&a, &ids, may_parallelize);
    }

    /// The serial-consumer verdict on loop `l` of `fa` (see
    /// [`crate::placement`]), when the rule is on and marks it.
    pub fn serial_consumer(
        &mut self,
        fa: &FunctionAnalysis<'ctx>,
        l: LoopId,
    ) -> Option<SerialConsumer> {
        if self.config.serial_consumer_bytes == 0 || self.placement.is_empty() {
            return None;
        }
        let id = self.loops.id(fa, l)?;
        self.placement.get(&fa.name, id).cloned()
    }

    /// Sets the verdict [`PassContext::inline_bound`] reports for the loop
    /// about to be transformed.
    pub fn set_transforming(&mut self, verdict: Option<SerialConsumer>) {
        self.transforming = verdict;
    }

    /// The trip count below which the loop being transformed runs inline at
    /// run time (`min_parallel_iters`, raised by the serial-consumer rule),
    /// and the remark's note on the rule (empty when it does not apply).
    pub fn inline_bound(&self) -> (u64, String) {
        let n = self.config.min_parallel_iters;
        match &self.transforming {
            Some(sc) => {
                let limit = self.config.serial_consumer_bytes;
                (n.max(sc.inline_below(limit)), sc.note(limit))
            }
            None => (n, String::new()),
        }
    }

    /// The label of loop `l` of `fa` in remarks: its id in the pipeline's
    /// input, as `weft analyze` prints it (`L3 (for.body)`), however many
    /// loops of the function passes have outlined since ([`crate::loop_ids`]).
    pub fn loop_label(&mut self, fa: &FunctionAnalysis<'ctx>, l: LoopId) -> String {
        self.loops.label(fa, l)
    }

    /// A read-only copy of the loop numbering for the functions of the
    /// module as it is now ([`crate::loop_ids::LoopIds`]).
    pub fn loop_ids(&mut self, module: &Module<'ctx>) -> crate::loop_ids::LoopIds {
        let a = self.analysis(module);
        self.loops.snapshot(&a)
    }

    /// The id of loop `l` of `fa` in the pipeline's input (`None`: a loop a
    /// pass created).
    pub fn input_loop_id(&mut self, fa: &FunctionAnalysis<'ctx>, l: LoopId) -> Option<LoopId> {
        self.loops.id(fa, l)
    }

    /// The frontend's analysis of the module (computed once, until a pass changes the module).
    pub fn analysis(&mut self, module: &Module<'ctx>) -> Rc<ModuleAnalysis<'ctx>> {
        if let Some(a) = &self.analysis {
            return a.clone();
        }
        let a = Rc::new(ModuleAnalysis::new(module));
        self.analysis = Some(a.clone());
        a
    }

    /// Drops cached analyses.
    pub fn invalidate(&mut self) {
        self.analysis = None;
    }

    /// Records a remark from the running pass.
    pub fn remark(
        &mut self,
        function: &str,
        loop_label: Option<String>,
        kind: RemarkKind,
        message: impl Into<String>,
    ) {
        self.remarks.push(Remark {
            pass: self.current_pass.to_string(),
            function: function.to_string(),
            loop_label,
            kind,
            message: message.into(),
        });
    }
}

/// Time and effect of one pass.
#[derive(Debug, Clone, Serialize)]
pub struct PassTiming {
    /// The pass.
    pub pass: String,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Whether it changed the module.
    pub changed: bool,
}

/// The result of a pipeline run.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// One entry per pass, in order.
    pub timings: Vec<PassTiming>,
    /// All remarks, in emission order.
    pub remarks: Vec<Remark>,
}

/// An ordered list of passes with their settings.
pub struct PassManager {
    passes: Vec<Box<dyn Pass>>,
    config: PipelineConfig,
}

impl PassManager {
    /// A manager over already-built passes.
    pub fn new(passes: Vec<Box<dyn Pass>>, config: PipelineConfig) -> PassManager {
        PassManager { passes, config }
    }

    /// Names of the passes, in order.
    pub fn pass_names(&self) -> Vec<&'static str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    /// Runs every pass in order over `module`.
    pub fn run<'ctx>(&self, module: &Module<'ctx>) -> Result<RunReport> {
        let mut cx = PassContext::new(self.config.clone());
        let mut timings = Vec::new();
        if !self.passes.is_empty() {
            cx.number_loops(module);
            if self.config.serial_consumer_bytes > 0 {
                let passes = &self.passes;
                cx.find_serial_consumers(module, &|fa, l| pipeline_may_parallelize(passes, fa, l));
            }
        }
        if self.config.verify_each {
            verify(module, "input")?;
        }
        if let Some(d) = &self.config.dump_dir {
            std::fs::create_dir_all(d).map_err(|source| PassError::Io {
                path: d.clone(),
                source,
            })?;
        }
        for (k, pass) in self.passes.iter().enumerate() {
            let name = pass.name();
            cx.current_pass = name;
            if let Some(d) = &self.config.dump_dir {
                dump(module, &d.join(format!("{k:02}-{name}-before.ll")))?;
            }
            let t0 = Instant::now();
            let changed = pass.run(module, &mut cx)?;
            let seconds = t0.elapsed().as_secs_f64();
            if changed == Changed::Yes {
                cx.invalidate();
            }
            if self.config.verify_each {
                verify(module, name)?;
            }
            if let Some(d) = &self.config.dump_dir {
                dump(module, &d.join(format!("{k:02}-{name}-after.ll")))?;
            }
            timings.push(PassTiming {
                pass: name.to_string(),
                seconds,
                changed: changed == Changed::Yes,
            });
        }
        Ok(RunReport {
            timings,
            remarks: cx.remarks,
        })
    }
}

/// Runs LLVM's verifier, naming the pass in the error.
pub fn verify(module: &Module<'_>, after: &str) -> Result<()> {
    module.verify().map_err(|e| PassError::Verify {
        pass: after.to_string(),
        message: e.to_string().trim().to_string(),
    })
}

fn dump(module: &Module<'_>, path: &std::path::Path) -> Result<()> {
    module.print_to_file(path).map_err(|e| PassError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}
