//! Cameras that come with a model file (glTF `cameras`, placed by nodes),
//! turned into [`Camera`]s that keep their field of view (or magnification),
//! aspect ratio and clip planes.

use glam::{Mat4, Vec3};

use super::{Camera, Projection};
use crate::error::Error;
use crate::geometry::Aabb;

/// A file's projection, as the file gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FileProjection {
    /// Perspective: vertical field of view in degrees, aspect ratio
    /// (width / height) if given, near plane, far plane (`None`: infinite).
    Perspective {
        /// Vertical field of view, degrees.
        yfov_deg: f32,
        /// Width / height, if the file gives it.
        aspect: Option<f32>,
        /// Near plane distance.
        znear: f32,
        /// Far plane distance; `None` for an infinite far plane.
        zfar: Option<f32>,
    },
    /// Orthographic: half the visible width and height, near and far planes.
    Orthographic {
        /// Half the visible width.
        xmag: f32,
        /// Half the visible height.
        ymag: f32,
        /// Near plane distance.
        znear: f32,
        /// Far plane distance.
        zfar: f32,
    },
}

impl FileProjection {
    /// Checks the values a camera needs: positive finite sizes and planes,
    /// a field of view in (0°, 180°), near < far.
    #[cfg_attr(not(feature = "gltf"), allow(dead_code))]
    pub(crate) fn check(&self) -> Result<(), String> {
        let pos = |v: f32| v.is_finite() && v > 0.0;
        match *self {
            FileProjection::Perspective {
                yfov_deg,
                aspect,
                znear,
                zfar,
            } => {
                if !(yfov_deg > 0.0 && yfov_deg < 180.0) {
                    return Err(format!("yfov of {yfov_deg}° is outside (0°, 180°)"));
                }
                if aspect.is_some_and(|a| !pos(a)) {
                    return Err("aspectRatio must be a positive number".into());
                }
                if !pos(znear) {
                    return Err(format!("znear must be > 0 (got {znear})"));
                }
                if zfar.is_some_and(|f| !(f.is_finite() && f > znear)) {
                    return Err("zfar must be above znear".into());
                }
            }
            FileProjection::Orthographic {
                xmag,
                ymag,
                znear,
                zfar,
            } => {
                if !(pos(xmag) && pos(ymag)) {
                    return Err("xmag and ymag must be positive numbers".into());
                }
                if !(znear.is_finite() && znear >= 0.0 && zfar.is_finite() && zfar > znear) {
                    return Err("znear must be >= 0 and below zfar".into());
                }
            }
        }
        Ok(())
    }
}

/// A camera of a model file, placed by a node of the loaded scene.
#[derive(Clone, Debug, PartialEq)]
pub struct FileCamera {
    /// The camera's name (else `camera<index>`).
    pub name: String,
    /// Its index in the file (glTF `cameras[index]`).
    pub index: u32,
    /// The scene node that places it (a [`crate::NodeId`]); it looks down
    /// the node's −Z axis with +Y up.
    pub node: u32,
    /// The projection.
    pub projection: FileProjection,
}

impl FileCamera {
    /// The first of `cameras` that `key` names: its index in the file, or
    /// its name, or the name of the node that places it.
    #[must_use]
    pub fn find<'a>(
        cameras: &'a [FileCamera],
        key: &str,
        node_name: impl Fn(u32) -> Option<String>,
    ) -> Option<&'a FileCamera> {
        if let Ok(i) = key.parse::<u32>() {
            return cameras.iter().find(|c| c.index == i);
        }
        cameras.iter().find(|c| c.name == key).or_else(|| {
            cameras
                .iter()
                .find(|c| node_name(c.node).as_deref() == Some(key))
        })
    }

    /// The camera placed by `world` (its node's world matrix).
    ///
    /// The frame is `size` when given; otherwise `height` pixels tall and as
    /// wide as the file's aspect ratio makes it (`height` wide and tall when
    /// the file has none). An infinite far plane becomes the distance past
    /// which nothing of `bounds` lies (1.5 × the farthest corner's), so
    /// nothing of the scene is clipped; the depth buffer then spans the scene.
    ///
    /// # Errors
    /// [`Error::InvalidCamera`] when the placed camera is invalid (see
    /// [`Camera::validate`]: a degenerate world matrix, a size of zero).
    pub fn camera(
        &self,
        world: Mat4,
        height: u32,
        size: Option<(u32, u32)>,
        bounds: &Aabb,
    ) -> Result<Camera, Error> {
        let eye = world.transform_point3(Vec3::ZERO);
        let forward = world.transform_vector3(-Vec3::Z).normalize_or_zero();
        let up = world.transform_vector3(Vec3::Y).normalize_or_zero();
        let aspect = match self.projection {
            FileProjection::Perspective { aspect, .. } => aspect,
            FileProjection::Orthographic { xmag, ymag, .. } => Some(xmag / ymag),
        };
        let (width, height) = size.unwrap_or_else(|| {
            let w = aspect.map_or(height, |a| (height as f32 * a).round().max(1.0) as u32);
            (w, height)
        });
        let (projection, near, far) = match self.projection {
            FileProjection::Perspective {
                yfov_deg,
                znear,
                zfar,
                ..
            } => {
                let far = zfar.unwrap_or_else(|| {
                    let reach = if bounds.is_empty() {
                        0.0
                    } else {
                        corners(bounds)
                            .iter()
                            .map(|c| c.distance(eye))
                            .fold(0.0, f32::max)
                    };
                    (reach * 1.5).max(znear * 1e4)
                });
                (
                    Projection::Perspective {
                        fov_y_deg: yfov_deg,
                    },
                    znear,
                    far,
                )
            }
            FileProjection::Orthographic {
                ymag, znear, zfar, ..
            } => {
                // (an orthographic near plane may be 0; ours must be above it)
                let near = if znear > 0.0 { znear } else { zfar * 1e-6 };
                (Projection::Orthographic { height: 2.0 * ymag }, near, zfar)
            }
        };
        // the target on the view axis, at the scene's centre when it is ahead
        let ahead = if bounds.is_empty() {
            0.0
        } else {
            ((bounds.min + bounds.max) * 0.5 - eye).dot(forward)
        };
        let cam = Camera {
            eye,
            target: eye + forward * ahead.max(near * 10.0).max(1e-3),
            up,
            projection,
            near,
            far,
            width,
            height,
        };
        cam.validate()?;
        Ok(cam)
    }
}

fn corners(b: &Aabb) -> [Vec3; 8] {
    let (lo, hi) = (b.min, b.max);
    std::array::from_fn(|i| {
        Vec3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        )
    })
}
