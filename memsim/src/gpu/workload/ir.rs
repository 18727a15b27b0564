//! The template IR of the GPU workload language (digest §8.5 B and C).
//!
//! A [`Workload`] holds the data [`Tables`], the kernel [`Function`]s and the host
//! programs ([`App`]). Kernel bodies are trees of [`Op`]s whose operands are per-lane
//! [`Expr`]s. Every name is resolved at parse time: local variables to dense slots
//! ([`Var`]), parameters to indices, tables to [`TableId`]s, launched functions to
//! [`FuncId`]s, so an engine keeps one `Vec<i64>` of slots per lane and never looks a
//! name up while it runs.
//!
//! Invariants established by the parser: every `Var` of a function is below
//! `var_names.len()`, every `Param` below `params.len()`, every `FuncId` indexes
//! `Workload::functions`, every table reference is valid in `Workload::tables`, and a
//! launch site's `args` has exactly one expression per parameter of its callee.

use super::expr::Expr;
use super::tables::Tables;

/// A local variable of a function (or a `repeat` variable of a host program): a dense
/// slot index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(pub u16);

/// A kernel function: index into [`Workload::functions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// A whole workload: tables, kernel templates and host programs.
#[derive(Debug, Clone)]
pub struct Workload {
    /// Where the workload came from (file path or `builtin:<name>`), for messages.
    pub origin: String,
    /// Data tables and address-only buffers, laid out in one flat address space.
    pub tables: Tables,
    /// Kernel templates, in file order.
    pub functions: Vec<Function>,
    /// Host programs; co-runs are several apps.
    pub apps: Vec<App>,
}

impl Workload {
    /// The function with this name, if any.
    pub fn function_id(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.name == name)
            .map(|i| FuncId(i as u32))
    }

    /// The function behind an id (ids come from this workload, so indexing is in range).
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.0 as usize]
    }

    /// The app with this name, if any.
    pub fn app(&self, name: &str) -> Option<&App> {
        self.apps.iter().find(|a| a.name == name)
    }
}

/// A kernel template: launch shape, resources and body.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// Function name (unique within the workload).
    pub name: String,
    /// Default thread-block shape (x, y, z); the product is at most 1024.
    pub block: [u32; 3],
    /// Registers per thread (for occupancy).
    pub regs_per_thread: u32,
    /// Shared memory per thread block in bytes (declared, or the sum of the shared
    /// arrays).
    pub smem_bytes: u32,
    /// Parameter names; `Expr::Param(i)` reads the i-th argument of the launch.
    pub params: Vec<String>,
    /// Names of the local variable slots (`Var(i)` is `var_names[i]`).
    pub var_names: Vec<String>,
    /// The body, run by every thread.
    pub body: Vec<Op>,
}

impl Function {
    /// Number of variable slots a lane needs.
    pub fn num_vars(&self) -> usize {
        self.var_names.len()
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }
}

/// The functional-unit class of a compute op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnitClass {
    /// Integer / simple arithmetic (SP pipeline).
    Alu,
    /// Single-precision floating point (SP pipeline).
    Fp,
    /// Special function unit (transcendentals).
    Sfu,
    /// Double precision.
    Dp,
}

/// The read-modify-write operation of an atomic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `atomic.add`
    Add,
    /// `atomic.min`
    Min,
    /// `atomic.max`
    Max,
    /// `atomic.and`
    And,
    /// `atomic.or`
    Or,
    /// `atomic.xor`
    Xor,
    /// `atomic.exch`
    Exch,
    /// `atomic.cas`
    Cas,
    /// `atomic.inc`
    Inc,
}

/// Load, store or atomic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemKind {
    /// `load`
    Load,
    /// `store`
    Store,
    /// `atomic.<op>`
    Atomic(AtomicOp),
}

/// The state space of a memory op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// `g`: global memory (through L1/L2/DRAM).
    Global,
    /// `s`: the thread block's shared memory (addresses are offsets in it).
    Shared,
    /// `l`: thread-local memory (addresses are per-thread offsets).
    Local,
    /// `c`: constant memory.
    Const,
    /// `t`: texture memory.
    Texture,
}

/// A memory access by every active lane.
#[derive(Debug, Clone, PartialEq)]
pub struct MemOp {
    /// Load, store or atomic.
    pub kind: MemKind,
    /// State space.
    pub space: Space,
    /// Access width in bits (8, 16, 32, 64 or 128).
    pub bits: u16,
    /// Byte address per lane (global/const/texture: flat address; shared/local: offset).
    pub addr: Expr,
    /// For loads (and atomics), the slot that receives the value: the table's value
    /// when the address falls in a table (`Tables::value_at`), 0 otherwise.
    pub dest: Option<Var>,
    /// `nc`: non-cacheable.
    pub nc: bool,
    /// `bypass_l1`: skip the L1 (served by L2).
    pub bypass_l1: bool,
}

/// How a device-side launch is performed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LaunchMode {
    /// `launch.cdp`: CUDA dynamic parallelism (a child kernel).
    Cdp,
    /// `launch.agg`: DTBL aggregated group (coalesces onto an eligible kernel).
    Agg,
    /// `launch.auto`: the launch-decision policy chooses (SPAWN).
    Auto,
    /// Not a launch: the call `sync_children` makes ([`LaunchSite::sync`]); the
    /// front end answers it when the warp's children completed.
    Sync,
}

/// The stream of a device-side launch.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamSel {
    /// A new stream per launch.
    Unique,
    /// One stream per parent thread block.
    PerCta,
    /// A stream named by a per-lane expression.
    Expr(Expr),
}

/// A device-side launch site (digest §8.5 B).
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchSite {
    /// CDP, DTBL aggregated group, or policy-chosen.
    pub mode: LaunchMode,
    /// The child function.
    pub function: FuncId,
    /// Child grid (x, y, z), per lane; missing dimensions are 1.
    pub grid: [Expr; 3],
    /// Child block (x, y, z); defaults to the child's declared block.
    pub block: [Expr; 3],
    /// One argument per parameter of the child, in the child's parameter order (the
    /// parser requires every one).
    pub args: Vec<Expr>,
    /// Stream selection.
    pub stream: StreamSel,
    /// Lanes where this holds launch (default: all).
    pub cond: Expr,
    /// The parent's workload estimate, fed to SPAWN's t_parent (default 0).
    pub workload: Expr,
    /// The inline path: run where `cond` is false or the policy vetoes (the flat
    /// version). Until device launches exist, engines run only this.
    pub else_: Vec<Op>,
}

impl LaunchSite {
    /// The call of `sync_children` when device launches run: no child and no
    /// inline path; the launch unit delays the warp until the children of its
    /// lanes completed (or not at all, as its policy says).
    pub fn sync() -> Self {
        LaunchSite {
            mode: LaunchMode::Sync,
            function: FuncId(0),
            grid: [Expr::Const(0), Expr::Const(1), Expr::Const(1)],
            block: [Expr::Const(1), Expr::Const(1), Expr::Const(1)],
            args: Vec::new(),
            stream: StreamSel::Unique,
            cond: Expr::Const(0),
            workload: Expr::Const(0),
            else_: Vec::new(),
        }
    }
}

/// One op of a kernel body (digest §8.5 B, "the whole IR").
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// `alu n` / `fp n` / `sfu n` / `dp n`: `n` dependent instructions of a unit class,
    /// `ilp` independent chains (default 1).
    Unit {
        /// Unit class.
        class: UnitClass,
        /// Instruction count.
        n: u32,
        /// Independent instructions in flight (1 = a dependent chain).
        ilp: u32,
    },
    /// `load` / `store` / `atomic`.
    Mem(MemOp),
    /// `v = expr`: a per-lane register computation (no issued instruction of its own).
    Let {
        /// Destination slot.
        var: Var,
        /// Value.
        expr: Expr,
    },
    /// `bar`: thread-block-wide barrier.
    Bar,
    /// `if cond { } else { }`: per-lane predicate, divergent paths serialised.
    If {
        /// Predicate (non-zero = true).
        cond: Expr,
        /// Taken by lanes where `cond` holds.
        then_: Vec<Op>,
        /// Taken by the others.
        else_: Vec<Op>,
    },
    /// `loop var in lo..hi { }`: per-lane trip count `max(hi - lo, 0)`; `var` runs
    /// from `lo` (bounds evaluated once at loop entry).
    Loop {
        /// Induction variable slot.
        var: Var,
        /// First value.
        lo: Expr,
        /// One past the last value.
        hi: Expr,
        /// Body.
        body: Vec<Op>,
    },
    /// Device-side launch with its inline fallback.
    Launch(Box<LaunchSite>),
    /// `sync_children`: wait for this thread's child launches.
    SyncChildren,
    /// `exit`: the lane ends.
    Exit,
}

/// A host program: streams of commands, run concurrently.
#[derive(Debug, Clone, PartialEq)]
pub struct App {
    /// App name.
    pub name: String,
    /// Streams, in file order.
    pub streams: Vec<Stream>,
    /// Names of the host variable slots (`repeat` variables).
    pub var_names: Vec<String>,
}

/// One host stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    /// Stream id (unique within the app).
    pub id: u32,
    /// Commands in order.
    pub cmds: Vec<HostCmd>,
}

/// A host command (digest §8.5 C). Expressions are host expressions: lane builtins
/// read 0, `Var`s are `repeat` variables.
#[derive(Debug, Clone, PartialEq)]
pub enum HostCmd {
    /// Launch a kernel on this stream.
    Launch {
        /// The kernel.
        function: FuncId,
        /// Grid (x, y, z); missing dimensions are 1.
        grid: [Expr; 3],
        /// Block (x, y, z); defaults to the function's block.
        block: [Expr; 3],
        /// One argument per parameter of the function.
        args: Vec<Expr>,
    },
    /// Wait until this stream's previous work is done.
    Wait,
    /// Wait until all streams' work is done.
    DeviceSync,
    /// `repeat var in lo..hi { }`.
    Repeat {
        /// Loop variable slot.
        var: Var,
        /// First value.
        lo: Expr,
        /// One past the last value.
        hi: Expr,
        /// Body.
        body: Vec<HostCmd>,
    },
    /// Host-device copy of `bytes` bytes (excluded from DTBL timings).
    Memcpy {
        /// Byte count.
        bytes: Expr,
    },
}
