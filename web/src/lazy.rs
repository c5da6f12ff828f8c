//! Picks on a fresh pose that skin only what the ray can reach.
//!
//! A pose of a skinned or morphed object (`Pose`) is kept as it came, and
//! a ray query on it skins only the vertices of the triangle clusters the
//! ray enters. Once per geometry version, each primitive's triangles are
//! split into a tree of clusters ([`Tree`]: runs of [`LEAF_TRIANGLES`] in
//! the Morton order of the rest pose's triangle centroids, halved
//! recursively); each
//! node keeps, for every bone weighing one of its vertices, the box of
//! those vertices' rest positions, the box of each morph target's deltas
//! and the range of the vertices' weight sums ([`Bounds`]).
//!
//! **Why a node's posed box holds its posed vertices.** A vertex is
//! `p = Σₖ ωₖ·Aⱼₖ·m` (`pose.rs`: `Aⱼ` the bone's matrix in the object's
//! space, `m = v + Σ wₜ·dₜ` the morphed rest position, `ωₖ ≥ 0`). `m` lies
//! in `B + E`, where `B` is the box of the rest positions and
//! `E = Σ wₜ ⊗ Dₜ` (each influence times the box of its target's deltas,
//! interval products), so each `Aⱼ·m` lies in the box of `Aⱼ·(Bⱼ + E)`,
//! `Bⱼ` the box of the vertices bone `j` weighs. With `s = Σ ωₖ > 0`,
//! `p = s·q` where `q = Σ (ωₖ/s)·Aⱼₖ·m` is a convex combination of those
//! points, so `q` lies in the union `U` of the bones' boxes, and `p` in
//! `[s_min, s_max] ⊗ U` (three.js does not normalise weights: when they sum
//! to 1, as glTF asks, this is `U`). A vertex whose weights are all zero
//! poses to the origin, which the box then takes in. Negative weights
//! break the hull argument: a geometry with one is posed in full, as
//! before. The boxes are computed in f32, as are the vertices, so each is
//! widened by 2⁻¹⁶ of the magnitude of the terms it is made of, where the
//! roundings of either are a few units of 2⁻²⁴ of it (four products and
//! sums per matrix row, one per morph target). A box that is not finite
//! (an overflow) is replaced by all of space.
//!
//! **Why the hits are the full pose's, bit for bit.** A vertex is posed by
//! the same `Pose::vertex` as in the full pose; the ray is taken into the
//! mesh's space by the same operations as softpick's caster (the node's
//! world matrix, `Mat4::inverse`, `RayPrecomp::new`); each triangle is
//! tested by softpick's own watertight test (`intersect`), with its
//! corners in the mesh's order, and the hit kept is the nearest, equal
//! distances to the lower triangle (then to the lower mesh), the order of
//! every softpick query. The cluster walk only decides which triangles are
//! tested: front to back, it skips a box whose entry lies past the nearest
//! hit plus softpick's own pruning slack (2⁻¹⁶ of it), so no triangle that
//! could win is left out. The tests compare both paths over many rays and
//! poses (`lazy::tests`, `web/test/browser.test.mjs`).
//!
//! **When it pays.** A ray on a fresh pose costs the boxes of the nodes
//! it visits (one matrix product per bone of each), the skinning of the
//! leaves it enters and their triangles' tests; the full pose skins every
//! vertex, refits the BVHs and makes a new caster, after which a ray costs
//! little. So the rays on one pose count their work ([`LazyPose::work`]:
//! the bone boxes made, the vertices posed, the triangles tested, each
//! about the cost of posing one vertex), and once it has reached the
//! object's vertex count (what the full pose costs, at least), the next
//! ray poses the object in full (`World::settle`) and goes through
//! softpick's BVHs, as before: one ray per frame on the Fox (1,728
//! vertices) costs about 700 and stays lazy, the third does not; on the
//! 19,296-vertex tube, a few dozen rays do. A batch of rays
//! (`query::batch`) and anything else that needs the posed meshes (a
//! render, a selection, clip planes, a change of the scene's structure)
//! poses in full first.

use std::sync::Arc;

use glam::{Mat4, Vec3, Vec4};
use softpick::internals::{intersect, local_ray_parts, RayPrecomp, TriHit};
use softpick::{Aabb, CullMode, Ray};

use crate::geometry::Geometry;
use crate::pose::Pose;

/// Triangles in a leaf cluster at most: small enough that a ray skins a
/// few hundred vertices, large enough that the tree's boxes cost little
/// against the triangles' tests.
pub(crate) const LEAF_TRIANGLES: usize = 8;

/// softpick's pruning slack (`geometry::PRUNE_SLACK`): a box is skipped
/// only when it is entered past the nearest hit plus this much of it.
const PRUNE_SLACK: f32 = 1.0 / 65536.0;

/// The widening of a posed box, relative to the magnitude of its terms.
const BOX_SLACK: f32 = 1.0 / 65536.0;

/// softpick's first-hit order (`accel::triangle::precedes`): does a hit at
/// `t` of triangle (or mesh) `id` come before `best`?
#[inline(always)]
pub(crate) fn precedes(id: u32, t: f32, best: Option<(u32, f32)>) -> bool {
    best.is_none_or(|(bid, bt)| t < bt || (t == bt && id < bid))
}

#[inline(always)]
fn prune_bound(t: f32) -> f32 {
    t + t.abs() * PRUNE_SLACK
}

/// What is known of a set of vertices before any pose (see the module
/// docs).
#[derive(Clone, Debug, Default)]
struct Bounds {
    /// Per bone weighing one of the vertices (nonzero weight): the box of the rest positions of those it weighs.
    bones: Vec<(u16, Aabb)>,
    /// The box of every rest position.
    rest: Aabb,
    /// Per morph target, the box of the vertices' deltas.
    deltas: Vec<Aabb>,
    /// The smallest and largest weight sum of the weighted vertices.
    scale: [f32; 2],
    /// A vertex has no nonzero weight (it skins to the origin).
    unweighted: bool,
}

impl Bounds {
    fn empty(targets: usize) -> Bounds {
        Bounds {
            bones: Vec::new(),
            rest: Aabb::empty(),
            deltas: vec![Aabb::empty(); targets],
            scale: [f32::INFINITY, f32::NEG_INFINITY],
            unweighted: false,
        }
    }

    fn add_vertex(&mut self, g: &Geometry, v: usize) {
        let p = g.positions[v];
        self.rest.grow(p);
        for (d, t) in self.deltas.iter_mut().zip(&g.deform.targets) {
            d.grow(t[v]);
        }
        let d = &g.deform;
        if d.joints.is_empty() {
            return;
        }
        let (js, ws) = (d.joints[v], d.weights[v]);
        // (the sum of four f32 values in f64: exact, or within an ulp of
        // f64, far below the boxes' widening)
        let s: f64 = ws.iter().map(|&w| f64::from(w)).sum();
        let mut weighted = false;
        for k in 0..4 {
            if ws[k] != 0.0 {
                weighted = true;
                let mut b = Aabb::empty();
                b.grow(p);
                self.grow_bone(js[k], &b);
            }
        }
        if weighted {
            // (rounded outward to f32)
            let lo = s as f32;
            let lo = if f64::from(lo) > s {
                lo.next_down()
            } else {
                lo
            };
            let hi = s as f32;
            let hi = if f64::from(hi) < s { hi.next_up() } else { hi };
            self.scale = [self.scale[0].min(lo), self.scale[1].max(hi)];
        } else {
            self.unweighted = true;
        }
    }

    /// Grows bone `j`'s box by `b` (a bone new to the list is added).
    fn grow_bone(&mut self, j: u16, b: &Aabb) {
        match self.bones.iter_mut().find(|e| e.0 == j) {
            Some(e) => e.1 = e.1.union(b),
            None => self.bones.push((j, *b)),
        }
    }

    fn union(a: &Bounds, b: &Bounds) -> Bounds {
        let mut out = a.clone();
        for (j, bx) in &b.bones {
            out.grow_bone(*j, bx);
        }
        out.rest = out.rest.union(&b.rest);
        for (d, e) in out.deltas.iter_mut().zip(&b.deltas) {
            *d = d.union(e);
        }
        out.scale = [out.scale[0].min(b.scale[0]), out.scale[1].max(b.scale[1])];
        out.unweighted |= b.unweighted;
        out
    }
}

/// The absolute values of a pose's bone matrices, for the boxes: per bone
/// the first three columns; the largest row sum of those (over every
/// bone and axis) and the largest translation component.
#[derive(Clone, Debug, Default)]
struct AbsMats {
    axes: Vec<[Vec4; 3]>,
    row: f32,
    shift: f32,
}

impl AbsMats {
    /// Refills these from `pose`, keeping the memory of the last pose (a
    /// pose per frame allocates nothing once the bone count is reached).
    fn refill(&mut self, pose: &Pose) {
        self.axes.clear();
        (self.row, self.shift) = (0.0, 0.0);
        for m in &pose.mats {
            let (x, y, z) = (m.x_axis.abs(), m.y_axis.abs(), m.z_axis.abs());
            self.axes.push([x, y, z]);
            self.row = self.row.max((x + y + z).truncate().max_element());
            self.shift = self.shift.max(m.w_axis.truncate().abs().max_element());
        }
    }
}

/// The cluster tree of one primitive's triangles: a complete binary tree
/// in an array (node `n`'s children are `2n + 1` and `2n + 2`), its last
/// level the leaves, the leaves past the triangles empty.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tree {
    /// Per node, its [`Bounds`] as the walk reads them (the bones' boxes
    /// and the targets' delta boxes of every node in one array each: a
    /// node's are side by side in memory).
    nodes: Vec<NodeBounds>,
    bones: Vec<BoneBox>,
    /// `targets` delta boxes per node.
    deltas: Vec<Aabb>,
    targets: usize,
    /// The primitive's triangle numbers, leaf after leaf.
    order: Vec<u32>,
    /// Per leaf, its vertices (each once).
    leaf_vertices: Vec<Vec<u32>>,
}

impl Tree {
    /// The node of leaf 0.
    fn first_leaf(&self) -> usize {
        self.nodes.len() / 2
    }

    /// The tree of triangles `tris` of `g`: the triangles in the order of
    /// their rest centroids' Morton codes (10 bits per axis over the
    /// centroids' box), cut into leaves of [`LEAF_TRIANGLES`]. (Any order
    /// of the triangles gives the same hits: the walk keeps the nearest
    /// hit, ties to the lower triangle, whatever order it meets them in.)
    fn build(g: &Geometry, tris: &[[u32; 3]]) -> Tree {
        let mut t = Tree::default();
        if tris.is_empty() {
            return t;
        }
        let centroid = |c: &[u32; 3]| c.map(|v| g.positions[v as usize]).iter().sum::<Vec3>();
        let mut cb = Aabb::empty();
        for c in tris {
            let p = centroid(c);
            if p.is_finite() {
                cb.grow(p);
            }
        }
        let scale = 1023.0 / (cb.max - cb.min).max(Vec3::splat(f32::MIN_POSITIVE));
        let codes: Vec<u32> = tris
            .iter()
            .map(|c| {
                let q = ((centroid(c) - cb.min) * scale).clamp(Vec3::ZERO, Vec3::splat(1023.0));
                // (NaN, from a non-finite centroid, is cast to 0)
                spread(q.x as u32) | spread(q.y as u32) << 1 | spread(q.z as u32) << 2
            })
            .collect();
        t.order = radix_order(&codes);
        let leaves = tris.len().div_ceil(LEAF_TRIANGLES).next_power_of_two();
        let mut nodes = vec![Bounds::empty(g.deform.targets.len()); 2 * leaves - 1];
        let mut seen = vec![usize::MAX; g.positions.len()];
        for (j, run) in t.order.chunks(LEAF_TRIANGLES).enumerate() {
            let mut verts = Vec::new();
            for &k in run {
                for v in tris[k as usize] {
                    if seen[v as usize] != j {
                        seen[v as usize] = j;
                        verts.push(v);
                    }
                }
            }
            let b = &mut nodes[leaves - 1 + j];
            for &v in &verts {
                b.add_vertex(g, v as usize);
            }
            t.leaf_vertices.push(verts);
        }
        for n in (0..leaves - 1).rev() {
            nodes[n] = Bounds::union(&nodes[2 * n + 1], &nodes[2 * n + 2]);
        }
        t.targets = g.deform.targets.len();
        for b in &nodes {
            let first = t.bones.len() as u32;
            t.bones.extend(b.bones.iter().map(|(j, bx)| {
                let (lo, hi) = (bx.min.extend(1.0), bx.max.extend(1.0));
                BoneBox {
                    j: u32::from(*j),
                    c: lo * 0.5 + hi * 0.5,
                    h: hi * 0.5 - lo * 0.5,
                }
            }));
            t.deltas.extend(&b.deltas);
            t.nodes.push(NodeBounds {
                bones: [first, t.bones.len() as u32],
                rest: b.rest,
                scale: b.scale,
                unweighted: b.unweighted,
            });
        }
        t
    }

    /// The box holding the vertices of node `n` posed by `pose` (see the
    /// module docs), `abs` its bone matrices' absolute values.
    fn posed(&self, n: usize, pose: &Pose, abs: &AbsMats) -> Aabb {
        let node = &self.nodes[n];
        // E = Σ wₜ ⊗ Dₜ, and the magnitude of its terms
        let (mut e_lo, mut e_hi, mut e_mag) = (Vec3::ZERO, Vec3::ZERO, 0.0f32);
        let deltas = &self.deltas[n * self.targets..(n + 1) * self.targets];
        for (d, &w) in deltas.iter().zip(&pose.influences) {
            if w != 0.0 && !d.is_empty() {
                let (a, b) = (d.min * w, d.max * w);
                e_lo += a.min(b);
                e_hi += a.max(b);
                e_mag += (d.min.abs().max(d.max.abs()) * w.abs()).max_element();
            }
        }
        let rest = node.rest;
        let (mut bx, mut mag) = (Aabb::empty(), 0.0f32);
        if !pose.skins() {
            if !rest.is_empty() {
                bx = Aabb {
                    min: rest.min + e_lo,
                    max: rest.max + e_hi,
                };
                mag = rest.min.abs().max(rest.max.abs()).max_element() + e_mag;
            }
        } else {
            // each bone's box (centre c, half extent h; E moves the centre
            // and widens the box) through its matrix, in the lanes of a
            // Vec4 (w unused): a few vector operations per bone
            let (ec, eh) = (
                (e_lo * 0.5 + e_hi * 0.5).extend(0.0),
                (e_hi * 0.5 - e_lo * 0.5).extend(0.0),
            );
            let (mut u_lo, mut u_hi) = (Vec4::splat(f32::INFINITY), Vec4::splat(f32::NEG_INFINITY));
            let [first, end] = node.bones;
            for b in &self.bones[first as usize..end as usize] {
                let j = b.j as usize;
                let (Some(a), Some([ax, ay, az])) = (pose.mats.get(j), abs.axes.get(j)) else {
                    continue;
                };
                let (c, h) = (b.c + ec, b.h + eh);
                let ext = *ax * h.x + *ay * h.y + *az * h.z;
                let center = a.w_axis + a.z_axis * c.z + a.y_axis * c.y + a.x_axis * c.x;
                u_lo = u_lo.min(center - ext);
                u_hi = u_hi.max(center + ext);
            }
            let u = Aabb {
                min: u_lo.truncate(),
                max: u_hi.truncate(),
            };
            // the terms' magnitude, |A|·|m| + |t| per axis, bounded by the
            // largest over the bones (of the pose: one bound for all nodes)
            let r = rest.min.abs().max(rest.max.abs()).max_element() + e_mag;
            mag = abs.row * r + abs.shift;
            if !u.is_empty() {
                let [s0, s1] = node.scale;
                bx = Aabb {
                    min: (u.min * s0).min(u.min * s1),
                    max: (u.max * s0).max(u.max * s1),
                };
                mag *= s1.max(1.0);
            }
            if node.unweighted {
                bx.grow(Vec3::ZERO);
            }
        }
        if bx.is_empty() {
            return bx;
        }
        let pad = Vec3::splat(mag * BOX_SLACK + f32::MIN_POSITIVE);
        let out = Aabb {
            min: bx.min - pad,
            max: bx.max + pad,
        };
        if out.min.is_finite() && out.max.is_finite() {
            out
        } else {
            Aabb {
                min: Vec3::NEG_INFINITY,
                max: Vec3::INFINITY,
            }
        }
    }
}

/// A node's [`Bounds`] as the walk reads them: its bones' boxes are
/// `Tree::bones[bones[0]..bones[1]]`.
#[derive(Clone, Copy, Debug, Default)]
struct NodeBounds {
    bones: [u32; 2],
    rest: Aabb,
    scale: [f32; 2],
    unweighted: bool,
}

/// A bone's box of a node's rest positions: its centre and half extent
/// (w lanes 1 and 0, as a point and a direction).
#[derive(Clone, Copy, Debug)]
struct BoneBox {
    j: u32,
    c: Vec4,
    h: Vec4,
}

/// The indices of `codes` (30-bit numbers) in ascending order of their
/// codes, equal codes in index order: three passes of a radix sort by 10
/// bits (a few lines, where a comparison sort is kilobytes of wasm).
fn radix_order(codes: &[u32]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..codes.len() as u32).collect();
    let mut next = vec![0u32; codes.len()];
    for pass in 0..3 {
        let digit = |i: u32| (codes[i as usize] >> (10 * pass) & 0x3ff) as usize;
        let mut start = vec![0u32; 1025];
        for &i in &order {
            start[digit(i) + 1] += 1;
        }
        for d in 0..1024 {
            start[d + 1] += start[d];
        }
        for &i in &order {
            let d = digit(i);
            next[start[d] as usize] = i;
            start[d] += 1;
        }
        std::mem::swap(&mut order, &mut next);
    }
    order
}

/// The bits of a 10-bit number spread to every third bit (for Morton codes).
fn spread(v: u32) -> u32 {
    let mut x = v & 0x3ff;
    x = (x | x << 16) & 0x0300_00ff;
    x = (x | x << 8) & 0x0300_f00f;
    x = (x | x << 4) & 0x030c_30c3;
    (x | x << 2) & 0x0924_9249
}

/// The cluster trees of a geometry (one per primitive), made once per
/// version of it.
#[derive(Debug, Default)]
pub(crate) struct Clusters {
    trees: Vec<Tree>,
    /// Per primitive, the place of its first node and of its first leaf
    /// among all the trees' (one more at the end: the totals).
    node_base: Vec<usize>,
    leaf_base: Vec<usize>,
    /// The largest bone index a vertex names with a nonzero weight.
    pub(crate) max_joint: Option<u16>,
    /// No weight is negative (else poses go in full: see the module docs).
    pub(crate) usable: bool,
}

impl Clusters {
    pub(crate) fn of(g: &Geometry) -> Clusters {
        let d = &g.deform;
        let mut max_joint = None;
        let mut usable = true;
        for (js, ws) in d.joints.iter().zip(&d.weights) {
            for k in 0..4 {
                if ws[k] != 0.0 {
                    max_joint = max_joint.max(Some(js[k]));
                }
                usable &= ws[k] >= 0.0;
            }
        }
        let trees: Vec<Tree> = g.prims.iter().map(|p| Tree::build(g, &p.tris)).collect();
        let (mut node_base, mut leaf_base) = (vec![0], vec![0]);
        for t in &trees {
            node_base.push(node_base[node_base.len() - 1] + t.nodes.len());
            leaf_base.push(leaf_base[leaf_base.len() - 1] + t.leaf_vertices.len());
        }
        Clusters {
            trees,
            node_base,
            leaf_base,
            max_joint,
            usable,
        }
    }
}

/// A ray taken into a mesh's space as softpick's caster takes it
/// (`pick::ray::query::local_ray` after `MeshTransform::new`).
pub(crate) struct LocalRay {
    pub(crate) ray: RayPrecomp,
    pub(crate) cull: CullMode,
    /// The placement mirrors (a hit's facing flips).
    pub(crate) mirrored: bool,
}

/// `ray` in the space of a mesh placed by `world`, or `None` where the
/// caster skips the mesh (a matrix it cannot invert, a local ray that is
/// not finite). The caster also skips a mesh whose world box overflows
/// f32; that box is of the posed vertices, which this does not know: such
/// a mesh (coordinates past 10³⁸) may be tested here where it is not there.
pub(crate) fn local_ray(world: Mat4, ray: &Ray, cull: CullMode) -> Option<LocalRay> {
    let det = world.determinant();
    if !(det != 0.0 && det.is_finite()) {
        return None;
    }
    let mirrored = det < 0.0;
    let (o, d) = if world == Mat4::IDENTITY {
        (ray.origin, ray.direction)
    } else {
        let inverse = world.inverse();
        (
            inverse.transform_point3(ray.origin),
            inverse.transform_vector3(ray.direction),
        )
    };
    let (ray, cull) = local_ray_parts(o, d, mirrored, cull)?;
    Some(LocalRay {
        ray,
        cull,
        mirrored,
    })
}

/// One mesh of a lazily posed object, as a walk needs it: its primitive,
/// its triangles (corners in softpick's order) and, for a mesh of both
/// windings, the primitive's triangle count (triangle `k + n` is `k`
/// reversed).
pub(crate) struct MeshPart<'a> {
    pub(crate) prim: usize,
    pub(crate) triangles: &'a [[u32; 3]],
    pub(crate) both: Option<u32>,
}

/// An object's pose waiting to be asked (see the module docs): the pose,
/// the vertices posed so far and the boxes made so far.
pub(crate) struct LazyPose {
    pub(crate) pose: Pose,
    abs: AbsMats,
    clusters: Arc<Clusters>,
    /// Posed vertices: those of the leaves posed on this pose.
    positions: Vec<Vec3>,
    /// Per node of every tree (`Clusters::node_base`), its posed box.
    boxes: Vec<Aabb>,
    /// Per node, the pose its box is of; per leaf, the pose its vertices
    /// are of (the current one is `stamp`).
    box_stamp: Vec<u32>,
    leaf_stamp: Vec<u32>,
    stamp: u32,
    /// The work of the rays on this pose, in units of posing one vertex:
    /// bone boxes made, vertices posed, triangles tested (see the module
    /// docs: past `budget`, the pose is applied in full).
    pub(crate) work: usize,
    /// The object's vertex count.
    pub(crate) budget: usize,
    /// Waiting: false once posed in full (the memory is kept for the next).
    pub(crate) active: bool,
    stack: Vec<(u32, f32)>,
}

impl LazyPose {
    pub(crate) fn new(pose: Pose, clusters: Arc<Clusters>, vertices: usize) -> LazyPose {
        let mut l = LazyPose {
            pose: Pose::default(),
            abs: AbsMats::default(),
            clusters: Arc::new(Clusters::default()),
            positions: Vec::new(),
            boxes: Vec::new(),
            box_stamp: Vec::new(),
            leaf_stamp: Vec::new(),
            stamp: 0,
            work: 0,
            budget: 0,
            active: false,
            stack: Vec::new(),
        };
        l.repose(pose, clusters, vertices);
        l
    }

    /// A new pose (of the geometry `clusters` were made of), the memory
    /// of the last one reused: what was posed for it is stamped with
    /// an older pose.
    pub(crate) fn repose(&mut self, pose: Pose, clusters: Arc<Clusters>, vertices: usize) {
        self.stamp = self.stamp.wrapping_add(1);
        if !Arc::ptr_eq(&self.clusters, &clusters) || self.stamp == 0 {
            let (nodes, leaves) = (
                clusters.node_base.last().copied().unwrap_or(0),
                clusters.leaf_base.last().copied().unwrap_or(0),
            );
            self.boxes = vec![Aabb::empty(); nodes];
            self.box_stamp = vec![0; nodes];
            self.leaf_stamp = vec![0; leaves];
            self.positions.resize(vertices, Vec3::ZERO);
            self.clusters = clusters;
            self.stamp = 1;
        }
        self.abs.refill(&pose);
        self.pose = pose;
        self.work = 0;
        self.budget = vertices;
        self.active = true;
    }

    /// The posed box of node `n` of primitive `prim`'s tree.
    #[inline]
    fn node_box(&mut self, prim: usize, n: usize) -> Aabb {
        let k = self.clusters.node_base[prim] + n;
        if self.box_stamp[k] != self.stamp {
            self.box_stamp[k] = self.stamp;
            let [first, end] = self.clusters.trees[prim].nodes[n].bones;
            self.work += 1 + (end - first) as usize;
            self.boxes[k] = self.clusters.trees[prim].posed(n, &self.pose, &self.abs);
        }
        self.boxes[k]
    }

    /// Poses the vertices of leaf `leaf` of primitive `prim` (once a pose).
    #[inline]
    fn skin_leaf(&mut self, g: &Geometry, prim: usize, leaf: usize) {
        let k = self.clusters.leaf_base[prim] + leaf;
        if self.leaf_stamp[k] == self.stamp {
            return;
        }
        self.leaf_stamp[k] = self.stamp;
        self.work += self.clusters.trees[prim].leaf_vertices[leaf].len();
        for &v in &self.clusters.trees[prim].leaf_vertices[leaf] {
            self.positions[v as usize] = self.pose.vertex(g, v as usize);
        }
    }

    /// The posed corners of triangle `t` of a mesh (after a walk reached it).
    pub(crate) fn corners(&self, part: &MeshPart<'_>, t: u32) -> [Vec3; 3] {
        part.triangles[t as usize].map(|v| self.positions[v as usize])
    }

    /// The nearest hit (triangle of the mesh, hit) of `local` in
    /// `[t_min, t_max]`, nearest first and equal distances to the lower
    /// triangle, as softpick's BVH walk answers on the posed mesh.
    pub(crate) fn first_hit(
        &mut self,
        g: &Geometry,
        part: &MeshPart<'_>,
        local: &LocalRay,
        t_min: f32,
        t_max: f32,
    ) -> Option<(u32, TriHit)> {
        let mut best: Option<(u32, TriHit)> = None;
        self.walk(g, part, local, t_min, t_max, &mut |t, h, t_max| {
            if precedes(t, h.t, best.map(|(bt, bh)| (bt, bh.t))) {
                best = Some((t, h));
                *t_max = h.t;
            }
        });
        best
    }

    /// Every hit (triangle of the mesh, hit) of `local` in `[t_min, t_max]`,
    /// in no particular order.
    pub(crate) fn all_hits(
        &mut self,
        g: &Geometry,
        part: &MeshPart<'_>,
        local: &LocalRay,
        t_min: f32,
        t_max: f32,
        out: &mut Vec<(u32, TriHit)>,
    ) {
        let keep = t_max;
        self.walk(g, part, local, t_min, t_max, &mut |t, h, t_max| {
            out.push((t, h));
            *t_max = keep;
        });
    }

    /// The walk both queries share: front to back through the boxes the ray
    /// enters within `[t_min, t_max]`, each leaf's triangles tested, `hit`
    /// told of each hit (and free to lower `t_max`, the range end of every
    /// test after it; boxes entered past its pruning bound are skipped).
    fn walk(
        &mut self,
        g: &Geometry,
        part: &MeshPart<'_>,
        local: &LocalRay,
        t_min: f32,
        mut t_max: f32,
        hit: &mut dyn FnMut(u32, TriHit, &mut f32),
    ) {
        let prim = part.prim;
        let clusters = Arc::clone(&self.clusters);
        let Some(tree) = clusters.trees.get(prim) else {
            return;
        };
        if tree.nodes.is_empty() {
            return;
        }
        let (o, inv) = (local.ray.origin(), local.ray.inv_dir());
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        if let Some((enter, _)) = self.node_box(prim, 0).ray_interval(o, inv, t_min, t_max) {
            stack.push((0, enter));
        }
        while let Some((n, enter)) = stack.pop() {
            if enter > prune_bound(t_max) {
                continue;
            }
            let n = n as usize;
            if n >= tree.first_leaf() {
                let leaf = n - tree.first_leaf();
                if leaf >= tree.leaf_vertices.len() {
                    continue; // (an empty leaf: its box is empty, never entered)
                }
                self.skin_leaf(g, prim, leaf);
                let first = leaf * LEAF_TRIANGLES;
                let run = &tree.order[first..(first + LEAF_TRIANGLES).min(tree.order.len())];
                self.work += run.len() * if part.both.is_some() { 2 } else { 1 };
                for &k in run {
                    let reversed = part.both.map(|n| k + n);
                    for t in std::iter::once(k).chain(reversed) {
                        let [a, b, c] = self.corners(part, t);
                        if let Some(h) = intersect(&local.ray, a, b, c, t_min, t_max, local.cull) {
                            hit(t, h, &mut t_max);
                        }
                    }
                }
                continue;
            }
            let (l, r) = (2 * n + 1, 2 * n + 2);
            let bound = prune_bound(t_max);
            let el = self.node_box(prim, l).ray_interval(o, inv, t_min, bound);
            let er = self.node_box(prim, r).ray_interval(o, inv, t_min, bound);
            match (el, er) {
                (Some((a, _)), Some((b, _))) => {
                    // the nearer on top
                    let (near, far) = if b < a {
                        ((r, b), (l, a))
                    } else {
                        ((l, a), (r, b))
                    };
                    stack.push((far.0 as u32, far.1));
                    stack.push((near.0 as u32, near.1));
                }
                (Some((a, _)), None) => stack.push((l as u32, a)),
                (None, Some((b, _))) => stack.push((r as u32, b)),
                (None, None) => {}
            }
        }
        self.stack = stack;
    }
}

#[cfg(test)]
mod tests;
