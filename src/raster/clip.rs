//! Homogeneous clipping: the near plane (always, so a triangle crossing the
//! camera plane is cut, never dropped nor wrapped around), the guard band
//! (only for triangles that reach beyond it) and the user clip planes
//! ([`crate::ClipPlanes`], carried to clip space; only for triangles that
//! cross one).
//!
//! **Guard band.** The fixed-point edge math needs bounded coordinates. A
//! vertex whose window position would lie more than
//! [`GUARD_BAND_PX`] pixels outside the viewport
//! (including vertices with w ≈ 0 next to the near plane) is clipped away in
//! clip space against the planes `x = ±g_x w`, `y = ±g_y w`, where
//! `g = 1 + 2·GUARD/size`. On-screen pixels are unaffected: the band is far
//! outside the viewport. Every surviving snapped coordinate is below 2^23.
//!
//! Crossings of a triangle's edge are computed in f64 from the edge's
//! corner nearer to the plane (a choice that depends only on the edge), so
//! two triangles sharing an edge compute bit-identical new vertices and
//! stay watertight after clipping, and a huge far corner cannot swallow a
//! small near one. A vertex where two clipping planes meet inside the
//! triangle is solved from the two planes and the triangle's plane, so a
//! ground 10^30 units wide is drawn where it lies (see [`Guard::clip`]).
//!
//! The far plane is not clipped: the depth test (clear value 1.0) rejects
//! fragments beyond it. Window coordinates surviving the band are clamped
//! to ±3·[`GUARD_BAND_PX`] before snapping, so snapped values stay below
//! 2^24 and edge products below 2^50.

use glam::{DMat4, DVec3, DVec4, Vec4};

use super::rules::GUARD_BAND_PX;
use crate::geometry::plane_f64;

/// Outcode bits.
pub(crate) const OUT_NEAR: u16 = 1;
pub(crate) const GUARD_MASK: u16 = 0b1_1110;
pub(crate) const OUT_LEFT: u16 = 1 << 5;
pub(crate) const OUT_RIGHT: u16 = 1 << 6;
pub(crate) const OUT_BOTTOM: u16 = 1 << 7;
pub(crate) const OUT_TOP: u16 = 1 << 8;
pub(crate) const OUT_FAR: u16 = 1 << 9;
/// Bits used for trivial frustum rejection (near included).
pub(crate) const FRUSTUM_MASK: u16 =
    OUT_NEAR | OUT_LEFT | OUT_RIGHT | OUT_BOTTOM | OUT_TOP | OUT_FAR;
/// Bits that force clipping.
pub(crate) const CLIP_MASK: u16 = OUT_NEAR | GUARD_MASK;
/// A vertex with a non-finite clip position.
pub(crate) const OUT_INVALID: u16 = 1 << 15;
/// The most vertices of a clipped polygon: the triangle's 3, and one more
/// per plane (the near and four guard planes, the user planes).
pub(crate) const MAX_POLY: usize = 8 + crate::limits::MAX_CLIP_PLANES;

/// The outcode bits of the lanes x, y, z below −w (bits 0, 1, 2 of the
/// index): left, bottom, near.
const BELOW: [u16; 8] = lane_bits([OUT_LEFT, OUT_BOTTOM, OUT_NEAR]);
/// The same above w: right, top, far.
const ABOVE: [u16; 8] = lane_bits([OUT_RIGHT, OUT_TOP, OUT_FAR]);

/// For each 3-bit lane mask, the OR of `bits` of its set lanes.
const fn lane_bits(bits: [u16; 3]) -> [u16; 8] {
    let mut t = [0; 8];
    let mut m = 0;
    while m < 8 {
        let mut k = 0;
        while k < 3 {
            if m >> k & 1 != 0 {
                t[m] |= bits[k];
            }
            k += 1;
        }
        m += 1;
    }
    t
}

/// Guard-band factors in NDC units for a viewport.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Guard {
    pub gx: f32,
    pub gy: f32,
}

impl Guard {
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            gx: 1.0 + 2.0 * GUARD_BAND_PX / width as f32,
            gy: 1.0 + 2.0 * GUARD_BAND_PX / height as f32,
        }
    }

    /// Outcode of a clip-space position: the planes it lies outside of
    /// (strictly), or `OUT_INVALID` alone for a non-finite one. The
    /// comparisons of `Guard::outcode_scalar` (the reference, tested
    /// bit for bit), made four lanes at a time: the vertex stage makes one
    /// per vertex, and plane by plane the tests are a large part of its
    /// work.
    #[inline]
    pub fn outcode(&self, p: Vec4) -> u16 {
        if !p.is_finite() {
            return OUT_INVALID;
        }
        let w = Vec4::splat(p.w);
        // the guard planes 1..4: gx·w + x, gx·w − x, gy·w + y, gy·w − y
        // (`a + (−b)` is `a − b` exactly)
        let g = Vec4::new(self.gx, self.gx, self.gy, self.gy) * w + Vec4::new(p.x, -p.x, p.y, -p.y);
        let guard = (g.cmplt(Vec4::ZERO).bitmask() as u16) << 1;
        // lanes x, y, z (the w lane is masked off by the tables)
        let below = p.cmplt(-w).bitmask() as usize & 7;
        let above = p.cmpgt(w).bitmask() as usize & 7;
        guard | BELOW[below] | ABOVE[above]
    }

    /// Signed distances (≥ 0 inside) to the five clipping planes.
    #[cfg(test)]
    fn dist(&self, p: Vec4, plane: usize) -> f32 {
        match plane {
            0 => p.z + p.w,
            1 => self.gx * p.w + p.x,
            2 => self.gx * p.w - p.x,
            3 => self.gy * p.w + p.y,
            _ => self.gy * p.w - p.y,
        }
    }

    /// [`Guard::outcode`] one plane at a time.
    #[cfg(test)]
    fn outcode_scalar(&self, p: Vec4) -> u16 {
        if !p.is_finite() {
            return OUT_INVALID;
        }
        let mut c = 0;
        if p.z < -p.w {
            c |= OUT_NEAR;
        }
        for plane in 1..5 {
            if self.dist(p, plane) < 0.0 {
                c |= 1 << plane;
            }
        }
        if p.x < -p.w {
            c |= OUT_LEFT;
        }
        if p.x > p.w {
            c |= OUT_RIGHT;
        }
        if p.y < -p.w {
            c |= OUT_BOTTOM;
        }
        if p.y > p.w {
            c |= OUT_TOP;
        }
        if p.z > p.w {
            c |= OUT_FAR;
        }
        c
    }

    /// Clips a triangle against the planes named in `planes` (outcode bits
    /// 0..5). Writes the polygon into `out` (up to 8 vertices) and returns
    /// its vertex count (0 when nothing is left).
    ///
    /// Clipping is the rare path, so it runs in f64, from `exact`: the
    /// corners' clip coordinates computed in f64 (`tri` are the vertex
    /// stage's f32 ones). A triangle that needs clipping can be huge next to
    /// the view (a ground plane a million units wide seen from two units
    /// above it), and where it crosses the view is a small difference of
    /// its huge corner coordinates: f32 corners, off by one unit in 10^7,
    /// moved that ground plane by whole units, or above the eye. A corner
    /// that survives is written as its f32 `tri` value, the one the vertex
    /// stage gave the triangles that need no clipping, so an edge shared
    /// with one of them stays the same edge.
    ///
    /// A new vertex is where a side of the polygon crosses a plane, and
    /// each side lies on a line known exactly: one of the triangle's edges,
    /// or where the triangle's plane meets a clipping plane already
    /// applied.
    /// - On an edge of the triangle, the crossing is interpolated from the
    ///   edge's two corners (not from vertices earlier planes made), from
    ///   the corner nearer to the plane (ties broken by a total order on
    ///   the corners): a choice that depends only on the edge, so two
    ///   triangles sharing an edge get bit-identical vertices, and a huge
    ///   far corner cannot swallow a small near one.
    /// - On an earlier plane, the vertex is where the two clipping planes
    ///   and `plane` (the triangle's plane in clip space, `plane · X = 0`)
    ///   meet, solved directly ([`meet`]). Interpolated between the
    ///   polygon's vertices instead, it came from two crossings on the
    ///   triangle's far edges: for a ground 10^17 units wide, f64's rounding
    ///   there is more than the eye's height, and no ground was drawn.
    ///   Without `plane` (or where the planes meet at a grazing angle) it is
    ///   interpolated so.
    ///
    /// `user`: user clip planes in clip space (`user[k] · X >= 0` is
    /// kept), applied after the others where bit k of `user_mask` is set.
    #[allow(clippy::too_many_arguments)]
    pub fn clip(
        &self,
        tri: [Vec4; 3],
        exact: [DVec4; 3],
        plane: Option<DVec4>,
        planes: u16,
        user: &[DVec4],
        user_mask: u32,
        out: &mut [Vec4; MAX_POLY],
    ) -> usize {
        const N: usize = MAX_POLY;
        let mut a = [DVec4::ZERO; N];
        a[..3].copy_from_slice(&exact);
        // per polygon vertex, the corner it is (0..3), or NEW
        const NEW: u8 = u8::MAX;
        let mut src = [NEW; N];
        src[..3].copy_from_slice(&[0, 1, 2]);
        // per polygon side (vertex k to k + 1), the line it lies on
        let mut side = [SideLine::Edge(0); N];
        side[..3].copy_from_slice(&[SideLine::Edge(0), SideLine::Edge(1), SideLine::Edge(2)]);
        let mut n = 3;
        let mut b = [DVec4::ZERO; N];
        let mut bsrc = [NEW; N];
        let mut bside = [SideLine::Edge(0); N];
        let user = &user[..user.len().min(crate::limits::MAX_CLIP_PLANES)];
        for c in 0..5 + user.len() {
            let on = if c < 5 {
                planes & (1 << c) != 0
            } else {
                user_mask & (1 << (c - 5)) != 0
            };
            if !on {
                continue;
            }
            let mut m = 0;
            for k in 0..n {
                let p = a[k];
                let q = a[(k + 1) % n];
                let dp = self.dist64(p, c, user);
                let dq = self.dist64(q, c, user);
                let pin = dp >= 0.0;
                let qin = dq >= 0.0;
                if pin && m < N {
                    b[m] = p;
                    bsrc[m] = src[k];
                    bside[m] = side[k];
                    m += 1;
                }
                if pin != qin && m < N {
                    // (the fallback: between the polygon's own vertices)
                    let between = || self.cross(p, q, c, user).unwrap_or(p);
                    b[m] = match side[k] {
                        SideLine::Edge(e) => {
                            let (s, t) = (exact[usize::from(e)], exact[(usize::from(e) + 1) % 3]);
                            self.cross(s, t, c, user).unwrap_or_else(between)
                        }
                        SideLine::Plane(c1) => plane
                            .and_then(|pl| {
                                let p1 = self.plane64(c1.into(), user);
                                meet(p1, self.plane64(c, user), pl, self)
                            })
                            .unwrap_or_else(between),
                    };
                    bsrc[m] = NEW;
                    // leaving: the next side runs along this plane
                    bside[m] = if pin {
                        SideLine::Plane(c as u8)
                    } else {
                        side[k]
                    };
                    m += 1;
                }
            }
            n = m;
            a = b;
            src = bsrc;
            side = bside;
            if n < 3 {
                return 0;
            }
        }
        for ((o, v), &c) in out.iter_mut().zip(&a[..n]).zip(&src[..n]) {
            *o = match tri.get(usize::from(c)) {
                Some(&corner) => corner,
                None => v.as_vec4(),
            };
        }
        n
    }

    /// The clipping plane `c` (0..5, as `Guard::dist`; from 5, the user
    /// plane `user[c − 5]`) in f64: its signed distance is
    /// `plane64(c, user) · X`.
    fn plane64(&self, c: usize, user: &[DVec4]) -> DVec4 {
        let (gx, gy) = (f64::from(self.gx), f64::from(self.gy));
        match c {
            0 => DVec4::new(0.0, 0.0, 1.0, 1.0),
            1 => DVec4::new(1.0, 0.0, 0.0, gx),
            2 => DVec4::new(-1.0, 0.0, 0.0, gx),
            3 => DVec4::new(0.0, 1.0, 0.0, gy),
            4 => DVec4::new(0.0, -1.0, 0.0, gy),
            _ => user[c - 5],
        }
    }

    /// `Guard::dist` in f64 (the same sums: the zero terms add nothing).
    #[inline]
    fn dist64(&self, p: DVec4, c: usize, user: &[DVec4]) -> f64 {
        self.plane64(c, user).dot(p)
    }

    /// Where the segment `p`–`q` crosses plane `c`, interpolated from the
    /// endpoint nearer to the plane (ties broken by [`order_key`]), or
    /// `None` if both lie on one side.
    fn cross(&self, p: DVec4, q: DVec4, c: usize, user: &[DVec4]) -> Option<DVec4> {
        let (dp, dq) = (self.dist64(p, c, user), self.dist64(q, c, user));
        if (dp >= 0.0) == (dq >= 0.0) {
            return None;
        }
        let p_first = match dp.abs().total_cmp(&dq.abs()) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => order_key(p) <= order_key(q),
        };
        let (s, e, ds, de) = if p_first {
            (p, q, dp, dq)
        } else {
            (q, p, dq, dp)
        };
        let t = ds / (ds - de);
        Some(s + (e - s) * t)
    }
}

/// The plane of a triangle (model-space `corners`) in clip space:
/// `P · X = 0` for the clip coordinates X of its points; `None` for a
/// degenerate triangle or matrix. `to_clip` is the inverse transpose of
/// the model-to-clip matrix. The plane comes from the corners in f64
/// ([`plane_f64`], as the ray picks take it) and is carried to clip space
/// by that matrix, so a plane that passes near the eye stays there however
/// far its corners lie (a ground at y = 0 keeps its height exactly): see
/// [`Guard::clip`].
#[inline]
pub(crate) fn clip_plane(to_clip: &DMat4, corners: [DVec3; 3]) -> Option<DVec4> {
    let (a, n) = plane_f64(corners);
    let model = n.extend(-n.dot(a));
    let p = *to_clip * model;
    (p.is_finite() && p != DVec4::ZERO).then_some(p)
}

/// A line the side of a clipped polygon lies on.
#[derive(Clone, Copy, Debug)]
enum SideLine {
    /// The triangle's edge from corner k to corner k + 1 (mod 3).
    Edge(u8),
    /// The triangle's plane meeting clipping plane c.
    Plane(u8),
}

/// The point where the planes `a`, `b` and `c` (homogeneous, through the
/// origin of clip space) meet, scaled to w = 1 (in front of the eye);
/// `None` unless it lies inside the guard band and in front of the near
/// plane (within rounding), as every vertex of the clipped polygon does:
/// three planes that meet at a grazing angle, where the solution is
/// mostly rounding, are left to interpolation.
fn meet(a: DVec4, b: DVec4, c: DVec4, g: &Guard) -> Option<DVec4> {
    // the 4D cross product: orthogonal to a, b and c
    let det3 = |i: usize, j: usize, k: usize| {
        a[i] * (b[j] * c[k] - b[k] * c[j]) - a[j] * (b[i] * c[k] - b[k] * c[i])
            + a[k] * (b[i] * c[j] - b[j] * c[i])
    };
    let x = DVec4::new(det3(1, 2, 3), -det3(0, 2, 3), det3(0, 1, 3), -det3(0, 1, 2));
    let x = x / x.w;
    let slack = 1.0 + 1e-6;
    let inside = x.x.abs() <= f64::from(g.gx) * slack
        && x.y.abs() <= f64::from(g.gy) * slack
        && x.z >= -slack;
    (inside && x.is_finite()).then_some(x)
}

/// A total order on clip-space points (their bit patterns), for tie-breaking.
fn order_key(p: DVec4) -> [u64; 4] {
    [p.x.to_bits(), p.y.to_bits(), p.z.to_bits(), p.w.to_bits()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four-lane outcode equals the plane-by-plane one on random
    /// positions, on every plane boundary (x = ±w, the guard planes
    /// exactly, ±0, negative w) and on non-finite ones.
    #[test]
    fn outcode_equals_the_plane_by_plane_one() {
        let mut rng = crate::test_util::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next_u64();
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        let mut seen = 0u16;
        for g in [
            Guard::new(360, 360),
            Guard::new(1920, 1080),
            Guard::new(1, 7),
        ] {
            for _ in 0..200_000 {
                let r = next();
                let w = match r % 4 {
                    0 => special[(r >> 8) as usize % special.len()],
                    _ => (r >> 8) as u16 as f32 / 4096.0 - 4.0,
                };
                let mut c = [0.0f32; 3];
                for (k, c) in c.iter_mut().enumerate() {
                    let q = next();
                    let gk = if k == 0 { g.gx } else { g.gy };
                    *c = match q % 6 {
                        0 => w,
                        1 => -w,
                        2 if k < 2 => gk * w,
                        3 if k < 2 => -(gk * w),
                        4 => special[(q >> 8) as usize % special.len()],
                        _ => {
                            ((q >> 8) as u32 as f32 / u32::MAX as f32 - 0.5)
                                * 4.0
                                * w.abs().max(1e-3)
                        }
                    };
                }
                let p = Vec4::new(c[0], c[1], c[2], w);
                let want = g.outcode_scalar(p);
                assert_eq!(g.outcode(p), want, "{p:?}");
                seen |= want;
            }
        }
        // every bit came up
        assert_eq!(seen, FRUSTUM_MASK | GUARD_MASK | OUT_INVALID);
    }

    #[test]
    fn near_clip_cuts_triangle() {
        let g = Guard::new(100, 100);
        // two vertices in front (w = 1), one behind the near plane
        let tri = [
            Vec4::new(-0.5, -0.5, 0.0, 1.0),
            Vec4::new(0.5, -0.5, 0.0, 1.0),
            Vec4::new(0.0, 0.5, -3.0, 1.0),
        ];
        let mut out = [Vec4::ZERO; MAX_POLY];
        let n = g.clip(
            tri,
            tri.map(Vec4::as_dvec4),
            None,
            OUT_NEAR,
            &[],
            0,
            &mut out,
        );
        assert_eq!(n, 4);
        for v in &out[..n] {
            assert!(v.z + v.w >= -1e-6);
        }
    }

    #[test]
    fn shared_edge_intersections_are_identical() {
        let g = Guard::new(100, 100);
        let a = Vec4::new(0.1, 0.2, 0.3, 1.0);
        let b = Vec4::new(0.7, -0.4, -5.0, 1.0);
        let t1 = [a, b, Vec4::new(-0.3, 0.9, 0.2, 1.0)];
        let t2 = [b, a, Vec4::new(0.9, 0.9, 0.2, 1.0)];
        let (mut o1, mut o2) = ([Vec4::ZERO; MAX_POLY], [Vec4::ZERO; MAX_POLY]);
        let n1 = g.clip(t1, t1.map(Vec4::as_dvec4), None, OUT_NEAR, &[], 0, &mut o1);
        let n2 = g.clip(t2, t2.map(Vec4::as_dvec4), None, OUT_NEAR, &[], 0, &mut o2);
        let cut1: Vec<_> = o1[..n1].iter().filter(|v| !tri_has(&t1, **v)).collect();
        let cut2: Vec<_> = o2[..n2].iter().filter(|v| !tri_has(&t2, **v)).collect();
        // the intersection on the shared edge a-b appears bit-identically in both
        assert!(cut1.iter().any(|v| cut2.contains(v)));
    }

    /// Two clipping planes and a third plane through a point where the two
    /// meet (inside the guard band) meet in that point, at w = 1; the left
    /// and right planes meet only on x = w = 0, which gives none.
    #[test]
    fn planes_meet_where_they_should() {
        let g = Guard::new(100, 80);
        let (gx, gy) = (f64::from(g.gx), f64::from(g.gy));
        for (c1, c2, want, third) in [
            (
                0,
                1,
                DVec4::new(-gx, 0.3, -1.0, 1.0),
                DVec4::new(0.0, 1.0, 0.0, -0.3),
            ),
            (
                0,
                4,
                DVec4::new(0.2, gy, -1.0, 1.0),
                DVec4::new(1.0, 0.0, 0.0, -0.2),
            ),
            (
                1,
                3,
                DVec4::new(-gx, -gy, 0.5, 1.0),
                DVec4::new(0.0, 0.0, 1.0, -0.5),
            ),
            (
                2,
                4,
                DVec4::new(gx, gy, 0.1, 1.0),
                DVec4::new(0.0, 0.0, 2.0, -0.2),
            ),
        ] {
            let x =
                meet(g.plane64(c1, &[]), g.plane64(c2, &[]), third, &g).expect("inside the band");
            assert_eq!(x.w, 1.0);
            assert!(
                (x - want).abs().max_element() < 1e-9,
                "{c1} {c2}: {x}, want {want}"
            );
        }
        let third = DVec4::new(0.0, 1.0, 0.0, -0.3);
        assert_eq!(meet(g.plane64(1, &[]), g.plane64(2, &[]), third, &g), None);
    }

    fn tri_has(t: &[Vec4; 3], v: Vec4) -> bool {
        t.contains(&v)
    }
}
