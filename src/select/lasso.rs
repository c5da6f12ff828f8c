//! The exact integer lasso: a closed polygon snapped to the rasterizer's
//! 1/256-pixel lattice, its pixel spans by the even-odd rule, and the
//! pointwise even-odd test that the spans agree with.

use crate::raster::rules::{snap, SUBPIXEL_ONE};

/// Lasso coordinates are clamped to ±this many pixels before snapping,
/// which keeps every product of the exact tests inside i128.
const LASSO_LIMIT_PX: f32 = 1_048_576.0;

/// A snapped lasso and its pixel spans.
pub(super) struct Lasso {
    /// Snapped vertices (1/256 px, pixel centre (i, j) at (256 i, 256 j)).
    pub(super) verts: Vec<[i64; 2]>,
    /// Snapped bounds of the vertices: x0, y0, x1, y1.
    pub(super) snapped_bounds: [i64; 4],
    /// Spans (row, lo, hi): pixels lo..=hi of the row are inside. Sorted by
    /// row then lo, inside the frame.
    pub(super) spans: Vec<(i32, i32, i32)>,
    /// The row of the first span (the row `row_start[0]` stands for).
    first_row: i32,
    /// `spans[row_start[j - first_row] .. row_start[j - first_row + 1]]`
    /// are row j's spans.
    row_start: Vec<usize>,
    /// Pixel bounds of all spans (x0, y0, x1, y1, inclusive), if any.
    pub(super) pixel_bounds: Option<[i32; 4]>,
}

/// `ceil(n / d)` for `d > 0`, rounding toward +∞ for negative `n` too.
#[inline]
fn ceil_div(n: i128, d: i128) -> i128 {
    -((-n).div_euclid(d))
}

impl Lasso {
    /// Snaps `polygon` (window coordinates, pixels) and finds its spans in a
    /// `width` × `height` frame; `None` for fewer than three vertices or a
    /// non-finite coordinate.
    pub(super) fn new(polygon: &[[f32; 2]], width: u32, height: u32) -> Option<Self> {
        if polygon.len() < 3 || polygon.iter().flatten().any(|c| !c.is_finite()) {
            return None;
        }
        let verts: Vec<[i64; 2]> = polygon
            .iter()
            .map(|p| p.map(|c| snap(c.clamp(-LASSO_LIMIT_PX, LASSO_LIMIT_PX))))
            .collect();
        let mut snapped_bounds = [i64::MAX, i64::MAX, i64::MIN, i64::MIN];
        for v in &verts {
            snapped_bounds = [
                snapped_bounds[0].min(v[0]),
                snapped_bounds[1].min(v[1]),
                snapped_bounds[2].max(v[0]),
                snapped_bounds[3].max(v[1]),
            ];
        }
        // Crossings of each pixel-centre row with the edges: an edge counts
        // for row Y when lo.y <= Y < hi.y, and pixel i lies left of it iff
        // i < ceil(xint / 256). Inside = odd number of crossings to the right.
        let (w, h) = (i128::from(width), i128::from(height));
        let one = i128::from(SUBPIXEL_ONE);
        // (row, first pixel right of the crossing)
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
        let (mut first_row, mut row_start, mut pixel_bounds) = (0, vec![0], None);
        if let (Some(first), Some(last)) = (spans.first(), spans.last()) {
            first_row = first.0;
            let rows = (last.0 - first_row + 1) as usize;
            row_start = vec![0; rows + 1];
            for s in &spans {
                row_start[(s.0 - first_row) as usize + 1] += 1;
            }
            for r in 0..rows {
                row_start[r + 1] += row_start[r];
            }
            let x0 = spans.iter().map(|s| s.1).min().unwrap_or(0);
            let x1 = spans.iter().map(|s| s.2).max().unwrap_or(0);
            pixel_bounds = Some([x0, first.0, x1, last.0]);
        }
        Some(Self {
            verts,
            snapped_bounds,
            spans,
            first_row,
            row_start,
            pixel_bounds,
        })
    }

    /// Row j's spans.
    #[inline]
    pub(super) fn row(&self, j: i32) -> &[(i32, i32, i32)] {
        let r = j - self.first_row;
        if r < 0 || r as usize + 1 >= self.row_start.len() {
            return &[];
        }
        &self.spans[self.row_start[r as usize]..self.row_start[r as usize + 1]]
    }
}

/// Even-odd test of the point `(x, y) / scale` against snapped `verts`, with
/// the same boundary rule as the pixel spans. Scaling the vertices instead
/// of dividing the point keeps a point between lattice points (a centroid,
/// `scale` 3) exact.
#[inline]
pub(super) fn inside_even_odd(x: i128, y: i128, verts: &[[i64; 2]], scale: i128) -> bool {
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
