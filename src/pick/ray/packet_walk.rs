//! The first hits of four or eight neighbouring pixel rays in one walk of
//! the BVHs ([`first_t_x4`], [`first_t_x8`]). Every box and triangle test
//! is made per ray exactly as the one-ray walk ([`first_t_in`]) makes it,
//! each ray pruned by its own closest hit, so each lane's answer is the
//! one-ray answer; the walk's bookkeeping is paid once for the rays.

use glam::{Vec3, Vec4};

use super::query::{
    flat_bvh_for, local_ray, locate_flat_hit, mesh_passes, LocalRay, NearestHit, RayOptions,
};
#[cfg(doc)]
use super::walk::first_t_in;
use super::walk::RayScratch;
use crate::accel::bvh::{set_bits, Bvh, Packet8Stack, PacketStack, Rays8, Stack};
use crate::accel::top::{BoxRay, BoxRay4};
use crate::accel::transforms::MeshTransforms;
use crate::accel::triangle::{precedes, RayPrecomp, TriHit};
use crate::cpu::Avx2;
use crate::geometry::{prune_bound, CullMode, Ray};
use crate::scene::{MeshId, Scene};

/// A top-level node still to visit by the four-ray walk: the rays that
/// entered its box (bit r for ray r) and their entry distances.
#[derive(Clone, Copy, Default)]
struct PendingNode4 {
    node: u32,
    rays: u32,
    t_enter: Vec4,
}

/// The stacks of a row of ray picks: the four- and eight-ray walks' and,
/// for the pixels picked one at a time and the single-leaf meshes, the
/// one-ray stacks (a single pick sets up only those).
pub(crate) struct RowScratch {
    pub(crate) one_ray: RayScratch,
    top_x4: Stack<PendingNode4, 16>,
    mesh_x4: PacketStack,
    mesh_x8: Packet8Stack,
    /// The mesh of the row's last flat-walk hit (see [`locate_flat_hit`]):
    /// neighbouring pixels mostly hit the same mesh.
    mesh_hint: MeshId,
}

impl RowScratch {
    #[inline]
    pub(crate) fn new() -> Self {
        Self {
            one_ray: RayScratch::new(),
            top_x4: Stack::new(),
            mesh_x4: PacketStack::new(),
            mesh_x8: Packet8Stack::new(),
            mesh_hint: 0,
        }
    }
}

/// The four rays' closest hits so far, their distances and pruning bounds.
struct Nearest4 {
    hit: [Option<NearestHit>; 4],
    t: [f32; 4],
    prune: [f32; 4],
}

impl Nearest4 {
    /// Ray r hit triangle `triangle` of mesh `mesh`: kept when nearer, or
    /// as near and of a lower mesh (the one-ray rule of [`first_t_in`]).
    #[inline(always)]
    fn offer(&mut self, r: usize, mesh: MeshId, triangle: u32, hit: TriHit) {
        if precedes(mesh, hit.t, self.hit[r].map(|b| (b.mesh, b.hit.t))) {
            self.hit[r] = Some(NearestHit {
                mesh,
                triangle,
                hit,
            });
            self.t[r] = hit.t;
            self.prune[r] = prune_bound(hit.t);
        }
    }
}

/// [`first_t_in`] for four rays at once: one walk of the top-level BVH and
/// of each mesh's BVH ([`Bvh`]'s four-ray walk) for the four, every box
/// and triangle test made per ray exactly as [`first_t_in`] makes it, each
/// ray pruned by its own closest hit, so lane r holds what [`first_t_in`]
/// returns for `rays[r]`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn first_t_x4(
    scene: &Scene,
    transforms: &MeshTransforms,
    rays: &[Ray; 4],
    t_min: f32,
    t_max0: f32,
    opts: &RayOptions<'_>,
    scratch: &mut RowScratch,
) -> [Option<NearestHit>; 4] {
    let out: [Option<NearestHit>; 4] = [None; 4];
    if !(t_min <= t_max0) {
        return out;
    }
    if let Some(bvh) = flat_bvh_for(scene, transforms, opts) {
        // (written out, no closures: these compile to outlined calls)
        let transform = &transforms[0];
        let locals = [
            local_ray(transform, &rays[0], opts.cull),
            local_ray(transform, &rays[1], opts.cull),
            local_ray(transform, &rays[2], opts.cull),
            local_ray(transform, &rays[3], opts.cull),
        ];
        let [h0, h1, h2, h3] = bvh.first_hit_x4(
            [
                locals[0].as_ref().map(|l| (&l.ray, l.cull)),
                locals[1].as_ref().map(|l| (&l.ray, l.cull)),
                locals[2].as_ref().map(|l| (&l.ray, l.cull)),
                locals[3].as_ref().map(|l| (&l.ray, l.cull)),
            ],
            t_min,
            [t_max0; 4],
            &mut scratch.mesh_x4,
            &mut scratch.one_ray.mesh,
        );
        return [
            h0.and_then(|h| locate_flat_hit(scene, h, &mut scratch.mesh_hint)),
            h1.and_then(|h| locate_flat_hit(scene, h, &mut scratch.mesh_hint)),
            h2.and_then(|h| locate_flat_hit(scene, h, &mut scratch.mesh_hint)),
            h3.and_then(|h| locate_flat_hit(scene, h, &mut scratch.mesh_hint)),
        ];
    }
    let nodes = &transforms.top().nodes;
    let Some(root) = nodes.first() else {
        return out;
    };
    let meshes = scene.meshes();
    let brs: [BoxRay; 4] =
        std::array::from_fn(|r| BoxRay::new(rays[r].origin, rays[r].direction.recip()));
    let mut mask = 0u32;
    for (r, ray) in rays.iter().enumerate() {
        let valid = ray.origin.is_finite() && ray.direction.is_finite();
        if valid && ray.direction != Vec3::ZERO && brs[r].enter(root, t_min, t_max0).is_some() {
            mask |= 1 << r;
        }
    }
    if mask == 0 {
        return out;
    }
    let mut best = Nearest4 {
        hit: out,
        t: [t_max0; 4],
        prune: [t_max0; 4],
    };
    let RowScratch {
        top_x4: stack,
        mesh_x4,
        one_ray: RayScratch { mesh, .. },
        ..
    } = scratch;
    stack.clear();
    let mut node = 0usize;
    let four = BoxRay4::new(&brs);
    // per ray, the local ray shared by the meshes placed with the identity
    // matrix, once computed (`Some(None)`: computed, and not a valid ray)
    let mut shared: [Option<Option<LocalRay>>; 4] = std::array::from_fn(|_| None);
    loop {
        let n = &nodes[node];
        if n.count == 0 {
            let (l, rt) = (n.index as usize, n.index as usize + 1);
            let (mut ml, mut mr) = (0u32, 0u32);
            let (mut nl, mut nr) = ([f32::INFINITY; 4], [f32::INFINITY; 4]);
            if let Some(b4) = &four {
                // the four rays side by side (the same per-ray operations)
                let [(hl, dl), (hr, dr)] = b4.enter_pair(n, t_min, Vec4::from_array(best.prune));
                (ml, mr) = (hl & mask, hr & mask);
                (nl, nr) = (dl.to_array(), dr.to_array());
            } else {
                for r in set_bits(mask) {
                    let (hit, near) = brs[r].enter_pair(n, nodes, t_min, best.prune[r]);
                    if hit & 1 != 0 {
                        ml |= 1 << r;
                        nl[r] = near.x;
                    }
                    if hit & 2 != 0 {
                        mr |= 1 << r;
                        nr[r] = near.y;
                    }
                }
            }
            let min4 = |v: [f32; 4]| v[0].min(v[1]).min(v[2].min(v[3]));
            match (ml != 0, mr != 0) {
                (true, true) => {
                    if min4(nr) < min4(nl) {
                        stack.push(PendingNode4 {
                            node: l as u32,
                            rays: ml,
                            t_enter: Vec4::from_array(nl),
                        });
                        (node, mask) = (rt, mr);
                    } else {
                        stack.push(PendingNode4 {
                            node: rt as u32,
                            rays: mr,
                            t_enter: Vec4::from_array(nr),
                        });
                        (node, mask) = (l, ml);
                    }
                    continue;
                }
                (true, false) => {
                    (node, mask) = (l, ml);
                    continue;
                }
                (false, true) => {
                    (node, mask) = (rt, mr);
                    continue;
                }
                _ => {}
            }
        } else {
            let id = n.index;
            let (m, transform) = (&meshes[id as usize], &transforms[id as usize]);
            if mesh_passes(opts, id) {
                // the mesh's local rays (those of identity-placed meshes
                // computed once per ray and shared)
                let mut own: [Option<LocalRay>; 4] = std::array::from_fn(|_| None);
                for r in set_bits(mask) {
                    if transform.identity {
                        // (not `get_or_insert_with`, which compiles to an
                        // outlined call)
                        if shared[r].is_none() {
                            shared[r] = Some(local_ray(transform, &rays[r], opts.cull));
                        }
                    } else {
                        own[r] = local_ray(transform, &rays[r], opts.cull);
                    }
                }
                let local = |r: usize| {
                    let l = if transform.identity {
                        shared[r].as_ref().and_then(Option::as_ref)
                    } else {
                        own[r].as_ref()
                    };
                    l.map(|l| (&l.ray, l.cull))
                };
                if m.bvh().is_single_leaf() {
                    // a small mesh: no tree walk to share, one ray at a time
                    for r in set_bits(mask) {
                        let Some((ray, cull)) = local(r) else {
                            continue;
                        };
                        if let Some((triangle, hit)) =
                            m.bvh().first_hit_in(ray, t_min, best.t[r], cull, mesh)
                        {
                            best.offer(r, id, triangle, hit);
                        }
                    }
                } else {
                    let lanes: [Option<(&RayPrecomp, CullMode)>; 4] =
                        std::array::from_fn(|r| if mask >> r & 1 == 0 { None } else { local(r) });
                    let hits = m.bvh().first_hit_x4(lanes, t_min, best.t, mesh_x4, mesh);
                    for (r, hit) in hits.into_iter().enumerate() {
                        if let Some((triangle, hit)) = hit {
                            best.offer(r, id, triangle, hit);
                        }
                    }
                }
            }
        }
        loop {
            let Some(pending) = stack.pop() else {
                return best.hit;
            };
            let still = pending.rays
                & pending
                    .t_enter
                    .cmple(Vec4::from_array(best.prune))
                    .bitmask();
            if still != 0 {
                (node, mask) = (pending.node as usize, still);
                break;
            }
        }
    }
}

/// [`first_t_in`] for eight rays through `bvh`, the scene's flat BVH
/// ([`Bvh::first_hit_x8`]), for a query that may use it (see
/// [`flat_bvh_for`]).
#[inline(always)]
pub(crate) fn first_t_x8(
    scene: &Scene,
    bvh: &Bvh,
    rays: &Rays8,
    opts: &RayOptions<'_>,
    scratch: &mut RowScratch,
    avx2: Avx2,
) -> [Option<NearestHit>; 8] {
    // (every mesh at the identity: each ray is its own local ray, see
    // `local_ray`, whose validity checks the walk makes)
    let hits = bvh.first_hit_x8(
        rays,
        0xff,
        opts.cull,
        0.0,
        1.0,
        (
            &mut scratch.mesh_x8,
            &mut scratch.mesh_x4,
            &mut scratch.one_ray.mesh,
        ),
        avx2,
    );
    let mut out = [None; 8];
    for (o, h) in out.iter_mut().zip(hits) {
        *o = h.and_then(|h| locate_flat_hit(scene, h, &mut scratch.mesh_hint));
    }
    out
}
