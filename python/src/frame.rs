//! `softpick.Frame`: one render's buffers as numpy arrays (the ID and
//! depth buffers without a copy, the other maps computed on first read
//! and handed over without a copy), picks, selections and K layers.

use std::sync::{Arc, OnceLock};

use numpy::ndarray::ArrayView2;
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use softpick::{Frame, Hit, MapRequest, RayCaster, RayOptions, Selection};

use crate::arrays::float_rows;
use crate::camera::PyCamera;
use crate::errors::{py_err, value_err};
use crate::parse::{pick_method, select_mode};
use crate::spare;
use crate::state::{instance_of, PyScene, INVALID_ID};
use crate::threads::in_pool;

/// The largest `k` of `Frame.layers`.
const MAX_LAYERS: usize = 64;

/// A rendered frame (row 0 on top, column 0 on the left). Frames are
/// read-only; their arrays stay valid as long as anything holds them.
/// Reading `mesh_ids`, `barycentrics`, ... needs the scene unchanged since
/// the render (`softpick.Error` otherwise: render again).
#[pyclass(name = "Frame", module = "softpick", frozen)]
pub struct PyFrame {
    scene: Py<PyScene>,
    frame: Frame,
    pool: Option<Arc<rayon::ThreadPool>>,
    method: &'static str,
    reason: String,
    cache: [OnceLock<Py<PyAny>>; 6],
}

/// The cached maps, by index in `PyFrame::cache`.
#[derive(Clone, Copy)]
enum Map {
    Mesh,
    Instance,
    Barycentric,
    Normal,
    Distance,
    Z,
}

impl PyFrame {
    pub(crate) fn new(
        scene: Py<PyScene>,
        frame: Frame,
        pool: Option<Arc<rayon::ThreadPool>>,
        method: &'static str,
        reason: String,
    ) -> Self {
        Self {
            scene,
            frame,
            pool,
            method,
            reason,
            cache: Default::default(),
        }
    }

    fn hw(&self) -> (usize, usize) {
        (self.frame.height() as usize, self.frame.width() as usize)
    }

    /// A read-only numpy view of one of the frame's own buffers (no copy;
    /// the array keeps the frame alive).
    fn view<'py, T: numpy::Element>(
        slf: &Bound<'py, Self>,
        data: &[T],
    ) -> PyResult<Bound<'py, PyAny>> {
        let (h, w) = slf.get().hw();
        let view = ArrayView2::from_shape((h, w), data).map_err(|e| value_err(e.to_string()))?;
        // SAFETY: `data` is a buffer of the frozen frame `slf`, never
        // mutated nor moved while the frame lives, and the array holds `slf`.
        let arr = unsafe { PyArray2::borrow_from_array(&view, slf.clone().into_any()) };
        arr.call_method1("setflags", (false,))?;
        Ok(arr.into_any())
    }

    /// A computed map, cached: the core's `Picks::maps` for `map`,
    /// without the GIL, handed to numpy without a copy.
    fn map<'py>(slf: &Bound<'py, Self>, map: Map) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let this = slf.get();
        if let Some(a) = this.cache[map as usize].get() {
            return Ok(a.bind(py).clone());
        }
        let req = MapRequest {
            mesh: matches!(map, Map::Mesh | Map::Instance),
            barycentric: matches!(map, Map::Barycentric),
            normal: matches!(map, Map::Normal),
            distance: matches!(map, Map::Distance),
            z: matches!(map, Map::Z),
        };
        let scene_ref = this.scene.borrow(py);
        let scene = &scene_ref.scene;
        let picks = this.frame.picks(scene).map_err(py_err)?;
        let maps = py.allow_threads(|| in_pool(&this.pool, || picks.maps(req)));
        let (h, w) = this.hw();
        let arr = match map {
            Map::Mesh => PyArray1::from_vec(py, maps.mesh.unwrap_or_default())
                .reshape([h, w])?
                .into_any(),
            Map::Instance => {
                let table: Vec<u32> = (0..scene.meshes().len() as u32)
                    .map(|m| instance_of(scene, m))
                    .collect();
                let ids: Vec<u32> = maps
                    .mesh
                    .unwrap_or_default()
                    .iter()
                    .map(|&m| table.get(m as usize).copied().unwrap_or(INVALID_ID))
                    .collect();
                PyArray1::from_vec(py, ids).reshape([h, w])?.into_any()
            }
            Map::Barycentric => PyArray1::from_vec(py, maps.barycentric.unwrap_or_default())
                .reshape([h, w, 3])?
                .into_any(),
            Map::Normal => PyArray1::from_vec(py, maps.normal.unwrap_or_default())
                .reshape([h, w, 3])?
                .into_any(),
            Map::Distance => PyArray1::from_vec(py, maps.distance.unwrap_or_default())
                .reshape([h, w])?
                .into_any(),
            Map::Z => PyArray1::from_vec(py, maps.z.unwrap_or_default())
                .reshape([h, w])?
                .into_any(),
        };
        arr.call_method1("setflags", (false,))?;
        let _ = this.cache[map as usize].set(arr.clone().unbind());
        Ok(arr)
    }
}

impl Drop for PyFrame {
    /// Hands a raster frame's buffers to the next render (the numpy views
    /// of them hold the frame, so nothing still reads them).
    fn drop(&mut self) {
        if self.method == "raster" {
            spare::hand_back(&mut self.frame);
        }
    }
}

/// A hit as a plain dict.
fn hit_dict<'py>(
    py: Python<'py>,
    scene: &softpick::Scene,
    h: &Hit,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", h.global_triangle + 1)?;
    d.set_item("mesh", h.mesh)?;
    d.set_item("mesh_name", &*h.mesh_name)?;
    d.set_item("instance", instance_of(scene, h.mesh))?;
    d.set_item("triangle", h.triangle)?;
    d.set_item("global_triangle", h.global_triangle)?;
    d.set_item("depth", h.depth)?;
    d.set_item("distance", h.distance)?;
    d.set_item("position", h.position.to_array())?;
    d.set_item("barycentric", h.barycentric.to_array())?;
    d.set_item("normal", h.normal.to_array())?;
    d.set_item("front_face", h.front_face)?;
    Ok(d)
}

fn selection_dict<'py>(
    py: Python<'py>,
    scene: &softpick::Scene,
    s: &Selection,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("meshes", s.meshes.clone())?;
    let instances: Vec<u32> = s.meshes.iter().map(|&m| instance_of(scene, m)).collect();
    d.set_item("instances", instances)?;
    d.set_item("triangles", s.triangles.clone())?;
    d.set_item("pixels", s.pixels)?;
    Ok(d)
}

#[pymethods]
impl PyFrame {
    /// Width W in pixels (int).
    #[getter]
    fn width(&self) -> u32 {
        self.frame.width()
    }
    /// Height H in pixels (int).
    #[getter]
    fn height(&self) -> u32 {
        self.frame.height()
    }
    /// How the ID and depth buffers were made (str): `"raster"` or `"ray"`.
    #[getter]
    fn method(&self) -> &'static str {
        self.method
    }
    /// Why `method` was chosen (str: `"asked for"` unless `method="auto"`).
    #[getter]
    fn method_reason(&self) -> String {
        self.reason.clone()
    }
    /// The camera of the render (`softpick.Camera`).
    #[getter]
    fn camera(&self) -> Option<PyCamera> {
        self.frame.camera().map(|c| PyCamera { cam: *c })
    }

    /// (H, W) uint32: global triangle index + 1, 0 on background (the
    /// CLI's `--ids-raw`). The frame's own buffer, read-only, no copy.
    #[getter]
    fn ids<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(slf, slf.get().frame.ids())
    }
    /// (H, W) float32 window depth, 0 at the near plane, 1 at the far plane
    /// and on background. The frame's own buffer, read-only, no copy.
    #[getter]
    fn depth<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::view(slf, slf.get().frame.depth())
    }
    /// (H, W, 3) uint8 flat-shaded color (render with `color=True`).
    #[getter]
    fn color<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let this = slf.get();
        if !this.frame.has_color() {
            return Err(value_err("this frame has no color: render with color=True"));
        }
        let rgb: Vec<u8> = this
            .frame
            .color()
            .iter()
            .flat_map(|&c| [(c >> 16) as u8, (c >> 8) as u8, c as u8])
            .collect();
        let (h, w) = this.hw();
        Ok(PyArray1::from_vec(slf.py(), rgb)
            .reshape([h, w, 3])?
            .into_any())
    }
    /// (H, W) uint32 mesh id of each pixel, `INVALID_ID` on background.
    #[getter]
    fn mesh_ids<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::map(slf, Map::Mesh)
    }
    /// (H, W) uint32 instance id of each pixel, `INVALID_ID` on background.
    #[getter]
    fn instance_ids<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::map(slf, Map::Instance)
    }
    /// (H, W, 3) float32 barycentrics of the pixel centre's ray on the
    /// pixel's triangle (weights of corners 0, 1, 2), zeros on background.
    #[getter]
    fn barycentrics<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::map(slf, Map::Barycentric)
    }
    /// (H, W, 3) float32 unit world normal `(v1-v0)×(v2-v0)`, zeros on background.
    #[getter]
    fn normals<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::map(slf, Map::Normal)
    }
    /// (H, W) float32 distance from the eye to the hit, inf on background.
    #[getter]
    fn distance<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::map(slf, Map::Distance)
    }
    /// (H, W) float32 camera-space z (along the viewing direction; Open3D's
    /// `t_hit` for `create_rays_pinhole` rays), inf on background.
    #[getter]
    fn z<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::map(slf, Map::Z)
    }

    /// The rays of the frame's ray picks. Returns a tuple `(origins,
    /// directions)` of float32 (H, W, 3) arrays, from the near plane
    /// (t = 0) to the far plane (t = 1): `scene.cast_rays(origins,
    /// directions, far=1)` gives a ray frame's ids.
    fn pixel_rays<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let (o, d) = py.allow_threads(|| self.frame.pixel_rays());
        let (h, w) = self.hw();
        Ok((
            PyArray1::from_vec(py, o).reshape([h, w, 3])?.into_any(),
            PyArray1::from_vec(py, d).reshape([h, w, 3])?.into_any(),
        ))
    }

    /// What is under pixel (x, y). `method`: `"buffer"` (the ID buffer),
    /// `"direct"` (the rasterizer's edge test; raster frames only) or
    /// `"ray"` (a ray through the pixel centre).
    ///
    /// Returns None on background or outside the frame, else a dict:
    ///
    /// - `id`: int, the global triangle index + 1 (the `ids` value);
    /// - `mesh`: int, the mesh id; `mesh_name`: str;
    /// - `instance`: int, the instance id;
    /// - `triangle`: int, the triangle within the mesh;
    /// - `global_triangle`: int, the triangle over all meshes;
    /// - `depth`: float, window depth (0 near plane, 1 far plane);
    /// - `distance`: float, from the eye to the hit;
    /// - `position`: list of 3 float, the world point;
    /// - `barycentric`: list of 3 float, weights of corners 0, 1, 2;
    /// - `normal`: list of 3 float, the unit world normal;
    /// - `front_face`: bool, whether the triangle faces the eye.
    #[pyo3(signature = (x, y, method="buffer"))]
    fn pick<'py>(
        &self,
        py: Python<'py>,
        x: i64,
        y: i64,
        method: &str,
    ) -> PyResult<Option<Bound<'py, PyDict>>> {
        let method = pick_method(method)?;
        let scene = self.scene.borrow(py);
        let picks = self.frame.picks(&scene.scene).map_err(py_err)?;
        let hit = picks.with(method).at(x, y);
        hit.map(|h| hit_dict(py, &scene.scene, &h)).transpose()
    }

    /// The meshes and triangles in the pixel rectangle (x0, y0)–(x1, y1)
    /// (inclusive, clipped to the frame): `mode="visible"` (the ID buffer)
    /// or `"through"` (x-ray; raster frames only).
    ///
    /// Returns a dict: `meshes` (list of int, mesh ids, sorted),
    /// `instances` (list of int, the instance of each of `meshes`),
    /// `triangles` (list of int, global triangle indices, sorted) and
    /// `pixels` (int, covered pixels in the rectangle).
    #[pyo3(signature = (x0, y0, x1, y1, mode="visible"))]
    fn select_rect<'py>(
        &self,
        py: Python<'py>,
        x0: i64,
        y0: i64,
        x1: i64,
        y1: i64,
        mode: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mode = select_mode(mode)?;
        let scene = self.scene.borrow(py);
        let picks = self.frame.picks(&scene.scene).map_err(py_err)?;
        let s = picks.rect(x0, y0, x1, y1, mode);
        selection_dict(py, &scene.scene, &s)
    }

    /// The meshes and triangles inside a closed polygon (N, 2) in pixel
    /// coordinates (even-odd rule on pixel centres); `mode` as in
    /// `select_rect`.
    ///
    /// Returns a dict as `select_rect` does: `meshes`, `instances`,
    /// `triangles` (lists of int) and `pixels` (int).
    #[pyo3(signature = (polygon, mode="visible"))]
    fn select_lasso<'py>(
        &self,
        py: Python<'py>,
        polygon: &Bound<'py, PyAny>,
        mode: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mode = select_mode(mode)?;
        let (v, _) = float_rows(polygon, "polygon", 2)?;
        let poly: Vec<[f32; 2]> = v
            .chunks_exact(2)
            .map(|c| [c[0] as f32, c[1] as f32])
            .collect();
        let scene = self.scene.borrow(py);
        let picks = self.frame.picks(&scene.scene).map_err(py_err)?;
        let s = picks.lasso(&poly, mode);
        selection_dict(py, &scene.scene, &s)
    }

    /// The `k` nearest triangles along each pixel centre's ray (the core's
    /// every-hit ray cast per pixel, nearest first, ties by mesh then
    /// triangle, with the frame's cull mode), like PyTorch3D's
    /// `faces_per_pixel`, `k` in 1..=64.
    ///
    /// Returns a dict of numpy arrays:
    ///
    /// - `ids`: uint32 (H, W, k), global triangle + 1, 0 where fewer hits;
    /// - `depth`: float32 (H, W, k), window depth, 1 where none;
    /// - `z`: float32 (H, W, k), camera-space z, inf where none;
    /// - `barycentrics`: float32 (H, W, k, 3), zeros where none.
    fn layers<'py>(&self, py: Python<'py>, k: i64) -> PyResult<Bound<'py, PyDict>> {
        let k = match usize::try_from(k) {
            Ok(k @ 1..=MAX_LAYERS) => k,
            _ => return Err(value_err(format!("k must be 1..={MAX_LAYERS} (got {k})"))),
        };
        let (h, w) = self.hw();
        let n = h * w;
        if n.saturating_mul(k) > 1 << 28 {
            return Err(value_err(format!(
                "{h}x{w} pixels x {k} layers is too large"
            )));
        }
        let scene_ref = self.scene.borrow(py);
        let scene = &scene_ref.scene;
        self.frame.picks(scene).map_err(py_err)?;
        let cam = *self
            .frame
            .camera()
            .ok_or_else(|| value_err("frame without camera"))?;
        let cull = self.frame.cull();
        let mut ids = vec![0u32; n * k];
        let mut depth = vec![1f32; n * k];
        let mut z = vec![f32::INFINITY; n * k];
        let mut bary = vec![0f32; n * k * 3];
        py.allow_threads(|| {
            in_pool(&self.pool, || {
                let caster = RayCaster::new(scene);
                scene.build_bvhs();
                let inv = cam.inverse_view_proj();
                let forward = (cam.target - cam.eye).normalize();
                ids.par_chunks_mut(w * k)
                    .zip(depth.par_chunks_mut(w * k))
                    .zip(z.par_chunks_mut(w * k))
                    .zip(bary.par_chunks_mut(w * k * 3))
                    .enumerate()
                    .for_each(|(y, (((ids, depth), z), bary))| {
                        // (compact hits, one list refilled pixel after
                        // pixel; a hit's point is the full hit's `ray.at(t)`)
                        let mut hits = Vec::new();
                        for x in 0..w {
                            let (sx, sy) = (x as f32 + 0.5, y as f32 + 0.5);
                            let a = cam.unproject_with(&inv, sx, sy, 0.0);
                            let b = cam.unproject_with(&inv, sx, sy, 1.0);
                            let ray = softpick::Ray::new(a, (b - a).normalize_or_zero());
                            let opts = RayOptions {
                                far: (b - a).length(),
                                cull,
                                clip: self.frame.clip_planes(),
                                ..RayOptions::default()
                            };
                            caster.all_hits_into(&ray, &opts, &mut hits);
                            for (j, hit) in hits.iter().take(k).enumerate() {
                                let i = x * k + j;
                                let position = ray.at(hit.t);
                                ids[i] = hit.global_triangle + 1;
                                depth[i] = cam.project(position).map_or(f32::NAN, |p| p.z);
                                z[i] = (position - cam.eye).dot(forward);
                                bary[3 * i..3 * i + 3].copy_from_slice(&hit.barycentric.to_array());
                            }
                        }
                    });
            })
        });
        let d = PyDict::new(py);
        d.set_item("ids", PyArray1::from_vec(py, ids).reshape([h, w, k])?)?;
        d.set_item("depth", PyArray1::from_vec(py, depth).reshape([h, w, k])?)?;
        d.set_item("z", PyArray1::from_vec(py, z).reshape([h, w, k])?)?;
        d.set_item(
            "barycentrics",
            PyArray1::from_vec(py, bary).reshape([h, w, k, 3])?,
        )?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "softpick.Frame({}x{}, method={:?})",
            self.frame.width(),
            self.frame.height(),
            self.method
        )
    }
}
