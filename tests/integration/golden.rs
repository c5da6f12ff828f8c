//! Golden images of the built-in scene (color and ID), compared exactly.
//! Regenerate with `UPDATE_GOLDEN=1 cargo test --release --test integration golden`.

use std::path::PathBuf;

use softpick::internals::read_png;
use softpick::{builtin_scene, render, write_png, Camera, RenderOptions};

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

fn check(name: &str, w: u32, h: u32, px: &[u32]) {
    let path = golden(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        write_png(&path, w, h, px).unwrap();
    }
    let (gw, gh, want) =
        read_png(&path).unwrap_or_else(|e| panic!("{e} (run with UPDATE_GOLDEN=1)"));
    assert_eq!((gw, gh), (w, h));
    let diff = want.iter().zip(px).filter(|(a, b)| a != b).count();
    assert_eq!(
        diff, 0,
        "{name}: {diff} pixels differ from the golden image"
    );
}

#[test]
fn builtin_scene_matches_golden_images() {
    let scene = builtin_scene();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let f = render(&scene, &cam, RenderOptions::default()).unwrap();
    check("builtin_color.png", 360, 360, f.color());
    // the ID buffer losslessly as 24-bit RGB (global triangle index + 1)
    check("builtin_ids.png", 360, 360, f.ids());
}
