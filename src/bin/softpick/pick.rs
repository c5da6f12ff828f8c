//! `softpick pick`: what is under one pixel.

use serde::Serialize;
use softpick::{raycast_all, CullMode, Frame, Hit, PickMethod, RayOptions, RenderOptions, Scene};

use crate::common::{say, CliError, Res, SceneArgs, Setup};
use crate::sweep::pick_with;
use crate::{MethodArg, RasterArgs};

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

/// A hit as JSON (`--json`).
#[derive(Serialize)]
pub struct HitJson<'a> {
    pub mesh: u32,
    pub mesh_name: &'a str,
    pub triangle: u32,
    pub global_triangle: u32,
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
    depth: Option<f32>,
    distance: Option<f32>,
    position: Option<[f32; 3]>,
    barycentric: Option<[f32; 3]>,
    normal: Option<[f32; 3]>,
    front_face: Option<bool>,
}

/// `pick --all --json`: every hit, near to far.
#[derive(Serialize)]
struct PickAllJson<'a> {
    x: u32,
    y: u32,
    method: &'static str,
    hits: Vec<HitJson<'a>>,
}

fn to_json(v: &impl Serialize) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn describe(h: &Hit) -> String {
    let p = h.position;
    let b = h.barycentric;
    format!(
        "mesh {} \"{}\" triangle {} (global {}), depth {:.6}, distance {:.4}, position ({:.4}, {:.4}, {:.4}), barycentric ({:.4}, {:.4}, {:.4}), {} face",
        h.mesh,
        h.mesh_name,
        h.triangle,
        h.global_triangle,
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

/// Every triangle under the pixel, near to far: the rasterizer's coverage
/// for the buffer and direct methods, every ray hit (with the render's cull
/// mode) for the ray method.
fn pick_all(
    method: PickMethod,
    frame: &Frame,
    scene: &Scene,
    cull: CullMode,
    x: u32,
    y: u32,
) -> Vec<Hit> {
    let Some(cam) = frame.camera() else {
        return Vec::new();
    };
    match method {
        PickMethod::Buffer | PickMethod::Direct => {
            frame.pick_all(scene, i64::from(x), i64::from(y))
        }
        PickMethod::Ray => {
            // the same ray and range as Frame::pick_ray
            let ray = cam.ray_for_pixel(x, y);
            let far = (cam.unproject(x as f32 + 0.5, y as f32 + 0.5, 1.0) - ray.origin).length();
            let opts = RayOptions {
                near: 0.0,
                far,
                cull,
                filter: None,
            };
            let mut hits = raycast_all(scene, &ray, &opts);
            for h in &mut hits {
                h.depth = cam.project(h.position).map_or(f32::NAN, |p| p.z);
            }
            hits
        }
    }
}

/// `softpick pick`.
pub fn pick_cmd(
    scene_args: &SceneArgs,
    raster: &RasterArgs,
    at: &str,
    method: MethodArg,
    all: bool,
    json_out: bool,
) -> Res<()> {
    let s = Setup::new(scene_args, Some(raster))?;
    let (x, y) = parse_at(at, s.camera.width, s.camera.height)?;
    let method = method.method();
    let frame = softpick::render(
        &s.scene,
        &s.camera,
        RenderOptions {
            color: false,
            ..s.opts
        },
    )?;
    let name = method.name();
    if all {
        let hits = pick_all(method, &frame, &s.scene, s.opts.cull, x, y);
        if json_out {
            let j = PickAllJson {
                x,
                y,
                method: name,
                hits: hits.iter().map(HitJson::new).collect(),
            };
            say(format_args!("{}", to_json(&j)))?;
        } else {
            say(format_args!(
                "pixel ({x}, {y}), {name}: {} triangle{} under the pixel, near to far",
                hits.len(),
                if hits.len() == 1 { "" } else { "s" }
            ))?;
            for (k, h) in hits.iter().enumerate() {
                say(format_args!("  {}. {}", k + 1, describe(h)))?;
            }
        }
        return Ok(());
    }
    let hit = pick_with(method, &frame, &s.scene, i64::from(x), i64::from(y));
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
            depth: j.as_ref().map(|h| h.depth),
            distance: j.as_ref().map(|h| h.distance),
            position: j.as_ref().map(|h| h.position),
            barycentric: j.as_ref().map(|h| h.barycentric),
            normal: j.as_ref().map(|h| h.normal),
            front_face: j.as_ref().map(|h| h.front_face),
        };
        say(format_args!("{}", to_json(&j)))?;
    } else {
        match &hit {
            Some(h) => say(format_args!("pixel ({x}, {y}), {name}: {}", describe(h)))?,
            None => say(format_args!(
                "pixel ({x}, {y}), {name}: nothing (background)"
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
}
