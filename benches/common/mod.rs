//! Scenes shared by the benches.

// not every bench uses every scene
#![allow(dead_code)]

use softpick::{Mesh, Scene, Transform};

/// A unit UV sphere (testkit's generator) as a one-mesh scene:
/// 2·slices·(stacks−1) triangles.
pub fn sphere_scene(slices: u32, stacks: u32) -> Scene {
    let (pos, tris) = softpick_testkit::uv_sphere(slices, stacks);
    let mut scene = Scene::new();
    let mesh = Mesh::new("sphere", pos, tris, [200, 200, 200]).expect("a valid sphere");
    scene.add_mesh(mesh, Transform::IDENTITY, None);
    scene
}

/// `../shared/models/<name>.obj` (beside the repository, or beside the
/// folder of worktrees that holds it); panics when it is missing.
#[cfg(feature = "shared-models")]
pub fn shared(name: &str) -> Scene {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = ["../shared/models", "../../shared/models"]
        .iter()
        .map(|r| root.join(r).join(format!("{name}.obj")))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!("../shared/models/{name}.obj is missing: --features shared-models needs it")
        });
    softpick::load_model(&path)
        .unwrap_or_else(|e| panic!("{e}"))
        .0
}
