//! # softpick
//!
//! A CPU rasterizer with a pick buffer. It projects meshes into a
//! screen-space vertex buffer, fills triangles with exact integer edge
//! functions (8 subpixel bits, four selectable fill rules) and writes a
//! color, a depth and an ID buffer in one pass, so "what is under this
//! pixel?" is a 2D lookup in the ID buffer, a point-in-triangle query on
//! the screen-space triangles or a 3D ray cast, and all three agree
//! ([`PickMethod`]): [`Frame::picks`] checks the frame against its scene
//! once and answers every pick through the view it returns ([`Picks`]).
//!
//! ```
//! use softpick::{builtin_scene, Camera, RenderOptions, Renderer};
//!
//! let scene = builtin_scene();
//! let camera = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
//! let mut renderer = Renderer::new(RenderOptions::default())?;
//! let frame = renderer.render(&scene, &camera)?;
//! if let Some(hit) = frame.picks(&scene)?.at(180, 300) {
//!     println!("{} triangle {} at {}", hit.mesh_name, hit.triangle, hit.position);
//! }
//! # Ok::<(), softpick::Error>(())
//! ```
//!
//! Every convention (NDC depth range, y direction, winding, fill rules,
//! triangle numbering, the background of each output) is in one place:
//! docs/conventions.md.

// Safe Rust throughout, except `cpu` (CPU-feature checks, prefetch and
// huge-page hints; `cpu::lanes`, the AVX2 build of the BVH walks'
// eight-lane arithmetic), `pick::simd` (the AVX2 build of a block of ray
// picks, run after checking the CPU) and `raster::simd` (the AVX2 build
// of the triangle batches of setup, the same way: eight triangles per
// instruction instead of four, which `#[target_feature]` alone gives);
// no other module may use `unsafe`.
#![deny(unsafe_code)]
#![warn(missing_docs)]
// `!(a > b)` is deliberate throughout: it is true for NaN, which must be rejected.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod accel;
mod builtin;
mod camera;
mod collide;
mod cpu;
mod error;
mod export;
mod frame;
mod geometry;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals;
#[cfg(any(feature = "obj", feature = "stl", feature = "ply", feature = "gltf"))]
mod io;
pub mod limits;
mod par;
mod pick;
mod pick_cache;
mod raster;
mod rule_faults;
mod scene;
mod select;
#[cfg(test)]
mod test_util;
#[cfg(feature = "viewer")]
pub mod viewer;

// The public API, one curated list (docs/architecture.md lists every name
// with one line). Everything else is crate-private or, for softpick's own
// tests, tools and fuzz targets, in `internals` (feature `internals`).

// the scene
pub use builtin::builtin_scene;
pub use geometry::{Aabb, ClipPlanes, CullMode, Ray};
pub use scene::{Instance, InstanceId, Mesh, MeshId, MeshOrigin, Node, NodeId, Scene, Transform};
// the camera
pub use camera::file::{FileCamera, FileProjection};
pub use camera::{Camera, Projection};
// rendering
pub use frame::render::{render, RenderOptions, Renderer};
pub use frame::Frame;
pub use raster::rules::{DepthTest, FillRule};
pub use raster::{StageTimes, Stats};
// picks, maps and selections of a frame
pub use frame::maps::{MapRequest, PixelMaps};
pub use pick::{Hit, PickId, PickMethod, Picks};
pub use select::{NearPixel, PickCycle, SelectMode, Selection};
// world rays
pub use pick::ray::{FirstHits, RayCaster, RayHit, RayOptions};
// files in and out
#[cfg(feature = "png")]
pub use export::write_png;
pub use export::{write_raw_f32, write_raw_u32};
#[cfg(any(feature = "obj", feature = "stl", feature = "ply", feature = "gltf"))]
pub use io::{
    load_model, load_model_bytes, load_model_bytes_with, load_model_with, LoadOptions, LoadReport,
};
// errors
pub use error::{CameraError, Error, ModelErrorKind, ModelFormat, Result};
// the fill-rule experiment
pub use rule_faults::{analyze_rules, RuleReport};

/// Animations and deformation: what [`Scene::pose`](crate::Scene::pose)
/// plays (glTF 2.0's channels, samplers, skins and morph targets).
pub mod animation {
    pub use crate::scene::{
        Animation, Channel, ChannelPath, Deformer, Interpolation, LoopMode, PoseStats, Skin,
    };
}

/// Collision queries on the scene's meshes, built on world rays
/// ([`RayCaster`]): the ground under a point, a line of sight, the first
/// blocker between two points, and a mesh swept along a move until it
/// touches another.
pub mod collision {
    pub use crate::collide::{
        first_blocker, ground_below, ground_height, line_of_sight, plan_sweep, sweep_move,
        SweepResult,
    };
}
