//! Bank maps (dissertation §4.4.2 bank-map Δ; §5.5.2 memory/LLC bank vectors):
//! for every unit (slab or iteration block) the set of memory banks and of LLC
//! banks it touches, the weighted per-bank access counts, and its data-set size
//! (distinct cache lines, the D of eq. 5.1).
//!
//! Addresses are mapped through [`AddressMap`], implemented by the machine model
//! of `weft-memsim` (see [`crate::machine`]) so the runtime and the simulators use
//! the same mapping. Following §4.4.2 every access is conservatively assumed to
//! miss in the LLC. An access is counted once per cache line it touches.

use crate::bankset::{BankSet, WeightedBanks};
use crate::deps::Access;
use crate::error::invalid;
use crate::Result;

/// The address-to-bank functions the schedulers need.
pub trait AddressMap: Send + Sync {
    /// Memory (DRAM) bank id of a byte address, `< num_mem_banks()`.
    fn mem_bank(&self, addr: u64) -> usize;
    /// LLC bank id of a byte address, `< num_llc_banks()`.
    fn llc_bank(&self, addr: u64) -> usize;
    /// Total number of memory banks (all channels and ranks).
    fn num_mem_banks(&self) -> usize;
    /// Number of LLC banks.
    fn num_llc_banks(&self) -> usize;
    /// Cache-line size in bytes (a power of two).
    fn line_bytes(&self) -> u64;
}

/// Bank maps of a set of units.
#[derive(Clone, Debug, Default)]
pub struct UnitMaps {
    /// Memory banks touched by each unit.
    pub mem: Vec<BankSet>,
    /// LLC banks touched by each unit.
    pub llc: Vec<BankSet>,
    /// Accesses per memory bank of each unit.
    pub mem_weighted: Vec<WeightedBanks>,
    /// Accesses per LLC bank of each unit.
    pub llc_weighted: Vec<WeightedBanks>,
    /// Distinct cache lines of each unit (data-set size D).
    pub ds_lines: Vec<u32>,
}

impl UnitMaps {
    /// Mean data-set size over units with at least one access (0 when none).
    pub fn mean_ds_lines(&self) -> f64 {
        let nz: Vec<u32> = self.ds_lines.iter().copied().filter(|&d| d > 0).collect();
        if nz.is_empty() {
            0.0
        } else {
            nz.iter().map(|&d| d as f64).sum::<f64>() / nz.len() as f64
        }
    }
}

/// Computes the bank maps of `units` units from their accesses.
pub fn unit_maps(map: &dyn AddressMap, units: usize, accesses: &[Access]) -> Result<UnitMaps> {
    let nb = map.num_mem_banks();
    let nl = map.num_llc_banks();
    let line = map.line_bytes().max(1);
    let mut out = UnitMaps {
        mem: vec![BankSet::new(nb); units],
        llc: vec![BankSet::new(nl); units],
        mem_weighted: vec![WeightedBanks::new(nb); units],
        llc_weighted: vec![WeightedBanks::new(nl); units],
        ds_lines: vec![0; units],
    };
    let mut lines: Vec<(u32, u64)> = Vec::with_capacity(accesses.len());
    for a in accesses {
        let u = a.unit as usize;
        if u >= units {
            return Err(invalid(format!("access names unit {u} of {units}")));
        }
        let first = a.addr / line;
        let last = (a.addr + a.size.max(1) as u64 - 1) / line;
        for l in first..=last {
            let addr = l * line;
            let mb = map.mem_bank(addr);
            let lb = map.llc_bank(addr);
            if mb >= nb || lb >= nl {
                return Err(invalid(format!(
                    "address map returned bank {mb}/{lb} beyond {nb}/{nl}"
                )));
            }
            out.mem[u].insert(mb);
            out.llc[u].insert(lb);
            out.mem_weighted[u].counts[mb] += 1;
            out.llc_weighted[u].counts[lb] += 1;
            lines.push((a.unit, l));
        }
    }
    lines.sort_unstable();
    lines.dedup();
    for (u, _) in lines {
        out.ds_lines[u as usize] += 1;
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Line-interleaved toy map used only by unit tests of this crate.
    pub(crate) struct Interleaved {
        pub mem: usize,
        pub llc: usize,
    }
    impl AddressMap for Interleaved {
        fn mem_bank(&self, a: u64) -> usize {
            ((a / 64) % self.mem as u64) as usize
        }
        fn llc_bank(&self, a: u64) -> usize {
            ((a / 64) % self.llc as u64) as usize
        }
        fn num_mem_banks(&self) -> usize {
            self.mem
        }
        fn num_llc_banks(&self) -> usize {
            self.llc
        }
        fn line_bytes(&self) -> u64 {
            64
        }
    }

    #[test]
    fn maps_and_weights() {
        let m = Interleaved { mem: 4, llc: 2 };
        let acc = |unit, addr, size| Access {
            unit,
            addr,
            size,
            write: false,
        };
        // unit 0: line 0 twice and a straddling access over lines 1,2; unit 1: line 5
        let a = [acc(0, 0, 8), acc(0, 8, 8), acc(0, 120, 16), acc(1, 320, 4)];
        let u = unit_maps(&m, 2, &a).unwrap();
        assert_eq!(u.mem[0].banks(), vec![0, 1, 2]);
        assert_eq!(u.mem_weighted[0].counts, vec![2, 1, 1, 0]);
        assert_eq!(u.llc_weighted[0].counts, vec![3, 1]);
        assert_eq!(u.ds_lines, vec![3, 1]);
        assert_eq!(u.mem[1].banks(), vec![1]);
        assert!((u.mean_ds_lines() - 2.0).abs() < 1e-12);
    }
}
