//! The viewer's section plane: one user clip plane through the scene
//! ([`ClipPlanes`]), placed facing the camera. The keys that place and move
//! it are in `input_section`.

use glam::Vec3;

use crate::camera::Camera;
use crate::geometry::ClipPlanes;

/// A plane that keeps the points `p` with `normal · p ≥ offset`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Section {
    /// Unit normal, pointing into the half that is kept.
    pub(super) normal: Vec3,
    /// Signed distance of the plane from the origin along `normal`.
    pub(super) offset: f32,
}

impl Section {
    /// The plane through `centre` whose normal is the camera's viewing
    /// direction (eye → target): the half nearer the eye is cut away, so the
    /// cut face looks at the camera. `None` when the direction or the
    /// plane is not finite.
    #[must_use]
    pub(super) fn facing(camera: &Camera, centre: Vec3) -> Option<Section> {
        let normal = (camera.target - camera.eye).try_normalize()?;
        let offset = normal.dot(centre);
        offset.is_finite().then_some(Section { normal, offset })
    }

    /// The plane as [`ClipPlanes`] writes it: `[a, b, c, d]`, keeping
    /// `a·x + b·y + c·z + d ≥ 0`.
    #[must_use]
    pub(super) fn plane(&self) -> [f32; 4] {
        // `+ 0.0` makes a zero offset print as `0`, not `-0`
        [
            self.normal.x,
            self.normal.y,
            self.normal.z,
            -self.offset + 0.0,
        ]
    }

    /// The plane for every mesh (`None` if it stopped being finite).
    #[must_use]
    pub(super) fn clip_planes(&self) -> Option<ClipPlanes> {
        ClipPlanes::new(&[self.plane()]).ok()
    }

    /// `plane=(a,b,c,d)`, each value in Rust's shortest form that reads
    /// back to the same `f32`, so a script can rebuild the exact plane.
    #[must_use]
    pub(super) fn field(&self) -> String {
        let [a, b, c, d] = self.plane();
        format!("plane=({a},{b},{c},{d})")
    }
}
