//! Scenes shared by the benches.

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
