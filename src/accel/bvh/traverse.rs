//! The single-ray walks of the mesh BVH: [`Bvh::first_hit`] (front to back,
//! pruning by the closest hit so far) and [`Bvh::all_hits`], with the parts
//! the packet walks share: the traversal stack, the four-children box test
//! ([`QuadTest`]) and a leaf's closest hit ([`Bvh::leaf_first`]).

use glam::Vec4;

use super::{Bvh, NodeRef, Quad, MAX_DEPTH};
use crate::accel::triangle::{intersect, precedes, Pack4Ray, RayPrecomp, TriHit, TriPack};
use crate::geometry::{far_out4, prune_bound, CullMode, FAR_SLACK};

/// Keeps the hit `(id, h)` of a ray as its closest when it precedes the
/// closest so far (see [`precedes`]), narrowing the ray's range end and box
/// pruning bound to it.
#[inline(always)]
pub(super) fn keep_closest(
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
pub(super) fn insert_desc(order: &mut [(f32, usize); 4], n: usize, d: f32, k: usize) -> usize {
    let mut j = n;
    while j > 0 && order[j - 1].0 < d {
        order[j] = order[j - 1];
        j -= 1;
    }
    order[j] = (d, k);
    n + 1
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

/// Per-ray constants for testing the four children of a [`Quad`] at once.
pub(super) struct QuadTest {
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
    /// The constants of `ray` for the range start `t_min`, for
    /// [`QuadTest::test`] with the same `FAST`.
    #[inline(always)]
    pub(super) fn new<const FAST: bool>(ray: &RayPrecomp, t_min: f32) -> QuadTest {
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
    /// inverted box always gives entry `+inf` and exit `-inf`.
    ///
    /// Generic (zero direction components, negative `t_min`): each lane
    /// makes, for its child, the operations of the one scalar slab test
    /// [`slab`] with `ZEROS` (the `0 * inf` planes replaced the same way,
    /// the exit rounded outward by the same [`far_out4`]); only the order in
    /// which the three axes' maxima and minima are taken differs, which
    /// without NaN (none arises) can change nothing but the sign of a zero
    /// distance. Unused lanes are masked out explicitly.
    ///
    /// [`slab`]: crate::geometry::slab
    #[inline(always)]
    pub(super) fn test<const FAST: bool>(&self, q: &Quad, t_hi: f32) -> (u32, Vec4) {
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
                // 0 * inf: see `geometry::slab`.
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

impl Bvh {
    /// Closest hit of `ray` with `t_min <= t <= t_max` among the non-culled
    /// triangles, as `(triangle index, hit)`. Among hits with equal `t` the
    /// smaller triangle index wins, so the result equals that of a brute-force
    /// loop over all (valid) triangles. Allocation-free. The tree tests its
    /// own leaf-ordered copy of the triangles (made from the mesh's arrays
    /// at build time), so it needs nothing else.
    pub(crate) fn first_hit(
        &self,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
    ) -> Option<(u32, TriHit)> {
        self.first_hit_in(ray, t_min, t_max, cull, &mut MeshStack::new())
    }

    /// The packs of a leaf: `count.div_ceil(4)` of them from its reference.
    #[inline(always)]
    pub(super) fn packs_of(&self, leaf: NodeRef) -> &[TriPack] {
        let first = leaf.index as usize;
        &self.packs[first..first + (leaf.count as usize).div_ceil(4)]
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

    /// The closest hit of `ray` (whose pack constants are `tris4`) among
    /// the triangles of `leaf` within `[t_min, t_hi]`, ties to the smaller
    /// triangle index.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn leaf_first(
        &self,
        ray: &RayPrecomp,
        tris4: &Pack4Ray,
        leaf: NodeRef,
        t_min: f32,
        t_hi: f32,
        cull: CullMode,
    ) -> Option<(u32, TriHit)> {
        let mut best: Option<(u32, TriHit)> = None;
        let mut t_hi = t_hi;
        for pk in self.packs_of(leaf) {
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
        // Box pruning bound: t_hi plus a little slack (see `prune_bound`).
        let mut prune = t_max;
        let NodeRef {
            mut index,
            mut count,
        } = self.root;
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
                self.leaf_first(ray, &tris4, NodeRef { index, count }, t_min, t_hi, cull)
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

    /// Appends every hit of `ray` with `t_min <= t <= t_max` among the
    /// non-culled triangles to `out` as `(triangle index, hit)`, then sorts
    /// `out` by `(t, triangle index)` (the whole of `out`, so pass an empty
    /// vector unless merging is intended). Reads the leaves' triangle
    /// packs, not the mesh arrays.
    pub(crate) fn all_hits(
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
            stack[0] = (self.root.index, self.root.count);
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
                    for pk in self.packs_of(NodeRef { index, count }) {
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
}
