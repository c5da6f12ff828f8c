//! softpick for Python: a thin PyO3 layer over the Rust core. Scenes,
//! cameras and frames are the core's; this crate converts numpy arrays in
//! and out, releases the GIL during renders, ray batches and loads, and
//! turns every core error into a Python exception.
//!
//! The modules, lowest first; each uses only those above it in this list,
//! so no two import each other, directly or around a circle:
//!
//! - `errors`: the exception and the mapping of core errors;
//! - `arrays`: numpy in and out (checked arrays, 4×4 matrices);
//! - `parse`: the arguments' values (names, keys, vectors, meshes, transforms);
//! - `threads`: rayon pools by thread count;
//! - `state`: a scene's data (`PyScene`), which frames and cameras read;
//! - `spare`: the frame pool (buffers of dropped raster frames);
//! - `camera`: `softpick.Camera`;
//! - `method`: method choice and the raster and ray frames;
//! - `rays`: batched ray casts;
//! - `frame`: `softpick.Frame`;
//! - `scene`: `softpick.Scene`'s methods;
//! - this file: `load`, `builtin_scene` and the module.

// `!(a > b)` is deliberate, as in the core: it is true for NaN, which must be rejected.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use std::path::PathBuf;

use pyo3::prelude::*;

mod arrays;
mod camera;
mod errors;
mod frame;
mod method;
mod parse;
mod rays;
mod scene;
mod spare;
mod state;
mod threads;

use errors::{py_err, Error};
use parse::index_or_name;
use state::{PyScene, INVALID_ID};

/// Loads a model file (OBJ, STL, PLY or glTF/GLB: every format the core
/// reads, chosen by the extension, else by the first bytes) into a new
/// scene, without the GIL; `scene` picks a glTF scene by index or name.
/// Returns the new `softpick.Scene` (its `warnings` hold the loader's).
#[pyfunction]
#[pyo3(signature = (path, scene=None))]
fn load(py: Python<'_>, path: PathBuf, scene: Option<&Bound<'_, PyAny>>) -> PyResult<PyScene> {
    let scene = scene.map(index_or_name).transpose()?;
    let opts = softpick::LoadOptions { scene };
    let (scene, report) = py
        .allow_threads(|| softpick::load_model_with(&path, &opts))
        .map_err(py_err)?;
    Ok(PyScene::from_scene(scene, report.warnings))
}

/// Returns a new `softpick.Scene` holding the built-in 22-mesh pick-test
/// scene (`softpick demo`'s).
#[pyfunction]
fn builtin_scene() -> PyScene {
    PyScene::from_scene(softpick::builtin_scene(), Vec::new())
}

#[pymodule]
fn _softpick(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("INVALID_ID", INVALID_ID)?;
    m.add("MAX_FRAME_SIDE", softpick::limits::MAX_FRAME_SIDE)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(builtin_scene, m)?)?;
    m.add_class::<PyScene>()?;
    m.add_class::<camera::PyCamera>()?;
    m.add_class::<frame::PyFrame>()?;
    Ok(())
}
