//! `softpick.Camera`: the core's camera (right-handed look-at view, OpenGL
//! projection: a symmetric perspective frustum, an orthographic box, or the
//! off-centre frustum of OpenCV intrinsics), made from a look-at, an
//! orthographic box, OpenCV intrinsics and extrinsics, or camera JSON.

use std::path::PathBuf;

use glam::{Mat3, Vec3};
use pyo3::prelude::*;
use softpick::{Aabb, Camera, Projection};

use crate::arrays::{float_rows, mat4, mat4_to_py};
use crate::errors::{py_err, value_err};
use crate::parse::{sides, vec3};
use crate::state::PyScene;

/// A camera and its image size. Every constructor validates it (finite
/// values, 0 < near < far, eye ≠ target, 1..=16384 pixels per side) and
/// raises `ValueError` with the core's message otherwise.
#[pyclass(name = "Camera", module = "softpick", frozen)]
#[derive(Clone)]
pub struct PyCamera {
    pub(crate) cam: Camera,
}

fn checked(cam: Camera) -> PyResult<PyCamera> {
    cam.validate().map_err(py_err)?;
    Ok(PyCamera { cam })
}

#[pymethods]
impl PyCamera {
    /// A perspective camera at `eye` looking at `target` (3 numbers each;
    /// `up` default (0, 1, 0)), `fov_y_deg` the vertical field of view, an
    /// image of `width` × `height` pixels, depth range `near`..`far`.
    /// Returns a new `softpick.Camera`.
    #[staticmethod]
    #[pyo3(signature = (eye, target, up=None, fov_y_deg=45.0, width=640, height=480, near=0.01, far=1000.0))]
    #[allow(clippy::too_many_arguments)]
    fn look_at(
        eye: &Bound<'_, PyAny>,
        target: &Bound<'_, PyAny>,
        up: Option<&Bound<'_, PyAny>>,
        fov_y_deg: f32,
        width: i64,
        height: i64,
        near: f32,
        far: f32,
    ) -> PyResult<Self> {
        let (width, height) = sides(width, height)?;
        checked(Camera {
            eye: vec3(eye, "eye")?,
            target: vec3(target, "target")?,
            up: up.map_or(Ok(Vec3::Y), |u| vec3(u, "up"))?,
            projection: Projection::Perspective { fov_y_deg },
            near,
            far,
            width,
            height,
        })
    }

    /// An orthographic camera at `eye` looking at `target`, showing
    /// `ortho_height` world units vertically. Returns a new `softpick.Camera`.
    #[staticmethod]
    #[pyo3(signature = (eye, target, ortho_height, up=None, width=640, height=480, near=0.01, far=1000.0))]
    #[allow(clippy::too_many_arguments)]
    fn orthographic(
        eye: &Bound<'_, PyAny>,
        target: &Bound<'_, PyAny>,
        ortho_height: f32,
        up: Option<&Bound<'_, PyAny>>,
        width: i64,
        height: i64,
        near: f32,
        far: f32,
    ) -> PyResult<Self> {
        let (width, height) = sides(width, height)?;
        checked(Camera {
            eye: vec3(eye, "eye")?,
            target: vec3(target, "target")?,
            up: up.map_or(Ok(Vec3::Y), |u| vec3(u, "up"))?,
            projection: Projection::Orthographic {
                height: ortho_height,
            },
            near,
            far,
            width,
            height,
        })
    }

    /// A camera from OpenCV intrinsics `K` (3×3: `[[fx, skew, cx], [0, fy,
    /// cy], [0, 0, 1]]`, pixels) and a world→camera `extrinsic` (4×4, camera
    /// x right, y down, z forward), as Open3D's
    /// `RaycastingScene.create_rays_pinhole(K, extrinsic, w, h)` takes them
    /// (pixel centres at +0.5, so a centred camera has `cx = width / 2`).
    /// Any finite positive `fx`, `fy`, finite principal point and skew are
    /// accepted: with `fx == fy`, `cx == width / 2`, `cy == height / 2`
    /// (relative 1e-6) and no skew the camera is the symmetric perspective
    /// one of `fov_y_deg = 2·atan(height / (2·fy))`, otherwise a pinhole
    /// camera of those intrinsics (`projection == "pinhole"`). `ValueError`
    /// for a non-finite entry, non-positive focal lengths, a `K[1, 0]` other
    /// than 0, a last row other than `0 0 1`, or an extrinsic whose 3×3
    /// block is not a rotation. Returns a new `softpick.Camera`.
    #[staticmethod]
    #[pyo3(signature = (intrinsic, extrinsic, width, height, near=0.01, far=1000.0))]
    fn from_intrinsics(
        intrinsic: &Bound<'_, PyAny>,
        extrinsic: &Bound<'_, PyAny>,
        width: i64,
        height: i64,
        near: f32,
        far: f32,
    ) -> PyResult<Self> {
        let (width, height) = sides(width, height)?;
        let (k, lead) = float_rows(intrinsic, "intrinsic", 3)?;
        if lead != [3] {
            return Err(value_err("intrinsic must be a 3x3 matrix"));
        }
        let (fx, skew, cx, fy, cy) = (k[0], k[1], k[2], k[4], k[5]);
        // (`float_rows` refused non-finite values)
        if !(fx > 0.0 && fy > 0.0) {
            return Err(value_err(format!(
                "intrinsic needs positive focal lengths (fx, fy > 0; got fx {fx}, fy {fy})"
            )));
        }
        if k[3] != 0.0 || k[6..] != [0.0, 0.0, 1.0] {
            return Err(value_err(format!(
                "intrinsic must be [[fx, skew, cx], [0, fy, cy], [0, 0, 1]] (got K[1,0] {} and a last row {:?})",
                k[3],
                &k[6..]
            )));
        }
        let e = mat4(extrinsic, "extrinsic")?;
        let r = Mat3::from_mat4(e);
        if !(r.determinant() - 1.0).abs().lt(&1e-3) {
            return Err(value_err("extrinsic's 3x3 block must be a rotation"));
        }
        // camera centre C = -Rᵀt; the camera's z (forward) and -y (up) in world space
        let rt = r.transpose();
        let eye = -(rt * e.w_axis.truncate());
        let forward = rt * Vec3::Z;
        let up = rt * Vec3::NEG_Y;
        let (w, h) = (f64::from(width), f64::from(height));
        let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0);
        // the symmetric case stays the perspective camera it always was
        // (the same fov, so the same frames); anything else is a pinhole
        let symmetric = close(fx, fy, 1e-6)
            && close(cx, w / 2.0, 1e-6)
            && close(cy, h / 2.0, 1e-6)
            && skew == 0.0;
        let projection = if symmetric {
            let fov = (2.0 * (h / 2.0 / fy).atan()).to_degrees() as f32;
            Projection::Perspective { fov_y_deg: fov }
        } else {
            Projection::Pinhole {
                fx: fx as f32,
                fy: fy as f32,
                cx: cx as f32,
                cy: cy as f32,
                skew: skew as f32,
            }
        };
        checked(Camera {
            eye,
            target: eye + forward,
            up,
            projection,
            near,
            far,
            width,
            height,
        })
    }

    /// A camera from a camera JSON file (docs/conventions.md); without
    /// `"eye"` it frames `scene` (the unit box when none is given).
    /// Returns a new `softpick.Camera`.
    #[staticmethod]
    #[pyo3(signature = (path, scene=None))]
    fn from_json(path: PathBuf, scene: Option<&PyScene>) -> PyResult<Self> {
        let bounds = scene.map_or(
            Aabb {
                min: Vec3::splat(-1.0),
                max: Vec3::splat(1.0),
            },
            |s| s.scene.framing_bounds(),
        );
        let cam = Camera::load(&path, &bounds).map_err(|e| match e {
            softpick::Error::Camera { .. } => value_err(e.to_string()),
            e => py_err(e),
        })?;
        Ok(Self { cam })
    }

    /// The automatic framing of `scene` (the CLI's default camera) in a
    /// `width` × `height` image. Returns a new `softpick.Camera`.
    #[staticmethod]
    #[pyo3(signature = (scene, width=640, height=480))]
    fn auto(scene: &PyScene, width: i64, height: i64) -> PyResult<Self> {
        let (width, height) = sides(width, height)?;
        checked(Camera::auto_frame(
            &scene.scene.framing_bounds(),
            width,
            height,
        ))
    }

    /// Returns a new `softpick.Camera`: this one with another image size
    /// (a pinhole camera keeps its intrinsics in pixels).
    fn with_size(&self, width: i64, height: i64) -> PyResult<Self> {
        let (width, height) = sides(width, height)?;
        checked(Camera {
            width,
            height,
            ..self.cam
        })
    }

    /// Image width in pixels (int).
    #[getter]
    fn width(&self) -> u32 {
        self.cam.width
    }
    /// Image height in pixels (int).
    #[getter]
    fn height(&self) -> u32 {
        self.cam.height
    }
    /// The eye's world position (list of 3 float).
    #[getter]
    fn eye(&self) -> [f32; 3] {
        self.cam.eye.to_array()
    }
    /// The point looked at (list of 3 float).
    #[getter]
    fn target(&self) -> [f32; 3] {
        self.cam.target.to_array()
    }
    /// The up direction (list of 3 float).
    #[getter]
    fn up(&self) -> [f32; 3] {
        self.cam.up.to_array()
    }
    /// Distance of the near plane (float).
    #[getter]
    fn near(&self) -> f32 {
        self.cam.near
    }
    /// Distance of the far plane (float).
    #[getter]
    fn far(&self) -> f32 {
        self.cam.far
    }
    /// The projection (str): `"perspective"`, `"orthographic"` or `"pinhole"`.
    #[getter]
    fn projection(&self) -> &'static str {
        match self.cam.projection {
            Projection::Perspective { .. } => "perspective",
            Projection::Orthographic { .. } => "orthographic",
            Projection::Pinhole { .. } => "pinhole",
        }
    }
    /// The vertical field of view in degrees (float; None for orthographic). For a
    /// pinhole camera, the angle between the planes of the image's top and
    /// bottom edges, `atan(cy / fy) + atan((height − cy) / fy)`:
    /// `2·atan(height / (2·fy))` when `cy == height / 2`.
    #[getter]
    fn fov_y_deg(&self) -> Option<f32> {
        match self.cam.projection {
            Projection::Perspective { fov_y_deg } => Some(fov_y_deg),
            Projection::Orthographic { .. } => None,
            Projection::Pinhole { fy, cy, .. } => {
                let (fy, cy) = (f64::from(fy), f64::from(cy));
                let h = f64::from(self.cam.height);
                Some(((cy / fy).atan() + ((h - cy) / fy).atan()).to_degrees() as f32)
            }
        }
    }

    /// float64 (4, 4): the view matrix (world → OpenGL camera space: x
    /// right, y up, −z forward), row-major, acting on column vectors.
    #[getter]
    fn view_matrix<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        mat4_to_py(py, self.cam.view())
    }

    /// float64 (4, 4): the OpenGL projection matrix (NDC depth −1..1).
    #[getter]
    fn projection_matrix<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        mat4_to_py(py, self.cam.proj())
    }

    /// OpenCV intrinsics `K` of a perspective or pinhole camera (what
    /// `from_intrinsics` and Open3D's `create_rays_pinhole` take), 3×3 as
    /// lists of float: `[[fx, skew, cx], [0, fy, cy], [0, 0, 1]]`;
    /// `ValueError` for an orthographic camera.
    #[getter]
    fn intrinsic_matrix(&self) -> PyResult<[[f64; 3]; 3]> {
        let (w, h) = (f64::from(self.cam.width), f64::from(self.cam.height));
        match self.cam.projection {
            Projection::Perspective { fov_y_deg } => {
                let f = h / 2.0 / (f64::from(fov_y_deg).to_radians() / 2.0).tan();
                Ok([[f, 0.0, w / 2.0], [0.0, f, h / 2.0], [0.0, 0.0, 1.0]])
            }
            Projection::Pinhole { .. } => {
                let k = self.cam.projection.intrinsics().unwrap_or_default();
                let [fx, fy, cx, cy, skew] = k.map(f64::from);
                Ok([[fx, skew, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]])
            }
            Projection::Orthographic { .. } => Err(value_err(
                "an orthographic camera has no pinhole intrinsics",
            )),
        }
    }

    /// float64 (4, 4): the OpenCV world→camera extrinsic (x right, y down,
    /// z forward).
    #[getter]
    fn extrinsic_matrix<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // the OpenGL view with its y and z axes flipped
        let flip = glam::Mat4::from_diagonal(glam::Vec4::new(1.0, -1.0, -1.0, 1.0));
        mat4_to_py(py, flip * self.cam.view())
    }

    /// Returns the camera as camera JSON text (str: the CLI's `--camera`
    /// file, exact to the bit).
    fn to_json(&self) -> String {
        let c = &self.cam;
        let v = |v: Vec3| format!("[{:?},{:?},{:?}]", v.x, v.y, v.z);
        let proj = match c.projection {
            Projection::Perspective { fov_y_deg } => format!("\"fov_y_deg\":{fov_y_deg:?}"),
            Projection::Orthographic { height } => {
                format!("\"projection\":\"orthographic\",\"ortho_height\":{height:?}")
            }
            Projection::Pinhole {
                fx,
                fy,
                cx,
                cy,
                skew,
            } => format!(
                "\"projection\":\"pinhole\",\"fx\":{fx:?},\"fy\":{fy:?},\"cx\":{cx:?},\"cy\":{cy:?},\"skew\":{skew:?}"
            ),
        };
        format!(
            "{{\"eye\":{},\"target\":{},\"up\":{},{proj},\"near\":{:?},\"far\":{:?},\"width\":{},\"height\":{}}}",
            v(c.eye),
            v(c.target),
            v(c.up),
            c.near,
            c.far,
            c.width,
            c.height
        )
    }

    fn __repr__(&self) -> String {
        format!("softpick.Camera({})", self.to_json())
    }
}
