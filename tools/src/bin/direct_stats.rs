//! Direct picks on one scene and size: the render, the direct picks' cell
//! index (built by `Picks::prepare`) and a serial sweep of the direct
//! method's `Picks::id_at` over every pixel, each the best of 5, plus the
//! render's counters and the index's summary from the frame's `Debug` form.
//! `cargo run --release --manifest-path tools/Cargo.toml --bin direct_stats -- [SCENE] [SIZE] [THREADS]`
//! SCENE: builtin (default), sphere70k, sphere100k, sphere1m or FILE.obj;
//! SIZE: WxH (default 360x360), 360 or 1080.
use std::time::Instant;

use softpick::{Camera, PickMethod, RenderOptions, Renderer};
use softpick_tools::{scene_arg, size_arg};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scene = scene_arg(args.get(1).map(String::as_str));
    let (w, h) = size_arg(args.get(2).map(String::as_str), (360, 360));
    let threads: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2);
    // the global pool: the render and the index build both run in it
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .unwrap();
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let mut r = Renderer::new(RenderOptions {
        color: false,
        ..RenderOptions::default()
    })
    .unwrap();
    let (mut best_r, mut best_i, mut best_s) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..5 {
        let t = Instant::now();
        let f = r.render(&scene, &cam).unwrap();
        best_r = best_r.min(t.elapsed().as_secs_f64());
        let direct = f.picks(&scene).unwrap().with(PickMethod::Direct);
        let t = Instant::now();
        direct.prepare();
        best_i = best_i.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let mut n = 0u64;
        for y in 0..i64::from(h) {
            for x in 0..i64::from(w) {
                n += u64::from(direct.id_at(x, y).is_some());
            }
        }
        best_s = best_s.min(t.elapsed().as_secs_f64());
        std::hint::black_box(n);
    }
    let f = r.frame();
    println!("{:?}", f.stats());
    // the index's summary is the part of the frame's Debug form after "direct: "
    let debug = format!("{f:?}");
    println!("{}", debug.split("direct: ").nth(1).unwrap_or("?"));
    println!(
        "render {:.2} ms, index {:.2} ms, serial sweep {:.2} ms ({:.1} ns/pick)",
        best_r * 1e3,
        best_i * 1e3,
        best_s * 1e3,
        best_s * 1e9 / f64::from(w * h)
    );
}
