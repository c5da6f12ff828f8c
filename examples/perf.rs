use glam::Vec3;
use softpick::*;
use std::time::Instant;
fn uv_sphere(s: u32, r: u32) -> Scene {
    let mut pos = vec![Vec3::Y];
    for i in 1..r {
        let th = std::f32::consts::PI * i as f32 / r as f32;
        for j in 0..s {
            let ph = std::f32::consts::TAU * j as f32 / s as f32;
            pos.push(Vec3::new(
                th.sin() * ph.cos(),
                th.cos(),
                th.sin() * ph.sin(),
            ));
        }
    }
    pos.push(-Vec3::Y);
    let ring = |i: u32, j: u32| 1 + (i - 1) * s + (j % s);
    let mut t = Vec::new();
    for j in 0..s {
        t.push([0, ring(1, j + 1), ring(1, j)]);
    }
    for i in 1..r - 1 {
        for j in 0..s {
            t.push([ring(i, j), ring(i, j + 1), ring(i + 1, j + 1)]);
            t.push([ring(i, j), ring(i + 1, j + 1), ring(i + 1, j)]);
        }
    }
    let last = pos.len() as u32 - 1;
    for j in 0..s {
        t.push([last, ring(r - 1, j), ring(r - 1, j + 1)]);
    }
    let mut sc = Scene::new();
    sc.add_mesh(
        Mesh::new("sphere", pos, t, [200, 200, 200]).unwrap(),
        Transform::IDENTITY,
        None,
    );
    sc
}
fn main() {
    let threads: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    for (name, scene) in [
        ("builtin362", builtin_scene()),
        ("sphere70k", uv_sphere(250, 141)),
        ("sphere1m", uv_sphere(1000, 501)),
    ] {
        for (w, h) in [(360, 360), (1920, 1080)] {
            let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
            for color in [false, true] {
                let mut r = Renderer::new(RenderOptions {
                    color,
                    threads: Some(threads),
                    ..Default::default()
                })
                .unwrap();
                r.render(&scene, &cam).unwrap();
                let mut best = f64::MAX;
                let t0 = Instant::now();
                let mut n = 0;
                while n < 5 || t0.elapsed().as_secs_f64() < 1.0 {
                    let t = Instant::now();
                    r.render(&scene, &cam).unwrap();
                    best = best.min(t.elapsed().as_secs_f64());
                    n += 1;
                }
                println!(
                    "{name} {w}x{h} {} threads={threads}: best {:.3} ms",
                    if color { "color" } else { "ids  " },
                    best * 1e3
                );
            }
        }
    }
}
