//! Geometry shared by every layer: boxes ([`Aabb`]) and their one ray–box
//! slab test, rays ([`Ray`]), face culling ([`CullMode`]) and triangle
//! planes. Plain values on glam types; nothing here knows about scenes,
//! frames or picks.

use crate::error::Error;
use glam::{DVec3, Vec3, Vec3A, Vec4};

/// A ray in world space: points `origin + t * direction`, `t >= 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Start point.
    pub origin: Vec3,
    /// Direction (unit length when made by a camera).
    pub direction: Vec3,
}

impl Ray {
    /// A ray from `origin` along `direction`.
    #[must_use]
    pub fn new(origin: Vec3, direction: Vec3) -> Self {
        Self { origin, direction }
    }

    /// The point at parameter `t`.
    #[must_use]
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.direction * t
    }

    /// The length of `direction`: world units per unit of `t`, so a hit's
    /// distance is `t * ray.direction_length()`.
    ///
    /// `direction.length()` squares the coordinates in `f32`, which
    /// overflows when the largest one is above about 1.8·10^19 and
    /// underflows to 0 below about 10^-19, and a ray would then hit
    /// nothing. Outside `10^-18 ..= 10^18` this sums the squares in `f64`
    /// instead (an `f32` squared is exact in `f64`, with no overflow or
    /// underflow), so any finite, non-zero direction has its length;
    /// inside that range it is `direction.length()`, bit for bit.
    ///
    /// ```
    /// use glam::Vec3;
    /// use softpick::Ray;
    /// let r = Ray::new(Vec3::ZERO, Vec3::new(3e30, 0.0, 4e30));
    /// assert_eq!(r.direction_length(), 5e30);
    /// assert_eq!(Ray::new(Vec3::ZERO, Vec3::new(3.0, 0.0, 4.0)).direction_length(), 5.0);
    /// ```
    #[must_use]
    pub fn direction_length(&self) -> f32 {
        let d = self.direction;
        if (1.0e-18..=1.0e18).contains(&d.abs().max_element()) {
            d.length()
        } else {
            // zero stays 0, NaN stays NaN, infinity stays infinite
            d.as_dvec3().length() as f32
        }
    }
}

/// Axis-aligned bounding box. Empty boxes have `min > max` (see [`Aabb::empty`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Minimum corner.
    pub min: Vec3,
    /// Maximum corner.
    pub max: Vec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::empty()
    }
}

impl Aabb {
    /// The empty box (`min = +inf`, `max = -inf`): the identity of
    /// [`Aabb::union`] and [`Aabb::grow`].
    pub fn empty() -> Self {
        Aabb {
            min: Vec3::INFINITY,
            max: Vec3::NEG_INFINITY,
        }
    }

    /// `true` when the box contains no point (some `min > max`, or NaN).
    pub fn is_empty(&self) -> bool {
        !(self.min.cmple(self.max).all())
    }

    /// Extends the box to contain `p`.
    pub fn grow(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    /// The smallest box containing both boxes.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// `true` when `other` lies inside this box (boundaries included). An empty
    /// `other` is contained in anything.
    pub fn contains(&self, other: &Aabb) -> bool {
        other.is_empty() || (self.min.cmple(other.min).all() && other.max.cmple(self.max).all())
    }

    /// Surface area (`0` for an empty box).
    pub fn surface_area(&self) -> f32 {
        if self.is_empty() {
            return 0.0;
        }
        let d = self.max - self.min;
        2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
    }

    /// Center point (computed without overflow for huge coordinates).
    pub fn centroid(&self) -> Vec3 {
        self.min * 0.5 + self.max * 0.5
    }

    /// Slab test: the parameter interval `(enter, exit)` over which the ray
    /// `origin + t * dir` (with `inv_dir = 1 / dir` componentwise) is inside
    /// the closed box, clipped to `[t_min, t_max]`, or `None` when that is
    /// empty.
    ///
    /// * Zero direction components (`inv_dir = ±inf`) are handled exactly: the
    ///   ray is inside that slab for all `t` iff the origin coordinate lies
    ///   within it, boundary included (no `0 * inf = NaN` leaks).
    /// * A ray starting inside the box gets `enter = t_min` (clamped).
    /// * An empty box never intersects.
    /// * The exit distance is rounded outward by a few ulps, so the test is
    ///   conservative: a ray that meets the box (including touching it at a
    ///   face, edge or corner, or a zero-thickness box) is never rejected
    ///   because of rounding.
    pub fn ray_interval(
        &self,
        origin: Vec3,
        inv_dir: Vec3,
        t_min: f32,
        t_max: f32,
    ) -> Option<(f32, f32)> {
        if self.is_empty() {
            return None;
        }
        let (near, far) = slab::<true>(
            Vec3A::from(self.min),
            Vec3A::from(self.max),
            Vec3A::from(origin),
            Vec3A::from(inv_dir),
            t_min,
            t_max,
        );
        (near <= far).then_some((near, far))
    }
}

/// Relative outward rounding of the slab exit distance; covers the `2*gamma(3)`
/// bound of Ize, "Robust BVH Ray Traversal" (JCGT 2013), with margin. The
/// mesh walks' fast box tests scale the inverse direction by it instead
/// (entries rounded down, exits up).
pub(crate) const FAR_SLACK: f32 = 1.0 / 1048576.0;

/// Relative slack when pruning boxes against the current closest hit, so
/// that rounding in the box tests can never hide an equal-distance hit
/// (tie-breaking): the mesh and top-level walks skip a box only when its
/// entry lies beyond [`prune_bound`] of the closest hit.
pub(crate) const PRUNE_SLACK: f32 = 1.0 / 65536.0;

/// The box pruning bound of a closest hit at `t`: `t` plus
/// [`PRUNE_SLACK`] of it, for the mesh and top-level walks alike.
#[inline(always)]
pub(crate) fn prune_bound(t: f32) -> f32 {
    t + t.abs() * PRUNE_SLACK
}

/// The distance at which the ray `o + t * dir` (`inv = 1 / dir` per
/// component) enters the box `[min, max]` as the mesh walks' box tests
/// compute it, before the range start is taken: the larger of the generic
/// test's entry ([`slab`] with zero components) and, for a finite `inv`,
/// the fast test's (the entry plane of each axis by the direction's sign,
/// through the inverse direction scaled down by [`FAR_SLACK`]). Both
/// tests' entries only grow as the box shrinks (subtraction and
/// multiplication round monotonically), so no box holding `[min, max]` is
/// entered later than this by either test: a hit at or beyond it is never
/// pruned by a walk that has found one nearer (ties included).
pub(crate) fn box_entry(min: Vec3, max: Vec3, o: Vec3, inv: Vec3) -> f32 {
    let (o3, inv3) = (Vec3A::from(o), Vec3A::from(inv));
    let inf = f32::INFINITY;
    let (generic, _) = slab::<true>(min.into(), max.into(), o3, inv3, -inf, inf);
    if !inv.is_finite() {
        return generic;
    }
    let mut fast = -inf;
    for a in 0..3 {
        let plane = if inv[a] < 0.0 { max[a] } else { min[a] };
        let n = (plane - o[a]) * (inv[a] * (1.0 - FAR_SLACK));
        fast = if fast > n { fast } else { n };
    }
    if generic > fast {
        generic
    } else {
        fast
    }
}

/// A slab exit distance rounded outward by [`FAR_SLACK`] (whatever its sign),
/// as [`slab`] and the walks' multi-box tests do.
#[inline(always)]
pub(crate) fn far_out(far: f32) -> f32 {
    (far * (1.0 + FAR_SLACK)).max(far * (1.0 - FAR_SLACK))
}

/// [`far_out`] per lane (the same operations).
#[inline(always)]
pub(crate) fn far_out4(far: Vec4) -> Vec4 {
    (far * (1.0 + FAR_SLACK)).max(far * (1.0 - FAR_SLACK))
}

/// The one scalar ray–box slab test: the entry and exit distances
/// `(near, far)` of the ray `o + t * dir` (`inv = 1 / dir` per component)
/// through the box `[min, max]`, clipped to `[t_min, t_max]`; `near <= far`
/// means a hit. The exit is rounded outward by [`far_out`], so the test is
/// conservative (see [`Aabb::ray_interval`]).
///
/// `ZEROS`: `inv` may have infinite components (zero direction
/// components), and the `0 * inf = NaN` of a ray running within a slab
/// plane is replaced so that the slab does not constrain `t`. With
/// `ZEROS = false` the caller guarantees every `inv` component is finite
/// (no NaN can arise).
///
/// [`Aabb::ray_interval`] (any box and ray) and the top-level BVH's one-box
/// test call it. The walks' multi-box tests (a node's children against one
/// ray, or one box against several rays) make its operations per lane and
/// say so, except the mesh walks' fast tests (finite `inv`, `t_min >= 0`),
/// which round through the scaled inverse direction instead (see
/// [`FAR_SLACK`]).
#[inline(always)]
pub(crate) fn slab<const ZEROS: bool>(
    min: Vec3A,
    max: Vec3A,
    o: Vec3A,
    inv: Vec3A,
    t_min: f32,
    t_max: f32,
) -> (f32, f32) {
    let mut lo = (min - o) * inv;
    let mut hi = (max - o) * inv;
    if ZEROS {
        // 0 * inf: the origin sits on that slab plane and the ray runs within
        // it. Replace the NaN so the slab does not constrain t: for the `min`
        // plane the NaN must act as the `-inf` end when inv > 0 and the `+inf`
        // end when inv < 0, i.e. as `-inv`; for the `max` plane as `+inv`.
        lo = Vec3A::select(lo.is_nan_mask(), -inv, lo);
        hi = Vec3A::select(hi.is_nan_mask(), inv, hi);
    }
    let near = lo.min(hi).max_element().max(t_min);
    let far_raw = lo.max(hi).min_element();
    let far = far_out(far_raw).min(t_max);
    (near, far)
}

/// Which faces to drop. Front faces are counter-clockwise in GL's y-up NDC
/// (= negative snapped area in softpick's y-down screen space); for rays, a
/// triangle (v0,v1,v2) is front-facing when the ray sees it counter-clockwise,
/// i.e. `dot(dir, (v1-v0).cross(v2-v0)) < 0`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CullMode {
    /// Keep both faces (default: what is seen is what is picked).
    #[default]
    None,
    /// Drop back faces.
    Back,
    /// Drop front faces.
    Front,
}

impl CullMode {
    /// Command-line name (`none`, `back`, `front`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CullMode::None => "none",
            CullMode::Back => "back",
            CullMode::Front => "front",
        }
    }

    /// True when a face with the given facing is kept.
    #[inline]
    #[must_use]
    pub fn keeps(self, front: bool) -> bool {
        match self {
            CullMode::None => true,
            CullMode::Back => front,
            CullMode::Front => !front,
        }
    }
}

/// User clip planes: world-space half-spaces `n · p + d >= 0` (a plane
/// `[nx, ny, nz, d]`) that renders and ray queries keep, as three.js's
/// `clippingPlanes` do: what lies on a plane's negative side is cut away,
/// and a ray goes on to what is behind the cut. Some planes apply to every
/// mesh, and each mesh may have its own besides (three.js's
/// `material.clippingPlanes`); at most [`MAX_CLIP_PLANES`] apply to a mesh.
///
/// What a mesh keeps is the intersection of its half-spaces, a convex
/// region, so it cuts a ray to one interval of its parameter: a ray query
/// narrows each ray's near and far distances to it, mesh by mesh, and
/// finds the nearest hit in the rest; a render clips each triangle that
/// crosses a plane, as it clips against the near plane. The two agree
/// away from the cut edges (at a cut edge a pixel's ray and the clipped
/// triangle's snapped edge may disagree by a rounding).
///
/// ```
/// use softpick::ClipPlanes;
/// // keep y <= 1 everywhere, and x >= 0 for mesh 2 only
/// let clip = ClipPlanes::new(&[[0.0, -1.0, 0.0, 1.0]])?.with_mesh(2, &[[1.0, 0.0, 0.0, 0.0]])?;
/// assert_eq!(clip.planes_of(2).count(), 2);
/// assert_eq!(clip.planes_of(0).count(), 1);
/// # Ok::<(), softpick::Error>(())
/// ```
///
/// [`MAX_CLIP_PLANES`]: crate::limits::MAX_CLIP_PLANES
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClipPlanes {
    all: Vec<[f32; 4]>,
    /// Per mesh id (sorted), the mesh's own planes.
    meshes: Vec<(u32, Vec<[f32; 4]>)>,
}

impl ClipPlanes {
    /// Planes for every mesh; an error names a plane with a non-finite
    /// value or a zero normal, or too many planes.
    pub fn new(planes: &[[f32; 4]]) -> Result<ClipPlanes, Error> {
        check_planes(planes, 0)?;
        Ok(ClipPlanes {
            all: planes.to_vec(),
            meshes: Vec::new(),
        })
    }

    /// These planes and `planes` for mesh `mesh` besides (replacing what
    /// it had of its own).
    pub fn with_mesh(mut self, mesh: u32, planes: &[[f32; 4]]) -> Result<ClipPlanes, Error> {
        check_planes(planes, self.all.len())?;
        match self.meshes.binary_search_by_key(&mesh, |m| m.0) {
            Ok(i) => self.meshes[i].1 = planes.to_vec(),
            Err(i) => self.meshes.insert(i, (mesh, planes.to_vec())),
        }
        Ok(self)
    }

    /// These planes and `plane` for every mesh besides; an error when it
    /// is not finite, has a zero normal, or a mesh would have more than
    /// [`MAX_CLIP_PLANES`](crate::limits::MAX_CLIP_PLANES).
    pub fn with_plane(mut self, plane: [f32; 4]) -> Result<ClipPlanes, Error> {
        let most_own = self.meshes.iter().map(|m| m.1.len()).max().unwrap_or(0);
        check_planes(&[plane], self.all.len() + most_own)?;
        self.all.push(plane);
        Ok(self)
    }

    /// No plane at all?
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.all.is_empty() && self.meshes.iter().all(|m| m.1.is_empty())
    }

    /// The planes that apply to mesh `mesh`: those of every mesh, then its own.
    pub fn planes_of(&self, mesh: u32) -> impl Iterator<Item = &[f32; 4]> {
        let own = match self.meshes.binary_search_by_key(&mesh, |m| m.0) {
            Ok(i) => &self.meshes[i].1[..],
            Err(_) => &[],
        };
        self.all.iter().chain(own)
    }

    /// Do some meshes have planes of their own?
    pub(crate) fn by_mesh(&self) -> bool {
        self.meshes.iter().any(|m| !m.1.is_empty())
    }

    /// The part of `[t_min, t_max]` (ray parameter) where the points of
    /// `ray` are kept by the planes of every mesh; `None` when none is.
    /// (Out of line: the ray walks, inlined into many callers, keep only a
    /// call for it.)
    #[inline(never)]
    pub(crate) fn narrow_all(&self, ray: &Ray, t_min: f32, t_max: f32) -> Option<(f32, f32)> {
        narrow(self.all.iter(), ray, t_min, t_max)
    }

    /// The same for mesh `mesh`'s own planes (after [`ClipPlanes::narrow_all`]).
    #[inline(never)]
    pub(crate) fn narrow_mesh(
        &self,
        mesh: u32,
        ray: &Ray,
        t_min: f32,
        t_max: f32,
    ) -> Option<(f32, f32)> {
        if self.meshes.is_empty() {
            return Some((t_min, t_max));
        }
        match self.meshes.binary_search_by_key(&mesh, |m| m.0) {
            Ok(i) => narrow(self.meshes[i].1.iter(), ray, t_min, t_max),
            Err(_) => Some((t_min, t_max)),
        }
    }
}

fn check_planes(planes: &[[f32; 4]], already: usize) -> Result<(), Error> {
    if already + planes.len() > crate::limits::MAX_CLIP_PLANES {
        return Err(Error::InvalidClipPlanes(format!(
            "{} clip planes for a mesh: at most {}",
            already + planes.len(),
            crate::limits::MAX_CLIP_PLANES
        )));
    }
    for (i, p) in planes.iter().enumerate() {
        if !p.iter().all(|v| v.is_finite()) {
            return Err(Error::InvalidClipPlanes(format!(
                "clip plane {i} {p:?} is not finite"
            )));
        }
        if p[0] == 0.0 && p[1] == 0.0 && p[2] == 0.0 {
            return Err(Error::InvalidClipPlanes(format!(
                "clip plane {i} has a zero normal"
            )));
        }
    }
    Ok(())
}

/// `[t_min, t_max]` narrowed to where `n · (o + t·dir) + d >= 0` for every
/// plane (in f64: `a + b·t >= 0` bounds t below when `b > 0`, above when
/// `b < 0`, and keeps all or nothing when `b = 0`).
fn narrow<'a>(
    planes: impl Iterator<Item = &'a [f32; 4]>,
    ray: &Ray,
    t_min: f32,
    t_max: f32,
) -> Option<(f32, f32)> {
    let (o, dir) = (ray.origin.as_dvec3(), ray.direction.as_dvec3());
    let (mut lo, mut hi) = (f64::from(t_min), f64::from(t_max));
    for p in planes {
        let n = DVec3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
        let a = n.dot(o) + f64::from(p[3]);
        let b = n.dot(dir);
        if b > 0.0 {
            lo = lo.max(-a / b);
        } else if b < 0.0 {
            hi = hi.min(-a / b);
        } else if a < 0.0 {
            return None;
        }
    }
    (lo <= hi).then_some((lo as f32, hi as f32))
}

/// The plane of a triangle in f64: a corner on it and its normal, in the
/// orientation of the corners. The normal is exact-ish: corner differences
/// of f32 values of like size are exact in f64. It is taken at the corner
/// opposite the longest edge, from the two shorter edges: a sliver from two
/// near corners to one 10^30 units away, taken at the far one, has two huge
/// edges that differ by the near ones, which f64 rounds away (a ray hit it
/// at its origin).
pub(crate) fn plane_f64(p: [DVec3; 3]) -> (DVec3, DVec3) {
    let len = [0, 1, 2].map(|k| (p[(k + 1) % 3] - p[k]).length_squared());
    let long = (0..3).fold(0, |l, k| if len[k] > len[l] { k } else { l });
    let [a, b, c] = [p[(long + 2) % 3], p[long], p[(long + 1) % 3]];
    (a, (b - a).cross(c - a))
}

#[cfg(test)]
mod tests {
    //! The box operations and the one ray–box slab test.

    use glam::Vec3;

    use super::Aabb;
    use crate::accel::triangle::RayPrecomp;
    use crate::test_util::{in_box, Rng};

    #[test]
    fn aabb_basics() {
        let mut b = Aabb::empty();
        assert!(b.is_empty());
        assert_eq!(b.surface_area(), 0.0);
        b.grow(Vec3::new(1.0, 2.0, 3.0));
        assert!(!b.is_empty());
        assert_eq!(b.surface_area(), 0.0);
        b.grow(Vec3::new(2.0, 4.0, 6.0));
        assert_eq!(b.min, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(b.max, Vec3::new(2.0, 4.0, 6.0));
        assert_eq!(b.surface_area(), 2.0 * (2.0 + 6.0 + 3.0));
        assert_eq!(b.centroid(), Vec3::new(1.5, 3.0, 4.5));
        let c = Aabb {
            min: Vec3::splat(-1.0),
            max: Vec3::ZERO,
        };
        let u = b.union(&c);
        assert_eq!(
            (u.min, u.max),
            (Vec3::splat(-1.0), Vec3::new(2.0, 4.0, 6.0))
        );
        assert_eq!(b.union(&Aabb::empty()), b);
        assert!(u.contains(&b) && u.contains(&c) && !b.contains(&u));
        let huge = Aabb {
            min: Vec3::splat(-3e38),
            max: Vec3::splat(3e38),
        };
        assert_eq!(huge.centroid(), Vec3::ZERO);
    }

    fn unit_box() -> Aabb {
        Aabb {
            min: Vec3::ZERO,
            max: Vec3::ONE,
        }
    }

    fn interval(b: &Aabb, o: Vec3, d: Vec3, t_min: f32, t_max: f32) -> Option<(f32, f32)> {
        b.ray_interval(o, d.recip(), t_min, t_max)
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() <= 1e-5 * b.abs().max(1.0)
    }

    #[test]
    fn slab_basic_and_origin_inside() {
        let b = unit_box();
        let inf = f32::INFINITY;
        let (n, f) = interval(&b, Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 0.0, inf).unwrap();
        assert!(n == 1.0 && close(f, 2.0) && f >= 2.0);
        let (n, f) = interval(&b, Vec3::new(-1.0, -1.0, -1.0), Vec3::ONE, 0.0, inf).unwrap();
        assert!(n == 1.0 && close(f, 2.0));
        // Negative direction.
        let (n, f) = interval(&b, Vec3::new(3.0, 0.5, 0.5), -Vec3::X, 0.0, inf).unwrap();
        assert!(n == 2.0 && close(f, 3.0));
        // Pointing away; outside in another axis; t range clipping.
        assert_eq!(
            interval(&b, Vec3::new(-1.0, 0.5, 0.5), -Vec3::X, 0.0, inf),
            None
        );
        assert_eq!(
            interval(&b, Vec3::new(-1.0, 2.0, 0.5), Vec3::X, 0.0, inf),
            None
        );
        assert_eq!(
            interval(&b, Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 0.0, 0.5),
            None
        );
        assert_eq!(
            interval(&b, Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 2.5, inf),
            None
        );
        let (n, f) = interval(&b, Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 1.5, 1.75).unwrap();
        assert!(n == 1.5 && f == 1.75);
        // Origin inside: enter is clamped to t_min, or negative without clamp.
        let o = Vec3::new(0.25, 0.5, 0.75);
        let (n, f) = interval(&b, o, Vec3::X, 0.0, inf).unwrap();
        assert!(n == 0.0 && close(f, 0.75));
        let (n, f) = interval(&b, o, Vec3::new(1.0, -2.0, 0.5), f32::NEG_INFINITY, inf).unwrap();
        assert!(close(n, -0.25) && close(f, 0.25));
        // Empty box never hits.
        assert_eq!(interval(&Aabb::empty(), o, Vec3::X, 0.0, inf), None);
    }

    #[test]
    fn slab_zero_direction_components() {
        let b = unit_box();
        let inf = f32::INFINITY;
        for zero in [0.0f32, -0.0] {
            for axis in 0..3 {
                let mut d = Vec3::splat(1.0);
                d[axis] = zero;
                let mut o = Vec3::splat(-1.0);
                for (c, expect) in [
                    (0.5, true),
                    (0.0, true),
                    (1.0, true),
                    (-0.5, false),
                    (1.5, false),
                    (1.0f32.next_up(), false),
                    (0.0f32.next_down(), false),
                ] {
                    o[axis] = c;
                    let r = interval(&b, o, d, 0.0, inf);
                    assert_eq!(r.is_some(), expect, "axis {axis} zero {zero} coord {c}");
                    if let Some((n, f)) = r {
                        assert!(n == 1.0 && close(f, 2.0), "{n} {f}");
                    }
                }
            }
            // Two zero components: a ray along one axis.
            for (o, expect) in [
                (Vec3::new(0.5, 0.5, -2.0), Some(2.0)),
                (Vec3::new(0.0, 1.0, -2.0), Some(2.0)),
                (Vec3::new(1.0, 1.0, -2.0), Some(2.0)),
                (Vec3::new(1.5, 0.5, -2.0), None),
            ] {
                let d = Vec3::new(zero, -zero, 1.0);
                let r = interval(&b, o, d, 0.0, inf);
                assert_eq!(r.map(|x| x.0), expect, "{o:?}");
                if let Some((_, f)) = r {
                    assert!(close(f, 3.0));
                }
            }
        }
        // Zero-thickness box hit along its plane and across it.
        let flat = Aabb {
            min: Vec3::new(0.0, 0.0, 0.5),
            max: Vec3::new(1.0, 1.0, 0.5),
        };
        let r = interval(&flat, Vec3::new(-1.0, 0.5, 0.5), Vec3::X, 0.0, inf);
        assert_eq!(r.map(|x| x.0), Some(1.0));
        let r = interval(&flat, Vec3::new(0.3, 0.3, 2.0), -Vec3::Z, 0.0, inf).unwrap();
        assert!(r.0 == 1.5 && r.1 >= 1.5);
    }

    #[test]
    fn slab_origin_on_boundary() {
        let b = unit_box();
        let inf = f32::INFINITY;
        // On the max x face, pointing out: touches at t = 0 only.
        let r = interval(&b, Vec3::new(1.0, 0.5, 0.5), Vec3::X, 0.0, inf).unwrap();
        assert!(r.0 == 0.0 && r.1 >= 0.0 && r.1 < 1e-6);
        // Pointing in.
        let r = interval(&b, Vec3::new(1.0, 0.5, 0.5), -Vec3::X, 0.0, inf).unwrap();
        assert!(r.0 == 0.0 && close(r.1, 1.0));
        // On a corner, going diagonally through.
        let r = interval(&b, Vec3::ZERO, Vec3::ONE, 0.0, inf).unwrap();
        assert!(r.0 == 0.0 && close(r.1, 1.0));
        // On an edge, grazing along a face.
        let r = interval(&b, Vec3::new(0.0, 0.0, -1.0), Vec3::Z, 0.0, inf).unwrap();
        assert!(r.0 == 1.0 && close(r.1, 2.0));
    }

    #[test]
    fn slab_is_conservative_for_rays_through_boundary_points() {
        let mut rng = Rng(11);
        for _ in 0..20000 {
            let c = rng.vec3(-100.0, 100.0);
            let e = rng.vec3(0.0, 10.0);
            let b = Aabb {
                min: c - e,
                max: c + e,
            };
            // A corner, an edge point or a face point.
            let mut p = in_box(&mut rng, &b);
            for k in 0..3 {
                if rng.below(2) == 0 {
                    p[k] = if rng.below(2) == 0 {
                        b.min[k]
                    } else {
                        b.max[k]
                    };
                }
            }
            let o = rng.vec3(-300.0, 300.0);
            let r = RayPrecomp::new(o, p - o);
            let iv = b.ray_interval(r.origin(), r.inv_dir(), 0.0, f32::INFINITY);
            assert!(iv.is_some(), "box {b:?} point {p:?} origin {o:?}");
        }
    }
}
