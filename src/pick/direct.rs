//! Direct picks: no ID buffer. The pixel centre is tested against the
//! set-up triangles near it (found through the frame's cell index, see
//! `crate::frame::direct_index`), with the same integer edge functions, depth plane,
//! depth test and draw-order ties as the rasterizer, so the answer equals
//! the ID buffer's at every pixel.

use crate::error::Error;
use crate::frame::direct_index::DirectIndex;
use crate::frame::Frame;
use crate::pick::{Hit, PickId};
use crate::raster::bin::TileGrid;
use crate::raster::rules::DepthTest;
use crate::scene::Scene;

impl Frame {
    /// The frame's direct-pick index, built on first use.
    fn direct_index(&self) -> &DirectIndex {
        self.direct
            .get_or_build(self.width, self.height, &self.chunks, self.depth_test)
    }

    /// Builds the index the direct picks use ([`Frame::triangle_at_direct`],
    /// [`Frame::pick_id_direct`], [`Frame::pick_direct`]) if it is not built
    /// yet: per 64×64 tile, the tile's triangles in a hierarchy of cells,
    /// sorted by depth. The first direct pick after a render does this
    /// otherwise; call it beforehand to keep the build out of timed picks
    /// (in parallel on rayon's current pool when called outside of it).
    pub fn prepare_direct(&self) {
        let _ = self.direct_index();
    }

    /// [`Frame::triangle_at_direct`] for an in-frame pixel.
    #[inline]
    pub(crate) fn direct_query(&self, x: u32, y: u32) -> Option<(u32, f32)> {
        self.direct_index().query(x, y)
    }

    /// The nearest covering triangle at pixel (x, y) and its depth, found
    /// without the ID buffer.
    #[must_use]
    pub fn triangle_at_direct(&self, x: i64, y: i64) -> Option<(u32, f32)> {
        let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        self.pixel_index(x, y)?;
        self.direct_query(x, y)
    }

    /// Like [`Frame::pick_id`], but by point-in-triangle tests on the
    /// screen-space triangles instead of the ID buffer.
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn pick_id_direct(&self, scene: &Scene, x: i64, y: i64) -> Result<Option<PickId>, Error> {
        self.check_scene(scene)?;
        Ok(self.pick_id_direct_unchecked(scene, x, y))
    }

    /// [`Frame::pick_id_direct`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    pub(crate) fn pick_id_direct_unchecked(&self, scene: &Scene, x: i64, y: i64) -> Option<PickId> {
        let (g, z) = self.triangle_at_direct(x, y)?;
        PickId::locate(scene, g, z)
    }

    /// Like [`Frame::pick`], but by point-in-triangle tests on the
    /// screen-space triangles instead of the ID buffer.
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn pick_direct(&self, scene: &Scene, x: i64, y: i64) -> Result<Option<Hit>, Error> {
        self.check_scene(scene)?;
        Ok(self.pick_direct_unchecked(scene, x, y))
    }

    /// [`Frame::pick_direct`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    pub(crate) fn pick_direct_unchecked(&self, scene: &Scene, x: i64, y: i64) -> Option<Hit> {
        let id = self.pick_id_direct_unchecked(scene, x, y)?;
        self.hit_unchecked(scene, id, x, y)
    }

    /// Every triangle whose coverage includes pixel (x, y), near to far
    /// (ties in draw order), one entry per triangle, depth test ignored.
    ///
    /// # Errors
    /// [`Error::StaleFrame`](crate::Error::StaleFrame) when the frame was not
    /// rendered from `scene` as it is now (see [`Frame::check_scene`]).
    pub fn pick_all(&self, scene: &Scene, x: i64, y: i64) -> Result<Vec<Hit>, Error> {
        self.check_scene(scene)?;
        Ok(self.pick_all_unchecked(scene, x, y))
    }

    /// [`Frame::pick_all`] without the scene check, for callers that
    /// rendered the frame from this very scene.
    pub(crate) fn pick_all_unchecked(&self, scene: &Scene, x: i64, y: i64) -> Vec<Hit> {
        let (Ok(ux), Ok(uy)) = (u32::try_from(x), u32::try_from(y)) else {
            return Vec::new();
        };
        if self.pixel_index(ux, uy).is_none() {
            return Vec::new();
        }
        let bin = TileGrid::new(self.width, self.height).tile_of(ux, uy);
        let (i, j) = (ux as i32, uy as i32);
        let mut found: Vec<(f32, u32)> = Vec::new();
        for chunk in &self.chunks {
            for &e in &chunk.bins[bin] {
                let Some(t) = chunk.get(e) else { continue };
                if t.covers(i, j) {
                    let z = t.depth_at(i, j);
                    if self.depth_test != DepthTest::Always || (0.0..=1.0).contains(&z) {
                        found.push((z, t.id()));
                    }
                }
            }
        }
        found.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut seen = std::collections::HashSet::new();
        found
            .into_iter()
            .filter(|(_, id)| seen.insert(*id))
            .filter_map(|(z, id)| self.hit_at(scene, id, ux as f32 + 0.5, uy as f32 + 0.5, z))
            .collect()
    }
}
