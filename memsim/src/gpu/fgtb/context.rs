//! Context save and restore over the modelled memory path (`gpu-seeds.md` §6.1
//! "Preemption and context", §8.1 "TB preemption").
//!
//! A TB's context is its registers and shared memory: `smem + threads ×
//! regs_per_thread × 4` bytes (Table I: BFS 128 × 32 × 4 = 16 KB, PTA
//! 991 × 28 × 4 + 200 ≈ 108.6 KB). Saving it sends that many bytes, in lines, from the SM to a
//! per-TB save area as write-backs; restoring reads them back. Both go through
//! the same crossbar, L2 slices, memory controllers and DRAM as data, so they
//! cost bandwidth and interfere with the running TBs. An SM's port moves one
//! line per `pace` cycles (the line's flits over the crossbar input port), so a
//! save ends `lines × pace` cycles after it starts; a restore ends when its last
//! line returned. Non-cacheable contexts bypass the L1 (the paper's design); the
//! L2 slices always allocate (memsim's shared L2 has no non-allocating path).
//!
//! Invariant: tokens of context reads carry [`CTX_TOKEN`], which no L1 MSHR id
//! reaches, so the engine routes their completions here.

use crate::system::{DramBackend, MemRequest, MemorySystem, ReqKind};

/// Marks the completion token of a context read.
pub const CTX_TOKEN: u64 = 1 << 62;

/// Base of the context save areas (apart from data and local memory).
pub const CTX_BASE: u64 = 0x7800_0000_0000;

/// Bytes of a TB's context: registers of its threads (4 bytes each) plus its
/// shared memory.
pub fn context_bytes(threads: u32, regs_per_thread: u32, smem_bytes: u32) -> u64 {
    threads as u64 * regs_per_thread as u64 * 4 + smem_bytes as u64
}

/// Direction of a transfer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Registers and shared memory to memory (preemption).
    Save,
    /// Back from memory onto an SM (restore).
    Restore,
}

/// One context transfer in flight.
#[derive(Clone, Debug)]
struct Transfer {
    id: u32,
    sm: u32,
    dir: Dir,
    addr: u64,
    lines: u32,
    issued: u32,
    returned: u32,
}

/// Traffic counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CtxTraffic {
    /// Saves and restores finished.
    pub saves: u64,
    /// Restores finished.
    pub restores: u64,
    /// Bytes saved and restored (whole lines).
    pub bytes: u64,
    /// Cycles from start to end, summed over saves.
    pub save_cycles: u64,
    /// Cycles from start to end, summed over restores.
    pub restore_cycles: u64,
}

/// Moves contexts between SMs and memory.
#[derive(Clone, Debug)]
pub struct Mover {
    line_bytes: u64,
    pace: u64,
    jobs: Vec<(Transfer, u64)>,
    port_free: Vec<u64>,
    next_id: u32,
    /// Traffic so far.
    pub traffic: CtxTraffic,
    /// Cacheable contexts: the saved lines go through the saving SM's L1.
    cacheable: bool,
    /// (SM, address) of cacheable save lines issued, for the caller to install.
    pub installs: Vec<(u32, u64)>,
}

impl Mover {
    /// A mover for `sms` SMs, `line_bytes` lines, one line per `pace` cycles per
    /// SM port.
    pub fn new(sms: usize, line_bytes: u32, pace: u64, cacheable: bool) -> Self {
        Mover {
            cacheable,
            installs: Vec::new(),
            line_bytes: line_bytes.max(1) as u64,
            pace: pace.max(1),
            jobs: Vec::new(),
            port_free: vec![0; sms],
            next_id: 0,
            traffic: CtxTraffic::default(),
        }
    }

    /// Lines a context of `bytes` takes.
    pub fn lines(&self, bytes: u64) -> u32 {
        bytes.div_ceil(self.line_bytes).max(1) as u32
    }

    /// Starts moving the `bytes` context of TB `tb_gid` between SM `sm` and its
    /// save area at `t`; returns the transfer id.
    pub fn start(&mut self, sm: u32, dir: Dir, tb_gid: u32, bytes: u64, t: u64) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1) & 0xFF_FFFF;
        let lines = self.lines(bytes);
        // a 512 KB save area per TB: a context is at most an SM's registers
        // (64K x 4 B) plus its shared memory (at most 96 KB in the presets)
        let addr = CTX_BASE + ((tb_gid as u64) << 19);
        self.jobs.push((
            Transfer {
                id,
                sm,
                dir,
                addr,
                lines,
                issued: 0,
                returned: 0,
            },
            t,
        ));
        id
    }

    /// Issues the lines whose port slot has come by `t`; returns the transfers
    /// that finished (id, cycle): saves when their last line left the port.
    pub fn pump<D: DramBackend>(&mut self, t: u64, mem: &mut MemorySystem<D>) -> Vec<(u32, u64)> {
        let mut done = Vec::new();
        let (lb, pace) = (self.line_bytes, self.pace);
        for (j, start) in &mut self.jobs {
            let port = &mut self.port_free[j.sm as usize];
            while j.issued < j.lines && *port <= t {
                let at = (*port).max(*start);
                if at > t {
                    break;
                }
                let addr = j.addr + j.issued as u64 * lb;
                let (kind, token) = match j.dir {
                    Dir::Save => (ReqKind::Writeback, u64::MAX),
                    Dir::Restore => (ReqKind::Read, CTX_TOKEN | j.id as u64),
                };
                let req = MemRequest {
                    requester: j.sm,
                    addr,
                    kind,
                    token,
                };
                if mem.issue(req, at.max(t)).is_err() {
                    // the SM's outstanding limit: try again a little later
                    *port = t + pace;
                    break;
                }
                j.issued += 1;
                *port = at.max(t) + pace;
                if self.cacheable && j.dir == Dir::Save {
                    self.installs.push((j.sm, addr));
                }
            }
            if j.dir == Dir::Save && j.issued == j.lines {
                let end = *port;
                done.push((j.id, end));
                self.traffic.saves += 1;
                self.traffic.bytes += j.lines as u64 * lb;
                self.traffic.save_cycles += end - *start;
            }
        }
        self.jobs
            .retain(|(j, _)| !(j.dir == Dir::Save && j.issued == j.lines));
        done
    }

    /// A context read with `token` returned at `t`; returns the restore that
    /// finished with it, if any.
    pub fn complete(&mut self, token: u64, t: u64) -> Option<u32> {
        let id = (token & !CTX_TOKEN) as u32;
        let i = self.jobs.iter().position(|(j, _)| j.id == id)?;
        let (j, start) = &mut self.jobs[i];
        j.returned += 1;
        if j.returned < j.lines {
            return None;
        }
        self.traffic.restores += 1;
        self.traffic.bytes += j.lines as u64 * self.line_bytes;
        self.traffic.restore_cycles += t - *start;
        self.jobs.remove(i);
        Some(id)
    }

    /// The next cycle after `t` at which a line may be issued.
    pub fn next_event(&self, t: u64) -> Option<u64> {
        self.jobs
            .iter()
            .filter(|(j, _)| j.issued < j.lines)
            .map(|(j, s)| self.port_free[j.sm as usize].max(*s).max(t + 1))
            .min()
    }

    /// Transfers in flight.
    pub fn busy(&self) -> bool {
        !self.jobs.is_empty()
    }
}

/// Whether a completion token belongs to a context read.
pub fn is_context_token(token: u64) -> bool {
    token != u64::MAX && token & CTX_TOKEN != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table I's context sizes from the formula.
    #[test]
    fn table_one_context_sizes() {
        let kb = |b: u64| b as f64 / 1024.0;
        assert_eq!(kb(context_bytes(128, 32, 0)), 16.0); // BFS
        assert_eq!(kb(context_bytes(512, 32, 0)), 64.0); // DMR
        assert_eq!(kb(context_bytes(256, 34, 0)), 34.0); // MST
        assert!((kb(context_bytes(991, 28, 200)) - 108.6).abs() < 0.05); // PTA
        assert_eq!(kb(context_bytes(256, 32, 0)), 32.0); // SSSP
        assert!((kb(context_bytes(16, 26, 68)) - 1.69).abs() < 0.01); // SGD "2"
        let m = Mover::new(1, 128, 5, false);
        assert_eq!(m.lines(16384), 128);
        assert_eq!(m.lines(111192), 869);
        assert!(is_context_token(CTX_TOKEN | 7));
        assert!(!is_context_token(7) && !is_context_token(u64::MAX));
    }
}
