//! Hardware memory schedulers the dissertation compares against (§4.5.5, §5.6.1),
//! implementing the DRAM controller's [`crate::dram::scheduler::MemScheduler`] trait
//! next to its FCFS and FR-FCFS.
//!
//! - [`parbs::ParBs`]: parallelism-aware batch scheduling (Mutlu and Moscibroda,
//!   ISCA 2008);
//! - [`tcm::Tcm`]: thread cluster memory scheduling (Kim et al., MICRO 2010).
//!
//! A request's *thread* is its `source` (the requesting core; LLC write-backs use a
//! source of their own).

pub mod parbs;
pub mod tcm;

pub use parbs::ParBs;
pub use tcm::Tcm;
