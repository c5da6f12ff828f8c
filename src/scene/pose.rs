//! Posing a scene at a time: animation channels set node transforms and
//! morph weights; morph targets and skins then move the vertices of the
//! meshes they deform, whose BVHs are refit (`Bvh::refit`). Moving
//! a node alone costs no BVH work: BVHs live in their mesh's local space.
//!
//! A skinned vertex is, as glTF 2.0 defines it, `Σ weight ·
//! jointWorld · inverseBind · v` over every joint influence set, where `v`
//! is the rest position plus `Σ weight · delta` over the morph targets; the
//! skinned mesh's own node transform is ignored. softpick keeps rendering
//! each mesh through its node's world matrix, so a skinned mesh stores its
//! posed vertices in that node's space (the inverse world matrix applied).

use crate::par::prelude::*;
use glam::{Mat4, Vec3};

use super::{ChannelPath, InstanceId, LoopMode, MeshId, NodeId, Scene};
use crate::accel::bvh::Refit;
use crate::error::Error;

/// Vertices per mesh above which posing runs in parallel (each vertex is a
/// pure function of its inputs, so the result does not depend on it).
const PAR_POSE_VERTICES: usize = 16_384;

/// A skeleton: its joint nodes and their inverse bind matrices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Skin {
    /// The skin's name.
    pub name: String,
    /// The joints, as scene nodes.
    pub joints: Vec<NodeId>,
    /// One inverse bind matrix per joint.
    pub inverse_bind: Vec<Mat4>,
}

/// What deforms one scene mesh: its rest positions, morph targets and
/// joint influences.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Deformer {
    /// The rest positions (one per vertex of the mesh).
    pub rest: Vec<Vec3>,
    /// Morph targets: a position delta per vertex each.
    pub targets: Vec<Vec<Vec3>>,
    /// The weights of the targets when the node sets none.
    pub default_weights: Vec<f32>,
    /// Joint influence sets (glTF `JOINTS_n`): per vertex four indices into
    /// the skin's joints.
    pub joints: Vec<Vec<[u16; 4]>>,
    /// The weights of those influences (glTF `WEIGHTS_n`).
    pub weights: Vec<Vec<[f32; 4]>>,
}

/// What a [`Scene::pose`] or [`Scene::set_positions`] did to the BVHs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoseStats {
    /// Meshes whose vertices moved.
    pub deformed: usize,
    /// Of those, BVHs refit.
    pub refitted: usize,
    /// Of those, BVHs built again: the tree would have stayed exact but
    /// slow (its boxes grown past twice their area), or the set of valid
    /// triangles changed.
    pub rebuilt: usize,
}

impl PoseStats {
    fn count(&mut self, r: Option<Refit>) {
        self.deformed += 1;
        match r {
            Some(Refit::Refitted) => self.refitted += 1,
            Some(Refit::Rebuilt) => self.rebuilt += 1,
            None => {}
        }
    }
}

impl Scene {
    /// Adds a skin; its index.
    ///
    /// # Errors
    /// [`Error::InvalidScene`] when a joint is not a node or the inverse
    /// bind matrices do not match the joints (a missing list means
    /// identities, as in glTF).
    pub fn add_skin(&mut self, mut skin: Skin) -> Result<u32, Error> {
        if let Some(j) = skin
            .joints
            .iter()
            .find(|&&j| j as usize >= self.nodes.len())
        {
            return Err(Error::InvalidScene(format!("joint {j} is not a node")));
        }
        if skin.inverse_bind.is_empty() {
            skin.inverse_bind = vec![Mat4::IDENTITY; skin.joints.len()];
        }
        if skin.inverse_bind.len() != skin.joints.len() {
            return Err(Error::InvalidScene(format!(
                "{} inverse bind matrices for {} joints",
                skin.inverse_bind.len(),
                skin.joints.len()
            )));
        }
        self.skins.push(skin);
        Ok((self.skins.len() - 1) as u32)
    }

    /// The skins.
    #[must_use]
    pub fn skins(&self) -> &[Skin] {
        &self.skins
    }

    /// Makes `skin` deform the meshes of `instance` (with their deformers'
    /// joint influences).
    ///
    /// # Errors
    /// [`Error::InvalidScene`] when the skin or the instance does not exist.
    pub fn set_instance_skin(
        &mut self,
        instance: InstanceId,
        skin: Option<u32>,
    ) -> Result<(), Error> {
        if skin.is_some_and(|s| s as usize >= self.skins.len()) {
            return Err(Error::InvalidScene(format!("skin {skin:?} does not exist")));
        }
        let slot = self
            .instance_skin
            .get_mut(instance as usize)
            .ok_or_else(|| Error::InvalidScene(format!("instance {instance} does not exist")))?;
        *slot = skin;
        Ok(())
    }

    /// The skin of an instance.
    #[must_use]
    pub fn instance_skin(&self, instance: InstanceId) -> Option<u32> {
        self.instance_skin.get(instance as usize).copied().flatten()
    }

    /// Gives mesh `mesh` what deforms it (checked against its vertices).
    ///
    /// # Errors
    /// [`Error::InvalidScene`] when the mesh does not exist or the deformer
    /// does not have one of everything per vertex of the mesh.
    pub fn set_deformer(&mut self, mesh: MeshId, d: Deformer) -> Result<(), Error> {
        let m = self
            .meshes
            .get(mesh as usize)
            .ok_or_else(|| Error::InvalidScene(format!("mesh {mesh} does not exist")))?;
        let n = m.positions().len();
        let sets_ok = d.joints.len() == d.weights.len()
            && d.joints.iter().all(|j| j.len() == n)
            && d.weights.iter().all(|w| w.len() == n);
        if d.rest.len() != n || d.targets.iter().any(|t| t.len() != n) || !sets_ok {
            return Err(Error::InvalidScene(format!(
                "a deformer for {n} vertices must have {n} of everything"
            )));
        }
        self.deformers[mesh as usize] = Some(std::sync::Arc::new(d));
        Ok(())
    }

    /// The deformer of a mesh.
    #[must_use]
    pub fn deformer(&self, mesh: MeshId) -> Option<&Deformer> {
        self.deformers.get(mesh as usize)?.as_deref()
    }

    /// Sets the morph weights of the meshes on `node` (overriding their
    /// default weights).
    pub fn set_morph_weights(&mut self, node: NodeId, weights: Vec<f32>) -> bool {
        match self.morph_weights.get_mut(node as usize) {
            Some(w) => {
                *w = weights;
                self.changed();
                true
            }
            None => false,
        }
    }

    /// Adds an animation; its index.
    ///
    /// # Errors
    /// [`Error::InvalidScene`] when a channel cannot be sampled (no keys,
    /// key times not finite and increasing, another number of values than
    /// its keys need, values not finite) or names a node the scene does not
    /// have.
    pub fn add_animation(&mut self, a: super::Animation) -> Result<usize, Error> {
        for (i, c) in a.channels.iter().enumerate() {
            c.check()
                .map_err(|e| Error::InvalidScene(format!("channel {i}: {e}")))?;
            if c.node as usize >= self.nodes.len() {
                return Err(Error::InvalidScene(format!(
                    "channel {i}: node {} does not exist",
                    c.node
                )));
            }
        }
        self.animations.push(a);
        Ok(self.animations.len() - 1)
    }

    /// The animations.
    #[must_use]
    pub fn animations(&self) -> &[super::Animation] {
        &self.animations
    }

    /// The animation `key` names: its index, else its name.
    #[must_use]
    pub fn find_animation(&self, key: &str) -> Option<usize> {
        match key.parse::<usize>() {
            Ok(i) => (i < self.animations.len()).then_some(i),
            Err(_) => self.animations.iter().position(|a| a.name == key),
        }
    }

    /// Poses the scene at `time` seconds of animation `animation`, a time
    /// past the clip's end as `mode` says ([`LoopMode`]: clamped, wrapped
    /// or mirrored): its channels set node transforms and morph weights,
    /// then every mesh with a deformer is posed and its BVH refit. With
    /// `animation` `None`, only the deformers run (the rest pose with the
    /// current weights). Frames rendered before are stale afterwards. The
    /// arguments are in the order of Python's `Scene.pose(time, animation,
    /// loop)`.
    ///
    /// ```
    /// use softpick::animation::LoopMode;
    ///
    /// let mut scene = softpick::builtin_scene();
    /// let stats = scene.pose(1.5, None, LoopMode::Once)?; // no animation: the rest pose
    /// assert_eq!(stats.deformed, 0);
    /// # Ok::<(), softpick::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidScene`] when the animation does not exist.
    pub fn pose(
        &mut self,
        time: f32,
        animation: Option<usize>,
        mode: LoopMode,
    ) -> Result<PoseStats, Error> {
        if let Some(a) = animation {
            let anim = self
                .animations
                .get(a)
                .ok_or_else(|| Error::InvalidScene(format!("animation {a} does not exist")))?;
            let time = mode.clip_time(time, anim.duration());
            for c in &anim.channels {
                let n = c.node as usize;
                match c.path {
                    ChannelPath::Translation => self.nodes[n].local.translation = c.vec3_at(time),
                    ChannelPath::Rotation => self.nodes[n].local.rotation = c.quat_at(time),
                    ChannelPath::Scale => self.nodes[n].local.scale = c.vec3_at(time),
                    ChannelPath::Weights => {
                        let mut w = vec![0.0; c.width];
                        c.sample(time, &mut w);
                        self.morph_weights[n] = w;
                    }
                }
            }
        }
        self.changed();
        self.deform_all().map_err(Error::InvalidMesh)
    }

    /// Moves the vertices of mesh `mesh` (as many as it has), refitting its
    /// BVH; the mesh's other instances keep theirs.
    ///
    /// # Errors
    /// [`Error::InvalidMesh`] when the mesh does not exist or `positions`
    /// are not as many as its vertices.
    pub fn set_positions(
        &mut self,
        mesh: MeshId,
        positions: Vec<Vec3>,
    ) -> Result<PoseStats, Error> {
        let m = self
            .meshes
            .get_mut(mesh as usize)
            .ok_or_else(|| Error::InvalidMesh(format!("mesh {mesh} does not exist")))?;
        let r = m.replace_positions(positions).map_err(Error::InvalidMesh)?;
        self.changed();
        self.flat = super::FlatBvh::default();
        let mut stats = PoseStats::default();
        stats.count(r);
        Ok(stats)
    }

    /// Poses every mesh that has a deformer.
    fn deform_all(&mut self) -> Result<PoseStats, String> {
        let mut stats = PoseStats::default();
        // joint matrices per skin: jointWorld · inverseBind
        let joints: Vec<Vec<Mat4>> = self
            .skins
            .iter()
            .map(|s| {
                s.joints
                    .iter()
                    .zip(&s.inverse_bind)
                    .map(|(&j, ib)| self.world_matrix(j) * *ib)
                    .collect()
            })
            .collect();
        for m in 0..self.meshes.len() {
            let Some(d) = self.deformers[m].clone() else {
                continue;
            };
            let o = self.origins[m];
            // (the node's weights, else the mesh's defaults; borrowed, not copied)
            let node_weights = &self.morph_weights[o.node as usize];
            let weights = if node_weights.is_empty() {
                &d.default_weights
            } else {
                node_weights
            };
            let skin = self
                .instance_skin(o.instance)
                .map(|s| (&joints[s as usize], self.world_matrix(o.node).inverse()));
            let posed = pose_vertices(&d, weights, skin);
            let r = self.meshes[m].replace_positions(posed)?;
            stats.count(r);
        }
        // (the transforms kept for ray queries, whose world boxes the
        // moved vertices change, went with `changed()` in `pose`, which
        // runs first)
        if stats.deformed > 0 {
            self.flat = super::FlatBvh::default();
        }
        Ok(stats)
    }
}

/// The posed vertices of a deformer: rest + weighted targets, then, with a
/// skin (its joint matrices and the inverse of the mesh node's world
/// matrix), linear blend skinning into the node's space.
fn pose_vertices(d: &Deformer, weights: &[f32], skin: Option<(&Vec<Mat4>, Mat4)>) -> Vec<Vec3> {
    let one = |i: usize| {
        let mut p = d.rest[i];
        for (t, &w) in d.targets.iter().zip(weights) {
            if w != 0.0 {
                p += t[i] * w;
            }
        }
        let Some((joints, to_node)) = skin else {
            return p;
        };
        let mut m = Mat4::ZERO;
        for (js, ws) in d.joints.iter().zip(&d.weights) {
            for k in 0..4 {
                let w = ws[i][k];
                if w != 0.0 {
                    // (an index past the joints contributes nothing)
                    if let Some(j) = joints.get(usize::from(js[i][k])) {
                        m += *j * w;
                    }
                }
            }
        }
        to_node.transform_point3(m.transform_point3(p))
    };
    let n = d.rest.len();
    if n >= PAR_POSE_VERTICES {
        (0..n).into_par_iter().map(one).collect()
    } else {
        (0..n).map(one).collect()
    }
}
