//! Typed errors of the pass crate.
//!
//! Every failure a user can cause (unknown pass, bad option, IR that fails
//! verification, a missing runtime symbol) is a variant naming the problem;
//! no pass panics on bad input.

use std::path::PathBuf;

/// Errors of the pass manager and the passes.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// A pipeline string names a pass that is not registered.
    #[error("unknown pass `{name}`; valid passes: {valid}")]
    UnknownPass {
        /// The name given.
        name: String,
        /// Comma-separated registered names.
        valid: String,
    },
    /// A pipeline string could not be parsed.
    #[error("bad pipeline `{pipeline}`: {message}")]
    BadPipeline {
        /// The pipeline string.
        pipeline: String,
        /// What is wrong.
        message: String,
    },
    /// A pass option is unknown or has a bad value.
    #[error("pass `{pass}`: option `{option}`: {message}")]
    BadOption {
        /// The pass.
        pass: String,
        /// The option key.
        option: String,
        /// What is wrong (lists valid keys or values).
        message: String,
    },
    /// The module failed LLVM's verifier after a pass.
    #[error("module fails verification after pass `{pass}`: {message}")]
    Verify {
        /// The pass that ran last (`input` before any pass).
        pass: String,
        /// LLVM's message.
        message: String,
    },
    /// A runtime entry point needed by a pass is not in the runtime's ABI listing.
    #[error("runtime ABI has no symbol `{0}`")]
    MissingRuntimeSymbol(String),
    /// An IR construct a pass cannot handle (reported when it cannot just skip the loop).
    #[error("pass `{pass}`: unsupported IR in `{function}`: {message}")]
    Unsupported {
        /// The pass.
        pass: String,
        /// The function.
        function: String,
        /// What is unsupported.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The frontend failed (loading or analysis).
    #[error(transparent)]
    Frontend(#[from] weft_frontend::Error),
    /// A machine configuration (`--machine`, option `machine=`) could not be
    /// loaded or is invalid.
    #[error("machine config `{path}`: {message}")]
    Machine {
        /// The path or preset name given.
        path: String,
        /// What is wrong (the loader's message, naming the field).
        message: String,
    },
    /// Linking with the runtime failed, or the runtime library or the C
    /// compiler could not be found.
    #[error("link: {0}")]
    Link(String),
    /// A filetest's `run:` line cannot be carried out.
    #[error("filetest: {0}")]
    FileTest(String),
    /// An invariant of the pass crate does not hold (a bug in weft, not in the
    /// input): a block without terminator, a lost plan, a runtime declaration
    /// of the wrong shape.
    #[error("internal error (please report): {0}")]
    Internal(String),
    /// An LLVM call failed (the new pass manager, the IR builder, metadata).
    #[error("LLVM: {0}")]
    Llvm(String),
}

/// Result alias of the crate.
pub type Result<T> = std::result::Result<T, PassError>;

impl From<inkwell::builder::BuilderError> for PassError {
    fn from(e: inkwell::builder::BuilderError) -> Self {
        PassError::Llvm(format!("IR builder: {e}"))
    }
}
