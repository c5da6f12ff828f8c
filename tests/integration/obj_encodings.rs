//! OBJ files as real tools write them: a UTF-8 byte-order mark, CRLF or
//! lone-CR line ends, names in Latin-1, UTF-16 with a byte-order mark. Each
//! loads the same scene as the plain UTF-8 file; binary data still fails.

use std::path::Path;

use softpick::internals::load_obj_bytes;
use softpick::{ModelErrorKind, Scene};

/// A two-mesh file with a material per mesh; `{mat}` is the second
/// material's name.
fn obj_text(mat: &str) -> String {
    format!(
        "# exported\nmtllib scene.mtl\no floor\nusemtl stone\nv -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\nf 1 2 3 4\n\
         o {mat}_box\nusemtl {mat}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 5 6 7\n"
    )
}

fn mtl_text(mat: &str) -> String {
    format!("newmtl stone\nKd 0.5 0.5 0.5\nnewmtl {mat}\nKd 1 0 0\n")
}

/// Loads `obj` with `mtl` as its only material library.
fn load(obj: &[u8], mtl: &[u8]) -> Result<Scene, softpick::Error> {
    let mtl = mtl.to_vec();
    let (scene, report) = load_obj_bytes(Path::new("scene.obj"), obj, move |p| {
        assert_eq!(p, Path::new("scene.mtl"));
        // the loader's own path for .mtl bytes goes through the same decoding
        // when it reads files; here the test hands tobj plain UTF-8 text
        tobj::load_mtl_buf(&mut mtl.as_slice())
    })?;
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    Ok(scene)
}

fn assert_same_geometry(a: &Scene, b: &Scene) {
    assert_eq!(a.meshes().len(), b.meshes().len());
    for (ma, mb) in a.meshes().iter().zip(b.meshes()) {
        assert_eq!(ma.positions(), mb.positions());
        assert_eq!(ma.triangles(), mb.triangles());
        assert_eq!(ma.color(), mb.color(), "{}", ma.name());
    }
    assert_eq!(a.framing_bounds(), b.framing_bounds());
}

fn utf16(text: &str, little: bool) -> Vec<u8> {
    let bom: [u8; 2] = if little { [0xFF, 0xFE] } else { [0xFE, 0xFF] };
    bom.into_iter()
        .chain(text.encode_utf16().flat_map(move |u| {
            if little {
                u.to_le_bytes()
            } else {
                u.to_be_bytes()
            }
        }))
        .collect()
}

#[test]
fn a_bom_and_crlf_or_lone_cr_line_ends_load_the_same_scene() {
    let plain = obj_text("red");
    let mtl = mtl_text("red");
    let want = load(plain.as_bytes(), mtl.as_bytes()).unwrap();
    assert_eq!(want.meshes()[1].color(), [255, 0, 0]);
    let crlf = format!("\u{feff}{}", plain.replace('\n', "\r\n"));
    assert_same_geometry(&load(crlf.as_bytes(), mtl.as_bytes()).unwrap(), &want);
    let cr = plain.replace('\n', "\r");
    assert_same_geometry(&load(cr.as_bytes(), mtl.as_bytes()).unwrap(), &want);
    // UTF-16 in both byte orders, with CRLF
    for little in [true, false] {
        let bytes = utf16(&plain.replace('\n', "\r\n"), little);
        assert_same_geometry(&load(&bytes, mtl.as_bytes()).unwrap(), &want);
    }
}

#[test]
fn a_latin1_material_name_loads_its_geometry_and_keeps_its_name_lossily() {
    let want = load(obj_text("red").as_bytes(), mtl_text("red").as_bytes()).unwrap();
    // `usemtl Terraindæk` in Latin-1: æ is the single byte 0xE6
    let latin1 = |s: &str| -> Vec<u8> {
        s.chars()
            .map(|c| u8::try_from(u32::from(c)).expect("Latin-1"))
            .collect()
    };
    let obj = latin1(&obj_text("Terraindæk"));
    // the library, read as the loader reads files, decodes the same way, so
    // the names still match (both carry U+FFFD where æ was)
    let mtl = mtl_text("Terraind\u{FFFD}k");
    let got = load(&obj, mtl.as_bytes()).unwrap();
    assert_same_geometry(&got, &want);
    assert_eq!(got.meshes()[1].name(), "Terraind\u{FFFD}k_box");
}

#[test]
fn a_latin1_material_library_file_matches_its_latin1_usemtl() {
    // through the file system, as `load_obj` reads the .mtl beside the .obj
    let dir = std::env::temp_dir().join(format!("softpick-encodings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let latin1 = |s: &str| -> Vec<u8> { s.chars().map(|c| c as u32 as u8).collect() };
    let obj = dir.join("scene.obj");
    std::fs::write(&obj, latin1(&obj_text("Terraindæk"))).unwrap();
    std::fs::write(dir.join("scene.mtl"), latin1(&mtl_text("Terraindæk"))).unwrap();
    let result = softpick::internals::load_obj(&obj);
    std::fs::remove_dir_all(&dir).unwrap();
    let (scene, report) = result.unwrap();
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(scene.meshes()[1].color(), [255, 0, 0]);
}

#[test]
fn bytes_that_are_not_text_outside_names_still_fail_with_their_line() {
    let mtl = mtl_text("red");
    let mut obj = obj_text("red").into_bytes();
    // a vertex with a byte that is not UTF-8, after CRLF lines
    let bad = b"v 1 \xff 0\r\n";
    let at = obj.len();
    obj.extend_from_slice(bad);
    let lines_before = obj[..at].iter().filter(|&&b| b == b'\n').count();
    let err = load(&obj, mtl.as_bytes()).unwrap_err();
    assert_eq!(
        err.model_kind(),
        Some(&ModelErrorKind::Binary(Some(lines_before + 1))),
        "{err}"
    );
    assert!(err.to_string().contains("scene.obj"), "{err}");
}
