//! Parameters of the memory side (Table 4.2 / Table 5.2 machines, built by
//! [`crate::machine`]) and the memory-side oracles of [`crate::oracle`].

use super::ClockRatio;
use crate::cache::CacheGeometry;
use crate::noc::{Mesh, NocParams, NodeId};
use crate::prefetch::PrefetchParams;
use serde::Serialize;

/// Simulator-side oracle applied on the memory side (see `crate::oracle`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemOracle {
    /// Send each LLC miss to the memory bank with the fewest outstanding requests.
    pub spread_memory_banks: bool,
    /// Serve each L1 miss's timing at the least-busy LLC bank.
    pub spread_llc_banks: bool,
    /// Granularity of the memory-bank spreading (`crate::oracle::PageSpreader`).
    pub spread_page_bytes: u64,
}

/// Parameters of the memory side.
#[derive(Clone, Debug)]
pub struct SystemParams {
    /// Number of requesters.
    pub requesters: u32,
    /// Mesh node of each requester.
    pub requester_nodes: Vec<NodeId>,
    /// The mesh.
    pub mesh: Mesh,
    /// NoC timing.
    pub noc: NocParams,
    /// Geometry of one LLC bank.
    pub llc_bank: CacheGeometry,
    /// Mesh node of each LLC bank.
    pub llc_nodes: Vec<NodeId>,
    /// LLC bank access latency (core cycles).
    pub llc_latency: u64,
    /// Cycles between two accesses starting at one bank port.
    pub llc_port_cycles: u64,
    /// MSHRs per LLC bank.
    pub llc_mshrs: u32,
    /// Mesh node of each memory controller, by channel.
    pub mc_nodes: Vec<NodeId>,
    /// Stream prefetcher, if on.
    pub prefetch: Option<PrefetchParams>,
    /// Directory coherence on/off.
    pub coherence: bool,
    /// Outstanding requests a requester may have (back-pressure).
    pub max_outstanding: u32,
    /// Core/DRAM clock ratio.
    pub clocks: ClockRatio,
    /// Statistics epoch and §5.4 window, core cycles.
    pub epoch: u64,
    /// Memory-side oracle.
    pub oracle: MemOracle,
}
