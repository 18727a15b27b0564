//! The accumulator of a descriptor walk: bank vectors, data-set lines,
//! sampled runs, the run budget and the walk's deadline (module docs of
//! [`crate::affine_desc`]).

use super::*;

pub(super) struct Acc<'a> {
    pub(super) map: &'a dyn AddressMap,
    pub(super) line: u64,
    pub(super) nb: usize,
    pub(super) nl: usize,
    pub(super) mem: Vec<u64>,
    pub(super) llc: Vec<u64>,
    pub(super) lines: Vec<u64>,
    /// Lines skipped by sampling (counted as distinct in `D`).
    pub(super) extra_ds: u64,
    pub(super) steps: u64,
    pub(super) runs: u64,
    /// With the independence check: (first line, last line, write) per run.
    pub(super) ivs: Option<Vec<(u64, u64, bool)>>,
    /// Time budget of the walk (payoff control): checked every
    /// [`DEADLINE_EVERY`] runs.
    pub(super) deadline: Option<Instant>,
}

impl Acc<'_> {
    pub(super) fn add_line(&mut self, l: u64, w: u64) -> Result<()> {
        let addr = l * self.line;
        let (mb, lb) = (self.map.mem_bank(addr), self.map.llc_bank(addr));
        if mb >= self.nb || lb >= self.nl {
            return Err(invalid(format!(
                "address map returned bank {mb}/{lb} beyond {}/{}",
                self.nb, self.nl
            )));
        }
        self.mem[mb] += w;
        self.llc[lb] += w;
        self.lines.push(l);
        self.steps += 1;
        Ok(())
    }

    /// Accesses `a0 + stride·t` for `t < trip`, each weighted `w`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run(
        &mut self,
        a0: i64,
        stride: i64,
        trip: i64,
        size: u32,
        w: u64,
        write: bool,
    ) -> Result<()> {
        let line = self.line as i64;
        self.runs += 1;
        if self.runs > RUN_BUDGET {
            return Err(crate::RuntimeError::SearchBudget(RUN_BUDGET));
        }
        if self.runs % DEADLINE_EVERY == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() > d {
                    return Err(crate::RuntimeError::InspectBudget(format!(
                        "descriptor walk stopped after {} runs ({} line steps)",
                        self.runs, self.steps
                    )));
                }
            }
        }
        if let Some(v) = self.ivs.as_mut() {
            let end = a0.wrapping_add(stride.wrapping_mul(trip - 1));
            let (x, y) = (a0.min(end) as u64, a0.max(end) as u64 + size as u64 - 1);
            v.push((x / self.line, y / self.line, write));
        }
        if stride == 0 {
            // Every access touches the same bytes: count each line once per access.
            let (f, l) = (
                a0 as u64 / self.line,
                (a0 as u64 + size as u64 - 1) / self.line,
            );
            for x in f..=l {
                self.add_line(x, w.saturating_mul(trip as u64))?;
            }
            return Ok(());
        }
        let (a0, s) = if stride < 0 {
            (a0.wrapping_add(stride.wrapping_mul(trip - 1)), -stride)
        } else {
            (a0, stride)
        };
        if s >= line {
            // One line per access; long runs sampled.
            let take = trip.min(RUN_SAMPLE);
            let scale = |x: u64| x.saturating_mul(trip as u64) / take as u64;
            for t in 0..take {
                let a = a0.wrapping_add(s.wrapping_mul(t)) as u64;
                let (f, l) = (a / self.line, (a + size as u64 - 1) / self.line);
                for x in f..=l {
                    self.add_line(x, scale(w))?;
                }
            }
            self.extra_ds += (trip - take) as u64;
            return Ok(());
        }
        // s < line: every line from the first to the last address, with the
        // number of accesses starting in it. In i64 when nothing can overflow
        // (always, for real addresses: i128 division is a library call).
        if let Some(last) = s.checked_mul(trip - 1).and_then(|d| a0.checked_add(d)) {
            if a0 >= 0 && last.checked_add(line).is_some() && w <= u32::MAX as u64 {
                let ceil_div =
                    |x: i64, y: i64| -> i64 { x.div_euclid(y) + (x.rem_euclid(y) != 0) as i64 };
                let (f, e) = (a0 / line, last / line);
                let total = e - f + 1;
                let take = total.min(RUN_SAMPLE);
                if take < total {
                    self.extra_ds += (total - take) as u64;
                }
                for x in f..f + take {
                    let t0 = ceil_div(x * line - a0, s).max(0);
                    let t1 = ceil_div((x + 1) * line - a0, s).min(trip);
                    if t1 > t0 {
                        let n = (t1 - t0) as u64;
                        let c = match take == total {
                            true => w.saturating_mul(n),
                            false => (w as u128 * n as u128 * total as u128 / take as u128)
                                .min(u64::MAX as u128) as u64,
                        };
                        self.add_line(x as u64, c)?;
                    }
                }
                return Ok(());
            }
        }
        let (a0, s) = (a0 as i128, s as i128);
        let last = a0 + s * (trip as i128 - 1);
        let l = line as i128;
        let (f, e) = (a0.div_euclid(l), last.div_euclid(l));
        let ceil_div =
            |x: i128, y: i128| -> i128 { x.div_euclid(y) + (x.rem_euclid(y) != 0) as i128 };
        let total = e - f + 1;
        let take = total.min(RUN_SAMPLE as i128);
        // Sampled: the first `take` lines, weights scaled by total / take.
        if take < total {
            self.extra_ds += (total - take) as u64;
        }
        for x in f..f + take {
            let t0 = ceil_div(x * l - a0, s).max(0);
            let t1 = ceil_div((x + 1) * l - a0, s).min(trip as i128);
            if t1 > t0 {
                let c = (w as i128 * (t1 - t0) * total / take).min(u64::MAX as i128);
                self.add_line(x as u64, c as u64)?;
            }
        }
        Ok(())
    }
}
