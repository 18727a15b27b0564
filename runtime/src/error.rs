//! Typed errors of the runtime. Every fallible library function returns [`Result`];
//! the C ABI turns an error into a status code plus a message for `weft_last_error()`.

use thiserror::Error;

/// Errors raised by the runtime library.
#[derive(Debug, Error)]
pub enum RuntimeError {
    /// An argument is out of range or inconsistent with the others.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A scheduling instance (JSON or built in code) is malformed; names the field.
    #[error("malformed instance: field `{field}`: {msg}")]
    Instance {
        /// JSON path of the offending field, e.g. `slabs[2][0]`.
        field: String,
        /// What is wrong with it.
        msg: String,
    },
    /// The slab or iteration-block dependence graph has a cycle.
    #[error("dependence graph is cyclic (unit {0} is on a cycle)")]
    CyclicDependences(usize),
    /// The exact solver exceeded its search budget.
    #[error("optimal search exceeded its budget of {0} nodes; the instance is too large for the exact solver")]
    SearchBudget(u64),
    /// A run-time inspection (the descriptor walk of an affine nest) spent
    /// its time budget before finishing (`docs/runtime.md`, "Bounded
    /// inspection and payoff"); the nest runs without a bank-aware schedule.
    #[error("inspection over its budget: {0}")]
    InspectBudget(String),
    /// The machine configuration could not be loaded.
    #[error("machine configuration: {0}")]
    Machine(String),
    /// Writing the trace or the statistics failed.
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    /// An affine nest's IBs touch each other's written lines: the
    /// descriptor path cannot run it (the caller falls back to the inspector).
    #[error("iteration blocks conflict: {0}")]
    IbConflict(String),
    /// A loop body or inspector panicked (only possible for Rust callbacks).
    #[error("a callback panicked: {0}")]
    Panicked(String),
}

/// Result alias of the runtime crate.
pub type Result<T> = std::result::Result<T, RuntimeError>;

pub(crate) fn invalid(msg: impl Into<String>) -> RuntimeError {
    RuntimeError::InvalidArgument(msg.into())
}

pub(crate) fn inst(field: impl Into<String>, msg: impl Into<String>) -> RuntimeError {
    RuntimeError::Instance {
        field: field.into(),
        msg: msg.into(),
    }
}
