//! 3D ray queries against a scene: per mesh, the world ray is taken into
//! the mesh's local space (inverse world matrix: point with w = 1, direction
//! with w = 0, so the ray parameter t is the same in both spaces), rejected
//! by the mesh's local bounds (slab test), then traced through the mesh's
//! BVH with the watertight ray–triangle test of [`super::triangle`].

use std::borrow::Cow;

use glam::{Mat4, Vec3};

use super::triangle::{RayPrecomp, TriHit};
use super::{Hit, PickId};
use crate::camera::Ray;
use crate::frame::Frame;
use crate::raster::rules::CullMode;
use crate::scene::{Aabb, Mesh, MeshId, Scene};

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
}

impl Default for RayOptions<'_> {
    fn default() -> Self {
        Self {
            near: 0.0,
            far: f32::INFINITY,
            cull: CullMode::None,
            filter: None,
        }
    }
}

impl std::fmt::Debug for RayOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RayOptions")
            .field("near", &self.near)
            .field("far", &self.far)
            .field("cull", &self.cull)
            .field("filter", &self.filter.is_some())
            .finish()
    }
}

struct LocalRay {
    pre: RayPrecomp,
    cull: CullMode,
    mirrored: bool,
    world: Mat4,
}

/// A mesh's world matrix prepared for ray queries (inverse computed once).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MeshXform {
    world: Mat4,
    inv: Mat4,
    /// The mesh's local bounds carried to world space (a box around the
    /// transformed corners, slightly grown), for a cheap reject before
    /// the ray is taken into local space.
    world_bounds: Aabb,
    mirrored: bool,
    valid: bool,
}

impl MeshXform {
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
            inv: if valid {
                world.inverse()
            } else {
                Mat4::IDENTITY
            },
            world_bounds,
            mirrored: det < 0.0,
            valid: valid && world_bounds.min.is_finite() && world_bounds.max.is_finite(),
        }
    }
}

/// The prepared transforms of every mesh of a scene for the given world matrices.
pub(crate) fn mesh_xforms<'a>(
    scene: &'a Scene,
    worlds: &'a [Mat4],
) -> impl Iterator<Item = MeshXform> + 'a {
    scene
        .meshes()
        .iter()
        .zip(worlds)
        .map(|(m, w)| MeshXform::new(*w, m.bounds()))
}

fn local_ray(x: &MeshXform, ray: &Ray, cull: CullMode) -> Option<LocalRay> {
    if !x.valid {
        return None;
    }
    let o = x.inv.transform_point3(ray.origin);
    let d = x.inv.transform_vector3(ray.direction);
    if !o.is_finite() || !d.is_finite() || d == Vec3::ZERO {
        return None;
    }
    let cull = match (x.mirrored, cull) {
        (true, CullMode::Back) => CullMode::Front,
        (true, CullMode::Front) => CullMode::Back,
        (_, c) => c,
    };
    Some(LocalRay {
        pre: RayPrecomp::new(o, d),
        cull,
        mirrored: x.mirrored,
        world: x.world,
    })
}

fn mesh_passes(opts: &RayOptions<'_>, id: MeshId) -> bool {
    opts.filter.is_none_or(|f| f(id))
}

fn make_hit(scene: &Scene, mesh: MeshId, lr: &LocalRay, ray: &Ray, tri: u32, h: TriHit) -> Hit {
    let m = &scene.meshes()[mesh as usize];
    let p = m.triangle(tri).map(|q| lr.world.transform_point3(q));
    let n = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero();
    Hit {
        mesh,
        mesh_name: m.name_arc().clone(),
        triangle: tri,
        global_triangle: scene.global_triangle(mesh, tri),
        depth: f32::NAN,
        distance: h.t * ray.direction.length(),
        position: ray.at(h.t),
        barycentric: h.bary,
        normal: n,
        front_face: h.front != lr.mirrored,
    }
}

/// The shared per-mesh gate of every query: the mesh filter, the mesh's
/// world box, then the ray in local space against the local box. `Some`
/// when the mesh's BVH must be traversed.
#[allow(clippy::too_many_arguments)]
fn enter(
    m: &Mesh,
    x: &MeshXform,
    mesh: MeshId,
    ray: &Ray,
    inv_dir: Vec3,
    opts: &RayOptions<'_>,
    t_min: f32,
    t_max: f32,
) -> Option<LocalRay> {
    if !mesh_passes(opts, mesh) {
        return None;
    }
    x.world_bounds
        .ray_interval(ray.origin, inv_dir, t_min, t_max)?;
    let lr = local_ray(x, ray, opts.cull)?;
    m.bounds()
        .ray_interval(lr.pre.origin(), lr.pre.inv_dir(), t_min, t_max)?;
    Some(lr)
}

/// Ray queries against one state of a scene: each mesh's world matrix and
/// its inverse are computed once, when the caster is made, and reused for
/// every ray (make a new caster after moving nodes). [`raycast_first`] and
/// [`raycast_all`] make a one-shot caster.
#[derive(Clone, Debug)]
pub struct RayCaster<'a> {
    scene: &'a Scene,
    xforms: Cow<'a, [MeshXform]>,
}

impl<'a> RayCaster<'a> {
    /// A caster for the scene's current transforms.
    #[must_use]
    pub fn new(scene: &'a Scene) -> Self {
        let worlds: Vec<Mat4> = (0..scene.meshes().len() as MeshId)
            .map(|m| scene.mesh_world(m))
            .collect();
        let xforms = mesh_xforms(scene, &worlds).collect();
        Self {
            scene,
            xforms: Cow::Owned(xforms),
        }
    }

    /// A caster with transforms prepared elsewhere (a frame's, as rendered);
    /// falls back to the scene's current ones when they do not match it.
    pub(crate) fn with_xforms(scene: &'a Scene, xforms: &'a [MeshXform]) -> Self {
        if xforms.len() == scene.meshes().len() {
            Self {
                scene,
                xforms: Cow::Borrowed(xforms),
            }
        } else {
            Self::new(scene)
        }
    }

    /// The nearest hit of a world-space ray (see [`raycast_first`]).
    #[must_use]
    pub fn first(&self, ray: &Ray, opts: &RayOptions<'_>) -> Option<Hit> {
        let scene = self.scene;
        let mut best: Option<(f32, MeshId, u32, TriHit, LocalRay)> = None;
        let len = ray.direction.length();
        if !(len > 0.0) || !ray.origin.is_finite() {
            return None;
        }
        let (t_min, t_max0) = (opts.near / len, opts.far / len);
        let inv_dir = ray.direction.recip();
        for (mesh, (m, x)) in scene.meshes().iter().zip(self.xforms.iter()).enumerate() {
            let mesh = mesh as MeshId;
            let t_max = best.as_ref().map_or(t_max0, |b| b.0);
            let Some(lr) = enter(m, x, mesh, ray, inv_dir, opts, t_min, t_max) else {
                continue;
            };
            if let Some((tri, h)) =
                m.bvh()
                    .first_hit(m.positions(), m.triangles(), &lr.pre, t_min, t_max, lr.cull)
            {
                if best.as_ref().is_none_or(|b| h.t < b.0) {
                    best = Some((h.t, mesh, tri, h, lr));
                }
            }
        }
        best.map(|(_, mesh, tri, h, lr)| make_hit(scene, mesh, &lr, ray, tri, h))
    }

    /// Every hit of a world-space ray, sorted (see [`raycast_all`]).
    #[must_use]
    pub fn all(&self, ray: &Ray, opts: &RayOptions<'_>) -> Vec<Hit> {
        let scene = self.scene;
        let mut out = Vec::new();
        let len = ray.direction.length();
        if !(len > 0.0) || !ray.origin.is_finite() {
            return out;
        }
        let (t_min, t_max) = (opts.near / len, opts.far / len);
        let inv_dir = ray.direction.recip();
        let mut tmp = Vec::new();
        for (mesh, (m, x)) in scene.meshes().iter().zip(self.xforms.iter()).enumerate() {
            let mesh = mesh as MeshId;
            let Some(lr) = enter(m, x, mesh, ray, inv_dir, opts, t_min, t_max) else {
                continue;
            };
            tmp.clear();
            m.bvh().all_hits(
                m.positions(),
                m.triangles(),
                &lr.pre,
                t_min,
                t_max,
                lr.cull,
                &mut tmp,
            );
            out.extend(
                tmp.iter()
                    .map(|&(tri, h)| make_hit(scene, mesh, &lr, ray, tri, h)),
            );
        }
        out.sort_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then(a.mesh.cmp(&b.mesh))
                .then(a.triangle.cmp(&b.triangle))
        });
        out
    }
}

/// The nearest hit of a world-space ray, or `None`. `Hit::depth` is NaN
/// (there is no camera); distances are along `ray.direction` in world units.
/// For many rays against one scene state, make a [`RayCaster`] once.
#[must_use]
pub fn raycast_first(scene: &Scene, ray: &Ray, opts: &RayOptions<'_>) -> Option<Hit> {
    RayCaster::new(scene).first(ray, opts)
}

/// Every hit of a world-space ray, sorted by distance (ties by mesh, then
/// triangle): the Papervision3D `collideRayToMesh` list.
#[must_use]
pub fn raycast_all(scene: &Scene, ray: &Ray, opts: &RayOptions<'_>) -> Vec<Hit> {
    RayCaster::new(scene).all(ray, opts)
}

impl Frame {
    /// The third pick method: a 3D ray through the centre of pixel (x, y),
    /// from the near plane to the far plane, with the frame's cull mode and
    /// the mesh transforms as rendered (like the other two methods; their
    /// inverses were prepared at render time). `Hit::depth` is the window
    /// depth of the hit point.
    #[must_use]
    pub fn pick_ray(&self, scene: &Scene, x: i64, y: i64) -> Option<Hit> {
        let (ux, uy) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        self.index(ux, uy)?;
        let cam = self.camera.as_ref()?;
        let (cx, cy) = (ux as f32 + 0.5, uy as f32 + 0.5);
        let near = cam.unproject_with(&self.inv_view_proj, cx, cy, 0.0);
        let far_point = cam.unproject_with(&self.inv_view_proj, cx, cy, 1.0);
        let ray = Ray::new(near, (far_point - near).normalize_or_zero());
        let far = (far_point - near).length();
        let opts = RayOptions {
            near: 0.0,
            far,
            cull: self.cull,
            filter: None,
        };
        let mut hit = RayCaster::with_xforms(scene, &self.xforms).first(&ray, &opts)?;
        hit.depth = cam.project(hit.position).map_or(f32::NAN, |p| p.z);
        Some(hit)
    }

    /// Like [`Frame::pick_ray`], compactly: the mesh, triangle and window
    /// depth of the first hit.
    #[must_use]
    pub fn pick_id_ray(&self, scene: &Scene, x: i64, y: i64) -> Option<PickId> {
        let hit = self.pick_ray(scene, x, y)?;
        Some(PickId {
            mesh: hit.mesh,
            triangle: hit.triangle,
            global_triangle: hit.global_triangle,
            depth: hit.depth,
        })
    }
}
