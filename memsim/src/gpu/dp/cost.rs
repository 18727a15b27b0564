//! Launch latency of device-side launches, charged per warp (DTBL Table 3, SPAWN
//! Table 2.2; digest §1.1 "Launch latency model", §3.3, §8.6 item 2).
//!
//! Every API is linear in the lanes `x` of the calling warp that launch in the
//! same instruction: `A·x + b`. The lanes' calls are one aggregated command, so the
//! whole cost is charged to the warp once; it overlaps with other warps like memory
//! latency. A CDP launch pays stream creation (when it needs a new stream), the
//! parameter buffer and `cudaLaunchDevice`, then the KMU dispatch latency before the
//! kernel distributor sees the child. A DTBL aggregated group pays the slower of the
//! parameter buffer and the kernel-distributor search plus the AGT hash (they run in
//! parallel), and no KMU latency when it coalesces. SPAWN's form `1721·x + 20210` is
//! the same parameter buffer plus `cudaLaunchDevice`, without stream creation: the
//! `k20-spawn` preset sets `stream_create = 0`. The "ideal" variants (CDPI, DTBLI)
//! charge nothing.

use crate::gpu::config::DeviceLaunchConfig;

/// Cycles one warp's device launch costs, split where the engine needs the parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WarpLaunchCost {
    /// Cycles the calling warp is stalled in the API.
    pub api: u64,
    /// Further cycles before the child is visible to the kernel distributor (KMU
    /// dispatch); 0 for an aggregated group that coalesced.
    pub kmu: u64,
}

impl WarpLaunchCost {
    /// API stall plus KMU dispatch: launch call to child visible.
    pub fn total(&self) -> u64 {
        self.api + self.kmu
    }
}

/// The launch latency model of a machine.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchCostModel {
    cfg: DeviceLaunchConfig,
    ideal: bool,
}

impl LaunchCostModel {
    /// The model of a `[gpu.device_launch]` table.
    pub fn new(cfg: &DeviceLaunchConfig) -> Self {
        LaunchCostModel {
            cfg: cfg.clone(),
            ideal: false,
        }
    }

    /// The same machine with launch latency not modelled (CDPI / DTBLI, DTBL §5).
    pub fn ideal(cfg: &DeviceLaunchConfig) -> Self {
        LaunchCostModel {
            cfg: cfg.clone(),
            ideal: true,
        }
    }

    /// Whether launch latency is ignored.
    pub fn is_ideal(&self) -> bool {
        self.ideal
    }

    /// A CDP launch by `x` lanes of one warp; `new_stream` when the launch creates
    /// its stream (a unique stream per child, or the first launch of a parent TB on
    /// a per-TB stream).
    pub fn cdp(&self, x: u64, new_stream: bool) -> WarpLaunchCost {
        if self.ideal || x == 0 {
            return WarpLaunchCost::default();
        }
        let c = &self.cfg;
        let stream = if new_stream { c.stream_create } else { 0 };
        WarpLaunchCost {
            api: stream + c.param_buffer.at(x) + c.launch_device.at(x),
            kmu: c.kmu_latency,
        }
    }

    /// A DTBL aggregated-group launch by `x` lanes of one warp with `searched`
    /// kernel-distributor entries examined; it coalesced into an eligible kernel.
    /// A group that finds no eligible kernel falls back to [`Self::cdp`].
    pub fn dtbl(&self, x: u64, searched: u64) -> WarpLaunchCost {
        if self.ideal || x == 0 {
            return WarpLaunchCost::default();
        }
        let c = &self.cfg;
        let search = searched * c.kde_search_per_entry + x * c.agt_hash;
        WarpLaunchCost {
            api: c.param_buffer.at(x).max(search),
            kmu: 0,
        }
    }

    /// SPAWN's `t_overhead` for a warp with `x` launching lanes: the parameter
    /// buffer plus `cudaLaunchDevice` (`1721·x + 20210` with Table 3's terms;
    /// digest §3.1 "Gaps to fill").
    pub fn spawn_overhead(&self, x: u64) -> u64 {
        if self.ideal || x == 0 {
            return 0;
        }
        self.cfg.param_buffer.at(x) + self.cfg.launch_device.at(x)
    }

    /// Global memory a pending device kernel with `args` arguments reserves:
    /// its parameter buffer plus the runtime's launch record.
    pub fn kernel_footprint(&self, args: usize) -> u64 {
        args as u64 * self.cfg.param_bytes_per_arg + self.cfg.kernel_record_bytes
    }

    /// Global memory a pending aggregated group reserves: its parameter buffer plus
    /// its table entry when the entry overflowed the on-chip AGT.
    pub fn group_footprint(&self, args: usize, overflowed: bool) -> u64 {
        let entry = if overflowed {
            self.cfg.agt_entry_bytes
        } else {
            0
        };
        args as u64 * self.cfg.param_bytes_per_arg + entry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn_cfg() -> DeviceLaunchConfig {
        DeviceLaunchConfig {
            stream_create: 0,
            ..DeviceLaunchConfig::default()
        }
    }

    #[test]
    fn cdp_full_warp_is_82447_plus_kmu_283() {
        let m = LaunchCostModel::new(&DeviceLaunchConfig::default());
        let c = m.cdp(32, true);
        assert_eq!(c.api, 82_447);
        assert_eq!(c.kmu, 283);
        assert_eq!(c.total(), 82_447 + 283);
        // One lane: 7165 + (8023 + 129) + (12187 + 1592).
        assert_eq!(m.cdp(1, true).api, 29_096);
        // A per-TB stream that exists already skips stream creation.
        assert_eq!(m.cdp(32, false).api, 82_447 - 7165);
    }

    #[test]
    fn dtbl_full_warp_is_12151() {
        let m = LaunchCostModel::new(&DeviceLaunchConfig::default());
        let c = m.dtbl(32, 32);
        assert_eq!(c.api, 12_151);
        assert_eq!(c.kmu, 0);
        // The search (32 entries + 32 hashes = 64 cycles) hides under the buffer.
        assert_eq!(m.dtbl(1, 32).api, 8023 + 129);
    }

    #[test]
    fn dtbl_search_dominates_when_slower() {
        let cfg = DeviceLaunchConfig {
            param_buffer: crate::gpu::config::LinearCost { a: 0, b: 10 },
            ..DeviceLaunchConfig::default()
        };
        let m = LaunchCostModel::new(&cfg);
        assert_eq!(m.dtbl(4, 20).api, 24);
        assert_eq!(m.dtbl(1, 3).api, 10);
    }

    #[test]
    fn spawn_single_launch_21931_full_warp_75282() {
        let m = LaunchCostModel::new(&spawn_cfg());
        assert_eq!(m.spawn_overhead(1), 21_931);
        assert_eq!(m.spawn_overhead(32), 75_282);
        // Under the SPAWN preset a CDP launch pays the same API cost.
        assert_eq!(m.cdp(32, true).api, 75_282);
        assert_eq!(m.cdp(1, true).api, 21_931);
    }

    #[test]
    fn ideal_and_empty_launches_cost_nothing() {
        let cfg = DeviceLaunchConfig::default();
        let i = LaunchCostModel::ideal(&cfg);
        assert_eq!(i.cdp(32, true).total(), 0);
        assert_eq!(i.dtbl(32, 32).total(), 0);
        assert_eq!(i.spawn_overhead(5), 0);
        let m = LaunchCostModel::new(&cfg);
        assert_eq!(m.cdp(0, true).total(), 0);
        assert_eq!(m.dtbl(0, 3).total(), 0);
    }

    #[test]
    fn footprints() {
        let m = LaunchCostModel::new(&DeviceLaunchConfig::default());
        assert_eq!(m.kernel_footprint(3), 3 * 8 + 64);
        assert_eq!(m.group_footprint(3, false), 24);
        assert_eq!(m.group_footprint(3, true), 44);
    }
}
