//! The camera check of the Papervision post, for what the camera follows
//! (the driven meshes): is the view from a driven mesh to the camera
//! blocked, or is the camera inside a mesh? Without driven meshes there is
//! nothing to follow and the view is clear: the orbit target of a model
//! sits inside it, so checking from the target would find the model itself
//! between target and eye in every view.

use crate::camera::Camera;
use crate::collide::first_blocker;
use crate::geometry::Ray;
use crate::pick::ray::{RayCaster, RayOptions};
use crate::scene::{MeshId, Scene};

use super::drive::world_box;

/// What lies between the followed (driven) meshes and the camera.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum CameraView {
    /// Nothing followed, or every followed mesh in sight.
    Clear,
    /// Another mesh lies between a followed mesh and the camera.
    Blocked {
        /// The mesh nearest the followed mesh on the way to the camera.
        mesh: MeshId,
        /// Its name.
        name: String,
    },
    /// The camera is inside a mesh: looking toward a followed mesh's
    /// centre, the first surface before it is seen from behind.
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

/// Checks `cam` against `scene` for the meshes it follows (`followed`,
/// the driven meshes), each in turn from its world box's centre: inside
/// when the first surface on the way from the eye to that centre is a back
/// face (a closed mesh seen from within), else blocked when
/// [`first_blocker`] finds a surface of another mesh between the centre and
/// the eye (the followed mesh's own surface is not in the way); the first
/// mesh so answered gives the answer, clear when none is (and when nothing
/// is followed).
#[must_use]
pub(super) fn camera_view(scene: &Scene, cam: &Camera, followed: &[MeshId]) -> CameraView {
    for &mesh in followed {
        let Some(centre) = world_box(scene, mesh).map(|b| (b.min + b.max) * 0.5) else {
            continue;
        };
        let to_centre = centre - cam.eye;
        let dist = to_centre.length();
        if !(dist > 0.0) || !dist.is_finite() {
            continue;
        }
        let opts = RayOptions {
            far: dist,
            ..RayOptions::default()
        };
        let caster = RayCaster::new(scene);
        if let Some(h) = caster.first_brute(&Ray::new(cam.eye, to_centre / dist), &opts) {
            if !h.front_face {
                return CameraView::Inside {
                    mesh: h.mesh,
                    name: h.mesh_name.to_string(),
                };
            }
        }
        let others = |m: MeshId| m != mesh;
        let opts = RayOptions {
            filter: Some(&others),
            ..RayOptions::default()
        };
        if let Some(h) = first_blocker(scene, centre, cam.eye, &opts) {
            return CameraView::Blocked {
                mesh: h.mesh,
                name: h.mesh_name.to_string(),
            };
        }
    }
    CameraView::Clear
}
