//! The vertex stage: every mesh vertex to clip space, outcode, window
//! position and snapped fixed point. It writes two buffers: the records
//! setup reads ([`SetupVertex`]) and the screen-space vertex buffer the
//! frame keeps for picks ([`ScreenVertex`]), plus world positions for
//! flat shading.

use crate::par::prelude::*;
use glam::{Mat4, Vec3, Vec4};

use super::clip::{Guard, CLIP_MASK, OUT_INVALID};
use super::rules::{self, snap_in_band};
use super::setup::WinVertex;
use crate::camera::clip_to_window;
use crate::limits::{CHUNK_VERTS, VERTEX_BLOCK};
use crate::scene::Mesh;

/// One vertex of the screen-space vertex buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct ScreenVertex {
    /// Window x in pixels (right).
    pub x: f32,
    /// Window y in pixels (down).
    pub y: f32,
    /// Window depth 0..1.
    pub z: f32,
    /// Clip-space w (≤ 0 means behind the eye; such a vertex has no window position).
    pub w: f32,
}

/// What setup reads per vertex: 24 bytes (the triangles of a mesh gather
/// them by index, so their size is memory traffic). Clip coordinates are
/// recomputed for the few triangles that need clipping. In C layout with
/// no padding: the AVX2 triangle batches read each record's last 16 bytes
/// (z, the snapped position, the outcode) in one load (`raster::simd`,
/// which checks these offsets when it compiles).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(crate) struct SetupVertex {
    pub win: WinVertex,
    /// Outcode ([`Guard::outcode`]), widened to fill the record.
    pub code: u32,
}

/// The vertex stage of one render: the meshes, their world matrices and
/// where each mesh's vertices begin in the concatenated vertex buffer.
pub(crate) struct VertexStage<'a> {
    pub meshes: &'a [Mesh],
    pub worlds: &'a [Mat4],
    /// Per mesh, the index of its first vertex in the buffers.
    pub offsets: &'a [u32],
    pub view_proj: Mat4,
    pub guard: Guard,
    /// Viewport width and height in pixels.
    pub width: f32,
    pub height: f32,
}

impl VertexStage<'_> {
    /// Transforms every vertex into `verts` and `screen` (and, for color,
    /// its world position into `world_pos`), all as long as the scene's
    /// vertex count.
    ///
    /// One parallel pass over fixed chunks of the concatenated vertex buffer
    /// (not one pass per mesh: a scene of thousands of small meshes would pay
    /// a parallel dispatch each); a chunk spanning several meshes switches
    /// matrices at their boundaries.
    ///
    /// `kernel` makes the records of one mesh's run of vertices, as
    /// [`vertices_portable`] does (the caller picks the build:
    /// `raster::simd::vertices`, which this file does not import, so that
    /// the stage's kernels may use its records).
    #[inline]
    pub(crate) fn run(
        &self,
        verts: &mut [SetupVertex],
        screen: &mut [ScreenVertex],
        world_pos: Option<&mut [Vec3]>,
        kernel: impl Fn(&Mat4, &[Vec3], &Guard, (f32, f32), &mut [SetupVertex], &mut [ScreenVertex])
            + Sync,
    ) {
        let (offsets, worlds, meshes) = (self.offsets, self.worlds, self.meshes);
        let (vp, guard, wf, hf) = (self.view_proj, self.guard, self.width, self.height);
        let run = |k: usize,
                   out: &mut [SetupVertex],
                   sv: &mut [ScreenVertex],
                   wp: Option<&mut [Vec3]>| {
            let start = k * CHUNK_VERTS;
            let end = start + out.len();
            let mut wp = wp;
            let mut mi = offsets.partition_point(|&o| o as usize <= start) - 1;
            let mut at = start;
            while at < end {
                let m_start = offsets[mi] as usize;
                let m_end = m_start + meshes[mi].positions().len();
                let stop = m_end.min(end);
                if stop > at {
                    Mesh::prefetch_ahead(meshes, mi, Mesh::prefetch_positions);
                    let world = worlds[mi];
                    let mvp = vp * world;
                    let pos = &meshes[mi].positions()[at - m_start..stop - m_start];
                    let (o, s) = (
                        &mut out[at - start..stop - start],
                        &mut sv[at - start..stop - start],
                    );
                    kernel(&mvp, pos, &guard, (wf, hf), o, s);
                    if let Some(wp) = wp.as_deref_mut() {
                        for (o, p) in wp[at - start..stop - start].iter_mut().zip(pos) {
                            *o = world.transform_point3(*p);
                        }
                    }
                    at = stop;
                }
                mi += 1;
            }
        };
        let work = verts
            .par_chunks_mut(CHUNK_VERTS)
            .zip(screen.par_chunks_mut(CHUNK_VERTS))
            .enumerate();
        match world_pos {
            Some(world_pos) => work
                .zip(world_pos.par_chunks_mut(CHUNK_VERTS))
                .for_each(|((k, (o, s)), w)| run(k, o, s, Some(w))),
            None => work.for_each(|(k, (o, s))| run(k, o, s, None)),
        }
    }
}

/// The vertex stage's records of the model-space points `pos` under the
/// matrix `mvp` into `out` and `screen` (as long as `pos`), one vertex at
/// a time: in blocks, first the clip coordinates, then the rest (one long
/// chain per vertex, matrix to snap, left few vertices in flight at once).
#[inline]
pub(crate) fn vertices_portable(
    mvp: &Mat4,
    pos: &[Vec3],
    guard: &Guard,
    (w, h): (f32, f32),
    out: &mut [SetupVertex],
    screen: &mut [ScreenVertex],
) {
    let mut clips = [Vec4::ZERO; VERTEX_BLOCK];
    for ((o, s), pos) in out
        .chunks_mut(VERTEX_BLOCK)
        .zip(screen.chunks_mut(VERTEX_BLOCK))
        .zip(pos.chunks(VERTEX_BLOCK))
    {
        for (c, p) in clips.iter_mut().zip(pos) {
            *c = clip_of(mvp, *p);
        }
        for ((v, s), &clip) in o.iter_mut().zip(s.iter_mut()).zip(&clips) {
            *v = vertex_of(clip, guard, w, h);
            *s = screen_of(v, clip);
        }
    }
}

/// The screen-space vertex of the record `v` of clip coordinates `clip`.
#[inline(always)]
pub(crate) fn screen_of(v: &SetupVertex, clip: Vec4) -> ScreenVertex {
    ScreenVertex {
        x: v.win.x,
        y: v.win.y,
        z: v.win.z,
        w: clip.w,
    }
}

/// The vertex stage's output for clip coordinates `clip`.
#[inline]
pub(crate) fn vertex_of(clip: Vec4, guard: &Guard, w: f32, h: f32) -> SetupVertex {
    let code = guard.outcode(clip);
    let win = if code & (CLIP_MASK | OUT_INVALID) == 0 {
        win_vertex(clip, w, h)
    } else {
        WinVertex::default()
    };
    SetupVertex {
        win,
        code: u32::from(code),
    }
}

/// Clip coordinates of a model-space point (the vertex stage's, recomputed
/// bit-identically for triangles that need clipping).
#[inline(always)]
pub(crate) fn clip_of(mvp: &Mat4, p: Vec3) -> Vec4 {
    *mvp * Vec4::new(p.x, p.y, p.z, 1.0)
}

/// The window vertex of clip coordinates inside the guard band, clamped to
/// ±3·[`rules::GUARD_BAND_PX`] and snapped.
#[inline]
pub(crate) fn win_vertex(clip: Vec4, w: f32, h: f32) -> WinVertex {
    let s = clip_to_window(clip, w, h);
    let lim = 3.0 * rules::GUARD_BAND_PX;
    let (x, y) = (s.x.clamp(-lim, lim), s.y.clamp(-lim, lim));
    WinVertex {
        x,
        y,
        z: s.z,
        fx: snap_in_band(x),
        fy: snap_in_band(y),
    }
}
