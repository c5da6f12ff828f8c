//! Cameras: view and projection matrices, the camera JSON format shared with
//! the peer harnesses, automatic framing, projection and unprojection.
//!
//! Conventions (see [`crate::raster::rules`] for the full table): right-handed
//! look-at view, OpenGL clip space (NDC depth −1..1, y up), window space with
//! y down and row 0 on top, pixel centres at +0.5, window depth 0..1.

use glam::{DMat4, DVec4, Mat4, Vec3, Vec4};

pub mod file;
#[cfg(feature = "json")]
mod json;

use crate::error::{CameraError, Error};
use crate::geometry::{Aabb, Ray};
use crate::limits::MAX_FRAME_SIDE;

/// The projection of a [`Camera`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Projection {
    /// Perspective with a vertical field of view in degrees: a frustum
    /// symmetric about the view direction, with square pixels.
    Perspective {
        /// Vertical field of view, degrees, in (0, 180).
        fov_y_deg: f32,
    },
    /// Orthographic showing `height` world units vertically.
    Orthographic {
        /// World units visible vertically.
        height: f32,
    },
    /// A calibrated pinhole camera, OpenCV's intrinsics in pixels: in the
    /// camera's frame (x right, y down, z forward: the look-at's right,
    /// −up and view direction), a point (x, y, z) lands at window
    /// coordinates
    ///
    /// ```text
    /// u = fx·x/z + skew·y/z + cx
    /// v = fy·y/z + cy
    /// ```
    ///
    /// where pixel (i, j)'s centre is (i + 0.5, j + 0.5), so a centred
    /// camera has `cx = width / 2`, `cy = height / 2` (Open3D's
    /// `create_rays_pinhole` takes the same `K`). With `fx == fy`, the
    /// centred principal point and no skew it is the [`Perspective`]
    /// camera of `fov_y_deg = 2·atan(height / (2·fy))`. The intrinsics
    /// are in pixels, so another frame size (e.g.
    /// [`Camera::try_with_size`]) keeps them: the image grows or shrinks
    /// at its right and bottom edges, as an OpenCV camera's would.
    ///
    /// [`Perspective`]: Projection::Perspective
    Pinhole {
        /// Focal length along x, pixels (> 0).
        fx: f32,
        /// Focal length along y, pixels (> 0).
        fy: f32,
        /// Principal point's x, pixels from the left edge.
        cx: f32,
        /// Principal point's y, pixels from the top edge.
        cy: f32,
        /// Skew: `K[0, 1]`, pixels (0 for rectangular pixels).
        skew: f32,
    },
}

impl Projection {
    /// Is this a perspective projection (rays from the eye), pinhole
    /// included, rather than an orthographic one (parallel rays)?
    #[must_use]
    pub const fn is_perspective(&self) -> bool {
        matches!(
            self,
            Projection::Perspective { .. } | Projection::Pinhole { .. }
        )
    }

    /// A pinhole's intrinsics `[fx, fy, cx, cy, skew]`; `None` for the
    /// other projections.
    #[must_use]
    pub const fn intrinsics(&self) -> Option<[f32; 5]> {
        match *self {
            Projection::Pinhole {
                fx,
                fy,
                cx,
                cy,
                skew,
            } => Some([fx, fy, cx, cy, skew]),
            _ => None,
        }
    }
}

/// A camera and its viewport size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// Eye position (world space).
    pub eye: Vec3,
    /// Point looked at (world space).
    pub target: Vec3,
    /// Up vector.
    pub up: Vec3,
    /// Perspective or orthographic.
    pub projection: Projection,
    /// Near plane distance (> 0).
    pub near: f32,
    /// Far plane distance (> near).
    pub far: f32,
    /// Viewport width in pixels.
    pub width: u32,
    /// Viewport height in pixels.
    pub height: u32,
}

impl Camera {
    /// Automatic framing of `bounds` exactly as CONVENTIONS.md: target = box
    /// centre, eye = centre + (0, 0.2 r, 2.2 r), r = half-diagonal, fov 45°,
    /// near 0.01 r, far 10 r (all in f32, in the peers' order).
    ///
    /// An empty or non-finite box frames the unit box. When the peers' f32
    /// arithmetic gives an unusable camera (a box so large that r overflows,
    /// or so small for its distance from the origin that eye == target in
    /// f32), the same framing is computed in f64 with r kept within
    /// `[1e-5·|centre|, 1e18]` (above that `near · far` overflows f32); when
    /// even that fails (a centre beyond ~1e23) the unit box is framed. The
    /// returned camera's geometry always passes [`Camera::validate`] (its
    /// size is the caller's).
    #[must_use]
    pub fn auto_frame(bounds: &Aabb, width: u32, height: u32) -> Self {
        let (lo, hi) = if bounds.min.is_finite()
            && bounds.max.is_finite()
            && bounds.min.cmple(bounds.max).all()
        {
            (bounds.min, bounds.max)
        } else {
            (Vec3::splat(-1.0), Vec3::splat(1.0))
        };
        let center = (lo + hi) * 0.5;
        let d = hi - lo;
        let mut r = (d.x * d.x + d.y * d.y + d.z * d.z).sqrt() * 0.5;
        if !(r > 0.0 && r.is_finite()) {
            r = 1.0;
        }
        let cam = Camera {
            eye: center + Vec3::new(0.0, 0.2 * r, 2.2 * r),
            target: center,
            up: Vec3::Y,
            projection: Projection::Perspective { fov_y_deg: 45.0 },
            near: 0.01 * r,
            far: 10.0 * r,
            width,
            height,
        };
        if cam.geometry_ok() {
            return cam;
        }
        Self::auto_frame_f64(lo, hi, width, height)
    }

    /// The framing of [`Camera::auto_frame`] in f64, for boxes the f32
    /// arithmetic cannot frame.
    fn auto_frame_f64(lo: Vec3, hi: Vec3, width: u32, height: u32) -> Self {
        let (lo, hi) = (lo.as_dvec3(), hi.as_dvec3());
        let center = lo * 0.5 + hi * 0.5;
        let far_from_origin = center.abs().max_element();
        let r = ((hi - lo).length() * 0.5)
            .max(far_from_origin * 1e-5)
            .clamp(1e-6, 1e18);
        let eye = center + glam::DVec3::new(0.0, 0.2 * r, 2.2 * r);
        let cam = Camera {
            eye: eye.as_vec3(),
            target: center.as_vec3(),
            up: Vec3::Y,
            projection: Projection::Perspective { fov_y_deg: 45.0 },
            near: (0.01 * r) as f32,
            far: (10.0 * r) as f32,
            width,
            height,
        };
        if cam.geometry_ok() {
            cam
        } else {
            Self::auto_frame(
                &Aabb {
                    min: Vec3::splat(-1.0),
                    max: Vec3::splat(1.0),
                },
                width,
                height,
            )
        }
    }

    /// Does everything but the viewport size pass [`Camera::validate`]?
    fn geometry_ok(&self) -> bool {
        Camera {
            width: 1,
            height: 1,
            ..*self
        }
        .check()
        .is_ok()
    }

    /// The same camera with another viewport size (validated).
    ///
    /// # Errors
    /// [`Error::InvalidCamera`] as [`Camera::validate`] gives it (a size of
    /// zero or above the limit, or the camera's own problem).
    pub fn try_with_size(mut self, width: u32, height: u32) -> Result<Self, Error> {
        self.width = width;
        self.height = height;
        self.validate()?;
        Ok(self)
    }

    /// Checks every parameter: finite values, 0 < near < far, a field of view
    /// in (0, 180), pinhole intrinsics with finite positive `fx`, `fy` and
    /// finite `cx`, `cy`, `skew`, eye ≠ target, up neither zero nor parallel
    /// to the view direction, a viewport of 1..=16384 pixels per side, and
    /// finite view and projection matrices (e.g. `near · far` must not
    /// overflow f32).
    ///
    /// # Errors
    /// [`Error::InvalidCamera`] with the first problem found
    /// ([`CameraError`]).
    pub fn validate(&self) -> Result<(), Error> {
        self.check().map_err(Error::InvalidCamera)
    }

    /// [`Camera::validate`]'s checks, with the problem alone.
    pub(crate) fn check(&self) -> Result<(), CameraError> {
        let finite = self.eye.is_finite()
            && self.target.is_finite()
            && self.up.is_finite()
            && self.near.is_finite()
            && self.far.is_finite();
        if !finite {
            return Err(CameraError::NonFinite);
        }
        if self.width == 0
            || self.height == 0
            || self.width > MAX_FRAME_SIDE
            || self.height > MAX_FRAME_SIDE
        {
            return Err(CameraError::Size(self.width, self.height));
        }
        if self.near <= 0.0 {
            return Err(CameraError::Near(self.near));
        }
        if self.near >= self.far {
            return Err(CameraError::NearFar(self.near, self.far));
        }
        match self.projection {
            Projection::Perspective { fov_y_deg } => {
                if !(fov_y_deg > 0.0 && fov_y_deg < 180.0) {
                    return Err(CameraError::Fov(fov_y_deg));
                }
            }
            Projection::Orthographic { height } => {
                if !(height > 0.0 && height.is_finite()) {
                    return Err(CameraError::OrthoHeight(height));
                }
            }
            Projection::Pinhole {
                fx,
                fy,
                cx,
                cy,
                skew,
            } => {
                for (name, value) in [("fx", fx), ("fy", fy)] {
                    if !(value > 0.0 && value.is_finite()) {
                        return Err(CameraError::Intrinsic { name, value });
                    }
                }
                for (name, value) in [("cx", cx), ("cy", cy), ("skew", skew)] {
                    if !value.is_finite() {
                        return Err(CameraError::Intrinsic { name, value });
                    }
                }
            }
        }
        let dir = self.target - self.eye;
        if dir.length_squared() == 0.0 || !dir.length_squared().is_normal() {
            return Err(CameraError::EyeIsTarget);
        }
        let c = dir.normalize().cross(self.up.normalize_or_zero());
        if c.length_squared() < 1e-12 {
            return Err(CameraError::UpParallel);
        }
        if !self.view_proj().is_finite() {
            return Err(CameraError::NonFinite);
        }
        Ok(())
    }

    /// Aspect ratio width / height.
    #[must_use]
    pub fn aspect(&self) -> f32 {
        self.width as f32 / self.height as f32
    }

    /// View matrix (`look_at_rh`).
    #[must_use]
    pub fn view(&self) -> Mat4 {
        glam::camera::rh::view::look_at_mat4(self.eye, self.target, self.up)
    }

    /// Projection matrix: `perspective_rh_gl`, `orthographic_rh_gl`, or for
    /// [`Projection::Pinhole`] the off-centre frustum of its intrinsics.
    ///
    /// The pinhole's: the OpenCV camera frame is the OpenGL view's with y
    /// and z flipped (x = X, y = −Y, z = −Z for a view-space point
    /// (X, Y, Z), Z < 0) and the window mapping is `u = (ndc.x + 1)·W/2`,
    /// `v = (1 − ndc.y)·H/2`; so with `clip.w = −Z`,
    ///
    /// ```text
    /// clip.x = (2fx/W)·X − (2·skew/W)·Y + (1 − 2cx/W)·Z
    /// clip.y = (2fy/H)·Y + (2cy/H − 1)·Z
    /// ```
    ///
    /// gives `u = fx·x/z + skew·y/z + cx` and `v = fy·y/z + cy`; `clip.z`
    /// is `perspective_rh_gl`'s.
    #[must_use]
    pub fn proj(&self) -> Mat4 {
        use glam::camera::rh::proj::opengl;
        match self.projection {
            Projection::Perspective { fov_y_deg } => {
                opengl::perspective(fov_y_deg.to_radians(), self.aspect(), self.near, self.far)
            }
            Projection::Orthographic { height } => {
                let hh = height * 0.5;
                let hw = hh * self.aspect();
                opengl::orthographic(-hw, hw, -hh, hh, self.near, self.far)
            }
            Projection::Pinhole { .. } => {
                self.pinhole_proj(self.projection.intrinsics().unwrap_or_default())
            }
        }
    }

    /// The pinhole rows of [`Camera::proj`] for intrinsics
    /// `[fx, fy, cx, cy, skew]`. The x and y entries are computed in f64
    /// and rounded once; the depth row is `perspective_rh_gl`'s by the same
    /// f32 operations, so a pinhole and a perspective camera with the same
    /// planes give a point at the same view-space z the same window depth.
    fn pinhole_proj(&self, [fx, fy, cx, cy, skew]: [f32; 5]) -> Mat4 {
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        let [fx, fy, cx, cy, skew] = [fx, fy, cx, cy, skew].map(f64::from);
        let (near, far) = (self.near, self.far);
        let z_range_inv = 1.0 / (far - near);
        let zz = -(far + near) * z_range_inv;
        let tz = -2.0 * far * near * z_range_inv;
        Mat4::from_cols(
            Vec4::new((2.0 * fx / w) as f32, 0.0, 0.0, 0.0),
            Vec4::new((-2.0 * skew / w) as f32, (2.0 * fy / h) as f32, 0.0, 0.0),
            Vec4::new(
                (1.0 - 2.0 * cx / w) as f32,
                (2.0 * cy / h - 1.0) as f32,
                zz,
                -1.0,
            ),
            Vec4::new(0.0, 0.0, tz, 0.0),
        )
    }

    /// `proj * view`.
    #[must_use]
    pub fn view_proj(&self) -> Mat4 {
        self.proj() * self.view()
    }

    /// Projects a world point to window coordinates (x, y in pixels, y down;
    /// z = window depth 0..1). `None` behind the eye (w ≤ 0).
    #[must_use]
    pub fn project(&self, p: Vec3) -> Option<Vec3> {
        let clip = self.view_proj() * Vec4::new(p.x, p.y, p.z, 1.0);
        if clip.w <= 0.0 {
            return None;
        }
        Some(clip_to_window(clip, self.width as f32, self.height as f32))
    }

    /// Window point (x, y in pixels, y down, continuous) and window depth
    /// (0 = near plane, 1 = far plane) back to world space. Computed in f64.
    #[must_use]
    pub fn unproject(&self, x: f32, y: f32, depth: f32) -> Vec3 {
        self.unproject_with(&self.inverse_view_proj(), x, y, depth)
    }

    /// The inverse of [`Camera::view_proj`] in f64, for repeated unprojection.
    #[must_use]
    pub fn inverse_view_proj(&self) -> DMat4 {
        self.view_proj().as_dmat4().inverse()
    }

    /// [`Camera::unproject`] with a precomputed [`Camera::inverse_view_proj`].
    #[must_use]
    pub fn unproject_with(&self, inv: &DMat4, x: f32, y: f32, depth: f32) -> Vec3 {
        let ndc = DVec4::new(
            f64::from(x) / f64::from(self.width) * 2.0 - 1.0,
            1.0 - f64::from(y) / f64::from(self.height) * 2.0,
            f64::from(depth) * 2.0 - 1.0,
            1.0,
        );
        let p = *inv * ndc;
        (p.truncate() / p.w).as_vec3()
    }

    /// World-space ray through a window point (continuous coordinates): from
    /// the point on the near plane toward the point on the far plane.
    #[must_use]
    pub fn ray_through(&self, x: f32, y: f32) -> Ray {
        self.ray_through_with(&self.inverse_view_proj(), x, y)
    }

    /// [`Camera::ray_through`] with a precomputed [`Camera::inverse_view_proj`].
    #[must_use]
    pub fn ray_through_with(&self, inv: &DMat4, x: f32, y: f32) -> Ray {
        let a = self.unproject_with(inv, x, y, 0.0);
        let b = self.unproject_with(inv, x, y, 1.0);
        Ray::new(a, (b - a).normalize_or_zero())
    }

    /// World-space pick ray through the centre of pixel (px, py).
    #[must_use]
    pub fn ray_for_pixel(&self, px: u32, py: u32) -> Ray {
        self.ray_through(px as f32 + 0.5, py as f32 + 0.5)
    }
}

/// Clip space → window coordinates, in f32 and in the conventions' order:
/// `ndc = clip.xyz / w`, `sx = (ndc.x*0.5+0.5)*W`, `sy = (1-(ndc.y*0.5+0.5))*H`,
/// `z = ndc.z*0.5+0.5`.
#[inline]
#[must_use]
pub(crate) fn clip_to_window(clip: Vec4, w: f32, h: f32) -> Vec3 {
    // the three divisions and the `* 0.5 + 0.5` lane by lane: the same
    // operations as one coordinate at a time, so the same values (the
    // vertex stage's one division instead of three)
    let n = clip / Vec4::splat(clip.w);
    let t = n * 0.5 + Vec4::splat(0.5);
    Vec3::new(t.x * w, (1.0 - t.y) * h, t.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box() -> Aabb {
        Aabb {
            min: Vec3::splat(-1.0),
            max: Vec3::splat(1.0),
        }
    }

    /// `clip_to_window`'s four lanes give, bit for bit, the conventions'
    /// formula one coordinate at a time (which the ray picks' depth and
    /// every golden image rest on), for random, huge, tiny, zero and
    /// non-finite inputs.
    #[test]
    fn clip_to_window_equals_the_formula_one_coordinate_at_a_time() {
        let reference = |c: Vec4, w: f32, h: f32| {
            let (nx, ny, nz) = (c.x / c.w, c.y / c.w, c.z / c.w);
            [
                (nx * 0.5 + 0.5) * w,
                (1.0 - (ny * 0.5 + 0.5)) * h,
                nz * 0.5 + 0.5,
            ]
        };
        let special = [0.0, -0.0, 1.0, -3.5, 1e-30, 7e30, f32::INFINITY, f32::NAN];
        let mut rng = crate::test_util::Rng(0x2545_f491_4f6c_dd1d);
        for k in 0..400_000u32 {
            let mut c = [0.0f32; 4];
            for (i, v) in c.iter_mut().enumerate() {
                *v = match (k >> (2 * i)) % 4 {
                    0 => special[rng.next_u64() as usize % special.len()],
                    1 => f32::from_bits(rng.next_u64() as u32),
                    _ => rng.range(-4.0, 4.0),
                };
            }
            let c = Vec4::from_array(c);
            let (w, h) = (1 + k % 1999, 1 + k / 7 % 1201);
            let got = clip_to_window(c, w as f32, h as f32).to_array();
            let want = reference(c, w as f32, h as f32);
            for (g, r) in got.iter().zip(want) {
                assert!(
                    g.to_bits() == r.to_bits() || (g.is_nan() && r.is_nan()),
                    "{c:?}: {got:?} vs {want:?}"
                );
            }
        }
    }

    #[test]
    fn project_unproject_round_trip() {
        let cam = Camera::auto_frame(&unit_box(), 320, 200);
        let p = Vec3::new(0.3, -0.2, 0.4);
        let w = cam.project(p).unwrap();
        let q = cam.unproject(w.x, w.y, w.z);
        assert!((p - q).length() < 1e-3, "{p} vs {q}");
    }

    /// A pinhole camera with every intrinsic away from the symmetric case,
    /// looking obliquely at the origin.
    fn pinhole_camera() -> Camera {
        Camera {
            eye: Vec3::new(0.7, 1.3, 4.2),
            target: Vec3::new(-0.2, 0.1, 0.0),
            up: Vec3::new(0.1, 1.0, 0.0),
            projection: Projection::Pinhole {
                fx: 410.0,
                fy: 365.0,
                cx: 141.3,
                cy: 117.8,
                skew: 7.5,
            },
            near: 0.1,
            far: 50.0,
            width: 320,
            height: 200,
        }
    }

    /// The OpenCV camera frame (x right, y down, z forward) of `cam`'s
    /// look-at, in f64, from its definition rather than the view matrix.
    fn opencv_frame(cam: &Camera) -> [glam::DVec3; 3] {
        let forward = (cam.target - cam.eye).as_dvec3().normalize();
        let right = forward.cross(cam.up.as_dvec3()).normalize();
        let down = forward.cross(right);
        [right, down, forward]
    }

    /// [`Camera::project`] of a pinhole camera gives OpenCV's pixel formula
    /// `u = fx·x/z + skew·y/z + cx`, `v = fy·y/z + cy` and the OpenGL
    /// perspective's window depth, and the pick ray of a pixel points along
    /// `K⁻¹·(u, v, 1)` in the camera frame.
    #[test]
    fn pinhole_projects_to_the_opencv_pixel_formula() {
        let cam = pinhole_camera();
        assert_eq!(cam.check(), Ok(()));
        let Some(k) = cam.projection.intrinsics() else {
            unreachable!()
        };
        let [fx, fy, cx, cy, skew] = k.map(f64::from);
        let [right, down, forward] = opencv_frame(&cam);
        let (n, f) = (f64::from(cam.near), f64::from(cam.far));
        let mut rng = crate::test_util::Rng(0x9e37_79b9_7f4a_7c15);
        let mut inside = 0;
        for _ in 0..2000 {
            let p = rng.vec3(-3.0, 3.0);
            let d = (p - cam.eye).as_dvec3();
            let (x, y, z) = (d.dot(right), d.dot(down), d.dot(forward));
            if z < 0.2 {
                assert!(z > 0.0 || cam.project(p).is_none(), "{p}");
                continue;
            }
            let u = fx * x / z + skew * y / z + cx;
            let v = fy * y / z + cy;
            let depth = ((f + n) / (f - n) - 2.0 * f * n / ((f - n) * z)) * 0.5 + 0.5;
            let got = cam.project(p).unwrap().as_dvec3();
            // f32 view and projection: a few ulps of the formula's terms
            let terms = (fx * x.abs() + skew.abs() * y.abs() + fy * y.abs()) / z;
            let tol = 1e-5 * (1.0 + terms + cx.abs() + cy.abs());
            assert!(
                (got.x - u).abs() < tol && (got.y - v).abs() < tol,
                "{p}: {got} vs ({u}, {v})"
            );
            assert!((got.z - depth).abs() < 1e-5, "{p}: {} vs {depth}", got.z);
            inside += usize::from((0.0..320.0).contains(&u) && (0.0..200.0).contains(&v));
        }
        assert!(inside > 100, "{inside} points in the frame");
        for (px, py) in [(0, 0), (319, 0), (17, 150), (319, 199), (141, 117)] {
            let (u, v) = (f64::from(px) + 0.5, f64::from(py) + 0.5);
            let b = (v - cy) / fy;
            let a = (u - cx - skew * b) / fx;
            let want = (right * a + down * b + forward).normalize();
            let got = cam.ray_for_pixel(px, py).direction.as_dvec3().normalize();
            assert!(
                got.angle_between(want) < 1e-5,
                "({px},{py}): {got} vs {want}"
            );
        }
    }

    /// A pinhole camera with `fx == fy == H / (2·tan(fov/2))`, the centred
    /// principal point and no skew has the perspective camera's projection
    /// matrix (within 1e-5 relative; the perspective's comes from f32
    /// trigonometry).
    #[test]
    fn symmetric_pinhole_is_the_perspective_matrix() {
        for (fov, w, h) in [(45.0f32, 360, 360), (60.0, 640, 480), (20.0, 33, 1000)] {
            let persp = Camera {
                projection: Projection::Perspective { fov_y_deg: fov },
                width: w,
                height: h,
                ..pinhole_camera()
            };
            let focal = (f64::from(h) / (2.0 * (f64::from(fov).to_radians() / 2.0).tan())) as f32;
            let pinhole = Camera {
                projection: Projection::Pinhole {
                    fx: focal,
                    fy: focal,
                    cx: w as f32 / 2.0,
                    cy: h as f32 / 2.0,
                    skew: 0.0,
                },
                ..persp
            };
            let (a, b) = (persp.proj().to_cols_array(), pinhole.proj().to_cols_array());
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert!(
                    (x - y).abs() <= 1e-5 * x.abs().max(y.abs()),
                    "{fov}° {w}x{h}: entry {i}: {x} vs {y}"
                );
            }
        }
    }

    /// Every out-of-range intrinsic is refused with its name and value.
    #[test]
    fn pinhole_intrinsics_are_validated() {
        let good = pinhole_camera();
        let with = |k: usize, v: f32| {
            let Some(mut p) = good.projection.intrinsics() else {
                unreachable!()
            };
            p[k] = v;
            Camera {
                projection: Projection::Pinhole {
                    fx: p[0],
                    fy: p[1],
                    cx: p[2],
                    cy: p[3],
                    skew: p[4],
                },
                ..good
            }
        };
        let bad = [
            (0, 0.0, "fx must be finite and > 0 (got 0)"),
            (0, -410.0, "fx must be finite and > 0 (got -410)"),
            (0, f32::NAN, "fx must be finite and > 0 (got NaN)"),
            (1, f32::INFINITY, "fy must be finite and > 0 (got inf)"),
            (2, f32::NAN, "cx must be finite (got NaN)"),
            (3, f32::NEG_INFINITY, "cy must be finite (got -inf)"),
            (4, f32::INFINITY, "skew must be finite (got inf)"),
        ];
        for (k, v, msg) in bad {
            let e = with(k, v).check().unwrap_err();
            assert!(matches!(e, CameraError::Intrinsic { .. }), "{e:?}");
            assert_eq!(e.to_string(), format!("pinhole intrinsic {msg}"));
        }
        // anything finite goes for the principal point and the skew, even
        // far outside the frame
        for (k, v) in [(2, -5000.0), (3, 1e4), (4, -300.0), (1, 1e-3)] {
            assert_eq!(with(k, v).check(), Ok(()), "{k} {v}");
        }
    }

    #[cfg(feature = "json")]
    #[test]
    fn json_defaults_and_errors() {
        let b = unit_box();
        let c = Camera::parse_json(r#"{"width":100,"height":50}"#, &b).unwrap();
        assert_eq!((c.width, c.height), (100, 50));
        assert!(matches!(
            Camera::parse_json(r#"{"eye":[0,0,5],"target":[0,0,5]}"#, &b),
            Err(CameraError::EyeIsTarget)
        ));
        assert!(matches!(
            Camera::parse_json(r#"{"eye":[0,5,0],"target":[0,0,0]}"#, &b),
            Err(CameraError::UpParallel)
        ));
        assert!(matches!(
            Camera::parse_json(r#"{"eye":[0,0,5],"target":[0,0,0],"near":0}"#, &b),
            Err(CameraError::Near(_))
        ));
        assert!(matches!(
            Camera::parse_json(r#"{"width":0}"#, &b),
            Err(CameraError::Size(0, 360))
        ));
    }
}
