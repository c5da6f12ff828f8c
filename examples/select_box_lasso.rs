//! Box and lasso selection on a rendered frame: the meshes and triangles
//! in a screen region, either only what is visible there
//! (`SelectMode::Visible`, from the ID buffer) or everything the region
//! overlaps, hidden or not (`SelectMode::Through`, x-ray).
//!
//! `cargo run --release --example select_box_lasso`

use glam::Vec3;
use softpick::{builtin_scene, render, Camera, RenderOptions, Scene, SelectMode, Selection};

fn main() -> Result<(), softpick::Error> {
    let scene = builtin_scene();
    let camera = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let frame = render(&scene, &camera, RenderOptions::default())?;
    let picks = frame.picks(&scene)?;

    // A box: two corners in pixels (inclusive, any order, clamped to the
    // frame). Behind the crates here stands a pillar they hide.
    let (x0, y0, x1, y1) = (100, 250, 200, 330);
    let visible = picks.rect(x0, y0, x1, y1, SelectMode::Visible);
    let through = picks.rect(x0, y0, x1, y1, SelectMode::Through);
    report(&scene, "box, visible", &visible);
    report(&scene, "box, through", &through);
    // x-ray selects everything visible, and more: the hidden pillar
    assert!(visible
        .triangles
        .iter()
        .all(|&t| through.contains_triangle(t)));
    let hidden: Vec<&str> = through
        .meshes
        .iter()
        .filter(|&&m| !visible.contains_mesh(m))
        .map(|&m| name(&scene, m))
        .collect();
    println!("  hidden in the box: {hidden:?}");
    assert_eq!(hidden, ["pillar_1"]);

    // A lasso: any polygon in window coordinates (pixels, y down), here an
    // octagon around the sphere on the right, from its projected centre.
    let centre = camera
        .project(Vec3::new(0.8, 0.74, 0.2))
        .expect("the sphere is in front of the camera");
    let lasso: Vec<[f32; 2]> = (0..8)
        .map(|k| {
            let a = std::f32::consts::TAU * k as f32 / 8.0;
            [centre.x + 30.0 * a.cos(), centre.y + 30.0 * a.sin()]
        })
        .collect();
    let visible = picks.lasso(&lasso, SelectMode::Visible);
    let through = picks.lasso(&lasso, SelectMode::Through);
    report(&scene, "lasso, visible", &visible);
    report(&scene, "lasso, through", &through);
    let sphere = mesh_id(&scene, "sphere_1");
    assert!(visible.contains_mesh(sphere) && through.contains_mesh(sphere));
    // both modes count the same covered pixels; x-ray finds more triangles
    // (the sphere's far side, at least)
    assert_eq!(visible.pixels, through.pixels);
    assert!(through.triangles.len() > visible.triangles.len());
    Ok(())
}

fn report(scene: &Scene, what: &str, s: &Selection) {
    let names: Vec<&str> = s.meshes.iter().map(|&m| name(scene, m)).collect();
    println!(
        "{what}: {} triangles of {} meshes over {} covered pixels: {names:?}",
        s.triangles.len(),
        s.meshes.len(),
        s.pixels
    );
}

fn name(scene: &Scene, mesh: u32) -> &str {
    scene.mesh(mesh).map_or("?", |m| m.name())
}

fn mesh_id(scene: &Scene, name: &str) -> u32 {
    let id = scene.meshes().iter().position(|m| m.name() == name);
    id.expect("a mesh of the built-in scene") as u32
}
