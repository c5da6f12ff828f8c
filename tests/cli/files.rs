//! Files as other programs write them, through `softpick render`: those
//! softpick reads load (exit 0) with a warning naming what was passed over;
//! bad ones exit 2 with one line naming the file; none ever panics (101).

use std::path::Path;

use base64::Engine;
use serde_json::{json, Value};

use super::{run_in, scratch, text};

/// A .gltf (buffer in a data URI) of a quad on node 0 whose animation moves
/// it over a second (channel 0), then the `extra` channels (sampler 0).
fn animated_gltf(extra: &[Value], used: &[&str]) -> String {
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let mut bin = f32s(&[
        -0.5, -0.5, 0.0, 0.5, -0.5, 0.0, 0.5, 0.5, 0.0, -0.5, 0.5, 0.0,
    ]);
    bin.extend([0u32, 1, 2, 0, 2, 3].iter().flat_map(|v| v.to_le_bytes()));
    bin.extend(f32s(&[0.0, 1.0]));
    bin.extend(f32s(&[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0]));
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    let mut channels = vec![json!({"sampler": 0, "target": {"node": 0, "path": "translation"}})];
    channels.extend(extra.iter().cloned());
    let mut doc = json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "mover", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "animations": [{"channels": channels, "samplers": [{"input": 2, "output": 3}]}],
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 48},
            {"buffer": 0, "byteOffset": 48, "byteLength": 24},
            {"buffer": 0, "byteOffset": 72, "byteLength": 8},
            {"buffer": 0, "byteOffset": 80, "byteLength": 24}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-0.5, -0.5, 0.0], "max": [0.5, 0.5, 0.0]},
            {"bufferView": 1, "componentType": 5125, "count": 6, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5126, "count": 2, "type": "SCALAR",
             "min": [0.0], "max": [1.0]},
            {"bufferView": 3, "componentType": 5126, "count": 2, "type": "VEC3"}
        ]
    });
    if !used.is_empty() {
        doc["extensionsUsed"] = json!(used);
    }
    doc.to_string()
}

/// An ASCII PLY square (two triangles) with `extra` lines after `format`.
fn ply_square(extra: &str) -> String {
    format!(
        "ply\nformat ascii 1.0\n{extra}element vertex 4\nproperty float x\nproperty float y\n\
         property float z\nelement face 2\nproperty list uchar int vertex_indices\nend_header\n\
         0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n3 0 2 3\n"
    )
}

/// Runs `softpick render FILE -o o.png` in `dir`; (exit code, stderr).
fn render(dir: &Path, file: &str) -> (Option<i32>, String) {
    let o = run_in(dir, &["render", file, "-o", "o.png", "--size", "64x48"]);
    let err = text(&o.stderr);
    assert!(!err.contains("panicked"), "{file}: {err}");
    assert_ne!(o.status.code(), Some(101), "{file}: {err}");
    (o.status.code(), err)
}

#[test]
fn files_softpick_reads_render_with_a_warning_naming_what_was_passed_over() {
    let dir = scratch("files-warn");
    let pointer = json!({"sampler": 0, "target": {"path": "pointer",
        "extensions": {"KHR_animation_pointer": {"pointer": "/nodes/0/scale"}}}});
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "pointer.gltf",
            animated_gltf(&[pointer], &["KHR_animation_pointer"]),
            "pointer.gltf: animations[0]: channel 1 targets a `pointer` (KHR_animation_pointer)",
        ),
        (
            "unknown_path.gltf",
            animated_gltf(
                &[json!({"sampler": 0, "target": {"node": 0, "path": "color"}})],
                &[],
            ),
            "unknown_path.gltf: animations[0]: channel 1 (`color`) targets a path",
        ),
        (
            "no_node.gltf",
            animated_gltf(&[json!({"sampler": 0, "target": {"path": "scale"}})], &[]),
            "no_node.gltf: animations[0]: channel 1 names no target node",
        ),
        (
            "blender247.ply",
            ply_square("Created by Blender3D 247 - www.blender.org, source file: 'a.blend'\n"),
            "blender247.ply: header line 3 `Created by Blender3D 247",
        ),
        (
            "blank_line.ply",
            ply_square("\n"),
            "blank_line.ply: header line 3 is blank",
        ),
        (
            "cr.ply",
            ply_square("obj_info from a classic Mac\n").replace('\n', "\r"),
            "cr.ply: header line 1 ends with a lone CR",
        ),
    ];
    for (name, body, warning) in &cases {
        std::fs::write(dir.join(name), body).unwrap();
        let (code, err) = render(&dir, name);
        assert_eq!(code, Some(0), "{name}: {err}");
        assert!(
            err.contains(&format!("softpick: warning: {warning}")),
            "{name}: {err}"
        );
        assert!(dir.join("o.png").is_file(), "{name}");
        std::fs::remove_file(dir.join("o.png")).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_files_exit_2_with_one_line_naming_the_file() {
    let dir = scratch("files-bad");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "missing_node.gltf",
            animated_gltf(
                &[json!({"sampler": 0, "target": {"node": 9, "path": "scale"}})],
                &[],
            )
            .into_bytes(),
            "animations[0].channels[1].target.node: refers to node 9",
        ),
        (
            "huge_node.gltf",
            animated_gltf(
                &[json!({"sampler": 0, "target": {"node": 4294967296u64, "path": "scale"}})],
                &[],
            )
            .into_bytes(),
            "animations[0].channels[1].target.node",
        ),
        (
            "no_target.gltf",
            animated_gltf(&[json!({"sampler": 0})], &[]).into_bytes(),
            "target",
        ),
        (
            "bad_header.ply",
            ply_square("element\n").into_bytes(),
            "line 3",
        ),
    ];
    for (name, body, needle) in &cases {
        std::fs::write(dir.join(name), body).unwrap();
        let (code, err) = render(&dir, name);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(
            err.starts_with("softpick: ") && err.contains(name),
            "{name}: {err}"
        );
        assert!(err.contains(needle), "{name}: lacks {needle:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: one line: {err}");
        assert!(!dir.join("o.png").exists(), "{name} left an output");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
