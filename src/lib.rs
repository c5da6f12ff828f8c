//! # softpick
//!
//! A CPU rasterizer with a pick buffer. It projects meshes into a
//! screen-space vertex buffer, fills triangles with exact integer edge
//! functions (8 subpixel bits, four selectable fill rules) and writes a
//! color, a depth and an ID buffer in one pass, so "what is under this
//! pixel?" is a 2D lookup ([`Frame::pick`]), a point-in-triangle query on the
//! screen-space triangles ([`Frame::pick_direct`]) or a 3D ray cast
//! ([`Frame::pick_ray`], [`raycast_first`]), and all three agree.
//!
//! ```
//! use softpick::{builtin_scene, Camera, RenderOptions, Renderer};
//!
//! let scene = builtin_scene();
//! let camera = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
//! let mut renderer = Renderer::new(RenderOptions::default())?;
//! let frame = renderer.render(&scene, &camera)?;
//! if let Some(hit) = frame.pick(&scene, 180, 300)? {
//!     println!("{} triangle {} at {}", hit.mesh_name, hit.triangle, hit.position);
//! }
//! # Ok::<(), softpick::Error>(())
//! ```
//!
//! Conventions (NDC depth range, y direction, winding, fill rules) are all
//! in [`rules`].

// Safe Rust throughout, except `cpu` (CPU-feature checks, prefetch and
// huge-page hints), `pick::simd` (the AVX2 build of a block of ray
// picks, run after checking the CPU) and `raster::simd` (the AVX2 build
// of the triangle batches of setup, the same way: eight triangles per
// instruction instead of four, which `#[target_feature]` alone gives);
// no other module may use `unsafe`.
#![deny(unsafe_code)]
#![warn(missing_docs)]
// `!(a > b)` is deliberate throughout: it is true for NaN, which must be rejected.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod accel;
pub mod analysis;
mod builtin;
mod camera;
mod collide;
mod cpu;
mod error;
mod export;
mod frame;
mod geometry;
#[cfg(any(feature = "obj", feature = "stl", feature = "ply", feature = "gltf"))]
mod io;
pub mod limits;
mod pick;
mod raster;
mod scene;
mod select;
#[cfg(test)]
mod test_util;
#[cfg(feature = "viewer")]
pub mod viewer;

pub use accel::bvh::{Bvh, Refit};
pub use analysis::{analyze_rules, RuleReport};
pub use builtin::builtin_scene;
pub use camera::file::{FileCamera, FileProjection};
pub use camera::{Camera, Projection};
pub use collide::{
    first_blocker, ground_below, ground_height, line_of_sight, plan_sweep, sweep_move, SweepResult,
};
pub use error::{CameraError, Error, ModelErrorKind, ModelFormat, ObjErrorKind, Result};
#[cfg(feature = "png")]
pub use export::{encode_png, read_png, write_png};
pub use export::{id_color, read_raw_u32, write_atomic, write_raw_f32, write_raw_u32};
pub use frame::maps::{MapRequest, PixelMaps};
pub use frame::render::{render, render_2d, RenderOptions, Renderer};
pub use frame::{Frame, ScreenVertex, BACKGROUND, NO_TRIANGLE};
pub use geometry::{Aabb, CullMode, Ray};
#[cfg(feature = "gltf")]
pub use io::gltf::{load_gltf, load_gltf_bytes, load_gltf_with};
#[cfg(feature = "obj")]
pub use io::obj::{load_obj, load_obj_bytes};
#[cfg(feature = "ply")]
pub use io::ply::{load_ply, load_ply_bytes};
#[cfg(feature = "stl")]
pub use io::stl::{load_stl, load_stl_bytes};
#[cfg(any(feature = "obj", feature = "stl", feature = "ply", feature = "gltf"))]
pub use io::{
    load_model, load_model_bytes, load_model_bytes_with, load_model_with, sniff_model_format,
    LoadOptions, LoadReport, MAX_MODEL_BYTES,
};
pub use pick::ray::{raycast_all, raycast_first, FirstHits, RayCaster, RayHit, RayOptions};
pub use pick::{Hit, PickId, PickMethod};
pub use raster::rules;
pub use raster::rules::{DepthTest, FillRule};
pub use raster::{StageTimes, Stats};
pub use scene::{
    palette_color, Animation, Channel, ChannelPath, Deformer, Instance, InstanceId, Interpolation,
    Mesh, MeshId, MeshOrigin, Node, NodeId, PoseStats, Scene, Skin, Transform,
};
pub use select::{NearPixel, PickCycle, SelectMode, Selection};
