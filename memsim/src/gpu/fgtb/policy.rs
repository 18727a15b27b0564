//! Preemption policies and the estimates they place TBs with (`gpu-seeds.md`
//! §6.1 algorithm, §6.2 baselines, §8.3 `PreemptionPolicy`).
//!
//! A policy answers three questions for the TB scheduler: what a TB is expected
//! to use ([`PreemptionPolicy::estimate`], for a TB about to be placed and for
//! the load of a resident one), what a monitor report or a TB's exit teaches
//! it, and whether a report that oversubscribes an SM preempts the reporting TB.
//! The four managements of [`TbManage`]:
//! * [`Unmanaged`]: every estimate 0 (registers, shared memory, threads and TB
//!   slots only), never preempts;
//! * [`StaticOracle`]: every TB of a function carries that function's whole-run
//!   average levels, measured by an earlier run; no tracking, no preemption
//!   (the paper's stand-in for Warped-Slicer);
//! * [`KernelProfiler`]: the kernel's levels are the mean of the latest reports
//!   of its TBs (a kernel starts from the last kernel of its stream and
//!   function); when that mean rises and the reporting TB's SM is
//!   oversubscribed, that TB is preempted (the stand-in for Park et al.);
//! * [`FineGrained`]: a new TB's levels come from the usage table (earlier TBs
//!   of its stream and block index; unseen: 0), a resident TB's from its own
//!   latest report, which also updates the table; a TB whose levels rose and
//!   oversubscribe its SM is preempted.

use super::rut::UsageTable;
use super::{FgtbConfig, Levels, TbKey, TbManage, METRICS};
use std::collections::HashMap;

/// What a policy knows of a TB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TbInfo {
    /// Global TB id (dispatch order).
    pub gid: u32,
    /// Kernel instance.
    pub kernel: u32,
    /// Function of the kernel.
    pub function: u32,
    /// Usage-table key: stream and block index.
    pub key: TbKey,
}

/// A thread-block preemption policy (`gpu-seeds.md` §8.3).
pub trait PreemptionPolicy {
    /// Policy name (the `--tb-manage` value).
    fn name(&self) -> &'static str;
    /// The levels `tb` is expected to use (`resident`: it is on an SM now).
    fn estimate(&mut self, tb: &TbInfo, resident: bool) -> Levels;
    /// A monitor report of resident `tb`: its levels over the last period.
    /// Returns whether the estimate of `tb` rose in some metric.
    fn on_report(&mut self, tb: &TbInfo, levels: Levels) -> bool;
    /// `tb` exited; `lifetime` are its levels over its whole residence.
    fn on_exit(&mut self, tb: &TbInfo, lifetime: Levels);
    /// Whether a report that oversubscribes an SM preempts the reporter.
    fn preempts(&self) -> bool;
    /// Usage-table counters (updates, conflicts, hits, lookups), if it has one.
    fn table_stats(&self) -> Option<[u64; 4]> {
        None
    }
}

/// No management: estimates 0, no preemption.
#[derive(Clone, Debug, Default)]
pub struct Unmanaged;

impl PreemptionPolicy for Unmanaged {
    fn name(&self) -> &'static str {
        "none"
    }
    fn estimate(&mut self, _: &TbInfo, _: bool) -> Levels {
        Levels::default()
    }
    fn on_report(&mut self, _: &TbInfo, _: Levels) -> bool {
        false
    }
    fn on_exit(&mut self, _: &TbInfo, _: Levels) {}
    fn preempts(&self) -> bool {
        false
    }
}

/// Oracle static classification: per-function whole-run averages.
#[derive(Clone, Debug, Default)]
pub struct StaticOracle {
    /// Levels per function id.
    pub per_function: HashMap<u32, Levels>,
}

impl PreemptionPolicy for StaticOracle {
    fn name(&self) -> &'static str {
        "static-oracle"
    }
    fn estimate(&mut self, tb: &TbInfo, _: bool) -> Levels {
        self.per_function
            .get(&tb.function)
            .copied()
            .unwrap_or_default()
    }
    fn on_report(&mut self, _: &TbInfo, _: Levels) -> bool {
        false
    }
    fn on_exit(&mut self, _: &TbInfo, _: Levels) {}
    fn preempts(&self) -> bool {
        false
    }
}

/// Kernel-granularity profiling.
#[derive(Clone, Debug, Default)]
pub struct KernelProfiler {
    /// Latest report of each resident TB, per kernel instance.
    latest: HashMap<u32, HashMap<u32, Levels>>,
    /// The kernel's levels (mean of its TBs' latest reports).
    kernel: HashMap<u32, Levels>,
    /// Level sums and count of the kernel's exited TBs.
    exited: HashMap<u32, ([u32; METRICS], u32)>,
    /// The last kernel's levels per (stream, function), for a new kernel.
    history: HashMap<(u32, u32), Levels>,
    preempt: bool,
}

impl KernelProfiler {
    /// The kernel of `tb`'s levels: the mean over its resident TBs' latest
    /// reports and its exited TBs' lifetimes; recorded for the kernel and as
    /// the history of its stream and function.
    fn kernel_mean(&mut self, tb: &TbInfo) -> Levels {
        let mut sum = [0u32; METRICS];
        let mut n = 0u32;
        if let Some(m) = self.latest.get(&tb.kernel) {
            for l in m.values() {
                for (s, x) in sum.iter_mut().zip(l.0) {
                    *s += x as u32;
                }
                n += 1;
            }
        }
        if let Some((e, k)) = self.exited.get(&tb.kernel) {
            for (s, x) in sum.iter_mut().zip(e) {
                *s += x;
            }
            n += k;
        }
        let now = if n == 0 {
            Levels::default()
        } else {
            Levels(sum.map(|s| ((s + n / 2) / n) as u8))
        };
        self.kernel.insert(tb.kernel, now);
        self.history.insert((tb.key.stream, tb.function), now);
        now
    }

    /// A profiler that preempts when `preempt`.
    pub fn new(preempt: bool) -> Self {
        KernelProfiler {
            preempt,
            ..Default::default()
        }
    }
}

impl PreemptionPolicy for KernelProfiler {
    fn name(&self) -> &'static str {
        "profiler"
    }
    fn estimate(&mut self, tb: &TbInfo, _: bool) -> Levels {
        match self.kernel.get(&tb.kernel) {
            Some(l) => *l,
            None => self
                .history
                .get(&(tb.key.stream, tb.function))
                .copied()
                .unwrap_or_default(),
        }
    }
    fn on_report(&mut self, tb: &TbInfo, levels: Levels) -> bool {
        let before = self.estimate(tb, true);
        self.latest
            .entry(tb.kernel)
            .or_default()
            .insert(tb.gid, levels);
        let now = self.kernel_mean(tb);
        now.0.iter().zip(before.0).any(|(a, b)| *a > b)
    }
    fn on_exit(&mut self, tb: &TbInfo, lifetime: Levels) {
        if let Some(m) = self.latest.get_mut(&tb.kernel) {
            m.remove(&tb.gid);
        }
        let e = self.exited.entry(tb.kernel).or_default();
        for (s, l) in e.0.iter_mut().zip(lifetime.0) {
            *s += l as u32;
        }
        e.1 += 1;
        self.kernel_mean(tb);
    }
    fn preempts(&self) -> bool {
        self.preempt
    }
}

/// The paper's fine-grained management: per-TB levels and the usage table.
#[derive(Clone, Debug)]
pub struct FineGrained {
    /// The usage table.
    pub rut: UsageTable,
    /// Latest report of each resident TB.
    resident: HashMap<u32, Levels>,
    predict: bool,
    preempt: bool,
    /// The estimate of a TB the table has not seen: the kernel's running
    /// mean ([`FgtbConfig::unseen_kernel_mean`]), else 0.
    fallback: Option<KernelProfiler>,
}

impl FineGrained {
    /// A fine-grained policy with the table of `cfg` (and its ablations).
    pub fn new(cfg: &FgtbConfig) -> Self {
        FineGrained {
            rut: UsageTable::new(cfg),
            resident: HashMap::new(),
            predict: cfg.predict,
            preempt: cfg.preempt,
            fallback: cfg.unseen_kernel_mean.then(|| KernelProfiler::new(false)),
        }
    }
}

impl PreemptionPolicy for FineGrained {
    fn name(&self) -> &'static str {
        "fine-grained"
    }
    fn estimate(&mut self, tb: &TbInfo, resident: bool) -> Levels {
        if resident {
            if let Some(l) = self.resident.get(&tb.gid) {
                return *l;
            }
        }
        let seen = if self.predict {
            self.rut.predict(tb.key)
        } else {
            None
        };
        match (seen, &mut self.fallback) {
            (Some(l), _) => l,
            (None, Some(k)) => k.estimate(tb, false),
            (None, None) => Levels::default(),
        }
    }
    fn on_report(&mut self, tb: &TbInfo, levels: Levels) -> bool {
        let before = self.estimate(tb, true);
        if let Some(k) = &mut self.fallback {
            k.on_report(tb, levels);
        }
        self.rut.update(tb.key, levels);
        self.resident.insert(tb.gid, levels);
        levels.0.iter().zip(before.0).any(|(a, b)| *a > b)
    }
    fn on_exit(&mut self, tb: &TbInfo, lifetime: Levels) {
        if let Some(k) = &mut self.fallback {
            k.on_exit(tb, lifetime);
        }
        self.rut.update(tb.key, lifetime);
        self.resident.remove(&tb.gid);
    }
    fn preempts(&self) -> bool {
        self.preempt
    }
    fn table_stats(&self) -> Option<[u64; 4]> {
        let r = &self.rut;
        Some([r.updates, r.conflicts, r.hits, r.lookups])
    }
}

/// The policy of management `m` (`oracle`: per-function levels for
/// [`TbManage::StaticOracle`]).
pub fn preemption_policy(
    m: TbManage,
    cfg: &FgtbConfig,
    oracle: HashMap<u32, Levels>,
) -> Box<dyn PreemptionPolicy> {
    match m {
        TbManage::None => Box::new(Unmanaged),
        TbManage::StaticOracle => Box::new(StaticOracle {
            per_function: oracle,
        }),
        TbManage::Profiler => Box::new(KernelProfiler::new(cfg.preempt)),
        TbManage::FineGrained => Box::new(FineGrained::new(cfg)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tb(gid: u32, kernel: u32, block: u64) -> TbInfo {
        TbInfo {
            gid,
            kernel,
            function: 0,
            key: TbKey { stream: 0, block },
        }
    }

    /// The fine-grained policy predicts a block from the same stream's earlier
    /// TB with that index; a resident TB is estimated by its own report.
    #[test]
    fn fine_grained_predicts_from_earlier_invocation() {
        let mut p = FineGrained::new(&FgtbConfig::default());
        let a = tb(0, 0, 5);
        assert_eq!(p.estimate(&a, false), Levels([0, 0])); // unseen
        assert!(p.on_report(&a, Levels([6, 1]))); // rose
        assert!(!p.on_report(&a, Levels([3, 1]))); // fell
        p.on_exit(&a, Levels([5, 1]));
        // the next invocation's block 5 (another kernel, same stream)
        let b = tb(7, 1, 5);
        assert_eq!(p.estimate(&b, false), Levels([5, 1]));
        assert_eq!(p.estimate(&tb(8, 1, 6), false), Levels([0, 0]));
        let no_predict = FgtbConfig {
            predict: false,
            ..FgtbConfig::default()
        };
        let mut q = FineGrained::new(&no_predict);
        q.on_exit(&a, Levels([5, 1]));
        assert_eq!(q.estimate(&b, false), Levels([0, 0]));
    }

    /// With `unseen_kernel_mean`, a TB the table has not seen is estimated
    /// with its kernel's running mean of reports; a seen one by the table.
    #[test]
    fn unseen_tb_takes_the_kernel_mean() {
        let cfg = FgtbConfig {
            unseen_kernel_mean: true,
            ..FgtbConfig::default()
        };
        let mut p = FineGrained::new(&cfg);
        let (a, b) = (tb(0, 0, 0), tb(1, 0, 1));
        assert_eq!(p.estimate(&b, false), Levels([0, 0])); // nothing reported
        p.on_report(&a, Levels([6, 0]));
        p.on_report(&b, Levels([2, 2]));
        // block 2 unseen: the kernel's mean of [6, 0] and [2, 2]
        assert_eq!(p.estimate(&tb(2, 0, 2), false), Levels([4, 1]));
        // block 0 seen: the table's entry
        assert_eq!(p.estimate(&tb(3, 0, 0), false), Levels([6, 0]));
        // without the option an unseen TB reads 0
        let mut q = FineGrained::new(&FgtbConfig::default());
        q.on_report(&a, Levels([6, 0]));
        assert_eq!(q.estimate(&tb(2, 0, 2), false), Levels([0, 0]));
    }

    /// The profiler gives every TB of a kernel the mean of its TBs' reports.
    #[test]
    fn profiler_tracks_the_kernel_mean() {
        let mut p = KernelProfiler::new(true);
        let (a, b) = (tb(0, 0, 0), tb(1, 0, 1));
        assert!(p.on_report(&a, Levels([6, 0])));
        assert_eq!(p.estimate(&b, false), Levels([6, 0]));
        // the mean becomes [4, 1]: memory fell, FPU rose
        assert!(p.on_report(&b, Levels([2, 2])));
        assert_eq!(p.estimate(&a, true), Levels([4, 1]));
        p.on_exit(&a, Levels([6, 0]));
        p.on_exit(&b, Levels([2, 2]));
        // a new kernel of the same stream and function starts from the last mean
        assert_eq!(p.estimate(&tb(2, 1, 0), false), Levels([4, 1]));
        let mut s = StaticOracle::default();
        s.per_function.insert(0, Levels([3, 3]));
        assert_eq!(s.estimate(&a, false), Levels([3, 3]));
        assert!(!s.preempts() && !Unmanaged.preempts());
    }
}
