//! An animated glTF in the real window: `Space` plays and pauses the
//! animation, the pause line gives the time, and a click where the moving
//! tile is at that time picks it, as the library's pick of the scene posed
//! at that time does; `]` steps through the animations.

use std::path::Path;

use base64::Engine;
use serde_json::json;
use softpick::animation::LoopMode;
use softpick::internals::load_gltf;
use softpick::{render, Camera, Projection, RenderOptions};

use crate::expect::{H, W};
use crate::session::Viewer;

/// Three tiles placed by nodes a, b, c; the animation `slide` moves c from
/// x = 1.2 to x = 3.2 over one second.
fn write_tiles(dir: &Path) -> std::path::PathBuf {
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut bin = f32s(&[
        -0.5, -0.5, 0.0, 0.5, -0.5, 0.0, 0.5, 0.5, 0.0, -0.5, 0.5, 0.0,
    ]);
    bin.extend([0u32, 1, 2, 0, 2, 3].iter().flat_map(|v| v.to_le_bytes()));
    bin.extend(f32s(&[0.0, 1.0, 1.2, 0.0, 0.0, 3.2, 0.0, 0.0]));
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    let doc = json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [
            {"name": "a", "mesh": 0, "translation": [-1.2, 0.0, 0.0]},
            {"name": "b", "mesh": 0},
            {"name": "c", "mesh": 0, "translation": [1.2, 0.0, 0.0]}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "animations": [{"name": "slide", "samplers": [{"input": 2, "output": 3}],
            "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}]}],
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 24},
            {"buffer": 0, "byteOffset": 72, "byteLength": 8},
            {"buffer": 0, "byteOffset": 80, "byteLength": 24}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, -0.5, 0.0], "max": [0.5, 0.5, 0.0]},
            {"bufferView": 1, "componentType": 5125, "count": 6, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "VEC3"}
        ]
    });
    let p = dir.join("tiles.gltf");
    std::fs::write(&p, doc.to_string()).unwrap();
    p
}

/// The value of `key=` in a stdout line.
fn field<'a>(line: &'a str, key: &str) -> &'a str {
    line.split(' ')
        .find_map(|w| w.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
        .unwrap_or_else(|| panic!("no {key}= in {line:?}"))
}

#[test]
#[ignore = "needs Xvfb, xdotool and ImageMagick's import (apt-get install xvfb xdotool imagemagick); run with --include-ignored"]
fn space_plays_and_pauses_and_picks_land_on_the_moving_tile() {
    let dir = std::env::temp_dir().join(format!("softpick-view-e2e-{}-anim", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = write_tiles(&dir);
    let cam = Camera {
        eye: glam::Vec3::new(1.0, 0.0, 7.0),
        target: glam::Vec3::new(1.0, 0.0, 0.0),
        up: glam::Vec3::Y,
        projection: Projection::Perspective { fov_y_deg: 45.0 },
        near: 0.1,
        far: 100.0,
        width: W,
        height: H,
    };
    let cam_file = dir.join("cam.json");
    std::fs::write(
        &cam_file,
        r#"{"eye":[1,0,7],"target":[1,0,0],"up":[0,1,0],"fov_y_deg":45,"near":0.1,"far":100,"width":320,"height":240}"#,
    )
    .unwrap();
    let v = Viewer::start_with(
        &[
            file.to_str().unwrap(),
            "--camera",
            cam_file.to_str().unwrap(),
        ],
        &dir,
    );
    v.key("space");
    assert_eq!(
        v.line("animation ", "Space"),
        "animation play index=0 name=slide t=0.000"
    );
    std::thread::sleep(std::time::Duration::from_millis(400));
    v.key("space");
    let pause = v.line("animation ", "the second Space");
    assert!(
        pause.starts_with("animation pause index=0 name=slide"),
        "{pause}"
    );
    let t: f32 = field(&pause, "t").parse().unwrap();
    assert!(t > 0.05 && t < 1.0, "{pause}");
    // where tile c is at time t, by the library
    let (mut scene, _) = load_gltf(&file).unwrap();
    scene.pose(t, Some(0), LoopMode::Repeat).unwrap(); // the viewer plays with repeat
    let frame = render(&scene, &cam, RenderOptions::default()).unwrap();
    let p = cam
        .project(glam::Vec3::new(1.2 + 2.0 * t, 0.0, 0.0))
        .unwrap();
    let (x, y) = (p.x as u32, p.y as u32);
    let hit = frame.picks(&scene).unwrap().at(x.into(), y.into()).unwrap();
    assert_eq!(&*hit.node_name, "c");
    v.click((x, y));
    let line = v.line("pick ", "the click on the moved tile");
    assert_eq!(field(&line, "node"), "c", "{line}");
    assert_eq!(field(&line, "instance"), "2", "{line}");
    assert_eq!(
        field(&line, "global"),
        hit.global_triangle.to_string(),
        "{line}"
    );
    // one animation: ] wraps to it, from its start
    v.key("bracketright");
    assert_eq!(
        v.line("animation ", "]"),
        "animation index=0 name=slide duration=1.000"
    );
    v.quit();
}
