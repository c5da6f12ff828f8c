//! What a glTF node carries besides its mesh: its transform, the
//! per-instance transforms of `EXT_mesh_gpu_instancing`, and its camera.

use glam::{Mat4, Quat, Vec3};

use super::accessor;
use super::Fail;
use crate::camera::file::{FileCamera, FileProjection};
use crate::scene::{NodeId, Transform};

/// A node's local transform; a matrix is decomposed into TRS (glTF
/// requires matrices without shear).
pub(super) fn node_transform(node: &gltf::Node<'_>) -> Result<Transform, Fail> {
    let t = match node.transform() {
        gltf::scene::Transform::Matrix { matrix } => {
            let (scale, rotation, translation) =
                Mat4::from_cols_array_2d(&matrix).to_scale_rotation_translation();
            Transform {
                translation,
                rotation,
                scale,
            }
        }
        gltf::scene::Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => Transform {
            translation: Vec3::from_array(translation),
            rotation: Quat::from_array(rotation).normalize(),
            scale: Vec3::from_array(scale),
        },
    };
    let finite = t.translation.is_finite() && t.rotation.is_finite() && t.scale.is_finite();
    if !finite {
        return Err(Fail::at(
            &format!("nodes[{}]", node.index()),
            "its transform is not finite (or its rotation is zero)",
        ));
    }
    Ok(t)
}

/// The per-instance transforms of `EXT_mesh_gpu_instancing` on a node, or
/// `None` without the extension.
pub(super) fn gpu_instances(
    doc: &gltf::Document,
    node: &gltf::Node<'_>,
    buffers: &[Vec<u8>],
) -> Result<Option<Vec<Transform>>, Fail> {
    let Some(ext) = node.extension_value("EXT_mesh_gpu_instancing") else {
        return Ok(None);
    };
    let at = format!("nodes[{}].extensions.EXT_mesh_gpu_instancing", node.index());
    let attrs = ext
        .get("attributes")
        .and_then(|a| a.as_object())
        .ok_or_else(|| Fail::at(&at, "has no `attributes` object"))?;
    let mut columns: [Option<Vec<f32>>; 3] = [None, None, None];
    let mut count = None;
    for (k, (name, width)) in [("TRANSLATION", 3), ("ROTATION", 4), ("SCALE", 3)]
        .into_iter()
        .enumerate()
    {
        let Some(v) = attrs.get(name) else { continue };
        let aat = format!("{at}.attributes.{name}");
        let i = v
            .as_u64()
            .ok_or_else(|| Fail::at(&aat, "must be an accessor index"))?;
        let a = doc
            .accessors()
            .nth(i as usize)
            .ok_or_else(|| Fail::at(&aat, format!("accessor {i} does not exist")))?;
        let vals = accessor::read_f32(buffers, &a, width, &aat)?;
        let n = vals.len() / width;
        if count.is_some_and(|c| c != n) {
            return Err(Fail::at(
                &aat,
                "has a different count than the other attributes",
            ));
        }
        count = Some(n);
        columns[k] = Some(vals);
    }
    let n = count.ok_or_else(|| Fail::at(&at, "has no TRANSLATION, ROTATION or SCALE"))?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let t = Transform {
            translation: columns[0]
                .as_ref()
                .map_or(Vec3::ZERO, |c| Vec3::from_slice(&c[i * 3..])),
            rotation: columns[1].as_ref().map_or(Quat::IDENTITY, |c| {
                Quat::from_slice(&c[i * 4..]).normalize()
            }),
            scale: columns[2]
                .as_ref()
                .map_or(Vec3::ONE, |c| Vec3::from_slice(&c[i * 3..])),
        };
        if !(t.translation.is_finite() && t.rotation.is_finite() && t.scale.is_finite()) {
            return Err(Fail::at(
                &at,
                format!("instance {i} has a non-finite transform"),
            ));
        }
        out.push(t);
    }
    Ok(Some(out))
}

/// The camera on node `node` of the scene.
pub(super) fn file_camera(cam: &gltf::Camera<'_>, node: NodeId) -> Result<FileCamera, Fail> {
    let at = format!("cameras[{}]", cam.index());
    let projection = match cam.projection() {
        gltf::camera::Projection::Perspective(p) => FileProjection::Perspective {
            yfov_deg: p.yfov().to_degrees(),
            aspect: p.aspect_ratio(),
            znear: p.znear(),
            zfar: p.zfar(),
        },
        gltf::camera::Projection::Orthographic(o) => FileProjection::Orthographic {
            xmag: o.xmag(),
            ymag: o.ymag(),
            znear: o.znear(),
            zfar: o.zfar(),
        },
    };
    projection.check().map_err(|msg| Fail::at(&at, msg))?;
    Ok(FileCamera {
        name: cam
            .name()
            .map_or_else(|| format!("camera{}", cam.index()), str::to_string),
        index: cam.index() as u32,
        node,
        projection,
    })
}
