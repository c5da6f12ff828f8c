//! STL and PLY files (and `load_model`'s choice among OBJ, STL and PLY):
//! each format loads the same geometry as an equivalent OBJ file — the
//! same triangles in the same order, the same framing bounds — and renders
//! the same ID buffer (malformed and hostile files: `mesh_format_errors.rs`,
//! from the generators here). Every input is generated, in a temporary
//! directory (the third-party models of `../shared/models/` are loaded by
//! the `shared_models` test binary, feature `shared-models`).
#![cfg(all(feature = "stl", feature = "ply"))]

use std::path::Path;
use std::time::Instant;

use glam::Vec3;
use softpick::internals::{load_obj, load_ply, load_ply_bytes, load_stl, load_stl_bytes};
use softpick::{
    load_model, load_model_bytes, render, Camera, Error, LoadReport, ModelErrorKind, ModelFormat,
    RenderOptions, Scene,
};

use crate::support::TempDir;

// ---------------------------------------------------------------- the model

/// Positions of the test model: a 3×3 grid of heights, a roof point and a
/// detached pentagon, so quads, a fan and several depths are on screen.
pub(crate) fn positions() -> Vec<[f32; 3]> {
    let mut p = Vec::new();
    for j in 0..3 {
        for i in 0..3 {
            let h = [0.0, 0.4, -0.3, 0.2, 0.9, 0.1, -0.2, 0.3, 0.5][j * 3 + i];
            p.push([i as f32, j as f32, h]);
        }
    }
    p.push([1.0, 1.0, 1.7]); // 9: a roof over the middle
    for k in 0..5 {
        let a = k as f32 * std::f32::consts::TAU / 5.0;
        p.push([2.6 + 0.5 * a.cos(), 0.8 + 0.5 * a.sin(), 1.2]); // 10..15
    }
    p
}

/// Faces (0-based, counter-clockwise): quads, triangles and a pentagon.
pub(crate) fn polygons() -> Vec<Vec<u32>> {
    vec![
        vec![0, 1, 4, 3],
        vec![1, 2, 5, 4],
        vec![3, 4, 7, 6],
        vec![4, 5, 8],
        vec![4, 8, 7],
        vec![0, 9, 2],
        vec![10, 11, 12, 13, 14],
        vec![6, 9, 3],
    ]
}

/// The polygons fan-triangulated as OBJ and PLY loaders do.
pub(crate) fn fan(polys: &[Vec<u32>]) -> Vec<[u32; 3]> {
    polys
        .iter()
        .flat_map(|f| (1..f.len() - 1).map(|k| [f[0], f[k], f[k + 1]]))
        .collect()
}

pub(crate) fn obj_text(pos: &[[f32; 3]], faces: &[Vec<u32>]) -> String {
    let mut s = String::new();
    for p in pos {
        s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for f in faces {
        s += "f";
        for i in f {
            s += &format!(" {}", i + 1);
        }
        s += "\n";
    }
    s
}

pub(crate) fn corners(pos: &[[f32; 3]], tris: &[[u32; 3]]) -> Vec<[[f32; 3]; 3]> {
    tris.iter().map(|t| t.map(|i| pos[i as usize])).collect()
}

pub(crate) fn stl_binary_with(header: &[u8], facets: &[[[f32; 3]; 3]]) -> Vec<u8> {
    let mut b = vec![b' '; 80];
    b[..header.len()].copy_from_slice(header);
    b.extend((facets.len() as u32).to_le_bytes());
    for f in facets {
        for v in [0.0f32, 0.0, 1.0] {
            b.extend(v.to_le_bytes());
        }
        for c in f {
            for v in c {
                b.extend(v.to_le_bytes());
            }
        }
        b.extend([0u8, 0]);
    }
    b
}

pub(crate) fn stl_binary(facets: &[[[f32; 3]; 3]]) -> Vec<u8> {
    stl_binary_with(b"binary STL written by softpick's tests", facets)
}

pub(crate) fn stl_ascii(facets: &[[[f32; 3]; 3]]) -> String {
    let mut s = String::from("solid model\n");
    for f in facets {
        s += "  facet normal 0 0 1\n    outer loop\n";
        for c in f {
            s += &format!("      vertex {} {} {}\n", c[0], c[1], c[2]);
        }
        s += "    endloop\n  endfacet\n";
    }
    s + "endsolid model\n"
}

pub(crate) fn ply_header(
    format: &str,
    nv: usize,
    vertex_props: &str,
    nf: usize,
    face_props: &str,
) -> String {
    format!(
        "ply\nformat {format} 1.0\ncomment written by softpick's tests\nelement vertex {nv}\n\
         {vertex_props}element face {nf}\n{face_props}end_header\n"
    )
}

pub(crate) const XYZ: &str = "property float x\nproperty float y\nproperty float z\n";
pub(crate) const INDICES: &str = "property list uchar int vertex_indices\n";

pub(crate) fn ply_ascii(pos: &[[f32; 3]], faces: &[Vec<u32>]) -> String {
    let mut s = ply_header("ascii", pos.len(), XYZ, faces.len(), INDICES);
    for p in pos {
        s += &format!("{} {} {}\n", p[0], p[1], p[2]);
    }
    for f in faces {
        s += &f.len().to_string();
        for i in f {
            s += &format!(" {i}");
        }
        s += "\n";
    }
    s
}

pub(crate) fn ply_binary_le(pos: &[[f32; 3]], faces: &[Vec<u32>]) -> Vec<u8> {
    let mut b =
        ply_header("binary_little_endian", pos.len(), XYZ, faces.len(), INDICES).into_bytes();
    for p in pos {
        for v in p {
            b.extend(v.to_le_bytes());
        }
    }
    for f in faces {
        b.push(f.len() as u8);
        for &i in f {
            b.extend((i as i32).to_le_bytes());
        }
    }
    b
}

/// Big-endian, double coordinates between other properties, `uint`
/// indices under `ushort` counts, a per-face property and an extra element.
pub(crate) fn ply_binary_be_double(pos: &[[f32; 3]], faces: &[Vec<u32>]) -> Vec<u8> {
    let vprops = "property double x\nproperty uchar flags\nproperty double y\nproperty double z\n\
                  property list uchar float extra\n";
    let fprops = "property uchar kind\nproperty list ushort uint vertex_index\n";
    let mut h = ply_header("binary_big_endian", pos.len(), vprops, faces.len(), fprops);
    h = h.replace(
        "end_header\n",
        "element edge 2\nproperty int vertex1\nproperty int vertex2\nend_header\n",
    );
    let mut b = h.into_bytes();
    for p in pos {
        b.extend(f64::from(p[0]).to_be_bytes());
        b.push(7);
        b.extend(f64::from(p[1]).to_be_bytes());
        b.extend(f64::from(p[2]).to_be_bytes());
        b.push(2);
        b.extend(1.5f32.to_be_bytes());
        b.extend((-2.5f32).to_be_bytes());
    }
    for f in faces {
        b.push(3);
        b.extend((f.len() as u16).to_be_bytes());
        for &i in f {
            b.extend(i.to_be_bytes());
        }
    }
    for e in [[0i32, 1], [1, 2]] {
        for v in e {
            b.extend(v.to_be_bytes());
        }
    }
    b
}

// ---------------------------------------------------------------- helpers

/// Every triangle's corners in global order.
pub(crate) fn triangles(scene: &Scene) -> Vec<[Vec3; 3]> {
    (0..scene.triangle_count())
        .map(|g| {
            let (m, t) = scene.locate(g).unwrap();
            scene.meshes()[m as usize].triangle(t)
        })
        .collect()
}

/// The ID buffer of a 96×96 automatic-camera render.
pub(crate) fn ids(scene: &Scene) -> Vec<u32> {
    let cam = Camera::auto_frame(&scene.framing_bounds(), 96, 96);
    render(scene, &cam, RenderOptions::default())
        .unwrap()
        .ids()
        .to_vec()
}

/// Loads `path` with the given loader and checks that it is the OBJ's
/// model: triangles in order, framing bounds, ID buffer, one mesh named
/// after the stem on a root node of that name.
fn assert_like_obj(obj: &Scene, path: &Path, loaded: (Scene, LoadReport)) {
    let (scene, report) = loaded;
    let name = path.display();
    assert_eq!(triangles(&scene), triangles(obj), "{name}: triangles");
    assert_eq!(
        scene.framing_bounds(),
        obj.framing_bounds(),
        "{name}: framing bounds"
    );
    let stem = path.file_stem().unwrap().to_str().unwrap();
    assert_eq!(scene.meshes().len(), 1, "{name}");
    assert_eq!(scene.meshes()[0].name(), stem, "{name}: mesh name");
    assert_eq!(scene.nodes()[0].name, stem, "{name}: root node name");
    assert_eq!(report.meshes, 1);
    assert_eq!(report.triangles, obj.triangle_count() as usize, "{name}");
    assert_eq!(report.invalid_triangles, 0, "{name}");
    let (a, b) = (ids(&scene), ids(obj));
    assert!(
        b.iter().filter(|&&i| i != 0).count() > 500,
        "the OBJ covers the frame"
    );
    assert_eq!(a, b, "{name}: ID buffer");
}

/// A load that must fail: the message names the file, is one line, and
/// the error is a model error of this kind (when `Some`).
pub(crate) fn expect_err(
    r: Result<(Scene, LoadReport), Error>,
    path: &Path,
) -> (ModelErrorKind, String) {
    let e = match r {
        Ok((_, rep)) => panic!("{} loaded ({rep:?}), expected an error", path.display()),
        Err(e) => e,
    };
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("{}: ", path.display())),
        "message does not start with the file: {msg}"
    );
    assert!(
        !msg.contains('\n'),
        "message is more than one line: {msg:?}"
    );
    let kind = e
        .model_kind()
        .unwrap_or_else(|| panic!("not an STL/PLY error: {e:?}"))
        .clone();
    if let ModelErrorKind::Parse(_, Some(l), _) | ModelErrorKind::IndexOutOfRange(Some(l), _) =
        &kind
    {
        assert!(msg.contains(&format!("line {l}")), "no line {l} in: {msg}");
    }
    (kind, msg)
}

/// Writes a file and loads it with `load_model` (so by extension), also
/// checking that the extension's own loader and the bytes loader agree.
pub(crate) fn err_file(
    dir: &TempDir,
    name: &str,
    bytes: impl AsRef<[u8]>,
) -> (ModelErrorKind, String) {
    let p = dir.write(name, bytes.as_ref());
    let t = Instant::now();
    let (kind, msg) = expect_err(load_model(&p), &p);
    assert!(t.elapsed().as_secs() < 10, "{name} took {:?}", t.elapsed());
    let direct = if name.ends_with(".stl") {
        load_stl(&p)
    } else {
        load_ply(&p)
    };
    assert_eq!(expect_err(direct, &p).1, msg);
    let mem = if name.ends_with(".stl") {
        load_stl_bytes(&p, bytes.as_ref())
    } else {
        load_ply_bytes(&p, bytes.as_ref())
    };
    assert_eq!(expect_err(mem, &p).1, msg, "bytes loader");
    (kind, msg)
}

// ---------------------------------------------------------------- same as OBJ

#[test]
fn stl_binary_and_ascii_load_the_objs_triangles_and_render_its_ids() {
    let dir = TempDir::new("stl-like-obj");
    let pos = positions();
    let tris = fan(&polygons());
    let tri_faces: Vec<Vec<u32>> = tris.iter().map(|t| t.to_vec()).collect();
    let (obj, _) = load_obj(&dir.write("model.obj", obj_text(&pos, &tri_faces))).unwrap();
    let facets = corners(&pos, &tris);
    let bin = dir.write("model_bin.stl", stl_binary(&facets));
    assert_like_obj(&obj, &bin, load_stl(&bin).unwrap());
    let asc = dir.write("model_ascii.stl", stl_ascii(&facets));
    assert_like_obj(&obj, &asc, load_stl(&asc).unwrap());
    // vertices are shared again (15 distinct positions, one per OBJ `v`)
    let (scene, report) = load_model(&bin).unwrap();
    assert_eq!(scene.meshes()[0].positions().len(), pos.len());
    assert_eq!(scene.meshes()[0].color(), softpick::Mesh::palette_color(0));
    assert!(report.warnings.is_empty(), "{report:?}");
}

#[test]
fn ply_ascii_and_binary_load_the_objs_polygons_and_render_its_ids() {
    let dir = TempDir::new("ply-like-obj");
    let pos = positions();
    let faces = polygons();
    let (obj, obj_report) = load_obj(&dir.write("model.obj", obj_text(&pos, &faces))).unwrap();
    assert_eq!(obj_report.triangles, fan(&faces).len());
    for (name, bytes) in [
        ("model_ascii.ply", ply_ascii(&pos, &faces).into_bytes()),
        (
            "model_crlf.ply",
            ply_ascii(&pos, &faces).replace('\n', "\r\n").into_bytes(),
        ),
        ("model_le.ply", ply_binary_le(&pos, &faces)),
        ("model_be.ply", ply_binary_be_double(&pos, &faces)),
    ] {
        let p = dir.write(name, &bytes);
        assert_like_obj(&obj, &p, load_ply(&p).unwrap_or_else(|e| panic!("{e}")));
        let (scene, report) = load_ply_bytes(&p, &bytes).unwrap();
        assert_eq!(scene.meshes()[0].color(), softpick::Mesh::palette_color(0));
        assert!(report.warnings.is_empty(), "{name}: {report:?}");
    }
    // triangles only, too
    let tri_faces: Vec<Vec<u32>> = fan(&faces).iter().map(|t| t.to_vec()).collect();
    let p = dir.write("tris.ply", ply_binary_le(&pos, &tri_faces));
    assert_like_obj(&obj, &p, load_ply(&p).unwrap());
}

#[test]
fn ply_headers_as_other_writers_write_them_load_with_a_warning_naming_the_line() {
    let dir = TempDir::new("ply-tolerant");
    let pos = positions();
    let faces = polygons();
    let (obj, _) = load_obj(&dir.write("model.obj", obj_text(&pos, &faces))).unwrap();
    let blender = "Created by Blender3D 247 - www.blender.org, source file: 'untitled.blend'";
    // (header line 3 is the line after `format …`)
    let after_format = |s: &str, extra: &str| {
        let (head, rest) = s.split_once(" 1.0\n").unwrap();
        format!("{head} 1.0\n{extra}{rest}")
    };
    let binary = |extra: &str| {
        let b = ply_binary_le(&pos, &faces);
        let at = b.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
        let mut out = after_format(&String::from_utf8_lossy(&b[..at]), extra).into_bytes();
        out.extend_from_slice(&b[at..]);
        out
    };
    let ascii = ply_ascii(&pos, &faces);
    let blank_warning =
        |p: &Path, n: usize| format!("{}: header line {n} is blank: ignored", p.display());
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "blender_ascii.ply",
            after_format(&ascii, &format!("{blender}\n")).into_bytes(),
        ),
        ("blender_le.ply", binary(&format!("{blender}\n"))),
        (
            "obj_info.ply",
            after_format(&ascii, "obj_info num_cols 4\nobj_info\n").into_bytes(),
        ),
        ("blank.ply", after_format(&ascii, "\n   \n").into_bytes()),
        ("blank_le.ply", binary("\t\n")),
        ("cr.ply", ascii.replace('\n', "\r").into_bytes()),
        (
            "cr_blender.ply",
            after_format(&ascii, &format!("{blender}\n"))
                .replace('\n', "\r")
                .into_bytes(),
        ),
    ];
    for (name, bytes) in &cases {
        let p = dir.write(name, bytes);
        let loaded = load_ply(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        let warnings = loaded.1.warnings.clone();
        assert_like_obj(&obj, &p, loaded);
        let (_, report) = load_ply_bytes(&p, bytes).unwrap();
        assert_eq!(
            report.warnings, warnings,
            "{name}: the bytes loader warns alike"
        );
        let blender_warning = format!(
            "{}: header line 3 `Created by Blender3D 247 - www.blender.org, source file: 'un…` \
             does not start with a PLY keyword: ignored",
            p.display()
        );
        let cr_warning = format!(
            "{}: header line 1 ends with a lone CR (classic Mac OS line ends): read as a line end",
            p.display()
        );
        let want: Vec<String> = match *name {
            "blender_ascii.ply" | "blender_le.ply" => vec![blender_warning],
            "obj_info.ply" => vec![],
            "blank.ply" => vec![blank_warning(&p, 3), blank_warning(&p, 4)],
            "blank_le.ply" => vec![blank_warning(&p, 3)],
            "cr.ply" => vec![cr_warning],
            "cr_blender.ply" => vec![cr_warning, blender_warning],
            _ => unreachable!(),
        };
        assert_eq!(warnings, want, "{name}");
    }
    // line numbers stay the file's: a bad face after a blank header line
    let oob = after_format(&ascii, "\n").replace("\n3 4 5 8\n", "\n3 4 5 99\n");
    let e = load_ply_bytes(Path::new("oob.ply"), oob.as_bytes()).unwrap_err();
    assert!(
        matches!(
            e.model_kind(),
            Some(ModelErrorKind::IndexOutOfRange(Some(30), _))
        ),
        "{e}"
    );
    // a header line the crate refuses still names its line
    let bad = after_format(&ascii, "element\n");
    let e = load_ply_bytes(Path::new("bad.ply"), bad.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("bad.ply: ") && e.contains("line 3"), "{e}");
}

#[test]
fn stl_facet_order_is_the_files_even_when_facets_share_vertices_out_of_order() {
    let dir = TempDir::new("stl-order");
    let a = [0.0, 0.0, 0.0];
    let b = [1.0, 0.0, 0.0];
    let c = [1.0, 1.0, 0.0];
    let d = [0.0, 1.0, 0.5];
    let e = [2.0, 2.0, 0.25];
    let facets = [[c, d, a], [a, b, c], [e, d, c], [b, e, c], [d, e, a]];
    for (name, bytes) in [
        ("order.stl", stl_binary(&facets)),
        ("order_ascii.stl", stl_ascii(&facets).into_bytes()),
    ] {
        let (scene, report) = load_stl(&dir.write(name, bytes)).unwrap();
        let got: Vec<[[f32; 3]; 3]> = triangles(&scene)
            .iter()
            .map(|t| t.map(|p| p.to_array()))
            .collect();
        assert_eq!(got, facets, "{name}");
        assert_eq!(report.triangles, 5);
        assert_eq!(scene.meshes()[0].positions().len(), 5, "{name}: shared");
    }
}

#[test]
fn ascii_stl_as_exporters_write_it_loads() {
    let dir = TempDir::new("stl-variants");
    let facets = corners(&positions(), &fan(&polygons()));
    let canon = stl_ascii(&facets);
    let (reference, _) = load_stl(&dir.write("canon.stl", &canon)).unwrap();
    let split = canon.find("  facet normal").unwrap() + 200;
    let split = split + canon[split..].find("endfacet\n").unwrap() + 9;
    for (name, text, warnings) in [
        ("crlf.stl", canon.replace('\n', "\r\n"), 0),
        ("cr.stl", canon.replace('\n', "\r"), 0),
        ("upper.stl", canon.to_uppercase(), 0),
        (
            "bare_solid.stl",
            canon.replacen("solid model", "solid", 1),
            0,
        ),
        ("indented.stl", format!("\n\n  {canon}"), 0),
        ("bom.stl", format!("\u{feff}{canon}"), 0),
        ("no_endsolid.stl", canon.replace("endsolid model\n", ""), 1),
        (
            "two_solids.stl",
            format!(
                "{}endsolid a\nsolid b\n{}",
                &canon[..split],
                &canon[split..]
            ),
            0,
        ),
        (
            "nan_normals.stl",
            canon.replace("facet normal 0 0 1", "facet normal nan -nan inf"),
            0,
        ),
        (
            "trailing.stl",
            format!("{canon}garbage after the solid\n"),
            1,
        ),
    ] {
        let p = dir.write(name, &text);
        let (scene, report) = load_stl(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(triangles(&scene), triangles(&reference), "{name}");
        assert_eq!(report.warnings.len(), warnings, "{name}: {report:?}");
    }
    // Latin-1 bytes in the solid's name
    let mut latin = b"solid caf\xe9\n".to_vec();
    latin.extend_from_slice(canon.split_once('\n').unwrap().1.as_bytes());
    let (scene, _) = load_stl_bytes(Path::new("latin.stl"), &latin).unwrap();
    assert_eq!(triangles(&scene), triangles(&reference));
}

#[test]
fn ascii_ply_numbers_outside_the_crates_grammar_are_read_as_rust_reads_them() {
    let pos = [[0.5f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let faces = vec![vec![0, 1, 2]];
    let text = ply_ascii(&pos, &faces)
        .replace("\n0.5 0 0\n", "\n.5 0. +0e0\n")
        .replace("\n1 0 0\n", "\n1. 0 0\n");
    assert!(text.contains(".5 0. +0e0"), "{text}");
    let (scene, _) = load_ply_bytes(Path::new("odd.ply"), text.as_bytes()).unwrap();
    assert_eq!(
        scene.meshes()[0].triangle(0).map(|p| p.to_array()),
        [pos[0], pos[1], pos[2]]
    );
}

#[test]
fn ply_vertex_colors_average_into_the_mesh_color() {
    let pos = positions();
    let faces = polygons();
    let props = format!("{XYZ}property uchar red\nproperty uchar green\nproperty uchar blue\n");
    let mut s = ply_header("ascii", pos.len(), &props, faces.len(), INDICES);
    for (i, p) in pos.iter().enumerate() {
        let c = if i % 2 == 0 {
            [200, 10, 0]
        } else {
            [100, 30, 255]
        };
        s += &format!("{} {} {} {} {} {}\n", p[0], p[1], p[2], c[0], c[1], c[2]);
    }
    for f in &faces {
        s += &format!(
            "{} {}\n",
            f.len(),
            f.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
        );
    }
    // 15 vertices: 8 of the first color, 7 of the second
    assert_eq!(pos.len(), 15);
    let avg = |a: f64, b: f64| ((8.0 * a + 7.0 * b) / 15.0).round() as u8;
    let (scene, _) = load_ply_bytes(Path::new("colors.ply"), s.as_bytes()).unwrap();
    assert_eq!(
        scene.meshes()[0].color(),
        [avg(200.0, 100.0), avg(10.0, 30.0), avg(0.0, 255.0)]
    );
    // float channels are 0..1
    let fl = s
        .replace(
            "property uchar red\nproperty uchar green\nproperty uchar blue",
            "property float red\nproperty float green\nproperty float blue",
        )
        .replace(" 200 10 0\n", " 1 0 0\n")
        .replace(" 100 30 255\n", " 0 0 1\n");
    let (scene, _) = load_ply_bytes(Path::new("colors.ply"), fl.as_bytes()).unwrap();
    assert_eq!(
        scene.meshes()[0].color(),
        [avg(255.0, 0.0), 0, avg(0.0, 255.0)]
    );
}

// ---------------------------------------------------------------- non-finite

#[test]
fn non_finite_vertices_keep_their_triangles_numbered_but_undrawn() {
    let dir = TempDir::new("nonfinite");
    let pos = positions();
    let tris = fan(&polygons());
    let mut facets = corners(&pos, &tris);
    let n = facets.len();
    facets[2][1][0] = f32::NAN;
    facets[5][0][2] = f32::INFINITY;
    let check = |name: &str, r: Result<(Scene, LoadReport), Error>| {
        let (scene, report) = r.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.triangles, n, "{name}");
        assert_eq!(report.invalid_triangles, 2, "{name}");
        assert_eq!(report.warnings.len(), 1, "{name}: {report:?}");
        assert!(
            report.warnings[0].starts_with(name),
            "{:?}",
            report.warnings
        );
        let t = triangles(&scene);
        assert!(t[2][1].x.is_nan() && t[5][0].z.is_infinite(), "{name}");
        let drawn: std::collections::BTreeSet<u32> =
            ids(&scene).into_iter().filter(|&i| i != 0).collect();
        assert!(
            !drawn.contains(&3) && !drawn.contains(&6),
            "{name}: {drawn:?}"
        );
        assert!(drawn.len() > 3, "{name}");
        // framing: the finite vertices only
        assert!(scene.framing_bounds().max.is_finite(), "{name}");
    };
    let p = dir.write("nan.stl", stl_binary(&facets));
    check(&p.display().to_string(), load_stl(&p));
    let ascii = stl_ascii(&facets);
    assert!(ascii.contains("NaN") && ascii.contains("inf"));
    let p = dir.write("nan_ascii.stl", ascii.replace("NaN", "nan"));
    check(&p.display().to_string(), load_stl(&p));
    // PLY: one NaN vertex, used by one triangle
    let mut pos2 = pos.clone();
    pos2[13][1] = f32::NAN;
    let faces = polygons();
    let p = dir.write("nan_le.ply", ply_binary_le(&pos2, &faces));
    let (_, report) = load_ply(&p).unwrap();
    assert_eq!(
        report.invalid_triangles, 2,
        "the pentagon's fan has vertex 13 in two"
    );
    let text = ply_ascii(&pos2, &faces);
    for nan in ["nan", "NaN", "-nan", "inf"] {
        let p = dir.write("nan_ascii.ply", text.replace("NaN", nan));
        let (scene, report) = load_ply(&p).unwrap_or_else(|e| panic!("{nan}: {e}"));
        assert_eq!(report.invalid_triangles, 2, "{nan}");
        assert!(!scene.meshes()[0].positions()[13].y.is_finite(), "{nan}");
    }
    // every triangle unusable: an error naming the file
    let all_nan = [[[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]];
    let (kind, _) = err_file(&dir, "all_nan.stl", stl_binary(&all_nan));
    assert_eq!(kind, ModelErrorKind::NoTriangles(1));
}

// ---------------------------------------------------------------- load_model

#[test]
fn load_model_chooses_by_extension_then_by_the_first_bytes() {
    let dir = TempDir::new("load-model");
    let pos = positions();
    let faces = polygons();
    let tris = fan(&faces);
    let facets = corners(&pos, &tris);
    let (obj, _) = load_obj(&dir.write("model.obj", obj_text(&pos, &faces))).unwrap();
    let kinds: Vec<(&str, Vec<u8>, Option<ModelFormat>)> = vec![
        ("obj", obj_text(&pos, &faces).into_bytes(), None),
        ("stl", stl_binary(&facets), Some(ModelFormat::Stl)),
        (
            "stl",
            stl_binary_with(b"solid but binary", &facets),
            Some(ModelFormat::Stl),
        ),
        (
            "stl",
            stl_ascii(&facets).into_bytes(),
            Some(ModelFormat::Stl),
        ),
        (
            "ply",
            ply_ascii(&pos, &faces).into_bytes(),
            Some(ModelFormat::Ply),
        ),
        ("ply", ply_binary_le(&pos, &faces), Some(ModelFormat::Ply)),
        (
            "ply",
            ply_ascii(&pos, &faces).replace('\n', "\r\n").into_bytes(),
            Some(ModelFormat::Ply),
        ),
    ];
    for (i, (ext, bytes, sniffed)) in kinds.iter().enumerate() {
        assert_eq!(
            ModelFormat::sniff(bytes, bytes.len() as u64),
            *sniffed,
            "{i}: {ext}"
        );
        let upper = ext.to_uppercase();
        for name in [
            format!("m{i}.{ext}"),
            format!("m{i}.{upper}"),
            format!("m{i}.dat"),
            format!("m{i}"),
        ] {
            let p = dir.write(&name, bytes);
            let loaded = load_model(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(triangles(&loaded.0), triangles(&obj), "{name}");
            assert_eq!(ids(&loaded.0), ids(&obj), "{name}");
            let mem = load_model_bytes(&p, bytes).unwrap();
            assert_eq!(triangles(&mem.0), triangles(&obj), "{name} (bytes)");
        }
    }
    // the extension wins over the content: a PLY named .stl is read as STL
    let p = dir.write("ply_inside.stl", ply_ascii(&pos, &faces));
    let (kind, msg) = expect_err(load_model(&p), &p);
    assert!(
        matches!(kind, ModelErrorKind::WrongFormat(ModelFormat::Stl, _)),
        "{msg}"
    );
    // a file that does not exist names the file too
    let missing = dir.path().join("missing.dat");
    let e = load_model(&missing).unwrap_err().to_string();
    assert!(e.starts_with(&missing.display().to_string()), "{e}");
    let missing = dir.path().join("missing.stl");
    let (kind, _) = expect_err(load_model(&missing), &missing);
    assert_eq!(kind, ModelErrorKind::NotFound);
    // a directory named like a model
    let sub = dir.path().join("folder.ply");
    std::fs::create_dir(&sub).unwrap();
    let (kind, _) = expect_err(load_model(&sub), &sub);
    assert_eq!(kind, ModelErrorKind::NotAFile);
}

#[test]
fn sniffing_needs_the_exact_binary_size_and_a_facet_after_solid() {
    let facets = [[[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]];
    let bin = stl_binary(&facets);
    assert_eq!(
        ModelFormat::sniff(&bin, bin.len() as u64),
        Some(ModelFormat::Stl)
    );
    assert_eq!(ModelFormat::sniff(&bin, bin.len() as u64 + 1), None);
    assert_eq!(ModelFormat::sniff(&bin[..83], 83), None);
    assert_eq!(ModelFormat::sniff(b"solid x\nendsolid x\n", 19), None);
    assert_eq!(ModelFormat::sniff(b"solidify 1\nfacet", 16), None);
    assert_eq!(
        ModelFormat::sniff(b"ply\nformat", 10),
        Some(ModelFormat::Ply)
    );
    assert_eq!(ModelFormat::sniff(b"plywood\n", 8), None);
    assert_eq!(ModelFormat::sniff(b"v 0 0 0\n", 8), None);
    assert_eq!(ModelFormat::from_extension("StL"), Some(ModelFormat::Stl));
    assert_eq!(ModelFormat::from_extension("ply2"), None);
}
