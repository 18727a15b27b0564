//! Host programs: `launch`, `wait`, `device_sync`, `memcpy` and `repeat`.

use super::Parser;
use crate::gpu::workload::expr::Expr;
use crate::gpu::workload::ir::HostCmd;
use crate::gpu::workload::lexer::Tok;
use crate::gpu::workload::Result;

impl Parser<'_> {
    /// Parse host commands until `}` (not consumed) or the end of text.
    pub fn host_block(&mut self) -> Result<Vec<HostCmd>> {
        self.statements(Self::host_cmd)
    }

    pub(super) fn host_cmd(&mut self) -> Result<HostCmd> {
        let at = self.pos;
        let word = self.expect_ident("a host command")?;
        match word.as_str() {
            "wait" => Ok(HostCmd::Wait),
            "device_sync" => Ok(HostCmd::DeviceSync),
            "memcpy" => Ok(HostCmd::Memcpy {
                bytes: self.expr()?,
            }),
            "repeat" => {
                let vat = self.pos;
                let v = self.expect_ident("a loop variable")?;
                let var = self.define_var(&v, vat)?;
                if !self.is_ident("in") {
                    return Err(self.err("expected `in`"));
                }
                self.next();
                let lo = self.expr()?;
                self.expect_punct("..")?;
                let hi = self.expr()?;
                self.expect_punct("{")?;
                self.enter()?;
                let body = self.host_block();
                self.leave();
                let body = body?;
                self.expect_punct("}")?;
                Ok(HostCmd::Repeat { var, lo, hi, body })
            }
            "launch" => {
                let (callee, cat) = self.callee()?;
                let one = || [Expr::Const(1), Expr::Const(1), Expr::Const(1)];
                let (mut grid, mut block, mut args) = (None, None, None);
                while let Tok::Ident(opt) = self.peek().clone() {
                    let oat = self.pos;
                    self.next();
                    self.expect_punct("=")?;
                    match opt.as_str() {
                        "grid" if grid.is_none() => grid = Some(self.dims(one())?),
                        "block" if block.is_none() => block = Some(self.dims(one())?),
                        "args" if args.is_none() => args = Some(self.args(&callee, cat)?),
                        "grid" | "block" | "args" => {
                            return Err(self.err_at(oat, format!("`{opt}` given twice")))
                        }
                        _ => {
                            return Err(self.err_at(
                                oat,
                                format!("unknown launch option `{opt}` (grid, block, args)"),
                            ))
                        }
                    }
                }
                let Some(grid) = grid else {
                    return Err(self.err_at(at, "a launch needs `grid=[..]`"));
                };
                let args = match args {
                    Some(a) => a,
                    None if callee.params.is_empty() => Vec::new(),
                    None => {
                        return Err(self
                            .err_at(at, "a launch needs `args={..}` for the kernel's parameters"))
                    }
                };
                let block = block.unwrap_or_else(|| callee.block.map(|d| Expr::Const(d as i64)));
                Ok(HostCmd::Launch {
                    function: callee.id,
                    grid,
                    block,
                    args,
                })
            }
            _ => Err(self.err_at(
                at,
                format!(
                    "unknown host command `{word}` (launch, wait, device_sync, repeat, memcpy)"
                ),
            )),
        }
    }
}
