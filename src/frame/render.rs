//! Rendering into a [`Frame`]: the [`Renderer`] runs the raster stages
//! (vertex → clip, setup and bin → tile) on a scene and camera and keeps
//! what they produce in the frame, whose buffers it reuses from render to
//! render; [`render_2d`] draws window-space triangles for fixtures.
//!
//! Each tile's part of a band is cleared right before its triangles are
//! drawn (while it is in cache) if the previous render into the same frame
//! may have drawn there: every tile that had a bin entry then
//! (`Frame::clean` remembers the others, which still hold the clear
//! values), all of them after a size change.

use glam::Vec3;
use std::sync::Arc;
use std::time::Duration;

use super::occlusion::{Cull, Occlusion};
use super::{Frame, ScreenVertex};
use crate::camera::Camera;
use crate::error::Error;
use crate::geometry::{ClipPlanes, CullMode};
use crate::limits::{band_rows, chunk_tris, OCCLUSION_MIN_YIELD, OCCLUSION_RETRY};
use crate::par;
use crate::raster::bin::{
    self, merge_split_bins, pass, BinStage, BinnedChunk, ChunkPick, EarlyEmpty, FrontEnd, TileSort,
};
use crate::raster::clip::Guard;
use crate::raster::grid::TileGrid;
use crate::raster::rules::{DepthTest, FillRule};
use crate::raster::stats::Clock;
use crate::raster::tile::{self, Entries, PixelBuffers};
use crate::raster::vertex::{SetupVertex, VertexStage};
use crate::raster::StageTimes;
use crate::scene::Scene;

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

/// The renderer's per-render scratch buffers (reused, never shrunk).
struct VertexScratch<'a> {
    verts: &'a mut Vec<SetupVertex>,
    world_pos: &'a mut Vec<Vec3>,
    occlusion: &'a mut Occlusion,
}

/// A renderer: options, an optional private thread pool, and a frame whose
/// buffers are reused from render to render.
///
/// ```
/// use softpick::{builtin_scene, Camera, PickMethod, Renderer, RenderOptions};
/// let scene = builtin_scene();
/// let camera = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
/// let mut r = Renderer::new(RenderOptions::default())?;
/// let picks = r.render(&scene, &camera)?.picks(&scene)?;
/// let hit = picks.at(180, 300).expect("the floor is there");
/// let direct = picks.with(PickMethod::Direct).at(180, 300).expect("the same triangle");
/// assert_eq!(direct.global_triangle, hit.global_triangle);
/// # Ok::<(), softpick::Error>(())
/// ```
#[derive(Debug)]
pub struct Renderer {
    opts: RenderOptions,
    /// User clip planes every render applies (`set_clip_planes`).
    clip: Option<Arc<ClipPlanes>>,
    pool: Option<par::ThreadPool>,
    frame: Frame,
    verts: Vec<SetupVertex>,
    world_pos: Vec<Vec3>,
    tile_sort: TileSort,
    early_empty: EarlyEmpty,
    front_end: FrontEnd,
    pub(crate) cull: Cull,
    occlusion: Occlusion,
    /// Renders left to draw without the cull ([`OCCLUSION_MIN_YIELD`]).
    cull_rest: u32,
}

impl Renderer {
    /// A renderer; fails only if a thread pool of `opts.threads` cannot be built.
    pub fn new(opts: RenderOptions) -> Result<Self, Error> {
        let pool = match opts.threads {
            None => None,
            Some(n) => Some(
                par::ThreadPoolBuilder::new()
                    .num_threads(n.max(1))
                    .build()
                    .map_err(|e| Error::Window(format!("cannot start {n} threads: {e}")))?,
            ),
        };
        Ok(Self {
            opts,
            clip: None,
            pool,
            frame: Frame::new(1, 1).expect("1x1 is a valid size"),
            verts: Vec::new(),
            world_pos: Vec::new(),
            tile_sort: TileSort::Auto,
            early_empty: EarlyEmpty::Auto,
            front_end: FrontEnd::Batches,
            cull: Cull::Auto,
            occlusion: Occlusion::default(),
            cull_rest: 0,
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

    /// User clip planes for the renders from now on (`None` or empty:
    /// none): what they cut away is not drawn, and the frames' ray picks
    /// apply them too ([`ClipPlanes`]).
    ///
    /// ```
    /// use softpick::{builtin_scene, Camera, ClipPlanes, Renderer, RenderOptions};
    /// let scene = builtin_scene();
    /// let camera = Camera::auto_frame(&scene.framing_bounds(), 120, 120);
    /// let mut r = Renderer::new(RenderOptions::default())?;
    /// let all = r.render(&scene, &camera)?.ids().iter().filter(|&&id| id != 0).count();
    /// // keep only x <= 0 (the half-space −x >= 0)
    /// r.set_clip_planes(Some(ClipPlanes::new(&[[-1.0, 0.0, 0.0, 0.0]]).unwrap()));
    /// let half = r.render(&scene, &camera)?.ids().iter().filter(|&&id| id != 0).count();
    /// assert!(half > 0 && half < all);
    /// # Ok::<(), softpick::Error>(())
    /// ```
    pub fn set_clip_planes(&mut self, clip: Option<ClipPlanes>) {
        self.clip = clip.filter(|c| !c.is_empty()).map(Arc::new);
    }

    /// The user clip planes of the renders.
    #[must_use]
    pub fn clip_planes(&self) -> Option<&ClipPlanes> {
        self.clip.as_deref()
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

    /// Renders `scene` from `camera` into `frame` instead of the renderer's
    /// own, reusing its buffers: a frame of an earlier render that its user
    /// is done with, of any scene or size (a render sets every buffer and
    /// setting of the frame it renders into, as it does for its own frame
    /// on every call), so a loop of renders handing back its frames stops
    /// allocating (and faulting in) new buffers. Fails only for an invalid
    /// camera, leaving `frame` as it was.
    pub fn render_to(
        &mut self,
        scene: &Scene,
        camera: &Camera,
        frame: &mut Frame,
    ) -> Result<(), Error> {
        camera.validate()?;
        std::mem::swap(&mut self.frame, frame);
        let done = self.render(scene, camera).map(|_| ());
        std::mem::swap(&mut self.frame, frame);
        done
    }

    /// Renders `scene` from `camera` into the reused frame. Fails only for an
    /// invalid camera.
    pub fn render(&mut self, scene: &Scene, camera: &Camera) -> Result<&Frame, Error> {
        camera.validate()?;
        let opts = self.opts;
        let scratch = VertexScratch {
            verts: &mut self.verts,
            world_pos: &mut self.world_pos,
            occlusion: &mut self.occlusion,
        };
        let frame = &mut self.frame;
        frame.clip = self.clip.clone();
        let how = Choices {
            tile_sort: self.tile_sort,
            early_empty: self.early_empty,
            front_end: self.front_end,
            cull: match self.cull {
                Cull::Auto if self.cull_rest > 0 => Cull::Never,
                c => c,
            },
        };
        self.cull_rest = self.cull_rest.saturating_sub(1);
        let culled = match &self.pool {
            Some(p) => p.install(|| render_into(scene, camera, opts, frame, scratch, how)),
            None => render_into(scene, camera, opts, frame, scratch, how),
        };
        // a cull that skipped little is not tried again for a while (the
        // frames are the same either way)
        let st = self.frame.stats;
        if culled && st.occluded * OCCLUSION_MIN_YIELD < st.triangles {
            self.cull_rest = OCCLUSION_RETRY;
        }
        Ok(&self.frame)
    }
}

impl Frame {
    /// The set-up records and bins of every triangle of the frame's
    /// render: its own unless the render culled hidden triangles
    /// ([`crate::Stats::occluded`]), else those of the same render without
    /// the cull, made on first use (what lists every triangle under a
    /// pixel or in a region, hidden ones included, reads).
    pub(crate) fn all_chunks(&self, scene: &Scene) -> &[BinnedChunk] {
        // (wasm32 renders never cull: the re-render is left out there)
        if cfg!(target_arch = "wasm32") || self.stats.occluded == 0 {
            return &self.chunks;
        }
        // The re-render repeats a render that succeeded: the same scene
        // (every caller holds a view that checked the frame's scene stamp),
        // camera, options and clip planes, so it cannot fail. Were it to,
        // the frame's own records (every triangle not culled, so every one
        // that owns a pixel) are answered rather than none.
        let again = self.all_chunks.get_or_init(|| {
            let camera = self.camera?;
            let opts = RenderOptions {
                rule: self.rule,
                cull: self.cull,
                depth_test: self.depth_test,
                color: false,
                threads: None,
            };
            let mut r = Renderer::new(opts).ok()?;
            r.cull = Cull::Never;
            r.clip = self.clip.clone();
            let done = r.render(scene, &camera).is_ok();
            debug_assert!(done, "the re-render of a rendered frame failed");
            done.then(|| r.into_frame().chunks)
        });
        again.as_deref().unwrap_or(&self.chunks)
    }
}

/// Renders once with a new renderer and returns the frame.
pub fn render(scene: &Scene, camera: &Camera, opts: RenderOptions) -> Result<Frame, Error> {
    let mut r = Renderer::new(opts)?;
    r.render(scene, camera)?;
    Ok(r.into_frame())
}

/// The renderer's choices of how to do the work (which change nothing
/// drawn: the tests force each way and compare the frames).
#[derive(Clone, Copy, Debug)]
struct Choices {
    tile_sort: TileSort,
    early_empty: EarlyEmpty,
    front_end: FrontEnd,
    cull: Cull,
}

/// One render into `frame`: its settings, then the stages in order, each
/// timed. Returns whether it ran the occlusion cull.
fn render_into(
    scene: &Scene,
    camera: &Camera,
    opts: RenderOptions,
    frame: &mut Frame,
    scratch: VertexScratch<'_>,
    how: Choices,
) -> bool {
    let VertexScratch {
        verts,
        world_pos,
        occlusion,
    } = scratch;
    let (w, h) = (camera.width, camera.height);
    frame.resize(w, h);
    frame.direct.reset();
    frame.all_chunks = Default::default();
    frame.camera = Some(*camera);
    frame.scene = Some(scene.stamp());
    frame.inv_view_proj = camera.inverse_view_proj();
    frame.rule = opts.rule;
    frame.cull = opts.cull;
    frame.depth_test = opts.depth_test;
    frame.has_color = opts.color;
    // what ray picks build from the render, at the first one
    frame.xforms = Default::default();
    frame.view = Default::default();
    // the meshes' world matrices (in parallel for a scene of many meshes),
    // timed with the vertex stage
    let started = Clock::now();
    scene.world_matrices_into(&mut frame.worlds);
    let vp = camera.view_proj();
    let guard = Guard::new(w, h);

    // 1. vertex stage
    frame.vertex_offsets.clear();
    let mut total = 0u32;
    for m in scene.meshes() {
        frame.vertex_offsets.push(total);
        total += m.positions().len() as u32;
    }
    verts.resize(total as usize, SetupVertex::default());
    frame
        .vertices
        .resize(total as usize, ScreenVertex::default());
    world_pos.resize(if opts.color { total as usize } else { 0 }, Vec3::ZERO);
    let vertex_stage = VertexStage {
        meshes: scene.meshes(),
        worlds: &frame.worlds,
        offsets: &frame.vertex_offsets,
        view_proj: vp,
        guard,
        width: w as f32,
        height: h as f32,
    };
    // (the tests' baseline builds: the portable stage)
    let avx2 = if how.front_end == FrontEnd::Batches {
        crate::cpu::Avx2::detect()
    } else {
        None
    };
    let world_out = if opts.color {
        Some(&mut world_pos[..])
    } else {
        None
    };
    vertex_stage.run(
        verts,
        &mut frame.vertices,
        world_out,
        |mvp, pos, guard, size, out, screen| {
            crate::raster::simd::vertices(avx2, mvp, pos, guard, size, out, screen);
        },
    );

    let vertex_done = Clock::now();
    // 2-4. clip, setup and bin, in fixed chunks of the global triangle order
    let total_tris = scene.triangle_count() as usize;
    let grid = TileGrid::new(w, h);
    let bin_stage = BinStage {
        scene,
        camera,
        rule: opts.rule,
        cull: opts.cull,
        color: opts.color,
        guard,
        per_chunk: chunk_tris(total_tris),
        offsets: &frame.vertex_offsets,
        verts,
        world_pos,
        worlds: &frame.worlds,
        view_proj: vp,
        grid,
        tile_sort: how.tile_sort,
        early_empty: how.early_empty.enabled(opts.rule, total_tris, w, h),
        front_end: how.front_end,
        clip: frame.clip.as_deref(),
    };
    // (not in the wasm32 build, to keep the browser module small: the
    // frame is the same bit for bit either way)
    let cull = !cfg!(target_arch = "wasm32")
        && how.cull.enabled(
            opts.depth_test,
            frame.clip.is_some(),
            total_tris as u64,
            w,
            h,
        );
    if cull {
        // (see `occlusion`) the occluders, set up and drawn into the
        // frame; the cull, from their depths; the rest added to the
        // occluders' chunks and drawn over them
        occlusion.plan(scene, &frame.worlds, vp, w, h);
        #[cfg(test)]
        if let Cull::Shuffled(seed) = how.cull {
            occlusion.shuffle(seed);
        }
        let first = ChunkPick {
            pass_of: &occlusion.pass_of,
            first: &occlusion.first,
            pass: pass::OCCLUDER,
            second: false,
        };
        bin_stage.run(&mut frame.chunks, Some(first));
        // (`raster_bands` on the fields: `bin_stage` holds others)
        let buffers = PixelBuffers {
            width: w,
            height: h,
            depth: &mut frame.depth,
            ids: &mut frame.ids,
            color: opts.color.then_some(&mut frame.color[..]),
            clean: &mut frame.clean,
        };
        let color_stale = !frame.color_clean;
        let test = opts.depth_test;
        tile::raster_bands(
            buffers,
            &frame.chunks,
            grid,
            test,
            color_stale,
            Entries::All,
        );
        frame.color_clean = opts.color;
        let culled = occlusion.cull(&frame.depth, w, h, &frame.clean, band_rows(h));
        let rest = ChunkPick {
            pass_of: &occlusion.pass_of,
            first: &occlusion.first,
            pass: pass::DRAW,
            second: true,
        };
        frame.stats = bin_stage.run(&mut frame.chunks, Some(rest));
        frame.stats.triangles += culled;
        frame.stats.occluded = culled;
    } else {
        frame.stats = bin_stage.run(&mut frame.chunks, None);
    }

    // 5. clear and rasterize bands of tiles, one writer per band (after
    // the cull: the survivors, over the occluders)
    let setup_done = Clock::now();
    if cull {
        raster_bands(frame, grid, opts, Entries::Survivors);
        merge_split_bins(&mut frame.chunks);
    } else {
        raster_bands(frame, grid, opts, Entries::All);
    }
    frame.stage_times = StageTimes {
        vertex: vertex_done.since(started),
        setup: setup_done.since(vertex_done),
        raster: setup_done.elapsed(),
    };
    cull
}

/// The tile stage into `frame`'s buffers, which it then records as clear
/// of color or not.
fn raster_bands(frame: &mut Frame, grid: TileGrid, opts: RenderOptions, entries: Entries) {
    // a color buffer left as it was by a render without color is cleared whole
    let color_stale = !frame.color_clean;
    let buffers = PixelBuffers {
        width: frame.width,
        height: frame.height,
        depth: &mut frame.depth,
        ids: &mut frame.ids,
        color: if opts.color {
            Some(&mut frame.color)
        } else {
            None
        },
        clean: &mut frame.clean,
    };
    tile::raster_bands(
        buffers,
        &frame.chunks,
        grid,
        opts.depth_test,
        color_stale,
        entries,
    );
    frame.color_clean = opts.color;
}

/// Rasterizes 2D triangles given directly in window coordinates (pixels,
/// y down, pixel centres at +0.5) in painter's order, without depth test:
/// the screen-space entry point used for conformance fixtures. The returned
/// frame's ID buffer holds list index + 1 (0 = background); its color buffer
/// holds each triangle's palette color. Non-finite or out-of-guard-band
/// coordinates drop the triangle. `None` for an invalid size.
#[must_use]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn render_2d(width: u32, height: u32, tris: &[[[f32; 2]; 3]], rule: FillRule) -> Option<Frame> {
    let mut frame = Frame::new(width, height)?;
    let started = Clock::now();
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
    let chunk = bin::bin_window_triangles(tris, rule, width, height, grid);
    frame.stats = chunk.stats;
    frame.chunks = vec![chunk];
    let setup_done = Clock::now();
    raster_bands(&mut frame, grid, opts, Entries::All);
    frame.stage_times = StageTimes {
        vertex: Duration::ZERO,
        setup: setup_done.since(started),
        raster: setup_done.elapsed(),
    };
    Some(frame)
}

#[cfg(test)]
mod tests;
