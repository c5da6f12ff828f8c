//! The scene's meshes as `Frame::pixel_maps` reads them, per call: each
//! mesh's corner indices and positions at hand (without the way through
//! its `Mesh` to its geometry, a cache miss of its own on a scene of
//! thousands of meshes), and the mesh of a global triangle found without
//! a binary search.

use glam::Vec3;

use crate::scene::{MeshId, Scene};

/// Global triangles per entry of [`Meshes::first`] (as a shift).
const RUN: u32 = 6;

/// See the module docs.
pub(super) struct Meshes<'a> {
    /// `Scene::triangle_offsets`: each mesh's first global triangle, and
    /// the total at the end.
    offsets: &'a [u32],
    /// Each mesh's corner indices and positions.
    pub(super) triangles: Vec<&'a [[u32; 3]]>,
    pub(super) positions: Vec<&'a [Vec3]>,
    /// For each run of `2^RUN` global triangles, the mesh of its first.
    first: Vec<u32>,
}

impl<'a> Meshes<'a> {
    pub(super) fn new(scene: &'a Scene) -> Self {
        let offsets = scene.triangle_offsets();
        let meshes = scene.meshes();
        let total = offsets.last().copied().unwrap_or(0);
        // the last mesh whose first triangle is <= the run's first, as
        // `Scene::locate` finds it (empty meshes share their successor's
        // offset and are passed)
        let mut m = 0;
        let first = (0..total.div_ceil(1 << RUN))
            .map(|run| {
                let global = run << RUN;
                while m + 1 < meshes.len() && offsets[m + 1] <= global {
                    m += 1;
                }
                m as u32
            })
            .collect();
        Self {
            offsets,
            triangles: meshes.iter().map(|m| m.triangles()).collect(),
            positions: meshes.iter().map(|m| m.positions()).collect(),
            first,
        }
    }

    /// `Scene::locate`: (mesh, local triangle) of global triangle `global`.
    #[inline]
    pub(super) fn locate(&self, global: u32) -> Option<(MeshId, u32)> {
        let mut m = *self.first.get((global >> RUN) as usize)? as usize;
        // (global < the total, which ends `offsets`: the walk stops at a
        // mesh, the last whose first triangle is <= global)
        while self.offsets[m + 1] <= global {
            m += 1;
        }
        Some((m as MeshId, global - self.offsets[m]))
    }
}
