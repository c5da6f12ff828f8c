//! Triangle setup (llvmpipe's `lp_setup_tri`): snapped fixed-point edges,
//! bounding box, depth plane and fill-rule bias, once per triangle.

use glam::Vec4;

use super::rules::{floor_div, snapped_area, FillRule, SUBPIXEL_BITS, SUBPIXEL_ONE};
use crate::geometry::CullMode;

/// A window-space vertex ready for setup: f32 window position and depth,
/// and its snapped fixed-point position (|fx|, |fy| < 2^24 inside the guard band).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
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
    /// Depth over the pixels, from the bbox corner (x0, y0) = bbox min.
    pub plane: DepthPlane,
    /// Global triangle index.
    pub id: u32,
    /// Flat shaded color 0x00RRGGBB.
    pub color: u32,
}

/// Largest pixel box (per side) of a [`SmallTri`]: its coverage fits a 64-bit mask.
pub(crate) const SMALL_SIDE: i32 = 8;

/// A set-up triangle whose pixel box is at most [`SMALL_SIDE`]² pixels:
/// its coverage, computed once at setup with the same integer edge
/// functions as [`TriSetup::covers`], as a bit mask (bit `8*dj + di` for
/// pixel `(x0 + di, y0 + dj)`), and the same depth plane with the same
/// corner, so every depth is bit-identical to the [`TriSetup`] it came
/// from. 40 bytes instead of 120: most triangles of dense meshes are
/// this small, and the tile rasterizer and the picks read them without
/// edge functions or divisions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SmallTri {
    /// Coverage mask, rows of 8 bits from the box corner.
    pub mask: u64,
    /// Box corner (the [`TriSetup::bbox`] minimum).
    pub x0: u16,
    pub y0: u16,
    /// The [`TriSetup`]'s depth plane (the same corner).
    pub plane: DepthPlane,
    pub id: u32,
    pub color: u32,
}

impl SmallTri {
    /// The 8 mask bits of row j (0 outside the box).
    #[inline(always)]
    pub fn row_bits(&self, j: i32) -> u32 {
        let dj = j - i32::from(self.y0);
        if (0..SMALL_SIDE).contains(&dj) {
            ((self.mask >> (8 * dj)) & 0xff) as u32
        } else {
            0
        }
    }

    /// Inclusive pixel bounds of the covered pixels, from the mask's bits:
    /// its first and last non-empty rows, and the OR of its row bytes for
    /// the columns. (An empty mask gives an empty box, `[x0 + 32, y0 + 32,
    /// x0 - 1, y0 - 1]`.)
    #[inline]
    pub fn bbox(&self) -> [i32; 4] {
        let (x0, y0) = (i32::from(self.x0), i32::from(self.y0));
        let m = self.mask;
        if m == 0 {
            return [x0 + 32, y0 + 32, x0 - 1, y0 - 1];
        }
        let mut cols = m;
        cols |= cols >> 32;
        cols |= cols >> 16;
        cols |= cols >> 8;
        let cols = cols as u8;
        [
            x0 + cols.trailing_zeros() as i32,
            y0 + m.trailing_zeros() as i32 / 8,
            x0 + 7 - cols.leading_zeros() as i32,
            y0 + (63 - m.leading_zeros() as i32) / 8,
        ]
    }

    /// Is pixel (i, j) covered?
    #[inline]
    pub fn covers(&self, i: i32, j: i32) -> bool {
        let di = i - i32::from(self.x0);
        (0..SMALL_SIDE).contains(&di) && (self.row_bits(j) >> di) & 1 != 0
    }

    /// Depth at pixel (i, j), the same formula and operations as [`TriSetup::depth_at`].
    #[inline(always)]
    pub fn depth_at(&self, i: i32, j: i32) -> f32 {
        self.plane
            .at(i - i32::from(self.x0), j - i32::from(self.y0))
    }

    /// See [`TriSetup::depth_row`].
    #[inline(always)]
    pub fn depth_row(&self, j: i32) -> f32 {
        self.plane.row(j - i32::from(self.y0))
    }

    /// The covered span [lo, hi] of row j within [x0, x1] (empty if lo > hi);
    /// a triangle covers one run of pixels per row.
    #[inline]
    pub fn span(&self, j: i32, x0: i32, x1: i32) -> (i32, i32) {
        let bits = self.row_bits(j);
        if bits == 0 {
            return (1, 0);
        }
        let c = i32::from(self.x0);
        let lo = (c + bits.trailing_zeros() as i32).max(x0);
        let hi = (c + 31 - bits.leading_zeros() as i32).min(x1);
        if lo > hi {
            (1, 0)
        } else {
            (lo, hi)
        }
    }
}

/// The state of [`TriSetup::spans_from`]: per edge k, the quotient
/// `q = floor(a / m)` and remainder `r = a - q·m` (`0 <= r < m`) of the
/// edge's value `a = dx·j + c` at the current row by `m = |dy|` (1 for a
/// flat edge), and the same of its step `dx` by `m`.
pub(crate) struct SpanRows {
    q: [i64; 3],
    r: [i64; 3],
    qd: [i64; 3],
    rd: [i64; 3],
    m: [i64; 3],
}

impl SpanRows {
    /// `t.span(j, x0, x1)` of the current row `j` of `t` (the triangle
    /// these rows came from), then moves to row `j + 1`.
    #[inline(always)]
    pub fn next_span(&mut self, t: &TriSetup, x0: i32, x1: i32) -> (i32, i32) {
        let (mut lo, mut hi) = (i64::from(x0), i64::from(x1));
        let mut empty = false;
        for k in 0..3 {
            // as `span`: floor(a / dy) bounds the span from the right,
            // -floor(a / -dy) from the left, a flat edge keeps a >= 0
            let dy = t.dy[k];
            if dy > 0 {
                hi = hi.min(self.q[k]);
            } else if dy < 0 {
                lo = lo.max(-self.q[k]);
            } else {
                empty |= self.q[k] < 0;
            }
            // a + dx = (q + qd)·m + (r + rd), with 0 <= r + rd < 2m
            self.q[k] += self.qd[k];
            self.r[k] += self.rd[k];
            if self.r[k] >= self.m[k] {
                self.q[k] += 1;
                self.r[k] -= self.m[k];
            }
        }
        if empty || lo > hi {
            (1, 0)
        } else {
            (lo as i32, hi as i32)
        }
    }
}

/// A set-up triangle of either form.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum SetupRecord {
    /// Edge functions (any size).
    Big(TriSetup),
    /// Coverage mask (pixel box at most 8×8).
    Small(SmallTri),
}

/// A set-up triangle of either form, borrowed from a [`crate::raster::bin::BinnedChunk`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tri<'a> {
    Big(&'a TriSetup),
    Small(&'a SmallTri),
}

impl Tri<'_> {
    /// Global triangle index.
    #[inline]
    pub fn id(&self) -> u32 {
        match self {
            Tri::Big(t) => t.id,
            Tri::Small(t) => t.id,
        }
    }

    /// Inclusive pixel bounds (for a small triangle, of its covered pixels).
    #[inline]
    pub fn bbox(&self) -> [i32; 4] {
        match self {
            Tri::Big(t) => t.bbox,
            Tri::Small(t) => t.bbox(),
        }
    }

    /// Is pixel (i, j) covered? Exactly what the tile rasterizer draws.
    #[inline]
    pub fn covers(&self, i: i32, j: i32) -> bool {
        match self {
            Tri::Big(t) => t.covers(i, j),
            Tri::Small(t) => t.covers(i, j),
        }
    }

    /// Depth at pixel (i, j), bit-identical to the rasterizer's.
    #[inline]
    pub fn depth_at(&self, i: i32, j: i32) -> f32 {
        match self {
            Tri::Big(t) => t.depth_at(i, j),
            Tri::Small(t) => t.depth_at(i, j),
        }
    }

    /// The covered span [lo, hi] of row j within [x0, x1] (empty if lo > hi).
    #[inline]
    pub fn span(&self, j: i32, x0: i32, x1: i32) -> (i32, i32) {
        match self {
            Tri::Big(t) => t.span(j, x0, x1),
            Tri::Small(t) => t.span(j, x0, x1),
        }
    }
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

    /// The depth plane's value on row j (see [`DepthPlane::row`]).
    #[inline(always)]
    pub fn depth_row(&self, j: i32) -> f32 {
        self.plane.row(j - self.bbox[1])
    }

    /// Depth at pixel (i, j), the same f32 operations the rasterizer uses.
    #[inline(always)]
    pub fn depth_at(&self, i: i32, j: i32) -> f32 {
        self.plane.at(i - self.bbox[0], j - self.bbox[1])
    }

    /// [`TriSetup::span`] of the rows `j0, j0 + 1, …` in turn: the edges'
    /// quotients are divided out once here and then stepped row by row
    /// with exact integer remainders (see [`SpanRows::next_span`]), instead
    /// of three divisions per row.
    #[inline(always)]
    pub fn spans_from(&self, j0: i32) -> SpanRows {
        let j = i64::from(j0);
        let mut rows = SpanRows {
            q: [0; 3],
            r: [0; 3],
            qd: [0; 3],
            rd: [0; 3],
            m: [1; 3],
        };
        for k in 0..3 {
            let a = self.dx[k] * j + self.c[k];
            // (a flat edge: m = 1, so q stays the edge value a)
            let m = self.dy[k].unsigned_abs().max(1) as i64;
            rows.m[k] = m;
            rows.q[k] = floor_div(a, m);
            rows.r[k] = a - rows.q[k] * m;
            rows.qd[k] = floor_div(self.dx[k], m);
            rows.rd[k] = self.dx[k] - rows.qd[k] * m;
        }
        rows
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

/// The pixel centres the triangle's snapped bounding box holds, clamped
/// to the `width` × `height` viewport: inclusive bounds x0, y0, x1, y1
/// (pixel centre i lies at 256·i; the shifts floor), empty if x0 > x1 or
/// y0 > y1. (i32 is exact: |fx|, |fy| < 2^24.)
#[inline(always)]
fn pixel_box(v: [&WinVertex; 3], width: u32, height: u32) -> [i32; 4] {
    let (w, h) = (width as i32 - 1, height as i32 - 1);
    let minx = v[0].fx.min(v[1].fx).min(v[2].fx);
    let maxx = v[0].fx.max(v[1].fx).max(v[2].fx);
    let miny = v[0].fy.min(v[1].fy).min(v[2].fy);
    let maxy = v[0].fy.max(v[1].fy).max(v[2].fy);
    let x0 = (-((-minx) >> SUBPIXEL_BITS)).max(0);
    let y0 = (-((-miny) >> SUBPIXEL_BITS)).max(0);
    let x1 = (maxx >> SUBPIXEL_BITS).min(w);
    let y1 = (maxy >> SUBPIXEL_BITS).min(h);
    [x0, y0, x1, y1]
}

/// Does the triangle's [`pixel_box`] hold no pixel centre? Such a triangle
/// covers nothing under every rule but the inclusive one (whose zero-area
/// lines reach past their box); [`setup`] rejects it as
/// [`Rejected::Empty`] with this same test, which the render of a dense
/// scene makes first, inline, to save the call (see
/// [`crate::limits::EARLY_EMPTY_TRIS_PER_PIXEL`]).
#[inline(always)]
pub(crate) fn holds_no_centre(v: [&WinVertex; 3], width: u32, height: u32) -> bool {
    let [x0, y0, x1, y1] = pixel_box(v, width, height);
    x0 > x1 || y0 > y1
}

/// Sets up one triangle in window space. `width`/`height` clamp the bbox.
///
/// `DENSE`: for a mesh denser than the frame (the render's early-empty
/// test is on, [`crate::limits::EARLY_EMPTY_TRIS_PER_PIXEL`]), the same
/// answers. Most of its boxes that hold a pixel centre hold just one,
/// which is then tested by its three edge values instead of the mask
/// lanes. Where boxes of one centre and of more mix, that branch
/// mispredicts, so sparser scenes leave it out. (`small_mask` is forced
/// inline into both forms: called from two places, it would otherwise
/// stay out of line, a call per small triangle.)
///
/// Inlined where it is called, so that the render stores the record
/// straight from registers (returned through memory, its copy stalls:
/// see `BinStage::setup_and_push` in `front`).
#[inline(always)]
pub(crate) fn setup<const DENSE: bool>(
    v: [&WinVertex; 3],
    rule: FillRule,
    cull: CullMode,
    width: u32,
    height: u32,
    id: u32,
    color: u32,
) -> Result<SetupRecord, Rejected> {
    let (mut s, geo) = edges(v, rule, cull, width, height, id, color)?;
    let [x0, y0, x1, y1] = s.bbox;
    // (the zero-area lines of the inclusive rule span the viewport: never small)
    if x1 - x0 >= SMALL_SIDE || y1 - y0 >= SMALL_SIDE {
        s.plane = depth(s.bbox, &geo);
        return Ok(SetupRecord::Big(s));
    }
    // the mask first: a small triangle whose box holds pixel centres but
    // covers none (common in dense meshes) leaves before the depth plane's
    // divisions
    let mask = if DENSE && x0 == x1 && y0 == y1 {
        // a box of one pixel centre: its three edge values are all there
        // is to test
        u64::from(s.covers(x0, y0))
    } else {
        small_mask(&s)
    };
    if mask == 0 {
        return Err(Rejected::Empty);
    }
    Ok(SetupRecord::Small(SmallTri {
        mask,
        x0: x0 as u16,
        y0: y0 as u16,
        plane: depth(s.bbox, &geo),
        id: s.id,
        color: s.color,
    }))
}

/// The record [`setup`] makes of a triangle the front end
/// ([`super::batch`]) found to be small, with coverage `mask` in the box
/// whose corner is (`x0`, `y0`): the vertices `v` in draw order, `swap`
/// when their snapped area is negative (so that setup orders them 0, 2,
/// 1). Only the depth plane is left to make, from the same corners and
/// corner pixel as `setup`'s, so the record is the one `setup` returns.
#[inline(always)]
pub(crate) fn small_record(
    v: [&WinVertex; 3],
    swap: bool,
    (x0, y0): (i32, i32),
    mask: u64,
    id: u32,
) -> SmallTri {
    let mut win = [*v[0], *v[1], *v[2]];
    if swap {
        win.swap(1, 2);
    }
    let geo = OrderedCorners {
        p: win.map(|q| [i64::from(q.fx), i64::from(q.fy)]),
        z: win.map(|q| q.z),
        win,
        line: false,
    };
    SmallTri {
        mask,
        x0: x0 as u16,
        y0: y0 as u16,
        plane: depth([x0, y0, x0, y0], &geo),
        id,
        color: 0,
    }
}

/// The edge-function form of [`setup`], whatever the size.
#[cfg(test)]
pub(crate) fn setup_edges(
    v: [&WinVertex; 3],
    rule: FillRule,
    cull: CullMode,
    width: u32,
    height: u32,
    id: u32,
    color: u32,
) -> Result<TriSetup, Rejected> {
    let (mut s, geo) = edges(v, rule, cull, width, height, id, color)?;
    s.plane = depth(s.bbox, &geo);
    Ok(s)
}

/// What [`depth`] needs of a triangle besides its [`TriSetup`]: its
/// vertices in edge order (snapped, window, depth) and whether it is a
/// zero-area line.
struct OrderedCorners {
    p: [[i64; 2]; 3],
    z: [f32; 3],
    win: [WinVertex; 3],
    line: bool,
}

/// The first part of [`setup`]: the edges, bbox and fill-rule bias, or
/// why there is no triangle.
#[inline(always)]
fn edges(
    v: [&WinVertex; 3],
    rule: FillRule,
    cull: CullMode,
    width: u32,
    height: u32,
    id: u32,
    color: u32,
) -> Result<(TriSetup, OrderedCorners), Rejected> {
    let mut p = v.map(|q| [i64::from(q.fx), i64::from(q.fy)]);
    let mut z = [v[0].z, v[1].z, v[2].z];
    let mut win = [*v[0], *v[1], *v[2]];
    let (w, h) = (width as i32 - 1, height as i32 - 1);
    // Most small triangles of big meshes contain no pixel centre and leave
    // here, before any multiplication. Zero-area lines of the inclusive
    // rule are exempt.
    let tight = pixel_box(v, width, height);
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
    let dx: [i64; 3] = std::array::from_fn(|k| p[(k + 1) % 3][0] - p[k][0]);
    let dy: [i64; 3] = std::array::from_fn(|k| p[(k + 1) % 3][1] - p[k][1]);
    let c = std::array::from_fn(|k| {
        let bias = rule.edge_bias(dx[k], dy[k]);
        (dy[k] * p[k][0] - dx[k] * p[k][1] + bias - 1) >> SUBPIXEL_BITS
    });
    let s = TriSetup {
        dx,
        dy,
        c,
        bbox,
        plane: DepthPlane::default(),
        id,
        color,
    };
    Ok((s, OrderedCorners { p, z, win, line }))
}

/// The second part of [`setup`]: the depth plane of a triangle from
/// [`edges`] whose box is `bbox`. (Made as one value: written field by
/// field into the record and then copied whole into a small one, the
/// copy's wide load would wait on the narrow stores.)
#[inline(always)]
fn depth(bbox: [i32; 4], g: &OrderedCorners) -> DepthPlane {
    let OrderedCorners { p, z, win, line } = g;
    let line = *line;
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
    let z_min = z.iter().copied().fold(f32::INFINITY, f32::min);
    let z_max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if line {
        return DepthPlane {
            z_ref: z_min,
            dzdx: 0.0,
            dzdy: 0.0,
            z_min,
            z_max,
        };
    }
    // a float triangle that snapping made non-degenerate falls back to
    // the snapped positions
    let (a, b, c) = depth_plane(&exact)
        .unwrap_or_else(|| depth_plane(&snapped).unwrap_or((0.0, 0.0, f64::from(z[0]))));
    DepthPlane {
        z_ref: c as f32,
        dzdx: a as f32,
        dzdy: b as f32,
        z_min,
        z_max,
    }
}

/// The coverage mask of a small triangle's box (bit `8*dj + di` for pixel
/// `(x0 + di, y0 + dj)`).
#[inline(always)]
fn small_mask(s: &TriSetup) -> u64 {
    // edge values at the box corner; over the box (and the row after it)
    // each changes by at most 8 * (|dx| + |dy|). While that stays below
    // 2^24 every value is an f32 integer: the mask is made eight pixels at
    // a time in f32 lanes, exactly. A box of at most 8×8 pixel centres
    // around its own vertices has edge values of a few ten thousand at
    // most, so only a big triangle clipped by the viewport to a small box
    // takes the plain i64 loop. (i32 lanes compile to scalar code.)
    let [x0, y0, ..] = s.bbox;
    let e0: [i64; 3] =
        std::array::from_fn(|k| s.dx[k] * i64::from(y0) - s.dy[k] * i64::from(x0) + s.c[k]);
    let reach = (0..3)
        .map(|k| e0[k].abs() + i64::from(SMALL_SIDE) * (s.dx[k].abs() + s.dy[k].abs()))
        .max()
        .unwrap_or(0);
    let narrow = s.bbox[2] - s.bbox[0] < 4;
    if reach >= 1 << 24 {
        small_mask_i64(s)
    } else if narrow {
        small_mask_f32::<true>(s, e0)
    } else {
        small_mask_f32::<false>(s, e0)
    }
}

/// The lane layout of [`small_mask_f32`]: lane `l` is pixel `(col, row)`
/// from the corner of a pass, a row of eight pixels or (`NARROW`, boxes at
/// most four pixels wide: half the passes) two rows of four.
#[inline(always)]
const fn lane<const NARROW: bool>(l: i32) -> (i32, i32) {
    if NARROW {
        (l & 3, l >> 2)
    } else {
        (l, 0)
    }
}

/// The coverage mask of a small triangle's box, eight pixels at a time in
/// f32 lanes: `e0` are the edge values at the box corner, every value in
/// the box and the row after it is an integer below 2^24 in magnitude, so
/// each subtraction is exact and the sign bits are those of the integers
/// (the same answers as [`small_mask_i64`], tested).
#[inline(always)]
fn small_mask_f32<const NARROW: bool>(s: &TriSetup, e0: [i64; 3]) -> u64 {
    let [x0, y0, x1, y1] = s.bbox;
    let h = y1 - y0 + 1;
    let cols = (1u32 << (x1 - x0 + 1)) - 1;
    let dx: [i32; 3] = s.dx.map(|d| d as i32);
    let dy: [i32; 3] = s.dy.map(|d| d as i32);
    let e0 = e0.map(|e| e as i32);
    // per edge, the step to each lane: pixel (di, dj) has the edge value
    // e0 + dx*dj - dy*di. Made in the lanes: dy, dx and the lanes' column
    // and row offsets (at most 7) are f32 integers, and so are their
    // products and the differences (below 2^24), so each is exact.
    let offsets = |base: i32| {
        let o = |l: i32| lane::<NARROW>(base + l);
        let c = Vec4::new(o(0).0 as f32, o(1).0 as f32, o(2).0 as f32, o(3).0 as f32);
        let r = Vec4::new(o(0).1 as f32, o(1).1 as f32, o(2).1 as f32, o(3).1 as f32);
        (c, r)
    };
    let (lo_c, lo_r) = offsets(0);
    let (hi_c, hi_r) = offsets(4);
    let step = |k: usize, c: Vec4, r: Vec4| {
        let (sdy, sdx) = (Vec4::splat(dy[k] as f32), Vec4::splat(dx[k] as f32));
        if NARROW {
            sdy * c - sdx * r
        } else {
            // (r is zero)
            sdy * c
        }
    };
    let lo = [
        step(0, lo_c, lo_r),
        step(1, lo_c, lo_r),
        step(2, lo_c, lo_r),
    ];
    let hi = [
        step(0, hi_c, hi_r),
        step(1, hi_c, hi_r),
        step(2, hi_c, hi_r),
    ];
    let rows = if NARROW { 2 } else { 1 };
    let mut mask = 0u64;
    let mut dj = 0;
    while dj < h {
        // per pixel the least of the three edge values: negative iff one is
        let first = |k: usize| Vec4::splat((e0[k] + dx[k] * dj) as f32);
        let (f0, f1, f2) = (first(0), first(1), first(2));
        let min_lo = (f0 - lo[0]).min(f1 - lo[1]).min(f2 - lo[2]);
        let min_hi = (f0 - hi[0]).min(f1 - hi[1]).min(f2 - hi[2]);
        let bits = !(min_lo.is_negative_bitmask() | min_hi.is_negative_bitmask() << 4);
        let pass = if NARROW {
            // row dj in the low four bits, row dj + 1 in the high four
            (bits & cols) | ((bits >> 4) & cols) << 8
        } else {
            bits & cols
        };
        mask |= u64::from(pass) << (8 * dj);
        dj += rows;
    }
    // the second row of the last pair can lie past the box
    if NARROW && h < 8 {
        mask &= (1u64 << (8 * h)) - 1;
    }
    mask
}

/// [`small_mask_f32`] in i64, for any box.
fn small_mask_i64(s: &TriSetup) -> u64 {
    let [x0, y0, x1, y1] = s.bbox;
    let mut mask = 0u64;
    for j in y0..=y1 {
        let jj = i64::from(j);
        // edge values at the row's first pixel, stepped by -dy per pixel
        let mut e: [i64; 3] =
            std::array::from_fn(|k| s.dx[k] * jj - s.dy[k] * i64::from(x0) + s.c[k]);
        for di in 0..=(x1 - x0) {
            if (e[0] | e[1] | e[2]) >= 0 {
                mask |= 1 << (8 * (j - y0) + di);
            }
            for (e, dy) in e.iter_mut().zip(s.dy) {
                *e -= dy;
            }
        }
    }
    mask
}

/// A triangle's depth over the pixels, relative to a corner pixel (x0, y0):
/// `z(x0 + di, y0 + dj) = clamp((z_ref + dzdy*dj) + dzdx*di, z_min, z_max)`
/// in f32, in that order. The one formula every depth comes from: the tile
/// rasterizer (a row at a time), both set-up forms and the direct picks'
/// records, so their depths are bit-identical.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct DepthPlane {
    pub z_ref: f32,
    pub dzdx: f32,
    pub dzdy: f32,
    /// Depth range of the vertices: interpolated depth is clamped to it, so
    /// a sliver whose plane is steep cannot extrapolate out of range.
    pub z_min: f32,
    pub z_max: f32,
}

impl DepthPlane {
    /// The unclamped value at the start of row offset `dj`.
    #[inline(always)]
    pub fn row(&self, dj: i32) -> f32 {
        self.z_ref + self.dzdy * dj as f32
    }

    /// The depth at column offset `di` of a row whose [`DepthPlane::row`] is `zr`.
    #[inline(always)]
    pub fn in_row(&self, zr: f32, di: i32) -> f32 {
        clamp_depth(zr + self.dzdx * di as f32, self.z_min, self.z_max)
    }

    /// The depth at offset (di, dj) from the corner.
    #[inline(always)]
    pub fn at(&self, di: i32, dj: i32) -> f32 {
        self.in_row(self.row(dj), di)
    }
}

/// `z` clamped to `[lo, hi]` (`lo`, `hi` not NaN; a NaN `z` gives `lo`,
/// as `z.max(lo).min(hi)` does), written as compares so that it compiles
/// to plain min/max instructions, in the tile loop and in the picks alike.
#[inline(always)]
pub(crate) fn clamp_depth(z: f32, lo: f32, hi: f32) -> f32 {
    let z = if z > lo { z } else { lo };
    if z < hi {
        z
    } else {
        hi
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raster::rules::snap;
    use crate::test_util::Rng;

    fn win(x: f32, y: f32) -> WinVertex {
        WinVertex {
            x,
            y,
            z: 0.5,
            fx: snap(x) as i32,
            fy: snap(y) as i32,
        }
    }

    /// The two forms' sizes, which the documentation quotes.
    #[test]
    fn setup_record_sizes() {
        assert_eq!(std::mem::size_of::<TriSetup>(), 120);
        assert_eq!(std::mem::size_of::<SmallTri>(), 40);
    }

    /// The stepped spans (`spans_from`, the tile loop's) equal `span` row
    /// by row, from any first row, within any columns: on random triangles
    /// of every size (slivers, flat edges, ones running off the viewport)
    /// and every fill rule.
    #[test]
    fn stepped_spans_equal_spans() {
        let mut rng = Rng(0x5ba7_0000_0000_0013);
        let mut covered = 0;
        for i in 0..3000 {
            let size = [3.0, 20.0, 150.0, 900.0][i % 4];
            let c = (rng.range(-40.0, 360.0), rng.range(-40.0, 240.0));
            let mut v =
                [0, 1, 2].map(|_| win(c.0 + rng.range(-size, size), c.1 + rng.range(-size, size)));
            if i % 5 == 0 {
                // a flat edge
                v[1] = win(v[1].x, v[0].y);
            }
            let v = [&v[0], &v[1], &v[2]];
            for rule in FillRule::ALL {
                let Ok(t) = setup_edges(v, rule, CullMode::None, 320, 200, 7, 0) else {
                    continue;
                };
                let b = t.bbox;
                let j0 = b[1] - 3 + (i % 7) as i32;
                let (x0, x1) = [(b[0], b[2]), (b[0] + 5, b[2] - 9), (-50, 400)][i % 3];
                let mut rows = t.spans_from(j0);
                for j in j0..=b[3] + 3 {
                    let want = t.span(j, x0, x1);
                    assert_eq!(rows.next_span(&t, x0, x1), want, "row {j} of {t:?}");
                    covered += usize::from(want.0 <= want.1);
                }
            }
        }
        assert!(covered > 100_000, "{covered}");
    }

    /// Small triangles' masks cover exactly the pixels the edge functions
    /// cover, with bit-identical depths; bigger ones keep their edges.
    #[test]
    fn small_masks_equal_edge_functions() {
        let mut rng = Rng(0x5eed_0000_0000_0777);
        let (mut smalls, mut single) = (0, 0);
        // triangles of up to ten pixels, then sub-pixel ones (whose boxes
        // mostly hold one pixel centre)
        for spread in [5.0, 0.7] {
            for _ in 0..4000 {
                let c = (rng.range(-4.0, 300.0), rng.range(-4.0, 200.0));
                let d = |rng: &mut Rng| rng.range(-spread, spread);
                let v = [0, 1, 2].map(|_| win(c.0 + d(&mut rng), c.1 + d(&mut rng)));
                let v = [&v[0], &v[1], &v[2]];
                for rule in FillRule::ALL {
                    let Ok(e) = setup_edges(v, rule, CullMode::None, 320, 200, 7, 0) else {
                        assert!(setup::<false>(v, rule, CullMode::None, 320, 200, 7, 0).is_err());
                        assert!(setup::<true>(v, rule, CullMode::None, 320, 200, 7, 0).is_err());
                        continue;
                    };
                    let res = setup::<false>(v, rule, CullMode::None, 320, 200, 7, 0);
                    assert_eq!(res, setup::<true>(v, rule, CullMode::None, 320, 200, 7, 0));
                    match res {
                        Ok(SetupRecord::Small(s)) => {
                            smalls += 1;
                            single += i32::from(e.bbox[0] == e.bbox[2] && e.bbox[1] == e.bbox[3]);
                            // the f32 lanes and the plain i64 loop agree
                            assert_eq!(small_mask(&e), small_mask_i64(&e));
                            for j in e.bbox[1] - 2..=e.bbox[3] + 2 {
                                for i in e.bbox[0] - 2..=e.bbox[2] + 2 {
                                    assert_eq!(s.covers(i, j), e.covers(i, j), "({i},{j}) {e:?}");
                                    if s.covers(i, j) {
                                        assert_eq!(
                                            s.depth_at(i, j).to_bits(),
                                            e.depth_at(i, j).to_bits()
                                        );
                                    }
                                }
                                if (e.bbox[1]..=e.bbox[3]).contains(&j) {
                                    assert_eq!(s.span(j, 0, 319), e.span(j, e.bbox[0], e.bbox[2]));
                                }
                            }
                        }
                        Ok(SetupRecord::Big(t)) => assert_eq!(t, e),
                        Err(_) => {
                            // a box without any covered pixel centre
                            let b = e.bbox;
                            assert!((b[1]..=b[3]).all(|j| (b[0]..=b[2]).all(|i| !e.covers(i, j))));
                        }
                    }
                }
            }
        }
        assert!(smalls > 1000 && single > 500, "{smalls} {single}");
    }

    /// The mask box from bit tricks equals the one from scanning rows and
    /// columns, on random masks (sparse, dense, single bits) and the empty one.
    #[test]
    fn small_bbox_equals_a_scan_of_the_mask() {
        let mut rng = Rng(0x5eed_0000_0000_0b0c);
        let scan = |t: &SmallTri| {
            let (x0, y0) = (i32::from(t.x0), i32::from(t.y0));
            let rows: u32 =
                (0..SMALL_SIDE).fold(0, |a, r| a | (u32::from(t.row_bits(y0 + r) != 0) << r));
            let cols: u32 = (0..SMALL_SIDE).fold(0, |a, r| a | t.row_bits(y0 + r));
            let first = |m: u32| m.trailing_zeros() as i32;
            let last = |m: u32| 31 - m.leading_zeros() as i32;
            [
                x0 + first(cols),
                y0 + first(rows),
                x0 + last(cols),
                y0 + last(rows),
            ]
        };
        for i in 0..20_000u64 {
            let bits = rng.next_u64();
            let mask = match i % 4 {
                0 => bits,
                1 => bits & (bits >> 7) & (bits >> 13),
                2 => 1 << (i % 64),
                _ => (i % 3 == 0) as u64 * bits,
            };
            let t = SmallTri {
                mask,
                x0: (i % 300) as u16,
                y0: (i % 200) as u16,
                ..SmallTri::default()
            };
            assert_eq!(t.bbox(), scan(&t), "{mask:#x}");
        }
    }

    /// A huge triangle whose part inside the viewport is at most 8×8
    /// pixels is set up as a mask too (its box is clamped to the
    /// viewport); its edge deltas are large, and the mask is still exact.
    #[test]
    fn viewport_clipped_giant_triangles_make_exact_masks() {
        let far = 16_000.0;
        for (a, b) in [(5.5, 6.25), (7.9, 3.0), (2.0, 7.99)] {
            let v = [win(-far, -far), win(a, b), win(-far, b)];
            let v = [&v[0], &v[1], &v[2]];
            let e = setup_edges(v, FillRule::TopLeft, CullMode::None, 320, 200, 3, 0).unwrap();
            let Ok(SetupRecord::Small(s)) =
                setup::<false>(v, FillRule::TopLeft, CullMode::None, 320, 200, 3, 0)
            else {
                panic!("not a mask: {e:?}");
            };
            assert!(e.dx.iter().chain(&e.dy).any(|d| d.abs() > 1 << 21), "{e:?}");
            assert_eq!(small_mask(&e), small_mask_i64(&e));
            // some pixel covered, some not
            assert!(s.mask != 0 && s.mask != u64::MAX, "{:x}", s.mask);
            for j in 0..12 {
                for i in 0..12 {
                    assert_eq!(s.covers(i, j), e.covers(i, j), "({i},{j})");
                }
            }
        }
    }
}
