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
mod tests {
    use glam::{Quat, Vec3};

    use super::{Cull, EarlyEmpty, FrontEnd, Renderer, TileSort};
    use crate::camera::{Camera, Projection};
    use crate::frame::Frame;
    use crate::limits::TILE_SORT_MIN_TRIS;
    use crate::raster::bin::BinnedChunk;
    use crate::raster::grid::TileGrid;
    use crate::scene::{Mesh, Scene, Transform};
    use crate::test_util::{grid, Rng};
    use crate::{CullMode, FillRule, PickMethod, RenderOptions};

    /// Are the chunk's records of each form stored by the tile of their
    /// box corner (the order `sort_by_tile` gives)?
    fn by_tile(c: &BinnedChunk, g: TileGrid) -> bool {
        let big = c.tris.iter().map(|t| crate::raster::bin::big_tile(g, t));
        let small = c.small.iter().map(|t| crate::raster::bin::small_tile(g, t));
        let sorted = |k: Vec<usize>| k.windows(2).all(|w| w[0] <= w[1]);
        sorted(big.collect()) && sorted(small.collect())
    }

    /// Are they in draw order (setup's order, nothing moved)?
    fn in_draw_order(c: &BinnedChunk) -> bool {
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

    /// The same depth (bit for bit), ID and color buffers (color when
    /// rendered with it) and counters, and the same direct pick at every
    /// pixel.
    fn assert_same_frames(a: &Frame, b: &Frame, scene: &Scene, what: &str) {
        assert!(
            a.depth()
                .iter()
                .zip(b.depth())
                .all(|(p, q)| p.to_bits() == q.to_bits()),
            "{what}"
        );
        assert_eq!(a.ids(), b.ids(), "{what}");
        // (the color buffer means something only after a render with color)
        assert_eq!(a.has_color(), b.has_color(), "{what}");
        if a.has_color() {
            assert_eq!(a.color(), b.color(), "{what}");
        }
        assert_eq!(a.stats(), b.stats(), "{what}");
        for y in 0..i64::from(a.height()) {
            for x in 0..i64::from(a.width()) {
                assert_eq!(
                    a.picks(scene).unwrap().with(PickMethod::Direct).id_at(x, y),
                    b.picks(scene).unwrap().with(PickMethod::Direct).id_at(x, y),
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

    /// The batched front end draws, counts and picks exactly what the
    /// one-at-a-time loop drew: random scenes of soups from sub-pixel to
    /// large triangles (mostly boxes of one or two pixel centres), placed
    /// and mirrored meshes, eyes among the triangles (clipping), both
    /// projections, every fill rule and cull mode, with and without
    /// color, one and two threads; depth, IDs, color, counters and the
    /// direct picks of every pixel.
    #[test]
    fn batches_draw_count_and_pick_as_one_at_a_time() {
        let mut rng = Rng(0xba7c_4e50_0000_0001);
        let mut small = 0;
        for round in 0..30 {
            let mut scene = Scene::new();
            for m in 0..1 + rng.below(4) {
                let place = placement(&mut rng, m % 3 == 1);
                let c = rng.vec3(-1.5, 1.5);
                let n = [1, 9, 300, 2000, 5000][rng.below(5)];
                scene.add_mesh(soup(&mut rng, n, c), place, None);
            }
            let (w, h) = (1 + rng.below(160) as u32, 1 + rng.below(120) as u32);
            let (cam, mut opts) = round_view(&mut rng, round, &scene, (w, h), 2.5);
            opts.cull = [CullMode::None, CullMode::Back, CullMode::Front][round / 4 % 3];
            let mut r = Renderer::new(opts).unwrap();
            r.front_end = FrontEnd::PerTriangle;
            let one = r.render(&scene, &cam).unwrap().clone();
            for front in [FrontEnd::Batches, FrontEnd::BaselineBatches] {
                r.front_end = front;
                let batched = r.render(&scene, &cam).unwrap().clone();
                let what = format!("round {round} ({w}x{h}, {opts:?}, {front:?})");
                assert_same_frames(&batched, &one, &scene, &what);
            }
            small += one.stats().small;
        }
        assert!(small > 10_000, "{small}");
    }

    /// A hash of a frame's depth (bits), ID and color buffers.
    fn frame_hash(f: &Frame) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        f.ids().hash(&mut h);
        f.depth().iter().for_each(|d| d.to_bits().hash(&mut h));
        if f.has_color() {
            f.color().hash(&mut h);
        }
        h.finish()
    }

    /// Renders `scene` at each size, rule and thread count (1, 2, 3), with
    /// and without color, by the batches and by the one-at-a-time loop,
    /// with and without the occlusion cull, and checks that the buffers'
    /// hashes are the same for all, and the counters for every thread
    /// count and both paths. Returns how many frames.
    fn same_hashes_both_ways(scene: &Scene, sizes: &[(u32, u32)]) -> usize {
        let mut frames = 0;
        for &(w, h) in sizes {
            let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
            for rule in FillRule::ALL {
                for color in [false, true] {
                    // the same pixels with the occlusion cull and without
                    let mut want_hash = None;
                    for cull in [Cull::Never, Cull::Always] {
                        let mut want = None;
                        for threads in 1..=3 {
                            let opts = RenderOptions {
                                rule,
                                color,
                                threads: Some(threads),
                                ..RenderOptions::default()
                            };
                            let mut r = Renderer::new(opts).unwrap();
                            r.cull = cull;
                            for front in [
                                FrontEnd::PerTriangle,
                                FrontEnd::BaselineBatches,
                                FrontEnd::Batches,
                            ] {
                                r.front_end = front;
                                let f = r.render(scene, &cam).unwrap();
                                let got = (frame_hash(f), *f.stats());
                                let what = format!(
                                    "{w}x{h} {rule:?} color {color} {threads} threads {front:?} {cull:?}"
                                );
                                assert_eq!(&got, want.get_or_insert(got), "{what}");
                                assert_eq!(got.0, *want_hash.get_or_insert(got.0), "{what}");
                                frames += 1;
                            }
                        }
                    }
                }
            }
        }
        frames
    }

    /// The hashes of the frames of several models (the built-in scene, a
    /// 70,000-triangle sphere, a jittered grid and a dense soup) at three
    /// sizes, under every rule, with and without color, on 1, 2 and 3
    /// threads, are the same by the batches as by the one-at-a-time loop.
    #[test]
    fn model_hashes_equal_the_reference_path() {
        let mut rng = Rng(0x4a54_0000_0000_0042);
        let sphere = {
            let (pos, tris) = softpick_testkit::uv_sphere(250, 141);
            let mut s = Scene::new();
            let mesh = Mesh::new("sphere", pos, tris, [200, 200, 200]).unwrap();
            s.add_mesh(mesh, Transform::IDENTITY, None);
            s
        };
        let grid_scene = {
            let (pos, tris) = grid(120, 0.3, &mut rng);
            let mut s = Scene::new();
            s.add_mesh(
                Mesh::new("grid", pos, tris, [9, 99, 199]).unwrap(),
                Transform::IDENTITY,
                None,
            );
            s
        };
        let mut soup_scene = Scene::new();
        soup_scene.add_mesh(
            soup(&mut rng, 20_000, Vec3::ZERO),
            Transform::IDENTITY,
            None,
        );
        let sizes = [(64, 48), (360, 360), (640, 480)];
        let mut frames = 0;
        for scene in [&crate::builtin_scene(), &sphere, &grid_scene, &soup_scene] {
            frames += same_hashes_both_ways(scene, &sizes);
        }
        assert_eq!(frames, 4 * 3 * 4 * 2 * 2 * 3 * 3);
    }

    /// [`model_hashes_equal_the_reference_path`] on the shared models
    /// (`../shared/models`: city_san_francisco, snowden_bust, bunny_3k)
    /// at 640×480 and 1920×1080. Like tests/shared_models.rs, it is built
    /// only with the `shared-models` feature (`cargo test --release --lib
    /// --features shared-models`), so the required tests never need them.
    #[cfg(all(feature = "obj", feature = "shared-models"))]
    #[test]
    fn shared_model_hashes_equal_the_reference_path() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models");
        for name in ["bunny_3k.obj", "snowden_bust.obj", "city_san_francisco.obj"] {
            let path = dir.join(name);
            let (scene, _) = crate::io::obj::load_obj(&path)
                .unwrap_or_else(|e| panic!("needs {}: {e}", path.display()));
            same_hashes_both_ways(&scene, &[(640, 480), (1920, 1080)]);
        }
    }

    /// A render into a frame handed back from earlier renders (other
    /// scenes, sizes, fill rules, color on or off, a frame of ray picks)
    /// equals a fresh render: depth, IDs, color, counters and every
    /// pixel's direct pick, and the frame's ray picks too; an invalid
    /// camera leaves the frame as it was.
    #[test]
    fn render_to_a_used_frame_equals_a_fresh_render() {
        let mut rng = Rng(0x4e05_ed01);
        let mut r = Renderer::new(RenderOptions::default()).unwrap();
        let mut used = Frame::new(3, 2).unwrap();
        for round in 0..16 {
            let mut scene = Scene::new();
            for m in 0..1 + rng.below(4) {
                let n = [1, 40, 700][rng.below(3)];
                let c = rng.vec3(-2.0, 2.0);
                scene.add_mesh(soup(&mut rng, n, c), placement(&mut rng, m % 2 == 1), None);
            }
            let (w, h) = (1 + rng.below(200) as u32, 1 + rng.below(150) as u32);
            let (cam, opts) = round_view(&mut rng, round, &scene, (w, h), 3.0);
            r.set_options(opts);
            r.render_to(&scene, &cam, &mut used).unwrap();
            let fresh = super::render(&scene, &cam, opts).unwrap();
            let what = format!("round {round} ({w}x{h}, {opts:?})");
            assert_same_frames(&used, &fresh, &scene, &what);
            for (x, y) in [
                (0, 0),
                (w as i64 / 2, h as i64 / 2),
                (w as i64 - 1, h as i64 - 1),
            ] {
                let key = |f: &Frame| {
                    f.picks(&scene)
                        .unwrap()
                        .with(crate::pick::PickMethod::Ray)
                        .id_at(x, y)
                };
                assert_eq!(key(&used), key(&fresh), "{what} at ({x}, {y})");
            }
            if round % 5 == 4 {
                // a frame filled by picks, handed back to the renderer
                used = Frame::from_picks(&scene, &cam, crate::CullMode::None, None, |_, ids, _| {
                    ids.fill(7)
                })
                .unwrap();
            }
        }
        let before = used.ids().to_vec();
        let mut bad = Camera::auto_frame(&Scene::new().bounds(), 8, 8);
        bad.near = -1.0;
        assert!(r.render_to(&Scene::new(), &bad, &mut used).is_err());
        assert_eq!(used.ids(), &before[..]);
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
        use crate::raster::StageTimes;
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
        use crate::raster::bin::scattered;
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
