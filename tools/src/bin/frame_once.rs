//! Renders one scene a few times on one thread: a fixed workload for
//! instruction counting (`valgrind --tool=callgrind`) when the machine is
//! too busy for wall-clock timing. Prints the covered pixel count and the
//! last frame's counters.
//! `cargo run --release --manifest-path tools/Cargo.toml --bin frame_once -- [SCENE] [W] [H] [ids|color] [FRAMES]`
//! SCENE: builtin (default), sphere70k, sphere100k, sphere1m or FILE.obj.
use softpick::{Camera, RenderOptions, Renderer};
use softpick_tools::scene_arg;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: &str| a.get(i).cloned().unwrap_or_else(|| d.to_string());
    let scene = scene_arg(a.get(1).map(String::as_str));
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
