//! The frame: color, depth and ID buffers, plus what the renderer keeps for
//! picks (the screen-space vertex buffer, the per-triangle setup and the
//! tile bins of the last render, and the direct picks' cell index, built on
//! demand). [`render`] runs the raster stages into a frame.

use glam::{DMat4, Mat4};

pub(crate) mod maps;
pub(crate) mod occlusion;
pub(crate) mod render;

use crate::accel::transforms::MeshTransforms;
use crate::camera::Camera;
use crate::error::Error;
use crate::geometry::{ClipPlanes, CullMode};
use crate::pick_cache::direct_index::DirectCache;
use crate::pick_cache::ray_setup::ViewRays;
use crate::raster::bin::BinnedChunk;
use crate::raster::rules::{DepthTest, FillRule, MAX_FRAME_SIDE};
pub(crate) use crate::raster::tile::{BACKGROUND, NO_TRIANGLE};
use crate::raster::vertex::ScreenVertex;
use crate::raster::{StageTimes, Stats};
use crate::scene::{Scene, SceneStamp};

/// Color, depth and ID buffers of one view, and the data picks need.
///
/// Buffers are row-major, row 0 on top, `width * height` long.
#[derive(Clone, Debug)]
pub struct Frame {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) color: Vec<u32>,
    pub(crate) depth: Vec<f32>,
    pub(crate) ids: Vec<u32>,
    pub(crate) has_color: bool,
    pub(crate) camera: Option<Camera>,
    /// The scene, and its state, of the last render (`None` before the
    /// first one and for 2D triangles): picks check it.
    pub(crate) scene: Option<SceneStamp>,
    pub(crate) inv_view_proj: DMat4,
    pub(crate) rule: FillRule,
    pub(crate) cull: CullMode,
    /// The user clip planes of the last render, which its ray picks apply too.
    pub(crate) clip: Option<std::sync::Arc<ClipPlanes>>,
    pub(crate) depth_test: DepthTest,
    pub(crate) worlds: Vec<Mat4>,
    /// The meshes' transforms as rendered, prepared for ray picks (at the
    /// first one) when the scene has changed since the render; picks of
    /// the scene's current state use the scene's own.
    pub(crate) xforms: std::sync::OnceLock<MeshTransforms>,
    /// The per-pixel ray setup of the frame's camera (at the first ray pick).
    pub(crate) view: std::sync::OnceLock<Option<ViewRays>>,
    pub(crate) vertices: Vec<ScreenVertex>,
    pub(crate) vertex_offsets: Vec<u32>,
    pub(crate) chunks: Vec<BinnedChunk>,
    /// Every triangle's records when the render culled hidden ones
    /// (`Stats::occluded`), made on first use ([`Frame::all_chunks`]).
    pub(crate) all_chunks: std::sync::OnceLock<Option<Vec<BinnedChunk>>>,
    pub(crate) stats: Stats,
    pub(crate) stage_times: StageTimes,
    /// The direct picks' index of this render, built on first use.
    pub(crate) direct: DirectCache,
    /// Per band of [`crate::limits::band_rows`] rows and tile column (band
    /// major): `true` when that part of the depth and ID buffers holds the
    /// clear values (no triangle was binned to its tile in the last render),
    /// so the next render need not clear it again. Empty (all to clear)
    /// after a size change.
    pub(crate) clean: Vec<bool>,
    /// Whether the color buffer holds [`BACKGROUND`] wherever `clean` says
    /// so (false after a render without color, which leaves it as it was).
    pub(crate) color_clean: bool,
}

impl Frame {
    /// The ID of a pixel that shows no triangle in [`Frame::ids`] and the
    /// raw `.u32` files (an ID is the global triangle index + 1, so 0 is
    /// free for the background).
    pub const NO_TRIANGLE: u32 = NO_TRIANGLE;
    /// The color of a pixel that shows no triangle in [`Frame::color`]
    /// (0x00RRGGBB).
    pub const BACKGROUND: u32 = BACKGROUND;

    /// An empty (cleared) frame; `None` for a zero side or a side above 16384.
    #[must_use]
    pub fn new(width: u32, height: u32) -> Option<Self> {
        if width == 0 || height == 0 || width > MAX_FRAME_SIDE || height > MAX_FRAME_SIDE {
            return None;
        }
        let n = width as usize * height as usize;
        Some(Self {
            width,
            height,
            color: vec![BACKGROUND; n],
            depth: vec![1.0; n],
            ids: vec![NO_TRIANGLE; n],
            has_color: false,
            camera: None,
            scene: None,
            inv_view_proj: DMat4::IDENTITY,
            rule: FillRule::default(),
            cull: CullMode::default(),
            clip: None,
            depth_test: DepthTest::default(),
            worlds: Vec::new(),
            xforms: Default::default(),
            view: Default::default(),
            vertices: Vec::new(),
            vertex_offsets: Vec::new(),
            chunks: Vec::new(),
            all_chunks: Default::default(),
            stats: Stats::default(),
            stage_times: StageTimes::default(),
            direct: DirectCache::default(),
            clean: Vec::new(),
            color_clean: false,
        })
    }

    /// Resizes (reallocating only when growing); contents are undefined until the next render.
    pub(crate) fn resize(&mut self, width: u32, height: u32) {
        let n = width as usize * height as usize;
        if (width, height) != (self.width, self.height) {
            // another layout: every band is cleared at the next render
            self.clean.clear();
            self.color_clean = false;
        }
        self.width = width;
        self.height = height;
        self.color.resize(n, BACKGROUND);
        self.depth.resize(n, 1.0);
        self.ids.resize(n, NO_TRIANGLE);
    }

    /// Width in pixels.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Color buffer, 0x00RRGGBB per pixel (only meaningful when rendered with color).
    #[must_use]
    pub fn color(&self) -> &[u32] {
        &self.color
    }

    /// Whether the last render wrote the color buffer.
    #[must_use]
    pub fn has_color(&self) -> bool {
        self.has_color
    }

    /// Window depth per pixel (0 = near, 1 = far/background).
    #[must_use]
    pub fn depth(&self) -> &[f32] {
        &self.depth
    }

    /// ID buffer: global triangle index + 1 per pixel, [`Frame::NO_TRIANGLE`] for background.
    #[must_use]
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// The camera of the last render.
    #[must_use]
    pub fn camera(&self) -> Option<&Camera> {
        self.camera.as_ref()
    }

    /// The fill rule of the last render.
    #[must_use]
    pub fn rule(&self) -> FillRule {
        self.rule
    }

    /// The user clip planes of the last render (its ray picks apply them too).
    #[must_use]
    pub fn clip_planes(&self) -> Option<&ClipPlanes> {
        self.clip.as_deref()
    }

    /// The cull mode of the last render.
    #[must_use]
    pub fn cull(&self) -> CullMode {
        self.cull
    }

    /// The depth test of the last render.
    #[must_use]
    pub fn depth_test(&self) -> DepthTest {
        self.depth_test
    }

    /// Counters of the last render.
    #[must_use]
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// How long each stage of the last render took (zero before any).
    #[must_use]
    pub fn stage_times(&self) -> StageTimes {
        self.stage_times
    }

    /// Window position of vertex `v` of mesh `mesh` in the last render.
    #[must_use]
    pub(crate) fn screen_vertex(&self, mesh: u32, v: u32) -> Option<ScreenVertex> {
        let base = *self.vertex_offsets.get(mesh as usize)?;
        self.vertices.get((base + v) as usize).copied()
    }

    /// World matrices of the meshes as they were when the frame was rendered.
    #[must_use]
    pub fn world_matrices(&self) -> &[Mat4] {
        &self.worlds
    }

    /// `Ok` when this frame was rendered from `scene` as it is now: the one
    /// check of [`Frame::picks`](crate::pick::Picks), so that picking with
    /// another scene, or after moving a node or adding a mesh, is an error
    /// rather than an answer about geometry that is not drawn.
    pub(crate) fn check_scene(&self, scene: &Scene) -> Result<(), Error> {
        match self.scene {
            Some(s) if s == scene.stamp() => Ok(()),
            Some(s) if s.same_scene(&scene.stamp()) => {
                Err(Error::StaleFrame("this scene before it changed"))
            }
            Some(_) => Err(Error::StaleFrame("another scene")),
            None => Err(Error::StaleFrame("no scene (2D triangles, or nothing yet)")),
        }
    }

    /// Linear index of pixel (x, y) in the buffers; `None` outside the
    /// frame (negative or too large coordinates included).
    #[inline]
    #[must_use]
    pub fn index(&self, x: i64, y: i64) -> Option<usize> {
        self.pixel_index(u32::try_from(x).ok()?, u32::try_from(y).ok()?)
    }

    /// [`Frame::index`] for coordinates known to be non-negative (the
    /// pick loops' fast path).
    #[inline]
    pub(crate) fn pixel_index(&self, x: u32, y: u32) -> Option<usize> {
        (x < self.width && y < self.height).then(|| y as usize * self.width as usize + x as usize)
    }

    /// Global triangle index under pixel (x, y), straight from the ID
    /// buffer; `None` on background or outside the frame.
    #[inline]
    #[must_use]
    pub fn triangle_at(&self, x: i64, y: i64) -> Option<u32> {
        let id = self.ids[self.index(x, y)?];
        (id != NO_TRIANGLE).then(|| id - 1)
    }
}
