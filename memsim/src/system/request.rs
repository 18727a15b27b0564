//! What requesters and the memory side exchange (dissertation §5.2, Fig. 5.1): the
//! requests a private cache sends on a miss or write-back, the completions (data or
//! invalidations) it receives, and the back-pressure refusal.

use serde::Serialize;

/// Kind of request a requester sends to the memory side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ReqKind {
    /// Read miss (GetS).
    Read,
    /// Write miss or upgrade: read for ownership (GetX).
    ReadExclusive,
    /// Write-back of a dirty private line (no reply).
    Writeback,
}

/// A request from a requester's private cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemRequest {
    /// Requester index (core or SM), `< params.requesters`.
    pub requester: u32,
    /// Byte address (any address within the wanted line).
    pub addr: u64,
    /// What is asked.
    pub kind: ReqKind,
    /// Opaque tag returned in the completion.
    pub token: u64,
}

/// What a completion tells the requester.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// The data of the requested line arrived; `exclusive` = the requester may write
    /// it without asking again.
    Data {
        /// Write permission granted.
        exclusive: bool,
    },
    /// The requester must drop every private copy inside LLC line `addr`, writing
    /// back the dirty ones (the LLC copy is only dirtied by such write-backs, so a
    /// line nobody wrote never goes back to DRAM). `recall`: the LLC evicted the
    /// line (inclusion); otherwise another requester's access invalidated it.
    Invalidate {
        /// The LLC evicted the line (rather than another requester taking it).
        recall: bool,
    },
}

/// A message from the memory side to a requester.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Requester it is for.
    pub requester: u32,
    /// Token of the request (0 for invalidations).
    pub token: u64,
    /// Byte address of the request, or the LLC-line address for invalidations.
    pub addr: u64,
    /// Core cycle at which it reaches the requester's node.
    pub time: u64,
    /// Data or invalidation.
    pub kind: CompletionKind,
}

/// Back-pressure: the request was not accepted; retry later.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("requester {requester} has {limit} requests outstanding; retry later")]
pub struct Busy {
    /// Requester that was refused.
    pub requester: u32,
    /// Its outstanding-request limit.
    pub limit: u32,
}
