//! Acceleration structures over plain positions and triangles: each mesh's
//! BVH ([`bvh`]), the BVH over the meshes' world boxes ([`top`]), the
//! meshes' transforms it is built from ([`transforms`]) and the watertight
//! ray–triangle tests they end in ([`triangle`]). Nothing here knows about
//! scenes, frames or picks.

pub mod bvh;
pub(crate) mod top;
pub(crate) mod transforms;
pub mod triangle;
