//! The distribution of one scene's frame times: renders it N times (env
//! `N`, default 600) back to back and prints the 0th, 10th, 50th and 90th
//! percentiles in microseconds, then the CPU time a frame (all threads; on
//! a shared VM it leaves out the time the host took the CPU away). On a
//! noisy machine the low percentiles move far less than the median.
//! `cargo run --release --manifest-path tools/Cargo.toml --bin frame_times -- THREADS [SCENE] [SIZE] [ids|color]`
//! SCENE: builtin (default), sphere70k, sphere100k, sphere1m or FILE.obj;
//! SIZE: 360 (default), 1080 or WxH.
use std::time::Instant;

use softpick::{Camera, RenderOptions, Renderer};
use softpick_tools::{cpu_ms, env_usize, scene_arg, size_arg};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let threads: usize = a.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let scene = scene_arg(a.get(2).map(String::as_str));
    let (w, h) = size_arg(a.get(3).map(String::as_str), (360, 360));
    let color = a.get(4).is_some_and(|s| s == "color");
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let mut r = Renderer::new(RenderOptions {
        color,
        threads: Some(threads),
        ..RenderOptions::default()
    })
    .unwrap();
    let n = env_usize("N", 600).max(1);
    let cpu0 = cpu_ms();
    let mut v: Vec<f64> = (0..n)
        .map(|_| {
            let s = Instant::now();
            r.render(&scene, &cam).unwrap();
            s.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    let cpu = cpu_ms()
        .zip(cpu0)
        .map_or(f64::NAN, |(b, a)| (b - a) * 1e3 / n as f64);
    v.sort_by(f64::total_cmp);
    println!(
        "p0 {:.0} p10 {:.0} p50 {:.0} p90 {:.0} cpu {:.0}",
        v[0],
        v[n / 10],
        v[n / 2],
        v[n * 9 / 10],
        cpu
    );
}
