//! The distribution of frame times of one scene: renders it N times (env
//! `N`, default 600) back to back and prints the 0th, 10th, 50th and 90th
//! percentiles in microseconds. On a noisy machine the low percentiles move
//! far less than the median.
//! `cargo run --release --example frame_times -- THREADS [FILE.obj|""] [360|1080] [ids|color]`
use softpick::*;
use std::time::Instant;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let t: usize = a.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let scene = match a.get(2).map(String::as_str) {
        Some("") | None => builtin_scene(),
        Some(p) => load_obj(std::path::Path::new(p)).unwrap().0,
    };
    let (w, h) = match a.get(3).map(String::as_str) {
        Some("1080") => (1920, 1080),
        _ => (360, 360),
    };
    let color = a.get(4).is_some_and(|s| s == "color");
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let mut r = Renderer::new(RenderOptions {
        color,
        threads: Some(t),
        ..Default::default()
    })
    .unwrap();
    let mut v = Vec::new();
    let n: usize = std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600);
    for _ in 0..n {
        let s = Instant::now();
        r.render(&scene, &cam).unwrap();
        v.push(s.elapsed().as_secs_f64() * 1e6);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "p0 {:.0} p10 {:.0} p50 {:.0} p90 {:.0}",
        v[0],
        v[n / 10],
        v[n / 2],
        v[n * 9 / 10]
    );
}
