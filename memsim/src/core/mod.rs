//! Trace-driven out-of-order core with private caches (the requester side).
//!
//! Each core replays its own record stream: a record is `gap` non-memory
//! instructions followed by one load or store (DESIGN.md trace format). Every cycle
//! the core first retires up to `width` instructions from the head of its reorder
//! buffer (an instruction retires once it is complete), then dispatches up to `width`
//! instructions while the ROB has room. Non-memory instructions complete one cycle
//! after dispatch. A load that hits the L1 completes after the L1 latency (after the
//! L2 latency too on a private-L2 machine); a miss takes an L1 MSHR (merging with an
//! outstanding miss to the same line) and goes to the [`crate::system::MemorySystem`];
//! the load completes when the data returns. Independent misses therefore overlap up
//! to the ROB and MSHR limits, and the core stalls once its oldest instruction is an
//! outstanding load and the ROB is full (dissertation §5.2: "n can be set considering
//! the size of the ROB"). A store completes at dispatch into the write buffer; a store
//! that misses holds a write-buffer entry (and an MSHR) until its line arrives, and a
//! full write buffer stalls dispatch. The core finishes when it retires its last
//! record.
//!
//! A barrier record (the runtime writes one per core where the program forks or
//! joins a parallel region) is a full fence: after its gap, the core dispatches
//! nothing more until its ROB is empty and its write buffer has drained; it has
//! then *arrived* ([`Core::at_barrier`]) and sleeps until the
//! [`crate::manycore::Manycore`] releases it, when every core has arrived at its
//! barrier of the same ordinal or finished its stream. Runahead (MLP Ideal) does
//! not look past a barrier. The barrier itself costs no instruction.
//!
//! The core is event-driven: [`Core::step`] simulates one cycle and returns the next
//! cycle at which it can make progress, or `None` when only a memory completion can
//! wake it; idle cycles cost nothing.
//!
//! MLP Ideal (`lookahead > 0`, see [`crate::oracle`]): every record whose access lies
//! within `lookahead` (= ROB entries) instructions of the oldest unretired instruction
//! is in the core's window; as soon as a record enters the window its private-cache
//! miss is sent (clustered issue, as if dispatch had no width limit), not when
//! dispatch reaches it. Nothing beyond the window is pre-executed; MSHRs still bound
//! the misses in flight.
//!
//! Simplifications: a store merged into an outstanding read miss writes the line when
//! it arrives even if the directory granted it shared (no second upgrade request);
//! the private L2 has no port contention; private caches are non-inclusive.

use crate::cache::{CacheArray, CacheGeometry, MshrFile};
use crate::noc::NodeId;
use crate::system::{Completion, CompletionKind, DramBackend, MemRequest, MemorySystem, ReqKind};
use serde::Serialize;
use std::collections::VecDeque;

mod cruise;
pub use cruise::set_cruise;

/// Kind of a memory record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum OpKind {
    /// Load.
    Read,
    /// Store.
    Write,
    /// Barrier across the cores (module docs); its address is ignored.
    Barrier,
}

/// One trace record as a core consumes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    /// Non-memory instructions before the access.
    pub gap: u32,
    /// Load or store.
    pub kind: OpKind,
    /// Byte address.
    pub addr: u64,
}

/// Private second-level cache of a core (the `table4.2` machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrivateL2 {
    /// Geometry.
    pub geom: CacheGeometry,
    /// Hit latency (core cycles), added after the L1 latency.
    pub latency: u64,
}

/// Parameters of a core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoreParams {
    /// Instructions dispatched and retired per cycle.
    pub width: u32,
    /// Reorder-buffer capacity in instructions.
    pub rob: u32,
    /// L1 geometry.
    pub l1: CacheGeometry,
    /// L1 hit latency (core cycles).
    pub l1_latency: u64,
    /// L1 MSHRs.
    pub l1_mshrs: u32,
    /// Targets per MSHR.
    pub mshr_targets: u32,
    /// Write-buffer entries (outstanding store misses).
    pub write_buffer: u32,
    /// Optional private L2.
    pub l2: Option<PrivateL2>,
    /// Directory coherence on (stores need write permission).
    pub coherence: bool,
    /// MLP Ideal runahead depth in records (0 = off).
    pub lookahead: u32,
}

/// Per-core counters.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct CoreStats {
    /// Cycle at which the last record retired.
    pub cycles: u64,
    /// Instructions retired (records plus their gaps).
    pub instructions: u64,
    /// Records retired.
    pub records: u64,
    /// Loads.
    pub loads: u64,
    /// Stores.
    pub stores: u64,
    /// L1 hits (loads and stores).
    pub l1_hits: u64,
    /// L1 misses (requests sent or merged).
    pub l1_misses: u64,
    /// Private L2 hits.
    pub l2_hits: u64,
    /// Write-backs sent to the memory side.
    pub writebacks: u64,
    /// Invalidations received.
    pub invalidations: u64,
    /// Requests sent early by MLP-Ideal runahead.
    pub runahead_requests: u64,
    /// Barriers passed.
    pub barriers: u64,
    /// Cycles spent at barriers, from arrival to release.
    pub barrier_wait_cycles: u64,
}

#[derive(Clone, Copy, Debug)]
struct RobEntry {
    n: u32,
    ready: u64,
    record: bool,
}

/// The reorder buffer's entries, oldest first: a ring of a power-of-two size at
/// least the ROB capacity (every entry holds at least one instruction, so there
/// are never more entries than instructions in flight).
#[derive(Clone, Debug)]
struct Rob {
    buf: Vec<RobEntry>,
    head: usize,
    len: usize,
    mask: usize,
}

impl Rob {
    fn new(capacity: u32) -> Self {
        let n = (capacity.max(1) as usize).next_power_of_two();
        Rob {
            buf: vec![
                RobEntry {
                    n: 0,
                    ready: 0,
                    record: false
                };
                n
            ],
            head: 0,
            len: 0,
            mask: n - 1,
        }
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    #[inline]
    fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    fn front(&self) -> Option<&RobEntry> {
        (self.len > 0).then(|| &self.buf[self.head])
    }
    #[inline]
    fn front_mut(&mut self) -> Option<&mut RobEntry> {
        (self.len > 0).then(|| &mut self.buf[self.head])
    }
    #[inline]
    fn back_mut(&mut self) -> Option<&mut RobEntry> {
        (self.len > 0).then(|| &mut self.buf[(self.head + self.len - 1) & self.mask])
    }
    #[inline]
    fn get_mut(&mut self, i: usize) -> Option<&mut RobEntry> {
        (i < self.len).then(|| &mut self.buf[(self.head + i) & self.mask])
    }
    #[inline]
    fn push_back(&mut self, e: RobEntry) {
        assert!(self.len < self.buf.len(), "reorder buffer overflow");
        self.buf[(self.head + self.len) & self.mask] = e;
        self.len += 1;
    }
    fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }
    fn iter(&self) -> impl Iterator<Item = &RobEntry> + '_ {
        (0..self.len).map(move |i| &self.buf[(self.head + i) & self.mask])
    }
    #[inline]
    fn pop_front(&mut self) {
        debug_assert!(self.len > 0);
        self.head = (self.head + 1) & self.mask;
        self.len -= 1;
    }
}

const PENDING: u64 = u64::MAX;
const STORE_TARGET: u32 = 1 << 31;
const SEQ_MASK: u32 = STORE_TARGET - 1;

/// Source of per-core records.
pub trait RecordSource {
    /// Next record of `core`, `Ok(None)` when its stream has ended.
    fn next_op(&mut self, core: u32) -> Result<Option<Op>, crate::manycore::SimError>;
}

/// A trace-driven core.
///
/// Layout: the state every [`Core::step`] reads comes first, so that a step
/// touches few cache lines of the core (cores are stepped in turn, and their
/// state is rarely still cached).
#[repr(C)]
pub struct Core {
    done: bool,
    exhausted: bool,
    rob_count: u32,
    head_seq: u32,
    gap_left: u32,
    wb_used: u32,
    l1_shift: u32,
    /// Arrived at a barrier: the cycle of arrival (module docs).
    arrived: Option<u64>,
    /// Cruising through a gap (`cruise.rs`): the state is that after the
    /// cruise's first cycle and is brought up to date at the next step.
    cruising: bool,
    rob: Rob,
    cur: Option<Op>,
    st: CoreStats,
    p: CoreParams,
    ahead: VecDeque<Op>,
    ra_pos: usize,
    /// Instructions (gaps plus accesses) of `ahead[..ra_pos]`.
    ra_instr: u64,
    l1: CacheArray,
    mshr: MshrFile,
    l2: Option<CacheArray>,
    id: u32,
    node: NodeId,
    llc_shift: u32,
    scratch: Vec<u32>,
    cruise: Option<Box<cruise::Cruise>>,
}

impl Core {
    /// Core `id` at mesh node `node`; `llc_line_bytes` sizes invalidations.
    pub fn new(id: u32, node: NodeId, p: CoreParams, llc_line_bytes: u32) -> Self {
        Core {
            id,
            node,
            l1: CacheArray::new(p.l1, 1),
            l2: p.l2.map(|l| CacheArray::new(l.geom, 1)),
            l1_shift: p.l1.line_shift(),
            llc_shift: llc_line_bytes.max(1).trailing_zeros(),
            mshr: MshrFile::new(p.l1_mshrs as usize, p.mshr_targets),
            rob: Rob::new(p.rob),
            rob_count: 0,
            head_seq: 0,
            gap_left: 0,
            cur: None,
            ahead: VecDeque::new(),
            ra_pos: 0,
            ra_instr: 0,
            exhausted: false,
            wb_used: 0,
            done: false,
            arrived: None,
            cruising: false,
            cruise: None,
            st: CoreStats::default(),
            scratch: Vec::new(),
            p,
        }
    }

    /// Core index.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Mesh node.
    pub fn node(&self) -> NodeId {
        self.node
    }

    /// Whether the core retired its last record.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The cycle at which the core arrived at the barrier it waits at, if any.
    pub fn at_barrier(&self) -> Option<u64> {
        self.arrived
    }

    /// The phase tag of the barrier the core waits at (the record's address
    /// field, [`crate::trace::BarrierPhase`]).
    pub fn barrier_tag(&self) -> Option<u64> {
        self.arrived?;
        self.cur.map(|op| op.addr)
    }

    /// Lets the core pass the barrier it arrived at; it goes on at cycle `t`.
    pub fn release_barrier(&mut self, t: u64) {
        if let Some(a) = self.arrived.take() {
            debug_assert!(matches!(self.cur, Some(op) if op.kind == OpKind::Barrier));
            self.cur = None;
            self.st.barriers += 1;
            self.st.barrier_wait_cycles += t.saturating_sub(a);
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> &CoreStats {
        &self.st
    }

    fn fetch(
        &mut self,
        src: &mut dyn RecordSource,
    ) -> Result<Option<Op>, crate::manycore::SimError> {
        if let Some(op) = self.ahead.pop_front() {
            if self.ra_pos > 0 {
                self.ra_pos -= 1;
                self.ra_instr -= u64::from(op.gap) + 1;
            }
            return Ok(Some(op));
        }
        if self.exhausted {
            return Ok(None);
        }
        let r = src.next_op(self.id)?;
        if r.is_none() {
            self.exhausted = true;
        }
        Ok(r)
    }

    #[inline]
    fn push_entry(&mut self, n: u32, ready: u64, record: bool) -> u32 {
        // Coalesce non-memory instructions that complete at the same cycle.
        if !record {
            if let Some(b) = self.rob.back_mut() {
                if !b.record && b.ready == ready {
                    b.n += n;
                    self.rob_count += n;
                    return self.head_seq.wrapping_add(self.rob.len() as u32 - 1) & SEQ_MASK;
                }
            }
        }
        self.rob.push_back(RobEntry { n, ready, record });
        self.rob_count += n;
        self.head_seq.wrapping_add(self.rob.len() as u32 - 1) & SEQ_MASK
    }

    /// Simulates cycle `t`; returns the next cycle with possible progress, or `None`
    /// when the core waits for a memory completion (or is done).
    pub fn step<D: DramBackend>(
        &mut self,
        t: u64,
        mem: &mut MemorySystem<D>,
        src: &mut dyn RecordSource,
    ) -> Result<Option<u64>, crate::manycore::SimError> {
        if self.done || self.arrived.is_some() {
            return Ok(None);
        }
        if self.cruising {
            self.end_cruise(t);
        }
        let w = self.p.width;
        let mut progressed = false;
        // Retire.
        let mut budget = w;
        while budget > 0 {
            let Some(front) = self.rob.front_mut() else {
                break;
            };
            if front.ready > t {
                break;
            }
            let k = budget.min(front.n);
            front.n -= k;
            budget -= k;
            self.rob_count -= k;
            self.st.instructions += k as u64;
            progressed = true;
            if front.n == 0 {
                if front.record {
                    self.st.records += 1;
                }
                self.rob.pop_front();
                self.head_seq = self.head_seq.wrapping_add(1) & SEQ_MASK;
            }
        }
        // Dispatch.
        let mut budget = w;
        let mut blocked = false;
        while budget > 0 && self.rob_count < self.p.rob {
            if self.gap_left > 0 {
                let k = self.gap_left.min(budget).min(self.p.rob - self.rob_count);
                self.push_entry(k, t + 1, false);
                self.gap_left -= k;
                budget -= k;
                progressed = true;
                continue;
            }
            let op = match self.cur {
                Some(op) => op,
                None => match self.fetch(src)? {
                    Some(op) => {
                        self.cur = Some(op);
                        self.gap_left = op.gap;
                        continue;
                    }
                    None => break,
                },
            };
            if op.kind == OpKind::Barrier {
                // A fence: wait until everything before it has completed.
                if self.rob.is_empty() && self.wb_used == 0 {
                    self.arrived = Some(t);
                    return Ok(None);
                }
                blocked = true;
                break;
            }
            if !self.execute(op, t, mem) {
                blocked = true;
                break;
            }
            self.cur = None;
            budget -= 1;
            progressed = true;
        }
        if self.rob.is_empty()
            && self.cur.is_none()
            && self.gap_left == 0
            && self.exhausted
            && self.ahead.is_empty()
        {
            self.done = true;
            self.st.cycles = t;
            return Ok(None);
        }
        if self.p.lookahead > 0 {
            self.runahead(t, mem, src)?;
        }
        if progressed {
            return Ok(Some(self.cruise(t)));
        }
        let _ = blocked;
        match self.rob.front() {
            Some(f) if f.ready != PENDING => Ok(Some(f.ready.max(t + 1))),
            _ => Ok(None),
        }
    }

    /// Executes a memory op at dispatch; false when a structural hazard stalls it.
    fn execute<D: DramBackend>(&mut self, op: Op, t: u64, mem: &mut MemorySystem<D>) -> bool {
        let line = op.addr >> self.l1_shift;
        let store = op.kind == OpKind::Write;
        if store && self.wb_used >= self.p.write_buffer {
            return false;
        }
        let l1_hit = self.l1.access(line);
        if let Some(slot) = l1_hit {
            // In the L1 the "prefetched" bit means "exclusive / writable".
            if !store || !self.p.coherence || self.l1.is_prefetched(slot) || self.l1.is_dirty(slot)
            {
                self.st.l1_hits += 1;
                if store {
                    self.l1.set_dirty(slot, true);
                    self.st.stores += 1;
                    self.push_entry(1, t + 1, true);
                } else {
                    self.st.loads += 1;
                    self.push_entry(1, t + self.p.l1_latency, true);
                }
                return true;
            }
        }
        // Private L2 (if any) for loads, and stores that have no permission issue.
        if l1_hit.is_none() {
            if let (Some(l2), Some(l2p)) = (self.l2.as_mut(), self.p.l2) {
                let l2line = op.addr >> l2p.geom.line_shift();
                if let Some(s2) = l2.access(l2line) {
                    let ok = !store || !self.p.coherence || l2.is_prefetched(s2) || l2.is_dirty(s2);
                    if ok {
                        self.st.l2_hits += 1;
                        if store {
                            l2.set_dirty(s2, true);
                        }
                        let ready = t + self.p.l1_latency + l2p.latency;
                        self.fill_l1(line, ready, store, true, mem);
                        if store {
                            self.st.stores += 1;
                            self.push_entry(1, t + 1, true);
                        } else {
                            self.st.loads += 1;
                            self.push_entry(1, ready, true);
                        }
                        return true;
                    }
                }
            }
        }
        // Miss (or upgrade): MSHR.
        let target_for = |seq: u32| if store { STORE_TARGET } else { seq };
        if let Some(id) = self.mshr.find(line) {
            if !self.mshr.can_add(id) {
                return false;
            }
            let ready = if store { t + 1 } else { PENDING };
            let seq = self.push_entry(1, ready, true);
            self.mshr.add_target(id, target_for(seq));
            self.count_miss(store);
            return true;
        }
        if self.mshr.is_full() {
            return false;
        }
        let kind = if store {
            ReqKind::ReadExclusive
        } else {
            ReqKind::Read
        };
        let issue_at = t + self.p.l1_latency + self.p.l2.map_or(0, |l| l.latency);
        let req = MemRequest {
            requester: self.id,
            addr: op.addr,
            kind,
            token: line,
        };
        if mem.issue(req, issue_at).is_err() {
            return false;
        }
        let id = self.mshr.allocate(line).expect("checked not full");
        let ready = if store { t + 1 } else { PENDING };
        let seq = self.push_entry(1, ready, true);
        self.mshr.add_target(id, target_for(seq));
        self.count_miss(store);
        true
    }

    fn count_miss(&mut self, store: bool) {
        self.st.l1_misses += 1;
        if store {
            self.st.stores += 1;
            self.wb_used += 1;
        } else {
            self.st.loads += 1;
        }
    }

    fn runahead<D: DramBackend>(
        &mut self,
        t: u64,
        mem: &mut MemorySystem<D>,
        src: &mut dyn RecordSource,
    ) -> Result<(), crate::manycore::SimError> {
        if matches!(self.cur, Some(op) if op.kind == OpKind::Barrier) {
            // The window ends at a barrier.
            return Ok(());
        }
        // Instructions before the first record not yet in `ahead[..ra_pos]`:
        // the ROB, the current record's remaining gap and its access.
        let base = u64::from(self.rob_count)
            + u64::from(self.gap_left)
            + u64::from(self.cur.is_some())
            + self.ra_instr;
        let window = u64::from(self.p.lookahead);
        let mut used = base;
        loop {
            if used >= window || self.mshr.is_full() {
                break;
            }
            if self.ra_pos >= self.ahead.len() {
                if self.exhausted {
                    break;
                }
                match src.next_op(self.id)? {
                    Some(op) => self.ahead.push_back(op),
                    None => {
                        self.exhausted = true;
                        break;
                    }
                }
            }
            let op = self.ahead[self.ra_pos];
            if op.kind == OpKind::Barrier || used + u64::from(op.gap) + 1 > window {
                break;
            }
            self.ra_pos += 1;
            used += u64::from(op.gap) + 1;
            self.ra_instr += u64::from(op.gap) + 1;
            let line = op.addr >> self.l1_shift;
            if self.l1.probe(line).is_some() || self.mshr.find(line).is_some() {
                continue;
            }
            if let (Some(l2), Some(l2p)) = (self.l2.as_ref(), self.p.l2) {
                if l2.probe(op.addr >> l2p.geom.line_shift()).is_some() {
                    continue;
                }
            }
            let kind = if op.kind == OpKind::Write {
                ReqKind::ReadExclusive
            } else {
                ReqKind::Read
            };
            let req = MemRequest {
                requester: self.id,
                addr: op.addr,
                kind,
                token: line,
            };
            if mem.issue(req, t + self.p.l1_latency).is_err() {
                self.ra_pos -= 1;
                self.ra_instr -= u64::from(op.gap) + 1;
                break;
            }
            self.mshr.allocate(line).expect("checked not full");
            self.st.runahead_requests += 1;
        }
        Ok(())
    }

    /// Inserts an L1 line (from the L2 or the memory side), writing back a dirty victim.
    fn fill_l1<D: DramBackend>(
        &mut self,
        line: u64,
        t: u64,
        dirty: bool,
        excl: bool,
        mem: &mut MemorySystem<D>,
    ) {
        let slot = match self.l1.probe(line) {
            Some(s) => s,
            None => {
                let (s, victim) = self.l1.insert(line);
                if let Some(v) = victim {
                    if v.dirty {
                        self.write_back_l1(v.line, t, mem);
                    }
                }
                s
            }
        };
        if dirty {
            self.l1.set_dirty(slot, true);
        }
        if excl {
            self.l1.set_prefetched(slot, true);
        }
    }

    /// Functional warming (sampled simulation, [`crate::sample`]): applies `op`
    /// to the private caches without timing or statistics. A miss of every
    /// private level, or a store without write permission, calls `memory(store)`
    /// (the memory side's warming), which returns whether the line is granted
    /// exclusive (the permission bit, as a completion sets it); returns whether
    /// it was called. Dirty lines leaving the core are pushed to `writebacks`.
    pub fn warm(
        &mut self,
        op: Op,
        writebacks: &mut Vec<u64>,
        memory: impl FnOnce(bool) -> bool,
    ) -> bool {
        let line = op.addr >> self.l1_shift;
        let store = op.kind == OpKind::Write;
        let coh = self.p.coherence;
        let mut memory = Some(memory);
        let mut called = false;
        let mut ask = |w: bool| {
            called = true;
            memory.take().is_some_and(|f| f(w))
        };
        if let Some(s) = self.l1.access(line) {
            if store {
                if coh && !self.l1.is_prefetched(s) && !self.l1.is_dirty(s) {
                    ask(true);
                }
                self.l1.set_dirty(s, true);
                self.l1.set_prefetched(s, true);
            }
            return called;
        }
        let mut excl = None;
        if let (Some(l2), Some(l2p)) = (self.l2.as_mut(), self.p.l2) {
            let sh = l2p.geom.line_shift();
            let l2line = op.addr >> sh;
            match l2.access(l2line) {
                Some(s2) => {
                    let ok = l2.is_prefetched(s2) || l2.is_dirty(s2);
                    if store && coh && !ok {
                        ask(true);
                        l2.set_prefetched(s2, true);
                    }
                    excl = Some(ok || store);
                }
                None => {
                    let e = ask(store);
                    let (s2, victim) = l2.insert(l2line);
                    l2.set_prefetched(s2, e);
                    if let Some(v) = victim.filter(|v| v.dirty) {
                        writebacks.push(v.line << sh);
                    }
                    excl = Some(e);
                }
            }
        }
        let e = match excl {
            Some(e) => e,
            None => ask(store),
        };
        let (s, victim) = self.l1.insert(line);
        if let Some(v) = victim.filter(|v| v.dirty) {
            let addr = v.line << self.l1_shift;
            match (self.l2.as_mut(), self.p.l2) {
                (Some(l2), Some(l2p)) => {
                    let sh = l2p.geom.line_shift();
                    let s2 = match l2.access(addr >> sh) {
                        Some(s2) => s2,
                        None => {
                            let (s2, v2) = l2.insert(addr >> sh);
                            if let Some(v2) = v2.filter(|v| v.dirty) {
                                writebacks.push(v2.line << sh);
                            }
                            s2
                        }
                    };
                    l2.set_dirty(s2, true);
                }
                _ => writebacks.push(addr),
            }
        }
        self.l1.set_prefetched(s, e || store || !coh);
        if store {
            self.l1.set_dirty(s, true);
        }
        called
    }

    fn write_back_l1<D: DramBackend>(&mut self, l1line: u64, t: u64, mem: &mut MemorySystem<D>) {
        let addr = l1line << self.l1_shift;
        if let (Some(l2), Some(l2p)) = (self.l2.as_mut(), self.p.l2) {
            let l2line = addr >> l2p.geom.line_shift();
            let slot = match l2.access(l2line) {
                Some(s) => s,
                None => {
                    let (s, victim) = l2.insert(l2line);
                    if let Some(v) = victim {
                        if v.dirty {
                            let vaddr = v.line << l2p.geom.line_shift();
                            self.send_writeback(vaddr, t, mem);
                        }
                    }
                    s
                }
            };
            self.l2.as_mut().expect("l2").set_dirty(slot, true);
        } else {
            self.send_writeback(addr, t, mem);
        }
    }

    fn send_writeback<D: DramBackend>(&mut self, addr: u64, t: u64, mem: &mut MemorySystem<D>) {
        self.st.writebacks += 1;
        let req = MemRequest {
            requester: self.id,
            addr,
            kind: ReqKind::Writeback,
            token: 0,
        };
        // Write-backs are never refused.
        let _ = mem.issue(req, t);
    }

    /// Applies a completion from the memory side; returns the cycle at which the core
    /// should run next because of it.
    pub fn complete<D: DramBackend>(&mut self, c: &Completion, mem: &mut MemorySystem<D>) -> u64 {
        match c.kind {
            CompletionKind::Invalidate { .. } => {
                // A dirty copy is written back whether the LLC recalls the line or
                // another requester takes it: the directory never assumes dirtiness.
                self.st.invalidations += 1;
                let base = (c.addr >> self.llc_shift) << self.llc_shift;
                let n = 1u64 << (self.llc_shift.saturating_sub(self.l1_shift));
                for i in 0..n {
                    let l = (base >> self.l1_shift) + i;
                    if self.l1.invalidate(l) == Some(true) {
                        self.send_writeback(l << self.l1_shift, c.time, mem);
                    }
                }
                if let (Some(l2), Some(l2p)) = (self.l2.as_mut(), self.p.l2) {
                    let s2 = l2p.geom.line_shift();
                    let n2 = 1u64 << (self.llc_shift.saturating_sub(s2));
                    let mut dirty = Vec::new();
                    for i in 0..n2 {
                        if l2.invalidate((base >> s2) + i) == Some(true) {
                            dirty.push(((base >> s2) + i) << s2);
                        }
                    }
                    for a in dirty {
                        self.send_writeback(a, c.time, mem);
                    }
                }
                c.time
            }
            CompletionKind::Data { exclusive } => {
                let line = c.token;
                let t = c.time;
                let mut targets = std::mem::take(&mut self.scratch);
                targets.clear();
                let mut wrote = false;
                if let Some(id) = self.mshr.find(line) {
                    self.mshr.release(id, &mut targets);
                }
                for &tg in &targets {
                    if tg & STORE_TARGET != 0 {
                        self.wb_used -= 1;
                        wrote = true;
                    } else {
                        let off = tg.wrapping_sub(self.head_seq) & SEQ_MASK;
                        if let Some(e) = self.rob.get_mut(off as usize) {
                            e.ready = t;
                        }
                    }
                }
                self.scratch = targets;
                if let (Some(l2), Some(l2p)) = (self.l2.as_mut(), self.p.l2) {
                    let l2line = c.addr >> l2p.geom.line_shift();
                    if l2.probe(l2line).is_none() {
                        let (s, victim) = l2.insert(l2line);
                        if exclusive {
                            l2.set_prefetched(s, true);
                        }
                        if let Some(v) = victim {
                            if v.dirty {
                                let vaddr = v.line << l2p.geom.line_shift();
                                self.send_writeback(vaddr, t, mem);
                            }
                        }
                    }
                }
                self.fill_l1(line, t, wrote, exclusive || wrote, mem);
                t
            }
        }
    }
}

#[cfg(test)]
mod tests;
