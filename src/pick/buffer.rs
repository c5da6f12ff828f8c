//! Buffer picks: one lookup in the ID buffer per pixel.

use crate::error::Error;
use crate::frame::{Frame, NO_TRIANGLE};
use crate::pick::{Hit, PickId};
use crate::scene::Scene;

impl Frame {
    /// What is under pixel (x, y), compactly: an O(1) lookup in the ID and
    /// depth buffers. `None` on background or outside the frame (negative
    /// or too large coordinates included), never a panic.
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn pick_id(&self, scene: &Scene, x: i64, y: i64) -> Result<Option<PickId>, Error> {
        self.check_scene(scene)?;
        Ok(self.pick_id_unchecked(scene, x, y))
    }

    /// [`Frame::pick_id`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    #[inline]
    pub(crate) fn pick_id_unchecked(&self, scene: &Scene, x: i64, y: i64) -> Option<PickId> {
        let i = self.index(x, y)?;
        let id = self.ids[i];
        if id == NO_TRIANGLE {
            return None;
        }
        PickId::locate(scene, id - 1, self.depth[i])
    }

    /// What is under pixel (x, y): an O(1) lookup in the ID buffer, then the
    /// hit record (mesh, triangle, depth, world position, barycentrics).
    /// `None` on background or outside the frame (negative or too large
    /// coordinates included), never a panic.
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn pick(&self, scene: &Scene, x: i64, y: i64) -> Result<Option<Hit>, Error> {
        self.check_scene(scene)?;
        Ok(self.pick_unchecked(scene, x, y))
    }

    /// [`Frame::pick`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    pub(crate) fn pick_unchecked(&self, scene: &Scene, x: i64, y: i64) -> Option<Hit> {
        let id = self.pick_id_unchecked(scene, x, y)?;
        self.hit_unchecked(scene, id, x, y)
    }

    /// The buffer method's picks of a run of pixels (as
    /// [`Frame::pick_id_span`]), each given to `cell` as it is made and its
    /// result stored in `out`: a caller that keeps something else than the
    /// pick (a raw ID, say) does not store the pick first.
    #[inline(always)]
    pub(super) fn buffer_span<T>(
        &self,
        scene: &Scene,
        x: u32,
        y: u32,
        out: &mut [T],
        cell: impl Fn(Option<PickId>) -> T,
    ) {
        let Some(start) = self.pixel_index(x, y) else {
            out.fill_with(|| cell(None));
            return;
        };
        let n = out.len().min((self.width - x) as usize);
        let (inside, past) = out.split_at_mut(n);
        past.fill_with(|| cell(None));
        let ids = &self.ids[start..start + n];
        let depth = &self.depth[start..start + n];
        let offsets = scene.triangle_offsets();
        let total = scene.triangle_count();
        // the mesh of the last pixel: [lo, hi) its global triangles, kept
        // here so that a pixel of the same mesh as the last one needs no
        // search (`Scene::locate_from` would reload the offsets per pixel)
        let (mut mesh, mut lo, mut hi) = (0u32, 1u32, 0u32);
        // (each cell written once: `None` or the pick)
        for ((o, &id), &z) in inside.iter_mut().zip(ids).zip(depth) {
            let pick = 'pick: {
                if id == NO_TRIANGLE {
                    break 'pick None;
                }
                let g = id - 1;
                if !(lo <= g && g < hi) {
                    if g >= total {
                        break 'pick None;
                    }
                    let Some((m, _)) = scene.locate(g) else {
                        break 'pick None;
                    };
                    mesh = m;
                    lo = offsets[m as usize];
                    hi = offsets[m as usize + 1];
                }
                Some(PickId {
                    mesh,
                    triangle: g - lo,
                    global_triangle: g,
                    depth: z,
                })
            };
            *o = cell(pick);
        }
    }
}
