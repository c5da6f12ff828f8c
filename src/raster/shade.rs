//! Flat shading of the set-up triangles (color pass only): two-sided
//! Lambert with a headlight, `0.25 + 0.75·|n·v|`, from each triangle's
//! world-space corners (the vertex stage's world positions).
//!
//! A chunk's triangles are shaded after its setup, from the records it
//! produced, four at a time: the same operations as `shade` on one
//! triangle, lane by lane (IEEE `+ − × ÷ √` round alike in SSE lanes and
//! scalar code, and Rust never fuses them), so every color is bit for bit
//! the one `shade` gives. Done inline after each triangle's setup, the
//! two square roots and two divisions of the normalizations waited on each
//! other and on the world-position loads; batched, the four triangles'
//! chains overlap.

use glam::{BVec4A, Vec3, Vec4};

use super::setup::{SmallTri, TriSetup};
use crate::camera::Camera;
use crate::scene::Scene;

/// Flat two-sided Lambert with a headlight: `0.25 + 0.75·|n·v|`, from the
/// triangle's world-space corners (the reference of [`Shader::shade4`]).
#[cfg(test)]
pub(crate) fn shade(color: [u8; 3], p: [Vec3; 3], cam: &Camera) -> u32 {
    let scaled = |v: Vec3| v * pow2_inverse(v.x.abs().max(v.y.abs()).max(v.z.abs()));
    let n = scaled(p[1] - p[0])
        .cross(scaled(p[2] - p[0]))
        .normalize_or_zero();
    let v = if cam.projection.is_perspective() {
        scaled(cam.eye - p[0]).normalize_or_zero()
    } else {
        (cam.eye - cam.target).normalize_or_zero()
    };
    let k = 0.25 + 0.75 * n.dot(v).abs();
    pack(color, k)
}

/// Vectors whose largest magnitude lies in `[1 / UNSCALED, UNSCALED)`
/// are normalized as they are: their squared lengths and those of the
/// cross products of two of them cannot overflow (nor underflow, unless
/// nearly degenerate).
const UNSCALED: f32 = 65_536.0;

/// 1 for a vector's largest magnitude `m` in `[1 / UNSCALED, UNSCALED)`,
/// else a power of two `2^-e` that brings a finite, normal `m` into
/// [1, 4) (1 for zero, subnormal, infinite and NaN `m`). Scaling a vector
/// by it is exact, and so are the scaled cross and dot products up to
/// the same powers of two, so the normalized vector is bit for bit what
/// the unscaled one would be without overflow or underflow. Without it
/// the squared lengths overflowed for triangles about 10^19 wide and
/// underflowed below about 10^-19: their normal became zero, and they
/// were shaded at the ambient 0.25.
#[inline(always)]
fn pow2_inverse(m: f32) -> f32 {
    let e = (m.to_bits() >> 23) & 0xFF;
    if (1.0 / UNSCALED..UNSCALED).contains(&m) || e == 0 || e == 255 {
        1.0
    } else {
        // exponent field 254 - e is 2^(127 - e); for e = 254 (2^127 is
        // not a normal scale) 2^-126 is used, which gives [2, 4)
        f32::from_bits((254 - e.min(253)) << 23)
    }
}

/// The color `color · k`, each channel rounded, as 0x00RRGGBB.
#[cfg(test)]
fn pack(color: [u8; 3], k: f32) -> u32 {
    let c = color.map(|x| round_channel(f32::from(x) * k));
    (c[0] << 16) | (c[1] << 8) | c[2]
}

/// `x.round().clamp(0.0, 255.0) as u32` for `x >= 0` (and 0 for NaN), without
/// the libm call `f32::round` compiles to on SSE2: for `x >= 0` truncation is
/// the floor, `x - floor(x)` is exact, and a fraction of one half rounds up
/// (away from zero), as `round` does. (The reference of [`round_channels`].)
#[cfg(test)]
fn round_channel(x: f32) -> u32 {
    let i = x as i32; // saturating; NaN gives 0
    let r = i + i32::from(x - i as f32 >= 0.5);
    r.clamp(0, 255) as u32
}

/// Three coordinates of four triangles' corner (or vector), one lane each.
#[derive(Clone, Copy)]
struct Vec3x4 {
    x: Vec4,
    y: Vec4,
    z: Vec4,
}

impl Vec3x4 {
    #[inline(always)]
    fn sub(self, o: Vec3x4) -> Vec3x4 {
        Vec3x4 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }

    /// `Vec3::cross`, lane by lane (the same products and differences).
    #[inline(always)]
    fn cross(self, r: Vec3x4) -> Vec3x4 {
        Vec3x4 {
            x: self.y * r.z - r.y * self.z,
            y: self.z * r.x - r.z * self.x,
            z: self.x * r.y - r.x * self.y,
        }
    }

    /// `Vec3::dot`, lane by lane: `(x·x') + (y·y') + (z·z')`.
    #[inline(always)]
    fn dot(self, r: Vec3x4) -> Vec4 {
        (self.x * r.x) + (self.y * r.y) + (self.z * r.z)
    }

    /// `Vec3::normalize_or_zero`, lane by lane: times `1 / sqrt(dot)` where
    /// that is finite and positive, else zero.
    #[inline(always)]
    fn normalize_or_zero(self) -> Vec3x4 {
        let rcp = Vec4::ONE / self.dot(self).sqrt();
        let ok: BVec4A = rcp.is_finite_mask() & rcp.cmpgt(Vec4::ZERO);
        let z = Vec4::ZERO;
        Vec3x4 {
            x: Vec4::select(ok, self.x * rcp, z),
            y: Vec4::select(ok, self.y * rcp, z),
            z: Vec4::select(ok, self.z * rcp, z),
        }
    }

    /// The largest magnitude of each lane's vector.
    #[inline(always)]
    fn max_abs(self) -> Vec4 {
        self.x.abs().max(self.y.abs()).max(self.z.abs())
    }

    /// Times [`pow2_inverse`] of each lane's largest magnitude `m`.
    #[cold]
    #[inline(never)]
    fn scaled(self, m: Vec4) -> Vec3x4 {
        let m = m.to_array();
        let k = Vec4::new(
            pow2_inverse(m[0]),
            pow2_inverse(m[1]),
            pow2_inverse(m[2]),
            pow2_inverse(m[3]),
        );
        Vec3x4 {
            x: self.x * k,
            y: self.y * k,
            z: self.z * k,
        }
    }

    #[inline(always)]
    fn splat(v: Vec3) -> Vec3x4 {
        Vec3x4 {
            x: Vec4::splat(v.x),
            y: Vec4::splat(v.y),
            z: Vec4::splat(v.z),
        }
    }
}

/// A set-up triangle record that carries a flat color.
pub(crate) trait Shaded {
    /// Global triangle index.
    fn id(&self) -> u32;
    fn set_color(&mut self, c: u32);
}

/// Both record forms carry their triangle's id and color in the same fields.
macro_rules! shaded {
    ($($t:ty),*) => {$(
        impl Shaded for $t {
            #[inline(always)]
            fn id(&self) -> u32 {
                self.id
            }
            #[inline(always)]
            fn set_color(&mut self, c: u32) {
                self.color = c;
            }
        }
    )*};
}
shaded!(TriSetup, SmallTri);

/// The shading of one render: the scene, its world positions (as the
/// vertex stage wrote them, mesh `m`'s from `offsets[m]`) and the view.
pub(crate) struct Shader<'a> {
    pub scene: &'a Scene,
    pub offsets: &'a [u32],
    pub world_pos: &'a [Vec3],
    pub camera: &'a Camera,
}

impl Shader<'_> {
    /// Colors every record of `recs` (in increasing triangle order, as a
    /// chunk's setup produces them) from its triangle, four at a time.
    pub(crate) fn shade_records<T: Shaded>(&self, recs: &mut [T]) {
        let Some(first) = recs.first() else {
            return;
        };
        // the mesh of the current record (ids only grow)
        let offs = self.scene.triangle_offsets();
        let mut m = offs.partition_point(|&o| o <= first.id()).saturating_sub(1);
        let mut groups = recs.chunks_exact_mut(4);
        for g in &mut groups {
            let t = [
                self.corners(&mut m, g[0].id()),
                self.corners(&mut m, g[1].id()),
                self.corners(&mut m, g[2].id()),
                self.corners(&mut m, g[3].id()),
            ];
            let c = self.shade4(t);
            for (r, c) in g.iter_mut().zip(c) {
                r.set_color(c);
            }
        }
        let rest = groups.into_remainder();
        if let Some(first) = rest.first() {
            // the remainder, padded with its first triangle
            let mut t = [self.corners(&mut m, first.id()); 4];
            for (k, r) in rest.iter().enumerate().skip(1) {
                t[k] = self.corners(&mut m, r.id());
            }
            let c = self.shade4(t);
            for (r, c) in rest.iter_mut().zip(c) {
                r.set_color(c);
            }
        }
    }

    /// The world-space corners and the mesh color of global triangle `id`;
    /// `m` is a mesh at or before its own, advanced to it (meshes without
    /// triangles are passed over: their range is empty).
    #[inline(always)]
    fn corners(&self, m: &mut usize, id: u32) -> ([Vec3; 3], [u8; 3]) {
        let offs = self.scene.triangle_offsets();
        while *m + 2 < offs.len() && offs[*m + 1] <= id {
            *m += 1;
        }
        let mesh = &self.scene.meshes()[*m];
        let tri = mesh.triangles()[(id - offs[*m]) as usize];
        let base = self.offsets[*m] as usize;
        let wp = &self.world_pos[base..];
        (
            [
                wp[tri[0] as usize],
                wp[tri[1] as usize],
                wp[tri[2] as usize],
            ],
            mesh.color(),
        )
    }

    /// `shade` for four triangles (corners, mesh color), lane by lane.
    #[inline(always)]
    fn shade4(&self, t: [([Vec3; 3], [u8; 3]); 4]) -> [u32; 4] {
        let corner = |v: usize| Vec3x4 {
            x: Vec4::new(t[0].0[v].x, t[1].0[v].x, t[2].0[v].x, t[3].0[v].x),
            y: Vec4::new(t[0].0[v].y, t[1].0[v].y, t[2].0[v].y, t[3].0[v].y),
            z: Vec4::new(t[0].0[v].z, t[1].0[v].z, t[2].0[v].z, t[3].0[v].z),
        };
        let p0 = corner(0);
        let (mut e1, mut e2) = (corner(1).sub(p0), corner(2).sub(p0));
        let cam = self.camera;
        let perspective = cam.projection.is_perspective();
        let mut to_eye = if perspective {
            Vec3x4::splat(cam.eye).sub(p0)
        } else {
            Vec3x4::splat(Vec3::ZERO)
        };
        // each vector times `pow2_inverse` of its largest magnitude, which
        // is 1 for all of them in the usual case, tested at once
        let (m1, m2) = (e1.max_abs(), e2.max_abs());
        // (an orthographic view's direction is not scaled)
        let m3 = if perspective { to_eye.max_abs() } else { m1 };
        let (lo, hi) = (m1.min(m2).min(m3), m1.max(m2).max(m3));
        let usual = lo.cmpge(Vec4::splat(1.0 / UNSCALED)) & hi.cmplt(Vec4::splat(UNSCALED));
        if !usual.all() {
            (e1, e2, to_eye) = (e1.scaled(m1), e2.scaled(m2), to_eye.scaled(m3));
        }
        let n = e1.cross(e2).normalize_or_zero();
        let v = if perspective {
            to_eye.normalize_or_zero()
        } else {
            Vec3x4::splat((cam.eye - cam.target).normalize_or_zero())
        };
        let k = Vec4::splat(0.25) + Vec4::splat(0.75) * n.dot(v).abs();
        // per channel, the four lanes' `round_channel(c · k)`
        let channel = |ch: usize| {
            let c = Vec4::new(
                f32::from(t[0].1[ch]),
                f32::from(t[1].1[ch]),
                f32::from(t[2].1[ch]),
                f32::from(t[3].1[ch]),
            );
            round_channels(c * k)
        };
        let (r, g, b) = (channel(0), channel(1), channel(2));
        // (written out: `array::map` here compiled to an outlined call)
        let px = |l: usize| (r[l] << 16) | (g[l] << 8) | b[l];
        [px(0), px(1), px(2), px(3)]
    }
}

/// `round_channel` of four finite, non-negative values (products of a
/// channel and a shading factor, which are never NaN: the normalized
/// vectors are finite or zero): the truncation is the floor, `x - floor`
/// is exact, and the rounded, clamped value is a small integer, read from
/// the low bits of `value + 2^23`.
#[inline(always)]
fn round_channels(x: Vec4) -> [u32; 4] {
    let i = x.trunc();
    let up = (x - i).cmpge(Vec4::splat(0.5));
    let r = (i + Vec4::select(up, Vec4::ONE, Vec4::ZERO)).clamp(Vec4::ZERO, Vec4::splat(255.0));
    // (the low bits through the integer view of the lanes: `array::map`
    // here compiled to an outlined call)
    let bits = (r + Vec4::splat(8_388_608.0)).to_array();
    let low = |b: f32| b.to_bits() & 0xFF;
    [low(bits[0]), low(bits[1]), low(bits[2]), low(bits[3])]
}

#[cfg(test)]
mod tests {
    use glam::{Vec3, Vec4};

    use super::{round_channel, round_channels, shade, Shader};
    use crate::camera::{Camera, Projection};
    use crate::geometry::Aabb;
    use crate::scene::Scene;
    use crate::test_util::Rng;

    /// The shading's channel rounding equals `round().clamp(0, 255)` on
    /// every shaded value range (a stride through all f32 bit patterns of
    /// [0, 256], the halves and their neighbours), and NaN gives 0.
    #[test]
    fn channel_rounding_equals_round_and_clamp() {
        let reference = |x: f32| x.round().clamp(0.0, 255.0) as u32;
        let mut checked = 0;
        let top = 256.5f32.to_bits();
        let mut b = 0u32;
        while b <= top {
            let x = f32::from_bits(b);
            assert_eq!(round_channel(x), reference(x), "{x:e} ({b:#x})");
            b += 61;
            checked += 1;
        }
        for k in 0..=256 {
            let h = k as f32 + 0.5;
            for x in [
                h,
                f32::from_bits(h.to_bits() - 1),
                f32::from_bits(h.to_bits() + 1),
            ] {
                assert_eq!(round_channel(x), reference(x), "{x:e}");
            }
        }
        assert_eq!(round_channel(f32::NAN), 0);
        assert_eq!(reference(f32::NAN), 0);
        assert!(checked > 10_000_000, "{checked}");
        // the four-lane form on the range shading produces, [0, 256.5]
        let mut b = 0u32;
        while b <= top {
            let x = [0, 1, 2, 3].map(|k| f32::from_bits(b + 17 * k));
            let want = x.map(reference);
            assert_eq!(round_channels(Vec4::from_array(x)), want, "{x:?}");
            b += 67;
        }
        for k in 0..=256 {
            let h = k as f32 + 0.5;
            let x = [
                h,
                f32::from_bits(h.to_bits() - 1),
                f32::from_bits(h.to_bits() + 1),
                k as f32,
            ];
            assert_eq!(
                round_channels(Vec4::from_array(x)),
                x.map(reference),
                "{x:?}"
            );
        }
    }

    /// Every covered pixel of a color render has, bit for bit, the
    /// one-triangle shading of its triangle (found from the ID buffer):
    /// random scenes of many meshes (empty ones, placed, mirrored), seen
    /// from inside and near them (near-plane clipping: one triangle, many
    /// records), every projection, so records are mapped to their own
    /// triangle and mesh whatever the grouping by four. A pinhole camera
    /// shades as the perspective camera at its eye: the headlight is the
    /// direction to the eye for both.
    #[test]
    fn rendered_colors_are_each_triangles_shading() {
        use crate::scene::{Mesh, Transform};
        use crate::{RenderOptions, Renderer};
        use glam::Quat;
        let mut rng = Rng(0xc010_0f00);
        let mut r = Renderer::new(RenderOptions::default()).unwrap();
        let mut covered = 0;
        for round in 0..24 {
            let mut scene = Scene::new();
            for m in 0..1 + rng.below(12) {
                let n = if m % 5 == 3 { 0 } else { 1 + rng.below(60) };
                let c = rng.vec3(-3.0, 3.0);
                let pos: Vec<Vec3> = (0..3 * n).map(|_| c + rng.vec3(-1.0, 1.0)).collect();
                let tris = (0..n as u32)
                    .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
                    .collect();
                let color = [0; 3].map(|_| rng.below(256) as u8);
                let mesh = Mesh::new(format!("m{m}"), pos, tris, color).unwrap();
                let mut place = Transform::IDENTITY;
                if m % 3 == 1 {
                    place.rotation = Quat::from_axis_angle(rng.unit(), rng.range(0.0, 6.0));
                    place.scale = rng.vec3(0.5, 1.5) * Vec3::new(-1.0, 1.0, 1.0);
                }
                scene.add_mesh(mesh, place, None);
            }
            let mut cam = Camera::auto_frame(&scene.bounds(), 96, 64);
            cam.eye = rng.vec3(-5.0, 5.0); // often among the triangles
            let perspective = cam;
            if round % 4 == 3 {
                cam.projection = Projection::Orthographic { height: 8.0 };
            } else if round % 4 == 1 {
                cam.projection = Projection::Pinhole {
                    fx: 70.0,
                    fy: 55.0,
                    cx: 40.0,
                    cy: 35.0,
                    skew: 3.0,
                };
            }
            // (the reference of a pinhole camera is the perspective one)
            let reference_cam = if matches!(cam.projection, Projection::Pinhole { .. }) {
                perspective
            } else {
                cam
            };
            let f = r.render(&scene, &cam).unwrap();
            for (k, &id) in f.ids().iter().enumerate() {
                let Some((m, t)) = id.checked_sub(1).and_then(|g| scene.locate(g)) else {
                    continue;
                };
                let mesh = &scene.meshes()[m as usize];
                let world = scene.mesh_world(m);
                let p = mesh.triangles()[t as usize]
                    .map(|i| world.transform_point3(mesh.positions()[i as usize]));
                assert_eq!(
                    f.color()[k],
                    shade(mesh.color(), p, &reference_cam),
                    "round {round} px {k}"
                );
                covered += 1;
            }
        }
        assert!(covered > 10_000, "{covered}");
    }

    /// A triangle and the eye scaled together by a power of two, from
    /// 2^-100 to 2^120 (corners from about 10^-33 to 10^36), shade bit for
    /// bit as at scale 1, in both forms: the normals of triangles wider
    /// than about 10^19 overflowed (and below 10^-19 underflowed) to zero,
    /// which shaded them at the ambient 0.25.
    #[test]
    fn shading_does_not_depend_on_scale() {
        let mut rng = Rng(0x5ca1_e002);
        let scene = Scene::new();
        let bounds = Aabb {
            min: Vec3::splat(-1.0),
            max: Vec3::splat(1.0),
        };
        let mut lit = 0;
        for round in 0..100 {
            let mut cam = Camera::auto_frame(&bounds, 64, 48);
            cam.eye = rng.vec3(-5.0, 5.0);
            let t: [([Vec3; 3], [u8; 3]); 4] = std::array::from_fn(|_| {
                (
                    [0; 3].map(|_| rng.vec3(-1.0, 1.0)),
                    [0; 3].map(|_| rng.below(256) as u8),
                )
            });
            let want = t.map(|(p, c)| shade(c, p, &cam));
            // not all ambient: the lit term counts
            lit += t
                .iter()
                .zip(want)
                .filter(|((_, c), w)| *w != shade(*c, [Vec3::ZERO; 3], &cam))
                .count();
            for e in (-100..=120).step_by(10) {
                let s = 2f32.powi(e);
                let mut far = cam;
                far.eye = cam.eye * s;
                let ts = t.map(|(p, c)| (p.map(|q| q * s), c));
                for (k, (p, c)) in ts.iter().enumerate() {
                    assert_eq!(shade(*c, *p, &far), want[k], "round {round} 2^{e} {k}");
                }
                let shader = Shader {
                    scene: &scene,
                    offsets: &[],
                    world_pos: &[],
                    camera: &far,
                };
                assert_eq!(shader.shade4(ts), want, "round {round} 2^{e}");
            }
        }
        assert!(lit > 300, "{lit}");
    }

    /// Four triangles at a time give, bit for bit, the one-triangle
    /// shading: random corners over many magnitudes, degenerate
    /// (collinear, repeated, zero-length) triangles, corners at the eye,
    /// infinite and NaN coordinates (the normalized vectors are then zero,
    /// so the lanes' rounding still sees finite values),
    /// both projections, random mesh colors.
    #[test]
    fn four_lanes_equal_one_triangle() {
        let mut rng = Rng(0x5ade_0004);
        let scene = Scene::new();
        let mut checked = 0;
        for round in 0..400 {
            let bounds = Aabb {
                min: Vec3::splat(-1.0),
                max: Vec3::splat(1.0),
            };
            let mut cam = Camera::auto_frame(&bounds, 64, 48);
            cam.eye = rng.vec3(-20.0, 20.0);
            if round % 3 == 0 {
                cam.projection = Projection::Orthographic { height: 3.0 };
            }
            let scale = [1e-6, 1e-3, 1.0, 1e3, 1e6][round % 5];
            let mut tri = |k: usize| -> ([Vec3; 3], [u8; 3]) {
                let mut p = [0; 3].map(|_| rng.vec3(-1.0, 1.0) * scale);
                match k % 9 {
                    0 => p[2] = p[1],                       // repeated corner
                    1 => p[2] = p[0] + (p[1] - p[0]) * 0.5, // collinear
                    2 => p[0] = cam.eye,                    // at the eye
                    3 => p = [p[0]; 3],                     // a point
                    4 => p[1].x = f32::INFINITY,            // overflowed
                    5 => p[0].y = f32::NAN,
                    _ => {}
                }
                let c = [0; 3].map(|_| rng.below(256) as u8);
                (p, c)
            };
            let t = [tri(round), tri(round + 1), tri(round + 3), tri(round + 5)];
            let shader = Shader {
                scene: &scene,
                offsets: &[],
                world_pos: &[],
                camera: &cam,
            };
            let got = shader.shade4(t);
            for (k, (p, c)) in t.iter().enumerate() {
                assert_eq!(got[k], shade(*c, *p, &cam), "round {round} lane {k}: {p:?}");
                checked += 1;
            }
        }
        assert_eq!(checked, 1600);
    }
}
