//! Criterion benchmarks of region selection on a full 1920×1080 frame of a
//! 100k-triangle sphere: `cargo bench --bench select`.

use criterion::{criterion_group, criterion_main, Criterion};
use softpick::{Camera, RenderOptions, Renderer, SelectMode};

mod common;
use common::sphere_scene;

fn bench(c: &mut Criterion) {
    let scene = sphere_scene(250, 201); // 100 000 triangles
    assert_eq!(scene.triangle_count(), 100_000);
    let (w, h) = (1920u32, 1080u32);
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let mut r = Renderer::new(RenderOptions {
        color: false,
        ..RenderOptions::default()
    })
    .unwrap();
    let f = r.render(&scene, &cam).unwrap().clone();
    let (x1, y1) = (i64::from(w) - 1, i64::from(h) - 1);
    // an octagon lasso spanning the frame
    let (cx, cy, rx, ry) = (
        w as f32 / 2.0,
        h as f32 / 2.0,
        w as f32 * 0.6,
        h as f32 * 0.6,
    );
    let lasso: Vec<[f32; 2]> = (0..8)
        .map(|k| {
            let a = std::f32::consts::TAU * (k as f32 + 0.5) / 8.0;
            [cx + rx * a.cos(), cy + ry * a.sin()]
        })
        .collect();

    let picks = f.picks(&scene).unwrap();
    let mut g = c.benchmark_group("select_1920x1080_sphere100k");
    g.sample_size(20);
    g.bench_function("rect_full_visible", |b| {
        b.iter(|| {
            picks
                .rect(0, 0, x1, y1, SelectMode::Visible)
                .triangles
                .len()
        })
    });
    g.bench_function("rect_full_through", |b| {
        b.iter(|| {
            picks
                .rect(0, 0, x1, y1, SelectMode::Through)
                .triangles
                .len()
        })
    });
    g.bench_function("rect_200x200_through", |b| {
        b.iter(|| {
            picks
                .rect(860, 440, 1059, 639, SelectMode::Through)
                .triangles
                .len()
        })
    });
    g.bench_function("lasso_octagon_visible", |b| {
        b.iter(|| picks.lasso(&lasso, SelectMode::Visible).triangles.len())
    });
    g.bench_function("lasso_octagon_through", |b| {
        b.iter(|| picks.lasso(&lasso, SelectMode::Through).triangles.len())
    });
    g.bench_function("pick_near_background_r64", |b| {
        b.iter(|| f.nearest_covered(100, 540, 64.0).is_some())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
