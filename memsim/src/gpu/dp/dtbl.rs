//! DTBL: aggregated groups coalesced into resident kernels (DTBL §4, digest §1.1
//! "New state" and "Algorithm", §1.7, §8.6 item 1).
//!
//! Models the kernel-distributor extension (NAGEI, LAGEI, ExeBL per entry), the
//! FCFS controller's "marked" and "first time marked" bits, and the aggregated
//! group table (AGT): `agt_entries` on-chip entries indexed by a one-cycle hash of
//! the launching hardware thread (`hw_tid & (entries - 1)`), with entries that
//! collide stored in global memory (the overflow; loading one costs a global
//! access when the group is scheduled). An aggregated group (AG) of a launch
//! coalesces into the first distributor entry with the same shape (function,
//! block, shared memory, registers: the eligibility key); with none the caller
//! launches it as a CDP kernel. The dispatcher takes a kernel's native TBs first
//! (only while its first-time bit is set), then its AGs along the NAGEI -> Next
//! chain; when nothing is left to distribute the kernel is unmarked and its
//! first-time bit cleared, so an AG arriving later re-marks it and only the AG's
//! TBs run (scenario 1), while an AG arriving during distribution is picked up
//! through NAGEI or Next (scenario 2). Invariants: a marked kernel has TBs left to
//! distribute; an AG entry is freed when all its TBs were dispatched and finished;
//! a distributor entry when it is unmarked and no TB of it executes.
//!
//! An overflowed entry is read from global memory when its group comes up for
//! scheduling (digest §1.1 "an AGT miss adds a global-memory access when the AG
//! is scheduled", §1.7): while the group at a kernel's NAGEI is an unloaded
//! global entry the kernel is [`Dtbl::blocked`]; the front end issues the read
//! ([`spill_addr`], [`AGT_TOKEN`]) through L2 and DRAM and [`Dtbl::set_loaded`]
//! unblocks it when the line returns.

/// Marks the completion token of an AGT spill read (bit 61: below the context
/// reads' bit 62, above every L1 MSHR id).
pub const AGT_TOKEN: u64 = 1 << 61;

/// Base of the global-memory AGT overflow area (apart from data, local memory and
/// the context save areas).
pub const AGT_SPILL_BASE: u64 = 0x9000_0000_0000;

/// Address of global overflow entry `i` of `entry_bytes` bytes (PC, Dim, Param,
/// Next; digest §1.1: 20 B, `[gpu.device_launch] agt_entry_bytes`).
pub fn spill_addr(i: u32, entry_bytes: u64) -> u64 {
    AGT_SPILL_BASE + i as u64 * entry_bytes
}

/// Whether a completion token belongs to an AGT spill read.
pub fn is_agt_token(token: u64) -> bool {
    token != u64::MAX && token & (AGT_TOKEN | (1 << 62)) == AGT_TOKEN
}

use std::collections::VecDeque;

/// The eligibility key of a kernel or group (digest §1.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KernelShape {
    /// Function (entry PC).
    pub function: u32,
    /// Thread-block dimensions.
    pub block: [u32; 3],
    /// Shared memory per TB, bytes.
    pub smem: u32,
    /// Registers per thread.
    pub regs: u32,
}

/// Where an aggregated-group entry lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgeRef {
    /// On-chip AGT slot.
    OnChip(u32),
    /// Global-memory overflow slot.
    Global(u32),
}

#[derive(Debug, Clone)]
struct Age {
    /// Caller's id of the group (e.g. its launch id).
    group: u64,
    tbs: u64,
    next_bl: u64,
    exebl: u64,
    next: Option<AgeRef>,
    /// The entry is on the chip (on-chip entries always; overflowed ones once read).
    loaded: bool,
}

#[derive(Debug, Clone)]
struct Kde {
    kernel: u32,
    shape: KernelShape,
    native_tbs: u64,
    native_next: u64,
    exebl: u64,
    nagei: Option<AgeRef>,
    lagei: Option<AgeRef>,
    marked: bool,
    first_time: bool,
}

/// What one dispatched TB belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TbUnit {
    /// A native TB of the kernel.
    Native,
    /// A TB of an aggregated group.
    Group {
        /// Entry of the group.
        entry: AgeRef,
        /// Caller's id of the group.
        group: u64,
    },
}

/// A dispatched TB (the TBCR: KDEI, AGEI, BLKID).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DtblTb {
    /// Kernel instance.
    pub kernel: u32,
    /// Native or group.
    pub unit: TbUnit,
    /// TB index within its unit.
    pub blkid: u64,
    /// The group's entry is read from global memory first (an overflowed entry,
    /// at the group's first TB).
    pub loads_entry: bool,
}

/// Counters of the AG path (digest §8.4 "DP").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DtblCounters {
    /// Groups that found an eligible kernel.
    pub matched: u64,
    /// Groups with no eligible kernel (the caller falls back to CDP).
    pub unmatched: u64,
    /// Matched groups whose entry overflowed to global memory.
    pub overflow: u64,
    /// Times a kernel was re-marked by a group after being unmarked.
    pub remarked: u64,
}

impl DtblCounters {
    /// Matched groups / all groups (1 when none was launched).
    pub fn match_rate(&self) -> f64 {
        let all = self.matched + self.unmatched;
        if all == 0 {
            1.0
        } else {
            self.matched as f64 / all as f64
        }
    }
}

/// Kernel distributor entries, FCFS controller and AGT of DTBL.
#[derive(Debug, Clone)]
pub struct Dtbl {
    agt: Vec<Option<Age>>,
    global: Vec<Option<Age>>,
    global_free: Vec<u32>,
    kdes: Vec<Kde>,
    fcfs: VecDeque<u32>,
    /// Counters.
    pub counters: DtblCounters,
}

impl Dtbl {
    /// An empty distributor with an AGT of `agt_entries` (a power of two).
    pub fn new(agt_entries: u32) -> Self {
        assert!(
            agt_entries.is_power_of_two(),
            "AGT size must be a power of two"
        );
        Dtbl {
            agt: vec![None; agt_entries as usize],
            global: Vec::new(),
            global_free: Vec::new(),
            kdes: Vec::new(),
            fcfs: VecDeque::new(),
            counters: DtblCounters::default(),
        }
    }

    /// The one-cycle AGT hash of a hardware thread slot.
    pub fn hash(&self, hw_tid: u32) -> u32 {
        hw_tid & (self.agt.len() as u32 - 1)
    }

    /// A kernel enters the distributor with `native_tbs` TBs: marked, first time.
    pub fn add_kernel(&mut self, kernel: u32, shape: KernelShape, native_tbs: u64) {
        self.kdes.push(Kde {
            kernel,
            shape,
            native_tbs,
            native_next: 0,
            exebl: 0,
            nagei: None,
            lagei: None,
            marked: native_tbs > 0,
            first_time: native_tbs > 0,
        });
        if native_tbs > 0 {
            self.fcfs.push_back(kernel);
        }
    }

    /// Kernels in the distributor.
    pub fn resident(&self) -> usize {
        self.kdes.len()
    }

    /// Searches the distributor for an eligible kernel: the first entry with the
    /// shape, and the number of entries examined (one cycle each, pipelined).
    pub fn search(&self, shape: &KernelShape) -> (Option<u32>, u64) {
        match self.kdes.iter().position(|k| k.shape == *shape) {
            Some(i) => (Some(self.kdes[i].kernel), i as u64 + 1),
            None => (None, self.kdes.len() as u64),
        }
    }

    /// Records a group with no eligible kernel (the caller launches it by CDP).
    pub fn note_unmatched(&mut self) {
        self.counters.unmatched += 1;
    }

    fn kde_mut(&mut self, kernel: u32) -> &mut Kde {
        self.kdes
            .iter_mut()
            .find(|k| k.kernel == kernel)
            .expect("kernel in the distributor")
    }

    fn entry(&self, r: AgeRef) -> &Age {
        match r {
            AgeRef::OnChip(i) => self.agt[i as usize].as_ref(),
            AgeRef::Global(i) => self.global[i as usize].as_ref(),
        }
        .expect("live AG entry")
    }

    fn entry_mut(&mut self, r: AgeRef) -> &mut Age {
        match r {
            AgeRef::OnChip(i) => self.agt[i as usize].as_mut(),
            AgeRef::Global(i) => self.global[i as usize].as_mut(),
        }
        .expect("live AG entry")
    }

    /// Coalesces group `group` of `tbs` TBs, launched by hardware thread `hw_tid`,
    /// into `kernel` (found by [`Self::search`]). Returns where its entry lives.
    pub fn coalesce(&mut self, kernel: u32, group: u64, tbs: u64, hw_tid: u32) -> AgeRef {
        assert!(tbs > 0, "an aggregated group has TBs");
        let mut age = Age {
            group,
            tbs,
            next_bl: 0,
            exebl: 0,
            next: None,
            loaded: false,
        };
        let idx = self.hash(hw_tid);
        let r = if self.agt[idx as usize].is_none() {
            age.loaded = true;
            self.agt[idx as usize] = Some(age);
            AgeRef::OnChip(idx)
        } else {
            self.counters.overflow += 1;
            match self.global_free.pop() {
                Some(i) => {
                    self.global[i as usize] = Some(age);
                    AgeRef::Global(i)
                }
                None => {
                    self.global.push(Some(age));
                    AgeRef::Global(self.global.len() as u32 - 1)
                }
            }
        };
        self.counters.matched += 1;
        let k = self.kde_mut(kernel);
        let last = k.lagei.replace(r);
        let was_marked = k.marked;
        if !k.marked {
            k.nagei = Some(r);
            k.marked = true;
        } else if k.nagei.is_none() {
            k.nagei = Some(r);
        }
        if let Some(l) = last {
            self.entry_mut(l).next = Some(r);
        }
        if !was_marked {
            self.counters.remarked += 1;
            self.fcfs.push_back(kernel);
        }
        r
    }

    /// Marked kernels in FCFS order (each has a TB to distribute).
    pub fn marked(&self) -> impl Iterator<Item = u32> + '_ {
        self.fcfs.iter().copied()
    }

    /// The overflowed entry that marked kernel `kernel` must read before it can
    /// distribute again: its NAGEI group, past the native TBs, when unloaded.
    pub fn pending_load(&self, kernel: u32) -> Option<AgeRef> {
        let k = self.kdes.iter().find(|k| k.kernel == kernel)?;
        if !k.marked || (k.first_time && k.native_next < k.native_tbs) {
            return None;
        }
        let r = k.nagei?;
        (!self.entry(r).loaded).then_some(r)
    }

    /// Up to `n` overflowed, unloaded entries from `r` on along the Next chain
    /// (`r` first when it is one): what a blocked kernel reads at once with
    /// `agt_prefetch = n`.
    pub fn unloaded_from(&self, r: AgeRef, n: u32) -> Vec<u32> {
        let mut out = Vec::new();
        let mut at = Some(r);
        while let Some(x) = at {
            if out.len() >= n as usize {
                break;
            }
            let e = self.entry(x);
            if let AgeRef::Global(i) = x {
                if !e.loaded {
                    out.push(i);
                }
            }
            at = e.next;
        }
        out
    }

    /// Kernel `kernel` waits for an overflowed entry (see [`Self::pending_load`]).
    pub fn blocked(&self, kernel: u32) -> bool {
        self.pending_load(kernel).is_some()
    }

    /// The read of overflowed entry `r` returned: its group can be scheduled.
    pub fn set_loaded(&mut self, r: AgeRef) {
        self.entry_mut(r).loaded = true;
    }

    /// The caller's id of the group in entry `r` (a live entry).
    pub fn entry_group(&self, r: AgeRef) -> u64 {
        self.entry(r).group
    }

    /// Distributes the next TB of marked kernel `kernel` (the SMX scheduler; the
    /// caller checked that an SM has room for the kernel's shape).
    pub fn take(&mut self, kernel: u32) -> DtblTb {
        let ki = self
            .kdes
            .iter()
            .position(|k| k.kernel == kernel)
            .expect("kernel in the distributor");
        let k = &mut self.kdes[ki];
        assert!(k.marked, "only marked kernels distribute TBs");
        k.exebl += 1;
        let tb = if k.first_time && k.native_next < k.native_tbs {
            let blkid = k.native_next;
            k.native_next += 1;
            DtblTb {
                kernel,
                unit: TbUnit::Native,
                blkid,
                loads_entry: false,
            }
        } else {
            let r = k
                .nagei
                .expect("a marked kernel past its native TBs has a NAGEI");
            let e = self.entry_mut(r);
            debug_assert!(e.loaded, "a blocked kernel distributes nothing");
            let blkid = e.next_bl;
            e.next_bl += 1;
            e.exebl += 1;
            let group = e.group;
            let exhausted = e.next_bl == e.tbs;
            let next = e.next;
            if exhausted {
                self.kdes[ki].nagei = next;
            }
            DtblTb {
                kernel,
                unit: TbUnit::Group { entry: r, group },
                blkid,
                loads_entry: blkid == 0 && matches!(r, AgeRef::Global(_)),
            }
        };
        let k = &mut self.kdes[ki];
        let native_left = k.first_time && k.native_next < k.native_tbs;
        if !native_left && k.nagei.is_none() {
            k.marked = false;
            k.first_time = false;
            self.fcfs.retain(|&x| x != kernel);
        }
        tb
    }

    /// The units of marked kernel `kernel` with TBs left, in distribution order:
    /// its native TBs (`None`, while the first-time bit is set) and its groups
    /// along NAGEI -> Next whose entry is on the chip, each with (TBs left, TBs).
    pub fn units(&self, kernel: u32) -> Vec<(Option<u64>, u64, u64)> {
        let Some(k) = self.kdes.iter().find(|k| k.kernel == kernel) else {
            return Vec::new();
        };
        let mut v = Vec::new();
        if k.first_time && k.native_next < k.native_tbs {
            v.push((None, k.native_tbs - k.native_next, k.native_tbs));
        }
        let mut cur = k.nagei;
        while let Some(r) = cur {
            let e = self.entry(r);
            if e.next_bl < e.tbs && e.loaded {
                v.push((Some(e.group), e.tbs - e.next_bl, e.tbs));
            }
            cur = e.next;
        }
        v
    }

    /// Distributes the next TB of one unit of marked kernel `kernel`: a native TB
    /// (`None`) or a TB of group `group`, out of the FCFS order (the locality-aware
    /// dispatchers pick the unit). An exhausted group leaves the NAGEI chain.
    pub fn take_unit(&mut self, kernel: u32, group: Option<u64>) -> DtblTb {
        let ki = self
            .kdes
            .iter()
            .position(|k| k.kernel == kernel)
            .expect("kernel in the distributor");
        let Some(g) = group else {
            let k = &self.kdes[ki];
            assert!(
                k.first_time && k.native_next < k.native_tbs,
                "native TBs left"
            );
            return self.take(kernel);
        };
        let (mut prev, mut cur) = (None, self.kdes[ki].nagei);
        while let Some(r) = cur {
            if self.entry(r).group == g {
                break;
            }
            prev = Some(r);
            cur = self.entry(r).next;
        }
        let r = cur.expect("group queued on the kernel");
        self.kdes[ki].exebl += 1;
        let e = self.entry_mut(r);
        let blkid = e.next_bl;
        e.next_bl += 1;
        e.exebl += 1;
        let (exhausted, next) = (e.next_bl == e.tbs, e.next);
        if exhausted {
            match prev {
                None => self.kdes[ki].nagei = next,
                Some(p) => {
                    self.entry_mut(p).next = next;
                    if self.kdes[ki].lagei == Some(r) {
                        self.kdes[ki].lagei = Some(p);
                    }
                }
            }
        }
        let k = &mut self.kdes[ki];
        let native_left = k.first_time && k.native_next < k.native_tbs;
        if !native_left && k.nagei.is_none() {
            k.marked = false;
            k.first_time = false;
            self.fcfs.retain(|&x| x != kernel);
        }
        DtblTb {
            kernel,
            unit: TbUnit::Group { entry: r, group: g },
            blkid,
            loads_entry: blkid == 0 && matches!(r, AgeRef::Global(_)),
        }
    }

    /// A dispatched TB finished. Returns whether its kernel left the distributor.
    pub fn tb_finish(&mut self, tb: DtblTb) -> bool {
        if let TbUnit::Group { entry, .. } = tb.unit {
            let e = self.entry_mut(entry);
            e.exebl -= 1;
            if e.exebl == 0 && e.next_bl == e.tbs {
                match entry {
                    AgeRef::OnChip(i) => self.agt[i as usize] = None,
                    AgeRef::Global(i) => {
                        self.global[i as usize] = None;
                        self.global_free.push(i);
                    }
                }
                let k = self.kde_mut(tb.kernel);
                if k.lagei == Some(entry) {
                    k.lagei = None;
                }
            }
        }
        let ki = self
            .kdes
            .iter()
            .position(|k| k.kernel == tb.kernel)
            .expect("kernel in the distributor");
        let k = &mut self.kdes[ki];
        k.exebl -= 1;
        if k.exebl == 0 && !k.marked {
            self.kdes.remove(ki);
            return true;
        }
        false
    }

    /// TBs of a group entry (for the caller's ctaid of a group TB).
    pub fn group_tbs(&self, r: AgeRef) -> u64 {
        self.entry(r).tbs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPE: KernelShape = KernelShape {
        function: 7,
        block: [32, 1, 1],
        smem: 0,
        regs: 16,
    };

    #[test]
    fn agt_hash_1500_is_476() {
        assert_eq!(Dtbl::new(1024).hash(1500), 476);
        assert_eq!(Dtbl::new(512).hash(1500), 476);
        assert_eq!(Dtbl::new(256).hash(1500), 220);
    }

    #[test]
    fn collision_overflows_to_global_and_slot_is_reused() {
        let mut d = Dtbl::new(1024);
        d.add_kernel(0, SHAPE, 0);
        assert_eq!(d.coalesce(0, 10, 1, 5), AgeRef::OnChip(5));
        assert_eq!(d.coalesce(0, 11, 1, 1029), AgeRef::Global(0));
        assert_eq!(d.counters.overflow, 1);
        let a = d.take(0);
        assert!(!a.loads_entry);
        assert!(d.blocked(0));
        d.set_loaded(AgeRef::Global(0));
        let b = d.take(0);
        assert_eq!(
            b.unit,
            TbUnit::Group {
                entry: AgeRef::Global(0),
                group: 11
            }
        );
        assert!(b.loads_entry, "an overflowed entry is read from memory");
        assert_eq!(spill_addr(3, 20), AGT_SPILL_BASE + 60);
        assert!(is_agt_token(AGT_TOKEN | 3) && !is_agt_token(7) && !is_agt_token(u64::MAX));
        assert!(!d.tb_finish(a));
        // Slot 5 is free again: the next group lands on chip.
        d.add_kernel(1, SHAPE, 4);
        assert_eq!(d.coalesce(0, 12, 1, 5), AgeRef::OnChip(5));
        assert_eq!(d.counters.overflow, 1);
        assert!(!d.tb_finish(b));
    }

    /// An overflowed group blocks its kernel until the entry is read; an on-chip
    /// one never does.
    #[test]
    fn overflowed_group_waits_for_its_entry() {
        let mut d = Dtbl::new(1024);
        d.add_kernel(0, SHAPE, 1);
        d.coalesce(0, 10, 2, 5);
        d.coalesce(0, 11, 1, 1029); // collides with slot 5: global entry 0
        assert_eq!(d.pending_load(0), None, "native TBs first");
        let n = d.take(0);
        assert_eq!(n.unit, TbUnit::Native);
        assert!(!d.blocked(0), "the on-chip group is next");
        let a = d.take(0);
        assert_eq!(d.units(0), vec![(Some(10), 1, 2)], "unloaded entry hidden");
        let b = d.take(0);
        assert_eq!((a.blkid, b.blkid), (0, 1));
        assert_eq!(d.pending_load(0), Some(AgeRef::Global(0)));
        assert!(d.blocked(0));
        assert_eq!(d.entry_group(AgeRef::Global(0)), 11);
        d.set_loaded(AgeRef::Global(0));
        assert!(!d.blocked(0));
        assert_eq!(d.units(0), vec![(Some(11), 1, 1)]);
        let c = d.take(0);
        assert!(c.loads_entry);
        assert_eq!(d.marked().count(), 0);
        let left: u32 = [n, a, b, c]
            .into_iter()
            .map(|t| d.tb_finish(t) as u32)
            .sum();
        assert_eq!(left, 1);
    }

    /// The entries a blocked kernel reads ahead (`agt_prefetch`): the overflowed,
    /// unloaded ones along the Next chain from its NAGEI group, on-chip and loaded
    /// ones skipped, at most `n`.
    #[test]
    fn unloaded_entries_along_the_chain() {
        let mut d = Dtbl::new(1024);
        d.add_kernel(0, SHAPE, 0);
        d.coalesce(0, 10, 1, 5); // on chip, slot 5
        let g: Vec<AgeRef> = (11..16).map(|grp| d.coalesce(0, grp, 1, 1029)).collect();
        assert_eq!(g, (0..5).map(AgeRef::Global).collect::<Vec<_>>());
        d.take(0); // the on-chip group
        assert_eq!(d.pending_load(0), Some(AgeRef::Global(0)));
        assert_eq!(d.unloaded_from(AgeRef::Global(0), 1), vec![0]);
        assert_eq!(d.unloaded_from(AgeRef::Global(0), 3), vec![0, 1, 2]);
        d.set_loaded(AgeRef::Global(2));
        assert_eq!(d.unloaded_from(AgeRef::Global(0), 3), vec![0, 1, 3]);
        assert_eq!(d.unloaded_from(AgeRef::Global(0), 9), vec![0, 1, 3, 4]);
    }

    #[test]
    fn remarked_kernel_runs_only_the_group() {
        let mut d = Dtbl::new(1024);
        d.add_kernel(3, SHAPE, 2);
        let t0 = d.take(3);
        let t1 = d.take(3);
        assert_eq!((t0.unit, t0.blkid, t1.blkid), (TbUnit::Native, 0, 1));
        // All native TBs distributed: unmarked, first-time bit cleared.
        assert_eq!(d.marked().count(), 0);
        // An AG arrives while the native TBs still run: the kernel is re-marked.
        d.coalesce(3, 99, 3, 40);
        assert_eq!(d.counters.remarked, 1);
        assert_eq!(d.marked().collect::<Vec<_>>(), vec![3]);
        let g: Vec<DtblTb> = (0..3).map(|_| d.take(3)).collect();
        for (i, tb) in g.iter().enumerate() {
            assert!(matches!(tb.unit, TbUnit::Group { group: 99, .. }));
            assert_eq!(tb.blkid, i as u64);
        }
        assert_eq!(d.marked().count(), 0);
        for tb in [t0, t1, g[0], g[1]] {
            assert!(!d.tb_finish(tb));
        }
        assert!(d.tb_finish(g[2]), "the kernel completes with its last TB");
        assert_eq!(d.resident(), 0);
        // Released: a later group finds no eligible kernel (CDP fallback).
        assert_eq!(d.search(&SHAPE), (None, 0));
    }

    #[test]
    fn group_during_native_distribution_follows_natives_in_order() {
        let mut d = Dtbl::new(1024);
        d.add_kernel(0, SHAPE, 2);
        assert_eq!(d.take(0).unit, TbUnit::Native);
        d.coalesce(0, 1, 1, 0); // scenario 2: NAGEI was none
        d.coalesce(0, 2, 2, 1); // linked through LAGEI.next
        assert_eq!(d.counters.remarked, 0);
        let rest: Vec<(TbUnit, u64)> = (0..4)
            .map(|_| d.take(0))
            .map(|t| (t.unit, t.blkid))
            .collect();
        assert_eq!(rest[0], (TbUnit::Native, 1));
        assert!(matches!(rest[1].0, TbUnit::Group { group: 1, .. }));
        assert!(matches!(rest[2].0, TbUnit::Group { group: 2, .. }));
        assert_eq!((rest[2].1, rest[3].1), (0, 1));
        assert_eq!(d.marked().count(), 0);
    }

    #[test]
    fn take_unit_picks_a_group_out_of_order_and_keeps_the_chain() {
        let mut d = Dtbl::new(1024);
        d.add_kernel(0, SHAPE, 1);
        d.coalesce(0, 1, 1, 0);
        d.coalesce(0, 2, 2, 1);
        d.coalesce(0, 3, 1, 2);
        assert_eq!(
            d.units(0),
            vec![
                (None, 1, 1),
                (Some(1), 1, 1),
                (Some(2), 2, 2),
                (Some(3), 1, 1)
            ]
        );
        // group 3 (the LAGEI) first: exhausted, unlinked, LAGEI moves back
        let a = d.take_unit(0, Some(3));
        assert!(matches!(a.unit, TbUnit::Group { group: 3, .. }));
        let b = d.take_unit(0, Some(2));
        assert_eq!(b.blkid, 0);
        // a group arriving now links after group 2, still reachable
        d.coalesce(0, 4, 1, 3);
        assert_eq!(
            d.units(0),
            vec![
                (None, 1, 1),
                (Some(1), 1, 1),
                (Some(2), 1, 2),
                (Some(4), 1, 1)
            ]
        );
        let rest: Vec<DtblTb> = [None, Some(4), Some(1), Some(2)]
            .into_iter()
            .map(|g| d.take_unit(0, g))
            .collect();
        assert_eq!(rest[0].unit, TbUnit::Native);
        assert_eq!(rest[3].blkid, 1);
        assert_eq!(d.marked().count(), 0, "nothing left: unmarked");
        let mut left = 0;
        for tb in [a, b].into_iter().chain(rest) {
            left += d.tb_finish(tb) as u32;
        }
        assert_eq!(left, 1, "the kernel leaves with its last TB");
    }

    #[test]
    fn search_finds_first_eligible_and_counts_entries() {
        let mut d = Dtbl::new(1024);
        let other = KernelShape {
            block: [64, 1, 1],
            ..SHAPE
        };
        d.add_kernel(0, other, 1);
        d.add_kernel(1, SHAPE, 1);
        d.add_kernel(2, SHAPE, 1);
        assert_eq!(d.search(&SHAPE), (Some(1), 2));
        let none = KernelShape {
            function: 8,
            ..SHAPE
        };
        assert_eq!(d.search(&none), (None, 3));
        d.note_unmatched();
        d.add_kernel(5, SHAPE, 0);
        d.coalesce(1, 0, 1, 0);
        assert!((d.counters.match_rate() - 0.5).abs() < 1e-12);
    }
}
