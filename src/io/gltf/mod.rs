//! glTF 2.0 files (feature `gltf`): `.gltf` with external or data-URI
//! buffers, and `.glb`.
//!
//! What a load builds:
//! - **Nodes.** The chosen scene's node hierarchy (the file's default scene,
//!   else its first; [`LoadOptions::scene`] picks another), TRS and matrix
//!   transforms alike, under a root node named after the file.
//! - **Instances.** Each node with a mesh is an instance of that mesh
//!   ([`Scene::instances`]); with `EXT_mesh_gpu_instancing`, each of its
//!   per-instance TRS rows is one, on a child node `<node>#<k>`.
//! - **Scene meshes.** One per triangle primitive (TRIANGLES, TRIANGLE_STRIP
//!   or TRIANGLE_FAN, indexed or not) of each instance. The instances of one
//!   glTF mesh share each primitive's geometry and BVH. POINTS and LINES
//!   primitives are skipped and counted.
//! - **Global triangle ids** (the flat numbering of the ID buffer and raw
//!   exports) run over the scene meshes in the order they were added: the
//!   nodes depth-first in the order the file lists children, and for each
//!   instance its primitives in file order; a second instance of a mesh
//!   numbers its triangles again after everything before it.
//! - **Colors.** A primitive's material base color factor (converted to
//!   sRGB bytes); without a material, the palette color of its glTF mesh.
//! - **Cameras.** Every camera on a node of the scene, in
//!   [`LoadReport::cameras`].
//! - **Animation data.** Skins, morph targets and animations are counted in
//!   the report; the geometry is the file's rest pose.
//!
//! Positions may be quantized (`KHR_mesh_quantization`): every component
//! type, normalized or not, is read. A file whose `extensionsRequired`
//! names an extension softpick does not read (Draco or meshopt compression,
//! say) is refused with the extension's name. Errors name the place in the
//! file, e.g. `meshes[0].primitives[1].indices`.

mod accessor;
mod nodes;
mod rig;

use std::path::Path;

use glam::Vec3;
use gltf::json;
use gltf::mesh::Mode;

use super::{model_err, too_large, LoadOptions, LoadReport, MAX_MODEL_BYTES, MAX_MODEL_TRIANGLES};
use crate::error::{Error, ModelErrorKind, ModelFormat};
use crate::scene::{palette_color, Mesh, NodeId, Scene, Transform};
use nodes::{file_camera, gpu_instances, node_transform};

const FORMAT: ModelFormat = ModelFormat::Gltf;

/// Extensions a file may require that this loader honours, or may ignore
/// because they change only the look of materials and textures.
const UNDERSTOOD: &[&str] = &[
    "KHR_mesh_quantization",
    "EXT_mesh_gpu_instancing",
    "KHR_texture_transform",
    "KHR_materials_unlit",
    "KHR_materials_pbrSpecularGlossiness",
    "KHR_materials_emissive_strength",
    "KHR_materials_ior",
    "KHR_materials_specular",
    "KHR_materials_transmission",
    "KHR_materials_volume",
    "KHR_materials_clearcoat",
    "KHR_materials_sheen",
    "KHR_lights_punctual",
];

/// A load failure before it is given the file's path.
#[derive(Debug)]
pub(super) struct Fail(ModelErrorKind);

impl Fail {
    /// A problem at a place in the file, e.g. `meshes[0].primitives[1].indices`.
    pub(super) fn at(place: &str, msg: impl Into<String>) -> Self {
        Fail(ModelErrorKind::At(place.to_string(), msg.into()))
    }
}

/// Loads a `.gltf` or `.glb` file: the default scene (or
/// [`LoadOptions::scene`]), external buffers read beside the file.
///
/// ```no_run
/// let (scene, report) = softpick::load_model("models/engine.glb")?;
/// println!("{} instances, {} cameras", report.instances, report.cameras.len());
/// # Ok::<(), softpick::Error>(())
/// ```
pub fn load_gltf(path: &Path) -> Result<(Scene, LoadReport), Error> {
    load_gltf_with(path, &LoadOptions::default())
}

/// [`load_gltf`] with options (which scene).
pub fn load_gltf_with(path: &Path, opts: &LoadOptions) -> Result<(Scene, LoadReport), Error> {
    let bytes = super::read_mesh_file(path, FORMAT)?;
    load(path, &bytes, opts, true)
}

/// Loads glTF or GLB bytes held in memory; `path` names them in messages.
/// Buffers must be inside the bytes (a GLB's BIN chunk or data URIs): an
/// external `.bin` is an error here, since nothing is read from disk.
pub fn load_gltf_bytes(
    path: &Path,
    bytes: &[u8],
    opts: &LoadOptions,
) -> Result<(Scene, LoadReport), Error> {
    load(path, bytes, opts, false)
}

fn load(
    path: &Path,
    bytes: &[u8],
    opts: &LoadOptions,
    read_files: bool,
) -> Result<(Scene, LoadReport), Error> {
    let fail = |Fail(kind)| model_err(path, FORMAT, kind);
    let (json_bytes, bin) = split_glb(bytes).map_err(fail)?;
    let doc = parse(json_bytes).map_err(fail)?;
    let buffers = load_buffers(path, &doc, bin, read_files)?;
    build(path, &doc, &buffers, opts).map_err(|e| match e {
        Built::Fail(f) => fail(f),
        Built::Error(e) => e,
    })
}

/// The JSON chunk and the BIN chunk of a GLB (checked lengths), or the
/// whole input as JSON when it does not start with the GLB magic.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), Fail> {
    if !bytes.starts_with(b"glTF") {
        return Ok((bytes, None));
    }
    let word = |at: usize| -> Option<u32> {
        let b = bytes.get(at..at + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let truncated = |what: &str| Fail(ModelErrorKind::Truncated(format!("GLB {what}")));
    let version = word(4).ok_or_else(|| truncated("header"))?;
    if version != 2 {
        return Err(Fail::at("GLB header", format!("version {version}, not 2")));
    }
    let length = word(8).ok_or_else(|| truncated("header"))? as usize;
    if length > bytes.len() {
        return Err(truncated(&format!(
            "of {length} bytes declared, {} present",
            bytes.len()
        )));
    }
    let mut at = 12;
    let (mut json, mut bin) = (None, None);
    while at + 8 <= length {
        let len = word(at).ok_or_else(|| truncated("chunk header"))? as usize;
        let kind = word(at + 4).ok_or_else(|| truncated("chunk header"))?;
        let start = at + 8;
        let end = start
            .checked_add(len)
            .filter(|&e| e <= length)
            .ok_or_else(|| truncated(&format!("chunk at byte {at}: {len} bytes declared")))?;
        match kind {
            0x4E4F_534A if json.is_none() => json = Some(&bytes[start..end]),
            0x004E_4942 if bin.is_none() => bin = Some(&bytes[start..end]),
            _ => {}
        }
        at = end;
    }
    let json = json.ok_or_else(|| Fail::at("GLB", "no JSON chunk"))?;
    Ok((json, bin))
}

/// Parses and validates the JSON, and refuses required extensions that
/// are not [`UNDERSTOOD`].
fn parse(json_bytes: &[u8]) -> Result<gltf::Document, Fail> {
    let head: String = String::from_utf8_lossy(&json_bytes[..json_bytes.len().min(24)])
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let gltf = gltf::Gltf::from_slice_without_validation(json_bytes).map_err(|e| match e {
        gltf::Error::Deserialize(e) if e.is_syntax() || e.is_eof() => {
            if json_bytes.trim_ascii_start().starts_with(b"{") {
                Fail(ModelErrorKind::Parse(FORMAT, None, e.to_string()))
            } else {
                Fail(ModelErrorKind::WrongFormat(
                    FORMAT,
                    format!("it starts with `{}`", head.trim()),
                ))
            }
        }
        gltf::Error::Deserialize(e) => Fail(ModelErrorKind::Parse(FORMAT, None, e.to_string())),
        e => Fail(ModelErrorKind::Parse(FORMAT, None, e.to_string())),
    })?;
    let doc = gltf.document;
    for (i, ext) in doc.extensions_required().enumerate() {
        if !UNDERSTOOD.contains(&ext) {
            return Err(Fail(ModelErrorKind::UnsupportedExtension(
                ext.to_string(),
                format!("extensionsRequired[{i}]"),
            )));
        }
    }
    use json::validation::Validate;
    let root = doc.as_json();
    // (the crate's validation indexes primitives' attribute accessors
    // without checking them first: check those before it runs)
    let accessors = root.accessors.len();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let targets = prim
                .targets
                .iter()
                .flatten()
                .enumerate()
                .flat_map(|(k, t)| {
                    [
                        ("POSITION", &t.positions),
                        ("NORMAL", &t.normals),
                        ("TANGENT", &t.tangents),
                    ]
                    .into_iter()
                    .filter_map(move |(n, a)| a.map(|a| (format!("targets[{k}].{n}"), a.value())))
                });
            let attrs = prim
                .attributes
                .iter()
                .map(|(sem, a)| {
                    let name = match sem {
                        json::validation::Checked::Valid(s) => s.to_string(),
                        json::validation::Checked::Invalid => "?".to_string(),
                    };
                    (format!("attributes.{name}"), a.value())
                })
                .chain(targets);
            if let Some((at, i)) = attrs.into_iter().find(|(_, i)| *i >= accessors) {
                return Err(Fail::at(
                    &format!("meshes[{m}].primitives[{p}].{at}"),
                    format!(
                        "refers to accessor {i}, which does not exist (the file has {accessors})"
                    ),
                ));
            }
        }
    }
    let mut first: Option<(json::Path, json::validation::Error)> = None;
    root.validate(root, json::Path::new, &mut |path, error| {
        // (the crate refuses every required extension it lacks; ours are checked above)
        if first.is_none() && error != json::validation::Error::Unsupported {
            first = Some((path(), error));
        }
    });
    if let Some((path, error)) = first {
        let why = match error {
            json::validation::Error::IndexOutOfBounds => "refers to an item that does not exist",
            json::validation::Error::Invalid => "has an invalid value",
            json::validation::Error::Missing => "is missing",
            json::validation::Error::Oversize => "is too large",
            json::validation::Error::Unsupported => "is not supported",
        };
        return Err(Fail::at(path.as_str(), why));
    }
    Ok(doc)
}

/// The bytes of every buffer: the GLB's BIN chunk, a data URI, or a file
/// beside the model (only when `read_files`).
fn load_buffers(
    path: &Path,
    doc: &gltf::Document,
    bin: Option<&[u8]>,
    read_files: bool,
) -> Result<Vec<Vec<u8>>, Error> {
    let fail = |place: String, msg: String| model_err(path, FORMAT, ModelErrorKind::At(place, msg));
    let mut out = Vec::new();
    let mut total = 0u64;
    for b in doc.buffers() {
        let place = format!("buffers[{}]", b.index());
        let data = match b.source() {
            gltf::buffer::Source::Bin => bin
                .ok_or_else(|| {
                    fail(
                        place.clone(),
                        "refers to the GLB's BIN chunk, which this file lacks".into(),
                    )
                })?
                .to_vec(),
            gltf::buffer::Source::Uri(uri) => {
                if let Some(rest) = uri.strip_prefix("data:") {
                    decode_data_uri(rest).map_err(|m| fail(format!("{place}.uri"), m))?
                } else if !read_files {
                    return Err(fail(
                        format!("{place}.uri"),
                        format!(
                            "the external file `{uri}` cannot be read when loading from memory"
                        ),
                    ));
                } else {
                    let name = percent_decode(uri);
                    let file = path.parent().unwrap_or(Path::new(".")).join(&name);
                    super::read_model_file(&file, MAX_MODEL_BYTES, |why| {
                        let msg = match why {
                            super::Unreadable::NotFound => {
                                format!("`{name}` was not found beside the file")
                            }
                            super::Unreadable::NotAFile => {
                                format!("`{name}` is not a regular file")
                            }
                            super::Unreadable::TooLarge(n) => {
                                format!(
                                    "`{name}` has {n} bytes, above the limit of {MAX_MODEL_BYTES}"
                                )
                            }
                        };
                        fail(format!("{place}.uri"), msg)
                    })?
                }
            }
        };
        if data.len() < b.length() {
            return Err(fail(
                place,
                format!(
                    "byteLength is {} but the data has {} bytes",
                    b.length(),
                    data.len()
                ),
            ));
        }
        total += data.len() as u64;
        if total > MAX_MODEL_BYTES {
            return Err(too_large(
                path,
                FORMAT,
                "buffer bytes",
                total,
                MAX_MODEL_BYTES,
            ));
        }
        out.push(data);
    }
    Ok(out)
}

/// The bytes of a data URI after `data:` (base64 only, as glTF requires).
fn decode_data_uri(rest: &str) -> Result<Vec<u8>, String> {
    use base64::Engine;
    let (_, payload) = rest
        .split_once(";base64,")
        .ok_or_else(|| "a data URI must be base64 (`data:...;base64,...`)".to_string())?;
    if payload.len() as u64 / 4 * 3 > MAX_MODEL_BYTES {
        return Err(format!(
            "the data URI is above the limit of {MAX_MODEL_BYTES} bytes"
        ));
    }
    base64::engine::general_purpose::STANDARD
        .decode(payload.trim_end())
        .map_err(|e| format!("invalid base64: {e}"))
}

/// `%XX` escapes of a relative URI decoded (file names with spaces are
/// written `%20` in glTF files); anything malformed is kept as written.
fn percent_decode(uri: &str) -> String {
    let b = uri.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Why building failed: a problem in the file (given the path later), or
/// an error that already names it.
enum Built {
    Fail(Fail),
    Error(Error),
}

impl From<Fail> for Built {
    fn from(f: Fail) -> Self {
        Built::Fail(f)
    }
}

/// Which scene to load: `opts.scene` (an index or a name), else the
/// default scene, else the first; `None` when the file has no scenes.
fn choose_scene<'d>(
    doc: &'d gltf::Document,
    opts: &LoadOptions,
) -> Result<Option<gltf::Scene<'d>>, Fail> {
    let Some(want) = &opts.scene else {
        return Ok(doc.default_scene().or_else(|| doc.scenes().next()));
    };
    let n = doc.scenes().len();
    let found = match want.parse::<usize>() {
        Ok(i) => doc.scenes().nth(i),
        Err(_) => doc.scenes().find(|s| s.name() == Some(want.as_str())),
    };
    found.map(Some).ok_or_else(|| {
        let names: Vec<String> = doc
            .scenes()
            .map(|s| match s.name() {
                Some(name) => format!("{} ({name})", s.index()),
                None => s.index().to_string(),
            })
            .collect();
        Fail::at(
            "scenes",
            format!(
                "no scene `{want}`: the file has {n} ({})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ),
        )
    })
}

/// Linear base color factor → sRGB bytes.
fn srgb_bytes(c: [f32; 4]) -> [u8; 3] {
    let enc = |v: f32| {
        let v = v.clamp(0.0, 1.0);
        let s = if v <= 0.003_130_8 {
            12.92 * v
        } else {
            1.055 * v.powf(1.0 / 2.4) - 0.055
        };
        (s * 255.0 + 0.5) as u8
    };
    [enc(c[0]), enc(c[1]), enc(c[2])]
}

/// The triangles of a primitive's vertex sequence `idx` in `mode`, wound as
/// the spec says (strips alternate, fans turn around the first vertex).
fn assemble(mode: Mode, idx: &[u32]) -> Vec<[u32; 3]> {
    let n = idx.len();
    match mode {
        Mode::Triangles => idx.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        Mode::TriangleStrip => (0..n.saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [idx[i], idx[i + 1], idx[i + 2]]
                } else {
                    [idx[i + 1], idx[i], idx[i + 2]]
                }
            })
            .collect(),
        Mode::TriangleFan => (1..n.saturating_sub(1))
            .map(|i| [idx[i], idx[i + 1], idx[0]])
            .collect(),
        _ => Vec::new(),
    }
}

/// The geometry of primitive `p` of mesh `m`: `None` when it is not made
/// of triangles.
fn primitive_mesh(
    doc_mesh: &gltf::Mesh<'_>,
    prim: &gltf::Primitive<'_>,
    buffers: &[Vec<u8>],
) -> Result<Option<Mesh>, Fail> {
    let (m, p) = (doc_mesh.index(), prim.index());
    let at = format!("meshes[{m}].primitives[{p}]");
    if !matches!(
        prim.mode(),
        Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
    ) {
        return Ok(None);
    }
    let pos = prim
        .get(&gltf::Semantic::Positions)
        .ok_or_else(|| Fail::at(&format!("{at}.attributes"), "has no POSITION"))?;
    let flat = accessor::read_f32(buffers, &pos, 3, &format!("{at}.attributes.POSITION"))?;
    let positions: Vec<Vec3> = flat
        .chunks_exact(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect();
    let idx = match prim.indices() {
        Some(a) => {
            let iat = format!("{at}.indices");
            let idx = accessor::read_indices(buffers, &a, &iat)?;
            if let Some((i, v)) = idx
                .iter()
                .enumerate()
                .find(|(_, &v)| v as usize >= positions.len())
            {
                return Err(Fail::at(
                    &iat,
                    format!("index {i} is {v}, past the {} vertices", positions.len()),
                ));
            }
            idx
        }
        None => (0..positions.len() as u32).collect(),
    };
    let triangles = assemble(prim.mode(), &idx);
    if triangles.len() as u64 > MAX_MODEL_TRIANGLES {
        return Err(Fail(ModelErrorKind::TooLarge {
            what: "triangles",
            size: triangles.len() as u64,
            limit: MAX_MODEL_TRIANGLES,
        }));
    }
    let color = match prim.material().index() {
        Some(_) => srgb_bytes(prim.material().pbr_metallic_roughness().base_color_factor()),
        None => palette_color(m as u32),
    };
    let base = doc_mesh
        .name()
        .map_or_else(|| format!("mesh{m}"), str::to_string);
    let name = if doc_mesh.primitives().len() > 1 {
        format!("{base}/{p}")
    } else {
        base
    };
    Mesh::new(name, positions, triangles, color)
        .map(Some)
        .map_err(|e| Fail::at(&at, e.detail()))
}

/// Builds the scene: the chosen scene's nodes depth-first, each node's
/// instances with their primitives, and the report.
fn build(
    path: &Path,
    doc: &gltf::Document,
    buffers: &[Vec<u8>],
    opts: &LoadOptions,
) -> Result<(Scene, LoadReport), Built> {
    let mut report = LoadReport::default();
    let mut scene = Scene::new();
    let root = scene.add_node(&super::scene_name(path), Transform::IDENTITY, None);
    let roots: Vec<gltf::Node<'_>> = match choose_scene(doc, opts)? {
        Some(s) => s.nodes().collect(),
        None => {
            // no scenes: every node that is nobody's child
            let mut child = vec![false; doc.nodes().len()];
            for n in doc.nodes() {
                for c in n.children() {
                    child[c.index()] = true;
                }
            }
            doc.nodes().filter(|n| !child[n.index()]).collect()
        }
    };
    // per glTF mesh and primitive: the geometry, built for its first instance
    let mut geometry: Vec<Vec<Option<Option<Mesh>>>> = doc
        .meshes()
        .map(|m| vec![None; m.primitives().len()])
        .collect();
    let mut skipped = vec![false; doc.meshes().len()];
    let mut seen = vec![false; doc.nodes().len()];
    let mut node_ids: Vec<Option<NodeId>> = vec![None; doc.nodes().len()];
    let mut skinned: Vec<(crate::scene::InstanceId, usize)> = Vec::new();
    let mut deformed = false;
    let mut stack: Vec<(gltf::Node<'_>, NodeId)> =
        roots.into_iter().rev().map(|n| (n, root)).collect();
    let mut triangles = 0u64;
    while let Some((node, parent)) = stack.pop() {
        let i = node.index();
        if std::mem::replace(&mut seen[i], true) {
            return Err(Fail::at(
                &format!("nodes[{i}]"),
                "is reached twice from the scene (a cycle, or a node with two parents)",
            )
            .into());
        }
        let name = node
            .name()
            .map_or_else(|| format!("node{i}"), str::to_string);
        let id = scene.add_node(&name, node_transform(&node)?, Some(parent));
        node_ids[i] = Some(id);
        if let Some(w) = node.weights() {
            scene.set_morph_weights(id, w.to_vec());
        }
        if let Some(cam) = node.camera() {
            report.cameras.push(file_camera(&cam, id)?);
        }
        if let Some(mesh) = node.mesh() {
            let placements = match gpu_instances(doc, &node, buffers)? {
                Some(list) => list
                    .into_iter()
                    .enumerate()
                    .map(|(k, t)| scene.add_node(&format!("{name}#{k}"), t, Some(id)))
                    .collect(),
                None => vec![id],
            };
            let m = mesh.index();
            for at in placements {
                let instance = scene
                    .add_instance(at, m as u32)
                    .expect("the node was just added");
                report.instances += 1;
                if let Some(s) = node.skin() {
                    skinned.push((instance, s.index()));
                }
                for prim in mesh.primitives() {
                    let p = prim.index();
                    let slot = &mut geometry[m][p];
                    if slot.is_none() {
                        *slot = Some(primitive_mesh(&mesh, &prim, buffers)?);
                        if slot.as_ref().is_some_and(Option::is_none) {
                            report.skipped_primitives += 1;
                            skipped[m] = true;
                        }
                    }
                    let Some(Some(g)) = slot else { continue };
                    triangles += g.triangles().len() as u64;
                    if triangles > MAX_MODEL_TRIANGLES {
                        return Err(Built::Error(too_large(
                            path,
                            FORMAT,
                            "triangles (over all instances)",
                            triangles,
                            MAX_MODEL_TRIANGLES,
                        )));
                    }
                    let mid = scene
                        .add_primitive(instance, g.clone(), p as u32)
                        .expect("the instance was just added");
                    if prim.morph_targets().len() > 0 || node.skin().is_some() {
                        let d = rig::deformer(
                            &mesh,
                            &prim,
                            g.positions(),
                            node.skin().is_some(),
                            buffers,
                        )?;
                        if let Some(d) = d {
                            scene.set_deformer(mid, d).map_err(|e| {
                                Fail::at(&format!("meshes[{m}].primitives[{p}]"), e.detail())
                            })?;
                            deformed = true;
                        }
                    }
                }
            }
        }
        for c in node.children().collect::<Vec<_>>().into_iter().rev() {
            stack.push((c, id));
        }
    }
    let mut skin_ids: Vec<Option<u32>> = vec![None; doc.skins().len()];
    for (instance, s) in skinned {
        let id = match skin_ids[s] {
            Some(id) => id,
            None => {
                let skin = doc.skins().nth(s).expect("a node's skin exists");
                let sk = rig::skin(&skin, &node_ids, buffers)?;
                let id = scene
                    .add_skin(sk)
                    .map_err(|e| Fail::at(&format!("skins[{s}]"), e.detail()))?;
                skin_ids[s] = Some(id);
                id
            }
        };
        scene
            .set_instance_skin(instance, Some(id))
            .expect("the instance and skin exist");
    }
    for a in doc.animations() {
        let anim = rig::animation(&a, &node_ids, buffers)?;
        scene
            .add_animation(anim)
            .map_err(|e| Fail::at(&format!("animations[{}]", a.index()), e.detail()))?;
    }
    if deformed {
        // what a viewer draws before any animation: the default morph
        // weights, and skins posed by the nodes' own transforms
        scene
            .pose(0.0, None, crate::scene::LoopMode::Once)
            .map_err(|e| Fail::at("meshes", e.detail()))?;
    }
    report.meshes = scene.meshes().len();
    report.triangles = scene.triangle_count() as usize;
    report.invalid_triangles = scene.invalid_triangles();
    report.skins = doc.skins().len();
    report.animations = doc.animations().len();
    report.morph_targets = doc
        .meshes()
        .flat_map(|m| {
            m.primitives()
                .map(|p| p.morph_targets().len())
                .collect::<Vec<_>>()
        })
        .sum();
    if report.triangles == 0 || report.invalid_triangles == report.triangles {
        let why = if report.skipped_primitives > 0 {
            format!(
                "the scene has no triangle primitives ({} points or lines primitives skipped)",
                report.skipped_primitives
            )
        } else if report.triangles > 0 {
            return Err(Built::Error(model_err(
                path,
                FORMAT,
                ModelErrorKind::NoTriangles(report.invalid_triangles),
            )));
        } else {
            "the scene has no triangles".to_string()
        };
        return Err(Fail(ModelErrorKind::Empty(why)).into());
    }
    report.warn_dropped(path);
    Ok((scene, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_and_fans_wind_as_the_spec_says() {
        let idx = [0, 1, 2, 3, 4];
        assert_eq!(
            assemble(Mode::TriangleStrip, &idx),
            vec![[0, 1, 2], [2, 1, 3], [2, 3, 4]]
        );
        assert_eq!(
            assemble(Mode::TriangleFan, &idx),
            vec![[1, 2, 0], [2, 3, 0], [3, 4, 0]]
        );
        assert_eq!(assemble(Mode::Triangles, &idx), vec![[0, 1, 2]]);
        assert!(assemble(Mode::Lines, &idx).is_empty());
        assert!(assemble(Mode::TriangleStrip, &idx[..2]).is_empty());
    }

    #[test]
    fn percent_escapes_decode_and_malformed_ones_stay() {
        assert_eq!(percent_decode("my%20model.bin"), "my model.bin");
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz.bin"), "%zz.bin");
    }

    #[test]
    fn glb_chunks_are_checked_against_the_lengths() {
        assert!(split_glb(b"glTF").is_err());
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend(8u32.to_le_bytes()); // less than the header
        assert!(split_glb(&glb).is_err());
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend(1000u32.to_le_bytes()); // more than present
        assert!(split_glb(&glb).is_err());
    }
}
