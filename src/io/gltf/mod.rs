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
//!   the report; the geometry is the file's rest pose. A channel softpick
//!   cannot animate (a `"pointer"` of `KHR_animation_pointer`, another path
//!   than translation, rotation, scale and weights, no target node) is
//!   skipped with a warning naming it; a channel naming a node past the
//!   last one is an error naming it.
//!
//! Positions may be quantized (`KHR_mesh_quantization`): every component
//! type, normalized or not, is read. A file whose `extensionsRequired`
//! names an extension softpick does not read (Draco or meshopt compression,
//! say) is refused with the extension's name. Errors name the place in the
//! file, e.g. `meshes[0].primitives[1].indices`.
//!
//! The files: `glb.rs` splits a GLB into its chunks, `parse.rs` reads and
//! checks the JSON, `uri.rs` reads the buffers, `scenes.rs` chooses the
//! scene, `build.rs` builds it with `accessor.rs` (numbers), `nodes.rs`
//! (transforms, GPU instances, cameras) and `rig.rs` (skins, morphs,
//! animations).

mod accessor;
mod build;
mod glb;
mod nodes;
mod parse;
mod rig;
mod scenes;
mod uri;

use std::path::Path;

use super::{model_err, LoadOptions, LoadReport};
use crate::error::{Error, ModelErrorKind, ModelFormat};
use crate::scene::Scene;
use build::{build, Built};
use glb::split_glb;
use parse::parse;
use uri::load_buffers;

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
    let parsed = parse(json_bytes).map_err(fail)?;
    let buffers = load_buffers(path, &parsed.doc, bin, read_files)?;
    build(path, &parsed, &buffers, opts).map_err(|e| match e {
        Built::Fail(f) => fail(f),
        Built::Error(e) => e,
    })
}
