//! The issue stage of an SM: whether a warp's next instruction can issue
//! (`ready`, which also runs the free instructions before it: `let`, jumps, loop
//! entry and increment) and what an issued warp instruction does (`issue`: unit
//! chains and initiation intervals, branches on the SIMT stack, barriers, exits,
//! device-launch calls and memory instructions, handed to the LSU), with the TB
//! barrier release. See the parent module for the timing model (digest §8.1).

use super::*;

impl Sm {
    /// Runs the free instructions of warp `ws` and says whether its next
    /// instruction can issue at `t`; if not, when to look again and why.
    pub(super) fn ready(
        &mut self,
        ws: u32,
        s: u32,
        t: u64,
        kernels: &[KernelRt],
        tables: &Tables,
    ) -> Result<(), (u64, Stall)> {
        let r = self.ready_inner(ws, s, t, kernels, tables);
        // FGTB monitor: a warp is memory-throttled from the `ready` that finds
        // the miss queue full to the next `ready` that does not (idempotent
        // per warp: a gate opened by another event asks again).
        let w = &self.warps[ws as usize];
        let mon = &mut self.tbs[w.tb as usize].mon;
        match r {
            Err((_, Stall::LsuFull, _)) => mon.throttle_on(t, w.warp_in_tb),
            _ => mon.throttle_off(t, w.warp_in_tb),
        }
        r.map_err(|(at, why, wait)| {
            self.gates[ws as usize] = Gate { at, wait };
            (at, why)
        })
    }

    /// [`Self::ready`], with what the warp waits for (its gate).
    fn ready_inner(
        &mut self,
        ws: u32,
        s: u32,
        t: u64,
        kernels: &[KernelRt],
        tables: &Tables,
    ) -> Result<(), (u64, Stall, Wait)> {
        let w = &self.warps[ws as usize];
        if w.finished {
            return Err((u64::MAX, Stall::NoWarp, Wait::Until(Stall::NoWarp)));
        }
        if w.at_bar {
            return Err((u64::MAX, Stall::Barrier, Wait::Until(Stall::Barrier)));
        }
        if w.ready_at > t {
            return Err((
                w.ready_at,
                Stall::Scoreboard,
                Wait::Until(Stall::Scoreboard),
            ));
        }
        let tb = &self.tbs[w.tb as usize];
        let k = &kernels[tb.kernel as usize];
        let geo = tb.geo;
        let code = &k.code;
        let w = &mut self.warps[ws as usize];
        w.retire_scoreboard(t);
        loop {
            let pc = w.top().pc as usize;
            let reads = &code.reads[pc];
            if !reads.is_empty() {
                let at = w.operands_ready(reads);
                if at > t {
                    if at == PENDING {
                        w.blocked = Some(Stall::Memory);
                        return Err((at, Stall::Memory, Wait::Until(Stall::Memory)));
                    }
                    return Err((at, Stall::Scoreboard, Wait::Until(Stall::Scoreboard)));
                }
            }
            match &code.insts[pc] {
                Inst::Let { var, expr } => {
                    let mask = w.top().mask;
                    let mut v = [0i64; 32];
                    let cx = WarpCtx {
                        w,
                        geo: &geo,
                        args: &k.args,
                        mask,
                    };
                    eval::eval(expr, &cx, tables, &mut v);
                    for lane in lanes(mask) {
                        w.set(var.0, lane, v[lane as usize]);
                    }
                    w.set_pc(pc as u32 + 1);
                }
                Inst::Jump(to) => w.set_pc(*to),
                Inst::LoopInit {
                    var,
                    lo,
                    hi,
                    bound,
                    end_pc,
                } => {
                    let mask = w.top().mask;
                    let (mut a, mut b) = ([0i64; 32], [0i64; 32]);
                    let cx = WarpCtx {
                        w,
                        geo: &geo,
                        args: &k.args,
                        mask,
                    };
                    eval::eval(lo, &cx, tables, &mut a);
                    eval::eval(hi, &cx, tables, &mut b);
                    for lane in lanes(mask) {
                        w.set(var.0, lane, a[lane as usize]);
                        w.set(*bound, lane, b[lane as usize]);
                    }
                    w.enter_loop(pc as u32 + 1, *end_pc);
                }
                Inst::LoopNext { var, test_pc } => {
                    for lane in lanes(w.top().mask) {
                        let v = w.get(var.0, lane).wrapping_add(1);
                        w.set(var.0, lane, v);
                    }
                    w.set_pc(*test_pc);
                }
                Inst::Unit { class, n, ilp } => {
                    let unit = unit_index(*class);
                    let free = self.fu_free[s as usize][unit];
                    if free > t {
                        return Err((free, Stall::FuBusy, Wait::Unit(unit as u8)));
                    }
                    let done = if w.unit_left == 0 {
                        0
                    } else {
                        *n - w.unit_left
                    };
                    let c = (done % (*ilp).clamp(1, 8)) as usize;
                    if w.unit_left > 0 && w.chains[c] > t {
                        return Err((
                            w.chains[c],
                            Stall::Scoreboard,
                            Wait::Until(Stall::Scoreboard),
                        ));
                    }
                    return Ok(());
                }
                Inst::Mem(m) => {
                    if m.space == Space::Shared {
                        if self.smem_free > t {
                            return Err((self.smem_free, Stall::FuBusy, Wait::Smem));
                        }
                    } else if self.miss_q.len() >= self.p.g.lsu_queue as usize {
                        // memory-throttled (the monitor's interval: `ready`)
                        return Err((u64::MAX, Stall::LsuFull, Wait::Lsu));
                    }
                    return Ok(());
                }
                _ => return Ok(()),
            }
            w.normalize();
            if w.finished {
                // only reachable through jumps to the end; exit is an instruction
                return Err((u64::MAX, Stall::NoWarp, Wait::Until(Stall::NoWarp)));
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn issue<D: DramBackend>(
        &mut self,
        ws: u32,
        s: u32,
        t: u64,
        kernels: &[KernelRt],
        tables: &Tables,
        mem: &mut MemorySystem<D>,
        exits: &mut Vec<TbExit>,
        hook: &mut Option<Box<dyn L1Observer>>,
    ) {
        let g = &self.p.g;
        let tbi = self.warps[ws as usize].tb as usize;
        let geo = self.tbs[tbi].geo;
        let kernel = self.tbs[tbi].kernel;
        let tb_gid = self.tbs[tbi].gid;
        let k = &kernels[kernel as usize];
        let code: &Code = &k.code;
        let w = &mut self.warps[ws as usize];
        let top = w.top();
        let pc = top.pc as usize;
        self.c.issued += 1;
        self.per_kernel[kernel as usize] += 1;
        self.c.lanes += top.mask.count_ones() as u64;
        self.tbs[tbi].mon.issued += 1;
        w.issued += 1;
        w.ready_at = t + 1;
        self.gates[ws as usize] = Gate::OPEN;
        if let Some(tr) = &mut self.trace {
            tr.push(IssueRec {
                cycle: t,
                age: w.age,
                pc: top.pc,
                mask: top.mask,
            });
        }
        match &code.insts[pc] {
            Inst::Unit { class, n, ilp } => {
                if *class == UnitClass::Fp {
                    self.tbs[tbi].mon.fp_issued += 1;
                }
                let unit = unit_index(*class);
                let fu = match unit {
                    0 => g.sp,
                    1 => g.sfu,
                    _ => g.dp,
                };
                if w.unit_left == 0 {
                    w.unit_left = *n;
                    w.chains = [0; 8];
                }
                let c = ((*n - w.unit_left) % (*ilp).clamp(1, 8)) as usize;
                w.chains[c] = t + fu.latency as u64;
                self.fu_free[s as usize][unit] = t + fu.ii as u64;
                w.unit_left -= 1;
                if w.unit_left == 0 {
                    w.set_pc(pc as u32 + 1);
                }
            }
            Inst::If {
                cond,
                else_pc,
                end_pc,
            } => {
                let mut v = [0i64; 32];
                let cx = WarpCtx {
                    w,
                    geo: &geo,
                    args: &k.args,
                    mask: top.mask,
                };
                eval::eval(cond, &cx, tables, &mut v);
                let mut taken = 0u32;
                for lane in lanes(top.mask) {
                    if v[lane as usize] != 0 {
                        taken |= 1 << lane;
                    }
                }
                w.branch(taken, *else_pc, *end_pc);
            }
            Inst::LoopTest { var, bound } => {
                let mut stay = 0u32;
                for lane in lanes(top.mask) {
                    if w.get(var.0, lane) < w.get(*bound, lane) {
                        stay |= 1 << lane;
                    }
                }
                w.loop_test(stay);
            }
            Inst::Bar => {
                w.set_pc(pc as u32 + 1);
                w.at_bar = true;
                self.tbs[tbi].arrived += 1;
                self.release_barrier(tbi, t);
            }
            Inst::Exit => {
                w.exit_lanes();
            }
            Inst::Launch {
                site,
                else_pc,
                end_pc,
            } => {
                let call = crate::gpu::dp::call::evaluate(
                    site, w, top.mask, &geo, &k.args, tables, *else_pc, *end_pc,
                );
                w.ready_at = u64::MAX;
                self.launch_out.push(crate::gpu::dp::LaunchCall {
                    sm: self.id,
                    warp_slot: ws,
                    warp_in_tb: w.warp_in_tb,
                    kernel,
                    tb: geo.linear_ctaid(),
                    ..call
                });
            }
            Inst::Mem(m) => {
                self.c.lane_mem_ops += top.mask.count_ones() as u64;
                let who = Owner {
                    warp: w.gid,
                    tb: tb_gid,
                    kernel,
                };
                self.memory(ws, t, m, &geo, k, who, tables, mem, exits, hook);
                self.warps[ws as usize].set_pc(pc as u32 + 1);
            }
            Inst::Let { .. } | Inst::Jump(_) | Inst::LoopInit { .. } | Inst::LoopNext { .. } => {
                unreachable!("free instructions run in `ready`")
            }
        }
        let w = &mut self.warps[ws as usize];
        w.normalize();
        if w.finished {
            let info = WarpInfo {
                slot: ws,
                age: w.age,
                kernel,
                gid: w.gid,
                tb: tb_gid,
            };
            self.scheds[s as usize].on_warp_exit(info, t);
            if let Some(b) = &mut self.l1.breakdown {
                b.first_warp_done(kernel);
            }
            self.any_finished = true;
            let tb = &mut self.tbs[tbi];
            tb.live -= 1;
            self.release_barrier(tbi, t);
            if self.warps[ws as usize].outstanding == 0 {
                self.maybe_exit_tb(tbi as u32, t, exits);
            }
        }
    }

    /// Releases TB `tbi`'s barrier when every live warp has arrived.
    pub(super) fn release_barrier(&mut self, tbi: usize, t: u64) {
        let tb = &mut self.tbs[tbi];
        if tb.arrived == 0 || tb.arrived < tb.live {
            return;
        }
        tb.arrived = 0;
        for &ws in &tb.warps {
            self.gates[ws as usize] = Gate::OPEN;
            let w = &mut self.warps[ws as usize];
            if w.at_bar {
                w.at_bar = false;
                w.ready_at = t + 1;
            }
        }
    }
}

/// Unit index of a class: 0 SP (alu, fp), 1 SFU, 2 DP.
fn unit_index(c: UnitClass) -> usize {
    match c {
        UnitClass::Alu | UnitClass::Fp => 0,
        UnitClass::Sfu => 1,
        UnitClass::Dp => 2,
    }
}
