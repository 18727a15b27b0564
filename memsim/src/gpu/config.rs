//! The `[gpu]` table of a machine configuration and the GPU machine's parameters.
//!
//! A GPU preset reuses the CPU machine's tables for the shared parts and reads them
//! as a GPU (design: `gpu-design.md`, "Sharing the memory model"):
//! `core.count` / `core.freq_mhz` are the SMs and their clock, `l1` is each SM's L1D
//! (`mshrs` its MSHRs), `llc` the L2 slices (`banks` = slices, one per memory
//! sub-partition), `dram` the memory controllers and DRAM (GDDR5 / HBM2 timing on
//! the DDR command engine, see `crate::dram`). Everything only a GPU has lives here:
//! SM resources with allocation granularities, warp schedulers, functional units,
//! the crossbar, the front end and the default policies.
//!
//! The presets (`memsim/configs/*.toml`) follow the seed digest §7.1; values no
//! paper gives are marked "assumed" there with their source (GPGPU-Sim's public
//! configurations, [X] in the digest). Invariant: a validated config builds every
//! GPU unit without further checks (non-zero resources, a warp fits an SM).

use crate::config::{invalid, ConfigError, MachineConfig};
use serde::{Deserialize, Serialize};

/// Warp scheduling policy of every scheduler of an SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum WarpSchedKind {
    /// Loose round-robin: start after the warp issued last.
    Lrr,
    /// Greedy then oldest: keep issuing the same warp, else the oldest ready one.
    #[default]
    Gto,
    /// Two-level: warps in fetch groups, GTO across groups, round-robin inside.
    TwoLevel,
    /// iPAWS (digest §5.1): Adapt under GTO, classify the issue pattern, then GTO,
    /// or Recover and LRR; per kernel, the first SM's decision for every SM.
    Ipaws,
    /// iPAWS with every SM deciding alone (`iPAWS_ind_cores`; the pCKE variant).
    IpawsInd,
    /// iPAWS for shared concurrent kernels (sCKE): SM `s` prioritises the
    /// kernels of rank `s % 2` and decides only for them; each kernel's warps
    /// by its own phase on every SM.
    IpawsScke,
    /// Static per-kernel oracle GTO-RR (digest §5.2): GTO for kernel rank 0
    /// (instance id even), LRR for rank 1, SM `s` prioritising rank `s % 2`.
    GtoLrr,
    /// The same with LRR for rank 0 and GTO for rank 1.
    LrrGto,
    /// The same composition with GTO for both (the kernel priority alone).
    GtoGto,
    /// The same composition with LRR for both.
    LrrLrr,
    /// CCWS: GTO with lost-locality throttling (victim tag arrays; digest §5.2).
    Ccws,
    /// iPAWS adapting between CCWS and LRR (RR↔CCWS, iPAWS §4.2).
    IpawsCcws,
    /// MASCAR: memory-access priority with one owner warp while the SM's memory
    /// path is saturated, compute warps first otherwise, and cache access
    /// re-execution (digest §5.2).
    Mascar,
    /// iPAWS adapting between MASCAR and LRR (RR↔MASCAR, iPAWS §4.2).
    IpawsMascar,
    /// OWL-locality's CTA-aware scheduler: the oldest TB's warps first,
    /// round-robin inside (LASER baseline, digest §4.4).
    Owl,
    /// LASER's two-level wavefront groups: warps of WGs with mutual high reuse
    /// in one group (filed by the TB policy), GTO across groups, round-robin
    /// inside (digest §4.2, §4.3).
    LaserGroups,
}

impl WarpSchedKind {
    /// Parses `lrr`, `gto`, `two-level`, `ipaws`, `ipaws-ind`, `ipaws-scke`,
    /// `gto-lrr` (also `per-kernel=gto,lrr`), `lrr-gto`, `gto-gto`, `lrr-lrr`
    /// (also `per-kernel=a,b`), `ccws`, `ipaws-ccws`, `mascar`, `ipaws-mascar`,
    /// `owl` or `laser-groups`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "lrr" | "rr" => Some(Self::Lrr),
            "gto" => Some(Self::Gto),
            "two-level" => Some(Self::TwoLevel),
            "ipaws" => Some(Self::Ipaws),
            "ipaws-ind" => Some(Self::IpawsInd),
            "ipaws-scke" => Some(Self::IpawsScke),
            "gto-lrr" | "per-kernel=gto,lrr" => Some(Self::GtoLrr),
            "lrr-gto" | "per-kernel=lrr,gto" => Some(Self::LrrGto),
            "gto-gto" | "per-kernel=gto,gto" => Some(Self::GtoGto),
            "lrr-lrr" | "per-kernel=lrr,lrr" => Some(Self::LrrLrr),
            "ccws" => Some(Self::Ccws),
            "ipaws-ccws" => Some(Self::IpawsCcws),
            "mascar" => Some(Self::Mascar),
            "ipaws-mascar" => Some(Self::IpawsMascar),
            "owl" => Some(Self::Owl),
            "laser-groups" => Some(Self::LaserGroups),
            _ => None,
        }
    }

    /// The name `parse` reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::Lrr => "lrr",
            Self::Gto => "gto",
            Self::TwoLevel => "two-level",
            Self::Ipaws => "ipaws",
            Self::IpawsInd => "ipaws-ind",
            Self::IpawsScke => "ipaws-scke",
            Self::GtoLrr => "gto-lrr",
            Self::LrrGto => "lrr-gto",
            Self::GtoGto => "gto-gto",
            Self::LrrLrr => "lrr-lrr",
            Self::Ccws => "ccws",
            Self::IpawsCcws => "ipaws-ccws",
            Self::Mascar => "mascar",
            Self::IpawsMascar => "ipaws-mascar",
            Self::Owl => "owl",
            Self::LaserGroups => "laser-groups",
        }
    }
}

/// Thread-block dispatch policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TbSchedKind {
    /// Round-robin over the SMs (digest §2.2).
    #[default]
    Rr,
    /// LaPerm TB prioritising (digest §2.1 a).
    TbPri,
    /// LaPerm prioritised SMX binding (digest §2.1 b).
    SmxBind,
    /// LaPerm adaptive prioritised SMX binding (digest §2.1 c).
    AdaptiveBind,
    /// LASER's practical WG scheduler with reuse monitors (digest §4.3).
    Laser,
    /// OWL-locality: neighbouring TBs co-located on one SM (digest §4.4).
    Owl,
    /// LASER's oracle, kernel level (digest §4.2; profiles a round-robin run).
    OracleKernel,
    /// LASER's oracle, kernel + WG level.
    OracleWg,
    /// LASER's oracle, kernel + WG + wavefront level.
    OracleWavefront,
    /// Partitioned concurrent kernels: SMs split among the kernels (iPAWS pCKE).
    Pcke,
    /// Shared concurrent kernels: every SM's resources split equally among the
    /// kernels (iPAWS sCKE).
    Scke,
}

impl TbSchedKind {
    /// Every policy, in `parse` spelling.
    pub const NAMES: [&'static str; 11] = [
        "rr",
        "tb-pri",
        "smx-bind",
        "adaptive-bind",
        "laser",
        "owl",
        "laser-oracle=kernel",
        "laser-oracle=wg",
        "laser-oracle=wavefront",
        "pcke",
        "scke",
    ];

    /// Parses `rr`, `tb-pri`, `smx-bind`, `adaptive-bind`, `laser`, `owl` or
    /// `laser-oracle=<kernel|wg|wavefront>`, `pcke` or `scke`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "rr" => Some(Self::Rr),
            "tb-pri" => Some(Self::TbPri),
            "smx-bind" => Some(Self::SmxBind),
            "adaptive-bind" => Some(Self::AdaptiveBind),
            "laser" => Some(Self::Laser),
            "owl" => Some(Self::Owl),
            "laser-oracle=kernel" => Some(Self::OracleKernel),
            "laser-oracle=wg" => Some(Self::OracleWg),
            "laser-oracle=wavefront" => Some(Self::OracleWavefront),
            "pcke" => Some(Self::Pcke),
            "scke" => Some(Self::Scke),
            _ => None,
        }
    }
}

/// Which kernel the round-robin TB dispatcher serves when several in the
/// kernel distributor have TBs left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum KernelOrder {
    /// First come, first served: a later kernel gets a TB only where the
    /// earliest kernel's next TB does not fit (the Kepler kernel distributor,
    /// DTBL §2, digest §1.1).
    #[default]
    Fcfs,
    /// Each TB from the next kernel after the one served last (GPGPU-Sim 3.x's
    /// `select_kernel`, the simulator of the SPAWN and LASER chapters): a
    /// child kernel's TBs interleave with its parent's remaining ones.
    Rotate,
}

impl KernelOrder {
    /// Parses `fcfs` or `rotate`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "fcfs" => Some(Self::Fcfs),
            "rotate" => Some(Self::Rotate),
            _ => None,
        }
    }

    /// Sets machine `cfg`'s kernel order to `name` (`fcfs` or `rotate`), as
    /// `weft gpusim --kernel-order` and the GPU studies do; an unknown name or
    /// a machine without a `[gpu]` table is an error.
    pub fn apply(cfg: &mut MachineConfig, name: &str) -> Result<(), String> {
        let order = Self::parse(name)
            .ok_or_else(|| format!("unknown kernel order `{name}` (expected fcfs or rotate)"))?;
        match cfg.gpu.as_mut() {
            Some(g) => {
                g.kernel_order = order;
                Ok(())
            }
            None => Err(format!("machine `{}` has no [gpu] table", cfg.name)),
        }
    }
}

/// A functional unit: result latency and initiation interval (cycles between two
/// warp instructions entering it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FuConfig {
    /// Cycles from issue to result.
    pub latency: u32,
    /// Cycles between two issues to one unit.
    pub ii: u32,
}

/// The GPU-only part of a machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GpuConfig {
    /// Threads per warp. Default 32.
    pub warp_size: u32,
    /// Resident threads per SM. Default 2048 (Kepler).
    pub max_threads_per_sm: u32,
    /// Resident thread blocks per SM. Default 16.
    pub max_tbs_per_sm: u32,
    /// 32-bit registers per SM. Default 65536.
    pub registers_per_sm: u32,
    /// Registers are allocated per warp in units of this many. Default 256
    /// (assumed: CUDA occupancy calculator, compute capability 3.x).
    pub reg_alloc_unit: u32,
    /// Shared memory per SM, bytes. Default 49152.
    pub smem_per_sm: u32,
    /// Shared memory is allocated per TB in units of this many bytes. Default 256
    /// (assumed: CUDA occupancy calculator, compute capability 3.x).
    pub smem_alloc_unit: u32,
    /// Threads per TB at most. Default 1024.
    pub max_threads_per_tb: u32,
    /// Warp schedulers per SM (warps split by id % n), each issuing one warp
    /// instruction per cycle. Default 2.
    pub schedulers_per_sm: u32,
    /// Warp scheduling policy. Default `gto`.
    pub warp_scheduler: WarpSchedKind,
    /// Warps per group of the two-level scheduler. Default 8 (assumed).
    pub two_level_group: u32,
    /// TB dispatch policy. Default `rr`.
    pub tb_scheduler: TbSchedKind,
    /// TBs the dispatcher places per cycle over the whole GPU. Default 1 (digest §2.2).
    pub tb_dispatch_per_cycle: u32,
    /// Kernel order of the round-robin dispatcher (`rr`): `fcfs` (default) or
    /// `rotate` ([`KernelOrder`]). The other policies keep their own orders.
    pub kernel_order: KernelOrder,
    /// Integer/single-precision pipeline (`alu`, `fp`). Default latency 4, ii 1 (assumed).
    pub sp: FuConfig,
    /// Special-function unit. Default latency 20, ii 4 (assumed, GPGPU-Sim).
    pub sfu: FuConfig,
    /// Double-precision unit. Default latency 8, ii 2 (assumed).
    pub dp: FuConfig,
    /// Load/store unit: address generation to L1 access, and one memory
    /// transaction (line) per `ii` cycles. Default latency 4, ii 1 (assumed).
    pub lsu: FuConfig,
    /// Shared-memory access latency, cycles. Default 24 (assumed: GPGPU-Sim Kepler).
    pub smem_latency: u32,
    /// Memory instructions waiting for the LSU before it stalls the issue stage
    /// (LSU back-pressure). Default 8 (assumed).
    pub lsu_queue: u32,
    /// Coalescing granularity: 0 = whole 128 B lines; 32 = 32 B sectors inside
    /// the line (one L1 line, sector count reported). Default 0.
    pub sector_bytes: u32,
    /// Targets one L1 MSHR merges. Default 8 (assumed).
    pub l1_mshr_targets: u32,
    /// Outstanding L1 misses an SM may have in the memory side. Default 64
    /// (assumed; `l1.mshrs` × 2 as the CPU model).
    pub max_outstanding_per_sm: u32,
    /// Crossbar traversal latency SM <-> L2 slice, cycles. Default 8 (assumed).
    pub crossbar_latency: u32,
    /// Crossbar flit width, bytes (one flit per port per cycle). Default 32 (assumed,
    /// GPGPU-Sim).
    pub crossbar_flit_bytes: u32,
    /// Hardware work queues. Default 32.
    pub hw_queues: u32,
    /// Kernel distributor entries (concurrent kernels). Default 32.
    pub max_concurrent_kernels: u32,
    /// Cycles a kernel takes from its HWQ through the KMU to the kernel distributor.
    /// Default 0 (host launches; DTBL's KMU dispatch latency is 283, digest §1.1).
    pub kmu_latency: u32,
    /// Device-side launches (dynamic parallelism: CDP, DTBL, SPAWN), the
    /// `[gpu.device_launch]` table. Default: DTBL Table 3 (digest §1.1).
    pub device_launch: DeviceLaunchConfig,
}

/// A per-warp API cost `a·x + b`: `b` the per-warp initialisation, `a` the cost per
/// calling lane (digest §1.1, "Launch latency model").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinearCost {
    /// Cycles per calling lane.
    pub a: u64,
    /// Cycles per warp.
    pub b: u64,
}

impl LinearCost {
    /// The cost for `x` calling lanes (0 lanes cost nothing: no API call).
    pub fn at(&self, x: u64) -> u64 {
        if x == 0 {
            0
        } else {
            self.a * x + self.b
        }
    }
}

/// Parameters of device-side launches (dynamic parallelism, issue #31; digest §1.1,
/// §3.1, §3.3, §8.1). Cycles are SM cycles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DeviceLaunchConfig {
    /// `cudaStreamCreateWithFlags`, paid by a CDP launch that needs a new stream.
    /// Default 7165 (DTBL Table 3); SPAWN's form leaves it out (0 in `k20-spawn`).
    pub stream_create: u64,
    /// `cudaGetParameterBuffer` (CDP and DTBL). Default a = 129, b = 8023 (DTBL Table 3).
    pub param_buffer: LinearCost,
    /// `cudaLaunchDevice` (CDP only). Default a = 1592, b = 12187 (DTBL Table 3).
    pub launch_device: LinearCost,
    /// KMU -> kernel distributor dispatch of a device kernel. Default 283 (DTBL Table 3).
    pub kmu_latency: u64,
    /// Kernel-distributor search for an eligible kernel, cycles per entry searched
    /// (pipelined; at most `max_concurrent_kernels` entries). Default 1 (DTBL §4.3).
    pub kde_search_per_entry: u64,
    /// Aggregated-group-table hash, cycles per aggregated group. Default 1.
    pub agt_hash: u64,
    /// Aggregated group table entries on chip (a power of two). Default 1024.
    pub agt_entries: u32,
    /// Bytes of one aggregated-group entry (on chip or in global memory). Default 20.
    pub agt_entry_bytes: u64,
    /// Overflowed AGT entries a blocked kernel reads at once: the one its next group
    /// needs and up to `agt_prefetch - 1` more along the Next chain. Default 1, the
    /// DTBL paper's reading (the entry is loaded when its group is scheduled; the paper
    /// names no prefetch); larger values measure what reading ahead would change.
    pub agt_prefetch: u32,
    /// Bytes a pending device kernel reserves besides its parameters (the launch
    /// record the device runtime keeps). Default 64 (assumed).
    pub kernel_record_bytes: u64,
    /// Bytes per kernel argument in the parameter buffer. Default 8 (64-bit arguments).
    pub param_bytes_per_arg: u64,
    /// Nesting depth limit of device launches. Default 24 (CUDA).
    pub max_depth: u32,
    /// Pending launches (child CTAs, SPAWN's CCQS) held at most. Default 65536.
    pub pending_capacity: u64,
    /// SPAWN's monitoring window, cycles (a power of two). Default 1024.
    pub spawn_window: u64,
    /// What a warp does at `sync_children`. Default `ignore`.
    pub sync_children: SyncChildren,
}

/// Parent-child synchronisation at `sync_children` (`cudaDeviceSynchronize` in a
/// kernel; digest §1.1 "CDP", §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncChildren {
    /// The call returns at once (the papers' applications avoid explicit
    /// synchronisation); a kernel still completes only after its children.
    #[default]
    Ignore,
    /// The warp waits until every child its lanes launched has completed; its TB
    /// keeps its SM resources meanwhile.
    BlockWarp,
    /// As `BlockWarp`, and a TB whose unfinished warps all wait saves its
    /// context and releases its SM resources until its children completed
    /// (`gpu::dp::release`).
    BlockRelease,
}

impl Default for DeviceLaunchConfig {
    fn default() -> Self {
        DeviceLaunchConfig {
            stream_create: 7165,
            param_buffer: LinearCost { a: 129, b: 8023 },
            launch_device: LinearCost { a: 1592, b: 12187 },
            kmu_latency: 283,
            kde_search_per_entry: 1,
            agt_hash: 1,
            agt_entries: 1024,
            agt_entry_bytes: 20,
            agt_prefetch: 1,
            kernel_record_bytes: 64,
            param_bytes_per_arg: 8,
            max_depth: 24,
            pending_capacity: 65536,
            spawn_window: 1024,
            sync_children: SyncChildren::Ignore,
        }
    }
}

impl DeviceLaunchConfig {
    /// Checks ranges.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !self.agt_entries.is_power_of_two() {
            return Err(invalid(
                "gpu.device_launch.agt_entries",
                "must be a power of two (one-cycle hash)",
            ));
        }
        if self.agt_prefetch == 0 {
            return Err(invalid(
                "gpu.device_launch.agt_prefetch",
                "must be at least 1 (the entry the next group needs)",
            ));
        }
        if !self.spawn_window.is_power_of_two() {
            return Err(invalid(
                "gpu.device_launch.spawn_window",
                "must be a power of two (the average is a shift)",
            ));
        }
        if self.max_depth == 0 || self.pending_capacity == 0 {
            return Err(invalid(
                "gpu.device_launch",
                "max_depth and pending_capacity must be positive",
            ));
        }
        Ok(())
    }
}

impl Default for FuConfig {
    fn default() -> Self {
        FuConfig { latency: 4, ii: 1 }
    }
}

impl Default for GpuConfig {
    fn default() -> Self {
        GpuConfig {
            warp_size: 32,
            max_threads_per_sm: 2048,
            max_tbs_per_sm: 16,
            registers_per_sm: 65536,
            reg_alloc_unit: 256,
            smem_per_sm: 49152,
            smem_alloc_unit: 256,
            max_threads_per_tb: 1024,
            schedulers_per_sm: 2,
            warp_scheduler: WarpSchedKind::Gto,
            two_level_group: 8,
            tb_scheduler: TbSchedKind::Rr,
            tb_dispatch_per_cycle: 1,
            kernel_order: KernelOrder::Fcfs,
            sp: FuConfig { latency: 4, ii: 1 },
            sfu: FuConfig { latency: 20, ii: 4 },
            dp: FuConfig { latency: 8, ii: 2 },
            lsu: FuConfig { latency: 4, ii: 1 },
            smem_latency: 24,
            lsu_queue: 8,
            sector_bytes: 0,
            l1_mshr_targets: 8,
            max_outstanding_per_sm: 64,
            crossbar_latency: 8,
            crossbar_flit_bytes: 32,
            hw_queues: 32,
            max_concurrent_kernels: 32,
            kmu_latency: 0,
            device_launch: DeviceLaunchConfig::default(),
        }
    }
}

impl GpuConfig {
    /// Name of the warp scheduler.
    pub fn warp_scheduler_name(&self) -> &'static str {
        self.warp_scheduler.name()
    }

    /// Warps resident per SM at most.
    pub fn max_warps_per_sm(&self) -> u32 {
        self.max_threads_per_sm / self.warp_size.max(1)
    }

    /// Checks ranges against the rest of the machine `m`.
    pub fn validate(&self, m: &MachineConfig) -> Result<(), ConfigError> {
        for (n, v) in [
            ("gpu.warp_size", self.warp_size),
            ("gpu.max_threads_per_sm", self.max_threads_per_sm),
            ("gpu.max_tbs_per_sm", self.max_tbs_per_sm),
            ("gpu.registers_per_sm", self.registers_per_sm),
            ("gpu.reg_alloc_unit", self.reg_alloc_unit),
            ("gpu.smem_alloc_unit", self.smem_alloc_unit),
            ("gpu.max_threads_per_tb", self.max_threads_per_tb),
            ("gpu.schedulers_per_sm", self.schedulers_per_sm),
            ("gpu.two_level_group", self.two_level_group),
            ("gpu.tb_dispatch_per_cycle", self.tb_dispatch_per_cycle),
            ("gpu.sp.ii", self.sp.ii),
            ("gpu.sfu.ii", self.sfu.ii),
            ("gpu.dp.ii", self.dp.ii),
            ("gpu.lsu.ii", self.lsu.ii),
            ("gpu.lsu_queue", self.lsu_queue),
            ("gpu.l1_mshr_targets", self.l1_mshr_targets),
            ("gpu.max_outstanding_per_sm", self.max_outstanding_per_sm),
            ("gpu.crossbar_flit_bytes", self.crossbar_flit_bytes),
            ("gpu.hw_queues", self.hw_queues),
            ("gpu.max_concurrent_kernels", self.max_concurrent_kernels),
        ] {
            if v == 0 {
                return Err(invalid(n, "must be positive"));
            }
        }
        if self.warp_size > 32 {
            return Err(invalid("gpu.warp_size", "must be at most 32 (lane masks)"));
        }
        if self.max_threads_per_sm < self.warp_size {
            return Err(invalid("gpu.max_threads_per_sm", "must hold one warp"));
        }
        if ![1, 2, 4].contains(&self.schedulers_per_sm) {
            return Err(invalid("gpu.schedulers_per_sm", "must be 1, 2 or 4"));
        }
        if self.sector_bytes != 0
            && (!self.sector_bytes.is_power_of_two() || self.sector_bytes > m.l1.line_bytes)
        {
            return Err(invalid(
                "gpu.sector_bytes",
                "must be 0 or a power of two up to l1.line_bytes",
            ));
        }
        if m.l1.line_bytes != m.llc.line_bytes {
            return Err(invalid(
                "l1.line_bytes",
                "must equal llc.line_bytes on a GPU (one L1 line per L2 request)",
            ));
        }
        if m.llc.directory {
            return Err(invalid(
                "llc.directory",
                "must be false on a GPU (no coherence)",
            ));
        }
        if m.core.count > 1024 {
            return Err(invalid("core.count", "at most 1024 SMs"));
        }
        self.device_launch.validate()
    }
}
