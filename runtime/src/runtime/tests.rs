//! Tests of the inspector's inline recording: the compiled wrappers' inline
//! path, gathers and range reports record exactly what `weft_inspect_access`
//! records (bank maps, records, counts), and the C layout of `InspectFast`.

use super::*;
use crate::abi::{
    weft_inspect_access, weft_inspect_checked, weft_inspect_fast, weft_inspect_fast_flush,
    InspectFast, ACCESS_UNCHECKED,
};
use crate::bankmap::AddressMap;
use crate::inspect::{BankTable, SlabLayout, SlabRecorder, WrittenGranules};
use std::sync::Arc;

/// What the compiler's inline wrappers (`weft.inspect.report_line` and
/// `weft.inspect.report_checked` of `passes/src/inspector.rs`) do with an
/// access, in Rust: unchecked accesses and checked reads of at most two
/// lines are recorded through `st` (refreshed when `k` leaves its slab;
/// a checked read also needs a free record), other unchecked accesses
/// call `weft_inspect_access` and other checked ones
/// `weft_inspect_checked`. Returns whether the access was recorded inline.
fn report_inline(
    h: *mut Inspector,
    st: &mut InspectFast,
    shift: u32,
    (k, addr, size, kind): (i64, u64, u32, u32),
) -> bool {
    let (first, last) = (addr >> shift, (addr + size as u64 - 1) >> shift);
    let few = last - first <= 1 && st.enabled != 0;
    if few && !(st.lo <= k && k < st.hi) {
        assert_eq!(weft_inspect_fast(h, k, st), 0);
    }
    let rec_free = match kind {
        ACCESS_UNCHECKED => true,
        0 => st.recs < st.recs_end,
        _ => st.recs < st.recs_end && st.rec_step != 0,
    };
    if few && st.enabled != 0 && st.lo <= k && k < st.hi && rec_free {
        for x in [addr, addr + size as u64 - 1] {
            // SAFETY: the runtime's table and row, valid during the inspection.
            unsafe {
                let b = *st.table.add(((x >> st.lsb) & st.mask) as usize) as usize;
                *st.row.add(b >> 6) |= 1u64 << (b & 63);
            }
        }
        st.reported += 1;
        st.touches += last - first + 1;
        // SAFETY: a free record of the runtime (`recs < recs_end`).
        unsafe {
            match kind {
                0 => {
                    write_record(st.recs, addr, st.unit, size);
                    if !unwritten_read(st, addr, size) {
                        st.recs = st.recs.add(st.rec_step as usize);
                    }
                }
                1 => {
                    st.recs_end = st.recs_end.sub(16);
                    write_record(st.recs_end, addr, st.unit, size | 1 << 31);
                }
                _ => {}
            }
        }
        return true;
    }
    match kind {
        ACCESS_UNCHECKED => {
            assert_eq!(weft_inspect_access(h, k, addr as *const _, size, kind), 0)
        }
        _ => assert_eq!(
            weft_inspect_checked(h, st, k, addr as *const _, size, kind),
            0
        ),
    }
    false
}

/// The compiled read filter's rule (`InspectFast::wbits`): a read the
/// inspector need not record.
fn unwritten_read(st: &InspectFast, addr: u64, size: u32) -> bool {
    let g = addr >> 2;
    let n = ((addr + size as u64 - 1) >> 2) - g;
    let i = g.wrapping_sub(st.wgmin);
    if st.wspan == 0 || i >= st.wspan || n >= 32 {
        return false;
    }
    // SAFETY: the runtime's bitmap, valid during the inspection; bits
    // `i..=i + n` lie in its words (one past the last bit's word).
    (i..=i + n).all(|j| unsafe { *st.wbits.add((j / 64) as usize) } >> (j % 64) & 1 == 0)
}

/// Writes a 16-byte record (`InspectFast`'s layout) at `p`.
///
/// # Safety
/// `p` must point at 16 writable bytes.
unsafe fn write_record(p: *mut u8, addr: u64, unit: u32, size_w: u32) {
    unsafe {
        (p as *mut u64).write_unaligned(addr);
        (p.add(8) as *mut u32).write_unaligned(unit);
        (p.add(12) as *mut u32).write_unaligned(size_w);
    }
}

/// What the wrapper-model tests check after recording the same accesses
/// one call per access (`slow`) and the compiled way (`fast`) in `mode`
/// (`lazy`, `keep` or `filtered`): same bank maps, edges (not for lazy
/// recorders, which drop reads before the first write), counts and writes;
/// after `keep`, `written` holds the granules written (the next mode's
/// filter); the filtered side keeps at least 100 records fewer.
fn same_recording(
    mode: &str,
    fast: &SlabRecorder,
    slow: &SlabRecorder,
    written: &mut Option<Arc<WrittenGranules>>,
) {
    assert_eq!(fast.bank_maps(), slow.bank_maps(), "{mode}");
    if mode != "lazy" {
        let (df, ds) = (fast.dependences().unwrap(), slow.dependences().unwrap());
        assert!(ds.num_edges() > 10, "{} edges", ds.num_edges());
        assert_eq!(df.edges(), ds.edges(), "{mode}");
    }
    assert_eq!(fast.accesses(), slow.accesses(), "{mode}");
    assert_eq!(fast.filter_counts(), slow.filter_counts(), "{mode}");
    assert_eq!(fast.writes(), slow.writes(), "{mode}");
    assert!(slow.writes() > 0);
    assert_eq!(fast.first_write_iter(), slow.first_write_iter(), "{mode}");
    match mode {
        "keep" => {
            assert_eq!(fast.kept(), slow.kept());
            let w = WrittenGranules::of(std::slice::from_ref(slow)).expect("dense");
            *written = Some(Arc::new(w));
        }
        "filtered" => {
            assert!(fast.reads_filtered());
            assert!(
                fast.kept() + 100 < slow.kept(),
                "{} of {} records kept",
                fast.kept(),
                slow.kept()
            );
        }
        _ => {}
    }
}

/// One core over [0, 10), slabs [0, 5) and [5, 10).
fn one_core_two_slabs() -> SlabLayout {
    SlabLayout {
        chunk: vec![0, 10],
        offset: vec![0, 2],
        slab_iters: 5,
    }
}

fn slab_inspector(lo: i64, hi: i64, rec: SlabRecorder) -> Inspector {
    Inspector::new(lo, hi, true, Layout::Slabs(Box::new(rec)))
}

fn recorder(h: Inspector) -> SlabRecorder {
    match h.layout {
        Layout::Slabs(r) => *r,
        Layout::Blocks { .. } => unreachable!(),
    }
}

#[test]
fn inline_recording_equals_weft_inspect_access() {
    let m = Arc::new(Machine::load("table5.2").unwrap());
    let banks = m.num_mem_banks();
    // Two cores over [0, 300), slabs of 7 iterations.
    let layout = SlabLayout {
        chunk: vec![0, 150, 300],
        offset: vec![0, 22, 44],
        slab_iters: 7,
    };
    let mut next = crate::testutil::xorshift(0x9e37_79b9_7f4a_7c15);
    let mut rnd = move |n: u64| next() % n;
    // Per iteration: random addresses over 64 MiB, sizes of one byte to a
    // few lines; mostly unchecked, a few checked reads and writes (the
    // first write puts the lazy recorder into keeping mode).
    let mut accesses = Vec::new();
    for (lo, hi) in [(0i64, 150i64), (150, 300)] {
        let mut chunk = Vec::new();
        let mut iters: Vec<i64> = (lo..hi).collect();
        // Some iterations revisited out of order (a slab left and re-entered).
        for _ in 0..10 {
            iters.push(lo + rnd((hi - lo) as u64) as i64);
        }
        for k in iters {
            for _ in 0..1 + rnd(6) {
                let kind = match rnd(40) {
                    0 => 1,
                    1..=12 => 0,
                    _ => ACCESS_UNCHECKED,
                };
                // Checked accesses within 8 KB, so that slabs conflict.
                let addr = match kind {
                    ACCESS_UNCHECKED => 0x1000_0000 + rnd(64 << 20),
                    _ => 0x2000_0000 + rnd(8 << 10),
                };
                let size = [1u32, 4, 8, 8, 16, 24, 72, 72, 130][rnd(9) as usize];
                chunk.push((k, addr, size, kind));
            }
        }
        accesses.push(((lo, hi), chunk));
    }
    let t = BankTable::new(&m);
    // Lazy recorders (checked reads dropped before the first write),
    // keeping ones (the dependences compare), and keeping ones whose
    // inline reads go through the writes-first filter (the granules the
    // keeping run wrote; the one-by-one side keeps every read).
    let mut written = None;
    for mode in ["lazy", "keep", "filtered"] {
        let lazy = mode == "lazy";
        let make = || match lazy {
            true => SlabRecorder::lazy(layout.clone(), banks, 6, t.clone()),
            false => SlabRecorder::new(layout.clone(), banks, 6, t.clone()),
        };
        let make_fast = || match (mode, &written) {
            ("filtered", Some(w)) => make().with_read_filter(Arc::clone(w)),
            _ => make(),
        };
        let (mut slow, mut fast) = (make(), make_fast());
        let (mut inline, mut inline_checked) = (0, 0);
        for ((lo, hi), chunk) in &accesses {
            let mut hs = slab_inspector(*lo, *hi, make());
            let mut hf = slab_inspector(*lo, *hi, make_fast());
            let shift = hf.line_shift();
            let mut st = InspectFast {
                enabled: 1,
                ..Default::default()
            };
            for &a in chunk {
                let (k, addr, size, kind) = a;
                assert_eq!(
                    weft_inspect_access(&mut hs, k, addr as *const _, size, kind),
                    0
                );
                let done = report_inline(&mut hf, &mut st, shift, a);
                inline += done as usize;
                inline_checked += (done && kind != ACCESS_UNCHECKED) as usize;
            }
            assert_eq!(st.enabled, 1, "table5.2, no miss filter: exact inline path");
            // 2 KB bank blocks of table5.2, not 64-byte lines.
            assert_eq!(st.shift, 11);
            assert_eq!(weft_inspect_fast_flush(&mut hf, &mut st), 0);
            assert_eq!((st.reported, st.touches), (0, 0));
            slow.append(recorder(hs));
            fast.append(recorder(hf));
        }
        assert!(inline > 500, "{inline} accesses recorded inline");
        assert!(
            inline_checked > 100,
            "{inline_checked} checked reads recorded inline"
        );
        same_recording(mode, &fast, &slow, &mut written);
    }
    assert!(written.is_some());
}

/// `weft_inspect_gather` against one `weft_inspect_access` per read:
/// gathers through `int32_t` and `int64_t` indices (0 to 40 reads, some
/// over three lines, some negative indices), mixed with checked writes
/// and unchecked accesses through the inline model, iterations revisited
/// out of order; lazy, keeping and filtered recorders. Same bank maps,
/// edges and counts; most gathered reads take the inline path; the
/// filtered side keeps fewer records.
#[test]
fn gather_equals_one_report_per_read() {
    use crate::abi::weft_inspect_gather;
    let m = Arc::new(Machine::load("table5.2").unwrap());
    let banks = m.num_mem_banks();
    let layout = SlabLayout {
        chunk: vec![0, 120, 240],
        offset: vec![0, 18, 36],
        slab_iters: 7,
    };
    let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1d);
    let mut rnd = move |n: u64| next() % n;
    // The gathered array: 8 KB of doubles at a fixed address (the reads
    // are not performed), indices into it.
    let base = 0x2000_0000u64;
    enum Op {
        One(i64, u64, u32, u32),
        Gather {
            k: i64,
            idx32: Vec<i32>,
            idx64: Vec<i64>,
            wide: bool,
            scale: i64,
            size: u32,
            kind: u32,
        },
    }
    let mut chunks = Vec::new();
    for (lo, hi) in [(0i64, 120i64), (120, 240)] {
        let mut ops = Vec::new();
        let mut iters: Vec<i64> = (lo..hi).collect();
        for _ in 0..8 {
            iters.push(lo + rnd((hi - lo) as u64) as i64);
        }
        for k in iters {
            for _ in 0..1 + rnd(3) {
                match rnd(10) {
                    0 => ops.push(Op::One(k, base + rnd(8 << 10), 8, 1)),
                    1 => ops.push(Op::One(k, 0x1000_0000 + rnd(64 << 20), 8, ACCESS_UNCHECKED)),
                    r => {
                        let n = rnd(41) as usize;
                        // Indices around the middle of the array: doubles,
                        // 24-byte elements, or 2100-byte reads (two or three
                        // 2 KB blocks: the one-by-one way).
                        let (scale, size) = match rnd(8) {
                            0 => (24, 24),
                            1 => (8, 2100),
                            _ => (8, 8),
                        };
                        let idx64: Vec<i64> = (0..n).map(|_| rnd(800) as i64 - 200).collect();
                        ops.push(Op::Gather {
                            k,
                            idx32: idx64.iter().map(|&x| x as i32).collect(),
                            idx64,
                            wide: r % 2 == 0,
                            scale,
                            size,
                            kind: if r < 8 { 0 } else { ACCESS_UNCHECKED },
                        });
                    }
                }
            }
        }
        chunks.push(((lo, hi), ops));
    }
    let base_g = base + 200 * 8;
    let t = BankTable::new(&m);
    let mut written = None;
    let mut gathered_inline = 0u64;
    for mode in ["lazy", "keep", "filtered"] {
        let lazy = mode == "lazy";
        let make = || match lazy {
            true => SlabRecorder::lazy(layout.clone(), banks, 6, t.clone()),
            false => SlabRecorder::new(layout.clone(), banks, 6, t.clone()),
        };
        let make_fast = || match (mode, &written) {
            ("filtered", Some(w)) => make().with_read_filter(Arc::clone(w)),
            _ => make(),
        };
        let (mut slow, mut fast) = (make(), make_fast());
        for ((lo, hi), ops) in &chunks {
            let mut hs = slab_inspector(*lo, *hi, make());
            let mut hf = slab_inspector(*lo, *hi, make_fast());
            let shift = hf.line_shift();
            let mut st = InspectFast {
                enabled: 1,
                ..Default::default()
            };
            for op in ops {
                match op {
                    &Op::One(k, addr, size, kind) => {
                        let h: *mut Inspector = &mut hs;
                        assert_eq!(weft_inspect_access(h, k, addr as *const _, size, kind), 0);
                        report_inline(&mut hf, &mut st, shift, (k, addr, size, kind));
                    }
                    Op::Gather {
                        k,
                        idx32,
                        idx64,
                        wide,
                        scale,
                        size,
                        kind,
                    } => {
                        for &ix in idx64 {
                            let a = base_g.wrapping_add((ix * scale) as u64);
                            let h: *mut Inspector = &mut hs;
                            assert_eq!(weft_inspect_access(h, *k, a as *const _, *size, *kind), 0);
                        }
                        let (idx, bytes) = match wide {
                            true => (idx64.as_ptr() as *const std::ffi::c_void, 8),
                            false => (idx32.as_ptr() as *const std::ffi::c_void, 4),
                        };
                        let before = st.reported;
                        let r = weft_inspect_gather(
                            &mut hf,
                            &mut st,
                            *k,
                            base_g as *const _,
                            idx,
                            idx64.len() as u64,
                            bytes,
                            *scale,
                            *size,
                            *kind,
                        );
                        assert_eq!(r, 0);
                        gathered_inline += st.reported.saturating_sub(before);
                        if !idx64.is_empty() {
                            assert!(st.enabled == 1 && st.lo <= *k && *k < st.hi);
                        }
                    }
                }
            }
            assert_eq!(weft_inspect_fast_flush(&mut hf, &mut st), 0);
            slow.append(recorder(hs));
            fast.append(recorder(hf));
        }
        same_recording(mode, &fast, &slow, &mut written);
    }
    assert!(
        gathered_inline > 3000,
        "{gathered_inline} gathered reads inline"
    );
}

/// Bad gathers are errors that leave the state current: a write, an
/// index width other than 4 or 8, no index array; an empty one is fine.
#[test]
fn gather_rejects_what_it_cannot_take() {
    use crate::abi::weft_inspect_gather;
    let m = Arc::new(Machine::load("table5.2").unwrap());
    let rec = SlabRecorder::new(
        one_core_two_slabs(),
        m.num_mem_banks(),
        6,
        BankTable::new(&m),
    );
    let mut h = slab_inspector(0, 10, rec);
    let mut st = InspectFast::default();
    let idx = [1i32, 2, 3];
    let (x, p) = (
        0x1000_0000usize as *const std::ffi::c_void,
        idx.as_ptr() as *const _,
    );
    let g = |h: &mut Inspector, st: &mut InspectFast, idx, n, bytes, kind| {
        weft_inspect_gather(h, st, 3, x, idx, n, bytes, 8, 8, kind)
    };
    assert_ne!(g(&mut h, &mut st, p, 3, 4, 1), 0);
    assert_ne!(g(&mut h, &mut st, p, 3, 2, 0), 0);
    assert_ne!(g(&mut h, &mut st, std::ptr::null(), 3, 4, 0), 0);
    assert_eq!(g(&mut h, &mut st, std::ptr::null(), 0, 4, 0), 0);
    assert_eq!(g(&mut h, &mut st, p, 3, 4, 0), 0);
    assert!(st.enabled == 1 && st.lo <= 3 && 3 < st.hi);
    assert_ne!(
        weft_inspect_gather(std::ptr::null_mut(), &mut st, 3, x, p, 3, 4, 8, 8, 0),
        0
    );
    assert_eq!(weft_inspect_fast_flush(&mut h, &mut st), 0);
    assert_eq!(recorder(h).accesses(), 3);
    // A maps-only inspector reports unchecked gathers only.
    let rec = SlabRecorder::new(
        one_core_two_slabs(),
        m.num_mem_banks(),
        6,
        BankTable::new(&m),
    );
    let mut h = slab_inspector(0, 10, rec);
    h.declare_maps_only();
    let mut st = InspectFast::default();
    assert_ne!(g(&mut h, &mut st, p, 3, 4, 0), 0);
    assert_eq!(g(&mut h, &mut st, p, 3, 4, ACCESS_UNCHECKED), 0);
    assert_eq!(weft_inspect_fast_flush(&mut h, &mut st), 0);
    assert_eq!(recorder(h).accesses(), 3);
}

#[test]
fn range_reports_keep_the_range_rule() {
    use crate::abi::weft_inspect_range;
    let m = Arc::new(Machine::load("table5.2").unwrap());
    let layout = one_core_two_slabs();
    let rec = SlabRecorder::new(layout, m.num_mem_banks(), 6, BankTable::new(&m));
    let mut h = slab_inspector(0, 8, rec);
    let a = 0x1000_0000usize as *const std::ffi::c_void;
    // In range: recorded (0 bytes: nothing marked, still fine).
    assert_eq!(weft_inspect_range(&mut h, 3, a, 4096), 0);
    assert_eq!(weft_inspect_range(&mut h, 3, a, 0), 0);
    // Outside the inspected range: an error whatever the length.
    assert_ne!(weft_inspect_range(&mut h, 9, a, 64), 0);
    assert_ne!(weft_inspect_range(&mut h, 9, a, 0), 0);
    assert_ne!(weft_inspect_range(std::ptr::null_mut(), 3, a, 8), 0);
    let r = recorder(h);
    assert_eq!(r.accesses(), 2);
    assert!(r.bank_maps()[0].count() > 1, "a 4 KB range spans two banks");
}

/// The records of checked reads, hand-checked: where `weft_inspect_fast`
/// lets them go (kept, dropped by a lazy recorder before its first
/// write, one by one in the slab where it starts keeping), that they
/// reach the dependence check, and that a cursor off a record boundary
/// is an error that keeps nothing.
#[test]
fn inline_records_of_checked_reads() {
    let m = Arc::new(Machine::load("table5.2").unwrap());
    let banks = m.num_mem_banks();
    let layout = one_core_two_slabs();
    let t = BankTable::new(&m);
    let a = 0x2000_0000u64;
    let write_rec = |st: &mut InspectFast, addr: u64, size: u32| {
        assert!(st.recs < st.recs_end);
        // SAFETY: a free record (`recs < recs_end`).
        unsafe {
            write_record(st.recs, addr, st.unit, size);
            st.recs = st.recs.add(st.rec_step as usize);
        }
        st.reported += 1;
        st.touches += 1;
    };
    // Keeping recorder: slab 0 reads a[0] and a[1] inline, slab 1 writes a[1].
    let mut h = slab_inspector(
        0,
        10,
        SlabRecorder::new(layout.clone(), banks, 6, t.clone()),
    );
    let mut st = InspectFast::default();
    assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
    assert_eq!((st.unit, st.rec_step), (0, 16));
    // (free records for the slab's 5 iterations: 16 each, 16 bytes a record)
    assert!(!st.recs.is_null() && st.recs_end as usize - st.recs as usize >= 5 * 16 * 16);
    write_rec(&mut st, a, 8);
    write_rec(&mut st, a + 8, 8);
    let p = a as *const std::ffi::c_void;
    assert_eq!(
        weft_inspect_checked(&mut h, &mut st, 7, p.wrapping_add(8), 8, 1),
        0
    );
    assert_eq!((st.lo, st.hi, st.unit, st.reported), (5, 10, 1, 0));
    // Slab 1 also reads a[4] (the first free record) and writes a[4]
    // and a[2] inline (from the other end); slab 0 does not read a[2]
    // or a[4], so no new edge, but both writes count.
    write_rec(&mut st, a + 32, 8);
    for x in [a + 32, a + 16] {
        // SAFETY: a free record below `recs_end` (`recs < recs_end`).
        unsafe {
            st.recs_end = st.recs_end.sub(16);
            write_record(st.recs_end, x, st.unit, 8 | 1 << 31);
        }
        st.reported += 1;
    }
    assert_eq!(weft_inspect_fast_flush(&mut h, &mut st), 0);
    assert!(st.recs.is_null());
    let r = recorder(h);
    assert_eq!((r.accesses(), r.writes()), (6, 3));
    assert_eq!(r.dependences().unwrap().edges(), vec![(0, 1)]);
    // A cursor half a record in: an error, nothing kept.
    let mut h = slab_inspector(
        0,
        10,
        SlabRecorder::new(layout.clone(), banks, 6, t.clone()),
    );
    let mut st = InspectFast::default();
    assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
    write_rec(&mut st, a, 8);
    st.recs = st.recs.wrapping_add(8);
    assert_ne!(weft_inspect_fast_flush(&mut h, &mut st), 0);
    assert!(h
        .error
        .as_deref()
        .unwrap_or("")
        .contains("record boundaries"));
    assert_eq!(recorder(h).accesses(), 1, "counted, not kept");
    // Accesses recorded one by one (`weft_inspect_access`) while a
    // cursor is out: fine when no record was written inline, an error
    // otherwise (the inline ones would land behind them).
    for inline in [false, true] {
        let rec = SlabRecorder::new(layout.clone(), banks, 6, t.clone());
        let mut h = slab_inspector(0, 10, rec);
        let mut st = InspectFast::default();
        assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
        if inline {
            write_rec(&mut st, a, 8);
        }
        assert_eq!(weft_inspect_access(&mut h, 2, p, 8, 0), 0);
        assert_eq!(weft_inspect_fast_flush(&mut h, &mut st) != 0, inline);
    }
    // Lazy recorder: before its first write, reads are dropped (a cursor
    // that does not advance); after a write in iteration 2, the rest of
    // slab 0 reports one by one and slab 1 is kept.
    let lazy = SlabRecorder::lazy(layout.clone(), banks, 6, t.clone());
    let mut h = slab_inspector(0, 10, lazy);
    let mut st = InspectFast::default();
    assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
    assert_eq!(
        (st.rec_step, st.recs_end as usize - st.recs as usize),
        (0, 16)
    );
    write_rec(&mut st, a, 8);
    assert_eq!(weft_inspect_checked(&mut h, &mut st, 2, p, 8, 1), 0);
    assert_eq!((st.lo, st.hi), (0, 5));
    assert!(st.recs.is_null(), "slab 0 keeps iterations 3.. only");
    assert_eq!(weft_inspect_checked(&mut h, &mut st, 3, p, 8, 0), 0);
    assert_eq!(weft_inspect_fast(&mut h, 5, &mut st), 0);
    assert_eq!(st.rec_step, 16);
    write_rec(&mut st, a, 8);
    assert_eq!(weft_inspect_fast_flush(&mut h, &mut st), 0);
    let r = recorder(h);
    assert_eq!((r.accesses(), r.first_write_iter()), (4, Some(2)));
    assert_eq!(
        r.writes(),
        0,
        "the write's iteration is re-inspected, not kept"
    );
}

#[test]
fn inline_recording_is_off_where_it_would_not_be_exact() {
    let m = Arc::new(Machine::load("table5.2").unwrap());
    let banks = m.num_mem_banks();
    let layout = one_core_two_slabs();
    let rec = || SlabRecorder::new(layout.clone(), banks, 6, BankTable::new(&m));
    let mut st = InspectFast::default();
    // Exact: the slab of iteration 6 is [5, 10), cut to the inspected [0, 8).
    let mut h = slab_inspector(0, 8, rec());
    st.reported = 3;
    st.touches = 4;
    assert_eq!(weft_inspect_fast(&mut h, 6, &mut st), 0);
    // Kept per bank block (2 KB on table5.2), not per 64-byte line.
    assert_eq!((st.enabled, st.lo, st.hi, st.shift), (1, 5, 8, 11));
    // The slab's own end, not cut (compiled row streams read up to it).
    assert_eq!(st.slab_end, 10);
    assert_eq!((st.reported, st.touches), (0, 0), "handed to the recorder");
    assert!(!st.row.is_null() && !st.table.is_null());
    // Outside the inspected range: no slab (the access's slow path
    // reports the error).
    assert_eq!(weft_inspect_fast(&mut h, 9, &mut st), 0);
    assert_eq!((st.enabled, st.lo, st.hi), (1, 0, 0));
    let r = recorder(h);
    assert_eq!((r.accesses(), r.filter_counts()), (3, (0, 4)));
    // Lines under 16 bytes (an aligned 16-byte access could cross one):
    // the maps are kept per 2 KB bank block all the same, and inline.
    let mut h = slab_inspector(
        0,
        10,
        SlabRecorder::new(layout.clone(), banks, 3, BankTable::new(&m)),
    );
    assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
    assert_eq!((st.enabled, st.shift), (1, 11));
    // With a miss predictor, at 8-byte lines: off.
    st = InspectFast::default();
    let mut h = slab_inspector(
        0,
        10,
        SlabRecorder::new(layout.clone(), banks, 3, BankTable::new(&m)).with_miss_filter(64),
    );
    assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
    assert_eq!((st.enabled, st.shift), (0, 3));
    // Switched off (`WEFT_INSPECT_INLINE=0`).
    st = InspectFast::default();
    let mut h = slab_inspector(0, 10, rec());
    h.inline = false;
    assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
    assert_eq!((st.enabled, st.lo, st.hi, st.shift), (0, 0, 0, 11));
    // A miss predictor decides which lines set bits: off, and the maps
    // are kept per cache line.
    st = InspectFast::default();
    let mut h = slab_inspector(0, 10, rec().with_miss_filter(64));
    assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
    assert_eq!((st.enabled, st.lo, st.hi, st.shift), (0, 0, 0, 6));
    // Affine nests weigh every access: off, shift 0.
    st = InspectFast::default();
    let mut h = Inspector::new(0, 10, true, Layout::Blocks { ib: 2 });
    assert_eq!(weft_inspect_fast(&mut h, 1, &mut st), 0);
    assert_eq!((st.enabled, st.shift), (0, 0));
    // Null arguments.
    assert_eq!(
        weft_inspect_fast(std::ptr::null_mut(), 0, &mut st),
        crate::abi::Status::Null as i32
    );
    assert_eq!(
        weft_inspect_fast_flush(&mut h, std::ptr::null_mut()),
        crate::abi::Status::Null as i32
    );
}

#[test]
fn inspect_fast_layout_is_the_c_struct() {
    use std::mem::{offset_of, size_of};
    assert_eq!(size_of::<InspectFast>(), 128);
    assert_eq!(offset_of!(InspectFast, row), 16);
    assert_eq!(offset_of!(InspectFast, mask), 32);
    assert_eq!(offset_of!(InspectFast, lsb), 40);
    assert_eq!(offset_of!(InspectFast, enabled), 48);
    assert_eq!(offset_of!(InspectFast, reported), 56);
    assert_eq!(offset_of!(InspectFast, touches), 64);
    assert_eq!(offset_of!(InspectFast, recs), 72);
    assert_eq!(offset_of!(InspectFast, recs_end), 80);
    assert_eq!(offset_of!(InspectFast, unit), 88);
    assert_eq!(offset_of!(InspectFast, rec_step), 92);
    assert_eq!(offset_of!(InspectFast, wbits), 96);
    assert_eq!(offset_of!(InspectFast, wgmin), 104);
    assert_eq!(offset_of!(InspectFast, wspan), 112);
    assert_eq!(offset_of!(InspectFast, slab_end), 120);
}

/// Ranges whose trip count does not fit an `i64` are errors before any
/// iteration runs (before: `[-1, i64::MAX)` returned OK having run nothing).
#[test]
fn overflowing_trip_counts_are_errors_and_run_nothing() {
    let rt = Runtime::new(RuntimeConfig {
        cores: 2,
        ..RuntimeConfig::default()
    })
    .unwrap();
    let ran = std::sync::atomic::AtomicU64::new(0);
    let body = |a: i64, b: i64| {
        ran.fetch_add((b - a) as u64, std::sync::atomic::Ordering::Relaxed);
    };
    assert!(rt.parallel_for(-1, i64::MAX, &body).is_err());
    assert!(rt
        .run_irregular(1, i64::MIN, i64::MAX, 0, None, &body)
        .is_err());
    let default = crate::mlp::Scheme::Default;
    assert!(rt
        .run_affine(2, i64::MIN, i64::MAX, 1, default, None, &body)
        .is_err());
    assert_eq!(ran.load(std::sync::atomic::Ordering::Relaxed), 0);
    rt.parallel_for(-1, 3, &body).unwrap();
    assert_eq!(ran.load(std::sync::atomic::Ordering::Relaxed), 4);
}

/// `start_early` (the C ABI's first call) does the one-time set-up natively
/// with more than one worker, so the first parallel region does not pay for
/// starting the threads; with one worker it starts nothing.
#[test]
fn start_early_sets_up_with_workers_only() {
    let rt = |cores| {
        Runtime::new(RuntimeConfig {
            cores,
            ..RuntimeConfig::default()
        })
        .unwrap()
    };
    let two = rt(2);
    assert!(two.setup_ns.get().is_none());
    two.start_early();
    assert!(two.setup_ns.get().is_some());
    let one = rt(1);
    one.start_early();
    assert!(one.setup_ns.get().is_none());
}
