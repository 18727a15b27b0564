//! A crossbar between the SMs and the memory partitions (GPU interconnect).
//!
//! GPUs connect their SMs to the L2 slices of the memory partitions through a
//! crossbar, one per direction (SPAWN Table 2.2, LASER Table 3.1: "1 crossbar per
//! direction", iSLIP allocation). This model keeps what bounds bandwidth and
//! latency and leaves the allocator out: ports `0 .. sm_ports` are the SMs, the
//! ports above them the memory side. A packet of `F` flits sent at `t` from `a`
//! to `b` leaves its input port when that port is free (one flit per cycle, so
//! the port is busy `F` cycles), reaches the output `latency` cycles after its
//! head left, waits until the output port is free (again `F` cycles per packet)
//! and is delivered with its tail flit: with no contention `latency + F - 1`.
//! Input and output ports are separate, so requests (SM -> memory) and replies
//! (memory -> SM) never contend with each other, as with two crossbars.
//!
//! Packets between two memory-side ports (an L2 slice and a memory controller)
//! stay inside the memory partitions and are delivered at once, like a packet to
//! the node itself; the DRAM model times the controller.
//! Simplification: ports are granted in send order (first come, first served)
//! rather than by iSLIP's round-robin matching.

use super::network::ratio;
use super::NodeId;

/// What the network needs from a topology other than the mesh.
pub trait Topology {
    /// Sends a packet of `flits` flits at `t` from `a` to `b`; returns the cycle its
    /// tail arrives and whether it crossed the fabric (false: delivered locally).
    fn send(&mut self, t: u64, a: NodeId, b: NodeId, flits: u64) -> (u64, bool);
    /// Mean and highest busy fraction of the ports over `cycles` cycles.
    fn utilization(&self, cycles: u64) -> (f64, f64);
}

/// The crossbar's state.
#[derive(Clone, Debug)]
pub struct Crossbar {
    sm_ports: u32,
    latency: u64,
    in_free: Vec<u64>,
    out_free: Vec<u64>,
    in_busy: Vec<u64>,
    out_busy: Vec<u64>,
}

impl Crossbar {
    /// A crossbar with `sm_ports` SM ports and `mem_ports` memory-side ports.
    pub fn new(sm_ports: u32, mem_ports: u32, latency: u64) -> Self {
        let n = (sm_ports + mem_ports) as usize;
        Crossbar {
            sm_ports,
            latency,
            in_free: vec![0; n],
            out_free: vec![0; n],
            in_busy: vec![0; n],
            out_busy: vec![0; n],
        }
    }

    /// Number of ports.
    pub fn ports(&self) -> usize {
        self.in_free.len()
    }

    /// Node id of memory-side port `i`.
    pub fn mem_port(&self, i: u32) -> NodeId {
        self.sm_ports + i
    }

    /// Latency of a packet of `flits` flits without contention.
    pub fn zero_load_latency(&self, flits: u64) -> u64 {
        self.latency + flits.max(1) - 1
    }
}

impl Topology for Crossbar {
    #[inline]
    fn send(&mut self, t: u64, a: NodeId, b: NodeId, flits: u64) -> (u64, bool) {
        if a == b || (a >= self.sm_ports && b >= self.sm_ports) {
            return (t, false);
        }
        let (a, b) = (a as usize, b as usize);
        let f = flits.max(1);
        let s = t.max(self.in_free[a]);
        self.in_free[a] = s + f;
        self.in_busy[a] += f;
        let o = (s + self.latency).max(self.out_free[b]);
        self.out_free[b] = o + f;
        self.out_busy[b] += f;
        (o + f - 1, true)
    }

    fn utilization(&self, cycles: u64) -> (f64, f64) {
        let n = self.in_busy.len() * 2;
        let mut sum = 0.0;
        let mut max: f64 = 0.0;
        for &b in self.in_busy.iter().chain(&self.out_busy) {
            let u = ratio(b, cycles);
            sum += u;
            max = max.max(u);
        }
        (if n == 0 { 0.0 } else { sum / n as f64 }, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_load_and_port_contention() {
        let mut x = Crossbar::new(2, 2, 8);
        // SM 0 -> memory port 2, 5 flits: 8 + 4.
        assert_eq!(x.send(10, 0, 2, 5), (22, true));
        assert_eq!(x.zero_load_latency(5), 12);
        // SM 1 -> the same output at the same time waits for the output port.
        assert_eq!(x.send(10, 1, 2, 5), (27, true));
        // A second packet from SM 0 waits for its input port, then the output.
        assert_eq!(x.send(10, 0, 3, 1), (23, true));
        // Memory side to memory side is local.
        assert_eq!(x.send(40, 2, 3, 5), (40, false));
    }
}
