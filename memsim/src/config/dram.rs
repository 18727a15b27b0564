//! Memory controllers and DRAM devices of the machine: standard, geometry,
//! JEDEC timings, address mapping and scheduler (Tables 4.2 and 5.2).

use serde::{Deserialize, Serialize};

use super::{check_pow2, invalid, over_limit, ConfigError};
use crate::addrmap::{AddressMapping, Field};

/// DRAM standard (command set and timing rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum DramStandard {
    /// JEDEC DDR4 (bank groups, tCCD_S/L, tRRD_S/L, tWTR_S/L).
    #[default]
    #[serde(rename = "DDR4")]
    Ddr4,
    /// GDDR5 on the same command engine (see `crate::dram`, "GDDR5"): one bank
    /// group, four transfers per command clock (`tBL` = burst length / 4), no refresh.
    #[serde(rename = "GDDR5")]
    Gddr5,
    /// HBM2 pseudo-channels on the same command engine (see `crate::dram`).
    #[serde(rename = "HBM2")]
    Hbm2,
}

/// Row-buffer management policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RowPolicy {
    /// Leave the row open after an access (row hits possible).
    #[default]
    Open,
    /// Precharge right after each access (auto-precharge, RDA/WRA).
    Closed,
}

/// Memory-controller request scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SchedulerKind {
    /// First come, first served: oldest request first.
    Fcfs,
    /// First ready, first come first served: row hits first, then oldest.
    #[default]
    FrFcfs,
}

/// How FR-FCFS chooses between banks that each have a ready command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BankArbitration {
    /// Row hits of any bank first, then the oldest request (Rixner's FR-FCFS).
    #[default]
    Oldest,
    /// Banks in round-robin order starting after the bank of the last command;
    /// inside a bank, first ready (hits before conflicts). DRAMsim3's policy.
    RoundRobin,
}

/// DDR command timing, in DRAM clock cycles (tCK). Field names follow JEDEC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct DramTimings {
    /// CAS (read) latency: RD to first data. Default 17.
    pub tCL: u32,
    /// CAS write latency: WR to first data. Default 12.
    pub tCWL: u32,
    /// ACT to RD/WR, same bank. Default 17.
    pub tRCD: u32,
    /// PRE to ACT, same bank. Default 17.
    pub tRP: u32,
    /// ACT to PRE, same bank. Default 39.
    pub tRAS: u32,
    /// Data burst length in clock cycles (BL8 = 4). Default 4.
    pub tBL: u32,
    /// Column to column, different bank group. Default 4.
    pub tCCD_S: u32,
    /// Column to column, same bank group. Default 6.
    pub tCCD_L: u32,
    /// ACT to ACT, different bank group. Default 7 (2 KB page).
    pub tRRD_S: u32,
    /// ACT to ACT, same bank group. Default 8 (2 KB page).
    pub tRRD_L: u32,
    /// Four-activate window per rank. Default 36 (2 KB page).
    pub tFAW: u32,
    /// Write recovery: end of write data to PRE. Default 18.
    pub tWR: u32,
    /// End of write data to RD, different bank group. Default 3.
    pub tWTR_S: u32,
    /// End of write data to RD, same bank group. Default 9.
    pub tWTR_L: u32,
    /// RD to PRE. Default 9.
    pub tRTP: u32,
    /// Rank-to-rank switch (and read-to-write bus turnaround). Default 1.
    pub tRTRS: u32,
    /// Average refresh interval (REF to REF per rank). Default 9360 (7.8 µs).
    pub tREFI: u32,
    /// Refresh cycle time: REF to ACT. Default 420 (350 ns, 8 Gb).
    pub tRFC: u32,
}

/// Memory controllers and DRAM devices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DramConfig {
    /// DRAM standard. Default `"DDR4"`.
    pub standard: DramStandard,
    /// Speed grade (informational). Default `"DDR4-2400"`.
    pub speed: String,
    /// Clock period in ns (DDR: two transfers per clock). Default 0.833 (1200 MHz).
    pub tck_ns: f64,
    /// Channels (= memory controllers), power of two. Default 4.
    pub channels: u32,
    /// Ranks per channel, power of two. Default 1.
    pub ranks: u32,
    /// Bank groups per rank, power of two. Default 2 (×16 DDR4 devices).
    pub bankgroups: u32,
    /// Banks per bank group, power of two. Default 4 (8 banks per rank).
    pub banks_per_group: u32,
    /// Rows per bank, power of two. Default 262144 (4 GiB per channel).
    pub rows: u32,
    /// Row-buffer size in bytes as seen by the address mapping (a rank-wide
    /// row), power of two. Default 2048.
    pub row_bytes: u32,
    /// Data-bus width in bits. Default 64.
    pub bus_bits: u32,
    /// Burst length in transfers. A request moves one burst,
    /// `bus_bits / 8 × burst_length` bytes (64 B). Default 8.
    pub burst_length: u32,
    /// Command timing.
    pub timing: DramTimings,
    /// Address bit layout from the low bits up (see `addrmap`). Must cover
    /// exactly channels × ranks × banks × rows × row_bytes. Default
    /// `"offset:6 column:5 channel:2 bankgroup:1 bank:2 rank:0 row:18"`: 2 KB rows
    /// distributed round-robin over channels then banks (Table 5.2).
    pub address_mapping: String,
    /// Row-buffer policy. Default `open`.
    pub row_policy: RowPolicy,
    /// Request scheduler. Default `fr-fcfs`.
    pub scheduler: SchedulerKind,
    /// Read-queue entries per controller; a full queue refuses new reads
    /// (back-pressure). Default 128 (Table 5.2's 128-entry memory request queue).
    pub read_queue_entries: u32,
    /// Write-queue entries per controller. Default 122 (with the read queue, the
    /// 250 request-buffer entries of Table 5.2).
    pub write_queue_entries: u32,
    /// Per-bank command-queue entries between the transaction queues and the
    /// scheduler (DRAMsim3's `cmd_queue_size`, one request moves per cycle);
    /// 0 = no staging, the scheduler sees the whole queues. Default 0.
    pub bank_queue_entries: u32,
    /// Start draining writes when the write queue holds this many. Default 104 (85 %, gem5).
    pub write_high_watermark: u32,
    /// Stop draining writes when the write queue is down to this many. Default 61 (50 %, gem5).
    pub write_low_watermark: u32,
    /// Also drain when more than this many writes wait and no read is pending
    /// (DRAMsim3 uses 8). Default 8.
    pub write_idle_drain: u32,
    /// FR-FCFS: how banks with ready commands are ordered. Default `oldest`.
    pub bank_arbitration: BankArbitration,
    /// FR-FCFS: after this many row hits since the row was opened, an older
    /// conflicting request may close the row even though hits are pending
    /// (DRAMsim3 uses 4; 0 = hits always first). Default 0.
    pub row_hit_cap: u32,
    /// Issue periodic all-bank refresh (REF every tREFI per rank, staggered
    /// across ranks). Default true.
    pub refresh: bool,
    /// Length of a statistics epoch (per-epoch BLP time series) in DRAM cycles.
    /// Default 2500.
    pub epoch_cycles: u64,
}

impl Default for DramTimings {
    fn default() -> Self {
        // DDR4-2400, 8 Gb x16 (DRAMsim3 DDR4_8Gb_x16_2400.ini, JEDEC 17-17-17).
        DramTimings {
            tCL: 17,
            tCWL: 12,
            tRCD: 17,
            tRP: 17,
            tRAS: 39,
            tBL: 4,
            tCCD_S: 4,
            tCCD_L: 6,
            tRRD_S: 7,
            tRRD_L: 8,
            tFAW: 36,
            tWR: 18,
            tWTR_S: 3,
            tWTR_L: 9,
            tRTP: 9,
            tRTRS: 1,
            tREFI: 9360,
            tRFC: 420,
        }
    }
}

impl Default for DramConfig {
    fn default() -> Self {
        DramConfig {
            standard: DramStandard::Ddr4,
            speed: "DDR4-2400".into(),
            tck_ns: 0.833,
            channels: 4,
            ranks: 1,
            bankgroups: 2,
            banks_per_group: 4,
            rows: 1 << 18,
            row_bytes: 2048,
            bus_bits: 64,
            burst_length: 8,
            timing: DramTimings::default(),
            address_mapping: "offset:6 column:5 channel:2 bankgroup:1 bank:2 rank:0 row:18".into(),
            row_policy: RowPolicy::Open,
            scheduler: SchedulerKind::FrFcfs,
            read_queue_entries: 128,
            write_queue_entries: 122,
            bank_queue_entries: 0,
            write_high_watermark: 104,
            write_low_watermark: 61,
            write_idle_drain: 8,
            bank_arbitration: BankArbitration::Oldest,
            row_hit_cap: 0,
            refresh: true,
            epoch_cycles: 2500,
        }
    }
}

impl DramConfig {
    /// Bytes moved by one request (one burst).
    pub fn burst_bytes(&self) -> u32 {
        self.bus_bits / 8 * self.burst_length
    }

    /// Banks per rank.
    pub fn banks_per_rank(&self) -> u32 {
        self.bankgroups * self.banks_per_group
    }

    /// Banks per channel.
    pub fn banks_per_channel(&self) -> u32 {
        self.ranks * self.banks_per_rank()
    }

    /// Total capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.channels as u64
            * self.banks_per_channel() as u64
            * self.rows as u64
            * self.row_bytes as u64
    }

    /// Peak bandwidth in GB/s (10^9 bytes per second), all channels.
    pub fn peak_bandwidth_gbps(&self) -> f64 {
        self.channels as f64 * self.burst_bytes() as f64 / (self.timing.tBL as f64 * self.tck_ns)
    }

    /// The parsed address mapping.
    pub fn mapping(&self) -> Result<AddressMapping, ConfigError> {
        Ok(AddressMapping::parse(&self.address_mapping)?)
    }

    /// Check ranges, geometry and the mapping's agreement with it.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::limits::check_dram(self).map_err(over_limit)?;
        if !(self.tck_ns.is_finite() && self.tck_ns > 0.0) {
            return Err(invalid("dram.tck_ns", "must be a positive number"));
        }
        check_pow2("dram.channels", self.channels as u64)?;
        check_pow2("dram.ranks", self.ranks as u64)?;
        check_pow2("dram.bankgroups", self.bankgroups as u64)?;
        check_pow2("dram.banks_per_group", self.banks_per_group as u64)?;
        check_pow2("dram.rows", self.rows as u64)?;
        check_pow2("dram.row_bytes", self.row_bytes as u64)?;
        check_pow2("dram.bus_bits", self.bus_bits as u64)?;
        check_pow2("dram.burst_length", self.burst_length as u64)?;
        if self.bus_bits < 8 {
            return Err(invalid("dram.bus_bits", "must be at least 8"));
        }
        if self.row_bytes < self.burst_bytes() {
            return Err(invalid("dram.row_bytes", "must hold at least one burst"));
        }
        let t = &self.timing;
        // Every timing must be positive except these (tREFI is unused with refresh off).
        let may_be_zero = [
            "dram.timing.tWTR_S",
            "dram.timing.tWTR_L",
            "dram.timing.tRTRS",
            "dram.timing.tREFI",
        ];
        for (n, v) in crate::limits::timing_fields(t) {
            if v == 0 && !may_be_zero.contains(&n) {
                return Err(invalid(n, "must be positive"));
            }
        }
        if self.refresh {
            // Each rank is refreshed every `ranks × ⌊tREFI / ranks⌋` cycles
            // (the controller refreshes the ranks in turn, one every
            // ⌊tREFI / ranks⌋ cycles), and from a REF's due cycle on the rank
            // takes no other command until the REF has issued. After a REF
            // at T its banks take ACT from T + tRFC; serving one request then
            // closing its row again (so that the next REF is on time) takes
            // `max(tRAS, tRCD + tRTP, tRCD + tCWL + tBL + tWR) + tRP` more.
            // A shorter period starves the rank: with no room for ACT and a
            // column command no request to it is ever served and the
            // simulation never ends (issue #38; found with tREFI = 4001,
            // tRFC = 4000 on two ranks, a period of 4000, which the earlier
            // check tREFI > tRFC accepted), and with room for ACT and RD but
            // not for PRE the late REFs eat the next windows.
            let ranks = u64::from(self.ranks.max(1));
            let period = ranks * (u64::from(t.tREFI) / ranks).max(1);
            let (rcd, cwl, bl, wr) = (t.tRCD, t.tCWL, t.tBL, t.tWR);
            let serve = t.tRAS.max(rcd + t.tRTP).max(rcd + cwl + bl + wr) + t.tRP;
            let busy = u64::from(t.tRFC) + u64::from(serve);
            if period <= busy {
                return Err(invalid(
                    "dram.timing.tREFI",
                    format!(
                        "= {}: each rank is refreshed every ranks × ⌊tREFI / ranks⌋ = {period} \
                         cycles, which must exceed tRFC + max(tRAS, tRCD + tRTP, tRCD + tCWL + \
                         tBL + tWR) + tRP = {busy} (refresh, then open a row, access it and \
                         close it) so that a request can be served between two refreshes of \
                         its rank",
                        t.tREFI
                    ),
                ));
            }
        }
        if t.tCCD_L < t.tCCD_S {
            return Err(invalid("dram.timing.tCCD_L", "must be at least tCCD_S"));
        }
        if t.tRRD_L < t.tRRD_S {
            return Err(invalid("dram.timing.tRRD_L", "must be at least tRRD_S"));
        }
        if self.read_queue_entries == 0 {
            return Err(invalid("dram.read_queue_entries", "must be positive"));
        }
        if self.write_queue_entries == 0 {
            return Err(invalid("dram.write_queue_entries", "must be positive"));
        }
        if self.write_high_watermark == 0 || self.write_high_watermark > self.write_queue_entries {
            return Err(invalid(
                "dram.write_high_watermark",
                "must be between 1 and write_queue_entries",
            ));
        }
        if self.write_low_watermark >= self.write_high_watermark {
            return Err(invalid(
                "dram.write_low_watermark",
                "must be below write_high_watermark",
            ));
        }
        if self.epoch_cycles == 0 {
            return Err(invalid("dram.epoch_cycles", "must be positive"));
        }
        let m = self.mapping()?;
        let log2 = |v: u32| v.trailing_zeros();
        for (field, name, want) in [
            (Field::Offset, "offset", log2(self.burst_bytes())),
            (
                Field::Column,
                "column",
                log2(self.row_bytes / self.burst_bytes()),
            ),
            (Field::Channel, "channel", log2(self.channels)),
            (Field::Rank, "rank", log2(self.ranks)),
            (Field::BankGroup, "bankgroup", log2(self.bankgroups)),
            (Field::Bank, "bank", log2(self.banks_per_group)),
            (Field::Row, "row", log2(self.rows)),
        ] {
            if m.bits(field) != want {
                return Err(invalid(
                    "dram.address_mapping",
                    format!(
                        "gives {name} {} bits but the geometry needs {want} (`{}`)",
                        m.bits(field),
                        self.address_mapping
                    ),
                ));
            }
        }
        Ok(())
    }
}
