//! The machine the runtime schedules for: the shared address mapping, bank counts
//! and the latencies/capacities the schedulers need, all taken from a
//! `weft-memsim` machine configuration (preset name or TOML path; env
//! `WEFT_MACHINE`, default `table5.2`) so the runtime and the simulator agree.

use crate::bankmap::AddressMap;
use crate::{Result, RuntimeError};
use weft_memsim::addrmap::BankMapper;
use weft_memsim::config::MachineConfig;

/// Default machine preset.
pub const DEFAULT_MACHINE: &str = "table5.2";

/// Address mapping plus the scheduler-relevant parameters of a machine.
#[derive(Debug, Clone)]
pub struct Machine {
    /// Name of the preset or path it was loaded from.
    pub name: String,
    /// The full configuration.
    pub config: MachineConfig,
    mapper: BankMapper,
}

impl Machine {
    /// Loads a preset by name or a TOML file by path.
    pub fn load(name_or_path: &str) -> Result<Machine> {
        let config = MachineConfig::load(name_or_path)
            .map_err(|e| RuntimeError::Machine(format!("{name_or_path}: {e}")))?;
        Self::from_config(name_or_path, config)
    }

    /// Builds from an already loaded configuration.
    pub fn from_config(name: &str, config: MachineConfig) -> Result<Machine> {
        let mapper = BankMapper::from_config(&config)
            .map_err(|e| RuntimeError::Machine(format!("{name}: {e}")))?;
        Ok(Machine {
            name: name.to_string(),
            config,
            mapper,
        })
    }

    /// The address-to-bank mapper shared with the simulator.
    pub fn mapper(&self) -> &BankMapper {
        &self.mapper
    }

    /// LLC capacity in cache lines (C of eq. 5.1).
    pub fn llc_lines(&self) -> u64 {
        self.config.llc.size_bytes / self.config.llc.line_bytes.max(1) as u64
    }

    /// Cache lines a core can expect to find cached: its private caches
    /// (the L2 when there is one, else the L1) plus its `1/cores` share of
    /// the LLC. The default capacity of the inspector's miss predictor
    /// ([`crate::inspect::LineFilter`]).
    pub fn core_cache_lines(&self, cores: usize) -> usize {
        let c = &self.config;
        let lines = |bytes: u64, line: u32| (bytes / line.max(1) as u64) as usize;
        let private = match &c.l2 {
            Some(l2) => lines(l2.size_bytes, l2.line_bytes),
            None => lines(c.l1.size_bytes, c.l1.line_bytes),
        };
        private + self.llc_lines() as usize / cores.max(1)
    }

    /// η_m of §5.5.6: a memory bank's service latency for a row miss, in DRAM
    /// cycles (tRCD + tCL + tBL).
    pub fn eta_mem(&self) -> f64 {
        let t = &self.config.dram.timing;
        (t.tRCD + t.tCL + t.tBL) as f64
    }

    /// η_c of §5.5.6: an LLC bank's hit latency in core cycles.
    pub fn eta_llc(&self) -> f64 {
        self.config.llc.hit_latency as f64
    }
}

impl AddressMap for Machine {
    fn mem_bank(&self, addr: u64) -> usize {
        self.mapper.mem_bank(addr) as usize
    }
    fn llc_bank(&self, addr: u64) -> usize {
        self.mapper.llc_bank(addr) as usize
    }
    fn num_mem_banks(&self) -> usize {
        self.mapper.num_mem_banks() as usize
    }
    fn num_llc_banks(&self) -> usize {
        self.mapper.num_llc_banks() as usize
    }
    fn line_bytes(&self) -> u64 {
        self.config.llc.line_bytes as u64
    }
}
