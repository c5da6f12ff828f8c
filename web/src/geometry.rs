//! What the objects of a page draw: geometries (positions, triangles in
//! primitives, what deforms them), and the windings their triangles take
//! in softpick for three.js's material sides.
//!
//! **Sides.** three.js culls per material (`FrontSide` keeps faces whose
//! corners run counter-clockwise in the object's own space, `BackSide` the
//! others, `DoubleSide` both); softpick culls per query and per render,
//! with front meaning counter-clockwise in world space. So every primitive
//! of every instance is given the winding that makes softpick's
//! back-face culling keep what three.js keeps: as is (front side, not
//! mirrored), reversed (back side, or front side mirrored), or both
//! windings (double side). When every primitive is double-sided, nothing
//! is culled and the windings stay as they are.

use glam::Vec3;
use softpick::{CullMode, Mesh};

/// three.js's material sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Front,
    Back,
    Double,
}

impl Side {
    pub(crate) fn from_code(c: u8) -> Result<Side, String> {
        match c {
            0 => Ok(Side::Front),
            1 => Ok(Side::Back),
            2 => Ok(Side::Double),
            _ => Err(format!("side {c} is not 0 (front), 1 (back) or 2 (double)")),
        }
    }
}

/// How a primitive's triangles go into softpick (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Winding {
    Plain = 0,
    Reversed = 1,
    Both = 2,
}

impl Winding {
    pub(crate) fn of(side: Side, mirrored: bool, cull: CullMode) -> Winding {
        match (cull, side, mirrored) {
            (CullMode::None, _, _) => Winding::Plain,
            (_, Side::Double, _) => Winding::Both,
            (_, Side::Front, false) | (_, Side::Back, true) => Winding::Plain,
            _ => Winding::Reversed,
        }
    }

    /// The triangles of a primitive in this winding.
    pub(crate) fn triangles(self, tris: &[[u32; 3]]) -> Vec<[u32; 3]> {
        let rev = tris.iter().map(|&[a, b, c]| [a, c, b]);
        match self {
            Winding::Plain => tris.to_vec(),
            Winding::Reversed => rev.collect(),
            Winding::Both => tris.iter().copied().chain(rev).collect(),
        }
    }
}

/// A run of triangles drawn with one material (a three.js geometry group,
/// or the whole geometry).
#[derive(Clone, Debug)]
pub(crate) struct Prim {
    /// The index position of its first triangle (three.js's `j`: face
    /// index `⌊j / 3⌋`, corners `index[j..j + 3]`).
    pub(crate) first: u32,
    pub(crate) tris: Vec<[u32; 3]>,
}

/// What deforms a geometry: joint influences and morph targets.
#[derive(Clone, Debug, Default)]
pub(crate) struct Deform {
    pub(crate) joints: Vec<[u16; 4]>,
    pub(crate) weights: Vec<[f32; 4]>,
    /// Per target, a position delta per vertex.
    pub(crate) targets: Vec<Vec<Vec3>>,
}

/// Positions in primitives, with the softpick meshes of each winding
/// (their BVHs shared by every undeformed object that uses them).
pub(crate) struct Geometry {
    pub(crate) positions: Vec<Vec3>,
    pub(crate) prims: Vec<Prim>,
    pub(crate) deform: Deform,
    variants: [Option<Vec<Mesh>>; 3],
    /// Counts the changes of positions, joint influences or morph targets
    /// (what the cluster trees of lazy poses, `lazy`, are made of).
    pub(crate) revision: u32,
}

impl Geometry {
    /// A geometry: `indices` (or none: vertices in threes) and `ranges`,
    /// pairs of index positions `[start, end)` of its primitives (none: one
    /// over everything), read as three.js's raycast reads them.
    pub(crate) fn new(
        positions: &[f32],
        indices: Option<&[u32]>,
        ranges: Option<&[u32]>,
    ) -> Result<Geometry, String> {
        if !positions.len().is_multiple_of(3) {
            return Err(format!(
                "{} position values is not a whole number of (x, y, z) vertices",
                positions.len()
            ));
        }
        let n = positions.len() / 3;
        if u32::try_from(n).is_err() {
            return Err(format!("{n} vertices is too many"));
        }
        let positions: Vec<Vec3> = positions
            .chunks_exact(3)
            .map(|p| Vec3::new(p[0], p[1], p[2]))
            .collect();
        let count = indices.map_or(n, <[u32]>::len);
        let whole = [0, count as u32];
        let ranges = ranges.unwrap_or(&whole);
        if !ranges.len().is_multiple_of(2) {
            return Err("ranges must be pairs of start and end".into());
        }
        let mut prims = Vec::with_capacity(ranges.len() / 2);
        for r in ranges.chunks_exact(2) {
            let (start, end) = (r[0] as usize, (r[1] as usize).min(count));
            let mut tris = Vec::new();
            let mut j = start;
            // (three.js reads whole triangles from `start` while j < end)
            while j < end && j + 2 < count {
                let t = match indices {
                    Some(ix) => [ix[j], ix[j + 1], ix[j + 2]],
                    None => [j as u32, j as u32 + 1, j as u32 + 2],
                };
                if let Some(&v) = t.iter().find(|&&v| v as usize >= n) {
                    return Err(format!(
                        "index {v} at position {} is out of range: the geometry has {n} vertices",
                        j + t.iter().position(|&x| x == v).unwrap_or(0)
                    ));
                }
                tris.push(t);
                j += 3;
            }
            prims.push(Prim {
                first: start as u32,
                tris,
            });
        }
        Ok(Geometry {
            positions,
            prims,
            deform: Deform::default(),
            variants: [None, None, None],
            revision: 0,
        })
    }

    /// The softpick meshes of the primitives in a winding (made once).
    pub(crate) fn meshes(&mut self, w: Winding) -> &[Mesh] {
        let (positions, prims) = (&self.positions, &self.prims);
        self.variants[w as usize].get_or_insert_with(|| {
            prims
                .iter()
                .map(|p| mesh_of(positions.clone(), &p.tris, w))
                .collect()
        })
    }

    /// New positions (as many as before): the meshes are made again.
    pub(crate) fn set_positions(&mut self, positions: &[f32]) -> Result<(), String> {
        if positions.len() != self.positions.len() * 3 {
            return Err(format!(
                "{} position values for a geometry of {} vertices",
                positions.len(),
                self.positions.len()
            ));
        }
        for (p, v) in self.positions.iter_mut().zip(positions.chunks_exact(3)) {
            *p = Vec3::new(v[0], v[1], v[2]);
        }
        self.variants = [None, None, None];
        self.deform_changed();
        Ok(())
    }

    /// Its joint influences or morph targets changed.
    pub(crate) fn deform_changed(&mut self) {
        self.revision = self.revision.wrapping_add(1);
    }

    pub(crate) fn vertex_count(&self) -> usize {
        self.positions.len()
    }
}

pub(crate) fn mesh_of(positions: Vec<Vec3>, tris: &[[u32; 3]], w: Winding) -> Mesh {
    // (indices were checked when the geometry was made)
    Mesh::new("", positions, w.triangles(tris), [200, 200, 200])
        .expect("indices checked against the vertices")
}
