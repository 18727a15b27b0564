//! The TB scheduler's side of FGTB (`gpu-seeds.md` §6.1 algorithm): it keeps
//! each SM's resident TBs with their estimates and monitors, places new TBs and
//! victims through [`CoLocate`], polls the monitors, preempts on
//! oversubscription (unless the victim queue is full), moves contexts through
//! the [`Mover`] and restores victims newest first.
//!
//! Flow of a preemption: a report raises a TB's estimate and its SM's summed
//! levels pass the capacity → [`Sm::preempt`] (the TB's warps stop) and a victim
//! entry is pushed at once (so a full queue refuses the preemption) → when its
//! loads drained the SM hands over a [`SavedTb`] and the save starts → when the
//! save ended the victim may be restored → a restore reserves the resources on
//! an SM that admits it and reads the context back → the TB resumes there.
//! Victims are searched before new TBs, newest first; an SM with no TB takes
//! any victim or TB. A report that lowers an estimate marks dispatch dirty, so
//! the SM is offered the victims and then the next new TB.

use super::context::{context_bytes, Dir, Mover};
use super::monitor::TbMonitor;
use super::place::CoLocate;
use super::policy::{preemption_policy, PreemptionPolicy, TbInfo};
use super::victim::VictimQueue;
use super::{monitor, FgtbConfig, Levels, TbKey, TbManage, METRICS};
use crate::gpu::frontend::FrontEnd;
use crate::gpu::sched::TbDispatchPolicy;
use crate::gpu::sm::TbCost;
use crate::gpu::smcore::{KernelRt, SavedTb, Sm, TbExit};
use crate::system::{DramBackend, MemorySystem};
use serde::Serialize;
use std::collections::HashMap;

/// How the engine runs a management.
#[derive(Clone, Debug, Default)]
pub struct ManageOptions {
    /// Which management.
    pub mode: TbManage,
    /// Its parameters.
    pub cfg: FgtbConfig,
    /// Per-function whole-run levels ([`TbManage::StaticOracle`]).
    pub oracle: HashMap<u32, Levels>,
}

/// A resident TB.
#[derive(Clone, Debug)]
struct Res {
    info: TbInfo,
    est: Levels,
    mon: TbMonitor,
    warps: u32,
    /// Context bytes (registers + shared memory).
    bytes: u64,
}

#[derive(Clone, Debug)]
enum VState {
    /// Still on its SM until its loads drained.
    Draining,
    /// Its context is on its way to memory (transfer id).
    Saving(u32, Box<SavedTb>),
    /// In memory, restorable.
    Saved(Box<SavedTb>),
}

/// A victim-queue entry.
#[derive(Clone, Debug)]
struct Victim {
    res: Res,
    cost: TbCost,
    state: VState,
}

/// One TB's estimate at its first dispatch and its levels at exit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TbRecord {
    /// The TB.
    pub info: TbInfo,
    /// Estimate it was placed with.
    pub placed: Levels,
    /// Lifetime levels at exit (`None` while it runs).
    pub exited: Option<Levels>,
}

/// What the management did (JSON `tb_manage` of `weft gpusim`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ManageReport {
    /// Management name.
    pub mode: String,
    /// Monitor reports sent to the TB scheduler.
    pub reports: u64,
    /// Preemptions (TBs stopped).
    pub preemptions: u64,
    /// Preemptions refused because the victim queue was full.
    pub vq_full: u64,
    /// Restores finished.
    pub restores: u64,
    /// Largest victim-queue occupancy.
    pub vq_peak: usize,
    /// Context bytes moved (saves and restores).
    pub context_bytes: u64,
    /// Mean cycles of a save (drain not included) and of a restore.
    pub save_cycles: f64,
    /// Mean cycles of a restore.
    pub restore_cycles: f64,
    /// Usage-table updates, conflicts, hits, lookups (fine-grained only).
    pub rut: Option<[u64; 4]>,
    /// Dispatches refused by the supplemental limits (a TB fit the regular
    /// resources of some SM, but no SM admitted its levels).
    pub stalled_dispatches: u64,
    /// Levels each TB exited with, summed (mean = / `exits`).
    pub exit_levels: [u64; METRICS],
    /// TBs that exited.
    pub exits: u64,
    /// Sum of the TBs' unquantised lifetime metrics at exit (mean = / `exits`).
    pub exit_raw: [f64; METRICS],
    /// Throttled warp-cycles of the exited TBs: blocked on the full miss
    /// queue, and waiting for the LSU's input (counted when `lsu_input`).
    pub throttle_cycles: [u64; 2],
    /// Monitor periods that ended, per metric by the level read in the period
    /// (`[metric][level]`, `0..=top`), whether a report followed or not.
    pub period_levels: [Vec<u64>; METRICS],
    /// Sum of the unquantised period metrics (mean = / periods).
    pub period_raw_sum: [f64; METRICS],
    /// Largest unquantised period metric.
    pub period_raw_max: [f64; METRICS],
}

impl ManageReport {
    /// Counts one ended monitor period with metrics `m`.
    fn tally_period(&mut self, m: &monitor::Metrics, cfg: &FgtbConfig) {
        let raw = m.as_array();
        let l = m.levels(cfg);
        for k in 0..METRICS {
            let h = &mut self.period_levels[k];
            if h.len() <= cfg.top() as usize {
                h.resize(cfg.top() as usize + 1, 0);
            }
            h[l.0[k] as usize] += 1;
            self.period_raw_sum[k] += raw[k];
            self.period_raw_max[k] = self.period_raw_max[k].max(raw[k]);
        }
    }

    /// Monitor periods that ended.
    pub fn periods(&self) -> u64 {
        self.period_levels[0].iter().sum()
    }
}

/// The TB scheduler's state.
pub struct Manager {
    cfg: FgtbConfig,
    mode: TbManage,
    policy: Box<dyn PreemptionPolicy>,
    place: CoLocate,
    residents: Vec<Vec<Res>>,
    vq: VictimQueue<Victim>,
    mover: Mover,
    restoring: Vec<(u32, u32, Victim)>,
    fp_per_cycle: f64,
    freq_mhz: u32,
    report: ManageReport,
    /// Estimate of the TB just selected (for `on_dispatch`).
    picked: Levels,
    /// Per-function (level sum, TBs) at exit: the oracle a later run uses.
    per_function: HashMap<u32, ([u64; METRICS], u64)>,
    /// Registers per thread and shared-memory bytes per function.
    funcs: Vec<(u32, u32)>,
    /// Every TB's estimate and exit levels, in dispatch order (by gid).
    records: Vec<TbRecord>,
    /// Earliest sample due of any resident TB.
    next_poll: u64,
}

impl Manager {
    /// The management of `o` on `sms` SMs with `line_bytes` lines, one context
    /// line per `pace` cycles per SM port, an fp issue capacity of
    /// `fp_per_cycle` per SM and the SM clock `freq_mhz`; `funcs` are the
    /// registers per thread and shared-memory bytes of each function.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        o: &ManageOptions,
        funcs: Vec<(u32, u32)>,
        sms: usize,
        line_bytes: u32,
        pace: u64,
        fp_per_cycle: f64,
        freq_mhz: u32,
    ) -> Self {
        Manager {
            policy: preemption_policy(o.mode, &o.cfg, o.oracle.clone()),
            place: CoLocate::new(sms, o.cfg.capacity()),
            residents: vec![Vec::new(); sms],
            vq: VictimQueue::new(o.cfg.vq_capacity),
            mover: Mover::new(
                sms,
                line_bytes,
                pace,
                o.cfg.context == super::ContextPath::Cacheable,
            ),
            restoring: Vec::new(),
            fp_per_cycle,
            freq_mhz,
            report: ManageReport {
                mode: o.mode.name().into(),
                ..Default::default()
            },
            picked: Levels::default(),
            per_function: HashMap::new(),
            funcs,
            records: Vec::new(),
            next_poll: u64::MAX,
            cfg: o.cfg.clone(),
            mode: o.mode,
        }
    }

    fn info(fe: &FrontEnd, kernel: u32, block: u64, gid: u32) -> TbInfo {
        let k = &fe.kernels[kernel as usize];
        TbInfo {
            gid,
            kernel,
            function: k.function.0,
            key: TbKey {
                stream: k.stream,
                block,
            },
        }
    }

    fn recount(&mut self, sm: usize) {
        let mut load = [0u32; METRICS];
        for r in &self.residents[sm] {
            for (l, e) in load.iter_mut().zip(r.est.0) {
                *l += e as u32;
            }
        }
        for (_, s, v) in &self.restoring {
            if *s as usize == sm {
                for (l, e) in load.iter_mut().zip(v.res.est.0) {
                    *l += e as u32;
                }
            }
        }
        self.place.load[sm] = load;
        self.place.resident[sm] = self.residents[sm].len() as u32
            + self
                .restoring
                .iter()
                .filter(|(_, s, _)| *s as usize == sm)
                .count() as u32;
    }

    /// Starts restoring victims (newest first) onto SMs that admit them; at most
    /// `limit`; returns how many started.
    pub fn restore_victims(&mut self, t: u64, sms: &mut [Sm], limit: u32) -> u32 {
        let mut n = 0;
        while n < limit {
            let mut found = None;
            for v in self.vq.iter().rev() {
                if !matches!(v.state, VState::Saved(_)) {
                    continue;
                }
                let fits =
                    |s: &usize| sms[*s].fits_cost(&v.cost) && self.place.admits(*s, v.res.est);
                if let Some(sm) = (0..sms.len()).find(fits) {
                    found = Some((v.res.info.gid, sm));
                    break;
                }
            }
            let Some((gid, sm)) = found else {
                break;
            };
            let v = self
                .vq
                .take_newest(|v| v.res.info.gid == gid)
                .expect("victim");
            sms[sm].reserve(&v.cost, t);
            let job = self
                .mover
                .start(sm as u32, Dir::Restore, v.res.info.gid, v.res.bytes, t);
            self.restoring.push((job, sm as u32, v));
            self.recount(sm);
            n += 1;
        }
        n
    }

    /// Picks the kernel (index into `ks`) and SM of the next new TB, or `None`.
    pub fn select(
        &mut self,
        ks: &[u32],
        fe: &FrontEnd,
        rts: &[KernelRt],
        sms: &[Sm],
    ) -> Option<(usize, usize)> {
        let mut est = Vec::with_capacity(ks.len());
        for &k in ks {
            let info = Self::info(fe, k, fe.kernels[k as usize].next_tb, u32::MAX);
            est.push(self.policy.estimate(&info, false));
        }
        self.place.estimates = est;
        let pick = self.place.select(ks.len(), sms.len(), &mut |k, sm| {
            sms[sm].fits(&rts[ks[k] as usize])
        });
        match pick {
            Some((k, _)) => self.picked = self.place.estimates[k],
            None => {
                let any_fit = ks
                    .iter()
                    .any(|&k| sms.iter().any(|s| s.fits(&rts[k as usize])));
                if any_fit {
                    self.report.stalled_dispatches += 1;
                }
            }
        }
        pick
    }

    /// TB `gid` (block `block` of kernel `rt`) was placed on `sm` at `t`.
    #[allow(clippy::too_many_arguments)]
    pub fn on_dispatch(
        &mut self,
        fe: &FrontEnd,
        rt: &KernelRt,
        sm: usize,
        gid: u32,
        block: u64,
        t: u64,
        s: &Sm,
    ) {
        let info = Self::info(fe, rt.id, block, gid);
        let threads = rt.block.iter().product::<u32>();
        let (regs, smem) = self.funcs[info.function as usize];
        let bytes = context_bytes(threads, regs, smem);
        let period = monitor::monitor_period(bytes, self.freq_mhz, &self.cfg);
        let sample = s.tb_sample(gid, t).unwrap_or_default();
        let mon = TbMonitor::new(sample, period, self.picked);
        self.next_poll = self.next_poll.min(mon.next);
        self.residents[sm].push(Res {
            info,
            est: self.picked,
            mon,
            warps: threads.div_ceil(32),
            bytes,
        });
        if self.records.len() <= gid as usize {
            self.records.resize(
                gid as usize + 1,
                TbRecord {
                    info,
                    placed: Levels::default(),
                    exited: None,
                },
            );
        }
        self.records[gid as usize] = TbRecord {
            info,
            placed: self.picked,
            exited: None,
        };
        self.recount(sm);
    }

    /// The next cycle a monitor samples, a context line can move, or a victim
    /// waits to be placed.
    pub fn next_event(&self, t: u64) -> Option<u64> {
        let poll = (self.next_poll != u64::MAX).then(|| self.next_poll.max(t + 1));
        let mv = self.mover.next_event(t);
        [poll, mv].into_iter().flatten().min()
    }

    /// Whether a victim waits in memory to be restored.
    pub fn victims_ready(&self) -> bool {
        self.vq.iter().any(|v| matches!(v.state, VState::Saved(_)))
    }

    /// Polls the monitors due at `t`; preempts where a report oversubscribes
    /// an SM. Returns whether dispatch should look again (an estimate fell or
    /// a TB left).
    #[allow(clippy::needless_range_loop)] // `sm` indexes `sms` and `self.residents`
    pub fn poll(&mut self, t: u64, sms: &mut [Sm]) -> bool {
        if t < self.next_poll {
            return false;
        }
        let mut dirty = false;
        for sm in 0..sms.len() {
            let mut i = 0;
            while i < self.residents[sm].len() {
                let r = &mut self.residents[sm][i];
                if r.mon.next > t {
                    i += 1;
                    continue;
                }
                let Some(sample) = sms[sm].tb_sample(r.info.gid, t) else {
                    i += 1;
                    continue;
                };
                let polled = r.mon.poll(sample, r.warps, self.fp_per_cycle, &self.cfg);
                if let Some(m) = r.mon.last_period.take() {
                    self.report.tally_period(&m, &self.cfg);
                }
                let Some(levels) = polled else {
                    i += 1;
                    continue;
                };
                self.report.reports += 1;
                let info = r.info;
                let rose = self.policy.on_report(&info, levels);
                let before = r.est;
                // every resident TB's estimate may change (the profiler's are
                // per kernel)
                for r in &mut self.residents[sm] {
                    r.est = self.policy.estimate(&r.info, true);
                }
                self.recount(sm);
                let fell = self.residents[sm][i]
                    .est
                    .0
                    .iter()
                    .zip(before.0)
                    .any(|(a, b)| *a < b);
                if rose
                    && self.policy.preempts()
                    && self.cfg.preempt
                    && self.place.oversubscribed(sm)
                    && self.residents[sm].len() > 1
                {
                    if self.vq.is_full() {
                        self.report.vq_full += 1;
                    } else if sms[sm].preempt(info.gid, t) {
                        let r = self.residents[sm].remove(i);
                        self.preempted(r, t);
                        self.recount(sm);
                        dirty = true;
                        continue;
                    }
                }
                dirty |= fell;
                i += 1;
            }
        }
        self.next_poll = self
            .residents
            .iter()
            .flatten()
            .map(|r| r.mon.next)
            .min()
            .unwrap_or(u64::MAX);
        dirty
    }

    fn preempted(&mut self, mut r: Res, t: u64) {
        r.mon.pause(t);
        self.report.preemptions += 1;
        let v = Victim {
            res: r,
            cost: TbCost::default(),
            state: VState::Draining,
        };
        let pushed = self.vq.push(v);
        debug_assert!(pushed.is_ok(), "checked not full");
        self.report.vq_peak = self.report.vq_peak.max(self.vq.len());
    }

    /// Takes the drained preempted TBs of every SM and starts saving them.
    pub fn collect(&mut self, t: u64, sms: &mut [Sm]) {
        for (i, s) in sms.iter_mut().enumerate() {
            for saved in std::mem::take(&mut s.preempted) {
                let v = self
                    .vq
                    .iter_mut()
                    .find(|v| v.res.info.gid == saved.gid)
                    .expect("a preempted TB has a victim entry");
                let job = self
                    .mover
                    .start(i as u32, Dir::Save, saved.gid, v.res.bytes, t);
                v.cost = saved.cost;
                v.state = VState::Saving(job, Box::new(saved));
            }
        }
    }

    /// Moves context lines at `t`; a finished save makes its victim
    /// restorable (returns whether one did).
    pub fn pump<D: DramBackend>(
        &mut self,
        t: u64,
        mem: &mut MemorySystem<D>,
        sms: &mut [Sm],
    ) -> bool {
        let done = self.mover.pump(t, mem);
        for (sm, addr) in self.mover.installs.drain(..) {
            sms[sm as usize].install_line(addr);
        }
        for (job, _) in &done {
            for v in self.vq.iter_mut() {
                if matches!(v.state, VState::Saving(j, _) if j == *job) {
                    let VState::Saving(_, saved) =
                        std::mem::replace(&mut v.state, VState::Draining)
                    else {
                        unreachable!()
                    };
                    v.state = VState::Saved(saved);
                }
            }
        }
        !done.is_empty()
    }

    /// A context read of `addr` for SM `sm` returned at `t` (cacheable: the
    /// line goes into the SM's L1); when it was a restore's last line, the TB
    /// resumes on its SM.
    pub fn context_read_done(&mut self, sm: usize, token: u64, addr: u64, t: u64, sms: &mut [Sm]) {
        if self.cfg.context == super::ContextPath::Cacheable {
            sms[sm].install_line(addr);
        }
        let Some(job) = self.mover.complete(token, t) else {
            return;
        };
        let i = self
            .restoring
            .iter()
            .position(|(j, _, _)| *j == job)
            .expect("a finished restore is restoring");
        let (_, sm, v) = self.restoring.remove(i);
        let VState::Saved(saved) = v.state else {
            unreachable!("only saved victims are restored")
        };
        sms[sm as usize].restore(*saved, t);
        let mut r = v.res;
        r.mon.resume(
            sms[sm as usize]
                .tb_sample(r.info.gid, t)
                .unwrap_or_default(),
        );
        self.next_poll = self.next_poll.min(r.mon.next);
        r.est = self.policy.estimate(&r.info, true);
        self.residents[sm as usize].push(r);
        self.report.restores += 1;
        self.recount(sm as usize);
    }

    /// TB `e` exited: the policy learns its lifetime levels.
    pub fn on_exit(&mut self, e: &TbExit) {
        let sm = e.sm as usize;
        let Some(i) = self.residents[sm].iter().position(|r| r.info.gid == e.tb) else {
            return;
        };
        let r = self.residents[sm].remove(i);
        let end = e.mon.sample(e.time);
        self.report.throttle_cycles[0] += end.throttle_warp_cycles;
        self.report.throttle_cycles[1] += end.lsu_wait_cycles;
        let lm = r
            .mon
            .lifetime_metrics(end, r.warps, self.fp_per_cycle, &self.cfg);
        let l = lm.levels(&self.cfg);
        for (s, x) in self.report.exit_raw.iter_mut().zip(lm.as_array()) {
            *s += x;
        }
        self.policy.on_exit(&r.info, l);
        if let Some(rec) = self.records.get_mut(r.info.gid as usize) {
            rec.exited = Some(l);
        }
        self.report.exits += 1;
        let f = self.per_function.entry(r.info.function).or_default();
        for m in 0..METRICS {
            self.report.exit_levels[m] += l.0[m] as u64;
            f.0[m] += l.0[m] as u64;
        }
        f.1 += 1;
        self.recount(sm);
    }

    /// The whole-run mean levels per function (what the oracle of a later
    /// static run knows).
    pub fn function_levels(&self) -> HashMap<u32, Levels> {
        self.per_function
            .iter()
            .map(|(&f, &(sum, n))| {
                let n = n.max(1);
                (f, Levels(sum.map(|s| ((s + n / 2) / n) as u8)))
            })
            .collect()
    }

    /// Whether contexts are moving or victims wait.
    pub fn busy(&self) -> bool {
        self.mover.busy() || !self.vq.is_empty() || !self.restoring.is_empty()
    }

    /// The management's report.
    pub fn report(&self) -> ManageReport {
        let mut r = self.report.clone();
        let tr = self.mover.traffic;
        r.vq_peak = r.vq_peak.max(self.vq.peak);
        r.context_bytes = tr.bytes;
        r.save_cycles = tr.save_cycles as f64 / tr.saves.max(1) as f64;
        r.restore_cycles = tr.restore_cycles as f64 / tr.restores.max(1) as f64;
        r.rut = self.policy.table_stats();
        r
    }

    /// Every TB's estimate at dispatch and levels at exit, by global TB id.
    pub fn records(&self) -> &[TbRecord] {
        &self.records
    }

    /// The management running.
    pub fn mode(&self) -> TbManage {
        self.mode
    }
}
