//! Warp-scheduling meta-policies and the locality statistics they are judged by
//! (issue #32 part 3; digest §5): iPAWS ([`ipaws`]) with its issue-pattern
//! classifier ([`classifier`]), the CCWS and MASCAR baselines ([`ccws`],
//! [`mascar`]) and the CCWS-style L1 access breakdown ([`locality`]); per-kernel
//! scheduling on a shared SM for iPAWS's sCKE and the static GTO-RR oracle
//! ([`perkernel`], digest §5.1-5.2); and OWL-locality's CTA-aware scheduler
//! ([`owl`], a LASER baseline, digest §4.4); LASER's two-level wavefront groups
//! ([`groups`], digest §4.2-4.3).
//!
//! They plug into the engine behind [`WarpScheduler`](super::sched::WarpScheduler)
//! like LRR, GTO and two-level; what they share between the schedulers of an SM
//! and between SMs lives in a [`WarpSchedCtx`] the engine creates once per GPU.

pub mod ccws;
pub mod classifier;
pub mod groups;
pub mod ipaws;
pub mod locality;
pub mod mascar;
pub mod owl;
pub mod perkernel;

use super::config::WarpSchedKind;
use super::sched::WarpScheduler;
use serde::Serialize;

/// What a warp scheduler sees of its SM's L1 (CCWS's victim tag arrays): every new
/// read miss and every eviction, with the global warp id of the reader / the
/// line's last owner.
pub trait L1Probe {
    /// A read of `line` by `warp` missed (a new MSHR).
    fn on_miss(&mut self, line: u64, warp: u32);
    /// `line`, last touched by `warp`, was evicted.
    fn on_evict(&mut self, line: u64, warp: u32);
}

/// The warp schedulers of one SM and the probe of its L1, if they need one.
pub type SmSchedulers = (Vec<Box<dyn WarpScheduler>>, Option<Box<dyn L1Probe>>);

/// GPU-wide state of the meta-policies (one per simulated GPU).
#[derive(Clone, Debug, Default)]
pub struct WarpSchedCtx {
    ipaws: ipaws::IpawsShared,
    groups: groups::WarpGroups,
    mascar: mascar::MascarShared,
}

/// Per kernel: what iPAWS chose and how long it took.
#[derive(Clone, Debug, Serialize)]
pub struct KernelChoice {
    /// Kernel instance.
    pub kernel: u32,
    /// Scheduler of the Execute phase on most SMs (`gto`, `lrr`; `adapt` or
    /// `recover` when the kernel ended before).
    pub choice: String,
    /// The SM whose classification decided (the first to finish Adapt).
    pub decided_by: Option<u32>,
    /// That SM's warps-of-interest and warps.
    pub woi: usize,
    /// Warps of the kernel on that SM at the end of its Adapt phase.
    pub warps: usize,
    /// Its degree of convexity.
    pub doc: f64,
    /// Share of the kernel's SM-cycles (first warp start to last warp end, summed
    /// over SMs) spent in Adapt.
    pub adapt_share: f64,
    /// The same for Recover.
    pub recover_share: f64,
}

/// What an iPAWS run decided.
#[derive(Clone, Debug, Serialize)]
pub struct IpawsReport {
    /// Per kernel.
    pub kernels: Vec<KernelChoice>,
    /// Per SM and kernel, with the issue curves.
    pub records: Vec<ipaws::KernelRecord>,
}

impl WarpSchedCtx {
    /// The wavefront groups the TB policy files and `laser-groups` reads.
    pub fn warp_groups(&self) -> groups::WarpGroups {
        self.groups.clone()
    }

    /// How iPAWS's stall counters count (set before the run; default greedy).
    pub fn set_stall_counting(&self, c: ipaws::StallCounting) {
        self.ipaws.set_stall_counting(c);
    }

    /// MASCAR's scheduler counters (`None` unless a MASCAR scheduler ran; the
    /// engine adds the re-executed hits, `GpuSim::mascar_report`).
    pub fn mascar_stats(&self) -> Option<mascar::MascarStats> {
        self.mascar.stats()
    }

    /// The iPAWS report (`None` unless an iPAWS scheduler ran).
    pub fn ipaws_report(&self) -> Option<IpawsReport> {
        let records = self.ipaws.records();
        if records.is_empty() {
            return None;
        }
        let mut ids: Vec<u32> = records.iter().map(|r| r.kernel).collect();
        ids.sort_unstable();
        ids.dedup();
        let kernels = ids
            .into_iter()
            .map(|k| {
                let rs: Vec<&ipaws::KernelRecord> =
                    records.iter().filter(|r| r.kernel == k).collect();
                let mut votes = std::collections::BTreeMap::new();
                for r in &rs {
                    let p = serde_json::to_value(r.phase)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    *votes.entry(p).or_insert(0u32) += 1;
                }
                let choice = votes
                    .iter()
                    .max_by_key(|(_, n)| **n)
                    .map(|(p, _)| p.clone())
                    .unwrap_or_default();
                let decided_by = rs.iter().find_map(|r| r.decided_by);
                let own = decided_by
                    .and_then(|sm| rs.iter().find(|r| r.sm == sm))
                    .and_then(|r| r.verdict);
                let span: u64 = rs.iter().map(|r| r.end.saturating_sub(r.start)).sum();
                let adapt: u64 = rs
                    .iter()
                    .map(|r| r.adapt_end.unwrap_or(r.start).saturating_sub(r.start))
                    .sum();
                let recover: u64 = rs
                    .iter()
                    .filter_map(|r| Some(r.recover_end?.saturating_sub(r.adapt_end?)))
                    .sum();
                let share = |x: u64| x as f64 / span.max(1) as f64;
                KernelChoice {
                    kernel: k,
                    choice,
                    decided_by,
                    woi: own.map_or(0, |v| v.woi),
                    warps: own.map_or(0, |v| v.warps),
                    doc: own.map_or(0.0, |v| v.doc),
                    adapt_share: share(adapt),
                    recover_share: share(recover),
                }
            })
            .collect();
        Some(IpawsReport { kernels, records })
    }
}

/// The `n` schedulers of SM `sm` for a meta-policy `k`, and their L1 probe.
pub fn schedulers(k: WarpSchedKind, sm: u32, n: u32, ctx: &WarpSchedCtx) -> SmSchedulers {
    let gtos = || {
        (0..n)
            .map(|_| Box::new(super::sched::Gto::default()) as Box<dyn WarpScheduler>)
            .collect()
    };
    match k {
        WarpSchedKind::Ipaws | WarpSchedKind::IpawsInd => (
            ipaws::schedulers(&ctx.ipaws, sm, k == WarpSchedKind::IpawsInd, gtos()),
            None,
        ),
        WarpSchedKind::IpawsScke => (ipaws::scke_schedulers(&ctx.ipaws, sm, n), None),
        WarpSchedKind::GtoLrr
        | WarpSchedKind::LrrGto
        | WarpSchedKind::GtoGto
        | WarpSchedKind::LrrLrr => {
            use perkernel::Rule::{Gto, Lrr};
            let rules = match k {
                WarpSchedKind::GtoLrr => [Gto, Lrr],
                WarpSchedKind::LrrGto => [Lrr, Gto],
                WarpSchedKind::GtoGto => [Gto, Gto],
                _ => [Lrr, Lrr],
            };
            (
                (0..n)
                    .map(|_| {
                        Box::new(perkernel::PerKernel::new(sm, rules)) as Box<dyn WarpScheduler>
                    })
                    .collect(),
                None,
            )
        }
        WarpSchedKind::Ccws => {
            let (s, p) = ccws::schedulers(n);
            (s, Some(p))
        }
        WarpSchedKind::IpawsCcws => {
            let (s, p) = ccws::schedulers(n);
            (ipaws::schedulers(&ctx.ipaws, sm, false, s), Some(p))
        }
        WarpSchedKind::Mascar => (mascar::schedulers(&ctx.mascar, n), None),
        WarpSchedKind::IpawsMascar => (
            ipaws::schedulers(&ctx.ipaws, sm, false, mascar::schedulers(&ctx.mascar, n)),
            None,
        ),
        WarpSchedKind::LaserGroups => (
            (0..n)
                .map(|_| {
                    Box::new(groups::Groups::new(ctx.groups.clone())) as Box<dyn WarpScheduler>
                })
                .collect(),
            None,
        ),
        WarpSchedKind::Lrr | WarpSchedKind::Gto | WarpSchedKind::TwoLevel | WarpSchedKind::Owl => {
            unreachable!("basic policies are built by sched::warp_scheduler")
        }
    }
}
