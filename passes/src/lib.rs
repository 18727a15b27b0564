//! # weft-passes: the transformation passes and their manager
//!
//! Passes are small structs implementing one trait ([`Pass`]) and registered
//! once under a kebab-case name ([`registry`]); the [`PassManager`] parses
//! pipeline strings (`insert-inspector<slab=64>,instrument-trace`), times each
//! pass, verifies the module after each pass in debug builds and tests, dumps
//! IR, and collects remarks saying, for every candidate loop, what was done or
//! why not. The frontend's analyses are cached and dropped when a pass
//! changes the module.
//!
//! The executor form ([`outline`]) is a reusable module: plan a loop, clone its
//! body into `void body(ctx*, lo, hi)`, and replace the loop with a call the
//! pass emits into the runtime. [`inspector`] builds the chapter-4
//! inspector/executor on top of it, [`parallel`] the plain parallel loop,
//! [`trace`] instruments memory accesses for the simulator. [`filetest`] runs
//! the `testsuite/filetests` cases (textual checks and JIT execution of the
//! original and transformed modules).
#![warn(missing_docs)]

pub mod affine_desc;
pub mod cluster_misses;
pub mod distribute;
pub mod error;
pub mod filetest;
pub mod ib_schedule;
pub mod inspector;
pub mod link;
pub mod loop_ids;
pub mod loop_permute;
pub mod manager;
pub mod outline;
pub mod parallel;
pub mod payoff;
pub mod pipeline;
pub mod placement;
pub mod registry;
pub mod rtabi;
pub mod strip_mine;
pub mod strip_plan;
pub mod trace;
pub mod util;
pub mod versioning;

pub use error::{PassError, Result};
pub use manager::{
    Changed, Pass, PassContext, PassManager, PassTiming, PipelineConfig, Remark, RemarkKind,
    RunReport,
};
pub use registry::DEFAULT_PIPELINE;
