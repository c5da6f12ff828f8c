//! The ray picks of a frame: a 3D ray through a pixel centre, from the near
//! plane (t = 0) to the far plane (t = 1), with the frame's cull mode and
//! the mesh transforms as rendered. Rows and blocks of pixels walk the
//! BVHs four or eight rays at a time (see [`super::packet_walk`]) and give
//! exactly the single picks.

use super::packet_walk::{first_t_x4, first_t_x8, RowScratch};
use super::query::{flat_bvh_for, NearestHit, RayOptions};
use super::walk::{first_t, first_t_in, RayScratch};
use super::RayCaster;
use crate::accel::transforms::MeshTransforms;
use crate::cpu::Avx2;
use crate::frame::Frame;
use crate::geometry::Ray;
use crate::pick::{Hit, PickId};
use crate::pick_cache::ray_setup::ViewRays;
use crate::scene::Scene;

/// The compact pick of a pixel ray's first hit, its depth that of the hit
/// point.
#[inline(always)]
fn pick_id_of(view: &ViewRays, scene: &Scene, ray: &Ray, nearest: NearestHit) -> PickId {
    PickId {
        mesh: nearest.mesh,
        triangle: nearest.triangle,
        global_triangle: scene.global_triangle(nearest.mesh, nearest.triangle),
        depth: view.depth(ray.at(nearest.hit.t)),
    }
}

impl Frame {
    /// The mesh transforms as rendered, prepared for ray queries at the
    /// first one after the render, so that a render of a scene of many
    /// meshes does not pay for them. For a frame of `scene` as it is now
    /// (the state [`Frame::check_scene`] requires of picks) they are the
    /// scene's own kept ones ([`Scene::mesh_transforms`]: any change of a
    /// world matrix or a box since the render would have advanced its
    /// revision), made once per state of the scene rather than once per
    /// frame; otherwise the frame's, from the world matrices the render
    /// used.
    #[inline(always)]
    fn mesh_transforms<'s>(&'s self, scene: &'s Scene) -> &'s MeshTransforms {
        if self.scene == Some(scene.stamp()) {
            scene.mesh_transforms()
        } else {
            self.xforms
                .get_or_init(|| scene.mesh_transforms_at(&self.worlds))
        }
    }

    /// The per-pixel ray setup of the frame's camera (made at the first
    /// ray pick after the render); `None` without a camera or for one
    /// whose rays cannot be set up.
    #[inline(always)]
    fn view_rays(&self) -> Option<&ViewRays> {
        let cam = self.camera.as_ref()?;
        self.view
            .get_or_init(|| ViewRays::new(cam, &self.inv_view_proj))
            .as_ref()
    }

    /// The pick ray through the centre of pixel (x, y), from the near plane
    /// (t = 0) to the far plane (t = 1), its options, and the frame's ray
    /// setup.
    #[inline(always)]
    fn pixel_ray(&self, x: i64, y: i64) -> Option<(Ray, RayOptions<'_>, &ViewRays)> {
        let (ux, uy) = (u32::try_from(x).ok()?, u32::try_from(y).ok()?);
        let (opts, view) = self.span_setup((ux, uy), (1, 1))?;
        Some((view.ray(ux, uy), opts, view))
    }

    /// The options and ray setup of the pixel rays of the `w × h` pixels
    /// from `(x, y)` (`w, h >= 1`), `None` when one of those pixels is
    /// outside the frame or the frame has no ray setup.
    #[inline(always)]
    fn span_setup(
        &self,
        (x, y): (u32, u32),
        (w, h): (u32, u32),
    ) -> Option<(RayOptions<'_>, &ViewRays)> {
        self.pixel_index(x, y)?;
        self.pixel_index(x.checked_add(w - 1)?, y.checked_add(h - 1)?)?;
        let view = self.view_rays()?;
        let opts = RayOptions {
            cull: self.cull,
            clip: self.clip.as_deref(),
            ..RayOptions::default()
        };
        Some((opts, view))
    }

    /// Builds now what ray picks on this frame otherwise build on the first
    /// one ([`Picks::prepare`](crate::pick::Picks::prepare) with the ray
    /// method): the meshes' transforms as rendered (their inverses and world
    /// boxes), the per-pixel ray setup and, unless every mesh was rendered at
    /// the identity (the picks then walk the scene's one BVH over all its
    /// triangles), the top-level BVH over the meshes' world boxes (as
    /// rendered).
    pub(crate) fn prepare_rays(&self, scene: &Scene) {
        let transforms = self.mesh_transforms(scene);
        if !transforms.identity {
            let _ = transforms.top();
        }
        let _ = self.view_rays();
    }

    /// The ray method's full pick at pixel (x, y)
    /// ([`Picks::at`](crate::pick::Picks::at)): a 3D ray through the centre
    /// of the pixel, from the near plane to the far plane, with the frame's
    /// cull mode and the mesh transforms as rendered (like the other two
    /// methods; their inverses are made at the first ray pick after the
    /// render, from the world matrices it used). `Hit::depth` is the window
    /// depth of the hit point. `None` on background or outside the frame.
    pub(crate) fn ray_hit(&self, scene: &Scene, x: i64, y: i64) -> Option<Hit> {
        let (ray, opts, view) = self.pixel_ray(x, y)?;
        let caster = RayCaster::with_transforms(scene, self.mesh_transforms(scene));
        let nearest = first_t(scene, caster.transforms, &ray, 0.0, 1.0, &opts)?;
        let mut hit = caster.expand(&ray, nearest);
        hit.depth = view.depth(hit.position);
        Some(hit)
    }

    /// The ray method's compact pick at pixel (x, y)
    /// ([`Picks::id_at`](crate::pick::Picks::id_at)): the mesh, triangle
    /// and window depth of [`Frame::ray_hit`]'s hit, without building the
    /// full hit record.
    pub(crate) fn ray_id(&self, scene: &Scene, x: i64, y: i64) -> Option<PickId> {
        self.pick_id_ray_in(scene, x, y, &mut RayScratch::new())
    }

    /// Every hit of the ray through the centre of pixel (x, y)
    /// ([`Picks::all`](crate::pick::Picks::all) with the ray method): the
    /// camera's ray from the pixel's point on the near plane, unit
    /// direction, up to its point on the far plane, with the frame's cull
    /// mode; sorted by distance (ties by mesh, then triangle), each hit's
    /// depth its window depth. Empty outside the frame or before the first
    /// render.
    pub(crate) fn ray_all(&self, scene: &Scene, x: i64, y: i64) -> Vec<Hit> {
        let (Ok(x), Ok(y)) = (u32::try_from(x), u32::try_from(y)) else {
            return Vec::new();
        };
        let (Some(cam), Some(_)) = (self.camera.as_ref(), self.pixel_index(x, y)) else {
            return Vec::new();
        };
        let ray = cam.ray_for_pixel(x, y);
        let far = (cam.unproject(x as f32 + 0.5, y as f32 + 0.5, 1.0) - ray.origin).length();
        let opts = RayOptions {
            near: 0.0,
            far,
            cull: self.cull,
            filter: None,
            clip: self.clip.as_deref(),
        };
        let caster = RayCaster::with_transforms(scene, self.mesh_transforms(scene));
        let mut hits = caster.all_in(&ray, &opts, true);
        for h in &mut hits {
            h.depth = cam.project(h.position).map_or(f32::NAN, |p| p.z);
        }
        hits
    }

    /// The ray picks of the rows from `y` of the pixels `x .. x + width`,
    /// into `out`, which holds them one after another (`out.len() / width`
    /// rows, then a partial one if any), each the same as
    /// [`Frame::ray_id`]. Inlined into both builds of
    /// `simd::ray_block` (this is the baseline one, with `avx2` `None`).
    ///
    /// Neighbouring pixels' rays walk the BVHs together. Two rows at a
    /// time, in blocks of 4×2 pixels whose eight rays walk together, where
    /// the scene's flat BVH serves them and `avx2` is given (the AVX2
    /// build): closer rays than eight in a row, so fewer of the walk's
    /// boxes are entered by only some of them. The rest row by row
    /// (`ray_row_in`): eight pixels at a time where the flat BVH and `avx2`
    /// serve them, else four, the last ones one by one.
    #[inline(always)]
    pub(crate) fn ray_block(
        &self,
        scene: &Scene,
        (x, y, width): (u32, u32, usize),
        out: &mut [Option<PickId>],
        avx2: Option<Avx2>,
    ) {
        if width == 0 {
            return;
        }
        let mut scratch = RowScratch::new();
        let mut rows = out.chunks_mut(width);
        let mut y = y;
        while let Some(top) = rows.next() {
            let mut bottom = rows.next();
            // (one call of each walk here: every call site is another
            // inlined copy of it)
            let mut k = 0;
            if let (Some(avx2), Some(bottom)) = (avx2, bottom.as_deref_mut()) {
                while k + 4 <= bottom.len() {
                    let at = (x.saturating_add(k as u32), y, 4);
                    let Some(ids) = self.pick_ids_ray_x8(scene, at, &mut scratch, avx2) else {
                        break;
                    };
                    top[k..k + 4].copy_from_slice(&ids[..4]);
                    bottom[k..k + 4].copy_from_slice(&ids[4..]);
                    k += 4;
                }
            }
            let xk = x.saturating_add(k as u32);
            for (dy, row) in [Some(top), bottom].into_iter().flatten().enumerate() {
                let at = (xk, y.saturating_add(dy as u32));
                self.ray_row_in(scene, at, &mut row[k..], avx2, &mut scratch);
            }
            y = y.saturating_add(2);
        }
    }

    /// The ray picks of pixels `(x + k, y)` into `out[k]` (see
    /// [`Frame::ray_block`]), with the row's stacks given.
    #[inline(always)]
    fn ray_row_in(
        &self,
        scene: &Scene,
        (x, y): (u32, u32),
        out: &mut [Option<PickId>],
        avx2: Option<Avx2>,
        scratch: &mut RowScratch,
    ) {
        let mut k = 0;
        while k < out.len() {
            // (a `match`, not a closure: a closure would not be inlined
            // into the AVX2 build)
            let px = u32::try_from(k).ok().and_then(|k| x.checked_add(k));
            let eight = match (px, avx2) {
                (Some(px), Some(avx2)) if out.len() - k >= 8 => {
                    self.pick_ids_ray_x8(scene, (px, y, 8), scratch, avx2)
                }
                _ => None,
            };
            if let Some(eight) = eight {
                out[k..k + 8].copy_from_slice(&eight);
                k += 8;
                continue;
            }
            let four = match px {
                Some(px) if out.len() - k >= 4 => {
                    self.pick_id_ray_x4(scene, px, y, &mut out[k..], scratch)
                }
                _ => false,
            };
            if four {
                k += 4;
                continue;
            }
            out[k] = self.pick_id_ray_in(
                scene,
                i64::from(x) + k as i64,
                i64::from(y),
                &mut scratch.one_ray,
            );
            k += 1;
        }
    }

    /// [`Frame::ray_id`] for eight pixels at once through the scene's
    /// flat BVH (see `first_t_x8`): `w` (8 or 4) side by side in `8 / w`
    /// rows from `(x, y)`, in the lane order of [`ViewRays::rays8`]; `None`
    /// when the scene's picks cannot use that BVH or a pixel is outside the
    /// frame.
    #[inline(always)]
    pub(crate) fn pick_ids_ray_x8(
        &self,
        scene: &Scene,
        (x, y, w): (u32, u32, u32),
        scratch: &mut RowScratch,
        avx2: Avx2,
    ) -> Option<[Option<PickId>; 8]> {
        debug_assert!(w == 8 || w == 4, "{w} pixels side by side");
        let (opts, view) = self.span_setup((x, y), (w, 8 / w))?;
        if opts.clip.is_some() {
            // (clip planes narrow each ray: one at a time)
            return None;
        }
        let bvh = flat_bvh_for(scene, self.mesh_transforms(scene), &opts)?;
        let rays = view.rays8(x, y, w);
        let hits = first_t_x8(scene, bvh, &rays, &opts, scratch, avx2);
        let mut out = [None; 8];
        for (r, (o, hit)) in out.iter_mut().zip(hits).enumerate() {
            let ray = Ray::new(rays.origin(r), rays.dir(r));
            *o = hit.map(|nearest| pick_id_of(view, scene, &ray, nearest));
        }
        Some(out)
    }

    /// [`Frame::ray_id`] for the four pixels `(x .. x + 4, y)` at once
    /// (one walk of the BVHs for the four rays, see `first_t_x4`), into
    /// `out[..4]`; `false` (nothing written) when one of them is outside the
    /// frame or the frame has no ray setup, for the caller to pick them one
    /// at a time.
    #[inline(always)]
    pub(crate) fn pick_id_ray_x4(
        &self,
        scene: &Scene,
        x: u32,
        y: u32,
        out: &mut [Option<PickId>],
        scratch: &mut RowScratch,
    ) -> bool {
        let transforms = self.mesh_transforms(scene);
        if out.len() < 4 || transforms.len() != scene.meshes().len() {
            return false;
        }
        // the setup `pixel_ray` makes per pixel, once for the four
        let Some((opts, view)) = self.span_setup((x, y), (4, 1)) else {
            return false;
        };
        if opts.clip.is_some() {
            // (clip planes narrow each ray: one at a time)
            return false;
        }
        // (written out: `array::from_fn` here compiles to an outlined call
        // per ray, outside the AVX2 build)
        let rays: [Ray; 4] = [
            view.ray(x, y),
            view.ray(x + 1, y),
            view.ray(x + 2, y),
            view.ray(x + 3, y),
        ];
        let hits = first_t_x4(scene, transforms, &rays, 0.0, 1.0, &opts, scratch);
        for ((o, hit), ray) in out.iter_mut().zip(hits).zip(&rays) {
            *o = hit.map(|nearest| pick_id_of(view, scene, ray, nearest));
        }
        true
    }

    /// [`Frame::ray_id`] with the traversal stacks given (a row of
    /// picks sets them up once).
    #[inline(always)]
    pub(crate) fn pick_id_ray_in(
        &self,
        scene: &Scene,
        x: i64,
        y: i64,
        scratch: &mut RayScratch,
    ) -> Option<PickId> {
        let (ray, opts, view) = self.pixel_ray(x, y)?;
        // (the frame's transforms, or the scene's current ones when they do
        // not match it, chosen before the walk so that the walk, inlined,
        // is here once: a call site for each made two copies, 18 KB of the
        // browser module)
        let caster = RayCaster::with_transforms(scene, self.mesh_transforms(scene));
        let nearest = first_t_in(scene, caster.transforms, &ray, 0.0, 1.0, &opts, scratch)?;
        Some(pick_id_of(view, scene, &ray, nearest))
    }
}
