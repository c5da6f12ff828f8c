//! Through, part 1 (see [`super::SelectMode`]): does a set-up piece cover a
//! pixel centre of the region? The rasterizer's own integer coverage
//! ([`TriSetup::span`] and its edge functions), so x-ray selection takes
//! exactly the pixel centres the renderer would fill.

use super::lasso::Lasso;
use crate::raster::setup::{Tri, TriSetup};

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

/// [`row_covers`] for a big piece: a short row steps the edge functions
/// pixel by pixel (no divisions), a long one asks for the span.
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

/// Does the set-up triangle cover a pixel centre of the inclusive pixel
/// rectangle `r` (x0, y0, x1, y1)? Tries the middle row first (where almost
/// every non-sliver triangle is).
#[inline]
pub(super) fn covers_rect(t: Tri<'_>, r: [i32; 4]) -> bool {
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
#[inline]
pub(super) fn covers_lasso(t: Tri<'_>, l: &Lasso) -> bool {
    let Some(b) = l.pixel_bounds else {
        return false;
    };
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
