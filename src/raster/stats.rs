//! What a render counts ([`Stats`], the same on any machine and thread
//! count) and how long its stages took ([`StageTimes`], which are not, and
//! are zero on `wasm32-unknown-unknown`, which has no clock).

use std::time::Duration;

/// The clock of the stage times: [`std::time::Instant`] where the platform
/// has one. On `wasm32-unknown-unknown` `Instant::now` panics (that target
/// has no clock without JavaScript), so there the clock reads nothing and
/// every stage time is zero: timing is for profiling and changes no result.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock(
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))] std::time::Instant,
);

impl Clock {
    /// Now.
    #[inline]
    pub(crate) fn now() -> Self {
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        return Clock(std::time::Instant::now());
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        return Clock();
    }

    /// The time from `earlier` to this reading (zero without a clock).
    #[inline]
    pub(crate) fn since(self, earlier: Clock) -> Duration {
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        return self.0.saturating_duration_since(earlier.0);
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        return {
            let _ = earlier;
            Duration::ZERO
        };
    }

    /// The time since this reading (zero without a clock).
    #[inline]
    pub(crate) fn elapsed(self) -> Duration {
        Clock::now().since(self)
    }
}

/// Counters of one render (llvmpipe's `LP_COUNT` in spirit). Later
/// releases may count more (`#[non_exhaustive]`): read the fields; the
/// renderer makes the values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Triangles submitted.
    pub triangles: u64,
    /// Triangles touching a non-finite vertex.
    pub invalid: u64,
    /// Triangles entirely outside one frustum plane.
    pub frustum_culled: u64,
    /// Triangles clipped (near plane or guard band).
    pub clipped: u64,
    /// Triangles dropped by the cull mode.
    pub face_culled: u64,
    /// Triangles with zero snapped area.
    pub zero_area: u64,
    /// Triangles with no pixel centre in their bounding box.
    pub empty: u64,
    /// Set-up triangles (after clipping).
    pub setups: u64,
    /// Of those, triangles with a pixel box of at most 8×8, stored as a
    /// coverage mask (no edge functions in the tile rasterizer).
    pub small: u64,
    /// Bin entries written.
    pub bin_entries: u64,
    /// Triangles of runs found hidden behind nearer ones and never set up
    /// (the occlusion cull of dense frames; counted in `triangles` too).
    pub occluded: u64,
}

/// Wall-clock time of each stage of one render ([`crate::Frame::stage_times`]):
/// where a frame's time goes, for profiling. Unlike [`Stats`] these depend
/// on the machine, its load and the number of threads; on
/// `wasm32-unknown-unknown` (no clock without JavaScript) they are zero.
///
/// ```
/// use softpick::{builtin_scene, Camera, Renderer, RenderOptions};
/// let scene = builtin_scene();
/// let camera = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
/// let mut r = Renderer::new(RenderOptions::default()).unwrap();
/// let t = r.render(&scene, &camera).unwrap().stage_times();
/// assert_eq!(t.total(), t.vertex + t.setup + t.raster);
/// assert!(t.raster > std::time::Duration::ZERO);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StageTimes {
    /// The vertex stage: the meshes' world matrices, then the clip
    /// coordinates, outcodes and snapped window positions of every vertex
    /// (and world positions for color).
    pub vertex: Duration,
    /// Clipping, triangle setup and binning into tiles (and flat shading
    /// for color).
    pub setup: Duration,
    /// Clearing and rasterizing the tiles.
    pub raster: Duration,
}

impl StageTimes {
    /// The three stages together.
    #[must_use]
    pub fn total(&self) -> Duration {
        self.vertex + self.setup + self.raster
    }
}

impl Stats {
    pub(crate) fn add(&mut self, o: &Stats) {
        self.triangles += o.triangles;
        self.invalid += o.invalid;
        self.frustum_culled += o.frustum_culled;
        self.clipped += o.clipped;
        self.face_culled += o.face_culled;
        self.zero_area += o.zero_area;
        self.empty += o.empty;
        self.setups += o.setups;
        self.small += o.small;
        self.bin_entries += o.bin_entries;
        self.occluded += o.occluded;
    }
}
