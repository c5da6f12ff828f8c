//! Selection beyond a single click: a pick radius
//! ([`Frame::nearest_covered`], [`Frame::pick_near`]), box and lasso
//! selection, visible-only or x-ray ([`Frame::select_rect`],
//! [`Frame::select_lasso`], [`SelectMode`]), and click-cycling through
//! everything under the cursor ([`PickCycle`]).
//!
//! Every test is exact integer arithmetic on the rasterizer's 1/256-pixel
//! lattice; the rules are documented on the public items.

use glam::Vec4;
use rayon::prelude::*;

use crate::frame::{Frame, NO_TRIANGLE};
use crate::pick::Hit;
use crate::raster::clip::{Guard, CLIP_MASK, FRUSTUM_MASK, OUT_INVALID};
use crate::raster::rules::{snap, snapped_area, SUBPIXEL_ONE, TILE_ORDER};
use crate::raster::setup::{Tri, TriSetup};
use crate::scene::{MeshId, Scene};

/// Lasso coordinates are clamped to ±this many pixels before snapping,
/// which keeps every product of the exact tests inside i128.
const LASSO_LIMIT_PX: f32 = 1_048_576.0;

/// Which triangles a region selection ([`Frame::select_rect`],
/// [`Frame::select_lasso`]) reports.
///
/// - [`SelectMode::Visible`]: a triangle is selected iff the ID buffer holds
///   it at a pixel of the region, i.e. one of its *visible* covered pixel
///   centres lies in the region.
/// - [`SelectMode::Through`] (x-ray): a triangle is selected iff
///   1. one of its covered pixel centres lies in the region, depth ignored
///      (exact: the rasterizer's own integer coverage of its set-up pieces,
///      over the tile bins the region touches; this includes every triangle
///      `Visible` selects), **or**
///   2. its snapped screen-space triangle (the geometry the rasterizer
///      fills, vertices on the 1/256-pixel lattice) overlaps the region with
///      positive area, even where it covers no pixel centre (sub-pixel
///      triangles, thin slivers). For a rectangle the region is the union of
///      its pixel squares, `[x0, x1 + 1] × [y0, y1 + 1]` in window
///      coordinates, and touching its border does not count. For a lasso:
///      an edge of the (snapped) lasso meets the open triangle, or the
///      triangle's centroid is inside the lasso (even-odd, as for pixel
///      centres); and the triangle overlaps the frame with positive area
///      (its overlap with the lasso itself may lie outside the frame). For a
///      degenerate lasso (an edge retraced back over itself) an edge of zero
///      width still counts. This part applies to triangles the renderer
///      drew unclipped: every vertex in front of the near plane and inside
///      the guard band, not all outside one frustum plane, non-zero snapped
///      area, kept by the frame's cull mode. A triangle with a vertex behind
///      the near plane (or beyond the guard band) is selected by its clipped
///      set-up pieces (part 1) only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SelectMode {
    /// Only what is visible: read from the ID buffer.
    #[default]
    Visible,
    /// X-ray: everything in the region, occluded or not.
    Through,
}

/// The result of a region selection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Meshes with at least one selected triangle, sorted, unique.
    pub meshes: Vec<MeshId>,
    /// Selected global triangle indices, sorted, unique.
    pub triangles: Vec<u32>,
    /// Covered pixels (ID buffer not background) in the region, in either mode.
    pub pixels: usize,
}

impl Selection {
    /// True when no triangle is selected.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// Is `mesh` among the selected meshes?
    #[must_use]
    pub fn contains_mesh(&self, mesh: MeshId) -> bool {
        self.meshes.binary_search(&mesh).is_ok()
    }

    /// Is global triangle `t` selected?
    #[must_use]
    pub fn contains_triangle(&self, t: u32) -> bool {
        self.triangles.binary_search(&t).is_ok()
    }
}

/// The covered pixel nearest to a cursor (see [`Frame::nearest_covered`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NearPixel {
    /// Pixel column.
    pub x: u32,
    /// Pixel row.
    pub y: u32,
    /// Global triangle index in the ID buffer at that pixel.
    pub triangle: u32,
    /// Euclidean distance between the cursor's and this pixel's centres.
    pub distance: f32,
}

/// Click-cycling through the meshes under a pixel.
///
/// The first click at a pixel returns the nearest mesh's hit; each further
/// click at the same pixel steps one mesh farther along the stack returned
/// by [`Frame::pick_stack`] (one entry per mesh, near to far), wrapping
/// after the farthest. A click at another pixel, or at the same pixel when
/// the stack there changed (a new frame, a moved mesh), starts again from
/// the nearest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PickCycle {
    pixel: Option<(i64, i64)>,
    stack: Vec<(MeshId, u32)>,
    index: usize,
}

impl PickCycle {
    /// A cycle with no previous click.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the previous clicks: the next click returns the nearest mesh.
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// The position in the current stack as (index, stack length), if any.
    #[must_use]
    pub fn position(&self) -> Option<(usize, usize)> {
        self.pixel.map(|_| (self.index, self.stack.len()))
    }

    /// A click at pixel (x, y): the hit of the next mesh in the stack under
    /// it (see [`PickCycle`]); `None` (and a reset) on background or outside
    /// the frame.
    pub fn click(&mut self, frame: &Frame, scene: &Scene, x: i64, y: i64) -> Option<Hit> {
        let hits = frame.pick_stack(scene, x, y);
        if hits.is_empty() {
            self.reset();
            return None;
        }
        let key: Vec<(MeshId, u32)> = hits.iter().map(|h| (h.mesh, h.global_triangle)).collect();
        if self.pixel == Some((x, y)) && self.stack == key {
            self.index = (self.index + 1) % key.len();
        } else {
            self.pixel = Some((x, y));
            self.stack = key;
            self.index = 0;
        }
        hits.into_iter().nth(self.index)
    }
}

/// A fixed-size bitset (parallel phases each fill their own and OR them).
#[derive(Clone)]
struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    fn new(len: usize) -> Self {
        Self {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    #[inline]
    fn get(&self, i: usize) -> bool {
        i < self.len && (self.words[i >> 6] >> (i & 63)) & 1 != 0
    }

    /// Sets bit `i`; true iff it was clear (and in range).
    #[inline]
    fn insert(&mut self, i: usize) -> bool {
        if i >= self.len {
            return false;
        }
        let (w, b) = (i >> 6, 1u64 << (i & 63));
        let new = self.words[w] & b == 0;
        self.words[w] |= b;
        new
    }

    fn or(mut self, other: Self) -> Self {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
        self
    }
}

/// A region in pixels: spans per row.
enum Region {
    /// Inclusive pixel rectangle inside the frame.
    Rect([i32; 4]),
    Lasso(Lasso),
}

/// A snapped lasso and its pixel spans.
struct Lasso {
    /// Snapped vertices (1/256 px, pixel centre (i, j) at (256 i, 256 j)).
    verts: Vec<[i64; 2]>,
    /// Snapped bounds of the vertices: x0, y0, x1, y1.
    bounds: [i64; 4],
    /// Spans (row, lo, hi), sorted by row then lo, inside the frame.
    spans: Vec<(i32, i32, i32)>,
    /// First row of `row_start`.
    j0: i32,
    /// `spans[row_start[j - j0] .. row_start[j - j0 + 1]]` are row j's spans.
    row_start: Vec<usize>,
    /// Pixel bounds of all spans, if any.
    bbox: Option<[i32; 4]>,
}

#[inline]
fn ceil_div(n: i128, d: i128) -> i128 {
    -((-n).div_euclid(d))
}

impl Lasso {
    fn new(polygon: &[[f32; 2]], width: u32, height: u32) -> Option<Self> {
        if polygon.len() < 3 || polygon.iter().flatten().any(|c| !c.is_finite()) {
            return None;
        }
        let verts: Vec<[i64; 2]> = polygon
            .iter()
            .map(|p| p.map(|c| snap(c.clamp(-LASSO_LIMIT_PX, LASSO_LIMIT_PX))))
            .collect();
        let mut bounds = [i64::MAX, i64::MAX, i64::MIN, i64::MIN];
        for v in &verts {
            bounds = [
                bounds[0].min(v[0]),
                bounds[1].min(v[1]),
                bounds[2].max(v[0]),
                bounds[3].max(v[1]),
            ];
        }
        // Crossings of each pixel-centre row with the edges: an edge counts
        // for row Y when lo.y <= Y < hi.y, and pixel i lies left of it iff
        // i < ceil(xint / 256). Inside = odd number of crossings to the right.
        let (w, h) = (i128::from(width), i128::from(height));
        let one = i128::from(SUBPIXEL_ONE);
        let mut cross: Vec<(i32, i32)> = Vec::new();
        for k in 0..verts.len() {
            let (a, b) = (verts[k], verts[(k + 1) % verts.len()]);
            if a[1] == b[1] {
                continue;
            }
            let (lo, hi) = if a[1] < b[1] { (a, b) } else { (b, a) };
            let (lx, ly, hx, hy) = (
                i128::from(lo[0]),
                i128::from(lo[1]),
                i128::from(hi[0]),
                i128::from(hi[1]),
            );
            let d = hy - ly;
            let j_first = ceil_div(ly, one).max(0);
            let j_last = (ceil_div(hy, one) - 1).min(h - 1);
            let mut j = j_first;
            while j <= j_last {
                let n = lx * d + (one * j - ly) * (hx - lx);
                let t = ceil_div(n, one * d).clamp(0, w);
                cross.push((j as i32, t as i32));
                j += 1;
            }
        }
        cross.sort_unstable();
        let mut spans = Vec::new();
        let mut k = 0;
        while k < cross.len() {
            let j = cross[k].0;
            let mut e = k;
            while e < cross.len() && cross[e].0 == j {
                e += 1;
            }
            let mut p = k;
            while p + 1 < e {
                let (lo, hi) = (cross[p].1, cross[p + 1].1 - 1);
                if lo <= hi {
                    spans.push((j, lo, hi));
                }
                p += 2;
            }
            k = e;
        }
        let (mut j0, mut row_start, mut bbox) = (0, vec![0], None);
        if let (Some(first), Some(last)) = (spans.first(), spans.last()) {
            j0 = first.0;
            let rows = (last.0 - j0 + 1) as usize;
            row_start = vec![0; rows + 1];
            for s in &spans {
                row_start[(s.0 - j0) as usize + 1] += 1;
            }
            for r in 0..rows {
                row_start[r + 1] += row_start[r];
            }
            let x0 = spans.iter().map(|s| s.1).min().unwrap_or(0);
            let x1 = spans.iter().map(|s| s.2).max().unwrap_or(0);
            bbox = Some([x0, first.0, x1, last.0]);
        }
        Some(Self {
            verts,
            bounds,
            spans,
            j0,
            row_start,
            bbox,
        })
    }

    /// Row j's spans.
    fn row(&self, j: i32) -> &[(i32, i32, i32)] {
        let r = j - self.j0;
        if r < 0 || r as usize + 1 >= self.row_start.len() {
            return &[];
        }
        &self.spans[self.row_start[r as usize]..self.row_start[r as usize + 1]]
    }
}

/// Even-odd test of the point `(x, y) / scale` against snapped `verts`, with
/// the same boundary rule as the pixel spans.
fn inside_even_odd(x: i128, y: i128, verts: &[[i64; 2]], scale: i128) -> bool {
    let mut inside = false;
    for k in 0..verts.len() {
        let (a, b) = (verts[k], verts[(k + 1) % verts.len()]);
        let (ay, by) = (i128::from(a[1]) * scale, i128::from(b[1]) * scale);
        if (ay > y) == (by > y) {
            continue;
        }
        let (lo, hi) = if ay < by { (a, b) } else { (b, a) };
        let (lx, ly) = (i128::from(lo[0]) * scale, i128::from(lo[1]) * scale);
        let (hx, hy) = (i128::from(hi[0]) * scale, i128::from(hi[1]) * scale);
        if (x - lx) * (hy - ly) < (y - ly) * (hx - lx) {
            inside = !inside;
        }
    }
    inside
}

/// Does the set-up triangle cover a pixel centre of row j within [xa, xb]?
#[inline]
fn row_covers(t: Tri<'_>, j: i32, xa: i32, xb: i32) -> bool {
    match t {
        Tri::Big(t) => row_covers_big(t, j, xa, xb),
        Tri::Small(t) => {
            let (lo, hi) = t.span(j, xa, xb);
            lo <= hi
        }
    }
}

#[inline]
fn row_covers_big(t: &TriSetup, j: i32, xa: i32, xb: i32) -> bool {
    if xb - xa < 32 {
        // step the edge functions along the row: no divisions
        let (jj, ii) = (i64::from(j), i64::from(xa));
        let mut e: [i64; 3] = std::array::from_fn(|k| t.dx[k] * jj - t.dy[k] * ii + t.c[k]);
        for _ in xa..=xb {
            if (e[0] | e[1] | e[2]) >= 0 {
                return true;
            }
            for (e, dy) in e.iter_mut().zip(t.dy) {
                *e -= dy;
            }
        }
        false
    } else {
        let (lo, hi) = t.span(j, xa, xb);
        lo <= hi
    }
}

/// Does the set-up triangle cover a pixel centre of the rectangle? Tries
/// the middle row first (where almost every non-sliver triangle is).
fn covers_rect(t: Tri<'_>, r: [i32; 4]) -> bool {
    let bbox = t.bbox();
    let xa = bbox[0].max(r[0]);
    let xb = bbox[2].min(r[2]);
    let ya = bbox[1].max(r[1]);
    let yb = bbox[3].min(r[3]);
    if xa > xb || ya > yb {
        return false;
    }
    let mid = ya + (yb - ya) / 2;
    row_covers(t, mid, xa, xb) || (ya..=yb).any(|j| j != mid && row_covers(t, j, xa, xb))
}

/// Does the set-up triangle cover a pixel centre inside the lasso?
fn covers_lasso(t: Tri<'_>, l: &Lasso) -> bool {
    let Some(b) = l.bbox else { return false };
    let tb = t.bbox();
    let ya = tb[1].max(b[1]);
    let yb = tb[3].min(b[3]);
    for j in ya..=yb {
        let row = l.row(j);
        if row.is_empty() {
            continue;
        }
        let (lo, hi) = t.span(j, tb[0].max(b[0]), tb[2].min(b[2]));
        if lo > hi {
            continue;
        }
        // first span ending at or after lo
        let k = row.partition_point(|s| s.2 < lo);
        if k < row.len() && row[k].1 <= hi {
            return true;
        }
    }
    false
}

/// Positive-area overlap of a positively oriented snapped triangle and a
/// closed box `[x0, x1] × [y0, y1]` (snapped units), by separating axes.
fn tri_overlaps_box(p: &[[i64; 2]; 3], b: [i64; 4]) -> bool {
    let minx = p[0][0].min(p[1][0]).min(p[2][0]);
    let maxx = p[0][0].max(p[1][0]).max(p[2][0]);
    let miny = p[0][1].min(p[1][1]).min(p[2][1]);
    let maxy = p[0][1].max(p[1][1]).max(p[2][1]);
    if maxx <= b[0] || minx >= b[2] || maxy <= b[1] || miny >= b[3] {
        return false;
    }
    (0..3).all(|k| {
        let (a, c) = (p[k], p[(k + 1) % 3]);
        let (dx, dy) = (c[0] - a[0], c[1] - a[1]);
        // the box corner where e = dx*(y-ay) - dy*(x-ax) is largest
        let y = if dx > 0 { b[3] } else { b[1] };
        let x = if dy > 0 { b[0] } else { b[2] };
        dx * (y - a[1]) - dy * (x - a[0]) > 0
    })
}

/// Does the closed segment a–b meet the open, positively oriented triangle?
fn segment_meets_open_tri(a: [i64; 2], b: [i64; 2], p: &[[i64; 2]; 3]) -> bool {
    // t in [0, 1] with e_k(a + t (b - a)) > 0 for every edge k
    let mut lo: Option<(i128, i128)> = None; // t > n / d
    let mut hi: Option<(i128, i128)> = None; // t < n / d
    let less = |x: (i128, i128), y: (i128, i128)| x.0 * y.1 < y.0 * x.1;
    for k in 0..3 {
        let (u, v) = (p[k], p[(k + 1) % 3]);
        let (dx, dy) = (i128::from(v[0] - u[0]), i128::from(v[1] - u[1]));
        let e = |q: [i64; 2]| {
            dx * (i128::from(q[1]) - i128::from(u[1])) - dy * (i128::from(q[0]) - i128::from(u[0]))
        };
        let (ea, eb) = (e(a), e(b));
        match (ea > 0, eb > 0) {
            (true, true) => {}
            (false, false) => return false,
            (true, false) => {
                let f = (ea, ea - eb);
                if hi.is_none_or(|h| less(f, h)) {
                    hi = Some(f);
                }
            }
            (false, true) => {
                let f = (-ea, eb - ea);
                if lo.is_none_or(|l| less(l, f)) {
                    lo = Some(f);
                }
            }
        }
    }
    match (lo, hi) {
        (Some(l), Some(h)) => less(l, h),
        _ => true,
    }
}

/// Positive-area overlap of a positively oriented snapped triangle and the
/// lasso (assuming a non-degenerate lasso; see [`SelectMode`]).
fn tri_overlaps_lasso(p: &[[i64; 2]; 3], l: &Lasso) -> bool {
    let minx = p[0][0].min(p[1][0]).min(p[2][0]);
    let maxx = p[0][0].max(p[1][0]).max(p[2][0]);
    let miny = p[0][1].min(p[1][1]).min(p[2][1]);
    let maxy = p[0][1].max(p[1][1]).max(p[2][1]);
    if maxx <= l.bounds[0] || minx >= l.bounds[2] || maxy <= l.bounds[1] || miny >= l.bounds[3] {
        return false;
    }
    let n = l.verts.len();
    for k in 0..n {
        let (a, b) = (l.verts[k], l.verts[(k + 1) % n]);
        if a[0].max(b[0]) <= minx
            || a[0].min(b[0]) >= maxx
            || a[1].max(b[1]) <= miny
            || a[1].min(b[1]) >= maxy
        {
            continue;
        }
        if segment_meets_open_tri(a, b, p) {
            return true;
        }
    }
    // no lasso edge enters the open triangle: it is all inside or all outside
    let gx = i128::from(p[0][0]) + i128::from(p[1][0]) + i128::from(p[2][0]);
    let gy = i128::from(p[0][1]) + i128::from(p[1][1]) + i128::from(p[2][1]);
    inside_even_odd(gx, gy, &l.verts, 3)
}

impl Frame {
    /// The covered pixel (ID buffer) nearest to pixel (x, y) within
    /// `radius_px`, measured between pixel centres; the pixel itself when
    /// it is covered. Ties: smallest distance, then smallest `y`, then
    /// smallest `x`. (x, y) may lie outside the frame. `None` when nothing
    /// is covered within the radius, or for a negative or NaN radius.
    #[must_use]
    pub fn nearest_covered(&self, x: i64, y: i64, radius_px: f32) -> Option<NearPixel> {
        if radius_px.is_nan() || radius_px < 0.0 {
            return None;
        }
        let rr = f64::from(radius_px) * f64::from(radius_px);
        let (x, y) = (i128::from(x), i128::from(y));
        let (w, h) = (i128::from(self.width), i128::from(self.height));
        // Chebyshev distances from the cursor to the nearest and farthest frame pixels
        let out_x = (-x).max(x - (w - 1)).max(0);
        let out_y = (-y).max(y - (h - 1)).max(0);
        let r_first = out_x.max(out_y);
        let far = x
            .abs()
            .max((x - (w - 1)).abs())
            .max(y.abs())
            .max((y - (h - 1)).abs());
        let r_last = far.min(f64::from(radius_px).min(1e30).floor() as i128);
        // best: (squared distance, y, x, triangle); u128 holds any square sum
        let mut best: Option<(u128, i128, i128, u32)> = None;
        let consider = |px: i128, py: i128, best: &mut Option<(u128, i128, i128, u32)>| {
            let (dx, dy) = ((px - x).unsigned_abs(), (py - y).unsigned_abs());
            let d2 = dx * dx + dy * dy;
            if d2 as f64 > rr {
                return;
            }
            let Some(t) = self.triangle_at(px as i64, py as i64) else {
                return;
            };
            let cand = (d2, py, px, t);
            if best.is_none_or(|b| (cand.0, cand.1, cand.2) < (b.0, b.1, b.2)) {
                *best = Some(cand);
            }
        };
        let mut r = r_first;
        while r <= r_last {
            let ru = r.unsigned_abs();
            if best.is_some_and(|b| ru * ru > b.0) {
                break;
            }
            let (x0, x1) = ((x - r).max(0), (x + r).min(w - 1));
            let (y0, y1) = ((y - r).max(0), (y + r).min(h - 1));
            if r == 0 {
                if x0 <= x1 && y0 <= y1 {
                    consider(x, y, &mut best);
                }
            } else {
                // top and bottom rows
                for py in [y - r, y + r] {
                    if (0..h).contains(&py) {
                        for px in x0..=x1 {
                            consider(px, py, &mut best);
                        }
                    }
                }
                // left and right columns without the corners
                let (cy0, cy1) = ((y - r + 1).max(0), (y + r - 1).min(h - 1));
                for px in [x - r, x + r] {
                    if (0..w).contains(&px) {
                        for py in cy0..=cy1 {
                            consider(px, py, &mut best);
                        }
                    }
                }
            }
            r += 1;
        }
        best.map(|(d2, py, px, t)| NearPixel {
            x: px as u32,
            y: py as u32,
            triangle: t,
            distance: (d2 as f64).sqrt() as f32,
        })
    }

    /// What is under pixel (x, y), or else at the nearest covered pixel
    /// within `radius_px` (see [`Frame::nearest_covered`]): the hit at that
    /// pixel, as [`Frame::pick`] returns it there.
    #[must_use]
    pub fn pick_near(&self, scene: &Scene, x: i64, y: i64, radius_px: f32) -> Option<Hit> {
        if let Some(hit) = self.pick(scene, x, y) {
            return Some(hit);
        }
        let near = self.nearest_covered(x, y, radius_px)?;
        self.pick(scene, i64::from(near.x), i64::from(near.y))
    }

    /// The meshes under pixel (x, y), near to far: [`Frame::pick_all`] with
    /// only the first (nearest) hit of each mesh kept.
    #[must_use]
    pub fn pick_stack(&self, scene: &Scene, x: i64, y: i64) -> Vec<Hit> {
        let mut seen = Vec::new();
        self.pick_all(scene, x, y)
            .into_iter()
            .filter(|h| {
                let new = !seen.contains(&h.mesh);
                seen.push(h.mesh);
                new
            })
            .collect()
    }

    /// The triangles and meshes in the inclusive pixel rectangle spanned by
    /// pixels (x0, y0) and (x1, y1): corners in any order, clamped to the
    /// frame (a rectangle entirely outside selects nothing). `Visible`
    /// reads the ID buffer; `Through` also finds occluded and sub-pixel
    /// triangles; the exact rules are on [`SelectMode`].
    #[must_use]
    pub fn select_rect(
        &self,
        scene: &Scene,
        x0: i64,
        y0: i64,
        x1: i64,
        y1: i64,
        mode: SelectMode,
    ) -> Selection {
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        let (ax, bx) = (x0.min(x1).max(0), x0.max(x1).min(w - 1));
        let (ay, by) = (y0.min(y1).max(0), y0.max(y1).min(h - 1));
        if ax > bx || ay > by {
            return Selection::default();
        }
        let r = [ax as i32, ay as i32, bx as i32, by as i32];
        self.select_region(scene, &Region::Rect(r), mode)
    }

    /// The triangles and meshes inside the lasso `polygon`, a closed
    /// polygon in window coordinates (pixels, y down, pixel centres at +0.5;
    /// the last vertex connects back to the first; self-intersections
    /// allowed).
    ///
    /// The vertices are clamped to ±2^20 px and snapped to the rasterizer's
    /// 1/256-pixel lattice exactly like mesh vertices, so every test is exact
    /// integer arithmetic. A pixel belongs to the lasso when its centre is
    /// inside by the **even-odd rule**. A centre exactly on the boundary is
    /// inside iff the points just to its right are inside (on a horizontal
    /// edge: just below it), precisely iff `(x + ε, y + ε²)` is inside for
    /// every small `ε > 0`. So two lassos that share an edge never both take a
    /// centre on it, and a square lasso through (2.5, 2.5) and (6.5, 6.5)
    /// takes pixels 2..=5 in x and y (left and top in, right and bottom out).
    /// Fewer than three vertices or a non-finite coordinate select nothing.
    /// The modes are as for rectangles ([`SelectMode`]).
    #[must_use]
    pub fn select_lasso(&self, scene: &Scene, polygon: &[[f32; 2]], mode: SelectMode) -> Selection {
        match Lasso::new(polygon, self.width, self.height) {
            Some(l) => self.select_region(scene, &Region::Lasso(l), mode),
            None => Selection::default(),
        }
    }

    fn select_region(&self, scene: &Scene, region: &Region, mode: SelectMode) -> Selection {
        let n = scene.triangle_count() as usize;
        let rect_spans: Vec<(i32, i32, i32)>;
        let spans = match region {
            Region::Rect(r) => {
                rect_spans = (r[1]..=r[3]).map(|j| (j, r[0], r[2])).collect();
                &rect_spans
            }
            Region::Lasso(l) => &l.spans,
        };
        // Visible: one pass over the region of the ID buffer, bands in parallel
        let w = self.width as usize;
        let (mut marked, pixels) = spans
            .par_chunks(16)
            .fold(
                || (Bits::new(n), 0usize),
                |(mut bits, mut pixels), band| {
                    for &(j, lo, hi) in band {
                        let base = j as usize * w;
                        if let Some(row) = self.ids.get(base + lo as usize..=base + hi as usize) {
                            pixels += scan_row(row, &mut bits);
                        }
                    }
                    (bits, pixels)
                },
            )
            .reduce(|| (Bits::new(n), 0), |a, b| (a.0.or(b.0), a.1 + b.1));
        if mode == SelectMode::Through {
            marked = self.mark_covering(region, marked);
            self.mark_overlapping(scene, region, &mut marked);
        }
        selection(scene, &marked, pixels)
    }

    /// Through, part 1: set-up pieces covering a pixel centre of the region,
    /// over the bins of the tiles the region touches (each piece tested
    /// once; chunks in parallel).
    fn mark_covering(&self, region: &Region, marked: Bits) -> Bits {
        let bbox = match region {
            Region::Rect(r) => *r,
            Region::Lasso(l) => match l.bbox {
                Some(b) => b,
                None => return marked,
            },
        };
        let tiles_x = self.width.div_ceil(1 << TILE_ORDER) as usize;
        let (tx0, tx1) = (
            (bbox[0] >> TILE_ORDER) as usize,
            (bbox[2] >> TILE_ORDER) as usize,
        );
        let (ty0, ty1) = (
            (bbox[1] >> TILE_ORDER) as usize,
            (bbox[3] >> TILE_ORDER) as usize,
        );
        let n = marked.len;
        let found = self
            .chunks
            .par_iter()
            .fold(
                || Bits::new(n),
                |mut found, chunk| {
                    let mut tested = Bits::new(chunk.len());
                    for ty in ty0..=ty1 {
                        for tx in tx0..=tx1 {
                            let Some(bin) = chunk.bins.get(ty * tiles_x + tx) else {
                                continue;
                            };
                            for &e in bin {
                                if !tested.insert(chunk.slot(e)) {
                                    continue;
                                }
                                let Some(t) = chunk.get(e) else {
                                    continue;
                                };
                                let id = t.id() as usize;
                                if marked.get(id) || found.get(id) {
                                    continue;
                                }
                                let hit = match region {
                                    Region::Rect(r) => covers_rect(t, *r),
                                    Region::Lasso(l) => covers_lasso(t, l),
                                };
                                if hit {
                                    found.insert(id);
                                }
                            }
                        }
                    }
                    found
                },
            )
            .reduce(|| Bits::new(n), Bits::or);
        marked.or(found)
    }

    /// Through, part 2: unclipped triangles whose snapped screen-space
    /// triangle overlaps the region with positive area.
    fn mark_overlapping(&self, scene: &Scene, region: &Region, marked: &mut Bits) {
        let Some(cam) = self.camera.as_ref() else {
            return;
        };
        let one = SUBPIXEL_ONE;
        let half = one / 2;
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        let frame_box = [-half, -half, one * w - half, one * h - half];
        // the region in snapped units (for a lasso: its bounds within the frame)
        let region_box = match region {
            Region::Rect(r) => [
                one * i64::from(r[0]) - half,
                one * i64::from(r[1]) - half,
                one * i64::from(r[2]) + half,
                one * i64::from(r[3]) + half,
            ],
            Region::Lasso(l) => [
                l.bounds[0].max(frame_box[0]),
                l.bounds[1].max(frame_box[1]),
                l.bounds[2].min(frame_box[2]),
                l.bounds[3].min(frame_box[3]),
            ],
        };
        if region_box[0] >= region_box[2] || region_box[1] >= region_box[3] {
            return;
        }
        // the same box in window coordinates, one pixel wider, for a cheap
        // f32 pre-test on the stored screen vertices (exact for every
        // triangle this pass may select: their stored positions are real)
        let win = region_box.map(|v| (v as f32) / one as f32 + 0.5);
        let win = [win[0] - 1.0, win[1] - 1.0, win[2] + 1.0, win[3] + 1.0];
        let guard = Guard::new(self.width, self.height);
        let vp = cam.view_proj();
        let offs = scene.triangle_offsets();
        // no outcode uses every bit (an invalid vertex is OUT_INVALID alone)
        const NOT_YET: u16 = u16::MAX;
        let mut codes: Vec<u16> = Vec::new();
        for (mi, mesh) in scene.meshes().iter().enumerate() {
            let (Some(world), Some(&base), Some(&first)) = (
                self.worlds.get(mi),
                self.vertex_offsets.get(mi),
                offs.get(mi),
            ) else {
                continue;
            };
            let base = base as usize;
            let Some(screen) = self.vertices.get(base..base + mesh.positions().len()) else {
                continue;
            };
            let mvp = vp * *world;
            let positions = mesh.positions();
            // outcodes, recomputed lazily with the renderer's own operations
            codes.clear();
            codes.resize(positions.len(), NOT_YET);
            let mut code = |i: u32| -> u16 {
                let i = i as usize;
                if codes[i] == NOT_YET {
                    let p = positions[i];
                    codes[i] = guard.outcode(mvp * Vec4::new(p.x, p.y, p.z, 1.0));
                }
                codes[i]
            };
            for (t, tri) in mesh.triangles().iter().enumerate() {
                let g = first as usize + t;
                if marked.get(g) {
                    continue;
                }
                let (Some(a), Some(b), Some(c)) = (
                    screen.get(tri[0] as usize),
                    screen.get(tri[1] as usize),
                    screen.get(tri[2] as usize),
                ) else {
                    continue;
                };
                let s = [a, b, c];
                if s.iter().any(|v| v.w.is_nan() || v.w <= 0.0)
                    || s.iter().all(|v| v.x < win[0])
                    || s.iter().all(|v| v.x > win[2])
                    || s.iter().all(|v| v.y < win[1])
                    || s.iter().all(|v| v.y > win[3])
                {
                    continue;
                }
                let c = tri.map(&mut code);
                let (or, and) = (c[0] | c[1] | c[2], c[0] & c[1] & c[2]);
                if or & (CLIP_MASK | OUT_INVALID) != 0 || and & FRUSTUM_MASK != 0 {
                    continue;
                }
                let mut p = s.map(|v| [snap(v.x), snap(v.y)]);
                let area = snapped_area(p);
                if area == 0 || !self.cull.keeps(area < 0) {
                    continue;
                }
                if area < 0 {
                    p.swap(1, 2);
                }
                let hit = match region {
                    Region::Rect(_) => tri_overlaps_box(&p, region_box),
                    Region::Lasso(l) => {
                        tri_overlaps_lasso(&p, l) && tri_overlaps_box(&p, frame_box)
                    }
                };
                if hit {
                    marked.insert(g);
                }
            }
        }
    }
}

/// Counts the covered pixels of a row of the ID buffer and marks their
/// triangles: only where the ID changes from the previous pixel (a mask
/// built 16 pixels at a time, which the compiler vectorizes).
#[inline]
fn scan_row(row: &[u32], marked: &mut Bits) -> usize {
    let pixels = row.iter().filter(|&&id| id != NO_TRIANGLE).count();
    let mut mark = |id: u32| {
        if id != NO_TRIANGLE {
            marked.insert(id as usize - 1);
        }
    };
    let Some(&first) = row.first() else {
        return 0;
    };
    mark(first);
    let (prev, cur) = (&row[..row.len() - 1], &row[1..]);
    let mut pc = prev.chunks_exact(16).zip(cur.chunks_exact(16));
    for (p, c) in &mut pc {
        let mut m = 0u32;
        for q in 0..16 {
            m |= u32::from(p[q] != c[q]) << q;
        }
        while m != 0 {
            mark(c[m.trailing_zeros() as usize]);
            m &= m - 1;
        }
    }
    let done = prev.len() / 16 * 16;
    for (p, c) in prev[done..].iter().zip(&cur[done..]) {
        if p != c {
            mark(*c);
        }
    }
    pixels
}

/// Sorted triangles and meshes of a bitset over global triangles.
fn selection(scene: &Scene, marked: &Bits, pixels: usize) -> Selection {
    let words = &marked.words;
    let count: usize = words.iter().map(|w| w.count_ones() as usize).sum();
    let mut triangles = Vec::with_capacity(count);
    for (k, &w) in words.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            triangles.push((k * 64) as u32 + w.trailing_zeros());
            w &= w - 1;
        }
    }
    // meshes: walk the offsets along the sorted triangles, skipping whole meshes
    let offs = scene.triangle_offsets();
    let mut meshes = Vec::new();
    let mut k = 0;
    for m in 0..offs.len().saturating_sub(1) {
        let end = offs[m + 1];
        let start = k;
        k += triangles[k..].partition_point(|&t| t < end);
        if k > start {
            meshes.push(m as MeshId);
        }
    }
    Selection {
        meshes,
        triangles,
        pixels,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn range(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
        }
    }

    #[test]
    fn lasso_spans_equal_pointwise_even_odd() {
        let mut rng = Rng(7);
        let (w, h) = (37u32, 23u32);
        for case in 0..300 {
            let n = 3 + (rng.next() % 9) as usize;
            let poly: Vec<[f32; 2]> = (0..n)
                .map(|_| {
                    if case % 3 == 0 {
                        // half-integer and integer coordinates: centres on edges
                        let q = |r: &mut Rng, m: u32| {
                            (r.next() % (2 * m as u64 + 8)) as f32 * 0.5 - 2.0
                        };
                        [q(&mut rng, w), q(&mut rng, h)]
                    } else {
                        [
                            rng.range(-5.0, w as f32 + 5.0),
                            rng.range(-5.0, h as f32 + 5.0),
                        ]
                    }
                })
                .collect();
            let l = Lasso::new(&poly, w, h).unwrap();
            for j in 0..h as i32 {
                for i in 0..w as i32 {
                    let want =
                        inside_even_odd(i128::from(i) * 256, i128::from(j) * 256, &l.verts, 1);
                    let got = l.row(j).iter().any(|s| s.1 <= i && i <= s.2);
                    assert_eq!(got, want, "case {case} pixel ({i},{j}) poly {poly:?}");
                }
            }
        }
    }

    #[test]
    fn boundary_rule_left_top_in_right_bottom_out() {
        // square with corners on pixel centres 2.5 .. 6.5
        let sq = [[2.5, 2.5], [6.5, 2.5], [6.5, 6.5], [2.5, 6.5]];
        let l = Lasso::new(&sq, 10, 10).unwrap();
        for j in 0..10 {
            for i in 0..10 {
                let got = l.row(j).iter().any(|s| s.1 <= i && i <= s.2);
                assert_eq!(got, (2..6).contains(&i) && (2..6).contains(&j), "({i},{j})");
            }
        }
        // the same square traversed the other way round
        let rev: Vec<_> = sq.iter().rev().copied().collect();
        let l2 = Lasso::new(&rev, 10, 10).unwrap();
        assert_eq!(l.spans, l2.spans);
    }

    #[test]
    fn box_overlap_is_positive_area() {
        let t = [[0, 0], [256, 0], [0, 256]];
        let oriented = if snapped_area(t) > 0 {
            t
        } else {
            [t[0], t[2], t[1]]
        };
        assert!(tri_overlaps_box(&oriented, [100, 100, 500, 500]));
        // touching the hypotenuse's corner region only
        assert!(!tri_overlaps_box(&oriented, [128, 128, 500, 500]));
        assert!(!tri_overlaps_box(&oriented, [256, 0, 500, 500]));
        assert!(!tri_overlaps_box(&oriented, [-100, -100, 0, 0]));
        assert!(tri_overlaps_box(&oriented, [-100, -100, 1, 1]));
    }

    #[test]
    fn segment_against_open_triangle() {
        let t = [[0, 0], [0, 300], [300, 0]];
        let t = if snapped_area(t) > 0 {
            t
        } else {
            [t[0], t[2], t[1]]
        };
        assert!(segment_meets_open_tri([-10, 10], [10, 10], &t));
        assert!(!segment_meets_open_tri([-10, 0], [400, 0], &t)); // along an edge
        assert!(!segment_meets_open_tri([150, 150], [400, -100], &t)); // on the hypotenuse
        assert!(segment_meets_open_tri([10, 10], [20, 20], &t)); // inside
        assert!(!segment_meets_open_tri([-10, -10], [-20, 400], &t));
    }
}
