//! glTF scenes: instances sharing one BVH, hits that name the instance,
//! primitive modes, quantized positions, GPU instancing, scenes, cameras,
//! and the three pick methods agreeing on them. Every file is generated
//! here (GLB with a BIN chunk, or .gltf with a .bin or a data URI); the
//! malformed and hostile ones are in `gltf_errors.rs`.
#![cfg(feature = "gltf")]

use std::path::Path;

use glam::{Mat4, Quat, Vec3};
use serde_json::{json, Value};
use softpick::internals::{load_gltf, load_gltf_bytes, load_gltf_with};
use softpick::{
    load_model, render, Camera, FileProjection, LoadOptions, Projection, RenderOptions, Scene,
};

use crate::support::TempDir;

// ---------------------------------------------------------------- the writer

/// A glTF document being written: one buffer, its views and accessors.
#[derive(Default)]
pub(crate) struct Doc {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl Doc {
    /// Adds `bytes` as a buffer view and an accessor over it; its index.
    pub fn accessor(
        &mut self,
        bytes: &[u8],
        component: u32,
        count: usize,
        ty: &str,
        normalized: bool,
    ) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views
            .push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
        self.bin.extend_from_slice(bytes);
        let mut a = json!({"bufferView": self.views.len() - 1, "componentType": component, "count": count, "type": ty});
        if normalized {
            a["normalized"] = json!(true);
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    /// Float VEC3 positions (with the min/max glTF requires).
    pub fn positions(&mut self, p: &[[f32; 3]]) -> usize {
        let bytes: Vec<u8> = p.iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
        let i = self.accessor(&bytes, 5126, p.len(), "VEC3", false);
        let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
        for v in p {
            for k in 0..3 {
                lo[k] = lo[k].min(v[k]);
                hi[k] = hi[k].max(v[k]);
            }
        }
        self.accessors[i]["min"] = json!(lo);
        self.accessors[i]["max"] = json!(hi);
        i
    }

    /// Unsigned int indices.
    pub fn indices(&mut self, idx: &[u32]) -> usize {
        let bytes: Vec<u8> = idx.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.accessor(&bytes, 5125, idx.len(), "SCALAR", false)
    }

    /// The document `root` (scenes, nodes, meshes, …) with this buffer,
    /// views and accessors, as JSON text; the buffer's `uri` is `uri`
    /// (`None`: the GLB BIN chunk).
    pub fn json(&self, mut root: Value, uri: Option<&str>) -> String {
        root["asset"] = json!({"version": "2.0"});
        let mut buffer = json!({"byteLength": self.bin.len()});
        if let Some(u) = uri {
            buffer["uri"] = json!(u);
        }
        root["buffers"] = json!([buffer]);
        root["bufferViews"] = json!(self.views);
        root["accessors"] = json!(self.accessors);
        root.to_string()
    }

    /// A GLB file of `root` with this buffer as its BIN chunk.
    pub fn glb(&self, root: Value) -> Vec<u8> {
        let mut json = self.json(root, None).into_bytes();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        let mut bin = self.bin.clone();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let total = 12 + 8 + json.len() + 8 + bin.len();
        let mut out = b"glTF".to_vec();
        out.extend(2u32.to_le_bytes());
        out.extend((total as u32).to_le_bytes());
        out.extend((json.len() as u32).to_le_bytes());
        out.extend(0x4E4F_534Au32.to_le_bytes());
        out.extend(json);
        out.extend((bin.len() as u32).to_le_bytes());
        out.extend(0x004E_4942u32.to_le_bytes());
        out.extend(bin);
        out
    }
}

/// A unit quad in the xy plane (two triangles), as positions and indices.
pub(crate) fn quad() -> (Vec<[f32; 3]>, Vec<u32>) {
    (
        vec![
            [-0.5, -0.5, 0.0],
            [0.5, -0.5, 0.0],
            [0.5, 0.5, 0.0],
            [-0.5, 0.5, 0.0],
        ],
        vec![0, 1, 2, 0, 2, 3],
    )
}

/// A document with one two-primitive mesh (a quad and a triangle above
/// it) placed by three nodes: a TRS node, a matrix node and a child of the
/// first. The root `scene` holds nodes 0 and 1.
fn instanced_doc() -> (Doc, Value) {
    let mut d = Doc::default();
    let (p, i) = quad();
    let pa = d.positions(&p);
    let ia = d.indices(&i);
    let tri = d.positions(&[[-0.4, 0.6, 0.1], [0.4, 0.6, 0.1], [0.0, 1.2, 0.1]]);
    let m = Mat4::from_scale_rotation_translation(
        Vec3::splat(0.8),
        Quat::from_rotation_z(0.3),
        Vec3::new(1.6, 0.0, -0.5),
    );
    let root = json!({
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "left", "mesh": 0, "translation": [-1.4, 0.0, 0.0], "children": [2]},
            {"name": "right", "mesh": 0, "matrix": m.to_cols_array()},
            {"name": "up", "mesh": 0, "translation": [0.0, 1.5, 0.0], "rotation": [0.0, 0.0, 0.0998, 0.995], "scale": [0.5, 0.5, 0.5]}
        ],
        "meshes": [{"name": "tile", "primitives": [
            {"attributes": {"POSITION": pa}, "indices": ia, "material": 0},
            {"attributes": {"POSITION": tri}}
        ]}],
        "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.0, 0.0, 1.0]}}]
    });
    (d, root)
}

fn camera(scene: &Scene) -> Camera {
    Camera::auto_frame(&scene.framing_bounds(), 160, 120)
}

// ---------------------------------------------------------------- tests

#[test]
fn a_mesh_used_by_three_nodes_is_three_instances_sharing_one_bvh() {
    let (d, root) = instanced_doc();
    let (scene, report) =
        load_gltf_bytes(Path::new("inst.glb"), &d.glb(root), &LoadOptions::default()).unwrap();
    assert_eq!(report.instances, 3);
    assert_eq!(scene.instances().len(), 3);
    // two primitives per instance
    assert_eq!(scene.meshes().len(), 6);
    assert_eq!(report.triangles, 9);
    let names: Vec<&str> = scene.instances().iter().map(|i| &*i.name).collect();
    assert_eq!(
        names,
        ["left", "up", "right"],
        "depth-first, children in file order"
    );
    let m = scene.meshes();
    for k in [2, 4] {
        assert!(m[0].shares_geometry(&m[k]) && m[1].shares_geometry(&m[k + 1]));
        assert!(
            std::ptr::eq(
                softpick::internals::mesh_bvh(&m[0]),
                softpick::internals::mesh_bvh(&m[k])
            ),
            "one BVH for every instance"
        );
    }
    assert!(!m[0].shares_geometry(&m[1]));
    // the material's red, in sRGB bytes; no material: a palette color
    assert_eq!(m[0].color(), [255, 0, 0]);
    assert_ne!(m[1].color(), [255, 0, 0]);
    // the matrix node is placed where its matrix says
    let right = scene.mesh_origin(4).unwrap();
    let w = scene.world_matrix(right.node);
    let expect = Mat4::from_scale_rotation_translation(
        Vec3::splat(0.8),
        Quat::from_rotation_z(0.3),
        Vec3::new(1.6, 0.0, -0.5),
    );
    assert!(w.abs_diff_eq(expect, 1e-5), "{w:?}");
}

#[test]
fn hits_name_instance_node_primitive_and_global_id_on_every_method() {
    let (d, root) = instanced_doc();
    let (scene, _) =
        load_gltf_bytes(Path::new("inst.glb"), &d.glb(root), &LoadOptions::default()).unwrap();
    let cam = camera(&scene);
    let frame = render(&scene, &cam, RenderOptions::default()).unwrap();
    let picks = frame.picks(&scene).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    for y in 0..cam.height as i64 {
        for x in 0..cam.width as i64 {
            let b = picks.at(x, y);
            let d = picks.with(softpick::PickMethod::Direct).at(x, y);
            assert_eq!(
                b.as_ref().map(|h| h.global_triangle),
                d.as_ref().map(|h| h.global_triangle),
                "({x},{y})"
            );
            let Some(h) = b else { continue };
            let o = scene.mesh_origin(h.mesh).unwrap();
            assert_eq!(h.origin, o);
            assert_eq!(&*h.node_name, &*scene.instances()[o.instance as usize].name);
            assert_eq!(o.source_mesh, 0);
            assert_eq!(o.primitive, h.mesh % 2, "primitives alternate per instance");
            // the flat numbering: the mesh's first global id plus the triangle in its primitive
            assert_eq!(
                h.global_triangle,
                scene.triangle_offsets()[h.mesh as usize] + h.triangle
            );
            seen.insert((o.instance, o.primitive));
        }
    }
    assert_eq!(
        seen.len(),
        6,
        "every primitive of every instance is on screen: {seen:?}"
    );
    let (agree, covered) = crate::rays::agreement(&scene, &frame);
    assert!(
        covered > 1000 && agree * 100 >= covered * 97,
        "{agree}/{covered}"
    );
}

#[test]
fn strips_fans_and_lists_draw_the_same_square_and_points_and_lines_are_skipped() {
    let p: Vec<[f32; 3]> = vec![
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
    ];
    // (mode, indices): the same square as a list, a strip and a fan
    let cases: [(u32, Option<Vec<u32>>); 4] = [
        (4, Some(vec![0, 1, 2, 2, 1, 3])),
        (5, Some(vec![0, 1, 2, 3])),
        (6, Some(vec![0, 1, 3, 2])),
        (5, None),
    ];
    let mut ids = Vec::new();
    for (mode, idx) in cases {
        let mut d = Doc::default();
        let pa = d.positions(&p);
        let mut prim = json!({"attributes": {"POSITION": pa}, "mode": mode});
        if let Some(idx) = &idx {
            prim["indices"] = json!(d.indices(idx));
        }
        let lines = json!({"attributes": {"POSITION": pa}, "mode": 1});
        let root = json!({"scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}], "meshes": [{"primitives": [lines, prim]}]});
        let (scene, report) =
            load_gltf_bytes(Path::new("m.glb"), &d.glb(root), &LoadOptions::default()).unwrap();
        assert_eq!(
            (report.triangles, report.skipped_primitives),
            (2, 1),
            "mode {mode}"
        );
        assert_eq!(scene.mesh_origin(0).unwrap().primitive, 1);
        // front faces only: a wrong winding would cull a triangle
        let cam = Camera::auto_frame(&scene.framing_bounds(), 64, 64);
        let opts = RenderOptions {
            cull: softpick::CullMode::Back,
            ..RenderOptions::default()
        };
        let f = render(&scene, &cam, opts).unwrap();
        ids.push(f.ids().iter().map(|&i| i != 0).collect::<Vec<_>>());
    }
    assert!(ids[0].iter().filter(|&&c| c).count() > 1000);
    for k in 1..ids.len() {
        assert_eq!(ids[k], ids[0], "case {k} covers what the list covers");
    }
}

/// Quantized positions (KHR_mesh_quantization): normalized shorts scaled
/// back up by the node, and plain unsigned bytes, draw what floats draw.
#[test]
fn quantized_positions_draw_what_float_positions_draw() {
    let (p, i) = quad();
    let float = {
        let mut d = Doc::default();
        let pa = d.positions(&p);
        let ia = d.indices(&i);
        let root = json!({"scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0, "scale": [4.0, 4.0, 4.0]}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}]});
        d.glb(root)
    };
    // positions × 2 as normalized i16 (−0.5 → −16383.5 rounds; use exact halves: ±0.5 = ±16383.5/32767)
    let shorts = {
        let mut d = Doc::default();
        let q: Vec<u8> = p
            .iter()
            .flat_map(|v| v.iter().map(|c| (c * 2.0 * 32767.0) as i16).chain([0i16]))
            .flat_map(i16::to_le_bytes)
            .collect();
        // VEC3 of i16 with 2 bytes of padding per element: byteStride 8
        let pa = d.accessor(&q, 5122, p.len(), "VEC3", true);
        d.views[0]["byteStride"] = json!(8);
        d.accessors[pa]["min"] = json!([-1.0, -1.0, 0.0]);
        d.accessors[pa]["max"] = json!([1.0, 1.0, 0.0]);
        let ia = d.indices(&i);
        let root = json!({"extensionsUsed": ["KHR_mesh_quantization"], "extensionsRequired": ["KHR_mesh_quantization"],
            "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0, "scale": [2.0, 2.0, 2.0]}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}]});
        d.glb(root)
    };
    let bytes = {
        let mut d = Doc::default();
        // (x + 0.5) as u8 in 0..=1, then the node scales by 4 and shifts back by −2
        let q: Vec<u8> = p
            .iter()
            .flat_map(|v| [(v[0] + 0.5) as u8, (v[1] + 0.5) as u8, 0, 0])
            .collect();
        let pa = d.accessor(&q, 5121, p.len(), "VEC3", false);
        d.views[0]["byteStride"] = json!(4);
        d.accessors[pa]["min"] = json!([0, 0, 0]);
        d.accessors[pa]["max"] = json!([1, 1, 0]);
        let ia = d.indices(&i);
        let root = json!({"extensionsRequired": ["KHR_mesh_quantization"], "extensionsUsed": ["KHR_mesh_quantization"],
            "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0, "scale": [4.0, 4.0, 4.0], "translation": [-2.0, -2.0, 0.0]}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}]});
        d.glb(root)
    };
    let cam = Camera {
        width: 96,
        height: 96,
        ..crate::support::cam(96, 96)
    };
    let draw = |glb: &[u8]| {
        let (s, _) = load_gltf_bytes(Path::new("q.glb"), glb, &LoadOptions::default()).unwrap();
        render(&s, &cam, RenderOptions::default())
            .unwrap()
            .ids()
            .to_vec()
    };
    let reference = draw(&float);
    assert!(reference.iter().filter(|&&i| i != 0).count() > 2000);
    assert_eq!(draw(&shorts), reference);
    assert_eq!(draw(&bytes), reference);
}

#[test]
fn gpu_instancing_rows_are_instances_on_child_nodes() {
    let mut d = Doc::default();
    let (p, i) = quad();
    let pa = d.positions(&p);
    let ia = d.indices(&i);
    let t: Vec<u8> = [[-2.0f32, 0.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let ta = d.accessor(&t, 5126, 3, "VEC3", false);
    let root = json!({"extensionsUsed": ["EXT_mesh_gpu_instancing"], "extensionsRequired": ["EXT_mesh_gpu_instancing"],
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "row", "mesh": 0, "extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": ta}}}}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}]});
    let (scene, report) =
        load_gltf_bytes(Path::new("g.glb"), &d.glb(root), &LoadOptions::default()).unwrap();
    assert_eq!(report.instances, 3);
    let names: Vec<&str> = scene.instances().iter().map(|i| &*i.name).collect();
    assert_eq!(names, ["row#0", "row#1", "row#2"]);
    for (k, inst) in scene.instances().iter().enumerate() {
        let at = scene.world_matrix(inst.node).transform_point3(Vec3::ZERO);
        assert_eq!(at, Vec3::new(-2.0 + 2.0 * k as f32, 0.0, 0.0));
    }
    assert!(scene.meshes()[0].shares_geometry(&scene.meshes()[2]));
}

#[test]
fn scenes_are_chosen_by_default_index_or_name_and_files_load_from_disk() {
    let mut d = Doc::default();
    let (p, i) = quad();
    let pa = d.positions(&p);
    let ia = d.indices(&i);
    let root = json!({"scene": 1, "scenes": [{"name": "one", "nodes": [0]}, {"name": "both", "nodes": [0, 1]}],
        "nodes": [{"name": "a", "mesh": 0}, {"name": "b", "mesh": 0, "translation": [2.0, 0.0, 0.0]}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}]});
    let dir = TempDir::new("gltf-scenes");
    dir.write("s.bin", &d.bin);
    let path = dir.write("s.gltf", d.json(root, Some("s.bin")));
    let count = |opts: LoadOptions| load_gltf_with(&path, &opts).unwrap().1.instances;
    assert_eq!(
        load_gltf(&path).unwrap().1.instances,
        2,
        "the default scene"
    );
    assert_eq!(
        count(LoadOptions {
            scene: Some("0".into())
        }),
        1
    );
    assert_eq!(
        count(LoadOptions {
            scene: Some("one".into())
        }),
        1
    );
    assert_eq!(
        count(LoadOptions {
            scene: Some("both".into())
        }),
        2
    );
    let e = load_gltf_with(
        &path,
        &LoadOptions {
            scene: Some("7".into()),
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("s.gltf") && e.contains("no scene `7`") && e.contains("1 (both)"),
        "{e}"
    );
    // load_model chooses glTF by the extension, and by the content without one
    assert_eq!(load_model(&path).unwrap().0.triangle_count(), 4);
    let bare = dir.write(
        "noext",
        d.json(
            json!({"scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}]}),
            Some("s.bin"),
        ),
    );
    assert_eq!(load_model(&bare).unwrap().0.triangle_count(), 2);
    let glb = dir.write(
        "g.bin3d",
        d.glb(json!({"scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}]})),
    );
    assert_eq!(load_model(&glb).unwrap().0.triangle_count(), 2);
}

#[test]
fn file_cameras_keep_fov_aspect_and_planes_and_an_infinite_far_sees_everything() {
    let mut d = Doc::default();
    let (p, i) = quad();
    let pa = d.positions(&p);
    let ia = d.indices(&i);
    let root = json!({"scenes": [{"nodes": [0, 1, 2, 3]}],
        "nodes": [
            {"mesh": 0, "scale": [10.0, 10.0, 1.0]},
            {"name": "eye", "camera": 0, "translation": [0.0, 0.0, 30.0]},
            {"camera": 1, "translation": [0.0, 0.0, 30.0]},
            {"camera": 2, "translation": [0.0, 0.0, 500.0]}
        ],
        "cameras": [
            {"name": "wide", "type": "perspective", "perspective": {"yfov": 0.8, "aspectRatio": 2.0, "znear": 0.5, "zfar": 100.0}},
            {"name": "flat", "type": "orthographic", "orthographic": {"xmag": 6.0, "ymag": 3.0, "znear": 0.0, "zfar": 100.0}},
            {"name": "far", "type": "perspective", "perspective": {"yfov": 0.1, "znear": 0.5}}
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}]});
    let (scene, report) =
        load_gltf_bytes(Path::new("c.glb"), &d.glb(root), &LoadOptions::default()).unwrap();
    assert_eq!(report.cameras.len(), 3);
    let bounds = scene.framing_bounds();
    let pick = |key: &str| {
        let c = softpick::FileCamera::find(&report.cameras, key, |n| {
            scene.nodes().get(n as usize).map(|n| n.name.clone())
        })
        .unwrap();
        c.camera(scene.world_matrix(c.node), 100, None, &bounds)
            .unwrap()
    };
    let wide = pick("wide");
    assert_eq!(
        (wide.width, wide.height),
        (200, 100),
        "the aspect ratio sets the width"
    );
    assert_eq!(
        wide.projection,
        Projection::Perspective {
            fov_y_deg: 0.8f32.to_degrees()
        }
    );
    assert_eq!((wide.near, wide.far), (0.5, 100.0));
    assert_eq!(wide.eye, Vec3::new(0.0, 0.0, 30.0));
    assert_eq!(pick("0"), wide, "by index");
    assert_eq!(pick("eye"), wide, "by node name");
    let flat = pick("flat");
    assert_eq!((flat.width, flat.height), (200, 100));
    assert_eq!(flat.projection, Projection::Orthographic { height: 6.0 });
    // the orthographic view of the 10 × 10 quad: 6 units tall, so the
    // quad fills every row and 10/12 of the columns
    let f = render(&scene, &flat, RenderOptions::default()).unwrap();
    let covered = f.ids().iter().filter(|&&i| i != 0).count();
    assert_eq!(covered, 100 * 166, "{covered}");
    // no zfar: the quad 500 units away is drawn (a finite far short of it would clip it)
    let far = pick("far");
    assert!(matches!(
        report.cameras[2].projection,
        FileProjection::Perspective { zfar: None, .. }
    ));
    assert!(far.far > 500.0);
    let f = render(&scene, &far, RenderOptions::default()).unwrap();
    // 10 of the 2 · 500 · tan(0.05) ≈ 50 units in view: about 20 × 20 pixels
    let covered = f.ids().iter().filter(|&&i| i != 0).count();
    assert!((300..=500).contains(&covered), "{covered}");
}
