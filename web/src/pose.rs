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

use glam::{DMat4, Mat4, Vec3, Vec4};

use crate::geometry::Geometry;

/// A pose checked against its geometry, ready to place any vertex: the
/// per-bone matrices `bindMatrixInverse · boneMatrix · bindMatrix` (f32,
/// formed in f64) and the morph influences. The full pose ([`Pose::all`])
/// and the lazy one (`lazy`, a vertex at a time) call the same
/// [`Pose::vertex`], so a vertex is the same bits either way.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pose {
    /// One matrix per bone; empty when the pose does not skin (no bones
    /// given, or a geometry without joint influences).
    pub(crate) mats: Vec<Mat4>,
    /// The morph influences as given (the targets past them count as 0).
    pub(crate) influences: Vec<f32>,
}

impl Pose {
    /// A pose of `g`: `bones` (16 values per bone, column-major, or empty:
    /// no skinning) with the bind matrix and its inverse, and the morph
    /// influences (as many as the geometry has targets, or fewer: the rest
    /// count as 0). Checks what can be checked without visiting the
    /// vertices; the bones the vertices name are checked by
    /// [`Pose::check_joints`] (or by [`Pose::all`]).
    pub(crate) fn new(
        g: &Geometry,
        bones: &[f32],
        bind: &DMat4,
        bind_inverse: &DMat4,
        influences: &[f32],
    ) -> Result<Pose, String> {
        if !bones.len().is_multiple_of(16) {
            return Err(format!(
                "{} bone matrix values is not a whole number of 4×4 matrices",
                bones.len()
            ));
        }
        if let Some(i) = influences.iter().position(|w| !w.is_finite()) {
            return Err(format!("morph influence {i} is {}", influences[i]));
        }
        let mut pose = Pose {
            mats: Vec::new(),
            influences: influences.to_vec(),
        };
        if bones.is_empty() || g.deform.joints.is_empty() {
            return Ok(pose);
        }
        if let Some(i) = bones.iter().position(|v| !v.is_finite()) {
            return Err(format!("bone matrix value {i} is {}", bones[i]));
        }
        pose.mats = bones
            .chunks_exact(16)
            .map(|b| {
                let m = Mat4::from_cols_slice(b).as_dmat4();
                (*bind_inverse * m * *bind).as_mat4()
            })
            .collect();
        Ok(pose)
    }

    /// Whether the pose skins (else it only morphs).
    pub(crate) fn skins(&self) -> bool {
        !self.mats.is_empty()
    }

    /// The error [`Pose::all`] gives when vertex `i` is bound (with a
    /// nonzero weight) to a bone the pose does not have.
    fn check_vertex(&self, g: &Geometry, i: usize) -> Result<(), String> {
        let n = self.mats.len();
        let (js, ws) = (g.deform.joints[i], g.deform.weights[i]);
        for k in 0..4 {
            let j = usize::from(js[k]);
            if ws[k] != 0.0 && j >= n {
                let bones = if n == 1 { "bone" } else { "bones" };
                return Err(format!(
                    "vertex {i} is bound to bone {j}, but the skeleton has {n} {bones}"
                ));
            }
        }
        Ok(())
    }

    /// `Ok` when every bone a vertex of `g` names (with a nonzero weight)
    /// is one of the pose's: `max_joint` is the largest such index (or
    /// `None`: none), known beforehand; the vertex-by-vertex search for the
    /// error runs only when it fails.
    pub(crate) fn check_joints(&self, g: &Geometry, max_joint: Option<u16>) -> Result<(), String> {
        if !self.skins() || max_joint.is_none_or(|j| usize::from(j) < self.mats.len()) {
            return Ok(());
        }
        (0..g.positions.len()).try_for_each(|i| self.check_vertex(g, i))
    }

    /// Vertex `i` posed: morphed, then skinned. The bones it names must be
    /// the pose's ([`Pose::check_joints`]; else the origin, rather than a
    /// panic).
    #[inline(always)]
    pub(crate) fn vertex(&self, g: &Geometry, i: usize) -> Vec3 {
        self.place(g, i).unwrap_or(Vec3::ZERO)
    }

    /// Vertex `i` posed, or `None` when it names (with a nonzero weight) a
    /// bone the pose does not have.
    #[inline(always)]
    fn place(&self, g: &Geometry, i: usize) -> Option<Vec3> {
        let p = self.morph(g, i, g.positions[i]);
        let d = &g.deform;
        match (d.joints.get(i), d.weights.get(i)) {
            (Some(js), Some(ws)) if self.skins() => self.skin(p, js, ws),
            _ => Some(p),
        }
    }

    /// `p`, vertex `i`'s rest position, morphed: `m = v + Σ wₖ·dₖ[v]`, the
    /// targets in order (per vertex the very additions of the full pose
    /// when it went a target at a time).
    #[inline(always)]
    fn morph(&self, g: &Geometry, i: usize, mut p: Vec3) -> Vec3 {
        for (t, &w) in g.deform.targets.iter().zip(&self.influences) {
            if w != 0.0 {
                p += t[i] * w;
            }
        }
        p
    }

    /// The morphed position `p` skinned by joints `js` and weights `ws`
    /// (`None`: a joint the pose does not have).
    #[inline(always)]
    fn skin(&self, p: Vec3, js: &[u16; 4], ws: &[f32; 4]) -> Option<Vec3> {
        // Σ ωᵢ · (M · p) in the lanes of a Vec4: per lane the very
        // operations of `acc += m.transform_point3(p) * w` on a Vec3
        // (glam's `x·c₀`, then `+ y·c₁`, `+ z·c₂`, `+ c₃`; IEEE addition
        // commutes bit for bit), without moving each product out of the
        // vector register and back (`skin_point` in the tests is the Vec3
        // form, and they are compared bit for bit).
        let (x, y, z) = (p.x, p.y, p.z);
        let mut acc = Vec4::ZERO;
        for k in 0..4 {
            let w = ws[k];
            if w != 0.0 {
                let m = self.mats.get(usize::from(js[k]))?;
                let t = m.w_axis + (m.z_axis * z + (m.y_axis * y + m.x_axis * x));
                acc += t * w;
            }
        }
        Some(acc.truncate())
    }

    /// Every vertex of `g` posed; an error naming the first vertex bound to
    /// a bone the pose does not have.
    pub(crate) fn all(&self, g: &Geometry) -> Result<Vec<Vec3>, String> {
        // (the same `morph` and `skin` as `vertex`, walking the arrays
        // side by side: no index checks per vertex)
        let d = &g.deform;
        let morphs = self.influences.iter().any(|&w| w != 0.0) && !d.targets.is_empty();
        let mut out = g.positions.clone();
        if morphs {
            for (i, p) in out.iter_mut().enumerate() {
                *p = self.morph(g, i, *p);
            }
        }
        if !self.skins() {
            return Ok(out);
        }
        for (i, ((p, js), ws)) in out.iter_mut().zip(&d.joints).zip(&d.weights).enumerate() {
            match self.skin(*p, js, ws) {
                Some(q) => *p = q,
                None => {
                    self.check_vertex(g, i)?;
                    return Err(format!("vertex {i} could not be posed"));
                }
            }
        }
        Ok(out)
    }
}

/// The posed vertices of a geometry: `bones` (16 values per bone,
/// column-major, or empty: no skinning) with the bind matrix and its
/// inverse, and the morph influences (as many as the geometry has targets,
/// or fewer: the rest count as 0).
#[cfg(test)]
pub(crate) fn pose(
    g: &Geometry,
    bones: &[f32],
    bind: &DMat4,
    bind_inverse: &DMat4,
    influences: &[f32],
) -> Result<Vec<Vec3>, String> {
    Pose::new(g, bones, bind, bind_inverse, influences)?.all(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DVec3, Quat};

    /// The Vec3 form of the skinning sum (the loop before its lanes were
    /// kept in a Vec4): what `pose` must give bit for bit.
    fn skin_point(mats: &[Mat4], p: Vec3, js: [u16; 4], ws: [f32; 4]) -> Vec3 {
        let mut acc = Vec3::ZERO;
        for k in 0..4 {
            if ws[k] != 0.0 {
                acc += mats[usize::from(js[k])].transform_point3(p) * ws[k];
            }
        }
        acc
    }

    #[test]
    fn skinning_in_lanes_is_the_vec3_sum_bit_for_bit() {
        let mut s = 0x2545_f491_u32;
        let mut r = move || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s >> 8) as f32 / 16_777_216.0
        };
        for round in 0..20 {
            let nv = 500;
            let nb = 24;
            let pos: Vec<f32> = (0..3 * nv).map(|_| (r() - 0.5) * 40.0).collect();
            let mut g = Geometry::new(&pos, None, None).unwrap();
            g.deform.joints = (0..nv)
                .map(|_| [0; 4].map(|_: u16| (r() * nb as f32) as u16 % nb as u16))
                .collect();
            g.deform.weights = (0..nv)
                .map(|k| {
                    let mut w = [r(), r(), r(), r()];
                    if k % 3 == 0 {
                        w[(k / 3) % 4] = 0.0; // (a zero weight is skipped)
                    }
                    let sum: f32 = w.iter().sum();
                    w.map(|v| v / sum)
                })
                .collect();
            let bones: Vec<f32> = (0..nb)
                .flat_map(|_| {
                    Mat4::from_scale_rotation_translation(
                        Vec3::new(0.5 + r(), 0.5 + r(), 0.5 + r()),
                        Quat::from_euler(glam::EulerRot::XYZ, r() * 6.0, r() * 6.0, r() * 6.0),
                        Vec3::new(r() - 0.5, r() - 0.5, r() - 0.5) * 10.0,
                    )
                    .to_cols_array()
                })
                .collect();
            let bind = DMat4::from_translation(DVec3::new(0.25, -1.5, f64::from(round)));
            let bind_inverse = bind.inverse();
            let posed = pose(&g, &bones, &bind, &bind_inverse, &[]).unwrap();
            let mats: Vec<Mat4> = bones
                .chunks_exact(16)
                .map(|b| (bind_inverse * Mat4::from_cols_slice(b).as_dmat4() * bind).as_mat4())
                .collect();
            for (i, q) in posed.iter().enumerate() {
                let want = skin_point(
                    &mats,
                    g.positions[i],
                    g.deform.joints[i],
                    g.deform.weights[i],
                );
                assert_eq!(
                    q.to_array().map(f32::to_bits),
                    want.to_array().map(f32::to_bits),
                    "round {round}, vertex {i}: {q} against {want}"
                );
            }
        }
    }
}
