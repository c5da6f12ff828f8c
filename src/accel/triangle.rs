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

use crate::geometry::{plane_f64, CullMode};

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
        // (kx, ky, kz): kz is the dominant axis; kx, ky cyclic after it, swapped
        // when dir[kz] < 0 to keep the winding.
        let (kz, d) = if a.x >= a.y && a.x >= a.z {
            (0, dir.x)
        } else if a.y >= a.z {
            (1, dir.y)
        } else {
            (2, dir.z)
        };
        // One copy of the rest per permutation, so that every index is a
        // constant (no variable-index loads and stores through the stack).
        match (kz, d < 0.0) {
            (0, false) => Self::permuted::<1, 2, 0>(origin, dir, d),
            (0, true) => Self::permuted::<2, 1, 0>(origin, dir, d),
            (1, false) => Self::permuted::<2, 0, 1>(origin, dir, d),
            (1, true) => Self::permuted::<0, 2, 1>(origin, dir, d),
            (_, false) => Self::permuted::<0, 1, 2>(origin, dir, d),
            (_, true) => Self::permuted::<1, 0, 2>(origin, dir, d),
        }
    }

    /// [`RayPrecomp::new`] for the permutation `(KX, KY, KZ)`; `d = dir[KZ]`.
    #[inline(always)]
    fn permuted<const KX: usize, const KY: usize, const KZ: usize>(
        origin: Vec3,
        dir: Vec3,
        d: f32,
    ) -> Self {
        let dir_a = dir.to_array();
        let valid = d != 0.0 && dir.is_finite() && origin.is_finite();
        // (Sx, Sy, Sz); an invalid ray gets NaN, which makes every edge
        // function NaN, which `intersect` rejects.
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

    /// Ray origin.
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// Ray direction as given (not normalized; `t` is measured in units of
    /// it).
    pub fn dir(&self) -> Vec3 {
        self.dir
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

    /// The point `origin + t * dir`.
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + t * self.dir
    }

    /// The axis permutation `[kx, ky, kz]`.
    pub fn axes(&self) -> [usize; 3] {
        self.axes.map(usize::from)
    }

    /// The shear constants `(Sx, Sy, Sz)` (NaN for an invalid ray).
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
        (h.t >= t_min && h.t <= t_max).then_some(h)
    }
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
    let t = (n.dot(on_plane - o) / n.dot(d)) as f32;
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
mod tests {
    use super::*;

    use crate::test_util::{grid, Rng};

    fn hit(o: Vec3, d: Vec3, t: [Vec3; 3], cull: CullMode) -> Option<TriHit> {
        intersect(
            &RayPrecomp::new(o, d),
            t[0],
            t[1],
            t[2],
            0.0,
            f32::INFINITY,
            cull,
        )
    }

    /// Reference Möller–Trumbore in f64: (t, u, v) without range checks.
    fn reference(o: Vec3, d: Vec3, t: [Vec3; 3]) -> Option<(f64, f64, f64)> {
        let o = o.as_dvec3();
        let d = d.as_dvec3();
        let [v0, v1, v2] = t.map(|v| v.as_dvec3());
        let e1 = v1 - v0;
        let e2 = v2 - v0;
        let pv = d.cross(e2);
        let det = e1.dot(pv);
        if det.abs() < 1e-300 {
            return None;
        }
        let inv = 1.0 / det;
        let tv = o - v0;
        let u = tv.dot(pv) * inv;
        let qv = tv.cross(e1);
        let v = d.dot(qv) * inv;
        if u < 0.0 || v < 0.0 || u + v > 1.0 {
            return None;
        }
        Some((e2.dot(qv) * inv, u, v))
    }

    /// Closed 16-triangle fan around `center` (slightly raised apex).
    fn fan() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let mut pos = vec![Vec3::new(0.1, -0.05, 0.15)];
        let n = 16;
        for i in 0..n {
            let a = i as f32 / n as f32 * std::f32::consts::TAU;
            let r = 1.0 + 0.1 * ((i * 7 % 5) as f32);
            pos.push(Vec3::new(r * a.cos(), r * a.sin(), 0.05 * (i % 3) as f32));
        }
        let tris = (0..n as u32)
            .map(|i| [0, 1 + i, 1 + (i + 1) % n as u32])
            .collect();
        (pos, tris)
    }

    fn count_hits(pos: &[Vec3], tris: &[[u32; 3]], o: Vec3, d: Vec3) -> usize {
        let r = RayPrecomp::new(o, d);
        tris.iter()
            .filter_map(|t| {
                intersect(
                    &r,
                    pos[t[0] as usize],
                    pos[t[1] as usize],
                    pos[t[2] as usize],
                    f32::NEG_INFINITY,
                    f32::INFINITY,
                    CullMode::None,
                )
            })
            .inspect(|h| assert!(h.t.is_finite() && h.bary.is_finite()))
            .count()
    }

    /// Random origin seen from above or below, at least ~20 degrees of elevation.
    fn origin_around(rng: &mut Rng, center: Vec3, scale: f32) -> Vec3 {
        loop {
            let u = rng.unit();
            if u.z.abs() > 0.35 {
                return center + u * rng.range(2.0, 20.0) * scale;
            }
        }
    }

    #[test]
    fn fan_is_watertight_at_shared_edges_and_vertex() {
        let (pos, tris) = fan();
        let mut rng = Rng(1);
        for i in 0..6000 {
            let o = origin_around(&mut rng, pos[0], 1.0);
            let target = if i % 3 == 0 {
                pos[0]
            } else {
                let k = 1 + rng.below(16);
                pos[0].lerp(pos[k], rng.range(0.0, 0.95))
            };
            let n = count_hits(&pos, &tris, o, target - o);
            assert!(n >= 1, "ray {i}: origin {o:?} target {target:?}: no hit");
        }
    }

    #[test]
    fn grid_is_watertight_at_shared_edges_and_vertices() {
        let mut rng = Rng(2);
        let n = 12;
        let (pos, tris) = grid(n, 0.2, &mut rng);
        // Interior edges: each appears in two triangles.
        let mut edges = std::collections::HashMap::new();
        for t in &tris {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
            }
        }
        let shared: Vec<(u32, u32)> = edges
            .into_iter()
            .filter(|&(_, c)| c == 2)
            .map(|(e, _)| e)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let interior: Vec<usize> = (0..pos.len())
            .filter(|&i| {
                let (x, y) = (i % (n + 1), i / (n + 1));
                x > 0 && y > 0 && x < n && y < n
            })
            .collect();
        let center = Vec3::new(n as f32 / 2.0, n as f32 / 2.0, 0.0);
        for i in 0..6000 {
            let o = origin_around(&mut rng, center, n as f32 / 4.0);
            let target = if i % 2 == 0 {
                pos[interior[rng.below(interior.len())]]
            } else {
                let (a, b) = shared[rng.below(shared.len())];
                pos[a as usize].lerp(pos[b as usize], rng.f32())
            };
            let hits = count_hits(&pos, &tris, o, target - o);
            assert!(hits >= 1, "ray {i}: origin {o:?} target {target:?}: no hit");
        }
    }

    #[test]
    fn axis_aligned_edge_and_vertex_hits_use_exact_fallback() {
        // Two triangles sharing the diagonal of the unit square in z = 0.
        let q = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        let t0 = [q[0], q[1], q[2]];
        let t1 = [q[0], q[2], q[3]];
        for target in [
            Vec3::new(0.5, 0.5, 0.0),
            Vec3::new(0.25, 0.25, 0.0),
            q[0],
            q[2],
        ] {
            for o in [target + Vec3::Z, target - Vec3::new(0.0, 0.0, 3.0)] {
                let h0 = hit(o, target - o, t0, CullMode::None);
                let h1 = hit(o, target - o, t1, CullMode::None);
                assert!(h0.is_some() && h1.is_some(), "{target:?} from {o:?}");
                assert_eq!(h0.unwrap().t, 1.0);
            }
        }
        // Exact bary on the shared edge: the v2 weight is 0 for t1 on the diagonal.
        let h = hit(Vec3::new(0.5, 0.5, 1.0), -Vec3::Z, t1, CullMode::None).unwrap();
        assert_eq!(h.bary, Vec3::new(0.5, 0.5, 0.0));
        // Just outside the open edge of t0: miss.
        assert!(hit(Vec3::new(0.5, -1e-6, 1.0), -Vec3::Z, t0, CullMode::None).is_none());
    }

    #[test]
    fn culling_modes() {
        let tri = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        // Normal (v1-v0)x(v2-v0) = +z. From above looking down: dot(dir, n) < 0 → front.
        let from_above = (Vec3::new(0.2, 0.2, 1.0), Vec3::new(0.0, 0.0, -1.0));
        let from_below = (Vec3::new(0.2, 0.2, -1.0), Vec3::new(0.0, 0.0, 1.0));
        let h = hit(from_above.0, from_above.1, tri, CullMode::None).unwrap();
        assert!(h.front);
        let h = hit(from_below.0, from_below.1, tri, CullMode::None).unwrap();
        assert!(!h.front);
        assert!(hit(from_above.0, from_above.1, tri, CullMode::Back).is_some());
        assert!(hit(from_above.0, from_above.1, tri, CullMode::Front).is_none());
        assert!(hit(from_below.0, from_below.1, tri, CullMode::Back).is_none());
        assert!(hit(from_below.0, from_below.1, tri, CullMode::Front).is_some());
    }

    #[test]
    fn front_flag_matches_definition_for_random_rays() {
        let mut rng = Rng(3);
        let mut seen = [0usize; 2];
        for _ in 0..20000 {
            let tri = rng.tri(-1.0, 1.0);
            let o = rng.vec3(-3.0, 3.0);
            let target = tri[0] * 0.2 + tri[1] * 0.3 + tri[2] * 0.5;
            let d = (target - o) * rng.range(0.1, 10.0);
            let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
            let s = d.as_dvec3().dot(n.as_dvec3());
            if s.abs() < 1e-6 {
                continue;
            }
            let h = hit(o, d, tri, CullMode::None).expect("interior point must hit");
            assert_eq!(h.front, s < 0.0);
            seen[h.front as usize] += 1;
            let (b, f) = (
                hit(o, d, tri, CullMode::Back),
                hit(o, d, tri, CullMode::Front),
            );
            assert_eq!(b.is_some(), h.front);
            assert_eq!(f.is_some(), !h.front);
        }
        assert!(seen[0] > 1000 && seen[1] > 1000);
    }

    #[test]
    fn agrees_with_f64_reference_and_bary_reconstructs_point() {
        let mut rng = Rng(4);
        let mut hits = 0;
        for _ in 0..50000 {
            let tri = rng.tri(-1.0, 1.0);
            let o = rng.vec3(-4.0, 4.0);
            let d = rng.vec3(-1.0, 1.0) - o;
            let got = hit(o, d, tri, CullMode::None);
            let Some((t, u, v)) = reference(o, d, tri) else {
                continue;
            };
            let margin = u.min(v).min(1.0 - u - v);
            if margin < 1e-4 {
                continue; // too close to an edge to demand agreement
            }
            if t < -1e-4 {
                assert!(got.is_none());
                continue;
            }
            if t < 1e-4 {
                continue;
            }
            let h = got.expect("reference hit missed");
            hits += 1;
            assert!(
                (h.t as f64 - t).abs() <= 1e-4 * t.max(1.0),
                "{} vs {t}",
                h.t
            );
            assert!((h.bary.y as f64 - u).abs() < 1e-4 && (h.bary.z as f64 - v).abs() < 1e-4);
            assert!((h.bary.element_sum() - 1.0).abs() < 1e-5);
            let p = tri[0] * h.bary.x + tri[1] * h.bary.y + tri[2] * h.bary.z;
            assert!((p - (o + h.t * d)).length() < 1e-4, "{p:?}");
        }
        assert!(hits > 2000, "{hits}");
    }

    #[test]
    fn t_range_is_inclusive_and_shrinking_t_max_is_safe() {
        let mut rng = Rng(5);
        let mut n = 0;
        for _ in 0..20000 {
            let tri = rng.tri(-1.0, 1.0);
            let o = rng.vec3(-4.0, 4.0);
            let d = rng.vec3(-1.0, 1.0) - o;
            let r = RayPrecomp::new(o, d);
            let Some(h) = intersect(&r, tri[0], tri[1], tri[2], -1e30, 1e30, CullMode::None) else {
                continue;
            };
            n += 1;
            let again =
                |lo: f32, hi: f32| intersect(&r, tri[0], tri[1], tri[2], lo, hi, CullMode::None);
            assert_eq!(again(-1e30, h.t), Some(h));
            assert_eq!(again(h.t, h.t), Some(h));
            assert_eq!(again(h.t, 1e30), Some(h));
            assert_eq!(again(-1e30, h.t.next_down()), None);
            assert_eq!(again(h.t.next_up(), 1e30), None);
        }
        assert!(n > 1000);
    }

    #[test]
    fn parallel_rays_and_degenerate_triangles_do_not_hit() {
        let tri = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        // In the plane, through the triangle.
        for d in [
            Vec3::X,
            Vec3::Y,
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 0.3, 0.0),
        ] {
            assert_eq!(
                hit(Vec3::new(0.2, 0.2, 0.0) - d, d, tri, CullMode::None),
                None
            );
            // Parallel, above the plane.
            assert_eq!(hit(Vec3::new(-1.0, 0.2, 0.5), d, tri, CullMode::None), None);
        }
        // Random triangles, rays within their plane.
        let mut rng = Rng(6);
        for _ in 0..2000 {
            let tri = rng.tri(-1.0, 1.0);
            let o = tri[0] * 2.0 - tri[1];
            let d = tri[1] - tri[0];
            let r = hit(o, d, tri, CullMode::None);
            assert!(r.is_none_or(|h| h.t.is_finite() && h.bary.is_finite()));
        }
        // Degenerate triangles: collinear, repeated vertex, single point.
        let o = Vec3::new(0.5, 0.0, 1.0);
        let d = -Vec3::Z;
        let line = [Vec3::ZERO, Vec3::X, Vec3::X * 2.0];
        assert_eq!(hit(o, d, line, CullMode::None), None);
        assert_eq!(
            hit(o, d, [Vec3::ZERO, Vec3::X, Vec3::X], CullMode::None),
            None
        );
        assert_eq!(hit(Vec3::Z, d, [Vec3::ZERO; 3], CullMode::None), None);
    }

    #[test]
    fn invalid_inputs_do_not_hit() {
        let tri = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        let o = Vec3::new(0.2, 0.2, 1.0);
        assert_eq!(hit(o, Vec3::ZERO, tri, CullMode::None), None);
        assert_eq!(
            hit(o, Vec3::new(0.0, 0.0, f32::NAN), tri, CullMode::None),
            None
        );
        assert_eq!(
            hit(Vec3::splat(f32::NAN), -Vec3::Z, tri, CullMode::None),
            None
        );
        assert!(!RayPrecomp::new(o, Vec3::ZERO).is_valid());
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            for k in 0..3 {
                let mut t = tri;
                t[k].x = bad;
                let r = hit(o, -Vec3::Z, t, CullMode::None);
                assert!(r.is_none_or(|h| h.t.is_finite() && h.bary.is_finite()));
            }
        }
    }

    #[test]
    fn ray_starting_on_the_surface() {
        let tri = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
        ];
        let o = Vec3::new(0.25, 0.25, 0.0);
        for d in [Vec3::Z, -Vec3::Z, Vec3::new(0.3, -0.2, 1.0)] {
            let h = hit(o, d, tri, CullMode::None).unwrap();
            assert_eq!(h.t, 0.0);
            // An epsilon t_min skips the surface the ray starts on.
            let r = RayPrecomp::new(o, d);
            assert!(intersect(&r, tri[0], tri[1], tri[2], 1e-4, 10.0, CullMode::None).is_none());
        }
        // Generic triangles: the origin lies on the surface up to rounding.
        let mut rng = Rng(7);
        for _ in 0..2000 {
            let tri = rng.tri(-1.0, 1.0);
            let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
            let o = tri[0] * 0.3 + tri[1] * 0.3 + tri[2] * 0.4;
            let d = rng.unit();
            if d.dot(n).abs() < 0.1 * n.length() {
                continue;
            }
            let r = RayPrecomp::new(o, d);
            let h = intersect(&r, tri[0], tri[1], tri[2], -1e-3, 1e-3, CullMode::None)
                .expect("origin on the surface must hit near t = 0");
            assert!(h.t.abs() < 1e-5, "{}", h.t);
            assert!(intersect(&r, tri[0], tri[1], tri[2], 1e-3, 10.0, CullMode::None).is_none());
        }
    }

    #[test]
    fn huge_and_tiny_scales() {
        let mut rng = Rng(8);
        for scale in [1e6f32, 1e-6, 1e18, 1e-18, 1e-21] {
            let mut n = 0;
            for _ in 0..5000 {
                let tri = rng.tri(-1.0, 1.0);
                let o = rng.vec3(-4.0, 4.0);
                let b = [
                    rng.range(0.05, 1.0),
                    rng.range(0.05, 1.0),
                    rng.range(0.05, 1.0),
                ];
                let s = b[0] + b[1] + b[2];
                let target = (tri[0] * b[0] + tri[1] * b[1] + tri[2] * b[2]) / s;
                let d = target - o;
                let normal = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
                if d.normalize().dot(normal.normalize()).abs() < 0.2 {
                    continue; // grazing: t is ill-conditioned
                }
                let unit = hit(o, d, tri, CullMode::None).expect("interior target");
                let big = [tri[0] * scale, tri[1] * scale, tri[2] * scale];
                let scaled = hit(o * scale, d * scale, big, CullMode::None).expect("scaled");
                assert!(
                    (scaled.t - unit.t).abs() < 1e-4,
                    "{scale}: {} vs {}",
                    scaled.t,
                    unit.t
                );
                assert!((scaled.bary - unit.bary).abs().max_element() < 1e-4);
                assert_eq!(scaled.front, unit.front);
                assert!((unit.t - 1.0).abs() < 1e-4);
                n += 1;
            }
            assert!(n > 2000, "{n}");
        }
        // Far from the origin: ray through a small triangle at 1e6.
        let c = Vec3::splat(1e6);
        let tri = [c, c + Vec3::X, c + Vec3::Y];
        let h = hit(
            c + Vec3::new(0.25, 0.25, 10.0),
            -Vec3::Z,
            tri,
            CullMode::None,
        )
        .unwrap();
        assert_eq!(h.t, 10.0);
    }

    /// A sliver from two corners a unit apart to one 10^30 units away
    /// (found by the fuzzer, listed five times), hit at a few units: in
    /// every rotation of its corners the hit lies on its plane
    /// (x − y − z = 1 to within 10^-29) at the same `t`. With the plane
    /// taken at the far corner, f64 rounded the near corners away and
    /// `t` came out 0.
    #[test]
    fn slivers_to_a_far_corner_are_hit_on_their_plane() {
        let tri = [
            Vec3::new(1e30, 1.0, 1e30),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(2.0, 1.0, 0.0),
        ];
        let o = Vec3::new(0.006_725_961, 0.344_693_18, 3.793_276);
        let d = Vec3::new(0.361_978_1, -0.092_403_99, -0.927_595_5);
        let mut ts = Vec::new();
        for r in 0..3 {
            let t = [tri[r], tri[(r + 1) % 3], tri[(r + 2) % 3]];
            let h = hit(o, d, t, CullMode::None).expect("crosses it");
            let q = (o + d * h.t).as_dvec3();
            assert!((q.x - q.y - q.z - 1.0).abs() < 1e-5, "rotation {r}: {h:?}");
            ts.push(h.t);
        }
        assert!(ts.iter().all(|&t| (t - ts[0]).abs() < 1e-6), "{ts:?}");
    }

    /// A point on triangle `tri` (weights at least 0.05 each).
    fn inner_point(rng: &mut Rng, tri: [Vec3; 3]) -> Vec3 {
        let b = [
            rng.range(0.05, 1.0),
            rng.range(0.05, 1.0),
            rng.range(0.05, 1.0),
        ];
        (tri[0] * b[0] + tri[1] * b[1] + tri[2] * b[2]) / (b[0] + b[1] + b[2])
    }

    #[test]
    fn far_corners_are_refined_in_double_precision() {
        // Triangles 10^2 to 10^9 times wider than the ray's distance to
        // them, hit well inside: `t` within 2^-18 of itself (single
        // precision alone lost the origin against the far corners).
        let mut rng = Rng(0xfa7);
        let mut checked = 0;
        for scale in [1e2f32, 1e4, 1e6, 1e9] {
            for _ in 0..2000 {
                let unit = rng.tri(-1.0, 1.0);
                let n = (unit[1] - unit[0]).cross(unit[2] - unit[0]);
                if n.length() < 0.3 {
                    continue; // thin: its inner points lie close to an edge
                }
                // corners far around a point near the world's origin, and
                // that point moved onto the plane of the corners as rounded
                let near = rng.vec3(-2.0, 2.0);
                let inner = inner_point(&mut rng, unit);
                let tri = unit.map(|v| near + (v - inner) * scale);
                let [a, b, c] = tri.map(Vec3::as_dvec3);
                let normal = (b - a).cross(c - a).normalize();
                let p = near.as_dvec3();
                let target = (p - normal * (p - a).dot(normal)).as_vec3();
                let o = target + rng.unit() * rng.range(0.5, 5.0);
                let d = (target - o) * rng.range(0.3, 3.0);
                if d.normalize().dot(n.normalize()).abs() < 0.2 {
                    continue; // grazing: t is ill-conditioned
                }
                let ray = RayPrecomp::new(o, d);
                let h = intersect(
                    &ray,
                    tri[0],
                    tri[1],
                    tri[2],
                    0.0,
                    f32::INFINITY,
                    CullMode::None,
                )
                .unwrap_or_else(|| panic!("{scale}: missed {tri:?} from {o} along {d}"));
                let (want, ..) = reference(o, d, tri).expect("the f64 reference hits");
                assert!(
                    (f64::from(h.t) - want).abs() < want / 262_144.0,
                    "{scale}: t {} against {want}",
                    h.t
                );
                assert!(h.bary.min_element() >= 0.0);
                assert!((h.bary.element_sum() - 1.0).abs() < 1e-6);
                // the four-wide test gives the same
                let pk = TriPack::new(&[(7, tri)]);
                let got = Pack4Ray::new(&ray).first(&ray, &pk, 0.0, f32::INFINITY, CullMode::None);
                assert_eq!(got, Some((7, h)));
                checked += 1;
            }
        }
        assert!(checked > 4000, "{checked}");
        // A mesh seen from outside its bounds is never refined: a ray from
        // beyond a few times a unit triangle's size.
        for _ in 0..2000 {
            let tri = rng.tri(-1.0, 1.0);
            let o = rng.unit() * rng.range(4.0, 10.0);
            let d = inner_point(&mut rng, tri) - o;
            let r = RayPrecomp::new(o, d);
            let kz = r.axes()[2];
            let reach = tri
                .iter()
                .map(|v| ((*v - o)[kz] * r.shear().z).abs())
                .fold(0.0, f32::max);
            // t of the hit is 1 here, so `far_corners` asks whether the
            // corners lie 16 times farther than the hit along the ray
            assert!(reach < FAR_CORNER_RATIO * 0.5, "{reach}");
        }
    }

    #[test]
    fn four_wide_test_equals_intersect_per_triangle() {
        // grids (rays through shared edges and vertices), soups, ranges, culling
        let mut rng = Rng(0x4a11);
        let (gp, gt) = grid(4, 0.4, &mut rng);
        let mut checked = 0;
        for round in 0..4000 {
            let n = 1 + round % 4;
            let tris: Vec<(u32, [Vec3; 3])> = (0..n)
                .map(|k| {
                    let id = rng.below(1000) as u32;
                    if round % 2 == 0 {
                        let t = gt[rng.below(gt.len())];
                        (id, t.map(|v| gp[v as usize]))
                    } else if round % 7 == 1 {
                        // corners far beyond the hits: refined in f64
                        let c = rng.vec3(-2.0, 2.0);
                        let s = [1e3, 1e5, 1e8][round % 3];
                        let mut far = || c + rng.vec3(-s, s);
                        (id + k as u32, [far(), far(), far()])
                    } else {
                        let c = rng.vec3(-2.0, 2.0);
                        (
                            id + k as u32,
                            [c, c + rng.vec3(-1.0, 1.0), c + rng.vec3(-1.0, 1.0)],
                        )
                    }
                })
                .collect();
            let pk = TriPack::new(&tris);
            // aim at a vertex, an edge point or anywhere
            let (_, t0) = tris[rng.below(n)];
            let target = match round % 3 {
                0 => t0[rng.below(3)],
                1 => t0[0].lerp(t0[1], 0.5),
                _ => rng.vec3(-2.0, 4.0),
            };
            let o = target + rng.unit() * rng.range(1.0, 10.0);
            let ray = RayPrecomp::new(o, (target - o) * rng.range(0.3, 2.0));
            let (t_min, t_max) = if round % 5 == 0 {
                (rng.range(0.0, 0.8), rng.range(0.8, 2.0))
            } else {
                (0.0, f32::INFINITY)
            };
            let cull = [CullMode::None, CullMode::Back, CullMode::Front][round % 3];
            let mut expect: Option<(u32, TriHit)> = None;
            for (id, [a, b, c]) in &tris {
                if let Some(h) = intersect(&ray, *a, *b, *c, t_min, t_max, cull) {
                    if expect.is_none_or(|(bid, bh)| h.t < bh.t || (h.t == bh.t && *id < bid)) {
                        expect = Some((*id, h));
                    }
                }
            }
            let got = Pack4Ray::new(&ray).first(&ray, &pk, t_min, t_max, cull);
            assert_eq!(got, expect, "round {round}");
            checked += usize::from(got.is_some());
        }
        assert!(checked > 1000, "{checked}");
    }
}
