//! Internals for softpick's own tests, tools, fuzz targets and fixtures
//! (cargo feature `internals`, which the `cli` feature turns on): not part
//! of the library's API, and free to change with it.

pub use crate::frame::render::render_2d;
pub use crate::frame::Frame;

/// The direct method's answer at pixel (x, y) without a scene: the nearest
/// covering set-up triangle (global index) and its window depth, or `None`
/// on background or outside the frame. The picks' own
/// [`Picks::id_at`](crate::Picks::id_at) with [`PickMethod::Direct`](crate::PickMethod)
/// resolves the mesh as well.
#[must_use]
pub fn direct_triangle_at(frame: &Frame, x: i64, y: i64) -> Option<(u32, f32)> {
    frame.direct_at(x, y)
}

/// The guard band in pixels (the crate-private tuning constant
/// `limits::GUARD_BAND_PX`), for tests and fuzz targets that place
/// vertices at its edge.
pub const GUARD_BAND_PX: f32 = crate::limits::GUARD_BAND_PX;
