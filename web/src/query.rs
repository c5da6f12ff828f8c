//! Ray and pixel answers in three.js's terms: the object, the instance,
//! the primitive and the triangle's index position `j` of each softpick
//! hit, its barycentrics in three.js's corner order and the local normal of
//! the triangle, packed as [`HIT_STRIDE`] numbers for the JavaScript side.

use glam::{DVec3, Vec3};
use softpick::{CullMode, Hit, MeshId, Ray, RayCaster, RayOptions, Scene};

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

/// Appends the packed form of `a` to `out`.
pub(crate) fn pack(refs: &[MeshRef], scene: &Scene, a: &Answer, out: &mut Vec<f64>) {
    let r = refs[a.mesh as usize];
    let (j, reversed) = r.triangle(a.triangle);
    let b = a.barycentric;
    let (bary, corners) = match scene.mesh(a.mesh) {
        Some(m) => {
            let [p, q, s] = m.triangle(a.triangle).map(Vec3::as_dvec3);
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

/// A mask over objects (one byte each, nonzero: tested) as a mesh filter.
pub(crate) struct Mask<'a> {
    pub(crate) refs: &'a [MeshRef],
    pub(crate) objects: &'a [u8],
}

impl Mask<'_> {
    pub(crate) fn passes(&self, mesh: MeshId) -> bool {
        self.refs
            .get(mesh as usize)
            .is_some_and(|r| self.objects.get(r.object as usize).is_some_and(|&b| b != 0))
    }
}

/// A world ray from JavaScript numbers; an error when not finite or of
/// zero length.
pub(crate) fn ray(o: &[f64], d: &[f64]) -> Result<Ray, String> {
    if o.len() != 3 || d.len() != 3 {
        return Err("a ray needs a 3-value origin and a 3-value direction".into());
    }
    let (o, d) = (DVec3::from_slice(o), DVec3::from_slice(d));
    if !o.is_finite() || !d.is_finite() {
        return Err(format!("the ray ({o}, {d}) is not finite"));
    }
    if d == DVec3::ZERO {
        return Err("the ray's direction is zero".into());
    }
    Ok(Ray::new(o.as_vec3(), d.as_vec3()))
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
        let a = Answer {
            mesh: h.mesh,
            triangle: h.triangle,
            distance: h.t * ray.direction.length(),
            point: ray.at(h.t),
            barycentric: h.barycentric,
            front: h.front_face,
        };
        pack(refs, scene, &a, out);
    }
}

/// Every hit of a ray, nearest first, packed.
pub(crate) fn all(
    refs: &[MeshRef],
    scene: &Scene,
    caster: &RayCaster<'_>,
    ray: &Ray,
    opts: &RayOptions<'_>,
    out: &mut Vec<f64>,
) {
    for h in caster.all(ray, opts) {
        pack(refs, scene, &Answer::from(&h), out);
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
    let cull = world.cull;
    let World {
        meshes,
        core,
        clipping,
        ..
    } = world;
    let refs: &[MeshRef] = meshes;
    let clip = clipping.planes(refs.iter().map(|r| (r.object, r.prim)));
    let m = mask.map(|objects| Mask { refs, objects });
    let filter = m.as_ref().map(|m| move |id| m.passes(id));
    let filter = filter
        .as_ref()
        .map(|f| f as &(dyn Fn(MeshId) -> bool + Sync));
    let opts = RayOptions {
        clip,
        ..options(cull, near, far, filter)?
    };
    Ok(core.with_caster(|scene, caster| f(refs, scene, caster, &opts)))
}
