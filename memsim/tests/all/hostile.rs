//! Hostile and extreme input (issue #38): limits enforced at parse time with
//! messages naming the limit, idle time that costs neither memory nor time,
//! and the long-gap fast-forward of the core model changing no statistic.

use std::time::{Duration, Instant};
use weft_memsim::config::MachineConfig;
use weft_memsim::core::set_cruise;
use weft_memsim::limits::{MAX_LINE_BYTES, MAX_TRACE_CYCLE};
use weft_memsim::manycore::SimError;
use weft_memsim::run::{simulate, simulate_trace_file, RunOptions};
use weft_memsim::trace::{
    AccessKind, CoreTextReader, Record, TextTraceReader, TraceError, TraceReader, TraceWriter,
};
use weft_memsim::trace_source::DemuxSource;

fn first_err<T>(it: impl Iterator<Item = Result<T, TraceError>>) -> String {
    it.filter_map(|r| r.err())
        .next()
        .expect("an error")
        .to_string()
}

#[test]
fn text_lines_are_bounded_like_dev_zero() {
    // `/dev/zero` (and a sparse file) is one endless line of NUL bytes.
    let zeros = std::io::BufReader::new(std::io::Read::take(std::io::repeat(0), 1 << 30));
    let e = first_err(CoreTextReader::new(zeros, "/dev/zero"));
    assert!(
        e.contains("/dev/zero:1") && e.contains(&MAX_LINE_BYTES.to_string()),
        "{e}"
    );
    let long = format!("0 R 0x40\n{}\n", "1".repeat(MAX_LINE_BYTES + 1));
    let e = first_err(TextTraceReader::new(long.as_bytes(), "t"));
    assert!(
        e.starts_with("t:2: line longer than the limit of 4096 bytes"),
        "{e}"
    );
    // A line of exactly the limit is read (and fails on its content only).
    let ok = format!("0 R 0x{}\n", "0".repeat(MAX_LINE_BYTES - 6));
    assert_eq!(TextTraceReader::new(ok.as_bytes(), "t").count(), 1);
}

#[test]
fn empty_traces_are_errors() {
    for text in ["", "# only a comment\n\n"] {
        let e = first_err(TextTraceReader::new(text.as_bytes(), "e.txt"));
        assert!(e.contains("e.txt: the trace is empty"), "{e}");
        let e = first_err(CoreTextReader::new(text.as_bytes(), "e.txt"));
        assert!(e.contains("<core> <gap>"), "{e}");
    }
    let header = TraceWriter::new(Vec::new(), 2).unwrap().finish().unwrap();
    let e = first_err(TraceReader::new(&header[..], "e.trc").unwrap());
    assert!(e.contains("e.trc: the trace is empty"), "{e}");
}

#[test]
fn dram_cycles_above_the_limit_are_rejected() {
    let t = format!("0 R 0x40\n{} R 0x80\n", u64::MAX);
    let e = first_err(TextTraceReader::new(t.as_bytes(), "m.txt"));
    assert!(
        e.contains("m.txt:2") && e.contains(&MAX_TRACE_CYCLE.to_string()),
        "{e}"
    );
    let t = format!("{MAX_TRACE_CYCLE} R 0x80\n");
    assert!(TextTraceReader::new(t.as_bytes(), "m").all(|r| r.is_ok()));
}

fn binary(records: &[Record], cores: u32) -> tempfile::NamedTempFile {
    let mut w = TraceWriter::new(Vec::new(), cores).unwrap();
    for r in records {
        w.write(r).unwrap();
    }
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), w.finish().unwrap()).unwrap();
    f
}

fn rec(core: u16, gap: u32, kind: AccessKind, addr: u64) -> Record {
    Record {
        core,
        kind,
        size: if kind.is_barrier() { 0 } else { 8 },
        addr,
        gap,
    }
}

#[test]
fn dram_only_idle_time_is_cheap() {
    // One request 6·10^10 cycles after the first: fast (the refreshes of the
    // idle time are counted in closed form, not stepped: 16 s before), every
    // refresh counted, and a short series.
    let cfg = MachineConfig::preset("table5.2").unwrap();
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), "0 R 0x40\n60000000000 R 0x80\n").unwrap();
    let t0 = Instant::now();
    let s = weft_memsim::dram::simulate_trace_file(&cfg.dram, f.path()).unwrap();
    let took = t0.elapsed();
    assert_eq!(s.requests, 2);
    assert!(s.blp_epochs.len() <= 4, "{} epochs", s.blp_epochs.len());
    assert!(took < Duration::from_secs(2), "{took:?}");
    // One REF per rank every tREFI on each channel, until the last request.
    let d = &cfg.dram;
    let per_channel = s.cycles / u64::from(d.timing.tREFI / d.ranks);
    let channels = u64::from(d.channels);
    assert!(
        (per_channel - 1) * channels <= s.commands.refresh
            && s.commands.refresh <= per_channel * channels,
        "{} refreshes in {} cycles",
        s.commands.refresh,
        s.cycles
    );
    // A binary trace whose gaps add up past the limit is refused.
    let r = rec(0, u32::MAX, AccessKind::Read, 0x40);
    let f = binary(&vec![r; 17], 1);
    let e = weft_memsim::dram::simulate_trace_file(&cfg.dram, f.path()).unwrap_err();
    assert!(
        e.to_string().contains("record 16") && e.to_string().contains("limit"),
        "{e}"
    );
}

#[test]
fn a_gap_of_2_pow_32_is_fast_and_the_header_count_is_named() {
    let cfg = MachineConfig::preset("table5.2").unwrap();
    let f = binary(
        &[
            rec(0, 0, AccessKind::Read, 0x1000),
            rec(0, u32::MAX, AccessKind::Read, 0x2000),
        ],
        1,
    );
    let t0 = Instant::now();
    let s = simulate_trace_file(&cfg, f.path(), &RunOptions::default(), |_| {}).unwrap();
    assert_eq!(s.records, 2);
    assert!(s.instructions > u64::from(u32::MAX));
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
    assert!(s.mlp_per_epoch.len() <= 4, "{}", s.mlp_per_epoch.len());

    let f = binary(&[rec(0, 0, AccessKind::Read, 0x1000)], 100);
    let e = simulate_trace_file(&cfg, f.path(), &RunOptions::default(), |_| {}).unwrap_err();
    assert!(
        matches!(
            e,
            SimError::HeaderCores {
                header: 100,
                cores: 36
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("header declares 100 cores"), "{e}");
}

/// A 4-core workload of shared reads and writes (invalidations wake cores in
/// the middle of their gaps), long and short gaps, and barriers.
fn gappy_workload() -> Vec<Record> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut v = Vec::new();
    for i in 0..400u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let core = (i % 4) as u16;
        let gap = match x % 5 {
            0 => 0,
            1 => (x >> 8) as u32 % 7,
            2 => (x >> 8) as u32 % 5000,
            _ => (x >> 8) as u32 % 300,
        };
        let kind = if i % 97 == 96 {
            AccessKind::Barrier
        } else if x % 3 == 0 {
            AccessKind::Write
        } else {
            AccessKind::Read
        };
        let addr = if kind.is_barrier() {
            0
        } else {
            (x >> 20) % 64 * 32
        };
        v.push(rec(core, gap, kind, addr));
    }
    v
}

#[test]
fn cruising_through_gaps_changes_no_statistic() {
    for (preset, oracle) in [
        ("table5.2", "none"),
        ("table4.2", "none"),
        ("table5.2", "mlp-ideal"),
    ] {
        let cfg = MachineConfig::preset(preset).unwrap();
        let opts = RunOptions {
            oracle: weft_memsim::oracle::Oracle::parse(oracle).unwrap(),
            ..RunOptions::default()
        };
        let run = |cruise: bool| {
            set_cruise(cruise);
            let w = gappy_workload();
            let mut src = DemuxSource::new(w.into_iter().map(Ok), cfg.core.count);
            let s = simulate(&cfg, &mut src, &opts, |_| {}).unwrap();
            set_cruise(true);
            serde_json::to_string(&s).unwrap()
        };
        assert_eq!(run(true), run(false), "{preset} {oracle}");
    }
}

#[test]
fn machine_limits_name_the_field_and_the_limit() {
    for (toml, field, limit) in [
        (
            "[l1]\nsize_bytes = 1099511627776\n",
            "l1.size_bytes",
            "1073741824",
        ),
        (
            "[llc]\nsize_bytes = 1099511627776\n",
            "llc.size_bytes",
            "1073741824",
        ),
        ("[l1]\nmshrs = 4000000000\n", "l1.mshrs", "65536"),
        ("[llc]\nmshrs = 4000000000\n", "llc.mshrs", "65536"),
        (
            "[core]\nrob_entries = 4000000000\n",
            "core.rob_entries",
            "65536",
        ),
        (
            "[prefetcher]\nstreams = 4000000000\n",
            "prefetcher.streams",
            "65536",
        ),
    ] {
        let e = MachineConfig::from_toml_str(toml, "m.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("m.toml") && e.contains(field) && e.contains(limit),
            "{e}"
        );
    }
    for (toml, field) in [
        ("[dram.timing]\ntWR = 0\n", "dram.timing.tWR"),
        ("[dram.timing]\ntFAW = 0\n", "dram.timing.tFAW"),
        ("[l1]\nhit_latency = 0\n", "l1.hit_latency"),
        ("[llc]\nhit_latency = 0\n", "llc.hit_latency"),
    ] {
        let e = MachineConfig::from_toml_str(toml, "m.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains(field) && e.contains("must be positive"), "{e}");
    }
    let e = MachineConfig::from_toml_str(" \n", "empty.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("empty.toml") && e.contains("empty"), "{e}");
    let e = MachineConfig::from_toml_str("[dram]\naddress_mapping = \"x\"\n", "a.toml")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("machine config a.toml: `dram.address_mapping`"),
        "{e}"
    );
    assert_eq!(e.matches("is not of the form").count(), 1, "{e}");
    // `/dev/zero` as a machine file: a bounded read, then a size error.
    let e = MachineConfig::from_file(std::path::Path::new("/dev/zero")).unwrap_err();
    assert!(e.to_string().contains("1048576"), "{e}");
}

#[test]
fn gpu_workload_files_are_read_with_a_bound() {
    use weft_memsim::gpu::workload::{load, parse_with, Limits, Options};
    // `/dev/zero` reports a size of 0 and never ends: the reads stop at the limit.
    let e = load(std::path::Path::new("/dev/zero"))
        .unwrap_err()
        .to_string();
    assert!(
        e == "/dev/zero: more than 1048576 bytes of text (the limit)",
        "{e}"
    );
    let opts = Options {
        limits: Limits {
            max_file_bytes: 1 << 16,
            ..Limits::default()
        },
        ..Options::default()
    };
    let table = "[[table]]\nname = \"t\"\nfile = \"/dev/zero\"\n";
    let e = parse_with(table, "w.toml", &opts).unwrap_err().to_string();
    assert!(
        e.contains("w.toml:") && e.contains("/dev/zero: more than 65536 bytes"),
        "{e}"
    );
    let graph = "[[graph]]\nfile = \"/dev/zero\"\n";
    let e = parse_with(graph, "w.toml", &opts).unwrap_err().to_string();
    assert!(e.contains("more than 65536 bytes"), "{e}");
}

/// Per-core units multiply by the core count: each within its own limit, the
/// machine as a whole is bounded too (before: a 1 GiB L1 on 36 cores built
/// 10.6 GB of caches in 49 s, and on 4096 cores would exhaust memory; found
/// by the long machine-config fuzz run of this session).
#[test]
fn per_core_units_are_bounded_over_all_cores() {
    use weft_memsim::limits::{
        MAX_TOTAL_CACHE_BYTES, MAX_TOTAL_CACHE_LINES, MAX_TOTAL_CORE_ENTRIES,
    };
    let mut m = MachineConfig::preset("table5.2").unwrap();
    m.l1.size_bytes = 1 << 30;
    let e = m.validate().unwrap_err().to_string();
    assert!(
        e.contains("core.count × (l1 + l2).size_bytes + llc.size_bytes")
            && e.contains(&MAX_TOTAL_CACHE_BYTES.to_string()),
        "{e}"
    );
    let mut m = MachineConfig::preset("table5.2").unwrap();
    // 36 cores × 4 × 65536 entries: each at its limit, 9.4 M over all.
    m.core.rob_entries = 65_536;
    m.core.write_buffer_entries = 65_536;
    m.l1.mshrs = 65_536;
    m.prefetcher.streams = 65_536;
    let e = m.validate().unwrap_err().to_string();
    assert!(
        e.contains("core.count × (rob_entries") && e.contains(&MAX_TOTAL_CORE_ENTRIES.to_string()),
        "{e}"
    );
    // Cache memory is per line: 36 L1s of 64 MiB are within the byte bound
    // (2.25 GiB), but with 1-byte lines they are 2.4·10^9 lines (about 40 GB
    // to build before this limit).
    let mut m = MachineConfig::preset("table5.2").unwrap();
    m.l1.size_bytes = 64 << 20;
    m.l1.line_bytes = 1;
    let e = m.validate().unwrap_err().to_string();
    assert!(
        e.contains("(l1 + l2 lines)") && e.contains(&MAX_TOTAL_CACHE_LINES.to_string()),
        "{e}"
    );
    // MSHRs are allocated per LLC bank: 256 banks × 65536 (each within its
    // limit) are 2^24 entries, about 2.5 GB.
    let mut m = MachineConfig::preset("table5.2").unwrap();
    m.llc.banks = 256;
    m.llc.mshrs = 65_536;
    let e = m.validate().unwrap_err().to_string();
    assert!(
        e.contains("llc.banks × llc.mshrs") && e.contains(&MAX_TOTAL_CORE_ENTRIES.to_string()),
        "{e}"
    );
    for p in MachineConfig::preset_names() {
        MachineConfig::preset(p).unwrap().validate().unwrap();
    }
}

/// A refresh period that leaves no room to serve a request between two
/// refreshes of a rank is refused: every request to the rank would wait
/// forever (the simulation never ended: tREFI = 4001 and tRFC = 4000 on two
/// ranks refresh each rank every 4000 cycles, and the old check, tREFI >
/// tRFC, accepted it). The tightest accepted period serves its requests.
#[test]
fn refresh_leaving_no_room_for_a_request_is_refused() {
    let mut cfg = MachineConfig::preset("table5.2").unwrap();
    cfg.dram.ranks = 2;
    cfg.dram.rows /= 2;
    cfg.dram.address_mapping =
        "offset:6 column:5 channel:2 bankgroup:1 bank:2 rank:1 row:17".into();
    cfg.dram.validate().unwrap();
    cfg.dram.timing.tREFI = 4001;
    let t = cfg.dram.timing.clone();
    // max(tRAS, tRCD + tRTP, tRCD + tCWL + tBL + tWR) + tRP, by hand for
    // table5.2's DDR4-2400: max(39, 17 + 9, 17 + 12 + 4 + 18) + 17 = 68.
    assert_eq!(
        (t.tRAS, t.tRCD, t.tRTP, t.tCWL, t.tBL, t.tWR, t.tRP),
        (39, 17, 9, 12, 4, 18, 17)
    );
    for rfc in [4000, 3990, 4000 - 68] {
        cfg.dram.timing.tRFC = rfc;
        let e = cfg.dram.validate().unwrap_err().to_string();
        assert!(
            e.contains("`dram.timing.tREFI` = 4001")
                && e.contains("ranks × ⌊tREFI / ranks⌋ = 4000 cycles")
                && e.contains(&format!("+ tRP = {}", rfc + 68)),
            "{e}"
        );
    }
    // One cycle of room: requests to both ranks, reads and writes, are served.
    cfg.dram.timing.tRFC = 4000 - 68 - 1;
    cfg.dram.validate().unwrap();
    let f = tempfile::NamedTempFile::new().unwrap();
    let rank1 = 1u64 << (6 + 5 + 2 + 1 + 2);
    std::fs::write(
        f.path(),
        format!(
            "0 R 0x40\n5 W {rank1:#x}\n9000 R 0x80\n9001 R {:#x}\n9002 W 0x2000\n",
            rank1 + 64
        ),
    )
    .unwrap();
    let s = weft_memsim::dram::simulate_trace_file(&cfg.dram, f.path()).unwrap();
    assert_eq!(s.requests, 5);
    assert!(s.commands.refresh >= 4, "{}", s.commands.refresh);
    // With refresh off the period does not matter.
    cfg.dram.timing.tRFC = 4000;
    cfg.dram.refresh = false;
    cfg.dram.validate().unwrap();
}
