//! Buffer picks: one lookup in the ID buffer.

use crate::frame::Frame;
use crate::pick::{Hit, PickId};
use crate::scene::Scene;

impl Frame {
    /// What is under pixel (x, y), compactly: an O(1) lookup in the ID and
    /// depth buffers. `None` on background or outside the frame (negative
    /// or too large coordinates included), never a panic.
    #[inline]
    #[must_use]
    pub fn pick_id(&self, scene: &Scene, x: i64, y: i64) -> Option<PickId> {
        let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        let i = self.index(x, y)?;
        let id = self.ids[i];
        if id == crate::frame::NO_TRIANGLE {
            return None;
        }
        PickId::locate(scene, id - 1, self.depth[i])
    }

    /// What is under pixel (x, y): an O(1) lookup in the ID buffer, then the
    /// hit record (mesh, triangle, depth, world position, barycentrics).
    /// `None` on background or outside the frame (negative or too large
    /// coordinates included), never a panic.
    #[must_use]
    pub fn pick(&self, scene: &Scene, x: i64, y: i64) -> Option<Hit> {
        let id = self.pick_id(scene, x, y)?;
        self.hit(scene, id, x, y)
    }
}
