//! Refitting: the same tree over moved vertices. The leaves keep their
//! triangles and the nodes their children; every box is recomputed
//! bottom-up from the new corners exactly as the build computes it (the
//! union of the triangles' min/max), so a refit tree answers every query
//! exactly, only more slowly when its boxes have grown into each other.

use glam::{Vec3, Vec3A};

use super::build::Box3;
use super::{Bvh, NodeRef};
use crate::geometry::Aabb;
use crate::limits::REFIT_AREA_LIMIT;

/// What [`Bvh::refit_or_rebuild`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refit {
    /// The boxes now bound the new positions.
    Refitted,
    /// The tree was built again: the set of valid triangles changed (a
    /// vertex became non-finite, or finite again), or the refit boxes'
    /// total area grew past twice the built tree's (a tuning constant,
    /// `limits::REFIT_AREA_LIMIT`).
    Rebuilt,
}

impl Bvh {
    /// The tree of `tris` over new `positions` (the same triangles the tree
    /// was built from, their vertices moved): refit when that keeps it
    /// exact and efficient (`true`), otherwise built again (`false`: the set
    /// of valid triangles changed, a vertex becoming non-finite or finite
    /// again, or the refit boxes' total area grew past twice the built
    /// tree's). Either way every query then answers exactly as a fresh
    /// [`Bvh::build`] would (ties and all: the triangle tests do not depend
    /// on the tree's shape).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn refit(&mut self, positions: &[Vec3], tris: &[[u32; 3]]) -> bool {
        self.refit_or_rebuild(positions, tris) == Refit::Refitted
    }

    /// [`Bvh::refit`], saying which it did.
    pub(crate) fn refit_or_rebuild(&mut self, positions: &[Vec3], tris: &[[u32; 3]]) -> Refit {
        if self.try_refit(positions, tris) {
            Refit::Refitted
        } else {
            *self = Bvh::build(positions, tris);
            Refit::Rebuilt
        }
    }

    /// The refit itself; `false` (the tree half-updated, to be rebuilt)
    /// when it would not be exact or efficient.
    fn try_refit(&mut self, positions: &[Vec3], tris: &[[u32; 3]]) -> bool {
        let corner = |i: u32| positions.get(i as usize).copied().filter(|p| p.is_finite());
        let corners = |t: u32| -> Option<[Vec3; 3]> {
            let [a, b, c] = *tris.get(t as usize)?;
            Some([corner(a)?, corner(b)?, corner(c)?])
        };
        let valid = tris
            .iter()
            .enumerate()
            .filter(|&(t, _)| corners(t as u32).is_some())
            .count();
        if valid != self.tri_count || self.is_empty() {
            return false;
        }
        // the packs' corners, and each pack's box
        let mut pack_box = vec![Box3::EMPTY; self.packs.len()];
        for (pk, bx) in self.packs.iter_mut().zip(&mut pack_box) {
            for lane in 0..4 {
                if pk.used & (1 << lane) == 0 {
                    continue;
                }
                let Some(v) = corners(pk.id[lane]) else {
                    return false;
                };
                for (k, c) in v.iter().enumerate() {
                    pk.p[k][0][lane] = c.x;
                    pk.p[k][1][lane] = c.y;
                    pk.p[k][2][lane] = c.z;
                }
                let (a, b, c) = (Vec3A::from(v[0]), Vec3A::from(v[1]), Vec3A::from(v[2]));
                *bx = bx.union(&Box3 {
                    lo: a.min(b).min(c),
                    hi: a.max(b).max(c),
                });
            }
        }
        let leaf_box = |r: NodeRef| {
            let n = r.count.div_ceil(4) as usize;
            pack_box[r.index as usize..][..n]
                .iter()
                .fold(Box3::EMPTY, |b, p| b.union(p))
        };
        // children follow their parent: walking backwards, a child quad's
        // lanes are done before its parent reads them
        let mut total = 0.0f32;
        let mut quad_box = vec![Box3::EMPTY; self.quads.len()];
        for q in (0..self.quads.len()).rev() {
            let mut own = Box3::EMPTY;
            for k in 0..4 {
                if !self.quads[q].lane_used(k) {
                    continue;
                }
                let r = NodeRef {
                    index: self.quads[q].index[k],
                    count: self.quads[q].count[k],
                };
                let b = if r.is_leaf() {
                    leaf_box(r)
                } else {
                    quad_box[r.index as usize]
                };
                total += Aabb {
                    min: b.lo.into(),
                    max: b.hi.into(),
                }
                .surface_area();
                self.quads[q].set_lane(k, &b, r);
                own = own.union(&b);
            }
            quad_box[q] = own;
        }
        let root = if self.root.is_leaf() {
            leaf_box(self.root)
        } else {
            quad_box[self.root.index as usize]
        };
        self.root_bounds = Aabb {
            min: root.lo.into(),
            max: root.hi.into(),
        };
        total <= REFIT_AREA_LIMIT * self.built_area.max(f32::MIN_POSITIVE)
    }

    /// The total surface area of the children's boxes (what
    /// [`REFIT_AREA_LIMIT`] compares).
    pub(super) fn box_area(&self) -> f32 {
        self.quads
            .iter()
            .flat_map(|q| {
                (0..4)
                    .filter(|&k| q.lane_used(k))
                    .map(|k| q.child_bounds(k))
            })
            .map(|b| b.surface_area())
            .sum()
    }
}
