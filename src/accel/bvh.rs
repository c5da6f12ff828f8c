//! Binned-SAH bounding volume hierarchy over an indexed triangle mesh, for ray
//! picking.
//!
//! * Build: binned SAH (up to [`BINS`] bins over the centroid bounds of each
//!   node, no sorting; large nodes bin along their widest centroid axis only,
//!   small ones along all three); a node becomes a leaf at `<= 4` triangles,
//!   or at `<= 8` when the SAH prefers not to split; nodes whose centroids all
//!   coincide are split at the count median. Nodes with more than a few
//!   thousand triangles are built in parallel with `rayon::join` (and the
//!   root's binning uses a parallel reduction). Every decision depends only
//!   on the data — reductions are exact min/max/sums and the parallel
//!   sub-trees are stitched in a fixed order — so the tree is bit-identical
//!   for any number of threads.
//! * The binary tree is then collapsed into a 4-wide tree (each node adopts
//!   the children of its largest-area interior children): half the levels,
//!   and all four children are slab-tested with one set of 4-wide SIMD
//!   operations. Nodes are 128-byte, cache-line aligned blocks (32 bytes per
//!   child: bounds in SoA form plus child/first-primitive index and primitive
//!   count).
//! * The binary depth is capped at `MAX_DEPTH` (64) levels (deep SAH chains
//!   switch to object median splits) and the 4-wide tree's traversal stack
//!   need is checked against it, so traversal uses a fixed 64-entry stack.
//! * Triangles with a non-finite vertex coordinate or an out-of-range vertex
//!   index are left out of the tree and are never hit.
//! * Queries: [`Bvh::first_hit`] (front-to-back ordered traversal, shrinking
//!   `t_max`, ties in `t` broken by the smaller triangle index) and
//!   [`Bvh::all_hits`]. Both use [`intersect`] and therefore its conventions
//!   (inclusive `[t_min, t_max]`, watertight edges, culling by facing);
//!   `first_hit` tests a leaf's triangles four at a time, each lane
//!   computing exactly what [`intersect`] computes. Results are exactly
//!   those of a brute-force loop over all triangles (box tests are
//!   conservative: exits are rounded outward). Coherent rays (rows of
//!   pixels) walk the tree together: four at a time, each ray testing a
//!   node's four children at once, or, in the AVX2 build, eight at a time
//!   with the rays side by side (one child box against the eight rays per
//!   test, the masks through [`crate::cpu`]'s `Avx2` token); each
//!   ray keeps its own decisions and closest hit, so every lane's answer is
//!   its one-ray walk's.
//!
//! Besides its nodes, the BVH keeps a copy of the leaves' triangles (index
//! and corners) in leaf order, four to a pack (about 40 bytes per
//! triangle), which the queries read instead of the mesh arrays.
//! [`Bvh::validate`] must be given the same `positions` and `tris` the tree
//! was built from.

use glam::{BVec3A, Mat4, Vec3, Vec3A, Vec3Swizzles, Vec4};

use crate::accel::triangle::{intersect, precedes, Pack4Ray, RayPrecomp, TriHit, TriPack};
use crate::cpu::{advise_huge_pages, Avx2};
use crate::geometry::{far_out4, Aabb, CullMode, FAR_SLACK};

/// Number of SAH bins per axis.
pub const BINS: usize = 16;
/// Maximum number of levels of the binary build tree (the root is level 1),
/// and the size of the traversal stack (the 4-wide tree never needs more).
pub const MAX_DEPTH: u32 = 64;

/// Always make a leaf at or below this many triangles.
const LEAF_MIN: usize = 4;
/// The SAH may choose a leaf up to this many triangles.
const LEAF_MAX: usize = 8;
/// SAH cost of one traversal step relative to one triangle test.
const COST_TRAVERSAL: f32 = 1.0;
/// Nodes with fewer triangles bin along all three axes, larger ones along the
/// widest centroid axis only.
const ALL_AXES_BELOW: usize = 64;
/// Nodes with at least this many triangles build their children in parallel.
pub(crate) const PAR_BUILD_MIN: usize = 4096;
/// Nodes with at least this many triangles bin in parallel.
const PAR_BIN_MIN: usize = 1 << 15;
/// Relative slack when pruning boxes against the current closest hit, so
/// rounding in the slab test can never hide an equal-`t` hit (tie-breaking).
const PRUNE_SLACK: f32 = 1.0 / 65536.0;
/// The box pruning bound of a closest hit at `t`: `t` plus [`PRUNE_SLACK`]
/// of it, for the mesh and top-level walks alike.
#[inline(always)]
pub(crate) fn prune_bound(t: f32) -> f32 {
    t + t.abs() * PRUNE_SLACK
}

/// Keeps the hit `(id, h)` of a ray as its closest when it precedes the
/// closest so far (see [`precedes`]), narrowing the ray's range end and box
/// pruning bound to it.
#[inline(always)]
fn keep_closest(
    best: &mut Option<(u32, TriHit)>,
    t_hi: &mut f32,
    prune: &mut f32,
    (id, h): (u32, TriHit),
) {
    if precedes(id, h.t, best.map(|(bid, bh)| (bid, bh.t))) {
        *best = Some((id, h));
        *t_hi = h.t;
        *prune = prune_bound(h.t);
    }
}

/// Inserts child `k` at entry distance `d` into `order[..n]`, which is kept
/// sorted by distance, descending (a later child of equal distance goes
/// after the earlier one); returns the new length.
#[inline(always)]
fn insert_desc(order: &mut [(f32, usize); 4], n: usize, d: f32, k: usize) -> usize {
    let mut j = n;
    while j > 0 && order[j - 1].0 < d {
        order[j] = order[j - 1];
        j -= 1;
    }
    order[j] = (d, k);
    n + 1
}

/// A binary node's two children as produced by the builder (collapsed into
/// [`Quad`]s afterwards).
#[derive(Clone, Copy, Debug)]
struct Pair {
    bounds: [Box3; 2],
    child: [ChildRef; 2],
}

impl Pair {
    /// A pair with the given child bounds; references are filled in later.
    fn with_bounds(l: &Box3, r: &Box3) -> Pair {
        Pair {
            bounds: [*l, *r],
            child: [(0, 0); 2],
        }
    }

    fn set_children(&mut self, l: ChildRef, r: ChildRef) {
        self.child = [l, r];
    }
}

/// A 4-wide node: up to four children in one 128-byte, cache-line aligned
/// block (32 bytes per child), bounds in SoA form so that all children are
/// slab-tested with one set of 4-wide operations.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
struct Quad {
    /// `[min.x, min.y, min.z, max.x, max.y, max.z]`, lane k = child k.
    /// Unused lanes hold the empty box (`min = +inf`, `max = -inf`).
    planes: [Vec4; 6],
    /// Per child: index of its `Quad` (interior) or of its first
    /// [`TriPack`] in `Bvh::packs` (leaf).
    index: [u32; 4],
    /// Per child: number of triangles, `0` for an interior child.
    count: [u32; 4],
}

const EMPTY_QUAD: Quad = Quad {
    planes: [
        Vec4::INFINITY,
        Vec4::INFINITY,
        Vec4::INFINITY,
        Vec4::NEG_INFINITY,
        Vec4::NEG_INFINITY,
        Vec4::NEG_INFINITY,
    ],
    index: [0; 4],
    count: [0; 4],
};

impl Quad {
    fn lane_used(&self, k: usize) -> bool {
        self.planes[0][k] != f32::INFINITY
    }

    fn child_bounds(&self, k: usize) -> Aabb {
        let p = &self.planes;
        Aabb {
            min: Vec3::new(p[0][k], p[1][k], p[2][k]),
            max: Vec3::new(p[3][k], p[4][k], p[5][k]),
        }
    }

    fn set_lane(&mut self, k: usize, b: &Box3, r: ChildRef) {
        let (lo, hi) = (b.lo.to_array(), b.hi.to_array());
        for a in 0..3 {
            self.planes[a][k] = lo[a];
            self.planes[a + 3][k] = hi[a];
        }
        (self.index[k], self.count[k]) = r;
    }
}

/// A child in the binary build tree, as seen by [`Collapse`].
#[derive(Clone, Copy)]
enum Kid<'a> {
    /// `(first primitive, count)`.
    Leaf(ChildRef),
    /// A node split by the parallel builder.
    Inner(&'a Sub),
    /// A pair (by index) of a serially built chunk.
    Local(&'a [Pair], u32),
}

impl<'a> Kid<'a> {
    fn of_sub(sub: &'a Sub) -> Kid<'a> {
        match sub {
            Sub::Chunk { root, .. } if root.1 > 0 => Kid::Leaf(*root),
            Sub::Chunk { root, pairs } => Kid::Local(pairs, root.0),
            Sub::Inner { .. } => Kid::Inner(sub),
        }
    }

    fn of_ref(pairs: &'a [Pair], r: ChildRef) -> Kid<'a> {
        if r.1 > 0 {
            Kid::Leaf(r)
        } else {
            Kid::Local(pairs, r.0)
        }
    }

    /// An interior node's two children with their bounds.
    fn children(self) -> [(Box3, Kid<'a>); 2] {
        match self {
            Kid::Leaf(_) => unreachable!("leaves have no children"),
            Kid::Inner(Sub::Inner { bounds, children }) => [
                (bounds.0, Kid::of_sub(&children.0)),
                (bounds.1, Kid::of_sub(&children.1)),
            ],
            Kid::Inner(Sub::Chunk { .. }) => unreachable!("chunks are Local"),
            Kid::Local(pairs, i) => {
                let p = &pairs[i as usize];
                [
                    (p.bounds[0], Kid::of_ref(pairs, p.child[0])),
                    (p.bounds[1], Kid::of_ref(pairs, p.child[1])),
                ]
            }
        }
    }
}

/// Converts the binary tree into 4-wide nodes: each node adopts the children
/// of its largest-area interior children until it has four (ties to the
/// leftmost). With `widen == false` every node keeps its two children (used
/// only when the 4-wide tree would need a deeper traversal stack than
/// `MAX_DEPTH` (64) entries).
struct Collapse {
    quads: Vec<Quad>,
    widen: bool,
}

impl Collapse {
    /// Emits the quad for the interior binary node `node`; returns its index,
    /// its depth in levels (leaves included) and the traversal stack it may
    /// need.
    fn emit(&mut self, node: Kid) -> (u32, u32, u32) {
        let [a, b] = node.children();
        let mut kids = [a, b, a, a];
        let mut n = 2;
        while self.widen && n < 4 {
            let mut best: Option<(usize, f32)> = None;
            for (j, (b, k)) in kids[..n].iter().enumerate() {
                let area = b.half_area();
                if !matches!(k, Kid::Leaf(_)) && best.is_none_or(|(_, a)| area > a) {
                    best = Some((j, area));
                }
            }
            let Some((j, _)) = best else { break };
            let [l, r] = kids[j].1.children();
            kids.copy_within(j + 1..n, j + 2);
            kids[j] = l;
            kids[j + 1] = r;
            n += 1;
        }
        let q = self.quads.len();
        self.quads.push(EMPTY_QUAD);
        let (mut depth, mut stack) = (1, 0);
        for (k, (b, kid)) in kids[..n].iter().enumerate() {
            let r = match *kid {
                Kid::Leaf(r) => r,
                interior => {
                    let (cq, d, s) = self.emit(interior);
                    depth = depth.max(d);
                    stack = stack.max(s);
                    (cq, 0)
                }
            };
            self.quads[q].set_lane(k, b, r);
        }
        (q as u32, depth + 1, stack + n as u32 - 1)
    }
}

/// The leaves' triangles four to a pack, in leaf order; the leaves' references
/// (`quads` and `root`) are turned from their first entry in `prims` (as
/// built) into the index of their first pack, so that a walk reaching a leaf
/// loads its packs with no table in between.
fn leaf_packs(
    quads: &mut [Quad],
    root: &mut ChildRef,
    prims: &[u32],
    positions: &[Vec3],
    tris: &[[u32; 3]],
) -> Vec<TriPack> {
    let mut leaves: Vec<ChildRef> = if root.1 > 0 {
        vec![*root]
    } else {
        quads
            .iter()
            .flat_map(|q| {
                (0..4)
                    .filter(|&k| q.count[k] > 0)
                    .map(|k| (q.index[k], q.count[k]))
            })
            .collect()
    };
    use rayon::prelude::*;

    leaves.sort_unstable();
    // the packs in leaf order: each one's first triangle (its position in
    // `prims`) and count; `start`: a leaf's first pack
    let mut start = vec![0u32; prims.len()];
    let mut spans: Vec<ChildRef> = Vec::with_capacity(prims.len().div_ceil(4) + leaves.len());
    for &(first, count) in &leaves {
        start[first as usize] = spans.len() as u32;
        for c in (0..count).step_by(4) {
            spans.push((first + c, (count - c).min(4)));
        }
    }
    let pack = |&(first, count): &ChildRef| {
        let mut four = [(0u32, [Vec3::ZERO; 3]); 4];
        let ids = &prims[first as usize..(first + count) as usize];
        for (slot, &id) in four.iter_mut().zip(ids) {
            *slot = (id, tris[id as usize].map(|v| positions[v as usize]));
        }
        TriPack::new(&four[..ids.len()])
    };
    // (written in place, in parallel for large trees: the same packs for
    // any number of threads; small trees on the calling thread, see
    // `Bvh::build_impl`)
    let mut packs: Vec<TriPack> = Vec::with_capacity(spans.len());
    advise_huge_pages(&packs);
    if prims.len() < PAR_BUILD_MIN {
        packs.extend(spans.iter().map(pack));
    } else {
        spans
            .par_iter()
            .with_min_len(PAR_BUILD_MIN / 4)
            .map(pack)
            .collect_into_vec(&mut packs);
    }
    if root.1 > 0 {
        root.0 = start[root.0 as usize];
    }
    for q in quads.iter_mut() {
        for k in (0..4).filter(|&k| q.count[k] > 0) {
            q.index[k] = start[q.index[k] as usize];
        }
    }
    packs
}

/// A traversal stack: the first `N` entries in an array (cheap to set up
/// for every ray), any further ones (rare) in a vector.
pub(crate) struct Stack<T, const N: usize> {
    top: [T; N],
    n: usize,
    more: Vec<T>,
}

impl<T: Copy + Default, const N: usize> Stack<T, N> {
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Self {
            top: [T::default(); N],
            n: 0,
            more: Vec::new(),
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, v: T) {
        if self.n < N {
            self.top[self.n] = v;
            self.n += 1;
        } else {
            self.more.push(v);
        }
    }

    /// Empties the stack (keeping the spill vector's memory).
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.n = 0;
        self.more.clear();
    }

    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<T> {
        if let Some(v) = self.more.pop() {
            return Some(v);
        }
        self.n = self.n.checked_sub(1)?;
        Some(self.top[self.n])
    }
}

/// The indices of the set bits of `mask`, lowest first (the rays or
/// children a bit mask selects).
#[inline(always)]
pub(crate) fn set_bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            k
        })
    })
}

/// The traversal stack of [`Bvh::first_hit`]: (node or first primitive,
/// count, entry distance).
pub(crate) type MeshStack = Stack<(u32, u32, f32), 16>;

/// The traversal stack of [`Bvh::first_hit_x4`]: (node or first primitive,
/// count, the rays entering it as a bit mask, their entry distances).
pub(crate) type PacketStack = Stack<(u32, u32, u32, Vec4), 16>;

/// The traversal stack of [`Bvh::first_hit_x8`]: (node or first primitive,
/// count, the rays entering it as a bit mask, their entry distances).
pub(crate) type Packet8Stack = Stack<(u32, u32, u32, [f32; 8]), 16>;

/// Eight rays `origin + t * dir` side by side: per axis, the eight origins'
/// and directions' components (lanes: rays), for [`Bvh::first_hit_x8`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Rays8 {
    pub(crate) o: [[f32; 8]; 3],
    pub(crate) d: [[f32; 8]; 3],
}

impl Rays8 {
    /// Ray `r`'s origin.
    #[inline(always)]
    pub(crate) fn origin(&self, r: usize) -> Vec3 {
        Vec3::new(self.o[0][r], self.o[1][r], self.o[2][r])
    }

    /// Ray `r`'s direction.
    #[inline(always)]
    pub(crate) fn dir(&self, r: usize) -> Vec3 {
        Vec3::new(self.d[0][r], self.d[1][r], self.d[2][r])
    }

    /// Sets ray `r`.
    #[cfg(test)]
    pub(crate) fn set(&mut self, r: usize, origin: Vec3, dir: Vec3) {
        for (a, (o, d)) in [(origin.x, dir.x), (origin.y, dir.y), (origin.z, dir.z)]
            .into_iter()
            .enumerate()
        {
            self.o[a][r] = o;
            self.d[a][r] = d;
        }
    }
}

/// Eight rays' box-test constants side by side (lanes: rays), for
/// [`Bvh::first_hit_x8`]: per lane, the very operations [`QuadTest::test`]
/// makes (FAST) for that ray, one child at a time instead of four children
/// at once, so every decision and entry distance is the same. The rays'
/// direction components share their signs (so do their entry planes).
struct Packet8 {
    o: [[f32; 8]; 3],
    inv_near: [[f32; 8]; 3],
    inv_far: [[f32; 8]; 3],
    neg: [bool; 3],
    t_min: f32,
    avx2: Avx2,
}

impl Packet8 {
    /// The packet of `rays` with inverse directions `inv`; `None` unless
    /// every live ray (bit r of `live`) has a finite inverse direction, with
    /// the same signs as the others'. (The lanes outside `live` hold
    /// whatever they hold: their results are never read.)
    #[inline(always)]
    fn new(
        rays: &Rays8,
        inv: &[[f32; 8]; 3],
        live: u32,
        t_min: f32,
        avx2: Avx2,
    ) -> Option<Packet8> {
        // (lane loops and eight-lane masks: no per-lane branches)
        let mut zero = [0f32; 8];
        for i in inv {
            for r in 0..8 {
                zero[r] += i[r] * 0.0; // NaN unless finite
            }
        }
        if live & !avx2.le_mask(&zero, &[0.0; 8]) != 0 {
            return None;
        }
        let mut neg = [false; 3];
        for (a, i) in inv.iter().enumerate() {
            let negative = !avx2.le_mask(&[0.0; 8], i) & live;
            if negative != 0 && negative != live {
                return None;
            }
            neg[a] = negative != 0;
        }
        let (lo, hi) = (1.0 - FAR_SLACK, 1.0 + FAR_SLACK);
        let mut p = Packet8 {
            o: rays.o,
            inv_near: *inv,
            inv_far: *inv,
            neg,
            t_min,
            avx2,
        };
        for a in 0..3 {
            for r in 0..8 {
                p.inv_near[a][r] *= lo;
                p.inv_far[a][r] *= hi;
            }
        }
        Some(p)
    }

    /// Child `K` of `q` against the eight rays, each within
    /// `[t_min, prune[lane]]`: the rays entering it (bit mask) and their
    /// entry distances (`+inf` in the lanes that miss it).
    #[inline(always)]
    fn test<const K: usize>(&self, q: &Quad, prune: &[f32; 8]) -> (u32, [f32; 8]) {
        let mut near = [self.t_min; 8];
        let mut far = *prune;
        for a in 0..3 {
            let neg = usize::from(self.neg[a]);
            let (pn, pf) = (q.planes[a + 3 * neg][K], q.planes[a + 3 * (1 - neg)][K]);
            let (o, i_n, i_f) = (&self.o[a], &self.inv_near[a], &self.inv_far[a]);
            for r in 0..8 {
                // (`max`/`min` as `Vec4::max`/`min` compute them, the
                // comparisons written out so that they compile to single
                // instructions)
                let n = (pn - o[r]) * i_n[r];
                let f = (pf - o[r]) * i_f[r];
                near[r] = if near[r] > n { near[r] } else { n };
                far[r] = if far[r] < f { far[r] } else { f };
            }
        }
        self.avx2.le_select(&near, &far)
    }
}

/// Per-ray constants for testing the four children of a [`Quad`] at once.
struct QuadTest {
    /// Splatted origin per axis.
    o: [Vec4; 3],
    /// FAST: `inv_dir[axis] * (1 - d)` for entries, `* (1 + d)` for exits
    /// (`d = FAR_SLACK`); generic: `inv_dir[axis]` for both.
    inv_near: [Vec4; 3],
    inv_far: [Vec4; 3],
    /// FAST: per axis, the direction is negative (the ray enters through
    /// the `max` plane, `Quad::planes[axis + 3]`, and leaves through the
    /// `min` plane). Kept as `bool`s so that the plane indices are known to
    /// be in range (no bounds checks per node).
    neg: [bool; 3],
    t_min: f32,
}

impl QuadTest {
    #[inline(always)]
    fn new<const FAST: bool>(ray: &RayPrecomp, t_min: f32) -> QuadTest {
        let (o, i) = (ray.origin(), ray.inv_dir());
        let (lo, hi) = if FAST {
            (1.0 - FAR_SLACK, 1.0 + FAR_SLACK)
        } else {
            (1.0, 1.0)
        };
        let neg = [i.x < 0.0, i.y < 0.0, i.z < 0.0];
        QuadTest {
            o: [Vec4::splat(o.x), Vec4::splat(o.y), Vec4::splat(o.z)],
            // (written out: `array::map` here compiled to an outlined call)
            inv_near: [
                Vec4::splat(i.x * lo),
                Vec4::splat(i.y * lo),
                Vec4::splat(i.z * lo),
            ],
            inv_far: [
                Vec4::splat(i.x * hi),
                Vec4::splat(i.y * hi),
                Vec4::splat(i.z * hi),
            ],
            neg,
            t_min,
        }
    }

    /// Tests the four children against `[t_min, t_hi]`. Returns a bit mask
    /// (bit k set when child k is hit) and the entry distances.
    ///
    /// FAST (requires finite `inv_dir` and `t_min >= 0`): entry and exit
    /// planes are picked by the direction's sign; entries are rounded down
    /// and exits up through the scaled `inv` (conservative because with
    /// `t_min >= 0` only non-negative exits matter); an unused lane's
    /// inverted box always gives entry `+inf` and exit `-inf`. Generic: the
    /// robust [`slab`] formulation, for zero direction components and
    /// negative `t_min`, with unused lanes masked out explicitly.
    #[inline(always)]
    fn test<const FAST: bool>(&self, q: &Quad, t_hi: f32) -> (u32, Vec4) {
        let p = &q.planes;
        let mut near = Vec4::splat(self.t_min);
        if FAST {
            let mut far = Vec4::splat(t_hi);
            for a in 0..3 {
                let neg = usize::from(self.neg[a]);
                let n = (p[a + 3 * neg] - self.o[a]) * self.inv_near[a];
                let f = (p[a + 3 * (1 - neg)] - self.o[a]) * self.inv_far[a];
                near = near.max(n);
                far = far.min(f);
            }
            (near.cmple(far).bitmask(), near)
        } else {
            let mut far = Vec4::INFINITY;
            for a in 0..3 {
                let inv = self.inv_near[a];
                let lo = (p[a] - self.o[a]) * inv;
                let hi = (p[a + 3] - self.o[a]) * inv;
                // 0 * inf: see `slab`.
                let lo = Vec4::select(lo.is_nan_mask(), -inv, lo);
                let hi = Vec4::select(hi.is_nan_mask(), inv, hi);
                near = near.max(lo.min(hi));
                far = far.min(lo.max(hi));
            }
            let far = far_out4(far).min(Vec4::splat(t_hi));
            let used = p[0].cmple(p[3]);
            ((near.cmple(far) & used).bitmask(), near)
        }
    }
}

/// Bounding volume hierarchy over the triangles of an indexed mesh.
///
/// Built by [`Bvh::build`]; see the module docs of `pick::bvh` for the properties.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bvh {
    /// Bounds of the root (empty when no triangle is valid).
    root_bounds: Aabb,
    /// The root's reference: `(quad index, 0)` or `(first prim, count)`.
    root: ChildRef,
    /// 4-wide nodes, depth-first (a node's children follow it).
    quads: Vec<Quad>,
    /// The leaves' triangles in leaf order, four to a [`TriPack`] (a leaf of
    /// `count` triangles has `count.div_ceil(4)` consecutive packs, the
    /// first of them its reference's index): [`Bvh::first_hit`] tests them
    /// four at a time without going through `tris` and `positions`.
    packs: Vec<TriPack>,
    /// Number of triangles in the leaves.
    tri_count: usize,
    node_count: usize,
    depth: u32,
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
    /// children per node), which is also the fallback when the 4-wide tree
    /// would need more than `MAX_DEPTH` (64) stack entries.
    fn build_impl(positions: &[Vec3], tris: &[[u32; 3]], widen: bool) -> Bvh {
        use rayon::prelude::*;

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
        let grow = |(b, c): (Box3, Box3), r: &Box3| (b.union(r), c.grow(r.center()));
        let empty = (Box3::EMPTY, Box3::EMPTY);
        let (bounds, cbounds) = if small {
            refs.iter().fold(empty, grow)
        } else {
            refs.par_iter()
                .with_min_len(PAR_BUILD_MIN)
                .fold(|| empty, grow)
                .reduce(
                    || empty,
                    |(b0, c0), (b1, c1)| (b0.union(&b1), c0.union(&c1)),
                )
        };
        let sub = build_par(&mut refs, &mut ids, 0, bounds, cbounds, 1);
        drop(refs);
        let (mut quads, mut root, depth) = match Kid::of_sub(&sub) {
            Kid::Leaf(r) => (Vec::new(), r, 1),
            root => {
                // The binary tree has depth <= MAX_DEPTH, so without widening
                // the stack need is <= MAX_DEPTH - 1.
                let mut c = Collapse {
                    quads: Vec::with_capacity(sub.pair_count() / 2 + 1),
                    widen,
                };
                advise_huge_pages(&c.quads);
                let (mut q, mut depth, stack) = c.emit(root);
                if stack > MAX_DEPTH && widen {
                    c.quads.clear();
                    c.widen = false;
                    (q, depth, _) = c.emit(root);
                }
                (c.quads, (q, 0), depth)
            }
        };
        let node_count = 1 + quads
            .iter()
            .map(|q| (0..4).filter(|&k| q.lane_used(k)).count())
            .sum::<usize>();
        let packs = leaf_packs(&mut quads, &mut root, &ids, positions, tris);
        Bvh {
            root_bounds: Aabb {
                min: bounds.lo.into(),
                max: bounds.hi.into(),
            },
            root,
            quads,
            tri_count: ids.len(),
            packs,
            node_count,
            depth,
        }
    }

    /// Bounds of all indexed triangles ([`Aabb::empty`] for an empty BVH).
    pub fn root_bounds(&self) -> Aabb {
        self.root_bounds
    }

    /// Number of nodes in the (4-wide) tree, leaves included (0 when empty).
    pub fn node_count(&self) -> usize {
        if self.is_empty() {
            0
        } else {
            self.node_count
        }
    }

    /// Number of levels of the (4-wide) tree, leaves included (0 when empty,
    /// 1 for a single leaf); at most `MAX_DEPTH` (64).
    pub fn depth(&self) -> u32 {
        if self.is_empty() {
            0
        } else {
            self.depth
        }
    }

    /// Number of triangles in the tree (the valid ones).
    pub fn triangle_count(&self) -> usize {
        self.tri_count
    }

    /// `true` when the tree holds no triangle (it never hits).
    pub fn is_empty(&self) -> bool {
        self.tri_count == 0
    }

    /// Closest hit of `ray` with `t_min <= t <= t_max` among the non-culled
    /// triangles, as `(triangle index, hit)`. Among hits with equal `t` the
    /// smaller triangle index wins, so the result equals that of a brute-force
    /// loop over all (valid) triangles. Allocation-free. The tree tests its
    /// own leaf-ordered copy of the triangles (made from the mesh's arrays
    /// at build time), so it needs nothing else.
    pub fn first_hit(
        &self,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
    ) -> Option<(u32, TriHit)> {
        self.first_hit_in(ray, t_min, t_max, cull, &mut MeshStack::new())
    }

    /// Prefetches the node `r` refers to (its quad, or a leaf's first pack).
    #[inline(always)]
    fn prefetch(&self, (index, count): ChildRef) {
        use crate::cpu::prefetch;
        if count == 0 {
            if let Some(q) = self.quads.get(index as usize) {
                prefetch(q);
                prefetch(&q.planes[4]);
            }
        } else if let Some(p) = self.packs.get(index as usize) {
            prefetch(p);
            prefetch(&p.p[2]);
        }
    }

    /// The triangles of a leaf, in leaf order (its packs' leading lanes).
    fn leaf_ids(&self, leaf: ChildRef) -> impl Iterator<Item = u32> + '_ {
        self.packs_of(leaf)
            .iter()
            .flat_map(|pk| pk.id)
            .take(leaf.1 as usize)
    }

    /// The packs of a leaf: `count.div_ceil(4)` of them from its reference.
    #[inline(always)]
    fn packs_of(&self, (first, count): ChildRef) -> &[TriPack] {
        let first = first as usize;
        &self.packs[first..first + (count as usize).div_ceil(4)]
    }

    /// Is the whole tree one leaf (a small mesh: no box to test)?
    #[inline]
    pub(crate) fn is_single_leaf(&self) -> bool {
        self.root.1 != 0
    }

    /// [`Bvh::first_hit`] with the traversal stack given, so that a loop
    /// over many rays sets one up once (it is reset here).
    #[inline(always)]
    pub(crate) fn first_hit_in(
        &self,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
        stack: &mut MeshStack,
    ) -> Option<(u32, TriHit)> {
        let range_ok = t_min <= t_max; // false for NaN
        if self.is_empty() || !ray.is_valid() || !range_ok {
            return None;
        }
        stack.clear();
        // No separate root-box test: testing the root's children rejects a
        // ray that misses everything just as fast.
        if ray.inv_dir().is_finite() && t_min >= 0.0 {
            self.first_hit_impl::<true>(ray, t_min, t_max, cull, stack)
        } else {
            self.first_hit_impl::<false>(ray, t_min, t_max, cull, stack)
        }
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn leaf_first(
        &self,
        ray: &RayPrecomp,
        tris4: &Pack4Ray,
        (first, count): ChildRef,
        t_min: f32,
        t_hi: f32,
        cull: CullMode,
    ) -> Option<(u32, TriHit)> {
        let mut best: Option<(u32, TriHit)> = None;
        let mut t_hi = t_hi;
        for pk in self.packs_of((first, count)) {
            if let Some((id, h)) = tris4.first(ray, pk, t_min, t_hi, cull) {
                if precedes(id, h.t, best.map(|(bid, bh)| (bid, bh.t))) {
                    best = Some((id, h));
                    t_hi = h.t;
                }
            }
        }
        best
    }

    #[inline(always)]
    fn first_hit_impl<const FAST: bool>(
        &self,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
        stack: &mut MeshStack,
    ) -> Option<(u32, TriHit)> {
        let tris4 = Pack4Ray::new(ray);
        if self.is_single_leaf() {
            // A single leaf (a small mesh): no box test, no stack.
            return self.leaf_first(ray, &tris4, self.root, t_min, t_max, cull);
        }
        let boxes = QuadTest::new::<FAST>(ray, t_min);
        let mut best: Option<(u32, TriHit)> = None;
        let mut t_hi = t_max;
        // Box pruning bound: t_hi plus a little slack (see PRUNE_SLACK).
        let mut prune = t_max;
        let (mut index, mut count) = self.root;
        loop {
            if count == 0 {
                let q = &self.quads[index as usize];
                let (mask, near) = boxes.test::<FAST>(q, prune);
                if mask != 0 {
                    let near = near.to_array();
                    let mut first = mask.trailing_zeros() as usize;
                    let rest = mask & (mask - 1);
                    if rest != 0 {
                        let second = rest.trailing_zeros() as usize;
                        if rest & (rest - 1) == 0 {
                            // Two children hit: nearer first (lower lane on
                            // ties), branch-free.
                            let swap = near[second] < near[first];
                            let (a, b) = if swap {
                                (second, first)
                            } else {
                                (first, second)
                            };
                            stack.push((q.index[b], q.count[b], near[b]));
                            first = a;
                        } else {
                            // Three or four: push all but the nearest,
                            // farthest first, so they pop front to back
                            // (equal distances: the higher lane first).
                            let mut order = [(0f32, 0usize); 4];
                            let mut n = 0;
                            let mut m = mask;
                            while m != 0 {
                                let k = m.trailing_zeros() as usize;
                                m &= m - 1;
                                n = insert_desc(&mut order, n, near[k], k);
                            }
                            for &(d, k) in &order[..n - 1] {
                                stack.push((q.index[k], q.count[k], d));
                            }
                            first = order[n - 1].1;
                        }
                    }
                    (index, count) = (q.index[first], q.count[first]);
                    continue;
                }
            } else if let Some(hit) =
                self.leaf_first(ray, &tris4, (index, count), t_min, t_hi, cull)
            {
                keep_closest(&mut best, &mut t_hi, &mut prune, hit);
            }
            // Pop the next node still in range.
            loop {
                let Some((i, c, t_enter)) = stack.pop() else {
                    return best;
                };
                if t_enter <= prune {
                    (index, count) = (i, c);
                    break;
                }
            }
        }
    }

    /// [`Bvh::first_hit_in`] for up to four rays at once (`None` lanes are
    /// skipped), each with its own cull mode and range end: one walk of
    /// the tree, the nodes any of the rays enters, with every box and
    /// triangle test made per ray exactly as the one-ray traversal makes it
    /// (a ray tests a child only where its own box test passes, with its
    /// own pruning bound), so each lane's answer is the one
    /// [`Bvh::first_hit_in`] gives for its ray. Coherent rays (neighbouring
    /// pixels) share most of their walk; the walk's bookkeeping is paid
    /// once for the four.
    #[inline(always)]
    pub(crate) fn first_hit_x4(
        &self,
        rays: [Option<(&RayPrecomp, CullMode)>; 4],
        t_min: f32,
        t_max: [f32; 4],
        stack: &mut PacketStack,
        single: &mut MeshStack,
    ) -> [Option<(u32, TriHit)>; 4] {
        let mut out = [None; 4];
        let mut live = 0u32;
        let mut fast = true;
        for (r, ray) in rays.iter().enumerate() {
            if let Some((ray, _)) = ray {
                if !self.is_empty() && ray.is_valid() && t_min <= t_max[r] {
                    live |= 1 << r;
                    fast &= ray.inv_dir().is_finite() && t_min >= 0.0;
                }
            }
        }
        if live == 0 {
            return out;
        }
        if !fast || self.is_single_leaf() {
            // zero direction components (the generic slab), or a single
            // leaf (no tree to share): one ray at a time
            for (r, ray) in rays.iter().enumerate() {
                if let (true, Some((ray, cull))) = (live >> r & 1 != 0, ray) {
                    out[r] = self.first_hit_in(ray, t_min, t_max[r], *cull, single);
                }
            }
            return out;
        }
        // per-ray constants (lanes outside `live` are filled with the first
        // live ray's and never read)
        let Some(first) = rays[live.trailing_zeros() as usize] else {
            return out;
        };
        // (written out: `array::from_fn` and `map` here compiled to
        // outlined calls)
        let lane = |r: usize| rays[r].unwrap_or(first);
        let (l0, l1, l2, l3) = (lane(0), lane(1), lane(2), lane(3));
        let pre: [&RayPrecomp; 4] = [l0.0, l1.0, l2.0, l3.0];
        let cull: [CullMode; 4] = [l0.1, l1.1, l2.1, l3.1];
        let quad = |r: usize| QuadTest::new::<true>(pre[r], t_min);
        let boxes: [QuadTest; 4] = [quad(0), quad(1), quad(2), quad(3)];
        let pack = |r: usize| Pack4Ray::new(pre[r]);
        let tris4: [Pack4Ray; 4] = [pack(0), pack(1), pack(2), pack(3)];
        let mut t_hi = t_max;
        let mut prune = t_max;
        stack.clear();
        let (mut index, mut count) = self.root;
        let mut mask = live;
        loop {
            if count == 0 {
                let q = &self.quads[index as usize];
                // ray r's hits in bits 4r..4r+4 (bit 4r + k: child k), its
                // entry distances (lanes: children) and, per child, the
                // nearest entry over the rays
                let mut hits = 0u32;
                let mut near = [Vec4::INFINITY; 4];
                for r in set_bits(mask) {
                    let (hit, n) = boxes[r].test::<true>(q, prune[r]);
                    hits |= hit << (4 * r);
                    near[r] = n;
                }
                if hits != 0 {
                    // per child k, the rays entering it: bits k, k+4, k+8,
                    // k+12 gathered into bits 12..16 by one multiplication
                    // (the sixteen partial products land on distinct bits)
                    let rays_of = |k: usize| ((((hits >> k) & 0x1111) * 0x1248) >> 12) & 0xf;
                    let kids = (hits | hits >> 4 | hits >> 8 | hits >> 12) & 0xf;
                    // lanes: children; columns after the transpose: per child the rays
                    let by_kid = Mat4::from_cols(near[0], near[1], near[2], near[3]).transpose();
                    // children front to back by their nearest entry over the rays
                    let mut order = [(0f32, 0usize); 4];
                    let mut n = 0;
                    for k in set_bits(kids) {
                        self.prefetch((q.index[k], q.count[k]));
                        // (a ray that misses child k still brings its slab
                        // distance: the order only steers pruning, any
                        // order gives the same answers)
                        n = insert_desc(&mut order, n, by_kid.col(k).min_element(), k);
                    }
                    for &(_, k) in &order[..n - 1] {
                        stack.push((q.index[k], q.count[k], rays_of(k), by_kid.col(k)));
                    }
                    let k = order[n - 1].1;
                    (index, count, mask) = (q.index[k], q.count[k], rays_of(k));
                    continue;
                }
            } else {
                for r in set_bits(mask) {
                    if let Some(hit) =
                        self.leaf_first(pre[r], &tris4[r], (index, count), t_min, t_hi[r], cull[r])
                    {
                        keep_closest(&mut out[r], &mut t_hi[r], &mut prune[r], hit);
                    }
                }
            }
            // Pop the next node still in range of one of its rays.
            loop {
                let Some((i, c, rm, t_enter)) = stack.pop() else {
                    return out;
                };
                let still = rm & t_enter.cmple(Vec4::from_array(prune)).bitmask();
                if still != 0 {
                    (index, count, mask) = (i, c, still);
                    break;
                }
            }
        }
    }

    /// [`Bvh::first_hit_in`] for eight rays with one cull mode and range
    /// (bit r of `live`: ray r is to be traced): one walk of the tree for
    /// the eight, each box tested for the eight rays side by side (the
    /// same per-ray operations as the one-ray walk's), each triangle test
    /// made per ray, each ray pruned by its own closest hit; so lane r
    /// holds what [`Bvh::first_hit_in`] gives for
    /// `RayPrecomp::new(rays.origin(r), rays.dir(r))`. That precomputation
    /// is made for a ray when it first reaches a leaf (a ray that misses
    /// every box never needs it). Rays whose direction signs differ, or
    /// that the fast box test cannot take, go through
    /// [`Bvh::first_hit_x4`] four at a time.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn first_hit_x8(
        &self,
        rays: &Rays8,
        live: u32,
        cull: CullMode,
        t_min: f32,
        t_max: f32,
        stacks: (&mut Packet8Stack, &mut PacketStack, &mut MeshStack),
        avx2: Avx2,
    ) -> [Option<(u32, TriHit)>; 8] {
        let mut out = [None; 8];
        // The validity `RayPrecomp::new` finds (finite origin and
        // direction, non-zero direction), lane by lane, and the inverse
        // directions as it computes them.
        let (mut zero, mut len) = ([0f32; 8], [0f32; 8]);
        let mut inv = [[0f32; 8]; 3];
        for ((o, d), inv) in rays.o.iter().zip(&rays.d).zip(&mut inv) {
            for r in 0..8 {
                zero[r] += o[r] * 0.0 + d[r] * 0.0; // NaN unless finite
                len[r] += d[r].abs();
                inv[r] = 1.0 / d[r];
            }
        }
        let finite = avx2.le_mask(&zero, &[0.0; 8]);
        let zero_dir = avx2.le_mask(&len, &[0.0; 8]);
        let live = live & finite & !zero_dir & 0xff;
        if live == 0 || self.is_empty() || !(t_min <= t_max) {
            return out;
        }
        let (stack, stack4, single) = stacks;
        let packet = (t_min >= 0.0 && !self.is_single_leaf())
            .then(|| Packet8::new(rays, &inv, live, t_min, avx2))
            .flatten();
        let Some(packet) = packet else {
            for half in 0..2 {
                let pre =
                    |r: usize| RayPrecomp::new(rays.origin(4 * half + r), rays.dir(4 * half + r));
                let pres = [pre(0), pre(1), pre(2), pre(3)];
                let lane = |r: usize| (live >> (4 * half + r) & 1 != 0).then_some((&pres[r], cull));
                let hits = self.first_hit_x4(
                    [lane(0), lane(1), lane(2), lane(3)],
                    t_min,
                    [t_max; 4],
                    stack4,
                    single,
                );
                out[4 * half..4 * half + 4].copy_from_slice(&hits);
            }
            return out;
        };
        // each ray's triangle-test constants, once it reaches a leaf
        let mut prep: [Option<(RayPrecomp, Pack4Ray)>; 8] =
            [None, None, None, None, None, None, None, None];
        let mut t_hi = [t_max; 8];
        let mut prune = [t_max; 8];
        stack.clear();
        let (mut index, mut count) = self.root;
        let mut mask = live;
        loop {
            if count == 0 {
                let q = &self.quads[index as usize];
                // (the four children written out: a loop over them kept
                // its index in a register and chose addresses by branches)
                let tests = [
                    packet.test::<0>(q, &prune),
                    packet.test::<1>(q, &prune),
                    packet.test::<2>(q, &prune),
                    packet.test::<3>(q, &prune),
                ];
                let mut order = [(0f32, 0usize); 4];
                let mut n = 0;
                let mut rays_of = [0u32; 4];
                for (k, (bits, d)) in tests.iter().enumerate() {
                    rays_of[k] = bits & mask;
                    if rays_of[k] != 0 {
                        self.prefetch((q.index[k], q.count[k]));
                        // children front to back by their nearest entry
                        // (the order only steers pruning: any order gives
                        // the same answers)
                        n = insert_desc(&mut order, n, avx2.min(d), k);
                    }
                }
                if n != 0 {
                    for &(_, k) in &order[..n - 1] {
                        stack.push((q.index[k], q.count[k], rays_of[k], tests[k].1));
                    }
                    let k = order[n - 1].1;
                    (index, count, mask) = (q.index[k], q.count[k], rays_of[k]);
                    continue;
                }
            } else {
                for r in set_bits(mask) {
                    // (not `get_or_insert_with`, which compiled to an
                    // outlined call)
                    if prep[r].is_none() {
                        let pre = RayPrecomp::new(rays.origin(r), rays.dir(r));
                        let tris = Pack4Ray::new(&pre);
                        prep[r] = Some((pre, tris));
                    }
                    let Some((pre, tris)) = &prep[r] else {
                        continue;
                    };
                    if let Some(hit) =
                        self.leaf_first(pre, tris, (index, count), t_min, t_hi[r], cull)
                    {
                        keep_closest(&mut out[r], &mut t_hi[r], &mut prune[r], hit);
                    }
                }
            }
            // Pop the next node still in range of one of its rays.
            loop {
                let Some((i, c, rm, t_enter)) = stack.pop() else {
                    return out;
                };
                let still = rm & avx2.le_mask(&t_enter, &prune);
                if still != 0 {
                    (index, count, mask) = (i, c, still);
                    break;
                }
            }
        }
    }

    /// Appends every hit of `ray` with `t_min <= t <= t_max` among the
    /// non-culled triangles to `out` as `(triangle index, hit)`, then sorts
    /// `out` by `(t, triangle index)` (the whole of `out`, so pass an empty
    /// vector unless merging is intended). Reads the leaves' triangle
    /// packs, not the mesh arrays.
    pub fn all_hits(
        &self,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
        out: &mut Vec<(u32, TriHit)>,
    ) {
        let range_ok = t_min <= t_max; // false for NaN
        if !self.is_empty() && ray.is_valid() && range_ok {
            let boxes = QuadTest::new::<false>(ray, t_min);
            // Pending siblings along the path (<= MAX_DEPTH) plus the
            // children of the node just popped.
            let mut stack = [(0u32, 0u32); MAX_DEPTH as usize + 4];
            let mut sp = 1usize;
            stack[0] = self.root;
            while sp > 0 {
                sp -= 1;
                let (index, count) = stack[sp];
                if count == 0 {
                    let q = &self.quads[index as usize];
                    let (mut mask, _) = boxes.test::<false>(q, t_max);
                    while mask != 0 {
                        let k = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        stack[sp] = (q.index[k], q.count[k]);
                        sp += 1;
                    }
                } else {
                    for pk in self.packs_of((index, count)) {
                        let mut lanes = pk.used;
                        while lanes != 0 {
                            let k = lanes.trailing_zeros() as usize;
                            lanes &= lanes - 1;
                            let [a, b, c] = pk.corners(k);
                            if let Some(h) = intersect(ray, a, b, c, t_min, t_max, cull) {
                                out.push((pk.id[k], h));
                            }
                        }
                    }
                }
            }
        }
        out.sort_by(|a, b| a.1.t.total_cmp(&b.1.t).then(a.0.cmp(&b.0)));
    }

    /// Checks the structure against the mesh it was built from: every node's
    /// bounds contain its children (interior) or its triangles (leaf), the
    /// tree is well formed (indices in range, every node reached once, depth
    /// and traversal stack within `MAX_DEPTH` (64)), and every valid triangle
    /// (finite coordinates, in-range indices) appears in exactly one leaf
    /// while no invalid one appears at all; every leaf's packs hold its
    /// triangles' corners (and padding only after them), each pack in one
    /// leaf.
    pub fn validate(&self, positions: &[Vec3], tris: &[[u32; 3]]) -> Result<(), String> {
        let valid = |t: &[u32; 3]| {
            t.iter().all(|&i| {
                positions
                    .get(i as usize)
                    .is_some_and(|p: &Vec3| p.is_finite())
            })
        };
        let n_valid = tris.iter().filter(|t| valid(t)).count();
        if self.is_empty() {
            return if n_valid == 0 && self.quads.is_empty() && self.root_bounds.is_empty() {
                Ok(())
            } else {
                Err(format!("empty tree but {n_valid} valid triangles"))
            };
        }
        let mut seen = vec![false; tris.len()];
        let mut visited = vec![false; self.quads.len()];
        let mut pack_covered = vec![false; self.packs.len()];
        // (reference, bounds, level, stack entries pushed above, parent quad)
        let mut todo = vec![(self.root, self.root_bounds, 1u32, 0u32, usize::MAX)];
        let (mut count, mut max_depth) = (0usize, 0u32);
        while let Some(((index, n), bounds, d, stack, parent)) = todo.pop() {
            count += 1;
            max_depth = max_depth.max(d);
            if d > MAX_DEPTH || stack > MAX_DEPTH {
                return Err(format!("node at depth {d} needs a stack of {stack}"));
            }
            if bounds.is_empty() || !bounds.min.is_finite() || !bounds.max.is_finite() {
                return Err(format!("node has bad bounds {bounds:?}"));
            }
            if n == 0 {
                let i = index as usize;
                let q = self.quads.get(i).ok_or(format!("quad {i} out of range"))?;
                if parent != usize::MAX && i <= parent {
                    return Err(format!("quad {i} does not follow its parent {parent}"));
                }
                if std::mem::replace(&mut visited[i], true) {
                    return Err(format!("quad {i} reached twice"));
                }
                let used: Vec<usize> = (0..4).filter(|&k| q.lane_used(k)).collect();
                if used.len() < 2 || used.iter().enumerate().any(|(j, &k)| j != k) {
                    return Err(format!("quad {i} uses lanes {used:?}"));
                }
                let pushed = stack + used.len() as u32 - 1;
                for k in used {
                    let cb = q.child_bounds(k);
                    if !bounds.contains(&cb) {
                        return Err(format!("node does not contain child {k} of quad {i}"));
                    }
                    todo.push(((q.index[k], q.count[k]), cb, d + 1, pushed, i));
                }
            } else {
                let (first, n) = (index as usize, n as usize);
                let packs = self
                    .packs
                    .get(first..first + n.div_ceil(4))
                    .ok_or(format!("leaf pack range {first}+{n} out of bounds"))?;
                for (j, pk) in packs.iter().enumerate() {
                    if std::mem::replace(&mut pack_covered[first + j], true) {
                        return Err(format!("pack {} in two leaves", first + j));
                    }
                    // the leading lanes hold the leaf's triangles, the rest is padding
                    let lanes = (n - 4 * j).min(4);
                    let ids_ok = (0..4).all(|l| (pk.id[l] == u32::MAX) == (l >= lanes));
                    if pk.used != (1 << lanes) - 1 || !ids_ok {
                        return Err(format!("pack {} has lanes {:#b}", first + j, pk.used));
                    }
                }
                for (lane, id) in self.leaf_ids((index, n as u32)).enumerate() {
                    let id = id as usize;
                    let t = tris.get(id).ok_or(format!("bad triangle index {id}"))?;
                    if !valid(t) {
                        return Err(format!("invalid triangle {id} indexed"));
                    }
                    if std::mem::replace(&mut seen[id], true) {
                        return Err(format!("triangle {id} indexed twice"));
                    }
                    let mut tb = Aabb::empty();
                    t.iter().for_each(|&v| tb.grow(positions[v as usize]));
                    if !bounds.contains(&tb) {
                        return Err(format!("leaf does not contain triangle {id}"));
                    }
                    let corners = t.map(|v| positions[v as usize]);
                    if packs[lane / 4].corners(lane % 4) != corners {
                        return Err(format!("pack corners of triangle {id} differ"));
                    }
                }
            }
        }
        if count != self.node_count || max_depth != self.depth {
            return Err(format!(
                "node_count/depth {}/{} but found {count}/{max_depth}",
                self.node_count, self.depth
            ));
        }
        if visited.iter().any(|v| !v) {
            return Err("unreachable quad".into());
        }
        if pack_covered.iter().any(|c| !c) {
            return Err("pack not referenced by any leaf".into());
        }
        let missing = tris
            .iter()
            .zip(&seen)
            .filter(|(t, s)| valid(t) && !**s)
            .count();
        if missing > 0 {
            return Err(format!("{missing} valid triangles missing"));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Build internals.

/// SIMD-friendly box used during the build.
#[derive(Clone, Copy, Debug)]
struct Box3 {
    lo: Vec3A,
    hi: Vec3A,
}

impl Box3 {
    const EMPTY: Box3 = Box3 {
        lo: Vec3A::INFINITY,
        hi: Vec3A::NEG_INFINITY,
    };

    #[inline(always)]
    fn union(&self, o: &Box3) -> Box3 {
        Box3 {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    #[inline(always)]
    fn grow(&self, p: Vec3A) -> Box3 {
        Box3 {
            lo: self.lo.min(p),
            hi: self.hi.max(p),
        }
    }

    #[inline(always)]
    fn center(&self) -> Vec3A {
        self.lo * 0.5 + self.hi * 0.5
    }

    /// Half the surface area; callers only use it on non-empty boxes.
    #[inline(always)]
    fn half_area(&self) -> f32 {
        let d = self.hi - self.lo;
        (d * d.yzx()).element_sum()
    }
}

#[derive(Clone, Copy)]
struct Bin {
    /// Bounds of the triangles in the bin.
    bounds: Box3,
    /// Bounds of their centroids.
    cb: Box3,
    count: u32,
}

const EMPTY_BIN: Bin = Bin {
    bounds: Box3::EMPTY,
    cb: Box3::EMPTY,
    count: 0,
};

/// Per-axis SAH bins; only the first `nb` of each axis are in use.
#[derive(Clone, Copy)]
struct Bins([[Bin; BINS]; 3]);

impl Bins {
    const EMPTY: Bins = Bins([[EMPTY_BIN; BINS]; 3]);

    fn reset(&mut self, grid: &BinGrid) {
        for axis in grid.axes() {
            self.0[axis][..grid.nb].fill(EMPTY_BIN);
        }
    }

    /// Adds `r` to its bin on every axis (`ALL`) or on `AXIS` only; returns
    /// the bin on `AXIS` (meaningless with `ALL`).
    #[inline(always)]
    fn add<const ALL: bool, const AXIS: usize>(&mut self, r: &Box3, grid: &BinGrid) -> u8 {
        let c = r.center();
        if ALL {
            for (axis, bin) in grid.bins_of(r).into_iter().enumerate() {
                let b = &mut self.0[axis][bin];
                b.bounds = b.bounds.union(r);
                b.cb = b.cb.grow(c);
                b.count += 1;
            }
            0
        } else {
            let bin = grid.bin_on::<AXIS>(r);
            let b = &mut self.0[AXIS][bin];
            b.bounds = b.bounds.union(r);
            b.cb = b.cb.grow(c);
            b.count += 1;
            bin as u8
        }
    }

    fn merge(&mut self, o: &Bins, grid: &BinGrid) {
        for axis in grid.axes() {
            let nb = grid.nb;
            for (s, b) in self.0[axis][..nb].iter_mut().zip(&o.0[axis][..nb]) {
                s.bounds = s.bounds.union(&b.bounds);
                s.cb = s.cb.union(&b.cb);
                s.count += b.count;
            }
        }
    }

    /// Bins `refs` (two interleaved bin sets hide the store-to-load latency
    /// of consecutive triangles landing in the same bin; the merge is exact,
    /// so the result does not depend on the interleaving). When binning a
    /// single axis, also records each triangle's bin in `tags`.
    fn fill(&mut self, other: &mut Bins, refs: &[Box3], tags: &mut [u8], grid: &BinGrid) {
        match (grid.all_axes, grid.axis) {
            (true, _) => self.fill_impl::<true, 0>(other, refs, tags, grid),
            (false, 0) => self.fill_impl::<false, 0>(other, refs, tags, grid),
            (false, 1) => self.fill_impl::<false, 1>(other, refs, tags, grid),
            _ => self.fill_impl::<false, 2>(other, refs, tags, grid),
        }
    }

    fn fill_impl<const ALL: bool, const AXIS: usize>(
        &mut self,
        other: &mut Bins,
        refs: &[Box3],
        tags: &mut [u8],
        grid: &BinGrid,
    ) {
        self.reset(grid);
        if ALL {
            refs.iter().for_each(|r| {
                self.add::<ALL, AXIS>(r, grid);
            });
            return;
        }
        other.reset(grid);
        let mut pairs = refs.chunks_exact(2);
        let mut tag_pairs = tags.chunks_exact_mut(2);
        for (p, t) in (&mut pairs).zip(&mut tag_pairs) {
            t[0] = self.add::<ALL, AXIS>(&p[0], grid);
            t[1] = other.add::<ALL, AXIS>(&p[1], grid);
        }
        if let ([r], [t]) = (pairs.remainder(), tag_pairs.into_remainder()) {
            *t = self.add::<ALL, AXIS>(r, grid);
        }
        self.merge(other, grid);
    }
}

/// Scratch space of one build task.
struct Scratch {
    bins: Bins,
    spare: Bins,
    /// Per-triangle bin on the binned axis (single-axis nodes).
    tags: Vec<u8>,
}

impl Scratch {
    fn new() -> Box<Scratch> {
        Box::new(Scratch {
            bins: Bins::EMPTY,
            spare: Bins::EMPTY,
            tags: Vec::new(),
        })
    }
}

/// Maps centroids to bins: `bin = round((c - origin) * scale)` clamped to
/// `[0, nb - 1]` (any monotone rule works; this one converts to an integer
/// cheaply, via the 2^23 trick).
#[derive(Clone, Copy)]
struct BinGrid {
    origin: Vec3A,
    scale: Vec3A,
    /// Bins in use (`<= BINS`).
    nb: usize,
    /// Bin on all three axes, or only on `axis`.
    all_axes: bool,
    axis: usize,
}

impl BinGrid {
    /// The axes being binned.
    fn axes(&self) -> std::ops::Range<usize> {
        if self.all_axes {
            0..3
        } else {
            self.axis..self.axis + 1
        }
    }

    /// The triangle's bin on each axis. Binning and partitioning both use
    /// this, so they agree exactly.
    #[inline(always)]
    fn bins_of(&self, r: &Box3) -> [usize; 3] {
        const MAGIC: f32 = 8388608.0; // 2^23: adding it rounds to an integer
        let top = Vec3A::splat((self.nb - 1) as f32);
        let f = ((r.center() - self.origin) * self.scale)
            .max(Vec3A::ZERO)
            .min(top)
            + Vec3A::splat(MAGIC);
        // The final `min` also keeps a (never used) NaN lane in range.
        f.to_array()
            .map(|x| ((x.to_bits() & 0xFF) as usize).min(self.nb - 1))
    }

    /// `bins_of(r)[AXIS]`, computed with the same operations.
    #[inline(always)]
    fn bin_on<const AXIS: usize>(&self, r: &Box3) -> usize {
        const MAGIC: f32 = 8388608.0;
        let top = Vec3A::splat((self.nb - 1) as f32);
        let f = ((r.center() - self.origin) * self.scale)
            .max(Vec3A::ZERO)
            .min(top)
            + Vec3A::splat(MAGIC);
        let x = match AXIS {
            0 => f.x,
            1 => f.y,
            _ => f.z,
        };
        ((x.to_bits() & 0xFF) as usize).min(self.nb - 1)
    }
}

/// Result of splitting a node.
enum Split {
    Leaf,
    Inner {
        mid: usize,
        left: (Box3, Box3),
        right: (Box3, Box3),
    },
}

/// A child reference: `(pair index, 0)` for an interior node, `(first
/// primitive, count)` for a leaf.
type ChildRef = (u32, u32);

/// Sub-tree produced by the parallel builder (collapsed into quads in a fixed
/// order afterwards).
enum Sub {
    /// A serially built sub-tree with chunk-local pair indices.
    Chunk { root: ChildRef, pairs: Vec<Pair> },
    /// A node split in parallel.
    Inner {
        bounds: (Box3, Box3),
        children: Box<(Sub, Sub)>,
    },
}

impl Sub {
    fn pair_count(&self) -> usize {
        match self {
            Sub::Chunk { pairs, .. } => pairs.len(),
            Sub::Inner { children, .. } => 1 + children.0.pair_count() + children.1.pair_count(),
        }
    }
}

fn build_par(
    refs: &mut [Box3],
    ids: &mut [u32],
    base: u32,
    bounds: Box3,
    cbounds: Box3,
    depth: u32,
) -> Sub {
    let n = refs.len();
    let mut scratch = Scratch::new();
    if n < PAR_BUILD_MIN {
        let mut b = Builder {
            pairs: Vec::with_capacity(n / 2),
            scratch: &mut scratch,
        };
        let root = b.build(refs, ids, base, bounds, cbounds, depth);
        return Sub::Chunk {
            root,
            pairs: b.pairs,
        };
    }
    match split(&mut scratch, refs, ids, bounds, cbounds, depth, true) {
        Split::Leaf => Sub::Chunk {
            root: (base, n as u32),
            pairs: Vec::new(),
        },
        Split::Inner { mid, left, right } => {
            drop(scratch);
            let (rl, rr) = refs.split_at_mut(mid);
            let (il, ir) = ids.split_at_mut(mid);
            let children = rayon::join(
                || build_par(rl, il, base, left.0, left.1, depth + 1),
                || build_par(rr, ir, base + mid as u32, right.0, right.1, depth + 1),
            );
            Sub::Inner {
                bounds: (left.0, right.0),
                children: Box::new(children),
            }
        }
    }
}

/// Serial depth-first builder of one chunk.
struct Builder<'a> {
    pairs: Vec<Pair>,
    scratch: &'a mut Scratch,
}

impl Builder<'_> {
    fn build(
        &mut self,
        refs: &mut [Box3],
        ids: &mut [u32],
        base: u32,
        bounds: Box3,
        cbounds: Box3,
        depth: u32,
    ) -> ChildRef {
        match split(self.scratch, refs, ids, bounds, cbounds, depth, false) {
            Split::Leaf => (base, refs.len() as u32),
            Split::Inner { mid, left, right } => {
                let p = self.pairs.len();
                self.pairs.push(Pair::with_bounds(&left.0, &right.0));
                let (rl, rr) = refs.split_at_mut(mid);
                let (il, ir) = ids.split_at_mut(mid);
                let l = self.build(rl, il, base, left.0, left.1, depth + 1);
                let base_r = base + mid as u32;
                let r = self.build(rr, ir, base_r, right.0, right.1, depth + 1);
                self.pairs[p].set_children(l, r);
                (p as u32, 0)
            }
        }
    }
}

/// Levels needed below a node of `n` triangles with count-median splits.
fn median_height(n: usize) -> u32 {
    let mut h = 1;
    let mut n = n;
    while n > LEAF_MIN {
        n = n.div_ceil(2);
        h += 1;
    }
    h
}

/// Decides how to split the node holding `refs`/`ids` (reordering them) and
/// returns the children's triangle and centroid bounds.
fn split(
    scratch: &mut Scratch,
    refs: &mut [Box3],
    ids: &mut [u32],
    bounds: Box3,
    cbounds: Box3,
    depth: u32,
    parallel: bool,
) -> Split {
    let n = refs.len();
    if n <= LEAF_MIN {
        return Split::Leaf;
    }
    if depth + median_height(n) > MAX_DEPTH {
        // Unreachable for ordinary meshes: an adversarial centroid
        // distribution made the SAH chain too deep. Object median keeps the
        // rest of the sub-tree balanced.
        return object_median_split(refs, ids, cbounds);
    }
    // Small nodes use fewer bins (one per triangle): same quality, less
    // per-node work.
    let nb = (n / 4).clamp(4, BINS);
    let extent = cbounds.hi - cbounds.lo;
    let scale = Vec3A::splat(nb as f32) / extent;
    let mut axis_ok = extent.cmpgt(Vec3A::ZERO) & scale.is_finite_mask();
    if !axis_ok.any() {
        // All centroids (numerically) coincide.
        return count_median_split(refs, n / 2);
    }
    // Large nodes bin only along the widest centroid extent (a third of the
    // work; the SAH choice of axis rarely differs there).
    let all_axes = n < ALL_AXES_BELOW;
    let widest = Vec3A::select(axis_ok, extent, Vec3A::ZERO).max_position();
    if !all_axes {
        axis_ok = BVec3A::new(widest == 0, widest == 1, widest == 2);
    }
    let grid = BinGrid {
        origin: cbounds.lo,
        scale: Vec3A::select(axis_ok, scale, Vec3A::ZERO),
        nb,
        all_axes,
        axis: widest,
    };
    let Scratch { bins, spare, tags } = scratch;
    tags.resize(if all_axes { 0 } else { n }, 0);
    if parallel && n >= PAR_BIN_MIN {
        use rayon::prelude::*;
        *bins = refs
            .par_chunks(1 << 14)
            .zip(tags.par_chunks_mut(1 << 14))
            .map(|(chunk, tags)| {
                let mut s = Scratch::new();
                let Scratch { bins, spare, .. } = &mut *s;
                bins.fill(spare, chunk, tags, &grid);
                s
            })
            .reduce(
                || {
                    let mut s = Scratch::new();
                    s.bins.reset(&grid);
                    s
                },
                |mut a, b| {
                    a.bins.merge(&b.bins, &grid);
                    a
                },
            )
            .bins;
    } else {
        bins.fill(spare, refs, tags, &grid);
    }
    let bins = &*bins;

    // SAH sweep: cost(split after bin i) = area_l * n_l + area_r * n_r.
    let axis_ok = [axis_ok.test(0), axis_ok.test(1), axis_ok.test(2)];
    let mut best = (f32::INFINITY, 0usize, 0usize);
    for (axis, bins) in bins.0.iter().enumerate() {
        if !axis_ok[axis] {
            continue;
        }
        let bins = &bins[..nb];
        let mut right_cost = [0f32; BINS];
        let (mut acc, mut cnt) = (Box3::EMPTY, 0u32);
        for i in (1..nb).rev() {
            acc = acc.union(&bins[i].bounds);
            cnt += bins[i].count;
            right_cost[i - 1] = if cnt == 0 {
                f32::NAN
            } else {
                acc.half_area() * cnt as f32
            };
        }
        let (mut acc, mut cnt) = (Box3::EMPTY, 0u32);
        for i in 0..nb - 1 {
            acc = acc.union(&bins[i].bounds);
            cnt += bins[i].count;
            if cnt == 0 {
                continue;
            }
            let cost = acc.half_area() * cnt as f32 + right_cost[i];
            if cost < best.0 {
                best = (cost, axis, i);
            }
        }
    }
    let (best_cost, axis, split_bin) = best;
    if !best_cost.is_finite() {
        // Cannot happen (extreme bins are never empty) but stay safe.
        return count_median_split(refs, n / 2);
    }
    let node_area = bounds.half_area();
    let leaf_cost = n as f32 * node_area;
    if n <= LEAF_MAX && leaf_cost <= COST_TRAVERSAL * node_area + best_cost {
        return Split::Leaf;
    }

    // Partition in place (same arithmetic as the binning).
    // Untouched positions use the bins recorded while binning (`tags`).
    let tagged = |j: usize, _: &Box3| tags[j] as usize <= split_bin;
    let i = match (all_axes, axis) {
        (false, _) => match axis {
            0 => partition(refs, ids, tagged, |r| grid.bin_on::<0>(r) <= split_bin),
            1 => partition(refs, ids, tagged, |r| grid.bin_on::<1>(r) <= split_bin),
            _ => partition(refs, ids, tagged, |r| grid.bin_on::<2>(r) <= split_bin),
        },
        (true, 0) => partition(
            refs,
            ids,
            |_, r| grid.bin_on::<0>(r) <= split_bin,
            |r| grid.bin_on::<0>(r) <= split_bin,
        ),
        (true, 1) => partition(
            refs,
            ids,
            |_, r| grid.bin_on::<1>(r) <= split_bin,
            |r| grid.bin_on::<1>(r) <= split_bin,
        ),
        _ => partition(
            refs,
            ids,
            |_, r| grid.bin_on::<2>(r) <= split_bin,
            |r| grid.bin_on::<2>(r) <= split_bin,
        ),
    };
    if i == 0 || i == n {
        return count_median_split(refs, n / 2);
    }
    let sides = &bins.0[axis];
    let side = |bins: &[Bin]| {
        bins.iter().fold((Box3::EMPTY, Box3::EMPTY), |(b, c), bin| {
            (b.union(&bin.bounds), c.union(&bin.cb))
        })
    };
    Split::Inner {
        mid: i,
        left: side(&sides[..=split_bin]),
        right: side(&sides[split_bin + 1..nb]),
    }
}

/// Reorders `refs`/`ids` so that the elements with `left(r)` come first and
/// returns their count. Deterministic and branch-free in the classification:
/// blocks from both ends are classified into offset buffers (as in
/// BlockQuicksort) and only misplaced pairs are swapped; the middle remainder
/// is finished with a branch-free Lomuto pass.
///
/// `left_at(j, r)` classifies the element at position `j` while it is still
/// at its original position (the block phase only reads untouched positions);
/// `left` classifies an element wherever it is.
#[inline(always)]
fn partition(
    refs: &mut [Box3],
    ids: &mut [u32],
    left_at: impl Fn(usize, &Box3) -> bool,
    left: impl Fn(&Box3) -> bool,
) -> usize {
    const B: usize = 64;
    let (mut l, mut r) = (0usize, refs.len());
    let mut off_l = [0u8; B];
    let mut off_r = [0u8; B];
    let (mut nl, mut nr, mut sl, mut sr) = (0usize, 0usize, 0usize, 0usize);
    while r - l >= 2 * B {
        if nl == 0 {
            sl = 0;
            for (k, r) in refs[l..l + B].iter().enumerate() {
                off_l[nl] = k as u8;
                nl += !left_at(l + k, r) as usize;
            }
        }
        if nr == 0 {
            sr = 0;
            for (k, x) in refs[r - B..r].iter().rev().enumerate() {
                off_r[nr] = k as u8;
                nr += left_at(r - 1 - k, x) as usize;
            }
        }
        let m = nl.min(nr);
        for k in 0..m {
            let a = l + off_l[sl + k] as usize;
            let b = r - 1 - off_r[sr + k] as usize;
            refs.swap(a, b);
            ids.swap(a, b);
        }
        (nl, nr, sl, sr) = (nl - m, nr - m, sl + m, sr + m);
        if nl == 0 {
            l += B;
        }
        if nr == 0 {
            r -= B;
        }
    }
    // Lomuto on [l, r): [l, i) left, [i, j) right.
    let mut i = l;
    for j in l..r {
        let go_left = left(&refs[j]);
        refs.swap(i, j);
        ids.swap(i, j);
        i += go_left as usize;
    }
    i
}

/// Splits at `mid` in the current order, computing the children's bounds.
fn count_median_split(refs: &[Box3], mid: usize) -> Split {
    let bounds_of = |rs: &[Box3]| {
        rs.iter().fold((Box3::EMPTY, Box3::EMPTY), |(b, c), r| {
            (b.union(r), c.grow(r.center()))
        })
    };
    Split::Inner {
        mid,
        left: bounds_of(&refs[..mid]),
        right: bounds_of(&refs[mid..]),
    }
}

/// Orders the triangles by centroid along the widest centroid axis (ties by
/// triangle index) and splits at the median.
fn object_median_split(refs: &mut [Box3], ids: &mut [u32], cbounds: Box3) -> Split {
    let axis = (cbounds.hi - cbounds.lo).max_position();
    let mut order: Vec<(f32, u32, Box3)> = refs
        .iter()
        .zip(ids.iter())
        .map(|(r, &id)| (r.center()[axis], id, *r))
        .collect();
    let mid = refs.len() / 2;
    order.select_nth_unstable_by(mid, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    for (k, (_, id, r)) in order.into_iter().enumerate() {
        refs[k] = r;
        ids[k] = id;
    }
    count_median_split(refs, mid)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::test_util::{grid, Rng};

    /// A uniform random point in a box.
    fn in_box(rng: &mut Rng, b: &Aabb) -> Vec3 {
        let t = rng.vec3(0.0, 1.0);
        b.min + (b.max - b.min) * t
    }

    type Mesh = (Vec<Vec3>, Vec<[u32; 3]>);

    /// UV sphere: 2 poles + (stacks-1) rings of `slices` vertices.
    fn uv_sphere(stacks: u32, slices: u32, center: Vec3, radius: f32) -> Mesh {
        let mut pos = vec![center + Vec3::Z * radius];
        for i in 1..stacks {
            let th = std::f32::consts::PI * i as f32 / stacks as f32;
            for j in 0..slices {
                let ph = std::f32::consts::TAU * j as f32 / slices as f32;
                let d = Vec3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos());
                pos.push(center + d * radius);
            }
        }
        pos.push(center - Vec3::Z * radius);
        let ring = |i: u32, j: u32| 1 + (i - 1) * slices + j % slices;
        let south = pos.len() as u32 - 1;
        let mut tris = Vec::new();
        for j in 0..slices {
            tris.push([0, ring(1, j), ring(1, j + 1)]);
            tris.push([south, ring(stacks - 1, j + 1), ring(stacks - 1, j)]);
        }
        for i in 1..stacks - 1 {
            for j in 0..slices {
                let (a, b, c, d) = (
                    ring(i, j),
                    ring(i + 1, j),
                    ring(i + 1, j + 1),
                    ring(i, j + 1),
                );
                tris.push([a, b, c]);
                tris.push([a, c, d]);
            }
        }
        (pos, tris)
    }

    /// Overlapping random triangles in [-1, 1]^3.
    fn soup(n: usize, rng: &mut Rng) -> Mesh {
        let mut pos = Vec::new();
        let mut tris = Vec::new();
        for i in 0..n as u32 {
            let c = rng.vec3(-1.0, 1.0);
            let s = rng.range(0.02, 0.6);
            for _ in 0..3 {
                pos.push(c + rng.vec3(-s, s));
            }
            tris.push([3 * i, 3 * i + 1, 3 * i + 2]);
        }
        (pos, tris)
    }

    fn tri_valid(pos: &[Vec3], t: &[u32; 3]) -> bool {
        t.iter()
            .all(|&i| pos.get(i as usize).is_some_and(|p| p.is_finite()))
    }

    fn brute_all(
        pos: &[Vec3],
        tris: &[[u32; 3]],
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
    ) -> Vec<(u32, TriHit)> {
        let mut v: Vec<(u32, TriHit)> = tris
            .iter()
            .enumerate()
            .filter(|(_, t)| tri_valid(pos, t))
            .filter_map(|(i, t)| {
                let [a, b, c] = t.map(|k| pos[k as usize]);
                intersect(ray, a, b, c, t_min, t_max, cull).map(|h| (i as u32, h))
            })
            .collect();
        v.sort_by(|a, b| a.1.t.total_cmp(&b.1.t).then(a.0.cmp(&b.0)));
        v
    }

    fn brute_first(
        pos: &[Vec3],
        tris: &[[u32; 3]],
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
    ) -> Option<(u32, TriHit)> {
        brute_all(pos, tris, ray, t_min, t_max, cull)
            .into_iter()
            .next()
    }

    /// Random rays: origins around the bounds, aimed at triangle interiors
    /// (mostly) or random points; random range and cull mode.
    fn random_ray(
        rng: &mut Rng,
        pos: &[Vec3],
        tris: &[[u32; 3]],
        b: &Aabb,
    ) -> (RayPrecomp, f32, f32, CullMode) {
        let grown = Aabb {
            min: b.min - (b.max - b.min),
            max: b.max + (b.max - b.min),
        };
        let o = if rng.below(4) == 0 {
            in_box(rng, b)
        } else {
            in_box(rng, &grown)
        };
        let target = if rng.below(4) == 0 {
            in_box(rng, b)
        } else {
            let t = loop {
                let t = tris[rng.below(tris.len())];
                if tri_valid(pos, &t) {
                    break t;
                }
            };
            let w = rng.vec3(0.0, 1.0) + Vec3::splat(1e-3);
            let w = w / w.element_sum();
            let [a, bb, c] = t.map(|k| pos[k as usize]);
            a * w.x + bb * w.y + c * w.z
        };
        let ray = RayPrecomp::new(o, (target - o) * rng.range(0.1, 3.0));
        let (t_min, t_max) = match rng.below(4) {
            0 => (rng.range(0.0, 1.0), f32::INFINITY),
            1 => (0.0, rng.range(0.5, 5.0)),
            2 => (f32::NEG_INFINITY, f32::INFINITY),
            _ => (0.0, f32::INFINITY),
        };
        let cull = [CullMode::None, CullMode::Back, CullMode::Front][rng.below(3)];
        (ray, t_min, t_max, cull)
    }

    /// Compares first_hit/all_hits with brute force; returns the hit count.
    fn check_against_brute_force(pos: &[Vec3], tris: &[[u32; 3]], rays: usize, seed: u64) -> usize {
        let bvh = Bvh::build(pos, tris);
        bvh.validate(pos, tris).unwrap();
        assert!(bvh.depth() <= MAX_DEPTH);
        let b = bvh.root_bounds();
        let mut rng = Rng(seed);
        let mut hits = 0;
        let mut all = Vec::new();
        for i in 0..rays {
            let (ray, t_min, t_max, cull) = random_ray(&mut rng, pos, tris, &b);
            let expect = brute_first(pos, tris, &ray, t_min, t_max, cull);
            let got = bvh.first_hit(&ray, t_min, t_max, cull);
            assert_eq!(got, expect, "ray {i}: {ray:?} [{t_min}, {t_max}] {cull:?}");
            hits += got.is_some() as usize;
            all.clear();
            bvh.all_hits(&ray, t_min, t_max, cull, &mut all);
            assert_eq!(
                all,
                brute_all(pos, tris, &ray, t_min, t_max, cull),
                "ray {i}"
            );
        }
        hits
    }

    fn node_bits(bvh: &Bvh) -> Vec<[u32; 32]> {
        bvh.quads
            .iter()
            .map(|q| {
                let mut v = [0u32; 32];
                let f: Vec<f32> = q.planes.iter().flat_map(|p| p.to_array()).collect();
                for (d, s) in v.iter_mut().zip(&f) {
                    *d = s.to_bits();
                }
                v[24..28].copy_from_slice(&q.index);
                v[28..32].copy_from_slice(&q.count);
                v
            })
            .collect()
    }

    #[test]
    fn node_layout() {
        assert_eq!(std::mem::size_of::<Quad>(), 128);
        assert_eq!(std::mem::align_of::<Quad>(), 64);
    }

    #[test]
    fn aabb_basics() {
        let mut b = Aabb::empty();
        assert!(b.is_empty());
        assert_eq!(b.surface_area(), 0.0);
        b.grow(Vec3::new(1.0, 2.0, 3.0));
        assert!(!b.is_empty());
        assert_eq!(b.surface_area(), 0.0);
        b.grow(Vec3::new(2.0, 4.0, 6.0));
        assert_eq!(b.min, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(b.max, Vec3::new(2.0, 4.0, 6.0));
        assert_eq!(b.surface_area(), 2.0 * (2.0 + 6.0 + 3.0));
        assert_eq!(b.centroid(), Vec3::new(1.5, 3.0, 4.5));
        let c = Aabb {
            min: Vec3::splat(-1.0),
            max: Vec3::ZERO,
        };
        let u = b.union(&c);
        assert_eq!(
            (u.min, u.max),
            (Vec3::splat(-1.0), Vec3::new(2.0, 4.0, 6.0))
        );
        assert_eq!(b.union(&Aabb::empty()), b);
        assert!(u.contains(&b) && u.contains(&c) && !b.contains(&u));
        let huge = Aabb {
            min: Vec3::splat(-3e38),
            max: Vec3::splat(3e38),
        };
        assert_eq!(huge.centroid(), Vec3::ZERO);
    }

    fn unit_box() -> Aabb {
        Aabb {
            min: Vec3::ZERO,
            max: Vec3::ONE,
        }
    }

    fn interval(b: &Aabb, o: Vec3, d: Vec3, t_min: f32, t_max: f32) -> Option<(f32, f32)> {
        b.ray_interval(o, d.recip(), t_min, t_max)
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() <= 1e-5 * b.abs().max(1.0)
    }

    #[test]
    fn slab_basic_and_origin_inside() {
        let b = unit_box();
        let inf = f32::INFINITY;
        let (n, f) = interval(&b, Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 0.0, inf).unwrap();
        assert!(n == 1.0 && close(f, 2.0) && f >= 2.0);
        let (n, f) = interval(&b, Vec3::new(-1.0, -1.0, -1.0), Vec3::ONE, 0.0, inf).unwrap();
        assert!(n == 1.0 && close(f, 2.0));
        // Negative direction.
        let (n, f) = interval(&b, Vec3::new(3.0, 0.5, 0.5), -Vec3::X, 0.0, inf).unwrap();
        assert!(n == 2.0 && close(f, 3.0));
        // Pointing away; outside in another axis; t range clipping.
        assert_eq!(
            interval(&b, Vec3::new(-1.0, 0.5, 0.5), -Vec3::X, 0.0, inf),
            None
        );
        assert_eq!(
            interval(&b, Vec3::new(-1.0, 2.0, 0.5), Vec3::X, 0.0, inf),
            None
        );
        assert_eq!(
            interval(&b, Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 0.0, 0.5),
            None
        );
        assert_eq!(
            interval(&b, Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 2.5, inf),
            None
        );
        let (n, f) = interval(&b, Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 1.5, 1.75).unwrap();
        assert!(n == 1.5 && f == 1.75);
        // Origin inside: enter is clamped to t_min, or negative without clamp.
        let o = Vec3::new(0.25, 0.5, 0.75);
        let (n, f) = interval(&b, o, Vec3::X, 0.0, inf).unwrap();
        assert!(n == 0.0 && close(f, 0.75));
        let (n, f) = interval(&b, o, Vec3::new(1.0, -2.0, 0.5), f32::NEG_INFINITY, inf).unwrap();
        assert!(close(n, -0.25) && close(f, 0.25));
        // Empty box never hits.
        assert_eq!(interval(&Aabb::empty(), o, Vec3::X, 0.0, inf), None);
    }

    #[test]
    fn slab_zero_direction_components() {
        let b = unit_box();
        let inf = f32::INFINITY;
        for zero in [0.0f32, -0.0] {
            for axis in 0..3 {
                let mut d = Vec3::splat(1.0);
                d[axis] = zero;
                let mut o = Vec3::splat(-1.0);
                for (c, expect) in [
                    (0.5, true),
                    (0.0, true),
                    (1.0, true),
                    (-0.5, false),
                    (1.5, false),
                    (1.0f32.next_up(), false),
                    (0.0f32.next_down(), false),
                ] {
                    o[axis] = c;
                    let r = interval(&b, o, d, 0.0, inf);
                    assert_eq!(r.is_some(), expect, "axis {axis} zero {zero} coord {c}");
                    if let Some((n, f)) = r {
                        assert!(n == 1.0 && close(f, 2.0), "{n} {f}");
                    }
                }
            }
            // Two zero components: a ray along one axis.
            for (o, expect) in [
                (Vec3::new(0.5, 0.5, -2.0), Some(2.0)),
                (Vec3::new(0.0, 1.0, -2.0), Some(2.0)),
                (Vec3::new(1.0, 1.0, -2.0), Some(2.0)),
                (Vec3::new(1.5, 0.5, -2.0), None),
            ] {
                let d = Vec3::new(zero, -zero, 1.0);
                let r = interval(&b, o, d, 0.0, inf);
                assert_eq!(r.map(|x| x.0), expect, "{o:?}");
                if let Some((_, f)) = r {
                    assert!(close(f, 3.0));
                }
            }
        }
        // Zero-thickness box hit along its plane and across it.
        let flat = Aabb {
            min: Vec3::new(0.0, 0.0, 0.5),
            max: Vec3::new(1.0, 1.0, 0.5),
        };
        let r = interval(&flat, Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 0.0, inf);
        assert_eq!(r.map(|x| x.0), Some(1.0));
        let r = interval(&flat, Vec3::new(0.3, 0.3, 2.0), -Vec3::Z, 0.0, inf).unwrap();
        assert!(r.0 == 1.5 && r.1 >= 1.5);
    }

    #[test]
    fn slab_origin_on_boundary() {
        let b = unit_box();
        let inf = f32::INFINITY;
        // On the max x face, pointing out: touches at t = 0 only.
        let r = interval(&b, Vec3::new(1.0, 0.5, 0.5), Vec3::X, 0.0, inf).unwrap();
        assert!(r.0 == 0.0 && r.1 >= 0.0 && r.1 < 1e-6);
        // Pointing in.
        let r = interval(&b, Vec3::new(1.0, 0.5, 0.5), -Vec3::X, 0.0, inf).unwrap();
        assert!(r.0 == 0.0 && close(r.1, 1.0));
        // On a corner, going diagonally through.
        let r = interval(&b, Vec3::ZERO, Vec3::ONE, 0.0, inf).unwrap();
        assert!(r.0 == 0.0 && close(r.1, 1.0));
        // On an edge, grazing along a face.
        let r = interval(&b, Vec3::new(0.0, 0.0, -1.0), Vec3::Z, 0.0, inf).unwrap();
        assert!(r.0 == 1.0 && close(r.1, 2.0));
    }

    #[test]
    fn slab_is_conservative_for_rays_through_boundary_points() {
        let mut rng = Rng(11);
        for _ in 0..20000 {
            let c = rng.vec3(-100.0, 100.0);
            let e = rng.vec3(0.0, 10.0);
            let b = Aabb {
                min: c - e,
                max: c + e,
            };
            // A corner, an edge point or a face point.
            let mut p = in_box(&mut rng, &b);
            for k in 0..3 {
                if rng.below(2) == 0 {
                    p[k] = if rng.below(2) == 0 {
                        b.min[k]
                    } else {
                        b.max[k]
                    };
                }
            }
            let o = rng.vec3(-300.0, 300.0);
            let r = RayPrecomp::new(o, p - o);
            let iv = b.ray_interval(r.origin(), r.inv_dir(), 0.0, f32::INFINITY);
            assert!(iv.is_some(), "box {b:?} point {p:?} origin {o:?}");
        }
    }

    #[test]
    fn empty_and_invalid_inputs() {
        let ray = RayPrecomp::new(Vec3::ZERO, Vec3::X);
        let bvh = Bvh::build(&[], &[]);
        assert!(bvh.is_empty() && bvh.node_count() == 0 && bvh.depth() == 0);
        assert!(bvh.root_bounds().is_empty());
        bvh.validate(&[], &[]).unwrap();
        assert_eq!(
            bvh.first_hit(&ray, 0.0, f32::INFINITY, CullMode::None),
            None
        );
        let mut out = Vec::new();
        bvh.all_hits(&ray, 0.0, f32::INFINITY, CullMode::None, &mut out);
        assert!(out.is_empty());

        // Only invalid triangles: NaN, inf, out-of-range index.
        let pos = vec![
            Vec3::new(1.0, -1.0, -1.0),
            Vec3::new(1.0, 1.0, -1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(f32::NAN, 0.0, 0.0),
            Vec3::new(0.0, f32::INFINITY, 0.0),
        ];
        let bad = [[0, 1, 3], [0, 4, 2], [0, 1, 7]];
        let bvh = Bvh::build(&pos, &bad);
        assert!(bvh.is_empty());
        bvh.validate(&pos, &bad).unwrap();
        assert_eq!(
            bvh.first_hit(&ray, 0.0, f32::INFINITY, CullMode::None),
            None
        );

        // Mixed: the one valid triangle is found, bounds are finite.
        let mixed = [[0, 1, 3], [0, 1, 2], [0, 4, 2], [9, 1, 2]];
        let bvh = Bvh::build(&pos, &mixed);
        bvh.validate(&pos, &mixed).unwrap();
        assert_eq!(
            (bvh.triangle_count(), bvh.node_count(), bvh.depth()),
            (1, 1, 1)
        );
        assert!(bvh.root_bounds().min.is_finite() && bvh.root_bounds().max.is_finite());
        let h = bvh.first_hit(&ray, 0.0, f32::INFINITY, CullMode::None);
        assert_eq!(h.map(|h| h.0), Some(1));
        // Invalid rays / ranges.
        for r in [
            RayPrecomp::new(Vec3::ZERO, Vec3::ZERO),
            RayPrecomp::new(Vec3::NAN, Vec3::X),
            RayPrecomp::new(Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0)),
        ] {
            assert_eq!(bvh.first_hit(&r, 0.0, 10.0, CullMode::None), None);
        }
        assert_eq!(bvh.first_hit(&ray, 2.0, 1.0, CullMode::None), None);
        assert_eq!(bvh.first_hit(&ray, f32::NAN, 1.0, CullMode::None), None);
    }

    #[test]
    fn small_trees_validate() {
        let mut rng = Rng(12);
        for n in 0..40 {
            let (pos, tris) = soup(n, &mut rng);
            let bvh = Bvh::build(&pos, &tris);
            bvh.validate(&pos, &tris).unwrap();
            assert_eq!(bvh.triangle_count(), n);
        }
    }

    /// The four-ray walk gives each lane exactly what the one-ray walk
    /// gives its ray: coherent packets (one origin, nearby targets, as
    /// neighbouring pixels), incoherent ones, empty lanes, per-lane range
    /// ends and cull modes, rays with zero direction components.
    #[test]
    fn four_ray_walk_equals_one_ray_walks() {
        let mut rng = Rng(0x4a11_0000_0000_0004);
        let (sphere_p, sphere_t) = uv_sphere(60, 40, Vec3::new(0.3, -0.2, 0.1), 2.0);
        let (grid_p, grid_t) = crate::test_util::grid(24, 0.4, &mut rng);
        let meshes = [(sphere_p, sphere_t), (grid_p, grid_t), soup(3000, &mut rng)];
        let culls = [CullMode::None, CullMode::Back, CullMode::Front];
        let (mut stack, mut single) = (PacketStack::new(), MeshStack::new());
        let mut hits = 0;
        for (pos, tris) in &meshes {
            let bvh = Bvh::build(pos, tris);
            let b = bvh.root_bounds();
            for i in 0..1500 {
                let rays: [RayPrecomp; 4] = if i % 3 == 0 {
                    std::array::from_fn(|_| random_ray(&mut rng, pos, tris, &b).0)
                } else {
                    let (o, target) = bundle(&mut rng, &b);
                    let step = rng.vec3(-0.05, 0.05);
                    std::array::from_fn(|r| {
                        let mut d = target + step * r as f32 - o;
                        if i % 50 == 1 {
                            d.y = 0.0; // a zero component: the generic slab
                        }
                        RayPrecomp::new(o, d)
                    })
                };
                let t_min = if i % 7 == 0 { 0.5 } else { 0.0 };
                let t_max: [f32; 4] =
                    std::array::from_fn(|_| [f32::INFINITY, 1.0, 2.5][rng.below(3)]);
                let cull: [CullMode; 4] = std::array::from_fn(|_| culls[rng.below(3)]);
                let used: [bool; 4] = std::array::from_fn(|_| rng.below(8) != 0);
                let lanes: [Option<(&RayPrecomp, CullMode)>; 4] =
                    std::array::from_fn(|r| used[r].then_some((&rays[r], cull[r])));
                let got = bvh.first_hit_x4(lanes, t_min, t_max, &mut stack, &mut single);
                for r in 0..4 {
                    let want = if used[r] {
                        bvh.first_hit(&rays[r], t_min, t_max[r], cull[r])
                    } else {
                        None
                    };
                    assert_eq!(got[r], want, "packet {i} lane {r}");
                    hits += usize::from(want.is_some());
                }
            }
        }
        assert!(hits > 4000, "{hits}");
    }

    /// The origin (within three times the bounds `b`) and the target
    /// (within `b`) of a bundle of neighbouring rays.
    fn bundle(rng: &mut Rng, b: &Aabb) -> (Vec3, Vec3) {
        let far = Aabb {
            min: b.min * 3.0,
            max: b.max * 3.0,
        };
        let o = in_box(rng, &far);
        (o, in_box(rng, b))
    }

    #[test]
    fn eight_ray_walk_equals_one_ray_walks() {
        // (the eight-ray walk runs only in the AVX2 build, on a CPU with it)
        let Some(avx2) = crate::cpu::Avx2::detect() else {
            return;
        };
        let mut rng = Rng(0x4a11_0000_0000_0008);
        let (sphere_p, sphere_t) = uv_sphere(60, 40, Vec3::new(0.3, -0.2, 0.1), 2.0);
        let (grid_p, grid_t) = crate::test_util::grid(24, 0.4, &mut rng);
        let (small_p, small_t) = uv_sphere(2, 3, Vec3::ZERO, 1.0); // one leaf
        let meshes = [
            (sphere_p, sphere_t),
            (grid_p, grid_t),
            soup(3000, &mut rng),
            (small_p, small_t),
        ];
        let culls = [CullMode::None, CullMode::Back, CullMode::Front];
        let mut stacks = (Packet8Stack::new(), PacketStack::new(), MeshStack::new());
        let mut hits = 0;
        for (pos, tris) in &meshes {
            let bvh = Bvh::build(pos, tris);
            let b = bvh.root_bounds();
            for i in 0..1500 {
                // a bundle from one origin (as a row of pixels' rays), some
                // with mixed direction signs, a zero component, a NaN
                let (o, target) = bundle(&mut rng, &b);
                let step = rng.vec3(-0.05, 0.05) * if i % 5 == 0 { 20.0 } else { 1.0 };
                let lanes: [(Vec3, Vec3); 8] = std::array::from_fn(|r| {
                    let mut d = target + step * r as f32 - o;
                    if i % 50 == 1 && r == 2 {
                        d.y = 0.0;
                    }
                    if i % 70 == 3 && r == 5 {
                        d.x = f32::NAN;
                    }
                    if i % 3 == 0 {
                        (in_box(&mut rng, &b) * 2.0, rng.unit())
                    } else {
                        (o, d)
                    }
                });
                let mut rays = Rays8::default();
                for (r, &(o, d)) in lanes.iter().enumerate() {
                    rays.set(r, o, d);
                }
                let t_min = if i % 7 == 0 { 0.5 } else { 0.0 };
                let t_max = [f32::INFINITY, 1.0, 2.5][rng.below(3)];
                let cull = culls[rng.below(3)];
                let live = rng.below(256) as u32 | if i % 2 == 0 { 0xff } else { 0 };
                let got = bvh.first_hit_x8(
                    &rays,
                    live,
                    cull,
                    t_min,
                    t_max,
                    (&mut stacks.0, &mut stacks.1, &mut stacks.2),
                    avx2,
                );
                for r in 0..8 {
                    let want = if live >> r & 1 != 0 {
                        bvh.first_hit(&RayPrecomp::new(lanes[r].0, lanes[r].1), t_min, t_max, cull)
                    } else {
                        None
                    };
                    assert_eq!(got[r], want, "packet {i} lane {r}");
                    hits += usize::from(want.is_some());
                }
            }
        }
        assert!(hits > 8000, "{hits}");
    }

    #[test]
    fn sphere_matches_brute_force() {
        let (pos, tris) = uv_sphere(50, 50, Vec3::new(0.3, -0.2, 0.1), 2.0);
        assert!(tris.len() > 4800);
        let hits = check_against_brute_force(&pos, &tris, 2500, 21);
        assert!(hits > 1000, "{hits}");
    }

    #[test]
    fn grid_matches_brute_force() {
        let mut rng = Rng(22);
        let (pos, tris) = grid(40, 0.5, &mut rng);
        let hits = check_against_brute_force(&pos, &tris, 2500, 23);
        assert!(hits > 1000, "{hits}");
    }

    #[test]
    fn soup_matches_brute_force() {
        let mut rng = Rng(24);
        let (pos, tris) = soup(2000, &mut rng);
        let hits = check_against_brute_force(&pos, &tris, 2500, 25);
        assert!(hits > 1000, "{hits}");
    }

    #[test]
    fn soup_with_invalid_triangles_matches_brute_force() {
        let mut rng = Rng(26);
        let (mut pos, mut tris) = soup(1500, &mut rng);
        for k in 0..150 {
            let i = rng.below(pos.len());
            pos[i][k % 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][k % 3];
        }
        tris.push([0, 1, pos.len() as u32]);
        let bvh = Bvh::build(&pos, &tris);
        assert!(bvh.triangle_count() < 1450);
        assert!(bvh.root_bounds().min.is_finite() && bvh.root_bounds().max.is_finite());
        let hits = check_against_brute_force(&pos, &tris, 1500, 27);
        assert!(hits > 300, "{hits}");
    }

    #[test]
    fn exact_ties_pick_the_smallest_index() {
        // Every triangle duplicated (same vertex indices) far away in index
        // order: equal t, the original (smaller) index must win.
        let mut rng = Rng(28);
        let (pos, mut tris) = soup(1000, &mut rng);
        let dup: Vec<[u32; 3]> = tris.iter().rev().copied().collect();
        tris.extend(dup);
        let hits = check_against_brute_force(&pos, &tris, 1500, 29);
        assert!(hits > 300, "{hits}");
        let bvh = Bvh::build(&pos, &tris);
        let b = bvh.root_bounds();
        let mut found = 0;
        for _ in 0..1000 {
            let (ray, t_min, t_max, cull) = random_ray(&mut rng, &pos, &tris, &b);
            if let Some((id, _)) = bvh.first_hit(&ray, t_min, t_max, cull) {
                assert!(id < 1000);
                found += 1;
            }
        }
        assert!(found > 200);
        // All triangles identical: coincident centroids → median splits.
        let same = vec![[0u32, 1, 2]; 1000];
        let bvh = Bvh::build(&pos, &same);
        bvh.validate(&pos, &same).unwrap();
        assert!(bvh.depth() <= 10, "{}", bvh.depth());
        let c = (pos[0] + pos[1] + pos[2]) / 3.0;
        let ray = RayPrecomp::new(c + Vec3::splat(5.0), -Vec3::splat(5.0));
        let h = bvh.first_hit(&ray, 0.0, f32::INFINITY, CullMode::None);
        assert_eq!(h.map(|h| h.0), Some(0));
        let mut out = Vec::new();
        bvh.all_hits(&ray, 0.0, f32::INFINITY, CullMode::None, &mut out);
        assert_eq!(out.len(), 1000);
        assert!(out.iter().enumerate().all(|(i, h)| h.0 == i as u32));
    }

    #[test]
    fn adversarial_centroids_keep_depth_bounded() {
        // Tiny triangles at exponentially spaced x: binned SAH peels off one
        // triangle per level; the depth cap must kick in.
        let mut pos = Vec::new();
        let mut tris = Vec::new();
        for k in 0..1500u32 {
            let x = 1.05f32.powi(k as i32) - 1.0;
            let s = 1e-3 * (1.0 + x * 1e-3);
            pos.extend([
                Vec3::new(x, 0.0, 0.0),
                Vec3::new(x + s, 0.0, s),
                Vec3::new(x, s, s),
            ]);
            tris.push([3 * k, 3 * k + 1, 3 * k + 2]);
        }
        let bvh = Bvh::build(&pos, &tris);
        bvh.validate(&pos, &tris).unwrap();
        assert!(bvh.depth() <= MAX_DEPTH);
        let hits = check_against_brute_force(&pos, &tris, 500, 30);
        assert!(hits > 20, "{hits}");
    }

    #[test]
    fn grid_is_watertight_through_the_bvh() {
        let mut rng = Rng(31);
        let n = 40;
        let (pos, tris) = grid(n, 0.5, &mut rng);
        let bvh = Bvh::build(&pos, &tris);
        let interior = |v: u32| {
            let (x, y) = (v as usize % (n + 1), v as usize / (n + 1));
            x > 0 && y > 0 && x < n && y < n
        };
        for i in 0..6000 {
            let t = tris[rng.below(tris.len())];
            let k = rng.below(3);
            let (a, b) = (t[k], t[(k + 1) % 3]);
            // A shared edge has at least one interior endpoint... or lies on
            // the boundary; aim only at edges/vertices inside the grid.
            let target = if i % 2 == 0 {
                if !interior(a) {
                    continue;
                }
                pos[a as usize]
            } else {
                if !(interior(a) || interior(b)) {
                    continue;
                }
                pos[a as usize].lerp(pos[b as usize], rng.range(0.05, 0.95))
            };
            let dir_up = Vec3::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5), 1.0);
            let o = target + dir_up * rng.range(2.0, 30.0) * if i % 3 == 0 { -1.0 } else { 1.0 };
            let ray = RayPrecomp::new(o, target - o);
            let h = bvh.first_hit(&ray, 0.0, f32::INFINITY, CullMode::None);
            assert!(h.is_some(), "ray {i} {o:?} -> {target:?}");
            assert_eq!(
                h,
                brute_first(&pos, &tris, &ray, 0.0, f32::INFINITY, CullMode::None)
            );
        }
    }

    /// `validate` rejects leaves that refer to the wrong packs and packs
    /// whose corners are not their triangles' (what the walks read).
    #[test]
    fn validate_checks_the_leaves_packs() {
        let (pos, tris) = uv_sphere(20, 20, Vec3::ZERO, 1.0);
        let bvh = Bvh::build(&pos, &tris);
        bvh.validate(&pos, &tris).unwrap();
        assert!(bvh.packs.len() > 20);
        // a leaf sent to its neighbour's packs
        let mut moved = bvh.clone();
        let q = moved.quads.iter_mut().find(|q| q.count[0] > 0).unwrap();
        q.index[0] = (q.index[0] + 1) % moved.packs.len() as u32;
        assert!(moved.validate(&pos, &tris).is_err());
        // a pack corner off its triangle
        let mut bent = bvh.clone();
        bent.packs[7].p[1][2] += Vec4::splat(1e-3);
        assert!(bent.validate(&pos, &tris).is_err());
        // padding lanes marked used
        let mut padded = bvh.clone();
        let pk = padded.packs.iter_mut().find(|p| p.used != 0b1111).unwrap();
        pk.used = 0b1111;
        assert!(padded.validate(&pos, &tris).is_err());
    }

    #[test]
    fn build_is_independent_of_thread_count() {
        let (mut pos, tris) = uv_sphere(200, 200, Vec3::ZERO, 1.0);
        // Jitter so that bins are not perfectly symmetric.
        let mut rng = Rng(32);
        for p in &mut pos {
            *p += rng.vec3(-1e-3, 1e-3);
        }
        assert!(tris.len() > 2 * PAR_BIN_MIN);
        let build = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| Bvh::build(&pos, &tris))
        };
        let one = build(1);
        one.validate(&pos, &tris).unwrap();
        for threads in [2, 3] {
            let many = build(threads);
            assert_eq!(node_bits(&one), node_bits(&many), "{threads} threads");
            assert_eq!((&one.packs, one.tri_count), (&many.packs, many.tri_count));
            assert_eq!(one.quads.len(), many.quads.len());
            assert_eq!((one.root, one.root_bounds), (many.root, many.root_bounds));
            assert_eq!((one.node_count, one.depth), (many.node_count, many.depth));
        }
    }

    #[test]
    fn binary_shaped_tree_gives_the_same_hits() {
        let mut rng = Rng(34);
        let (pos, tris) = soup(1500, &mut rng);
        let wide = Bvh::build(&pos, &tris);
        let binary = Bvh::build_impl(&pos, &tris, false);
        binary.validate(&pos, &tris).unwrap();
        assert!(binary.depth() > wide.depth());
        assert!(binary
            .quads
            .iter()
            .all(|q| (0..4).filter(|&k| q.lane_used(k)).count() == 2));
        let b = wide.root_bounds();
        for _ in 0..1500 {
            let (ray, t_min, t_max, cull) = random_ray(&mut rng, &pos, &tris, &b);
            assert_eq!(
                wide.first_hit(&ray, t_min, t_max, cull),
                binary.first_hit(&ray, t_min, t_max, cull)
            );
        }
    }

    #[test]
    fn axis_aligned_rays_match_brute_force() {
        // Zero direction components take the generic slab path (and meet
        // unused quad lanes there).
        let mut rng = Rng(35);
        let (sphere_pos, sphere_tris) = uv_sphere(30, 30, Vec3::new(0.1, 0.2, 0.3), 1.0);
        let (grid_pos, grid_tris) = grid(20, 0.5, &mut rng);
        for (pos, tris) in [(&sphere_pos, &sphere_tris), (&grid_pos, &grid_tris)] {
            let bvh = Bvh::build(pos, tris);
            let b = bvh.root_bounds();
            let mut hits = 0;
            for i in 0..3000 {
                let mut d = Vec3::ZERO;
                d[i % 3] = if i % 2 == 0 { 1.0 } else { -1.0 };
                if i % 5 == 0 {
                    d[(i + 1) % 3] = rng.range(-1.0, 1.0); // one zero component
                }
                // Origins on vertex coordinates too, to hit the 0 * inf case.
                let mut o = in_box(&mut rng, &b) - d * 3.0 * (b.max - b.min).max_element();
                if i % 3 == 0 {
                    let v = pos[rng.below(pos.len())];
                    for k in 0..3 {
                        if d[k] == 0.0 {
                            o[k] = v[k];
                        }
                    }
                }
                let ray = RayPrecomp::new(o, d);
                for (t_min, t_max) in [(0.0, f32::INFINITY), (f32::NEG_INFINITY, 1e9)] {
                    let expect = brute_first(pos, tris, &ray, t_min, t_max, CullMode::None);
                    let got = bvh.first_hit(&ray, t_min, t_max, CullMode::None);
                    assert_eq!(got, expect, "ray {i} {ray:?}");
                    hits += got.is_some() as usize;
                }
            }
            assert!(hits > 1000, "{hits}");
        }
    }

    #[test]
    fn parallel_built_tree_matches_brute_force() {
        let (pos, tris) = uv_sphere(130, 130, Vec3::ZERO, 1.0);
        assert!(tris.len() > PAR_BIN_MIN);
        let hits = check_against_brute_force(&pos, &tris, 300, 33);
        assert!(hits > 100, "{hits}");
    }
}
