//! Batched ray casts over numpy rays, in parallel without the GIL, with
//! Open3D's output names: first hits through the core's compact batch
//! query (`RayCaster::first_hits`), written straight into the output
//! arrays; every hit through `RayCaster::all_hits_into`.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;
use softpick::{CullMode, Ray, RayCaster, RayHit, RayOptions, Scene};

use crate::arrays::f32_rows;
use crate::errors::value_err;
use crate::parse::cull_mode;
use crate::state::{instance_of, INVALID_ID};
use crate::threads::{in_pool, pool};

/// Rays per parallel task of an every-hit batch, and the fewest in a
/// part of a first-hit batch (see [`part_len`]).
const CHUNK: usize = 1024;

/// A batch of rays as given (flat xyz rows), with the query's range in
/// units of each ray's direction (the ray parameter) and its cull mode.
struct Rays<'s> {
    o: &'s [f32],
    d: &'s [f32],
    near: f32,
    far: f32,
    cull: CullMode,
    clip: Option<softpick::ClipPlanes>,
}

impl Rays<'_> {
    fn len(&self) -> usize {
        self.o.len() / 3
    }

    fn ray(&self, i: usize) -> Ray {
        let v = |a: &[f32]| glam::Vec3::new(a[3 * i], a[3 * i + 1], a[3 * i + 2]);
        Ray::new(v(self.o), v(self.d))
    }

    /// The core's options for a ray of direction length `len` (the core
    /// measures its range in distances).
    fn opts(&self, len: f32) -> RayOptions<'_> {
        RayOptions {
            near: self.near * len,
            far: self.far * len,
            cull: self.cull,
            filter: None,
            clip: self.clip.as_ref(),
        }
    }

    /// Whether the range is the whole ray, the same in distances as in ray
    /// parameters, so one set of options serves every ray.
    fn whole(&self) -> bool {
        self.near == 0.0 && self.far == f32::INFINITY
    }
}

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

/// One task's part of the first-hit outputs: a run of rays of the batch,
/// one slice of each output array (zeros when the part starts).
struct Part<'a> {
    t_hit: &'a mut [f32],
    geometry: &'a mut [u32],
    primitive: &'a mut [u32],
    triangle: &'a mut [u32],
    instance: &'a mut [u32],
    uv: &'a mut [f32],
    normal: &'a mut [f32],
}

impl Part<'_> {
    /// Writes the answer of the part's ray `k` (a miss: `t_hit` inf, the
    /// ids [`INVALID_ID`], its uv and normal left at zero).
    #[inline(always)]
    fn set(&mut self, k: usize, scene: &Scene, caster: &RayCaster<'_>, hit: Option<RayHit>) {
        let Some(h) = hit else {
            self.t_hit[k] = f32::INFINITY;
            self.geometry[k] = INVALID_ID;
            self.primitive[k] = INVALID_ID;
            self.triangle[k] = INVALID_ID;
            self.instance[k] = INVALID_ID;
            return;
        };
        self.t_hit[k] = h.t;
        self.geometry[k] = h.mesh;
        self.primitive[k] = h.triangle;
        self.triangle[k] = h.global_triangle;
        self.instance[k] = instance_of(scene, h.mesh);
        self.uv[2 * k..2 * k + 2].copy_from_slice(&[h.barycentric.y, h.barycentric.z]);
        self.normal[3 * k..3 * k + 3].copy_from_slice(&caster.hit_normal(&h).to_array());
    }
}

/// Rays per parallel task: a few dozen tasks per thread (enough for the
/// threads to even out), at least [`CHUNK`].
fn part_len(n: usize) -> usize {
    n.div_ceil(32 * rayon::current_num_threads().max(1))
        .max(CHUNK)
}

/// The first hit of every ray: the batch cut in parts, each walked by one
/// task with one batch iterator over the rays read straight from the
/// input rows, its answers written straight into the output arrays (made
/// as zeros: memory the system hands out zeroed, not a pass of writes).
fn first_hits(scene: &Scene, rays: &Rays<'_>) -> Out {
    let n = rays.len();
    scene.build_bvhs();
    let caster = RayCaster::new(scene);
    let mut out = Out {
        t_hit: vec![0.0; n],
        geometry_ids: vec![0; n],
        primitive_ids: vec![0; n],
        triangle_ids: vec![0; n],
        instance_ids: vec![0; n],
        primitive_uvs: vec![0.0; 2 * n],
        primitive_normals: vec![0.0; 3 * n],
        ..Out::default()
    };
    let m = part_len(n);
    out.t_hit
        .par_chunks_mut(m)
        .zip(out.geometry_ids.par_chunks_mut(m))
        .zip(out.primitive_ids.par_chunks_mut(m))
        .zip(out.triangle_ids.par_chunks_mut(m))
        .zip(out.instance_ids.par_chunks_mut(m))
        .zip(out.primitive_uvs.par_chunks_mut(2 * m))
        .zip(out.primitive_normals.par_chunks_mut(3 * m))
        .enumerate()
        .for_each(
            |(c, ((((((t_hit, geometry), primitive), triangle), instance), uv), normal))| {
                let (start, len) = (c * m, t_hit.len());
                let mut part = Part {
                    t_hit,
                    geometry,
                    primitive,
                    triangle,
                    instance,
                    uv,
                    normal,
                };
                let (o, d) = (
                    &rays.o[3 * start..3 * (start + len)],
                    &rays.d[3 * start..3 * (start + len)],
                );
                let v = |a: &[f32]| glam::Vec3::new(a[0], a[1], a[2]);
                let part_rays = o
                    .chunks_exact(3)
                    .zip(d.chunks_exact(3))
                    .map(|(o, d)| Ray::new(v(o), v(d)));
                if rays.whole() {
                    let opts = rays.opts(1.0);
                    // the rays copied out of the rows a block at a time (a
                    // loop of loads and stores alone), then walked from the
                    // copy
                    let mut block = Vec::with_capacity(CHUNK);
                    let (mut k, mut rest) = (0, part_rays);
                    loop {
                        block.clear();
                        block.extend(rest.by_ref().take(CHUNK));
                        if block.is_empty() {
                            break;
                        }
                        for hit in caster.first_hits(block.iter().copied(), &opts) {
                            part.set(k, scene, &caster, hit);
                            k += 1;
                        }
                    }
                } else {
                    // (a range in ray parameters is a different distance range
                    // for each ray)
                    for (k, r) in part_rays.enumerate() {
                        let opts = rays.opts(r.direction_length());
                        let hit = caster.first_hits([r], &opts).next().flatten();
                        part.set(k, scene, &caster, hit);
                    }
                }
            },
        );
    out
}

impl Out {
    /// Appends one hit of an every-hit batch, of a ray whose direction is
    /// `len` long.
    fn push(&mut self, scene: &Scene, caster: &RayCaster<'_>, h: &RayHit, len: f32) {
        // Open3D's t_hit is the ray parameter: distance / |direction|,
        // the distance being a full hit's (`Hit::distance`, t · len)
        self.t_hit.push(h.t * len / len);
        self.geometry_ids.push(h.mesh);
        self.primitive_ids.push(h.triangle);
        self.triangle_ids.push(h.global_triangle);
        self.instance_ids.push(instance_of(scene, h.mesh));
        self.primitive_uvs
            .extend([h.barycentric.y, h.barycentric.z]);
        self.primitive_normals
            .extend(caster.hit_normal(h).to_array());
    }

    /// The parts' outputs one after another, copied in parallel.
    fn concat(parts: &[Out]) -> Out {
        let field = |f: fn(&Out) -> &[f32]| concat(&parts.iter().map(f).collect::<Vec<_>>());
        let ids = |f: fn(&Out) -> &[u32]| concat(&parts.iter().map(f).collect::<Vec<_>>());
        Out {
            t_hit: field(|o| &o.t_hit),
            geometry_ids: ids(|o| &o.geometry_ids),
            primitive_ids: ids(|o| &o.primitive_ids),
            triangle_ids: ids(|o| &o.triangle_ids),
            instance_ids: ids(|o| &o.instance_ids),
            primitive_uvs: field(|o| &o.primitive_uvs),
            primitive_normals: field(|o| &o.primitive_normals),
            ray_ids: ids(|o| &o.ray_ids),
            counts: ids(|o| &o.counts),
        }
    }

    /// The outputs as Open3D names them, numpy arrays without a copy:
    /// first hits in the rays' leading shape `lead`, every-hit lists flat
    /// with `ray_ids` and `ray_splits` (when `counts` is set).
    fn into_dict<'py>(
        self,
        py: Python<'py>,
        lead: &[usize],
        all: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        let k = self.t_hit.len();
        let shape = |extra: Option<usize>| -> Vec<usize> {
            let mut s = if all { vec![k] } else { lead.to_vec() };
            s.extend(extra);
            s
        };
        let ids = [
            ("geometry_ids", self.geometry_ids),
            ("primitive_ids", self.primitive_ids),
            ("triangle_ids", self.triangle_ids),
            ("instance_ids", self.instance_ids),
        ];
        let floats = [
            ("t_hit", self.t_hit, None),
            ("primitive_uvs", self.primitive_uvs, Some(2)),
            ("primitive_normals", self.primitive_normals, Some(3)),
        ];
        for (name, v, extra) in floats {
            dict.set_item(name, PyArray1::from_vec(py, v).reshape(shape(extra))?)?;
        }
        for (name, v) in ids {
            dict.set_item(name, PyArray1::from_vec(py, v).reshape(shape(None))?)?;
        }
        if all {
            // Open3D's dtypes: uint32 offsets and ray ids
            if u32::try_from(k).is_err() {
                return Err(value_err(format!(
                    "{k} hits are more than uint32 ray_splits can count: cast fewer rays at a time"
                )));
            }
            let mut splits = Vec::with_capacity(self.counts.len() + 1);
            splits.push(0u32);
            for c in &self.counts {
                splits.push(splits.last().copied().unwrap_or(0) + *c);
            }
            dict.set_item("ray_ids", PyArray1::from_vec(py, self.ray_ids))?;
            dict.set_item("ray_splits", PyArray1::from_vec(py, splits))?;
        }
        Ok(dict)
    }
}

/// Every hit of every ray, sorted by ray then distance.
fn all_hits(scene: &Scene, rays: &Rays<'_>) -> Out {
    let n = rays.len();
    scene.build_bvhs();
    let caster = RayCaster::new(scene);
    let parts: Vec<Out> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut out = Out::default();
            // (one list of compact hits, refilled ray after ray)
            let mut hits = Vec::new();
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                let r = rays.ray(i);
                let len = r.direction_length();
                caster.all_hits_into(&r, &rays.opts(len), &mut hits);
                out.counts.push(hits.len() as u32);
                for h in &hits {
                    out.push(scene, &caster, h, len);
                    out.ray_ids.push(i as u32);
                }
            }
            out
        })
        .collect();
    Out::concat(&parts)
}

/// The slices `parts` one after another in one vector, made at its size
/// (as zeros: memory the system hands out zeroed) and filled part by part
/// in parallel (appended to a growing vector on one thread, the hits were
/// copied again at each doubling, and the copy did not share the
/// threads).
fn concat<T: Copy + Default + Send + Sync>(parts: &[&[T]]) -> Vec<T> {
    let mut out = vec![T::default(); parts.iter().map(|p| p.len()).sum()];
    let mut rest = &mut out[..];
    let mut dsts = Vec::with_capacity(parts.len());
    for p in parts {
        let (d, r) = rest.split_at_mut(p.len());
        dsts.push(d);
        rest = r;
    }
    dsts.into_par_iter()
        .zip(parts.par_iter())
        .for_each(|(d, p)| d.copy_from_slice(p));
    out
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
    threads: Option<i64>,
    all: bool,
    clip: Option<softpick::ClipPlanes>,
) -> PyResult<Bound<'py, PyDict>> {
    let (o, lead) = f32_rows(origins, "origins", 3)?;
    let (d, lead_d) = f32_rows(directions, "directions", 3)?;
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
    if all && u32::try_from(o.as_slice()?.len() / 3).is_err() {
        return Err(value_err("more rays than uint32 ray_ids can number"));
    }
    let rays = Rays {
        o: o.as_slice()?,
        d: d.as_slice()?,
        near,
        far,
        cull,
        clip,
    };
    let out = py.allow_threads(|| {
        in_pool(&pool, || {
            if all {
                all_hits(scene, &rays)
            } else {
                first_hits(scene, &rays)
            }
        })
    });
    out.into_dict(py, &lead, all)
}
