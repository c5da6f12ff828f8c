//! The top level of ray queries: a binary BVH over the meshes' world boxes
//! (one mesh per leaf), so that a ray visits only the meshes whose boxes it
//! crosses, nearest box first, and stops once the boxes left start beyond
//! the closest hit found so far.
//!
//! Built once per set of mesh transforms (a [`super::ray::RayCaster`], or a
//! frame's transforms as rendered, lazily at the first ray pick), single
//! threaded and from the data alone: the tree does not depend on the number
//! of threads. Binned SAH over the box centroids along the widest centroid
//! axis; a split that would make the tree deeper than [`SAH_DEPTH`] levels
//! becomes a median split, so the depth stays below `SAH_DEPTH + 34` (and
//! so does the traversal stack).

use glam::{Vec3, Vec3A, Vec4, Vec4Swizzles};

use crate::geometry::{far_out, far_out4, Aabb};

/// Levels built with SAH splits; deeper ones split at the median.
const SAH_DEPTH: usize = 40;
/// The depth bound (see the module docs).
#[cfg(test)]
const DEPTH_BOUND: usize = SAH_DEPTH + 34;
/// SAH bins.
const BINS: usize = 16;

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
    pub(crate) kids: [Vec4; 3],
}

impl Node {
    /// A node with its box; `build_node` fills in the rest.
    fn unfilled(min: Vec3A, max: Vec3A) -> Self {
        Node {
            min,
            max,
            index: 0,
            count: 0,
            kids: [Vec4::ZERO; 3],
        }
    }
}

/// BVH over mesh world boxes; empty when no mesh can be hit.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TopLevel {
    /// Root first; siblings adjacent.
    pub(crate) nodes: Vec<Node>,
}

#[derive(Clone, Copy)]
struct Item {
    min: Vec3A,
    max: Vec3A,
    centre: Vec3A,
    mesh: u32,
}

fn bounds_of(items: &[Item]) -> (Vec3A, Vec3A) {
    items
        .iter()
        .fold((Vec3A::INFINITY, Vec3A::NEG_INFINITY), |(lo, hi), it| {
            (lo.min(it.min), hi.max(it.max))
        })
}

fn half_area(lo: Vec3A, hi: Vec3A) -> f32 {
    let d = (hi - lo).max(Vec3A::ZERO);
    d.x * d.y + d.y * d.z + d.z * d.x
}

impl TopLevel {
    /// The tree over the boxes `(mesh id, world box)`; empty boxes are left
    /// out (their meshes are never hit).
    pub(crate) fn build(boxes: impl Iterator<Item = (u32, Aabb)>) -> TopLevel {
        let mut items: Vec<Item> = boxes
            .filter(|(_, b)| !b.is_empty() && b.min.is_finite() && b.max.is_finite())
            .map(|(mesh, b)| {
                let (min, max) = (Vec3A::from(b.min), Vec3A::from(b.max));
                Item {
                    min,
                    max,
                    centre: min * 0.5 + max * 0.5,
                    mesh,
                }
            })
            .collect();
        let mut nodes = Vec::with_capacity(2 * items.len());
        if !items.is_empty() {
            let (min, max) = bounds_of(&items);
            nodes.push(Node::unfilled(min, max));
            build_node(&mut nodes, 0, &mut items, 1);
        }
        TopLevel { nodes }
    }
}

/// Fills in node `at` (its bounds are set) for `items`.
fn build_node(nodes: &mut Vec<Node>, at: usize, items: &mut [Item], depth: usize) {
    if items.len() == 1 {
        nodes[at].index = items[0].mesh;
        nodes[at].count = 1;
        return;
    }
    let (clo, chi) = items
        .iter()
        .fold((Vec3A::INFINITY, Vec3A::NEG_INFINITY), |(lo, hi), it| {
            (lo.min(it.centre), hi.max(it.centre))
        });
    let ext = chi - clo;
    let axis = if ext.x >= ext.y && ext.x >= ext.z {
        0
    } else if ext.y >= ext.z {
        1
    } else {
        2
    };
    let mid = if ext[axis] > 0.0 && depth < SAH_DEPTH {
        sah_split(items, axis, clo[axis], ext[axis])
    } else {
        None
    };
    let mid = mid.unwrap_or_else(|| {
        let mid = items.len() / 2;
        items.select_nth_unstable_by(mid, |a, b| {
            a.centre[axis]
                .total_cmp(&b.centre[axis])
                .then(a.mesh.cmp(&b.mesh))
        });
        mid
    });
    let (l, r) = items.split_at_mut(mid);
    let first = nodes.len();
    for part in [&*l, &*r] {
        let (min, max) = bounds_of(part);
        nodes.push(Node::unfilled(min, max));
    }
    nodes[at].index = first as u32;
    let (ln, rn) = (nodes[first], nodes[first + 1]);
    nodes[at].kids = [0, 1, 2].map(|a| Vec4::new(ln.min[a], rn.min[a], ln.max[a], rn.max[a]));
    build_node(nodes, first, l, depth + 1);
    build_node(nodes, first + 1, r, depth + 1);
}

/// Binned SAH split along `axis`: partitions `items` and returns the size
/// of the left part, or `None` when no split separates the centroids.
fn sah_split(items: &mut [Item], axis: usize, lo: f32, ext: f32) -> Option<usize> {
    let scale = BINS as f32 / ext;
    let bin = |it: &Item| (((it.centre[axis] - lo) * scale) as usize).min(BINS - 1);
    let mut count = [0usize; BINS];
    let mut bmin = [Vec3A::INFINITY; BINS];
    let mut bmax = [Vec3A::NEG_INFINITY; BINS];
    for it in items.iter() {
        let b = bin(it);
        count[b] += 1;
        bmin[b] = bmin[b].min(it.min);
        bmax[b] = bmax[b].max(it.max);
    }
    // right-to-left sweep: cost of bins k.. as the right part
    let mut right = [0f32; BINS];
    let (mut rlo, mut rhi, mut rn) = (Vec3A::INFINITY, Vec3A::NEG_INFINITY, 0usize);
    for k in (1..BINS).rev() {
        rlo = rlo.min(bmin[k]);
        rhi = rhi.max(bmax[k]);
        rn += count[k];
        right[k] = half_area(rlo, rhi) * rn as f32;
    }
    let (mut llo, mut lhi, mut ln) = (Vec3A::INFINITY, Vec3A::NEG_INFINITY, 0usize);
    let mut best: Option<(f32, usize)> = None;
    for k in 1..BINS {
        llo = llo.min(bmin[k - 1]);
        lhi = lhi.max(bmax[k - 1]);
        ln += count[k - 1];
        if ln == 0 || ln == items.len() {
            continue;
        }
        let cost = half_area(llo, lhi) * ln as f32 + right[k];
        if best.is_none_or(|(c, _)| cost < c) {
            best = Some((cost, k));
        }
    }
    let (_, k) = best?;
    // in-place partition: items of bins < k first
    let mut i = 0;
    for j in 0..items.len() {
        if bin(&items[j]) < k {
            items.swap(i, j);
            i += 1;
        }
    }
    Some(i)
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
    /// Without zero direction components this makes the same decisions and,
    /// up to the sign of a zero, returns the same entry distances as
    /// [`BoxRay::enter`] on each child: per axis one subtraction and one
    /// multiplication give both children's `lo` (lanes 0, 1) and `hi`
    /// (lanes 2, 3), which are then combined exactly as there (no NaN can
    /// arise: `inv` is finite and the boxes are), and maxima and minima of
    /// non-NaN values do not depend on their order.
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
            let t = (n.kids[a] - Vec4::splat(self.o[a])) * Vec4::splat(self.inv[a]);
            let s = t.zwxy();
            near = near.max(t.min(s));
            far_raw = far_raw.min(t.max(s));
        }
        let far = far_out4(far_raw).min(Vec4::splat(t_max));
        (near.cmple(far).bitmask() & 3, near)
    }

    /// Entry distance of the node's box within `[t_min, t_max]`, or `None`.
    /// Conservative like [`Aabb::ray_interval`] (the same test).
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
        let lo = (n.min - self.o) * self.inv;
        let hi = (n.max - self.o) * self.inv;
        let near = lo.min(hi).max_element().max(t_min);
        let far_raw = lo.max(hi).min_element();
        let far = far_out(far_raw).min(t_max);
        (near <= far).then_some(near)
    }
}

/// Four rays' [`BoxRay`]s side by side (lanes: rays), for the four-ray walk
/// of the top level: [`BoxRay4::enter_pair`] makes, per lane, the very
/// operations [`BoxRay::enter_pair`] makes for that ray (one subtraction and
/// one multiplication per plane, then minima and maxima, which do not depend
/// on their order without NaN), so the decisions and distances are the same.
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
                let lo = (Vec4::splat(n.kids[a][c]) - self.o[a]) * self.inv[a];
                let hi = (Vec4::splat(n.kids[a][c + 2]) - self.o[a]) * self.inv[a];
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
        assert!(max_depth <= DEPTH_BOUND, "depth {max_depth}");
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
