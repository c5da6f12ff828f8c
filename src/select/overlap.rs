//! Through, part 2 (see [`super::SelectMode`]): does a snapped screen-space
//! triangle overlap the region with positive area? Exact integer tests on
//! the 1/256-pixel lattice, which also catch sub-pixel triangles and slivers
//! that cover no pixel centre.

use super::lasso::{inside_even_odd, Lasso};

/// Positive-area overlap of a positively oriented snapped triangle and a
/// closed box `[x0, x1] × [y0, y1]` (snapped units), by separating axes.
#[inline]
pub(super) fn tri_overlaps_box(p: &[[i64; 2]; 3], b: [i64; 4]) -> bool {
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
pub(super) fn segment_meets_open_tri(a: [i64; 2], b: [i64; 2], p: &[[i64; 2]; 3]) -> bool {
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
/// lasso (assuming a non-degenerate lasso; see [`super::SelectMode`]).
#[inline]
pub(super) fn tri_overlaps_lasso(p: &[[i64; 2]; 3], l: &Lasso) -> bool {
    let minx = p[0][0].min(p[1][0]).min(p[2][0]);
    let maxx = p[0][0].max(p[1][0]).max(p[2][0]);
    let miny = p[0][1].min(p[1][1]).min(p[2][1]);
    let maxy = p[0][1].max(p[1][1]).max(p[2][1]);
    let bounds = l.snapped_bounds;
    if maxx <= bounds[0] || minx >= bounds[2] || maxy <= bounds[1] || miny >= bounds[3] {
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
    // no lasso edge enters the open triangle: it is all inside or all
    // outside, as its centroid (gx, gy) / 3 is
    let gx = i128::from(p[0][0]) + i128::from(p[1][0]) + i128::from(p[2][0]);
    let gy = i128::from(p[0][1]) + i128::from(p[1][1]) + i128::from(p[2][1]);
    inside_even_odd(gx, gy, &l.verts, 3)
}
