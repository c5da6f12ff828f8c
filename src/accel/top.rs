//! The top level of ray queries: a binary BVH over the meshes' world boxes
//! (one mesh per leaf), so that a ray visits only the meshes whose boxes it
//! crosses, nearest box first, and stops once the boxes left start beyond
//! the closest hit found so far.
//!
//! Built once per set of mesh transforms (a `RayCaster`, or a frame's
//! transforms as rendered, lazily at the first ray pick) by the mesh BVH's
//! binned SAH builder ([`build_serial`]) with one box per leaf, on the
//! calling thread and from the data alone: the tree does not depend on the
//! number of threads, and its depth stays within [`MAX_DEPTH`] levels (so
//! does the traversal stack). Its shape only steers the walks: they take
//! the closest hit by distance, then by mesh id, whatever the order in
//! which they meet the meshes.
//!
//! [`MAX_DEPTH`]: crate::accel::bvh::MAX_DEPTH

use glam::{Vec3, Vec3A, Vec4, Vec4Swizzles};

use crate::accel::bvh::build::{bounds_of, build_serial, Box3, Pair, ONE_PER_LEAF};
use crate::accel::bvh::NodeRef;
use crate::geometry::{far_out4, slab, Aabb};

/// One node: a leaf (`count == 1`, `index` = mesh id) or an interior node
/// (`count == 0`, children at `index` and `index + 1`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Node {
    pub(crate) min: Vec3A,
    pub(crate) max: Vec3A,
    pub(crate) index: u32,
    pub(crate) count: u32,
    /// Interior nodes: the boxes of both children for
    /// [`BoxRay::enter_pair`], per axis `[left min, right min, left max,
    /// right max]` (left = the child at `index`). Unused in leaves.
    pub(crate) child_planes: [Vec4; 3],
}

impl Node {
    /// A node with its box; [`fill`] sets the rest.
    fn unfilled(b: &Box3) -> Self {
        Node {
            min: b.lo,
            max: b.hi,
            index: 0,
            count: 0,
            child_planes: [Vec4::ZERO; 3],
        }
    }
}

/// BVH over mesh world boxes; empty when no mesh can be hit.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TopLevel {
    /// Root first; siblings adjacent.
    pub(crate) nodes: Vec<Node>,
}

impl TopLevel {
    /// The tree over the boxes `(mesh id, world box)`; empty boxes are left
    /// out (their meshes are never hit).
    pub(crate) fn build(boxes: impl Iterator<Item = (u32, Aabb)>) -> TopLevel {
        let (mut refs, mut meshes): (Vec<Box3>, Vec<u32>) = boxes
            .filter(|(_, b)| !b.is_empty() && b.min.is_finite() && b.max.is_finite())
            .map(|(mesh, b)| {
                let lo = Vec3A::from(b.min);
                let hi = Vec3A::from(b.max);
                (Box3 { lo, hi }, mesh)
            })
            .unzip();
        if refs.is_empty() {
            return TopLevel::default();
        }
        let bounds = bounds_of(&refs);
        let (root, pairs) = build_serial(&mut refs, &mut meshes, bounds, ONE_PER_LEAF);
        let mut nodes = Vec::with_capacity(2 * refs.len() - 1);
        nodes.push(Node::unfilled(&bounds.0));
        fill(&mut nodes, 0, root, &pairs, &meshes);
        TopLevel { nodes }
    }
}

/// Fills in node `at` (its box is set) from the build tree's node `r`: a
/// leaf's mesh (`meshes` in the build's order), or an interior node's
/// children, appended side by side, and then their sub-trees.
fn fill(nodes: &mut Vec<Node>, at: usize, r: NodeRef, pairs: &[Pair], meshes: &[u32]) {
    if r.is_leaf() {
        debug_assert_eq!(r.count, 1);
        nodes[at].index = meshes[r.index as usize];
        nodes[at].count = 1;
        return;
    }
    let p = &pairs[r.index as usize];
    let first = nodes.len();
    nodes.extend(p.bounds.iter().map(Node::unfilled));
    let [l, rt] = &p.bounds;
    nodes[at].index = first as u32;
    nodes[at].child_planes = [0, 1, 2].map(|a| Vec4::new(l.lo[a], rt.lo[a], l.hi[a], rt.hi[a]));
    fill(nodes, first, p.child[0], pairs, meshes);
    fill(nodes, first + 1, p.child[1], pairs, meshes);
}

/// Per-ray constants of the top-level box test.
pub(crate) struct BoxRay {
    o: Vec3A,
    inv: Vec3A,
    /// The direction has a zero component (the robust slab is needed).
    zeros: bool,
}

impl BoxRay {
    #[inline(always)]
    pub(crate) fn new(origin: Vec3, inv_dir: Vec3) -> Self {
        Self {
            o: origin.into(),
            inv: inv_dir.into(),
            zeros: !inv_dir.is_finite(),
        }
    }

    /// [`BoxRay::enter`] on both children of an interior node: a bit mask
    /// (bit 0: the child at `index`, bit 1: the one at `index + 1`) and
    /// their entry distances (lanes 0 and 1).
    ///
    /// Without zero direction components each lane makes, for its child,
    /// the operations of the one scalar slab test ([`slab`], which
    /// [`BoxRay::enter`] calls), so it makes the same decisions and, up to
    /// the sign of a zero, returns the same entry distances: per axis one
    /// subtraction and one multiplication give both children's `lo`
    /// (lanes 0, 1) and `hi` (lanes 2, 3), which are then combined exactly
    /// as there (no NaN can arise: `inv` is finite and the boxes are), and
    /// maxima and minima of non-NaN values do not depend on their order.
    #[inline(always)]
    pub(crate) fn enter_pair(
        &self,
        n: &Node,
        nodes: &[Node],
        t_min: f32,
        t_max: f32,
    ) -> (u32, Vec4) {
        if self.zeros {
            let mut mask = 0;
            let mut near = [0.0; 4];
            for k in 0..2 {
                if let Some(t) = self.enter(&nodes[n.index as usize + k], t_min, t_max) {
                    mask |= 1 << k;
                    near[k] = t;
                }
            }
            return (mask, Vec4::from_array(near));
        }
        let mut near = Vec4::splat(t_min);
        let mut far_raw = Vec4::INFINITY;
        for a in 0..3 {
            let t = (n.child_planes[a] - Vec4::splat(self.o[a])) * Vec4::splat(self.inv[a]);
            let s = t.zwxy();
            near = near.max(t.min(s));
            far_raw = far_raw.min(t.max(s));
        }
        let far = far_out4(far_raw).min(Vec4::splat(t_max));
        (near.cmple(far).bitmask() & 3, near)
    }

    /// Entry distance of the node's box within `[t_min, t_max]`, or `None`:
    /// the one slab test [`slab`], through [`Aabb::ray_interval`] when the
    /// direction has zero components.
    #[inline(always)]
    pub(crate) fn enter(&self, n: &Node, t_min: f32, t_max: f32) -> Option<f32> {
        if self.zeros {
            let b = Aabb {
                min: n.min.into(),
                max: n.max.into(),
            };
            return b
                .ray_interval(self.o.into(), self.inv.into(), t_min, t_max)
                .map(|(near, _)| near);
        }
        let (near, far) = slab::<false>(n.min, n.max, self.o, self.inv, t_min, t_max);
        (near <= far).then_some(near)
    }
}

/// Four rays' [`BoxRay`]s side by side (lanes: rays), for the four-ray walk
/// of the top level: [`BoxRay4::enter_pair`] makes, per lane, the very
/// operations [`BoxRay::enter_pair`] makes for that ray, which are those of
/// the one scalar slab test [`slab`] (one subtraction and one
/// multiplication per plane, then minima and maxima, which do not depend on
/// their order without NaN), so the decisions and distances are the same.
pub(crate) struct BoxRay4 {
    o: [Vec4; 3],
    inv: [Vec4; 3],
}

impl BoxRay4 {
    /// `None` when one of the rays has a zero direction component (its
    /// robust slab test differs).
    #[inline(always)]
    pub(crate) fn new(rays: &[BoxRay; 4]) -> Option<Self> {
        if rays.iter().any(|r| r.zeros) {
            return None;
        }
        let lane = |f: &dyn Fn(&BoxRay) -> f32| {
            Vec4::new(f(&rays[0]), f(&rays[1]), f(&rays[2]), f(&rays[3]))
        };
        Some(Self {
            o: [lane(&|r| r.o.x), lane(&|r| r.o.y), lane(&|r| r.o.z)],
            inv: [lane(&|r| r.inv.x), lane(&|r| r.inv.y), lane(&|r| r.inv.z)],
        })
    }

    /// Both children of an interior node against the four rays, each within
    /// `[t_min, prune[lane]]`: per child, the rays entering it (bit mask) and
    /// their entry distances.
    #[inline(always)]
    pub(crate) fn enter_pair(&self, n: &Node, t_min: f32, prune: Vec4) -> [(u32, Vec4); 2] {
        let child = |c: usize| {
            let mut near = Vec4::splat(t_min);
            let mut far_raw = Vec4::INFINITY;
            for a in 0..3 {
                let lo = (Vec4::splat(n.child_planes[a][c]) - self.o[a]) * self.inv[a];
                let hi = (Vec4::splat(n.child_planes[a][c + 2]) - self.o[a]) * self.inv[a];
                near = near.max(lo.min(hi));
                far_raw = far_raw.min(lo.max(hi));
            }
            let far = far_out4(far_raw).min(prune);
            (near.cmple(far).bitmask(), near)
        };
        [child(0), child(1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accel::bvh::MAX_DEPTH;
    use crate::test_util::Rng;

    /// `n` boxes (ids 0..n) centred in [-50, 50]³ with half-sizes in [0.1, max_half].
    fn random_boxes(rng: &mut Rng, n: usize, max_half: f32) -> Vec<(u32, Aabb)> {
        (0..n as u32)
            .map(|i| {
                let c = rng.vec3(-50.0, 50.0);
                let h = rng.vec3(0.1, max_half);
                (
                    i,
                    Aabb {
                        min: c - h,
                        max: c + h,
                    },
                )
            })
            .collect()
    }

    fn check(t: &TopLevel, n: usize) {
        let mut seen = vec![0u32; n];
        let mut stack = vec![(0usize, 1usize)];
        let mut max_depth = 0;
        while let Some((i, d)) = stack.pop() {
            max_depth = max_depth.max(d);
            let node = t.nodes[i];
            if node.count == 1 {
                seen[node.index as usize] += 1;
            } else {
                for c in [node.index as usize, node.index as usize + 1] {
                    let k = t.nodes[c];
                    assert!(node.min.cmple(k.min).all() && k.max.cmple(node.max).all());
                    stack.push((c, d + 1));
                }
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
        assert!(max_depth <= MAX_DEPTH as usize, "depth {max_depth}");
    }

    /// Four rays side by side make exactly the one-ray decisions and
    /// distances on every interior node (bit for bit), each ray with its
    /// own pruning bound.
    #[test]
    fn four_lane_pair_test_equals_one_ray_tests() {
        let mut rng = Rng(0x4a11_b0c5);
        let t = TopLevel::build(random_boxes(&mut rng, 400, 6.0).into_iter());
        let mut entered = 0;
        for _ in 0..300 {
            let o = rng.vec3(-80.0, 80.0);
            let target = rng.vec3(-40.0, 40.0);
            let step = rng.vec3(-2.0, 2.0);
            let rays: [BoxRay; 4] = std::array::from_fn(|r| {
                let d = target + step * r as f32 - o;
                BoxRay::new(o, d.recip())
            });
            let b4 = BoxRay4::new(&rays).unwrap();
            let t_min = [0.0, 0.3][rng.below(2)];
            let prune: [f32; 4] = std::array::from_fn(|_| [f32::INFINITY, 1.0, 0.6][rng.below(3)]);
            for n in t.nodes.iter().filter(|n| n.count == 0) {
                let four = b4.enter_pair(n, t_min, Vec4::from_array(prune));
                for (r, ray) in rays.iter().enumerate() {
                    let (hit, near) = ray.enter_pair(n, &t.nodes, t_min, prune[r]);
                    for c in 0..2 {
                        let (mask, dist) = four[c];
                        assert_eq!(mask >> r & 1, hit >> c & 1, "lane {r} child {c}");
                        if hit >> c & 1 != 0 {
                            entered += 1;
                            assert_eq!(dist[r].to_bits(), near[c].to_bits(), "lane {r} child {c}");
                        }
                    }
                }
            }
        }
        assert!(entered > 5000, "{entered}");
    }

    #[test]
    fn every_box_in_one_leaf_and_bounded_depth() {
        let mut rng = Rng(7);
        for n in [1usize, 2, 3, 17, 500] {
            check(
                &TopLevel::build(random_boxes(&mut rng, n, 3.0).into_iter()),
                n,
            );
        }
        // identical boxes (median splits) and a long chain of growing boxes
        let same = (0..300u32).map(|i| {
            (
                i,
                Aabb {
                    min: Vec3::ZERO,
                    max: Vec3::ONE,
                },
            )
        });
        check(&TopLevel::build(same), 300);
        let chain = (0..3000u32).map(|i| {
            let s = 1.5f32.powi((i % 60) as i32);
            (
                i,
                Aabb {
                    min: Vec3::splat(s),
                    max: Vec3::splat(s * 1.01),
                },
            )
        });
        check(&TopLevel::build(chain), 3000);
    }

    #[test]
    fn empty_boxes_are_left_out() {
        let t = TopLevel::build([(0, Aabb::empty())].into_iter());
        assert!(t.nodes.is_empty());
    }
}
