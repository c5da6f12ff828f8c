//! The binning front end, mesh by mesh: how one chunk's triangles of a
//! mesh reach setup. [`BinStage::mesh_batches`] triages them [`LANES`] at
//! a time ([`super::batch`], [`simd`]); [`BinStage::mesh_triangles`] takes
//! them one at a time (the reference the batches are tested against, and
//! the path for meshes with user clip planes, [`UserPlanes`]). Triangles
//! that need it are clipped ([`super::clip`]) and the pieces emitted; what
//! survives is set up and handed to [`super::bin`], which stores it in the
//! chunk's tile bins.

use glam::{DMat4, DVec4, Mat4, Vec4};

use super::batch::{padded, Front, LANES};
use super::bin::{push_setup, push_small, BinStage, BinnedChunk};
use super::clip::{clip_plane, CLIP_MASK, FRUSTUM_MASK, MAX_POLY, OUT_INVALID};
use super::setup::{self, small_record, WinVertex};
use super::simd;
use super::stats::Stats;
use super::vertex::{clip_of, win_vertex};
use crate::cpu::{prefetch, Avx2};
use crate::limits::PREFETCH_TRIS;

/// A mesh's matrices for [`super::clip::Guard::clip`], made at its first clipped
/// triangle ([`BinStage::clip_matrices`]).
#[derive(Clone, Copy, Debug)]
struct ClipMatrices {
    /// Model to clip space in f32 (the vertex stage's).
    mvp: Mat4,
    /// The same in f64, for where a clipped triangle lies.
    mvp64: DMat4,
    /// The f64 one's inverse transpose, which carries a model plane to
    /// clip space ([`clip_plane`]).
    to_clip: DMat4,
}

/// A mesh's user clip planes in clip space (`plane · X >= 0` is kept) and,
/// per vertex, the planes it lies outside of (bit k: `planes[k]`), from
/// the clip coordinates the clipper computes (model to clip in f64).
pub(super) struct UserPlanes {
    planes: Vec<DVec4>,
    codes: Vec<u32>,
}

impl BinStage<'_> {
    /// Sets up and bins `tris`, triangles of mesh `m` whose first is global
    /// triangle `first`, [`LANES`] at a time: each batch is triaged side by
    /// side ([`simd::triage`]), its counters added, and the triangles it leaves
    /// for setup handled in draw order: the small ones get their depth
    /// plane and are stored, the others are clipped or set up one by one.
    /// `PREFETCH` (a scene of many vertex records or a mesh whose draw
    /// order jumps around its vertices: `BinStage::mesh_range`): each
    /// batch first asks for the vertex records of the triangles
    /// [`PREFETCH_TRIS`] ahead of its own (the next batch), so that their
    /// cache misses overlap instead of each stalling the batch in turn.
    #[inline(always)]
    pub(super) fn mesh_batches<const PREFETCH: bool>(
        &self,
        m: usize,
        tris: &[[u32; 3]],
        first: usize,
        chunk: &mut BinnedChunk,
        st: &mut Stats,
        avx2: Option<Avx2>,
    ) {
        let at = self.offsets[m] as usize;
        let verts = &self.verts[at..at + self.scene.meshes()[m].positions().len()];
        if verts.is_empty() {
            return;
        }
        let (w, h) = (self.camera.width, self.camera.height);
        let front = Front::new(self.rule, self.cull, w, h);
        // the mesh's matrices for clipping, made at its first clipped triangle
        let mut clip_mats = None;
        for (b, block) in tris.chunks(LANES).enumerate() {
            if PREFETCH {
                for tri in tris.iter().skip(b * LANES + PREFETCH_TRIS).take(LANES) {
                    for &i in tri {
                        if let Some(v) = verts.get(i as usize) {
                            prefetch(v);
                        }
                    }
                }
            }
            let (batch, used) = match <&[[u32; 3]; LANES]>::try_from(block) {
                Ok(full) => (*full, (1 << LANES) - 1),
                Err(_) => padded(block),
            };
            let t = simd::triage(avx2, &batch, used, verts, &front);
            let count = |m: u32| u64::from(m.count_ones());
            st.triangles += block.len() as u64;
            st.invalid += count(t.invalid);
            st.frustum_culled += count(t.frustum);
            st.empty += count(t.empty);
            st.zero_area += count(t.zero);
            st.face_culled += count(t.culled);
            let mut todo = t.clip | t.general | t.small;
            while todo != 0 {
                let l = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                let bit = 1u32 << l;
                let tri = &block[l];
                let id = (first + b * LANES + l) as u32;
                if t.small & bit != 0 {
                    let v = tri.map(|i| &verts[i as usize].win);
                    let at = (t.x0[l], t.y0[l]);
                    let rec = small_record(v, t.swap & bit != 0, at, u64::from(t.mask[l]), id);
                    push_small(chunk, rec, self.grid, st);
                } else if t.general & bit != 0 {
                    let v = tri.map(|i| &verts[i as usize].win);
                    if self.early_empty {
                        self.setup_and_push::<true>([v[0], v[1], v[2]], id, chunk, st);
                    } else {
                        self.setup_and_push::<false>([v[0], v[1], v[2]], id, chunk, st);
                    }
                } else {
                    let or = tri.iter().fold(0, |c, &i| c | verts[i as usize].code);
                    st.clipped += 1;
                    let clipping = (&mut clip_mats, or as u16 & CLIP_MASK, (&[][..], 0));
                    self.clip_and_emit(m, tri, id, clipping, chunk, st);
                }
            }
        }
    }

    /// [`BinStage::mesh_batches`] one triangle at a time: the loop before
    /// the batches, and the reference they are tested against; meshes with
    /// user clip planes take it. `USER`: the mesh has user clip planes (`user`), which cull the
    /// triangles entirely outside one of them and clip those that cross one.
    #[inline(always)]
    pub(super) fn mesh_triangles<const USER: bool>(
        &self,
        m: usize,
        tris: &[[u32; 3]],
        first: usize,
        chunk: &mut BinnedChunk,
        st: &mut Stats,
        user: Option<&UserPlanes>,
    ) {
        let verts = &self.verts[self.offsets[m] as usize..];
        // the mesh's matrices for clipping, made at its first clipped triangle
        let mut clip_mats = None;
        for (k, tri) in tris.iter().enumerate() {
            let v = tri.map(|i| &verts[i as usize]);
            st.triangles += 1;
            let or = (v[0].code | v[1].code | v[2].code) as u16;
            if or & OUT_INVALID != 0 {
                st.invalid += 1;
                continue;
            }
            if (v[0].code & v[1].code & v[2].code) as u16 & FRUSTUM_MASK != 0 {
                st.frustum_culled += 1;
                continue;
            }
            let id = (first + k) as u32;
            let mut user_or = 0;
            if let (true, Some(u)) = (USER, user) {
                let c = tri.map(|i| u.codes[i as usize]);
                if c[0] & c[1] & c[2] != 0 {
                    // entirely outside a user plane
                    st.frustum_culled += 1;
                    continue;
                }
                user_or = c[0] | c[1] | c[2];
            }
            if or & CLIP_MASK == 0 && user_or == 0 {
                // (by reference: a copy of the three vertices to the stack
                // and back cost a store-forwarding stall per triangle)
                self.emit([&v[0].win, &v[1].win, &v[2].win], id, chunk, st);
            } else {
                st.clipped += 1;
                let user = user.map_or((&[][..], 0), |u| (&u.planes[..], user_or));
                let clipping = (&mut clip_mats, or & CLIP_MASK, user);
                self.clip_and_emit(m, tri, id, clipping, chunk, st);
            }
        }
    }

    /// Clips triangle `tri` of mesh `m` against `planes` and emits the
    /// pieces; `mats` holds the mesh's [`BinStage::clip_matrices`], made
    /// at its first clipped triangle. (Out of line: the rare path, whose
    /// matrices would otherwise take registers from the triangle loop.)
    #[cold]
    #[inline(never)]
    fn clip_and_emit(
        &self,
        m: usize,
        tri: &[u32; 3],
        id: u32,
        (mats, planes, (user, user_mask)): (&mut Option<ClipMatrices>, u16, (&[DVec4], u32)),
        chunk: &mut BinnedChunk,
        st: &mut Stats,
    ) {
        let &mut ClipMatrices {
            mvp,
            mvp64,
            to_clip,
        } = mats.get_or_insert_with(|| self.clip_matrices(m));
        let pos = self.scene.meshes()[m].positions();
        let corners = tri.map(|i| pos[i as usize].as_dvec3());
        let mut poly = [Vec4::ZERO; MAX_POLY];
        let n = self.guard.clip(
            tri.map(|i| clip_of(&mvp, pos[i as usize])),
            corners.map(|p| mvp64 * p.extend(1.0)),
            clip_plane(&to_clip, corners),
            planes,
            user,
            user_mask,
            &mut poly,
        );
        let (w, h) = (self.camera.width as f32, self.camera.height as f32);
        for k in 1..n.saturating_sub(1) {
            let wv = [poly[0], poly[k], poly[k + 1]].map(|c| win_vertex(c, w, h));
            self.emit([&wv[0], &wv[1], &wv[2]], id, chunk, st);
        }
    }

    /// Mesh `m`'s user clip planes in clip space and its vertices' codes
    /// for them; `None` when it has none.
    #[cold]
    pub(super) fn user_planes(&self, m: usize) -> Option<UserPlanes> {
        let clip = self.clip?;
        let world = clip.planes_of(m as u32);
        // a world plane P (P · X >= 0 for world points X) in clip space:
        // P · VP⁻¹ · X_clip, the plane (VP⁻¹)ᵀ · P
        let to_clip = self.view_proj.as_dmat4().inverse().transpose();
        let planes: Vec<DVec4> = world
            .map(|p| to_clip * DVec4::new(p[0].into(), p[1].into(), p[2].into(), p[3].into()))
            .collect();
        if planes.is_empty() {
            return None;
        }
        let mvp64 = self.clip_matrices(m).mvp64;
        let codes = self.scene.meshes()[m]
            .positions()
            .iter()
            .map(|p| {
                let x = mvp64 * p.as_dvec3().extend(1.0);
                planes
                    .iter()
                    .enumerate()
                    .fold(0, |c, (k, pl)| c | (u32::from(pl.dot(x) < 0.0) << k))
            })
            .collect();
        Some(UserPlanes { planes, codes })
    }

    /// Mesh `m`'s [`ClipMatrices`].
    fn clip_matrices(&self, m: usize) -> ClipMatrices {
        let mvp64 = self.view_proj.as_dmat4() * self.worlds[m].as_dmat4();
        ClipMatrices {
            mvp: self.view_proj * self.worlds[m],
            mvp64,
            to_clip: mvp64.inverse().transpose(),
        }
    }

    /// Sets up and stores one window-space triangle, or counts it empty.
    fn emit(&self, v: [&WinVertex; 3], id: u32, chunk: &mut BinnedChunk, st: &mut Stats) {
        let (w, h) = (self.camera.width, self.camera.height);
        if self.early_empty && setup::holds_no_centre(v, w, h) {
            st.empty += 1;
            return;
        }
        if self.early_empty {
            self.setup_and_push::<true>(v, id, chunk, st);
        } else {
            self.setup_and_push::<false>(v, id, chunk, st);
        }
    }

    /// Sets up a triangle and stores it: setup and [`push_setup`] in one
    /// function, so that a small record goes from one to the other in
    /// registers. (Returned through memory, as setup's return value, it is
    /// written field by field and read back whole, and the wide reads wait
    /// on the narrow writes.)
    #[inline(never)]
    fn setup_and_push<const DENSE: bool>(
        &self,
        v: [&WinVertex; 3],
        id: u32,
        chunk: &mut BinnedChunk,
        st: &mut Stats,
    ) {
        let (w, h) = (self.camera.width, self.camera.height);
        let res = setup::setup::<DENSE>(v, self.rule, self.cull, w, h, id, 0);
        push_setup(chunk, res, self.grid, st);
    }
}
