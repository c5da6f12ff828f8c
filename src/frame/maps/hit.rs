//! The per-pixel arithmetic of `Frame::pixel_maps`: a pixel's ray meets
//! its triangle's plane, and the point's barycentrics, distance and z.
//! Written twice, for one pixel ([`Frame::pixel_hit`], every target) and
//! for four pixels in f64 lanes ([`hits4`], run in the AVX2 build, where
//! LLVM makes each line one 256-bit instruction). Each lane does exactly
//! the operations of the one-pixel code in the same order (Rust neither
//! reassociates nor fuses a multiply and an add, and IEEE arithmetic
//! rounds a lane as it rounds a scalar), so both give the same bits; the
//! reference test of `Frame::pixel_maps` checks them on every camera.

use glam::DVec3;

use super::{MapRequest, PixelRays};
use crate::frame::Frame;

/// A triangle as rendered, set up for the pixels that show it: its mesh,
/// world corner 0, edges, plane normal, the edges' dot products and their
/// determinant (for barycentrics), and its unit normal when asked for.
pub(super) struct TriSetup {
    pub(super) mesh: crate::scene::MeshId,
    pub(super) p0: DVec3,
    pub(super) e0: DVec3,
    pub(super) e1: DVec3,
    pub(super) n: DVec3,
    pub(super) abc: (f64, f64, f64),
    pub(super) den: f64,
    pub(super) normal: [f32; 3],
    /// `n · (p0 − eye)`, the numerator of every perspective pixel's plane
    /// hit (their rays all start at the eye; unused for orthographic rays).
    pub(super) num_eye: f64,
}

/// What `Frame::pixel_maps` computes for one covered pixel (the parts
/// not asked for are left at zero).
pub(super) struct PixelHit {
    pub(super) bary: [f32; 3],
    pub(super) distance: f32,
    pub(super) z: f32,
}

impl Frame {
    /// The hit of pixel (x, y)'s ray `(o, d)` (`PixelRays::ray`) on the
    /// plane of the triangle `t`: the parts `want` asks for (z always).
    #[inline]
    pub(super) fn pixel_hit(
        &self,
        t: &TriSetup,
        rays: &PixelRays,
        (o, d): (DVec3, DVec3),
        (x, y): (u32, u32),
        want: MapRequest,
    ) -> Option<PixelHit> {
        let denom = t.n.dot(d);
        let s = if denom != 0.0 {
            // (a perspective ray starts at the eye: `num_eye` is this
            // numerator, computed once by the same operations)
            let num = if rays.perspective {
                t.num_eye
            } else {
                t.n.dot(t.p0 - o)
            };
            num / denom
        } else {
            // seen edge-on: the depth buffer's point
            let q = self
                .camera
                .as_ref()?
                .unproject_with(
                    &self.inv_view_proj,
                    x as f32 + 0.5,
                    y as f32 + 0.5,
                    self.depth[y as usize * self.width as usize + x as usize],
                )
                .as_dvec3();
            (q - o).dot(rays.forward)
        };
        let bary = if !want.barycentric {
            [0.0; 3]
        } else {
            let dq = o + d * s - t.p0;
            let ((a, b, c), den) = (t.abc, t.den);
            let (d0, d1) = (dq.dot(t.e0), dq.dot(t.e1));
            if den == 0.0 {
                [1.0, 0.0, 0.0]
            } else {
                let v = (c * d0 - b * d1) / den;
                let w = (a * d1 - b * d0) / den;
                [(1.0 - v - w) as f32, v as f32, w as f32]
            }
        };
        // (the ray's component along the viewing direction is 1 and an
        // orthographic ray starts on the eye's plane: s is camera-space z)
        Some(PixelHit {
            bary,
            distance: match (want.distance, rays.perspective) {
                (false, _) => 0.0,
                (true, true) => (s * d.length()) as f32,
                (true, false) => s as f32,
            },
            z: s as f32,
        })
    }
}

/// Four lanes of f64.
pub(super) type F4 = [f64; 4];

/// Lane by lane.
#[inline(always)]
pub(super) fn lanes(mut f: impl FnMut(usize) -> f64) -> F4 {
    // (written out: `array::from_fn`'s closure is not always inlined,
    // which leaves a call per lane outside the AVX2 build)
    [f(0), f(1), f(2), f(3)]
}

/// A vector of each lane's triangle.
#[inline(always)]
fn each(t: [&TriSetup; 4], f: impl Fn(&TriSetup) -> DVec3) -> [DVec3; 4] {
    [f(t[0]), f(t[1]), f(t[2]), f(t[3])]
}

/// The three components of a vector of lanes.
#[inline(always)]
fn xyz(f: impl Fn(usize) -> F4) -> [F4; 3] {
    [f(0), f(1), f(2)]
}

/// `a · b` lane by lane, as `DVec3::dot` adds: `(ax·bx + ay·by) + az·bz`.
#[inline(always)]
fn dot(a: &[F4; 3], b: &[F4; 3]) -> F4 {
    lanes(|i| a[0][i] * b[0][i] + a[1][i] * b[1][i] + a[2][i] * b[2][i])
}

/// A vector of each lane's triangle or ray, as three lanes of components.
#[inline(always)]
pub(super) fn gather(v: [DVec3; 4]) -> [F4; 3] {
    [lanes(|i| v[i].x), lanes(|i| v[i].y), lanes(|i| v[i].z)]
}

/// [`Frame::pixel_hit`] of four pixels at once, lane by lane the same
/// operations: the hits of the rays `o + t·d` (`ov[c][i]`, `dv[c][i]`:
/// component `c` of lane `i`'s origin and direction) on the planes of
/// `t[i]`. Lanes whose ray is parallel to the plane (`n · d = 0`, a
/// triangle seen edge-on, whose hit the depth buffer gives) are left out
/// of the returned mask (bit i: lane i computed); the caller computes
/// them with `pixel_hit`.
#[inline(always)]
pub(super) fn hits4(
    t: [&TriSetup; 4],
    perspective: bool,
    ov: &[F4; 3],
    dv: &[F4; 3],
    want: MapRequest,
) -> ([PixelHit; 4], u32) {
    let n = gather(each(t, |t| t.n));
    let denom = dot(&n, dv);
    let num = if perspective {
        lanes(|i| t[i].num_eye)
    } else {
        let p0 = gather(each(t, |t| t.p0));
        let rel = xyz(|c| lanes(|i| p0[c][i] - ov[c][i]));
        dot(&n, &rel)
    };
    let s = lanes(|i| num[i] / denom[i]);
    let mask = (0..4).fold(0, |m, i| m | u32::from(denom[i] != 0.0) << i);
    let bary: [[f32; 4]; 3] = if want.barycentric {
        let p0 = gather(each(t, |t| t.p0));
        // o + d·s − p0, as `DVec3`'s operators group it
        let dq = xyz(|c| lanes(|i| ov[c][i] + dv[c][i] * s[i] - p0[c][i]));
        let d0 = dot(&dq, &gather(each(t, |t| t.e0)));
        let d1 = dot(&dq, &gather(each(t, |t| t.e1)));
        let (a, b, c) = (
            lanes(|i| t[i].abc.0),
            lanes(|i| t[i].abc.1),
            lanes(|i| t[i].abc.2),
        );
        let den = lanes(|i| t[i].den);
        let v = lanes(|i| (c[i] * d0[i] - b[i] * d1[i]) / den[i]);
        let w = lanes(|i| (a[i] * d1[i] - b[i] * d0[i]) / den[i]);
        let u = lanes(|i| 1.0 - v[i] - w[i]);
        // (a degenerate triangle's weights are corner 0's)
        let pick = |x: F4, flat: f32| -> [f32; 4] {
            let one = |i: usize| if den[i] == 0.0 { flat } else { x[i] as f32 };
            [one(0), one(1), one(2), one(3)]
        };
        [pick(u, 1.0), pick(v, 0.0), pick(w, 0.0)]
    } else {
        [[0.0; 4]; 3]
    };
    let distance: [f32; 4] = match (want.distance, perspective) {
        (false, _) => [0.0; 4],
        (true, true) => {
            let dd = dot(dv, dv);
            let len = lanes(|i| dd[i].sqrt());
            let one = |i: usize| (s[i] * len[i]) as f32;
            [one(0), one(1), one(2), one(3)]
        }
        (true, false) => [s[0] as f32, s[1] as f32, s[2] as f32, s[3] as f32],
    };
    let hit = |i: usize| PixelHit {
        bary: [bary[0][i], bary[1][i], bary[2][i]],
        distance: distance[i],
        z: s[i] as f32,
    };
    let hits = [hit(0), hit(1), hit(2), hit(3)];
    (hits, mask)
}
