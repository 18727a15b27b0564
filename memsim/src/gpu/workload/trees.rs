//! The functional pre-pass of the recursive (Type II) workloads (digest §8.5 A and E:
//! "AMR refinement flags, quicksort partitions"; LASER's Type II, digest §4.6): the
//! recursion is run on the host and written as a preorder forest, so a template can
//! launch a node's children (one thread each) or, when the launch is vetoed, walk
//! the node's whole subtree inline: in preorder a subtree is the contiguous range
//! `i + 1 .. end[i]`, which a per-lane `loop` covers without a stack.
//!
//! Three generators, each a real recursive algorithm on generated data:
//! - **quicksort** (the CUDA sample `cdpSimpleQuicksort`): random keys, the middle
//!   element as pivot, segments of at most `cutoff` keys (or at depth 48) are leaves
//!   sorted by selection sort;
//! - **mandelbrot** (Mariani-Silver, the CUDA dynamic-parallelism Mandelbrot sample):
//!   the dwell of every pixel, rectangles whose border has one dwell are filled,
//!   others split into four quadrants down to `min` pixels;
//! - **amr** (a combustion-like front): a coarse grid of cells, a cell the flame front
//!   (a wrinkled circle) crosses is refined into four children, down to `levels`.

/// A preorder forest with per-node payload fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Forest {
    /// Subtree end of each node (exclusive): the subtree of `i` is `i..end[i]`.
    pub end: Vec<i64>,
    /// Children of node `i`: `kids[kid_ptr[i]..kid_ptr[i + 1]]` (nodes + 1 entries).
    pub kid_ptr: Vec<i64>,
    /// Child node ids, grouped per parent.
    pub kids: Vec<i64>,
    /// Root node ids, in order.
    pub roots: Vec<i64>,
    /// Depth of each node (roots 0).
    pub depth: Vec<i64>,
    /// Work items of each node itself (generator units, see each generator).
    pub work: Vec<i64>,
    /// Work items of each node's strict descendants (SPAWN's `workload` of a launch).
    pub sub: Vec<i64>,
    /// Named payload fields, one value per node.
    pub fields: Vec<(&'static str, Vec<i64>)>,
}

impl Forest {
    /// Node count.
    pub fn nodes(&self) -> usize {
        self.end.len()
    }

    /// Largest depth.
    pub fn max_depth(&self) -> i64 {
        self.depth.iter().copied().max().unwrap_or(0)
    }
}

/// What a generator says of one node.
pub struct Node<P> {
    /// Payload, in the generator's field order.
    pub fields: Vec<i64>,
    /// Work items of the node.
    pub work: i64,
    /// Children to expand, in order.
    pub kids: Vec<P>,
}

struct Walk<'a, P> {
    f: Forest,
    kid_lists: Vec<Vec<i64>>,
    max_nodes: usize,
    expand: &'a mut dyn FnMut(&P, i64) -> Node<P>,
}

impl<P> Walk<'_, P> {
    fn visit(&mut self, p: &P, depth: i64) -> Result<i64, String> {
        if self.f.end.len() >= self.max_nodes {
            return Err(format!("the tree exceeds {} nodes", self.max_nodes));
        }
        let id = self.f.end.len();
        let node = (self.expand)(p, depth);
        self.f.end.push(0);
        self.f.depth.push(depth);
        self.f.work.push(node.work);
        for (k, v) in node.fields.iter().enumerate() {
            self.f.fields[k].1.push(*v);
        }
        self.kid_lists.push(Vec::new());
        let mut ids = Vec::with_capacity(node.kids.len());
        for k in &node.kids {
            ids.push(self.visit(k, depth + 1)?);
        }
        self.kid_lists[id] = ids;
        self.f.end[id] = self.f.end.len() as i64;
        Ok(id as i64)
    }
}

/// Expand `roots` depth-first into a preorder forest of at most `max_nodes` nodes.
pub fn forest<P>(
    names: &[&'static str],
    roots: &[P],
    max_nodes: usize,
    expand: &mut dyn FnMut(&P, i64) -> Node<P>,
) -> Result<Forest, String> {
    let mut w = Walk {
        f: Forest {
            end: Vec::new(),
            kid_ptr: Vec::new(),
            kids: Vec::new(),
            roots: Vec::new(),
            depth: Vec::new(),
            work: Vec::new(),
            sub: Vec::new(),
            fields: names.iter().map(|n| (*n, Vec::new())).collect(),
        },
        kid_lists: Vec::new(),
        max_nodes,
        expand,
    };
    for r in roots {
        let id = w.visit(r, 0)?;
        w.f.roots.push(id);
    }
    let mut f = w.f;
    f.kid_ptr.push(0);
    for l in &w.kid_lists {
        f.kids.extend_from_slice(l);
        f.kid_ptr.push(f.kids.len() as i64);
    }
    let mut pre = vec![0i64; f.nodes() + 1];
    for i in 0..f.nodes() {
        pre[i + 1] = pre[i] + f.work[i];
    }
    f.sub = (0..f.nodes())
        .map(|i| pre[f.end[i] as usize] - pre[i + 1])
        .collect();
    Ok(f)
}

/// Quicksort of `arrays` independent arrays of `n` random keys (a batch sort: the
/// host launches one thread per array). Fields `lo` (first key, global index) and
/// `n` (keys); work: `n` for a partition (each key read and written once),
/// `n (n + 1) / 2` for a leaf's selection sort (key reads of its inner loop).
pub fn quicksort(
    arrays: u64,
    n: u64,
    cutoff: u64,
    seed: u64,
    max_nodes: usize,
) -> Result<Forest, String> {
    let mut r = super::gen::SplitMix64::new(seed);
    let mut keys: Vec<u64> = (0..arrays * n).map(|_| r.next_u64()).collect();
    let roots: Vec<(u64, u64)> = (0..arrays).map(|a| (a * n, n)).collect();
    let cutoff = cutoff.max(1);
    let mut expand = |&(lo, len): &(u64, u64), depth: i64| {
        let fields = vec![lo as i64, len as i64];
        if len <= cutoff || depth >= 48 {
            let work = (len * (len + 1) / 2) as i64;
            let seg = &mut keys[lo as usize..(lo + len) as usize];
            seg.sort_unstable();
            return Node {
                fields,
                work,
                kids: vec![],
            };
        }
        let seg = &mut keys[lo as usize..(lo + len) as usize];
        let pivot = seg[seg.len() / 2];
        let less: Vec<u64> = seg.iter().copied().filter(|&k| k < pivot).collect();
        let more: Vec<u64> = seg.iter().copied().filter(|&k| k > pivot).collect();
        let equal = seg.len() - less.len() - more.len();
        let (nl, nm) = (less.len() as u64, more.len() as u64);
        seg[..less.len()].copy_from_slice(&less);
        for k in &mut seg[less.len()..less.len() + equal] {
            *k = pivot;
        }
        seg[less.len() + equal..].copy_from_slice(&more);
        let mut kids = Vec::new();
        if nl > 0 {
            kids.push((lo, nl));
        }
        if nm > 0 {
            kids.push((lo + len - nm, nm));
        }
        Node {
            fields,
            work: len as i64,
            kids,
        }
    };
    forest(&["lo", "n"], &roots, max_nodes, &mut expand)
}

/// Escape-time dwell of pixel `(x, y)` of a `size` x `size` image of the region
/// [-2.0, 1.0] x [-1.5, 1.5], at most `max_dwell` iterations.
pub fn dwell(x: u64, y: u64, size: u64, max_dwell: u64) -> u64 {
    let step = 3.0 / size as f64;
    let (cr, ci) = (-2.0 + x as f64 * step, -1.5 + y as f64 * step);
    let (mut zr, mut zi) = (0.0f64, 0.0f64);
    let mut d = 0;
    while d < max_dwell && zr * zr + zi * zi <= 4.0 {
        let t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        d += 1;
    }
    d
}

/// Mariani-Silver on a `size` x `size` image from tiles of `tile` pixels. Returns
/// the forest (fields `x`, `y`, `s` (side), `kind`: 0 filled, 1 split, 2 per-pixel
/// leaf) and the dwell of every pixel (row-major). Work: pixels computed or filled.
pub fn mandelbrot(
    size: u64,
    tile: u64,
    min: u64,
    max_dwell: u64,
    max_nodes: usize,
) -> Result<(Forest, Vec<i64>), String> {
    let tile = tile.clamp(4, size.max(4));
    let min = min.max(4);
    let dw: Vec<i64> = (0..size * size)
        .map(|i| dwell(i % size, i / size, size, max_dwell) as i64)
        .collect();
    let per = size / tile;
    let roots: Vec<(u64, u64, u64)> = (0..per * per)
        .map(|t| ((t % per) * tile, (t / per) * tile, tile))
        .collect();
    let at = |x: u64, y: u64| dw[(y * size + x) as usize];
    let mut expand = |&(x, y, s): &(u64, u64, u64), _depth: i64| {
        let border: Vec<i64> = (0..s)
            .flat_map(|o| {
                [
                    at(x + o, y),
                    at(x + o, y + s - 1),
                    at(x, y + o),
                    at(x + s - 1, y + o),
                ]
            })
            .collect();
        let uniform = border.iter().all(|&d| d == border[0]);
        let inner = ((s - 2) * (s - 2)) as i64;
        let edge = (4 * s - 4) as i64;
        let (kind, work, kids) = if uniform {
            (0, edge + inner, vec![])
        } else if s / 2 >= min {
            let h = s / 2;
            let kids = vec![(x, y, h), (x + h, y, h), (x, y + h, h), (x + h, y + h, h)];
            (1, edge, kids)
        } else {
            (2, edge + inner, vec![])
        };
        Node {
            fields: vec![x as i64, y as i64, s as i64, kind],
            work,
            kids,
        }
    };
    let f = forest(&["x", "y", "s", "kind"], &roots, max_nodes, &mut expand)?;
    Ok((f, dw))
}

/// Adaptive mesh refinement on a `grid` x `grid` coarse mesh of the unit square: a
/// cell is refined into four when the flame front, the circle of radius 0.3 around
/// the centre wrinkled by two seeded sine modes, crosses it (its corners and centre
/// fall on both sides), down to `levels` refinements. Fields `level`, `x`, `y` (cell
/// coordinates at its level); work: `points` per cell (each cell updates its own
/// patch of points).
pub fn amr(
    grid: u64,
    levels: i64,
    points: i64,
    seed: u64,
    max_nodes: usize,
) -> Result<Forest, String> {
    let mut r = super::gen::SplitMix64::new(seed);
    let (p1, p2) = (
        r.next_f64() * std::f64::consts::TAU,
        r.next_f64() * std::f64::consts::TAU,
    );
    let phi = |x: f64, y: f64| {
        let (dx, dy) = (x - 0.5, y - 0.5);
        let th = dy.atan2(dx);
        let rad = 0.3 + 0.04 * (7.0 * th + p1).sin() + 0.02 * (17.0 * th + p2).sin();
        (dx * dx + dy * dy).sqrt() - rad
    };
    let roots: Vec<(i64, u64, u64)> = (0..grid * grid).map(|c| (0, c % grid, c / grid)).collect();
    let mut expand = |&(level, x, y): &(i64, u64, u64), _depth: i64| {
        let h = 1.0 / (grid as f64 * (1u64 << level) as f64);
        let (x0, y0) = (x as f64 * h, y as f64 * h);
        let s = [
            phi(x0, y0),
            phi(x0 + h, y0),
            phi(x0, y0 + h),
            phi(x0 + h, y0 + h),
            phi(x0 + h / 2.0, y0 + h / 2.0),
        ];
        let cross = s.iter().any(|&v| v < 0.0) && s.iter().any(|&v| v >= 0.0);
        let kids = if cross && level < levels {
            let (a, b) = (2 * x, 2 * y);
            vec![
                (level + 1, a, b),
                (level + 1, a + 1, b),
                (level + 1, a, b + 1),
                (level + 1, a + 1, b + 1),
            ]
        } else {
            vec![]
        };
        Node {
            fields: vec![level, x as i64, y as i64],
            work: points,
            kids,
        }
    };
    forest(&["level", "x", "y"], &roots, max_nodes, &mut expand)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand tree: root 0 with kids 1 (kids 2, 3) and 4.
    #[test]
    fn preorder_ranges_kids_and_subtree_work() {
        let mut expand = |&v: &u32, _d: i64| Node {
            fields: vec![v as i64],
            work: 10 + v as i64,
            kids: match v {
                0 => vec![1, 4],
                1 => vec![2, 3],
                _ => vec![],
            },
        };
        let f = forest(&["v"], &[0u32], 100, &mut expand).unwrap();
        assert_eq!(f.fields[0].1, vec![0, 1, 2, 3, 4]);
        assert_eq!(f.end, vec![5, 4, 3, 4, 5]);
        assert_eq!(f.kid_ptr, vec![0, 2, 4, 4, 4, 4]);
        assert_eq!(f.kids, vec![1, 4, 2, 3]);
        assert_eq!(f.depth, vec![0, 1, 2, 2, 1]);
        assert_eq!(f.sub, vec![11 + 12 + 13 + 14, 12 + 13, 0, 0, 0]);
        assert!(forest(&["v"], &[0u32], 4, &mut expand).is_err());
    }

    #[test]
    fn quicksort_segments_partition_their_parent() {
        let f = quicksort(2, 1000, 16, 3, 1 << 20).unwrap();
        let lo = &f.fields[0].1;
        let n = &f.fields[1].1;
        assert_eq!(f.roots, vec![0, f.end[0]]);
        for i in 0..f.nodes() {
            let k = &f.kids[f.kid_ptr[i] as usize..f.kid_ptr[i + 1] as usize];
            if k.is_empty() {
                assert!(n[i] <= 16);
                continue;
            }
            assert!(n[i] > 16);
            // The pivot is kept out: the kids hold all but at least one key.
            let sum: i64 = k.iter().map(|&c| n[c as usize]).sum();
            assert!(sum < n[i] && sum >= n[i] - 2, "{sum} of {}", n[i]);
            for &c in k {
                assert!(lo[c as usize] >= lo[i] && lo[c as usize] + n[c as usize] <= lo[i] + n[i]);
            }
        }
        // Balanced on random keys: depth near 2 log2(1000 / 16).
        assert!((6..=20).contains(&f.max_depth()), "{}", f.max_depth());
    }

    #[test]
    fn mandelbrot_dwell_and_subdivision() {
        assert_eq!(dwell(0, 0, 64, 100), 1); // c = -2 - 1.5i escapes at once
        assert_eq!(dwell(32, 24, 48, 100), 100); // c = 0: inside the set
        let (f, dw) = mandelbrot(128, 32, 4, 64, 1 << 20).unwrap();
        assert_eq!(dw.len(), 128 * 128);
        assert_eq!(f.roots.len(), 16);
        let kind = &f.fields[3].1;
        // All three kinds occur, and exactly the split nodes have (four) kids.
        for k in 0..3 {
            assert!(kind.contains(&k), "kind {k}");
        }
        for i in 0..f.nodes() {
            let nk = f.kid_ptr[i + 1] - f.kid_ptr[i];
            assert_eq!(nk, if kind[i] == 1 { 4 } else { 0 });
        }
    }

    #[test]
    fn amr_refines_along_the_front_only() {
        let f = amr(16, 4, 8, 1, 1 << 20).unwrap();
        assert_eq!(f.roots.len(), 256);
        let level = &f.fields[0].1;
        let at = |l: i64| level.iter().filter(|&&v| v == l).count();
        // The front is a closed curve: refined cells roughly double per level.
        for l in 1..=4 {
            assert!(at(l) > 0 && at(l) % 4 == 0, "level {l}: {}", at(l));
        }
        assert!(at(4) > at(3) && at(3) > at(2));
        // Far from the front nothing is refined: the corner cell is a leaf.
        assert_eq!(f.kid_ptr[1], f.kid_ptr[0]);
        assert_eq!(f.max_depth(), 4);
    }
}
