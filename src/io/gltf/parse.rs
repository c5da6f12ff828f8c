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
use crate::io::preview;

/// A raw JSON value: its text, borrowed from the file's bytes.
type Raw<'a> = &'a serde_json::value::RawValue;

/// `json_bytes` (which parsed as JSON) with every channel that
/// [`settle_channels`] took out turned to spaces, with one comma beside it
/// (line ends kept): the JSON the settled value is, every other byte where
/// it was. (`kept[a]`: the file's indices of animation `a`'s channels kept.)
///
/// Why not deserialize the root from the settled value: that is a second
/// copy of `gltf-json`'s whole deserializer (one per source type), ~200 KB
/// of the browser's module; and why not write the value out again: its
/// numbers would be parsed twice, which serde_json does not promise gives
/// the same `f64`.
fn blank_channels(json_bytes: &[u8], kept: &[Vec<usize>]) -> Vec<u8> {
    let mut out = json_bytes.to_vec();
    let Some(animations) = field(json_bytes, "animations").and_then(array) else {
        return out;
    };
    for (anim, kept) in animations.into_iter().zip(kept) {
        let Some(channels) = field(anim.get().as_bytes(), "channels").and_then(array) else {
            continue;
        };
        for (c, ch) in channels.into_iter().enumerate() {
            // (`kept` is ascending, as `settle_channels` walks the channels:
            // a file of many channels costs no quadratic search)
            if kept.binary_search(&c).is_ok() {
                continue;
            }
            // (the value's text lies inside `json_bytes`: its offset there)
            let start = ch.get().as_ptr() as usize - json_bytes.as_ptr() as usize;
            let mut end = start + ch.get().len();
            let space = |b: u8| b.is_ascii_whitespace();
            // the comma after it, or else the one before it (the last one)
            let after = end + out[end..].iter().take_while(|&&b| space(b)).count();
            let mut start = start;
            if out.get(after) == Some(&b',') {
                end = after + 1;
            } else {
                let before = start - out[..start].iter().rev().take_while(|&&b| space(b)).count();
                if before > 0 && out[before - 1] == b',' {
                    start = before - 1;
                }
            }
            for b in &mut out[start..end] {
                if *b != b'\n' && *b != b'\r' {
                    *b = b' ';
                }
            }
        }
    }
    out
}

/// The value of object `raw`'s field `name`, if `raw` is an object with one.
fn field<'a>(raw: &'a [u8], name: &str) -> Option<Raw<'a>> {
    serde_json::from_slice::<std::collections::BTreeMap<String, Raw<'a>>>(raw)
        .ok()?
        .remove(name)
}

/// The elements of `raw`, if it is an array.
fn array(raw: Raw<'_>) -> Option<Vec<Raw<'_>>> {
    serde_json::from_slice(raw.get().as_bytes()).ok()
}

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
    let mut value: json::Value = json::deserialize::from_slice(json_bytes).map_err(|e| {
        if (e.is_syntax() || e.is_eof()) && !json_bytes.trim_ascii_start().starts_with(b"{") {
            Fail(ModelErrorKind::WrongFormat(
                FORMAT,
                format!("it starts with {}", preview(json_bytes.trim_ascii_start())),
            ))
        } else {
            Fail(ModelErrorKind::Parse(FORMAT, None, e.to_string()))
        }
    })?;
    let (channels, warnings) = settle_channels(&mut value)?;
    drop(value);
    // (always from the bytes, with the channels taken out blanked: one copy
    // of the crate's deserializer, compiled in its own crate, and a message
    // gives the line and column of what is wrong in the file)
    let blanked = if warnings.is_empty() {
        None
    } else {
        Some(blank_channels(json_bytes, &channels))
    };
    let root = json::Root::from_slice(blanked.as_deref().unwrap_or(json_bytes))
        .map_err(|e| Fail(ModelErrorKind::Parse(FORMAT, None, e.to_string())))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Two animations on two nodes: channels skipped first, in the middle
    /// and last (a pointer, a path softpick does not animate, no node),
    /// long numbers, and a comma-first layout.
    const FILE: &str = r#"{
  "asset": {"version": "2.0"},
  "nodes": [{"translation": [0.30000000000000004, 1e-7, 123456789.123456789]}, {}],
  "buffers": [{"byteLength": 8}],
  "bufferViews": [{"buffer": 0, "byteLength": 8}],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0.1], "max": [0.7000000000000001]}
  ],
  "animations": [
    {"samplers": [{"input": 0, "output": 0}],
     "channels": [
      {"sampler": 0, "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": "/nodes/0/translation"}}}},
      {"sampler": 0, "target": {"node": 0, "path": "translation"}},
      {"sampler": 0, "target": {"node": 1, "path": "jiggle"}},
      {"sampler": 0, "target": {"node": 1, "path": "scale"}},
      {"sampler": 0, "target": {"path": "rotation"}}
     ]},
    {"samplers": [{"input": 0, "output": 0}], "channels": [
       {"sampler": 0, "target": {"node": 1, "path": "weights"}}
      , {"sampler": 0, "target": {"path": "pointer"}}
    ]}
  ]
}"#;

    #[test]
    fn blanked_channels_read_as_the_settled_value_reads() {
        let mut value: json::Value = json::deserialize::from_slice(FILE.as_bytes()).unwrap();
        let (kept, warnings) = settle_channels(&mut value).unwrap();
        assert_eq!(kept, vec![vec![1, 3], vec![0]]);
        assert_eq!(warnings.len(), 4, "{warnings:?}");
        let blanked = blank_channels(FILE.as_bytes(), &kept);
        assert_eq!(blanked.len(), FILE.len());
        assert_eq!(
            blanked.iter().filter(|&&b| b == b'\n').count(),
            FILE.lines().count() - 1
        );
        // the same JSON as the settled value, every number the same `f64`
        let again: json::Value = json::deserialize::from_slice(&blanked).unwrap();
        assert_eq!(again, value);
        // and the same root, field for field
        let from_value: json::Root = json::deserialize::from_value(value).unwrap();
        let from_blanked = json::Root::from_slice(&blanked).unwrap();
        assert_eq!(format!("{from_blanked:?}"), format!("{from_value:?}"));
        // the file as `parse` reads it
        let parsed = parse(FILE.as_bytes()).unwrap_or_else(|Fail(k)| panic!("{k:?}"));
        assert_eq!(
            format!("{:?}", parsed.doc.as_json()),
            format!("{from_value:?}")
        );
        assert_eq!((parsed.channels, parsed.warnings), (kept, warnings));
    }

    #[test]
    fn a_wrong_type_after_a_skipped_channel_is_placed_in_the_file() {
        let file = FILE.replace(
            r#"{"node": 1, "path": "weights"}"#,
            r#"{"node": "one", "path": "weights"}"#,
        );
        match parse(file.as_bytes()) {
            Err(Fail(ModelErrorKind::Parse(_, _, m))) => {
                assert!(
                    m.contains("invalid type") && m.contains("line 19 column 46"),
                    "{m}"
                );
            }
            Err(Fail(k)) => panic!("another error: {k:?}"),
            Ok(_) => panic!("a string for a node was read"),
        }
    }
}
