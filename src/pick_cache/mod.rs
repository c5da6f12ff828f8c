//! What a frame builds for its picks at the first one and keeps until the
//! next render: the direct picks' cell index of the set-up triangles
//! (`direct_index`) and the ray picks' per-pixel ray setup (`ray_setup`);
//! the mesh transforms as rendered it keeps too are `accel::transforms`,
//! which the scene also keeps for its current state.
//!
//! A module of their own beside `pick`, one layer lower, in the frame's
//! (tests/integration/layers.rs): they are built from plain
//! inputs (set-up chunks, a camera) and import
//! nothing of the frame or the picks, so the `Frame` can own them without
//! depending on the pick methods.

pub(crate) mod direct_index;
pub(crate) mod ray_setup;
