//! `softpick pick`: what is under one pixel.

use serde::Serialize;
use softpick::{Hit, NearPixel};

use crate::args::PickCmd;
use crate::common::{say, CliError, Res, Setup};

/// Parses `X,Y` into the pixel containing that point, checked against the frame.
pub fn parse_at(s: &str, width: u32, height: u32) -> Res<(u32, u32)> {
    let bad = || {
        CliError(format!(
            "--at {s:?}: expected X,Y pixel coordinates, e.g. 180,250"
        ))
    };
    let (x, y) = s.split_once(',').ok_or_else(bad)?;
    let x: f64 = x.trim().parse().map_err(|_| bad())?;
    let y: f64 = y.trim().parse().map_err(|_| bad())?;
    if !x.is_finite() || !y.is_finite() {
        return Err(CliError(format!(
            "--at {s}: coordinates must be finite numbers"
        )));
    }
    let (px, py) = (x.floor(), y.floor());
    if px < 0.0 || py < 0.0 || px >= f64::from(width) || py >= f64::from(height) {
        return Err(CliError(format!(
            "--at {s}: outside the {width}x{height} frame (x must be in 0..{width}, y in 0..{height})"
        )));
    }
    Ok((px as u32, py as u32))
}

/// Parses `--radius N`: a finite distance in pixels, 0 or more.
pub fn parse_radius(s: &str) -> Res<f32> {
    match s.trim().parse::<f32>() {
        Ok(r) if r.is_finite() && r >= 0.0 => Ok(r),
        _ => Err(CliError(format!(
            "--radius {s:?}: expected a distance in pixels, 0 or more, e.g. 5"
        ))),
    }
}

/// The covered pixel a `--radius` pick answered from (`null`: none within the radius).
#[derive(Serialize)]
struct NearJson {
    x: u32,
    y: u32,
    distance: f32,
}

impl NearJson {
    fn new(n: &NearPixel) -> Self {
        Self {
            x: n.x,
            y: n.y,
            distance: n.distance,
        }
    }
}

/// A hit as JSON (`--json`).
#[derive(Serialize)]
pub struct HitJson<'a> {
    pub mesh: u32,
    pub mesh_name: &'a str,
    pub triangle: u32,
    pub global_triangle: u32,
    /// The instance (`Scene::instances`), its node id and name.
    pub instance: u32,
    pub node: u32,
    pub node_name: &'a str,
    /// The file's mesh (glTF `meshes[i]`) and primitive; `triangle` counts
    /// within that primitive.
    pub source_mesh: u32,
    pub primitive: u32,
    /// Window depth 0..1.
    pub depth: f32,
    /// Distance from the near-plane point of the pixel ray.
    pub distance: f32,
    pub position: [f32; 3],
    pub barycentric: [f32; 3],
    pub normal: [f32; 3],
    pub front_face: bool,
}

impl<'a> HitJson<'a> {
    pub fn new(h: &'a Hit) -> Self {
        Self {
            mesh: h.mesh,
            mesh_name: &h.mesh_name,
            triangle: h.triangle,
            global_triangle: h.global_triangle,
            instance: h.origin.instance,
            node: h.origin.node,
            node_name: &h.node_name,
            source_mesh: h.origin.source_mesh,
            primitive: h.origin.primitive,
            depth: h.depth,
            distance: h.distance,
            position: h.position.to_array(),
            barycentric: h.barycentric.to_array(),
            normal: h.normal.to_array(),
            front_face: h.front_face,
        }
    }
}

/// `pick --json`: the pixel, the method and the hit's fields (all null on background).
#[derive(Serialize)]
struct PickJson<'a> {
    x: u32,
    y: u32,
    method: &'static str,
    mesh: Option<u32>,
    mesh_name: Option<&'a str>,
    triangle: Option<u32>,
    global_triangle: Option<u32>,
    instance: Option<u32>,
    node: Option<u32>,
    node_name: Option<&'a str>,
    source_mesh: Option<u32>,
    primitive: Option<u32>,
    depth: Option<f32>,
    distance: Option<f32>,
    position: Option<[f32; 3]>,
    barycentric: Option<[f32; 3]>,
    normal: Option<[f32; 3]>,
    front_face: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    radius: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    near: Option<Option<NearJson>>,
}

/// `pick --all --json`: every hit, near to far.
#[derive(Serialize)]
struct PickAllJson<'a> {
    x: u32,
    y: u32,
    method: &'static str,
    hits: Vec<HitJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    radius: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    near: Option<Option<NearJson>>,
}

fn to_json(v: &impl Serialize) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn describe(h: &Hit) -> String {
    let p = h.position;
    let b = h.barycentric;
    format!(
        "mesh {} \"{}\" triangle {} (global {}), instance {} (node {} \"{}\", primitive {}), depth {:.6}, distance {:.4}, position ({:.4}, {:.4}, {:.4}), barycentric ({:.4}, {:.4}, {:.4}), {} face",
        h.mesh,
        h.mesh_name,
        h.triangle,
        h.global_triangle,
        h.origin.instance,
        h.origin.node,
        h.node_name,
        h.origin.primitive,
        h.depth,
        h.distance,
        p.x,
        p.y,
        p.z,
        b.x,
        b.y,
        b.z,
        if h.front_face { "front" } else { "back" }
    )
}

/// `softpick pick`.
///
/// With `--radius N`, a pixel the method finds nothing under is answered
/// from the nearest covered pixel within N pixels
/// ([`softpick::Frame::nearest_covered`],
/// as [`softpick::Picks::near`] does), and the pixel used and its distance
/// are reported. `--all` lists [`softpick::Picks::all`]: the rasterizer's
/// coverage for the buffer and direct methods, every ray hit for the ray
/// method.
pub fn pick_cmd(a: &PickCmd) -> Res<()> {
    let (at, method, all, json_out) = (a.at.as_str(), a.method, a.all, a.json);
    let radius = a.radius.as_deref();
    let radius = radius.map(parse_radius).transpose()?;
    let s = Setup::new(&a.scene, Some(&a.raster))?.with_clip(&a.clip)?;
    let (x, y) = parse_at(at, s.camera.width, s.camera.height)?;
    let method = method.method();
    let frame = s.render_ids()?;
    let picks = frame.picks(&s.scene)?.with(method);
    let name = method.name();
    // the pixel the answer comes from: (x, y) itself when the method finds
    // something there, else the nearest covered pixel within the radius
    let near_of = |found: bool| -> Option<Option<NearPixel>> {
        let r = radius?;
        Some(if found {
            Some(NearPixel {
                x,
                y,
                triangle: frame
                    .triangle_at(i64::from(x), i64::from(y))
                    .unwrap_or(u32::MAX),
                distance: 0.0,
            })
        } else {
            frame.nearest_covered(i64::from(x), i64::from(y), r)
        })
    };
    let from = |near: &Option<Option<NearPixel>>| match near {
        Some(Some(n)) => (n.x, n.y),
        _ => (x, y),
    };
    let json_near = |near: &Option<Option<NearPixel>>| near.map(|n| n.as_ref().map(NearJson::new));
    let radius_text = |near: &Option<Option<NearPixel>>| match (radius, near) {
        (Some(r), Some(Some(n))) => format!(
            ", radius {r}: covered pixel ({}, {}) at distance {:.4}",
            n.x, n.y, n.distance
        ),
        (Some(r), _) => format!(", radius {r}: no covered pixel within {r} px"),
        _ => String::new(),
    };
    if all {
        let mut hits = picks.all(i64::from(x), i64::from(y));
        let near = near_of(!hits.is_empty());
        let (fx, fy) = from(&near);
        if (fx, fy) != (x, y) {
            hits = picks.all(i64::from(fx), i64::from(fy));
        }
        if json_out {
            let j = PickAllJson {
                x,
                y,
                method: name,
                hits: hits.iter().map(HitJson::new).collect(),
                radius,
                near: json_near(&near),
            };
            say(format_args!("{}", to_json(&j)))?;
        } else {
            say(format_args!(
                "pixel ({x}, {y}), {name}{}: {} triangle{} under the pixel, near to far",
                radius_text(&near),
                hits.len(),
                if hits.len() == 1 { "" } else { "s" }
            ))?;
            for (k, h) in hits.iter().enumerate() {
                say(format_args!("  {}. {}", k + 1, describe(h)))?;
            }
        }
        return Ok(());
    }
    // (`Picks::near` gives the same hit; the pixel it came from is reported too)
    let hit = picks.at(i64::from(x), i64::from(y));
    let near = near_of(hit.is_some());
    let (fx, fy) = from(&near);
    let hit = if (fx, fy) == (x, y) {
        hit
    } else {
        picks.at(i64::from(fx), i64::from(fy))
    };
    if json_out {
        let j = hit.as_ref().map(HitJson::new);
        let j = PickJson {
            x,
            y,
            method: name,
            mesh: j.as_ref().map(|h| h.mesh),
            mesh_name: j.as_ref().map(|h| h.mesh_name),
            triangle: j.as_ref().map(|h| h.triangle),
            global_triangle: j.as_ref().map(|h| h.global_triangle),
            instance: j.as_ref().map(|h| h.instance),
            node: j.as_ref().map(|h| h.node),
            node_name: j.as_ref().map(|h| h.node_name),
            source_mesh: j.as_ref().map(|h| h.source_mesh),
            primitive: j.as_ref().map(|h| h.primitive),
            depth: j.as_ref().map(|h| h.depth),
            distance: j.as_ref().map(|h| h.distance),
            position: j.as_ref().map(|h| h.position),
            barycentric: j.as_ref().map(|h| h.barycentric),
            normal: j.as_ref().map(|h| h.normal),
            front_face: j.as_ref().map(|h| h.front_face),
            radius,
            near: json_near(&near),
        };
        say(format_args!("{}", to_json(&j)))?;
    } else {
        let r = radius_text(&near);
        match &hit {
            Some(h) => say(format_args!("pixel ({x}, {y}), {name}{r}: {}", describe(h)))?,
            None => say(format_args!(
                "pixel ({x}, {y}), {name}{r}: nothing (background)"
            ))?,
        }
    }
    Ok(())
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_parsing() {
        assert_eq!(parse_at("180,250", 360, 360).unwrap(), (180, 250));
        assert_eq!(parse_at(" 3.7 , 0.2", 360, 360).unwrap(), (3, 0));
        assert_eq!(parse_at("359.99,0", 360, 360).unwrap(), (359, 0));
        for bad in [
            "360,0", "0,360", "-1,5", "-0.5,5", "nan,1", "1,inf", "1", "a,b", "",
        ] {
            assert!(parse_at(bad, 360, 360).is_err(), "{bad}");
        }
    }

    #[test]
    fn radius_parsing() {
        assert_eq!(parse_radius("5").unwrap(), 5.0);
        assert_eq!(parse_radius(" 2.5 ").unwrap(), 2.5);
        assert_eq!(parse_radius("0").unwrap(), 0.0);
        for bad in ["-1", "nan", "inf", "five", ""] {
            assert!(
                parse_radius(bad).unwrap_err().0.starts_with("--radius"),
                "{bad}"
            );
        }
    }
}
