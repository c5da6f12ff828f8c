//! Camera navigation: orbiting around the target, zooming toward it and the
//! camera-relative displacement of the move keys. Pure functions of a
//! [`Camera`]; the state machine applies them.

use glam::{Quat, Vec3};
use minifb::Key;

use crate::camera::{Camera, Projection};

/// Orbit speed, radians per pixel dragged.
pub(super) const ORBIT_RAD_PER_PX: f32 = 0.01;
/// Zoom factor per wheel notch or `+` press.
pub(super) const ZOOM_STEP: f32 = 0.9;
/// The highest/lowest elevation of an orbit, degrees.
pub(super) const MAX_PITCH_DEG: f32 = 89.0;

/// Orbits `cam` around its target: `yaw` radians about the up axis, then
/// `pitch` radians of elevation, clamped to ±[`MAX_PITCH_DEG`]. Distance to
/// the target, the target and the up vector are kept.
#[must_use]
pub(super) fn orbit(cam: &Camera, yaw: f32, pitch: f32) -> Camera {
    let up = cam.up.normalize_or_zero();
    let offset = cam.eye - cam.target;
    let r = offset.length();
    let usable = r > 0.0 && yaw.is_finite() && pitch.is_finite();
    if up == Vec3::ZERO || !usable {
        return *cam;
    }
    let turned = Quat::from_axis_angle(up, yaw) * offset;
    let dir = turned / r;
    let elev = dir.dot(up).clamp(-1.0, 1.0).asin();
    let lim = MAX_PITCH_DEG.to_radians();
    let new_elev = (elev + pitch).clamp(-lim, lim);
    let mut horiz = (dir - up * dir.dot(up)).normalize_or_zero();
    if horiz == Vec3::ZERO {
        // looking straight along up: any horizontal direction will do
        horiz = up.any_orthonormal_vector();
    }
    let new_dir = horiz * new_elev.cos() + up * new_elev.sin();
    Camera {
        eye: cam.target + new_dir * r,
        ..*cam
    }
}

/// Zooms by `notches` (positive = closer): the eye distance (or the
/// orthographic height) is multiplied by [`ZOOM_STEP`]`^notches`, keeping the
/// eye between 2 × near and far / 2 from the target.
#[must_use]
pub(super) fn zoom(cam: &Camera, notches: f32) -> Camera {
    let k = ZOOM_STEP.powf(notches);
    if !(k.is_finite() && k > 0.0) {
        return *cam;
    }
    match cam.projection {
        Projection::Orthographic { height } => Camera {
            projection: Projection::Orthographic {
                height: (height * k).max(f32::MIN_POSITIVE),
            },
            ..*cam
        },
        // (a pinhole camera's intrinsics stay: it moves as a perspective one)
        Projection::Perspective { .. } | Projection::Pinhole { .. } => {
            let offset = cam.eye - cam.target;
            let r = offset.length();
            if r.is_nan() || r <= 0.0 {
                return *cam;
            }
            let lo = cam.near * 2.0;
            let hi = (cam.far * 0.5).max(lo);
            // never push the eye past a limit, nor jump back inside one
            let nr = if k < 1.0 {
                (r * k).max(lo).min(r)
            } else {
                (r * k).min(hi).max(r)
            };
            Camera {
                eye: cam.target + offset * (nr / r),
                ..*cam
            }
        }
    }
}

/// World displacement of one camera-relative move key: `W`/`S` forward and
/// back along the view direction flattened onto the ground plane (the plane
/// normal to the camera's up), `A`/`D` left and right, `Q`/`E` down and up.
#[must_use]
pub(super) fn move_delta(cam: &Camera, key: Key, step: f32) -> Option<Vec3> {
    let up = cam.up.normalize_or_zero();
    let view = cam.target - cam.eye;
    let mut fwd = (view - up * view.dot(up)).normalize_or_zero();
    if fwd == Vec3::ZERO {
        fwd = up.any_orthonormal_vector();
    }
    let right = fwd.cross(up).normalize_or_zero();
    let d = match key {
        Key::W => fwd,
        Key::S => -fwd,
        Key::D => right,
        Key::A => -right,
        Key::E => up,
        Key::Q => -up,
        _ => return None,
    };
    Some(d * step)
}
