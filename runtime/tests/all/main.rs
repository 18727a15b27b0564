//! Integration tests of weft-runtime (one binary, see conventions.md).

mod abi_header;
mod aside;
mod c_example;
mod coverage;
mod desc_payoff;
mod executor;
mod faults;
mod fig49;
mod props;
mod reference;
mod table51;

use weft_runtime::bankset::BankSet;
use weft_runtime::blp::SlabInstance;

/// Instance from bit strings, bank 0 first.
pub fn inst_from_bits(rows: &[&[&str]]) -> SlabInstance {
    let banks = rows[0][0].len();
    SlabInstance::new(
        banks,
        rows.iter()
            .map(|r| {
                r.iter()
                    .map(|s| BankSet::from_bitstring(s).unwrap())
                    .collect()
            })
            .collect(),
    )
    .unwrap()
}

/// Deterministic pseudo-random numbers for generated instances.
/// SplitMix64 generator.
pub struct Rng(pub u64);
impl Rng {
    /// Next raw value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Value in 0..n.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// Random instance: `p` cores, `m` slabs each, `q` banks, 1..=max_b banks per slab.
pub fn random_instance(rng: &mut Rng, p: usize, m: usize, q: usize, max_b: usize) -> SlabInstance {
    let slabs = (0..p)
        .map(|_| {
            (0..m)
                .map(|_| {
                    let k = 1 + rng.below(max_b as u64) as usize;
                    let banks: Vec<usize> = (0..k).map(|_| rng.below(q as u64) as usize).collect();
                    BankSet::from_banks(q, &banks).unwrap()
                })
                .collect()
        })
        .collect();
    SlabInstance::new(q, slabs).unwrap()
}
