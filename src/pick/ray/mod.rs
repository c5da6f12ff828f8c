//! 3D ray queries against a scene: per mesh, the world ray is taken into
//! the mesh's local space (inverse world matrix: point with w = 1, direction
//! with w = 0, so the ray parameter t is the same in both spaces), rejected
//! by the mesh's local bounds (slab test), then traced through the mesh's
//! BVH with the watertight ray–triangle test of [`crate::accel::triangle`].
//!
//! When every mesh sits at the identity (and no mesh filter is set), the
//! local rays are all the world ray, and first hits walk instead the one
//! BVH over all the scene's triangles ([`Scene::flat_bvh`], global triangle
//! indices), and so do every-hit queries: the same triangle tests in the
//! same coordinates, the same tie rule (a lower global index is a lower
//! mesh, then a lower triangle), one walk instead of one per mesh. Rows of
//! pixel rays walk four rays at a time ([`Bvh`]'s four-ray walk); in the
//! AVX2 build, the flat BVH eight at a time (lanes: rays, see
//! `Bvh::first_hit_x8`).
//!
//! The parts, each importing only those listed before it: `query` (the
//! options, the nearest-hit record, the local ray, the flat-BVH test),
//! `walk` (one ray's first hit), `packet_walk` (four or eight rays' first
//! hits), this file (the caster and the one-shot queries), `frame_picks`
//! (a frame's ray picks through its pixels), `batch` (first hits of many
//! rays as compact records).

mod batch;
mod frame_picks;
mod packet_walk;
pub(crate) mod query;
mod walk;

use glam::Vec3;

#[cfg(doc)]
use crate::accel::bvh::Bvh;
use crate::accel::bvh::NodeRef;
use crate::accel::top::BoxRay;
use crate::accel::transforms::{MeshTransform, MeshTransforms};
use crate::accel::triangle::{RayPrecomp, TriHit};
use crate::cpu::Isa;
use crate::geometry::Ray;
use crate::pick::{face_normal, Hit};
use crate::scene::{Mesh, MeshId, Scene};
pub use batch::{FirstHits, RayHit};
pub use query::RayOptions;
use query::{flat_bvh_for, local_ray, mesh_passes, LocalRay, NearestHit};
use walk::first_in;

/// The full hit record of triangle `triangle` of `mesh`, placed by
/// `transform` (a mirrored placement flips the facing).
fn make_hit(
    scene: &Scene,
    mesh: MeshId,
    transform: &MeshTransform,
    ray: &Ray,
    triangle: u32,
    h: TriHit,
) -> Hit {
    let m = &scene.meshes()[mesh as usize];
    let p = m
        .triangle(triangle)
        .map(|q| transform.world.transform_point3(q));
    let (origin, node_name) = scene.hit_origin(mesh);
    Hit {
        mesh,
        mesh_name: m.name_arc().clone(),
        triangle,
        global_triangle: scene.global_triangle(mesh, triangle),
        origin,
        node_name,
        depth: f32::NAN,
        distance: h.t * ray.direction_length(),
        position: ray.at(h.t),
        barycentric: h.bary,
        normal: face_normal(p),
        front_face: h.front != transform.mirrored,
    }
}

/// The shared per-mesh gate of every query: the mesh filter, the mesh's
/// world box, then the ray in local space against the local box. `Some`
/// when the mesh's BVH must be traversed.
#[allow(clippy::too_many_arguments)]
fn enter(
    m: &Mesh,
    transform: &MeshTransform,
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
    transform
        .world_bounds
        .ray_interval(ray.origin, inv_dir, t_min, t_max)?;
    let local = local_ray(transform, ray, opts.cull)?;
    m.bounds()
        .ray_interval(local.ray.origin(), local.ray.inv_dir(), t_min, t_max)?;
    Some(local)
}

/// Ray queries against one state of a scene, the one way to cast world
/// rays: [`RayCaster::first`] (the nearest hit), [`RayCaster::all`] (every
/// hit, sorted) and [`RayCaster::first_hits`] (compact nearest hits of many
/// rays). Each mesh's world matrix and its inverse are computed once, when
/// the caster is made, and reused for every ray (make a new caster after
/// moving nodes); so is a BVH over the meshes' world boxes (built at the
/// first query that needs it), through which a ray visits only the meshes
/// whose boxes it crosses, nearest first. When every mesh sits at the
/// identity (an OBJ file's meshes), first hits walk the scene's one BVH over
/// all its triangles instead. `Hit::depth` is NaN (there is no camera);
/// distances are along `ray.direction` in world units.
///
/// ```
/// use glam::Vec3;
/// use softpick::{builtin_scene, Ray, RayCaster, RayOptions};
///
/// let scene = builtin_scene();
/// let caster = RayCaster::new(&scene);
/// let down = Ray::new(Vec3::new(0.0, 10.0, 0.0), Vec3::NEG_Y);
/// let hit = caster.first(&down, &RayOptions::default()).expect("the scene is below");
/// let all = caster.all(&down, &RayOptions::default());
/// assert_eq!(all.first().map(|h| h.global_triangle), Some(hit.global_triangle));
/// ```
#[derive(Clone, Debug)]
pub struct RayCaster<'a> {
    scene: &'a Scene,
    transforms: &'a MeshTransforms,
}

impl<'a> RayCaster<'a> {
    /// A caster for the scene's current transforms (prepared once per
    /// state of the scene and kept by it, so a caster made per query costs
    /// nothing more than one kept).
    #[must_use]
    pub fn new(scene: &'a Scene) -> Self {
        Self {
            scene,
            transforms: scene.mesh_transforms(),
        }
    }

    /// A caster with transforms prepared elsewhere (a frame's, as rendered);
    /// falls back to the scene's current ones when they do not match it.
    #[inline]
    pub(crate) fn with_transforms(scene: &'a Scene, transforms: &'a MeshTransforms) -> Self {
        if transforms.len() == scene.meshes().len() {
            Self { scene, transforms }
        } else {
            Self::new(scene)
        }
    }

    /// The nearest hit of a world-space ray within `opts.near ..= opts.far`,
    /// or `None`: the top-level BVH is traversed front to back, each mesh's
    /// BVH is asked for hits up to the closest one so far, and equal
    /// distances go to the lower mesh id, so the answer is that of a loop
    /// over all meshes in order.
    #[must_use]
    pub fn first(&self, ray: &Ray, opts: &RayOptions<'_>) -> Option<Hit> {
        let nearest = first_in(self.scene, self.transforms, ray, opts)?;
        Some(self.expand(ray, nearest))
    }

    /// The full hit record of a query's nearest hit.
    fn expand(&self, ray: &Ray, nearest: NearestHit) -> Hit {
        let transform = &self.transforms[nearest.mesh as usize];
        make_hit(
            self.scene,
            nearest.mesh,
            transform,
            ray,
            nearest.triangle,
            nearest.hit,
        )
    }

    /// The meshes whose world boxes the ray crosses within `[t_min, t_max]`,
    /// in id order.
    fn candidates(&self, ray: &Ray, t_min: f32, t_max: f32) -> Vec<MeshId> {
        let nodes = &self.transforms.top().nodes;
        let br = BoxRay::new(ray.origin, ray.direction.recip());
        let mut out = Vec::new();
        let mut stack = vec![0usize];
        if nodes.is_empty() {
            return out;
        }
        while let Some(i) = stack.pop() {
            let n = &nodes[i];
            if br.enter(n, t_min, t_max).is_none() {
                continue;
            }
            if n.count == 0 {
                stack.extend([n.index as usize, n.index as usize + 1]);
            } else {
                out.push(n.index);
            }
        }
        out.sort_unstable();
        out
    }

    /// Every hit of a world-space ray within `opts.near ..= opts.far`,
    /// sorted by distance (ties by mesh, then triangle): the Papervision3D
    /// `collideRayToMesh` list.
    #[must_use]
    pub fn all(&self, ray: &Ray, opts: &RayOptions<'_>) -> Vec<Hit> {
        self.all_in(ray, opts, false)
    }

    /// [`RayCaster::all`] over the top-level BVH's candidates (or the flat
    /// BVH), or over every mesh with `brute` (the tests' reference).
    pub(crate) fn all_in(&self, ray: &Ray, opts: &RayOptions<'_>, brute: bool) -> Vec<Hit> {
        let mut out = Vec::new();
        self.each_hit(ray, opts, brute, |mesh, transform, triangle, h, _| {
            out.push(make_hit(self.scene, mesh, transform, ray, triangle, h));
        });
        out.sort_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then(a.mesh.cmp(&b.mesh))
                .then(a.triangle.cmp(&b.triangle))
        });
        out
    }

    /// Every hit of a world-space ray, as [`RayCaster::all`] finds them, as
    /// compact records ([`RayHit`], the normal on demand:
    /// [`RayCaster::hit_normal`], from the leaf the walk read where it
    /// walked the flat BVH, as for first hits): `out` is cleared, then filled with the
    /// hits in `all`'s order (by distance `t * ray.direction_length()`,
    /// ties by mesh, then triangle). Reuse `out` from ray to ray: a scene
    /// whose meshes all sit at the identity (an OBJ file's) then walks its
    /// one BVH over all triangles and allocates nothing per ray (unless a
    /// very deep tree overflows the walk's fixed stack).
    ///
    /// ```
    /// use glam::Vec3;
    /// use softpick::{builtin_scene, Ray, RayCaster, RayOptions};
    ///
    /// let scene = builtin_scene();
    /// let caster = RayCaster::new(&scene);
    /// let down = Ray::new(Vec3::new(0.0, 10.0, 0.0), Vec3::NEG_Y);
    /// let opts = RayOptions::default();
    /// let mut hits = Vec::new();
    /// caster.all_hits_into(&down, &opts, &mut hits);
    /// let full = caster.all(&down, &opts);
    /// assert_eq!(hits.len(), full.len());
    /// for (h, f) in hits.iter().zip(&full) {
    ///     assert_eq!((h.mesh, h.triangle), (f.mesh, f.triangle));
    ///     assert_eq!(h.t * down.direction_length(), f.distance);
    ///     assert_eq!(caster.hit_normal(h), f.normal);
    /// }
    /// ```
    pub fn all_hits_into(&self, ray: &Ray, opts: &RayOptions<'_>, out: &mut Vec<RayHit>) {
        out.clear();
        self.each_hit(ray, opts, false, |mesh, transform, triangle, h, leaf| {
            out.push(RayHit {
                mesh,
                triangle,
                global_triangle: self.scene.global_triangle(mesh, triangle),
                t: h.t,
                barycentric: h.bary,
                // (a mirrored placement flips the facing, as in a full hit)
                front_face: h.front != transform.mirrored,
                leaf,
            });
        });
        // (the key of `all_in`'s sort: its distances are these products)
        let len = ray.direction_length();
        out.sort_by(|a, b| {
            (a.t * len)
                .total_cmp(&(b.t * len))
                .then(a.mesh.cmp(&b.mesh))
                .then(a.triangle.cmp(&b.triangle))
        });
    }

    /// Calls `f(mesh, its transform, triangle, hit, leaf)` for every hit of a
    /// world-space ray within `opts.near ..= opts.far`, in no set order:
    /// through the scene's flat BVH where a first-hit query walks it too
    /// (`flat_bvh_for`: every mesh at the identity, no filter, no clip
    /// planes of one mesh; the same triangle tests in the same coordinates
    /// on the same ray and range, so the same hits), else mesh by mesh
    /// over the top-level BVH's candidates, or over every mesh with
    /// `brute` (and then in the baseline build, where the others run on
    /// the CPU's best instruction set: the tests compare the two). `leaf`:
    /// the flat BVH's leaf that holds the triangle on the flat walk (for
    /// [`RayCaster::hit_normal`], as a first hit's), else `None`.
    fn each_hit(
        &self,
        ray: &Ray,
        opts: &RayOptions<'_>,
        brute: bool,
        mut f: impl FnMut(MeshId, &MeshTransform, u32, TriHit, Option<NodeRef>),
    ) {
        let scene = self.scene;
        let Some((t_min, t_max)) = opts.t_range(ray) else {
            return;
        };
        if !(t_min <= t_max) {
            return;
        }
        // user clip planes narrow the ray: those of every mesh here, a
        // mesh's own at the mesh
        let Some((t_min, t_max)) = opts
            .clip
            .map_or(Some((t_min, t_max)), |c| c.narrow_all(ray, t_min, t_max))
        else {
            return;
        };
        let isa = if brute { Isa::Base } else { Isa::detect() };
        // (`brute` never walks the flat BVH, nor builds it: the CLI's
        // frame picks list every hit that way)
        let flat = if brute {
            None
        } else {
            flat_bvh_for(scene, self.transforms, opts)
        };
        if let Some(bvh) = flat {
            // (`local_ray` of the identity: the world ray itself, with
            // the same checks: `is_valid` rules out what it rules out)
            let pre = RayPrecomp::new(ray.origin, ray.direction);
            let mut hint = 0;
            bvh.each_hit_on(isa, &pre, t_min, t_max, opts.cull, |global, h, leaf| {
                if let Some((mesh, triangle)) = scene.locate_from(global, hint) {
                    hint = mesh;
                    f(
                        mesh,
                        &self.transforms[mesh as usize],
                        triangle,
                        h,
                        Some(leaf),
                    );
                }
            });
            return;
        }
        let inv_dir = ray.direction.recip();
        let meshes = if brute {
            (0..scene.meshes().len() as MeshId).collect()
        } else {
            self.candidates(ray, t_min, t_max)
        };
        for mesh in meshes {
            let m = &scene.meshes()[mesh as usize];
            let transform = &self.transforms[mesh as usize];
            let Some((t_min, t_max)) = opts.clip.map_or(Some((t_min, t_max)), |c| {
                c.narrow_mesh(mesh, ray, t_min, t_max)
            }) else {
                continue;
            };
            let Some(local) = enter(m, transform, mesh, ray, inv_dir, opts, t_min, t_max) else {
                continue;
            };
            m.bvh().each_hit_on(
                isa,
                &local.ray,
                t_min,
                t_max,
                local.cull,
                |triangle, h, _| {
                    f(mesh, transform, triangle, h, None);
                },
            );
        }
    }

    /// [`RayCaster::first`] as a loop over every mesh in order, without the
    /// top-level BVH: for the crate's one-shot queries (a caster made for
    /// one ray: the collision queries, the viewer's checks), where building
    /// that BVH would cost more than it saves, and the reference the tests
    /// compare against.
    pub(crate) fn first_brute(&self, ray: &Ray, opts: &RayOptions<'_>) -> Option<Hit> {
        let mut best: Option<NearestHit> = None;
        let (t_min, t_max0) = opts.t_range(ray)?;
        let (t_min0, t_max0) = opts
            .clip
            .map_or(Some((t_min, t_max0)), |c| c.narrow_all(ray, t_min, t_max0))?;
        let inv_dir = ray.direction.recip();
        let meshes = self.scene.meshes().iter().zip(self.transforms.iter());
        for (mesh, (m, transform)) in meshes.enumerate() {
            let mesh = mesh as MeshId;
            let t_max = best.map_or(t_max0, |b| b.hit.t);
            let Some((t_min, t_max)) = opts.clip.map_or(Some((t_min0, t_max)), |c| {
                c.narrow_mesh(mesh, ray, t_min0, t_max)
            }) else {
                continue;
            };
            let Some(local) = enter(m, transform, mesh, ray, inv_dir, opts, t_min, t_max) else {
                continue;
            };
            if let Some((triangle, hit)) = m.bvh().first_hit(&local.ray, t_min, t_max, local.cull) {
                if best.is_none_or(|b| hit.t < b.hit.t) {
                    best = Some(NearestHit {
                        mesh,
                        triangle,
                        hit,
                    });
                }
            }
        }
        best.map(|nearest| self.expand(ray, nearest))
    }
}

#[cfg(test)]
mod tests;
