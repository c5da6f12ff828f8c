//! A scene's meshes placed for ray queries: each mesh's world matrix with
//! its inverse and world box ([`MeshTransform`]), and over them, built at
//! the first query that needs it, the top-level BVH of their boxes
//! ([`MeshTransforms`]). Made from plain matrices and boxes (the scene
//! makes them for its own transforms and caches them until they change).

use std::sync::OnceLock;

use glam::{Mat4, Vec3};

use crate::accel::top::TopLevel;
use crate::geometry::Aabb;

/// A mesh's world matrix prepared for ray queries (inverse computed once).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MeshTransform {
    pub(crate) world: Mat4,
    /// The inverse of `world` (the identity when `world` has none).
    pub(crate) inverse: Mat4,
    /// The mesh's local bounds carried to world space (a box around the
    /// transformed corners, slightly grown), for a cheap reject before
    /// the ray is taken into local space.
    pub(crate) world_bounds: Aabb,
    /// `world` has a negative determinant: it turns front faces to back.
    pub(crate) mirrored: bool,
    /// `world` can be inverted and the world box is finite; ray queries
    /// skip the mesh otherwise.
    pub(crate) valid: bool,
    /// The world matrix is exactly the identity (so is then every such
    /// mesh's inverse, bit for bit: the local ray is shared).
    pub(crate) identity: bool,
}

impl MeshTransform {
    pub(crate) fn new(world: Mat4, local_bounds: Aabb) -> Self {
        let det = world.determinant();
        let valid = det != 0.0 && det.is_finite();
        let mut world_bounds = Aabb::empty();
        if !local_bounds.is_empty() {
            for k in 0..8 {
                let pick = |bit: usize, lo: f32, hi: f32| if k & bit == 0 { lo } else { hi };
                let c = Vec3::new(
                    pick(1, local_bounds.min.x, local_bounds.max.x),
                    pick(2, local_bounds.min.y, local_bounds.max.y),
                    pick(4, local_bounds.min.z, local_bounds.max.z),
                );
                world_bounds.grow(world.transform_point3(c));
            }
            // round-off of the transform: grow by a relative hair
            let pad = (world_bounds.max - world_bounds.min).max_element() * 1e-5
                + world_bounds
                    .min
                    .abs()
                    .max(world_bounds.max.abs())
                    .max_element()
                    * 1e-6;
            world_bounds.min -= Vec3::splat(pad);
            world_bounds.max += Vec3::splat(pad);
        }
        Self {
            world,
            inverse: if valid {
                world.inverse()
            } else {
                Mat4::IDENTITY
            },
            world_bounds,
            mirrored: det < 0.0,
            valid: valid && world_bounds.min.is_finite() && world_bounds.max.is_finite(),
            identity: world == Mat4::IDENTITY,
        }
    }
}

/// The prepared transforms of a scene's meshes ([`MeshTransform`], one per
/// mesh) plus what ray queries build from them lazily, at most once: the
/// top-level BVH over the meshes' world boxes. A scene keeps one for its
/// current transforms (`Scene::mesh_transforms`), a frame one for its
/// transforms as rendered, made at its first ray query.
#[derive(Clone, Debug, Default)]
pub(crate) struct MeshTransforms {
    pub(crate) list: Vec<MeshTransform>,
    /// Every transform is the identity and valid (and there is at least
    /// one): the condition of the walk through the scene's flat BVH (see
    /// `pick::ray::query::flat_bvh_for`).
    pub(crate) identity: bool,
    pub(crate) top: OnceLock<TopLevel>,
}

impl MeshTransforms {
    /// The prepared transforms `list`, one per mesh in order.
    pub(crate) fn from_list(list: Vec<MeshTransform>) -> Self {
        Self {
            identity: !list.is_empty() && list.iter().all(|t| t.identity && t.valid),
            list,
            top: OnceLock::new(),
        }
    }

    /// The top-level BVH over the valid meshes' world boxes, built at the
    /// first call.
    #[inline(always)]
    pub(crate) fn top(&self) -> &TopLevel {
        self.top.get_or_init(|| {
            TopLevel::build(
                self.list
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.valid)
                    .map(|(i, t)| (i as u32, t.world_bounds)),
            )
        })
    }
}

impl std::ops::Deref for MeshTransforms {
    type Target = [MeshTransform];
    fn deref(&self) -> &[MeshTransform] {
        &self.list
    }
}
