//! Dynamic parallelism: device-side launches (issue #31; digest §1 DTBL, §3 SPAWN,
//! §8.1-8.3, §8.6). One module per concept:
//! - [`cost`]: per-warp launch latency `A·x + b` (DTBL Table 3, SPAWN's
//!   `1721·x + 20210`), KMU dispatch latency, pending-launch footprint;
//! - [`pool`]: the pending-kernel pool behind the HWQs (depth limit, capacity,
//!   per-child versus per-parent-TB streams, parent record);
//! - [`dtbl`]: DTBL's aggregated group table, NAGEI/LAGEI and FCFS controller;
//! - [`spawn`]: the `LaunchDecision` hook (always, Baseline-DP threshold, SPAWN)
//!   with SPAWN's CCQS monitor, and Offline-Search;
//! - [`call`]: a warp's launch call from the SM, and the run's statistics;
//! - [`series`]: concurrent kernels and parent / child TBs over time;
//! - [`spill`]: DTBL's overflowed AGT entries read through the memory model;
//! - [`release`]: `sync_children = "block_release"`, a waiting parent TB's
//!   context saved and its SM resources released until its children completed;
//! - [`unit`]: the device-launch unit's state, driven by the front end.
//!
//! [`DpMode`] names how a run treats launch sites (`weft gpusim --dp`).

pub mod call;
pub mod cost;
pub mod dtbl;
pub mod pool;
pub mod release;
pub mod series;
pub mod spawn;
pub mod spill;
pub mod unit;

pub use call::{DpStats, LaneLaunch, LaunchCall};
pub use cost::{LaunchCostModel, WarpLaunchCost};
pub use dtbl::{Dtbl, DtblCounters, DtblTb, KernelShape};
pub use pool::{DeviceStream, LaunchPriority, ParentInfo, PendingLaunch, PendingPool, Refusal};
pub use series::{ConcurrencyPoint, ConcurrencySeries};
pub use spawn::{
    AlwaysLaunch, ChildStats, Decision, LaunchDecision, LaunchRequest, Spawn, SpawnReading,
    Threshold,
};
pub use unit::DpUnit;

/// How device launch sites run (the versions of one workload template).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DpMode {
    /// Every site runs its inline `else` path (the flat version).
    Flat,
    /// Child kernels through CDP (`ideal`: launch latency not modelled, CDPI).
    Cdp {
        /// No launch latency.
        ideal: bool,
    },
    /// Aggregated groups through DTBL (`ideal`: DTBLI).
    Dtbl {
        /// No launch latency.
        ideal: bool,
    },
    /// CDP with Baseline-DP's static threshold on the site's `workload`.
    Threshold(u64),
    /// CDP with SPAWN's launch controller, with its reading of the inputs §2.4
    /// leaves open (`spawn`: the default; `spawn-q`, `spawn-req-clamp`, ...:
    /// [`SpawnReading`]).
    Spawn(SpawnReading),
}

impl DpMode {
    /// Parses `flat`, `cdp`, `cdpi`, `dtbl`, `dtbli`, `spawn` with optional
    /// reading flags (`spawn-q`, `spawn-req`, `spawn-clamp`, `spawn-push`,
    /// combined in that order, e.g. `spawn-req-clamp`) or `threshold=<n>`.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "flat" => Self::Flat,
            "cdp" => Self::Cdp { ideal: false },
            "cdpi" => Self::Cdp { ideal: true },
            "dtbl" => Self::Dtbl { ideal: false },
            "dtbli" => Self::Dtbl { ideal: true },
            _ => match s.strip_prefix("spawn") {
                Some(rest) => Self::Spawn(SpawnReading::parse(rest)?),
                None => Self::Threshold(s.strip_prefix("threshold=")?.parse().ok()?),
            },
        })
    }

    /// The name `parse` reads.
    pub fn name(&self) -> String {
        match self {
            Self::Flat => "flat".into(),
            Self::Cdp { ideal: false } => "cdp".into(),
            Self::Cdp { ideal: true } => "cdpi".into(),
            Self::Dtbl { ideal: false } => "dtbl".into(),
            Self::Dtbl { ideal: true } => "dtbli".into(),
            Self::Threshold(n) => format!("threshold={n}"),
            Self::Spawn(r) => format!("spawn{}", r.flags()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dp_mode_names_round_trip() {
        for s in [
            "flat",
            "cdp",
            "cdpi",
            "dtbl",
            "dtbli",
            "spawn",
            "spawn-q",
            "spawn-req",
            "spawn-clamp",
            "spawn-req-clamp",
            "spawn-push",
            "threshold=128",
        ] {
            assert_eq!(DpMode::parse(s).unwrap().name(), s);
        }
        assert_eq!(DpMode::parse("threshold=x"), None);
        assert_eq!(DpMode::parse("laperm"), None);
        assert_eq!(DpMode::parse("spawn-x"), None);
        assert_eq!(
            DpMode::parse("spawn-q"),
            Some(DpMode::Spawn(SpawnReading {
                empty_queue_only: true,
                ..SpawnReading::default()
            }))
        );
    }
}
