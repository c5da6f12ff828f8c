//! Finds floor-row z values of the built-in scene whose shared edges project
//! (with softpick's own f32 math and the automatic 360×360 camera) within
//! 1/512 px of a pixel-centre row, so that the scene puts edges exactly
//! through pixel centres; `scripts/gen_builtin.py` uses the result.
//! `cargo run --release --manifest-path tools/Cargo.toml --bin tune_builtin`
use glam::Vec3;
use softpick::{builtin_scene, Camera};

fn main() {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let xs = [-1.5f32, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5];
    for z0 in [1.0f64, 0.5, 0.0, -0.5] {
        // the nearest six-decimal z (as written in the OBJ) on a centre row
        let found = (0..200_000i64).flat_map(|k| [k, -k]).find_map(|k| {
            let z = format!("{:.6}", z0 + k as f64 * 1e-6);
            let zf: f32 = z.parse().ok()?;
            let on_centre = xs.iter().all(|&x| {
                cam.project(Vec3::new(x, 0.0, zf))
                    .is_some_and(|p| softpick::internals::snap(p.y) % 256 == 0)
            });
            on_centre.then_some(z)
        });
        println!("row near z={z0}: {found:?}");
    }
}
