//! The one-ray watertight test ([`intersect`]) and its exact completions
//! in double precision: on an edge or a vertex, with far corners, and
//! where single precision overflows (see the module docs of
//! [`super`]).

use glam::{DVec2, DVec3, Mat3A, Vec3, Vec3A, Vec3Swizzles};

use super::{RayPrecomp, TriHit};
use crate::geometry::{box_entry, plane_f64, prune_bound, CullMode};

/// Relative safety margin for the division-free range rejection (see the
/// module docs): much larger than the two roundings it has to cover.
pub(super) const RANGE_SLACK: f32 = 1.0 / 1048576.0; // 2^-20

/// Intersects the ray with triangle `(v0, v1, v2)`.
///
/// Returns the hit when the ray crosses the closed triangle at
/// `t_min <= t <= t_max` and the face is not culled by `cull` (`Back` drops
/// hits with `front == false`, `Front` drops hits with `front == true`).
/// Degenerate (zero-area as seen by the ray) triangles, rays parallel to the
/// triangle's plane, invalid rays and non-finite inputs give `None`; the result
/// never contains NaN.
///
/// Watertight: along a shared edge or vertex of a mesh the ray hits at least
/// one of the adjacent triangles (see the module docs).
///
/// Implementation note: the vertices are processed as three SIMD lanes.
/// Sheared coordinates are computed as `x' = p·(e_kx - Sx e_kz)`, which
/// rounds exactly like the paper's `p[kx] - Sx * p[kz]` (the other terms are
/// exact products by 1 and 0), and identically for a vertex in every
/// triangle, which is what watertightness rests on.
#[inline]
pub fn intersect(
    p: &RayPrecomp,
    v0: Vec3,
    v1: Vec3,
    v2: Vec3,
    t_min: f32,
    t_max: f32,
    cull: CullMode,
) -> Option<TriHit> {
    let o = Vec3A::from(p.origin);
    // Rows: per-axis coordinates of the three vertices relative to the origin.
    let m = Mat3A::from_cols(
        Vec3A::from(v0) - o,
        Vec3A::from(v1) - o,
        Vec3A::from(v2) - o,
    )
    .transpose();
    let shear = |r: Vec3A| m.x_axis * r.x + m.y_axis * r.y + m.z_axis * r.z;
    // (Ax, Bx, Cx), (Ay, By, Cy), (Az, Bz, Cz) in the sheared space.
    let x = shear(p.rows[0]);
    let y = shear(p.rows[1]);

    // Scaled barycentric coordinates (2D edge functions):
    // U = Cx*By - Cy*Bx, V = Ax*Cy - Ay*Cx, W = Bx*Ay - By*Ax. Each sign is
    // exact or the value is zero: `fl(a*b) - fl(c*d)` cannot have the wrong
    // sign.
    let uvw = x.zxy() * y.yzx() - y.zxy() * x.yzx();

    // Mixed signs: outside (non-zero signs are exact, so this is final even if
    // some value is zero).
    if uvw.cmplt(Vec3A::ZERO).any() && uvw.cmpgt(Vec3A::ZERO).any() {
        return None;
    }
    let z = shear(p.rows[2]);
    let det = uvw.element_sum();
    let t_scaled = uvw.dot(z);
    let reach = z.abs().max_element();
    if far_corners(reach, det, t_scaled) {
        return refine_f64(p, [v0, v1, v2], t_min, t_max, cull);
    }
    let (xy, zs) = ([x.x, y.x, x.y, y.y, x.z, y.z], [z.x, z.y, z.z]);
    let on_edge = uvw.cmpeq(Vec3A::ZERO).any();
    if !(det.is_finite() && t_scaled.is_finite()) {
        let decided = det.is_finite() && !on_edge;
        let sheared = (xy, zs, reach);
        return overflowed(p, [v0, v1, v2], sheared, decided, (t_min, t_max), cull);
    }
    if on_edge {
        // On an edge/vertex: redo everything with exact signs in double
        // precision.
        return intersect_f64(xy, zs, t_min, t_max, cull);
    }
    // Here U, V, W are non-zero with one sign, so det != 0 and has their sign.
    let front = det > 0.0;
    if culled(front, cull) {
        return None;
    }
    // Division-free range rejection, with |det| folded in (sign flip = xorf).
    let (ts, adet) = if front {
        (t_scaled, det)
    } else {
        (-t_scaled, -det)
    };
    let lo = t_min * adet;
    let hi = t_max * adet;
    if ts < lo - lo.abs() * RANGE_SLACK || ts > hi + hi.abs() * RANGE_SLACK {
        return None;
    }
    let rcp = 1.0 / det;
    if !rcp.is_finite() {
        return intersect_f64(xy, zs, t_min, t_max, cull); // |det| underflows: tiny triangle, use f64
    }
    let t = t_scaled * rcp;
    if !(t >= t_min && t <= t_max) {
        return None;
    }
    Some(TriHit {
        t,
        bary: Vec3::from(uvw * rcp),
        front,
    })
}

/// [`intersect`] where its single-precision values overflow (or are NaN),
/// given its sheared corners and their `reach` along the ray:
/// the edge functions themselves (`det`), or only the corners' weighted
/// distances (`t_scaled`: corners too far for [`far_corners`] to weigh, a
/// ground 10^15 wide seen from a few units above it). Where the crossing
/// is `decided` (`det` finite, no edge function zero) it stands and
/// [`refine_f64`] completes the hit. Otherwise the
/// crossing is redone with exact signs in double precision
/// ([`intersect_f64`]) and, with far corners, refined too: left
/// unrefined, a `t` from the rounded sheared corners can lie far from the
/// triangle's own box, and a BVH walk pruning boxes by it answers by walk
/// order. The range is judged on the final `t` only (else a walk's
/// shrinking range end meets the unrefined one).
#[cold]
#[inline(never)]
fn overflowed(
    p: &RayPrecomp,
    v: [Vec3; 3],
    (xy, z, reach): ([f32; 6], [f32; 3], f32),
    decided: bool,
    (t_min, t_max): (f32, f32),
    cull: CullMode,
) -> Option<TriHit> {
    if decided {
        return refine_f64(p, v, t_min, t_max, cull);
    }
    let h = intersect_f64(xy, z, f32::NEG_INFINITY, f32::INFINITY, cull)?;
    if reach > FAR_CORNER_RATIO * h.t.abs() {
        refine_f64(p, v, t_min, t_max, cull)
    } else {
        let t = not_before_box(p, v, h.t)?;
        (t >= t_min && t <= t_max).then_some(TriHit { t, ..h })
    }
}

/// The `t` of a hit on the triangle of corners `v` computed in double
/// precision ([`refine_f64`], [`overflowed`]), or where it lies before the
/// ray's entry into the triangle's box by more than the walks' pruning
/// slack, that entry ([`box_entry`]); `None` when the ray cannot reach
/// the box at all (a zero direction component with the origin outside the
/// box's slab).
///
/// Corners many orders of magnitude apart (10^31 and 10^-19 in one
/// triangle) lose the near ones to rounding even in double precision, and
/// the plane through them can then put `t` anywhere, also before the
/// boxes that hold the triangle. A BVH walk that had found another hit
/// meanwhile would prune those boxes, so the answer would depend on the
/// order of the walk (rows of ray picks against single picks). Never
/// before its box, such a hit is pruned by no walk that could still take
/// it. The hits of ordinary triangles lie within the box and keep their
/// `t` (to well within the slack).
#[inline]
fn not_before_box(p: &RayPrecomp, v: [Vec3; 3], t: f32) -> Option<f32> {
    let (lo, hi) = (v[0].min(v[1]).min(v[2]), v[0].max(v[1]).max(v[2]));
    let entry = box_entry(lo, hi, p.origin, p.inv_dir);
    if entry == f32::INFINITY {
        return None;
    }
    Some(if prune_bound(t) < entry { entry } else { t })
}

/// How much farther than the hit a triangle's corners may lie (as seen
/// along the ray) before the hit's `t` and barycentrics are recomputed in
/// double precision ([`refine_f64`]). In single precision each corner's
/// position relative to the origin is rounded to about `2^-24` of its
/// distance, and `t` is a weighted sum of the corners' distances, so its
/// error grows with their ratio to `t`: this bound keeps `t` within a few
/// times `2^-20` of itself (a ground triangle 100 units wide seen from 2
/// units above it is refined; a mesh seen from outside its bounds never
/// is).
pub(super) const FAR_CORNER_RATIO: f32 = 16.0;

/// Do the corners of a triangle the ray crosses lie so much farther than
/// the hit along the ray (`reach`: the largest of the corners' sheared
/// `z`, their distances along the ray in units of `t`; `det` and
/// `t_scaled` as in [`intersect`], whose ratio is `t`) that `t` needs
/// [`refine_f64`]? (False for NaN inputs.)
///
/// Only distances along the ray count: `t` is the corners' `z` weighted by
/// the barycentrics, so its error is theirs and the weights' times the
/// spread of the `z`. Far corners across the ray (a ground seen from
/// straight above) move the weights by about `2^-24` only.
#[inline(always)]
fn far_corners(reach: f32, det: f32, t_scaled: f32) -> bool {
    reach * det.abs() > FAR_CORNER_RATIO * t_scaled.abs()
}

/// `t`, the barycentrics and the facing of a hit whose triangle's corners
/// lie far beyond it ([`far_corners`]), all recomputed in double precision
/// from the ray and the corners: the corners relative to the origin, the
/// shear and the edge functions, and `t` from the plane through the
/// corners (not from the corners' distances along the ray, which a ground
/// 10^17 units wide rounds by more than its height above it). Whether the ray
/// crosses the triangle stays the single-precision test's decision (so a
/// shared edge stays watertight); a weight that comes out a hair below zero
/// next to an edge is clamped.
#[cold]
#[inline(never)]
fn refine_f64(
    p: &RayPrecomp,
    v: [Vec3; 3],
    t_min: f32,
    t_max: f32,
    cull: CullMode,
) -> Option<TriHit> {
    let [kx, ky, kz] = p.axes();
    let (o, d) = (p.origin.as_dvec3(), p.dir.as_dvec3());
    let sz = 1.0 / d[kz];
    let (sx, sy) = (d[kx] * sz, d[ky] * sz);
    let corners = v.map(|q| q.as_dvec3());
    let sheared = |q: DVec3| {
        let r = q - o;
        DVec2::new(r[kx] - sx * r[kz], r[ky] - sy * r[kz])
    };
    let [a, b, c] = corners.map(sheared);
    let uvw = DVec3::new(
        c.x * b.y - c.y * b.x,
        a.x * c.y - a.y * c.x,
        b.x * a.y - b.y * a.x,
    );
    let det = uvw.element_sum();
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let front = det > 0.0;
    if culled(front, cull) {
        return None;
    }
    // `t` from the plane through the corners (see `plane_f64`): a
    // corner's offset from the origin is rounded only where the normal
    // weighs it, so a ground at y = 0 however wide keeps its height exact
    let (on_plane, n) = plane_f64(corners);
    let t = not_before_box(p, v, (n.dot(on_plane - o) / n.dot(d)) as f32)?;
    if !(t >= t_min && t <= t_max) {
        return None;
    }
    let w = (uvw / det).max(DVec3::ZERO);
    let bary = (w / w.element_sum()).as_vec3();
    if !bary.is_finite() {
        return None;
    }
    Some(TriHit { t, bary, front })
}

#[inline]
fn culled(front: bool, cull: CullMode) -> bool {
    match cull {
        CullMode::None => false,
        CullMode::Back => !front,
        CullMode::Front => front,
    }
}

/// Double-precision completion of [`intersect`] for rays through an edge or a
/// vertex (some edge function rounded to zero) or with overflowing values.
/// Products of two `f32` are exact in `f64`, so the signs of `u`, `v`, `w`
/// are exact here.
#[cold]
#[inline(never)]
fn intersect_f64(
    xy: [f32; 6],
    z: [f32; 3],
    t_min: f32,
    t_max: f32,
    cull: CullMode,
) -> Option<TriHit> {
    let [ax, ay, bx, by, cx, cy] = xy.map(f64::from);
    let [az, bz, cz] = z.map(f64::from);
    let u = cx * by - cy * bx;
    let v = ax * cy - ay * cx;
    let w = bx * ay - by * ax;
    // Written positively so that NaN is rejected too.
    let all_pos = u >= 0.0 && v >= 0.0 && w >= 0.0;
    let all_neg = u <= 0.0 && v <= 0.0 && w <= 0.0;
    if !(all_pos || all_neg) {
        return None;
    }
    let det = u + v + w;
    if det == 0.0 || !det.is_finite() {
        return None;
    }
    let front = det > 0.0;
    if culled(front, cull) {
        return None;
    }
    let rcp = 1.0 / det;
    let t = ((u * az + v * bz + w * cz) * rcp) as f32;
    if !(t >= t_min && t <= t_max) {
        return None;
    }
    let bary = Vec3::new((u * rcp) as f32, (v * rcp) as f32, (w * rcp) as f32);
    if !bary.is_finite() {
        return None;
    }
    Some(TriHit { t, bary, front })
}
