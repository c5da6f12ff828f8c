//! The scene a page picks in: geometries (positions, triangles in
//! primitives) and objects placing them (a matrix per instance, a material
//! side per primitive, posed vertices for skinned and morphed ones), kept
//! as a softpick [`Scene`] that is rebuilt only when the structure changes
//! (objects added, removed, shown or hidden, instance counts, a placement
//! turning mirrored): matrices move nodes and poses move vertices (and
//! refit BVHs) in place.
//!
//! Material sides become windings as `geometry` says. A pose of a built
//! object waits until a query needs it (`pose_with`): rays ask it lazily
//! (`lazy`), anything else applies it first (`build`, `settle`).
//!
//! A scene can also come whole from softpick (a model file or the built-in
//! scene): its objects are then the file's instances, fixed, posed by the
//! file's animations.

use std::sync::Arc;

use glam::{DMat4, Vec3};
use softpick::{CullMode, MeshId, NodeId, Scene};

use crate::cast::Core;
use crate::clip::Clipping;
use crate::geometry::Geometry;
use crate::geometry::{mesh_of, Side, Winding};
use crate::lazy::{Clusters, LazyPose, MeshPart};
use crate::place::{place, Placement};
use crate::pose::Pose;

/// One three.js object: a mesh (one instance) or an instanced mesh.
pub(crate) struct Object {
    pub(crate) geometry: u32,
    base: DMat4,
    /// Instance matrices (instanced meshes), each after `base`.
    instances: Option<Vec<DMat4>>,
    placements: Vec<Placement>,
    sides: Vec<Side>,
    visible: bool,
    /// Posed vertices (local space) of a deformed object: `Some` from its
    /// first pose on; the posed meshes live in the softpick scene.
    posed: bool,
    pending: Option<Vec<Vec3>>,
    /// The bind matrix and its inverse of the last pose that gave them.
    pub(crate) bind: (DMat4, DMat4),
    /// A pose not yet applied to its meshes (`active`), asked lazily.
    lazy: Option<Box<LazyPose>>,
    /// Where the last build put it: its first mesh and outer nodes (one
    /// per instance; each inner node follows its outer one).
    first_mesh: u32,
    nodes: Vec<NodeId>,
    built: bool,
}

/// What a softpick mesh of the built scene is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MeshRef {
    pub(crate) object: u32,
    pub(crate) instance: u32,
    pub(crate) prim: u32,
    pub(crate) winding: Winding,
    /// The primitive's triangle count (a `Both` mesh has twice as many).
    pub(crate) tris: u32,
    /// Its first triangle's index position (three.js's `j`).
    pub(crate) first: u32,
    /// Its object's pose waits, lazily (see `lazy`): the mesh's vertices
    /// are the last pose's, and ray queries ask the lazy pose.
    pub(crate) lazy: bool,
}

impl MeshRef {
    /// The three.js triangle of softpick triangle `t` of this mesh: its
    /// index position `j` and whether softpick's corners run reversed.
    pub(crate) fn triangle(&self, t: u32) -> (u32, bool) {
        let (k, reversed) = match self.winding {
            Winding::Plain => (t, false),
            Winding::Reversed => (t, true),
            Winding::Both => (t % self.tris.max(1), t >= self.tris),
        };
        (self.first + 3 * k, reversed)
    }
}

/// A slot list with reusable ids.
struct Slots<T> {
    items: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Slots<T> {
    fn new() -> Self {
        Self {
            items: Vec::new(),
            free: Vec::new(),
        }
    }

    fn insert(&mut self, t: T) -> u32 {
        if let Some(i) = self.free.pop() {
            self.items[i as usize] = Some(t);
            i
        } else {
            self.items.push(Some(t));
            (self.items.len() - 1) as u32
        }
    }

    fn remove(&mut self, i: u32) -> Option<T> {
        let t = self.items.get_mut(i as usize)?.take()?;
        self.free.push(i);
        Some(t)
    }

    fn get(&self, i: u32) -> Option<&T> {
        self.items.get(i as usize)?.as_ref()
    }

    fn get_mut(&mut self, i: u32) -> Option<&mut T> {
        self.items.get_mut(i as usize)?.as_mut()
    }
}

/// The scene of a page (see the module docs).
pub(crate) struct World {
    geometries: Slots<Geometry>,
    objects: Slots<Object>,
    /// The softpick scene (and its ray caster, between changes).
    pub(crate) core: Core,
    pub(crate) meshes: Vec<MeshRef>,
    pub(crate) cull: CullMode,
    dirty: bool,
    /// Made whole by softpick (a file or the built-in scene): fixed objects.
    pub(crate) fixed: bool,
    /// User clip planes.
    pub(crate) clipping: Clipping,
    /// The objects whose pose waits (see `lazy`).
    pub(crate) lazy_ids: Vec<u32>,
    /// Per geometry, the cluster trees of its lazy poses and the
    /// geometry's revision they were made of.
    clusters: Vec<Option<(u32, Arc<Clusters>)>>,
}

fn no_object(id: u32) -> String {
    format!("object {id} does not exist (removed, or never added)")
}

fn no_geometry(id: u32) -> String {
    format!("geometry {id} does not exist (removed, or never added)")
}

impl World {
    pub(crate) fn new() -> World {
        World {
            geometries: Slots::new(),
            objects: Slots::new(),
            core: Core::default(),
            meshes: Vec::new(),
            cull: CullMode::Back,
            dirty: false,
            fixed: false,
            clipping: Clipping::default(),
            lazy_ids: Vec::new(),
            clusters: Vec::new(),
        }
    }

    /// A scene softpick made whole: each of its instances is an object.
    pub(crate) fn from_core(core: Scene) -> World {
        let meshes = (0..core.meshes().len() as MeshId)
            .map(|m| {
                let o = core.mesh_origin(m).unwrap_or_default();
                let n = core.meshes()[m as usize].triangles().len() as u32;
                MeshRef {
                    object: o.instance,
                    instance: 0,
                    prim: o.primitive,
                    winding: Winding::Plain,
                    tris: n,
                    first: 0,
                    lazy: false,
                }
            })
            .collect();
        World {
            core: Core::new(core),
            meshes,
            cull: CullMode::None,
            fixed: true,
            ..World::new()
        }
    }

    fn unfixed(&self) -> Result<(), String> {
        if self.fixed {
            Err("this scene came whole from a model file or the built-in scene: its objects cannot be added, removed or replaced".into())
        } else {
            Ok(())
        }
    }

    pub(crate) fn add_geometry(&mut self, g: Geometry) -> Result<u32, String> {
        self.unfixed()?;
        Ok(self.geometries.insert(g))
    }

    pub(crate) fn geometry_mut(&mut self, id: u32) -> Result<&mut Geometry, String> {
        self.geometries.get_mut(id).ok_or_else(|| no_geometry(id))
    }

    /// New positions for a geometry: its undeformed objects are placed again.
    pub(crate) fn set_geometry_positions(&mut self, id: u32, p: &[f32]) -> Result<(), String> {
        // (a waiting pose is of the positions it came with)
        self.settle_all();
        self.geometry_mut(id)?.set_positions(p)?;
        self.dirty = true;
        Ok(())
    }

    /// Removes a geometry no object uses.
    pub(crate) fn remove_geometry(&mut self, id: u32) -> Result<(), String> {
        if let Some(o) = self
            .objects
            .items
            .iter()
            .flatten()
            .find(|o| o.geometry == id)
        {
            let _ = o;
            return Err(format!("geometry {id} is still used by an object"));
        }
        if let Some(c) = self.clusters.get_mut(id as usize) {
            *c = None;
        }
        self.geometries
            .remove(id)
            .map(|_| ())
            .ok_or_else(|| no_geometry(id))
    }

    /// Adds an object drawing `geometry`, placed by `base` (and each of
    /// `instances` after it, for an instanced mesh), with a material side
    /// per primitive.
    pub(crate) fn add_object(
        &mut self,
        geometry: u32,
        base: DMat4,
        instances: Option<Vec<DMat4>>,
        sides: &[u8],
    ) -> Result<u32, String> {
        self.unfixed()?;
        let g = self
            .geometries
            .get(geometry)
            .ok_or_else(|| no_geometry(geometry))?;
        let sides = sides_of(sides, g.prims.len())?;
        let placements = placements(&base, instances.as_deref())?;
        self.dirty = true;
        Ok(self.objects.insert(Object {
            geometry,
            base,
            instances,
            placements,
            sides,
            visible: true,
            posed: false,
            pending: None,
            bind: (DMat4::IDENTITY, DMat4::IDENTITY),
            lazy: None,
            first_mesh: 0,
            nodes: Vec::new(),
            built: false,
        }))
    }

    pub(crate) fn remove_object(&mut self, id: u32) -> Result<(), String> {
        self.unfixed()?;
        self.drop_lazy(id);
        self.objects.remove(id).ok_or_else(|| no_object(id))?;
        self.clipping.remove(id);
        self.dirty = true;
        Ok(())
    }

    pub(crate) fn object(&self, id: u32) -> Result<&Object, String> {
        self.objects.get(id).ok_or_else(|| no_object(id))
    }

    pub(crate) fn object_mut(&mut self, id: u32) -> Result<&mut Object, String> {
        self.objects.get_mut(id).ok_or_else(|| no_object(id))
    }

    pub(crate) fn set_visible(&mut self, id: u32, visible: bool) -> Result<(), String> {
        let o = self.objects.get_mut(id).ok_or_else(|| no_object(id))?;
        if o.visible != visible {
            o.visible = visible;
            self.dirty = true;
        }
        Ok(())
    }

    pub(crate) fn set_sides(&mut self, id: u32, sides: &[u8]) -> Result<(), String> {
        let o = self.objects.get(id).ok_or_else(|| no_object(id))?;
        let n = self.geometries.get(o.geometry).map_or(0, |g| g.prims.len());
        let sides = sides_of(sides, n)?;
        let o = self.objects.get_mut(id).ok_or_else(|| no_object(id))?;
        if o.sides != sides {
            o.sides = sides;
            self.dirty = true;
        }
        Ok(())
    }

    /// Places an object again: `base`, and for an instanced mesh its
    /// instance matrices (`None` keeps them).
    pub(crate) fn set_matrix(
        &mut self,
        id: u32,
        base: DMat4,
        instances: Option<Vec<DMat4>>,
    ) -> Result<(), String> {
        let o = self.objects.get_mut(id).ok_or_else(|| no_object(id))?;
        let instances = match instances {
            Some(i) if o.instances.is_some() => Some(i),
            Some(_) => return Err(format!("object {id} is not instanced")),
            None => o.instances.take(),
        };
        let ps = placements(&base, instances.as_deref())?;
        o.base = base;
        o.instances = instances;
        let restructure = ps.len() != o.placements.len()
            || ps
                .iter()
                .zip(&o.placements)
                .any(|(a, b)| a.mirrored != b.mirrored);
        o.placements = ps;
        if restructure || !o.built || self.dirty {
            self.dirty = true;
            return Ok(());
        }
        for (p, &outer) in o.placements.iter().zip(&o.nodes) {
            self.core.scene_mut().set_local(outer, p.outer);
            self.core.scene_mut().set_local(outer + 1, p.inner);
        }
        Ok(())
    }

    /// Moves an object's vertices (local space; as many as its geometry
    /// has), refitting its BVHs; how many BVHs were built again instead
    /// (see `softpick::Refit`).
    pub(crate) fn pose(&mut self, id: u32, positions: Vec<Vec3>) -> Result<u32, String> {
        let o = self.objects.get_mut(id).ok_or_else(|| no_object(id))?;
        if o.instances.is_some() {
            return Err(format!("object {id} is instanced: instances are not posed"));
        }
        let n = self
            .geometries
            .get(o.geometry)
            .map_or(0, Geometry::vertex_count);
        if positions.len() != n {
            return Err(format!(
                "{} posed vertices for a geometry of {n}",
                positions.len()
            ));
        }
        if !o.posed || !o.built || self.dirty {
            // (the next build makes the posed meshes)
            o.posed = true;
            o.pending = Some(positions);
            self.dirty = true;
            return Ok(0);
        }
        let (first, count) = (o.first_mesh, self.prim_count(id));
        let mut rebuilt = 0;
        // (each primitive's mesh gets the posed vertices: copies for all
        // but the last, which takes them)
        let mut positions = Some(positions);
        for m in first..first + count {
            let p = if m + 1 == first + count {
                positions.take().unwrap_or_default()
            } else {
                positions.clone().unwrap_or_default()
            };
            rebuilt += self
                .core
                .scene_mut()
                .set_positions(m, p)
                .map_err(|e| e.to_string())?
                .rebuilt as u32;
        }
        Ok(rebuilt)
    }

    /// Poses an object: lazily (kept until a query asks, see `lazy`) when
    /// it is built and the scene's structure stands, else now ([`World::pose`]).
    pub(crate) fn pose_with(&mut self, id: u32, pose: Pose) -> Result<u32, String> {
        let o = self.objects.get(id).ok_or_else(|| no_object(id))?;
        let lazily = o.posed && o.built && !self.dirty && o.instances.is_none();
        let gid = o.geometry;
        let g = self.geometries.get(gid).ok_or_else(|| no_geometry(gid))?;
        if lazily {
            // (the cluster trees of this version of the geometry, made now
            // if need be)
            let slot = gid as usize;
            if self.clusters.len() <= slot {
                self.clusters.resize(slot + 1, None);
            }
            let c = match &self.clusters[slot] {
                Some((rev, c)) if *rev == g.revision => Arc::clone(c),
                _ => {
                    let c = Arc::new(Clusters::of(g));
                    self.clusters[slot] = Some((g.revision, Arc::clone(&c)));
                    c
                }
            };
            if c.usable {
                pose.check_joints(g, c.max_joint)?;
                let n = g.vertex_count();
                let count = self.prim_count(id);
                let o = self.objects.get_mut(id).ok_or_else(|| no_object(id))?;
                match &mut o.lazy {
                    Some(l) => l.repose(pose, c, n),
                    None => o.lazy = Some(Box::new(LazyPose::new(pose, c, n))),
                }
                let first = o.first_mesh;
                for r in &mut self.meshes[first as usize..(first + count) as usize] {
                    r.lazy = true;
                }
                if !self.lazy_ids.contains(&id) {
                    self.lazy_ids.push(id);
                }
                return Ok(0);
            }
        }
        let positions = pose.all(g)?;
        self.drop_lazy(id);
        self.pose(id, positions)
    }

    /// Forgets the waiting pose of an object (a newer one came, or the
    /// object goes).
    fn drop_lazy(&mut self, id: u32) {
        let Some(k) = self.lazy_ids.iter().position(|&i| i == id) else {
            return;
        };
        self.lazy_ids.swap_remove(k);
        let count = self.prim_count(id) as usize;
        let Some(o) = self.objects.get_mut(id) else {
            return;
        };
        if let Some(l) = o.lazy.as_mut() {
            l.active = false;
        }
        let first = o.first_mesh as usize;
        if o.built {
            for r in self.meshes.iter_mut().skip(first).take(count) {
                r.lazy = false;
            }
        }
    }

    /// Applies the waiting pose of an object to its meshes (posing every
    /// vertex and refitting, as [`World::pose`]).
    pub(crate) fn settle(&mut self, id: u32) {
        if !self.lazy_ids.contains(&id) {
            return;
        }
        let positions = self.objects.get(id).and_then(|o| {
            let l = o.lazy.as_ref().filter(|l| l.active)?;
            let g = self.geometries.get(o.geometry)?;
            // (checked when it came: `Pose::check_joints`)
            l.pose.all(g).ok()
        });
        self.drop_lazy(id);
        if let Some(p) = positions {
            // (a built object of the vertex count: it cannot fail)
            let _ = self.pose(id, p);
        }
    }

    /// Applies every waiting pose.
    pub(crate) fn settle_all(&mut self) {
        while let Some(&id) = self.lazy_ids.last() {
            self.settle(id);
        }
    }

    /// Before a ray on the waiting poses of the objects `mask` passes
    /// (none: every object): a pose whose rays have done as much work as
    /// posing it in full (`LazyPose::work`) is applied. Every pose is when
    /// clip planes are set (the lazy walk does not cut by them) or the
    /// structure changed.
    pub(crate) fn before_lazy_ray(&mut self, mask: Option<&[u8]>) {
        if self.lazy_ids.is_empty() {
            return;
        }
        if self.dirty || self.clipping.any() {
            self.settle_all();
            return;
        }
        let mut k = 0;
        while k < self.lazy_ids.len() {
            let id = self.lazy_ids[k];
            let asked = mask.is_none_or(|m| m.get(id as usize).is_some_and(|&b| b != 0));
            let over = asked
                && self
                    .objects
                    .get(id)
                    .is_some_and(|o| o.lazy.as_ref().is_some_and(|l| l.work >= l.budget));
            if over {
                self.settle(id);
            } else {
                k += 1;
            }
        }
    }

    /// `f` of each waiting pose an object `mask` passes (none: every
    /// object), with each of the object's meshes: the mesh id, the mesh's
    /// part as the walk needs it, the geometry; and the scene.
    pub(crate) fn each_lazy_mesh(
        &mut self,
        mask: Option<&[u8]>,
        f: &mut dyn FnMut(MeshId, &MeshPart<'_>, &mut LazyPose, &Geometry, &Scene),
    ) {
        let scene = self.core.scene();
        for &id in &self.lazy_ids {
            // (objects the mask leaves out)
            if mask.is_some_and(|m| m.get(id as usize).is_none_or(|&b| b == 0)) {
                continue;
            }
            let Some(o) = self
                .objects
                .items
                .get_mut(id as usize)
                .and_then(Option::as_mut)
            else {
                continue;
            };
            let Some(g) = self.geometries.get(o.geometry) else {
                continue;
            };
            let Some(l) = o.lazy.as_deref_mut() else {
                continue;
            };
            for (pi, prim) in g.prims.iter().enumerate() {
                let m = o.first_mesh + pi as u32;
                let (Some(r), Some(mesh)) = (self.meshes.get(m as usize), scene.mesh(m)) else {
                    continue;
                };
                let part = MeshPart {
                    prim: pi,
                    triangles: mesh.triangles(),
                    both: (r.winding == Winding::Both).then_some(prim.tris.len() as u32),
                };
                f(m, &part, l, g, scene);
            }
        }
    }

    /// The waiting pose of an object (tests).
    #[cfg(test)]
    pub(crate) fn lazy_pose_mut(&mut self, id: u32) -> Option<&mut LazyPose> {
        let o = self.objects.get_mut(id)?;
        o.lazy.as_deref_mut().filter(|l| l.active)
    }

    /// Gives every waiting pose its whole budget again (tests: many rays
    /// on one pose, lazily).
    #[cfg(test)]
    pub(crate) fn reset_lazy_budget(&mut self) {
        for &id in &self.lazy_ids {
            if let Some(l) = self.objects.get_mut(id).and_then(|o| o.lazy.as_deref_mut()) {
                l.work = 0;
            }
        }
    }

    pub(crate) fn prim_count(&self, id: u32) -> u32 {
        self.objects
            .get(id)
            .and_then(|o| self.geometries.get(o.geometry))
            .map_or(0, |g| g.prims.len() as u32)
    }

    /// Builds the softpick scene again if the structure changed (then
    /// `core` and `meshes` are current).
    /// Every waiting pose is applied first (see `lazy`).
    pub(crate) fn build(&mut self) {
        self.settle_all();
        if self.dirty {
            self.rebuild();
        }
    }

    fn rebuild(&mut self) {
        self.dirty = false;
        let all_double = self
            .objects
            .items
            .iter()
            .flatten()
            .filter(|o| o.visible)
            .all(|o| o.sides.iter().all(|&s| s == Side::Double));
        self.cull = if all_double {
            CullMode::None
        } else {
            CullMode::Back
        };
        let old = self.core.take();
        let old_meshes = std::mem::take(&mut self.meshes);
        let mut core = Scene::new();
        let mut meshes = Vec::new();
        for id in 0..self.objects.items.len() as u32 {
            let Some(o) = self.objects.items[id as usize].as_mut() else {
                continue;
            };
            let was_built = o.built;
            let old_first = o.first_mesh;
            o.built = false;
            o.nodes.clear();
            if !o.visible {
                continue;
            }
            let Some(g) = self.geometries.items[o.geometry as usize].as_mut() else {
                continue;
            };
            o.first_mesh = core.meshes().len() as u32;
            for (k, p) in o.placements.iter().enumerate() {
                let outer = core.add_node("", p.outer, None);
                let inner = core.add_node("", p.inner, Some(outer));
                o.nodes.push(outer);
                let instance = core
                    .add_instance(inner, id)
                    .expect("the node was just added");
                for pi in 0..g.prims.len() {
                    let w = Winding::of(o.sides[pi], p.mirrored, self.cull);
                    let (prim_first, prim_tris) =
                        (g.prims[pi].first, g.prims[pi].tris.len() as u32);
                    let mesh = if o.posed {
                        // the posed vertices: new ones, else the last build's
                        let old_mesh = was_built
                            .then(|| old.mesh(old_first + pi as u32))
                            .flatten()
                            .filter(|_| {
                                old_meshes
                                    .get((old_first + pi as u32) as usize)
                                    .is_some_and(|r| r.winding == w && r.object == id)
                            });
                        match (&o.pending, old_mesh) {
                            (Some(p), _) => mesh_of(p.clone(), &g.prims[pi].tris, w),
                            (None, Some(m)) => m.clone(),
                            (None, None) => {
                                let pos = was_built
                                    .then(|| old.mesh(old_first))
                                    .flatten()
                                    .map_or_else(
                                        || g.positions.clone(),
                                        |m| m.positions().to_vec(),
                                    );
                                mesh_of(pos, &g.prims[pi].tris, w)
                            }
                        }
                    } else {
                        g.meshes(w)[pi].clone()
                    };
                    core.add_primitive(instance, mesh, pi as u32)
                        .expect("the instance was just added");
                    meshes.push(MeshRef {
                        object: id,
                        instance: k as u32,
                        prim: pi as u32,
                        winding: w,
                        tris: prim_tris,
                        first: prim_first,
                        lazy: false,
                    });
                }
            }
            o.pending = None;
            o.built = true;
        }
        drop(old);
        self.core = Core::new(core);
        self.meshes = meshes;
        self.clipping.rebuilt();
    }

    /// Moves object `id` by a world displacement (an interactive move:
    /// `sweep_move` did it in the softpick scene), keeping its placement.
    pub(crate) fn moved(&mut self, id: u32, by: Vec3) {
        if let Some(o) = self.objects.get_mut(id) {
            o.base.w_axis += by.as_dvec3().extend(0.0);
            if let Ok(p) = placements(&o.base, o.instances.as_deref()) {
                o.placements = p;
            }
        }
    }

    /// The first softpick mesh of an object in the built scene.
    pub(crate) fn first_mesh(&mut self, id: u32) -> Result<MeshId, String> {
        self.build();
        if self.fixed {
            return self
                .meshes
                .iter()
                .position(|r| r.object == id)
                .map(|m| m as MeshId)
                .ok_or_else(|| no_object(id));
        }
        let o = self.objects.get(id).ok_or_else(|| no_object(id))?;
        if !o.built {
            return Err(format!("object {id} is hidden"));
        }
        Ok(o.first_mesh)
    }

    /// The objects of the scene (ids of live objects; for a whole scene,
    /// its instances).
    pub(crate) fn object_count(&self) -> usize {
        if self.fixed {
            self.core.scene().instances().len()
        } else {
            self.objects.items.len()
        }
    }
}

fn sides_of(sides: &[u8], prims: usize) -> Result<Vec<Side>, String> {
    match sides.len() {
        0 => Ok(vec![Side::Front; prims]),
        1 => Ok(vec![Side::from_code(sides[0])?; prims]),
        n if n == prims => sides.iter().map(|&s| Side::from_code(s)).collect(),
        n => Err(format!(
            "{n} sides for a geometry of {prims} primitives (give one, or one per primitive)"
        )),
    }
}

fn placements(base: &DMat4, instances: Option<&[DMat4]>) -> Result<Vec<Placement>, String> {
    match instances {
        None => Ok(vec![place(base)?]),
        Some(list) => list
            .iter()
            .enumerate()
            .map(|(i, m)| place(&(*base * *m)).map_err(|e| format!("instance {i}: {e}")))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query;
    use glam::DVec3;

    /// Two triangles side by side in z = 0 facing +z (counter-clockwise
    /// seen from +z), the second a primitive of its own.
    fn quad() -> Geometry {
        let p = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0];
        Geometry::new(&p, Some(&[0, 1, 2, 0, 2, 3]), Some(&[0, 3, 3, 6])).unwrap()
    }

    fn first(w: &mut World, o: [f64; 3], d: [f64; 3]) -> Vec<f64> {
        let ray = query::ray(&o, &d).unwrap();
        let mut out = Vec::new();
        query::with_query(w, 0.0, f64::INFINITY, None, |refs, scene, caster, opts| {
            query::first(refs, scene, caster, &ray, opts, &mut out)
        })
        .unwrap();
        out
    }

    #[test]
    fn sides_cull_as_three_does() {
        for (side, front_hit, back_hit) in [(0u8, true, false), (1, false, true), (2, true, true)] {
            let mut w = World::new();
            let g = w.add_geometry(quad()).unwrap();
            // a second object keeps the scene from being all double-sided
            w.add_object(
                g,
                DMat4::from_translation(DVec3::new(0.0, 0.0, -50.0)),
                None,
                &[0],
            )
            .unwrap();
            let o = w.add_object(g, DMat4::IDENTITY, None, &[side]).unwrap();
            let from_front = first(&mut w, [0.7, 0.2, 5.0], [0.0, 0.0, -1.0]);
            let from_back = first(&mut w, [0.7, 0.2, -5.0], [0.0, 0.0, 1.0]);
            assert_eq!(
                !from_front.is_empty() && from_front[0] == f64::from(o),
                front_hit,
                "side {side}"
            );
            assert_eq!(
                !from_back.is_empty() && from_back[0] == f64::from(o),
                back_hit,
                "side {side}"
            );
        }
    }

    #[test]
    fn a_mirrored_front_side_keeps_its_local_front() {
        let mut w = World::new();
        let g = w.add_geometry(quad()).unwrap();
        // mirrored in x: three.js still sees the local front from +z
        let m = DMat4::from_scale(DVec3::new(-1.0, 1.0, 1.0));
        w.add_object(g, m, None, &[0]).unwrap();
        assert!(!first(&mut w, [-0.7, 0.2, 5.0], [0.0, 0.0, -1.0]).is_empty());
        assert!(first(&mut w, [-0.7, 0.2, -5.0], [0.0, 0.0, 1.0]).is_empty());
    }

    #[test]
    fn hits_name_the_three_triangle_and_its_corners() {
        let mut w = World::new();
        let g = w.add_geometry(quad()).unwrap();
        let o = w.add_object(g, DMat4::IDENTITY, None, &[1, 2]).unwrap();
        w.add_object(
            g,
            DMat4::from_translation(DVec3::new(0.0, 0.0, -9.0)),
            None,
            &[0],
        )
        .unwrap();
        // the second triangle (j = 3), back side: seen from −z
        let h = first(&mut w, [0.2, 0.7, -5.0], [0.0, 0.0, 1.0]);
        assert_eq!(h[0], f64::from(o));
        assert_eq!((h[2], h[3]), (1.0, 3.0));
        assert!((h[4] - 5.0).abs() < 1e-6);
        // barycentrics of a (0), b (2), c (3) at (0.2, 0.7): 1 − 0.7, 0.2, 0.5
        let b = [h[8], h[9], h[10]];
        assert!(
            (b[0] - 0.3).abs() < 1e-6 && (b[1] - 0.2).abs() < 1e-6 && (b[2] - 0.5).abs() < 1e-6,
            "{b:?}"
        );
        // the local normal of (a, b, c) as given: +z
        assert_eq!([h[11], h[12], h[13]], [0.0, 0.0, 1.0]);
    }

    #[test]
    fn instances_move_without_a_rebuild_and_poses_refit() {
        let mut w = World::new();
        let g = w.add_geometry(quad()).unwrap();
        let inst = vec![
            DMat4::IDENTITY,
            DMat4::from_translation(DVec3::new(5.0, 0.0, 0.0)),
        ];
        let o = w.add_object(g, DMat4::IDENTITY, Some(inst), &[2]).unwrap();
        let h = first(&mut w, [5.5, 0.2, 5.0], [0.0, 0.0, -1.0]);
        assert_eq!((h[0], h[1]), (f64::from(o), 1.0));
        let inst = vec![
            DMat4::IDENTITY,
            DMat4::from_translation(DVec3::new(9.0, 0.0, 0.0)),
        ];
        w.set_matrix(o, DMat4::IDENTITY, Some(inst)).unwrap();
        assert!(!w.dirty, "moving an instance is no rebuild");
        assert!(first(&mut w, [5.5, 0.2, 5.0], [0.0, 0.0, -1.0]).is_empty());
        assert_eq!(first(&mut w, [9.5, 0.2, 5.0], [0.0, 0.0, -1.0])[1], 1.0);

        let mut w = World::new();
        let g = w.add_geometry(quad()).unwrap();
        let o = w.add_object(g, DMat4::IDENTITY, None, &[2]).unwrap();
        let up = |z: f32| {
            (0..4)
                .map(|i| quad().positions[i] + Vec3::Z * z)
                .collect::<Vec<_>>()
        };
        w.pose(o, up(1.0)).unwrap();
        assert!((first(&mut w, [0.5, 0.2, 5.0], [0.0, 0.0, -1.0])[4] - 4.0).abs() < 1e-6);
        w.pose(o, up(2.0)).unwrap();
        assert!(!w.dirty, "a pose of a built object is no rebuild");
        assert!((first(&mut w, [0.5, 0.2, 5.0], [0.0, 0.0, -1.0])[4] - 3.0).abs() < 1e-6);
    }

    #[test]
    fn bad_geometry_is_named() {
        let e = Geometry::new(&[0.0; 9], Some(&[0, 1, 7]), None)
            .err()
            .unwrap();
        assert!(e.contains("index 7 at position 2 is out of range"), "{e}");
        assert!(Geometry::new(&[0.0; 8], None, None).is_err());
    }
}
