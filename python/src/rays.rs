//! Batched ray casts: the core's `RayCaster` (first hit or every hit) over
//! numpy rays, in parallel without the GIL, with Open3D's output names.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use softpick::{Hit, Ray, RayCaster, RayOptions, Scene};

use crate::scene::cull_mode;
use crate::{float_rows, in_pool, instance_of, pool, value_err, INVALID_ID};

/// Rays per parallel task.
const CHUNK: usize = 1024;

/// The outputs of a batch, one entry per hit (per ray for first hits).
#[derive(Default)]
struct Out {
    t_hit: Vec<f32>,
    geometry_ids: Vec<u32>,
    primitive_ids: Vec<u32>,
    triangle_ids: Vec<u32>,
    instance_ids: Vec<u32>,
    primitive_uvs: Vec<f32>,
    primitive_normals: Vec<f32>,
    /// For every-hit batches: the ray of each hit.
    ray_ids: Vec<u32>,
    /// For every-hit batches: per ray, its number of hits.
    counts: Vec<u32>,
}

impl Out {
    fn push(&mut self, scene: &Scene, hit: Option<&Hit>, len: f32) {
        match hit {
            Some(h) => {
                // Open3D's t_hit is the ray parameter: distance / |direction|
                self.t_hit.push(h.distance / len);
                self.geometry_ids.push(h.mesh);
                self.primitive_ids.push(h.triangle);
                self.triangle_ids.push(h.global_triangle);
                self.instance_ids.push(instance_of(scene, h.mesh));
                self.primitive_uvs
                    .extend([h.barycentric.y, h.barycentric.z]);
                self.primitive_normals.extend(h.normal.to_array());
            }
            None => {
                self.t_hit.push(f32::INFINITY);
                self.geometry_ids.push(INVALID_ID);
                self.primitive_ids.push(INVALID_ID);
                self.triangle_ids.push(INVALID_ID);
                self.instance_ids.push(INVALID_ID);
                self.primitive_uvs.extend([0.0, 0.0]);
                self.primitive_normals.extend([0.0; 3]);
            }
        }
    }

    fn append(&mut self, mut o: Out) {
        self.t_hit.append(&mut o.t_hit);
        self.geometry_ids.append(&mut o.geometry_ids);
        self.primitive_ids.append(&mut o.primitive_ids);
        self.triangle_ids.append(&mut o.triangle_ids);
        self.instance_ids.append(&mut o.instance_ids);
        self.primitive_uvs.append(&mut o.primitive_uvs);
        self.primitive_normals.append(&mut o.primitive_normals);
        self.ray_ids.append(&mut o.ray_ids);
        self.counts.append(&mut o.counts);
    }
}

/// Casts the rays `origins` → `directions` ((..., 3) each) against `scene`:
/// the first hit of each (`all` false) or every hit. `near` and `far` are in
/// units of each direction's length (the ray parameter, as `t_hit`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn cast<'py>(
    py: Python<'py>,
    scene: &Scene,
    origins: &Bound<'py, PyAny>,
    directions: &Bound<'py, PyAny>,
    (near, far): (f32, f32),
    cull: &str,
    threads: Option<usize>,
    all: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let (o, lead) = float_rows(origins, "origins", 3)?;
    let (d, lead_d) = float_rows(directions, "directions", 3)?;
    if lead != lead_d {
        return Err(value_err(format!(
            "origins and directions must have the same shape (got {lead:?} and {lead_d:?} rays)"
        )));
    }
    if !(near >= 0.0) || !(far >= near) {
        return Err(value_err(format!(
            "need 0 <= near <= far (got near {near}, far {far})"
        )));
    }
    let cull = cull_mode(cull)?;
    let pool = pool(threads)?;
    let n = o.len() / 3;
    let ray = |i: usize| {
        let v =
            |a: &[f64]| glam::Vec3::new(a[3 * i] as f32, a[3 * i + 1] as f32, a[3 * i + 2] as f32);
        Ray::new(v(&o), v(&d))
    };
    let out = py.allow_threads(|| {
        in_pool(&pool, || {
            let caster = RayCaster::new(scene);
            scene.build_bvhs();
            let parts: Vec<Out> = (0..n.div_ceil(CHUNK))
                .into_par_iter()
                .map(|c| {
                    let mut out = Out::default();
                    for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                        let r = ray(i);
                        let len = r.direction.length();
                        let opts = RayOptions {
                            near: near * len,
                            far: far * len,
                            cull,
                            filter: None,
                        };
                        if all {
                            let hits = caster.all(&r, &opts);
                            out.counts.push(hits.len() as u32);
                            for h in &hits {
                                out.push(scene, Some(h), len);
                                out.ray_ids.push(i as u32);
                            }
                        } else {
                            out.push(scene, caster.first(&r, &opts).as_ref(), len);
                        }
                    }
                    out
                })
                .collect();
            let mut out = Out::default();
            for p in parts {
                out.append(p);
            }
            out
        })
    });
    let dict = PyDict::new(py);
    let k = out.t_hit.len();
    // first hits keep the rays' leading shape; every-hit lists are flat
    let shape = |extra: Option<usize>| -> Vec<usize> {
        let mut s = if all { vec![k] } else { lead.clone() };
        s.extend(extra);
        s
    };
    let put = |name: &str, arr: Bound<'py, PyAny>| dict.set_item(name, arr);
    put(
        "t_hit",
        PyArray1::from_vec(py, out.t_hit)
            .reshape(shape(None))?
            .into_any(),
    )?;
    put(
        "geometry_ids",
        PyArray1::from_vec(py, out.geometry_ids)
            .reshape(shape(None))?
            .into_any(),
    )?;
    put(
        "primitive_ids",
        PyArray1::from_vec(py, out.primitive_ids)
            .reshape(shape(None))?
            .into_any(),
    )?;
    put(
        "triangle_ids",
        PyArray1::from_vec(py, out.triangle_ids)
            .reshape(shape(None))?
            .into_any(),
    )?;
    put(
        "instance_ids",
        PyArray1::from_vec(py, out.instance_ids)
            .reshape(shape(None))?
            .into_any(),
    )?;
    put(
        "primitive_uvs",
        PyArray1::from_vec(py, out.primitive_uvs)
            .reshape(shape(Some(2)))?
            .into_any(),
    )?;
    put(
        "primitive_normals",
        PyArray1::from_vec(py, out.primitive_normals)
            .reshape(shape(Some(3)))?
            .into_any(),
    )?;
    if all {
        let mut splits = Vec::with_capacity(n + 1);
        splits.push(0u64);
        for c in &out.counts {
            splits.push(splits.last().copied().unwrap_or(0) + u64::from(*c));
        }
        put("ray_ids", PyArray1::from_vec(py, out.ray_ids).into_any())?;
        put("ray_splits", PyArray1::from_vec(py, splits).into_any())?;
    }
    Ok(dict)
}
