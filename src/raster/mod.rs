//! The rasterizer, by pipeline stage (after Mesa's llvmpipe):
//!
//! 1. **vertex** (here): every mesh vertex to clip space, outcode, window
//!    position and snapped fixed point → the screen-space vertex buffer;
//! 2. [`clip`]: near plane and guard band in homogeneous space, only for
//!    triangles that need it;
//! 3. [`setup`]: per triangle, integer edges, bbox, depth plane, fill-rule bias;
//! 4. [`bin`]: triangles into 64×64 tile bins, in draw order, in fixed-size
//!    chunks set up in parallel (the chunking depends on the triangle count
//!    only, never on the thread count); with color, [`shade`] then colors
//!    each chunk's set-up triangles;
//! 5. [`tile`]: bands of tiles rasterized in parallel, one writer per band.
//!    Each tile's part of a band is cleared right before its triangles are
//!    drawn (while it is in cache) if the previous render into the same
//!    frame may have drawn there: every tile that had a bin entry then
//!    (`Frame::clean` remembers the others, which still hold the clear
//!    values), all of them after a size change.
//!
//! All conventions live in [`rules`].

pub(crate) mod bin;
pub(crate) mod clip;
pub mod rules;
pub(crate) mod setup;
pub(crate) mod shade;
pub(crate) mod stats;
pub(crate) mod tile;
pub(crate) mod vertex;

use glam::{DMat4, DVec3, DVec4, Mat4, Vec3, Vec4};
use rayon::prelude::*;
use std::time::{Duration, Instant};

use crate::camera::{clip_to_window, Camera};
use crate::error::Error;
use crate::frame::Frame;
use crate::geometry::{plane_f64, CullMode};
use crate::scene::Scene;
use bin::Chunk;
use bin::TileGrid;
use clip::{Guard, CLIP_MASK, FRUSTUM_MASK, OUT_INVALID};
use rules::{snap, snap_in_band, DepthTest, FillRule, TILE_SIZE};
use setup::{Rejected, SmallTri, TriSetup, WinVertex};
pub use stats::{StageTimes, Stats};
use vertex::ScreenVertex;

use crate::cpu::prefetch;
use crate::limits::{
    chunk_tris, CHUNK_VERTS, EARLY_EMPTY_TRIS_PER_PIXEL, PREFETCH_TRIS, SCATTERED_JUMP,
    SCATTER_SAMPLES, TILE_SORT_MIN_TRIS, TILE_SORT_SWITCHES, VERTEX_BLOCK,
};

/// Rendering options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// Fill rule (default top-left).
    pub rule: FillRule,
    /// Face culling (default none).
    pub cull: CullMode,
    /// Depth test (default less).
    pub depth_test: DepthTest,
    /// Write the color buffer too (default true); false is the pick-only pass (depth + ID).
    pub color: bool,
    /// Worker threads; `None` uses rayon's global pool.
    pub threads: Option<usize>,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            rule: FillRule::TopLeft,
            cull: CullMode::None,
            depth_test: DepthTest::Less,
            color: true,
            threads: None,
        }
    }
}

/// Per-frame scratch buffers kept by the renderer (reused, never shrunk).
struct Scratch<'a> {
    verts: &'a mut Vec<VertOut>,
    world_pos: &'a mut Vec<Vec3>,
}

/// What setup reads per vertex: 24 bytes (the triangles of a mesh gather
/// them by index, so their size is memory traffic). Clip coordinates are
/// recomputed for the few triangles that need clipping.
#[derive(Clone, Copy, Debug, Default)]
struct VertOut {
    win: WinVertex,
    code: u16,
}

/// A renderer: options, an optional private thread pool, and a frame whose
/// buffers are reused from render to render.
///
/// ```
/// use softpick::{builtin_scene, Camera, Renderer, RenderOptions};
/// let scene = builtin_scene();
/// let camera = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
/// let mut r = Renderer::new(RenderOptions::default()).unwrap();
/// let frame = r.render(&scene, &camera).unwrap();
/// let hit = frame.pick(&scene, 180, 300).expect("the floor is there");
/// assert_eq!(frame.pick_direct(&scene, 180, 300).unwrap().global_triangle, hit.global_triangle);
/// ```
#[derive(Debug)]
pub struct Renderer {
    opts: RenderOptions,
    pool: Option<rayon::ThreadPool>,
    frame: Frame,
    verts: Vec<VertOut>,
    world_pos: Vec<Vec3>,
    tile_sort: TileSort,
    early_empty: EarlyEmpty,
}

/// When setup stores a chunk's records tile by tile ([`sort_by_tile`]):
/// the renderer decides (`Auto`); the tests force either way, and check
/// that the frames are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TileSort {
    /// Scenes of at least [`TILE_SORT_MIN_TRIS`] triangles, chunks whose
    /// records change tile often enough ([`TILE_SORT_SWITCHES`]).
    Auto,
    #[cfg(test)]
    Always,
    #[cfg(test)]
    Never,
}

/// Whether setup's empty-box test is made first, inline ([`SetupCtx::emit`]):
/// the renderer decides (`Auto`); the tests also force it off, and check
/// that the frames are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EarlyEmpty {
    /// Scenes of at least [`EARLY_EMPTY_TRIS_PER_PIXEL`] triangles per
    /// pixel, under a rule that draws no zero-area lines.
    Auto,
    #[cfg(test)]
    Never,
}

impl Renderer {
    /// A renderer; fails only if a thread pool of `opts.threads` cannot be built.
    pub fn new(opts: RenderOptions) -> Result<Self, Error> {
        let pool = match opts.threads {
            None => None,
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .build()
                    .map_err(|e| Error::Window(format!("cannot start {n} threads: {e}")))?,
            ),
        };
        Ok(Self {
            opts,
            pool,
            frame: Frame::new(1, 1).expect("1x1 is a valid size"),
            verts: Vec::new(),
            world_pos: Vec::new(),
            tile_sort: TileSort::Auto,
            early_empty: EarlyEmpty::Auto,
        })
    }

    /// The options.
    #[must_use]
    pub fn options(&self) -> RenderOptions {
        self.opts
    }

    /// Changes rule, cull, depth test or color (the thread setting is fixed at creation).
    pub fn set_options(&mut self, opts: RenderOptions) {
        self.opts = RenderOptions {
            threads: self.opts.threads,
            ..opts
        };
    }

    /// The last rendered frame.
    #[must_use]
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    /// Takes the frame out (a fresh one is allocated on the next render).
    #[must_use]
    pub fn into_frame(self) -> Frame {
        self.frame
    }

    /// Renders `scene` from `camera` into the reused frame. Fails only for an
    /// invalid camera.
    pub fn render(&mut self, scene: &Scene, camera: &Camera) -> Result<&Frame, Error> {
        camera.validate().map_err(Error::InvalidCamera)?;
        let opts = self.opts;
        let scratch = Scratch {
            verts: &mut self.verts,
            world_pos: &mut self.world_pos,
        };
        let frame = &mut self.frame;
        let (sort, early) = (self.tile_sort, self.early_empty);
        match &self.pool {
            Some(p) => p.install(|| render_into(scene, camera, opts, frame, scratch, sort, early)),
            None => render_into(scene, camera, opts, frame, scratch, sort, early),
        }
        Ok(&self.frame)
    }
}

/// Renders once with a new renderer and returns the frame.
pub fn render(scene: &Scene, camera: &Camera, opts: RenderOptions) -> Result<Frame, Error> {
    let mut r = Renderer::new(opts)?;
    r.render(scene, camera)?;
    Ok(r.into_frame())
}

fn render_into(
    scene: &Scene,
    camera: &Camera,
    opts: RenderOptions,
    frame: &mut Frame,
    scratch: Scratch<'_>,
    tile_sort: TileSort,
    early_empty: EarlyEmpty,
) {
    let Scratch { verts, world_pos } = scratch;
    let (w, h) = (camera.width, camera.height);
    frame.resize(w, h);
    frame.direct.reset();
    frame.camera = Some(*camera);
    frame.inv_view_proj = camera.inverse_view_proj();
    frame.rule = opts.rule;
    frame.cull = opts.cull;
    frame.depth_test = opts.depth_test;
    frame.has_color = opts.color;
    // what ray picks build from the render, at the first one
    frame.xforms = Default::default();
    frame.view = Default::default();
    // the meshes' world matrices (in parallel for a scene of many meshes:
    // 0.8 ms for 50,000 parts on one thread), timed with the vertex stage
    let started = Instant::now();
    scene.world_matrices_into(&mut frame.worlds);
    let vp = camera.view_proj();
    let guard = Guard::new(w, h);
    let (wf, hf) = (w as f32, h as f32);

    // 1. vertex stage
    frame.vertex_offsets.clear();
    let mut total = 0u32;
    for m in scene.meshes() {
        frame.vertex_offsets.push(total);
        total += m.positions().len() as u32;
    }
    verts.resize(total as usize, VertOut::default());
    frame
        .vertices
        .resize(total as usize, ScreenVertex::default());
    world_pos.resize(if opts.color { total as usize } else { 0 }, Vec3::ZERO);
    // One parallel pass over fixed chunks of the concatenated vertex buffer
    // (not one pass per mesh: a scene of thousands of small meshes would pay
    // a parallel dispatch each); a chunk spanning several meshes switches
    // matrices at their boundaries.
    let offsets = &frame.vertex_offsets;
    let worlds = &frame.worlds;
    let meshes = scene.meshes();
    let run = |k: usize, out: &mut [VertOut], sv: &mut [ScreenVertex], wp: Option<&mut [Vec3]>| {
        let start = k * CHUNK_VERTS;
        let end = start + out.len();
        let mut wp = wp;
        let mut mi = offsets.partition_point(|&o| o as usize <= start) - 1;
        let mut at = start;
        // clip coordinates of a block of vertices (see below)
        let mut clips = [Vec4::ZERO; VERTEX_BLOCK];
        while at < end {
            let m_start = offsets[mi] as usize;
            let m_end = m_start + meshes[mi].positions().len();
            let stop = m_end.min(end);
            if stop > at {
                let world = worlds[mi];
                let mvp = vp * world;
                let pos = &meshes[mi].positions()[at - m_start..stop - m_start];
                let (o, s) = (
                    &mut out[at - start..stop - start],
                    &mut sv[at - start..stop - start],
                );
                // in blocks: first the clip coordinates, then the rest
                // (one long chain per vertex, matrix to snap, left few
                // vertices in flight at once)
                for ((o, s), pos) in o
                    .chunks_mut(VERTEX_BLOCK)
                    .zip(s.chunks_mut(VERTEX_BLOCK))
                    .zip(pos.chunks(VERTEX_BLOCK))
                {
                    for (c, p) in clips.iter_mut().zip(pos) {
                        *c = clip_of(&mvp, *p);
                    }
                    for ((v, s), &clip) in o.iter_mut().zip(s.iter_mut()).zip(&clips) {
                        *v = vertex_of(clip, &guard, wf, hf);
                        *s = ScreenVertex {
                            x: v.win.x,
                            y: v.win.y,
                            z: v.win.z,
                            w: clip.w,
                        };
                    }
                }
                if let Some(wp) = wp.as_deref_mut() {
                    for (o, p) in wp[at - start..stop - start].iter_mut().zip(pos) {
                        *o = world.transform_point3(*p);
                    }
                }
                at = stop;
            }
            mi += 1;
        }
    };
    let work = verts
        .par_chunks_mut(CHUNK_VERTS)
        .zip(frame.vertices.par_chunks_mut(CHUNK_VERTS))
        .enumerate();
    if opts.color {
        work.zip(world_pos.par_chunks_mut(CHUNK_VERTS))
            .for_each(|((k, (o, s)), w)| run(k, o, s, Some(w)));
    } else {
        work.for_each(|(k, (o, s))| run(k, o, s, None));
    }

    let vertex_done = Instant::now();
    // 2-4. clip, setup and bin, in fixed chunks of the global triangle order
    let total_tris = scene.triangle_count() as usize;
    let per_chunk = chunk_tris(total_tris);
    let nchunks = total_tris.div_ceil(per_chunk);
    let grid = TileGrid::new(w, h);
    frame.chunks.resize_with(nchunks, Chunk::default);
    let ctx = SetupCtx {
        scene,
        camera,
        opts,
        guard,
        per_chunk,
        offsets: &frame.vertex_offsets,
        verts,
        world_pos,
        worlds: &frame.worlds,
        view_proj: vp,
        grid,
        tile_sort,
        early_empty: match early_empty {
            EarlyEmpty::Auto => {
                opts.rule != FillRule::Inclusive
                    && total_tris as u64 >= EARLY_EMPTY_TRIS_PER_PIXEL * u64::from(w) * u64::from(h)
            }
            #[cfg(test)]
            EarlyEmpty::Never => false,
        },
    };
    frame
        .chunks
        .par_iter_mut()
        .enumerate()
        .for_each(|(ci, chunk)| ctx.run_chunk(ci, chunk));
    let mut stats = Stats::default();
    for c in &frame.chunks {
        stats.add(&c.stats);
    }
    frame.stats = stats;

    // 5. clear and rasterize bands of tiles, one writer per band
    let setup_done = Instant::now();
    raster_bands(frame, grid, opts);
    frame.stage_times = StageTimes {
        vertex: vertex_done - started,
        setup: setup_done - vertex_done,
        raster: setup_done.elapsed(),
    };
}

fn raster_bands(frame: &mut Frame, grid: TileGrid, opts: RenderOptions) {
    let w = frame.width;
    let band_rows = crate::limits::band_rows(frame.height) as usize;
    let band_len = band_rows * w as usize;
    let chunks = &frame.chunks;
    let tiles_x = grid.tiles_x as usize;
    let test = opts.depth_test;
    let width = w as usize;
    let bands = (frame.height as usize).div_ceil(band_rows);
    if frame.clean.len() != bands * tiles_x {
        frame.clean.clear();
        frame.clean.resize(bands * tiles_x, false);
    }
    // a color buffer left as it was by a render without color is cleared whole
    let color_stale = !frame.color_clean;
    let run = |band: usize,
               depth: &mut [f32],
               ids: &mut [u32],
               color: Option<&mut [u32]>,
               clean: &mut [bool]| {
        let y0 = band * band_rows;
        let ty = y0 / TILE_SIZE as usize;
        let mut b = tile::Band {
            y0: y0 as i32,
            width,
            depth,
            ids,
            color,
        };
        // the band's rows lie in one row of tiles (band_rows divides TILE_SIZE)
        tile::raster_band(&mut b, ty, chunks, test, clean, color_stale);
        // a tile no triangle was binned to was not drawn into: still clear
        for (tx, c) in clean.iter_mut().enumerate() {
            let bin = ty * tiles_x + tx;
            *c = chunks.iter().all(|ch| ch.bins[bin].is_empty());
        }
    };
    let work = frame
        .depth
        .par_chunks_mut(band_len)
        .zip(frame.ids.par_chunks_mut(band_len))
        .zip(frame.clean.par_chunks_mut(tiles_x))
        .enumerate();
    if opts.color {
        work.zip(frame.color.par_chunks_mut(band_len))
            .for_each(|((b, ((d, i), k)), c)| run(b, d, i, Some(c), k));
    } else {
        work.for_each(|(b, ((d, i), k))| run(b, d, i, None, k));
    }
    frame.color_clean = opts.color;
}

/// Rasterizes 2D triangles given directly in window coordinates (pixels,
/// y down, pixel centres at +0.5) in painter's order, without depth test:
/// the screen-space entry point used for conformance fixtures. The returned
/// frame's ID buffer holds list index + 1 (0 = background); its color buffer
/// holds each triangle's palette color. Non-finite or out-of-guard-band
/// coordinates drop the triangle. `None` for an invalid size.
#[must_use]
pub fn render_2d(width: u32, height: u32, tris: &[[[f32; 2]; 3]], rule: FillRule) -> Option<Frame> {
    let mut frame = Frame::new(width, height)?;
    let started = Instant::now();
    let grid = TileGrid::new(width, height);
    let opts = RenderOptions {
        rule,
        depth_test: DepthTest::Always,
        color: true,
        ..RenderOptions::default()
    };
    frame.rule = rule;
    frame.depth_test = DepthTest::Always;
    frame.has_color = true;
    let mut chunk = Chunk::default();
    chunk.bins.resize_with(grid.count(), Vec::new);
    let lim = 2.0 * rules::GUARD_BAND_PX;
    for (id, t) in tris.iter().enumerate() {
        chunk.stats.triangles += 1;
        if !t.iter().flatten().all(|c| c.is_finite() && c.abs() <= lim) {
            chunk.stats.invalid += 1;
            continue;
        }
        let v = t.map(|[x, y]| WinVertex {
            x,
            y,
            z: 0.5,
            fx: snap(x) as i32,
            fy: snap(y) as i32,
        });
        let [r, g, b] = crate::scene::palette_color(id as u32);
        let color = (u32::from(r) << 16) | (u32::from(g) << 8) | u32::from(b);
        let res = setup::setup::<false>(
            [&v[0], &v[1], &v[2]],
            rule,
            CullMode::None,
            width,
            height,
            id as u32,
            color,
        );
        let mut st = chunk.stats;
        push_setup(&mut chunk, res, grid, &mut st);
        chunk.stats = st;
    }
    frame.stats = chunk.stats;
    frame.chunks = vec![chunk];
    let setup_done = Instant::now();
    raster_bands(&mut frame, grid, opts);
    frame.stage_times = StageTimes {
        vertex: Duration::ZERO,
        setup: setup_done - started,
        raster: setup_done.elapsed(),
    };
    Some(frame)
}

/// The vertex stage's output for clip coordinates `clip`.
#[inline]
fn vertex_of(clip: Vec4, guard: &Guard, w: f32, h: f32) -> VertOut {
    let code = guard.outcode(clip);
    let win = if code & (CLIP_MASK | OUT_INVALID) == 0 {
        win_vertex(clip, w, h)
    } else {
        WinVertex::default()
    };
    VertOut { win, code }
}

/// Clip coordinates of a model-space point (the vertex stage's, recomputed
/// bit-identically for triangles that need clipping).
#[inline(always)]
fn clip_of(mvp: &Mat4, p: Vec3) -> Vec4 {
    *mvp * Vec4::new(p.x, p.y, p.z, 1.0)
}

#[inline]
fn win_vertex(clip: Vec4, w: f32, h: f32) -> WinVertex {
    let s = clip_to_window(clip, w, h);
    let lim = 3.0 * rules::GUARD_BAND_PX;
    let (x, y) = (s.x.clamp(-lim, lim), s.y.clamp(-lim, lim));
    WinVertex {
        x,
        y,
        z: s.z,
        fx: snap_in_band(x),
        fy: snap_in_band(y),
    }
}

/// The plane of a triangle (model-space `corners`) in clip space:
/// `P · X = 0` for the clip coordinates X of its points; `None` for a
/// degenerate triangle or matrix. `to_clip` is the inverse transpose of
/// the model-to-clip matrix. The plane comes from the corners in f64
/// ([`plane_f64`], as the ray picks take it) and is carried to clip space
/// by that matrix, so a plane that passes near the eye stays there however
/// far its corners lie (a ground at y = 0 keeps its height exactly): see
/// [`Guard::clip`].
fn clip_plane(to_clip: &DMat4, corners: [DVec3; 3]) -> Option<DVec4> {
    let (a, n) = plane_f64(corners);
    let model = n.extend(-n.dot(a));
    let p = *to_clip * model;
    (p.is_finite() && p != DVec4::ZERO).then_some(p)
}

/// Does the draw order of `tris` jump around their vertices? Samples up
/// to [`SCATTER_SAMPLES`] pairs of consecutive triangles spread over the
/// range: their first vertices lie [`SCATTERED_JUMP`] or more apart on
/// average (snowden_bust, a scan: about 8,800; bunny_3k 360; the city's
/// large meshes 1,500; the spheres 0.5, the teapot 5, suzanne 54). Ranges
/// of at most [`SCATTER_SAMPLES`] triangles are not (prefetching would not
/// pay).
/// A hint only: the records set up are the same either way.
fn scattered(tris: &[[u32; 3]]) -> bool {
    let n = tris.len();
    if n <= SCATTER_SAMPLES {
        return false;
    }
    let stride = (n - 1) / SCATTER_SAMPLES;
    let jumps: u64 = (0..SCATTER_SAMPLES)
        .map(|s| {
            let k = s * stride;
            u64::from(tris[k + 1][0].abs_diff(tris[k][0]))
        })
        .sum();
    jumps >= SCATTERED_JUMP * SCATTER_SAMPLES as u64
}

struct SetupCtx<'a> {
    scene: &'a Scene,
    camera: &'a Camera,
    opts: RenderOptions,
    guard: Guard,
    per_chunk: usize,
    offsets: &'a [u32],
    verts: &'a [VertOut],
    world_pos: &'a [Vec3],
    worlds: &'a [Mat4],
    view_proj: Mat4,
    grid: TileGrid,
    tile_sort: TileSort,
    /// Test each triangle for an empty box before setup (a dense scene
    /// under a rule that draws no zero-area lines; see
    /// [`crate::limits::EARLY_EMPTY_TRIS_PER_PIXEL`]).
    early_empty: bool,
}

impl SetupCtx<'_> {
    fn run_chunk(&self, ci: usize, chunk: &mut Chunk) {
        chunk.tris.clear();
        chunk.small.clear();
        chunk.sort.restart();
        chunk.bins.resize_with(self.grid.count(), Vec::new);
        for b in &mut chunk.bins {
            b.clear();
        }
        let mut st = Stats::default();
        let start = ci * self.per_chunk;
        let end = ((ci + 1) * self.per_chunk).min(self.scene.triangle_count() as usize);
        let offs = self.scene.triangle_offsets();
        let first_mesh = offs.partition_point(|&o| o as usize <= start) - 1;
        let meshes = &self.scene.meshes()[first_mesh..];
        // the chunk's triangles, mesh by mesh: (mesh index, local range)
        let spans = meshes.iter().enumerate().map_while(|(k, mesh)| {
            let m = first_mesh + k;
            let (lo, hi) = (offs[m] as usize, offs[m + 1] as usize);
            (lo < end).then(|| (m, mesh, start.max(lo) - lo..end.min(hi) - lo))
        });
        for (m, mesh, range) in spans {
            let tris = &mesh.triangles()[range.clone()];
            let first = offs[m] as usize + range.start;
            if scattered(tris) {
                self.mesh_triangles::<true>(m, tris, first, chunk, &mut st);
            } else {
                self.mesh_triangles::<false>(m, tris, first, chunk, &mut st);
            }
        }
        if self.opts.color {
            // flat shading of what survived setup, from the records (see `shade`)
            let shader = shade::Shader {
                scene: self.scene,
                offsets: self.offsets,
                world_pos: self.world_pos,
                camera: self.camera,
            };
            shader.shade_records(&mut chunk.tris);
            shader.shade_records(&mut chunk.small);
        }
        // (after the shading, which walks the records in draw order)
        match self.tile_sort {
            TileSort::Auto if self.scene.triangle_count() >= TILE_SORT_MIN_TRIS => {
                sort_by_tile(chunk, self.grid, false);
            }
            TileSort::Auto => {}
            #[cfg(test)]
            TileSort::Always => sort_by_tile(chunk, self.grid, true),
            #[cfg(test)]
            TileSort::Never => {}
        }
        chunk.stats = st;
    }

    /// Sets up and bins `tris`, triangles of mesh `m` whose first is global
    /// triangle `first`. `PREFETCH` (a mesh whose draw order jumps around
    /// its vertices, [`scattered`]): each triangle first asks for the
    /// vertex records of the one [`PREFETCH_TRIS`] ahead, so that their
    /// cache misses overlap instead of each stalling setup in turn.
    #[inline(always)]
    fn mesh_triangles<const PREFETCH: bool>(
        &self,
        m: usize,
        tris: &[[u32; 3]],
        first: usize,
        chunk: &mut Chunk,
        st: &mut Stats,
    ) {
        let verts = &self.verts[self.offsets[m] as usize..];
        // the mesh's matrices for clipping, made at its first clipped triangle
        let mut clip_mats = None;
        for (k, tri) in tris.iter().enumerate() {
            if PREFETCH {
                if let Some(ahead) = tris.get(k + PREFETCH_TRIS) {
                    for &i in ahead {
                        if let Some(v) = verts.get(i as usize) {
                            prefetch(v);
                        }
                    }
                }
            }
            let v = tri.map(|i| &verts[i as usize]);
            st.triangles += 1;
            let or = v[0].code | v[1].code | v[2].code;
            if or & OUT_INVALID != 0 {
                st.invalid += 1;
                continue;
            }
            if v[0].code & v[1].code & v[2].code & FRUSTUM_MASK != 0 {
                st.frustum_culled += 1;
                continue;
            }
            let id = (first + k) as u32;
            if or & CLIP_MASK == 0 {
                // (by reference: a copy of the three vertices to the stack
                // and back cost a store-forwarding stall per triangle)
                self.emit([&v[0].win, &v[1].win, &v[2].win], id, chunk, st);
            } else {
                st.clipped += 1;
                let clipping = (&mut clip_mats, or & CLIP_MASK);
                self.clip_and_emit(m, tri, id, clipping, chunk, st);
            }
        }
    }

    /// Clips triangle `tri` of mesh `m` against `planes` and emits the
    /// pieces; `mats` holds the mesh's [`SetupCtx::clip_matrices`], made
    /// at its first clipped triangle. (Out of line: the rare path, and
    /// the cache in the triangle loop's registers cost it 14 M
    /// instructions for two sphere1m frames, which clip nothing.)
    #[cold]
    #[inline(never)]
    fn clip_and_emit(
        &self,
        m: usize,
        tri: &[u32; 3],
        id: u32,
        (mats, planes): (&mut Option<(Mat4, DMat4, DMat4)>, u16),
        chunk: &mut Chunk,
        st: &mut Stats,
    ) {
        let &mut (mvp, mvp64, to_clip) = mats.get_or_insert_with(|| self.clip_matrices(m));
        let pos = self.scene.meshes()[m].positions();
        let corners = tri.map(|i| pos[i as usize].as_dvec3());
        let mut poly = [Vec4::ZERO; 8];
        let n = self.guard.clip(
            tri.map(|i| clip_of(&mvp, pos[i as usize])),
            corners.map(|p| mvp64 * p.extend(1.0)),
            clip_plane(&to_clip, corners),
            planes,
            &mut poly,
        );
        let (w, h) = (self.camera.width as f32, self.camera.height as f32);
        for k in 1..n.saturating_sub(1) {
            let wv = [poly[0], poly[k], poly[k + 1]].map(|c| win_vertex(c, w, h));
            self.emit([&wv[0], &wv[1], &wv[2]], id, chunk, st);
        }
    }

    /// Mesh `m`'s matrices for [`Guard::clip`]: model to clip space in f32
    /// (the vertex stage's), the same in f64 (for where a clipped triangle
    /// lies), and the f64 one's inverse transpose (which carries a model
    /// plane to clip space, [`clip_plane`]).
    fn clip_matrices(&self, m: usize) -> (Mat4, DMat4, DMat4) {
        let mvp64 = self.view_proj.as_dmat4() * self.worlds[m].as_dmat4();
        (
            self.view_proj * self.worlds[m],
            mvp64,
            mvp64.inverse().transpose(),
        )
    }

    fn emit(&self, v: [&WinVertex; 3], id: u32, chunk: &mut Chunk, st: &mut Stats) {
        let (w, h) = (self.camera.width, self.camera.height);
        if self.early_empty && setup::holds_no_centre(v, w, h) {
            st.empty += 1;
            return;
        }
        if self.early_empty {
            self.setup_and_push::<true>(v, id, chunk, st);
        } else {
            self.setup_and_push::<false>(v, id, chunk, st);
        }
    }

    /// Sets up a triangle and stores it: setup and [`push_setup`] in one
    /// function, so that a small record goes from one to the other in
    /// registers. (Through memory, as setup's return value, it was
    /// written field by field and read back whole, and the wide reads
    /// waited on the narrow writes: 29 % of `push_setup`'s samples.)
    #[inline(never)]
    fn setup_and_push<const DENSE: bool>(
        &self,
        v: [&WinVertex; 3],
        id: u32,
        chunk: &mut Chunk,
        st: &mut Stats,
    ) {
        let (w, h) = (self.camera.width, self.camera.height);
        let (rule, cull) = (self.opts.rule, self.opts.cull);
        let res = setup::setup::<DENSE>(v, rule, cull, w, h, id, 0);
        push_setup(chunk, res, self.grid, st);
    }
}

/// Stores a chunk's records tile by tile (by the tile of each box corner,
/// tiles in raster order; in draw order within a tile) and renames the
/// bins' entries to match, so that the tile rasterizer reads a tile's
/// records from consecutive memory. Setup writes them in draw order, which
/// for a mesh whose triangles are not listed by place (a scan, say) makes
/// the rasterizer's record reads land all over the chunk, each a cache
/// miss (BENCHMARKS.md, "Eighth round"). The bins keep their order, so
/// nothing drawn changes. Unless `force`d, only when the records change
/// tile often enough ([`TILE_SORT_SWITCHES`]).
fn sort_by_tile(chunk: &mut Chunk, grid: TileGrid, force: bool) {
    let Chunk {
        tris,
        small,
        bins,
        sort,
        ..
    } = chunk;
    if !force && sort.switches * TILE_SORT_SWITCHES <= tris.len() + small.len() {
        return;
    }
    let big = |t: &TriSetup| big_tile(grid, t);
    let little = |t: &SmallTri| small_tile(grid, t);
    // the new index of each record at its old one: big ones, then small ones
    sort.new_index.clear();
    let starts = &mut sort.starts;
    reorder(tris, &mut sort.tris, starts, &mut sort.new_index, grid, big);
    let base = sort.new_index.len();
    reorder(
        small,
        &mut sort.small,
        starts,
        &mut sort.new_index,
        grid,
        little,
    );
    let new_index = &sort.new_index;
    for bin in bins.iter_mut() {
        for e in bin.iter_mut() {
            *e = if *e & Chunk::SMALL != 0 {
                new_index[base + (*e & !Chunk::SMALL) as usize] | Chunk::SMALL
            } else {
                new_index[*e as usize]
            };
        }
    }
}

/// The tile a big record is stored by: that of its box corner.
#[inline(always)]
fn big_tile(grid: TileGrid, t: &TriSetup) -> usize {
    grid.tile_of(t.bbox[0] as u32, t.bbox[1] as u32)
}

/// The tile a small record is stored by: that of its box corner.
#[inline(always)]
fn small_tile(grid: TileGrid, t: &SmallTri) -> usize {
    grid.tile_of(u32::from(t.x0), u32::from(t.y0))
}

/// Reorders `recs` by `key` (a stable counting sort over the tiles, with
/// `spare` and `starts` as scratch) and appends each record's new index to
/// `new_index`, in the old order.
fn reorder<T: Copy + Default>(
    recs: &mut Vec<T>,
    spare: &mut Vec<T>,
    starts: &mut Vec<u32>,
    new_index: &mut Vec<u32>,
    grid: TileGrid,
    key: impl Fn(&T) -> usize,
) {
    starts.clear();
    starts.resize(grid.count() + 1, 0);
    for t in recs.iter() {
        starts[key(t) + 1] += 1;
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    spare.clear();
    spare.resize(recs.len(), T::default());
    for t in recs.iter() {
        let k = key(t);
        let at = starts[k];
        starts[k] += 1;
        spare[at as usize] = *t;
        new_index.push(at);
    }
    std::mem::swap(recs, spare);
}

/// Bins and stores a set-up triangle, or counts why there is none.
#[inline(always)]
fn push_setup(
    chunk: &mut Chunk,
    res: Result<setup::Setup, Rejected>,
    grid: TileGrid,
    st: &mut Stats,
) {
    // (each record is stored first and binned from where it is stored:
    // binned from a copy on the stack, the store's wide reads of that
    // copy waited on the narrow writes that made it)
    match res {
        Ok(setup::Setup::Big(s)) => {
            let idx = chunk.tris.len();
            chunk.tris.push(s);
            if let Some(s) = chunk.tris.last() {
                st.bin_entries +=
                    u64::from(bin::bin_triangle(s, idx as u32, grid, &mut chunk.bins));
                chunk.sort.saw(0, big_tile(grid, s));
            }
            st.setups += 1;
        }
        Ok(setup::Setup::Small(s)) => {
            let idx = chunk.small.len();
            chunk.small.push(s);
            if let Some(s) = chunk.small.last() {
                let entry = idx as u32 | Chunk::SMALL;
                st.bin_entries += u64::from(bin::bin_small(s, entry, grid, &mut chunk.bins));
                chunk.sort.saw(1, small_tile(grid, s));
            }
            st.setups += 1;
            st.small += 1;
        }
        Err(Rejected::ZeroArea) => st.zero_area += 1,
        Err(Rejected::Culled) => st.face_culled += 1,
        Err(Rejected::Empty) => st.empty += 1,
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::{EarlyEmpty, Renderer, TileSort, TILE_SORT_MIN_TRIS};
    use crate::camera::{Camera, Projection};
    use crate::frame::Frame;
    use crate::raster::bin::Chunk;
    use crate::raster::bin::TileGrid;
    use crate::scene::{Mesh, Scene, Transform};
    use crate::test_util::{grid, Rng};
    use crate::{FillRule, PickMethod, RenderOptions};

    /// Are the chunk's records of each form stored by the tile of their
    /// box corner (the order `sort_by_tile` gives)?
    fn by_tile(c: &Chunk, g: TileGrid) -> bool {
        let big = c.tris.iter().map(|t| super::big_tile(g, t));
        let small = c.small.iter().map(|t| super::small_tile(g, t));
        let sorted = |k: Vec<usize>| k.windows(2).all(|w| w[0] <= w[1]);
        sorted(big.collect()) && sorted(small.collect())
    }

    /// Are they in draw order (setup's order, nothing moved)?
    fn in_draw_order(c: &Chunk) -> bool {
        c.tris.windows(2).all(|w| w[0].id <= w[1].id)
            && c.small.windows(2).all(|w| w[0].id <= w[1].id)
    }

    /// A soup of `n` triangles of every size scattered over a box, listed
    /// in no spatial order.
    fn soup(rng: &mut Rng, n: usize, c: Vec3) -> Mesh {
        let pos: Vec<Vec3> = (0..n)
            .flat_map(|_| {
                let p = c + rng.vec3(-2.0, 2.0);
                let s = [0.02, 0.1, 0.5, 2.0][rng.below(4)];
                [p, p + rng.vec3(-s, s), p + rng.vec3(-s, s)]
            })
            .collect();
        let tris = (0..n as u32)
            .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
            .collect();
        Mesh::new("soup", pos, tris, [200, 120, 40]).unwrap()
    }

    fn render(r: &mut Renderer, sort: TileSort, scene: &Scene, cam: &Camera) -> Frame {
        r.tile_sort = sort;
        r.render(scene, cam).unwrap().clone()
    }

    /// A random rotation and a scale that mirrors x, or the identity.
    fn placement(rng: &mut Rng, placed: bool) -> Transform {
        let mut place = Transform::IDENTITY;
        if placed {
            place.rotation = Quat::from_axis_angle(rng.unit(), rng.range(0.0, 6.0));
            place.scale = rng.vec3(0.5, 1.5) * Vec3::new(-1.0, 1.0, 1.0);
        }
        place
    }

    /// Round `round`'s view of `scene` in a `w` × `h` frame and its
    /// options: every third round an eye among the triangles (within
    /// `eye` of the origin), every fourth orthographic, the fill rules in
    /// turn, color every other round, one and two threads.
    fn round_view(
        rng: &mut Rng,
        round: usize,
        scene: &Scene,
        (w, h): (u32, u32),
        eye: f32,
    ) -> (Camera, RenderOptions) {
        let mut cam = Camera::auto_frame(&scene.bounds(), w, h);
        if round % 3 == 2 {
            cam.eye = rng.vec3(-eye, eye);
        }
        if round % 4 == 3 {
            cam.projection = Projection::Orthographic { height: 6.0 };
        }
        let opts = RenderOptions {
            rule: FillRule::ALL[round % FillRule::ALL.len()],
            color: round.is_multiple_of(2),
            threads: Some(1 + round % 2),
            ..RenderOptions::default()
        };
        (cam, opts)
    }

    /// The same depth (bit for bit), ID and color buffers and counters, and
    /// the same direct pick at every pixel.
    fn assert_same_frames(a: &Frame, b: &Frame, scene: &Scene, what: &str) {
        assert!(
            a.depth()
                .iter()
                .zip(b.depth())
                .all(|(p, q)| p.to_bits() == q.to_bits()),
            "{what}"
        );
        assert_eq!(a.ids(), b.ids(), "{what}");
        assert_eq!(a.color(), b.color(), "{what}");
        assert_eq!(a.stats(), b.stats(), "{what}");
        for y in 0..i64::from(a.height()) {
            for x in 0..i64::from(a.width()) {
                assert_eq!(
                    a.pick_id_with(PickMethod::Direct, scene, x, y),
                    b.pick_id_with(PickMethod::Direct, scene, x, y),
                    "{what} at ({x}, {y})"
                );
            }
        }
    }

    /// Storing the records tile by tile changes nothing drawn or picked:
    /// random scenes of soups (records in scattered order), placed and
    /// mirrored meshes, eyes among the triangles (clipping), both
    /// projections, every fill rule, with and without color, one and two
    /// threads. Depth, ID and color buffers, counters and the direct picks
    /// of every pixel are the same as without the sort, which did move
    /// records.
    #[test]
    fn records_sorted_by_tile_draw_and_pick_the_same() {
        let mut rng = Rng(0x7113_5047);
        let mut moved = 0;
        for round in 0..24 {
            let mut scene = Scene::new();
            for m in 0..1 + rng.below(5) {
                let n = [0, 1, 40, 700, 3000][rng.below(5)];
                let place = placement(&mut rng, m % 3 == 1);
                let c = rng.vec3(-2.0, 2.0);
                scene.add_mesh(soup(&mut rng, n, c), place, None);
            }
            let (w, h) = (1 + rng.below(300) as u32, 1 + rng.below(200) as u32);
            let (cam, opts) = round_view(&mut rng, round, &scene, (w, h), 3.0);
            let mut r = Renderer::new(opts).unwrap();
            let plain = render(&mut r, TileSort::Never, &scene, &cam);
            let sorted = render(&mut r, TileSort::Always, &scene, &cam);
            let what = format!("round {round} ({w}x{h}, {opts:?})");
            assert_same_frames(&sorted, &plain, &scene, &what);
            let g = TileGrid::new(w, h);
            assert!(sorted.chunks.iter().all(|c| by_tile(c, g)), "{what}");
            moved += sorted.chunks.iter().filter(|c| !in_draw_order(c)).count();
        }
        assert!(moved > 20, "{moved}");
    }

    /// Testing each triangle's box for a pixel centre before setup (on for
    /// scenes with at least as many triangles as pixels) changes nothing
    /// drawn, counted or picked: random dense soups, placed and mirrored,
    /// eyes among the triangles (clipped triangles are tested too), both
    /// projections, every fill rule, with and without color, one and two
    /// threads, against the same renders with the test off.
    #[test]
    fn early_empty_test_draws_counts_and_picks_the_same() {
        let mut rng = Rng(0x0e4b_7e57);
        let mut tested = 0;
        for round in 0..24 {
            let mut scene = Scene::new();
            for m in 0..1 + rng.below(3) {
                let place = placement(&mut rng, m % 2 == 1);
                let c = rng.vec3(-1.0, 1.0);
                let n = 1000 + rng.below(2000);
                scene.add_mesh(soup(&mut rng, n, c), place, None);
            }
            let (w, h) = (1 + rng.below(60) as u32, 1 + rng.below(50) as u32);
            let (cam, opts) = round_view(&mut rng, round, &scene, (w, h), 2.0);
            let mut r = Renderer::new(opts).unwrap();
            r.early_empty = EarlyEmpty::Never;
            let plain = r.render(&scene, &cam).unwrap().clone();
            r.early_empty = EarlyEmpty::Auto;
            let early = r.render(&scene, &cam).unwrap().clone();
            let what = format!("round {round} ({w}x{h}, {opts:?})");
            let dense = u64::from(scene.triangle_count()) >= u64::from(w * h);
            assert!(dense, "{what}");
            tested += usize::from(opts.rule != FillRule::Inclusive);
            assert!(early.stats().empty > 0, "{what}");
            assert_same_frames(&early, &plain, &scene, &what);
        }
        assert!(tested >= 18, "{tested}");
    }

    /// The renderer's own choice: a large scene listed in scattered order
    /// is stored tile by tile; one listed by place (a grid, row by row),
    /// or a small scattered one, keeps setup's order.
    #[test]
    fn records_are_sorted_for_large_scattered_scenes_only() {
        let mut rng = Rng(0x5047_0002);
        let n = TILE_SORT_MIN_TRIS as usize;
        let (pos, tris) = grid(72, 0.1, &mut rng);
        assert!(tris.len() >= n);
        let cases = [
            (soup(&mut rng, n, Vec3::ZERO), true),
            (Mesh::new("grid", pos, tris, [9, 9, 9]).unwrap(), false),
            (soup(&mut rng, n - 1, Vec3::ZERO), false),
        ];
        let mut r = Renderer::new(RenderOptions::default()).unwrap();
        for (k, (mesh, want)) in cases.into_iter().enumerate() {
            let mut scene = Scene::new();
            scene.add_mesh(mesh, Transform::IDENTITY, None);
            let cam = Camera::auto_frame(&scene.bounds(), 640, 480);
            let f = render(&mut r, TileSort::Auto, &scene, &cam);
            let g = TileGrid::new(640, 480);
            for c in &f.chunks {
                if want {
                    assert!(by_tile(c, g) && !in_draw_order(c), "case {k}");
                } else {
                    assert!(in_draw_order(c), "case {k}");
                }
            }
        }
    }

    /// Each render records how long its stages took: none before the
    /// first, all three within the time around the call, the last one
    /// overwriting the one before; a 2D render has no vertex stage.
    #[test]
    fn stage_times_cover_each_render() {
        use super::StageTimes;
        use std::time::{Duration, Instant};
        let scene = crate::builtin_scene();
        let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
        assert_eq!(
            Frame::new(8, 8).unwrap().stage_times(),
            StageTimes::default()
        );
        for threads in [1, 2] {
            let mut r = Renderer::new(RenderOptions {
                threads: Some(threads),
                ..RenderOptions::default()
            })
            .unwrap();
            let mut last = StageTimes::default();
            for _ in 0..3 {
                let t0 = Instant::now();
                let t = r.render(&scene, &cam).unwrap().stage_times();
                let around = t0.elapsed();
                for (stage, d) in [
                    ("vertex", t.vertex),
                    ("setup", t.setup),
                    ("raster", t.raster),
                ] {
                    assert!(d > Duration::ZERO, "{threads} threads: {stage} {t:?}");
                }
                assert!(t.total() <= around, "{t:?} within {around:?}");
                assert_ne!(t, last, "a new render, new times");
                last = t;
            }
        }
        let tri = [[[1.0, 1.0], [30.0, 2.0], [5.0, 20.0]]];
        let f = super::render_2d(32, 32, &tri, FillRule::TopLeft).unwrap();
        let t = f.stage_times();
        assert_eq!(t.vertex, Duration::ZERO);
        assert!(
            t.setup > Duration::ZERO && t.raster > Duration::ZERO,
            "{t:?}"
        );
    }

    /// A mesh whose vertex buffer is shuffled (a scan's draw order jumps
    /// around its vertices) is set up with vertex prefetches, and gives
    /// exactly the frame of the same triangles numbered in order, which is
    /// set up without; `scattered` tells the two apart.
    #[test]
    fn a_scattered_vertex_order_gives_the_same_frame() {
        use super::scattered;
        let mut rng = Rng(0x5ca7_7e2e_d000_0001);
        // 7,200 triangles: setup chunks of 512, each sampled
        let (pos, tris) = grid(60, 2.0, &mut rng);
        let mut perm: Vec<u32> = (0..pos.len() as u32).collect();
        for i in (1..perm.len()).rev() {
            perm.swap(i, rng.below(i + 1));
        }
        let mut moved = vec![Vec3::ZERO; pos.len()];
        for (old, &new) in perm.iter().enumerate() {
            moved[new as usize] = pos[old];
        }
        let renamed: Vec<[u32; 3]> = tris.iter().map(|t| t.map(|i| perm[i as usize])).collect();
        assert!(!scattered(&tris[..1000]) && scattered(&renamed[..1000]));
        assert!(!scattered(&renamed[..256]), "too few to sample");
        let scene = |p: Vec<Vec3>, t: Vec<[u32; 3]>| {
            let mut s = Scene::new();
            let mesh = Mesh::new("grid", p, t, [90, 160, 220]).unwrap();
            s.add_mesh(mesh, Transform::IDENTITY, None);
            s
        };
        let (a, b) = (scene(pos, tris), scene(moved, renamed));
        let bounds = a.framing_bounds();
        let far = Camera::auto_frame(&bounds, 200, 150);
        // and one from inside the grid's box, which clips triangles
        let near = Camera {
            eye: Vec3::new(30.0, 8.0, 1.0),
            target: Vec3::new(30.0, 40.0, 0.0),
            up: Vec3::Z,
            projection: Projection::Perspective { fov_y_deg: 70.0 },
            near: 0.5,
            far: 100.0,
            ..far
        };
        let mut clipped = 0;
        for (cam, color) in [(far, false), (far, true), (near, true)] {
            let mut r = Renderer::new(RenderOptions {
                color,
                ..RenderOptions::default()
            })
            .unwrap();
            let fa = r.render(&a, &cam).unwrap().clone();
            let fb = r.render(&b, &cam).unwrap();
            assert_eq!(fa.ids(), fb.ids());
            assert!(fa.ids().iter().filter(|&&i| i != 0).count() > 5_000);
            let bits = |f: &Frame| f.depth().iter().map(|d| d.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&fa), bits(fb));
            assert_eq!(fa.color(), fb.color());
            assert_eq!(fa.stats(), fb.stats());
            clipped += fa.stats().clipped;
        }
        assert!(clipped > 0, "the near view clips");
    }
}
