//! SM resources and thread-block admission (digest §8.1, "SM resource model").
//!
//! An SM holds at most `max_threads_per_sm` threads (in whole warps),
//! `max_tbs_per_sm` thread blocks, `registers_per_sm` registers and
//! `smem_per_sm` bytes of shared memory. A TB is admitted at dispatch only if every
//! resource has room for it, and gives everything back when its last warp exits;
//! TBs of different kernels may share an SM. Registers are allocated per warp,
//! rounded up to `reg_alloc_unit` (`ceil(regs_per_thread * warp_size / unit) *
//! unit`), shared memory per TB rounded up to `smem_alloc_unit`, as the CUDA
//! occupancy calculator does.

use super::config::GpuConfig;

/// What one TB of a kernel takes from an SM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TbCost {
    /// Threads (the block's threads rounded up to whole warps).
    pub threads: u32,
    /// Warps.
    pub warps: u32,
    /// Registers (per-warp allocation units).
    pub regs: u32,
    /// Shared memory in bytes (allocation units).
    pub smem: u32,
}

impl TbCost {
    /// The cost of a TB of `threads` threads, `regs_per_thread` registers each and
    /// `smem_bytes` shared memory on an SM of `g`.
    pub fn new(g: &GpuConfig, threads: u32, regs_per_thread: u32, smem_bytes: u32) -> Self {
        let ws = g.warp_size.max(1);
        let warps = threads.div_ceil(ws).max(1);
        let per_warp = (regs_per_thread * ws).div_ceil(g.reg_alloc_unit) * g.reg_alloc_unit;
        TbCost {
            threads: warps * ws,
            warps,
            regs: per_warp * warps,
            smem: smem_bytes.div_ceil(g.smem_alloc_unit) * g.smem_alloc_unit,
        }
    }

    /// Whether a TB of this cost fits an empty SM of `g` at all.
    pub fn fits_empty(&self, g: &GpuConfig) -> bool {
        self.threads <= g.max_threads_per_sm
            && self.regs <= g.registers_per_sm
            && self.smem <= g.smem_per_sm
            && self.warps <= g.max_warps_per_sm()
    }
}

/// Which resource limits the TBs per SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    /// Thread (warp) slots.
    Threads,
    /// TB slots.
    Tbs,
    /// Registers.
    Registers,
    /// Shared memory.
    SharedMemory,
}

/// Resources in use on one SM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmResources {
    /// Threads resident.
    pub threads: u32,
    /// Warps resident.
    pub warps: u32,
    /// TBs resident.
    pub tbs: u32,
    /// Registers allocated.
    pub regs: u32,
    /// Shared memory allocated (bytes).
    pub smem: u32,
    /// Per-kernel use, kept only when the TB policy splits the SM between
    /// kernels (sCKE, [`Self::track_kernels`]); `None` costs nothing.
    pub shares: Option<Box<KernelShares>>,
}

/// What each kernel holds on one SM (sCKE's admission cap, iPAWS §4.4, digest
/// §5.1 "sCKE": each core's resources split equally between the kernels).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelShares {
    /// By kernel instance id: threads, warps, TBs, registers, shared memory.
    used: Vec<[u32; 5]>,
}

impl KernelShares {
    /// What kernel `k` holds: threads, warps, TBs, registers, shared memory.
    pub fn used(&self, k: u32) -> [u32; 5] {
        self.used.get(k as usize).copied().unwrap_or_default()
    }

    fn add(&mut self, k: u32, c: &TbCost, sign: bool) {
        if self.used.len() <= k as usize {
            self.used.resize(k as usize + 1, [0; 5]);
        }
        let u = &mut self.used[k as usize];
        for (x, d) in u.iter_mut().zip([c.threads, c.warps, 1, c.regs, c.smem]) {
            *x = if sign { *x + d } else { x.saturating_sub(d) };
        }
    }
}

/// One kernel's share of an SM of `g` split `n` ways (`n` at least 1): threads,
/// warps, TBs, registers, shared memory, each the SM's total over `n`, rounded
/// down.
pub fn kernel_share(g: &GpuConfig, n: u32) -> [u32; 5] {
    let n = n.max(1);
    [
        g.max_threads_per_sm / n,
        g.max_warps_per_sm() / n,
        g.max_tbs_per_sm / n,
        g.registers_per_sm / n,
        g.smem_per_sm / n,
    ]
}

impl SmResources {
    /// Keeps per-kernel use from now on (before the first admission).
    pub fn track_kernels(&mut self) {
        self.shares = Some(Box::default());
    }

    /// Whether kernel `k`'s TB of cost `c` stays within the kernel's share of
    /// an SM split `n` ways ([`kernel_share`]); always with `n <= 1` or without
    /// [`Self::track_kernels`].
    pub fn within_share(&self, g: &GpuConfig, k: u32, c: &TbCost, n: u32) -> bool {
        let Some(s) = &self.shares else {
            return true;
        };
        if n <= 1 {
            return true;
        }
        let [th, wa, tb, re, sm] = s.used(k);
        let cap = kernel_share(g, n);
        th + c.threads <= cap[0]
            && wa + c.warps <= cap[1]
            && tb < cap[2]
            && re + c.regs <= cap[3]
            && sm + c.smem <= cap[4]
    }

    /// [`Self::admit`] for a TB of kernel `k` (its share too, if kept).
    #[inline]
    pub fn admit_kernel(&mut self, k: u32, c: &TbCost) {
        self.admit(c);
        if self.shares.is_some() {
            self.share_add(k, c, true);
        }
    }

    /// [`Self::release`] for a TB of kernel `k` (its share too, if kept).
    #[inline]
    pub fn release_kernel(&mut self, k: u32, c: &TbCost) {
        self.release(c);
        if self.shares.is_some() {
            self.share_add(k, c, false);
        }
    }

    /// Kernel `k`'s share takes a TB of cost `c` whose totals were taken already
    /// (by `reserve`, for a TB placed in two steps), if shares are kept.
    #[inline]
    pub fn admit_share(&mut self, k: u32, c: &TbCost) {
        if self.shares.is_some() {
            self.share_add(k, c, true);
        }
    }

    /// The per-kernel side (sCKE only; kept out of the callers' code).
    #[cold]
    #[inline(never)]
    fn share_add(&mut self, k: u32, c: &TbCost, sign: bool) {
        if let Some(s) = &mut self.shares {
            s.add(k, c, sign);
        }
    }

    /// Whether a TB of cost `c` can be admitted now.
    pub fn can_admit(&self, g: &GpuConfig, c: &TbCost) -> bool {
        self.tbs < g.max_tbs_per_sm
            && self.threads + c.threads <= g.max_threads_per_sm
            && self.warps + c.warps <= g.max_warps_per_sm()
            && self.regs + c.regs <= g.registers_per_sm
            && self.smem + c.smem <= g.smem_per_sm
    }

    /// Takes the resources of a TB (call only after [`Self::can_admit`]).
    pub fn admit(&mut self, c: &TbCost) {
        self.threads += c.threads;
        self.warps += c.warps;
        self.tbs += 1;
        self.regs += c.regs;
        self.smem += c.smem;
    }

    /// Gives back the resources of an exiting TB.
    pub fn release(&mut self, c: &TbCost) {
        debug_assert!(
            self.tbs > 0 && self.warps >= c.warps,
            "release without admit"
        );
        self.threads -= c.threads;
        self.warps -= c.warps;
        self.tbs -= 1;
        self.regs -= c.regs;
        self.smem -= c.smem;
    }

    /// Resource utilisation: the highest of the register, shared-memory and
    /// thread fractions in use (digest §8.4).
    pub fn utilization(&self, g: &GpuConfig) -> f64 {
        let f = |a: u32, b: u32| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        f(self.regs, g.registers_per_sm)
            .max(f(self.smem, g.smem_per_sm))
            .max(f(self.threads, g.max_threads_per_sm))
    }
}

/// How many TBs of cost `c` an empty SM holds, and what limits it.
pub fn tbs_per_sm(g: &GpuConfig, c: &TbCost) -> (u32, Limiter) {
    let div = |a: u32, b: u32| a.checked_div(b).unwrap_or(u32::MAX);
    let mut best = (g.max_tbs_per_sm, Limiter::Tbs);
    for (n, l) in [
        (div(g.max_threads_per_sm, c.threads), Limiter::Threads),
        (div(g.max_warps_per_sm(), c.warps), Limiter::Threads),
        (div(g.registers_per_sm, c.regs), Limiter::Registers),
        (div(g.smem_per_sm, c.smem), Limiter::SharedMemory),
    ] {
        if n < best.0 {
            best = (n, l);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kepler() -> GpuConfig {
        GpuConfig::default()
    }

    /// 256 threads, 64 registers each: 8 warps x 2048 registers = 16384 per TB,
    /// 65536 / 16384 = 4 TBs (32 warps of 64): register-limited.
    #[test]
    fn register_limited_occupancy() {
        let g = kepler();
        let c = TbCost::new(&g, 256, 64, 0);
        assert_eq!((c.warps, c.regs), (8, 16384));
        assert_eq!(tbs_per_sm(&g, &c), (4, Limiter::Registers));
        // 37 registers round up per warp: 37 * 32 = 1184 -> 1280 (5 units of 256).
        let c = TbCost::new(&g, 128, 37, 0);
        assert_eq!(c.regs, 4 * 1280);
        assert_eq!(tbs_per_sm(&g, &c), (12, Limiter::Registers));
    }

    /// 128 threads with 10000 B of shared memory: rounded to 10240 B, 48 KB / 10240
    /// = 4 TBs: shared-memory-limited (threads would allow 16).
    #[test]
    fn smem_limited_occupancy_and_admission() {
        let g = kepler();
        let c = TbCost::new(&g, 128, 16, 10000);
        assert_eq!(c.smem, 10240);
        assert_eq!(tbs_per_sm(&g, &c), (4, Limiter::SharedMemory));
        let mut r = SmResources::default();
        for _ in 0..4 {
            assert!(r.can_admit(&g, &c));
            r.admit(&c);
        }
        assert!(!r.can_admit(&g, &c));
        r.release(&c);
        assert!(r.can_admit(&g, &c));
        // a 1000-thread TB takes 32 warp slots (1024 threads)
        let big = TbCost::new(&g, 1000, 16, 0);
        assert_eq!((big.warps, big.threads), (32, 1024));
        assert_eq!(tbs_per_sm(&g, &big), (2, Limiter::Threads));
    }

    /// sCKE's split on gtx480-ipaws (1536 threads, 48 warps, 8 TBs, 32768
    /// registers, 48 KB): halves of 768, 24, 4, 16384, 24576. A 256-thread TB
    /// with 16 registers a thread (8 warps, 4096 registers) fits three times per
    /// half (threads 3 x 256 = 768); a 128-thread TB with 10000 B of shared
    /// memory (10112 B in 128 B units) twice (2 x 10112 = 20224, a third would
    /// be 30336 > 24576) although four fit the SM.
    #[test]
    fn kernel_share_halves_every_resource() {
        let mut m = crate::config::MachineConfig::preset("gtx480-ipaws").unwrap();
        let g = m.gpu.take().unwrap();
        assert_eq!(kernel_share(&g, 2), [768, 24, 4, 16384, 24576]);
        assert_eq!(kernel_share(&g, 1), [1536, 48, 8, 32768, 49152]);
        assert_eq!(kernel_share(&g, 3), [512, 16, 2, 10922, 16384]);
        let a = TbCost::new(&g, 256, 16, 0);
        assert_eq!((a.threads, a.warps, a.regs), (256, 8, 4096));
        let b = TbCost::new(&g, 128, 16, 10000);
        assert_eq!(b.smem, 10112);
        let mut r = SmResources::default();
        r.track_kernels();
        let mut n = [0, 0];
        for (k, c) in [(0u32, &a), (1, &b)] {
            while r.can_admit(&g, c) && r.within_share(&g, k, c, 2) {
                r.admit_kernel(k, c);
                n[k as usize] += 1;
            }
        }
        assert_eq!(n, [3, 2]);
        assert_eq!(r.shares.as_ref().unwrap().used(0), [768, 24, 3, 12288, 0]);
        assert_eq!(r.shares.as_ref().unwrap().used(1), [256, 8, 2, 4096, 20224]);
        // the other kernel's half is not available to kernel 1 while split...
        assert!(r.can_admit(&g, &b) && !r.within_share(&g, 1, &b, 2));
        // ...and is once kernel 0 has no TB left to dispatch (the cap lifts)
        assert!(r.within_share(&g, 1, &b, 1));
        r.release_kernel(0, &a);
        assert_eq!(r.shares.as_ref().unwrap().used(0), [512, 16, 2, 8192, 0]);
        assert!(r.within_share(&g, 0, &a, 2));
        // without tracking there is no cap
        let mut u = SmResources::default();
        for _ in 0..6 {
            assert!(u.within_share(&g, 0, &a, 2));
            u.admit_kernel(0, &a);
        }
    }
}
