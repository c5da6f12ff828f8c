//! Collision and utility queries built on ray casts: the ground height
//! under a character, camera-in-wall checks, and moving a mesh until it
//! touches another (three.js-style rays along the motion from the mover's
//! centre and vertices, plus rays the other way from the other meshes'
//! vertices, which catch a corner poking into a flat face).

use glam::Vec3;

use crate::geometry::{Aabb, Ray};
use crate::pick::ray::{raycast_first, RayCaster, RayOptions};
use crate::pick::Hit;
use crate::scene::{MeshId, Scene};

/// Height (world y) of the first surface straight below (x, z), cast from
/// above the whole scene; `None` when nothing is below.
#[must_use]
pub fn ground_height(scene: &Scene, x: f32, z: f32) -> Option<f32> {
    let b = scene.bounds();
    if !(b.min.y <= b.max.y) || !x.is_finite() || !z.is_finite() {
        return None;
    }
    let top = b.max.y + 1.0 + b.max.y.abs() * 1e-3;
    ground_below(scene, Vec3::new(x, top, z), &RayOptions::default()).map(|h| h.position.y)
}

/// The first surface straight below point `p` (e.g. under a character's
/// feet, ignoring its own mesh with `opts.filter`).
#[must_use]
pub fn ground_below(scene: &Scene, p: Vec3, opts: &RayOptions<'_>) -> Option<Hit> {
    raycast_first(scene, &Ray::new(p, Vec3::NEG_Y), opts)
}

/// The first surface between `a` and `b` (exclusive of anything exactly at
/// `b`), or `None` when the segment is clear.
#[must_use]
pub fn first_blocker(scene: &Scene, a: Vec3, b: Vec3, opts: &RayOptions<'_>) -> Option<Hit> {
    let d = b - a;
    let len = d.length();
    if !(len > 0.0) || !len.is_finite() {
        return None;
    }
    let short_of_b = RayOptions {
        far: len * (1.0 - 1e-6),
        ..*opts
    };
    raycast_first(scene, &Ray::new(a, d / len), &short_of_b)
}

/// Is the segment from `a` to `b` free of surfaces (e.g. camera-in-wall
/// check between a character and its camera)?
#[must_use]
pub fn line_of_sight(scene: &Scene, a: Vec3, b: Vec3) -> bool {
    first_blocker(scene, a, b, &RayOptions::default()).is_none()
}

/// The result of [`sweep_move`].
#[derive(Clone, Debug, PartialEq)]
pub struct SweepResult {
    /// The world-space displacement actually applied.
    pub allowed: Vec3,
    /// Was the move shortened by a contact?
    pub blocked: bool,
    /// The contact: a hit on another mesh (mover rays), or on the mover
    /// itself when another mesh's vertex would have entered it.
    pub hit: Option<Hit>,
    /// True when the contact came from another mesh's vertex (reverse ray).
    pub by_other_vertex: bool,
}

/// Moves mesh `mover` by the world-space `displacement`, stopping `skin`
/// world units before it would touch another mesh, and applies the allowed
/// move to the mover's node.
///
/// Rays are cast along the motion from the mover's centre and from each of
/// its world-space vertices (length |d| + skin, other meshes only), and in
/// the opposite direction from every vertex of the other meshes that lies
/// in the swept box, against the mover only (this catches a corner entering
/// a flat face, which the vertex rays of the mover alone miss). The nearest
/// contact wins. Returns `None` when `mover` does not exist or the
/// displacement is not finite.
pub fn sweep_move(
    scene: &mut Scene,
    mover: MeshId,
    displacement: Vec3,
    skin: f32,
) -> Option<SweepResult> {
    let r = plan_sweep(scene, mover, displacement, skin)?;
    let node = scene.mesh_node(mover)?;
    let parent_world = scene
        .nodes()
        .get(node as usize)
        .and_then(|n| n.parent)
        .map_or(glam::Mat4::IDENTITY, |p| scene.world_matrix(p));
    let local = parent_world.inverse().transform_vector3(r.allowed);
    if local.is_finite() {
        scene.translate(node, local);
    }
    Some(r)
}

/// Like [`sweep_move`] but only computes the allowed move.
#[must_use]
pub fn plan_sweep(
    scene: &Scene,
    mover: MeshId,
    displacement: Vec3,
    skin: f32,
) -> Option<SweepResult> {
    let mesh = scene.mesh(mover)?;
    let len = displacement.length();
    if !len.is_finite() || !skin.is_finite() {
        return None;
    }
    let unblocked = SweepResult {
        allowed: displacement,
        blocked: false,
        hit: None,
        by_other_vertex: false,
    };
    if len == 0.0 {
        return Some(unblocked);
    }
    let skin = skin.max(0.0);
    let dir = displacement / len;
    let world = scene.mesh_world(mover);
    let verts: Vec<Vec3> = mesh
        .positions()
        .iter()
        .map(|p| world.transform_point3(*p))
        .filter(|p| p.is_finite())
        .collect();
    let mut bounds = Aabb::empty();
    for v in &verts {
        bounds.grow(*v);
    }
    let centre = (bounds.min + bounds.max) * 0.5;
    let reach = len + skin;
    // the nearest contact so far: (hit, from another mesh's vertex); for
    // both kinds of ray the hit's distance is how far the mover travels to it
    let mut best: Option<(Hit, bool)> = None;
    let caster = RayCaster::new(scene);
    let others = |m: MeshId| m != mover;
    let fwd = RayOptions {
        far: reach,
        filter: Some(&others),
        ..RayOptions::default()
    };
    for o in std::iter::once(centre).chain(verts.iter().copied()) {
        if let Some(h) = caster.first(&Ray::new(o, dir), &fwd) {
            if best.as_ref().is_none_or(|b| h.distance < b.0.distance) {
                best = Some((h, false));
            }
        }
    }
    // reverse rays from the other meshes' vertices inside the swept box
    let mut swept = bounds;
    swept.grow(bounds.min + displacement);
    swept.grow(bounds.max + displacement);
    let (lo, hi) = (swept.min - Vec3::splat(skin), swept.max + Vec3::splat(skin));
    let only_mover = |m: MeshId| m == mover;
    let back = RayOptions {
        far: reach,
        filter: Some(&only_mover),
        ..RayOptions::default()
    };
    for (mi, m) in scene.meshes().iter().enumerate() {
        if mi as MeshId == mover {
            continue;
        }
        let w = scene.mesh_world(mi as MeshId);
        for p in m.positions() {
            let q = w.transform_point3(*p);
            if !(q.cmpge(lo).all() && q.cmple(hi).all()) {
                continue;
            }
            if let Some(h) = caster.first(&Ray::new(q, -dir), &back) {
                if best.as_ref().is_none_or(|b| h.distance < b.0.distance) {
                    best = Some((h, true));
                }
            }
        }
    }
    Some(match best {
        None => unblocked,
        Some((hit, by_other_vertex)) => {
            let allowed_len = (hit.distance - skin).clamp(0.0, len);
            SweepResult {
                allowed: dir * allowed_len,
                blocked: allowed_len < len,
                hit: Some(hit),
                by_other_vertex,
            }
        }
    })
}
