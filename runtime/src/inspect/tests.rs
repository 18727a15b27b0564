//! Tests of the inspection recording: the bank table against the mapper,
//! slab lookup, pooled buffers, written-granule sets, and every fast path
//! (paged, hashed, runs, lazy prefixes, miss filter) against the generic
//! path (same bank maps, same dependence relation).

use super::written::RUN_GAP_PAGES;
use super::*;
use crate::bankmap::AddressMap;
use crate::bankset::BankSet;
use crate::deps::{Access, UnitDag, GRANULE};
use crate::machine::Machine;

fn machine() -> std::sync::Arc<Machine> {
    std::sync::Arc::new(Machine::load("table5.2").unwrap())
}

#[test]
fn bank_table_matches_the_mapper() {
    let m = machine();
    let t = BankTable::new(&m);
    assert!(t.machine.is_none(), "table5.2 has a narrow bank span");
    let mut next = crate::testutil::xorshift(0x1234_5678_9abc_def0);
    for _ in 0..20000 {
        let a = next() >> 20;
        assert_eq!(t.bank(a), m.mem_bank(a), "address {a:#x}");
    }
}

/// Index arrays of the conflict tests: 10 iterations, repeated targets.
pub(super) const IDX: [u64; 10] = [3, 9, 0, 3, 5, 5, 1, 8, 2, 7];
pub(super) const DST: [u64; 10] = [0, 1, 0, 2, 3, 4, 1, 9, 9, 3];

fn layout() -> SlabLayout {
    // 2 cores over [0, 10): core 0 [0,5) slabs of 2: 0:[0,2) 1:[2,4) 2:[4,5);
    // core 1 [5,10): 3:[5,7) 4:[7,9) 5:[9,10)
    SlabLayout {
        chunk: vec![0, 5, 10],
        offset: vec![0, 3, 6],
        slab_iters: 2,
    }
}

/// Records 8-byte accesses of iteration `i` into `r` and, for the
/// generic reference path, into `acc`.
fn record_both(
    r: &mut SlabRecorder,
    acc: &mut Vec<Access>,
    i: i64,
    accesses: impl IntoIterator<Item = (u64, bool)>,
) {
    let unit = layout().slab_of(i).0;
    for (addr, write) in accesses {
        r.record(i, addr, 8, write);
        acc.push(Access {
            unit,
            addr,
            size: 8,
            write,
        });
    }
}

#[test]
fn slab_of_hand_computed() {
    let l = layout();
    assert_eq!(l.slab_of(0), (0, 0, 2));
    assert_eq!(l.slab_of(4), (2, 4, 5));
    assert_eq!(l.slab_of(5), (3, 5, 7));
    assert_eq!(l.slab_of(9), (5, 9, 10));
    assert_eq!(l.slabs(), 6);
}

/// Dropping reads of unwritten granules per chunk keeps the edges:
/// random reads and writes of 1 to 12 bytes over 2 KB (conflicts) and
/// reads far away (dropped), in two chunks of a two-core layout.
#[test]
fn reads_of_unwritten_granules_are_dropped_without_changing_the_edges() {
    let m = machine();
    let banks = m.num_mem_banks();
    let t = BankTable::new(&m);
    let layout = SlabLayout {
        chunk: vec![0, 200, 400],
        offset: vec![0, 20, 40],
        slab_iters: 10,
    };
    let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1d);
    let mut rnd = move |n: u64| next() % n;
    let mut chunks = Vec::new();
    for (lo, hi) in [(0i64, 200i64), (200, 400)] {
        let mut r = SlabRecorder::new(layout.clone(), banks, 6, t.clone());
        for i in lo..hi {
            for _ in 0..4 {
                let (addr, write) = match rnd(10) {
                    0 => (0x10_0000 + rnd(2048), true),
                    1..=4 => (0x10_0000 + rnd(2048), false),
                    _ => (0x80_0000 + rnd(1 << 20), false),
                };
                r.record(i, addr, 1 + rnd(12) as u32, write);
            }
        }
        chunks.push(r);
    }
    let merged = |mut parts: Vec<SlabRecorder>| {
        let mut r = parts.remove(0);
        r.append(parts.remove(0));
        r
    };
    let clone = |r: &SlabRecorder| {
        let mut c = SlabRecorder::new(layout.clone(), banks, 6, t.clone());
        c.recs = r.recs.clone();
        c.wrecs = r.wrecs.clone();
        c
    };
    let all = merged(chunks.iter().map(clone).collect());
    let w = WrittenGranules::of(&chunks).expect("dense");
    for c in &mut chunks {
        c.retain_conflicting(&w);
    }
    let kept = merged(chunks);
    assert!(
        kept.recs.len() * 2 < all.recs.len(),
        "{} of {}",
        kept.recs.len(),
        all.recs.len()
    );
    assert_eq!(kept.writes(), all.writes());
    let (a, b) = (all.dependences().unwrap(), kept.dependences().unwrap());
    assert!(a.num_edges() > 10);
    assert_eq!(a.edges(), b.edges());
}

/// Record buffers go back to the pool when a recorder is dropped and
/// are taken by the next recorder that keeps a record; a recorder that
/// keeps none takes none; the pool's bounds hold.
#[test]
fn record_buffers_are_pooled() {
    let m = machine();
    let banks = m.num_mem_banks();
    let pool = std::sync::Arc::new(RecordPool::default());
    let make = || SlabRecorder::new(layout(), banks, 6, BankTable::new(&m)).with_pool(&pool);
    let mut r = make();
    for i in 0..10 {
        r.record(i, 0x10_0000 + 8 * i as u64, 8, i % 3 == 0);
    }
    let cap = r.recs.capacity();
    assert!(cap >= 10);
    drop(r);
    assert_eq!(pool.bytes(), cap * REC_BYTES);
    let mut idle = make();
    idle.record_unchecked(0, 0x10_0000, 8);
    assert_eq!(
        pool.bytes(),
        cap * REC_BYTES,
        "an unchecked access keeps no record"
    );
    let mut r = make();
    r.record(1, 0x10_0000, 8, false);
    assert_eq!(
        (pool.bytes(), r.recs.capacity()),
        (0, cap),
        "the pooled buffer"
    );
    drop((idle, r));
    // Bounds: at most MAX_BUFFERS buffers and MAX_BYTES bytes.
    for _ in 0..RecordPool::MAX_BUFFERS + 4 {
        pool.put(Vec::with_capacity(1024));
    }
    assert_eq!(pool.bufs.lock().unwrap().0.len(), RecordPool::MAX_BUFFERS);
    pool.put(Vec::with_capacity(RecordPool::MAX_BYTES / REC_BYTES + 1));
    assert!(pool.bytes() <= RecordPool::MAX_BYTES);
}

/// `WrittenGranules::any` at word edges, hand-checked: granules 0 and
/// 63..=64 of a span starting at granule 100 are written.
#[test]
fn written_granules_any_hand_checked() {
    let rec = |addr: u64, size: u32| Rec {
        addr,
        unit: 0,
        size_w: size | WRITE_BIT,
    };
    let g = |i: u64| (100 + i) * GRANULE;
    let writes = [rec(g(0), 4), rec(g(63), 8), rec(g(200), 4)];
    let w = WrittenGranules::build(100, 201, writes.iter());
    assert!(w.any(100, 100) && w.any(0, 100) && w.any(163, 163) && w.any(164, 170));
    assert!(!w.any(101, 162) && !w.any(165, 299) && !w.any(0, 99) && !w.any(301, 400));
    assert!(w.any(0, u64::MAX) && w.any(300, 400));
    // numbered among the written granules 100, 163, 164, 300
    assert_eq!(
        (
            w.index(100),
            w.index(101),
            w.index(164),
            w.index(300),
            w.count
        ),
        (Some(0), None, Some(2), Some(3), 4)
    );
    // `touches` (bytes): the window path and the fallback agree with `any`
    for g0 in 0..420u64 {
        for n in [1u64, 2, 3, 8, 31, 32, 40, 70] {
            let (a, size) = (g0 * GRANULE + g0 % 3, n * GRANULE);
            let (e0, e1) = (a / GRANULE, (a + size - 1) / GRANULE);
            assert_eq!(w.touches(a, size), w.any(e0, e1), "{a} {size}");
        }
    }
    assert!(w.touches(g(63) + 3, 2) && !w.touches(g(62), 4) && w.touches(g(62), 5));
}

/// The bitmap `build` sets and `covers_writes` against granule-by-granule
/// versions, on random writes of 1 byte to 300 granules (the window paths
/// and the long fallbacks), and on writes that leave it partly or wholly.
#[test]
fn written_bitmap_and_cover_match_granule_by_granule() {
    let m = machine();
    let banks = m.num_mem_banks();
    let mut next = crate::testutil::xorshift(0x51_7cc1_b727_220a);
    let mut rnd = move |n: u64| next() % n;
    let base = 0x4000_0000u64;
    let mut seen = [0usize; 2];
    for round in 0..40 {
        let mut r = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
        let mut granules = std::collections::BTreeSet::new();
        for i in 0..10 {
            for _ in 0..1 + rnd(6) {
                let size = match rnd(5) {
                    0 => 1 + rnd(1200) as u32,
                    _ => [1u32, 4, 8, 16, 24, 250][rnd(6) as usize],
                };
                let addr = base + rnd(4096) * 3 + (round % 5);
                r.record(i, addr, size, true);
                granules.extend(addr / GRANULE..=(addr + size as u64 - 1) / GRANULE);
            }
        }
        let w = WrittenGranules::of(std::slice::from_ref(&r)).expect("dense");
        let set: Vec<u64> = (w.gmin..w.gmin + w.span as u64)
            .filter(|&g| w.index(g).is_some())
            .collect();
        assert_eq!(
            set,
            granules.iter().copied().collect::<Vec<_>>(),
            "round {round}"
        );
        assert_eq!(w.count, granules.len());
        assert!(w.covers_writes(std::slice::from_ref(&r)));
        // Other writes: covered exactly when each of their granules is written.
        for _ in 0..50 {
            let mut o = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
            let size = [1u32, 4, 8, 40, 300][rnd(5) as usize];
            let addr = base - 64 + rnd(12_500);
            o.record(3, addr, size, true);
            let want = (addr / GRANULE..=(addr + size as u64 - 1) / GRANULE)
                .all(|g| granules.contains(&g));
            assert_eq!(
                w.covers_writes(std::slice::from_ref(&o)),
                want,
                "{addr} {size}"
            );
            seen[want as usize] += 1;
        }
    }
    assert!(
        seen[0] > 100 && seen[1] > 100,
        "{seen:?} (uncovered, covered)"
    );
}

#[test]
fn maps_and_dependences_match_the_generic_path() {
    let m = machine();
    let banks = m.num_mem_banks();
    let mut r = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
    let mut acc = Vec::new();
    // iteration i reads x[IDX[i]] and writes y[DST[i]] (8-byte elements)
    for i in 0..10i64 {
        record_both(
            &mut r,
            &mut acc,
            i,
            [
                (0x10_0000 + 8 * IDX[i as usize], false),
                (0x10_0000 + 8 * DST[i as usize], true),
                (0x80_0000 + 4096 * i as u64, false),
            ],
        );
    }
    let generic = crate::bankmap::unit_maps(m.as_ref(), 6, &acc).unwrap();
    assert_eq!(r.bank_maps(), generic.mem);
    let fast = r.dependences().unwrap();
    let slow = UnitDag::from_accesses(6, &acc).unwrap();
    assert_eq!(closure(&fast), closure(&slow));
    assert!(!fast.has_no_edges());
    let hashed = UnitDag::from_edges(6, &r.edges_hashed()).unwrap();
    assert_eq!(closure(&hashed), closure(&slow));
}

#[test]
fn bank_block_maps_equal_the_per_line_maps() {
    // table5.2: bank bits from bit 11 up, so the maps are kept per 2 KB
    // block; they must be those of marking every 64-byte line.
    let m = machine();
    let banks = m.num_mem_banks();
    let t = BankTable::new(&m);
    assert_eq!(t.block_shift(), 11);
    let mut r = SlabRecorder::new(layout(), banks, 6, t.clone());
    assert_eq!(r.line_shift(), 11);
    assert_eq!(
        SlabRecorder::new(layout(), banks, 6, t)
            .with_miss_filter(64)
            .line_shift(),
        6,
        "a miss predictor works on cache lines"
    );
    let mut acc = Vec::new();
    let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1d);
    for i in 0..10i64 {
        for _ in 0..40 {
            let x = next();
            // Sizes up to a few blocks, some accesses straddling a block.
            let size = [1u32, 8, 8, 64, 72, 2048, 2056, 5000][(x % 8) as usize];
            let addr = 0x4000_0000 + (x >> 16) % (1 << 24);
            r.record_unchecked(i, addr, size);
            acc.push(Access {
                unit: layout().slab_of(i).0,
                addr,
                size,
                write: false,
            });
        }
    }
    let generic = crate::bankmap::unit_maps(m.as_ref(), 6, &acc).unwrap();
    assert_eq!(r.bank_maps(), generic.mem);
    assert!(
        r.bank_maps().iter().all(|s| s.count() > 1),
        "slabs touch several banks"
    );
}

#[test]
fn range_reports_equal_element_reports() {
    // One report of a row's bytes (weft_inspect_range) sets the bits of
    // reporting each 8-byte element; 0 bytes set nothing.
    let m = machine();
    let banks = m.num_mem_banks();
    let mut ranges = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
    let mut elements = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
    for i in 0..10i64 {
        let (start, len) = (0x2000_0000 + 1000 * 8 * i as u64, 37 * (i as u64 + 1));
        ranges.record_range(i, start, len * 8);
        ranges.record_range(i, start, 0);
        for e in 0..len {
            elements.record_unchecked(i, start + 8 * e, 8);
        }
    }
    assert_eq!(ranges.bank_maps(), elements.bank_maps());
    assert!(ranges.bank_maps().iter().any(|s| s.count() > 1));
    // Past 4 GB (the limit of weft_inspect_access's size): every bank.
    let mut big = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m));
    big.record_range(3, 0x1_0000_0000, 5 << 30);
    assert_eq!(
        big.bank_maps()[layout().slab_of(3).0 as usize].count(),
        banks
    );
}

#[test]
fn lazy_chunks_completed_by_prefix_equal_the_full_recording() {
    let m = machine();
    let banks = m.num_mem_banks();
    let t = || BankTable::new(&m);
    // iteration i reads x[i] and a far line; from iteration 3 on (chunk 0)
    // and 7 on (chunk 1) it also writes y[i % 4].
    let accesses = |i: i64| {
        let mut v = vec![
            (0x4000 + 8 * i as u64, false),
            (0x90_0000 + 4096 * i as u64, false),
        ];
        if i == 3 || i >= 7 {
            v.push((0x2000 + 8 * (i as u64 % 4), true));
        }
        v
    };
    let inspect = |r: &mut SlabRecorder, a: i64, b: i64| {
        for i in a..b {
            for (addr, w) in accesses(i) {
                r.record(i, addr, 8, w);
            }
        }
    };
    let mut full = SlabRecorder::new(layout(), banks, 6, t());
    inspect(&mut full, 0, 10);
    let mut merged = SlabRecorder::new(layout(), banks, 6, t());
    for (a, b, first) in [(0, 5, 3), (5, 10, 7)] {
        let mut lazy = SlabRecorder::lazy(layout(), banks, 6, t());
        inspect(&mut lazy, a, b);
        assert_eq!(lazy.first_write_iter(), Some(first));
        assert!(lazy.dependences().is_err(), "incomplete until prepended");
        let mut pre = SlabRecorder::new(layout(), banks, 6, t());
        inspect(&mut pre, a, first + 1);
        lazy.prepend(pre);
        merged.append(lazy);
    }
    assert_eq!(merged.bank_maps(), full.bank_maps());
    assert_eq!(merged.accesses(), full.accesses());
    assert_eq!(merged.writes(), full.writes());
    assert_eq!(
        merged.dependences().unwrap().edges(),
        full.dependences().unwrap().edges()
    );
    assert!(!full.dependences().unwrap().has_no_edges());
    // Without writes a lazy recorder keeps nothing and needs no prefix.
    let mut lazy = SlabRecorder::lazy(layout(), banks, 6, t());
    lazy.record(1, 0x4000, 8, false);
    assert_eq!(lazy.first_write_iter(), None);
    assert!(lazy.recs.is_empty());
    assert_eq!(lazy.accesses(), 1);
    assert!(lazy.dependences().unwrap().has_no_edges());
    // Unchecked accesses set the same bits as reads and keep no record,
    // even after a write.
    let mut full = SlabRecorder::new(layout(), banks, 6, t());
    let mut unch = SlabRecorder::new(layout(), banks, 6, t());
    for i in 0..10 {
        full.record(i, 0x7000 + 4096 * i as u64, 8, false);
        unch.record_unchecked(i, 0x7000 + 4096 * i as u64, 8);
    }
    unch.record(9, 0x40, 8, true);
    full.record(9, 0x40, 8, true);
    assert_eq!(unch.bank_maps(), full.bank_maps());
    assert_eq!((unch.recs.len(), unch.accesses()), (1, 11));
}

#[test]
fn far_apart_writes_paged_and_hashed_match_the_generic_path() {
    let m = machine();
    let mut r = SlabRecorder::new(layout(), m.num_mem_banks(), 6, BankTable::new(&m));
    let mut acc = Vec::new();
    // Two written arrays 1 TiB apart (span far over the dense budget):
    // iteration i updates a[IDX[i]] and b[DST[i]] and reads a[i].
    let (a, b) = (0x10_0000u64, 0x100_0000_0000u64);
    for i in 0..10i64 {
        record_both(
            &mut r,
            &mut acc,
            i,
            [
                (a + 8 * i as u64, false),
                (a + 8 * IDX[i as usize], true),
                (b + 8 * DST[i as usize], true),
            ],
        );
    }
    let slow = closure(&UnitDag::from_accesses(6, &acc).unwrap());
    assert_eq!(closure(&r.dependences().unwrap()), slow);
    let pages = r.written_pages();
    assert_eq!(pages.len(), 2);
    let paged = UnitDag::from_edges(6, &r.edges_paged(&pages)).unwrap();
    assert_eq!(closure(&paged), slow);
    let hashed = UnitDag::from_edges(6, &r.edges_hashed()).unwrap();
    assert_eq!(closure(&hashed), slow);
    assert!(slow.iter().flatten().any(|&e| e));
}

/// The run-numbered check (`WrittenRuns`) against the generic one, on
/// random accesses of 1-16 bytes to two written arrays 1 TiB apart, one
/// of them written in two places 64 pages apart (three runs), and a
/// read-only array: equal dependence closures for every seed, and the
/// runs agree with the paged and hashed numbering.
#[test]
fn written_runs_match_the_generic_path() {
    let m = machine();
    let lay = || SlabLayout {
        chunk: vec![0, 100, 200],
        offset: vec![0, 10, 20],
        slab_iters: 10,
    };
    let (a, b, c) = (0x10_0000u64, 0x100_0000_0000u64, 0x7000_0000u64);
    for seed in 0..20u64 {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut r = SlabRecorder::new(lay(), m.num_mem_banks(), 6, BankTable::new(&m));
        let mut acc = Vec::new();
        for i in 0..200i64 {
            let unit = lay().slab_of(i).0;
            for _ in 0..3 {
                let (base, span, may_write) = match rnd(4) {
                    0 => (a, 2048, true),
                    1 => (b, 2048, true),
                    2 => (b + 64 * 4096, 2048, true),
                    _ => (c, 4096, false),
                };
                let size = [1u32, 2, 4, 8, 16][rnd(5) as usize];
                let addr = base + rnd(span);
                let write = may_write && rnd(3) == 0;
                r.record(i, addr, size, write);
                acc.push(Access {
                    unit,
                    addr,
                    size,
                    write,
                });
            }
        }
        let slow = closure(&UnitDag::from_accesses(20, &acc).unwrap());
        assert_eq!(closure(&r.dependences().unwrap()), slow, "seed {seed}");
        let pages = r.written_pages();
        let runs = WrittenRuns::build(&pages, r.wrecs.iter()).expect("three runs");
        assert_eq!(runs.runs.len(), 3, "seed {seed}");
        let by_runs = r.edges_with(runs.count, |g| runs.index(g));
        assert_eq!(closure(&UnitDag::from_edges(20, &by_runs).unwrap()), slow);
        let paged = UnitDag::from_edges(20, &r.edges_paged(&pages)).unwrap();
        assert_eq!(closure(&paged), slow);
        let hashed = UnitDag::from_edges(20, &r.edges_hashed()).unwrap();
        assert_eq!(closure(&hashed), slow);
        assert!(
            slow.iter().flatten().any(|&e| e),
            "seed {seed}: no dependence"
        );
    }
}

/// More than `MAX_RUNS` runs of written pages: `WrittenRuns` declines.
#[test]
fn written_runs_decline_many_runs() {
    let m = machine();
    let mut r = SlabRecorder::new(layout(), m.num_mem_banks(), 6, BankTable::new(&m));
    for i in 0..10i64 {
        for k in 0..2u64 {
            let page = (2 * i as u64 + k) * (RUN_GAP_PAGES + 1);
            r.record(i, 0x10_0000 + (page << (PAGE_BITS + 2)), 8, true);
        }
    }
    let pages = r.written_pages();
    assert_eq!(pages.len(), 20);
    assert!(WrittenRuns::build(&pages, r.wrecs.iter()).is_none());
}

#[test]
fn line_filter_is_lru_per_set() {
    let mut f = LineFilter::new(8); // 2 sets of 4 ways
    assert_eq!(f.capacity(), 8);
    // Even lines share set 0: 0, 2, 4, 6 fill it, 8 evicts 0 (LRU).
    for l in [0, 2, 4, 6] {
        assert!(!f.touch(l), "line {l} is new");
    }
    assert!(f.touch(0), "0 is still there; now most recent");
    assert!(!f.touch(8), "evicts the LRU line, 2");
    assert!(!f.touch(2), "2 was evicted (and now evicts 4)");
    assert!(f.touch(0) && f.touch(8) && f.touch(6));
    assert!(!f.touch(4));
    // Set 1 (odd lines) is untouched by all that.
    assert!(!f.touch(1) && f.touch(1));
    // Sizes round to the nearest power-of-two number of sets.
    assert_eq!(LineFilter::new(0).capacity(), 4);
    assert_eq!(LineFilter::new(12).capacity(), 16);
    assert_eq!(LineFilter::new(20).capacity(), 16);
    assert_eq!(LineFilter::new(17749).capacity(), 16384);
}

/// `table4.2`: page-interleaved, so the 4 KiB pages at 0x0, 0x1000, ...
/// 0x5000 lie in six different banks (the bank bits start at bit 12).
fn paged_banks() -> (std::sync::Arc<Machine>, [usize; 6]) {
    let m = std::sync::Arc::new(Machine::load("table4.2").unwrap());
    let b: [usize; 6] = std::array::from_fn(|k| m.mem_bank(0x1000 * k as u64));
    let mut d = b.to_vec();
    d.sort_unstable();
    d.dedup();
    assert_eq!(d.len(), 6, "distinct banks {b:?}");
    (m, b)
}

#[test]
fn miss_filter_hand_computed_bank_maps() {
    let (m, bank) = paged_banks();
    let banks = m.num_mem_banks();
    let set = |v: &[usize]| BankSet::from_banks(banks, v).unwrap();
    // Pages 0..5 start at lines 0, 64, ..., 320: all in set 0 of a
    // 16-line filter (4 sets of 4 ways).
    let (a, b, c, d, e, f) = (0x0, 0x1000, 0x2000, 0x3000, 0x4000, 0x5000);
    let run = |filter: usize| {
        let mut r =
            SlabRecorder::new(layout(), banks, 6, BankTable::new(&m)).with_miss_filter(filter);
        // slab 0: A twice (the same line), B once
        r.record(0, a, 8, false);
        r.record(1, a + 8, 8, false);
        r.record(1, b, 8, false);
        // slab 1: A again (within capacity), C
        r.record(2, a, 8, false);
        r.record_unchecked(3, c, 8);
        // slab 2: D, E, F evict A (LRU of set 0 after slab 1: C A B),
        // then A again
        for x in [d, e, f, a] {
            r.record(4, x, 8, false);
        }
        r
    };
    // Every access a predicted miss (the dissertation's default).
    let off = run(0);
    assert_eq!(off.filter_counts(), (0, 9));
    let maps = off.bank_maps();
    assert_eq!(maps[0], set(&[bank[0], bank[1]]));
    assert_eq!(maps[1], set(&[bank[0], bank[2]]));
    assert_eq!(maps[2], set(&[bank[3], bank[4], bank[5], bank[0]]));
    // With the filter: A's second touch in slab 0 and its touch in slab 1
    // hit; in slab 2 it was evicted and misses again.
    let on = run(16);
    assert_eq!(on.filter_counts(), (2, 9));
    let maps = on.bank_maps();
    assert_eq!(maps[0], set(&[bank[0], bank[1]]));
    assert_eq!(maps[1], set(&[bank[2]]));
    assert_eq!(maps[2], set(&[bank[3], bank[4], bank[5], bank[0]]));
    assert!(maps[3..].iter().all(|s| s.count() == 0));
    // 256 sets: A, E in set 0, B, F in set 64, C in 128, D in 192; A
    // stays and slab 2 loses A's bank.
    let big = run(1024);
    assert_eq!(big.filter_counts(), (3, 9));
    assert_eq!(big.bank_maps()[2], set(&[bank[3], bank[4], bank[5]]));
}

#[test]
fn miss_filter_lines_spanning_accesses_and_empty_maps_schedule() {
    let (m, bank) = paged_banks();
    let banks = m.num_mem_banks();
    let mut r = SlabRecorder::new(layout(), banks, 6, BankTable::new(&m)).with_miss_filter(64);
    // A 16-byte access across the page boundary 0x1000: two lines, two banks.
    r.record(0, 0x1000 - 8, 16, false);
    // Slab 1 touches only those lines again: an empty map.
    r.record(2, 0x1000 - 8, 8, false);
    r.record(3, 0x1000, 8, false);
    assert_eq!(r.filter_counts(), (2, 4));
    let maps = r.bank_maps();
    assert_eq!(
        maps[0],
        BankSet::from_banks(banks, &[bank[0], bank[1]]).unwrap()
    );
    assert_eq!(maps[1].count(), 0);
    // Algorithm 4 still schedules every slab (empty maps included) once.
    let per_core = vec![maps[0..3].to_vec(), maps[3..6].to_vec()];
    let inst = crate::blp::SlabInstance::new(banks, per_core).unwrap();
    let s = crate::blp::schedule_blp(&inst, &Default::default(), None).unwrap();
    let mut got = s.per_core();
    for c in &mut got {
        c.sort_unstable();
    }
    assert_eq!(got, vec![vec![0, 1, 2], vec![0, 1, 2]]);
}

#[test]
fn miss_filter_lazy_prefix_equals_the_full_recording() {
    let (m, _) = paged_banks();
    let banks = m.num_mem_banks();
    let t = || BankTable::new(&m);
    // Iterations read lines of a few pages again and again; iteration 3
    // writes.
    let inspect = |r: &mut SlabRecorder, a: i64, b: i64| {
        for i in a..b {
            r.record(i, 0x1000 * (i as u64 % 3), 8, false);
            r.record(i, 0x8000 + 0x1000 * (i as u64 % 5), 8, i == 3);
        }
    };
    let mut full = SlabRecorder::new(layout(), banks, 6, t()).with_miss_filter(1024);
    inspect(&mut full, 0, 5);
    let mut lazy = SlabRecorder::lazy(layout(), banks, 6, t()).with_miss_filter(1024);
    inspect(&mut lazy, 0, 5);
    let mut pre = SlabRecorder::new(layout(), banks, 6, t()).with_miss_filter(1024);
    inspect(&mut pre, 0, 4);
    lazy.prepend(pre);
    assert_eq!(lazy.bank_maps(), full.bank_maps());
    assert_eq!(lazy.filter_counts(), full.filter_counts());
    assert!(full.filter_counts().0 > 0);
    assert_eq!(lazy.accesses(), full.accesses());
}

/// Reachability matrix (the dependence relation both DAGs must induce).
fn closure(d: &UnitDag) -> Vec<Vec<bool>> {
    let n = d.len();
    let mut r = vec![vec![false; n]; n];
    for v in 0..n {
        for &p in d.preds(v) {
            r[p as usize][v] = true;
            for row in r.iter_mut() {
                if row[p as usize] {
                    row[v] = true;
                }
            }
        }
    }
    r
}

#[test]
fn no_writes_no_edges_and_out_of_order_falls_back() {
    let m = machine();
    let mut r = SlabRecorder::new(layout(), m.num_mem_banks(), 6, BankTable::new(&m));
    r.record(9, 64, 4, false);
    r.record(0, 64, 4, false);
    assert!(r.dependences().unwrap().has_no_edges());
    r.record(1, 64, 4, true);
    // units 5 (read), 0 (read), 0 (write): WAR edge 5 -> 0 would be cyclic in
    // unit order; the generic path orders by unit: 0 writes before 5 reads.
    let d = r.dependences().unwrap();
    assert_eq!(d.edges(), vec![(0, 5)]);
}

/// A range report longer than the bank table's period walks one period
/// (the banks repeat) and returns at once, with the bank map of the whole
/// range: before, `UINT64_MAX`-sized reports never returned.
#[test]
fn huge_ranges_walk_one_bank_period() {
    let m = machine();
    let table = BankTable::new(&m);
    let (_, lsb, mask) = table.lookup().expect("table5.2 has a bank table");
    let period = 1u64 << (lsb + (64 - mask.leading_zeros()));
    let rec = |bytes: u64| {
        let mut r = SlabRecorder::new(layout(), m.num_mem_banks(), 6, BankTable::new(&m));
        r.record_range(0, 0x1000, bytes);
        r.record_range(5, 0x1040, bytes);
        r.record_range(7, 0x40, bytes.min(period / 3));
        r.bank_maps()
    };
    let one = rec(period);
    assert!(one[0].count() > 1, "a period covers several banks");
    assert_eq!(rec(1 << 50), one);
    assert_eq!(rec(period * 7 + 100), one);
}
