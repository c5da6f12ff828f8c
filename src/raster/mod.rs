//! The rasterizer's pipeline stages, on plain data (after Mesa's
//! llvmpipe); `frame::render` runs them in order into a frame:
//!
//! 1. [`vertex`]: every mesh vertex to clip space, outcode, window
//!    position and snapped fixed point → the screen-space vertex buffer;
//! 2. [`clip`]: near plane and guard band in homogeneous space, only for
//!    triangles that need it;
//! 3. [`setup`]: per triangle, integer edges, bbox, depth plane, fill-rule bias;
//! 4. [`bin`]: triangles into 64×64 tile bins ([`grid`]: which tiles a
//!    record may cover), in draw order, in fixed-size
//!    chunks set up in parallel (the chunking depends on the triangle count
//!    only, never on the thread count), each mesh's triangles reaching
//!    setup through the front end [`front`] (batches of triage, clipping,
//!    user clip planes); with color, [`shade`] then colors each chunk's
//!    set-up triangles;
//! 5. [`tile`]: bands of tiles rasterized in parallel, one writer per band,
//!    each tile's part of a band cleared right before its triangles are
//!    drawn if the previous render may have drawn there.
//!
//! All conventions live in [`rules`]; what a render counts and how long
//! its stages took, in [`stats`].

pub(crate) mod batch;
pub(crate) mod bin;
pub(crate) mod clip;
mod front;
pub(crate) mod grid;
pub mod rules;
pub(crate) mod setup;
pub(crate) mod shade;
pub(crate) mod simd;
pub(crate) mod stats;
pub(crate) mod tile;
pub(crate) mod vertex;

pub use stats::{StageTimes, Stats};
