//! Meshes: shared geometry (positions, triangles, BVH) behind a handle
//! with its own name and color.

use std::sync::{Arc, OnceLock};

use glam::Vec3;

use crate::accel::bvh::{Bvh, Refit};
use crate::error::Error;
use crate::geometry::Aabb;
use crate::limits::OCCLUSION_CHUNK_TRIS;
use crate::par::prelude::*;

/// A triangle mesh in its local space: a handle on shared geometry (its
/// positions, triangles and BVH) and its own name and color.
///
/// Cloning a mesh is cheap and shares the geometry and its BVH: that is how
/// instances work ([`Scene::add_instance`](super::Scene::add_instance): every instance of a mesh walks
/// the one BVH). [`Scene::clone_without_bvhs`](super::Scene::clone_without_bvhs) copies the geometry instead.
#[derive(Clone, Debug)]
pub struct Mesh {
    name: Arc<str>,
    color: [u8; 3],
    pub(super) geometry: Arc<Geometry>,
}

/// The part of a [`Mesh`] its instances share.
#[derive(Debug)]
pub(super) struct Geometry {
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    invalid: usize,
    bounds: Aabb,
    bvh: OnceLock<Bvh>,
    /// The boxes of runs of [`OCCLUSION_CHUNK_TRIS`] triangles, made on
    /// first use ([`Mesh::chunk_boxes`]).
    chunk_boxes: OnceLock<Vec<Aabb>>,
}

impl Geometry {
    /// Bounds of the finite positions, and the triangles touching another.
    fn measure(positions: &[Vec3], triangles: &[[u32; 3]]) -> (Aabb, usize) {
        let mut bounds = Aabb::empty();
        for p in positions {
            if p.is_finite() {
                bounds.grow(*p);
            }
        }
        let invalid = triangles
            .iter()
            .filter(|t| t.iter().any(|&v| !positions[v as usize].is_finite()))
            .count();
        (bounds, invalid)
    }

    /// The same positions and triangles, without the BVH.
    pub(super) fn unbuilt_copy(&self) -> Self {
        Self {
            positions: self.positions.clone(),
            triangles: self.triangles.clone(),
            invalid: self.invalid,
            bounds: self.bounds,
            bvh: OnceLock::new(),
            chunk_boxes: OnceLock::new(),
        }
    }
}

impl Mesh {
    /// A mesh from positions and triangles (vertex indices, counter-clockwise
    /// front faces). Triangles touching a non-finite position are kept (so
    /// numbering follows the input) but are never drawn nor hit;
    /// [`Mesh::invalid_triangles`] counts them.
    ///
    /// # Errors
    /// [`Error::InvalidMesh`] when a triangle names a vertex past the
    /// positions.
    pub fn new(
        name: impl Into<Arc<str>>,
        positions: Vec<Vec3>,
        triangles: Vec<[u32; 3]>,
        color: [u8; 3],
    ) -> Result<Self, Error> {
        let n = positions.len();
        if let Some((i, t)) = triangles
            .iter()
            .enumerate()
            .find(|(_, t)| t.iter().any(|&v| v as usize >= n))
        {
            return Err(Error::InvalidMesh(format!(
                "triangle {i} refers to vertex {} but the mesh has {n} vertices",
                t.iter().max().copied().unwrap_or(0)
            )));
        }
        let (bounds, invalid) = Geometry::measure(&positions, &triangles);
        Ok(Self {
            name: name.into(),
            color,
            geometry: Arc::new(Geometry {
                positions,
                triangles,
                invalid,
                bounds,
                bvh: OnceLock::new(),
                chunk_boxes: OnceLock::new(),
            }),
        })
    }

    /// The `i`-th color of softpick's palette (distinct, golden-ratio
    /// hues): the color the loaders give a mesh without a material color
    /// (mesh `i` of an OBJ file, 0 for an STL or PLY file).
    #[must_use]
    pub fn palette_color(i: u32) -> [u8; 3] {
        super::palette_color(i)
    }

    /// The mesh name (the OBJ `o`/`g` name).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name as a shared string (cheap to clone into hits).
    #[must_use]
    pub fn name_arc(&self) -> &Arc<str> {
        &self.name
    }

    /// Local-space vertex positions.
    #[must_use]
    pub fn positions(&self) -> &[Vec3] {
        &self.geometry.positions
    }

    /// The hints of a stage walking `meshes` in order, at mesh `m`. A
    /// stage over many small meshes reads each from its own allocations,
    /// runs too short for the hardware's prefetcher to follow: it asks for
    /// the shared part of the mesh three ahead (the lines of its
    /// positions' and triangles' addresses and of its chunk boxes' cell)
    /// and, with `data`, for the data of the mesh two ahead
    /// ([`Mesh::prefetch_positions`], [`Mesh::prefetch_triangles`],
    /// [`Mesh::prefetch_chunk_boxes`]), whose addresses are then in the
    /// cache. Hints: no result changes.
    #[inline(always)]
    pub(crate) fn prefetch_ahead(meshes: &[Mesh], m: usize, data: impl FnOnce(&Mesh)) {
        if let Some(ahead) = meshes.get(m + 3) {
            let g = &*ahead.geometry;
            crate::cpu::prefetch(g);
            crate::cpu::prefetch(&g.chunk_boxes);
        }
        if let Some(ahead) = meshes.get(m + 2) {
            data(ahead);
        }
    }

    /// Hints the caches to fetch the first 2 KB of the positions (32 lines; see
    /// [`Mesh::prefetch_ahead`]).
    #[inline(always)]
    pub(crate) fn prefetch_positions(&self) {
        crate::cpu::prefetch_start(&self.geometry.positions, 32);
    }

    /// Hints the caches to fetch the first 2 KB of the triangles (32 lines; see
    /// [`Mesh::prefetch_ahead`]).
    #[inline(always)]
    pub(crate) fn prefetch_triangles(&self) {
        crate::cpu::prefetch_start(&self.geometry.triangles, 32);
    }

    /// Hints the caches to fetch the first 1 KB of the chunk boxes, when
    /// they are made (a hint: nothing is made here; see
    /// [`Mesh::prefetch_ahead`]).
    #[inline(always)]
    pub(crate) fn prefetch_chunk_boxes(&self) {
        if let Some(b) = self.geometry.chunk_boxes.get() {
            crate::cpu::prefetch_start(b, 16);
        }
    }

    /// Triangles as vertex index triples.
    #[must_use]
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.geometry.triangles
    }

    /// Diffuse color (sRGB bytes).
    #[must_use]
    pub fn color(&self) -> [u8; 3] {
        self.color
    }

    /// Sets the diffuse color.
    pub fn set_color(&mut self, c: [u8; 3]) {
        self.color = c;
    }

    /// Triangles that touch a non-finite vertex (never drawn or hit).
    #[must_use]
    pub fn invalid_triangles(&self) -> usize {
        self.geometry.invalid
    }

    /// Local-space bounds of the finite vertices.
    #[must_use]
    pub fn bounds(&self) -> Aabb {
        self.geometry.bounds
    }

    /// The three local-space corners of triangle `t`.
    #[must_use]
    pub fn triangle(&self, t: u32) -> [Vec3; 3] {
        let g = &self.geometry;
        let [a, b, c] = g.triangles[t as usize];
        [
            g.positions[a as usize],
            g.positions[b as usize],
            g.positions[c as usize],
        ]
    }

    /// The mesh's BVH, built on first use (in parallel for large meshes) and
    /// then reused by this mesh and every instance sharing its geometry; it
    /// lives in local space, so moving the mesh's node does not invalidate it.
    #[must_use]
    pub(crate) fn bvh(&self) -> &Bvh {
        let g = &*self.geometry;
        g.bvh.get_or_init(|| Bvh::build(&g.positions, &g.triangles))
    }

    /// Per run of [`OCCLUSION_CHUNK_TRIS`] consecutive triangles (the
    /// last run may be shorter), the local-space box of their finite
    /// corners (empty when they have none): made on first use, in
    /// parallel for large meshes, and shared like the BVH; moving the
    /// vertices makes new ones. The occlusion cull's bounds.
    #[must_use]
    pub(crate) fn chunk_boxes(&self) -> &[Aabb] {
        let g = &*self.geometry;
        g.chunk_boxes.get_or_init(|| {
            g.triangles
                .par_chunks(OCCLUSION_CHUNK_TRIS)
                .map(|run| {
                    let mut b = Aabb::empty();
                    for &i in run.iter().flatten() {
                        let p = g.positions[i as usize];
                        if p.is_finite() {
                            b.grow(p);
                        }
                    }
                    b
                })
                .collect()
        })
    }

    /// Do both meshes share one geometry (and so one BVH)?
    #[must_use]
    pub fn shares_geometry(&self, other: &Mesh) -> bool {
        Arc::ptr_eq(&self.geometry, &other.geometry)
    }
}

impl Mesh {
    /// Moves the vertices to `positions` (as many as before), keeping the
    /// triangles: this mesh's geometry stops being shared with its other
    /// instances (their copy keeps the old positions), and a BVH already
    /// built is refit ([`Bvh::refit`], which rebuilds when it must); `None`
    /// when none was built yet.
    pub(super) fn replace_positions(
        &mut self,
        positions: Vec<Vec3>,
    ) -> Result<Option<Refit>, String> {
        let n = self.geometry.positions.len();
        if positions.len() != n {
            return Err(format!(
                "{} positions for a mesh of {n} vertices",
                positions.len()
            ));
        }
        if Arc::get_mut(&mut self.geometry).is_none() {
            let g = &*self.geometry;
            let bvh = OnceLock::new();
            if let Some(b) = g.bvh.get() {
                let _ = bvh.set(b.clone());
            }
            self.geometry = Arc::new(Geometry {
                positions: Vec::new(),
                triangles: g.triangles.clone(),
                invalid: g.invalid,
                bounds: g.bounds,
                bvh,
                chunk_boxes: OnceLock::new(),
            });
        }
        let g = Arc::get_mut(&mut self.geometry).expect("unique after the copy above");
        g.positions = positions;
        g.chunk_boxes = OnceLock::new();
        (g.bounds, g.invalid) = Geometry::measure(&g.positions, &g.triangles);
        Ok(g.bvh
            .get_mut()
            .map(|b| b.refit_or_rebuild(&g.positions, &g.triangles)))
    }
}
