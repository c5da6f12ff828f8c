//! The binned SAH build: a binary tree over primitive boxes, for the mesh
//! BVH (triangles, leaves of up to eight) and the top level (mesh world
//! boxes, one per leaf) alike.
//!
//! Up to [`BINS`] bins over the centroid bounds of each node, no sorting;
//! large nodes bin along their widest centroid axis only, small ones along
//! all three. A node becomes a leaf at [`Leaves::min`] primitives or fewer,
//! or at [`Leaves::max`] or fewer when the SAH prefers not to split; nodes
//! whose centroids all coincide are split at the count median, and nodes
//! that would make the tree deeper than [`MAX_DEPTH`] levels at the object
//! median. [`build_par`] builds nodes of more than a few thousand
//! primitives in parallel with `rayon::join` (and bins the root with a
//! parallel reduction); [`build_serial`] stays on the calling thread. Every
//! decision depends only on the data: reductions are exact min/max/sums and
//! parallel sub-trees are stitched in a fixed order, so the tree is
//! bit-identical for any number of threads.

use glam::{BVec3A, Vec3A, Vec3Swizzles};

use super::{NodeRef, MAX_DEPTH};
use crate::par;

/// Number of SAH bins per axis.
pub const BINS: usize = 16;
/// SAH cost of one traversal step relative to one primitive test.
const COST_TRAVERSAL: f32 = 1.0;
/// Nodes with fewer primitives bin along all three axes, larger ones along
/// the widest centroid axis only.
const ALL_AXES_BELOW: usize = 64;
/// Nodes with at least this many primitives build their children in
/// parallel.
pub(crate) const PAR_BUILD_MIN: usize = 4096;
/// Nodes with at least this many primitives bin in parallel.
pub(super) const PAR_BIN_MIN: usize = 1 << 15;

/// When a node becomes a leaf, and what a leaf's primitives cost.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Leaves {
    /// Always make a leaf at or below this many primitives.
    min: usize,
    /// The SAH may choose a leaf up to this many primitives.
    max: usize,
    /// Primitives tested together: the SAH counts a leaf's cost in blocks
    /// of this many (a leaf's pack of four triangles is one test whether
    /// it holds one triangle or four), so it prefers full blocks.
    block: u32,
}

impl Leaves {
    /// The SAH cost of `n` primitives in a leaf, per unit of area.
    #[inline(always)]
    fn cost(self, n: u32) -> f32 {
        n.div_ceil(self.block) as f32
    }
}

/// The mesh BVH's leaves: up to four triangles always, up to eight when the
/// SAH prefers a leaf; costed by packs of four.
pub(crate) const MESH_LEAVES: Leaves = Leaves {
    min: 4,
    max: 8,
    block: 4,
};
/// One primitive per leaf (the top level: one mesh per leaf).
pub(crate) const ONE_PER_LEAF: Leaves = Leaves {
    min: 1,
    max: 1,
    block: 1,
};

/// SIMD-friendly box of the build: a primitive's, a node's or a set of
/// centroids' bounds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Box3 {
    pub(crate) lo: Vec3A,
    pub(crate) hi: Vec3A,
}

impl Box3 {
    /// The empty box, identity of [`Box3::union`] and [`Box3::grow`].
    pub(crate) const EMPTY: Box3 = Box3 {
        lo: Vec3A::INFINITY,
        hi: Vec3A::NEG_INFINITY,
    };

    #[inline(always)]
    pub(crate) fn union(&self, o: &Box3) -> Box3 {
        Box3 {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    #[inline(always)]
    pub(crate) fn grow(&self, p: Vec3A) -> Box3 {
        Box3 {
            lo: self.lo.min(p),
            hi: self.hi.max(p),
        }
    }

    #[inline(always)]
    pub(crate) fn center(&self) -> Vec3A {
        self.lo * 0.5 + self.hi * 0.5
    }

    /// Half the surface area; callers only use it on non-empty boxes.
    #[inline(always)]
    pub(crate) fn half_area(&self) -> f32 {
        let d = self.hi - self.lo;
        (d * d.yzx()).element_sum()
    }
}

/// One SAH bin: the primitives whose centroids fall into it.
#[derive(Clone, Copy)]
struct Bin {
    /// Bounds of the primitives in the bin.
    bounds: Box3,
    /// Bounds of their centroids.
    centroids: Box3,
    count: u32,
}

const EMPTY_BIN: Bin = Bin {
    bounds: Box3::EMPTY,
    centroids: Box3::EMPTY,
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
                b.centroids = b.centroids.grow(c);
                b.count += 1;
            }
            0
        } else {
            let bin = grid.bin_on::<AXIS>(r);
            let b = &mut self.0[AXIS][bin];
            b.bounds = b.bounds.union(r);
            b.centroids = b.centroids.grow(c);
            b.count += 1;
            bin as u8
        }
    }

    fn merge(&mut self, o: &Bins, grid: &BinGrid) {
        for axis in grid.axes() {
            let nb = grid.nb;
            for (s, b) in self.0[axis][..nb].iter_mut().zip(&o.0[axis][..nb]) {
                s.bounds = s.bounds.union(&b.bounds);
                s.centroids = s.centroids.union(&b.centroids);
                s.count += b.count;
            }
        }
    }

    /// Bins `refs` (two interleaved bin sets hide the store-to-load latency
    /// of consecutive primitives landing in the same bin; the merge is exact,
    /// so the result does not depend on the interleaving). When binning a
    /// single axis, also records each primitive's bin in `tags`.
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
    /// Per-primitive bin on the binned axis (single-axis nodes).
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

    /// The primitive's bin on each axis. Binning and partitioning both use
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

/// Result of splitting a node: a leaf, or the children's sizes (the first
/// `mid` primitives go left) and their primitive and centroid bounds.
enum Split {
    Leaf,
    Inner {
        mid: usize,
        left: (Box3, Box3),
        right: (Box3, Box3),
    },
}

/// A binary node's two children as the builder makes them: their bounds
/// and references (for the mesh BVH, collapsed into 4-wide nodes
/// afterwards).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pair {
    pub(crate) bounds: [Box3; 2],
    pub(crate) child: [NodeRef; 2],
}

impl Pair {
    /// A pair with the given child bounds; references are filled in later.
    fn with_bounds(l: &Box3, r: &Box3) -> Pair {
        Pair {
            bounds: [*l, *r],
            child: [NodeRef::default(); 2],
        }
    }

    fn set_children(&mut self, l: NodeRef, r: NodeRef) {
        self.child = [l, r];
    }
}

/// A sub-tree made by [`build_par`] (collapsed into 4-wide nodes in a fixed
/// order afterwards).
pub(crate) enum Subtree {
    /// A serially built sub-tree: its root and its pairs, which refer to
    /// each other by index into `pairs`.
    Chunk { root: NodeRef, pairs: Vec<Pair> },
    /// A node split in parallel: its children's bounds and sub-trees.
    Parallel {
        bounds: (Box3, Box3),
        children: Box<(Subtree, Subtree)>,
    },
}

impl Subtree {
    /// Number of interior nodes.
    pub(crate) fn pair_count(&self) -> usize {
        match self {
            Subtree::Chunk { pairs, .. } => pairs.len(),
            Subtree::Parallel { children, .. } => {
                1 + children.0.pair_count() + children.1.pair_count()
            }
        }
    }
}

/// Builds the binary tree over `refs` (the primitives' boxes, with `ids`
/// reordered alongside; the node at `depth` holding them, its leaves
/// referring to positions from `base`), nodes of [`PAR_BUILD_MIN`]
/// primitives or more in parallel.
pub(crate) fn build_par(
    refs: &mut [Box3],
    ids: &mut [u32],
    base: u32,
    (bounds, cbounds): (Box3, Box3),
    depth: u32,
    leaves: Leaves,
) -> Subtree {
    let n = refs.len();
    let mut scratch = Scratch::new();
    if n < PAR_BUILD_MIN {
        let mut b = Builder {
            pairs: Vec::with_capacity(n / 2),
            scratch: &mut scratch,
            leaves,
        };
        let root = b.build(refs, ids, base, (bounds, cbounds), depth);
        return Subtree::Chunk {
            root,
            pairs: b.pairs,
        };
    }
    match split(
        &mut scratch,
        refs,
        ids,
        (bounds, cbounds),
        depth,
        leaves,
        true,
    ) {
        Split::Leaf => Subtree::Chunk {
            root: NodeRef::leaf(base, n as u32),
            pairs: Vec::new(),
        },
        Split::Inner { mid, left, right } => {
            drop(scratch);
            let (rl, rr) = refs.split_at_mut(mid);
            let (il, ir) = ids.split_at_mut(mid);
            let children = par::join(
                || build_par(rl, il, base, left, depth + 1, leaves),
                || build_par(rr, ir, base + mid as u32, right, depth + 1, leaves),
            );
            Subtree::Parallel {
                bounds: (left.0, right.0),
                children: Box::new(children),
            }
        }
    }
}

/// Builds the binary tree over `refs` (the primitives' boxes, with `ids`
/// reordered alongside; `bounds`: their bounds and their centroids') on the
/// calling thread: its root and its pairs, which refer to each other by
/// index into the pairs, and to the leaves' primitives by position in
/// `refs`/`ids`.
pub(crate) fn build_serial(
    refs: &mut [Box3],
    ids: &mut [u32],
    (bounds, cbounds): (Box3, Box3),
    leaves: Leaves,
) -> (NodeRef, Vec<Pair>) {
    let mut scratch = Scratch::new();
    let mut b = Builder {
        pairs: Vec::with_capacity(refs.len() / 2),
        scratch: &mut scratch,
        leaves,
    };
    let root = b.build(refs, ids, 0, (bounds, cbounds), 1);
    (root, b.pairs)
}

/// Serial depth-first builder of one chunk.
struct Builder<'a> {
    pairs: Vec<Pair>,
    scratch: &'a mut Scratch,
    leaves: Leaves,
}

impl Builder<'_> {
    fn build(
        &mut self,
        refs: &mut [Box3],
        ids: &mut [u32],
        base: u32,
        bounds: (Box3, Box3),
        depth: u32,
    ) -> NodeRef {
        match split(self.scratch, refs, ids, bounds, depth, self.leaves, false) {
            Split::Leaf => NodeRef::leaf(base, refs.len() as u32),
            Split::Inner { mid, left, right } => {
                let p = self.pairs.len();
                self.pairs.push(Pair::with_bounds(&left.0, &right.0));
                let (rl, rr) = refs.split_at_mut(mid);
                let (il, ir) = ids.split_at_mut(mid);
                let l = self.build(rl, il, base, left, depth + 1);
                let base_r = base + mid as u32;
                let r = self.build(rr, ir, base_r, right, depth + 1);
                self.pairs[p].set_children(l, r);
                NodeRef::inner(p as u32)
            }
        }
    }
}

/// Levels needed below a node of `n` primitives with count-median splits
/// down to leaves of `leaf_min`.
fn median_height(n: usize, leaf_min: usize) -> u32 {
    let mut h = 1;
    let mut n = n;
    while n > leaf_min {
        n = n.div_ceil(2);
        h += 1;
    }
    h
}

/// Decides how to split the node holding `refs`/`ids` (reordering them) and
/// returns the children's primitive and centroid bounds; `(bounds,
/// cbounds)`: the node's.
fn split(
    scratch: &mut Scratch,
    refs: &mut [Box3],
    ids: &mut [u32],
    (bounds, cbounds): (Box3, Box3),
    depth: u32,
    leaves: Leaves,
    parallel: bool,
) -> Split {
    let n = refs.len();
    if n <= leaves.min {
        return Split::Leaf;
    }
    if depth + median_height(n, leaves.min) > MAX_DEPTH {
        // Unreachable for ordinary meshes: an adversarial centroid
        // distribution made the SAH chain too deep. Object median keeps the
        // rest of the sub-tree balanced.
        return object_median_split(refs, ids, cbounds);
    }
    // Small nodes use fewer bins (one per four primitives): same quality,
    // less per-node work.
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
        use crate::par::prelude::*;
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

    // SAH sweep: cost(split after bin i) = area_l * cost(n_l) + area_r *
    // cost(n_r).
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
                acc.half_area() * leaves.cost(cnt)
            };
        }
        let (mut acc, mut cnt) = (Box3::EMPTY, 0u32);
        for i in 0..nb - 1 {
            acc = acc.union(&bins[i].bounds);
            cnt += bins[i].count;
            if cnt == 0 {
                continue;
            }
            let cost = acc.half_area() * leaves.cost(cnt) + right_cost[i];
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
    let leaf_cost = leaves.cost(n as u32) * node_area;
    if n <= leaves.max && leaf_cost <= COST_TRAVERSAL * node_area + best_cost {
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
            (b.union(&bin.bounds), c.union(&bin.centroids))
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

/// The bounds of `refs` and of their centroids.
pub(crate) fn bounds_of(refs: &[Box3]) -> (Box3, Box3) {
    refs.iter().fold((Box3::EMPTY, Box3::EMPTY), |(b, c), r| {
        (b.union(r), c.grow(r.center()))
    })
}

/// Splits at `mid` in the current order, computing the children's bounds.
fn count_median_split(refs: &[Box3], mid: usize) -> Split {
    Split::Inner {
        mid,
        left: bounds_of(&refs[..mid]),
        right: bounds_of(&refs[mid..]),
    }
}

/// Orders the primitives by centroid along the widest centroid axis (ties by
/// id) and splits at the median.
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
