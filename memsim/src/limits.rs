//! Input limits: the largest values the parsers accept, so that hostile or
//! mistaken input is refused with an error naming the field and the limit
//! instead of exhausting memory or time (issue #38; `docs/limits.md` lists
//! them all with their reasons).
//!
//! Every limit is enforced where the input is parsed: trace readers check
//! line lengths and cycles, [`crate::config::MachineConfig::validate`] checks
//! sizes and counts, `weft schedule` checks instance sizes. The values leave
//! room of two to three orders of magnitude over the dissertation's machines
//! (Tables 4.2 and 5.2) and the evaluation's traces.

/// Longest line of a text trace, in bytes (without the newline).
pub const MAX_LINE_BYTES: usize = 4096;
/// Largest machine-configuration file, in bytes.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Largest cycle of a DRAM-only trace (text `cycle`, or the running sum of a
/// binary trace's gaps): 2^36 DRAM cycles, about a minute of DDR4-2400 time.
pub const MAX_TRACE_CYCLE: u64 = 1 << 36;
/// Largest sum of one trace's gaps (non-memory instructions of all cores) in a
/// full-system run: 2^36 instructions.
pub const MAX_TRACE_INSTRUCTIONS: u64 = 1 << 36;
/// Largest cache capacity (L1, L2 or the whole LLC), in bytes: 1 GiB.
pub const MAX_CACHE_BYTES: u64 = 1 << 30;
/// Largest associativity of a cache.
pub const MAX_WAYS: u32 = 1024;
/// Simulated cache capacity of the whole machine: every core's private caches
/// and the LLC (about 0.3 bytes of host memory per byte: 4 GiB take ~1.2 GB).
pub const MAX_TOTAL_CACHE_BYTES: u64 = 1 << 32;
/// Simulated cache lines of the whole machine (the host memory of a cache is
/// per line, about 20 bytes: with 64-byte lines this is the same bound as
/// [`MAX_TOTAL_CACHE_BYTES`], with 1-byte lines the byte bound alone allowed
/// 2^32 lines, tens of GB).
pub const MAX_TOTAL_CACHE_LINES: u64 = 1 << 26;
/// Per-core queue entries (ROB, write buffer, MSHRs, prefetcher streams)
/// summed over the cores (about 50 bytes each); also the LLC's MSHRs summed
/// over its banks (about 150 bytes each).
pub const MAX_TOTAL_CORE_ENTRIES: u64 = 1 << 23;
/// Largest cache line, in bytes.
pub const MAX_LINE_SIZE: u32 = 4096;
/// Largest number of cores (also mesh tiles, LLC banks).
pub const MAX_CORES: u32 = 4096;
/// Largest number of MSHRs of one cache (or LLC bank).
pub const MAX_MSHRS: u32 = 65_536;
/// Largest reorder buffer and write buffer, in entries.
pub const MAX_CORE_BUFFER: u32 = 65_536;
/// Largest issue width (instructions per cycle).
pub const MAX_ISSUE_WIDTH: u32 = 64;
/// Largest number of prefetcher streams, degree or distance.
pub const MAX_PREFETCH: u32 = 65_536;
/// Largest latency or timing parameter, in cycles.
pub const MAX_LATENCY: u32 = 1 << 20;
/// Largest number of DRAM channels, ranks, bank groups or banks per group.
pub const MAX_DRAM_UNITS: u32 = 1024;
/// Largest number of DRAM banks over the whole machine.
pub const MAX_DRAM_BANKS: u64 = 65_536;
/// Largest DRAM controller queue, in entries.
pub const MAX_DRAM_QUEUE: u32 = 65_536;
/// Largest statistics epoch, in cycles.
pub const MAX_EPOCH_CYCLES: u64 = 1 << 32;
/// Largest clock frequency, in MHz.
pub const MAX_FREQ_MHZ: u32 = 1_000_000;

/// `Err(message)` when `value` exceeds `max` (the caller names the field).
pub fn at_most(value: u64, max: u64) -> Result<(), String> {
    if value > max {
        Err(format!("= {value} exceeds the limit {max}"))
    } else {
        Ok(())
    }
}

/// The first field of `cfg` above its limit, as (dotted field, message).
/// Run before the consistency checks, so that no product of two huge values
/// can overflow there.
pub fn check_machine(cfg: &crate::config::MachineConfig) -> Result<(), (String, String)> {
    let fail =
        |field: &str, value: u64, max: u64| at_most(value, max).map_err(|m| (field.to_string(), m));
    let c = &cfg.core;
    fail("core.count", c.count.into(), MAX_CORES.into())?;
    fail("core.freq_mhz", c.freq_mhz.into(), MAX_FREQ_MHZ.into())?;
    fail(
        "core.issue_width",
        c.issue_width.into(),
        MAX_ISSUE_WIDTH.into(),
    )?;
    fail(
        "core.rob_entries",
        c.rob_entries.into(),
        MAX_CORE_BUFFER.into(),
    )?;
    fail(
        "core.write_buffer_entries",
        c.write_buffer_entries.into(),
        MAX_CORE_BUFFER.into(),
    )?;
    let caches = [Some(("l1", &cfg.l1)), cfg.l2.as_ref().map(|l2| ("l2", l2))];
    for (unit, k) in caches.into_iter().flatten() {
        fail(&format!("{unit}.size_bytes"), k.size_bytes, MAX_CACHE_BYTES)?;
        fail(&format!("{unit}.ways"), k.ways.into(), MAX_WAYS.into())?;
        fail(
            &format!("{unit}.line_bytes"),
            k.line_bytes.into(),
            MAX_LINE_SIZE.into(),
        )?;
        fail(
            &format!("{unit}.hit_latency"),
            k.hit_latency.into(),
            MAX_LATENCY.into(),
        )?;
        fail(&format!("{unit}.mshrs"), k.mshrs.into(), MAX_MSHRS.into())?;
    }
    let l = &cfg.llc;
    fail("llc.size_bytes", l.size_bytes, MAX_CACHE_BYTES)?;
    fail("llc.banks", l.banks.into(), MAX_CORES.into())?;
    fail("llc.ways", l.ways.into(), MAX_WAYS.into())?;
    fail("llc.line_bytes", l.line_bytes.into(), MAX_LINE_SIZE.into())?;
    fail("llc.hit_latency", l.hit_latency.into(), MAX_LATENCY.into())?;
    fail("llc.mshrs", l.mshrs.into(), MAX_MSHRS.into())?;
    fail("llc.port_cycles", l.port_cycles.into(), MAX_LATENCY.into())?;
    let p = &cfg.prefetcher;
    fail("prefetcher.streams", p.streams.into(), MAX_PREFETCH.into())?;
    fail("prefetcher.degree", p.degree.into(), MAX_PREFETCH.into())?;
    fail(
        "prefetcher.distance",
        p.distance.into(),
        MAX_PREFETCH.into(),
    )?;
    let n = &cfg.noc;
    fail("noc.cols", n.cols.into(), MAX_CORES.into())?;
    fail("noc.rows", n.rows.into(), MAX_CORES.into())?;
    fail(
        "noc.cols × noc.rows",
        u64::from(n.cols) * u64::from(n.rows),
        MAX_CORES.into(),
    )?;
    fail("noc.freq_mhz", n.freq_mhz.into(), MAX_FREQ_MHZ.into())?;
    for (f, v) in [
        ("noc.router_latency", n.router_latency),
        ("noc.link_latency", n.link_latency),
        ("noc.flit_bytes", n.flit_bytes),
        ("noc.control_flits", n.control_flits),
        ("noc.data_flits", n.data_flits),
    ] {
        fail(f, v.into(), MAX_LATENCY.into())?;
    }
    fail("epoch_cycles", cfg.epoch_cycles, MAX_EPOCH_CYCLES)?;
    // Per-core units are allocated once per core: each within its limit, 4096
    // cores of them are not (36 cores with a 1 GiB L1 took 10.6 GB and 49 s).
    // The operands are bounded above, so the products cannot overflow.
    let cores = u64::from(c.count);
    let l2 = cfg.l2.as_ref();
    fail(
        "core.count × (l1 + l2).size_bytes + llc.size_bytes",
        cores * (cfg.l1.size_bytes + l2.map_or(0, |k| k.size_bytes)) + l.size_bytes,
        MAX_TOTAL_CACHE_BYTES,
    )?;
    let lines = |size: u64, line: u32| size / u64::from(line.max(1));
    fail(
        "core.count × (l1 + l2 lines) + llc lines (size_bytes / line_bytes)",
        cores
            * (lines(cfg.l1.size_bytes, cfg.l1.line_bytes)
                + l2.map_or(0, |k| lines(k.size_bytes, k.line_bytes)))
            + lines(l.size_bytes, l.line_bytes),
        MAX_TOTAL_CACHE_LINES,
    )?;
    fail(
        "llc.banks × llc.mshrs",
        u64::from(l.banks) * u64::from(l.mshrs),
        MAX_TOTAL_CORE_ENTRIES,
    )?;
    let per_core = u64::from(c.rob_entries)
        + u64::from(c.write_buffer_entries)
        + u64::from(cfg.l1.mshrs)
        + l2.map_or(0, |k| u64::from(k.mshrs))
        + u64::from(p.streams);
    fail(
        "core.count × (rob_entries + write_buffer_entries + l1/l2 mshrs + prefetcher.streams)",
        cores * per_core,
        MAX_TOTAL_CORE_ENTRIES,
    )?;
    check_dram(&cfg.dram)
}

/// The first field of `d` above its limit (see [`check_machine`]).
pub fn check_dram(d: &crate::config::DramConfig) -> Result<(), (String, String)> {
    let fail =
        |field: &str, value: u64, max: u64| at_most(value, max).map_err(|m| (field.to_string(), m));
    for (f, v) in [
        ("dram.channels", d.channels),
        ("dram.ranks", d.ranks),
        ("dram.bankgroups", d.bankgroups),
        ("dram.banks_per_group", d.banks_per_group),
    ] {
        fail(f, v.into(), MAX_DRAM_UNITS.into())?;
    }
    let banks = [d.channels, d.ranks, d.bankgroups, d.banks_per_group]
        .iter()
        .fold(1u64, |a, &v| a.saturating_mul(v.into()));
    fail(
        "dram banks (channels × ranks × bank groups × banks)",
        banks,
        MAX_DRAM_BANKS,
    )?;
    fail("dram.rows", d.rows.into(), 1 << 24)?;
    fail("dram.row_bytes", d.row_bytes.into(), 1 << 16)?;
    fail("dram.bus_bits", d.bus_bits.into(), 1024)?;
    fail("dram.burst_length", d.burst_length.into(), 64)?;
    for (f, v) in [
        ("dram.read_queue_entries", d.read_queue_entries),
        ("dram.write_queue_entries", d.write_queue_entries),
        ("dram.bank_queue_entries", d.bank_queue_entries),
    ] {
        fail(f, v.into(), MAX_DRAM_QUEUE.into())?;
    }
    for (f, v) in timing_fields(&d.timing) {
        fail(f, v.into(), MAX_LATENCY.into())?;
    }
    fail("dram.epoch_cycles", d.epoch_cycles, MAX_EPOCH_CYCLES)?;
    Ok(())
}

/// Every DRAM timing parameter with its dotted field name.
pub fn timing_fields(t: &crate::config::DramTimings) -> [(&'static str, u32); 18] {
    [
        ("dram.timing.tCL", t.tCL),
        ("dram.timing.tCWL", t.tCWL),
        ("dram.timing.tRCD", t.tRCD),
        ("dram.timing.tRP", t.tRP),
        ("dram.timing.tRAS", t.tRAS),
        ("dram.timing.tBL", t.tBL),
        ("dram.timing.tCCD_S", t.tCCD_S),
        ("dram.timing.tCCD_L", t.tCCD_L),
        ("dram.timing.tRRD_S", t.tRRD_S),
        ("dram.timing.tRRD_L", t.tRRD_L),
        ("dram.timing.tFAW", t.tFAW),
        ("dram.timing.tWR", t.tWR),
        ("dram.timing.tWTR_S", t.tWTR_S),
        ("dram.timing.tWTR_L", t.tWTR_L),
        ("dram.timing.tRTP", t.tRTP),
        ("dram.timing.tRTRS", t.tRTRS),
        ("dram.timing.tREFI", t.tREFI),
        ("dram.timing.tRFC", t.tRFC),
    ]
}
