//! NoC timing: router pipeline, link latency and per-link contention.
//!
//! A packet of `F` flits sent at cycle `t` from `a` to `b` follows the X-Y route. At
//! each hop it spends `router_cycles` in the router pipeline, then waits until the
//! outgoing link is free, holds the link for `F` cycles (one flit per link per cycle)
//! and reaches the next router `link_cycles` after its head flit entered the link.
//! The packet is delivered when its tail flit arrives: `F - 1` cycles after the head.
//! With no contention the latency is `hops * (router + link) + (F - 1)`; a packet
//! whose source and destination are the same node bypasses the network (latency 0).
//!
//! Simplification (documented in the crate docs): a packet reserves the links of its
//! whole path when it is injected (wormhole-like, links granted in injection order).
//! A packet injected later never takes a link slot that an earlier packet reserved,
//! even if it could have passed before that packet's head arrived; this can slightly
//! over-estimate contention but keeps the model event-free (no per-hop events).
//! Dissertation §5.2 (Fig. 5.1 flow of an access), Table 5.2 (router overhead 3 cycles,
//! NoC at 1 GHz, X-Y routing).

use super::crossbar::{Crossbar, Topology};
use super::mesh::{Dir, Mesh, NodeId};
use serde::Serialize;

/// Timing parameters of the network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NocParams {
    /// Router pipeline latency per hop, in core cycles.
    pub router_cycles: u64,
    /// Link traversal latency per hop, in core cycles.
    pub link_cycles: u64,
    /// Flits of a request / control packet.
    pub request_flits: u64,
    /// Flits of a packet carrying a cache line.
    pub data_flits: u64,
}

/// Kind of packet, which decides its flit count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketClass {
    /// Request, invalidation, acknowledgement: `request_flits`.
    Control,
    /// Carries a cache line: `data_flits`.
    Data,
}

/// Network statistics.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct NocStats {
    /// Packets that crossed at least one link.
    pub packets: u64,
    /// Packets delivered locally (source = destination).
    pub local_packets: u64,
    /// Mean latency of network packets, cycles (local packets excluded).
    pub avg_latency: f64,
    /// Maximum latency of a packet, cycles.
    pub max_latency: u64,
    /// Mean hops per network packet.
    pub avg_hops: f64,
    /// Mean of (busy cycles / run cycles) over the physical links.
    pub avg_link_utilization: f64,
    /// Highest (busy cycles / run cycles) of any link.
    pub max_link_utilization: f64,
}

/// The mesh network state: when each link is next free, and counters.
#[derive(Clone, Debug)]
pub struct Network {
    mesh: Mesh,
    p: NocParams,
    link_free: Vec<u64>,
    link_busy: Vec<u64>,
    packets: u64,
    local: u64,
    lat_sum: u64,
    lat_max: u64,
    hop_sum: u64,
    /// The crossbar replacing the mesh, if any (GPU machines).
    xbar: Option<Crossbar>,
}

impl Network {
    /// A crossbar network (the mesh is unused) with parameters `p`.
    pub fn crossbar(xbar: Crossbar, p: NocParams) -> Self {
        let mut n = Network::new(Mesh::new(1, 1), p);
        n.xbar = Some(xbar);
        n
    }

    /// A network over `mesh` with parameters `p`.
    pub fn new(mesh: Mesh, p: NocParams) -> Self {
        let n = mesh.link_slots();
        Network {
            mesh,
            p,
            link_free: vec![0; n],
            link_busy: vec![0; n],
            packets: 0,
            local: 0,
            lat_sum: 0,
            lat_max: 0,
            hop_sum: 0,
            xbar: None,
        }
    }

    /// The topology.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// The timing parameters.
    pub fn params(&self) -> &NocParams {
        &self.p
    }

    /// Latency of a packet of `class` over `hops` hops without contention.
    pub fn zero_load_latency(&self, hops: u32, class: PacketClass) -> u64 {
        if hops == 0 {
            return 0;
        }
        let f = self.flits(class);
        hops as u64 * (self.p.router_cycles + self.p.link_cycles) + f - 1
    }

    fn flits(&self, class: PacketClass) -> u64 {
        match class {
            PacketClass::Control => self.p.request_flits.max(1),
            PacketClass::Data => self.p.data_flits.max(1),
        }
    }

    /// Sends a packet at cycle `t`; returns the cycle its tail flit arrives at `b`.
    #[inline]
    pub fn send(&mut self, t: u64, a: NodeId, b: NodeId, class: PacketClass) -> u64 {
        if a == b {
            self.local += 1;
            return t;
        }
        let f = self.flits(class);
        if let Some(x) = &mut self.xbar {
            let (arrive, crossed) = x.send(t, a, b, f);
            if crossed {
                let lat = arrive - t;
                self.packets += 1;
                self.lat_sum += lat;
                self.hop_sum += 1;
                self.lat_max = self.lat_max.max(lat);
            } else {
                self.local += 1;
            }
            return arrive;
        }
        let (router, link) = (self.p.router_cycles, self.p.link_cycles);
        let mut cur = t;
        let link_free = &mut self.link_free;
        let link_busy = &mut self.link_busy;
        let mut hop = |l: usize| {
            cur += router;
            let start = cur.max(link_free[l]);
            link_free[l] = start + f;
            link_busy[l] += f;
            cur = start + link;
        };
        // The X-Y route as two runs of links with a constant index stride (the
        // links of `Mesh::for_each_link`, in the same order): along the row, node
        // `n` to `n ± 1`, then along the column, `n` to `n ± width`.
        let (ax, ay) = self.mesh.coords(a);
        let (bx, by) = self.mesh.coords(b);
        let w = self.mesh.width() as usize;
        let row = ay as usize * w;
        if bx > ax {
            for x in ax as usize..bx as usize {
                hop((row + x) * 4 + Dir::East as usize);
            }
        } else {
            for x in (bx as usize + 1..=ax as usize).rev() {
                hop((row + x) * 4 + Dir::West as usize);
            }
        }
        let col = bx as usize;
        if by > ay {
            for y in ay as usize..by as usize {
                hop((y * w + col) * 4 + Dir::South as usize);
            }
        } else {
            for y in (by as usize + 1..=ay as usize).rev() {
                hop((y * w + col) * 4 + Dir::North as usize);
            }
        }
        let hops = (ax.abs_diff(bx) + ay.abs_diff(by)) as u64;
        let arrive = cur + f - 1;
        let lat = arrive - t;
        self.packets += 1;
        self.lat_sum += lat;
        self.hop_sum += hops;
        self.lat_max = self.lat_max.max(lat);
        arrive
    }

    /// Statistics for a run of `cycles` cycles.
    pub fn stats(&self, cycles: u64) -> NocStats {
        if let Some(x) = &self.xbar {
            let (avg, max) = x.utilization(cycles);
            return NocStats {
                packets: self.packets,
                local_packets: self.local,
                avg_latency: ratio(self.lat_sum, self.packets),
                max_latency: self.lat_max,
                avg_hops: ratio(self.hop_sum, self.packets),
                avg_link_utilization: avg,
                max_link_utilization: max,
            };
        }
        let mut util_sum = 0.0;
        let mut util_max: f64 = 0.0;
        let mut nlinks = 0usize;
        let m = &self.mesh;
        for n in 0..m.nodes() {
            let (x, y) = m.coords(n);
            let exists = [x + 1 < m.width(), x > 0, y > 0, y + 1 < m.height()];
            for (d, e) in exists.iter().enumerate() {
                if *e {
                    let u = if cycles == 0 {
                        0.0
                    } else {
                        self.link_busy[n as usize * 4 + d] as f64 / cycles as f64
                    };
                    util_sum += u;
                    util_max = util_max.max(u);
                    nlinks += 1;
                }
            }
        }
        NocStats {
            packets: self.packets,
            local_packets: self.local,
            avg_latency: ratio(self.lat_sum, self.packets),
            max_latency: self.lat_max,
            avg_hops: ratio(self.hop_sum, self.packets),
            avg_link_utilization: if nlinks == 0 {
                0.0
            } else {
                util_sum / nlinks as f64
            },
            max_link_utilization: util_max,
        }
    }
}

pub(crate) fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net() -> Network {
        Network::new(
            Mesh::new(6, 6),
            NocParams {
                router_cycles: 3,
                link_cycles: 1,
                request_flits: 1,
                data_flits: 5,
            },
        )
    }

    #[test]
    fn zero_load_latency_is_hops_times_router_plus_link() {
        let mut n = net();
        // 0 -> 35: 10 hops * (3 + 1) = 40 for a 1-flit packet.
        assert_eq!(n.send(100, 0, 35, PacketClass::Control), 140);
        // data packet 0 -> 2: 2 * 4 + (5 - 1) = 12.
        assert_eq!(n.send(1000, 0, 2, PacketClass::Data), 1012);
        assert_eq!(n.send(5, 7, 7, PacketClass::Data), 5);
        assert_eq!(n.zero_load_latency(10, PacketClass::Control), 40);
    }

    /// The strided route walk of `send` visits the links of `Mesh::for_each_link`.
    #[test]
    fn send_follows_for_each_link() {
        let mesh = Mesh::new(5, 4);
        let p = NocParams {
            router_cycles: 2,
            link_cycles: 1,
            request_flits: 1,
            data_flits: 3,
        };
        let mut n = Network::new(mesh.clone(), p.clone());
        let mut link_free = vec![0u64; mesh.link_slots()];
        let mut t = 0;
        for a in 0..mesh.nodes() {
            for b in 0..mesh.nodes() {
                t += (a * 7 + b * 3) as u64 % 5;
                let class = if (a + b) % 2 == 0 {
                    PacketClass::Data
                } else {
                    PacketClass::Control
                };
                let f = if class == PacketClass::Data { 3 } else { 1 };
                let mut cur = t;
                mesh.for_each_link(a, b, |l| {
                    cur += p.router_cycles;
                    let start = cur.max(link_free[l]);
                    link_free[l] = start + f;
                    cur = start + p.link_cycles;
                });
                let want = if a == b { t } else { cur + f - 1 };
                assert_eq!(n.send(t, a, b, class), want, "{a} -> {b}");
            }
        }
        assert_eq!(n.link_free, link_free);
    }

    #[test]
    fn two_packets_on_one_link_serialize() {
        let mut n = net();
        // Both 5-flit packets want link 0->1 at cycle 3; the second waits 5 cycles.
        let a = n.send(0, 0, 1, PacketClass::Data);
        let b = n.send(0, 0, 1, PacketClass::Data);
        assert_eq!(a, 3 + 1 + 4);
        assert_eq!(b, a + 5);
        let s = n.stats(100);
        assert_eq!(s.packets, 2);
        assert_eq!(s.max_latency, 13);
        assert!((s.max_link_utilization - 0.10).abs() < 1e-12);
    }
}
