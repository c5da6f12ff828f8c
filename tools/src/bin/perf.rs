//! Best frame time of each standard workload: the built-in scene and the
//! 70k- and 1M-triangle spheres, at 360×360 and 1920×1080, depth + ID only
//! and with color, on THREADS threads (default 2). Each renders for at
//! least a second (and five frames) after one warm-up frame, and the best
//! time is printed: the minimum is the least disturbed by other work on
//! the machine.
//! `cargo run --release --manifest-path tools/Cargo.toml --bin perf -- [THREADS]`
use std::time::Instant;

use softpick::{builtin_scene, Camera, RenderOptions, Renderer};
use softpick_tools::sphere_scene;

fn main() {
    let threads: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    for (name, scene) in [
        ("builtin362", builtin_scene()),
        ("sphere70k", sphere_scene(250, 141)),
        ("sphere1m", sphere_scene(1000, 501)),
    ] {
        for (w, h) in [(360, 360), (1920, 1080)] {
            let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
            for color in [false, true] {
                let mut r = Renderer::new(RenderOptions {
                    color,
                    threads: Some(threads),
                    ..RenderOptions::default()
                })
                .unwrap();
                // warm-up: the renderer's buffers and the meshes' caches
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
