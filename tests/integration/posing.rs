//! Scenes posed at a time: a skinned strip, a morphed quad and a mesh with
//! both, generated as glTF files. At several times the three pick methods
//! agree on the posed geometry (buffer = direct at every pixel, ray = buffer
//! away from ID edges), the posed vertices are where the spec's formulas
//! put them, moving a node costs no BVH work, and deformed meshes refit
//! their BVHs, which then answer as freshly built ones do.
#![cfg(feature = "gltf")]

use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use serde_json::json;
use softpick::animation::LoopMode;
use softpick::internals::load_gltf_bytes;
use softpick::{render, Camera, LoadOptions, Projection, RenderOptions, Scene};

use crate::gltf::Doc;

/// A strip of 4 quads up the y axis (x in [-0.5, 0.5], y in 0..4), skinned
/// to two joints (the second at y = 2, its vertices above y = 2 fully, at
/// y = 2 half), the second joint turning about z from 0 to 90° over 1 s;
/// with `morph`, one target pushes every vertex +0.5 in z, weighted 0 → 1
/// over the same second.
fn strip_doc(skin: bool, morph: bool) -> Vec<u8> {
    let mut d = Doc::default();
    let mut pos = Vec::new();
    for row in 0..5 {
        for x in [-0.5f32, 0.5] {
            pos.push([x, row as f32, 0.0]);
        }
    }
    let mut idx = Vec::new();
    for row in 0..4u32 {
        let a = row * 2;
        idx.extend([a, a + 1, a + 3, a, a + 3, a + 2]);
    }
    let pa = d.positions(&pos);
    let ia = d.indices(&idx);
    let mut attributes = json!({"POSITION": pa});
    let mut prim = json!({"indices": ia});
    let mut root = json!({"scenes": [{"nodes": [0]}], "meshes": [{"name": "strip"}]});
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let times = d.accessor(&f32s(&[0.0, 1.0]), 5126, 2, "SCALAR", false);
    d.accessors[times]["min"] = json!([0.0]);
    d.accessors[times]["max"] = json!([1.0]);
    let mut channels = Vec::new();
    let mut samplers = Vec::new();
    if skin {
        let joints: Vec<u8> = pos
            .iter()
            .flat_map(|_| [0u16, 1, 0, 0])
            .flat_map(u16::to_le_bytes)
            .collect();
        let weights: Vec<f32> = pos
            .iter()
            .flat_map(|p| {
                let w1 = if p[1] > 2.0 {
                    1.0
                } else if p[1] == 2.0 {
                    0.5
                } else {
                    0.0
                };
                [1.0 - w1, w1, 0.0, 0.0]
            })
            .collect();
        attributes["JOINTS_0"] = json!(d.accessor(&joints, 5123, pos.len(), "VEC4", false));
        attributes["WEIGHTS_0"] =
            json!(d.accessor(&f32s(&weights), 5126, pos.len(), "VEC4", false));
        // inverse bind: joint 0 at the origin, joint 1 at y = 2
        let ib: Vec<f32> = [
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::new(0.0, -2.0, 0.0)),
        ]
        .iter()
        .flat_map(|m| m.to_cols_array())
        .collect();
        let iba = d.accessor(&f32s(&ib), 5126, 2, "MAT4", false);
        root["skins"] = json!([{"joints": [1, 2], "inverseBindMatrices": iba}]);
        let q1 = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let rot = d.accessor(
            &f32s(&[0.0, 0.0, 0.0, 1.0, q1.x, q1.y, q1.z, q1.w]),
            5126,
            2,
            "VEC4",
            false,
        );
        samplers.push(json!({"input": times, "output": rot, "interpolation": "LINEAR"}));
        channels.push(
            json!({"sampler": samplers.len() - 1, "target": {"node": 2, "path": "rotation"}}),
        );
    }
    if morph {
        let delta: Vec<[f32; 3]> = pos.iter().map(|_| [0.0, 0.0, 0.5]).collect();
        let ta = d.positions(&delta);
        prim["targets"] = json!([{"POSITION": ta}]);
        root["meshes"][0]["weights"] = json!([0.0]);
        let w = d.accessor(&f32s(&[0.0, 1.0]), 5126, 2, "SCALAR", false);
        samplers.push(json!({"input": times, "output": w, "interpolation": "LINEAR"}));
        channels
            .push(json!({"sampler": samplers.len() - 1, "target": {"node": 0, "path": "weights"}}));
    }
    prim["attributes"] = attributes;
    root["meshes"][0]["primitives"] = json!([prim]);
    let mut mesh_node = json!({"name": "body", "mesh": 0, "translation": [0.3, 0.0, 0.0]});
    if skin {
        mesh_node["skin"] = json!(0);
        root["scenes"] = json!([{"nodes": [0, 1]}]);
        root["nodes"] = json!([mesh_node, {"name": "hip", "children": [2]}, {"name": "knee", "translation": [0.0, 2.0, 0.0]}]);
    } else {
        root["nodes"] = json!([mesh_node]);
    }
    root["animations"] = json!([{"name": "bend", "channels": channels, "samplers": samplers}]);
    d.glb(root)
}

fn load(glb: &[u8]) -> Scene {
    load_gltf_bytes(Path::new("strip.glb"), glb, &LoadOptions::default())
        .unwrap()
        .0
}

/// A fixed camera that sees the strip in every pose.
fn camera() -> Camera {
    Camera {
        eye: Vec3::new(0.0, 2.0, 9.0),
        target: Vec3::new(0.0, 2.0, 0.0),
        up: Vec3::Y,
        projection: Projection::Perspective { fov_y_deg: 50.0 },
        near: 0.1,
        far: 100.0,
        width: 120,
        height: 120,
    }
}

/// Buffer = direct at every pixel and ray = buffer away from edges; the
/// covered pixel count.
fn three_methods_agree(scene: &Scene, what: &str) -> usize {
    let f = render(scene, &camera(), RenderOptions::default()).unwrap();
    let picks = f.picks(scene).unwrap();
    for y in 0..120 {
        for x in 0..120 {
            let b = picks.at(x, y).map(|h| h.global_triangle);
            let d = picks
                .with(softpick::PickMethod::Direct)
                .at(x, y)
                .map(|h| h.global_triangle);
            assert_eq!(b, d, "{what} ({x},{y})");
        }
    }
    let (agree, covered) = crate::rays::agreement(scene, &f);
    assert!(
        covered > 300 && agree * 100 >= covered * 95,
        "{what}: {agree}/{covered}"
    );
    covered
}

/// World position of vertex `v` of mesh 0.
fn world_vertex(scene: &Scene, v: usize) -> Vec3 {
    scene
        .mesh_world(0)
        .transform_point3(scene.meshes()[0].positions()[v])
}

#[test]
fn skinned_morphed_and_both_agree_on_every_method_at_several_times() {
    for (skin, morph) in [(true, false), (false, true), (true, true)] {
        let mut scene = load(&strip_doc(skin, morph));
        assert_eq!(scene.animations().len(), 1);
        let mut shapes = Vec::new();
        for t in [-1.0, 0.0, 0.3, 0.5, 0.75, 1.0, 5.0] {
            scene.pose(t, Some(0), LoopMode::Once).unwrap();
            let what = format!("skin {skin} morph {morph} t {t}");
            three_methods_agree(&scene, &what);
            shapes.push(world_vertex(&scene, 9));
        }
        // times clamp: before the first key as at it, after the last as at it
        assert_eq!(shapes[0], shapes[1], "skin {skin} morph {morph}");
        assert_eq!(shapes[5], shapes[6]);
        assert_ne!(shapes[1], shapes[5], "the pose changes over the second");
    }
}

#[test]
fn posed_vertices_are_where_the_formulas_put_them() {
    let mut scene = load(&strip_doc(true, true));
    scene.pose(1.0, Some(0), LoopMode::Once).unwrap();
    // top right vertex (0.5, 4, 0): morphed to z = 0.5, then turned 90°
    // about z around the knee at (0, 2): (0.5, 2) from the knee → (-2, 0.5)
    let top = world_vertex(&scene, 9);
    assert!(top.abs_diff_eq(Vec3::new(-2.0, 2.5, 0.5), 1e-5), "{top}");
    // halfway (y = 2, weight 0.5 each): the average of staying and turning
    let mid = world_vertex(&scene, 5);
    let turned = Vec3::new(0.0, 2.5, 0.5);
    let expect = (Vec3::new(0.5, 2.0, 0.5) + turned) * 0.5;
    assert!(mid.abs_diff_eq(expect, 1e-5), "{mid}");
    // the skinned mesh's own node translation (0.3) is ignored, as glTF says
    let foot = world_vertex(&scene, 0);
    assert!(foot.abs_diff_eq(Vec3::new(-0.5, 0.0, 0.5), 1e-5), "{foot}");
    // t = 0.5: a 45° turn and half the morph
    scene.pose(0.5, Some(0), LoopMode::Once).unwrap();
    let top = world_vertex(&scene, 9);
    let r = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4) * Vec3::new(0.5, 2.0, 0.0);
    assert!(
        top.abs_diff_eq(Vec3::new(r.x, 2.0 + r.y, 0.25), 1e-5),
        "{top}"
    );
}

#[test]
fn moving_a_node_costs_no_bvh_work_and_deforming_refits() {
    let mut scene = load(&strip_doc(true, false));
    scene.build_bvhs();
    let before: *const softpick::internals::Bvh = softpick::internals::mesh_bvh(&scene.meshes()[0]);
    let node = scene.instances()[0].node;
    scene.translate(node, Vec3::new(0.0, 0.5, 0.0));
    assert!(
        std::ptr::eq(before, softpick::internals::mesh_bvh(&scene.meshes()[0])),
        "the same BVH, untouched"
    );
    let stats = scene.pose(0.4, Some(0), LoopMode::Once).unwrap();
    assert_eq!((stats.deformed, stats.refitted, stats.rebuilt), (1, 1, 0));
    // the refit BVH answers every pixel's ray as a fresh build does
    let fresh = scene.clone_without_bvhs();
    fresh.build_bvhs();
    let cam = camera();
    let (f1, f2) = (
        render(&scene, &cam, RenderOptions::default()).unwrap(),
        render(&fresh, &cam, RenderOptions::default()).unwrap(),
    );
    let mut hits = 0;
    for y in 0..120 {
        for x in 0..120 {
            let a = f1
                .picks(&scene)
                .unwrap()
                .with(softpick::PickMethod::Ray)
                .at(x, y)
                .map(|h| (h.global_triangle, h.distance.to_bits()));
            let b = f2
                .picks(&fresh)
                .unwrap()
                .with(softpick::PickMethod::Ray)
                .at(x, y)
                .map(|h| (h.global_triangle, h.distance.to_bits()));
            assert_eq!(a, b, "({x},{y})");
            hits += a.is_some() as usize;
        }
    }
    assert!(hits > 300, "{hits}");
}

#[test]
fn set_positions_refits_and_refuses_a_wrong_count() {
    let mut scene = load(&strip_doc(false, false));
    scene.build_bvhs();
    let moved: Vec<Vec3> = scene.meshes()[0]
        .positions()
        .iter()
        .map(|p| *p + Vec3::new(0.0, 0.0, p.y * 0.1))
        .collect();
    let stats = scene.set_positions(0, moved.clone()).unwrap();
    assert_eq!((stats.deformed, stats.refitted), (1, 1));
    assert_eq!(scene.meshes()[0].positions(), &moved[..]);
    three_methods_agree(&scene, "set_positions");
    assert!(scene.set_positions(0, moved[..3].to_vec()).is_err());
    assert!(scene.set_positions(9, moved).is_err());
}
