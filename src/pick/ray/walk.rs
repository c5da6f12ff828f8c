//! The first hit of one ray: through the scene's flat BVH when every mesh
//! sits at the identity (see [`flat_bvh_for`]), else down the top-level
//! BVH over the meshes' world boxes, front to back, into each mesh's BVH
//! with the ray in the mesh's local space.

use glam::Vec3;

use super::query::{
    flat_bvh_for, local_ray, locate_flat_hit, mesh_passes, LocalRay, NearestHit, RayOptions,
};
use crate::accel::bvh::{MeshStack, Stack};
use crate::accel::top::BoxRay;
use crate::accel::transforms::MeshTransforms;
use crate::accel::triangle::precedes;
use crate::geometry::{prune_bound, Ray};
use crate::scene::{MeshId, Scene};

/// A top-level node still to visit, and the distance at which the ray
/// enters its box.
#[derive(Clone, Copy, Default)]
pub(crate) struct PendingNode {
    pub(crate) node: u32,
    pub(crate) t_enter: f32,
}

/// The traversal stacks of [`first_t_in`] (top level and mesh level), set
/// up once for a loop over many rays (an array each: setting one up per
/// ray costs as much as a node test).
pub(crate) struct RayScratch {
    pub(crate) top: Stack<PendingNode, 16>,
    pub(crate) mesh: MeshStack,
    /// The mesh of the last flat-walk hit (see [`locate_flat_hit`]).
    pub(crate) mesh_hint: MeshId,
}

impl RayScratch {
    #[inline]
    pub(crate) fn new() -> Self {
        Self {
            top: Stack::new(),
            mesh: MeshStack::new(),
            mesh_hint: 0,
        }
    }
}

/// The nearest hit of `ray` within `opts.near ..= opts.far` (world units
/// along the ray): the top-level BVH is traversed front to back, each
/// mesh's BVH is asked for hits up to the closest one so far, and equal
/// distances go to the lower mesh id, so the answer is that of a loop over
/// all meshes in order.
#[inline]
pub(crate) fn first_in(
    scene: &Scene,
    transforms: &MeshTransforms,
    ray: &Ray,
    opts: &RayOptions<'_>,
) -> Option<NearestHit> {
    let (t_min, t_max) = opts.t_range(ray)?;
    first_t(scene, transforms, ray, t_min, t_max, opts)
}

/// [`first_in`] with the range given in units of the ray parameter `t`
/// (`opts.near` and `opts.far` are not used).
#[inline]
pub(crate) fn first_t(
    scene: &Scene,
    transforms: &MeshTransforms,
    ray: &Ray,
    t_min: f32,
    t_max0: f32,
    opts: &RayOptions<'_>,
) -> Option<NearestHit> {
    first_t_in(
        scene,
        transforms,
        ray,
        t_min,
        t_max0,
        opts,
        &mut RayScratch::new(),
    )
}

/// [`first_t`] with the traversal stacks given.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn first_t_in(
    scene: &Scene,
    transforms: &MeshTransforms,
    ray: &Ray,
    t_min: f32,
    t_max0: f32,
    opts: &RayOptions<'_>,
    scratch: &mut RayScratch,
) -> Option<NearestHit> {
    let valid = ray.origin.is_finite() && ray.direction.is_finite();
    if !valid || ray.direction == Vec3::ZERO || !(t_min <= t_max0) {
        return None;
    }
    // user clip planes: those of every mesh narrow the ray here, a mesh's
    // own at the mesh (a convex cut leaves one interval of t)
    let (t_min, t_max0) = match opts.clip {
        Some(c) => c.narrow_all(ray, t_min, t_max0)?,
        None => (t_min, t_max0),
    };
    if let Some(bvh) = flat_bvh_for(scene, transforms, opts) {
        let local = local_ray(&transforms[0], ray, opts.cull)?;
        let hit = bvh.first_hit_in(&local.ray, t_min, t_max0, local.cull, &mut scratch.mesh)?;
        return locate_flat_hit(scene, hit, &mut scratch.mesh_hint);
    }
    let nodes = &transforms.top().nodes;
    let meshes = scene.meshes();
    let br = BoxRay::new(ray.origin, ray.direction.recip());
    let mut best: Option<NearestHit> = None;
    let mut t_best = t_max0;
    // Box pruning bound: the closest hit plus a little slack, so rounding
    // in the box tests never hides an equal-distance hit of a lower mesh.
    let mut prune = t_max0;
    let stack = &mut scratch.top;
    stack.clear();
    let mut node = 0usize;
    // the local ray shared by the meshes placed with the identity matrix,
    // once computed (`Some(None)`: computed, and not a valid ray)
    let mut shared: Option<Option<LocalRay>> = None;
    br.enter(nodes.first()?, t_min, prune)?;
    loop {
        let n = &nodes[node];
        if n.count == 0 {
            let (l, r) = (n.index as usize, n.index as usize + 1);
            let (mask, near) = br.enter_pair(n, nodes, t_min, prune);
            match mask {
                3 => {
                    let (a, b) = (near.x, near.y);
                    let (near, far, t_far) = if b < a { (r, l, a) } else { (l, r, b) };
                    stack.push(PendingNode {
                        node: far as u32,
                        t_enter: t_far,
                    });
                    node = near;
                    continue;
                }
                1 => {
                    node = l;
                    continue;
                }
                2 => {
                    node = r;
                    continue;
                }
                _ => {}
            }
        } else {
            let mesh = n.index;
            let (m, transform) = (&meshes[mesh as usize], &transforms[mesh as usize]);
            if mesh_passes(opts, mesh) {
                // (no local box test: the mesh BVH's root test is one)
                // Meshes placed with the identity matrix share one local ray
                // (computed by the same code from the same matrix).
                // (by reference: the precomputed ray is not copied per mesh)
                let own;
                let local = if transform.identity {
                    shared
                        .get_or_insert_with(|| local_ray(transform, ray, opts.cull))
                        .as_ref()
                } else {
                    own = local_ray(transform, ray, opts.cull);
                    own.as_ref()
                };
                let range = match opts.clip {
                    Some(c) => c.narrow_mesh(mesh, ray, t_min, t_best),
                    None => Some((t_min, t_best)),
                };
                if let (Some(local), Some((lo, hi))) = (local, range) {
                    if let Some((triangle, hit)) =
                        m.bvh()
                            .first_hit_in(&local.ray, lo, hi, local.cull, &mut scratch.mesh)
                    {
                        if precedes(mesh, hit.t, best.map(|b| (b.mesh, b.hit.t))) {
                            best = Some(NearestHit {
                                mesh,
                                triangle,
                                hit,
                            });
                            t_best = hit.t;
                            prune = prune_bound(t_best);
                        }
                    }
                }
            }
        }
        loop {
            let Some(pending) = stack.pop() else {
                return best;
            };
            if pending.t_enter <= prune {
                node = pending.node as usize;
                break;
            }
        }
    }
}
