//! What the perf and tuning programs share: the scenes they measure, named
//! on the command line.

use std::path::Path;

use softpick::internals::load_obj;
use softpick::{builtin_scene, Mesh, Scene, Transform};

/// A unit UV sphere (testkit's generator) as a one-mesh scene:
/// 2·slices·(stacks−1) triangles.
pub fn sphere_scene(slices: u32, stacks: u32) -> Scene {
    let (pos, tris) = softpick_testkit::uv_sphere(slices, stacks);
    let mut scene = Scene::new();
    let mesh = Mesh::new("sphere", pos, tris, [200, 200, 200]).expect("a valid sphere");
    scene.add_mesh(mesh, Transform::IDENTITY, None);
    scene
}

/// The scene a program's argument names: `builtin` (also for no argument
/// or an empty one), `sphere70k` (70,000 triangles), `sphere100k`,
/// `sphere1m` (1,000,000) or the path of an OBJ file. Exits with a message
/// when the file does not load.
pub fn scene_arg(arg: Option<&str>) -> Scene {
    match arg.unwrap_or("") {
        "" | "builtin" => builtin_scene(),
        "sphere70k" => sphere_scene(250, 141),
        "sphere100k" => sphere_scene(250, 201),
        "sphere1m" => sphere_scene(1000, 501),
        path => match load_obj(Path::new(path)) {
            Ok((scene, _)) => scene,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        },
    }
}

/// The frame size an argument names: `WxH`, or `360` / `1080` for
/// 360×360 / 1920×1080; `default` without one.
pub fn size_arg(arg: Option<&str>, default: (u32, u32)) -> (u32, u32) {
    match arg {
        None => default,
        Some("360") => (360, 360),
        Some("1080") => (1920, 1080),
        Some(s) => s
            .split_once('x')
            .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
            .unwrap_or_else(|| {
                eprintln!("not a size (WxH, 360 or 1080): {s}");
                std::process::exit(2);
            }),
    }
}

/// An environment variable's number, or `default`.
pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The CPU time of this process so far in ms (Linux: `/proc/self/stat`'s
/// user and system ticks, 100 a second), `None` elsewhere. On a shared
/// machine the CPU time of a piece of work is steadier than its wall time.
pub fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // the fields after the command name (which may hold spaces) in parentheses
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 * 10.0)
}

/// The median of `v` (the upper one of an even count); `v` must not be empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_scenes_and_sizes() {
        assert_eq!(scene_arg(None).triangle_count(), 362);
        assert_eq!(scene_arg(Some("sphere70k")).triangle_count(), 70_000);
        assert_eq!(scene_arg(Some("sphere100k")).triangle_count(), 100_000);
        assert_eq!(size_arg(Some("1080"), (1, 1)), (1920, 1080));
        assert_eq!(size_arg(Some("64x48"), (1, 1)), (64, 48));
        assert_eq!(size_arg(None, (7, 9)), (7, 9));
    }
}
