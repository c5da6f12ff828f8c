//! Tile rasterization (llvmpipe's `lp_rast_tri`): the triangles binned to a
//! tile are drawn in draw order into that tile only. A band (32 rows of the
//! frame, or a whole row of 64×64 tiles in frames of 512 rows or more, see
//! `limits::band_rows`; within one row of tiles, whose triangles it draws
//! clipped to its rows) is written by exactly one thread, so the result
//! does not depend on the number of threads.
//!
//! Coverage is generated per row as an exact integer span (see
//! [`TriSetup::span`], stepped from row to row for triangles of a few rows
//! or more: [`TriSetup::spans_from`]), so the per-pixel work only
//! interpolates depth and writes (select, no branches): four pixels at a
//! time in f32 lanes ([`write4`], the last four of a span masked) for
//! triangles under [`WIDE_TRI_PX`] pixels wide, a plain loop the compiler
//! vectorizes for wider ones. Triangles of at most 8×8 pixels come as a
//! coverage mask ([`SmallTri`]), drawn four columns of a row at a time,
//! masked by the coverage bits. The lanes compute exactly what the scalar
//! [`DepthPlane::in_row`] and [`DepthTest::passes`] compute (tested: the
//! direct picks, which use the scalar forms, agree bit for bit).

use super::bin::BinnedChunk;
use super::grid::TileGrid;
use super::rules::{DepthTest, TILE_ORDER, TILE_SIZE};
use super::setup::{DepthPlane, SmallTri, TriSetup};
use crate::limits::{
    band_rows, RECORD_PREFETCH_ENTRIES, RECORD_PREFETCH_MIN, STEP_SPAN_ROWS, WIDE_TRI_PX,
};
use crate::par::prelude::*;
use glam::{BVec4A, Vec4};

/// The ID-buffer value of a pixel that no triangle covers. Covered pixels
/// hold `global triangle index + 1` (the peers' raw `.u32` format).
pub const NO_TRIANGLE: u32 = 0;

/// Background color of the color buffer (0x00RRGGBB).
pub const BACKGROUND: u32 = 0x0018_1c22;

/// The buffers the bands are drawn into: `width` × `height` pixels,
/// row-major, and `clean`, per band and tile column (band major), whether
/// the last render left that part of the depth and ID buffers clear.
pub(crate) struct PixelBuffers<'a> {
    pub width: u32,
    pub height: u32,
    pub depth: &'a mut [f32],
    pub ids: &'a mut [u32],
    /// The color buffer, for the color pass.
    pub color: Option<&'a mut [u32]>,
    pub clean: &'a mut Vec<bool>,
}

/// Which entries of the bins a call of [`raster_bands`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entries {
    /// All of them, into cleared tiles: a whole frame, or the occlusion
    /// cull's occluders (then the bins hold nothing else).
    All,
    /// The occlusion cull's second pass: into the buffers as the
    /// occluders left them (no clear), each bin's entries from
    /// `BinnedChunk::split` on (the triangles that survived the cull, in
    /// draw order), with equal depths decided by triangle id as draw
    /// order would decide them ([`tie_wins`]). So every pixel ends with
    /// the owner one pass over all the entries in draw order gives.
    Survivors,
}

/// Clears and rasterizes the bands of `buf`, one writer per band, in
/// parallel, from the bins of `chunks` (binned on `grid`), and records
/// in `buf.clean` which tiles of each band were left clear (no triangle
/// was binned to them). `clean` of another length (a size change) is
/// reset to all to clear. `color_stale`: the color buffer was left as it
/// was by a render without color, so it is cleared whole. `entries`:
/// which entries, into cleared tiles or not.
pub(crate) fn raster_bands(
    buf: PixelBuffers<'_>,
    chunks: &[BinnedChunk],
    grid: TileGrid,
    test: DepthTest,
    color_stale: bool,
    entries: Entries,
) {
    let PixelBuffers {
        width: w,
        height,
        depth,
        ids,
        color,
        clean,
    } = buf;
    let band_rows = band_rows(height) as usize;
    let band_len = band_rows * w as usize;
    let tiles_x = grid.tiles_x as usize;
    let width = w as usize;
    let bands = (height as usize).div_ceil(band_rows);
    // (every chunk's records were written before the first band is
    // drawn, so it is their sum that decides whether a bin's records are
    // still near the core: see `RECORD_PREFETCH_MIN`; not on wasm32,
    // where a prefetch is a no-op)
    let prefetch = cfg!(target_arch = "x86_64")
        && chunks
            .iter()
            .map(|c| c.small.len() + c.tris.len())
            .sum::<usize>()
            > RECORD_PREFETCH_MIN;
    if clean.len() != bands * tiles_x {
        clean.clear();
        clean.resize(bands * tiles_x, false);
    }
    let run = |band: usize,
               depth: &mut [f32],
               ids: &mut [u32],
               color: Option<&mut [u32]>,
               clean: &mut [bool]| {
        let y0 = band * band_rows;
        let ty = y0 / TILE_SIZE as usize;
        let mut b = Band {
            y0: y0 as i32,
            width,
            depth,
            ids,
            color,
            prefetch,
        };
        // the band's rows lie in one row of tiles (band_rows divides TILE_SIZE)
        raster_band(&mut b, ty, chunks, test, clean, color_stale, entries);
    };
    let work = depth
        .par_chunks_mut(band_len)
        .zip(ids.par_chunks_mut(band_len))
        .zip(clean.par_chunks_mut(tiles_x))
        .enumerate();
    match color {
        Some(color) => work
            .zip(color.par_chunks_mut(band_len))
            .for_each(|((b, ((d, i), k)), c)| run(b, d, i, Some(c), k)),
        None => work.for_each(|(b, ((d, i), k))| run(b, d, i, None, k)),
    }
}

/// The slices of one band of rows (`y0 .. y0 + rows`), row-major, stride `width`.
struct Band<'a> {
    pub y0: i32,
    pub width: usize,
    pub depth: &'a mut [f32],
    pub ids: &'a mut [u32],
    pub color: Option<&'a mut [u32]>,
    /// Whether bins' records are prefetched ahead (the pass has more than
    /// [`RECORD_PREFETCH_MIN`] of them).
    pub prefetch: bool,
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
/// so every tile's color is cleared. [`Entries::Survivors`] clears
/// nothing. Then `clean[tx]` records whether the tile is left clear: no
/// triangle was binned to it. (Out of line: called once per band, and
/// [`raster_bands`]' parallel loop around it stays small.)
#[inline(never)]
fn raster_band(
    band: &mut Band<'_>,
    ty: usize,
    chunks: &[BinnedChunk],
    test: DepthTest,
    clean: &mut [bool],
    color_stale: bool,
    entries: Entries,
) {
    // (wasm32 renders never cull, see `frame::render`: the second pass's
    // draws are left out of the browser module)
    let survivors = !cfg!(target_arch = "wasm32") && entries == Entries::Survivors;
    let rows = (band.depth.len() / band.width) as i32;
    let size = 1i32 << TILE_ORDER;
    let w = band.width as i32;
    let tiles_x = clean.len();
    // per tile, the chunks with entries to draw in its bin, and where
    // they start
    let mut live = vec![(0u32, 0u32); chunks.len()];
    for (tx, clean) in clean.iter_mut().enumerate() {
        let bin = ty * tiles_x + tx;
        let rect = [
            tx as i32 * size,
            band.y0,
            (tx as i32 * size + size - 1).min(w - 1),
            band.y0 + rows - 1,
        ];
        if !survivors && (!*clean || color_stale) {
            band.clear_columns(rect[0] as usize, rect[2] as usize + 1, !*clean);
        }
        // The live chunks, found in one pass of loads with no branch
        // between them: in a frame of many chunks most of a tile's bins
        // are empty (sphere1m at 1080p: 61 chunks, 510 tiles), and a
        // branch on each bin's length waited for that length's load.
        let (mut n, mut binned) = (0, false);
        for (c, chunk) in chunks.iter().enumerate() {
            // (the survivors: the bin's entries after the occluders')
            let from = if survivors {
                chunk.split.get(bin).map_or(0, |&s| s)
            } else {
                0
            };
            let len = chunk.bins[bin].len();
            live[n] = (c as u32, from);
            n += usize::from(len > from as usize);
            binned |= len > 0;
        }
        // a tile no triangle was binned to is not drawn into: left clear
        *clean = !binned;
        for &(c, from) in &live[..n] {
            let chunk = &chunks[c as usize];
            let bin = chunk.bins[bin].get(from as usize..).unwrap_or_default();
            match (test, survivors) {
                (DepthTest::Less, false) => raster_bin::<Less>(band, chunk, bin, rect),
                (DepthTest::Less, true) => raster_bin::<TiesById<Less>>(band, chunk, bin, rect),
                (DepthTest::LessEqual, false) => raster_bin::<LessEqual>(band, chunk, bin, rect),
                (DepthTest::LessEqual, true) => {
                    raster_bin::<TiesById<LessEqual>>(band, chunk, bin, rect)
                }
                // (never culled)
                (DepthTest::Always, _) => raster_bin::<Always>(band, chunk, bin, rect),
            }
        }
    }
}

/// A depth test, on one pixel ([`DepthTest::passes`] of `TEST`) and on
/// four at once (the same comparisons lane by lane); with `BY_ID`, equal
/// depths are decided by [`tie_wins`] instead ([`TiesById`]).
trait DepthCompare {
    const TEST: DepthTest;
    const BY_ID: bool = false;

    /// Whether a fragment of depth `z` and ID-buffer value `id` replaces
    /// the pixel's `d` and `stored`.
    #[inline(always)]
    fn pass(z: f32, d: f32, id: u32, stored: u32) -> bool {
        if Self::BY_ID {
            // (`&`, `|`: no branches, so the wide rows' loop vectorizes)
            (z < d) | ((z == d) & tie_wins(Self::TEST, id, stored))
        } else {
            Self::TEST.passes(z, d)
        }
    }

    /// [`DepthTest::passes`] lane by lane (ties by `TEST`, not by id).
    fn pass4(z: Vec4, d: Vec4) -> BVec4A;

    /// [`DepthCompare::pass`] lane by lane, for the lanes of `lanes`.
    #[inline(always)]
    fn pass4_ids(lanes: BVec4A, z: Vec4, d: Vec4, id: u32, stored: &[u32; 4]) -> BVec4A {
        if !Self::BY_ID {
            return lanes & Self::pass4(z, d);
        }
        let less = lanes & z.cmplt(d);
        let ties = (lanes & z.cmpeq(d)).bitmask();
        if ties == 0 {
            return less;
        }
        // (rare: two triangles at the same depth at the same pixel)
        let tie = |l: usize| ties >> l & 1 != 0 && tie_wins(Self::TEST, id, stored[l]);
        less | BVec4A::new(tie(0), tie(1), tie(2), tie(3))
    }
}

/// Whether a fragment of the triangle whose ID-buffer value is `id`
/// replaces, at equal depth, the pixel of the one whose value is `stored`,
/// as one pass in draw order would decide. IDs (the global triangle index
/// plus one) grow in draw order, so under `Less` (the earlier triangle
/// keeps a tie) the lower ID wins, and under `LessEqual` (the later one
/// takes it) the higher or the same (the pieces of one clipped triangle
/// follow each other, each taking its predecessor's ties). The
/// background's ID is [`NO_TRIANGLE`], 0, below every triangle's, at
/// depth 1: `Less` keeps it, `LessEqual` gives it up, as one pass does.
#[inline(always)]
fn tie_wins(test: DepthTest, id: u32, stored: u32) -> bool {
    match test {
        DepthTest::Less => id < stored,
        DepthTest::LessEqual => id >= stored,
        DepthTest::Always => true,
    }
}

/// `T` with equal depths decided by triangle id ([`tie_wins`]): the
/// test of [`Entries::Survivors`], whose triangles are drawn after
/// occluders that may come later in draw order.
struct TiesById<T>(std::marker::PhantomData<T>);

impl<T: DepthCompare> DepthCompare for TiesById<T> {
    const TEST: DepthTest = T::TEST;
    const BY_ID: bool = true;
    #[inline(always)]
    fn pass4(z: Vec4, d: Vec4) -> BVec4A {
        T::pass4(z, d)
    }
}

struct Less;
struct LessEqual;
struct Always;

impl DepthCompare for Less {
    const TEST: DepthTest = DepthTest::Less;
    #[inline(always)]
    fn pass4(z: Vec4, d: Vec4) -> BVec4A {
        z.cmplt(d)
    }
}

impl DepthCompare for LessEqual {
    const TEST: DepthTest = DepthTest::LessEqual;
    #[inline(always)]
    fn pass4(z: Vec4, d: Vec4) -> BVec4A {
        z.cmple(d)
    }
}

impl DepthCompare for Always {
    const TEST: DepthTest = DepthTest::Always;
    #[inline(always)]
    fn pass4(z: Vec4, _: Vec4) -> BVec4A {
        z.cmpge(Vec4::ZERO) & z.cmple(Vec4::ONE)
    }
}

/// Draws one chunk's bin of a tile, in draw order.
#[inline(always)]
fn raster_bin<T: DepthCompare>(
    band: &mut Band<'_>,
    chunk: &BinnedChunk,
    bin: &[u32],
    rect: [i32; 4],
) {
    if !band.prefetch {
        for &e in bin {
            draw_entry::<T>(band, chunk, e, rect);
        }
        return;
    }
    // (in a chunk of many records, the record eight entries on: a bin's
    // records lie apart in the chunk's lists, written by the bin stage
    // long before, so each would be a wait on memory)
    for (i, &e) in bin.iter().enumerate() {
        if let Some(&f) = bin.get(i + RECORD_PREFETCH_ENTRIES) {
            if f & BinnedChunk::SMALL != 0 {
                if let Some(t) = chunk.small.get((f & !BinnedChunk::SMALL) as usize) {
                    crate::cpu::prefetch(t);
                }
            } else if let Some(t) = chunk.tris.get(f as usize) {
                crate::cpu::prefetch(t);
            }
        }
        draw_entry::<T>(band, chunk, e, rect);
    }
}

/// Draws the record of bin entry `e` of a chunk.
#[inline(always)]
fn draw_entry<T: DepthCompare>(band: &mut Band<'_>, chunk: &BinnedChunk, e: u32, rect: [i32; 4]) {
    if e & BinnedChunk::SMALL != 0 {
        if let Some(t) = chunk.small.get((e & !BinnedChunk::SMALL) as usize) {
            raster_small::<T>(band, t, rect);
        }
    } else if let Some(t) = chunk.tris.get(e as usize) {
        raster_tri::<T>(band, t, rect);
    }
}

/// Lane offsets 0, 1, 2, 3.
const LANES: Vec4 = Vec4::new(0.0, 1.0, 2.0, 3.0);

/// The lanes of each four-bit mask: `NIBBLE[m]` is 1 in lane `i` where bit
/// `i` of `m` is set.
const NIBBLE: [Vec4; 16] = {
    let mut t = [Vec4::ZERO; 16];
    let mut m = 0;
    while m < 16 {
        t[m] = Vec4::new(
            (m & 1) as f32,
            (m >> 1 & 1) as f32,
            (m >> 2 & 1) as f32,
            (m >> 3 & 1) as f32,
        );
        m += 1;
    }
    t
};

/// Four pixels' depths of a row whose [`DepthPlane::row`] is `zr`, at
/// column offsets `di + 0 .. di + 3`: [`DepthPlane::in_row`] lane by lane
/// (the same f32 operations in the same order, so bit-identical; column
/// offsets are below `MAX_FRAME_SIDE` < 2^24, so `di as f32 + 3.0` is
/// `(di + 3) as f32` exactly).
#[inline(always)]
fn in_row4(plane: &DepthPlane, zr: f32, di: i32) -> Vec4 {
    let x = Vec4::splat(di as f32) + LANES;
    let z = Vec4::splat(zr) + Vec4::splat(plane.dzdx) * x;
    let lo = Vec4::splat(plane.z_min);
    let hi = Vec4::splat(plane.z_max);
    let z = Vec4::select(z.cmpgt(lo), z, lo);
    Vec4::select(z.cmplt(hi), z, hi)
}

/// Writes the pixels `k .. k + 4` of the band (one row's) in the lanes of
/// `lanes` whose depth test passes: depth `z`, ID `id`, color `color`.
/// The other lanes are written back unchanged (they may belong to the
/// next tile of the band, which the same thread draws later). IDs and
/// colors ride in f32 lanes as bit patterns: a select is a bitwise blend,
/// so no value is changed by the trip.
#[inline(always)]
fn write4<T: DepthCompare>(
    band: &mut Band<'_>,
    k: usize,
    lanes: BVec4A,
    z: Vec4,
    id: u32,
    color: u32,
) {
    let Some(d) = band
        .depth
        .get_mut(k..)
        .and_then(|s| s.first_chunk_mut::<4>())
    else {
        return;
    };
    let Some(i) = band.ids.get_mut(k..).and_then(|s| s.first_chunk_mut::<4>()) else {
        return;
    };
    let dv = Vec4::from_array(*d);
    let m = T::pass4_ids(lanes, z, dv, id, i);
    *d = Vec4::select(m, z, dv).to_array();
    let blend4 = |v: &mut [u32; 4], x: u32| {
        let old = Vec4::from_array(v.map(f32::from_bits));
        *v = Vec4::select(m, Vec4::splat(f32::from_bits(x)), old)
            .to_array()
            .map(f32::to_bits);
    };
    blend4(i, id);
    if let Some(c) = band.color.as_deref_mut() {
        if let Some(c) = c.get_mut(k..).and_then(|s| s.first_chunk_mut::<4>()) {
            blend4(c, color);
        }
    }
}

/// [`write4`] for one pixel, `k` of the band.
#[inline(always)]
fn write1<T: DepthCompare>(band: &mut Band<'_>, k: usize, z: f32, id: u32, color: u32) {
    if let (Some(d), Some(v)) = (band.depth.get_mut(k), band.ids.get_mut(k)) {
        if T::pass(z, *d, id, *v) {
            *d = z;
            *v = id;
            if let Some(c) = band.color.as_deref_mut() {
                c[k] = color;
            }
        }
    }
}

/// Draws a mask triangle: the covered pixels of each row of its box
/// inside the tile, with the same depth formula as [`raster_tri`]; four
/// columns at a time ([`write4`]) where the row of the frame holds them.
#[inline(always)]
fn raster_small<T: DepthCompare>(band: &mut Band<'_>, t: &SmallTri, rect: [i32; 4]) {
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
    let width = band.width;
    for j in y0.max(rect[1])..=last.min(rect[3]) {
        let bits = t.row_bits(j) & cols;
        if bits == 0 {
            continue;
        }
        let zr = t.depth_row(j);
        let line = (j - band.y0) as usize * width;
        let row = line + x0 as usize;
        for half in 0..2 {
            let nib = (bits >> (4 * half)) & 0xf;
            if nib == 0 {
                continue;
            }
            let k = row + 4 * half as usize;
            if k + 4 <= line + width {
                let lanes = NIBBLE[nib as usize].cmpne(Vec4::ZERO);
                let z = in_row4(&t.plane, zr, 4 * half as i32);
                write4::<T>(band, k, lanes, z, id, t.color);
                continue;
            }
            // the frame's last columns: one pixel at a time
            let mut nib = nib;
            while nib != 0 {
                let di = nib.trailing_zeros() + 4 * half;
                nib &= nib - 1;
                let z = t.plane.in_row(zr, di as i32);
                write1::<T>(band, row + di as usize, z, id, t.color);
            }
        }
    }
}

/// Draws an edge-function triangle: its span of each row inside the tile.
/// Narrow triangles (box under [`WIDE_TRI_PX`] pixels wide: short spans)
/// four pixels at a time ([`write4`]), the last four masked to the span;
/// wide ones by a plain loop over the span, which the compiler vectorizes.
#[inline(always)]
fn raster_tri<T: DepthCompare>(band: &mut Band<'_>, t: &TriSetup, rect: [i32; 4]) {
    let x0 = rect[0].max(t.bbox[0]);
    let x1 = rect[2].min(t.bbox[2]);
    let y0 = rect[1].max(t.bbox[1]);
    let y1 = rect[3].min(t.bbox[3]);
    let id = t.id + 1;
    let width = band.width;
    let mut spans = (y1 - y0 + 1 >= STEP_SPAN_ROWS).then(|| t.spans_from(y0));
    let wide = t.bbox[2] - t.bbox[0] >= WIDE_TRI_PX;
    for j in y0..=y1 {
        let (lo, hi) = match spans.as_mut() {
            Some(rows) => rows.next_span(t, x0, x1),
            None => t.span(j, x0, x1),
        };
        if lo > hi {
            continue;
        }
        let line = (j - band.y0) as usize * width;
        let (a, b) = (line + lo as usize, line + hi as usize + 1);
        let zr = t.depth_row(j);
        let first = lo - t.bbox[0];
        if wide {
            let drow = &mut band.depth[a..b];
            let irow = &mut band.ids[a..b];
            match band.color.as_deref_mut() {
                None => {
                    for (i, (d, v)) in drow.iter_mut().zip(irow.iter_mut()).enumerate() {
                        let z = t.plane.in_row(zr, first + i as i32);
                        let m = 0u32.wrapping_sub(u32::from(T::pass(z, *d, id, *v)));
                        *d = f32::from_bits(blend(m, z.to_bits(), d.to_bits()));
                        *v = blend(m, id, *v);
                    }
                }
                Some(color) => {
                    let crow = &mut color[a..b];
                    for (i, ((d, v), c)) in drow
                        .iter_mut()
                        .zip(irow.iter_mut())
                        .zip(crow.iter_mut())
                        .enumerate()
                    {
                        let z = t.plane.in_row(zr, first + i as i32);
                        let m = 0u32.wrapping_sub(u32::from(T::pass(z, *d, id, *v)));
                        *d = f32::from_bits(blend(m, z.to_bits(), d.to_bits()));
                        *v = blend(m, id, *v);
                        *c = blend(m, t.color, *c);
                    }
                }
            }
            continue;
        }
        let len = Vec4::splat((b - a) as f32);
        let mut k = a;
        while k < b && k + 4 <= line + width {
            let off = (k - a) as i32;
            let lanes = (Vec4::splat(off as f32) + LANES).cmplt(len);
            let z = in_row4(&t.plane, zr, first + off);
            write4::<T>(band, k, lanes, z, id, t.color);
            k += 4;
        }
        // the frame's last columns: one pixel at a time
        for k in k..b {
            let z = t.plane.in_row(zr, first + (k - a) as i32);
            write1::<T>(band, k, z, id, t.color);
        }
    }
}

/// `a` where the mask is all ones, `b` where it is zero: a branch-free
/// select the compiler keeps branch-free (and vectorizes).
#[inline(always)]
fn blend(mask: u32, a: u32, b: u32) -> u32 {
    (a & mask) | (b & !mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes give the scalar forms' exact bits: depth (with clamping
    /// on either side), and the three depth tests, equal depths included.
    #[test]
    fn lanes_equal_scalar_depth_and_tests() {
        let mut rng = crate::test_util::Rng(0x9e37_79b9_7f4a_7c15);
        let mut unit = || rng.f32();
        let mut clamped = 0;
        for _ in 0..20_000 {
            let (a, b) = (unit(), unit());
            let plane = DepthPlane {
                z_ref: unit() * 1.2 - 0.1,
                dzdx: (unit() - 0.5) * 0.02,
                dzdy: 0.0,
                z_min: a.min(b),
                z_max: a.max(b),
            };
            let zr = plane.row((unit() * 100.0) as i32);
            let di = (unit() * 4000.0) as i32;
            let lanes = in_row4(&plane, zr, di).to_array();
            let stored = Vec4::new(unit(), lanes[1], unit(), 1.0);
            for (l, &z) in lanes.iter().enumerate() {
                let s = plane.in_row(zr, di + l as i32);
                assert_eq!(z.to_bits(), s.to_bits(), "{plane:?} {zr} {di}+{l}");
                clamped += usize::from(s == plane.z_min || s == plane.z_max);
                let d = stored.to_array()[l];
                let zv = Vec4::splat(z);
                let dv = Vec4::splat(d);
                assert_eq!(Less::pass4(zv, dv).all(), Less::pass(z, d, 1, 2));
                assert_eq!(LessEqual::pass4(zv, dv).all(), LessEqual::pass(z, d, 1, 2));
                assert_eq!(Always::pass4(zv, dv).all(), Always::pass(z, d, 1, 2));
            }
        }
        assert!(clamped > 1000, "clamping exercised: {clamped}");
    }

    /// The survivors' tests (ties by id) give the same answer four lanes at
    /// a time as one pixel at a time, for lanes masked off, depths less,
    /// greater and equal (half of the lanes ties) and ids below, equal to
    /// and above the stored ones; and a tie goes to the lower id under
    /// `Less`, to the higher or the same under `LessEqual`.
    #[test]
    fn ties_by_id_lanes_equal_the_scalar_test() {
        fn check<T: DepthCompare>(rng: &mut crate::test_util::Rng) -> [usize; 2] {
            let mut seen = [0; 2];
            for _ in 0..20_000 {
                let z = Vec4::from_array(std::array::from_fn(|_| rng.f32()));
                let d: [f32; 4] = std::array::from_fn(|l| {
                    if rng.f32() < 0.5 {
                        z.to_array()[l]
                    } else {
                        rng.f32()
                    }
                });
                let stored: [u32; 4] = std::array::from_fn(|_| (rng.next_u64() % 8) as u32);
                let id = (rng.next_u64() % 8) as u32;
                let on: [bool; 4] = std::array::from_fn(|_| rng.f32() < 0.8);
                let lanes = BVec4A::new(on[0], on[1], on[2], on[3]);
                let got = T::pass4_ids(lanes, z, Vec4::from_array(d), id, &stored).bitmask();
                for l in 0..4 {
                    let zl = z.to_array()[l];
                    let want = on[l] && T::pass(zl, d[l], id, stored[l]);
                    assert_eq!(got >> l & 1 != 0, want, "{:?} lane {l}", T::TEST);
                    if on[l] && zl == d[l] {
                        let wins = match T::TEST {
                            DepthTest::Less => id < stored[l],
                            _ => id >= stored[l],
                        };
                        assert_eq!(want, wins);
                        seen[usize::from(wins)] += 1;
                    }
                }
            }
            seen
        }
        let mut rng = crate::test_util::Rng(0x71e5_b71d_0000_0001);
        for seen in [
            check::<TiesById<Less>>(&mut rng),
            check::<TiesById<LessEqual>>(&mut rng),
        ] {
            assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
        }
    }

    /// `NIBBLE[m]` has lane `i` set exactly where bit `i` of `m` is.
    #[test]
    fn nibble_lanes_are_the_bits() {
        for (m, v) in NIBBLE.iter().enumerate() {
            assert_eq!(v.cmpne(Vec4::ZERO).bitmask() as usize, m);
        }
    }
}
