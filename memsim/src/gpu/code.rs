//! Kernel bodies flattened for the warp interpreter.
//!
//! The workload IR is a tree ([`Op`]); warps run a flat instruction list with
//! explicit targets so that a warp's position is one program counter and the SIMT
//! reconvergence stack holds (pc, mask, reconvergence pc) entries (structured
//! post-dominator reconvergence: the end of an `if` or a loop). Layout:
//!
//! ```text
//! if c { T } else { E }     If{c, else_pc, end_pc}  T  Jump end_pc  E   (end_pc:)
//! loop v in lo..hi { B }    LoopInit{v, lo, hi, h, end_pc}  LoopTest{v, h, end_pc}  B
//!                           LoopNext{v, test_pc}   (end_pc:)
//! ```
//!
//! `h` is a hidden per-lane slot (after the function's variables) holding the
//! loop bound evaluated once at entry. A device `launch` is flattened to its inline
//! `else` path in the flat version ([`Code::new`]); with device launches
//! ([`Code::with_launches`], issue #31) it is a branch whose taken lanes are those
//! that launched: `Launch{site, else_pc, end_pc}  Jump end_pc  E  (end_pc:)`.
//! `sync_children` is dropped in the flat version; with device launches it is a
//! `Launch` of [`LaunchSite::sync`] that launches nothing, answered by the launch
//! unit when the warp may go on (`[gpu.device_launch] sync_children`). A kernel
//! completes only after its children either way. Each instruction also records the
//! variable slots it reads, for the scoreboard.

use super::workload::expr::TableRef;
use super::workload::{Expr, Function, LaunchSite, MemOp, Op, UnitClass, Var};
use std::sync::Arc;

/// One flat instruction.
#[derive(Clone, Debug)]
pub enum Inst {
    /// `n` instructions of a unit class, `ilp` independent chains.
    Unit {
        /// Unit class.
        class: UnitClass,
        /// Count.
        n: u32,
        /// Independent chains.
        ilp: u32,
    },
    /// A memory access.
    Mem(MemOp),
    /// Per-lane assignment (no issue slot).
    Let {
        /// Destination.
        var: Var,
        /// Value.
        expr: Expr,
    },
    /// TB barrier.
    Bar,
    /// Divergent branch: lanes where `cond` holds run on, the others at `else_pc`;
    /// both reconverge at `end_pc`.
    If {
        /// Predicate.
        cond: Expr,
        /// First instruction of the else path.
        else_pc: u32,
        /// Reconvergence point.
        end_pc: u32,
    },
    /// Unconditional jump (no issue slot).
    Jump(u32),
    /// Loop entry: `var = lo`, hidden slot `bound = hi`; the loop reconverges at `end_pc`.
    LoopInit {
        /// Induction variable.
        var: Var,
        /// First value.
        lo: Expr,
        /// Bound.
        hi: Expr,
        /// Hidden slot of the bound.
        bound: u16,
        /// Reconvergence point (after the loop).
        end_pc: u32,
    },
    /// Loop test: lanes with `var >= bound` leave the loop.
    LoopTest {
        /// Induction variable.
        var: Var,
        /// Hidden slot of the bound.
        bound: u16,
    },
    /// Loop back edge: `var += 1`, jump to the test.
    LoopNext {
        /// Induction variable.
        var: Var,
        /// The loop's test.
        test_pc: u32,
    },
    /// Device launch: the lanes that launch continue at `pc + 1` (a jump to
    /// `end_pc`), the others run the inline path at `else_pc`.
    Launch {
        /// The site.
        site: Arc<LaunchSite>,
        /// First instruction of the inline path.
        else_pc: u32,
        /// Reconvergence point.
        end_pc: u32,
    },
    /// The active lanes end.
    Exit,
}

/// A flattened kernel.
#[derive(Clone, Debug)]
pub struct Code {
    /// Instructions; the last one is `Exit`.
    pub insts: Vec<Inst>,
    /// Variable slots each instruction reads (scoreboard).
    pub reads: Vec<Vec<u16>>,
    /// Per-lane slots: the function's variables, then one hidden bound per loop.
    pub slots: usize,
}

impl Code {
    /// Flattens `f`'s body.
    pub fn new(f: &Function) -> Self {
        Self::build(f, false)
    }

    /// Flattens `f`'s body with device launches.
    pub fn with_launches(f: &Function) -> Self {
        Self::build(f, true)
    }

    fn build(f: &Function, launches: bool) -> Self {
        let mut b = Builder {
            insts: Vec::new(),
            slots: f.num_vars(),
            launches,
        };
        b.ops(&f.body);
        b.insts.push(Inst::Exit);
        let reads = b.insts.iter().map(reads_of).collect();
        Code {
            insts: b.insts,
            reads,
            slots: b.slots,
        }
    }
}

struct Builder {
    insts: Vec<Inst>,
    slots: usize,
    launches: bool,
}

impl Builder {
    fn pc(&self) -> u32 {
        self.insts.len() as u32
    }

    fn ops(&mut self, ops: &[Op]) {
        for op in ops {
            self.op(op);
        }
    }

    fn op(&mut self, op: &Op) {
        match op {
            Op::Unit { class, n, ilp } => {
                if *n > 0 {
                    self.insts.push(Inst::Unit {
                        class: *class,
                        n: *n,
                        ilp: (*ilp).max(1),
                    })
                }
            }
            Op::Mem(m) => self.insts.push(Inst::Mem(m.clone())),
            Op::Let { var, expr } => self.insts.push(Inst::Let {
                var: *var,
                expr: expr.clone(),
            }),
            Op::Bar => self.insts.push(Inst::Bar),
            Op::If { cond, then_, else_ } => {
                let at = self.insts.len();
                self.insts.push(Inst::Jump(0)); // placeholder, patched below
                self.ops(then_);
                let jump_at = (!else_.is_empty()).then(|| {
                    self.insts.push(Inst::Jump(0));
                    self.insts.len() - 1
                });
                let else_pc = self.pc();
                self.ops(else_);
                let end_pc = self.pc();
                if let Some(j) = jump_at {
                    self.insts[j] = Inst::Jump(end_pc);
                }
                self.insts[at] = Inst::If {
                    cond: cond.clone(),
                    else_pc,
                    end_pc,
                };
            }
            Op::Loop { var, lo, hi, body } => {
                let bound = self.slots as u16;
                self.slots += 1;
                let at = self.insts.len();
                self.insts.push(Inst::Jump(0)); // placeholder
                let test_pc = self.pc();
                self.insts.push(Inst::LoopTest { var: *var, bound });
                self.ops(body);
                self.insts.push(Inst::LoopNext { var: *var, test_pc });
                let end_pc = self.pc();
                self.insts[at] = Inst::LoopInit {
                    var: *var,
                    lo: lo.clone(),
                    hi: hi.clone(),
                    bound,
                    end_pc,
                };
            }
            Op::Launch(site) if self.launches => {
                let at = self.insts.len();
                self.insts.push(Inst::Jump(0)); // placeholder, patched below
                self.insts.push(Inst::Jump(0));
                let else_pc = self.pc();
                self.ops(&site.else_);
                let end_pc = self.pc();
                self.insts[at + 1] = Inst::Jump(end_pc);
                self.insts[at] = Inst::Launch {
                    site: Arc::new((**site).clone()),
                    else_pc,
                    end_pc,
                };
            }
            Op::Launch(site) => self.ops(&site.else_),
            Op::SyncChildren if self.launches => {
                // A call to the launch unit that launches nothing; its answer
                // comes when the warp may go on (issue #31, `sync_children`).
                let end_pc = self.pc() + 2;
                self.insts.push(Inst::Launch {
                    site: Arc::new(LaunchSite::sync()),
                    else_pc: end_pc,
                    end_pc,
                });
                self.insts.push(Inst::Jump(end_pc));
            }
            Op::SyncChildren => {}
            Op::Exit => self.insts.push(Inst::Exit),
        }
    }
}

fn expr_reads(e: &Expr, out: &mut Vec<u16>) {
    let table = |t: &TableRef, out: &mut Vec<u16>| {
        if let TableRef::Family(_, k) = t {
            expr_reads(k, out)
        }
    };
    match e {
        Expr::Var(v) => out.push(v.0),
        Expr::Value(t, i) | Expr::Addr(t, i) => {
            table(t, out);
            expr_reads(i, out);
        }
        Expr::Len(t) => table(t, out),
        Expr::Unary(_, a) => expr_reads(a, out),
        Expr::Binary(_, a, b) => {
            expr_reads(a, out);
            expr_reads(b, out);
        }
        Expr::Call(_, args) => args.iter().for_each(|a| expr_reads(a, out)),
        Expr::Const(_) | Expr::Param(_) | Expr::Builtin(_) | Expr::Count(_) => {}
    }
}

fn reads_of(i: &Inst) -> Vec<u16> {
    let mut v = Vec::new();
    match i {
        Inst::Mem(m) => expr_reads(&m.addr, &mut v),
        Inst::Let { expr, .. } => expr_reads(expr, &mut v),
        Inst::If { cond, .. } => expr_reads(cond, &mut v),
        Inst::LoopInit { lo, hi, .. } => {
            expr_reads(lo, &mut v);
            expr_reads(hi, &mut v);
        }
        Inst::LoopTest { var, .. } | Inst::LoopNext { var, .. } => v.push(var.0),
        Inst::Launch { site, .. } => {
            for e in site.grid.iter().chain(&site.block).chain(&site.args) {
                expr_reads(e, &mut v);
            }
            expr_reads(&site.cond, &mut v);
            expr_reads(&site.workload, &mut v);
            if let super::workload::ir::StreamSel::Expr(e) = &site.stream {
                expr_reads(e, &mut v);
            }
        }
        _ => {}
    }
    v.sort_unstable();
    v.dedup();
    v
}
