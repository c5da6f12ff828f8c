//! 3D ray queries against a scene: per mesh, the world ray is taken into
//! the mesh's local space (inverse world matrix: point with w = 1, direction
//! with w = 0, so the ray parameter t is the same in both spaces), rejected
//! by the mesh's local bounds (slab test), then traced through the mesh's
//! BVH with the watertight ray–triangle test of [`super::triangle`].

use glam::{Mat4, Vec3};

use super::bvh::Bvh;
use super::triangle::{RayPrecomp, TriHit};
use super::Hit;
use crate::camera::Ray;
use crate::frame::Frame;
use crate::raster::rules::CullMode;
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

fn local_ray(world: Mat4, ray: &Ray, cull: CullMode) -> Option<LocalRay> {
    let det = world.determinant();
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let inv = world.inverse();
    let o = inv.transform_point3(ray.origin);
    let d = inv.transform_vector3(ray.direction);
    if !o.is_finite() || !d.is_finite() || d == Vec3::ZERO {
        return None;
    }
    let mirrored = det < 0.0;
    let cull = match (mirrored, cull) {
        (true, CullMode::Back) => CullMode::Front,
        (true, CullMode::Front) => CullMode::Back,
        (_, c) => c,
    };
    Some(LocalRay {
        pre: RayPrecomp::new(o, d),
        cull,
        mirrored,
        world,
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

fn bvh_and_bounds(scene: &Scene, mesh: MeshId) -> &Bvh {
    scene.meshes()[mesh as usize].bvh()
}

/// The nearest hit of a world-space ray, or `None`. `Hit::depth` is NaN
/// (there is no camera); distances are along `ray.direction` in world units.
#[must_use]
pub fn raycast_first(scene: &Scene, ray: &Ray, opts: &RayOptions<'_>) -> Option<Hit> {
    let mut best: Option<(f32, MeshId, u32, TriHit, LocalRay)> = None;
    let len = ray.direction.length();
    if !(len > 0.0) || !ray.origin.is_finite() {
        return None;
    }
    let (t_min, t_max0) = (opts.near / len, opts.far / len);
    for mesh in 0..scene.meshes().len() as MeshId {
        if !mesh_passes(opts, mesh) {
            continue;
        }
        let Some(lr) = local_ray(scene.mesh_world(mesh), ray, opts.cull) else {
            continue;
        };
        let t_max = best.as_ref().map_or(t_max0, |b| b.0);
        let m = &scene.meshes()[mesh as usize];
        let bounds = m.bounds();
        if bounds
            .ray_interval(lr.pre.origin(), lr.pre.inv_dir(), t_min, t_max)
            .is_none()
        {
            continue;
        }
        let bvh = bvh_and_bounds(scene, mesh);
        if let Some((tri, h)) =
            bvh.first_hit(m.positions(), m.triangles(), &lr.pre, t_min, t_max, lr.cull)
        {
            if best.as_ref().is_none_or(|b| h.t < b.0) {
                best = Some((h.t, mesh, tri, h, lr));
            }
        }
    }
    best.map(|(_, mesh, tri, h, lr)| make_hit(scene, mesh, &lr, ray, tri, h))
}

/// Every hit of a world-space ray, sorted by distance (ties by mesh, then
/// triangle): the Papervision3D `collideRayToMesh` list.
#[must_use]
pub fn raycast_all(scene: &Scene, ray: &Ray, opts: &RayOptions<'_>) -> Vec<Hit> {
    let mut out = Vec::new();
    let len = ray.direction.length();
    if !(len > 0.0) || !ray.origin.is_finite() {
        return out;
    }
    let (t_min, t_max) = (opts.near / len, opts.far / len);
    let mut tmp = Vec::new();
    for mesh in 0..scene.meshes().len() as MeshId {
        if !mesh_passes(opts, mesh) {
            continue;
        }
        let Some(lr) = local_ray(scene.mesh_world(mesh), ray, opts.cull) else {
            continue;
        };
        let m = &scene.meshes()[mesh as usize];
        if m.bounds()
            .ray_interval(lr.pre.origin(), lr.pre.inv_dir(), t_min, t_max)
            .is_none()
        {
            continue;
        }
        tmp.clear();
        bvh_and_bounds(scene, mesh).all_hits(
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

impl Frame {
    /// The third pick method: a 3D ray through the centre of pixel (x, y),
    /// from the near plane to the far plane, with the frame's cull mode.
    /// Uses the scene's current transforms. `Hit::depth` is the window depth
    /// of the hit point.
    #[must_use]
    pub fn pick_ray(&self, scene: &Scene, x: i64, y: i64) -> Option<Hit> {
        let (ux, uy) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        self.index(ux, uy)?;
        let cam = self.camera.as_ref()?;
        let ray = cam.ray_for_pixel(ux, uy);
        let far = (cam.unproject(ux as f32 + 0.5, uy as f32 + 0.5, 1.0) - ray.origin).length();
        let opts = RayOptions {
            near: 0.0,
            far,
            cull: self.cull,
            filter: None,
        };
        let mut hit = raycast_first(scene, &ray, &opts)?;
        hit.depth = cam.project(hit.position).map_or(f32::NAN, |p| p.z);
        Some(hit)
    }
}
