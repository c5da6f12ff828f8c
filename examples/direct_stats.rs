//! Direct picks on one model and size: render, cell index build and a
//! serial W×H sweep of `triangle_at_direct` (best of 5), and the render's counters:
//! `cargo run --release --example direct_stats -- [MODEL] [WxH] [threads]`.
use softpick::*;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scene = match args.get(1).map(String::as_str) {
        None | Some("builtin") => builtin_scene(),
        Some(p) => load_obj(std::path::Path::new(p)).unwrap().0,
    };
    let (w, h) = args
        .get(2)
        .and_then(|s| s.split_once('x'))
        .map(|(a, b)| (a.parse().unwrap(), b.parse().unwrap()))
        .unwrap_or((360, 360));
    let threads: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build_global()
        .unwrap();
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let mut r = Renderer::new(RenderOptions {
        color: false,
        ..Default::default()
    })
    .unwrap();
    let (mut best_r, mut best_i, mut best_s) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..5 {
        let t = Instant::now();
        let f = r.render(&scene, &cam).unwrap();
        best_r = best_r.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        f.prepare_direct();
        best_i = best_i.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let mut n = 0u64;
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                n += u64::from(f.triangle_at_direct(x, y).is_some());
            }
        }
        best_s = best_s.min(t.elapsed().as_secs_f64());
        std::hint::black_box(n);
    }
    let f = r.frame();
    println!("{:?}", f.stats());
    println!(
        "{}",
        format!("{f:?}").split("direct: ").nth(1).unwrap_or("?")
    );
    println!(
        "render {:.2} ms, index {:.2} ms, serial sweep {:.2} ms ({:.1} ns/pick)",
        best_r * 1e3,
        best_i * 1e3,
        best_s * 1e3,
        best_s * 1e9 / f64::from(w * h)
    );
}
