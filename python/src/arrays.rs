//! numpy in and out: array-likes read as checked, contiguous arrays of
//! numbers (shape, dtype kind, finite values), and 4×4 matrices both ways.
//! The shared readers of every module's array arguments.

use numpy::{PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::value_err;

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
            "{what} must have shape (N, {cols}) or (..., {cols}): two or more axes, the last of {cols} (got {shape:?})"
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

/// `clip_planes=`: an array-like of shape (N, 4), a plane `[nx, ny, nz, d]`
/// per row keeping the world points with `n · p + d >= 0` (three.js's
/// `Plane(normal, constant)`), as the core's `ClipPlanes`; `None` or no
/// rows: none.
pub(crate) fn clip_planes(
    obj: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<softpick::ClipPlanes>> {
    let Some(obj) = obj else {
        return Ok(None);
    };
    let (rows, _) = f32_rows(obj, "clip_planes", 4)?;
    let planes: Vec<[f32; 4]> = rows
        .as_slice()?
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect();
    if planes.is_empty() {
        return Ok(None);
    }
    softpick::ClipPlanes::new(&planes)
        .map(Some)
        .map_err(|e| value_err(e.to_string()))
}
