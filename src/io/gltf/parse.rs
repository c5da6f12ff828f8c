//! The JSON of a file parsed and checked before the `gltf` crate's
//! accessors are used: animation channels softpick cannot animate taken
//! out (with a warning each), channels naming a node that does not exist
//! refused, required extensions, attribute accessors and the crate's own
//! validation.
//!
//! The crate unwraps what its validation does not check: a channel's
//! `target.node` (an index past the last node panics in `Target::node`)
//! and `target.path` (a path it does not know panics in
//! `Target::property`); and its deserializer refuses a channel without a
//! `node` (`KHR_animation_pointer`'s `"path": "pointer"` channels have
//! none). So the JSON is read as a `serde_json` value first, those channels
//! are settled there, and the crate deserializes what is left.

use gltf::json;

use super::{Fail, FORMAT, UNDERSTOOD};
use crate::error::ModelErrorKind;

/// The paths of a channel the loader animates (glTF 2.0's four).
const PATHS: [&str; 4] = ["translation", "rotation", "scale", "weights"];

/// A parsed, checked file.
pub(super) struct Parsed {
    pub(super) doc: gltf::Document,
    /// Per animation, the file's index of each channel kept (the others
    /// were skipped), so messages name channels as the file numbers them.
    pub(super) channels: Vec<Vec<usize>>,
    /// What was skipped, one message per animation and reason (without the
    /// file's name).
    pub(super) warnings: Vec<String>,
}

/// Parses and validates the JSON, and refuses required extensions that
/// are not [`UNDERSTOOD`].
pub(super) fn parse(json_bytes: &[u8]) -> Result<Parsed, Fail> {
    let head: String = String::from_utf8_lossy(&json_bytes[..json_bytes.len().min(24)])
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut value: json::Value = json::deserialize::from_slice(json_bytes).map_err(|e| {
        if (e.is_syntax() || e.is_eof()) && !json_bytes.trim_ascii_start().starts_with(b"{") {
            Fail(ModelErrorKind::WrongFormat(
                FORMAT,
                format!("it starts with `{}`", head.trim()),
            ))
        } else {
            Fail(ModelErrorKind::Parse(FORMAT, None, e.to_string()))
        }
    })?;
    let (channels, warnings) = settle_channels(&mut value)?;
    // (from the bytes when no channel was taken out, so that a message
    // gives the line and column of what is wrong)
    let root: Result<json::Root, _> = if warnings.is_empty() {
        drop(value);
        json::deserialize::from_slice(json_bytes)
    } else {
        json::deserialize::from_value(value)
    };
    let root = root.map_err(|e| Fail(ModelErrorKind::Parse(FORMAT, None, e.to_string())))?;
    let doc = gltf::Document::from_json_without_validation(root);
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
    Ok(Parsed {
        doc,
        channels,
        warnings,
    })
}

/// Why a channel is skipped.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Skip {
    /// `"path": "pointer"` (KHR_animation_pointer).
    Pointer,
    /// Another path softpick does not know.
    Path,
    /// No `target.node` (with a path softpick knows).
    NoNode,
}

/// Takes the channels softpick cannot animate out of `value`'s
/// animations: a `target.path` that is not one of [`PATHS`] (the
/// `"pointer"` of `KHR_animation_pointer` among them), or no
/// `target.node`. A channel whose node is past the file's last node is an
/// error. Anything else that is malformed (no `target`, a node that is not
/// an integer, a path that is not a string) is kept for the crate's
/// deserializer to refuse with its own message. Returns the file's index of
/// each kept channel per animation, and the warnings.
fn settle_channels(value: &mut json::Value) -> Result<(Vec<Vec<usize>>, Vec<String>), Fail> {
    let nodes = value
        .get("nodes")
        .and_then(json::Value::as_array)
        .map_or(0, Vec::len);
    let Some(animations) = value
        .get_mut("animations")
        .and_then(json::Value::as_array_mut)
    else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut kept_all = Vec::with_capacity(animations.len());
    let mut warnings = Vec::new();
    for (a, anim) in animations.iter_mut().enumerate() {
        let Some(channels) = anim.get_mut("channels").and_then(json::Value::as_array_mut) else {
            kept_all.push(Vec::new());
            continue;
        };
        let mut skipped: Vec<(Skip, usize, String)> = Vec::new();
        let mut kept = Vec::with_capacity(channels.len());
        let mut out = Vec::with_capacity(channels.len());
        for (c, ch) in std::mem::take(channels).into_iter().enumerate() {
            let target = ch.get("target");
            let path = target
                .and_then(|t| t.get("path"))
                .and_then(json::Value::as_str);
            let node = target.and_then(|t| t.get("node"));
            let skip = match (path, node) {
                (Some("pointer"), _) => Some((Skip::Pointer, "pointer".to_string())),
                (Some(p), _) if !PATHS.contains(&p) => Some((Skip::Path, p.to_string())),
                (Some(_), None) => Some((Skip::NoNode, String::new())),
                _ => None,
            };
            if let Some((why, what)) = skip {
                skipped.push((why, c, what));
                continue;
            }
            if let Some(n) = node.and_then(json::Value::as_u64) {
                if n >= nodes as u64 {
                    return Err(Fail::at(
                        &format!("animations[{a}].channels[{c}].target.node"),
                        format!("refers to node {n}, which does not exist (the file has {nodes})"),
                    ));
                }
            }
            kept.push(c);
            out.push(ch);
        }
        *channels = out;
        kept_all.push(kept);
        for why in [Skip::Pointer, Skip::Path, Skip::NoNode] {
            let these: Vec<&(Skip, usize, String)> =
                skipped.iter().filter(|s| s.0 == why).collect();
            if these.is_empty() {
                continue;
            }
            let list = these
                .iter()
                .map(|(_, c, what)| match why {
                    Skip::Path => format!("{c} (`{what}`)"),
                    _ => c.to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ");
            let one = if these.len() == 1 {
                "channel"
            } else {
                "channels"
            };
            let (targets, names) = if these.len() == 1 {
                ("targets", "names")
            } else {
                ("target", "name")
            };
            warnings.push(match why {
                Skip::Pointer => format!(
                    "animations[{a}]: {one} {list} {targets} a `pointer` \
                     (KHR_animation_pointer), which softpick does not animate: skipped"
                ),
                Skip::Path => format!(
                    "animations[{a}]: {one} {list} {targets} a path softpick does not animate \
                     (it animates translation, rotation, scale and weights): skipped"
                ),
                Skip::NoNode => {
                    format!("animations[{a}]: {one} {list} {names} no target node: skipped")
                }
            });
        }
    }
    Ok((kept_all, warnings))
}
