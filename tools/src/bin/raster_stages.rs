//! Where a frame's time goes, per stage and per triangle: renders each
//! scene (ids only) on one thread and on two, frames of the two counts
//! alternating, and prints the counters of a frame (what became of the
//! triangles) and, per thread count, the median and the 10th percentile
//! (on a busy machine the low percentiles move far less) of each stage's
//! time in milliseconds and in nanoseconds per submitted triangle.
//! `cargo run --release --manifest-path tools/Cargo.toml --bin raster_stages -- [SIZE] SCENE...`
//! SIZE: 360, 1080 or WxH (default 640x480); SCENE: builtin, sphere70k,
//! sphere100k, sphere1m or FILE.obj. Env `N`: timed frames per count (default 40).
use std::time::Duration;

use softpick::{Camera, RenderOptions, Renderer, StageTimes};
use softpick_tools::{env_usize, scene_arg, size_arg};

/// The `p`-th percentile of `v`, in milliseconds.
fn pct(mut v: Vec<Duration>, p: usize) -> f64 {
    v.sort();
    v[v.len() * p / 100].as_secs_f64() * 1e3
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let size = match args.first() {
        Some(a) if a == "360" || a == "1080" || a.contains('x') => Some(args.remove(0)),
        _ => None,
    };
    let (w, h) = size_arg(size.as_deref(), (640, 480));
    let n = env_usize("N", 40).max(1);
    for name in &args {
        let scene = scene_arg(Some(name));
        let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
        let mut rs: Vec<Renderer> = [1, 2]
            .map(|t| {
                Renderer::new(RenderOptions {
                    color: false,
                    threads: Some(t),
                    ..RenderOptions::default()
                })
                .unwrap()
            })
            .into();
        let mut times: Vec<Vec<StageTimes>> = vec![Vec::new(); 2];
        for k in 0..n + 3 {
            for (r, t) in rs.iter_mut().zip(&mut times) {
                let st = r.render(&scene, &cam).unwrap().stage_times();
                if k >= 3 {
                    t.push(st);
                }
            }
        }
        let f = rs[0].frame();
        let st = f.stats();
        let covered = f.ids().iter().filter(|&&i| i != 0).count();
        let tris = st.triangles as f64;
        println!("{name} {w}x{h}: {st:?}, {covered} pixels covered");
        println!("threads     vertex  setup+bin     raster      total   (ms; ns per triangle)");
        for (k, t) in times.into_iter().enumerate() {
            for p in [50, 10] {
                let at = |f: fn(&StageTimes) -> Duration| pct(t.iter().map(f).collect(), p);
                let v = at(|s| s.vertex);
                let s = at(|s| s.setup);
                let r = at(|s| s.raster);
                let all = at(StageTimes::total);
                let ns = |ms: f64| ms * 1e6 / tris;
                let label = format!("{}T p{p}", k + 1);
                println!("{label:>7} {v:>10.3} {s:>10.3} {r:>10.3} {all:>10.3}");
                println!(
                    "{:>7} {:>10.2} {:>10.2} {:>10.2} {:>10.2}",
                    "ns/tri",
                    ns(v),
                    ns(s),
                    ns(r),
                    ns(all)
                );
            }
        }
    }
}
