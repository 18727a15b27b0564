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

pub mod builder;
pub mod expr;
mod file;
pub mod gen;
pub mod graph;
pub mod host;
pub mod ir;
mod lexer;
mod parser;
pub mod tables;
pub mod trees;

use std::path::Path;

pub use expr::{Builtin, Expr, LaneEnv, SimpleEnv};
pub use file::{line_col, Options};
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
            max_table_len: 1 << 24,
            max_total_elems: 1 << 25,
            max_buffer_bytes: 1 << 40,
            max_nesting: 32,
            max_vars: 1024,
            max_functions: 256,
            max_vertices: 1 << 24,
            max_edges: 1 << 24,
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

/// The shipped workloads: name and TOML text (`apps/<name>.toml`).
const BUILTINS: &[(&str, &str)] = &[
    ("bfs", include_str!("apps/bfs.toml")),
    ("sssp", include_str!("apps/sssp.toml")),
    ("clr", include_str!("apps/clr.toml")),
    ("bfs_merrill", include_str!("apps/bfs_merrill.toml")),
    ("amr", include_str!("apps/amr.toml")),
    ("mandelbrot", include_str!("apps/mandelbrot.toml")),
    ("join_uniform", include_str!("apps/join_uniform.toml")),
    ("join_gaussian", include_str!("apps/join_gaussian.toml")),
    ("spmm", include_str!("apps/spmm.toml")),
    ("sa", include_str!("apps/sa.toml")),
    ("quicksort", include_str!("apps/quicksort.toml")),
    ("spmv", include_str!("apps/spmv.toml")),
    ("stencil2d", include_str!("apps/stencil2d.toml")),
    ("matmul", include_str!("apps/matmul.toml")),
    ("kmeans", include_str!("apps/kmeans.toml")),
    ("stream", include_str!("apps/stream.toml")),
];

/// Names of the shipped workloads (each has one app of the same name).
pub fn builtin_names() -> Vec<&'static str> {
    BUILTINS.iter().map(|(n, _)| *n).collect()
}

/// The TOML text of a shipped workload.
pub fn builtin_text(name: &str) -> Option<&'static str> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Build a shipped workload; `graph` replaces the source of its `[[graph]]` (an
/// error for workloads without one).
pub fn builtin(name: &str, graph: Option<&Path>) -> Result<Workload> {
    let opts = Options {
        graph: graph.map(Path::to_path_buf),
        ..Options::default()
    };
    builtin_with(name, &opts)
}

/// Build a shipped workload with options (a replacement graph, `[defs]` values).
pub fn builtin_with(name: &str, opts: &Options) -> Result<Workload> {
    let text = builtin_text(name).ok_or_else(|| Error::Invalid {
        origin: format!("builtin:{name}"),
        msg: format!(
            "no shipped workload `{name}` (available: {})",
            builtin_names().join(", ")
        ),
    })?;
    parse_with(text, &format!("builtin:{name}"), opts)
}

/// Parse a workload from TOML text with default options; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<Workload> {
    parse_with(text, origin, &Options::default())
}

/// Parse a workload from TOML text.
pub fn parse_with(text: &str, origin: &str, opts: &Options) -> Result<Workload> {
    file::parse_with(text, origin, opts)
}

/// Reads `path` with a bound: `None` when it holds more than `max` bytes. The
/// size from the file's metadata is not enough: `/dev/zero`, a FIFO or a file
/// that grows report a small size and would be read until memory runs out.
pub(crate) fn read_at_most(path: &Path, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

/// Load a workload file; relative `file` paths inside it start from its directory.
pub fn load(path: &Path) -> Result<Workload> {
    load_with(path, &Options::default())
}

/// Load a workload file with options (`base_dir` defaults to the file's directory).
pub fn load_with(path: &Path, opts: &Options) -> Result<Workload> {
    let io = |e| Error::Io {
        path: path.display().to_string(),
        source: e,
    };
    let max = opts.limits.max_text_bytes;
    let too_big = |msg: String| Error::Invalid {
        origin: path.display().to_string(),
        msg,
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > max as u64 {
        return Err(too_big(format!("{size} bytes of text (at most {max})")));
    }
    let bytes = read_at_most(path, max as u64)
        .map_err(io)?
        .ok_or_else(|| too_big(format!("more than {max} bytes of text (the limit)")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        ))
    })?;
    let mut opts = opts.clone();
    if opts.base_dir.is_none() {
        opts.base_dir = path.parent().map(Path::to_path_buf);
    }
    parse_with(&text, &path.display().to_string(), &opts)
}
