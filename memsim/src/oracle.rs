//! Oracle (limit-study) modes: simulator-side upper bounds, not real schedules.
//!
//! The dissertation compares its schedules against idealised executions that only a
//! simulator can produce (§4.3 Fig. 4.4/4.5, §5.6.1 "Ideal"). weft defines them as
//! follows; each changes the *timing* model only, never which addresses a core
//! touches or in which program order it retires them.
//!
//! - **MLP Ideal** (§4.3: "the off-chip accesses originating from each core have
//!   been clustered as much as possible, subject to data dependences"; the hardware
//!   equivalent of Pai and Adve's miss clustering): each core issues the
//!   private-cache misses of every record inside its real instruction window at
//!   once. The window is the reorder buffer: a record is in it when its access lies
//!   within `rob_entries` instructions of the oldest unretired one, i.e. when the
//!   real core would hold it in its ROB if dispatch had no width limit. Whenever a
//!   record enters the window the core sends its miss to the memory side (perfect
//!   clustering inside the window), instead of when dispatch reaches it
//!   `width` instructions per cycle; nothing beyond the window is pre-executed,
//!   MSHRs still bound the misses in flight, and a barrier ends the window.
//!   Dependences: the trace records `gap`, kind and address per access and no
//!   register dependences, so neither the real core model nor MLP Ideal can
//!   serialise a dependent load behind the load it depends on; both treat the
//!   accesses of one window as independent (the proxy is "no dependences inside
//!   the window, and none across it since nothing leaves it"). MLP Ideal's
//!   headroom is therefore only what issue-time clustering inside the window buys
//!   over width-limited dispatch; see `docs/oracles.md`.
//! - **BLP Ideal** (§4.3): "if there are sufficient off-chip accesses, they are always
//!   distributed across the banks evenly". LLC misses (demand or prefetch) are
//!   spread over the memory banks at the granularity of a DRAM row (`row_bytes` of
//!   the address space, [`PageSpreader`]): a row-sized page whose bank still has it
//!   as its current page keeps going there, so the page's lines stay in one row and
//!   keep their row-buffer hits; any other page goes to the bank with the fewest
//!   requests outstanding at that moment and becomes that bank's current page. Ties
//!   go round-robin (the first least-loaded bank after the last one chosen), so
//!   when few misses are outstanding new pages are dealt over the banks instead of
//!   closing each other's rows in bank 0. Row and column bits are kept, so a page
//!   occupies one row of its new bank. Write-backs keep their real bank. Only a lack
//!   of outstanding misses can then keep BLP below the bank count, and a streaming
//!   page loses no row hits (two pages that share row bits and follow each other in
//!   one bank may even gain a hit they would not have had: the bound is optimistic).
//! - **Ideal** (ch. 5, §5.6.1: "the MLP performance of MLP-first and the CLP performance
//!   of CLP-first at the same time"): BLP Ideal's memory-bank spreading plus the same
//!   spreading for the LLC: each L1 miss is *timed* at the LLC bank whose port frees
//!   first (fewest hops from the requester on ties), i.e. it travels to that bank, waits
//!   for and occupies that port and counts towards CLP there, while tags, data and
//!   the directory stay at the line's home bank (so hit rates do not change).
//!
//! All three keep the trace's per-core program order and the cache contents
//! semantics; they are limits, not implementable policies.

use serde::Serialize;

/// A simulator-side oracle mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Oracle {
    /// No oracle: the real machine.
    #[default]
    None,
    /// Per-core perfect runahead clusters off-chip requests (§4.3 MLP Ideal).
    MlpIdeal,
    /// LLC misses spread evenly over memory banks (§4.3 BLP Ideal).
    BlpIdeal,
    /// Memory-bank and LLC-bank spreading together (§5.6.1 Ideal).
    Ideal,
}

impl Oracle {
    /// Parses `none`, `mlp-ideal`, `blp-ideal` or `ideal`.
    pub fn parse(s: &str) -> Option<Oracle> {
        match s {
            "none" => Some(Oracle::None),
            "mlp-ideal" => Some(Oracle::MlpIdeal),
            "blp-ideal" => Some(Oracle::BlpIdeal),
            "ideal" => Some(Oracle::Ideal),
            _ => None,
        }
    }

    /// The kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            Oracle::None => "none",
            Oracle::MlpIdeal => "mlp-ideal",
            Oracle::BlpIdeal => "blp-ideal",
            Oracle::Ideal => "ideal",
        }
    }

    /// The clustering window, in instructions, of a core with a ROB of `rob`
    /// entries (0: no clustering).
    pub fn lookahead(self, rob: u32) -> u32 {
        match self {
            Oracle::MlpIdeal => rob,
            _ => 0,
        }
    }

    /// The memory-side part, for DRAM rows of `row_bytes` bytes.
    pub fn memory_side(self, row_bytes: u64) -> crate::system::MemOracle {
        crate::system::MemOracle {
            spread_memory_banks: matches!(self, Oracle::BlpIdeal | Oracle::Ideal),
            spread_llc_banks: matches!(self, Oracle::Ideal),
            spread_page_bytes: row_bytes,
        }
    }
}

/// BLP Ideal's choice of memory bank, at page (DRAM-row) granularity (module
/// docs). Invariant: a page is mapped to bank `b` exactly when it is `b`'s
/// current page, so the map holds at most one page per bank.
#[derive(Clone, Debug)]
pub struct PageSpreader {
    page_shift: u32,
    /// Current page of each bank.
    current: Vec<Option<u64>>,
    /// Page -> bank, for the banks' current pages.
    bank_of: std::collections::HashMap<u64, u32>,
    /// Where the round-robin tie-break starts.
    next: usize,
}

impl PageSpreader {
    /// A spreader over `banks` banks with pages of `page_bytes` (a power of
    /// two; 0 or 1 spreads single bytes, i.e. every line on its own).
    pub fn new(banks: u32, page_bytes: u64) -> Self {
        PageSpreader {
            page_shift: page_bytes.max(1).trailing_zeros(),
            current: vec![None; banks as usize],
            bank_of: std::collections::HashMap::new(),
            next: 0,
        }
    }

    /// The bank for a miss to `addr`, given each bank's outstanding requests.
    pub fn choose(&mut self, addr: u64, outstanding: &[u32]) -> u32 {
        let page = addr >> self.page_shift;
        if let Some(&b) = self.bank_of.get(&page) {
            return b;
        }
        let n = outstanding.len().max(1);
        let start = self.next % n;
        let mut best = start;
        for k in 1..outstanding.len() {
            let i = (start + k) % n;
            if outstanding[i] < outstanding[best] {
                best = i;
            }
        }
        self.next = best + 1;
        if let Some(slot) = self.current.get_mut(best) {
            if let Some(old) = slot.replace(page) {
                self.bank_of.remove(&old);
            }
            self.bank_of.insert(page, best as u32);
        }
        best as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four banks, 2 KiB pages. Page 0's first line goes to the idle bank 0
    /// and its other lines follow it although bank 0 is then the busiest;
    /// page 1 goes to the least-loaded bank 1; page 2 to bank 3 (fewest
    /// outstanding). Once bank 1 takes page 3, page 1 has lost its bank and is
    /// placed afresh.
    #[test]
    fn pages_keep_their_bank_while_it_is_their_current_page() {
        let mut s = PageSpreader::new(4, 2048);
        assert_eq!(s.choose(0x000, &[0, 0, 0, 0]), 0);
        assert_eq!(s.choose(0x040, &[1, 0, 0, 0]), 0);
        assert_eq!(s.choose(0x7c0, &[5, 0, 0, 0]), 0);
        assert_eq!(s.choose(0x800, &[5, 0, 0, 0]), 1);
        assert_eq!(s.choose(0x1000, &[5, 1, 2, 0]), 3);
        assert_eq!(s.choose(0x840, &[5, 2, 2, 1]), 1);
        assert_eq!(s.choose(0x1800, &[5, 0, 2, 1]), 1, "page 3 takes bank 1");
        assert_eq!(s.choose(0x880, &[5, 1, 0, 1]), 2, "page 1 is placed again");
        assert_eq!(s.bank_of.len(), 4);
    }

    /// With every bank idle, new pages go round-robin: 0, 1, 2, 3, 0.
    #[test]
    fn ties_go_round_robin() {
        let mut s = PageSpreader::new(4, 2048);
        let idle = [0, 0, 0, 0];
        let banks: Vec<u32> = (0..5).map(|p| s.choose(p * 0x800, &idle)).collect();
        assert_eq!(banks, vec![0, 1, 2, 3, 0]);
    }

    #[test]
    fn mlp_window_is_the_rob() {
        assert_eq!(Oracle::MlpIdeal.lookahead(168), 168);
        assert_eq!(Oracle::BlpIdeal.lookahead(168), 0);
        let m = Oracle::BlpIdeal.memory_side(2048);
        assert!(m.spread_memory_banks && !m.spread_llc_banks);
        assert_eq!(m.spread_page_bytes, 2048);
    }
}
