//! The strip plan of an affine nest (§5.5.1, §5.5.3): how `strip-mine` cuts the
//! scheduled loop into iteration blocks (IBs of `E` iterations, one cache
//! line of the smallest stride) and the compile-time estimate of eq. 5.1's
//! window. Its own module so that `strip_mine` and the pay-off checks of
//! [`crate::payoff`] share it without importing each other.

/// How the scheduled loop of a nest is cut into IBs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StripPlan {
    /// Iterations sharing a cache line (`E`); IBs are multiples of it.
    pub line_iters: u64,
    /// Leading iterations before the first line boundary (`0 ≤ head < E`).
    pub head: u64,
    /// Upper bound on IBs per execution.
    pub max_ibs: u64,
    /// Compile-time estimate of eq. 5.1 for one-`E` IBs, when computable.
    pub iw_estimate: Option<u64>,
    /// Lines one `E`-iteration IB touches (`D`), when computable.
    pub ds_lines: Option<u64>,
    /// How the sizes were derived (for the remark).
    pub why: String,
}

impl StripPlan {
    /// Human-readable summary for remarks.
    pub fn describe(&self) -> String {
        format!(
            "IB size {} iteration(s) (x k for at most {} IBs, chosen at run time from the trip count){}; IW size {}",
            self.line_iters,
            self.max_ibs,
            if self.head > 0 {
                format!(", leading block of {} iteration(s) up to the first line boundary", self.head)
            } else {
                String::new()
            },
            match (self.iw_estimate, self.ds_lines) {
                (Some(w), Some(d)) => format!(
                    "{w} IBs by eq. 5.1 (D = {d} lines, compile-time estimate; the runtime recomputes D from the inspected addresses)"
                ),
                _ => "by eq. 5.1 at loop entry from the inspected data sets (D not constant at compile time)".to_string(),
            }
        )
    }
}
