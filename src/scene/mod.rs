//! Scenes: meshes, a node hierarchy with local transforms, world matrices.
//!
//! World matrices are never cached: [`Scene::world_matrix`] walks the
//! parent chain every time it is asked (renders and picks ask once per mesh),
//! so a moved node or ancestor can never leave a stale matrix behind.

mod animation;
mod mesh;
mod pose;

use std::sync::{Arc, OnceLock};

use glam::{Mat4, Quat, Vec3};

use crate::accel::bvh::Bvh;
use crate::accel::transforms::{MeshTransform, MeshTransforms};
use crate::limits::LOCATE_COUNT_MESHES;
pub use animation::{Animation, Channel, ChannelPath, Interpolation, LoopMode};
use mesh::Geometry;
pub use mesh::Mesh;
pub use pose::{Deformer, PoseStats, Skin};

pub use crate::geometry::Aabb;

/// Index of a mesh in a [`Scene`] (the "mesh id" of picks).
pub type MeshId = u32;
/// Index of a node in a [`Scene`].
pub type NodeId = u32;
/// Index of an instance in a [`Scene`] ([`Scene::instances`]).
pub type InstanceId = u32;

/// One placement of one of a file's meshes: the node that places it and
/// the mesh it draws. A glTF mesh used by three nodes has three instances;
/// each OBJ, STL or PLY mesh, and each [`Scene::add_mesh`], has one of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The node whose world matrix places the instance.
    pub node: NodeId,
    /// That node's name.
    pub name: Arc<str>,
    /// The file's mesh it draws (glTF `meshes[i]`); for the other formats
    /// and [`Scene::add_mesh`], the scene mesh id.
    pub source_mesh: u32,
}

/// Where a scene mesh (one per primitive of each instance) comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeshOrigin {
    /// Its instance.
    pub instance: InstanceId,
    /// The instance's node.
    pub node: NodeId,
    /// The file's mesh ([`Instance::source_mesh`]).
    pub source_mesh: u32,
    /// The primitive of that mesh (glTF `meshes[i].primitives[j]`; 0 for
    /// the other formats).
    pub primitive: u32,
}

/// Translation, rotation, scale (applied scale first, then rotation, then translation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Translation.
    pub translation: Vec3,
    /// Rotation.
    pub rotation: Quat,
    /// Non-uniform scale.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// No transform.
    pub const IDENTITY: Transform = Transform {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// A pure translation.
    #[must_use]
    pub fn from_translation(t: Vec3) -> Self {
        Self {
            translation: t,
            ..Self::IDENTITY
        }
    }

    /// The matrix `T * R * S`.
    #[must_use]
    pub fn matrix(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// A node of the hierarchy.
#[derive(Clone, Debug)]
pub struct Node {
    /// Node name.
    pub name: String,
    /// Transform relative to the parent.
    pub local: Transform,
    /// Parent node, if any.
    pub parent: Option<NodeId>,
    /// Mesh drawn at this node, if any.
    pub mesh: Option<MeshId>,
}

/// Meshes placed by a node hierarchy.
///
/// Every scene value has its own identity (a clone gets a new one) and a
/// revision that each change of its geometry or transforms advances: a
/// [`crate::Frame`] remembers both ([`crate::Frame::picks`] checks them), so that picking it
/// with another scene, or after its scene changed, is an error instead of a
/// wrong answer.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    identity: Identity,
    revision: u64,
    meshes: Vec<Mesh>,
    nodes: Vec<Node>,
    mesh_node: Vec<NodeId>,
    instances: Vec<Instance>,
    origins: Vec<MeshOrigin>,
    /// Per node: the morph weights it sets for its meshes (empty: none).
    morph_weights: Vec<Vec<f32>>,
    /// Per instance: the skin that deforms it.
    instance_skin: Vec<Option<u32>>,
    /// Per mesh: what deforms it ([`Scene::pose`]).
    deformers: Vec<Option<Arc<Deformer>>>,
    skins: Vec<Skin>,
    animations: Vec<Animation>,
    tri_offset: Vec<u32>,
    framing: Option<Aabb>,
    flat: FlatBvh,
    transforms: RayTransforms,
}

/// Which scene value, in which state: its identity and revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SceneStamp {
    id: u64,
    revision: u64,
}

impl SceneStamp {
    /// Do both stamps name the same scene value (in any state)?
    pub(crate) fn same_scene(&self, other: &SceneStamp) -> bool {
        self.id == other.id
    }
}

/// A scene value's identity: new for every scene made or cloned in this
/// process, so a copy, which changes independently, never passes for the
/// original.
#[derive(Debug)]
struct Identity(u64);

impl Default for Identity {
    fn default() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Self(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl Clone for Identity {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// The lazily built BVH over all of a scene's triangles ([`Scene::flat_bvh`]),
/// shared by clones like the meshes' own BVHs; [`Scene::clone_without_bvhs`]
/// starts without it.
#[derive(Clone, Debug, Default)]
struct FlatBvh(Arc<OnceLock<Bvh>>);

/// The meshes' transforms for ray queries at the scene's current world
/// matrices ([`Scene::mesh_transforms`]): made at the first query after a
/// change, so that queries in a loop (a cast of a few rays per call) do
/// not redo a matrix inverse and a box per mesh each time. A clone starts
/// without them.
#[derive(Debug, Default)]
struct RayTransforms(OnceLock<MeshTransforms>);

impl Clone for RayTransforms {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl Scene {
    /// An empty scene.
    #[must_use]
    pub fn new() -> Self {
        Self {
            tri_offset: vec![0],
            ..Self::default()
        }
    }

    /// The identity and revision of this scene as it is now.
    pub(crate) fn stamp(&self) -> SceneStamp {
        SceneStamp {
            id: self.identity.0,
            revision: self.revision,
        }
    }

    /// Records a change of the geometry or transforms that frames see
    /// (and forgets the transforms made for the state before).
    fn changed(&mut self) {
        self.revision += 1;
        self.transforms = RayTransforms::default();
    }

    /// The meshes' transforms for ray queries at the current world
    /// matrices, made at the first call after a change.
    pub(crate) fn mesh_transforms(&self) -> &MeshTransforms {
        self.transforms
            .0
            .get_or_init(|| self.mesh_transforms_at(&self.world_matrices()))
    }

    /// The meshes' transforms at `worlds` (one per mesh; as many as both
    /// have), made in parallel for a scene of many meshes ([`per_mesh`]).
    pub(crate) fn mesh_transforms_at(&self, worlds: &[Mat4]) -> MeshTransforms {
        let meshes = &self.meshes;
        let blank = MeshTransform::new(Mat4::IDENTITY, Aabb::empty());
        let mut list = vec![blank; meshes.len().min(worlds.len())];
        per_mesh(&mut list, |m, transform| {
            *transform = MeshTransform::new(worlds[m], meshes[m].bounds());
        });
        MeshTransforms::from_list(list)
    }

    /// Adds a node (without mesh). `parent` must be an existing node.
    ///
    /// # Panics
    /// When `parent` is not a node of this scene; see [`Scene::try_add_node`].
    pub fn add_node(&mut self, name: &str, local: Transform, parent: Option<NodeId>) -> NodeId {
        self.try_add_node(name, local, parent)
            .expect("parent node does not exist")
    }

    /// Adds a node; `None` when `parent` does not exist.
    pub fn try_add_node(
        &mut self,
        name: &str,
        local: Transform,
        parent: Option<NodeId>,
    ) -> Option<NodeId> {
        if parent.is_some_and(|p| p as usize >= self.nodes.len()) {
            return None;
        }
        self.changed();
        self.morph_weights.push(Vec::new());
        self.nodes.push(Node {
            name: name.to_string(),
            local,
            parent,
            mesh: None,
        });
        Some((self.nodes.len() - 1) as NodeId)
    }

    /// Adds a mesh on a new node (named like the mesh) under `parent`, as an
    /// instance of its own.
    ///
    /// # Panics
    /// When `parent` is not a node of this scene.
    pub fn add_mesh(&mut self, mesh: Mesh, local: Transform, parent: Option<NodeId>) -> MeshId {
        let node = self.add_node(mesh.name(), local, parent);
        let id = self.meshes.len() as MeshId;
        let instance = self.push_instance(node, id);
        self.push_mesh(mesh, instance, 0)
    }

    /// Adds an instance: `node` places the file's mesh `source_mesh`, whose
    /// primitives [`Scene::add_primitive`] then adds. `None` when `node` does
    /// not exist.
    pub fn add_instance(&mut self, node: NodeId, source_mesh: u32) -> Option<InstanceId> {
        ((node as usize) < self.nodes.len()).then(|| self.push_instance(node, source_mesh))
    }

    /// Adds a scene mesh drawing primitive `primitive` of `instance`, placed
    /// by the instance's node. Instances of one file mesh pass clones of one
    /// [`Mesh`], so they share its geometry and BVH. `None` when `instance`
    /// does not exist.
    pub fn add_primitive(
        &mut self,
        instance: InstanceId,
        mesh: Mesh,
        primitive: u32,
    ) -> Option<MeshId> {
        ((instance as usize) < self.instances.len())
            .then(|| self.push_mesh(mesh, instance, primitive))
    }

    fn push_instance(&mut self, node: NodeId, source_mesh: u32) -> InstanceId {
        self.instance_skin.push(None);
        self.instances.push(Instance {
            node,
            name: self.nodes[node as usize].name.as_str().into(),
            source_mesh,
        });
        (self.instances.len() - 1) as InstanceId
    }

    fn push_mesh(&mut self, mesh: Mesh, instance: InstanceId, primitive: u32) -> MeshId {
        self.changed();
        let id = self.meshes.len() as MeshId;
        let inst = &self.instances[instance as usize];
        let node = inst.node;
        self.deformers.push(None);
        self.origins.push(MeshOrigin {
            instance,
            node,
            source_mesh: inst.source_mesh,
            primitive,
        });
        if self.tri_offset.is_empty() {
            self.tri_offset.push(0);
        }
        let last = *self.tri_offset.last().unwrap_or(&0);
        self.tri_offset
            .push(last.saturating_add(mesh.triangles().len() as u32));
        self.meshes.push(mesh);
        self.flat = FlatBvh::default();
        self.mesh_node.push(node);
        let n = &mut self.nodes[node as usize];
        n.mesh = n.mesh.or(Some(id));
        id
    }

    /// All instances, in the order they were added.
    #[must_use]
    pub fn instances(&self) -> &[Instance] {
        &self.instances
    }

    /// Where scene mesh `id` comes from: its instance, node, file mesh and
    /// primitive.
    #[must_use]
    pub fn mesh_origin(&self, id: MeshId) -> Option<MeshOrigin> {
        self.origins.get(id as usize).copied()
    }

    /// The origin of scene mesh `id` and its instance's name, for hits.
    pub(crate) fn hit_origin(&self, id: MeshId) -> (MeshOrigin, Arc<str>) {
        let origin = self.mesh_origin(id).unwrap_or_default();
        let name = self
            .instances
            .get(origin.instance as usize)
            .map_or_else(|| Arc::from(""), |i| i.name.clone());
        (origin, name)
    }

    /// A copy whose meshes do not share geometry or BVHs with this scene's
    /// (instances within the copy still share theirs): for timing the BVH
    /// builds of a scene already queried.
    #[must_use]
    pub fn clone_without_bvhs(&self) -> Scene {
        let mut copy = self.clone();
        copy.flat = FlatBvh::default();
        let mut done: Vec<(*const Geometry, Arc<Geometry>)> = Vec::new();
        for m in &mut copy.meshes {
            let key = Arc::as_ptr(&m.geometry);
            let g = match done.iter().find(|(k, _)| *k == key) {
                Some((_, g)) => g.clone(),
                None => {
                    let g = Arc::new(m.geometry.unbuilt_copy());
                    done.push((key, g.clone()));
                    g
                }
            };
            m.geometry = g;
        }
        copy
    }

    /// All meshes, in draw order.
    #[must_use]
    pub fn meshes(&self) -> &[Mesh] {
        &self.meshes
    }

    /// Mesh by id.
    #[must_use]
    pub fn mesh(&self, id: MeshId) -> Option<&Mesh> {
        self.meshes.get(id as usize)
    }

    /// Mutable mesh by id (its BVH stays valid only for color changes).
    pub fn mesh_mut(&mut self, id: MeshId) -> Option<&mut Mesh> {
        self.meshes.get_mut(id as usize)
    }

    /// All nodes.
    #[must_use]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The node that holds a mesh.
    #[must_use]
    pub fn mesh_node(&self, id: MeshId) -> Option<NodeId> {
        self.mesh_node.get(id as usize).copied()
    }

    /// A node's local transform.
    #[must_use]
    pub fn local(&self, node: NodeId) -> Option<Transform> {
        self.nodes.get(node as usize).map(|n| n.local)
    }

    /// Sets a node's local transform; false if the node does not exist.
    pub fn set_local(&mut self, node: NodeId, t: Transform) -> bool {
        match self.nodes.get_mut(node as usize) {
            Some(n) => {
                n.local = t;
                self.changed();
                true
            }
            None => false,
        }
    }

    /// Moves a node by `delta` in its parent's space.
    pub fn translate(&mut self, node: NodeId, delta: Vec3) -> bool {
        match self.nodes.get_mut(node as usize) {
            Some(n) => {
                n.local.translation += delta;
                self.changed();
                true
            }
            None => false,
        }
    }

    /// World matrix of a node: parent's world × local, walked fresh.
    #[must_use]
    pub fn world_matrix(&self, node: NodeId) -> Mat4 {
        let mut m = Mat4::IDENTITY;
        let mut cur = Some(node);
        let mut guard = 0;
        while let Some(n) = cur.and_then(|i| self.nodes.get(i as usize)) {
            m = n.local.matrix() * m;
            cur = n.parent;
            guard += 1;
            if guard > self.nodes.len() {
                break;
            }
        }
        m
    }

    /// World matrix of a mesh.
    #[must_use]
    pub fn mesh_world(&self, id: MeshId) -> Mat4 {
        self.mesh_node(id)
            .map_or(Mat4::IDENTITY, |n| self.world_matrix(n))
    }

    /// World matrices of all meshes, computed now.
    #[must_use]
    pub fn world_matrices(&self) -> Vec<Mat4> {
        let mut w = Vec::new();
        self.world_matrices_into(&mut w);
        w
    }

    /// [`Scene::world_matrices`] into `out` (one per mesh), reusing its
    /// memory; in parallel for a scene of many meshes ([`per_mesh`]).
    pub(crate) fn world_matrices_into(&self, out: &mut Vec<Mat4>) {
        out.resize(self.meshes.len(), Mat4::IDENTITY);
        per_mesh(out, |m, w| *w = self.mesh_world(m as MeshId));
    }

    /// [`Scene::locate`], trying mesh `hint` first (neighbouring pixels'
    /// picks often land on one mesh; the search takes a dozen steps in a
    /// scene of thousands of meshes). A scene of up to
    /// `LOCATE_COUNT_MESHES` meshes counts instead, without a branch:
    /// the mesh is the number of meshes that start at or before `global`,
    /// less one (the offsets rise, so it is the one `locate` finds), where
    /// a hint that random rays rarely confirm is a branch predicted wrong.
    #[inline(always)]
    pub(crate) fn locate_from(&self, global: u32, hint: MeshId) -> Option<(MeshId, u32)> {
        let offsets = &self.tri_offset;
        if offsets.len() <= LOCATE_COUNT_MESHES + 1 {
            if global >= self.triangle_count() {
                return None;
            }
            let m = offsets.iter().map(|&o| u32::from(o <= global)).sum::<u32>();
            let m = m.checked_sub(1)?;
            return Some((m, global - offsets.get(m as usize)?));
        }
        let h = hint as usize;
        if let (Some(&lo), Some(&hi)) = (self.tri_offset.get(h), self.tri_offset.get(h + 1)) {
            // (only a non-empty mesh holds `global`, and only one)
            if lo <= global && global < hi {
                return Some((hint, global - lo));
            }
        }
        self.locate(global)
    }

    /// Total number of triangles.
    #[must_use]
    pub fn triangle_count(&self) -> u32 {
        self.tri_offset.last().copied().unwrap_or(0)
    }

    /// Builds now the BVHs that ray queries use, instead of on the first
    /// query that needs them: with several meshes all placed by the identity
    /// matrix (as the meshes of an OBJ file are), the one BVH over all the
    /// scene's triangles that their first-hit queries walk; otherwise each
    /// mesh's own (`Mesh::bvh`, which the queries that cannot walk the
    /// first, such as those with a mesh filter, build when they need them).
    /// Large scenes are built in parallel; a small scene on the calling
    /// thread (waking the thread pool would cost more than the build).
    ///
    /// ```
    /// use glam::Vec3;
    /// use softpick::{builtin_scene, Ray, RayCaster, RayOptions};
    ///
    /// let scene = builtin_scene();
    /// scene.build_bvhs(); // the first ray below does not pay for them
    /// let down = Ray::new(Vec3::new(0.0, 10.0, 0.0), Vec3::NEG_Y);
    /// assert!(RayCaster::new(&scene).first(&down, &RayOptions::default()).is_some());
    /// ```
    pub fn build_bvhs(&self) {
        use crate::par::prelude::*;
        if self.meshes.len() > 1 && self.at_identity() {
            let _ = self.flat_bvh();
        } else if (self.triangle_count() as usize) < crate::accel::bvh::PAR_BUILD_MIN {
            self.meshes.iter().for_each(|m| {
                let _ = m.bvh();
            });
        } else {
            self.meshes.par_iter().for_each(|m| {
                let _ = m.bvh();
            });
        }
    }

    /// Is every mesh placed by exactly the identity matrix?
    fn at_identity(&self) -> bool {
        self.mesh_transforms().iter().all(|t| t.identity)
    }

    /// One BVH over the triangles of all meshes in their local coordinates,
    /// its triangle indices the global ones ([`Scene::global_triangle`]);
    /// built on first use, and the mesh's own BVH when the scene has one
    /// mesh. Ray queries walk it instead of the meshes' BVHs when every mesh
    /// is placed by the identity matrix (local coordinates are then world
    /// coordinates): the same triangle tests in the same coordinates, one
    /// walk instead of one per mesh, and the same answers (a tie in distance
    /// goes to the lower global index, which is the lower mesh, then the
    /// lower triangle).
    #[must_use]
    pub(crate) fn flat_bvh(&self) -> &Bvh {
        if let [m] = self.meshes.as_slice() {
            return m.bvh();
        }
        self.flat.0.get_or_init(|| {
            let vertices = self.meshes.iter().map(|m| m.positions().len()).sum();
            let mut positions = Vec::with_capacity(vertices);
            let mut tris = Vec::with_capacity(self.triangle_count() as usize);
            for m in &self.meshes {
                // (indices past u32 are excluded by the build as out of range)
                let base = u32::try_from(positions.len()).unwrap_or(u32::MAX);
                positions.extend_from_slice(m.positions());
                tris.extend(
                    m.triangles()
                        .iter()
                        .map(|t| t.map(|v| v.saturating_add(base))),
                );
            }
            Bvh::build(&positions, &tris)
        })
    }

    /// First global triangle index of each mesh, plus the total at the end.
    #[must_use]
    pub fn triangle_offsets(&self) -> &[u32] {
        &self.tri_offset
    }

    /// Global triangle index (file order) of a mesh-local triangle.
    #[must_use]
    pub fn global_triangle(&self, mesh: MeshId, local: u32) -> u32 {
        self.tri_offset[mesh as usize] + local
    }

    /// (mesh, local triangle) of a global triangle index.
    #[must_use]
    #[inline]
    pub fn locate(&self, global: u32) -> Option<(MeshId, u32)> {
        if global >= self.triangle_count() {
            return None;
        }
        // the last mesh whose first triangle is <= global (empty meshes
        // share their successor's offset and are skipped)
        let m = self.tri_offset.partition_point(|&o| o <= global) - 1;
        Some((m as MeshId, global - self.tri_offset[m]))
    }

    /// Triangles touching non-finite vertices, over all meshes.
    #[must_use]
    pub fn invalid_triangles(&self) -> usize {
        self.meshes.iter().map(Mesh::invalid_triangles).sum()
    }

    /// World-space bounds of all finite vertices.
    #[must_use]
    pub fn bounds(&self) -> Aabb {
        let mut b = Aabb::empty();
        for (i, m) in self.meshes.iter().enumerate() {
            let w = self.mesh_world(i as MeshId);
            for p in m.positions() {
                let q = w.transform_point3(*p);
                if q.is_finite() {
                    b.grow(q);
                }
            }
        }
        b
    }

    /// Bounds used for automatic camera framing: for a loaded OBJ, the box of
    /// every `v` line (as the peer harnesses measure it); otherwise [`Scene::bounds`].
    #[must_use]
    pub fn framing_bounds(&self) -> Aabb {
        self.framing.unwrap_or_else(|| self.bounds())
    }

    /// Overrides the framing bounds.
    pub fn set_framing_bounds(&mut self, b: Option<Aabb>) {
        self.framing = b;
    }
}

/// A deterministic, distinct color for index `i` (golden-ratio hues;
/// [`Mesh::palette_color`]).
#[must_use]
pub(crate) fn palette_color(i: u32) -> [u8; 3] {
    let h = (i as f32 * 0.618_034 + 0.13).fract();
    let s = 0.55 + 0.3 * ((i / 7) % 2) as f32;
    let v = 0.95 - 0.25 * ((i / 3) % 2) as f32;
    hsv(h, s, v)
}

fn hsv(h: f32, s: f32, v: f32) -> [u8; 3] {
    let i = (h * 6.0).floor();
    let f = h * 6.0 - i;
    let (p, q, t) = (v * (1.0 - s), v * (1.0 - f * s), v * (1.0 - (1.0 - f) * s));
    let (r, g, b) = match i as i32 % 6 {
        0 => (v, t, p),
        1 => (q, v, p),
        2 => (p, v, t),
        3 => (p, q, v),
        4 => (t, p, v),
        _ => (v, p, q),
    };
    [(r * 255.0) as u8, (g * 255.0) as u8, (b * 255.0) as u8]
}

/// Sets each item of `out` (one per mesh) by `f(mesh index, item)`, in
/// parallel from [`crate::limits::PAR_MESHES`] items: a pure function per
/// mesh, so the result does not depend on it.
pub(crate) fn per_mesh<T: Send>(out: &mut [T], f: impl Fn(usize, &mut T) + Sync) {
    use crate::par::prelude::*;
    if out.len() >= crate::limits::PAR_MESHES {
        out.par_iter_mut().enumerate().for_each(|(m, x)| f(m, x));
    } else {
        out.iter_mut().enumerate().for_each(|(m, x)| f(m, x));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri_mesh(name: &str) -> Mesh {
        Mesh::new(
            name,
            vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            vec![[0, 1, 2]],
            [200, 100, 50],
        )
        .unwrap()
    }

    #[test]
    fn hierarchy_world_matrix_is_never_stale() {
        let mut s = Scene::new();
        let g = s.add_node("group", Transform::from_translation(Vec3::X), None);
        let m = s.add_mesh(tri_mesh("a"), Transform::from_translation(Vec3::Y), Some(g));
        assert_eq!(
            s.mesh_world(m).transform_point3(Vec3::ZERO),
            Vec3::new(1.0, 1.0, 0.0)
        );
        s.translate(g, Vec3::Z);
        assert_eq!(
            s.mesh_world(m).transform_point3(Vec3::ZERO),
            Vec3::new(1.0, 1.0, 1.0)
        );
    }

    /// `locate` finds the mesh of every global triangle, empty meshes
    /// (which share their successor's first index) included.
    #[test]
    fn locate_skips_empty_meshes() {
        let sizes = [0usize, 3, 0, 0, 1, 7, 0, 2, 0, 0, 0, 5, 0];
        let mut s = Scene::new();
        let mut expect = Vec::new();
        for (m, &n) in sizes.iter().enumerate() {
            let tris = vec![[0, 1, 2]; n];
            let mesh = Mesh::new(
                format!("m{m}"),
                vec![Vec3::ZERO, Vec3::X, Vec3::Y],
                tris,
                [1, 2, 3],
            );
            s.add_mesh(mesh.unwrap(), Transform::IDENTITY, None);
            expect.extend((0..n as u32).map(|k| (m as MeshId, k)));
        }
        for (g, e) in expect.iter().enumerate() {
            assert_eq!(s.locate(g as u32), Some(*e), "global {g}");
            // whatever mesh is tried first (past the end too)
            for hint in 0..=sizes.len() as MeshId + 1 {
                assert_eq!(
                    s.locate_from(g as u32, hint),
                    Some(*e),
                    "global {g} hint {hint}"
                );
            }
        }
        assert_eq!(s.locate(expect.len() as u32), None);
        assert_eq!(s.locate_from(expect.len() as u32, 11), None);
        assert_eq!(Scene::new().locate(0), None);
    }

    #[test]
    fn global_indices() {
        let mut s = Scene::new();
        s.add_mesh(tri_mesh("a"), Transform::IDENTITY, None);
        s.add_mesh(tri_mesh("b"), Transform::IDENTITY, None);
        assert_eq!(s.triangle_count(), 2);
        assert_eq!(s.locate(1), Some((1, 0)));
        assert_eq!(s.locate(2), None);
        assert_eq!(s.global_triangle(1, 0), 1);
    }

    #[test]
    fn bad_index_is_an_error() {
        assert!(Mesh::new("x", vec![Vec3::ZERO], vec![[0, 1, 2]], [0; 3]).is_err());
    }
}
