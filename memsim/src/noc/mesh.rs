//! Mesh topology and X-Y routing.
//!
//! Nodes are numbered row-major: node `id` sits at column `id % width`, row
//! `id / width`. X-Y routing first moves along the row (X) until the column matches,
//! then along the column (Y); it is deadlock-free on a mesh and gives a unique
//! minimal route whose hop count is the Manhattan distance (dissertation Table 5.2,
//! "Routing Policy: X-Y routing"). Every node has four outgoing links (E, W, N, S);
//! links that would leave the mesh exist in the index space but are never used.

/// A mesh node (router) index, row-major.
pub type NodeId = u32;

/// Direction of an outgoing link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Towards larger column.
    East = 0,
    /// Towards smaller column.
    West = 1,
    /// Towards smaller row.
    North = 2,
    /// Towards larger row.
    South = 3,
}

/// A `width` x `height` mesh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mesh {
    width: u32,
    height: u32,
}

impl Mesh {
    /// A mesh of `width` columns and `height` rows (both at least 1).
    pub fn new(width: u32, height: u32) -> Self {
        Mesh {
            width: width.max(1),
            height: height.max(1),
        }
    }

    /// Number of columns.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Number of rows.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.width * self.height
    }

    /// `(column, row)` of a node.
    pub fn coords(&self, n: NodeId) -> (u32, u32) {
        (n % self.width, n / self.width)
    }

    /// Node at `(column, row)`.
    pub fn node_at(&self, x: u32, y: u32) -> NodeId {
        y * self.width + x
    }

    /// Number of links an X-Y route from `a` to `b` traverses (Manhattan distance).
    pub fn hops(&self, a: NodeId, b: NodeId) -> u32 {
        let (ax, ay) = self.coords(a);
        let (bx, by) = self.coords(b);
        ax.abs_diff(bx) + ay.abs_diff(by)
    }

    /// Index of the outgoing link of `n` in direction `d` (dense, `4 * nodes` links).
    pub fn link_index(&self, n: NodeId, d: Dir) -> usize {
        n as usize * 4 + d as usize
    }

    /// Total number of link slots (`4 * nodes`, including unused border links).
    pub fn link_slots(&self) -> usize {
        self.nodes() as usize * 4
    }

    /// Number of links that physically exist (border links excluded).
    pub fn real_links(&self) -> usize {
        let (w, h) = (self.width as usize, self.height as usize);
        2 * (w - 1) * h + 2 * (h - 1) * w
    }

    /// Calls `f(link_index)` for every link of the X-Y route from `a` to `b`, in order.
    #[inline]
    pub fn for_each_link(&self, a: NodeId, b: NodeId, mut f: impl FnMut(usize)) {
        let (mut x, mut y) = self.coords(a);
        let (bx, by) = self.coords(b);
        while x != bx {
            let d = if bx > x { Dir::East } else { Dir::West };
            f(self.link_index(self.node_at(x, y), d));
            if bx > x {
                x += 1
            } else {
                x -= 1
            }
        }
        while y != by {
            let d = if by > y { Dir::South } else { Dir::North };
            f(self.link_index(self.node_at(x, y), d));
            if by > y {
                y += 1
            } else {
                y -= 1
            }
        }
    }

    /// The nodes visited by the X-Y route from `a` to `b`, both ends included.
    pub fn route(&self, a: NodeId, b: NodeId) -> Vec<NodeId> {
        let (mut x, mut y) = self.coords(a);
        let (bx, by) = self.coords(b);
        let mut v = vec![a];
        while x != bx {
            if bx > x {
                x += 1
            } else {
                x -= 1
            }
            v.push(self.node_at(x, y));
        }
        while y != by {
            if by > y {
                y += 1
            } else {
                y -= 1
            }
            v.push(self.node_at(x, y));
        }
        v
    }

    /// The four corner nodes (top-left, top-right, bottom-left, bottom-right),
    /// the default memory-controller positions; duplicates removed for thin meshes.
    pub fn corners(&self) -> Vec<NodeId> {
        let (w, h) = (self.width, self.height);
        let mut v = vec![
            self.node_at(0, 0),
            self.node_at(w - 1, 0),
            self.node_at(0, h - 1),
            self.node_at(w - 1, h - 1),
        ];
        v.dedup();
        let mut out = Vec::new();
        for n in v {
            if !out.contains(&n) {
                out.push(n);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xy_route_goes_x_first() {
        let m = Mesh::new(6, 6);
        // node 0 (0,0) to node 35 (5,5): 10 hops, along row 0 then column 5.
        assert_eq!(m.hops(0, 35), 10);
        let r = m.route(0, 35);
        assert_eq!(r, vec![0, 1, 2, 3, 4, 5, 11, 17, 23, 29, 35]);
        let mut links = Vec::new();
        m.for_each_link(0, 35, |l| links.push(l));
        assert_eq!(links.len(), 10);
        assert_eq!(links[0], 0); // node 0 east
        assert_eq!(links[5], 5 * 4 + 3); // node 5 south
    }

    #[test]
    fn hops_is_manhattan() {
        let m = Mesh::new(6, 6);
        assert_eq!(m.hops(7, 7), 0);
        assert_eq!(m.hops(7, 8), 1);
        assert_eq!(m.hops(13, 7), 1);
        assert_eq!(m.hops(14, 7), 2);
        assert_eq!(m.hops(30, 5), 10);
        assert_eq!(
            m.route(30, 5),
            vec![30, 31, 32, 33, 34, 35, 29, 23, 17, 11, 5]
        );
        assert_eq!(m.corners(), vec![0, 5, 30, 35]);
        assert_eq!(m.real_links(), 120);
    }
}
