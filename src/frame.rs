//! The frame: color, depth and ID buffers, plus what the renderer keeps for
//! picks (the screen-space vertex buffer, the per-triangle setup and the
//! tile bins of the last render, and the direct picks' cell index, built on
//! demand).

use glam::{DMat4, Mat4, Vec3};

use crate::camera::Camera;
use crate::pick::cells::DirectCache;
use crate::raster::rules::{CullMode, DepthTest, FillRule, MAX_FRAME_SIDE};
use crate::raster::setup::{SmallTri, Tri, TriSetup};
use crate::raster::{StageTimes, Stats};

/// The ID-buffer value of a pixel that no triangle covers. Covered pixels
/// hold `global triangle index + 1` (the peers' raw `.u32` format).
pub const NO_TRIANGLE: u32 = 0;

/// Background color of the color buffer (0x00RRGGBB).
pub const BACKGROUND: u32 = 0x0018_1c22;

/// One vertex of the screen-space vertex buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ScreenVertex {
    /// Window x in pixels (right).
    pub x: f32,
    /// Window y in pixels (down).
    pub y: f32,
    /// Window depth 0..1.
    pub z: f32,
    /// Clip-space w (≤ 0 means behind the eye; such a vertex has no window position).
    pub w: f32,
}

/// Bins of one setup chunk: per tile, the entries of the chunk's triangles
/// that may cover it, in draw order. An entry is an index into `tris`, or,
/// with [`Chunk::SMALL`] set, into `small`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Chunk {
    pub(crate) tris: Vec<TriSetup>,
    pub(crate) small: Vec<SmallTri>,
    pub(crate) bins: Vec<Vec<u32>>,
    pub(crate) stats: Stats,
    /// Scratch of `raster::sort_by_tile`, kept for the next render.
    pub(crate) sort: SortScratch,
}

/// The buffers `raster::sort_by_tile` reuses from render to render.
/// Scratch only: a clone starts empty (a cloned frame does not copy them).
#[derive(Debug, Default)]
pub(crate) struct SortScratch {
    pub(crate) tris: Vec<TriSetup>,
    pub(crate) small: Vec<SmallTri>,
    pub(crate) new_index: Vec<u32>,
    pub(crate) starts: Vec<u32>,
    /// Records stored in another tile than the one before of their form,
    /// counted as setup stores them.
    pub(crate) switches: usize,
    /// Per form (big, small), the tile of the last record stored.
    pub(crate) last: [usize; 2],
}

impl Clone for SortScratch {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl SortScratch {
    /// Counts a record of `form` stored in `tile`.
    #[inline(always)]
    pub(crate) fn saw(&mut self, form: usize, tile: usize) {
        self.switches += usize::from(self.last[form] != tile);
        self.last[form] = tile;
    }

    /// Forgets the records counted.
    pub(crate) fn restart(&mut self) {
        self.switches = 0;
        self.last = [usize::MAX; 2];
    }
}

impl Chunk {
    /// Tag bit of a bin entry naming a [`SmallTri`].
    pub(crate) const SMALL: u32 = 1 << 31;

    /// The triangle a bin entry names.
    #[inline]
    pub(crate) fn get(&self, entry: u32) -> Option<Tri<'_>> {
        if entry & Self::SMALL != 0 {
            self.small
                .get((entry & !Self::SMALL) as usize)
                .map(Tri::Small)
        } else {
            self.tris.get(entry as usize).map(Tri::Big)
        }
    }

    /// Number of set-up triangles (both forms).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.tris.len() + self.small.len()
    }

    /// A dense index 0..len() of a bin entry.
    #[inline]
    pub(crate) fn slot(&self, entry: u32) -> usize {
        if entry & Self::SMALL != 0 {
            self.tris.len() + (entry & !Self::SMALL) as usize
        } else {
            entry as usize
        }
    }

    /// Every set-up triangle (big ones first, then small ones; not in draw order).
    pub(crate) fn iter(&self) -> impl Iterator<Item = Tri<'_>> {
        self.tris
            .iter()
            .map(Tri::Big)
            .chain(self.small.iter().map(Tri::Small))
    }
}

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
    pub(crate) inv_view_proj: DMat4,
    pub(crate) rule: FillRule,
    pub(crate) cull: CullMode,
    pub(crate) depth_test: DepthTest,
    pub(crate) worlds: Vec<Mat4>,
    /// The meshes' transforms prepared for ray picks (at the first one).
    pub(crate) xforms: std::sync::OnceLock<crate::pick::ray::Xforms>,
    /// The per-pixel ray setup of the frame's camera (at the first ray pick).
    pub(crate) view: std::sync::OnceLock<Option<crate::pick::ray::ViewRays>>,
    pub(crate) vertices: Vec<ScreenVertex>,
    pub(crate) vertex_offsets: Vec<u32>,
    pub(crate) chunks: Vec<Chunk>,
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
            inv_view_proj: DMat4::IDENTITY,
            rule: FillRule::default(),
            cull: CullMode::default(),
            depth_test: DepthTest::default(),
            worlds: Vec::new(),
            xforms: Default::default(),
            view: Default::default(),
            vertices: Vec::new(),
            vertex_offsets: Vec::new(),
            chunks: Vec::new(),
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

    /// ID buffer: global triangle index + 1 per pixel, [`NO_TRIANGLE`] for background.
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

    /// The screen-space vertex buffer of the last render: one entry per mesh
    /// vertex (meshes in scene order), window x, y, depth and clip w.
    #[must_use]
    pub fn screen_vertices(&self) -> &[ScreenVertex] {
        &self.vertices
    }

    /// Window position of vertex `v` of mesh `mesh` in the last render.
    #[must_use]
    pub fn screen_vertex(&self, mesh: u32, v: u32) -> Option<ScreenVertex> {
        let base = *self.vertex_offsets.get(mesh as usize)?;
        self.vertices.get((base + v) as usize).copied()
    }

    /// World matrices of the meshes as they were when the frame was rendered.
    #[must_use]
    pub fn world_matrices(&self) -> &[Mat4] {
        &self.worlds
    }

    /// Linear index of an in-frame pixel.
    #[inline]
    #[must_use]
    pub fn index(&self, x: u32, y: u32) -> Option<usize> {
        (x < self.width && y < self.height).then(|| y as usize * self.width as usize + x as usize)
    }

    /// Global triangle index under pixel (x, y), straight from the ID buffer.
    #[inline]
    #[must_use]
    pub fn triangle_at(&self, x: u32, y: u32) -> Option<u32> {
        let id = self.ids[self.index(x, y)?];
        (id != NO_TRIANGLE).then(|| id - 1)
    }

    /// World point under the centre of pixel (x, y), from the depth buffer.
    #[must_use]
    pub fn world_at(&self, x: u32, y: u32) -> Option<Vec3> {
        let i = self.index(x, y)?;
        if self.ids[i] == NO_TRIANGLE {
            return None;
        }
        let cam = self.camera.as_ref()?;
        Some(cam.unproject_with(
            &self.inv_view_proj,
            x as f32 + 0.5,
            y as f32 + 0.5,
            self.depth[i],
        ))
    }
}
