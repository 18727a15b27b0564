//! The runtime dependence check of irregular inspections (§4.4.6): the slab
//! DAG built from the recorded accesses by one streaming pass over the
//! written granules (a bitmap over their span, pages, or a hash when they lie
//! far apart), with the sort-based [`crate::deps::UnitDag::from_accesses`] as
//! the fall-back for out-of-order reports. Both give the same dependence
//! relation.
//!
//! Complexity (issue 34 part 3), for `A` recorded accesses touching `G`
//! granules in all (`G` = `A` for accesses of at most 4 bytes) and `W`
//! written granules: numbering the written granules is `O(G)` (a bitmap over
//! their span, bounded by 8 per written granule or [`DENSE_SPAN`]; else
//! pages or a hash map, expected `O(1)` per granule); the streaming pass
//! visits each granule once and keeps, per written granule, the last writer
//! and the readers since that write, so each reader is linked once and
//! unlinked once: `O(G)` time, `O(W + G)` space, and at most `2G` edges
//! (one per read, one per write plus one per reader it clears).
//! [`UnitDag::from_edges`] then sorts the edges: `O(G log G)` in all, never
//! pairwise. The out-of-order fall-back sorts the accesses by granule:
//! `O(G log G)`. Measured over 10^3..10^6 addresses by
//! `cargo bench -p weft-runtime --bench depcheck` (`docs/runtime.md`).

use super::*;
use crate::deps::{Access, UnitDag, GRANULE};
use crate::Result;
use std::collections::HashMap;

impl SlabRecorder {
    /// The slab dependence DAG of §4.4.6 (no edges when nothing is written).
    pub fn dependences(&self) -> Result<UnitDag> {
        self.dependences_with(None)
    }

    /// [`Self::dependences`], given the written granules of this recorder's
    /// writes when they were already computed ([`WrittenGranules::of`] of
    /// the recorders appended into this one).
    pub fn dependences_with(&self, written: Option<&WrittenGranules>) -> Result<UnitDag> {
        let n = self.layout.slabs();
        if let Some(s) = self.first_write {
            return Err(crate::error::RuntimeError::Panicked(format!(
                "internal: the lazy slab recorder dropped the accesses up to iteration {s} \
                 and was not completed with `prepend`"
            )));
        }
        if self.wrecs.is_empty() {
            return Ok(UnitDag::empty(n));
        }
        if !self.monotone {
            let acc: Vec<Access> = self
                .recs
                .iter()
                .map(|r| Access {
                    unit: r.unit,
                    addr: r.addr,
                    size: r.size_w & !WRITE_BIT,
                    write: r.size_w & WRITE_BIT != 0,
                })
                .collect();
            return UnitDag::from_accesses(n, &acc);
        }
        // Written granules: their span decides between dense arrays and hashing.
        let built;
        let dense = match written {
            Some(w) => Ok(w),
            None => match WrittenGranules::dense_span(self.wrecs.iter()) {
                (Some((gmin, span)), _) => {
                    built = WrittenGranules::build(gmin, span, self.wrecs.iter());
                    Ok(&built)
                }
                (None, budget) => Err(budget),
            },
        };
        let edges = match dense {
            Ok(w) => self.edges_with(w.count, |g| w.index(g)),
            Err(budget) => {
                // Written arrays far apart (a matrix and a vector): the written
                // pages in a few runs, each numbered densely like the dense
                // case, when the pages are not too sparsely written; per page
                // when they form many runs; hashed otherwise.
                let pages = self.written_pages();
                if ((pages.len() as u64) << PAGE_BITS) > budget {
                    self.edges_hashed()
                } else {
                    match WrittenRuns::build(&pages, self.wrecs.iter()) {
                        Some(runs) => self.edges_with(runs.count, |g| runs.index(g)),
                        None => self.edges_paged(&pages),
                    }
                }
            }
        };
        UnitDag::from_edges(n, &edges)
    }

    /// Granules of a record.
    pub(super) fn granules(r: &Rec) -> std::ops::RangeInclusive<u64> {
        let size = (r.size_w & !WRITE_BIT) as u64;
        r.addr / GRANULE..=(r.addr + size - 1) / GRANULE
    }

    /// Drops the kept reads that touch no granule of `w`, the granules
    /// written by this recorder and the others of its inspection (the
    /// dependence check ignores such reads: no conflict without a write).
    /// Runs per chunk, on the inspecting cores, before the chunks are
    /// appended, so the serial check streams only the reads that matter
    /// (gauss_seidel: one read in eight).
    pub fn retain_conflicting(&mut self, w: &WrittenGranules) {
        let k = retain_touching(&mut self.recs, w);
        self.recs.truncate(k);
    }

    /// Pages (`PAGE_BITS` granules) holding a written granule, numbered in
    /// order of first write.
    pub(super) fn written_pages(&self) -> HashMap<u64, u32, Fast> {
        let mut pages: HashMap<u64, u32, Fast> = HashMap::default();
        let mut last = u64::MAX;
        for r in &self.wrecs {
            for g in Self::granules(r) {
                let pg = g >> PAGE_BITS;
                if pg != last {
                    let n = pages.len() as u32;
                    pages.entry(pg).or_insert(n);
                    last = pg;
                }
            }
        }
        pages
    }

    /// Dense per-granule state over the written `pages` only (a bitmap per
    /// page says which granules are written); consecutive accesses mostly
    /// stay in one page, so the page lookup is cached.
    pub(super) fn edges_paged(&self, pages: &HashMap<u64, u32, Fast>) -> Vec<(u32, u32)> {
        let n = pages.len() << PAGE_BITS;
        let mut written = vec![0u64; n.div_ceil(64)];
        let slot = |g: u64| {
            pages
                .get(&(g >> PAGE_BITS))
                .map(|&p| ((p as usize) << PAGE_BITS) | (g as usize & ((1 << PAGE_BITS) - 1)))
        };
        for r in &self.wrecs {
            for g in Self::granules(r) {
                if let Some(i) = slot(g) {
                    written[i / 64] |= 1 << (i % 64);
                }
            }
        }
        let last = std::cell::Cell::new((u64::MAX, None::<usize>));
        self.edges_with(n, |g| {
            let pg = g >> PAGE_BITS;
            let base = match last.get() {
                (p, b) if p == pg => b,
                _ => {
                    let b = pages.get(&pg).map(|&p| (p as usize) << PAGE_BITS);
                    last.set((pg, b));
                    b
                }
            };
            let i = base? | (g as usize & ((1 << PAGE_BITS) - 1));
            (written[i / 64] >> (i % 64) & 1 != 0).then_some(i)
        })
    }

    /// The same with the written granules numbered through a hash map
    /// (written granules far apart): one lookup per accessed granule, the
    /// per-granule state in arrays as in the dense case.
    pub(super) fn edges_hashed(&self) -> Vec<(u32, u32)> {
        let mut slot: HashMap<u64, u32, Fast> = HashMap::default();
        for r in &self.wrecs {
            for g in Self::granules(r) {
                let n = slot.len() as u32;
                slot.entry(g).or_insert(n);
            }
        }
        self.edges_with(slot.len(), |g| slot.get(&g).map(|&i| i as usize))
    }

    /// The streaming pass shared by both: `index(g)` numbers the written
    /// granules `0..n` (`None`: never written, no conflict possible). Per
    /// written granule it keeps the last writer and the readers since that
    /// write (a linked list in a pool), and links each access to the nearest
    /// conflicting writer and readers (RAW, WAR, WAW).
    ///
    /// The state (last writer and list head, side by side: one cache line
    /// per granule) and the list pool come from the recorder's
    /// [`RecordPool`] when it has one and go back to it, so that repeated
    /// inspections do not page-fault them in afresh.
    pub(super) fn edges_with(
        &self,
        n: usize,
        index: impl Fn(u64) -> Option<usize>,
    ) -> Vec<(u32, u32)> {
        const NONE: u32 = u32::MAX;
        let mut sc = self
            .pool
            .as_ref()
            .map(|p| p.take_scratch())
            .unwrap_or_default();
        let (state, pool) = (&mut sc.state, &mut sc.pool);
        state.clear();
        state.resize(n, [NONE, NONE]);
        pool.clear();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for r in &self.recs {
            let w = r.size_w & WRITE_BIT != 0;
            let u = r.unit;
            for g in Self::granules(r) {
                let Some(i) = index(g) else {
                    continue;
                };
                let [lw, head] = &mut state[i];
                if w {
                    if *lw != NONE && *lw != u {
                        edges.push((*lw, u));
                    }
                    let mut h = *head;
                    while h != NONE {
                        let (x, next) = pool[h as usize];
                        if x != u {
                            edges.push((x, u));
                        }
                        h = next;
                    }
                    *head = NONE;
                    *lw = u;
                } else if *lw != u && (*head == NONE || pool[*head as usize].0 != u) {
                    if *lw != NONE {
                        edges.push((*lw, u));
                    }
                    pool.push((u, *head));
                    *head = (pool.len() - 1) as u32;
                }
            }
        }
        if let Some(p) = &self.pool {
            p.put_scratch(sc);
        }
        edges
    }
}
