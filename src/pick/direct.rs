//! Direct picks: no ID buffer. The pixel centre is tested against the
//! set-up triangles near it (found through the frame's cell index, see
//! `crate::pick_cache::direct_index`), with the same integer edge functions, depth plane,
//! depth test and draw-order ties as the rasterizer, so the answer equals
//! the ID buffer's at every pixel.

use crate::frame::Frame;
use crate::pick::{Hit, PickId};
use crate::pick_cache::direct_index::DirectIndex;
use crate::raster::grid::TileGrid;
use crate::raster::rules::DepthTest;
use crate::scene::Scene;

impl Frame {
    /// The frame's direct-pick index, built on first use.
    fn direct_index(&self) -> &DirectIndex {
        self.direct
            .get_or_build(self.width, self.height, &self.chunks, self.depth_test)
    }

    /// Builds the index the direct picks use if it is not built yet: per
    /// 64×64 tile, the tile's triangles in a hierarchy of cells, sorted by
    /// depth ([`Picks::prepare`](crate::pick::Picks::prepare) with the direct method). The first direct
    /// pick after a render does this otherwise (in parallel on rayon's
    /// current pool when called outside of it).
    pub(crate) fn prepare_direct(&self) {
        let _ = self.direct_index();
    }

    /// The nearest covering triangle at pixel (x, y) and its window depth,
    /// found without the ID buffer; `None` on background or outside the
    /// frame.
    #[inline]
    pub(crate) fn direct_at(&self, x: i64, y: i64) -> Option<(u32, f32)> {
        let (x, y) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        self.pixel_index(x, y)?;
        self.direct_index().query(x, y)
    }

    /// The direct method's compact pick at pixel (x, y) ([`Picks::id_at`](crate::pick::Picks::id_at)).
    #[inline]
    pub(crate) fn direct_id(&self, scene: &Scene, x: i64, y: i64) -> Option<PickId> {
        let (g, z) = self.direct_at(x, y)?;
        PickId::locate(scene, g, z)
    }

    /// Every triangle whose coverage includes pixel (x, y), near to far
    /// (ties in draw order), one entry per triangle, depth test ignored
    /// ([`Picks::all`](crate::pick::Picks::all) with the buffer or direct method).
    pub(crate) fn covering(&self, scene: &Scene, x: i64, y: i64) -> Vec<Hit> {
        let (Ok(ux), Ok(uy)) = (u32::try_from(x), u32::try_from(y)) else {
            return Vec::new();
        };
        if self.pixel_index(ux, uy).is_none() {
            return Vec::new();
        }
        let bin = TileGrid::new(self.width, self.height).tile_of(ux, uy);
        let (i, j) = (ux as i32, uy as i32);
        let mut found: Vec<(f32, u32)> = Vec::new();
        // (hidden triangles too: every triangle's records)
        for chunk in self.all_chunks(scene) {
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
