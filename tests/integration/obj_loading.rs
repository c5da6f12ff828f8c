//! Loading OBJ files: every malformed file gets a clear error naming the
//! file (and the line when one is to blame) or a correct load, never a
//! panic; odd but valid files load; size limits are enforced before
//! reading. All inputs are generated here, in a unique temporary directory.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use glam::Vec3;
use softpick::internals::{load_obj, load_obj_bytes};
use softpick::{render, Camera, LoadReport, ModelErrorKind, RenderOptions, Scene};

use crate::support::{Rng, TempDir};

/// Loads a file that must fail; checks the kind and that the message names
/// the file (and `line N` when the kind carries a line).
fn expect_err(path: &Path) -> (ModelErrorKind, String) {
    let err = match load_obj(path) {
        Ok((_, r)) => panic!("{} loaded ({r:?}), expected an error", path.display()),
        Err(e) => e,
    };
    let msg = err.to_string();
    let kind = err
        .model_kind()
        .unwrap_or_else(|| panic!("not a model error: {err:?}"))
        .clone();
    assert!(
        msg.contains(&path.display().to_string()),
        "message does not name the file: {msg}"
    );
    let line = match &kind {
        ModelErrorKind::Binary(l)
        | ModelErrorKind::Parse(_, l, _)
        | ModelErrorKind::IndexOutOfRange(l, _) => *l,
        _ => None,
    };
    if let Some(l) = line {
        assert!(
            msg.contains(&format!("line {l}")),
            "message does not name line {l}: {msg}"
        );
    }
    (kind, msg)
}

fn load_text(dir: &TempDir, name: &str, text: &str) -> (Scene, LoadReport) {
    let p = dir.write(name, text);
    load_obj(&p).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn err_text(dir: &TempDir, name: &str, text: &str) -> (ModelErrorKind, String) {
    expect_err(&dir.write(name, text))
}

const QUAD: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 3 4\n";

#[test]
fn missing_file_and_directory() {
    let dir = TempDir::new("missing");
    let (k, _) = expect_err(&dir.path().join("nope.obj"));
    assert_eq!(k, ModelErrorKind::NotFound);
    let sub = dir.path().join("adir.obj");
    std::fs::create_dir(&sub).unwrap();
    let (k, _) = expect_err(&sub);
    assert_eq!(k, ModelErrorKind::NotAFile);
    // a device is not a regular file either (and is never read)
    if cfg!(unix) {
        assert_eq!(
            expect_err(Path::new("/dev/zero")).0,
            ModelErrorKind::NotAFile
        );
    }
}

#[test]
fn empty_and_comment_only_files() {
    let dir = TempDir::new("empty");
    for (name, text) in [
        ("empty.obj", ""),
        ("blank.obj", "\n\n   \n\t\n"),
        ("comments.obj", "# just a comment\n# another\n"),
        ("names.obj", "o thing\ng group\nusemtl red\n"),
    ] {
        assert_eq!(
            err_text(&dir, name, text).0,
            ModelErrorKind::Empty("no vertices or faces".into()),
            "{name}"
        );
    }
    // vertices but no faces: nothing to draw
    assert_eq!(
        err_text(&dir, "verts.obj", "v 0 0 0\nv 1 0 0\n").0,
        ModelErrorKind::NoTriangles(0)
    );
}

#[test]
fn binary_garbage() {
    let dir = TempDir::new("binary");
    // invalid UTF-8 on line 3
    let mut bytes = b"v 0 0 0\nv 1 0 0\nv 1 \xff\xfe 0\nf 1 2 3\n".to_vec();
    let (k, _) = expect_err(&dir.write("utf8.obj", &bytes));
    assert_eq!(k, ModelErrorKind::Binary(Some(3)));
    // valid UTF-8 with a NUL byte on line 2
    bytes = b"v 0 0 0\nv 1\x000 0\n".to_vec();
    let (k, _) = expect_err(&dir.write("nul.obj", &bytes));
    assert_eq!(k, ModelErrorKind::Binary(Some(2)));
    // random bytes: always a binary error (a NUL or invalid UTF-8 is certain
    // in 4 KiB of noise), never a panic
    let mut rng = Rng::new(7);
    for i in 0..20 {
        let noise: Vec<u8> = (0..4096).map(|_| rng.next_u64() as u8).collect();
        let (k, _) = expect_err(&dir.write(&format!("noise{i}.obj"), &noise));
        assert!(matches!(k, ModelErrorKind::Binary(Some(_))), "{k:?}");
    }
    // a PNG is binary too
    let png = softpick::internals::encode_png(4, 4, &[0x00ff_0000; 16]).unwrap();
    let (k, _) = expect_err(&dir.write("image.obj", png));
    assert!(matches!(k, ModelErrorKind::Binary(Some(1))), "{k:?}");
}

#[test]
fn truncated_and_malformed_lines_name_the_line() {
    let dir = TempDir::new("truncated");
    let cases: [(&str, usize); 10] = [
        ("v 0 0 0\nv 1 0\n", 2),                           // vertex cut short
        ("v 0 0 0\nv 1 0 0\nv 1 1e\n", 3),                 // number cut short
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -\n", 4),       // index cut short
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n", 4),      // junk in an index
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/2/3/4 2 3\n", 4), // four parts
        ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf /1 2 3\n", 4),      // no position index
        ("v 0 0 0 1 2\n", 1),                              // five numbers
        ("v 0 0 0 0\n", 1),                                // weight 0
        ("v 0 0 0\nvn 0 1\n", 2),                          // normal cut short
        ("v 0 0 0\nvt\n", 2),                              // texcoord without numbers
    ];
    for (i, (text, line)) in cases.iter().enumerate() {
        let (k, msg) = err_text(&dir, &format!("t{i}.obj"), text);
        assert!(
            matches!(&k, ModelErrorKind::Parse(_, Some(l), _) if l == line),
            "case {i}: {k:?} ({msg})"
        );
    }
}

#[test]
fn every_truncation_of_a_valid_file_loads_or_fails_cleanly() {
    let dir = TempDir::new("cuts");
    let full = "mtllib none.mtl\no first\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n\
                vt 0 0\nvt 1 0\nvn 0 0 1\nusemtl red\nf 1/1/1 2/2/1 3/2/1\n\
                f -4//1 -2//1 -1//1\ng second\nv 2 2 2\nf 5 1 2 3\n";
    for cut in 0..full.len() {
        let bytes = &full.as_bytes()[..cut];
        let p = dir.write("cut.obj", bytes);
        match load_obj(&p) {
            Ok((scene, report)) => {
                assert!(report.triangles > 0);
                assert_eq!(scene.triangle_count() as usize, report.triangles);
            }
            Err(e) => {
                assert!(e.model_kind().is_some(), "cut {cut}: {e:?}");
                assert!(e.to_string().contains(&p.display().to_string()));
            }
        }
    }
}

#[test]
fn out_of_range_and_zero_indices() {
    let dir = TempDir::new("range");
    let head = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";
    for (i, face) in [
        "f 1 2 4",                     // past the end
        "f 0 1 2",                     // zero
        "f 1 2 -4",                    // relative, before the first vertex
        "f 1 2 99999999999999999999",  // beyond any integer
        "f 1 2 -99999999999999999999", // likewise, relative
        "f 1 2 3/0",                   // zero texcoord (the file has some)
        "f 1 2 3/5",                   // texcoord past the end
        "f 1 2 3//-9",                 // normal before the first
    ]
    .iter()
    .enumerate()
    {
        let text = format!("{head}vt 0 0\nvn 0 0 1\n# face\n{face}\n");
        let (k, msg) = err_text(&dir, &format!("r{i}.obj"), &text);
        assert!(
            matches!(&k, ModelErrorKind::IndexOutOfRange(Some(7), _)),
            "{face}: {k:?} ({msg})"
        );
    }
    // a later face's position index refers to a vertex defined after it
    let (k, _) = err_text(&dir, "forward.obj", "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n");
    assert!(matches!(k, ModelErrorKind::IndexOutOfRange(Some(3), _)));
    // texcoord/normal indices in a file without any are ignored (as tobj does)
    let (s, r) = load_text(&dir, "no_vt.obj", &format!("{head}f 1/7/9 2/7/9 3/7/9\n"));
    assert_eq!((r.triangles, s.triangle_count()), (1, 1));
}

#[test]
fn negative_indices_load_like_positive_ones() {
    let dir = TempDir::new("negative");
    let (pos, _) = load_text(&dir, "pos.obj", QUAD);
    let rel = "v 0 0 0\nv 1 0 0\nv 1 1 0\nf -3 -2 -1\nv 0 1 0\nf -4 -2 -1\n";
    let (neg, r) = load_text(&dir, "neg.obj", rel);
    assert_eq!(r.triangles, 2);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let tris = |s: &Scene| -> Vec<[Vec3; 3]> {
        let m = &s.meshes()[0];
        (0..m.triangles().len() as u32)
            .map(|t| m.triangle(t))
            .collect()
    };
    assert_eq!(tris(&pos), tris(&neg));
    // mixed with texcoords and normals
    let mixed = "v 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvn 0 0 1\nf -3/-1/-1 -2/-1/-1 -1//-1\n";
    let (m, _) = load_text(&dir, "mixed.obj", mixed);
    assert_eq!(tris(&m)[0], tris(&pos)[0]);
}

#[test]
fn faces_with_one_or_two_vertices_are_skipped_and_counted() {
    let dir = TempDir::new("short");
    let text = format!("{QUAD}f 1\nf 1 2\nf 2 3\nf\n");
    let (s, r) = load_text(&dir, "short.obj", &text);
    assert_eq!(r.skipped_faces, 4);
    assert_eq!(r.triangles, 2);
    assert_eq!(s.triangle_count(), 2);
    assert!(r.warnings.iter().any(|w| w.contains("4 faces")), "{r:?}");
    // numbering follows the remaining triangles in file order
    let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\nf 1 2 3\nf 3\nf 3 2 1\n";
    let (s, r) = load_text(&dir, "order.obj", text);
    assert_eq!((r.skipped_faces, r.triangles), (2, 2));
    assert_eq!(s.meshes()[0].triangle(1)[0], Vec3::new(0.0, 1.0, 0.0));
    // only short faces: nothing usable
    let (k, _) = err_text(&dir, "only_short.obj", "v 0 0 0\nv 1 0 0\nf 1 2\nf 1\n");
    assert_eq!(k, ModelErrorKind::NoTriangles(2));
}

#[test]
fn non_finite_vertices_drop_their_triangles_only() {
    let dir = TempDir::new("nan");
    let text = "o m\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv nan 0 0\nv 0 inf 0\nv -inf 1 1\n\
                v 1e39 0 0\nf 1 2 3\nf 1 5 3\nf 1 3 4\nf 6 7 8\nf 2 8 3\n";
    let (scene, r) = load_text(&dir, "nan.obj", text);
    assert_eq!(r.triangles, 5);
    assert_eq!(r.invalid_triangles, 3);
    assert!(
        r.warnings.iter().any(|w| w.contains("3 triangles")),
        "{r:?}"
    );
    // framing ignores the non-finite vertices
    let b = scene.framing_bounds();
    assert_eq!((b.min, b.max), (Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0)));
    let cam = Camera::auto_frame(&b, 64, 48);
    let f = render(&scene, &cam, RenderOptions::default()).unwrap();
    let picks = f.picks(&scene).unwrap();
    assert_eq!(f.stats().invalid, 3);
    let mut seen = std::collections::BTreeSet::new();
    for y in 0..48 {
        for x in 0..64 {
            if let Some(t) = f.triangle_at(x, y) {
                seen.insert(t);
            }
            for h in [
                picks.at(x, y),
                picks.with(softpick::PickMethod::Direct).at(x, y),
                picks.with(softpick::PickMethod::Ray).at(x, y),
            ]
            .into_iter()
            .flatten()
            {
                assert!(h.global_triangle == 0 || h.global_triangle == 2, "{h:?}");
            }
        }
    }
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), vec![0, 2]);
    // every triangle unusable: the load fails
    let (k, _) = err_text(
        &dir,
        "all_nan.obj",
        "v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 3 2 1\n",
    );
    assert_eq!(k, ModelErrorKind::NoTriangles(2));
}

#[test]
fn missing_or_broken_mtl_is_a_warning_with_palette_colors() {
    let dir = TempDir::new("mtl");
    let body = "o a\nusemtl red\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\
                o b\nusemtl blue\nf 3 2 1\n";
    // a good library first, to know what success looks like
    dir.write("good.mtl", "newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\n");
    let (s, r) = load_text(&dir, "good.obj", &format!("mtllib good.mtl\n{body}"));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(s.meshes()[0].color(), [255, 0, 0]);
    assert_eq!(s.meshes()[1].color(), [0, 0, 255]);

    let adir = dir.path().join("adir.mtl");
    std::fs::create_dir(&adir).unwrap();
    dir.write("broken.mtl", "newmtl red\nKd one two three\n");
    dir.write("binary.mtl", b"\xff\xfe\x00\x01newmtl");
    for (name, lib) in [
        ("missing", "missing.mtl"),
        ("broken", "broken.mtl"),
        ("binary", "binary.mtl"),
        ("dir", "adir.mtl"),
        // a device is never read (it would never end)
        ("device", "/dev/zero"),
    ] {
        let obj = format!("{name}.obj");
        let (s, r) = load_text(&dir, &obj, &format!("mtllib {lib}\n{body}"));
        assert_eq!(r.triangles, 2, "{name}");
        assert_eq!(r.warnings.len(), 1, "{name}: {:?}", r.warnings);
        let w = &r.warnings[0];
        assert!(w.contains(&obj) && w.contains(lib), "{name}: {w}");
        assert_eq!(
            s.meshes()[0].color(),
            softpick::Mesh::palette_color(0),
            "{name}"
        );
        assert_eq!(
            s.meshes()[1].color(),
            softpick::Mesh::palette_color(1),
            "{name}"
        );
    }
    // one library missing, the other fine: materials from the good one
    let (s, r) = load_text(
        &dir,
        "two.obj",
        &format!("mtllib missing.mtl\nmtllib good.mtl\n{body}"),
    );
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert_eq!(s.meshes()[0].color(), [255, 0, 0]);
}

#[test]
fn odd_but_valid_lines_load() {
    let dir = TempDir::new("odd");
    let text = "# exporter junk\r\n  o  spaced name  \r\nmtllib\r\nusemtl\r\n\
                v 0 0 0 # origin\r\nv 1 0 0 1 0 0\r\nv 1 1 0\r\nv 0 2 0 2\r\n\
                vt 0.5\r\nvt 0 1 # uv\r\nvn 0 0 1\r\n\
                l 1 2 3 4\r\nl 1 2\r\np 1\r\nf 1 2 3 # tri\r\nf 1/1 3/2 4/1\r\n\
                \tg\tsecond\r\nf 4 3 2";
    let (s, r) = load_text(&dir, "odd.obj", text);
    assert_eq!(r.triangles, 3, "{r:?}");
    assert_eq!(r.meshes, 2);
    assert_eq!(s.meshes()[0].name(), "spaced name");
    assert_eq!(s.meshes()[1].name(), "second");
    // the 4th vertex has weight 2: (0, 2, 0) / 2
    assert_eq!(s.meshes()[0].triangle(1)[2], Vec3::new(0.0, 1.0, 0.0));
    assert!(
        r.warnings.iter().any(|w| w.contains("2 polylines")),
        "{r:?}"
    );
    assert!(r.warnings.iter().any(|w| w.contains("usemtl")), "{r:?}");
    // polylines are never drawn: the three triangles are all there is
    assert_eq!(s.triangle_count(), 3);
}

#[test]
fn load_obj_bytes_names_the_given_path() {
    let p = Path::new("in/memory.obj");
    let e = load_obj_bytes(p, b"v 0 0 0\nf 1 1 1 1\nf 1 9 1\n", |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .unwrap_err();
    assert!(matches!(
        e.model_kind(),
        Some(ModelErrorKind::IndexOutOfRange(Some(3), _))
    ));
    assert!(e.to_string().starts_with("in/memory.obj: "), "{e}");
    assert!(e.to_string().contains("line 3"), "{e}");
}

#[test]
fn files_above_the_size_limits_are_refused_before_reading() {
    let dir = TempDir::new("limits");
    // a sparse file just above 1 GiB: refused from its metadata alone
    let p = dir.path().join("huge.obj");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len((1 << 30) + 1).unwrap();
    drop(f);
    let (k, msg) = expect_err(&p);
    assert_eq!(
        k,
        ModelErrorKind::TooLarge {
            what: "bytes",
            size: (1 << 30) + 1,
            limit: 1 << 30
        },
        "{msg}"
    );
    // a face declaring 2^26 + 1 triangles (about 134 MB of text, in memory)
    let n = (1usize << 26) + 3;
    let mut text = String::with_capacity(2 * n + 16);
    text.push_str("v 0 0 0\nf");
    for _ in 0..n {
        text.push_str(" 1");
    }
    text.push('\n');
    let e = load_obj_bytes(Path::new("many.obj"), text.as_bytes(), |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .unwrap_err();
    assert_eq!(
        e.model_kind(),
        Some(&ModelErrorKind::TooLarge {
            what: "triangles",
            size: (1 << 26) + 1,
            limit: 1 << 26
        })
    );
    assert!(e.to_string().contains("many.obj"), "{e}");
}

/// A ~100 MB OBJ (a 575 × 575 vertex height field written 4 times as
/// separate objects: 1.3 M vertices, 2.6 M triangles), generated here: it
/// loads, renders and picks. The times are printed, not asserted: speed
/// belongs in benchmarks, and a timed test fails on a loaded host.
#[test]
fn a_100_mb_file_loads_renders_and_picks() {
    let dir = TempDir::new("big");
    let p = dir.path().join("big.obj");
    let t0 = Instant::now();
    let n = 575usize;
    let copies = 4;
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&p).unwrap());
        let mut line = String::with_capacity(64);
        use std::fmt::Write as _;
        for c in 0..copies {
            writeln!(w, "o sheet_{c}").unwrap();
            for j in 0..n {
                for i in 0..n {
                    line.clear();
                    let h = ((i * 7 + j * 13 + c * 5) % 17) as f32 * 0.001;
                    writeln!(
                        line,
                        "v {:.6} {:.6} {:.6}",
                        i as f32 / n as f32 + c as f32 * 1.1,
                        j as f32 / n as f32,
                        h
                    )
                    .unwrap();
                    w.write_all(line.as_bytes()).unwrap();
                }
            }
            let base = c * n * n + 1;
            for j in 0..n - 1 {
                for i in 0..n - 1 {
                    let a = base + j * n + i;
                    let (b, cc, d) = (a + 1, a + n + 1, a + n);
                    line.clear();
                    writeln!(line, "f {a} {b} {cc}\nf {a} {cc} {d}").unwrap();
                    w.write_all(line.as_bytes()).unwrap();
                }
            }
        }
        w.flush().unwrap();
    }
    let size = std::fs::metadata(&p).unwrap().len();
    let t_gen = t0.elapsed();
    assert!(size > 95_000_000, "generated {size} bytes");
    let t1 = Instant::now();
    let (scene, report) = load_obj(&p).unwrap();
    let t_load = t1.elapsed();
    let tris = copies * 2 * (n - 1) * (n - 1);
    assert_eq!(report.triangles, tris);
    assert_eq!(report.meshes, copies);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let t2 = Instant::now();
    let cam = Camera::auto_frame(&scene.framing_bounds(), 360, 240);
    let f = render(&scene, &cam, RenderOptions::default()).unwrap();
    let covered = f.ids().iter().filter(|&&i| i != 0).count();
    assert!(covered > 360 * 240 / 10, "covered {covered}");
    for (x, y) in [(180, 120), (90, 100), (270, 140)] {
        let a = f.picks(&scene).unwrap().at(x, y).map(|h| h.global_triangle);
        let b = f
            .picks(&scene)
            .unwrap()
            .with(softpick::PickMethod::Direct)
            .at(x, y)
            .map(|h| h.global_triangle);
        assert_eq!(a, b, "({x},{y})");
    }
    println!(
        "100 MB OBJ: {size} bytes, {tris} triangles; generate {:.2?}, load {:.2?}, render+picks {:.2?}",
        t_gen,
        t_load,
        t2.elapsed()
    );
}
