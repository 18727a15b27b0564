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

mod cpu;
mod dram;
mod noc;

pub use cpu::{CacheConfig, CoreConfig, LlcConfig, PrefetcherConfig, PrefetcherKind, Replacement};
pub use dram::{BankArbitration, DramConfig, DramStandard, DramTimings, RowPolicy, SchedulerKind};
pub use noc::{NocConfig, Routing};

use std::path::Path;

use crate::addrmap::AddrMapError;

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

/// Preset names and their embedded TOML text.
const PRESETS: &[(&str, &str)] = &[
    ("table5.2", include_str!("../../configs/table5.2.toml")),
    ("table4.2", include_str!("../../configs/table4.2.toml")),
    ("k20c-dtbl", include_str!("../../configs/k20c-dtbl.toml")),
    ("k20-spawn", include_str!("../../configs/k20-spawn.toml")),
    (
        "gtx480-ipaws",
        include_str!("../../configs/gtx480-ipaws.toml"),
    ),
    ("v100-fgtb", include_str!("../../configs/v100-fgtb.toml")),
    (
        "dramsim3-ddr4-2400",
        include_str!("../../configs/dramsim3-ddr4-2400.toml"),
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
pub(crate) fn over_limit((field, message): (String, String)) -> ConfigError {
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

pub(crate) fn check_pow2(field: &str, v: u64) -> Result<(), ConfigError> {
    if v == 0 || !v.is_power_of_two() {
        Err(invalid(
            field,
            format!("= {v} must be a positive power of two"),
        ))
    } else {
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
        for name in ["table4.2", "table5.2"] {
            let c = MachineConfig::preset(name).unwrap();
            assert_eq!(c.prefetcher.page_bytes, 4096, "{name}");
        }
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
