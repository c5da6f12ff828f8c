//! 3D ray queries against a scene: per mesh, the world ray is taken into
//! the mesh's local space (inverse world matrix: point with w = 1, direction
//! with w = 0, so the ray parameter t is the same in both spaces), rejected
//! by the mesh's local bounds (slab test), then traced through the mesh's
//! BVH with the watertight ray–triangle test of [`super::triangle`].
//!
//! When every mesh sits at the identity (and no mesh filter is set), the
//! local rays are all the world ray, and first hits walk instead the one
//! BVH over all the scene's triangles ([`Scene::flat_bvh`], global triangle
//! indices): the same triangle tests in the same coordinates, the same tie
//! rule (a lower global index is a lower mesh, then a lower triangle), one
//! walk instead of one per mesh. Rows of pixel rays walk four rays at a
//! time ([`Bvh`]'s four-ray walk); in the AVX2 build, the flat BVH eight at
//! a time (lanes: rays, see `Bvh::first_hit_x8`).

use std::borrow::Cow;

use glam::{Mat4, Vec3, Vec4};

use super::{Hit, PickId};
use crate::accel::bvh::{
    prune_bound, set_bits, Bvh, MeshStack, Packet8Stack, PacketStack, Rays8, Stack,
};
use crate::accel::top::{BoxRay, BoxRay4};
use crate::accel::triangle::{precedes, RayPrecomp, TriHit};
use crate::cpu::Avx2;
use crate::frame::ray_setup::{MeshXform, ViewRays, Xforms};
use crate::frame::Frame;
use crate::geometry::{CullMode, Ray};
use crate::scene::{Mesh, MeshId, Scene};

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

fn local_ray(x: &MeshXform, ray: &Ray, cull: CullMode) -> Option<LocalRay> {
    let (pre, cull) = local_pre(x, ray, cull)?;
    Some(LocalRay {
        pre,
        cull,
        mirrored: x.mirrored,
        world: x.world,
    })
}

/// [`local_ray`] for first hits: only the precomputed local ray and the
/// cull mode as seen in local space.
#[inline(always)]
fn local_pre(x: &MeshXform, ray: &Ray, cull: CullMode) -> Option<(RayPrecomp, CullMode)> {
    if !x.valid {
        return None;
    }
    // (the identity's inverse is the identity: the ray is its own local
    // ray, without the matrix products)
    let (o, d) = if x.identity {
        (ray.origin, ray.direction)
    } else {
        (
            x.inv.transform_point3(ray.origin),
            x.inv.transform_vector3(ray.direction),
        )
    };
    if !o.is_finite() || !d.is_finite() || d == Vec3::ZERO {
        return None;
    }
    let cull = match (x.mirrored, cull) {
        (true, CullMode::Back) => CullMode::Front,
        (true, CullMode::Front) => CullMode::Back,
        (_, c) => c,
    };
    Some((RayPrecomp::new(o, d), cull))
}

fn mesh_passes(opts: &RayOptions<'_>, id: MeshId) -> bool {
    opts.filter.is_none_or(|f| f(id))
}

/// The scene's one BVH over all its triangles ([`Scene::flat_bvh`]) when a
/// first-hit query may walk it instead of the two levels: every mesh is
/// placed by the identity matrix (the local rays are then all the world
/// ray, see [`MeshXform::identity`]), every transform is valid (none of
/// the meshes is skipped) and no mesh filter is set.
#[inline(always)]
fn flat<'s>(scene: &'s Scene, xforms: &Xforms, opts: &RayOptions<'_>) -> Option<&'s Bvh> {
    (xforms.identity && opts.filter.is_none() && xforms.len() == scene.meshes().len())
        .then(|| scene.flat_bvh())
}

/// A hit in the flat BVH (a global triangle index) as a [`RawHit`];
/// `hint`: the mesh to try first, set to the mesh found.
#[inline(always)]
fn flat_hit(scene: &Scene, (global, h): (u32, TriHit), hint: &mut MeshId) -> Option<RawHit> {
    let (mesh, tri) = scene.locate_from(global, *hint)?;
    *hint = mesh;
    Some((mesh, tri, h))
}

/// The full hit record of triangle `tri` of `mesh`, placed by `world`
/// (`mirrored`: its determinant is negative, which flips the facing).
fn make_hit(
    scene: &Scene,
    mesh: MeshId,
    (world, mirrored): (&Mat4, bool),
    ray: &Ray,
    tri: u32,
    h: TriHit,
) -> Hit {
    let m = &scene.meshes()[mesh as usize];
    let p = m.triangle(tri).map(|q| world.transform_point3(q));
    Hit {
        mesh,
        mesh_name: m.name_arc().clone(),
        triangle: tri,
        global_triangle: scene.global_triangle(mesh, tri),
        depth: f32::NAN,
        distance: h.t * ray.direction.length(),
        position: ray.at(h.t),
        barycentric: h.bary,
        normal: super::face_normal(p),
        front_face: h.front != mirrored,
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

impl ViewRays {
    /// The compact pick of a pixel ray's first hit, its depth that of the
    /// hit point.
    #[inline(always)]
    fn pick_id(&self, scene: &Scene, ray: &Ray, (mesh, triangle, h): RawHit) -> PickId {
        PickId {
            mesh,
            triangle,
            global_triangle: scene.global_triangle(mesh, triangle),
            depth: self.depth(ray.at(h.t)),
        }
    }
}

/// The nearest hit of a query before it is expanded: mesh, triangle and the
/// triangle test's answer.
type RawHit = (MeshId, u32, TriHit);

/// Ray queries against one state of a scene: each mesh's world matrix and
/// its inverse are computed once, when the caster is made, and reused for
/// every ray (make a new caster after moving nodes); so is a BVH over the
/// meshes' world boxes (built at the first query), through which a ray
/// visits only the meshes whose boxes it crosses, nearest first.
/// [`raycast_first`] and [`raycast_all`] make a one-shot caster.
#[derive(Clone, Debug)]
pub struct RayCaster<'a> {
    scene: &'a Scene,
    xforms: Cow<'a, Xforms>,
}

impl<'a> RayCaster<'a> {
    /// A caster for the scene's current transforms.
    #[must_use]
    pub fn new(scene: &'a Scene) -> Self {
        Self {
            scene,
            xforms: Cow::Owned(Xforms::of(scene, &scene.world_matrices())),
        }
    }

    /// A caster with transforms prepared elsewhere (a frame's, as rendered);
    /// falls back to the scene's current ones when they do not match it.
    pub(crate) fn with_xforms(scene: &'a Scene, xforms: &'a Xforms) -> Self {
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
        let (mesh, tri, h) = self.first_raw(ray, opts)?;
        Some(self.expand(ray, mesh, tri, h))
    }

    fn expand(&self, ray: &Ray, mesh: MeshId, tri: u32, h: TriHit) -> Hit {
        let x = &self.xforms[mesh as usize];
        make_hit(self.scene, mesh, (&x.world, x.mirrored), ray, tri, h)
    }

    /// The nearest hit as (mesh, triangle, hit): the top-level BVH is
    /// traversed front to back, each mesh's BVH is asked for hits up to the
    /// closest one so far, and equal distances go to the lower mesh id, so
    /// the answer is that of a loop over all meshes in order.
    fn first_raw(&self, ray: &Ray, opts: &RayOptions<'_>) -> Option<RawHit> {
        first_in(self.scene, &self.xforms, ray, opts)
    }

    /// The meshes whose world boxes the ray crosses within `[t_min, t_max]`,
    /// in id order.
    fn candidates(&self, ray: &Ray, t_min: f32, t_max: f32) -> Vec<MeshId> {
        let nodes = &self.xforms.top().nodes;
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

    /// Every hit of a world-space ray, sorted (see [`raycast_all`]).
    #[must_use]
    pub fn all(&self, ray: &Ray, opts: &RayOptions<'_>) -> Vec<Hit> {
        self.all_in(ray, opts, false)
    }

    /// [`RayCaster::all`] over the top-level BVH's candidates, or over every
    /// mesh with `brute` (the tests' reference).
    pub(crate) fn all_in(&self, ray: &Ray, opts: &RayOptions<'_>, brute: bool) -> Vec<Hit> {
        let scene = self.scene;
        let mut out = Vec::new();
        let len = ray.direction.length();
        if !(len > 0.0) || !ray.origin.is_finite() {
            return out;
        }
        let (t_min, t_max) = (opts.near / len, opts.far / len);
        if !(t_min <= t_max) {
            return out;
        }
        let inv_dir = ray.direction.recip();
        let mut tmp = Vec::new();
        let meshes = if brute {
            (0..scene.meshes().len() as MeshId).collect()
        } else {
            self.candidates(ray, t_min, t_max)
        };
        for mesh in meshes {
            let (m, x) = (&scene.meshes()[mesh as usize], &self.xforms[mesh as usize]);
            let Some(lr) = enter(m, x, mesh, ray, inv_dir, opts, t_min, t_max) else {
                continue;
            };
            tmp.clear();
            m.bvh().all_hits(&lr.pre, t_min, t_max, lr.cull, &mut tmp);
            out.extend(
                tmp.iter()
                    .map(|&(tri, h)| make_hit(scene, mesh, (&lr.world, lr.mirrored), ray, tri, h)),
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

    /// [`RayCaster::first`] as a loop over every mesh in order, without the
    /// top-level BVH (one-shot queries, where building it would cost more
    /// than it saves; the reference the tests compare against).
    pub(crate) fn first_brute(&self, ray: &Ray, opts: &RayOptions<'_>) -> Option<Hit> {
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
            if let Some((tri, h)) = m.bvh().first_hit(&lr.pre, t_min, t_max, lr.cull) {
                if best.as_ref().is_none_or(|b| h.t < b.0) {
                    best = Some((h.t, mesh, tri, h, lr));
                }
            }
        }
        best.map(|(_, mesh, tri, h, lr)| {
            make_hit(scene, mesh, (&lr.world, lr.mirrored), ray, tri, h)
        })
    }
}

/// The nearest hit as (mesh, triangle, hit) (see [`RayCaster::first`]): the
/// top-level BVH is traversed front to back, each mesh's BVH is asked for
/// hits up to the closest one so far, and equal distances go to the lower
/// mesh id, so the answer is that of a loop over all meshes in order.
fn first_in(scene: &Scene, xforms: &Xforms, ray: &Ray, opts: &RayOptions<'_>) -> Option<RawHit> {
    let len = ray.direction.length();
    if !(len > 0.0) || !ray.origin.is_finite() {
        return None;
    }
    first_t(scene, xforms, ray, opts.near / len, opts.far / len, opts)
}

/// The traversal stacks of [`first_t_in`] (top level and mesh level), set
/// up once for a loop over many rays (an array each: setting one up per
/// ray costs as much as a node test).
pub(crate) struct RayScratch {
    top: Stack<(u32, f32), 16>,
    mesh: MeshStack,
}

impl RayScratch {
    pub(crate) fn new() -> Self {
        Self {
            top: Stack::new(),
            mesh: MeshStack::new(),
        }
    }
}

/// The stacks of a row of ray picks: the four-ray walks' (node, rays, entry
/// distances) and, for the pixels picked one at a time and the single-leaf
/// meshes, the one-ray stacks (a single pick sets up only those).
pub(crate) struct RowScratch {
    pub(crate) one: RayScratch,
    top4: Stack<(u32, u32, Vec4), 16>,
    mesh4: PacketStack,
    mesh8: Packet8Stack,
    /// The mesh of the row's last flat-walk hit (see `flat_hit`).
    mesh_hint: MeshId,
}

impl RowScratch {
    pub(crate) fn new() -> Self {
        Self {
            one: RayScratch::new(),
            top4: Stack::new(),
            mesh4: PacketStack::new(),
            mesh8: Packet8Stack::new(),
            mesh_hint: 0,
        }
    }
}

/// The four rays' closest hits so far, their distances and pruning bounds.
struct Best4 {
    hit: [Option<RawHit>; 4],
    t: [f32; 4],
    prune: [f32; 4],
}

impl Best4 {
    /// Ray r hit triangle `tri` of mesh `mesh`: kept when nearer, or as near
    /// and of a lower mesh (the one-ray rule of [`first_t_in`]).
    #[inline(always)]
    fn offer(&mut self, r: usize, mesh: MeshId, tri: u32, h: TriHit) {
        if precedes(mesh, h.t, self.hit[r].map(|b| (b.0, b.2.t))) {
            self.hit[r] = Some((mesh, tri, h));
            self.t[r] = h.t;
            self.prune[r] = prune_bound(h.t);
        }
    }
}

/// [`first_t_in`] for four rays at once: one walk of the top-level BVH and
/// of each mesh's BVH ([`crate::Bvh`]'s four-ray walk) for the four, every
/// box and triangle test made per ray exactly as [`first_t_in`] makes it,
/// each ray pruned by its own closest hit, so lane r holds what
/// [`first_t_in`] returns for `rays[r]`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn first_t_x4(
    scene: &Scene,
    xforms: &Xforms,
    rays: &[Ray; 4],
    t_min: f32,
    t_max0: f32,
    opts: &RayOptions<'_>,
    scratch: &mut RowScratch,
) -> [Option<RawHit>; 4] {
    let out: [Option<RawHit>; 4] = [None; 4];
    if !(t_min <= t_max0) {
        return out;
    }
    if let Some(bvh) = flat(scene, xforms, opts) {
        // (written out, no closures: they compiled to outlined calls)
        let x = &xforms[0];
        let pres = [
            local_pre(x, &rays[0], opts.cull),
            local_pre(x, &rays[1], opts.cull),
            local_pre(x, &rays[2], opts.cull),
            local_pre(x, &rays[3], opts.cull),
        ];
        let [h0, h1, h2, h3] = bvh.first_hit_x4(
            [
                pres[0].as_ref().map(|(p, c)| (p, *c)),
                pres[1].as_ref().map(|(p, c)| (p, *c)),
                pres[2].as_ref().map(|(p, c)| (p, *c)),
                pres[3].as_ref().map(|(p, c)| (p, *c)),
            ],
            t_min,
            [t_max0; 4],
            &mut scratch.mesh4,
            &mut scratch.one.mesh,
        );
        return [
            h0.and_then(|h| flat_hit(scene, h, &mut scratch.mesh_hint)),
            h1.and_then(|h| flat_hit(scene, h, &mut scratch.mesh_hint)),
            h2.and_then(|h| flat_hit(scene, h, &mut scratch.mesh_hint)),
            h3.and_then(|h| flat_hit(scene, h, &mut scratch.mesh_hint)),
        ];
    }
    let nodes = &xforms.top().nodes;
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
    let mut best = Best4 {
        hit: out,
        t: [t_max0; 4],
        prune: [t_max0; 4],
    };
    let RowScratch {
        top4: stack,
        mesh4,
        one: RayScratch { mesh, .. },
        ..
    } = scratch;
    stack.clear();
    let mut node = 0usize;
    let four = BoxRay4::new(&brs);
    // per ray, the local ray shared by the meshes placed with the identity
    // matrix, once computed
    let mut shared: [Option<Option<(RayPrecomp, CullMode)>>; 4] = std::array::from_fn(|_| None);
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
                        stack.push((l as u32, ml, Vec4::from_array(nl)));
                        (node, mask) = (rt, mr);
                    } else {
                        stack.push((rt as u32, mr, Vec4::from_array(nr)));
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
            let (m, x) = (&meshes[id as usize], &xforms[id as usize]);
            if mesh_passes(opts, id) {
                // the mesh's local rays (those of identity-placed meshes
                // computed once per ray and shared)
                let mut own: [Option<(RayPrecomp, CullMode)>; 4] = std::array::from_fn(|_| None);
                for r in set_bits(mask) {
                    if x.identity {
                        // (not `get_or_insert_with`, which compiled to an
                        // outlined call)
                        if shared[r].is_none() {
                            shared[r] = Some(local_pre(x, &rays[r], opts.cull));
                        }
                    } else {
                        own[r] = local_pre(x, &rays[r], opts.cull);
                    }
                }
                let local = |r: usize| {
                    let l = if x.identity {
                        shared[r].as_ref().and_then(Option::as_ref)
                    } else {
                        own[r].as_ref()
                    };
                    l.map(|(p, c)| (p, *c))
                };
                if m.bvh().is_single_leaf() {
                    // a small mesh: no tree walk to share, one ray at a time
                    for r in set_bits(mask) {
                        let Some((pre, cull)) = local(r) else {
                            continue;
                        };
                        if let Some((tri, h)) =
                            m.bvh().first_hit_in(pre, t_min, best.t[r], cull, mesh)
                        {
                            best.offer(r, id, tri, h);
                        }
                    }
                } else {
                    let lanes: [Option<(&RayPrecomp, CullMode)>; 4] =
                        std::array::from_fn(|r| if mask >> r & 1 == 0 { None } else { local(r) });
                    let hits = m.bvh().first_hit_x4(lanes, t_min, best.t, mesh4, mesh);
                    for (r, hit) in hits.into_iter().enumerate() {
                        if let Some((tri, h)) = hit {
                            best.offer(r, id, tri, h);
                        }
                    }
                }
            }
        }
        loop {
            let Some((i, rm, t_enter)) = stack.pop() else {
                return best.hit;
            };
            let still = rm & t_enter.cmple(Vec4::from_array(best.prune)).bitmask();
            if still != 0 {
                (node, mask) = (i as usize, still);
                break;
            }
        }
    }
}

/// [`first_t_in`] for eight rays through `bvh`, the scene's flat BVH
/// ([`Bvh::first_hit_x8`]), for a query that may use it (see [`flat`]).
#[inline(always)]
fn first_t_x8(
    scene: &Scene,
    bvh: &Bvh,
    rays: &Rays8,
    opts: &RayOptions<'_>,
    scratch: &mut RowScratch,
    avx2: Avx2,
) -> [Option<RawHit>; 8] {
    // (every mesh at the identity: each ray is its own local ray, see
    // `local_pre`, whose validity checks the walk makes)
    let hits = bvh.first_hit_x8(
        rays,
        0xff,
        opts.cull,
        0.0,
        1.0,
        (
            &mut scratch.mesh8,
            &mut scratch.mesh4,
            &mut scratch.one.mesh,
        ),
        avx2,
    );
    let mut out = [None; 8];
    for (o, h) in out.iter_mut().zip(hits) {
        *o = h.and_then(|h| flat_hit(scene, h, &mut scratch.mesh_hint));
    }
    out
}

/// [`first_in`] with the range given in units of the ray parameter `t`
/// (`opts.near` and `opts.far` are not used).
fn first_t(
    scene: &Scene,
    xforms: &Xforms,
    ray: &Ray,
    t_min: f32,
    t_max0: f32,
    opts: &RayOptions<'_>,
) -> Option<RawHit> {
    first_t_in(
        scene,
        xforms,
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
fn first_t_in(
    scene: &Scene,
    xforms: &Xforms,
    ray: &Ray,
    t_min: f32,
    t_max0: f32,
    opts: &RayOptions<'_>,
    scratch: &mut RayScratch,
) -> Option<RawHit> {
    let valid = ray.origin.is_finite() && ray.direction.is_finite();
    if !valid || ray.direction == Vec3::ZERO || !(t_min <= t_max0) {
        return None;
    }
    if let Some(bvh) = flat(scene, xforms, opts) {
        let (pre, cull) = local_pre(&xforms[0], ray, opts.cull)?;
        let hit = bvh.first_hit_in(&pre, t_min, t_max0, cull, &mut scratch.mesh)?;
        return flat_hit(scene, hit, &mut 0);
    }
    let nodes = &xforms.top().nodes;
    let meshes = scene.meshes();
    let br = BoxRay::new(ray.origin, ray.direction.recip());
    let mut best: Option<RawHit> = None;
    let mut t_best = t_max0;
    // Box pruning bound: the closest hit plus a little slack, so rounding
    // in the box tests never hides an equal-distance hit of a lower mesh.
    let mut prune = t_max0;
    let stack = &mut scratch.top;
    stack.clear();
    let mut node = 0usize;
    let mut shared: Option<Option<(RayPrecomp, CullMode)>> = None;
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
                    stack.push((far as u32, t_far));
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
            let (m, x) = (&meshes[mesh as usize], &xforms[mesh as usize]);
            if mesh_passes(opts, mesh) {
                // (no local box test: the mesh BVH's root test is one)
                // Meshes placed with the identity matrix share one local ray
                // (computed by the same code from the same matrix).
                // (by reference: the precomputed ray is not copied per mesh)
                let own;
                let local = if x.identity {
                    shared
                        .get_or_insert_with(|| local_pre(x, ray, opts.cull))
                        .as_ref()
                } else {
                    own = local_pre(x, ray, opts.cull);
                    own.as_ref()
                };
                if let Some((pre, cull)) = local {
                    if let Some((tri, h)) =
                        m.bvh()
                            .first_hit_in(pre, t_min, t_best, *cull, &mut scratch.mesh)
                    {
                        if precedes(mesh, h.t, best.map(|b| (b.0, b.2.t))) {
                            best = Some((mesh, tri, h));
                            t_best = h.t;
                            prune = prune_bound(t_best);
                        }
                    }
                }
            }
        }
        loop {
            let Some((i, t_enter)) = stack.pop() else {
                return best;
            };
            if t_enter <= prune {
                node = i as usize;
                break;
            }
        }
    }
}

/// The nearest hit of a world-space ray, or `None`. `Hit::depth` is NaN
/// (there is no camera); distances are along `ray.direction` in world units.
/// For many rays against one scene state, make a [`RayCaster`] once (it
/// also builds a BVH over the meshes, which a one-shot query skips).
#[must_use]
pub fn raycast_first(scene: &Scene, ray: &Ray, opts: &RayOptions<'_>) -> Option<Hit> {
    RayCaster::new(scene).first_brute(ray, opts)
}

/// Every hit of a world-space ray, sorted by distance (ties by mesh, then
/// triangle): the Papervision3D `collideRayToMesh` list.
#[must_use]
pub fn raycast_all(scene: &Scene, ray: &Ray, opts: &RayOptions<'_>) -> Vec<Hit> {
    RayCaster::new(scene).all_in(ray, opts, true)
}

impl Frame {
    /// The mesh transforms as rendered, prepared for ray queries (at the
    /// first one after the render, from the world matrices the render
    /// used and the meshes' bounds: a render of a scene of many meshes
    /// does not pay for them, 0.5 ms for the city's 4,735, 5 ms for
    /// 50,000 parts on one thread).
    #[inline(always)]
    fn xforms(&self, scene: &Scene) -> &Xforms {
        self.xforms.get_or_init(|| Xforms::of(scene, &self.worlds))
    }

    /// The per-pixel ray setup of the frame's camera (made at the first
    /// ray pick after the render); `None` without a camera or for one
    /// whose rays cannot be set up.
    #[inline(always)]
    fn view_rays(&self) -> Option<&ViewRays> {
        let cam = self.camera.as_ref()?;
        self.view
            .get_or_init(|| ViewRays::new(cam, &self.inv_view_proj))
            .as_ref()
    }

    /// The pick ray through the centre of pixel (x, y), from the near plane
    /// (t = 0) to the far plane (t = 1), its options, and the frame's ray
    /// setup.
    #[inline(always)]
    fn pixel_ray(&self, x: i64, y: i64) -> Option<(Ray, RayOptions<'static>, &ViewRays)> {
        let (ux, uy) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        let (opts, view) = self.span_setup((ux, uy), (1, 1))?;
        Some((view.ray(ux, uy), opts, view))
    }

    /// The options and ray setup of the pixel rays of the `w × h` pixels
    /// from `(x, y)` (`w, h >= 1`), `None` when one of those pixels is
    /// outside the frame or the frame has no ray setup.
    #[inline(always)]
    fn span_setup(
        &self,
        (x, y): (u32, u32),
        (w, h): (u32, u32),
    ) -> Option<(RayOptions<'static>, &ViewRays)> {
        self.index(x, y)?;
        self.index(x.checked_add(w - 1)?, y.checked_add(h - 1)?)?;
        let view = self.view_rays()?;
        let opts = RayOptions {
            cull: self.cull,
            ..RayOptions::default()
        };
        Some((opts, view))
    }

    /// Builds now what ray picks on this frame otherwise build on the first
    /// one: the meshes' transforms as rendered (their inverses and world
    /// boxes), the per-pixel ray setup and, unless every mesh was rendered at
    /// the identity (the picks then walk the scene's one BVH over all its
    /// triangles), the top-level BVH over the meshes' world boxes (as
    /// rendered). The BVHs over the triangles are built by
    /// [`Scene::build_bvhs`] (or on first use). Optional: for timing and for
    /// a first pick without the one-off cost.
    pub fn prepare_rays(&self, scene: &Scene) {
        let xforms = self.xforms(scene);
        if !xforms.identity {
            let _ = xforms.top();
        }
        let _ = self.view_rays();
    }

    /// The third pick method: a 3D ray through the centre of pixel (x, y),
    /// from the near plane to the far plane, with the frame's cull mode and
    /// the mesh transforms as rendered (like the other two methods; their
    /// inverses are made at the first ray pick after the render, from the
    /// world matrices it used). `Hit::depth` is the window depth of the
    /// hit point.
    #[must_use]
    pub fn pick_ray(&self, scene: &Scene, x: i64, y: i64) -> Option<Hit> {
        let (ray, opts, view) = self.pixel_ray(x, y)?;
        let caster = RayCaster::with_xforms(scene, self.xforms(scene));
        let (mesh, tri, h) = first_t(scene, &caster.xforms, &ray, 0.0, 1.0, &opts)?;
        let mut hit = caster.expand(&ray, mesh, tri, h);
        hit.depth = view.depth(hit.position);
        Some(hit)
    }

    /// Like [`Frame::pick_ray`], compactly: the mesh, triangle and window
    /// depth of the first hit (the same as [`Frame::pick_ray`]'s), without
    /// building the full hit record.
    #[must_use]
    pub fn pick_id_ray(&self, scene: &Scene, x: i64, y: i64) -> Option<PickId> {
        self.pick_id_ray_in(scene, x, y, &mut RayScratch::new())
    }

    /// The ray picks of the rows from `y` of the pixels `x .. x + width`,
    /// into `out`, which holds them one after another (`out.len() / width`
    /// rows, then a partial one if any), each the same as
    /// [`Frame::pick_id_ray`]. Inlined into both builds of
    /// `simd::ray_block` (this is the baseline one, with `avx2` `None`).
    ///
    /// Neighbouring pixels' rays walk the BVHs together. Two rows at a
    /// time, in blocks of 4×2 pixels whose eight rays walk together, where
    /// the scene's flat BVH serves them and `avx2` is given (the AVX2
    /// build): closer rays than eight in a row, so fewer of the walk's
    /// boxes are entered by only some of them. The rest row by row
    /// (`ray_row_in`): eight pixels at a time where the flat BVH and `avx2`
    /// serve them, else four, the last ones one by one.
    #[inline(always)]
    pub(crate) fn ray_block(
        &self,
        scene: &Scene,
        (x, y, width): (u32, u32, usize),
        out: &mut [Option<PickId>],
        avx2: Option<Avx2>,
    ) {
        if width == 0 {
            return;
        }
        let mut scratch = RowScratch::new();
        let mut rows = out.chunks_mut(width);
        let mut y = y;
        while let Some(top) = rows.next() {
            let mut bottom = rows.next();
            // (one call of each walk here: every call site is another
            // inlined copy of it)
            let mut k = 0;
            if let (Some(avx2), Some(bottom)) = (avx2, bottom.as_deref_mut()) {
                while k + 4 <= bottom.len() {
                    let at = (x.saturating_add(k as u32), y, 4);
                    let Some(ids) = self.pick_ids_ray_x8(scene, at, &mut scratch, avx2) else {
                        break;
                    };
                    top[k..k + 4].copy_from_slice(&ids[..4]);
                    bottom[k..k + 4].copy_from_slice(&ids[4..]);
                    k += 4;
                }
            }
            let xk = x.saturating_add(k as u32);
            for (dy, row) in [Some(top), bottom].into_iter().flatten().enumerate() {
                let at = (xk, y.saturating_add(dy as u32));
                self.ray_row_in(scene, at, &mut row[k..], avx2, &mut scratch);
            }
            y = y.saturating_add(2);
        }
    }

    /// The ray picks of pixels `(x + k, y)` into `out[k]` (see
    /// [`Frame::ray_block`]), with the row's stacks given.
    #[inline(always)]
    fn ray_row_in(
        &self,
        scene: &Scene,
        (x, y): (u32, u32),
        out: &mut [Option<PickId>],
        avx2: Option<Avx2>,
        scratch: &mut RowScratch,
    ) {
        let mut k = 0;
        while k < out.len() {
            // (a `match`, not a closure: a closure would not be inlined
            // into the AVX2 build)
            let px = u32::try_from(k).ok().and_then(|k| x.checked_add(k));
            let eight = match (px, avx2) {
                (Some(px), Some(avx2)) if out.len() - k >= 8 => {
                    self.pick_ids_ray_x8(scene, (px, y, 8), scratch, avx2)
                }
                _ => None,
            };
            if let Some(eight) = eight {
                out[k..k + 8].copy_from_slice(&eight);
                k += 8;
                continue;
            }
            let four = match px {
                Some(px) if out.len() - k >= 4 => {
                    self.pick_id_ray_x4(scene, px, y, &mut out[k..], scratch)
                }
                _ => false,
            };
            if four {
                k += 4;
                continue;
            }
            out[k] = self.pick_id_ray_in(
                scene,
                i64::from(x) + k as i64,
                i64::from(y),
                &mut scratch.one,
            );
            k += 1;
        }
    }

    /// [`Frame::pick_id_ray`] for eight pixels at once through the scene's
    /// flat BVH (see `first_t_x8`): `w` (8 or 4) side by side in `8 / w`
    /// rows from `(x, y)`, in the lane order of [`ViewRays::rays8`]; `None`
    /// when the scene's picks cannot use that BVH or a pixel is outside the
    /// frame.
    #[inline(always)]
    pub(crate) fn pick_ids_ray_x8(
        &self,
        scene: &Scene,
        (x, y, w): (u32, u32, u32),
        scratch: &mut RowScratch,
        avx2: Avx2,
    ) -> Option<[Option<PickId>; 8]> {
        debug_assert!(w == 8 || w == 4, "{w} pixels side by side");
        let (opts, view) = self.span_setup((x, y), (w, 8 / w))?;
        let bvh = flat(scene, self.xforms(scene), &opts)?;
        let rays = view.rays8(x, y, w);
        let hits = first_t_x8(scene, bvh, &rays, &opts, scratch, avx2);
        let mut out = [None; 8];
        for (r, (o, hit)) in out.iter_mut().zip(hits).enumerate() {
            let ray = Ray::new(rays.origin(r), rays.dir(r));
            *o = hit.map(|raw| view.pick_id(scene, &ray, raw));
        }
        Some(out)
    }

    /// [`Frame::pick_id_ray`] for the four pixels `(x .. x + 4, y)` at once
    /// (one walk of the BVHs for the four rays, see `first_t_x4`), into
    /// `out[..4]`; `false` (nothing written) when one of them is outside the
    /// frame or the frame has no ray setup, for the caller to pick them one
    /// at a time.
    #[inline(always)]
    pub(crate) fn pick_id_ray_x4(
        &self,
        scene: &Scene,
        x: u32,
        y: u32,
        out: &mut [Option<PickId>],
        scratch: &mut RowScratch,
    ) -> bool {
        let xforms = self.xforms(scene);
        if out.len() < 4 || xforms.len() != scene.meshes().len() {
            return false;
        }
        // the setup `pixel_ray` makes per pixel, once for the four
        let Some((opts, view)) = self.span_setup((x, y), (4, 1)) else {
            return false;
        };
        // (written out: `array::from_fn` here compiled to an outlined call
        // per ray, outside the AVX2 build)
        let rays: [Ray; 4] = [
            view.ray(x, y),
            view.ray(x + 1, y),
            view.ray(x + 2, y),
            view.ray(x + 3, y),
        ];
        let hits = first_t_x4(scene, xforms, &rays, 0.0, 1.0, &opts, scratch);
        for ((o, hit), ray) in out.iter_mut().zip(hits).zip(&rays) {
            *o = hit.map(|raw| view.pick_id(scene, ray, raw));
        }
        true
    }

    /// [`Frame::pick_id_ray`] with the traversal stacks given (a row of
    /// picks sets them up once).
    #[inline(always)]
    pub(crate) fn pick_id_ray_in(
        &self,
        scene: &Scene,
        x: i64,
        y: i64,
        scratch: &mut RayScratch,
    ) -> Option<PickId> {
        let (ray, opts, view) = self.pixel_ray(x, y)?;
        let xforms = self.xforms(scene);
        let raw = if xforms.len() == scene.meshes().len() {
            first_t_in(scene, xforms, &ray, 0.0, 1.0, &opts, scratch)
        } else {
            let caster = RayCaster::new(scene);
            first_t_in(scene, &caster.xforms, &ray, 0.0, 1.0, &opts, scratch)
        }?;
        Some(view.pick_id(scene, &ray, raw))
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::camera::Camera;
    use crate::scene::Transform;
    use crate::test_util::Rng;

    /// A random multi-mesh scene: triangle soups and jittered grids with
    /// random rotations, translations and (some mirrored) scales, plus an
    /// exact duplicate of one mesh (equal-distance ties between meshes).
    fn scene(rng: &mut Rng, meshes: usize) -> Scene {
        scene_placed(rng, meshes, false)
    }

    /// [`scene`], with every mesh placed by the identity when `identity`
    /// (the scenes whose picks walk the flat BVH).
    fn scene_placed(rng: &mut Rng, meshes: usize, identity: bool) -> Scene {
        let mut s = Scene::new();
        for i in 0..meshes {
            let mut p = Vec::new();
            let mut t = Vec::new();
            if rng.below(2) == 0 {
                for k in 0..rng.below(40) + 1 {
                    for _ in 0..3 {
                        p.push(rng.vec3(-1.0, 1.0));
                    }
                    let b = 3 * k as u32;
                    t.push([b, b + 1, b + 2]);
                }
            } else {
                let (gp, gt) = crate::test_util::grid(6, 0.3, rng);
                p = gp
                    .iter()
                    .map(|v| *v / 6.0 - Vec3::new(0.5, 0.5, 0.0))
                    .collect();
                t = gt;
            }
            let mut scale = rng.vec3(0.3, 2.5);
            if rng.below(4) == 0 {
                scale.x = -scale.x;
            }
            let tr = if identity || rng.below(3) == 0 {
                // placed with the identity: these share one local ray
                let off = rng.vec3(-8.0, 8.0);
                p.iter_mut().for_each(|v| *v += off);
                Transform::IDENTITY
            } else {
                Transform {
                    translation: rng.vec3(-8.0, 8.0),
                    rotation: Quat::from_axis_angle(rng.unit(), rng.range(0.0, 6.3)),
                    scale,
                }
            };
            let dup = i > 0 && rng.below(6) == 0;
            let mesh = Mesh::new(format!("m{i}"), p, t, [1, 2, 3]).unwrap();
            if dup {
                let prev = s.meshes().len() as MeshId - 1;
                let m = s.meshes()[prev as usize].clone();
                let node = s.mesh_node(prev).unwrap();
                let tr = s.local(node).unwrap();
                s.add_mesh(m, tr, None);
            } else {
                s.add_mesh(mesh, tr, None);
            }
        }
        s
    }

    fn key(h: &Hit) -> (MeshId, u32, u32, u32) {
        (
            h.mesh,
            h.triangle,
            h.distance.to_bits(),
            h.position.x.to_bits(),
        )
    }

    #[test]
    fn top_level_first_and_all_equal_a_loop_over_every_mesh() {
        let mut rng = Rng(0x5eed_f70b);
        let mut hits = 0;
        for round in 0..12 {
            let s = scene(&mut rng, [1, 2, 5, 30, 120][round % 5]);
            let caster = RayCaster::new(&s);
            for k in 0..400 {
                let origin = rng.vec3(-14.0, 14.0);
                // half the rays aim at a random vertex of a random mesh
                let target = if k % 2 == 0 {
                    let m = rng.below(s.meshes().len());
                    let p = s.meshes()[m].positions();
                    s.mesh_world(m as MeshId)
                        .transform_point3(p[rng.below(p.len())] * 0.9)
                } else {
                    rng.vec3(-9.0, 9.0)
                };
                let mut dir = target - origin;
                if k % 7 == 0 {
                    dir.y = 0.0; // a zero direction component
                }
                let ray = Ray::new(origin, dir * rng.range(0.2, 3.0));
                let opts = RayOptions {
                    near: if k % 3 == 0 {
                        rng.range(0.0, 10.0)
                    } else {
                        0.0
                    },
                    far: if k % 4 == 0 {
                        rng.range(5.0, 30.0)
                    } else {
                        f32::INFINITY
                    },
                    cull: [CullMode::None, CullMode::Back, CullMode::Front][k % 3],
                    filter: None,
                };
                let a = caster.first(&ray, &opts);
                let b = caster.first_brute(&ray, &opts);
                assert_eq!(
                    a.as_ref().map(key),
                    b.as_ref().map(key),
                    "round {round} ray {k}"
                );
                hits += usize::from(a.is_some());
                let all: Vec<_> = caster.all(&ray, &opts).iter().map(key).collect();
                let brute: Vec<_> = caster.all_in(&ray, &opts, true).iter().map(key).collect();
                assert_eq!(all, brute, "round {round} ray {k}");
            }
        }
        assert!(hits > 1000, "{hits} hits: the rays must mostly hit");
    }

    /// Rows and blocks of rows of ray picks (four or eight neighbouring
    /// pixels per walk of the BVHs, in a row or 4×2) give exactly the
    /// single picks, on random multi-mesh scenes (rotated, mirrored,
    /// duplicated meshes) from random eyes, every cull mode, rows starting
    /// anywhere and of any length; and the ones run (the AVX2 build of
    /// `simd` where the CPU has it) equal the baseline build's.
    #[test]
    fn ray_rows_and_blocks_equal_single_ray_picks() {
        let mut rng = Rng(0x4a11_0000_0000_0044);
        let mut hits = 0;
        for round in 0..16 {
            // (rounds 10 and on: every mesh at the identity, so the rows
            // walk the flat BVH, eight rays at a time in the AVX2 build)
            let s = scene_placed(&mut rng, [1, 2, 5, 30, 120][round % 5], round >= 10);
            let mut cam = Camera::auto_frame(&s.framing_bounds(), 80, 56);
            cam.eye = cam.target + rng.unit() * rng.range(8.0, 30.0);
            if round % 4 == 3 {
                cam.projection = crate::camera::Projection::Orthographic { height: 20.0 };
            }
            let cull = [CullMode::None, CullMode::Back, CullMode::Front][round % 3];
            let mut r = crate::Renderer::new(crate::RenderOptions {
                cull,
                ..Default::default()
            })
            .unwrap();
            let f = r.render(&s, &cam).unwrap();
            // blocks of rows (4×2-pixel walks in the AVX2 build): the whole
            // frame, odd row counts, widths not a multiple of four, and
            // blocks running over the frame's right and bottom edges
            for (x0, y0, width, rows) in [
                (0u32, 0u32, 80usize, 56usize),
                (1, 3, 79, 5),
                (37, 10, 6, 3),
                (74, 50, 9, 7),
                (78, 20, 3, 2),
                (2, 55, 11, 2),
            ] {
                let mut block = vec![None; width * rows];
                f.pick_id_block(crate::PickMethod::Ray, &s, x0, y0, width, &mut block);
                let mut base = vec![None; width * rows];
                f.ray_block(&s, (x0, y0, width), &mut base, None);
                assert_eq!(block, base, "round {round} block at ({x0},{y0})");
                for (k, got) in block.iter().enumerate() {
                    let x = i64::from(x0) + (k % width) as i64;
                    let y = i64::from(y0) + (k / width) as i64;
                    let want = f.pick_id_ray(&s, x, y);
                    assert_eq!(*got, want, "round {round} block ({x},{y})");
                    hits += usize::from(want.is_some());
                }
            }
            for y in (0..56).step_by(3) {
                for (x0, len) in [(0u32, 80usize), (1, 79), (37, 6), (74, 9), (78, 3)] {
                    let mut row = vec![None; len];
                    f.pick_id_span(crate::PickMethod::Ray, &s, x0, y, &mut row);
                    // the baseline build of the row equals the one run
                    // (the AVX2 build where the CPU has it)
                    let mut base = vec![None; len];
                    f.ray_block(&s, (x0, y, len), &mut base, None);
                    assert_eq!(row, base, "round {round} row {y} from {x0}");
                    for (k, got) in row.iter().enumerate() {
                        let x = i64::from(x0) + k as i64;
                        let want = f.pick_id_ray(&s, x, i64::from(y));
                        assert_eq!(*got, want, "round {round} ({x},{y})");
                        hits += usize::from(want.is_some());
                    }
                }
            }
        }
        assert!(hits > 8000, "{hits} hits: the rays must mostly hit");
    }

    #[test]
    fn flat_walk_equals_the_two_levels() {
        // Every mesh at the identity: a query walks the scene's one BVH; with
        // a filter that passes every mesh, the two levels (top level, then
        // each mesh's BVH). Both, and the brute-force loop, agree on every
        // ray, duplicated meshes (equal-distance ties) included.
        let mut rng = Rng(0xf1a7_0000_0000_0008);
        let all = |_: MeshId| true;
        let mut hits = 0;
        for round in 0..8 {
            let s = scene_placed(&mut rng, [2, 7, 40, 150][round % 4], true);
            let caster = RayCaster::new(&s);
            for i in 0..400 {
                let cull = [CullMode::None, CullMode::Back, CullMode::Front][i % 3];
                // (aimed at the meshes' region, so that most rays hit)
                let o = rng.vec3(-14.0, 14.0);
                let ray = Ray::new(o, (rng.vec3(-8.0, 8.0) - o).normalize());
                let near = rng.range(0.0, 3.0);
                let flat = RayOptions {
                    cull,
                    near,
                    ..RayOptions::default()
                };
                let two = RayOptions {
                    filter: Some(&all),
                    ..flat
                };
                // (`key`: the hits' `depth` is NaN, which `==` rejects)
                let got = caster.first(&ray, &flat);
                let got = got.as_ref().map(key);
                let two = caster.first(&ray, &two);
                assert_eq!(got, two.as_ref().map(key), "round {round} ray {i}");
                let brute = caster.first_brute(&ray, &flat);
                assert_eq!(got, brute.as_ref().map(key), "round {round} ray {i}");
                hits += usize::from(got.is_some());
            }
        }
        assert!(hits > 300, "{hits} hits");
    }

    #[test]
    fn filter_applies_through_the_top_level() {
        let mut rng = Rng(99);
        let s = scene(&mut rng, 40);
        let caster = RayCaster::new(&s);
        let odd = |m: MeshId| m % 2 == 1;
        for _ in 0..300 {
            let ray = Ray::new(rng.vec3(-14.0, 14.0), rng.unit());
            let opts = RayOptions {
                filter: Some(&odd),
                ..RayOptions::default()
            };
            let a = caster.first(&ray, &opts);
            assert_eq!(
                a.as_ref().map(key),
                caster.first_brute(&ray, &opts).as_ref().map(key)
            );
            assert!(a.is_none_or(|h| h.mesh % 2 == 1));
        }
    }
}
