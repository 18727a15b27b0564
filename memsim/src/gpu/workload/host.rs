//! Host programs, unrolled: `repeat` expanded and host expressions evaluated into the
//! concrete command list a front end walks (digest §8.5 C).
//!
//! Host expressions see `repeat` variables as slots, tables (`len(frontier(level))`,
//! `count(frontier)`), and no lane builtins (they read 0). A launch whose grid has a
//! dimension below 1 (an empty frontier) launches nothing and is dropped, as a CUDA
//! program guards such launches; a dimension above [`MAX_GRID`] or a block outside
//! [`MAX_BLOCK`] is an error.

use super::expr::Expr;
use super::expr::SimpleEnv;
use super::ir::{App, FuncId, HostCmd, Var, Workload};
use super::{Error, Result, MAX_BLOCK, MAX_GRID};

/// A launch with concrete dimensions and arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostLaunch {
    /// The kernel.
    pub function: FuncId,
    /// Grid (x, y, z), each at least 1.
    pub grid: [u32; 3],
    /// Block (x, y, z), each at least 1, product at most 1024.
    pub block: [u32; 3],
    /// Argument values in parameter order.
    pub args: Vec<i64>,
}

/// One concrete host command of a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostStep {
    /// Launch a kernel.
    Launch(HostLaunch),
    /// Stream synchronisation.
    Wait,
    /// Device-wide synchronisation.
    DeviceSync,
    /// A copy of this many bytes.
    Memcpy(u64),
}

struct Unroller<'a> {
    wl: &'a Workload,
    app: &'a App,
    env: SimpleEnv,
    out: Vec<HostStep>,
    max_steps: usize,
}

impl Unroller<'_> {
    fn err(&self, msg: String) -> Error {
        Error::Invalid {
            origin: self.wl.origin.clone(),
            msg: format!("app `{}`: {msg}", self.app.name),
        }
    }

    fn eval(&self, e: &Expr) -> i64 {
        e.eval(&self.env, &self.wl.tables)
    }

    fn push(&mut self, s: HostStep) -> Result<()> {
        if self.out.len() >= self.max_steps {
            return Err(self.err(format!(
                "more than {} host commands after unrolling",
                self.max_steps
            )));
        }
        self.out.push(s);
        Ok(())
    }

    fn set(&mut self, v: Var, x: i64) {
        let i = v.0 as usize;
        if self.env.vars.len() <= i {
            self.env.vars.resize(i + 1, 0);
        }
        self.env.vars[i] = x;
    }

    fn run(&mut self, cmds: &[HostCmd]) -> Result<()> {
        for c in cmds {
            match c {
                HostCmd::Wait => self.push(HostStep::Wait)?,
                HostCmd::DeviceSync => self.push(HostStep::DeviceSync)?,
                HostCmd::Memcpy { bytes } => {
                    let b = self.eval(bytes).max(0) as u64;
                    self.push(HostStep::Memcpy(b))?
                }
                HostCmd::Repeat { var, lo, hi, body } => {
                    let (lo, hi) = (self.eval(lo), self.eval(hi));
                    let mut i = lo;
                    while i < hi {
                        self.set(*var, i);
                        self.run(body)?;
                        if body.is_empty() && i - lo >= self.max_steps as i64 {
                            break;
                        }
                        i += 1;
                    }
                }
                HostCmd::Launch {
                    function,
                    grid,
                    block,
                    args,
                } => {
                    let f = self.wl.function(*function);
                    let g = grid.each_ref().map(|e| self.eval(e));
                    let b = block.each_ref().map(|e| self.eval(e));
                    if g.iter().any(|&d| d < 1) {
                        continue;
                    }
                    for d in 0..3 {
                        if g[d] > MAX_GRID[d] {
                            return Err(self.err(format!(
                                "launch of `{}`: grid dimension {d} is {} (at most {})",
                                f.name, g[d], MAX_GRID[d]
                            )));
                        }
                        if b[d] < 1 || b[d] > MAX_BLOCK[d] {
                            return Err(self.err(format!(
                                "launch of `{}`: block dimension {d} is {} (1 to {})",
                                f.name, b[d], MAX_BLOCK[d]
                            )));
                        }
                    }
                    if b[0] * b[1] * b[2] > MAX_BLOCK[0] {
                        return Err(self.err(format!(
                            "launch of `{}`: {} threads per block (at most {})",
                            f.name,
                            b[0] * b[1] * b[2],
                            MAX_BLOCK[0]
                        )));
                    }
                    let args = args.iter().map(|e| self.eval(e)).collect();
                    self.push(HostStep::Launch(HostLaunch {
                        function: *function,
                        grid: g.map(|d| d as u32),
                        block: b.map(|d| d as u32),
                        args,
                    }))?
                }
            }
        }
        Ok(())
    }
}

impl App {
    /// The concrete commands of each stream, in stream order (`(stream id, steps)`).
    /// At most `max_steps` steps per stream (see [`super::Limits::max_host_steps`]).
    pub fn unroll(&self, wl: &Workload, max_steps: usize) -> Result<Vec<(u32, Vec<HostStep>)>> {
        let mut out = Vec::with_capacity(self.streams.len());
        for s in &self.streams {
            let mut u = Unroller {
                wl,
                app: self,
                env: SimpleEnv {
                    vars: vec![0; self.var_names.len()],
                    ..SimpleEnv::default()
                },
                out: Vec::new(),
                max_steps,
            };
            u.run(&s.cmds)?;
            out.push((s.id, u.out));
        }
        Ok(out)
    }
}
