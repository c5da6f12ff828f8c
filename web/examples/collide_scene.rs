//! What the collision playground page is checked against: the collide
//! scene of `softpick view --builtin collide` (`softpick::viewer::
//! BuiltinScene::Collide`), as one JSON array of its meshes in mesh-id order, each
//! with its name, its world-space vertex positions (x, y, z flat) and its
//! triangles (vertex indices, flat).
//! `cargo run --release -p softpick-web --example collide_scene`

use std::fmt::Write;

use softpick::viewer::BuiltinScene;

fn main() {
    let scene = BuiltinScene::Collide.scene();
    let mut out = String::from("[");
    for (id, mesh) in scene.meshes().iter().enumerate() {
        let world = scene.mesh_world(id as softpick::MeshId);
        let positions: Vec<String> = mesh
            .positions()
            .iter()
            .flat_map(|&p| world.transform_point3(p).to_array())
            .map(|v| format!("{v}"))
            .collect();
        let triangles: Vec<String> = mesh
            .triangles()
            .iter()
            .flatten()
            .map(u32::to_string)
            .collect();
        if id > 0 {
            out.push(',');
        }
        // names are the scene's own (ASCII letters, digits and `_`): no escaping needed
        let _ = write!(
            out,
            "{{\"name\":\"{}\",\"positions\":[{}],\"triangles\":[{}]}}",
            mesh.name(),
            positions.join(","),
            triangles.join(",")
        );
    }
    out.push(']');
    println!("{out}");
}
