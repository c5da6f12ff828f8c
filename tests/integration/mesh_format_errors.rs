//! Malformed or hostile STL and PLY files: each gets an error naming the
//! file, on one line, never a panic, a hang or an allocation sized by a
//! count the file cannot back. The files are made by the generators of
//! `mesh_formats.rs`.

use std::time::Instant;

use softpick::internals::load_ply;
use softpick::{ModelErrorKind, ModelFormat};

use crate::mesh_formats::*;
use crate::support::TempDir;

// ---------------------------------------------------------------- bad input

#[test]
fn malformed_stl_files_get_errors_naming_the_file() {
    let dir = TempDir::new("stl-bad");
    let facets = corners(&positions(), &fan(&polygons()));
    let bin = stl_binary(&facets);

    // a huge facet count in a tiny file: refused by size, nothing allocated
    let mut huge = bin[..84 + 50].to_vec();
    huge[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    let (kind, msg) = err_file(&dir, "huge_count.stl", &huge);
    assert!(matches!(kind, ModelErrorKind::Truncated(_)), "{msg}");
    assert!(msg.contains("4294967295 facets"), "{msg}");

    // cut in the middle of a facet
    let (kind, msg) = err_file(&dir, "cut.stl", &bin[..bin.len() - 20]);
    assert!(matches!(kind, ModelErrorKind::Truncated(_)), "{msg}");
    assert!(
        msg.contains(&format!("{} whole facets", facets.len() - 1)),
        "{msg}"
    );

    // a header with 0 facets
    let (kind, _) = err_file(&dir, "zero.stl", stl_binary(&[]));
    assert!(matches!(kind, ModelErrorKind::Empty(_)));

    // shorter than a header, not text
    let (kind, _) = err_file(&dir, "short.stl", [0u8, 1, 2, 3]);
    assert!(matches!(kind, ModelErrorKind::Truncated(_)));

    // empty
    let (kind, _) = err_file(&dir, "empty.stl", b"");
    assert!(matches!(kind, ModelErrorKind::Empty(_)));

    // HTML saved as .stl, and other text
    let html = "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n\
                <body><h1>Not Found</h1><p>The requested URL was not found.</p></body></html>\n";
    let (kind, msg) = err_file(&dir, "page.stl", html);
    assert!(
        matches!(kind, ModelErrorKind::WrongFormat(ModelFormat::Stl, _)),
        "{msg}"
    );
    assert!(msg.contains("HTML"), "{msg}");
    let (kind, _) = err_file(&dir, "notes.stl", "just some notes\n");
    assert!(matches!(kind, ModelErrorKind::WrongFormat(..)));

    // ASCII: a malformed number, with its line
    let ascii = stl_ascii(&facets);
    let bad = ascii.replacen("vertex 1 0 0.4", "vertex 1 0x 0.4", 1);
    assert_ne!(bad, ascii);
    let (kind, msg) = err_file(&dir, "bad_number.stl", &bad);
    assert_eq!(
        kind,
        ModelErrorKind::Parse(
            ModelFormat::Stl,
            Some(5),
            "`0x` in a vertex is not a number".into()
        ),
        "{msg}"
    );
    // a facet with four vertices, a missing `outer loop`, a cut facet
    let four = ascii.replacen("    endloop\n", "      vertex 0 0 0\n    endloop\n", 1);
    let (kind, _) = err_file(&dir, "four.stl", &four);
    assert!(
        matches!(kind, ModelErrorKind::Parse(_, Some(7), _)),
        "{kind:?}"
    );
    let no_loop = ascii.replacen("    outer loop\n", "", 1);
    let (kind, _) = err_file(&dir, "no_loop.stl", &no_loop);
    assert!(
        matches!(kind, ModelErrorKind::Parse(_, Some(3), _)),
        "{kind:?}"
    );
    let cut = &ascii[..ascii.find("endloop").unwrap()];
    let (kind, _) = err_file(&dir, "cut_ascii.stl", cut);
    assert!(matches!(kind, ModelErrorKind::Truncated(_)), "{kind:?}");
    let (kind, _) = err_file(&dir, "no_facets.stl", "solid x\nendsolid x\n");
    assert!(matches!(kind, ModelErrorKind::Empty(_)), "{kind:?}");
    let (kind, _) = err_file(&dir, "blank.stl", "solid x\n\n \n");
    assert!(matches!(kind, ModelErrorKind::Empty(_)), "{kind:?}");
}

#[test]
fn malformed_ply_files_get_errors_naming_the_file() {
    let dir = TempDir::new("ply-bad");
    let pos = positions();
    let faces = polygons();
    let ascii = ply_ascii(&pos, &faces);
    let binary = ply_binary_le(&pos, &faces);
    let nv = pos.len();

    // face indices out of range, ASCII (with the line) and binary, negative
    let oob = ascii.replace("\n3 4 5 8\n", "\n3 4 5 99\n");
    assert_ne!(oob, ascii);
    let (kind, msg) = err_file(&dir, "oob.ply", &oob);
    assert!(
        matches!(kind, ModelErrorKind::IndexOutOfRange(Some(29), _)),
        "{msg}"
    );
    assert!(msg.contains("face 3 refers to vertex 99"), "{msg}");
    let neg = ascii.replace("\n3 4 5 8\n", "\n3 4 -1 8\n");
    let (kind, _) = err_file(&dir, "negative.ply", &neg);
    assert!(matches!(kind, ModelErrorKind::IndexOutOfRange(..)));
    let mut oob_bin = binary.clone();
    let last = oob_bin.len() - 4;
    oob_bin[last..].copy_from_slice(&(nv as i32).to_le_bytes());
    let (kind, msg) = err_file(&dir, "oob_bin.ply", &oob_bin);
    assert!(
        matches!(kind, ModelErrorKind::IndexOutOfRange(None, _)),
        "{msg}"
    );

    // vertex counts far above what the file holds: refused up front, fast
    for count in ["1000000", "4000000000", "18446744073709551615"] {
        let big = ascii.replacen(
            &format!("element vertex {nv}"),
            &format!("element vertex {count}"),
            1,
        );
        let (kind, msg) = err_file(&dir, "many_ascii.ply", &big);
        assert!(
            matches!(
                kind,
                ModelErrorKind::Truncated(_) | ModelErrorKind::TooLarge { .. }
            ),
            "{msg}"
        );
    }
    let big = String::from_utf8_lossy(&binary).replacen(
        &format!("element vertex {nv}"),
        "element vertex 60000000",
        1,
    );
    let mut big_bin = big
        .split("end_header\n")
        .next()
        .unwrap()
        .to_string()
        .into_bytes();
    big_bin.extend_from_slice(b"end_header\n");
    big_bin.extend_from_slice(&binary[binary.len() - 400..]);
    let (kind, msg) = err_file(&dir, "many_bin.ply", &big_bin);
    assert!(matches!(kind, ModelErrorKind::Truncated(_)), "{msg}");
    assert!(msg.contains("60000000 `vertex`"), "{msg}");
    // an element of no properties and a huge count reads nothing
    let hollow = ascii.replacen(
        "element face",
        "element nothing 1000000000000\nelement face",
        1,
    );
    let p = dir.write("hollow.ply", &hollow);
    let t = Instant::now();
    load_ply(&p).unwrap();
    assert!(t.elapsed().as_secs() < 5);
    // a face list far longer than the file
    let long = ascii.replace("\n3 4 5 8\n", "\n4000000000 4 5 8\n");
    let (kind, msg) = err_file(&dir, "long_face.ply", &long);
    assert!(
        matches!(kind, ModelErrorKind::Parse(_, Some(29), _)),
        "{msg}"
    );
    // a binary file cut short
    let (kind, _) = err_file(&dir, "cut.ply", &binary[..binary.len() - 7]);
    assert!(matches!(kind, ModelErrorKind::Truncated(_)));

    // headers without vertices or faces
    let (kind, _) = err_file(
        &dir,
        "no_elements.ply",
        "ply\nformat ascii 1.0\nend_header\n",
    );
    assert!(matches!(kind, ModelErrorKind::Empty(_)));
    let points = ply_header("ascii", 1, XYZ, 0, INDICES)
        .replace("element face 0\n", "")
        .replace(INDICES, "")
        + "0 0 0\n";
    let (kind, msg) = err_file(&dir, "points.ply", &points);
    assert!(matches!(kind, ModelErrorKind::Empty(_)), "{msg}");
    assert!(msg.contains("no `element face`"), "{msg}");
    let (kind, _) = err_file(
        &dir,
        "no_faces.ply",
        ply_header("ascii", 0, XYZ, 0, INDICES),
    );
    assert!(matches!(kind, ModelErrorKind::Empty(_)));
    let (kind, msg) = err_file(&dir, "no_z.ply", ascii.replace("property float z\n", ""));
    assert!(matches!(kind, ModelErrorKind::Parse(..)), "{msg}");
    assert!(msg.contains("`z`"), "{msg}");
    let (kind, msg) = err_file(
        &dir,
        "no_list.ply",
        ascii.replace(INDICES, "property list uchar int corners\n"),
    );
    assert!(msg.contains("vertex_indices"), "{kind:?} {msg}");

    // repeated names, which the crate would silently misread
    let (kind, msg) = err_file(
        &dir,
        "dup_prop.ply",
        ascii.replace("property float z\n", "property float z\nproperty float z\n"),
    );
    assert!(
        matches!(kind, ModelErrorKind::Parse(_, Some(8), _)),
        "{msg}"
    );
    let (kind, _) = err_file(
        &dir,
        "dup_element.ply",
        ascii.replace(
            "element face",
            "element vertex 1\nproperty float x\nelement face",
        ),
    );
    assert!(matches!(kind, ModelErrorKind::Parse(_, Some(8), _)));

    // header trouble: no end_header, a bad line, a bad number in the data
    let (kind, _) = err_file(
        &dir,
        "no_end.ply",
        "ply\nformat ascii 1.0\nelement vertex 3\n",
    );
    assert!(matches!(kind, ModelErrorKind::Parse(..)));
    let (kind, msg) = err_file(
        &dir,
        "bad_header.ply",
        ascii.replace("format ascii 1.0", "format fancy 1.0"),
    );
    assert!(
        matches!(kind, ModelErrorKind::Parse(_, Some(2), _)),
        "{msg}"
    );
    let (kind, msg) = err_file(
        &dir,
        "bad_number.ply",
        ascii.replace("\n2 2 0.5\n", "\n2 2 0.5x\n"),
    );
    assert!(
        matches!(kind, ModelErrorKind::Parse(_, Some(19), _)),
        "{msg}"
    );

    // not PLY at all
    let (kind, _) = err_file(&dir, "empty.ply", b"");
    assert!(matches!(kind, ModelErrorKind::Empty(_)));
    let (kind, msg) = err_file(
        &dir,
        "page.ply",
        "<!doctype html>\n<html><body>moved</body></html>\n",
    );
    assert!(
        matches!(kind, ModelErrorKind::WrongFormat(ModelFormat::Ply, _)),
        "{msg}"
    );
    assert!(msg.contains("HTML"), "{msg}");
    let (kind, _) = err_file(&dir, "binary.ply", stl_binary(&corners(&pos, &fan(&faces))));
    assert!(matches!(kind, ModelErrorKind::WrongFormat(..)));
}
