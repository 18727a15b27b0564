//! Fine-grained thread-block management with preemption (Beaumont and Mudge,
//! "Fine-Grained Management of Thread Blocks for Irregular Applications";
//! `gpu-seeds.md` §6, §8.1 "TB preemption", §8.3 `PreemptionPolicy`; issue #33).
//!
//! One concept per module:
//! * [`monitor`]: the per-TB counters an SM keeps (memory-throttle stall
//!   warp-cycles, FPU issue slots), the metrics over a monitor period, their
//!   3-bit quantisation and the per-TB monitor that reports a level change;
//! * [`rut`]: the resource usage table keyed by (stream, block index) that
//!   predicts a TB's levels from its earlier invocations;
//! * [`victim`]: the LIFO victim queue with its capacity;
//! * [`context`]: context size (registers + shared memory) and the transfer of a
//!   context over the modelled memory path;
//! * [`policy`]: the [`policy::PreemptionPolicy`] trait and the estimators of
//!   the four managements (none, oracle static, kernel-wide profiler,
//!   fine-grained);
//! * [`place`]: co-location of complementary TBs as a
//!   [`TbDispatchPolicy`](super::sched::TbDispatchPolicy);
//! * [`manager`]: the TB scheduler's state that ties them together for the
//!   engine (residents, estimates, preemption, victims, restores);
//! * [`oracle`]: the profiling run behind oracle static classification;
//! * [`apps`]: the LonestarGPU-like workloads and their co-runs.
//!
//! Levels: each metric is quantised to `0..=2^bits - 1` (3 bits: 0..7) and read
//! as that fraction of the SM's capacity for the metric (`gpu-seeds.md` §6.1,
//! "Gaps to fill" [I]); an SM is oversubscribed in a metric when the levels of its
//! TBs sum past `cap` × the top level.

pub mod apps;
pub mod context;
pub mod manager;
pub mod monitor;
pub mod oracle;
pub mod place;
pub mod policy;
pub mod rut;
pub mod victim;

use serde::{Deserialize, Serialize};

/// Number of tracked metrics: memory-throttle stall rate, FPU utilisation.
pub const METRICS: usize = 2;

/// Index of the memory-throttle metric in [`Levels`].
pub const MEM: usize = 0;
/// Index of the FPU-utilisation metric in [`Levels`].
pub const FPU: usize = 1;

/// Quantised metrics of one TB: `[memory throttle, FPU]`, each `0..=top`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Levels(pub [u8; METRICS]);

/// Identity of a TB for the usage table: the stream it was launched on and its
/// linear block index (`gpu-seeds.md` §8.5: "Identity for FGTB's RUT").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TbKey {
    /// Global stream index.
    pub stream: u32,
    /// Linear block index in the grid.
    pub block: u64,
}

/// Which thread-block management runs (`weft gpusim --tb-manage`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TbManage {
    /// Registers, shared memory, threads and TB slots only (the engine as before).
    #[default]
    None,
    /// Oracle static classification: every TB of a kernel is placed with the
    /// kernel's whole-run average levels (measured beforehand); no preemption.
    StaticOracle,
    /// Kernel-granularity profiling: the kernel's running average levels place
    /// its TBs, and a rise that oversubscribes an SM preempts one of its TBs.
    Profiler,
    /// The paper's design: per-TB levels from the usage table place TBs, and a
    /// TB whose reported levels oversubscribe its SM is preempted.
    FineGrained,
}

impl TbManage {
    /// Parses `none`, `static-oracle`, `profiler` or `fine-grained`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "none" => Some(Self::None),
            "static-oracle" | "static" => Some(Self::StaticOracle),
            "profiler" | "kernel-profiler" => Some(Self::Profiler),
            "fine-grained" | "fgtb" => Some(Self::FineGrained),
            _ => None,
        }
    }

    /// The flag's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::StaticOracle => "static-oracle",
            Self::Profiler => "profiler",
            Self::FineGrained => "fine-grained",
        }
    }

    /// Every management, in report order.
    pub const ALL: [TbManage; 4] = [
        Self::None,
        Self::StaticOracle,
        Self::Profiler,
        Self::FineGrained,
    ];
}

/// Where a saved context goes on its way to and from memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ContextPath {
    /// Non-cacheable (the paper's design): context lines bypass the L1.
    #[default]
    NonCacheable,
    /// Cacheable: saved lines go through the saving SM's L1 and restored lines
    /// into the restoring SM's L1, evicting data (the "cataclysmic thread
    /// purging" variant of the paper's appendix B).
    Cacheable,
}

/// Parameters of the management (defaults: the paper's, `gpu-seeds.md` §6.1;
/// [I] where it is silent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FgtbConfig {
    /// Bits per metric in the usage table and the reports. Default 3.
    pub bits: u32,
    /// Usage-table size in bytes. Default 16384 (16 KB, about 21K entries of two
    /// 3-bit metrics).
    pub rut_bytes: u32,
    /// Victim-queue entries. Default 1024.
    pub vq_capacity: usize,
    /// Oversubscription threshold: an SM is oversubscribed in a metric when the
    /// levels of its TBs sum past `cap` × the top level. Default 1.0 [I].
    pub cap: f64,
    /// Scales the paper's microsecond constants (monitor period = context KB /
    /// 1.1 µs) onto simulated cycles, which cannot cover milliseconds. Default
    /// 0.1 [I] (`gpu-seeds.md` §6.1: one documented factor).
    pub time_scale: f64,
    /// Shortest monitor period, cycles (tiny contexts). Default 256 [I].
    pub min_period: u64,
    /// A report goes to the TB scheduler when a level moved by at least this
    /// much since the last report. Default 1 (any change of the 3-bit value) [I].
    pub report_delta: u8,
    /// Metrics tracked: `[memory throttle, FPU]`. Default both (the paper's
    /// ablation turns one off).
    pub track: [bool; METRICS],
    /// Preemption on (the "predictive scheduling only" ablation turns it off).
    pub preempt: bool,
    /// Prediction from the usage table on (the "preemption only" ablation
    /// turns it off: unseen estimates everywhere).
    pub predict: bool,
    /// Context path. Default non-cacheable.
    pub context: ContextPath,
    /// The memory-throttle metric counts the LSU's input side as well as its
    /// miss queue: a warp whose memory instruction waits for the LSU to accept
    /// it (more than `lsu_queue` transactions' work ahead) is throttled, as is
    /// one blocked on a full miss queue (the paper: the LSU "is fully saturated
    /// and can't accept more requests"). Default true; false counts the miss
    /// queue only (sessions 4 and 5).
    pub lsu_input: bool,
    /// A TB the usage table has not seen is estimated with its kernel's
    /// running mean of reports (the profiler's estimate) instead of 0 (the
    /// option of `gpu-seeds.md` §6.1 "Gaps" [I]). Default false.
    pub unseen_kernel_mean: bool,
}

impl Default for FgtbConfig {
    fn default() -> Self {
        FgtbConfig {
            bits: 3,
            rut_bytes: 16 * 1024,
            vq_capacity: 1024,
            cap: 1.0,
            time_scale: 0.1,
            min_period: 256,
            report_delta: 1,
            track: [true; METRICS],
            preempt: true,
            predict: true,
            context: ContextPath::NonCacheable,
            lsu_input: true,
            unseen_kernel_mean: false,
        }
    }
}

impl FgtbConfig {
    /// The top level of a metric (`2^bits - 1`).
    pub fn top(&self) -> u8 {
        ((1u32 << self.bits.clamp(1, 8)) - 1) as u8
    }

    /// The summed levels one SM holds per metric before it is oversubscribed.
    pub fn capacity(&self) -> u32 {
        (self.cap * self.top() as f64).round() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in TbManage::ALL {
            assert_eq!(TbManage::parse(m.name()), Some(m));
        }
        assert_eq!(TbManage::parse("nope"), None);
        let c = FgtbConfig::default();
        assert_eq!((c.top(), c.capacity()), (7, 7));
        let c = FgtbConfig {
            cap: 2.0,
            bits: 2,
            ..c
        };
        assert_eq!((c.top(), c.capacity()), (3, 6));
    }
}
