//! The occlusion cull of dense frames: runs of consecutive triangles
//! (occlusion chunks, [`OCCLUSION_CHUNK_TRIS`] of a mesh, each bounded by
//! its object-space box, [`crate::scene::Mesh::chunk_boxes`]) that lie
//! behind what is drawn are never set up. Exact: the frame is bit for bit
//! the one without the cull.
//!
//! 1. Each chunk's box is projected: its pixel rectangle and `z_lo`, a
//!    lower bound of any window depth its triangles can write
//!    ([`bound_box`]). A box that reaches the near plane or behind the eye
//!    has none (`-inf`).
//! 2. The chunks on screen nearest the eye by `z_lo` ([`OCCLUDER_PERMILLE`]
//!    of them) are set up and binned first (the occluder pass, the
//!    normal pipeline), and rasterized into the frame (cleared first as
//!    always), whose depth buffer is reduced to the farthest depth of
//!    each square of [`OCCLUSION_TILE`] pixels (an uncovered pixel holds
//!    the clear value 1; so do the squares of a tile the raster left
//!    clear, which are not read).
//! 3. A chunk whose `z_lo` is greater than the farthest depth of every
//!    square its rectangle touches is culled; the others are set up and
//!    added to the occluders' chunks in a second pass and drawn over the
//!    occluders, ties of depth decided by triangle id
//!    (`raster::tile::Entries::Survivors`); then each bin is merged back
//!    into draw order (`raster::bin::merge_split_bins`) for the picks.
//!
//! Why nothing changes: a triangle's depth at a pixel depends on that
//! triangle only, so at every pixel the frame's final depth is at most
//! the occluders' (a subset of the same fragments), at most its square's
//! maximum, below `z_lo`, at most any depth a culled triangle could write
//! there. Under `Less` (the earlier triangle keeps a tie) and `LessEqual`
//! (the later one) the pixel's owner is a triangle of the least depth, so
//! a culled triangle never owns a pixel, and the color, depth and ID are
//! the owner's (no blending). Which one of the least depth: one pass in
//! draw order keeps the least (depth, id) pair under `Less` and the least
//! (depth, −id) under `LessEqual` (ids grow in draw order). The occluders'
//! pass leaves each pixel the least pair among them; the survivors' pass,
//! in draw order, replaces a pixel's fragment when its own pair is less,
//! with the id deciding equal depths, so each pixel ends with the least
//! pair of all. The cull is off for `Always` (painter's order) and for
//! user clip planes (the bound ignores them).
//!
//! The bound. A triangle's depth at a pixel is its depth plane clamped to
//! the range of its corners' window depths (`raster::setup::DepthPlane`),
//! so it is at least its lowest corner's, computed in f32 by the vertex
//! stage (`clip = mvp · p`, then `z / w · 0.5 + 0.5`) or, for a triangle
//! clipped at the guard band, from f64 clip coordinates rounded to f32.
//! The exact `z / w` of a point of the box is at least the least of its
//! eight corners' (a ratio of two affine functions with a positive
//! denominator reaches its extremes at vertices), computed here in f64
//! with `vp · world`. The f32 evaluation differs from it by at most
//! `E_c = 16u·S_c` in each clip coordinate c, with `u = 2⁻²⁴` and `S_c`
//! the row of `|vp|·|world|` applied to the box's largest magnitudes
//! (the f32 product `vp · world` is within `γ₃` of it per entry and the
//! f32 `mvp · p` within `γ₄`, the f64 clipper's coordinates within `u`
//! after rounding), so `z / w` is off by at most
//! `(E_z + |z/w|·E_w) / (w − E_w)` plus the division's and the window
//! mapping's rounding, `u·(|z/w| + 1)` each. `z_lo` is the corners'
//! least `z / w` mapped to window depth, less twice that sum; a box with
//! `w ≤ 2E_w` somewhere gets no bound. The rectangle is widened the same
//! way, plus two pixels for snapping and pixel centres.

use glam::{DMat4, Mat4};

use crate::geometry::Aabb;
use crate::limits::{
    OCCLUDER_PERMILLE, OCCLUSION_CHUNK_TRIS, OCCLUSION_MIN_TRIS, OCCLUSION_TILE,
    OCCLUSION_TRIS_PER_KPIXEL, TILE_SIZE,
};
use crate::par::prelude::*;
use crate::raster::bin::pass;
use crate::raster::rules::DepthTest;
use crate::scene::{Mesh, Scene};

/// When a render culls hidden chunks: the renderer decides (`Auto`); a
/// frame's hidden triangles are set up again without it (`Never`, for
/// [`super::Frame::all_chunks`]); the tests force it on (`Always`) and
/// compare the frames with `Never`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cull {
    /// Frames of at least [`OCCLUSION_TRIS_PER_KPIXEL`] triangles per
    /// thousand pixels
    /// (less the renders after one that culled little, see
    /// [`crate::limits::OCCLUSION_MIN_YIELD`])
    /// and [`OCCLUSION_MIN_TRIS`] triangles.
    Auto,
    Never,
    #[cfg(test)]
    Always,
    /// As `Always`, with the occluders drawn first picked at random (from
    /// the seed) among the chunks on screen instead of by nearness: the
    /// frame must not depend on which they are.
    #[cfg(test)]
    Shuffled(u64),
}

impl Cull {
    /// Whether a render of `tris` triangles into `w` × `h` pixels under
    /// `test`, with user clip planes or not, culls. Never under
    /// [`DepthTest::Always`] nor with clip planes, where the argument
    /// above does not hold.
    pub(crate) fn enabled(self, test: DepthTest, clip: bool, tris: u64, w: u32, h: u32) -> bool {
        if test == DepthTest::Always || clip {
            return false;
        }
        match self {
            Cull::Auto => {
                tris >= OCCLUSION_MIN_TRIS
                    && tris * 1000 >= OCCLUSION_TRIS_PER_KPIXEL * u64::from(w) * u64::from(h)
            }
            Cull::Never => false,
            #[cfg(test)]
            Cull::Always | Cull::Shuffled(_) => true,
        }
    }
}

/// What the cull knows of one occlusion chunk in a frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkBound {
    /// A lower bound of every window depth its triangles can write;
    /// `-inf` when there is none (the box reaches the near plane).
    pub z_lo: f32,
    /// Squares of [`OCCLUSION_TILE`] pixels it may cover: x0, y0, x1, y1,
    /// inclusive; `x0 > x1` when none (off screen, or no box).
    pub rect: [u32; 4],
    /// Its triangles.
    pub tris: u32,
}

impl Default for ChunkBound {
    fn default() -> Self {
        Self {
            z_lo: f32::NEG_INFINITY,
            rect: [1, 0, 0, 0],
            tris: 0,
        }
    }
}

impl ChunkBound {
    fn on_screen(&self) -> bool {
        self.rect[0] <= self.rect[2]
    }
}

/// The renderer's occlusion scratch, reused from render to render.
#[derive(Debug, Default)]
pub(crate) struct Occlusion {
    /// Per occlusion chunk, mesh after mesh, its pass ([`pass`]).
    pub pass_of: Vec<u8>,
    /// Per mesh, the index of its first occlusion chunk.
    pub first: Vec<u32>,
    bounds: Vec<ChunkBound>,
    order: Vec<u64>,
    tile_max: Vec<f32>,
}

/// f32's unit roundoff.
const U: f64 = 1.0 / 16_777_216.0;

/// The bound of the triangles inside object-space box `b` of a mesh
/// drawn with `mvp` (`vp · world` in f64) into a `w` × `h` frame; `abs`
/// is `|vp|·|world|`. See the module documentation.
pub(crate) fn bound_box(
    mvp: &DMat4,
    abs: &DMat4,
    b: &Aabb,
    w: u32,
    h: u32,
    tris: u32,
) -> ChunkBound {
    let none = ChunkBound {
        tris,
        ..ChunkBound::default()
    };
    if b.is_empty() {
        return none;
    }
    let (lo, hi) = (b.min.as_dvec3(), b.max.as_dvec3());
    // the corners' clip coordinates: the low corner's plus the columns
    // scaled by the box's extent (f64 sums, whose rounding, 2^-50 of
    // them, the f32 margin below covers many times over)
    let c0 = *mvp * lo.extend(1.0);
    let d = hi - lo;
    let (ex, ey, ez) = (mvp.x_axis * d.x, mvp.y_axis * d.y, mvp.z_axis * d.z);
    // (lane by lane over the eight corners, which LLVM vectorizes)
    let corner = |k: usize| {
        let mut c = c0;
        if k & 1 != 0 {
            c += ex;
        }
        if k & 2 != 0 {
            c += ey;
        }
        if k & 4 != 0 {
            c += ez;
        }
        c
    };
    let cs: [_; 8] = std::array::from_fn(corner);
    let lane = |j: usize| -> [f64; 8] { std::array::from_fn(|k| cs[k][j]) };
    let (xs, ys, zs, ws) = (lane(0), lane(1), lane(2), lane(3));
    // every corner in front of the eye and beyond the near plane
    if !ws.iter().zip(&zs).all(|(&w, &z)| w > 0.0 && z >= -w) {
        return none;
    }
    let n = |v: &[f64; 8]| -> [f64; 8] { std::array::from_fn(|k| v[k] / ws[k]) };
    let (nx, ny, nz) = (n(&xs), n(&ys), n(&zs));
    let lo_hi = |v: &[f64; 8]| {
        v.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            })
    };
    let ((x_min, x_max), (y_min, y_max), (z_min, z_max)) = (lo_hi(&nx), lo_hi(&ny), lo_hi(&nz));
    let w_min = lo_hi(&ws).0;
    let (x_abs, y_abs, z_abs) = (
        x_min.abs().max(x_max.abs()),
        y_min.abs().max(y_max.abs()),
        z_min.abs().max(z_max.abs()),
    );
    let a = lo.abs().max(hi.abs()).extend(1.0);
    let s = *abs * a;
    let e = s * (16.0 * U);
    if !(w_min > 2.0 * e.w) || !s.is_finite() {
        return none;
    }
    // how far the f32 pipeline's ndc value may lie from the exact one
    let off = |c_err: f64, n_abs: f64| {
        2.0 * ((c_err + n_abs * e.w) / (w_min - e.w) + 2.0 * U * (n_abs + 1.0))
    };
    let z_lo = (z_min * 0.5 + 0.5) - 0.5 * off(e.z, z_abs) - 2.0 * U;
    // the pixel rectangle (window y runs down)
    let (wf, hf) = (f64::from(w), f64::from(h));
    let (dx, dy) = (
        0.5 * wf * off(e.x, x_abs) + 2.0,
        0.5 * hf * off(e.y, y_abs) + 2.0,
    );
    let sx = [(x_min * 0.5 + 0.5) * wf - dx, (x_max * 0.5 + 0.5) * wf + dx];
    let sy = [(0.5 - y_max * 0.5) * hf - dy, (0.5 - y_min * 0.5) * hf + dy];
    if !(sx[1] >= 0.0 && sy[1] >= 0.0 && sx[0] < wf && sy[0] < hf) {
        // off screen
        return ChunkBound {
            z_lo: z_lo as f32,
            ..none
        };
    }
    let t = f64::from(OCCLUSION_TILE);
    let clamp = |v: f64, n: u32| (v.max(0.0) / t).min(f64::from((n - 1) / OCCLUSION_TILE)) as u32;
    ChunkBound {
        // (an f32 a rounding below the f64 bound at worst: 2u of the margin)
        z_lo: z_lo as f32,
        rect: [
            clamp(sx[0], w),
            clamp(sy[0], h),
            clamp(sx[1], w),
            clamp(sy[1], h),
        ],
        tris,
    }
}

impl Occlusion {
    /// Bounds every occlusion chunk of `scene` (meshes placed by `worlds`)
    /// seen through `vp` in a `w` × `h` frame, and marks the nearest on
    /// screen as occluders, the others to draw. Returns the number of
    /// occluder triangles.
    pub(crate) fn plan(&mut self, scene: &Scene, worlds: &[Mat4], vp: Mat4, w: u32, h: u32) -> u64 {
        let meshes = scene.meshes();
        self.first.clear();
        let mut n = 0u32;
        for m in meshes {
            self.first.push(n);
            n += m.triangles().len().div_ceil(OCCLUSION_CHUNK_TRIS) as u32;
        }
        self.bounds.clear();
        self.bounds.resize(n as usize, ChunkBound::default());
        let vp64 = vp.as_dmat4();
        let vp_abs = abs(&vp64);
        for (m, mesh) in meshes.iter().enumerate() {
            // (in a scene of many small meshes each mesh's boxes are a wait
            // on memory)
            Mesh::prefetch_ahead(meshes, m, Mesh::prefetch_chunk_boxes);
            let world = worlds[m].as_dmat4();
            let mvp = vp64 * world;
            let abs_mvp = vp_abs * abs(&world);
            let boxes = mesh.chunk_boxes();
            let ntris = mesh.triangles().len();
            let at = self.first[m] as usize;
            let out = &mut self.bounds[at..at + boxes.len()];
            let one = |(k, (o, b)): (usize, (&mut ChunkBound, &Aabb))| {
                let tris = (ntris - k * OCCLUSION_CHUNK_TRIS).min(OCCLUSION_CHUNK_TRIS) as u32;
                *o = bound_box(&mvp, &abs_mvp, b, w, h, tris);
            };
            if boxes.len() >= 256 {
                out.par_iter_mut()
                    .zip(boxes.par_iter())
                    .enumerate()
                    .for_each(one);
            } else {
                out.iter_mut().zip(boxes.iter()).enumerate().for_each(one);
            }
        }
        // the nearest on screen, OCCLUDER_PERMILLE of them: keys of
        // (bound, chunk) in an order-preserving u64 (a bound is a finite
        // f32 or -inf, so its bits, sign-flipped, order like the values)
        self.order.clear();
        self.order.extend((0..n).filter_map(|k| {
            let b = &self.bounds[k as usize];
            b.on_screen().then(|| {
                let bits = b.z_lo.to_bits();
                let key = if bits >> 31 == 1 {
                    !bits
                } else {
                    bits | 1 << 31
                };
                u64::from(key) << 32 | u64::from(k)
            })
        }));
        let want = self.order.len() * OCCLUDER_PERMILLE as usize / 1000;
        self.pass_of.clear();
        self.pass_of.resize(n as usize, pass::DRAW);
        let mut taken = 0u64;
        if want > 0 {
            self.order.select_nth_unstable(want - 1);
            for &key in &self.order[..want] {
                let k = key as u32 as usize;
                self.pass_of[k] = pass::OCCLUDER;
                taken += u64::from(self.bounds[k].tris);
            }
        }
        taken
    }

    /// Makes each chunk on screen an occluder or one to draw at random,
    /// from `seed` ([`Cull::Shuffled`]).
    #[cfg(test)]
    pub(crate) fn shuffle(&mut self, seed: u64) {
        let mut rng = crate::test_util::Rng(seed);
        for (p, b) in self.pass_of.iter_mut().zip(&self.bounds) {
            if b.on_screen() {
                *p = if rng.next_u64() & 1 == 0 {
                    pass::OCCLUDER
                } else {
                    pass::DRAW
                };
            }
        }
    }

    /// After the occluders are drawn (and nothing else) into `depth`, a
    /// `w` × `h` frame's: the farthest depth of each square, then every
    /// chunk to draw whose bound lies beyond all its squares' is marked
    /// culled. Returns the culled triangles.
    ///
    /// `clear` is the raster's record of the tiles it left clear
    /// (`raster::tile::PixelBuffers::clean`: per band of `band_rows` rows
    /// and column of [`TILE_SIZE`] pixels, band major, whether no
    /// triangle was binned to it): their squares hold the clear depth 1
    /// throughout, so their maxima are 1 without reading them (most of a
    /// frame whose model covers a part of it).
    pub(crate) fn cull(
        &mut self,
        depth: &[f32],
        w: u32,
        h: u32,
        clear: &[bool],
        band_rows: u32,
    ) -> u64 {
        let (w, h) = (w as usize, h as usize);
        let t = OCCLUSION_TILE as usize;
        let (tw, th) = (w.div_ceil(t), h.div_ceil(t));
        let tiles_x = w.div_ceil(TILE_SIZE as usize);
        // (a band and a tile are whole squares: 8 divides both)
        let is_clear = |ty: usize, tx: usize| {
            let band = ty * t / band_rows as usize;
            clear
                .get(band * tiles_x + tx * t / TILE_SIZE as usize)
                .copied()
                .unwrap_or(false)
        };
        self.tile_max.clear();
        self.tile_max.resize(tw * th, 0.0);
        self.tile_max
            .par_chunks_mut(tw)
            .enumerate()
            .for_each(|(ty, maxes)| {
                let rows = depth.chunks(w).skip(ty * t).take(t);
                for (tx, m) in maxes.iter_mut().enumerate() {
                    if is_clear(ty, tx) {
                        *m = 1.0;
                        continue;
                    }
                    let x0 = tx * t;
                    for row in rows.clone() {
                        for &d in &row[x0..(x0 + t).min(w)] {
                            // (a NaN is never stored: depths are clamped to finite corners)
                            if d > *m {
                                *m = d;
                            }
                        }
                    }
                }
            });
        let tile_max = &self.tile_max;
        self.pass_of
            .par_iter_mut()
            .zip(self.bounds.par_iter())
            .map(|(p, b)| {
                if *p != pass::DRAW || !b.on_screen() || b.z_lo == f32::NEG_INFINITY {
                    return 0;
                }
                let [x0, y0, x1, y1] = b.rect.map(|v| v as usize);
                let hidden = (y0..=y1).all(|ty| {
                    tile_max[ty * tw + x0..=ty * tw + x1]
                        .iter()
                        .all(|&m| b.z_lo > m)
                });
                if hidden {
                    *p = pass::CULLED;
                    u64::from(b.tris)
                } else {
                    0
                }
            })
            .reduce(|| 0, |a, b| a + b)
    }
}

/// The matrix of the absolute values of `m`'s entries.
fn abs(m: &DMat4) -> DMat4 {
    DMat4::from_cols(
        m.x_axis.abs(),
        m.y_axis.abs(),
        m.z_axis.abs(),
        m.w_axis.abs(),
    )
}

#[cfg(test)]
mod tests;
