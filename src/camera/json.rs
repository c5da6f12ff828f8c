//! The camera JSON format shared with the peer harnesses (`json` feature).

use std::path::Path;

use glam::Vec3;
use serde::Deserialize;

use super::{Camera, Projection};
use crate::error::{CameraError, Error};
use crate::geometry::Aabb;

/// The camera JSON shared with the peer harnesses (docs/conventions.md); every field optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CameraJson {
    eye: Option<[f32; 3]>,
    target: Option<[f32; 3]>,
    up: Option<[f32; 3]>,
    fov_y_deg: Option<f32>,
    near: Option<f32>,
    far: Option<f32>,
    width: Option<u32>,
    height: Option<u32>,
    projection: Option<String>,
    ortho_height: Option<f32>,
    fx: Option<f32>,
    fy: Option<f32>,
    cx: Option<f32>,
    cy: Option<f32>,
    skew: Option<f32>,
    /// Written by some peer tools; ignored.
    #[allow(dead_code)]
    auto: Option<bool>,
}

impl Camera {
    /// Parses camera JSON. Missing `eye` means automatic framing of `bounds`
    /// (then `target`/`near`/`far`/`fov_y_deg` come from the framing unless
    /// given); other missing fields default to up = +Y, fov 45, near 0.1,
    /// far 100, 360×360. `"projection": "orthographic"` needs
    /// `ortho_height`; `"projection": "pinhole"` needs `fx`, `fy`, `cx` and
    /// `cy` (`skew` defaults to 0), see [`Projection::Pinhole`]. The result
    /// is validated.
    ///
    /// # Errors
    /// [`Error::InvalidCamera`]: JSON that does not parse, a missing field,
    /// an unknown projection, or a camera [`Camera::validate`] refuses.
    pub fn from_json_str(json: &str, bounds: &Aabb) -> Result<Self, Error> {
        Self::parse_json(json, bounds).map_err(Error::InvalidCamera)
    }

    /// [`Camera::from_json_str`] with the problem alone.
    pub(super) fn parse_json(json: &str, bounds: &Aabb) -> Result<Self, CameraError> {
        // a byte-order mark (some editors write one) is not JSON
        let json = json.strip_prefix('\u{feff}').unwrap_or(json);
        let j: CameraJson =
            serde_json::from_str(json).map_err(|e| CameraError::Json(e.to_string()))?;
        let width = j.width.unwrap_or(360);
        let height = j.height.unwrap_or(360);
        let mut cam = match j.eye {
            None => Camera::auto_frame(bounds, width, height),
            Some(eye) => Camera {
                eye: Vec3::from(eye),
                target: Vec3::ZERO,
                up: Vec3::Y,
                projection: Projection::Perspective { fov_y_deg: 45.0 },
                near: 0.1,
                far: 100.0,
                width,
                height,
            },
        };
        if j.eye.is_some() {
            cam.target = j
                .target
                .map(Vec3::from)
                .ok_or(CameraError::Missing("target"))?;
        } else if let Some(t) = j.target {
            cam.target = Vec3::from(t);
        }
        if let Some(u) = j.up {
            cam.up = Vec3::from(u);
        }
        if let Some(n) = j.near {
            cam.near = n;
        }
        if let Some(f) = j.far {
            cam.far = f;
        }
        let fov = j.fov_y_deg.unwrap_or(45.0);
        cam.projection = match j.projection.as_deref() {
            None | Some("perspective") => Projection::Perspective { fov_y_deg: fov },
            Some("orthographic") => Projection::Orthographic {
                height: j.ortho_height.ok_or(CameraError::Missing("ortho_height"))?,
            },
            Some("pinhole") => Projection::Pinhole {
                fx: j.fx.ok_or(CameraError::Missing("fx"))?,
                fy: j.fy.ok_or(CameraError::Missing("fy"))?,
                cx: j.cx.ok_or(CameraError::Missing("cx"))?,
                cy: j.cy.ok_or(CameraError::Missing("cy"))?,
                skew: j.skew.unwrap_or(0.0),
            },
            Some(other) => return Err(CameraError::UnknownProjection(other.to_string())),
        };
        cam.check()?;
        Ok(cam)
    }

    /// Reads and parses a camera JSON file (as [`Camera::from_json_str`]).
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be read, [`Error::Camera`] when
    /// its camera is invalid; both name the file.
    pub fn load(path: impl AsRef<Path>, bounds: &Aabb) -> Result<Self, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        Camera::parse_json(&text, bounds).map_err(|e| Error::Camera {
            path: path.to_path_buf(),
            source: e,
        })
    }
}
