//! Renders one scene a few times on one thread: a fixed workload for
//! instruction counting (`valgrind --tool=callgrind`) when the machine is
//! too busy for wall-clock timing.
//! `cargo run --release --example frame_once -- builtin|sphere70k|sphere1m|FILE.obj W H ids|color FRAMES`
//! prints the covered pixel count and the last frame's counters.
use softpick::{builtin_scene, Camera, RenderOptions, Renderer};

#[path = "../benches/common/sphere.rs"]
mod sphere;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: &str| a.get(i).cloned().unwrap_or_else(|| d.to_string());
    let scene = match arg(1, "builtin").as_str() {
        "sphere70k" => sphere::uv_sphere(250, 141),
        "sphere1m" => sphere::uv_sphere(1000, 501),
        p if p.ends_with(".obj") => softpick::load_obj(std::path::Path::new(p)).unwrap().0,
        _ => builtin_scene(),
    };
    let (w, h): (u32, u32) = (
        arg(2, "360").parse().unwrap(),
        arg(3, "360").parse().unwrap(),
    );
    let color = arg(4, "ids") == "color";
    let frames: u32 = arg(5, "3").parse().unwrap();
    let cam = Camera::auto_frame(&scene.framing_bounds(), w, h);
    let mut r = Renderer::new(RenderOptions {
        color,
        threads: Some(1),
        ..RenderOptions::default()
    })
    .unwrap();
    let mut covered = 0;
    for _ in 0..frames {
        covered = r
            .render(&scene, &cam)
            .unwrap()
            .ids()
            .iter()
            .filter(|&&i| i != 0)
            .count();
    }
    println!("{covered} pixels covered");
    println!("{:?}", r.frame().stats());
}
