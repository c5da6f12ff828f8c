//! `softpick.Scene`'s methods: building a scene from numpy arrays
//! (meshes, nodes, transforms, vertices), posing it, its facts, and what
//! it makes: frames (`render`, by the method `method::choose` picks) and
//! batched rays (`rays`). Its data is `state::PyScene`.

use std::sync::atomic::Ordering;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use softpick::animation::LoopMode;
use softpick::{Mesh, MeshId, RenderOptions, Scene, Transform};

use crate::arrays::mat4_to_py;
use crate::camera::PyCamera;
use crate::errors::{py_err, value_err};
use crate::frame::PyFrame;
use crate::method;
use crate::parse::{cull_mode, fill_rule, id_arg, index_or_name, positions};
use crate::state::{instance_of, PyScene};
use crate::threads::{in_pool, pool};

#[pymethods]
impl PyScene {
    /// A new, empty scene.
    #[new]
    fn new() -> Self {
        Self::from_scene(Scene::new(), Vec::new())
    }

    /// Adds a mesh (vertices (N, 3) numbers, triangles (M, 3) integer
    /// indices, counter-clockwise front faces) on a new node under
    /// `parent`, placed by `transform` (4×4, translation × rotation ×
    /// scale). Returns its mesh id (int; ids count meshes in the order
    /// they were added).
    #[pyo3(signature = (vertices, triangles, name=None, transform=None, parent=None))]
    fn add_mesh(
        &mut self,
        vertices: &Bound<'_, PyAny>,
        triangles: &Bound<'_, PyAny>,
        name: Option<String>,
        transform: Option<&Bound<'_, PyAny>>,
        parent: Option<i64>,
    ) -> PyResult<MeshId> {
        let parent = parent.map(|p| id_arg(p, "parent node")).transpose()?;
        let pos = positions(vertices)?;
        let tris = crate::parse::triangles(triangles, pos.len())?;
        self.check_parent(parent)?;
        let local = transform.map_or(Ok(Transform::IDENTITY), |t| {
            crate::parse::transform(t, "transform")
        })?;
        let id = self.scene.meshes().len() as u32;
        let name = name.unwrap_or_else(|| format!("mesh{id}"));
        let total = u64::from(self.scene.triangle_count()) + tris.len() as u64;
        if total >= u64::from(u32::MAX) {
            return Err(value_err(format!(
                "too many triangles ({total}) for 32-bit ids"
            )));
        }
        let mesh = Mesh::new(name, pos, tris, softpick::Mesh::palette_color(id))
            .map_err(|e| value_err(e.to_string()))?;
        self.bvh_ready.store(false, Ordering::Relaxed);
        Ok(self.scene.add_mesh(mesh, local, parent))
    }

    /// Adds a node without a mesh (a parent for others) under `parent`,
    /// placed by `transform` (4×4). Returns its node id (int).
    #[pyo3(signature = (name=None, transform=None, parent=None))]
    fn add_node(
        &mut self,
        name: Option<String>,
        transform: Option<&Bound<'_, PyAny>>,
        parent: Option<i64>,
    ) -> PyResult<u32> {
        let parent = parent.map(|p| id_arg(p, "parent node")).transpose()?;
        self.check_parent(parent)?;
        let local = transform.map_or(Ok(Transform::IDENTITY), |t| {
            crate::parse::transform(t, "transform")
        })?;
        let name = name.unwrap_or_else(|| format!("node{}", self.scene.nodes().len()));
        self.scene
            .try_add_node(&name, local, parent)
            .ok_or_else(|| value_err("parent node does not exist"))
    }

    /// Sets a node's local transform (4×4, translation × rotation × scale).
    /// Frames rendered before are stale. Returns None.
    fn set_transform(&mut self, node: i64, transform: &Bound<'_, PyAny>) -> PyResult<()> {
        let node = id_arg(node, "node")?;
        let t = crate::parse::transform(transform, "transform")?;
        if !self.scene.set_local(node, t) {
            return Err(value_err(format!(
                "node {node} does not exist (the scene has {})",
                self.scene.nodes().len()
            )));
        }
        self.bvh_ready.store(false, Ordering::Relaxed);
        Ok(())
    }

    /// Replaces a mesh's vertices (same count), keeping its triangles and
    /// every id; its BVH, if built, is refit (rebuilt when refitting would
    /// degrade it). Frames rendered before are stale. Returns the str
    /// "refit", "rebuilt" or "not built": what became of the mesh's BVH.
    fn set_vertices(
        &mut self,
        py: Python<'_>,
        mesh: i64,
        vertices: &Bound<'_, PyAny>,
    ) -> PyResult<&'static str> {
        let mesh = id_arg(mesh, "mesh")?;
        let pos = positions(vertices)?;
        let scene = &mut self.scene;
        let stats = py
            .allow_threads(move || scene.set_positions(mesh, pos))
            .map_err(|e| value_err(e.to_string()))?;
        Ok(if stats.refitted > 0 {
            "refit"
        } else if stats.rebuilt > 0 {
            "rebuilt"
        } else {
            "not built"
        })
    }

    /// Poses the scene at `time` seconds of an animation (index or name;
    /// default the first): node channels, morph weights and skins, with the
    /// deformed meshes' BVHs refit. `loop` says what a time past the clip's
    /// end shows: "once" clamps to the last key, "repeat" wraps, "pingpong"
    /// mirrors (three.js's and Cesium's modes). A scene without animations
    /// keeps its shape. Frames rendered before are stale. Returns None.
    #[pyo3(signature = (time, animation=None, r#loop="once"), text_signature = "($self, time, animation=None, loop='once')")]
    fn pose(
        &mut self,
        py: Python<'_>,
        time: f64,
        animation: Option<&Bound<'_, PyAny>>,
        r#loop: &str,
    ) -> PyResult<()> {
        let t = time as f32;
        if !t.is_finite() {
            return Err(value_err(format!("time must be finite (got {time})")));
        }
        let mode = LoopMode::from_name(r#loop).ok_or_else(|| {
            value_err(format!(
                "loop must be once, repeat or pingpong (got {:?})",
                r#loop
            ))
        })?;
        let anim = match animation {
            None => (!self.scene.animations().is_empty()).then_some(0),
            Some(a) => {
                let key = index_or_name(a)?;
                Some(self.scene.find_animation(&key).ok_or_else(|| {
                    value_err(format!(
                        "no animation {key:?} (the scene has {})",
                        self.scene.animations().len()
                    ))
                })?)
            }
        };
        let scene = &mut self.scene;
        py.allow_threads(move || scene.pose(t, anim, mode))
            .map_err(py_err)?;
        self.bvh_ready.store(false, Ordering::Relaxed);
        Ok(())
    }

    /// Animation names, in index order.
    #[getter]
    fn animations(&self) -> Vec<String> {
        self.scene
            .animations()
            .iter()
            .map(|a| a.name.clone())
            .collect()
    }

    /// Builds the BVHs ray casts walk now (they are otherwise built at the
    /// first ray query), without the GIL. Returns None.
    fn build_bvhs(&self, py: Python<'_>) {
        let scene = &self.scene;
        py.allow_threads(|| scene.build_bvhs());
        self.bvh_ready.store(true, Ordering::Relaxed);
    }

    /// Number of meshes (int).
    #[getter]
    fn mesh_count(&self) -> usize {
        self.scene.meshes().len()
    }
    /// Number of nodes (int).
    #[getter]
    fn node_count(&self) -> usize {
        self.scene.nodes().len()
    }
    /// Number of triangles over all meshes (int).
    #[getter]
    fn triangle_count(&self) -> u32 {
        self.scene.triangle_count()
    }
    /// Mesh names in mesh-id order (list of str).
    #[getter]
    fn mesh_names(&self) -> Vec<String> {
        self.scene
            .meshes()
            .iter()
            .map(|m| m.name().to_string())
            .collect()
    }
    /// The loader's warnings (list of str, empty for built scenes).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
    /// uint32 (mesh_count + 1,): the first global triangle index of each
    /// mesh, then the total.
    #[getter]
    fn triangle_offsets<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_slice(py, self.scene.triangle_offsets())
    }
    /// World bounds of the finite vertices: `[[min x, y, z], [max x, y, z]]`
    /// (lists of float).
    #[getter]
    fn bounds(&self) -> [[f32; 3]; 2] {
        let b = self.scene.bounds();
        [b.min.to_array(), b.max.to_array()]
    }

    /// Returns the id of the node holding mesh `mesh` (int).
    fn mesh_node(&self, mesh: i64) -> PyResult<u32> {
        let (mesh, _) = self.mesh_arg(mesh)?;
        self.scene
            .mesh_node(mesh)
            .ok_or_else(|| value_err(format!("mesh {mesh} does not exist")))
    }

    /// Returns the instance id of mesh `mesh` (int; what `instance_ids`
    /// report): the glTF node placing it, else the mesh's own node.
    fn mesh_instance(&self, mesh: i64) -> PyResult<u32> {
        let (mesh, _) = self.mesh_arg(mesh)?;
        Ok(instance_of(&self.scene, mesh))
    }

    /// Returns a mesh's vertices in its local space: float32 (N, 3).
    fn mesh_vertices<'py>(&self, py: Python<'py>, mesh: i64) -> PyResult<Bound<'py, PyAny>> {
        let (_, m) = self.mesh_arg(mesh)?;
        let v: Vec<f32> = m.positions().iter().flat_map(|p| p.to_array()).collect();
        Ok(PyArray1::from_vec(py, v)
            .reshape([m.positions().len(), 3])?
            .into_any())
    }

    /// Returns a mesh's triangles: uint32 (M, 3) vertex indices.
    fn mesh_triangles<'py>(&self, py: Python<'py>, mesh: i64) -> PyResult<Bound<'py, PyAny>> {
        let (_, m) = self.mesh_arg(mesh)?;
        let v: Vec<u32> = m.triangles().iter().flatten().copied().collect();
        Ok(PyArray1::from_vec(py, v)
            .reshape([m.triangles().len(), 3])?
            .into_any())
    }

    /// Returns a mesh's world matrix: float64 (4, 4), row-major, acting on
    /// column vectors (`M @ p`).
    fn mesh_world<'py>(&self, py: Python<'py>, mesh: i64) -> PyResult<Bound<'py, PyAny>> {
        let (mesh, _) = self.mesh_arg(mesh)?;
        mat4_to_py(py, self.scene.mesh_world(mesh))
    }

    /// Renders the scene from `camera` into a new frame, without the GIL.
    /// `method`: `"raster"` (the rasterizer: ID and depth buffers in one
    /// pass), `"ray"` (a ray pick through every pixel centre, BVHs built
    /// first) or `"auto"` (see `Frame.method_reason`); `threads`: worker
    /// threads (default: one per core). Output never depends on it.
    /// `rule`: the fill rule ("top-left", "strict", "inclusive" or
    /// "area-guard"); `cull`: "none", "back" or "front"; `color`: also
    /// shade a color image. `clip_planes`: array-like (N, 4), user clip
    /// planes `[nx, ny, nz, d]` keeping the points with `n . p + d >= 0`
    /// (three.js's clipping planes): what they cut away is not drawn, and
    /// the frame's ray picks and layers apply them too. Returns a new
    /// `softpick.Frame`.
    #[pyo3(signature = (camera, rule="top-left", cull="none", color=false, threads=None, method="raster", clip_planes=None))]
    #[allow(clippy::too_many_arguments)]
    fn render(
        slf: &Bound<'_, Self>,
        camera: &PyCamera,
        rule: &str,
        cull: &str,
        color: bool,
        threads: Option<i64>,
        method: &str,
        clip_planes: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyFrame> {
        let py = slf.py();
        let clip = crate::arrays::clip_planes(clip_planes)?;
        let rule = fill_rule(rule)?;
        let cull = cull_mode(cull)?;
        let pool = pool(threads)?;
        let cam = camera.cam;
        let (method, reason) = {
            let this = slf.borrow();
            method::choose(
                method,
                color,
                u64::from(this.scene.triangle_count()),
                u64::from(cam.width) * u64::from(cam.height),
                this.bvh_ready.load(Ordering::Relaxed),
            )?
        };
        let frame = {
            let this = slf.borrow();
            let (scene, renderer) = (&this.scene, &this.renderer);
            let opts = RenderOptions {
                rule,
                cull,
                color,
                threads: None,
                ..RenderOptions::default()
            };
            py.allow_threads(|| {
                in_pool(&pool, || {
                    if method == "raster" {
                        method::raster_frame(renderer, scene, &cam, opts, clip)
                    } else {
                        method::ray_frame(scene, &cam, cull, clip)
                    }
                })
            })
            .map_err(py_err)?
        };
        if method == "ray" {
            slf.borrow().bvh_ready.store(true, Ordering::Relaxed);
        }
        Ok(PyFrame::new(
            slf.clone().unbind(),
            frame,
            pool,
            method,
            reason,
        ))
    }

    /// The first hit of each ray, in parallel without the GIL.
    ///
    /// `origins`, `directions`: array-likes of shape (..., 3), any leading
    /// shape, directions of any length. `near`, `far`: the range of the
    /// hits in units of each direction's length (the ray parameter, as
    /// `t_hit`). `cull`: "none", "back" or "front". `threads`: worker
    /// threads (default: one per core; the answers never depend on it).
    ///
    /// Returns a dict of numpy arrays in the rays' leading shape (...),
    /// named as Open3D's `RaycastingScene.cast_rays` names them:
    ///
    /// - `t_hit`: float32 (...), the ray parameter of the hit
    ///   (hit = origin + t_hit * direction), inf for a miss;
    /// - `geometry_ids`: uint32 (...), the mesh id, `INVALID_ID` for a miss;
    /// - `primitive_ids`: uint32 (...), the triangle within the mesh,
    ///   `INVALID_ID` for a miss;
    /// - `triangle_ids`: uint32 (...), the global triangle index,
    ///   `INVALID_ID` for a miss;
    /// - `instance_ids`: uint32 (...), the instance id, `INVALID_ID` for a miss;
    /// - `primitive_uvs`: float32 (..., 2), the barycentrics (u, v) of
    ///   corners 1 and 2 (hit = (1-u-v) v0 + u v1 + v v2), zeros for a miss;
    /// - `primitive_normals`: float32 (..., 3), the unit world normal
    ///   (v1-v0) x (v2-v0), zeros for a miss.
    ///
    /// `clip_planes`: array-like (N, 4), user clip planes `[nx, ny, nz, d]`
    /// keeping the points with `n . p + d >= 0` (three.js's clipping
    /// planes): a hit they cut away is no hit, and the ray goes on to what
    /// is behind the cut.
    #[pyo3(signature = (origins, directions, near=0.0, far=f32::INFINITY, cull="none", threads=None, clip_planes=None))]
    #[allow(clippy::too_many_arguments)]
    fn cast_rays<'py>(
        &self,
        py: Python<'py>,
        origins: &Bound<'py, PyAny>,
        directions: &Bound<'py, PyAny>,
        near: f32,
        far: f32,
        cull: &str,
        threads: Option<i64>,
        clip_planes: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let r = crate::rays::cast(
            py,
            &self.scene,
            origins,
            directions,
            (near, far),
            cull,
            threads,
            false,
            crate::arrays::clip_planes(clip_planes)?,
        )?;
        self.bvh_ready.store(true, Ordering::Relaxed);
        Ok(r)
    }

    /// Every hit of each ray, in Open3D's `RaycastingScene.list_intersections`
    /// layout, in parallel without the GIL.
    ///
    /// Arguments as for `cast_rays`. The hits are flat, sorted by ray (in
    /// the rays' flat order) then by distance (ties by mesh, then triangle).
    ///
    /// Returns a dict of numpy arrays, for N rays and K hits in all:
    ///
    /// - `ray_splits`: uint32 (N + 1,), offsets: ray i's hits are
    ///   `ray_splits[i]:ray_splits[i + 1]`;
    /// - `ray_ids`: uint32 (K,), the flat index of each hit's ray;
    /// - `t_hit`: float32 (K,), the ray parameter of each hit;
    /// - `geometry_ids`: uint32 (K,), the mesh id;
    /// - `primitive_ids`: uint32 (K,), the triangle within the mesh;
    /// - `primitive_uvs`: float32 (K, 2), barycentrics of corners 1 and 2;
    ///
    /// (Open3D's six keys, with its dtypes), and three more, as in `cast_rays`:
    ///
    /// - `triangle_ids`: uint32 (K,), the global triangle index;
    /// - `instance_ids`: uint32 (K,), the instance id;
    /// - `primitive_normals`: float32 (K, 3), the unit world normal.
    #[pyo3(signature = (origins, directions, near=0.0, far=f32::INFINITY, cull="none", threads=None, clip_planes=None))]
    #[allow(clippy::too_many_arguments)]
    fn list_intersections<'py>(
        &self,
        py: Python<'py>,
        origins: &Bound<'py, PyAny>,
        directions: &Bound<'py, PyAny>,
        near: f32,
        far: f32,
        cull: &str,
        threads: Option<i64>,
        clip_planes: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let r = crate::rays::cast(
            py,
            &self.scene,
            origins,
            directions,
            (near, far),
            cull,
            threads,
            true,
            crate::arrays::clip_planes(clip_planes)?,
        )?;
        self.bvh_ready.store(true, Ordering::Relaxed);
        Ok(r)
    }

    /// The former name of `list_intersections`, kept as an alias: the same
    /// arguments, and returns the same dict (`ray_splits`, `ray_ids`,
    /// `t_hit`, `geometry_ids`, `primitive_ids`, `primitive_uvs`,
    /// `triangle_ids`, `instance_ids`, `primitive_normals`; see
    /// `help(softpick.Scene.list_intersections)`).
    #[pyo3(signature = (origins, directions, near=0.0, far=f32::INFINITY, cull="none", threads=None, clip_planes=None))]
    #[allow(clippy::too_many_arguments)]
    fn cast_rays_all<'py>(
        &self,
        py: Python<'py>,
        origins: &Bound<'py, PyAny>,
        directions: &Bound<'py, PyAny>,
        near: f32,
        far: f32,
        cull: &str,
        threads: Option<i64>,
        clip_planes: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        self.list_intersections(
            py,
            origins,
            directions,
            near,
            far,
            cull,
            threads,
            clip_planes,
        )
    }

    fn __repr__(&self) -> String {
        format!(
            "softpick.Scene({} meshes, {} nodes, {} triangles)",
            self.scene.meshes().len(),
            self.scene.nodes().len(),
            self.scene.triangle_count()
        )
    }
}

impl PyScene {
    /// Mesh `mesh` and its id: a `ValueError` "mesh {mesh} does not exist"
    /// for an id the scene lacks, a negative one too (the scene's meshes
    /// and their nodes are parallel lists, so an existing mesh has a node).
    fn mesh_arg(&self, mesh: i64) -> PyResult<(MeshId, &Mesh)> {
        u32::try_from(mesh)
            .ok()
            .and_then(|id| Some((id, self.scene.mesh(id)?)))
            .ok_or_else(|| value_err(format!("mesh {mesh} does not exist")))
    }

    fn check_parent(&self, parent: Option<u32>) -> PyResult<()> {
        match parent {
            Some(p) if p as usize >= self.scene.nodes().len() => Err(value_err(format!(
                "parent node {p} does not exist (the scene has {})",
                self.scene.nodes().len()
            ))),
            _ => Ok(()),
        }
    }
}
