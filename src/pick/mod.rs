//! Picks: what is under a pixel.
//!
//! Three methods answer the same question and agree ([`PickMethod`]):
//! - buffer: an O(1) lookup in the ID buffer (`buffer`);
//! - direct: no ID buffer, the point is tested against the set-up
//!   triangles near the pixel (a per-frame cell index over the tile bins,
//!   built on the first direct pick) with the same integer edge functions
//!   and depth plane; it returns exactly what the buffer returns at every
//!   pixel (`direct`);
//! - ray: a 3D ray through the pixel centre against the meshes' BVHs (see
//!   [`ray`]).
//!
//! [`Frame::picks`] checks a frame against its scene once and returns the
//! view ([`Picks`], `view`) through which every pick is asked.

pub(crate) mod buffer;
pub(crate) mod direct;
pub mod ray;
pub(crate) mod simd;
mod view;

pub use view::Picks;

use std::sync::Arc;

use glam::Vec3;

use crate::frame::Frame;
use crate::scene::{MeshId, MeshOrigin, Scene};

/// Pick method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PickMethod {
    /// ID-buffer lookup.
    #[default]
    Buffer,
    /// Point-in-triangle on the screen-space triangles.
    Direct,
    /// 3D ray cast.
    Ray,
}

impl PickMethod {
    /// All methods.
    pub const ALL: [PickMethod; 3] = [PickMethod::Buffer, PickMethod::Direct, PickMethod::Ray];

    /// Command-line name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PickMethod::Buffer => "buffer",
            PickMethod::Direct => "direct",
            PickMethod::Ray => "ray",
        }
    }
}

/// The compact answer of a pick: which triangle, at what window depth.
///
/// `Copy`, 16 bytes, no allocation: what [`Picks::id_at`],
/// [`Picks::span`] and [`Picks::block`] give for bulk work (pick maps,
/// sweeps). [`Picks::hit`] expands it into a full [`Hit`] (world position,
/// barycentrics, normal, mesh name).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PickId {
    /// Mesh id (index in the scene).
    pub mesh: MeshId,
    /// Triangle index within the mesh.
    pub triangle: u32,
    /// Global triangle index (file order over all meshes).
    pub global_triangle: u32,
    /// Window depth 0..1 at the pixel centre.
    pub depth: f32,
}

impl PickId {
    /// The pick of global triangle `global` at window depth `depth`; `None`
    /// when the scene has no such triangle.
    #[inline]
    pub(crate) fn locate(scene: &Scene, global: u32, depth: f32) -> Option<Self> {
        let (mesh, triangle) = scene.locate(global)?;
        Some(Self {
            mesh,
            triangle,
            global_triangle: global,
            depth,
        })
    }
}

/// What a pick or ray cast hit.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// Mesh id (index in the scene).
    pub mesh: MeshId,
    /// Mesh name.
    pub mesh_name: Arc<str>,
    /// Triangle index within the mesh.
    pub triangle: u32,
    /// Global triangle index (file order over all meshes).
    pub global_triangle: u32,
    /// The mesh's instance, node, file mesh and primitive
    /// ([`crate::Scene::mesh_origin`]); `triangle` counts within that primitive.
    pub origin: MeshOrigin,
    /// The instance's node name.
    pub node_name: Arc<str>,
    /// Window depth 0..1 of the hit point.
    pub depth: f32,
    /// Distance along the pick ray from its origin.
    pub distance: f32,
    /// World-space position.
    pub position: Vec3,
    /// Barycentric weights of the triangle's vertices 0, 1, 2 at the hit
    /// (perspective-correct: they are weights of the world-space corners).
    pub barycentric: Vec3,
    /// Unit geometric normal in world space ((v1-v0)×(v2-v0)).
    pub normal: Vec3,
    /// True when the ray sees the triangle counter-clockwise (front face).
    pub front_face: bool,
}

impl Frame {
    /// Builds the full hit record for triangle `global` at a window point
    /// with a known window depth (buffer and direct picks).
    pub(crate) fn hit_at(
        &self,
        scene: &Scene,
        global: u32,
        x: f32,
        y: f32,
        depth: f32,
    ) -> Option<Hit> {
        let cam = self.camera.as_ref()?;
        let (mesh, local) = scene.locate(global)?;
        let m = scene.mesh(mesh)?;
        let world = self
            .worlds
            .get(mesh as usize)
            .copied()
            .unwrap_or_else(|| scene.mesh_world(mesh));
        let p = m.triangle(local).map(|q| world.transform_point3(q));
        let ray = cam.ray_through_with(&self.inv_view_proj, x, y);
        let position = cam.unproject_with(&self.inv_view_proj, x, y, depth);
        let n = (p[1] - p[0]).cross(p[2] - p[0]);
        // barycentrics of the point where the pixel ray meets the triangle's plane
        let denom = n.dot(ray.direction);
        let q = if denom != 0.0 {
            ray.at(n.dot(p[0] - ray.origin) / denom)
        } else {
            position
        };
        let (origin, node_name) = scene.hit_origin(mesh);
        Some(Hit {
            mesh,
            mesh_name: m.name_arc().clone(),
            triangle: local,
            global_triangle: global,
            origin,
            node_name,
            depth,
            distance: (position - ray.origin).dot(ray.direction),
            position,
            barycentric: barycentric(p, q),
            normal: face_normal(p),
            front_face: denom < 0.0,
        })
    }
}

/// Barycentric weights of `q` with respect to triangle `p` (projected onto its plane).
pub(crate) fn barycentric(p: [Vec3; 3], q: Vec3) -> Vec3 {
    let (e0, e1, d) = (
        (p[1] - p[0]).as_dvec3(),
        (p[2] - p[0]).as_dvec3(),
        (q - p[0]).as_dvec3(),
    );
    let (a, b, c) = (e0.dot(e0), e0.dot(e1), e1.dot(e1));
    let (d0, d1) = (d.dot(e0), d.dot(e1));
    let den = a * c - b * b;
    if den == 0.0 {
        return Vec3::new(1.0, 0.0, 0.0);
    }
    let v = (c * d0 - b * d1) / den;
    let w = (a * d1 - b * d0) / den;
    Vec3::new((1.0 - v - w) as f32, v as f32, w as f32)
}

/// The unit normal of a world-space triangle (counter-clockwise corners
/// facing the viewer), the `normal` of every [`Hit`]: the cross product is
/// taken in f64, so neither a triangle 10^20 units wide (whose f32 cross
/// product overflows) nor one 10^-20 wide (whose f32 cross product
/// underflows to zero) loses its normal. Zero for a degenerate triangle.
#[must_use]
pub(crate) fn face_normal(p: [Vec3; 3]) -> Vec3 {
    let [a, b, c] = p.map(Vec3::as_dvec3);
    (b - a).cross(c - a).normalize_or_zero().as_vec3()
}

#[cfg(test)]
mod tests;
