//! The data of a `softpick.Scene`, below the classes that use it: the
//! core's scene and what the package keeps beside it. `scene.rs` gives
//! the class its methods; frames keep their scene through this type (the
//! picks and maps read it), and cameras read its bounds, without either
//! depending on the scene's methods.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use pyo3::prelude::*;
use softpick::{MeshId, Renderer, Scene};

/// The id numpy outputs hold where there is no mesh, instance or triangle
/// (Open3D's `RaycastingScene.INVALID_ID`).
pub(crate) const INVALID_ID: u32 = u32::MAX;

/// Meshes placed by a node hierarchy. Mesh ids count meshes in the order
/// they were added (a loaded file: its `o`/`g` groups in file order); the
/// global triangle index counts triangles over all meshes in that order.
#[pyclass(name = "Scene", module = "softpick")]
pub struct PyScene {
    pub(crate) scene: Scene,
    /// Whether the BVHs ray casts walk are built for the scene as it is
    /// (what `method="auto"` weighs).
    pub(crate) bvh_ready: AtomicBool,
    pub(crate) warnings: Vec<String>,
    /// The renderer of this scene's raster frames, kept for its reused
    /// per-render buffers (vertices, bins).
    pub(crate) renderer: Mutex<Option<Renderer>>,
}

impl PyScene {
    pub(crate) fn from_scene(scene: Scene, warnings: Vec<String>) -> Self {
        Self {
            scene,
            bvh_ready: AtomicBool::new(false),
            warnings,
            renderer: Mutex::new(None),
        }
    }
}

/// The instance of scene mesh `mesh` ([`Scene::mesh_origin`]): a glTF node
/// placing a mesh (each primitive is a scene mesh of that instance), or the
/// mesh's own node in the other formats. Every instance id the package
/// reports comes from here.
pub(crate) fn instance_of(scene: &Scene, mesh: MeshId) -> u32 {
    scene.mesh_origin(mesh).map_or(INVALID_ID, |o| o.instance)
}
