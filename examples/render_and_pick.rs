//! Render once, then pick as often as you like: the three pick methods
//! (buffer, direct, ray) answer "what is under this pixel?" and agree.
//!
//! `cargo run --release --example render_and_pick`

use softpick::{builtin_scene, Camera, Frame, PickMethod, Picks, RenderOptions, Renderer};

fn main() -> Result<(), softpick::Error> {
    // The built-in scene (22 meshes, 362 triangles) and a camera that frames it.
    let scene = builtin_scene();
    let camera = Camera::auto_frame(&scene.framing_bounds(), 360, 360);

    // One render fills the color, depth and ID buffers. A `Renderer` keeps
    // its buffers, so re-rendering after the scene or camera moves is cheap.
    let mut renderer = Renderer::new(RenderOptions::default())?;
    let frame = renderer.render(&scene, &camera)?;
    // The pick view: the frame checked once against the scene it was
    // rendered from; every pick through it answers without a `Result`.
    let picks = frame.picks(&scene)?;

    // Your own loop: here every pixel, as a mouse would visit them.
    let (mut covered, mut ray_agrees, mut ray_checked) = (0, 0, 0);
    for y in 0..i64::from(frame.height()) {
        for x in 0..i64::from(frame.width()) {
            // buffer: a lookup in the ID buffer, then the hit record
            let buffer = picks.at(x, y);
            // direct: the rasterizer's own edge test at the pixel centre
            let direct = picks.with(PickMethod::Direct).at(x, y);
            // the two run the same test, so they agree exactly, everywhere
            assert_eq!(buffer, direct, "buffer and direct differ at ({x},{y})");
            let Some(hit) = buffer else { continue };
            covered += 1;
            // ray: a 3D ray through the pixel centre. It decides coverage in
            // floating point, so it may differ at a triangle's edge; away
            // from the edges it names the same triangle.
            if away_from_edges(frame, x, y) {
                ray_checked += 1;
                let ray = picks.with(PickMethod::Ray).at(x, y);
                if ray.map(|r| r.global_triangle) == Some(hit.global_triangle) {
                    ray_agrees += 1;
                }
            }
        }
    }
    println!(
        "{covered} covered pixels: buffer == direct at all; ray agrees on \
         {ray_agrees} of the {ray_checked} away from triangle edges"
    );
    assert!(
        covered > 10_000,
        "the built-in scene fills much of the frame"
    );
    assert_eq!(
        ray_agrees, ray_checked,
        "ray and buffer agree off the edges"
    );

    // A few hits in full: mesh, triangle, world position, depth.
    for (x, y) in [(180, 300), (60, 100), (250, 200), (5, 5)] {
        print_hit(picks, x, y);
    }
    Ok(())
}

/// Does the pixel's whole 3×3 neighbourhood show one triangle?
fn away_from_edges(frame: &Frame, x: i64, y: i64) -> bool {
    let id = |x: i64, y: i64| frame.triangle_at(x, y);
    let centre = id(x, y);
    (-1..=1).all(|dy| (-1..=1).all(|dx| id(x + dx, y + dy) == centre))
}

/// Picks pixel (x, y) and prints what is there.
fn print_hit(picks: Picks<'_>, x: i64, y: i64) {
    match picks.at(x, y) {
        Some(h) => println!(
            "({x},{y}): {} triangle {} at {:.3} (depth {:.4}, {} face)",
            h.mesh_name,
            h.triangle,
            h.position,
            h.depth,
            if h.front_face { "front" } else { "back" }
        ),
        None => println!("({x},{y}): background"),
    }
}
