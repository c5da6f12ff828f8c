//! Criterion benchmarks: frame time (depth + ID, and with color) and pick
//! sweeps on the built-in scene and generated spheres.
//! `cargo bench --bench render`.

use criterion::{criterion_group, criterion_main, Criterion};
use glam::Vec3;
use softpick::{builtin_scene, Camera, Mesh, RenderOptions, Renderer, Scene, Transform};

/// UV sphere with `s` slices and `r` stacks (2·s·(r−1) triangles), like the peers' gen_models.py.
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

fn bench(c: &mut Criterion) {
    let scenes = [
        ("builtin362", builtin_scene()),
        ("sphere70k", uv_sphere(250, 141)),
        ("sphere1m", uv_sphere(1000, 501)),
    ];
    let mut g = c.benchmark_group("render");
    g.sample_size(20);
    for (name, scene) in &scenes {
        for (w, h) in [(360u32, 360u32), (1920, 1080)] {
            let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
            for color in [false, true] {
                let mut r = Renderer::new(RenderOptions {
                    color,
                    ..RenderOptions::default()
                })
                .unwrap();
                r.render(scene, &cam).unwrap();
                let label = format!("{name}/{w}x{h}/{}", if color { "color" } else { "ids" });
                g.bench_function(label, |b| {
                    b.iter(|| r.render(scene, &cam).unwrap().ids()[0])
                });
            }
        }
    }
    g.finish();

    let mut g = c.benchmark_group("sweep360");
    g.sample_size(10);
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let mut r = Renderer::new(RenderOptions {
        color: false,
        ..RenderOptions::default()
    })
    .unwrap();
    g.bench_function("buffer(render+129600 picks)", |b| {
        b.iter(|| {
            let f = r.render(&scene, &cam).unwrap();
            let mut n = 0u32;
            for y in 0..360 {
                for x in 0..360 {
                    n += u32::from(f.triangle_at(x, y).is_some());
                }
            }
            n
        })
    });
    let f = r.render(&scene, &cam).unwrap().clone();
    g.bench_function("direct(129600 picks)", |b| {
        b.iter(|| {
            let mut n = 0u32;
            for y in 0..360 {
                for x in 0..360 {
                    n += u32::from(f.triangle_at_direct(x, y).is_some());
                }
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
