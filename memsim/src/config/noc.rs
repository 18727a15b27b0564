//! The on-chip mesh network of the machine (Table 5.2: 3-cycle routers, X-Y routing).

use serde::{Deserialize, Serialize};

use super::{invalid, ConfigError};

/// Routing algorithm of the mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Routing {
    /// Dimension-ordered: X first, then Y.
    #[default]
    Xy,
}

/// The on-chip 2-D mesh network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NocConfig {
    /// Mesh columns (X). Default 6.
    pub cols: u32,
    /// Mesh rows (Y). Default 6.
    pub rows: u32,
    /// Network clock in MHz. Default 1000 (Table 5.2).
    pub freq_mhz: u32,
    /// Router pipeline latency per hop, network cycles. Default 3 (Table 5.2).
    pub router_latency: u32,
    /// Link traversal latency per hop, network cycles. Default 1 (assumed).
    pub link_latency: u32,
    /// Flit width in bytes. Default 16 (assumed).
    pub flit_bytes: u32,
    /// Flits of a control packet (read request, write ack). Default 1.
    pub control_flits: u32,
    /// Flits of a data packet (one LLC line plus header). Default 9 (128 B / 16 B + 1).
    pub data_flits: u32,
    /// Routing algorithm. Default `xy`.
    pub routing: Routing,
    /// Mesh positions `[x, y]` of the memory controllers, one per DRAM channel,
    /// in channel order. Default: the four corners `[0,0] [5,0] [0,5] [5,5]`
    /// (placement not given in Table 5.2; assumed).
    pub mc_nodes: Vec<[u32; 2]>,
    /// Mesh positions `[x, y]` of the LLC banks in bank order; empty means one
    /// bank per tile in row-major order (requires `llc.banks == cols × rows`).
    /// Default empty.
    pub llc_nodes: Vec<[u32; 2]>,
}

impl Default for NocConfig {
    fn default() -> Self {
        NocConfig {
            cols: 6,
            rows: 6,
            freq_mhz: 1000,
            router_latency: 3,
            link_latency: 1,
            flit_bytes: 16,
            control_flits: 1,
            data_flits: 9,
            routing: Routing::Xy,
            mc_nodes: vec![[0, 0], [5, 0], [0, 5], [5, 5]],
            llc_nodes: Vec::new(),
        }
    }
}

impl NocConfig {
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        for (n, v) in [
            ("noc.cols", self.cols),
            ("noc.rows", self.rows),
            ("noc.freq_mhz", self.freq_mhz),
            ("noc.flit_bytes", self.flit_bytes),
            ("noc.control_flits", self.control_flits),
            ("noc.data_flits", self.data_flits),
        ] {
            if v == 0 {
                return Err(invalid(n, "must be positive"));
            }
        }
        for (what, list) in [
            ("noc.mc_nodes", &self.mc_nodes),
            ("noc.llc_nodes", &self.llc_nodes),
        ] {
            for p in list {
                if p[0] >= self.cols || p[1] >= self.rows {
                    return Err(invalid(
                        what,
                        format!(
                            "position [{}, {}] is outside the {}x{} mesh",
                            p[0], p[1], self.cols, self.rows
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Hops between two mesh positions under X-Y routing.
    pub fn hops(&self, a: [u32; 2], b: [u32; 2]) -> u32 {
        a[0].abs_diff(b[0]) + a[1].abs_diff(b[1])
    }
}
