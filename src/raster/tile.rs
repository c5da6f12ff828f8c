//! Tile rasterization (llvmpipe's `lp_rast_tri`): the triangles binned to a
//! tile are drawn in draw order into that tile only. A band (32 rows of the
//! frame, or a whole row of 64×64 tiles in frames of 512 rows or more, see
//! `limits::band_rows`; within one row of tiles, whose triangles it draws
//! clipped to its rows) is written by exactly one thread, so the result
//! does not depend on the number of threads.
//!
//! Coverage is generated per row as an exact integer span (see
//! [`TriSetup::span`], stepped from row to row for triangles of a few rows
//! or more: [`TriSetup::spans_from`]), so the per-pixel loop
//! only interpolates depth and writes (select, no branches). Triangles of
//! at most 8×8 pixels come as a coverage mask ([`SmallTri`]) and only
//! their covered pixels are visited.

use super::rules::{DepthTest, TILE_ORDER};
use super::setup::{SmallTri, TriSetup};
use crate::frame::{Chunk, BACKGROUND, NO_TRIANGLE};
use crate::limits::STEP_SPAN_ROWS;

/// The slices of one band of rows (`y0 .. y0 + rows`), row-major, stride `width`.
pub(crate) struct Band<'a> {
    pub y0: i32,
    pub width: usize,
    pub depth: &'a mut [f32],
    pub ids: &'a mut [u32],
    pub color: Option<&'a mut [u32]>,
}

impl Band<'_> {
    /// Clears columns `a..b` of every row of the band: color, and with
    /// `depth_and_ids` depth and IDs too.
    fn clear_columns(&mut self, a: usize, b: usize, depth_and_ids: bool) {
        let width = self.width;
        for row in (0..self.depth.len()).step_by(width) {
            if depth_and_ids {
                self.depth[row + a..row + b].fill(1.0);
                self.ids[row + a..row + b].fill(NO_TRIANGLE);
            }
            if let Some(c) = self.color.as_deref_mut() {
                c[row + a..row + b].fill(BACKGROUND);
            }
        }
    }
}

/// Draws every tile of a band (`clean` has one flag per tile), each tile's
/// part of the band cleared right before its triangles unless `clean[tx]`
/// says the last render left it clear (so that its pixels are in cache for
/// the depth tests: a whole band of 1080p is larger than a core's L2
/// cache). `color_stale`: the last render left the color buffer as it was,
/// so every tile's color is cleared.
pub(crate) fn raster_band(
    band: &mut Band<'_>,
    ty: usize,
    chunks: &[Chunk],
    test: DepthTest,
    clean: &[bool],
    color_stale: bool,
) {
    let rows = (band.depth.len() / band.width) as i32;
    let size = 1i32 << TILE_ORDER;
    let w = band.width as i32;
    let tiles_x = clean.len();
    for (tx, &clean) in clean.iter().enumerate() {
        let bin = ty * tiles_x + tx;
        let rect = [
            tx as i32 * size,
            band.y0,
            (tx as i32 * size + size - 1).min(w - 1),
            band.y0 + rows - 1,
        ];
        if !clean || color_stale {
            band.clear_columns(rect[0] as usize, rect[2] as usize + 1, !clean);
        }
        for chunk in chunks {
            let bin = &chunk.bins[bin];
            match test {
                DepthTest::Less => {
                    raster_bin(band, chunk, bin, rect, |z, d| DepthTest::Less.passes(z, d))
                }
                DepthTest::LessEqual => raster_bin(band, chunk, bin, rect, |z, d| {
                    DepthTest::LessEqual.passes(z, d)
                }),
                DepthTest::Always => raster_bin(band, chunk, bin, rect, |z, d| {
                    DepthTest::Always.passes(z, d)
                }),
            }
        }
    }
}

/// Draws one chunk's bin of a tile, in draw order.
#[inline(always)]
fn raster_bin(
    band: &mut Band<'_>,
    chunk: &Chunk,
    bin: &[u32],
    rect: [i32; 4],
    pass: impl Fn(f32, f32) -> bool + Copy,
) {
    for &e in bin {
        if e & Chunk::SMALL != 0 {
            if let Some(t) = chunk.small.get((e & !Chunk::SMALL) as usize) {
                raster_small(band, t, rect, pass);
            }
        } else if let Some(t) = chunk.tris.get(e as usize) {
            raster_tri(band, t, rect, pass);
        }
    }
}

/// Draws a mask triangle: the covered pixels of each row of its box
/// inside the tile, with the same depth formula as [`raster_tri`].
#[inline(always)]
fn raster_small(
    band: &mut Band<'_>,
    t: &SmallTri,
    rect: [i32; 4],
    pass: impl Fn(f32, f32) -> bool + Copy,
) {
    let (x0, y0) = (i32::from(t.x0), i32::from(t.y0));
    // columns of the box inside the tile
    let c0 = (rect[0] - x0).max(0);
    let c1 = (rect[2] - x0).min(7);
    if c0 > c1 {
        return;
    }
    let cols = (0xffu32 >> (7 - c1)) & !((1u32 << c0) - 1);
    let id = t.id + 1;
    // rows up to the mask's last non-empty one (most small triangles span
    // two or three of the box's eight)
    let last = t.bbox()[3];
    for j in y0.max(rect[1])..=last.min(rect[3]) {
        let mut bits = t.row_bits(j) & cols;
        if bits == 0 {
            continue;
        }
        let zr = t.depth_row(j);
        let row = (j - band.y0) as usize * band.width + x0 as usize;
        while bits != 0 {
            let di = bits.trailing_zeros();
            bits &= bits - 1;
            let z = t.plane.in_row(zr, di as i32);
            let k = row + di as usize;
            if let Some(d) = band.depth.get_mut(k) {
                if pass(z, *d) {
                    *d = z;
                    band.ids[k] = id;
                    if let Some(c) = band.color.as_deref_mut() {
                        c[k] = t.color;
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
    let mut spans = (y1 - y0 + 1 >= STEP_SPAN_ROWS).then(|| t.spans_from(y0));
    for j in y0..=y1 {
        let (lo, hi) = match spans.as_mut() {
            Some(rows) => rows.next_span(t, x0, x1),
            None => t.span(j, x0, x1),
        };
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
                    let z = t.plane.in_row(zr, first + k as i32);
                    let m = 0u32.wrapping_sub(u32::from(pass(z, *d)));
                    *d = f32::from_bits(blend(m, z.to_bits(), d.to_bits()));
                    *i = blend(m, id, *i);
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
                    let z = t.plane.in_row(zr, first + k as i32);
                    let m = 0u32.wrapping_sub(u32::from(pass(z, *d)));
                    *d = f32::from_bits(blend(m, z.to_bits(), d.to_bits()));
                    *i = blend(m, id, *i);
                    *c = blend(m, t.color, *c);
                }
            }
        }
    }
}

/// `a` where the mask is all ones, `b` where it is zero: a branch-free
/// select the compiler keeps branch-free (and vectorizes).
#[inline(always)]
fn blend(mask: u32, a: u32, b: u32) -> u32 {
    (a & mask) | (b & !mask)
}
