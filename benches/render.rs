//! Criterion benchmarks: frame time (depth + ID, and with color), pick
//! sweeps, the direct picks' index and the per-pixel maps (barycentrics,
//! distance) on the built-in scene and generated spheres.
//! `cargo bench --bench render`.

use criterion::{criterion_group, criterion_main, Criterion};
use softpick::{builtin_scene, Camera, MapRequest, PickMethod, RenderOptions, Renderer};

mod common;
use common::sphere_scene;

fn bench(c: &mut Criterion) {
    let scenes = [
        ("builtin362", builtin_scene()),
        ("sphere70k", sphere_scene(250, 141)),
        ("sphere1m", sphere_scene(1000, 501)),
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
            let picks = f.picks(&scene).unwrap();
            let mut n = 0u32;
            for y in 0..360 {
                for x in 0..360 {
                    n += u32::from(picks.id_at(x, y).is_some());
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
                    n += u32::from(softpick::internals::direct_triangle_at(&f, x, y).is_some());
                }
            }
            n
        })
    });
    g.finish();

    // the direct picks' cell index (built after each render, on the first
    // direct pick) and a direct sweep through it, on a dense mesh
    let mut g = c.benchmark_group("direct_index");
    g.sample_size(10);
    let (name, scene) = &scenes[1];
    for (w, h) in [(360u32, 360u32), (1920, 1080)] {
        let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
        let mut r = Renderer::new(RenderOptions {
            color: false,
            ..RenderOptions::default()
        })
        .unwrap();
        g.bench_function(format!("{name}/{w}x{h}/render+index"), |b| {
            b.iter(|| {
                let f = r.render(scene, &cam).unwrap();
                f.picks(scene).unwrap().with(PickMethod::Direct).prepare();
                f.ids()[0]
            })
        });
        let f = r.render(scene, &cam).unwrap().clone();
        f.picks(scene).unwrap().with(PickMethod::Direct).prepare();
        g.bench_function(format!("{name}/{w}x{h}/direct sweep"), |b| {
            b.iter(|| {
                let mut n = 0u32;
                for y in 0..i64::from(h) {
                    for x in 0..i64::from(w) {
                        n += u32::from(softpick::internals::direct_triangle_at(&f, x, y).is_some());
                    }
                }
                n
            })
        });
    }
    g.finish();

    // the per-pixel maps of a rendered frame, as the Python package reads
    // them (one map per call), on the current thread pool
    let mut g = c.benchmark_group("maps");
    g.sample_size(10);
    for (name, scene) in &scenes[..2] {
        let cam = Camera::auto_frame(&scene.framing_bounds(), 1920, 1080);
        let f = softpick::render(scene, &cam, RenderOptions::default()).unwrap();
        for (label, want) in [
            (
                "barycentric",
                MapRequest {
                    barycentric: true,
                    ..MapRequest::default()
                },
            ),
            (
                "distance",
                MapRequest {
                    distance: true,
                    ..MapRequest::default()
                },
            ),
        ] {
            g.bench_function(format!("{name}/1920x1080/{label}"), |b| {
                let picks = f.picks(scene).unwrap();
                b.iter(|| picks.maps(want))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
