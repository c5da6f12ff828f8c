//! Selection beyond a single click: a pick radius
//! ([`Frame::nearest_covered`], [`Picks::near`]), box and lasso
//! selection, visible-only or x-ray ([`Picks::rect`], [`Picks::lasso`],
//! [`SelectMode`]), and click-cycling through everything under the cursor
//! ([`PickCycle`]).
//!
//! Every test is exact integer arithmetic on the rasterizer's 1/256-pixel
//! lattice; the rules are documented on the public items.

mod bits;
mod coverage;
mod lasso;
mod overlap;

use crate::par::prelude::*;
use glam::Vec4;

use crate::frame::{Frame, NO_TRIANGLE};
use crate::pick::{Hit, Picks};
use crate::raster::clip::{Guard, CLIP_MASK, FRUSTUM_MASK, OUT_INVALID};
use crate::raster::rules::{snap, snapped_area, SUBPIXEL_ONE, TILE_ORDER};
use crate::scene::{MeshId, Scene};
use bits::Bits;
use coverage::{covers_lasso, covers_rect};
use lasso::Lasso;
use overlap::{tri_overlaps_box, tri_overlaps_lasso};

/// Which triangles a region selection ([`Picks::rect`],
/// [`Picks::lasso`]) reports.
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
/// by [`Picks::stack`] (one entry per mesh, near to far), wrapping
/// after the farthest. A click at another pixel, or at the same pixel when
/// the stack there changed (a new frame, a moved mesh), starts again from
/// the nearest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PickCycle {
    /// The pixel of the previous click, if any.
    pixel: Option<(i64, i64)>,
    /// The stack under it: (mesh, global triangle) per mesh, near to far.
    stack: Vec<(MeshId, u32)>,
    /// The entry the previous click returned.
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

    /// A click at pixel (x, y) of the view's frame: the hit of the next
    /// mesh in [`Picks::stack`] under it, with the view's method (see
    /// [`PickCycle`]); `None` (and a reset) on background or outside the
    /// frame.
    pub fn click(&mut self, picks: Picks<'_>, x: i64, y: i64) -> Option<Hit> {
        let hits = picks.stack(x, y);
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

/// The region of a box or lasso selection, in pixels.
enum Region {
    /// Inclusive pixel rectangle inside the frame: x0, y0, x1, y1.
    Rect([i32; 4]),
    /// A snapped lasso with its pixel spans.
    Lasso(Lasso),
}

impl Picks<'_> {
    /// What is under pixel (x, y) with the view's method, or else at the
    /// nearest covered pixel within `radius_px` (see
    /// [`Frame::nearest_covered`]): the view's answer at that pixel. For
    /// thin and small things: a click a few pixels off still finds them.
    #[must_use]
    pub fn near(self, x: i64, y: i64, radius_px: f32) -> Option<Hit> {
        if let Some(hit) = self.at(x, y) {
            return Some(hit);
        }
        let near = self.frame.nearest_covered(x, y, radius_px)?;
        self.at(i64::from(near.x), i64::from(near.y))
    }

    /// The triangles and meshes in the inclusive pixel rectangle spanned by
    /// pixels (x0, y0) and (x1, y1): corners in any order, clamped to the
    /// frame (a rectangle entirely outside selects nothing). `Visible`
    /// reads the ID buffer; `Through` also finds occluded and sub-pixel
    /// triangles; the exact rules are on [`SelectMode`]. The view's method
    /// does not matter.
    #[must_use]
    pub fn rect(self, x0: i64, y0: i64, x1: i64, y1: i64, mode: SelectMode) -> Selection {
        let f = self.frame;
        let (w, h) = (i64::from(f.width), i64::from(f.height));
        let (ax, bx) = (x0.min(x1).max(0), x0.max(x1).min(w - 1));
        let (ay, by) = (y0.min(y1).max(0), y0.max(y1).min(h - 1));
        if ax > bx || ay > by {
            return Selection::default();
        }
        let r = [ax as i32, ay as i32, bx as i32, by as i32];
        f.select_region(self.scene, &Region::Rect(r), mode)
    }

    /// The triangles and meshes inside the lasso `polygon`, a closed
    /// polygon in window coordinates (pixels, y down, pixel centres at +0.5;
    /// the last vertex connects back to the first; self-intersections
    /// allowed). The view's method does not matter.
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
    pub fn lasso(self, polygon: &[[f32; 2]], mode: SelectMode) -> Selection {
        let f = self.frame;
        match Lasso::new(polygon, f.width, f.height) {
            Some(l) => f.select_region(self.scene, &Region::Lasso(l), mode),
            None => Selection::default(),
        }
    }
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

    /// The selection in `region`: the ID buffer's triangles over the
    /// region's pixels, plus for `Through` the two passes that find occluded
    /// and sub-pixel triangles.
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
            marked = self.mark_covering(scene, region, marked);
            self.mark_overlapping(scene, region, &mut marked);
        }
        to_selection(scene, &marked, pixels)
    }

    /// Through, part 1: set-up pieces covering a pixel centre of the region,
    /// over the bins of the tiles the region touches (each piece tested
    /// once; chunks in parallel).
    fn mark_covering(&self, scene: &Scene, region: &Region, marked: Bits) -> Bits {
        let bbox = match region {
            Region::Rect(r) => *r,
            Region::Lasso(l) => match l.pixel_bounds {
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
        let n = marked.len();
        // (hidden triangles too: every triangle's records)
        let found = self
            .all_chunks(scene)
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
                l.snapped_bounds[0].max(frame_box[0]),
                l.snapped_bounds[1].max(frame_box[1]),
                l.snapped_bounds[2].min(frame_box[2]),
                l.snapped_bounds[3].min(frame_box[3]),
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
fn to_selection(scene: &Scene, marked: &Bits, pixels: usize) -> Selection {
    let triangles = marked.indices();
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
mod tests;
