//! Wavefront OBJ loading with `tobj` (triangulated, single index).
//!
//! A fast pre-scan first checks what tobj does not report with a line
//! number (binary data, face indices out of range or zero, empty files) and
//! measures the box of every `v` line for automatic framing, as the peer
//! harnesses do. tobj then parses. Each `o`/`g` group becomes a mesh (on its
//! own node under one root node) with its name; `usemtl` diffuse colors come
//! from the `.mtl` when it loads, a deterministic palette otherwise. A face
//! with n > 3 vertices is fan-triangulated (v0,v1,v2),(v0,v2,v3)…; faces with
//! 1–2 vertices are skipped (counted); the global triangle index counts the
//! remaining triangles in file order.

use std::io::BufReader;
use std::path::Path;

use glam::Vec3;

use crate::error::{Error, ObjErrorKind};
use crate::scene::{palette_color, Aabb, Mesh, Scene, Transform};

/// What a load found besides the scene.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Meshes loaded.
    pub meshes: usize,
    /// Triangles loaded (including unusable ones, so numbering follows the file).
    pub triangles: usize,
    /// Triangles touching a non-finite vertex: kept for numbering, never drawn or hit.
    pub invalid_triangles: usize,
    /// Faces with fewer than 3 vertices, skipped.
    pub skipped_faces: usize,
    /// Non-fatal problems (e.g. a missing or broken `.mtl`).
    pub warnings: Vec<String>,
}

fn obj_err(path: &Path, kind: ObjErrorKind) -> Error {
    Error::Obj {
        path: path.to_path_buf(),
        kind,
    }
}

/// Loads an OBJ file into a scene.
pub fn load_obj(path: &Path) -> Result<(Scene, LoadReport), Error> {
    let meta = std::fs::metadata(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            obj_err(path, ObjErrorKind::NotFound)
        } else {
            Error::Io {
                path: path.to_path_buf(),
                source: e,
            }
        }
    })?;
    if !meta.is_file() {
        return Err(obj_err(path, ObjErrorKind::NotAFile));
    }
    let bytes = std::fs::read(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    load_obj_bytes(path, &bytes, |mtl| {
        let p = dir.join(mtl);
        tobj::load_mtl(&p)
    })
}

/// Loads OBJ text held in memory; `path` is only used in messages and
/// `mtl` resolves `mtllib` names.
pub fn load_obj_bytes(
    path: &Path,
    bytes: &[u8],
    mtl: impl Fn(&Path) -> tobj::MTLLoadResult,
) -> Result<(Scene, LoadReport), Error> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            return Err(obj_err(path, ObjErrorKind::Binary(Some(line))));
        }
    };
    let scan = prescan(path, text)?;
    let opts = tobj::LoadOptions {
        triangulate: true,
        single_index: true,
        ignore_points: true,
        ignore_lines: true,
        ..Default::default()
    };
    let mut reader = BufReader::new(text.as_bytes());
    let (models, materials) = tobj::load_obj_buf(&mut reader, &opts, |p| mtl(p))
        .map_err(|e| obj_err(path, tobj_kind(e)))?;
    let mut report = LoadReport {
        skipped_faces: scan.skipped_faces,
        ..LoadReport::default()
    };
    let materials = match materials {
        Ok(m) => m,
        Err(e) => {
            if scan.has_mtllib {
                report.warnings.push(format!(
                    "{}: material library not loaded ({e}); using the palette",
                    path.display()
                ));
            }
            Vec::new()
        }
    };
    let mut scene = Scene::new();
    let stem = path
        .file_stem()
        .map_or_else(|| "scene".to_string(), |s| s.to_string_lossy().into_owned());
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
            .map_err(|msg| obj_err(path, ObjErrorKind::IndexOutOfRange(None, msg)))?;
        report.invalid_triangles += mesh.invalid_triangles();
        report.triangles += mesh.triangles().len();
        scene.add_mesh(mesh, Transform::IDENTITY, Some(root));
    }
    report.meshes = scene.meshes().len();
    if report.triangles == 0 {
        return Err(obj_err(path, ObjErrorKind::NoTriangles(scan.skipped_faces)));
    }
    if report.invalid_triangles == report.triangles {
        return Err(obj_err(
            path,
            ObjErrorKind::NoTriangles(report.invalid_triangles),
        ));
    }
    if report.invalid_triangles > 0 {
        report.warnings.push(format!(
            "{}: {} triangles touch non-finite vertices and are dropped",
            path.display(),
            report.invalid_triangles
        ));
    }
    if scan.skipped_faces > 0 {
        report.warnings.push(format!(
            "{}: {} faces with fewer than 3 vertices skipped",
            path.display(),
            scan.skipped_faces
        ));
    }
    scene.set_framing_bounds(Some(scan.bounds));
    Ok((scene, report))
}

struct Scan {
    bounds: Aabb,
    skipped_faces: usize,
    has_mtllib: bool,
}

fn prescan(path: &Path, text: &str) -> Result<Scan, Error> {
    let mut nv: i64 = 0;
    let mut faces = 0usize;
    let mut skipped = 0usize;
    let mut bounds = Aabb::empty();
    let mut has_mtllib = false;
    for (ln, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        let ln = ln + 1;
        if line.contains('\0') {
            return Err(obj_err(path, ObjErrorKind::Binary(Some(ln))));
        }
        let mut it = line.split_whitespace();
        match it.next() {
            Some("v") => {
                nv += 1;
                let c: Vec<f32> = it.take(3).map_while(|s| s.parse().ok()).collect();
                if c.len() < 3 {
                    return Err(obj_err(
                        path,
                        ObjErrorKind::Parse(
                            Some(ln),
                            format!("vertex needs 3 numbers: `{}`", raw.trim()),
                        ),
                    ));
                }
                let p = Vec3::new(c[0], c[1], c[2]);
                if p.is_finite() {
                    bounds.grow(p);
                }
            }
            Some("f") => {
                let mut n = 0;
                for tok in it {
                    let idx = tok.split('/').next().unwrap_or("");
                    let Ok(i) = idx.parse::<i64>() else {
                        return Err(obj_err(
                            path,
                            ObjErrorKind::Parse(Some(ln), format!("bad face index `{tok}`")),
                        ));
                    };
                    if i == 0 || i > nv || i < -nv {
                        return Err(obj_err(
                            path,
                            ObjErrorKind::IndexOutOfRange(
                                Some(ln),
                                format!("vertex index {i} with {nv} vertices defined so far"),
                            ),
                        ));
                    }
                    n += 1;
                }
                if n < 3 {
                    skipped += 1;
                } else {
                    faces += 1;
                }
            }
            Some("mtllib") => has_mtllib = true,
            _ => {}
        }
    }
    if nv == 0 && faces == 0 && skipped == 0 {
        return Err(obj_err(path, ObjErrorKind::Empty));
    }
    Ok(Scan {
        bounds,
        skipped_faces: skipped,
        has_mtllib,
    })
}

fn tobj_kind(e: tobj::LoadError) -> ObjErrorKind {
    match e {
        tobj::LoadError::FaceVertexOutOfBounds
        | tobj::LoadError::FaceTexCoordOutOfBounds
        | tobj::LoadError::FaceNormalOutOfBounds
        | tobj::LoadError::FaceColorOutOfBounds => {
            ObjErrorKind::IndexOutOfRange(None, e.to_string())
        }
        other => ObjErrorKind::Parse(None, other.to_string()),
    }
}
