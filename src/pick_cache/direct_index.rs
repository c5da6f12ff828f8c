//! The screen-space index of the direct picks, built once per frame (on the
//! first direct pick after a render, or by `Picks::prepare`). It is
//! built from the frame's setup chunks alone; the picks live in `pick::direct`.
//!
//! Per 64×64 tile, the set-up triangles of the tile's bins become compact
//! records (the same integer edges and depth plane, `i32` deltas) listed in
//! the square cells of one level of a per-tile hierarchy (cells of 1, 2, 4,
//! 8 or 16 pixels): the level whose cell side is at least the triangle's
//! extent in the tile, so a triangle lands in at most 2×2 cells, or the
//! 16-pixel level for larger ones (at most 5×5 cells; a copy in each, so a
//! cell's records are contiguous), and a cell lists only triangles about
//! its own size or smaller, plus the large ones. Each copy carries the exact
//! minimum depth of its triangle over the cell, and a cell is sorted by it
//! for `Less` / `LessEqual` (by descending draw order for `Always`). A pick
//! visits one cell per non-empty level of its tile and stops scanning a cell
//! once no remaining record can win.
//!
//! The answer is the rasterizer's: the same coverage and depth (bit for bit),
//! and the depth test's tie rule (`Less`: nearest, then first in draw order;
//! `LessEqual`: nearest, then last; `Always`: last with depth in 0..1).
//! Each tile is built from its own bins by one thread, so the index does not
//! depend on the number of threads.

use std::fmt;
use std::sync::{Mutex, OnceLock, PoisonError};

use crate::par::{self, prelude::*};

use crate::raster::bin::BinnedChunk;
use crate::raster::grid::{rect_may_cover, TileGrid};
use crate::raster::rules::{DepthTest, TILE_ORDER};
use crate::raster::setup::{DepthPlane, Tri};

/// Cell levels per tile: sides 1, 2, 4, …, 64 pixels (those above
/// [`MAX_LEVEL`] stay empty).
const LEVELS: usize = TILE_ORDER as usize + 1;

/// One set-up triangle as a pick needs it: edges (`i32` deltas, which fit
/// since snapped coordinates stay below 2^23), depth plane and draw order.
#[derive(Clone, Copy, Debug)]
struct CellRecord {
    /// Smallest depth the triangle takes in the cell (a pick stops at the
    /// first record whose bound exceeds the best depth found).
    z_lo: f32,
    /// The triangle's depth plane (clamped to its vertices' depth range).
    plane: DepthPlane,
    /// The depth plane's reference pixel (the bbox corner).
    x0: u16,
    y0: u16,
    /// Coverage: edge functions, or the mask of a small triangle.
    cov: Coverage,
    /// Position of the setup in the tile's draw order (over all chunks).
    order: u32,
    /// Global triangle index.
    id: u32,
}

/// How a record decides coverage.
#[derive(Clone, Copy, Debug)]
enum Coverage {
    /// A [`crate::raster::setup::TriSetup`]'s edge functions (`i32` deltas).
    Edges {
        dx: [i32; 3],
        dy: [i32; 3],
        c: [i64; 3],
    },
    /// A [`crate::raster::setup::SmallTri`]'s mask (rows of 8 bits from
    /// the record's corner).
    Mask(u64),
}

impl CellRecord {
    fn new(t: Tri<'_>, order: u32) -> Self {
        let (plane, x0, y0, cov, id) = match t {
            Tri::Big(t) => (
                t.plane,
                t.bbox[0] as u16,
                t.bbox[1] as u16,
                Coverage::Edges {
                    dx: t.dx.map(|d| d as i32),
                    dy: t.dy.map(|d| d as i32),
                    c: t.c,
                },
                t.id,
            ),
            Tri::Small(t) => (t.plane, t.x0, t.y0, Coverage::Mask(t.mask), t.id),
        };
        Self {
            z_lo: plane.z_min,
            plane,
            x0,
            y0,
            cov,
            order,
            id,
        }
    }

    /// [`Tri::covers`] for an in-frame pixel: for edges the bbox test is
    /// implied (every covered centre lies in the snapped triangle's pixel
    /// bbox, and the clamp to the viewport does not matter inside it).
    #[inline(always)]
    fn covers(&self, i: i64, j: i64) -> bool {
        match self.cov {
            Coverage::Edges { dx, dy, c } => {
                let e = |k: usize| i64::from(dx[k]) * j - i64::from(dy[k]) * i + c[k];
                // all three non-negative <=> no sign bit in their union (one branch)
                (e(0) | e(1) | e(2)) >= 0
            }
            Coverage::Mask(m) => {
                let (di, dj) = (i - i64::from(self.x0), j - i64::from(self.y0));
                (0..8).contains(&di) && (0..8).contains(&dj) && (m >> (8 * dj + di)) & 1 != 0
            }
        }
    }

    /// [`crate::raster::setup::TriSetup::depth_at`], the same f32 operations.
    #[inline(always)]
    fn depth_at(&self, i: i32, j: i32) -> f32 {
        self.plane
            .at(i - i32::from(self.x0), j - i32::from(self.y0))
    }
}

/// Can `t` cover a pixel centre of the rectangle [x0, x1] × [y0, y1]?
fn may_cover(t: Tri<'_>, x0: i32, y0: i32, x1: i32, y1: i32) -> bool {
    match t {
        Tri::Big(t) => rect_may_cover(t, x0, y0, x1, y1),
        Tri::Small(t) => (y0..=y1).any(|j| {
            let (lo, hi) = t.span(j, x0, x1);
            lo <= hi
        }),
    }
}

/// The index of one tile.
#[derive(Clone, Debug, Default)]
struct TileCells {
    /// The records of each cell, cell after cell (row-major), level after
    /// level; each cell's sorted for early exit. A triangle spanning two
    /// or four cells has a copy in each.
    records: Vec<CellRecord>,
    /// Per non-empty level, `cells + 1` offsets into `records`.
    starts: Vec<u32>,
    /// Where each level's offsets begin in `starts`.
    level_base: [u32; LEVELS],
    /// Bit `l` set when level `l` has records.
    mask: u8,
}

/// The per-frame index of the direct picks.
#[derive(Clone, Debug, Default)]
pub(crate) struct DirectIndex {
    tiles_x: usize,
    test: DepthTest,
    tiles: Vec<TileCells>,
}

/// A frame's lazily built [`DirectIndex`]. A render empties it, keeping
/// the old index's memory for the next build (no fresh pages to fault in).
#[derive(Default)]
pub(crate) struct DirectCache {
    built: OnceLock<DirectIndex>,
    spare: Mutex<Option<DirectIndex>>,
}

impl Clone for DirectCache {
    fn clone(&self) -> Self {
        Self {
            built: self.built.clone(),
            spare: Mutex::default(),
        }
    }
}

impl DirectCache {
    /// The index of the frame whose size, setup chunks and depth test these
    /// are, built on first use (the caller passes the same frame's values
    /// every time until [`DirectCache::reset`]).
    pub(crate) fn get_or_build(
        &self,
        width: u32,
        height: u32,
        chunks: &[BinnedChunk],
        test: DepthTest,
    ) -> &DirectIndex {
        self.built.get_or_init(|| {
            let mut ix = self
                .spare
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
                .unwrap_or_default();
            // inside a rayon worker (a pick from a parallel loop) the build
            // runs serially: a parallel build could steal a task that waits
            // on this same initialization
            let parallel = par::current_thread_index().is_none();
            ix.rebuild(width, height, chunks, test, parallel);
            ix
        })
    }

    /// Forgets the index (the frame was re-rendered).
    pub(crate) fn reset(&mut self) {
        if let Some(old) = self.built.take() {
            *self.spare.get_mut().unwrap_or_else(PoisonError::into_inner) = Some(old);
        }
    }
}

impl fmt::Debug for DirectCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.built.get() {
            None => f.write_str("DirectCache(not built)"),
            Some(ix) => write!(
                f,
                "DirectCache({} tiles, {} cell records)",
                ix.tiles.len(),
                ix.tiles.iter().map(|t| t.records.len()).sum::<usize>(),
            ),
        }
    }
}

/// f32 → u32 preserving the order of non-NaN values (−0 before +0).
#[inline]
fn ordered_bits(z: f32) -> u32 {
    let b = z.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// The coarsest level used: cells of at most 16 pixels, so a large
/// triangle's copies carry tight depth bounds (and it lands in at most
/// 5×5 cells of a tile).
const MAX_LEVEL: u32 = 4;

/// Level whose cells are at least `ext` pixels wide (`ext` in 1..=64).
#[inline]
fn level_of(ext: i32) -> u32 {
    32 - ((ext - 1) as u32).leading_zeros()
}

impl DirectIndex {
    /// Rebuilds the index for a frame, reusing this index's memory.
    fn rebuild(
        &mut self,
        width: u32,
        height: u32,
        chunks: &[BinnedChunk],
        test: DepthTest,
        parallel: bool,
    ) {
        let grid = TileGrid::new(width, height);
        let tiles_x = grid.tiles_x as usize;
        let build_one = |scratch: &mut BuildScratch, (ti, tile): (usize, &mut TileCells)| {
            let (tx, ty) = ((ti % tiles_x) as i32, (ti / tiles_x) as i32);
            let size = 1i32 << TILE_ORDER;
            let rect = [
                tx * size,
                ty * size,
                (tx * size + size - 1).min(width as i32 - 1),
                (ty * size + size - 1).min(height as i32 - 1),
            ];
            build_tile(tile, scratch, ti, rect, chunks, test);
        };
        let count = if chunks.is_empty() { 0 } else { grid.count() };
        self.tiles_x = tiles_x;
        self.test = test;
        self.tiles.resize_with(count, TileCells::default);
        if parallel {
            self.tiles
                .par_iter_mut()
                .enumerate()
                .for_each_init(BuildScratch::default, build_one);
        } else {
            let mut scratch = BuildScratch::default();
            for t in self.tiles.iter_mut().enumerate() {
                build_one(&mut scratch, t);
            }
        }
    }

    /// The nearest covering triangle at in-frame pixel (x, y) under the
    /// frame's depth test, and its depth.
    #[inline]
    pub(crate) fn query(&self, x: u32, y: u32) -> Option<(u32, f32)> {
        let ti = (y >> TILE_ORDER) as usize * self.tiles_x + (x >> TILE_ORDER) as usize;
        let tile = self.tiles.get(ti)?;
        match self.test {
            DepthTest::Less => tile.nearest::<false>(x, y),
            DepthTest::LessEqual => tile.nearest::<true>(x, y),
            DepthTest::Always => tile.last(x, y),
        }
    }
}

impl TileCells {
    /// The records of the cell holding local pixel (lx, ly) at `level`.
    #[inline(always)]
    fn cell(&self, level: u32, lx: u32, ly: u32) -> &[CellRecord] {
        let c = ((ly >> level) << (TILE_ORDER - level)) + (lx >> level);
        let base = self.level_base[level as usize] as usize + c as usize;
        let (a, b) = (self.starts[base] as usize, self.starts[base + 1] as usize);
        &self.records[a..b]
    }

    /// Depth tests `Less` (`LE = false`) and `LessEqual`: the smallest depth,
    /// ties to the first (`Less`) or last (`LessEqual`) in draw order; the
    /// cleared depth 1.0 is the initial best, so `Less` needs depth < 1.
    #[inline]
    fn nearest<const LE: bool>(&self, x: u32, y: u32) -> Option<(u32, f32)> {
        let (lx, ly) = (x & ((1 << TILE_ORDER) - 1), y & ((1 << TILE_ORDER) - 1));
        let (i, j) = (i64::from(x), i64::from(y));
        let mut best_z = 1.0f32;
        let mut best_order = -1i64;
        let mut best_id = None;
        let mut mask = self.mask;
        while mask != 0 {
            let level = mask.trailing_zeros();
            mask &= mask - 1;
            for r in self.cell(level, lx, ly) {
                if r.z_lo > best_z {
                    break;
                }
                if !r.covers(i, j) {
                    continue;
                }
                let z = r.depth_at(x as i32, y as i32);
                let o = i64::from(r.order);
                let tie = if LE { o > best_order } else { o < best_order };
                if z < best_z || (z == best_z && tie) {
                    best_z = z;
                    best_order = o;
                    best_id = Some(r.id);
                }
            }
        }
        best_id.map(|id| (id, best_z))
    }

    /// Depth test `Always`: the last covering triangle in draw order whose
    /// depth lies in 0..1 (records are in descending draw order).
    #[inline]
    fn last(&self, x: u32, y: u32) -> Option<(u32, f32)> {
        let (lx, ly) = (x & ((1 << TILE_ORDER) - 1), y & ((1 << TILE_ORDER) - 1));
        let (i, j) = (i64::from(x), i64::from(y));
        let mut best: Option<(u32, f32, u32)> = None;
        let mut mask = self.mask;
        while mask != 0 {
            let level = mask.trailing_zeros();
            mask &= mask - 1;
            for r in self.cell(level, lx, ly) {
                if best.is_some_and(|b| r.order <= b.2) {
                    break;
                }
                if !r.covers(i, j) {
                    continue;
                }
                let z = r.depth_at(x as i32, y as i32);
                if DepthTest::Always.passes(z, 1.0) {
                    best = Some((r.id, z, r.order));
                    break;
                }
            }
        }
        best.map(|(id, z, _)| (id, z))
    }
}

/// Where a record goes: its level, the cell range and which of its (at
/// most 5×5) cells its edges do not rule out.
#[derive(Clone, Copy)]
struct Placement {
    level: u8,
    cx0: u8,
    cy0: u8,
    /// Bit `2*dy + dx` for cell (cx0 + dx, cy0 + dy).
    cells: u32,
    /// Columns of the cell range (bit `cw*dy + dx` is cell (cx0 + dx, cy0 + dy)).
    cw: u8,
    /// The triangle's bbox within the tile, tile-relative (x0, y0, x1, y1).
    bbox: [u8; 4],
}

/// The level and cells of triangle `t` in the tile with pixel rectangle `rect`.
fn place(t: Tri<'_>, rect: [i32; 4]) -> Placement {
    let tb = t.bbox();
    let b = [
        tb[0].max(rect[0]),
        tb[1].max(rect[1]),
        tb[2].min(rect[2]),
        tb[3].min(rect[3]),
    ];
    let ext = (b[2] - b[0]).max(b[3] - b[1]) + 1;
    let level = level_of(ext).min(MAX_LEVEL);
    let l = [
        b[0] - rect[0],
        b[1] - rect[1],
        b[2] - rect[0],
        b[3] - rect[1],
    ]
    .map(|v| v >> level);
    let mut cells = 0u32;
    let cw = l[2] - l[0] + 1;
    // a tiny triangle often covers no pixel centre of its bbox: then no
    // pick can hit it in this tile, and it is left out
    let empty = ext <= 2 && !(b[1]..=b[3]).any(|j| (b[0]..=b[2]).any(|i| t.covers(i, j)));
    if l[0] == l[2] && l[1] == l[3] {
        cells = u32::from(!empty);
    } else if !empty {
        let side = 1i32 << level;
        for cy in l[1]..=l[3] {
            for cx in l[0]..=l[2] {
                let r = [
                    (rect[0] + cx * side).max(b[0]),
                    (rect[1] + cy * side).max(b[1]),
                    (rect[0] + cx * side + side - 1).min(b[2]),
                    (rect[1] + cy * side + side - 1).min(b[3]),
                ];
                if may_cover(t, r[0], r[1], r[2], r[3]) {
                    cells |= 1 << (cw * (cy - l[1]) + (cx - l[0]));
                }
            }
        }
    }
    Placement {
        level: level as u8,
        cx0: l[0] as u8,
        cy0: l[1] as u8,
        cells,
        cw: cw as u8,
        bbox: [
            b[0] - rect[0],
            b[1] - rect[1],
            b[2] - rect[0],
            b[3] - rect[1],
        ]
        .map(|v| v as u8),
    }
}

/// Per-thread scratch buffers of a build.
#[derive(Default)]
struct BuildScratch {
    /// The tile's records in draw order, each with its placement.
    records: Vec<CellRecord>,
    placements: Vec<Placement>,
    /// The cells' entries, cell after cell.
    entries: Vec<CellEntry>,
    /// Per cell, where its next entry goes in `entries`.
    cursor: Vec<u32>,
}

/// One record's copy in a cell, while a tile is built.
#[derive(Clone, Copy, Default)]
struct CellEntry {
    /// Sort key: the depth bound's order bits, then the draw order.
    key: u64,
    /// Index of the record in [`BuildScratch::records`].
    record: u32,
    /// The record's smallest depth over the cell.
    z_lo: f32,
}

/// Builds the index of tile `ti` with pixel rectangle `rect` (inclusive)
/// into `tile`, reusing its memory.
fn build_tile(
    tile: &mut TileCells,
    s: &mut BuildScratch,
    ti: usize,
    rect: [i32; 4],
    chunks: &[BinnedChunk],
    test: DepthTest,
) {
    tile.records.clear();
    tile.starts.clear();
    tile.mask = 0;
    // records and placements in bin order = draw order (sequential reads of
    // the setups)
    s.records.clear();
    s.placements.clear();
    let mut mask = 0u8;
    for chunk in chunks {
        for &e in &chunk.bins[ti] {
            let Some(t) = chunk.get(e) else { continue };
            // draw order within the tile: chunks in order, each bin in
            // draw order, so the position in this walk is the order (the
            // two forms of a chunk are stored apart; their slots are not)
            s.records.push(CellRecord::new(t, s.records.len() as u32));
            let p = place(t, rect);
            if p.cells != 0 {
                mask |= 1 << p.level;
            }
            s.placements.push(p);
        }
    }
    if s.records.is_empty() {
        return;
    }

    // offsets: one array of `cells + 1` counters per non-empty level
    let mut level_base = [u32::MAX; LEVELS];
    let mut len = 0usize;
    for (level, base) in level_base.iter_mut().enumerate() {
        if mask & (1 << level) != 0 {
            *base = len as u32;
            let side = 1usize << (TILE_ORDER as usize - level);
            len += side * side + 1;
        }
    }
    let starts = &mut tile.starts;
    starts.resize(len, 0);
    let slot = |p: &Placement, bit: u32| -> usize {
        let level = u32::from(p.level);
        let cw = u32::from(p.cw);
        let (cx, cy) = (u32::from(p.cx0) + bit % cw, u32::from(p.cy0) + bit / cw);
        level_base[level as usize] as usize + ((cy << (TILE_ORDER - level)) + cx) as usize
    };
    for p in &s.placements {
        let mut c = p.cells;
        while c != 0 {
            let bit = c.trailing_zeros();
            c &= c - 1;
            starts[slot(p, bit) + 1] += 1;
        }
    }
    // prefix sums per level (each level's array starts at the previous total)
    let mut total = 0u32;
    for (level, &base) in level_base.iter().enumerate() {
        if base == u32::MAX {
            continue;
        }
        let side = 1usize << (TILE_ORDER as usize - level);
        let arr = &mut starts[base as usize..base as usize + side * side + 1];
        arr[0] = total;
        for k in 1..arr.len() {
            arr[k] += arr[k - 1];
        }
        total = arr[arr.len() - 1];
    }
    // each record's copies, cell by cell
    s.entries.clear();
    s.entries.resize(total as usize, CellEntry::default());
    s.cursor.clear();
    s.cursor.extend_from_slice(starts);
    let always = test == DepthTest::Always;
    // for `Always` the cells are filled in descending draw order, which is
    // their final order; otherwise each cell is sorted by depth bound below
    let n = s.records.len();
    for q in 0..n {
        let r = if always { n - 1 - q } else { q };
        let (p, rec) = (&s.placements[r], &s.records[r]);
        let mut c = p.cells;
        while c != 0 {
            let bit = c.trailing_zeros();
            c &= c - 1;
            let k = slot(p, bit);
            let z_lo = if always {
                rec.plane.z_min
            } else {
                cell_depth_bound(rec, p, bit, rect)
            };
            let key = (u64::from(ordered_bits(z_lo)) << 32) | u64::from(rec.order);
            s.entries[s.cursor[k] as usize] = CellEntry {
                key,
                record: r as u32,
                z_lo,
            };
            s.cursor[k] += 1;
        }
    }
    if !always {
        for w in starts.windows(2) {
            s.entries[w[0] as usize..w[1] as usize].sort_unstable_by_key(|e| e.key);
        }
    }
    tile.records.extend(s.entries.iter().map(|e| CellRecord {
        z_lo: e.z_lo,
        ..s.records[e.record as usize]
    }));
    tile.level_base = level_base;
    tile.mask = mask;
}

/// The smallest depth record `r` takes on the pixels of cell `bit` of
/// placement `p` within its bbox (rect = the tile). The f32 depth formula
/// is monotone in i and in j (each rounding is), so the minimum over a
/// rectangle is at a corner: exact, not an estimate. A non-finite plane
/// falls back to the clamp's lower bound.
fn cell_depth_bound(r: &CellRecord, p: &Placement, bit: u32, rect: [i32; 4]) -> f32 {
    let pl = &r.plane;
    if !(pl.z_ref.is_finite() && pl.dzdx.is_finite() && pl.dzdy.is_finite()) {
        return pl.z_min;
    }
    let side = 1i32 << p.level;
    let (cx, cy) = (
        i32::from(p.cx0) + (bit % u32::from(p.cw)) as i32,
        i32::from(p.cy0) + (bit / u32::from(p.cw)) as i32,
    );
    let b = p.bbox.map(i32::from);
    let x0 = rect[0] + (cx * side).max(b[0]);
    let y0 = rect[1] + (cy * side).max(b[1]);
    let x1 = rect[0] + (cx * side + side - 1).min(b[2]);
    let y1 = rect[1] + (cy * side + side - 1).min(b[3]);
    r.depth_at(x0, y0)
        .min(r.depth_at(x1, y0))
        .min(r.depth_at(x0, y1))
        .min(r.depth_at(x1, y1))
}
