//! Binned-SAH bounding volume hierarchy over an indexed triangle mesh, for ray
//! picking.
//!
//! * Build ([`build`]): binned SAH over the triangles' boxes, a node a leaf
//!   at `<= 4` triangles, or at `<= 8` when the SAH prefers not to split;
//!   large nodes are built in parallel, and the tree is bit-identical for
//!   any number of threads.
//! * The binary tree is then collapsed into an 8-wide tree (`collapse`:
//!   each node adopts the children of its largest-area interior children):
//!   a third of the levels, and all eight children are slab-tested with one
//!   set of 8-wide SIMD operations (two sets of 4-wide ones without AVX2,
//!   see [`crate::cpu::Lanes8`]). Nodes ([`Node`]) are 256-byte, cache-line
//!   aligned blocks (32 bytes per child: bounds in SoA form plus
//!   child/first-primitive index and primitive count).
//! * The binary depth is capped at [`MAX_DEPTH`] (64) levels (deep SAH
//!   chains switch to object median splits), so is the 8-wide tree's; the
//!   traversal stacks keep their first entries in an array and spill any
//!   further ones (rare) to the heap.
//! * Triangles with a non-finite vertex coordinate or an out-of-range vertex
//!   index are left out of the tree and are never hit.
//! * Queries (`traverse`): [`Bvh::first_hit`] (front-to-back ordered
//!   traversal: the children a ray enters visited nearest first, the others
//!   kept on a stack with their entry distances and skipped once the closest
//!   hit is nearer, shrinking `t_max`, ties in `t` broken by the smaller
//!   triangle index) and [`Bvh::each_hit_on`]. Both use [`intersect`] and
//!   therefore its conventions (inclusive `[t_min, t_max]`, watertight
//!   edges, culling by facing); `first_hit` tests a leaf's triangles four at
//!   a time, each lane computing exactly what [`intersect`] computes. The
//!   one-ray walk is built for AVX2 and for the baseline (SSE on x86-64,
//!   plain lanes elsewhere, e.g. `wasm32`) and runs the best the CPU has
//!   ([`crate::cpu::Isa`]); the builds give the same answers bit for bit.
//!   Results are exactly those of a brute-force loop over all triangles
//!   (box tests are conservative: exits are rounded outward). Coherent rays
//!   (rows of pixels) walk the tree together (`packet`): four at a time,
//!   each ray testing a node's eight children at once, or, in the AVX2
//!   build, eight at a time with the rays side by side (one child box
//!   against the eight rays per test, the masks through [`crate::cpu`]'s
//!   `Avx2` token); each ray keeps its own decisions and closest hit, so
//!   every lane's answer is its one-ray walk's.
//!
//! Besides its nodes, the BVH keeps a copy of the leaves' triangles (index
//! and corners) in leaf order, four to a pack (about 40 bytes per
//! triangle), which the queries read instead of the mesh arrays.
//! [`Bvh::validate`] (`validate`) must be given the same `positions` and
//! `tris` the tree was built from.
//!
//! [`intersect`]: crate::accel::triangle::intersect

pub(crate) mod build;
mod collapse;
mod interleave;
mod packet;
mod refit;
mod traverse;
mod validate;

use glam::{Vec3, Vec3A};

use crate::accel::triangle::TriPack;
use crate::cpu::advise_huge_pages;
use crate::geometry::Aabb;
use build::{bounds_of, build_par, Box3, MESH_LEAVES};
use collapse::{collapse, leaf_packs, BinaryNode};

pub(crate) use build::PAR_BUILD_MIN;
pub(crate) use interleave::INTERLEAVE;
pub(crate) use packet::{Packet8Stack, PacketStack, Rays8};
pub(crate) use refit::Refit;
pub(crate) use traverse::{set_bits, LeafHit, MeshStack, Stack};

/// Maximum number of levels of the binary build tree (the root is level 1),
/// and so of the 8-wide tree.
pub const MAX_DEPTH: u32 = 64;

/// A reference to a node: an interior node (`count == 0`; `index` is its
/// [`build::Pair`]'s index while building, its [`Node`]'s in the built
/// tree) or a leaf of `count > 0` primitives (`index` is its first position
/// in the build's primitive order, and in the built tree its first
/// [`TriPack`]). The walks keep the same two numbers per child in a
/// [`Node`]'s `index` and `count` lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct NodeRef {
    pub(crate) index: u32,
    pub(crate) count: u32,
}

impl NodeRef {
    /// The interior node `index`.
    #[inline]
    pub(crate) const fn inner(index: u32) -> NodeRef {
        NodeRef { index, count: 0 }
    }

    /// The leaf of `count > 0` primitives from `first`.
    #[inline]
    pub(crate) const fn leaf(first: u32, count: u32) -> NodeRef {
        NodeRef {
            index: first,
            count,
        }
    }

    /// Is this a leaf (not an interior node)?
    #[inline]
    pub(crate) const fn is_leaf(self) -> bool {
        self.count > 0
    }
}

/// Children per node.
pub(crate) const WIDTH: usize = 8;

/// An 8-wide node: up to eight children in one 256-byte, cache-line
/// aligned block (32 bytes per child), bounds in SoA form so that all
/// children are slab-tested with one set of 8-wide operations.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
pub(crate) struct Node {
    /// `[min.x, min.y, min.z, max.x, max.y, max.z]`, lane k = child k.
    /// Unused lanes hold the empty box (`min = +inf`, `max = -inf`).
    planes: [[f32; WIDTH]; 6],
    /// Per child: index of its `Node` (interior) or of its first
    /// [`TriPack`] in `Bvh::packs` (leaf).
    index: [u32; WIDTH],
    /// Per child: number of triangles, `0` for an interior child.
    count: [u32; WIDTH],
}

const EMPTY_NODE: Node = Node {
    planes: [
        [f32::INFINITY; WIDTH],
        [f32::INFINITY; WIDTH],
        [f32::INFINITY; WIDTH],
        [f32::NEG_INFINITY; WIDTH],
        [f32::NEG_INFINITY; WIDTH],
        [f32::NEG_INFINITY; WIDTH],
    ],
    index: [0; WIDTH],
    count: [0; WIDTH],
};

impl Node {
    /// Does lane `k` hold a child?
    #[inline]
    fn lane_used(&self, k: usize) -> bool {
        self.planes[0][k] != f32::INFINITY
    }

    /// The lanes that hold a child (the first ones).
    fn used(&self) -> impl Iterator<Item = usize> + '_ {
        (0..WIDTH).filter(|&k| self.lane_used(k))
    }

    /// Child `k`.
    #[inline(always)]
    fn child(&self, k: usize) -> NodeRef {
        NodeRef {
            index: self.index[k],
            count: self.count[k],
        }
    }

    /// The bounds of child `k`.
    fn child_bounds(&self, k: usize) -> Aabb {
        let p = &self.planes;
        Aabb {
            min: Vec3::new(p[0][k], p[1][k], p[2][k]),
            max: Vec3::new(p[3][k], p[4][k], p[5][k]),
        }
    }

    /// Makes lane `k` the child with bounds `b` and reference `r`.
    #[inline]
    fn set_lane(&mut self, k: usize, b: &Box3, r: NodeRef) {
        let (lo, hi) = (b.lo.to_array(), b.hi.to_array());
        for a in 0..3 {
            self.planes[a][k] = lo[a];
            self.planes[a + 3][k] = hi[a];
        }
        (self.index[k], self.count[k]) = (r.index, r.count);
    }
}

/// Bounding volume hierarchy over the triangles of an indexed mesh.
///
/// Built by [`Bvh::build`]; see the module docs of `accel::bvh` for the
/// properties.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bvh {
    /// Bounds of the root (empty when no triangle is valid).
    root_bounds: Aabb,
    /// The root: node 0, or a single leaf's packs.
    root: NodeRef,
    /// 8-wide nodes, depth-first (a node's children follow it).
    nodes: Vec<Node>,
    /// The leaves' triangles in leaf order, four to a [`TriPack`] (a leaf of
    /// `count` triangles has `count.div_ceil(4)` consecutive packs, the
    /// first of them its reference's index): [`Bvh::first_hit`] tests them
    /// four at a time without going through `tris` and `positions`.
    packs: Vec<TriPack>,
    /// Number of triangles in the leaves.
    tri_count: usize,
    node_count: usize,
    depth: u32,
    /// [`Bvh::box_area`] when the tree was built ([`Bvh::refit`]).
    built_area: f32,
}

impl Bvh {
    /// Builds the BVH of `tris` (vertex indices into `positions`).
    ///
    /// Triangles with an out-of-range index or a non-finite vertex coordinate
    /// are excluded (they are never hit); an input without valid triangles
    /// gives an empty BVH that never hits. The result does not depend on the
    /// number of rayon threads.
    pub fn build(positions: &[Vec3], tris: &[[u32; 3]]) -> Bvh {
        Self::build_impl(positions, tris, true)
    }

    /// [`Bvh::build`]; `widen == false` keeps the binary tree's shape (two
    /// children per node).
    fn build_impl(positions: &[Vec3], tris: &[[u32; 3]], widen: bool) -> Bvh {
        use crate::par::prelude::*;

        assert!(
            tris.len() <= u32::MAX as usize,
            "too many triangles for u32 indices"
        );
        // Triangle bounds; invalid triangles get NaN bounds and are dropped.
        let vertex = |i: u32| positions.get(i as usize).copied().filter(|p| p.is_finite());
        let tri_box = |t: &[u32; 3]| -> Option<Box3> {
            let (a, b, c) = (vertex(t[0])?, vertex(t[1])?, vertex(t[2])?);
            let (a, b, c) = (Vec3A::from(a), Vec3A::from(b), Vec3A::from(c));
            Some(Box3 {
                lo: a.min(b).min(c),
                hi: a.max(b).max(c),
            })
        };
        let invalid = Box3 {
            lo: Vec3A::NAN,
            hi: Vec3A::NAN,
        };
        // Small meshes are built on the calling thread without rayon: a
        // parallel iterator called from outside the pool hands its work to
        // a pool thread and waits for it, which costs more than the whole
        // build of a few hundred triangles once the pool has gone to sleep.
        let small = tris.len() < PAR_BUILD_MIN;
        let is_valid = |r: &Box3| !r.lo.x.is_nan();
        let (mut refs, mut ids, all_valid): (Vec<Box3>, Vec<u32>, bool) = if small {
            let refs: Vec<Box3> = tris.iter().map(|t| tri_box(t).unwrap_or(invalid)).collect();
            let all = refs.iter().all(is_valid);
            (refs, (0..tris.len() as u32).collect(), all)
        } else {
            // (written in place, into memory backed by huge pages where the
            // system allows: a fault per 2 MB instead of per 4 KB)
            let mut refs: Vec<Box3> = Vec::with_capacity(tris.len());
            advise_huge_pages(&refs);
            tris.par_iter()
                .with_min_len(PAR_BUILD_MIN)
                .map(|t| tri_box(t).unwrap_or(invalid))
                .collect_into_vec(&mut refs);
            let all = refs.par_iter().with_min_len(PAR_BUILD_MIN).all(is_valid);
            let mut ids = Vec::with_capacity(tris.len());
            advise_huge_pages(&ids);
            (0..tris.len() as u32)
                .into_par_iter()
                .with_min_len(PAR_BUILD_MIN)
                .collect_into_vec(&mut ids);
            (refs, ids, all)
        };
        if !all_valid {
            let keep: Vec<bool> = refs.iter().map(is_valid).collect();
            let mut k = keep.iter();
            refs.retain(|_| *k.next().unwrap_or(&false));
            let mut k = keep.iter();
            ids.retain(|_| *k.next().unwrap_or(&false));
        }
        if refs.is_empty() {
            return Bvh::default();
        }
        let (bounds, cbounds) = if small {
            bounds_of(&refs)
        } else {
            // (`bounds_of` in parallel: the same exact unions, so the same
            // bounds)
            let grow = |(b, c): (Box3, Box3), r: &Box3| (b.union(r), c.grow(r.center()));
            let empty = (Box3::EMPTY, Box3::EMPTY);
            refs.par_iter()
                .with_min_len(PAR_BUILD_MIN)
                .fold(|| empty, grow)
                .reduce(
                    || empty,
                    |(b0, c0), (b1, c1)| (b0.union(&b1), c0.union(&c1)),
                )
        };
        let sub = build_par(&mut refs, &mut ids, 0, (bounds, cbounds), 1, MESH_LEAVES);
        drop(refs);
        let (mut nodes, mut root, depth) = match BinaryNode::of_subtree(&sub) {
            BinaryNode::Leaf(r) => (Vec::new(), r, 1),
            root => {
                let (nodes, q, depth) = collapse(root, sub.pair_count(), widen);
                (nodes, NodeRef::inner(q), depth)
            }
        };
        let node_count = 1 + nodes.iter().map(|q| q.used().count()).sum::<usize>();
        let packs = leaf_packs(&mut nodes, &mut root, &ids, positions, tris);
        let mut bvh = Bvh {
            root_bounds: Aabb {
                min: bounds.lo.into(),
                max: bounds.hi.into(),
            },
            root,
            nodes,
            tri_count: ids.len(),
            packs,
            node_count,
            depth,
            built_area: 0.0,
        };
        bvh.built_area = bvh.box_area();
        bvh
    }

    /// Bounds of all indexed triangles ([`Aabb::empty`] for an empty BVH).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn root_bounds(&self) -> Aabb {
        self.root_bounds
    }

    /// Number of nodes in the (8-wide) tree, leaves included (0 when empty).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn node_count(&self) -> usize {
        if self.is_empty() {
            0
        } else {
            self.node_count
        }
    }

    /// Number of levels of the (8-wide) tree, leaves included (0 when empty,
    /// 1 for a single leaf); at most `MAX_DEPTH` (64).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn depth(&self) -> u32 {
        if self.is_empty() {
            0
        } else {
            self.depth
        }
    }

    /// Number of triangles in the tree (the valid ones).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn triangle_count(&self) -> usize {
        self.tri_count
    }

    /// `true` when the tree holds no triangle (it never hits).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.tri_count == 0
    }

    /// Is the whole tree one leaf (a small mesh: no box to test)?
    #[inline]
    pub(crate) fn is_single_leaf(&self) -> bool {
        self.root.is_leaf()
    }
}

#[cfg(test)]
mod tests;
