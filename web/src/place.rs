//! A three.js world matrix as softpick nodes.
//!
//! softpick places a mesh by a chain of nodes whose local transforms are
//! translation · rotation · scale ([`Transform`]); a three.js `matrixWorld`
//! (or `matrixWorld · instanceMatrix`) is any affine matrix, with shear when
//! a rotated child sits under a non-uniformly scaled parent. Every affine
//! matrix is `T · U · Σ · Vᵀ` (its 3×3 part's singular value decomposition,
//! with `U` and `V` rotations and the sign of the determinant in `Σ`), so
//! two nodes place it: an outer one `(T, U, Σ)` and an inner one `(0, Vᵀ, 1)`.
//! Without shear (orthogonal columns: the usual case) `V` is the identity
//! and the inner node multiplies by an exact identity.

use glam::{DMat3, DMat4, DQuat, DVec3, Quat};
use softpick::Transform;

/// Where two nodes put one placement (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Placement {
    /// The outer node: translation, rotation `U`, scale `Σ`.
    pub(crate) outer: Transform,
    /// The inner node: rotation `Vᵀ` (the identity without shear).
    pub(crate) inner: Transform,
    /// The determinant is negative: the placement mirrors.
    pub(crate) mirrored: bool,
}

/// The placement of a column-major affine matrix (three.js's
/// `Matrix4.elements`); an error for a non-finite element or a last row
/// other than (0, 0, 0, 1).
pub(crate) fn place(m: &DMat4) -> Result<Placement, String> {
    let e = m.to_cols_array();
    if let Some(i) = e.iter().position(|v| !v.is_finite()) {
        return Err(format!(
            "matrix element {i} is {} (every element must be finite)",
            e[i]
        ));
    }
    if e[3] != 0.0 || e[7] != 0.0 || e[11] != 0.0 || e[15] != 1.0 {
        return Err(format!(
            "the matrix is not affine: its last row is ({}, {}, {}, {}), not (0, 0, 0, 1)",
            e[3], e[7], e[11], e[15]
        ));
    }
    let t = m.w_axis.truncate();
    let a = DMat3::from_mat4(*m);
    let det = a.determinant();
    let mirrored = det < 0.0;
    let cols = [a.x_axis, a.y_axis, a.z_axis];
    let len = cols.map(DVec3::length);
    let orthogonal = (0..3).all(|i| {
        let j = (i + 1) % 3;
        cols[i].dot(cols[j]).abs() <= 1e-12 * len[i] * len[j]
    });
    if orthogonal && len.iter().all(|&l| l > 0.0) {
        // T · R · S directly: R's columns are A's over their lengths, with
        // the mirror (if any) taken by the x scale
        let sx = if mirrored { -len[0] } else { len[0] };
        let r = DMat3::from_cols(cols[0] / sx, cols[1] / len[1], cols[2] / len[2]);
        return Ok(Placement {
            outer: transform(t, quat(&r), DVec3::new(sx, len[1], len[2])),
            inner: Transform::IDENTITY,
            mirrored,
        });
    }
    let (u, s, v) = svd(&a);
    Ok(Placement {
        outer: transform(t, quat(&u), s),
        inner: transform(DVec3::ZERO, quat(&v.transpose()), DVec3::ONE),
        mirrored,
    })
}

fn transform(t: DVec3, r: Quat, s: DVec3) -> Transform {
    Transform {
        translation: t.as_vec3(),
        rotation: r,
        scale: s.as_vec3(),
    }
}

/// The unit quaternion of a rotation matrix, in f32.
fn quat(r: &DMat3) -> Quat {
    let q = DQuat::from_mat3(r).normalize();
    Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32).normalize()
}

/// `a = u · diag(s) · vᵀ` with `u`, `v` rotations (determinant +1): the
/// eigenvectors of `aᵀa` by Jacobi rotations (in f64), `u`'s columns as
/// `a·v/σ`, completed to a right-handed basis where `σ` vanishes, and the
/// sign of `det a` on the first singular value.
#[allow(clippy::needless_range_loop)]
fn svd(a: &DMat3) -> (DMat3, DVec3, DMat3) {
    let ata = a.transpose() * *a;
    let mut s = ata.to_cols_array_2d();
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _sweep in 0..32 {
        let off = s[0][1].powi(2) + s[0][2].powi(2) + s[1][2].powi(2);
        let diag = s[0][0].powi(2) + s[1][1].powi(2) + s[2][2].powi(2);
        if off <= 1e-30 * diag || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if s[p][q] == 0.0 {
                continue;
            }
            // the rotation in the (p, q) plane that zeroes s[p][q]
            let theta = (s[q][q] - s[p][p]) / (2.0 * s[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let sn = t * c;
            for k in 0..3 {
                let (skp, skq) = (s[k][p], s[k][q]);
                s[k][p] = c * skp - sn * skq;
                s[k][q] = sn * skp + c * skq;
            }
            for k in 0..3 {
                let (spk, sqk) = (s[p][k], s[q][k]);
                s[p][k] = c * spk - sn * sqk;
                s[q][k] = sn * spk + c * sqk;
            }
            for row in &mut v {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - sn * vq;
                row[q] = sn * vp + c * vq;
            }
        }
    }
    // eigenvalues (the diagonal) largest first, with their vectors (v's columns)
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| s[j][j].total_cmp(&s[i][i]));
    let col = |j: usize| DVec3::new(v[0][j], v[1][j], v[2][j]);
    let mut vc = order.map(col);
    let sigma = order.map(|i| s[i][i].max(0.0).sqrt());
    if vc[0].cross(vc[1]).dot(vc[2]) < 0.0 {
        vc[2] = -vc[2];
    }
    let tiny = sigma[0] * 1e-12;
    let mut uc = [DVec3::ZERO; 3];
    for k in 0..3 {
        if sigma[k] > tiny {
            uc[k] = (*a * vc[k] / sigma[k]).normalize();
        }
    }
    if sigma[1] <= tiny {
        uc[1] = uc[0].any_orthonormal_vector();
    }
    if sigma[2] <= tiny {
        uc[2] = uc[0].cross(uc[1]);
    }
    let mut sv = DVec3::from(sigma);
    if uc[0].cross(uc[1]).dot(uc[2]) < 0.0 {
        // a mirror: u right-handed, the sign on the first singular value
        uc[0] = -uc[0];
        sv.x = -sv.x;
    }
    if uc[0] == DVec3::ZERO {
        // the zero matrix
        return (DMat3::IDENTITY, DVec3::ZERO, DMat3::IDENTITY);
    }
    (
        DMat3::from_cols(uc[0], uc[1], uc[2]),
        sv,
        DMat3::from_cols(vc[0], vc[1], vc[2]),
    )
}

/// The world matrix two nodes with these transforms give (the core's own
/// product, in f32): what the tests compare with the input.
#[cfg(test)]
pub(crate) fn world_of(p: &Placement) -> glam::Mat4 {
    p.outer.matrix() * p.inner.matrix()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec4;

    fn close(p: &Placement, m: &DMat4) -> f64 {
        let w = world_of(p).as_dmat4();
        let scale = m.to_cols_array().iter().fold(1.0f64, |a, b| a.max(b.abs()));
        w.to_cols_array()
            .iter()
            .zip(m.to_cols_array())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
            / scale
    }

    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    #[test]
    fn identity_and_trs_are_one_node() {
        let p = place(&DMat4::IDENTITY).unwrap();
        assert_eq!(world_of(&p), glam::Mat4::IDENTITY);
        assert_eq!(p.inner, Transform::IDENTITY);
        let m = DMat4::from_scale_rotation_translation(
            DVec3::new(2.0, 0.5, 3.0),
            DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 2.0),
            DVec3::new(1.0, -2.0, 5.0),
        );
        let p = place(&m).unwrap();
        assert_eq!(p.inner, Transform::IDENTITY);
        assert!(!p.mirrored);
        assert!(close(&p, &m) < 1e-6, "{}", close(&p, &m));
    }

    #[test]
    fn sheared_mirrored_and_flat_matrices_are_placed() {
        let mut seed = 7;
        for i in 0..500 {
            let mut c = [0.0; 16];
            for (k, v) in c.iter_mut().enumerate().take(12) {
                *v = lcg(&mut seed) * if k % 4 == 3 { 0.0 } else { 3.0 };
            }
            c[12] = lcg(&mut seed) * 10.0;
            c[13] = lcg(&mut seed) * 10.0;
            c[14] = lcg(&mut seed) * 10.0;
            c[15] = 1.0;
            if i % 7 == 0 {
                // flat along one axis (a zero column)
                c[4] = 0.0;
                c[5] = 0.0;
                c[6] = 0.0;
            }
            let m = DMat4::from_cols_array(&c);
            let p = place(&m).unwrap();
            assert!(close(&p, &m) < 1e-5, "matrix {i}: {}", close(&p, &m));
            assert_eq!(p.mirrored, DMat3::from_mat4(m).determinant() < 0.0);
        }
    }

    /// A scaled, rotated parent times rotated, scaled children (three.js
    /// instances under a group): sheared world matrices.
    #[test]
    fn sheared_products_of_trs_matrices_are_placed() {
        let g = DMat4::from_scale_rotation_translation(
            DVec3::new(1.5, 0.7, 1.1),
            DQuat::from_euler(glam::EulerRot::XYZ, 0.3, 0.2, -0.1),
            DVec3::ZERO,
        );
        let mut seed = 3;
        for k in 0..1000 {
            let mut f = || lcg(&mut seed);
            let inst = DMat4::from_scale_rotation_translation(
                DVec3::new(1.0 + 0.5 * f(), 1.0 + 0.5 * f(), 1.0 + 0.5 * f()),
                DQuat::from_euler(glam::EulerRot::XYZ, f() * 3.0, f() * 3.0, f() * 3.0),
                DVec3::new(f() * 4.0, f() * 3.0, f() * 3.0),
            );
            let m = g * inst;
            let p = place(&m).unwrap();
            assert!(close(&p, &m) < 1e-6, "instance {k}: {}", close(&p, &m));
        }
    }

    #[test]
    fn bad_matrices_are_named() {
        let mut m = DMat4::IDENTITY;
        m.x_axis.y = f64::NAN;
        assert!(place(&m).unwrap_err().contains("element 1 is NaN"));
        let mut m = DMat4::IDENTITY;
        m.x_axis = DVec4::new(1.0, 0.0, 0.0, 0.5);
        assert!(place(&m).unwrap_err().contains("not affine"));
    }
}
