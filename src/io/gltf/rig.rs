//! What animates a glTF scene, read into the scene model: each primitive's
//! morph targets and joint influences ([`Deformer`]), the skins of the
//! loaded nodes, node morph weights, and the animations whose channels
//! target loaded nodes.

use glam::{Mat4, Vec3};
use gltf::animation::{Interpolation as GInterp, Property};
use gltf::json::validation::Checked;
use gltf::Semantic;

use super::accessor::read_f32;
use super::Fail;
use crate::scene::{Animation, Channel, ChannelPath, Deformer, Interpolation, NodeId, Skin};

/// The deformer of a primitive whose vertices are `rest`: its morph
/// targets, the mesh's default weights and, when `skinned`, its joint
/// influence sets; `None` when nothing deforms it.
pub(super) fn deformer(
    mesh: &gltf::Mesh<'_>,
    prim: &gltf::Primitive<'_>,
    rest: &[Vec3],
    skinned: bool,
    buffers: &[Vec<u8>],
) -> Result<Option<Deformer>, Fail> {
    let at = format!("meshes[{}].primitives[{}]", mesh.index(), prim.index());
    let n = rest.len();
    let mut d = Deformer {
        rest: rest.to_vec(),
        default_weights: mesh.weights().map(<[f32]>::to_vec).unwrap_or_default(),
        ..Deformer::default()
    };
    for (k, target) in prim.morph_targets().enumerate() {
        let tat = format!("{at}.targets[{k}].POSITION");
        let delta = match target.positions() {
            Some(a) => {
                let v = read_f32(buffers, &a, 3, &tat)?;
                if v.len() != 3 * n {
                    return Err(Fail::at(
                        &tat,
                        format!("has {} elements for {n} vertices", v.len() / 3),
                    ));
                }
                v.chunks_exact(3).map(Vec3::from_slice).collect()
            }
            None => vec![Vec3::ZERO; n],
        };
        d.targets.push(delta);
    }
    if skinned {
        for set in 0.. {
            let (Some(j), Some(w)) = (
                prim.get(&Semantic::Joints(set)),
                prim.get(&Semantic::Weights(set)),
            ) else {
                break;
            };
            let jat = format!("{at}.attributes.JOINTS_{set}");
            let wat = format!("{at}.attributes.WEIGHTS_{set}");
            let joints = read_f32(buffers, &j, 4, &jat)?;
            let weights = read_f32(buffers, &w, 4, &wat)?;
            if joints.len() != 4 * n || weights.len() != 4 * n {
                return Err(Fail::at(
                    &jat,
                    format!(
                        "JOINTS_{set} and WEIGHTS_{set} must have one element per vertex ({n})"
                    ),
                ));
            }
            d.joints
                .push(joints.chunks_exact(4).map(|c| c.map_ok()).collect());
            d.weights.push(
                weights
                    .chunks_exact(4)
                    .map(|c| [c[0], c[1], c[2], c[3]])
                    .collect(),
            );
        }
    }
    Ok((!d.targets.is_empty() || !d.joints.is_empty()).then_some(d))
}

/// Four joint indices read as numbers, as u16 (an out-of-range value
/// becomes `u16::MAX`, which names no joint and so contributes nothing).
trait MapOk {
    fn map_ok(&self) -> [u16; 4];
}

impl MapOk for [f32] {
    fn map_ok(&self) -> [u16; 4] {
        std::array::from_fn(|k| {
            let v = self[k];
            if (0.0..65535.0).contains(&v) {
                v as u16
            } else {
                u16::MAX
            }
        })
    }
}

/// Skin `skin` with its joints as scene nodes (`node_ids`: glTF node →
/// scene node, for the loaded nodes).
pub(super) fn skin(
    skin: &gltf::Skin<'_>,
    node_ids: &[Option<NodeId>],
    buffers: &[Vec<u8>],
) -> Result<Skin, Fail> {
    let at = format!("skins[{}]", skin.index());
    let joints = skin
        .joints()
        .enumerate()
        .map(|(k, j)| {
            node_ids[j.index()].ok_or_else(|| {
                Fail::at(
                    &format!("{at}.joints[{k}]"),
                    format!("node {} is not in the loaded scene", j.index()),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let inverse_bind = match skin.inverse_bind_matrices() {
        Some(a) => {
            let iat = format!("{at}.inverseBindMatrices");
            let m = read_f32(buffers, &a, 16, &iat)?;
            if m.len() != 16 * joints.len() {
                return Err(Fail::at(
                    &iat,
                    format!("has {} matrices for {} joints", m.len() / 16, joints.len()),
                ));
            }
            m.chunks_exact(16).map(Mat4::from_cols_slice).collect()
        }
        None => Vec::new(),
    };
    Ok(Skin {
        name: skin
            .name()
            .map_or_else(|| format!("skin{}", skin.index()), str::to_string),
        joints,
        inverse_bind,
    })
}

/// Animation `a`, keeping the channels whose node is loaded. `kept` is
/// the file's index of each of `a`'s channels (the parser skipped those
/// softpick cannot animate and checked every channel's node), so messages
/// name a channel as the file numbers it. `json` is `a`'s JSON: the
/// channel's target is read from it, never through the crate's
/// `Target::node` and `Target::property`, which unwrap.
pub(super) fn animation(
    a: &gltf::Animation<'_>,
    json: &gltf::json::Animation,
    kept: &[usize],
    node_ids: &[Option<NodeId>],
    buffers: &[Vec<u8>],
) -> Result<Animation, Fail> {
    let mut out = Animation {
        name: a
            .name()
            .map_or_else(|| format!("animation{}", a.index()), str::to_string),
        channels: Vec::new(),
    };
    for (i, (c, cj)) in a.channels().zip(&json.channels).enumerate() {
        let i = kept.get(i).copied().unwrap_or(i);
        let at = format!("animations[{}].channels[{i}]", a.index());
        // (the parser refused a node past the last one and skipped paths
        // it does not know; a node outside the loaded scene is not animated)
        let Some(&Some(node)) = node_ids.get(cj.target.node.value()) else {
            continue;
        };
        let Checked::Valid(property) = cj.target.path else {
            continue;
        };
        let s = c.sampler();
        let sat = format!("animations[{}].samplers[{}]", a.index(), s.index());
        let times = read_f32(buffers, &s.input(), 1, &format!("{sat}.input"))?;
        let interpolation = match s.interpolation() {
            GInterp::Step => Interpolation::Step,
            GInterp::Linear => Interpolation::Linear,
            GInterp::CubicSpline => Interpolation::CubicSpline,
        };
        let (path, width) = match property {
            Property::Translation => (ChannelPath::Translation, 3),
            Property::Rotation => (ChannelPath::Rotation, 4),
            Property::Scale => (ChannelPath::Scale, 3),
            Property::MorphTargetWeights => (ChannelPath::Weights, 1),
        };
        let mut values = read_f32(buffers, &s.output(), width, &format!("{sat}.output"))?;
        let width = if path == ChannelPath::Weights {
            let per = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            if times.is_empty() || values.len() % (times.len() * per) != 0 {
                return Err(Fail::at(
                    &format!("{sat}.output"),
                    "its count is not a multiple of the key count",
                ));
            }
            values.len() / (times.len() * per)
        } else {
            width
        };
        if path == ChannelPath::Rotation && interpolation != Interpolation::CubicSpline {
            // (normalized integer quaternions come out in [-1, 1]; keep them unit)
            for q in values.chunks_exact_mut(4) {
                let n = glam::Quat::from_slice(q).normalize();
                if n.is_finite() {
                    q.copy_from_slice(&n.to_array());
                }
            }
        }
        let ch = Channel {
            node,
            path,
            interpolation,
            times,
            values,
            width,
        };
        ch.check().map_err(|e| Fail::at(&at, e))?;
        out.channels.push(ch);
    }
    Ok(out)
}
