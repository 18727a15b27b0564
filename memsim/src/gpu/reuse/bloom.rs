//! LASER's reuse-monitor Bloom filter (dissertation §3.4, digest §4.3): a bit
//! array of `bits` bits with `k` hash functions, MurmurHash2 with `k` seeds. The
//! paper's size is 1000 entries at a 0.1 false-positive rate in 605 B; the optimum
//! for those targets is 4,840 bits with k = 3 (digest [D]), which is the default.
//! Invariant: an inserted key is always found (no false negatives) until `clear`.

/// MurmurHash2 (Austin Appleby, 32-bit) of `data` with `seed`.
pub fn murmur2(data: &[u8], seed: u32) -> u32 {
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let mut h = seed ^ data.len() as u32;
    let mut chunks = data.chunks_exact(4);
    for c in &mut chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = chunks.remainder();
    if tail.len() >= 3 {
        h ^= (tail[2] as u32) << 16;
    }
    if tail.len() >= 2 {
        h ^= (tail[1] as u32) << 8;
    }
    if !tail.is_empty() {
        h ^= tail[0] as u32;
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h
}

/// A Bloom filter over 64-bit keys (cache-line numbers).
#[derive(Clone, Debug)]
pub struct Bloom {
    words: Vec<u64>,
    bits: u32,
    k: u32,
}

impl Bloom {
    /// The paper's filter: 605 B (4,840 bits), 3 hashes.
    pub fn paper() -> Self {
        Self::new(605 * 8, 3)
    }

    /// A filter of `bits` bits and `k` hashes.
    pub fn new(bits: u32, k: u32) -> Self {
        let bits = bits.max(1);
        Bloom {
            words: vec![0; bits.div_ceil(64) as usize],
            bits,
            k: k.max(1),
        }
    }

    fn index(&self, key: u64, i: u32) -> u32 {
        murmur2(&key.to_le_bytes(), 0x9747_b28c_u32.wrapping_add(i)) % self.bits
    }

    /// Adds `key`.
    pub fn insert(&mut self, key: u64) {
        for i in 0..self.k {
            let b = self.index(key, i);
            self.words[(b / 64) as usize] |= 1 << (b % 64);
        }
    }

    /// Whether `key` may have been inserted.
    pub fn contains(&self, key: u64) -> bool {
        (0..self.k).all(|i| {
            let b = self.index(key, i);
            self.words[(b / 64) as usize] & (1 << (b % 64)) != 0
        })
    }

    /// Empties the filter.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// Storage in bytes.
    pub fn bytes(&self) -> u32 {
        self.bits.div_ceil(8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur2_reference_values() {
        // Apache Commons Codec's known answer: "" with seed 0x9747b28c.
        assert_eq!(murmur2(b"", 0x9747_b28c), 275_646_681);
        assert_eq!(murmur2(b"", 0), 0);
        assert_ne!(murmur2(b"abcd", 1), murmur2(b"abcd", 2));
    }

    #[test]
    fn paper_size_false_positive_rate_is_about_a_tenth() {
        let mut f = Bloom::paper();
        assert_eq!(f.bytes(), 605);
        // 1000 line numbers of a strided stream, then 100,000 others
        for i in 0..1000u64 {
            f.insert(0x10_0000 + i * 3);
        }
        for i in 0..1000u64 {
            assert!(f.contains(0x10_0000 + i * 3), "no false negatives");
        }
        let probes = 100_000u64;
        let fp = (0..probes)
            .filter(|i| f.contains(0x900_0000 + i * 7))
            .count() as f64
            / probes as f64;
        assert!((0.07..0.13).contains(&fp), "false-positive rate {fp}");
        f.clear();
        assert!(!f.contains(0x10_0000));
    }
}
