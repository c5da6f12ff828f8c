//! softpick for Python: a thin PyO3 layer over the Rust core. Scenes,
//! cameras and frames are the core's; this crate converts numpy arrays in
//! and out, releases the GIL during renders, ray batches and loads, and
//! turns every core error into a Python exception.

// `!(a > b)` is deliberate, as in the core: it is true for NaN, which must be rejected.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use numpy::{PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;

mod camera;
mod frame;
mod rays;
mod scene;

use softpick::{MeshId, ModelErrorKind, ObjErrorKind, Scene};

pyo3::create_exception!(
    _softpick,
    Error,
    pyo3::exceptions::PyException,
    "An error of the softpick core (its message is the core's)."
);

/// The id numpy outputs hold where there is no mesh, instance or triangle
/// (Open3D's `RaycastingScene.INVALID_ID`).
pub(crate) const INVALID_ID: u32 = u32::MAX;

/// The instance of scene mesh `mesh` ([`Scene::mesh_origin`]): a glTF node
/// placing a mesh (each primitive is a scene mesh of that instance), or the
/// mesh's own node in the other formats. Every instance id the package
/// reports comes from here.
pub(crate) fn instance_of(scene: &Scene, mesh: MeshId) -> u32 {
    scene.mesh_origin(mesh).map_or(INVALID_ID, |o| o.instance)
}

/// A core error as the Python exception that fits it, with the core's message.
pub(crate) fn py_err(e: softpick::Error) -> PyErr {
    let msg = e.to_string();
    let not_found = match &e {
        softpick::Error::Io { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
        softpick::Error::Obj { kind, .. } => *kind == ObjErrorKind::NotFound,
        softpick::Error::Model { kind, .. } => *kind == ModelErrorKind::NotFound,
        _ => false,
    };
    if not_found {
        return PyFileNotFoundError::new_err(msg);
    }
    match e {
        softpick::Error::InvalidCamera(_) | softpick::Error::InvalidSize(..) => {
            PyValueError::new_err(msg)
        }
        _ => Error::new_err(msg),
    }
}

/// A `ValueError` with `msg`.
pub(crate) fn value_err(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// Thread pools by thread count, made once each (a render with `threads`
/// runs in one; `None` uses rayon's global pool).
pub(crate) fn pool(threads: Option<usize>) -> PyResult<Option<Arc<rayon::ThreadPool>>> {
    static POOLS: Mutex<Option<HashMap<usize, Arc<rayon::ThreadPool>>>> = Mutex::new(None);
    let Some(n) = threads else {
        return Ok(None);
    };
    if n == 0 || n > 1024 {
        return Err(value_err(format!("threads must be 1..=1024 (got {n})")));
    }
    let mut pools = POOLS.lock().unwrap_or_else(|p| p.into_inner());
    let map = pools.get_or_insert_with(HashMap::new);
    if let Some(p) = map.get(&n) {
        return Ok(Some(p.clone()));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| Error::new_err(format!("cannot start {n} threads: {e}")))?;
    let p = Arc::new(p);
    map.insert(n, p.clone());
    Ok(Some(p))
}

/// Runs `f` in `pool` (or rayon's global pool).
pub(crate) fn in_pool<T: Send>(
    pool: &Option<Arc<rayon::ThreadPool>>,
    f: impl FnOnce() -> T + Send,
) -> T {
    match pool {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// An array-like as a C-contiguous float64 array of `cols` columns (any
/// leading shape, `cols == 0`: any shape): its values, row count and
/// leading shape. Non-numeric dtypes and non-finite values are a
/// `ValueError` naming `what`.
pub(crate) fn float_rows(
    obj: &Bound<'_, PyAny>,
    what: &str,
    cols: usize,
) -> PyResult<(Vec<f64>, Vec<usize>)> {
    let arr = as_array(obj, what, "fiu", "float64")?;
    let arr = arr.downcast_into::<numpy::PyArrayDyn<f64>>()?;
    let shape = arr.shape().to_vec();
    check_cols(&shape, what, cols)?;
    let v = arr.readonly().as_slice()?.to_vec();
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(value_err(format!(
            "{what} must be finite (value {i} is {})",
            v[i]
        )));
    }
    Ok((v, shape[..shape.len().saturating_sub(1)].to_vec()))
}

/// [`float_rows`] as float32 (numpy rounds float64 to nearest, as `as
/// f32` does), borrowed from the contiguous array without a copy when it
/// already is one.
pub(crate) fn f32_rows<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    cols: usize,
) -> PyResult<(numpy::PyReadonlyArrayDyn<'py, f32>, Vec<usize>)> {
    let arr = as_array(obj, what, "fiu", "float32")?;
    let arr = arr.downcast_into::<numpy::PyArrayDyn<f32>>()?;
    let shape = arr.shape().to_vec();
    check_cols(&shape, what, cols)?;
    let ro = arr.readonly();
    let v = ro.as_slice()?;
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return Err(value_err(format!(
            "{what} must be finite (value {i} is {})",
            v[i]
        )));
    }
    Ok((ro, shape[..shape.len().saturating_sub(1)].to_vec()))
}

/// An array-like of integers as int64 values (`cols` columns as in
/// [`float_rows`]); floats or other dtypes are a `ValueError`.
pub(crate) fn int_rows(obj: &Bound<'_, PyAny>, what: &str, cols: usize) -> PyResult<Vec<i64>> {
    let arr = as_array(obj, what, "iu", "int64")?;
    let arr = arr.downcast_into::<numpy::PyArrayDyn<i64>>()?;
    let shape = arr.shape().to_vec();
    check_cols(&shape, what, cols)?;
    Ok(arr.readonly().as_slice()?.to_vec())
}

/// `numpy.ascontiguousarray(obj)` checked for its dtype kind, then cast.
fn as_array<'py>(
    obj: &Bound<'py, PyAny>,
    what: &str,
    kinds: &str,
    dtype: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let np = obj.py().import("numpy")?;
    let arr = np
        .call_method1("asarray", (obj,))
        .map_err(|e| value_err(format!("{what} is not an array: {e}")))?;
    let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
    if !kinds.contains(kind.as_str()) {
        let name: String = arr.getattr("dtype")?.str()?.extract()?;
        let want = if kinds == "iu" { "integers" } else { "numbers" };
        return Err(value_err(format!(
            "{what} must hold {want} (got dtype {name})"
        )));
    }
    np.call_method1("ascontiguousarray", (arr, dtype))
}

fn check_cols(shape: &[usize], what: &str, cols: usize) -> PyResult<()> {
    if cols > 0 && (shape.len() < 2 || shape[shape.len() - 1] != cols) {
        return Err(value_err(format!(
            "{what} must have shape (N, {cols}) (got {shape:?})"
        )));
    }
    Ok(())
}

/// A 4×4 matrix (row-major, acting on column vectors as numpy's `M @ p`).
pub(crate) fn mat4(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<glam::Mat4> {
    let (v, lead) = float_rows(obj, what, 4)?;
    if lead != [4] {
        return Err(value_err(format!("{what} must be a 4x4 matrix")));
    }
    let a: [f32; 16] = std::array::from_fn(|i| v[i] as f32);
    Ok(glam::Mat4::from_cols_array(&a).transpose())
}

/// A glam matrix as a numpy 4×4 float64 array (row-major).
pub(crate) fn mat4_to_py<'py>(py: Python<'py>, m: glam::Mat4) -> PyResult<Bound<'py, PyAny>> {
    let rows: Vec<f64> = m
        .transpose()
        .to_cols_array()
        .iter()
        .map(|&x| f64::from(x))
        .collect();
    Ok(PyArray1::from_vec(py, rows).reshape([4, 4])?.into_any())
}

/// Loads a model file (OBJ, STL, PLY or glTF/GLB: every format the core
/// reads, chosen by the extension, else by the first bytes) into a new
/// scene, without the GIL; `scene` picks a glTF scene by index or name.
/// Returns the new `softpick.Scene` (its `warnings` hold the loader's).
#[pyfunction]
#[pyo3(signature = (path, scene=None))]
fn load(
    py: Python<'_>,
    path: PathBuf,
    scene: Option<&Bound<'_, PyAny>>,
) -> PyResult<scene::PyScene> {
    let scene = match scene {
        None => None,
        Some(s) => Some(match s.extract::<usize>() {
            Ok(i) => i.to_string(),
            Err(_) => s.extract::<String>()?,
        }),
    };
    let opts = softpick::LoadOptions { scene };
    let (scene, report) = py
        .allow_threads(|| softpick::load_model_with(&path, &opts))
        .map_err(py_err)?;
    Ok(scene::PyScene::from_scene(scene, report.warnings))
}

/// Returns a new `softpick.Scene` holding the built-in 22-mesh pick-test
/// scene (`softpick demo`'s).
#[pyfunction]
fn builtin_scene() -> scene::PyScene {
    scene::PyScene::from_scene(softpick::builtin_scene(), Vec::new())
}

#[pymodule]
fn _softpick(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("INVALID_ID", INVALID_ID)?;
    m.add("MAX_FRAME_SIDE", softpick::limits::MAX_FRAME_SIDE)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_scene, m)?)?;
    m.add_class::<scene::PyScene>()?;
    m.add_class::<camera::PyCamera>()?;
    m.add_class::<frame::PyFrame>()?;
    Ok(())
}
