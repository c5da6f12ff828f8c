//! Wavefront OBJ loading with `tobj` (triangulated, single index).
//!
//! The bytes are first made UTF-8 text with `\n` line ends (`io::text`: a
//! byte-order mark, UTF-16, CRLF or lone CR line ends and names in another
//! 8-bit encoding are accepted; binary data is not). A fast pre-scan then
//! checks every line the way tobj will parse it, so
//! that whatever tobj would reject (or misread, or panic on) is reported
//! with the file and the line: binary data, malformed numbers, face indices
//! out of range or zero (positions; texture coordinates and normals when
//! the file has any), empty files. It also measures the box of every `v`
//! line for automatic framing, as the peer harnesses do. Lines tobj would
//! misread are handed to it normalized (the file itself is not touched):
//! `l` polylines are dropped (tobj would turn 3+ points into triangles),
//! per-vertex colors and `#` comments after numbers are cut, a `vt` with
//! one number gets v = 0, and `o`/`g`/`mtllib`/`usemtl` lines with leading
//! blanks or tabs are rewritten with one space; a `usemtl` without a name
//! or a face without vertices is dropped. tobj then parses. Each `o`/`g`
//! group becomes a mesh (on its own node under one root node) with its
//! name; `usemtl` diffuse colors come from the `.mtl` when it loads, a
//! deterministic palette otherwise (with a warning naming the library). A
//! face with n > 3 vertices is fan-triangulated (v0,v1,v2),(v0,v2,v3)…;
//! faces with 1–2 vertices are skipped (counted); the global triangle index
//! counts the remaining triangles in file order. Triangles touching a NaN
//! or infinite vertex are kept for numbering but never drawn nor hit
//! (counted in [`LoadReport::invalid_triangles`]); the load fails only when
//! every triangle is unusable.
//!
//! Size limits, checked before anything large is allocated (tobj's
//! intermediate faces take about 100 bytes per face, the scene and its BVH
//! another ~150 bytes per triangle): an OBJ file above 1 GiB or declaring
//! more than 2^26 (67 million) triangles is refused with
//! [`ModelErrorKind::TooLarge`]; an `.mtl` above 64 MiB or that is not a
//! regular file is not read (a warning, palette colors).

use std::cell::RefCell;
use std::io::BufReader;
use std::path::Path;

use glam::Vec3;

use super::text::{self, Found};
use super::Unreadable;
use crate::error::{Error, ModelErrorKind, ModelFormat};
use crate::geometry::Aabb;
use crate::scene::{palette_color, Mesh, Scene, Transform};

pub use super::LoadReport;
use crate::limits::{MAX_MODEL_BYTES, MAX_MTL_BYTES, MAX_TRIANGLES};

fn obj_err(path: &Path, kind: ModelErrorKind) -> Error {
    Error::Model {
        path: path.to_path_buf(),
        format: ModelFormat::Obj,
        kind,
    }
}

fn too_large(path: &Path, bytes: u64) -> Error {
    obj_err(
        path,
        ModelErrorKind::TooLarge {
            what: "bytes",
            size: bytes,
            limit: MAX_MODEL_BYTES,
        },
    )
}

/// Loads an OBJ file into a scene. Errors name the file (and the line when
/// one is to blame); `.mtl` libraries are looked up next to the file.
pub fn load_obj(path: &Path) -> Result<(Scene, LoadReport), Error> {
    let bytes = super::read_model_file(path, MAX_MODEL_BYTES, |why| match why {
        Unreadable::NotFound => obj_err(path, ModelErrorKind::NotFound),
        Unreadable::NotAFile => obj_err(path, ModelErrorKind::NotAFile),
        Unreadable::TooLarge(size) => too_large(path, size),
    })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load_obj_bytes(path, &bytes, |mtl| read_mtl(&dir.join(mtl)))
}

/// Reads an `.mtl` only if it is a regular file of sane size (never a
/// device or a FIFO named by a hostile `mtllib`).
fn read_mtl(p: &Path) -> tobj::MTLLoadResult {
    let meta = std::fs::metadata(p).map_err(|_| tobj::LoadError::OpenFileFailed)?;
    if !meta.is_file() || meta.len() > MAX_MTL_BYTES {
        return Err(tobj::LoadError::OpenFileFailed);
    }
    let bytes = std::fs::read(p).map_err(|_| tobj::LoadError::OpenFileFailed)?;
    match text::decode(&bytes) {
        Found::Text(t) => tobj::load_mtl_buf(&mut t.as_bytes()),
        Found::Binary(_) => Err(tobj::LoadError::ReadError),
    }
}

/// Loads OBJ text held in memory; `path` is only used in messages and
/// `mtl` resolves `mtllib` names (an `Err` is a warning, not a failure).
pub fn load_obj_bytes(
    path: &Path,
    bytes: &[u8],
    mtl: impl Fn(&Path) -> tobj::MTLLoadResult,
) -> Result<(Scene, LoadReport), Error> {
    if bytes.len() as u64 > MAX_MODEL_BYTES {
        return Err(too_large(path, bytes.len() as u64));
    }
    let decoded = match text::decode(bytes) {
        Found::Text(t) => t,
        Found::Binary(line) => return Err(obj_err(path, ModelErrorKind::Binary(Some(line)))),
    };
    let text: &str = &decoded;
    let mut scan = prescan(path, text)?;
    // tobj's `merging`/`reordering` features add fields
    #[allow(clippy::needless_update)]
    let opts = tobj::LoadOptions {
        triangulate: true,
        single_index: true,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    let failed_mtl = RefCell::new(Vec::new());
    let tobj_text = scan.rewritten.take();
    let mut reader = BufReader::new(tobj_text.as_deref().unwrap_or(text).as_bytes());
    let (models, materials) = tobj::load_obj_buf(&mut reader, &opts, |p| {
        let r = mtl(p);
        if let Err(e) = &r {
            failed_mtl
                .borrow_mut()
                .push(format!("`{}` ({e})", p.display()));
        }
        r
    })
    .map_err(|e| obj_err(path, tobj_kind(e)))?;
    drop(tobj_text);
    let mut report = LoadReport {
        skipped_faces: scan.skipped_faces,
        ..LoadReport::default()
    };
    for lib in failed_mtl.into_inner() {
        report.warnings.push(format!(
            "{}: material library {lib} not loaded; its materials use the palette",
            path.display()
        ));
    }
    let materials = materials.unwrap_or_default();
    let mut scene = Scene::new();
    let stem = super::scene_name(path);
    let root = scene.add_node(&stem, Transform::IDENTITY, None);
    for (i, model) in models.iter().enumerate() {
        let m = &model.mesh;
        if m.indices.is_empty() {
            continue;
        }
        let positions: Vec<Vec3> = m
            .positions
            .chunks_exact(3)
            .map(|p| Vec3::new(p[0], p[1], p[2]))
            .collect();
        let tris: Vec<[u32; 3]> = m
            .indices
            .chunks_exact(3)
            .map(|t| [t[0], t[1], t[2]])
            .collect();
        let color = m
            .material_id
            .and_then(|id| materials.get(id))
            .and_then(|mat| mat.diffuse)
            .map_or_else(
                || palette_color(scene.meshes().len() as u32),
                |d| d.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8),
            );
        let name = if model.name.is_empty() {
            format!("mesh_{i}")
        } else {
            model.name.clone()
        };
        let mesh = Mesh::new(name, positions, tris, color)
            .map_err(|e| obj_err(path, ModelErrorKind::IndexOutOfRange(None, e.detail())))?;
        report.invalid_triangles += mesh.invalid_triangles();
        report.triangles += mesh.triangles().len();
        scene.add_mesh(mesh, Transform::IDENTITY, Some(root));
    }
    report.meshes = scene.meshes().len();
    if report.triangles == 0 {
        return Err(obj_err(
            path,
            ModelErrorKind::NoTriangles(scan.skipped_faces),
        ));
    }
    if report.invalid_triangles == report.triangles {
        return Err(obj_err(
            path,
            ModelErrorKind::NoTriangles(report.invalid_triangles),
        ));
    }
    report.warn_dropped(path);
    if scan.polylines > 0 {
        report.warnings.push(format!(
            "{}: {} polylines (`l`) ignored",
            path.display(),
            scan.polylines
        ));
    }
    if scan.dropped_usemtl > 0 {
        report.warnings.push(format!(
            "{}: {} `usemtl` lines without a material name ignored",
            path.display(),
            scan.dropped_usemtl
        ));
    }
    debug_assert_eq!(report.triangles as u64, scan.triangles);
    scene.set_framing_bounds(Some(scan.bounds));
    Ok((scene, report))
}

/// What the pre-scan learned, and the text tobj should parse when some
/// lines had to be normalized.
struct Scan {
    bounds: Aabb,
    skipped_faces: usize,
    triangles: u64,
    polylines: usize,
    dropped_usemtl: usize,
    rewritten: Option<String>,
}

#[derive(Default)]
struct ScanState {
    nv: i64,
    nvt: i64,
    nvn: i64,
    faces: usize,
    skipped: usize,
    triangles: u64,
    polylines: usize,
    dropped_usemtl: usize,
    bounds: Option<Aabb>,
    /// First face referring to a missing texture coordinate / normal: an
    /// error only if the file has any (tobj ignores them otherwise).
    bad_vt: Option<(usize, String)>,
    bad_vn: Option<(usize, String)>,
}

fn prescan(path: &Path, text: &str) -> Result<Scan, Error> {
    let mut st = ScanState {
        bounds: Some(Aabb::empty()),
        ..ScanState::default()
    };
    let mut out: Option<String> = None;
    let mut offset = 0usize;
    let mut words = Vec::new();
    for (i, chunk) in text.split_inclusive('\n').enumerate() {
        // the same line splitting as tobj's `BufRead::lines`
        let line = match chunk.strip_suffix('\n') {
            Some(l) => l.strip_suffix('\r').unwrap_or(l),
            None => chunk,
        };
        match scan_line(path, i + 1, line, &mut st, &mut words)? {
            None => {
                if let Some(o) = &mut out {
                    o.push_str(chunk);
                }
            }
            Some(replacement) => {
                let o = out.get_or_insert_with(|| {
                    let mut s = String::with_capacity(text.len());
                    s.push_str(&text[..offset]);
                    s
                });
                o.push_str(&replacement);
                o.push('\n');
            }
        }
        offset += chunk.len();
    }
    if st.nvt > 0 {
        if let Some((ln, msg)) = st.bad_vt.take() {
            return Err(obj_err(
                path,
                ModelErrorKind::IndexOutOfRange(Some(ln), msg),
            ));
        }
    }
    if st.nvn > 0 {
        if let Some((ln, msg)) = st.bad_vn.take() {
            return Err(obj_err(
                path,
                ModelErrorKind::IndexOutOfRange(Some(ln), msg),
            ));
        }
    }
    if st.nv == 0 && st.faces == 0 && st.skipped == 0 {
        return Err(obj_err(
            path,
            ModelErrorKind::Empty("no vertices or faces".into()),
        ));
    }
    if st.triangles > MAX_TRIANGLES {
        return Err(obj_err(
            path,
            ModelErrorKind::TooLarge {
                what: "triangles",
                size: st.triangles,
                limit: MAX_TRIANGLES,
            },
        ));
    }
    Ok(Scan {
        bounds: st.bounds.unwrap_or_else(Aabb::empty),
        skipped_faces: st.skipped,
        triangles: st.triangles,
        polylines: st.polylines,
        dropped_usemtl: st.dropped_usemtl,
        rewritten: out,
    })
}

/// The words of a line after its keyword, up to a `#` comment; `true` when
/// a comment was cut off.
fn words_before_comment<'a>(words: std::str::SplitWhitespace<'a>, out: &mut Vec<&'a str>) -> bool {
    out.clear();
    for w in words {
        if w.starts_with('#') {
            return true;
        }
        out.push(w);
    }
    false
}

fn parse_f32(path: &Path, ln: usize, tok: &str, what: &str) -> Result<f32, Error> {
    tok.parse().map_err(|_| {
        obj_err(
            path,
            ModelErrorKind::Parse(
                ModelFormat::Obj,
                Some(ln),
                format!("bad number `{tok}` in {what}"),
            ),
        )
    })
}

/// Parses one index of a face vertex (`v`, `vt` or `vn` part) as tobj does
/// (an `isize`); a number too large for that is out of range.
fn parse_index(path: &Path, ln: usize, part: &str, tok: &str) -> Result<i64, Error> {
    match part.parse::<isize>() {
        Ok(i) => Ok(i as i64),
        Err(_) => {
            let digits = part.strip_prefix(['-', '+']).unwrap_or(part);
            let kind = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                ModelErrorKind::IndexOutOfRange(Some(ln), format!("index {part} is too large"))
            } else {
                ModelErrorKind::Parse(
                    ModelFormat::Obj,
                    Some(ln),
                    format!("bad face vertex `{tok}`"),
                )
            };
            Err(obj_err(path, kind))
        }
    }
}

/// Is a 1-based (or negative, relative) index valid with `n` elements so far?
fn index_ok(i: i64, n: i64) -> bool {
    i != 0 && i <= n && i >= -n
}

/// Scans one line; `Ok(Some(text))` when tobj must see `text` instead.
fn scan_line<'a>(
    path: &Path,
    ln: usize,
    line: &'a str,
    st: &mut ScanState,
    w: &mut Vec<&'a str>,
) -> Result<Option<String>, Error> {
    if line.contains('\0') {
        return Err(obj_err(path, ModelErrorKind::Binary(Some(ln))));
    }
    let mut it = line.split_whitespace();
    let Some(kw) = it.next() else {
        return Ok(None);
    };
    match kw {
        "v" => {
            let comment = words_before_comment(it, w);
            let n = w.len();
            if n < 3 {
                return Err(obj_err(
                    path,
                    ModelErrorKind::Parse(
                        ModelFormat::Obj,
                        Some(ln),
                        format!("vertex needs 3 numbers: `{}`", line.trim()),
                    ),
                ));
            }
            let mut p = Vec3::new(
                parse_f32(path, ln, w[0], "vertex")?,
                parse_f32(path, ln, w[1], "vertex")?,
                parse_f32(path, ln, w[2], "vertex")?,
            );
            let rewrite = match n {
                3 => comment,
                4 => {
                    let wt = parse_f32(path, ln, w[3], "vertex weight")?;
                    if wt == 0.0 {
                        return Err(obj_err(
                            path,
                            ModelErrorKind::Parse(
                                ModelFormat::Obj,
                                Some(ln),
                                "vertex weight w is 0".into(),
                            ),
                        ));
                    }
                    p /= wt;
                    comment
                }
                // x y z r g b: the colors are not used; dropped so that a
                // file mixing colored and plain vertices still loads
                6 => true,
                _ => {
                    return Err(obj_err(
                        path,
                        ModelErrorKind::Parse(
                            ModelFormat::Obj,
                            Some(ln),
                            format!(
                                "vertex has {n} numbers (expected x y z, x y z w or x y z r g b)"
                            ),
                        ),
                    ))
                }
            };
            st.nv += 1;
            if p.is_finite() {
                if let Some(b) = &mut st.bounds {
                    b.grow(p);
                }
            }
            Ok(rewrite.then(|| match n {
                4 => format!("v {} {} {} {}", w[0], w[1], w[2], w[3]),
                _ => format!("v {} {} {}", w[0], w[1], w[2]),
            }))
        }
        "vt" => {
            let comment = words_before_comment(it, w);
            if w.is_empty() {
                return Err(obj_err(
                    path,
                    ModelErrorKind::Parse(
                        ModelFormat::Obj,
                        Some(ln),
                        "texture coordinate without numbers".into(),
                    ),
                ));
            }
            for t in w.iter().take(2) {
                parse_f32(path, ln, t, "texture coordinate")?;
            }
            st.nvt += 1;
            // tobj needs u and v (v defaults to 0 in the OBJ spec)
            Ok(match (w.len(), comment) {
                (1, _) => Some(format!("vt {} 0", w[0])),
                (2, true) => Some(format!("vt {} {}", w[0], w[1])),
                _ => None,
            })
        }
        "vn" => {
            words_before_comment(it, w);
            if w.len() < 3 {
                return Err(obj_err(
                    path,
                    ModelErrorKind::Parse(
                        ModelFormat::Obj,
                        Some(ln),
                        format!("normal needs 3 numbers: `{}`", line.trim()),
                    ),
                ));
            }
            for t in &w[..3] {
                parse_f32(path, ln, t, "normal")?;
            }
            st.nvn += 1;
            Ok(None)
        }
        "f" => {
            let comment = words_before_comment(it, w);
            for tok in w.iter() {
                let mut parts = tok.split('/');
                let v = parts.next().unwrap_or("");
                let vt = parts.next().filter(|s| !s.is_empty());
                let vn = parts.next().filter(|s| !s.is_empty());
                if parts.next().is_some() || v.is_empty() {
                    return Err(obj_err(
                        path,
                        ModelErrorKind::Parse(
                            ModelFormat::Obj,
                            Some(ln),
                            format!("bad face vertex `{tok}` (expected v, v/vt, v//vn or v/vt/vn)"),
                        ),
                    ));
                }
                let i = parse_index(path, ln, v, tok)?;
                if !index_ok(i, st.nv) {
                    return Err(obj_err(
                        path,
                        ModelErrorKind::IndexOutOfRange(
                            Some(ln),
                            format!("vertex index {i} with {} vertices defined so far", st.nv),
                        ),
                    ));
                }
                if let Some(vt) = vt {
                    let i = parse_index(path, ln, vt, tok)?;
                    if !index_ok(i, st.nvt) && st.bad_vt.is_none() {
                        st.bad_vt = Some((
                            ln,
                            format!(
                                "texture coordinate index {i} with {} defined so far",
                                st.nvt
                            ),
                        ));
                    }
                }
                if let Some(vn) = vn {
                    let i = parse_index(path, ln, vn, tok)?;
                    if !index_ok(i, st.nvn) && st.bad_vn.is_none() {
                        st.bad_vn = Some((
                            ln,
                            format!("normal index {i} with {} defined so far", st.nvn),
                        ));
                    }
                }
            }
            let n = w.len();
            if n < 3 {
                st.skipped += 1;
            } else {
                st.faces += 1;
                st.triangles += n as u64 - 2;
            }
            // tobj fails on a face without vertices
            Ok(if n == 0 {
                Some(String::new())
            } else {
                comment.then(|| format!("f {}", w.join(" ")))
            })
        }
        // polylines are not surfaces (tobj would fan-triangulate 3+ points)
        "l" => {
            st.polylines += 1;
            Ok(Some(String::new()))
        }
        "o" | "g" | "mtllib" | "usemtl" => {
            let rest = line.trim_start()[kw.len()..].trim();
            if rest.is_empty() && (kw == "usemtl" || kw == "mtllib") {
                // tobj fails on `usemtl` without a name
                st.dropped_usemtl += usize::from(kw == "usemtl");
                return Ok(Some(String::new()));
            }
            // what tobj takes as the name
            let tobj_name = if kw == "o" || kw == "g" {
                line.get(1..).unwrap_or("").trim()
            } else {
                line.split_once(' ').map_or("", |(_, r)| r.trim())
            };
            Ok((tobj_name != rest).then(|| {
                if rest.is_empty() {
                    kw.to_string()
                } else {
                    format!("{kw} {rest}")
                }
            }))
        }
        _ => Ok(None),
    }
}

fn tobj_kind(e: tobj::LoadError) -> ModelErrorKind {
    match e {
        tobj::LoadError::FaceVertexOutOfBounds
        | tobj::LoadError::FaceTexCoordOutOfBounds
        | tobj::LoadError::FaceNormalOutOfBounds
        | tobj::LoadError::FaceColorOutOfBounds => {
            ModelErrorKind::IndexOutOfRange(None, e.to_string())
        }
        other => ModelErrorKind::Parse(ModelFormat::Obj, None, other.to_string()),
    }
}
