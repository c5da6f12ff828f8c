//! Tile rasterization (llvmpipe's `lp_rast_tri`): the triangles binned to a
//! tile are drawn in draw order into that tile only. A band of tiles (64
//! rows of the frame) is written by exactly one thread, so the result does
//! not depend on the number of threads.
//!
//! Coverage is generated per row as an exact integer span (see
//! [`TriSetup::span`]), so the per-pixel loop only interpolates depth and
//! writes, which the compiler vectorizes (select, no branches).

use super::rules::{DepthTest, TILE_ORDER};
use super::setup::TriSetup;
use crate::frame::Chunk;

/// The slices of one band of rows (`y0 .. y0 + rows`), row-major, stride `width`.
pub(crate) struct Band<'a> {
    pub y0: i32,
    pub width: usize,
    pub depth: &'a mut [f32],
    pub ids: &'a mut [u32],
    pub color: Option<&'a mut [u32]>,
}

/// Draws every tile of a band.
pub(crate) fn raster_band(
    band: &mut Band<'_>,
    ty: usize,
    tiles_x: usize,
    chunks: &[Chunk],
    test: DepthTest,
) {
    let rows = (band.depth.len() / band.width) as i32;
    let size = 1i32 << TILE_ORDER;
    let w = band.width as i32;
    for tx in 0..tiles_x {
        let bin = ty * tiles_x + tx;
        let rect = [
            tx as i32 * size,
            band.y0,
            (tx as i32 * size + size - 1).min(w - 1),
            band.y0 + rows - 1,
        ];
        for chunk in chunks {
            for &idx in &chunk.bins[bin] {
                let t = &chunk.tris[idx as usize];
                match test {
                    DepthTest::Less => {
                        raster_tri(band, t, rect, |z, d| DepthTest::Less.passes(z, d))
                    }
                    DepthTest::LessEqual => {
                        raster_tri(band, t, rect, |z, d| DepthTest::LessEqual.passes(z, d))
                    }
                    DepthTest::Always => {
                        raster_tri(band, t, rect, |z, d| DepthTest::Always.passes(z, d))
                    }
                }
            }
        }
    }
}

#[inline(always)]
fn raster_tri(
    band: &mut Band<'_>,
    t: &TriSetup,
    rect: [i32; 4],
    pass: impl Fn(f32, f32) -> bool + Copy,
) {
    let x0 = rect[0].max(t.bbox[0]);
    let x1 = rect[2].min(t.bbox[2]);
    let y0 = rect[1].max(t.bbox[1]);
    let y1 = rect[3].min(t.bbox[3]);
    let id = t.id + 1;
    for j in y0..=y1 {
        let (lo, hi) = t.span(j, x0, x1);
        if lo > hi {
            continue;
        }
        let row = (j - band.y0) as usize * band.width;
        let (a, b) = (row + lo as usize, row + hi as usize + 1);
        let zr = t.depth_row(j);
        let first = lo - t.bbox[0];
        let drow = &mut band.depth[a..b];
        let irow = &mut band.ids[a..b];
        match band.color.as_deref_mut() {
            None => {
                for (k, (d, i)) in drow.iter_mut().zip(irow.iter_mut()).enumerate() {
                    let z = t.depth_in_row(zr, first + k as i32);
                    let p = pass(z, *d);
                    *d = if p { z } else { *d };
                    *i = if p { id } else { *i };
                }
            }
            Some(color) => {
                let crow = &mut color[a..b];
                for (k, ((d, i), c)) in drow
                    .iter_mut()
                    .zip(irow.iter_mut())
                    .zip(crow.iter_mut())
                    .enumerate()
                {
                    let z = t.depth_in_row(zr, first + k as i32);
                    let p = pass(z, *d);
                    *d = if p { z } else { *d };
                    *i = if p { id } else { *i };
                    *c = if p { t.color } else { *c };
                }
            }
        }
    }
}
