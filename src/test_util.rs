//! Fixtures shared by the unit tests: the seeded RNG and the jittered grid
//! of the `softpick-testkit` dev-dependency, the ones the integration tests,
//! benches and tools use too.

pub(crate) use softpick_testkit::{grid, Rng};

/// A uniform random point in a box.
pub(crate) fn in_box(rng: &mut Rng, b: &crate::geometry::Aabb) -> glam::Vec3 {
    let t = rng.vec3(0.0, 1.0);
    b.min + (b.max - b.min) * t
}
