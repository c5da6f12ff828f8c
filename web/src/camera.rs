//! A three.js camera (its view matrix `matrixWorldInverse` and its
//! `projectionMatrix`, OpenGL conventions both) as a softpick [`Camera`].
//!
//! - The view must be rigid (a camera without scale): its inverse gives the
//!   eye, the view direction (−z) and up (+y).
//! - A perspective projection (`[11] = −1`, `[15] = 0`) is any frustum,
//!   off-centre ones included (`setViewOffset`, `filmOffset`, `zoom`):
//!   softpick's pinhole camera with `fx = P₀₀·W/2`, `fy = P₁₁·H/2`,
//!   `cx = (1 − P₀₂)·W/2`, `cy = (1 + P₁₂)·H/2`, and near and far read from
//!   the depth row.
//! - An orthographic projection (`[11] = 0`, `[15] = 1`) must have square
//!   pixels; an off-centre box moves the eye sideways (parallel rays see
//!   the same), and a near plane at or behind the eye moves it back (window
//!   depth is linear along the view in an orthographic camera, so it is
//!   unchanged).

use glam::{DMat3, DMat4};
use softpick::{Camera, Projection};

/// The softpick camera of a three.js view and projection matrix pair for a
/// `width × height` pixel view.
pub(crate) fn from_matrices(
    view: &DMat4,
    proj: &DMat4,
    width: u32,
    height: u32,
) -> Result<Camera, String> {
    for (what, m) in [("view", view), ("projection", proj)] {
        if let Some(i) = m.to_cols_array().iter().position(|v| !v.is_finite()) {
            return Err(format!("camera {what} matrix element {i} is not finite"));
        }
    }
    let world = view.inverse();
    let r = DMat3::from_mat4(world);
    let rigid = (r.transpose() * r - DMat3::IDENTITY)
        .to_cols_array()
        .iter()
        .all(|v| v.abs() < 1e-6)
        && r.determinant() > 0.0;
    if !rigid {
        return Err(
            "the camera's world matrix has scale or shear (softpick cameras are rigid)".into(),
        );
    }
    let mut eye = world.w_axis.truncate();
    let forward = -r.z_axis.normalize();
    let up = r.y_axis.normalize();
    let right = r.x_axis.normalize();
    let p = proj.to_cols_array();
    let (w, h) = (f64::from(width), f64::from(height));
    let (projection, near, far) = if p[11] == -1.0 && p[15] == 0.0 {
        let (near, far) = (p[14] / (p[10] - 1.0), p[14] / (p[10] + 1.0));
        let projection = Projection::Pinhole {
            fx: (p[0] * w / 2.0) as f32,
            fy: (p[5] * h / 2.0) as f32,
            cx: ((1.0 - p[8]) * w / 2.0) as f32,
            cy: ((1.0 + p[9]) * h / 2.0) as f32,
            skew: (-p[4] * w / 2.0) as f32,
        };
        (projection, near, far)
    } else if p[11] == 0.0 && p[15] == 1.0 && p[3] == 0.0 && p[7] == 0.0 {
        let (sx, sy) = (p[0], p[5]);
        let (view_w, view_h) = (2.0 / sx, 2.0 / sy);
        if !((view_w / w - view_h / h).abs() <= 1e-6 * (view_h / h).abs()) {
            return Err(format!(
                "the orthographic camera's pixels are not square ({} × {} world units per pixel)",
                view_w / w,
                view_h / h
            ));
        }
        // the box's centre in view space, and the planes
        let (ox, oy) = (-p[12] / sx, -p[13] / sy);
        eye += right * ox + up * oy;
        let span = -2.0 / p[10];
        let mut near = (-p[14] * span - span) / 2.0;
        let mut far = near + span;
        if !(near > 0.0) {
            let back = span.abs() * 1e-3 - near;
            eye -= forward * back;
            near += back;
            far += back;
        }
        (
            Projection::Orthographic {
                height: view_h.abs() as f32,
            },
            near,
            far,
        )
    } else {
        return Err("the projection matrix is neither perspective nor orthographic".into());
    };
    // a target one eye-length (at least one unit) ahead keeps the look-at
    // direction exact to f32 even far from the origin
    let reach = eye.length().max(1.0);
    let cam = Camera {
        eye: eye.as_vec3(),
        target: (eye + forward * reach).as_vec3(),
        up: up.as_vec3(),
        projection,
        near: near as f32,
        far: far as f32,
        width,
        height,
    };
    cam.validate().map_err(|e| format!("camera: {e}"))?;
    Ok(cam)
}

/// `(view, projection)` of a softpick camera, column-major in f64.
pub(crate) fn matrices(cam: &Camera) -> Vec<f64> {
    let mut out = cam.view().as_dmat4().to_cols_array().to_vec();
    out.extend(cam.proj().as_dmat4().to_cols_array());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    fn perspective(fov: f64, aspect: f64, n: f64, f: f64) -> DMat4 {
        glam::camera::rh::proj::opengl::perspective(
            (fov as f32).to_radians(),
            aspect as f32,
            n as f32,
            f as f32,
        )
        .as_dmat4()
    }

    #[test]
    fn a_perspective_camera_projects_as_three_does() {
        let view = glam::camera::rh::view::look_at_mat4(
            glam::Vec3::new(3.0, 2.0, 5.0),
            glam::Vec3::new(0.0, 0.5, 0.0),
            glam::Vec3::Y,
        )
        .as_dmat4();
        let proj = perspective(50.0, 640.0 / 480.0, 0.1, 100.0);
        let cam = from_matrices(&view, &proj, 640, 480).unwrap();
        for p in [
            DVec3::new(0.3, 0.2, -0.4),
            DVec3::new(-1.0, 1.5, 0.5),
            DVec3::new(0.0, 0.0, 0.0),
        ] {
            let clip = proj * view * p.extend(1.0);
            let ndc = clip.truncate() / clip.w;
            let want = DVec3::new(
                (ndc.x + 1.0) * 320.0,
                (1.0 - ndc.y) * 240.0,
                ndc.z * 0.5 + 0.5,
            );
            let got = cam.project(p.as_vec3()).unwrap().as_dvec3();
            assert!((got - want).abs().max_element() < 1e-3, "{got} vs {want}");
        }
    }

    #[test]
    fn an_offset_orthographic_camera_projects_as_three_does() {
        let view = glam::camera::rh::view::look_at_mat4(
            glam::Vec3::new(0.0, 5.0, 5.0),
            glam::Vec3::ZERO,
            glam::Vec3::Y,
        )
        .as_dmat4();
        // left -2, right 4, bottom -1, top 2, near -1, far 20 (600 × 300 px)
        let proj = glam::camera::rh::proj::opengl::orthographic(-2.0, 4.0, -1.0, 2.0, -1.0, 20.0)
            .as_dmat4();
        let cam = from_matrices(&view, &proj, 600, 300).unwrap();
        for p in [DVec3::new(0.3, 0.2, -0.4), DVec3::new(-1.0, 1.5, 0.5)] {
            let clip = proj * view * p.extend(1.0);
            let want = DVec3::new(
                (clip.x + 1.0) * 300.0,
                (1.0 - clip.y) * 150.0,
                clip.z * 0.5 + 0.5,
            );
            let got = cam.project(p.as_vec3()).unwrap().as_dvec3();
            assert!((got - want).abs().max_element() < 1e-3, "{got} vs {want}");
        }
    }

    #[test]
    fn unusable_cameras_are_named() {
        let mut view = DMat4::IDENTITY;
        view.x_axis.x = 2.0;
        let proj = perspective(50.0, 1.0, 0.1, 10.0);
        assert!(from_matrices(&view, &proj, 10, 10)
            .unwrap_err()
            .contains("scale"));
        let proj = glam::camera::rh::proj::opengl::orthographic(-1.0, 1.0, -1.0, 1.0, 0.1, 10.0)
            .as_dmat4();
        assert!(from_matrices(&DMat4::IDENTITY, &proj, 20, 10)
            .unwrap_err()
            .contains("square"));
        let mut bad = DMat4::IDENTITY;
        bad.z_axis.x = f64::NAN;
        assert!(from_matrices(&bad, &proj, 10, 10)
            .unwrap_err()
            .contains("not finite"));
    }
}
