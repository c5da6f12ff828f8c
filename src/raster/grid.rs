//! The tile grid of a viewport and the bins of one set-up record: which
//! 64×64 tiles a triangle may cover (each tile's rectangle tested against
//! every edge at the corner where the edge is largest, as llvmpipe's
//! binning does), and the tiles a small triangle's covered pixels lie in.
//! [`super::bin`] appends each record of a chunk to its bins.

use super::rules::TILE_ORDER;
use super::setup::{SmallTri, TriSetup};

/// Tile grid of a viewport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TileGrid {
    pub tiles_x: u32,
    pub tiles_y: u32,
}

impl TileGrid {
    pub fn new(width: u32, height: u32) -> Self {
        let t = 1 << TILE_ORDER;
        Self {
            tiles_x: width.div_ceil(t),
            tiles_y: height.div_ceil(t),
        }
    }

    pub fn count(&self) -> usize {
        self.tiles_x as usize * self.tiles_y as usize
    }

    /// Bin index of the tile holding pixel (x, y).
    #[inline]
    pub fn tile_of(&self, x: u32, y: u32) -> usize {
        (y >> TILE_ORDER) as usize * self.tiles_x as usize + (x >> TILE_ORDER) as usize
    }
}

/// Can any pixel of the rectangle [x0, x1] × [y0, y1] be covered by `t`?
/// Evaluates each edge at the rectangle corner where it is largest.
#[inline]
pub(crate) fn rect_may_cover(t: &TriSetup, x0: i32, y0: i32, x1: i32, y1: i32) -> bool {
    (0..3).all(|k| {
        let i = if t.dy[k] < 0 { x1 } else { x0 };
        let j = if t.dx[k] > 0 { y1 } else { y0 };
        t.dx[k] * i64::from(j) - t.dy[k] * i64::from(i) + t.c[k] >= 0
    })
}

/// Appends triangle `idx` to the bins of the tiles it may cover.
/// Returns the number of bins it went into.
pub(crate) fn bin_triangle(t: &TriSetup, idx: u32, grid: TileGrid, bins: &mut [Vec<u32>]) -> u32 {
    let [x0, y0, x1, y1] = t.bbox;
    let (tx0, ty0) = (x0 >> TILE_ORDER, y0 >> TILE_ORDER);
    let (tx1, ty1) = (x1 >> TILE_ORDER, y1 >> TILE_ORDER);
    if tx0 == tx1 && ty0 == ty1 {
        bins[ty0 as usize * grid.tiles_x as usize + tx0 as usize].push(idx);
        return 1;
    }
    let size = 1i32 << TILE_ORDER;
    let mut n = 0;
    for ty in ty0..=ty1 {
        let ry0 = (ty * size).max(y0);
        let ry1 = (ty * size + size - 1).min(y1);
        for tx in tx0..=tx1 {
            let rx0 = (tx * size).max(x0);
            let rx1 = (tx * size + size - 1).min(x1);
            if rect_may_cover(t, rx0, ry0, rx1, ry1) {
                bins[ty as usize * grid.tiles_x as usize + tx as usize].push(idx);
                n += 1;
            }
        }
    }
    n
}

/// Appends small triangle `entry` to the bins of the tiles (at most 2×2)
/// whose part of its box holds a covered pixel. Returns the number of bins.
pub(crate) fn bin_small(t: &SmallTri, entry: u32, grid: TileGrid, bins: &mut [Vec<u32>]) -> u32 {
    // the tiles of the covered pixels' box (a few pixels, mostly: far fewer
    // cross a tile edge than the 8×8 box); the mask's origin is the box corner
    let [bx0, by0, x1, y1] = t.bbox();
    let (x0, y0) = (i32::from(t.x0), i32::from(t.y0));
    let (tx0, ty0) = (bx0 >> TILE_ORDER, by0 >> TILE_ORDER);
    let (tx1, ty1) = (x1 >> TILE_ORDER, y1 >> TILE_ORDER);
    let tiles_x = grid.tiles_x as i32;
    let tiles_y = grid.tiles_y as i32;
    if tx0 == tx1 && ty0 == ty1 {
        bins[(ty0 * tiles_x + tx0) as usize].push(entry);
        return 1;
    }
    let size = 1i32 << TILE_ORDER;
    let mut n = 0;
    for ty in ty0..=ty1.min(tiles_y - 1) {
        // rows of the box inside this tile row
        let (r0, r1) = (
            (ty * size).max(y0) - y0,
            (ty * size + size - 1).min(y1) - y0,
        );
        let rows = (r0..=r1).fold(0u64, |m, r| m | (0xff << (8 * r)));
        for tx in tx0..=tx1.min(tiles_x - 1) {
            let (c0, c1) = (
                (tx * size).max(x0) - x0,
                (tx * size + size - 1).min(x1) - x0,
            );
            let cols = (c0..=c1).fold(0u64, |m, c| m | (0x0101_0101_0101_0101 << c));
            if t.mask & rows & cols != 0 {
                bins[(ty * tiles_x + tx) as usize].push(entry);
                n += 1;
            }
        }
    }
    n
}
