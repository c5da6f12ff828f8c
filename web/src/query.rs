//! Ray and pixel answers in three.js's terms: the object, the instance,
//! the primitive and the triangle's index position `j` of each softpick
//! hit, its barycentrics in three.js's corner order and the local normal of
//! the triangle, packed as [`HIT_STRIDE`] numbers for the JavaScript side.
//! A ray ([`cast`], [`first_lazy`]) asks the objects whose pose waits
//! (`lazy`) by their cluster walk, and the others by softpick's caster,
//! and keeps the hits softpick's order keeps.

use glam::{DVec3, Vec3};
use softpick::{CullMode, Hit, MeshId, Ray, RayCaster, RayHit, RayOptions, Scene};

use crate::lazy::{self, precedes};
use crate::world::{MeshRef, World};

/// Numbers per packed hit: object, instance, primitive, `j`, distance,
/// point (3), barycentrics of the corners a, b, c (3), the unit normal of
/// the triangle in the object's local space (3), front (1 or 0), softpick
/// mesh id.
pub(crate) const HIT_STRIDE: usize = 16;

/// A softpick answer on one triangle, before packing.
pub(crate) struct Answer {
    pub(crate) mesh: MeshId,
    pub(crate) triangle: u32,
    pub(crate) distance: f32,
    pub(crate) point: Vec3,
    pub(crate) barycentric: Vec3,
    pub(crate) front: bool,
}

impl From<&Hit> for Answer {
    fn from(h: &Hit) -> Self {
        Answer {
            mesh: h.mesh,
            triangle: h.triangle,
            distance: h.distance,
            point: h.position,
            barycentric: h.barycentric,
            front: h.front_face,
        }
    }
}

impl Answer {
    /// The answer of a compact hit of `ray`: what [`Answer::from`] gives
    /// for the full hit (its distance `t · len` and point `ray.at(t)`).
    fn of(h: &RayHit, ray: &Ray) -> Self {
        Answer {
            mesh: h.mesh,
            triangle: h.triangle,
            distance: h.t * ray.direction_length(),
            point: ray.at(h.t),
            barycentric: h.barycentric,
            front: h.front_face,
        }
    }
}

/// Appends the packed form of `a` to `out`.
pub(crate) fn pack(refs: &[MeshRef], scene: &Scene, a: &Answer, out: &mut Vec<f64>) {
    let corners = scene.mesh(a.mesh).map(|m| m.triangle(a.triangle));
    pack_with(refs, corners, a, out);
}

/// Appends the packed form of `a` to `out`, the triangle's corners given
/// (in the mesh's space).
pub(crate) fn pack_with(
    refs: &[MeshRef],
    corners: Option<[Vec3; 3]>,
    a: &Answer,
    out: &mut Vec<f64>,
) {
    let r = refs[a.mesh as usize];
    let (j, reversed) = r.triangle(a.triangle);
    let b = a.barycentric;
    let (bary, corners) = match corners {
        Some(c) => {
            let [p, q, s] = c.map(Vec3::as_dvec3);
            if reversed {
                (Vec3::new(b.x, b.z, b.y), [p, s, q])
            } else {
                (b, [p, q, s])
            }
        }
        None => (b, [DVec3::ZERO; 3]),
    };
    let n = (corners[1] - corners[0])
        .cross(corners[2] - corners[0])
        .normalize_or_zero();
    out.extend_from_slice(&[
        f64::from(r.object),
        f64::from(r.instance),
        f64::from(r.prim),
        f64::from(j),
        f64::from(a.distance),
        f64::from(a.point.x),
        f64::from(a.point.y),
        f64::from(a.point.z),
        f64::from(bary.x),
        f64::from(bary.y),
        f64::from(bary.z),
        n.x,
        n.y,
        n.z,
        if a.front { 1.0 } else { 0.0 },
        f64::from(a.mesh),
    ]);
}

/// A mask over objects (one byte each, nonzero: tested; none: every
/// object) as a mesh filter, which may also leave out the meshes of
/// waiting poses (their rays go to the lazy walk).
pub(crate) struct Mask<'a> {
    pub(crate) refs: &'a [MeshRef],
    pub(crate) objects: Option<&'a [u8]>,
    pub(crate) skip_lazy: bool,
}

/// Whether a mask over objects (none: every object) passes object `id`.
pub(crate) fn object_passes(mask: Option<&[u8]>, id: u32) -> bool {
    mask.is_none_or(|m| m.get(id as usize).is_some_and(|&b| b != 0))
}

impl Mask<'_> {
    pub(crate) fn passes(&self, mesh: MeshId) -> bool {
        self.refs
            .get(mesh as usize)
            .is_some_and(|r| !(self.skip_lazy && r.lazy) && object_passes(self.objects, r.object))
    }
}

/// A world ray from JavaScript numbers; an error when its origin or
/// direction is not finite (in f32, as the walk takes them). A zero
/// direction is a ray that hits nothing, as in three.js's `Raycaster` and
/// the core (docs/conventions.md, "Ray directions").
pub(crate) fn ray(o: &[f64], d: &[f64]) -> Result<Ray, String> {
    if o.len() != 3 || d.len() != 3 {
        return Err("a ray needs a 3-value origin and a 3-value direction".into());
    }
    let (o, d) = (DVec3::from_slice(o), DVec3::from_slice(d));
    finite(o, d).map_err(|e| format!("the ray's {e}"))?;
    Ok(Ray::new(o.as_vec3(), d.as_vec3()))
}

/// A number in a message as JavaScript writes it: `Infinity`, not Rust's
/// `inf`, and `0` for -0. (Not its exponents: Rust's `{:e}` for f64 would
/// add 4 KB of module, so 1e30 is written out in full.)
struct Js(f64);

impl std::fmt::Display for Js {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            v if v == f64::INFINITY => f.write_str("Infinity"),
            v if v == f64::NEG_INFINITY => f.write_str("-Infinity"),
            0.0 => f.write_str("0"),
            v => v.fmt(f),
        }
    }
}

/// An error naming the part of a ray (`origin`, `direction`) that is not
/// finite, or not in f32 (the walk's numbers: 1e39 would be infinite
/// there), or none.
fn finite(origin: DVec3, direction: DVec3) -> Result<(), String> {
    for (what, v) in [("origin", origin), ("direction", direction)] {
        let [x, y, z] = v.to_array().map(Js);
        if !v.is_finite() {
            return Err(format!("{what} ({x}, {y}, {z}) is not finite"));
        }
        if !v.as_vec3().is_finite() {
            return Err(format!(
                "{what} has a coordinate beyond the range of 32-bit floats (±3.4e38)"
            ));
        }
    }
    Ok(())
}

/// The options of a query: distances along the ray (in units of the
/// direction's length, as three.js's `near` and `far` with its unit
/// direction), the world's cull mode, the object mask.
pub(crate) fn options<'a>(
    cull: CullMode,
    near: f64,
    far: f64,
    filter: Option<&'a (dyn Fn(MeshId) -> bool + Sync)>,
) -> Result<RayOptions<'a>, String> {
    if !(near >= 0.0) || !(far >= near) {
        let (near, far) = (Js(near), Js(far));
        return Err(format!("near {near} and far {far}: need 0 <= near <= far"));
    }
    Ok(RayOptions {
        near: near as f32,
        far: far as f32,
        cull,
        filter,
        clip: None,
    })
}

/// The first hit of a ray, packed (empty: none): the caster's compact
/// first hit (the same walk and answer as `RayCaster::first`, without
/// the names and world normal of a full hit, which the packing does not
/// use).
pub(crate) fn first(
    refs: &[MeshRef],
    scene: &Scene,
    caster: &RayCaster<'_>,
    ray: &Ray,
    opts: &RayOptions<'_>,
    out: &mut Vec<f64>,
) {
    if let Some(Some(h)) = caster.first_hits(std::iter::once(*ray), opts).next() {
        pack(refs, scene, &Answer::of(&h, ray), out);
    }
}

/// Every hit of a ray, nearest first, packed: the caster's compact hits
/// (`RayCaster::all`'s, without the names and world normals the packing
/// does not use).
pub(crate) fn all(
    refs: &[MeshRef],
    scene: &Scene,
    caster: &RayCaster<'_>,
    ray: &Ray,
    opts: &RayOptions<'_>,
    out: &mut Vec<f64>,
) {
    let mut hits = Vec::new();
    caster.all_hits_into(ray, opts, &mut hits);
    for h in &hits {
        pack(refs, scene, &Answer::of(h, ray), out);
    }
}

/// A query of the built world: `f` of the mesh references, the scene and
/// its caster, with the options (near, far, the world's cull mode, the
/// object mask as a filter).
pub(crate) fn with_query<R>(
    world: &mut World,
    near: f64,
    far: f64,
    mask: Option<&[u8]>,
    f: impl FnOnce(&[MeshRef], &Scene, &RayCaster<'_>, &RayOptions<'_>) -> R,
) -> Result<R, String> {
    world.build();
    let mut f = Some(f);
    let mut r = None;
    with_core(
        world,
        near,
        far,
        mask,
        false,
        &mut |refs, scene, caster, opts| {
            r = f.take().map(|f| f(refs, scene, caster, opts));
        },
    )?;
    r.ok_or_else(|| "the query did not run".into())
}

/// `f` of the world as it is (not built, its waiting poses waiting), as
/// [`with_query`], the meshes of waiting poses left out with `skip_lazy`.
/// (One copy of this for every query: `f` is called through a pointer.)
#[allow(clippy::type_complexity)]
fn with_core(
    world: &mut World,
    near: f64,
    far: f64,
    mask: Option<&[u8]>,
    skip_lazy: bool,
    f: &mut dyn FnMut(&[MeshRef], &Scene, &RayCaster<'_>, &RayOptions<'_>),
) -> Result<(), String> {
    let cull = world.cull;
    let World {
        meshes,
        core,
        clipping,
        ..
    } = world;
    let refs: &[MeshRef] = meshes;
    let clip = clipping.planes(refs.iter().map(|r| (r.object, r.prim)));
    let m = (mask.is_some() || skip_lazy).then_some(Mask {
        refs,
        objects: mask,
        skip_lazy,
    });
    let filter = m.as_ref().map(|m| move |id| m.passes(id));
    let filter = filter
        .as_ref()
        .map(|f| f as &(dyn Fn(MeshId) -> bool + Sync));
    let opts = RayOptions {
        clip,
        ..options(cull, near, far, filter)?
    };
    core.with_caster(|scene, caster| f(refs, scene, caster, &opts));
    Ok(())
}

/// The nearest hit of a ray, for [`cast`] and the batches: softpick's
/// caster's on the meshes of posed objects, the lazy walk's on those of
/// waiting poses, the nearer kept (equal distances: the lower mesh).
pub(crate) struct Best {
    pub(crate) mesh: MeshId,
    pub(crate) triangle: u32,
    pub(crate) t: f32,
    pub(crate) barycentric: Vec3,
    pub(crate) front: bool,
    /// The posed corners of a hit of the lazy walk (the mesh holds an
    /// older pose); none: the mesh's own.
    pub(crate) corners: Option<[Vec3; 3]>,
}

impl Best {
    pub(crate) fn answer(&self, ray: &Ray) -> Answer {
        Answer {
            mesh: self.mesh,
            triangle: self.triangle,
            distance: self.t * ray.direction_length(),
            point: ray.at(self.t),
            barycentric: self.barycentric,
            front: self.front,
        }
    }
}

/// The ray's range in units of its direction, as softpick's caster takes
/// it (`None`: a ray that hits nothing).
fn range(ray: &Ray, near: f64, far: f64) -> Option<(f32, f32)> {
    let len = ray.direction_length();
    let valid = ray.origin.is_finite() && ray.direction.is_finite();
    if !(len > 0.0) || !valid {
        return None;
    }
    let (t_min, t_max) = (near as f32 / len, far as f32 / len);
    (t_min <= t_max).then_some((t_min, t_max))
}

/// The nearest hit of a ray in a world with waiting poses (the structure
/// standing: see `World::before_lazy_ray`).
pub(crate) fn first_lazy(
    world: &mut World,
    ray: &Ray,
    near: f64,
    far: f64,
    mask: Option<&[u8]>,
) -> Result<Option<Best>, String> {
    options(world.cull, near, far, None)?;
    let others = world
        .meshes
        .iter()
        .any(|r| !r.lazy && object_passes(mask, r.object));
    let mut best = None;
    if others {
        with_core(world, near, far, mask, true, &mut |_, _, caster, opts| {
            let h = caster
                .first_hits(std::iter::once(*ray), opts)
                .next()
                .flatten();
            best = h.map(|h| Best {
                mesh: h.mesh,
                triangle: h.triangle,
                t: h.t,
                barycentric: h.barycentric,
                front: h.front_face,
                corners: None,
            });
        })?;
    }
    let Some((t_min, t_max0)) = range(ray, near, far) else {
        return Ok(best);
    };
    let cull = world.cull;
    world.each_lazy_mesh(mask, &mut |m, part, l, g, scene| {
        let Some(local) = lazy::local_ray(scene.mesh_world(m), ray, cull) else {
            return;
        };
        let t_max = best.as_ref().map_or(t_max0, |b: &Best| b.t);
        if let Some((tri, h)) = l.first_hit(g, part, &local, t_min, t_max) {
            if precedes(m, h.t, best.as_ref().map(|b: &Best| (b.mesh, b.t))) {
                best = Some(Best {
                    mesh: m,
                    triangle: tri,
                    t: h.t,
                    barycentric: h.bary,
                    front: h.front != local.mirrored,
                    corners: Some(l.corners(part, tri)),
                });
            }
        }
    });
    Ok(best)
}

/// Hits of one mesh's lazy walk past which an all-hits query poses in
/// full instead (the merge below is by insertion).
const ALL_LAZY_HITS: usize = 256;

/// Every hit of a ray in a world with waiting poses, nearest first (ties:
/// the lower mesh, then the lower triangle, as `RayCaster::all`), packed;
/// `false` (nothing packed) when a lazy walk meets more than
/// [`ALL_LAZY_HITS`].
fn all_lazy(
    world: &mut World,
    ray: &Ray,
    near: f64,
    far: f64,
    mask: Option<&[u8]>,
    out: &mut Vec<f64>,
) -> Result<bool, String> {
    options(world.cull, near, far, None)?;
    // the caster's, sorted; each lazy hit goes in at its place
    let mut hits: Vec<(Answer, Option<[Vec3; 3]>)> = Vec::new();
    with_core(world, near, far, mask, true, &mut |_, _, caster, opts| {
        let mut compact = Vec::new();
        caster.all_hits_into(ray, opts, &mut compact);
        hits.extend(compact.iter().map(|h| (Answer::of(h, ray), None)));
    })?;
    let mut fits = true;
    if let Some((t_min, t_max)) = range(ray, near, far) {
        let cull = world.cull;
        let mut tmp = Vec::new();
        world.each_lazy_mesh(mask, &mut |m, part, l, g, scene| {
            let Some(local) = lazy::local_ray(scene.mesh_world(m), ray, cull) else {
                return;
            };
            tmp.clear();
            l.all_hits(g, part, &local, t_min, t_max, &mut tmp);
            fits &= tmp.len() <= ALL_LAZY_HITS;
            for &(tri, h) in tmp.iter().take(ALL_LAZY_HITS) {
                let b = Best {
                    mesh: m,
                    triangle: tri,
                    t: h.t,
                    barycentric: h.bary,
                    front: h.front != local.mirrored,
                    corners: None,
                };
                let a = b.answer(ray);
                let at = hits.partition_point(|(x, _)| {
                    x.distance
                        .total_cmp(&a.distance)
                        .then(x.mesh.cmp(&a.mesh))
                        .then(x.triangle.cmp(&a.triangle))
                        .is_lt()
                });
                hits.insert(at, (a, Some(l.corners(part, tri))));
            }
        });
    }
    if !fits {
        return Ok(false);
    }
    let World { meshes, core, .. } = world;
    for (a, corners) in &hits {
        match corners {
            Some(c) => pack_with(meshes, Some(*c), a, out),
            None => pack(meshes, core.scene(), a, out),
        }
    }
    Ok(true)
}

/// The hits of one ray (`all`: every hit, nearest first; else the
/// nearest), packed into `out`: waiting poses asked lazily while their
/// budget lasts (`World::before_lazy_ray`), else every object through
/// softpick's caster.
pub(crate) fn cast(
    world: &mut World,
    ray: &Ray,
    near: f64,
    far: f64,
    mask: Option<&[u8]>,
    all_hits: bool,
    out: &mut Vec<f64>,
) -> Result<(), String> {
    world.before_lazy_ray(mask);
    if world.lazy_ids.is_empty() {
        return with_query(world, near, far, mask, |refs, scene, caster, opts| {
            if all_hits {
                all(refs, scene, caster, ray, opts, out);
            } else {
                first(refs, scene, caster, ray, opts, out);
            }
        });
    }
    if all_hits {
        if all_lazy(world, ray, near, far, mask, out)? {
            return Ok(());
        }
        world.settle_all();
        return cast(world, ray, near, far, mask, all_hits, out);
    }
    if let Some(b) = first_lazy(world, ray, near, far, mask)? {
        let World { meshes, core, .. } = world;
        let corners = b
            .corners
            .or_else(|| core.scene().mesh(b.mesh).map(|m| m.triangle(b.triangle)));
        pack_with(meshes, corners, &b.answer(ray), out);
    }
    Ok(())
}

/// Where [`batch`] writes: per ray its object (−1: none), instance, index
/// position `j` and distance.
pub(crate) struct BatchOut<'a> {
    pub(crate) object: &'a mut [i32],
    pub(crate) instance: &'a mut [u32],
    pub(crate) index: &'a mut [u32],
    pub(crate) distance: &'a mut [f32],
}

impl BatchOut<'_> {
    fn set(&mut self, i: usize, refs: &[MeshRef], hit: Option<(MeshId, u32, f32)>) {
        match hit {
            Some((mesh, triangle, distance)) => {
                let r = refs[mesh as usize];
                self.object[i] = r.object as i32;
                self.instance[i] = r.instance;
                self.index[i] = r.triangle(triangle).0;
                self.distance[i] = distance;
            }
            None => {
                self.object[i] = -1;
                self.instance[i] = 0;
                self.index[i] = 0;
                self.distance[i] = f32::INFINITY;
            }
        }
    }
}

/// The nearest hits of many rays (x, y, z per ray in `origins` and
/// `directions`, as many of each; `out` with room for every ray), through
/// softpick's batch (waiting poses are applied first: a batch is many
/// rays).
pub(crate) fn batch(
    world: &mut World,
    origins: &[f32],
    directions: &[f32],
    near: f64,
    far: f64,
    mask: Option<&[u8]>,
    mut out: BatchOut<'_>,
) -> Result<(), String> {
    let rays = origins
        .chunks_exact(3)
        .zip(directions.chunks_exact(3))
        .map(|(o, d)| Ray::new(Vec3::from_slice(o), Vec3::from_slice(d)));
    // (refused as one ray is, before any output is written: a NaN row is a
    // caller's bug, and "no hit" would hide it; the rays are made again
    // only to name the first bad one)
    if !origins.iter().chain(directions).all(|v| v.is_finite()) {
        for (i, ray) in rays.clone().enumerate() {
            finite(ray.origin.as_dvec3(), ray.direction.as_dvec3())
                .map_err(|e| format!("ray {i}'s {e}"))?;
        }
    }
    with_query(world, near, far, mask, |refs, _, caster, opts| {
        for (i, (h, ray)) in caster.first_hits(rays.clone(), opts).zip(rays).enumerate() {
            let hit = h.map(|h| (h.mesh, h.triangle, h.t * ray.direction_length()));
            out.set(i, refs, hit);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::Js;

    #[test]
    fn numbers_in_messages_are_written_as_javascript_writes_them() {
        // (the right-hand sides are JavaScript's String(x) of each)
        for (x, js) in [
            (1e20, "100000000000000000000"),
            (1e-6, "0.000001"),
            (0.5, "0.5"),
            (-0.0, "0"),
            (123.0, "123"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(Js(x).to_string(), js, "{x:?}");
        }
    }
}
