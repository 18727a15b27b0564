//! The resource side of an SM: whether a TB fits, admission at dispatch
//! (registers, shared memory, threads, TB slots) and the occupancy and
//! resource-utilisation integrals kept over time. See the parent module for
//! the model (`gpu-seeds.md` §8.1).

use super::*;

impl Sm {
    /// Whether a TB of `k` fits now.
    pub fn fits(&self, k: &KernelRt) -> bool {
        self.res.can_admit(&self.p.g, &k.cost)
    }

    pub(super) fn occupancy_to(&mut self, t: u64) {
        if t > self.occ_last {
            let w = self.n_live as u128;
            let d = (t - self.occ_last) as u128;
            self.c.warp_cycles += w * d;
            let r = &self.res;
            for (acc, used) in self
                .c
                .resource_cycles
                .iter_mut()
                .zip([r.regs, r.smem, r.threads, r.tbs])
            {
                *acc += used as u128 * d;
            }
            if w > 0 {
                self.c.active_cycles += t - self.occ_last;
            }
            self.occ_last = t;
        }
    }

    /// Accounts the cycles up to `t` (end of run).
    pub fn finish(&mut self, t: u64) {
        self.occupancy_to(t);
    }

    /// Places TB `tb_gid` (index `ctaid`) of `k` here at cycle `t`; `age0` numbers
    /// its warps' ages (launch order over the GPU).
    pub fn admit(&mut self, k: &KernelRt, tb_gid: u32, ctaid: [u32; 3], t: u64, age0: u64) {
        self.occupancy_to(t);
        self.res.admit(&k.cost);
        if self.per_kernel.len() <= k.id as usize {
            self.per_kernel.resize(k.id as usize + 1, 0);
        }
        let slot = match self.tbs.iter().position(|s| !s.used) {
            Some(i) => i,
            None => {
                self.tbs.push(TbSlot::default());
                self.tbs.len() - 1
            }
        };
        let threads = k.block[0] * k.block[1] * k.block[2];
        let nw = threads.div_ceil(32);
        let mut warps = Vec::with_capacity(nw as usize);
        for w in 0..nw {
            let lanes = (threads - w * 32).min(32);
            let gid = (self.id << 20) | (self.next_warp_gid & 0xF_FFFF);
            self.next_warp_gid = self.next_warp_gid.wrapping_add(1);
            let warp = Warp::new(gid, age0 + w as u64, slot as u32, w, lanes, k.code.slots, t);
            let ws = match self.free_warps.pop() {
                Some(i) => {
                    self.warps[i as usize] = warp;
                    i
                }
                None => {
                    self.warps.push(warp);
                    (self.warps.len() - 1) as u32
                }
            };
            warps.push(ws);
            let nsch = self.live.len() as u32;
            self.live[(ws % nsch) as usize].push(ws);
            let info = super::WarpInfo {
                slot: ws,
                age: age0 + w as u64,
                kernel: k.id,
                gid,
            };
            self.scheds[(ws % nsch) as usize].on_warp_start(info, t);
            self.n_live += 1;
        }
        for l in &mut self.live {
            l.sort_unstable();
        }
        self.tbs[slot] = TbSlot {
            used: true,
            kernel: k.id,
            gid: tb_gid,
            geo: TbGeo {
                block: k.block,
                grid: k.grid,
                ctaid,
            },
            cost: k.cost,
            live: nw,
            warps,
            arrived: 0,
            start: t,
        };
        self.wake = self.wake.min(t);
    }
}
