//! Driving a cycle-by-cycle reference simulator (DRAMsim3) with the same
//! trace-replay rule as [`super::replay`], and describing a [`DramConfig`] in
//! DRAMsim3's `.ini` format.
//!
//! This module does not link DRAMsim3: callers wrap `dramsim3::MemorySystem`
//! in a [`CycleSim`] (a few lines; see `memsim/tests/all/differential.rs`), so
//! `weft-memsim`'s normal build stays free of C++. Latency is measured as the
//! cycle of the completion callback minus the cycle the request was added,
//! which equals DRAMsim3's own `read_latency` statistic and our
//! `done - arrival` (end of the data burst).

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;

use crate::addrmap::Field;
use crate::config::{ConfigError, DramConfig, RowPolicy, SchedulerKind};
use crate::trace::TimedRequest;

/// A simulator advanced one DRAM cycle at a time.
pub trait CycleSim {
    /// Would a request be accepted now?
    fn can_add(&self, addr: u64, is_write: bool) -> bool;
    /// Add a request (only after `can_add` said yes).
    fn add(&mut self, addr: u64, is_write: bool);
    /// Advance one cycle; `done(addr, is_write)` for each request finishing.
    fn tick(&mut self, done: &mut dyn FnMut(u64, bool));
}

/// Summary of a reference run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReferenceRun {
    /// Requests added.
    pub requests: u64,
    /// Reads added.
    pub reads: u64,
    /// Cycle of the last completion callback.
    pub cycles: u64,
    /// Mean read latency (callback cycle − add cycle).
    pub avg_read_latency: f64,
    /// `requests × burst bytes / (cycles × tCK)`, GB/s.
    pub bandwidth_gbps: f64,
}

/// Replay `reqs` into `sim`: in order, at most one per cycle, never before its
/// cycle, a refused request retried every cycle; then tick until every
/// request has completed.
pub fn replay_cycle_sim<S: CycleSim, I: IntoIterator<Item = TimedRequest>>(
    sim: &mut S,
    reqs: I,
    tck_ns: f64,
    burst_bytes: u64,
) -> ReferenceRun {
    let mut it = reqs.into_iter().peekable();
    let mut outstanding: u64 = 0;
    let mut arrivals: HashMap<u64, VecDeque<u64>> = HashMap::new();
    let (mut requests, mut reads, mut lat_sum, mut lat_n, mut last) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut clk = 0u64;
    loop {
        if let Some(r) = it.peek() {
            if r.cycle <= clk && sim.can_add(r.addr, r.kind.is_write()) {
                sim.add(r.addr, r.kind.is_write());
                requests += 1;
                outstanding += 1;
                if !r.kind.is_write() {
                    reads += 1;
                    arrivals.entry(r.addr).or_default().push_back(clk);
                }
                it.next();
            }
        } else if outstanding == 0 {
            break;
        }
        sim.tick(&mut |addr, is_write| {
            outstanding = outstanding.saturating_sub(1);
            last = clk;
            if !is_write {
                if let Some(q) = arrivals.get_mut(&addr) {
                    if let Some(a) = q.pop_front() {
                        lat_sum += clk - a;
                        lat_n += 1;
                    }
                }
            }
        });
        clk += 1;
    }
    ReferenceRun {
        requests,
        reads,
        cycles: last,
        avg_read_latency: if lat_n == 0 {
            0.0
        } else {
            lat_sum as f64 / lat_n as f64
        },
        bandwidth_gbps: if last == 0 {
            0.0
        } else {
            (requests * burst_bytes) as f64 / (last as f64 * tck_ns)
        },
    }
}

/// The DRAMsim3 `.ini` text describing `cfg` (one controller per channel).
/// `epoch_period` sets how often DRAMsim3 appends per-epoch counters to
/// `dramsim3epoch.json` in its output directory (at most 2^31 − 1, DRAMsim3
/// reads it as a C `int`). Fails for what DRAMsim3
/// cannot express: FCFS scheduling, no command queues, split address fields.
pub fn dramsim3_ini(cfg: &DramConfig, epoch_period: u64) -> Result<String, ConfigError> {
    cfg.validate()?;
    let bad = |field: &str, message: &str| ConfigError::Invalid {
        path: "DRAMsim3 export".into(),
        field: field.into(),
        message: message.into(),
    };
    if cfg.scheduler != SchedulerKind::FrFcfs {
        return Err(bad("dram.scheduler", "DRAMsim3 only schedules FR-FCFS"));
    }
    if cfg.bank_queue_entries == 0 {
        return Err(bad(
            "dram.bank_queue_entries",
            "DRAMsim3 always has per-bank command queues",
        ));
    }
    if cfg.read_queue_entries != cfg.write_queue_entries {
        return Err(bad(
            "dram.write_queue_entries",
            "DRAMsim3 has one trans_queue_size for reads and writes",
        ));
    }
    let m = cfg.mapping()?;
    let mut order = String::new();
    let mut seen = Vec::new();
    for (f, _) in m.fields().into_iter().rev() {
        let code = match f {
            Field::Offset => continue,
            Field::Channel => "ch",
            Field::Rank => "ra",
            Field::BankGroup => "bg",
            Field::Bank => "ba",
            Field::Row => "ro",
            Field::Column => "co",
        };
        if seen.contains(&f) {
            return Err(bad(
                "dram.address_mapping",
                "DRAMsim3 needs every field in one contiguous run",
            ));
        }
        seen.push(f);
        order.push_str(code);
    }
    if m.fields().first().map(|f| f.0) != Some(Field::Offset) && m.bits(Field::Offset) > 0 {
        return Err(bad(
            "dram.address_mapping",
            "DRAMsim3 needs the burst offset in the lowest bits",
        ));
    }
    for (f, code) in [
        (Field::Channel, "ch"),
        (Field::Rank, "ra"),
        (Field::BankGroup, "bg"),
        (Field::Bank, "ba"),
        (Field::Row, "ro"),
        (Field::Column, "co"),
    ] {
        if !seen.contains(&f) {
            order.push_str(code); // zero-width field: position irrelevant
        }
    }
    let t = &cfg.timing;
    let columns = cfg.row_bytes / (cfg.bus_bits / 8);
    let megs_per_rank =
        (cfg.banks_per_rank() as u64 * cfg.rows as u64 * cfg.row_bytes as u64) >> 20;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "; generated by weft-memsim from machine config\n[dram_structure]"
    );
    let _ = writeln!(
        s,
        "protocol = DDR4\nbankgroups = {}\nbanks_per_group = {}",
        cfg.bankgroups, cfg.banks_per_group
    );
    let _ = writeln!(
        s,
        "rows = {}\ncolumns = {columns}\ndevice_width = 8\nBL = {}",
        cfg.rows, cfg.burst_length
    );
    let _ = writeln!(
        s,
        "\n[timing]\ntCK = {}\nAL = 0\nCL = {}\nCWL = {}",
        cfg.tck_ns, t.tCL, t.tCWL
    );
    let _ = writeln!(
        s,
        "tRCD = {}\ntRP = {}\ntRAS = {}\ntRFC = {}",
        t.tRCD, t.tRP, t.tRAS, t.tRFC
    );
    let _ = writeln!(s, "tRFC2 = {}\ntRFC4 = {}", t.tRFC, t.tRFC);
    // DRAMsim3 reads these as C `int`s
    let refi = if cfg.refresh {
        t.tREFI as u64
    } else {
        1_000_000_000
    };
    let epoch_period = epoch_period.clamp(1, i32::MAX as u64);
    let _ = writeln!(s, "tREFI = {refi}\ntRPRE = 1\ntWPRE = 1");
    let _ = writeln!(
        s,
        "tRRD_S = {}\ntRRD_L = {}\ntWTR_S = {}\ntWTR_L = {}",
        t.tRRD_S, t.tRRD_L, t.tWTR_S, t.tWTR_L
    );
    let _ = writeln!(
        s,
        "tFAW = {}\ntWR = {}\ntWR2 = {}\ntRTP = {}",
        t.tFAW,
        t.tWR,
        t.tWR + 1,
        t.tRTP
    );
    let _ = writeln!(
        s,
        "tCCD_S = {}\ntCCD_L = {}\ntCKE = 6\ntCKESR = 7\ntXS = {}\ntXP = 8",
        t.tCCD_S,
        t.tCCD_L,
        t.tRFC + 12
    );
    let _ = writeln!(s, "tRTRS = {}", t.tRTRS);
    let _ = writeln!(s, "\n[power]\nVDD = 1.2\nIDD0 = 48\nIPP0 = 3.0\nIDD2P = 25\nIDD2N = 34\nIDD3P = 37\nIDD3N = 43\nIDD4W = 123\nIDD4R = 135\nIDD5AB = 250\nIDD6x = 30");
    let _ = writeln!(
        s,
        "\n[system]\nchannel_size = {}\nchannels = {}\nbus_width = {}",
        megs_per_rank * cfg.ranks as u64,
        cfg.channels,
        cfg.bus_bits
    );
    let _ = writeln!(s, "address_mapping = {order}\nqueue_structure = PER_BANK\nrefresh_policy = RANK_LEVEL_STAGGERED");
    let policy = if cfg.row_policy == RowPolicy::Open {
        "OPEN_PAGE"
    } else {
        "CLOSE_PAGE"
    };
    let _ = writeln!(
        s,
        "row_buf_policy = {policy}\ncmd_queue_size = {}\ntrans_queue_size = {}",
        cfg.bank_queue_entries, cfg.read_queue_entries
    );
    let _ = writeln!(
        s,
        "\n[other]\nepoch_period = {epoch_period}\noutput_level = 1"
    );
    Ok(s)
}

/// Row-buffer counters summed over DRAMsim3's `dramsim3epoch.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Dramsim3Counters {
    /// `num_read_cmds + num_write_cmds`.
    pub column_cmds: u64,
    /// `num_read_row_hits + num_write_row_hits` (column commands after the first in an open row).
    pub row_hits: u64,
    /// `num_act_cmds`.
    pub act_cmds: u64,
    /// `num_ref_cmds`.
    pub ref_cmds: u64,
}

/// Parse DRAMsim3's epoch file (a `[`-opened list of per-channel, per-epoch
/// JSON objects each followed by `,`) and sum the counters.
pub fn parse_dramsim3_epochs(text: &str) -> Result<Dramsim3Counters, String> {
    let body = text
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim()
        .trim_end_matches(',');
    let v: serde_json::Value = serde_json::from_str(&format!("[{body}]"))
        .map_err(|e| format!("bad DRAMsim3 epoch file: {e}"))?;
    let mut c = Dramsim3Counters::default();
    let get = |o: &serde_json::Value, k: &str| o.get(k).and_then(|x| x.as_u64()).unwrap_or(0);
    for o in v.as_array().into_iter().flatten() {
        c.column_cmds += get(o, "num_read_cmds") + get(o, "num_write_cmds");
        c.row_hits += get(o, "num_read_row_hits") + get(o, "num_write_row_hits");
        c.act_cmds += get(o, "num_act_cmds");
        c.ref_cmds += get(o, "num_ref_cmds");
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MachineConfig;
    use crate::trace::AccessKind;

    #[test]
    fn ini_of_the_dramsim3_preset() {
        let c = MachineConfig::preset("dramsim3-ddr4-2400").unwrap();
        let ini = dramsim3_ini(&c.dram, 1000).unwrap();
        // rochrababgco with the zero-width channel and rank fields moved to the end (equivalent)
        assert!(ini.contains("address_mapping = robabgcochra"), "{ini}");
        assert!(ini.contains("channel_size = 8192"));
        assert!(ini.contains("columns = 1024"));
        assert!(ini.contains("cmd_queue_size = 8\ntrans_queue_size = 32"));
        assert!(dramsim3_ini(&MachineConfig::preset("table5.2").unwrap().dram, 1).is_err());
    }

    /// A fake fixed-latency simulator with a 2-entry queue.
    struct Fixed {
        q: Vec<(u64, bool, u64)>,
        clk: u64,
    }
    impl CycleSim for Fixed {
        fn can_add(&self, _: u64, _: bool) -> bool {
            self.q.len() < 2
        }
        fn add(&mut self, a: u64, w: bool) {
            self.q.push((a, w, self.clk + 10));
        }
        fn tick(&mut self, done: &mut dyn FnMut(u64, bool)) {
            let clk = self.clk;
            self.q.retain(|&(a, w, d)| {
                if d <= clk {
                    done(a, w);
                    false
                } else {
                    true
                }
            });
            self.clk += 1;
        }
    }

    #[test]
    fn replay_rule() {
        let reqs: Vec<TimedRequest> = (0..3)
            .map(|i| TimedRequest {
                cycle: 0,
                kind: AccessKind::Read,
                addr: i * 64,
            })
            .collect();
        let r = replay_cycle_sim(&mut Fixed { q: vec![], clk: 0 }, reqs, 1.0, 64);
        // added at 0 and 1; the third waits for a free slot: first leaves at tick 10, added at 11
        assert_eq!(r.cycles, 21);
        assert_eq!(r.avg_read_latency, 10.0);
        let e = parse_dramsim3_epochs(
            "[{\"num_read_cmds\":3,\"num_read_row_hits\":2},\n{\"num_read_cmds\":1},\n",
        )
        .unwrap();
        assert_eq!((e.column_cmds, e.row_hits), (4, 2));
    }
}
