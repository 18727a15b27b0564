//! Machine configuration: the whole simulated machine as serde/TOML structs.
//!
//! [`MachineConfig`] describes cores, caches, prefetcher, mesh NoC, memory
//! controllers and DRAM. Its `Default` is the dissertation's Table 5.2 manycore
//! (§5.6.1); presets are TOML files under `memsim/configs/`, embedded in the
//! binary and loaded by name ([`MachineConfig::preset`], [`MachineConfig::load`]):
//!
//! * `table5.2` — 36 cores on a 6×6 mesh, 1 GHz, 2-issue; L1 16 KB 8-way 32 B
//!   lines; S-NUCA L2 (the LLC) 512 KB per core, 16-way, 128 B lines; stream
//!   prefetcher (32 streams, degree 4, distance 64 lines); 3-cycle routers, X-Y
//!   routing; DDR4-2400, 4 MCs, 1 rank/channel, 8 banks/rank, 2 KB rows, FR-FCFS
//!   open row, 128-entry MSHRs, 250 request-buffer entries; memory banks
//!   interleaved at 2 KB round-robin, LLC banks at 128 B round-robin.
//! * `table4.2` — 12 cores (3.4 GHz); L1 32 KB 8-way 4 cycles; private L2 256 KB
//!   8-way 12 cycles; shared L3 10 MB 32-way 32 cycles; 64 B lines; 4 DDR4-2933
//!   MCs with tCL = tRCD = tRP = 20, 8 ranks × 2 banks, 2 KB rows, FR-FCFS with 64
//!   requests per MC, page interleaving as Fig. 4.2 (§4.5.1).
//! * `dramsim3-ddr4-2400` — DRAMsim3's `DDR4_8Gb_x8_2400.ini` with one channel and
//!   one rank (8 GiB), its default mapping `rochrababgco`, open page, FR-FCFS,
//!   32-entry transaction queues and 8 commands per bank: the configuration of
//!   the differential test.
//!
//! Where the papers leave a parameter open the presets say so next to the value.
//! DRAM timings the tables do not give (tRAS, tCWL, tCCD, tRRD, tFAW, tWR, tWTR,
//! tRTP, tREFI, tRFC) are the JEDEC DDR4 speed-bin values (JESD79-4, 8 Gb
//! devices, 2 KB page for ×16 / 1 KB page for ×8), taken for DDR4-2400 from
//! DRAMsim3's `DDR4_8Gb_x16_2400.ini` / `DDR4_8Gb_x8_2400.ini` and for DDR4-2933
//! computed from the nanosecond values at tCK = 0.682 ns (rounded up).
//! Core-side parameters not in the tables (ROB size, cache latencies of
//! Table 5.2, NoC link latency and flit size, MC placement) are documented
//! assumptions in the preset files.
//!
//! Invariant: a config that passes [`MachineConfig::validate`] can be turned into
//! every simulator unit without further checks (non-zero sizes, power-of-two
//! DRAM geometry consistent with the address mapping, MC and LLC positions on the
//! mesh).

use serde::{Deserialize, Serialize};
use std::path::Path;

use crate::addrmap::{AddrMapError, AddressMapping, Field};

/// Errors loading or validating a machine configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// No preset of that name and no such file.
    #[error("unknown machine `{name}`: not a preset ({}) and no such file", .known.join(", "))]
    UnknownPreset {
        /// The requested name.
        name: String,
        /// The preset names.
        known: Vec<String>,
    },
    /// The file could not be read.
    #[error("cannot read machine config {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// TOML syntax or schema error (unknown field, wrong type).
    #[error("invalid machine config {path}: {message}")]
    Parse {
        /// The file (or preset) name.
        path: String,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A value is out of range or inconsistent with another.
    #[error("machine config {path}: `{field}` {message}")]
    Invalid {
        /// The file (or preset) name; empty when validating an in-memory config.
        path: String,
        /// Dotted field path, e.g. `dram.timing.tRCD`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The DRAM address mapping does not parse.
    #[error("machine config: dram.address_mapping: {0}")]
    Mapping(#[from] AddrMapError),
}

pub(crate) fn invalid(field: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        path: String::new(),
        field: field.to_string(),
        message: message.into(),
    }
}

/// The whole simulated machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MachineConfig {
    /// Name of the machine (informational). Default `"table5.2"`.
    pub name: String,
    /// One-line description (informational). Default: Table 5.2's caption.
    pub description: String,
    /// The cores. Default: 36 cores, 1 GHz, 2-issue.
    pub core: CoreConfig,
    /// Private L1 data cache of each core. Default: 16 KB, 8-way, 32 B lines.
    pub l1: CacheConfig,
    /// Optional private L2 of each core (Table 4.2 has one; Table 5.2 has none,
    /// its L2 is the shared LLC). Default: absent.
    pub l2: Option<CacheConfig>,
    /// The shared last-level cache (S-NUCA, banks interleaved round-robin).
    /// Default: 36 banks × 512 KB, 16-way, 128 B lines.
    pub llc: LlcConfig,
    /// The hardware prefetcher. Default: stream, 32 streams, degree 4, distance 64.
    pub prefetcher: PrefetcherConfig,
    /// The on-chip network. Default: 6×6 mesh, 3-cycle routers, X-Y routing.
    pub noc: NocConfig,
    /// The memory controllers and DRAM. Default: DDR4-2400, 4 channels, 1 rank, 8 banks.
    pub dram: DramConfig,
    /// Scheduling epoch (core cycles): the window of the runtime's schedulers and
    /// of the manycore per-epoch statistics. Default 2500 (§5.6.1).
    pub epoch_cycles: u64,
    /// The GPU side (`weft gpusim`): present only in GPU presets, where `core` are
    /// the SMs, `l1` each SM's L1D and `llc` the L2 slices, reached over a
    /// crossbar instead of the mesh ([`crate::gpu::config`]). Default: absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<crate::gpu::config::GpuConfig>,
}

/// The cores (all identical).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CoreConfig {
    /// Number of cores. Default 36.
    pub count: u32,
    /// Core clock in MHz. Default 1000.
    pub freq_mhz: u32,
    /// Instructions issued (and retired) per cycle. Default 2.
    pub issue_width: u32,
    /// Reorder-buffer entries: how far a core runs ahead of its oldest
    /// outstanding load. Default 64 (not in Table 5.2; assumed for a 2-issue core).
    pub rob_entries: u32,
    /// Write-buffer entries: stores that missed and wait for their line; a full
    /// write buffer stalls dispatch. Default 16 (assumed; manycore model only).
    pub write_buffer_entries: u32,
}

/// Cache replacement policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Replacement {
    /// Least recently used.
    #[default]
    Lru,
}

/// A private cache level (L1 or private L2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    /// Capacity in bytes. Default 16384 (16 KB).
    pub size_bytes: u64,
    /// Associativity (ways). Default 8.
    pub ways: u32,
    /// Line size in bytes (power of two). Default 32.
    pub line_bytes: u32,
    /// Hit latency in core cycles. Default 2 (not in Table 5.2; assumed).
    pub hit_latency: u32,
    /// Miss-status holding registers (outstanding misses). Default 16 (assumed).
    pub mshrs: u32,
    /// Replacement policy. Default `lru`.
    pub replacement: Replacement,
}

/// The shared, banked last-level cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlcConfig {
    /// Total capacity in bytes over all banks. Default 18874368 (36 × 512 KB).
    pub size_bytes: u64,
    /// Number of banks; lines are distributed round-robin at `line_bytes`
    /// granularity (need not be a power of two). Default 36.
    pub banks: u32,
    /// Associativity (ways). Default 16.
    pub ways: u32,
    /// Line size in bytes (power of two), also the interleaving granularity. Default 128.
    pub line_bytes: u32,
    /// Bank access latency in core cycles. Default 10 (not in Table 5.2; assumed).
    pub hit_latency: u32,
    /// MSHRs per bank (outstanding misses to memory). Default 128 (Table 5.2).
    pub mshrs: u32,
    /// Replacement policy. Default `lru`.
    pub replacement: Replacement,
    /// Cycles between two accesses starting at one bank's single port (initiation
    /// interval; concurrent accesses to a bank queue behind each other). Default 2
    /// (assumed; manycore model only).
    pub port_cycles: u32,
    /// Directory-based invalidation coherence at the home bank (Table 5.2 lists
    /// MOESI; see `memsim::system` for what is modelled). Default true.
    pub directory: bool,
}

/// Prefetcher kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PrefetcherKind {
    /// No prefetching.
    None,
    /// Stream prefetcher (Table 5.2).
    #[default]
    Stream,
    /// Per-PC stride prefetcher (Table 4.2's "stride-prefetcher").
    Stride,
}

/// Hardware prefetcher (attached to the L1 miss stream).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PrefetcherConfig {
    /// Kind. Default `stream`.
    pub kind: PrefetcherKind,
    /// Tracked streams (or stride-table entries). Default 32.
    pub streams: u32,
    /// Lines prefetched per trigger. Default 4.
    pub degree: u32,
    /// How far ahead of the demand stream, in cache lines. Default 64.
    pub distance: u32,
    /// Page size in bytes that prefetches do not cross (a prefetcher that sees
    /// physical addresses cannot know the next page's frame; gem5's queued
    /// prefetchers drop such prefetches without a TLB). A stream stops at the
    /// page end and retrains in the next page. 0 = unbounded (the presets:
    /// `table5.2`'s 64-line distance of 128 B lines spans two 4 KB pages).
    /// Default 0.
    pub page_bytes: u32,
}

/// Routing algorithm of the mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Routing {
    /// Dimension-ordered: X first, then Y.
    #[default]
    Xy,
}

/// The on-chip 2-D mesh network.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NocConfig {
    /// Mesh columns (X). Default 6.
    pub cols: u32,
    /// Mesh rows (Y). Default 6.
    pub rows: u32,
    /// Network clock in MHz. Default 1000 (Table 5.2).
    pub freq_mhz: u32,
    /// Router pipeline latency per hop, network cycles. Default 3 (Table 5.2).
    pub router_latency: u32,
    /// Link traversal latency per hop, network cycles. Default 1 (assumed).
    pub link_latency: u32,
    /// Flit width in bytes. Default 16 (assumed).
    pub flit_bytes: u32,
    /// Flits of a control packet (read request, write ack). Default 1.
    pub control_flits: u32,
    /// Flits of a data packet (one LLC line plus header). Default 9 (128 B / 16 B + 1).
    pub data_flits: u32,
    /// Routing algorithm. Default `xy`.
    pub routing: Routing,
    /// Mesh positions `[x, y]` of the memory controllers, one per DRAM channel,
    /// in channel order. Default: the four corners `[0,0] [5,0] [0,5] [5,5]`
    /// (placement not given in Table 5.2; assumed).
    pub mc_nodes: Vec<[u32; 2]>,
    /// Mesh positions `[x, y]` of the LLC banks in bank order; empty means one
    /// bank per tile in row-major order (requires `llc.banks == cols × rows`).
    /// Default empty.
    pub llc_nodes: Vec<[u32; 2]>,
}

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

impl Default for MachineConfig {
    fn default() -> Self {
        MachineConfig {
            name: "table5.2".into(),
            description:
                "Dissertation Table 5.2: 36-core 6x6 mesh manycore, S-NUCA L2, 4 DDR4-2400 MCs"
                    .into(),
            core: CoreConfig::default(),
            l1: CacheConfig::default(),
            l2: None,
            llc: LlcConfig::default(),
            prefetcher: PrefetcherConfig::default(),
            noc: NocConfig::default(),
            dram: DramConfig::default(),
            epoch_cycles: 2500,
            gpu: None,
        }
    }
}

impl Default for CoreConfig {
    fn default() -> Self {
        CoreConfig {
            count: 36,
            freq_mhz: 1000,
            issue_width: 2,
            rob_entries: 64,
            write_buffer_entries: 16,
        }
    }
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            size_bytes: 16 * 1024,
            ways: 8,
            line_bytes: 32,
            hit_latency: 2,
            mshrs: 16,
            replacement: Replacement::Lru,
        }
    }
}

impl Default for LlcConfig {
    fn default() -> Self {
        LlcConfig {
            size_bytes: 36 * 512 * 1024,
            banks: 36,
            ways: 16,
            line_bytes: 128,
            hit_latency: 10,
            mshrs: 128,
            replacement: Replacement::Lru,
            port_cycles: 2,
            directory: true,
        }
    }
}

impl Default for PrefetcherConfig {
    fn default() -> Self {
        PrefetcherConfig {
            kind: PrefetcherKind::Stream,
            streams: 32,
            degree: 4,
            distance: 64,
            page_bytes: 0,
        }
    }
}

impl Default for NocConfig {
    fn default() -> Self {
        NocConfig {
            cols: 6,
            rows: 6,
            freq_mhz: 1000,
            router_latency: 3,
            link_latency: 1,
            flit_bytes: 16,
            control_flits: 1,
            data_flits: 9,
            routing: Routing::Xy,
            mc_nodes: vec![[0, 0], [5, 0], [0, 5], [5, 5]],
            llc_nodes: Vec::new(),
        }
    }
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

/// Preset names and their embedded TOML text.
const PRESETS: &[(&str, &str)] = &[
    ("table5.2", include_str!("../configs/table5.2.toml")),
    ("table4.2", include_str!("../configs/table4.2.toml")),
    ("k20c-dtbl", include_str!("../configs/k20c-dtbl.toml")),
    ("k20-spawn", include_str!("../configs/k20-spawn.toml")),
    ("gtx480-ipaws", include_str!("../configs/gtx480-ipaws.toml")),
    ("v100-fgtb", include_str!("../configs/v100-fgtb.toml")),
    (
        "dramsim3-ddr4-2400",
        include_str!("../configs/dramsim3-ddr4-2400.toml"),
    ),
];

fn with_path(e: ConfigError, p: &str) -> ConfigError {
    match e {
        ConfigError::Invalid { field, message, .. } => ConfigError::Invalid {
            path: p.to_string(),
            field,
            message,
        },
        ConfigError::Mapping(e) => ConfigError::Invalid {
            path: p.to_string(),
            field: "dram.address_mapping".into(),
            message: e.to_string(),
        },
        e => e,
    }
}

/// The `(field, message)` of a limit check as a [`ConfigError`].
fn over_limit((field, message): (String, String)) -> ConfigError {
    ConfigError::Invalid {
        path: String::new(),
        field,
        message,
    }
}

impl MachineConfig {
    /// Names of the built-in presets.
    pub fn preset_names() -> Vec<&'static str> {
        PRESETS.iter().map(|(n, _)| *n).collect()
    }

    /// A built-in preset by name (validated).
    pub fn preset(name: &str) -> Result<Self, ConfigError> {
        let (_, text) =
            PRESETS
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| ConfigError::UnknownPreset {
                    name: name.to_string(),
                    known: Self::preset_names().iter().map(|s| s.to_string()).collect(),
                })?;
        Self::from_toml_str(text, &format!("preset {name}"))
    }

    /// Parse and validate TOML text; `origin` names it in errors.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, ConfigError> {
        if text.trim().is_empty() {
            return Err(ConfigError::Parse {
                path: origin.to_string(),
                message: "the file is empty (an empty file is not taken as the default machine; \
                          name a preset such as `table5.2` instead)"
                    .into(),
            });
        }
        let cfg: MachineConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: origin.to_string(),
            message: e.to_string(),
        })?;
        cfg.validate().map_err(|e| with_path(e, origin))?;
        Ok(cfg)
    }

    /// Load a TOML file (validated).
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        use std::io::Read;
        let io = |source| ConfigError::Io {
            path: path.display().to_string(),
            source,
        };
        // Bounded read: `/dev/zero` or a huge file must not exhaust memory.
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| {
                f.take(crate::limits::MAX_CONFIG_BYTES + 1)
                    .read_to_end(&mut bytes)
            })
            .map_err(io)?;
        if bytes.len() as u64 > crate::limits::MAX_CONFIG_BYTES {
            return Err(ConfigError::Parse {
                path: path.display().to_string(),
                message: format!(
                    "larger than the limit of {} bytes for a machine configuration",
                    crate::limits::MAX_CONFIG_BYTES
                ),
            });
        }
        let text = String::from_utf8(bytes).map_err(|_| ConfigError::Parse {
            path: path.display().to_string(),
            message: "not UTF-8 text (a machine configuration is a TOML file)".into(),
        })?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    /// A preset name, or else a path to a TOML file.
    pub fn load(name_or_path: &str) -> Result<Self, ConfigError> {
        if PRESETS.iter().any(|(n, _)| *n == name_or_path) {
            return Self::preset(name_or_path);
        }
        let p = Path::new(name_or_path);
        if p.exists() {
            return Self::from_file(p);
        }
        Err(ConfigError::UnknownPreset {
            name: name_or_path.to_string(),
            known: Self::preset_names().iter().map(|s| s.to_string()).collect(),
        })
    }

    /// Serialize to TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_else(|e| format!("# cannot serialize: {e}\n"))
    }

    /// Check ranges and consistency of every unit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::limits::check_machine(self).map_err(over_limit)?;
        self.core.validate()?;
        self.l1.validate("l1")?;
        if let Some(l2) = &self.l2 {
            l2.validate("l2")?;
        }
        self.llc.validate()?;
        self.prefetcher.validate()?;
        self.noc.validate()?;
        self.dram.validate()?;
        if self.epoch_cycles == 0 {
            return Err(invalid("epoch_cycles", "must be positive"));
        }
        if let Some(g) = &self.gpu {
            // SMs and L2 slices sit on the crossbar; the mesh placement is unused.
            g.validate(self)?;
            if self.l1.line_bytes > self.llc.line_bytes {
                return Err(invalid("l1.line_bytes", "must not exceed llc.line_bytes"));
            }
            return Ok(());
        }
        if self.noc.cols * self.noc.rows < self.core.count {
            return Err(invalid(
                "noc",
                format!(
                    "a {}x{} mesh has fewer tiles than core.count = {}",
                    self.noc.cols, self.noc.rows, self.core.count
                ),
            ));
        }
        if self.noc.mc_nodes.len() != self.dram.channels as usize {
            return Err(invalid(
                "noc.mc_nodes",
                format!(
                    "lists {} positions but dram.channels = {}",
                    self.noc.mc_nodes.len(),
                    self.dram.channels
                ),
            ));
        }
        if self.noc.llc_nodes.is_empty() {
            if self.llc.banks != self.noc.cols * self.noc.rows {
                return Err(invalid(
                    "noc.llc_nodes",
                    format!(
                        "is empty (one LLC bank per tile) but llc.banks = {} and the mesh has {} tiles",
                        self.llc.banks,
                        self.noc.cols * self.noc.rows
                    ),
                ));
            }
        } else if self.noc.llc_nodes.len() != self.llc.banks as usize {
            return Err(invalid(
                "noc.llc_nodes",
                format!(
                    "lists {} positions but llc.banks = {}",
                    self.noc.llc_nodes.len(),
                    self.llc.banks
                ),
            ));
        }
        if self.l1.line_bytes > self.llc.line_bytes {
            return Err(invalid("l1.line_bytes", "must not exceed llc.line_bytes"));
        }
        if let Some(l2) = &self.l2 {
            if l2.line_bytes < self.l1.line_bytes || l2.line_bytes > self.llc.line_bytes {
                return Err(invalid(
                    "l2.line_bytes",
                    "must lie between l1 and llc line sizes",
                ));
            }
        }
        Ok(())
    }

    /// Number of mesh tiles.
    pub fn tiles(&self) -> u32 {
        self.noc.cols * self.noc.rows
    }

    /// Mesh position `[x, y]` of LLC bank `b` (explicit list, or row-major tiles).
    pub fn llc_node(&self, b: u32) -> [u32; 2] {
        if let Some(p) = self.noc.llc_nodes.get(b as usize) {
            *p
        } else {
            [b % self.noc.cols, b / self.noc.cols]
        }
    }
}

impl CoreConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        for (n, v) in [
            ("core.count", self.count),
            ("core.freq_mhz", self.freq_mhz),
            ("core.issue_width", self.issue_width),
            ("core.rob_entries", self.rob_entries),
            ("core.write_buffer_entries", self.write_buffer_entries),
        ] {
            if v == 0 {
                return Err(invalid(n, "must be positive"));
            }
        }
        if self.count > u16::MAX as u32 {
            return Err(invalid("core.count", "must fit the trace's 16-bit core id"));
        }
        Ok(())
    }
}

fn check_pow2(field: &str, v: u64) -> Result<(), ConfigError> {
    if v == 0 || !v.is_power_of_two() {
        Err(invalid(
            field,
            format!("= {v} must be a positive power of two"),
        ))
    } else {
        Ok(())
    }
}

impl CacheConfig {
    fn validate(&self, unit: &str) -> Result<(), ConfigError> {
        check_pow2(&format!("{unit}.line_bytes"), self.line_bytes as u64)?;
        if self.ways == 0 {
            return Err(invalid(&format!("{unit}.ways"), "must be positive"));
        }
        if self.mshrs == 0 {
            return Err(invalid(&format!("{unit}.mshrs"), "must be positive"));
        }
        if self.hit_latency == 0 {
            return Err(invalid(&format!("{unit}.hit_latency"), "must be positive"));
        }
        let set_bytes = self.ways as u64 * self.line_bytes as u64;
        if self.size_bytes == 0 || self.size_bytes % set_bytes != 0 {
            return Err(invalid(
                &format!("{unit}.size_bytes"),
                format!(
                    "= {} must be a positive multiple of ways × line_bytes = {set_bytes}",
                    self.size_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Number of sets.
    pub fn sets(&self) -> u64 {
        self.size_bytes / (self.ways as u64 * self.line_bytes as u64)
    }
}

impl LlcConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        check_pow2("llc.line_bytes", self.line_bytes as u64)?;
        for (n, v) in [
            ("llc.banks", self.banks),
            ("llc.ways", self.ways),
            ("llc.mshrs", self.mshrs),
            ("llc.port_cycles", self.port_cycles),
            ("llc.hit_latency", self.hit_latency),
        ] {
            if v == 0 {
                return Err(invalid(n, "must be positive"));
            }
        }
        let bank_set = self.banks as u64 * self.ways as u64 * self.line_bytes as u64;
        if self.size_bytes == 0 || self.size_bytes % bank_set != 0 {
            return Err(invalid(
                "llc.size_bytes",
                format!(
                    "= {} must be a positive multiple of banks × ways × line_bytes = {bank_set}",
                    self.size_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Sets per bank.
    pub fn sets_per_bank(&self) -> u64 {
        self.size_bytes / (self.banks as u64 * self.ways as u64 * self.line_bytes as u64)
    }
}

impl PrefetcherConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        if self.kind != PrefetcherKind::None {
            for (n, v) in [
                ("prefetcher.streams", self.streams),
                ("prefetcher.degree", self.degree),
                ("prefetcher.distance", self.distance),
            ] {
                if v == 0 {
                    return Err(invalid(n, "must be positive unless kind = \"none\""));
                }
            }
            if self.page_bytes != 0 && !self.page_bytes.is_power_of_two() {
                return Err(invalid(
                    "prefetcher.page_bytes",
                    "must be a power of two (or 0: unbounded)",
                ));
            }
        }
        Ok(())
    }
}

impl NocConfig {
    fn validate(&self) -> Result<(), ConfigError> {
        for (n, v) in [
            ("noc.cols", self.cols),
            ("noc.rows", self.rows),
            ("noc.freq_mhz", self.freq_mhz),
            ("noc.flit_bytes", self.flit_bytes),
            ("noc.control_flits", self.control_flits),
            ("noc.data_flits", self.data_flits),
        ] {
            if v == 0 {
                return Err(invalid(n, "must be positive"));
            }
        }
        for (what, list) in [
            ("noc.mc_nodes", &self.mc_nodes),
            ("noc.llc_nodes", &self.llc_nodes),
        ] {
            for p in list {
                if p[0] >= self.cols || p[1] >= self.rows {
                    return Err(invalid(
                        what,
                        format!(
                            "position [{}, {}] is outside the {}x{} mesh",
                            p[0], p[1], self.cols, self.rows
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Hops between two mesh positions under X-Y routing.
    pub fn hops(&self, a: [u32; 2], b: [u32; 2]) -> u32 {
        a[0].abs_diff(b[0]) + a[1].abs_diff(b[1])
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
        if self.refresh && t.tREFI <= t.tRFC {
            return Err(invalid(
                "dram.timing.tREFI",
                "must exceed tRFC when refresh is on",
            ));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_load_and_validate() {
        for name in MachineConfig::preset_names() {
            let c = MachineConfig::preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(c.name, name);
        }
    }

    #[test]
    fn default_is_table52_preset() {
        assert_eq!(
            MachineConfig::default(),
            MachineConfig::preset("table5.2").unwrap()
        );
        MachineConfig::default().validate().unwrap();
    }

    #[test]
    fn toml_round_trip() {
        for name in MachineConfig::preset_names() {
            let c = MachineConfig::preset(name).unwrap();
            let back = MachineConfig::from_toml_str(&c.to_toml(), "x").unwrap();
            assert_eq!(c, back);
        }
    }

    #[test]
    fn table42_values() {
        let c = MachineConfig::preset("table4.2").unwrap();
        assert_eq!(c.core.count, 12);
        assert_eq!(c.dram.timing.tCL, 20);
        assert_eq!(c.dram.timing.tRCD, 20);
        assert_eq!(c.dram.timing.tRP, 20);
        assert_eq!(c.dram.channels * c.dram.banks_per_channel(), 64);
        assert_eq!(c.dram.read_queue_entries + c.dram.write_queue_entries, 64);
        assert_eq!(c.llc.size_bytes, 10 * 1024 * 1024);
        assert_eq!(c.dram.capacity_bytes(), 32 << 30);
        let l2 = c.l2.unwrap();
        assert_eq!(
            (l2.size_bytes, l2.ways, l2.hit_latency),
            (256 * 1024, 8, 12)
        );
    }

    #[test]
    fn prefetcher_page_bound_is_a_power_of_two() {
        let ok = MachineConfig::from_toml_str("[prefetcher]\npage_bytes = 4096\n", "f.toml");
        assert_eq!(ok.unwrap().prefetcher.page_bytes, 4096);
        let e = MachineConfig::from_toml_str("[prefetcher]\npage_bytes = 3000\n", "f.toml")
            .unwrap_err();
        assert!(e.to_string().contains("prefetcher.page_bytes"), "{e}");
        assert_eq!(
            MachineConfig::preset("table5.2")
                .unwrap()
                .prefetcher
                .page_bytes,
            0
        );
    }

    #[test]
    fn rejects_bad() {
        let e = MachineConfig::from_toml_str("[dram]\nbogus = 1\n", "f.toml").unwrap_err();
        assert!(matches!(e, ConfigError::Parse { .. }), "{e}");
        let e = MachineConfig::from_toml_str("[dram]\nchannels = 3\n", "f.toml").unwrap_err();
        assert!(e.to_string().contains("dram.channels"), "{e}");
        let e = MachineConfig::from_toml_str("[dram]\nchannels = 2\n", "f.toml").unwrap_err();
        // mapping still has 2 channel bits, and 4 MC positions
        assert!(matches!(e, ConfigError::Invalid { .. }), "{e}");
        assert!(MachineConfig::load("no-such-preset").is_err());
    }
}
