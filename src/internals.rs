//! Internals for softpick's own tests, tools, fuzz targets and fixtures
//! (cargo feature `internals`, which the `cli` feature turns on; hidden from
//! the docs): not part of the library's API, and free to change with it.

pub use crate::accel::bvh::Bvh;
/// softpick's watertight ray–triangle test and its ray, for the browser
/// crate's lazy picks on a pose (which must test triangles exactly as the
/// BVH walks do).
pub use crate::accel::triangle::{intersect, RayPrecomp, TriHit};
#[cfg(feature = "png")]
pub use crate::export::{encode_png, read_png};
pub use crate::export::{id_color, read_raw_u32, write_atomic};
pub use crate::frame::render::render_2d;
use crate::frame::Frame;
#[cfg(feature = "gltf")]
pub use crate::io::gltf::{load_gltf, load_gltf_bytes, load_gltf_with};
#[cfg(feature = "obj")]
pub use crate::io::obj::{load_obj, load_obj_bytes};
#[cfg(feature = "ply")]
pub use crate::io::ply::{load_ply, load_ply_bytes};
#[cfg(feature = "stl")]
pub use crate::io::stl::{load_stl, load_stl_bytes};
/// A local ray and its cull mode as the caster makes them (the lazy picks'
/// local rays are the caster's).
pub use crate::pick::ray::query::local_ray_parts;
pub use crate::raster::rules::{snap, snapped_area, SUBPIXEL_BITS};
pub use crate::raster::vertex::ScreenVertex;

/// The guard band in pixels (the crate-private tuning constant
/// `limits::GUARD_BAND_PX`), for tests and fuzz targets that place
/// vertices at its edge.
pub const GUARD_BAND_PX: f32 = crate::limits::GUARD_BAND_PX;

/// The BVH of a mesh (built on first use; shared by the instances of its
/// geometry).
#[must_use]
pub fn mesh_bvh(mesh: &crate::scene::Mesh) -> &Bvh {
    mesh.bvh()
}

/// The direct method's answer at pixel (x, y) without a scene: the nearest
/// covering set-up triangle (global index) and its window depth, or `None`
/// on background or outside the frame. The picks' own
/// [`Picks::id_at`](crate::Picks::id_at) with the direct method resolves
/// the mesh as well.
#[must_use]
pub fn direct_triangle_at(frame: &Frame, x: i64, y: i64) -> Option<(u32, f32)> {
    frame.direct_at(x, y)
}

/// Window position of vertex `v` of mesh `mesh` in the frame's last render
/// (the screen-space vertex buffer: window x, y, depth and clip w).
#[must_use]
pub fn screen_vertex(frame: &Frame, mesh: u32, v: u32) -> Option<ScreenVertex> {
    frame.screen_vertex(mesh, v)
}

/// Calls `f(pixel index, global triangle)` for every pixel centre every
/// set-up triangle of the frame covers (depth ignored), in draw order per
/// tile.
pub fn for_each_coverage(frame: &Frame, f: impl FnMut(usize, u32)) {
    frame.for_each_coverage(f);
}

/// The collision playground's layout (`softpick view --builtin collide`),
/// for the viewer's tests.
#[cfg(feature = "viewer")]
pub mod playground {
    pub use crate::viewer::playground::{
        collide_mesh, collide_scene, COLLIDE_MESHES, COLLIDE_VIEW_PITCH_DEG, SPHERE_CENTRES,
        SPHERE_RADIUS, WALL,
    };
}
