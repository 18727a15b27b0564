//! Reuse distance (dissertation §3.2, digest §4.1): the number of *distinct*
//! blocks referenced between two references to the same block, over one access
//! stream (the whole GPU's, in simulation order: what an L2 sees; or one SM's:
//! what its L1 sees). Computed exactly in O(n log n): a Fenwick tree marks the
//! last reference position of every block, and the distance of a re-reference is
//! the number of marks after the block's previous position.

use std::collections::HashMap;

struct Fenwick(Vec<i64>);

impl Fenwick {
    fn add(&mut self, mut i: usize, d: i64) {
        i += 1;
        while i < self.0.len() {
            self.0[i] += d;
            i += i & i.wrapping_neg();
        }
    }
    fn prefix(&self, mut i: usize) -> i64 {
        // sum of [0, i)
        let mut s = 0;
        while i > 0 {
            s += self.0[i];
            i -= i & i.wrapping_neg();
        }
        s
    }
}

/// For each reference of `lines`, `None` for a first reference, else its reuse
/// distance and the index of the previous reference to the same block.
pub fn reuse_distances(lines: &[u64]) -> Vec<Option<(u64, usize)>> {
    let mut f = Fenwick(vec![0; lines.len() + 1]);
    let mut last: HashMap<u64, usize> = HashMap::new();
    let mut out = Vec::with_capacity(lines.len());
    for (i, &b) in lines.iter().enumerate() {
        match last.insert(b, i) {
            Some(j) => {
                let d = f.prefix(i) - f.prefix(j + 1);
                out.push(Some((d as u64, j)));
                f.add(j, -1);
            }
            None => out.push(None),
        }
        f.add(i, 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_count_distinct_blocks_between() {
        // a b c b a a d a
        let d = reuse_distances(&[1, 2, 3, 2, 1, 1, 4, 1]);
        let got: Vec<Option<u64>> = d.iter().map(|x| x.map(|(d, _)| d)).collect();
        assert_eq!(
            got,
            vec![None, None, None, Some(1), Some(2), Some(0), None, Some(1)]
        );
        assert_eq!(d[4].unwrap().1, 0);
    }
}
