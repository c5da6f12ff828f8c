//! The checked pick view: [`Frame::picks`] checks once that a frame was
//! rendered from a scene as it is now, and the [`Picks`] it returns answers
//! every pick question about that frame without a `Result`.

use super::{simd, Hit, PickId, PickMethod};
use crate::error::Error;
use crate::frame::maps::{MapRequest, PixelMaps};
use crate::frame::Frame;
use crate::scene::Scene;

/// Pixels [`Picks::span_with`] picks at a time (on the stack) for the
/// direct and ray methods.
const SPAN_WITH_RUN: usize = 64;

/// A frame checked against the scene it was rendered from: every pick,
/// selection and map of the frame, with one method ([`PickMethod::Buffer`]
/// unless [`Picks::with`] chose another).
///
/// Made by [`Frame::picks`], which checks the frame against the scene once
/// (a frame picked with another scene, or after its scene changed, is an
/// [`Error::StaleFrame`]); the view borrows both, so neither can change
/// while it lives, and no call on it can fail. It is `Copy` (two
/// references and the method): pass it by value, make one per method.
///
/// Pixel coordinates are `i64` in every call; a pixel outside the frame
/// (negative or too large coordinates included) gives `None` or nothing,
/// never a panic.
///
/// ```
/// use softpick::{builtin_scene, Camera, PickMethod, RenderOptions, Renderer};
///
/// let scene = builtin_scene();
/// let camera = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
/// let mut renderer = Renderer::new(RenderOptions::default())?;
/// let frame = renderer.render(&scene, &camera)?;
/// let picks = frame.picks(&scene)?; // the one check
/// let hit = picks.at(180, 300).expect("the floor is under (180, 300)");
/// assert_eq!(&*hit.mesh_name, "floor");
/// // the three methods agree
/// let ray = picks.with(PickMethod::Ray).at(180, 300).expect("a ray hit");
/// assert_eq!(ray.global_triangle, hit.global_triangle);
/// assert_eq!(picks.with(PickMethod::Direct).id_at(180, 300), picks.id_at(180, 300));
/// # Ok::<(), softpick::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Picks<'a> {
    pub(crate) frame: &'a Frame,
    pub(crate) scene: &'a Scene,
    pub(crate) method: PickMethod,
}

impl Frame {
    /// The pick view of this frame ([`Picks`], buffer method): checks once
    /// that the frame was rendered from `scene` as it is now, so that every
    /// call on the view answers about geometry that is drawn.
    ///
    /// ```
    /// use glam::Vec3;
    /// use softpick::{builtin_scene, Camera, Error, RenderOptions, Renderer};
    ///
    /// let mut scene = builtin_scene();
    /// let camera = Camera::auto_frame(&scene.framing_bounds(), 90, 90);
    /// let mut renderer = Renderer::new(RenderOptions::default())?;
    /// renderer.render(&scene, &camera)?;
    /// assert!(renderer.frame().picks(&scene).is_ok());
    /// let node = scene.mesh_node(0).unwrap();
    /// scene.translate(node, Vec3::X);
    /// assert!(matches!(renderer.frame().picks(&scene), Err(Error::StaleFrame(_))));
    /// renderer.render(&scene, &camera)?; // render again: picks work
    /// assert!(renderer.frame().picks(&scene).is_ok());
    /// # Ok::<(), softpick::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::StaleFrame`] when the frame was not rendered from `scene`
    /// as it is now: another scene (a scene value has an identity, new for
    /// each clone), or this one after adding nodes or meshes, moving a node
    /// or posing it; or no scene at all (a frame before its first render).
    pub fn picks<'a>(&'a self, scene: &'a Scene) -> Result<Picks<'a>, Error> {
        self.check_scene(scene)?;
        Ok(Picks {
            frame: self,
            scene,
            method: PickMethod::Buffer,
        })
    }
}

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

impl<'a> Picks<'a> {
    /// The same view with another pick method.
    #[must_use]
    pub fn with(self, method: PickMethod) -> Self {
        Self { method, ..self }
    }

    /// The view's pick method.
    #[must_use]
    pub fn method(self) -> PickMethod {
        self.method
    }

    /// The frame.
    #[must_use]
    pub fn frame(self) -> &'a Frame {
        self.frame
    }

    /// The scene the frame was rendered from.
    #[must_use]
    pub fn scene(self) -> &'a Scene {
        self.scene
    }

    /// What is under pixel (x, y) with the view's method: the full hit
    /// record (mesh, triangle, window depth, world position, barycentrics,
    /// normal). `None` on background or outside the frame.
    ///
    /// - Buffer: an O(1) lookup in the ID buffer;
    /// - Direct: the rasterizer's own edge functions and depth plane
    ///   against the set-up triangles near the pixel (a per-frame cell
    ///   index, built at the first direct pick or by [`Picks::prepare`]),
    ///   so it equals the buffer at every pixel;
    /// - Ray: a 3D ray through the pixel centre from the near plane to the
    ///   far plane, with the frame's cull mode and the meshes as rendered;
    ///   `Hit::depth` is the window depth of the hit point.
    #[must_use]
    pub fn at(self, x: i64, y: i64) -> Option<Hit> {
        match self.method {
            PickMethod::Buffer | PickMethod::Direct => {
                let id = self.id_at(x, y)?;
                self.hit(id, x, y)
            }
            PickMethod::Ray => self.frame.ray_hit(self.scene, x, y),
        }
    }

    /// What is under pixel (x, y) with the view's method, compactly: the
    /// mesh, triangle and window depth of [`Picks::at`]'s answer, without
    /// building the full record (`Copy`, no allocation). [`Picks::hit`]
    /// expands it.
    #[must_use]
    #[inline]
    pub fn id_at(self, x: i64, y: i64) -> Option<PickId> {
        match self.method {
            PickMethod::Buffer => self.frame.buffer_id(self.scene, x, y),
            PickMethod::Direct => self.frame.direct_id(self.scene, x, y),
            PickMethod::Ray => self.frame.ray_id(self.scene, x, y),
        }
    }

    /// Expands a compact pick made at pixel (x, y) into the full hit record
    /// (world position at the pick's depth, barycentrics, normal, name),
    /// whatever the method that made it. `None` outside the frame, before
    /// the first render, or when `id` names no triangle of the scene.
    ///
    /// ```
    /// use softpick::{builtin_scene, Camera, RenderOptions, Renderer};
    ///
    /// let scene = builtin_scene();
    /// let camera = Camera::auto_frame(&scene.framing_bounds(), 120, 120);
    /// let mut renderer = Renderer::new(RenderOptions::default())?;
    /// let picks = renderer.render(&scene, &camera)?.picks(&scene)?;
    /// let id = picks.id_at(60, 100).expect("the floor is under the centre");
    /// let hit = picks.hit(id, 60, 100).expect("same triangle, expanded");
    /// assert_eq!((hit.mesh, hit.global_triangle), (id.mesh, id.global_triangle));
    /// # Ok::<(), softpick::Error>(())
    /// ```
    #[must_use]
    pub fn hit(self, id: PickId, x: i64, y: i64) -> Option<Hit> {
        let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        self.frame.pixel_index(x, y)?;
        self.frame.hit_at(
            self.scene,
            id.global_triangle,
            x as f32 + 0.5,
            y as f32 + 0.5,
            id.depth,
        )
    }

    /// Every triangle under pixel (x, y), near to far, one entry per
    /// triangle:
    ///
    /// - Buffer and Direct: every set-up triangle whose coverage includes
    ///   the pixel centre, depth test ignored (ties in draw order). Both
    ///   methods answer from the set-up triangles (the direct method's
    ///   data): the ID buffer keeps only the nearest.
    /// - Ray: every hit of the pixel ray (through the centre, from the near
    ///   plane to the far plane, with the frame's cull mode), sorted by
    ///   distance, then mesh, then triangle; `Hit::depth` is each hit
    ///   point's window depth.
    #[must_use]
    pub fn all(self, x: i64, y: i64) -> Vec<Hit> {
        match self.method {
            PickMethod::Buffer | PickMethod::Direct => self.frame.covering(self.scene, x, y),
            PickMethod::Ray => self.frame.ray_all(self.scene, x, y),
        }
    }

    /// The meshes under pixel (x, y), near to far: [`Picks::all`] with only
    /// the first (nearest) hit of each mesh kept.
    #[must_use]
    pub fn stack(self, x: i64, y: i64) -> Vec<Hit> {
        let mut seen = Vec::new();
        self.all(x, y)
            .into_iter()
            .filter(|h| {
                let new = !seen.contains(&h.mesh);
                seen.push(h.mesh);
                new
            })
            .collect()
    }

    /// Builds now what the view's method otherwise builds at its first pick
    /// on this frame: for Direct the cell index of the set-up triangles (in
    /// parallel on rayon's current pool when called outside of it), for Ray
    /// the meshes' transforms as rendered, the per-pixel ray setup and,
    /// unless every mesh was rendered at the identity, the BVH over the
    /// meshes' world boxes (the BVHs over the triangles are built by
    /// [`Scene::build_bvhs`], or on first use); nothing for Buffer.
    /// Optional: for timing, and for a first pick without the one-off cost.
    pub fn prepare(self) {
        match self.method {
            PickMethod::Buffer => {}
            PickMethod::Direct => self.frame.prepare_direct(),
            PickMethod::Ray => self.frame.prepare_rays(self.scene),
        }
    }

    /// The requested per-pixel maps ([`PixelMaps`]) of the triangles in the
    /// ID buffer (the buffer's answer, whatever the view's method): each
    /// pixel-centre ray of the frame's camera (in f64) meets its triangle's
    /// plane, as the triangle was placed in the render, at the point whose
    /// barycentrics, distance and z are reported. Rows in parallel, each
    /// pixel on its own: the same values on any number of threads.
    #[must_use]
    pub fn maps(self, want: MapRequest) -> PixelMaps {
        self.frame.pixel_maps(self.scene, want)
    }

    /// Compact picks of a run of pixels: `out[k]` becomes the pick at
    /// pixel (x + k, y) with the view's method, the same as
    /// [`Picks::id_at`] gives, for pick maps and sweeps. Pixels outside
    /// the frame (negative coordinates included) give `None`. The buffer
    /// method reads the row once and resolves meshes with a one-entry cache
    /// (neighbouring pixels mostly show the same mesh) instead of a search
    /// per pixel; the ray method walks the BVHs for four or eight
    /// neighbouring pixels at a time.
    ///
    /// ```
    /// use softpick::{builtin_scene, Camera, RenderOptions, Renderer};
    ///
    /// let scene = builtin_scene();
    /// let camera = Camera::auto_frame(&scene.framing_bounds(), 120, 90);
    /// let mut renderer = Renderer::new(RenderOptions::default())?;
    /// let picks = renderer.render(&scene, &camera)?.picks(&scene)?;
    /// let mut row = vec![None; 120];
    /// picks.span(0, 60, &mut row);
    /// assert_eq!(row[50], picks.id_at(50, 60));
    /// # Ok::<(), softpick::Error>(())
    /// ```
    pub fn span(self, x: i64, y: i64, out: &mut [Option<PickId>]) {
        let Some((lead, x, y)) = row_start(x, y, out.len()) else {
            out.fill(None);
            return;
        };
        let (left, rest) = out.split_at_mut(lead);
        left.fill(None);
        self.span_from(x, y, rest);
    }

    /// [`Picks::span`] from a start at non-negative coordinates.
    fn span_from(self, x: u32, y: u32, out: &mut [Option<PickId>]) {
        let (frame, scene) = (self.frame, self.scene);
        match self.method {
            PickMethod::Buffer => frame.buffer_span(scene, x, y, out, |p| p),
            PickMethod::Ray => simd::ray_block(frame, scene, (x, y, out.len()), out),
            PickMethod::Direct => {
                for (k, o) in out.iter_mut().enumerate() {
                    *o = frame.direct_id(scene, i64::from(x) + k as i64, i64::from(y));
                }
            }
        }
    }

    /// [`Picks::span`] with each pick handed to `cell` and its result
    /// stored in `out[k]`: for pick maps kept in another form (a raw ID
    /// image, say) without a buffer of picks in between. The buffer method
    /// gives each pick to `cell` as it makes it; the others pick 64 pixels
    /// at a time into a buffer on the stack. Pixels outside the frame get
    /// `cell(None)`.
    ///
    /// ```
    /// use softpick::{builtin_scene, Camera, Frame, RenderOptions, Renderer};
    ///
    /// let scene = builtin_scene();
    /// let camera = Camera::auto_frame(&scene.framing_bounds(), 120, 90);
    /// let mut renderer = Renderer::new(RenderOptions::default())?;
    /// let frame = renderer.render(&scene, &camera)?;
    /// // row 60 as raw IDs (global triangle + 1, 0 for nothing)
    /// let mut raw = vec![0u32; 120];
    /// frame.picks(&scene)?.span_with(0, 60, &mut raw, |p| {
    ///     p.map_or(Frame::NO_TRIANGLE, |p| p.global_triangle + 1)
    /// });
    /// assert_eq!(&raw[..], &frame.ids()[60 * 120..61 * 120]);
    /// # Ok::<(), softpick::Error>(())
    /// ```
    pub fn span_with<T>(self, x: i64, y: i64, out: &mut [T], cell: impl Fn(Option<PickId>) -> T) {
        let Some((lead, x, y)) = row_start(x, y, out.len()) else {
            out.fill_with(|| cell(None));
            return;
        };
        let (left, rest) = out.split_at_mut(lead);
        left.fill_with(|| cell(None));
        if self.method == PickMethod::Buffer {
            self.frame.buffer_span(self.scene, x, y, rest, cell);
            return;
        }
        let mut picks = [None; SPAN_WITH_RUN];
        let mut x = Some(x);
        for run in rest.chunks_mut(SPAN_WITH_RUN) {
            let picks = &mut picks[..run.len()];
            match x {
                Some(x) => self.span_from(x, y, picks),
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
    /// `(x + k % width, y + k / width)`, the same as [`Picks::span`] gives
    /// row by row (`None` outside the frame, negative coordinates
    /// included). The ray method picks two rows at a time (eight rays per
    /// walk of the BVH in 4×2-pixel blocks, where the scene's BVH over all
    /// its triangles serves them), which is faster on large models than
    /// row by row. With `width` 0 there is no pixel: `out` is filled with
    /// `None`.
    ///
    /// ```
    /// use softpick::{builtin_scene, Camera, PickMethod, RenderOptions, Renderer};
    ///
    /// let scene = builtin_scene();
    /// let camera = Camera::auto_frame(&scene.framing_bounds(), 120, 90);
    /// let mut renderer = Renderer::new(RenderOptions::default())?;
    /// let rays = renderer.render(&scene, &camera)?.picks(&scene)?.with(PickMethod::Ray);
    /// // rows 40 to 43 of the pixels 10 to 109
    /// let mut block = vec![None; 100 * 4];
    /// rays.block(10, 40, 100, &mut block);
    /// assert_eq!(block[2 * 100 + 50], rays.id_at(60, 42));
    /// # Ok::<(), softpick::Error>(())
    /// ```
    pub fn block(self, x: i64, y: i64, width: usize, out: &mut [Option<PickId>]) {
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
                self.span(x, row_y, row);
            }
            return;
        };
        if self.method == PickMethod::Ray {
            simd::ray_block(self.frame, self.scene, (x, y, width), rest);
            return;
        }
        for (k, row) in rest.chunks_mut(width).enumerate() {
            let y = u32::try_from(k).ok().and_then(|k| y.checked_add(k));
            match y {
                Some(y) => self.span_from(x, y, row),
                None => row.fill(None),
            }
        }
    }
}
