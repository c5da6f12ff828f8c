//! Collision and utility queries built on ray casts: the ground height
//! under a character, camera-in-wall checks, and moving a mesh until it
//! touches another (three.js-style rays along the motion from the mover's
//! centre and vertices, plus rays the other way from the other meshes'
//! vertices, which catch a corner poking into a flat face, and moving edges
//! against edges, which catch two edges crossing).

use glam::Vec3;

use crate::geometry::{Aabb, Ray};
use crate::pick::ray::{RayCaster, RayOptions};
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
    RayCaster::new(scene).first_brute(&Ray::new(p, Vec3::NEG_Y), opts)
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
    RayCaster::new(scene).first_brute(&Ray::new(a, d / len), &short_of_b)
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
    /// The other mesh of the contact: the mesh a mover ray hit, or the mesh
    /// whose vertex a reverse ray cast from (`hit` is then on the mover).
    pub other: Option<MeshId>,
}

/// Moves mesh `mover` by the world-space `displacement`, stopping `skin`
/// world units before it would touch another mesh, and applies the allowed
/// move to the mover's node.
///
/// Rays are cast along the motion from the mover's centre and from each of
/// its world-space vertices (length |d| + skin, other meshes only), and in
/// the opposite direction from every vertex of the other meshes that lies
/// in the swept box, against the mover only (this catches a corner entering
/// a flat face, which the vertex rays of the mover alone miss). Last, each
/// edge of the mover, moved along the motion, is solved against every edge
/// of the other meshes that reaches into the swept box (this catches an
/// edge meeting an edge, which no vertex ray sees). The nearest contact
/// wins. Returns `None` when `mover` does not exist or the
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
        other: None,
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
    // the nearest contact so far: (hit, from another mesh's vertex, the
    // other mesh); for both kinds of ray the hit's distance is how far the
    // mover travels to it
    let mut best: Option<(Hit, bool, MeshId)> = None;
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
                let other = h.mesh;
                best = Some((h, false, other));
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
                    best = Some((h, true, mi as MeshId));
                }
            }
        }
    }
    // edge against edge: a mover edge sweeping across another mesh's edge,
    // which the vertex rays of both sides miss (a box's edge meeting a
    // sphere's facet between two of its rings)
    let mover_edges = world_edges(mesh, &verts_all(mesh, &world));
    for (mi, m) in scene.meshes().iter().enumerate() {
        let mi = mi as MeshId;
        if mi == mover {
            continue;
        }
        let w = scene.mesh_world(mi);
        let p: Vec<Vec3> = m
            .positions()
            .iter()
            .map(|q| w.transform_point3(*q))
            .collect();
        for (t, tri) in m.triangles().iter().enumerate() {
            for k in 0..3 {
                let (b0, b1) = (p[tri[k] as usize], p[tri[(k + 1) % 3] as usize]);
                let (elo, ehi) = (b0.min(b1), b0.max(b1));
                if !(b0.is_finite() && b1.is_finite())
                    || (ehi.cmplt(lo).any() || elo.cmpgt(hi).any())
                {
                    continue;
                }
                // only a contact nearer by more than rounding replaces one
                // found so far, so a contact the rays found too (a vertex on
                // an edge) is reported as the rays found it
                let near = best.as_ref().map_or(reach, |b| b.0.distance - 1e-5 * reach);
                let Some((dist, u)) = edges_meet(&mover_edges, b0, b1, dir, near) else {
                    continue;
                };
                let corners = [0, 1, 2].map(|i| p[tri[i] as usize]);
                let mut bary = Vec3::ZERO;
                bary[k] = 1.0 - u;
                bary[(k + 1) % 3] = u;
                let normal = (corners[1] - corners[0])
                    .cross(corners[2] - corners[0])
                    .normalize_or_zero();
                let (origin, node_name) = scene.hit_origin(mi);
                let hit = Hit {
                    mesh: mi,
                    mesh_name: m.name_arc().clone(),
                    triangle: t as u32,
                    global_triangle: scene.global_triangle(mi, t as u32),
                    origin,
                    node_name,
                    depth: f32::NAN,
                    distance: dist,
                    position: b0 + (b1 - b0) * u,
                    barycentric: bary,
                    normal,
                    front_face: dir.dot(normal) < 0.0,
                };
                best = Some((hit, false, mi));
            }
        }
    }
    Some(match best {
        None => unblocked,
        Some((hit, by_other_vertex, other)) => {
            let allowed_len = (hit.distance - skin).clamp(0.0, len);
            SweepResult {
                allowed: dir * allowed_len,
                blocked: allowed_len < len,
                hit: Some(hit),
                by_other_vertex,
                other: Some(other),
            }
        }
    })
}

/// Every vertex of `mesh` through `world`, non-finite ones included (so
/// triangle indices stay valid).
fn verts_all(mesh: &crate::scene::Mesh, world: &glam::Mat4) -> Vec<Vec3> {
    mesh.positions()
        .iter()
        .map(|p| world.transform_point3(*p))
        .collect()
}

/// The edges of `mesh`'s triangles as world segments (`p`: its world
/// vertices), each once, finite ones only.
fn world_edges(mesh: &crate::scene::Mesh, p: &[Vec3]) -> Vec<(Vec3, Vec3)> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for t in mesh.triangles() {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            if seen.insert((a.min(b), a.max(b))) {
                let (pa, pb) = (p[a as usize], p[b as usize]);
                if pa.is_finite() && pb.is_finite() {
                    out.push((pa, pb));
                }
            }
        }
    }
    out
}

/// The least travel `s` in 0..`limit` along unit `dir` at which one of the
/// segments `edges`, moved by `s · dir`, crosses the segment `b0`–`b1`, and
/// where on that segment (0 at `b0`, 1 at `b1`). Solves
/// `a0 + x·(a1 − a0) + s·dir = b0 + u·(b1 − b0)` for x, u in 0..1 by
/// Cramer's rule; parallel edges (a zero determinant) are left to the
/// vertex rays, which meet their end points.
fn edges_meet(
    edges: &[(Vec3, Vec3)],
    b0: Vec3,
    b1: Vec3,
    dir: Vec3,
    limit: f32,
) -> Option<(f32, f32)> {
    let eb = b1 - b0;
    let mut best: Option<(f32, f32)> = None;
    for &(a0, a1) in edges {
        let ea = a1 - a0;
        // columns ea, -eb, dir; right-hand side b0 - a0
        let (c0, c1, c2, r) = (ea, -eb, dir, b0 - a0);
        let det = c0.dot(c1.cross(c2));
        let scale = c0.length() * c1.length();
        if !(det.abs() > 1e-6 * scale) {
            continue;
        }
        let x = r.dot(c1.cross(c2)) / det;
        let u = c0.dot(r.cross(c2)) / det;
        let s = c0.dot(c1.cross(r)) / det;
        let inside = (0.0..=1.0).contains(&x) && (0.0..=1.0).contains(&u);
        let sooner = s >= 0.0 && s < best.map_or(limit, |b| b.0);
        if inside && sooner {
            best = Some((s, u));
        }
    }
    best
}
