//! Typed errors of the frontend.
//!
//! Every failure a user can cause (a missing file, malformed IR, a C file that
//! clang rejects, a missing `clang-19`) maps to one variant that names the
//! problem; nothing in the crate panics on bad input.

use std::path::PathBuf;

/// Errors returned by the frontend.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// LLVM rejected textual IR or bitcode.
    #[error("{file}:{}: invalid LLVM IR: {message}", line.map(|l| l.to_string()).unwrap_or_else(|| "?".into()))]
    Parse {
        /// The file (or buffer name) that failed to parse.
        file: String,
        /// The 1-based line LLVM reported, when it reported one.
        line: Option<u32>,
        /// LLVM's message.
        message: String,
    },
    /// The clang executable was not found.
    #[error("`{clang}` not found: C input needs clang 19 (install it with `apt-get install clang-19`, or pass another compiler)")]
    ClangMissing {
        /// The program that was looked for.
        clang: String,
    },
    /// clang ran but failed to compile the file.
    #[error("{clang} failed to compile {file}:\n{stderr}")]
    ClangFailed {
        /// The compiler that was run.
        clang: String,
        /// The C file.
        file: PathBuf,
        /// clang's diagnostics.
        stderr: String,
    },
    /// The file extension is not one the loader knows.
    #[error("unsupported input {0}: expected a .ll, .bc or .c file")]
    UnsupportedInput(PathBuf),
    /// The module failed LLVM's verifier.
    #[error("{file}: module does not verify: {message}")]
    Verify {
        /// The file.
        file: String,
        /// LLVM's verifier message.
        message: String,
    },
    /// A requested function does not exist in the module.
    #[error("no function named `{0}` with a body in the module")]
    NoSuchFunction(String),
}

/// Result alias of the frontend.
pub type Result<T, E = Error> = std::result::Result<T, E>;
