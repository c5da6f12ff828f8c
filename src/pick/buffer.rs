//! Buffer picks: one lookup in the ID buffer.

use crate::frame::Frame;
use crate::pick::Hit;
use crate::scene::Scene;

impl Frame {
    /// What is under pixel (x, y): an O(1) lookup in the ID buffer, then the
    /// hit record (mesh, triangle, depth, world position, barycentrics).
    /// `None` on background or outside the frame (negative or too large
    /// coordinates included), never a panic.
    #[must_use]
    pub fn pick(&self, scene: &Scene, x: i64, y: i64) -> Option<Hit> {
        let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        let g = self.triangle_at(x, y)?;
        let d = self.depth[self.index(x, y)?];
        self.hit_at(scene, g, x as f32 + 0.5, y as f32 + 0.5, d)
    }
}
