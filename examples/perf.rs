use softpick::*;
use std::time::Instant;
#[path = "../benches/common/sphere.rs"]
mod sphere;
use sphere::uv_sphere;

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
