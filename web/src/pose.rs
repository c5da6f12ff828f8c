//! Posing as three.js draws (and raycasts) a mesh: morph targets, then
//! linear blend skinning in the mesh's bind space.
//!
//! For vertex `v` with morph deltas `dₖ` (three.js's relative targets; an
//! absolute target is stored as its difference from the rest position),
//! influences `wₖ`, joint indices `jᵢ` and weights `ωᵢ`:
//!
//! ```text
//! m  = v + Σ wₖ·dₖ[v]
//! p  = bindMatrixInverse · Σ ωᵢ · boneMatrices[jᵢ] · bindMatrix · m
//! ```
//!
//! where `boneMatrices[j] = bones[j].matrixWorld · boneInverses[j]`, as
//! `Skeleton.update` computes it: the skinning vertex shader's pose (and
//! `SkinnedMesh.applyBoneTransform`'s, which is the same when the weights
//! of a vertex sum to 1, as glTF requires). The product `bindMatrixInverse · boneMatrix ·
//! bindMatrix` is formed once per bone (in f64), and each vertex then takes
//! the weighted sum of those matrices applied to it (in f32).

use glam::{DMat4, Mat4, Vec3};

use crate::world::Geometry;

/// The posed vertices of a geometry: `bones` (16 values per bone,
/// column-major, or empty: no skinning) with the bind matrix and its
/// inverse, and the morph influences (as many as the geometry has targets,
/// or fewer: the rest count as 0).
pub(crate) fn pose(
    g: &Geometry,
    bones: &[f32],
    bind: &DMat4,
    bind_inverse: &DMat4,
    influences: &[f32],
) -> Result<Vec<Vec3>, String> {
    if !bones.len().is_multiple_of(16) {
        return Err(format!(
            "{} bone matrix values is not a whole number of 4×4 matrices",
            bones.len()
        ));
    }
    if let Some(i) = influences.iter().position(|w| !w.is_finite()) {
        return Err(format!("morph influence {i} is {}", influences[i]));
    }
    let d = &g.deform;
    let mut out = g.positions.clone();
    for (t, &w) in d.targets.iter().zip(influences) {
        if w != 0.0 {
            for (p, &delta) in out.iter_mut().zip(t) {
                *p += delta * w;
            }
        }
    }
    if bones.is_empty() || d.joints.is_empty() {
        return Ok(out);
    }
    if let Some(i) = bones.iter().position(|v| !v.is_finite()) {
        return Err(format!("bone matrix value {i} is {}", bones[i]));
    }
    let mats: Vec<Mat4> = bones
        .chunks_exact(16)
        .map(|b| {
            let m = Mat4::from_cols_slice(b).as_dmat4();
            (*bind_inverse * m * *bind).as_mat4()
        })
        .collect();
    let n = mats.len();
    for (i, ((p, js), ws)) in out.iter_mut().zip(&d.joints).zip(&d.weights).enumerate() {
        let mut acc = Vec3::ZERO;
        for k in 0..4 {
            let w = ws[k];
            if w != 0.0 {
                let j = usize::from(js[k]);
                let m = mats.get(j).ok_or_else(|| {
                    format!("vertex {i} is bound to bone {j}, but the skeleton has {n} bones")
                })?;
                acc += m.transform_point3(*p) * w;
            }
        }
        *p = acc;
    }
    Ok(out)
}
