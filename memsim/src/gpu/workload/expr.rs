//! Per-lane integer expressions of the workload language and their evaluator
//! (digest §8.5 B, "Expressions").
//!
//! All arithmetic is on `i64` and total: it never panics. Overflow wraps;
//! `a / 0` and `a % 0` are 0; shift counts are taken modulo 64 (`>>` is arithmetic);
//! `ceil(a, 0)` is 0. Comparisons and `&& || !` give 0 or 1, and any non-zero value is
//! true. `hash(..)` and `rand(seed, ..)` are fixed functions of their arguments
//! (SplitMix64 finalisers), non-negative, so a workload is deterministic.
//!
//! Table reads go through [`Tables`]: `T[i]` is the element value (0 outside the
//! table, and always 0 for a buffer), `&T[i]` the byte address `base + i * elem_bytes`
//! (wrapping, also outside the table), `len(T)` the element count. A table family
//! `F(k)` picks its member `k`, clamped into range.

use super::ir::Var;
use super::tables::{FamilyId, TableId, Tables};

/// A built-in per-lane value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `tid.x`
    TidX,
    /// `tid.y`
    TidY,
    /// `tid.z`
    TidZ,
    /// `ctaid.x`
    CtaidX,
    /// `ctaid.y`
    CtaidY,
    /// `ctaid.z`
    CtaidZ,
    /// `ntid.x` (also `ntid`)
    NtidX,
    /// `ntid.y`
    NtidY,
    /// `ntid.z`
    NtidZ,
    /// `nctaid.x` (also `nctaid`)
    NctaidX,
    /// `nctaid.y`
    NctaidY,
    /// `nctaid.z`
    NctaidZ,
    /// `gtid`: global linear thread id, `ctaid.x * ntid.x + tid.x` for 1-D launches;
    /// in general the linear block id times threads per block plus the linear tid.
    Gtid,
    /// `lane`: the thread's lane in its warp (linear tid % 32).
    Lane,
    /// `warp`: the warp's index in its thread block (linear tid / 32).
    Warp,
    /// `activemask`: the lanes of the warp active at this point, bit `l` for lane
    /// `l` (CUDA's `__activemask()`, on Kepler `__ballot(1)`); the same for every
    /// lane of the warp. Warp-cooperative code (Merrill's warp-based gathering)
    /// uses it to find the other lanes that still hold work.
    ActiveMask,
}

impl Builtin {
    /// All builtins with their source names (aliases included).
    pub const NAMES: &'static [(&'static str, Builtin)] = &[
        ("tid.x", Builtin::TidX),
        ("tid.y", Builtin::TidY),
        ("tid.z", Builtin::TidZ),
        ("ctaid.x", Builtin::CtaidX),
        ("ctaid.y", Builtin::CtaidY),
        ("ctaid.z", Builtin::CtaidZ),
        ("ntid.x", Builtin::NtidX),
        ("ntid.y", Builtin::NtidY),
        ("ntid.z", Builtin::NtidZ),
        ("ntid", Builtin::NtidX),
        ("nctaid.x", Builtin::NctaidX),
        ("nctaid.y", Builtin::NctaidY),
        ("nctaid.z", Builtin::NctaidZ),
        ("nctaid", Builtin::NctaidX),
        ("gtid", Builtin::Gtid),
        ("lane", Builtin::Lane),
        ("warp", Builtin::Warp),
        ("activemask", Builtin::ActiveMask),
    ];

    /// The builtin with this source name.
    pub fn from_name(name: &str) -> Option<Builtin> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| *b)
    }
}

/// A unary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-a` (wrapping)
    Neg,
    /// `!a` (1 if a == 0 else 0)
    Not,
    /// `~a` (bitwise not)
    BitNot,
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (truncating; 0 when dividing by 0)
    Div,
    /// `%` (sign of the dividend; 0 when dividing by 0)
    Rem,
    /// `<<`
    Shl,
    /// `>>` (arithmetic)
    Shr,
    /// `&`
    And,
    /// `|`
    Or,
    /// `^`
    Xor,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `&&`
    LAnd,
    /// `||`
    LOr,
}

/// A built-in function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Func {
    /// `min(a, b, ..)`
    Min,
    /// `max(a, b, ..)`
    Max,
    /// `ceil(a, b)`: a / b rounded up (towards +inf); 0 when b == 0.
    Ceil,
    /// `select(c, a, b)`: a if c != 0 else b.
    Select,
    /// `abs(a)` (wrapping: `abs(i64::MIN)` is `i64::MIN`).
    Abs,
    /// `hash(a, ..)`: a non-negative 63-bit hash of the arguments.
    Hash,
    /// `rand(seed, a, ..)`: a non-negative 63-bit pseudo-random value, a fixed
    /// function of the seed and the other arguments.
    Rand,
    /// `popc(a)`: the number of set bits of `a` (as 64 bits; CUDA's `__popc`).
    Popc,
}

impl Func {
    /// Name, and (minimum, maximum) argument count.
    pub fn signature(self) -> (&'static str, usize, usize) {
        match self {
            Func::Min => ("min", 1, usize::MAX),
            Func::Max => ("max", 1, usize::MAX),
            Func::Ceil => ("ceil", 2, 2),
            Func::Select => ("select", 3, 3),
            Func::Abs => ("abs", 1, 1),
            Func::Hash => ("hash", 1, usize::MAX),
            Func::Rand => ("rand", 1, usize::MAX),
            Func::Popc => ("popc", 1, 1),
        }
    }

    /// The function with this name.
    pub fn from_name(name: &str) -> Option<Func> {
        [
            Func::Min,
            Func::Max,
            Func::Ceil,
            Func::Select,
            Func::Abs,
            Func::Hash,
            Func::Rand,
            Func::Popc,
        ]
        .into_iter()
        .find(|f| f.signature().0 == name)
    }
}

/// A table named directly, or a member of a table family chosen per lane.
#[derive(Debug, Clone, PartialEq)]
pub enum TableRef {
    /// A table or buffer.
    Table(TableId),
    /// `F(k)`: member `k` of family `F` (clamped into range).
    Family(FamilyId, Box<Expr>),
}

/// A per-lane integer expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal (named constants of `[defs]` are folded to literals).
    Const(i64),
    /// A local variable slot.
    Var(Var),
    /// A kernel parameter (index into the function's `params`).
    Param(u16),
    /// A built-in per-lane value.
    Builtin(Builtin),
    /// `T[i]`: the element value (0 outside the table and for buffers).
    Value(TableRef, Box<Expr>),
    /// `&T[i]`: the element's byte address.
    Addr(TableRef, Box<Expr>),
    /// `len(T)`: the element count.
    Len(TableRef),
    /// `count(F)`: the number of members of a family.
    Count(FamilyId),
    /// A unary operator.
    Unary(UnOp, Box<Expr>),
    /// A binary operator.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A built-in function call (argument counts checked by the parser).
    Call(Func, Vec<Expr>),
}

/// What an expression can read besides tables: the engine implements this per lane.
pub trait LaneEnv {
    /// A built-in value of this lane.
    fn builtin(&self, b: Builtin) -> i64;
    /// A local variable slot of this lane (slots never written read 0).
    fn var(&self, v: Var) -> i64;
    /// A kernel argument of this lane's kernel instance.
    fn param(&self, index: u16) -> i64;
}

/// A simple environment: builtins in an array, slots and params in vectors. Used for
/// host expressions (builtins all 0), tests and functional pre-passes.
#[derive(Debug, Clone, Default)]
pub struct SimpleEnv {
    /// Builtin values indexed by `Builtin as usize`.
    pub builtins: [i64; 16],
    /// Variable slots (missing slots read 0).
    pub vars: Vec<i64>,
    /// Parameters (missing parameters read 0).
    pub params: Vec<i64>,
}

impl LaneEnv for SimpleEnv {
    fn builtin(&self, b: Builtin) -> i64 {
        self.builtins[b as usize]
    }
    fn var(&self, v: Var) -> i64 {
        self.vars.get(v.0 as usize).copied().unwrap_or(0)
    }
    fn param(&self, index: u16) -> i64 {
        self.params.get(index as usize).copied().unwrap_or(0)
    }
}

/// SplitMix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fold values into one non-negative 63-bit hash, starting from a domain constant.
pub fn hash_values(domain: u64, values: impl IntoIterator<Item = i64>) -> i64 {
    let mut h = mix(domain);
    for v in values {
        h = mix(h.wrapping_add(0x9e37_79b9_7f4a_7c15) ^ v as u64);
    }
    (h >> 1) as i64
}

const HASH_DOMAIN: u64 = 0x6861_7368; // "hash"
const RAND_DOMAIN: u64 = 0x7261_6e64; // "rand"

/// `ceil(a, b)` as the language defines it.
pub fn ceil_div(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    let q = a.wrapping_div(b);
    if a.wrapping_rem(b) != 0 && ((a < 0) == (b < 0)) {
        q.wrapping_add(1)
    } else {
        q
    }
}

impl BinOp {
    /// Apply the operator (total, wrapping).
    pub fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div => {
                if b == 0 {
                    0
                } else {
                    a.wrapping_div(b)
                }
            }
            BinOp::Rem => {
                if b == 0 {
                    0
                } else {
                    a.wrapping_rem(b)
                }
            }
            BinOp::Shl => a.wrapping_shl(b as u32),
            BinOp::Shr => a.wrapping_shr(b as u32),
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Eq => (a == b) as i64,
            BinOp::Ne => (a != b) as i64,
            BinOp::Lt => (a < b) as i64,
            BinOp::Le => (a <= b) as i64,
            BinOp::Gt => (a > b) as i64,
            BinOp::Ge => (a >= b) as i64,
            BinOp::LAnd => (a != 0 && b != 0) as i64,
            BinOp::LOr => (a != 0 || b != 0) as i64,
        }
    }
}

impl TableRef {
    /// The table this reference names for this lane.
    pub fn resolve<E: LaneEnv + ?Sized>(&self, env: &E, tables: &Tables) -> TableId {
        match self {
            TableRef::Table(t) => *t,
            TableRef::Family(f, k) => tables.family_member(*f, k.eval(env, tables)),
        }
    }
}

impl Expr {
    /// Evaluate for one lane. Never panics (see the module doc for the arithmetic).
    pub fn eval<E: LaneEnv + ?Sized>(&self, env: &E, tables: &Tables) -> i64 {
        match self {
            Expr::Const(c) => *c,
            Expr::Var(v) => env.var(*v),
            Expr::Param(p) => env.param(*p),
            Expr::Builtin(b) => env.builtin(*b),
            Expr::Value(t, i) => {
                let id = t.resolve(env, tables);
                tables.value(id, i.eval(env, tables))
            }
            Expr::Addr(t, i) => {
                let id = t.resolve(env, tables);
                tables.addr(id, i.eval(env, tables))
            }
            Expr::Len(t) => tables.len_of(t.resolve(env, tables)) as i64,
            Expr::Count(f) => tables.family_len(*f) as i64,
            Expr::Unary(op, a) => {
                let a = a.eval(env, tables);
                match op {
                    UnOp::Neg => a.wrapping_neg(),
                    UnOp::Not => (a == 0) as i64,
                    UnOp::BitNot => !a,
                }
            }
            Expr::Binary(op, a, b) => {
                let a = a.eval(env, tables);
                // `&&` and `||` short-circuit (no side effects, but it saves work).
                match op {
                    BinOp::LAnd if a == 0 => 0,
                    BinOp::LOr if a != 0 => 1,
                    _ => op.apply(a, b.eval(env, tables)),
                }
            }
            Expr::Call(f, args) => {
                let mut vals = args.iter().map(|a| a.eval(env, tables));
                match f {
                    Func::Min => vals.min().unwrap_or(0),
                    Func::Max => vals.max().unwrap_or(0),
                    Func::Ceil => {
                        let a = vals.next().unwrap_or(0);
                        let b = vals.next().unwrap_or(0);
                        ceil_div(a, b)
                    }
                    Func::Select => {
                        // Only the chosen branch is evaluated.
                        let c = args.first().map_or(0, |c| c.eval(env, tables));
                        let pick = if c != 0 { args.get(1) } else { args.get(2) };
                        pick.map_or(0, |e| e.eval(env, tables))
                    }
                    Func::Abs => vals.next().unwrap_or(0).wrapping_abs(),
                    Func::Hash => hash_values(HASH_DOMAIN, vals),
                    Func::Rand => hash_values(RAND_DOMAIN, vals),
                    Func::Popc => vals.next().unwrap_or(0).count_ones() as i64,
                }
            }
        }
    }

    /// The value if the expression reads nothing but literals.
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Expr::Const(c) => Some(*c),
            _ => None,
        }
    }
}
