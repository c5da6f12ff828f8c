//! Picks: what is under a pixel.
//!
//! Three methods answer the same question and agree:
//! - [`Frame::pick`] (buffer): an O(1) lookup in the ID buffer;
//! - [`Frame::pick_direct`] (direct): no ID buffer, the point is tested
//!   against the set-up triangles near the pixel (a per-frame cell index
//!   over the tile bins, built on the first direct pick) with the same
//!   integer edge functions and depth plane; it returns exactly what
//!   [`Frame::pick`] returns at every pixel;
//! - [`Frame::pick_ray`] (ray): a 3D ray through the pixel centre against
//!   the meshes' BVHs (see [`ray`]).

pub(crate) mod buffer;
pub(crate) mod direct;
pub mod ray;
pub(crate) mod simd;

use std::sync::Arc;

use glam::Vec3;

use crate::error::Error;
use crate::frame::Frame;
use crate::scene::{MeshId, MeshOrigin, Scene};

/// Pick method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PickMethod {
    /// ID-buffer lookup.
    #[default]
    Buffer,
    /// Point-in-triangle on the screen-space triangles.
    Direct,
    /// 3D ray cast.
    Ray,
}

impl PickMethod {
    /// All methods.
    pub const ALL: [PickMethod; 3] = [PickMethod::Buffer, PickMethod::Direct, PickMethod::Ray];

    /// Command-line name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PickMethod::Buffer => "buffer",
            PickMethod::Direct => "direct",
            PickMethod::Ray => "ray",
        }
    }
}

/// The compact answer of a pick: which triangle, at what window depth.
///
/// `Copy`, 16 bytes, no allocation: what the `pick_id*` methods return for
/// bulk work (pick maps, sweeps). [`Frame::hit`] expands it into a full
/// [`Hit`] (world position, barycentrics, normal, mesh name).
///
/// ```
/// use softpick::{builtin_scene, Camera, RenderOptions, Renderer};
///
/// let scene = builtin_scene();
/// let camera = Camera::auto_frame(&scene.framing_bounds(), 120, 120);
/// let mut renderer = Renderer::new(RenderOptions::default())?;
/// let frame = renderer.render(&scene, &camera)?;
/// let id = frame.pick_id(&scene, 60, 100)?.expect("the floor is under the centre");
/// let hit = frame.hit(&scene, id, 60, 100)?.expect("same triangle, expanded");
/// assert_eq!((hit.mesh, hit.global_triangle), (id.mesh, id.global_triangle));
/// # Ok::<(), softpick::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PickId {
    /// Mesh id (index in the scene).
    pub mesh: MeshId,
    /// Triangle index within the mesh.
    pub triangle: u32,
    /// Global triangle index (file order over all meshes).
    pub global_triangle: u32,
    /// Window depth 0..1 at the pixel centre.
    pub depth: f32,
}

impl PickId {
    /// The pick of global triangle `global` at window depth `depth`; `None`
    /// when the scene has no such triangle.
    #[inline]
    pub(crate) fn locate(scene: &Scene, global: u32, depth: f32) -> Option<Self> {
        let (mesh, triangle) = scene.locate(global)?;
        Some(Self {
            mesh,
            triangle,
            global_triangle: global,
            depth,
        })
    }
}

/// What a pick or ray cast hit.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// Mesh id (index in the scene).
    pub mesh: MeshId,
    /// Mesh name.
    pub mesh_name: Arc<str>,
    /// Triangle index within the mesh.
    pub triangle: u32,
    /// Global triangle index (file order over all meshes).
    pub global_triangle: u32,
    /// The mesh's instance, node, file mesh and primitive
    /// ([`crate::Scene::mesh_origin`]); `triangle` counts within that primitive.
    pub origin: MeshOrigin,
    /// The instance's node name.
    pub node_name: Arc<str>,
    /// Window depth 0..1 of the hit point.
    pub depth: f32,
    /// Distance along the pick ray from its origin.
    pub distance: f32,
    /// World-space position.
    pub position: Vec3,
    /// Barycentric weights of the triangle's vertices 0, 1, 2 at the hit
    /// (perspective-correct: they are weights of the world-space corners).
    pub barycentric: Vec3,
    /// Unit geometric normal in world space ((v1-v0)×(v2-v0)).
    pub normal: Vec3,
    /// True when the ray sees the triangle counter-clockwise (front face).
    pub front_face: bool,
}

/// Pixels [`Frame::pick_id_span_with`] picks at a time (on the stack) for
/// the direct and ray methods.
const SPAN_WITH_RUN: usize = 64;

/// Where a row of `len` pixels from (x, y) meets the non-negative
/// coordinates: the number of its leading pixels left of column 0 (outside
/// every frame) and the `u32` start of the rest. `None` when no pixel of
/// the row can be inside a frame: a row index below 0 or above
/// `u32::MAX`, a start column above `u32::MAX`, or every pixel left of
/// column 0.
fn row_start(x: i64, y: i64, len: usize) -> Option<(usize, u32, u32)> {
    let y = u32::try_from(y).ok()?;
    if x >= 0 {
        return Some((0, u32::try_from(x).ok()?, y));
    }
    let lead = usize::try_from(x.unsigned_abs()).map_or(len, |n| n.min(len));
    (lead < len).then_some((lead, 0, y))
}

impl Frame {
    /// Compact picks of a run of pixels: `out[k]` becomes the pick at
    /// pixel (x + k, y) with the chosen method, the same as
    /// [`Frame::pick_id_with`] gives, for pick maps and sweeps. Pixels
    /// outside the frame (negative coordinates included) give `None`. The
    /// buffer method reads the row once and resolves meshes with a
    /// one-entry cache (neighbouring pixels mostly show the same mesh)
    /// instead of a search per pixel.
    ///
    /// ```
    /// use softpick::{builtin_scene, Camera, PickMethod, RenderOptions, Renderer};
    ///
    /// let scene = builtin_scene();
    /// let camera = Camera::auto_frame(&scene.framing_bounds(), 120, 90);
    /// let mut renderer = Renderer::new(RenderOptions::default())?;
    /// let frame = renderer.render(&scene, &camera)?;
    /// let mut row = vec![None; 120];
    /// frame.pick_id_span(PickMethod::Buffer, &scene, 0, 60, &mut row)?;
    /// assert_eq!(row[50], frame.pick_id(&scene, 50, 60)?);
    /// # Ok::<(), softpick::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn pick_id_span(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: i64,
        y: i64,
        out: &mut [Option<PickId>],
    ) -> Result<(), Error> {
        self.check_scene(scene)?;
        self.pick_id_span_unchecked(method, scene, x, y, out);
        Ok(())
    }

    /// [`Frame::pick_id_span`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    pub(crate) fn pick_id_span_unchecked(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: i64,
        y: i64,
        out: &mut [Option<PickId>],
    ) {
        let Some((lead, x, y)) = row_start(x, y, out.len()) else {
            out.fill(None);
            return;
        };
        let (left, rest) = out.split_at_mut(lead);
        left.fill(None);
        self.span_from(method, scene, x, y, rest);
    }

    /// [`Frame::pick_id_span`] from a start at non-negative coordinates.
    fn span_from(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: u32,
        y: u32,
        out: &mut [Option<PickId>],
    ) {
        if method == PickMethod::Ray {
            simd::ray_block(self, scene, (x, y, out.len()), out);
            return;
        }
        if method != PickMethod::Buffer {
            for (k, o) in out.iter_mut().enumerate() {
                *o = self.pick_id_with_unchecked(
                    method,
                    scene,
                    i64::from(x) + k as i64,
                    i64::from(y),
                );
            }
            return;
        }
        self.buffer_span(scene, x, y, out, |p| p);
    }

    /// [`Frame::pick_id_span`] with each pick handed to `cell` and its
    /// result stored in `out[k]`: for pick maps kept in another form (a raw
    /// ID image, say) without a buffer of picks in between. The buffer
    /// method gives each pick to `cell` as it makes it; the others pick
    /// 64 pixels at a time into a buffer on the stack. Pixels outside the
    /// frame get `cell(None)`.
    ///
    /// ```
    /// use softpick::{builtin_scene, Camera, PickMethod, RenderOptions, Renderer, NO_TRIANGLE};
    ///
    /// let scene = builtin_scene();
    /// let camera = Camera::auto_frame(&scene.framing_bounds(), 120, 90);
    /// let mut renderer = Renderer::new(RenderOptions::default())?;
    /// let frame = renderer.render(&scene, &camera)?;
    /// // row 60 as raw IDs (global triangle + 1, 0 for nothing)
    /// let mut raw = vec![0u32; 120];
    /// frame.pick_id_span_with(PickMethod::Buffer, &scene, 0, 60, &mut raw, |p| {
    ///     p.map_or(NO_TRIANGLE, |p| p.global_triangle + 1)
    /// })?;
    /// assert_eq!(&raw[..], &frame.ids()[60 * 120..61 * 120]);
    /// # Ok::<(), softpick::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn pick_id_span_with<T>(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: i64,
        y: i64,
        out: &mut [T],
        cell: impl Fn(Option<PickId>) -> T,
    ) -> Result<(), Error> {
        self.check_scene(scene)?;
        self.pick_id_span_with_unchecked(method, scene, x, y, out, cell);
        Ok(())
    }

    /// [`Frame::pick_id_span_with`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    pub(crate) fn pick_id_span_with_unchecked<T>(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: i64,
        y: i64,
        out: &mut [T],
        cell: impl Fn(Option<PickId>) -> T,
    ) {
        let Some((lead, x, y)) = row_start(x, y, out.len()) else {
            out.fill_with(|| cell(None));
            return;
        };
        let (left, rest) = out.split_at_mut(lead);
        left.fill_with(|| cell(None));
        if method == PickMethod::Buffer {
            self.buffer_span(scene, x, y, rest, cell);
            return;
        }
        let mut picks = [None; SPAN_WITH_RUN];
        let mut x = Some(x);
        for run in rest.chunks_mut(SPAN_WITH_RUN) {
            let picks = &mut picks[..run.len()];
            match x {
                Some(x) => self.span_from(method, scene, x, y, picks),
                // past u32::MAX: outside every frame
                None => picks.fill(None),
            }
            for (c, &p) in run.iter_mut().zip(picks.iter()) {
                *c = cell(p);
            }
            x = x.and_then(|x| x.checked_add(SPAN_WITH_RUN as u32));
        }
    }

    /// Compact picks of a block of rows: `out` holds rows of `width`
    /// pixels one after another (`out.len() / width` of them, then a partial
    /// row if any), and `out[k]` becomes the pick at pixel
    /// `(x + k % width, y + k / width)`, the same as
    /// [`Frame::pick_id_span`] gives row by row (`None` outside the frame,
    /// negative coordinates included). The ray method picks two rows at a
    /// time (eight rays per walk of the BVH in 4×2-pixel blocks, where the
    /// scene's BVH over all its triangles serves them), which is faster on
    /// large models than row by row. With `width` 0 there is no pixel:
    /// `out` is filled with `None`.
    ///
    /// ```
    /// use softpick::{builtin_scene, Camera, PickMethod, RenderOptions, Renderer};
    ///
    /// let scene = builtin_scene();
    /// let camera = Camera::auto_frame(&scene.framing_bounds(), 120, 90);
    /// let mut renderer = Renderer::new(RenderOptions::default())?;
    /// let frame = renderer.render(&scene, &camera)?;
    /// // rows 40 to 43 of the pixels 10 to 109
    /// let mut block = vec![None; 100 * 4];
    /// frame.pick_id_block(PickMethod::Ray, &scene, 10, 40, 100, &mut block)?;
    /// assert_eq!(block[2 * 100 + 50], frame.pick_id_ray(&scene, 60, 42)?);
    /// # Ok::<(), softpick::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn pick_id_block(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: i64,
        y: i64,
        width: usize,
        out: &mut [Option<PickId>],
    ) -> Result<(), Error> {
        self.check_scene(scene)?;
        self.pick_id_block_unchecked(method, scene, x, y, width, out);
        Ok(())
    }

    /// [`Frame::pick_id_block`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    pub(crate) fn pick_id_block_unchecked(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: i64,
        y: i64,
        width: usize,
        out: &mut [Option<PickId>],
    ) {
        if width == 0 {
            out.fill(None);
            return;
        }
        // the rows above row 0 (outside every frame), then the rest
        let rows_above = usize::try_from(y.min(0).unsigned_abs()).unwrap_or(usize::MAX);
        let (above, rest) = out.split_at_mut(rows_above.saturating_mul(width).min(out.len()));
        above.fill(None);
        let (Ok(y), Ok(x)) = (u32::try_from(y.max(0)), u32::try_from(x)) else {
            // a start left of column 0 (row by row, the leading pixels
            // `None`), or below or right of `u32::MAX` (every pixel `None`)
            for (k, row) in rest.chunks_mut(width).enumerate() {
                let row_y = i64::try_from(k).map_or(i64::MAX, |k| y.max(0).saturating_add(k));
                self.pick_id_span_unchecked(method, scene, x, row_y, row);
            }
            return;
        };
        self.block_from(method, scene, x, y, width, rest);
    }

    /// [`Frame::pick_id_block`] from a start at non-negative coordinates
    /// (`width >= 1`).
    fn block_from(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: u32,
        y: u32,
        width: usize,
        out: &mut [Option<PickId>],
    ) {
        if method == PickMethod::Ray {
            simd::ray_block(self, scene, (x, y, width), out);
            return;
        }
        for (k, row) in out.chunks_mut(width).enumerate() {
            let y = u32::try_from(k).ok().and_then(|k| y.checked_add(k));
            match y {
                Some(y) => self.span_from(method, scene, x, y, row),
                None => row.fill(None),
            }
        }
    }

    /// The compact pick at pixel (x, y) with the chosen method.
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn pick_id_with(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: i64,
        y: i64,
    ) -> Result<Option<PickId>, Error> {
        self.check_scene(scene)?;
        Ok(self.pick_id_with_unchecked(method, scene, x, y))
    }

    /// [`Frame::pick_id_with`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    pub(crate) fn pick_id_with_unchecked(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: i64,
        y: i64,
    ) -> Option<PickId> {
        match method {
            PickMethod::Buffer => self.pick_id_unchecked(scene, x, y),
            PickMethod::Direct => self.pick_id_direct_unchecked(scene, x, y),
            PickMethod::Ray => self.pick_id_ray_unchecked(scene, x, y),
        }
    }

    /// The full pick at pixel (x, y) with the chosen method.
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn pick_with(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: i64,
        y: i64,
    ) -> Result<Option<Hit>, Error> {
        self.check_scene(scene)?;
        Ok(self.pick_with_unchecked(method, scene, x, y))
    }

    /// [`Frame::pick_with`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    pub(crate) fn pick_with_unchecked(
        &self,
        method: PickMethod,
        scene: &Scene,
        x: i64,
        y: i64,
    ) -> Option<Hit> {
        match method {
            PickMethod::Buffer => self.pick_unchecked(scene, x, y),
            PickMethod::Direct => self.pick_direct_unchecked(scene, x, y),
            PickMethod::Ray => self.pick_ray_unchecked(scene, x, y),
        }
    }

    /// Expands a compact pick made at pixel (x, y) into the full hit record
    /// (world position at the pick's depth, barycentrics, normal, name).
    /// `None` outside the frame, before the first render, or when `id`
    /// names no triangle of `scene`.
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn hit(&self, scene: &Scene, id: PickId, x: i64, y: i64) -> Result<Option<Hit>, Error> {
        self.check_scene(scene)?;
        Ok(self.hit_unchecked(scene, id, x, y))
    }

    /// [`Frame::hit`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    pub(crate) fn hit_unchecked(&self, scene: &Scene, id: PickId, x: i64, y: i64) -> Option<Hit> {
        let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        self.pixel_index(x, y)?;
        self.hit_at(
            scene,
            id.global_triangle,
            x as f32 + 0.5,
            y as f32 + 0.5,
            id.depth,
        )
    }

    /// Builds the full hit record for triangle `global` at a window point
    /// with a known window depth (buffer and direct picks).
    pub(crate) fn hit_at(
        &self,
        scene: &Scene,
        global: u32,
        x: f32,
        y: f32,
        depth: f32,
    ) -> Option<Hit> {
        let cam = self.camera.as_ref()?;
        let (mesh, local) = scene.locate(global)?;
        let m = scene.mesh(mesh)?;
        let world = self
            .worlds
            .get(mesh as usize)
            .copied()
            .unwrap_or_else(|| scene.mesh_world(mesh));
        let p = m.triangle(local).map(|q| world.transform_point3(q));
        let ray = cam.ray_through_with(&self.inv_view_proj, x, y);
        let position = cam.unproject_with(&self.inv_view_proj, x, y, depth);
        let n = (p[1] - p[0]).cross(p[2] - p[0]);
        // barycentrics of the point where the pixel ray meets the triangle's plane
        let denom = n.dot(ray.direction);
        let q = if denom != 0.0 {
            ray.at(n.dot(p[0] - ray.origin) / denom)
        } else {
            position
        };
        let (origin, node_name) = scene.hit_origin(mesh);
        Some(Hit {
            mesh,
            mesh_name: m.name_arc().clone(),
            triangle: local,
            global_triangle: global,
            origin,
            node_name,
            depth,
            distance: (position - ray.origin).dot(ray.direction),
            position,
            barycentric: barycentric(p, q),
            normal: face_normal(p),
            front_face: denom < 0.0,
        })
    }
}

/// Barycentric weights of `q` with respect to triangle `p` (projected onto its plane).
pub(crate) fn barycentric(p: [Vec3; 3], q: Vec3) -> Vec3 {
    let (e0, e1, d) = (
        (p[1] - p[0]).as_dvec3(),
        (p[2] - p[0]).as_dvec3(),
        (q - p[0]).as_dvec3(),
    );
    let (a, b, c) = (e0.dot(e0), e0.dot(e1), e1.dot(e1));
    let (d0, d1) = (d.dot(e0), d.dot(e1));
    let den = a * c - b * b;
    if den == 0.0 {
        return Vec3::new(1.0, 0.0, 0.0);
    }
    let v = (c * d0 - b * d1) / den;
    let w = (a * d1 - b * d0) / den;
    Vec3::new((1.0 - v - w) as f32, v as f32, w as f32)
}

/// The unit normal of a world-space triangle (counter-clockwise corners
/// facing the viewer), the `normal` of every [`Hit`]: the cross product is
/// taken in f64, so neither a triangle 10^20 units wide (whose f32 cross
/// product overflows) nor one 10^-20 wide (whose f32 cross product
/// underflows to zero) loses its normal. Zero for a degenerate triangle.
#[must_use]
pub(crate) fn face_normal(p: [Vec3; 3]) -> Vec3 {
    let [a, b, c] = p.map(Vec3::as_dvec3);
    (b - a).cross(c - a).normalize_or_zero().as_vec3()
}

#[cfg(test)]
mod tests;
