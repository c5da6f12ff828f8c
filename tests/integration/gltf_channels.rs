//! glTF animation channels softpick cannot animate: a `"pointer"` channel
//! of `KHR_animation_pointer` (no `node`), a path it does not know, a
//! channel without a node. Each is skipped with a warning naming it and the
//! rest of the file loads and animates; a channel naming a node past the
//! last one is an error naming the file and the channel. Every file is
//! generated here with `gltf.rs`'s writer.
#![cfg(feature = "gltf")]

use std::path::Path;

use serde_json::{json, Value};
use softpick::animation::LoopMode;
use softpick::internals::load_gltf_bytes;
use softpick::{render, Camera, LoadOptions, LoadReport, RenderOptions, Scene};

use crate::gltf::{quad, Doc};

/// A GLB: a quad on node 0 ("mover") and one on node 1 ("still"), and one
/// animation whose channel 0 moves node 0 from x = -1 to x = 1 over a
/// second (sampler 0), followed by `extra` channels (which may use sampler
/// 0, or sampler 1: times that go back, 1 → 0). `used`/`required` are the
/// file's extensionsUsed / extensionsRequired.
fn anim_glb(extra: &[Value], used: &[&str], required: &[&str]) -> Vec<u8> {
    let mut d = Doc::default();
    let (p, i) = quad();
    let pa = d.positions(&p);
    let ia = d.indices(&i);
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let times = d.accessor(&f32s(&[0.0, 1.0]), 5126, 2, "SCALAR", false);
    d.accessors[times]["min"] = json!([0.0]);
    d.accessors[times]["max"] = json!([1.0]);
    let back = d.accessor(&f32s(&[1.0, 0.0]), 5126, 2, "SCALAR", false);
    d.accessors[back]["min"] = json!([0.0]);
    d.accessors[back]["max"] = json!([1.0]);
    let moves = d.accessor(
        &f32s(&[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0]),
        5126,
        2,
        "VEC3",
        false,
    );
    let mut channels = vec![json!({"sampler": 0, "target": {"node": 0, "path": "translation"}})];
    channels.extend(extra.iter().cloned());
    let mut root = json!({
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "mover", "mesh": 0},
            {"name": "still", "mesh": 0, "translation": [0.0, 1.5, 0.0]}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}],
        "animations": [{"name": "slide", "channels": channels, "samplers": [
            {"input": times, "output": moves},
            {"input": back, "output": moves}
        ]}]
    });
    if !used.is_empty() {
        root["extensionsUsed"] = json!(used);
    }
    if !required.is_empty() {
        root["extensionsRequired"] = json!(required);
    }
    d.glb(root)
}

/// A `KHR_animation_pointer` channel (no node) animating `pointer`.
fn pointer(pointer: &str) -> Value {
    json!({"sampler": 0, "target": {"path": "pointer",
        "extensions": {"KHR_animation_pointer": {"pointer": pointer}}}})
}

fn load(glb: &[u8]) -> (Scene, LoadReport) {
    load_gltf_bytes(Path::new("anim.glb"), glb, &LoadOptions::default()).unwrap()
}

fn load_err(glb: &[u8]) -> String {
    let msg = load_gltf_bytes(Path::new("anim.glb"), glb, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(msg.starts_with("anim.glb: "), "{msg}");
    assert!(!msg.contains('\n'), "one line: {msg}");
    msg
}

fn camera() -> Camera {
    let mut cam = Camera::auto_frame(
        &softpick::Aabb {
            min: glam::Vec3::new(-1.6, -0.6, 0.0),
            max: glam::Vec3::new(1.6, 2.1, 0.0),
        },
        96,
        80,
    );
    cam.far = 100.0;
    cam
}

#[test]
fn pointer_channels_are_skipped_and_the_file_poses_as_without_them() {
    let with = anim_glb(
        &[
            pointer("/nodes/1/translation"),
            pointer("/materials/0/pbrMetallicRoughness/baseColorFactor"),
        ],
        &["KHR_animation_pointer"],
        &[],
    );
    let without = anim_glb(&[], &[], &[]);
    let (mut a, ra) = load(&with);
    let (mut b, rb) = load(&without);
    assert_eq!(
        ra.warnings,
        vec!["anim.glb: animations[0]: channels 1, 2 target a `pointer` \
              (KHR_animation_pointer), which softpick does not animate: skipped"
            .to_string()]
    );
    assert!(rb.warnings.is_empty(), "{:?}", rb.warnings);
    assert_eq!(a.animations()[0].channels.len(), 1);
    let cam = camera();
    for t in [0.0, 0.25, 0.5, 1.0] {
        a.pose(t, Some(0), LoopMode::Once).unwrap();
        b.pose(t, Some(0), LoopMode::Once).unwrap();
        assert_eq!(a.world_matrices(), b.world_matrices(), "t = {t}");
        let fa = render(&a, &cam, RenderOptions::default()).unwrap();
        let fb = render(&b, &cam, RenderOptions::default()).unwrap();
        assert_eq!(fa.ids(), fb.ids(), "t = {t}");
        assert_eq!(fa.depth(), fb.depth(), "t = {t}");
    }
    // and the mover moved: at 0 s it is left of x = 0, at 1 s right of it
    a.pose(0.0, Some(0), LoopMode::Once).unwrap();
    let left = a.world_matrix(a.instances()[0].node).w_axis.x;
    a.pose(1.0, Some(0), LoopMode::Once).unwrap();
    let right = a.world_matrix(a.instances()[0].node).w_axis.x;
    assert_eq!((left, right), (-1.0, 1.0));
}

#[test]
fn unknown_paths_and_channels_without_a_node_are_skipped_naming_each() {
    let glb = anim_glb(
        &[
            json!({"sampler": 0, "target": {"node": 1, "path": "color"}}),
            json!({"sampler": 0, "target": {"path": "translation"}}),
            json!({"sampler": 0, "target": {"node": 1, "path": "visibility"}}),
            pointer("/nodes/0/scale"),
        ],
        &[],
        &[],
    );
    let (scene, report) = load(&glb);
    assert_eq!(
        report.warnings,
        vec![
            "anim.glb: animations[0]: channel 4 targets a `pointer` (KHR_animation_pointer), \
             which softpick does not animate: skipped"
                .to_string(),
            "anim.glb: animations[0]: channels 1 (`color`), 3 (`visibility`) target a path \
             softpick does not animate (it animates translation, rotation, scale and weights): \
             skipped"
                .to_string(),
            "anim.glb: animations[0]: channel 2 names no target node: skipped".to_string(),
        ]
    );
    assert_eq!(scene.animations()[0].channels.len(), 1);
}

#[test]
fn a_channel_naming_a_node_past_the_last_is_an_error_naming_it() {
    let e = load_err(&anim_glb(
        &[json!({"sampler": 0, "target": {"node": 7, "path": "scale"}})],
        &[],
        &[],
    ));
    assert_eq!(
        e,
        "anim.glb: animations[0].channels[1].target.node: refers to node 7, \
         which does not exist (the file has 2)"
    );
    // a huge index too (no allocation or overflow on it)
    let e = load_err(&anim_glb(
        &[json!({"sampler": 0, "target": {"node": u64::MAX, "path": "scale"}})],
        &[],
        &[],
    ));
    assert!(e.contains("animations[0].channels[1].target.node"), "{e}");
}

#[test]
fn errors_after_skipped_channels_name_the_channel_as_the_file_numbers_it() {
    // channel 1 is skipped, channel 2 (sampler 1, times going back) is bad
    let e = load_err(&anim_glb(
        &[
            pointer("/nodes/0/rotation"),
            json!({"sampler": 1, "target": {"node": 1, "path": "translation"}}),
        ],
        &["KHR_animation_pointer"],
        &[],
    ));
    assert!(
        e.contains("animations[0].channels[2]") && e.contains("increasing"),
        "{e}"
    );
}

#[test]
fn a_file_requiring_khr_animation_pointer_is_refused_by_name() {
    let e = load_err(&anim_glb(
        &[pointer("/nodes/1/translation")],
        &["KHR_animation_pointer"],
        &["KHR_animation_pointer"],
    ));
    assert!(e.contains("KHR_animation_pointer"), "{e}");
}

#[test]
fn malformed_targets_are_errors_not_panics() {
    for (target, needle) in [
        (json!({"node": "zero", "path": "scale"}), "invalid type"),
        (json!({"node": 0, "path": 5}), "invalid type"),
        (json!({"node": -1, "path": "scale"}), "invalid type"),
    ] {
        let e = load_err(&anim_glb(
            &[json!({"sampler": 0, "target": target})],
            &[],
            &[],
        ));
        assert!(e.contains(needle), "{target}: {e}");
    }
    let e = load_err(&anim_glb(&[json!({"sampler": 0})], &[], &[]));
    assert!(e.contains("target"), "{e}");
}
