//! The irregular inspector's recording path (dissertation §4.4.1 inspector,
//! §4.4.2 bank-maps Δ, §4.4.6 runtime dependence check), built for speed: the
//! inspector runs once per index-array assignment, but on the quick inputs a
//! region executes only a few times, so its cost shows directly in the
//! region's run time (§4.5 reports ~4%).
//!
//! What happens per reported access (no allocation, no hashing):
//! - the slab of the iteration comes from a cached `[lo, hi)` range (the
//!   inspector walks iterations in order, so the cache almost always hits);
//! - the memory bank of each cache line comes from [`BankTable`], a lookup
//!   table over the address bits that select the bank (exact for the bit-field
//!   mappings of `weft-memsim`), and sets one bit in the slab's bank-map words;
//! - the access is appended to a compact record list for the dependence check;
//! - compiled inspectors do the bank-map part of an unchecked access (one or
//!   two lines) themselves, with the slab's row and the bank table the
//!   recorder hands out ([`SlabRecorder::inline_slab`],
//!   [`SlabRecorder::inline_lookup`], `weft_inspect_fast` in the C ABI) and
//!   counts added back ([`SlabRecorder::add_inline_counts`]).
//! - with a miss predictor ([`SlabRecorder::with_miss_filter`], off by
//!   default), a line found in the recorder's [`LineFilter`] (a small
//!   set-associative tag array of the lines touched last) is predicted to hit
//!   in the caches and sets no bank bit (§4.4.2 assumes every access misses;
//!   the dissertation, around its Algorithm 4, suggests predicting the misses
//!   instead). One filter per recorder, i.e. per core's chunk, filled in
//!   original iteration order; it starts empty, so re-inspecting a chunk's
//!   prefix (lazy recorders) sets the same bits.
//!
//! At the end, [`SlabRecorder::dependences`] builds the slab DAG only when
//! some reported access writes (the compiler reports the stores of loops it
//! proves parallel as non-conflicting, `is_write = 0`, so their check is
//! skipped): a bitmap of the written 4-byte granules over their address span
//! (a hash set when they lie far apart), then one streaming pass that links
//! each access to the nearest conflicting writer and readers of the granule
//! (RAW, WAR, WAW), relying on slabs being reported in
//! non-decreasing order; out-of-order reports fall back to the sort-based
//! [`crate::deps::UnitDag::from_accesses`]. Both give the same dependence
//! relation (the transitive reduction may differ), which the executor
//! enforces.
//!
//! Modules: bank lookup and the miss predictor (`banks`), the slab recorder
//! (`recorder`), its inline path for compiled inspectors (`inline`), the
//! access records and their pool (`records`), the written-granule sets
//! (`written`) and the dependence check (`check`).

mod banks;
mod check;
mod inline;
mod recorder;
mod records;
mod written;

pub use banks::{BankTable, LineFilter};
pub use inline::{InlineRecs, InlineSlab};
pub use recorder::{SlabLayout, SlabRecorder};
pub use records::{RecordPool, REC_BYTES};
pub use written::{SplitMix, WrittenGranules};

use records::{Rec, WRITE_BIT};
use written::{retain_touching, Fast, WrittenRuns, PAGE_BITS};

#[cfg(test)]
mod tests;
