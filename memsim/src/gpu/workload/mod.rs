//! The GPU workload language (digest §8.5; `gpu-design.md`, "Workloads").
//!
//! A workload file is TOML: `[[table]]`/`[[buffer]]`/`[[graph]]` sections build the
//! data [`Tables`], `[[function]]` sections hold kernel templates whose `body` is a
//! small SIMT language, and `[[app]]` sections hold host programs. The parser resolves
//! every name, so the engine runs the [`ir`] directly: per-lane [`Expr`]s evaluated
//! through a [`LaneEnv`] the engine implements. The timing engine needs addresses and
//! trip counts, not algorithm results; what needs algorithm semantics (BFS and SSSP
//! frontiers per level) comes from the functional pre-pass in `builder`.
//!
//! The format is documented with an example per op in `docs/gpu-workloads.md`.

pub mod expr;
pub mod host;
pub mod ir;
pub mod tables;

pub use expr::{Builtin, Expr, LaneEnv, SimpleEnv};
pub use host::{HostLaunch, HostStep};
pub use ir::{
    App, AtomicOp, FuncId, Function, HostCmd, LaunchMode, LaunchSite, MemKind, MemOp, Op, Space,
    Stream, StreamSel, UnitClass, Var, Workload,
};
pub use tables::{FamilyId, Region, TableId, Tables};

/// Size limits that keep a hostile or mistaken file from exhausting memory or time.
/// Every limit is checked before the allocation it guards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Longest workload text in bytes.
    pub max_text_bytes: usize,
    /// Longest table (elements).
    pub max_table_len: u64,
    /// Most table elements in all tables together.
    pub max_total_elems: u64,
    /// Largest buffer in bytes.
    pub max_buffer_bytes: u64,
    /// Deepest nesting of blocks and parentheses in a body.
    pub max_nesting: usize,
    /// Most local variables per function.
    pub max_vars: usize,
    /// Most kernel functions.
    pub max_functions: usize,
    /// Largest graph (vertices) from a file or a generator.
    pub max_vertices: u64,
    /// Largest graph (edges, after symmetrising) from a file or a generator.
    pub max_edges: u64,
    /// Largest graph file in bytes.
    pub max_file_bytes: u64,
    /// Most host commands after unrolling `repeat`.
    pub max_host_steps: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_text_bytes: 1 << 20,
            max_table_len: 1 << 25,
            max_total_elems: 1 << 26,
            max_buffer_bytes: 1 << 40,
            max_nesting: 32,
            max_vars: 1024,
            max_functions: 256,
            max_vertices: 1 << 24,
            max_edges: 1 << 26,
            max_file_bytes: 1 << 28,
            max_host_steps: 1 << 20,
        }
    }
}

/// Largest grid dimension x (CUDA's limit), y and z.
pub const MAX_GRID: [i64; 3] = [(1 << 31) - 1, 65535, 65535];
/// Most threads per block, and per block dimension x, y, z.
pub const MAX_BLOCK: [i64; 3] = [1024, 1024, 64];

/// Any error of the workload language.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A syntax or name error at a position in a file.
    #[error("{origin}:{line}:{col}: {msg}")]
    At {
        /// File path or `builtin:<name>`.
        origin: String,
        /// 1-based line.
        line: usize,
        /// 1-based column (in characters).
        col: usize,
        /// What is wrong.
        msg: String,
    },
    /// An error without a position (a limit, a generator, a builder step).
    #[error("{origin}: {msg}")]
    Invalid {
        /// File path or `builtin:<name>`.
        origin: String,
        /// What is wrong.
        msg: String,
    },
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Result alias of the workload language.
pub type Result<T, E = Error> = std::result::Result<T, E>;
