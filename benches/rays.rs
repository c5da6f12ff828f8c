//! Criterion benchmarks of the ray picker on a ~100k-triangle mesh:
//! BVH build time and first-hit rays per second (360×360 primary rays, one
//! thread) through one-shot casters (one per ray), a reused [`RayCaster`] and the frame's
//! compact pick (`Picks::id_at` with the ray method), plus the compact pick on
//! a scene of 1,600 small meshes (the top-level BVH), and 100k random
//! rays (incoherent, Open3D's `cast_rays` benchmark) through a caster's
//! full hits and its compact batch ([`RayCaster::first_hits`]). Uses
//! `../shared/models/snowden_bust.obj` (109k triangles) when present, else a
//! generated 100k-triangle sphere. `cargo bench --bench rays`.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use glam::Vec3;
use softpick::internals::load_obj;
use softpick::internals::Bvh;
use softpick::{
    render, Camera, PickMethod, Ray, RayCaster, RayOptions, RenderOptions, Scene, Transform,
};

mod common;
use common::sphere_scene;

fn model() -> (String, Scene) {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models/snowden_bust.obj");
    match load_obj(&shared) {
        Ok((s, _)) => ("snowden_bust".to_string(), s),
        Err(_) => ("sphere100k".to_string(), sphere_scene(250, 201)),
    }
}

fn bench(c: &mut Criterion) {
    let (name, scene) = model();
    let mesh = &scene.meshes()[0];
    let mut g = c.benchmark_group("rays");
    g.sample_size(10);
    g.bench_function(
        format!("bvh_build/{name}/{}tris", scene.triangle_count()),
        |b| b.iter(|| Bvh::build(mesh.positions(), mesh.triangles()).node_count()),
    );
    scene.build_bvhs(); // once, outside the timing
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let rays: Vec<_> = (0..360)
        .flat_map(|y| (0..360).map(move |x| (x, y)))
        .map(|(x, y)| cam.ray_for_pixel(x, y))
        .collect();
    g.throughput(Throughput::Elements(rays.len() as u64));
    g.bench_function(format!("first_hit_360x360/{name}"), |b| {
        b.iter(|| {
            rays.iter()
                .filter(|r| {
                    RayCaster::new(&scene)
                        .first(r, &RayOptions::default())
                        .is_some()
                })
                .count()
        })
    });
    let caster = RayCaster::new(&scene);
    g.bench_function(format!("caster_first_360x360/{name}"), |b| {
        b.iter(|| {
            rays.iter()
                .filter(|r| caster.first(r, &RayOptions::default()).is_some())
                .count()
        })
    });
    sweep(&mut g, &name, &scene);
    sweep(&mut g, "1600_meshes", &many_meshes());
    random(&mut g, &name, &scene);
    random(&mut g, "builtin", &softpick::builtin_scene());
    g.finish();
}

/// 40×40 small spheres (112 triangles each) on a plane.
fn many_meshes() -> Scene {
    let ball = sphere_scene(8, 8);
    let mut s = Scene::new();
    for i in 0..1600 {
        let at = Vec3::new((i % 40) as f32 * 3.0, 0.0, (i / 40) as f32 * 3.0);
        s.add_mesh(
            ball.meshes()[0].clone(),
            Transform::from_translation(at),
            None,
        );
    }
    s
}

/// The ray method's compact pick (`Picks::id_at`) at every pixel of a
/// 360×360 frame.
fn sweep(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    scene: &Scene,
) {
    scene.build_bvhs();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let frame = render(scene, &cam, RenderOptions::default()).expect("render");
    let rays = frame.picks(scene).unwrap().with(PickMethod::Ray);
    let _ = rays.id_at(0, 0); // the frame's ray setup, once
    g.bench_function(format!("pick_id_ray_360x360/{name}"), |b| {
        b.iter(|| {
            (0..360i64)
                .flat_map(|y| (0..360i64).map(move |x| (x, y)))
                .filter(|&(x, y)| rays.id_at(x, y).is_some())
                .count()
        })
    });
}

/// 100k seeded random rays through the scene's box, as
/// `scripts/bench_python.py` casts them: from a sphere of twice the box's
/// half-diagonal toward random points of the box.
fn random_rays(scene: &Scene, n: usize) -> Vec<Ray> {
    let b = scene.bounds();
    let (c, r) = ((b.min + b.max) / 2.0, (b.max - b.min).length());
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut unit = move || {
        // (xorshift64*: a fixed, dependency-free sequence)
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|_| {
            let d = Vec3::new(unit() - 0.5, unit() - 0.5, unit() - 0.5).normalize_or(Vec3::X);
            let o = c + r * d;
            let to = b.min + (b.max - b.min) * Vec3::new(unit(), unit(), unit());
            Ray::new(o, to - o)
        })
        .collect()
}

/// First hits of 100k random rays, one thread: full hits against the
/// compact batch.
fn random(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    scene: &Scene,
) {
    scene.build_bvhs();
    let rays = random_rays(scene, 100_000);
    let caster = RayCaster::new(scene);
    let opts = RayOptions::default();
    g.throughput(Throughput::Elements(rays.len() as u64));
    g.bench_function(format!("random_100k_first/{name}"), |b| {
        b.iter(|| {
            rays.iter()
                .filter(|r| caster.first(r, &opts).is_some())
                .count()
        })
    });
    g.bench_function(format!("random_100k_first_hits/{name}"), |b| {
        b.iter(|| {
            caster
                .first_hits(rays.iter().copied(), &opts)
                .flatten()
                .count()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
