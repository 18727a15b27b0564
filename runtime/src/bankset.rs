//! Bank sets (the dissertation's *bank-map* Δ, §4.4.2, and the memory/LLC *bank
//! vectors* b⃗ and c⃗ of §5.5.2) and weighted bank vectors (§5.5.6).
//!
//! A [`BankSet`] is a fixed-width bitset over `0..len` banks backed by `bitvec`
//! with `u64` storage; the schedulers work directly on the raw words so that
//! OR/popcount/XNOR cost one instruction per 64 banks. Invariant: bits at
//! positions `>= len` (the dead tail of the last word) are always zero.

use bitvec::prelude::*;

/// Set of banks a slab or iteration block touches.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BankSet {
    bits: BitVec<u64, Lsb0>,
}

impl BankSet {
    /// Empty set over `len` banks.
    pub fn new(len: usize) -> Self {
        BankSet {
            bits: BitVec::repeat(false, len),
        }
    }

    /// Set over `len` banks containing `banks`; banks `>= len` are rejected.
    pub fn from_banks(len: usize, banks: &[usize]) -> crate::Result<Self> {
        let mut s = Self::new(len);
        for &b in banks {
            if b >= len {
                return Err(crate::error::invalid(format!(
                    "bank {b} out of range (banks: {len})"
                )));
            }
            s.insert(b);
        }
        Ok(s)
    }

    /// Parses a bit string such as `"1001"` where the first character is bank 0
    /// (the dissertation writes ⟨B1, ..., BQ⟩ left to right).
    pub fn from_bitstring(s: &str) -> crate::Result<Self> {
        let mut set = Self::new(s.len());
        for (i, c) in s.chars().enumerate() {
            match c {
                '1' => set.insert(i),
                '0' => {}
                _ => return Err(crate::error::invalid(format!("bad bit character {c:?}"))),
            }
        }
        Ok(set)
    }

    /// Number of banks the set ranges over.
    pub fn len(&self) -> usize {
        self.bits.len()
    }

    /// True when the universe is empty (zero banks).
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Adds bank `b` (must be `< len`).
    pub fn insert(&mut self, b: usize) {
        self.bits.set(b, true);
    }

    /// Adds every bank whose count is non-zero (`counts[b]` is bank `b`'s;
    /// `counts.len()` must not exceed `len`).
    pub fn insert_nonzero(&mut self, counts: &[u32]) {
        for (b, &c) in counts.iter().enumerate() {
            if c > 0 {
                self.insert(b);
            }
        }
    }

    /// Empties the set; its universe stays.
    pub fn clear(&mut self) {
        self.bits.fill(false);
    }

    /// Whether bank `b` is in the set.
    pub fn contains(&self, b: usize) -> bool {
        self.bits.get(b).map(|x| *x).unwrap_or(false)
    }

    /// Number of banks in the set (the ⊙ operator).
    pub fn count(&self) -> usize {
        self.words().iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Banks in the set, ascending.
    pub fn banks(&self) -> Vec<usize> {
        self.bits.iter_ones().collect()
    }

    /// In-place union.
    pub fn union_with(&mut self, other: &BankSet) {
        for (a, b) in self.words_mut().iter_mut().zip(other.words()) {
            *a |= *b;
        }
    }

    /// Number of banks of `self` that are not in `covered`.
    pub fn count_new(&self, covered: &BankSet) -> usize {
        count_new(self.words(), covered.words())
    }

    /// ⊙(self ⊗ other): positions where both sets agree (XNOR), over `len` banks.
    pub fn count_xnor(&self, other: &BankSet) -> usize {
        count_xnor(self.words(), other.words(), self.len())
    }

    /// Set over `len` banks from raw words (bank `b` = bit `b % 64` of word
    /// `b / 64`); missing words are zero, bits at positions `>= len` are dropped.
    pub fn from_words(len: usize, words: &[u64]) -> Self {
        let mut s = Self::new(len);
        let n = s.words().len();
        for (d, w) in s.words_mut().iter_mut().zip(words.iter().take(n)) {
            *d = *w;
        }
        if len % 64 != 0 && n > 0 {
            s.words_mut()[n - 1] &= (1u64 << (len % 64)) - 1;
        }
        s
    }

    /// Raw storage words (dead tail bits are zero).
    pub fn words(&self) -> &[u64] {
        self.bits.as_raw_slice()
    }

    fn words_mut(&mut self) -> &mut [u64] {
        self.bits.as_raw_mut_slice()
    }

    /// The set as a bit string, bank 0 first.
    pub fn to_bitstring(&self) -> String {
        self.bits
            .iter()
            .map(|b| if *b { '1' } else { '0' })
            .collect()
    }
}

/// Number of 64-bit words needed for `banks` banks.
pub fn words_for(banks: usize) -> usize {
    banks.div_ceil(64).max(1)
}

/// popcount(a & !covered).
#[inline]
pub fn count_new(a: &[u64], covered: &[u64]) -> usize {
    a.iter()
        .zip(covered)
        .map(|(x, c)| (x & !c).count_ones() as usize)
        .sum()
}

/// popcount(a | b).
#[inline]
pub fn count_union(a: &[u64], b: &[u64]) -> usize {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x | y).count_ones() as usize)
        .sum()
}

/// popcount(a).
#[inline]
pub fn count(a: &[u64]) -> usize {
    a.iter().map(|x| x.count_ones() as usize).sum()
}

/// ⊙(a ⊗ b) over `len` banks: number of positions where a and b agree.
#[inline]
pub fn count_xnor(a: &[u64], b: &[u64], len: usize) -> usize {
    let differ: usize = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x ^ y).count_ones() as usize)
        .sum();
    len - differ
}

/// `acc |= a`.
#[inline]
pub fn or_into(acc: &mut [u64], a: &[u64]) {
    for (x, y) in acc.iter_mut().zip(a) {
        *x |= *y;
    }
}

/// Weighted bank vector: per-bank access counts (§5.5.6 uses integers instead of
/// bits so that the standard deviation of the load can be computed).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct WeightedBanks {
    /// `counts[b]` = number of accesses to bank `b`.
    pub counts: Vec<u32>,
}

impl WeightedBanks {
    /// All-zero vector over `len` banks.
    pub fn new(len: usize) -> Self {
        WeightedBanks {
            counts: vec![0; len],
        }
    }

    /// The banks with a non-zero count.
    pub fn to_set(&self) -> BankSet {
        let mut s = BankSet::new(self.counts.len());
        s.insert_nonzero(&self.counts);
        s
    }

    /// Total number of accesses.
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|&c| c as u64).sum()
    }
}

/// Population standard deviation of `(a + b) * eta`, entry-wise (the ⊎ operator
/// of §5.5.6 followed by SD). `b` may be empty (then only `a` is used).
pub fn sd_of_sum(a: &[u32], b: &[u32], eta: f64) -> f64 {
    let n = a.len();
    if n == 0 {
        return 0.0;
    }
    let val = |i: usize| (a[i] as f64 + b.get(i).copied().unwrap_or(0) as f64) * eta;
    let mean = (0..n).map(val).sum::<f64>() / n as f64;
    let var = (0..n).map(|i| (val(i) - mean).powi(2)).sum::<f64>() / n as f64;
    var.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Banks with a non-zero count join the set; `clear` empties it and keeps
    /// its universe.
    #[test]
    fn nonzero_counts_and_clear() {
        let mut s = BankSet::new(6);
        s.insert_nonzero(&[0, 3, 0, 1]);
        assert_eq!(s.to_bitstring(), "010100");
        s.insert_nonzero(&[2]);
        assert_eq!(s.banks(), vec![0, 1, 3]);
        s.clear();
        assert_eq!((s.count(), s.len()), (0, 6));
        let w = WeightedBanks {
            counts: vec![0, 2, 0, 7],
        };
        assert_eq!(w.to_set().to_bitstring(), "0101");
    }

    #[test]
    fn bitstring_roundtrip_and_ops() {
        let a = BankSet::from_bitstring("0001").unwrap();
        let b = BankSet::from_bitstring("1001").unwrap();
        assert_eq!(a.banks(), vec![3]);
        // the dissertation's example: 0001 XNOR 1001 = 0111 -> 3
        assert_eq!(a.count_xnor(&b), 3);
        assert_eq!(b.count_new(&a), 1);
        let mut u = a.clone();
        u.union_with(&b);
        assert_eq!(u.to_bitstring(), "1001");
        assert_eq!(u.count(), 2);
    }

    #[test]
    fn wide_sets() {
        let a = BankSet::from_banks(130, &[0, 64, 129]).unwrap();
        let b = BankSet::from_banks(130, &[64]).unwrap();
        assert_eq!(a.count(), 3);
        assert_eq!(a.count_new(&b), 2);
        assert_eq!(a.count_xnor(&b), 128);
        assert!(BankSet::from_banks(4, &[4]).is_err());
    }

    #[test]
    fn from_words_masks_the_tail() {
        let a = BankSet::from_words(70, &[0b1010, 0b111_0000_0001]);
        assert_eq!(a.banks(), vec![1, 3, 64]);
        assert_eq!(BankSet::from_words(3, &[0xff]).banks(), vec![0, 1, 2]);
        assert_eq!(BankSet::from_words(130, &[1]).banks(), vec![0]);
    }

    #[test]
    fn sd_matches_hand_computation() {
        // (1,3,3,1): mean 2, var 1
        assert!((sd_of_sum(&[0, 1, 3, 0], &[1, 2, 0, 1], 1.0) - 1.0).abs() < 1e-12);
        assert!((sd_of_sum(&[0, 1, 3, 0], &[1, 2, 0, 1], 2.0) - 2.0).abs() < 1e-12);
    }
}
