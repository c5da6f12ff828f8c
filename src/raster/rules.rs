//! Every rasterization convention of softpick, in one place.
//!
//! | what | softpick's choice |
//! |---|---|
//! | clip space | OpenGL: right-handed `look_at_rh` view, `perspective_rh_gl` / `orthographic_rh_gl` projection (or a pinhole camera's off-centre frustum, [`Projection::Pinhole`](crate::Projection::Pinhole)), NDC depth −1..1, NDC y up |
//! | window / screen space | x right, **y down**, row 0 is the top row; `sx = (ndc_x*0.5+0.5)*W`, `sy = (1-(ndc_y*0.5+0.5))*H` (computed in f32 in this order) |
//! | window depth | `z_win = ndc_z*0.5+0.5` in 0..1, stored as f32; cleared to 1.0 |
//! | pixel centre | pixel (px, py) has its centre at (px+0.5, py+0.5) |
//! | subpixel precision | [`SUBPIXEL_BITS`] = 8: a vertex is snapped as `round_half_even((v - 0.5) * 256)` so the integer lattice point (256·px, 256·py) is the centre of pixel (px, py) |
//! | edge function | for edge a→b: `e(p) = (bx-ax)*(py-ay) - (by-ay)*(px-ax)` in i64 on snapped coordinates |
//! | winding | front faces are counter-clockwise in NDC (GL default, y up), which is a **negative** snapped area `(x1-x0)(y2-y0)-(y1-y0)(x2-x0)` in the y-down screen space (the flip of y reverses the turn); for rasterization every triangle is re-ordered to positive area so the edge functions are positive inside |
//! | fill rule | [`FillRule`], default [`FillRule::TopLeft`] (D3D/Vulkan orientation, identical to Mesa llvmpipe with `--orient d3d`) |
//! | culling | [`CullMode`], default none, decided on the snapped area sign |
//! | depth test | [`DepthTest`], default `Less`; ties keep the earlier triangle in draw order |
//! | draw order | meshes in scene order, triangles in file order (the global triangle index) |
//! | guard band | vertices are kept within `GUARD_BAND_PX` (16,384) pixels of the viewport by clipping in homogeneous space; see the module docs of `raster/clip.rs` |
//!
//! The fill rules differ only in a per-edge bias: a pixel centre is covered by
//! an edge when `e + bias > 0`, with `bias = 0` (exclusive) or `1` (inclusive).

/// Number of fractional bits of snapped screen coordinates (1/256 px), as in
/// GL/D3D hardware and Mesa llvmpipe (`FIXED_ORDER`).
pub const SUBPIXEL_BITS: u32 = 8;
/// One pixel in snapped units.
pub const SUBPIXEL_ONE: i64 = 1 << SUBPIXEL_BITS;

#[cfg(doc)]
use crate::geometry::CullMode;
pub(crate) use crate::limits::{GUARD_BAND_PX, MAX_FRAME_SIDE};
pub(crate) use crate::limits::{TILE_ORDER, TILE_SIZE};

/// How a pixel centre lying exactly on an edge is decided.
///
/// These are the three attempts of the original pick test plus the GL/D3D
/// rule. With integer edge functions every rule is exact.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FillRule {
    /// Covered iff all three edge functions are `> 0`: pixel centres on shared
    /// edges belong to nobody (gaps).
    Strict,
    /// Covered iff all three are `>= 0`: no gaps, shared edges are covered
    /// twice, and a zero-area (collinear) triangle claims every pixel centre
    /// on its whole infinite line (false claims far from any mesh).
    Inclusive,
    /// The pick test's final rule: signed area `> 0` and all three `>= 0`.
    /// No gaps and no false claims; shared edges are still covered twice.
    AreaGuard,
    /// The GL/D3D top-left rule: a centre exactly on an edge belongs to the
    /// triangle only if that edge is a top edge (horizontal, interior below it
    /// in y-down screen space) or a left edge. Zero-area triangles cover
    /// nothing. Planar triangulations cover every inside pixel exactly once.
    #[default]
    TopLeft,
}

impl FillRule {
    /// All rules, in the order of the pick test's story.
    pub const ALL: [FillRule; 4] = [
        FillRule::Strict,
        FillRule::Inclusive,
        FillRule::AreaGuard,
        FillRule::TopLeft,
    ];

    /// The rule's command-line name (`strict`, `inclusive`, `area-guard`, `top-left`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            FillRule::Strict => "strict",
            FillRule::Inclusive => "inclusive",
            FillRule::AreaGuard => "area-guard",
            FillRule::TopLeft => "top-left",
        }
    }

    /// Parses a name as produced by [`FillRule::name`].
    #[must_use]
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name() == s)
    }

    /// Edge bias for an edge with deltas (dx, dy) in an oriented (positive
    /// area) triangle: covered iff `e + bias > 0`.
    #[inline]
    #[must_use]
    pub fn edge_bias(self, dx: i64, dy: i64) -> i64 {
        match self {
            FillRule::Strict => 0,
            FillRule::Inclusive | FillRule::AreaGuard => 1,
            FillRule::TopLeft => i64::from(is_top_left(dx, dy)),
        }
    }
}

/// True for a top or left edge of a positively oriented triangle in y-down
/// screen space: `dy < 0` (left edge) or `dy == 0 && dx > 0` (top edge).
/// This is llvmpipe's rule in D3D orientation (`conformance.py` `pipe_rule='top'`).
#[inline]
#[must_use]
pub fn is_top_left(dx: i64, dy: i64) -> bool {
    dy < 0 || (dy == 0 && dx > 0)
}

/// Depth comparison between an incoming fragment and the stored depth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DepthTest {
    /// Pass when nearer (`z < stored`); ties keep the earlier triangle.
    #[default]
    Less,
    /// Pass when nearer or equal; ties go to the later triangle.
    LessEqual,
    /// Always pass (painter's order); fragments outside 0..1 are still dropped.
    Always,
}

impl DepthTest {
    /// Does a fragment at depth `z` replace the stored depth `d`?
    #[inline(always)]
    #[must_use]
    pub fn passes(self, z: f32, d: f32) -> bool {
        match self {
            DepthTest::Less => z < d,
            DepthTest::LessEqual => z <= d,
            DepthTest::Always => (0.0..=1.0).contains(&z),
        }
    }
}

/// Snaps a window coordinate to fixed point: `round_half_even((v - 0.5) * 256)`,
/// with the subtraction and multiplication done in f32 like llvmpipe. The
/// caller guarantees `|v|` is within the guard band.
#[inline]
#[must_use]
pub fn snap(v: f32) -> i64 {
    // Round half to even without a libm call on baseline x86-64: adding and
    // subtracting 1.5·2^52 in f64 rounds any |x| < 2^51 to the nearest
    // integer, ties to even (the default rounding mode). The f32 product is
    // exact in f64.
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    let x = f64::from((v - 0.5) * SUBPIXEL_ONE as f32);
    ((x + MAGIC) - MAGIC) as i64
}

/// [`snap`] of a coordinate inside the clamped guard band (`|v|` at most
/// 3·`GUARD_BAND_PX`, as the vertex stage clamps it), as i32: the same
/// rounding, read from the bits of `x + 1.5·2^52` (whose low 32 bits hold
/// the rounded integer in two's complement for any `|x| < 2^31`) instead
/// of a subtraction and a saturating conversion.
#[inline(always)]
#[must_use]
pub fn snap_in_band(v: f32) -> i32 {
    const MAGIC: f64 = 6_755_399_441_055_744.0;
    let x = f64::from((v - 0.5) * SUBPIXEL_ONE as f32);
    (x + MAGIC).to_bits() as u32 as i32
}

/// Signed doubled area of a snapped triangle in y-down screen space
/// (negative = front-facing, counter-clockwise in NDC: see the table above).
#[inline]
#[must_use]
pub fn snapped_area(v: [[i64; 2]; 3]) -> i64 {
    (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[1][1] - v[0][1]) * (v[2][0] - v[0][0])
}

/// Floor of `a / b` for `b > 0`.
#[inline]
#[must_use]
pub(crate) fn floor_div(a: i64, b: i64) -> i64 {
    a.div_euclid(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snap_rounds_half_to_even_after_offset() {
        assert_eq!(snap(0.5), 0);
        assert_eq!(snap(1.5), 256);
        // 0.5 + 1/512 → 0.5 units → rounds to 0 (even)
        assert_eq!(snap(0.5 + 1.0 / 512.0), 0);
        // 0.5 + 3/512 → 1.5 units → rounds to 2 (even)
        assert_eq!(snap(0.5 + 3.0 / 512.0), 2);
        assert_eq!(snap(0.0), -128);
        // agrees with round_ties_even everywhere in the guard band
        for k in -200_000..200_000 {
            let v = k as f32 * 0.123_456_7 + 0.5 / 512.0 * (k % 3) as f32;
            let want = ((v - 0.5) * 256.0).round_ties_even() as i64;
            assert_eq!(snap(v), want, "{v}");
        }
        for v in [
            49_152.0f32,
            -49_152.0,
            0.5 + 1.0 / 512.0,
            0.5 - 1.0 / 512.0,
            1.5 + 3.0 / 512.0,
        ] {
            assert_eq!(snap(v), ((v - 0.5) * 256.0).round_ties_even() as i64, "{v}");
        }
    }

    /// The vertex stage's snap gives [`snap`]'s integer for every
    /// coordinate it can see: ties at every 1/512 pixel, the clamp limits,
    /// two million random f32 bit patterns in the band and as many values
    /// spread evenly over it.
    #[test]
    fn snap_in_band_equals_snap() {
        let lim = 3.0 * GUARD_BAND_PX;
        let check = |v: f32| assert_eq!(i64::from(snap_in_band(v)), snap(v), "{v}");
        for k in -200_000..200_000 {
            check(k as f32 / 512.0);
            check(k as f32 * 0.245_9 + 0.5 / 512.0 * (k % 3) as f32);
        }
        for v in [lim, -lim, lim - 0.5, -lim + 0.5, 0.0, -0.0, 0.5, -0.5] {
            check(v);
        }
        let mut rng = crate::test_util::Rng(0x9e37_79b9_7f4a_7c15);
        let mut n = 0;
        while n < 2_000_000 {
            let v = f32::from_bits(rng.next_u64() as u32);
            if v.abs() <= lim {
                check(v);
                n += 1;
            }
            // and uniformly over the band
            check(rng.range(-lim, lim));
        }
    }

    #[test]
    fn top_left_classification() {
        // positive-area triangle (0,0),(1,0),(0,1) in y-down space
        assert!(is_top_left(1, 0)); // top edge
        assert!(!is_top_left(-1, 1)); // right/bottom edge
        assert!(is_top_left(0, -1)); // left edge
        assert!(!is_top_left(-1, 0)); // bottom edge
    }

    #[test]
    fn names_round_trip() {
        for r in FillRule::ALL {
            assert_eq!(FillRule::from_name(r.name()), Some(r));
        }
        assert_eq!(FillRule::from_name("nope"), None);
    }
}
