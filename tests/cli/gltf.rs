//! glTF files through the command line: every command reads them, `--scene`
//! and `--camera gltf:…` choose within them, `pick --json` names the
//! instance, and bad files exit 2 with one line naming the place.

use std::path::Path;

use base64::Engine;
use serde_json::{json, Value};
use softpick::internals::load_gltf;
use softpick::{render, LoadOptions, RenderOptions};

use super::{assert_ok, read_u32, run_in, scratch, text};

/// A .gltf file with its buffer in a data URI: a quad mesh placed by three
/// nodes (scene 0) or by one (scene "solo"), and a 2:1 perspective camera.
fn write_scene(dir: &Path) -> std::path::PathBuf {
    write_tiles(dir, false)
}

/// [`write_scene`]; with `animated`, an animation `slide` moves the right
/// tile from x = 1.2 to 3.2 over one second (LINEAR).
fn write_tiles(dir: &Path, animated: bool) -> std::path::PathBuf {
    let pos: [[f32; 3]; 4] = [
        [-0.5, -0.5, 0.0],
        [0.5, -0.5, 0.0],
        [0.5, 0.5, 0.0],
        [-0.5, 0.5, 0.0],
    ];
    let idx: [u32; 6] = [0, 1, 2, 0, 2, 3];
    let mut bin: Vec<u8> = pos.iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
    bin.extend(idx.iter().flat_map(|v| v.to_le_bytes()));
    if animated {
        // bytes 72..80: key times; 80..104: translations
        let keys = [0.0f32, 1.0, 1.2, 0.0, 0.0, 3.2, 0.0, 0.0];
        bin.extend(keys.iter().flat_map(|v| v.to_le_bytes()));
    }
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    let doc: Value = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2, 3]}, {"name": "solo", "nodes": [0]}],
        "nodes": [
            {"name": "left", "mesh": 0, "translation": [-1.2, 0.0, 0.0]},
            {"name": "mid", "mesh": 0},
            {"name": "right", "mesh": 0, "translation": [1.2, 0.0, 0.0]},
            {"name": "eye", "camera": 0, "translation": [0.0, 0.0, 4.0]}
        ],
        "cameras": [{"name": "wide", "type": "perspective", "perspective": {"yfov": 0.7, "aspectRatio": 2.0, "znear": 0.1, "zfar": 50.0}}],
        "meshes": [{"name": "tile", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 24}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, -0.5, 0.0], "max": [0.5, 0.5, 0.0]},
            {"bufferView": 1, "componentType": 5125, "count": 6, "type": "SCALAR"}
        ]
    });
    let mut doc = doc;
    if animated {
        let views = doc["bufferViews"].as_array_mut().unwrap();
        views.push(json!({"buffer": 0, "byteOffset": 72, "byteLength": 8}));
        views.push(json!({"buffer": 0, "byteOffset": 80, "byteLength": 24}));
        let acc = doc["accessors"].as_array_mut().unwrap();
        acc.push(json!({"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.0], "max": [1.0]}));
        acc.push(json!({"bufferView": 3, "componentType": 5126, "count": 2, "type": "VEC3"}));
        doc["animations"] = json!([{"name": "slide",
            "samplers": [{"input": 2, "output": 3, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 2, "path": "translation"}}]}]);
    }
    let p = dir.join(if animated { "slide.gltf" } else { "tiles.gltf" });
    std::fs::write(&p, doc.to_string()).unwrap();
    p
}

/// `--loop` reads a `--time` past the animation's end: `once` (the
/// default) holds the last key, `repeat` wraps around, `pingpong` mirrors;
/// a mode it does not know is a usage error.
#[test]
fn loop_modes_read_times_past_the_end() {
    let dir = scratch("gltf-loop");
    let file = write_tiles(&dir, true);
    let f = file.to_str().unwrap();
    let ids = |name: &str, extra: &[&str]| {
        let out = format!("{name}.u32");
        let mut args = vec![
            "render",
            f,
            "--camera",
            "gltf:wide",
            "--no-color",
            "--ids-raw",
            &out,
        ];
        args.extend_from_slice(extra);
        let o = run_in(&dir, &args);
        assert_ok(&o, name);
        read_u32(&dir.join(&out))
    };
    let at = |t: &str| ids(&format!("at{t}"), &["--time", t]);
    let (start, quarter, three_quarters, end) = (at("0"), at("0.25"), at("0.75"), at("1"));
    assert_ne!(quarter, three_quarters, "the tile moves");
    assert_eq!(ids("once", &["--time", "1.25"]), end, "once holds the end");
    assert_eq!(ids("once2", &["--time", "1.25", "--loop", "once"]), end);
    assert_eq!(
        ids("repeat", &["--time", "1.25", "--loop", "repeat"]),
        quarter
    );
    assert_eq!(
        ids("pingpong", &["--time", "1.25", "--loop", "pingpong"]),
        three_quarters
    );
    assert_eq!(
        ids("before", &["--time=-0.75", "--loop", "repeat"]),
        quarter,
        "before the keys, wrapped"
    );
    assert_eq!(ids("before_once", &["--time=-0.75"]), start);
    let o = run_in(&dir, &["render", f, "--time", "1", "--loop", "bounce"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--loop"), "{}", text(&o.stderr));
}

#[test]
fn render_pick_and_sweep_read_gltf_and_name_instances() {
    let dir = scratch("gltf-cmds");
    let file = write_scene(&dir);
    let f = file.to_str().unwrap();
    let o = run_in(&dir, &["render", f, "--ids-raw", "ids.u32", "--no-color"]);
    assert_ok(&o, "render");
    assert!(
        text(&o.stdout).contains("3 instances, 6 triangles"),
        "{}",
        text(&o.stdout)
    );
    // the raw IDs are the library's frame of the same file
    let (scene, _) = load_gltf(&file).unwrap();
    let cam = softpick::Camera::auto_frame(&scene.framing_bounds(), 360, 360);
    let frame = render(&scene, &cam, RenderOptions::default()).unwrap();
    assert_eq!(read_u32(&dir.join("ids.u32")), frame.ids());
    // a pick on the right tile names its instance and node
    let (x, y) = (0..360)
        .map(|x| (x, 180))
        .rev()
        .find(|&(x, y)| frame.ids()[y * 360 + x] != 0)
        .unwrap();
    let at = format!("{x},{y}");
    for method in ["buffer", "direct", "ray"] {
        let o = run_in(
            &dir,
            &["pick", f, "--at", &at, "--json", "--method", method],
        );
        assert_ok(&o, "pick");
        let v: Value = serde_json::from_str(text(&o.stdout).trim()).unwrap();
        assert_eq!(v["node_name"], "right", "{method}: {v}");
        assert_eq!(v["instance"], 2, "{method}");
        assert_eq!(v["primitive"], 0);
        assert_eq!(v["source_mesh"], 0);
        let h = frame.picks(&scene).unwrap().at(x as i64, y as i64).unwrap();
        assert_eq!(v["global_triangle"], h.global_triangle, "{method}");
        assert_eq!(v["node"], h.origin.node);
    }
    let o = run_in(&dir, &["sweep", f, "--reps", "1", "--size", "64x64"]);
    assert_ok(&o, "sweep");
}

#[test]
fn scene_and_camera_options_choose_within_the_file() {
    let dir = scratch("gltf-opts");
    let file = write_scene(&dir);
    let f = file.to_str().unwrap();
    let o = run_in(&dir, &["render", f, "--scene", "solo", "--no-color"]);
    assert_ok(&o, "render --scene solo");
    assert!(
        text(&o.stdout).contains("1 instances, 2 triangles"),
        "{}",
        text(&o.stdout)
    );
    // the camera's 2:1 aspect sets the width of a 360-pixel-tall frame
    let o = run_in(
        &dir,
        &[
            "render",
            f,
            "--camera",
            "gltf:wide",
            "--ids-raw",
            "w.u32",
            "--no-color",
        ],
    );
    assert_ok(&o, "render --camera gltf:wide");
    assert!(
        text(&o.stdout).contains(": 720x360,"),
        "{}",
        text(&o.stdout)
    );
    let opts = LoadOptions::default();
    let (scene, report) = softpick::internals::load_gltf_with(&file, &opts).unwrap();
    let c = &report.cameras[0];
    let cam = c
        .camera(
            scene.world_matrix(c.node),
            360,
            None,
            &scene.framing_bounds(),
        )
        .unwrap();
    let frame = render(&scene, &cam, RenderOptions::default()).unwrap();
    assert_eq!(read_u32(&dir.join("w.u32")), frame.ids());
    // refusals: exit 2, one line naming what is wrong
    for (args, needle) in [
        (vec!["render", f, "--scene", "9"], "no scene `9`"),
        (
            vec!["render", f, "--camera", "gltf:7"],
            "has no such camera (it has 0 (wide))",
        ),
        (vec!["render", "--scene", "1"], "no model file"),
    ] {
        let o = run_in(&dir, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert!(
            err.contains(needle) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}

#[test]
fn bad_gltf_files_exit_2_naming_the_file_and_place() {
    let dir = scratch("gltf-bad");
    let file = write_scene(&dir);
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    doc["accessors"][1]["count"] = json!(600);
    std::fs::write(dir.join("bad.gltf"), doc.to_string()).unwrap();
    std::fs::write(dir.join("page.glb"), "<html>nope</html>").unwrap();
    let obj = dir.join("tri.obj");
    std::fs::write(&obj, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    for (args, needle) in [
        (
            vec!["render", "bad.gltf"],
            "bad.gltf: meshes[0].primitives[0].indices",
        ),
        (
            vec!["pick", "page.glb", "--at", "1,1"],
            "page.glb: not a glTF file",
        ),
        (vec!["render", "tri.obj", "--scene", "1"], "glTF files only"),
    ] {
        let o = run_in(&dir, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = text(&o.stderr);
        assert!(
            err.contains(needle) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
}
