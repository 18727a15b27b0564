//! Warp context: program counter on the flat code, SIMT reconvergence stack,
//! per-lane variable slots, scoreboard, barrier state and age (digest §8.1,
//! "Warp context").
//!
//! The reconvergence stack holds `(pc, mask, rpc)` entries; the top one runs. A
//! divergent `if` turns the top into the reconvergence entry (at the `if`'s end)
//! and pushes the else path and then the then path (then runs first); a loop
//! pushes one entry at entry, from which lanes drop when their trip count ends.
//! An entry whose pc reaches its rpc is popped, so the lanes meet again in the
//! entry below. `exit` clears lanes from every entry. Invariant: the masks of the
//! entries are subsets of the entries below them, and no entry's mask is empty
//! after [`Warp::normalize`].
//!
//! Scoreboard: a load with a destination marks its slot pending until the data
//! returns (or until the hit latency has passed); an instruction that reads a
//! pending slot cannot issue. Values are written at issue (the timing model needs
//! only the addresses and trip counts they produce).

use super::workload::{Builtin, LaneEnv, Var};

/// A reconvergence-stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Next instruction.
    pub pc: u32,
    /// Active lanes.
    pub mask: u32,
    /// Reconvergence pc (u32::MAX for the bottom entry).
    pub rpc: u32,
}

/// A scoreboard slot waiting for data that has not returned.
pub const PENDING: u64 = u64::MAX;

/// An outstanding load (its transactions still out).
#[derive(Clone, Copy, Debug, Default)]
pub struct Load {
    /// Destination slot, if any.
    pub var: Option<u16>,
    /// Transactions not yet returned.
    pub left: u32,
    /// Latest data time among those returned.
    pub done: u64,
}

/// Geometry of the TB a warp belongs to (for the builtins).
#[derive(Clone, Copy, Debug, Default)]
pub struct TbGeo {
    /// Block dimensions.
    pub block: [u32; 3],
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// This TB's index (x, y, z).
    pub ctaid: [u32; 3],
}

impl TbGeo {
    /// Threads per block.
    pub fn threads(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }
    /// Linear block id.
    pub fn linear_ctaid(&self) -> u64 {
        self.ctaid[0] as u64
            + self.grid[0] as u64
                * (self.ctaid[1] as u64 + self.grid[1] as u64 * self.ctaid[2] as u64)
    }
}

/// One warp.
#[derive(Clone, Debug)]
pub struct Warp {
    /// Global warp id (unique over the run).
    pub gid: u32,
    /// Age: launch order (smaller = older).
    pub age: u64,
    /// TB slot on the SM.
    pub tb: u32,
    /// Warp index inside the TB.
    pub warp_in_tb: u32,
    /// Reconvergence stack.
    pub stack: Vec<Entry>,
    /// Per-lane slots, `slot * 32 + lane`.
    pub vars: Vec<i64>,
    /// Earliest cycle the next instruction may issue.
    pub ready_at: u64,
    /// Scoreboard: (slot, data time or [`PENDING`]).
    pub sb: Vec<(u16, u64)>,
    /// Outstanding loads by id.
    pub loads: Vec<Load>,
    /// Free load ids.
    pub loads_free: Vec<u32>,
    /// Loads outstanding.
    pub outstanding: u32,
    /// Instructions left of the current `Unit` op (0: none in progress).
    pub unit_left: u32,
    /// Ready time of each independent chain of the current `Unit` op.
    pub chains: [u64; 8],
    /// Waiting at a TB barrier.
    pub at_bar: bool,
    /// Blocked until one of its loads returns (`Stall::Memory`; the SM's issue
    /// gate of the warp says the same, see `smcore`).
    pub blocked: Option<super::smcore::Stall>,
    /// All lanes exited.
    pub finished: bool,
    /// Warp instructions issued.
    pub issued: u64,
}

impl Warp {
    /// A warp of `lanes` threads (mask of the first `lanes` lanes) with `slots` slots.
    pub fn new(
        gid: u32,
        age: u64,
        tb: u32,
        warp_in_tb: u32,
        lanes: u32,
        slots: usize,
        now: u64,
    ) -> Self {
        let mask = if lanes >= 32 {
            u32::MAX
        } else {
            (1u32 << lanes) - 1
        };
        Warp {
            gid,
            age,
            tb,
            warp_in_tb,
            stack: vec![Entry {
                pc: 0,
                mask,
                rpc: u32::MAX,
            }],
            vars: vec![0; slots * 32],
            ready_at: now,
            sb: Vec::new(),
            loads: Vec::new(),
            loads_free: Vec::new(),
            outstanding: 0,
            unit_left: 0,
            chains: [0; 8],
            at_bar: false,
            blocked: None,
            finished: false,
            issued: 0,
        }
    }

    /// The running entry.
    #[inline]
    pub fn top(&self) -> Entry {
        *self.stack.last().expect("a live warp has a stack entry")
    }

    /// Sets the running entry's pc.
    #[inline]
    pub fn set_pc(&mut self, pc: u32) {
        if let Some(e) = self.stack.last_mut() {
            e.pc = pc;
        }
    }

    /// Pops entries that reached their reconvergence point or have no lanes;
    /// marks the warp finished when the stack empties.
    pub fn normalize(&mut self) {
        while let Some(e) = self.stack.last() {
            if e.pc == e.rpc || e.mask == 0 {
                self.stack.pop();
            } else {
                break;
            }
        }
        if self.stack.is_empty() {
            self.finished = true;
        }
    }

    /// Divergent branch at the top entry: `taken` lanes go on at `pc + 1`, the
    /// others at `else_pc`; both meet at `end_pc`.
    pub fn branch(&mut self, taken: u32, else_pc: u32, end_pc: u32) {
        let e = self.top();
        let not = e.mask & !taken;
        if not == 0 {
            self.set_pc(e.pc + 1);
        } else if taken == 0 {
            self.set_pc(else_pc);
        } else {
            self.set_pc(end_pc);
            self.stack.push(Entry {
                pc: else_pc,
                mask: not,
                rpc: end_pc,
            });
            self.stack.push(Entry {
                pc: e.pc + 1,
                mask: taken,
                rpc: end_pc,
            });
        }
    }

    /// Loop entry at the top entry: the loop runs from `test_pc` in a new entry
    /// that reconverges at `end_pc`.
    pub fn enter_loop(&mut self, test_pc: u32, end_pc: u32) {
        let e = self.top();
        self.set_pc(end_pc);
        self.stack.push(Entry {
            pc: test_pc,
            mask: e.mask,
            rpc: end_pc,
        });
    }

    /// Loop test: lanes not in `stay` leave the loop entry.
    pub fn loop_test(&mut self, stay: u32) {
        let e = self.stack.last_mut().expect("live warp");
        e.mask &= stay;
        if e.mask == 0 {
            e.pc = e.rpc;
        } else {
            e.pc += 1;
        }
    }

    /// The top entry's lanes exit.
    pub fn exit_lanes(&mut self) {
        let m = self.top().mask;
        for e in &mut self.stack {
            e.mask &= !m;
        }
    }

    /// Slot value of one lane.
    #[inline]
    pub fn get(&self, slot: u16, lane: u32) -> i64 {
        self.vars[slot as usize * 32 + lane as usize]
    }

    /// Sets a slot of one lane.
    #[inline]
    pub fn set(&mut self, slot: u16, lane: u32, v: i64) {
        self.vars[slot as usize * 32 + lane as usize] = v;
    }

    /// When the slots in `reads` are all available (`PENDING`: not known yet).
    pub fn operands_ready(&self, reads: &[u16]) -> u64 {
        let mut t = 0;
        for &(s, at) in &self.sb {
            if reads.binary_search(&s).is_ok() {
                t = t.max(at);
            }
        }
        t
    }

    /// Drops scoreboard entries whose data arrived by `now`.
    pub fn retire_scoreboard(&mut self, now: u64) {
        self.sb.retain(|&(_, at)| at > now);
    }

    /// Marks `slot` as written at `at` (or [`PENDING`]).
    pub fn score(&mut self, slot: u16, at: u64) {
        match self.sb.iter_mut().find(|(s, _)| *s == slot) {
            Some(e) => {
                e.1 = if at == PENDING || e.1 == PENDING {
                    PENDING
                } else {
                    e.1.max(at)
                }
            }
            None => self.sb.push((slot, at)),
        }
    }

    /// Starts tracking a load; returns its id.
    pub fn new_load(&mut self, var: Option<u16>) -> u32 {
        let l = Load {
            var,
            left: 0,
            done: 0,
        };
        self.outstanding += 1;
        match self.loads_free.pop() {
            Some(i) => {
                self.loads[i as usize] = l;
                i
            }
            None => {
                self.loads.push(l);
                (self.loads.len() - 1) as u32
            }
        }
    }

    /// A transaction of load `id` returned at `t`; when it was the last one,
    /// the destination becomes available at the latest data time. Returns whether
    /// the load completed.
    pub fn load_returned(&mut self, id: u32, t: u64) -> bool {
        let l = &mut self.loads[id as usize];
        l.done = l.done.max(t);
        l.left -= 1;
        if l.left > 0 {
            return false;
        }
        let (var, done) = (l.var, l.done);
        self.loads_free.push(id);
        self.outstanding -= 1;
        if let Some(v) = var {
            if let Some(e) = self.sb.iter_mut().find(|(s, _)| *s == v) {
                e.1 = done;
            }
        }
        true
    }
}

/// One lane's view for expression evaluation.
pub struct LaneView<'a> {
    /// The warp.
    pub w: &'a Warp,
    /// Its TB's geometry.
    pub geo: &'a TbGeo,
    /// Kernel arguments.
    pub args: &'a [i64],
    /// Lane.
    pub lane: u32,
}

impl LaneEnv for LaneView<'_> {
    fn builtin(&self, b: Builtin) -> i64 {
        let g = self.geo;
        let ltid = self.w.warp_in_tb * 32 + self.lane;
        let (bx, by) = (g.block[0].max(1), g.block[1].max(1));
        (match b {
            Builtin::TidX => ltid % bx,
            Builtin::TidY => (ltid / bx) % by,
            Builtin::TidZ => ltid / (bx * by),
            Builtin::CtaidX => g.ctaid[0],
            Builtin::CtaidY => g.ctaid[1],
            Builtin::CtaidZ => g.ctaid[2],
            Builtin::NtidX => g.block[0],
            Builtin::NtidY => g.block[1],
            Builtin::NtidZ => g.block[2],
            Builtin::NctaidX => g.grid[0],
            Builtin::NctaidY => g.grid[1],
            Builtin::NctaidZ => g.grid[2],
            Builtin::Gtid => return (g.linear_ctaid() * g.threads() as u64 + ltid as u64) as i64,
            Builtin::Lane => self.lane,
            Builtin::Warp => self.w.warp_in_tb,
            Builtin::ActiveMask => self.w.top().mask,
        }) as i64
    }
    fn var(&self, v: Var) -> i64 {
        self.w
            .vars
            .get(v.0 as usize * 32 + self.lane as usize)
            .copied()
            .unwrap_or(0)
    }
    fn param(&self, index: u16) -> i64 {
        self.args.get(index as usize).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divergent_if_serialises_and_reconverges() {
        let mut w = Warp::new(0, 0, 0, 0, 32, 1, 0);
        // if at pc 0: else at 5, end at 9; even lanes take the then path
        w.branch(0x5555_5555, 5, 9);
        assert_eq!(
            w.top(),
            Entry {
                pc: 1,
                mask: 0x5555_5555,
                rpc: 9
            }
        );
        w.set_pc(9); // then path ran to the end
        w.normalize();
        assert_eq!(
            w.top(),
            Entry {
                pc: 5,
                mask: 0xAAAA_AAAA,
                rpc: 9
            }
        );
        w.set_pc(9);
        w.normalize();
        assert_eq!(
            w.top(),
            Entry {
                pc: 9,
                mask: u32::MAX,
                rpc: u32::MAX
            }
        );
        // uniform branch: no push
        w.branch(u32::MAX, 20, 30);
        assert_eq!(w.stack.len(), 1);
        // exit of half the lanes, then the rest
        w.stack.push(Entry {
            pc: 40,
            mask: 0xFFFF,
            rpc: 50,
        });
        w.exit_lanes();
        w.normalize();
        assert_eq!(w.top().mask, 0xFFFF_0000);
        w.exit_lanes();
        w.normalize();
        assert!(w.finished);
    }
}
