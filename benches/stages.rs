//! Criterion benchmarks of the raster's stages on big meshes: for each
//! model, size and thread count, the vertex stage, set-up + binning and
//! rasterizing of an ids-only frame, each timed by the renderer's own
//! [`StageTimes`] (criterion's `iter_custom` sums one stage's durations
//! over the frames it asks for), with the mesh's triangle count as the
//! throughput, so the report reads as triangles per second (its inverse
//! is the ns per triangle of BENCHMARKS.md's stage table). The whole
//! frame (`total`) is timed the same way.
//!
//! Models: generated spheres of 70k and 1M triangles, and with
//! `--features shared-models` also snowden_bust and city_san_francisco
//! from `../shared/models` (a missing file then fails the run). Sizes
//! 640×480 and 1920×1080; one thread and two.
//! `cargo bench --bench stages [--features shared-models] [-- FILTER]`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use softpick::{Camera, RenderOptions, Renderer, Scene, StageTimes};

mod common;
#[cfg(feature = "shared-models")]
use common::shared;
use common::sphere_scene;

/// The models, smallest first.
fn models() -> Vec<(&'static str, Scene)> {
    let mut v = vec![("sphere70k", sphere_scene(250, 141))];
    #[cfg(feature = "shared-models")]
    {
        v.push(("snowden_bust", shared("snowden_bust")));
        v.push(("city_san_francisco", shared("city_san_francisco")));
    }
    #[cfg(not(feature = "shared-models"))]
    eprintln!(
        "stages: snowden_bust and city_san_francisco need --features shared-models \
         (and ../shared/models); only the generated spheres run"
    );
    v.push(("sphere1m", sphere_scene(1000, 501)));
    v
}

/// One stage of a frame's [`StageTimes`].
type Stage = fn(&StageTimes) -> Duration;

fn bench(c: &mut Criterion) {
    let stages: [(&str, Stage); 4] = [
        ("vertex", |s| s.vertex),
        ("setup+bin", |s| s.setup),
        ("raster", |s| s.raster),
        ("total", StageTimes::total),
    ];
    for (name, scene) in models() {
        let mut g = c.benchmark_group(format!("stages/{name}"));
        g.sample_size(10);
        for (w, h) in [(640u32, 480u32), (1920, 1080)] {
            let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
            for threads in [1usize, 2] {
                let mut r = Renderer::new(RenderOptions {
                    color: false,
                    threads: Some(threads),
                    ..RenderOptions::default()
                })
                .expect("a renderer");
                // warm the renderer's buffers and bins; the submitted
                // triangles are the throughput (ns per triangle)
                let triangles = r.render(&scene, &cam).expect("a frame").stats().triangles;
                g.throughput(Throughput::Elements(triangles));
                for (stage, of) in stages {
                    let id = BenchmarkId::new(stage, format!("{w}x{h}/{threads}T"));
                    g.bench_function(id, |b| {
                        b.iter_custom(|iters| {
                            (0..iters)
                                .map(|_| {
                                    of(&r.render(&scene, &cam).expect("a frame").stage_times())
                                })
                                .sum()
                        })
                    });
                }
            }
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
