//! The coalescer: a warp's lane addresses to unique memory transactions.
//!
//! Global accesses of the active lanes are merged into one transaction per
//! distinct `line_bytes` line (128 B on every paper machine: DTBL Table 2,
//! "consecutive words from the 32 threads of a warp form one transaction; otherwise
//! the instruction replays"). With the sector option (`sector_bytes` > 0) each
//! transaction also carries the mask of the sectors it touches, for sector-based
//! traffic accounting. Transactions come out in first-lane order (the lane order of
//! the warp), which makes the L1 access order deterministic. An access that
//! straddles a line boundary touches both lines. The replay count of an
//! instruction is `transactions - 1`.

/// One transaction: a line and the sectors of it the warp touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transaction {
    /// Line number (`address / line_bytes`).
    pub line: u64,
    /// Touched sectors (bit `i` = sector `i` of the line); all ones without sectors.
    pub sectors: u32,
}

/// Lane addresses to transactions.
#[derive(Clone, Debug)]
pub struct Coalescer {
    line_shift: u32,
    sector_shift: u32,
    sectors_per_line: u32,
}

impl Coalescer {
    /// A coalescer for `line_bytes` lines and `sector_bytes` sectors (0: no sectors).
    pub fn new(line_bytes: u32, sector_bytes: u32) -> Self {
        let line_shift = line_bytes.max(1).trailing_zeros();
        let (sector_shift, sectors_per_line) = if sector_bytes == 0 {
            (line_shift, 1)
        } else {
            let s = sector_bytes.trailing_zeros().min(line_shift);
            (s, 1 << (line_shift - s))
        };
        Coalescer {
            line_shift,
            sector_shift,
            sectors_per_line,
        }
    }

    /// Sectors per line (1 without sectors).
    pub fn sectors_per_line(&self) -> u32 {
        self.sectors_per_line
    }

    /// Appends to `out` the transactions of accesses of `bytes` bytes at `addrs`
    /// (active lanes only, in lane order). `out` is cleared first.
    pub fn coalesce(&self, addrs: &[u64], bytes: u32, out: &mut Vec<Transaction>) {
        out.clear();
        let bytes = bytes.max(1) as u64;
        // Fast path (the same result): without sectors, a warp whose accesses all
        // lie in one line is one transaction. The check is branch-free over the
        // lanes (it vectorises), the common case of a coalesced access.
        if let (1, Some(&a0)) = (self.sectors_per_line, addrs.first()) {
            let l = a0 >> self.line_shift;
            let mut diff = 0u64;
            for &a in addrs {
                diff |= (a >> self.line_shift) ^ l;
                diff |= (a.wrapping_add(bytes - 1) >> self.line_shift) ^ l;
            }
            if diff == 0 {
                out.push(Transaction {
                    line: l,
                    sectors: 1,
                });
                return;
            }
        }
        for &a in addrs {
            let last = a.wrapping_add(bytes - 1);
            let (l0, l1) = (a >> self.line_shift, last >> self.line_shift);
            // Fast path (the same result): an access inside the line pushed last.
            if l0 == l1 {
                if let Some(t) = out.last_mut() {
                    if t.line == l0 {
                        t.sectors |= self.sector_mask(a, last);
                        continue;
                    }
                }
            }
            let mut l = l0;
            loop {
                let lo = if l == l0 { a } else { l << self.line_shift };
                let hi = if l == l1 {
                    last
                } else {
                    ((l + 1) << self.line_shift) - 1
                };
                let mask = self.sector_mask(lo, hi);
                // lines are unique in `out`; neighbouring lanes mostly hit the
                // line pushed last, so search from the back
                match out.iter_mut().rev().find(|t| t.line == l) {
                    Some(t) => t.sectors |= mask,
                    None => out.push(Transaction {
                        line: l,
                        sectors: mask,
                    }),
                }
                if l == l1 {
                    break;
                }
                l += 1;
            }
        }
    }

    #[inline]
    fn sector_mask(&self, lo: u64, hi: u64) -> u32 {
        if self.sectors_per_line == 1 {
            return 1;
        }
        let m = (self.sectors_per_line - 1) as u64;
        let s0 = (lo >> self.sector_shift) & m;
        let s1 = (hi >> self.sector_shift) & m;
        let mut mask = 0u32;
        for s in s0..=s1 {
            mask |= 1 << s;
        }
        mask
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stride_4_is_one_line_stride_128_is_32() {
        let c = Coalescer::new(128, 0);
        let mut out = Vec::new();
        let a: Vec<u64> = (0..32).map(|i| 4096 + 4 * i).collect();
        c.coalesce(&a, 4, &mut out);
        assert_eq!(out.len(), 1);
        let a: Vec<u64> = (0..32).map(|i| 4096 + 128 * i).collect();
        c.coalesce(&a, 4, &mut out);
        assert_eq!(out.len(), 32);
        assert_eq!(out[5].line, 32 + 5);
    }

    /// Lanes that return to an earlier line (not the last one pushed) merge
    /// into it: first-lane order, unique lines, sector masks or-ed.
    #[test]
    fn revisited_lines_merge_in_first_lane_order() {
        let c = Coalescer::new(128, 32);
        let mut out = Vec::new();
        c.coalesce(&[0, 128, 4, 132, 96, 256 + 64], 4, &mut out);
        let t = |line, sectors| Transaction { line, sectors };
        assert_eq!(out, vec![t(0, 0b1001), t(1, 0b1), t(2, 0b100)]);
    }

    #[test]
    fn sectors_and_straddling() {
        let c = Coalescer::new(128, 32);
        let mut out = Vec::new();
        // lanes 0..8 read 4 B each from byte 32: sector 1 only.
        let a: Vec<u64> = (0..8).map(|i| 32 + 4 * i).collect();
        c.coalesce(&a, 4, &mut out);
        assert_eq!(
            out,
            vec![Transaction {
                line: 0,
                sectors: 0b10
            }]
        );
        // an 8-byte access at byte 124 touches sector 3 of line 0 and sector 0 of line 1.
        c.coalesce(&[124], 8, &mut out);
        assert_eq!(
            out,
            vec![
                Transaction {
                    line: 0,
                    sectors: 0b1000
                },
                Transaction {
                    line: 1,
                    sectors: 0b1
                }
            ]
        );
    }

    /// Against a naive reference (unique lines in first-lane order): warps in
    /// one line (the fast path), straddling the line end, and scattered.
    #[test]
    fn matches_the_reference_without_sectors() {
        let c = Coalescer::new(128, 0);
        let mut out = Vec::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for case in 0..300 {
            let n = 1 + (next() % 32) as usize;
            let base = 4096 + (next() % 64) * 128;
            let spread = [4, 8, 128, 4096][case % 4];
            let bytes = [1, 4, 8, 16][(case / 4) % 4] as u32;
            let addrs: Vec<u64> = (0..n).map(|_| base + next() % spread).collect();
            c.coalesce(&addrs, bytes, &mut out);
            let mut want: Vec<u64> = Vec::new();
            for &a in &addrs {
                for l in a / 128..=(a + bytes as u64 - 1) / 128 {
                    if !want.contains(&l) {
                        want.push(l);
                    }
                }
            }
            let got: Vec<u64> = out.iter().map(|t| t.line).collect();
            assert_eq!(got, want, "case {case}: {addrs:?} x {bytes} B");
            assert!(out.iter().all(|t| t.sectors == 1));
        }
    }
}
