//! # weft-frontend: loading programs and analysing their loops
//!
//! Loads LLVM IR (`.ll`, `.bc`) through inkwell, or C through `clang-19`, and
//! builds the analysis view every pass relies on: CFG and dominators (petgraph),
//! natural loops and the loop forest, induction variables and trip counts, access
//! functions (affine, indirect through an index array, or unknown with a reason),
//! dependence tests and the parallel regions of dissertation §4.4.1 and §5.5.1.
//!
//! Design: analysis results keep the inkwell handles (phis, blocks, load and
//! store instructions, base pointers) so a pass can go from a verdict back to
//! the IR it rewrites; [`summary`] turns them into a serialisable report for
//! `weft analyze --json`. Typical use:
//!
//! ```no_run
//! use inkwell::context::Context;
//! let ctx = Context::create();
//! let m = weft_frontend::load_module(&ctx, "k.c".as_ref(), &Default::default()).unwrap();
//! let a = weft_frontend::ModuleAnalysis::new(&m);
//! for f in &a.functions {
//!     for l in &f.forest.loops {
//!         println!("{} {} parallel={}", f.name, l.id, f.deps[l.id.index()].parallel);
//!     }
//! }
//! ```
#![warn(missing_docs)]

pub mod access;
pub mod alias_check;
pub mod analysis;
pub mod cfg;
pub mod delinearize;
pub mod deps;
pub mod distribution;
pub mod error;
pub mod expr;
pub mod index_range;
pub mod ir;
pub mod iv;
pub mod load;
pub mod loops;
pub mod privatize;
pub mod pure_calls;
pub mod reduction;
pub mod regions;
pub mod summary;
pub mod symbols;
pub mod synth;
pub mod triangular;

pub use access::{Access, AccessClass, AccessId, AccessKind, Base, BaseKind};
pub use analysis::{FunctionAnalysis, ModuleAnalysis, Reference};
pub use cfg::{BlockId, Cfg};
pub use deps::LoopDeps;
pub use error::{Error, Result};
pub use expr::{Poly, Sym, SymId};
pub use iv::{ExitCondition, InductionVar, LoopIvs, TripCount};
pub use load::{compile_c, load_module, parse_ir, ClangOptions};
pub use loops::{Loop, LoopForest, LoopId};
pub use regions::Regions;
pub use summary::ModuleSummary;
