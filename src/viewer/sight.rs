//! The camera check of the Papervision post: is the view from the orbit
//! target to the camera blocked, or is the camera inside a mesh?

use crate::camera::Camera;
use crate::collide::first_blocker;
use crate::geometry::Ray;
use crate::pick::ray::{RayCaster, RayOptions};
use crate::scene::{MeshId, Scene};

/// What lies between the orbit target and the camera.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum CameraView {
    /// Nothing: the target is in sight.
    Clear,
    /// A mesh lies between target and camera.
    Blocked {
        /// The mesh nearest the target on the way to the camera.
        mesh: MeshId,
        /// Its name.
        name: String,
    },
    /// The camera is inside a mesh: looking toward the target, the first
    /// surface before it is seen from behind.
    Inside {
        /// The mesh around the camera.
        mesh: MeshId,
        /// Its name.
        name: String,
    },
}

impl CameraView {
    /// The stdout line: `camera clear`, `camera blocked mesh=ID name=NAME`,
    /// or the same with ` inside=yes` when the camera is inside the mesh.
    #[must_use]
    pub(super) fn line(&self) -> String {
        match self {
            CameraView::Clear => "camera clear".to_string(),
            CameraView::Blocked { mesh, name } => format!("camera blocked mesh={mesh} name={name}"),
            CameraView::Inside { mesh, name } => {
                format!("camera blocked mesh={mesh} name={name} inside=yes")
            }
        }
    }

    /// The title's flag: empty when clear.
    #[must_use]
    pub(super) fn flag(&self) -> String {
        match self {
            CameraView::Clear => String::new(),
            CameraView::Blocked { name, .. } => format!(" | CAMERA BLOCKED by {name}"),
            CameraView::Inside { name, .. } => format!(" | CAMERA INSIDE {name}"),
        }
    }
}

/// Checks `cam` against `scene`: inside when the first surface on the way
/// from the eye to the target is a back face (a closed mesh seen from
/// within), else blocked when [`first_blocker`] finds a surface between
/// target and eye, else clear.
#[must_use]
pub(super) fn camera_view(scene: &Scene, cam: &Camera) -> CameraView {
    let to_target = cam.target - cam.eye;
    let dist = to_target.length();
    if !(dist > 0.0) || !dist.is_finite() {
        return CameraView::Clear;
    }
    let opts = RayOptions {
        far: dist,
        ..RayOptions::default()
    };
    if let Some(h) = RayCaster::new(scene).first_brute(&Ray::new(cam.eye, to_target / dist), &opts)
    {
        if !h.front_face {
            return CameraView::Inside {
                mesh: h.mesh,
                name: h.mesh_name.to_string(),
            };
        }
    }
    match first_blocker(scene, cam.target, cam.eye, &RayOptions::default()) {
        Some(h) => CameraView::Blocked {
            mesh: h.mesh,
            name: h.mesh_name.to_string(),
        },
        None => CameraView::Clear,
    }
}
