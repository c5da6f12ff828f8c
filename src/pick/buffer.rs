//! Buffer picks: one lookup in the ID buffer per pixel.

use crate::frame::{Frame, NO_TRIANGLE};
use crate::pick::PickId;
use crate::scene::Scene;

impl Frame {
    /// The buffer method's compact pick at pixel (x, y) ([`Picks::id_at`](crate::pick::Picks::id_at)):
    /// an O(1) lookup in the ID and depth buffers. `None` on background or
    /// outside the frame (negative or too large coordinates included).
    #[inline]
    pub(crate) fn buffer_id(&self, scene: &Scene, x: i64, y: i64) -> Option<PickId> {
        let i = self.index(x, y)?;
        let id = self.ids[i];
        if id == NO_TRIANGLE {
            return None;
        }
        PickId::locate(scene, id - 1, self.depth[i])
    }

    /// The buffer method's picks of a run of pixels (as
    /// [`Picks::span`](crate::pick::Picks::span)), each given to `cell` as it is made and its
    /// result stored in `out`: a caller that keeps something else than the
    /// pick (a raw ID, say) does not store the pick first.
    #[inline(always)]
    pub(crate) fn buffer_span<T>(
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
