//! Builds the manycore model's parameters from a [`MachineConfig`].
//!
//! Placement: core `i` and its private caches sit at mesh node `i` (row-major), LLC
//! bank `b` at `config.llc_node(b)`, the memory controller of channel `c` at
//! `noc.mc_nodes[c]`. The NoC runs at the core clock (a different `noc.freq_mhz` is
//! rejected as unsupported rather than silently rescaled). DRAM runs in its own clock
//! domain, converted exactly ([`ClockRatio`]).

use crate::cache::CacheGeometry;
use crate::config::{MachineConfig, PrefetcherKind};
use crate::core::{CoreParams, PrivateL2};
use crate::manycore::SimError;
use crate::noc::{Mesh, NocParams};
use crate::oracle::Oracle;
use crate::prefetch::PrefetchParams;
use crate::system::{ClockRatio, SystemParams};

/// Core and memory-side parameters for `cfg` under `oracle`.
pub fn params(cfg: &MachineConfig, oracle: Oracle) -> Result<(CoreParams, SystemParams), SimError> {
    let unsupported = |m: String| SimError::Unsupported(m);
    cfg.validate().map_err(|e| unsupported(e.to_string()))?;
    if cfg.noc.freq_mhz != cfg.core.freq_mhz {
        return Err(unsupported(format!(
            "noc.freq_mhz = {} differs from core.freq_mhz = {}; the NoC must run at the core clock",
            cfg.noc.freq_mhz, cfg.core.freq_mhz
        )));
    }
    let mesh = Mesh::new(cfg.noc.cols, cfg.noc.rows);
    if cfg.core.count > mesh.nodes() {
        return Err(unsupported(format!(
            "{} cores do not fit a {}x{} mesh (one core per node)",
            cfg.core.count, cfg.noc.cols, cfg.noc.rows
        )));
    }
    if cfg.noc.mc_nodes.len() < cfg.dram.channels as usize {
        return Err(unsupported(format!(
            "noc.mc_nodes lists {} positions for {} channels",
            cfg.noc.mc_nodes.len(),
            cfg.dram.channels
        )));
    }
    let node = |p: [u32; 2]| mesh.node_at(p[0], p[1]);
    let geom = |size_bytes: u64, ways: u32, line_bytes: u32| CacheGeometry {
        size_bytes,
        ways,
        line_bytes,
    };
    let cp = CoreParams {
        width: cfg.core.issue_width,
        rob: cfg.core.rob_entries,
        l1: geom(cfg.l1.size_bytes, cfg.l1.ways, cfg.l1.line_bytes),
        l1_latency: cfg.l1.hit_latency as u64,
        l1_mshrs: cfg.l1.mshrs,
        mshr_targets: cfg.l1.mshr_targets,
        write_buffer: cfg.core.write_buffer_entries,
        l2: cfg.l2.as_ref().map(|l2| PrivateL2 {
            geom: geom(l2.size_bytes, l2.ways, l2.line_bytes),
            latency: l2.hit_latency as u64,
        }),
        coherence: cfg.llc.directory,
        lookahead: oracle.lookahead(cfg.core.rob_entries),
    };
    let prefetch = match cfg.prefetcher.kind {
        PrefetcherKind::None => None,
        k => Some(PrefetchParams {
            streams: cfg.prefetcher.streams,
            degree: cfg.prefetcher.degree,
            distance: cfg.prefetcher.distance,
            train_window: 16,
            stride: k == PrefetcherKind::Stride,
            page_lines: match cfg.prefetcher.page_bytes {
                0 => 0,
                b => (b / cfg.llc.line_bytes.max(1)).max(1) as u64,
            },
            mshrs: cfg.l2.as_ref().map_or(0, |l2| l2.mshrs),
        }),
    };
    let sp = SystemParams {
        requesters: cfg.core.count,
        requester_nodes: (0..cfg.core.count).collect(),
        mesh: mesh.clone(),
        noc: NocParams {
            router_cycles: cfg.noc.router_latency as u64,
            link_cycles: cfg.noc.link_latency as u64,
            request_flits: cfg.noc.control_flits as u64,
            data_flits: cfg.noc.data_flits as u64,
        },
        llc_bank: geom(
            cfg.llc.size_bytes / cfg.llc.banks as u64,
            cfg.llc.ways,
            cfg.llc.line_bytes,
        ),
        llc_nodes: (0..cfg.llc.banks).map(|b| node(cfg.llc_node(b))).collect(),
        llc_latency: cfg.llc.hit_latency as u64,
        llc_port_cycles: cfg.llc.port_cycles as u64,
        llc_mshrs: cfg.llc.mshrs,
        mc_nodes: cfg.noc.mc_nodes.iter().map(|&p| node(p)).collect(),
        prefetch,
        coherence: cfg.llc.directory,
        // A private L2's MSHRs bound the core's outstanding misses below it.
        max_outstanding: cfg
            .l2
            .as_ref()
            .map_or(cfg.l1.mshrs.saturating_mul(2), |l2| l2.mshrs)
            .max(1),
        clocks: ClockRatio::new(cfg.core.freq_mhz, cfg.dram.tck_ns),
        epoch: cfg.epoch_cycles,
        oracle: oracle.memory_side(cfg.dram.row_bytes as u64),
    };
    Ok((cp, sp))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The faithful presets' miss-handling limits as the simulator sees them:
    /// 4 KiB pages are 64 lines of 64 B (`table4.2`) and 32 of 128 B
    /// (`table5.2`); the private L2's 16 MSHRs bound its demand misses and its
    /// prefetches; gem5's 20 targets per L1 MSHR.
    #[test]
    fn presets_give_real_mshr_limits_and_page_bounded_prefetch() {
        let c42 = MachineConfig::preset("table4.2").unwrap();
        let (cp, sp) = params(&c42, Oracle::None).unwrap();
        assert_eq!((cp.l1_mshrs, cp.mshr_targets), (10, 20));
        assert_eq!(sp.max_outstanding, 16);
        let pf = sp.prefetch.unwrap();
        assert_eq!((pf.page_lines, pf.mshrs, pf.stride), (64, 16, true));
        let c52 = MachineConfig::preset("table5.2").unwrap();
        let (cp, sp) = params(&c52, Oracle::None).unwrap();
        assert_eq!((cp.l1_mshrs, cp.mshr_targets), (16, 20));
        assert_eq!(sp.max_outstanding, 32);
        let pf = sp.prefetch.unwrap();
        assert_eq!((pf.page_lines, pf.mshrs, pf.stride), (32, 0, false));
    }
}
