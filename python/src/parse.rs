//! Argument parsing shared by the classes: the str arguments' values
//! (fill rule, cull mode, pick method, selection mode), an index-or-name
//! key, vectors, meshes' vertices and triangles, and node transforms, each
//! checked with a `ValueError` naming the argument.

use glam::Vec3;
use pyo3::prelude::*;
use softpick::{CullMode, FillRule, PickMethod, SelectMode, Transform};

use crate::arrays::{float_rows, int_rows, mat4};
use crate::errors::value_err;

/// An id argument (a mesh, a node, a parent node): a `ValueError`
/// "{what} {v} does not exist" for one below 0 or past `u32` (PyO3's own
/// `u32` conversion raised `OverflowError` naming neither the argument nor
/// the value); ids past the scene's are refused where they are used.
pub(crate) fn id_arg(v: i64, what: &str) -> PyResult<u32> {
    u32::try_from(v).map_err(|_| value_err(format!("{what} {v} does not exist")))
}

/// A camera's image size: a `ValueError` in the words of the core's own
/// size check for a side below 0 or past `u32` (the core checks the rest).
pub(crate) fn sides(width: i64, height: i64) -> PyResult<(u32, u32)> {
    match (u32::try_from(width), u32::try_from(height)) {
        (Ok(w), Ok(h)) => Ok((w, h)),
        _ => Err(value_err(format!(
            "invalid camera: frame size {width}x{height} is invalid (each side must be 1..={})",
            softpick::limits::MAX_FRAME_SIDE
        ))),
    }
}

/// A cull mode by its CLI name.
pub(crate) fn cull_mode(s: &str) -> PyResult<CullMode> {
    match s {
        "none" => Ok(CullMode::None),
        "back" => Ok(CullMode::Back),
        "front" => Ok(CullMode::Front),
        _ => Err(value_err(format!(
            "cull must be none, back or front (got {s:?})"
        ))),
    }
}

/// A fill rule by its CLI name.
pub(crate) fn fill_rule(s: &str) -> PyResult<FillRule> {
    FillRule::ALL
        .into_iter()
        .find(|r| r.name() == s)
        .ok_or_else(|| {
            value_err(format!(
                "rule must be strict, inclusive, area-guard or top-left (got {s:?})"
            ))
        })
}

/// A pick method by its name.
pub(crate) fn pick_method(s: &str) -> PyResult<PickMethod> {
    match s {
        "buffer" => Ok(PickMethod::Buffer),
        "direct" => Ok(PickMethod::Direct),
        "ray" => Ok(PickMethod::Ray),
        m => Err(value_err(format!(
            "method must be buffer, direct or ray (got {m:?})"
        ))),
    }
}

/// A selection mode by its name.
pub(crate) fn select_mode(s: &str) -> PyResult<SelectMode> {
    match s {
        "visible" => Ok(SelectMode::Visible),
        "through" => Ok(SelectMode::Through),
        _ => Err(value_err(format!(
            "mode must be visible or through (got {s:?})"
        ))),
    }
}

/// An index (int) or a name (str) as the core's key string: a glTF
/// scene of `load`, an animation of `Scene.pose`.
pub(crate) fn index_or_name(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    match obj.extract::<usize>() {
        Ok(i) => Ok(i.to_string()),
        Err(_) => obj.extract::<String>(),
    }
}

/// Three numbers as a vector.
pub(crate) fn vec3(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec3> {
    let (v, lead) = float_rows(obj, what, 0)?;
    if v.len() != 3 || lead.len() > 1 {
        return Err(value_err(format!("{what} must be 3 numbers")));
    }
    Ok(Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32))
}

/// Vertices (N, 3) as positions.
pub(crate) fn positions(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Vec3>> {
    let (v, _) = float_rows(obj, "vertices", 3)?;
    Ok(v.chunks_exact(3)
        .map(|c| Vec3::new(c[0] as f32, c[1] as f32, c[2] as f32))
        .collect())
}

/// Triangles (M, 3) as vertex indices below `n`.
pub(crate) fn triangles(obj: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<[u32; 3]>> {
    let t = int_rows(obj, "triangles", 3)?;
    if let Some(i) = t.iter().position(|&v| v < 0 || v as u64 >= n as u64) {
        return Err(value_err(format!(
            "triangle {} refers to vertex {} but the mesh has {n} vertices",
            i / 3,
            t[i]
        )));
    }
    Ok(t.chunks_exact(3)
        .map(|c| [c[0] as u32, c[1] as u32, c[2] as u32])
        .collect())
}

/// The translation, rotation and scale of a 4×4 matrix; `ValueError` for a
/// matrix they do not reproduce (shear, projection).
pub(crate) fn transform(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Transform> {
    let m = mat4(obj, what)?;
    let (scale, rotation, translation) = m.to_scale_rotation_translation();
    let t = Transform {
        translation,
        rotation,
        scale,
    };
    let back = t.matrix();
    let size = m.to_cols_array().iter().fold(1f32, |a, x| a.max(x.abs()));
    let err = (back - m)
        .to_cols_array()
        .iter()
        .fold(0f32, |a, x| a.max(x.abs()));
    if !(err <= 1e-5 * size) || !t.matrix().is_finite() {
        return Err(value_err(format!(
            "{what} must be translation × rotation × scale (no shear or projection; off by {err})"
        )));
    }
    Ok(t)
}
