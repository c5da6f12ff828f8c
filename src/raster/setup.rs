//! Triangle setup (llvmpipe's `lp_setup_tri`): snapped fixed-point edges,
//! bounding box, depth plane and fill-rule bias, once per triangle.

use super::rules::{floor_div, snapped_area, CullMode, FillRule, SUBPIXEL_BITS, SUBPIXEL_ONE};

/// A window-space vertex ready for setup: f32 window position and depth,
/// and its snapped fixed-point position (|fx|, |fy| < 2^24 inside the guard band).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WinVertex {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub fx: i32,
    pub fy: i32,
}

/// A set-up triangle. Pixel (i, j) is covered iff for every edge k
/// `dx[k]*j - dy[k]*i + c[k] >= 0` (the fill-rule bias and the −1 of the
/// `> 0` test are folded into `c`, already divided by 256 with floor, which
/// is exact because pixel centres lie on multiples of 256; see
/// [`super::rules`]) and (i, j) lies in `bbox`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct TriSetup {
    pub dx: [i64; 3],
    pub dy: [i64; 3],
    pub c: [i64; 3],
    /// Inclusive pixel bounds x0, y0, x1, y1, clamped to the viewport.
    pub bbox: [i32; 4],
    /// Depth plane: `z(i, j) = (z_ref + dzdy*(j - y0)) + dzdx*(i - x0)` with (x0, y0) = bbox min.
    pub z_ref: f32,
    pub dzdx: f32,
    pub dzdy: f32,
    /// Depth range of the vertices: interpolated depth is clamped to it, so
    /// a sliver whose plane is steep cannot extrapolate out of range.
    pub z_min: f32,
    pub z_max: f32,
    /// Global triangle index.
    pub id: u32,
    /// Flat shaded color 0x00RRGGBB.
    pub color: u32,
}

/// Why a triangle produced no setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rejected {
    /// Zero snapped area (and the rule does not draw lines).
    ZeroArea,
    /// Dropped by the cull mode.
    Culled,
    /// No pixel centre inside the bounding box / viewport.
    Empty,
}

impl TriSetup {
    /// Is pixel (i, j) covered? Exactly the test the tile rasterizer applies.
    #[inline]
    pub fn covers(&self, i: i32, j: i32) -> bool {
        let [x0, y0, x1, y1] = self.bbox;
        if i < x0 || i > x1 || j < y0 || j > y1 {
            return false;
        }
        let (i, j) = (i64::from(i), i64::from(j));
        (0..3).all(|k| self.dx[k] * j - self.dy[k] * i + self.c[k] >= 0)
    }

    /// Depth at pixel (i, j), the same f32 operations the rasterizer uses.
    #[inline(always)]
    pub fn depth_row(&self, j: i32) -> f32 {
        self.z_ref + self.dzdy * (j - self.bbox[1]) as f32
    }

    /// Depth at pixel (i, j): `clamp(depth_row(j) + dzdx*(i - x0), z_min, z_max)`.
    #[inline(always)]
    pub fn depth_at(&self, i: i32, j: i32) -> f32 {
        self.depth_in_row(self.depth_row(j), i - self.bbox[0])
    }

    /// Depth at column offset `di` (from the bbox corner) of a row whose
    /// [`TriSetup::depth_row`] is `zr`. The one formula every depth comes from.
    #[inline(always)]
    pub fn depth_in_row(&self, zr: f32, di: i32) -> f32 {
        (zr + self.dzdx * di as f32).max(self.z_min).min(self.z_max)
    }

    /// The covered span [lo, hi] of row j within [x0, x1] (empty if lo > hi).
    #[inline]
    pub fn span(&self, j: i32, x0: i32, x1: i32) -> (i32, i32) {
        let j = i64::from(j);
        let mut lo = i64::from(x0);
        let mut hi = i64::from(x1);
        for k in 0..3 {
            let a = self.dx[k] * j + self.c[k];
            let dy = self.dy[k];
            if dy > 0 {
                // a - dy*i >= 0  <=>  i <= floor(a / dy)
                hi = hi.min(floor_div(a, dy));
            } else if dy < 0 {
                // a + m*i >= 0 (m = -dy)  <=>  i >= -floor(a / m)
                lo = lo.max(-floor_div(a, -dy));
            } else if a < 0 {
                return (1, 0);
            }
        }
        if lo > hi {
            (1, 0)
        } else {
            (lo as i32, hi as i32)
        }
    }
}

/// Sets up one triangle in window space. `width`/`height` clamp the bbox.
pub(crate) fn setup(
    v: [WinVertex; 3],
    rule: FillRule,
    cull: CullMode,
    width: u32,
    height: u32,
    id: u32,
    color: u32,
) -> Result<TriSetup, Rejected> {
    let mut p = v.map(|q| [i64::from(q.fx), i64::from(q.fy)]);
    let mut z = [v[0].z, v[1].z, v[2].z];
    let mut win = [v[0], v[1], v[2]];
    let (w, h) = (width as i32 - 1, height as i32 - 1);
    // Pixel centres i with 256*i in [min, max] (shifts floor): most small
    // triangles of big meshes contain no centre and leave here, before any
    // multiplication. Zero-area lines of the inclusive rule are exempt.
    let pixel_bbox = || {
        let minx = p[0][0].min(p[1][0]).min(p[2][0]);
        let maxx = p[0][0].max(p[1][0]).max(p[2][0]);
        let miny = p[0][1].min(p[1][1]).min(p[2][1]);
        let maxy = p[0][1].max(p[1][1]).max(p[2][1]);
        let x0 = (-((-minx) >> SUBPIXEL_BITS)).max(0);
        let y0 = (-((-miny) >> SUBPIXEL_BITS)).max(0);
        let x1 = (maxx >> SUBPIXEL_BITS).min(i64::from(w));
        let y1 = (maxy >> SUBPIXEL_BITS).min(i64::from(h));
        [x0 as i32, y0 as i32, x1 as i32, y1 as i32]
    };
    let tight = pixel_bbox();
    let empty = tight[0] > tight[2] || tight[1] > tight[3];
    if empty && rule != FillRule::Inclusive {
        return Err(Rejected::Empty);
    }
    let area = snapped_area(p);
    let line = area == 0;
    if line {
        // Only the naive inclusive rule draws zero-area triangles: every
        // pixel centre on the whole line through them (the pick test's
        // false claims). A single point has no line and covers nothing.
        let point = p[0] == p[1] && p[1] == p[2];
        if rule != FillRule::Inclusive || point {
            return Err(Rejected::ZeroArea);
        }
    } else {
        // front-facing = counter-clockwise in y-up NDC = negative area in y-down space
        if !cull.keeps(area < 0) {
            return Err(Rejected::Culled);
        }
        if area < 0 {
            p.swap(1, 2);
            z.swap(1, 2);
            win.swap(1, 2);
        }
    }
    let bbox = if line { [0, 0, w, h] } else { tight };
    if bbox[0] > bbox[2] || bbox[1] > bbox[3] {
        return Err(Rejected::Empty);
    }
    let mut s = TriSetup {
        bbox,
        id,
        color,
        ..TriSetup::default()
    };
    for k in 0..3 {
        let a = p[k];
        let b = p[(k + 1) % 3];
        let dx = b[0] - a[0];
        let dy = b[1] - a[1];
        let bias = rule.edge_bias(dx, dy);
        let c = dy * a[0] - dx * a[1] + bias - 1;
        s.dx[k] = dx;
        s.dy[k] = dy;
        s.c[k] = c >> SUBPIXEL_BITS;
    }
    // Depth plane in pixel units, relative to the bbox corner, solved in f64
    // from the unsnapped window positions (snapping is for coverage only; the
    // depth follows the true geometry, as GL's interpolation does). Pixel
    // (i, j) has its centre at window (i + 0.5, j + 0.5).
    let (rx, ry) = (f64::from(bbox[0]) + 0.5, f64::from(bbox[1]) + 0.5);
    let exact: [[f64; 3]; 3] = std::array::from_fn(|k| {
        [
            f64::from(win[k].x) - rx,
            f64::from(win[k].y) - ry,
            f64::from(z[k]),
        ]
    });
    let one = SUBPIXEL_ONE as f64;
    let snapped: [[f64; 3]; 3] = std::array::from_fn(|k| {
        [
            p[k][0] as f64 / one + 0.5 - rx,
            p[k][1] as f64 / one + 0.5 - ry,
            f64::from(z[k]),
        ]
    });
    s.z_min = z.iter().copied().fold(f32::INFINITY, f32::min);
    s.z_max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if line {
        s.z_ref = s.z_min;
    } else {
        // a float triangle that snapping made non-degenerate falls back to
        // the snapped positions
        let (a, b, c) = depth_plane(&exact)
            .unwrap_or_else(|| depth_plane(&snapped).unwrap_or((0.0, 0.0, f64::from(z[0]))));
        s.dzdx = a as f32;
        s.dzdy = b as f32;
        s.z_ref = c as f32;
    }
    Ok(s)
}

/// The plane z = a·x + b·y + c through three (x, y, z) points, if they span one.
fn depth_plane(q: &[[f64; 3]; 3]) -> Option<(f64, f64, f64)> {
    let (ux, uy, uz) = (q[1][0] - q[0][0], q[1][1] - q[0][1], q[1][2] - q[0][2]);
    let (vx, vy, vz) = (q[2][0] - q[0][0], q[2][1] - q[0][1], q[2][2] - q[0][2]);
    let det = ux * vy - uy * vx;
    let a = (uz * vy - vz * uy) / det;
    let b = (vz * ux - uz * vx) / det;
    let c = q[0][2] - a * q[0][0] - b * q[0][1];
    (a.is_finite() && b.is_finite() && c.is_finite()).then_some((a, b, c))
}
