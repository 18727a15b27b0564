//! Caches: set-associative LRU arrays, MSHRs with request merging, and the
//! directory state kept next to each last-level-cache line.
//!
//! The private caches (L1, and L2 on the `table4.2` machine) belong to the requester
//! side (the core model); the shared, banked S-NUCA LLC belongs to the memory side
//! ([`crate::system`]). Both use [`array::CacheArray`] and [`mshr::MshrFile`].
//! Dissertation §5.2 (private L1, S-NUCA L2 banks, one per node), Table 5.2 and
//! Table 4.2 for the geometries.

pub mod array;
pub mod mshr;

pub use array::{CacheArray, CacheGeometry, Victim};
pub use mshr::{MshrFile, MshrId};
