//! Oracle (limit-study) modes: simulator-side upper bounds, not real schedules.
//!
//! The dissertation compares its schedules against idealised executions that only a
//! simulator can produce (§4.3 Fig. 4.4/4.5, §5.6.1 "Ideal"). weft defines them as
//! follows; each changes the *timing* model only, never which addresses a core
//! touches or in which program order it retires them.
//!
//! - **MLP Ideal** (§4.3; the hardware equivalent of Pai and Adve's miss clustering):
//!   each core clusters its off-chip requests as far as its resources allow. Whenever
//!   a core's reorder buffer is full, or dispatch is blocked, it pre-executes up to
//!   `lookahead` future records (default 4 x ROB entries) and sends every private-cache
//!   miss among them to the memory side at once (perfect runahead: no dependences
//!   between records are assumed, since traces carry none). MSHRs still bound the
//!   number in flight. Later, the real access finds the line in the L1 or merges with
//!   the in-flight miss, so the LLC-miss count is essentially unchanged while the
//!   misses arrive in bursts.
//! - **BLP Ideal** (§4.3): "if there are sufficient off-chip accesses, they are always
//!   distributed across the banks evenly". Each LLC miss (demand or prefetch) is sent
//!   to the memory bank that has the fewest requests outstanding at that moment
//!   (lowest global bank index on ties), keeping its row and column bits; write-backs
//!   keep their real bank. Only a lack of outstanding misses can then keep BLP below
//!   the bank count.
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

    /// Core runahead depth for a ROB of `rob` entries.
    pub fn lookahead(self, rob: u32) -> u32 {
        match self {
            Oracle::MlpIdeal => rob.saturating_mul(4),
            _ => 0,
        }
    }

    /// The memory-side part.
    pub fn memory_side(self) -> crate::system::MemOracle {
        crate::system::MemOracle {
            spread_memory_banks: matches!(self, Oracle::BlpIdeal | Oracle::Ideal),
            spread_llc_banks: matches!(self, Oracle::Ideal),
        }
    }
}
