//! What a frame prepares for its ray picks, at the first one (beside the
//! meshes' transforms as rendered, `accel::transforms`, made by
//! `Scene::mesh_transforms_at`): the per-pixel ray setup of the frame's
//! camera ([`ViewRays`]). Built from plain inputs (a camera); the picks that
//! use it live in `pick::ray`.

use glam::{DMat4, DVec4, Mat4, Vec3, Vec4};

use crate::accel::bvh::Rays8;
use crate::camera::Camera;
use crate::geometry::Ray;

/// Per-frame constants of the pick rays through pixel centres: the pixel's
/// points on the near and far planes are `(x_col * nx + y_col * ny +
/// near_col)` and `(... + far_col)` in homogeneous world coordinates, for
/// the pixel centre's NDC `(nx, ny)` (the columns of the inverse
/// view-projection with the plane's NDC depth folded in), so a ray costs a
/// few multiply-adds and two divisions instead of two full unprojections;
/// and the view-projection, for the window depth of a hit.
#[derive(Clone, Debug)]
pub(crate) struct ViewRays {
    pub(crate) x_col: DVec4,
    pub(crate) y_col: DVec4,
    pub(crate) near_col: DVec4,
    pub(crate) far_col: DVec4,
    /// The NDC width of a pixel, `2 / width`.
    pub(crate) ndc_per_pixel_x: f64,
    /// The NDC height of a pixel, `2 / height`.
    pub(crate) ndc_per_pixel_y: f64,
    pub(crate) view_proj: Mat4,
}

impl ViewRays {
    pub(crate) fn new(cam: &Camera, inv: &DMat4) -> Option<Self> {
        let (c2, c3) = (inv.col(2), inv.col(3));
        Some(Self {
            x_col: inv.col(0),
            y_col: inv.col(1),
            near_col: c3 - c2,
            far_col: c3 + c2,
            ndc_per_pixel_x: 2.0 / f64::from(cam.width),
            ndc_per_pixel_y: 2.0 / f64::from(cam.height),
            view_proj: cam.view_proj(),
        })
    }

    /// The ray through the centre of pixel (x, y) from its point on the near
    /// plane (t = 0) to its point on the far plane (t = 1).
    #[inline(always)]
    pub(crate) fn ray(&self, x: u32, y: u32) -> Ray {
        let nx = (f64::from(x) + 0.5) * self.ndc_per_pixel_x - 1.0;
        let ny = 1.0 - (f64::from(y) + 0.5) * self.ndc_per_pixel_y;
        // (vector arithmetic, per component the same operations as a loop;
        // `array::from_fn` here compiles to an outlined call per ray)
        let a = self.x_col * nx + self.y_col * ny;
        let point = |col: DVec4| {
            let h = a + col;
            (h.truncate() * (1.0 / h.w)).as_vec3()
        };
        let (near, far_point) = (point(self.near_col), point(self.far_col));
        Ray::new(near, far_point - near)
    }

    /// [`ViewRays::ray`] of eight pixels, `w` (8 or 4) side by side in
    /// `8 / w` rows: lane r the pixel `(x + r % w, y + r / w)` (the same
    /// operations per ray, lane by lane).
    #[inline(always)]
    pub(crate) fn rays8(&self, x: u32, y: u32, w: u32) -> Rays8 {
        let (x_col, y_col) = (self.x_col.to_array(), self.y_col.to_array());
        let (near_col, far_col) = (self.near_col.to_array(), self.far_col.to_array());
        let mut a = [[0f64; 8]; 4];
        for (k, a) in a.iter_mut().enumerate() {
            for (r, a) in a.iter_mut().enumerate() {
                let (dx, dy) = (r as u32 % w, r as u32 / w);
                let nx = (f64::from(x.wrapping_add(dx)) + 0.5) * self.ndc_per_pixel_x - 1.0;
                let ny = 1.0 - (f64::from(y.wrapping_add(dy)) + 0.5) * self.ndc_per_pixel_y;
                *a = x_col[k] * nx + y_col[k] * ny;
            }
        }
        let mut out = Rays8::default();
        let mut near = [[0f32; 8]; 3];
        for (col, far) in [(near_col, false), (far_col, true)] {
            let mut inv_w = [0f64; 8];
            for r in 0..8 {
                inv_w[r] = 1.0 / (a[3][r] + col[3]);
            }
            for k in 0..3 {
                for r in 0..8 {
                    let p = ((a[k][r] + col[k]) * inv_w[r]) as f32;
                    if far {
                        out.d[k][r] = p - near[k][r];
                    } else {
                        near[k][r] = p;
                    }
                }
            }
        }
        out.o = near;
        out
    }

    /// Window depth of a world point (NaN behind the eye), as
    /// [`Camera::project`] computes it.
    #[inline(always)]
    pub(crate) fn depth(&self, p: Vec3) -> f32 {
        let clip = self.view_proj * Vec4::new(p.x, p.y, p.z, 1.0);
        if clip.w <= 0.0 {
            return f32::NAN;
        }
        // the z of `clip_to_window`, without its x and y
        (clip.z / clip.w) * 0.5 + 0.5
    }
}
