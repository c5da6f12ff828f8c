//! Criterion benchmarks of the ray picker on a ~100k-triangle mesh:
//! BVH build time and first-hit rays per second (360×360 primary rays, one
//! thread). Uses `../shared/models/snowden_bust.obj` (109k triangles) when
//! present, else a generated 100k-triangle sphere. `cargo bench --bench rays`.

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use softpick::{load_obj, raycast_first, Bvh, Camera, RayOptions, Scene};

#[path = "common/sphere.rs"]
mod sphere;

fn model() -> (String, Scene) {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/models/snowden_bust.obj");
    match load_obj(&shared) {
        Ok((s, _)) => ("snowden_bust".to_string(), s),
        Err(_) => ("sphere100k".to_string(), sphere::uv_sphere(250, 201)),
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
    for m in scene.meshes() {
        let _ = m.bvh(); // build once, outside the timing
    }
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let rays: Vec<_> = (0..360)
        .flat_map(|y| (0..360).map(move |x| (x, y)))
        .map(|(x, y)| cam.ray_for_pixel(x, y))
        .collect();
    g.throughput(Throughput::Elements(rays.len() as u64));
    g.bench_function(format!("first_hit_360x360/{name}"), |b| {
        b.iter(|| {
            rays.iter()
                .filter(|r| raycast_first(&scene, r, &RayOptions::default()).is_some())
                .count()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
