//! Malformed and hostile glTF files: each is an error that names the file
//! and the place in it, never a panic, a hang or an allocation sized by an
//! untrusted count. The files are written by `gltf.rs`'s writer.
#![cfg(feature = "gltf")]

use std::path::Path;

use serde_json::{json, Value};
use softpick::internals::{load_gltf, load_gltf_bytes};
use softpick::{load_model, LoadOptions, ModelErrorKind};

use crate::gltf::{quad, Doc};
use crate::support::TempDir;

/// A quad document whose primitive, accessors or root `edit` changes.
fn quad_doc(edit: impl FnOnce(&mut Doc, &mut Value)) -> (Doc, Value) {
    let mut d = Doc::default();
    let (p, i) = quad();
    let pa = d.positions(&p);
    let ia = d.indices(&i);
    let mut root = json!({"scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pa}, "indices": ia}]}]});
    edit(&mut d, &mut root);
    (d, root)
}

/// The error message of loading `root` over `d` as a GLB named `bad.glb`.
fn glb_error(d: &Doc, root: Value) -> String {
    let e =
        load_gltf_bytes(Path::new("bad.glb"), &d.glb(root), &LoadOptions::default()).unwrap_err();
    let msg = e.to_string();
    assert!(msg.starts_with("bad.glb: "), "{msg}");
    assert!(!msg.contains('\n'), "one line: {msg}");
    msg
}

#[test]
fn indices_past_the_vertices_name_the_primitive() {
    let (mut d, root) = quad_doc(|_, _| {});
    // the last index (4 bytes at the end of the buffer) becomes 99
    let n = d.bin.len();
    d.bin[n - 4..].copy_from_slice(&99u32.to_le_bytes());
    let e = glb_error(&d, root);
    assert!(
        e.contains("meshes[0].primitives[0].indices")
            && e.contains("99")
            && e.contains("4 vertices"),
        "{e}"
    );
}

#[test]
fn accessors_past_their_view_and_views_past_their_buffer_are_refused() {
    let (d, root) = quad_doc(|d, _| d.accessors[0]["count"] = json!(5));
    let e = glb_error(&d, root);
    assert!(
        e.contains("meshes[0].primitives[0].attributes.POSITION")
            && e.contains("run past the end of bufferViews[0]"),
        "{e}"
    );
    let (d, root) = quad_doc(|d, _| d.accessors[1]["byteOffset"] = json!(20));
    let e = glb_error(&d, root);
    assert!(e.contains("meshes[0].primitives[0].indices"), "{e}");
    let (d, root) = quad_doc(|d, _| d.views[1]["byteLength"] = json!(4000));
    let e = glb_error(&d, root);
    assert!(
        e.contains("bufferViews[1]") && e.contains("run past the end of buffers[0]"),
        "{e}"
    );
}

#[test]
fn absurd_counts_are_refused_before_allocating() {
    // a count of 2^40 elements over 48 bytes, and an accessor with no view
    let (d, root) = quad_doc(|d, _| d.accessors[0]["count"] = json!(1u64 << 40));
    let e = glb_error(&d, root);
    assert!(
        e.contains("POSITION") && (e.contains("limit") || e.contains("past the end")),
        "{e}"
    );
    let (d, root) = quad_doc(|d, _| {
        // sparse, without a view of its own: zeros, then one substituted value
        d.accessors[0] = json!({"componentType": 5126, "count": 4_000_000_000u64, "type": "VEC3",
            "min": [0, 0, 0], "max": [1, 1, 1],
            "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5125}, "values": {"bufferView": 0}}});
    });
    let e = glb_error(&d, root);
    assert!(e.contains("POSITION") && e.contains("limit"), "{e}");
}

#[test]
fn wrong_json_types_and_references_name_the_place() {
    let (d, mut root) = quad_doc(|_, _| {});
    root["nodes"][0]["mesh"] = json!("zero");
    let e = glb_error(&d, root);
    assert!(
        e.contains("malformed glTF") && e.contains("line 1 column"),
        "{e}"
    );
    let (d, mut root) = quad_doc(|_, _| {});
    root["meshes"][0]["primitives"][0]["indices"] = json!(7);
    let e = glb_error(&d, root);
    assert!(
        e.contains("meshes[0].primitives[0].indices") && e.contains("does not exist"),
        "{e}"
    );
    // (an attribute's accessor out of range: the glTF crate's own
    // validation would index past its list; found by the fuzz target)
    for attr in ["POSITION", "NORMAL"] {
        let (d, mut root) = quad_doc(|_, _| {});
        root["meshes"][0]["primitives"][0]["attributes"][attr] = json!(5);
        let e = glb_error(&d, root);
        let at = format!("meshes[0].primitives[0].attributes.{attr}");
        assert!(e.contains(&at) && e.contains("accessor 5"), "{e}");
    }
    let (d, mut root) = quad_doc(|_, _| {});
    root["meshes"][0]["primitives"][0]["targets"] = json!([{"POSITION": 9}]);
    let e = glb_error(&d, root);
    assert!(
        e.contains("meshes[0].primitives[0].targets[0].POSITION"),
        "{e}"
    );
    let (d, mut root) = quad_doc(|_, _| {});
    root["nodes"][0]["children"] = json!([0]);
    let e = glb_error(&d, root);
    assert!(e.contains("nodes[0]") && e.contains("reached twice"), "{e}");
}

#[test]
fn compression_extensions_are_refused_by_name() {
    for ext in [
        "KHR_draco_mesh_compression",
        "EXT_meshopt_compression",
        "VENDOR_unknown",
    ] {
        let (d, mut root) = quad_doc(|_, _| {});
        root["extensionsUsed"] = json!([ext]);
        root["extensionsRequired"] = json!([ext]);
        let e = glb_error(&d, root);
        assert!(
            e.contains(&format!("`{ext}`")) && e.contains("extensionsRequired[0]"),
            "{e}"
        );
    }
    // used but not required: the file loads (its uncompressed data is there)
    let (d, mut root) = quad_doc(|_, _| {});
    root["extensionsUsed"] = json!(["KHR_draco_mesh_compression"]);
    assert!(load_gltf_bytes(Path::new("ok.glb"), &d.glb(root), &LoadOptions::default()).is_ok());
}

#[test]
fn non_finite_positions_drop_their_triangles() {
    // one NaN vertex: its triangle is dropped with a warning, the other stays
    let (mut d, root) = quad_doc(|_, _| {});
    d.bin[12..16].copy_from_slice(&f32::NAN.to_le_bytes()); // vertex 1, x
    let (scene, report) = load_gltf_bytes(
        Path::new("nan.glb"),
        &d.glb(root.clone()),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(
        (report.triangles, report.invalid_triangles),
        (2, 1),
        "vertex 1 is in triangle 0 only"
    );
    assert_eq!(scene.invalid_triangles(), 1);
    assert!(
        report.warnings.iter().any(|w| w.contains("non-finite")),
        "{:?}",
        report.warnings
    );
    // every vertex NaN: nothing usable is an error
    for v in 0..4 {
        d.bin[v * 12..v * 12 + 4].copy_from_slice(&f32::INFINITY.to_le_bytes());
    }
    let e = glb_error(&d, root);
    assert!(e.contains("no usable triangles"), "{e}");
}

#[test]
fn only_lines_and_points_is_an_error_counting_them() {
    let (d, mut root) = quad_doc(|_, _| {});
    root["meshes"][0]["primitives"][0]["mode"] = json!(1);
    root["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .push(json!({"attributes": {"POSITION": 0}, "mode": 0}));
    let e = glb_error(&d, root);
    assert!(
        e.contains("no triangle primitives") && e.contains("2 points or lines"),
        "{e}"
    );
}

#[test]
fn truncated_glb_html_and_missing_bin_files() {
    let (d, root) = quad_doc(|_, _| {});
    let glb = d.glb(root.clone());
    for cut in [4, 11, 20, glb.len() - 1] {
        let e = load_gltf_bytes(Path::new("cut.glb"), &glb[..cut], &LoadOptions::default())
            .unwrap_err();
        assert!(e.to_string().starts_with("cut.glb: "), "{e}");
    }
    let dir = TempDir::new("gltf-bad");
    let html = dir.write(
        "page.glb",
        "<!DOCTYPE html><html><body>Not found</body></html>",
    );
    let e = load_model(&html).unwrap_err().to_string();
    assert!(
        e.contains("page.glb") && e.contains("not a glTF file") && e.contains("<!DOCTYPE"),
        "{e}"
    );
    // binary junk that is neither GLB nor JSON: its first bytes escaped
    let e = load_gltf_bytes(
        Path::new("junk.gltf"),
        b"\x00\x01\xfe\x7fjunk\n{",
        &LoadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("junk.gltf: ") && e.contains(r"it starts with `\x00\x01\xfe\x7fjunk`"),
        "{e}"
    );
    let path = dir.write("lost.gltf", d.json(root.clone(), Some("lost.bin")));
    let e = load_gltf(&path).unwrap_err();
    assert!(
        matches!(e.model_kind(), Some(ModelErrorKind::At(place, _)) if place == "buffers[0].uri"),
        "{e}"
    );
    assert!(e.to_string().contains("`lost.bin` was not found"), "{e}");
    // from memory, an external buffer is not read
    let e = load_gltf_bytes(
        &path,
        d.json(root, Some("lost.bin")).as_bytes(),
        &LoadOptions::default(),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("cannot be read when loading from memory"),
        "{e}"
    );
}
