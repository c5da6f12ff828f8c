//! The scene built from a parsed file: the chosen scene's nodes
//! depth-first, each node's instances with their triangle primitives
//! (geometry shared by the instances of one glTF mesh), skins, animations
//! and the report.

use std::path::Path;

use glam::Vec3;
use gltf::mesh::Mode;

use super::nodes::{file_camera, gpu_instances, node_transform};
use super::parse::Parsed;
use super::scenes::choose_scene;
use super::{accessor, rig, Fail, FORMAT};
use crate::error::{Error, ModelErrorKind};
use crate::io::{model_err, scene_name, too_large, LoadOptions, LoadReport, MAX_MODEL_TRIANGLES};
use crate::scene::{palette_color, Mesh, NodeId, Scene, Transform};

/// Why building failed: a problem in the file (given the path later), or
/// an error that already names it.
pub(super) enum Built {
    Fail(Fail),
    Error(Error),
}

impl From<Fail> for Built {
    fn from(f: Fail) -> Self {
        Built::Fail(f)
    }
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
pub(super) fn build(
    path: &Path,
    parsed: &Parsed,
    buffers: &[Vec<u8>],
    opts: &LoadOptions,
) -> Result<(Scene, LoadReport), Built> {
    let doc = &parsed.doc;
    let mut report = LoadReport::default();
    let mut scene = Scene::new();
    let root = scene.add_node(&scene_name(path), Transform::IDENTITY, None);
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
        let kept = parsed
            .channels
            .get(a.index())
            .map_or(&[][..], Vec::as_slice);
        let json = &doc.as_json().animations[a.index()];
        let anim = rig::animation(&a, json, kept, &node_ids, buffers)?;
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
    report.warnings.extend(
        parsed
            .warnings
            .iter()
            .map(|w| format!("{}: {w}", path.display())),
    );
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
}
