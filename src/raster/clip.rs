//! Homogeneous clipping: the near plane (always, so a triangle crossing the
//! camera plane is cut, never dropped nor wrapped around) and the guard band
//! (only for triangles that reach beyond it).
//!
//! **Guard band.** The fixed-point edge math needs bounded coordinates. A
//! vertex whose window position would lie more than
//! [`GUARD_BAND_PX`] pixels outside the viewport
//! (including vertices with w ≈ 0 next to the near plane) is clipped away in
//! clip space against the planes `x = ±g_x w`, `y = ±g_y w`, where
//! `g = 1 + 2·GUARD/size`. On-screen pixels are unaffected: the band is far
//! outside the viewport. Every surviving snapped coordinate is below 2^23.
//!
//! Intersections are computed in f64 from the endpoint nearer to the plane
//! (a choice that depends only on the edge), so two triangles sharing an
//! edge compute bit-identical new vertices and stay watertight after
//! clipping, and a huge far endpoint cannot swallow a small near one.
//!
//! The far plane is not clipped: the depth test (clear value 1.0) rejects
//! fragments beyond it. Window coordinates surviving the band are clamped
//! to ±3·[`GUARD_BAND_PX`] before snapping, so snapped values stay below
//! 2^24 and edge products below 2^50.

use glam::{DVec4, Vec4};

use super::rules::GUARD_BAND_PX;

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

    /// Signed distances (≥ 0 inside) to the five clipping planes.
    #[inline]
    fn dist(&self, p: Vec4, plane: usize) -> f32 {
        match plane {
            0 => p.z + p.w,
            1 => self.gx * p.w + p.x,
            2 => self.gx * p.w - p.x,
            3 => self.gy * p.w + p.y,
            _ => self.gy * p.w - p.y,
        }
    }

    /// Outcode of a clip-space position.
    #[inline]
    pub fn outcode(&self, p: Vec4) -> u16 {
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
    /// Each intersection is
    /// interpolated from the edge's endpoint nearer to the plane (ties broken
    /// by a total order on the endpoints), a choice that depends only on the
    /// edge, so two triangles sharing an edge get bit-identical vertices, and
    /// a huge far endpoint cannot swallow a small near one.
    pub fn clip(
        &self,
        tri: [Vec4; 3],
        exact: [DVec4; 3],
        planes: u16,
        out: &mut [Vec4; 8],
    ) -> usize {
        let mut a = [DVec4::ZERO; 8];
        a[..3].copy_from_slice(&exact);
        // per polygon vertex, the corner it is (0..3), or NEW
        const NEW: u8 = u8::MAX;
        let mut src = [NEW; 8];
        src[..3].copy_from_slice(&[0, 1, 2]);
        let mut n = 3;
        let mut b = [DVec4::ZERO; 8];
        let mut bsrc = [NEW; 8];
        let (gx, gy) = (f64::from(self.gx), f64::from(self.gy));
        let dist = |p: DVec4, plane: usize| match plane {
            0 => p.z + p.w,
            1 => gx * p.w + p.x,
            2 => gx * p.w - p.x,
            3 => gy * p.w + p.y,
            _ => gy * p.w - p.y,
        };
        for plane in 0..5 {
            if planes & (1 << plane) == 0 {
                continue;
            }
            let mut m = 0;
            for k in 0..n {
                let p = a[k];
                let q = a[(k + 1) % n];
                let dp = dist(p, plane);
                let dq = dist(q, plane);
                let pin = dp >= 0.0;
                let qin = dq >= 0.0;
                if pin && m < 8 {
                    b[m] = p;
                    bsrc[m] = src[k];
                    m += 1;
                }
                if pin != qin && m < 8 {
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
                    b[m] = s + (e - s) * t;
                    bsrc[m] = NEW;
                    m += 1;
                }
            }
            n = m;
            a = b;
            src = bsrc;
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
}

/// A total order on clip-space points (their bit patterns), for tie-breaking.
fn order_key(p: DVec4) -> [u64; 4] {
    [p.x.to_bits(), p.y.to_bits(), p.z.to_bits(), p.w.to_bits()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_clip_cuts_triangle() {
        let g = Guard::new(100, 100);
        // two vertices in front (w = 1), one behind the near plane
        let tri = [
            Vec4::new(-0.5, -0.5, 0.0, 1.0),
            Vec4::new(0.5, -0.5, 0.0, 1.0),
            Vec4::new(0.0, 0.5, -3.0, 1.0),
        ];
        let mut out = [Vec4::ZERO; 8];
        let n = g.clip(tri, tri.map(Vec4::as_dvec4), OUT_NEAR, &mut out);
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
        let (mut o1, mut o2) = ([Vec4::ZERO; 8], [Vec4::ZERO; 8]);
        let n1 = g.clip(t1, t1.map(Vec4::as_dvec4), OUT_NEAR, &mut o1);
        let n2 = g.clip(t2, t2.map(Vec4::as_dvec4), OUT_NEAR, &mut o2);
        let cut1: Vec<_> = o1[..n1].iter().filter(|v| !tri_has(&t1, **v)).collect();
        let cut2: Vec<_> = o2[..n2].iter().filter(|v| !tri_has(&t2, **v)).collect();
        // the intersection on the shared edge a-b appears bit-identically in both
        assert!(cut1.iter().any(|v| cut2.contains(v)));
    }

    fn tri_has(t: &[Vec4; 3], v: Vec4) -> bool {
        t.contains(&v)
    }
}
