//! Triangle setup (llvmpipe's `lp_setup_tri`): snapped fixed-point edges,
//! bounding box, depth plane and fill-rule bias, once per triangle.

use super::rules::{floor_div, snapped_area, CullMode, FillRule, SUBPIXEL_BITS, SUBPIXEL_ONE};

/// A window-space vertex ready for setup: f32 window position and depth,
/// and its snapped fixed-point position.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WinVertex {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub fx: i64,
    pub fy: i64,
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

    /// Depth at pixel (i, j).
    #[inline(always)]
    pub fn depth_at(&self, i: i32, j: i32) -> f32 {
        self.depth_row(j) + self.dzdx * (i - self.bbox[0]) as f32
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
    let mut p = [[v[0].fx, v[0].fy], [v[1].fx, v[1].fy], [v[2].fx, v[2].fy]];
    let mut z = [v[0].z, v[1].z, v[2].z];
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
        if !cull.keeps(area > 0) {
            return Err(Rejected::Culled);
        }
        if area < 0 {
            p.swap(1, 2);
            z.swap(1, 2);
        }
    }
    let (w, h) = (width as i32 - 1, height as i32 - 1);
    let bbox = if line {
        [0, 0, w, h]
    } else {
        let minx = p.iter().map(|q| q[0]).min().unwrap_or(0);
        let maxx = p.iter().map(|q| q[0]).max().unwrap_or(0);
        let miny = p.iter().map(|q| q[1]).min().unwrap_or(0);
        let maxy = p.iter().map(|q| q[1]).max().unwrap_or(0);
        // pixel centres i with 256*i in [min, max]
        let x0 = (-floor_div(-minx, SUBPIXEL_ONE)).max(0);
        let y0 = (-floor_div(-miny, SUBPIXEL_ONE)).max(0);
        let x1 = floor_div(maxx, SUBPIXEL_ONE).min(i64::from(w));
        let y1 = floor_div(maxy, SUBPIXEL_ONE).min(i64::from(h));
        [x0 as i32, y0 as i32, x1 as i32, y1 as i32]
    };
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
    // Depth plane in pixel units, relative to the bbox corner, solved in f64.
    let (rx, ry) = (f64::from(bbox[0]), f64::from(bbox[1]));
    let one = SUBPIXEL_ONE as f64;
    let q: [[f64; 3]; 3] = std::array::from_fn(|k| {
        [
            p[k][0] as f64 / one - rx,
            p[k][1] as f64 / one - ry,
            f64::from(z[k]),
        ]
    });
    if line {
        s.z_ref = z.iter().copied().fold(f32::INFINITY, f32::min);
    } else {
        let (ux, uy, uz) = (q[1][0] - q[0][0], q[1][1] - q[0][1], q[1][2] - q[0][2]);
        let (vx, vy, vz) = (q[2][0] - q[0][0], q[2][1] - q[0][1], q[2][2] - q[0][2]);
        let det = ux * vy - uy * vx;
        let a = (uz * vy - vz * uy) / det;
        let b = (vz * ux - uz * vx) / det;
        s.dzdx = a as f32;
        s.dzdy = b as f32;
        s.z_ref = (q[0][2] - a * q[0][0] - b * q[0][1]) as f32;
    }
    Ok(s)
}
