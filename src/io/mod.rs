//! File input: Wavefront OBJ (feature `obj`), STL (feature `stl`), PLY
//! (feature `ply`) and glTF 2.0 (feature `gltf`) models, and
//! [`load_model`], which chooses among them.
//!
//! Every loader returns a [`Scene`] and a [`LoadReport`]; every error names
//! the file. [`load_model`] chooses the format by the file's extension
//! (`.obj`, `.stl`, `.ply`, `.gltf`, `.glb`, any case) and, when the
//! extension is another or missing, by the first bytes
//! ([`ModelFormat::sniff`]): `glTF` (the GLB magic), or a `{` whose JSON has
//! an `"asset"` key within the first KiB, is glTF; `ply` on the first line is PLY;
//! `solid` followed by `facet` within the first KiB, or a binary STL whose
//! size is exactly 84 + 50 · its facet count, is STL; anything else is OBJ.
//! A format whose cargo feature is off gives [`Error::FormatDisabled`].

#[cfg(feature = "gltf")]
// (the per-format loaders are reached through `load_model`, and by name
// through `crate::internals` only)
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub mod gltf;
#[cfg(feature = "obj")]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub mod obj;
#[cfg(feature = "ply")]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub mod ply;
#[cfg(feature = "stl")]
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub mod stl;
#[cfg(feature = "obj")]
pub(crate) mod text;

use std::io::Read;
use std::path::Path;

#[cfg(any(feature = "stl", feature = "ply"))]
use glam::Vec3;

#[cfg(any(feature = "stl", feature = "ply", feature = "gltf"))]
use crate::error::ModelErrorKind;
use crate::error::{Error, ModelFormat};
#[cfg(any(feature = "stl", feature = "ply"))]
use crate::geometry::Aabb;
use crate::scene::Scene;
#[cfg(any(feature = "stl", feature = "ply"))]
use crate::scene::{Mesh, Transform};

#[cfg(any(feature = "stl", feature = "ply", feature = "gltf"))]
pub(crate) use crate::limits::MAX_MODEL_BYTES;

/// Most triangles (and PLY vertices) a model may declare.
#[cfg(any(feature = "stl", feature = "ply", feature = "gltf"))]
pub(crate) const MAX_MODEL_TRIANGLES: u64 = crate::limits::MAX_TRIANGLES;

/// What to load from a file that holds several scenes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// The glTF scene, by index or name (`None`: the file's default scene,
    /// else its first). Other formats have one scene and refuse this.
    pub scene: Option<String>,
}

/// What a load found besides the scene.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadReport {
    /// Scene meshes loaded (for glTF, one per triangle primitive of each instance).
    pub meshes: usize,
    /// Instances ([`Scene::instances`]): for glTF, the node–mesh placements
    /// (and `EXT_mesh_gpu_instancing` rows); otherwise one per mesh.
    pub instances: usize,
    /// glTF primitives that are points or lines, skipped.
    pub skipped_primitives: usize,
    /// glTF skins, morph targets (over all primitives) and animations in
    /// the file; the geometry loaded is the rest pose.
    pub skins: usize,
    /// See [`LoadReport::skins`].
    pub morph_targets: usize,
    /// See [`LoadReport::skins`].
    pub animations: usize,
    /// The file's cameras placed in the loaded scene (glTF).
    pub cameras: Vec<crate::camera::file::FileCamera>,
    /// Triangles loaded (including unusable ones, so numbering follows the file).
    pub triangles: usize,
    /// Triangles touching a non-finite vertex: kept for numbering, never drawn or hit.
    pub invalid_triangles: usize,
    /// Faces with fewer than 3 vertices, skipped.
    pub skipped_faces: usize,
    /// Non-fatal problems (e.g. a missing or broken `.mtl`), each naming the file.
    pub warnings: Vec<String>,
}

/// The name of a loaded file's root node (and of a one-mesh file's mesh):
/// the file stem, or `scene` when the path has none.
pub(crate) fn scene_name(path: &Path) -> String {
    path.file_stem()
        .map_or_else(|| "scene".to_string(), |s| s.to_string_lossy().into_owned())
}

impl LoadReport {
    /// The warnings every loader gives for what it dropped: triangles
    /// touching non-finite vertices, faces of fewer than 3 vertices, and
    /// glTF points and lines primitives.
    pub(crate) fn warn_dropped(&mut self, path: &Path) {
        if self.invalid_triangles > 0 {
            self.warnings.push(format!(
                "{}: {} triangles touch non-finite vertices and are dropped",
                path.display(),
                self.invalid_triangles
            ));
        }
        if self.skipped_faces > 0 {
            self.warnings.push(format!(
                "{}: {} faces with fewer than 3 vertices skipped",
                path.display(),
                self.skipped_faces
            ));
        }
        if self.skipped_primitives > 0 {
            self.warnings.push(format!(
                "{}: {} points or lines primitives skipped",
                path.display(),
                self.skipped_primitives
            ));
        }
    }
}

/// How many first bytes [`ModelFormat::sniff`] looks at for text signatures.
const SNIFF_BYTES: usize = 1024;

impl ModelFormat {
    /// The format of a file by its first bytes, as [`load_model`] chooses
    /// it when the extension names none (at least the first 1 KiB when
    /// the file is that long; 84 bytes suffice for a binary STL) and its size:
    /// `ply` alone on the first line → PLY; `solid` and whitespace, then the
    /// word `facet` within the first KiB → (ASCII) STL; a size of exactly
    /// 84 + 50 · the little-endian facet count at bytes 80..84 → (binary) STL;
    /// `None` otherwise (OBJ has no signature).
    #[must_use]
    pub fn sniff(head: &[u8], file_size: u64) -> Option<ModelFormat> {
        if head.starts_with(b"glTF") {
            return Some(ModelFormat::Gltf);
        }
        let start = head.trim_ascii_start();
        let start = start.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(start);
        if start.starts_with(b"{")
            && head[..head.len().min(SNIFF_BYTES)]
                .windows(7)
                .any(|w| w == b"\"asset\"")
        {
            return Some(ModelFormat::Gltf);
        }
        if head.starts_with(b"ply\n") || head.starts_with(b"ply\r\n") {
            return Some(ModelFormat::Ply);
        }
        let text = &head[..head.len().min(SNIFF_BYTES)];
        if text.len() > 5
            && text.starts_with(b"solid")
            && text[5].is_ascii_whitespace()
            && text.windows(5).any(|w| w == b"facet")
        {
            return Some(ModelFormat::Stl);
        }
        if file_size >= 84 && head.len() >= 84 {
            let count = u32::from_le_bytes([head[80], head[81], head[82], head[83]]);
            if file_size == 84 + 50 * u64::from(count) {
                return Some(ModelFormat::Stl);
            }
        }
        None
    }
}

/// The extension of `path` as a model format, if it names one.
fn by_extension(path: &Path) -> Option<ModelFormat> {
    path.extension()
        .and_then(|e| e.to_str())
        .and_then(ModelFormat::from_extension)
}

/// The format to read `path` as, and why (for messages): the extension,
/// else `ModelFormat::sniff(head, size)`, else OBJ.
fn choose(path: &Path, head: &[u8], size: u64) -> (ModelFormat, String) {
    if let Some(f) = by_extension(path) {
        let ext = path.extension().unwrap_or_default().to_string_lossy();
        return (f, format!(" (chosen by the extension `.{ext}`)"));
    }
    match ModelFormat::sniff(head, size) {
        Some(f) => (f, " (chosen by the file's first bytes)".to_string()),
        None => (
            ModelFormat::Obj,
            " (the extension and first bytes name no other format, so it would be read as OBJ)"
                .to_string(),
        ),
    }
}

fn disabled(path: &Path, format: ModelFormat, why: String) -> Error {
    Error::FormatDisabled {
        path: path.to_path_buf(),
        format,
        why,
    }
}

/// Loads a model file, choosing the format by the extension (`.obj`,
/// `.stl`, `.ply`, any case) and otherwise by the first bytes (see the
/// module docs and [`ModelFormat::sniff`]); the loaders are `load_obj` (which
/// reads `.mtl` libraries beside the file), `load_stl` and
/// `load_ply`. A format whose cargo feature is off is an
/// [`Error::FormatDisabled`] naming the file and the feature.
///
/// ```no_run
/// let (scene, report) = softpick::load_model("fox.glb")?;
/// println!("{} meshes, {} triangles", report.meshes, scene.triangle_count());
/// # Ok::<(), softpick::Error>(())
/// ```
///
/// # Errors
/// [`Error::Io`] or [`Error::Model`] (with a [`ModelErrorKind`]) naming
/// the file, or [`Error::FormatDisabled`].
pub fn load_model(path: impl AsRef<Path>) -> Result<(Scene, LoadReport), Error> {
    load_model_with(path, &LoadOptions::default())
}

/// [`load_model`] with options: which glTF scene.
///
/// # Errors
/// As [`load_model`]; a scene choice for a format that has one scene is an
/// [`Error::Option`] naming the file.
pub fn load_model_with(
    path: impl AsRef<Path>,
    opts: &LoadOptions,
) -> Result<(Scene, LoadReport), Error> {
    let path = path.as_ref();
    let (format, why) = match by_extension(path) {
        Some(_) => choose(path, &[], 0),
        None => {
            // read only the first KiB to sniff; the loader reads the file
            let io = |source| Error::Io {
                path: path.to_path_buf(),
                source,
            };
            let meta = std::fs::metadata(path).map_err(io)?;
            let mut head = Vec::with_capacity(SNIFF_BYTES);
            if meta.is_file() {
                std::fs::File::open(path)
                    .map_err(io)?
                    .take(SNIFF_BYTES as u64)
                    .read_to_end(&mut head)
                    .map_err(io)?;
            }
            choose(path, &head, meta.len())
        }
    };
    check_options(path, format, opts)?;
    match format {
        #[cfg(feature = "gltf")]
        ModelFormat::Gltf => gltf::load_gltf_with(path, opts),
        #[cfg(feature = "obj")]
        ModelFormat::Obj => obj::load_obj(path),
        #[cfg(feature = "stl")]
        ModelFormat::Stl => stl::load_stl(path),
        #[cfg(feature = "ply")]
        ModelFormat::Ply => ply::load_ply(path),
        #[allow(unreachable_patterns)]
        f => Err(disabled(path, f, why)),
    }
}

/// Loads a model held in memory; `path` names it in messages and its
/// extension chooses the format, else the bytes do (as [`load_model`]).
/// An OBJ's `mtllib` libraries are not read (a warning; palette colors).
///
/// # Errors
/// As [`load_model`].
pub fn load_model_bytes(
    path: impl AsRef<Path>,
    bytes: &[u8],
) -> Result<(Scene, LoadReport), Error> {
    load_model_bytes_with(path, bytes, &LoadOptions::default())
}

/// [`load_model_bytes`] with options (see [`load_model_with`]). A glTF
/// file's external buffers are not read: only GLB and data-URI buffers load.
///
/// # Errors
/// As [`load_model_with`].
pub fn load_model_bytes_with(
    path: impl AsRef<Path>,
    bytes: &[u8],
    opts: &LoadOptions,
) -> Result<(Scene, LoadReport), Error> {
    let path = path.as_ref();
    let (format, why) = choose(path, bytes, bytes.len() as u64);
    check_options(path, format, opts)?;
    match format {
        #[cfg(feature = "gltf")]
        ModelFormat::Gltf => gltf::load_gltf_bytes(path, bytes, opts),
        #[cfg(feature = "obj")]
        ModelFormat::Obj => {
            obj::load_obj_bytes(path, bytes, |_| Err(tobj::LoadError::OpenFileFailed))
        }
        #[cfg(feature = "stl")]
        ModelFormat::Stl => stl::load_stl_bytes(path, bytes),
        #[cfg(feature = "ply")]
        ModelFormat::Ply => ply::load_ply_bytes(path, bytes),
        #[allow(unreachable_patterns)]
        f => Err(disabled(path, f, why)),
    }
}

/// Refuses a scene choice for a format with one scene.
fn check_options(path: &Path, format: ModelFormat, opts: &LoadOptions) -> Result<(), Error> {
    match &opts.scene {
        Some(s) if format != ModelFormat::Gltf => Err(Error::Option {
            path: path.to_path_buf(),
            message: format!("a scene (`{s}`) can be chosen in glTF files only; this is {format}"),
        }),
        _ => Ok(()),
    }
}

#[cfg(any(feature = "stl", feature = "ply", feature = "gltf"))]
pub(crate) fn model_err(path: &Path, format: ModelFormat, kind: ModelErrorKind) -> Error {
    Error::Model {
        path: path.to_path_buf(),
        format,
        kind,
    }
}

#[cfg(any(feature = "stl", feature = "ply", feature = "gltf"))]
pub(crate) fn too_large(
    path: &Path,
    format: ModelFormat,
    what: &'static str,
    size: u64,
    limit: u64,
) -> Error {
    model_err(path, format, ModelErrorKind::TooLarge { what, size, limit })
}

/// Why a model file was not read: it does not exist, is not a regular file
/// (a directory, a device), or is above the size limit (its size).
pub(crate) enum Unreadable {
    NotFound,
    NotAFile,
    TooLarge(u64),
}

/// Reads a whole model file after checking that it exists, is a regular
/// file and holds at most `limit` bytes, before anything is allocated for
/// it; `reject` makes the loader's own error of each refusal.
pub(crate) fn read_model_file(
    path: &Path,
    limit: u64,
    reject: impl Fn(Unreadable) -> Error,
) -> Result<Vec<u8>, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            reject(Unreadable::NotFound)
        } else {
            io(e)
        }
    })?;
    if !meta.is_file() {
        return Err(reject(Unreadable::NotAFile));
    }
    if meta.len() > limit {
        return Err(reject(Unreadable::TooLarge(meta.len())));
    }
    std::fs::read(path).map_err(io)
}

/// [`read_model_file`] for STL, PLY and glTF, with their errors.
#[cfg(any(feature = "stl", feature = "ply", feature = "gltf"))]
pub(crate) fn read_mesh_file(path: &Path, format: ModelFormat) -> Result<Vec<u8>, Error> {
    read_model_file(path, MAX_MODEL_BYTES, |why| match why {
        Unreadable::NotFound => model_err(path, format, ModelErrorKind::NotFound),
        Unreadable::NotAFile => model_err(path, format, ModelErrorKind::NotAFile),
        Unreadable::TooLarge(size) => too_large(path, format, "bytes", size, MAX_MODEL_BYTES),
    })
}

/// The first bytes of a file for a message: up to 32 characters of its
/// first line, non-printable bytes escaped, in backquotes.
#[cfg(any(feature = "stl", feature = "ply", feature = "gltf"))]
pub(crate) fn preview(bytes: &[u8]) -> String {
    let line = bytes
        .split(|&b| b == b'\n' || b == b'\r')
        .next()
        .unwrap_or_default();
    let mut s = String::new();
    for &b in line.iter().take(32) {
        if b.is_ascii_graphic() || b == b' ' {
            s.push(char::from(b));
        } else {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    if line.len() > 32 {
        s.push('…');
    }
    format!("`{s}`")
}

/// A multi-line message of a reader made one line (the CLI prints every
/// error on one line).
#[cfg(any(feature = "stl", feature = "ply"))]
pub(crate) fn one_line(msg: &str) -> String {
    msg.split(['\n', '\r'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The scene of a single-mesh model (STL, PLY): one mesh named after the
/// file stem on a root node of the same name; framing bounds: the box of
/// every finite vertex. Fails when there is no triangle or none is usable;
/// adds the warnings for skipped faces and non-finite triangles.
#[cfg(any(feature = "stl", feature = "ply"))]
pub(crate) fn single_mesh_scene(
    path: &Path,
    format: ModelFormat,
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    color: [u8; 3],
    mut report: LoadReport,
) -> Result<(Scene, LoadReport), Error> {
    let stem = scene_name(path);
    if triangles.is_empty() {
        return Err(model_err(
            path,
            format,
            ModelErrorKind::NoTriangles(report.skipped_faces),
        ));
    }
    let mut bounds = Aabb::empty();
    for p in positions.iter().filter(|p| p.is_finite()) {
        bounds.grow(*p);
    }
    let mesh = Mesh::new(stem.as_str(), positions, triangles, color).map_err(|e| {
        model_err(
            path,
            format,
            ModelErrorKind::IndexOutOfRange(None, e.detail()),
        )
    })?;
    report.triangles = mesh.triangles().len();
    report.invalid_triangles = mesh.invalid_triangles();
    report.meshes = 1;
    if report.invalid_triangles == report.triangles {
        return Err(model_err(
            path,
            format,
            ModelErrorKind::NoTriangles(report.invalid_triangles),
        ));
    }
    report.warn_dropped(path);
    let mut scene = Scene::new();
    let root = scene.add_node(&stem, Transform::IDENTITY, None);
    scene.add_mesh(mesh, Transform::IDENTITY, Some(root));
    scene.set_framing_bounds(Some(bounds));
    Ok((scene, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_format_whose_feature_is_off_is_an_error_naming_the_file_and_feature() {
        let files: [(&str, &[u8]); 4] = [
            ("m.gltf", b"{\"asset\":{\"version\":\"2.0\"}}"),
            ("m.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"),
            ("m.stl", b"solid x\nendsolid x\n"),
            ("m.ply", b"ply\nformat ascii 1.0\nend_header\n"),
        ];
        for (name, bytes) in files {
            let format = by_extension(Path::new(name)).unwrap();
            match load_model_bytes(Path::new(name), bytes) {
                Err(e @ Error::FormatDisabled { .. }) => {
                    assert!(!format.enabled(), "{name}");
                    let msg = e.to_string();
                    assert!(msg.starts_with("m."), "{msg}");
                    assert!(msg.contains(&format!("`{}`", format.feature())), "{msg}");
                }
                // enabled: loads or fails on the content, as that format
                Ok(_) => assert!(format.enabled(), "{name}"),
                Err(e) => {
                    assert!(format.enabled(), "{name}: {e}");
                    assert!(!matches!(e, Error::FormatDisabled { .. }));
                }
            }
        }
    }
}
