//! Core-side units of the machine: cores, private caches, the shared LLC and
//! the hardware prefetcher (Tables 4.2 and 5.2, §4.5.1 and §5.6.1).

use serde::{Deserialize, Serialize};

use super::{check_pow2, invalid, ConfigError};

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
    /// On a private L2 they are the core's budget of outstanding L2 misses,
    /// demand and prefetch together (Intel's L2 "superqueue").
    pub mshrs: u32,
    /// Targets per MSHR: accesses merged into one outstanding miss before a
    /// further access to the line stalls dispatch. Default 20 (gem5's classic
    /// `L1Cache.tgts_per_mshr`, the simulator of both chapters). Modelled at
    /// the L1, the level that merges accesses; a private L2 receives one miss
    /// per L1 MSHR (equal line sizes), so its targets never bind.
    pub mshr_targets: u32,
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
    /// page end and retrains in the next page. 0 = unbounded. Default 4096
    /// (the 4 KiB base page; Intel's L2 streamer and stride prefetchers stop at
    /// 4 KiB boundaries, Intel 64 and IA-32 Optimization Reference Manual,
    /// "Data Prefetching"; `table5.2`'s 64-line distance of 128 B lines, 8 KiB,
    /// is therefore capped by the page).
    pub page_bytes: u32,
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
            mshr_targets: 20,
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
            page_bytes: 4096,
        }
    }
}

impl CoreConfig {
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
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

impl CacheConfig {
    pub(crate) fn validate(&self, unit: &str) -> Result<(), ConfigError> {
        check_pow2(&format!("{unit}.line_bytes"), self.line_bytes as u64)?;
        if self.ways == 0 {
            return Err(invalid(&format!("{unit}.ways"), "must be positive"));
        }
        if self.mshrs == 0 {
            return Err(invalid(&format!("{unit}.mshrs"), "must be positive"));
        }
        if self.mshr_targets == 0 {
            return Err(invalid(&format!("{unit}.mshr_targets"), "must be positive"));
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
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
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
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
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
