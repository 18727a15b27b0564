//! The SM side of `sync_children = "block_release"` (issue #31, digest §3.1 "A
//! parent CTA that is entirely waiting at sync relinquishes its resources"): a
//! resident TB whose unfinished warps all wait on a launch call gives its
//! registers, shared memory, threads and TB slot back ([`Sm::release_tb`]) while
//! its warps stay parked in the SM's warp arrays (the saved context; nothing of
//! theirs issues), and takes them again when its context has come back
//! ([`Sm::reserve`], then [`Sm::return_tb`]). The state machine and the context
//! traffic are `gpu::dp::release`.

use super::*;

impl Sm {
    /// The global id of the TB of warp slot `ws` when all its unfinished warps
    /// wait on a launch call (`ready_at == u64::MAX`, not at a barrier) and it is
    /// not being preempted; `None` otherwise.
    pub fn tb_all_waiting(&self, ws: u32) -> Option<u32> {
        let s = self.tbs.get(self.warps.get(ws as usize)?.tb as usize)?;
        if !s.used || s.preempting || s.live == 0 {
            return None;
        }
        let all = s.warps.iter().all(|&w| {
            let w = &self.warps[w as usize];
            w.finished || (!w.at_bar && w.ready_at == u64::MAX)
        });
        all.then_some(s.gid)
    }

    /// The global id of the TB of warp slot `ws` (resident or released).
    pub fn tb_of_warp(&self, ws: u32) -> Option<u32> {
        let s = self.tbs.get(self.warps.get(ws as usize)?.tb as usize)?;
        s.used.then_some(s.gid)
    }

    /// Unfinished warps of TB `gid` (0 when not here).
    pub fn tb_unfinished_warps(&self, gid: u32) -> u32 {
        self.tbs
            .iter()
            .find(|s| s.used && s.gid == gid)
            .map_or(0, |s| {
                s.warps
                    .iter()
                    .filter(|&&w| !self.warps[w as usize].finished)
                    .count() as u32
            })
    }

    /// The resources of resident TB `gid`.
    pub fn tb_cost(&self, gid: u32) -> Option<TbCost> {
        self.tbs
            .iter()
            .find(|s| s.used && s.gid == gid)
            .map(|s| s.cost)
    }

    /// Gives TB `gid`'s resources back at `t` (its context was saved): its warps
    /// leave the schedulers' lists, its slot stays to hold them. Returns false
    /// when `gid` is not resident here.
    pub fn release_tb(&mut self, gid: u32, t: u64) -> bool {
        let Some(i) = self.tbs.iter().position(|s| s.used && s.gid == gid) else {
            return false;
        };
        self.occupancy_to(t);
        let cost = self.tbs[i].cost;
        self.res.release_kernel(self.tbs[i].kernel, &cost);
        let ws = self.tbs[i].warps.clone();
        let mut n_live = 0;
        for l in &mut self.live {
            l.retain(|w| !ws.contains(w));
            n_live += l.len();
        }
        self.n_live = n_live;
        self.wake = self.wake.min(t);
        true
    }

    /// Puts released TB `gid`'s unfinished warps back in the schedulers' lists
    /// at `t` (its resources were taken again with [`Sm::reserve`]); they issue
    /// once their launch calls are answered.
    pub fn return_tb(&mut self, gid: u32, t: u64) {
        let Some(i) = self.tbs.iter().position(|s| s.used && s.gid == gid) else {
            return;
        };
        self.occupancy_to(t);
        // `reserve` took the totals; the kernel's share follows here
        self.res.admit_share(self.tbs[i].kernel, &self.tbs[i].cost);
        let nsch = self.live.len() as u32;
        for &w in &self.tbs[i].warps {
            if !self.warps[w as usize].finished {
                self.live[(w % nsch) as usize].push(w);
                self.n_live += 1;
            }
        }
        for l in &mut self.live {
            l.sort_unstable();
        }
        self.wake = self.wake.min(t);
    }
}
