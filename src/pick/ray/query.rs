//! What every ray query shares: its options, the nearest-hit record, the
//! ray carried into a mesh's local space, and the test for when the
//! scene's flat BVH may answer a first-hit query instead of the two levels.

use glam::Vec3;

use crate::accel::bvh::Bvh;
use crate::accel::transforms::{MeshTransform, MeshTransforms};
use crate::accel::triangle::{RayPrecomp, TriHit};
use crate::geometry::{ClipPlanes, CullMode, Ray};
use crate::scene::{MeshId, Scene};

/// Options of a ray query.
#[derive(Clone, Copy)]
pub struct RayOptions<'a> {
    /// Smallest accepted distance along the ray (default 0).
    pub near: f32,
    /// Largest accepted distance (default infinity).
    pub far: f32,
    /// Faces to ignore (per query).
    pub cull: CullMode,
    /// Only meshes for which this returns true are tested (default: all).
    pub filter: Option<&'a (dyn Fn(MeshId) -> bool + Sync)>,
    /// User clip planes (default: none): a hit they cut away is no hit,
    /// and the ray goes on to what is behind the cut ([`ClipPlanes`]).
    pub clip: Option<&'a ClipPlanes>,
}

impl Default for RayOptions<'_> {
    fn default() -> Self {
        Self {
            near: 0.0,
            far: f32::INFINITY,
            cull: CullMode::None,
            filter: None,
            clip: None,
        }
    }
}

impl RayOptions<'_> {
    /// The range of the ray parameter `t` that `near` and `far`, distances
    /// along `ray`, give: each divided by the direction's length
    /// ([`Ray::direction_length`]). `None` for a ray that hits nothing: one
    /// without a length (a zero or NaN direction) or with an origin that
    /// is not finite. The start of every ray query but the flat batch walk
    /// (which skips the length for the whole ray).
    #[inline(always)]
    pub(crate) fn t_range(&self, ray: &Ray) -> Option<(f32, f32)> {
        let len = ray.direction_length();
        if !(len > 0.0) || !ray.origin.is_finite() {
            return None;
        }
        Some((self.near / len, self.far / len))
    }
}

impl std::fmt::Debug for RayOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RayOptions")
            .field("near", &self.near)
            .field("far", &self.far)
            .field("cull", &self.cull)
            .field("filter", &self.filter.is_some())
            .field("clip", &self.clip)
            .finish()
    }
}

/// The nearest hit of a query before it is expanded into a
/// [`crate::pick::Hit`]: which triangle of which mesh, and the triangle
/// test's answer (ray parameter, barycentrics, facing).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NearestHit {
    pub(crate) mesh: MeshId,
    /// Triangle index within the mesh.
    pub(crate) triangle: u32,
    pub(crate) hit: TriHit,
}

/// A world ray carried into a mesh's local space, precomputed for the
/// triangle tests, with the cull mode as seen in that space (a mirrored
/// placement swaps front and back).
pub(crate) struct LocalRay {
    pub(crate) ray: RayPrecomp,
    pub(crate) cull: CullMode,
}

/// `ray` in the local space of the mesh placed by `transform` (inverse
/// world matrix: point with w = 1, direction with w = 0, so the ray
/// parameter t is the same in both spaces); `None` for a mesh whose
/// transform cannot be inverted or a local ray that is not finite.
#[inline(always)]
pub(crate) fn local_ray(transform: &MeshTransform, ray: &Ray, cull: CullMode) -> Option<LocalRay> {
    if !transform.valid {
        return None;
    }
    // (the identity's inverse is the identity: the ray is its own local
    // ray, without the matrix products)
    let (o, d) = if transform.identity {
        (ray.origin, ray.direction)
    } else {
        (
            transform.inverse.transform_point3(ray.origin),
            transform.inverse.transform_vector3(ray.direction),
        )
    };
    let (ray, cull) = local_ray_parts(o, d, transform.mirrored, cull)?;
    Some(LocalRay { ray, cull })
}

/// The precomputed local ray of origin `o` and direction `d`, already in a
/// mesh's space, and the cull mode `cull` as seen there: a mirroring
/// placement (`mirrored`: negative determinant) reverses the winding, so
/// front and back swap. `None` for a ray that is not finite or has no
/// direction. (The browser crate's lazy picks call this too, so their
/// local rays are the caster's.)
#[inline(always)]
pub fn local_ray_parts(
    o: Vec3,
    d: Vec3,
    mirrored: bool,
    cull: CullMode,
) -> Option<(RayPrecomp, CullMode)> {
    if !o.is_finite() || !d.is_finite() || d == Vec3::ZERO {
        return None;
    }
    let cull = match (mirrored, cull) {
        (true, CullMode::Back) => CullMode::Front,
        (true, CullMode::Front) => CullMode::Back,
        (_, c) => c,
    };
    Some((RayPrecomp::new(o, d), cull))
}

/// Whether the query's mesh filter lets mesh `id` be tested.
#[inline]
pub(crate) fn mesh_passes(opts: &RayOptions<'_>, id: MeshId) -> bool {
    opts.filter.is_none_or(|f| f(id))
}

/// The scene's one BVH over all its triangles ([`Scene::flat_bvh`]) when a
/// first-hit query may walk it instead of the two levels: every mesh is
/// placed by the identity matrix (the local rays are then all the world
/// ray, see [`MeshTransform::identity`]), every transform is valid (none
/// of the meshes is skipped), no mesh filter is set and no mesh has clip
/// planes of its own (planes of every mesh narrow the ray before). The triangle tests
/// are then the same in the same coordinates, and a lower global triangle
/// index is a lower mesh, then a lower triangle: the same tie rule.
#[inline(always)]
pub(crate) fn flat_bvh_for<'s>(
    scene: &'s Scene,
    transforms: &MeshTransforms,
    opts: &RayOptions<'_>,
) -> Option<&'s Bvh> {
    (transforms.identity
        && opts.filter.is_none()
        && opts.clip.is_none_or(|c| !c.by_mesh())
        && transforms.len() == scene.meshes().len())
    .then(|| scene.flat_bvh())
}

/// A hit in the flat BVH (a global triangle index) as a [`NearestHit`];
/// `hint`: the mesh to try first, set to the mesh found.
#[inline(always)]
pub(crate) fn locate_flat_hit(
    scene: &Scene,
    (global, hit): (u32, TriHit),
    hint: &mut MeshId,
) -> Option<NearestHit> {
    let (mesh, triangle) = scene.locate_from(global, *hint)?;
    *hint = mesh;
    Some(NearestHit {
        mesh,
        triangle,
        hit,
    })
}
