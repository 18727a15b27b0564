//! On-chip network: a 2-D mesh with X-Y (dimension-ordered) routing (the CPU
//! default), or a crossbar ([`crossbar`], the GPU's SM <-> memory-partition
//! interconnect) behind the [`Topology`] trait.
//!
//! Models the NoC of the dissertation's manycore template (§5.2, Fig. 5.1; Table 5.2:
//! 6x6 mesh, X-Y routing, 3-cycle routers, NoC at the core clock). [`mesh`] holds the
//! topology and the routing function; [`network`] the timing model (router pipeline,
//! link latency, one flit per link per cycle, multi-flit packets) and its statistics.

pub mod crossbar;
pub mod mesh;
pub mod network;

pub use crossbar::{Crossbar, Topology};
pub use mesh::{Dir, Mesh, NodeId};
pub use network::{Network, NocParams, NocStats, PacketClass};
