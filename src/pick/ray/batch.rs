//! Batches of first-hit ray queries with a compact answer: the triangle,
//! the ray parameter, the barycentrics and the facing of each ray's
//! nearest hit, without the names, world position and normal of a full
//! [`Hit`] (the normal on demand: [`RayCaster::hit_normal`]). The walk is the one of [`RayCaster::first`] (same code, same
//! tie rule), so the answers are its answers; the batch only sets up the
//! traversal stacks once and skips the per-hit work a full record needs
//! (the name's shared-pointer counts, which threads would otherwise fight
//! over for every ray).

use glam::Vec3;

use super::query::{flat_bvh_for, RayOptions};
use super::walk::{first_t_in, RayScratch};
use super::RayCaster;
use crate::accel::bvh::{Bvh, LeafHit, MeshStack, NodeRef, INTERLEAVE};
use crate::accel::triangle::RayPrecomp;
use crate::cpu::Isa;
use crate::geometry::Ray;
use crate::limits::INTERLEAVE_MIN_TRIS;
use crate::pick::face_normal;
#[cfg(doc)]
use crate::pick::Hit;
use crate::scene::MeshId;

/// The nearest hit of one ray of a batch ([`RayCaster::first_hits`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Mesh id (index in the scene).
    pub mesh: MeshId,
    /// Triangle index within the mesh.
    pub triangle: u32,
    /// Global triangle index (file order over all meshes).
    pub global_triangle: u32,
    /// Ray parameter: the hit point is `origin + t * direction`, so the
    /// distance is `t * ray.direction_length()` ([`Hit::distance`]).
    pub t: f32,
    /// Barycentric weights of the triangle's corners, as [`Hit::barycentric`].
    pub barycentric: Vec3,
    /// Whether the ray sees the triangle counter-clockwise in world space,
    /// as [`Hit::front_face`].
    pub front_face: bool,
    /// The leaf of the scene's flat BVH that holds the triangle, where
    /// the walk went through it, for [`RayCaster::hit_normal`]: the
    /// triangle's corners (mesh space) read from there, from memory the
    /// walk has read, spare it the cache misses of the mesh's arrays on a
    /// large mesh; found only when the normal is asked for, so a hit
    /// costs no more than its walk. `None` on the other paths.
    pub(super) leaf: Option<NodeRef>,
}

/// The iterator of [`RayCaster::first_hits`].
pub struct FirstHits<'c, 'a, 'o, I> {
    caster: &'c RayCaster<'a>,
    rays: I,
    opts: RayOptions<'o>,
    scratch: RayScratch,
    /// The scene's flat BVH when the queries may walk it (see
    /// `flat_bvh_for`), looked up once for the batch.
    flat: Option<&'a Bvh>,
    /// The instruction set of the walks, looked up once for the batch.
    isa: Isa,
    /// When the rays walk the flat BVH [`INTERLEAVE`] at a time
    /// (`Bvh::first_leaf_hits_on`, from [`INTERLEAVE_MIN_TRIS`]
    /// triangles; never on wasm32, to keep the browser module small): the
    /// group's answers and stacks. Made only then, so a batch walked ray
    /// by ray sets up no stacks it would not use.
    ahead: Option<Box<Ahead>>,
}

/// The answers of a group of rays walked together, and their stacks.
struct Ahead {
    hits: [Option<RayHit>; INTERLEAVE],
    len: usize,
    done: usize,
    stacks: [MeshStack; INTERLEAVE],
}

impl<I: Iterator<Item = Ray>> Iterator for FirstHits<'_, '_, '_, I> {
    type Item = Option<RayHit>;

    #[inline]
    fn next(&mut self) -> Option<Option<RayHit>> {
        let Some(bvh) = self.flat else {
            let ray = self.rays.next()?;
            return Some(
                self.caster
                    .first_compact(&ray, &self.opts, &mut self.scratch),
            );
        };
        // (the wasm32 build walks each ray alone, to keep the browser module
        // small: the answers are the same bit for bit either way)
        let ahead = self.ahead.as_deref_mut();
        let Some(a) = ahead.filter(|_| !cfg!(target_arch = "wasm32")) else {
            let ray = self.rays.next()?;
            return Some(self.caster.first_flat(
                bvh,
                &ray,
                &self.opts,
                &mut self.scratch,
                self.isa,
            ));
        };
        if a.done == a.len {
            // the next group: its rays' walks set up as `first_flat`
            // sets up one, then walked together
            let mut rays = [None; INTERLEAVE];
            let mut n = 0;
            for slot in &mut rays {
                let Some(ray) = self.rays.next() else { break };
                *slot = self.caster.flat_ray(&ray, &self.opts);
                n += 1;
            }
            if n == 0 {
                return None;
            }
            let mut pre = [RayPrecomp::new(Vec3::ZERO, Vec3::Z); INTERLEAVE];
            let mut range = [(0.0, 0.0); INTERLEAVE];
            let mut of = [0; INTERLEAVE];
            let mut m = 0;
            for (k, r) in rays[..n].iter().enumerate() {
                if let Some((p, t_min, t_max)) = r {
                    (pre[m], range[m], of[m]) = (*p, (*t_min, *t_max), k);
                    m += 1;
                }
            }
            let mut leaf_hits: [Option<LeafHit>; INTERLEAVE] = [None; INTERLEAVE];
            bvh.first_leaf_hits_on(
                self.isa,
                &pre[..m],
                &range[..m],
                self.opts.cull,
                &mut a.stacks,
                &mut leaf_hits[..m],
            );
            a.hits = [None; INTERLEAVE];
            for (&k, hit) in of[..m].iter().zip(leaf_hits) {
                a.hits[k] = hit.and_then(|h| self.caster.flat_hit(h, &mut self.scratch));
            }
            (a.len, a.done) = (n, 0);
        }
        a.done += 1;
        Some(a.hits[a.done - 1])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // (the answers of a group walked ahead, not yet handed out, count)
        let ahead = self.ahead.as_ref().map_or(0, |a| a.len - a.done);
        let (lo, hi) = self.rays.size_hint();
        (
            lo.saturating_add(ahead),
            hi.and_then(|h| h.checked_add(ahead)),
        )
    }
}

impl<I: ExactSizeIterator<Item = Ray>> ExactSizeIterator for FirstHits<'_, '_, '_, I> {}

impl<'a> RayCaster<'a> {
    /// The nearest hit of each ray of `rays`, in order: what
    /// [`RayCaster::first`] answers for the same ray and options, as a
    /// compact [`RayHit`]. Nothing is allocated per ray, so a loop over
    /// millions of rays (split across threads by the caller, each with its
    /// own iterator) costs the BVH walks and little else. Rays taken from
    /// a slice (`rays.iter().copied()`) walk fastest: an iterator that
    /// builds each ray from other arrays as it goes (rows zipped and
    /// mapped) puts its call at the head of every walk: a quarter more
    /// time a ray on small trees on x86-64. Copy such rays out a block at
    /// a time first, as Python's `cast_rays` does.
    ///
    /// ```
    /// use glam::Vec3;
    /// use softpick::{builtin_scene, Ray, RayCaster, RayOptions};
    ///
    /// let scene = builtin_scene();
    /// let caster = RayCaster::new(&scene);
    /// let rays = (0..8).map(|i| Ray::new(Vec3::new(0.1 * i as f32, 0.0, 5.0), Vec3::NEG_Z));
    /// let opts = RayOptions::default();
    /// for (ray, hit) in rays.clone().zip(caster.first_hits(rays, &opts)) {
    ///     let full = caster.first(&ray, &opts);
    ///     assert_eq!(hit.map(|h| h.global_triangle), full.map(|h| h.global_triangle));
    /// }
    /// ```
    pub fn first_hits<'c, 'o, I: IntoIterator<Item = Ray>>(
        &'c self,
        rays: I,
        opts: &RayOptions<'o>,
    ) -> FirstHits<'c, 'a, 'o, I::IntoIter> {
        let flat = flat_bvh_for(self.scene, self.transforms, opts);
        FirstHits {
            caster: self,
            rays: rays.into_iter(),
            opts: *opts,
            scratch: RayScratch::new(),
            flat,
            isa: Isa::detect(),
            ahead: flat
                .filter(|b| {
                    !cfg!(target_arch = "wasm32") && b.triangle_count() >= INTERLEAVE_MIN_TRIS
                })
                .map(|_| {
                    Box::new(Ahead {
                        hits: [None; INTERLEAVE],
                        len: 0,
                        done: 0,
                        stacks: std::array::from_fn(|_| MeshStack::new()),
                    })
                }),
        }
    }

    /// The walk of `ray` through the scene's flat BVH (for a query that
    /// may walk it, see `flat_bvh_for`): the precomputed ray and its
    /// range, `None` when it cannot hit. [`RayCaster::first_compact`]'s
    /// walk with less on the way: every mesh sits at the identity, so the
    /// world ray is the local ray, the cull mode stays, the facing is not
    /// flipped and the global triangle index is the one the walk returns.
    /// The ray and range checks of the two-level path are the precomputed
    /// ray's validity and the walk's own (the same conditions), and clip
    /// planes narrow the range as there, so the answers are the same.
    ///
    /// The range in units of `t` is the options' distances divided by the
    /// direction's length, except for the whole ray (`near` +0, `far`
    /// infinite) with no direction coordinate above 10^18 (`len` is then
    /// finite, and above zero for a direction that is not zero), where it
    /// is `(+0, inf)` whatever `len`: no length to compute. A ray whose
    /// precomputed ray is not valid (origin or direction not finite, or a
    /// zero direction) hits nothing either way and is `None` at once.
    #[inline(always)]
    fn flat_ray(&self, ray: &Ray, opts: &RayOptions<'_>) -> Option<(RayPrecomp, f32, f32)> {
        let pre = RayPrecomp::new(ray.origin, ray.direction);
        if !pre.is_valid() {
            return None;
        }
        let whole = opts.near.to_bits() == 0 && opts.far == f32::INFINITY;
        let (t_min, t_max) = if whole && ray.direction.abs().max_element() <= 1.0e18 {
            (0.0, f32::INFINITY)
        } else {
            let len = ray.direction_length();
            if !(len > 0.0) {
                return None;
            }
            (opts.near / len, opts.far / len)
        };
        // clip planes of every mesh narrow the ray first, as in the
        // two-level walk (`flat_bvh_for` rules out planes of one mesh)
        let (t_min, t_max) = match opts.clip {
            Some(c) => c.narrow_all(ray, t_min, t_max)?,
            None => (t_min, t_max),
        };
        Some((pre, t_min, t_max))
    }

    /// One ray of [`RayCaster::first_hits`] through the scene's flat BVH
    /// `bvh`, walked alone: [`RayCaster::flat_ray`], the walk,
    /// [`RayCaster::flat_hit`]. Inlined natively (out of line it costs
    /// builtin's batches ~10 %); one copy out of line on wasm32, where the
    /// browser module's size counts more.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn first_flat(
        &self,
        bvh: &Bvh,
        ray: &Ray,
        opts: &RayOptions<'_>,
        scratch: &mut RayScratch,
        isa: Isa,
    ) -> Option<RayHit> {
        let (pre, t_min, t_max) = self.flat_ray(ray, opts)?;
        let hit = bvh.first_leaf_hit_on(isa, &pre, t_min, t_max, opts.cull, &mut scratch.mesh)?;
        self.flat_hit(hit, scratch)
    }

    /// The [`RayHit`] of a walk's answer through the flat BVH `bvh`.
    #[inline(always)]
    fn flat_hit(&self, ((global, hit), leaf): LeafHit, scratch: &mut RayScratch) -> Option<RayHit> {
        let (mesh, triangle) = self.scene.locate_from(global, scratch.mesh_hint)?;
        scratch.mesh_hint = mesh;
        Some(RayHit {
            mesh,
            triangle,
            global_triangle: global,
            t: hit.t,
            barycentric: hit.bary,
            front_face: hit.front,
            leaf: Some(leaf),
        })
    }

    /// One ray of [`RayCaster::first_hits`], with its traversal stacks.
    #[inline]
    fn first_compact(
        &self,
        ray: &Ray,
        opts: &RayOptions<'_>,
        scratch: &mut RayScratch,
    ) -> Option<RayHit> {
        let (t_min, t_max) = opts.t_range(ray)?;
        let n = first_t_in(
            self.scene,
            self.transforms,
            ray,
            t_min,
            t_max,
            opts,
            scratch,
        )?;
        let transform = &self.transforms[n.mesh as usize];
        Some(RayHit {
            mesh: n.mesh,
            triangle: n.triangle,
            global_triangle: self.scene.global_triangle(n.mesh, n.triangle),
            t: n.hit.t,
            barycentric: n.hit.bary,
            // (a mirrored placement flips the facing, as in a full hit)
            front_face: n.hit.front != transform.mirrored,
            leaf: None,
        })
    }

    /// The unit world-space normal of the triangle of `hit`, a hit of this
    /// caster's [`RayCaster::first_hits`] or [`RayCaster::all_hits_into`]:
    /// [`RayCaster::face_normal`] of its
    /// mesh and triangle, bit for bit, but read, where the walk went
    /// through the scene's one flat BVH, from the corners in the leaf the
    /// walk read (the same positions, placed by the same identity matrix).
    ///
    /// ```
    /// use glam::Vec3;
    /// use softpick::{builtin_scene, Ray, RayCaster, RayOptions};
    ///
    /// let scene = builtin_scene();
    /// let caster = RayCaster::new(&scene);
    /// let ray = Ray::new(Vec3::new(0.0, 0.0, 5.0), Vec3::NEG_Z);
    /// let hit = caster.first_hits([ray], &RayOptions::default()).next().flatten();
    /// let hit = hit.expect("the ray hits the scene");
    /// assert_eq!(caster.hit_normal(&hit), caster.face_normal(hit.mesh, hit.triangle));
    /// ```
    #[must_use]
    #[inline]
    pub fn hit_normal(&self, hit: &RayHit) -> Vec3 {
        // (a hit of this caster's flat walk names a leaf of the scene's
        // flat BVH, built by that walk; a leaf that does not hold the
        // triangle, of no hit of this caster, falls back to the mesh)
        let corners = hit.leaf.and_then(|leaf| {
            self.scene
                .flat_bvh()
                .leaf_corners(leaf, hit.global_triangle)
        });
        match corners {
            // Only the flat walk sets the leaf, and only when every
            // mesh sits at exactly the identity. The identity's
            // `transform_point3` of a finite point (the leaves hold only
            // finite corners) is `((1·x + 0·y) + 0·z) + 0` per axis: `x`
            // itself, except a `-0` that the last `+ 0` makes `+0`, which
            // is what `x + 0` makes, without the matrix.
            Some(p) => face_normal(p.map(|q| q + Vec3::ZERO)),
            None => self.face_normal(hit.mesh, hit.triangle),
        }
    }

    /// The unit world-space normal of triangle `triangle` of mesh `mesh`
    /// as this caster places it ([`Hit::normal`] of a hit on it): zero for
    /// a degenerate triangle or an unknown mesh or triangle.
    #[must_use]
    pub fn face_normal(&self, mesh: MeshId, triangle: u32) -> Vec3 {
        let (Some(m), Some(t)) = (
            self.scene.meshes().get(mesh as usize),
            self.transforms.get(mesh as usize),
        ) else {
            return Vec3::ZERO;
        };
        if triangle as usize >= m.triangles().len() {
            return Vec3::ZERO;
        }
        face_normal(m.triangle(triangle).map(|q| t.world.transform_point3(q)))
    }
}
