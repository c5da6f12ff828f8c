//! The single-ray walks of the mesh BVH: [`Bvh::first_hit`] (front to back,
//! pruning by the closest hit so far) and [`Bvh::each_hit_on`] (every
//! hit), with the parts the packet walks share: the traversal stack, the
//! eight-children box tests ([`NodeTest`] on a [`Lanes8`], [`SlabTest`])
//! and a leaf's closest hit ([`Bvh::leaf_first`]).

use glam::Vec4;

use super::{Bvh, Node, NodeRef, WIDTH};
use crate::accel::triangle::{precedes, Pack4Ray, Pack8Ray, RayPrecomp, TriHit, TriPack};
use crate::cpu::{prefetch, Isa, Kernel, Lanes8};
use crate::geometry::{far_out4, prune_bound, CullMode, FAR_SLACK};

/// Keeps the hit `(id, h)` of a ray as its closest when it precedes the
/// closest so far (see [`precedes`]), narrowing the ray's range end and box
/// pruning bound to it; returns whether it did.
#[inline(always)]
pub(super) fn keep_closest(
    best: &mut Option<(u32, TriHit)>,
    t_hi: &mut f32,
    prune: &mut f32,
    (id, h): (u32, TriHit),
) -> bool {
    let nearer = precedes(id, h.t, best.map(|(bid, bh)| (bid, bh.t)));
    if nearer {
        *best = Some((id, h));
        *t_hi = h.t;
        *prune = prune_bound(h.t);
    }
    nearer
}

/// A ray's closest hit in a mesh BVH, `(triangle index, hit)`, with the
/// leaf that holds the triangle ([`Bvh::leaf_corners`] reads its corners
/// from there, from memory the walk has just read).
pub(crate) type LeafHit = ((u32, TriHit), NodeRef);

/// Inserts child `k` at entry distance `d` into `order[..n]`, which is kept
/// sorted by distance, descending (a later child of equal distance goes
/// after the earlier one); returns the new length.
#[inline(always)]
pub(super) fn insert_desc(order: &mut [(f32, usize); WIDTH], n: usize, d: f32, k: usize) -> usize {
    let mut j = n;
    while j > 0 && order[j - 1].0 < d {
        order[j] = order[j - 1];
        j -= 1;
    }
    order[j] = (d, k);
    n + 1
}

/// The lanes of `mask` (child k: bit k) ordered by their `near` distance,
/// farthest first (a higher lane first among equal distances), in the
/// first `mask.count_ones()` entries. Each lane's place is its rank, the
/// number of lanes of `mask` before it (nearer, or as near and lower),
/// counted from two 4-lane comparisons against all eight distances: no
/// branch that depends on the distances (an insertion sort mispredicts).
#[inline(always)]
pub(super) fn by_distance(mask: u32, near: &[f32; WIDTH]) -> [u8; WIDTH] {
    let (lo, hi) = (Vec4::from_slice(&near[..4]), Vec4::from_slice(&near[4..]));
    let last = mask.count_ones() - 1;
    // (the lanes placed as bytes of one register: written byte by byte in
    // memory, the order was read back as a whole and the CPU could not
    // forward the eight narrow stores to that read, a stall per node)
    let mut order = 0u64;
    for k in set_bits(mask) {
        let d = Vec4::splat(near[k]);
        let lt = lo.cmplt(d).bitmask() | hi.cmplt(d).bitmask() << 4;
        let eq = lo.cmpeq(d).bitmask() | hi.cmpeq(d).bitmask() << 4;
        let before = (lt | eq & ((1 << k) - 1)) & mask;
        order |= (k as u64) << (8 * (last - before.count_ones()));
    }
    order.to_le_bytes()
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

    /// The last entry pushed. The spill vector holds entries only while
    /// the array is full (`push` spills only then, and the array gives
    /// back nothing before the vector is empty), so it is looked at only
    /// then: most pops test one count.
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<T> {
        if self.n == N {
            if let Some(v) = self.more.pop() {
                return Some(v);
            }
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

/// [`Bvh::each_hit_on`]'s fast walk, run on the lanes of an instruction
/// set ([`Isa::run`]): every hit of the ray to `f`.
struct EachHit<'a, F> {
    bvh: &'a Bvh,
    ray: &'a RayPrecomp,
    t_min: f32,
    t_max: f32,
    cull: CullMode,
    f: F,
}

impl<F: FnMut(u32, TriHit, NodeRef)> Kernel for EachHit<'_, F> {
    type Out = ();

    #[inline(always)]
    fn run<L: Lanes8>(self, lanes: L) {
        let EachHit {
            bvh,
            ray,
            t_min,
            t_max,
            cull,
            mut f,
        } = self;
        let test = NodeTest::new(lanes, ray, t_min);
        bvh.walk_each(ray, t_min, t_max, cull, |q| test.test(q, t_max).0, &mut f);
    }
}

/// The traversal stack of [`Bvh::first_hit`]: (node or first primitive,
/// count, entry distance).
pub(crate) type MeshStack = Stack<(u32, u32, f32), 32>;

/// Per-ray constants for testing the eight children of a [`Node`] at once
/// on the lanes `L` (the fast test: finite inverse direction, `t_min >=
/// 0`). Entry and exit planes are picked by the direction's sign; entries
/// are rounded down and exits up through the inverse direction scaled by
/// `1 -` and `1 +` [`FAR_SLACK`] (conservative because with `t_min >= 0`
/// only non-negative distances matter); an unused lane's inverted box
/// always gives entry `+inf` and exit `-inf`. Every [`Lanes8`] makes the
/// same operations with the same values.
pub(super) struct NodeTest<L: Lanes8> {
    lanes: L,
    /// Splatted origin per axis.
    o: [L::V; 3],
    /// `inv_dir[axis] * (1 - FAR_SLACK)` and `* (1 + FAR_SLACK)`, splatted.
    inv_near: [L::V; 3],
    inv_far: [L::V; 3],
    /// Per axis, the direction is negative (the ray enters through the
    /// `max` plane, `Node::planes[axis + 3]`, and leaves through the `min`
    /// plane). Kept as `bool`s so that the plane indices are known to be in
    /// range (no bounds checks per node).
    neg: [bool; 3],
    t_min: L::V,
}

impl<L: Lanes8> NodeTest<L> {
    /// The constants of `ray` (finite inverse direction) for the range
    /// start `t_min >= 0`.
    #[inline(always)]
    pub(super) fn new(lanes: L, ray: &RayPrecomp, t_min: f32) -> Self {
        let (o, i) = (ray.origin(), ray.inv_dir());
        let (lo, hi) = (1.0 - FAR_SLACK, 1.0 + FAR_SLACK);
        NodeTest {
            lanes,
            o: [lanes.splat(o.x), lanes.splat(o.y), lanes.splat(o.z)],
            inv_near: [
                lanes.splat(i.x * lo),
                lanes.splat(i.y * lo),
                lanes.splat(i.z * lo),
            ],
            inv_far: [
                lanes.splat(i.x * hi),
                lanes.splat(i.y * hi),
                lanes.splat(i.z * hi),
            ],
            neg: [i.x < 0.0, i.y < 0.0, i.z < 0.0],
            t_min: lanes.splat(t_min),
        }
    }

    /// Tests the eight children against `[t_min, t_hi]`: a bit mask (bit k
    /// set when child k is entered) and the entry distances.
    #[inline(always)]
    pub(super) fn test(&self, q: &Node, t_hi: f32) -> (u32, [f32; WIDTH]) {
        let l = self.lanes;
        let p = &q.planes;
        let mut near = self.t_min;
        let mut far = l.splat(t_hi);
        for a in 0..3 {
            let neg = usize::from(self.neg[a]);
            let pn = l.load(&p[a + 3 * neg]);
            let pf = l.load(&p[a + 3 * (1 - neg)]);
            let n = l.mul(l.sub(pn, self.o[a]), self.inv_near[a]);
            let f = l.mul(l.sub(pf, self.o[a]), self.inv_far[a]);
            near = l.max(near, n);
            far = l.min(far, f);
        }
        (l.le(near, far), l.store(near))
    }
}

/// Per-ray constants for testing the eight children of a [`Node`] with the
/// generic slab test (zero direction components, negative `t_min`), four
/// at a time: each lane makes, for its child, the operations of the one
/// scalar slab test [`slab`] with `ZEROS` (the `0 * inf` planes replaced
/// the same way, the exit rounded outward by the same [`far_out4`]); only
/// the order in which the three axes' maxima and minima are taken differs,
/// which without NaN (none arises) can change nothing but the sign of a
/// zero distance. Unused lanes are masked out explicitly.
///
/// [`slab`]: crate::geometry::slab
pub(super) struct SlabTest {
    o: [Vec4; 3],
    inv: [Vec4; 3],
    t_min: f32,
}

impl SlabTest {
    #[inline(always)]
    pub(super) fn new(ray: &RayPrecomp, t_min: f32) -> SlabTest {
        let (o, i) = (ray.origin(), ray.inv_dir());
        SlabTest {
            o: [Vec4::splat(o.x), Vec4::splat(o.y), Vec4::splat(o.z)],
            inv: [Vec4::splat(i.x), Vec4::splat(i.y), Vec4::splat(i.z)],
            t_min,
        }
    }

    /// Tests the eight children against `[t_min, t_hi]` (as
    /// [`NodeTest::test`]).
    #[inline(always)]
    pub(super) fn test(&self, q: &Node, t_hi: f32) -> (u32, [f32; WIDTH]) {
        let p = &q.planes;
        let mut mask = 0;
        let mut out = [0f32; WIDTH];
        for h in 0..WIDTH / 4 {
            let plane = |k: usize| Vec4::from_slice(&p[k][4 * h..4 * h + 4]);
            let mut near = Vec4::splat(self.t_min);
            let mut far = Vec4::INFINITY;
            for a in 0..3 {
                let inv = self.inv[a];
                let lo = (plane(a) - self.o[a]) * inv;
                let hi = (plane(a + 3) - self.o[a]) * inv;
                // 0 * inf: see `geometry::slab`.
                let lo = Vec4::select(lo.is_nan_mask(), -inv, lo);
                let hi = Vec4::select(hi.is_nan_mask(), inv, hi);
                near = near.max(lo.min(hi));
                far = far.min(lo.max(hi));
            }
            let far = far_out4(far).min(Vec4::splat(t_hi));
            let used = plane(0).cmple(plane(3));
            mask |= (near.cmple(far) & used).bitmask() << (4 * h);
            out[4 * h..4 * h + 4].copy_from_slice(&near.to_array());
        }
        (mask, out)
    }
}

/// [`Bvh::first_hit_in`]'s fast walk, run on the lanes of
/// [`Isa::detect`]'s instruction set (built once per instruction set).
pub(super) struct FirstHit<'a> {
    pub(super) bvh: &'a Bvh,
    pub(super) ray: &'a RayPrecomp,
    pub(super) t_min: f32,
    pub(super) t_max: f32,
    pub(super) cull: CullMode,
    pub(super) stack: &'a mut MeshStack,
}

impl Kernel for FirstHit<'_> {
    type Out = Option<LeafHit>;

    #[inline(always)]
    fn run<L: Lanes8>(self, lanes: L) -> Self::Out {
        let test = NodeTest::new(lanes, self.ray, self.t_min);
        let (bvh, ray, t_min, t_max, cull) =
            (self.bvh, self.ray, self.t_min, self.t_max, self.cull);
        let boxes = |q: &Node, t_hi| test.test(q, t_hi);
        // (natively the leaf closures are inlined whatever their size: out
        // of line, the lane operations inside them become calls, not
        // instructions of this kernel's instruction set; a walk of builtin
        // measured 120 -> 773 CPU ns a ray when the leaf's one stopped
        // being inlined. wasm32 has one instruction set and leaves the
        // choice to LLVM: forced, the module grew by 17 KB)
        if L::WIDE {
            let tris8 = Pack8Ray::new(lanes, ray);
            bvh.walk_first(
                t_max,
                self.stack,
                boxes,
                #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
                |leaf, t_hi| bvh.leaf_first8(ray, &tris8, leaf, t_min, t_hi, cull),
            )
        } else {
            let tris4 = Pack4Ray::new(ray);
            bvh.walk_first(
                t_max,
                self.stack,
                boxes,
                #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
                |leaf, t_hi| bvh.leaf_first(ray, &tris4, leaf, t_min, t_hi, cull),
            )
        }
    }
}

impl Bvh {
    /// Closest hit of `ray` with `t_min <= t <= t_max` among the non-culled
    /// triangles, as `(triangle index, hit)`. Among hits with equal `t` the
    /// smaller triangle index wins, so the result equals that of a brute-force
    /// loop over all (valid) triangles. Allocation-free (but for a walk
    /// deeper than the stack's array, which a tree of `MAX_DEPTH` levels
    /// rarely needs). The tree tests its own leaf-ordered copy of the
    /// triangles (made from the mesh's arrays at build time), so it needs
    /// nothing else.
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
    /// over many rays sets one up once (it is reset here). The walk runs in
    /// the build for the CPU's best instruction set ([`Isa::detect`]).
    #[inline(always)]
    pub(crate) fn first_hit_in(
        &self,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
        stack: &mut MeshStack,
    ) -> Option<(u32, TriHit)> {
        self.first_hit_on(Isa::detect(), ray, t_min, t_max, cull, stack)
    }

    /// [`Bvh::first_hit_in`] on the instruction set `isa`.
    #[inline(always)]
    pub(crate) fn first_hit_on(
        &self,
        isa: Isa,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
        stack: &mut MeshStack,
    ) -> Option<(u32, TriHit)> {
        self.first_leaf_hit_on(isa, ray, t_min, t_max, cull, stack)
            .map(|(hit, _)| hit)
    }

    /// Whether [`Bvh::first_leaf_hit_on`] answers `ray` within
    /// `[t_min, t_max]` with the fast walk ([`FirstHit`]): a tree of more
    /// than one leaf, a valid ray whose inverse direction is finite (no
    /// zero coordinate), and a range that is not empty, not NaN and starts
    /// at 0 or later. The interleaved walks take exactly these rays.
    #[inline(always)]
    pub(super) fn walks_fast(&self, ray: &RayPrecomp, t_min: f32, t_max: f32) -> bool {
        !self.is_empty()
            && !self.is_single_leaf()
            && ray.is_valid()
            && ray.inv_dir().is_finite()
            && t_min <= t_max
            && t_min >= 0.0
    }

    /// [`Bvh::first_hit_on`] with the leaf that holds the hit triangle.
    #[inline(always)]
    pub(crate) fn first_leaf_hit_on(
        &self,
        isa: Isa,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
        stack: &mut MeshStack,
    ) -> Option<LeafHit> {
        let range_ok = t_min <= t_max; // false for NaN
        if self.is_empty() || !ray.is_valid() || !range_ok {
            return None;
        }
        stack.clear();
        if self.is_single_leaf() {
            // A single leaf (a small mesh): no box test, no stack.
            let tris4 = Pack4Ray::new(ray);
            return self
                .leaf_first(ray, &tris4, self.root, t_min, t_max, cull)
                .map(|hit| (hit, self.root));
        }
        // No separate root-box test: testing the root's children rejects a
        // ray that misses everything just as fast.
        if self.walks_fast(ray, t_min, t_max) {
            let walk = FirstHit {
                bvh: self,
                ray,
                t_min,
                t_max,
                cull,
                stack,
            };
            isa.run(walk)
        } else {
            let test = SlabTest::new(ray, t_min);
            let tris4 = Pack4Ray::new(ray);
            self.walk_first(
                t_max,
                stack,
                |q, t_hi| test.test(q, t_hi),
                |leaf, t_hi| self.leaf_first(ray, &tris4, leaf, t_min, t_hi, cull),
            )
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

    /// [`Bvh::leaf_first`] eight triangles at a time: the leaf's packs in
    /// pairs (a last pack alone with its upper lanes unused), each pair
    /// tested by [`Pack8Ray::first`] (the same answer).
    #[inline(always)]
    pub(super) fn leaf_first8<L: Lanes8>(
        &self,
        ray: &RayPrecomp,
        tris8: &Pack8Ray<L>,
        leaf: NodeRef,
        t_min: f32,
        t_hi: f32,
        cull: CullMode,
    ) -> Option<(u32, TriHit)> {
        let mut best: Option<(u32, TriHit)> = None;
        let mut t_hi = t_hi;
        for pair in self.packs_of(leaf).chunks(2) {
            let (lo, hi, used) = match pair {
                [a, b] => (a, b, a.used | b.used << 4),
                [a] => (a, a, a.used),
                _ => continue,
            };
            if let Some((id, h)) = tris8.first(ray, lo, hi, used, t_min, t_hi, cull) {
                if precedes(id, h.t, best.map(|(bid, bh)| (bid, bh.t))) {
                    best = Some((id, h));
                    t_hi = h.t;
                }
            }
        }
        best
    }

    /// Prefetches the node (its four cache lines) or the leaf's first pack
    /// (its three) `r` refers to.
    #[inline(always)]
    pub(super) fn prefetch(&self, r: NodeRef) {
        if r.count == 0 {
            if let Some(q) = self.nodes.get(r.index as usize) {
                prefetch(q);
                prefetch(&q.planes[2]);
                prefetch(&q.planes[4]);
                prefetch(&q.index);
            }
        } else if let Some(p) = self.packs.get(r.index as usize) {
            prefetch(p);
            prefetch(&p.p[1][1]);
            prefetch(&p.id);
        }
    }

    /// Of node `q`'s children entered (`mask`, not empty, at entry
    /// distances `near`), pushes all but the nearest onto `stack` with
    /// their distances, each prefetched, farthest first so that they pop
    /// front to back (equal distances: the lower lane is nearer), and
    /// returns the nearest's lane, the child to visit next. Two children
    /// are ordered branch-free; three or more by [`by_distance`]. The one
    /// child choice of every one-ray walk (`walk_first`, and the
    /// interleaved walks' turns).
    #[inline(always)]
    pub(super) fn push_far_children(
        &self,
        q: &Node,
        mask: u32,
        near: &[f32; WIDTH],
        stack: &mut MeshStack,
    ) -> usize {
        let first = mask.trailing_zeros() as usize;
        let rest = mask & (mask - 1);
        if rest == 0 {
            return first;
        }
        let second = rest.trailing_zeros() as usize;
        if rest & (rest - 1) == 0 {
            let swap = near[second] < near[first];
            let (a, b) = if swap {
                (second, first)
            } else {
                (first, second)
            };
            self.prefetch(q.child(b));
            stack.push((q.index[b], q.count[b], near[b]));
            return a;
        }
        let order = by_distance(mask, near);
        let n = mask.count_ones() as usize;
        for &k in &order[..n - 1] {
            let k = usize::from(k);
            self.prefetch(q.child(k));
            stack.push((q.index[k], q.count[k], near[k]));
        }
        usize::from(order[n - 1])
    }

    /// The front-to-back walk of one ray (a tree of more than one leaf),
    /// with `boxes` giving a node's children the ray enters (bit mask) and
    /// their entry distances within `[t_min, t_hi]`, and `leaf` a leaf's
    /// closest hit within `[t_min, t_hi]`: the children entered are visited
    /// nearest first (a lower lane first on ties), the others kept on the
    /// stack with their entry distances and skipped when they are popped
    /// beyond the closest hit found by then.
    #[inline(always)]
    fn walk_first(
        &self,
        t_max: f32,
        stack: &mut MeshStack,
        boxes: impl Fn(&Node, f32) -> (u32, [f32; WIDTH]),
        leaf: impl Fn(NodeRef, f32) -> Option<(u32, TriHit)>,
    ) -> Option<LeafHit> {
        let mut best: Option<(u32, TriHit)> = None;
        // (the leaf of `best`)
        let mut best_leaf = NodeRef::default();
        let mut t_hi = t_max;
        // Box pruning bound: t_hi plus a little slack (see `prune_bound`).
        let mut prune = t_max;
        let NodeRef {
            mut index,
            mut count,
        } = self.root;
        loop {
            if count == 0 {
                let q = &self.nodes[index as usize];
                let (mask, near) = boxes(q, prune);
                if mask != 0 {
                    let first = self.push_far_children(q, mask, &near, stack);
                    (index, count) = (q.index[first], q.count[first]);
                    continue;
                }
            } else if let Some(hit) = leaf(NodeRef { index, count }, t_hi) {
                if keep_closest(&mut best, &mut t_hi, &mut prune, hit) {
                    best_leaf = NodeRef { index, count };
                }
            }
            // Pop the next node still in range.
            loop {
                let Some((i, c, t_enter)) = stack.pop() else {
                    return best.map(|hit| (hit, best_leaf));
                };
                if t_enter <= prune {
                    (index, count) = (i, c);
                    break;
                }
            }
        }
    }

    /// The corners of triangle `id` of `leaf` (as the tree stores them: the
    /// mesh's vertex positions), `None` when the leaf does not hold it.
    #[inline]
    pub(crate) fn leaf_corners(&self, leaf: NodeRef, id: u32) -> Option<[glam::Vec3; 3]> {
        let first = leaf.index as usize;
        let packs = self
            .packs
            .get(first..first + (leaf.count as usize).div_ceil(4))?;
        // (the lanes compared at once, without a branch per lane)
        packs.iter().find_map(|pk| {
            let lanes = glam::UVec4::from_array(pk.id).cmpeq(glam::UVec4::splat(id));
            let k = lanes.bitmask() & pk.used;
            (k != 0).then(|| pk.corners(k.trailing_zeros() as usize))
        })
    }

    /// Appends every hit of `ray` with `t_min <= t <= t_max` among the
    /// non-culled triangles to `out` as `(triangle index, hit)`, then sorts
    /// `out` by `(t, triangle index)` (the whole of `out`, so pass an empty
    /// vector unless merging is intended): [`Bvh::each_hit_on`] on the
    /// CPU's best instruction set, sorted (the tests' form).
    #[cfg(test)]
    pub(crate) fn all_hits(
        &self,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
        out: &mut Vec<(u32, TriHit)>,
    ) {
        self.each_hit_on(Isa::detect(), ray, t_min, t_max, cull, |id, h, _| {
            out.push((id, h));
        });
        out.sort_by(|a, b| a.1.t.total_cmp(&b.1.t).then(a.0.cmp(&b.0)));
    }

    /// Calls `f(triangle index, hit, its leaf)` for every hit of `ray` with
    /// `t_min <= t <= t_max` among the non-culled triangles, in the walk's
    /// order (no order the caller may rely on), on the instruction set
    /// `isa`: for the rays [`Bvh::walks_fast`] takes, each node's eight
    /// children are tested at once on its lanes ([`NodeTest`], the
    /// first-hit walk's test; not on wasm32), else with the generic
    /// [`SlabTest`]. Both are conservative (a box that holds a hit within
    /// the range is always entered), so the hits are the same either way;
    /// each is [`intersect`]'s, four triangles at a time
    /// ([`Pack4Ray::each`]) from the leaves' packs, not the mesh arrays.
    /// Allocates only when the walk's stack of 64 entries overflows (its
    /// spill vector: a tree deeper than balanced builds make).
    ///
    /// [`intersect`]: crate::accel::triangle::intersect
    #[inline]
    pub(crate) fn each_hit_on(
        &self,
        isa: Isa,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
        mut f: impl FnMut(u32, TriHit, NodeRef),
    ) {
        let range_ok = t_min <= t_max; // false for NaN
        if self.is_empty() || !ray.is_valid() || !range_ok {
            return;
        }
        // (wasm32 has one instruction set and keeps the generic test alone:
        // the second walk would cost the browser module 1.2 KB gzipped)
        if !cfg!(target_arch = "wasm32") && self.walks_fast(ray, t_min, t_max) {
            isa.run(EachHit {
                bvh: self,
                ray,
                t_min,
                t_max,
                cull,
                f,
            });
        } else {
            let boxes = SlabTest::new(ray, t_min);
            self.walk_each(ray, t_min, t_max, cull, |q| boxes.test(q, t_max).0, &mut f);
        }
    }

    /// The walk of [`Bvh::each_hit_on`] with the box test `boxes` (a node's
    /// mask of children entered within the range).
    #[inline(always)]
    fn walk_each(
        &self,
        ray: &RayPrecomp,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
        boxes: impl Fn(&Node) -> u32,
        f: &mut impl FnMut(u32, TriHit, NodeRef),
    ) {
        let tris = Pack4Ray::new(ray);
        let mut stack: Stack<(u32, u32), 64> = Stack::new();
        stack.push((self.root.index, self.root.count));
        while let Some((index, count)) = stack.pop() {
            if count == 0 {
                let q = &self.nodes[index as usize];
                for k in set_bits(boxes(q)) {
                    // (each child entered is visited: its node or packs
                    // asked for now, while the others are walked)
                    self.prefetch(q.child(k));
                    stack.push((q.index[k], q.count[k]));
                }
            } else {
                let leaf = NodeRef { index, count };
                for pk in self.packs_of(leaf) {
                    tris.each(ray, pk, t_min, t_max, cull, |id, h| f(id, h, leaf));
                }
            }
        }
    }
}
