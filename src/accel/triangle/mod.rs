//! Watertight ray–triangle intersection.
//!
//! Implements Woop, Benthin & Wald, "Watertight Ray/Triangle Intersection"
//! (JCGT 2(1), 2013). The ray is transformed once ([`RayPrecomp::new`]) into a
//! sheared, axis-permuted space in which it starts at the origin and points
//! along +z; each triangle is then tested with three 2D edge functions
//! `U`, `V`, `W`. Their signs are exact (single-precision rounding is
//! monotonic, and a zero result is recomputed exactly in double precision), and
//! a shared edge is evaluated from the same transformed vertices for both of
//! its triangles, so a ray through a shared edge or vertex of a closed mesh hits
//! at least one of the triangles around it (it may hit several).
//!
//! Far corners: when a triangle's corners lie much farther along the ray
//! than the hit (a ground seen from just above it), single precision loses
//! the origin against them and with it `t`; such a hit's `t`,
//! barycentrics and facing are recomputed in double precision from the ray
//! and the corners (the crossing itself stays the single-precision
//! decision, so shared edges stay watertight), also where the corners lie
//! so far that their weighted distances overflow single precision (a
//! ground about 10^15 units wide seen from a few units above it). A
//! triangle whose edge functions themselves overflow (about 10^19 units
//! across) has its crossing decided in double precision from the sheared
//! corners, and its far corners then refined the same way, before `t` is
//! held against the range.
//!
//! Conventions:
//! * `t` is measured in units of the direction passed to [`RayPrecomp::new`]
//!   (which is not normalized): the hit point is `origin + t * dir`.
//! * A hit is accepted when `t_min <= t <= t_max` (both ends inclusive), where
//!   `t` is the returned value. Rejections made before the division use a small
//!   safety margin, so an intersection whose returned `t` would lie in the range
//!   is never dropped; in particular, re-testing with `t_max` set to a previous
//!   hit's `t` still reports a hit at exactly that `t` (a BVH can shrink `t_max`
//!   and break ties exactly).
//! * Barycentrics: `bary.x * v0 + bary.y * v1 + bary.z * v2` is the hit point,
//!   i.e. `bary = (w, u, v)` with `w = 1 - u - v` in the usual `(u, v)` naming.
//! * Facing: `(v0, v1, v2)` is front-facing when the ray sees it
//!   counter-clockwise, i.e. `dot(dir, (v1 - v0).cross(v2 - v0)) < 0`.

//!
//! The files: this one holds the ray's precomputation ([`RayPrecomp`]) and
//! the hit ([`TriHit`]); `watertight.rs` the one-ray test ([`intersect`])
//! and its exact double-precision completions; `pack.rs` the same test on
//! four and eight triangles at once, lane by lane, for the BVH walks.

mod pack;
mod watertight;

use glam::{BVec3A, Vec3, Vec3A};

pub(crate) use pack::{Pack4Ray, Pack8Ray, TriPack};
pub use watertight::intersect;

/// The first-hit order of every query: does a hit at distance `t` of
/// triangle (or mesh) `id` come before `best` (its id and distance), being
/// nearer, or as near with a lower id?
#[inline(always)]
pub(crate) fn precedes(id: u32, t: f32, best: Option<(u32, f32)>) -> bool {
    best.is_none_or(|(bid, bt)| t < bt || (t == bt && id < bid))
}

/// A ray–triangle intersection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriHit {
    /// Ray parameter of the hit: the hit point is `origin + t * dir`, with `dir`
    /// as given to [`RayPrecomp::new`] (not normalized).
    pub t: f32,
    /// Barycentric weights of `(v0, v1, v2)`: the hit point is
    /// `bary.x * v0 + bary.y * v1 + bary.z * v2`. In the common `(u, v)` naming
    /// this is `(w, u, v)` with `w = 1 - u - v`. All components are `>= 0` and
    /// they sum to 1 up to rounding.
    pub bary: Vec3,
    /// `true` when the ray sees `(v0, v1, v2)` counter-clockwise, i.e.
    /// `dot(dir, (v1 - v0).cross(v2 - v0)) < 0`.
    pub front: bool,
}

/// Per-ray precomputation for `intersect` and for BVH slab tests.
///
/// Immutable once built (the fields are private so that they stay
/// consistent). Holds the axis permutation `kx, ky, kz` (`kz` = axis of the largest
/// `|dir|` component; `kx`/`ky` swapped when `dir[kz] < 0` to preserve
/// winding), the shear constants `Sx = dir[kx]/dir[kz]`, `Sy = dir[ky]/dir[kz]`,
/// `Sz = 1/dir[kz]` (folded into three row vectors, see `intersect`), and
/// the componentwise reciprocal direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayPrecomp {
    origin: Vec3,
    dir: Vec3,
    inv_dir: Vec3,
    /// `[kx, ky, kz]`.
    axes: [u8; 3],
    /// `(Sx, Sy, Sz)`.
    shear: Vec3,
    /// The shear as rows: `e_kx - Sx e_kz`, `e_ky - Sy e_kz`, `Sz e_kz`.
    rows: [Vec3A; 3],
    /// See [`RayPrecomp::is_valid`].
    valid: bool,
}

impl RayPrecomp {
    /// Precomputes the ray `origin + t * dir`.
    ///
    /// A zero or non-finite `dir`, or a non-finite `origin`, gives a ray that
    /// never hits anything (see [`RayPrecomp::is_valid`]).
    #[inline(always)]
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        let a = dir.abs();
        // (kx, ky, kz): kz is the dominant axis (the lower one on ties); kx,
        // ky cyclic after it, swapped when dir[kz] < 0 to keep the winding.
        // Chosen without branches (a random ray's permutation is a branch
        // predicted wrong five times in six): index arithmetic, and the
        // rows from lane masks, each lane the very sum the per-permutation
        // code makes ([`RayPrecomp::permuted`] in the tests).
        let x_dom = a.x >= a.y && a.x >= a.z;
        let kz = usize::from(!x_dom) * (1 + usize::from(!(a.y >= a.z)));
        let d = dir.to_array()[kz];
        // (constant tables, read from memory: a local array or a lane
        // index converted to a float is rebuilt for every ray)
        const NEXT: [usize; 3] = [1, 2, 0];
        const AFTER: [usize; 3] = [2, 0, 1];
        const LANE: [BVec3A; 3] = [
            BVec3A::new(true, false, false),
            BVec3A::new(false, true, false),
            BVec3A::new(false, false, true),
        ];
        let (c1, c2) = (NEXT[kz], AFTER[kz]);
        let neg = d < 0.0;
        let (kx, ky) = if neg { (c2, c1) } else { (c1, c2) };
        let unit = |k: usize, s: f32| Vec3A::select(LANE[k], Vec3A::splat(s), Vec3A::ZERO);
        Self::with_axes(origin, dir, [kx, ky, kz], d, unit)
    }

    /// The ray with the axis permutation `[kx, ky, kz]` (`d = dir[kz]`),
    /// its shear rows built by `unit(k, s)` (`s` in lane `k`, zero in the
    /// others): the part [`RayPrecomp::new`] and its per-permutation
    /// reference (`RayPrecomp::permuted`, in the tests) share.
    #[inline(always)]
    fn with_axes(
        origin: Vec3,
        dir: Vec3,
        [kx, ky, kz]: [usize; 3],
        d: f32,
        unit: impl Fn(usize, f32) -> Vec3A,
    ) -> Self {
        let dir_a = dir.to_array();
        let valid = d != 0.0 && dir.is_finite() && origin.is_finite();
        // (Sx, Sy, Sz); an invalid ray gets NaN, which makes every edge
        // function NaN, which `intersect` rejects.
        let shear = if valid {
            Vec3::from(Vec3A::new(dir_a[kx], dir_a[ky], 1.0) / Vec3A::splat(d))
        } else {
            Vec3::NAN
        };
        let rows = [
            unit(kx, 1.0) + unit(kz, -shear.x),
            unit(ky, 1.0) + unit(kz, -shear.y),
            unit(kz, shear.z),
        ];
        RayPrecomp {
            origin,
            dir,
            inv_dir: Vec3A::from(dir).recip().into(),
            axes: [kx as u8, ky as u8, kz as u8],
            shear,
            rows,
            valid,
        }
    }

    /// [`RayPrecomp::new`] written per permutation `(KX, KY, KZ)` with
    /// constant indices (`d = dir[KZ]`), its rows built by indexing rather
    /// than lane masks: the tests' reference.
    #[cfg(test)]
    pub(crate) fn permuted<const KX: usize, const KY: usize, const KZ: usize>(
        origin: Vec3,
        dir: Vec3,
        d: f32,
    ) -> Self {
        let unit = |k: usize, s: f32| {
            let mut v = [0.0; 3];
            v[k] = s;
            Vec3A::from_array(v)
        };
        Self::with_axes(origin, dir, [KX, KY, KZ], d, unit)
    }

    /// The per-permutation reference of [`RayPrecomp::new`] (the match it
    /// replaced).
    #[cfg(test)]
    pub(crate) fn by_permutation(origin: Vec3, dir: Vec3) -> Self {
        let a = dir.abs();
        let (kz, d) = if a.x >= a.y && a.x >= a.z {
            (0, dir.x)
        } else if a.y >= a.z {
            (1, dir.y)
        } else {
            (2, dir.z)
        };
        match (kz, d < 0.0) {
            (0, false) => Self::permuted::<1, 2, 0>(origin, dir, d),
            (0, true) => Self::permuted::<2, 1, 0>(origin, dir, d),
            (1, false) => Self::permuted::<2, 0, 1>(origin, dir, d),
            (1, true) => Self::permuted::<0, 2, 1>(origin, dir, d),
            (_, false) => Self::permuted::<0, 1, 2>(origin, dir, d),
            (_, true) => Self::permuted::<1, 0, 2>(origin, dir, d),
        }
    }

    /// Ray origin.
    pub fn origin(&self) -> Vec3 {
        self.origin
    }

    /// `1.0 / dir` per component (`±inf` for `±0` components), for slab
    /// tests such as [`crate::geometry::Aabb::ray_interval`].
    pub fn inv_dir(&self) -> Vec3 {
        self.inv_dir
    }

    /// `true` when the origin and direction are finite and the direction is
    /// non-zero; an invalid ray never hits.
    #[inline(always)]
    pub fn is_valid(&self) -> bool {
        // (computed once, by `new`: `dir[kz] != 0` is `dir != 0` for a
        // finite `dir`)
        self.valid
    }

    /// The axis permutation `[kx, ky, kz]`.
    pub fn axes(&self) -> [usize; 3] {
        self.axes.map(usize::from)
    }

    /// The shear constants `(Sx, Sy, Sz)` (NaN for an invalid ray).
    #[cfg(test)]
    pub fn shear(&self) -> Vec3 {
        self.shear
    }
}

#[cfg(test)]
mod tests;
