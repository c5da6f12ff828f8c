//! Criterion benchmarks of the ray picker on a ~100k-triangle mesh:
//! BVH build time and first-hit rays per second (360×360 primary rays, one
//! thread) through one-shot casters (one per ray), a reused [`RayCaster`] and the frame's
//! compact pick (`Picks::id_at` with the ray method), plus the compact pick on
//! a scene of 1,600 small meshes (the top-level BVH), and 100k random
//! rays (incoherent, Open3D's `cast_rays` benchmark) through a caster's
//! full hits and its compact batch ([`RayCaster::first_hits`]) on the
//! built-in scene, generated spheres of 70k and 1M triangles and, with
//! `--features shared-models`, the models of `../shared/models`
//! (bunny_3k, snowden_bust, city_san_francisco; a missing file then fails
//! the run). Without that feature the ~100k-triangle mesh is a generated
//! 100k-triangle sphere instead of snowden_bust, and the run says which
//! benches it left out. `cargo bench --bench rays [--features
//! shared-models]`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use glam::Vec3;
use softpick::internals::Bvh;
use softpick::{
    render, Camera, PickMethod, Ray, RayCaster, RayOptions, RenderOptions, Scene, Transform,
};

mod common;
#[cfg(feature = "shared-models")]
use common::shared;
use common::sphere_scene;

/// The ~100k-triangle mesh: snowden_bust with `--features shared-models`,
/// else a generated 100k-triangle sphere.
fn model() -> (String, Scene) {
    #[cfg(feature = "shared-models")]
    return ("snowden_bust".to_string(), shared("snowden_bust"));
    #[cfg(not(feature = "shared-models"))]
    {
        eprintln!(
            "rays: snowden_bust, bunny_3k and city_san_francisco need --features shared-models \
             (and ../shared/models): a generated 100k-triangle sphere stands in for snowden_bust, \
             and the random-ray benches of the other two are left out"
        );
        ("sphere100k".to_string(), sphere_scene(250, 201))
    }
}

/// The models of the random-ray benches (the rows of the Python
/// benchmark's `cast_rays` table), smallest first.
fn random_models() -> Vec<(String, Scene)> {
    let mut v = vec![("builtin".to_string(), softpick::builtin_scene())];
    #[cfg(feature = "shared-models")]
    v.push(("bunny_3k".to_string(), shared("bunny_3k")));
    v.push(("sphere70k".to_string(), sphere_scene(250, 141)));
    #[cfg(feature = "shared-models")]
    v.push(("snowden_bust".to_string(), shared("snowden_bust")));
    #[cfg(feature = "shared-models")]
    v.push((
        "city_san_francisco".to_string(),
        shared("city_san_francisco"),
    ));
    v.push(("sphere1m".to_string(), sphere_scene(1000, 501)));
    v
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
    let models = random_models();
    if !models.iter().any(|(n, _)| *n == name) {
        random(&mut g, &name, &scene, true);
    }
    for (n, s) in &models {
        random(&mut g, n, s, *n == "builtin" || *n == name);
    }
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

/// `n` seeded random rays through the scene's box, as
/// `scripts/bench_python.py` casts them: from a sphere of twice the box's
/// half-diagonal toward random points of the box (testkit's `box_rays`).
fn random_rays(scene: &Scene, n: usize) -> Vec<Ray> {
    let b = scene.bounds();
    softpick_testkit::box_rays(b.min, b.max, n)
        .into_iter()
        .map(|(o, d)| Ray::new(o, d))
        .collect()
}

/// First hits of 100k random rays, one thread: the compact batch and,
/// with `full`, the full hits.
fn random(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    scene: &Scene,
    full: bool,
) {
    scene.build_bvhs();
    let rays = random_rays(scene, 100_000);
    let caster = RayCaster::new(scene);
    let opts = RayOptions::default();
    g.throughput(Throughput::Elements(rays.len() as u64));
    if full {
        g.bench_function(format!("random_100k_first/{name}"), |b| {
            b.iter(|| {
                rays.iter()
                    .filter(|r| caster.first(r, &opts).is_some())
                    .count()
            })
        });
    }
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
