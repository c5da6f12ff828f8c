//! Watertight ray–triangle intersection.
//!
//! Implements Woop, Benthin & Wald, "Watertight Ray/Triangle Intersection"
//! (JCGT 2(1), 2013). The ray is transformed once ([`RayPrecomp::new`]) into a
//! sheared, axis-permuted space in which it starts at the origin and points
//! along +z; each triangle is then tested with three 2D edge functions
//! `U`, `V`, `W`. Their signs are exact (single-precision rounding is
//! monotonic, and a zero result is recomputed exactly in double precision), and
//! a shared edge is evaluated from the same transformed vertices for both of
//! its triangles, so a ray through a shared edge or vertex of a closed mesh hits
//! at least one of the triangles around it (it may hit several).
//!
//! Far corners: when a triangle's corners lie much farther along the ray
//! than the hit (a ground seen from just above it), single precision loses
//! the origin against them and with it `t`; such a hit's `t`,
//! barycentrics and facing are recomputed in double precision from the ray
//! and the corners (the crossing itself stays the single-precision
//! decision, so shared edges stay watertight), also where the corners lie
//! so far that their weighted distances overflow single precision (a
//! ground about 10^15 units wide seen from a few units above it). A
//! triangle whose edge functions themselves overflow (about 10^19 units
//! across) has its crossing decided in double precision from the sheared
//! corners, and its far corners then refined the same way, before `t` is
//! held against the range.
//!
//! Conventions:
//! * `t` is measured in units of the direction passed to [`RayPrecomp::new`]
//!   (which is not normalized): the hit point is `origin + t * dir`.
//! * A hit is accepted when `t_min <= t <= t_max` (both ends inclusive), where
//!   `t` is the returned value. Rejections made before the division use a small
//!   safety margin, so an intersection whose returned `t` would lie in the range
//!   is never dropped; in particular, re-testing with `t_max` set to a previous
//!   hit's `t` still reports a hit at exactly that `t` (a BVH can shrink `t_max`
//!   and break ties exactly).
//! * Barycentrics: `bary.x * v0 + bary.y * v1 + bary.z * v2` is the hit point,
//!   i.e. `bary = (w, u, v)` with `w = 1 - u - v` in the usual `(u, v)` naming.
//! * Facing: `(v0, v1, v2)` is front-facing when the ray sees it
//!   counter-clockwise, i.e. `dot(dir, (v1 - v0).cross(v2 - v0)) < 0`.

use glam::{DVec2, DVec3, Mat3A, Vec3, Vec3A, Vec3Swizzles, Vec4};

use crate::cpu::Lanes8;
use crate::geometry::{box_entry, plane_f64, prune_bound, CullMode};

/// The first-hit order of every query: does a hit at distance `t` of
/// triangle (or mesh) `id` come before `best` (its id and distance), being
/// nearer, or as near with a lower id?
#[inline(always)]
pub(crate) fn precedes(id: u32, t: f32, best: Option<(u32, f32)>) -> bool {
    best.is_none_or(|(bid, bt)| t < bt || (t == bt && id < bid))
}

/// A ray–triangle intersection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriHit {
    /// Ray parameter of the hit: the hit point is `origin + t * dir`, with `dir`
    /// as given to [`RayPrecomp::new`] (not normalized).
    pub t: f32,
    /// Barycentric weights of `(v0, v1, v2)`: the hit point is
    /// `bary.x * v0 + bary.y * v1 + bary.z * v2`. In the common `(u, v)` naming
    /// this is `(w, u, v)` with `w = 1 - u - v`. All components are `>= 0` and
    /// they sum to 1 up to rounding.
    pub bary: Vec3,
    /// `true` when the ray sees `(v0, v1, v2)` counter-clockwise, i.e.
    /// `dot(dir, (v1 - v0).cross(v2 - v0)) < 0`.
    pub front: bool,
}

/// Per-ray precomputation for `intersect` and for BVH slab tests.
///
/// Immutable once built (the fields are private so that they stay
/// consistent). Holds the axis permutation `kx, ky, kz` (`kz` = axis of the largest
/// `|dir|` component; `kx`/`ky` swapped when `dir[kz] < 0` to preserve
/// winding), the shear constants `Sx = dir[kx]/dir[kz]`, `Sy = dir[ky]/dir[kz]`,
/// `Sz = 1/dir[kz]` (folded into three row vectors, see `intersect`), and
/// the componentwise reciprocal direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayPrecomp {
    origin: Vec3,
    dir: Vec3,
    inv_dir: Vec3,
    /// `[kx, ky, kz]`.
    axes: [u8; 3],
    /// `(Sx, Sy, Sz)`.
    shear: Vec3,
    /// The shear as rows: `e_kx - Sx e_kz`, `e_ky - Sy e_kz`, `Sz e_kz`.
    rows: [Vec3A; 3],
    /// See [`RayPrecomp::is_valid`].
    valid: bool,
}

impl RayPrecomp {
    /// Precomputes the ray `origin + t * dir`.
    ///
    /// A zero or non-finite `dir`, or a non-finite `origin`, gives a ray that
    /// never hits anything (see [`RayPrecomp::is_valid`]).
    #[inline(always)]
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        let a = dir.abs();
        // (kx, ky, kz): kz is the dominant axis (the lower one on ties); kx,
        // ky cyclic after it, swapped when dir[kz] < 0 to keep the winding.
        // Chosen without branches (a random ray's permutation is a branch
        // predicted wrong five times in six): index arithmetic, and the
        // rows from lane masks, each lane the very sum the per-permutation
        // code makes ([`RayPrecomp::permuted`] in the tests).
        let x_dom = a.x >= a.y && a.x >= a.z;
        let kz = usize::from(!x_dom) * (1 + usize::from(!(a.y >= a.z)));
        let dir_a = dir.to_array();
        let d = dir_a[kz];
        let (c1, c2) = ([1, 2, 0][kz], [2, 0, 1][kz]);
        let neg = d < 0.0;
        let (kx, ky) = if neg { (c2, c1) } else { (c1, c2) };
        let valid = d != 0.0 && dir.is_finite() && origin.is_finite();
        // (Sx, Sy, Sz); an invalid ray gets NaN, which makes every edge
        // function NaN, which `intersect` rejects.
        let shear = if valid {
            Vec3::from(Vec3A::new(dir_a[kx], dir_a[ky], 1.0) / Vec3A::splat(d))
        } else {
            Vec3::NAN
        };
        let lanes = Vec3A::new(0.0, 1.0, 2.0);
        let unit = |k: usize, s: f32| {
            Vec3A::select(
                lanes.cmpeq(Vec3A::splat(k as f32)),
                Vec3A::splat(s),
                Vec3A::ZERO,
            )
        };
        let rows = [
            unit(kx, 1.0) + unit(kz, -shear.x),
            unit(ky, 1.0) + unit(kz, -shear.y),
            unit(kz, shear.z),
        ];
        RayPrecomp {
            origin,
            dir,
            inv_dir: Vec3A::from(dir).recip().into(),
            axes: [kx as u8, ky as u8, kz as u8],
            shear,
            rows,
            valid,
        }
    }

    /// [`RayPrecomp::new`] written per permutation `(KX, KY, KZ)` with
    /// constant indices (`d = dir[KZ]`): the tests' reference.
    #[cfg(test)]
    pub(crate) fn permuted<const KX: usize, const KY: usize, const KZ: usize>(
        origin: Vec3,
        dir: Vec3,
        d: f32,
    ) -> Self {
        let dir_a = dir.to_array();
        let valid = d != 0.0 && dir.is_finite() && origin.is_finite();
        let shear = if valid {
            Vec3::from(Vec3A::new(dir_a[KX], dir_a[KY], 1.0) / Vec3A::splat(d))
        } else {
            Vec3::NAN
        };
        let unit = |k: usize, s: f32| {
            let mut v = [0.0; 3];
            v[k] = s;
            Vec3A::from_array(v)
        };
        let rows = [
            unit(KX, 1.0) + unit(KZ, -shear.x),
            unit(KY, 1.0) + unit(KZ, -shear.y),
            unit(KZ, shear.z),
        ];
        RayPrecomp {
            origin,
            dir,
            inv_dir: Vec3A::from(dir).recip().into(),
            axes: [KX as u8, KY as u8, KZ as u8],
            shear,
            rows,
            valid,
        }
    }

    /// The per-permutation reference of [`RayPrecomp::new`] (the match it
    /// replaced).
    #[cfg(test)]
    pub(crate) fn by_permutation(origin: Vec3, dir: Vec3) -> Self {
        let a = dir.abs();
        let (kz, d) = if a.x >= a.y && a.x >= a.z {
            (0, dir.x)
        } else if a.y >= a.z {
            (1, dir.y)
        } else {
            (2, dir.z)
        };
        match (kz, d < 0.0) {
            (0, false) => Self::permuted::<1, 2, 0>(origin, dir, d),
            (0, true) => Self::permuted::<2, 1, 0>(origin, dir, d),
            (1, false) => Self::permuted::<2, 0, 1>(origin, dir, d),
            (1, true) => Self::permuted::<0, 2, 1>(origin, dir, d),
            (_, false) => Self::permuted::<0, 1, 2>(origin, dir, d),
            (_, true) => Self::permuted::<1, 0, 2>(origin, dir, d),
        }
    }

    /// Ray origin.
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// `1.0 / dir` per component (`±inf` for `±0` components), for slab
    /// tests such as [`crate::geometry::Aabb::ray_interval`].
    pub fn inv_dir(&self) -> Vec3 {
        self.inv_dir
    }

    /// `true` when the origin and direction are finite and the direction is
    /// non-zero; an invalid ray never hits.
    #[inline(always)]
    pub fn is_valid(&self) -> bool {
        // (computed once, by `new`: `dir[kz] != 0` is `dir != 0` for a
        // finite `dir`)
        self.valid
    }

    /// The axis permutation `[kx, ky, kz]`.
    pub fn axes(&self) -> [usize; 3] {
        self.axes.map(usize::from)
    }

    /// The shear constants `(Sx, Sy, Sz)` (NaN for an invalid ray).
    #[cfg(test)]
    pub fn shear(&self) -> Vec3 {
        self.shear
    }
}

/// Relative safety margin for the division-free range rejection (see the
/// module docs): much larger than the two roundings it has to cover.
const RANGE_SLACK: f32 = 1.0 / 1048576.0; // 2^-20

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
const FAR_CORNER_RATIO: f32 = 16.0;

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

/// Four triangles in SoA form for [`Pack4Ray::first`]: `p[v][axis]` holds
/// coordinate `axis` of vertex `v` of each lane's triangle; lanes not in
/// `used` are padding and never hit.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(16))]
pub(crate) struct TriPack {
    pub(crate) p: [[Vec4; 3]; 3],
    pub(crate) id: [u32; 4],
    pub(crate) used: u32,
}

impl TriPack {
    /// Up to four triangles (ids and corners).
    pub(crate) fn new(tris: &[(u32, [Vec3; 3])]) -> Self {
        debug_assert!(!tris.is_empty() && tris.len() <= 4);
        let mut pk = TriPack {
            p: [[Vec4::ZERO; 3]; 3],
            id: [u32::MAX; 4],
            used: 0,
        };
        for (lane, (id, v)) in tris.iter().enumerate() {
            for (k, c) in v.iter().enumerate() {
                pk.p[k][0][lane] = c.x;
                pk.p[k][1][lane] = c.y;
                pk.p[k][2][lane] = c.z;
            }
            pk.id[lane] = *id;
            pk.used |= 1 << lane;
        }
        pk
    }

    #[inline]
    pub(crate) fn corners(&self, lane: usize) -> [Vec3; 3] {
        // (written out: `array::map` here compiled to an outlined call)
        let c = |k: usize| {
            let p = &self.p[k];
            Vec3::new(p[0][lane], p[1][lane], p[2][lane])
        };
        [c(0), c(1), c(2)]
    }
}

/// Per-ray constants of the 4-wide test: the origin and the shear rows of a
/// [`RayPrecomp`], splatted.
pub(crate) struct Pack4Ray {
    o: [Vec4; 3],
    rows: [[Vec4; 3]; 3],
}

impl Pack4Ray {
    #[inline(always)]
    pub(crate) fn new(p: &RayPrecomp) -> Self {
        let o = p.origin;
        // (written out: `array::map` here compiled to an outlined call)
        let splat = |r: Vec3A| [Vec4::splat(r.x), Vec4::splat(r.y), Vec4::splat(r.z)];
        Pack4Ray {
            o: [Vec4::splat(o.x), Vec4::splat(o.y), Vec4::splat(o.z)],
            rows: [splat(p.rows[0]), splat(p.rows[1]), splat(p.rows[2])],
        }
    }

    /// The nearest hit among the pack's triangles with `t_min <= t <= t_max`
    /// (ties to the smaller id), as `(id, hit)`. Every lane computes exactly
    /// what [`intersect`] computes for its triangle (the same operations in
    /// the same order, one triangle per lane), and lanes that need the exact
    /// completion (an edge function rounded to zero, overflow, a tiny
    /// determinant) go through [`intersect`] itself, so the answer is that
    /// of [`intersect`] called on each triangle.
    #[inline(always)]
    pub(crate) fn first(
        &self,
        ray: &RayPrecomp,
        pk: &TriPack,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
    ) -> Option<(u32, TriHit)> {
        // Relative coordinates of the three vertices, per axis.
        let d: [[Vec4; 3]; 3] =
            std::array::from_fn(|v| std::array::from_fn(|a| pk.p[v][a] - self.o[a]));
        let shear = |v: usize, r: &[Vec4; 3]| d[v][0] * r[0] + d[v][1] * r[1] + d[v][2] * r[2];
        let [r0, r1, r2] = &self.rows;
        let (ax, bx, cx) = (shear(0, r0), shear(1, r0), shear(2, r0));
        let (ay, by, cy) = (shear(0, r1), shear(1, r1), shear(2, r1));
        let u = cx * by - cy * bx;
        let v = ax * cy - ay * cx;
        let w = bx * ay - by * ax;
        let zero = Vec4::ZERO;
        let neg = u.cmplt(zero) | v.cmplt(zero) | w.cmplt(zero);
        let pos = u.cmpgt(zero) | v.cmpgt(zero) | w.cmpgt(zero);
        let inside = !(neg & pos).bitmask() & pk.used;
        if inside == 0 {
            return None;
        }
        let (az, bz, cz) = (shear(0, r2), shear(1, r2), shear(2, r2));
        let det = u + v + w;
        let on_edge = u.cmpeq(zero) | v.cmpeq(zero) | w.cmpeq(zero);
        let not_finite = !det.is_finite_mask();
        let mut slow = (on_edge | not_finite).bitmask() & inside;
        let front = det.cmpgt(zero);
        let keep = match cull {
            CullMode::None => 0xf,
            CullMode::Back => front.bitmask(),
            CullMode::Front => !front.bitmask(),
        };
        let mut fast = inside & !slow & keep;
        let t_scaled = u * az + v * bz + w * cz;
        let ts = Vec4::select(front, t_scaled, -t_scaled);
        let adet = Vec4::select(front, det, -det);
        // Corners far beyond the hit: [`intersect`] refines them. (Half the
        // bound, so that every lane it would refine goes there.)
        let reach = az.abs().max(bz.abs()).max(cz.abs());
        // (As `!(a < b)`, so that a `t_scaled` overflowed by corners even
        // farther goes there too: NaN, or infinite with `reach * adet`.)
        let near = (reach * adet).cmplt(ts.abs() * Vec4::splat(FAR_CORNER_RATIO * 0.5));
        let far = !near.bitmask() & inside;
        slow |= far;
        fast &= !far;
        let lo = Vec4::splat(t_min) * adet;
        let hi = Vec4::splat(t_max) * adet;
        let slack = Vec4::splat(RANGE_SLACK);
        let out = ts.cmplt(lo - lo.abs() * slack) | ts.cmpgt(hi + hi.abs() * slack);
        fast &= !out.bitmask();
        let mut best: Option<(u32, TriHit)> = None;
        let mut take = |id: u32, h: TriHit| {
            if precedes(id, h.t, best.map(|(bid, bh)| (bid, bh.t))) {
                best = Some((id, h));
            }
        };
        if fast != 0 {
            let rcp = Vec4::ONE / det;
            slow |= (!rcp.is_finite_mask()).bitmask() & fast;
            fast &= rcp.is_finite_mask().bitmask();
            let t = t_scaled * rcp;
            fast &= (t.cmpge(Vec4::splat(t_min)) & t.cmple(Vec4::splat(t_max))).bitmask();
            let (bu, bv, bw) = (u * rcp, v * rcp, w * rcp);
            while fast != 0 {
                let k = fast.trailing_zeros() as usize;
                fast &= fast - 1;
                take(
                    pk.id[k],
                    TriHit {
                        t: t[k],
                        bary: Vec3::new(bu[k], bv[k], bw[k]),
                        front: det[k] > 0.0,
                    },
                );
            }
        }
        while slow != 0 {
            let k = slow.trailing_zeros() as usize;
            slow &= slow - 1;
            let [a, b, c] = pk.corners(k);
            if let Some(h) = intersect(ray, a, b, c, t_min, t_max, cull) {
                take(pk.id[k], h);
            }
        }
        best
    }
}

/// Per-ray constants of the eight-lane test ([`Pack8Ray::first`]): the
/// origin and the shear rows of a [`RayPrecomp`], splatted on the lanes
/// `L`.
pub(crate) struct Pack8Ray<L: Lanes8> {
    lanes: L,
    o: [L::V; 3],
    rows: [[L::V; 3]; 3],
}

impl<L: Lanes8> Pack8Ray<L> {
    #[inline(always)]
    pub(crate) fn new(lanes: L, p: &RayPrecomp) -> Self {
        let o = p.origin;
        let splat = |r: Vec3A| [lanes.splat(r.x), lanes.splat(r.y), lanes.splat(r.z)];
        Pack8Ray {
            lanes,
            o: [lanes.splat(o.x), lanes.splat(o.y), lanes.splat(o.z)],
            rows: [splat(p.rows[0]), splat(p.rows[1]), splat(p.rows[2])],
        }
    }

    /// [`Pack4Ray::first`] for the triangles of two packs at once, `lo`
    /// in lanes 0..4 and `hi` in lanes 4..8, of which the lanes of `used`
    /// (bit k: lane k) are tested (a leaf of one pack passes it twice,
    /// its upper lanes unused): every lane computes the very operations
    /// [`Pack4Ray::first`] makes for its triangle, in the same order, and
    /// the lanes that need the exact completion go through [`intersect`]
    /// as there, so the answer is that of [`intersect`] called on each
    /// triangle.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn first(
        &self,
        ray: &RayPrecomp,
        lo: &TriPack,
        hi: &TriPack,
        used: u32,
        t_min: f32,
        t_max: f32,
        cull: CullMode,
    ) -> Option<(u32, TriHit)> {
        let l = self.lanes;
        // Relative coordinates of the three vertices, per axis.
        let d: [[L::V; 3]; 3] = std::array::from_fn(|v| {
            std::array::from_fn(|a| l.sub(l.load2(&lo.p[v][a], &hi.p[v][a]), self.o[a]))
        });
        let shear = |v: usize, r: &[L::V; 3]| {
            l.add(
                l.add(l.mul(d[v][0], r[0]), l.mul(d[v][1], r[1])),
                l.mul(d[v][2], r[2]),
            )
        };
        let [r0, r1, r2] = &self.rows;
        let (ax, bx, cx) = (shear(0, r0), shear(1, r0), shear(2, r0));
        let (ay, by, cy) = (shear(0, r1), shear(1, r1), shear(2, r1));
        let u = l.sub(l.mul(cx, by), l.mul(cy, bx));
        let v = l.sub(l.mul(ax, cy), l.mul(ay, cx));
        let w = l.sub(l.mul(bx, ay), l.mul(by, ax));
        let zero = l.splat(0.0);
        let neg = l.or(l.or(l.lt(u, zero), l.lt(v, zero)), l.lt(w, zero));
        let pos = l.or(l.or(l.gt(u, zero), l.gt(v, zero)), l.gt(w, zero));
        let inside = !l.bits(l.and(neg, pos)) & used;
        if inside == 0 {
            return None;
        }
        let (az, bz, cz) = (shear(0, r2), shear(1, r2), shear(2, r2));
        let det = l.add(l.add(u, v), w);
        let on_edge = l.or(l.or(l.eq(u, zero), l.eq(v, zero)), l.eq(w, zero));
        let not_finite = !l.bits(l.finite(det));
        let mut slow = (l.bits(on_edge) | not_finite) & inside;
        let front = l.gt(det, zero);
        let keep = match cull {
            CullMode::None => 0xff,
            CullMode::Back => l.bits(front),
            CullMode::Front => !l.bits(front),
        };
        let mut fast = inside & !slow & keep;
        let t_scaled = l.add(l.add(l.mul(u, az), l.mul(v, bz)), l.mul(w, cz));
        let ts = l.select(front, t_scaled, l.neg(t_scaled));
        let adet = l.select(front, det, l.neg(det));
        // Corners far beyond the hit: [`intersect`] refines them (see
        // `Pack4Ray::first`).
        let reach = l.max(l.max(l.abs(az), l.abs(bz)), l.abs(cz));
        let near = l.lt(
            l.mul(reach, adet),
            l.mul(l.abs(ts), l.splat(FAR_CORNER_RATIO * 0.5)),
        );
        let far = !l.bits(near) & inside;
        slow |= far;
        fast &= !far;
        let lo_t = l.mul(l.splat(t_min), adet);
        let hi_t = l.mul(l.splat(t_max), adet);
        let slack = l.splat(RANGE_SLACK);
        let out = l.or(
            l.lt(ts, l.sub(lo_t, l.mul(l.abs(lo_t), slack))),
            l.gt(ts, l.add(hi_t, l.mul(l.abs(hi_t), slack))),
        );
        fast &= !l.bits(out);
        let id = |k: usize| if k < 4 { lo.id[k] } else { hi.id[k - 4] };
        let mut best: Option<(u32, TriHit)> = None;
        let mut take = |id: u32, h: TriHit| {
            if precedes(id, h.t, best.map(|(bid, bh)| (bid, bh.t))) {
                best = Some((id, h));
            }
        };
        if fast != 0 {
            let rcp = l.div(l.splat(1.0), det);
            let rcp_ok = l.bits(l.finite(rcp));
            slow |= !rcp_ok & fast;
            fast &= rcp_ok;
            let t = l.mul(t_scaled, rcp);
            fast &= l.bits(l.and(l.ge(t, l.splat(t_min)), l.le_m(t, l.splat(t_max))));
            if fast != 0 {
                let (t, det) = (l.store(t), l.store(det));
                let (bu, bv, bw) = (
                    l.store(l.mul(u, rcp)),
                    l.store(l.mul(v, rcp)),
                    l.store(l.mul(w, rcp)),
                );
                while fast != 0 {
                    let k = fast.trailing_zeros() as usize;
                    fast &= fast - 1;
                    take(
                        id(k),
                        TriHit {
                            t: t[k],
                            bary: Vec3::new(bu[k], bv[k], bw[k]),
                            front: det[k] > 0.0,
                        },
                    );
                }
            }
        }
        while slow != 0 {
            let k = slow.trailing_zeros() as usize;
            slow &= slow - 1;
            let [a, b, c] = if k < 4 {
                lo.corners(k)
            } else {
                hi.corners(k - 4)
            };
            if let Some(h) = intersect(ray, a, b, c, t_min, t_max, cull) {
                take(id(k), h);
            }
        }
        best
    }
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

#[cfg(test)]
mod tests;
