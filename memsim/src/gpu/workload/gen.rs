//! Table generators (digest §8.5 A): `range`, `const`, `uniform`, `gaussian`,
//! `histogram` and `scan` (a join's bucket sizes and starts), and the
//! R-MAT edge generator (Chakrabarti, Zhan and Faloutsos, SDM 2004) behind `rmat`.
//!
//! Every generator is a fixed function of its parameters: the random ones draw from
//! SplitMix64 seeded by `seed`. `range`, `const`, `uniform` and `rmat` use integer
//! arithmetic and IEEE-754 comparisons only, so they give the same values on every
//! platform; `gaussian` calls `ln` and `cos`, whose last bit may differ between math
//! libraries, which can move a value across a rounding boundary in rare cases.

pub use crate::rng::SplitMix64;

/// `range(len, start, step)`: start, start + step, ...
pub fn range(len: usize, start: i64, step: i64) -> Vec<i64> {
    (0..len as i64)
        .map(|i| start.wrapping_add(i.wrapping_mul(step)))
        .collect()
}

/// `const(len, value)`.
pub fn constant(len: usize, value: i64) -> Vec<i64> {
    vec![value; len]
}

/// `uniform(len, lo, hi, seed)`: integers uniform in `lo..=hi` (`lo <= hi`).
pub fn uniform(len: usize, lo: i64, hi: i64, seed: u64) -> Vec<i64> {
    let mut r = SplitMix64::new(seed);
    (0..len).map(|_| r.range_incl(lo, hi)).collect()
}

/// `gaussian(len, mu, sigma, seed)`: Box-Muller normal values rounded to integers.
pub fn gaussian(len: usize, mu: f64, sigma: f64, seed: u64) -> Vec<i64> {
    let mut r = SplitMix64::new(seed);
    (0..len)
        .map(|_| {
            let u1 = 1.0 - r.next_f64(); // (0, 1]
            let u2 = r.next_f64();
            let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            (mu + sigma * z).round() as i64
        })
        .collect()
}

/// `histogram(of, len)`: how many values of `of` equal each of `0..len` (values
/// outside are not counted): the bucket sizes of a hash join's build side.
pub fn histogram(of: &[i64], len: usize) -> Vec<i64> {
    let mut h = vec![0i64; len];
    for &v in of {
        if v >= 0 && (v as u64) < len as u64 {
            h[v as usize] += 1;
        }
    }
    h
}

/// `scan(of, len)`: exclusive prefix sums, `v[i]` = sum of `of[..i]` (entries past
/// the end of `of` add 0), so `len = len(of) + 1` gives CSR-style bucket starts.
pub fn scan(of: &[i64], len: usize) -> Vec<i64> {
    let mut acc = 0i64;
    (0..len)
        .map(|i| {
            let v = acc;
            acc = acc.wrapping_add(of.get(i).copied().unwrap_or(0));
            v
        })
        .collect()
}

/// R-MAT parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Rmat {
    /// Vertex count (ids `0..vertices`).
    pub vertices: u64,
    /// Edges drawn (before symmetrising and removing duplicates and self-loops).
    pub edges: u64,
    /// Probability of the top-left quadrant.
    pub a: f64,
    /// Top-right.
    pub b: f64,
    /// Bottom-left (bottom-right is `1 - a - b - c`).
    pub c: f64,
    /// Stream seed.
    pub seed: u64,
}

/// Draw R-MAT edges: each edge descends `ceil(log2(vertices))` levels of the
/// adjacency matrix choosing a quadrant with probabilities a, b, c, d; an id of the
/// power-of-two square is then scaled onto `0..vertices` (`id * vertices >> scale`),
/// so any vertex count works and the skew is kept.
pub fn rmat_edges(p: &Rmat) -> Vec<(u32, u32)> {
    let scale = 64 - (p.vertices.max(2) - 1).leading_zeros();
    let mut r = SplitMix64::new(p.seed);
    let (ab, abc) = (p.a + p.b, p.a + p.b + p.c);
    let mut out = Vec::with_capacity(p.edges as usize);
    for _ in 0..p.edges {
        let (mut u, mut v) = (0u64, 0u64);
        for _ in 0..scale {
            let x = r.next_f64();
            let (du, dv) = if x < p.a {
                (0, 0)
            } else if x < ab {
                (0, 1)
            } else if x < abc {
                (1, 0)
            } else {
                (1, 1)
            };
            u = (u << 1) | du;
            v = (v << 1) | dv;
        }
        let map = |x: u64| ((x as u128 * p.vertices as u128) >> scale) as u32;
        out.push((map(u), map(v)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_stays_in_range_and_repeats() {
        let a = uniform(1000, -3, 5, 42);
        assert!(a.iter().all(|v| (-3..=5).contains(v)));
        assert_eq!(a, uniform(1000, -3, 5, 42));
        assert_ne!(a, uniform(1000, -3, 5, 43));
        // Every value of the range shows up in 1000 draws of 9 values.
        for v in -3..=5 {
            assert!(a.contains(&v));
        }
    }

    #[test]
    fn histogram_and_scan() {
        let h = histogram(&[0, 2, 2, 5, -1, 9], 4);
        assert_eq!(h, vec![1, 0, 2, 0]);
        assert_eq!(scan(&h, 5), vec![0, 1, 1, 3, 3]);
        assert_eq!(scan(&h, 2), vec![0, 1]);
    }

    #[test]
    fn range_and_const() {
        assert_eq!(range(4, 10, -2), vec![10, 8, 6, 4]);
        assert_eq!(constant(3, 7), vec![7, 7, 7]);
    }

    #[test]
    fn rmat_ids_in_range_and_skewed() {
        let p = Rmat {
            vertices: 1000,
            edges: 20000,
            a: 0.57,
            b: 0.19,
            c: 0.19,
            seed: 1,
        };
        let e = rmat_edges(&p);
        assert_eq!(e.len(), 20000);
        assert!(e.iter().all(|&(u, v)| u < 1000 && v < 1000));
        // R-MAT puts most sources in the low ids: the first 10% of ids get far more
        // than 10% of the edges.
        let low = e.iter().filter(|&&(u, _)| u < 100).count();
        assert!(low > 20000 / 4, "{low}");
    }
}
