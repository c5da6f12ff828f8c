//! Fixtures shared by the unit tests: the seeded RNG and the jittered grid
//! of the `softpick-testkit` dev-dependency, the ones the integration tests,
//! benches and tools use too.

pub(crate) use softpick_testkit::{grid, Rng};
