//! Algorithm 5 (MLP, CLP aware iteration-block scheduling, dissertation §5.5.4)
//! with the MLP-first, CLP-first and Balanced schemes (§5.5.6, eq. 5.2), the
//! iteration-window size of eq. 5.1, and the Default round-robin baseline.
//!
//! Model (§5.5.1): the loop nest is strip-mined into iteration blocks (IBs), each
//! with a memory-bank vector and an LLC-bank vector (per-bank access counts; the
//! bit vectors b⃗, c⃗ are their supports). At every scheduling step each core in
//! turn fills an iteration window (IW) of `W` IBs:
//!
//! 1. the first IB is the head of the pool (the lowest-id available IB — in the
//!    printed algorithm the scan starts there and it always improves the empty
//!    intra-core vector);
//! 2. MLP phase: the IB adding the most banks to the inter-core vector g⃗ (OR over
//!    all windows of the step) is taken; when none adds to g⃗, the one adding most
//!    to the intra-core vector l⃗ (this window) — lines 15–29 read as a greedy
//!    choice (ties: first group found, see below);
//! 3. once ⊙g⃗ ≥ β·MAX_MLP (line 33) or the MLP cannot grow, the CLP phase picks
//!    IBs that add LLC banks (inter-core first, then intra-core) — lines 37–41;
//! 4. if the window still has room, it is filled with the lowest-id available
//!    IBs, so that every window is full and the schedule always terminates (the
//!    printed algorithm leaves this case open).
//!
//! CLP-first swaps the roles of the memory and LLC vectors. Balanced picks the
//! second IB of each window by the standard-deviation rule of §5.5.6 (smallest
//! SD_m((m⃗_c ⊎ m⃗_x)·η_m) + SD_c((c⃗_c ⊎ c⃗_x)·η_c)) and then sets that window's
//! β = SD_m / (SD_m + SD_c) of the chosen pair (0.5 when both are 0): a window whose
//! memory load is the more unbalanced keeps optimising MLP longer. MLP-first and
//! CLP-first use β = 1.
//!
//! Dependences (§5.5.4): with an IB DAG only IBs whose predecessors have all been
//! picked are candidates, so the pick order is a topological order; cross-core
//! waits are then derived by [`crate::deps::sync_points`].
//!
//! Speed. The paper states O(N·M²) for N cores and M IBs. Here IBs with
//! identical (memory set, LLC set) pairs are grouped (G groups; a fast hash of
//! the set words), and each covered vector (inter/intra-core × memory/LLC) has a
//! lazy greedy queue of group gains: gains only shrink while a vector grows, so a
//! popped group whose fresh gain still tops the queue is the best. The queues are
//! bucket queues (one bitset over the groups per gain value, gains <= banks), so a
//! new window's queue is a copy of a per-role template (O(B·G/64) words instead
//! of a heap build), and a per-role union of the available groups' sets answers
//! "does any group still add a bank?" in O(B/64) instead of draining the queue.
//! The pool head is a bitset with a cursor, each group's members a sorted list
//! with a cursor (a min-heap with a DAG); the Balanced SD uses sparse dot
//! products over CSR non-zeros, O(G·nnz) once per window. Popcounts use the
//! `popcnt` instruction when the CPU has it. Total: O(M·(B/64 + log) + picks ·
//! stale re-evaluations) plus O(S·B·G/64) for S windows, instead of O(N·M²).
//! The schedule is exactly that of the straightforward heap version (checked by
//! differential tests against a frozen copy).

use crate::bankset;
use crate::deps::UnitDag;
use crate::error::{inst, invalid};
use crate::Result;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::BuildHasherDefault;

mod algorithm5;
mod la_mlp;
#[cfg(test)]
mod tests;

use algorithm5::algorithm5;
pub use la_mlp::schedule_la_mlp;

/// Per-IB weighted bank vectors.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct BlockVectors {
    /// Accesses per memory bank.
    pub mem: Vec<u32>,
    /// Accesses per LLC bank.
    pub llc: Vec<u32>,
}

/// An iteration-block scheduling instance.
#[derive(Clone, Debug)]
pub struct IbInstance {
    /// Number of cores N.
    pub cores: usize,
    /// Iteration-window size W (IBs per core per step).
    pub window: usize,
    /// Number of memory banks.
    pub mem_banks: usize,
    /// Number of LLC banks.
    pub llc_banks: usize,
    /// The IBs in original order.
    pub blocks: Vec<BlockVectors>,
}

impl IbInstance {
    /// Checks the vector lengths and sizes.
    pub fn validate(&self) -> Result<()> {
        if self.cores == 0 {
            return Err(inst("cores", "must be at least 1"));
        }
        if self.window == 0 {
            return Err(inst("window", "must be at least 1"));
        }
        if self.mem_banks == 0 {
            return Err(inst("mem_banks", "must be at least 1"));
        }
        if self.llc_banks == 0 {
            return Err(inst("llc_banks", "must be at least 1"));
        }
        for (i, b) in self.blocks.iter().enumerate() {
            if b.mem.len() != self.mem_banks {
                return Err(inst(
                    format!("blocks[{i}].mem"),
                    format!(
                        "has {} entries, expected mem_banks = {}",
                        b.mem.len(),
                        self.mem_banks
                    ),
                ));
            }
            if b.llc.len() != self.llc_banks {
                return Err(inst(
                    format!("blocks[{i}].llc"),
                    format!(
                        "has {} entries, expected llc_banks = {}",
                        b.llc.len(),
                        self.llc_banks
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Parses `{"cores": N, "window": W, "mem_banks": B, "llc_banks": L, "blocks": [{"mem": [...], "llc": [...]}, ...]}`.
    pub fn from_json(v: &serde_json::Value) -> Result<Self> {
        let num = |f: &str| -> Result<usize> {
            v.get(f)
                .ok_or_else(|| inst(f, "missing"))?
                .as_u64()
                .map(|x| x as usize)
                .ok_or_else(|| inst(f, "not a non-negative integer"))
        };
        let (cores, window, mem_banks, llc_banks) = (
            num("cores")?,
            num("window")?,
            num("mem_banks")?,
            num("llc_banks")?,
        );
        let arr = v
            .get("blocks")
            .and_then(|b| b.as_array())
            .ok_or_else(|| inst("blocks", "missing or not an array"))?;
        let mut blocks = Vec::with_capacity(arr.len());
        for (i, b) in arr.iter().enumerate() {
            let vecf = |f: &str| -> Result<Vec<u32>> {
                let a = b
                    .get(f)
                    .and_then(|x| x.as_array())
                    .ok_or_else(|| inst(format!("blocks[{i}].{f}"), "missing or not an array"))?;
                a.iter()
                    .enumerate()
                    .map(|(j, x)| {
                        x.as_u64()
                            .filter(|&x| x <= u32::MAX as u64)
                            .map(|x| x as u32)
                            .ok_or_else(|| {
                                inst(
                                    format!("blocks[{i}].{f}[{j}]"),
                                    "not a non-negative 32-bit integer",
                                )
                            })
                    })
                    .collect()
            };
            blocks.push(BlockVectors {
                mem: vecf("mem")?,
                llc: vecf("llc")?,
            });
        }
        let s = IbInstance {
            cores,
            window,
            mem_banks,
            llc_banks,
            blocks,
        };
        s.validate()?;
        Ok(s)
    }
}

/// Scheduling scheme (C ABI numbering in parentheses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// (0) Round-robin IBs over cores, W per window: the baseline.
    Default,
    /// (1) MLP first, CLP from the TempSet afterwards.
    MlpFirst,
    /// (2) CLP first, then MLP.
    ClpFirst,
    /// (3) Balanced: β per window from the SD rule.
    Balanced,
    /// (4) Locality-Aware-MLP baseline of §5.6.1 (after Ding et al., MICRO
    /// 2014): inter-core bank parallelism with row-buffer locality, no CLP
    /// ([`schedule_la_mlp`]).
    LaMlp,
}

impl Scheme {
    /// From the C ABI code (0..=3).
    pub fn from_code(c: u32) -> Option<Scheme> {
        Some(match c {
            0 => Scheme::Default,
            1 => Scheme::MlpFirst,
            2 => Scheme::ClpFirst,
            3 => Scheme::Balanced,
            4 => Scheme::LaMlp,
            _ => return None,
        })
    }
    /// Largest C ABI code.
    pub const MAX_CODE: u32 = 4;
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Default => "default",
            Scheme::MlpFirst => "mlp-first",
            Scheme::ClpFirst => "clp-first",
            Scheme::Balanced => "balanced",
            Scheme::LaMlp => "la-mlp",
        }
    }
    /// From the CLI name (`default`, `mlp-first`, `clp-first`, `balanced`).
    pub fn from_name(s: &str) -> Option<Scheme> {
        Some(match s {
            "default" => Scheme::Default,
            "mlp-first" => Scheme::MlpFirst,
            "clp-first" => Scheme::ClpFirst,
            "balanced" => Scheme::Balanced,
            "la-mlp" => Scheme::LaMlp,
            _ => return None,
        })
    }
}

/// Options of [`schedule_ibs`].
#[derive(Clone, Debug)]
pub struct MlpOptions {
    /// Scheme (default MLP-first).
    pub scheme: Scheme,
    /// η_m: service latency of a memory bank, cycles (default 1.0; the ABI uses the
    /// machine's tRCD + tCL).
    pub eta_mem: f64,
    /// η_c: service latency of an LLC bank, cycles (default 1.0; the ABI uses the
    /// machine's LLC hit latency).
    pub eta_llc: f64,
}

impl Default for MlpOptions {
    fn default() -> Self {
        MlpOptions {
            scheme: Scheme::MlpFirst,
            eta_mem: 1.0,
            eta_llc: 1.0,
        }
    }
}

/// Result of iteration-block scheduling.
#[derive(Clone, Debug, PartialEq)]
pub struct IbSchedule {
    /// `windows[step][core]` = IB ids of that core's window, in execution order.
    pub windows: Vec<Vec<Vec<usize>>>,
    /// β of each window in (step, core) order (empty for Default).
    pub beta: Vec<f64>,
    /// Global pick order: a topological order of the DAG in which every core's
    /// sequence is a subsequence (used for dependence waits and trace mode).
    pub seq: Vec<u32>,
}

impl IbSchedule {
    /// `per_core()[c]` = all IBs of core `c` in execution order.
    pub fn per_core(&self, cores: usize) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); cores];
        for step in &self.windows {
            for (c, w) in step.iter().enumerate() {
                out[c].extend(w.iter().map(|&b| b as u32));
            }
        }
        out
    }
}

/// How many IBs each core runs in total: `m / n`, one more for the first
/// `m % n` cores, the same counts as the Default round-robin. Every scheme
/// caps a core's windows at its remaining quota, so reordering IBs never
/// changes the load balance: without the cap the last step fills the first
/// cores' windows to W and leaves the others idle (with few IBs per core, up to
/// twice the Default's longest core).
pub fn core_quotas(m: usize, n: usize) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    (0..n).map(|c| m / n + usize::from(c < m % n)).collect()
}

/// Eq. 5.1: IW size = C / (D · n) with C the LLC capacity in cache lines, D the
/// data-set size (cache lines per IB) and n the number of cores; at least 1.
pub fn iw_size(llc_lines: u64, ds_lines: f64, cores: usize) -> usize {
    if ds_lines <= 0.0 || cores == 0 {
        return 1;
    }
    ((llc_lines as f64 / (ds_lines * cores as f64)).floor() as usize).max(1)
}

/// Runs the selected scheme over `inst` (Algorithm 5 or the Default baseline).
pub fn schedule_ibs(
    inst: &IbInstance,
    opts: &MlpOptions,
    dag: Option<&UnitDag>,
) -> Result<IbSchedule> {
    inst.validate()?;
    let m = inst.blocks.len();
    if let Some(d) = dag {
        if d.len() != m {
            return Err(invalid(format!(
                "dependence graph has {} nodes but there are {m} iteration blocks",
                d.len()
            )));
        }
    }
    let n = inst.cores;
    let w = inst.window;
    if opts.scheme == Scheme::Default {
        let mut windows: Vec<Vec<Vec<usize>>> = Vec::new();
        for i in 0..m {
            let step = (i / n) / w;
            if windows.len() <= step {
                windows.push(vec![Vec::new(); n]);
            }
            windows[step][i % n].push(i);
        }
        return Ok(IbSchedule {
            windows,
            beta: Vec::new(),
            seq: (0..m as u32).collect(),
        });
    }
    if opts.scheme == Scheme::LaMlp {
        return Ok(schedule_la_mlp(inst, dag));
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports `popcnt`, checked just above.
        return Ok(unsafe { algorithm5_popcnt(inst, opts, dag) });
    }
    Ok(algorithm5(inst, opts, dag))
}

/// [`algorithm5`] compiled with the `popcnt` instruction (the default x86-64
/// target computes popcounts in software).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn algorithm5_popcnt(
    inst: &IbInstance,
    opts: &MlpOptions,
    dag: Option<&UnitDag>,
) -> IbSchedule {
    algorithm5(inst, opts, dag)
}
